"""libsmo, LIBSVM (libsvm-official) and scikit-learn side by side: one command.

    python benchmarks/run.py                                  # every case, 3 runs each
    python benchmarks/run.py --cases a9a,letter --repeats 5
    python benchmarks/run.py --cases a9a,housing --rows 400 --repeats 1 --threads 1

What is compared
----------------
Each case trains the same formulation on the same data with the same parameters in the
three libraries: tol 1e-3 (LIBSVM's -e 0.001), a 100 MB kernel cache (-m 100), shrinking
on (-h 1), and the same thread count T (--threads, default: all cores):

- libsmo: ``libsmo.train(..., n_threads=T)``;
- libsvm-official: OpenMP threads through OMP_NUM_THREADS=T, which must be in the
  environment before libsvm's shared library is loaded, so it is set in the child
  process's environment (see "How" below);
- scikit-learn: ``sklearn.svm.SVC`` / ``SVR``, whose bundled LIBSVM has no threads at all
  (T only limits its BLAS).

numpy's BLAS is held to T threads in every child (threadpoolctl, plus the
OPENBLAS/MKL/OMP environment variables for any library threadpoolctl does not see).

Cases (``CASES``): a9a (RBF), a9a-linear, w8a, ijcnn1 (ijcnn1.val split 70/30), reviews
(TF-IDF of the Women's Clothing E-Commerce Reviews, built by examples/text_reviews.py's
own functions, split 70/30 as that example does), sector (linear, 105 classes), letter
(RBF, 26 classes) and housing (epsilon-SVR, scored by MSE). Splits use a fixed seed.

What is measured, per case, library and run
-------------------------------------------
- load seconds: reading the LIBSVM-format training (and test) file with the library's
  own reader: ``libsmo.load_svmlight_file``, ``sklearn.datasets.load_svmlight_file``
  (through benchmarks/bench_train.py's ``load``), libsvm-official's
  ``svm_read_problem(..., return_scipy=True)``; for the reviews, the CSV reading and
  TF-IDF, which is the same code for all three (so no load ratio is given there).
  scikit-learn's reader returns int64 index arrays that its SVC/SVR then refuse, so the
  scikit-learn child casts them to int32 after the load is timed (a copy a user pays);
- train seconds (wall, ``perf_counter``) and train CPU seconds (``process_time``: all
  threads of the process; less sensitive than wall time to other work on a shared
  machine). LIBSVM's svm_problem is built from the CSR matrix before the clock starts,
  as benchmarks/bench_train.py does, since svm-train would have read it from the file;
- second-fit seconds: for a fit under REFIT_BELOW_S (2 s), the same fit once more in the
  same process, after prediction. The first fit of a fresh process also pays for
  mapping the code it runs and warming caches, which on a millisecond problem is a
  large part of it; the second is what a user pays in a loop (cross-validation, a grid
  search). The train ratio stays the first fit's;
- predict seconds on the test rows (LIBSVM's svm_predict converts each row in Python,
  which is part of what its Python users pay);
- the dual objective: libsmo's ``model.objective`` summed over the one-vs-one pairs;
  LIBSVM's "obj = ..." lines (printed from C, so file descriptor 1 is captured while
  svm_train runs, with bench_train.py's ``captured_fd1``), summed; scikit-learn does not
  expose it (None);
- support vectors, SMO iterations (summed over pairs), test accuracy in % (MSE for
  regression);
- memory: each (case, library, run) runs in a fresh child process (this script with
  ``--child``), which loads the data, then trains and predicts. The child reports its RSS
  after loading (``/proc/self/statm``), the peak RSS of training and prediction
  (``ru_maxrss`` after the kernel's peak counter is reset through /proc/self/clear_refs
  once the data are loaded; where that is not possible the peak is over the whole child
  and so may be the loader's) and the absolute peak of the child, imports included.
  "memory" in the ratios is the training peak minus the RSS after loading: what training
  and prediction add on top of the data. The JSON and the progress lines also split the
  growth at the end of prediction into file-backed pages (library code and read-only
  data mapped on first use, up to 64 kB a time) and anonymous (allocated) memory: on a
  millisecond fit such as housing's the first is nearly all of it.

On a machine whose cores are also busy with other work, OpenMP threads that wait for
each other at every kernel row (LIBSVM's training and, in 3.37, its prediction too) can
slow a run many times over: compare --threads 1 before reading much into a ratio.

Libraries run in a rotated order from one repeat to the next, so that slow phases of a
shared machine fall on each of them in turn. Reported times are medians over the runs;
ratios are libsmo / other (below 1: libsmo is faster or smaller), taken as the median of
the per-repeat ratios (the libraries of one repeat run back to back, so their ratio
cancels some of the machine's drift). Objectives "agree" when the relative difference
of libsmo's and LIBSVM's is at most 1e-4, accuracies when they are within 0.1 points
(MSE: within 0.1% relative).

Output: <out>/latest.json (every raw run, medians, ratios and the machine: platform, CPU
model, cores, versions, date) and <out>/latest.md (the summary table, also printed).
``--table-from <json>`` writes the table of an earlier run again from its raw runs. The
table gives two memory ratios: added memory (the training peak minus the RSS after
loading) and peak memory (the training peak itself, with the process and its data).
The data are ../shared/data/<name>.xz, decompressed once into $LIBSMO_DATA_CACHE
(default: $TMPDIR/libsmo-data-cache) by bench_train.py's ``decompress``.
"""
import argparse
import datetime
import gc
import json
import math
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# bench_train.py (decompress, load, captured_fd1) and the examples folder (the reviews'
# features) are imported from their folders; the repository root is not put on the path,
# since its libsmo/ source folder would shadow the installed package
sys.path.insert(0, str(HERE))
import bench_train  # noqa: E402  (also imports libsmo)

