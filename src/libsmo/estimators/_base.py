"""What libsmo's five scikit-learn estimators share (see `libsmo.estimators`): their
parameters checked at fit (`libsmo.estimators._params`), their input
(`libsmo.estimators._input`: dense, CSR, or anything a callable kernel reads), gamma
"scale", the `TrainParams` they build for `libsmo.training._fitting.fit`, scikit-learn's fitted
attributes from the LIBSVM-format `Model`, `from_model`, and prediction.

As in scikit-learn, a fit on sparse X keeps `support_vectors_`, `dual_coef_` and the
linear `coef_` sparse (CSR); a callable kernel k(X, Y) is evaluated into Gram matrices
and trained as a precomputed kernel.
"""
import os
import warnings

import numpy as np
import scipy.sparse as sp

from libsmo._utils import validation as v
from libsmo._utils.constraints import check_positive
from libsmo.estimators._input import (
    check_targets,
    effective_sample_weight,
    gram_matrix,
    n_samples,
    validate_features,
)
from libsmo.estimators._params import validate_parameters
from libsmo.estimators._sklearn_compat import (
    BaseEstimator,
    DocumentationLink,
    RegressorMixin,
    as_configured_sparse,
    check_is_fitted,
)
from libsmo.estimators._warm_start import previous_fit, warm_init
from libsmo.exceptions import ConvergenceWarning
from libsmo.io.model_file import load_model, save_model
from libsmo.model._model import Model
from libsmo.training._fitting import fit_training_set, training_set_for
from libsmo.training._formulations import UnscalableNuSolution
from libsmo.training._params import TrainParams

# scikit-learn's refusal of a model with inf or NaN coefficients
NOT_FINITE = ("The dual coefficients or intercepts are not finite. The input data may "
              "contain large values and need to be preprocessed.")

# the estimator of each svm_type, for messages
ESTIMATOR_NAMES = {"c_svc": "SVC", "nu_svc": "NuSVC", "one_class": "OneClassSVM",
                   "epsilon_svr": "SVR", "nu_svr": "NuSVR"}


def dense_layout_as_csr(coef):
    """A 2-D coefficient array as scikit-learn's sparse dual_coef_: CSR storing every
    entry (zeros included), one row per row of coef, with int64 indices (scikit-learn
    builds a csr_array, which keeps them, then makes it a csr_matrix; without support
    vectors, its csr_array([[]]) has int32 ones). A csr_array instead under
    scikit-learn's ``set_config(sparse_interface="sparray")``, as scikit-learn's."""
    rows, cols = coef.shape
    if not cols:
        array = sp.csr_array((rows, 0))
    else:
        array = sp.csr_array((coef.ravel().copy(),
                              np.tile(np.arange(cols, dtype=np.int64), rows),
                              np.arange(0, rows * cols + 1, cols, dtype=np.int64)),
                             shape=(rows, cols))
    return as_configured_sparse(array)


def sparse_linear_weights(dual_coef, n_support, support_vectors):
    """coef_ after a sparse fit, kept sparse: one row per pair of classes (one row for
    two classes and the other svm types), from the fitted dual_coef_ (its sign
    included), n_support_ and support_vectors_ by scikit-learn's own sparse products
    in its order, so that the rows store their columns as scikit-learn's do."""
    if dual_coef.shape[0] == 1:
        return dual_coef @ support_vectors
    locs = np.cumsum(np.hstack([[0], n_support]))
    rows = []
    for a in range(dual_coef.shape[0] + 1):
        for b in range(a + 1, dual_coef.shape[0] + 1):
            # scikit-learn's row index: a row of a csr_matrix, a 1-D row of a csr_array
            alpha_a = dual_coef[b - 1, locs[a]:locs[a + 1]]
            alpha_b = dual_coef[a, locs[b]:locs[b + 1]]
            rows.append(alpha_a @ support_vectors[locs[a]:locs[a + 1], :]
                        + alpha_b @ support_vectors[locs[b]:locs[b + 1], :])
    return sp.vstack(rows).tocsr()


