"""Starts for LIBSVM's linear C-SVC and one-class SVM from LIBLINEAR's coordinate
descents.

The one-class SVM's dual, min 1/2 a'Qa subject to 0 <= a_t <= U_t and e'a = nu sum U,
is LIBLINEAR's -s 21 problem, and its stopping measure is SMO's m(a) - M(a): LIBLINEAR's
two-level coordinate descent (`libsmo._core.linear_oneclass`) runs from LIBSVM's start
to SMO's tol on the rows' O(nnz) passes, with no kernel rows (`one_class_cd_start`), and
SMO then confirms it, usually without a step. The rest of this note is the C-SVC's.

LIBSVM's C-SVC has an unregularised intercept b, which ties its dual to the equality
constraint y'a = 0:

    min_a 1/2 a'Qa - e'a   subject to   y'a = 0,  0 <= a_t <= C_t.

SMO keeps that constraint by moving two variables at a time, and with the linear
kernel each of its steps refreshes the free examples' gradients (`libsmo._core.
linear_smo`), a sparse dot product each: many steps of that cost. LIBLINEAR's
coordinate descent (`libsmo._core.linear_cd`) moves one variable at a time and so
cannot keep y'a = 0, but it solves the problem with the constraint's Lagrangian term
added for a fixed multiplier b (`svc_dual`'s `shift`: the intercept held at b), and with
LIBLINEAR's bias feature, a constant column of value B whose weight is B y'a, it adds
the penalty B^2/2 (y'a)^2. Together they are the method of multipliers (the augmented
Lagrangian; Hestenes 1969, Powell 1969; Bertsekas, "Constrained Optimization and
Lagrange Multiplier Methods", 1982):

    a_(k+1) = argmin over the box of 1/2 a'Qa - e'a + b_k y'a + B^2/2 (y'a)^2,
    b_(k+1) = b_k + B^2 y'a_(k+1)    (the run's intercept: b_k + B times the bias weight)

each run starting from the last one's a. The intercept converges to LIBSVM's (-rho)
and y'a to 0 however the runs' answers err, each step a proximal step on the dual
function of b: fast where y'a(b) is steep (w8a), and with B the rows' root mean square
norm (the penalty on the scale of Q) fast enough where it is flat (a9a, whose one-hot
features trade the intercept against their weights). A run stops at a tolerance on the
scale of what its y'a still moves the gradient by, down to a share of SMO's tol. The
last a is brought onto y'a = 0 by its free variables (`make_feasible`), and SMO goes on
from there to LIBSVM's stopping rule, m(a) - M(a) <= tol over every example: the
answer is the cold solver's optimum to the same tolerance, usually after no or few SMO
steps. Where the runs stop at their epoch cap (a large C on data that are not
separable) SMO has many steps left; the executor then lets the primal solver take a
bounded number and the kernel solver the rest, started with the gradients that
`linear_gradients` computes through w.

The start is a start: whatever it reaches, SMO's stopping rule decides the answer, and
a start that used up its epochs hands over where it is.
"""
from typing import NamedTuple

import numpy as np

from libsmo._core.linear_cd import dual_diagonal, svc_dual
from libsmo._core.linear_oneclass import one_class_dual
from libsmo._core.linear_rows import LinearRows
from libsmo._utils import sparse as sp
from libsmo.training._warm_start import make_feasible

# The first run stops at LIBLINEAR's default tolerance of the dual; the last ones at
# this share of SMO's tol. A run that met it has projected gradients within it, which
# bounds SMO's violation m(a) - M(a) by twice that at y'a = 0; the runs end once |y'a|
# is at most RESIDUAL_SHARE tol over the rows' mean square norm, about what spreading
# y'a over the free variables then moves the gradient by. 2 x 0.25 + 0.25 < 1: such a
# start meets SMO's rule as it is, where one just above it may still cost SMO many of
# its dear steps.
LOOSE_TOL = 0.1
TOL_SHARE = 0.25
RESIDUAL_SHARE = 0.25
# epochs of one run of coordinate descent (LIBLINEAR's cap), and runs at most: a
# problem that needs more (a large C on data that are not separable) hands over to SMO
# where it is
EPOCHS = 1000
MAX_ROUNDS = 50
# the runs at SMO's tol or tighter give each epoch's two extreme violators this many
# more steps (`svc_dual`'s revisits, LinearSVC's default): there a pair of coupled rows
# can hold a run for hundreds of epochs. The looser runs keep LIBLINEAR's steps: with
# revisits they end at other points, from which the multiplier's steps can take more
# runs than the revisits save
START_REVISITS = 16
# the one-class start's outer iterations at most (LIBLINEAR's cap for -s 21): one that
# needs more hands over to SMO where it is
ONE_CLASS_ITERATIONS = 1000


