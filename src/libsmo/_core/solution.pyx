# cython: language_level=3
"""What a solver run returns: a `Solution`, immutable once made.

Both solvers (`libsmo._core.smo` with kernel rows, `libsmo._core.linear_smo` with the
primal weights) end by calling `make_solution` with their final alpha and gradient, in
their own variable order and with the map back to the caller's. It computes LIBSVM's
rho (and the nu variant's r) and the dual objective in LIBSVM's order of summation.
"""
import numpy as np
cimport cython
from libc.math cimport isfinite, INFINITY
from libsmo._core.checks import check_indices, check_lengths
from libsmo._core.stopping import STATUS_NAMES


@cython.final
cdef class Solution:
    """The result of one solver run: the optimum (or where the run stopped).

    Attributes
    ----------
    alpha : ndarray of float64, read-only
        The variables, in the caller's order.
    gradient : ndarray of float64, read-only
        G = Qa + p at alpha, in the caller's order.
    rho : float
        LIBSVM's offset: f(x) = sum_i y_i a_i K(x_i, x) - rho (nu variant: (r1 - r2)/2).
    r : float
        The nu variant's (r1 + r2) / 2, by which nu-SVC scales its solution; 0 otherwise.
    objective : float
        1/2 a'Qa + p'a.
    n_iter : int
        Steps taken.
    status : str
        "optimal", "max_iter", "time_limit" or "stopped".
    finite : bool
        Whether every alpha and gradient entry is finite (a kernel that overflows makes
        them inf or NaN).
    kernel_evaluations : int
        Kernel values the run computed (its kernel's `evaluations`: Q's diagonal, the
        rows the cache missed); 0 for the primal solver, which computes none.
    few_free_rebuilds : int
        How often the gradient of shrunk variables was rebuilt while fewer than half
        of the active ones were free: LIBSVM then prints "WARNING: using -h 0 may be
        faster" (verbose output repeats it); 0 without shrinking.
    """

    cdef readonly object alpha
    cdef readonly object gradient
    cdef readonly double rho
    cdef readonly double r
    cdef readonly double objective
    cdef readonly long long n_iter
    cdef readonly str status
    cdef readonly bint finite
    cdef readonly long long kernel_evaluations
    cdef readonly long long few_free_rebuilds

    def __repr__(self):
        return (f"Solution(status={self.status!r}, n_iter={self.n_iter}, "
                f"objective={self.objective!r}, rho={self.rho!r}, n={len(self.alpha)})")


cdef double _group_rho(const double[::1] alpha, const double[::1] G, const double[::1] y,
                       const double[::1] C, bint nu, int group) noexcept nogil:
    """LIBSVM's rho of one sign group (group 0 is every variable without nu; with nu,
    0 is y = +1 and 1 is y = -1): the mean of y G over its free variables, else the
    middle of the interval its bound ones allow. The nu variant uses G itself."""
    cdef Py_ssize_t t
    cdef int n_free = 0
    cdef double yG, free_sum = 0.0, ub = INFINITY, lb = -INFINITY
    cdef bint upper, lower
    for t in range(alpha.shape[0]):
        if nu and (y[t] > 0) != (group == 0):
            continue
        yG = G[t] if nu else y[t] * G[t]
        upper = alpha[t] >= C[t]
        lower = alpha[t] <= 0
        if not upper and not lower:
            n_free += 1
            free_sum += yG
        elif upper == (nu or y[t] > 0):
            # an upper-bound +1 (or any upper-bound variable with nu) and a lower-bound
            # -1 push rho up
            lb = max(lb, yG)
        else:
            ub = min(ub, yG)
    if n_free > 0:
        return free_sum / n_free
    return (ub + lb) / 2


cdef tuple _in_caller_order(const double[::1] alpha, const double[::1] G, order):
    """New alpha and G with entry k moved to position order[k]."""
    cdef const int[::1] to = order
    cdef Py_ssize_t k
    out_alpha, out_G = np.empty(alpha.shape[0]), np.empty(alpha.shape[0])
    cdef double[::1] a = out_alpha, g = out_G
    with nogil:
        for k in range(to.shape[0]):
            a[to[k]] = alpha[k]
            g[to[k]] = G[k]
    return out_alpha, out_G


def _frozen(values, bint copy=True):
    """A private copy (or, with copy=False, `values` itself, an array no one else holds)
    behind a read-only view: the view cannot be made writeable again (its base is
    read-only), and a caller's array keeps its own flags and data."""
    owner = np.array(values, dtype=np.float64) if copy else values
    owner.flags.writeable = False
    return owner.view()


def make_solution(alpha, G, p, y, C, bint nu, long long n_iter, int stop,
                  long long kernel_evaluations=0, long long few_free_rebuilds=0,
                  order=None):
    """The `Solution` of a solver run from its final alpha and gradient.

    Parameters
    ----------
    alpha, G, p, y, C : ndarray of float64 of one length, C-contiguous
        In the solver's order; the Solution keeps read-only copies of alpha and G in
        the caller's order (see `order`).
    nu : bool
        The nu variant: rho per sign group.
    n_iter : int
    stop : int
        The StopReason the run ended with.
    kernel_evaluations : int
        Kernel values the run computed.
    few_free_rebuilds : int
        The run's gradient rebuilds with fewer than half of the active variables free.
    order : ndarray of int or None
        order[k] is the caller's index of the solver's variable k (the solver's
        exchanges while shrinking); None when the two orders are the same.

    Returns
    -------
    Solution
        rho and the objective are LIBSVM's, summed in the solver's order (its variables
        exchanged by shrinking) as LIBSVM sums them. rho is the mean of y G over free
        variables, else the middle of the interval the bound ones allow. The nu variant
        does this per sign group, giving r1 and r2, and has rho = (r1 - r2) / 2,
        r = (r1 + r2) / 2.

    Raises
    ------
    ValueError
        G, p, y, C or order without one entry per entry of alpha, or order with an
        index outside [0, len(alpha)): the loops below do not check their indices
        (boundscheck is off).
    """
    check_lengths(len(alpha), "alpha's entries", G=G, p=p, y=y, C=C)
    if order is not None:
        order = np.ascontiguousarray(order, dtype=np.int32)
        check_lengths(len(alpha), "alpha's entries", order=order)
        check_indices(order, len(alpha), "order entry", ValueError)
    cdef const double[::1] a = alpha, g = G, pv = p, yv = y, c = C
    cdef Py_ssize_t t
    cdef double r1, r2 = 0.0, objective = 0.0
    cdef bint finite = True
    with nogil:
        r1 = _group_rho(a, g, yv, c, nu, 0)
        if nu:
            r2 = _group_rho(a, g, yv, c, nu, 1)
        for t in range(a.shape[0]):
            objective += a[t] * (g[t] + pv[t])
            finite = finite and isfinite(a[t]) and isfinite(g[t])
    cdef Solution out = Solution.__new__(Solution)
    if order is not None:
        alpha, G = _in_caller_order(a, g, order)
    # the moved arrays are new: frozen as they are
    out.alpha = _frozen(alpha, copy=order is None)
    out.gradient = _frozen(G, copy=order is None)
    out.rho = (r1 - r2) / 2 if nu else r1
    out.r = (r1 + r2) / 2 if nu else 0.0
    out.objective = objective / 2
    out.n_iter = n_iter
    out.status = STATUS_NAMES[stop]
    out.finite = finite
    out.kernel_evaluations = kernel_evaluations
    out.few_free_rebuilds = few_free_rebuilds
    return out
