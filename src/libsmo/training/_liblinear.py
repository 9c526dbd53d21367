"""LIBLINEAR's train(), cross_validation() and predict() on libsmo's linear solvers: the
library behind libsmo-linear-train and libsmo-linear-predict.

The problems are LIBLINEAR 2.50's (its linear.cpp), which differ from scikit-learn's
(`libsmo.estimators._linear`) where a model file shows it:

- the classes in the order of their first appearance in the data (two classes labelled
  -1 and +1 with -1 first: +1 first), the rows grouped by class in that order; two
  classes train one problem whose positive class is the first label, k > 2 classes k
  one-vs-rest problems, Crammer and Singer's (-s 4) one joint problem;
- C of class i is C times its ``-wi`` weight; in one-vs-rest the rest's rows keep C;
- the bias feature of value ``-B`` where it is >= 0, regularised with w (``-B 0`` adds a
  feature of value 0, whose weight stays 0);
- each solver's iteration limit: 300 epochs of a dual coordinate descent (-s 1, 3, 12,
  13; after them the squared losses go on by the Newton method, -s 1 at a tenth of the
  primal tolerance, -s 12 at a thousandth), 1000 Newton steps (-s 2, 11), 1000 epochs of
  the L1 coordinate descent (-s 5), 100000 of Crammer and Singer's, 1000 outer
  iterations of the one-class SVM's (-s 21);
- the one-class SVM (-s 21) trains on every row whatever its label, without a bias
  feature (``-B`` >= 0 is LIBLINEAR's error), and its model has no labels and an offset
  ``rho``;
- the default tolerance of each solver type (LIBLINEAR's -e), scaled for the primal
  classifiers by max(min(#positive, #negative), 1) / l.

The random permutations of the coordinate descents are libsmo's own (scikit-learn's
Mersenne Twister, seed 1 + the problem's index), not glibc's rand(): the model is the
same optimum as liblinear-train's to the solvers' tolerance, not the same bits. The
one-class SVM's method draws nothing: its model is liblinear-train's to the bit. The
cross-validation folds are LIBLINEAR's, drawn from glibc's rand() after srand(1).

Lines LIBLINEAR's solvers print (its info()) go to the ``libsmo`` logger, which
libsmo-linear-train routes to stdout: "optimization finished, #iter = N", "Objective
value = ...", "nSV = N" (or "#nonzeros/#features"), and the warnings at the iteration
limits. The progress dots and the Newton method's per-step lines are not printed.
"""
import dataclasses
import logging
import math
import warnings
from dataclasses import dataclass

import numpy as np

from libsmo._core.linear_oneclass import liblinear_start, one_class_dual
from libsmo._core.linear_rows import LinearRows
from libsmo._utils.parallel import imap_tasks
from libsmo.io.liblinear_model import (
    LOGISTIC,
    ONE_CLASS,
    REGRESSION,
    SVM_SOLVERS,
    LiblinearModel,
)
from libsmo.training._linear import (
    FeatureColumns,
    LinearTask,
    newton_threads,
    solve_crammer_singer,
    solve_guarded,
)

__all__ = ["LiblinearParams", "check_parameter", "cross_validation", "predict",
           "predict_probability", "train"]

logger = logging.getLogger("libsmo")

# the solver types libsmo trains: LIBLINEAR's support vector machines
SOLVER_NAMES = {number: name for name, number in SVM_SOLVERS.items()} | {21: ONE_CLASS}
# LIBLINEAR 2.50's other solver types, which libsmo has no solver for
UNTRAINED = {0: "L2-regularized logistic regression (primal)",
             6: "L1-regularized logistic regression",
             7: "L2-regularized logistic regression (dual)"}
# LIBLINEAR's -e where it is not given (train.c)
DEFAULT_TOL = {1: 0.1, 2: 0.01, 3: 0.1, 4: 0.1, 5: 0.01, 11: 0.0001, 12: 0.1, 13: 0.1,
               21: 0.01}