SEED = 0              # the 70/30 splits of the cases without a test file
TRAIN_FRACTION = 0.7
TOL = 1e-3
CACHE_MB = 100
REVIEWS_CSV = "Womens Clothing E-Commerce Reviews.csv"
LIBRARIES = ("libsmo", "libsvm", "sklearn")
LABELS = {"libsmo": "libsmo", "libsvm": "LIBSVM", "sklearn": "sklearn"}
OBJECTIVE_RTOL = 1e-4
ACCURACY_POINTS = 0.1
MSE_RTOL = 1e-3
# A fit shorter than this is timed a second time in the same process, after prediction.
# The first fit of a fresh process also pays for mapping the code it runs: on the
# 2-core VM of 2026-11-23 a page fault cost about 11 us, and libsmo's first fit of
# housing (354 rows, about a millisecond) touched 17 new pages of numpy, scipy and
# libsmo code against LIBSVM's 2. The second fit shows the steady cost.
REFIT_BELOW_S = 2.0

# train/test: data set names in the data folder (without .xz); test None: a 70/30 split
CASES = {
    "a9a": dict(train="a9a", test="a9a.t", n_features=123, svm_type="c_svc",
                kernel="rbf", C=1.0, gamma=0.05),
    "a9a-linear": dict(train="a9a", test="a9a.t", n_features=123, svm_type="c_svc",
                       kernel="linear", C=0.05),
    "w8a": dict(train="w8a", test="w8a.t", n_features=300, svm_type="c_svc",
                kernel="rbf", C=5.0, gamma=0.05),
    "ijcnn1": dict(train="ijcnn1.val", test=None, n_features=22, svm_type="c_svc",
                   kernel="rbf", C=32.0, gamma=2.0),
    "reviews": dict(train=REVIEWS_CSV, test=None, n_features=None, svm_type="c_svc",
                    kernel="rbf", C=1.0, gamma=1.0, format="reviews"),
    "sector": dict(train="sector.scale", test="sector.t.scale", n_features=55197,
                   svm_type="c_svc", kernel="linear", C=1.0),
    "letter": dict(train="letter.scale", test="letter.scale.t", n_features=16,
                   svm_type="c_svc", kernel="rbf", C=10.0, gamma=1.0),
    "housing": dict(train="housing_scale", test=None, n_features=13,
                    svm_type="epsilon_svr", kernel="rbf", C=1.0, gamma=1.0 / 13,
                    epsilon=0.1),
}


# ------------------------------------------------------------------- child: one run

