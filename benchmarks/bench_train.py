"""libsmo against LIBSVM (libsvm-official) on Platt's large benchmark settings.

Both train in this one process, on the same data and the same parameters: C-SVC, RBF
kernel, tol 1e-3 (LIBSVM's -e 0.001), 100 MB kernel cache (-m 100), shrinking on (-h 1).
libsvm-official is built with OpenMP; it is held to one thread (OMP_NUM_THREADS=1, set
here unless the environment already sets it), and libsmo gets one too unless --threads
says otherwise; numpy's BLAS, which libsmo's prediction uses, is held to --threads.
The two alternate run by run (LIBSVM first in odd runs, libsmo first in even ones) so
that machine noise hits both alike.

For each case it prints the median training and prediction times of each side, the
median of the per-run ratios libsmo/LIBSVM (below 1 means libsmo is faster), the same
for the training's CPU time (process_time: less sensitive than wall time to other work
on a shared machine, which can slow a run several-fold), both dual objectives and rho
(to show that both solved the same problem to the same tolerance), support vectors,
SMO iterations and test accuracy; then a markdown table of all cases.
The results also go to benchmarks/results/bench_train.json (git-ignored).

What is timed: LIBSVM's svm_train on a ready svm_problem (the conversion from scipy is
left out, as svm-train's file reading would be), libsmo.train on the CSR matrix (its
input checks included); for prediction, svm_predict(yt, Xt, model, "-q") (which converts
each test row in Python) and model.predict(Xt).

LIBSVM reports its dual objective only by printing "obj = ..., rho = ..." from C to
standard output, so file descriptor 1 is sent to a temporary file while svm_train runs
and the line is parsed from there. It prints the objective with six decimals, which
bounds the relative difference that can be seen (about 1e-10 for a9a).

Cases:
  a9a  RBF, C=1, gamma=0.05 (Platt's Adult setting), tested on a9a.t
  w8a  RBF, C=5, gamma=0.05 (Platt's Web setting), predicted on w8a.t, which is a
       subsample of w8a and not a true test set (see ../shared/data/README.md)

The data are ../shared/data/<name>.xz, decompressed once into $LIBSMO_DATA_CACHE
(default: $TMPDIR/libsmo-data-cache, as the tests do), never into the data folder.

    python benchmarks/bench_train.py                          # both cases, 3 runs each
    python benchmarks/bench_train.py --rows 3000 --repeats 1  # a quick smoke run
"""
import os

# libsvm-official is built with OpenMP: one thread, as libsmo's default, so that the
# comparison is thread for thread (this must be set before libsvm is loaded)
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse
import contextlib
import ctypes
import datetime
import gc
import json
import lzma
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

import numpy as np

import libsmo

REPO = Path(__file__).resolve().parents[1]
# LIBSMO_DATA_DIR, as in the tests; else the shared folder beside the repository
DEFAULT_DATA_DIR = Path(os.environ.get("LIBSMO_DATA_DIR", REPO.parent / "shared" / "data"))
CACHE_DIR = Path(os.environ.get("LIBSMO_DATA_CACHE",
                                Path(tempfile.gettempdir()) / "libsmo-data-cache"))
DEFAULT_OUTPUT = REPO / "benchmarks" / "results" / "bench_train.json"

CASES = {
    "a9a": {"train": "a9a", "test": "a9a.t", "n_features": 123, "C": 1.0, "gamma": 0.05,
            "setting": "Platt's Adult setting", "test_label": "a9a.t"},
    "w8a": {"train": "w8a", "test": "w8a.t", "n_features": 300, "C": 5.0, "gamma": 0.05,
            "setting": "Platt's Web setting",
            "test_label": "w8a.t (subsample of w8a, not a true test set)"},
}

_LIBC = ctypes.CDLL(None)


# ---------------------------------------------------------------------------- data

