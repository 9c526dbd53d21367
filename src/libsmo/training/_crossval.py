"""n-fold cross-validation as LIBSVM's svm_cross_validation (svm-train -v n).

Classification folds are stratified as LIBSVM's: each class's examples are shuffled and
spread over the folds in near-equal runs, so that every fold keeps the class proportions
to within one example per class. Regression and one-class folds are a shuffled
permutation cut into near-equal runs. Each fold trains `libsmo.train` on the other folds
and predicts its own rows.

The folds are drawn from `random_state`: numpy's default_rng(random_state) for None or an
int (the figures then agree with LIBSVM's in distribution), or, with
`libsmo.LibsvmRandom(seed)`, from C's rand() as svm-train draws them: LIBSVM's own folds,
and with the solver's same steps LIBSVM's figures digit for digit (svm-train's are those
of seed 1, which libsmo-train uses by default).

Each fold is a `FoldTask` run by `run_fold`; with n_jobs > 1 the folds are joblib tasks
(`libsmo._utils.parallel`), each fit with one thread and a share of the cache, and the
predictions are the same, bit for bit, as one fold after another. With probability=True
and numpy's random source each fold draws its own generator before any fold runs, so
that the order they run in does not matter; LIBSVM's rand() (`LibsvmRandom`) is one
sequence consumed fold after fold, as svm-train consumes it, so those folds run one
after another whatever n_jobs.
"""
import logging
import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from libsmo._utils import parallel as _parallel
from libsmo._utils import validation as v
from libsmo._utils.cache_budget import budget_megabytes
from libsmo._utils.constraints import Jobs, OrNone
from libsmo._utils.libsvm_figures import regression_figures
from libsmo._utils.names import CLASSIFICATION_TYPES, REGRESSION_TYPES
from libsmo._utils.random_sources import LibsvmRandom
from libsmo.model import _probability as prob
from libsmo.model._one_vs_one import ONE_CLASS_LINES, all_one_class, group_classes
from libsmo.training._fitting import fit_training_set, training_set_for
from libsmo.training._params import TrainParams
from libsmo.training._problem import TrainingSet

logger = logging.getLogger("libsmo")


def _subset(X, rows, columns, precomputed):
    """Rows of X; for a precomputed kernel, also only the training columns (two takes:
    a third of the time of numpy's X[np.ix_(rows, columns)])."""
    if precomputed:
        return X.take(rows, axis=0).take(columns, axis=1)
    return X[rows]


@dataclass(frozen=True)
class FoldTask:
    """One fold: train on some rows, predict the others.

    Attributes
    ----------
    training : TrainingSet
        The training rows, labels and weights, validated (`train.training_set_for`
        with `params`, or a `FoldBlock`'s).
    X_test : rows to predict (for a precomputed kernel, their kernel against the
        training rows)
    params : TrainParams
    by_probability : bool
        Predict the class of highest probability (LIBSVM's -b 1 cross-validation).
    init : Model, ndarray or None
        A warm start (`libsmo.train`'s init): the same fold's model of a neighbouring
        parameter, or its coefficients (`grid.alpha_seed`).
    keep_model : bool
        Return the fold's model with its predictions (for the next warm start).
    """
    training: TrainingSet
    X_test: object
    params: TrainParams
    by_probability: bool
    init: object = None
    keep_model: bool = False


@dataclass(frozen=True)
class FoldBlock:
    """One fold's data made once for many trainings (a grid's cells, see
    `fold_blocks`).

    Attributes
    ----------
    training : TrainingSet
        The other folds' rows, validated for the trainings' svm_type, kernel name and
        cache size.
    X_test : ndarray or csr_matrix
        The fold's rows (for a precomputed kernel, their kernel against the training
        rows).
    """
    training: TrainingSet
    X_test: object


def run_fold(task):
    """The predictions of one `FoldTask`'s test rows.

    Returns
    -------
    ndarray, or (ndarray, Model) with task.keep_model
    """
    model = fit_training_set(task.training, task.params, init=task.init)
    if task.by_probability:
        predictions = model.classes[np.argmax(model.predict_proba(task.X_test), axis=1)]
    else:
        predictions = model.predict(task.X_test)
    return (predictions, model) if task.keep_model else predictions


