# cython: language_level=3
"""When a solver must stop before the optimum, asked without the GIL, by time rather
than by step count.

The solvers run their loops without the GIL and ask `StopConditions.due(n_iter)` after
each step (the linear solver `due_after(n_iter, work)` after each example it examines,
with the work that took). It answers from plain C state: the step cap, then a coarse
monotonic clock (a few nanoseconds: the kernel's timestamp, no hardware counter), the
time limit and another thread's stop flag; it takes the GIL only to poll, at most every
POLL_SECONDS or when a user callback is due, to deliver Ctrl-C and run the callback.
The phases between steps (the gradient's initialisation and reconstruction, Platt's
scans) ask `interrupted()` after each row: Ctrl-C and the stop flag end them too.
"""
from cpython.exc cimport PyErr_CheckSignals
from libc.math cimport INFINITY

cdef extern from *:
    """
    #include <time.h>
    /* CLOCK_MONOTONIC_COARSE (Linux) reads the kernel's last tick: millisecond
       resolution at a fraction of the cost of a precise clock, read after every step */
    static double smo_coarse_seconds(void) {
        struct timespec ts;
    #ifdef CLOCK_MONOTONIC_COARSE
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    #else
        clock_gettime(CLOCK_MONOTONIC, &ts);
    #endif
        return ts.tv_sec + 1e-9 * ts.tv_nsec;
    }
    """
    double smo_coarse_seconds() nogil

cdef double POLL_SECONDS = 0.05
# due_after reads the clock once this much work (entries touched) has accumulated
cdef long long CLOCK_WORK = 1 << 15

STATUS_NAMES = {OPTIMAL: "optimal", MAX_ITER: "max_iter", STOPPED: "stopped",
                TIME_LIMIT: "time_limit"}


class SolverStopped(RuntimeError):
    """Another thread's stop flag ended a solver while its gradient was incomplete (in
    its initialisation or reconstruction): there is no usable solution to return. The
    thread that set the flag raises the error that made it do so."""


cdef inline double now() noexcept nogil:
    return smo_coarse_seconds()


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
        Seconds from now after which the solver stops (status "time_limit"), read from
        a clock of a few milliseconds' resolution.
    stop_flag : int8 array of shape (1,) or None
        Another thread sets stop_flag[0] = 1 to stop the solver (status "stopped").
    progress : callable
        Returns the solver's progress dict for the callback. The solver drops it with
        `release` when it has finished, so that the two do not keep each other alive.

    Raises
    ------
    ValueError
        An empty stop_flag.
    """

    def __init__(self, max_iter, callback, long long callback_every, time_limit,
                 stop_flag, progress):
        # read, never written: another process's backend (Ray, loky's memory maps)
        # hands the flag over read-only
        cdef const signed char[::1] flag
        self.max_iter = -1 if max_iter is None else max_iter
        self.callback = callback
        self.callback_every = max(1, callback_every)
        self.next_callback = self.callback_every
        self.deadline = INFINITY if time_limit is None else now() + time_limit
        self.stop_flag = NULL
        if stop_flag is not None:
            flag = stop_flag
            if flag.shape[0] < 1:   # read at [0] without bounds checks
                raise ValueError("stop_flag must have at least one entry")
            self.stop_flag_owner = stop_flag
            self.stop_flag = &flag[0]
        self.progress = progress
        self.pending_exc = None
        self.stop = RUNNING
        self.work = 0
        self.last_poll = now()

    def release(self):
        """Forget the progress function (and so the solver it belongs to)."""
        self.progress = None

    cdef bint due(self, long long n_iter) noexcept nogil:
        """True when the solver must stop now, after a step; `stop` then says why."""
        return self.due_after(n_iter, CLOCK_WORK)

    cdef bint due_after(self, long long n_iter, long long work) noexcept nogil:
        """`due` for a loop whose iterations may be short: the clock is read once
        CLOCK_WORK units of `work` have accumulated (a step counts as that many)."""
        if self.max_iter >= 0 and n_iter >= self.max_iter:
            self.stop = MAX_ITER
            return True
        self.work += work
        if self.work < CLOCK_WORK:
            return False
        self.work = 0
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

    cdef bint interrupted(self) noexcept nogil:
        """Between steps (a row of the gradient): True when Ctrl-C or another thread's
        stop flag must end the run now (`stop` is EXCEPTION or STOPPED). The step cap,
        the time limit and the callback wait for the next step: the gradient must be
        whole for the solution to be usable."""
        cdef double t = now()
        if self.stop_flag != NULL and self.stop_flag[0]:
            self.stop = STOPPED
            return True
        if t - self.last_poll < POLL_SECONDS:
            return False
        return self._check_signals()

    cdef bint _check_signals(self) noexcept with gil:
        self.last_poll = now()
        try:
            PyErr_CheckSignals()
        except BaseException as exc:
            self.pending_exc = exc
            self.stop = EXCEPTION
            return True
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
