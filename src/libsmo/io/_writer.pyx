# cython: language_level=3
"""The LIBSVM / svmlight text format written at C speed (`libsmo.io._svmlight` reads it).

`format_lines` writes rows ``lead ... [qid:q] idx:val ...`` and `format_table` rows of
numbers alone (LIBLINEAR's weights), with each number in a chosen format: ``('r', 0)``
the shortest text that reads back to the same double, ``('g', 17)`` and ``('g', 8)``
C's ``%.17g`` and ``%.8g`` (LIBSVM's formats), locale-independent.
"""
from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdint cimport int64_t, uint64_t
from libc.math cimport signbit
from libc.string cimport memcpy, strlen
from libsmo._core.checks import checked_indptr

cdef extern from "Python.h":
    # (the raw allocator: as malloc, and seen by tracemalloc, which the tests measure
    # the writers' memory with)
    void *PyMem_RawMalloc(size_t n)
    void *PyMem_RawRealloc(void *p, size_t n)
    void PyMem_RawFree(void *p)
    char *PyOS_double_to_string(double val, char format_code, int precision, int flags,
                                int *ptype) except NULL
    void PyMem_Free(void *p)


cdef class _Buffer:
    """A growing byte buffer."""
    cdef char *buf
    cdef Py_ssize_t size, capacity

    def __cinit__(self, Py_ssize_t capacity):
        self.capacity = max(capacity, 64)
        self.buf = <char *>PyMem_RawMalloc(self.capacity)
        self.size = 0
        if self.buf == NULL:
            raise MemoryError()

    def __dealloc__(self):
        PyMem_RawFree(self.buf)

    cdef int reserve(self, Py_ssize_t extra) except -1:
        cdef char *new
        cdef Py_ssize_t capacity
        if self.size + extra <= self.capacity:
            return 0
        capacity = max(2 * self.capacity, self.size + extra)
        new = <char *>PyMem_RawRealloc(self.buf, capacity)
        if new == NULL:
            raise MemoryError()
        self.buf = new
        self.capacity = capacity
        return 0

    cdef inline int put(self, const char *s, Py_ssize_t n) except -1:
        self.reserve(n)
        memcpy(self.buf + self.size, s, n)
        self.size += n
        return 0

    cdef inline int put_char(self, char c) except -1:
        self.reserve(1)
        self.buf[self.size] = c
        self.size += 1
        return 0

    cdef int put_int(self, int64_t value) except -1:
        cdef char digits[24]
        cdef int n = 0
        cdef uint64_t v
        cdef bint negative = value < 0
        v = <uint64_t>(-value) if negative else <uint64_t>value
        while True:
            digits[23 - n] = 48 + <char>(v % 10)
            n += 1
            v //= 10
            if v == 0:
                break
        if negative:
            digits[23 - n] = 45
            n += 1
        return self.put(&digits[24 - n], n)

    cdef int put_double(self, double value, char code, int precision) except -1:
        cdef char *text
        if value != value and code == 103:
            # C's printf: "-nan" where the sign bit is set (0 / 0's NaN on x86), which
            # Python's formatting never writes
            return self.put(b"-nan", 4) if signbit(value) else self.put(b"nan", 3)
        text = PyOS_double_to_string(value, code, precision, 0, NULL)
        try:
            self.put(text, strlen(text))
        finally:
            PyMem_Free(text)
        return 0

    cdef bytes value(self):
        # (the spare room given back first: the copy then doubles the text, no more)
        cdef char *new = <char *>PyMem_RawRealloc(self.buf, max(self.size, 1))
        if new != NULL:
            self.buf = new
            self.capacity = max(self.size, 1)
        return PyBytes_FromStringAndSize(self.buf, self.size)


def _format_pair(fmt, str name):
    """A format (code, precision) as the char and int the writer passes on."""
    if not isinstance(fmt, (tuple, list)) or len(fmt) != 2:
        raise ValueError(f"{name} must be a (code, precision) pair, got {fmt!r}")
    return ord(fmt[0]), int(fmt[1])


