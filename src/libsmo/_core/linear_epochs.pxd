# What the linear solvers' coordinate descents (linear_cd, linear_cs, linear_l1) share
# from one epoch to the next: the random order of the active coordinates, drawn from
# scikit-learn's Mersenne Twister (mt19937.h) as scikit-learn's LIBLINEAR draws it; the
# solvers' statuses; the poll for Ctrl-C and for another thread's stop flag after each
# epoch; and the watch on a dual's progress that lets a squared loss's stalled dual hand
# over to the Newton method early. Inline functions only: nothing of this module exists
# at run time.
from libc.math cimport INFINITY, log
from libc.stdint cimport uint32_t

# Python's signal handlers run with the GIL held; the exception one raises (Ctrl-C's
# KeyboardInterrupt, the commands' SIGTERM exception) is kept aside until the solver is
# back in Python and raises it there (`raise_pending_signal`). (Cython's own
# PyErr_CheckSignals is declared `except -1`: in a noexcept function the exception would
# be printed as ignored and the solver would go on.) Only the main thread runs the
# handlers, so one place a module is enough.
cdef extern from *:
    """
    static PyObject *smo_signal_type = NULL, *smo_signal_value = NULL,
                    *smo_signal_traceback = NULL;
    static int smo_check_signals(void) {
        if (PyErr_CheckSignals() == 0) return 0;
        PyErr_Fetch(&smo_signal_type, &smo_signal_value, &smo_signal_traceback);
        return 1;
    }
    static int smo_raise_pending_signal(void) {
        if (smo_signal_type == NULL) PyErr_SetNone(PyExc_KeyboardInterrupt);
        else PyErr_Restore(smo_signal_type, smo_signal_value, smo_signal_traceback);
        smo_signal_type = smo_signal_value = smo_signal_traceback = NULL;
        return -1;
    }
    """
    int smo_check_signals()
    int raise_pending_signal "smo_raise_pending_signal" () except -1

cdef extern from "mt19937.h" nogil:
    ctypedef struct smo_mt19937:
        pass
    void smo_mt_seed(smo_mt19937* g, uint32_t seed)
    uint32_t smo_mt_bounded(smo_mt19937* g, uint32_t range)


cdef enum EpochStatus:
    RUNNING = 0
    OPTIMAL = 1
    MAX_ITER = 2
    STOPPED = 3
    INTERRUPTED = 4
    SLOW = 5            # `Progress` judged that max_iter epochs would not reach tol


# `Progress`: the rate is read over the lowest stopping measure of the last
# PROGRESS_WINDOW epochs, from epoch PROGRESS_FIRST on (the first epochs' measure rises
# and falls as the shrinking starts), and a dual is slow when that rate, kept up, would
# not reach tol within PROGRESS_MARGIN times max_iter epochs. When the shrunk problem
# reaches tol and the dual goes back to all its examples, the watch starts again (the
# measure over all examples jumps back up). Set on the duals of LIBLINEAR's squared
# losses (a9a, w8a, sector, the reviews, housing, bodyfat at eps 0.001 and 300 epochs;
# heart_scale, a1a, w1a, australian, svmguide1 at scikit-learn's tol 1e-4 and 1,000
# epochs; C from 0.01 to 10): of the 9 runs that took max_iter epochs, 8 were judged
# slow by their 61st epoch (w1a at C = 10 by its 740th); of those that reached tol by
# themselves (up to 747 epochs), none came closer than 1.2 times max_iter.
cdef enum:
    PROGRESS_WINDOW = 25
    PROGRESS_FIRST = 50
    PROGRESS_MARGIN = 3


cdef struct Progress:
    double lowest                         # the lowest measure so far
    double log_lowest[PROGRESS_WINDOW + 1]  # its log after each of the last epochs
    long recorded                         # the epochs recorded


cdef inline void progress_start(Progress* p) noexcept nogil:
    p.lowest = INFINITY
    p.recorded = 0


cdef inline bint progress_slow(Progress* p, double measure, double target, long epoch,
                               long max_iter) noexcept nogil:
    """Record the stopping measure of a dual's epoch `epoch` (the dual stops when it is
    at most `target`) and tell whether it falls too slowly to get there within
    max_iter epochs: its lowest value so far has not fallen over the last
    PROGRESS_WINDOW epochs, or falling at that window's rate (linear convergence, the
    coordinate descent's) it would reach `target` only after PROGRESS_MARGIN times
    max_iter epochs. LIBLINEAR continues a squared loss's dual that takes max_iter
    epochs by the Newton method; a dual judged slow goes there without those epochs."""
    cdef long k
    cdef double now, rate
    if 0 <= measure < p.lowest:        # (an epoch that visited no example: -inf)
        p.lowest = measure
    if not target < p.lowest < INFINITY:
        return False
    now = log(p.lowest)
    k = p.recorded
    p.log_lowest[k % (PROGRESS_WINDOW + 1)] = now
    p.recorded = k + 1
    if epoch < PROGRESS_FIRST or k < PROGRESS_WINDOW:
        return False
    rate = (now - p.log_lowest[(k - PROGRESS_WINDOW) % (PROGRESS_WINDOW + 1)]) \
        / PROGRESS_WINDOW
    if not rate < 0:
        return True
    # (in doubles: 3 max_iter overflows a long for a max_iter near its limit)
    return epoch + (log(target) - now) / rate > PROGRESS_MARGIN * <double>max_iter


cdef inline long long epoch_visits(Py_ssize_t active) noexcept nogil:
    """The visits an epoch over `active` examples counts: each of them once (an empty
    epoch counts one, so that a count of epochs always ends)."""
    return active if active > 0 else 1


cdef inline bint another_epoch(long it, long max_iter, long long visits,
                               Py_ssize_t active, long long max_visits) noexcept nogil:
    """Whether a coordinate descent takes another epoch: within max_iter epochs; past
    them, while the examples visited so far and the next epoch's (`epoch_visits`) stay
    within max_visits (0: never). The shrinking makes the later epochs short, so a run
    that max_iter epochs cap can go on for the work that max_iter full epochs would
    have cost."""
    if it < max_iter:
        return True
    return max_visits > 0 and visits + epoch_visits(active) <= max_visits


cdef inline void shuffle_active(int* index, Py_ssize_t active,
                                smo_mt19937* gen) noexcept nogil:
    """index[0..active) in a random order: for t = 0..active-1, j = t + bounded(active -
    t) and index[t], index[j] change places (scikit-learn's order of draws)."""
    cdef Py_ssize_t t, j
    for t in range(active):
        j = t + smo_mt_bounded(gen, <uint32_t>(active - t))
        index[t], index[j] = index[j], index[t]


cdef inline int poll_stop(const signed char* stop_flag) noexcept nogil:
    """INTERRUPTED when a signal handler raised (Ctrl-C, in the main thread: the caller
    then calls `raise_pending_signal` once back in Python), STOPPED when another thread
    set the stop flag (NULL: none), else RUNNING."""
    with gil:
        if smo_check_signals() != 0:
            return INTERRUPTED
    if stop_flag != NULL and stop_flag[0] != 0:
        return STOPPED
    return RUNNING


cdef inline signed char* stop_flag_pointer(signed char[::1] stop_flag) except? NULL:
    """The solvers' stop_flag argument as a pointer (None: NULL); ValueError for an
    empty array."""
    if stop_flag is None:
        return NULL
    if stop_flag.shape[0] < 1:
        raise ValueError("stop_flag must have one entry")
    return &stop_flag[0]
