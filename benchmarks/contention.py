"""One libsmo training alone, then the same training in several processes at once: how
much slower each copy runs when its neighbours share the machine's memory system.

    python benchmarks/contention.py                       # Fashion-MNIST T-shirt/shirt
    python benchmarks/contention.py --classes 7,9 --copies 2 --repeats 3
    python benchmarks/contention.py --rows 3000 --repeats 1   # a quick run
    python benchmarks/contention.py --all-pairs --repeats 2   # the 45 pairs, shared out

This is the question behind the distributed benchmark's two workers on one machine:
Dask's workers on two cores each train their one-vs-one pairs on one core, but they read
their rows through one memory bus and one last-level cache. A pair of 12,000 x 784 dense
rows (75 MB) streams its rows once per kernel row, so two pairs trained at once wait on
memory more than one alone; on a cluster each worker has a machine of its own.

Each copy loads the data, waits at a barrier with the others, trains one binary
Fashion-MNIST problem (two classes of the 60,000 training images, pixels / 255, C=10,
gamma = 1 / (784 var X), cache 200 MB, one thread) and reports its CPU seconds (its
training thread's, time.thread_time, so neither the neighbours' work nor its own
start-up is counted) and wall seconds. Printed: the
median CPU seconds alone, with N copies at once, and their ratio, plus the SMO steps,
which must be the same in every copy.

With --all-pairs the work is the distributed benchmark's instead: all 45 one-vs-one pairs
of the 10 classes, trained by one process, then shared out over N processes at once
(process k trains pairs k, k + N, ...), each pair as its own binary problem as a Dask
worker trains it. The CPU seconds compared are the sums over all the pairs, and the
steps too.
"""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import argparse  # noqa: E402
import multiprocessing  # noqa: E402
import queue  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import data  # noqa: E402


def pair_problem(X, y, classes):
    """The rows of two Fashion-MNIST classes (first +1, second -1) among images X of
    labels y."""
    a, b = classes
    pair = np.nonzero((y == a) | (y == b))[0]
    return np.ascontiguousarray(X[pair]), np.where(y[pair] == a, 1.0, -1.0)


def copy_main(pairs, rows, barrier, results):
    """One copy: load its pairs, wait for the others, train them one after another,
    report (cpu s, wall s, steps) summed over them."""
    import libsmo
    X, y, _, _ = data.load_fashion(rows)
    gamma = 1.0 / (X.shape[1] * X.var())   # of all the loaded images, as the cluster's fit
    problems = [pair_problem(X, y, classes) for classes in pairs]
    del X, y
    barrier.wait()
    cpu, wall, steps = 0.0, time.perf_counter(), 0
    for X, y in problems:
        start = time.thread_time()
        model = libsmo.train(X, y, C=10.0, gamma=gamma, cache_size=200, n_threads=1)
        cpu += time.thread_time() - start
        steps += int(np.sum(model.n_iter))
    results.put((cpu, time.perf_counter() - wall, steps))


def run(shares, rows):
    """Train each share of pairs in its own process, all at once; their (cpu s, wall s,
    steps)."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(len(shares))
    results = context.Queue()
    processes = [context.Process(target=copy_main, args=(share, rows, barrier, results))
                 for share in shares]
    for p in processes:
        p.start()
    out = []
    while len(out) < len(processes):
        try:
            out.append(results.get(timeout=1.0))
        except queue.Empty:
            # a copy that died never reports: stop instead of waiting for ever
            failed = [p.exitcode for p in processes if p.exitcode not in (None, 0)]
            if failed:
                for p in processes:
                    p.terminate()
                sys.exit(f"a copy failed with exit status {failed[0]}")
    for p in processes:
        p.join()
        if p.exitcode != 0:
            sys.exit(f"a copy failed with exit status {p.exitcode}")
    return out


def main(argv=None):
    """Run alone and together, alternating; print the table; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", default="0,6",
                        help="two Fashion-MNIST labels (default 0,6: T-shirt against shirt)")
    parser.add_argument("--copies", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--rows", type=int, default=60000,
                        help="the first ROWS training images (default all 60,000)")
    parser.add_argument("--all-pairs", action="store_true",
                        help="all 45 pairs, shared out over the copies (--classes unused)")
    args = parser.parse_args(argv)
    classes = tuple(int(c) for c in args.classes.split(","))
    if (len(classes) != 2 or args.copies < 2 or args.repeats < 1
            or not 1 <= args.rows <= 60000):
        parser.error("--classes takes two labels, --copies at least 2, --repeats 1 or "
                     "more, --rows 1 to 60000")
    if args.all_pairs:
        pairs = [(a, b) for a in range(10) for b in range(a + 1, 10)]
        runs = ((1, [pairs]), (args.copies, [pairs[k::args.copies]
                                             for k in range(args.copies)]))
        label, each = "all 45 pairs", "CPU s summed, together"
    else:
        runs = ((1, [[classes]]), (args.copies, [[classes]] * args.copies))
        label, each = f"{classes[0]} vs {classes[1]}", "CPU s each, together"
    alone, together, steps = [], [], set()
    for repeat in range(args.repeats):
        for (copies, shares), into in zip(runs, (alone, together)):
            out = run(shares, args.rows)
            for cpu, wall, n_iter in out:
                print(f"  repeat {repeat + 1}, {copies} at once: cpu {cpu:.2f} s, "
                      f"wall {wall:.2f} s, {n_iter} steps", flush=True)
            if args.all_pairs:
                into.append(sum(cpu for cpu, _, _ in out))
                steps.add(sum(n_iter for _, _, n_iter in out))
            else:
                into.extend(cpu for cpu, _, _ in out)
                steps.update(n_iter for _, _, n_iter in out)
    ratio = statistics.median(together) / statistics.median(alone)
    print(f"\n| work | copies at once | CPU s alone | {each} | ratio | "
          f"SMO steps |\n|---|---:|---:|---:|---:|---:|\n| {label} | "
          f"{args.copies} | {statistics.median(alone):.2f} | "
          f"{statistics.median(together):.2f} | {ratio:.2f} | "
          f"{', '.join(str(s) for s in sorted(steps))} |")
    return 0 if len(steps) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
