"""Small fits and predictions against scikit-learn's: iris, breast cancer, digits, wine.

    python benchmarks/bench_small_fits.py                  # SVC, fresh and warm
    python benchmarks/bench_small_fits.py --fresh 15 --warm 9 --fits 50
    python benchmarks/bench_small_fits.py --estimator SVC LinearSVC --predict 7
    python benchmarks/bench_small_fits.py --profile iris   # cProfile of libsmo's fits

On data this small a fit is mostly the Python around the solver: parameter and data
checks, building the problem and the model, scikit-learn's fitted attributes. Two
measures, the libraries alternating within each repeat so that other work on a shared
machine falls on both:

- fresh: a new process per library and repeat; each imports its estimator and loads
  the data, then times its first fit (what a script that trains once sees, with what
  libsmo imports at its first fit);
- warm: one process; each repeat times --fits fits of each library in turn (the
  per-fit time of a cross-validation or a grid search).

With --predict N, N more repeats time the fitted estimators' predict, --calls calls
each, on one row (a served request, where the checks around the prediction are most
of its time) and on every row; the table says how many of the predictions agree.

Each is timed by the wall clock and by the process's CPU time (user + system, all
threads), which other processes' load does not inflate: on a machine whose cores are
shared, wall times wait for the scheduler.

Both fit --estimator (SVC, the default, or LinearSVC) with scikit-learn's defaults
(SVC: RBF, gamma="scale", C=1, tol=1e-3; LinearSVC: the squared hinge, dual="auto",
which on these data, more rows than features, is the primal Newton method, tol=1e-4;
a ConvergenceWarning, from either library, is left unshown) on the data as
scikit-learn ships it (sklearn.datasets, no download). Each library's estimator is
fitted once a data set for the answers and the predictions. The table gives medians in
milliseconds and libsmo's over scikit-learn's (below 1: libsmo is faster), and what
shows that both did the same work: the support vector counts and the largest difference
of the dual coefficients (SVC), the iterations and the primal objectives (LinearSVC:
libsmo's Newton method is LIBLINEAR 2.50's, scikit-learn's an older trust-region one,
which stop at other points of the same tolerance).
"""
import argparse
import cProfile
import io
import json
import pstats
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

DATASETS = ("iris", "breast_cancer", "digits", "wine")
LIBRARIES = ("sklearn", "libsmo")
ESTIMATORS = ("SVC", "LinearSVC")


def load(name):
    """(X, y) of a data set bundled with scikit-learn."""
    from sklearn import datasets
    return getattr(datasets, f"load_{name}")(return_X_y=True)


def estimator_class(library, estimator="SVC"):
    """The class `estimator` (SVC or LinearSVC) of `library`, imported."""
    if library == "libsmo":
        import libsmo
        return getattr(libsmo, estimator)
    import sklearn.svm
    return getattr(sklearn.svm, estimator)


