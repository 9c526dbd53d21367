"""Grid search over C and gamma by cross-validation, as LIBSVM's grid.py (Debian's
svm-grid) runs it: the same grid, the same job order, the same rates and the same best
cell, but in one process instead of one svm-train per cell.

What the cells share is computed once:

- the folds: LIBSVM's own, drawn by `LibsvmRandom(seed)` as each svm-train process
  draws them (seed 1), so every cell sees svm-train's folds;
- for each gamma, the kernel matrix of the data, when it fits in the kernel cache's
  budget (`cache_size`): the cells of that gamma train on blocks of it as a precomputed
  kernel, with the values the kernel itself computes, so each cell's trainings are the
  ones svm-train -v runs.

The cells of one gamma form one task (`GammaColumn`, in the job order, or C ascending
for alpha seeding); the tasks go through
one mapping function: in order here by default, or with n_jobs > 1 as joblib tasks
(`libsmo._utils.parallel.imap_tasks`: local threads, or a joblib context's backend such as
Dask's), each training with one thread and a share of the cache; the cells' rates are
the same for every n_jobs.
"""
import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from libsmo._core.kernel import Kernel
from libsmo._utils import parallel as _parallel
from libsmo._utils.cache_budget import budget_megabytes
from libsmo._utils.constraints import Jobs, OrNone
from libsmo._utils.names import REGRESSION_TYPES
from libsmo._utils.random_sources import LibsvmRandom
from libsmo.training._crossval import (
    check_problem,
    figures,
    fold_blocks,
    fold_predictions,
    libsvm_folds,
)
from libsmo.training._params import TrainParams
from libsmo.training._problem import solver_layout

#: svm-grid's default ranges of log2(C) and log2(gamma): (begin, end, step)
DEFAULT_LOG2C = (-5, 15, 2)
DEFAULT_LOG2G = (3, -15, -2)


#: The most cells a grid may have, and so the most values of one range: svm-grid's
#: default grid has 110; each cell is a whole cross-validation, and the job order is a
#: list of cells, which a range such as 1,2,1e-300 would make larger than any memory.
MAX_GRID_CELLS = 100_000

# the largest log2 value whose power of 2 is a finite double (2.0 ** 1024 overflows)
_MAX_LOG2 = 1023.0


def log2_range(begin, end, step, name="range"):
    """grid.py's range_f: begin, begin + step, ... up to end (inclusive), for any sign
    of step and non-integer values.

    Parameters
    ----------
    begin, end, step : float
        Finite, step not 0, and 2**value finite for every value (below 1024).
    name : str
        What the error messages call the range (svm-grid's option, "-log2c").

    Returns
    -------
    list of float
        At least one value and at most `MAX_GRID_CELLS`.

    Raises
    ------
    ValueError
        A bound or step that is NaN or infinite, a step of 0, a range that holds no
        value (begin past end in the step's direction), more than `MAX_GRID_CELLS`
        values, a step too small to move begin (lost to rounding), or a value whose
        power of 2 overflows.

    Examples
    --------
    >>> log2_range(-1, 3, 2)
    [-1, 1, 3]
    >>> log2_range(3.0, -1.0, -1.5)
    [3.0, 1.5, 0.0]
    """
    shown = f"{name} {begin!r},{end!r},{step!r}"
    try:
        bounds = [float(begin), float(end), float(step)]
    except (TypeError, ValueError):
        raise TypeError(f"{shown}: begin, end and step must be numbers") from None
    if not all(math.isfinite(v) for v in bounds):
        raise ValueError(f"{shown}: begin, end and step must be finite")
    if step == 0:
        raise ValueError(f"{shown}: the step of a range must not be 0")
    if (step > 0 and begin > end) or (step < 0 and begin < end):
        raise ValueError(f"{shown}: the range holds no value (begin is past end in the "
                         "step's direction)")
    if max(bounds[0], bounds[1]) > _MAX_LOG2:
        raise ValueError(f"{shown}: 2**{max(bounds[0], bounds[1])!r} overflows (the "
                         f"values must be at most {_MAX_LOG2:g})")
    if (bounds[1] - bounds[0]) / bounds[2] >= MAX_GRID_CELLS:
        raise ValueError(f"{shown}: the range holds more than {MAX_GRID_CELLS} values "
                         "(a grid's cells are bounded by libsmo.training._grid.MAX_GRID_CELLS)")
    values = []
    while not ((step > 0 and begin > end) or (step < 0 and begin < end)):
        if len(values) > MAX_GRID_CELLS or (values and begin == values[-1]):
            # rounding: the step is lost against begin's magnitude (1e20,1e20+5,1)
            raise ValueError(f"{shown}: the step does not move the values (it is "
                             "lost to rounding against begin's magnitude)")
        values.append(begin)
        begin = begin + step
    return values


