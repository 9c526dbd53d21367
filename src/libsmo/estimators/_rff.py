"""Random Fourier features (Rahimi and Recht 2007): an explicit map z(x) whose inner
products approximate a shift-invariant kernel, z(x)'z(y) ~ k(x - y), so that a linear
SVM on z(X) stands in for a kernel SVM on X at a fraction of the cost.

For k(x, y) = exp(-gamma |x - y|^2) the frequencies are drawn from N(0, 2 gamma I); for
the Laplacian kernel exp(-gamma |x - y|_1) from a Cauchy distribution of scale gamma in
each coordinate (the kernels' Fourier transforms). z(x) = sqrt(2/D) cos(W'x + b), b
uniform on [0, 2 pi). The error of each kernel value falls like 1/sqrt(D).
"""
import numpy as np

from libsmo._utils import validation as v
from libsmo._utils.constraints import check_choice, check_positive
from libsmo.estimators._sklearn_compat import (
    HAVE_SKLEARN,
    BaseEstimator,
    DocumentationLink,
    TransformerMixin,
    check_is_fitted,
    validate_data,
)

RFF_KERNELS = ("rbf", "laplacian")


class RandomFourierFeatures(TransformerMixin, DocumentationLink, BaseEstimator):
    """Random Fourier features approximating the RBF or Laplacian kernel.

    Parameters
    ----------
    n_components : int > 0
        Number of features D of the map.
    gamma : float > 0
        The kernel's parameter: exp(-gamma |x-y|^2) (rbf) or exp(-gamma |x-y|_1)
        (laplacian).
    kernel : {"rbf", "laplacian"}
    dtype : {numpy.float64, numpy.float32}
        dtype of the features returned by transform.
    random_state : None, int, numpy Generator or RandomState
        Seeds the frequencies: the same seed gives the same map.

    Attributes
    ----------
    weights_ : ndarray of shape (n_features_in_, n_components)
        The frequencies W.
    offsets_ : ndarray of shape (n_components,)
        The phases b.
    n_features_in_ : int
    """

    def __init__(self, n_components=100, gamma=1.0, kernel="rbf", dtype=np.float64,
                 random_state=None):
        self.n_components = n_components
        self.gamma = gamma
        self.kernel = kernel
        self.dtype = dtype
        self.random_state = random_state

    def fit(self, X, y=None):
        """Draw the map for the columns of X (dense or sparse; only the width is used).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        X = self._validate(X, reset=True)
        n_components = check_positive(self.n_components, "n_components", integer=True)
        gamma = check_positive(self.gamma, "gamma")
        check_choice(self.kernel, "kernel", RFF_KERNELS)
        if np.dtype(self.dtype) not in (np.float32, np.float64):
            raise ValueError(f"dtype must be float32 or float64, got {self.dtype!r}")
        rng = v.check_random_state(self.random_state, legacy=True)
        d = X.shape[1]
        if self.kernel == "rbf":
            self.weights_ = rng.normal(scale=np.sqrt(2.0 * gamma), size=(d, n_components))
        else:
            self.weights_ = gamma * rng.standard_cauchy(size=(d, n_components))
        self.offsets_ = rng.uniform(0.0, 2.0 * np.pi, size=n_components)
        self.n_features_in_ = d
        return self

    def transform(self, X):
        """z(X) = sqrt(2/D) cos(X W + b); a sparse X is multiplied as it is, never
        densified.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features_in_)

        Returns
        -------
        ndarray of shape (n_samples, n_components), dtype `dtype`
        """
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        projection = X @ self.weights_
        projection = np.asarray(projection, dtype=np.float64)
        projection += self.offsets_
        np.cos(projection, out=projection)
        projection *= np.sqrt(2.0 / self.weights_.shape[1])
        return projection.astype(self.dtype, copy=False)

    def _validate(self, X, reset):
        if HAVE_SKLEARN:
            return validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=reset)
        X = v.check_data(X, "X", allow_empty=not reset)
        if not reset and X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but RandomFourierFeatures is "
                             f"expecting {self.n_features_in_} features as input.")
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
