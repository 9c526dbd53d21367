"""Rows of dot products over 8-bit rows: AVX-512 VNNI against the int16 loops.

Fashion-MNIST's first --rows training images (pixels / 255, kept as uint8 rows: the
kernel's `Rows` with int_rows=True), one thread. Alternating in one process between
`libsmo._core.int_rows.VNNI_BYTE_DOTS` True and False:

1. passes over every row: one source (a full cache's miss) and --sources sources (a
   cache with free room), medians of --repeats passes; the values must be the same
   bits both ways, else the ratios are FLAGGED and the script exits with status 1;
2. with --fit: `libsmo.train` on tops (classes 0, 2, 4, 6) against the rest, RBF C=10,
   gamma = 1 / (784 var X), at each of --cache-sizes, each fit's CPU seconds, steps
   and objective (they must not move).

    python benchmarks/byte_dots.py --rows 40000
    python benchmarks/byte_dots.py --rows 40000 --fit --cache-sizes 100,auto --fits 1
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


def _passes(rows_of, sources, repeats):
    """Median seconds of `repeats` passes of each Rows in rows_of (interleaved) and
    whether their values are the same bits."""
    times = {key: [] for key in rows_of}
    values = {}
    for _ in range(repeats):
        for key, rows in rows_of.items():
            start = time.perf_counter()
            values[key] = rows.many_row_dots(sources)
            times[key].append(time.perf_counter() - start)
    first, *others = values.values()
    same = all(first.tobytes() == other.tobytes() for other in others)
    return {key: statistics.median(t) for key, t in times.items()}, same


def main(argv=None):
    """Run the comparison; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=40000)
    parser.add_argument("--sources", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--cache-sizes", default="100,auto")
    parser.add_argument("--fits", type=int, default=1, help="fits of each (--fit)")
    args = parser.parse_args(argv)
    import numpy as np

    import libsmo
    import libsmo._core.int_rows as int_rows
    from libsmo._core.rows import Rows
    X, y, _, _ = data.load_fashion(args.rows)
    rows_of = {}
    for vnni in (True, False):
        int_rows.VNNI_BYTE_DOTS = vnni
        rows_of[vnni] = Rows(X, int_rows=True)
        if vnni and not rows_of[vnni].int_store_uses_vnni():
            print("this processor has no AVX-512 VNNI (or the rows are not bytes)")
            return 0
    status = 0
    print(f"{args.rows:,} rows of 784 bytes, one thread; ms a pass (median of "
          f"{args.repeats}), VNNI / int16")
    for count in (1, args.sources):
        sources = np.arange(count) * 997 % args.rows
        medians, same = _passes(rows_of, sources, args.repeats)
        flag = "" if same else "  FLAGGED: the values differ"
        status |= not same
        print(f"  {count:2d} source{'s' if count > 1 else ' '}: VNNI "
              f"{1e3 * medians[True]:.2f} ms, int16 {1e3 * medians[False]:.2f} ms, "
              f"ratio {medians[True] / medians[False]:.2f}{flag}")
    if args.fit:
        labels = np.isin(y, (0, 2, 4, 6)).astype(int)
        gamma = 1.0 / (784 * X.var())
        for size in args.cache_sizes.split(","):
            cache = size if size == "auto" else float(size)
            seconds = {True: [], False: []}
            outcome = set()
            for _ in range(args.fits):
                for vnni in (True, False):
                    int_rows.VNNI_BYTE_DOTS = vnni
                    start = time.process_time()
                    model = libsmo.train(X, labels, C=10.0, gamma=gamma,
                                         cache_size=cache, n_threads=1)
                    seconds[vnni].append(time.process_time() - start)
                    outcome.add((model.n_iter[0], model.objective[0]))
            flag = "" if len(outcome) == 1 else "  FLAGGED: the steps differ"
            status |= len(outcome) != 1
            steps, objective = sorted(outcome)[0]
            print(f"  train, cache {size}: VNNI {statistics.median(seconds[True]):.2f} "
                  f"CPU s, int16 {statistics.median(seconds[False]):.2f}, ratio "
                  f"{statistics.median(seconds[True]) / statistics.median(seconds[False]):.2f}"
                  f" ({steps} steps, objective {objective:.4f}){flag}")
    return status


if __name__ == "__main__":
    sys.exit(main())
