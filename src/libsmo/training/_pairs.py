"""Classification as LIBSVM trains it: one binary problem per pair of classes
(one-vs-one), each on the examples of its two classes (first class first, each in the
order given), and the pairs' coefficients laid out as LIBSVM's svm_model holds them.

With probability=True each pair also gets Platt's sigmoid (probA, probB), fitted to the
decision values of a 5-fold cross-validation of that pair's problem, each fold trained
by the same `train_pair` (LIBSVM's svm_binary_svc_probability). The folds come from one
random source per pair (`probability.pair_generators`: numpy Generators drawn in order
from the fit's, or LIBSVM's own rand() sequence), so the probabilities do not depend on
how many pairs run at once.

The pairs run one after another, on n_threads threads of this process
(`Executor.map_pairs`), or with n_jobs > 1 as joblib tasks (`libsmo._utils.parallel`): each
pair then is a `PairTask` carrying its own rows, so that it can run in another process
or on another machine, and gives the same fit bit for bit.
"""
import dataclasses
import logging
import time
import warnings
from dataclasses import dataclass
from typing import Optional

import numpy as np

from libsmo._utils import parallel as _parallel
from libsmo.cascade._local import solve_c_svc_partitioned, uses_partitioned
from libsmo.model import _probability as prob
from libsmo.training._execution import Executor
from libsmo.training._formulations import solve_c_svc, solve_nu_svc
from libsmo.training._pair_results import (
    PairProgress,
    PairResults,
    check_one_vs_one_bounds,
    pair_indices,
)
from libsmo.training._params import KernelParams, SolverParams, TrainParams
from libsmo.training._problem import FormulationResult, take_rows

logger = logging.getLogger("libsmo")


