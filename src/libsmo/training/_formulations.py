"""LIBSVM's five formulations as thin adapters onto the one solver (LIBSVM's solve_c_svc
... solve_nu_svr): each builds a `BinaryProblem` (Q from the kernel, p, y, C_i, start),
hands it to the `Executor` and turns the `Solution` into a `BinaryFit` in the model's
terms.

- C-SVC:      Q_ij = y_i y_j K_ij, p = -1, C_i = C * class weight * sample weight
- nu-SVC:     the same Q, p = 0, C_i = weights, the nu variant started at
              sum(a) = nu l / 2 per class; a, rho and the objective are scaled by 1/r
- one-class:  Q = K, p = 0, C_i = weights, started at sum(a) = nu l
- eps-SVR:    2l variables (a, a*), p = (eps - z, eps + z), y = (+1, -1)
- nu-SVR:     2l variables, p = (-z, z), the nu variant started at sum = C nu l / 2 per
              sign; epsilon = -r

`fit_one_class` and `fit_regression` make a whole model's result from one problem
(LIBSVM's svm_train_one, with its probability models); classification, one problem per
pair of classes, is `libsmo.training._pairs`. Every `rows` here indexes the training data.
"""
import dataclasses
import logging

import numpy as np

from libsmo.model import _probability as prob
from libsmo.training._execution import UndefinedOffset
from libsmo.training._problem import (
    BinaryFit,
    BinaryProblem,
    FormulationResult,
    ProblemStatistics,
)
from libsmo.training._warm_start import greedy_fill, make_feasible, regression_seed

logger = logging.getLogger("libsmo")


def log_summary(executor, fit, upper_bound):
    """LIBSVM's "obj = ..., rho = ..." and "nSV = ..., nBSV = ..." lines."""
    if executor.solver.verbose:
        n_sv = int(np.count_nonzero(fit.coef))
        # LIBSVM's test, exact: a coefficient at its bound is that bound's bits (nu-SVC's
        # bound 1 / r is negative when r is: then every support vector counts)
        n_bsv = int(np.count_nonzero((fit.coef != 0) & (np.abs(fit.coef) >= upper_bound)))
        logger.info("obj = %f, rho = %f", fit.objective, fit.rho)
        logger.info("nSV = %d, nBSV = %d", n_sv, n_bsv)


def _fit(solution, coef, rho=None, objective=None):
    return BinaryFit(coef=coef, rho=solution.rho if rho is None else rho,
                     objective=solution.objective if objective is None else objective,
                     n_iter=solution.n_iter, status=solution.status,
                     kernel_evaluations=solution.kernel_evaluations)


# ------------------------------------------------------------------ the five adapters

def solve_c_svc(executor, rows, signs, upper_bound, seed=None):
    """C-SVC on `rows` with labels `signs` (+1/-1) and bounds C_i, started at zero or
    (warm start) at `seed` made feasible (see `libsmo.training._warm_start`).

    Returns
    -------
    BinaryFit
    """
    start = None if seed is None else make_feasible(seed, signs, upper_bound)
    solution = executor.solve(BinaryProblem(rows=rows, signs=signs,
                                            linear_term=-np.ones(len(rows)),
                                            upper_bound=upper_bound, start=start,
                                            seeded=seed is not None))
    if executor.solver.verbose and np.all(upper_bound == upper_bound[0]):
        logger.info("nu = %f", solution.alpha.sum() / (upper_bound[0] * len(rows)))
    fit = _fit(solution, signs * solution.alpha)
    log_summary(executor, fit, upper_bound)
    return fit


class UnscalableNuSolution(ValueError):
    """nu-SVC's optimum has r = 0 (or a non-finite scaling): no C-SVC form exists."""


def nu_budget(nu, C, weights, flavor):
    """The nu types' starting sum of alpha over all variables, sum of nu C w_i, in the
    arithmetic of the LIBSVM the fit follows (see `libsmo.training._params.TrainParams.flavor`):
    LIBSVM 3.37 computes (C nu) l, i.e. (C nu) times the sum of the weights;
    scikit-learn's copy adds (w_i C) nu one row at a time (np.cumsum's sequential
    order). Their last bits differ for most nu (0.1 added 270 times is not 27), and the
    solver's path with them.

    Parameters
    ----------
    nu : float
    C : float
        1 for nu-SVC and one-class, the cost for nu-SVR.
    weights : ndarray
        The variables' weights (positive), in the solver's order.
    flavor : {"libsvm", "sklearn"}

    Returns
    -------
    float
    """
    if flavor == "sklearn":
        return float(np.cumsum((weights * C) * nu)[-1]) if len(weights) else 0.0
    return (C * nu) * weights.sum()


