# cython: language_level=3
"""Multi-class prediction's last loops, row by row on the OpenMP threads: every
one-vs-one pair's decision value from the classes' shares (`pair_decisions`, behind
`_one_vs_one.PairDecisions`) and the classes' tallies of those values (`tally_pairs`:
LIBSVM's votes behind `_one_vs_one.votes`, scikit-learn's one-vs-rest scores behind
`_one_vs_one.ovr_scores`).

They replace numpy loops that ran on one thread over every (row, pair): sector's 105
classes make 5,460 pairs, 17.5 million decision values for its 3,207 test rows, whose
fancy-indexed gathers took 0.21 s, whose pair-by-pair votes took 0.17 s and whose
one-vs-rest scores 0.40 s. Each value is the same double as numpy's: (share_i +
share_j) - rho, with no fused multiply-add, and the confidences the same sums.
"""
from cython.parallel cimport prange
from libc.math cimport isfinite

cdef extern from "openmp_threads.h" nogil:
    int smo_openmp_max_threads()

# Below this many (row, pair) values a loop stays on one thread: an OpenMP region costs
# more than it shares (a binary model's fold in a grid search has one pair).
cdef long long PARALLEL_MIN_VALUES = 1 << 16


cdef int _threads(long long n_values) noexcept nogil:
    if n_values < PARALLEL_MIN_VALUES:
        return 1
    return max(1, smo_openmp_max_threads())


def pair_decisions(const double[:, :, ::1] shares, const double[::1] rho,
                   double[:, ::1] out):
    """Every pair's decision value from the classes' shares, in LIBSVM's pair order.

    Parameters
    ----------
    shares : ndarray of shape (n_rows, k, k - 1)
        shares[r, c, m]: class c's support vectors' part of the decision value of row r
        for the pair of c and its partner on sv_coef row m (`_one_vs_one.coef_row`).
    rho : ndarray of shape (k(k-1)/2,)
    out : ndarray of shape (n_rows, k(k-1)/2)
        Written: out[r, p] = (shares[r, i, j - 1] + shares[r, j, i]) - rho[p] for the
        p-th pair (i, j), i < j.

    Returns
    -------
    int
        How many of the values written are inf or NaN.
    """
    cdef Py_ssize_t n_rows = shares.shape[0], k = shares.shape[1]
    cdef Py_ssize_t n_pairs = k * (k - 1) // 2
    if k < 2:
        return 0
    if shares.shape[2] != k - 1 or rho.shape[0] != n_pairs:
        raise ValueError(f"shares of shape {tuple(shares.shape)[:3]} and {rho.shape[0]} "
                         f"rho values do not describe the same classes")
    if out.shape[0] != n_rows or out.shape[1] != n_pairs:
        raise ValueError(f"out has shape {tuple(out.shape)[:2]}, expected "
                         f"({n_rows}, {n_pairs})")
    cdef Py_ssize_t r, i, j, p
    cdef double value
    cdef long long not_finite = 0
    with nogil:
        for r in prange(n_rows, num_threads=_threads(n_rows * n_pairs),
                        schedule="static"):
            p = 0
            for i in range(k - 1):
                for j in range(i + 1, k):
                    value = (shares[r, i, j - 1] + shares[r, j, i]) - rho[p]
                    out[r, p] = value
                    if not isfinite(value):
                        not_finite += 1
                    p = p + 1
    return not_finite


def tally_pairs(const double[:, ::1] decision_values, long long[:, ::1] counts,
                double[:, ::1] confidence=None):
    """Each class's tally from the pairs' decision values, in LIBSVM's pair order.

    Without `confidence`, LIBSVM's votes: pair (i, j) votes for class i where its
    value is positive, else (zero and NaN included) for j. With it, scikit-learn's
    one-vs-rest tally (`_one_vs_one.ovr_scores`): the vote goes to j only where the
    value is negative (zero and NaN vote for i), and confidence[r, i] += value,
    confidence[r, j] -= value, pair after pair (numpy's order column by column, so
    the same sums).

    Parameters
    ----------
    decision_values : ndarray of shape (n_rows, k(k-1)/2)
    counts : ndarray of int64, shape (n_rows, k)
        Incremented in place.
    confidence : ndarray of shape (n_rows, k), optional
        Added to in place.
    """
    cdef Py_ssize_t n_rows = decision_values.shape[0], k = counts.shape[1]
    cdef Py_ssize_t n_pairs = k * (k - 1) // 2
    cdef bint scikit_learn = confidence is not None
    if counts.shape[0] != n_rows or decision_values.shape[1] != n_pairs or (
            scikit_learn and (confidence.shape[0] != n_rows or confidence.shape[1] != k)):
        raise ValueError(f"{decision_values.shape[1]} decision values a row do not match "
                         f"the pairs of {k} classes, or the row counts differ")
    cdef Py_ssize_t r, i, j, p
    cdef double value
    with nogil:
        for r in prange(n_rows, num_threads=_threads(n_rows * n_pairs),
                        schedule="static"):
            p = 0
            for i in range(k - 1):
                for j in range(i + 1, k):
                    value = decision_values[r, p]
                    if (not value < 0) if scikit_learn else value > 0:
                        counts[r, i] += 1
                    else:
                        counts[r, j] += 1
                    if scikit_learn:
                        confidence[r, i] += value
                        confidence[r, j] -= value
                    p = p + 1
