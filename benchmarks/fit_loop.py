"""Time repeated libsmo fits of one benchmark case inside a single process.

    python benchmarks/fit_loop.py letter --repeats 5
    perf record -F 5000 python benchmarks/fit_loop.py letter --repeats 3
    python benchmarks/fit_loop.py a9a --predict --repeats 5 --threads 2
    python benchmarks/fit_loop.py reviews --threads 2 --busy 1   # beside a busy core

run.py measures each fit in a fresh process, as a user's first fit; this loop loads the
case's data once (`benchmarks.cases`' reader and split) and fits it again and again
with run.py's parameters (`benchmarks.peers.libsmo`), on --threads threads (default
one), which is what a profiler or an A/B comparison of two builds wants. It prints the
median and minimum seconds, the dual objective from the last fit's coefficients, nSV
and the SMO steps (which must not move when only speed changed: a fit whose steps or
objective differ from the first's ends the script with status 1). With --predict it fits once and times the
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

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import cases, objective, options  # noqa: E402
from benchmarks.measure import blas_threads  # noqa: E402
from benchmarks.peers import libsmo as libsmo_peer  # noqa: E402


def main(argv=None):
    """Run the loop; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=list(cases.CASES))
    parser.add_argument("--repeats", type=options.positive_int, default=5)
    parser.add_argument("--threads", type=options.positive_int, default=1)
    options.data_dir_option(parser)
    parser.add_argument("--predict", action="store_true",
                        help="fit once, then time the prediction of the test rows")
    parser.add_argument("--busy", type=int, default=0, metavar="N",
                        help="N processes keep a core busy while the loop is timed")
    args = parser.parse_args(argv)
    if args.busy < 0:
        parser.error("--busy must be 0 or more")
    case = cases.CASES[args.case]
    X, y, Xt, yt, _ = cases.load_case(case, cases.data_paths(case, args.data_dir),
                                      libsmo_peer.reader())
    fit = libsmo_peer.prepare(case, X, y, args.threads)
    busy = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for process in busy:
        process.start()
    try:
        return _timed(args, case, fit, X, y, Xt, yt)
    finally:
        for process in busy:
            process.terminate()
            process.join()


def _spin():
    """Keep one core busy until terminated (--busy)."""
    while True:
        pass


def _timed(args, case, fit, X, y, Xt, yt):
    """The loop of fits or predictions; prints the summary and returns the status."""
    seconds = []
    if args.predict:
        with blas_threads(args.threads):
            predict = fit().predict
            for _ in range(args.repeats):
                start = time.perf_counter()
                predicted = predict(Xt)
                seconds.append(time.perf_counter() - start)
        print(f"{args.case}: {args.repeats} predictions of {Xt.shape[0]} rows, median "
              f"{statistics.median(seconds):.4f} s, min {min(seconds):.4f} s; "
              f"accuracy {100 * (predicted == yt).mean():.2f}%")
        return 0
    works = set()
    with blas_threads(args.threads):
        for _ in range(args.repeats):
            start = time.perf_counter()
            answer = fit()
            seconds.append(time.perf_counter() - start)
            works.add((answer.reported_objective, answer.n_iter, answer.n_sv))
    dual = objective.case_objective(answer, X, y, case)
    print(f"{args.case}: {args.repeats} fits, median {statistics.median(seconds):.4f} s, "
          f"min {min(seconds):.4f} s; objective {dual:.6f}, nSV {answer.n_sv}, "
          f"steps {answer.n_iter}")
    if len(works) > 1:
        print(f"the fits did different work: {sorted(works)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
