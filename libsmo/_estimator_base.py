"""What libsmo's five scikit-learn estimators share (see `libsmo.estimators`): input
validation through scikit-learn's `validate_data` when it is installed, gamma='scale',
the `TrainParams` they build for `libsmo.train.fit`, scikit-learn's fitted attributes
from the LIBSVM-format `Model`, `from_model`, and prediction.

Classifiers keep scikit-learn's sorted `classes_` while training each one-vs-one
problem exactly as scikit-learn's bundled LIBSVM does (see `_BaseClassifier.fit`).
"""
import numbers
import os
import warnings

import numpy as np
import scipy.sparse as sp

from libsmo import _one_vs_one as ovo
from libsmo import _validation as v
from libsmo._estimator_warm_start import previous_fit, warm_init
from libsmo._param_validation import check_positive
from libsmo._sklearn_compat import (HAVE_SKLEARN, BaseEstimator, ClassifierMixin,
                                    RegressorMixin, check_is_fitted, validate_data)
from libsmo.exceptions import ConvergenceWarning
from libsmo.model import Model
from libsmo.params import TrainParams
from libsmo.train import fit

# the estimator of each svm_type, for messages
ESTIMATOR_NAMES = {"c_svc": "SVC", "nu_svc": "NuSVC", "one_class": "OneClassSVM",
                   "epsilon_svr": "SVR", "nu_svr": "NuSVR"}


def _probability_params(estimator):
    """train's probability keywords of a classifier: with probability=True, the folds'
    Generator from scikit-learn's random_state forms (None, int, RandomState)."""
    if not estimator.probability:
        return {}
    return dict(probability=True,
                random_state=v.check_random_state(estimator.random_state, legacy=True))


