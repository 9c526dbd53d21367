"""scikit-learn-compatible estimators: SVC, NuSVC, SVR, NuSVR, OneClassSVM.

They train with `libsmo.train` and keep the LIBSVM-format `Model` (`to_model()`), while
their parameters and fitted attributes follow scikit-learn's `sklearn.svm` classes:
classes sorted, `intercept_ = -rho`, and for two classes the sign flipped so that a
positive decision value means `classes_[1]`; after a sparse fit `support_vectors_`,
`dual_coef_` and the linear `coef_` are CSR; `kernel` may be a callable k(X, Y)
returning the Gram matrix; a sample weight of zero or less leaves its sample out; C may
be inf. Their parameters are declared in `_parameter_constraints` and checked at fit.
With scikit-learn installed they are real scikit-learn estimators (clone, Pipeline,
GridSearchCV, pickle); libsmo itself imports without it. What they share is
`libsmo._estimator_base` and `libsmo._estimator_classifier`.

Two parameters beyond scikit-learn's SVMs: ``warm_start=True`` starts each fit from the
previous fit's solution (same rows; see `libsmo.train`'s ``init``): a fit stopped by
max_iter goes on where it stopped, a fit with a new C starts from the old optimum. And
``n_jobs`` trains a classifier's one-vs-one pairs as joblib tasks (see `libsmo.train`),
the same model for every n_jobs.
"""
import numpy as np

from libsmo import _estimator_params as p
from libsmo._estimator_base import _BaseOther, _BaseRegressor
from libsmo._estimator_classifier import _BaseClassifier, probability_params
from libsmo._sklearn_compat import HAVE_SKLEARN, OutlierMixin  # noqa: F401 (whether
# the estimators are scikit-learn's own subclasses)

__all__ = ["NuSVC", "NuSVR", "OneClassSVM", "SVC", "SVR"]


class SVC(_BaseClassifier):
    """C-support vector classification (LIBSVM's C-SVC), scikit-learn's SVC interface.

    Parameters are scikit-learn's: C (> 0, or inf for a hard margin), kernel (a name
    or a callable k(X, Y) returning the Gram matrix), degree, gamma ("scale", "auto" or
    float), coef0, shrinking, probability, tol, cache_size (MB, or "auto", the
    default: as much as the problem can use within half of the available memory, see
    `libsmo.train`; scikit-learn's default is 200), class_weight (dict or
    "balanced"), verbose, max_iter (-1: LIBSVM's cap), decision_function_shape ("ovr"
    or "ovo"), break_ties, random_state (for the probability folds). One more:
    linear_solver ("auto", "primal" or "kernel", see `libsmo.train`): with
    kernel="linear", "primal" keeps the primal weights instead of kernel rows, the same
    optimum many times faster on large data ("auto" takes it where the kernel cache
    cannot hold Q); "kernel" follows LIBSVM's own path step for step (the same
    dual_coef_ where the optimum's alphas are not unique).
    """

    _svm_type = "c_svc"
    _parameter_constraints = {**p.C, **p.COMMON, **p.CLASSIFIER, **p.LINEAR_SOLVER}

    def __init__(self, *, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, probability=False, tol=1e-3, cache_size="auto",
                 class_weight=None, verbose=False, max_iter=-1,
                 decision_function_shape="ovr", break_ties=False, random_state=None,
                 linear_solver="auto", warm_start=False, n_jobs=None):
        self.linear_solver = linear_solver
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state

    def _formulation_params(self):
        params = dict(C=self.C, linear_solver=self.linear_solver)
        params.update(probability_params(self))
        return params


class NuSVC(_BaseClassifier):
    """nu-support vector classification (LIBSVM's nu-SVC), scikit-learn's NuSVC
    interface; nu in (0, 1] bounds the fraction of margin errors and support vectors."""

    _svm_type = "nu_svc"
    _parameter_constraints = {**p.NU, **p.COMMON, **p.CLASSIFIER}

    def __init__(self, *, nu=0.5, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, probability=False, tol=1e-3, cache_size="auto",
                 class_weight=None, verbose=False, max_iter=-1,
                 decision_function_shape="ovr", break_ties=False, random_state=None,
                 warm_start=False, n_jobs=None):
        self.nu = nu
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state

    def _formulation_params(self):
        params = dict(nu=self.nu)
        params.update(probability_params(self))
        return params


class SVR(_BaseRegressor):
    """epsilon-support vector regression (LIBSVM's epsilon-SVR), scikit-learn's SVR
    interface: kernel, degree, gamma, coef0, tol, C, epsilon, shrinking, cache_size,
    verbose, max_iter."""

    _svm_type = "epsilon_svr"
    _parameter_constraints = {**p.COMMON, **p.C, **p.EPSILON}

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3,
                 C=1.0, epsilon=0.1, shrinking=True, cache_size="auto", verbose=False,
                 max_iter=-1, warm_start=False, n_jobs=None):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def _formulation_params(self):
        return dict(C=self.C, epsilon=self.epsilon)


class NuSVR(_BaseRegressor):
    """nu-support vector regression (LIBSVM's nu-SVR), scikit-learn's NuSVR interface."""

    _svm_type = "nu_svr"
    _parameter_constraints = {**p.NU, **p.C, **p.COMMON}

    def __init__(self, *, nu=0.5, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, tol=1e-3, cache_size="auto", verbose=False, max_iter=-1,
                 warm_start=False, n_jobs=None):
        self.nu = nu
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def _formulation_params(self):
        return dict(C=self.C, nu=self.nu)


class OneClassSVM(OutlierMixin, _BaseOther):
    """One-class SVM for novelty detection (LIBSVM's one-class), scikit-learn's
    OneClassSVM interface: predict gives +1 (inlier) or -1 (outlier); linear_solver
    as for `SVC`."""

    _svm_type = "one_class"
    _parameter_constraints = {**p.COMMON, **p.NU, **p.LINEAR_SOLVER}

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3,
                 nu=0.5, shrinking=True, cache_size="auto", verbose=False, max_iter=-1,
                 linear_solver="auto", warm_start=False, n_jobs=None):
        self.linear_solver = linear_solver
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.nu = nu
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def _formulation_params(self):
        return dict(nu=self.nu, linear_solver=self.linear_solver)

    def fit(self, X, y=None, sample_weight=None):
        """Fit the support of the distribution of X (y is ignored).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        X, _ = self._start_fit(X, None)
        return self._fit_targets(X, None, sample_weight, **self._formulation_params())

    def _finish_fitted(self, model):
        super()._finish_fitted(model)
        self.offset_ = -self.intercept_

    def decision_function(self, X):
        """Signed distance to the separating surface: positive for inliers."""
        return self._decision(X)

    def score_samples(self, X):
        """Unshifted scores: decision_function(X) + offset_."""
        return self.decision_function(X) + self.offset_

    def predict(self, X):
        """+1 for inliers, -1 for outliers."""
        return np.where(self.decision_function(X) > 0, 1, -1)
