# cython: language_level=3
"""Dual coordinate descent for linear SVMs with L2 regularisation (Hsieh, Chang, Lin,
Keerthi and Sundararajan, ICML 2008, Algorithm 3; Ho and Lin, JMLR 2012, Algorithm 4):
LIBLINEAR's `solve_l2r_l1l2_svc` (-s 3 hinge, -s 1 squared hinge) and
`solve_l2r_l1l2_svr` (-s 13 epsilon-insensitive, -s 12 squared), as scikit-learn's
copy runs them (per-example bounds, its random source).

Classification solves

    min_a  1/2 a'(Q + D)a - e'a   subject to 0 <= a_i <= U_i,   Q_ij = y_i y_j x_i'x_j,

hinge: U_i = C_i, D_ii = 0; squared hinge: U_i = inf, D_ii = 1 / (2 C_i); regression

    min_b  1/2 b'(K + L)b - y'b + p |b|_1   subject to -U_i <= b_i <= U_i,

with K_ij = x_i'x_j, L_ii = 0 or 1 / (2 C_i) likewise. The weights w = sum a_i y_i x_i
(regression: sum b_i x_i) are kept, so a coordinate costs one sparse dot product with w
and, when it moves, one update of w. Each epoch visits the active examples in a fresh
random order (`mt19937.h`: scikit-learn's Mersenne Twister and bounded integers, so a
seed gives scikit-learn's permutations); LIBLINEAR's shrinking drops an example whose
projected gradient lies beyond the last epoch's extremes; an epoch whose projected
gradients span at most tol (and lie within [-tol, tol], LIBLINEAR 2.50's test) stops
the run once it covered every example, else the next epoch does (regression: the
epoch's summed violation within tol times the first epoch's).

The intercept is LIBLINEAR's: an extra feature of constant value `bias` (scikit-learn's
intercept_scaling) appended to every row, regularised like the others; its weight is the
last entry of w. The rows are the caller's arrays (`LinearRows`), read in place. Each
example's state is one record (`Example`), and the loop asks for the records and rows it
will visit a few steps ahead. The arithmetic is scikit-learn's, term by term and in its
order.
"""
import numpy as np
cimport numpy as cnp
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdlib cimport free
from libc.math cimport fabs, INFINITY, isfinite
from libc.stdint cimport uint32_t
from libsmo._core.linear_epochs cimport (INTERRUPTED, MAX_ITER, OPTIMAL, RUNNING, SLOW,
                                         STOPPED, Progress, another_epoch, epoch_visits,
                                         poll_stop, progress_slow, progress_start,
                                         raise_pending_signal, shuffle_active,
                                         smo_mt19937, smo_mt_bounded, smo_mt_seed,
                                         stop_flag_pointer)
from libsmo._core.linear_solution import LinearSolution
from libsmo._core.linear_rows cimport (LinearRows, RowData, add_span, at_least, at_most,
                                       dot_span, prefetch_span, problem_inputs, row_end,
                                       row_start, smo_prefetch_read, squares_from)

cnp.import_array()

cdef extern from "stdlib.h" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

STATUS_NAMES = {OPTIMAL: "optimal", MAX_ITER: "max_iter", STOPPED: "stopped", SLOW: "slow"}

# a coordinate moves only when its projected gradient is larger (LIBLINEAR's 1e-12)
cdef double MOVE_MIN = 1.0e-12
# how far ahead of the visit the loops ask for an example's record, and for its row's
# values (the record must be there first to know where the row is)
cdef int RECORD_AHEAD = 8
cdef int ROW_AHEAD = 4


cdef struct Example:
    # one example's state, kept together: the random order of the epochs makes every
    # visit a cache miss, one cache line here instead of one per array
    double dual         # a_i (classification) or b_i (regression)
    double qd           # Q_ii + D_ii (regression: Q_ii)
    double upper        # U_i
    double diag         # D_ii (regression: lambda_i)
    long long start     # the row's values: [start, end)
    long long end
    double target       # y_i: +1 / -1, or the regression target
    double margin       # classification: 1 - shift y_i (1 without a shift); to 64
                        # bytes: with the array aligned, one record one line