class _BaseSVM(BaseEstimator):
    """What the five estimators share: validation, gamma, fitting, attributes."""

    _svm_type = None

    # ---- input -----------------------------------------------------------------------

    def _validate_X(self, X, y=None, reset=True):
        if self.kernel == "precomputed" and sp.issparse(X):
            raise TypeError("Sparse precomputed kernels are not supported.")
        X, y = self._validate_arrays(X, y, reset)
        if reset and self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError("Precomputed matrix must be a square matrix."
                             f" Input is a {X.shape[0]}x{X.shape[1]} matrix.")
        return X, y

    def _validate_arrays(self, X, y, reset):
        if HAVE_SKLEARN:
            if y is None:
                return validate_data(self, X, accept_sparse="csr", dtype=np.float64,
                                     order="C", accept_large_sparse=False, reset=reset), None
            return validate_data(self, X, y, accept_sparse="csr", dtype=np.float64,
                                 order="C", accept_large_sparse=False, reset=reset)
        X = v.check_data(X, "X", allow_empty=not reset)
        if reset:
            self.n_features_in_ = X.shape[1]
        elif X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input.")
        if y is not None:
            y = v.check_labels(y, X.shape[0])
        return X, y

    def _resolve_gamma(self, X):
        if self.kernel == "precomputed":
            return 0.0
        if isinstance(self.gamma, str):
            if self.gamma == "scale":
                if sp.issparse(X):
                    var = X.multiply(X).mean() - X.mean() ** 2
                else:
                    var = X.var()
                return 1.0 / (X.shape[1] * var) if var != 0 else 1.0
            if self.gamma == "auto":
                return 1.0 / X.shape[1]
            raise ValueError(f"gamma must be 'scale', 'auto' or a float >= 0; got {self.gamma!r}")
        return check_positive(self.gamma, "gamma", allow_zero=True)

    def _train_options(self):
        if self.max_iter is None or (isinstance(self.max_iter, numbers.Integral)
                                     and not isinstance(self.max_iter, bool)
                                     and self.max_iter == -1):
            max_iter = None
        else:
            max_iter = check_positive(self.max_iter, "max_iter", integer=True)
        return dict(kernel=self.kernel, degree=self.degree, coef0=self.coef0, tol=self.tol,
                    cache_size=self.cache_size, shrinking=self.shrinking,
                    max_iter=max_iter, verbose=bool(self.verbose),
                    n_jobs=getattr(self, "n_jobs", None))

    # ---- fit -------------------------------------------------------------------------

    def _fit_model(self, X, y, sample_weight, init=None, **params):
        self._gamma = self._resolve_gamma(X)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            params = TrainParams.from_kwargs(svm_type=self._svm_type, gamma=self._gamma,
                                             **self._train_options(), **params)
            model = fit(X, y, params, sample_weight=sample_weight, init=init)
        self.fit_status_ = int(any(s != "optimal" for s in model.status))
        for w in caught:
            if issubclass(w.category, ConvergenceWarning):
                warnings.warn(f"Solver terminated early (max_iter={self.max_iter}). "
                              "Consider pre-processing your data with StandardScaler or "
                              "MinMaxScaler.", ConvergenceWarning, stacklevel=3)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if not (np.isfinite(model.sv_coef).all() and np.isfinite(model.rho).all()):
            raise ValueError("The dual coefficients or intercepts are not finite. The input "
                             "data may contain large values and need to be preprocessed.")
        self.shape_fit_ = X.shape
        return model

    def _set_fitted(self, model):
        """scikit-learn's attributes from a Model whose `support` (when known) indexes
        the caller's training rows."""
        self._model = model
        if model.support is not None:
            self.support_ = model.support.astype(np.int32)
        if model.support_vectors is None:
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = model.support_vectors
        self._dual_coef_ = model.sv_coef.copy()
        self._intercept_ = -model.rho.copy()
        self.dual_coef_ = self._dual_coef_
        self.intercept_ = self._intercept_
        self.probA_ = np.array([]) if model.probA is None else model.probA.copy()
        self.probB_ = np.array([]) if model.probB is None else model.probB.copy()
        if model.n_iter:
            n_iter = np.asarray(model.n_iter, dtype=np.int32)
            self.n_iter_ = n_iter if model.svm_type in ("c_svc", "nu_svc") else int(n_iter[0])
        self._finish_fitted(model)

    @classmethod
    def from_model(cls, model, n_features=None):
        """An estimator that predicts with a trained LIBSVM model, without fitting.

        Parameters
        ----------
        model : Model, str, path-like or binary file object
            A `Model`, or a LIBSVM model file (svm-train's, libsvm-official's or
            libsmo's), whose svm_type must be this estimator's (SVC: c_svc, NuSVC:
            nu_svc, SVR: epsilon_svr, NuSVR: nu_svr, OneClassSVM: one_class).
        n_features : int, optional
            Columns of the data it will predict (``n_features_in_``). A model file
            only knows the largest feature index its support vectors use, which
            LIBSVM's sparse rows allow to be smaller than the data's; give the data's
            width here to predict dense or full-width arrays. For a precomputed
            kernel: the number of training rows, the columns of the kernel matrix.

        Returns
        -------
        estimator
            Fitted: kernel, gamma, degree, coef0 (and probability) come from the
            model; C, nu and epsilon keep their defaults, since a model file does not
            record them. Classes are sorted as scikit-learn sorts them (LIBSVM orders
            them by first appearance), with the same predictions as the model.
            ``support_``, ``n_iter_`` and ``class_weight_`` exist only when the model
            knows them (a model file records training indices only for a
            precomputed kernel).

        Raises
        ------
        ValueError
            The model is of another svm_type, or n_features is smaller than the
            model's support vectors need.
        """
        from libsmo.io import load_model   # io sits above the model layer
        if not isinstance(model, Model):
            if not isinstance(model, (str, bytes, os.PathLike)) and not hasattr(model, "read"):
                raise TypeError("model must be a libsmo Model or a LIBSVM model file; got "
                                f"{type(model).__name__}")
            model = load_model(model)
        if model.svm_type != cls._svm_type:
            owner = ESTIMATOR_NAMES[model.svm_type]
            raise ValueError(f"this is a {model.svm_type} model: load it with "
                             f"libsmo.{owner}.from_model, not {cls.__name__}.from_model")
        model = _widen(model, n_features)
        estimator = cls(kernel=model.kernel, degree=model.degree, gamma=model.gamma,
                        coef0=model.coef0)
        if model.kernel == "precomputed":
            estimator.shape_fit_ = (model.n_features, model.n_features)
        estimator.n_features_in_ = model.n_features
        estimator._gamma = model.gamma
        estimator.fit_status_ = int(any(s != "optimal" for s in model.status))
        estimator._set_model(model)
        return estimator

    def _set_model(self, model):
        self._set_fitted(model)

    def _finish_fitted(self, model):
        self._n_support = np.array([model.n_sv], dtype=np.int32)

    # ---- prediction ------------------------------------------------------------------

    def _decision(self, X):
        check_is_fitted(self)
        X, _ = self._validate_X(X, reset=False)
        if self.kernel == "precomputed" and X.shape[1] != self.shape_fit_[0]:
            raise ValueError(f"X.shape[1] = {X.shape[1]} should be equal to "
                             f"{self.shape_fit_[0]}, the number of samples at training time")
        return self._model.decision_function(X)

    @property
    def coef_(self):
        """Primal weights w = sum_i dual_coef_i x_i; only for kernel="linear"."""
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        check_is_fitted(self)
        coef = self._model.linear_weights().copy()
        if self._svm_type in ("c_svc", "nu_svc") and len(self.classes_) == 2:
            coef = -coef   # scikit-learn's sign: positive means classes_[1]
        coef.flags.writeable = False
        return coef

    @property
    def n_support_(self):
        """Support vectors per class (one count for regression and one-class)."""
        check_is_fitted(self)
        return self._n_support

    def to_model(self):
        """The fitted model as a LIBSVM-format `Model` (labels as in `classes_`).

        Returns
        -------
        Model
        """
        check_is_fitted(self)
        m = self._model
        classes = self.classes_ if hasattr(self, "classes_") else m.classes
        return m.replace(classes=classes)

    def save(self, path, libsvm_precision=False):
        """Write the fitted model as a LIBSVM model file (see `Model.save`)."""
        self.to_model().save(path, libsvm_precision=libsvm_precision)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel != "precomputed"
        return tags