def decompress(data_dir, name):
    """Path of <data_dir>/<name>.xz decompressed into CACHE_DIR (refreshed when the
    source is newer; written to a temporary name, then renamed into place)."""
    source = Path(data_dir) / f"{name}.xz"
    if not source.exists():
        sys.exit(f"bench_train: data set {name!r} not found at {source} (use --data-dir)")
    if CACHE_DIR.resolve() == source.parent.resolve():
        sys.exit(f"bench_train: the cache folder {CACHE_DIR} is the data folder; "
                 "set LIBSMO_DATA_CACHE elsewhere")
    target = CACHE_DIR / name
    if not target.exists() or target.stat().st_mtime < source.stat().st_mtime:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=CACHE_DIR, prefix=f".{name}.")
        try:
            with os.fdopen(fd, "wb") as out, lzma.open(source) as src:
                shutil.copyfileobj(src, out)
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
    return target


def load(data_dir, name, n_features):
    """(X as CSR float64, y) of the LIBSVM-format data set <data_dir>/<name>.xz."""
    from sklearn.datasets import load_svmlight_file
    X, y = load_svmlight_file(str(decompress(data_dir, name)), n_features=n_features)
    return X.tocsr(), np.asarray(y, dtype=np.float64)


# ---------------------------------------------------------------------------- runs

@contextlib.contextmanager
def captured_fd1():
    """Send file descriptor 1 (C's stdout) to a temporary file for the block.

    Yields a list; once the block ends, it holds the captured text as its one item.
    """
    captured = []
    with tempfile.TemporaryFile() as tmp:
        sys.stdout.flush()
        _LIBC.fflush(None)
        saved = os.dup(1)
        os.dup2(tmp.fileno(), 1)
        try:
            yield captured
        finally:
            sys.stdout.flush()
            _LIBC.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
            tmp.seek(0)
            captured.append(tmp.read().decode("utf-8", errors="replace"))


def libsvm_run(X, y, Xt, yt, C, gamma):
    """Train and predict with libsvm-official.

    Returns a dict: train and predict seconds, objective, rho, n_sv, n_iter, accuracy.
    """
    from libsvm.svmutil import svm_parameter, svm_predict, svm_problem, svm_train
    prob = svm_problem(y, X)
    param = svm_parameter(f"-c {float(C)!r} -g {float(gamma)!r} -e 0.001 -m 100 -h 1")
    gc.collect()
    with captured_fd1() as output:
        start, cpu = time.perf_counter(), time.process_time()
        model = svm_train(prob, param)
        train_seconds = time.perf_counter() - start
        train_cpu = time.process_time() - cpu
    text = output[0]
    summary = re.search(r"obj = (\S+), rho = (\S+)", text)
    steps = re.search(r"#iter = (\d+)", text)
    if summary is None or steps is None:
        raise RuntimeError(f"no 'obj = ..., rho = ...' line in LIBSVM's output:\n{text}")
    gc.collect()
    start = time.perf_counter()
    labels, _, _ = svm_predict(yt, Xt, model, "-q")
    predict_seconds = time.perf_counter() - start
    return {"train": train_seconds, "train_cpu": train_cpu, "predict": predict_seconds,
            "objective": float(summary.group(1)), "rho": float(summary.group(2)),
            "n_sv": int(model.l), "n_iter": int(steps.group(1)),
            "accuracy": float(np.mean(np.asarray(labels) == yt))}


def libsmo_run(X, y, Xt, yt, C, gamma, threads=1):
    """Train and predict with libsmo; the same dict as `libsvm_run`, plus status."""
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    model = libsmo.train(X, y, kernel="rbf", C=C, gamma=gamma, tol=1e-3, cache_size=100,
                         n_threads=threads)
    train_seconds = time.perf_counter() - start
    train_cpu = time.process_time() - cpu
    gc.collect()
    start = time.perf_counter()
    labels = model.predict(Xt)
    predict_seconds = time.perf_counter() - start
    return {"train": train_seconds, "train_cpu": train_cpu, "predict": predict_seconds,
            "objective": float(model.objective[0]), "rho": float(model.rho[0]),
            "n_sv": model.n_sv, "n_iter": int(model.n_iter[0]),
            "status": model.status[0], "accuracy": float(np.mean(labels == yt))}


