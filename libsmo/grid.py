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

The cells of one gamma form one task (`GammaColumn`, C ascending); the tasks go through
one mapping function: in order here by default, or with n_jobs > 1 as joblib tasks
(`libsmo._parallel.imap_tasks`: local threads, or a joblib context's backend such as
Dask's), each training with one thread and a share of the cache; the cells' rates are
the same for every n_jobs.
"""
import dataclasses
import math
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from libsmo import _parallel
from libsmo._cache_budget import budget_megabytes
from libsmo._core.kernel import Kernel
from libsmo._param_validation import Jobs, OrNone
from libsmo._random import LibsvmRandom
from libsmo.crossval import (check_problem, figures, fold_blocks, fold_predictions,
                             libsvm_folds)
from libsmo.names import REGRESSION_TYPES
from libsmo.params import TrainParams

#: svm-grid's default ranges of log2(C) and log2(gamma): (begin, end, step)
DEFAULT_LOG2C = (-5, 15, 2)
DEFAULT_LOG2G = (3, -15, -2)


def log2_range(begin, end, step):
    """grid.py's range_f: begin, begin + step, ... up to end (inclusive), for any sign
    of step and non-integer values."""
    if step == 0:
        raise ValueError("the step of a range must not be 0")
    values = []
    while not ((step > 0 and begin > end) or (step < 0 and begin < end)):
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
    """
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
    """One point of the grid and its cross-validation rate: accuracy in percent as
    svm-train prints it (%g), or for regression the mean squared error."""
    log2c: Optional[float]
    log2g: Optional[float]
    rate: float


@dataclass(frozen=True)
class GammaColumn:
    """One task: the cells of one gamma, C ascending (the order alpha seeding needs)."""
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

    def column(self, task):
        """The cells of one gamma, C ascending.

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
        for log2c in sorted(task.log2cs, key=lambda c: -math.inf if c is None else c):
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
        return cells

    def _gram(self, kernel):
        """The kernel matrix of the data with the values training computes, if it fits
        in the budget of the kernel cache; else None (each fold computes its rows)."""
        n = self.X.shape[0]
        if 8.0 * n * n > budget_megabytes(self.params.solver.cache_size) * 2**20:
            return None
        return Kernel(self.X, kernel.kernel, kernel.gamma, kernel.degree,
                      kernel.coef0).kernel_matrix()

    def _rate(self, predictions):
        result = figures(self.y, predictions, self.params.svm_type)
        value = result["mse"] if self.minimize else result["accuracy"]
        return float(f"{value:g}")   # what grid.py reads from svm-train's line


def columns(cells):
    """The tasks for some cells: one per gamma, in the order the gammas first appear
    (so that results come back roughly in job order), C ascending within each."""
    by_gamma = {}
    for log2c, log2g in cells:
        by_gamma.setdefault(log2g, []).append(log2c)
    return [GammaColumn(g, tuple(sorted(cs, key=lambda c: -math.inf if c is None else c)))
            for g, cs in by_gamma.items()]


def iter_grid(validator, cells, map_tasks=None):
    """The cells' results in the order of `cells`, each as soon as it and all before
    it are known.

    Parameters
    ----------
    validator : CrossValidator
    cells : list of (log2c, log2g)
        In svm-grid's job order (see `job_order`).
    map_tasks : callable, optional
        ``map_tasks(function, tasks)`` -> an iterable of the results in task order;
        by default the validator's n_jobs decides (`libsmo._parallel.imap_tasks`).

    Yields
    ------
    Cell
    """
    if map_tasks is None:
        def map_tasks(function, tasks):
            return _parallel.imap_tasks(function, tasks, validator.n_jobs)
    done = {}
    position = 0
    for result in map_tasks(validator.column, columns(cells)):
        for cell in result:
            done[(cell.log2c, cell.log2g)] = cell
        while position < len(cells) and cells[position] in done:
            yield done[cells[position]]
            position += 1


@dataclass(frozen=True)
class GridResult:
    """A grid search's cells (job order) and its best cell (grid.py's rule)."""
    cells: Tuple[Cell, ...]
    best: Cell


def grid_search(X, y=None, *, log2c=DEFAULT_LOG2C, log2g=DEFAULT_LOG2G, n_folds=5, seed=1,
                n_jobs=None, warm_start=False, map_tasks=None, **params):
    """Cross-validate every (C, gamma) of a grid as svm-grid does, in one process.

    Parameters
    ----------
    X, y
        The data, as for `libsmo.train`.
    log2c, log2g : (begin, end, step) or None
        The ranges of log2(C) and log2(gamma) (svm-grid's -log2c / -log2g; None: not
        searched, the parameter keeps its value in `params`).
    n_folds : int
        svm-grid's -v.
    seed : int
        srand() seed of the folds: 1 gives svm-train's folds.
    n_jobs : int or None
        Tasks (one per gamma) run at once as joblib tasks: None or 1 one after
        another, -1 every core, or what a ``joblib.parallel_config`` context says. The
        same cells and best cell for every n_jobs.
    warm_start : bool
        Each C of a column starts from the previous C's solutions (see
        `CrossValidator`): fewer steps, the same rates but where a prediction sits on
        the margin.
    map_tasks : callable, optional
        Another way to run the tasks: ``map_tasks(function, tasks)`` returning the
        results in order (overrides n_jobs).
    **params
        Any other keyword of `libsmo.train` (svm_type, kernel, probability, ...).

    Returns
    -------
    GridResult

    Raises
    ------
    ValueError
        Both ranges None, a bad range, or what training refuses.
    """
    if log2c is None and log2g is None:
        raise ValueError("-log2c and -log2g should not be null simultaneously")
    c_values = None if log2c is None else log2_range(*log2c)
    g_values = None if log2g is None else log2_range(*log2g)
    validator = CrossValidator(X, y, n_folds, params, seed, n_jobs=n_jobs,
                               warm_start=warm_start)
    cells = tuple(iter_grid(validator, job_order(c_values, g_values), map_tasks))
    best = None
    for cell in cells:
        if is_better(cell, best, validator.minimize):
            best = cell
    return GridResult(cells=cells, best=best)
