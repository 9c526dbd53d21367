# cython: language_level=3
"""Prediction's kernel blocks K(X, SV) and kernel sums K(X, SV) coef', the loops behind
`libsmo._blocks.kernel_block` and `libsmo._blocks.support_rows`: the RBF values from a block of dot
products in one pass; sparse rows against feature-major support vectors, or against the
sparse support vectors' columns (`column_dots`, over a `sparse_dots.SparseColumns`) after
their common features' dense block (`dense_columns_of`); rows of zeros and ones counted
on bitmaps with the training rows' own table of kernel values (`kernel.rbf_exp_table`:
the same values as the training rows). Each shares its block's rows among OpenMP
threads when the block has at least 16 times the entries of a kernel row that training
shares (`kernel.ROW_PARALLEL_MIN`).
"""
import numpy as np
from cython.parallel cimport prange, threadid
from libc.stdint cimport uint64_t
from libc.string cimport memset
from libsmo._core.checks import csr_arrays, matrix_shape
from libsmo._core.rows cimport dense_dot
from libsmo._core.sparse_dots cimport SparseColumns, smo_column_dots_rows
from libsmo._core.kernel import ROW_PARALLEL_MIN

cdef extern from "openmp_threads.h" nogil:
    int smo_openmp_max_threads()

cdef extern from "inner_loops.h" nogil:
    void smo_rbf_from_dots_clamped(int n, double* out, const double* sq, double sq_i,
                                   double gamma)
    void smo_axpy4(int n, double* out, double a, const double* b, double c,
                   const double* d, double e, const double* f, double g,
                   const double* h)

cdef extern from "bit_counts.h" nogil:
    void smo_bit_rows(int n, int words, const uint64_t* rows, const uint64_t* x,
                      int by_xor, const double* table, double* out)
    void smo_bit_cols(int n, int words, const uint64_t* cols, long ld, const uint64_t* x,
                      int by_xor, const double* table, double* out)
    int smo_has_vpopcnt()

# A block is shared among threads from this many entries.
cdef long long BLOCK_PARALLEL_MIN = 16 * ROW_PARALLEL_MIN
# Rows of prediction's sparse blocks handed to a thread at a time (`column_dots`).
cdef int COLUMN_ROWS_PER_TASK = 16


