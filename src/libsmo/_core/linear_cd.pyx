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
from cpython.exc cimport PyErr_CheckSignals
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdlib cimport free
from libc.math cimport fabs, INFINITY
from libc.stdint cimport uint32_t
from libsmo._core.checks import check_indices
from libsmo._core.linear_solution import LinearSolution
from libsmo._core.linear_rows cimport (LinearRows, RowData, add_span, at_least, at_most,
                                       dot_span, prefetch_span, row_end, row_start,
                                       smo_prefetch_read, squares_from)

cnp.import_array()

cdef extern from "mt19937.h" nogil:
    ctypedef struct smo_mt19937:
        pass
    void smo_mt_seed(smo_mt19937* g, uint32_t seed)
    uint32_t smo_mt_bounded(smo_mt19937* g, uint32_t range)

cdef extern from "stdlib.h" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

cdef enum Status:
    RUNNING = 0
    OPTIMAL = 1
    MAX_ITER = 2
    STOPPED = 3
    INTERRUPTED = 4

STATUS_NAMES = {OPTIMAL: "optimal", MAX_ITER: "max_iter", STOPPED: "stopped"}

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
    double unused       # to 64 bytes: with the array aligned, one record one line


cdef tuple _inputs(LinearRows rows, order, targets, bounds, start):
    """The problem's rows (int32, each inside X) and, per problem row, its target, its
    bound (finite and > 0) and its start (NaN and infinities as 0). A row listed twice
    is two examples of the problem."""
    cdef Py_ssize_t n = rows.n_rows
    order = np.ascontiguousarray(order, dtype=np.int32)
    check_indices(order, n, "row", error=ValueError)
    targets = np.asarray(targets, dtype=np.float64)
    bounds = np.asarray(bounds, dtype=np.float64)
    if targets.shape != (n,) or bounds.shape != (n,):
        raise ValueError(f"targets (signs) and bounds must have shape ({n},), got "
                         f"{targets.shape} and {bounds.shape}")
    C = np.ascontiguousarray(bounds[order])
    if not (np.all(C > 0) and np.all(np.isfinite(C))):
        raise ValueError("bounds of the rows in the problem must be finite and > 0")
    if start is None:
        first = np.zeros(len(order))
    else:
        start = np.asarray(start, dtype=np.float64)
        if start.shape != (n,):
            raise ValueError(f"start must have shape ({n},), got {start.shape}")
        first = np.nan_to_num(start[order], nan=0.0, posinf=0.0, neginf=0.0)
    return order, C, np.ascontiguousarray(targets[order]), first


cdef Example* _examples(const RowData* r, const int[::1] rows, const double[::1] targets,
                        const double[::1] C, const double[::1] start, bint squared,
                        bint regression, double* w, int** index) except NULL:
    """The examples' records (to be freed with free()) and the visiting order 0..l-1
    in *index (PyMem_Free), the start clipped into its box and added to w."""
    cdef Py_ssize_t t, l = rows.shape[0]
    cdef Example* ex = NULL
    if posix_memalign(<void**>&ex, 64, max(l, 1) * sizeof(Example)) != 0:
        ex = NULL
    index[0] = <int*>PyMem_Malloc(max(l, 1) * sizeof(int))
    if ex == NULL or index[0] == NULL:
        free(ex)
        PyMem_Free(index[0])
        raise MemoryError()
    cdef Example* e
    with nogil:
        for t in range(l):
            e = &ex[t]
            index[0][t] = <int>t
            e.start = row_start(r, rows[t])
            e.end = row_end(r, rows[t])
            e.target = targets[t]
            e.diag = 0.5 / C[t] if squared else 0.0
            e.upper = INFINITY if squared else C[t]
            e.dual = at_most(at_least(start[t], -e.upper if regression else 0.0), e.upper)
            # scikit-learn's Q_ii: D_ii and then the squares (regression: the squares)
            e.qd = squares_from(r, rows[t], 0.0 if regression else e.diag)
            if e.dual != 0:
                add_span(r, e.start, e.end, e.dual if regression else e.target * e.dual, w)
    return ex


cdef signed char* _flag(signed char[::1] stop_flag) except? NULL:
    if stop_flag is None:
        return NULL
    if stop_flag.shape[0] < 1:
        raise ValueError("stop_flag must have one entry")
    return &stop_flag[0]