def current_rss_mb():
    """Resident set size of this process now, in MB (None off Linux).

    Returns
    -------
    float or None
    """
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def rss_parts_mb():
    """This process's anonymous and file-backed resident memory now, in MB
    (/proc/self/status RssAnon and RssFile; None off Linux).

    File-backed pages are mostly code and read-only data of the libraries, mapped on
    first use in chunks of up to 64 kB: on a millisecond fit they are most of what
    training adds to the RSS.

    Returns
    -------
    dict or None
        {"anon": float, "file": float}
    """
    parts = {}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("RssAnon", "RssFile"):
                    parts[key[3:].lower()] = int(value.split()[0]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return parts if len(parts) == 2 else None


def peak_rss_mb():
    """Peak RSS of this process so far (ru_maxrss, kB on Linux), in MB.

    Returns
    -------
    float
    """
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak_rss():
    """Reset the kernel's peak-RSS counter (Linux >= 4.0: "5" to /proc/self/clear_refs).

    ru_maxrss then counts from here, so that the peak of training is not hidden behind a
    higher peak of the loader.

    Returns
    -------
    bool
        Whether the counter was reset.
    """
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def blas_limit(threads):
    """Context manager holding BLAS to `threads` threads (bench_train's threadpoolctl
    wrapper, a no-op without threadpoolctl: then the environment variables set by the
    parent hold it)."""
    return bench_train.blas_threads(threads)


def split_rows(n):
    """Sorted training and test row indices of a fixed-seed 70/30 split of n rows.

    numpy's own generator, not scikit-learn's, so that the libsmo and LIBSVM children
    need not import scikit-learn; every child draws the same split.

    Parameters
    ----------
    n : int

    Returns
    -------
    (ndarray, ndarray)
    """
    order = np.random.RandomState(SEED).permutation(n)
    cut = int(TRAIN_FRACTION * n)
    return np.sort(order[:cut]), np.sort(order[cut:])


def reviews_features(csv_path):
    """TF-IDF features of the reviews, built as examples/text_reviews.py builds them.

    Its own functions (read_reviews, vectorizer) and split (stratified 70/30 with its
    SEED, vocabulary learnt from the training part) are used, not copies of them.

    Returns
    -------
    (X, y, Xt, yt)
        CSR float64 matrices and integer labels ("Recommended IND").
    """
    sys.path.insert(0, str(REPO / "examples"))
    import text_reviews
    from sklearn.model_selection import train_test_split
    texts, labels, _ = text_reviews.read_reviews(csv_path)
    train_text, test_text, y, yt = train_test_split(
        texts, labels, test_size=0.3, random_state=text_reviews.SEED, stratify=labels)
    tfidf = text_reviews.vectorizer()
    X = tfidf.fit_transform(train_text).tocsr()
    Xt = tfidf.transform(test_text).tocsr()
    return X, np.asarray(y, dtype=np.float64), Xt, np.asarray(yt, dtype=np.float64)


def load_data(job):
    """Load a case's data with the job's library's own reader.

    Parameters
    ----------
    job : dict
        The child's job (see `child_main`).

    Returns
    -------
    (X, y, Xt, yt, seconds)
        CSR training and test matrices, their labels, and the reading time.
    """
    case, library = job["case"], job["library"]
    paths = job["paths"]
    # the readers are imported before the clock starts: the first import of
    # sklearn.datasets alone takes about a second
    if library == "libsmo":
        from libsmo import load_svmlight_file
    elif library == "sklearn":
        import sklearn.datasets  # noqa: F401  (bench_train.load imports it)
    else:
        from libsvm.svmutil import svm_read_problem
    if case.get("format") == "reviews":
        sys.path.insert(0, str(REPO / "examples"))
        import text_reviews  # noqa: F401

    def read(name):
        if library == "libsmo":
            X, y = load_svmlight_file(paths[name], n_features=case["n_features"])
        elif library == "sklearn":
            X, y = bench_train.load(job["data_dir"], name, case["n_features"])
        else:
            y, X = svm_read_problem(paths[name], return_scipy=True)
        return X.tocsr(), np.asarray(y, dtype=np.float64)

    start = time.perf_counter()
    if case.get("format") == "reviews":
        X, y, Xt, yt = reviews_features(paths[case["train"]])
    else:
        X, y = read(case["train"])
        if case["test"] is not None:
            Xt, yt = read(case["test"])
    seconds = time.perf_counter() - start
    if case.get("format") != "reviews" and case["test"] is None:
        train_rows, test_rows = split_rows(X.shape[0])
        X, y, Xt, yt = X[train_rows], y[train_rows], X[test_rows], y[test_rows]
    if job["rows"]:
        X, y, Xt, yt = X[:job["rows"]], y[:job["rows"]], Xt[:job["rows"]], yt[:job["rows"]]
    return X, y, Xt, yt, seconds


def int32_indices(X):
    """X with int32 index arrays (a copy of them when they are wider).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    if X.indices.dtype == np.int32 and X.indptr.dtype == np.int32:
        return X
    X = X.copy()
    X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
    return X


def fit_libsmo(case, X, y, threads):
    """Train with libsmo; returns (predict function, objective, n_sv, n_iter)."""
    import libsmo
    model = libsmo.train(X, y, svm_type=case["svm_type"], kernel=case["kernel"],
                         C=case["C"], gamma=case.get("gamma"),
                         epsilon=case.get("epsilon", 0.1), tol=TOL, cache_size=CACHE_MB,
                         shrinking=True, n_threads=threads)
    return (model.predict, float(sum(model.objective)), int(model.n_sv),
            int(sum(model.n_iter)))


def libsvm_options(case):
    """svm-train's option string for a case (-q is not given: the obj lines are needed).

    Returns
    -------
    str
    """
    options = {"c_svc": "-s 0", "epsilon_svr": "-s 3"}[case["svm_type"]]
    options += {"linear": " -t 0", "rbf": " -t 2"}[case["kernel"]]
    options += f" -c {case['C']!r}"
    if case["kernel"] != "linear":
        options += f" -g {case['gamma']!r}"
    if case["svm_type"] == "epsilon_svr":
        options += f" -p {case['epsilon']!r}"
    return options + f" -e {TOL!r} -m {CACHE_MB} -h 1"


def run_child(job):
    """One measurement: load, train, predict with one library, inside this process.

    Parameters
    ----------
    job : dict
        case (its CASES entry), library, threads, rows, paths, data_dir.

    Returns
    -------
    dict
        Times in seconds, memory in MB, objective, n_sv, n_iter, accuracy or mse.
    """
    case, library, threads = job["case"], job["library"], job["threads"]
    with blas_limit(threads):
        X, y, Xt, yt, load_seconds = load_data(job)
        if library == "libsvm":
            from libsvm.svmutil import (svm_parameter, svm_predict, svm_problem,
                                        svm_train)
            # built before the clock starts, as svm-train reads its file before training
            problem = svm_problem(y, X)
            parameter = svm_parameter(libsvm_options(case))
        elif library == "sklearn":
            from sklearn.svm import SVC, SVR
            # scikit-learn 1.9's load_svmlight_file returns int64 indices, which its own
            # SVC/SVR refuse ("Only sparse matrices with 32-bit integer indices"): cast
            # them here, after the load's clock, as a user has to
            X, Xt = int32_indices(X), int32_indices(Xt)
            params = dict(kernel=case["kernel"], C=case["C"], tol=TOL,
                          cache_size=CACHE_MB, shrinking=True,
                          # unused by the linear kernel; given so that "scale" is not
                          # computed from the data
                          gamma=case.get("gamma", 1.0))
            if case["svm_type"] == "epsilon_svr":
                estimator = SVR(epsilon=case["epsilon"], **params)
            else:
                estimator = SVC(**params)
        gc.collect()
        parts_after_load = rss_parts_mb()
        rss_after_load = current_rss_mb()
        peak_after_load = peak_rss_mb()
        peak_reset = reset_peak_rss()

        if library == "libsmo":
            start, cpu = time.perf_counter(), time.process_time()
            predict, objective, n_sv, n_iter = fit_libsmo(case, X, y, threads)
            train_seconds = time.perf_counter() - start
            train_cpu = time.process_time() - cpu

            def refit():
                fit_libsmo(case, X, y, threads)
        elif library == "libsvm":
            with bench_train.captured_fd1() as output:
                start, cpu = time.perf_counter(), time.process_time()
                model = svm_train(problem, parameter)
                train_seconds = time.perf_counter() - start
                train_cpu = time.process_time() - cpu
            objectives = re.findall(r"obj = (\S+),", output[0])
            if not objectives:
                raise RuntimeError(f"no 'obj = ...' line in LIBSVM's output:\n{output[0]}")
            objective = float(sum(float(v) for v in objectives))
            n_iter = sum(int(v) for v in re.findall(r"#iter = (\d+)", output[0]))
            n_sv = int(model.get_nr_sv())

            def predict(Xt):
                labels, _, _ = svm_predict(yt, Xt, model, "-q")
                return np.asarray(labels)

            def refit():
                with bench_train.captured_fd1():
                    svm_train(problem, parameter)
        else:
            start, cpu = time.perf_counter(), time.process_time()
            estimator.fit(X, y)
            train_seconds = time.perf_counter() - start
            train_cpu = time.process_time() - cpu
            predict, objective = estimator.predict, None
            n_sv, n_iter = int(estimator.support_.shape[0]), int(np.sum(estimator.n_iter_))

            def refit():
                estimator.fit(X, y)

        gc.collect()
        start = time.perf_counter()
        predicted = np.asarray(predict(Xt), dtype=np.float64)
        predict_seconds = time.perf_counter() - start
        train_peak = peak_rss_mb()
        parts_after_predict = rss_parts_mb()
        refit_seconds = None
        if train_seconds < REFIT_BELOW_S:
            start = time.perf_counter()
            refit()
            refit_seconds = time.perf_counter() - start

    result = {"library": library, "load_s": load_seconds, "train_s": train_seconds,
              "train_cpu_s": train_cpu, "refit_s": refit_seconds,
              "predict_s": predict_seconds,
              "objective": objective, "n_sv": n_sv, "n_iter": n_iter,
              "train_rows": int(X.shape[0]), "test_rows": int(Xt.shape[0]),
              "n_features": int(X.shape[1]),
              "rss_after_load_mb": rss_after_load, "train_peak_rss_mb": train_peak,
              "peak_rss_mb": max(peak_after_load, train_peak),
              "peak_reset": peak_reset}
    if parts_after_load is not None and parts_after_predict is not None:
        # what of the RSS growth is mapped library code (file pages) and what is
        # allocated (anonymous) memory, at the end of prediction
        result["file_pages_added_mb"] = parts_after_predict["file"] - parts_after_load["file"]
        result["anon_added_mb"] = parts_after_predict["anon"] - parts_after_load["anon"]
    if rss_after_load is not None:
        # clamped: the kernel's RSS counters are approximate, and a run that allocates
        # nothing can read a few hundred kB below the RSS taken before the reset
        result["memory_mb"] = max(0.0, train_peak - rss_after_load)
    if case["svm_type"] == "epsilon_svr":
        result["mse"] = float(np.mean((predicted - yt) ** 2))
    else:
        result["accuracy"] = 100.0 * float(np.mean(predicted == yt))
    return result


def child_main(job_path, result_path):
    """Entry point of a child process: read the job, run it, write the result as JSON."""
    job = json.loads(Path(job_path).read_text())
    result = run_child(job)
    Path(result_path).write_text(json.dumps(result))


# ------------------------------------------------------------------ parent: the plan

def child_environment(threads):
    """The environment of a child: every thread pool held to `threads`.

    OMP_NUM_THREADS reaches libsvm-official's OpenMP (and libsmo's, whose own count is
    n_threads), read once when the runtime loads: it has to be set before the child
    starts. The BLAS variables back up threadpoolctl.
    """
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                 "BLIS_NUM_THREADS"):
        env[name] = str(threads)
    return env


def spawn(job, workdir):
    """Run one job in a fresh Python process (this script with --child).

    Returns
    -------
    dict
        The child's result, or {"library": ..., "error": text} when it failed.
    """
    tag = f"{job['case_name']}-{job['library']}-{job['repeat']}"
    job_path, result_path = workdir / f"{tag}.job.json", workdir / f"{tag}.result.json"
    job_path.write_text(json.dumps(job))
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", str(job_path),
         str(result_path)],
        env=child_environment(job["threads"]), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0 or not result_path.exists():
        return {"library": job["library"],
                "error": f"exit {proc.returncode}: {proc.stderr.strip()[-3000:]}"}
    return json.loads(result_path.read_text())


def data_paths(case, data_dir):
    """Decompress a case's files into the cache (once) and map names to paths."""
    names = [case["train"]] + ([case["test"]] if case.get("test") else [])
    return {name: str(bench_train.decompress(data_dir, name)) for name in names}