class _BaseSVM(DocumentationLink, BaseEstimator):
    """What the five estimators share: parameters, input, fitting, attributes."""

    _svm_type = None
    _parameter_constraints = {}

    # ---- parameters and input ----------------------------------------------------------

    def _kernel_name(self):
        """The kernel as the model knows it: a callable kernel trains as precomputed."""
        return "precomputed" if callable(self.kernel) else self.kernel

    def _validate_X(self, X, y=None, reset=True):
        """X (and y) as the model reads them: for a callable kernel the Gram matrix
        against the training samples, for "precomputed" the square (fit) or
        n x n_train (predict) matrix, else dense or CSR features."""
        if callable(self.kernel):
            return self._callable_input(X, y, reset)
        if self.kernel == "precomputed" and sp.issparse(X):
            raise TypeError("Sparse precomputed kernels are not supported.")
        X, y = validate_features(self, X, y, reset)
        if reset and self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError("Precomputed matrix must be a square matrix."
                             f" Input is a {X.shape[0]}x{X.shape[1]} matrix.")
        return X, y

    def _callable_input(self, X, y, reset):
        name = type(self).__name__
        if reset:
            n = n_samples(X)
            if y is not None and len(y) != n:
                raise ValueError(f"Found input variables with inconsistent numbers of "
                                 f"samples: [{n}, {len(y)}]")
            self._X_fit = X
            return gram_matrix(self.kernel, X, X, name), y
        return gram_matrix(self.kernel, X, self._X_fit, name), y

    def _resolve_gamma(self, X):
        if self._kernel_name() == "precomputed":
            return 0.0
        if self.gamma == "scale":
            if sp.issparse(X):
                var = X.multiply(X).mean() - X.mean() ** 2
            elif X.dtype == np.uint8:
                var = v.byte_variance(X)
            else:
                var = X.var()
            return 1.0 / (X.shape[1] * var) if var != 0 else 1.0
        if self.gamma == "auto":
            return 1.0 / X.shape[1]
        return float(self.gamma)

    def _train_options(self):
        return dict(kernel=self._kernel_name(), degree=self.degree, coef0=self.coef0,
                    tol=self.tol, cache_size=self.cache_size, shrinking=self.shrinking,
                    max_iter=self.max_iter,     # -1: no limit, as in scikit-learn
                    verbose=bool(self.verbose), n_jobs=self.n_jobs,
                    # the partitioned solver's progress bar (SVC's solver=)
                    progress_bar=bool(self.verbose),
                    # libsmo.dask's estimators fit without _fit_model
                    flavor=getattr(self, "_flavor", "sklearn"))

    # ---- fit -------------------------------------------------------------------------

    def _start_fit(self, X, y):
        """Check the parameters, then X and y; the data as the model trains on it."""
        validate_parameters(self)
        self._sparse = sp.issparse(X) and not callable(self.kernel)
        given_shape = getattr(X, "shape", None)
        X, y = self._validate_X(X, y)
        # a callable kernel's X is what the caller gave (scikit-learn: its shape, or
        # (n_samples,) for a list), not the Gram matrix made of it
        self.shape_fit_ = (X.shape if not callable(self.kernel)
                           else tuple(given_shape) if given_shape is not None
                           else (X.shape[0],))
        return X, y

    def _fit_model(self, X, y, sample_weight, init=None, n_classes=None, order=None,
                   **params):
        """The Model of X, y and the weights, trained with this estimator's parameters
        (and `params`, train's keywords of the subclass); with n_classes, y holds the
        classifiers' encoded labels (`libsmo.training._problem.TrainingSet.n_classes`),
        taken as they are; with order, the rows are trained in that order (a
        permutation, `libsmo.training._fitting.training_set_for`)."""
        self._gamma = self._resolve_gamma(X)
        # scikit-learn's arithmetic where its LIBSVM and 3.37 differ (TrainParams.flavor)
        self._flavor = "sklearn"
        # drawn at every fit, as scikit-learn's fit draws its LIBSVM's seed (numpy's
        # global RandomState moves the same way); the probability folds use it
        folds_source = v.check_sklearn_random_state(getattr(self, "random_state", None))
        if params.get("probability"):
            params["random_state"] = folds_source
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            params = TrainParams.from_kwargs(svm_type=self._svm_type, gamma=self._gamma,
                                             **self._train_options(), **params)
            try:
                # the data were checked at this boundary: the training set is made of
                # them once (`fit` would make it the same way)
                model = fit_training_set(training_set_for(X, y, sample_weight, params,
                                                          n_classes=n_classes,
                                                          order=order),
                                         params, init=init)
            except UnscalableNuSolution as exc:
                # scikit-learn's words for the same model (its LIBSVM divides by r = 0)
                raise ValueError(f"{NOT_FINITE} ({exc})") from None
        self.fit_status_ = int(any(s != "optimal" for s in model.status))
        if any(issubclass(w.category, ConvergenceWarning) for w in caught):
            # one for the fit, however many pairs stopped early, as scikit-learn warns
            warnings.warn(f"Solver terminated early (max_iter={self.max_iter}).  "
                          "Consider pre-processing your data with StandardScaler or "
                          "MinMaxScaler.", ConvergenceWarning, stacklevel=4)
        for w in caught:
            if not issubclass(w.category, ConvergenceWarning):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if not (np.isfinite(model.sv_coef).all() and np.isfinite(model.rho).all()):
            raise ValueError(NOT_FINITE)
        return model

    def __sklearn_is_fitted__(self):
        """Whether a fit (or `from_model`) gave the estimator its model: what
        scikit-learn's check_is_fitted asks, instead of looking through the name of
        every attribute (longer than the rest of a one-row prediction's checks)."""
        return "_model" in self.__dict__

    def _set_fitted(self, model):
        """scikit-learn's attributes from a Model whose `support` (when known) indexes
        the caller's training rows."""
        self._model = model
        if model.support is not None:
            self.support_ = model.support.astype(np.int32)
        if model.support_vectors is None:
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = (as_configured_sparse(model.support_vectors)
                                     if sp.issparse(model.support_vectors)
                                     else model.support_vectors)
        coef = model.sv_coef.copy()
        self.dual_coef_ = dense_layout_as_csr(coef) if self._sparse else coef
        self.intercept_ = -model.rho
        self.probA_ = np.array([]) if model.probA is None else model.probA.copy()
        self.probB_ = np.array([]) if model.probB is None else model.probB.copy()
        if model.n_iter:
            n_iter = np.asarray(model.n_iter, dtype=np.int32)
            self.n_iter_ = n_iter if model.svm_type in ("c_svc", "nu_svc") else int(n_iter[0])
        self._finish_fitted(model)

    # scikit-learn's internal dual coefficients and intercepts (LIBSVM's sign, before
    # the two-class flip of dual_coef_ and intercept_): what prediction uses, so that
    # code which sets them, as scikit-learn's tests do, changes the predictions
    @property
    def _dual_coef_(self):
        return self._model.sv_coef

    @_dual_coef_.setter
    def _dual_coef_(self, value):
        self._replace_model(sv_coef=np.asarray(value, dtype=np.float64))

    @property
    def _intercept_(self):
        return -self._model.rho

    @_intercept_.setter
    def _intercept_(self, value):
        self._replace_model(rho=-np.asarray(value, dtype=np.float64))

    def _replace_model(self, **fields):
        check_is_fitted(self)
        self._model = self._model.replace(**fields)
        # a model read from a file predicted through its LIBSVM-order twin: that twin
        # no longer describes the changed model
        self.__dict__.pop("_libsvm_order_model", None)

    @classmethod
    def from_model(cls, model, n_features=None):
        """Make an estimator that predicts with a trained LIBSVM model, without fitting.

        Parameters
        ----------
        model : Model, str, path-like or binary file object
            A `libsmo.Model`, or a LIBSVM model file (svm-train's, libsvm-official's
            or libsmo's), whose svm_type must be this estimator's (SVC: c_svc, NuSVC:
            nu_svc, SVR: epsilon_svr, NuSVR: nu_svr, OneClassSVM: one_class).
        n_features : int, default=None
            Columns of the data it will predict (``n_features_in_``). A model file
            only knows the largest feature index its support vectors use, which
            LIBSVM's sparse rows allow to be smaller than the data's; give the data's
            width here to predict dense or full-width arrays. For a precomputed
            kernel: the number of training rows, the columns of the kernel matrix.
            None takes the model's own width.

        Returns
        -------
        estimator
            Fitted: kernel, gamma, degree, coef0 (and probability) come from the
            model; C, nu and epsilon keep their defaults, since a model file does not
            record them. Classes are sorted as scikit-learn sorts them (LIBSVM orders
            them by first appearance), with the same predictions as the model.
            ``support_``, ``n_iter_`` and ``class_weight_`` exist only when the model
            knows them (a model file records training indices only for a
            precomputed kernel). ``dual_coef_`` is dense.

        Raises
        ------
        TypeError
            ``model`` is neither a Model nor a file.
        ValueError
            The model is of another svm_type, or n_features is smaller than the
            model's support vectors need.

        See Also
        --------
        libsmo.load_model : Read a model file into a Model.
        to_model : The other way: a fitted estimator's Model.

        Notes
        -----
        Predictions are svm-predict's: the labels of LIBSVM's one-vs-one votes and,
        for a model trained with ``-b 1``, svm-predict's probabilities (two classes
        read from the sigmoid, where a fitted scikit-learn estimator couples them).

        Examples
        --------
        >>> import os
        >>> import tempfile
        >>> import numpy as np
        >>> import libsmo
        >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
        >>> model = libsmo.train(X, np.array([2, 2, 1, 1]), kernel="linear")
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = os.path.join(folder, "line.model")
        ...     libsmo.save_model(model, path)
        ...     clf = libsmo.SVC.from_model(path, n_features=2)
        >>> model.classes, clf.classes_
        (array([2, 1]), array([1., 2.]))
        >>> clf.predict([[0.5, 0.5], [2.5, 2.5]])
        array([2., 1.])
        """
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
        estimator._sparse = False
        estimator.fit_status_ = int(any(s != "optimal" for s in model.status))
        # svm-predict's probabilities for a model of svm-train's (or libsmo's)
        estimator._flavor = "libsvm"
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
        self._check_internal_representation()
        return self._model.decision_function(X)

    def _check_internal_representation(self):
        """scikit-learn's guard against a changed _n_support (CVE-2020-28975): the
        counts must still describe the model's support vectors."""
        if int(np.sum(self._n_support)) != self._model.n_sv:
            raise ValueError(f"The internal representation of {type(self).__name__} was "
                             "altered")

    @property
    def coef_(self):
        """Primal weights w = sum_i dual_coef_i x_i of a linear kernel's model.

        One row per pair of classes (one row for two classes, regression and
        one-class), read-only; a sparse matrix after a fit on sparse X, as in
        scikit-learn. Reading it for another kernel raises AttributeError.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import SVC
        >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
        >>> clf = SVC(kernel="linear").fit(X, [1, 1, 2, 2])
        >>> clf.coef_
        array([[0.5, 0.5]])
        """
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        check_is_fitted(self)
        flip = self._svm_type in ("c_svc", "nu_svc") and len(self.classes_) == 2
        if getattr(self, "_sparse", False):
            # dual_coef_ has scikit-learn's sign already (positive: classes_[1])
            coef = as_configured_sparse(sparse_linear_weights(
                self.dual_coef_, self._n_support, self.support_vectors_))
            coef.data.flags.writeable = False
            return coef
        coef = self._model.linear_weights().copy()
        coef = -coef if flip else coef
        coef.flags.writeable = False
        return coef

    @property
    def n_support_(self):
        """Number of support vectors of each class (one count for regression and one-class).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from libsmo import SVC
        >>> X, y = load_iris(return_X_y=True)
        >>> SVC().fit(X, y).n_support_
        array([ 7, 29, 24], dtype=int32)
        """
        check_is_fitted(self)
        return self._n_support

    def to_model(self):
        """Return the fitted model as a LIBSVM-format `libsmo.Model`.

        Returns
        -------
        Model
            The model this estimator predicts with, its labels those of
            ``classes_`` (a callable kernel's model is a precomputed one).

        See Also
        --------
        save : Write this model as a LIBSVM model file.
        from_model : The other way: an estimator from a Model.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import SVC
        >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
        >>> clf = SVC(kernel="linear").fit(X, ["a", "a", "b", "b"])
        >>> clf.to_model()
        Model(svm_type='c_svc', kernel='linear', classes=['a', 'b'], n_sv=2, n_features=2)
        """
        check_is_fitted(self)
        m = self._model
        classes = self.classes_ if hasattr(self, "classes_") else m.classes
        return m.replace(classes=classes)

    def save(self, path, libsvm_precision=False):
        """Write the fitted model as a LIBSVM model file.

        The file is LIBSVM's: svm-predict, libsvm-official and `libsmo.load_model`
        read it. A callable kernel's model is saved as a precomputed one: predicting
        with the file needs the kernel's values against the training samples.

        Parameters
        ----------
        path : str, path-like or binary file object
            Where to write; a path is written to a temporary file in its folder and
            renamed into place, so that a failure leaves any previous file intact.
        libsvm_precision : bool, default=False
            Write support vector values with ``%.8g`` as svm-train does; False writes
            every number in the shortest text that reads back to the same double.

        Raises
        ------
        ValueError
            The model cannot be written in LIBSVM's format (labels that are not
            integers, NaN or infinite numbers).

        See Also
        --------
        libsmo.save_model : The same for a Model.

        Examples
        --------
        >>> import os
        >>> import tempfile
        >>> import numpy as np
        >>> from libsmo import SVC
        >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
        >>> clf = SVC(kernel="linear").fit(X, [1, 1, 2, 2])
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = os.path.join(folder, "svc.model")
        ...     clf.save(path)
        ...     with open(path) as f:
        ...         print(f.read().splitlines()[:3])
        ['svm_type c_svc', 'kernel_type linear', 'nr_class 2']
        """
        save_model(self.to_model(), path, libsvm_precision=libsvm_precision)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel != "precomputed"
        return tags


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


