# cython: language_level=3
"""The LIBSVM / svmlight text format read at C speed (`libsmo.io._writer` writes it).

`Parser` reads lines ``lead_1 ... lead_m [qid:q] idx:val idx:val ...`` from chunks of
bytes: m = 1 for a data file (the label), m = k - 1 for the SV section of a model file
(the coefficients). Numbers are parsed from the bytes without Python objects: a decimal
with at most 19 significant digits and a power of ten within 1e+-22 is converted
exactly (Clinger's fast path, correctly rounded); anything else goes to Python's own
correctly rounded, locale-independent `PyOS_string_to_double`. Every malformed line
raises ValueError naming the source, the line number and the text.
"""
import numpy as np
cimport numpy as cnp
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.ref cimport PyObject
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memchr, strlen

cnp.import_array()

cdef extern from "Python.h":
    double PyOS_string_to_double(const char *s, char **endptr,
                                 PyObject *overflow_exception) except? -1.0

cdef double[23] POW10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                         1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
                         1e22]
cdef uint64_t MAX_EXACT = 1 << 53
cdef int64_t MAX_INDEX = 2147483647          # LIBSVM's indices are C ints
cdef double INF = float("inf")
cdef double NAN = float("nan")

cdef enum:
    NUM_OK = 0      # parse_number results
    NUM_BAD = -1


cdef inline bint is_space(char c) noexcept nogil:
    """ASCII whitespace as bytes.split() sees it: space, \\t, \\n, \\v, \\f, \\r."""
    return c == 32 or (c >= 9 and c <= 13)


cdef inline bint is_digit(char c) noexcept nogil:
    return c >= 48 and c <= 57


cdef inline char lower(char c) noexcept nogil:
    return c + 32 if c >= 65 and c <= 90 else c


cdef bint same_word(const char *s, const char *e, const char *word) noexcept nogil:
    """Whether s..e equals the lower-case `word`, ignoring case."""
    cdef Py_ssize_t n = strlen(word), i
    if e - s != n:
        return False
    for i in range(n):
        if lower(s[i]) != word[i]:
            return False
    return True


cdef inline int scan_number(const char *s, const char *stop, const char **end,
                            double *out) except -2:
    """Read the number that starts at s (not beyond stop): Python's float() grammar
    without underscores, [+-] digits [. digits] [e [+-] digits], or inf, infinity,
    nan. *end is set where the reading stopped; the caller checks that a delimiter
    follows.

    Returns NUM_OK with the value in *out, or NUM_BAD.
    """
    cdef const char *p = s
    cdef const char *w
    cdef bint negative = False, any_digit = False, inexact = False
    cdef uint64_t mantissa = 0
    cdef int n_digits = 0, d
    cdef long exp10 = 0, exp_value = 0
    cdef bint exp_negative = False
    cdef char *pend = NULL
    cdef double value
    if p < stop and (p[0] == 43 or p[0] == 45):  # + -
        negative = p[0] == 45
        p += 1
    if p >= stop:
        return NUM_BAD
    if not is_digit(p[0]) and p[0] != 46:
        w = p
        while w < stop and ((w[0] >= 65 and w[0] <= 90) or (w[0] >= 97 and w[0] <= 122)):
            w += 1
        end[0] = w
        if same_word(p, w, b"inf") or same_word(p, w, b"infinity"):
            out[0] = -INF if negative else INF
            return NUM_OK
        if same_word(p, w, b"nan"):
            out[0] = -NAN if negative else NAN  # as float("-nan")
            return NUM_OK
        return NUM_BAD
    while p < stop and is_digit(p[0]):
        any_digit = True
        d = p[0] - 48
        if mantissa == 0 and d == 0:
            pass
        elif n_digits < 19:
            mantissa = mantissa * 10 + d
            n_digits += 1
        else:
            inexact = True
            exp10 += 1
        p += 1
    if p < stop and p[0] == 46:  # .
        p += 1
        while p < stop and is_digit(p[0]):
            any_digit = True
            d = p[0] - 48
            if mantissa == 0 and d == 0:
                exp10 -= 1
            elif n_digits < 19:
                mantissa = mantissa * 10 + d
                n_digits += 1
                exp10 -= 1
            else:
                inexact = True
            p += 1
    end[0] = p
    if not any_digit:
        return NUM_BAD
    if p < stop and (p[0] == 101 or p[0] == 69):  # e E
        p += 1
        if p < stop and (p[0] == 43 or p[0] == 45):
            exp_negative = p[0] == 45
            p += 1
        if p >= stop or not is_digit(p[0]):
            end[0] = p
            return NUM_BAD
        while p < stop and is_digit(p[0]):
            if exp_value < 100000000:
                exp_value = exp_value * 10 + (p[0] - 48)
            p += 1
        exp10 += -exp_value if exp_negative else exp_value
        end[0] = p
    if mantissa == 0 and not inexact:
        out[0] = -0.0 if negative else 0.0
        return NUM_OK
    if not inexact and mantissa <= MAX_EXACT and -22 <= exp10 <= 22:
        value = <double>mantissa
        if exp10 < 0:
            value = value / POW10[-exp10]
        else:
            value = value * POW10[exp10]
        out[0] = -value if negative else value
        return NUM_OK
    # Python's correctly rounded reader, on the same characters
    value = PyOS_string_to_double(s, &pend, NULL)
    if pend != p:
        return NUM_BAD
    out[0] = value
    return NUM_OK


