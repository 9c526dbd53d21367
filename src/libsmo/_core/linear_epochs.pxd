# What the linear solvers' coordinate descents (linear_cd, linear_cs, linear_l1) share
# from one epoch to the next: the random order of the active coordinates, drawn from
# scikit-learn's Mersenne Twister (mt19937.h) as scikit-learn's LIBLINEAR draws it; the
# solvers' statuses; and the poll for Ctrl-C and for another thread's stop flag after
# each epoch. Inline functions only: nothing of this module exists at run time.
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
