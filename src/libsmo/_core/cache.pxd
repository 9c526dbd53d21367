# The LRU cache of float32 Q rows (LIBSVM's Cache).
cimport cython


@cython.final
cdef class RowCache:
    cdef int n_rows
    cdef long long free_entries
    cdef float** data
    cdef int* length
    cdef int* lru_prev
    cdef int* lru_next
    # threads of swap_index's pass over the cached rows, and the rows it swaps in
    cdef int n_threads
    cdef float** swap_rows
    # exchanges deferred (defer_swaps) as (lo, hi) pairs, applied row by row later
    cdef int deferring, n_swaps, swaps_min_lo
    cdef int* pending
    cdef int* swap_slots
    cdef int* swap_lengths
    cdef char* swap_evict

    cdef int get(self, int i, int length, float** row) noexcept nogil
    cdef float* peek(self, int i, int length) noexcept nogil
    cdef void swap_index(self, int i, int j) noexcept nogil
    cdef void defer_swaps(self) noexcept nogil
    cdef void apply_swaps(self) noexcept nogil
    cdef void _flush_swaps(self) noexcept nogil
    cdef void _unlink(self, int i) noexcept nogil
    cdef void _link_last(self, int i) noexcept nogil
    cdef void _evict(self, int i) noexcept nogil
