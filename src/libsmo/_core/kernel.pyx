# cython: language_level=3
"""Kernel rows K(x_i, x_j) over the rows of one problem, computed a whole row at a time.

The dot products come from the one row accessor (`libsmo._core.rows.Rows`, dense, CSR
or a precomputed Gram matrix); this module turns them into LIBSVM's kernel functions

    linear u'v,  poly (gamma u'v + coef0)^degree,  rbf exp(-gamma |u - v|^2),
    sigmoid tanh(gamma u'v + coef0),  precomputed: the user's matrix,

over the whole row at once (RBF four or eight exponentials at a time, rbf_loops.h), with
|u - v|^2 = |u|^2 + |v|^2 - 2 u'v from the rows' squared norms, as LIBSVM trains.

Rows of zeros and ones (a9a, w8a) are counted on bitmaps (`Rows.bit_values`): a kernel
value is then a function of one count, the features the two rows share (linear, poly,
sigmoid) or that only one has (RBF: exactly |u|^2 + |v|^2 - 2 u'v), tabulated once for
0 to n_features with the row loops' operations (`bit_table`; the same values).

The solver keeps its active variables a prefix (LIBSVM's permutation); `swap` follows
it, so "row i, entries [start, end)" always means the solver's variables.
"""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange
from libc.math cimport INFINITY, exp, tanh
from libsmo._core.rows cimport CSR, Rows
from libsmo._core.sparse_dots cimport SmoRowBatch, SmoRowFinish

cdef extern from "step_loops.h" nogil:
    int smo_threads_sleep()
    void smo_rbf_from_dots_threads(int n, double* out, const double* sq, double sq_i,
                                   double gamma, int threads)
    void smo_signed_row_threads(int n, double s_i, const double* sign, const double* k,
                                float* out, int threads)

cdef extern from "bit_counts.h" nogil:
    double smo_rbf_exp(double x)
    int smo_has_vpopcnt()

cdef extern from "rbf_loops.h" nogil:
    int smo_rbf_row_both_widths(int n, double* out4, double* out8, const double* sq,
                                double sq_i, double gamma, int clamp)
    int smo_has_wide_rbf()
    const char* smo_clone_target()

cnp.import_array()

KERNEL_TYPES = {"linear": LINEAR, "poly": POLY, "rbf": RBF, "sigmoid": SIGMOID,
                "precomputed": PRECOMPUTED}

