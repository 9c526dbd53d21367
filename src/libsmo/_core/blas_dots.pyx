# cython: language_level=3
"""A dense matrix product shared among the OpenMP threads, each calling BLAS's dgemm on
ranges of its columns (scipy's BLAS, `scipy.linalg.cython_blas`).

Prediction of sparse rows multiplies the support vectors' common features as one dense
block (`libsmo._blocks.support_rows.SparseSupportColumns`). It holds BLAS to one thread around
its own OpenMP loops, and a BLAS call on several threads between them left a core
spinning; so the threads are OpenMP's here. Apart from `sparse_dots` because this
module imports scipy, which training on dense rows never needs.
"""
from cython.parallel cimport prange
from scipy.linalg.cython_blas cimport dgemm

cdef extern from "openmp_threads.h" nogil:
    int smo_openmp_max_threads()


# Below this many rows, the product runs on one thread (too small to share).
cdef int PARALLEL_MIN_ROWS = 32
# Columns of the product a dgemm call. The threads take the ranges as they finish the
# last: beside a busy process, halves by rows left the thread the scheduler did not
# run holding the region's end (the reviews' predictions there 0.69-0.78 -> 0.64-0.73
# s, with the RBF pass's rows handed out four at a time too; the same on a quiet
# machine). The ranges do not depend on the threads, so neither do the bits (BLAS's
# split by rows gave the reviews' products other last bits on two threads).
cdef int COLUMNS_PER_PART = 1024


def dense_dots(const double[:, ::1] A, const double[:, ::1] B, double[:, ::1] out):
    """out = A @ B in ranges of COLUMNS_PER_PART columns, one dgemm call each, which the
    OpenMP threads take as they finish the last (prediction holds BLAS to one thread
    around its own OpenMP loops: a BLAS call on several threads between them left one
    core spinning). The same bits on any number of threads.

    Parameters
    ----------
    A : ndarray of shape (n_rows, k), C-contiguous
    B : ndarray of shape (k, n_cols), C-contiguous
    out : ndarray of shape (n_rows, n_cols), C-contiguous, overwritten
    """
    cdef int n_rows = <int>A.shape[0], k = <int>A.shape[1], n_cols = <int>B.shape[1]
    cdef int threads = 1, t
    if B.shape[0] != k or out.shape[0] != n_rows or out.shape[1] != n_cols:
        raise ValueError(f"shapes {A.shape} @ {B.shape} -> {out.shape} do not match")
    if n_rows == 0 or n_cols == 0:
        return
    if k == 0:
        out[:, :] = 0.0
        return
    cdef int n_parts = (n_cols + COLUMNS_PER_PART - 1) // COLUMNS_PER_PART
    if n_rows >= PARALLEL_MIN_ROWS:
        threads = max(1, min(smo_openmp_max_threads(), n_parts))
    with nogil:
        for t in prange(n_parts, num_threads=threads, schedule="dynamic"):
            _gemm_cols(&A[0, 0], &B[0, 0], &out[0, 0], n_rows, k, t * COLUMNS_PER_PART,
                       min(n_cols, (t + 1) * COLUMNS_PER_PART), n_cols)


cdef void _gemm_cols(const double* A, const double* B, double* out, int rows, int k,
                     int first, int last, int n_cols) noexcept nogil:
    """out[:, first:last] = A (rows x k) @ B[:, first:last] (B: k x n_cols), all
    C-contiguous: BLAS is column-major, so it computes out' = B' A' on those rows of
    out'."""
    cdef char no = b'N'
    cdef double one = 1.0, zero = 0.0
    cdef int m = last - first
    if rows > 0 and m > 0:
        dgemm(&no, &no, &m, &rows, &k, &one, <double*>B + first, &n_cols, <double*>A, &k,
              &zero, out + first, &n_cols)