cdef class _Examples:
    """One dual problem's examples: their records and visiting order (freed with the
    object, whatever ends the solver), the rows' view, and w, to which their start
    has been added."""
    cdef Example* ex
    cdef int* index
    cdef RowData r
    cdef double[::1] w
    cdef const int[::1] members
    cdef Py_ssize_t l

    def __dealloc__(self):
        free(self.ex)
        PyMem_Free(self.index)

    cdef object duals(self, Py_ssize_t n):
        """Every one of the n rows' dual value (0 for a row not in the problem)."""
        dual = np.zeros(n)
        cdef double[::1] out = dual
        cdef Py_ssize_t t
        for t in range(self.l):
            out[self.members[t]] = self.ex[t].dual
        return dual


cdef void _diagonal_into(const RowData* r, const int* members, Py_ssize_t l,
                         const double* first, double* out) noexcept nogil:
    """out[t] = first[t] + the squares of row members[t]'s values (`squares_from`: one
    by one in the row's order, the bias's last). CSR rows go four at a time, each
    row's sum still its own chain of additions: the four chains overlap, where one
    row's chain alone makes each addition wait for the one before."""
    cdef Py_ssize_t t = 0, g
    cdef long long k0, k1, k2, k3, e0, e1, e2, e3
    cdef double s0, s1, s2, s3, x
    cdef const double* v = r.values
    if r.starts != NULL and r.unit:
        _unit_diagonal_into(r, members, l, first, out)
        return
    if r.starts != NULL and r.values32 == NULL and not r.unit:
        while t + 4 <= l:
            k0, e0 = r.starts[members[t]], r.starts[members[t] + 1]
            k1, e1 = r.starts[members[t + 1]], r.starts[members[t + 1] + 1]
            k2, e2 = r.starts[members[t + 2]], r.starts[members[t + 2] + 1]
            k3, e3 = r.starts[members[t + 3]], r.starts[members[t + 3] + 1]
            s0, s1, s2, s3 = first[t], first[t + 1], first[t + 2], first[t + 3]
            while k0 < e0 and k1 < e1 and k2 < e2 and k3 < e3:
                s0 += v[k0] * v[k0]
                s1 += v[k1] * v[k1]
                s2 += v[k2] * v[k2]
                s3 += v[k3] * v[k3]
                k0 += 1
                k1 += 1
                k2 += 1
                k3 += 1
            while k0 < e0:
                s0 += v[k0] * v[k0]
                k0 += 1
            while k1 < e1:
                s1 += v[k1] * v[k1]
                k1 += 1
            while k2 < e2:
                s2 += v[k2] * v[k2]
                k2 += 1
            while k3 < e3:
                s3 += v[k3] * v[k3]
                k3 += 1
            if r.bias > 0:
                x = r.bias * r.bias
                s0 += x
                s1 += x
                s2 += x
                s3 += x
            out[t], out[t + 1], out[t + 2], out[t + 3] = s0, s1, s2, s3
            t += 4
    for g in range(t, l):
        out[g] = squares_from(r, members[g], first[g])


cdef inline double _ones_from(double s, long long count) noexcept nogil:
    """s + 1 + 1 + ... (count ones) added one by one, as `squares_from` adds a unit
    row's squares. From a zero start every partial sum is an exact integer (count is
    far below 2**53), so the sum is count itself; from another start each addition
    rounds, and they are made in turn."""
    cdef long long k
    if s == 0 and count > 0:
        return <double>count
    for k in range(count):
        s += 1.0
    return s


