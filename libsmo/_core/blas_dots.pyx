# cython: language_level=3
"""A dense matrix product shared among the OpenMP threads, each calling BLAS's dgemm on
its rows (scipy's BLAS, `scipy.linalg.cython_blas`).

Prediction of sparse rows multiplies the support vectors' common features as one dense
block (`libsmo._support_rows.SparseSupportColumns`). It holds BLAS to one thread around
its own OpenMP loops, and a BLAS call on several threads between them left a core
spinning; so the threads are OpenMP's here. Apart from `sparse_dots` because this
module imports scipy, which training on dense rows never needs.
"""
from cython.parallel cimport prange
from scipy.linalg.cython_blas cimport dgemm

cdef extern from "openmp_threads.h" nogil:
    int smo_openmp_max_threads()


# A thread is given at least this many rows.
cdef int ROWS_PER_THREAD = 16


def dense_dots(const double[:, ::1] A, const double[:, ::1] B, double[:, ::1] out):
    """out = A @ B, the rows of A shared among the OpenMP threads, each calling BLAS's
    dgemm on its share (prediction holds BLAS to one thread around its own OpenMP
    loops: a BLAS call on several threads between them left one core spinning).

    Parameters
    ----------
    A : ndarray of shape (n_rows, k), C-contiguous
    B : ndarray of shape (k, n_cols), C-contiguous
    out : ndarray of shape (n_rows, n_cols), C-contiguous, overwritten
    """
    cdef int n_rows = <int>A.shape[0], k = <int>A.shape[1], n_cols = <int>B.shape[1]
    cdef int threads = 1, t, first, rows
    if B.shape[0] != k or out.shape[0] != n_rows or out.shape[1] != n_cols:
        raise ValueError(f"shapes {A.shape} @ {B.shape} -> {out.shape} do not match")
    if n_rows == 0 or n_cols == 0:
        return
    if k == 0:
        out[:, :] = 0.0
        return
    if n_rows >= 2 * ROWS_PER_THREAD:
        threads = max(1, min(smo_openmp_max_threads(), n_rows // ROWS_PER_THREAD))
    with nogil:
        for t in prange(threads, num_threads=threads, schedule="static"):
            first = <int>((<long long>n_rows * t) // threads)
            rows = <int>((<long long>n_rows * (t + 1)) // threads) - first
            _gemm_rows(&A[first, 0], &B[0, 0], &out[first, 0], rows, k, n_cols)


cdef void _gemm_rows(const double* A, const double* B, double* out, int rows, int k,
                     int n_cols) noexcept nogil:
    """out (rows x n_cols) = A (rows x k) @ B (k x n_cols), all C-contiguous: BLAS is
    column-major, so it computes out' = B' A'."""
    cdef char no = b'N'
    cdef double one = 1.0, zero = 0.0
    if rows > 0:
        dgemm(&no, &no, &n_cols, &rows, &k, &one, <double*>B, &n_cols, <double*>A, &k,
              &zero, out, &n_cols)
