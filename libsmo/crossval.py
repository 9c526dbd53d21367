"""n-fold cross-validation as LIBSVM's svm_cross_validation (svm-train -v n).

Classification folds are stratified as LIBSVM's: each class's examples are shuffled and
spread over the folds in near-equal runs, so that every fold keeps the class proportions
to within one example per class. Regression and one-class folds are a shuffled
permutation cut into near-equal runs. Each fold trains `libsmo.train` on the other folds
and predicts its own rows. The folds come from numpy's default_rng(random_state), not
C's rand(), so they are not LIBSVM's folds: the figures agree with LIBSVM's in
distribution, not digit for digit.

Each fold is a `FoldTask` run by `run_fold`; with n_jobs > 1 the folds are joblib tasks
(`libsmo._parallel`), each fit with one thread and a share of the cache, and the
predictions are the same, bit for bit, as one fold after another.
"""
import dataclasses
import numbers
import warnings
from dataclasses import dataclass
from typing import Optional

import numpy as np

from libsmo import _parallel
from libsmo import _validation as v
from libsmo import probability as prob
from libsmo._one_vs_one import group_classes
from libsmo.names import CLASSIFICATION_TYPES, REGRESSION_TYPES
from libsmo.params import TrainParams
from libsmo.train import fit


def _subset(X, rows, columns, precomputed):
    """Rows of X; for a precomputed kernel, also only the training columns."""
    if precomputed:
        return X[np.ix_(rows, columns)]
    return X[rows]


@dataclass(frozen=True)
class FoldTask:
    """One fold: train on some rows, predict the others.

    Attributes
    ----------
    X_train, y_train : training rows and labels (y None for unlabelled one-class)
    weights : ndarray or None
        The training rows' sample weights.
    X_test : rows to predict (for a precomputed kernel, their kernel against the
        training rows)
    params : TrainParams
    by_probability : bool
        Predict the class of highest probability (LIBSVM's -b 1 cross-validation).
    """
    X_train: object
    y_train: Optional[np.ndarray]
    weights: Optional[np.ndarray]
    X_test: object
    params: TrainParams
    by_probability: bool


def run_fold(task):
    """The predictions of one `FoldTask`'s test rows.

    Returns
    -------
    ndarray
    """
    model = fit(task.X_train, task.y_train, task.params, sample_weight=task.weights)
    if task.by_probability:
        return model.classes[np.argmax(model.predict_proba(task.X_test), axis=1)]
    return model.predict(task.X_test)


def cross_validation(X, y, n_folds, random_state=None, n_jobs=None, **params):
    """Cross-validate `libsmo.train` with LIBSVM's folds and figures (svm-train -v).

    Parameters
    ----------
    X : array-like of shape (n, d) or scipy sparse matrix
        As for `train`; for kernel="precomputed", the n x n Gram matrix (each fold
        trains on its block and predicts from the training columns).
    y : array-like of shape (n,) or None
        Labels or targets; for svm_type="one_class" it may be None (then no accuracy
        is given: the predictions are +1 / -1).
    n_folds : int >= 2
        More folds than examples means leave-one-out (with a warning, as LIBSVM).
    random_state : None, int >= 0 or numpy Generator
        Seed of the folds (and of the probability folds inside each training when
        probability=True: each fold draws its own generator from it). An int gives
        the same result every run.
    n_jobs : int or None
        Folds trained at once as joblib tasks (see `libsmo.train`): local threads by
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
    """
    sample_weight = params.pop("sample_weight", None)
    train_params = TrainParams.from_kwargs(**params)
    svm_type = train_params.svm_type
    precomputed = train_params.kernel.kernel == "precomputed"
    X = v.check_precomputed(X, "X") if precomputed else v.check_data(X, "X")
    n = X.shape[0]
    if y is None:
        if svm_type != "one_class":
            raise ValueError(f"y is required for svm_type={svm_type!r}")
    else:
        y = v.check_labels(y, n)
        if svm_type in REGRESSION_TYPES:
            if y.dtype.kind not in "biuf":
                raise TypeError(f"y must hold real targets for {svm_type}, got dtype "
                                f"{y.dtype}")
            y = y.astype(np.float64)
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
    sample_weight = v.check_sample_weight(sample_weight, n)

    if svm_type in CLASSIFICATION_TYPES and n_folds < n:
        # stratified folds, as LIBSVM's (which never stratifies leave-one-out)
        folds = prob.stratified_folds(group_classes(y)[1], n_folds, rng)
    else:
        folds = prob.random_folds(n, n_folds, rng)

    if svm_type in CLASSIFICATION_TYPES:
        predictions = np.empty(n, dtype=y.dtype)
    else:
        predictions = np.empty(n)
    use_probability = train_params.probability
    # each fold's own generator for the probability folds inside its training, drawn
    # before any fold runs: the same whichever order the folds run in
    fold_rngs = ([np.random.default_rng(s) for s in rng.integers(2**63, size=n_folds)]
                 if use_probability else [None] * n_folds)
    jobs = _parallel.effective_n_jobs(n_jobs)
    if jobs > 1:
        train_params = train_params.replace(
            n_threads=1, n_jobs=1, cache_size=train_params.solver.cache_size / jobs)
    tested = []

    def tasks():
        for k, (train_rows, test_rows) in enumerate(prob.out_of_fold(folds, n)):
            if len(test_rows) == 0:
                continue
            y_train = None if y is None else y[train_rows]
            if svm_type in CLASSIFICATION_TYPES and len(np.unique(y_train)) == 1:
                # LIBSVM's one-class-of-data model predicts that class everywhere
                predictions[test_rows] = y_train[0]
                continue
            tested.append(test_rows)
            yield FoldTask(
                X_train=_subset(X, train_rows, train_rows, precomputed), y_train=y_train,
                weights=None if sample_weight is None else sample_weight[train_rows],
                X_test=_subset(X, test_rows, train_rows, precomputed),
                params=(train_params if fold_rngs[k] is None else
                        dataclasses.replace(train_params, random_state=fold_rngs[k])),
                by_probability=use_probability and svm_type in CLASSIFICATION_TYPES)

    results = _parallel.map_tasks(run_fold, tasks(), n_jobs)
    for test_rows, fold_predictions in zip(tested, results):
        predictions[test_rows] = fold_predictions

    result = {"predictions": predictions, "folds": folds}
    if svm_type in REGRESSION_TYPES:
        result["mse"] = float(np.mean((predictions - y) ** 2))
        result["squared_correlation"] = squared_correlation(y, predictions)
    elif y is not None:
        result["accuracy"] = float(100.0 * np.mean(predictions == y))
    return result


def squared_correlation(y, predictions):
    """LIBSVM's squared correlation coefficient
    (n sum vy - sum v sum y)^2 / ((n sum vv - (sum v)^2) (n sum yy - (sum y)^2));
    NaN when the denominator is zero."""
    y = np.asarray(y, dtype=np.float64)
    v_ = np.asarray(predictions, dtype=np.float64)
    n = len(y)
    sv, sy = v_.sum(), y.sum()
    num = (n * np.dot(v_, y) - sv * sy) ** 2
    den = (n * np.dot(v_, v_) - sv * sv) * (n * np.dot(y, y) - sy * sy)
    return float(num / den) if den != 0 else float("nan")