def permute_sequence(values):
    """grid.py's permute_sequence: the middle first, then the halves' middles, so
    that the grid is filled coarse to fine."""
    n = len(values)
    if n <= 1:
        return list(values)
    mid = int(n / 2)
    left = permute_sequence(values[:mid])
    right = permute_sequence(values[mid + 1:])
    ordered = [values[mid]]
    while left or right:
        if left:
            ordered.append(left.pop(0))
        if right:
            ordered.append(right.pop(0))
    return ordered


def job_order(c_values, g_values):
    """grid.py's calculate_jobs: the (log2c, log2g) cells in the order svm-grid runs
    and reports them. A None list stands for a parameter not searched.

    Returns
    -------
    list of (log2c, log2g)

    Raises
    ------
    ValueError
        More than `MAX_GRID_CELLS` cells.
    """
    n_cells = (1 if c_values is None else len(c_values)) * (
        1 if g_values is None else len(g_values))
    if n_cells > MAX_GRID_CELLS:
        raise ValueError(f"the grid has {n_cells} cells, more than libsmo.training._grid."
                         f"MAX_GRID_CELLS = {MAX_GRID_CELLS}: narrow a range or take a "
                         "larger step")
    c_seq = [None] if c_values is None else permute_sequence(list(c_values))
    g_seq = [None] if g_values is None else permute_sequence(list(g_values))
    nr_c, nr_g = float(len(c_seq)), float(len(g_seq))
    i = j = 0
    cells = []
    while i < nr_c or j < nr_g:
        if i / nr_c < j / nr_g:
            cells.extend((c_seq[i], g_seq[k]) for k in range(j))
            i += 1
        else:
            cells.extend((c_seq[k], g_seq[j]) for k in range(i))
            j += 1
    return cells


@dataclass(frozen=True)
class Cell:
    """One point of the grid and its cross-validation rate.

    What svm-grid prints for each cell (``log2c log2g rate``) and writes to its
    ``.out`` file.

    Parameters
    ----------
    log2c : float or None
        The base-2 logarithm of C, or None when C is not searched.
    log2g : float or None
        The base-2 logarithm of gamma, or None when gamma is not searched.
    rate : float
        Accuracy in percent as svm-train prints it (``%g``), or for regression the
        mean squared error.

    See Also
    --------
    GridResult : The cells of a search.

    Examples
    --------
    >>> from libsmo.training._grid import Cell
    >>> Cell(log2c=1, log2g=-3, rate=97.3333)
    Cell(log2c=1, log2g=-3, rate=97.3333)
    """
    log2c: Optional[float]
    log2g: Optional[float]
    rate: float


@dataclass(frozen=True)
class GammaColumn:
    """One task: the cells of one gamma, in the job order (`CrossValidator.column`
    runs them C ascending when it seeds alphas along C)."""
    log2g: Optional[float]
    log2cs: Tuple[Optional[float], ...]


def is_better(cell, best, minimize=False):
    """grid.py's update rule: a higher rate (lower, for regression's MSE), or the same
    rate at the same gamma with a smaller C. `best` is None before the first cell."""
    if best is None:
        return True
    if (cell.rate < best.rate) if minimize else (cell.rate > best.rate):
        return True
    return (cell.rate == best.rate and cell.log2g == best.log2g
            and cell.log2c is not None and best.log2c is not None
            and cell.log2c < best.log2c)


