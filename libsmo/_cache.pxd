# Q matrix rows and their LRU cache.
from libsmo._kernel cimport Kernel


cimport cython


@cython.final
cdef class RowCache:
    cdef int n_rows
    cdef long long free_entries
    cdef float** data
    cdef int* length
    cdef int* lru_prev
    cdef int* lru_next

    cdef int get(self, int i, int length, float** row) noexcept nogil
    cdef void swap_index(self, int i, int j) noexcept nogil
    cdef void _unlink(self, int i) noexcept nogil
    cdef void _link_last(self, int i) noexcept nogil
    cdef void _evict(self, int i) noexcept nogil


cdef class QMatrix:
    cdef readonly Kernel kernel
    cdef RowCache cache
    cdef double[::1] sign
    cdef double[::1] diag
    cdef double[::1] kbuf

    cdef float* get_row(self, int i, int length) noexcept nogil
    cdef void swap_index(self, int i, int j) noexcept nogil


cdef class SVRQMatrix(QMatrix):
    cdef int n_examples
    cdef int[::1] index
    cdef float[::1] float_sign
    cdef float[:, ::1] buffers
    cdef int next_buffer
    # the variable whose row each buffer holds (-1: none), and over how many entries
    cdef int buffer_row[2]
    cdef int buffer_length[2]