def cross_validation(X, y, n_folds, random_state=None, n_jobs=None, **params):
    """Cross-validate `libsmo.train` with LIBSVM's folds and figures (svm-train -v).

    The rows are split into folds as svm-train splits them (stratified by class
    for classification, from the random source's shuffle), each fold is predicted
    by a model trained on the others, and the figures svm-train prints are
    computed from the out-of-fold predictions.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        As for `train`; for kernel='precomputed', the (n_samples, n_samples) Gram
        matrix (each fold trains on its block and predicts from the training
        columns).
    y : array-like of shape (n_samples,) or None
        Labels or targets; for svm_type='one_class' it may be None (then no accuracy
        is given: the predictions are +1 / -1).
    n_folds : int
        Number of folds, at least 2. More folds than examples means leave-one-out
        (with a warning, as LIBSVM).
    random_state : None, int, numpy Generator or LibsvmRandom, default=None
        Source of the folds (and of the probability folds inside each training when
        probability=True), drawn in LIBSVM's order: the folds first, then each fold's
        training. An int gives the same result every run; ``LibsvmRandom(1)`` gives
        svm-train's folds; None fresh folds each run.
    n_jobs : int, default=None
        Folds trained at once as joblib tasks (see `train`): local threads by
        default, or the backend of a ``joblib.parallel_config`` context. The results
        are the same for every n_jobs.
    **params
        Any parameter of `train` (svm_type, kernel, C, nu, epsilon, gamma, ...).
        sample_weight, if given, is split with the rows. With probability=True a
        classifier predicts the class of highest probability, as LIBSVM does.

    Returns
    -------
    dict
        "predictions": the out-of-fold prediction of every example (labels, +1/-1
        for one-class, values for regression); "folds": the test rows of each fold;
        for classification and one-class with labels, "accuracy": the percentage of
        predictions equal to y (as LIBSVM prints "Cross Validation Accuracy = ...%");
        for regression "mse" (mean squared error) and "squared_correlation"
        (LIBSVM's squared correlation coefficient of predictions and targets, NaN
        when either is constant).

    Raises
    ------
    ValueError
        n_folds is not an integer >= 2, or bad data or parameters.

    See Also
    --------
    libsmo.train : Train one model.
    libsmo.training.grid_search : Cross-validate a grid of C and gamma.
    sklearn.model_selection.cross_val_score : The scikit-learn way, with its folds.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import libsmo
    >>> X, y = load_iris(return_X_y=True)
    >>> result = libsmo.cross_validation(X, y, 5, random_state=libsmo.LibsvmRandom(1),
    ...                                  C=1.0, gamma=0.5)
    >>> sorted(result)
    ['accuracy', 'folds', 'predictions']
    >>> print(result["accuracy"])
    96.0
    """
    sample_weight = params.pop("sample_weight", None)
    train_params = TrainParams.from_kwargs(**params)
    # libsmo's message (train's), before joblib's own for n_jobs=0
    n_jobs = OrNone(Jobs()).check(n_jobs, "n_jobs")
    X, y, sample_weight = check_problem(X, y, sample_weight, train_params)
    n = X.shape[0]
    if (not isinstance(n_folds, numbers.Integral) or isinstance(n_folds, (bool, np.bool_))
            or n_folds < 2):
        raise ValueError(f"n_folds must be an integer >= 2, got {n_folds!r}")
    n_folds = int(n_folds)
    if n_folds > n:
        warnings.warn(f"n_folds ({n_folds}) > number of examples ({n}): using "
                      f"n_folds = {n} instead (leave-one-out cross-validation)",
                      UserWarning, stacklevel=2)
        n_folds = n
    rng = v.check_random_state(random_state)
    folds = libsvm_folds(y, n, n_folds, train_params.svm_type, rng)
    if train_params.probability:
        # the probability folds inside each training draw from the same source, after
        # the folds, as svm-train's rand() does
        train_params = train_params.replace(random_state=rng)
    predictions = fold_predictions(X, y, folds, train_params, sample_weight,
                                   n_jobs=n_jobs)
    result = {"predictions": predictions, "folds": folds}
    result.update(figures(y, predictions, train_params.svm_type))
    return result


