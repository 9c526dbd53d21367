"""The linear SVMs' binary (and regression) problems as tasks, and how each is solved:
LIBLINEAR's dual coordinate descent (`libsmo._core.linear_cd`) or its primal Newton
method (`libsmo._core.linear_newton`), and the switch from a stalled dual to the Newton
method that LIBLINEAR makes for the squared losses (-s 1, -s 12), and for the hinge and
the epsilon-insensitive loss the Newton method on their smoothed primal before their
dual confirms (`finish_smoothed`); the
L1-regularised squared hinge over the features' columns (`libsmo._core.linear_l1`,
-s 5); and Crammer and Singer's joint multi-class problem (`libsmo._core.linear_cs`,
-s 4).

A `LinearTask` holds everything one problem needs (the rows, read in place, its
targets, bounds, method, seed and start), so that one-vs-rest classes run as joblib
tasks (`libsmo._utils.parallel.map_tasks`); `solve_task` returns a `LinearFit`.
"""
from dataclasses import dataclass

import numpy as np

from libsmo._core.linear_cd import dual_diagonal, svc_dual, svr_dual
from libsmo._core.linear_cs import crammer_singer
from libsmo._core.linear_l1 import l1_svc
from libsmo._core.linear_newton import primal_newton
from libsmo._core.linear_rows import LinearRows

__all__ = ["FeatureColumns", "LinearFit", "LinearTask", "choose_dual", "dual_visits",
           "finish_smoothed", "primal_tolerance", "shared_diagonals",
           "solve_crammer_singer", "solve_guarded", "solve_task"]

# the (loss, penalty, dual) that LIBLINEAR solves, with its solver numbers
SOLVER_TYPES = {("hinge", "l2", True): 3, ("squared_hinge", "l2", True): 1,
                ("squared_hinge", "l2", False): 2, ("squared_hinge", "l1", False): 5,
                ("epsilon_insensitive", "l2", True): 13,
                ("squared_epsilon_insensitive", "l2", True): 12,
                ("squared_epsilon_insensitive", "l2", False): 11}

# what LIBLINEAR 2.50 multiplies the primal tolerance by when it continues a stalled
# dual with the Newton method (-s 1: 0.1, -s 12: 0.001)
SWITCH_TOL = {False: 0.1, True: 0.001}
# the statuses of a run that ended at its own stopping rule ("stalled": the Newton
# method found no more decrease, where LIBLINEAR stops without a warning)
REACHED = ("optimal", "stalled")
# the Newton steps the switched method may take (LIBLINEAR's NEWTON default), whatever
# epochs the dual had
SWITCH_MAX_ITER = 1000
# the most examples a dual's count of visits may reach (a signed 64-bit count)
MAX_VISITS = 1 << 62


def choose_dual(loss, penalty, dual, shape):
    """Whether to solve the dual: `dual` as given, or for "auto" scikit-learn's choice
    (the dual where there are fewer samples than features, or where the primal is not
    available, else the primal).

    Raises
    ------
    ValueError
        A combination LIBLINEAR does not solve (scikit-learn's message).
    """
    available = {d for d in (True, False) if (loss, penalty, d) in SOLVER_TYPES}
    if dual != "auto":
        if dual not in available:
            raise ValueError(
                f"Unsupported set of arguments: The combination of penalty='{penalty}' "
                f"and loss='{loss}' are not supported when dual={dual}, Parameters: "
                f"penalty='{penalty}', loss='{loss}', dual={dual}")
        return dual
    if not available:
        raise ValueError(
            f"Unsupported set of arguments: The combination of penalty='{penalty}' and "
            f"loss='{loss}' is not supported, Parameters: penalty='{penalty}', "
            f"loss='{loss}', dual={dual}")
    prefer = shape[0] < shape[1]
    return prefer if prefer in available else not prefer


