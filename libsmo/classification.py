"""Classification as LIBSVM trains it: one binary problem per pair of classes
(one-vs-one), each on the examples of its two classes (first class first, each in the
order given), and the pairs' coefficients laid out as LIBSVM's svm_model holds them.

With probability=True each pair also gets Platt's sigmoid (probA, probB), fitted to the
decision values of a 5-fold cross-validation of that pair's problem, each fold trained
by the same `train_pair` (LIBSVM's svm_binary_svc_probability). The folds come from one
random source per pair (`probability.pair_generators`: numpy Generators drawn in order
from the fit's, or LIBSVM's own rand() sequence), so the probabilities do not depend on
how many pairs run at once.
"""
import dataclasses
import logging
import warnings

import numpy as np

from libsmo import _one_vs_one as ovo
from libsmo import probability as prob
from libsmo.formulations import solve_c_svc, solve_nu_svc
from libsmo.problem import FormulationResult

logger = logging.getLogger("libsmo")


def train_pair(executor, params, rows_a, rows_b, factors, weights):
    """One binary problem: the examples rows_a (+1) against rows_b (-1).

    Parameters
    ----------
    executor : Executor
    params : TrainParams
    rows_a, rows_b : ndarray of int
        Rows of the training data.
    factors : (float, float)
        The two classes' weights (LIBSVM's -wi).
    weights : ndarray
        Sample weights of every training row.

    Returns
    -------
    rows : ndarray
        rows_a then rows_b.
    fit : BinaryFit
    """
    rows = np.concatenate([rows_a, rows_b])
    n_a = len(rows_a)
    signs = np.where(np.arange(len(rows)) < n_a, 1.0, -1.0)
    factor = np.where(signs > 0, factors[0], factors[1])
    if params.svm_type == "c_svc":
        return rows, solve_c_svc(executor, rows, signs, params.C * factor * weights[rows])
    return rows, solve_nu_svc(executor, rows, signs, factor * weights[rows], params.nu, n_a)


def pair_probability(executor, params, rows_a, rows_b, factors, weights, rng):
    """probA, probB of one pair (LIBSVM's svm_binary_svc_probability): Platt's sigmoid
    on the decision values of a 5-fold cross-validation of the pair."""
    rows = np.concatenate([rows_a, rows_b])
    positive = np.arange(len(rows)) < len(rows_a)

    def fit_decision(train, test):
        train_rows = rows[train]
        sub_rows, fit = train_pair(executor, params, train_rows[positive[train]],
                                   train_rows[~positive[train]], factors, weights)
        sv = fit.coef != 0
        if executor.solver.verbose:   # each fold is a whole svm_train in LIBSVM
            logger.info("Total nSV = %d", int(np.count_nonzero(sv)))
        return executor.decision_values(rows[test], sub_rows[sv], fit.coef[sv], fit.rho)

    return prob.binary_svc_probability(positive, fit_decision, rng)


def class_factors(classes, params):
    """Each class's factor on C (LIBSVM's -wi): ones unless class_weight says."""
    factors = np.ones(len(classes))
    class_weight = params.class_weight
    if class_weight and params.svm_type == "nu_svc":
        # LIBSVM (and scikit-learn) multiply C by the class weights; nu-SVC has no C
        warnings.warn("class_weight has no effect on nu_svc, as in LIBSVM: class weights "
                      "scale C, which nu-SVC does not have", UserWarning, stacklevel=5)
        return factors
    position = {np.asarray(c).item(): i for i, c in enumerate(classes)}
    for label, w in (class_weight or {}).items():
        key = np.asarray(label).item()
        if key not in position:
            warnings.warn(f"class label {label!r} specified in class_weight is not "
                          "found in y", UserWarning, stacklevel=5)
            continue
        factors[position[key]] = w
    return factors


