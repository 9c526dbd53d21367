# The rows of a linear model's training problem as its solvers read them (the dual
# coordinate descent of linear_cd, the primal Newton method of linear_newton): the
# caller's CSR or dense arrays in place, LIBLINEAR's bias feature appended to every row
# without storing it, and the per-row loops as inline functions (a method of another
# module's class is an indirect call, which on rows of a dozen values costs as much as
# the work).
cimport cython

cdef extern from *:
    """
    /* a row the loop will read next, asked for ahead: the random order of the
       coordinate descent makes every row a cache miss otherwise */
    #define smo_prefetch_read(p) __builtin_prefetch((const void *)(p), 0, 1)
    """
    void smo_prefetch_read(const void* p) nogil


cdef struct RowData:
    const double* values      # CSR: the stored values; dense: row i at values + i * d
    const float* values32     # the same where the caller's values are float32 (values
                              # is then NULL): read as is, each converted exactly
    const int* columns        # CSR: their columns
    const unsigned short* columns16   # CSR of at most 65536 features: the same columns
                              # as uint16 (half the bytes the row loops read); or NULL
    const long long* starts   # CSR: row i is [starts[i], starts[i + 1]); NULL: dense
    Py_ssize_t d              # features, the bias excluded (its weight is w[d])
    double bias               # the extra feature's value; 0: none
    bint unit                 # CSR whose every stored value is 1
    int csr_kind              # CSR rows: 16 or 32, the width of the column indices
                              # their loops read (`dot_span`'s first path); 0: dense
    const double* csr_values  # with csr_kind: float64 values, NULL for unit values or
                              # float32 ones
    const float* csr_values32 # with csr_kind: float32 values (not unit), else NULL
    bint ordered              # dense rows' sums add their terms in the row's order
                              # (scikit-learn's bits); else in four interleaved sums


@cython.final
cdef class LinearRows:
    cdef readonly Py_ssize_t n_rows
    cdef readonly Py_ssize_t n_features
    cdef readonly double bias
    cdef readonly bint sparse
    cdef readonly bint unit_values
    cdef readonly bint single
    cdef readonly bint narrow_columns
    cdef readonly bint ordered
    cdef const double[::1] data
    cdef const float[::1] data32
    cdef const int[::1] indices
    cdef const unsigned short[::1] indices16
    cdef const long long[::1] indptr
    cdef const double[:, ::1] dense
    cdef const float[:, ::1] dense32
    cdef readonly object source     # X as given (what a pickle carries)

    cdef RowData view(self)


cdef tuple problem_inputs(LinearRows rows, order, targets, bounds, start,
                          bint signs=*)


cdef inline long long row_start(const RowData* r, Py_ssize_t i) noexcept nogil:
    """Where row i's values begin (CSR: in data; dense: in the array's values): with
    `row_end`, the span a solver keeps per row for `dot_span` and `add_span`."""
    return r.starts[i] if r.starts != NULL else i * r.d


cdef inline long long row_end(const RowData* r, Py_ssize_t i) noexcept nogil:
    return r.starts[i + 1] if r.starts != NULL else (i + 1) * r.d


ctypedef fused column_index:
    int
    unsigned short


ctypedef fused stored_value:
    double
    float


cdef inline double dot_columns(const column_index* c, const stored_value* x, long long k,
                               long long end, const double* w, double s) noexcept nogil:
    """s + the terms w[c_k] x_k for k in [k, end) (x NULL: unit values, the terms
    w[c_k]), four a pass but still added one by one in order (a quarter of the loop's
    own counting and branching, the same sum), whether the column indices are the
    caller's int32 or their uint16 copy and the values float64 or float32 (each
    converted exactly, so the sum of scikit-learn's float64 copy)."""
    if x == NULL:
        while k + 4 <= end:
            s += w[c[k]]
            s += w[c[k + 1]]
            s += w[c[k + 2]]
            s += w[c[k + 3]]
            k += 4
        while k < end:
            s += w[c[k]]
            k += 1
    else:
        while k + 4 <= end:
            s += w[c[k]] * <double>x[k]
            s += w[c[k + 1]] * <double>x[k + 1]
            s += w[c[k + 2]] * <double>x[k + 2]
            s += w[c[k + 3]] * <double>x[k + 3]
            k += 4
        while k < end:
            s += w[c[k]] * <double>x[k]
            k += 1
    return s


