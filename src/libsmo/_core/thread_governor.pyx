# cython: language_level=3
"""Python access to thread_governor.h's decisions, for tests: the solver itself keeps a
`SmoThreadGovernor` and asks it at its steps (`smo.due`)."""


def decisions(int max_threads, windows):
    """The threads a governor of `max_threads` chooses after each of `windows`.

    Parameters
    ----------
    max_threads : int
    windows : iterable of (float, float)
        (wall seconds, the process's CPU seconds) as the clock and getrusage would give
        them, ascending, starting after (0.0, 0.0).

    Returns
    -------
    list of int
    """
    cdef SmoThreadGovernor g
    smo_governor_start(&g, max_threads, 0.0, 0.0)
    return [smo_governor_decide(&g, now, cpu) for now, cpu in windows]