cdef int parse_number(const char *s, const char *e, double *out) except -2:
    """The number spelled by exactly s..e: NUM_OK (value in *out) or NUM_BAD."""
    cdef const char *end = s
    if scan_number(s, e, &end, out) != NUM_OK or end != e:
        return NUM_BAD
    return NUM_OK


cdef int parse_integer(const char *s, const char *e, int64_t *out) noexcept nogil:
    """[+-] digits exactly spanning s..e. Returns 0, -1 (not an integer) or -2 (beyond
    +-(2^63 - 1))."""
    cdef const char *p = s
    cdef bint negative = False
    cdef uint64_t value = 0, limit = 9223372036854775807ULL
    cdef int d
    if p < e and (p[0] == 43 or p[0] == 45):
        negative = p[0] == 45
        p += 1
    if p >= e:
        return -1
    while p < e:
        if not is_digit(p[0]):
            return -1
        d = p[0] - 48
        if value > (limit - d) // 10:
            return -2
        value = value * 10 + d
        p += 1
    out[0] = -<int64_t>value if negative else <int64_t>value
    return 0


def read_numbers(bytes text, Py_ssize_t first, Py_ssize_t stop, double[::1] out,
                 Py_ssize_t at):
    """Read the blank-separated numbers of ``text[first:stop]`` into ``out[at:]``, at C
    speed (LIBLINEAR's model weights).

    Parameters
    ----------
    text : bytes
    first, stop : int
        The span to read; 0 <= first <= stop <= len(text).
    out : float64 array
        Where the numbers go.
    at : int
        The first place of `out` written.

    Returns
    -------
    int
        The numbers read; -1 where a token is not a finite decimal number
        ([+-] digits [. digits] [e [+-] digits]) or `out` has no room for them all
        (the caller then reads the span token by token and names the line at fault).
    """
    cdef const char *base = PyBytes_AS_STRING(text)
    cdef const char *p
    cdef const char *end
    cdef const char *limit
    cdef double value
    cdef Py_ssize_t count = 0, room
    if not 0 <= first <= stop <= PyBytes_GET_SIZE(text):
        raise ValueError("the span must lie within the text")
    if not 0 <= at <= out.shape[0]:
        raise ValueError("at must lie within out")
    p = base + first
    limit = base + stop
    room = out.shape[0] - at
    while True:
        while p < limit and is_space(p[0]):
            p += 1
        if p >= limit:
            return count
        if count == room or not (is_digit(p[0]) or p[0] == 43 or p[0] == 45
                                 or p[0] == 46):   # (no inf or nan)
            return -1
        end = p
        if (scan_number(p, limit, &end, &value) != NUM_OK
                or (end < limit and not is_space(end[0]))
                or not (-INF < value < INF)):
            return -1
        out[at + count] = value
        count += 1
        p = end


