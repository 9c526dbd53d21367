"""The Python boundary for data: every public entry checks its arrays here (X, y, sample
weights, precomputed kernels, seeds), so that the Cython code behind it can run without
bounds checks. Scalar parameters are checked by `libsmo.training._params`.

Each check returns the input in the layout the next layer reads (C-contiguous float64,
or canonical CSR with int32 indices), sharing the caller's arrays where they already
are in that layout and never modifying them.
"""
import numbers
from fractions import Fraction

import numpy as np

from libsmo._core.arrays import squared_norms
from libsmo._core.checks import all_finite, compressed_is_canonical, first_above
from libsmo._core.rows import MAX_BYTE_FEATURES
from libsmo._utils import sparse as sp
from libsmo._utils.constraints import Seed
from libsmo._utils.random_sources import LibsvmRandom, SklearnRandom


def check_data(X, name="X", *, allow_empty=False, keep_bytes=False):
    """Validate a data matrix and bring it to the layout the kernel reads.

    Parameters
    ----------
    X : array-like of shape (n, d) or scipy sparse matrix
        Any scipy sparse format is converted to CSR; dense input to C-contiguous float64.
    name : str
        The parameter name used in error messages.
    allow_empty : bool
        Whether zero rows are acceptable (prediction) or not (training).
    keep_bytes : bool
        A dense uint8 array (8-bit pixels) stays uint8, C-contiguous, when the core
        can sum its dot products in integers (at most `MAX_BYTE_FEATURES` columns):
        training reads it as bytes (`libsmo._core.rows.Rows`), an eighth of its
        doubles, with the same kernel values.

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix
        Dense float64 C-contiguous (or uint8 with `keep_bytes`), or canonical CSR:
        float64 data, int32 sorted indices, no duplicate entries. The caller's object
        is never modified; input already in that layout shares its arrays with the
        result, other input is copied.

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
        # the arrays of every format are checked before anything reads them: scipy
        # checks neither arrays it is given nor arrays edited in place, and its
        # conversions would read and write outside their buffers
        canonical = _check_sparse_arrays(X, name)
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
            try:
                X = sp.csr_matrix(X, dtype=np.float64, copy=True)
            except (TypeError, ValueError, IndexError, OverflowError) as exc:
                raise ValueError(f"{name} is not a valid {X.format.upper()} matrix: "
                                 f"{exc}") from None
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
        if (keep_bytes and arr.dtype == np.uint8
                and 0 < arr.shape[1] <= MAX_BYTE_FEATURES):
            # every byte is finite: nothing more to check
            X = np.ascontiguousarray(arr)
            if X.shape[0] == 0 and not allow_empty:
                raise ValueError(f"{name} has no rows (shape {X.shape})")
            return X
        X = np.ascontiguousarray(arr, dtype=np.float64)
        values = X
    if X.shape[0] == 0 and not allow_empty:
        raise ValueError(f"{name} has no rows (shape {X.shape})")
    check_finite(X, name, values)
    return X


def check_finite(X, name="X", values=None):
    """Raise ValueError naming the first row of X that holds NaN or infinity.

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_features) or CSR matrix
    name : str, default="X"
        The name the message gives X.
    values : ndarray, optional
        X's values as float64, C-contiguous (CSR: its data), where the caller has
        them; else read from X.

    Raises
    ------
    ValueError
        "<name> holds NaN or infinity (first at row <i>)".

    Examples
    --------
    >>> import numpy as np
    >>> check_finite(np.array([[1.0, 2.0], [0.0, np.inf]]))
    Traceback (most recent call last):
    ...
    ValueError: X holds NaN or infinity (first at row 1)
    """
    if values is None:
        values = np.ascontiguousarray(X.data if sp.issparse(X) else X, dtype=np.float64)
    if all_finite(values):
        return
    bad = np.argwhere(~np.isfinite(values))[0]
    if sp.issparse(X):
        row = int(np.searchsorted(X.indptr, bad[0], side="right") - 1)
    else:
        row = int(bad[0])
    raise ValueError(f"{name} holds NaN or infinity (first at row {row})")


def _csr_is_canonical(X, name):
    """`compressed_is_canonical` of a CSR matrix, naming the parameter when its arrays
    do not describe a CSR matrix of its shape."""
    try:
        return compressed_is_canonical(X.indptr, X.indices, len(X.data), X.shape[0],
                                       X.shape[1])
    except ValueError as exc:
        raise ValueError(f"{name} is not a valid CSR matrix: {exc}") from None


def _check_sparse_arrays(X, name):
    """Check the arrays of a scipy sparse matrix of any format against its shape,
    before scipy converts it (its C++ conversions trust them: an index edited in place
    is a write outside a buffer).

    Returns
    -------
    bool
        Whether X is CSR with strictly increasing column indices in every row.

    Raises
    ------
    ValueError
        The arrays do not describe a matrix of X's shape; the message names `name`
        and the format.
    """
    n_rows, n_cols = X.shape
    fmt = X.format

    def fail(reason):
        raise ValueError(f"{name} is not a valid {fmt.upper()} matrix: {reason}")

    data = np.asarray(X.data) if fmt != "dok" else None
    try:
        if fmt == "csr":
            return bool(compressed_is_canonical(X.indptr, X.indices, len(data), n_rows,
                                                n_cols))
        if fmt == "csc":
            compressed_is_canonical(X.indptr, X.indices, len(data), n_cols, n_rows,
                                    "column")
        elif fmt == "bsr":
            block_rows, block_cols = X.blocksize
            if (data.ndim != 3 or data.shape[1:] != (block_rows, block_cols)
                    or n_rows % block_rows or n_cols % block_cols):
                fail(f"blocks of shape {data.shape[1:]} for blocksize {X.blocksize} "
                     f"and shape {X.shape}")
            compressed_is_canonical(X.indptr, X.indices, data.shape[0],
                                    n_rows // block_rows, n_cols // block_cols, "block row")
        elif fmt == "coo":
            _check_coordinates(X.row, X.col, data, n_rows, n_cols, fail)
        elif fmt == "dia":
            offsets = np.asarray(X.offsets)
            if (data.ndim != 2 or offsets.ndim != 1 or offsets.dtype.kind not in "iu"
                    or len(offsets) != data.shape[0]):
                fail(f"{len(offsets)} offsets for diagonals of shape {data.shape}")
        elif fmt == "lil":
            rows, values = X.rows, X.data
            if len(rows) != n_rows or len(values) != n_rows:
                fail(f"{len(rows)} index lists and {len(values)} value lists for "
                     f"{n_rows} rows")
            for i in range(n_rows):
                if len(rows[i]) != len(values[i]):
                    fail(f"row {i} has {len(rows[i])} indices and {len(values[i])} "
                         "values")
    except ValueError as exc:
        if str(exc).startswith(f"{name} is not a valid"):
            raise
        fail(str(exc))
    return False


def _check_coordinates(row, col, data, n_rows, n_cols, fail):
    """COO's arrays: one row and one column index per value, inside the shape."""
    row, col = np.asarray(row), np.asarray(col)
    for what, index, size in (("row", row, n_rows), ("column", col, n_cols)):
        if index.ndim != 1 or index.dtype.kind not in "iu" or index.shape != data.shape:
            fail(f"{index.shape} {what} indices of dtype {index.dtype} for "
                 f"{data.shape} values")
        if len(index) and (index.min() < 0 or index.max() >= size):
            fail(f"a {what} index is outside [0, {size})")