def blas_threads(n):
    """Hold numpy's and scipy's BLAS to n threads (threadpoolctl, a scikit-learn
    dependency); a no-op context when threadpoolctl is missing."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=n, user_api="blas")


def run_case(name, spec, args):
    X, y = load(args.data_dir, spec["train"], spec["n_features"])
    Xt, yt = load(args.data_dir, spec["test"], spec["n_features"])
    if args.rows:
        X, y = X[:args.rows], y[:args.rows]
    print(f"\n== {name}: RBF, C={spec['C']:g}, gamma={spec['gamma']:g} "
          f"({spec['setting']}), {X.shape[0]} training rows, {X.shape[1]} features; "
          f"test: {spec['test_label']}, {Xt.shape[0]} rows ==", flush=True)
    ours, theirs = [], []
    for r in range(args.repeats):
        order = ("libsvm", "libsmo") if r % 2 == 0 else ("libsmo", "libsvm")
        for side in order:
            if side == "libsvm":
                theirs.append(libsvm_run(X, y, Xt, yt, spec["C"], spec["gamma"]))
            else:
                ours.append(libsmo_run(X, y, Xt, yt, spec["C"], spec["gamma"],
                                       args.threads))
        print(f"  run {r + 1}/{args.repeats}: train libsmo {ours[-1]['train']:.2f} s, "
              f"LIBSVM {theirs[-1]['train']:.2f} s (ratio "
              f"{ours[-1]['train'] / theirs[-1]['train']:.2f}); predict libsmo "
              f"{ours[-1]['predict']:.2f} s, LIBSVM {theirs[-1]['predict']:.2f} s",
              flush=True)

    def median(runs, key):
        return statistics.median(run[key] for run in runs)

    def median_ratio(key):
        return statistics.median(a[key] / b[key] for a, b in zip(ours, theirs))

    mine, theirs_last = ours[-1], theirs[-1]  # deterministic: every run is the same
    return {
        "case": name, "rows": X.shape[0], "n_features": X.shape[1], "C": spec["C"],
        "gamma": spec["gamma"], "tol": 1e-3, "cache_size_mb": 100,
        "repeats": args.repeats, "threads": args.threads,
        "test_set": spec["test_label"], "test_rows": Xt.shape[0],
        "libsmo_train_s": median(ours, "train"), "libsvm_train_s": median(theirs, "train"),
        "train_ratio": median_ratio("train"),
        "libsmo_train_cpu_s": median(ours, "train_cpu"),
        "libsvm_train_cpu_s": median(theirs, "train_cpu"),
        "train_cpu_ratio": median_ratio("train_cpu"),
        "libsmo_predict_s": median(ours, "predict"),
        "libsvm_predict_s": median(theirs, "predict"),
        "predict_ratio": median_ratio("predict"),
        "libsmo_objective": mine["objective"], "libsvm_objective": theirs_last["objective"],
        "objective_rel_diff": abs(mine["objective"] - theirs_last["objective"])
        / abs(theirs_last["objective"]),
        "libsmo_rho": mine["rho"], "libsvm_rho": theirs_last["rho"],
        "libsmo_nsv": mine["n_sv"], "libsvm_nsv": theirs_last["n_sv"],
        "libsmo_iter": mine["n_iter"], "libsvm_iter": theirs_last["n_iter"],
        "libsmo_status": mine["status"],
        "libsmo_accuracy": mine["accuracy"], "libsvm_accuracy": theirs_last["accuracy"],
        "runs": {"libsmo": ours, "libsvm": theirs},
    }


# ---------------------------------------------------------------------------- report

def print_case(r):
    rows = [
        ("train time, median (s)", f"{r['libsmo_train_s']:.3f}",
         f"{r['libsvm_train_s']:.3f}",
         f"ratio {r['train_ratio']:.2f} (median of per-run ratios, lower is better)"),
        ("train CPU time, median (s)", f"{r['libsmo_train_cpu_s']:.3f}",
         f"{r['libsvm_train_cpu_s']:.3f}", f"ratio {r['train_cpu_ratio']:.2f}"),
        ("predict time, median (s)", f"{r['libsmo_predict_s']:.3f}",
         f"{r['libsvm_predict_s']:.3f}", f"ratio {r['predict_ratio']:.2f}"),
        ("dual objective", f"{r['libsmo_objective']:.6f}", f"{r['libsvm_objective']:.6f}",
         f"relative difference {r['objective_rel_diff']:.1e}"),
        ("rho", f"{r['libsmo_rho']:.6f}", f"{r['libsvm_rho']:.6f}", ""),
        ("support vectors", str(r["libsmo_nsv"]), str(r["libsvm_nsv"]), ""),
        ("iterations", str(r["libsmo_iter"]), str(r["libsvm_iter"]),
         f"libsmo status: {r['libsmo_status']}"),
        ("test accuracy", f"{r['libsmo_accuracy']:.4%}", f"{r['libsvm_accuracy']:.4%}",
         r["test_set"]),
    ]
    print(f"  {'':26s} {'libsmo':>16s} {'LIBSVM':>16s}")
    for label, ours, theirs, note in rows:
        print(f"  {label:26s} {ours:>16s} {theirs:>16s}   {note}".rstrip())


def print_markdown(results):
    print("\n| case | rows | libsmo train s | LIBSVM train s | train ratio | CPU ratio | "
          "libsmo predict s | LIBSVM predict s | predict ratio | objective libsmo | "
          "objective LIBSVM | rel. diff | nSV libsmo / LIBSVM | "
          "iterations libsmo / LIBSVM | test accuracy libsmo / LIBSVM |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        print(f"| {r['case']}, RBF C={r['C']:g} g={r['gamma']:g} | {r['rows']:,} | "
              f"{r['libsmo_train_s']:.2f} | {r['libsvm_train_s']:.2f} | "
              f"{r['train_ratio']:.2f} | {r['train_cpu_ratio']:.2f} | "
              f"{r['libsmo_predict_s']:.2f} | "
              f"{r['libsvm_predict_s']:.2f} | {r['predict_ratio']:.2f} | "
              f"{r['libsmo_objective']:.6f} | {r['libsvm_objective']:.6f} | "
              f"{r['objective_rel_diff']:.1e} | {r['libsmo_nsv']} / {r['libsvm_nsv']} | "
              f"{r['libsmo_iter']} / {r['libsvm_iter']} | "
              f"{r['libsmo_accuracy']:.2%} / {r['libsvm_accuracy']:.2%} "
              f"on {r['test_set']} |")


def dist_version(dist):
    """The installed version of a distribution, or None."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def environment(args):
    version = dist_version
    return {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "libsmo": version("libsmo"), "libsvm-official": version("libsvm-official"),
            "numpy": np.__version__, "python": platform.python_version(),
            "machine": platform.machine(), "cpu_count": os.cpu_count(),
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            "rows_limit": args.rows}


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR,
                        help="folder of the <name>.xz data files")
    parser.add_argument("--cases", default="a9a,w8a",
                        help=f"comma-separated, from: {', '.join(CASES)}")
    parser.add_argument("--repeats", type=positive_int, default=3,
                        help="runs of each side; medians are reported")
    parser.add_argument("--rows", type=positive_int, default=None,
                        help="train on the first ROWS rows only (a quick run)")
    parser.add_argument("--threads", type=positive_int, default=1,
                        help="libsmo's n_threads and the BLAS threads (LIBSVM: one)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT,
                        help="where the JSON results go")
    args = parser.parse_args(argv)
    cases = [name.strip() for name in args.cases.split(",") if name.strip()]
    for name in cases:
        if name not in CASES:
            parser.error(f"unknown case {name!r}; known: {', '.join(CASES)}")
    env = environment(args)
    print(f"libsmo {env['libsmo']} vs libsvm-official {env['libsvm-official']}; "
          f"{args.repeats} run(s) per side; libsmo threads {args.threads}, LIBSVM "
          f"OpenMP threads {env['OMP_NUM_THREADS']}; "
          f"{env['cpu_count']} CPUs, load average "
          f"{[round(x, 2) for x in env['load_average'] or []]}")
    results = []
    with blas_threads(args.threads):
        for name in cases:
            result = run_case(name, CASES[name], args)
            result["environment"] = env
            print_case(result)
            results.append(result)
    print_markdown(results)
    if hasattr(os, "getloadavg"):
        print(f"\nload average at the end: {[round(x, 2) for x in os.getloadavg()]}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nwritten: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
