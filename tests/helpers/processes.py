"""Processes as the tests measure them."""
import os


def process_cpu_seconds(pid=None):
    """CPU seconds (user + system, all threads) a process has used so far: this one's
    (`time.process_time`) or another's from /proc (clock ticks).

    Promises such as "Ctrl-C acts within a second" are about the work a process does
    after the signal, which a busy machine does not change, while wall time on a
    shared machine measures the neighbours too: tests time them in CPU seconds.
    """
    import time
    if pid is None:
        return time.process_time()
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields after the command: state is [0], utime [11], stime [12]
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
