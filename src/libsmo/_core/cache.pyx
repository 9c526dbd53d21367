# cython: language_level=3
"""An LRU cache of float32 rows within a budget of bytes (LIBSVM's Cache).

A cached row may be shorter than the problem: after shrinking the solver asks only for
the active prefix, and a row computed then is extended later when a longer prefix is
needed. This is LIBSVM's cache scheme (Chang and Lin 2011, section 5), written for the
permuted variable order the solver keeps.

Invariant the solver relies on: the budget always holds at least two full rows, and a
row is only evicted to make room for another, so the two rows most recently returned by
`get` stay valid until the next `get` (a step reads Q_i and Q_j together).
"""
from libc.stdlib cimport malloc, calloc, realloc, free


cdef extern from *:
    """
    #include <stdlib.h>
    #if defined(__GLIBC__)
    #include <malloc.h>
    static void smo_release_free_memory(void) { malloc_trim(0); }
    #else
    static void smo_release_free_memory(void) { }
    #endif
    """
    void smo_release_free_memory() nogil


def release_free_memory():
    """Hand the allocator's free memory back to the system (glibc's malloc_trim; a
    no-op elsewhere). A fit calls it once at its end when its caches held much
    (`Executor.release_memory`): cached rows shorter than glibc's mmap threshold (128
    KB, 32,768 entries) live in the heap, which glibc keeps after they are freed (four
    interrupted a9a fits left the process 338 MB larger). Not after each cache: the
    next one-vs-one pair reuses that memory, where giving it back and faulting it in
    again would cost every pair.

    Returns
    -------
    None
    """
    smo_release_free_memory()


cdef extern from "step_loops.h" nogil:
    void smo_swap_entries_threads(int count, float** rows, int lo, int hi, int threads)
    void smo_apply_swaps_threads(int count, float** rows, const int* lengths,
                                 const int* pending, int n_swaps, char* evict, int threads)
    int smo_threads_sleep()
    int smo_step_threads(int n, int threads)


def openmp_threads_sleep():
    """Whether OMP_WAIT_POLICY=passive puts the OpenMP threads to sleep between parallel
    regions, as this process started. Then the solver's passes, the cache's exchanges
    and the kernel rows are split over threads only where they are very long
    (step_loops.h): waking the threads for every region made a9a's two-thread fit 7x
    slower than its one-thread fit.

    Returns
    -------
    bool
    """
    return bool(smo_threads_sleep())


def openmp_pass_threads(n, threads):
    """The threads a solver pass over `n` variables runs on when the run has `threads`
    (step_loops.h's rule: one below 8,192 variables, or below 2^20 while the OpenMP
    threads sleep between regions; at most 64).

    Parameters
    ----------
    n : int
        The variables of the pass.
    threads : int
        The run's threads.

    Returns
    -------
    int

    Examples
    --------
    >>> from libsmo._core.cache import openmp_pass_threads
    >>> openmp_pass_threads(100, 2)
    1
    """
    return smo_step_threads(<int>n, <int>threads)