def alpha_seed(model, previous_C, C, n_rows):
    """The warm start at C >= previous_C from a fold's model at previous_C, as the dual
    coefficients of every training row (`libsmo.train`'s init as an array: no model is
    rebuilt for it).

    Where most support vectors sit at previous_C, the model scaled by C / previous_C
    (DeCoste and Wagstaff's alpha seeding: the bound ones move to the new bound, and the
    scaled start stays feasible); it is then nearly the new optimum (a1a, gamma 2^-13,
    C 2 -> 8: 85 steps instead of 2,028). Else the model as it is, feasible for the
    larger C: scaling free alphas moves them away from the new optimum (heart_scale,
    C 2^15, gamma 2^-9: 252,002 steps scaled, 173,052 as it is, 191,137 cold). Over
    svm-grid's default grid this rule took 4% fewer steps than always scaling on
    australian_scale, 16% fewer on heart_scale and 18% fewer on a1a.

    Parameters
    ----------
    model : Model
        Trained on the fold's n_rows training rows (its `support` indexes them).
    previous_C, C : float
    n_rows : int

    Returns
    -------
    ndarray of shape (max(k - 1, 1), n_rows)
        sv_coef's rows spread over the training rows, zero off the support.
    """
    coef = np.abs(model.sv_coef[model.sv_coef != 0])
    scale = 1.0
    if coef.size and np.mean(coef >= previous_C * (1.0 - 1e-12)) >= 0.5:
        scale = C / previous_C
    seed = np.zeros((model.sv_coef.shape[0], n_rows))
    seed[:, model.support] = model.sv_coef * scale
    return seed


class CrossValidator:
    """What the cells of a grid share: the checked data, LIBSVM's folds drawn once, the
    parameters, and the random sequence as it stands after the folds (each cell's -b 1
    trainings continue from there, as each svm-train process does).

    Parameters
    ----------
    X, y : the data (as for `libsmo.train`)
    n_folds : int >= 2
    params : dict
        `libsmo.train`'s keywords for everything but C and gamma.
    seed : int
        srand() seed of LIBSVM's folds (svm-train's: 1).
    n_jobs : int or None
        Columns (gammas) cross-validated at once as joblib tasks (see `iter_grid`);
        each task's trainings then use one thread and 1/n_jobs of the cache.
    warm_start : bool
        Start each fold's training at a C from the same fold's solution at the
        previous C of the column (`alpha_seed`).
        The solver stops at the same tolerance from another start, so a rate may
        differ from svm-train's in its last example where a prediction sits on the
        margin; off by default, for svm-grid's figures.
    """

    def __init__(self, X, y, n_folds, params, seed=1, n_jobs=None, warm_start=False):
        self.params = TrainParams.from_kwargs(**params)
        self.warm_start = bool(warm_start)
        self.n_jobs = OrNone(Jobs()).check(n_jobs, "n_jobs")
        jobs = _parallel.effective_n_jobs(n_jobs)
        if jobs > 1:
            self.params = self.params.replace(
                n_threads=1, cache_size=budget_megabytes(self.params.solver.cache_size,
                                                        jobs))
        if self.params.kernel.kernel == "precomputed":
            raise ValueError("a grid over gamma needs the data, not a precomputed kernel")
        self.X, self.y, _ = check_problem(X, y, None, self.params)
        n = self.X.shape[0]
        if not isinstance(n_folds, int) or n_folds < 2:
            raise ValueError(f"n_folds must be an integer >= 2, got {n_folds!r}")
        rng = LibsvmRandom(seed)
        self.folds = libsvm_folds(self.y, n, min(n_folds, n), self.params.svm_type, rng)
        self.after_folds = rng
        self.minimize = self.params.svm_type in REGRESSION_TYPES

    def column(self, task, on_cell=None):
        """The cells of one gamma: in the task's order (the job order, so that the
        first cells are reported first), or C ascending with alpha seeding.

        Parameters
        ----------
        task : GammaColumn
        on_cell : callable or None
            Called with each Cell as soon as it is done (the column goes on after).

        Returns
        -------
        list of Cell
        """
        kernel = self.params.kernel
        if task.log2g is not None:
            kernel = dataclasses.replace(kernel, gamma=2.0 ** task.log2g)
        kernel = kernel.for_data(self.X.shape[1])
        gram = self._gram(kernel)
        data = self.X if gram is None else gram
        # validated once, trained on at every C
        blocks = fold_blocks(data, self.y, self.folds, self.params.replace(
            kernel="precomputed" if gram is not None else kernel.kernel))
        cells = []
        # warm starts need C-SVC-like bounds that only grow along the column, and no
        # probability model (its internal folds train pairs of their own)
        seeding = (self.warm_start and not self.params.probability
                   and self.params.svm_type in ("c_svc", "epsilon_svr"))
        starts, previous_C = None, None
        order = (sorted(task.log2cs, key=lambda c: -math.inf if c is None else c)
                 if seeding else task.log2cs)
        for log2c in order:
            changes = {} if log2c is None else {"C": 2.0 ** log2c}
            if gram is not None:
                changes["kernel"] = "precomputed"
            else:
                changes["gamma"] = kernel.gamma
            if self.params.probability:
                changes["random_state"] = self.after_folds.copy()
            params = self.params.replace(**changes)
            if seeding:
                if starts is not None:
                    starts = [None if m is None else
                              alpha_seed(m, previous_C, params.C, len(b.training.y))
                              for m, b in zip(starts, blocks)]
                predictions, starts = fold_predictions(data, self.y, self.folds, params,
                                                       blocks=blocks, starts=starts,
                                                       keep_models=True)
                previous_C = params.C
            else:
                predictions = fold_predictions(data, self.y, self.folds, params,
                                               blocks=blocks)
            cells.append(Cell(log2c, task.log2g, self._rate(predictions)))
            if on_cell is not None:
                on_cell(cells[-1])
        return cells

    def _gram(self, kernel):
        """The kernel matrix of the data with the values training computes, if it fits
        in the budget of the kernel cache; else None (each fold computes its rows)."""
        n = self.X.shape[0]
        if 8.0 * n * n > budget_megabytes(self.params.solver.cache_size) * 2**20:
            return None
        # CSR rows on the columns they use, as training reads them (`solver_layout`;
        # never made dense here: dense_copy_bytes=0): the kernel's buffers are as wide
        # as the rows, and one feature index of 2**31 - 1 asked for 16 GiB
        return Kernel(solver_layout(self.X, dense_copy_bytes=0), kernel.kernel,
                      kernel.gamma, kernel.degree, kernel.coef0).kernel_matrix()

    def _rate(self, predictions):
        result = figures(self.y, predictions, self.params.svm_type)
        value = result["mse"] if self.minimize else result["accuracy"]
        return float(f"{value:g}")   # what grid.py reads from svm-train's line


