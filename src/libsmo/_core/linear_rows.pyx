# cython: language_level=3
"""The rows of a linear model's training problem, read in place by its solvers
(`linear_cd`, `linear_newton`) through the inline loops of linear_rows.pxd.

LIBLINEAR stores each row as (index, value) pairs with the bias appended as one more
pair; scikit-learn's wrapper copies the caller's matrix into that form at every fit.
Here the caller's validated arrays are the rows: CSR values, column indices and index
pointers, or a C-contiguous dense array. The bias (scikit-learn's intercept_scaling) is
a constant the loops add after each row's own values, and its weight is the last entry
of w. Where every stored value of CSR rows is 1 (binary features: a9a, w8a) the loops
read the column indices alone: half the memory traffic, the same sums. Where the
features are at most 65536 (a9a, w8a, sector) the loops read the column indices from
a uint16 copy made here (`narrow_columns`): half the bytes of the caller's int32, the
same columns, so the same sums.
"""
import numpy as np
from libc.math cimport INFINITY, isfinite
from libsmo._core.checks import check_indices, checked_indptr, matrix_shape

# the most features whose column indices a uint16 holds
NARROW_COLUMNS = 1 << 16
cdef long long INT32_LIMIT = 2147483647


cdef bint _columns_within(const int* columns, long long k, long long end,
                          Py_ssize_t stored, long long n_columns,
                          unsigned short* narrow) noexcept nogil:
    """Whether every column index in [k, end) lies in [0, n_columns): the tests of a
    pass OR-ed together as signed 32-bit compares, no branch, which the compiler
    vectorises. With `narrow`, all `stored` indices are also copied there as uint16
    (those outside [k, end) are never read). False for more than 2**31 - 1 columns
    (every int32 index is below them; the caller's general check decides)."""
    cdef int outside = 0
    cdef int limit
    cdef long long j
    if n_columns > INT32_LIMIT:
        return False
    limit = <int>n_columns
    if narrow != NULL:
        for j in range(stored):
            narrow[j] = <unsigned short>columns[j]
    for j in range(k, end):
        outside |= (columns[j] < 0) | (columns[j] >= limit)
    return outside == 0


cdef class LinearRows:
    """The rows of X as the linear solvers read them, in place.

    Parameters
    ----------
    X : ndarray of shape (n, d), C-contiguous, or scipy.sparse CSR
        Validated rows (float64 or float32 values, int32 column indices); never copied
        or written. float32 values are read as they are, each converted exactly to a
        double where it is used: the sums of the float64 copy scikit-learn would make.
    bias : float
        The value of LIBLINEAR's extra feature (scikit-learn's intercept_scaling), > 0;
        0 for none.
    ordered : bool, default=True
        Dense rows' sums x'w add their terms in the row's order, scikit-learn's
        arithmetic; False: in four interleaved sums, faster on long rows, other bits
        (for a caller whose answer does not depend on them). CSR rows always sum in
        order.

    Attributes
    ----------
    n_rows, n_features : int
    n_weights : int
        Entries of w: n_features, one more with a bias.
    sparse : bool
    unit_values : bool
        CSR rows whose every stored value is 1.
    single : bool
        The values are float32.
    narrow_columns : bool
        CSR rows of at most 65536 features, whose column indices the loops read from
        a uint16 copy.
    ordered : bool
        Whether dense rows' sums keep the row's order (the parameter).

    Raises
    ------
    ValueError
        X is not 2-D, CSR arrays that do not describe its rows, or a negative bias.
    TypeError
        Values that are not float64 or float32, or dense X that is not C-contiguous.

    Examples
    --------
    >>> import numpy as np
    >>> from libsmo._core.linear_rows import LinearRows
    >>> rows = LinearRows(np.eye(3), bias=1.0)
    >>> rows.n_rows, rows.n_weights
    (3, 4)
    """

    def __init__(self, X, double bias=0.0, bint ordered=True):
        self.n_rows, self.n_features = matrix_shape(X)
        self.ordered = ordered
        if not bias >= 0:
            raise ValueError(f"bias must be >= 0 (0: none), got {bias!r}")
        self.bias = bias
        self.source = X
        self.sparse = hasattr(X, "indptr")
        values = X.data if self.sparse else np.asarray(X)
        self.single = values.dtype == np.float32
        if values.dtype not in (np.float64, np.float32):
            raise TypeError(f"the rows' values must be float64 or float32, got {values.dtype}")
        if self.sparse:
            indptr = self._checked_rows(X, len(values))
            if 0 < self.n_features <= NARROW_COLUMNS and len(X.indices) > 0:
                # every column read is checked to be < n_features: uint16 holds it
                self.narrow_columns = True
            if self.single:
                self.data32 = values
            else:
                self.data = values
            stored = values[indptr[0]:indptr[self.n_rows]]
            # (the first value settles it for most data that are not binary)
            self.unit_values = bool(stored.size == 0 or
                                    (stored[0] == 1.0 and np.all(stored == 1.0)))
        else:
            if not values.flags.c_contiguous:
                raise TypeError(f"dense rows must be a C-contiguous array, got a "
                                f"{values.dtype} array that is not")
            if self.single:
                self.dense32 = values
            else:
                self.dense = values
            self.unit_values = False

    def _checked_rows(self, X, Py_ssize_t n_values):
        """X's index pointers as int64, once they and the column indices of its rows
        are known to be within bounds (`checked_indptr`'s checks), and for narrow
        columns their uint16 copy. The pointers rise, so the rows' values are the one
        span [indptr[0], indptr[n_rows]): its column indices are checked in one pass
        (copied in the same pass where they are narrow); anything else, or a failure,
        goes through `checked_indptr` with the indices, which raises its message."""
        cdef Py_ssize_t stored = len(X.indices)
        indptr = checked_indptr(X.indptr, self.n_rows, min(n_values, stored))
        cdef const long long[::1] ptr = indptr
        cdef const int[::1] columns
        cdef unsigned short[::1] narrow
        cdef bint within = False
        indices = X.indices
        if (type(indices) is np.ndarray and indices.dtype == np.int32
                and indices.flags.c_contiguous):
            columns = indices
            if 0 < self.n_features <= NARROW_COLUMNS and stored > 0:
                copy16 = np.empty(stored, dtype=np.uint16)
                narrow = copy16
                with nogil:
                    within = _columns_within(&columns[0], ptr[0], ptr[self.n_rows],
                                             stored, self.n_features, &narrow[0])
                self.indices16 = copy16
            else:
                with nogil:
                    within = stored == 0 or _columns_within(
                        &columns[0], ptr[0], ptr[self.n_rows], stored, self.n_features,
                        NULL)
        if not within:
            indptr = checked_indptr(X.indptr, self.n_rows, n_values, indices,
                                    self.n_features)
        self.indices, self.indptr = indices, indptr
        return indptr

    @property
    def n_weights(self):
        """Entries of w: the features, and one more for the bias."""
        return self.n_features + (self.bias > 0)

    @property
    def n_values(self):
        """The values the row loops read: the stored ones (CSR), or every entry."""
        return int(self.indptr[self.n_rows]) if self.sparse else self.n_rows * self.n_features

    def __reduce__(self):
        # another process reads its own copy of the rows (threads share them)
        return (LinearRows, (self.source, self.bias, self.ordered))

    cdef RowData view(self):
        cdef RowData r
        r.d = self.n_features
        r.bias = self.bias
        r.unit = self.unit_values
        r.values = NULL
        r.values32 = NULL
        r.columns = NULL
        r.columns16 = NULL
        r.starts = NULL
        r.csr_kind = 0
        r.csr_values = NULL
        r.csr_values32 = NULL
        r.ordered = self.ordered
        # (without stored values every row is empty and the pointers are never read)
        if self.sparse:
            r.starts = &self.indptr[0]
            if self.indices.shape[0] > 0:
                r.columns = &self.indices[0]
                if self.narrow_columns:
                    r.columns16 = &self.indices16[0]
                if self.single:
                    r.values32 = &self.data32[0]
                else:
                    r.values = &self.data[0]
            # the loops' first path: unit values (never read), float64 or float32 ones
            r.csr_kind = 16 if self.narrow_columns else 32
            if not self.unit_values:
                r.csr_values = r.values
                r.csr_values32 = r.values32
        elif self.n_rows > 0 and self.n_features > 0:
            if self.single:
                r.values32 = &self.dense32[0, 0]
            else:
                r.values = &self.dense[0, 0]
        return r


