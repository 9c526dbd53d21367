# cython: language_level=3
"""Platt's Sequential Minimal Optimization on LIBSVM's general dual problem.

    min_a  f(a) = 1/2 a'Qa + p'a   s.t.  y'a = Delta,  0 <= a_i <= C_i,  y_i in {+1, -1}

The error cache is the gradient G = Qa + p, kept for every variable and updated with the
two Q rows of each step. Optimality is LIBSVM's: with v_t = -y_t G_t,

    m(a) = max over I_up  of v_t,  I_up  = {t : a_t < C_t, y_t = +1  or  a_t > 0, y_t = -1}
    M(a) = min over I_low of v_t,  I_low = {t : a_t < C_t, y_t = -1  or  a_t > 0, y_t = +1}

and the solver stops when m(a) - M(a) <= tol (Keerthi et al. 2001 call m and M b_low and
b_up; Fan, Chen and Lin 2005 use the same pair).

Two partner strategies share one takeStep:
- "second_order" (default): examineExample's first variable is the worst violator
  i = argmax m, its partner j minimises the second-order decrease -(v_i - v_j)^2 / eta
  over I_low (Fan, Chen and Lin 2005, LIBSVM's WSS2);
- "platt": Platt's outer loop, alternating passes over all examples with passes over the
  non-bound ones; examineExample(i2) tests i2 against Keerthi's two thresholds and tries
  partners in Platt's order (largest |E1 - E2|, then the non-bound ones from a random
  start, then all).

The nu variant (nu-SVC, nu-SVR) has a second equality constraint, one per sign of y:
a step then pairs two variables of the same sign, and every threshold above (m, M, the
shrinking bounds, rho) is kept per sign group (LIBSVM's Solver_NU). Without it there is
one group.

Shrinking follows LIBSVM: every min(l, 1000) steps, bound variables that cannot take part
in a violating pair leave the active set (a prefix of the permuted variables); before
stopping, the gradient of the shrunk ones is rebuilt from G_bar and optimality is checked
on the whole problem.

The loop runs without the GIL; `libsmo._core.stopping.StopConditions` decides when it
must stop (step cap, time limit, stop flag, Ctrl-C, callback). The result is a
`libsmo._core.solution.Solution`.
"""
import numpy as np
cimport cython
cimport numpy as cnp
from libc.math cimport fabs, INFINITY
from libsmo._core.pair_step cimport (FREE, LOWER_BOUND, UPPER_BOUND, bound_status, in_low,
                                     in_up, solve_pair)
from libsmo._core.qmatrix cimport QMatrix
from libsmo._core.stopping cimport StopConditions, RUNNING, OPTIMAL, EXCEPTION, NO_MEMORY
from libsmo._core.solution import make_solution


cdef extern from "inner_loops.h" nogil:
    int smo_argmax_up(int n, const double* G, const double* y, const double* pen,
                      double* out_max)
    int smo_partner(int n, const double* G, const double* y, const double* pen,
                    const double* QD, const float* Qi, double QD_i, double y_i,
                    double max_up, double* low_max, double* obj_min)
    void smo_update_gradient(int n, double* G, const float* Qi, double dai,
                             const float* Qj, double daj)
    void smo_add_scaled_row(int n, double* out, double coef, const float* Qi)

cnp.import_array()


SELECTIONS = ("second_order", "platt")