def rbf_block_from_dots(double[:, ::1] dots, const double[::1] row_norms,
                        const double[::1] sv_norms, double gamma, int n_threads=0,
                        const double[:, ::1] coef_t=None, double[:, ::1] sums=None):
    """Turn a block of dot products into RBF kernel values, in place, in one pass:
    K[i, j] = exp(-gamma max(0, |x_i|^2 + |sv_j|^2 - 2 dots[i, j])); with `coef_t`,
    also the kernel sums K @ coef_t.T, each row summed while it is in the core's cache.

    Prediction's kernel blocks go through here: numpy's chain of ufuncs made six passes
    over the block and its exp costs about 13 ns a value on this machine's numpy, where
    the exponential of rbf_loops.h (about one ulp; eight values at a time where the
    processor has AVX-512, else four, the same values) and one pass over each row cost
    about a tenth of that. Rows are handed out to `n_threads`
    OpenMP threads four at a time when the block is large enough to pay for them (a
    thread another process slows takes fewer). The kernel sums were a second pass over
    the block (numpy's product on one BLAS thread, prediction holding BLAS to one): 7%
    of the reviews' prediction at two threads. Each sum is inner_loops.h's `smo_dot16`
    (a fixed order: the same bits on any number of threads).

    Parameters
    ----------
    dots : ndarray of shape (n_rows, n_sv), C-contiguous float64
        x_i'sv_j; overwritten with the kernel values.
    row_norms : ndarray of shape (n_rows,)
    sv_norms : ndarray of shape (n_sv,)
    gamma : float
    n_threads : int
        0: as many as OpenMP is allowed (threadpoolctl's limits apply). 1 right after a
        multithreaded BLAS product, whose threads keep spinning for a while (a dense
        Fashion-MNIST prediction: 0.53 s with one thread here, 0.90 s with two).
    coef_t : ndarray of shape (n_columns, n_sv), C-contiguous, optional
        Coefficients of the support vectors, as rows.
    sums : ndarray of shape (n_rows, n_columns), C-contiguous, optional
        With coef_t: overwritten with K @ coef_t.T.

    Returns
    -------
    None
    """
    cdef Py_ssize_t n_rows = dots.shape[0], n_sums = 0, i, c
    cdef int n_cols = <int>dots.shape[1]
    cdef int threads = 1
    if row_norms.shape[0] != n_rows or sv_norms.shape[0] != n_cols:
        raise ValueError(f"norms of {row_norms.shape[0]} rows and {sv_norms.shape[0]} "
                         f"support vectors for a block of shape {(n_rows, n_cols)}")
    if (coef_t is None) != (sums is None):
        raise ValueError("kernel sums need both coef_t and sums")
    if coef_t is not None:
        n_sums = coef_t.shape[0]
        if coef_t.shape[1] != n_cols or sums.shape[0] != n_rows or sums.shape[1] != n_sums:
            raise ValueError(f"coefficients of shape {tuple(coef_t.shape)[:2]} and sums "
                             f"of shape {tuple(sums.shape)[:2]} for a block of shape "
                             f"{(n_rows, n_cols)}")
    if n_rows == 0:
        return
    if n_rows * n_cols >= BLOCK_PARALLEL_MIN:
        threads = n_threads if n_threads > 0 else max(1, smo_openmp_max_threads())
    with nogil:
        for i in prange(n_rows, num_threads=threads, schedule="dynamic", chunksize=4):
            smo_rbf_from_dots_clamped(n_cols, &dots[i, 0], &sv_norms[0], row_norms[i],
                                      gamma)
            for c in range(n_sums):
                sums[i, c] = dense_dot(&dots[i, 0], &coef_t[c, 0], n_cols)


# Rows of a sparse block are taken this many at a time, and the support vectors' columns
# this many at a time, so that the slice of the feature-major support vectors that a
# group reads (features x COLUMN_CHUNK doubles) stays in the core's cache while the
# group's rows use it.
cdef int ROW_GROUP = 16
cdef int COLUMN_CHUNK = 512