def train_pair(executor, params, rows_a, rows_b, factors, weights, seed=None,
               partitioned=False):
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
    seed : ndarray or None
        A warm start's alpha for rows_a then rows_b (see `libsmo.training._warm_start`).
    partitioned : bool
        Whether the problem may go to the partitioned solver (`libsmo.cascade._local`,
        when `params` and its size say so): the pairs of a fit solved one at a time
        with all its threads, not those solved side by side.

    Returns
    -------
    rows : ndarray
        rows_a then rows_b.
    fit : BinaryFit
    """
    rows = np.concatenate([rows_a, rows_b])
    n_a = len(rows_a)
    signs = np.ones(len(rows))
    signs[n_a:] = -1.0
    # each row's factor times its weight (times C for C-SVC: (C factor) w, one product
    # of the class's scalar and the weight), the two classes' halves in place
    bounds = weights[rows]
    scale = (params.C * factors[0], params.C * factors[1]) if params.svm_type == "c_svc" \
        else factors
    bounds[:n_a] *= scale[0]
    bounds[n_a:] *= scale[1]
    if params.svm_type == "c_svc":
        if partitioned and uses_partitioned(params, len(rows), executor.X):
            return rows, solve_c_svc_partitioned(executor, rows, signs, bounds, params,
                                                 seed)
        return rows, solve_c_svc(executor, rows, signs, bounds, seed)
    return rows, solve_nu_svc(executor, rows, signs, bounds, params.nu, n_a, seed,
                              flavor=params.flavor)


def pair_probability(executor, params, rows_a, rows_b, factors, weights, rng,
                     partitioned=False):
    """probA, probB of one pair (LIBSVM's svm_binary_svc_probability): Platt's sigmoid
    on the decision values of a 5-fold cross-validation of the pair (each fold by the
    partitioned solver where `train_pair` sends it, with `partitioned`)."""
    rows = np.concatenate([rows_a, rows_b])
    positive = np.arange(len(rows)) < len(rows_a)
    # a fold's training is a whole svm_train over labels +1 and -1: LIBSVM 3.37 puts +1
    # first; scikit-learn's copy sorts the labels, so -1 (the pair's second class) comes
    # first and its decision values are negated back (`*= submodel->label[0]`)
    second_first = params.flavor == "sklearn"

    def fit_decision(train, test):
        train_rows = rows[train]
        first, second = train_rows[positive[train]], train_rows[~positive[train]]
        if second_first:
            sub_rows, fit = train_pair(executor, params, second, first, factors[::-1],
                                       weights, partitioned=partitioned)
        else:
            sub_rows, fit = train_pair(executor, params, first, second, factors, weights,
                                       partitioned=partitioned)
        sv = fit.coef != 0
        if executor.solver.verbose:   # each fold is a whole svm_train in LIBSVM
            logger.info("Total nSV = %d", int(np.count_nonzero(sv)))
        dec = executor.decision_values(rows[test], sub_rows[sv], fit.coef[sv], fit.rho)
        return -dec if second_first else dec

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
    mass = np.array([weights[m].sum() for m in members])
    first, second = pair_indices(len(classes))
    infeasible = np.flatnonzero(nu * (mass[first] + mass[second]) / 2
                                > np.minimum(mass[first], mass[second]))
    if len(infeasible):
        a, b = int(first[infeasible[0]]), int(second[infeasible[0]])
        raise ValueError(
            f"specified nu is infeasible: nu={nu} for classes "
            f"{np.asarray(classes[a]).item()!r} and {np.asarray(classes[b]).item()!r} "
            f"({mass[a]:g} and {mass[b]:g} examples): it must be at most "
            "2 * min(n1, n2) / (n1 + n2)")


def fit_classification(executor, data, params, rng=None, start=None):
    """One-vs-one C-SVC or nu-SVC; with a Generator `rng`, also each pair's probA, probB.

    Parameters
    ----------
    executor : Executor
    data : TrainingSet
    params : TrainParams
    rng : numpy Generator or None
    start : StartingPoint or None
        A warm start (see `libsmo.training._warm_start`): each pair starts from its coefficients.

    Returns
    -------
    FormulationResult

    Raises
    ------
    ValueError
        One class; nu infeasible for a pair; or, before any training, more classes than
        the bounds of `pair_results.check_one_vs_one_bounds` allow.
    """
    kept = data.kept
    classes, index = data.class_groups
    k = len(classes)
    if k < 2:
        raise ValueError(f"y has a single class ({np.asarray(classes[0]).item()!r}); "
                         f"{params.svm_type} needs at least two")
    check_one_vs_one_bounds(k, len(kept))
    factors = class_factors(classes, params)
    members = [kept[index == c] for c in range(k)]
    if params.svm_type == "nu_svc":
        _check_nu_feasible(classes, members, data.weights, params.nu)
    # the pairs and what is kept of them in arrays: a fit of many classes holds no
    # Python object per pair (`libsmo.training._pair_results`)
    first, second = pair_indices(k)
    counts = np.array([len(m) for m in members], dtype=np.int64)
    sizes = counts[first] + counts[second]
    results = PairResults(sizes)
    progress = PairProgress(len(sizes))
    pair_rngs = None if rng is None else prob.pair_generators(rng, sizes.tolist())
    sigmoids = None if rng is None else np.zeros((len(sizes), 2))

    def seed(p):
        a, b = int(first[p]), int(second[p])
        return (None if start is None else
                start.pair_seed(classes, a, b, members[a], members[b]))

    def fit(p, pair_executor, partitioned=False):
        a, b = int(first[p]), int(second[p])
        pair_factors = (factors[a], factors[b])
        if rng is not None:
            sigmoids[p] = pair_probability(pair_executor, params, members[a], members[b],
                                           pair_factors, data.weights, pair_rngs[p],
                                           partitioned)
        _, binary = train_pair(pair_executor, params, members[a], members[b],
                               pair_factors, data.weights, seed(p), partitioned)
        results.store(p, binary)
        progress.pair_done()

    # the pairs the partitioned solver takes: one at a time, each on all the threads
    alone = (np.zeros(0, dtype=np.int64) if params.solver.solver == "smo" else
             np.flatnonzero([uses_partitioned(params, int(n), executor.X) for n in sizes]))
    for p in alone:
        fit(int(p), executor, True)
    rest = np.arange(len(sizes)) if not len(alone) else np.setdiff1d(
        np.arange(len(sizes)), alone)
    n_jobs = _parallel.effective_n_jobs(executor.solver.n_jobs)
    if n_jobs > 1 and len(rest) > 1:
        _pairs_as_tasks(executor, params, members, (first, second), factors,
                        data.weights, seed, pair_rngs, n_jobs, results, sigmoids, progress,
                        rest)
    elif len(rest) == len(sizes):
        executor.map_pairs(fit, len(sizes), sizes=sizes, collect=False)
    else:
        executor.map_pairs(lambda q, pair_executor: fit(int(rest[q]), pair_executor),
                           len(rest), sizes=sizes[rest], collect=False)
    result = one_vs_one_result(classes, members, results)
    if executor.solver.verbose:
        logger.info("Total nSV = %d", len(result.sv_rows))
    if rng is None:
        return result
    return dataclasses.replace(result, probA=sigmoids[:, 0].copy(),
                               probB=sigmoids[:, 1].copy())


@dataclass(frozen=True)
class PairTask:
    """One one-vs-one pair as a self-contained joblib task.

    Attributes
    ----------
    X : ndarray or csr_matrix
        The pair's rows (class a's, then class b's) in the solver's layout; for a
        precomputed kernel, the pair's block of the Gram matrix.
    n_a : int
        Rows of class a.
    weights : ndarray
        The rows' sample weights.
    factors : (float, float)
        The two classes' weights on C.
    seed : ndarray or None
        Warm start.
    rng : numpy Generator or None
        The pair's probability folds.
    params : TrainParams
    kernel : KernelParams
        With gamma resolved.
    solver : SolverParams
        One kernel thread and this task's share of the cache.
    policy_cache_size : float
        The fit's whole cache, by which the linear kernel's solver is chosen (as when
        the pairs run one after another).
    deadline : float or None
        The end of the fit's time budget (time.time(): comparable across machines).
    stop_flag : int8 ndarray of shape (1,)
        Shared with the other pairs when they run on threads (Ctrl-C, an error).
    """
    X: object
    n_a: int
    weights: np.ndarray
    factors: tuple
    seed: Optional[np.ndarray]
    rng: object
    params: TrainParams
    kernel: KernelParams
    solver: SolverParams
    policy_cache_size: float
    deadline: Optional[float]
    stop_flag: np.ndarray


def run_pair_task(task):
    """Train one `PairTask` (and its probability sigmoid when it has an rng).

    Returns
    -------
    sigmoid : (float, float) or None
    fit : BinaryFit
        Coefficients of the task's rows, class a's first.
    """
    solver = task.solver
    if task.deadline is not None:
        solver = dataclasses.replace(solver, time_limit=max(task.deadline - time.time(),
                                                            1e-9))
    executor = Executor(task.X, task.kernel, solver, task.params.primal_policy,
                        policy_cache_size=task.policy_cache_size)
    executor.stop_flag = task.stop_flag
    rows_a = np.arange(task.n_a)
    rows_b = np.arange(task.n_a, task.X.shape[0])
    sigmoid = None
    if task.rng is not None:
        sigmoid = pair_probability(executor, task.params, rows_a, rows_b, task.factors,
                                   task.weights, task.rng)
    _, fit = train_pair(executor, task.params, rows_a, rows_b, task.factors,
                        task.weights, task.seed)
    return sigmoid, fit


def _pairs_as_tasks(executor, params, members, pairs, factors, weights, seed, rngs,
                    n_jobs, results, sigmoids, progress, indices):
    """The pairs of `indices` through `libsmo._utils.parallel.imap_tasks`, each result
    stored in `results` (and its sigmoid in `sigmoids`) as it comes; the tasks are made
    as joblib asks for them, so that they are not all held at once."""
    solver = dataclasses.replace(executor.solver, n_threads=1,
                                 cache_size=executor.solver.cache_size / n_jobs)
    deadline = (None if executor.solver.time_limit is None
                else time.time() + max(executor.deadline - time.monotonic(), 0.0))
    stop = np.zeros(1, dtype=np.int8)
    precomputed = executor.kernel.kernel == "precomputed"
    first, second = pairs

    def tasks():
        for p in indices:
            a, b = int(first[p]), int(second[p])
            rows = np.concatenate([members[a], members[b]])
            X = (executor.X[np.ix_(rows, rows)] if precomputed
                 else take_rows(executor.X, rows))
            yield PairTask(X=X, n_a=len(members[a]), weights=weights[rows],
                           factors=(factors[a], factors[b]), seed=seed(p),
                           rng=None if rngs is None else rngs[p], params=params,
                           kernel=executor.kernel, solver=solver,
                           policy_cache_size=executor.policy_cache_size,
                           deadline=deadline, stop_flag=stop)

    try:
        for p, (sigmoid, fit) in zip(indices, _parallel.imap_tasks(run_pair_task, tasks(),
                                                                   n_jobs)):
            results.store(p, fit)
            if sigmoids is not None:
                sigmoids[p] = sigmoid
            progress.pair_done()
    except BaseException:
        stop[0] = 1   # pairs still running on threads stop at their next poll
        raise


# one_vs_one_result gathers the coefficients of this many sv_coef entries (rows times
# training rows) at a time: all classes at once for most fits, a few classes at a time
# for a fit of thousands, whose whole layout would double its memory
GATHER_ENTRIES = 1 << 22


def one_vs_one_result(classes, members, results):
    """LIBSVM's layout of the pairs' coefficients: support vectors grouped by class, in
    training order within each class; class i's vectors carry pair (i, j) on
    sv_coef row `coef_row(i, j)`.

    Classes together, not pair by pair: the coefficients of class c in its k - 1 pairs
    (those of pair (j, c), j < c, go to row j, those of pair (c, j) to row j - 1) are
    gathered from the flat arrays by one index array for as many classes as
    GATHER_ENTRIES allows (every class of a small fit), so that the Python work does not
    grow with the pairs.

    Parameters
    ----------
    classes : ndarray
    members : list of ndarray of int
        Each class's training rows.
    results : PairResults
        Every pair's result, pair (a, b)'s rows being members[a] then members[b].

    Returns
    -------
    FormulationResult
    """
    k = len(classes)
    counts = np.array([len(m) for m in members], dtype=np.int64)
    # the position of pair (a, a + 1): the pairs of every class before a come first
    a = np.arange(k, dtype=np.int64)
    first_pair = a * (k - 1) - a * (a - 1) // 2
    # start[r, c]: where class c's coefficients of sv_coef row r begin in results.coef
    r = np.arange(k - 1, dtype=np.int64)[:, None]
    before = r < a                       # pair (r, c): c's rows after r's
    pair = np.where(before, first_pair[r] + (a - r - 1), first_pair[a] + (r - a))
    start = results.offsets[pair] + np.where(before, counts[r], 0)
    blocks, supports = [], []
    c = 0
    while c < k:
        # the classes [c, end) gathered at once: at least one
        end = c + 1
        total = counts[c]
        while end < k and (k - 1) * (total + counts[end]) <= GATHER_ENTRIES:
            total += counts[end]
            end += 1
        owner = np.repeat(np.arange(c, end), counts[c:end])
        column_start = np.cumsum(counts[c:end]) - counts[c:end]
        position = np.arange(total, dtype=np.int64) - np.repeat(column_start,
                                                                counts[c:end])
        block = results.coef[start[:, owner] + position]
        support = np.any(block != 0, axis=0)
        blocks.append(block[:, support])
        supports.append(support)
        c = end
    support = np.concatenate(supports)
    owner = np.repeat(np.arange(k), counts)
    n_support = np.bincount(owner[support], minlength=k).astype(np.int64)
    sv_coef = blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=1)
    sv_rows = np.concatenate(members)[support]
    return FormulationResult(classes=classes, n_support=n_support, sv_rows=sv_rows,
                             sv_coef=np.ascontiguousarray(sv_coef), rho=results.rho.copy(),
                             statistics=results.statistics())