cdef int _poll(signed char* stop_flag) noexcept with gil:
    """INTERRUPTED on Ctrl-C (main thread), STOPPED on the flag, else RUNNING."""
    if PyErr_CheckSignals() != 0:
        return INTERRUPTED
    if stop_flag != NULL and stop_flag[0] != 0:
        return STOPPED
    return RUNNING


def svc_dual(LinearRows rows not None, order, signs, bounds, *, bint squared_hinge=False,
             double tol=0.1, long max_iter=1000, unsigned long seed=0, start=None,
             signed char[::1] stop_flag=None):
    """Minimise LIBLINEAR's dual of the L2-regularised hinge (L1-loss) or squared hinge
    (L2-loss) SVM by coordinate descent.

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

    Returns
    -------
    LinearSolution

    Raises
    ------
    ValueError
        Arrays of other lengths, rows outside X, a bound that is not finite and > 0.
    KeyboardInterrupt
        Ctrl-C.
    """
    cdef Py_ssize_t n = rows.n_rows, nw = rows.n_weights
    if not tol > 0 or max_iter < 0 or seed > 0xFFFFFFFF:
        raise ValueError(f"tol must be > 0, max_iter >= 0 and seed a 32-bit int; got "
                         f"{tol!r}, {max_iter!r}, {seed!r}")
    signs = np.where(np.asarray(signs) > 0, 1.0, -1.0)
    members, C, y, alpha0 = _inputs(rows, order, signs, bounds, start)
    cdef double[::1] w = np.zeros(max(nw, 1))
    cdef signed char* flag = _flag(stop_flag)
    cdef RowData r = rows.view()
    cdef Py_ssize_t l = members.shape[0], s, t, j
    cdef int* index = NULL
    cdef Example* ex = _examples(&r, members, y, C, alpha0, squared_hinge, False, &w[0],
                                 &index)
    cdef Example* e
    cdef Py_ssize_t active = l
    cdef long it = 0
    cdef int status = RUNNING
    cdef smo_mt19937 gen
    cdef double G, PG, Ci, d, a_old, v = 0.0
    cdef double PGmax_old = INFINITY, PGmin_old = -INFINITY
    cdef double PGmax_new = 0.0, PGmin_new = 0.0
    try:
        with nogil:
            smo_mt_seed(&gen, <uint32_t>seed)
            while it < max_iter:
                PGmax_new = -INFINITY
                PGmin_new = INFINITY
                for t in range(active):
                    j = t + smo_mt_bounded(&gen, <uint32_t>(active - t))
                    index[t], index[j] = index[j], index[t]
                s = 0
                while s < active:
                    if s + RECORD_AHEAD < active:
                        smo_prefetch_read(&ex[index[s + RECORD_AHEAD]])
                    if s + ROW_AHEAD < active:
                        prefetch_span(&r, ex[index[s + ROW_AHEAD]].start)
                    e = &ex[index[s]]
                    G = dot_span(&r, e.start, e.end, &w[0], 0.0)
                    G = G * e.target - 1
                    Ci = e.upper
                    G += e.dual * e.diag
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
                    PGmax_new = at_least(PGmax_new, PG)
                    PGmin_new = at_most(PGmin_new, PG)
                    if fabs(PG) > MOVE_MIN:
                        a_old = e.dual
                        e.dual = at_most(at_least(e.dual - G / e.qd, 0.0), Ci)
                        d = (e.dual - a_old) * e.target
                        add_span(&r, e.start, e.end, d, &w[0])
                    s += 1
                it += 1
                status = _poll(flag)
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
                    continue
                PGmax_old = PGmax_new
                PGmin_old = PGmin_new
                if PGmax_old <= 0:
                    PGmax_old = INFINITY
                if PGmin_old >= 0:
                    PGmin_old = -INFINITY
            if status == RUNNING:
                status = MAX_ITER
            for t in range(nw):
                v += w[t] * w[t]
            for t in range(l):
                v += ex[t].dual * (ex[t].dual * ex[t].diag - 2)
        dual = np.zeros(n)
        for t in range(l):
            dual[members[t]] = ex[t].dual
    finally:
        free(ex)
        PyMem_Free(index)
    if status == INTERRUPTED:
        raise KeyboardInterrupt
    return LinearSolution(np.asarray(w)[:nw], dual, it, v / 2, STATUS_NAMES[status],
                          PGmax_new - PGmin_new)


