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
last entry of w. The rows are the caller's arrays (`LinearRows`: CSR data, indices and
index pointers, or a C-contiguous dense array), read in place: nothing is copied.
Rows whose every stored value is 1 (a9a, w8a) are summed from their indices alone,
the same sums. The arithmetic is scikit-learn's, term by term and in its order.
"""
import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from libc.math cimport fabs, INFINITY
from libc.stdint cimport uint32_t
from libsmo._core.arrays import check_indices
from libsmo._core.linear_rows cimport (LinearRows, RowData, add_row, dot_w, prefetch_row,
                                       squares_from)

cnp.import_array()

cdef extern from "mt19937.h" nogil:
    ctypedef struct smo_mt19937:
        pass
    void smo_mt_seed(smo_mt19937* g, uint32_t seed)
    uint32_t smo_mt_next(smo_mt19937* g)
    uint32_t smo_mt_bounded(smo_mt19937* g, uint32_t range)

cdef enum Status:
    RUNNING = 0
    OPTIMAL = 1
    MAX_ITER = 2
    STOPPED = 3
    INTERRUPTED = 4

STATUS_NAMES = {OPTIMAL: "optimal", MAX_ITER: "max_iter", STOPPED: "stopped"}

# a coordinate moves only when its projected gradient is larger (LIBLINEAR's 1e-12)
cdef double MOVE_MIN = 1.0e-12


cdef inline double at_most(double x, double y) noexcept nogil:
    """LIBLINEAR's min(x, y): (x < y) ? x : y."""
    return x if x < y else y


cdef inline double at_least(double x, double y) noexcept nogil:
    """LIBLINEAR's max(x, y): (x > y) ? x : y."""
    return x if x > y else y


cdef class LinearSolution:
    """The result of one coordinate descent run (read-only arrays).

    Attributes
    ----------
    w : ndarray of shape (n_weights,)
        The weights; with a bias feature its weight is the last entry.
    dual : ndarray of shape (n_rows,)
        a (classification) or b (regression) of every row, 0 for rows not in the problem.
    n_iter : int
        Epochs run.
    objective : float
        The dual objective at `dual` (LIBLINEAR's "Objective value").
    status : str
        "optimal", "max_iter" or "stopped" (another thread's stop flag).
    violation : float
        The last epoch's stopping figure: max - min projected gradient (classification),
        or summed violation over the first epoch's (regression).
    """
    cdef readonly object w
    cdef readonly object dual
    cdef readonly long n_iter
    cdef readonly double objective
    cdef readonly str status
    cdef readonly double violation

    def __init__(self, w, dual, n_iter, objective, status, violation):
        w.flags.writeable = False
        dual.flags.writeable = False
        self.w, self.dual, self.n_iter = w, dual, n_iter
        self.objective, self.status, self.violation = objective, status, violation

    def __repr__(self):
        return (f"LinearSolution(status={self.status!r}, n_iter={self.n_iter}, "
                f"objective={self.objective!r})")


