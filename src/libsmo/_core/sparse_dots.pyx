# cython: language_level=3
"""Rows of dot products x_i'x_j of CSR training rows, two ways with the same values.

`gather_dots` scatters x_i into a dense buffer and gathers one product per stored value
of every other row (LIBSVM's sparse dot, without its merge of index lists): every
stored value of the rows is read for each row of products, whatever x_i is. TF-IDF
rows share few features: the reviews' 15,849 rows store 92 values each, 1.46 million a
row of products, but the columns of one row's features hold about 148,000 on average
(a common word's column is long, a rare one's short). `SparseColumns`, a feature-major
copy of the rows, walks those columns and adds x_if x_jf into out[j].

The same values: every out[j] gets its products in ascending feature order (CSR rows
are canonical after validation: sorted indices), as the gather adds them, and the
gather's other products are x_jf times a zero of the buffer, which leave a sum
unchanged (a sum that starts at +0.0 is never -0.0 in round-to-nearest, and s + 0 = s
otherwise). So the steps are the same either way, and `pays` may choose per row.
"""
import numpy as np
from cython.parallel cimport prange
from libsmo._core.checks import check_csr_rows, check_range
from libc.stdlib cimport free, realloc
from libc.string cimport memset

cdef extern from "openmp_threads.h" nogil:
    int smo_openmp_max_threads()

cdef extern from "inner_loops.h" nogil:
    void smo_axpy(int n, double* out, double a, const double* b)
    void smo_add_scaled_row(int n, double* out, double coef, const float* Qi)


# An addition of the columns costs about this many of the gather's products (measured
# on the reviews: 3 gave 10.7-11.1 s a fit, 1 gave 8.9-9.2 s, 0.5 the same).
cdef long long SCATTER_COST = 1
# Training's columns (`SparseColumns(dense_share=...)`) keep a dense copy of each
# feature that at least this share of at least DENSE_COLUMN_MIN_ROWS rows store: one pass of
# four-wide multiply-adds over all the rows costs less than the stored values' indexed
# adds there (the reviews: the 19 words of 30% of the rows or more hold 61% of a row's
# products).
DENSE_COLUMN_SHARE = 0.3
DENSE_COLUMN_MIN_ROWS = 256
# Copies of at least this many values are sorted on their threads (`_sort_threads`).
cdef long long SORT_PARALLEL_MIN = 1 << 16


cdef void gather_dots(const double* data, const int* indices, const long long* row_start,
                      const int* row_nnz, int i, int start, int end, int nthreads,
                      double* scatter, double* out) noexcept nogil:
    """out[j - start] = x_i'x_j for j in [start, end): x_i scattered into `scatter` (all
    zeros, and left so), then each row's products with it added in its stored order."""
    cdef long long k, stop = row_start[i] + row_nnz[i]
    cdef int j
    for k in range(row_start[i], stop):
        scatter[indices[k]] = data[k]
    if nthreads > 1:
        for j in prange(end - start, schedule="static", num_threads=nthreads):
            out[j] = _gathered(data, indices, row_start[start + j], row_nnz[start + j],
                               scatter)
    else:
        for j in range(end - start):
            out[j] = _gathered(data, indices, row_start[start + j], row_nnz[start + j],
                               scatter)
    for k in range(row_start[i], stop):
        scatter[indices[k]] = 0.0


cdef inline double _gathered(const double* data, const int* indices, long long first,
                             int nnz, const double* scatter) noexcept nogil:
    cdef double s = 0.0
    cdef long long k
    for k in range(first, first + nnz):
        s += data[k] * scatter[indices[k]]
    return s


def copy_bytes(long long stored, Py_ssize_t n_features, Py_ssize_t n_rows,
               Py_ssize_t n_dense=0):
    """The bytes a `SparseColumns` takes for n_rows rows of `stored` values in all, with
    n_dense dense columns (`dense_column_count`)."""
    return (12 * stored + 8 * (n_features + 1) + 12 * n_rows
            + (8 * n_dense * n_rows + 4 * n_features if n_dense else 0))


