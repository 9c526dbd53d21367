# Rows and kernel: one cdef class over dense or CSR rows, with nogil access.

cdef enum KernelType:
    LINEAR = 0
    POLY = 1
    RBF = 2
    SIGMOID = 3
    PRECOMPUTED = 4


cimport cython


@cython.final
cdef class Kernel:
    cdef readonly int kernel_type
    cdef readonly double gamma
    cdef readonly double coef0
    cdef readonly int degree
    cdef readonly Py_ssize_t n_rows
    cdef readonly Py_ssize_t n_features
    cdef readonly bint is_sparse
    cdef readonly int n_threads

    # dense rows: a private, permuted copy, row-major (dense) or, with few features,
    # feature-major (dense_t[f, j] is feature f of row j; x_i gathers the row of a
    # kernel row)
    cdef readonly bint feature_major
    cdef double[:, ::1] dense
    cdef double[:, ::1] dense_t
    cdef double[::1] x_i
    # CSR rows: the data stay put, the per-row extents are permuted
    cdef const double[::1] csr_data
    cdef const int[::1] csr_indices
    cdef long long[::1] row_start
    cdef int[::1] row_nnz
    cdef double[::1] scatter
    # precomputed: the user's n x n matrix, looked up through the permutation
    cdef const double[:, ::1] gram
    # bookkeeping shared by all layouts
    cdef double[::1] sq_norm
    cdef int[::1] perm

    cdef void row(self, int i, int start, int end, double* out) noexcept nogil
    cdef double value(self, int i, int j) noexcept nogil
    cdef void swap(self, int i, int j) noexcept nogil
    cdef double _from_dot(self, double dot, int i, int j) noexcept nogil
    cdef void _dots_to_kernel(self, int i, int start, int n, int nthreads,
                              double* out) noexcept nogil
    cdef double _sparse_dot(self, int j) noexcept nogil
    cdef void _sparse_row_norms(self) noexcept
    cdef void _copy_dense_rows(self, const double[:, ::1] X, const int[::1] rows) except *


cdef inline double dense_dot(const double* a, const double* b, Py_ssize_t d) noexcept nogil:
    """a'b with four running sums: independent additions the CPU overlaps, where one
    sum would wait on each addition (the compiler may not reorder them itself)."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef Py_ssize_t f = 0
    while f + 4 <= d:
        s0 += a[f] * b[f]
        s1 += a[f + 1] * b[f + 1]
        s2 += a[f + 2] * b[f + 2]
        s3 += a[f + 3] * b[f + 3]
        f += 4
    while f < d:
        s0 += a[f] * b[f]
        f += 1
    return (s0 + s1) + (s2 + s3)