def finite(value):
    return value is not None and isinstance(value, (int, float)) and math.isfinite(value)


def median_of(runs, key):
    """Median of runs[i][key] over the runs that have it (None if none)."""
    values = [run[key] for run in runs if finite(run.get(key))]
    return statistics.median(values) if values else None


def median_ratio(ours, theirs, key):
    """Median over repeats of ours[r][key] / theirs[r][key] (None without a pair)."""
    ratios = [a[key] / b[key] for a, b in zip(ours, theirs)
              if finite(a.get(key)) and finite(b.get(key)) and b[key] > 0]
    return statistics.median(ratios) if ratios else None


def summarize(name, case, runs):
    """Medians, ratios and agreement of one case from its raw runs.

    Parameters
    ----------
    name : str
    case : dict
        Its CASES entry.
    runs : dict
        library -> list of the child results, one per repeat.

    Returns
    -------
    dict
    """
    ok = {lib: [r for r in rs if "error" not in r] for lib, rs in runs.items()}
    summary = {"case": name, "params": case, "runs": runs, "median": {}, "ratios": {}}
    for lib, rs in ok.items():
        if not rs:
            continue
        # objective, n_sv, accuracy are the same in every run (deterministic training)
        first = rs[0]
        summary["median"][lib] = {
            key: median_of(rs, key)
            for key in ("load_s", "train_s", "train_cpu_s", "refit_s", "predict_s",
                        "memory_mb", "peak_rss_mb", "rss_after_load_mb",
                        "train_peak_rss_mb", "file_pages_added_mb", "anon_added_mb")}
        summary["median"][lib].update(
            {key: first.get(key) for key in ("objective", "n_sv", "n_iter", "accuracy",
                                             "mse", "train_rows", "test_rows",
                                             "n_features")})
    for other in ("libsvm", "sklearn"):
        if "libsmo" not in runs or other not in runs:
            continue
        # pair the runs of one repeat (failed runs pair as missing values)
        summary["ratios"][f"vs_{other}"] = {
            key: median_ratio(runs["libsmo"], runs[other], key)
            for key in ("train_s", "train_cpu_s", "refit_s", "predict_s", "load_s",
                        "memory_mb", "peak_rss_mb", "train_peak_rss_mb")}
        if case.get("format") == "reviews":
            # the same CSV + TF-IDF code in all three: not a comparison of readers
            summary["ratios"][f"vs_{other}"]["load_s"] = None
    med = summary["median"]
    agree = {}
    if "libsmo" in med and "libsvm" in med:
        a, b = med["libsmo"]["objective"], med["libsvm"]["objective"]
        rel = abs(a - b) / max(abs(b), 1e-300)
        agree["objective_rel_diff"] = rel
        agree["objectives_agree"] = rel <= OBJECTIVE_RTOL
    for other in ("libsvm", "sklearn"):
        if "libsmo" not in med or other not in med:
            continue
        if case["svm_type"] == "epsilon_svr":
            a, b = med["libsmo"]["mse"], med[other]["mse"]
            agree[f"metric_agree_{other}"] = abs(a - b) <= MSE_RTOL * abs(b)
        else:
            a, b = med["libsmo"]["accuracy"], med[other]["accuracy"]
            agree[f"metric_agree_{other}"] = abs(a - b) <= ACCURACY_POINTS
    summary["agreement"] = agree
    return summary


