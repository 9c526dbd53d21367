# cython: language_level=3
"""The rows of one training problem behind one nogil accessor, whatever their storage.

`Rows` serves both solvers (as scikit-learn-contrib lightning's RowDataset serves all of
its): the kernel asks it for rows of dot products x_i'x_j over a range of rows (`dots`),
the linear solver for dot products with its weight vector (`dot_vector`), for
w += a x_i (`add_to_vector`) and for single products (`dot`). Its row k is the caller's
row `index[k]`; the kernel solver permutes its variables as it shrinks (LIBSVM's
scheme) and `swap` follows, so "rows [start, end)" is a contiguous run of variables.

Layouts (chosen at construction, see `RowLayout` in rows.pxd):

- CSR rows stay where they are; only their extents are permuted. A row of dot products
  is a scatter-gather: x_i scattered into a dense buffer of n_features, every x_j a
  gather over its own non-zeros (`dot` on a single pair merges the index lists). With
  `build_columns` (`sparse_dots.SparseColumns`) a row whose features' columns hold fewer
  values is summed over those columns instead: the same values.
- Dense rows are read where the caller keeps them (SHARED_DENSE), through `index`, so
  training memory stays data + cache + O(n). With `copy_dense=True` the kernel gets a
  private copy: feature-major with at most FEATURE_MAJOR_MAX_FEATURES features
  (smo_dense_dots, vectorised across rows; letter: 2.5x faster), else row-major.
  Where the kernel asks for integer rows (`int_rows=True`) and every value is an
  integer in [0, 255] (digits' 0-16), the feature-major copy holds floats
  (FEATURE_MAJOR_INTS): each row of dot products is an exact integer sum, the value
  the doubles give, with twice the lanes and half the memory; where every integer is
  in [0, 127] and the processor has AVX-512 VNNI, as bytes in groups of four features
  (FEATURE_QUADS, int_dots.h's smo_quad_dots), a quarter of the floats.
- A precomputed kernel's Gram matrix is read in place: its "dot products" are the
  kernel values themselves.
- Rows given as uint8 (8-bit pixels, a data set stored as bytes: BYTES) are small
  integers themselves: their rows of dot products are exact integer sums (`IntRows`),
  over the caller's bytes in place through `index` or, with `copy_dense=True`, over a
  private copy of these rows; no double of them is ever made, so that a million
  784-pixel rows take 784 MB, not 6.3 GB. The values are those of the same numbers
  given as doubles (every sum is an exact integer either way), so the same steps.
- Rows of zeros and ones (a9a, w8a), CSR or dense, get bitmaps when the kernel asks
  (`bit_rows=True`): a dot product is then a count of common bits, exactly the other
  loops' sums, so the same steps. Where the processor has AVX-512 VPOPCNTQ a
  word-major copy (`bits_t`) lets the solver's Q rows count eight rows at a time.
- Other rows of many features whose values are all small integers over one divisor
  (8-bit images as pixel / 255) get int16 or uint8 copies when the kernel asks
  (`int_rows=True`, `int_rows.IntRows`; taken from `int_source` when given): dot
  products summed exactly in integers (int_dots.h), the values of the double loops up
  to their rounding; the doubles are then read in place. CSR rows get them only where
  they take no more memory than their values and indices (12 bytes a stored value).

The rows of dot products are this module's own loops, not BLAS dgemv, whose threads
made fits 15 times slower where the other core was busy (RFF features of a9a)."""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange
from libc.stdint cimport uint64_t
from libsmo._core.checks import check_csr_rows, check_indices, matrix_shape
from libsmo._core.bitmaps import pack_bits
from libsmo._core.sparse_dots cimport SparseColumns, gather_dots
from libc.math cimport INFINITY
from libc.string cimport memcpy
from libsmo._core.int_rows cimport IntRows
from libsmo._core.int_rows import small_integer_rows, take_small_integer_rows


cdef extern from "bit_counts.h" nogil:
    void smo_bit_rows(int n, int words, const uint64_t* rows, const uint64_t* x,
                      int by_xor, const double* table, double* out)
    void smo_bit_q_rows(int n, int words, const uint64_t* rows, const uint64_t* x,
                        int by_xor, const double* table, double s_i, const double* sign,
                        float* q_out)
    void smo_bit_q_cols(int n, int words, const uint64_t* cols, long ld, const uint64_t* x,
                        int by_xor, const double* table, double s_i, const double* sign,
                        float* q_out)
    int smo_has_vpopcnt()


cdef extern from "inner_loops.h" nogil:
    void smo_dense_dots(int n, int d, long ld, const double* cols, const double* xi,
                        double* out)
    void smo_small_int_dots(int n, int d, long ld, const float* cols, const float* xi,
                            double* out)
    void smo_row_dots(int n, long d, const double* rows, long ld, const double* x,
                      double* out)
    void smo_indexed_row_dots(int n, long d, const double* base, long ld,
                              const int* index, const double* x, double* out)
    void smo_row_dots_many(int n, long d, const double* base, long ld, const int* index,
                           const double** xs, int count, double* out, long ld_out)