cdef void _unit_diagonal_into(const RowData* r, const int* members, Py_ssize_t l,
                              const double* first, double* out) noexcept nogil:
    """`_diagonal_into` for CSR rows whose stored values are all 1 (binary features:
    a9a, w8a): each square is 1, so a row's sum needs only its count of values, never
    the values themselves (which are most of what the general loop reads from
    memory); the bias's square added last as there."""
    cdef Py_ssize_t t
    cdef double s
    cdef const long long* starts = r.starts
    for t in range(l):
        s = _ones_from(first[t], starts[members[t] + 1] - starts[members[t]])
        if r.bias > 0:
            s += r.bias * r.bias
        out[t] = s


def dual_diagonal(LinearRows rows not None, order, bounds, *, bint squared_hinge=False):
    """The diagonal Q_ii + D_ii of `svc_dual`'s problem, as it computes it, for its
    `diagonal` argument: one-vs-rest problems on the same rows share it (for the hinge
    every class, D being 0; for the squared hinge the classes with the same bounds).

    Parameters
    ----------
    rows : LinearRows
    order : array of int
        The rows in the problem.
    bounds : array of shape (n_rows,)
        C_i of every row; > 0 for the rows in order.
    squared_hinge : bool

    Returns
    -------
    ndarray of shape (n_rows,)
        Q_ii + D_ii of each row in the problem (its D_ii = 1 / (2 C_i) for the squared
        hinge, 0 for the hinge); NaN for the rows not in it.

    Raises
    ------
    ValueError
        As `svc_dual`.
    """
    cdef Py_ssize_t n = rows.n_rows
    members, C, _, _ = problem_inputs(rows, order, np.ones(n), bounds, None)
    cdef const int[::1] m = members
    cdef Py_ssize_t t, l = m.shape[0]
    first = 0.5 / C if squared_hinge else np.zeros(l)
    cdef const double[::1] f = first
    squares = np.empty(max(l, 1))
    cdef double[::1] sq = squares
    cdef RowData rd = rows.view()
    diagonal = np.full(n, np.nan)
    cdef double[::1] out = diagonal
    with nogil:
        if l > 0:
            _diagonal_into(&rd, &m[0], l, &f[0], &sq[0])
        for t in range(l):
            out[m[t]] = sq[t]
    return diagonal


cdef _Examples _examples(LinearRows rows, const int[::1] members,
                         const double[::1] targets, const double[::1] C,
                         const double[::1] start, bint squared, bint regression,
                         diagonal=None, double shift=0.0):
    """The records of the problem's rows `members`, the visiting order 0..l-1, the
    start clipped into its box and added to w (zeros, the bias's weight last); their
    Q_ii + D_ii (regression: Q_ii) computed here or read from `diagonal` (by row);
    classification's margins 1 - shift y_i."""
    cdef _Examples p = _Examples.__new__(_Examples)
    cdef Py_ssize_t t, l = members.shape[0]
    p.members, p.l, p.r = members, l, rows.view()
    p.w = np.zeros(max(rows.n_weights, 1))
    if posix_memalign(<void**>&p.ex, 64, max(l, 1) * sizeof(Example)) != 0:
        p.ex = NULL
    p.index = <int*>PyMem_Malloc(max(l, 1) * sizeof(int))
    if p.ex == NULL or p.index == NULL:
        raise MemoryError()
    cdef Example* e
    cdef const RowData* r = &p.r
    cdef double* w = &p.w[0]
    cdef const double[::1] given
    qd_array = np.empty(max(l, 1))
    cdef double[::1] qd = qd_array
    if diagonal is None:
        # scikit-learn's Q_ii: D_ii and then the squares (regression: the squares)
        first_array = (np.zeros(l) if regression or not squared
                       else 0.5 / np.asarray(C))
        qd_first = first_array
        _fill_diagonal(r, members, qd_first, qd)
    else:
        given = diagonal
        for t in range(l):
            qd[t] = given[members[t]]
    with nogil:
        for t in range(l):
            e = &p.ex[t]
            p.index[t] = <int>t
            e.start = row_start(r, members[t])
            e.end = row_end(r, members[t])
            e.target = targets[t]
            e.margin = 1.0 - shift * targets[t]
            e.diag = 0.5 / C[t] if squared else 0.0
            e.upper = INFINITY if squared else C[t]
            e.dual = at_most(at_least(start[t], -e.upper if regression else 0.0), e.upper)
            e.qd = qd[t]
            if e.dual != 0:
                add_span(r, e.start, e.end, e.dual if regression else e.target * e.dual, w)
    return p