@cython.final
cdef class Solver:
    """State of one SMO run; use the module function `solve`."""

    cdef QMatrix Q
    cdef int l
    cdef int active_size
    cdef double eps
    cdef bint shrinking
    cdef bint unshrunk
    cdef bint platt
    cdef long long n_iter
    cdef double[::1] alpha
    cdef double[::1] G
    cdef double[::1] G_bar
    cdef double[::1] p
    cdef double[::1] y
    cdef double[::1] C
    cdef double[::1] QD
    cdef signed char[::1] status
    cdef int[::1] active_set
    cdef bint nu
    # membership of I_up / I_low per sign group as 0.0 (in) or -inf (out), kept with
    # the status: the selection loops mask with an addition instead of a branch
    cdef double[:, ::1] pen_up
    cdef double[:, ::1] pen_low
    # Keerthi's thresholds over the active set, per sign group (platt strategy)
    cdef double m_up[2]
    cdef double M_low[2]
    cdef int i_up[2]
    cdef int j_low[2]
    cdef unsigned long long rng
    cdef StopConditions poller
    cdef int stop

    def __init__(self, QMatrix Q, p, y, C, alpha, double tol, bint shrinking,
                 str selection, max_iter, callback, long long callback_every, bint nu,
                 time_limit, stop_flag):
        cdef int i
        self.Q = Q
        self.nu = nu
        self.l = len(p)
        self.active_size = self.l
        self.eps = tol
        self.shrinking = shrinking
        self.unshrunk = False
        self.platt = selection == "platt"
        self.n_iter = 0
        self.p = np.array(p, dtype=np.float64)
        self.y = np.array(y, dtype=np.float64)
        self.C = np.array(C, dtype=np.float64)
        self.alpha = np.array(alpha, dtype=np.float64)
        self.QD = Q.diagonal()
        self.G = np.empty(self.l)
        self.G_bar = np.zeros(self.l)
        self.status = np.empty(self.l, dtype=np.int8)
        self.pen_up = np.full((2, self.l), -np.inf)
        self.pen_low = np.full((2, self.l), -np.inf)
        self.active_set = np.arange(self.l, dtype=np.int32)
        self.rng = 0x9E3779B97F4A7C15
        self.poller = StopConditions(max_iter, callback, callback_every, time_limit, stop_flag,
                             self._progress)
        self.stop = RUNNING
        for i in range(self.l):
            self._update_status(i)

    # ---- small helpers -------------------------------------------------------------

    cdef inline void _update_status(self, int i) noexcept nogil:
        cdef int g = self._group(i)
        self.status[i] = bound_status(self.alpha[i], self.C[i])
        self.pen_up[g, i] = 0.0 if self._in_up(i) else -INFINITY
        self.pen_low[g, i] = 0.0 if self._in_low(i) else -INFINITY

    cdef inline bint _in_up(self, int t) noexcept nogil:
        return in_up(self.y[t], self.status[t])

    cdef inline bint _in_low(self, int t) noexcept nogil:
        return in_low(self.y[t], self.status[t])

    cdef inline int _group(self, int t) noexcept nogil:
        """Sign group of variable t: the nu variant keeps y=+1 and y=-1 apart."""
        return 1 if self.nu and self.y[t] < 0 else 0

    cdef inline unsigned long long _random(self) noexcept nogil:
        # xorshift64: a fixed seed keeps Platt's random starts reproducible
        self.rng ^= self.rng << 13
        self.rng ^= self.rng >> 7
        self.rng ^= self.rng << 17
        return self.rng

    cdef void _swap(self, int i, int j) noexcept nogil:
        cdef int g
        self.Q.swap_index(i, j)
        self.y[i], self.y[j] = self.y[j], self.y[i]
        self.G[i], self.G[j] = self.G[j], self.G[i]
        self.status[i], self.status[j] = self.status[j], self.status[i]
        self.alpha[i], self.alpha[j] = self.alpha[j], self.alpha[i]
        self.p[i], self.p[j] = self.p[j], self.p[i]
        self.active_set[i], self.active_set[j] = self.active_set[j], self.active_set[i]
        self.G_bar[i], self.G_bar[j] = self.G_bar[j], self.G_bar[i]
        self.C[i], self.C[j] = self.C[j], self.C[i]
        self.QD[i], self.QD[j] = self.QD[j], self.QD[i]
        for g in range(2):
            self.pen_up[g, i], self.pen_up[g, j] = self.pen_up[g, j], self.pen_up[g, i]
            self.pen_low[g, i], self.pen_low[g, j] = self.pen_low[g, j], self.pen_low[g, i]

    # ---- gradient ------------------------------------------------------------------

    cdef int _init_gradient(self) noexcept nogil:
        cdef int i, l = self.l
        cdef float* Qi
        for i in range(l):
            self.G[i] = self.p[i]
            self.G_bar[i] = 0.0
        for i in range(l):
            if self.status[i] != LOWER_BOUND:
                Qi = self.Q.get_row(i, l)
                if Qi == NULL:
                    return -1
                smo_add_scaled_row(l, &self.G[0], self.alpha[i], Qi)
                if self.status[i] == UPPER_BOUND:
                    smo_add_scaled_row(l, &self.G_bar[0], self.C[i], Qi)
        return 0

    cdef int _reconstruct_gradient(self) noexcept nogil:
        """Rebuild G of the shrunk variables from G_bar and the free active ones."""
        cdef int i, j, l = self.l, active = self.active_size, n_free = 0
        cdef float* Qi
        cdef double g
        if active == l:
            return 0
        for j in range(active, l):
            self.G[j] = self.G_bar[j] + self.p[j]
        for j in range(active):
            if self.status[j] == FREE:
                n_free += 1
        # pick the cheaper order of the two loops, as LIBSVM does
        if <double>n_free * l > 2.0 * active * (l - active):
            for i in range(active, l):
                Qi = self.Q.get_row(i, active)
                if Qi == NULL:
                    return -1
                g = 0.0
                for j in range(active):
                    if self.status[j] == FREE:
                        g += self.alpha[j] * Qi[j]
                self.G[i] += g
        else:
            for i in range(active):
                if self.status[i] == FREE:
                    Qi = self.Q.get_row(i, l)
                    if Qi == NULL:
                        return -1
                    smo_add_scaled_row(l - active, &self.G[active], self.alpha[i],
                                       &Qi[active])
        return 0

    # ---- the two-variable step ------------------------------------------------------

    cdef int take_step(self, int i, int j, bint require_progress) noexcept nogil:
        """Solve the two-variable subproblem on (i, j) analytically, clip it to the box
        and update the gradient. Returns 1 after a step, 0 when the pair cannot move
        (only checked when require_progress), -1 when memory ran out."""
        cdef int active = self.active_size
        cdef float* Qi = self.Q.get_row(i, active)
        cdef float* Qj
        cdef double Ci = self.C[i], Cj = self.C[j]
        cdef double old_ai = self.alpha[i], old_aj = self.alpha[j]
        cdef double ai = old_ai, aj = old_aj
        cdef double dai, daj
        cdef bint i_was_upper, j_was_upper
        if Qi == NULL:
            return -1
        solve_pair(self.G[i], self.G[j], self.y[i], self.y[j], self.QD[i], self.QD[j],
                   Qi[j], Ci, Cj, &ai, &aj)
        dai = ai - old_ai
        daj = aj - old_aj
        if require_progress and fabs(daj) < 1e-12 * (aj + old_aj + 1e-12):
            return 0
        Qj = self.Q.get_row(j, active)
        if Qj == NULL:
            return -1
        # Qi is still valid: the cache always keeps the two most recent rows
        self.alpha[i] = ai
        self.alpha[j] = aj
        smo_update_gradient(active, &self.G[0], Qi, dai, Qj, daj)
        i_was_upper = self.status[i] == UPPER_BOUND
        j_was_upper = self.status[j] == UPPER_BOUND
        self._update_status(i)
        self._update_status(j)
        if i_was_upper != (self.status[i] == UPPER_BOUND):
            if self._update_G_bar(i, -Ci if i_was_upper else Ci) < 0:
                return -1
        if j_was_upper != (self.status[j] == UPPER_BOUND):
            if self._update_G_bar(j, -Cj if j_was_upper else Cj) < 0:
                return -1
        self.n_iter += 1
        return 1

    cdef int _update_G_bar(self, int i, double coef) noexcept nogil:
        cdef int l = self.l
        cdef float* Qi = self.Q.get_row(i, l)
        if Qi == NULL:
            return -1
        smo_add_scaled_row(l, &self.G_bar[0], coef, Qi)
        return 0

    # ---- second-order selection (Fan, Chen and Lin 2005) ----------------------------

    cdef int select_second_order(self, int* out_i, int* out_j) noexcept nogil:
        """Worst violator i and its second-order partner j (within i's sign group for
        the nu variant). Returns 1 when optimal (m - M < eps in every group), 0 with a
        pair, -1 when memory ran out. The loops are inner_loops.h's."""
        cdef int g, j = -1, j_g, active = self.active_size
        cdef int n_groups = 2 if self.nu else 1
        cdef int i_g[2]
        cdef double v_max[2]
        cdef double low[2]
        cdef double obj_min = INFINITY, obj_g
        cdef float* Qi
        cdef double* G = &self.G[0]
        cdef double* y = &self.y[0]
        for g in range(2):
            i_g[g] = -1
            v_max[g] = -INFINITY
            low[g] = -INFINITY
        # the worst violator of each group: max of v_t = -y_t G_t over I_up
        for g in range(n_groups):
            i_g[g] = smo_argmax_up(active, G, y, &self.pen_up[g, 0], &v_max[g])
        # its partner over I_low: the largest second-order decrease; across the groups
        # of the nu variant the smaller objective wins, the later variable on a tie
        for g in range(n_groups):
            if i_g[g] == -1:
                continue
            Qi = self.Q.get_row(i_g[g], active)
            if Qi == NULL:
                return -1
            j_g = smo_partner(active, G, y, &self.pen_low[g, 0], &self.QD[0], Qi,
                              self.QD[i_g[g]], y[i_g[g]], v_max[g], &low[g], &obj_g)
            if j_g != -1 and (obj_g < obj_min or (obj_g == obj_min and j_g > j)):
                j = j_g
                obj_min = obj_g
        if (v_max[0] + low[0] < self.eps and v_max[1] + low[1] < self.eps) or j == -1:
            return 1
        out_i[0] = i_g[self._group(j)]
        out_j[0] = j
        return 0

    # ---- Platt's examineExample with Keerthi's thresholds ---------------------------

    cdef double _thresholds(self) noexcept nogil:
        """Per group g: m = max v over I_up (at i_up) and M = min v over I_low (at
        j_low). Returns the largest violation m - M over the groups."""
        cdef int t, g
        cdef double v, worst = -INFINITY
        for g in range(2):
            self.m_up[g] = -INFINITY
            self.M_low[g] = INFINITY
            self.i_up[g] = -1
            self.j_low[g] = -1
        for t in range(self.active_size):
            v = -self.y[t] * self.G[t]
            g = self._group(t)
            if self._in_up(t) and v > self.m_up[g]:
                self.m_up[g] = v
                self.i_up[g] = t
            if self._in_low(t) and v < self.M_low[g]:
                self.M_low[g] = v
                self.j_low[g] = t
        for g in range(2):
            if self.i_up[g] != -1 and self.j_low[g] != -1:
                worst = max(worst, self.m_up[g] - self.M_low[g])
        return worst

    cdef int _step_and_refresh(self, int i, int j) noexcept nogil:
        cdef int r
        if i == j or j < 0 or self._group(i) != self._group(j):
            return 0
        r = self.take_step(i, j, True)
        if r > 0:
            self._thresholds()
        return r

    cdef int examine_example(self, int i2) noexcept nogil:
        """Platt's examineExample: 1 if a step was taken with i2, 0 if i2 satisfies the
        optimality conditions or no partner moves it, -1 on memory failure."""
        cdef int g = self._group(i2)
        cdef double v2 = -self.y[i2] * self.G[i2]
        cdef bint viol_up = self._in_up(i2) and v2 > self.M_low[g] + self.eps
        cdef bint viol_low = self._in_low(i2) and v2 < self.m_up[g] - self.eps
        cdef int partner, k, start, n = self.active_size, r
        if not viol_up and not viol_low:
            return 0
        # first choice: the partner with the largest |E1 - E2|
        if viol_up and (not viol_low or v2 - self.M_low[g] > self.m_up[g] - v2):
            partner = self.j_low[g]
        else:
            partner = self.i_up[g]
        r = self._step_and_refresh(i2, partner)
        if r != 0:
            return r
        # then the non-bound examples, from a random start
        start = <int>(self._random() % <unsigned long long>n)
        for k in range(n):
            partner = (start + k) % n
            if self.status[partner] == FREE:
                r = self._step_and_refresh(i2, partner)
                if r != 0:
                    return r
        # then every example, from a random start
        start = <int>(self._random() % <unsigned long long>n)
        for k in range(n):
            partner = (start + k) % n
            r = self._step_and_refresh(i2, partner)
            if r != 0:
                return r
        return 0

    # ---- shrinking ------------------------------------------------------------------

    cdef inline bint _be_shrunk(self, int i, double* m_up, double* neg_M_low) noexcept nogil:
        """A bound variable leaves the active set when it cannot join a violating pair
        of its group, even if the thresholds move a little."""
        cdef int g = self._group(i)
        if self.status[i] == UPPER_BOUND:
            if self.y[i] > 0:
                return -self.G[i] > m_up[g]
            return -self.G[i] > neg_M_low[g]
        if self.status[i] == LOWER_BOUND:
            if self.y[i] > 0:
                return self.G[i] > neg_M_low[g]
            return self.G[i] > m_up[g]
        return False

    cdef int do_shrinking(self) noexcept nogil:
        cdef int i, g
        cdef double m_up[2]
        cdef double neg_M_low[2]
        cdef double v
        for g in range(2):
            m_up[g] = -INFINITY
            neg_M_low[g] = -INFINITY
        for i in range(self.active_size):
            v = -self.y[i] * self.G[i]
            g = self._group(i)
            if self._in_up(i) and v >= m_up[g]:
                m_up[g] = v
            if self._in_low(i) and -v >= neg_M_low[g]:
                neg_M_low[g] = -v
        if (not self.unshrunk and m_up[0] + neg_M_low[0] <= self.eps * 10
                and m_up[1] + neg_M_low[1] <= self.eps * 10):
            # close to the end: bring everything back once, so that nothing shrunk
            # too early stays out
            self.unshrunk = True
            if self._reconstruct_gradient() < 0:
                return -1
            self.active_size = self.l
        i = 0
        while i < self.active_size:
            if self._be_shrunk(i, m_up, neg_M_low):
                self.active_size -= 1
                while self.active_size > i:
                    if not self._be_shrunk(self.active_size, m_up, neg_M_low):
                        self._swap(i, self.active_size)
                        break
                    self.active_size -= 1
            i += 1
        return 0

    cdef int _unshrink_all(self) noexcept nogil:
        """Rebuild the whole gradient and make every variable active again."""
        if self._reconstruct_gradient() < 0:
            return -1
        self.active_size = self.l
        return 0

    # ---- polling --------------------------------------------------------------------

    cdef inline bint _due(self) noexcept nogil:
        if self.poller.due(self.n_iter):
            self.stop = self.poller.stop
            return True
        return False

    def _progress(self):
        return {"n_iter": self.n_iter, "active_size": self.active_size,
                "violation": self._thresholds(), "objective": self._objective()}

    cdef double _objective(self):
        cdef int i
        cdef double v = 0.0
        for i in range(self.l):
            v += self.alpha[i] * (self.G[i] + self.p[i])
        return 0.5 * v

    # ---- main loops -----------------------------------------------------------------

    cdef void _run_second_order(self) noexcept nogil:
        cdef int i = -1, j = -1, r
        cdef int counter = self.l if self.l < 1000 else 1000
        while True:
            counter -= 1
            if counter == 0:
                counter = self.l if self.l < 1000 else 1000
                if self.shrinking and self.do_shrinking() < 0:
                    self.stop = NO_MEMORY
                    return
            r = self.select_second_order(&i, &j)
            if r < 0:
                self.stop = NO_MEMORY
                return
            if r == 1:
                # optimal on the active set: check the whole problem
                if self._unshrink_all() < 0:
                    self.stop = NO_MEMORY
                    return
                r = self.select_second_order(&i, &j)
                if r < 0:
                    self.stop = NO_MEMORY
                    return
                if r == 1:
                    self.stop = OPTIMAL
                    return
                counter = 1  # shrink at the next step
            if self.take_step(i, j, False) < 0:
                self.stop = NO_MEMORY
                return
            if self._due():
                return

    cdef void _run_platt(self) noexcept nogil:
        cdef bint examine_all = True
        cdef int k, changed, r
        cdef long long last_shrink = 0
        cdef long long shrink_every = self.l if self.l < 1000 else 1000
        self._thresholds()
        while True:
            changed = 0
            k = 0
            while k < self.active_size:
                if examine_all or self.status[k] == FREE:
                    r = self.examine_example(k)
                    if r < 0:
                        self.stop = NO_MEMORY
                        return
                    if r > 0:
                        changed += 1
                        if self._due():
                            return
                k += 1
            if self.shrinking and self.n_iter - last_shrink >= shrink_every:
                last_shrink = self.n_iter
                if self.do_shrinking() < 0:
                    self.stop = NO_MEMORY
                    return
                self._thresholds()
            if examine_all:
                examine_all = False
                if changed == 0:
                    if self._thresholds() <= self.eps and self.active_size == self.l:
                        self.stop = OPTIMAL
                        return
                    if self._unshrink_all() < 0:
                        self.stop = NO_MEMORY
                        return
                    if self._thresholds() <= self.eps:
                        self.stop = OPTIMAL
                        return
                    examine_all = True
            elif changed == 0:
                examine_all = True

    def run(self):
        """Optimise; returns the `Solution` (see `solve`)."""
        try:
            with nogil:
                if self._init_gradient() < 0:
                    self.stop = NO_MEMORY
                elif self.platt:
                    self._run_platt()
                else:
                    self._run_second_order()
        finally:
            self.poller.release()
        if self.stop == EXCEPTION:
            raise self.poller.pending_exc
        if self.stop == NO_MEMORY:
            raise MemoryError("libsmo: cannot allocate memory for the kernel cache")
        if self.active_size < self.l:
            with nogil:
                if self._unshrink_all() < 0:
                    self.stop = NO_MEMORY
            if self.stop == NO_MEMORY:
                raise MemoryError("libsmo: cannot allocate memory for the kernel cache")
        # the caller's order: variable k of the solver is the caller's active_set[k]
        cdef int k, t
        arrays = [np.empty(self.l) for _ in range(5)]
        cdef double[::1] alpha = arrays[0], G = arrays[1], p = arrays[2], y = arrays[3]
        cdef double[::1] C = arrays[4]
        with nogil:
            for k in range(self.l):
                t = self.active_set[k]
                alpha[t] = self.alpha[k]
                G[t] = self.G[k]
                p[t] = self.p[k]
                y[t] = self.y[k]
                C[t] = self.C[k]
        return make_solution(*arrays, self.nu, self.n_iter, self.stop)


