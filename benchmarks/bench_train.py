"""libsmo against LIBSVM (libsvm-official) on Platt's large benchmark settings.

Both train in this one process, on the same data and parameters (tol 1e-3, 100 MB
cache, shrinking on, one thread: libsvm-official is single-threaded), alternating
run by run so that machine noise hits both alike. For each case it prints the median
training and prediction times, the median of the per-run ratios libsmo/LIBSVM (below 1
means libsmo is faster), both dual objectives (to show the work was the same), the
support vectors and the test accuracy.

Cases: a9a (RBF, C=1, gamma=0.05: the Adult setting of Platt's paper), tested on a9a.t;
w8a (RBF, C=5, gamma=0.05: the Web setting), predicted on w8a.t, which is a subsample of
w8a and not a true test set (see ../shared/data/README.md).

    python benchmarks/bench_train.py                  # both cases, 3 runs each
    python benchmarks/bench_train.py --rows 3000 --repeats 1    # a quick smoke run
"""
import argparse
import json
import lzma
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import libsmo

REPO = Path(__file__).resolve().parents[1]
CASES = {
    "a9a": {"train": "a9a", "test": "a9a.t", "n_features": 123, "C": 1.0, "gamma": 0.05},
    "w8a": {"train": "w8a", "test": "w8a.t", "n_features": 300, "C": 5.0, "gamma": 0.05},
}


def load(data_dir, name, n_features):
    """Decompress <data_dir>/<name>.xz into a cache folder and read it."""
    from sklearn.datasets import load_svmlight_file
    cache = Path(tempfile.gettempdir()) / "libsmo-data-cache"
    cache.mkdir(exist_ok=True)
    target = cache / name
    if not target.exists():
        with lzma.open(data_dir / f"{name}.xz") as src, open(target, "wb") as out:
            shutil.copyfileobj(src, out)
    X, y = load_svmlight_file(str(target), n_features=n_features)
    return X.tocsr(), y


def libsvm_run(X, y, Xt, yt, C, gamma):
    """Train and predict with libsvm-official; returns times, objective, nSV, accuracy."""
    from libsvm.svm import PRINT_STRING_FUN
    from libsvm.svmutil import svm_parameter, svm_predict, svm_problem, svm_train
    lines = []
    hook = PRINT_STRING_FUN(lambda text: lines.append(text.decode()))
    prob = svm_problem(y, X)
    param = svm_parameter(f"-s 0 -t 2 -c {C} -g {gamma} -e 0.001 -m 100 -h 1")
    param.print_func = hook
    start = time.perf_counter()
    model = svm_train(prob, param)
    train_seconds = time.perf_counter() - start
    objective = float(re.search(r"obj = (\S+),", "".join(lines)).group(1))
    start = time.perf_counter()
    labels, _, _ = svm_predict(yt, Xt, model, "-q")
    predict_seconds = time.perf_counter() - start
    return {"train": train_seconds, "predict": predict_seconds, "objective": objective,
            "n_sv": model.l, "accuracy": float(np.mean(np.array(labels) == yt))}


def libsmo_run(X, y, Xt, yt, C, gamma, threads):
    start = time.perf_counter()
    model = libsmo.train(X, y, C=C, gamma=gamma, tol=1e-3, cache_size=100,
                         n_threads=threads)
    train_seconds = time.perf_counter() - start
    start = time.perf_counter()
    labels = model.predict(Xt)
    predict_seconds = time.perf_counter() - start
    return {"train": train_seconds, "predict": predict_seconds,
            "objective": model.objective[0], "n_sv": model.n_sv,
            "accuracy": float(np.mean(labels == yt))}


def run_case(name, spec, args):
    X, y = load(args.data_dir, spec["train"], spec["n_features"])
    Xt, yt = load(args.data_dir, spec["test"], spec["n_features"])
    if args.rows:
        X, y = X[:args.rows], y[:args.rows]
    ours, theirs = [], []
    for _ in range(args.repeats):
        theirs.append(libsvm_run(X, y, Xt, yt, spec["C"], spec["gamma"]))
        ours.append(libsmo_run(X, y, Xt, yt, spec["C"], spec["gamma"], args.threads))
    med = lambda runs, key: statistics.median(r[key] for r in runs)  # noqa: E731
    ratio = lambda key: statistics.median(a[key] / b[key]  # noqa: E731
                                          for a, b in zip(ours, theirs))
    return {
        "case": name, "rows": X.shape[0], "C": spec["C"], "gamma": spec["gamma"],
        "repeats": args.repeats, "threads": args.threads,
        "libsmo_train_s": med(ours, "train"), "libsvm_train_s": med(theirs, "train"),
        "train_ratio": ratio("train"),
        "libsmo_predict_s": med(ours, "predict"), "libsvm_predict_s": med(theirs, "predict"),
        "predict_ratio": ratio("predict"),
        "libsmo_objective": ours[-1]["objective"], "libsvm_objective": theirs[-1]["objective"],
        "objective_rel_diff": abs(ours[-1]["objective"] - theirs[-1]["objective"])
        / abs(theirs[-1]["objective"]),
        "libsmo_nsv": ours[-1]["n_sv"], "libsvm_nsv": theirs[-1]["n_sv"],
        "libsmo_accuracy": ours[-1]["accuracy"], "libsvm_accuracy": theirs[-1]["accuracy"],
        "test_set": spec["test"],
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--cases", default="a9a,w8a")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=None,
                        help="train on the first ROWS rows only (a quick run)")
    parser.add_argument("--threads", type=int, default=1,
                        help="libsmo's OpenMP threads (LIBSVM uses one)")
    parser.add_argument("--output", type=Path,
                        default=REPO / "benchmarks" / "results" / "bench_train.json")
    args = parser.parse_args(argv)
    results = []
    for name in args.cases.split(","):
        if name not in CASES:
            parser.error(f"unknown case {name!r}; known: {', '.join(CASES)}")
        result = run_case(name, CASES[name], args)
        results.append(result)
        print(f"{name}: libsmo {result['libsmo_train_s']:.2f} s, LIBSVM "
              f"{result['libsvm_train_s']:.2f} s, ratio {result['train_ratio']:.2f}",
              flush=True)
    print("\n| case | rows | libsmo train s | LIBSVM train s | ratio | predict ratio | "
          "objective libsmo | objective LIBSVM | rel diff | nSV libsmo/LIBSVM | "
          "test acc libsmo/LIBSVM |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['case']} | {r['rows']} | {r['libsmo_train_s']:.2f} | "
              f"{r['libsvm_train_s']:.2f} | {r['train_ratio']:.2f} | "
              f"{r['predict_ratio']:.2f} | {r['libsmo_objective']:.6f} | "
              f"{r['libsvm_objective']:.6f} | {r['objective_rel_diff']:.1e} | "
              f"{r['libsmo_nsv']}/{r['libsvm_nsv']} | "
              f"{r['libsmo_accuracy']:.4f}/{r['libsvm_accuracy']:.4f} ({r['test_set']}) |")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2))
    print(f"\nwritten: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