def sparse_dots_feature_major(X, const double[:, ::1] sv_by_feature,
                              double[:, ::1] out):
    """out[i, j] = x_i' sv_j for CSR rows x_i and dense support vectors stored feature
    by feature (sv_by_feature[f, j] = sv_j[f]).

    Each stored value of a row adds one contiguous multiple of a support-vector feature
    row: the work is nnz(X) x n_SV multiply-adds, where densifying the rows for a BLAS
    product costs n_rows x width x n_SV (a9a: 14 of 123 features stored, 9 times
    fewer). Groups of rows are shared among OpenMP threads as `rbf_block_from_dots`
    shares rows.

    Parameters
    ----------
    X : csr_matrix of shape (n_rows, width)
        Canonical CSR with int32 indices, every index below width.
    sv_by_feature : ndarray of shape (width, n_SV), C-contiguous
    out : ndarray of shape (n_rows, n_SV), C-contiguous, overwritten
    """
    cdef const double[::1] data
    cdef const int[::1] indices
    cdef const long long[::1] indptr
    cdef Py_ssize_t n_rows = out.shape[0]
    cdef Py_ssize_t n_sv = out.shape[1]
    cdef Py_ssize_t n_groups, g, i, j, start, stop, first, last
    cdef long long p
    cdef double v
    cdef double* row
    cdef const double* column
    cdef int threads = 1
    if (matrix_shape(X) != (n_rows, sv_by_feature.shape[0])
            or sv_by_feature.shape[1] != n_sv):
        raise ValueError(f"rows of shape {X.shape}, support vectors by feature of shape "
                         f"{tuple(sv_by_feature.shape)[:2]} and a block of shape "
                         f"{(n_rows, n_sv)} do not match")
    if n_rows == 0 or n_sv == 0:
        return
    data, indices, indptr = csr_arrays(X)
    n_groups = (n_rows + ROW_GROUP - 1) // ROW_GROUP
    if indptr[n_rows] * n_sv >= BLOCK_PARALLEL_MIN:
        threads = max(1, smo_openmp_max_threads())
    with nogil:
        for g in prange(n_groups, num_threads=threads, schedule="static"):
            first = g * ROW_GROUP
            last = first + ROW_GROUP
            if last > n_rows:
                last = n_rows
            start = 0
            while start < n_sv:
                stop = start + COLUMN_CHUNK
                if stop > n_sv:
                    stop = n_sv
                for i in range(first, last):
                    row = &out[i, 0]
                    for j in range(start, stop):
                        row[j] = 0.0
                    p = indptr[i]
                    # four stored values per pass over the chunk of the row: a quarter
                    # of the loads and stores of the output
                    while p + 4 <= indptr[i + 1]:
                        smo_axpy4(<int>(stop - start), row + start,
                                  data[p], &sv_by_feature[indices[p], start],
                                  data[p + 1], &sv_by_feature[indices[p + 1], start],
                                  data[p + 2], &sv_by_feature[indices[p + 2], start],
                                  data[p + 3], &sv_by_feature[indices[p + 3], start])
                        p = p + 4
                    while p < indptr[i + 1]:
                        v = data[p]
                        column = &sv_by_feature[indices[p], 0]
                        for j in range(start, stop):
                            row[j] += v * column[j]
                        p = p + 1
                start = stop


cdef int _bit_threads(const uint64_t[:, ::1] x_bits, const uint64_t[:, ::1] sv_bits,
                      const long long[::1] offsets, const double[::1] table,
                      Py_ssize_t n_rows, int n_threads) except -1:
    """Check what `bit_kernel_block` and `bit_kernel_products` share (the shapes, a
    table long enough for every count: ValueError) and return the OpenMP threads for
    their rows, 0 when there is nothing to count (0 words: every count is 0)."""
    cdef Py_ssize_t words = x_bits.shape[1], n_sv = sv_bits.shape[0]
    if x_bits.shape[0] != n_rows or sv_bits.shape[1] != words or offsets.shape[0] != n_rows:
        raise ValueError(f"bitmaps of shapes {tuple(x_bits.shape)[:2]} and "
                         f"{tuple(sv_bits.shape)[:2]} and {offsets.shape[0]} offsets for "
                         f"{n_rows} rows do not match")
    if n_rows == 0 or n_sv == 0:
        return 0
    if np.min(offsets) < 0 or np.max(offsets) + 64 * words >= table.shape[0]:
        raise ValueError(f"a table of {table.shape[0]} values for counts up to "
                         f"{np.max(offsets) + 64 * words}")
    if n_rows * n_sv >= BLOCK_PARALLEL_MIN:
        return n_threads if n_threads > 0 else max(1, smo_openmp_max_threads())
    return 1


