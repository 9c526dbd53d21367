"""The solvers' Python entries: `solve` (kernel rows, LIBSVM's second-order selection or
Platt's loop) and `solve_linear` (the linear kernel's primal weights).

Both minimise LIBSVM's dual 1/2 a'Qa + p'a subject to y'a = Delta, 0 <= a <= C, and
return a `libsmo._core.solution.Solution`.
"""
import numpy as np

from libsmo._core.linear_smo import solve_linear
from libsmo._core.platt_smo import PlattSolver
from libsmo._core.qmatrix import QMatrix
from libsmo._core.smo import Solver

__all__ = ["SELECTIONS", "solve", "solve_linear"]

SELECTIONS = ("second_order", "platt")


def solve(Q, p, y, C, alpha=None, *, tol=1e-3, shrinking=True, selection="second_order",
          max_iter=None, callback=None, callback_every=1000, nu=False, time_limit=None,
          stop_flag=None, gradient=None, gradient_bar=None, seeded=False):
    """Minimise 1/2 a'Qa + p'a subject to y'a = y'alpha0 and 0 <= a <= C.

    Parameters
    ----------
    Q : QMatrix
        Rows of Q, cached; permuted by the solver as it shrinks (use a fresh one per call).
    p, y, C : array-like of shape (l,)
        Linear term, signs (+1/-1) and per-variable upper bounds (> 0).
    alpha : array-like of shape (l,), optional
        Feasible starting point (default zeros); fixes Delta = y'alpha.
    tol : float
        Stop when m(a) - M(a) <= tol.
    shrinking : bool
    selection : {"second_order", "platt"}
    max_iter : int or None
        Stop after this many steps (status "max_iter").
    callback : callable or None
        Called with a progress dict every `callback_every` steps (and checked at most
        every few milliseconds); returning False stops the solver (status "stopped").
    callback_every : int
    nu : bool
        The nu variant: a second equality constraint, sum of a over y = +1 and over
        y = -1 each fixed by the starting point (nu-SVC, nu-SVR).
    time_limit : float or None
        Seconds after which the solver stops (status "time_limit"), checked every
        32 steps.
    stop_flag : int8 array of shape (1,) or None
        Another thread sets stop_flag[0] = 1 to stop this solver (status "stopped");
        checked every 32 steps.
    gradient, gradient_bar : array-like of shape (l,), optional
        G = Q alpha + p and G_bar = sum of C_i Q_i over the variables at their upper
        bound, at the start `alpha` (both or neither): the solver then skips computing
        them, one kernel row per non-zero alpha. The caller vouches for them.
    seeded : bool
        `alpha` is a warm start from outside (not LIBSVM's own start): a start worse
        than zero is moved to the best point of its ray, and an optimum is declared on
        a gradient computed afresh when the incremental one's rounding may matter (see
        `libsmo._core.smo`).

    Returns
    -------
    Solution
        alpha, gradient (in the caller's order), rho, r (nu variant: (r1 + r2) / 2,
        else 0), objective, n_iter, status, and finite: whether every alpha and gradient
        entry is finite (a kernel that overflows makes them inf or NaN).

    Raises
    ------
    ValueError
        An unknown selection; p, y, C, alpha, gradient or gradient_bar without one
        entry per variable of Q, or only one of the gradients (`Solver`).
    TypeError
        Q is not a QMatrix.
    """
    if selection not in SELECTIONS:
        raise ValueError(f"selection must be one of {SELECTIONS}, got {selection!r}")
    if not isinstance(Q, QMatrix):
        raise TypeError(f"Q must be a QMatrix, got {type(Q).__name__}")
    if alpha is None:
        alpha = np.zeros(Q.n_variables)
    solver_class = PlattSolver if selection == "platt" else Solver
    # (the solver checks the arrays' lengths against Q's variables)
    solver = solver_class(Q, p, y, C, alpha, tol, shrinking, max_iter, callback,
                          callback_every, nu, time_limit, stop_flag, gradient,
                          gradient_bar, seeded)
    return solver.run()