def coordinate_rows(X):
    """X as the coordinate descent reads it (`LinearRows`): CSR with float values and
    int32 column indices, or a C-contiguous float array; copied where X is not, byte
    rows as float32 (exact, half of float64's copy, and read as their float64 values,
    so that bytes and their doubles start from the same point).

    Examples
    --------
    >>> import numpy as np
    >>> from libsmo.training._linear_start import coordinate_rows
    >>> coordinate_rows(np.array([[1, 2], [3, 4]], dtype=np.uint8)).dtype
    dtype('float32')
    """
    if sp.issparse(X):
        data = X.data if X.data.dtype in (np.float64, np.float32) else X.data.astype(
            np.float64)
        if X.indices.dtype != np.int32 or data is not X.data:
            X = sp.csr_matrix((data, X.indices.astype(np.int32), X.indptr), shape=X.shape)
        return X
    X = np.asarray(X)
    if X.dtype not in (np.float64, np.float32):
        X = X.astype(np.float32 if X.dtype == np.uint8 else np.float64)
    return np.ascontiguousarray(X)


class LinearStart(NamedTuple):
    """`dual_cd_start`'s answer: the feasible start, and whether its last run of
    coordinate descent met the bounds under which the start meets SMO's stopping rule
    as it is (else SMO has steps left, how many the start cannot tell)."""
    alpha: np.ndarray
    near: bool


def dual_cd_start(X, rows, signs, upper_bound, tol, stop_flag=None):
    """A feasible start for the linear C-SVC on `rows` of X, near its optimum.

    Parameters
    ----------
    X : ndarray or csr_matrix
        The training rows, as `coordinate_rows` gives them.
    rows : ndarray of int
        The problem's rows of X (variable t is row rows[t]); distinct.
    signs : ndarray of shape (len(rows),)
        y_t in {+1, -1}.
    upper_bound : ndarray of shape (len(rows),)
        C_t (> 0 and finite).
    tol : float
        SMO's tolerance on m(a) - M(a).
    stop_flag : int8 array of shape (1,), optional
        Another thread sets it to 1 to stop the fit.

    Returns
    -------
    LinearStart
        alpha of shape (len(rows),) with 0 <= alpha_t <= C_t and y'alpha = 0 (to
        rounding); near: whether the last run converged at 0.25 tol with |y'a| small
        enough that the start meets m(a) - M(a) <= tol.

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C (or what another signal's handler raised).

    Examples
    --------
    >>> import numpy as np
    >>> from libsmo.training._linear_start import dual_cd_start
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 2.5]])
    >>> y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> start = dual_cd_start(X, np.arange(4), y, np.full(4, 10.0), 1e-3)
    >>> alpha = start.alpha
    >>> bool(abs(y @ alpha) < 1e-12), bool(np.all((alpha >= 0) & (alpha <= 10))), start.near
    (True, True, True)
    """
    n = X.shape[0]
    order = np.ascontiguousarray(rows, dtype=np.int32)
    signs = np.asarray(signs, dtype=np.float64)
    upper_bound = np.asarray(upper_bound, dtype=np.float64)
    row_signs, row_bounds = np.ones(n), np.ones(n)
    row_signs[order] = signs
    row_bounds[order] = upper_bound
    plain = LinearRows(X)
    squares = dual_diagonal(plain, order, row_bounds)
    mean_square = float(np.mean(squares[order])) if len(order) else 0.0
    if not np.isfinite(mean_square) or mean_square <= 0:
        return LinearStart(np.zeros(len(order)), False)
    scale = np.sqrt(mean_square)
    # dense rows summed in four interleaved sums: SMO's stopping rule, not these
    # bits, decides the answer, and one chain of additions a row is the runs' cost
    data = LinearRows(X, bias=scale, ordered=False)
    diagonal = squares + scale * scale      # svc_dual adds the bias's square last too
    enough = RESIDUAL_SHARE * tol / mean_square
    final_tol = TOL_SHARE * tol
    alpha, shift, run_tol, near = None, 0.0, LOOSE_TOL, False
    for _ in range(MAX_ROUNDS):
        solution = svc_dual(data, order, row_signs, row_bounds, tol=run_tol,
                            max_iter=EPOCHS, start=alpha, shift=shift, diagonal=diagonal,
                            stop_flag=stop_flag,
                            revisits=START_REVISITS if run_tol <= tol else 0)
        alpha = solution.dual
        residual = float(signs @ alpha[order])
        # the multiplier's step: B^2 y'a is B times the bias feature's weight
        shift += scale * float(solution.w[-1])
        if run_tol <= final_tol and (solution.status != "optimal"
                                     or abs(residual) <= enough):
            near = solution.status == "optimal"
            break
        if solution.status == "stopped":
            break
        # the next run as precise as what y'a still moves the gradient by (at least)
        run_tol = max(final_tol, min(LOOSE_TOL, abs(residual) * mean_square))
    return LinearStart(make_feasible(alpha[order], signs, upper_bound), near)