class _BaseClassifier(ClassifierMixin, _BaseSVM):
    """C-SVC and nu-SVC with scikit-learn's class layout."""

    def fit(self, X, y, sample_weight=None):
        """Fit the classifier.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            For kernel="precomputed", the (n_samples, n_samples) Gram matrix.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Per-sample weights multiplying C (0 leaves a sample out).

        Returns
        -------
        self
        """
        previous = previous_fit(self)
        y = _check_targets(self, y)
        X, y = self._validate_X(X, y)
        if HAVE_SKLEARN:
            from sklearn.utils.multiclass import check_classification_targets
            check_classification_targets(y)
        self.classes_, encoded = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError("The number of classes has to be greater than one; got "
                             f"{len(self.classes_)} class")
        self.class_weight_ = self._class_weights(encoded)
        # LIBSVM orders classes by first appearance; scikit-learn sorts them. Moving the
        # first example of each class, in sorted order, to the front gives the sorted
        # order and keeps every class's examples in their original order, so each
        # one-vs-one problem is exactly the one scikit-learn's libsvm solves.
        first = np.unique(encoded, return_index=True)[1]
        rest = np.setdiff1d(np.arange(len(encoded)), first, assume_unique=True)
        rows = np.concatenate([first, rest])
        sample_weight = v.check_sample_weight(sample_weight, len(encoded))
        weights = None if sample_weight is None else sample_weight[rows]
        if self.kernel == "precomputed":
            Xr = X[np.ix_(rows, rows)]
        else:
            Xr = X[rows]
        # LIBSVM and scikit-learn apply class weights to C, which nu-SVC does not have
        class_weight = (None if self._svm_type == "nu_svc"
                        else dict(enumerate(self.class_weight_)))
        model = self._fit_model(Xr, encoded[rows], weights, class_weight=class_weight,
                                init=warm_init(previous, len(rows), rows, self.classes_),
                                **self._formulation_params())
        # the model speaks of the caller's rows (a precomputed kernel's columns at
        # prediction time are the caller's training rows)
        model.support = rows[model.support]
        self._set_fitted(model)
        return self

    def _set_model(self, model):
        # scikit-learn's sorted classes; the internal model labels them 0..k-1 so that
        # its predictions index classes_
        if len(np.unique(model.classes)) != len(model.classes):
            raise ValueError(f"the model's class labels repeat: {model.classes.tolist()}")
        order = np.argsort(model.classes, kind="stable")
        self.probability = model.probA is not None
        # LIBSVM breaks ties between votes, and pairwise coupling stops at a tolerance,
        # in its own class order: predictions and probabilities come from the model as
        # svm-predict sees it (labels 0..k-1 in sorted order), so they are LIBSVM's
        self._libsvm_order_model = model.replace(classes=np.argsort(order))
        self._libsvm_order = order
        model = model.with_class_order(order)
        self.classes_ = model.classes
        model = model.replace(classes=np.arange(len(self.classes_)))
        self._set_fitted(model)

    def _finish_fitted(self, model):
        self._n_support = np.asarray(model.n_support, dtype=np.int32)
        if len(self.classes_) == 2:
            self.intercept_ = -self._intercept_
            self.dual_coef_ = -self._dual_coef_

    def _class_weights(self, encoded):
        k = len(self.classes_)
        if self.class_weight is None:
            return np.ones(k)
        if isinstance(self.class_weight, str):
            if self.class_weight != "balanced":
                raise ValueError("class_weight must be a dict, 'balanced' or None; got "
                                 f"{self.class_weight!r}")
            return len(encoded) / (k * np.bincount(encoded, minlength=k))
        weights = np.ones(k)
        for label, w in dict(self.class_weight).items():
            where = np.flatnonzero(self.classes_ == label)
            if len(where) == 0:
                raise ValueError(f"class_weight label {label!r} is not a class of y "
                                 f"(classes: {self.classes_.tolist()})")
            weights[where[0]] = check_positive(w, f"class_weight[{label!r}]")
        return weights

    def decision_function(self, X):
        """Decision values: (n,) for two classes (positive means classes_[1]); else
        (n, n_classes) one-vs-rest scores, or (n, n_pairs) for
        decision_function_shape="ovo".

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray
        """
        dec = self._decision(X)
        if len(self.classes_) == 2:
            return -dec
        if self.decision_function_shape == "ovr":
            return ovo.ovr_scores(dec, len(self.classes_))
        return dec

    def predict(self, X):
        """Class labels of the rows of X (one-vs-one votes, as LIBSVM).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        if self.break_ties and len(self.classes_) > 2:
            index = np.argmax(self.decision_function(X), axis=1)
        else:
            X, _ = self._validate_X(X, reset=False)
            model = getattr(self, "_libsvm_order_model", self._model)
            index = model.predict(X).astype(np.intp)
        return self.classes_.take(index)

    def _check_proba(self):
        if not self.probability:
            raise AttributeError("predict_proba is not available when probability=False")

    @property
    def predict_proba(self):
        """Class probabilities (Platt scaling and pairwise coupling, as LIBSVM's -b 1),
        columns in classes_ order; needs probability=True."""
        self._check_proba()
        return self._predict_proba

    def _predict_proba(self, X):
        check_is_fitted(self)
        X, _ = self._validate_X(X, reset=False)
        if hasattr(self, "_libsvm_order_model"):
            return self._libsvm_order_model.predict_proba(X)[:, self._libsvm_order]
        return self._model.predict_proba(X)

    @property
    def predict_log_proba(self):
        """log of predict_proba; needs probability=True."""
        self._check_proba()
        return lambda X: np.log(self._predict_proba(X))


def _widen(model, n_features):
    """The model predicting data of n_features columns (its own width by default)."""
    if n_features is None:
        return model
    n_features = check_positive(n_features, "n_features", integer=True)
    if n_features < model.n_features:
        raise ValueError(f"n_features={n_features} is smaller than the model needs: its "
                         f"support vectors use {model.n_features} "
                         + ("training rows" if model.kernel == "precomputed" else "features"))
    SV = model.support_vectors
    if SV is not None and n_features > SV.shape[1]:
        if sp.issparse(SV):
            SV = sp.csr_matrix((SV.data, SV.indices, SV.indptr), shape=(SV.shape[0], n_features))
        else:
            SV = np.hstack([SV, np.zeros((SV.shape[0], n_features - SV.shape[1]))])
    return model.replace(support_vectors=SV, n_features=n_features)


def _check_targets(estimator, y):
    """y as a 1-D array; a column vector is accepted with scikit-learn's warning."""
    if y is None:
        raise ValueError(f"{type(estimator).__name__} requires y to be passed, but the "
                         "target y is None")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        if HAVE_SKLEARN:
            from sklearn.exceptions import DataConversionWarning as category
        else:
            category = UserWarning
        warnings.warn("A column-vector y was passed when a 1d array was expected. Please "
                      "change the shape of y to (n_samples, ), for example using ravel().",
                      category, stacklevel=3)
        y = y.ravel()
    return y


class _BaseOther(_BaseSVM):
    """Regression and one-class: no classes, one binary problem."""

    def _fit_targets(self, X, y, sample_weight, **params):
        sample_weight = v.check_sample_weight(sample_weight, X.shape[0])
        model = self._fit_model(X, y, sample_weight, init=warm_init(
            previous_fit(self), X.shape[0]), **params)
        self._set_fitted(model)
        return self


class _BaseRegressor(RegressorMixin, _BaseOther):

    def fit(self, X, y, sample_weight=None):
        """Fit the regression.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        y = _check_targets(self, y)
        X, y = self._validate_X(X, y)
        return self._fit_targets(X, y.astype(np.float64), sample_weight,
                                 **self._formulation_params())

    def predict(self, X):
        """Predicted targets.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self._decision(X)


