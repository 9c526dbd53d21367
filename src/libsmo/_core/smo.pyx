# cython: language_level=3
"""Platt's Sequential Minimal Optimization on LIBSVM's general dual problem.

    min_a  f(a) = 1/2 a'Qa + p'a   s.t.  y'a = Delta,  0 <= a_i <= C_i,  y_i in {+1, -1}

The error cache is the gradient G = Qa + p, kept for every variable and updated with the two Q
rows of each step. Optimality is LIBSVM's: with v_t = -y_t G_t,

    m(a) = max over I_up  of v_t,  I_up  = {t : a_t < C_t, y_t = +1  or  a_t > 0, y_t = -1}
    M(a) = min over I_low of v_t,  I_low = {t : a_t < C_t, y_t = -1  or  a_t > 0, y_t = +1}

and the solver stops when m(a) - M(a) <= tol (Keerthi et al. 2001 call m and M b_low and
b_up; Fan, Chen and Lin 2005 use the same pair).

Two partner strategies share one takeStep: "second_order" (default, `Solver.optimize` here)
takes the worst violator i = argmax m and the partner j that minimises the second-order
decrease -(v_i - v_j)^2 / eta over I_low (Fan, Chen and Lin 2005, LIBSVM's WSS2); "platt"
(`libsmo._core.platt_smo.PlattSolver`) is Platt's outer loop with Keerthi's two thresholds.

The nu variant (nu-SVC, nu-SVR) has a second equality constraint, one per sign of y: a step
then pairs two variables of the same sign, and every threshold above (m, M, the shrinking
bounds, rho) is kept per sign group (LIBSVM's Solver_NU), else one group.

Shrinking follows LIBSVM: every min(l, 1000) steps, bound variables that cannot take part in a
violating pair leave the active set (a prefix of the permuted variables); before stopping, the
gradient of the shrunk ones is rebuilt from G_bar and optimality checked on them all.

A warm start from outside (`seeded`: train's init, a grid's alpha seeding; not LIBSVM's
own starts, whose steps stay LIBSVM's) can be far from the optimum, and the
incremental gradient then loses what it needs: with |a| ~ 1e20, G = Qa + p is a
difference of terms of 1e20 whose rounding is ~1e4. So a start worse than a = 0 is first
moved to the best point of its own ray (`_pull_in_far_start`), and an optimum is
declared only on a gradient whose rounding, estimated from the alphas it was summed over
(`start_mass`, `drift`), is a small share of tol: else G is computed again from scratch
and the steps go on from it (`_verify_optimum`).

The loop runs without the GIL; `libsmo._core.stopping.StopConditions` decides when it must stop
(step cap, time limit, stop flag, Ctrl-C, callback) after every step and every row of the
gradient's (re)construction. What can fail returns -1 and records why in `stop`. The result is
a `Solution`. On the kernel's threads the passes over long active sets are shared
(step_loops.h): the same results, so the same steps.
"""
import numpy as np
cimport numpy as cnp
from libc.float cimport DBL_EPSILON
from libc.math cimport fabs, isfinite, INFINITY
from libsmo._core.pair_step cimport (FREE, LOWER_BOUND, UPPER_BOUND, bound_status, in_low,
                                     in_up, solve_pair)
from libsmo._core.qmatrix cimport QMatrix
from libsmo._core.thread_governor cimport (smo_governor_seconds, smo_governor_start,
                                           smo_process_cpu_seconds)
from libsmo._core.rows cimport MANY_ROWS
from libsmo._core.stopping cimport StopConditions, RUNNING, OPTIMAL, EXCEPTION, NO_MEMORY
from libsmo._core.checks import check_lengths
from libsmo._core.solution import make_solution
from libsmo._core.stopping import SolverStopped


cdef extern from "step_loops.h" nogil:
    int smo_argmax_up_threads(int n, const double* G, const double* y, const double* pen,
                              double* out_max, int threads)
    int smo_partner_threads(int n, const double* G, const double* y, const double* pen,
                            const double* QD, const float* Qi, double QD_i, double y_i,
                            double max_up, double* low_max, double* obj_min, int threads)
    void smo_update_gradient_threads(int n, double* G, const float* Qi, double dai,
                                     const float* Qj, double daj, int threads)
    void smo_add_scaled_row_threads(int n, double* out, double coef, const float* Qi,
                                    int threads)
    int smo_keep_largest(double* values, int* items, int n, int want, double v, int t)