# Below this many entries a row is computed by one thread: a parallel region costs more
# than it saves (far more where OMP_WAIT_POLICY=passive wakes the threads: step_loops.h).
cdef int PARALLEL_MIN_ENTRIES = (1 << 20) if smo_threads_sleep() else 2048
# for Python and the block loops (`kernel_blocks`)
ROW_PARALLEL_MIN = PARALLEL_MIN_ENTRIES


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
        The rows of X the solver's variables are, in order (default all).
    n_threads : int
        OpenMP threads used for long rows (1 = serial).
    copy_dense, bit_rows, int_rows : bool
        Dense rows copied (else read in place), 0/1 rows counted on bitmaps, rows of
        small integers summed in int16 (see `Rows`; the same values). False only to
        compare against the other loops.
    int_source : tuple, optional
        `int_rows.small_integer_data(X)`: the small integers of these rows are taken
        from it (see `Rows`).
    int_rows_max_bytes : float
        The most bytes those integer rows may take (see `Rows`).

    Attributes
    ----------
    evaluations : int
        Kernel values computed since construction, every way (rows, batches of rows,
        single values); what a cache serves again is not computed again.

    Raises
    ------
    ValueError
        An unknown kernel, or X that `Rows` refuses (not 2-D, a Gram matrix that is not
        square, CSR arrays that do not describe the rows).
    IndexError
        A row outside X.
    """

    def __init__(self, X, str kernel, double gamma, int degree, double coef0,
                 rows=None, int n_threads=1, bint copy_dense=True, bint bit_rows=True,
                 bint int_rows=True, int_source=None,
                 double int_rows_max_bytes=INFINITY):
        if kernel not in KERNEL_TYPES:
            raise ValueError(f"unknown kernel {kernel!r}")
        self.kernel_type = KERNEL_TYPES[kernel]
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_threads = max(1, n_threads)
        self.rows = Rows(X, rows, copy_dense=copy_dense,
                         gram=self.kernel_type == PRECOMPUTED, bit_rows=bit_rows,
                         int_rows=int_rows, int_source=int_source,
                         int_rows_max_bytes=int_rows_max_bytes)
        self.n_rows = self.rows.n_rows
        self.n_features = self.rows.n_features
        # an entry of CSR rows sums about a row's stored values (gathers) or more
        # (columns): it counts as a sixteenth of a dense entry for each (the reviews, 92
        # values a row: rows of 356 entries and more on threads, where 2,048 entries had
        # left the G_bar update's short tails on one thread while the other waited)
        self.entry_weight = 1.0
        if (self.rows.is_sparse and self.n_rows > 0 and self.rows.bit_words == 0
                and self.rows.int_divisor == 0):
            self.entry_weight = max(1.0, np.sum(self.rows.row_nnz) / (16.0 * self.n_rows))
        if self.rows.bit_words > 0:
            self.bit_table = self._count_table()

    def _count_table(self):
        """The kernel value for each count c = 0 .. n_features of `Rows.bit_values`:
        RBF exp(-gamma c) (c the squared distance, `smo_rbf_exp`: the exponential of
        the row loop), else the kernel function of the dot product c."""
        cdef Py_ssize_t c
        if self.kernel_type == RBF:
            return rbf_exp_table(self.gamma, self.n_features + 1)
        table = np.empty(self.n_features + 1)
        cdef double[::1] t = table
        for c in range(self.n_features + 1):
            t[c] = self._from_dot(<double>c, 0, 0)
        return table

    @property
    def is_sparse(self):
        """Whether the rows are CSR."""
        return self.rows.is_sparse

    @property
    def feature_major(self):
        """Whether dense rows are stored feature-major (few features)."""
        return self.rows.layout_name in ("feature_major", "feature_major_ints",
                                         "feature_quads")

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

    cdef int row_threads(self, int n) noexcept nogil:
        """The threads for a row of n entries (1 below PARALLEL_MIN_ENTRIES, counted
        in dense entries: `entry_weight`)."""
        return self.n_threads if n * self.entry_weight >= PARALLEL_MIN_ENTRIES else 1

    cdef void row(self, int i, int start, int end, double* out) noexcept nogil:
        """K(x_i, x_j) for j in [start, end) into out[0 : end - start]."""
        cdef int n = end - start
        cdef int nthreads = self.row_threads(n)
        if n <= 0:
            return
        self.evaluations += n
        if self.rows.bit_words > 0:
            self.rows.bit_values(i, start, end, nthreads, self.kernel_type == RBF,
                                 &self.bit_table[0], out)
            return
        # first the dot products x_i'x_j, then the kernel function over the whole row
        self.rows.dots(i, start, end, nthreads, out)
        if self.kernel_type != PRECOMPUTED:
            self._dots_to_kernel(i, start, n, nthreads, out)

    cdef void q_row(self, int i, int start, int end, double s_i, const double* sign,
                    double* work, float* out) noexcept nogil:
        """out[j - start] = (float)(s_i sign[j - start] K(x_i, x_j)) for j in [start,
        end), a row of Q, through `work` (end - start doubles). Where the columns sum
        the row (`Rows.dots`), each thread's part is made a part of Q in the region
        that summed it (one region a row, not three: `SmoRowFinish`); rows of 0/1
        values are counted straight into float32; the same values every way."""
        cdef int n = end - start, nthreads = self.row_threads(end - start)
        cdef SmoRowFinish finish
        cdef bint fused = self.kernel_type == RBF or self.kernel_type == LINEAR
        if n <= 0:
            return
        self.evaluations += n
        if self.rows.bit_words > 0:
            self.rows.bit_values(i, start, end, nthreads, self.kernel_type == RBF,
                                 &self.bit_table[0], NULL, s_i, sign, out)
            return
        finish.rbf = self.kernel_type == RBF
        finish.gamma, finish.sq_i, finish.s_i = self.gamma, self.rows.sq_norm[i], s_i
        finish.sq, finish.sign, finish.q_out = &self.rows.sq_norm[start], sign, out
        # as `row`, unless the columns finished the row in their own regions
        if self.rows.dots(i, start, end, nthreads, work, &finish if fused else NULL):
            return
        if self.kernel_type != PRECOMPUTED:
            self._dots_to_kernel(i, start, n, nthreads, work)
        smo_signed_row_threads(n, s_i, sign, work, out, self.n_threads)

    cdef bint add_q_rows(self, SmoRowBatch* batch, int start, int end,
                         const double* sign, double* work, float* q_out,
                         double* out) noexcept nogil:
        """out[j - start] += coef_b Q_{i_b j} for j in [start, end) and the batch's rows
        b in order (Q_ij = sign[i] sign[j] K(x_i, x_j), as `q_row` makes it), through
        `work` and `q_out` (end - start each), in one parallel region where the columns
        sum the rows (`SparseColumns.add_rows`). False, nothing done, elsewhere: the
        caller then adds the rows one by one."""
        cdef SmoRowFinish finish
        cdef int b
        cdef bint done
        if (self.rows.layout != CSR or self.rows.columns is None
                or self.rows.bit_words > 0 or self.rows.csr_indices.shape[0] == 0
                or not (self.kernel_type == RBF or self.kernel_type == LINEAR)):
            return False
        batch.row_start = &self.rows.row_start[0]
        batch.row_nnz = &self.rows.row_nnz[0]
        batch.features, batch.values = &self.rows.csr_indices[0], &self.rows.csr_data[0]
        batch.sq_norm, batch.sign = &self.rows.sq_norm[0], sign
        finish.rbf = self.kernel_type == RBF
        finish.gamma, finish.sq_i, finish.s_i = self.gamma, 0.0, 0.0
        finish.sq, finish.sign = &self.rows.sq_norm[start], &sign[start]
        finish.q_out = q_out
        done = self.rows.columns.add_rows(batch, start, end, self.row_threads(end - start),
                                          &finish, work, out)
        if done:
            # the rows it computed (the cached ones it read); when not done, the
            # caller's rows one by one count their own
            for b in range(batch.count):
                if batch.cached[b] == NULL:
                    self.evaluations += end - start
        return done

    cdef void rows_many(self, const int* sources, int count, int start, int end,
                        double* out, long ld_out) noexcept nogil:
        """K(x_s, x_j) for the `count` rows s = sources[b] and j in [start, end) into
        out[b ld_out : b ld_out + end - start]: one pass over the data for all of their
        dot products where the rows allow it (`Rows.dots_many`), the same values as
        `row`."""
        cdef int b, n = end - start
        cdef int nthreads = self.row_threads(n)
        if n <= 0:
            return
        if self.rows.bit_words > 0:
            # `row` counts them
            for b in range(count):
                self.row(sources[b], start, end, out + b * ld_out)
            return
        self.evaluations += <long long>count * n
        self.rows.dots_many(sources, count, start, end, nthreads, out, ld_out)
        if self.kernel_type != PRECOMPUTED:
            for b in range(count):
                self._dots_to_kernel(sources[b], start, n, nthreads, out + b * ld_out)

    cdef void _dots_to_kernel(self, int i, int start, int n, int nthreads,
                              double* out) noexcept nogil:
        """Replace the dots x_i'x_j in out[0 : n] (j from start) by K(x_i, x_j)."""
        cdef int j
        if self.kernel_type == LINEAR:
            return
        if self.kernel_type == RBF:
            # the exponentials are most of an RBF row on low-dimensional data: a
            # vectorised exp takes them four at a time
            smo_rbf_from_dots_threads(n, out, &self.rows.sq_norm[start],
                                      self.rows.sq_norm[i], self.gamma, nthreads)
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
            self.evaluations += 1
            return self.rows.dot(i, j)
        if i == j:
            self.evaluations += 1
            return self._from_dot(self.rows.sq_norm[i], i, i)
        self.row(i, j, j + 1, &out)   # counts it
        return out

    cdef void swap(self, int i, int j) noexcept nogil:
        """Exchange rows i and j (the solver swapped its variables i and j)."""
        self.rows.swap(i, j)

    def kernel_row(self, int i):
        """Python access for tests: K(x_i, x_j) for every row j, in current order
        (ndarray of shape (n_rows,))."""
        out = np.empty(self.n_rows)
        cdef double[::1] o = out
        if not 0 <= i < self.n_rows:
            raise IndexError(f"row {i} is out of range for {self.n_rows} rows")
        if self.n_rows:
            with nogil:
                self.row(i, 0, <int>self.n_rows, &o[0])
        return out

    def kernel_matrix(self):
        """K(x_i, x_j) for every pair of rows, in current order: the Gram matrix, each
        row the values `row` gives, computed without the interpreter (a grid's kernel
        matrix per gamma; ndarray of shape (n_rows, n_rows))."""
        out = np.empty((self.n_rows, self.n_rows))
        cdef double[:, ::1] o = out
        cdef int i, n = <int>self.n_rows
        with nogil:
            for i in range(n):
                self.row(i, 0, n, &o[i, 0])
        return out


