"""libsmo, LIBSVM (libsvm-official), scikit-learn and scikit-learn-intelex side by side.

    python benchmarks/run.py                                  # every case, 3 runs each
    python benchmarks/run.py --cases a9a,letter --repeats 5 --threads 1,2
    python benchmarks/run.py --cases a9a,housing --rows 400 --repeats 1 --threads 1

The code is in four files: this one (the command, the plan, one fresh process per
run), bench_cases.py (the cases and their data), bench_fit.py (one run of one library:
load, train, predict, memory) and bench_report.py (medians, ratios, tables).

What is compared
----------------
Each case trains the same formulation on the same data with the same parameters in the
libraries: tol 1e-3 (LIBSVM's -e 0.001), a 100 MB kernel cache (-m 100), shrinking on
(-h 1), and the same thread count T (--threads: one or more counts, default 1 and 2;
every case runs at each):

- libsmo: ``libsmo.train(..., n_threads=T)``;
- libsvm-official: OpenMP threads through OMP_NUM_THREADS=T, which must be in the
  environment before libsvm's shared library is loaded, so it is set in the child
  process's environment (see "How" below);
- scikit-learn: ``sklearn.svm.SVC`` / ``SVR``, whose bundled LIBSVM has no threads at all:
  it runs once, at the smallest T, and those runs stand at every thread count;
- scikit-learn-intelex: ``sklearnex.svm.SVC`` / ``SVR`` (oneDAL's solver) with n_jobs=T.

Ratios are given against each peer and against the fastest peer at the same thread
count (the peer with the smallest median training time, prediction time or peak
memory). For the dense cases (Fashion-MNIST) the tables also give the rate of the kernel
arithmetic, multiply-adds of the prediction block (n_test x n_SV x d) and, when the
model reports its kernel evaluations, of training's kernel rows, as a fraction of
numpy's dense matrix-product rate measured at the same thread count.

numpy's BLAS is held to T threads in every child (threadpoolctl, plus the
OPENBLAS/MKL/OMP environment variables for any library threadpoolctl does not see).

Cases (``bench_cases.CASES``): a9a (RBF), a9a-linear, w8a, ijcnn1 (ijcnn1.val split
70/30), reviews (TF-IDF of the Women's Clothing E-Commerce Reviews, built by
examples/text_reviews.py's own functions, split 70/30 as that example does), sector
(linear, 105 classes), letter (RBF, 26 classes), pendigits (RBF, 10 classes, features
scaled to [0, 1]), housing (epsilon-SVR, scored by MSE), fashion-12k and fashion
(Fashion-MNIST, dense 784 pixels in [0, 1], 10 classes, RBF C=10 gamma=1/(784 var X):
the first 12,000 and all 60,000 training images, tested on the 10,000 test images).
Splits use a fixed seed.

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
  LIBSVM's and scikit-learn's "obj = ..." lines (printed from C, so file descriptor 1 is
  captured while they train, with bench_train.py's ``captured_fd1``; scikit-learn prints
  them with verbose=True), summed; for scikit-learn-intelex, computed from its support
  vectors and dual coefficients where that kernel matrix is small enough (else None);
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
shared machine fall on each of them in turn; one repeat runs every thread count back to
back (the counts rotated too), and the speedup of more threads is the median of the
per-repeat ratios of neighbouring runs. Reported times are medians over the runs;
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
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# bench_train.py (decompress, load, captured_fd1) and the other bench_* modules are
# imported from this folder; the repository root is not put on the path, since its
# libsmo/ source folder would shadow the installed package
sys.path.insert(0, str(HERE))
import bench_cases  # noqa: E402
import bench_fit  # noqa: E402
import bench_report  # noqa: E402
import bench_train  # noqa: E402

CASES = bench_cases.CASES
LIBRARIES = bench_report.LIBRARIES


def child_main(job_path, result_path):
    """Entry point of a child process: read the job, run it, write the result as JSON."""
    job = json.loads(Path(job_path).read_text())
    if job.get("blas_peak"):
        result = {"blas_peak": bench_fit.blas_peak(job["threads"])}
    else:
        result = bench_fit.run_child(job)
    Path(result_path).write_text(json.dumps(result))


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
    tag = f"{job['case_name']}-{job['library']}-{job['threads']}-{job['repeat']}"
    job_path, result_path = workdir / f"{tag}.job.json", workdir / f"{tag}.result.json"
    job_path.write_text(json.dumps(job))
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", str(job_path),
         str(result_path)],
        env=child_environment(job["threads"]), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0 or not result_path.exists():
        return {"library": job["library"], "threads": job["threads"],
                "error": f"exit {proc.returncode}: {proc.stderr.strip()[-3000:]}"}
    return json.loads(result_path.read_text())


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
            "numpy": version("numpy"), "libsmo": version("libsmo"),
            "libsvm-official": version("libsvm-official"),
            "scikit-learn": version("scikit-learn"),
            "scikit-learn-intelex": version("scikit-learn-intelex"),
            "threadpoolctl": version("threadpoolctl"),
            "threads": args.threads, "repeats": args.repeats, "rows_limit": args.rows,
            "libraries": args.libraries,
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None}


def progress(name, repeat, result):
    """One line per run, so that a long benchmark shows where it is."""
    lib = bench_report.LABELS[result["library"]]
    where = f"[{name} T={result.get('threads')}] run {repeat + 1} {lib:9s}"
    if "error" in result:
        # the error's last line says what went wrong; the JSON keeps the traceback
        last = result["error"].strip().splitlines()[-1]
        print(f"  {where}: FAILED ({last})", flush=True)
        return
    fmt = bench_report.fmt
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


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def thread_list(text):
    """argparse type: one or more thread counts, comma-separated, e.g. "1,2"."""
    try:
        counts = sorted({positive_int(t) for t in text.split(",") if t.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"thread counts are positive integers: {text}")
    if not counts:
        raise argparse.ArgumentTypeError("give at least one thread count")
    return counts


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

    Returns
    -------
    int
        0.
    """
    saved = json.loads(Path(json_path).read_text())
    peaks = saved["machine"].get("blas_peak") or {}
    summaries = [bench_report.summarize(c["case"], c["params"], c["runs"],
                                        c.get("threads"), peaks.get(str(c.get("threads"))))
                 for c in saved["cases"]]
    table = bench_report.markdown(summaries, saved["machine"])
    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.md").write_text(table)
    print(table)
    return 0


