"""Q rows computed together on a cache miss against one at a time, on Fashion-MNIST.

libsmo.train on the first --rows Fashion-MNIST training images (RBF, C=10,
gamma=0.010235; 10 classes, or with --binary classes 0-4 against 5-9), alternating in
one process between RowPaths(rows_together=1) and each of --together, with
rows_together_min_bytes set to 0 so that every size is tried. Prints each fit (seconds,
objective, steps: the objective and the steps must not move, else the ratios are
FLAGGED and the script exits with status 1) and the medians with their ratio to one
row at a time. This is the measurement behind RowPaths' defaults
(libsmo.training._params).

    python benchmarks/rows_together.py --rows 12000 --together 4,8,16
    python benchmarks/rows_together.py --rows 3000 --binary --threads 2
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import data  # noqa: E402


def main(argv=None):
    """Run the comparison; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=12000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--together", default="8",
                        help="comma-separated rows computed together (default 8)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--binary", action="store_true")
    args = parser.parse_args(argv)
    from libsmo.training import TrainParams, fit
    from libsmo.training._params import RowPaths
    X, y, _, _ = data.load_fashion(args.rows)
    if args.binary:
        y = (y >= 5).astype(float) * 2 - 1
    values = [1] + [int(v) for v in args.together.split(",")]
    times = {v: [] for v in values}
    works = set()
    for _ in range(args.repeats):
        for v in values:
            params = TrainParams.from_kwargs(
                C=10.0, gamma=0.010235, cache_size=200, n_threads=args.threads,
                row_paths=RowPaths(rows_together=v, rows_together_min_bytes=0))
            start = time.perf_counter()
            model = fit(X, y, params)
            times[v].append(time.perf_counter() - start)
            # the objective LIBSVM's arithmetic gives is the same bits on every path
            works.add((float(sum(model.objective)), int(sum(model.n_iter))))
            print(f"rows together {v:2d}: {times[v][-1]:.3f} s, objective "
                  f"{sum(model.objective):.6f}, steps {sum(model.n_iter)}", flush=True)
    one = statistics.median(times[1])
    flag = "" if len(works) == 1 else " (FLAGGED: the fits did different work)"
    for v in values:
        median = statistics.median(times[v])
        print(f"rows together {v:2d}: median {median:.3f} s, ratio {median / one:.3f}"
              f"{flag}")
    return 0 if len(works) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
