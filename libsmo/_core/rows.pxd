# The one row accessor of the core: dense, CSR and precomputed rows behind nogil methods,
# shared by the kernel (dot products a whole row at a time, for the Q-row cache) and the
# linear solver (dot products with, and updates of, the primal weights).
cimport cython


cdef enum RowLayout:
    ROW_MAJOR = 0       # a private row-major copy; swap() exchanges the rows themselves
    FEATURE_MAJOR = 1   # a private feature-major copy (few features); swap() likewise
    SHARED_DENSE = 2    # the caller's C-contiguous array, read in place through `index`
    CSR = 3             # the caller's CSR arrays, read through per-row extents
    GRAM = 4            # the caller's n x n kernel matrix, read through `index`


@cython.final
cdef class Rows:
    cdef readonly int layout
    cdef readonly Py_ssize_t n_rows
    cdef readonly Py_ssize_t n_features
    # ROW_MAJOR: dense[k] is row k; FEATURE_MAJOR: dense_t[f, k] is feature f of row k
    # and x_i gathers row i for a row of dot products
    cdef double[:, ::1] dense
    cdef double[:, ::1] dense_t
    cdef double[::1] x_i
    # SHARED_DENSE and GRAM: the caller's matrix, row k at shared[index[k]]
    cdef const double[:, ::1] shared
    # CSR: the caller's arrays; row k is csr_data[row_start[k] : row_start[k] + row_nnz[k]]
    cdef const double[::1] csr_data
    cdef const int[::1] csr_indices
    cdef long long[::1] row_start
    cdef int[::1] row_nnz
    cdef double[::1] scatter
    # every layout: the caller's row number of row k, and |x_k|^2 (0 for GRAM)
    cdef readonly int[::1] index
    cdef readonly double[::1] sq_norm

    cdef void dots(self, int i, int start, int end, int nthreads,
                   double* out) noexcept nogil
    cdef double dot(self, int i, int j) noexcept nogil
    cdef double dot_vector(self, int i, const double* w) noexcept nogil
    cdef void add_to_vector(self, int i, double a, double* w) noexcept nogil
    cdef void swap(self, int i, int j) noexcept nogil
    cdef double _scattered_dot(self, int j) noexcept nogil
    cdef void _copy_dense(self, const double[:, ::1] X) except *
    cdef void _csr_norms(self) noexcept nogil
    cdef void _shared_norms(self) noexcept nogil


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