cdef void _fill_diagonal(const RowData* r, const int[::1] members, const double[::1] first,
                         double[::1] out) noexcept:
    if members.shape[0] > 0:
        with nogil:
            _diagonal_into(r, &members[0], members.shape[0], &first[0], &out[0])


cdef inline Example* _visit(Example* ex, const int* index, Py_ssize_t s,
                           Py_ssize_t active, const RowData* r) noexcept nogil:
    """The record of the s-th active example; the record RECORD_AHEAD visits on and the
    row ROW_AHEAD visits on asked for ahead of their use."""
    if s + RECORD_AHEAD < active:
        smo_prefetch_read(&ex[index[s + RECORD_AHEAD]])
    if s + ROW_AHEAD < active:
        prefetch_span(r, ex[index[s + ROW_AHEAD]].start, ex[index[s + ROW_AHEAD]].end)
    return &ex[index[s]]


cdef struct SvcRun:
    # how `_svc_epochs` ended: its status, epochs and the last epoch's extreme
    # projected gradients
    int status
    long epochs
    double pg_max
    double pg_min


cdef inline double _gradient(const Example* e, const RowData* r,
                             const double* w) noexcept nogil:
    """The classification dual's gradient at example e: y x'w - (1 - s y) + a D_ii."""
    return dot_span(r, e.start, e.end, w, 0.0) * e.target - e.margin + e.dual * e.diag


cdef inline void _step(Example* e, double G, const RowData* r, double* w) noexcept nogil:
    """The coordinate step on example e of gradient G: its a minimises the dual with
    the others fixed, clipped into [0, U], and w follows (LIBLINEAR's step)."""
    cdef double a_old = e.dual
    e.dual = at_most(at_least(e.dual - G / e.qd, 0.0), e.upper)
    add_span(r, e.start, e.end, (e.dual - a_old) * e.target, w)


