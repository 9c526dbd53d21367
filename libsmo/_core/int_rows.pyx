# cython: language_level=3
"""Rows of small integers over one divisor as int16, for dot products summed exactly.

8-bit images are usually given as pixel / 255.0 (Fashion-MNIST, MNIST) or as the pixels
themselves: every value is an integer q over one divisor D, exactly (q / D == v in
double). Training keeps such rows as int16 beside their data (`Rows` with
int_rows=True): x'y is then an exact integer sum over D^2 (int_dots.h), four times the
multiply-adds of double loops per instruction on a quarter of the memory. The values
are those of the double loops up to their rounding: the integer sum is exact and the
division rounds once.
"""
import numpy as np
from libc.stdint cimport int16_t, int32_t, int64_t


cdef extern from "int_dots.h" nogil:
    int smo_small_int(double v, double divisor, int16_t* q)
    int smo_small_int_row(const double* v, long d, double divisor, int16_t* out)
    void smo_int_row_norm(const int16_t* q, long d, int64_t* norm, int32_t* largest)

# The divisors tried, in order: integers themselves, then pixels over 255.
DIVISORS = (1.0, 255.0)
# x'y is summed in int32: n_features * max|q|^2 must stay below this.
INT32_LIMIT = 2**31


def small_integer_rows(X, rows, double csr_bytes_per_value=12.0):
    """Rows X[rows] as int16 integers q over one divisor D (q / D == X exactly), or None.

    Parameters
    ----------
    X : ndarray of shape (n, d), C-contiguous float64, or canonical csr_matrix
        Validated rows (CSR: int32 column indices, int64-compatible indptr).
    rows : ndarray of int32
        The rows to convert, in this order.
    csr_bytes_per_value : float
        CSR rows are converted only where the dense int16 rows take no more memory than
        their stored values and indices (this many bytes each).

    Returns
    -------
    (ndarray of shape (len(rows), d) of int16, float, ndarray of shape (len(rows),)) or None
        The integers, D (the first of `DIVISORS` that holds every value) and the rows'
        squared norms |q|^2 / D^2 (an exact integer over D^2, rounded once). None when
        no divisor holds every value, when a sum x'y could leave int32, or when the rows
        are CSR and their int16 copy would take more memory than they do.
    """
    cdef Py_ssize_t n = len(rows), d = X.shape[1]
    cdef Py_ssize_t k, f
    cdef long long p
    cdef int ok = 1
    cdef int32_t largest = 0
    cdef double divisor = 0.0
    cdef int64_t s
    rows = np.ascontiguousarray(rows, dtype=np.int32)
    cdef const int[::1] index = rows
    cdef const double[::1] data
    cdef const int[::1] indices
    cdef const long long[::1] indptr
    cdef const double[:, ::1] dense
    cdef int16_t[:, ::1] ints
    cdef double[::1] norms
    if n == 0 or d == 0:
        return None
    sparse = hasattr(X, "indptr")
    if sparse:
        data = X.data
        indices = X.indices
        starts = np.asarray(X.indptr, dtype=np.int64)
        indptr = starts
        stored = int(np.sum(starts[rows + 1] - starts[rows]))
        if 2.0 * n * d > csr_bytes_per_value * stored:
            return None
    else:
        dense = X
    out = np.zeros((n, d), dtype=np.int16)
    ints = out
    for candidate in DIVISORS:
        divisor = candidate
        ok = 1
        with nogil:
            for k in range(n):
                if sparse:
                    for p in range(indptr[index[k]], indptr[index[k] + 1]):
                        if not smo_small_int(data[p], divisor, &ints[k, indices[p]]):
                            ok = 0
                            break
                else:
                    ok = smo_small_int_row(&dense[index[k], 0], d, divisor, &ints[k, 0])
                if not ok:
                    break
        if ok:
            break
    if not ok:
        return None
    norms_out = np.empty(n)
    norms = norms_out
    with nogil:
        for k in range(n):
            smo_int_row_norm(&ints[k, 0], d, &s, &largest)
            norms[k] = <double>s / (divisor * divisor)
    if <double>d * largest * largest >= INT32_LIMIT:
        return None
    return out, divisor, norms_out