def columns(cells):
    """The tasks for some cells: one per gamma, in the order the gammas first appear
    (so that results come back roughly in job order), the cells of each in the job
    order too."""
    by_gamma = {}
    for log2c, log2g in cells:
        by_gamma.setdefault(log2g, []).append(log2c)
    return [GammaColumn(g, tuple(cs)) for g, cs in by_gamma.items()]


def iter_grid(validator, cells, map_tasks=None, on_cell=None):
    """The cells' results in the order of `cells`, each as soon as it and all before
    it are known.

    Parameters
    ----------
    validator : CrossValidator
    cells : list of (log2c, log2g)
        In svm-grid's job order (see `job_order`).
    map_tasks : callable, optional
        ``map_tasks(function, tasks)`` -> an iterable of the results in task order;
        by default the validator's n_jobs decides (`libsmo._utils.parallel.imap_tasks`).
    on_cell : callable, optional
        Called once with each Cell as soon as it is done, in the order they finish
        (svm-grid writes its result file so, and -resume reads it): from within its
        task where the tasks run in this process (one after another, or on threads:
        then from those threads), else when its task's result arrives.

    Yields
    ------
    Cell
    """
    column = validator.column
    reported = set()
    if map_tasks is None:
        def map_tasks(function, tasks):
            return _parallel.imap_tasks(function, tasks, validator.n_jobs)
        if on_cell is not None and _parallel.runs_in_this_process(validator.n_jobs):
            def report(cell):
                reported.add((cell.log2c, cell.log2g))
                on_cell(cell)

            column = functools.partial(validator.column, on_cell=report)
    done = {}
    position = 0
    for result in map_tasks(column, columns(cells)):
        for cell in result:
            done[(cell.log2c, cell.log2g)] = cell
            if on_cell is not None and (cell.log2c, cell.log2g) not in reported:
                on_cell(cell)
        while position < len(cells) and cells[position] in done:
            yield done[cells[position]]
            position += 1


