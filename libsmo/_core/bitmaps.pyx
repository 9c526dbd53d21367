# cython: language_level=3
"""Rows of zeros and ones as bitmaps, for kernel values counted rather than summed.

One-hot data (a9a's 123 features, w8a's 300) has only zeros and ones: there x'y is the
number of features both rows have and |x - y|^2 the number only one of them has, exact
counts, and every kernel value is a function of one count. Training keeps such rows as
bitmaps beside their data (`Rows` with bit_rows=True) and prediction packs its support
vectors and each block of rows here (`pack_bits`); `kernel.bit_kernel_block` and
`Rows.bit_values` count (bit_counts.h) and read the kernel's table of values.
"""
import numpy as np


def pack_bits(X, Py_ssize_t width=-1):
    """Bitmaps of rows whose values are all zeros and ones; None for any other rows.

    Prediction counts the kernel values of such rows on these bitmaps as training does
    (`Rows.bit_values`, `libsmo._core.kernel.bit_kernel_block`).

    Parameters
    ----------
    X : ndarray of shape (n, d), C-contiguous float64, or canonical csr_matrix
        Validated rows (CSR: int32 column indices below d, a stored zero counts as 0).
    width : int, optional
        The columns to cover (default d); at least d.

    Returns
    -------
    ndarray of shape (n, ceil(width / 64)) of uint64, or None
        Bit f % 64 of word f // 64 of row k is set where X[k, f] is 1.
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], k, f
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
        data = np.asarray(X.data, dtype=np.float64)
        indices = np.asarray(X.indices, dtype=np.int32)
        indptr = np.asarray(X.indptr, dtype=np.int64)
        if len(indices) and (np.min(indices) < 0 or np.max(indices) >= d):
            raise ValueError("CSR column indices outside the rows' width")
        with nogil:
            for k in range(n):
                for p in range(indptr[k], indptr[k + 1]):
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
                    if not set_bit_of(&bits[k, 0], f, dense[k, f]):
                        binary = False
                        break
                if not binary:
                    break
    return out if binary else None
