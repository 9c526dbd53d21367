# cython: language_level=3
"""Rows of small integers over one divisor as int16 (uint8 where they fit), for dot
products summed exactly.

8-bit images are usually given as pixel / 255.0 (Fashion-MNIST, MNIST) or as the pixels
themselves: every value is an integer q over one divisor D, exactly (q / D == v in
double). Training keeps such rows as int16 beside their data (`Rows` with
int_rows=True): x'y is then an exact integer sum over D^2 (int_dots.h), four times the
multiply-adds of double loops per instruction on a quarter of the memory. The values
are those of the double loops up to their rounding: the integer sum is exact and the
division rounds once.
"""
import numpy as np
from cython.parallel cimport prange
from libsmo._core.checks import check_indices, csr_arrays, matrix_shape
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t
from libc.math cimport INFINITY


cdef extern from "int_dots.h" nogil:
    int smo_small_int(double v, double divisor, int16_t* q)
    int smo_small_int_row(const double* v, long d, double divisor, int16_t* out)
    void smo_int_row_norm(const int16_t* q, long d, int64_t* norm, int32_t* largest)
    void smo_int_dots_many(int n, long d, const int16_t* rows, long ld,
                           const int16_t** xs, int count, double divisor2, double* out,
                           long ld_out)
    void smo_byte_dots_many(int n, long d, const uint8_t* rows, long ld,
                            const int16_t** xs, int count, double divisor2, double* out,
                            long ld_out)
    void smo_indexed_byte_dots_many(int n, long d, const uint8_t* base, long ld,
                                    const int* index, const int16_t** xs, int count,
                                    double divisor2, double* out, long ld_out)
    void smo_widen_bytes(const uint8_t* q, long d, int16_t* out)
    void smo_shift_bytes(const uint8_t* q, long d, long padded, int8_t* out)
    int smo_has_avx512_vnni()
    int smo_has_avx2()
    void smo_avx2_byte_dots_many(int n, long d, const uint8_t* base, long ld,
                                 const int* index, const int16_t** xs, int count,
                                 double divisor2, double* out, long ld_out)
    void smo_vnni_byte_dots_many(int n, long d, const uint8_t* base, long ld,
                                 const int* index, const int8_t** xs, int count,
                                 double divisor2, double* out, long ld_out)
    int smo_narrow_bytes(const int16_t* q, long d, uint8_t* out)
    void smo_swap_bytes(void* a, void* b, size_t n)

# Rows of dot products are split into blocks of this many rows between threads.
cdef int THREAD_BLOCK = 1024
# The divisors tried, in order: integers themselves, then pixels over 255.
DIVISORS = (1.0, 255.0)
# x'y is summed in int32: n_features * max|q|^2 must stay below this.
INT32_LIMIT = 2**31
# uint8 rows' dot products with AVX-512 VNNI (smo_vnni_byte_dots_many: 64 bytes an
# instruction, the same integers): True where the processor has it, False never (the
# tests compare the two).
VNNI_BYTE_DOTS = True
# Elsewhere, uint8 rows' dot products with AVX2 (smo_avx2_byte_dots_many: vpmaddwd a row
# at a time, the same integers): True where the processor has it, False never.
AVX2_BYTE_DOTS = True


