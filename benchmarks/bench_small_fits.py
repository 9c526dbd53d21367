"""Small fits against scikit-learn's SVC: iris, breast cancer, digits and wine.

    python benchmarks/bench_small_fits.py                  # fresh processes and warm
    python benchmarks/bench_small_fits.py --fresh 15 --warm 9 --fits 50
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

Each is timed by the wall clock and by the process's CPU time (user + system, all
threads), which other processes' load does not inflate: on a machine whose cores are
shared, wall times wait for the scheduler.

Both fit SVC() with scikit-learn's defaults (RBF, gamma="scale", C=1, tol=1e-3) on the
data as scikit-learn ships it (sklearn.datasets, no download). The table gives medians
in milliseconds and libsmo's over scikit-learn's (below 1: libsmo is faster), and the
support vector counts and the largest difference of the dual coefficients, which show
that both did the same work.
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

import numpy as np

DATASETS = ("iris", "breast_cancer", "digits", "wine")
LIBRARIES = ("sklearn", "libsmo")


def load(name):
    """(X, y) of a data set bundled with scikit-learn."""
    from sklearn import datasets
    return getattr(datasets, f"load_{name}")(return_X_y=True)


def estimator_class(library):
    """The SVC class of `library`, imported."""
    if library == "libsmo":
        import libsmo
        return libsmo.SVC
    from sklearn.svm import SVC
    return SVC


def timed(fit):
    """(wall seconds, CPU seconds of the process) of one call of fit()."""
    wall, cpu = time.perf_counter(), time.process_time()
    fit()
    return time.perf_counter() - wall, time.process_time() - cpu


def first_fit(library, dataset):
    """(wall, CPU) seconds of the first fit in this process (the child's work)."""
    cls = estimator_class(library)
    X, y = load(dataset)
    return timed(lambda: cls().fit(X, y))


def fresh_times(datasets, repeats):
    """{dataset: {library: [(wall, CPU) seconds of each fresh process's first fit]}}."""
    times = {d: {lib: [] for lib in LIBRARIES} for d in datasets}
    for _ in range(repeats):
        for dataset in datasets:
            for library in LIBRARIES:
                out = subprocess.run(
                    [sys.executable, __file__, "--child", library, dataset],
                    capture_output=True, text=True, check=True).stdout
                wall, cpu = map(float, out.split()[-2:])
                times[dataset][library].append((wall, cpu))
                print(f"fresh {dataset} {library}: {wall * 1e3:.2f} ms, CPU "
                      f"{cpu * 1e3:.2f} ms", file=sys.stderr, flush=True)
    return times


def warm_times(datasets, repeats, fits):
    """{dataset: {library: [(wall, CPU) seconds per fit, medians of one repeat]}}."""
    times = {d: {lib: [] for lib in LIBRARIES} for d in datasets}
    for dataset in datasets:
        X, y = load(dataset)
        classes = {lib: estimator_class(lib) for lib in LIBRARIES}
        for cls in classes.values():
            cls().fit(X, y)                      # imports and first-call costs
        for _ in range(repeats):
            for library, cls in classes.items():
                laps = [timed(lambda: cls().fit(X, y)) for _ in range(fits)]
                times[dataset][library].append(
                    tuple(statistics.median(lap[k] for lap in laps) for k in (0, 1)))
    return times


def same_work(dataset):
    """(support vectors of scikit-learn, of libsmo, max |dual_coef_ difference|)."""
    X, y = load(dataset)
    theirs, ours = (estimator_class(lib)().fit(X, y) for lib in LIBRARIES)
    diff = (float(np.abs(ours.dual_coef_ - theirs.dual_coef_).max())
            if ours.dual_coef_.shape == theirs.dual_coef_.shape else float("nan"))
    return int(theirs.n_support_.sum()), int(ours.n_support_.sum()), diff


def table(fresh, warm, datasets):
    """Medians in ms, wall and CPU, and libsmo's over scikit-learn's."""
    head = ["data", "n x d, classes", "SVs sklearn / libsmo", "max dual_coef_ diff"]
    for measure in ("fresh", "warm"):
        for clock in ("wall", "CPU"):
            head += [f"{measure} {clock} sklearn ms", f"{measure} {clock} libsmo ms",
                     f"{measure} {clock} ratio"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for dataset in datasets:
        X, y = load(dataset)
        sv_theirs, sv_ours, diff = same_work(dataset)
        row = [dataset, f"{X.shape[0]} x {X.shape[1]}, {len(np.unique(y))}",
               f"{sv_theirs} / {sv_ours}", f"{diff:.1e}"]
        for times in (fresh, warm):
            for k in (0, 1):
                if times is None:
                    row += ["", "", ""]
                    continue
                theirs = statistics.median(t[k] for t in times[dataset]["sklearn"]) * 1e3
                ours = statistics.median(t[k] for t in times[dataset]["libsmo"]) * 1e3
                row += [f"{theirs:.3f}", f"{ours:.3f}", f"{ours / theirs:.2f}"]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def profile(dataset, fits):
    """cProfile (CPU time) of `fits` libsmo fits, after one: the functions by their
    cumulative time."""
    cls = estimator_class("libsmo")
    X, y = load(dataset)
    cls().fit(X, y)
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    for _ in range(fits):
        cls().fit(X, y)
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
    parser.add_argument("--json", help="also write the times to this file")
    parser.add_argument("--profile", metavar="DATASET")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(*first_fit(*args.child))
        return 0
    if args.profile:
        print(profile(args.profile, args.fits))
        return 0
    datasets = [d for d in args.datasets.split(",") if d]
    unknown = set(datasets) - set(DATASETS)
    if unknown:
        parser.error(f"unknown data sets {sorted(unknown)}; choose among {DATASETS}")
    fresh = fresh_times(datasets, args.fresh) if args.fresh else None
    warm = warm_times(datasets, args.warm, args.fits) if args.warm else None
    print(table(fresh, warm, datasets))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"fresh": fresh, "warm": warm}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