DUAL_TYPES = (1, 3, 12, 13)
PRIMAL_TYPES = (2, 11)
DUAL_MAX_ITER = 300        # train_one's dual_solver_max_iter
NEWTON_MAX_ITER = 1000     # the NEWTON class's default
L1_MAX_ITER = 1000         # solve_l1r_l2_svc's
CS_MAX_ITER = 100000       # Solver_MCSVM_CS's default
ONE_CLASS_MAX_ITER = 1000  # solve_oneclass_svm's
# what train_one prints after a dual that took its 300 epochs
AFTER_DUAL_LIMIT = {1: "Switching to use -s 2", 3: "Using -s 2 may be faster (also see FAQ)",
                    12: "Switching to use -s 11",
                    13: "Using -s 11 may be faster (also see FAQ)"}
# the seed of problem k's permutations is SEED + k
SEED = 1


@dataclass(frozen=True)
class LiblinearParams:
    """liblinear-train's parameters.

    Attributes
    ----------
    solver : int
        LIBLINEAR's solver type (``-s``).
    C : float
        ``-c``.
    p : float
        The SVR's epsilon (``-p``).
    nu : float
        The one-class SVM's nu (``-n``), in (0, 1].
    eps : float or None
        The tolerance (``-e``); None takes the solver type's default (`tol`).
    bias : float
        The bias feature's value (``-B``); negative for none.
    weights : tuple of (int, float)
        The ``-wi`` weights, in the command line's order.
    threads : int
        liblinear-multicore's ``-m``: the one-vs-rest problems trained at once, and
        one problem's Newton method (-s 2, 11, and -s 1's continuation) or the
        one-class SVM's gradients (-s 21) on that many threads over its rows.
    """
    solver: int = 1
    C: float = 1.0
    p: float = 0.1
    nu: float = 0.5
    eps: object = None
    bias: float = -1.0
    weights: tuple = ()
    threads: int = 1

    @property
    def tol(self):
        """The tolerance: -e, or the solver type's default."""
        return self.eps if self.eps is not None else DEFAULT_TOL.get(self.solver, 0.1)

    @property
    def regression(self):
        return SOLVER_NAMES.get(self.solver) in REGRESSION


def check_parameter(params):
    """LIBLINEAR's check_parameter, in its order and words (libsmo's detail after
    them): the first problem, or None. Solver types LIBLINEAR has but libsmo does not
    train (logistic regression, one-class) are named as such."""
    if not params.tol > 0:
        return f"eps <= 0 (-e {params.tol:g})"
    if not params.C > 0:
        return f"C <= 0 (-c {params.C:g})"
    if params.regression and not params.p >= 0:
        return f"p < 0 (-p {params.p:g})"
    if params.solver == 21 and params.bias >= 0:
        return "prob->bias >=0, but this is ignored in ONECLASS_SVM"
    if params.threads < 1:
        return f"nr_thread < 1 (-m {params.threads})"
    # libsmo's own: a value LIBLINEAR takes and trains NaNs or nothing with, or (a
    # weight of 0) rows libsmo's solvers do not take
    if not math.isfinite(params.C):
        return f"C is not finite (-c {params.C:g})"
    if not math.isfinite(params.bias):
        return f"bias is not finite (-B {params.bias:g})"
    if params.solver == 21 and not 0 < params.nu <= 1:
        # (LIBLINEAR does not check: above 1 it writes past its arrays)
        return f"nu <= 0 or nu > 1 (-n {params.nu:g})"
    for label, weight in params.weights:
        if not (weight > 0 and math.isfinite(weight)):
            return (f"the weight of class {label} must be finite and > 0 "
                    f"(-w{label} {weight:g})")
    if params.solver in UNTRAINED:
        return (f"solver type {params.solver} ({UNTRAINED[params.solver]}) is not "
                "available: libsmo trains LIBLINEAR's support vector machines only "
                f"(-s {', '.join(str(s) for s in sorted(SOLVER_NAMES))})")
    if params.solver not in SOLVER_NAMES:
        return f"unknown solver type (-s {params.solver})"
    return None


