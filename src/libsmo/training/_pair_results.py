"""The one-vs-one pairs of a fit with many classes: their results kept in flat arrays, a
progress report on the "libsmo" logger, and the bounds that refuse a fit before it
starts.

k classes make k(k-1)/2 binary problems. A fit keeps, for each, only what the model
needs: its coefficients (two or more rows a pair, so memory grows with the pairs' sizes,
(k - 1) rows in all for every training row) and a few numbers (rho, the statistics), in
arrays made once (`PairResults`), rather than a Python object per pair, which cost
hundreds of bytes each (10^4 classes, 5 * 10^7 pairs: tens of gigabytes).

    pairs (LIBSVM's order) ──train_pair──> BinaryFit ──PairResults.store──> flat arrays
        ──classification.one_vs_one_result──> LIBSVM's sv_coef, rho ──> Model
"""
import functools
import logging
import math
import os
import resource
import threading
import time

import numpy as np

from libsmo._utils.names import INT_MAX
from libsmo.training._problem import ProblemStatistics

__all__ = ["MODEL_BYTES_PER_PAIR", "PROGRESS_MIN_PAIRS", "PairProgress", "PairResults",
           "check_one_vs_one_bounds", "memory_limit", "pair_indices"]

logger = logging.getLogger("libsmo")

#: Bytes a model holds for each pair besides sv_coef: rho (8 bytes) and the training
#: statistics n_iter, objective, status and kernel_evaluations, entries of lists (a
#: pointer each, and a float or a large int object of 24-32 bytes); with the flat
#: arrays of the fit itself (`PairResults`, 45 bytes), the least a pair costs.
MODEL_BYTES_PER_PAIR = 96

#: A fit of at least this many pairs reports its progress (`PairProgress`).
PROGRESS_MIN_PAIRS = 10_000

# the status words a pair can end with, stored as their index
_STATUSES = ("optimal", "max_iter", "time_limit", "stopped")


# pair_indices keeps the pairs of up to this many classes, made once a process
# (read-only): numpy's triu_indices takes tens of microseconds, and a fit of a few
# classes takes a millisecond
CACHED_PAIRS_MAX_CLASSES = 256


def pair_indices(k):
    """The pairs (i, j), i < j, of k classes in LIBSVM's order, as two int32 arrays
    (`_one_vs_one.pairs` as arrays: 8 bytes a pair instead of a tuple's 64); read-only
    for up to CACHED_PAIRS_MAX_CLASSES classes.

    Examples
    --------
    >>> first, second = pair_indices(3)
    >>> list(zip(first.tolist(), second.tolist()))
    [(0, 1), (0, 2), (1, 2)]
    """
    if k <= CACHED_PAIRS_MAX_CLASSES:
        return _cached_pair_indices(k)
    return _new_pair_indices(k)


@functools.lru_cache(maxsize=None)
def _cached_pair_indices(k):
    first, second = _new_pair_indices(k)
    first.flags.writeable = second.flags.writeable = False
    return first, second


def _new_pair_indices(k):
    first, second = np.triu_indices(k, 1)
    return first.astype(np.int32), second.astype(np.int32)


def memory_limit():
    """The most memory this process can have, in bytes: the machine's physical memory,
    or the address-space limit (RLIMIT_AS) when it is lower; None when neither is
    known."""
    limits = []
    try:
        limits.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY and soft > 0:
        limits.append(soft)
    return min(limits) if limits else None