cdef class RowCache:
    """LRU cache of float rows within a budget of bytes.

    Parameters
    ----------
    n_rows : int
        Number of rows (the solver's variables).
    size_bytes : float
        Budget; at least two full rows are always allowed, so that the two rows of one
        step can be held at once.
    n_threads : int
        Threads that share `swap_index`'s exchanges when many rows are cached.

    Raises
    ------
    ValueError
        n_rows is negative (the index below is sized and indexed by it).
    """

    def __cinit__(self, int n_rows, double size_bytes, int n_threads=1):
        cdef long long entries
        if n_rows < 0:
            raise ValueError(f"n_rows must be >= 0, got {n_rows}")
        if not size_bytes < 1e18:  # also NaN: the conversion below would be undefined
            size_bytes = 1e18
        entries = <long long>(size_bytes / sizeof(float))
        self.n_rows = n_rows
        # the bookkeeping per row counts against the budget, as in LIBSVM
        entries -= <long long>(n_rows * (sizeof(float*) + 3 * sizeof(int)) / sizeof(float))
        if entries < 2 * <long long>n_rows:
            entries = 2 * <long long>n_rows
        self.free_entries = entries
        self.data = <float**>calloc(n_rows + 1, sizeof(float*))
        self.length = <int*>calloc(n_rows + 1, sizeof(int))
        self.lru_prev = <int*>malloc((n_rows + 1) * sizeof(int))
        self.lru_next = <int*>malloc((n_rows + 1) * sizeof(int))
        self.swap_rows = <float**>malloc((n_rows + 1) * sizeof(float*))
        self.pending = <int*>malloc((2 * n_rows + 2) * sizeof(int))
        self.swap_slots = <int*>malloc((n_rows + 1) * sizeof(int))
        self.swap_lengths = <int*>malloc((n_rows + 1) * sizeof(int))
        self.swap_evict = <char*>malloc(n_rows + 1)
        self.n_threads = max(1, n_threads)
        if (self.data == NULL or self.length == NULL or self.lru_prev == NULL
                or self.lru_next == NULL or self.swap_rows == NULL or self.pending == NULL
                or self.swap_slots == NULL or self.swap_lengths == NULL
                or self.swap_evict == NULL):
            raise MemoryError("cannot allocate the kernel cache index")
        # index n_rows is the sentinel of the circular LRU list
        self.lru_prev[n_rows] = n_rows
        self.lru_next[n_rows] = n_rows

    def __dealloc__(self):
        cdef int i
        if self.data != NULL:
            for i in range(self.n_rows):
                free(self.data[i])
            free(self.data)
        free(self.length)
        free(self.lru_prev)
        free(self.lru_next)
        free(self.swap_rows)
        free(self.pending)
        free(self.swap_slots)
        free(self.swap_lengths)
        free(self.swap_evict)

    cdef inline void _unlink(self, int i) noexcept nogil:
        self.lru_next[self.lru_prev[i]] = self.lru_next[i]
        self.lru_prev[self.lru_next[i]] = self.lru_prev[i]

    cdef inline void _link_last(self, int i) noexcept nogil:
        cdef int s = self.n_rows
        self.lru_next[i] = s
        self.lru_prev[i] = self.lru_prev[s]
        self.lru_next[self.lru_prev[s]] = i
        self.lru_prev[s] = i

    cdef inline void _evict(self, int i) noexcept nogil:
        self._unlink(i)
        free(self.data[i])
        self.data[i] = NULL
        self.free_entries += self.length[i]
        self.length[i] = 0

    cdef int get(self, int i, int length, float** row) noexcept nogil:
        """Point *row at row i with room for `length` entries.

        Returns the number of leading entries already valid; the caller fills the rest.
        Returns -1 when memory cannot be had (the caller must fail cleanly).
        """
        cdef int have
        cdef float* grown
        cdef int victim
        if self.n_swaps:   # a row is read: the deferred exchanges first
            self._flush_swaps()
        have = self.length[i]
        if have:
            self._unlink(i)
        if length > have:
            while self.free_entries < length - have:
                victim = self.lru_next[self.n_rows]
                if victim == self.n_rows:
                    break
                self._evict(victim)
            grown = <float*>realloc(self.data[i], length * sizeof(float))
            if grown == NULL:
                if have:
                    self._link_last(i)
                return -1
            self.data[i] = grown
            self.free_entries -= length - have
            self.length[i] = length
        else:
            have = length
        self._link_last(i)
        row[0] = self.data[i]
        return have

    cdef float* peek(self, int i, int length) noexcept nogil:
        """Row i when at least `length` of its entries are cached, else NULL; the
        row keeps its place in the LRU order and nothing is evicted."""
        if self.n_swaps:
            self._flush_swaps()
        if self.length[i] >= length:
            return self.data[i]
        return NULL

    cdef void swap_index(self, int i, int j) noexcept nogil:
        """Follow the solver's exchange of variables i and j in every cached row.

        The rows are listed first and exchanged after, on the cache's threads when there
        are many: each exchange is two reads far apart in memory, and a shrinking pass
        makes thousands of them over hundreds of rows."""
        cdef int h, nxt, lo, hi, count = 0
        if i == j:
            return
        if self.length[i]:
            self._unlink(i)
        if self.length[j]:
            self._unlink(j)
        self.data[i], self.data[j] = self.data[j], self.data[i]
        self.length[i], self.length[j] = self.length[j], self.length[i]
        if self.length[i]:
            self._link_last(i)
        if self.length[j]:
            self._link_last(j)
        lo = i if i < j else j
        hi = j if i < j else i
        if self.deferring:
            if self.n_swaps == self.n_rows:
                self._flush_swaps()
            if self.n_swaps == 0 or lo < self.swaps_min_lo:
                self.swaps_min_lo = lo
            self.pending[2 * self.n_swaps] = lo
            self.pending[2 * self.n_swaps + 1] = hi
            self.n_swaps += 1
            return
        h = self.lru_next[self.n_rows]
        while h != self.n_rows:
            nxt = self.lru_next[h]
            if self.length[h] > lo:
                if self.length[h] > hi:
                    self.swap_rows[count] = self.data[h]
                    count += 1
                else:
                    # the row holds entry lo but not hi: it cannot be kept consistent
                    self._evict(h)
            h = nxt
        smo_swap_entries_threads(count, self.swap_rows, lo, hi, self.n_threads)

    cdef void defer_swaps(self) noexcept nogil:
        """Keep the entry exchanges of the coming `swap_index` calls until `apply_swaps`
        (the rows' own slots still move at once). A shrinking pass reads no row between
        its exchanges, and `swap_index` listed every cached row for each of them: now
        the rows are listed once and each visited once for all of the pass's exchanges,
        on the cache's threads. The cached values end the same; a row that could not
        follow some exchange is evicted at the end instead of at it."""
        self.deferring = 1

    cdef void apply_swaps(self) noexcept nogil:
        """Make the exchanges kept since `defer_swaps` in every cached row; exchanges
        come at once again."""
        self._flush_swaps()
        self.deferring = 0

    cdef void _flush_swaps(self) noexcept nogil:
        cdef int h, k, count = 0
        if self.n_swaps == 0:
            return
        h = self.lru_next[self.n_rows]
        while h != self.n_rows:
            if self.length[h] > self.swaps_min_lo:   # else no exchange reaches the row
                self.swap_rows[count] = self.data[h]
                self.swap_slots[count] = h
                self.swap_lengths[count] = self.length[h]
                count += 1
            h = self.lru_next[h]
        smo_apply_swaps_threads(count, self.swap_rows, self.swap_lengths, self.pending,
                                self.n_swaps, self.swap_evict, self.n_threads)
        for k in range(count):
            if self.swap_evict[k]:
                self._evict(self.swap_slots[k])
        self.n_swaps = 0

    def release(self):
        """Free every cached row now (the cache stays usable, empty), whoever still
        holds the cache: a fit's solver ends with it, also when an exception ends the
        fit and its traceback keeps the solver alive.

        Returns
        -------
        int
            The bytes the rows held.
        """
        cdef long long held = 0
        cdef int i
        for i in range(self.n_rows):
            if self.length[i]:
                held += self.length[i]
                self._evict(i)
        self.n_swaps = 0
        return held * <long long>sizeof(float)

    # ---- Python access, for tests ------------------------------------------------------

    def request(self, int i, int length, fill):
        """Ask for row i with `length` entries, as the solver does, and fill the
        entries that were not already valid from `fill` (float32, at least `length`).

        Returns
        -------
        int
            How many leading entries were already valid (-1: no memory).
        """
        cdef float* row
        cdef const float[::1] values = fill
        cdef int have, k
        if not 0 <= i < self.n_rows or not 0 <= length <= self.n_rows:
            raise IndexError(f"row {i} of length {length} is outside {self.n_rows} rows")
        if values.shape[0] < length:
            raise ValueError(f"fill has {values.shape[0]} entries, fewer than {length}")
        have = self.get(i, length, &row)
        if have >= 0:
            for k in range(have, length):
                row[k] = values[k]
        return have

    def cached(self, int i):
        """A copy of the entries of row i the cache holds (empty when evicted).

        Returns
        -------
        list of float
        """
        if not 0 <= i < self.n_rows:
            raise IndexError(f"row {i} is outside {self.n_rows} rows")
        return [self.data[i][k] for k in range(self.length[i])]

    def swap(self, int i, int j):
        """Follow an exchange of variables i and j (see `swap_index`)."""
        if not (0 <= i < self.n_rows and 0 <= j < self.n_rows):
            raise IndexError(f"rows {i}, {j} are outside {self.n_rows} rows")
        self.swap_index(i, j)

    def swap_pass(self, pairs):
        """Follow a shrinking pass's exchanges (i, j), deferred and then applied
        together (`defer_swaps`, `apply_swaps`), as the solver makes them."""
        for i, j in pairs:
            if not (0 <= i < self.n_rows and 0 <= j < self.n_rows):
                raise IndexError(f"rows {i}, {j} are outside {self.n_rows} rows")
        self.defer_swaps()
        for i, j in pairs:
            self.swap_index(i, j)
        self.apply_swaps()