def group_classes(y):
    """LIBLINEAR's group_classes: the labels in the order of their first appearance
    (-1 and +1 with -1 first: +1 first), and each row's index into them."""
    values, first, encoded = np.unique(y.astype(np.int64), return_index=True,
                                       return_inverse=True)
    by_appearance = np.argsort(first, kind="stable")
    labels = values[by_appearance]
    if len(labels) == 2 and labels[0] == -1 and labels[1] == 1:
        by_appearance = by_appearance[::-1]
        labels = labels[::-1]
    rank = np.empty(len(values), dtype=np.int64)
    rank[by_appearance] = np.arange(len(values))
    return labels, rank[encoded.ravel()]


def _weighted_C(params, labels):
    """C of each class: C times its -wi weights (a label not in the data: LIBLINEAR's
    warning, once per training)."""
    weighted = np.full(len(labels), float(params.C))
    for label, weight in params.weights:
        found = np.flatnonzero(labels == label)
        if len(found):
            weighted[found[0]] *= weight
        else:
            warnings.warn(f"class label {label} specified in weight is not found",
                          UserWarning, stacklevel=3)
    return weighted


def _task(params, rows, order, targets, bounds, k, stop_flag, columns=None, threads=1):
    solver = params.solver
    dual = solver in DUAL_TYPES
    max_iter = (DUAL_MAX_ITER if dual else L1_MAX_ITER if solver == 5
                else NEWTON_MAX_ITER)
    return LinearTask(rows, order, targets, bounds, dual, solver in (1, 2, 5, 11, 12),
                      params.regression, float(params.p) if params.regression else 0.0,
                      float(params.tol), max_iter, SEED + k, stop_flag, None, columns,
                      threads=threads)


def _report(solver, fit, n_weights):
    """The lines LIBLINEAR's train_one and its solvers print for one problem."""
    lines = []
    if solver in DUAL_TYPES:
        dual_run = fit.switched_from if fit.switched_from is not None else fit
        n_sv = (np.count_nonzero(dual_run.dual) if solver in (12, 13)
                else np.count_nonzero(np.asarray(dual_run.dual) > 0))
        lines += [f"\noptimization finished, #iter = {dual_run.n_iter}",
                  f"Objective value = {dual_run.objective:f}", f"nSV = {n_sv}"]
        if dual_run.n_iter >= DUAL_MAX_ITER:
            lines.append("\nWARNING: reaching max number of iterations\n"
                         f"{AFTER_DUAL_LIMIT[solver]}\n")
        elif fit.switched_from is not None:     # judged slow before the limit
            lines.append("\nWARNING: the dual would not reach eps within max number of "
                         f"iterations\n{AFTER_DUAL_LIMIT[solver]}\n")
        if fit.switched_from is not None and not fit.converged:
            lines.append("\nWARNING: reaching max number of Newton iterations")
    elif solver in PRIMAL_TYPES:
        if not fit.converged:
            lines.append("\nWARNING: reaching max number of Newton iterations")
    elif solver == 5:
        lines.append(f"\noptimization finished, #iter = {fit.n_iter}")
        if fit.n_iter >= L1_MAX_ITER:
            lines.append("\nWARNING: reaching max number of iterations")
        lines += [f"Objective value = {fit.objective:f}",
                  f"#nonzeros/#features = {np.count_nonzero(fit.w)}/{n_weights}"]
    elif solver == 21:
        solution, rho = fit
        lines.append(f"\noptimization finished, #iter = {solution.n_iter}")
        if solution.n_iter >= ONE_CLASS_MAX_ITER:
            lines.append("\nWARNING: reaching max number of iterations\n")
        lines += [f"Objective value = {solution.objective:f}",
                  f"nSV = {np.count_nonzero(np.asarray(solution.dual) > 0)}",
                  f"rho = {rho:f}"]
    else:   # Crammer and Singer's
        lines.append(f"\noptimization finished, #iter = {fit.n_iter}")
        if fit.n_iter >= CS_MAX_ITER:
            lines.append("\nWARNING: reaching max number of iterations")
        lines += [f"Objective value = {fit.objective:f}",
                  f"nSV = {np.count_nonzero(fit.dual)}"]
    for line in lines:
        logger.info(line)


