# Q matrix rows over the kernel, cached (LIBSVM's SVC_Q, ONE_CLASS_Q, SVR_Q).
from libsmo._core.cache cimport RowCache, SmoRowRank
from libsmo._core.kernel cimport Kernel


cimport cython


cdef class QMatrix:
    cdef readonly Kernel kernel
    cdef RowCache cache
    cdef double[::1] sign
    cdef double[::1] diag
    cdef double[::1] kbuf
    # the entries of a row that `get_row_split` leaves out of the cache
    cdef float[::1] tail
    # rows computed together on a miss (1: one at a time) and their kernel values
    cdef readonly int rows_together
    cdef double[::1] kbuf_many
    # the gradient's reconstruction: MANY_ROWS rows of kernel values and of Q entries
    # computed in one pass over the data (`entries_block`), allocated on first use
    cdef readonly int entries_together
    cdef double* block_k
    cdef float* block_q
    cdef long long block_entries

    cdef float* get_row(self, int i, int length) noexcept nogil
    cdef float* get_row_split(self, int i, int length, int* split,
                              float** tail) noexcept nogil
    cdef void _fill(self, int i, int start, int end, float* out) noexcept nogil
    cdef bint is_cached(self, int i) noexcept nogil
    cdef float* get_entries(self, int i, int start, int end) noexcept nogil
    cdef int entries_rows(self) noexcept nogil
    cdef float* entries_block(self, const int* rows, int count, int start,
                              int end) noexcept nogil
    cdef void _free_block(self) noexcept nogil
    cdef int add_rows(self, const int* rows, const double* coefs, int count, int start,
                      int end, double* out) noexcept nogil
    cdef bint _add_rows_together(self, const int* rows, const double* coefs, int count,
                                 int start, int end, double* out) noexcept nogil
    cdef void narrow(self, int start, int end, int count) noexcept nogil
    cdef int rows_ahead(self, int length) noexcept nogil
    cdef float* get_rows(self, const int* rows, int count, int length) noexcept nogil
    cdef void swap_index(self, int i, int j) noexcept nogil
    cdef void defer_swaps(self) noexcept nogil
    cdef void apply_swaps(self) noexcept nogil
    cdef void set_rank(self, const SmoRowRank* rank) noexcept nogil


cdef class SVRQMatrix(QMatrix):
    cdef int n_examples
    cdef int[::1] index
    cdef float[::1] float_sign
    cdef float[:, ::1] buffers
    cdef int next_buffer
    # the variable whose row each buffer holds (-1: none), and over how many entries
    cdef int buffer_row[2]
    cdef int buffer_length[2]
    # variables 0 .. in_order - 1 are still where they started (k < l: alpha_k, then
    # alpha*_{k-l}): their part of a Q row is a signed copy, not a gather
    cdef int in_order