def byte_variance(X):
    """The variance of every value of a uint8 array (scikit-learn's gamma="scale"),
    from the count of each byte value, a block of rows at a time: numpy's X.var() would
    make a float64 copy of X (6.3 GB for a million 784-pixel rows). Exact sums, one
    rounding at the end.

    Parameters
    ----------
    X : ndarray of uint8, 2-D

    Returns
    -------
    float
    """
    counts = np.zeros(256, dtype=np.int64)
    step = max(1, (1 << 22) // max(1, X.shape[1]))
    for start in range(0, X.shape[0], step):
        counts += np.bincount(X[start:start + step].ravel(), minlength=256)
    n = int(counts.sum())
    if n == 0:
        return 0.0
    values = np.arange(256, dtype=object)
    total = int(counts.astype(object) @ values)
    squares = int(counts.astype(object) @ (values * values))
    return float(Fraction(squares * n - total * total, n * n))


# Squared row norms above this make sums of two of them overflow in the kernels.
MAX_SQUARED_NORM = 1e300


def finite(values):
    """Whether every entry of a real array is finite (compiled; the array is read as
    C-contiguous float64, copied only when it is not that already).

    Examples
    --------
    >>> import numpy as np
    >>> finite(np.array([[1.0, 2.0]])), finite(np.array([1.0, np.nan]))
    (True, False)
    """
    return all_finite(np.ascontiguousarray(values, dtype=np.float64))


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
    sq = squared_norms(X)  # X as check_data returns it: dense or canonical CSR
    # compiled: numpy's comparison and all() cost 70 us the first time in a process
    bad = first_above(sq, MAX_SQUARED_NORM)
    if bad >= 0:
        raise ValueError(f"{name} row {bad} is too large for a kernel: its squared norm "
                         f"{sq[bad]:.3g} overflows double precision; scale the features "
                         "(for example to [-1, 1])")
    return sq


def check_labels(y, n_samples, name="y", *, classes=True):
    """Validate a label vector of length n_samples; returns it as a 1-D ndarray.

    With classes=True (class labels) integers that no float64 holds exactly are refused;
    regression targets (classes=False) are real numbers, rounded as any float is.
    """
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
            if classes:
                _check_exact_labels(y, name)
            y = y.astype(np.float64)
    if y.dtype.kind == "c":
        raise TypeError(f"{name} must hold real labels, got complex dtype {y.dtype}")
    if classes and y.dtype.kind in "iu":
        _check_exact_labels(y, name)
    if y.dtype.kind == "f" and not all_finite(np.ascontiguousarray(y, dtype=np.float64)):
        raise ValueError(f"{name} holds NaN or infinity (first at index "
                         f"{int(np.argwhere(~np.isfinite(y))[0, 0])})")
    return y


# A sparse precomputed kernel is made dense only when its stored values are at least
# this share of the dense matrix (or the dense matrix is small): a kernel matrix lists
# every value (LIBSVM's precomputed files do, zeros included), so a sparse one that is
# mostly empty is a mistake, and its shape alone (a file's row count, say) must not
# decide an allocation of many gigabytes.
PRECOMPUTED_MIN_STORED = 0.25
PRECOMPUTED_FREE_BYTES = 16 * 2**20


# Integers beyond this may have no float64 of their own (2**53 + 1 has not).
EXACT_INTEGER_LIMIT = 2**53


def _check_exact_labels(y, name):
    """Integer labels must be float64 numbers exactly: model files, svm-predict's output
    and the probability outputs carry labels as doubles, and two labels that round to
    one double would merge two classes (2**70 and 2**70 + 1)."""
    if y.size == 0:
        return
    if y.dtype == object:
        big = [v for v in y if isinstance(v, numbers.Integral)
               and not -EXACT_INTEGER_LIMIT <= v <= EXACT_INTEGER_LIMIT]
    elif y.min() >= -EXACT_INTEGER_LIMIT and y.max() <= EXACT_INTEGER_LIMIT:
        return
    else:
        big = [int(v) for v in np.unique(y) if abs(int(v)) > EXACT_INTEGER_LIMIT]
    for value in big:
        try:
            exact = float(value) == value
        except OverflowError:
            exact = False
        if not exact:
            raise ValueError(f"{name} holds the label {int(value)}, which a float64 cannot "
                             "hold exactly (integers beyond 2**53 are rounded, and two "
                             "labels could become one class); map the labels to smaller "
                             "integers or to strings")


def check_precomputed(X, name="X", n_train=None):
    """A precomputed kernel: n x n for training, n x n_train (or wider) for predicting.

    Parameters
    ----------
    X : array-like or scipy sparse matrix
        Sparse input is made dense (only its first n_train columns when predicting),
        provided it stores at least a quarter of the values it stands for or is small.
    name : str
    n_train : int or None
        None for training; else the number of training rows.

    Returns
    -------
    ndarray
        C-contiguous float64.

    Raises
    ------
    TypeError, ValueError
        Not a kernel matrix of the shape needed, or a sparse matrix too empty to be one.
    """
    shape = getattr(X, "shape", None)
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D, got a sparse array with {X.ndim} dims")
        _check_shape_precomputed(X.shape, name, n_train)
        X = check_data(X, name, allow_empty=n_train is not None)
        if n_train is not None and X.shape[1] > n_train:
            X = X[:, :n_train]
        dense_bytes = 8 * X.shape[0] * X.shape[1]
        if (dense_bytes > PRECOMPUTED_FREE_BYTES
                and X.nnz < PRECOMPUTED_MIN_STORED * X.shape[0] * X.shape[1]):
            raise ValueError(
                f"{name} is a sparse {X.shape[0]} x {X.shape[1]} precomputed kernel that "
                f"stores only {X.nnz} values: a kernel matrix needs every K(x_i, x_j) "
                "(LIBSVM's precomputed files list them all, zeros included), and a dense "
                f"copy would take {dense_bytes / 2**30:.3g} GiB")
        X = X.toarray()
    elif shape is not None and len(shape) == 2:
        _check_shape_precomputed(shape, name, n_train)
    X = check_data(X, name, allow_empty=n_train is not None)
    _check_shape_precomputed(X.shape, name, n_train)
    return X


def _check_shape_precomputed(shape, name, n_train):
    if n_train is None and shape[0] != shape[1]:
        raise ValueError(
            f"kernel='precomputed' needs {name} to be the square Gram matrix K(x_i, x_j) "
            f"of the training rows; got shape {tuple(shape)}")
    if n_train is not None and shape[1] < n_train:
        raise ValueError(
            f"kernel='precomputed' needs {name} with one column per training row "
            f"(at least {n_train}); got shape {tuple(shape)}")


def check_sample_weight(sample_weight, n_samples, *, allow_all_zero=False):
    """Per-example weights: None, or finite numbers >= 0, not all zero.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,) or (n_samples, 1), or None
    n_samples : int
    allow_all_zero : bool
        Accept weights that are all zero: a part of the data (a partition on a Dask
        worker) whose rows all take no part, checked whole elsewhere.

    Returns
    -------
    ndarray of float64 of shape (n_samples,), or None when none were given

    Raises
    ------
    TypeError
        Weights that are not numbers.
    ValueError
        The wrong length, NaN, infinity or a negative weight (the message names the
        first), or every weight zero.
    """
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight)
    if w.dtype.kind not in "biuf":
        raise TypeError(f"sample_weight must hold numbers, got dtype {w.dtype}")
    w = w.astype(np.float64).ravel() if w.ndim == 2 and 1 in w.shape else w.astype(float)
    if w.ndim != 1 or len(w) != n_samples:
        raise ValueError(f"sample_weight must have shape ({n_samples},), got "
                         f"{np.shape(sample_weight)}")
    if not np.isfinite(w).all() or (w < 0).any():
        bad = int(np.flatnonzero(~np.isfinite(w) | (w < 0))[0])
        raise ValueError(f"sample_weight must be finite and >= 0; sample_weight[{bad}] = "
                         f"{float(w[bad])!r}")
    if not allow_all_zero and not (w > 0).any():
        raise ValueError("sample_weight is zero for every example: nothing to train on")
    return w


