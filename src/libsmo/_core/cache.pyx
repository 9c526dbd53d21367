# cython: language_level=3
"""A cache of float32 rows within a budget of bytes (LIBSVM's Cache), with two eviction
policies (`POLICIES`):

- "lru": LIBSVM's, the least recently used row first.
- "ranked": while a solver runs and gives its ranks (`set_rank`, row_ranks.h), the row
  of the variable farthest from the solver's next selections first (a shrunk variable,
  then the largest distance of -y_t G_t from m(a) or M(a)), the least recently used on
  ties; LRU order otherwise. When the rows the solver keeps asking for outnumber the
  cache's slots, LRU evicts each of them just before its turn comes again (every row
  missed, a cliff); ranked keeps the ones whose turn is nearest, so the misses grow with
  the shortfall instead.

The policy changes which rows are computed again, never a value: a row's entries are the
same bits whether cached or recomputed, so the solver takes the same steps under every
policy and budget.

A cached row may be shorter than the problem: after shrinking the solver asks only for
the active prefix, and a row computed then is extended later when a longer prefix is
needed. This is LIBSVM's cache scheme (Chang and Lin 2011, section 5), written for the
permuted variable order the solver keeps.

Invariant the solver relies on: the budget always holds at least two full rows, a row
is only evicted to make room for another, and never the row `get` returned last (until
an exchange: those come between steps), so the two rows most recently returned by `get`
stay valid until the next `get` (a step reads Q_i and Q_j together).
"""
import numpy as np
from libc.math cimport INFINITY
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


# policy names, in the order of their numbers (POLICY_LRU, POLICY_RANKED)
POLICIES = ("lru", "ranked")

# The "ranked" policy weighs this many of the least recently used rows for each eviction
# (`RowCache.scan_limit`; 0: all): a bounded cost where many short rows are cached, and
# as good as all of them on Fashion-MNIST 10,000 in caches of 10-20 MB (the rows
# computed within 1% of a scan of every row; 64: 3-5% more, 16: 9-11% more).
RANK_SCAN_ROWS = 256


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
    """Cache of float rows within a budget of bytes.

    Parameters
    ----------
    n_rows : int
        Number of rows (the solver's variables).
    size_bytes : float
        Budget; at least two full rows are always allowed, so that the two rows of one
        step can be held at once.
    n_threads : int
        Threads that share `swap_index`'s exchanges when many rows are cached.
    policy : {"lru", "ranked"}
        The eviction order (see the module's docstring).

    Raises
    ------
    ValueError
        n_rows is negative (the index below is sized and indexed by it), or an unknown
        policy.
    """

    def __cinit__(self, int n_rows, double size_bytes, int n_threads=1, policy="lru"):
        cdef long long entries
        if n_rows < 0:
            raise ValueError(f"n_rows must be >= 0, got {n_rows}")
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
        self.policy = POLICIES.index(policy)
        self.rank = NULL
        self.pinned = -1
        self.scan_limit = RANK_SCAN_ROWS
        self.last_row = -1
        self.n_evicted = 0
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
        if i == self.last_row:
            self.last_row = -1

    cdef void set_rank(self, const SmoRowRank* rank) noexcept nogil:
        """The solver's ranks for the "ranked" policy from now on (NULL: none, LRU
        order); the solver sets them when it starts and clears them when it ends. A
        cache of the "lru" policy ignores them."""
        self.rank = rank if self.policy == POLICY_RANKED else NULL

    cdef int _victim(self, int i) noexcept nogil:
        """The row to evict to make room for row i (never i, the row `get` returned
        last, nor the pinned row), or -1 when there is none. LRU: the least recently
        used. Ranked: the largest distance (`smo_row_distance`) among the `scan_limit`
        least recently used, the least recently used on ties."""
        cdef int h = self.lru_next[self.n_rows], best = -1, seen = 0
        cdef double d, worst = -INFINITY
        while h != self.n_rows:
            if h != i and h != self.last_row and h != self.pinned:
                if self.rank == NULL:
                    return h
                d = smo_row_distance(self.rank, h)
                if d > worst or best < 0:
                    best = h
                    worst = d
                    if d == INFINITY:
                        break
                seen += 1
                if seen == self.scan_limit:
                    break
            h = self.lru_next[h]
        return best

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
        self.n_requests += 1
        if length > have:
            self.n_filled += length - have
            self.n_missed += 1
            while self.free_entries < length - have:
                victim = self._victim(i)
                if victim < 0:
                    break
                self._evict(victim)
                self.n_evicted += 1
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
        self.last_row = i
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
        # exchanges come between steps, when the solver holds no row
        self.last_row = -1
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

    @property
    def free_entries_now(self):
        """The float entries the budget has left (rows may take them without evicting
        another)."""
        return self.free_entries

    @property
    def policy_name(self):
        """The eviction policy, "lru" or "ranked"."""
        return POLICIES[self.policy]

    def rank_by(self, distances):
        """Python access for tests: rank the rows by `distances` (one per row, the
        largest evicted first; inf: as a shrunk variable), as a solver's ranks would
        (`set_rank`); None: no ranks (LRU order)."""
        if distances is None:
            self.set_rank(NULL)
            self.given_arrays = None
            return
        d = np.ascontiguousarray(distances, dtype=np.float64)
        if d.shape != (self.n_rows,):
            raise ValueError(f"one distance per row ({self.n_rows}), got {d.shape}")
        # v_t = -y_t G_t = -d_t with y = -1 in I_up only, and m = 0: distance m - v = d
        G = -d
        y = np.full(self.n_rows, -1.0)
        up = np.zeros(2 * max(self.n_rows, 1))
        low = np.full(2 * max(self.n_rows, 1), -np.inf)
        self.given_arrays = (G, y, up, low)
        cdef const double[::1] g_view = G
        cdef const double[::1] y_view = y
        cdef const double[::1] up_view = up
        cdef const double[::1] low_view = low
        self.given_rank.G = &g_view[0] if self.n_rows else NULL
        self.given_rank.y = &y_view[0] if self.n_rows else NULL
        self.given_rank.pen_up = &up_view[0]
        self.given_rank.pen_low = &low_view[0]
        self.given_rank.stride = self.n_rows
        self.given_rank.nu = 0
        self.given_rank.active_size = self.n_rows
        self.given_rank.m[0] = self.given_rank.m[1] = 0.0
        self.given_rank.M[0] = self.given_rank.M[1] = INFINITY
        self.set_rank(&self.given_rank)

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
