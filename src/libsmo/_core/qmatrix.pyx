# cython: language_level=3
"""Rows of the solver's Q matrix (LIBSVM's SVC_Q / ONE_CLASS_Q / SVR_Q), computed from the
kernel on demand and kept in the row cache (`libsmo._core.cache.RowCache`) as float32.

- `QMatrix`: Q_ij = s_i s_j K(x_i, x_j) for C-SVC, nu-SVC (s = y) and one-class (s = 1),
  over the solver's permuted variables.
- `SVRQMatrix`: the 2l variables of the regressions over l examples.

`get_row` returns NULL when memory runs out; the solver then stops with MemoryError.
"""
import numpy as np
cimport numpy as cnp
from libsmo._core.checks import check_lengths, check_range
from libsmo._core.cache cimport RowCache
from libsmo._core.kernel cimport RBF
from libsmo._core.rows cimport MANY_ROWS, Rows
from libsmo._core.sparse_dots cimport SmoRowBatch
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

# A copy of the columns of some rows (`narrow_rows`) costs about what a few dozen rows of
# products over the whole columns cost: made for a loop of at least this many rows.
NARROW_MIN_ROWS = 256

cnp.import_array()


cdef extern from "step_loops.h" nogil:
    void smo_svr_row(int n, int in_order, int l, float s_i, const float* sign,
                     const float* krow, const int* index, float* out)
    void smo_signed_row_threads(int n, double s_i, const double* sign, const double* k,
                                float* out, int threads)
    void smo_add_scaled_row_threads(int n, double* out, double coef, const float* Qi,
                                    int threads)


