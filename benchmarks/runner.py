"""run.py's plan: every library at every thread count, repeat after repeat, each run in
a fresh process (`benchmarks.measure`), the order rotated; and the machine it ran on.

Repeat-major: one repeat runs every thread count back to back, so that the speedup of
two threads over one is a ratio of neighbouring runs, not of two stretches of a
drifting machine; the thread counts and the libraries rotate from one repeat to the
next, each going first in turn.
"""
import dataclasses
import datetime
import json
import os
import platform
import subprocess
import sys
from typing import Optional, Tuple

from benchmarks import report
from benchmarks.data import REPO
from benchmarks.peers import LABELS, THREADLESS, dist_version


@dataclasses.dataclass(frozen=True)
class Plan:
    """What run.py runs for every case.

    Attributes
    ----------
    libraries : tuple of str
    threads : tuple of int
        Sorted thread counts; scikit-learn runs only at the first.
    repeats : int
    rows : int or None
        Only the first `rows` training and test rows.
    override : dict
        Test-only: library -> parameters that library trains with instead of the
        case's (run.py's hidden --override), so that a test sees a run of other work
        flagged.
    """
    libraries: Tuple[str, ...]
    threads: Tuple[int, ...]
    repeats: int
    rows: Optional[int] = None
    override: dict = dataclasses.field(default_factory=dict)


def child_environment(threads):
    """The environment of a child: every thread pool held to `threads`, and the
    repository root on the path (the `benchmarks` package; libsmo is the installed one,
    or the one PYTHONPATH names).

    OMP_NUM_THREADS reaches libsvm-official's OpenMP (and libsmo's, whose own count is
    n_threads), read once when the runtime loads: it has to be set before the child
    starts. The BLAS variables back up threadpoolctl.
    """
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                 "BLIS_NUM_THREADS"):
        env[name] = str(threads)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in env.get(
        "PYTHONPATH", "").split(os.pathsep) if p])
    return env


def run_module(module, args, threads, timeout=None):
    """``python -m <module> <args>`` in a fresh interpreter, from the repository root
    (so that no folder of the benchmarks' scripts shadows a package: distributed.py is
    Dask's name), on `threads` threads.

    Returns
    -------
    subprocess.CompletedProcess
        With text stdout and stderr.
    """
    return subprocess.run([sys.executable, "-m", module, *map(str, args)],
                          env=child_environment(threads), cwd=REPO,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout)


def spawn(job, workdir):
    """Run one job of `benchmarks.measure` in a fresh Python process.

    Returns
    -------
    dict
        The child's result, or {"library": ..., "error": text} when it failed.
    """
    tag = f"{job['case_name']}-{job['library']}-{job['threads']}-{job['repeat']}"
    job_path, result_path = workdir / f"{tag}.job.json", workdir / f"{tag}.result.json"
    job_path.write_text(json.dumps(job))
    proc = run_module("benchmarks.measure", [job_path, result_path], job["threads"])
    if proc.returncode != 0 or not result_path.exists():
        return {"library": job["library"], "threads": job["threads"],
                "error": f"exit {proc.returncode}: {proc.stderr.strip()[-3000:]}"}
    return json.loads(result_path.read_text())


def progress(name, repeat, result):
    """One line per run, so that a long benchmark shows where it is."""
    lib = LABELS[result["library"]]
    where = f"[{name} T={result.get('threads')}] run {repeat + 1} {lib:9s}"
    if "error" in result:
        # the error's last line says what went wrong; the JSON keeps the traceback
        last = (result["error"].strip().splitlines() or ["?"])[-1]
        print(f"  {where}: FAILED ({last})", flush=True)
        return
    fmt = report.fmt
    metric = (f"MSE {result['mse']:.4f}" if "mse" in result
              else f"accuracy {result['accuracy']:.2f}%")
    print(f"  {where}: load {result['load_s']:.2f} s, train {result['train_s']:.2f} s "
          f"(CPU {result['train_cpu_s']:.2f})"
          + (f", again {result['refit_s'] * 1e3:.2f} ms" if result.get("refit_s") is not None
             else "") + f", predict {result['predict_s']:.2f} s, obj "
          f"{fmt(result['objective'], '.6f')}, nSV {result['n_sv']}, {metric}, memory "
          f"+{fmt(result.get('memory_mb'), '.1f')} MB (peak {result['peak_rss_mb']:.0f} "
          f"MB; at the end file pages +{fmt(result.get('file_pages_added_mb'), '.2f')} "
          f"MB, anonymous {fmt(result.get('anon_added_mb'), '+.2f')} MB)", flush=True)


def run_case(case, plan, paths, workdir, peaks, spawn=spawn, progress=progress):
    """Every library of the plan at every thread count, repeat after repeat.

    Parameters
    ----------
    case : benchmarks.cases.Case
    plan : Plan
    paths : dict
        The case's files (`cases.data_paths`).
    workdir : pathlib.Path
        Where the jobs and results are written.
    peaks : dict
        str(threads) -> numpy's BLAS rate (dense cases' last column).
    spawn, progress : callables
        How a job runs and is announced (a test gives its own).

    Returns
    -------
    (list of dict, bool)
        The summaries (one per thread count, `report.summarize`) and whether a run
        failed.
    """
    failed = False
    threads_list = list(plan.threads)
    libraries = list(plan.libraries)
    runs = {threads: {lib: [] for lib in libraries} for threads in threads_list}
    for repeat in range(plan.repeats):
        shift_threads = repeat % len(threads_list)
        shift = repeat % len(libraries)
        for threads in threads_list[shift_threads:] + threads_list[:shift_threads]:
            for lib in libraries[shift:] + libraries[:shift]:
                if lib in THREADLESS and threads != threads_list[0]:
                    continue   # its runs at the first count stand for every count
                job = {"case_name": case.name, "case": case.to_dict(), "library": lib,
                       "repeat": repeat, "threads": threads, "rows": plan.rows,
                       "paths": paths, "override": plan.override}
                result = spawn(job, workdir)
                result["repeat"] = repeat
                failed |= "error" in result
                runs[threads][lib].append(result)
                progress(case.name, repeat, result)
    for threads in threads_list[1:]:
        for lib in THREADLESS:
            if lib in runs[threads]:
                runs[threads][lib] = runs[threads_list[0]][lib]
    summaries = report.summarize_case(case, runs, peaks)
    return summaries, failed


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


def machine_info(plan):
    """Platform, CPU, versions and the run's settings, for the JSON and the table."""
    version = dist_version
    return {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "platform": platform.platform(), "cpu_model": cpu_model(),
            "cpu_count": os.cpu_count(), "python": platform.python_version(),
            "numpy": version("numpy"), "libsmo": version("libsmo"),
            "libsvm-official": version("libsvm-official"),
            "scikit-learn": version("scikit-learn"),
            "scikit-learn-intelex": version("scikit-learn-intelex"),
            "threadpoolctl": version("threadpoolctl"),
            "threads": list(plan.threads), "repeats": plan.repeats,
            "rows_limit": plan.rows, "libraries": list(plan.libraries),
            "override": plan.override or None,
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None}