def small_integer_rows(X, rows, double csr_bytes_per_value=12.0, bint as_bytes=False,
                       double max_bytes=INFINITY):
    """Rows X[rows] as int16 integers q over one divisor D (q / D == X exactly), or None.

    Parameters
    ----------
    X : ndarray of shape (n, d), C-contiguous float64, or canonical csr_matrix
        Validated rows (CSR: int32 column indices, int64-compatible indptr).
    rows : ndarray of int
        The rows to convert, in this order (each in [0, n)).
    csr_bytes_per_value : float
        CSR rows are converted only where the dense int16 rows take no more memory than
        their stored values and indices (this many bytes each).
    as_bytes : bool
        Dense rows whose every integer is in [0, 255] (8-bit pixels) come as uint8,
        converted a row at a time: the int16 copy of them all is never made (training's
        `Rows`, which keeps them as bytes: `IntRows`).
    max_bytes : float
        None where the integers would take more bytes than this (one a value as
        bytes, else two).

    Returns
    -------
    (ndarray of shape (len(rows), d) of int16 or uint8, float, ndarray of shape (len(rows),)) or None
        The integers, D (the first of `DIVISORS` that holds every value) and the rows'
        squared norms |q|^2 / D^2 (an exact integer over D^2, rounded once). None when
        no divisor holds every value, when a sum x'y could leave int32, when the rows
        are CSR and their int16 copy would take more memory than they do, or beyond
        max_bytes.

    Raises
    ------
    IndexError
        A row outside X.
    ValueError
        X is not 2-D, or CSR arrays that do not describe X's rows (column indices
        outside X's columns: `arrays.csr_arrays`).
    """
    n_total, n_columns = matrix_shape(X)
    cdef Py_ssize_t n = len(rows), d = n_columns
    cdef Py_ssize_t k, f
    cdef long long p
    cdef int ok = 1
    cdef int32_t largest = 0
    cdef double divisor = 0.0
    cdef int64_t s
    rows = np.ascontiguousarray(rows, dtype=np.int32)
    cdef const int[::1] index = rows
    cdef const double[::1] data
    cdef const int[::1] indices
    cdef const long long[::1] indptr
    cdef const double[:, ::1] dense
    cdef int16_t[:, ::1] ints
    cdef double[::1] norms
    cdef bint sparse = hasattr(X, "indptr")
    check_indices(rows, n_total, "row")
    if n == 0 or d == 0 or <double>n * d > max_bytes:
        return None
    if as_bytes and not sparse:
        found = _small_byte_rows(X, rows)
        if found is not False:
            return found
    if 2.0 * n * d > max_bytes:
        return None
    if sparse:
        data, indices, starts = csr_arrays(X)
        indptr = starts
        stored = int(np.sum(starts[rows + 1] - starts[rows]))
        if 2.0 * n * d > csr_bytes_per_value * stored:
            return None
    else:
        dense = X
    out = np.zeros((n, d), dtype=np.int16)
    ints = out
    for candidate in DIVISORS:
        divisor = candidate
        ok = 1
        with nogil:
            for k in range(n):
                if sparse:
                    for p in range(indptr[index[k]], indptr[index[k] + 1]):
                        if not smo_small_int(data[p], divisor, &ints[k, indices[p]]):
                            ok = 0
                            break
                else:
                    ok = smo_small_int_row(&dense[index[k], 0], d, divisor, &ints[k, 0])
                if not ok:
                    break
        if ok:
            break
    if not ok:
        return None
    norms_out = np.empty(n)
    norms = norms_out
    with nogil:
        for k in range(n):
            smo_int_row_norm(&ints[k, 0], d, &s, &largest)
            norms[k] = <double>s / (divisor * divisor)
    if <double>d * largest * largest >= INT32_LIMIT:
        return None
    return out, divisor, norms_out


def _small_byte_rows(const double[:, ::1] X, const int[::1] index):
    """`small_integer_rows(X, index)` for dense rows as uint8, converted a row at a time
    through an int16 scratch row (the same integers, divisor and norms); None where no
    divisor holds every value or a sum could leave int32, False where some integer is
    outside [0, 255]."""
    cdef Py_ssize_t n = index.shape[0], d = X.shape[1], k
    cdef int ok = 1, narrow = 1
    cdef int32_t largest = 0
    cdef double divisor = 0.0
    cdef int64_t s
    out = np.empty((n, d), dtype=np.uint8)
    norms_out = np.empty(n)
    cdef uint8_t[:, ::1] q = out
    cdef double[::1] norms = norms_out
    cdef int16_t[::1] scratch = np.empty(d, dtype=np.int16)
    for candidate in DIVISORS:
        divisor = candidate
        largest = 0
        with nogil:
            for k in range(n):
                ok = smo_small_int_row(&X[index[k], 0], d, divisor, &scratch[0])
                if not ok:
                    break
                narrow = smo_narrow_bytes(&scratch[0], d, &q[k, 0])
                if not narrow:
                    break
                smo_int_row_norm(&scratch[0], d, &s, &largest)
                norms[k] = <double>s / (divisor * divisor)
        if not narrow:
            return False
        if ok:
            break
    if not ok:
        return None
    if <double>d * largest * largest >= INT32_LIMIT:
        return None
    return out, divisor, norms_out