def solve_nu_svc(executor, rows, signs, weights, nu, n_positive, seed=None,
                 flavor="libsvm"):
    """nu-SVC on `rows` (the first n_positive of them +1): per-variable bounds
    `weights`, started at sum(a) = nu * sum(weights) / 2 within each class (LIBSVM's
    greedy start, or `seed` made feasible; the sum in `flavor`'s arithmetic, see
    `nu_budget`); the answer is scaled by 1/r into C-SVC's terms, as LIBSVM's
    solve_nu_svc does.

    Returns
    -------
    BinaryFit
    """
    total = nu_budget(nu, 1.0, weights, flavor) / 2
    if seed is None:
        start = np.concatenate([greedy_fill(total, weights[:n_positive]),
                                greedy_fill(total, weights[n_positive:])])
    else:
        start = make_feasible(seed, signs, weights, total=total, nu=True)
    try:
        solution = executor.solve(BinaryProblem(rows=rows, signs=signs,
                                                linear_term=np.zeros(len(rows)),
                                                upper_bound=weights, start=start, nu=True,
                                                seeded=seed is not None))
    except UndefinedOffset:
        # the start already fills one class to its bounds: its sum nu sum(w) / 2 is
        # all the class can hold, so no coefficient of it can be free
        raise UndefinedOffset(
            f"nu-SVC with nu = {nu:g}: every coefficient of the smaller class is at its "
            "bound (nu is the largest feasible value, 2 min(n+, n-) / n without "
            "weights), so the offset rho is undefined (LIBSVM's answer then depends on "
            "rounding; scikit-learn refuses a model with rho = inf or nan); use a "
            "smaller nu") from None
    r = np.float64(solution.r)  # numpy's division: r * r may underflow to 0
    with np.errstate(divide="ignore", over="ignore", invalid="ignore", under="ignore"):
        # LIBSVM's alpha[i] *= y[i] / r, the same bits
        # r < 0 (nu too small for the data) scales as LIBSVM scales it: the signs turn
        coef = solution.alpha * (signs / r) if r != 0 else None
        scaled = r != 0 and np.isfinite(coef).all() and np.isfinite(
            [solution.rho / r, solution.objective / (r * r), 1 / r]).all()
    if not scaled:
        # LIBSVM divides by r = 0 all the same and writes inf and NaN coefficients;
        # scikit-learn then refuses the model ("dual coefficients ... not finite")
        raise UnscalableNuSolution(
            f"nu-SVC found no classifier for this data (r = {r:g}): at its optimum every "
            "example's margin is the same, so the coefficients cannot be scaled to "
            "C-SVC's form (the kernel is constant on these examples, e.g. gamma too "
            "small or a saturated sigmoid, or nu is too small); change gamma, "
            "the kernel or nu, or use C-SVC")
    if executor.solver.verbose:
        logger.info("C = %f", 1 / r)
    fit = _fit(solution, coef, rho=float(solution.rho / r),
               objective=float(solution.objective / (r * r)))
    log_summary(executor, fit, weights * (1 / r))
    return fit


def solve_one_class(executor, rows, weights, nu, seed=None, flavor="libsvm"):
    """One-class SVM on `rows`, per-example bounds `weights`, started at
    sum(a) = nu * sum(weights) (LIBSVM's greedy start, or `seed` made feasible; the sum
    in `flavor`'s arithmetic, see `nu_budget`).

    Returns
    -------
    BinaryFit
    """
    n = len(rows)
    total = nu_budget(nu, 1.0, weights, flavor)
    if seed is None:
        start = greedy_fill(total, weights)
    else:
        start = make_feasible(seed, np.ones(n), weights, total=total)
    try:
        solution = executor.solve(BinaryProblem(rows=rows, signs=np.ones(n),
                                                linear_term=np.zeros(n),
                                                upper_bound=weights, start=start,
                                                seeded=seed is not None))
    except UndefinedOffset:
        # sum(a) = nu sum(w) = sum(w): every coefficient at its bound
        raise UndefinedOffset(
            f"one-class SVM with nu = {nu:g}: every coefficient is at its bound (nu = 1 "
            "makes every example an outlier), so the offset rho is undefined (LIBSVM "
            "writes rho = inf and predicts -1 for everything; scikit-learn refuses "
            "such a model); use nu < 1") from None
    fit = _fit(solution, solution.alpha)
    log_summary(executor, fit, weights)
    return fit


def _regression_problem(rows, C, weights, linear_term, start=None, nu=False,
                        seeded=False):
    n = len(rows)
    signs = np.ones(2 * n)
    signs[n:] = -1.0
    bound = C * weights
    return BinaryProblem(rows=rows, signs=signs, linear_term=linear_term,
                         upper_bound=np.concatenate([bound, bound]), start=start, nu=nu,
                         regression=True, seeded=seeded)


def _regression_fit(executor, solution, n, C, weights):
    fit = _fit(solution, solution.alpha[:n] - solution.alpha[n:])
    log_summary(executor, fit, C * weights)
    return fit