class _BaseOther(_BaseSVM):
    """Regression and one-class: no classes, one binary problem."""

    def _fit_targets(self, X, y, sample_weight, **params):
        sample_weight = effective_sample_weight(sample_weight, X.shape[0])
        model = self._fit_model(X, y, sample_weight, init=warm_init(
            previous_fit(self), X.shape[0]), **params)
        self._set_fitted(model)
        return self


class _BaseRegressor(RegressorMixin, _BaseOther):

    def fit(self, X, y, sample_weight=None):
        """Fit the regression on samples X and targets y.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples; for kernel='precomputed', the (n_samples, n_samples)
            Gram matrix; for a callable kernel, anything the kernel reads.
        y : array-like of shape (n_samples,)
            Real targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights multiplying C; a sample of weight 0 or less is left
            out.

        Returns
        -------
        self
            The fitted estimator itself.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import SVR
        >>> X = np.arange(10.0).reshape(-1, 1)
        >>> regr = SVR(kernel="linear", C=10.0, epsilon=0.0).fit(X, 2 * X.ravel() + 1)
        >>> regr.coef_.round(2), regr.intercept_.round(2)
        (array([[2.]]), array([1.]))
        """
        y = check_targets(self, y)
        X, y = self._start_fit(X, y)
        return self._fit_targets(X, np.asarray(y, dtype=np.float64), sample_weight,
                                 **self._formulation_params())

    def predict(self, X):
        """Predict the targets of the samples in X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples; for kernel='precomputed', the (n_samples, n_train) kernel values
            against the training samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The regression function ``sum_i dual_coef_i K(x_i, x) + intercept_``.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import SVR
        >>> X = np.arange(10.0).reshape(-1, 1)
        >>> regr = SVR(kernel="linear", C=10.0, epsilon=0.0).fit(X, 2 * X.ravel() + 1)
        >>> regr.predict([[20.0]]).round(1)
        array([41.])
        """
        return self._decision(X)
