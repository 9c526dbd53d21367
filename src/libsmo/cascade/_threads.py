"""The cascade driver's runner on threads of this process: the partitioned solver on one
machine, its partitions solved and scored side by side (the compiled solver and the
kernel blocks release the GIL).

`ThreadRunner` is what `LocalRunner` is, with `submit` returning a future at once and
the task run by one of `n_threads` threads when the futures among its arguments are
done (their values passed in their place, as Dask does). Of the tasks ready to run, the
one submitted first runs first: a leaf's summary, submitted right after the leaf, runs
as soon as the leaf is done, ahead of the leaves still waiting, so that the driver can
report each leaf when it ends. No thread ever waits for another task, so the pool
cannot deadlock.

Ctrl-C reaches the main thread only, which waits in `gather`: the runner then sets the
stop flag that every solve polls and every scoring reads between kernel blocks, cancels
the tasks that have not begun, and waits for the running ones to stop (`close`), so
that no thread of the fit outlives it. An error in a task does the same, and is what
`gather` raises.
"""
import heapq
import threading
from concurrent.futures import FIRST_EXCEPTION, CancelledError, Future, wait

import numpy as np

from libsmo._core.stopping import SolverStopped

__all__ = ["ThreadRunner"]


class _Task:
    """A submitted call and the dependencies it still waits for."""
    __slots__ = ("order", "function", "args", "future", "waiting")

    def __init__(self, order, function, args, future, waiting):
        self.order, self.function, self.args = order, function, args
        self.future, self.waiting = future, waiting

    def __lt__(self, other):
        return self.order < other.order


class ThreadRunner:
    """Runs the driver's tasks (`libsmo.cascade.solve_partitioned`) on `n_threads`
    threads, started at once and ended by `close` (or the ``with`` block's end).

    Parameters
    ----------
    n_threads : int >= 1

    Attributes
    ----------
    stop_flag : int8 ndarray of shape (1,)
        Set to 1 when the fit must stop (Ctrl-C, an error in a task); the solves and
        scorings the driver submits read it.

    Examples
    --------
    >>> with ThreadRunner(2) as runner:
    ...     three = runner.submit(sum, [1, 2])
    ...     runner.gather(runner.submit(pow, three, 2))
    9
    """

    def __init__(self, n_threads):
        self.stop_flag = np.zeros(1, dtype=np.int8)
        self._lock = threading.Condition()
        self._ready = []
        self._futures = []
        self._submitted = 0
        self._closing = False
        self._threads = [threading.Thread(target=self._work, daemon=True,
                                          name=f"libsmo-partitions-{k}")
                         for k in range(max(1, int(n_threads)))]
        for thread in self._threads:
            thread.start()

    def submit(self, function, *args):
        """A future of function(*args), the futures among args replaced by their
        values.

        Returns
        -------
        concurrent.futures.Future
        """
        future = Future()
        dependencies = list({id(a): a for a in args if isinstance(a, Future)}.values())
        with self._lock:
            task = _Task(self._submitted, function, args, future, len(dependencies))
            self._submitted += 1
            # the futures not yet done, for `stop` to cancel
            self._futures = [f for f in self._futures if not f.done()]
            self._futures.append(future)
            if not dependencies:
                self._push(task)
        for dependency in dependencies:
            # (called at once, here, for a dependency already done)
            dependency.add_done_callback(lambda _, task=task: self._resolved(task))
        return future

    def _resolved(self, task):
        with self._lock:
            task.waiting -= 1
            if task.waiting == 0:
                self._push(task)

    def _push(self, task):
        """Queue a task whose dependencies are done (the lock held)."""
        heapq.heappush(self._ready, task)
        self._lock.notify()

    def _work(self):
        while True:
            with self._lock:
                while not self._ready and not self._closing:
                    self._lock.wait()
                if not self._ready:
                    return
                task = heapq.heappop(self._ready)
            if not task.future.set_running_or_notify_cancel():
                continue
            try:
                if self.stop_flag[0]:
                    raise SolverStopped("stopped with the other tasks of the fit")
                values = [a.result() if isinstance(a, Future) else a for a in task.args]
                result = task.function(*values)
            except BaseException as exc:
                task.future.set_exception(exc)
            else:
                task.future.set_result(result)
            task.args = task.function = None   # its inputs may be freed now

    def gather(self, handles):
        """The values of a future or of a list of futures (other values as they are),
        once all are done.

        Raises
        ------
        The first error a task raised (other than the stops it caused), or
        KeyboardInterrupt: the stop flag is set first, so that the others stop.
        SolverStopped
            A task was cancelled by `stop`.
        """
        single = not isinstance(handles, (list, tuple))
        futures = [handles] if single else list(handles)
        pending = [f for f in futures if isinstance(f, Future)]
        try:
            done, _ = wait(pending, return_when=FIRST_EXCEPTION)
            failed = [SolverStopped("stopped with the other tasks of the fit")
                      if f.cancelled() else f.exception() for f in done
                      if f.cancelled() or f.exception() is not None]
            if failed:
                raise next((e for e in failed
                            if not isinstance(e, (SolverStopped, CancelledError))),
                           failed[0])
        except BaseException:
            self.stop()
            raise
        values = [f.result() if isinstance(f, Future) else f for f in futures]
        return values[0] if single else values

    def stop(self):
        """Tell every running task to stop and cancel those that have not begun."""
        self.stop_flag[0] = 1
        with self._lock:
            futures = list(self._futures)
        for f in futures:
            f.cancel()

    def close(self):
        """End the threads once the queued tasks are done (after `stop`, within a
        solver's poll: every task then ends at once)."""
        with self._lock:
            self._closing = True
            self._lock.notify_all()
        for thread in self._threads:
            thread.join()

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is not None:
            self.stop()
        self.close()
        return False
