"""The memory a linear SVM's training takes: libsmo's LinearSVC against LIBLINEAR 2.50
(liblinear-official's Python binding) and scikit-learn's LinearSVC, on a9a, w8a, the
reviews' TF-IDF and sector, the hinge (LIBLINEAR's -s 3) and the squared hinge (-s 1),
-B 1 -e 0.001, one thread: issue 48's target "memory within LIBLINEAR's + 20%".

Every fit runs in a fresh process of its own, which

1. loads the data set as the CSR arrays (float64 values, int32 indices) and labels that
   this script saved beforehand as .npy files in $LIBSMO_DATA_CACHE (np.load reads each
   array into its final place: loading makes no large temporaries; not memory-mapped,
   so the fit's reads of the data add no resident pages);
2. fits the same library once on the first rows (imports, lazily loaded modules and
   first-use set-ups are not counted), collects garbage, returns the C library's free
   heap memory to the system (glibc's malloc_trim: free memory the fit could reuse
   without a new page would hide part of its peak) and resets the process's peak
   resident set size (VmHWM, by writing "5" to /proc/self/clear_refs);
3. records the resident set size (VmRSS) before the fit, fits, and reads the peak
   (VmHWM) and resident set size after it.

The fit's *extra peak* is peak after minus resident before: everything the training
has resident at its highest point beyond the loaded CSR matrix and labels -- the data
as the library needs it, the solver's working memory (the dual variables, the
permutation, the weights, copies made by input checks) and the model. For LIBLINEAR that
includes its Python `problem` (an array of 16-byte feature_nodes, two more a row for
the bias and the terminator, built from the same CSR matrix): converting the rows is
part of training with it, as checking them is part of libsmo's and scikit-learn's fit.
*Retained* is resident after minus resident before (the model, and LIBLINEAR's problem
while the caller holds it). Pages freed by the C library but kept by its allocator
stay counted, as a user's process sees them.

The fits: libsmo.LinearSVC and sklearn.svm.LinearSVC(loss, dual=True, C, tol=eps,
max_iter=300, random_state=0) on the CSR matrix; LIBLINEAR: `problem(y, X)` then
`train(prob, "-s S -c C -e eps -B 1")`. After the measurement each child computes the
primal objective 1/2 (|w|^2 + b^2) + C sum loss from its w and b (as
bench_linear_svm.py does, summed over the one-vs-rest problems) and the test
accuracy, so the table shows the memories are those of equal work. Each repeat is
another point of the dual's random orders: the estimators' random_state is the
repeat's number, and LIBLINEAR, whose generator has no seed to set (liblinear-official
draws from the process's rand(), liblinear-multicore from a generator of its own),
makes that many more warm-up fits before the measured one. The table gives each
library's median objective. The script exits with status 1 (FLAG in the table) when
libsmo's median objective exceeds the highest of LIBLINEAR's by more than
--objective-tol (1e-4, one-sided, as bench_linear_svm.py accepts: a lower one is a
better solution of the same problem) where neither run stopped at its 300 epochs
("capped") and LIBLINEAR's own runs agree within it (where they do not, the dual's
stopping rule leaves the objective to the random order, and the case is shown as not
checked, with reference_spread in the JSON), or when its test accuracy differs from
LIBLINEAR's by more than --accuracy-tol (0.5 points) where neither was capped, or when
a fit failed; a scikit-learn fit that differs so is marked "(not LIBLINEAR's answer)" (as
bench_linear_svm.py, which checks libsmo's: scikit-learn's copy of LIBLINEAR is older,
its primal -s 11 a trust-region method that stops elsewhere). Missing the memory
target is printed ("> +20%"), not an error.

The regression sets (--data housing bodyfat reviews-rating) run LinearSVR against
LIBLINEAR's -s 13, 12 and 11 (-p --epsilon, default 0.1; the estimators' epsilon and
dual=False for -s 11), as bench_linear_svm.py does; their objective is checked as the
classifiers', their test mean squared error shown but not checked.

--liblinear-train adds Debian's `liblinear-train` command (LIBLINEAR 2.3.0, a second
view): its whole process's peak RSS (GNU time's %M, wait4's ru_maxrss) reading the
LIBSVM-format file and training, which includes its reader and the C program, not only the fit; its
objective is computed from the model file it writes but not checked (another version).

liblinear-official and liblinear-multicore install the same package, `liblinear`;
without liblinear-official importable, give its folder (`pip install --target DIR
liblinear-official`) as --liblinear-official; liblinear-multicore run at one thread
stands in otherwise (said in the output).

    python benchmarks/bench_linear_memory.py --liblinear-official DIR
    python benchmarks/bench_linear_memory.py --data a9a --C 1 --solvers 3 --json FILE
    python benchmarks/bench_linear_memory.py --data reviews-rating --C 0.1 1
"""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
import argparse
import gc
import hashlib
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import bench_linear_svm as linear  # noqa: E402
from benchmarks import data as bench_data  # noqa: E402