cdef class QMatrix:
    """Q_ij = s_i s_j K(x_i, x_j) for the classification and one-class problems.

    Parameters
    ----------
    kernel : Kernel
    sign : ndarray of float64
        s_i = y_i for C-SVC and nu-SVC, all ones for one-class.
    cache_size_mb : float
        The row cache budget in megabytes.

    Raises
    ------
    ValueError
        sign without one entry per row of the kernel (swaps and rows index it).
    """

    def __init__(self, Kernel kernel, sign, double cache_size_mb, int rows_together=1,
                 bint reconstruct_together=True, cache_policy="lru"):
        cdef int i
        check_lengths(kernel.n_rows, "the kernel's rows", sign=sign)
        self.kernel = kernel
        self.sign = np.ascontiguousarray(sign, dtype=np.float64).copy()
        n = kernel.n_rows
        self.cache = RowCache(n, cache_size_mb * 1024.0 * 1024.0, kernel.n_threads,
                              cache_policy)
        self.kbuf = np.empty(max(n, 1))
        self.tail = np.empty(max(n, 1), dtype=np.float32)
        self.diag = np.empty(n)
        for i in range(n):
            self.diag[i] = kernel.value(i, i)
        # rows computed together only where the kernel reads them in one pass; the
        # rows computed ahead only into the cache's free room (`get_rows`)
        self.rows_together = 1
        if rows_together > 1 and kernel.rows.reads_rows_together():
            self.rows_together = min(rows_together, MANY_ROWS)
            self.kbuf_many = np.empty(self.rows_together * max(n, 1))
        self.entries_together = (MANY_ROWS if reconstruct_together
                                 and kernel.rows.reads_rows_together() else 1)

    cdef bint is_cached(self, int i) noexcept nogil:
        """Whether any of row i is in the cache."""
        return self.cache.length[i] > 0

    cdef float* get_entries(self, int i, int start, int end) noexcept nogil:
        """Q_ij for j in [start, end), at the returned pointer's [0, end - start): from
        the cache when it holds them, else computed into a buffer valid until the next
        call, without caching them. For the gradient's reconstruction, which reads
        thousands of rows once each: through the cache they pushed out the rows the
        steps were using (on the reviews, 13,092 rows, half of a fit's kernel values)."""
        cdef float* row = self.cache.peek(i, end)
        if row != NULL:
            return &row[start]
        self._fill(i, start, end, &self.tail[0])
        return &self.tail[0]

    cdef int add_rows(self, const int* rows, const double* coefs, int count, int start,
                      int end, double* out) noexcept nogil:
        """out[j - start] += coefs[b] Q_{rows[b] j} for j in [start, end) and b in order,
        Q's entries as `get_entries` gives them (the cache's where it holds them): the
        gradient's reconstruction. All the rows in one parallel region where the kernel
        can (`_add_rows_together`: returns 1), else row by row (0); the same sums
        either way. -1 when memory ran out."""
        cdef float* row
        cdef int b, k, m, together
        cdef long long n = end - start
        if count <= 0 or end <= start:
            return 0
        if self._add_rows_together(rows, coefs, count, start, end, out):
            return 1
        together = self.entries_rows()
        b = 0
        while b < count:
            k = min(together, count - b)
            if k > 1:
                # k rows in one pass over the data, then added in their order
                row = self.entries_block(&rows[b], k, start, end)
                if row == NULL:
                    return -1
                for m in range(k):
                    smo_add_scaled_row_threads(<int>n, out, coefs[b + m], &row[m * n],
                                               self.kernel.n_threads)
                b += k
                continue
            row = self.get_entries(rows[b], start, end)
            if row == NULL:
                return -1
            smo_add_scaled_row_threads(<int>n, out, coefs[b], row,
                                       self.kernel.n_threads)
            b += 1
        return 0

    cdef int entries_rows(self) noexcept nogil:
        """How many rows `entries_block` computes in one pass over the data: MANY_ROWS
        where the rows are read together (`Rows.reads_rows_together`: dense rows by
        row, int rows of small integers) unless made with reconstruct_together=False,
        else 1. The gradient's reconstruction reads thousands of rows over the same
        columns once each: one by one, each row streamed the whole data from memory
        (Fashion-MNIST 40,000 x 784, 2,000 free rows over 37,000 inactive columns:
        half of a fit's time)."""
        return self.entries_together

    cdef float* entries_block(self, const int* rows, int count, int start,
                              int end) noexcept nogil:
        """Q_{rows[b] j} for b in [0, count <= entries_rows()) and j in [start, end), at
        the returned pointer's [b (end - start) + j - start], valid until the next call:
        the rows the cache holds over [start, end) copied from it, the others computed
        in one pass over the data (`Kernel.rows_many`) and not cached. The same values
        `get_entries` gives, row by row. NULL when memory ran out."""
        cdef long long n = end - start, need = <long long>count * n
        cdef int b, missing = 0
        cdef int sources[MANY_ROWS]
        cdef int slots[MANY_ROWS]
        cdef float* cached
        if need > self.block_entries:
            self._free_block()
            self.block_k = <double*>malloc(need * sizeof(double))
            self.block_q = <float*>malloc(need * sizeof(float))
            if self.block_k == NULL or self.block_q == NULL:
                self._free_block()
                return NULL
            self.block_entries = need
        for b in range(count):
            cached = self.cache.peek(rows[b], end)
            if cached != NULL:
                memcpy(&self.block_q[b * n], &cached[start], n * sizeof(float))
            else:
                sources[missing] = rows[b]
                slots[missing] = b
                missing += 1
        if missing == 0 or n == 0:
            return self.block_q
        self.kernel.rows_many(sources, missing, start, end, self.block_k, n)
        for b in range(missing):
            smo_signed_row_threads(<int>n, self.sign[sources[b]], &self.sign[start],
                                   &self.block_k[b * n], &self.block_q[slots[b] * n],
                                   self.kernel.n_threads)
        return self.block_q

    cdef void _free_block(self) noexcept nogil:
        free(self.block_k)
        free(self.block_q)
        self.block_k = NULL
        self.block_q = NULL
        self.block_entries = 0

    def __dealloc__(self):
        self._free_block()

    cdef bint _add_rows_together(self, const int* rows, const double* coefs, int count,
                                 int start, int end, double* out) noexcept nogil:
        """`add_rows` in one region (`Kernel.add_q_rows`): False, nothing done, where the
        kernel cannot or memory is short."""
        cdef SmoRowBatch batch
        cdef const float** cached = <const float**>malloc(count * sizeof(float*))
        cdef float* row
        cdef int b
        cdef bint done
        if cached == NULL:
            return False
        for b in range(count):
            row = self.cache.peek(rows[b], end)
            cached[b] = &row[start] if row != NULL else NULL
        batch.count, batch.rows, batch.coefs, batch.cached = count, rows, coefs, cached
        done = self.kernel.add_q_rows(&batch, start, end, &self.sign[0], &self.kbuf[0],
                                      &self.tail[0], out)
        free(cached)
        return done

    cdef int rows_ahead(self, int length) noexcept nogil:
        """How many rows of `length` entries `get_rows` computes together now: up to
        rows_together, as many as the cache's free room holds (at least 1). The rows
        ahead never evict a row. One pushed out unused costs its computation again
        (a9a, 32,561 rows in a 200 MB cache: fits twice as slow; Fashion-MNIST 40,000
        in 100 MB: three times the kernel values), and kept aside until asked for
        instead, they were seldom asked for before the next miss (Fashion-MNIST
        40,000 in 100 MB: 860 of about 67,000), so a full cache computes one row a
        miss."""
        if self.rows_together <= 1 or length <= 0:
            return 1
        return <int>max(1, min(<long long>self.rows_together,
                               self.cache.free_entries // length))

    cdef float* get_rows(self, const int* rows, int count, int length) noexcept nogil:
        """Q row rows[0] over the first `length` variables, as `get_row`, with the rows
        rows[1 : count] (none of them cached) computed in the same pass over the data and
        cached for the steps that ask for them next; NULL when memory ran out."""
        cdef float* row = NULL
        cdef int b, start
        count = min(count, self.rows_ahead(length))
        if count <= 1 or length <= 0 or self.cache.length[rows[0]] > 0:
            return self.get_row(rows[0], length)
        self.kernel.rows_many(rows, count, 0, length, &self.kbuf_many[0], length)
        # rows[0] last, so that it is the most recent row in the cache; the row the
        # cache returned before (the step's Q_i) stays while the others are stored
        # (they fit in the free room: none is evicted, `rows_ahead`)
        self.cache.pinned = self.cache.last_row
        for b in range(count - 1, -1, -1):
            start = self.cache.get(rows[b], length, &row)
            if start < 0:
                self.cache.pinned = -1
                return NULL
            smo_signed_row_threads(length - start, self.sign[rows[b]], &self.sign[start],
                                   &self.kbuf_many[b * length + start], &row[start],
                                   self.kernel.n_threads)
        self.cache.pinned = -1
        return row

    cdef float* get_row(self, int i, int length) noexcept nogil:
        """Q row i over the first `length` variables; NULL when memory ran out."""
        cdef float* row
        cdef int start = self.cache.get(i, length, &row)
        if start < 0:
            return NULL
        if start < length:
            self._fill(i, start, length, &row[start])
        return row

    cdef float* get_row_split(self, int i, int length, int* split,
                              float** tail) noexcept nogil:
        """Q row i over the first `length` variables without growing its cached part:
        entries [0, split[0]) in the returned row, [split[0], length) in tail[0][0 :
        length - split[0]] (valid until the next call). NULL when memory ran out.

        The G_bar update reads a whole row when a variable reaches or leaves its bound,
        the step having just cached it over the active variables. Growing it meant
        moving it: on a9a 11,607 growths copied about 28,000 entries each to add 4,500,
        and a row's inactive entries are seldom read twice (2,022 updates found a
        whole row). A row not cached at all is cached whole, as `get_row` does."""
        cdef int have = self.cache.length[i]
        tail[0] = &self.tail[0]
        if have == 0 or have >= length:
            split[0] = length
            return self.get_row(i, length)
        split[0] = have
        self._fill(i, have, length, tail[0])
        return self.get_row(i, have)

    cdef void _fill(self, int i, int start, int end, float* out) noexcept nogil:
        """Q_ij for j in [start, end) into out[0 : end - start] (not cached)."""
        self.kernel.q_row(i, start, end, self.sign[i], &self.sign[start], &self.kbuf[0],
                          out)

    cdef void defer_swaps(self) noexcept nogil:
        """The cache's row exchanges wait for `apply_swaps` (RowCache.defer_swaps)."""
        self.cache.defer_swaps()

    cdef void set_rank(self, const SmoRowRank* rank) noexcept nogil:
        """The solver's ranks for the cache's "ranked" policy (`RowCache.set_rank`)."""
        self.cache.set_rank(rank)



    cdef void apply_swaps(self) noexcept nogil:
        self.cache.apply_swaps()

    cdef void swap_index(self, int i, int j) noexcept nogil:
        self.cache.swap_index(i, j)
        self.kernel.swap(i, j)
        self.sign[i], self.sign[j] = self.sign[j], self.sign[i]
        self.diag[i], self.diag[j] = self.diag[j], self.diag[i]

    cdef void narrow(self, int start, int end, int count) noexcept nogil:
        """`narrow_rows`, from the solver's loop."""
        with gil:
            self.narrow_rows(start, end, count)

    def narrow_rows(self, int start, int end, int count):
        """Before about `count` rows over [start, end) or ranges inside it (the
        reconstruction's `get_entries`, the steps' rows over the active variables until
        the next shrinking pass): where the rows are summed over their columns
        (`sparse_dots.SparseColumns.narrow`), over a copy of the columns of the rows
        now at [start, end) alone, when `count` pays for the copy (at least
        NARROW_MIN_ROWS). Any other `count` drops the copy, and so does the next swap.
        The copy, at most the whole columns' bytes, is held beside the cache; memory
        short for it: the whole columns, as before. ValueError unless
        0 <= start <= end (an end past the rows stands for the last row)."""
        cdef Rows rows = self.kernel.rows
        check_range(start, end)
        if rows.columns is None:
            return
        if count < NARROW_MIN_ROWS:
            start = end = 0
        try:
            rows.columns.narrow(rows.csr_data, rows.csr_indices, rows.row_start,
                                rows.row_nnz, start, end)
        except MemoryError:
            rows.columns.narrow(rows.csr_data, rows.csr_indices, rows.row_start,
                                rows.row_nnz, 0, 0)

    def release_cache(self):
        """Free the cached rows now (`RowCache.release`), and the reconstruction's
        block; returns the bytes the rows held."""
        self._free_block()
        return self.cache.release()

    @property
    def n_variables(self):
        """The number of variables (the length of the rows and of the diagonal)."""
        return self.diag.shape[0]

    def diagonal(self):
        """Q_ii in the current variable order (float64)."""
        return np.asarray(self.diag).copy()

    def row(self, int i, length=None):
        """Python access for tests: Q row i over the first `length` variables (default
        all), as the solver sees it (float32, current variable order).

        Returns
        -------
        ndarray of float32
        """
        cdef int n = self.diag.shape[0]
        cdef int m = n if length is None else length
        cdef float* q
        if not (0 <= i < n and 0 <= m <= n):
            raise IndexError(f"row {i} of length {m} is outside {n} variables")
        with nogil:
            q = self.get_row(i, m)
        if q == NULL:
            raise MemoryError("cannot allocate a Q row")
        return np.array([q[k] for k in range(m)], dtype=np.float32)

    def row_split(self, int i, int length):
        """Python access for tests: Q row i over the first `length` variables as the
        G_bar update reads it (`get_row_split`).

        Returns
        -------
        split : int
            How many leading entries came from the cached row.
        values : ndarray of float32
        """
        cdef int n = self.diag.shape[0], split = 0, k
        cdef float* q
        cdef float* tail
        if not (0 <= i < n and 0 <= length <= n):
            raise IndexError(f"row {i} of length {length} is outside {n} variables")
        with nogil:
            q = self.get_row_split(i, length, &split, &tail)
        if q == NULL:
            raise MemoryError("cannot allocate a Q row")
        return split, np.array([q[k] if k < split else tail[k - split]
                                for k in range(length)], dtype=np.float32)

    def entries(self, int i, int start, int end):
        """Python access for tests: Q_ij for j in [start, end) as the gradient's
        reconstruction reads them (`get_entries`).

        Returns
        -------
        ndarray of float32
        """
        cdef int n = self.diag.shape[0], k
        cdef float* q
        if not (0 <= i < n and 0 <= start <= end <= n):
            raise IndexError(f"entries {start}:{end} of row {i} are outside {n} variables")
        with nogil:
            q = self.get_entries(i, start, end)
        if q == NULL:
            raise MemoryError("cannot allocate a Q row")
        return np.array([q[k] for k in range(end - start)], dtype=np.float32)

    def entries_of_rows(self, rows, int start, int end):
        """Python access for tests: Q_ij for i in `rows` (at most `entries_rows`
        of them) and j in [start, end), as the gradient's reconstruction reads a block
        of them (`entries_block`; one row: `get_entries`).

        Returns
        -------
        ndarray of float32, shape (len(rows), end - start)
        """
        cdef int n = self.diag.shape[0], k, b
        cdef int[::1] batch = np.ascontiguousarray(rows, dtype=np.int32)
        cdef int count = batch.shape[0]
        cdef float* q
        if not (0 <= start <= end <= n) or any(not 0 <= i < n for i in rows):
            raise IndexError(f"rows {list(rows)}, entries {start}:{end} of {n} variables")
        if not 1 <= count <= self.entries_rows():
            raise ValueError(f"1 to {self.entries_rows()} rows, got {count}")
        with nogil:
            q = (self.entries_block(&batch[0], count, start, end) if count > 1
                 else self.get_entries(batch[0], start, end))
        if q == NULL:
            raise MemoryError("cannot allocate Q rows")
        return np.array([[q[b * (end - start) + k] for k in range(end - start)]
                         for b in range(count)], dtype=np.float32).reshape(count, end - start)

    def added_rows(self, rows, coefs, int start, int end, out):
        """Python access for tests: out[j - start] += coefs[b] Q_{rows[b] j} for j in
        [start, end), b in order, as the gradient's reconstruction adds them
        (`add_rows`); out is changed in place. Returns whether the rows were added in
        one region."""
        cdef int n = self.diag.shape[0]
        cdef int[::1] batch = np.ascontiguousarray(rows, dtype=np.int32)
        cdef double[::1] c = np.ascontiguousarray(coefs, dtype=np.float64)
        cdef double[::1] o = out
        if not (0 <= start <= end <= n) or o.shape[0] != end - start:
            raise IndexError(f"entries {start}:{end} of {n} variables into {o.shape[0]}")
        if c.shape[0] != batch.shape[0] or any(not 0 <= i < n for i in rows):
            raise IndexError(f"rows {list(rows)} and {c.shape[0]} coefficients")
        cdef int done = 0
        if batch.shape[0] and end > start:
            done = self.add_rows(&batch[0], &c[0], batch.shape[0], start, end, &o[0])
        if done < 0:
            raise MemoryError("cannot allocate a Q row")
        return done == 1

    def rows_ahead_of(self, int length):
        """Python access for tests: how many rows of `length` entries a miss computes
        together now (`rows_ahead`)."""
        return self.rows_ahead(length)

    def rows_with(self, rows, int length):
        """Python access for tests: Q row rows[0] over `length` variables computed
        together with the rows rows[1:] as far as the cache's free room holds them
        (`get_rows`).

        Returns
        -------
        ndarray of float32
        """
        cdef int n = self.diag.shape[0], k
        cdef int[::1] batch = np.ascontiguousarray(rows, dtype=np.int32)
        cdef float* q
        if not (0 < batch.shape[0] <= max(self.rows_together, 1) and 0 < length <= n
                and all(0 <= i < n for i in rows)):
            raise IndexError(f"rows {list(rows)} of length {length} in {n} variables")
        with nogil:
            q = self.get_rows(&batch[0], batch.shape[0], length)
        if q == NULL:
            raise MemoryError("cannot allocate a Q row")
        return np.array([q[k] for k in range(length)], dtype=np.float32)

    @property
    def row_cache(self):
        """The `RowCache` behind the rows (its policy, budget and evictions)."""
        return self.cache

    def cached_length(self, int i):
        """Python access for tests: how many entries of row i the cache holds."""
        if not 0 <= i < self.cache.n_rows:
            raise IndexError(f"row {i} is outside {self.cache.n_rows} rows")
        return self.cache.length[i]

    def row_is_cached(self, int i):
        """Python access for tests: whether the solver finds variable i's row cached
        (`is_cached`, which it asks of every variable it needs a row of)."""
        cdef int n = self.diag.shape[0]
        if not 0 <= i < n:
            raise IndexError(f"variable {i} is outside {n} variables")
        return self.is_cached(i)

    def swap(self, int i, int j):
        """Python access for tests: exchange variables i and j, as the solver does."""
        cdef int n = self.diag.shape[0]
        if not (0 <= i < n and 0 <= j < n):
            raise IndexError(f"variables {i}, {j} are outside {n}")
        self.swap_index(i, j)


cdef class SVRQMatrix(QMatrix):
    """Q for support vector regression: 2l variables over l examples.

    Variable k < l is alpha_k (sign +1) and variable l + k is alpha*_k (sign -1); both
    stand for example k, so Q_kt = s_k s_t K(x_{k mod l}, x_{t mod l}). Kernel rows of
    the l examples are cached whole and never permuted; the solver's permutation of the
    2l variables lives in `index` and `float_sign` (the base class's float64 `sign` is
    not used), and a Q row is assembled from the cached kernel row into one of two
    buffers (the solver holds at most two rows at once).

    Parameters
    ----------
    kernel : Kernel
        Over the l examples; never swapped.
    cache_size_mb : float
    """

    def __init__(self, Kernel kernel, double cache_size_mb):
        cdef int k, l = <int>kernel.n_rows
        self.kernel = kernel
        self.n_examples = l
        self.float_sign = np.empty(2 * l, dtype=np.float32)
        self.index = np.empty(2 * l, dtype=np.int32)
        self.diag = np.empty(2 * l)
        for k in range(l):
            self.float_sign[k] = 1.0
            self.float_sign[k + l] = -1.0
            self.index[k] = k
            self.index[k + l] = k
            self.diag[k] = kernel.value(k, k)
            self.diag[k + l] = self.diag[k]
        self.cache = RowCache(l, cache_size_mb * 1024.0 * 1024.0)
        self.kbuf = np.empty(max(l, 1))
        self.buffers = np.empty((2, max(2 * l, 1)), dtype=np.float32)
        self.next_buffer = 0
        self.in_order = 2 * l
        for k in range(2):
            self.buffer_row[k] = -1
            self.buffer_length[k] = 0

    cdef float* get_row(self, int i, int length) noexcept nogil:
        cdef float* krow
        cdef float* out
        cdef int j, b, l = self.n_examples
        cdef int real = self.index[i]
        cdef int start
        # a step asks for the row of its first variable twice (to select the partner,
        # then to update the gradient): the buffer still holding it is returned as is
        for b in range(2):
            if self.buffer_row[b] == i and self.buffer_length[b] >= length:
                self.next_buffer = 1 - b
                return &self.buffers[b, 0]
        start = self.cache.get(real, l, &krow)
        if start < 0:
            return NULL
        if start < l:
            self.kernel.row(real, start, l, &self.kbuf[0])
            for j in range(start, l):
                krow[j] = <float>self.kbuf[j - start]
        b = self.next_buffer
        out = &self.buffers[b, 0]
        self.next_buffer = 1 - b
        smo_svr_row(length, self.in_order, l, self.float_sign[i], &self.float_sign[0],
                    krow, &self.index[0], out)
        self.buffer_row[b] = i
        self.buffer_length[b] = length
        return out

    cdef bint is_cached(self, int i) noexcept nogil:
        # the cache holds the l examples' kernel rows and the solver asks about its
        # 2l variables: variable i's row is cached when its example's is (the base's
        # length[i] would read past the cache's l + 1 entries for i > l)
        return self.cache.length[self.index[i]] > 0

    cdef bint _add_rows_together(self, const int* rows, const double* coefs, int count,
                                 int start, int end, double* out) noexcept nogil:
        # the regressions' rows are assembled from kernel rows: one at a time
        return False

    cdef int entries_rows(self) noexcept nogil:
        # likewise (`entries_block` reads the base class's signs and rows)
        return 1

    cdef float* get_entries(self, int i, int start, int end) noexcept nogil:
        # a Q row is assembled from a cached kernel row of the l examples
        cdef float* row = self.get_row(i, end)
        return NULL if row == NULL else &row[start]

    def narrow_rows(self, int start, int end, int count):
        # variables are not examples here: the columns stay whole
        return

    cdef float* get_row_split(self, int i, int length, int* split,
                              float** tail) noexcept nogil:
        # the cache holds whole kernel rows: nothing grows, nothing is left out
        split[0] = length
        return self.get_row(i, length)

    cdef void set_rank(self, const SmoRowRank* rank) noexcept nogil:
        # the cache's rows are the l examples, not the solver's variables: LRU order
        return

    cdef void swap_index(self, int i, int j) noexcept nogil:
        # the assembled rows are in the old order
        self.buffer_row[0] = -1
        self.buffer_row[1] = -1
        if i != j:
            self.in_order = min(self.in_order, i, j)
        self.float_sign[i], self.float_sign[j] = self.float_sign[j], self.float_sign[i]
        self.index[i], self.index[j] = self.index[j], self.index[i]
        self.diag[i], self.diag[j] = self.diag[j], self.diag[i]