def check_problem(X, y, sample_weight, train_params):
    """X, y and sample weights checked for cross-validation with `train_params`
    (a precomputed kernel's X is the n x n Gram matrix).

    Returns
    -------
    X, y, sample_weight
    """
    svm_type = train_params.svm_type
    precomputed = train_params.kernel.kernel == "precomputed"
    X = v.check_precomputed(X, "X") if precomputed else v.check_data(X, "X")
    n = X.shape[0]
    if y is None:
        if svm_type != "one_class":
            raise ValueError(f"y is required for svm_type={svm_type!r}")
    else:
        y = v.check_labels(y, n, classes=svm_type not in REGRESSION_TYPES)
        if svm_type in REGRESSION_TYPES:
            if y.dtype.kind not in "biuf":
                raise TypeError(f"y must hold real targets for {svm_type}, got dtype "
                                f"{y.dtype}")
            y = y.astype(np.float64)
    return X, y, v.check_sample_weight(sample_weight, n)


def libsvm_folds(y, n, n_folds, svm_type, rng):
    """The test rows of each fold, as LIBSVM's svm_cross_validation draws them:
    stratified for classification (never for leave-one-out), else a shuffle cut into
    runs.

    Parameters
    ----------
    y : ndarray or None
    n, n_folds : int
        n_folds <= n.
    svm_type : str
    rng : numpy Generator or LibsvmRandom

    Returns
    -------
    list of ndarray
    """
    if svm_type in CLASSIFICATION_TYPES and n_folds < n:
        return prob.stratified_folds(group_classes(y)[1], n_folds, rng)
    return prob.random_folds(n, n_folds, rng)


def class_grouped(rows, labels):
    """`rows` regrouped by class, stably, the classes in LIBSVM's order (`group_classes`).

    A fit on the regrouped rows meets the same classes in the same order and gives
    each pair the same examples in the same order, so it takes the same steps; but a
    pair's Q rows are then runs of consecutive entries of a precomputed Gram block,
    read in order rather than gathered across it (australian_scale's grid: 4% less
    time).
    """
    return rows[np.argsort(group_classes(labels)[1], kind="stable")]


def fold_blocks(X, y, folds, train_params, sample_weight=None):
    """Each fold's training rows, validated, and test rows, for callers that
    cross-validate the same data many times (a grid search): the validation and the
    copies are made once, not once per training. A precomputed kernel's training
    rows for classification are regrouped by class (`class_grouped`; the same steps).

    Parameters
    ----------
    X, y, sample_weight
        As `check_problem` returns them (for a precomputed kernel X is the Gram
        matrix of all the examples; each test block holds the training columns only).
    folds : list of ndarray
    train_params : TrainParams
        Any of the parameters the blocks will train with: the same svm_type, kernel
        name and cache size.

    Returns
    -------
    list of FoldBlock
        One per fold, in fold order.
    """
    precomputed = train_params.kernel.kernel == "precomputed"
    # not with sample weights: a first row of weight 0 would leave the kept rows'
    # classes in another order once regrouped
    by_class = (precomputed and sample_weight is None
                and train_params.svm_type in CLASSIFICATION_TYPES)
    blocks = []
    for train, test in prob.out_of_fold(folds, X.shape[0]):
        if by_class:
            train = class_grouped(train, y[train])
        training = training_set_for(
            _subset(X, train, train, precomputed), None if y is None else y[train],
            None if sample_weight is None else sample_weight[train], train_params)
        blocks.append(FoldBlock(training, _subset(X, test, train, precomputed)))
    return blocks


