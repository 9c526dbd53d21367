# The cache of float32 Q rows (LIBSVM's Cache), evicting by LIBSVM's LRU order or by the
# solver's ranks (row_ranks.h).
cimport cython


cdef extern from "row_ranks.h" nogil:
    ctypedef struct SmoRowRank:
        const double* G
        const double* y
        const double* pen_up
        const double* pen_low
        long stride
        int nu
        int active_size
        double m[2]
        double M[2]
    double smo_row_distance(const SmoRowRank* r, int t)


# the eviction policies (RowCache.policy; `POLICIES` names them)
cpdef enum:
    POLICY_LRU = 0
    POLICY_RANKED = 1


@cython.final
cdef class RowCache:
    cdef int n_rows
    cdef long long free_entries
    # POLICY_LRU or POLICY_RANKED; the solver's ranks while it runs (NULL: LRU order)
    cdef readonly int policy
    cdef const SmoRowRank* rank
    # the row `get` returned last: never evicted by the next `get`
    cdef int last_row
    # a row no `get` evicts either (`QMatrix.get_rows` holds the step's first row
    # there while it stores the rows computed ahead); -1: none
    cdef int pinned
    # how many of the least recently used rows the "ranked" policy weighs (0: all)
    cdef public int scan_limit
    cdef readonly long long n_evicted, n_filled, n_requests, n_missed
    # ranks given from Python (`rank_by`, for tests) and the arrays behind them
    cdef SmoRowRank given_rank
    cdef object given_arrays
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
    cdef int _victim(self, int i) noexcept nogil
    cdef void set_rank(self, const SmoRowRank* rank) noexcept nogil