def small_integer_data(X):
    """The small-integer form of every row of dense X as bytes, made once for many
    subsets of its rows (a multi-class fit's one-vs-one pairs, where each class's rows
    were converted once for each of its k - 1 pairs; `take_small_integer_rows`).

    Parameters
    ----------
    X : ndarray of shape (n, d), C-contiguous float64

    Returns
    -------
    (ndarray of shape (n, d) of uint8, float, ndarray of shape (n,)) or None
        `small_integer_rows(X, every row)` with the integers as uint8; None where that
        is None or an integer is outside [0, 255].
    """
    found = small_integer_rows(X, np.arange(matrix_shape(X)[0], dtype=np.int32),
                               as_bytes=True)
    if found is None or found[0].dtype != np.uint8:
        return None
    return found


def take_small_integer_rows(data, rows):
    """`small_integer_rows(X, rows)` for dense X, taken from `data =
    small_integer_data(X)` instead of converted again.

    The divisor is the data's, which may be larger than the one `rows` alone would get
    (255 where these rows hold integers only): x'y and |x|^2 are the same doubles with
    either, an exact integer sum over D^2 rounded once. And where the data's integers
    fit int32 sums, these rows' do.

    Parameters
    ----------
    data : tuple
        From `small_integer_data`.
    rows : ndarray of int
        Row numbers of X.

    Returns
    -------
    (ndarray of shape (len(rows), d) of uint8, float, ndarray of shape (len(rows),))
    """
    q, divisor, norms = data
    rows = np.asarray(rows, dtype=np.intp)
    return q.take(rows, axis=0), divisor, norms.take(rows)


cdef extern from "openmp_threads.h" nogil:
    int smo_openmp_max_threads()

# Rows of a block taken together against every support vector (the most
# smo_int_dots_many's callers pass: Rows' MANY_ROWS).
cdef enum:
    BLOCK_SOURCES = 16


def int_dots_block(const int16_t[:, ::1] x_ints, const int16_t[:, ::1] sv_ints,
                   double divisor, double[:, ::1] out, int n_threads=0):
    """out[i, j] = x_i'sv_j for int16 rows over one divisor: prediction's dot products
    of a block of rows with the support vectors, as training sums them (int_dots.h:
    exact integer sums, one division by divisor^2 each).

    Parameters
    ----------
    x_ints : ndarray of shape (n_rows, d), int16
    sv_ints : ndarray of shape (n_sv, d), int16
        Both from `small_integer_rows` with the same divisor.
    divisor : float
    out : ndarray of shape (n_rows, n_sv), C-contiguous float64
    n_threads : int
        OpenMP threads over groups of 16 rows; 0: as many as OpenMP is allowed.

    Returns
    -------
    None
    """
    cdef Py_ssize_t n_rows = x_ints.shape[0], n_sv = sv_ints.shape[0]
    cdef long d = x_ints.shape[1]
    cdef Py_ssize_t group, n_groups
    cdef double divisor2 = divisor * divisor
    cdef int threads = n_threads if n_threads > 0 else max(1, smo_openmp_max_threads())
    if sv_ints.shape[1] != d or out.shape[0] != n_rows or out.shape[1] != n_sv:
        raise ValueError(f"rows of {d} and {sv_ints.shape[1]} columns into a block of "
                         f"shape {(out.shape[0], out.shape[1])} for "
                         f"{(n_rows, n_sv)}")
    if n_rows == 0 or n_sv == 0:
        return
    if d == 0:
        out[:, :] = 0.0
        return
    n_groups = (n_rows + BLOCK_SOURCES - 1) // BLOCK_SOURCES
    with nogil:
        for group in prange(n_groups, num_threads=threads, schedule="dynamic"):
            _group_dots(&x_ints[group * BLOCK_SOURCES, 0],
                        min(<Py_ssize_t>BLOCK_SOURCES, n_rows - group * BLOCK_SOURCES),
                        &sv_ints[0, 0], n_sv, d, divisor2, &out[group * BLOCK_SOURCES, 0])


cdef void _group_dots(const int16_t* first, Py_ssize_t count, const int16_t* sv,
                      Py_ssize_t n_sv, long d, double divisor2,
                      double* out) noexcept nogil:
    """The rows first[b d] (b < count <= BLOCK_SOURCES) against the n_sv support
    vectors sv[j d], into out[b n_sv + j]: one group of `int_dots_block`, with its own
    source pointers."""
    cdef const int16_t* xs[BLOCK_SOURCES]
    cdef Py_ssize_t b
    for b in range(count):
        xs[b] = first + b * d
    smo_int_dots_many(<int>n_sv, d, sv, d, xs, <int>count, divisor2, out, n_sv)


