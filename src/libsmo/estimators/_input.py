"""What the estimators accept as data, checked as scikit-learn's SVMs check it: X
through scikit-learn's `validate_data` when it is installed (libsmo's own checks
otherwise), y as a 1-D vector, sample weights with scikit-learn's meaning (a weight of
zero or less leaves the sample out), and the Gram matrices of callable kernels.
"""
import warnings

import numpy as np
import scipy.sparse as sp

from libsmo._utils import validation as v
from libsmo.estimators._sklearn_compat import HAVE_SKLEARN, validate_data


def n_samples(X):
    """The number of samples in X, whatever a callable kernel accepts (arrays, lists of
    strings, ...)."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) > 0:
        return int(shape[0])
    try:
        return len(X)
    except TypeError:
        raise TypeError(f"X must be a sequence of samples, got {type(X).__name__}") from None


def validate_features(estimator, X, y=None, reset=True, dtype=None):
    """X (and y) as the kernel reads them: dense C-contiguous float64 or CSR (at fit,
    uint8 rows stay bytes: `libsmo._utils.validation.check_data`'s keep_bytes); with
    reset=True (fit) n_features_in_ is recorded, else X must have that many columns.
    `dtype` (scikit-learn's: a type, or a list of the types kept as they are, the
    others made the first), when given, replaces that choice: the linear estimators
    read float32 rows in place (and bytes as float64).

    Returns
    -------
    X, y
    """
    if HAVE_SKLEARN:
        if reset:
            plain = _plain_fit_data(X, y, dtype) if y is not None else None
        else:
            plain = _plain_predict_data(estimator, X, dtype) if y is None else None
        if plain is not None:
            # what validate_data hands back, with its attributes
            if reset:
                estimator.n_features_in_ = plain.shape[1]
                if hasattr(estimator, "feature_names_in_"):
                    del estimator.feature_names_in_   # (a fit on a data frame before)
            return plain, y
        # scikit-learn keeps a dtype of the list and converts any other to the first
        if dtype is None:
            dtype = [np.float64, np.uint8] if reset else np.float64
        options = dict(accept_sparse="csr", order="C", accept_large_sparse=False,
                       dtype=dtype, reset=reset)
        try:
            if y is None:
                return validate_data(estimator, X, **options), None
            return validate_data(estimator, X, y, **options)
        except ValueError as exc:
            # scikit-learn checks the values first, then the width: its width error
            # is raised again with the cause and the fix
            if not reset and str(exc).startswith("X has "):
                check_width(estimator, getattr(X, "shape", None))
            raise
    X = v.check_data(X, "X", allow_empty=not reset, keep_bytes=reset and dtype is None)
    if reset:
        estimator.n_features_in_ = X.shape[1]
    else:
        check_width(estimator, X.shape)
    if y is not None:
        y = v.check_labels(y, X.shape[0])
    return X, y


def _plain_fit_data(X, y, dtype):
    """X as scikit-learn's validate_data (check_X_y) returns it at fit, where X and y
    are data it accepts without more than a copy to C order (`_plain_rows`: dense
    float64 rows, and with the linear estimators' `dtype` CSR rows of a kept dtype), and
    y is a 1-D ndarray of numbers or strings of one label a row, finite (unless
    scikit-learn is configured to assume it). Such data, the common case, then skip its
    checks' tens of microseconds (it looks for data frames and array namespaces, then
    converts and inspects each array), and a vectorizer's matrix their hundreds; any
    other data, bad data included, go through validate_data (None here), so that every
    refusal and conversion is its own."""
    if not (type(y) is np.ndarray and y.ndim == 1 and y.dtype.kind in "biufU"):
        return None
    # float64 rows are what validate_data returns for either choice of dtype
    if dtype is None:
        kept = [np.float64]
    elif isinstance(dtype, list):
        kept = dtype
    else:
        return None
    X = _plain_rows(X, kept, sparse=dtype is not None)
    if X is None or y.shape[0] != X.shape[0]:
        return None
    return X if y.dtype.kind != "f" or _assume_finite() or v.finite(y) else None


def _plain_predict_data(estimator, X, dtype):
    """X as scikit-learn's validate_data (check_array, reset=False) returns it after a
    fit, where X is dense float64 rows or CSR rows of a kept dtype (`_plain_rows`) as
    wide as the fit's data, and the estimator was fitted on data without feature names;
    None for any other data, which then go through validate_data (every refusal,
    conversion and warning its own). A prediction of a few rows (a served request) then
    skips checks that took longer than the prediction itself."""
    if hasattr(estimator, "feature_names_in_"):
        return None
    kept = dtype if isinstance(dtype, list) else [np.float64 if dtype is None else dtype]
    X = _plain_rows(X, kept, sparse=True)
    if X is None or X.shape[1] != getattr(estimator, "n_features_in_", None):
        return None
    return X


def _plain_rows(X, kept, sparse):
    """X as validate_data (accept_sparse="csr", accept_large_sparse=False, order="C",
    the kept dtypes `kept`) returns it, where it takes X as it is or with a copy to C
    order: a float64 ndarray (C-contiguous: X itself; else its C-contiguous copy, as
    scikit-learn makes: digits' and other Fortran-ordered bundles) or, where `sparse`,
    a CSR matrix or array with values of a kept dtype and int32 index arrays; at least
    one row and one column, every value finite (unless scikit-learn is configured to
    assume it). None for anything else."""
    if type(X) is np.ndarray:
        if not (X.dtype == np.float64 and np.float64 in kept and X.ndim == 2
                and X.shape[0] > 0 and X.shape[1] > 0):
            return None
        X = np.ascontiguousarray(X)
        return X if _assume_finite() or v.finite(X) else None
    if not (sparse and type(X) in (sp.csr_matrix, sp.csr_array) and X.ndim == 2
            and X.data.dtype in kept and X.indices.dtype == np.int32
            and X.indptr.dtype == np.int32 and X.shape[0] > 0 and X.shape[1] > 0):
        return None
    # (numpy's isfinite, vectorised, reads the values faster than a typed loop)
    return X if _assume_finite() or bool(np.isfinite(X.data).all()) else None


def _assume_finite():
    from sklearn import get_config
    return get_config()["assume_finite"]


def check_width(estimator, shape):
    """Raise scikit-learn's error, with the usual cause and its fix, when X has another
    number of features than the fit's data: LIBSVM files give each file the width of
    its largest feature index, so a test file often comes out narrower (or wider) than
    its training file.

    Raises
    ------
    ValueError
        Naming both widths, `load_svmlight_files` and `n_features=`.
    """
    expected = getattr(estimator, "n_features_in_", None)
    if shape is None or len(shape) != 2 or expected is None or shape[1] == expected:
        return
    message = (f"X has {shape[1]} features, but {type(estimator).__name__} is expecting "
               f"{expected} features as input.")
    if getattr(estimator, "kernel", None) == "precomputed":
        raise ValueError(message)
    raise ValueError(
        f"{message} Data read from LIBSVM files is as wide as each "
        f"file's largest feature index: read the training and test files together with "
        f"libsmo.load_svmlight_files([train, test]), or pass n_features={expected} to "
        f"libsmo.load_svmlight_file.")


def gram_matrix(kernel, X, Y, name):
    """kernel(X, Y) of a callable kernel, checked: a dense float64 matrix with one row
    per sample of X and one column per sample of Y, finite.

    Parameters
    ----------
    kernel : callable
    X, Y : anything the kernel accepts
    name : str
        The estimator's name, for messages.

    Returns
    -------
    ndarray of shape (n_samples(X), n_samples(Y))

    Raises
    ------
    ValueError
        The kernel's answer has another shape, or holds NaN or infinity.
    """
    K = kernel(X, Y)
    expected = (n_samples(X), n_samples(Y))
    if sp.issparse(K):
        # its shape first: a sparse answer of the wrong shape can be any size dense
        # (an empty 10^6 x 10^6 matrix would ask for 7.3 TiB)
        _check_gram_shape(tuple(K.shape), expected, name)
        K = K.toarray()
    K = np.asarray(K, dtype=np.float64, order="C")
    _check_gram_shape(K.shape, expected, name)
    if not np.isfinite(K).all():
        raise ValueError(f"the kernel function of {name} returned NaN or infinity")
    return K


def _check_gram_shape(shape, expected, name):
    if shape != expected:
        raise ValueError(f"the kernel function of {name} returned a matrix of shape "
                         f"{shape} for {expected[0]} x {expected[1]} samples; it must "
                         f"return the Gram matrix k(X, Y) of shape {expected}")


def check_targets(estimator, y):
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


def sorted_classes(y):
    """The classes of a classifier's labels, sorted, and each label's index in them
    (``np.unique(y, return_inverse=True)``), once scikit-learn's
    check_classification_targets accepts y as class labels (with scikit-learn).

    Labels that are plainly classes (a 1-D array of integers, booleans or strings, or
    of floats that all hold integers) are the ones it calls "binary" or "multiclass":
    for them its answer is known from the dtype and one comparison, without its
    checks' tens of microseconds (type_of_target converts and inspects y again,
    looking for data frames). Any other y, and many distinct labels among many
    samples (for which it warns that y may be a regression target), go through it,
    so that every refusal and warning is its own.

    Parameters
    ----------
    y : ndarray
        Labels as `validate_features` returned them.

    Returns
    -------
    classes : ndarray
    encoded : ndarray of int of shape (n_samples,)

    Raises
    ------
    ValueError
        scikit-learn's: y is not class labels (continuous values, say).
    """
    simple = type(y) is np.ndarray and y.ndim == 1 and y.size > 0
    two = _two_classes(y) if simple else None
    if two is not None:
        # (floats: every label is one of the two, so theirs is y's integrality test)
        plain = y.dtype.kind != "f" or _integral(two[0])
    else:
        plain = simple and (y.dtype.kind in "biuU"
                            or (y.dtype.kind == "f" and _integral(y)))
    if HAVE_SKLEARN and not plain:
        from sklearn.utils.multiclass import check_classification_targets
        check_classification_targets(y)
    if plain and two is not None:
        classes, encoded = two
    elif plain:
        # the same answer as np.unique's return_inverse, whose sort of y (stable, with
        # the indices) costs ten times this one of its distinct values on long runs of
        # one label
        classes = np.unique(y)
        encoded = np.searchsorted(classes, y)
    else:
        classes, encoded = np.unique(y, return_inverse=True)
    if (HAVE_SKLEARN and plain and len(y) > 20 and len(classes) > 2
            and len(classes) > round(0.5 * len(y))):
        # its warning that so many classes may be a regression's targets
        from sklearn.utils.multiclass import check_classification_targets
        check_classification_targets(y)
    return classes, encoded.ravel()


def _two_classes(y):
    """np.unique(y, return_inverse=True) of labels y of exactly two distinct values
    (numbers or booleans), from their minimum and maximum and two comparisons instead
    of a sort; None for other y. A float class of zero where -0.0 may be among the
    labels is left to the sort (which of 0.0 and -0.0 np.unique keeps depends on it)."""
    if y.dtype.kind not in "biuf":
        return None
    low, high = y.min(), y.max()
    if not low < high:
        return None
    if y.dtype.kind == "f" and (high == 0 or (low == 0 and np.signbit(y).any())):
        return None
    is_high = y == high
    if not np.all(is_high | (y == low)):
        return None
    return np.array([low, high], dtype=y.dtype), is_high.astype(np.intp)


def _integral(y):
    """Whether every float of y is an integer (type_of_target's test: through int64 and
    back; NaN, infinity and floats beyond int64 are not, silently here: scikit-learn's
    check then warns of the cast)."""
    with np.errstate(invalid="ignore"):
        return not np.any(y != y.astype(np.int64).astype(y.dtype))


ALL_LEFT_OUT = "Invalid input - all samples have zero or negative weights."


def effective_sample_weight(sample_weight, n):
    """scikit-learn's sample weights as libsmo's: a weight of zero or less leaves its
    sample out (LIBSVM's C_i = C * weight cannot be negative), so negative weights
    become 0.

    Parameters
    ----------
    sample_weight : array-like of shape (n,) or None
    n : int

    Returns
    -------
    ndarray of float64 of shape (n,), or None

    Raises
    ------
    TypeError
        Weights that are not numbers.
    ValueError
        The wrong length, NaN or infinity, or no sample left (scikit-learn's message).
    """
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight)
    if w.dtype.kind in "biuf":
        w = w.astype(np.float64)
        # (NaN and -inf stay, so that check_sample_weight names them)
        w[(w < 0) & np.isfinite(w)] = 0.0
        if w.size == n and np.isfinite(w).all() and not (w > 0).any():
            raise ValueError(ALL_LEFT_OUT)
    return v.check_sample_weight(w, n)
