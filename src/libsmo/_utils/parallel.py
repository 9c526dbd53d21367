"""Independent pieces of work (one-vs-one pairs, cross-validation folds, grid cells) as
joblib tasks, so that they run on any joblib backend: local threads by default, or a
Dask cluster, Ray or local processes inside ``with joblib.parallel_config(backend=...)``.

- `effective_n_jobs(n_jobs)`: how many tasks at once. None is scikit-learn's
  convention: 1, unless a joblib context sets another count. joblib is imported only
  when it can matter (n_jobs other than 1, or joblib already loaded by the caller's
  context), so a plain fit never pays for the import.
- `map_tasks(function, items, n_jobs)`: [function(item) for item in items] as joblib
  tasks, in order (`imap_tasks`: the same, each result as soon as it and those before
  it are done). Each task runs with one BLAS and one OpenMP thread (threadpoolctl),
  so n_jobs tasks use n_jobs cores: the caller gives each task one kernel thread and a
  share of the cache.

Task functions and their items must be picklable for process and cluster backends
(a module-level function, arrays, frozen dataclasses); with the default threads backend
anything goes. Results do not depend on the backend or on n_jobs: every task is a pure
function of its item.
"""
import os
import sys

from libsmo._utils.constraints import usable_cores

__all__ = ["effective_n_jobs", "imap_tasks", "map_tasks", "one_thread_per_task",
           "runs_in_this_process"]

def effective_n_jobs(n_jobs):
    """The number of tasks joblib would run at once for `n_jobs`.

    Parameters
    ----------
    n_jobs : int or None
        None: 1, unless inside a joblib context (``parallel_config(n_jobs=...)``, a
        Dask or Ray backend) that sets another number. -1: every core (every worker of
        a cluster backend); -2 every core but one, and so on.

    Returns
    -------
    int >= 1
        On this machine's own backends (threads, processes) at most the cores this
        process may use: more only wait for one another, and each costs a thread or a
        process (n_jobs=100000 would start that many).
    """
    if n_jobs == 1 or (n_jobs is None and "joblib" not in sys.modules):
        return 1
    import joblib
    jobs = max(1, int(joblib.effective_n_jobs(n_jobs)))
    if jobs == 1:
        return 1
    return min(jobs, usable_cores()) if _local_backend() else jobs


def runs_in_this_process(n_jobs):
    """Whether `map_tasks(..., n_jobs)` runs its tasks in this process (one after
    another, or on joblib's threads), so that a task may call back into the caller's
    objects (an open file, a lock) instead of only returning its result.

    Parameters
    ----------
    n_jobs : int or None
        As for `effective_n_jobs`.

    Returns
    -------
    bool
    """
    if effective_n_jobs(n_jobs) <= 1:
        return True
    from joblib.parallel import get_active_backend
    # the backend `_joblib_run`'s Parallel(prefer="threads") picks
    return type(get_active_backend(prefer="threads")[0]).__name__ == "ThreadingBackend"


def _local_backend():
    """Whether the joblib backend in use runs on this machine (joblib's own threads
    or processes), rather than a cluster's (Dask, Ray)."""
    from joblib.parallel import get_active_backend
    return type(get_active_backend()[0]).__module__.startswith("joblib._parallel_backends")


def one_thread_per_task():
    """A context in which BLAS and OpenMP pools use one thread each.

    threadpoolctl looks for the pools anew each time (under a millisecond): a library
    loaded since the last look (scipy's own OpenBLAS, say) must be limited too.

    Returns
    -------
    context manager
    """
    from threadpoolctl import threadpool_limits
    return threadpool_limits(limits=1)


def _run_task(function, item, parent_pid):
    """One task. In the parent's process the whole map already runs under the limits
    (threadpoolctl's limits are per process); in a worker process, this task sets them."""
    if os.getpid() == parent_pid:
        return function(item)
    with one_thread_per_task():
        return function(item)


def map_tasks(function, items, n_jobs):
    """[function(item) for item in items], as joblib tasks, in order.

    Parameters
    ----------
    function : callable
        A pure function of its item (module-level, for process and cluster backends).
    items : iterable
        Consumed lazily: joblib asks for a few more items than it runs, so a generator
        of large items (a fold's rows) does not hold them all at once.
    n_jobs : int or None
        As for `effective_n_jobs`; with one job the items run here, in order, without
        joblib.

    Returns
    -------
    list
        The results in the order of `items`.

    Raises
    ------
    What a task raised (joblib re-raises it here and cancels the tasks not yet run).
    """
    jobs = effective_n_jobs(n_jobs)
    if jobs <= 1:
        return [function(item) for item in items]
    return _joblib_run(function, items, jobs if _local_backend() else n_jobs, "list")


def imap_tasks(function, items, n_jobs):
    """`map_tasks` as a generator: each result in the order of `items`, as soon as it
    and the ones before it are done (for callers that report progress).

    Parameters
    ----------
    function, items, n_jobs
        As for `map_tasks`.

    Yields
    ------
    The results in the order of `items`.
    """
    jobs = effective_n_jobs(n_jobs)
    if jobs <= 1:
        for item in items:
            yield function(item)
        return
    with one_thread_per_task():
        # a backend that cannot stream (a cluster's, say) returns the whole list
        yield from _joblib_run(function, items, jobs if _local_backend() else n_jobs,
                               "generator")


def _joblib_run(function, items, n_jobs, return_as):
    import joblib
    parent = os.getpid()
    with one_thread_per_task():
        # prefer="threads": the solvers release the GIL, so local tasks share the data
        # instead of copying it; a joblib context's backend (Dask, Ray, loky) wins
        parallel = joblib.Parallel(n_jobs=n_jobs, prefer="threads")
        if return_as == "generator" and getattr(parallel._backend,
                                                "supports_return_generator", False):
            parallel = joblib.Parallel(n_jobs=n_jobs, prefer="threads",
                                       return_as="generator")
        return parallel(joblib.delayed(_run_task)(function, item, parent)
                        for item in items)