cdef class IntRows:
    """Training rows of small integers over one divisor, and their rows of dot products
    (`Rows` with int_rows=True keeps one). Rows whose every integer is in [0, 255]
    (8-bit pixels) are kept as uint8, else as int16: half the memory, so that a
    Fashion-MNIST pair of 12,000 images (9.4 MB) stays in this machine's last-level
    cache where its int16 rows (19 MB) streamed from memory. The sums are the same
    integers either way, and whichever loops sum bytes (`_choose_byte_loops`: AVX-512
    VNNI, AVX2 or the plain ones).

    With `index`, the rows are a data set's own uint8 rows, read where it keeps them
    (a data set given as bytes, `Rows` over it): row k is ints[index[k]], and the
    caller permutes `index` itself (`swap` then does nothing), so that the problems of
    one data set (the partitions and working sets of the partitioned solver) never
    copy its rows.

    Parameters
    ----------
    ints : ndarray of shape (n, d), int16 or uint8
        From `small_integer_rows` (int16) or `take_small_integer_rows` (uint8); with
        `index`, C-contiguous uint8 (read in place, never written).
    divisor : float
        Its divisor.
    max_sources : int
        The most sources one `dots_many` call takes.
    index : int32 memoryview, optional
        The rows of `ints` this object serves, in the order the caller keeps (each in
        [0, n), checked by the caller).

    Raises
    ------
    ValueError
        ints is not 2-D, or max_sources outside [1, BLOCK_SOURCES], or ints with an
        index not C-contiguous uint8.
    """

    def __init__(self, ints, double divisor, int max_sources, index=None):
        if not 0 < max_sources <= BLOCK_SOURCES:
            raise ValueError(f"max_sources must be in [1, {BLOCK_SOURCES}], got {max_sources}")
        if index is not None:
            if not (isinstance(ints, np.ndarray) and ints.dtype == np.uint8
                    and ints.flags.c_contiguous):
                raise ValueError("rows read in place through an index must be a "
                                 "C-contiguous uint8 array")
            self.d = matrix_shape(ints, "ints")[1]
            self.divisor = divisor
            self.data = ints
            self.index = index
            self.indexed = True
            self.row_bytes = 1
            self.sources = np.empty((max_sources, self.d), dtype=np.int16)
            self._choose_byte_loops(max_sources)
            return
        narrow = np.asarray(ints).dtype == np.uint8
        ints = np.ascontiguousarray(ints, dtype=np.uint8 if narrow else np.int16)
        self.divisor = divisor
        self.d = matrix_shape(ints, "ints")[1]
        self.row_bytes = 2
        if narrow or (ints.size and ints.min() >= 0 and ints.max() <= 255):
            self.narrow = ints if narrow else ints.astype(np.uint8)
            self.sources = np.empty((max_sources, self.d), dtype=np.int16)
            self.row_bytes = 1
            self._choose_byte_loops(max_sources)
        else:
            self.ints = ints

    def _choose_byte_loops(self, int max_sources):
        """Byte rows' loops: AVX-512 VNNI where the processor has it (unless
        VNNI_BYTE_DOTS is False), their sources shifted to int8 and padded to whole
        64-byte loads; else AVX2 where it has that (unless AVX2_BYTE_DOTS is False);
        else the plain loops."""
        self.vnni = bool(VNNI_BYTE_DOTS) and smo_has_avx512_vnni() != 0
        self.avx2 = not self.vnni and bool(AVX2_BYTE_DOTS) and smo_has_avx2() != 0
        if self.vnni:
            self.shifted = np.zeros((max_sources, 64 * ((self.d + 63) // 64)),
                                    dtype=np.int8)

    cdef void dots_many(self, const int* sources, int count, int start, int end,
                        int nthreads, double* out, long ld_out) noexcept nogil:
        """out[b ld_out + j - start] <- x_sources[b]'x_j for j in [start, end), b in
        [0, count <= max_sources), on `nthreads` OpenMP threads (int_dots.h)."""
        cdef const int16_t* xs[BLOCK_SOURCES]
        cdef int b, block, n_blocks, n = end - start
        if self.vnni:
            self._vnni_dots_many(sources, count, start, n, nthreads, out, ld_out)
            return
        for b in range(count):
            if self.indexed:
                smo_widen_bytes(&self.data[self.index[sources[b]], 0], self.d,
                                &self.sources[b, 0])
                xs[b] = &self.sources[b, 0]
            elif self.row_bytes == 1:
                smo_widen_bytes(&self.narrow[sources[b], 0], self.d, &self.sources[b, 0])
                xs[b] = &self.sources[b, 0]
            else:
                xs[b] = &self.ints[sources[b], 0]
        if nthreads > 1:
            n_blocks = (n + THREAD_BLOCK - 1) // THREAD_BLOCK
            for block in prange(n_blocks, schedule="static", num_threads=nthreads):
                self._block(start + block * THREAD_BLOCK,
                            min(THREAD_BLOCK, n - block * THREAD_BLOCK), xs, count,
                            out + block * THREAD_BLOCK, ld_out)
        else:
            self._block(start, n, xs, count, out, ld_out)

    cdef void _vnni_dots_many(self, const int* sources, int count, int start, int n,
                              int nthreads, double* out, long ld_out) noexcept nogil:
        """`dots_many` for byte rows with AVX-512 VNNI: the same integers, each
        source shifted to int8 once (smo_vnni_byte_dots_many)."""
        cdef const int8_t* xs[BLOCK_SOURCES]
        cdef const uint8_t* base
        cdef const int* index = NULL
        cdef int b, block, n_blocks
        cdef long padded = self.shifted.shape[1]
        cdef double divisor2 = self.divisor * self.divisor
        for b in range(count):
            if self.indexed:
                smo_shift_bytes(&self.data[self.index[sources[b]], 0], self.d, padded,
                                &self.shifted[b, 0])
            else:
                smo_shift_bytes(&self.narrow[sources[b], 0], self.d, padded,
                                &self.shifted[b, 0])
            xs[b] = &self.shifted[b, 0]
        if self.indexed:
            base = &self.data[0, 0]
            index = &self.index[start]
        else:
            base = &self.narrow[start, 0]
        if nthreads > 1:
            n_blocks = (n + THREAD_BLOCK - 1) // THREAD_BLOCK
            for block in prange(n_blocks, schedule="static", num_threads=nthreads):
                smo_vnni_byte_dots_many(
                    min(THREAD_BLOCK, n - block * THREAD_BLOCK), self.d,
                    base if index != NULL else base + <long>block * THREAD_BLOCK * self.d,
                    self.d, index + block * THREAD_BLOCK if index != NULL else NULL,
                    xs, count, divisor2, out + block * THREAD_BLOCK, ld_out)
        else:
            smo_vnni_byte_dots_many(n, self.d, base, self.d, index, xs, count, divisor2,
                                    out, ld_out)

    cdef void _block(self, int start, int n, const int16_t** xs, int count,
                     double* out, long ld_out) noexcept nogil:
        cdef double divisor2 = self.divisor * self.divisor
        if self.avx2:
            smo_avx2_byte_dots_many(
                n, self.d, &self.data[0, 0] if self.indexed else &self.narrow[start, 0],
                self.d, &self.index[start] if self.indexed else NULL, xs, count,
                divisor2, out, ld_out)
        elif self.indexed:
            smo_indexed_byte_dots_many(n, self.d, &self.data[0, 0], self.d,
                                       &self.index[start], xs, count, divisor2, out,
                                       ld_out)
        elif self.row_bytes == 1:
            smo_byte_dots_many(n, self.d, &self.narrow[start, 0], self.d, xs, count,
                               divisor2, out, ld_out)
        else:
            smo_int_dots_many(n, self.d, &self.ints[start, 0], self.d, xs, count,
                              divisor2, out, ld_out)

    cdef void swap(self, int i, int j) noexcept nogil:
        """Exchange rows i and j (the solver swapped its variables); rows read
        through an index follow it, which the caller swaps."""
        if self.indexed:
            return
        if self.row_bytes == 1:
            smo_swap_bytes(&self.narrow[i, 0], &self.narrow[j, 0], self.d)
        else:
            smo_swap_bytes(&self.ints[i, 0], &self.ints[j, 0], 2 * self.d)
