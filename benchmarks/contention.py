"""One libsmo training alone, then the same training in several processes at once: how
much slower each copy runs when its neighbours share the machine's memory system.

    python benchmarks/contention.py                       # Fashion-MNIST T-shirt/shirt
    python benchmarks/contention.py --classes 7,9 --copies 2 --repeats 3
    python benchmarks/contention.py --rows 3000 --repeats 1   # a quick run

This is the question behind the distributed benchmark's two workers on one machine:
Dask's workers on two cores each train their one-vs-one pairs on one core, but they read
their rows through one memory bus and one last-level cache. A pair of 12,000 x 784 dense
rows (75 MB) streams its rows once per kernel row, so two pairs trained at once wait on
memory more than one alone; on a cluster each worker has a machine of its own.

Each copy loads the data, waits at a barrier with the others, trains one binary
Fashion-MNIST problem (two classes of the 60,000 training images, pixels / 255, C=10,
gamma = 1 / (784 var X), cache 200 MB, one thread) and reports its CPU seconds (its own
process's, so the neighbours' work is not counted) and wall seconds. Printed: the
median CPU seconds alone, with N copies at once, and their ratio, plus the SMO steps,
which must be the same in every copy.
"""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import argparse  # noqa: E402
import multiprocessing  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_cases  # noqa: E402


def pair_problem(classes, rows):
    """The rows of two Fashion-MNIST classes among the first `rows` training images
    (first +1, second -1) and the gamma of those images."""
    X, y, _, _ = bench_cases.load_fashion(bench_cases.fashion_paths(), rows)
    gamma = 1.0 / (X.shape[1] * X.var())
    a, b = classes
    pair = np.nonzero((y == a) | (y == b))[0]
    return np.ascontiguousarray(X[pair]), np.where(y[pair] == a, 1.0, -1.0), gamma


def copy_main(classes, rows, barrier, results):
    """One copy: load, wait for the others, train, report (cpu s, wall s, steps)."""
    import libsmo
    X, y, gamma = pair_problem(classes, rows)
    barrier.wait()
    cpu, wall = time.process_time(), time.perf_counter()
    model = libsmo.train(X, y, C=10.0, gamma=gamma, cache_size=200)
    results.put((time.process_time() - cpu, time.perf_counter() - wall,
                 int(np.sum(model.n_iter))))


def run(classes, rows, copies):
    """Train `copies` copies at once; their (cpu s, wall s, steps)."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(copies)
    results = context.Queue()
    processes = [context.Process(target=copy_main, args=(classes, rows, barrier, results))
                 for _ in range(copies)]
    for p in processes:
        p.start()
    out = [results.get() for _ in processes]
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
    args = parser.parse_args(argv)
    classes = tuple(int(c) for c in args.classes.split(","))
    if (len(classes) != 2 or args.copies < 2 or args.repeats < 1
            or not 1 <= args.rows <= 60000):
        parser.error("--classes takes two labels, --copies at least 2, --repeats 1 or "
                     "more, --rows 1 to 60000")
    alone, together, steps = [], [], set()
    for repeat in range(args.repeats):
        for copies, into in ((1, alone), (args.copies, together)):
            for cpu, wall, n_iter in run(classes, args.rows, copies):
                into.append(cpu)
                steps.add(n_iter)
                print(f"  repeat {repeat + 1}, {copies} at once: cpu {cpu:.2f} s, "
                      f"wall {wall:.2f} s, {n_iter} steps", flush=True)
    ratio = statistics.median(together) / statistics.median(alone)
    print(f"\n| classes | copies at once | CPU s alone | CPU s each, together | ratio | "
          f"SMO steps |\n|---|---:|---:|---:|---:|---:|\n| {classes[0]} vs {classes[1]} | "
          f"{args.copies} | {statistics.median(alone):.2f} | "
          f"{statistics.median(together):.2f} | {ratio:.2f} | "
          f"{', '.join(str(s) for s in sorted(steps))} |")
    return 0 if len(steps) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
