# What the linear solvers' coordinate descents (linear_cd, linear_cs, linear_l1) share
# from one epoch to the next: the random order of the active coordinates, drawn from
# scikit-learn's Mersenne Twister (mt19937.h) as scikit-learn's LIBLINEAR draws it; the
# solvers' statuses; and the poll for Ctrl-C and for another thread's stop flag after
# each epoch. Inline functions only: nothing of this module exists at run time.
from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport uint32_t

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
    """INTERRUPTED on Ctrl-C (in the main thread), STOPPED when another thread set the
    stop flag (NULL: none), else RUNNING."""
    with gil:
        if PyErr_CheckSignals() != 0:
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