def svr_dual(LinearRows rows not None, order, targets, bounds, *, double epsilon=0.0,
             bint squared_loss=False, double tol=0.1, long max_iter=1000,
             unsigned long seed=0, start=None, signed char[::1] stop_flag=None):
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
    tol, max_iter, seed, stop_flag
        As for `svc_dual` (tol bounds the epoch's summed violation relative to the
        first epoch's).
    start : array of shape (n_rows,), optional
        Starting b of every row, clipped into [-U_i, U_i].

    Returns
    -------
    LinearSolution

    Raises
    ------
    ValueError, KeyboardInterrupt
        As `svc_dual`; a negative epsilon.
    """
    cdef Py_ssize_t n = rows.n_rows, nw = rows.n_weights
    if not tol > 0 or max_iter < 0 or seed > 0xFFFFFFFF or not epsilon >= 0:
        raise ValueError(f"tol must be > 0, max_iter >= 0, seed a 32-bit int and "
                         f"epsilon >= 0; got {tol!r}, {max_iter!r}, {seed!r}, {epsilon!r}")
    members, C, yv, beta0 = _inputs(rows, order, targets, bounds, start)
    cdef double[::1] w = np.zeros(max(nw, 1))
    cdef signed char* flag = _flag(stop_flag)
    cdef RowData r = rows.view()
    cdef Py_ssize_t l = members.shape[0], s, t, j
    cdef int* index = NULL
    cdef Example* ex = _examples(&r, members, yv, C, beta0, squared_loss, True, &w[0],
                                 &index)
    cdef Example* e
    cdef Py_ssize_t active = l
    cdef long it = 0
    cdef int status = RUNNING
    cdef smo_mt19937 gen
    cdef double G, H, Gp, Gn, d, b_old, violation, Ui, p = epsilon, v = 0.0
    cdef double Gmax_old = INFINITY, Gmax_new = 0.0, Gnorm1_new = 0.0, Gnorm1_init = -1.0
    try:
        with nogil:
            smo_mt_seed(&gen, <uint32_t>seed)
            while it < max_iter:
                Gmax_new = 0
                Gnorm1_new = 0
                for t in range(active):
                    j = t + smo_mt_bounded(&gen, <uint32_t>(active - t))
                    index[t], index[j] = index[j], index[t]
                s = 0
                while s < active:
                    if s + RECORD_AHEAD < active:
                        smo_prefetch_read(&ex[index[s + RECORD_AHEAD]])
                    if s + ROW_AHEAD < active:
                        prefetch_span(&r, ex[index[s + ROW_AHEAD]].start)
                    e = &ex[index[s]]
                    G = dot_span(&r, e.start, e.end, &w[0], -e.target + e.diag * e.dual)
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
                        add_span(&r, e.start, e.end, d, &w[0])
                if it == 0:
                    Gnorm1_init = Gnorm1_new
                it += 1
                status = _poll(flag)
                if status != RUNNING:
                    break
                if Gnorm1_new <= tol * Gnorm1_init:
                    if active == l:
                        status = OPTIMAL
                        break
                    active = l
                    Gmax_old = INFINITY
                    continue
                Gmax_old = Gmax_new
            if status == RUNNING:
                status = MAX_ITER
            for t in range(nw):
                v += w[t] * w[t]
            v = 0.5 * v
            for t in range(l):
                e = &ex[t]
                v += (p * fabs(e.dual) - e.target * e.dual
                      + 0.5 * e.diag * e.dual * e.dual)
        dual = np.zeros(n)
        for t in range(l):
            dual[members[t]] = ex[t].dual
    finally:
        free(ex)
        PyMem_Free(index)
    if status == INTERRUPTED:
        raise KeyboardInterrupt
    return LinearSolution(np.asarray(w)[:nw], dual, it, v, STATUS_NAMES[status],
                          Gnorm1_new / Gnorm1_init if Gnorm1_init > 0 else 0.0)


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
