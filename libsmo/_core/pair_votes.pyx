# cython: language_level=3
"""Multi-class prediction's last two loops, row by row on the OpenMP threads: every
one-vs-one pair's decision value from the classes' shares (`pair_decisions`, behind
`_one_vs_one.PairDecisions`) and the votes of those values (`add_votes`, behind
`_one_vs_one.votes`).

Both replace numpy loops that ran on one thread over every (row, pair): sector's 105
classes make 5,460 pairs, 17.5 million decision values for its 3,207 test rows, whose
fancy-indexed gathers took 0.21 s and whose pair-by-pair votes took 0.17 s. Each value
is the same double as numpy's: (share_i + share_j) - rho, with no fused multiply-add.
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


def add_votes(const double[:, ::1] decision_values, long long[:, ::1] counts):
    """Count the votes of every pair: pair (i, j) votes for class i where its decision
    value is positive, else (zero and NaN included) for j.

    Parameters
    ----------
    decision_values : ndarray of shape (n_rows, k(k-1)/2)
        In LIBSVM's pair order.
    counts : ndarray of int64, shape (n_rows, k)
        Incremented in place.
    """
    cdef Py_ssize_t n_rows = decision_values.shape[0], k = counts.shape[1]
    cdef Py_ssize_t n_pairs = k * (k - 1) // 2
    if counts.shape[0] != n_rows or decision_values.shape[1] != n_pairs:
        raise ValueError(f"{decision_values.shape[1]} decision values a row do not match "
                         f"the pairs of {k} classes, or the row counts differ")
    cdef Py_ssize_t r, i, j, p
    with nogil:
        for r in prange(n_rows, num_threads=_threads(n_rows * n_pairs),
                        schedule="static"):
            p = 0
            for i in range(k - 1):
                for j in range(i + 1, k):
                    if decision_values[r, p] > 0:
                        counts[r, i] += 1
                    else:
                        counts[r, j] += 1
                    p = p + 1
