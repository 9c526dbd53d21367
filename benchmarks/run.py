"""libsmo, LIBSVM (libsvm-official), scikit-learn and scikit-learn-intelex side by side.

    python benchmarks/run.py                                  # every case, 3 runs each
    python benchmarks/run.py --cases a9a,letter --repeats 5 --threads 1,2
    python benchmarks/run.py --cases a9a,housing --rows 400 --repeats 1 --threads 1

The code is the `benchmarks` package beside this file: `runner` (the plan, one fresh
process per run), `measure` (one run of one library: load, train, predict, memory),
`peers/` (each library prepared and fitted the same way), `objective` (every run's
dual objective from its dual coefficients), `agreement` and `report` (medians, ratios,
the work behind them, tables).

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

Cases (``benchmarks.cases.CASES``): a9a (RBF), a9a-linear, w8a, ijcnn1 (ijcnn1.val split
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
  own reader (the peer module's ``reader()``): ``libsmo.load_svmlight_file``,
  ``sklearn.datasets.load_svmlight_file`` (scikit-learn-intelex too), libsvm-official's
  ``svm_read_problem(..., return_scipy=True)``; for the reviews, the CSV reading and
  TF-IDF, which is the same code for all three (so no load ratio is given there).
  scikit-learn's reader returns int64 index arrays that its SVC/SVR then refuse, so its
  reader casts them to int32 (a copy a user pays, timed with the load);
- train seconds (wall, ``perf_counter``) and train CPU seconds (``process_time``: all
  threads of the process; less sensitive than wall time to other work on a shared
  machine). LIBSVM's svm_problem is built from the CSR matrix before the clock starts,
  since svm-train would have read it from the file;
- second-fit seconds: for a fit under REFIT_BELOW_S (2 s), the same fit once more in the
  same process, after prediction. The first fit of a fresh process also pays for
  mapping the code it runs and warming caches, which on a millisecond problem is a
  large part of it; the second is what a user pays in a loop (cross-validation, a grid
  search). The train ratio stays the first fit's;
- predict seconds on the test rows (LIBSVM's svm_predict converts each row in Python,
  which is part of what its Python users pay);
- the dual objective, computed for every library the same way from its support vectors
  and dual coefficients (`benchmarks.objective`: 1/2 a'Ka - sum |a| for each
  one-vs-one pair, 1/2 b'Kb + eps sum |b| - z'b for SVR), after every clock has
  stopped; libsmo's and LIBSVM's own reported objectives are kept beside it in the JSON;
- support vectors, SMO iterations (summed over pairs), test accuracy in % (MSE for
  regression);
- memory: each (case, library, run) runs in a fresh child process
  (``python -m benchmarks.measure``), which loads the data, then trains and predicts.
  The child reports its RSS after loading (``/proc/self/statm``), the peak RSS of
  training and prediction (``ru_maxrss`` after the kernel's peak counter is reset
  through /proc/self/clear_refs once the data are loaded; where that is not possible
  the peak is over the whole child and so may be the loader's) and the absolute peak of
  the child, imports included.
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
cancels some of the machine's drift).

The work behind every ratio
---------------------------
Every run of every library, every repeat and every thread count, is held against the
case's reference run (libsmo's first): objectives within 1e-4 (relative), support
vectors within 2%, accuracy within 0.2 points (MSE within 1e-3, relative)
(`benchmarks.agreement`). The tables show, per case, each library's objective, its
largest difference to the reference, and the nSV and accuracy of every run; a ratio one
of whose runs did other work is marked FLAGGED, the flags are listed under the tables,
and the script exits with status 1 (as it does when a run fails).

Output: <out>/latest.json (every raw run, medians, ratios and the machine: platform, CPU
model, cores, versions, date) and <out>/latest.md (the summary table, also printed).
``--table-from <json>`` writes the table of an earlier run again from its raw runs. The
table gives two memory ratios: added memory (the training peak minus the RSS after
loading) and peak memory (the training peak itself, with the process and its data).
The data are $LIBSMO_DATA_DIR/<name>.xz (default ../shared/data), decompressed once into
$LIBSMO_DATA_CACHE (default: $TMPDIR/libsmo-data-cache) by ``benchmarks.data``.
"""
import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

if not __package__:
    # run as a file (python benchmarks/run.py): the repository root on the path, for
    # the benchmarks package, instead of this folder (distributed.py is Dask's name)
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import cases, options, report, runner  # noqa: E402
from benchmarks.peers import LIBRARIES  # noqa: E402

