# cython: language_level=3
"""Platt's SMO for the linear kernel, with the weight vector kept explicitly.

With K(x, z) = x'z the dual's gradient is G_t = y_t w'x_t + p_t for the primal weights
w = sum_t alpha_t y_t x_t, so nothing needs a kernel row: a step on (i, j) updates w
with the two rows (O(nnz_i + nnz_j)), and any gradient costs one sparse dot product
with w (Platt 1998, section 2.4, "for the linear SVM ... only a single weight vector
needs to be stored"). No kernel cache is used, and a pass over all examples costs
O(nnz) whatever the number of support vectors.

The loop is Platt's, with Keerthi et al.'s two thresholds (2001, modification 2), in
the notation of `libsmo._core.smo`: v_t = -y_t G_t,

    m = max over I_up of v_t,   M = min over I_low of v_t,   optimal when m - M <= tol.

- The error cache holds v_t for the non-bound (free) examples; it is recomputed from w
  after each step, O(nnz of the free rows).
- A pass over all examples examines each one against the thresholds m, M (kept over the
  free examples, the last step's pair, and the bound examples examined since) and takes
  a step with the partner that defines the threshold it violates.
- Between such passes, steps on the worst pair of the free set until it is optimal
  within tol (Keerthi's inner loop).
- It stops when a pass over all examples takes no step; a last exact pass then checks
  m - M <= tol on every example, LIBSVM's criterion, and resumes otherwise. So the
  answer is the kernel solver's optimum to the same tolerance.

A warm start from outside (`seeded`) far from the optimum (|a| ~ 1e20) would leave w the sum of
terms whose rounding outweighs the answer: as `libsmo._core.smo` does, a start worse
than a = 0 is moved to the best point of its ray (`_pull_in_far_start`), and an optimum
is declared only on a w whose estimated rounding is a small share of tol, else w is
summed again from scratch first (`_verify_optimum`).

This solves the problems without the nu variant's second constraint (C-SVC, one-class
and, with a start alpha, any y'a = Delta); the others go through `libsmo._core.smo`.

The rows are read through the core's one row accessor (`libsmo._core.rows.Rows`, the
caller's dense array in place, or CSR extents), as the kernel reads them.
"""
import numpy as np
cimport cython
cimport numpy as cnp
from libc.float cimport DBL_EPSILON
from libc.math cimport fabs, isfinite, INFINITY
from libsmo._core.pair_step cimport FREE, bound_status, in_low, in_up, solve_pair
from libsmo._core.rows cimport Rows, row_add_to_vector, row_dot, row_dot_vector
from libsmo._core.stopping cimport StopConditions, RUNNING, OPTIMAL, EXCEPTION
from libsmo._core.solution import make_solution
from libsmo._core.checks import check_lengths

cnp.import_array()

# `libsmo._core.smo`'s VERIFY_SHARE: an optimum is declared on w only while its
# estimated rounding, DBL_EPSILON * max |x_t|^2 * (sum |a| when it was summed + sum |da|
# since), is at most this share of tol
cdef double VERIFY_SHARE = 0.01