cdef class Parser:
    """Accumulates the rows of LIBSVM-format text fed to it in chunks.

    Parameters
    ----------
    name : str
        The source named in error messages.
    n_leading : int
        Numbers before the features (1: the label of a data line; k-1: the
        coefficients of a model's SV line).
    min_index : int
        Smallest index accepted (0, or 1 for one-based data).
    comments : bool
        Whether '#' starts a comment that runs to the end of the line.
    skip_blank : bool
        Whether blank (or comment-only) lines are skipped; otherwise they are errors.
    allow_qid : bool
        Whether a ``qid:n`` token may follow the leading numbers.
    first_line : int
        Line number of the first line fed (for a section of a larger file).
    """
    cdef object name
    cdef Py_ssize_t n_leading
    cdef int64_t min_index
    cdef bint comments, skip_blank, allow_qid
    cdef Py_ssize_t line_no
    # growing arrays: numpy objects and their typed views
    cdef object _data, _indices, _indptr, _leading, _qid, _lines
    cdef double[::1] data
    cdef int64_t[::1] indices
    cdef int64_t[::1] indptr
    cdef double[::1] leading
    cdef int64_t[::1] qid
    cdef int64_t[::1] lines
    cdef Py_ssize_t nnz, n_rows
    cdef public int64_t seen_min_index, seen_max_index
    cdef public bint any_qid

    def __cinit__(self, name, Py_ssize_t n_leading=1, int64_t min_index=0,
                  bint comments=True, bint skip_blank=True, bint allow_qid=True,
                  Py_ssize_t first_line=1):
        self.name = name
        self.n_leading = n_leading
        self.min_index = min_index
        self.comments = comments
        self.skip_blank = skip_blank
        self.allow_qid = allow_qid
        self.line_no = first_line - 1
        self.nnz = 0
        self.n_rows = 0
        self.seen_min_index = MAX_INDEX + 1
        self.seen_max_index = -1
        self.any_qid = False
        self._reserve(1024, 64)
        self.indptr[0] = 0

    cdef _reserve(self, Py_ssize_t nnz, Py_ssize_t rows):
        """Make room for nnz more entries and rows more rows."""
        cdef Py_ssize_t need
        need = self.nnz + nnz
        if self._data is None or need > self.data.shape[0]:
            need = max(need, 2 * (0 if self._data is None else self.data.shape[0]))
            self._data = self._grow(self._data, need, np.float64, self.nnz)
            self._indices = self._grow(self._indices, need, np.int64, self.nnz)
            self.data = self._data
            self.indices = self._indices
        need = self.n_rows + rows
        if self._qid is None or need > self.qid.shape[0]:
            need = max(need, 2 * (0 if self._qid is None else self.qid.shape[0]))
            self._indptr = self._grow(self._indptr, need + 1, np.int64, self.n_rows + 1)
            self._leading = self._grow(self._leading, need * self.n_leading, np.float64,
                                       self.n_rows * self.n_leading)
            self._qid = self._grow(self._qid, need, np.int64, self.n_rows)
            self._lines = self._grow(self._lines, need, np.int64, self.n_rows)
            self.indptr = self._indptr
            self.leading = self._leading
            self.qid = self._qid
            self.lines = self._lines

    @staticmethod
    def _grow(old, Py_ssize_t size, dtype, Py_ssize_t used):
        new = np.empty(max(size, 1), dtype=dtype)
        if old is not None and used:
            new[:used] = old[:used]
        return new

    def feed(self, bytes chunk, bint final=False):
        """Parse every complete line of `chunk` (all of it when `final`).

        Returns
        -------
        int
            How many bytes were consumed; the caller passes the rest again, in front
            of the next chunk.
        """
        cdef const char *buf = PyBytes_AS_STRING(chunk)
        cdef Py_ssize_t size = PyBytes_GET_SIZE(chunk)
        cdef const char *end = buf + size
        cdef const char *last
        cdef const char *p = buf
        cdef const char *nl
        if not final:
            last = buf + size
            while last > buf and (last - 1)[0] != 10:
                last -= 1
            end = last
        if end == buf:
            return 0
        self._reserve(chunk.count(b":", 0, end - buf), chunk.count(b"\n", 0, end - buf) + 1)
        while p < end:
            nl = <const char *>memchr(p, 10, end - p)
            if nl == NULL:
                nl = end
            self.line_no += 1
            self._parse_line(p, nl)
            p = nl + 1
        return end - buf

    cdef _fail(self, const char *s, const char *e, str reason):
        """Raise ValueError for the line s..e."""
        text = (<bytes>s[:min(e - s, 200)]).decode("utf-8", "backslashreplace")
        text = text.rstrip("\r")
        if e - s > 200:
            text += "..."
        raise ValueError(f"{self.name}, line {self.line_no}: {reason}: {text!r}")

    cdef int _parse_line(self, const char *s, const char *e) except -1:
        cdef const char *p = s
        cdef const char *q
        cdef const char *colon
        cdef const char *stop = e
        cdef const char *r
        cdef Py_ssize_t k, row = self.n_rows, nnz
        cdef double value
        cdef double *data
        cdef int64_t *indices
        cdef int64_t index, previous = -1, qid_value, first
        cdef bint negative
        if self.comments:
            q = <const char *>memchr(s, 35, e - s)  # '#'
            if q != NULL:
                stop = q
        while p < stop and is_space(p[0]):
            p += 1
        if p == stop:
            if self.skip_blank:
                return 0
            self._fail(s, e, "empty line")
        for k in range(self.n_leading):
            if p == stop:
                self._fail(s, e, f"expected {self.n_leading} numbers before the "
                                 f"features, found {k}")
            if scan_number(p, stop, &q, &value) != NUM_OK or (q < stop
                                                               and not is_space(q[0])):
                what = "label" if self.n_leading == 1 else "coefficient"
                self._fail(s, e, f"invalid {what} {self._token(p, stop)}")
            self.leading[row * self.n_leading + k] = value
            p = q
            while p < stop and is_space(p[0]):
                p += 1
        self.qid[row] = 0
        if self.allow_qid and stop - p >= 4 and p[0] == 113 and p[1] == 105 \
                and p[2] == 100 and p[3] == 58:  # qid:
            q = p + 4
            while q < stop and not is_space(q[0]):
                q += 1
            if parse_integer(p + 4, q, &qid_value) != 0:
                self._fail(s, e, f"invalid query id {self._token(p, stop)}")
            self.qid[row] = qid_value
            self.any_qid = True
            p = q
            while p < stop and is_space(p[0]):
                p += 1
        nnz = self.nnz
        data = &self.data[0]
        indices = &self.indices[0]
        while p < stop:
            # index: [+-] digits, then ':'
            q = p
            negative = False
            if q[0] == 43 or q[0] == 45:
                negative = q[0] == 45
                q += 1
            r = q
            index = 0
            while q < stop and is_digit(q[0]) and index <= MAX_INDEX:
                index = index * 10 + (q[0] - 48)
                q += 1
            if q == r or q >= stop or q[0] != 58 or index > MAX_INDEX:
                self.nnz = nnz
                self._bad_feature(s, e, p, stop)
            if negative:
                index = -index
            if index < self.min_index:
                self.nnz = nnz
                self._fail(s, e, f"invalid feature index {index} (indices start at "
                                 f"{self.min_index})")
            if index <= previous:
                self.nnz = nnz
                self._fail(s, e, f"feature indices must be sorted and unique: {index} "
                                 f"after {previous}")
            if scan_number(q + 1, stop, &r, &value) != NUM_OK or (r < stop
                                                                 and not is_space(r[0])):
                self.nnz = nnz
                self._fail(s, e, f"invalid feature value in {self._token(p, stop)}")
            data[nnz] = value
            indices[nnz] = index
            nnz += 1
            previous = index
            p = r
            while p < stop and is_space(p[0]):
                p += 1
        self.nnz = nnz
        if previous >= 0:
            first = self.indices[self.indptr[row]]
            if first < self.seen_min_index:
                self.seen_min_index = first
            if previous > self.seen_max_index:
                self.seen_max_index = previous
        self.lines[row] = self.line_no
        self.n_rows += 1
        self.indptr[self.n_rows] = self.nnz
        return 0

    cdef str _token(self, const char *p, const char *stop):
        """repr of the blank-delimited token that starts at p."""
        cdef const char *q = p
        while q < stop and not is_space(q[0]):
            q += 1
        text = (<bytes>p[:min(q - p, 60)]).decode("utf-8", "backslashreplace")
        return repr(text + ("..." if q - p > 60 else ""))

    cdef _bad_feature(self, const char *s, const char *e, const char *p,
                      const char *stop):
        """Raise for a feature token whose index part is wrong."""
        cdef const char *q = p
        cdef const char *colon
        cdef int64_t index
        while q < stop and not is_space(q[0]):
            q += 1
        colon = <const char *>memchr(p, 58, q - p)
        if colon == NULL:
            self._fail(s, e, f"invalid feature {self._token(p, stop)} (expected "
                             "index:value)")
        status = parse_integer(p, colon, &index)
        if status == 0 and index > MAX_INDEX or status == -2:
            self._fail(s, e, f"feature index too large in {self._token(p, stop)} "
                             f"(at most {MAX_INDEX})")
        self._fail(s, e, f"invalid feature index in {self._token(p, stop)}")

    @property
    def rows(self):
        """Rows read so far."""
        return self.n_rows

    @property
    def line_number(self):
        """Number of the last line read."""
        return self.line_no

    def result(self):
        """(data, indices, indptr, leading (n_rows, n_leading), qid, line_numbers):
        copies trimmed to size; indices as written in the file."""
        n, nnz = self.n_rows, self.nnz
        return (self._data[:nnz].copy(), self._indices[:nnz].copy(),
                self._indptr[:n + 1].copy(),
                self._leading[:n * self.n_leading].reshape(n, self.n_leading).copy(),
                self._qid[:n].copy(), self._lines[:n].copy())
