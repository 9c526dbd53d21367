# cython: language_level=3
"""LIBLINEAR 2.50's one-class SVM (-s 21): the two-level coordinate descent of Chou, Lin,
Yu, Lin and Hsieh (SDM 2020, the supplement's Algorithm 7; LIBLINEAR's
`solve_oneclass_svm`) on the scaled dual

    min_a  1/2 a'Qa   subject to 0 <= a_i <= U_i,  e'a = e'a_0,   Q_ij = x_i'x_j,

with w = sum a_i x_i kept, and the offset rho from the optimality conditions; the
model's decision value is w'x - rho. LIBLINEAR's problem has U_i = 1 and starts from
`liblinear_start` (e'a = nu l); LIBSVM's one-class SVM with the linear kernel is the
same problem with U_i the sample weights, and its stopping rule the same, so the
method also starts LIBSVM's linear one-class problems (`libsmo.training._execution`).

Each outer iteration computes every active row's gradient G_i = w'x_i, stops where
max{-G_i : a_i < 1} - min{-G_i : a_i > 0} < tol over all rows, sets aside the rows at a
bound whose -G_i lies beyond those extremes, and then updates up to a tenth of the
active rows in pairs: the most violating rows of each side, the i with the largest -G_i
among a_i < 1 against the j with the smallest among a_i > 0, the next against the next,
each pair by the exact minimiser along a_i - d, a_j + d within the box. The pairs are
chosen by LIBLINEAR's total order (-G_i, then the row's index), so that the steps are
LIBLINEAR's whatever the selection's pivots; the sums are LIBLINEAR's, term by term
and in its order (x_i'x_j over the common columns in the order of the columns), so
that w, rho and the iterations are liblinear-train's to the bit where the rows' columns
are in increasing order (the reader's, and a CSR matrix with sorted indices).
"""
import numpy as np
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cython.parallel cimport prange
from libc.math cimport INFINITY
from libc.stdlib cimport qsort
from libsmo._core.linear_epochs cimport (INTERRUPTED, MAX_ITER, OPTIMAL, RUNNING,
                                         STOPPED, poll_stop, raise_pending_signal,
                                         stop_flag_pointer)
from libsmo._core.linear_solution import LinearSolution
from libsmo._core.linear_rows cimport (LinearRows, RowData, add_span, at_least, at_most,
                                       dot_span, row_end, row_start, squares_from)

STATUS_NAMES = {OPTIMAL: "optimal", MAX_ITER: "max_iter", STOPPED: "stopped"}

# LIBLINEAR's: a pair moves only where its violation exceeds this, and a pair's
# curvature ||x_i - x_j||^2 is at least this
cdef double PAIR_MIN = 1.0e-12


cdef struct Candidate:
    double value        # -G_i
    int index           # the row


cdef int _compare(const void* a, const void* b) noexcept nogil:
    """LIBLINEAR's compare_feature_node: by value, then by row (a total order)."""
    cdef const Candidate* x = <const Candidate*>a
    cdef const Candidate* y = <const Candidate*>b
    if x.value < y.value:
        return -1
    if x.value == y.value:
        if x.index < y.index:
            return -1
        if x.index == y.index:
            return 0
    return 1


cdef void _select(Candidate* nodes, Py_ssize_t low, Py_ssize_t high,
                  Py_ssize_t k) noexcept nogil:
    """Rearrange nodes[low..high] so that nodes[k] is the one the total order puts
    there, the smaller ones before it and the larger after (LIBLINEAR's
    quick_select_min_k, its pivot the middle node instead of a rand() draw: the order
    is total, so the nodes on each side are the same either way)."""
    cdef Py_ssize_t i, store, middle
    cdef Candidate pivot
    while low < high and k <= high:
        middle = low + (high - low) // 2
        nodes[middle], nodes[high] = nodes[high], nodes[middle]
        pivot = nodes[high]
        store = low
        for i in range(low, high):
            if _compare(&nodes[i], &pivot) < 0:
                nodes[store], nodes[i] = nodes[i], nodes[store]
                store += 1
        nodes[high], nodes[store] = nodes[store], nodes[high]
        if store == k:
            return
        if k < store:
            high = store - 1
        else:
            low = store + 1


