"""One measurement of benchmarks/run.py: load a case's data, train and predict with one
library, inside the current (fresh) process, and report times, memory and the answer.

Libraries: libsmo (`libsmo.train`, n_threads=T), LIBSVM (libsvm-official, OpenMP threads
through OMP_NUM_THREADS set by the parent), scikit-learn (SVC/SVR; its bundled LIBSVM has
no threads) and scikit-learn-intelex (`sklearnex.svm.SVC`/`SVR`, oneDAL's solver,
n_jobs=T). The dual objective comes from libsmo's model, from the "obj = ..." lines LIBSVM
and scikit-learn's LIBSVM print (file descriptor 1 is captured while they train;
scikit-learn prints them with verbose=True), and for scikit-learn-intelex, which prints
nothing, from its support vectors and dual coefficients (when that kernel matrix is
small enough to compute here).
"""
import gc
import os
import re
import resource
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_cases  # noqa: E402
import bench_train  # noqa: E402

TOL = 1e-3
CACHE_MB = 100
# A fit shorter than this is timed a second time in the same process, after prediction.
# The first fit of a fresh process also pays for mapping the code it runs: on the
# 2-core VM of 2026-11-23 a page fault cost about 11 us, and libsmo's first fit of
# housing (354 rows, about a millisecond) touched 17 new pages of numpy, scipy and
# libsmo code against LIBSVM's 2. The second fit shows the steady cost.
REFIT_BELOW_S = 2.0
# scikit-learn-intelex's objective is computed from its support vectors pair by pair
# when a pair's kernel matrix has at most this many entries
OBJECTIVE_MAX_ENTRIES = 6e7


# ------------------------------------------------------------------------- memory

def current_rss_mb():
    """Resident set size of this process now, in MB (None off Linux)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def rss_parts_mb():
    """This process's anonymous and file-backed resident memory now, in MB
    (/proc/self/status RssAnon and RssFile; None off Linux). File-backed pages are mostly
    library code mapped on first use: on a millisecond fit they are most of what
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
    """Peak RSS of this process so far (ru_maxrss, kB on Linux), in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak_rss():
    """Reset the kernel's peak-RSS counter (Linux >= 4.0: "5" to /proc/self/clear_refs),
    so that ru_maxrss counts from here and the loader's peak does not hide training's.

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


# ----------------------------------------------------------------------- libraries

def int32_indices(X):
    """CSR X with int32 index arrays (scikit-learn's SVC refuses int64 ones)."""
    if not hasattr(X, "indptr") or (X.indices.dtype == np.int32
                                    and X.indptr.dtype == np.int32):
        return X
    X = X.copy()
    X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
    return X


def libsvm_options(case):
    """svm-train's option string for a case (-q is not given: the obj lines are needed)."""
    options = {"c_svc": "-s 0", "epsilon_svr": "-s 3"}[case["svm_type"]]
    options += {"linear": " -t 0", "rbf": " -t 2"}[case["kernel"]]
    options += f" -c {case['C']!r}"
    if case["kernel"] != "linear":
        options += f" -g {case['gamma']!r}"
    if case["svm_type"] == "epsilon_svr":
        options += f" -p {case['epsilon']!r}"
    return options + f" -e {TOL!r} -m {CACHE_MB} -h 1"


def printed_objective(text):
    """The sum of the "obj = ..." lines LIBSVM printed, and of its "#iter = " counts."""
    objectives = re.findall(r"obj = (\S+),", text)
    if not objectives:
        raise RuntimeError(f"no 'obj = ...' line in LIBSVM's output:\n{text[-2000:]}")
    n_iter = sum(int(v) for v in re.findall(r"#iter = (\d+)", text))
    return float(sum(float(v) for v in objectives)), n_iter


def kernel_matrix(A, B, case):
    """K(A, B) of the case's kernel, dense."""
    dots = A @ B.T
    dots = dots.toarray() if hasattr(dots, "toarray") else np.asarray(dots)
    if case["kernel"] == "linear":
        return dots
    norm_a = np.asarray(A.multiply(A).sum(axis=1)).ravel() if hasattr(A, "multiply") \
        else np.einsum("ij,ij->i", A, A)
    norm_b = np.asarray(B.multiply(B).sum(axis=1)).ravel() if hasattr(B, "multiply") \
        else np.einsum("ij,ij->i", B, B)
    sq = np.maximum(norm_a[:, None] + norm_b[None, :] - 2.0 * dots, 0.0)
    return np.exp(-case["gamma"] * sq)


