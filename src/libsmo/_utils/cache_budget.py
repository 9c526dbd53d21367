"""The kernel cache's budget: a number of megabytes as given, or "auto".

`cache_size="auto"` (the default of `libsmo.train` and the estimators; the commands
keep LIBSVM's `-m 100` unless given `-m auto`) means: as much of the cache as helps this
fit, within a share of the machine's memory.

- The bound: `AUTO_MEMORY_FRACTION` of the memory available when the fit starts
  (Linux's MemAvailable in /proc/meminfo, else the free physical pages from
  `os.sysconf`, else `AUTO_FALLBACK_MB`), never less than `AUTO_MIN_MB`; a fit that
  runs its problems as n_jobs tasks gives each task that bound divided by n_jobs.
- Never more than a problem can use: each binary problem's cache is at most its whole Q
  matrix (`execution.cache_megabytes`), so a problem whose Q fits is solved with every
  row it asks for kept; a larger one keeps the rows of its free variables, which its
  steps ask for again and again, ahead of the others (the cache's "ranked" policy).
- Grown while the solver runs: the cache takes memory a row at a time as the solver
  computes rows, and gives it back when the problem is solved; the bound is what it
  may reach, not what it takes up front. A fit whose free set stays small holds little.

Where the cache's size stands for the problem's size in a choice between solvers (the
linear kernel's primal solver for problems whose Q is more than twice the cache,
`linear_solver="auto"`), "auto" counts as `AUTO_POLICY_MB`, the estimators' former
default, so that the choice does not depend on the machine's free memory.
"""
import os

AUTO = "auto"

# The share of the available memory an "auto" cache may reach.
AUTO_MEMORY_FRACTION = 0.5
# Bounds on it: at least LIBSVM's default; this much where the memory cannot be read.
AUTO_MIN_MB = 100.0
AUTO_FALLBACK_MB = 1024.0
# What "auto" counts as where the cache's size chooses a solver.
AUTO_POLICY_MB = 200.0
# where Linux tells the available memory
MEMINFO_PATH = "/proc/meminfo"


def available_megabytes():
    """The memory available to new allocations, in MB, or None where it cannot be read:
    MemAvailable from /proc/meminfo (Linux: free memory plus what the page cache would
    give back), else the free physical pages (`os.sysconf`).

    Returns
    -------
    float or None

    Examples
    --------
    >>> mb = available_megabytes()
    >>> mb is None or mb > 0
    True
    """
    try:
        # one read of the whole file (a few kB), not a text file's lines: a fit with
        # cache_size="auto" reads it once when it starts, and small fits take
        # milliseconds
        fd = os.open(MEMINFO_PATH, os.O_RDONLY)
        try:
            text = os.read(fd, 1 << 16)
        finally:
            os.close(fd)
        start = text.index(b"\nMemAvailable:") + len(b"\nMemAvailable:")
        return int(text[start:text.index(b"\n", start)].split()[0]) / 1024.0
    except (OSError, ValueError, IndexError):
        pass
    try:
        pages, size = os.sysconf("SC_AVPHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    if pages <= 0 or size <= 0:
        return None
    return pages * size / 2**20


def auto_megabytes(available=None):
    """The bound of an "auto" cache: AUTO_MEMORY_FRACTION of the available memory
    (`available_megabytes` when not given), at least AUTO_MIN_MB; AUTO_FALLBACK_MB where
    the memory cannot be read.

    Parameters
    ----------
    available : float, optional
        The available memory in MB.

    Returns
    -------
    float

    Examples
    --------
    >>> auto_megabytes(available=8192.0)
    4096.0
    >>> auto_megabytes(available=50.0)
    100.0
    """
    if available is None:
        available = available_megabytes()
    if available is None:
        return AUTO_FALLBACK_MB
    return max(AUTO_MIN_MB, AUTO_MEMORY_FRACTION * available)


def budget_megabytes(cache_size, share=1):
    """The cache in MB that `cache_size` gives a fit (or each of `share` fits that run
    at once): the number itself, or for "auto" `auto_megabytes()`, divided by share.

    Parameters
    ----------
    cache_size : float or "auto"
    share : int
        Fits that run at the same time and split the budget (n_jobs tasks).

    Returns
    -------
    float

    Examples
    --------
    >>> budget_megabytes(100.0, share=4)
    25.0
    >>> budget_megabytes("auto") >= AUTO_MIN_MB
    True
    """
    total = auto_megabytes() if cache_size == AUTO else float(cache_size)
    return total / share


def policy_megabytes(cache_size):
    """The cache size (MB) that chooses between solvers: the number, or AUTO_POLICY_MB
    for "auto".

    Parameters
    ----------
    cache_size : float or "auto"

    Returns
    -------
    float

    Examples
    --------
    >>> policy_megabytes("auto"), policy_megabytes(100)
    (200.0, 100.0)
    """
    return AUTO_POLICY_MB if cache_size == AUTO else float(cache_size)