def solve_epsilon_svr(executor, rows, targets, C, weights, epsilon, seed=None):
    """epsilon-SVR on `rows`: bounds C * weights, tube width epsilon, started at zero
    or at `seed` (coefficients a - a* per row) made feasible.

    Returns
    -------
    BinaryFit
        coef = a - a* per row.
    """
    problem = _regression_problem(rows, C, weights,
                                  np.concatenate([epsilon - targets, epsilon + targets]))
    if seed is not None:
        problem = dataclasses.replace(problem, start=make_feasible(
            regression_seed(seed, C * weights), problem.signs, problem.upper_bound),
            seeded=True)
    solution = executor.solve(problem)
    if executor.solver.verbose:
        n = len(rows)
        alpha = solution.alpha
        logger.info("nu = %f", np.abs(alpha[:n] - alpha[n:]).sum() / (C * n))
    return _regression_fit(executor, solution, len(rows), C, weights)


def solve_nu_svr(executor, rows, targets, C, weights, nu, seed=None, flavor="libsvm"):
    """nu-SVR on `rows`: bounds C * weights, started at sum = C nu sum(weights) / 2
    for each sign (LIBSVM's greedy start, or `seed`, coefficients a - a* per row, made
    feasible; the sum in `flavor`'s arithmetic, see `nu_budget`); the tube width it
    finds is -r.

    Returns
    -------
    BinaryFit
    """
    total = nu_budget(nu, C, weights, flavor) / 2
    if seed is None:
        half = greedy_fill(total, C * weights)
        start = np.concatenate([half, half])
    else:
        bound = C * weights
        start = make_feasible(regression_seed(seed, bound, total), np.concatenate(
            [np.ones(len(rows)), -np.ones(len(rows))]), np.concatenate([bound, bound]),
            total=total, nu=True)
    problem = _regression_problem(rows, C, weights, np.concatenate([-targets, targets]),
                                  start=start, nu=True, seeded=seed is not None)
    solution = executor.solve(problem)
    if executor.solver.verbose:
        logger.info("epsilon = %f", -solution.r)
    return _regression_fit(executor, solution, len(rows), C, weights)


# --------------------------------------------------- one-class and regression models

def fit_one_class(executor, data, params, rng=None, start=None):
    """A one-class model's result; with params.probability, also LIBSVM's density marks
    of the training decision values (no randomness: `rng` is not used). `start`: a
    `StartingPoint` (warm start) or None."""
    kept = data.kept
    fit = solve_one_class(executor, kept, data.weights[kept], params.nu,
                          seed=None if start is None else start.row_seed(kept),
                          flavor=params.flavor)
    sv_rows = np.flatnonzero(fit.coef > 0)
    marks = None
    if params.probability:
        dec = executor.decision_values(kept, kept[sv_rows], fit.coef[sv_rows], fit.rho)
        marks = prob.one_class_density_marks(dec)
    return _single_result(kept, fit, sv_rows, prob_density_marks=marks)


def fit_regression(executor, data, params, rng=None, start=None):
    """An epsilon-SVR or nu-SVR model's result; with a Generator `rng`, also LIBSVM's
    Laplace scale of the 5-fold cross-validated residuals (probA[0]). `start`: a
    `StartingPoint` (warm start) or None."""
    kept = data.kept
    z, weights = data.y[kept], data.weights[kept]
    probA = None
    if rng is not None:   # before the model's own training, as LIBSVM's svm_train
        def fit_predict(train, test):
            sub = _solve_regression(executor, kept[train], z[train], weights[train], params)
            sv = np.flatnonzero(sub.coef != 0)
            return executor.decision_values(kept[test], kept[train][sv], sub.coef[sv],
                                            sub.rho)

        probA = [prob.svr_probability(z, fit_predict, rng)]
        if executor.solver.verbose:
            logger.info("Prob. model for test data: target value = predicted value + z,\n"
                        "z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma= %g",
                        probA[0])
    fit = _solve_regression(executor, kept, z, weights, params,
                            seed=None if start is None else start.row_seed(kept))
    sv_rows = np.flatnonzero(fit.coef != 0)
    return _single_result(kept, fit, sv_rows, probA=probA)


def _solve_regression(executor, rows, z, weights, params, seed=None):
    if params.svm_type == "epsilon_svr":
        return solve_epsilon_svr(executor, rows, z, params.C, weights, params.epsilon,
                                 seed)
    return solve_nu_svr(executor, rows, z, params.C, weights, params.nu, seed,
                        flavor=params.flavor)


def _single_result(kept, fit, sv_rows, **probability_fields):
    """The result of a one-problem model (one-class, regression)."""
    return FormulationResult(classes=np.array([]), n_support=np.array([], dtype=np.int64),
                             sv_rows=kept[sv_rows], sv_coef=fit.coef[sv_rows][None, :],
                             rho=np.array([fit.rho]),
                             statistics=ProblemStatistics.of((fit,)), **probability_fields)
