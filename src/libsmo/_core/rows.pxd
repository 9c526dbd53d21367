# The one row accessor of the core: dense, CSR and precomputed rows behind nogil methods,
# shared by the kernel (dot products a whole row at a time, for the Q-row cache) and the
# linear solver (dot products with, and updates of, the primal weights).
cimport cython
from libc.stdint cimport uint64_t
from libsmo._core.sparse_dots cimport SmoRowFinish, SparseColumns
from libsmo._core.int_rows cimport IntRows


cdef enum RowLayout:
    ROW_MAJOR = 0       # a private row-major copy; swap() exchanges the rows themselves
    FEATURE_MAJOR = 1   # a private feature-major copy (few features); swap() likewise
    SHARED_DENSE = 2    # the caller's C-contiguous array, read in place through `index`
    CSR = 3             # the caller's CSR arrays, read through per-row extents
    GRAM = 4            # the caller's n x n kernel matrix, read through `index`
    BYTES = 5           # the caller's uint8 rows (small integers), read through `index`
    FEATURE_MAJOR_INTS = 6  # FEATURE_MAJOR's copy as floats: integers in [0, 255] only
    FEATURE_QUADS = 7   # its copy as bytes, four features a group: integers in [0, 127]


# The most rows of dot products `Rows.dots_many` builds in one pass.
cdef enum:
    MANY_ROWS = 16


@cython.final
cdef class Rows:
    cdef readonly int layout
    cdef readonly Py_ssize_t n_rows
    cdef readonly Py_ssize_t n_features
    # ROW_MAJOR: dense[k] is row k; FEATURE_MAJOR: dense_t[f, k] is feature f of row k
    # and x_i gathers row i for a row of dot products
    cdef double[:, ::1] dense
    cdef double[:, ::1] dense_t
    cdef double[::1] x_i
    # FEATURE_MAJOR_INTS: ints_t[f, k] is feature f of row k, an integer held exactly as
    # a float, and x_i_ints gathers row i
    cdef float[:, ::1] ints_t
    cdef float[::1] x_i_ints
    # FEATURE_QUADS: quads[f // 4, 4 k + f % 4] is feature f of row k (features past the
    # last are 0), and x_i_quads gathers row i
    cdef unsigned char[:, ::1] quads
    cdef signed char[::1] x_i_quads
    # SHARED_DENSE and GRAM: the caller's matrix, row k at shared[index[k]]
    cdef const double[:, ::1] shared
    # BYTES: the caller's uint8 rows, row k at byte_rows[index[k]]; the rows of dot
    # products are the int store's (over them in place, or a private copy), the linear
    # solver's products widen a row into x_i first (the double loops' order and bits)
    cdef const unsigned char[:, ::1] byte_rows
    # CSR: the caller's arrays; row k is csr_data[row_start[k] : row_start[k] + row_nnz[k]]
    cdef const double[::1] csr_data
    cdef const int[::1] csr_indices
    cdef long long[::1] row_start
    cdef int[::1] row_nnz
    cdef double[::1] scatter
    # CSR: the rows' columns too, where `build_columns` made them (else None)
    cdef readonly SparseColumns columns
    # rows of zeros and ones (built with bit_rows=True): bit f of bits[k] is feature f
    # of row k, `bit_words` words a row (0: no bitmaps); dots counts common features
    cdef uint64_t[:, ::1] bits
    # the same bitmaps word-major (bits_t[f, k] = bits[k, f]) where `bits_by_word`: the
    # solver's Q rows are then counted eight rows at a time (`smo_bit_q_cols`)
    cdef uint64_t[:, ::1] bits_t
    cdef readonly bint bits_by_word
    cdef readonly int bit_words
    # rows of small integers over one divisor (built with int_rows=True where there are
    # no bitmaps), as int16 or uint8 (int_rows.IntRows); int_divisor 0: none
    cdef IntRows int_store
    cdef readonly double int_divisor
    # every layout: the caller's row number of row k, and |x_k|^2 (0 for GRAM)
    cdef readonly int[::1] index
    cdef readonly double[::1] sq_norm

    cdef bint dots(self, int i, int start, int end, int nthreads, double* out,
                   const SmoRowFinish* finish=*) noexcept nogil
    cdef void bit_values(self, int i, int start, int end, int nthreads, bint by_xor,
                         const double* table, double* out, double s_i=*,
                         const double* sign=*, float* q_out=*) noexcept nogil
    cdef void _bit_block(self, int i, int start, int lo, int n, bint by_xor,
                         const double* table, double* out, double s_i,
                         const double* sign, float* q_out) noexcept nogil
    cdef bint reads_rows_together(self) noexcept nogil
    cdef void dots_many(self, const int* sources, int count, int start, int end,
                        int nthreads, double* out, long ld_out) noexcept nogil
    cdef double dot(self, int i, int j) noexcept nogil
    cdef double dot_vector(self, int i, const double* w) noexcept nogil
    cdef void add_to_vector(self, int i, double a, double* w) noexcept nogil
    cdef void swap(self, int i, int j) noexcept nogil
    cdef void _copy_dense(self, const double[:, ::1] X) except *
    cdef void _copy_small_integers(self, const unsigned char[:, ::1] source,
                                   const int[::1] source_rows) noexcept nogil
    cdef bint _copy_quads(self, const unsigned char[:, ::1] source,
                          const int[::1] source_rows) noexcept nogil
    cdef void _csr_norms(self) noexcept nogil
    cdef void _shared_norms(self) noexcept nogil
    cdef void _byte_norms(self) noexcept nogil


cdef extern from "inner_loops.h" nogil:
    double smo_dot16(const double* a, const double* b, long d)