cdef double _pair_product(const RowData* r, Py_ssize_t i, Py_ssize_t j,
                          double* scratch) noexcept nogil:
    """x_i'x_j, through a zeroed scratch vector: x_i put there, x_j's terms summed in
    its order (the terms outside x_i add zeros, which change no sum), x_i's entries set
    back to 0 (not taken away: a CSR row that repeats a column would leave rounding
    behind). With the columns in increasing order: LIBLINEAR's sparse_dot, the same
    bits."""
    cdef double s
    cdef long long k, start = row_start(r, i), end = row_end(r, i)
    add_span(r, start, end, 1.0, scratch)
    s = dot_span(r, row_start(r, j), row_end(r, j), scratch, 0.0)
    if r.csr_kind == 16:
        for k in range(start, end):
            scratch[r.columns16[k]] = 0.0
    elif r.csr_kind == 32:
        for k in range(start, end):
            scratch[r.columns[k]] = 0.0
    else:
        for k in range(end - start):
            scratch[k] = 0.0
    return s


cdef inline void _clip(double total, double* a, double upper,
                       double* b) noexcept nogil:
    """One of LIBLINEAR's clips of a pair whose sum is `total`: a above its bound
    `upper` where the sum exceeds that bound, else b below 0, put on that bound, the
    other taking the rest (LIBLINEAR's with upper = 1)."""
    if total > upper:
        if a[0] > upper:
            a[0] = upper
            b[0] = total - upper
    elif b[0] < 0:
        b[0] = 0
        a[0] = total


cdef int _outer_iterations(const RowData* r, const int* members, const double* U,
                           Py_ssize_t l, double tol, long max_iter,
                           const double* QD, double* alpha, double* w, double* G,
                           int* index, Candidate* up, Candidate* low, double* scratch,
                           long* iterations, double* spread, int threads,
                           const signed char* flag) noexcept nogil:
    """LIBLINEAR's outer loop over the problem's l variables (variable i is the row
    members[i], its bound U[i]): the iterations and the status they ended with. With
    threads > 1 the gradients of the active rows are computed on that many threads
    (liblinear-multicore's -m), each row's by one thread, so the same bits."""
    cdef Py_ssize_t s, i, j, m, active = l, n_up, n_low, inner
    cdef double neg_max, neg_min, Gi, Gj, quad, delta, old, total
    cdef long it = 0
    cdef int status = RUNNING
    while it < max_iter:
        neg_max = -INFINITY
        neg_min = INFINITY
        if threads > 1:
            for s in prange(active, num_threads=threads, schedule="static"):
                i = index[s]
                m = members[i]
                G[i] = dot_span(r, row_start(r, m), row_end(r, m), w, 0.0)
        for s in range(active):
            i = index[s]
            if threads == 1:
                m = members[i]
                G[i] = dot_span(r, row_start(r, m), row_end(r, m), w, 0.0)
            if alpha[i] < U[i]:
                neg_max = at_least(neg_max, -G[i])
            if alpha[i] > 0:
                neg_min = at_most(neg_min, -G[i])
        spread[0] = neg_max - neg_min
        if neg_max - neg_min < tol:
            if active == l:
                status = OPTIMAL
                break
            active = l      # the shrunk rows back, without counting an iteration
            continue
        s = 0
        while s < active:
            i = index[s]
            if (alpha[i] == U[i] and -G[i] > neg_max) or (alpha[i] == 0 and -G[i] < neg_min):
                active -= 1
                index[s], index[active] = index[active], index[s]
            else:
                s += 1
        inner = active // 10 if active >= 10 else 1
        n_up = 0
        n_low = 0
        for s in range(active):
            i = index[s]
            if alpha[i] < U[i]:
                up[n_up].value = -G[i]
                up[n_up].index = <int>i
                n_up += 1
            if alpha[i] > 0:
                low[n_low].value = -G[i]
                low[n_low].index = <int>i
                n_low += 1
        inner = min(inner, min(n_up, n_low))
        # the `inner` largest of up, ascending, at its end; the smallest of low, at its
        # start
        _select(up, 0, n_up - 1, n_up - inner)
        qsort(&up[n_up - inner], inner, sizeof(Candidate), _compare)
        _select(low, 0, n_low - 1, inner)
        qsort(low, inner, sizeof(Candidate), _compare)
        for s in range(inner):
            i = up[n_up - s - 1].index
            j = low[s].index
            if (alpha[i] == 0 and alpha[j] == 0) or (alpha[i] == U[i] and alpha[j] == U[j]):
                continue
            Gi = dot_span(r, row_start(r, members[i]), row_end(r, members[i]), w, 0.0)
            Gj = dot_span(r, row_start(r, members[j]), row_end(r, members[j]), w, 0.0)
            if not ((alpha[i] < U[i] and alpha[j] > 0 and -Gj + PAIR_MIN < -Gi)
                    or (alpha[i] > 0 and alpha[j] < U[j] and -Gi + PAIR_MIN < -Gj)):
                continue
            quad = QD[i] + QD[j] - 2 * _pair_product(r, members[i], members[j], scratch)
            if quad <= 0:
                quad = PAIR_MIN
            delta = (Gi - Gj) / quad
            old = alpha[i]
            total = alpha[i] + alpha[j]
            alpha[i] = alpha[i] - delta
            alpha[j] = alpha[j] + delta
            # back into the box along a_i + a_j = total (LIBLINEAR's clips, in its order)
            _clip(total, &alpha[i], U[i], &alpha[j])
            _clip(total, &alpha[j], U[j], &alpha[i])
            delta = alpha[i] - old
            add_span(r, row_start(r, members[i]), row_end(r, members[i]), delta, w)
            add_span(r, row_start(r, members[j]), row_end(r, members[j]), -delta, w)
        it += 1
        status = poll_stop(flag)
        if status != RUNNING:
            break
    iterations[0] = it
    return status if status != RUNNING else MAX_ITER