cdef extern from "int_dots.h" nogil:
    int smo_has_avx512_vnni()
    void smo_swap_bytes(void* a, void* b, size_t n)
    void smo_quad_dots(int n, int groups, long ld, const unsigned char* cols,
                       const signed char* x, double* out)

cnp.import_array()

# Few features of integers in [0, 127] as bytes in groups of four (FEATURE_QUADS): None
# where the processor has AVX-512 VNNI; False keeps them as floats (tests compare the
# two).
QUAD_DOTS = None
# Dense rows are split into blocks of this many entries between threads.
cdef int DENSE_BLOCK = 1024
# Word-major bitmaps (`Rows.bits_t`): None where the processor has AVX-512 VPOPCNTQ;
# True or False forces them on or off (tests compare the two).
WORD_MAJOR_BITS = None
# Dense data with at most this many features is stored feature-major. There a row of
# dot products sixteen rows at a time is 2.5x faster than a dot product per row
# (1,150 rows of 16 features: 0.09 against 0.22 ns per product); with many features the
# rows are long enough for the per-row dot, which reads the data as one sequential run
# and stays faster once the data leaves the cache (30,000 x 123: 0.21 against 0.31 ns).
cdef int FEATURE_MAJOR_MAX_FEATURES = 64

# the same, for Python callers choosing whether to ask for a copy
MAX_FEATURE_MAJOR = FEATURE_MAJOR_MAX_FEATURES

LAYOUT_NAMES = {ROW_MAJOR: "row_major", FEATURE_MAJOR: "feature_major",
                FEATURE_MAJOR_INTS: "feature_major_ints", FEATURE_QUADS: "feature_quads",
                SHARED_DENSE: "shared_dense", CSR: "csr", GRAM: "gram", BYTES: "bytes"}

# uint8 rows' dot products are summed in int32: n_features * 255^2 must stay below 2^31
MAX_BYTE_FEATURES = (2**31 - 1) // (255 * 255)


