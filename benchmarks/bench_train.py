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
on a shared machine, which can slow a run several-fold), both dual objectives (computed
the same way from each side's dual coefficients, `benchmarks.objective`) and rho (to
show that both solved the same problem to the same tolerance), support vectors, SMO
iterations and test accuracy; then a markdown table of all cases. Every run of each side
is held against libsmo's first (`benchmarks.agreement`): a ratio one of whose runs did
other work is FLAGGED and the script exits with status 1. The results also go to
benchmarks/results/bench_train.json (git-ignored).

What is timed: LIBSVM's svm_train on a ready svm_problem (the conversion from scipy is
left out, as svm-train's file reading would be), libsmo.train on the CSR matrix (its
input checks included); for prediction, svm_predict(yt, Xt, model, "-q") (which converts
each test row in Python) and model.predict(Xt).

Each side is prepared and fitted by its `benchmarks.peers` module, as in run.py.

Cases:
  a9a  RBF, C=1, gamma=0.05 (Platt's Adult setting), tested on a9a.t
  w8a  RBF, C=5, gamma=0.05 (Platt's Web setting), predicted on w8a.t, which is a
       subsample of w8a and not a true test set (see ../shared/data/README.md)

The data are $LIBSMO_DATA_DIR/<name>.xz (default ../shared/data), decompressed once into
$LIBSMO_DATA_CACHE (default: $TMPDIR/libsmo-data-cache, as the tests do), never into the
data folder, and read by scikit-learn's reader (`benchmarks.data.load_svmlight`).

    python benchmarks/bench_train.py                          # both cases, 3 runs each
    python benchmarks/bench_train.py --rows 3000 --repeats 1  # a quick smoke run
"""
import os

# libsvm-official is built with OpenMP: one thread, as libsmo's default, so that the
# comparison is thread for thread (this must be set before libsvm is loaded)
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import agreement, data, objective, options  # noqa: E402
from benchmarks.cases import Case  # noqa: E402
from benchmarks.measure import blas_threads  # noqa: E402
from benchmarks.peers import dist_version, peer  # noqa: E402

DEFAULT_OUTPUT = data.REPO / "benchmarks" / "results" / "bench_train.json"

CASES = {
    "a9a": {"case": Case("a9a", "a9a", "a9a.t", 123, "c_svc", "rbf", C=1.0, gamma=0.05),
            "setting": "Platt's Adult setting", "test_label": "a9a.t"},
    "w8a": {"case": Case("w8a", "w8a", "w8a.t", 300, "c_svc", "rbf", C=5.0, gamma=0.05),
            "setting": "Platt's Web setting",
            "test_label": "w8a.t (subsample of w8a, not a true test set)"},
}


def timed_run(library, case, X, y, Xt, yt, threads):
    """Train and predict with one side (its `benchmarks.peers` module).

    Returns
    -------
    dict
        train, train_cpu and predict seconds, objective (from the coefficients), rho,
        n_sv, n_iter, accuracy (a fraction).
    """
    fit = peer(library).prepare(case, X, y, threads)
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    answer = fit()
    train_seconds = time.perf_counter() - start
    train_cpu = time.process_time() - cpu
    gc.collect()
    start = time.perf_counter()
    labels = answer.predict(Xt)
    predict_seconds = time.perf_counter() - start
    return {"library": library, "train": train_seconds, "train_cpu": train_cpu,
            "predict": predict_seconds,
            "objective": objective.case_objective(answer, X, y, case),
            "rho": float(answer.rho[0]), "n_sv": answer.n_sv, "n_iter": answer.n_iter,
            "accuracy": float(np.mean(np.asarray(labels) == yt))}


def check(runs, reference):
    """The agreement of every run with the reference run (`agreement.check_run`)."""
    return [agreement.check_run(dict(run, accuracy=100 * run["accuracy"]),
                                dict(reference, accuracy=100 * reference["accuracy"]),
                                regression=False, repeat=r)
            for r, run in enumerate(runs)]


def run_case(name, spec, args):
    case = spec["case"]
    X, y = data.load_svmlight(case.train, case.n_features, args.data_dir)
    Xt, yt = data.load_svmlight(case.test, case.n_features, args.data_dir)
    if args.rows:
        X, y = X[:args.rows], y[:args.rows]
    print(f"\n== {name}: RBF, C={case.C:g}, gamma={case.gamma:g} "
          f"({spec['setting']}), {X.shape[0]} training rows, {X.shape[1]} features; "
          f"test: {spec['test_label']}, {Xt.shape[0]} rows ==", flush=True)
    ours, theirs = [], []
    for r in range(args.repeats):
        order = ("libsvm", "libsmo") if r % 2 == 0 else ("libsmo", "libsvm")
        for side in order:
            threads = args.threads if side == "libsmo" else None
            (ours if side == "libsmo" else theirs).append(
                timed_run(side, case, X, y, Xt, yt, threads))
        print(f"  run {r + 1}/{args.repeats}: train libsmo {ours[-1]['train']:.2f} s, "
              f"LIBSVM {theirs[-1]['train']:.2f} s (ratio "
              f"{ours[-1]['train'] / theirs[-1]['train']:.2f}); predict libsmo "
              f"{ours[-1]['predict']:.2f} s, LIBSVM {theirs[-1]['predict']:.2f} s",
              flush=True)

    def median(runs, key):
        return statistics.median(run[key] for run in runs)

    def median_ratio(key):
        return statistics.median(a[key] / b[key] for a, b in zip(ours, theirs))

    checks = check(ours, ours[0]) + check(theirs, ours[0])
    problems = [f"{c.library} run {c.repeat + 1}: {'; '.join(c.problems)}"
                for c in checks if not c.agrees]
    mine, peer_run = ours[0], theirs[0]
    return {
        "case": name, "rows": X.shape[0], "n_features": X.shape[1], "C": case.C,
        "gamma": case.gamma, "tol": 1e-3, "cache_size_mb": 100,
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
        "libsmo_objective": mine["objective"], "libsvm_objective": peer_run["objective"],
        "objective_rel_diff": max(c.objective_rel_diff for c in checks),
        "libsmo_rho": mine["rho"], "libsvm_rho": peer_run["rho"],
        "libsmo_nsv": sorted({r["n_sv"] for r in ours}),
        "libsvm_nsv": sorted({r["n_sv"] for r in theirs}),
        "libsmo_iter": mine["n_iter"], "libsvm_iter": peer_run["n_iter"],
        "libsmo_accuracy": sorted({r["accuracy"] for r in ours}),
        "libsvm_accuracy": sorted({r["accuracy"] for r in theirs}),
        "problems": problems, "runs": {"libsmo": ours, "libsvm": theirs},
    }


# ---------------------------------------------------------------------------- report

def _each(values, spec):
    return " / ".join(format(v, spec) for v in values)


def _flag(r, value):
    return f"{value:.2f}" + (" (FLAGGED)" if r["problems"] else "")


def print_case(r):
    rows = [
        ("train time, median (s)", f"{r['libsmo_train_s']:.3f}",
         f"{r['libsvm_train_s']:.3f}",
         f"ratio {_flag(r, r['train_ratio'])} (median of per-run ratios, lower is "
         "better)"),
        ("train CPU time, median (s)", f"{r['libsmo_train_cpu_s']:.3f}",
         f"{r['libsvm_train_cpu_s']:.3f}", f"ratio {_flag(r, r['train_cpu_ratio'])}"),
        ("predict time, median (s)", f"{r['libsmo_predict_s']:.3f}",
         f"{r['libsvm_predict_s']:.3f}", f"ratio {_flag(r, r['predict_ratio'])}"),
        ("dual objective", f"{r['libsmo_objective']:.6f}", f"{r['libsvm_objective']:.6f}",
         f"largest relative difference of any run {r['objective_rel_diff']:.1e}"),
        ("rho", f"{r['libsmo_rho']:.6f}", f"{r['libsvm_rho']:.6f}", ""),
        ("support vectors (each run)", _each(r["libsmo_nsv"], "d"),
         _each(r["libsvm_nsv"], "d"), ""),
        ("iterations", str(r["libsmo_iter"]), str(r["libsvm_iter"]), ""),
        ("test accuracy (each run)", _each(r["libsmo_accuracy"], ".4%"),
         _each(r["libsvm_accuracy"], ".4%"), r["test_set"]),
    ]
    print(f"  {'':26s} {'libsmo':>16s} {'LIBSVM':>16s}")
    for label, ours, theirs, note in rows:
        print(f"  {label:26s} {ours:>16s} {theirs:>16s}   {note}".rstrip())
    for problem in r["problems"]:
        print(f"  FLAGGED: {problem}")


def print_markdown(results):
    print("\n| case | rows | libsmo train s | LIBSVM train s | train ratio | CPU ratio | "
          "libsmo predict s | LIBSVM predict s | predict ratio | objective libsmo | "
          "objective LIBSVM | largest rel. diff | nSV libsmo / LIBSVM | "
          "iterations libsmo / LIBSVM | test accuracy libsmo / LIBSVM |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        print(f"| {r['case']}, RBF C={r['C']:g} g={r['gamma']:g} | {r['rows']:,} | "
              f"{r['libsmo_train_s']:.2f} | {r['libsvm_train_s']:.2f} | "
              f"{_flag(r, r['train_ratio'])} | {_flag(r, r['train_cpu_ratio'])} | "
              f"{r['libsmo_predict_s']:.2f} | "
              f"{r['libsvm_predict_s']:.2f} | {_flag(r, r['predict_ratio'])} | "
              f"{r['libsmo_objective']:.6f} | {r['libsvm_objective']:.6f} | "
              f"{r['objective_rel_diff']:.1e} | {_each(r['libsmo_nsv'], 'd')} / "
              f"{_each(r['libsvm_nsv'], 'd')} | "
              f"{r['libsmo_iter']} / {r['libsvm_iter']} | "
              f"{_each(r['libsmo_accuracy'], '.2%')} / {_each(r['libsvm_accuracy'], '.2%')} "
              f"on {r['test_set']} |")


def environment(args):
    version = dist_version
    return {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "libsmo": version("libsmo"), "libsvm-official": version("libsvm-official"),
            "numpy": np.__version__, "python": platform.python_version(),
            "machine": platform.machine(), "cpu_count": os.cpu_count(),
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            "rows_limit": args.rows}


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    options.data_dir_option(parser)
    parser.add_argument("--cases", type=options.name_list(list(CASES)), default=list(CASES),
                        help=f"comma-separated, from: {', '.join(CASES)}")
    parser.add_argument("--repeats", type=options.positive_int, default=3,
                        help="runs of each side; medians are reported")
    parser.add_argument("--rows", type=options.positive_int, default=None,
                        help="train on the first ROWS rows only (a quick run)")
    parser.add_argument("--threads", type=options.positive_int, default=1,
                        help="libsmo's n_threads and the BLAS threads (LIBSVM: one)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT,
                        help="where the JSON results go")
    args = parser.parse_args(argv)
    env = environment(args)
    print(f"libsmo {env['libsmo']} vs libsvm-official {env['libsvm-official']}; "
          f"{args.repeats} run(s) per side; libsmo threads {args.threads}, LIBSVM "
          f"OpenMP threads {env['OMP_NUM_THREADS']}; "
          f"{env['cpu_count']} CPUs, load average "
          f"{[round(x, 2) for x in env['load_average'] or []]}")
    results = []
    with blas_threads(args.threads):
        for name in args.cases:
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
    flagged = [p for r in results for p in r["problems"]]
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
