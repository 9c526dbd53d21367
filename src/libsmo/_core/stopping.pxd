# When a solver must stop before the optimum, shared by both solvers: the step cap, the
# time limit, another thread's stop flag, Ctrl-C and the user's callback.
cimport cython

cdef enum StopReason:
    RUNNING = 0
    OPTIMAL = 1
    MAX_ITER = 2
    STOPPED = 3       # the callback returned False, or another thread's stop flag
    EXCEPTION = 4     # Ctrl-C or an exception from the callback
    NO_MEMORY = 5
    TIME_LIMIT = 6


@cython.final
cdef class StopConditions:
    cdef long long max_iter
    cdef object callback
    cdef long long callback_every
    cdef long long next_callback
    cdef double last_poll
    cdef double deadline
    cdef const signed char* stop_flag
    cdef object stop_flag_owner
    cdef object progress
    cdef readonly object pending_exc
    cdef int stop
    cdef long long work

    cdef bint due(self, long long n_iter) noexcept nogil
    cdef bint due_after(self, long long n_iter, long long work) noexcept nogil
    cdef bint interrupted(self) noexcept nogil
    cdef bint _check_signals(self) noexcept with gil
    cdef bint _poll(self, long long n_iter) noexcept with gil