DATASETS = ("a9a", "w8a", "reviews", "sector")
LIBRARIES = ("LIBLINEAR", "libsmo", "scikit-learn")
# LIBLINEAR's -s: 3 and 1 for the classification sets, 13, 12 and 11 for the regressions
SOLVERS = (3, 1, 13, 12, 11)
WARM_UP_ROWS = 300
KB = 1024.0


# --------------------------------------------------------------------------- the data

def cache_folder(name, data_dir):
    """The folder of `name`'s saved arrays: keyed by the data folder (the tests' tiny
    copies and the full sets share names) and the data set."""
    tag = hashlib.sha1(str(Path(data_dir).resolve()).encode()).hexdigest()[:8]
    return bench_data.CACHE_DIR / "linear-memory" / tag / name


ARRAYS = ("X_data", "X_indices", "X_indptr", "X_shape", "y",
          "Xt_data", "Xt_indices", "Xt_indptr", "Xt_shape", "yt")


def prepare(name, data_dir):
    """Save `name`'s training and test sets (bench_linear_svm.dataset: CSR, int32
    indices) as .npy files, once; the folder."""
    folder = cache_folder(name, data_dir)
    if all((folder / f"{a}.npy").exists() for a in ARRAYS):
        return folder
    import numpy as np
    X, y, Xt, yt = linear.dataset(name, data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    arrays = {"X_data": X.data, "X_indices": X.indices, "X_indptr": X.indptr,
              "X_shape": np.array(X.shape), "y": y,
              "Xt_data": Xt.data, "Xt_indices": Xt.indices, "Xt_indptr": Xt.indptr,
              "Xt_shape": np.array(Xt.shape), "yt": yt}
    for key, value in arrays.items():
        # written under a temporary name, renamed into place
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".npy")
        with os.fdopen(fd, "wb") as out:
            np.save(out, np.ascontiguousarray(value))
        os.replace(tmp, folder / f"{key}.npy")
    return folder


def svmlight_file(name, folder, data_dir):
    """A LIBSVM-format file of `name`'s training rows for liblinear-train: the
    decompressed original where there is one, else written from the saved arrays."""
    sets = linear.DATASETS.get(name)
    if sets is not None:
        return bench_data.decompress(sets[0], data_dir)
    path = folder / "train.svm"
    if not path.exists():
        from sklearn.datasets import dump_svmlight_file
        X, y, _, _ = load(folder)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".svm")
        os.close(fd)
        dump_svmlight_file(X, y, tmp, zero_based=False)
        os.replace(tmp, path)
    return path