def one_class_cd_start(X, rows, upper_bound, start, tol, stop_flag=None):
    """A start for the linear one-class SVM on `rows` of X, at SMO's stopping rule where
    LIBLINEAR's two-level coordinate descent reaches it within ONE_CLASS_ITERATIONS.

    Parameters
    ----------
    X : ndarray or csr_matrix
        The training rows, as `coordinate_rows` gives them.
    rows : ndarray of int
        The problem's rows of X (variable t is row rows[t]).
    upper_bound : ndarray of shape (len(rows),)
        U_t (> 0 and finite).
    start : ndarray of shape (len(rows),)
        LIBSVM's feasible start (its sum is kept).
    tol : float
        SMO's tolerance on m(a) - M(a), the method's own stopping measure.
    stop_flag : int8 array of shape (1,), optional
        Another thread sets it to 1 to stop the fit.

    Returns
    -------
    ndarray of shape (len(rows),)
        Within the bounds, of the start's sum (to rounding).

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C (or what another signal's handler raised).

    Examples
    --------
    >>> import numpy as np
    >>> from libsmo.training._linear_start import one_class_cd_start
    >>> X = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [0.0, 2.0]])
    >>> one_class_cd_start(X, np.arange(4), np.ones(4), np.array([1.0, 1.0, 0, 0]),
    ...                    1e-3).tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    solution, _ = one_class_dual(LinearRows(X), start, order=rows, bounds=upper_bound,
                                 tol=tol, max_iter=ONE_CLASS_ITERATIONS,
                                 stop_flag=stop_flag)
    return np.array(solution.dual)


def linear_gradients(X, rows, signs, upper_bound, alpha):
    """G = Q alpha - e and G_bar = sum of C_s Q_s over the variables at their bound, for
    the linear kernel through w (O(nnz) where the kernel solver would sum a kernel row
    for every support vector): a start the kernel solver takes with them as they are.

    Parameters
    ----------
    X : ndarray or csr_matrix
    rows, signs, upper_bound, alpha : ndarray of shape (l,)
        The problem's rows of X, y_t, C_t and the start.

    Returns
    -------
    (ndarray, ndarray) of shape (l,) each

    Examples
    --------
    >>> import numpy as np
    >>> from libsmo.training._linear_start import linear_gradients
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> G, G_bar = linear_gradients(X, np.arange(2), np.array([1.0, -1.0]),
    ...                             np.ones(2), np.array([1.0, 0.5]))
    >>> G.tolist(), (G_bar + 0.0).tolist()
    ([0.0, 1.0], [1.0, 0.0])
    """
    # over all of X's rows, the others' coefficients 0: no copy of the problem's rows
    # (dense random features of a9a, D = 3,000: 780 MB)
    coefficients = np.zeros((X.shape[0], 2))
    coefficients[rows, 0] = alpha * signs
    coefficients[rows, 1] = np.where(alpha >= upper_bound, upper_bound * signs, 0.0)
    weights = np.asarray(X.T @ coefficients)
    sums = np.asarray(X @ weights)[rows]
    return signs * sums[:, 0] - 1.0, signs * sums[:, 1]