def quiet_fit(cls, X, y):
    """cls().fit(X, y) without its warnings (a ConvergenceWarning is the fit's outcome,
    which the table's columns of work and answers show)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls().fit(X, y)


def timed(fit):
    """(wall seconds, CPU seconds of the process) of one call of fit()."""
    wall, cpu = time.perf_counter(), time.process_time()
    fit()
    return time.perf_counter() - wall, time.process_time() - cpu


def first_fit(library, dataset, estimator):
    """(wall, CPU) seconds of the first fit in this process (the child's work)."""
    cls = estimator_class(library, estimator)
    X, y = load(dataset)
    return timed(lambda: quiet_fit(cls, X, y))


def fresh_times(datasets, repeats, estimator):
    """{dataset: {library: [(wall, CPU) seconds of each fresh process's first fit]}}."""
    times = {d: {lib: [] for lib in LIBRARIES} for d in datasets}
    for _ in range(repeats):
        for dataset in datasets:
            for library in LIBRARIES:
                out = subprocess.run(
                    [sys.executable, __file__, "--child", library, dataset, estimator],
                    capture_output=True, text=True, check=True).stdout
                wall, cpu = map(float, out.split()[-2:])
                times[dataset][library].append((wall, cpu))
                print(f"fresh {dataset} {library}: {wall * 1e3:.2f} ms, CPU "
                      f"{cpu * 1e3:.2f} ms", file=sys.stderr, flush=True)
    return times


def warm_times(datasets, repeats, fits, estimator):
    """{dataset: {library: [(wall, CPU) seconds per fit, medians of one repeat]}}."""
    times = {d: {lib: [] for lib in LIBRARIES} for d in datasets}
    for dataset in datasets:
        X, y = load(dataset)
        classes = {lib: estimator_class(lib, estimator) for lib in LIBRARIES}
        for cls in classes.values():
            quiet_fit(cls, X, y)                 # imports and first-call costs
        for _ in range(repeats):
            for library, cls in classes.items():
                laps = [timed(lambda: quiet_fit(cls, X, y)) for _ in range(fits)]
                times[dataset][library].append(
                    tuple(statistics.median(lap[k] for lap in laps) for k in (0, 1)))
    return times


def fit_both(X, y, estimator):
    """{library: its `estimator` fitted on X, y}."""
    return {lib: quiet_fit(estimator_class(lib, estimator), X, y) for lib in LIBRARIES}


def predict_times(data, fitted, repeats, calls):
    """{dataset: {"one row" | "all rows": {library: [(wall, CPU) seconds per call,
    one repeat's each]}}} of the fitted estimators' predict (`fitted`: each data set's
    `fit_both`), and {dataset: how many of the rows' predictions agree}."""
    times, agree = {}, {}
    for dataset, (X, y) in data.items():
        agree[dataset] = int(np.sum(fitted[dataset]["libsmo"].predict(X)
                                    == fitted[dataset]["sklearn"].predict(X)))
        times[dataset] = {}
        for what, rows in (("one row", X[:1]), ("all rows", X)):
            times[dataset][what] = {lib: [] for lib in LIBRARIES}
            for _ in range(repeats):
                for library, est in fitted[dataset].items():
                    wall, cpu = timed(lambda: [est.predict(rows) for _ in range(calls)])
                    times[dataset][what][library].append((wall / calls, cpu / calls))
    return times, agree


def same_work(X, y, fitted, estimator):
    """(what sklearn did, what libsmo did, how their answers differ) of `fitted`
    (`fit_both` on X, y): SVC's support vector counts and the largest difference of
    the dual coefficients, LinearSVC's iterations and primal objectives (libsmo's over
    scikit-learn's, minus 1)."""
    theirs, ours = fitted["sklearn"], fitted["libsmo"]
    if estimator == "SVC":
        a, b = ours.dual_coef_, theirs.dual_coef_
        diff = float(np.abs(a - b).max()) if a.shape == b.shape else float("nan")
        return int(theirs.n_support_.sum()), int(ours.n_support_.sum()), diff
    # LIBLINEAR 2.50's Newton method (libsmo's) and scikit-learn's older trust-region
    # Newton method stop at different points of a flat optimum: their objectives
    from benchmarks.bench_linear_svm import primal_objective
    theirs_objective, ours_objective = (
        primal_objective(X, y, est.classes_, est.coef_, np.asarray(est.intercept_),
                         1.0, 1) for est in (theirs, ours))
    return (int(np.max(theirs.n_iter_)), int(np.max(ours.n_iter_)),
            ours_objective / theirs_objective - 1)


def medians(times, k):
    """(sklearn's, libsmo's) median of clock k (0 wall, 1 CPU) over `times`'
    repeats."""
    return tuple(statistics.median(t[k] for t in times[lib]) for lib in LIBRARIES)


def shape_of(X, y):
    """"n x d, classes" of a data set."""
    return f"{X.shape[0]} x {X.shape[1]}, {len(np.unique(y))}"


def table(fresh, warm, work, data, estimator):
    """Medians in ms, wall and CPU, and libsmo's over scikit-learn's; `work`: each data
    set's `same_work`, `data` its (X, y)."""
    head = (["data", "n x d, classes", "SVs sklearn / libsmo", "max dual_coef_ diff"]
            if estimator == "SVC" else
            ["data", "n x d, classes", "iterations sklearn / libsmo",
             "objective libsmo / sklearn - 1"])
    for measure in ("fresh", "warm"):
        for clock in ("wall", "CPU"):
            head += [f"{measure} {clock} sklearn ms", f"{measure} {clock} libsmo ms",
                     f"{measure} {clock} ratio"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for dataset, (work_theirs, work_ours, diff) in work.items():
        row = [dataset, shape_of(*data[dataset]), f"{work_theirs} / {work_ours}",
               f"{diff:.1e}"]
        for times in (fresh, warm):
            for k in (0, 1):
                if times is None:
                    row += ["", "", ""]
                    continue
                theirs, ours = (t * 1e3 for t in medians(times[dataset], k))
                row += [f"{theirs:.3f}", f"{ours:.3f}", f"{ours / theirs:.2f}"]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def predict_table(times, agree, data):
    """Per-call medians in microseconds, CPU time, and libsmo's over scikit-learn's;
    `data`: each data set's (X, y)."""
    head = ["data", "predictions agreeing"]
    for what in ("one row", "all rows"):
        head += [f"{what} sklearn us", f"{what} libsmo us", f"{what} ratio"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for dataset, (X, _) in data.items():
        row = [dataset, f"{agree[dataset]} of {X.shape[0]}"]
        for what in ("one row", "all rows"):
            theirs, ours = (t * 1e6 for t in medians(times[dataset][what], 1))
            row += [f"{theirs:.1f}", f"{ours:.1f}", f"{ours / theirs:.2f}"]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def summary_rows(estimator, work, data, fresh, warm, predict, agree):
    """One row a data set (`data`: each one's (X, y)) for the committed results: the
    same work (`work`, each data set's `same_work`), and libsmo's CPU time over
    scikit-learn's (medians) for each measure run (None where it did not run)."""
    def cpu_ratio(times):
        theirs, ours = medians(times, 1)
        return round(ours / theirs, 3)

    rows = []
    for dataset, (work_theirs, work_ours, answers) in work.items():
        X, y = data[dataset]
        rows.append({
            "estimator": estimator, "data": dataset, "rows": int(X.shape[0]),
            "features": int(X.shape[1]), "classes": int(len(np.unique(y))),
            "work_sklearn": work_theirs, "work_libsmo": work_ours,
            "answer_difference": answers,
            "fresh_fit_ratio": cpu_ratio(fresh[dataset]) if fresh else None,
            "warm_fit_ratio": cpu_ratio(warm[dataset]) if warm else None,
            "predict_one_row_ratio": (cpu_ratio(predict[dataset]["one row"])
                                      if predict else None),
            "predict_all_rows_ratio": (cpu_ratio(predict[dataset]["all rows"])
                                       if predict else None),
            "predictions_agreeing": agree[dataset] if predict else None})
    return rows


def profile(dataset, fits, estimator):
    """cProfile (CPU time) of `fits` libsmo fits, after one: the functions by their
    cumulative time."""
    cls = estimator_class("libsmo", estimator)
    X, y = load(dataset)
    quiet_fit(cls, X, y)
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    for _ in range(fits):
        quiet_fit(cls, X, y)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(40)
    return out.getvalue()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--fresh", type=int, default=9,
                        help="fresh processes per library and data set (0: none)")
    parser.add_argument("--warm", type=int, default=7, help="warm repeats (0: none)")
    parser.add_argument("--fits", type=int, default=30, help="fits per warm repeat")
    parser.add_argument("--estimator", choices=ESTIMATORS, nargs="+", default=["SVC"],
                        help="one or both, measured in turn")
    parser.add_argument("--predict", type=int, default=0,
                        help="repeats of the prediction measure (0: none)")
    parser.add_argument("--calls", type=int, default=200,
                        help="predict calls per prediction repeat")
    parser.add_argument("--json", help="also write the times to this file")
    parser.add_argument("--profile", metavar="DATASET")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(*first_fit(*args.child))
        return 0
    if args.profile:
        print(profile(args.profile, args.fits, args.estimator[0]))
        return 0
    datasets = [d for d in args.datasets.split(",") if d]
    unknown = set(datasets) - set(DATASETS)
    if unknown:
        parser.error(f"unknown data sets {sorted(unknown)}; choose among {DATASETS}")
    data = {dataset: load(dataset) for dataset in datasets}
    rows, times = [], {}
    for estimator in args.estimator:
        fresh = fresh_times(datasets, args.fresh, estimator) if args.fresh else None
        warm = (warm_times(datasets, args.warm, args.fits, estimator) if args.warm
                else None)
        fitted = {dataset: fit_both(X, y, estimator)
                  for dataset, (X, y) in data.items()}
        work = {dataset: same_work(X, y, fitted[dataset], estimator)
                for dataset, (X, y) in data.items()}
        print(f"{estimator}:")
        print(table(fresh, warm, work, data, estimator))
        predict, agree = (predict_times(data, fitted, args.predict, args.calls)
                          if args.predict else (None, None))
        if predict:
            print()
            print(predict_table(predict, agree, data))
        print()
        rows += summary_rows(estimator, work, data, fresh, warm, predict, agree)
        times[estimator] = {"fresh": fresh, "warm": warm, "predict": predict}
    if args.json:
        command = "python benchmarks/bench_small_fits.py " + " ".join(
            argv if argv is not None else sys.argv[1:])
        with open(args.json, "w") as f:
            json.dump({"commands": [command], "rows": rows, "times": times}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