cdef bint _put_numbers(_Buffer out, const double[:] row, char code, int precision,
                       bint trailing_blank) except -1:
    """Write a row's numbers, each followed by a blank (`trailing_blank`) or
    separated by blanks; returns whether it wrote none (the next token is first)."""
    cdef Py_ssize_t k
    for k in range(row.shape[0]):
        if k and not trailing_blank:
            out.put_char(32)
        out.put_double(row[k], code, precision)
        if trailing_blank:
            out.put_char(32)
    return row.shape[0] == 0


def format_table(const double[:, ::1] values, fmt=("g", 17), bint trailing_blank=True):
    """Text lines of a table's rows, each number followed by a blank (``"0.5 -1 \\n"``),
    as LIBLINEAR's save_model writes its weights, or separated by blanks.

    Parameters
    ----------
    values : (n_rows, m) float64
        The table.
    fmt : (code, precision)
        PyOS_double_to_string's format: ("r", 0) shortest round trip, ("g", p) C's %.pg.
    trailing_blank : bool, default=True
        End every number with a blank; otherwise numbers are separated by single
        blanks (``"0.5 -1\\n"``, a column of predictions as ``"1\\n"``).

    Returns
    -------
    bytes

    Raises
    ------
    ValueError
        A format that is not a (code, precision) pair.
    """
    cdef Py_ssize_t i
    cdef char code
    cdef int precision
    # (a first size: the buffer grows as it needs)
    cdef _Buffer out = _Buffer(8 * values.shape[0] * values.shape[1] + values.shape[0] + 64)
    code, precision = _format_pair(fmt, "fmt")
    for i in range(values.shape[0]):
        _put_numbers(out, values[i], code, precision, trailing_blank)
        out.put_char(10)
    return out.value()


def format_lines(const double[:, ::1] leading, const int64_t[::1] indptr,
                 const int64_t[::1] indices, const double[::1] data, *,
                 int64_t index_offset=1, lead_format=("g", 17), value_format=("r", 0),
                 const int64_t[::1] qid=None, bint trailing_blank=False):
    """Text lines ``lead ... [qid:q] idx:val ...`` for the rows of a CSR matrix.

    Parameters
    ----------
    leading : (n_rows, m) float64
        Numbers written first on each line (labels, or a model's coefficients).
    indptr, indices, data : CSR arrays (int64 indptr and indices)
        Indices are written plus `index_offset`.
    lead_format, value_format : (code, precision)
        PyOS_double_to_string's format: ("r", 0) shortest round trip, ("g", p) C's %.pg.
    qid : int64 array or None
        Written as ``qid:q`` after the leading numbers.
    trailing_blank : bool
        End every token with a blank, as LIBSVM's model writer does ("1 2:0.5 \\n");
        otherwise tokens are separated by single blanks.

    Returns
    -------
    bytes

    Raises
    ------
    ValueError
        A format that is not a (code, precision) pair; indptr without one entry more
        than leading has rows, or pointers that decrease or pass indices or data
        (`libsmo._core.arrays.checked_indptr`; the loop does not check); qid without
        one entry per row.
    """
    cdef Py_ssize_t n_rows = leading.shape[0], i, j
    cdef char lead_code, value_code
    cdef int lead_precision, value_precision
    cdef _Buffer out = _Buffer(16 * (n_rows + indices.shape[0]) + 64)
    cdef bint first
    lead_code, lead_precision = _format_pair(lead_format, "lead_format")
    value_code, value_precision = _format_pair(value_format, "value_format")
    checked_indptr(indptr, n_rows, min(indices.shape[0], data.shape[0]))
    if qid is not None and qid.shape[0] != n_rows:
        raise ValueError("qid must have one entry per row")
    for i in range(n_rows):
        first = _put_numbers(out, leading[i], lead_code, lead_precision, trailing_blank)
        if qid is not None:
            if not first and not trailing_blank:
                out.put_char(32)
            out.put(b"qid:", 4)
            out.put_int(qid[i])
            if trailing_blank:
                out.put_char(32)
            first = False
        for j in range(indptr[i], indptr[i + 1]):
            if not first and not trailing_blank:
                out.put_char(32)
            out.put_int(indices[j] + index_offset)
            out.put_char(58)
            out.put_double(data[j], value_code, value_precision)
            if trailing_blank:
                out.put_char(32)
            first = False
        out.put_char(10)
    return out.value()
