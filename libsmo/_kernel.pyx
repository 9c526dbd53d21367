# cython: language_level=3
"""Kernel rows K(x_i, x_j) over dense or CSR data, computed a whole row at a time.

The solver permutes its variables so that the active (unshrunk) ones form a prefix, the
way LIBSVM does; this class follows the permutation (`swap`) so that "row i, entries
[start, end)" always means the solver's variables, and a row never has to be gathered
from scattered positions.

Sparse rows use scatter-gather: x_i is scattered once into a dense buffer of length
n_features, then every x_j is a gather over its own non-zeros, so no pair of index lists
is ever merged. Dense rows with few features are kept feature-major and a row of dot
products is built one feature at a time over contiguous blocks of rows (_simd.h's
smo_dense_dots), which vectorises across rows (letter: 16 features); wider dense rows
are row-major, one dot product per row (four partial sums). Both are this module's own
loops rather than BLAS dgemv: OpenBLAS spreads each dgemv over threads of its own,
which on a machine whose other core is busy made whole fits 15 times slower (RFF
features of a9a, 6000 x 300: 23 s against 1.5 s), and OpenMP (n_threads) already
spreads long rows.

Every dot product is then turned into the kernel value over the whole row at once; the
RBF exponentials go four at a time (_simd.h's smo_rbf_from_dots).
"""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange
from libc.math cimport exp, isfinite, tanh


cdef extern from "_simd.h" nogil:
    void smo_dense_dots(int n, int d, long ld, const double* cols, const double* xi,
                        double* out)
    void smo_rbf_from_dots(int n, double* out, const double* sq, double sq_i,
                           double gamma)

cnp.import_array()

KERNEL_TYPES = {"linear": LINEAR, "poly": POLY, "rbf": RBF, "sigmoid": SIGMOID,
                "precomputed": PRECOMPUTED}

# Below this many entries a row is computed by one thread: the fork/join of a parallel
# region costs more than it saves on short rows.
cdef int PARALLEL_MIN_ENTRIES = 2048
# Dense rows are split into blocks of this many entries between threads.
cdef int DENSE_BLOCK = 1024
# Dense data with at most this many features is stored feature-major. There a row of
# dot products sixteen rows at a time is 2.5x faster than a dot product per row
# (1,150 rows of 16 features: 0.09 against 0.22 ns per product); with many features the
# rows are long enough for the per-row dot, which reads the data as one sequential run
# and stays faster once the data leaves the cache (30,000 x 123: 0.21 against 0.31 ns).
cdef int FEATURE_MAJOR_MAX_FEATURES = 64


def squared_norms(X):
    """Squared Euclidean norm of every row, summed feature by feature (LIBSVM's order).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix or array-like of shape (n, d)
        CSR sums its stored values in their order (sorted indices: feature order).

    Returns
    -------
    ndarray of shape (n,)
    """
    cdef Py_ssize_t i, f
    cdef long long p
    cdef double s
    cdef const double[::1] values
    cdef const long long[::1] indptr
    cdef const double[:, :] dense
    out = np.empty(X.shape[0])
    cdef double[::1] sq = out
    if hasattr(X, "indptr"):
        values = np.asarray(X.data, dtype=np.float64)
        indptr = np.asarray(X.indptr, dtype=np.int64)
        with nogil:
            for i in range(sq.shape[0]):
                s = 0.0
                for p in range(indptr[i], indptr[i + 1]):
                    s += values[p] * values[p]
                sq[i] = s
    else:
        dense = np.asarray(X, dtype=np.float64)
        with nogil:
            for i in range(sq.shape[0]):
                s = 0.0
                for f in range(dense.shape[1]):
                    s += dense[i, f] * dense[i, f]
                sq[i] = s
    return out


ctypedef fused csr_index:
    int
    long long


cdef Py_ssize_t _scan_csr_rows(const long long[::1] indptr, const csr_index[::1] indices,
                               long long n_columns, bint* canonical) noexcept nogil:
    """The first row whose index pointers decrease or pass the stored values, or that
    holds a column index outside [0, n_columns), else -1; *canonical tells whether every
    row's indices rise strictly."""
    cdef Py_ssize_t i
    cdef long long p
    canonical[0] = True
    for i in range(indptr.shape[0] - 1):
        if indptr[i + 1] < indptr[i] or indptr[i + 1] > indices.shape[0]:
            return i
        for p in range(indptr[i], indptr[i + 1]):
            if indices[p] < 0 or indices[p] >= n_columns:
                return i
            if p > indptr[i] and indices[p] <= indices[p - 1]:
                canonical[0] = False
    return -1