def _check_nu_feasible(classes, members, weights, nu):
    """nu-SVC needs nu (n_a + n_b) / 2 <= min(n_a, n_b) for every pair (weighted)."""
    mass = [weights[m].sum() for m in members]
    for a, b in ovo.pairs(len(classes)):
        if nu * (mass[a] + mass[b]) / 2 > min(mass[a], mass[b]):
            raise ValueError(
                f"nu={nu} is infeasible for classes {np.asarray(classes[a]).item()!r} "
                f"and {np.asarray(classes[b]).item()!r} ({mass[a]:g} and {mass[b]:g} "
                "examples): it must be at most 2 * min(n1, n2) / (n1 + n2)")


def fit_classification(executor, data, params, rng=None):
    """One-vs-one C-SVC or nu-SVC; with a Generator `rng`, also each pair's probA, probB.

    Parameters
    ----------
    executor : Executor
    data : TrainingSet
    params : TrainParams
    rng : numpy Generator or None

    Returns
    -------
    FormulationResult
    """
    kept = data.kept
    classes, index = ovo.group_classes(data.y[kept])
    k = len(classes)
    if k < 2:
        raise ValueError(f"y has a single class ({np.asarray(classes[0]).item()!r}); "
                         f"{params.svm_type} needs at least two")
    factors = class_factors(classes, params)
    members = [kept[index == c] for c in range(k)]
    if params.svm_type == "nu_svc":
        _check_nu_feasible(classes, members, data.weights, params.nu)
    pairs = ovo.pairs(k)
    pair_rngs = ([None] * len(pairs) if rng is None else prob.pair_generators(
        rng, [len(members[a]) + len(members[b]) for a, b in pairs]))

    def fit(p, pair_executor):
        a, b = pairs[p]
        pair_factors = (factors[a], factors[b])
        sigmoid = None
        if rng is not None:
            sigmoid = pair_probability(pair_executor, params, members[a], members[b],
                                       pair_factors, data.weights, pair_rngs[p])
        return sigmoid, train_pair(pair_executor, params, members[a], members[b],
                                   pair_factors, data.weights)

    outcomes = executor.map_pairs(fit, len(pairs))
    result = _one_vs_one_result(classes, members, [o[1] for o in outcomes],
                                len(data.weights))
    if executor.solver.verbose:
        logger.info("Total nSV = %d", len(result.sv_rows))
    if rng is None:
        return result
    return dataclasses.replace(result, probA=np.array([s[0] for s, _ in outcomes]),
                               probB=np.array([s[1] for s, _ in outcomes]))


def _one_vs_one_result(classes, members, pair_fits, n_rows):
    """LIBSVM's layout of the pairs' coefficients: support vectors grouped by class, in
    training order within each class; class i's vectors carry pair (i, j) on
    sv_coef row `coef_row(i, j)`."""
    k = len(classes)
    is_sv = np.zeros(n_rows, dtype=bool)
    for rows, fit in pair_fits:
        is_sv[rows[fit.coef != 0]] = True
    sv_rows = np.concatenate([m[is_sv[m]] for m in members])
    position = np.full(n_rows, -1)
    position[sv_rows] = np.arange(len(sv_rows))
    sv_coef = np.zeros((k - 1, len(sv_rows)))
    for (a, b), (rows, fit) in zip(ovo.pairs(k), pair_fits):
        n_a = len(members[a])
        for part, coef, line in ((rows[:n_a], fit.coef[:n_a], ovo.coef_row(a, b)),
                                 (rows[n_a:], fit.coef[n_a:], ovo.coef_row(b, a))):
            mask = is_sv[part]
            sv_coef[line, position[part[mask]]] = coef[mask]
    return FormulationResult(
        classes=classes, n_support=np.array([int(np.count_nonzero(is_sv[m])) for m in members]),
        sv_rows=sv_rows, sv_coef=sv_coef, rho=np.array([fit.rho for _, fit in pair_fits]),
        fits=tuple(fit for _, fit in pair_fits))