cdef void _svc_epochs(Example* ex, int* index, const RowData* r, double* w,
                      Py_ssize_t l, double tol, long max_iter, long long max_visits,
                      uint32_t seed, const signed char* flag, bint stop_if_slow,
                      int revisits, SvcRun* run) noexcept nogil:
    """`svc_dual`'s epochs over its examples' records, in a function of their own: in
    the Python function's body the compiler left the row loops uninlined calls. After
    an epoch that did not meet tol, the examples of its largest and smallest projected
    gradient take `revisits` more steps each, in turn."""
    cdef Progress progress
    cdef Py_ssize_t active = l, s
    cdef long it = 0
    cdef long long visits = 0
    cdef int status = RUNNING
    cdef smo_mt19937 gen
    cdef Example* e
    cdef double G, PG, Ci
    cdef double PGmax_old = INFINITY, PGmin_old = -INFINITY
    cdef double PGmax_new = 0.0, PGmin_new = 0.0
    cdef Example* highest
    cdef Example* lowest
    cdef int again
    smo_mt_seed(&gen, seed)
    progress_start(&progress)
    while another_epoch(it, max_iter, visits, active, max_visits):
        visits += epoch_visits(active)
        PGmax_new = -INFINITY
        PGmin_new = INFINITY
        highest = lowest = NULL
        shuffle_active(index, active, &gen)
        s = 0
        while s < active:
            e = _visit(ex, index, s, active, r)
            G = _gradient(e, r, w)
            Ci = e.upper
            PG = 0
            if e.dual == 0:
                if G > PGmax_old:
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
                elif G < 0:
                    PG = G
            elif e.dual == Ci:
                if G < PGmin_old:
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
                elif G > 0:
                    PG = G
            else:
                PG = G
            if PG > PGmax_new:
                highest = e
            if PG < PGmin_new:
                lowest = e
            PGmax_new = at_least(PGmax_new, PG)
            PGmin_new = at_most(PGmin_new, PG)
            if fabs(PG) > MOVE_MIN:
                _step(e, G, r, w)
            s += 1
        # the epoch's extreme violators are often a pair of coupled examples, each
        # step of one undoing part of the other's, which hold the spread above tol for
        # many epochs; a few steps of the two in turn settle them
        if revisits > 0 and PGmax_new - PGmin_new > tol and highest != NULL \
                and lowest != NULL:
            for again in range(revisits):
                _step(highest, _gradient(highest, r, w), r, w)
                _step(lowest, _gradient(lowest, r, w), r, w)
        it += 1
        status = poll_stop(flag)
        if status != RUNNING:
            break
        if (PGmax_new - PGmin_new <= tol and fabs(PGmax_new) <= tol
                and fabs(PGmin_new) <= tol):
            if active == l:
                status = OPTIMAL
                break
            active = l
            PGmax_old = INFINITY
            PGmin_old = -INFINITY
            progress_start(&progress)
            continue
        if stop_if_slow and progress_slow(&progress, PGmax_new - PGmin_new, tol, it,
                                          max_iter):
            status = SLOW
            break
        PGmax_old = PGmax_new
        PGmin_old = PGmin_new
        if PGmax_old <= 0:
            PGmax_old = INFINITY
        if PGmin_old >= 0:
            PGmin_old = -INFINITY
    if status == RUNNING:
        status = MAX_ITER
    run.status = status
    run.epochs = it
    run.pg_max = PGmax_new
    run.pg_min = PGmin_new