def load(folder):
    """(X, y, Xt, yt) from the saved arrays: CSR matrices over the loaded arrays."""
    import numpy as np
    import scipy.sparse as sp
    a = {key: np.load(folder / f"{key}.npy") for key in ARRAYS}

    def csr(prefix):
        return sp.csr_matrix((a[f"{prefix}_data"], a[f"{prefix}_indices"],
                              a[f"{prefix}_indptr"]), shape=tuple(a[f"{prefix}_shape"]),
                             copy=False)
    return csr("X"), a["y"], csr("Xt"), a["yt"]


# --------------------------------------------------------------------- one fit (child)

def memory_kb():
    """(VmRSS, VmHWM) of this process in kB."""
    status = Path("/proc/self/status").read_text()
    return tuple(int(re.search(rf"{key}:\s+(\d+)", status).group(1))
                 for key in ("VmRSS", "VmHWM"))


def release_free_memory():
    """Return the C library's free heap memory to the system (glibc's malloc_trim), so
    that the resident size before the fit is what the process holds, not free memory
    that the fit would reuse without a new page."""
    import ctypes
    import ctypes.util
    try:
        ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim(0)
    except (OSError, AttributeError):   # not glibc: nothing to release
        pass


def reset_peak():
    """Reset VmHWM to the current VmRSS (Linux 4.0's clear_refs "5"); whether it could."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def make_fit(library, solver, C, eps, util, epsilon=0.1, seed=0):
    """(fit, weights): fit(X, y) fits `library` on LIBLINEAR's problem `solver` at C
    (a regression's insensitive zone `epsilon`; the estimators' random_state `seed`),
    weights(fitted, classes) gives its (W, b, capped), classes None for a
    regression."""
    import numpy as np
    regression = solver in linear.REGRESSION_SOLVERS
    if library == "LIBLINEAR":
        import importlib
        callback_type = importlib.import_module(
            util.__name__.rsplit(".", 1)[0] + ".liblinear").PRINT_STRING_FUN
        options = (f"-s {solver} -c {C!r} -e {eps!r} -B 1"
                   + (f" -p {epsilon!r}" if regression else ""))

        def fit(X, y):
            printed = []
            param = util.parameter(options)
            param.print_func = callback_type(lambda text: printed.append(text.decode()))
            prob = util.problem(y, X)
            model = util.train(prob, param)
            return model, prob, printed

        def weights(fitted, classes):
            model, _, printed = fitted
            W, B = linear.liblinear_weights(model, classes)
            return W, B, linear.capped_by_epochs("".join(printed), solver)
        return fit, weights
    if library == "libsmo":
        from libsmo import LinearSVC, LinearSVR
    else:
        from sklearn.svm import LinearSVC, LinearSVR
    make, extra = (LinearSVR, {"epsilon": epsilon}) if regression else (LinearSVC, {})

    def fit(X, y):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = make(loss=linear.LOSSES[solver], dual=solver not in linear.PRIMAL_SOLVERS,
                       C=C, tol=eps, max_iter=300, random_state=seed, **extra).fit(X, y)
        return est, any("converge" in str(w.message) for w in caught)

    def weights(fitted, classes):
        est, capped = fitted
        return (np.atleast_2d(np.asarray(est.coef_)), np.atleast_1d(est.intercept_),
                capped)
    return fit, weights


def predictions(W, b, classes, Xt):
    """Test predictions from the weights (the same rule for every library: the score
    for a regression, its sign for two classes, the largest score for several)."""
    import numpy as np
    scores = Xt @ W.T + b
    if classes is None:
        return scores[:, 0]
    if len(classes) == 2:
        return np.where(scores[:, 0] > 0, classes[1], classes[0])
    return classes[np.argmax(scores, axis=1)]


def fit_once(spec):
    """One measured fit in this process; the result dict."""
    import numpy as np
    util = None
    if spec["library"] == "LIBLINEAR":
        if spec["liblinear_official"]:
            util = linear.load_liblinear(spec["liblinear_official"], "liblinear_official")
        else:
            import liblinear.liblinearutil as util
    X, y, Xt, yt = load(Path(spec["folder"]))
    regression = spec["solver"] in linear.REGRESSION_SOLVERS
    classes = None if regression else np.unique(y)
    fit, weights = make_fit(spec["library"], spec["solver"], spec["C"], spec["eps"], util,
                            spec["epsilon"], spec["repeat"])
    # the first rows, with at least two classes: imports and first-use set-ups; for
    # LIBLINEAR one more fit a repeat, each moving its generator to another order
    rows = min(WARM_UP_ROWS, X.shape[0])
    while not regression and len(np.unique(y[:rows])) < 2 and rows < X.shape[0]:
        rows = min(2 * rows, X.shape[0])
    for _ in range(1 + (spec["repeat"] if spec["library"] == "LIBLINEAR" else 0)):
        warm = fit(X[:rows], y[:rows])
        del warm
    gc.collect()
    release_free_memory()
    reset = reset_peak()
    before, peak_before = memory_kb()
    start = time.process_time()
    fitted = fit(X, y)
    cpu = time.process_time() - start
    after, peak = memory_kb()
    W, b, capped = weights(fitted, classes)
    objective = linear.primal_objective(X, y, classes, W, b, spec["C"], spec["solver"],
                                        spec["epsilon"])
    # the test accuracy (a fraction), or a regression's test mean squared error
    score = linear.prediction_score(predictions(W, b, classes, Xt), yt, regression)
    return {"extra_peak_mb": (peak - before) / KB, "retained_mb": (after - before) / KB,
            "before_mb": before / KB, "peak_reset": reset,
            "peak_hidden": (not reset) and peak == peak_before,
            "data_mb": (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**20,
            "cpu_s": cpu, "objective": float(objective), "score": score, "regression": regression,
            "capped": bool(capped)}


def run_child(spec, timeout):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    try:
        proc = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)],
                              env=env, capture_output=True, text=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        return {"status": "timeout"}
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        sys.stderr.write(proc.stderr[-3000:])
        return {"status": "failed"}
    return dict(json.loads(lines[-1]), status="ok")


def liblinear_train(path, solver, C, eps, timeout):
    """Debian's liblinear-train on a LIBSVM-format file in a process of its own: its
    peak RSS and the weights of the model file it writes. The peak is GNU time's %M
    (wait4's ru_maxrss) of a process that `time` starts: Linux carries a process's
    peak across exec, so a child forked from this Python process would report at least
    this process's size."""
    import numpy as np
    with tempfile.TemporaryDirectory() as tmp:
        model, peak = Path(tmp) / "model", Path(tmp) / "peak"
        try:
            proc = subprocess.run(
                ["/usr/bin/time", "-f", "%M", "-o", str(peak), "liblinear-train", "-s",
                 str(solver), "-c", repr(C), "-e", repr(eps), "-B", "1", "-q", str(path),
                 str(model)], capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return {"status": "timeout"}
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr[-2000:])
            return {"status": "failed"}
        peak_kb = int(peak.read_text().split()[-1])
        lines = model.read_text().splitlines()
    header = dict(line.split(" ", 1) for line in lines[:lines.index("w")])
    labels = [float(v) for v in header["label"].split()]
    columns = np.array([[float(v) for v in line.split()] for line in
                        lines[lines.index("w") + 1:]])
    return {"status": "ok", "peak_mb": peak_kb / KB, "labels": labels, "columns": columns}


# ------------------------------------------------------------------------- the table

def model_file_objective(result, folder, solver, C):
    """The primal objective of liblinear-train's model (its columns: one per class,
    one for two classes with labels[0] positive; the last row the bias's weight)."""
    import numpy as np
    X, y, _, _ = load(folder)
    classes = np.unique(y)
    columns, labels = result["columns"], result["labels"]
    n = X.shape[1]
    if len(classes) == 2:
        sign = 1.0 if labels[0] == classes[1] else -1.0
        W, b = sign * columns[:n, :1].T, sign * columns[n, :1]
    else:
        order = [labels.index(c) for c in classes]
        W, b = columns[:n, order].T, columns[n, order]
    return float(linear.primal_objective(X, y, classes, W, b, C, solver))


def check(results, args):
    """({library: its median figures}, flags): each library's fits summarised, with
    its extra peak over LIBLINEAR's and its median objective's relative difference from
    LIBLINEAR's median; flagged are the libraries whose fits failed or whose peak could
    not be told, and libsmo where its median objective exceeds the highest of
    LIBLINEAR's runs by more than the tolerance or its accuracy is not LIBLINEAR's
    (neither run capped, and LIBLINEAR's runs within the tolerance of each other:
    otherwise "unchecked"); another peer's is marked "differs"."""
    summaries, flags = {}, []
    for library, runs in results.items():
        ok = [r for r in runs if r["status"] == "ok"]
        if len(ok) < len(runs) or not ok:
            flags.append(library)
        if not ok:
            continue
        s = {key: statistics.median(r[key] for r in ok)
             for key in ("extra_peak_mb", "retained_mb", "cpu_s")}
        s.update({key: ok[-1][key] for key in ("score", "regression", "capped",
                                               "data_mb", "peak_reset")})
        s.update(linear.objective_summary([r["objective"] for r in ok]))
        if any(r["peak_hidden"] for r in ok):
            flags.append(library)
        summaries[library] = s
    ref = summaries.get("LIBLINEAR")
    if ref is not None:
        for library, s in summaries.items():
            s["memory_ratio"] = s["extra_peak_mb"] / ref["extra_peak_mb"]
            s["objective_rel_diff"] = (s["objective"] - ref["objective"]) / abs(
                ref["objective"])
            if library == "LIBLINEAR" or s["capped"] or ref["capped"]:
                continue
            if ref["spread"] > args.objective_tol:
                s["unchecked"] = True
                continue
            # a regression's test MSE is shown, not checked (as bench_linear_svm.py)
            s["differs"] = (linear.above_reference(s, ref) > args.objective_tol
                            or (not s["regression"] and abs(s["score"] - ref["score"])
                                * 100 > args.accuracy_tol))
            # scikit-learn's is shown: its copy of LIBLINEAR is older (its primal
            # method, TRON, stops elsewhere than 2.50's Newton method for -s 11)
            if s["differs"] and library == "libsmo":
                flags.append(library)
    return summaries, flags


def main(argv=None):
    """Run the benchmark; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", default=bench_data.DATA_DIR, type=Path)
    parser.add_argument("--data", nargs="+", default=list(DATASETS),
                        choices=list(linear.DATASETS),
                        help="the classification sets run --solvers 3 and 1, the "
                             "regression sets (housing, bodyfat, reviews-rating) 13, "
                             "12 and 11")
    parser.add_argument("--C", nargs="+", type=float, default=[0.1, 1.0])
    parser.add_argument("--solvers", nargs="+", type=int, default=list(SOLVERS),
                        choices=list(SOLVERS))
    parser.add_argument("--libraries", nargs="+", default=list(LIBRARIES),
                        choices=list(LIBRARIES))
    parser.add_argument("--eps", type=float, default=0.001)
    parser.add_argument("--epsilon", type=float, default=0.1,
                        help="the regressions' insensitive zone: LIBLINEAR's -p, the "
                             "estimators' epsilon")
    parser.add_argument("--repeats", type=int, default=1,
                        help="fresh processes per library and case (medians)")
    parser.add_argument("--objective-tol", type=float, default=1e-4)
    parser.add_argument("--accuracy-tol", type=float, default=0.5,
                        help="test accuracy difference from LIBLINEAR's, in points")
    parser.add_argument("--target", type=float, default=1.2,
                        help="libsmo's extra peak over LIBLINEAR's that meets the target")
    parser.add_argument("--liblinear-official", type=Path, default=None)
    parser.add_argument("--liblinear-train", action="store_true",
                        help="Debian's liblinear-train command's whole-process peak too")
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--json", type=Path, default=None,
                        help="write the rows of benchmarks/results-committed/"
                             "linear_memory.json to this file")
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(fit_once(json.loads(args.child))), flush=True)
        return 0
    official = None
    if "LIBLINEAR" in args.libraries:
        peers = linear.find_peers(argparse.Namespace(
            liblinear_official=args.liblinear_official, liblinear_multicore=None))
        if peers["official"] is None:
            sys.exit("bench_linear_memory: no LIBLINEAR (install liblinear-official or "
                     "give --liblinear-official DIR)")
        if linear.is_multicore(peers["official"]):
            print("liblinear-official: not found: LIBLINEAR is liblinear-multicore at "
                  "one thread")
        official = str(args.liblinear_official) if args.liblinear_official else None
        print(f"LIBLINEAR: {peers['official'].__file__}")
    rows, bad = [], []
    header = (f"{'data':10s} {'-s':>2s} {'C':>5s} {'library':14s} {'extra peak MB':>13s} "
              f"{'/ LL':>6s} {'retained MB':>11s} {'CPU s':>7s} {'objective':>14s} "
              f"{'rel. diff':>9s} {'acc % / MSE':>11s}")
    for name in args.data:
        folder = prepare(name, args.data_dir)
        regression = name in linear.REGRESSION_SETS
        # liblinear-train's regression models name no labels: read for classifiers only
        svm_file = (svmlight_file(name, folder, args.data_dir)
                    if args.liblinear_train and not regression else None)
        print(f"\n{name}: arrays in {folder}")
        print(header)
        for C in args.C:
            for solver in [s for s in args.solvers
                           if (s in linear.REGRESSION_SOLVERS) == regression]:
                results = {library: [] for library in args.libraries}
                for repeat in range(args.repeats):
                    order = args.libraries if repeat % 2 == 0 else args.libraries[::-1]
                    for library in order:
                        spec = {"library": library, "folder": str(folder), "C": C,
                                "solver": solver, "eps": args.eps, "repeat": repeat,
                                "epsilon": args.epsilon, "liblinear_official": official}
                        results[library].append(run_child(spec, args.timeout))
                summaries, flags = check(results, args)
                command = None
                if svm_file is not None:
                    command = liblinear_train(svm_file, solver, C, args.eps, args.timeout)
                    if command["status"] == "ok":
                        command = {"peak_mb": command["peak_mb"],
                                   "objective": model_file_objective(command, folder,
                                                                     solver, C)}
                    else:
                        flags.append("liblinear-train " + command["status"])
                        command = None
                for library, s in summaries.items():
                    ratio = s.get("memory_ratio")
                    over = (" > +20%" if library == "libsmo" and ratio is not None
                            and ratio > args.target else "")
                    flag = (" FLAG" if library in flags else
                            " (not LIBLINEAR's answer)" if s.get("differs") else
                            f" (LIBLINEAR's runs {summaries['LIBLINEAR']['spread']:.0e} "
                            "apart: not checked)" if s.get("unchecked") else "")
                    capped = " capped" if s["capped"] else ""
                    print(f"{name:10s} {solver:2d} {C:5g} {library:14s} "
                          f"{s['extra_peak_mb']:13.1f} "
                          f"{'' if ratio is None else f'{ratio:.2f}':>6s} "
                          f"{s['retained_mb']:11.1f} {s['cpu_s']:7.2f} "
                          f"{s['objective']:14.6f} "
                          f"{s.get('objective_rel_diff', 0.0):9.1e} "
                          f"{score_text(s):>11s}{capped}{over}{flag}", flush=True)
                if command is not None:
                    print(f"{name:10s} {solver:2d} {C:5g} {'liblinear-train':14s} "
                          f"{command['peak_mb']:13.1f} (whole process, 2.3.0) "
                          f"objective {command['objective']:.6f}", flush=True)
                if flags:
                    bad.append(f"{name} -s {solver} C={C:g}: {', '.join(flags)}")
                rows.append(result_row(name, folder, solver, C, summaries, command, args))
    print_markdown(rows)
    if args.json:
        linear.write_rows(args.json, rows)
    if bad:
        print("\nFLAG: not the same work as LIBLINEAR's (or a failed fit): "
              + "; ".join(bad))
        return 1
    return 0


def score_text(summary):
    """A fit's test accuracy in percent, or its test MSE."""
    return (f"{summary['score']:.4g}" if summary["regression"]
            else f"{100 * summary['score']:.2f}")


def result_row(name, folder, solver, C, summaries, command, args):
    """A row of the committed linear_memory.json."""
    import numpy as np
    shape = np.load(folder / "X_shape.npy")
    regression = solver in linear.REGRESSION_SOLVERS
    classes = None if regression else len(np.unique(np.load(folder / "y.npy")))
    runs = {}
    for library, s in summaries.items():
        runs[library] = {"extra_peak_mb": round(s["extra_peak_mb"], 1),
                         "retained_mb": round(s["retained_mb"], 1),
                         "cpu_s": round(s["cpu_s"], 3),
                         "objective": float(f"{s['objective']:.10g}"),
                         "capped": s["capped"]}
        if regression:
            runs[library]["test_mse"] = float(f"{s['score']:.6g}")
        else:
            runs[library]["accuracy_percent"] = round(100 * s["score"], 2)
        if "memory_ratio" in s:
            runs[library]["memory_ratio"] = round(s["memory_ratio"], 3)
            runs[library]["objective_rel_diff"] = float(f"{s['objective_rel_diff']:.2e}")
        if s.get("unchecked"):
            runs[library]["unchecked"] = True
    row = {"data": name, "rows": int(shape[0]), "features": int(shape[1]),
           "classes": classes,
           "data_mb": round(next(iter(summaries.values()))["data_mb"], 1)
           if summaries else None,
           "solver": solver, "loss": linear.LOSSES[solver], "C": C, "eps": args.eps,
           "repeats": args.repeats, "runs": runs}
    if regression:
        row.update(dual=solver not in linear.PRIMAL_SOLVERS, epsilon=args.epsilon)
    if "LIBLINEAR" in summaries:
        row["reference_spread"] = float(f"{summaries['LIBLINEAR']['spread']:.2e}")
    if command is not None:
        row["liblinear_train_process_peak_mb"] = round(command["peak_mb"], 1)
        row["liblinear_train_objective"] = float(f"{command['objective']:.10g}")
    return row


def print_markdown(rows):
    print("\n| data | -s | C | CSR MB | LIBLINEAR extra peak MB | libsmo MB | "
          "libsmo / LIBLINEAR | scikit-learn MB | scikit-learn / LIBLINEAR | "
          "objective rel. diff libsmo |")
    print("|---|---|---|" + "---:|" * 7)
    for row in rows:
        runs = row["runs"]

        def cell(library, key, fmt):
            return format(runs[library][key], fmt) if key in runs.get(library, {}) else "-"
        print(f"| {row['data']} | {row['solver']} | {row['C']:g} | {row['data_mb']} | "
              f"{cell('LIBLINEAR', 'extra_peak_mb', '.1f')} | "
              f"{cell('libsmo', 'extra_peak_mb', '.1f')} | "
              f"{cell('libsmo', 'memory_ratio', '.2f')} | "
              f"{cell('scikit-learn', 'extra_peak_mb', '.1f')} | "
              f"{cell('scikit-learn', 'memory_ratio', '.2f')} | "
              f"{cell('libsmo', 'objective_rel_diff', '.1e')} |")


if __name__ == "__main__":
    sys.exit(main())
