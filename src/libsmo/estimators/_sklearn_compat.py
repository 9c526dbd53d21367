"""scikit-learn's base classes when it is installed, small stand-ins when it is not, so
that libsmo's estimators and transformers import without it."""
import inspect

import numpy as np

from libsmo.exceptions import sklearn_compatible_warning

# scikit-learn's HTML repr links an estimator to this page of libsmo's API reference
DOC_LINK_TEMPLATE = ("https://libsmo.readthedocs.io/en/latest/api/generated/"
                     "{public_name}.html")


class DocumentationLink:
    """The link of scikit-learn's HTML repr (its `_HTMLDocumentationLinkMixin`) to the
    estimator's page of libsmo's API documentation: DOC_LINK_TEMPLATE with the name the
    estimator is public under (`_public_module`, then the class's name). Listed before
    BaseEstimator, so that these attributes are the ones scikit-learn reads."""

    _doc_link_module = "libsmo"
    _doc_link_template = DOC_LINK_TEMPLATE
    _public_module = "libsmo"

    def _doc_link_url_param_generator(self):
        return {"public_name": f"{self._public_module}.{type(self).__name__}"}


try:
    from sklearn.base import (
        BaseEstimator,
        ClassifierMixin,
        OutlierMixin,
        RegressorMixin,
        TransformerMixin,
    )
    from sklearn.exceptions import NotFittedError
    from sklearn.utils._param_validation import InvalidParameterError
    from sklearn.utils.validation import check_is_fitted, validate_data
    HAVE_SKLEARN = True
    sklearn_compatible_warning()   # libsmo's ConvergenceWarning under scikit-learn's
except ImportError:  # pragma: no cover - exercised in a subprocess test
    HAVE_SKLEARN = False
    validate_data = None  # callers validate with libsmo._utils.validation instead

    class NotFittedError(ValueError, AttributeError):
        """The estimator is used before fit."""

    class InvalidParameterError(ValueError, TypeError):
        """A constructor parameter of the wrong type or value (found at fit)."""

    class BaseEstimator:
        """get_params / set_params / repr as scikit-learn's, for use without it."""

        @classmethod
        def _get_param_names(cls):
            sig = inspect.signature(cls.__init__)
            return sorted(p for p in sig.parameters if p != "self")

        def get_params(self, deep=True):
            """Parameters of this estimator (scikit-learn's convention)."""
            return {name: getattr(self, name) for name in self._get_param_names()}

        def set_params(self, **params):
            """Set parameters (scikit-learn's convention); returns self."""
            valid = self._get_param_names()
            for name, value in params.items():
                if name not in valid:
                    raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}")
                setattr(self, name, value)
            return self

        def __repr__(self):
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
            return f"{type(self).__name__}({args})"

    class ClassifierMixin:
        """score = mean accuracy."""

        def score(self, X, y, sample_weight=None):
            """Mean accuracy of predict(X) against y."""
            return float(np.average(self.predict(X) == np.asarray(y), weights=sample_weight))

    class RegressorMixin:
        """score = coefficient of determination R^2."""

        def score(self, X, y, sample_weight=None):
            """R^2 of predict(X) against y."""
            y = np.asarray(y, dtype=float)
            residual = np.average((y - self.predict(X)) ** 2, weights=sample_weight)
            spread = np.average((y - np.average(y, weights=sample_weight)) ** 2,
                                weights=sample_weight)
            return float(1 - residual / spread) if spread > 0 else 0.0

    class OutlierMixin:
        """fit_predict for outlier detectors."""

        def fit_predict(self, X, y=None, **kwargs):
            """fit(X) then predict(X)."""
            return self.fit(X, **kwargs).predict(X)

    class TransformerMixin:
        """fit_transform for transformers."""

        def fit_transform(self, X, y=None, **kwargs):
            """fit(X) then transform(X)."""
            return self.fit(X, y, **kwargs).transform(X)

    def check_is_fitted(estimator, attributes=None):
        """NotFittedError unless fit has set its attributes (names ending in '_')."""
        fitted = [k for k in vars(estimator) if k.endswith("_") and not k.startswith("__")]
        if not fitted:
            raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted "
                                 "yet. Call 'fit' with appropriate arguments first.")


def sklearn_refusal(estimator_name, param, value):
    """scikit-learn's InvalidParameterError, in its words, when scikit-learn's estimator
    of that name (sklearn.svm) refuses `value` for `param` too; else None (also
    without scikit-learn, or for a parameter it does not have). Imports sklearn.svm, so
    only called once libsmo has refused the value.

    Returns
    -------
    InvalidParameterError or None
    """
    if not HAVE_SKLEARN:
        return None
    import sklearn.svm
    from sklearn.utils._param_validation import validate_parameter_constraints
    constraints = getattr(getattr(sklearn.svm, estimator_name, None),
                          "_parameter_constraints", {})
    if param not in constraints:
        return None
    try:
        validate_parameter_constraints({param: constraints[param]}, {param: value},
                                       caller_name=estimator_name)
    except InvalidParameterError as exc:
        return exc
    return None


def as_configured_sparse(X):
    """A sparse fitted attribute in scikit-learn's configured container: a csr_matrix
    (its default, and without scikit-learn), or a csr_array under
    ``sklearn.set_config(sparse_interface="sparray")``. The arrays are shared."""
    import scipy.sparse as sp
    interface = "spmatrix"
    if HAVE_SKLEARN:
        from sklearn import get_config
        interface = get_config().get("sparse_interface", "spmatrix")
    if interface == "sparray":
        return X if isinstance(X, sp.csr_array) else sp.csr_array(X)
    return X if isinstance(X, sp.csr_matrix) else sp.csr_matrix(X)