# the gradient's reconstruction adds this many rows of Q in one region (`add_rows`)
cdef enum:
    ADDED_ROWS = 256

# An optimum is declared on an incremental gradient only while its estimated rounding,
# DBL_EPSILON * max|Q_ii| * (sum |a| at its last computation + sum |da| since), is at
# most this share of tol (m - M moves by twice the rounding at most): else G is computed
# again first. From a = 0 the estimate stays many orders below it (a9a, C = 1: 1e-12).
cdef double VERIFY_SHARE = 0.01

cnp.import_array()


cdef double _largest_magnitude(const double[::1] values) noexcept nogil:
    """max |values| (0 for none; NaN where one is NaN), as np.max(np.abs(values),
    initial=0) without its temporary array."""
    cdef Py_ssize_t i
    cdef double largest = 0.0, v
    for i in range(values.shape[0]):
        v = fabs(values[i])
        if v != v:
            return v
        if v > largest:
            largest = v
    return largest


cdef class Solver:
    """State of one SMO run with LIBSVM's second-order selection; Platt's loop is the
    subclass `libsmo._core.platt_smo.PlattSolver`. Use `libsmo._core.solvers.solve`,
    whose arguments these are; ValueError where p, y, C, alpha, gradient or
    gradient_bar has not one entry per variable of Q (the loops index them unchecked)."""

    def __init__(self, QMatrix Q, p, y, C, alpha, double tol, bint shrinking, max_iter,
                 callback, long long callback_every, bint nu, time_limit, stop_flag,
                 gradient=None, gradient_bar=None, bint seeded=False):
        cdef int i
        if (gradient is None) != (gradient_bar is None):
            raise ValueError("give both gradient and gradient_bar, or neither")
        given = {} if gradient is None else dict(gradient=gradient,
                                                 gradient_bar=gradient_bar)
        check_lengths(Q.n_variables, "Q's variables", p=p, y=y, C=C, alpha=alpha, **given)
        self.Q = Q
        self.nu = nu
        self.l = Q.n_variables
        self.active_size = self.l
        self.eps = tol
        self.shrinking = shrinking
        self.unshrunk = False
        self.n_iter = self.few_free_rebuilds = 0
        self.p = np.array(p, dtype=np.float64)
        self.y = np.array(y, dtype=np.float64)
        self.C = np.array(C, dtype=np.float64)
        self.alpha = np.array(alpha, dtype=np.float64)
        self.QD = Q.diagonal()
        self.n_threads = Q.kernel.n_threads
        # (the clocks only matter to a run on several threads: one thread never
        # looks at them, and getrusage costs a system call a problem)
        if self.n_threads > 1:
            smo_governor_start(&self.governor, self.n_threads, smo_governor_seconds(),
                               smo_process_cpu_seconds())
        else:
            smo_governor_start(&self.governor, self.n_threads, 0.0, 0.0)
        # a start whose gradient the caller knows skips its computation (a kernel row
        # per non-zero alpha): the cascade's rounds (libsmo.cascade)
        self.gradient_given = gradient is not None
        self.gradient_whole = self.gradient_given
        self.G = (np.array(gradient, dtype=np.float64) if self.gradient_given
                  else np.empty(self.l))
        self.G_bar = (np.array(gradient_bar, dtype=np.float64) if self.gradient_given
                      else np.zeros(self.l))
        self.status = np.empty(self.l, dtype=np.int8)
        self.pen_up = np.full((2, self.l), -np.inf)
        self.pen_low = np.full((2, self.l), -np.inf)
        self.active_set = np.arange(self.l, dtype=np.int32)
        self.next_rows = np.empty(max(Q.rows_together, 1), dtype=np.int32)
        self.poller = StopConditions(max_iter, callback, callback_every, time_limit,
                                     stop_flag, self._progress)
        self.stop = RUNNING
        self.q_scale = _largest_magnitude(self.QD)
        self.start_mass = self.drift = 0.0
        self.gradient_checks = 0
        self.seeded = seeded
        for i in range(self.l):
            update_status(self, i)
        if self.l > 0:
            self._init_rank()

    cdef void _init_rank(self) noexcept:
        self.rank.G = &self.G[0]
        self.rank.y = &self.y[0]
        self.rank.pen_up = &self.pen_up[0, 0]
        self.rank.pen_low = &self.pen_low[0, 0]
        self.rank.stride = self.l
        self.rank.nu = self.nu
        self.rank.active_size = self.l
        self.rank.m[0] = self.rank.m[1] = INFINITY
        self.rank.M[0] = self.rank.M[1] = INFINITY

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
        cdef int i, l = self.l, threads = self.n_threads
        cdef float* Qi
        self.gradient_whole = False
        for i in range(l):
            self.G[i] = self.p[i]
            self.G_bar[i] = 0.0
        for i in range(l):
            if self.status[i] != LOWER_BOUND:
                if interrupted(self):
                    return -1
                Qi = self.Q.get_row(i, l)
                if Qi == NULL:
                    return out_of_memory(self)
                smo_add_scaled_row_threads(l, &self.G[0], self.alpha[i], Qi, threads)
                if self.status[i] == UPPER_BOUND:
                    smo_add_scaled_row_threads(l, &self.G_bar[0], self.C[i], Qi, threads)
        self.gradient_whole = True
        return 0

    cdef int _reconstruct_gradient(self) noexcept nogil:
        """Rebuild G of the shrunk variables from G_bar and the free active ones; the Q
        entries are read once each and not cached (`QMatrix.get_entries`, and
        `QMatrix.add_rows` for a batch of free rows at a time)."""
        cdef int i, j, b, count, l = self.l, active = self.active_size, n_free = 0
        cdef int together = self.Q.entries_rows()
        cdef float* Qi
        cdef float* block
        cdef double g
        cdef int batch[ADDED_ROWS]
        cdef double coefs[ADDED_ROWS]
        if active == l:
            return 0
        self.gradient_whole = False
        for j in range(active, l):
            self.G[j] = self.G_bar[j] + self.p[j]
        for j in range(active):
            if self.status[j] == FREE:
                n_free += 1
        if 2 * n_free < active:   # where LIBSVM prints "using -h 0 may be faster"
            self.few_free_rebuilds += 1
        # LIBSVM's cheaper loop; many rows' products with one part (`QMatrix.narrow_rows`)
        if <double>n_free * l > 2.0 * active * (l - active):
            self.Q.narrow(0, active, l - active)
            i = active
            while i < l:
                if interrupted(self):
                    return -1
                # `together` rows in one pass over the data where the rows allow it
                count = min(together, l - i)
                for b in range(count):
                    batch[b] = i + b
                block = (self.Q.entries_block(batch, count, 0, active) if count > 1
                         else self.Q.get_entries(i, 0, active))
                if block == NULL:
                    return out_of_memory(self)
                for b in range(count):
                    Qi = &block[<long long>b * active]
                    g = self.G[i + b]   # added term by term into G_i, LIBSVM's rounding
                    for j in range(active):
                        if self.status[j] == FREE:
                            g += self.alpha[j] * Qi[j]
                    self.G[i + b] = g
                i += count
        else:
            self.Q.narrow(active, l, n_free)
            n_free = 0
            # the free rows ADDED_ROWS at a time, each batch in one pass (`add_rows`)
            for i in range(active + 1):
                if i == active or n_free == ADDED_ROWS:
                    if interrupted(self):
                        return -1
                    if self.Q.add_rows(batch, coefs, n_free, active, l,
                                       &self.G[active]) < 0:
                        return out_of_memory(self)
                    n_free = 0
                if i < active and self.status[i] == FREE:
                    batch[n_free], coefs[n_free] = i, self.alpha[i]
                    n_free += 1
        self.Q.narrow(0, 0, 0)
        self.gradient_whole = True
        return 0

    cdef void _pull_in_far_start(self) noexcept nogil:
        """A start worse than a = 0 (f(a) > 0: a seed far above the optimum's scale)
        replaced by the best point of its ray, t a with t = -p'a / a'Qa < 1/2, where
        scaling keeps it feasible: 0 <= t a <= C, and y'(t a) = t y'a = 0 when y'a is
        0 (C-SVC, epsilon-SVR; not one-class's or the nu variants' fixed sums). G =
        t (G - p) + p follows without a kernel row; no variable is at its upper bound
        after it, so G_bar is 0. The sums are taken over a / max|a| so that they do not
        overflow."""
        cdef int i, l = self.l
        cdef double scale = 0.0, ya = 0.0, size = 0.0, quad = 0.0, lin = 0.0, t, a
        if self.nu:
            return
        for i in range(l):
            scale = max(scale, fabs(self.alpha[i]))
        if scale == 0.0:
            return
        for i in range(l):
            a = self.alpha[i] / scale
            if not isfinite(self.G[i]):
                return
            ya += self.y[i] * a
            size += fabs(a)
            quad += a * ((self.G[i] - self.p[i]) / scale)   # a'Qa / scale^2
            lin += a * self.p[i]                            # p'a / scale
        if fabs(ya) > 1e-9 * size or not (quad > 0.0 and isfinite(quad)):
            return
        if scale * quad / 2 + lin <= 0.0:
            return   # f(a) <= f(0): the start is kept as it is
        t = max(0.0, -lin / (scale * quad))
        for i in range(l):
            self.alpha[i] *= t
            self.G[i] = t * (self.G[i] - self.p[i]) + self.p[i]
            self.G_bar[i] = 0.0
            update_status(self, i)

    cdef void _fresh_gradient_base(self) noexcept nogil:
        """G was just computed from scratch (or given): the base of its rounding's
        estimate is the alphas it was summed over."""
        cdef int i
        self.start_mass = 0.0
        for i in range(self.l):
            self.start_mass += fabs(self.alpha[i])
        self.drift = 0.0

    cdef int _verify_optimum(self) noexcept nogil:
        """Before an optimum is declared (every variable active): 0 when the gradient's
        estimated rounding is a small share of tol (VERIFY_SHARE), else 1 after G and
        G_bar are computed again from scratch at the current alpha (the caller checks
        optimality again on them); -1 when that failed."""
        if not self.seeded or DBL_EPSILON * self.q_scale * (
                self.start_mass + self.drift) <= VERIFY_SHARE * self.eps:
            return 0
        if self._init_gradient() < 0:
            return -1
        self._fresh_gradient_base()
        self.gradient_checks += 1
        return 1

    # ---- Q rows ---------------------------------------------------------------------

    cdef float* _q_row(self, int i, int length) noexcept nogil:
        """Q row i over the first `length` variables. A row not in the cache comes with
        the rows the next steps are most likely to ask for (`_rows_to_come`), computed in
        the same pass over the data where the kernel can (dense rows: one read of the
        data for all of them). The values are the same either way, and so are the
        steps; only the time changes."""
        cdef int count = 1 if self.Q.is_cached(i) else self.Q.rows_ahead(length)
        if count <= 1:
            return self.Q.get_row(i, length)
        count = self._rows_to_come(i, count)
        return self.Q.get_rows(&self.next_rows[0], count, length)

    cdef int _rows_to_come(self, int i, int most) noexcept nogil:
        """next_rows = [i, then up to most - 1 active variables whose rows are not
        cached]: half the most violating of I_up (the largest -y_t G_t, which the
        selection takes as its first variable) and half the least of I_low (the
        smallest, the likeliest partners; kept as the largest -v), later variables
        first on ties as the selection's own. Returns how many."""
        cdef int want = most - 1
        cdef int n_up = 0, n_low = 0, k, t, g, count = 1
        cdef int want_low = want // 2
        cdef int want_up = want - want_low
        cdef int up_t[MANY_ROWS]
        cdef int low_t[MANY_ROWS]
        cdef double up_v[MANY_ROWS]
        cdef double low_v[MANY_ROWS]
        cdef double v
        for t in range(self.active_size):
            if t == i or self.Q.is_cached(t):
                continue
            g = sign_group(self, t)
            v = -self.y[t] * self.G[t]
            if self.pen_up[g, t] == 0.0:
                n_up = smo_keep_largest(up_v, up_t, n_up, want_up, v, t)
            elif self.pen_low[g, t] == 0.0 and want_low > 0:
                n_low = smo_keep_largest(low_v, low_t, n_low, want_low, -v, t)
        self.next_rows[0] = i
        for k in range(n_up):
            self.next_rows[count] = up_t[k]
            count += 1
        for k in range(n_low):
            self.next_rows[count] = low_t[k]
            count += 1
        return count

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
            return out_of_memory(self)
        solve_pair(self.G[i], self.G[j], self.y[i], self.y[j], self.QD[i], self.QD[j],
                   Qi[j], Ci, Cj, &ai, &aj)
        dai = ai - old_ai
        daj = aj - old_aj
        if require_progress and fabs(daj) < 1e-12 * (aj + old_aj + 1e-12):
            return 0
        Qj = self._q_row(j, active)
        if Qj == NULL:
            return out_of_memory(self)
        # Qi is still valid: the cache keeps the two most recent rows (and _q_row
        # stores the rows it computes with Qj before Qj, within a quarter of the cache)
        self.alpha[i] = ai
        self.alpha[j] = aj
        self.drift += fabs(dai) + fabs(daj)
        smo_update_gradient_threads(active, &self.G[0], Qi, dai, Qj, daj, self.n_threads)
        i_was_upper = self.status[i] == UPPER_BOUND
        j_was_upper = self.status[j] == UPPER_BOUND
        update_status(self, i)
        update_status(self, j)
        if i_was_upper != (self.status[i] == UPPER_BOUND):
            if self._update_G_bar(i, -Ci if i_was_upper else Ci) < 0:
                return -1
        if j_was_upper != (self.status[j] == UPPER_BOUND):
            if self._update_G_bar(j, -Cj if j_was_upper else Cj) < 0:
                return -1
        self.n_iter += 1
        return 1

    cdef int _update_G_bar(self, int i, double coef) noexcept nogil:
        cdef int l = self.l, split
        cdef float* tail
        cdef float* Qi = self.Q.get_row_split(i, l, &split, &tail)
        if Qi == NULL:
            return out_of_memory(self)
        smo_add_scaled_row_threads(split, &self.G_bar[0], coef, Qi, self.n_threads)
        smo_add_scaled_row_threads(l - split, &self.G_bar[split], coef, tail,
                                   self.n_threads)
        return 0

    # ---- second-order selection (Fan, Chen and Lin 2005) ----------------------------

    cdef int select_second_order(self, int* out_i, int* out_j) noexcept nogil:
        """Worst violator i and its second-order partner j (within i's sign group for
        the nu variant). Returns 1 when optimal (m - M < eps in every group), 0 with a
        pair, -1 when memory ran out (`stop` says so). The loops are inner_loops.h's."""
        cdef int g, j = -1, j_g, active = self.active_size
        cdef int n_groups = 2 if self.nu else 1
        cdef int i_g[2]
        cdef double v_max[2]
        cdef double low[2]
        cdef double obj_min = INFINITY, obj_g
        cdef float* Qi
        cdef double* G = &self.G[0]
        cdef double* y = &self.y[0]
        i_g[:] = [-1, -1]
        v_max[:] = [-INFINITY, -INFINITY]
        low[:] = [-INFINITY, -INFINITY]
        # the worst violator of each group: max of v_t = -y_t G_t over I_up
        for g in range(n_groups):
            i_g[g] = smo_argmax_up_threads(active, G, y, &self.pen_up[g, 0], &v_max[g],
                                           self.n_threads)
            self.rank.m[g] = v_max[g]
        self.rank.active_size = active
        # its partner over I_low: the largest second-order decrease; across the groups
        # of the nu variant the smaller objective wins, the later variable on a tie
        for g in range(n_groups):
            if i_g[g] == -1:
                continue
            Qi = self._q_row(i_g[g], active)
            if Qi == NULL:
                return out_of_memory(self)
            j_g = smo_partner_threads(active, G, y, &self.pen_low[g, 0], &self.QD[0], Qi,
                                      self.QD[i_g[g]], y[i_g[g]], v_max[g], &low[g],
                                      &obj_g, self.n_threads)
            self.rank.M[g] = -low[g]
            if j_g != -1 and (obj_g < obj_min or (obj_g == obj_min and j_g > j)):
                j = j_g
                obj_min = obj_g
        if (v_max[0] + low[0] < self.eps and v_max[1] + low[1] < self.eps) or j == -1:
            return 1
        out_i[0] = i_g[sign_group(self, j)]
        out_j[0] = j
        return 0

    # ---- thresholds (progress reports and Platt's loop) -----------------------------

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
            g = sign_group(self, t)
            if is_up(self, t) and v > self.m_up[g]:
                self.m_up[g] = v
                self.i_up[g] = t
            if is_low(self, t) and v < self.M_low[g]:
                self.M_low[g] = v
                self.j_low[g] = t
        for g in range(2):
            if self.i_up[g] != -1 and self.j_low[g] != -1:
                worst = max(worst, self.m_up[g] - self.M_low[g])
        return worst

    # ---- shrinking ------------------------------------------------------------------

    cdef int do_shrinking(self) noexcept nogil:
        cdef int i, g
        cdef double m_up[2], neg_M_low[2], v
        m_up[0] = m_up[1] = neg_M_low[0] = neg_M_low[1] = -INFINITY
        for i in range(self.active_size):
            v = -self.y[i] * self.G[i]
            g = sign_group(self, i)
            if is_up(self, i) and v >= m_up[g]:
                m_up[g] = v
            if is_low(self, i) and -v >= neg_M_low[g]:
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
        self.Q.defer_swaps()   # no row is read until the pass ends
        while i < self.active_size:
            if be_shrunk(self, i, m_up, neg_M_low):
                self.active_size -= 1
                while self.active_size > i:
                    if not be_shrunk(self, self.active_size, m_up, neg_M_low):
                        self._swap(i, self.active_size)
                        break
                    self.active_size -= 1
            i += 1
        self.Q.apply_swaps()
        self.rank.active_size = self.active_size
        # the next steps' rows are products with the active variables alone
        self.Q.narrow(0, self.active_size, self.l if self.l < 1000 else 1000)
        return 0

    cdef int _unshrink_all(self) noexcept nogil:
        """Rebuild the whole gradient and make every variable active again."""
        if self._reconstruct_gradient() < 0:
            return -1
        self.active_size = self.l
        return 0

    # ---- polling --------------------------------------------------------------------

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

    cdef void optimize(self) noexcept nogil:
        """LIBSVM's main loop (worst violator, second-order partner); ends with `stop` set."""
        cdef int i = -1, j = -1, r
        cdef int counter = (self.l if self.l < 1000 else 1000) + 1   # LIBSVM's start
        while True:
            counter -= 1
            if counter == 0:
                counter = self.l if self.l < 1000 else 1000
                if self.shrinking and self.do_shrinking() < 0:
                    return
            r = self.select_second_order(&i, &j)
            if r < 0:
                return
            if r == 1:
                # optimal on the active set: check the whole problem
                if self._unshrink_all() < 0:
                    return
                r = self.select_second_order(&i, &j)
                if r < 0:
                    return
                if r == 1:
                    r = self._verify_optimum()
                    if r < 0:
                        return
                    if r == 0:
                        self.stop = OPTIMAL
                        return
                    # G computed again: optimal on it, or the steps go on from it
                    r = self.select_second_order(&i, &j)
                    if r < 0:
                        return
                    if r == 1:
                        self.stop = OPTIMAL
                        return
                counter = 1  # shrink at the next step
            if self.take_step(i, j, False) < 0:
                return
            if due(self):
                return

    def run(self):
        """Optimise; returns the `Solution` (see `solve`).

        Raises
        ------
        KeyboardInterrupt, or what the callback raised
        MemoryError
            A Q row could not be allocated.
        SolverStopped
            The stop flag ended the run while the gradient was incomplete.
        """
        if self.l > 0:
            self.Q.set_rank(&self.rank)
        try:
            with nogil:
                if self.gradient_given or self._init_gradient() == 0:
                    if self.seeded and not self.gradient_given:
                        self._pull_in_far_start()
                    self._fresh_gradient_base()
                    self.optimize()
                if (self.stop != EXCEPTION and self.stop != NO_MEMORY
                        and self.active_size < self.l):
                    # the solution's gradient covers every variable
                    self._unshrink_all()
        finally:
            self.Q.set_rank(NULL)
            self.poller.release()
            self.n_threads = self.Q.kernel.n_threads = self.governor.max_threads
        if self.stop == EXCEPTION:
            raise self.poller.pending_exc
        if self.stop == NO_MEMORY:
            raise MemoryError("libsmo: cannot allocate memory for the kernel cache")
        if not self.gradient_whole:
            raise SolverStopped("stopped by another thread before the gradient was whole")
        # rho and the objective summed in the solver's order, as LIBSVM sums them before
        # it puts the solution back; variable k of the solver is the caller's
        # active_set[k]. The arrays behind the memoryviews are handed over as they are
        return make_solution(
            self.alpha.base, self.G.base, self.p.base, self.y.base, self.C.base, self.nu,
            self.n_iter, self.stop, self.Q.kernel.evaluations, self.few_free_rebuilds,
            self.active_set.base)
