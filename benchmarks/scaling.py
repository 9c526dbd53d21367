"""Training time against the number of examples, libsmo and LIBSVM, with the fitted
exponent of time ~ n^k, like the tables of Platt's paper.

The ladder is the a1a..a9a sizes (1,605 to 32,561 rows) taken as the first rows of a9a
(RBF, C=1, gamma=0.05, tol 1e-3, 100 MB cache, one thread each), each side prepared and
fitted by its `benchmarks.peers` module. Every size shows both dual objectives (from
the coefficients, `benchmarks.objective`) and support vectors; a size whose runs
disagree (`benchmarks.agreement`) is FLAGGED and the script exits with status 1.

    python benchmarks/scaling.py [--repeats 1] [--max-rows 32561]
"""
import os

# libsvm-official is built with OpenMP: one thread, as libsmo's default, so that the
# comparison is thread for thread (this must be set before libsvm is loaded)
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import agreement, data, objective, options  # noqa: E402
from benchmarks.cases import CASES  # noqa: E402
from benchmarks.peers import peer  # noqa: E402

LADDER = [1605, 2265, 3185, 4781, 6414, 11220, 16100, 22696, 32561]


def timed_fit(library, case, X, y):
    """(seconds, objective from the coefficients, nSV) of one fit of one side."""
    fit = peer(library).prepare(case, X, y, 1)
    start = time.perf_counter()
    answer = fit()
    seconds = time.perf_counter() - start
    return seconds, objective.case_objective(answer, X, y, case), answer.n_sv


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.data_dir_option(parser)
    parser.add_argument("--repeats", type=options.positive_int, default=1)
    parser.add_argument("--max-rows", type=options.positive_int, default=LADDER[-1])
    args = parser.parse_args(argv)
    case = CASES["a9a"]
    X, y = data.load_svmlight("a9a", 123, args.data_dir)
    sizes = [n for n in LADDER if n <= args.max_rows]
    rows, flagged = [], False
    print("| rows | libsmo s | LIBSVM s | ratio | objective libsmo | objective LIBSVM | "
          "largest rel. diff | nSV libsmo | nSV LIBSVM |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        Xn, yn = X[:n], y[:n]
        ours, theirs = [], []
        for _ in range(args.repeats):
            theirs.append(timed_fit("libsvm", case, Xn, yn))
            ours.append(timed_fit("libsmo", case, Xn, yn))
        reference = ours[0][1]
        diffs = [agreement.relative_difference(o, reference) for _, o, _ in ours + theirs]
        nsv = [s for _, _, s in ours + theirs]
        same = (max(diffs) <= agreement.OBJECTIVE_RTOL
                and max(nsv) - min(nsv) <= agreement.NSV_RTOL * min(nsv))
        flagged |= not same
        t_ours = statistics.median(t for t, _, _ in ours)
        t_theirs = statistics.median(t for t, _, _ in theirs)
        rows.append((n, t_ours, t_theirs))
        print(f"| {n} | {t_ours:.3f} | {t_theirs:.3f} | {t_ours / t_theirs:.2f}"
              f"{'' if same else ' (FLAGGED)'} | {ours[0][1]:.6f} | {theirs[0][1]:.6f} | "
              f"{max(diffs):.1e} | {', '.join(str(s) for _, _, s in ours)} | "
              f"{', '.join(str(s) for _, _, s in theirs)} |", flush=True)
    n, ours, theirs = (np.array(c, dtype=float) for c in zip(*rows))
    if len(sizes) > 1:
        k_ours = np.polyfit(np.log(n), np.log(ours), 1)[0]
        k_theirs = np.polyfit(np.log(n), np.log(theirs), 1)[0]
        print(f"\nfitted exponent (time ~ n^k): libsmo k = {k_ours:.2f}, "
              f"LIBSVM k = {k_theirs:.2f}")
    if flagged:
        print("a size's runs did other work (FLAGGED above)", file=sys.stderr)
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