def check_sklearn_random_state(random_state):
    """The random source of an estimator's fit, drawn as scikit-learn's fit draws its
    LIBSVM's seed: one randint(2**31 - 1) from check_random_state(random_state) at
    every fit. None, an int or a numpy RandomState give a `SklearnRandom` of that seed
    (the probability folds are then scikit-learn's); a numpy Generator or a
    `LibsvmRandom` (libsmo's own forms) is returned as is.

    Raises
    ------
    TypeError, ValueError
        Anything else, or a negative int.
    """
    random_state = Seed(legacy=True).check(random_state, "random_state")
    if isinstance(random_state, (np.random.Generator, LibsvmRandom, SklearnRandom)):
        return random_state
    return SklearnRandom.from_random_state(random_state)


def check_random_state(random_state, *, legacy=False):
    """A numpy Generator from None, an int >= 0 or a Generator (returned as is); with
    legacy=True (scikit-learn's estimators and transformers) also from a numpy
    RandomState, which seeds the Generator with one draw. A `LibsvmRandom` (LIBSVM's
    own rand()) is returned as is.

    None draws fresh entropy: whatever depends on it changes from run to run. An int
    gives the same draws every run.

    Raises
    ------
    TypeError, ValueError
        Anything else, or a negative int.
    """
    random_state = Seed(legacy=legacy).check(random_state, "random_state")
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, (np.random.Generator, LibsvmRandom, SklearnRandom)):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    return np.random.default_rng(random_state)
