# cython: language_level=3
"""Kernel rows K(x_i, x_j) over the rows of one problem, computed a whole row at a time.

The dot products come from the one row accessor (`libsmo._core.rows.Rows`, dense, CSR
or a precomputed Gram matrix); this module turns them into LIBSVM's kernel functions

    linear u'v,  poly (gamma u'v + coef0)^degree,  rbf exp(-gamma |u - v|^2),
    sigmoid tanh(gamma u'v + coef0),  precomputed: the user's matrix,

over the whole row at once; the RBF exponentials go four at a time (inner_loops.h's
smo_rbf_from_dots), with |u - v|^2 = |u|^2 + |v|^2 - 2 u'v from the rows' squared norms,
as LIBSVM computes it during training.

The solver permutes its variables so that the active (unshrunk) ones form a prefix, the
way LIBSVM does; `swap` follows that permutation, so "row i, entries [start, end)"
always means the solver's variables.
"""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange
from libc.math cimport exp, tanh
from libsmo._core.rows cimport Rows


cdef extern from "inner_loops.h" nogil:
    void smo_rbf_from_dots(int n, double* out, const double* sq, double sq_i,
                           double gamma)

cnp.import_array()

KERNEL_TYPES = {"linear": LINEAR, "poly": POLY, "rbf": RBF, "sigmoid": SIGMOID,
                "precomputed": PRECOMPUTED}

# Below this many entries a row is computed by one thread: the fork/join of a parallel
# region costs more than it saves on short rows.
cdef int PARALLEL_MIN_ENTRIES = 2048


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
        variable k is row rows[k]; CSR data and Gram matrices are not copied, dense
        rows only with copy_dense.
    n_threads : int
        OpenMP threads used for long rows (1 = serial).
    copy_dense : bool
        Dense rows: a private copy (feature-major for few features, else row-major) or
        the caller's array read in place (see `Rows`).
    """

    def __init__(self, X, str kernel, double gamma, int degree, double coef0,
                 rows=None, int n_threads=1, bint copy_dense=True):
        if kernel not in KERNEL_TYPES:
            raise ValueError(f"unknown kernel {kernel!r}")
        self.kernel_type = KERNEL_TYPES[kernel]
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_threads = max(1, n_threads)
        self.rows = Rows(X, rows, copy_dense=copy_dense,
                         gram=self.kernel_type == PRECOMPUTED)
        self.n_rows = self.rows.n_rows
        self.n_features = self.rows.n_features

    @property
    def is_sparse(self):
        """Whether the rows are CSR."""
        return self.rows.is_sparse

    @property
    def feature_major(self):
        """Whether dense rows are stored feature-major (few features)."""
        return self.rows.layout_name == "feature_major"

    cdef inline double _from_dot(self, double dot, int i, int j) noexcept nogil:
        if self.kernel_type == LINEAR:
            return dot
        elif self.kernel_type == RBF:
            return exp(-self.gamma * (self.rows.sq_norm[i] + self.rows.sq_norm[j]
                                      - 2.0 * dot))
        elif self.kernel_type == POLY:
            return powi(self.gamma * dot + self.coef0, self.degree)
        else:
            return tanh(self.gamma * dot + self.coef0)

    cdef void row(self, int i, int start, int end, double* out) noexcept nogil:
        """K(x_i, x_j) for j in [start, end) into out[0 : end - start]."""
        cdef int n = end - start
        cdef int nthreads = self.n_threads if n >= PARALLEL_MIN_ENTRIES else 1
        if n <= 0:
            return
        # first the dot products x_i'x_j, then the kernel function over the whole row
        self.rows.dots(i, start, end, nthreads, out)
        if self.kernel_type != PRECOMPUTED:
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
            smo_rbf_from_dots(n, out, &self.rows.sq_norm[start], self.rows.sq_norm[i],
                              self.gamma)
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
            return self.rows.dot(i, j)
        if i == j:
            return self._from_dot(self.rows.sq_norm[i], i, i)
        self.row(i, j, j + 1, &out)
        return out

    cdef void swap(self, int i, int j) noexcept nogil:
        """Exchange rows i and j (the solver swapped its variables i and j)."""
        self.rows.swap(i, j)

    def kernel_row(self, int i):
        """Python access for tests: K(x_i, x_j) for every row j, in current order.

        Returns
        -------
        ndarray of shape (n_rows,)
        """
        out = np.empty(self.n_rows)
        cdef double[::1] o = out
        if not 0 <= i < self.n_rows:
            raise IndexError(f"row {i} is out of range for {self.n_rows} rows")
        if self.n_rows:
            with nogil:
                self.row(i, 0, <int>self.n_rows, &o[0])
        return out