def csr_is_canonical(X):
    """Whether a CSR matrix's rows hold strictly increasing column indices (sorted, no
    duplicates): the layout the sparse rows are read in, where a row scattered into a
    dense buffer cannot overwrite itself and sums run in feature order.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix
        With int32 or int64 indices.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        The arrays do not describe a CSR matrix of X's shape: index pointers that do not
        rise from 0 to the number of stored values, or a column index outside
        [0, n_columns) (scipy does not check these when it builds a matrix from arrays,
        and the kernel would read or write outside its buffers).
    """
    cdef const long long[::1] indptr = np.asarray(X.indptr, dtype=np.int64)
    cdef long long n_columns = X.shape[1], n_stored = len(X.indices)
    cdef Py_ssize_t bad_row
    cdef bint canonical
    cdef const int[::1] indices32
    cdef const long long[::1] indices64
    if (indptr.shape[0] != X.shape[0] + 1 or indptr[0] != 0
            or indptr[indptr.shape[0] - 1] != n_stored or len(X.data) != n_stored):
        raise ValueError(f"index pointers run from {indptr[0]} to "
                         f"{indptr[indptr.shape[0] - 1]} over {indptr.shape[0] - 1} rows "
                         f"for {n_stored} stored values")
    if X.indices.dtype == np.int32:
        indices32 = np.ascontiguousarray(X.indices)
        with nogil:
            bad_row = _scan_csr_rows(indptr, indices32, n_columns, &canonical)
    else:
        indices64 = np.ascontiguousarray(X.indices, dtype=np.int64)
        with nogil:
            bad_row = _scan_csr_rows(indptr, indices64, n_columns, &canonical)
    if bad_row >= 0:
        raise ValueError(f"row {bad_row} has index pointers that decrease or pass the "
                         f"stored values, or a column index outside [0, {n_columns})")
    return canonical


def all_finite(values):
    """Whether every entry of a C-contiguous float64 array is finite (NaN or infinity in
    the data would make kernel values NaN).

    Parameters
    ----------
    values : ndarray of float64, C-contiguous, any shape

    Returns
    -------
    bool
    """
    cdef const double[::1] flat = values.reshape(-1)
    cdef Py_ssize_t k
    cdef bint finite = True
    with nogil:
        for k in range(flat.shape[0]):
            if not isfinite(flat[k]):
                finite = False
                break
    return finite


def csr_to_dense(X):
    """X.toarray() for CSR with int32 indices, as C-contiguous float64 (duplicates are
    summed, as scipy sums them).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix

    Returns
    -------
    ndarray of shape X.shape
    """
    cdef const double[::1] values = np.asarray(X.data, dtype=np.float64)
    cdef const int[::1] indices = np.asarray(X.indices, dtype=np.int32)
    cdef const long long[::1] indptr = np.asarray(X.indptr, dtype=np.int64)
    out = np.zeros(X.shape)
    cdef double[:, ::1] dense = out
    cdef Py_ssize_t i
    cdef long long p
    with nogil:
        for i in range(dense.shape[0]):
            for p in range(indptr[i], indptr[i + 1]):
                dense[i, indices[p]] += values[p]
    return out


cdef inline double powi(double base, int times) noexcept nogil:
    """base**times for a non-negative integer, by squaring (LIBSVM's powi)."""
    cdef double tmp = base, ret = 1.0
    cdef int t = times
    while t > 0:
        if t % 2 == 1:
            ret *= tmp
        tmp = tmp * tmp
        t //= 2
    return ret