def _solve(params, tasks, n_weights):
    """The tasks' weights, one column each: one task on the -m threads (its Newton
    method's), several as that many tasks at once; each problem's lines in order."""
    jobs = params.threads if len(tasks) > 1 else 1
    if len(tasks) == 1:
        tasks = [dataclasses.replace(tasks[0],
                                     threads=newton_threads(tasks[0].rows, params.threads))]
    columns = []
    for fit in imap_tasks(solve_guarded, tasks, jobs):
        _report(params.solver, fit, n_weights)
        columns.append(np.asarray(fit.w, dtype=np.float64))
    return np.column_stack(columns)


def train(X, y, params):
    """Train a LIBLINEAR model as liblinear-train does.

    Parameters
    ----------
    X : csr_matrix of shape (n_samples, n_features)
        The rows; n_features is the model's nr_feature.
    y : ndarray of shape (n_samples,)
        The targets; for a classifier, integer labels.
    params : LiblinearParams
        Checked parameters (`check_parameter` returned None).

    Returns
    -------
    LiblinearModel
        The model as LIBLINEAR's save_model writes it.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from libsmo.training._liblinear import LiblinearParams, train
    >>> X = sp.csr_matrix([[0.0, 1.0], [1.0, 0.0], [2.0, 3.0], [3.0, 2.0]])
    >>> model = train(X, np.array([2.0, 2.0, 5.0, 5.0]), LiblinearParams(bias=1.0))
    >>> model.solver_type, model.labels, model.w.shape
    ('L2R_L2LOSS_SVC_DUAL', (2, 5), (3, 1))
    """
    n_rows, n_features = X.shape
    y = np.asarray(y, dtype=np.float64)
    rows = LinearRows(X, float(params.bias) if params.bias > 0 else 0.0)
    n_weights = n_features + (1 if params.bias >= 0 else 0)
    stop_flag = np.zeros(1, dtype=np.int8)
    labels = None
    if params.solver == 21:
        return _train_one_class(rows, params, stop_flag)
    if n_weights == 0:
        # no feature and no bias (a file of labels alone): LIBLINEAR writes an empty w
        labels = None if params.regression else group_classes(y)[0]
        nr_w = 1 if labels is None or (len(labels) == 2 and params.solver != 4) \
            else len(labels)
        if labels is not None and len(labels) == 0:
            raise ValueError("the training data has no rows")
        return LiblinearModel(SOLVER_NAMES[params.solver],
                              None if labels is None else tuple(int(v) for v in labels),
                              0, float(params.bias), np.zeros((0, nr_w)))
    if params.regression:
        task = _task(params, rows, np.arange(n_rows), y, np.full(n_rows, float(params.C)),
                     0, stop_flag)
        W = _solve(params, [task], n_weights)
    else:
        labels, encoded = group_classes(y)
        if len(labels) == 0:
            raise ValueError("the training data has no rows")
        order = np.argsort(encoded, kind="stable")
        weighted = _weighted_C(params, labels)
        if params.solver == 4 and len(labels) == 1:
            # one class (a fold of a small cross-validation, say): LIBLINEAR's
            # Crammer-Singer problem has no room to move, its w is 0
            W = np.zeros((n_weights, 1))
        elif params.solver == 4:
            fit = solve_crammer_singer(rows, order, encoded, weighted[encoded],
                                       len(labels), float(params.tol), CS_MAX_ITER, SEED)
            _report(4, fit, n_weights)
            W = np.asarray(fit.w, dtype=np.float64).T
        else:
            columns = (FeatureColumns.of(X, order, rows.bias) if params.solver == 5
                       else None)
            # two classes: one problem, label[0] positive; one or more than two: one
            # against the rest (one class: LIBLINEAR's one problem of positive rows)
            problems = ([(0, weighted[0], weighted[1])] if len(labels) == 2 else
                        [(i, weighted[i], float(params.C)) for i in range(len(labels))])
            W = _solve(params, [_task(params, rows, order, np.where(encoded == i, 1.0, -1.0),
                                      np.where(encoded == i, positive_C, negative_C), k,
                                      stop_flag, columns)
                                for k, (i, positive_C, negative_C) in enumerate(problems)],
                       n_weights)
    if params.bias == 0:   # a bias feature of value 0: its weight stays 0
        W = np.vstack([W, np.zeros((1, W.shape[1]))])
    return LiblinearModel(SOLVER_NAMES[params.solver],
                          None if labels is None else tuple(int(v) for v in labels),
                          int(n_features), float(params.bias), np.ascontiguousarray(W))


