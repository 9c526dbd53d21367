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


def wait_until(condition, limit=60.0, interval=0.01):
    """Poll condition() until it holds or `limit` seconds have passed; whether it held.

    For what happens "soon" after an event (threads ending, a process starting to
    train): a generous limit that a loaded machine does not reach, instead of a fixed
    sleep that a slow one outlasts.
    """
    import time
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            return bool(condition())
        time.sleep(interval)
    return True