def bit_kernel_block(const uint64_t[:, ::1] x_bits, const uint64_t[:, ::1] sv_bits,
                     const long long[::1] offsets, const double[::1] table, bint by_xor,
                     double[:, ::1] out, int n_threads=0):
    """out[i, j] = table[offsets[i] + c_ij] for rows and support vectors of 0/1 values
    stored as bitmaps (`libsmo._core.rows.pack_bits`), c_ij the number of features both
    have (by_xor False: the dot product) or that only one has (by_xor True: the squared
    distance on these columns).

    Prediction's kernel blocks of 0/1 rows (a9a, w8a): a bit count and a table load per
    value. `offsets` adds a row's features outside the support vectors' columns.

    Parameters
    ----------
    x_bits : ndarray of shape (n_rows, words), uint64
    sv_bits : ndarray of shape (n_sv, words), uint64
    offsets : ndarray of shape (n_rows,), int64, each at least 0
    table : ndarray of at least max(offsets) + 64 words + 1 values
        The kernel value for each count.
    by_xor : bool
    out : ndarray of shape (n_rows, n_sv), C-contiguous, overwritten
    n_threads : int
        0: as many as OpenMP is allowed.

    Raises
    ------
    ValueError
        Shapes that do not match, or a table too short for some count.
    """
    cdef Py_ssize_t n_rows = out.shape[0], i
    cdef int n_sv = <int>out.shape[1]
    cdef int words = <int>x_bits.shape[1]
    cdef int threads
    if sv_bits.shape[0] != n_sv:
        raise ValueError(f"{sv_bits.shape[0]} support vectors' bitmaps for a block of "
                         f"shape {(n_rows, n_sv)} do not match")
    threads = _bit_threads(x_bits, sv_bits, offsets, table, n_rows, n_threads)
    if threads == 0:
        return
    with nogil:
        for i in prange(n_rows, num_threads=threads, schedule="static"):
            smo_bit_rows(n_sv, words, &sv_bits[0, 0], &x_bits[i, 0], by_xor,
                         &table[offsets[i]], &out[i, 0])


def bit_kernel_products(const uint64_t[:, ::1] x_bits, const uint64_t[:, ::1] sv_bits,
                        const long long[::1] offsets, const double[::1] table,
                        bint by_xor, const double[:, ::1] coef_t, double[:, ::1] out,
                        int n_threads=0, word_major=None):
    """out[i, m] = sum_j K_ij coef_t[m, j], K_ij counted as `bit_kernel_block` counts
    it, without the block: each row's kernel values go to a buffer that stays in the
    core's cache and meet each coefficient row there (rows.pxd's `dense_dot`).

    Parameters
    ----------
    x_bits, sv_bits, offsets, table, by_xor, n_threads
        As for `bit_kernel_block`.
    coef_t : ndarray of shape (n_columns, n_sv), C-contiguous
    out : ndarray of shape (n_rows, n_columns), C-contiguous, overwritten
    word_major : bool, optional
        Count the support vectors word-major, eight at a time (`smo_bit_cols`), or row
        by row (`smo_bit_rows`); default: word-major where the processor has AVX-512
        VPOPCNTQ. The same values either way.

    Raises
    ------
    ValueError
        Shapes that do not match, or a table too short for some count.
    """
    cdef Py_ssize_t n_rows = out.shape[0], i
    cdef int n_sv = <int>sv_bits.shape[0]
    cdef int n_columns = <int>out.shape[1]
    cdef int words = <int>x_bits.shape[1]
    cdef int threads, c
    cdef double[:, ::1] values
    cdef bint by_word = smo_has_vpopcnt() if word_major is None else word_major
    cdef const uint64_t[:, ::1] sv_cols = (np.ascontiguousarray(np.asarray(sv_bits).T)
                                           if by_word else sv_bits)
    if coef_t.shape[0] != n_columns or coef_t.shape[1] != n_sv:
        raise ValueError(f"coefficients of shape {tuple(coef_t.shape)[:2]} for "
                         f"{n_sv} support vectors and a result of shape "
                         f"{(n_rows, n_columns)} do not match")
    if n_columns == 0:
        return
    np.asarray(out)[:] = 0.0
    threads = _bit_threads(x_bits, sv_bits, offsets, table, n_rows, n_threads)
    if threads == 0:
        return
    values = np.empty((threads, n_sv))   # a row of kernel values per thread
    with nogil:
        # rows handed out 64 at a time: a core that a neighbour slows gets fewer
        for i in prange(n_rows, num_threads=threads, schedule="dynamic", chunksize=64):
            if by_word:
                smo_bit_cols(n_sv, words, &sv_cols[0, 0], n_sv, &x_bits[i, 0], by_xor,
                             &table[offsets[i]], &values[threadid(), 0])
            else:
                smo_bit_rows(n_sv, words, &sv_bits[0, 0], &x_bits[i, 0], by_xor,
                             &table[offsets[i]], &values[threadid(), 0])
            for c in range(n_columns):
                out[i, c] = dense_dot(&values[threadid(), 0], &coef_t[c, 0], n_sv)


