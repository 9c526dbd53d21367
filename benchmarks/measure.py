"""One run of run.py: load a case's data, train and predict with one library, inside
this (fresh) process, and report times, memory and the answer.

    python -m benchmarks.measure JOB.json RESULT.json

The job (JSON, written by `benchmarks.runner`) names the case, the library, the thread
count, the files and an optional row limit. The result holds the times (wall and CPU),
the memory, and what shows the work: the dual objective computed from the fit's
coefficients (`benchmarks.objective`, after every clock has stopped), the library's own
reported objective where it has one, the support vectors, the solver's steps and the
test accuracy (MSE for regression).
"""
import gc
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks import objective
from benchmarks.cases import Case, load_case
from benchmarks.peers import peer

# A fit shorter than this is timed a second time in the same process, after prediction.
# The first fit of a fresh process also pays for mapping the code it runs, which on a
# millisecond problem is a large part of it; the second shows the steady cost.
REFIT_BELOW_S = 2.0


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


def blas_threads(n):
    """Hold numpy's and scipy's BLAS to n threads (threadpoolctl); a no-op context
    when threadpoolctl is missing."""
    import contextlib
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=n, user_api="blas")


# ----------------------------------------------------------------------- the run

def job_case(job):
    """The job's case, with the job's test-only changes of parameters (`override`:
    run.py's hidden --override, which makes one library solve another problem, so
    that a test can see the report refuse the ratio)."""
    case = Case.from_dict(job["case"], job.get("case_name"))
    changes = job.get("override", {}).get(job["library"])
    return case.replace(**changes) if changes else case


def run_child(job):
    """One measurement: load, train, predict with one library, inside this process.

    Parameters
    ----------
    job : dict
        case (its fields), case_name, library, threads, rows, paths.

    Returns
    -------
    dict
        Times in seconds, memory in MB, objective, reported_objective, n_sv, n_iter,
        accuracy or mse, and for dense data the multiply-adds of prediction's kernel block.
    """
    library, threads = job["library"], job["threads"]
    case = job_case(job)
    module = peer(library)
    with blas_threads(threads):
        read = module.reader()   # imported before the clock starts
        X, y, Xt, yt, load_seconds = load_case(case, job["paths"], read, job["rows"])
        fit = module.prepare(case, X, y, threads)
        gc.collect()
        parts_after_load = rss_parts_mb()
        rss_after_load = current_rss_mb()
        peak_after_load = peak_rss_mb()
        peak_reset = reset_peak_rss()

        start, cpu = time.perf_counter(), time.process_time()
        answer = fit()
        train_seconds = time.perf_counter() - start
        train_cpu = time.process_time() - cpu

        gc.collect()
        start = time.perf_counter()
        predicted = np.asarray(answer.predict(Xt), dtype=np.float64)
        predict_seconds = time.perf_counter() - start
        train_peak = peak_rss_mb()
        parts_after_predict = rss_parts_mb()
        refit_seconds = None
        if train_seconds < REFIT_BELOW_S:
            start = time.perf_counter()
            fit()
            refit_seconds = time.perf_counter() - start
        # every clock has stopped: the objective from the coefficients, the same
        # computation for every library
        dual = objective.case_objective(answer, X, y, case)

    result = {"library": library, "threads": threads, "load_s": load_seconds,
              "train_s": train_seconds, "train_cpu_s": train_cpu,
              "refit_s": refit_seconds, "predict_s": predict_seconds,
              "objective": dual, "reported_objective": answer.reported_objective,
              "n_sv": answer.n_sv, "n_iter": answer.n_iter,
              "train_rows": int(X.shape[0]), "test_rows": int(Xt.shape[0]),
              "n_features": int(X.shape[1]),
              "rss_after_load_mb": rss_after_load, "train_peak_rss_mb": train_peak,
              "peak_rss_mb": max(peak_after_load, train_peak), "peak_reset": peak_reset}
    if case.dense and case.kernel != "linear":
        # K(Xt, SV) once for every pair: n_test x n_SV x d multiply-adds
        result["predict_madds"] = float(Xt.shape[0]) * answer.n_sv * X.shape[1]
    if answer.kernel_evaluations is not None and case.dense:
        result["train_madds"] = float(answer.kernel_evaluations) * X.shape[1]
    if parts_after_load is not None and parts_after_predict is not None:
        result["file_pages_added_mb"] = parts_after_predict["file"] - parts_after_load["file"]
        result["anon_added_mb"] = parts_after_predict["anon"] - parts_after_load["anon"]
    if rss_after_load is not None:
        # clamped: the kernel's RSS counters are approximate
        result["memory_mb"] = max(0.0, train_peak - rss_after_load)
    if case.svm_type == "epsilon_svr":
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
    with blas_threads(threads):
        A @ B   # warm up: thread pool, pages
        for _ in range(repeats):
            start = time.perf_counter()
            A @ B
            best = min(best, time.perf_counter() - start)
    return size * size * depth / best


def main(argv=None):
    """Entry point of a child process: read the job, run it, write the result as JSON."""
    job_path, result_path = argv if argv is not None else sys.argv[1:]
    job = json.loads(Path(job_path).read_text())
    if job.get("blas_peak"):
        result = {"blas_peak": blas_peak(job["threads"])}
    else:
        result = run_child(job)
    Path(result_path).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