def run_case(name, args, paths, workdir, peaks):
    """Every library at every thread count; returns the summaries (one per thread
    count) and whether a run failed.

    Repeat-major: one repeat runs every thread count back to back, so that the
    speedup of two threads over one is a ratio of neighbouring runs, not of two
    stretches of a drifting machine; the thread counts and the libraries rotate from
    one repeat to the next, each going first in turn."""
    case = CASES[name]
    failed = False
    runs = {threads: {lib: [] for lib in args.libraries} for threads in args.threads}
    for repeat in range(args.repeats):
        shift_threads = repeat % len(args.threads)
        shift = repeat % len(args.libraries)
        for threads in args.threads[shift_threads:] + args.threads[:shift_threads]:
            for lib in args.libraries[shift:] + args.libraries[:shift]:
                if lib in bench_report.THREADLESS and threads != args.threads[0]:
                    continue   # its runs at the first count stand for every count
                job = {"case_name": name, "case": case, "library": lib,
                       "repeat": repeat, "threads": threads, "rows": args.rows,
                       "paths": paths, "data_dir": str(args.data_dir)}
                result = spawn(job, workdir)
                failed |= "error" in result
                runs[threads][lib].append(result)
                progress(name, repeat, result)
    for threads in args.threads[1:]:
        for lib in bench_report.THREADLESS:
            if lib in runs[threads]:
                runs[threads][lib] = runs[args.threads[0]][lib]
    summaries = [bench_report.summarize(name, case, runs[threads], threads,
                                        peaks.get(str(threads)))
                 for threads in args.threads]
    return summaries, failed


def main(argv=None):
    """Run the benchmark; returns the exit status (1 when a run failed)."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--cases", type=name_list(list(CASES)), default=list(CASES),
                        help=f"comma-separated subset of: {','.join(CASES)}")
    parser.add_argument("--libraries", type=name_list(LIBRARIES), default=list(LIBRARIES),
                        help=f"comma-separated subset of: {','.join(LIBRARIES)}")
    parser.add_argument("--repeats", type=positive_int, default=3,
                        help="runs of each library per case; medians are reported")
    parser.add_argument("--rows", type=positive_int, default=None,
                        help="use only the first ROWS training and ROWS test rows "
                             "(a quick smoke run)")
    parser.add_argument("--threads", type=thread_list, default=[1, 2],
                        help="thread counts for every library with threads (and BLAS)")
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
          f"scikit-learn {info['scikit-learn']}, scikit-learn-intelex "
          f"{info['scikit-learn-intelex']}; {info['cpu_model']}, {info['cpu_count']} "
          f"cores; threads {args.threads}; {args.repeats} run(s); cases "
          f"{','.join(args.cases)}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    summaries, failed = [], False
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="libsmo-bench-") as workdir:
        workdir = Path(workdir)
        peaks = {}
        if any(bench_cases.is_dense(CASES[name]) for name in args.cases):
            for threads in args.threads:
                result = spawn({"case_name": "blas", "library": "numpy", "repeat": 0,
                                "threads": threads, "blas_peak": True}, workdir)
                if "blas_peak" in result:
                    peaks[str(threads)] = result["blas_peak"]
            info["blas_peak"] = peaks
        for name in args.cases:
            paths = bench_cases.data_paths(CASES[name], args.data_dir)
            print(f"\n== {name}: {bench_cases.describe(CASES[name])} ==", flush=True)
            case_summaries, case_failed = run_case(name, args, paths, workdir, peaks)
            summaries += case_summaries
            failed |= case_failed
            # written after every case, so that a long run keeps what it has measured
            info["wall_seconds"] = time.perf_counter() - started
            (args.out / "latest.json").write_text(
                json.dumps({"machine": info, "cases": summaries}, indent=2) + "\n")
    table = bench_report.markdown(summaries, info)
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