def _train_one_class(rows, params, stop_flag):
    """LIBLINEAR's one-class SVM on every row (`one_class_dual`): its model, with rho."""
    if rows.n_rows == 0:
        raise ValueError("the training data has no rows")
    solution, rho = one_class_dual(rows, liblinear_start(float(params.nu), rows.n_rows),
                                   tol=float(params.tol),
                                   max_iter=ONE_CLASS_MAX_ITER,
                                   n_threads=newton_threads(rows, params.threads),
                                   stop_flag=stop_flag)
    _report(21, (solution, rho), rows.n_weights)
    return LiblinearModel(ONE_CLASS, None, int(rows.n_features), float(params.bias),
                          np.asarray(solution.w, dtype=np.float64).reshape(-1, 1),
                          rho=float(rho))


def decision_values(model, X):
    """LIBLINEAR's predict_values for every row of X: one column per w column, the
    features beyond nr_feature unused, the terms added in the row's order and the bias
    feature's last, a one-class model's rho then taken away (so that the values are
    liblinear-predict's to the bit)."""
    import scipy.sparse as sp
    X = sp.csr_matrix(X)
    n = model.n_features
    if X.shape[1] != n:
        X = X[:, :n] if X.shape[1] > n else sp.csr_matrix(
            (X.data, X.indices, X.indptr), shape=(X.shape[0], n))
    X.sort_indices()
    scores = np.asarray(X @ model.w[:n], dtype=np.float64).reshape(X.shape[0], model.nr_w)
    if model.bias >= 0:
        scores = scores + model.bias * model.w[n]
    if model.solver_type == ONE_CLASS:
        scores = scores - model.rho
    return scores


def predict(model, X):
    """Predict every row of X with a LIBLINEAR model as liblinear-predict does.

    Parameters
    ----------
    model : LiblinearModel
    X : csr_matrix or ndarray of shape (n_samples, n_columns)
        The rows; columns beyond the model's nr_feature are not used.

    Returns
    -------
    ndarray of float64 of shape (n_samples,)
        The predicted labels (a classifier: label[0] where the first decision value is
        positive for two classes, else the label of the largest value, the first
        of equal ones; the one-class SVM: +1 where ``w'x - rho`` is positive, else -1)
        or values (a regression).

    Examples
    --------
    >>> import numpy as np
    >>> from libsmo.io import LiblinearModel
    >>> from libsmo.training._liblinear import predict
    >>> model = LiblinearModel("L2R_L1LOSS_SVC_DUAL", (3, 7), 1, 1.0,
    ...                        np.array([[2.0], [-1.0]]))
    >>> predict(model, np.array([[1.0], [0.0]]))
    array([3., 7.])
    """
    scores = decision_values(model, X)
    if model.solver_type == ONE_CLASS:
        return np.where(scores[:, 0] > 0, 1.0, -1.0)
    if model.labels is None:
        return scores[:, 0].copy()
    return _labels_of(model, scores)


def _labels_of(model, scores):
    """predict_values' labels: label[0] where a two-class score is > 0, else label[1];
    for more classes the first strict maximum (a NaN score, from weights and values
    whose products overflow, is never greater: the first column's NaN keeps it)."""
    labels = np.asarray(model.labels, dtype=np.float64)
    if len(labels) == 2:
        return np.where(scores[:, 0] > 0, labels[0], labels[1])
    best = np.argmax(np.where(np.isnan(scores), -np.inf, scores), axis=1)
    return labels[np.where(np.isnan(scores[:, 0]), 0, best)]