def dense_column_count(counts, Py_ssize_t n_rows, double dense_share):
    """How many features of these per-feature counts of stored values over n_rows rows
    a `SparseColumns(dense_share=dense_share)` keeps as dense columns."""
    if dense_share <= 0 or n_rows < DENSE_COLUMN_MIN_ROWS:
        return 0
    return int(np.count_nonzero(np.asarray(counts) >= dense_share * n_rows))


cdef int _sort_threads(int n_threads, long long total, Py_ssize_t n_features):
    """The threads that sort a copy of `total` values over n_features: one below
    SORT_PARALLEL_MIN values, or where each thread's counts (8 bytes a feature) would
    take more than the copy's values (12 bytes each)."""
    if n_threads <= 1 or total < SORT_PARALLEL_MIN:
        return 1
    return max(1, min(n_threads, <int>((12 * total) // (8 * (n_features + 1)))))


cdef void _count_rows(const int* indices, const long long* row_start, const int* row_nnz,
                      Py_ssize_t first, Py_ssize_t last, long long* counts) noexcept nogil:
    """counts[f] += the values of feature f in rows [first, last)."""
    cdef Py_ssize_t r
    cdef long long k
    for r in range(first, last):
        for k in range(row_start[r], row_start[r] + row_nnz[r]):
            counts[indices[k]] += 1


cdef void _place_rows(const double* data, const int* indices, const long long* row_start,
                      const int* row_nnz, Py_ssize_t first, Py_ssize_t last,
                      long long* next_entry, int* col_row, double* col_val) noexcept nogil:
    """The values of rows [first, last), in row order, each at its feature's next entry
    (next_entry[f], then advanced)."""
    cdef Py_ssize_t r
    cdef long long k, p
    for r in range(first, last):
        for k in range(row_start[r], row_start[r] + row_nnz[r]):
            p = next_entry[indices[k]]
            next_entry[indices[k]] = p + 1
            col_row[p] = <int>r
            col_val[p] = data[k]


cdef class SparseColumns:
    """The columns of canonical CSR rows (data, indices: a feature once a row; row k at
    row_start[k], row_nnz[k] values) over n_features, for `Rows` (its row numbers,
    then its swaps; column_loops.h relies on a column's rows being distinct). With
    dense_share > 0, the columns of the features that at least that share of the rows
    store (`dense_column_count`) are also kept dense, and `dots` adds those columns
    whole (a product with a row's zero adds +0.0 or -0.0 to a sum that is never -0.0:
    the same sums). ValueError: rows beyond data or n_features (`arrays.check_csr_rows`)."""

    def __init__(self, const double[::1] data, const int[::1] indices,
                 const long long[::1] row_start, const int[::1] row_nnz,
                 Py_ssize_t n_features, double dense_share=0.0, int n_threads=1):
        cdef Py_ssize_t n_rows = row_nnz.shape[0], f
        cdef long long p, total = check_csr_rows(indices, row_start, np.add(
            row_start, row_nnz), data.shape[0], n_features)   # the sort indexes by them
        cdef int slot, threads
        # n_threads: for this copy's sort and its narrowed copies' (0: as OpenMP allows)
        self.n_threads = n_threads if n_threads > 0 else max(1, smo_openmp_max_threads())
        threads = _sort_threads(self.n_threads, total, n_features)
        self.col_start = np.zeros(n_features + 1, dtype=np.int64)
        self.col_row = np.empty(max(total, 1), dtype=np.int32)
        self.col_val = np.empty(max(total, 1))
        self.original = np.arange(n_rows, dtype=np.int32)
        self.sums = np.zeros(max(n_rows, 1))
        self.n_bytes = copy_bytes(total, n_features, n_rows)
        self.narrow_start = self.narrow_end = self.gathers_start = self.gathers_end = -1
        self.unswapped = True
        if threads > 1:
            self._sort_on_threads(data, indices, row_start, row_nnz, threads)
        else:
            with nogil:
                self._sort(data, indices, row_start, row_nnz, total)
        self.dense_share = dense_share
        counts = np.diff(np.asarray(self.col_start))
        self.n_dense = dense_column_count(counts, n_rows, dense_share)
        if self.n_dense == 0:
            return
        self.dense_slot = np.full(n_features, -1, dtype=np.int32)
        self.dense = np.zeros((self.n_dense, n_rows))
        self.n_bytes = copy_bytes(total, n_features, n_rows, self.n_dense)
        dense_features = np.flatnonzero(counts >= dense_share * n_rows).astype(np.int32)
        cdef const int[::1] features = dense_features
        np.asarray(self.dense_slot)[dense_features] = np.arange(self.n_dense, dtype=np.int32)
        with nogil:
            for slot in prange(self.n_dense, num_threads=threads, schedule="dynamic"):
                f = features[slot]
                for p in range(self.col_start[f], self.col_start[f + 1]):
                    self.dense[slot, self.col_row[p]] = self.col_val[p]

    cdef void _sort(self, const double[::1] data, const int[::1] indices,
                    const long long[::1] row_start, const int[::1] row_nnz,
                    long long total) noexcept nogil:
        """col_start, col_row and col_val by a counting sort of the rows' values by
        feature, on one thread."""
        cdef Py_ssize_t n_rows = row_nnz.shape[0], n_features = self.col_start.shape[0] - 1
        cdef Py_ssize_t r, f
        cdef long long k, p
        # col_start[f + 1] counts column f, then ends it
        for r in range(n_rows):
            for k in range(row_start[r], row_start[r] + row_nnz[r]):
                self.col_start[indices[k] + 1] += 1
        for f in range(n_features):
            self.col_start[f + 1] += self.col_start[f]
        # the last rows first, each to the end of its columns: then a column's rows are
        # in ascending order, and col_start[f + 1] is where column f starts
        for r in range(n_rows - 1, -1, -1):
            for k in range(row_start[r], row_start[r] + row_nnz[r]):
                self.col_start[indices[k] + 1] -= 1
                p = self.col_start[indices[k] + 1]
                self.col_row[p] = <int>r
                self.col_val[p] = data[k]
        for f in range(n_features):
            self.col_start[f] = self.col_start[f + 1]
        self.col_start[n_features] = total

    cdef int _sort_on_threads(self, const double[::1] data, const int[::1] indices,
                              const long long[::1] row_start, const int[::1] row_nnz,
                              int threads) except -1:
        """`_sort` on `threads` threads, each over one range of the rows: each counts
        its rows' values by feature, then puts them after the earlier ranges' values
        of each column, so a column's rows are in ascending order as `_sort` leaves
        them (the same copy)."""
        cdef Py_ssize_t n_rows = row_nnz.shape[0], n_features = self.col_start.shape[0] - 1
        cdef Py_ssize_t f
        cdef long long running = 0, count
        cdef int t
        next_entry = np.zeros((threads, max(n_features, 1)), dtype=np.int64)
        cdef long long[:, ::1] slots = next_entry
        with nogil:
            for t in prange(threads, num_threads=threads, schedule="static"):
                _count_rows(&indices[0], &row_start[0], &row_nnz[0],
                            (n_rows * t) // threads, (n_rows * (t + 1)) // threads,
                            &slots[t, 0])
            # column f starts after the columns before it; range t's entries of it
            # after the earlier ranges'
            for f in range(n_features):
                self.col_start[f] = running
                for t in range(threads):
                    count = slots[t, f]
                    slots[t, f] = running
                    running = running + count
            self.col_start[n_features] = running
            for t in prange(threads, num_threads=threads, schedule="static"):
                _place_rows(&data[0], &indices[0], &row_start[0], &row_nnz[0],
                            (n_rows * t) // threads, (n_rows * (t + 1)) // threads,
                            &slots[t, 0], &self.col_row[0], &self.col_val[0])
        return 0

    def __dealloc__(self):
        free(self.bounds)

    def narrow(self, const double[::1] data, const int[::1] indices,
               const long long[::1] row_start, const int[::1] row_nnz, int start, int end):
        """Until the next swap, rows of products over the rows now at [start, end), or
        over a range inside it, are summed over a copy of those rows' columns alone
        (`narrowed`): the solver's steps ask for products with the active variables
        only, and the gradient's reconstruction thousands of rows for their products
        with the shrunk variables (or the active ones), while the whole columns hold
        every row's values. The same sums in the same feature order, so the same bits.
        An empty range, or all the rows, drops the copy; the range of a copy that no
        swap has touched keeps it.

        Parameters
        ----------
        data, indices : the CSR rows' arrays
        row_start, row_nnz : ndarray
            Each row's extent, by its current position.
        start, end : int
            0 <= start <= end, else ValueError (an end past the rows: up to the last).
        """
        cdef Py_ssize_t n_rows = self.original.shape[0]
        check_range(start, end)
        if start == self.narrow_start and end == self.narrow_end:
            return   # no swap since: the copy still holds exactly these rows
        self.narrowed = None
        self.narrow_start = self.narrow_end = -1
        if end - start <= 0 or end - start >= n_rows:
            return
        self.narrowed = SparseColumns(data, indices, row_start[start:end],
                                      row_nnz[start:end], self.col_start.shape[0] - 1,
                                      self.dense_share, self.n_threads)
        self.narrow_start, self.narrow_end = start, end

    cdef bint pays(self, const int* features, int nnz, const int* row_nnz, int start,
                   int end) noexcept nogil:
        """Whether the columns build a row of products over rows [start, end) faster
        than gathers over their stored values (row_nnz[j] each; both ways share the
        work among the same threads), for the row of nnz stored values at `features`."""
        cdef int j
        if start != self.gathers_start or end != self.gathers_end:
            # counted once for each range until a swap: a step's row asks the same range
            self.gathers = 0
            for j in range(start, end):
                self.gathers += row_nnz[j]
            self.gathers_start, self.gathers_end = start, end
        if self.narrow_start <= start and end <= self.narrow_end:
            return SCATTER_COST * self.narrowed._column_values(features, nnz) < self.gathers
        return SCATTER_COST * self._column_values(features, nnz) < self.gathers

    cdef long long _column_values(self, const int* features, int nnz) noexcept nogil:
        """The values in the columns of these features: the columns' work for a row
        (counted when asked, a load per feature, where a table of every row's count
        had cost a narrowed copy a pass over all the rows' values)."""
        cdef long long values = 0
        cdef int k
        for k in range(nnz):
            values += self.col_start[features[k] + 1] - self.col_start[features[k]]
        return values

    cdef void dots(self, int i, const int* features, const double* values, int nnz,
                   int start, int end, int nthreads, double* out,
                   const SmoRowFinish* finish) noexcept nogil:
        """out[j - start] = x_i'x_j for j in [start, end), where row i (now at i) has
        the nnz stored values `values` at `features` (ascending). The sums go to
        `sums` by original row number, in a column's order (ascending: the writes
        stream), for every row, then the rows [start, end) are read out; a copy never
        swapped that is asked for all its rows sums into `out` itself. Over a range
        inside the narrowed copy's, that copy sums instead. On nthreads threads, each
        taking one range of the original row numbers: each reads only its part of
        every column (`_thread_bounds`), and each sum is one thread's, in feature
        order. With `finish` (else NULL), each thread then makes its part of the row a
        part of a Q row (`smo_finish_part`) in the same region."""
        cdef int t, first, last, n_rows = self.original.shape[0], n = end - start
        cdef Py_ssize_t n_features = self.col_start.shape[0] - 1
        self.n_built += 1
        if self.narrow_start <= start and end <= self.narrow_end:
            self.narrowed.dots(i, features, values, nnz, start - self.narrow_start,
                               end - self.narrow_start, nthreads, out, finish)
            return
        # rows in their first order, all of them asked (a narrowed copy's usual row):
        # the sums are the row itself
        cdef bint in_place = self.unswapped and start == 0 and end == n_rows
        cdef double* sums = out if in_place else &self.sums[0]
        cdef bint bounded = nthreads > 1 and self._thread_bounds(nthreads)
        if nthreads <= 1:
            self._part(0, n_rows, &self.col_start[0], &self.col_start[1], features,
                       values, nnz, sums)
            if in_place:
                if finish != NULL:
                    smo_finish_part(finish, out, 0, n)
            else:
                self._read_out(start, end, start, out, finish)
            return
        for t in prange(nthreads, num_threads=nthreads, schedule="static"):
            first = <int>((<long long>n_rows * t) // nthreads)
            last = <int>((<long long>n_rows * (t + 1)) // nthreads)
            self._part(first, last,
                       &self.bounds[t * n_features] if bounded else NULL,
                       &self.bounds[(t + 1) * n_features] if bounded else NULL,
                       features, values, nnz, sums)
            # in place, a thread's rows are its part of the row: finished at once
            if in_place and finish != NULL:
                smo_finish_part(finish, out, first, last)
        if in_place:
            return
        for t in prange(nthreads, num_threads=nthreads, schedule="static"):
            self._read_out(start + <int>((<long long>n * t) // nthreads),
                           start + <int>((<long long>n * (t + 1)) // nthreads), start, out,
                           finish)

    cdef bint add_rows(self, const SmoRowBatch* batch, int start, int end, int nthreads,
                       const SmoRowFinish* finish, double* work, double* out) noexcept nogil:
        """out[j - start] += coef_b Q_{i_b j} for j in [start, end) and the batch's rows
        b in order, each row of Q as `dots` makes it with `finish` (sq_i and s_i each
        row's own), through `work`: in one parallel region, each thread its part of
        every row, where a region a row left the threads waiting for each other at each
        row's end. Only over a copy never swapped asked for all its rows (the narrowed
        copy made for the loop); False, nothing done, elsewhere."""
        cdef int t, b, n_rows = self.original.shape[0]
        cdef Py_ssize_t n_features = self.col_start.shape[0] - 1
        if self.narrow_start <= start and end <= self.narrow_end:
            return self.narrowed.add_rows(batch, start - self.narrow_start,
                                          end - self.narrow_start, nthreads, finish, work,
                                          out)
        if not (self.unswapped and start == 0 and end == n_rows) or n_rows == 0:
            return False
        for b in range(batch.count):
            self.n_built += batch.cached[b] == NULL
        cdef bint bounded = nthreads > 1 and self._thread_bounds(nthreads)
        if nthreads <= 1:
            self._add_part(batch, 0, n_rows, &self.col_start[0], &self.col_start[1],
                           finish, work, out)
            return True
        for t in prange(nthreads, num_threads=nthreads, schedule="static"):
            self._add_part(batch, <int>((<long long>n_rows * t) // nthreads),
                           <int>((<long long>n_rows * (t + 1)) // nthreads),
                           &self.bounds[t * n_features] if bounded else NULL,
                           &self.bounds[(t + 1) * n_features] if bounded else NULL,
                           finish, work, out)
        return True

    cdef void _add_part(self, const SmoRowBatch* batch, int first, int last,
                        const long long* begin, const long long* stop,
                        const SmoRowFinish* finish, double* work,
                        double* out) noexcept nogil:
        """`add_rows` over the rows [first, last) of this copy: one thread's part."""
        cdef SmoRowFinish own = finish[0]
        cdef int b, i
        cdef long long k
        for b in range(batch.count):
            if batch.cached[b] != NULL:
                smo_add_scaled_row(last - first, &out[first], batch.coefs[b],
                                   &batch.cached[b][first])
                continue
            i = batch.rows[b]
            k = batch.row_start[i]
            self._part(first, last, begin, stop, &batch.features[k], &batch.values[k],
                       batch.row_nnz[i], work)
            own.sq_i, own.s_i = batch.sq_norm[i], batch.sign[i]
            smo_finish_part(&own, work, first, last)
            smo_add_scaled_row(last - first, &out[first], batch.coefs[b],
                               &own.q_out[first])

    cdef bint _thread_bounds(self, int nthreads) noexcept nogil:
        """`bounds` for rows split among nthreads threads, kept until another count is
        asked: where each thread's range of original row numbers starts in every
        column. One pass over the columns; without it each thread searched every
        column of the row's features for its start, and the two threads of the
        reviews' fits waited for each other on that. False where the table would take
        more than the copy itself (many threads, many features: the threads then search)
        or memory is short."""
        cdef Py_ssize_t n_features = self.col_start.shape[0] - 1, f
        cdef int t, n_rows = self.original.shape[0]
        cdef long long p, first_row
        cdef long long* grown
        if self.bound_threads == nthreads:
            return True
        self.bound_threads = 0
        if (nthreads + 1) * (n_features + 1) * sizeof(long long) > self.n_bytes:
            return False
        grown = <long long*>realloc(self.bounds,
                                    (nthreads + 1) * (n_features + 1) * sizeof(long long))
        if grown == NULL:
            return False
        self.bounds = grown
        for f in range(n_features):
            p = self.col_start[f]
            for t in range(nthreads):
                first_row = (<long long>n_rows * t) // nthreads
                while p < self.col_start[f + 1] and self.col_row[p] < first_row:
                    p += 1
                self.bounds[t * n_features + f] = p
            self.bounds[nthreads * n_features + f] = self.col_start[f + 1]
        self.bound_threads = nthreads
        return True

    cdef void _read_out(self, int first, int last, int start, double* out,
                        const SmoRowFinish* finish) noexcept nogil:
        """out[j - start] = the sum of the row now at j, for j in [first, last), then
        finished (`smo_finish_part`) unless `finish` is NULL."""
        cdef int j
        for j in range(first, last):
            out[j - start] = self.sums[self.original[j]]
        if finish != NULL:
            smo_finish_part(finish, out, first - start, last - start)

    cdef void _part(self, int first, int last, const long long* begin,
                    const long long* stop, const int* features, const double* values,
                    int nnz, double* sums) noexcept nogil:
        """The sums of the rows first <= original number < last, of row x (nnz stored
        `values` at `features`, ascending) with these rows, into sums[first : last]:
        column f's entries of these rows are [begin[f], stop[f]), or, where begin is
        NULL, found by a search from the row numbers."""
        cdef int k, f, ahead
        cdef long long p, end
        cdef double x
        # raw pointers: the compiler cannot tell that the stores to `sums` leave the
        # memoryviews' data pointers alone, and would reload them for every value
        cdef const int* col_row = &self.col_row[0]
        cdef const double* col_val = &self.col_val[0]
        cdef const int* dense_slot = &self.dense_slot[0] if self.n_dense else NULL
        memset(&sums[first], 0, (last - first) * sizeof(double))
        for k in range(nnz):
            x = values[k]
            f = features[k]
            if begin != NULL:
                # a feature's place in the tables, two features ahead, and its
                # column's first entries, one ahead: each was a cache miss per feature
                if k + 2 < nnz:
                    ahead = features[k + 2]
                    smo_prefetch(&begin[ahead])
                    smo_prefetch(&stop[ahead])
                    if dense_slot != NULL:
                        smo_prefetch(&dense_slot[ahead])
                if k + 1 < nnz:
                    ahead = features[k + 1]
                    smo_prefetch(&col_row[begin[ahead]])
                    smo_prefetch(&col_val[begin[ahead]])
            if dense_slot != NULL and dense_slot[f] >= 0:
                smo_axpy(last - first, &sums[first], x,
                         &self.dense[dense_slot[f], first])
                continue
            if begin != NULL:
                p, end = begin[f], stop[f]
            else:
                p, end = self._first_at_least(f, first), self._first_at_least(f, last)
            smo_add_column(col_row, col_val, p, end, x, sums)

    cdef long long _first_at_least(self, int f, int row) noexcept nogil:
        """The first entry of column f whose row number is at least `row`."""
        cdef long long lo = self.col_start[f], hi = self.col_start[f + 1], mid
        while lo < hi:
            mid = (lo + hi) // 2
            if self.col_row[mid] < row:
                lo = mid + 1
            else:
                hi = mid
        return lo

    cdef void swap(self, int i, int j) noexcept nogil:
        """Follow the exchange of rows i and j (a narrowed copy no longer applies)."""
        self.original[i], self.original[j] = self.original[j], self.original[i]
        self.narrow_end = -1
        self.gathers_start = self.gathers_end = -1
        self.unswapped = False
