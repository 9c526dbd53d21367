"""Counts of 0/1 rows word-major (eight at a time with AVX-512 VPOPCNTQ) against row by
row, in one process.

Times `kernel_blocks.bit_kernel_products` with `word_major=True` and `word_major=False`
alternating, on random bitmaps of --words 64-bit words a row (a9a has 2, w8a 5), --rows
test rows against --sv support vectors, one thread, one column of coefficients (a
binary model's decision values). Prints the medians in nanoseconds a
kernel value and their ratio, and checks that both give the same sums. This is the
measurement behind `smo_bit_cols` and `smo_bit_q_cols` in libsmo/_core/bit_counts.h
(training's Q rows take the same counts through `Rows.bits_t`).

    python benchmarks/bit_counts.py --words 2,5
"""
import argparse
import statistics
import time

import numpy as np

from libsmo._core.kernel_blocks import bit_kernel_products


def time_products(x_bits, sv_bits, offsets, table, coef_t, word_major, repeats):
    """Seconds of each of `repeats` calls, and the sums of the last."""
    out = np.empty((x_bits.shape[0], coef_t.shape[0]))
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        bit_kernel_products(x_bits, sv_bits, offsets, table, True, coef_t, out,
                            n_threads=1, word_major=word_major)
        seconds.append(time.perf_counter() - start)
    return seconds, out.copy()


def main(argv=None):
    """Run the comparison; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", default="2,5", help="comma-separated words a row")
    parser.add_argument("--rows", type=int, default=4000)
    parser.add_argument("--sv", type=int, default=4000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    full = np.iinfo(np.uint64).max
    print("| words | row by row ns/value | word-major ns/value | ratio |")
    print("|---:|---:|---:|---:|")
    for words in (int(w) for w in args.words.split(",")):
        x_bits = rng.integers(0, full, (args.rows, words), np.uint64, endpoint=True)
        sv_bits = rng.integers(0, full, (args.sv, words), np.uint64, endpoint=True)
        offsets = np.zeros(args.rows, dtype=np.int64)
        table = np.exp(-0.05 * np.arange(64 * words + 1))
        coef_t = rng.standard_normal((1, args.sv))
        medians = {False: [], True: []}
        sums = {}
        for _ in range(args.rounds):
            for word_major in (False, True):
                seconds, sums[word_major] = time_products(
                    x_bits, sv_bits, offsets, table, coef_t, word_major, args.repeats)
                medians[word_major].append(statistics.median(seconds))
        if not np.array_equal(sums[False], sums[True]):
            print(f"words {words}: the two layouts gave different sums")
            return 1
        per_value = {k: 1e9 * statistics.median(v) / (args.rows * args.sv)
                     for k, v in medians.items()}
        print(f"| {words} | {per_value[False]:.2f} | {per_value[True]:.2f} | "
              f"{per_value[True] / per_value[False]:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
