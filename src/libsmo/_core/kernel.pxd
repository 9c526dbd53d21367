# Kernel values over the rows of one problem: the rows' dot products (Rows) turned into
# LIBSVM's kernel functions, a whole row at a time.
cimport cython
from libsmo._core.rows cimport Rows
from libsmo._core.sparse_dots cimport SmoRowBatch


cdef enum KernelType:
    LINEAR = 0
    POLY = 1
    RBF = 2
    SIGMOID = 3
    PRECOMPUTED = 4


@cython.final
cdef class Kernel:
    cdef readonly Rows rows
    cdef readonly int kernel_type
    cdef readonly double gamma
    cdef readonly double coef0
    cdef readonly int degree
    cdef readonly Py_ssize_t n_rows
    cdef readonly Py_ssize_t n_features
    cdef readonly int n_threads
    # rows of 0/1 values (rows.bit_words > 0): the kernel value for each count of
    # common features (or, for RBF, of differing features), 0 to n_features
    cdef double[::1] bit_table
    # a row's entries count as this many of a dense row's toward threads (`row_threads`)
    cdef double entry_weight
    # kernel values computed so far (cached rows read again cost none): training's
    # kernel work, which the benchmark turns into multiply-adds a second
    cdef readonly long long evaluations

    cdef int row_threads(self, int n) noexcept nogil
    cdef void row(self, int i, int start, int end, double* out) noexcept nogil
    cdef void q_row(self, int i, int start, int end, double s_i, const double* sign,
                    double* work, float* out) noexcept nogil
    cdef bint add_q_rows(self, SmoRowBatch* batch, int start, int end,
                         const double* sign, double* work, float* q_out,
                         double* out) noexcept nogil
    cdef void rows_many(self, const int* sources, int count, int start, int end,
                        double* out, long ld_out) noexcept nogil
    cdef double value(self, int i, int j) noexcept nogil
    cdef void swap(self, int i, int j) noexcept nogil
    cdef double _from_dot(self, double dot, int i, int j) noexcept nogil
    cdef void _dots_to_kernel(self, int i, int start, int n, int nthreads,
                              double* out) noexcept nogil