@cython.final
cdef class LinearSolver:
    """State of one run; use the module function `solve_linear` (whose arguments and
    errors these are)."""

    cdef int l
    cdef Py_ssize_t d
    cdef Rows rows          # variable t is row t: the caller's rows, never permuted
    cdef double[::1] w
    cdef double[::1] alpha
    cdef double[::1] y
    cdef double[::1] p
    cdef double[::1] C
    cdef double[::1] QD
    cdef double[::1] v
    cdef signed char[::1] status
    cdef int[::1] visit         # the examine-all pass's order: the data's own
    cdef int[::1] free_list
    cdef int[::1] free_pos
    cdef int n_free
    cdef double eps
    cdef long long n_iter
    cdef double m_up
    cdef double M_low
    cdef int i_up
    cdef int j_low
    cdef StopConditions poller
    cdef int stop
    cdef long long row_work     # about the entries one examination reads: its clock share
    # w's rounding: sum |a| when w was last summed from scratch, sum |da| of the steps
    # since, and the largest x_t'x_t (`_verify_optimum`)
    cdef double start_mass
    cdef double drift
    cdef double q_scale
    cdef bint seeded            # a warm start from outside (see `_verify_optimum`)

    def __init__(self, X, rows, p, y, C, alpha, double tol, max_iter, callback,
                 long long callback_every, time_limit, stop_flag, bint seeded=False):
        cdef int t
        rows = np.asarray(rows, dtype=np.int64)
        self.l = len(rows)
        # the loops index these by variable without bounds checks
        check_lengths(self.l, "rows", p=p, y=y, C=C, alpha=alpha)
        self.rows = Rows(X, rows, copy_dense=False)   # (X 2-D, the rows inside it)
        self.d = self.rows.n_features
        self.row_work = 1 + (X.nnz // max(1, X.shape[0]) if hasattr(X, "nnz") else self.d)
        self.p = np.array(p, dtype=np.float64)
        self.y = np.array(y, dtype=np.float64)
        self.C = np.array(C, dtype=np.float64)
        self.alpha = np.array(alpha, dtype=np.float64)
        self.eps = tol
        self.n_iter = 0
        self.w = np.zeros(self.d)
        self.QD = np.empty(self.l)
        self.v = np.zeros(self.l)
        self.status = np.empty(self.l, dtype=np.int8)
        # the caller groups the variables by class; Platt's passes go through the
        # examples in the data's order, which interleaves the classes (a9a: 4-5 times
        # fewer steps than class by class)
        self.visit = np.argsort(rows, kind="stable").astype(np.int32)
        self.free_list = np.empty(self.l, dtype=np.int32)
        self.free_pos = np.full(self.l, -1, dtype=np.int32)
        self.n_free = 0
        self.poller = StopConditions(max_iter, callback, callback_every, time_limit, stop_flag,
                             self._progress)
        self.stop = RUNNING
        self.q_scale = 0.0
        self.seeded = seeded
        with nogil:
            for t in range(self.l):
                self.QD[t] = self._row_dot(t, t)
                self.q_scale = max(self.q_scale, self.QD[t])
            self._sum_w()
            if seeded:
                self._pull_in_far_start()
            for t in range(self.l):
                self._update_status(t)
            self._refresh_free()

    cdef void _sum_w(self) noexcept nogil:
        """w = sum alpha_t y_t x_t from scratch, and the base of its rounding's
        estimate."""
        cdef Py_ssize_t f
        cdef int t
        for f in range(self.d):
            self.w[f] = 0.0
        self.start_mass = self.drift = 0.0
        for t in range(self.l):
            if self.alpha[t] != 0:
                self._add_row(t, self.alpha[t] * self.y[t])
                self.start_mass += fabs(self.alpha[t])

    cdef void _pull_in_far_start(self) noexcept nogil:
        """A start worse than a = 0 (f(a) = |w|^2 / 2 + p'a > 0) replaced by the best
        point of its ray, t a with t = -p'a / |w|^2 < 1/2, when y'a = 0 keeps it
        feasible (as `libsmo._core.smo.Solver._pull_in_far_start`); w is scaled with
        it. The sums are taken over a / max|a| and w / max|a|."""
        cdef Py_ssize_t f
        cdef int t
        cdef double scale = 0.0, ya = 0.0, size = 0.0, quad = 0.0, lin = 0.0, a, factor
        for t in range(self.l):
            scale = max(scale, fabs(self.alpha[t]))
        if scale == 0.0:
            return
        for t in range(self.l):
            a = self.alpha[t] / scale
            ya += self.y[t] * a
            size += fabs(a)
            lin += a * self.p[t]                     # p'a / scale
        for f in range(self.d):
            quad += (self.w[f] / scale) * (self.w[f] / scale)   # |w|^2 / scale^2
        if fabs(ya) > 1e-9 * size or not (quad > 0.0 and isfinite(quad)):
            return
        if scale * quad / 2 + lin <= 0.0:
            return   # f(a) <= f(0): the start is kept as it is
        factor = max(0.0, -lin / (scale * quad))
        for t in range(self.l):
            self.alpha[t] *= factor
        self._sum_w()

    cdef int _verify_optimum(self) noexcept nogil:
        """Before an optimum is declared: 0 when w's estimated rounding is a small share
        of tol, else 1 after w is summed again from scratch (the caller checks again)."""
        if not self.seeded or DBL_EPSILON * self.q_scale * (
                self.start_mass + self.drift) <= VERIFY_SHARE * self.eps:
            return 0
        self._sum_w()
        self._refresh_free()
        return 1

    # ---- rows ----------------------------------------------------------------------

    cdef inline double _dot_w(self, int t) noexcept nogil:
        """w'x_t"""
        return row_dot_vector(self.rows, t, &self.w[0])

    cdef inline void _add_row(self, int t, double a) noexcept nogil:
        """w += a x_t"""
        row_add_to_vector(self.rows, t, a, &self.w[0])

    cdef inline double _row_dot(self, int i, int j) noexcept nogil:
        """x_i'x_j"""
        return row_dot(self.rows, i, j)

    # ---- error cache and status ------------------------------------------------------

    cdef inline double _fresh_v(self, int t) noexcept nogil:
        """v_t = -y_t G_t = -y_t (y_t w'x_t + p_t), from w."""
        return -self._dot_w(t) - self.y[t] * self.p[t]

    cdef inline double _v(self, int t) noexcept nogil:
        if self.status[t] == FREE:
            return self.v[t]
        return self._fresh_v(t)

    cdef void _update_status(self, int t) noexcept nogil:
        cdef int last
        self.status[t] = bound_status(self.alpha[t], self.C[t])
        if self.status[t] == FREE and self.free_pos[t] < 0:
            self.free_pos[t] = self.n_free
            self.free_list[self.n_free] = t
            self.n_free += 1
        elif self.status[t] != FREE and self.free_pos[t] >= 0:
            last = self.free_list[self.n_free - 1]
            self.free_list[self.free_pos[t]] = last
            self.free_pos[last] = self.free_pos[t]
            self.free_pos[t] = -1
            self.n_free -= 1

    cdef void _refresh_free(self) noexcept nogil:
        cdef int k, t
        for k in range(self.n_free):
            t = self.free_list[k]
            self.v[t] = self._fresh_v(t)

    cdef inline bint _in_up(self, int t) noexcept nogil:
        return in_up(self.y[t], self.status[t])

    cdef inline bint _in_low(self, int t) noexcept nogil:
        return in_low(self.y[t], self.status[t])

    # ---- thresholds ------------------------------------------------------------------

    cdef inline void _offer(self, int t, double vt) noexcept nogil:
        """Let example t, with v_t = vt, raise m or lower M."""
        if self._in_up(t) and vt > self.m_up:
            self.m_up = vt
            self.i_up = t
        if self._in_low(t) and vt < self.M_low:
            self.M_low = vt
            self.j_low = t

    cdef void _reset_thresholds(self) noexcept nogil:
        self.m_up = -INFINITY
        self.M_low = INFINITY
        self.i_up = -1
        self.j_low = -1

    cdef void _free_thresholds(self, int i, int j) noexcept nogil:
        """m and M over the free examples and the pair (i, j) of the last step."""
        cdef int k, t
        self._reset_thresholds()
        for k in range(self.n_free):
            t = self.free_list[k]
            self._offer(t, self.v[t])
        if self.status[i] != FREE:
            self._offer(i, self._fresh_v(i))
        if self.status[j] != FREE:
            self._offer(j, self._fresh_v(j))

    cdef double _exact_thresholds(self) noexcept nogil:
        """m and M over every example, from w; returns m - M."""
        cdef int t
        self._reset_thresholds()
        for t in range(self.l):
            self._offer(t, self._fresh_v(t))
        if self.i_up < 0 or self.j_low < 0:
            return -INFINITY
        return self.m_up - self.M_low

    # ---- the two-variable step -------------------------------------------------------

    cdef int take_step(self, int i, int j, bint require_progress) noexcept nogil:
        """Solve the subproblem on (i, j), update w, the error cache and the
        thresholds. Returns 1 after a step, 0 when the pair cannot move."""
        cdef double old_ai = self.alpha[i], old_aj = self.alpha[j]
        cdef double ai = old_ai, aj = old_aj
        cdef double vi, vj
        if i == j or i < 0 or j < 0:
            return 0
        vi = self._v(i)
        vj = self._v(j)
        solve_pair(-self.y[i] * vi, -self.y[j] * vj, self.y[i], self.y[j], self.QD[i],
                   self.QD[j], self.y[i] * self.y[j] * self._row_dot(i, j), self.C[i],
                   self.C[j], &ai, &aj)
        if require_progress and fabs(aj - old_aj) < 1e-12 * (aj + old_aj + 1e-12):
            return 0
        self._add_row(i, (ai - old_ai) * self.y[i])
        self._add_row(j, (aj - old_aj) * self.y[j])
        self.drift += fabs(ai - old_ai) + fabs(aj - old_aj)
        self.alpha[i] = ai
        self.alpha[j] = aj
        self._update_status(i)
        self._update_status(j)
        self._refresh_free()
        self._free_thresholds(i, j)
        self.n_iter += 1
        return 1

    cdef int examine_example(self, int t) noexcept nogil:
        """Platt's examineExample with Keerthi's thresholds: 1 if a step was taken."""
        cdef double vt = self._v(t)
        cdef bint up, low
        if self.status[t] != FREE:
            self._offer(t, vt)
        up = self._in_up(t) and self.j_low >= 0 and vt > self.M_low + self.eps
        low = self._in_low(t) and self.i_up >= 0 and vt < self.m_up - self.eps
        if not up and not low:
            return 0
        # the partner that defines the threshold t violates most
        if up and (not low or vt - self.M_low > self.m_up - vt):
            return self.take_step(t, self.j_low, True)
        return self.take_step(self.i_up, t, True)

    # ---- main loop -------------------------------------------------------------------

    cdef inline bint _due(self) noexcept nogil:
        if self.poller.due(self.n_iter):
            self.stop = self.poller.stop
            return True
        return False

    cdef inline bint _due_after_examination(self) noexcept nogil:
        """After an examination, stepped or not: a pass over the data without a step
        is O(nnz), so the clock is read once enough of those have accumulated."""
        if self.poller.due_after(self.n_iter, self.row_work):
            self.stop = self.poller.stop
            return True
        return False

    cdef void _run(self) noexcept nogil:
        cdef bint examine_all = True
        cdef int k, changed, inner
        self._reset_thresholds()
        if self.n_free > 0:
            self._free_thresholds(self.free_list[0], self.free_list[0])
        while True:
            changed = 0
            if examine_all:
                for k in range(self.l):
                    if self.examine_example(self.visit[k]):
                        changed += 1
                    if self._due_after_examination():
                        return
            else:
                # Keerthi's inner loop: the worst pair of the free set until it is
                # optimal within tol
                while self.m_up - self.M_low > self.eps:
                    inner = self.take_step(self.i_up, self.j_low, True)
                    if inner == 0:
                        break
                    changed += 1
                    if self._due():
                        return
            if examine_all:
                examine_all = False
                if changed == 0:
                    # LIBSVM's criterion on every example, from w (summed again when
                    # its rounding may matter)
                    if self._exact_thresholds() <= self.eps and (
                            self._verify_optimum() == 0
                            or self._exact_thresholds() <= self.eps):
                        self.stop = OPTIMAL
                        return
                    # a violating pair whose step the progress test refused: take it
                    self.take_step(self.i_up, self.j_low, False)
                    examine_all = True
                    if self._due():
                        return
            elif changed == 0:
                examine_all = True

    # ---- results ---------------------------------------------------------------------

    def _progress(self):
        return {"n_iter": self.n_iter, "active_size": self.l,
                "violation": self.m_up - self.M_low, "objective": self._objective()}

    cdef double _objective(self):
        """1/2 a'Qa + p'a = 1/2 |w|^2 + p'a."""
        cdef Py_ssize_t f
        cdef int t
        cdef double ww = 0.0, pa = 0.0
        for f in range(self.d):
            ww += self.w[f] * self.w[f]
        for t in range(self.l):
            pa += self.p[t] * self.alpha[t]
        return 0.5 * ww + pa

    def run(self):
        """Optimise; returns the `Solution` (see `libsmo._core.smo.solve`)."""
        try:
            with nogil:
                self._run()
        finally:
            self.poller.release()
        if self.stop == EXCEPTION:
            raise self.poller.pending_exc
        cdef int t
        G = np.empty(self.l)
        cdef double[::1] gradient = G
        for t in range(self.l):
            gradient[t] = -self.y[t] * self._fresh_v(t)
        return make_solution(np.asarray(self.alpha).copy(), G, np.asarray(self.p),
                      np.asarray(self.y), np.asarray(self.C), False, self.n_iter, self.stop)


def solve_linear(X, rows, p, y, C, alpha=None, *, double tol=1e-3, max_iter=None,
                 callback=None, long long callback_every=1000, time_limit=None,
                 stop_flag=None, bint seeded=False):
    """Minimise 1/2 a'Qa + p'a, Q_st = y_s y_t x_s'x_t, subject to y'a = y'alpha0 and
    0 <= a <= C, keeping w = sum alpha_t y_t x_t instead of kernel rows.

    Parameters
    ----------
    X : ndarray of shape (n, d), C-contiguous float64, or csr_matrix
        Validated rows (float64 data, int32 sorted indices); not copied.
    rows : array of int of shape (l,)
        The rows of X of the l variables.
    p, y, C, alpha, tol, max_iter, callback, callback_every, time_limit, stop_flag, seeded
        As for `libsmo._core.smo.solve`.

    Returns
    -------
    Solution
        As `libsmo._core.smo.solve` returns. (w is not part of it: a fit keeps every pair's
        result, and 5,460 pairs of sector's 55,197 features would hold 2.4 GB.)

    Raises
    ------
    ValueError
        X is not 2-D, or p, y, C or alpha without one entry per row (`LinearSolver`).
    IndexError
        A row outside X.
    """
    if alpha is None:
        alpha = np.zeros(len(rows))
    solver = LinearSolver(X, rows, p, y, C, alpha, tol, max_iter, callback, callback_every,
                          time_limit, stop_flag, seeded)
    return solver.run()