def estimator_objective(estimator, case, y):
    """LIBSVM's dual objective of a fitted scikit-learn-style SVC/SVR from its support
    vectors and dual coefficients (summed over the one-vs-one pairs); None when a pair's
    kernel matrix would be too large to compute here.

    C-SVC pair (i, j): 1/2 a'Ka - sum |a| with a the pair's coefficients y_t alpha_t;
    epsilon-SVR: 1/2 b'Kb + eps sum |b| - z'b with b = alpha - alpha*.
    """
    coef = estimator.dual_coef_
    # sparse after a sparse fit, as scikit-learn's
    coef = coef.toarray() if hasattr(coef, "toarray") else np.asarray(coef)
    SV = estimator.support_vectors_
    if case["svm_type"] == "epsilon_svr":
        if SV.shape[0] ** 2 > OBJECTIVE_MAX_ENTRIES:
            return None
        b = coef[0]
        K = kernel_matrix(SV, SV, case)
        z = y[estimator.support_]
        return float(0.5 * b @ K @ b + case["epsilon"] * np.abs(b).sum() - z @ b)
    n_support = np.asarray(estimator.n_support_)
    start = np.concatenate([[0], np.cumsum(n_support)])
    total = 0.0
    k = len(n_support)
    for i in range(k):
        for j in range(i + 1, k):
            rows = np.r_[start[i]:start[i + 1], start[j]:start[j + 1]]
            if len(rows) ** 2 > OBJECTIVE_MAX_ENTRIES:
                return None
            a = np.concatenate([coef[j - 1, start[i]:start[i + 1]],
                                coef[i, start[j]:start[j + 1]]])
            S = SV[rows]
            total += 0.5 * a @ kernel_matrix(S, S, case) @ a - np.abs(a).sum()
    return float(total)


def prepare(library, case, X, y, threads):
    """What a library needs before its clock starts, and the function that trains.

    Returns
    -------
    fit : callable
        fit() trains and returns (predict function, objective, n_sv, n_iter,
        kernel_evaluations or None).
    """
    if library == "libsmo":
        import libsmo
        import libsmo._blocks.support_rows as support_rows

        # libsmo imports its training and prediction code on first use (so that its
        # commands start fast); the other libraries import theirs before their clocks
        # start. blas_dots (sparse rows' prediction) imports scipy.linalg: 37 ms and
        # 8 MB of RSS, so only where prediction may use it: sparse support vectors
        # too wide to be densified (at most every training row is one).
        import libsmo.training._fitting  # noqa: F401
        from libsmo._utils import sparse as _sparse
        if (_sparse.issparse(X)
                and X.shape[0] * X.shape[1] * 8 > support_rows.DENSE_SV_BYTES):
            import libsmo._core.blas_dots  # noqa: F401

        def fit():
            model = libsmo.train(X, y, svm_type=case["svm_type"], kernel=case["kernel"],
                                 C=case["C"], gamma=case.get("gamma"),
                                 epsilon=case.get("epsilon", 0.1), tol=TOL,
                                 cache_size=CACHE_MB, shrinking=True, n_threads=threads)
            return (model.predict, float(sum(model.objective)), int(model.n_sv),
                    int(sum(model.n_iter)),
                    # training's kernel values, for its rate against the BLAS peak
                    int(sum(model.kernel_evaluations)) if model.kernel_evaluations
                    else None)
        return fit
    if library == "libsvm":
        from libsvm.svmutil import svm_parameter, svm_predict, svm_problem, svm_train
        # built before the clock starts, as svm-train reads its file before training
        problem = svm_problem(y, X)
        parameter = svm_parameter(libsvm_options(case))

        def fit():
            with bench_train.captured_fd1() as output:
                model = svm_train(problem, parameter)
            objective, n_iter = printed_objective(output[0])

            def predict(Xt):
                labels, _, _ = svm_predict(np.zeros(Xt.shape[0]), Xt, model, "-q")
                return np.asarray(labels)
            return predict, objective, int(model.get_nr_sv()), n_iter, None
        return fit
    if library == "sklearn":
        from sklearn.svm import SVC, SVR
    else:
        from sklearnex.svm import SVC, SVR
    X = int32_indices(X)
    params = dict(kernel=case["kernel"], C=case["C"], tol=TOL, cache_size=CACHE_MB,
                  shrinking=True,
                  # unused by the linear kernel; given so that "scale" is not computed
                  gamma=case.get("gamma", 1.0))
    if library == "sklearn":
        params["verbose"] = True   # its LIBSVM then prints the "obj = " lines
    else:
        params["n_jobs"] = threads
    kind = SVR if case["svm_type"] == "epsilon_svr" else SVC
    extra = {"epsilon": case["epsilon"]} if kind is SVR else {}
    estimator = kind(**params, **extra)

    def fit():
        if library == "sklearn":
            with bench_train.captured_fd1() as output:
                estimator.fit(X, y)
            objective, _ = printed_objective(output[0])
        else:
            estimator.fit(X, y)
            objective = estimator_objective(estimator, case, y)
        n_iter = int(np.sum(getattr(estimator, "n_iter_", 0)))
        return (estimator.predict, objective, int(estimator.support_.shape[0]), n_iter,
                None)
    return fit