@dataclass(frozen=True)
class LinearTask:
    """One binary (or regression) problem for `solve_task`: its rows, targets (signs or
    values), bounds C_i, the method and its settings, the seed and the start."""
    rows: LinearRows
    order: np.ndarray
    targets: np.ndarray
    bounds: np.ndarray
    dual: bool
    squared: bool
    regression: bool
    epsilon: float
    tol: float
    max_iter: int
    seed: int
    stop_flag: np.ndarray
    start: object = None      # a dual start (n_rows,) or a primal w (n_weights,)
    columns: object = None    # penalty="l1": `FeatureColumns` of the problem's rows
    diagonal: object = None   # the classification dual's Q_ii + D_ii (`shared_diagonals`)
    threads: int = 1          # the Newton method's threads over the rows
    # the dual of a loss without a primal method to go on by (the hinge, the
    # epsilon-insensitive loss) goes on past max_iter epochs for the work of max_iter
    # full epochs (`svc_dual`'s max_visits): the estimators' rule; LIBLINEAR's
    # commands stop at max_iter epochs, as LIBLINEAR does
    epochs_as_work: bool = False
    # the classification dual's extra steps on each epoch's two extreme violators
    # (`svc_dual`'s revisits): LinearSVC passes its own (16 by default); 0, LIBLINEAR's
    # steps, for LIBLINEAR's commands and where scikit-learn's steps are asked for
    revisits: int = 0


@dataclass(frozen=True)
class FeatureColumns:
    """The problem's rows by feature (LIBLINEAR's transpose, for penalty="l1"): column
    j's values and their rows' positions in the problem in [ptr[j], ptr[j + 1]), the
    bias column last."""
    values: np.ndarray
    rows: np.ndarray
    ptr: np.ndarray

    @classmethod
    def of(cls, X, order, bias):
        """The columns of X's rows `order` (in that order), and a bias column of value
        `bias` (> 0) after them."""
        import scipy.sparse as sp
        part = sp.csr_matrix(X[order]) if not sp.issparse(X) else X[order]
        if bias > 0:
            part = sp.hstack([part, np.full((len(order), 1), bias)], format="csr")
        cols = part.tocsc()
        cols.sort_indices()
        return cls(np.asarray(cols.data, dtype=np.float64),
                   np.asarray(cols.indices, dtype=np.int32),
                   np.asarray(cols.indptr, dtype=np.int64))


@dataclass(frozen=True)
class LinearFit:
    """A solved problem: the weights (bias last), the dual point, the iterations the
    methods took in all, whether it reached its tolerance, the method that finished
    it ("dual", "primal", "dual+primal" after a switch, "dual+primal+dual" where the
    dual went on after the switched method stalled, "dual+dual" where the switched
    method overflowed and the dual went on from its own point) and its objective; after a
    switch, the dual's own `LinearSolution` (its epochs, objective and point, which
    liblinear-train reports before it switches)."""
    w: np.ndarray
    dual: np.ndarray
    n_iter: int
    converged: bool
    method: str
    objective: float
    switched_from: object = None


def shared_diagonals(rows, order, bounds, squared_hinge):
    """The dual's diagonal Q_ii + D_ii of each one-vs-rest problem (`dual_diagonal`),
    computed once for the problems that share it: every problem for the hinge (D is 0),
    the problems with equal bounds for the squared hinge (all of them without class
    weights). Each is the array the problem's own solver would compute, bit for bit.

    Parameters
    ----------
    rows : LinearRows
    order : array of int
        The rows in the problems.
    bounds : list of arrays of shape (n_rows,)
        Each problem's C_i.
    squared_hinge : bool

    Returns
    -------
    list of ndarray
        One per problem (the same array for problems that share it).
    """
    known = {}      # the bounds' bytes (the hinge: one key) -> their diagonal
    diagonals = []
    for b in bounds:
        key = np.ascontiguousarray(b, dtype=np.float64).tobytes() if squared_hinge else None
        if key not in known:
            known[key] = dual_diagonal(rows, order, b, squared_hinge=squared_hinge)
        diagonals.append(known[key])
    return diagonals