def describe(case):
    """Short text of a case's problem, e.g. "RBF C=1 g=0.05"."""
    kind = "SVR " if case["svm_type"] == "epsilon_svr" else ""
    text = f"{kind}{'RBF' if case['kernel'] == 'rbf' else 'linear'} C={case['C']:g}"
    if case["kernel"] == "rbf":
        text += f" g={case['gamma']:.3g}"
    if case["svm_type"] == "epsilon_svr":
        text += f" eps={case['epsilon']:g}"
    return text


def cpu_model():
    """The CPU's model name from /proc/cpuinfo (platform.processor() elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def machine_info(args):
    """Platform, CPU, versions and the run's settings, for the JSON and the table."""
    version = bench_train.dist_version
    return {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "platform": platform.platform(), "cpu_model": cpu_model(),
            "cpu_count": os.cpu_count(), "python": platform.python_version(),
            "numpy": np.__version__, "libsmo": version("libsmo"),
            "libsvm-official": version("libsvm-official"),
            "scikit-learn": version("scikit-learn"),
            "threadpoolctl": version("threadpoolctl"),
            "threads": args.threads, "repeats": args.repeats, "rows_limit": args.rows,
            "libraries": args.libraries,
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None}


def fmt(value, spec=".2f", missing="-"):
    return missing if value is None else format(value, spec)