cdef object _problem_rows(LinearRows rows, order, bounds, str what):
    """`order` as int32 once every entry is a row whose bound is > 0 (finite)."""
    order = np.ascontiguousarray(order, dtype=np.int32)
    check_indices(order, rows.n_rows, "row", error=ValueError)
    if len(np.unique(order)) != len(order):
        raise ValueError("order must not repeat a row")
    taken = bounds[order]
    if not (np.all(taken > 0) and np.all(np.isfinite(taken))):
        raise ValueError(f"{what} of the rows in the problem must be finite and > 0")
    return order


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
    upper_given = np.ascontiguousarray(bounds, dtype=np.float64)
    if upper_given.shape != (n,) or np.shape(signs) != (n,):
        raise ValueError(f"signs and bounds must have shape ({n},), got "
                         f"{np.shape(signs)} and {upper_given.shape}")
    cdef const int[::1] members = _problem_rows(rows, order, upper_given, "bounds")
    cdef const signed char[::1] y = np.where(np.asarray(signs) > 0, 1, -1).astype(np.int8)
    cdef double[::1] C = upper_given.copy()
    cdef double[::1] diag = np.zeros(n)
    cdef double[::1] upper = np.full(n, INFINITY)
    cdef double[::1] alpha = np.zeros(n)
    cdef double[::1] QD = np.zeros(n)
    cdef double[::1] w = np.zeros(max(nw, 1))
    cdef int[::1] index = np.array(members, dtype=np.int32)
    if stop_flag is not None and stop_flag.shape[0] < 1:
        raise ValueError("stop_flag must have one entry")
    cdef signed char* flag = &stop_flag[0] if stop_flag is not None else NULL
    if start is not None:
        start = np.asarray(start, dtype=np.float64)
        if start.shape != (n,):
            raise ValueError(f"start must have shape ({n},), got {start.shape}")
        alpha = np.nan_to_num(start, nan=0.0, posinf=0.0, neginf=0.0)
    cdef RowData r = rows.view()
    cdef Py_ssize_t l = index.shape[0], s, t, i, j
    cdef Py_ssize_t active = l
    cdef long it = 0
    cdef int status = RUNNING
    cdef smo_mt19937 gen
    cdef double G, PG, Ci, d, a_old, v = 0.0
    cdef double PGmax_old = INFINITY, PGmin_old = -INFINITY
    cdef double PGmax_new = 0.0, PGmin_new = 0.0
    cdef signed char yi
    with nogil:
        smo_mt_seed(&gen, <uint32_t>seed)
        for t in range(l):
            i = index[t]
            if squared_hinge:
                diag[i] = 0.5 / C[i]
            else:
                upper[i] = C[i]
            alpha[i] = at_most(at_least(alpha[i], 0.0), upper[i])
            QD[i] = squares_from(&r, i, diag[i])
            if alpha[i] != 0:
                add_row(&r, i, y[i] * alpha[i], &w[0])
        while it < max_iter:
            PGmax_new = -INFINITY
            PGmin_new = INFINITY
            for t in range(active):
                j = t + smo_mt_bounded(&gen, <uint32_t>(active - t))
                index[t], index[j] = index[j], index[t]
            s = 0
            while s < active:
                i = index[s]
                if s + 1 < active:
                    prefetch_row(&r, index[s + 1])
                yi = y[i]
                G = dot_w(&r, i, &w[0])
                G = G * yi - 1
                Ci = upper[i]
                G += alpha[i] * diag[i]
                PG = 0
                if alpha[i] == 0:
                    if G > PGmax_old:
                        active -= 1
                        index[s], index[active] = index[active], index[s]
                        continue
                    elif G < 0:
                        PG = G
                elif alpha[i] == Ci:
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
                    a_old = alpha[i]
                    alpha[i] = at_most(at_least(alpha[i] - G / QD[i], 0.0), Ci)
                    d = (alpha[i] - a_old) * yi
                    add_row(&r, i, d, &w[0])
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
            i = members[t]
            v += alpha[i] * (alpha[i] * diag[i] - 2)
    if status == INTERRUPTED:
        raise KeyboardInterrupt
    return LinearSolution(np.asarray(w)[:nw], np.asarray(alpha), it, v / 2,
                          STATUS_NAMES[status], PGmax_new - PGmin_new)


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
    ValueError
        As `svc_dual`, or a negative epsilon.
    KeyboardInterrupt
        Ctrl-C.
    """
    cdef Py_ssize_t n = rows.n_rows, nw = rows.n_weights
    if not tol > 0 or max_iter < 0 or seed > 0xFFFFFFFF or not epsilon >= 0:
        raise ValueError(f"tol must be > 0, max_iter >= 0, seed a 32-bit int and "
                         f"epsilon >= 0; got {tol!r}, {max_iter!r}, {seed!r}, {epsilon!r}")
    upper_given = np.ascontiguousarray(bounds, dtype=np.float64)
    z = np.ascontiguousarray(targets, dtype=np.float64)
    if upper_given.shape != (n,) or z.shape != (n,):
        raise ValueError(f"targets and bounds must have shape ({n},), got "
                         f"{z.shape} and {upper_given.shape}")
    cdef const int[::1] members = _problem_rows(rows, order, upper_given, "bounds")
    cdef const double[::1] yv = z
    cdef double[::1] C = upper_given.copy()
    cdef double[::1] lam = np.zeros(n)
    cdef double[::1] upper = np.full(n, INFINITY)
    cdef double[::1] beta = np.zeros(n)
    cdef double[::1] QD = np.zeros(n)
    cdef double[::1] w = np.zeros(max(nw, 1))
    cdef int[::1] index = np.array(members, dtype=np.int32)
    if stop_flag is not None and stop_flag.shape[0] < 1:
        raise ValueError("stop_flag must have one entry")
    cdef signed char* flag = &stop_flag[0] if stop_flag is not None else NULL
    if start is not None:
        start = np.asarray(start, dtype=np.float64)
        if start.shape != (n,):
            raise ValueError(f"start must have shape ({n},), got {start.shape}")
        beta = np.nan_to_num(start, nan=0.0, posinf=0.0, neginf=0.0)
    cdef RowData r = rows.view()
    cdef Py_ssize_t l = index.shape[0], s, t, i, j
    cdef Py_ssize_t active = l
    cdef long it = 0
    cdef int status = RUNNING
    cdef smo_mt19937 gen
    cdef double G, H, Gp, Gn, d, b_old, violation, Ui, p = epsilon, v = 0.0
    cdef double Gmax_old = INFINITY, Gmax_new = 0.0, Gnorm1_new = 0.0, Gnorm1_init = -1.0
    with nogil:
        smo_mt_seed(&gen, <uint32_t>seed)
        for t in range(l):
            i = index[t]
            if squared_loss:
                lam[i] = 0.5 / C[i]
            else:
                upper[i] = C[i]
            beta[i] = at_most(at_least(beta[i], -upper[i]), upper[i])
            QD[i] = squares_from(&r, i, 0.0)
            if beta[i] != 0:
                add_row(&r, i, beta[i], &w[0])
        while it < max_iter:
            Gmax_new = 0
            Gnorm1_new = 0
            for t in range(active):
                j = t + smo_mt_bounded(&gen, <uint32_t>(active - t))
                index[t], index[j] = index[j], index[t]
            s = 0
            while s < active:
                i = index[s]
                if s + 1 < active:
                    prefetch_row(&r, index[s + 1])
                G = dot_w(&r, i, &w[0], -yv[i] + lam[i] * beta[i])
                H = QD[i] + lam[i]
                Gp = G + p
                Gn = G - p
                violation = 0
                Ui = upper[i]
                if beta[i] == 0:
                    if Gp < 0:
                        violation = -Gp
                    elif Gn > 0:
                        violation = Gn
                    elif Gp > Gmax_old and Gn < -Gmax_old:
                        active -= 1
                        index[s], index[active] = index[active], index[s]
                        continue
                elif beta[i] >= Ui:
                    if Gp > 0:
                        violation = Gp
                    elif Gp < -Gmax_old:
                        active -= 1
                        index[s], index[active] = index[active], index[s]
                        continue
                elif beta[i] <= -Ui:
                    if Gn < 0:
                        violation = -Gn
                    elif Gn > Gmax_old:
                        active -= 1
                        index[s], index[active] = index[active], index[s]
                        continue
                elif beta[i] > 0:
                    violation = fabs(Gp)
                else:
                    violation = fabs(Gn)
                Gmax_new = at_least(Gmax_new, violation)
                Gnorm1_new += violation
                # the Newton direction of the one-variable problem
                if Gp < H * beta[i]:
                    d = -Gp / H
                elif Gn > H * beta[i]:
                    d = -Gn / H
                else:
                    d = -beta[i]
                s += 1
                if fabs(d) < MOVE_MIN:
                    continue
                b_old = beta[i]
                beta[i] = at_most(at_least(beta[i] + d, -Ui), Ui)
                d = beta[i] - b_old
                if d != 0:
                    add_row(&r, i, d, &w[0])
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
            i = members[t]
            v += p * fabs(beta[i]) - yv[i] * beta[i] + 0.5 * lam[i] * beta[i] * beta[i]
    if status == INTERRUPTED:
        raise KeyboardInterrupt
    return LinearSolution(np.asarray(w)[:nw], np.asarray(beta), it, v,
                          STATUS_NAMES[status],
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
