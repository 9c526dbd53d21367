"""Random Fourier features (Rahimi and Recht 2007): an explicit map z(x) whose inner
products approximate a shift-invariant kernel, z(x)'z(y) ~ k(x - y), so that a linear
SVM on z(X) stands in for a kernel SVM on X at a fraction of the cost.

For k(x, y) = ``exp(-gamma |x - y|^2)`` the frequencies are drawn from N(0, 2 gamma I); for
the Laplacian kernel ``exp(-gamma |x - y|_1)`` from a Cauchy distribution of scale gamma in
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
    """Random Fourier features: a map whose inner products approximate a kernel.

    Rahimi and Recht's map [1]_ z(x) = sqrt(2 / D) cos(W'x + b), with D =
    n_components frequencies W drawn from the kernel's Fourier transform and phases b
    uniform on [0, 2 pi), so that z(x)'z(y) approximates the RBF kernel
    ``exp(-gamma |x - y|^2)`` or the Laplacian kernel ``exp(-gamma |x - y|_1)``, with an
    error that falls like 1 / sqrt(D). A linear SVM on z(X) (``SVC(kernel="linear")``,
    whose primal solver never forms kernel rows) then stands in for a kernel SVM on
    X, for data too large for an exact one.

    Parameters
    ----------
    n_components : int, default=100
        Number D of features of the map.
    gamma : float, default=1.0
        The kernel's parameter, positive: ``exp(-gamma |x - y|^2)`` ('rbf') or
        ``exp(-gamma |x - y|_1)`` ('laplacian').
    kernel : {'rbf', 'laplacian'}, default='rbf'
        The kernel approximated: frequencies from N(0, 2 gamma I) for 'rbf', from a
        Cauchy distribution of scale gamma in each coordinate for 'laplacian'.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        The dtype of the features `transform` returns.
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the frequencies and phases: the same seed gives the same map.

    Attributes
    ----------
    weights_ : ndarray of shape (`n_features_in_`, n_components)
        The frequencies W.
    offsets_ : ndarray of shape (n_components,)
        The phases b.
    n_features_in_ : int
        Number of features seen during `fit`.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during `fit`, when X has string column names.

    See Also
    --------
    sklearn.kernel_approximation.RBFSampler : The same map for the RBF kernel.
    sklearn.kernel_approximation.Nystroem : A map from a sample of the data.
    libsmo.SVC : With kernel='linear', the classifier to train on the features.

    References
    ----------
    .. [1] A. Rahimi and B. Recht, "Random features for large-scale kernel
       machines", Advances in Neural Information Processing Systems 20, 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from libsmo import RandomFourierFeatures
    >>> X = np.random.RandomState(0).rand(5, 3)
    >>> rff = RandomFourierFeatures(n_components=5000, gamma=0.5, random_state=0)
    >>> Z = rff.fit_transform(X)
    >>> Z.shape
    (5, 5000)
    >>> print(round(np.abs(Z @ Z.T - rbf_kernel(X, gamma=0.5)).max(), 2))
    0.01

    A linear SVM on the features, against the RBF kernel's SVM:

    >>> from sklearn.datasets import load_digits
    >>> from sklearn.pipeline import make_pipeline
    >>> from libsmo import SVC
    >>> X, y = load_digits(return_X_y=True)
    >>> X = X / 16
    >>> approx = make_pipeline(
    ...     RandomFourierFeatures(n_components=500, gamma=0.02, random_state=0),
    ...     SVC(kernel="linear")).fit(X[:1000], y[:1000])
    >>> exact = SVC(gamma=0.02).fit(X[:1000], y[:1000])
    >>> X_test, y_test = X[1000:], y[1000:]
    >>> print(round(approx.score(X_test, y_test), 2), round(exact.score(X_test, y_test), 2))
    0.94 0.94
    """

    def __init__(self, n_components=100, gamma=1.0, kernel="rbf", dtype=np.float64,
                 random_state=None):
        self.n_components = n_components
        self.gamma = gamma
        self.kernel = kernel
        self.dtype = dtype
        self.random_state = random_state

    def fit(self, X, y=None):
        """Draw the map for the columns of X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data whose width the map takes; only the number of columns is used.
        y : None
            Ignored; present for scikit-learn's API.

        Returns
        -------
        self
            The fitted transformer itself.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import RandomFourierFeatures
        >>> rff = RandomFourierFeatures(n_components=4, random_state=0)
        >>> rff.fit(np.zeros((2, 3))).weights_.shape, rff.offsets_.shape
        ((3, 4), (4,))
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
        """Map the rows of X to their random Fourier features.

        z(X) = sqrt(2 / D) cos(X W + b); a sparse X is multiplied as it is, never
        densified.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, `n_features_in_`)
            The rows to map.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            The features, of dtype ``dtype``.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import RandomFourierFeatures
        >>> rff = RandomFourierFeatures(n_components=3, dtype=np.float32, random_state=0)
        >>> Z = rff.fit(np.zeros((1, 2))).transform(np.ones((4, 2)))
        >>> Z.shape, Z.dtype
        ((4, 3), dtype('float32'))
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