HERE = Path(__file__).resolve().parent
CASES = cases.CASES


def override_option(text):
    """argparse type of the hidden --override LIBRARY:PARAM=VALUE[,PARAM=VALUE]: one
    library trains with other parameters (a test's deliberately different run)."""
    library, _, changes = text.partition(":")
    if library not in LIBRARIES or not changes:
        raise argparse.ArgumentTypeError(f"LIBRARY:PARAM=VALUE, got {text!r}")
    values = {}
    for change in changes.split(","):
        key, _, value = change.partition("=")
        if key not in ("C", "gamma", "epsilon"):
            raise argparse.ArgumentTypeError(f"C, gamma or epsilon, got {key!r}")
        values[key] = float(value)
    return library, values


def table_from(json_path, out):
    """Recompute the summaries of an earlier run from its raw runs and write its table.

    Returns
    -------
    int
        1 when a ratio is flagged (a run did other work) or a run failed, else 0.
    """
    saved = json.loads(Path(json_path).read_text())
    summaries = report.summaries_from_saved(saved)
    table = report.markdown(summaries, saved["machine"])
    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.md").write_text(table)
    print(table)
    failed = any("error" in run for s in summaries for rs in s["runs"].values()
                 for run in rs)
    return 1 if failed or report.flags(summaries) else 0


def main(argv=None):
    """Run the benchmark; returns the exit status (1 when a run failed or a ratio is
    flagged)."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--cases", type=options.name_list(list(CASES)), default=list(CASES),
                        help=f"comma-separated subset of: {','.join(CASES)}")
    parser.add_argument("--libraries", type=options.name_list(LIBRARIES),
                        default=list(LIBRARIES),
                        help=f"comma-separated subset of: {','.join(LIBRARIES)}")
    parser.add_argument("--repeats", type=options.positive_int, default=3,
                        help="runs of each library per case; medians are reported")
    parser.add_argument("--rows", type=options.positive_int, default=None,
                        help="use only the first ROWS training and ROWS test rows "
                             "(a quick smoke run)")
    parser.add_argument("--threads", type=options.thread_list, default=[1, 2],
                        help="thread counts for every library with threads (and BLAS)")
    parser.add_argument("--out", type=Path, default=HERE / "results",
                        help="folder of latest.json and latest.md")
    options.data_dir_option(parser)
    parser.add_argument("--table-from", type=Path, default=None, metavar="JSON",
                        help="run nothing: write the table of an earlier run's JSON "
                             "again (medians, ratios and agreement recomputed from its "
                             "raw runs)")
    # test-only: one library trains with other parameters, so that a test can see a
    # run of other work flagged and the exit status 1
    parser.add_argument("--override", type=override_option, action="append", default=[],
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.table_from is not None:
        return table_from(args.table_from, args.out)

    plan = runner.Plan(libraries=tuple(args.libraries), threads=tuple(args.threads),
                       repeats=args.repeats, rows=args.rows, override=dict(args.override))
    info = runner.machine_info(plan)
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
        if any(CASES[name].dense for name in args.cases):
            for threads in args.threads:
                result = runner.spawn({"case_name": "blas", "library": "numpy",
                                       "repeat": 0, "threads": threads,
                                       "blas_peak": True}, workdir)
                if "blas_peak" in result:
                    peaks[str(threads)] = result["blas_peak"]
            info["blas_peak"] = peaks
        for name in args.cases:
            case = CASES[name]
            paths = cases.data_paths(case, args.data_dir)
            print(f"\n== {name}: {case.describe()} ==", flush=True)
            case_summaries, case_failed = runner.run_case(case, plan, paths, workdir, peaks)
            summaries += case_summaries
            failed |= case_failed
            # written after every case, so that a long run keeps what it has measured
            info["wall_seconds"] = time.perf_counter() - started
            (args.out / "latest.json").write_text(
                json.dumps({"machine": info, "cases": summaries}, indent=2) + "\n")
    table = report.markdown(summaries, info)
    (args.out / "latest.md").write_text(table)
    print("\n" + table)
    print(f"wall time {info['wall_seconds']:.0f} s; written: {args.out / 'latest.json'}, "
          f"{args.out / 'latest.md'}")
    flagged = report.flags(summaries)
    if flagged:
        print(f"{len(flagged)} flag(s): a ratio above compares runs that did other work",
              file=sys.stderr)
    return 1 if failed or flagged else 0


if __name__ == "__main__":
    sys.exit(main())
