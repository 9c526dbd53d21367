# Training rows of small integers over one divisor (int16, or uint8 where every integer
# is in [0, 255]) and their rows of dot products: `Rows` keeps one where it can.
from libc.stdint cimport int8_t, int16_t, uint8_t


cdef class IntRows:
    # row k is ints[k] / divisor (row_bytes 2) or narrow[k] / divisor (row_bytes 1)
    cdef int16_t[:, ::1] ints
    cdef uint8_t[:, ::1] narrow
    # uint8 sources widened to int16 for one call of dots_many (max_sources rows)
    cdef int16_t[:, ::1] sources
    # with `vnni` (byte rows, AVX-512 VNNI): the sources of one call shifted to int8
    # (q - 128), padded with zeros to whole 64-byte loads
    cdef int8_t[:, ::1] shifted
    cdef readonly bint vnni
    # byte rows summed with AVX2 (no VNNI)
    cdef readonly bint avx2
    # a data set's uint8 rows read in place: row k is data[index[k]] (the caller's
    # index, which it permutes itself); not indexed: row k is narrow[k] or ints[k]
    cdef const uint8_t[:, ::1] data
    cdef const int[::1] index
    cdef readonly bint indexed
    cdef readonly int row_bytes
    cdef readonly double divisor
    cdef long d

    cdef void dots_many(self, const int* sources, int count, int start, int end,
                        int nthreads, double* out, long ld_out) noexcept nogil
    cdef void _vnni_dots_many(self, const int* sources, int count, int start, int n,
                              int nthreads, double* out, long ld_out) noexcept nogil
    cdef void _block(self, int start, int n, const int16_t** xs, int count,
                     double* out, long ld_out) noexcept nogil
    cdef void swap(self, int i, int j) noexcept nogil