def rbf_exp_table(double gamma, Py_ssize_t size):
    """exp(-gamma m) for m = 0 .. size - 1, each the very value an RBF row of squared
    distance m gets (bit_counts.h's `smo_rbf_exp`): the RBF kernel of 0/1 rows, whose
    squared distances are counts.

    Returns
    -------
    ndarray of shape (size,)
    """
    table = np.empty(max(size, 0))
    cdef double[::1] t = table
    cdef Py_ssize_t m
    for m in range(t.shape[0]):
        t[m] = smo_rbf_exp(-gamma * <double>m)
    return table


def rbf_row_by_width(const double[::1] dots, const double[::1] sq_norms, double sq_i,
                     double gamma, bint clamp=False):
    """An RBF row from its dot products, computed four entries at a time and, where the
    processor has AVX-512, eight at a time (rbf_loops.h): for tests, which check that
    the two agree bit for bit, so that rows and steps do not depend on the processor.

    Returns
    -------
    row4 : ndarray of shape (n,)
    row8 : ndarray of shape (n,) or None
        None where the processor has no eight-wide path.
    """
    cdef Py_ssize_t n = dots.shape[0]
    if sq_norms.shape[0] != n:
        raise ValueError(f"{n} dot products but {sq_norms.shape[0]} squared norms")
    row4, row8 = np.array(dots, dtype=np.float64), np.array(dots, dtype=np.float64)
    cdef double[::1] r4 = row4, r8 = row8
    cdef int wide = 0
    if n:
        wide = smo_rbf_row_both_widths(<int>n, &r4[0], &r8[0], &sq_norms[0], sq_i, gamma,
                                       clamp)
    return row4, (row8 if wide else None)


def simd_paths():
    """The vector code this processor runs in the compiled core: for the tests, which
    report it and compare every path the processor has.

    Returns
    -------
    dict
        "clones": the clone of the loops built for several targets that GCC's resolver
        runs ("x86-64-v4", "avx2" or "default"; "none" where no clones are built);
        "rbf_eight_wide": whether RBF rows go eight entries at a time (AVX-512 F and
        DQ); "vpopcntq": whether 0/1 rows are counted eight at a time (AVX-512
        VPOPCNTDQ).

    Examples
    --------
    >>> from libsmo._core.kernel import simd_paths
    >>> sorted(simd_paths())
    ['clones', 'rbf_eight_wide', 'vpopcntq']
    """
    return {"clones": smo_clone_target().decode("ascii"),
            "rbf_eight_wide": bool(smo_has_wide_rbf()),
            "vpopcntq": bool(smo_has_vpopcnt())}
