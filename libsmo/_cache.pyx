# cython: language_level=3
"""Rows of the solver's Q matrix, kept in an LRU cache of float32 rows.

A cached row may be shorter than the problem: after shrinking the solver asks only for
the active prefix, and a row computed then is extended later when a longer prefix is
needed. This is LIBSVM's cache scheme (Chang and Lin 2011, section 5), written for the
permuted variable order the solver keeps.
"""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, calloc, realloc, free

cnp.import_array()


cdef extern from "_simd.h" nogil:
    void smo_signed_gather(int n, float s_i, const float* sign, const float* krow,
                           const int* index, float* out)


cdef class RowCache:
    """LRU cache of float rows within a budget of bytes.

    Parameters
    ----------
    n_rows : int
        Number of rows (the solver's variables).
    size_bytes : float
        Budget; at least two full rows are always allowed, so that the two rows of one
        step can be held at once.
    """

    def __cinit__(self, int n_rows, double size_bytes):
        cdef long long entries = <long long>(size_bytes / sizeof(float))
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
        if (self.data == NULL or self.length == NULL or self.lru_prev == NULL
                or self.lru_next == NULL):
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
        cdef int have = self.length[i]
        cdef float* grown
        cdef int victim
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

    cdef void swap_index(self, int i, int j) noexcept nogil:
        """Follow the solver's exchange of variables i and j in every cached row."""
        cdef int h, nxt, lo, hi
        cdef float t
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
        h = self.lru_next[self.n_rows]
        while h != self.n_rows:
            nxt = self.lru_next[h]
            if self.length[h] > lo:
                if self.length[h] > hi:
                    t = self.data[h][lo]
                    self.data[h][lo] = self.data[h][hi]
                    self.data[h][hi] = t
                else:
                    # the row holds entry lo but not hi: it cannot be kept consistent
                    self._evict(h)
            h = nxt


cdef class QMatrix:
    """Q_ij = s_i s_j K(x_i, x_j) for the classification and one-class problems.

    Parameters
    ----------
    kernel : Kernel
    sign : ndarray of float64
        s_i = y_i for C-SVC and nu-SVC, all ones for one-class.
    cache_size_mb : float
        The row cache budget in megabytes.
    """

    def __init__(self, Kernel kernel, sign, double cache_size_mb):
        cdef int i
        self.kernel = kernel
        self.sign = np.ascontiguousarray(sign, dtype=np.float64).copy()
        n = kernel.n_rows
        self.cache = RowCache(n, cache_size_mb * 1024.0 * 1024.0)
        self.kbuf = np.empty(max(n, 1))
        self.diag = np.empty(n)
        for i in range(n):
            self.diag[i] = kernel.value(i, i)

    cdef float* get_row(self, int i, int length) noexcept nogil:
        """Q row i over the first `length` variables; NULL when memory ran out."""
        cdef float* row
        cdef int j
        cdef double si
        cdef int start = self.cache.get(i, length, &row)
        if start < 0:
            return NULL
        if start < length:
            self.kernel.row(i, start, length, &self.kbuf[0])
            si = self.sign[i]
            for j in range(start, length):
                row[j] = <float>(si * self.sign[j] * self.kbuf[j - start])
        return row

    cdef void swap_index(self, int i, int j) noexcept nogil:
        self.cache.swap_index(i, j)
        self.kernel.swap(i, j)
        self.sign[i], self.sign[j] = self.sign[j], self.sign[i]
        self.diag[i], self.diag[j] = self.diag[j], self.diag[i]

    def diagonal(self):
        """Q_ii in the current variable order (float64)."""
        return np.asarray(self.diag).copy()


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
        smo_signed_gather(length, self.float_sign[i], &self.float_sign[0], krow,
                          &self.index[0], out)
        self.buffer_row[b] = i
        self.buffer_length[b] = length
        return out

    cdef void swap_index(self, int i, int j) noexcept nogil:
        # the assembled rows are in the old order
        self.buffer_row[0] = -1
        self.buffer_row[1] = -1
        self.float_sign[i], self.float_sign[j] = self.float_sign[j], self.float_sign[i]
        self.index[i], self.index[j] = self.index[j], self.index[i]
        self.diag[i], self.diag[j] = self.diag[j], self.diag[i]