def run_child(job):
    """One measurement: load, train, predict with one library, inside this process.

    Parameters
    ----------
    job : dict
        case (its CASES entry), library, threads, rows, paths, data_dir.

    Returns
    -------
    dict
        Times in seconds, memory in MB, objective, n_sv, n_iter, accuracy or mse, and
        for dense data the multiply-adds of prediction's kernel block.
    """
    case, library, threads = job["case"], job["library"], job["threads"]
    with bench_train.blas_threads(threads):
        X, y, Xt, yt, load_seconds = bench_cases.load_data(job)
        fit = prepare(library, case, X, y, threads)
        gc.collect()
        parts_after_load = rss_parts_mb()
        rss_after_load = current_rss_mb()
        peak_after_load = peak_rss_mb()
        peak_reset = reset_peak_rss()

        start, cpu = time.perf_counter(), time.process_time()
        predict, objective, n_sv, n_iter, kernel_evaluations = fit()
        train_seconds = time.perf_counter() - start
        train_cpu = time.process_time() - cpu

        gc.collect()
        start = time.perf_counter()
        predicted = np.asarray(predict(int32_indices(Xt) if library == "sklearn" else Xt),
                               dtype=np.float64)
        predict_seconds = time.perf_counter() - start
        train_peak = peak_rss_mb()
        parts_after_predict = rss_parts_mb()
        refit_seconds = None
        if train_seconds < REFIT_BELOW_S:
            start = time.perf_counter()
            fit()
            refit_seconds = time.perf_counter() - start

    result = {"library": library, "threads": threads, "load_s": load_seconds,
              "train_s": train_seconds, "train_cpu_s": train_cpu,
              "refit_s": refit_seconds, "predict_s": predict_seconds,
              "objective": objective, "n_sv": n_sv, "n_iter": n_iter,
              "train_rows": int(X.shape[0]), "test_rows": int(Xt.shape[0]),
              "n_features": int(X.shape[1]),
              "rss_after_load_mb": rss_after_load, "train_peak_rss_mb": train_peak,
              "peak_rss_mb": max(peak_after_load, train_peak), "peak_reset": peak_reset}
    if bench_cases.is_dense(case) and case["kernel"] != "linear":
        # K(Xt, SV) once for every pair: n_test x n_SV x d multiply-adds
        result["predict_madds"] = float(Xt.shape[0]) * n_sv * X.shape[1]
    if kernel_evaluations is not None and bench_cases.is_dense(case):
        result["train_madds"] = float(kernel_evaluations) * X.shape[1]
    if parts_after_load is not None and parts_after_predict is not None:
        result["file_pages_added_mb"] = parts_after_predict["file"] - parts_after_load["file"]
        result["anon_added_mb"] = parts_after_predict["anon"] - parts_after_load["anon"]
    if rss_after_load is not None:
        # clamped: the kernel's RSS counters are approximate
        result["memory_mb"] = max(0.0, train_peak - rss_after_load)
    if case["svm_type"] == "epsilon_svr":
        result["mse"] = float(np.mean((predicted - yt) ** 2))
    else:
        result["accuracy"] = 100.0 * float(np.mean(predicted == yt))
    return result


def blas_peak(threads, size=2048, depth=1024, repeats=3):
    """This machine's dense matrix-product rate with numpy's BLAS on `threads` threads:
    the best of `repeats` products of (size x depth) by (depth x size) float64, in
    multiply-adds per second.

    Returns
    -------
    float
    """
    rng = np.random.default_rng(0)
    A = rng.standard_normal((size, depth))
    B = rng.standard_normal((depth, size))
    best = float("inf")
    with bench_train.blas_threads(threads):
        A @ B   # warm up: thread pool, pages
        for _ in range(repeats):
            start = time.perf_counter()
            A @ B
            best = min(best, time.perf_counter() - start)
    return size * size * depth / best