def svc_dual(LinearRows rows not None, order, signs, bounds, *, bint squared_hinge=False,
             double tol=0.1, long max_iter=1000, unsigned long seed=0, start=None,
             signed char[::1] stop_flag=None, diagonal=None, double shift=0.0,
             bint stop_if_slow=False, long long max_visits=0, int revisits=0):
    """Minimise LIBLINEAR's dual of the L2-regularised hinge (L1-loss) or squared hinge
    (L2-loss) SVM by coordinate descent.

    With a `shift` s the linear term is -(1 - s y_i) a_i: the dual of the same SVM
    whose decision function has an intercept fixed at s (beside the bias feature's
    weight, if any); the Lagrangian term of LIBSVM's equality constraint y'a = 0 with
    multiplier s (see `libsmo.training._linear_start`).

    Parameters
    ----------
    rows : LinearRows
    order : array of int
        The rows in the problem, in the order of the first epoch's permutation
        (scikit-learn's: grouped by class).
    signs : array of shape (n_rows,)
        y_i in {+1, -1} (read as > 0 or not) of every row.
    bounds : array of shape (n_rows,)
        C_i of every row (C x class weight x sample weight); > 0 for the rows in order.
    squared_hinge : bool
    tol : float
        LIBLINEAR's eps.
    max_iter : int
        Epochs at most.
    seed : int
        The Mersenne Twister's seed (scikit-learn's fit draws it from random_state).
    start : array of shape (n_rows,), optional
        Starting a of every row (a warm start), clipped into [0, U_i].
    stop_flag : int8 array of shape (1,), optional
        Another thread sets it to 1 to stop this run.
    diagonal : array of shape (n_rows,), optional
        Q_ii + D_ii of every row in the problem, as `dual_diagonal` gives it for these
        rows, bounds and loss (one-vs-rest classes share it); computed here if None.
    shift : float, default=0.0
        The fixed intercept s; finite.
    stop_if_slow : bool, default=False
        Stop with status "slow" once the epochs' stopping measure (the projected
        gradients' spread) falls too slowly to reach tol within max_iter epochs (see
        `linear_epochs.progress_slow`): for a caller that goes on by another method
        where the dual takes max_iter epochs (LIBLINEAR's -s 1, the Newton method).
    max_visits : int, default=0
        With max_visits > 0 the run goes on past max_iter epochs while the examples it
        has visited, the next epoch's included, stay within max_visits: an epoch visits
        the active examples only, so where the shrinking has set most of them aside
        the epochs are short, and a run that max_iter epochs would stop short of tol
        goes on for at most the work of max_visits / l full epochs (the estimators'
        rule for the losses without a primal method to go on by). 0: at most max_iter
        epochs (LIBLINEAR's and scikit-learn's rule).
    revisits : int, default=0
        After each epoch that did not meet tol, the examples of its largest and
        smallest projected gradient take this many more coordinate steps each, in
        turn: where a pair of coupled examples holds the spread above tol, they settle
        in a few steps instead of a step an epoch. 0: LIBLINEAR's and scikit-learn's
        steps, to the bit.

    Returns
    -------
    LinearSolution
        Its objective is the dual's, 1/2 a'(Q + D)a - sum (1 - s y_i) a_i; its status
        "optimal", "max_iter", "slow" or "stopped".

    Raises
    ------
    ValueError
        Arrays of other lengths, rows outside X, a bound that is not finite and > 0.
    KeyboardInterrupt
        Ctrl-C (or what another signal's handler raised, in the main thread).
    """
    cdef Py_ssize_t n = rows.n_rows, nw = rows.n_weights
    if not isfinite(shift):
        raise ValueError(f"shift must be finite, got {shift!r}")
    if (not tol > 0 or max_iter < 0 or seed > 0xFFFFFFFF or max_visits < 0
            or revisits < 0):
        raise ValueError(f"tol must be > 0, max_iter >= 0, seed a 32-bit int, "
                         f"max_visits >= 0 and revisits >= 0; got {tol!r}, {max_iter!r}, "
                         f"{seed!r}, {max_visits!r}, {revisits!r}")
    members, C, y, first = problem_inputs(rows, order, signs, bounds, start, signs=True)
    if diagonal is not None:
        diagonal = np.ascontiguousarray(diagonal, dtype=np.float64)
        if diagonal.shape != (n,):
            raise ValueError(f"diagonal must have shape ({n},), got {diagonal.shape}")
    cdef _Examples examples = _examples(rows, members, y, C, first, squared_hinge, False,
                                        diagonal, shift)
    cdef signed char* flag = stop_flag_pointer(stop_flag)
    cdef SvcRun run
    cdef Py_ssize_t t
    cdef double v = 0.0
    cdef double* w = &examples.w[0]
    with nogil:
        _svc_epochs(examples.ex, examples.index, &examples.r, w, examples.l, tol,
                    max_iter, max_visits, <uint32_t>seed, flag, stop_if_slow, revisits,
                    &run)
        for t in range(nw):
            v += w[t] * w[t]
        for t in range(examples.l):
            v += examples.ex[t].dual * (examples.ex[t].dual * examples.ex[t].diag
                                        - 2 * examples.ex[t].margin)
    status = run.status
    it = run.epochs
    PGmax_new, PGmin_new = run.pg_max, run.pg_min
    dual = examples.duals(n)
    if status == INTERRUPTED:
        raise_pending_signal()
    return LinearSolution(np.asarray(examples.w)[:nw], dual, it, v / 2, STATUS_NAMES[status],
                          PGmax_new - PGmin_new)


cdef struct SvrRun:
    # how `_svr_epochs` ended: its status, epochs, and the first and last epochs'
    # summed violations
    int status
    long epochs
    double gnorm1_init
    double gnorm1_new