cdef inline void add_columns(const column_index* c, const stored_value* x, long long k,
                             long long end, double a, double* w) noexcept nogil:
    """w[c_k] += a x_k for k in [k, end) (x NULL: unit values, w[c_k] += a), four a
    pass, for int32 column indices and their uint16 copy, float64 and float32 values
    alike."""
    if x == NULL:
        while k + 4 <= end:
            w[c[k]] += a
            w[c[k + 1]] += a
            w[c[k + 2]] += a
            w[c[k + 3]] += a
            k += 4
        while k < end:
            w[c[k]] += a
            k += 1
    else:
        while k + 4 <= end:
            w[c[k]] += a * <double>x[k]
            w[c[k + 1]] += a * <double>x[k + 1]
            w[c[k + 2]] += a * <double>x[k + 2]
            w[c[k + 3]] += a * <double>x[k + 3]
            k += 4
        while k < end:
            w[c[k]] += a * <double>x[k]
            k += 1


cdef inline double dot_span(const RowData* r, long long k, long long end, const double* w,
                            double start) noexcept nogil:
    """start + x'w for the row stored in [k, end), the terms added to start one by one
    in the row's order and the bias feature's last (scikit-learn's LIBLINEAR adds them
    so); for unit rows the sum of w at the row's columns, the same value. CSR rows
    take the short first path, which the compiler inlines into the solvers' loops (the
    whole function, with dense rows too, it calls)."""
    cdef double s
    if r.csr_kind == 16:
        if r.csr_values32 != NULL:
            s = dot_columns(r.columns16, r.csr_values32, k, end, w, start)
        else:
            s = dot_columns(r.columns16, r.csr_values, k, end, w, start)
    elif r.csr_kind == 32:
        if r.csr_values32 != NULL:
            s = dot_columns(r.columns, r.csr_values32, k, end, w, start)
        else:
            s = dot_columns(r.columns, r.csr_values, k, end, w, start)
    else:
        return dot_dense(r, k, end, w, start)
    if r.bias > 0:
        s += w[r.d] * r.bias
    return s


