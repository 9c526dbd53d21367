# cython: language_level=3
"""When a solver must stop before the optimum, asked every few steps without the GIL.

The solvers run their loops without the GIL and ask `StopConditions.due(n_iter)` after
each step. It answers from plain C state (the step cap, then every POLL_EVERY steps the
clock, the time limit and another thread's stop flag) and takes the GIL only to poll:
at most every POLL_SECONDS, or when a user callback is due, to deliver Ctrl-C and run
the callback.
"""
from cpython.exc cimport PyErr_CheckSignals
from libc.math cimport INFINITY
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

cdef double POLL_SECONDS = 0.05
cdef int POLL_EVERY = 32  # steps between clock reads

STATUS_NAMES = {OPTIMAL: "optimal", MAX_ITER: "max_iter", STOPPED: "stopped",
                TIME_LIMIT: "time_limit"}


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec


cdef class StopConditions:
    """The stopping conditions of one solver run.

    Parameters
    ----------
    max_iter : int or None
        Steps after which the solver stops (status "max_iter").
    callback : callable or None
        Called with ``progress()`` every `callback_every` steps; returning False stops
        the solver (status "stopped").
    callback_every : int
    time_limit : float or None
        Seconds from now after which the solver stops (status "time_limit").
    stop_flag : int8 array of shape (1,) or None
        Another thread sets stop_flag[0] = 1 to stop the solver (status "stopped").
    progress : callable
        Returns the solver's progress dict for the callback. The solver drops it with
        `release` when it has finished, so that the two do not keep each other alive.
    """

    def __init__(self, max_iter, callback, long long callback_every, time_limit,
                 stop_flag, progress):
        cdef signed char[::1] flag
        self.max_iter = -1 if max_iter is None else max_iter
        self.callback = callback
        self.callback_every = max(1, callback_every)
        self.next_callback = self.callback_every
        self.deadline = INFINITY if time_limit is None else now() + time_limit
        self.stop_flag = NULL
        if stop_flag is not None:
            flag = stop_flag
            self.stop_flag_owner = stop_flag
            self.stop_flag = &flag[0]
        self.progress = progress
        self.pending_exc = None
        self.stop = RUNNING
        self.last_poll = now()

    def release(self):
        """Forget the progress function (and so the solver it belongs to)."""
        self.progress = None

    cdef bint due(self, long long n_iter) noexcept nogil:
        """True when the solver must stop now; `stop` then says why."""
        if self.max_iter >= 0 and n_iter >= self.max_iter:
            self.stop = MAX_ITER
            return True
        if n_iter % POLL_EVERY != 0:
            return False
        return self.due_now(n_iter)

    cdef bint due_now(self, long long n_iter) noexcept nogil:
        """The time limit, the stop flag, Ctrl-C and the callback, checked now whatever
        the step count (for loops that can spend time without taking steps)."""
        cdef double t = now()
        if t >= self.deadline:
            self.stop = TIME_LIMIT
            return True
        # set by another thread; read after an opaque call, so it is read afresh
        if self.stop_flag != NULL and self.stop_flag[0]:
            self.stop = STOPPED
            return True
        if self.callback is not None and n_iter >= self.next_callback:
            return self._poll(n_iter)
        if t - self.last_poll >= POLL_SECONDS:
            return self._poll(n_iter)
        return False

    cdef bint _poll(self, long long n_iter) noexcept with gil:
        self.last_poll = now()
        try:
            PyErr_CheckSignals()
            if self.callback is not None and n_iter >= self.next_callback:
                self.next_callback = n_iter + self.callback_every
                if self.callback(self.progress()) is False:
                    self.stop = STOPPED
                    return True
        except BaseException as exc:
            self.pending_exc = exc
            self.stop = EXCEPTION
            return True
        return False

    def check(self, long long n_iter):
        """Python access for tests: what `due` answers after n_iter steps.

        Returns
        -------
        str or None
            None to go on, else the status ("max_iter", "time_limit", "stopped"); an
            exception from the callback or Ctrl-C is raised.
        """
        if not self.due(n_iter):
            return None
        if self.stop == EXCEPTION:
            raise self.pending_exc
        return STATUS_NAMES[self.stop]
