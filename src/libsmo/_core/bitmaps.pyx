# cython: language_level=3
"""Rows of zeros and ones as bitmaps, for kernel values counted rather than summed.

One-hot data (a9a's 123 features, w8a's 300) has only zeros and ones: there x'y is the
number of features both rows have and |x - y|^2 the number only one of them has, exact
counts, and every kernel value is a function of one count. `pack_bits` packs such rows:
training's beside their data (`Rows` with bit_rows=True), prediction's support vectors
and each block of rows; `Rows.bit_values` and `kernel_blocks.bit_kernel_block` count
(bit_counts.h) and read the kernel's table of values.
"""
import numpy as np
from libsmo._core.checks import check_indices, csr_arrays, matrix_shape


def pack_bits(X, Py_ssize_t width=-1, rows=None):
    """Bitmaps of rows whose values are all zeros and ones; None for any other rows.

    Training keeps them beside such rows (`Rows` with bit_rows=True, `Rows.bit_values`)
    and prediction counts its blocks on them (`libsmo._core.kernel_blocks.bit_kernel_block`).

    Parameters
    ----------
    X : ndarray of shape (n, d), C-contiguous float64, or canonical csr_matrix
        Validated rows (CSR: int32 column indices below d, a stored zero counts as 0).
    width : int, optional
        The columns to cover (default d); at least d.
    rows : ndarray of int32, optional
        The rows of X to pack, in this order (default all).

    Returns
    -------
    ndarray of shape (len(rows), ceil(width / 64)) of uint64, or None
        Bit f % 64 of word f // 64 of row k is set where X[rows[k], f] is 1.

    Raises
    ------
    IndexError
        A row outside X.
    ValueError
        X is not 2-D, a width below d, or CSR arrays that do not describe X's rows
        (`arrays.csr_arrays`).
    """
    n_total, n_columns = matrix_shape(X)
    rows = np.ascontiguousarray(np.arange(n_total) if rows is None else rows,
                                dtype=np.int32)
    check_indices(rows, n_total, "row")
    cdef const int[::1] index = rows
    cdef Py_ssize_t n = len(rows), d = n_columns, k, f
    cdef long long p
    cdef bint binary = True
    cdef const double[::1] data
    cdef const int[::1] indices
    cdef const long long[::1] indptr
    cdef const double[:, ::1] dense
    cdef uint64_t[:, ::1] bits
    if width < 0:
        width = d
    if width < d:
        raise ValueError(f"a width of {width} for rows of {d} columns")
    out = np.zeros((n, (width + 63) // 64), dtype=np.uint64)
    bits = out
    if hasattr(X, "indptr"):
        data, indices, indptr = csr_arrays(X)
        with nogil:
            for k in range(n):
                for p in range(indptr[index[k]], indptr[index[k] + 1]):
                    if not set_bit_of(&bits[k, 0], indices[p], data[p]):
                        binary = False
                        break
                if not binary:
                    break
    else:
        dense = X
        with nogil:
            for k in range(n):
                for f in range(d):
                    if not set_bit_of(&bits[k, 0], f, dense[index[k], f]):
                        binary = False
                        break
                if not binary:
                    break
    return out if binary else None
