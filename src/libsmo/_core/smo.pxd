# The SMO solver's state and the operations every strategy shares (LIBSVM's Solver):
# gradient, the two-variable step, shrinking, thresholds, polling. Platt's strategy is
# a subclass (platt_smo.pyx) that replaces `optimize`.
from libc.math cimport INFINITY
from libsmo._core.pair_step cimport LOWER_BOUND, UPPER_BOUND, bound_status, in_low, in_up
from libsmo._core.cache cimport SmoRowRank
from libsmo._core.qmatrix cimport QMatrix
from libsmo._core.stopping cimport NO_MEMORY, StopConditions
from libsmo._core.thread_governor cimport SmoThreadGovernor, smo_governor_step


cdef class Solver:
    cdef QMatrix Q
    cdef int l
    cdef int active_size
    cdef double eps
    cdef bint shrinking
    cdef bint unshrunk
    cdef long long n_iter
    # gradient rebuilds with fewer than half of the active variables free, where
    # LIBSVM prints "WARNING: using -h 0 may be faster" (`_reconstruct_gradient`)
    cdef long long few_free_rebuilds
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
    # threads of the passes over long active sets (step_loops.h): the kernel's, or one
    # while other processes hold the cores (`governor`, kept in step with the kernel's)
    cdef int n_threads
    cdef SmoThreadGovernor governor
    # membership of I_up / I_low per sign group as 0.0 (in) or -inf (out), kept with
    # the status: the selection loops mask with an addition instead of a branch
    cdef double[:, ::1] pen_up
    cdef double[:, ::1] pen_low
    # Keerthi's thresholds over the active set, per sign group (`_thresholds`: progress
    # reports and Platt's loop)
    cdef double m_up[2]
    cdef double M_low[2]
    cdef int i_up[2]
    cdef int j_low[2]
    cdef StopConditions poller
    cdef int stop
    # whether G (and G_bar) hold every variable's value: false while the gradient is
    # initialised or reconstructed, and after an interruption there
    cdef bint gradient_whole
    # the caller gave G and G_bar with the start (a warm start that knows them)
    cdef bint gradient_given
    # a missed Q row and the rows computed with it (QMatrix.get_rows)
    cdef int[::1] next_rows
    # what the cache's "ranked" policy reads: G, y, I_up / I_low, the active set and
    # the thresholds of the last selection (row_ranks.h)
    cdef SmoRowRank rank
    # the gradient's rounding: sum |a| when G was last computed from scratch and sum
    # |da| of the steps since, against the largest |Q_ii| (`_verify_optimum`)
    cdef double start_mass
    cdef double drift
    cdef double q_scale
    # the gradient recomputed from scratch to confirm an optimum (Solution's
    # `gradient_checks`)
    cdef long long gradient_checks
    # the start is a warm start from outside (`_pull_in_far_start`, `_verify_optimum`)
    cdef bint seeded

    cdef void _swap(self, int i, int j) noexcept nogil
    cdef void _init_rank(self) noexcept
    cdef int _init_gradient(self) noexcept nogil
    cdef int _reconstruct_gradient(self) noexcept nogil
    cdef void _pull_in_far_start(self) noexcept nogil
    cdef void _fresh_gradient_base(self) noexcept nogil
    cdef int _verify_optimum(self) noexcept nogil
    cdef int take_step(self, int i, int j, bint require_progress) noexcept nogil
    cdef float* _q_row(self, int i, int length) noexcept nogil
    cdef int _rows_to_come(self, int i, int most) noexcept nogil
    cdef int _update_G_bar(self, int i, double coef) noexcept nogil
    cdef int select_second_order(self, int* out_i, int* out_j) noexcept nogil
    cdef double _thresholds(self) noexcept nogil
    cdef int do_shrinking(self) noexcept nogil
    cdef int _unshrink_all(self) noexcept nogil
    cdef double _objective(self)
    cdef void optimize(self) noexcept nogil


# Per-variable helpers of the hot loops, as inline functions rather than methods: the
# two strategies (Solver here, PlattSolver in platt_smo.pyx) share them, and a method
# of a class with a subclass is called through its vtable, never inlined.

cdef inline int sign_group(Solver s, int t) noexcept nogil:
    """Sign group of variable t: the nu variant keeps y=+1 and y=-1 apart."""
    return 1 if s.nu and s.y[t] < 0 else 0


cdef inline bint is_up(Solver s, int t) noexcept nogil:
    """t in I_up."""
    return in_up(s.y[t], s.status[t])


cdef inline bint is_low(Solver s, int t) noexcept nogil:
    """t in I_low."""
    return in_low(s.y[t], s.status[t])


cdef inline void update_status(Solver s, int i) noexcept nogil:
    """Bound status of variable i, and its I_up / I_low penalties, after alpha_i moved."""
    cdef int g = sign_group(s, i)
    s.status[i] = bound_status(s.alpha[i], s.C[i])
    s.pen_up[g, i] = 0.0 if is_up(s, i) else -INFINITY
    s.pen_low[g, i] = 0.0 if is_low(s, i) else -INFINITY


cdef inline bint be_shrunk(Solver s, int i, double* m_up, double* neg_M_low) noexcept nogil:
    """A bound variable leaves the active set when it cannot join a violating pair of
    its group, even if the thresholds move a little."""
    cdef int g = sign_group(s, i)
    if s.status[i] == UPPER_BOUND:
        if s.y[i] > 0:
            return -s.G[i] > m_up[g]
        return -s.G[i] > neg_M_low[g]
    if s.status[i] == LOWER_BOUND:
        if s.y[i] > 0:
            return s.G[i] > neg_M_low[g]
        return s.G[i] > m_up[g]
    return False


cdef inline bint due(Solver s) noexcept nogil:
    """Whether the run must stop now (see StopConditions.due); s.stop says why. Also the
    threads from the next step on (`governor`)."""
    if s.poller.due(s.n_iter):
        s.stop = s.poller.stop
        return True
    if s.governor.max_threads > 1 and smo_governor_step(&s.governor) != s.n_threads:
        s.n_threads = s.Q.kernel.n_threads = s.governor.threads
    return False


cdef inline bint interrupted(Solver s) noexcept nogil:
    """Between steps (a row of the gradient): whether Ctrl-C or the stop flag ends the
    run now; s.stop says which."""
    if s.poller.interrupted():
        s.stop = s.poller.stop
        return True
    return False


cdef inline int out_of_memory(Solver s) noexcept nogil:
    """Record that a Q row could not be allocated; returns -1 for the caller to pass on."""
    s.stop = NO_MEMORY
    return -1