cdef void _svr_epochs(Example* ex, int* index, const RowData* r, double* w,
                      Py_ssize_t l, double p, double tol, long max_iter,
                      long long max_visits, uint32_t seed, const signed char* flag,
                      bint stop_if_slow, double reference, SvrRun* run) noexcept nogil:
    """`svr_dual`'s epochs over its examples' records, in a function of their own (as
    `_svc_epochs`: the row loops inlined); tol is relative to `reference` where it is
    positive, else to the first epoch's summed violation."""
    cdef Progress progress
    cdef Py_ssize_t active = l, s
    cdef long it = 0
    cdef long long visits = 0
    cdef int status = RUNNING
    cdef smo_mt19937 gen
    cdef Example* e
    cdef double G, H, Gp, Gn, d, b_old, violation, Ui
    cdef double Gmax_old = INFINITY, Gmax_new = 0.0, Gnorm1_new = 0.0, Gnorm1_init = -1.0
    smo_mt_seed(&gen, seed)
    progress_start(&progress)
    while another_epoch(it, max_iter, visits, active, max_visits):
        visits += epoch_visits(active)
        Gmax_new = 0
        Gnorm1_new = 0
        shuffle_active(index, active, &gen)
        s = 0
        while s < active:
            e = _visit(ex, index, s, active, r)
            G = dot_span(r, e.start, e.end, w, -e.target + e.diag * e.dual)
            H = e.qd + e.diag
            Gp = G + p
            Gn = G - p
            violation = 0
            Ui = e.upper
            if e.dual == 0:
                if Gp < 0:
                    violation = -Gp
                elif Gn > 0:
                    violation = Gn
                elif Gp > Gmax_old and Gn < -Gmax_old:
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
            elif e.dual >= Ui:
                if Gp > 0:
                    violation = Gp
                elif Gp < -Gmax_old:
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
            elif e.dual <= -Ui:
                if Gn < 0:
                    violation = -Gn
                elif Gn > Gmax_old:
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
            elif e.dual > 0:
                violation = fabs(Gp)
            else:
                violation = fabs(Gn)
            Gmax_new = at_least(Gmax_new, violation)
            Gnorm1_new += violation
            # the Newton direction of the one-variable problem
            if Gp < H * e.dual:
                d = -Gp / H
            elif Gn > H * e.dual:
                d = -Gn / H
            else:
                d = -e.dual
            s += 1
            if fabs(d) < MOVE_MIN:
                continue
            b_old = e.dual
            e.dual = at_most(at_least(e.dual + d, -Ui), Ui)
            d = e.dual - b_old
            if d != 0:
                add_span(r, e.start, e.end, d, w)
        if it == 0:
            Gnorm1_init = reference if reference > 0 else Gnorm1_new
        it += 1
        status = poll_stop(flag)
        if status != RUNNING:
            break
        if Gnorm1_new <= tol * Gnorm1_init:
            if active == l:
                status = OPTIMAL
                break
            active = l
            Gmax_old = INFINITY
            progress_start(&progress)
            continue
        if stop_if_slow and progress_slow(&progress, Gnorm1_new, tol * Gnorm1_init, it,
                                          max_iter):
            status = SLOW
            break
        Gmax_old = Gmax_new
    if status == RUNNING:
        status = MAX_ITER
    run.status = status
    run.epochs = it
    run.gnorm1_init = Gnorm1_init
    run.gnorm1_new = Gnorm1_new


