# Rows of zeros and ones as bitmaps: bit f % 64 of word f // 64 of a row is feature f.
from libc.stdint cimport uint64_t


cdef inline bint set_bit_of(uint64_t* row, Py_ssize_t f, double v) noexcept nogil:
    """Feature f of a row's bitmap for the value v: set for 1, left clear for 0; False
    for any other value (NaN too), which no bitmap can hold."""
    if v == 1.0:
        row[f >> 6] |= (<uint64_t>1) << (f & 63)
        return True
    return v == 0.0