cdef inline double dot_dense_unordered(const stored_value* x, long long d, const double* w,
                                       double start) noexcept nogil:
    """start + x'w over d dense values in four sums of every fourth term, added
    together at the end: the four chains of additions overlap, where one chain makes
    each addition wait for the one before (a row of hundreds of values: several times
    faster). Other bits than the ordered sum, so only for callers whose answer does not
    depend on them (the linear C-SVC's start, which SMO's stopping rule ends)."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef long long f = 0
    while f + 4 <= d:
        s0 += w[f] * <double>x[f]
        s1 += w[f + 1] * <double>x[f + 1]
        s2 += w[f + 2] * <double>x[f + 2]
        s3 += w[f + 3] * <double>x[f + 3]
        f += 4
    while f < d:
        s0 += w[f] * <double>x[f]
        f += 1
    return start + ((s0 + s1) + (s2 + s3))


cdef inline double dot_dense(const RowData* r, long long k, long long end, const double* w,
                             double start) noexcept nogil:
    """`dot_span` of dense rows (float64 or float32): in the row's order, or for
    unordered rows in four interleaved sums (`dot_dense_unordered`)."""
    cdef double s = start
    cdef long long f
    if not r.ordered:
        if r.values32 != NULL:
            s = dot_dense_unordered(r.values32 + k, end - k, w, start)
        else:
            s = dot_dense_unordered(r.values + k, end - k, w, start)
    elif r.values32 != NULL:
        for f in range(end - k):
            s += w[f] * <double>r.values32[k + f]
    else:
        for f in range(end - k):
            s += w[f] * r.values[k + f]
    if r.bias > 0:
        s += w[r.d] * r.bias
    return s


cdef inline void add_span(const RowData* r, long long k, long long end, double a,
                          double* w) noexcept nogil:
    """w += a x for the row stored in [k, end) (the bias feature's weight too); CSR rows
    by the short first path, as in `dot_span`."""
    if r.csr_kind == 16:
        if r.csr_values32 != NULL:
            add_columns(r.columns16, r.csr_values32, k, end, a, w)
        else:
            add_columns(r.columns16, r.csr_values, k, end, a, w)
    elif r.csr_kind == 32:
        if r.csr_values32 != NULL:
            add_columns(r.columns, r.csr_values32, k, end, a, w)
        else:
            add_columns(r.columns, r.csr_values, k, end, a, w)
    else:
        add_dense(r, k, end, a, w)
        return
    if r.bias > 0:
        w[r.d] += a * r.bias


cdef inline void add_dense(const RowData* r, long long k, long long end, double a,
                           double* w) noexcept nogil:
    """`add_span` of dense rows (float64 or float32)."""
    cdef long long f
    if r.values32 != NULL:
        for f in range(end - k):
            w[f] += a * <double>r.values32[k + f]
    else:
        for f in range(end - k):
            w[f] += a * r.values[k + f]
    if r.bias > 0:
        w[r.d] += a * r.bias


cdef inline void prefetch_span(const RowData* r, long long k, long long end) noexcept nogil:
    """Ask for the whole row stored in [k, end) ahead of its use, one request a cache
    line: a row of tf-idf values spans many lines, and the hardware prefetcher, which
    starts after the first miss, leaves the loop waiting on the rest."""
    cdef long long j
    if r.columns16 != NULL:
        j = k
        while j < end:
            smo_prefetch_read(r.columns16 + j)
            j += 32
    elif r.starts != NULL:
        j = k
        while j < end:
            smo_prefetch_read(r.columns + j)
            j += 16
    if r.unit:
        return
    j = k
    if r.values32 != NULL:
        while j < end:
            smo_prefetch_read(r.values32 + j)
            j += 16
    else:
        while j < end:
            smo_prefetch_read(r.values + j)
            j += 8


cdef inline double dot_w(const RowData* r, Py_ssize_t i, const double* w,
                         double start=0.0) noexcept nogil:
    """start + x_i'w (`dot_span` over row i)."""
    return dot_span(r, row_start(r, i), row_end(r, i), w, start)


cdef inline void add_row(const RowData* r, Py_ssize_t i, double a, double* w) noexcept nogil:
    """w += a x_i (`add_span` over row i)."""
    add_span(r, row_start(r, i), row_end(r, i), a, w)


cdef inline double value_at(const RowData* r, long long k) noexcept nogil:
    """The stored value at position k (of data, or of the dense array), as a double."""
    return <double>r.values32[k] if r.values32 != NULL else r.values[k]


cdef inline void add_squares(const RowData* r, Py_ssize_t i, double a, double* out) noexcept nogil:
    """out += a x_i^2, entry by entry (a diagonal preconditioner's terms)."""
    cdef long long k, end = row_end(r, i)
    cdef double x
    for k in range(row_start(r, i), end):
        x = value_at(r, k)
        out[r.columns[k] if r.starts != NULL else k - i * r.d] += x * x * a
    if r.bias > 0:
        out[r.d] += r.bias * r.bias * a


cdef inline double squares_from(const RowData* r, Py_ssize_t i, double start) noexcept nogil:
    """start + the squares of x_i's values (dense rows: its non-zeros) added one by one,
    the bias's last (scikit-learn's QD)."""
    cdef double s = start, x
    cdef long long k, end = row_end(r, i)
    for k in range(row_start(r, i), end):
        x = value_at(r, k)
        if x != 0 or r.starts != NULL:
            s += x * x
    if r.bias > 0:
        s += r.bias * r.bias
    return s


cdef inline double at_most(double x, double y) noexcept nogil:
    """LIBLINEAR's min(x, y): (x < y) ? x : y (which of two equal zeros it returns
    matters to the bits of what follows)."""
    return x if x < y else y


cdef inline double at_least(double x, double y) noexcept nogil:
    """LIBLINEAR's max(x, y): (x > y) ? x : y."""
    return x if x > y else y
