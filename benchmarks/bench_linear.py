"""The linear kernel: libsmo's primal solver against its kernel rows, LIBSVM and
liblinear, on a9a (C=0.05, Platt's linear Adult setting) and on random Fourier
features of a9a.

All run in this one process, one thread each (OMP_NUM_THREADS=1 is set for
libsvm-official's OpenMP loop), alternating order run by run; medians of --repeats runs.
What each solves:

- libsmo primal (`linear_solver="primal"`, the default for kernel="linear"): LIBSVM's
  dual with the weights w kept explicitly, tol 1e-3;
- libsmo kernel rows (`linear_solver="kernel"`): the same dual with cached kernel rows;
- libsvm-official: the same dual (-t 0 -e 0.001 -m 100);
- liblinear-official -s 3 -B 1 (L1-loss SVM, dual coordinate descent, the bias as a
  feature of value 1, liblinear's default tolerance 0.1): not the same problem (the
  bias is regularised and there is no equality constraint), so neither its objective
  nor a time ratio against it stands on equal work: its time and test accuracy are
  shown as the reference for a linear SVM, its ratio left out.

Each is prepared and fitted by its `benchmarks.peers` module. The dual objective of
every run of the three that solve LIBSVM's dual is computed from its coefficients
(`benchmarks.objective`) and held, with its nSV and accuracy, against the first run of
libsmo's primal solver (`benchmarks.agreement`); a ratio one of whose runs did other
work is FLAGGED and the script exits with status 1. liblinear-official is optional
(`pip install ".[bench]"` installs it with the other peers); without it that row is
left out.

    python benchmarks/bench_linear.py                 # a9a and RFF(a9a), 3 runs each
    python benchmarks/bench_linear.py --rows 4000 --repeats 1 --components 200
"""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse  # noqa: E402
import gc  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import agreement, data, objective, options  # noqa: E402
from benchmarks.cases import CASES  # noqa: E402
from benchmarks.measure import blas_threads  # noqa: E402
from benchmarks.peers import liblinear, peer  # noqa: E402


def timed(fn):
    """(result, wall seconds) of fn()."""
    gc.collect()
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def dual_run(library, case, X, y, Xt, yt, **extra):
    """One fit of a library that solves LIBSVM's dual, with what shows its work."""
    fit = peer(library).prepare(case, X, y, 1, **extra)
    answer, seconds = timed(fit)
    return {"train": seconds, "objective": objective.case_objective(answer, X, y, case),
            "n_sv": answer.n_sv, "n_iter": answer.n_iter,
            "accuracy": 100 * float(np.mean(answer.predict(Xt) == yt))}


def liblinear_run(case, X, y, Xt, yt):
    predict, seconds = timed(liblinear.prepare(X, y, f"-s 3 -c {case.C!r} -B 1"))
    return {"train": seconds, "accuracy": 100 * float(np.mean(predict(Xt) == yt))}


def bench(name, case, X, y, Xt, yt, repeats, with_liblinear):
    """Every solver's runs, alternating; prints the table; returns whether every run
    of LIBSVM's dual did the same work."""
    runners = {"libsmo primal": lambda: dual_run("libsmo", case, X, y, Xt, yt,
                                                 linear_solver="primal"),
               "libsmo kernel rows": lambda: dual_run("libsmo", case, X, y, Xt, yt,
                                                      linear_solver="kernel"),
               "LIBSVM": lambda: dual_run("libsvm", case, X, y, Xt, yt)}
    if with_liblinear:
        runners["liblinear -s 3"] = lambda: liblinear_run(case, X, y, Xt, yt)
    runs = {k: [] for k in runners}
    order = list(runners)
    for r in range(repeats):
        for k in (order if r % 2 == 0 else order[::-1]):
            runs[k].append(runners[k]())
    reference = runs["libsmo primal"][0]
    checks = {k: [agreement.check_run(run, reference, regression=False, repeat=r)
                  for r, run in enumerate(rs)]
              for k, rs in runs.items() if "objective" in rs[0]}
    same = all(c.agrees for cs in checks.values() for c in cs)
    print(f"\n{name}: {X.shape[0]} x {X.shape[1]} ({'sparse' if sp.issparse(X) else 'dense'}),"
          f" C={case.C}, median of {repeats}")
    print(f"{'solver':20s} {'train s':>9s} {'ratio':>17s} {'objective':>16s} "
          f"{'rel. diff':>9s} {'nSV (each run)':>15s} {'test acc (each run)':>20s}")
    libsvm_time = statistics.median(r["train"] for r in runs["LIBSVM"])
    for k, rs in runs.items():
        t = statistics.median(r["train"] for r in rs)
        accuracies = ", ".join(sorted({f"{r['accuracy']:.2f}%" for r in rs}))
        if k in checks:
            ratio = f"{t / libsvm_time:.3f}" + ("" if same else " (FLAGGED)")
            worst = max(c.objective_rel_diff for c in checks[k])
            nsv = ", ".join(sorted({str(r["n_sv"]) for r in rs}))
            print(f"{k:20s} {t:9.3f} {ratio:>17s} {rs[0]['objective']:16.6f} "
                  f"{worst:9.1e} {nsv:>15s} {accuracies:>20s}")
        else:
            print(f"{k:20s} {t:9.3f} {'(other problem)':>17s} {'-':>16s} {'-':>9s} "
                  f"{'-':>15s} {accuracies:>20s}")
    for k, cs in checks.items():
        for c in cs:
            if not c.agrees:
                print(f"FLAGGED: {k} run {c.repeat + 1}: {'; '.join(c.problems)}")
    return same


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.data_dir_option(parser)
    parser.add_argument("--repeats", type=options.positive_int, default=3)
    parser.add_argument("--rows", type=options.positive_int, default=None,
                        help="train on the first ROWS rows (and test on as many)")
    parser.add_argument("--components", type=options.positive_int, default=1000,
                        help="random Fourier features for the second case")
    args = parser.parse_args(argv)
    import libsmo
    X, y = data.load_svmlight("a9a", 123, args.data_dir)
    Xt, yt = data.load_svmlight("a9a.t", 123, args.data_dir)
    if args.rows:
        X, y, Xt, yt = X[:args.rows], y[:args.rows], Xt[:args.rows], yt[:args.rows]
    with_liblinear = liblinear.available()
    if not with_liblinear:
        print("liblinear-official is not installed: its row is left out")
    case = CASES["a9a-linear"]
    with blas_threads(1):
        same = bench("a9a, linear", case, X, y, Xt, yt, args.repeats, with_liblinear)
        rff = libsmo.RandomFourierFeatures(n_components=args.components, gamma=0.05,
                                           random_state=0).fit(X)
        Z, Zt = rff.transform(X), rff.transform(Xt)
        same &= bench(f"RFF({args.components}) of a9a, gamma=0.05",
                      case.replace(name="rff-a9a", C=1.0, n_features=args.components),
                      Z, y, Zt, yt, args.repeats, with_liblinear)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