cdef class Rows:
    """Rows of a validated data set, in the order the solver will permute.

    Parameters
    ----------
    X : ndarray of shape (n, d), C-contiguous float64 or uint8, or scipy.sparse.csr_matrix
        Validated rows (float64 data, int32 sorted column indices; uint8 rows, of at
        most MAX_BYTE_FEATURES features, are the integers they hold). For
        ``gram=True``, the n x n Gram matrix (C-contiguous float64).
    rows : array of int, optional
        The rows of X this object serves, in this order (default all): row k here is
        row ``rows[k]`` of X.
    copy_dense : bool
        Dense rows: a private copy (True, the kernel's: swaps move rows, and few
        features are stored feature-major) or the caller's array read in place (False,
        the linear solver's). CSR arrays and Gram matrices are never copied; uint8
        rows are copied as uint8 (`IntRows`).
    gram : bool
        X is a precomputed kernel matrix.
    bit_rows : bool
        Keep bitmaps of rows whose values are all zeros and ones (see the module's
        docstring) for `dots`; the kernel asks for them, the linear solver does not.
    int_rows : bool
        Keep int16 copies of rows of many features whose values are small integers over
        one divisor, where no bitmaps are kept (see the module's docstring); uint8
        where every integer is in [0, 255], converted a row at a time. With
        ``copy_dense`` and few features: a feature-major copy as floats where every
        value is an integer in [0, 255] (FEATURE_MAJOR_INTS).
    int_source : tuple, optional
        `int_rows.small_integer_data(X)`, from which int_rows takes these rows.
    int_rows_max_bytes : float
        No integer copies where they would take more bytes than this (one a value as
        uint8, two as int16): the executor's share of the cache for them.

    Raises
    ------
    IndexError
        A row number outside X.
    ValueError
        X is not 2-D, a Gram matrix is not square, CSR rows' extents or column
        indices leave their arrays (`arrays.check_csr_rows`): the loops do not check;
        uint8 rows that are not C-contiguous or have more than MAX_BYTE_FEATURES
        features.
    """

    def __init__(self, X, rows=None, *, bint copy_dense=True, bint gram=False,
                 bint bit_rows=False, bint int_rows=False, int_source=None,
                 double int_rows_max_bytes=INFINITY):
        n_total, self.n_features = matrix_shape(X)
        if gram and n_total != self.n_features:
            raise ValueError(f"a Gram matrix must be square, got shape {X.shape}")
        rows = np.ascontiguousarray(np.arange(n_total) if rows is None else rows,
                                    dtype=np.int32)
        check_indices(rows, n_total, "row")
        self.n_rows = rows.shape[0]
        self.index = rows.copy()
        if gram:
            self.layout = GRAM
            self.shared = X
            self.sq_norm = np.zeros(self.n_rows)
        elif hasattr(X, "indptr"):
            self.layout = CSR
            self.csr_data = X.data
            self.csr_indices = X.indices
            indptr = np.asarray(X.indptr, dtype=np.int64)
            starts, ends = indptr[rows], indptr[rows + 1]
            check_csr_rows(X.indices, starts, ends, len(X.data), self.n_features)
            self.row_start, self.row_nnz = starts, (ends - starts).astype(np.int32)
            self.scatter = np.zeros(self.n_features)
            # norms of these rows only: a one-vs-one pair must not pay for all of X
            self.sq_norm = np.empty(self.n_rows)
            with nogil:
                self._csr_norms()
            self._take_compact_rows(X, bit_rows, int_rows, None, int_rows_max_bytes)
        elif isinstance(X, np.ndarray) and X.dtype == np.uint8:
            self._byte_layout(X, copy_dense)
        else:
            X = np.ascontiguousarray(X, dtype=np.float64)
            # before any copy: int16 rows serve every row of dot products, so the
            # doubles behind them are read in place
            self._take_compact_rows(X, bit_rows, int_rows, int_source,
                                    int_rows_max_bytes)
            if not copy_dense or self.int_divisor > 0:
                self.layout = SHARED_DENSE
                self.shared = X
                if self.int_divisor == 0:
                    self.sq_norm = np.empty(self.n_rows)
                    with nogil:
                        self._shared_norms()
            elif (int_rows and self.bit_words == 0
                  and self.n_features <= FEATURE_MAJOR_MAX_FEATURES
                  and self._take_small_integers(X, int_source)):
                pass
            else:
                self.layout = (FEATURE_MAJOR
                               if self.n_features <= FEATURE_MAJOR_MAX_FEATURES
                               else ROW_MAJOR)
                if self.layout == FEATURE_MAJOR:
                    self.dense_t = np.empty((self.n_features, self.n_rows))
                    self.x_i = np.empty(max(self.n_features, 1))
                else:
                    self.dense = np.empty((self.n_rows, self.n_features))
                self.sq_norm = np.empty(self.n_rows)
                self._copy_dense(X)

    def _take_small_integers(self, X, int_source):
        """FEATURE_MAJOR_INTS where every value of these rows is an integer in [0, 255]
        (`int_rows.small_integer_rows` with divisor 1, or the fit's `int_source` of
        them): their feature-major copy as floats, whose rows of dot products are exact
        integer sums (`smo_small_int_dots`), the values FEATURE_MAJOR's doubles give,
        twice as many a vector and half the memory. False (nothing kept) otherwise, or
        where the integers are over another divisor (pixels / 255: their doubles' sums
        are rounded, and these rows keep those bits)."""
        if self.n_rows == 0 or self.n_features == 0:
            return False
        if int_source is None:
            found = small_integer_rows(X, self.index, as_bytes=True)
            if found is None or found[1] != 1.0 or found[0].dtype != np.uint8:
                return False
            source, norms = found[0], found[2]
            source_rows = np.arange(self.n_rows, dtype=np.int32)
        else:
            if int_source[1] != 1.0:
                return False
            source, norms = int_source[0], int_source[2][np.asarray(self.index)]
            source_rows = self.index
        self.sq_norm = np.ascontiguousarray(norms, dtype=np.float64)
        cdef const unsigned char[:, ::1] source_view = source
        cdef const int[::1] rows_view = source_rows
        cdef bint bytes_fit = False
        if smo_has_avx512_vnni() if QUAD_DOTS is None else QUAD_DOTS:
            self.quads = np.zeros(((self.n_features + 3) // 4, 4 * self.n_rows),
                                  dtype=np.uint8)
            with nogil:
                bytes_fit = self._copy_quads(source_view, rows_view)
            if bytes_fit:
                self.layout = FEATURE_QUADS
                self.x_i_quads = np.zeros(4 * self.quads.shape[0], dtype=np.int8)
                return True
            self.quads = None   # (a value above 127: the floats instead)
        self.layout = FEATURE_MAJOR_INTS
        self.ints_t = np.empty((self.n_features, self.n_rows), dtype=np.float32)
        self.x_i_ints = np.empty(self.n_features, dtype=np.float32)
        with nogil:
            self._copy_small_integers(source_view, rows_view)
        return True

    cdef void _copy_small_integers(self, const unsigned char[:, ::1] source,
                                   const int[::1] source_rows) noexcept nogil:
        """ints_t[f, k] = source[source_rows[k], f], four rows at a time."""
        cdef Py_ssize_t k = 0, f, n_rows = self.n_rows, n_features = self.n_features
        cdef float* out = &self.ints_t[0, 0]
        cdef const unsigned char* x
        cdef const unsigned char* x1
        cdef const unsigned char* x2
        cdef const unsigned char* x3
        while k + 4 <= n_rows:
            x, x1 = &source[source_rows[k], 0], &source[source_rows[k + 1], 0]
            x2, x3 = &source[source_rows[k + 2], 0], &source[source_rows[k + 3], 0]
            for f in range(n_features):
                out[f * n_rows + k] = x[f]
                out[f * n_rows + k + 1] = x1[f]
                out[f * n_rows + k + 2] = x2[f]
                out[f * n_rows + k + 3] = x3[f]
            k += 4
        while k < n_rows:
            x = &source[source_rows[k], 0]
            for f in range(n_features):
                out[f * n_rows + k] = x[f]
            k += 1

    cdef bint _copy_quads(self, const unsigned char[:, ::1] source,
                          const int[::1] source_rows) noexcept nogil:
        """quads[f // 4, 4 k + f % 4] = source[source_rows[k], f], a group of four
        bytes at a time; whether every value copied is at most 127 (vpdpbusd's signed
        bytes)."""
        cdef Py_ssize_t k, f, g, n_features = self.n_features
        cdef Py_ssize_t full = n_features // 4, ld = self.quads.shape[1]
        cdef unsigned char seen = 0
        cdef const unsigned char* x
        cdef unsigned char* out = &self.quads[0, 0]
        for k in range(self.n_rows):
            x = &source[source_rows[k], 0]
            for f in range(n_features):
                seen |= x[f]
            for g in range(full):
                memcpy(out + g * ld + 4 * k, x + 4 * g, 4)
            for f in range(4 * full, n_features):
                out[full * ld + 4 * k + (f & 3)] = x[f]
        return (seen & 0x80) == 0

    def _byte_layout(self, X, bint copy_dense):
        """BYTES: the caller's uint8 rows, their dot products summed in integers over
        them in place through `index`, or over a private copy of these rows."""
        if not X.flags.c_contiguous:
            raise ValueError("uint8 rows must be C-contiguous")
        if self.n_features > MAX_BYTE_FEATURES:
            raise ValueError(f"uint8 rows of {self.n_features} features: their integer "
                             f"dot products need at most {MAX_BYTE_FEATURES}")
        self.layout = BYTES
        self.byte_rows = X
        self.x_i = np.empty(max(self.n_features, 1))
        self.sq_norm = np.empty(self.n_rows)
        with nogil:
            self._byte_norms()
        self.int_divisor = 1.0
        if self.n_rows == 0 or self.n_features == 0:
            self.int_divisor = 0.0   # no integer rows: every dot product is 0 (`dots`)
        elif copy_dense:
            self.int_store = IntRows(X.take(np.asarray(self.index), axis=0), 1.0,
                                     MANY_ROWS)
        else:
            self.int_store = IntRows(X, 1.0, MANY_ROWS, index=self.index)

    def build_columns(self, double dense_share=0.0, int n_threads=1):
        """For CSR rows without bitmaps: keep their columns too
        (`sparse_dots.SparseColumns`, 12 bytes a stored value, and the features of at
        least `dense_share` of the rows as dense columns; sorted on n_threads threads),
        which `dots` uses for the rows whose features' columns hold few values. Returns
        the bytes they take (0 when there are none)."""
        if self.layout == CSR and self.bit_words == 0 and self.columns is None:
            self.columns = SparseColumns(self.csr_data, self.csr_indices, self.row_start,
                                         self.row_nnz, self.n_features, dense_share,
                                         n_threads)
        return 0 if self.columns is None else self.columns.n_bytes

    def _take_compact_rows(self, X, bint bit_rows, bint int_rows, int_source=None,
                           double max_bytes=INFINITY):
        """Bitmaps of the rows if asked and every value is 0 or 1 (`bitmaps.pack_bits`),
        else, if asked, integer rows of more than FEATURE_MAJOR_MAX_FEATURES features
        over one divisor (`int_rows.small_integer_rows`, which sets the squared norms;
        bytes where they fit, within max_bytes); for CSR rows, only where they take no
        more memory than what they shadow."""
        if self.n_rows == 0 or self.n_features == 0:
            return
        words = (self.n_features + 63) // 64
        if bit_rows and (self.layout != CSR or
                         2 * words * self.n_rows <= 3 * np.sum(self.row_nnz)):
            bits = pack_bits(X, rows=self.index)
            if bits is not None:
                self.bits = bits
                self.bit_words = words
                self.bits_by_word = (smo_has_vpopcnt() if WORD_MAJOR_BITS is None
                                     else WORD_MAJOR_BITS)
                if self.bits_by_word:
                    # a copy, always: with one word a row, bits.T is already contiguous
                    # and ascontiguousarray would return a view of bits, which `swap`
                    # would then exchange twice (back to the start)
                    self.bits_t = np.array(bits.T, order="C", copy=True)
                return
        if int_rows and self.n_features > FEATURE_MAJOR_MAX_FEATURES:
            if int_source is None:
                ints = small_integer_rows(X, self.index, as_bytes=True,
                                          max_bytes=max_bytes)
            elif <double>self.n_rows * self.n_features <= max_bytes:
                ints = take_small_integer_rows(int_source, self.index)
            else:
                ints = None
            if ints is not None:
                self.int_store = IntRows(ints[0], ints[1], MANY_ROWS)
                self.int_divisor, self.sq_norm = ints[1], ints[2]

    @property
    def layout_name(self):
        """The storage: "row_major", "feature_major", "feature_major_ints",
        "feature_quads", "shared_dense", "csr", "gram" or "bytes"."""
        return LAYOUT_NAMES[self.layout]

    @property
    def copy_bytes_per_row(self):
        """Bytes of a row's private copy (row-major or feature-major doubles: 8 a
        feature; FEATURE_MAJOR_INTS: 4; FEATURE_QUADS: 1, in groups of four; 0 where
        the rows are read in place)."""
        if self.layout == ROW_MAJOR or self.layout == FEATURE_MAJOR:
            return 8 * self.n_features
        if self.layout == FEATURE_QUADS:
            return 4 * self.quads.shape[0]
        if self.layout == FEATURE_MAJOR_INTS:
            return 4 * self.n_features
        return 0

    @property
    def has_bit_rows(self):
        """Whether rows of dot products are counted on bitmaps (rows of 0/1 values)."""
        return self.bit_words > 0

    @property
    def has_int_rows(self):
        """Whether rows of dot products are summed on copies of small integers."""
        return self.int_divisor > 0

    def byte_path(self):
        """The loops that sum the integer rows, for tests and reports: "vnni" or
        "avx2" (bytes, `int_rows.VNNI_BYTE_DOTS` / `AVX2_BYTE_DOTS` where the processor
        has them), "plain" (bytes otherwise), "int16", or None (no integer rows)."""
        if self.int_store is None:
            return None
        if self.int_store.row_bytes == 2:
            return "int16"
        return ("vnni" if self.int_store.vnni else "avx2" if self.int_store.avx2
                else "plain")

    @property
    def int_row_bytes(self):
        """Bytes per feature of those copies: 2 (int16), 1 (uint8) or 0 (none, or the
        caller's uint8 rows read in place)."""
        if self.int_divisor == 0 or self.int_store.indexed:
            return 0
        return self.int_store.row_bytes

    @property
    def is_sparse(self):
        """Whether the rows are CSR."""
        return self.layout == CSR

    cdef void _copy_dense(self, const double[:, ::1] X) except *:
        """Copy the rows X[index] into this object's layout and sum their squared norms
        feature by feature (LIBSVM's order), in one pass."""
        cdef Py_ssize_t k, f, n_rows = self.n_rows, n_features = self.n_features
        cdef double v, s
        cdef const double* x
        cdef double* out
        cdef const int* index
        cdef double* norms
        if n_rows == 0 or n_features == 0:
            for k in range(n_rows):
                self.sq_norm[k] = 0.0
            return
        # through plain pointers: the extension is compiled without strict aliasing,
        # so each store through a memoryview made the loop load the view's fields
        # again (a one-vs-one pair copies its rows for every problem)
        index = &self.index[0]
        norms = &self.sq_norm[0]
        out = &self.dense_t[0, 0] if self.layout == FEATURE_MAJOR else &self.dense[0, 0]
        cdef const double* x1
        cdef const double* x2
        cdef const double* x3
        cdef double s1, s2, s3, v1, v2, v3
        with nogil:
            if self.layout == FEATURE_MAJOR:
                # four rows at a time: each row's norm is still summed feature by
                # feature (the same bits), but four sums advance together instead of
                # one waiting on each addition
                k = 0
                while k + 4 <= n_rows:
                    x, x1 = &X[index[k], 0], &X[index[k + 1], 0]
                    x2, x3 = &X[index[k + 2], 0], &X[index[k + 3], 0]
                    s = s1 = s2 = s3 = 0.0
                    for f in range(n_features):
                        v, v1, v2, v3 = x[f], x1[f], x2[f], x3[f]
                        s += v * v
                        s1 += v1 * v1
                        s2 += v2 * v2
                        s3 += v3 * v3
                        out[f * n_rows + k] = v
                        out[f * n_rows + k + 1] = v1
                        out[f * n_rows + k + 2] = v2
                        out[f * n_rows + k + 3] = v3
                    norms[k], norms[k + 1], norms[k + 2], norms[k + 3] = s, s1, s2, s3
                    k += 4
                while k < n_rows:
                    x = &X[index[k], 0]
                    s = 0.0
                    for f in range(n_features):
                        v = x[f]
                        s += v * v
                        out[f * n_rows + k] = v
                    norms[k] = s
                    k += 1
            else:
                for k in range(n_rows):
                    x = &X[index[k], 0]
                    s = 0.0
                    for f in range(n_features):
                        v = x[f]
                        s += v * v
                        out[k * n_features + f] = v
                    norms[k] = s

    cdef void _csr_norms(self) noexcept nogil:
        cdef Py_ssize_t i
        cdef long long p
        cdef double s
        for i in range(self.n_rows):
            s = 0.0
            for p in range(self.row_start[i], self.row_start[i] + self.row_nnz[i]):
                s += self.csr_data[p] * self.csr_data[p]
            self.sq_norm[i] = s

    cdef void _byte_norms(self) noexcept nogil:
        cdef Py_ssize_t i, f, r
        cdef long long s
        for i in range(self.n_rows):
            r = self.index[i]
            s = 0
            for f in range(self.n_features):
                s += <long long>self.byte_rows[r, f] * self.byte_rows[r, f]
            self.sq_norm[i] = <double>s

    cdef void _shared_norms(self) noexcept nogil:
        cdef Py_ssize_t i, f, r
        cdef double s
        for i in range(self.n_rows):
            r = self.index[i]
            s = 0.0
            for f in range(self.n_features):
                s += self.shared[r, f] * self.shared[r, f]
            self.sq_norm[i] = s

    cdef bint dots(self, int i, int start, int end, int nthreads, double* out,
                   const SmoRowFinish* finish=NULL) noexcept nogil:
        """x_i'x_j for j in [start, end) into out[0 : end - start], on `nthreads`
        OpenMP threads; for GRAM, the Gram matrix's entries K(x_i, x_j). True when the
        columns summed the row and also finished it as `finish` says (not NULL)."""
        cdef int j, b, n_blocks, n = end - start
        cdef long long k
        cdef Py_ssize_t f, d = self.n_features
        if n <= 0:
            return False
        if self.bit_words > 0:
            self.bit_values(i, start, end, nthreads, False, NULL, out)
        elif self.int_divisor > 0:
            self.dots_many(&i, 1, start, end, nthreads, out, n)
        elif self.layout == GRAM:
            for j in range(n):
                out[j] = self.shared[self.index[i], self.index[start + j]]
        elif self.layout == CSR:
            k = self.row_start[i]
            if self.columns is not None and self.columns.pays(
                    &self.csr_indices[k], self.row_nnz[i], &self.row_nnz[0], start, end):
                self.columns.dots(i, &self.csr_indices[k], &self.csr_data[k],
                                  self.row_nnz[i], start, end, nthreads, out, finish)
                return finish != NULL
            else:
                gather_dots(&self.csr_data[0], &self.csr_indices[0], &self.row_start[0],
                            &self.row_nnz[0], i, start, end, nthreads, &self.scatter[0],
                            out)
        elif d == 0 or self.layout == BYTES:
            # (BYTES without integer rows: none of them, or no features)
            for j in range(n):
                out[j] = 0.0
        elif self.layout == FEATURE_MAJOR:
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
        elif self.layout == FEATURE_QUADS:
            for f in range(d):
                self.x_i_quads[f] = <signed char>self.quads[f >> 2, 4 * i + (f & 3)]
            if nthreads > 1:
                n_blocks = (n + DENSE_BLOCK - 1) // DENSE_BLOCK
                for b in prange(n_blocks, schedule="static", num_threads=nthreads):
                    smo_quad_dots(min(DENSE_BLOCK, n - b * DENSE_BLOCK),
                                  <int>self.quads.shape[0], 4 * self.n_rows,
                                  &self.quads[0, 4 * (start + b * DENSE_BLOCK)],
                                  &self.x_i_quads[0], &out[b * DENSE_BLOCK])
            else:
                smo_quad_dots(n, <int>self.quads.shape[0], 4 * self.n_rows,
                              &self.quads[0, 4 * start], &self.x_i_quads[0], out)
        elif self.layout == FEATURE_MAJOR_INTS:
            for f in range(d):
                self.x_i_ints[f] = self.ints_t[f, i]
            if nthreads > 1:
                n_blocks = (n + DENSE_BLOCK - 1) // DENSE_BLOCK
                for b in prange(n_blocks, schedule="static", num_threads=nthreads):
                    smo_small_int_dots(min(DENSE_BLOCK, n - b * DENSE_BLOCK), <int>d,
                                       self.n_rows,
                                       &self.ints_t[0, start + b * DENSE_BLOCK],
                                       &self.x_i_ints[0], &out[b * DENSE_BLOCK])
            else:
                smo_small_int_dots(n, <int>d, self.n_rows, &self.ints_t[0, start],
                                   &self.x_i_ints[0], out)
        elif self.layout == ROW_MAJOR:
            if nthreads > 1:
                n_blocks = (n + DENSE_BLOCK - 1) // DENSE_BLOCK
                for b in prange(n_blocks, schedule="static", num_threads=nthreads):
                    smo_row_dots(min(DENSE_BLOCK, n - b * DENSE_BLOCK), d,
                                 &self.dense[start + b * DENSE_BLOCK, 0], d,
                                 &self.dense[i, 0], &out[b * DENSE_BLOCK])
            else:
                smo_row_dots(n, d, &self.dense[start, 0], d, &self.dense[i, 0], out)
        else:
            if nthreads > 1:
                n_blocks = (n + DENSE_BLOCK - 1) // DENSE_BLOCK
                for b in prange(n_blocks, schedule="static", num_threads=nthreads):
                    smo_indexed_row_dots(min(DENSE_BLOCK, n - b * DENSE_BLOCK), d,
                                         &self.shared[0, 0], self.shared.shape[1],
                                         &self.index[start + b * DENSE_BLOCK],
                                         &self.shared[self.index[i], 0],
                                         &out[b * DENSE_BLOCK])
            else:
                smo_indexed_row_dots(n, d, &self.shared[0, 0], self.shared.shape[1],
                                     &self.index[start], &self.shared[self.index[i], 0],
                                     out)
        return False

    cdef void bit_values(self, int i, int start, int end, int nthreads, bint by_xor,
                         const double* table, double* out, double s_i=1.0,
                         const double* sign=NULL, float* q_out=NULL) noexcept nogil:
        """For rows with bitmaps (`bit_words` > 0): c_j = the features rows i and j
        share (x_i'x_j), or with `by_xor` the features only one of them has
        (|x_i - x_j|^2), for j in [start, end); out[j - start] = table[c_j], or c_j
        itself without a table (NULL). Counts run from 0 to n_features.

        With `q_out`, a Q row instead: q_out[j - start] = (float)(s_i sign[j - start]
        table[c_j]) and `out` is not touched (`smo_bit_q_rows`)."""
        cdef int b, n_blocks, n = end - start
        if n <= 0:
            return
        if nthreads > 1:
            n_blocks = (n + DENSE_BLOCK - 1) // DENSE_BLOCK
            for b in prange(n_blocks, schedule="static", num_threads=nthreads):
                self._bit_block(i, start, b * DENSE_BLOCK,
                                min(DENSE_BLOCK, n - b * DENSE_BLOCK), by_xor, table, out,
                                s_i, sign, q_out)
        else:
            self._bit_block(i, start, 0, n, by_xor, table, out, s_i, sign, q_out)

    cdef inline void _bit_block(self, int i, int start, int lo, int n, bint by_xor,
                                const double* table, double* out, double s_i,
                                const double* sign, float* q_out) noexcept nogil:
        """`bit_values` for the n entries from start + lo (one thread's block)."""
        if q_out == NULL:
            smo_bit_rows(n, self.bit_words, &self.bits[start + lo, 0], &self.bits[i, 0],
                         by_xor, table, &out[lo])
        elif self.bits_by_word:
            smo_bit_q_cols(n, self.bit_words, &self.bits_t[0, start + lo], self.n_rows,
                           &self.bits[i, 0], by_xor, table, s_i, &sign[lo], &q_out[lo])
        else:
            smo_bit_q_rows(n, self.bit_words, &self.bits[start + lo, 0], &self.bits[i, 0],
                           by_xor, table, s_i, &sign[lo], &q_out[lo])

    cdef bint reads_rows_together(self) noexcept nogil:
        """Whether `dots_many` builds several rows of dot products in one pass over the
        data (int16 rows, and dense rows stored row by row without bitmaps: a count of
        common bits costs less than reading rows ahead); else it builds them one by
        one."""
        return self.int_divisor > 0 or ((self.layout == ROW_MAJOR or
                                         self.layout == SHARED_DENSE) and
                                        self.n_features > 0 and self.bit_words == 0)

    cdef void dots_many(self, const int* sources, int count, int start, int end,
                        int nthreads, double* out, long ld_out) noexcept nogil:
        """x_s'x_j for each of the `count` rows s = sources[b] and j in [start, end) into
        out[b ld_out : b ld_out + end - start], the same values `dots` gives, on
        `nthreads` OpenMP threads (at most MANY_ROWS sources)."""
        cdef const double* xs[MANY_ROWS]
        cdef int b, block, n_blocks, n = end - start
        cdef Py_ssize_t d = self.n_features
        cdef const double* base
        cdef const int* index = NULL
        cdef long ld
        if n <= 0 or count <= 0:
            return
        if not self.reads_rows_together() or count > MANY_ROWS:
            for b in range(count):
                self.dots(sources[b], start, end, nthreads, out + b * ld_out)
            return
        if self.int_divisor > 0:
            self.int_store.dots_many(sources, count, start, end, nthreads, out, ld_out)
            return
        if self.layout == ROW_MAJOR:
            for b in range(count):
                xs[b] = &self.dense[sources[b], 0]
            base = &self.dense[start, 0]
            ld = d
        else:
            for b in range(count):
                xs[b] = &self.shared[self.index[sources[b]], 0]
            base = &self.shared[0, 0]
            ld = self.shared.shape[1]
            index = &self.index[start]
        if nthreads > 1:
            n_blocks = (n + DENSE_BLOCK - 1) // DENSE_BLOCK
            for block in prange(n_blocks, schedule="static", num_threads=nthreads):
                smo_row_dots_many(
                    min(DENSE_BLOCK, n - block * DENSE_BLOCK), d,
                    base + (0 if index != NULL else <long>block * DENSE_BLOCK * ld), ld,
                    index + block * DENSE_BLOCK if index != NULL else NULL, xs, count,
                    out + block * DENSE_BLOCK, ld_out)
        else:
            smo_row_dots_many(n, d, base, ld, index, xs, count, out, ld_out)

    cdef double dot(self, int i, int j) noexcept nogil:
        """x_i'x_j (GRAM: K(x_i, x_j)); see `row_dot` in rows.pxd."""
        return row_dot(self, i, j)

    cdef double dot_vector(self, int i, const double* w) noexcept nogil:
        """x_i'w for a dense vector w of n_features entries; see rows.pxd."""
        return row_dot_vector(self, i, w)

    cdef void add_to_vector(self, int i, double a, double* w) noexcept nogil:
        """w += a x_i for a dense vector w of n_features entries; see rows.pxd."""
        row_add_to_vector(self, i, a, w)

    cdef void swap(self, int i, int j) noexcept nogil:
        """Exchange rows i and j (the solver swapped its variables i and j)."""
        cdef Py_ssize_t f
        cdef double t
        cdef uint64_t w
        if i == j:
            return
        for f in range(self.bit_words):
            w = self.bits[i, f]
            self.bits[i, f] = self.bits[j, f]
            self.bits[j, f] = w
            if self.bits_by_word:
                self.bits_t[f, i], self.bits_t[f, j] = self.bits_t[f, j], w
        if self.int_divisor > 0:
            self.int_store.swap(i, j)
        self.index[i], self.index[j] = self.index[j], self.index[i]
        self.sq_norm[i], self.sq_norm[j] = self.sq_norm[j], self.sq_norm[i]
        if self.layout == CSR:
            self.row_start[i], self.row_start[j] = self.row_start[j], self.row_start[i]
            self.row_nnz[i], self.row_nnz[j] = self.row_nnz[j], self.row_nnz[i]
            if self.columns is not None:
                self.columns.swap(i, j)
        elif self.layout == ROW_MAJOR:
            for f in range(self.n_features):
                t = self.dense[i, f]
                self.dense[i, f] = self.dense[j, f]
                self.dense[j, f] = t
        elif self.layout == FEATURE_MAJOR:
            for f in range(self.n_features):
                t = self.dense_t[f, i]
                self.dense_t[f, i] = self.dense_t[f, j]
                self.dense_t[f, j] = t
        elif self.layout == FEATURE_MAJOR_INTS:
            for f in range(self.n_features):
                self.ints_t[f, i], self.ints_t[f, j] = self.ints_t[f, j], self.ints_t[f, i]
        elif self.layout == FEATURE_QUADS:
            for f in range(self.quads.shape[0]):
                smo_swap_bytes(&self.quads[f, 4 * i], &self.quads[f, 4 * j], 4)

    def row_dots(self, int i, int nthreads=1):
        """Python access for tests: x_i'x_j (GRAM: K_ij) for every row j, in current
        order, on nthreads threads.

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
                self.dots(i, 0, <int>self.n_rows, nthreads, &o[0])
        return out

    def many_row_dots(self, sources, int nthreads=1):
        """Python access for tests: `dots_many` of the rows `sources` (at most
        MANY_ROWS) against every row, in current order, on nthreads threads.

        Returns
        -------
        ndarray of shape (len(sources), n_rows)
        """
        source_rows = np.ascontiguousarray(sources, dtype=np.int32)
        check_indices(source_rows, self.n_rows, "row")
        cdef const int[::1] s = source_rows
        if not 0 < s.shape[0] <= MANY_ROWS:
            raise ValueError(f"between 1 and {MANY_ROWS} sources, got {s.shape[0]}")
        out = np.empty((s.shape[0], self.n_rows))
        cdef double[:, ::1] o = out
        if self.n_rows:
            with nogil:
                self.dots_many(&s[0], <int>s.shape[0], 0, <int>self.n_rows, nthreads,
                               &o[0, 0], self.n_rows)
        return out

    def swap_rows(self, int i, int j):
        """Python access for tests: exchange rows i and j."""
        if not (0 <= i < self.n_rows and 0 <= j < self.n_rows):
            raise IndexError(f"rows {i}, {j} out of range for {self.n_rows} rows")
        self.swap(i, j)