def _slotted_csr_arrays(X, slot, Py_ssize_t n_slots, unit):
    """`arrays.csr_arrays` of X, and a ValueError where a feature X stores has a slot
    beyond the block's n_slots (`unit`: its rows or columns), as the loops read them."""
    data, indices, indptr = csr_arrays(X)
    if len(indices) and np.max(np.asarray(slot)[indices]) >= n_slots:
        raise ValueError(f"feature slots beyond the block's {n_slots} {unit}")
    return data, indices, indptr


def dense_columns_of(X, const int[::1] slot, double[:, ::1] out):
    """out[r, slot[f]] = X[r, f] for the features f with slot[f] >= 0, every other
    entry of out zero: CSR rows' values of a few features as a dense block, in one pass
    over the stored values on the OpenMP threads (the reviews' 58 prediction blocks
    against their 38 common features: 2.0-2.2 ms, where scipy's column selection and
    densifying took 9.0-9.2 ms).

    Parameters
    ----------
    X : csr_matrix of shape (n_rows, width)
        Canonical CSR, width at most len(slot).
    slot : ndarray of int32
        Per feature, its column in out, or -1.
    out : ndarray of shape (n_rows, n_slots), C-contiguous
        Overwritten; every slot[f] < n_slots for the features X can store.
    """
    cdef const double[::1] data
    cdef const int[::1] indices
    cdef const long long[::1] indptr
    cdef Py_ssize_t n_rows = out.shape[0], r
    cdef long long k
    cdef int s, threads = 1
    if matrix_shape(X)[0] != n_rows or X.shape[1] > slot.shape[0]:
        raise ValueError(f"rows of shape {X.shape}, {slot.shape[0]} feature slots and a "
                         f"block of shape {(n_rows, out.shape[1])} do not match")
    if n_rows == 0:
        return
    data, indices, indptr = _slotted_csr_arrays(X, slot, out.shape[1], "columns")
    if n_rows >= 2 * COLUMN_ROWS_PER_TASK:
        threads = max(1, smo_openmp_max_threads())
    with nogil:
        for r in prange(n_rows, num_threads=threads, schedule="static"):
            memset(&out[r, 0], 0, out.shape[1] * sizeof(double))
            for k in range(indptr[r], indptr[r + 1]):
                s = slot[indices[k]]
                if s >= 0:
                    out[r, s] = data[k]