def fold_predictions(X, y, folds, train_params, sample_weight=None, blocks=None,
                     n_jobs=None, starts=None, keep_models=False):
    """The out-of-fold prediction of every example: each fold trained on the others
    (in LIBSVM's order: the folds before it, then the folds after it).

    Parameters
    ----------
    X, y, sample_weight
        As `check_problem` returns them; for a precomputed kernel X is the Gram
        matrix of all the examples (each fold reads its block).
    folds : list of ndarray
    train_params : TrainParams
        With probability=True its random_state is the source of the probability
        folds: a numpy Generator (each fold draws its own from it, in fold order) or a
        `LibsvmRandom` (consumed fold after fold, as svm-train does).
    blocks : list of FoldBlock, optional
        `fold_blocks(X, y, folds, ...)`, made once for many calls with parameters of
        the same svm_type, kernel name and cache size (sample_weight is then
        ignored: the blocks hold it).
    n_jobs : int or None
        Folds trained at once as joblib tasks; the same predictions for every n_jobs.
    starts : list of (Model, ndarray or None), optional
        A warm start per fold (`libsmo.train`'s init): the models `keep_models`
        returned for a neighbouring parameter, or their coefficients (a grid's previous
        C, `grid.alpha_seed`).
    keep_models : bool
        Also return each fold's model (None for a fold that trained nothing).

    Returns
    -------
    ndarray of shape (n,)
        Labels (with probability=True, the class of highest probability, as LIBSVM),
        +1 / -1 for one-class, values for regression.
    list of (Model or None)
        With keep_models, one per fold.
    """
    svm_type = train_params.svm_type
    precomputed = train_params.kernel.kernel == "precomputed"
    n = X.shape[0]
    predictions = (np.empty(n, dtype=y.dtype) if svm_type in CLASSIFICATION_TYPES
                   else np.empty(n))
    use_probability = train_params.probability and svm_type in CLASSIFICATION_TYPES
    fold_params = [train_params] * len(folds)
    if train_params.probability:
        source = train_params.random_state
        if isinstance(source, LibsvmRandom):
            n_jobs = 1    # one sequence, consumed in fold order
        else:
            # each fold's own generator, drawn before any fold runs: the same
            # whichever order the folds run in
            rng = v.check_random_state(source)
            fold_params = [train_params.replace(random_state=np.random.default_rng(seed))
                           for seed in rng.integers(2**63, size=len(folds))]
    jobs = _parallel.effective_n_jobs(n_jobs)
    if jobs > 1:
        fold_params = [p.replace(n_threads=1, n_jobs=1,
                                 cache_size=budget_megabytes(p.solver.cache_size, jobs))
                       for p in fold_params]
    tested = []

    def tasks():
        for k, (train_rows, test_rows) in enumerate(prob.out_of_fold(folds, n)):
            if len(test_rows) == 0:
                continue
            y_train = None if y is None else y[train_rows]
            if svm_type in CLASSIFICATION_TYPES and all_one_class(y_train):
                # LIBSVM's one-class-of-data model predicts that class everywhere
                predictions[test_rows] = y_train[0]
                if fold_params[k].solver.verbose:   # and its training says so
                    for line in ONE_CLASS_LINES:
                        logger.info(line)
                continue
            tested.append((k, test_rows))
            if blocks is not None:
                training, X_test = blocks[k].training, blocks[k].X_test
            else:
                training = training_set_for(
                    _subset(X, train_rows, train_rows, precomputed), y_train,
                    None if sample_weight is None else sample_weight[train_rows],
                    fold_params[k])
                X_test = _subset(X, test_rows, train_rows, precomputed)
            yield FoldTask(training=training, X_test=X_test, params=fold_params[k],
                           by_probability=use_probability,
                           init=None if starts is None else starts[k],
                           keep_model=keep_models)

    results = _parallel.map_tasks(run_fold, tasks(), n_jobs)
    models = [None] * len(folds)
    for (k, test_rows), fold_result in zip(tested, results):
        if keep_models:
            fold_result, models[k] = fold_result
        predictions[test_rows] = fold_result
    return (predictions, models) if keep_models else predictions


def figures(y, predictions, svm_type):
    """svm-train -v's figures: {"mse", "squared_correlation"} for regression,
    {"accuracy"} (a percentage) otherwise; {} without labels. Computed in LIBSVM's order
    of operations (`libsmo._utils.libsvm_figures`), so that the printed digits are its."""
    if svm_type in REGRESSION_TYPES:
        mse, squared_correlation = regression_figures(y, predictions)
        return {"mse": mse, "squared_correlation": squared_correlation}
    if y is None:
        return {}
    # svm-train: 100.0 * total_correct / l
    return {"accuracy": 100.0 * int(np.count_nonzero(predictions == y)) / len(y)}