@dataclass(frozen=True)
class GridResult:
    """A grid search's cells (in job order) and its best cell (grid.py's rule).

    `grid_search` returns it; the command ``libsmo-grid`` prints it in svm-grid's
    lines and ``.out`` file.

    Parameters
    ----------
    cells : tuple of Cell
        Every cell, in the order svm-grid runs and reports them.
    best : Cell
        The best cell by grid.py's rule: the first cell, in job order, of the
        highest accuracy (lowest mean squared error for regression), or a later one
        of the same rate and gamma with a smaller C.

    See Also
    --------
    grid_search : What returns it.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from libsmo.training import grid_search
    >>> X, y = load_iris(return_X_y=True)
    >>> result = grid_search(X, y, log2c=(-1, 3, 2), log2g=None, gamma=0.5)
    >>> [cell.log2c for cell in result.cells], result.best.rate
    ([1, -1, 3], 97.3333)
    """
    cells: Tuple[Cell, ...]
    best: Cell


def grid_search(X, y=None, *, log2c=DEFAULT_LOG2C, log2g=DEFAULT_LOG2G, n_folds=5, seed=1,
                n_jobs=None, warm_start=False, map_tasks=None, **params):
    """Cross-validate every (C, gamma) of a grid as svm-grid does, in one process.

    LIBSVM's grid.py (Debian's svm-grid) runs one ``svm-train -v`` per cell; this
    runs the same cells in the same order with the same folds (LIBSVM's own, drawn
    as each svm-train draws them), so that it reports the same rates and picks the
    same best cell, but shares the folds and each gamma's kernel matrix among the
    cells.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data, as for `libsmo.train`.
    y : array-like of shape (n_samples,), default=None
        Labels or targets, as for `libsmo.train`.
    log2c : tuple of 3 float or None, default=(-5, 15, 2)
        The range of log2(C), (begin, end, step) (svm-grid's ``-log2c``); None: C is
        not searched and keeps its value in `params`.
    log2g : tuple of 3 float or None, default=(3, -15, -2)
        The range of log2(gamma) (svm-grid's ``-log2g``); None: not searched.
    n_folds : int, default=5
        Folds of each cell's cross-validation (svm-grid's ``-v``).
    seed : int, default=1
        The srand() seed of the folds: 1 gives svm-train's folds.
    n_jobs : int, default=None
        Tasks (one per gamma) run at once as joblib tasks: None or 1 one after
        another, -1 every core, or what a ``joblib.parallel_config`` context says. The
        same cells and best cell for every n_jobs.
    warm_start : bool, default=False
        Each C of a column starts from the previous C's solutions: fewer steps, the
        same rates but where a prediction sits on the margin.
    map_tasks : callable, default=None
        Another way to run the tasks: ``map_tasks(function, tasks)`` returning the
        results in order (overrides n_jobs).
    **params
        Any other keyword of `libsmo.train` (svm_type, kernel, probability, ...).

    Returns
    -------
    GridResult
        The cells in svm-grid's job order, and the best cell by grid.py's rule.

    Raises
    ------
    ValueError
        Both ranges None, a bad range (`log2_range`), more than `MAX_GRID_CELLS` cells,
        or what training refuses.

    See Also
    --------
    libsmo.cross_validation : One cell's cross-validation.
    sklearn.model_selection.GridSearchCV : The scikit-learn search over an estimator.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from libsmo.training import grid_search
    >>> X, y = load_iris(return_X_y=True)
    >>> result = grid_search(X, y, log2c=(-1, 3, 2), log2g=(-3, 1, 2))
    >>> len(result.cells), result.best
    (9, Cell(log2c=-1, log2g=-3, rate=97.3333))
    """
    if log2c is None and log2g is None:
        raise ValueError("-log2c and -log2g should not be null simultaneously")
    c_values = None if log2c is None else log2_range(*_triple(log2c, "log2c"), "log2c")
    g_values = None if log2g is None else log2_range(*_triple(log2g, "log2g"), "log2g")
    cells = job_order(c_values, g_values)
    validator = CrossValidator(X, y, n_folds, params, seed, n_jobs=n_jobs,
                               warm_start=warm_start)
    cells = tuple(iter_grid(validator, cells, map_tasks))
    best = None
    for cell in cells:
        if is_better(cell, best, validator.minimize):
            best = cell
    return GridResult(cells=cells, best=best)


def _triple(grid_range, name):
    """(begin, end, step) of a range given as a sequence."""
    try:
        begin, end, step = grid_range
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be (begin, end, step) or None; got "
                         f"{grid_range!r}") from None
    return begin, end, step
