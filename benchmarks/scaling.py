"""Training time against the number of examples, libsmo and LIBSVM, with the fitted
exponent of time ~ n^k, like the tables of Platt's paper.

The ladder is the a1a..a9a sizes (1,605 to 32,561 rows) taken as the first rows of a9a
(RBF, C=1, gamma=0.05, tol 1e-3, 100 MB cache, one thread each).

    python benchmarks/scaling.py [--repeats 1] [--max-rows 32561]
"""
import os

# libsvm-official is built with OpenMP: one thread, as libsmo's default, so that the
# comparison is thread for thread (this must be set before libsvm is loaded)
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import libsmo  # noqa: E402
from bench_train import REPO, libsvm_run, load  # noqa: E402

LADDER = [1605, 2265, 3185, 4781, 6414, 11220, 16100, 22696, 32561]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--max-rows", type=int, default=LADDER[-1])
    args = parser.parse_args(argv)
    X, y = load(args.data_dir, "a9a", 123)
    sizes = [n for n in LADDER if n <= args.max_rows]
    rows = []
    print("| rows | libsmo s | LIBSVM s | ratio | nSV libsmo | nSV LIBSVM |")
    print("|---|---|---|---|---|---|")
    for n in sizes:
        Xn, yn = X[:n], y[:n]
        ours, theirs = [], []
        for _ in range(args.repeats):
            theirs.append(libsvm_run(Xn, yn, Xn[:1], yn[:1], 1.0, 0.05))
            start = time.perf_counter()
            model = libsmo.train(Xn, yn, C=1.0, gamma=0.05, n_threads=1)
            ours.append(time.perf_counter() - start)
        t_ours = statistics.median(ours)
        t_theirs = statistics.median(r["train"] for r in theirs)
        rows.append((n, t_ours, t_theirs))
        print(f"| {n} | {t_ours:.3f} | {t_theirs:.3f} | {t_ours / t_theirs:.2f} | "
              f"{model.n_sv} | {theirs[-1]['n_sv']} |", flush=True)
    n, ours, theirs = (np.array(c, dtype=float) for c in zip(*rows))
    k_ours = np.polyfit(np.log(n), np.log(ours), 1)[0]
    k_theirs = np.polyfit(np.log(n), np.log(theirs), 1)[0]
    print(f"\nfitted exponent (time ~ n^k): libsmo k = {k_ours:.2f}, LIBSVM k = {k_theirs:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