cdef class Kernel:
    """Kernel values over the rows of one data set.

    Parameters
    ----------
    X : ndarray of shape (n, d), C-contiguous float64, or scipy.sparse.csr_matrix
        The rows, already validated (float64 data, int32 sorted indices). For the
        precomputed kernel, the n x n Gram matrix (C-contiguous float64).
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"}
    gamma, coef0 : float
    degree : int
    rows : array of int, optional
        The rows of X this kernel works on, in this order (default all). The solver's
        variable k is row rows[k]; CSR data and Gram matrices are not copied.
    n_threads : int
        OpenMP threads used for long rows (1 = serial).
    """

    def __init__(self, X, str kernel, double gamma, int degree, double coef0,
                 rows=None, int n_threads=1):
        if kernel not in KERNEL_TYPES:
            raise ValueError(f"unknown kernel {kernel!r}")
        self.kernel_type = KERNEL_TYPES[kernel]
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_threads = max(1, n_threads)
        if rows is None:
            rows = np.arange(X.shape[0], dtype=np.int32)
        rows = np.ascontiguousarray(rows, dtype=np.int32)
        self.n_rows = rows.shape[0]
        self.n_features = X.shape[1]
        self.perm = rows.copy()
        self.is_sparse = hasattr(X, "indptr")
        if self.kernel_type == PRECOMPUTED:
            # rows index the Gram matrix directly: nothing is copied
            self.is_sparse = False
            self.gram = X
            self.sq_norm = np.zeros(self.n_rows)
        elif self.is_sparse:
            # the CSR arrays are shared; only the per-row extents are ours to permute
            self.csr_data = X.data
            self.csr_indices = X.indices
            indptr = np.asarray(X.indptr, dtype=np.int64)
            self.row_start = indptr[rows]
            self.row_nnz = (indptr[rows + 1] - indptr[rows]).astype(np.int32)
            self.scatter = np.zeros(self.n_features)
            # norms of these rows only: a one-vs-one pair must not pay for all of X
            self.sq_norm = np.empty(self.n_rows)
            self._sparse_row_norms()
        else:
            # a private copy: rows are exchanged in place as the solver shrinks
            self.feature_major = self.n_features <= FEATURE_MAJOR_MAX_FEATURES
            if self.feature_major:
                self.dense_t = np.empty((self.n_features, self.n_rows))
                self.x_i = np.empty(max(self.n_features, 1))
            else:
                self.dense = np.empty((self.n_rows, self.n_features))
            self.sq_norm = np.empty(self.n_rows)
            self._copy_dense_rows(np.ascontiguousarray(X, dtype=np.float64), self.perm)

    cdef void _copy_dense_rows(self, const double[:, ::1] X, const int[::1] rows) except *:
        """Copy rows X[rows] into this kernel's layout and sum their squared norms
        feature by feature (LIBSVM's order), in one pass."""
        cdef Py_ssize_t k, f, n = X.shape[0]
        cdef double v, s
        for k in range(rows.shape[0]):
            if rows[k] < 0 or rows[k] >= n:
                raise IndexError(f"row {rows[k]} is out of range for {n} rows")
        with nogil:
            for k in range(rows.shape[0]):
                s = 0.0
                for f in range(self.n_features):
                    v = X[rows[k], f]
                    s += v * v
                    if self.feature_major:
                        self.dense_t[f, k] = v
                    else:
                        self.dense[k, f] = v
                self.sq_norm[k] = s

    cdef void _sparse_row_norms(self) noexcept:
        cdef Py_ssize_t i
        cdef long long p, stop
        cdef double s
        for i in range(self.n_rows):
            s = 0.0
            p = self.row_start[i]
            stop = p + self.row_nnz[i]
            while p < stop:
                s += self.csr_data[p] * self.csr_data[p]
                p += 1
            self.sq_norm[i] = s

    cdef inline double _from_dot(self, double dot, int i, int j) noexcept nogil:
        if self.kernel_type == LINEAR:
            return dot
        elif self.kernel_type == RBF:
            return exp(-self.gamma * (self.sq_norm[i] + self.sq_norm[j] - 2.0 * dot))
        elif self.kernel_type == POLY:
            return powi(self.gamma * dot + self.coef0, self.degree)
        else:
            return tanh(self.gamma * dot + self.coef0)

    cdef inline double _sparse_dot(self, int j) noexcept nogil:
        """Dot of row j with the row scattered into self.scatter."""
        cdef long long k = self.row_start[j]
        cdef long long stop = k + self.row_nnz[j]
        cdef double s = 0.0
        while k < stop:
            s += self.csr_data[k] * self.scatter[self.csr_indices[k]]
            k += 1
        return s

    cdef void row(self, int i, int start, int end, double* out) noexcept nogil:
        """K(x_i, x_j) for j in [start, end) into out[0 : end - start]."""
        cdef int j, b, n_blocks, n = end - start
        cdef long long k, stop
        cdef Py_ssize_t d, f
        cdef int nthreads = self.n_threads if n >= PARALLEL_MIN_ENTRIES else 1
        if n <= 0:
            return
        if self.kernel_type == PRECOMPUTED:
            for j in range(n):
                out[j] = self.gram[self.perm[i], self.perm[start + j]]
            return
        # first the dot products x_i'x_j, then the kernel function over the whole row
        if self.is_sparse:
            stop = self.row_start[i] + self.row_nnz[i]
            k = self.row_start[i]
            while k < stop:
                self.scatter[self.csr_indices[k]] = self.csr_data[k]
                k += 1
            if nthreads > 1:
                for j in prange(n, schedule="static", num_threads=nthreads):
                    out[j] = self._sparse_dot(start + j)
            else:
                for j in range(n):
                    out[j] = self._sparse_dot(start + j)
            k = self.row_start[i]
            while k < stop:
                self.scatter[self.csr_indices[k]] = 0.0
                k += 1
        elif self.n_features == 0:
            for j in range(n):
                out[j] = 0.0
        elif self.feature_major:
            d = self.n_features
            for f in range(d):
                self.x_i[f] = self.dense_t[f, i]
            if nthreads > 1:
                n_blocks = (n + DENSE_BLOCK - 1) // DENSE_BLOCK
                for b in prange(n_blocks, schedule="static", num_threads=nthreads):
                    smo_dense_dots(min(DENSE_BLOCK, n - b * DENSE_BLOCK), <int>d,
                                   self.n_rows, &self.dense_t[0, start + b * DENSE_BLOCK],
                                   &self.x_i[0], &out[b * DENSE_BLOCK])
            else:
                smo_dense_dots(n, <int>d, self.n_rows, &self.dense_t[0, start],
                               &self.x_i[0], out)
        else:
            d = self.n_features
            if nthreads > 1:
                for j in prange(n, schedule="static", num_threads=nthreads):
                    out[j] = dense_dot(&self.dense[start + j, 0], &self.dense[i, 0], d)
            else:
                for j in range(n):
                    out[j] = dense_dot(&self.dense[start + j, 0], &self.dense[i, 0], d)
        self._dots_to_kernel(i, start, n, nthreads, out)

    cdef void _dots_to_kernel(self, int i, int start, int n, int nthreads,
                              double* out) noexcept nogil:
        """Replace the dots x_i'x_j in out[0 : n] (j from start) by K(x_i, x_j)."""
        cdef int j
        if self.kernel_type == LINEAR:
            return
        if self.kernel_type == RBF:
            # the exponentials are most of an RBF row on low-dimensional data: a
            # vectorised exp takes them four at a time
            smo_rbf_from_dots(n, out, &self.sq_norm[start], self.sq_norm[i], self.gamma)
        elif nthreads > 1:
            for j in prange(n, schedule="static", num_threads=nthreads):
                out[j] = self._from_dot(out[j], i, start + j)
        else:
            for j in range(n):
                out[j] = self._from_dot(out[j], i, start + j)

    cdef double value(self, int i, int j) noexcept nogil:
        """One kernel value K(x_i, x_j)."""
        cdef double out
        if self.kernel_type == PRECOMPUTED:
            return self.gram[self.perm[i], self.perm[j]]
        if i == j:
            return self._from_dot(self.sq_norm[i], i, i)
        self.row(i, j, j + 1, &out)
        return out

    cdef void swap(self, int i, int j) noexcept nogil:
        """Exchange rows i and j (the solver swapped its variables i and j)."""
        cdef Py_ssize_t k
        cdef double t
        if i == j:
            return
        self.perm[i], self.perm[j] = self.perm[j], self.perm[i]
        self.sq_norm[i], self.sq_norm[j] = self.sq_norm[j], self.sq_norm[i]
        if self.kernel_type == PRECOMPUTED:
            return
        if self.is_sparse:
            self.row_start[i], self.row_start[j] = self.row_start[j], self.row_start[i]
            self.row_nnz[i], self.row_nnz[j] = self.row_nnz[j], self.row_nnz[i]
        else:
            for k in range(self.n_features):
                if self.feature_major:
                    t = self.dense_t[k, i]
                    self.dense_t[k, i] = self.dense_t[k, j]
                    self.dense_t[k, j] = t
                else:
                    t = self.dense[i, k]
                    self.dense[i, k] = self.dense[j, k]
                    self.dense[j, k] = t

    def kernel_row(self, int i):
        """Python access for tests: K(x_i, x_j) for every row j, in current order."""
        out = np.empty(self.n_rows)
        cdef double[::1] o = out
        if self.n_rows:
            with nogil:
                self.row(i, 0, <int>self.n_rows, &o[0])
        return out