def seconds(value):
    """A time for the table: more decimals for the millisecond fits (housing)."""
    if not finite(value):
        return "-"
    return fmt(value, ".2f" if value >= 1 else ".3f" if value >= 0.01 else ".4f")


def markdown(summaries, info):
    """The summary table (markdown), headed with the machine and date.

    Returns
    -------
    str
    """
    lines = [
        f"## libsmo vs LIBSVM vs scikit-learn ({info['date']})",
        "",
        f"{info['cpu_model']}, {info['cpu_count']} cores, {info['platform']}; "
        f"Python {info['python']}, numpy {info['numpy']}, libsmo {info['libsmo']}, "
        f"libsvm-official {info['libsvm-official']}, scikit-learn {info['scikit-learn']}."
        f" Threads {info['threads']}, median of {info['repeats']} run(s)"
        + (f", first {info['rows_limit']} training/test rows only"
           if info["rows_limit"] else "") + ". Ratios are libsmo / other (below 1: "
        "libsmo faster or smaller); predict and memory ratios are vs LIBSVM / vs "
        "sklearn; added memory is the peak RSS of training and prediction above the RSS "
        "after loading the data, peak memory that peak itself (the process with its data "
        f"loaded). Second fit: the same fit again in the same process, for fits "
        f"under {REFIT_BELOW_S:g} s (the first also pays for mapping code pages).",
        "",
        "| case | libsmo train s | LIBSVM train s | sklearn train s | train ratio vs "
        "LIBSVM | second fit ratio vs LIBSVM | predict ratio | load ratio vs sklearn | "
        "added memory ratio | peak memory ratio | objectives agree (rel. diff) | "
        "accuracy libsmo / LIBSVM |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for s in summaries:
        med, rat, agree = s["median"], s["ratios"], s["agreement"]
        train = {lib: seconds(med.get(lib, {}).get("train_s")) for lib in LIBRARIES}
        vs_libsvm, vs_sklearn = rat.get("vs_libsvm", {}), rat.get("vs_sklearn", {})
        if "objectives_agree" in agree:
            objectives = (f"{'yes' if agree['objectives_agree'] else 'NO'} "
                          f"({agree['objective_rel_diff']:.1e})")
        else:
            objectives = "-"
        if s["params"]["svm_type"] == "epsilon_svr":
            metric = (f"MSE {fmt(med.get('libsmo', {}).get('mse'), '.4f')} / "
                      f"{fmt(med.get('libsvm', {}).get('mse'), '.4f')}")
        else:
            metric = (f"{fmt(med.get('libsmo', {}).get('accuracy'))} / "
                      f"{fmt(med.get('libsvm', {}).get('accuracy'))} %")
        rows = med.get("libsmo", med.get("libsvm", med.get("sklearn", {})))
        rows = f"{rows['train_rows']:,}" if rows.get("train_rows") else "?"
        lines.append(
            f"| {s['case']} ({describe(s['params'])}; {rows} rows) | {train['libsmo']} | {train['libsvm']} | {train['sklearn']} | "
            f"{fmt(vs_libsvm.get('train_s'))} | {fmt(vs_libsvm.get('refit_s'))} | "
            f"{fmt(vs_libsvm.get('predict_s'))} / "
            f"{fmt(vs_sklearn.get('predict_s'))} | {fmt(vs_sklearn.get('load_s'))} | "
            f"{fmt(vs_libsvm.get('memory_mb'))} / {fmt(vs_sklearn.get('memory_mb'))} | "
            f"{fmt(vs_libsvm.get('train_peak_rss_mb'))} / "
            f"{fmt(vs_sklearn.get('train_peak_rss_mb'))} | {objectives} | {metric} |")
    return "\n".join(lines) + "\n"


def progress(name, repeat, result):
    """One line per run, so that a long benchmark shows where it is."""
    lib = LABELS[result["library"]]
    if "error" in result:
        # the error's last line says what went wrong; the JSON keeps the traceback
        last = result["error"].strip().splitlines()[-1]
        print(f"  [{name}] run {repeat + 1} {lib}: FAILED ({last})", flush=True)
        return
    metric = (f"MSE {result['mse']:.4f}" if "mse" in result
              else f"accuracy {result['accuracy']:.2f}%")
    print(f"  [{name}] run {repeat + 1} {lib:7s}: load {result['load_s']:.2f} s, "
          f"train {result['train_s']:.2f} s (CPU {result['train_cpu_s']:.2f})"
          + (f", again {result['refit_s'] * 1e3:.2f} ms" if result.get("refit_s") is not None
             else "") + ", predict "
          f"{result['predict_s']:.2f} s, obj {fmt(result['objective'], '.6f')}, nSV "
          f"{result['n_sv']}, {metric}, memory +{fmt(result.get('memory_mb'), '.1f')} MB "
          f"(peak {result['peak_rss_mb']:.0f} MB; at the end file pages "
          f"+{fmt(result.get('file_pages_added_mb'), '.2f')} MB, anonymous "
          f"{fmt(result.get('anon_added_mb'), '+.2f')} MB)", flush=True)


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def name_list(known):
    """argparse type: a comma-separated subset of `known`, in the given order."""
    def parse(text):
        names = [n.strip() for n in text.split(",") if n.strip()]
        unknown = [n for n in names if n not in known]
        if unknown or not names:
            raise argparse.ArgumentTypeError(
                f"unknown {', '.join(unknown) or '(none given)'}; known: {', '.join(known)}")
        return names
    return parse


def table_from(json_path, out):
    """Recompute the summaries of an earlier run from its raw runs and write its table.

    Parameters
    ----------
    json_path : Path
        A latest.json written by this script.
    out : Path
        Folder for latest.md.

    Returns
    -------
    int
        0.
    """
    saved = json.loads(Path(json_path).read_text())
    summaries = [summarize(c["case"], c["params"], c["runs"]) for c in saved["cases"]]
    table = markdown(summaries, saved["machine"])
    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.md").write_text(table)
    print(table)
    return 0


def main(argv=None):
    """Run the benchmark; returns the exit status (1 when a run failed)."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--cases", type=name_list(list(CASES)), default=list(CASES),
                        help=f"comma-separated subset of: {','.join(CASES)}")
    parser.add_argument("--libraries", type=name_list(LIBRARIES), default=list(LIBRARIES),
                        help="comma-separated subset of: libsmo,libsvm,sklearn")
    parser.add_argument("--repeats", type=positive_int, default=3,
                        help="runs of each library per case; medians are reported")
    parser.add_argument("--rows", type=positive_int, default=None,
                        help="use only the first ROWS training and ROWS test rows "
                             "(a quick smoke run)")
    parser.add_argument("--threads", type=positive_int, default=os.cpu_count() or 1,
                        help="threads for every library (and BLAS)")
    parser.add_argument("--out", type=Path, default=HERE / "results",
                        help="folder of latest.json and latest.md")
    parser.add_argument("--data-dir", type=Path, default=bench_train.DEFAULT_DATA_DIR,
                        help="folder of the <name>.xz data files")
    parser.add_argument("--table-from", type=Path, default=None, metavar="JSON",
                        help="run nothing: write the table of an earlier run's JSON "
                             "again (medians and ratios recomputed from its raw runs)")
    args = parser.parse_args(argv)
    if args.table_from is not None:
        return table_from(args.table_from, args.out)

    info = machine_info(args)
    print(f"libsmo {info['libsmo']}, libsvm-official {info['libsvm-official']}, "
          f"scikit-learn {info['scikit-learn']}; {info['cpu_model']}, "
          f"{info['cpu_count']} cores; threads {args.threads}; {args.repeats} run(s); "
          f"cases {','.join(args.cases)}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    summaries, failed = [], False
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="libsmo-bench-") as workdir:
        for name in args.cases:
            case = CASES[name]
            paths = data_paths(case, args.data_dir)
            print(f"\n== {name}: {describe(case)} ==", flush=True)
            runs = {lib: [] for lib in args.libraries}
            for repeat in range(args.repeats):
                # rotate the order: each library goes first in turn
                shift = repeat % len(args.libraries)
                for lib in args.libraries[shift:] + args.libraries[:shift]:
                    job = {"case_name": name, "case": case, "library": lib,
                           "repeat": repeat, "threads": args.threads, "rows": args.rows,
                           "paths": paths, "data_dir": str(args.data_dir)}
                    result = spawn(job, Path(workdir))
                    failed |= "error" in result
                    runs[lib].append(result)
                    progress(name, repeat, result)
            summaries.append(summarize(name, case, runs))
            # written after every case, so that a long run keeps what it has measured
            info["wall_seconds"] = time.perf_counter() - started
            (args.out / "latest.json").write_text(
                json.dumps({"machine": info, "cases": summaries}, indent=2) + "\n")
    table = markdown(summaries, info)
    (args.out / "latest.md").write_text(table)
    print("\n" + table)
    print(f"wall time {info['wall_seconds']:.0f} s; written: {args.out / 'latest.json'}, "
          f"{args.out / 'latest.md'}")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child_main(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main())