def predict_probability(model, X):
    """Predict every row of X with a logistic regression model, with each class's
    probability, as liblinear-predict -b 1 does (LIBLINEAR's predict_probability).

    Each decision value d becomes ``1 / (1 + exp(-d))``; two classes have that of
    label[0] and its complement, more classes theirs divided by their sum.

    Parameters
    ----------
    model : LiblinearModel
        A model of LIBLINEAR's logistic regressions (-s 0, 6, 7).
    X : csr_matrix or ndarray of shape (n_samples, n_columns)
        The rows; columns beyond the model's nr_feature are not used.

    Returns
    -------
    labels : ndarray of float64 of shape (n_samples,)
        The predicted labels, as `predict` gives them.
    probabilities : ndarray of float64 of shape (n_samples, nr_class)
        Each class's probability, in the model's label order.

    Raises
    ------
    ValueError
        The model is not a logistic regression (LIBLINEAR's message: "probability
        output is only supported for logistic regression").

    Examples
    --------
    >>> import numpy as np
    >>> from libsmo.io import LiblinearModel
    >>> from libsmo.training._liblinear import predict_probability
    >>> model = LiblinearModel("L2R_LR", (1, -1), 1, -1.0, np.array([[2.0]]))
    >>> labels, probabilities = predict_probability(model, np.array([[0.0], [-1.0]]))
    >>> labels
    array([-1., -1.])
    >>> probabilities.round(4)
    array([[0.5   , 0.5   ],
           [0.1192, 0.8808]])
    """
    if model.solver_type not in LOGISTIC:
        raise ValueError("probability output is only supported for logistic regression "
                         f"(the model is {model.solver_type})")
    scores = decision_values(model, X)
    # (C's arithmetic, silently: exp(1000) is inf and its sigmoid 0; classes whose
    # sigmoids all underflow give 0 / 0, NaN, which the output file writes as "-nan")
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        sigmoids = 1.0 / (1.0 + np.exp(-scores))
        if len(model.labels) == 2:
            probabilities = np.column_stack([sigmoids[:, 0], 1.0 - sigmoids[:, 0]])
        else:
            # (summed in the classes' order, as LIBLINEAR sums them)
            total = np.zeros(len(sigmoids))
            for column in sigmoids.T:
                total += column
            probabilities = sigmoids / total[:, None]
    return _labels_of(model, scores), probabilities


def cross_validation(X, y, params, n_folds, random):
    """LIBLINEAR's cross_validation: each row's prediction by the model trained on the
    other folds.

    Parameters
    ----------
    X : csr_matrix of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    params : LiblinearParams
    n_folds : int
        At least 2; more than n_samples is taken as n_samples (LIBLINEAR's warning).
    random : LibsvmRandom
        glibc's rand(): the folds are LIBLINEAR's shuffle of the rows
        (``j = i + rand() % (l - i)``) cut into n_folds runs.

    Returns
    -------
    ndarray of float64 of shape (n_samples,)
        The out-of-fold predictions.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from libsmo import LibsvmRandom
    >>> from libsmo.training._liblinear import LiblinearParams, cross_validation
    >>> X = sp.csr_matrix(np.array([[-2.0], [-1.0], [-1.5], [1.0], [2.0], [1.5]]))
    >>> y = np.array([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0])
    >>> cross_validation(X, y, LiblinearParams(), 3, LibsvmRandom(1))
    array([-1., -1., -1.,  1.,  1.,  1.])
    """
    l = X.shape[0]
    if n_folds > l:
        warnings.warn(f"n_folds ({n_folds}) > number of data ({l}): leave-one-out",
                      UserWarning, stacklevel=2)
        n_folds = l
    perm = np.asarray(random.permutation(l), dtype=np.int64)
    target = np.zeros(l)
    for i in range(n_folds):
        begin, end = i * l // n_folds, (i + 1) * l // n_folds
        kept = np.concatenate([perm[:begin], perm[end:]])
        model = train(X[kept], y[kept], params)
        target[perm[begin:end]] = predict(model, X[perm[begin:end]])
    return target