def check_one_vs_one_bounds(k, n_rows):
    """Refuse, before any training, a one-vs-one fit certain to exceed a bound.

    The bounds:

    - the number of pairs k(k-1)/2 at most LIBSVM's INT_MAX (2^31 - 1): LIBSVM's
      svm_model counts its pairs, and indexes rho, with a C int;
    - the least memory the model needs within `memory_limit()`: its sv_coef holds
      (k - 1) x n_SV doubles, and every class has a support vector (a pair's optimum
      is never a = 0), so at least 8 (k - 1) k bytes; and each pair's rho and
      statistics, `MODEL_BYTES_PER_PAIR` each.

    Parameters
    ----------
    k : int
        Classes.
    n_rows : int
        Training rows (they take part in k - 1 pairs each).

    Raises
    ------
    ValueError
        A bound is exceeded; the message names it.

    Examples
    --------
    >>> check_one_vs_one_bounds(10, 1000)
    >>> check_one_vs_one_bounds(10**6, 10**6)
    Traceback (most recent call last):
    ...
    ValueError: y has 1000000 classes: one-vs-one training would make 499999500000 pairs, more than LIBSVM's INT_MAX (2147483647) that a model can count
    """
    n_pairs = k * (k - 1) // 2
    if n_pairs > INT_MAX:
        raise ValueError(f"y has {k} classes: one-vs-one training would make {n_pairs} "
                         f"pairs, more than LIBSVM's INT_MAX ({INT_MAX}) that a model can "
                         "count")
    least = 8.0 * (k - 1) * k + MODEL_BYTES_PER_PAIR * n_pairs
    limit = memory_limit()
    if limit is not None and least > limit:
        raise ValueError(
            f"y has {k} classes: the one-vs-one model of its {n_pairs} pairs needs at least "
            f"{least / 2**30:.1f} GiB (its sv_coef of (k - 1) x n_SV doubles with a "
            f"support vector per class at least, and each pair's rho and statistics), "
            f"more than the {limit / 2**30:.1f} GiB this process can have")


class PairResults:
    """Every pair's result, in flat arrays made once.

    Pair p's coefficients (its rows: class a's, then class b's) are
    ``coef[offsets[p]:offsets[p + 1]]``; its rho, objective, steps, status and kernel
    values are entry p of the other arrays. Pairs may be stored from several threads
    (each writes its own entries).

    Parameters
    ----------
    sizes : ndarray of int
        Each pair's rows, in LIBSVM's pair order.
    """

    def __init__(self, sizes):
        sizes = np.asarray(sizes, dtype=np.int64)
        n = len(sizes)
        self.offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(sizes, out=self.offsets[1:])
        self.coef = np.zeros(int(self.offsets[-1]))
        self.rho = np.zeros(n)
        self.objective = np.zeros(n)
        self.n_iter = np.zeros(n, dtype=np.int64)
        self.status = np.zeros(n, dtype=np.int8)
        self.kernel_evaluations = np.full(n, -1, dtype=np.int64)   # -1: not counted

    def __len__(self):
        return len(self.rho)

    def store(self, p, fit):
        """Keep pair p's `BinaryFit`."""
        self.coef[self.offsets[p]:self.offsets[p + 1]] = fit.coef
        self.rho[p] = fit.rho
        self.objective[p] = fit.objective
        self.n_iter[p] = fit.n_iter
        self.status[p] = _STATUSES.index(fit.status)
        if fit.kernel_evaluations is not None:
            self.kernel_evaluations[p] = fit.kernel_evaluations

    def pair_coef(self, p):
        """Pair p's coefficients (a view)."""
        return self.coef[self.offsets[p]:self.offsets[p + 1]]

    def statistics(self):
        """The pairs' `ProblemStatistics`, as the model records them."""
        counted = bool(np.all(self.kernel_evaluations >= 0))
        return ProblemStatistics(
            n_iter=self.n_iter.tolist(), objective=self.objective.tolist(),
            status=[_STATUSES[s] for s in self.status.tolist()],
            kernel_evaluations=self.kernel_evaluations.tolist() if counted else [])


class PairProgress:
    """The progress of a fit of many pairs on the "libsmo" logger (INFO): a line at
    each hundredth of the pairs, for fits of at least `PROGRESS_MIN_PAIRS` pairs (the
    commands print it on stderr, apart from LIBSVM's lines). Safe to call from the
    pairs' threads.

    Parameters
    ----------
    n_pairs : int
    """

    def __init__(self, n_pairs):
        self.n_pairs = n_pairs
        self.done = 0
        self.step = max(1, math.ceil(n_pairs / 100))
        self.active = n_pairs >= PROGRESS_MIN_PAIRS
        self.start = time.monotonic()
        self.lock = threading.Lock()

    def pair_done(self):
        """Count one pair, and report at each hundredth."""
        if not self.active:
            return
        with self.lock:
            self.done += 1
            done = self.done
        if done % self.step == 0 or done == self.n_pairs:
            logger.info("libsmo: %d of %d one-vs-one pairs trained (%d%%), %.0f s",
                        done, self.n_pairs, 100 * done // self.n_pairs,
                        time.monotonic() - self.start, extra={"libsmo_progress": True})
