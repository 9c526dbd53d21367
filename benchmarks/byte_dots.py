"""Rows of dot products over 8-bit rows: AVX-512 VNNI and AVX2 against the plain loops.

Fashion-MNIST's first --rows training images (pixels / 255, kept as uint8 rows: the
kernel's `Rows` with int_rows=True), one thread. Alternating in one process between
the paths `libsmo._core.int_rows` can take (VNNI_BYTE_DOTS and AVX2_BYTE_DOTS; the
processor's paths only), each against the plain loops (both False):

1. passes over every row: one source (a full cache's miss) and --sources sources (a
   cache with free room), medians of --repeats passes; the values must be the same
   bits every way, else the ratios are FLAGGED and the script exits with status 1;
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
    paths = {"vnni": (True, False), "avx2": (False, True), "plain": (False, False)}
    rows_of = {}
    for name, (vnni, avx2) in paths.items():
        int_rows.VNNI_BYTE_DOTS, int_rows.AVX2_BYTE_DOTS = vnni, avx2
        rows = Rows(X, int_rows=True)
        if rows.byte_path() == name:
            rows_of[name] = rows
    names = [name for name in rows_of if name != "plain"]
    if not names:
        print("this processor has neither AVX-512 VNNI nor AVX2 (or the rows are not "
              "bytes)")
        return 0
    status = 0
    print(f"{args.rows:,} rows of 784 bytes, one thread; ms a pass (median of "
          f"{args.repeats}), each path / the plain loops")
    for count in (1, args.sources):
        sources = np.arange(count) * 997 % args.rows
        medians, same = _passes(rows_of, sources, args.repeats)
        flag = "" if same else "  FLAGGED: the values differ"
        status |= not same
        print(f"  {count:2d} source{'s' if count > 1 else ' '}: " + ", ".join(
            f"{name} {1e3 * medians[name]:.2f} ms" for name in rows_of) + "; " + ", ".join(
            f"{name} ratio {medians[name] / medians['plain']:.2f}" for name in names)
            + flag)
    if args.fit:
        labels = np.isin(y, (0, 2, 4, 6)).astype(int)
        gamma = 1.0 / (784 * X.var())
        for size in args.cache_sizes.split(","):
            cache = size if size == "auto" else float(size)
            seconds = {name: [] for name in rows_of}
            outcome = set()
            for _ in range(args.fits):
                for name in rows_of:
                    int_rows.VNNI_BYTE_DOTS, int_rows.AVX2_BYTE_DOTS = paths[name]
                    start = time.process_time()
                    model = libsmo.train(X, labels, C=10.0, gamma=gamma,
                                         cache_size=cache, n_threads=1)
                    seconds[name].append(time.process_time() - start)
                    outcome.add((model.n_iter[0], model.objective[0]))
            flag = "" if len(outcome) == 1 else "  FLAGGED: the steps differ"
            status |= len(outcome) != 1
            steps, objective = sorted(outcome)[0]
            medians = {name: statistics.median(t) for name, t in seconds.items()}
            print(f"  train, cache {size}: " + ", ".join(
                f"{name} {medians[name]:.2f} CPU s" for name in rows_of) + "; " + ", ".join(
                f"{name} ratio {medians[name] / medians['plain']:.2f}" for name in names)
                + f" ({steps} steps, objective {objective:.4f}){flag}")
    return status


if __name__ == "__main__":
    sys.exit(main())