cdef tuple problem_inputs(LinearRows rows, order, targets, bounds, start,
                          bint signs=False):
    """The problem's rows (int32, each inside X) and, per problem row, its target (with
    `signs`: +1 where targets > 0, else -1), its bound (finite and > 0) and its start
    (a dual's per-row start; NaN and infinities as 0; None: zeros), gathered in one
    typed pass: (order, C, y, first). A row listed twice is two examples of the
    problem. The solvers' input checks (ValueError), shared: on a small problem their
    numpy equivalents cost as much as the solve."""
    cdef Py_ssize_t n = rows.n_rows
    order = np.ascontiguousarray(order, dtype=np.int32)
    check_indices(order, n, "row", error=ValueError)
    targets = np.ascontiguousarray(targets, dtype=np.float64)
    bounds = np.ascontiguousarray(bounds, dtype=np.float64)
    if targets.shape != (n,) or bounds.shape != (n,):
        raise ValueError(f"targets and bounds must have shape ({n},), got "
                         f"{targets.shape} and {bounds.shape}")
    cdef bint started = start is not None
    if started:
        start = np.ascontiguousarray(start, dtype=np.float64)
        if start.shape != (n,):
            raise ValueError(f"start must have shape ({n},), got {start.shape}")
    cdef const int[::1] m = order
    cdef Py_ssize_t t, i, l = m.shape[0]
    C, y = np.empty(l), np.empty(l)
    first = np.empty(l) if started else np.zeros(l)
    cdef const double[::1] tg = targets, b = bounds
    cdef const double[::1] a = start if started else bounds
    cdef double[::1] C_out = C, y_out = y, first_out = first
    cdef double c, x
    cdef bint valid = True
    with nogil:
        for t in range(l):
            i = m[t]
            c = b[i]
            # (c > 0 is false for NaN; a positive bound is finite when below inf)
            valid = valid & (c > 0) & (c < INFINITY)
            C_out[t] = c
            x = tg[i]
            y_out[t] = (1.0 if x > 0 else -1.0) if signs else x
            if started:
                x = a[i]
                first_out[t] = x if isfinite(x) else 0.0
    if not valid:
        raise ValueError("bounds of the rows in the problem must be finite and > 0")
    return order, C, y, first