def split_by_slot(X, const int[::1] slot, double[:, ::1] by_slot):
    """Canonical CSR rows split in one pass: the values of the features with a slot
    (slot[f] >= 0) into by_slot[slot[f], r], feature-major (the other entries are
    left as they are: zeros from np.zeros), and the rest returned as the arrays of
    `sparse_dots.SparseColumns` (`SparseSupportColumns`: the common features' dense
    block and the others' columns). On the reviews' 8,804 support vectors numpy's
    masks, running sums and gathers and scipy's column selection took 11 ms; the whole
    build went from 17-20 to 11-14 ms (medians of ten, three processes each).

    Parameters
    ----------
    X : csr_matrix of shape (n_rows, width)
        Canonical CSR, width at most len(slot).
    slot : ndarray of int32
        Per feature, its row in by_slot, or -1.
    by_slot : ndarray of shape (n_slots, n_rows), C-contiguous

    Returns
    -------
    data, indices : ndarray of float64 and int32
        The other features' values, row after row (the arrays may be longer).
    row_start : ndarray of int64
    row_nnz : ndarray of int32
    """
    cdef const double[::1] data
    cdef const int[::1] indices
    cdef const long long[::1] indptr
    cdef Py_ssize_t n_rows = matrix_shape(X)[0], r
    cdef long long k, kept = 0
    cdef int s
    if X.shape[1] > slot.shape[0] or by_slot.shape[1] != n_rows:
        raise ValueError(f"rows of shape {X.shape}, {slot.shape[0]} slots and a block "
                         f"of shape {tuple(by_slot.shape)[:2]} do not match")
    data, indices, indptr = _slotted_csr_arrays(X, slot, by_slot.shape[0], "rows")
    rest_data = np.empty(max(1, len(indices)))
    rest_indices = np.empty(max(1, len(indices)), dtype=np.int32)
    row_start = np.empty(n_rows, dtype=np.int64)
    row_nnz = np.empty(n_rows, dtype=np.int32)
    cdef double[::1] out_data = rest_data
    cdef int[::1] out_indices = rest_indices
    cdef long long[::1] starts = row_start
    cdef int[::1] counts = row_nnz
    with nogil:
        for r in range(n_rows):
            starts[r] = kept
            for k in range(indptr[r], indptr[r + 1]):
                s = slot[indices[k]]
                if s >= 0:
                    by_slot[s, r] = data[k]
                else:
                    out_data[kept] = data[k]
                    out_indices[kept] = indices[k]
                    kept += 1
            counts[r] = <int>(kept - starts[r])
    return rest_data, rest_indices, row_start, row_nnz


def column_dots(X, SparseColumns columns, double[:, ::1] out, bint add=False):
    """out[i, j] = x_i'sv_j for CSR rows x_i and the columns of the support vectors
    (`SparseColumns` over them, no swaps): each row adds the columns of its features
    in feature order (column_loops.h's `smo_column_dots_rows`), so the work is the
    products that are not zero, where scipy's sparse product also builds a sparse
    result first. Groups of COLUMN_ROWS_PER_TASK rows are shared among OpenMP threads.
    The common features' long columns are the dense product's, so what is left is
    short columns that rows seldom share: sorting a group's values by feature to read
    each column once for the group cost more than it saved, and so did cutting the
    support vectors into ranges whose sums stay in the core's cache (0.36 against
    0.26 s at one thread on the reviews' test rows).

    Parameters
    ----------
    X : csr_matrix of shape (n_rows, width)
        Canonical CSR with int32 indices, width at most the columns' n_features.
    columns : SparseColumns
        Over the n_SV support vectors.
    out : ndarray of shape (n_rows, n_SV), C-contiguous
        Overwritten, or with `add` added to (the products of the features that
        prediction multiplies as a dense block, `SparseSupportColumns`).
    add : bool
    """
    cdef const double[::1] data
    cdef const int[::1] indices
    cdef const long long[::1] indptr
    cdef Py_ssize_t n_rows = out.shape[0], n_sv = out.shape[1], g, n_groups
    cdef int threads = 1
    if (matrix_shape(X)[0] != n_rows or X.shape[1] > columns.col_start.shape[0] - 1
            or columns.original.shape[0] != n_sv):
        raise ValueError(f"rows of shape {X.shape}, {columns.original.shape[0]} support "
                         f"vectors of {columns.col_start.shape[0] - 1} features and a "
                         f"block of shape {(n_rows, n_sv)} do not match")
    if n_rows == 0 or n_sv == 0:
        return
    data, indices, indptr = csr_arrays(X)
    n_groups = (n_rows + COLUMN_ROWS_PER_TASK - 1) // COLUMN_ROWS_PER_TASK
    if n_groups >= 2:
        threads = max(1, smo_openmp_max_threads())
    with nogil:
        for g in prange(n_groups, num_threads=threads, schedule="dynamic"):
            smo_column_dots_rows(&indices[0], &data[0], &indptr[0],
                                 g * COLUMN_ROWS_PER_TASK,
                                 min(n_rows, (g + 1) * COLUMN_ROWS_PER_TASK),
                                 &columns.col_start[0], &columns.col_row[0],
                                 &columns.col_val[0], &out[0, 0], n_sv, add)