def svr_dual(LinearRows rows not None, order, targets, bounds, *, double epsilon=0.0,
             bint squared_loss=False, double tol=0.1, long max_iter=1000,
             unsigned long seed=0, start=None, signed char[::1] stop_flag=None,
             bint stop_if_slow=False, long long max_visits=0, double reference=0.0):
    """Minimise LIBLINEAR's dual of the L2-regularised epsilon-insensitive (L1-loss) or
    squared epsilon-insensitive (L2-loss) SVR by coordinate descent.

    Parameters
    ----------
    rows : LinearRows
    order : array of int
        The rows in the problem, in the first epoch's order.
    targets : array of shape (n_rows,)
        y_i of every row.
    bounds : array of shape (n_rows,)
        C_i of every row (C x sample weight); > 0 for the rows in order.
    epsilon : float
        The insensitive zone's half width p (>= 0).
    squared_loss : bool
    tol, max_iter, seed, stop_flag, stop_if_slow, max_visits
        As for `svc_dual` (tol bounds the epoch's summed violation relative to the
        first epoch's, the stopping measure that `stop_if_slow` watches).
    start : array of shape (n_rows,), optional
        Starting b of every row, clipped into [-U_i, U_i].
    reference : float, default=0
        The summed violation that tol is relative to; 0: the first epoch's (LIBLINEAR's
        rule). A run that continues another from a `start` near the optimum passes
        that run's reference, whose first epoch set the scale.

    Returns
    -------
    LinearSolution
        Its `reference`: the summed violation that tol was relative to.

    Raises
    ------
    ValueError, KeyboardInterrupt
        As `svc_dual`; a negative epsilon.
    """
    cdef Py_ssize_t n = rows.n_rows, nw = rows.n_weights
    if (not tol > 0 or max_iter < 0 or seed > 0xFFFFFFFF or not epsilon >= 0
            or max_visits < 0 or not reference >= 0):
        raise ValueError(f"tol must be > 0, max_iter >= 0, seed a 32-bit int, "
                         f"epsilon >= 0, max_visits >= 0 and reference >= 0; got {tol!r}, "
                         f"{max_iter!r}, {seed!r}, {epsilon!r}, {max_visits!r}, "
                         f"{reference!r}")
    members, C, y, first = problem_inputs(rows, order, targets, bounds, start)
    cdef _Examples examples = _examples(rows, members, y, C, first, squared_loss, True)
    cdef Example* ex = examples.ex
    cdef Example* e
    cdef signed char* flag = stop_flag_pointer(stop_flag)
    cdef SvrRun run
    cdef Py_ssize_t t
    cdef double p = epsilon, v = 0.0
    cdef double* w = &examples.w[0]
    with nogil:
        _svr_epochs(ex, examples.index, &examples.r, w, examples.l, p, tol, max_iter,
                    max_visits, <uint32_t>seed, flag, stop_if_slow, reference, &run)
        for t in range(nw):
            v += w[t] * w[t]
        v = 0.5 * v
        for t in range(examples.l):
            e = &ex[t]
            v += (p * fabs(e.dual) - e.target * e.dual
                  + 0.5 * e.diag * e.dual * e.dual)
    status = run.status
    it = run.epochs
    Gnorm1_init, Gnorm1_new = run.gnorm1_init, run.gnorm1_new
    dual = examples.duals(n)
    if status == INTERRUPTED:
        raise_pending_signal()
    return LinearSolution(np.asarray(examples.w)[:nw], dual, it, v, STATUS_NAMES[status],
                          Gnorm1_new / Gnorm1_init if Gnorm1_init > 0 else 0.0,
                          max(Gnorm1_init, 0.0))


def bounded_draws(unsigned long seed, ranges):
    """The Mersenne Twister's bounded integers for `ranges` in turn from `seed` (the
    draws a permutation takes; for tests against scikit-learn's generator).

    Returns
    -------
    ndarray of int64
    """
    cdef const long long[::1] r = np.ascontiguousarray(ranges, dtype=np.int64)
    cdef long long[::1] out = np.empty(r.shape[0], dtype=np.int64)
    cdef smo_mt19937 gen
    cdef Py_ssize_t k
    if r.shape[0] and (np.min(r) < 1 or np.max(r) > 0xFFFFFFFF):
        raise ValueError("ranges must be in [1, 2**32 - 1]")
    smo_mt_seed(&gen, <uint32_t>seed)
    for k in range(r.shape[0]):
        out[k] = smo_mt_bounded(&gen, <uint32_t>r[k])
    return np.asarray(out)
