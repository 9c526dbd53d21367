"""The one rule for how rows are stored for the kernel: dense, sparse, or sparse on the
columns they use. Training (`libsmo.training`), the data reader of the commands
(`libsmo.io.svmlight.SvmlightRows.dense_or_csr`), model files' support vectors and the
Dask partitions all ask it, so a file's rows are read in the layout the solver would
copy them to anyway.
"""
import math

from libsmo._utils.cache_budget import AUTO, budget_megabytes

# Sparse rows that are mostly non-zeros are trained on as dense rows when the dense
# copy is at most this large (and at most half the kernel cache, from which it is
# taken: memory stays data + cache + O(n)): a dense dot product is about a third faster
# than a gather through the index list (letter, 16 features all non-zero: 0.98 s
# against 1.29 s for the same 178,449 steps). Support vectors stay in the caller's
# layout.
DENSE_COPY_BYTES = 128 * 2**20

# Sparse rows keep only the columns they use when their width exceeds this many times
# their stored values (and rows): the solver's buffers and scipy's products are as wide
# as the rows, and one feature index of 2**31 - 1 asked for 16 GB.
COMPACT_WIDTH_FACTOR = 4


def dense_copy_budget(cache_size):
    """The bytes a dense copy of sparse rows may take: it comes out of the kernel cache
    (cache_size MB, or "auto": the bound `cache_budget.budget_megabytes` gives), at
    most half of it; 0 for a cache size that is not a positive number."""
    if cache_size == AUTO:
        cache_size = budget_megabytes(AUTO)
    return cache_size * 2**19 if cache_size > 0 and math.isfinite(cache_size) else 0


def reads_dense(n_rows, n_columns, nnz, dense_copy_bytes=DENSE_COPY_BYTES):
    """Whether the solver reads sparse rows of this shape as a dense copy: at least half
    of the entries stored, and the copy within dense_copy_bytes (at most
    DENSE_COPY_BYTES): dense kernel rows are faster to compute than sparse ones at
    that density."""
    return (n_rows * n_columns * 8 <= min(dense_copy_bytes, DENSE_COPY_BYTES)
            and nnz >= 0.5 * n_rows * n_columns)
