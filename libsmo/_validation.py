"""The Python boundary: every public entry checks its input here, so that the Cython code
behind it can run without bounds checks."""
import math
import numbers

import numpy as np
import scipy.sparse as sp

from libsmo._kernel import all_finite, csr_is_canonical
from libsmo._prediction import squared_norms

KERNELS = ("linear", "poly", "rbf", "sigmoid", "precomputed")
SELECTIONS = ("second_order", "platt")


def check_data(X, name="X", *, allow_empty=False):
    """Validate a data matrix and bring it to the layout the kernel reads.

    Parameters
    ----------
    X : array-like of shape (n, d) or scipy sparse matrix
        Any scipy sparse format is converted to CSR; dense input to C-contiguous float64.
    name : str
        The parameter name used in error messages.
    allow_empty : bool
        Whether zero rows are acceptable (prediction) or not (training).

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix
        Dense float64 C-contiguous, or canonical CSR: float64 data, int32 sorted indices,
        no duplicate entries. The caller's object is never modified; input already in
        that layout shares its arrays with the result, other input is copied.

    Raises
    ------
    TypeError
        X is not numeric.
    ValueError
        X is not 2-D, is empty, or holds NaN or infinity.
    """
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D, got a sparse array with {X.ndim} dims")
        if X.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {X.dtype}")
        # CSR's arrays are checked before anything reads them: scipy does not check
        # them when it builds a matrix from arrays
        canonical = X.format == "csr" and _csr_is_canonical(X, name)
        if (canonical and X.dtype == np.float64 and X.indices.dtype == np.int32
                and X.indptr.dtype == np.int32 and X.data.flags.c_contiguous
                and X.indices.flags.c_contiguous and X.indptr.flags.c_contiguous):
            # already what the kernel reads: used as it is, as C-contiguous float64
            # dense input is (nothing downstream writes to either). A copy here was
            # 17.5 MB of the 15,849 TF-IDF reviews' training memory; even a new
            # csr_matrix over the same arrays cost 0.15 ms on a first call.
            if type(X) is not sp.csr_matrix:  # csr_array, subclasses
                X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=X.shape,
                                  copy=False)
        else:
            converted = X.format != "csr"
            X = sp.csr_matrix(X, dtype=np.float64, copy=True)
            if converted:
                _csr_is_canonical(X, name)  # the structure of what another format became
            if X.nnz and (np.abs(X.indptr[-1]) > np.iinfo(np.int32).max
                          or X.shape[1] > np.iinfo(np.int32).max):
                raise ValueError(f"{name} is too large: more than 2**31 - 1 non-zeros or "
                                 "columns")
            X.sum_duplicates()  # also sorts the indices
            X.sort_indices()
            X.indices = X.indices.astype(np.int32, copy=False)
            X.indptr = X.indptr.astype(
                np.int64 if X.nnz > np.iinfo(np.int32).max else np.int32, copy=False)
        values = X.data
    else:
        try:
            arr = np.asarray(X)
        except Exception as exc:  # ragged lists and the like
            raise ValueError(f"{name} cannot be read as a 2-D array: {exc}") from None
        if arr.dtype == object or arr.dtype.kind in "USV":
            raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
        if arr.dtype.kind == "c":
            raise TypeError(f"{name} must hold real numbers, got complex dtype {arr.dtype}")
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
        if arr.ndim != 2:
            raise ValueError(
                f"{name} must be 2-D (n_samples, n_features), got shape {arr.shape}; "
                "reshape a single sample with X.reshape(1, -1)")
        X = np.ascontiguousarray(arr, dtype=np.float64)
        values = X
    if X.shape[0] == 0 and not allow_empty:
        raise ValueError(f"{name} has no rows (shape {X.shape})")
    if not all_finite(values):
        bad = np.argwhere(~np.isfinite(values))[0]
        if sp.issparse(X):
            row = int(np.searchsorted(X.indptr, bad[0], side="right") - 1)
            where = f"row {row}"
        else:
            where = f"row {bad[0]}"
        raise ValueError(f"{name} holds NaN or infinity (first at {where})")
    return X


def _csr_is_canonical(X, name):
    """`_kernel.csr_is_canonical`, naming the parameter when X's arrays do not describe
    a CSR matrix of its shape."""
    try:
        return csr_is_canonical(X)
    except ValueError as exc:
        raise ValueError(f"{name} is not a valid CSR matrix: {exc}") from None


# Squared row norms above this make sums of two of them overflow in the kernels.
MAX_SQUARED_NORM = 1e300


