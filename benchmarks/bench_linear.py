"""The linear kernel: libsmo's primal solver against its kernel rows, LIBSVM and
liblinear, on a9a (C=0.05, Platt's linear Adult setting) and on random Fourier
features of a9a.

All run in this one process, one thread each (OMP_NUM_THREADS=1 is set for
libsvm-official's OpenMP loop), alternating order run by run; medians of --repeats runs.
What each solves:

- libsmo primal (`linear_solver="primal"`, the default for kernel="linear"): LIBSVM's
  dual with the weights w kept explicitly, tol 1e-3;
- libsmo kernel rows (`linear_solver="kernel"`): the same dual with cached kernel rows;
- libsvm-official: the same dual (-t 0 -e 0.001 -m 100); its "obj =" line is read from
  C's standard output;
- liblinear-official -s 3 -B 1 (L1-loss SVM, dual coordinate descent, the bias as a
  feature of value 1, liblinear's default tolerance 0.1): not the same problem (the
  bias is regularised and there is no equality constraint), so its objective is not
  comparable; its time and test accuracy are shown as the reference for a linear SVM.

The primal solver's and LIBSVM's dual objectives must agree (1e-4 relative), as must
both libsmo solvers' test accuracies. liblinear-official is optional (`pip install
".[bench]"` installs it with the other peers); without it that column is left out.

    python benchmarks/bench_linear.py                 # a9a and RFF(a9a), 3 runs each
    python benchmarks/bench_linear.py --rows 4000 --repeats 1 --components 200
"""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse
import gc
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import libsmo  # noqa: E402
from bench_train import DEFAULT_DATA_DIR, blas_threads, captured_fd1, load  # noqa: E402


def timed(fn):
    """(result, wall seconds) of fn()."""
    gc.collect()
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def run_libsmo(X, y, Xt, yt, C, solver):
    model, seconds = timed(lambda: libsmo.train(X, y, kernel="linear", C=C, tol=1e-3,
                                                cache_size=100, linear_solver=solver))
    return {"train": seconds, "objective": model.objective[0], "n_sv": model.n_sv,
            "n_iter": model.n_iter[0], "accuracy": float(np.mean(model.predict(Xt) == yt))}


def run_libsvm(X, y, Xt, yt, C):
    from libsvm.svmutil import svm_parameter, svm_predict, svm_problem, svm_train
    prob = svm_problem(y, X)
    param = svm_parameter(f"-t 0 -c {C!r} -e 0.001 -m 100 -h 1")
    with captured_fd1() as output:
        model, seconds = timed(lambda: svm_train(prob, param))
    objective = float(re.search(r"obj = (\S+),", output[0]).group(1))
    labels, _, _ = svm_predict(yt, Xt, model, "-q")
    return {"train": seconds, "objective": objective, "n_sv": int(model.l),
            "accuracy": float(np.mean(np.asarray(labels) == yt))}


def run_liblinear(X, y, Xt, yt, C):
    from liblinear.liblinearutil import predict, train
    model, seconds = timed(lambda: train(y, X, f"-s 3 -c {C!r} -B 1 -q"))
    labels, _, _ = predict(yt, Xt, model, "-q")
    return {"train": seconds, "accuracy": float(np.mean(np.asarray(labels) == yt))}


def have_liblinear():
    try:
        import liblinear.liblinearutil  # noqa: F401
    except ImportError:
        return False
    return True


def bench(name, X, y, Xt, yt, C, repeats, with_liblinear):
    runners = {"libsmo primal": lambda: run_libsmo(X, y, Xt, yt, C, "primal"),
               "libsmo kernel rows": lambda: run_libsmo(X, y, Xt, yt, C, "kernel"),
               "LIBSVM": lambda: run_libsvm(X, y, Xt, yt, C)}
    if with_liblinear:
        runners["liblinear -s 3"] = lambda: run_liblinear(X, y, Xt, yt, C)
    runs = {k: [] for k in runners}
    order = list(runners)
    for r in range(repeats):
        for k in (order if r % 2 == 0 else order[::-1]):
            runs[k].append(runners[k]())
    print(f"\n{name}: {X.shape[0]} x {X.shape[1]} ({'sparse' if sp.issparse(X) else 'dense'}),"
          f" C={C}, median of {repeats}")
    print(f"{'solver':20s} {'train s':>9s} {'ratio':>7s} {'objective':>16s} {'nSV':>7s} "
          f"{'test acc':>9s}")
    reference = statistics.median(r["train"] for r in runs["LIBSVM"])
    rows = {}
    for k, rs in runs.items():
        t = statistics.median(r["train"] for r in rs)
        last = rs[-1]
        obj = f"{last['objective']:.6f}" if "objective" in last else "(other problem)"
        print(f"{k:20s} {t:9.3f} {t / reference:7.3f} {obj:>16s} "
              f"{last.get('n_sv', ''):>7} {100 * last['accuracy']:8.2f}%")
        rows[k] = dict(last, train=t)
    primal, peer = rows["libsmo primal"]["objective"], rows["LIBSVM"]["objective"]
    agree = abs(primal - peer) <= 1e-4 * abs(peer)
    print(f"primal vs LIBSVM objective: relative difference "
          f"{abs(primal - peer) / abs(peer):.1e} ({'agree' if agree else 'DISAGREE'})")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=DEFAULT_DATA_DIR, type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=None,
                        help="train on the first ROWS rows (and test on as many)")
    parser.add_argument("--components", type=int, default=1000,
                        help="random Fourier features for the second case")
    args = parser.parse_args(argv)
    X, y = load(args.data_dir, "a9a", 123)
    Xt, yt = load(args.data_dir, "a9a.t", 123)
    if args.rows:
        X, y, Xt, yt = X[:args.rows], y[:args.rows], Xt[:args.rows], yt[:args.rows]
    with_liblinear = have_liblinear()
    if not with_liblinear:
        print("liblinear-official is not installed: its column is left out")
    with blas_threads(1):
        bench("a9a, linear", X, y, Xt, yt, 0.05, args.repeats, with_liblinear)
        rff = libsmo.RandomFourierFeatures(n_components=args.components, gamma=0.05,
                                           random_state=0).fit(X)
        Z, Zt = rff.transform(X), rff.transform(Xt)
        bench(f"RFF({args.components}) of a9a, gamma=0.05", Z, y, Zt, yt, 1.0,
              args.repeats, with_liblinear)


if __name__ == "__main__":
    main()