# the stored values a thread of the Newton method's row passes at least: on fewer,
# waking the threads for every pass costs more than sharing the pass saves (housing's
# 5,000 values took 15 times LIBLINEAR's time on two threads, as liblinear-multicore's -m 2)
VALUES_A_THREAD = 1 << 16


def newton_threads(rows, threads):
    """The threads for the Newton method's passes over `rows` (`LinearRows`): at most
    `threads`, one for each VALUES_A_THREAD stored values, and one at least."""
    return max(1, min(int(threads), rows.n_values // VALUES_A_THREAD))


def primal_tolerance(task):
    """LIBLINEAR's primal tolerance: tol, for classification scaled by
    max(min(#positive, #negative), 1) / l over the problem's rows."""
    if task.regression:
        return task.tol
    positive = int(np.count_nonzero(task.targets[task.order] > 0))
    l = len(task.order)
    return task.tol * max(min(positive, l - positive), 1) / max(l, 1)


def dual_visits(task):
    """The examples the dual of `task` may visit in all (`svc_dual`'s max_visits): for
    a task with `epochs_as_work` whose loss has no primal method, max_iter full epochs'
    worth (capped where that would overflow the solver's count); else 0, max_iter
    epochs."""
    if not task.epochs_as_work or task.squared:
        return 0
    return min(task.max_iter * len(task.order), MAX_VISITS)


# a primal fit whose gradient overflows at its start (values of about 1e150 and up)
NEWTON_OVERFLOW = ("X's values overflow the primal Newton method's arithmetic (its "
                   "gradient's norm is beyond the largest double): scale the features, "
                   "or use the dual method, which leaves such rows out as LIBLINEAR's "
                   "does")


def solve_task(task):
    """Solve one `LinearTask`: the dual coordinate descent or the primal Newton method,
    and after a dual that reached max_iter with a squared loss the Newton method from
    the dual's weights, at LIBLINEAR's reduced tolerance (LIBLINEAR's -s 1 and -s 12).
    The other losses' dual, where the task counts its work (`epochs_as_work`), goes on
    past max_iter epochs within max_iter full epochs' visits (`dual_visits`), and the
    hinge's and the epsilon-insensitive loss's, where that ends short of tol, by
    `finish_smoothed`.

    Returns
    -------
    LinearFit
    """
    common = dict(tol=task.tol, max_iter=task.max_iter, stop_flag=task.stop_flag)
    if task.columns is not None:
        signs = task.targets[task.order]
        cols = task.columns
        sol = l1_svc(cols.values * signs[cols.rows], cols.rows, cols.ptr, signs,
                     task.bounds[task.order], seed=task.seed,
                     **dict(common, tol=primal_tolerance(task)))
        return LinearFit(sol.w, sol.dual, sol.n_iter, sol.status in REACHED, "l1",
                         sol.objective)
    if not task.dual:
        start = task.start if task.start is not None and len(task.start) == \
            task.rows.n_weights else None
        sol = primal_newton(task.rows, task.order, task.targets, task.bounds,
                            regression=task.regression, epsilon=task.epsilon,
                            start=start, n_threads=task.threads,
                            **dict(common, tol=primal_tolerance(task)))
        if sol.status == "overflowed":
            raise ValueError(NEWTON_OVERFLOW)
        return LinearFit(sol.w, sol.dual, sol.n_iter, sol.status in REACHED, "primal",
                         sol.objective)
    start = task.start if task.start is not None and len(task.start) == \
        task.rows.n_rows else None
    # a squared loss's dual that would take max_iter epochs hands over to the Newton
    # method as soon as its progress shows it ("slow"), not after those epochs
    sol = _dual(task, start, stop_if_slow=task.squared, max_visits=dual_visits(task),
                **common)
    if sol.status == "max_iter" and task.epochs_as_work and not task.squared:
        finished = finish_smoothed(task, sol)
        if finished is not None:
            return finished
    if sol.status not in ("max_iter", "slow") or not task.squared:
        return LinearFit(sol.w, sol.dual, sol.n_iter, sol.status in REACHED, "dual",
                         sol.objective)
    tol = primal_tolerance(task) * SWITCH_TOL[task.regression]
    newton = primal_newton(task.rows, task.order, task.targets, task.bounds,
                           regression=task.regression, epsilon=task.epsilon,
                           start=sol.w, n_threads=task.threads,
                           **dict(common, tol=tol, max_iter=SWITCH_MAX_ITER))
    if not _finite(newton) or newton.objective < 0:
        # rows of values near 1e130 and up overflow the Newton method's products, and
        # from about 1e30 its rounding gives a primal objective below 0, which no
        # point has (weights of 1e15), while the dual's steps stay sound: its point is
        # dropped, and the dual goes on from its own
        return _resume_after_stall(task, sol, None, common)
    if newton.status == "stalled" and sol.status == "slow" and task.epochs_as_work:
        return _resume_after_stall(task, sol, newton, common)
    return LinearFit(newton.w, newton.dual, sol.n_iter + newton.n_iter,
                     newton.status in REACHED, "dual+primal", newton.objective, sol)


def _dual(task, start, reference=0.0, **settings):
    """The task's dual coordinate descent from `start`: `svr_dual` (given the
    regression's `reference`) or `svc_dual` on its rows, targets, bounds, loss and seed
    (the classification's shared diagonal and revisits), with `settings` (tol,
    max_iter, stop_flag, stop_if_slow, max_visits)."""
    if task.regression:
        return svr_dual(task.rows, task.order, task.targets, task.bounds,
                        epsilon=task.epsilon, squared_loss=task.squared, seed=task.seed,
                        start=start, reference=reference, **settings)
    return svc_dual(task.rows, task.order, task.targets, task.bounds,
                    squared_hinge=task.squared, seed=task.seed, start=start,
                    diagonal=task.diagonal, revisits=task.revisits, **settings)


def _resume_after_stall(task, slow, newton, common):
    """After an estimator's dual handed over early ("slow", not after its max_iter
    epochs) and the Newton method then found no more decrease short of its tolerance
    ("stalled": rounding on ill-conditioned rows, where LIBLINEAR stops without a
    warning), the dual goes on from the Newton method's dual point for the rest of its
    max_iter epochs, without the watch. Its answer where it meets tol; else the
    Newton method's, not converged (the fit warns). With `newton` None (the Newton
    method's arithmetic overflowed: any dual, the commands' too) the dual goes on from
    its own point, and where it does not meet tol its point stands, not converged."""
    epochs = max(task.max_iter - slow.n_iter, 1)
    resumed = _dual(task, slow.dual if newton is None else newton.dual,
                    reference=slow.reference, **dict(common, max_iter=epochs))
    newton_iter = 0 if newton is None else newton.n_iter
    n_iter = slow.n_iter + newton_iter + resumed.n_iter
    method = "dual+dual" if newton is None else "dual+primal+dual"
    if not _finite(resumed):
        # (the Newton method's dual point, finite, can still overflow the dual's steps)
        return LinearFit(slow.w, slow.dual, n_iter, False, "dual", slow.objective, slow)
    if resumed.status == "optimal":
        return LinearFit(resumed.w, resumed.dual, n_iter, True, method,
                         resumed.objective, slow)
    if newton is None:
        return LinearFit(resumed.w, resumed.dual, n_iter, False, method,
                         resumed.objective, slow)
    return LinearFit(newton.w, newton.dual, n_iter, False, "dual+primal",
                     newton.objective, slow)


def _finite(solution):
    """Whether a solver's weights, dual point and objective are all finite."""
    return bool(np.isfinite(solution.objective) and np.isfinite(solution.w).all()
                and np.isfinite(solution.dual).all())


# the smoothed losses' bands `finish_smoothed` narrows through, in the units of the
# dual's stopping rule (the hinge's margins; the regression's first epoch's mean
# violation, which its tol is relative to): from violations up to 0.01 (the stalled
# dual's w is near the optimum: wider first bands added Newton steps on most of the
# convergence benchmark's fits that finish), a tenth of the last each time, down to a
# quarter of the dual's tolerance (there every projected gradient of the dual point the
# band gives lies within the tolerance's quarter)
FIRST_BAND = 0.01
BAND_FACTOR = 0.1
# the weights (features and bias) at most whose d x d Hessian `finish_smoothed` solves
# with: 32 MB of it
SMOOTHED_MAX_WEIGHTS = 2048
# the band's rows gathered at a time for the Hessian (a copy of at most these rows)
HESSIAN_ROWS = 4096
# the epochs the dual may take from the last band's point to meet its stopping rule
CONFIRM_EPOCHS = 50


class _BiasedRows:
    """The problem's rows with LIBLINEAR's bias feature, for `finish_smoothed`'s Newton
    steps, without a copy of the rows (the caller's X where the problem takes them all
    in order): X v, X'u and the Hessian's X_B' diag(D) X_B of the rows B."""

    def __init__(self, rows, order):
        import scipy.sparse as sp
        self.sparse = sp.issparse(rows.source)
        self.X = (rows.source if np.array_equal(order, np.arange(rows.n_rows))
                  else rows.source[order])
        self.bias = rows.bias
        self.d = rows.n_features
        squares = (self.X.multiply(self.X).sum(axis=1) if self.sparse
                   else (self.X * self.X).sum(axis=1))
        squares = np.asarray(squares, dtype=np.float64).ravel() + self.bias ** 2
        self.largest_norm = float(np.sqrt(squares.max())) if len(squares) else 0.0
        self.n_rows = self.X.shape[0]

    def times(self, v):
        out = np.asarray(self.X @ v[:self.d], dtype=np.float64).ravel()
        return out + self.bias * v[self.d] if self.bias > 0 else out

    def transposed(self, u):
        out = np.asarray(self.X.T @ u, dtype=np.float64).ravel()
        return np.append(out, self.bias * u.sum()) if self.bias > 0 else out

    def hessian(self, band_rows, D):
        """I + X_B' diag(D) X_B (the bias feature's row and column included), dense;
        the rows B gathered `HESSIAN_ROWS` at a time, so that the copies stay small
        however many rows the band holds."""
        n = self.d + (self.bias > 0)
        H = np.zeros((n, n))
        for first in range(0, len(band_rows), HESSIAN_ROWS):
            part = self.X[band_rows[first:first + HESSIAN_ROWS]]
            weights = D[first:first + HESSIAN_ROWS, None]
            scaled = part.multiply(weights).tocsr() if self.sparse else part * weights
            block = part.T @ scaled
            H[:self.d, :self.d] += block.toarray() if self.sparse else block
            if self.bias > 0:
                H[:self.d, self.d] += self.bias * np.asarray(
                    scaled.sum(axis=0), dtype=np.float64).ravel()
        if self.bias > 0:
            H[self.d, :self.d] = H[:self.d, self.d]
            H[self.d, self.d] = self.bias ** 2 * D.sum()
        H[np.diag_indices_from(H)] += 1
        return H


def _exact_length(step, slope, violation, along, C, band):
    """The length t > 0 that minimises the smoothed problem along a Newton step s.

    Along the line the objective is convex and piecewise quadratic: its derivative
    f'(t) = slope + t s's + sum_t C_t a_t (h'(v_t) - h'(v_t - t a_t)), with h'(v) =
    min(max(v / band, 0), 1), v_t the term's violation and a_t = sign_t x_r's (`along`;
    see `_SmoothedTerms`), is piecewise linear and nondecreasing, bending where a term
    enters or leaves the band. An upper end of the
    root is found first (1, Newton's length, where f'(1) >= 0, else doubled until f'
    turns), so that only the bends up to it are sorted (of a few hundred thousand
    rows, most bend far beyond the root); f' is carried from one bend to the next,
    and the root is solved on the segment where f' turns nonnegative. Where no row
    changes its place over the full step, or rounding leaves no descent (slope >= 0
    near the minimiser), the full step (Newton's, the quadratic's minimiser) is
    taken.

    Returns
    -------
    float
        The length; exactly 1.0 for the full step.
    """
    if slope >= 0:
        return 1.0
    moving = along != 0
    v, a, c = violation[moving], along[moving], C[moving]
    # each moving row's ramp: the lengths at which it is at the band's edges (v = 0, band)
    at_zero, at_band = v / a, (v - band) / a
    starts, ends = np.minimum(at_zero, at_band), np.maximum(at_zero, at_band)
    if not (((starts > 0) & (starts <= 1.0)).any() or ((ends > 0) & (ends <= 1.0)).any()):
        return 1.0
    ss, pull = step @ step, c * a
    curvature = pull * a / band
    # f' rises at rate s's plus the curvature of the rows inside their ramps
    rate = ss + curvature[(starts <= 0) & (ends > 0)].sum()

    def derivative_at(t):
        inside = np.clip(v / band, 0.0, 1.0) - np.clip((v - t * a) / band, 0.0, 1.0)
        return slope + t * ss + pull @ inside
    upper = 1.0
    while derivative_at(upper) < 0:
        upper *= 2
    ahead_start, ahead_end = (starts > 0) & (starts <= upper), (ends > 0) & (ends <= upper)
    bends = np.concatenate((starts[ahead_start], ends[ahead_end]))
    changes = np.concatenate((curvature[ahead_start], -curvature[ahead_end]))
    order = np.argsort(bends, kind="stable")
    bends, changes = bends[order], changes[order]
    rates = rate + np.concatenate(([0.0], np.cumsum(changes)))   # rates[j]: up to bend j
    lengths = np.diff(bends, prepend=0.0)
    derivative = slope + np.cumsum(rates[:-1] * lengths)        # f' at each bend
    turned = np.flatnonzero(derivative >= 0)
    segment = turned[0] if len(turned) else len(bends)
    begin = bends[segment - 1] if segment > 0 else 0.0
    at_begin = derivative[segment - 1] if segment > 0 else slope
    # no bend lies between the last one sorted and `upper`, where f' >= 0: the root is
    # on that last segment
    return float(begin - at_begin / rates[segment])


@dataclass(frozen=True)
class _SmoothedTerms:
    """The terms C_t h(v_t) of a smoothed problem, each a one-sided loss of a row's
    score x_r'w: the violation v_t = offset_t - sign_t x_r'w, smoothed over a band by
    h (`_smoothed_newton`). The hinge has a term a row (sign y_i, offset 1); the
    epsilon-insensitive loss two, y_i - p - x_i'w and x_i'w - y_i - p, of which at
    most one is positive (`rows` maps the terms to their rows; None: one a row)."""
    rows: object
    signs: np.ndarray
    offsets: np.ndarray
    C: np.ndarray

    @classmethod
    def of_task(cls, task, order):
        C = np.asarray(task.bounds, dtype=np.float64)[order]
        if not task.regression:
            signs = np.where(np.asarray(task.targets)[order] > 0, 1.0, -1.0)
            return cls(None, signs, np.ones(len(order)), C)
        y, n = np.asarray(task.targets, dtype=np.float64)[order], len(order)
        return cls(np.tile(np.arange(n), 2), np.repeat([1.0, -1.0], n),
                   np.concatenate((y - task.epsilon, -y - task.epsilon)), np.tile(C, 2))

    def of_rows(self, row_values):
        """The terms' values of their rows' `row_values`."""
        return row_values if self.rows is None else row_values[self.rows]

    def violations(self, scores):
        """Each term's violation v_t = offset_t - sign_t x_r'w of the rows' `scores`."""
        return self.offsets - self.signs * self.of_rows(scores)

    def to_rows(self, values, n_rows):
        """The terms' `values` summed into their rows."""
        return (values if self.rows is None else
                np.bincount(self.rows, weights=values, minlength=n_rows))

    def primal(self, X, w):
        """The unsmoothed primal objective 1/2 w'w + sum_t C_t max(0, v_t) at w, for
        the rows `X` (a `_BiasedRows`)."""
        w = np.asarray(w, dtype=np.float64)
        return 0.5 * float(w @ w) + float(self.C @ np.maximum(self.violations(X.times(w)),
                                                                0.0))


def _smoothed_newton(X, terms, w, band, max_steps, stop_flag):
    """Minimise 1/2 w'w + sum_t C_t h(v_t), the loss `terms` smoothed over `band`
    (h(v) = v^2 / (2 band) within the band (0, band), v - band / 2 beyond it, 0 below),
    by Newton's method from w with exact steps (solved with the d x d Hessian
    I + X_B' diag(C_B / band) X_B of the rows B whose term lies within the band) and an
    exact line search (`_exact_length`: along a step the objective is piecewise
    quadratic; a backtracking search, which halves the step until the rows that the
    step carries past the band's edges allow it, makes little progress a step and ran
    out of steps on the standardised w8a's hinge at C = 10). `X` is a
    `_BiasedRows`, `terms` a `_SmoothedTerms`. The objective is quadratic wherever the
    terms keep their places (within, beyond or below the band), so a full step after
    which none moved lands on the minimiser; it also ends where the gradient is within
    band / the rows' largest norm, so that no row's x_i'w is off the minimiser's by
    more than the band. The rows' scores X w are carried from step to step (X w plus
    the length times the step's X s, which the line search needs anyway), so that a
    step passes over the rows twice (X'u and X s) besides the Hessian's band.
    Returns (w, steps, reached)."""
    # (rows of values near 1e120 overflow the band's curvatures: the finish then
    # gives up, as where the Hessian cannot be solved, without numpy's warnings)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _smoothed_newton_steps(X, terms, w, band, max_steps, stop_flag)


def _smoothed_newton_steps(X, terms, w, band, max_steps, stop_flag):
    full_step, places = False, None
    scores = X.times(w)
    for steps in range(max_steps + 1):
        violation = terms.violations(scores)
        within = (violation > 0) & (violation < band)
        beyond = violation >= band
        moved = places is None or not (np.array_equal(within, places[0])
                                       and np.array_equal(beyond, places[1]))
        if full_step and not moved:
            return w, steps, True
        if steps == max_steps or stop_flag[0] != 0:
            return w, steps, False
        places = (within, beyond)
        weight = terms.C * np.where(within, violation / band, beyond)   # of the point
        gradient = w - X.transposed(terms.to_rows(weight * terms.signs, X.n_rows))
        if np.linalg.norm(gradient) * X.largest_norm <= band:
            return w, steps, True
        # a row has at most one term within the band (the regression's two terms sum
        # to -2p <= 0), so the band's terms are distinct rows
        band_terms = np.flatnonzero(within)
        band_rows = band_terms if terms.rows is None else terms.rows[band_terms]
        hessian = X.hessian(band_rows, terms.C[band_terms] / band)
        try:
            step = -np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            # C / band so large that the identity is lost in the rounding of the
            # band's part: no step to take here, the finish gives up
            return w, steps, False
        step_scores = X.times(step)
        length = _exact_length(step, gradient @ step, violation,
                               terms.signs * terms.of_rows(step_scores), terms.C, band)
        if not (np.isfinite(length) and np.isfinite(step).all()
                and np.isfinite(step_scores).all()):
            return w, steps, False
        w, full_step = w + length * step, length == 1.0
        scores = scores + length * step_scores
    return w, max_steps, False


def finish_smoothed(task, stalled):
    """Finish a hinge or epsilon-insensitive dual that spent its work (`dual_visits`)
    short of tol.

    These losses have no Newton method of their own (no second derivative), but the
    loss smoothed over a band of violations, quadratic there, has, and its optimum
    tends to the loss's as the band narrows. From the stalled dual's w, Newton's method
    (`_smoothed_newton`) minimises it as the band narrows tenfold at a time from
    `FIRST_BAND` to a quarter of tol (in the dual's units: the regression's tol is
    relative to its first epoch's summed violation, so its bands scale with that
    epoch's mean violation), within max_iter Newton steps in all; the last band's
    optimality conditions give a dual point (a term's C times its violation over the
    band's width, at most C; the regression's signed by its side of the tube) whose
    projected gradients all lie within the band; the dual from that point must then
    meet its own stopping rule, at tol, within `CONFIRM_EPOCHS` epochs (the
    regression's relative to the stalled run's first epoch). The answer is the
    dual's, ended by the dual's rule. For at most `SMOOTHED_MAX_WEIGHTS` weights: the
    Newton steps solve with the dense Hessian, whose d x d doubles (a few copies at a
    time) are the finish's memory beyond the dual's.

    Returns
    -------
    LinearFit or None
        The dual's fit from the smoothed point (method "dual+smoothed", n_iter the
        dual's epochs, the Newton steps and the confirming epochs); not converged
        where the dual did not confirm within its epochs but ended at a lower primal
        objective than the stalled fit's; None where there are more weights, the
        Newton steps ran out or could not be solved, or the dual did not confirm and
        ended no lower (the stalled fit stands).
    """
    rows = task.rows
    order = np.asarray(task.order)
    scale = stalled.reference / len(order) if task.regression else 1.0
    if rows.n_weights > SMOOTHED_MAX_WEIGHTS or not scale > 0:
        return None
    X = _BiasedRows(rows, order)
    terms = _SmoothedTerms.of_task(task, order)
    last_band = scale * task.tol / 4
    band, w, steps = scale * FIRST_BAND, np.array(stalled.w, dtype=np.float64), 0
    while True:
        band = max(band, last_band)
        w, used, reached = _smoothed_newton(X, terms, w, band, task.max_iter - steps,
                                            task.stop_flag)
        steps += used
        if not reached:
            return None
        if band == last_band:
            break
        band *= BAND_FACTOR
    violation = terms.violations(X.times(w))
    magnitude = terms.C * np.clip(violation / band, 0.0, 1.0)
    start = np.zeros(rows.n_rows)
    start[order] = (terms.to_rows(terms.signs * magnitude, len(order)) if task.regression
                    else magnitude)
    confirmed = _dual(task, start, reference=stalled.reference, tol=task.tol,
                      max_iter=CONFIRM_EPOCHS, stop_flag=task.stop_flag)
    n_iter = stalled.n_iter + steps + confirmed.n_iter
    if confirmed.status == "optimal":
        return LinearFit(confirmed.w, confirmed.dual, n_iter, True, "dual+smoothed",
                         confirmed.objective, stalled)
    if confirmed.status != "max_iter" or \
            terms.primal(X, confirmed.w) >= terms.primal(X, stalled.w):
        return None
    # the confirming dual ran out of epochs, near the smoothed optimum: whether it
    # meets tol can turn on the last bits of the rows' values (dense against CSR
    # rows of the same data), and its point is still better than the stalled one,
    # which may be far from the optimum; it is the answer, not converged
    return LinearFit(confirmed.w, confirmed.dual, n_iter, False, "dual+smoothed",
                     confirmed.objective, stalled)


def solve_guarded(task):
    """`solve_task`, setting the task's shared stop flag if it fails, so that the
    problems running beside it (one-vs-rest classes on other threads) stop at their
    next epoch instead of finishing for nothing."""
    try:
        return solve_task(task)
    except BaseException:
        task.stop_flag[0] = 1
        raise


def solve_crammer_singer(rows, order, labels, bounds, n_classes, tol, max_iter, seed):
    """Crammer and Singer's problem over every class at once.

    Returns
    -------
    LinearFit
        w of shape (n_classes, n_weights), one row per class; the dual (n_rows,
        n_classes).
    """
    sol = crammer_singer(rows, order, labels, bounds, n_classes, tol=tol,
                         max_iter=max_iter, seed=seed)
    return LinearFit(np.ascontiguousarray(sol.w.T), sol.dual, sol.n_iter,
                     sol.status in REACHED, "crammer_singer", sol.objective)