def check_norms(X, name="X"):
    """Squared row norms of X, rejecting rows whose norms would overflow a kernel.

    Returns
    -------
    ndarray of shape (n_rows,)

    Raises
    ------
    ValueError
        Some |x|^2 exceeds 1e300: the kernel values would be inf or NaN.
    """
    sq = squared_norms(X)
    fits = sq <= MAX_SQUARED_NORM
    if not fits.all():
        bad = np.flatnonzero(~fits)
        raise ValueError(f"{name} row {bad[0]} is too large for a kernel: its squared norm "
                         f"{sq[bad[0]]:.3g} overflows double precision; scale the features "
                         "(for example to [-1, 1])")
    return sq


def check_labels(y, n_samples, name="y"):
    """Validate a label vector of length n_samples; returns it as a 1-D ndarray."""
    y = np.asarray(y)
    if y.ndim == 2 and 1 in y.shape:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {y.shape}")
    if y.shape[0] != n_samples:
        raise ValueError(f"{name} has {y.shape[0]} labels but X has {n_samples} rows")
    if y.dtype == object:
        # pandas hands over object columns: numbers become floats (so NaN is caught and
        # LIBSVM's -1/+1 order applies), strings stay strings, and a missing value or
        # a mix of the two is an error that names y
        kinds = {type(v) for v in y}
        if not all(issubclass(k, (numbers.Number, str)) for k in kinds):
            raise TypeError(f"{name} must hold numbers or strings, got {sorted(map(str, kinds))}")
        is_text = np.array([isinstance(v, str) for v in y], dtype=bool)
        if is_text.all():
            y = y.astype(str)
        elif is_text.any():
            where = int(np.flatnonzero(~is_text)[0])
            raise TypeError(f"{name} mixes strings and numbers (or missing values): "
                            f"{name}[{where}] = {y[where]!r}")
        else:
            y = y.astype(np.float64)
    if y.dtype.kind == "c":
        raise TypeError(f"{name} must hold real labels, got complex dtype {y.dtype}")
    if y.dtype.kind == "f" and not all_finite(np.ascontiguousarray(y, dtype=np.float64)):
        raise ValueError(f"{name} holds NaN or infinity (first at index "
                         f"{int(np.argwhere(~np.isfinite(y))[0, 0])})")
    return y


# Integer parameters end up in C ints (degree, threads) or 64-bit counters.
MAX_INT = 2**31 - 1


def check_positive(value, name, *, integer=False, allow_zero=False):
    """A finite number > 0 (>= 0 with allow_zero); ints only with integer=True, and
    then at most 2**31 - 1."""
    kind = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, kind):
        what = "an integer" if integer else "a number"
        raise TypeError(f"{name} must be {what}, got {value!r} ({type(value).__name__})")
    as_float = float(value) if abs(value) < 1e308 else float("inf")
    if not math.isfinite(as_float) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {bound}, got {value!r}")
    if integer and value > MAX_INT:
        raise ValueError(f"{name} must be at most {MAX_INT}, got {value!r}")
    return int(value) if integer else as_float


def check_real(value, name):
    """A finite real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r} ({type(value).__name__})")
    try:
        as_float = float(value)
    except OverflowError:  # an int beyond the doubles
        as_float = math.inf
    if not math.isfinite(as_float):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return as_float


def check_choice(value, name, choices):
    """One of a fixed set of strings."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def check_kernel_params(kernel, gamma, degree, coef0, n_features):
    """Validate the kernel and its parameters; gamma None means 1 / n_features.

    Returns
    -------
    tuple
        (kernel, gamma, degree, coef0) with gamma resolved to a float.
    """
    kernel = check_choice(kernel, "kernel", KERNELS)
    if gamma is None:
        gamma = 1.0 / n_features if n_features > 0 else 0.0
    else:
        gamma = check_positive(gamma, "gamma", allow_zero=True)
    degree = check_positive(degree, "degree", integer=True, allow_zero=True)
    coef0 = check_real(coef0, "coef0")
    return kernel, gamma, degree, coef0


def check_precomputed(X, name="X", n_train=None):
    """A precomputed kernel must be dense: n x n for training, n x n_train for predicting."""
    if sp.issparse(X):
        X = X.toarray()
    X = check_data(X, name, allow_empty=n_train is not None)
    if n_train is None and X.shape[0] != X.shape[1]:
        raise ValueError(
            f"kernel='precomputed' needs {name} to be the square Gram matrix K(x_i, x_j) "
            f"of the training rows; got shape {X.shape}")
    if n_train is not None and X.shape[1] < n_train:
        raise ValueError(
            f"kernel='precomputed' needs {name} with one column per training row "
            f"(at least {n_train}); got shape {X.shape}")
    return X