def solve(QMatrix Q, p, y, C, alpha=None, *, double tol=1e-3, bint shrinking=True,
          str selection="second_order", max_iter=None, callback=None,
          long long callback_every=1000, bint nu=False, time_limit=None, stop_flag=None):
    """Minimise 1/2 a'Qa + p'a subject to y'a = y'alpha0 and 0 <= a <= C.

    Parameters
    ----------
    Q : QMatrix
        Rows of Q, cached; permuted by the solver as it shrinks (use a fresh one per call).
    p, y, C : array-like of shape (l,)
        Linear term, signs (+1/-1) and per-variable upper bounds (> 0).
    alpha : array-like of shape (l,), optional
        Feasible starting point (default zeros); fixes Delta = y'alpha.
    tol : float
        Stop when m(a) - M(a) <= tol.
    shrinking : bool
    selection : {"second_order", "platt"}
    max_iter : int or None
        Stop after this many steps (status "max_iter").
    callback : callable or None
        Called with a progress dict every `callback_every` steps (and checked at most
        every few milliseconds); returning False stops the solver (status "stopped").
    callback_every : int
    nu : bool
        The nu variant: a second equality constraint, sum of a over y = +1 and over
        y = -1 each fixed by the starting point (nu-SVC, nu-SVR).
    time_limit : float or None
        Seconds after which the solver stops (status "time_limit"), checked every
        32 steps.
    stop_flag : int8 array of shape (1,) or None
        Another thread sets stop_flag[0] = 1 to stop this solver (status "stopped");
        checked every 32 steps.

    Returns
    -------
    Solution
        alpha, gradient (in the caller's order), rho, r (nu variant: (r1 + r2) / 2,
        else 0), objective, n_iter, status, and finite: whether every alpha and gradient
        entry is finite (a kernel that overflows makes them inf or NaN).
    """
    if selection not in SELECTIONS:
        raise ValueError(f"selection must be one of {SELECTIONS}, got {selection!r}")
    l = len(p)
    if alpha is None:
        alpha = np.zeros(l)
    solver = Solver(Q, p, y, C, alpha, tol, shrinking, selection, max_iter, callback,
                    callback_every, nu, time_limit, stop_flag)
    return solver.run()