cdef inline double byte_dot(const unsigned char* a, const unsigned char* b,
                            Py_ssize_t d) noexcept nogil:
    """a'b of two uint8 rows, summed exactly in integers."""
    cdef long long s = 0
    cdef Py_ssize_t f
    for f in range(d):
        s += <long long>a[f] * b[f]
    return <double>s


cdef inline double dense_dot(const double* a, const double* b, Py_ssize_t d) noexcept nogil:
    """a'b with inner_loops.h's sixteen running sums (vectorised, in a fixed order: the
    same bits as the rows of dot products `Rows.dots` builds)."""
    return smo_dot16(a, b, d)


# The per-row accessors of the linear solver's inner loops, as inline functions: a
# method of another module's class is an indirect call that cannot be inlined, and
# on sparse rows of a dozen non-zeros (a9a) the call costs as much as the work.

cdef inline double row_dot(Rows rows, int i, int j) noexcept nogil:
    """x_i'x_j (GRAM: K(x_i, x_j)); CSR rows by merging their sorted index lists."""
    cdef double s = 0.0
    cdef long long a, b, a_end, b_end
    cdef Py_ssize_t f
    cdef int ia, ib
    if rows.layout == GRAM:
        return rows.shared[rows.index[i], rows.index[j]]
    if rows.layout == BYTES:
        # an exact integer sum (n_features 255^2 < 2^31, checked at construction): the
        # double loops' value too
        return byte_dot(&rows.byte_rows[rows.index[i], 0], &rows.byte_rows[rows.index[j], 0],
                        rows.n_features)
    if rows.layout == SHARED_DENSE:
        return dense_dot(&rows.shared[rows.index[i], 0],
                         &rows.shared[rows.index[j], 0], rows.n_features)
    if rows.layout == ROW_MAJOR:
        return dense_dot(&rows.dense[i, 0], &rows.dense[j, 0], rows.n_features)
    if rows.layout == FEATURE_MAJOR:
        for f in range(rows.n_features):
            s += rows.dense_t[f, i] * rows.dense_t[f, j]
        return s
    if rows.layout == FEATURE_MAJOR_INTS:
        for f in range(rows.n_features):
            s += <double>rows.ints_t[f, i] * <double>rows.ints_t[f, j]
        return s
    if rows.layout == FEATURE_QUADS:
        for f in range(rows.n_features):
            s += (<double>rows.quads[f >> 2, 4 * i + (f & 3)]
                  * <double>rows.quads[f >> 2, 4 * j + (f & 3)])
        return s
    a = rows.row_start[i]
    a_end = a + rows.row_nnz[i]
    b = rows.row_start[j]
    b_end = b + rows.row_nnz[j]
    while a < a_end and b < b_end:
        ia = rows.csr_indices[a]
        ib = rows.csr_indices[b]
        if ia == ib:
            s += rows.csr_data[a] * rows.csr_data[b]
            a += 1
            b += 1
        elif ia < ib:
            a += 1
        else:
            b += 1
    return s


cdef inline double row_dot_vector(Rows rows, int i, const double* w) noexcept nogil:
    """x_i'w for a dense vector w of n_features entries."""
    cdef double s = 0.0
    cdef long long k, begin
    cdef Py_ssize_t f
    if rows.layout == CSR:
        begin = rows.row_start[i]
        for k in range(begin, begin + rows.row_nnz[i]):
            s += rows.csr_data[k] * w[rows.csr_indices[k]]
        return s
    if rows.layout == SHARED_DENSE or rows.layout == GRAM:
        return dense_dot(&rows.shared[rows.index[i], 0], w, rows.n_features)
    if rows.layout == BYTES:
        for f in range(rows.n_features):
            rows.x_i[f] = rows.byte_rows[rows.index[i], f]
        return dense_dot(&rows.x_i[0], w, rows.n_features)
    if rows.layout == ROW_MAJOR:
        return dense_dot(&rows.dense[i, 0], w, rows.n_features)
    if rows.layout == FEATURE_MAJOR_INTS:
        for f in range(rows.n_features):
            s += <double>rows.ints_t[f, i] * w[f]
        return s
    if rows.layout == FEATURE_QUADS:
        for f in range(rows.n_features):
            s += <double>rows.quads[f >> 2, 4 * i + (f & 3)] * w[f]
        return s
    for f in range(rows.n_features):
        s += rows.dense_t[f, i] * w[f]
    return s


cdef inline void row_add_to_vector(Rows rows, int i, double a, double* w) noexcept nogil:
    """w += a x_i for a dense vector w of n_features entries."""
    cdef long long k, begin
    cdef Py_ssize_t f
    if rows.layout == CSR:
        begin = rows.row_start[i]
        for k in range(begin, begin + rows.row_nnz[i]):
            w[rows.csr_indices[k]] += a * rows.csr_data[k]
    elif rows.layout == SHARED_DENSE or rows.layout == GRAM:
        for f in range(rows.n_features):
            w[f] += a * rows.shared[rows.index[i], f]
    elif rows.layout == BYTES:
        for f in range(rows.n_features):
            w[f] += a * <double>rows.byte_rows[rows.index[i], f]
    elif rows.layout == ROW_MAJOR:
        for f in range(rows.n_features):
            w[f] += a * rows.dense[i, f]
    elif rows.layout == FEATURE_MAJOR_INTS:
        for f in range(rows.n_features):
            w[f] += a * <double>rows.ints_t[f, i]
    elif rows.layout == FEATURE_QUADS:
        for f in range(rows.n_features):
            w[f] += a * <double>rows.quads[f >> 2, 4 * i + (f & 3)]
    else:
        for f in range(rows.n_features):
            w[f] += a * rows.dense_t[f, i]
