"""Time repeated libsmo fits of one benchmark case inside a single process.

    python benchmarks/fit_loop.py letter --repeats 5
    perf record -F 5000 python benchmarks/fit_loop.py letter --repeats 3
    python benchmarks/fit_loop.py a9a --predict --repeats 5 --threads 2
    python benchmarks/fit_loop.py reviews --threads 2 --busy 1   # beside a busy core

run.py measures each fit in a fresh process, as a user's first fit; this loop loads the
case's data once (bench_cases.py's loader and split) and fits it again and again with run.py's
parameters, on --threads threads (default one), which is what a profiler or an A/B
comparison of two builds wants. It prints the median and minimum seconds, the objective and the SMO steps (which
must not move when only speed changed). With --predict it fits once and times the
prediction of the case's test rows instead, again and again (median, minimum, accuracy).
With --busy N, N processes spin on the CPU while the loop is timed: a machine that
another program keeps busy, where threads that wait for each other at every row suffer
most.
"""
import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_cases  # noqa: E402
import bench_fit  # noqa: E402
import bench_train  # noqa: E402
import run  # noqa: E402


def main(argv=None):
    """Run the loop; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=list(bench_cases.CASES))
    parser.add_argument("--repeats", type=run.positive_int, default=5)
    parser.add_argument("--threads", type=run.positive_int, default=1)
    parser.add_argument("--data-dir", type=Path, default=bench_train.DEFAULT_DATA_DIR)
    parser.add_argument("--predict", action="store_true",
                        help="fit once, then time the prediction of the test rows")
    parser.add_argument("--busy", type=int, default=0, metavar="N",
                        help="N processes keep a core busy while the loop is timed")
    args = parser.parse_args(argv)
    if args.busy < 0:
        parser.error("--busy must be 0 or more")
    case = bench_cases.CASES[args.case]
    job = dict(case=case, library="libsmo", rows=None, data_dir=str(args.data_dir),
               paths=bench_cases.data_paths(case, args.data_dir))
    X, y, Xt, yt, _ = bench_cases.load_data(job)
    fit = bench_fit.prepare("libsmo", case, X, y, args.threads)
    busy = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for process in busy:
        process.start()
    try:
        return _timed(args, fit, Xt, yt)
    finally:
        for process in busy:
            process.terminate()
            process.join()


def _spin():
    """Keep one core busy until terminated (--busy)."""
    while True:
        pass


def _timed(args, fit, Xt, yt):
    """The loop of fits or predictions; prints the summary and returns 0."""
    seconds = []
    if args.predict:
        with bench_train.blas_threads(args.threads):
            predict = fit()[0]
            for _ in range(args.repeats):
                start = time.perf_counter()
                predicted = predict(Xt)
                seconds.append(time.perf_counter() - start)
        print(f"{args.case}: {args.repeats} predictions of {Xt.shape[0]} rows, median "
              f"{statistics.median(seconds):.4f} s, min {min(seconds):.4f} s; "
              f"accuracy {100 * (predicted == yt).mean():.2f}%")
        return 0
    with bench_train.blas_threads(args.threads):
        for _ in range(args.repeats):
            start = time.perf_counter()
            _, objective, n_sv, n_iter, _ = fit()
            seconds.append(time.perf_counter() - start)
    print(f"{args.case}: {args.repeats} fits, median {statistics.median(seconds):.4f} s, "
          f"min {min(seconds):.4f} s; objective {objective:.6f}, nSV {n_sv}, "
          f"steps {n_iter}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