def liblinear_start(double nu, Py_ssize_t n_rows):
    """LIBLINEAR's (and LIBSVM's) start of the one-class problem on n rows of bound 1:
    the first int(nu n) at 1, the next at the rest of nu n, the others at 0.

    Parameters
    ----------
    nu : float
        In (0, 1].
    n_rows : int
        At least 1.

    Returns
    -------
    ndarray of shape (n_rows,)

    Raises
    ------
    ValueError
        nu outside (0, 1], or no rows.

    Examples
    --------
    >>> from libsmo._core.linear_oneclass import liblinear_start
    >>> liblinear_start(0.3, 5).tolist()
    [1.0, 0.5, 0.0, 0.0, 0.0]
    """
    if not (0 < nu <= 1) or n_rows < 1:
        raise ValueError(f"nu must be in (0, 1] and n_rows >= 1; got {nu!r}, {n_rows!r}")
    start = np.zeros(n_rows)
    cdef Py_ssize_t at_bound = <Py_ssize_t>(nu * n_rows)     # C's (int)(nu*l)
    start[:at_bound] = 1
    if at_bound < n_rows:
        start[at_bound] = nu * n_rows - at_bound
    return start


def one_class_dual(LinearRows rows not None, start, *, order=None, bounds=None,
                   double tol=0.01, long max_iter=1000, int n_threads=1,
                   signed char[::1] stop_flag=None):
    """Minimise the one-class SVM's dual from `start` by LIBLINEAR's two-level
    coordinate descent (its -s 21).

    Parameters
    ----------
    rows : LinearRows
        The rows, without a bias feature (the problem has none).
    start : array of shape (l,)
        A feasible start: 0 <= start <= bounds; its sum is kept (LIBLINEAR's:
        `liblinear_start`).
    order : array of int of shape (l,), optional
        The rows of the l variables (default: every row, in order).
    bounds : array of shape (l,), optional
        U_i, finite and > 0 (default: 1, LIBLINEAR's).
    tol : float
        The stop where max{-G_i : a_i < U_i} - min{-G_i : a_i > 0} over every variable
        is below it (LIBLINEAR's eps, whose -s 21 default is 0.01; LIBSVM's stopping
        rule, the same measure).
    max_iter : int
        Outer iterations at most (LIBLINEAR's 1000).
    n_threads : int
        Threads of each iteration's gradients over the active rows (liblinear-multicore's
        -m): the same bits at every count.
    stop_flag : int8 array of shape (1,), optional
        Another thread sets it to 1 to stop this run.

    Returns
    -------
    solution : LinearSolution
        w; `dual` the a_i, one a variable; n_iter the outer iterations; objective
        1/2 w'w (LIBLINEAR's "Objective value"); status "optimal", "max_iter" or
        "stopped"; violation the last iteration's max - min of -G.
    rho : float
        The offset: the mean of w'x_i over the free variables (0 < a_i < U_i), else the
        midpoint of the bounds the variables at 0 and at U_i set (infinite where every
        a_i is at U_i: LIBLINEAR's "rho inf" of nu = 1).

    Raises
    ------
    ValueError
        A start outside the bounds or not finite, bounds not finite and > 0, arrays of
        other lengths, rows outside `rows`, tol not > 0, max_iter < 0, n_threads < 1,
        rows with a bias feature, or no variables.
    KeyboardInterrupt
        Ctrl-C.

    Examples
    --------
    >>> import numpy as np
    >>> from libsmo._core.linear_rows import LinearRows
    >>> from libsmo._core.linear_oneclass import liblinear_start, one_class_dual
    >>> rows = LinearRows(np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [0.0, 2.0]]))
    >>> solution, rho = one_class_dual(rows, liblinear_start(0.5, 4))
    >>> solution.status, solution.w.round(6).tolist(), round(rho, 6)
    ('optimal', [1.0, 1.0], 1.5)
    """
    cdef Py_ssize_t n = rows.n_rows, nw = rows.n_weights, i, l
    if not tol > 0 or max_iter < 0 or n_threads < 1:
        raise ValueError(f"tol must be > 0, max_iter >= 0 and n_threads >= 1; got "
                         f"{tol!r}, {max_iter!r}, {n_threads!r}")
    if rows.bias != 0:
        raise ValueError("the one-class SVM's rows have no bias feature")
    members_in = (np.arange(n, dtype=np.int32) if order is None
                  else np.ascontiguousarray(order, dtype=np.int64))
    l = members_in.shape[0]
    if l == 0:
        raise ValueError("the training data has no rows")
    if members_in.min() < 0 or members_in.max() >= n:
        raise ValueError(f"order holds rows outside the {n} rows")
    members_in = members_in.astype(np.int32)
    alpha_in = np.array(start, dtype=np.float64)
    U_in = (np.ones(l) if bounds is None
            else np.ascontiguousarray(bounds, dtype=np.float64))
    if alpha_in.shape != (l,) or U_in.shape != (l,):
        raise ValueError(f"start and bounds must have one entry a variable ({l}); got "
                         f"{alpha_in.shape} and {U_in.shape}")
    if not (np.all(np.isfinite(U_in)) and np.all(U_in > 0)):
        raise ValueError("bounds must be finite and > 0")
    if not (np.all(np.isfinite(alpha_in)) and np.all(alpha_in >= 0)
            and np.all(alpha_in <= U_in)):
        raise ValueError("start must be finite and within [0, bounds]")
    cdef signed char* flag = stop_flag_pointer(stop_flag)
    cdef RowData r = rows.view()
    cdef const int[::1] members = members_in
    cdef const double[::1] U = U_in
    cdef double[::1] alpha = alpha_in
    # (nw may be 0: a file of no features, whose G are all 0)
    cdef double[::1] w = np.zeros(max(nw, 1)), scratch = np.zeros(max(nw, 1))
    cdef double[::1] QD = np.zeros(l), G = np.zeros(l)
    cdef int[::1] index = np.arange(l, dtype=np.int32)
    cdef Candidate* up = NULL
    cdef Candidate* low = NULL
    cdef long iterations = 0
    cdef int status
    cdef double spread = 0.0, objective = 0.0, value, sum_free = 0.0, lower, upper
    cdef double rho
    cdef long n_free = 0
    try:
        up = <Candidate*>PyMem_Malloc(l * sizeof(Candidate))
        low = <Candidate*>PyMem_Malloc(l * sizeof(Candidate))
        if up == NULL or low == NULL:
            raise MemoryError()
        with nogil:
            for i in range(l):
                QD[i] = squares_from(&r, members[i], 0.0)
                if alpha[i] != 0:
                    add_span(&r, row_start(&r, members[i]), row_end(&r, members[i]),
                             alpha[i], &w[0])
            status = _outer_iterations(&r, &members[0], &U[0], l, tol, max_iter, &QD[0],
                                       &alpha[0], &w[0], &G[0], &index[0], up, low,
                                       &scratch[0], &iterations, &spread, n_threads,
                                       flag)
    finally:
        PyMem_Free(up)
        PyMem_Free(low)
    if status == INTERRUPTED:
        raise_pending_signal()
    with nogil:
        for i in range(nw):
            objective += w[i] * w[i]
        lower, upper = -INFINITY, INFINITY
        for i in range(l):
            value = dot_span(&r, row_start(&r, members[i]), row_end(&r, members[i]),
                             &w[0], 0.0)
            if alpha[i] == U[i]:
                lower = at_least(lower, value)
            elif alpha[i] == 0:
                upper = at_most(upper, value)
            else:
                n_free += 1
                sum_free += value
    rho = sum_free / n_free if n_free > 0 else (upper + lower) / 2
    solution = LinearSolution(np.asarray(w)[:nw].copy(), alpha_in, iterations,
                              objective / 2, STATUS_NAMES[status], spread)
    return solution, rho
