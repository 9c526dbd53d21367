"""Feature scaling as LIBSVM's svm-scale does it, with its range files.

``Scaler(lower, upper, y_range).fit(X, y)`` records each feature's minimum and maximum
over all rows, a missing (zero) entry counting as 0, as svm-scale's first passes do;
``transform`` maps each feature linearly onto [lower, upper] with svm-scale's own
arithmetic (the minimum goes exactly to `lower`, the maximum exactly to `upper`, other
values to ``lower + (upper - lower) * (v - min) / (max - min)``), so that the values
are the doubles svm-scale computes before printing them. Features that were constant
when fitted, or that the scaler never saw, become 0, as svm-scale drops them.

Sparse input stays sparse (CSR out). Where a zero maps to a non-zero value (with the
default lower = -1: every feature whose minimum is 0), each row that does not store the
feature gains an entry, exactly as in svm-scale's output; when the result holds more
non-zeros than the input, the warning svm-scale prints is issued (a `ScalingWarning`):
use lower=0 for non-negative sparse features.

``save_range(path)`` / ``Scaler.load_range(path)`` write and read svm-scale's ``-s`` /
``-r`` range file, so that ranges move between libsmo and svm-scale either way.
"""
import warnings

import numpy as np

from libsmo._utils import sparse as sp
from libsmo._utils.validation import check_data
from libsmo.io import read_range_file, write_range_file

__all__ = ["Scaler", "ScalingWarning", "UnscaledFeaturesWarning"]


class ScalingWarning(UserWarning):
    """Warning of what svm-scale prints as WARNING while it scales.

    Issued by `Scaler.transform` when the scaled data hold more non-zeros than
    the input (a feature whose zero maps to a non-zero value, as with the default
    lower=-1 on non-negative sparse features: use lower=0), and, as its subclass
    `UnscaledFeaturesWarning`, for features that have no range in the scaling
    factors.

    See Also
    --------
    UnscaledFeaturesWarning : Features scaled to 0 for want of a range.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from libsmo import Scaler
    >>> from libsmo.scaling import ScalingWarning
    >>> X = sp.csr_matrix(np.array([[0.0, 1.0], [0.0, 2.0], [4.0, 3.0]]))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     X_scaled = Scaler().fit_transform(X)
    >>> caught[0].category is ScalingWarning, X.nnz, X_scaled.nnz
    (True, 4, 5)
    >>> print(caught[0].message)
    original #nonzeros 4
           > new      #nonzeros 5
    If feature values are non-negative and sparse, use -l 0 rather than the default -l -1
    """


class UnscaledFeaturesWarning(ScalingWarning):
    """Warning of features that vary in the data but have no range to be scaled by.

    svm-scale -r says so of a feature that "appeared in file ... was not seen in
    the scaling factor file"; `Scaler.transform` issues this warning for the
    features that were constant (or absent) when the scaler was fitted, or that its
    range file does not list, and vary in the data it scales. They are scaled to 0.

    Parameters
    ----------
    features : sequence of int
        Their 1-based indices, increasing.

    Attributes
    ----------
    features : list of int
        The same indices, as ints.

    See Also
    --------
    ScalingWarning : Its base class, svm-scale's other warning.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from libsmo import Scaler
    >>> scaler = Scaler().fit(np.array([[1.0, 0.0], [2.0, 0.0]]))   # column 2 constant
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     X_scaled = scaler.transform(np.array([[1.0, 3.0], [1.0, 4.0]]))
    >>> caught[0].message.features, X_scaled[:, 1]
    ([2], array([0., 0.]))
    """

    def __init__(self, features):
        self.features = [int(i) for i in features]
        shown = ", ".join(map(str, self.features[:20]))
        if len(self.features) > 20:
            shown += f" and {len(self.features) - 20} more"
        if len(self.features) == 1:
            what = f"feature index {shown} varies in the data but has"
        else:
            what = f"feature indices {shown} vary in the data but have"
        super().__init__(f"{what} no scaling range (constant or absent when fitted); "
                         "scaled to 0.")


def _limits(lower, upper, what):
    try:
        lower, upper = float(lower), float(upper)
    except (TypeError, ValueError):
        raise TypeError(f"{what} limits must be numbers, got {lower!r}, "
                        f"{upper!r}") from None
    if not (np.isfinite(lower) and np.isfinite(upper) and upper > lower):
        raise ValueError(f"inconsistent {what} lower/upper specification: need finite "
                         f"lower < upper, got {lower!r}, {upper!r}")
    return lower, upper


def _check_X(X):
    """X as validation returns it (dense float64 or canonical CSR; no rows allowed)."""
    return check_data(X, "X", allow_empty=True)


def _scale(values, vmin, vmax, lower, upper):
    """svm-scale's output(): min -> lower, max -> upper, else the linear map, in its
    order of operations (bit for bit the same doubles)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scaled = lower + (upper - lower) * (values - vmin) / (vmax - vmin)
    out = np.where(values == vmin, lower, np.where(values == vmax, upper, scaled))
    if not np.all(np.isfinite(out)):
        # ranges far apart (a range file's min of 1e308 against a max of 1): the map's
        # products leave double precision, where svm-scale writes inf or nan
        first = int(np.argmax(~np.isfinite(out).ravel()))
        value, low, high = (np.broadcast_to(a, out.shape).ravel()[first]
                            for a in (values, vmin, vmax))
        raise ValueError(f"scaling overflows double precision: the value {value!r} with "
                         f"the range min {low!r}, max {high!r} maps beyond "
                         f"{np.finfo(np.float64).max!r}")
    return out


def column_ranges(X):
    """Each column's minimum and maximum over the rows of X, a missing (zero) sparse
    entry counting as 0, for the columns that hold anything but zeros.

    Returns
    -------
    columns : ndarray of int64
        Increasing 0-based columns (every column for dense X).
    low, high : ndarray of float64
        Their minima and maxima.

    Notes
    -----
    Sparse X costs O(nnz log nnz) whatever its width: only the columns with stored
    entries are visited.
    """
    n_rows = X.shape[0]
    if not sp.issparse(X):
        columns = np.arange(X.shape[1], dtype=np.int64)
        if n_rows == 0:
            return columns, np.zeros(X.shape[1]), np.zeros(X.shape[1])
        return columns, X.min(axis=0), X.max(axis=0)
    order = np.argsort(X.indices, kind="stable")
    sorted_columns = X.indices[order]
    values = X.data[order]
    starts = np.flatnonzero(np.concatenate([[True], sorted_columns[1:] != sorted_columns[:-1]])) \
        if len(order) else np.zeros(0, dtype=np.int64)
    columns = sorted_columns[starts].astype(np.int64)
    if len(columns) == 0:
        return columns, np.zeros(0), np.zeros(0)
    low = np.minimum.reduceat(values, starts)
    high = np.maximum.reduceat(values, starts)
    # a column stored in fewer rows than there are has zeros in the others
    stored = np.diff(np.concatenate([starts, [len(order)]]))
    partial = stored < n_rows
    low[partial] = np.minimum(low[partial], 0.0)
    high[partial] = np.maximum(high[partial], 0.0)
    return columns, low, high


class Scaler:
    """Scale features (and optionally the target) to a range, as svm-scale does.

    `fit` records each feature's minimum and maximum over all rows, a missing
    (zero) entry counting as 0, as svm-scale's first passes do; `transform` maps
    each feature linearly onto [lower, upper] with svm-scale's own arithmetic (the
    minimum goes exactly to `lower`, the maximum exactly to `upper`, other values to
    ``lower + (upper - lower) * (v - min) / (max - min)``), so that the values are
    the doubles svm-scale computes before printing them. Features that were
    constant when fitted, or that the scaler never saw, become 0, as svm-scale
    drops them. Sparse input stays sparse. `save_range` and `load_range` write and
    read svm-scale's range files (``-s`` / ``-r``), so that ranges move between
    libsmo and svm-scale either way.

    Parameters
    ----------
    lower : float, default=-1.0
        The lower end of the scaled features' range (svm-scale's ``-l``).
    upper : float, default=1.0
        The upper end of the scaled features' range (svm-scale's ``-u``).
    y_range : tuple of 2 float, default=None
        Also scale y to this range (svm-scale's ``-y lower upper``); None leaves y
        as it is.

    Attributes
    ----------
    feature_index_ : ndarray of int64
        The 0-based columns that have a range (column j is LIBSVM's index j + 1),
        increasing: from `fit`, every column of dense data and the columns of sparse
        data that hold a non-zero; from a range file, the features it lists.
    feature_min_, feature_max_ : ndarray of float64
        The minimum and maximum of each of those columns. A feature with min == max,
        or not listed, is not scaled (it becomes 0). Ranges are kept per listed
        feature, never per column up to the largest index: a range file naming index
        2**31 - 1 costs one entry, not 16 GB.
    n_features_in_ : int
        Columns of the fitted data (the largest index of a range file).
    y_min_, y_max_ : float or None
        The range of y when fitted with y_range.

    See Also
    --------
    sklearn.preprocessing.MinMaxScaler : The scikit-learn scaler to a range.
    libsmo.io.read_range_file : Read svm-scale's range file.

    Notes
    -----
    Where a zero maps to a non-zero value (with the default lower=-1: every feature
    whose minimum is 0), each row that does not store the feature gains an entry,
    exactly as in svm-scale's output, and a `libsmo.scaling.ScalingWarning` says so
    when the result holds more non-zeros than the input: use lower=0 for
    non-negative sparse features. The command ``libsmo-scale`` is svm-scale over
    this class.

    Examples
    --------
    >>> import numpy as np
    >>> from libsmo import Scaler
    >>> X = np.array([[0.0, 10.0], [5.0, 20.0], [10.0, 30.0]])
    >>> scaler = Scaler().fit(X)
    >>> scaler.transform(X)
    array([[-1., -1.],
           [ 0.,  0.],
           [ 1.,  1.]])
    >>> scaler.transform([[2.5, 40.0]])
    array([[-0.5,  2. ]])
    """

    # A dense result may be this many times the bytes of the dense input (plus 64 MB)
    # before transform asks for sparse input instead: ranges whose largest index is far
    # beyond X's columns would widen every dense row to that index.
    DENSE_GROWTH = 4

    def __init__(self, lower=-1.0, upper=1.0, y_range=None):
        self.lower = lower
        self.upper = upper
        self.y_range = y_range

    # ---------------------------------------------------------------- fitting
    def fit(self, X, y=None):
        """Record each feature's minimum and maximum over the rows of X.

        Zeros count: a sparse column that does not store every row has 0 among its
        values. With ``y_range`` set, y's minimum and maximum are recorded too.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data whose ranges are recorded (at least one row).
        y : array-like of shape (n_samples,), default=None
            Targets; needed when ``y_range`` is set, else ignored.

        Returns
        -------
        Scaler
            The fitted scaler itself.

        Raises
        ------
        ValueError
            X has no rows, lower >= upper, or y_range is set and y is missing or
            not one number a row.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import Scaler
        >>> scaler = Scaler().fit(np.array([[0.0, 10.0], [5.0, 20.0], [10.0, 30.0]]))
        >>> scaler.feature_min_, scaler.feature_max_
        (array([ 0., 10.]), array([10., 30.]))
        """
        lower, upper = _limits(self.lower, self.upper, "x")
        X = _check_X(X)
        if X.shape[0] == 0:
            raise ValueError("cannot fit a Scaler on data with no rows")
        self.feature_index_, self.feature_min_, self.feature_max_ = column_ranges(X)
        self.lower, self.upper = lower, upper
        self.y_min_ = self.y_max_ = None
        if self.y_range is not None:
            y_lower, y_upper = _limits(*self.y_range, "y")
            self.y_range = (y_lower, y_upper)
            if y is None:
                raise ValueError("y_range is set: fit needs y")
            y = self._check_y(y, X.shape[0])
            self.y_min_, self.y_max_ = float(y.min()), float(y.max())
        self.n_features_in_ = X.shape[1]
        return self

    @staticmethod
    def _check_y(y, n):
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != n:
            raise ValueError(f"y must be 1-D with one value per row ({n}), got shape "
                             f"{y.shape}")
        if y.dtype.kind not in "biuf":
            raise TypeError(f"y must hold numbers to be scaled, got dtype {y.dtype}")
        y = y.astype(np.float64)
        if not np.isfinite(y).all():
            raise ValueError("y holds NaN or infinity")
        return y

    def _check_fitted(self):
        if not hasattr(self, "feature_index_"):
            raise ValueError("this Scaler is not fitted: call fit or Scaler.load_range")

    def _scaled_columns(self):
        """(columns, min, max) of the features that are scaled (min != max)."""
        index = np.asarray(self.feature_index_, dtype=np.int64)
        fmin = np.asarray(self.feature_min_, dtype=np.float64)
        fmax = np.asarray(self.feature_max_, dtype=np.float64)
        varies = fmin != fmax
        return index[varies], fmin[varies], fmax[varies]

    # ------------------------------------------------------------- transforming
    def output_width(self, n_columns):
        """Return the columns of the transform of a matrix of n_columns columns.

        As many as it has, or as the fitted ranges reach, whichever is more.

        Parameters
        ----------
        n_columns : int
            Columns of the matrix to transform.

        Returns
        -------
        int
            Columns of its transform.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import Scaler
        >>> scaler = Scaler().fit(np.array([[0.0, 10.0], [5.0, 20.0]]))
        >>> scaler.output_width(1), scaler.output_width(5)
        (2, 5)
        """
        self._check_fitted()
        return max(n_columns, int(self.n_features_in_),
                   int(self.feature_index_[-1]) + 1 if len(self.feature_index_) else 0)

    def transform(self, X, y=None):
        """Scale X (and y, when given) with the fitted ranges.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data to scale; any number of columns (features beyond the ranges,
            or without one, become 0 with an `UnscaledFeaturesWarning` if they vary).
        y : array-like of shape (n_samples,), default=None
            Targets to scale with ``y_range`` (returned as float64 without it).

        Returns
        -------
        X_scaled : ndarray or csr_matrix of shape (n_samples, n_columns)
            CSR for sparse X, else a dense array; as many columns as X or as the
            fitted ranges, whichever is more (`output_width`).
        y_scaled : ndarray of shape (n_samples,)
            Returned only when y is given: scaled only with ``y_range``.

        Raises
        ------
        ValueError
            The scaler is not fitted, or X is dense and the ranges reach so far
            beyond its columns that the dense result would be many times its size
            (pass X as a sparse matrix).

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import Scaler
        >>> X = np.array([[0.0, 10.0], [5.0, 20.0], [10.0, 30.0]])
        >>> scaler = Scaler(lower=0.0, upper=1.0, y_range=(-1.0, 1.0))
        >>> y = np.array([1.0, 2.0, 3.0])
        >>> X_scaled, y_scaled = scaler.fit(X, y).transform(X, y)
        >>> X_scaled[1], y_scaled
        (array([0.5, 0.5]), array([-1.,  0.,  1.]))
        """
        self._check_fitted()
        X = _check_X(X)
        lower, upper = float(self.lower), float(self.upper)
        columns, vmin, vmax = self._scaled_columns()
        n = X.shape[0]
        width = self.output_width(X.shape[1])
        self._warn_unscaled(X, columns)
        if sp.issparse(X):
            out = self._transform_sparse(X, width, columns, vmin, vmax, lower, upper)
            before, after = X.nnz, out.nnz
        else:
            if (width > X.shape[1] and 8 * n * width
                    > self.DENSE_GROWTH * X.nbytes + 64 * 2**20):
                raise ValueError(
                    f"the ranges reach feature index {width}, but X has {X.shape[1]} "
                    f"columns: a dense result would take {8 * n * width / 2**30:.3g} GiB; "
                    "pass X as a scipy sparse matrix")
            out = np.zeros((n, width))
            inside = columns < X.shape[1]
            cols = columns[inside]
            out[:, cols] = _scale(X[:, cols], vmin[inside], vmax[inside], lower, upper)
            outside = columns[~inside]  # features X does not have: their zeros, scaled
            out[:, outside] = _scale(np.zeros(len(outside)), vmin[~inside],
                                     vmax[~inside], lower, upper)
            before, after = np.count_nonzero(X), np.count_nonzero(out)
        if after > before:
            warnings.warn(f"original #nonzeros {before}\n       > new      #nonzeros "
                          f"{after}\nIf feature values are non-negative and sparse, use "
                          "-l 0 rather than the default -l -1", ScalingWarning,
                          stacklevel=2)
        if y is None:
            return out
        return out, self._transform_y(y, n)

    def fit_transform(self, X, y=None):
        """Fit to X (and y), then scale them: ``fit(X, y).transform(X, y)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data to fit and scale.
        y : array-like of shape (n_samples,), default=None
            Targets; with ``y_range``, fitted and scaled too.

        Returns
        -------
        X_scaled : ndarray or csr_matrix of shape (n_samples, n_columns)
            The scaled X.
        y_scaled : ndarray of shape (n_samples,)
            Returned only when y is given.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import Scaler
        >>> Scaler(lower=0.0).fit_transform(np.array([[2.0], [4.0], [3.0]]))
        array([[0. ],
               [1. ],
               [0.5]])
        """
        return self.fit(X, y).transform(X, y)

    def _transform_y(self, y, n):
        y = self._check_y(y, n)
        if self.y_range is None or self.y_min_ is None:
            return y
        y_lower, y_upper = self.y_range
        with np.errstate(divide="ignore", invalid="ignore"):
            scaled = y_lower + (y_upper - y_lower) * (y - self.y_min_) / (self.y_max_ -
                                                                          self.y_min_)
        return np.where(y == self.y_min_, y_lower,
                        np.where(y == self.y_max_, y_upper, scaled))

    def _warn_unscaled(self, X, scaled):
        """svm-scale -r warns of features that vary in the data but have no range."""
        if X.shape[1] == 0 or X.shape[0] == 0:
            return
        columns, xmin, xmax = column_ranges(X)
        varying = columns[(xmin != xmax) & ~np.isin(columns, scaled)]
        if len(varying):
            warnings.warn(UnscaledFeaturesWarning(varying + 1), stacklevel=3)

    @staticmethod
    def _transform_sparse(X, width, columns, vmin, vmax, lower, upper):
        """CSR in, CSR out, in O(nnz + rows x features whose zero maps to non-zero)."""
        n = X.shape[0]
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(X.indptr))
        cols = X.indices.astype(np.int64)
        slot = np.searchsorted(columns, cols)
        keep = np.zeros(len(cols), dtype=bool)
        if len(columns):
            keep = columns[np.minimum(slot, len(columns) - 1)] == cols
        rows, cols, slot = rows[keep], cols[keep], slot[keep]
        values = _scale(X.data[keep], vmin[slot], vmax[slot], lower, upper)
        nonzero = values != 0
        parts_r, parts_c, parts_v = [rows[nonzero]], [cols[nonzero]], [values[nonzero]]
        # the zero entries of X: where the zero of a feature maps to a non-zero value,
        # every row that does not store that feature gains it (svm-scale's output(i, 0))
        zero_image = _scale(np.zeros(len(columns)), vmin, vmax, lower, upper)
        filled = np.flatnonzero(zero_image != 0)  # positions in `columns`
        if len(filled):
            rank = np.full(len(columns), -1, dtype=np.int64)
            rank[filled] = np.arange(len(filled))
            stored = np.zeros(n * len(filled), dtype=bool)
            in_filled = rank[slot] >= 0
            stored[rows[in_filled] * len(filled) + rank[slot[in_filled]]] = True
            free = np.flatnonzero(~stored)
            parts_r.append(free // len(filled))
            parts_c.append(columns[filled][free % len(filled)])
            parts_v.append(zero_image[filled][free % len(filled)])
        out = sp.csr_matrix((np.concatenate(parts_v),
                             (np.concatenate(parts_r), np.concatenate(parts_c))),
                            shape=(n, width))
        out.sort_indices()
        return out

    # ---------------------------------------------------------------- range files
    def save_range(self, path):
        """Write the ranges as svm-scale's range file (what ``svm-scale -s`` writes).

        Parameters
        ----------
        path : str, path-like or binary file object
            Where to write; a path is written through a temporary file renamed into
            place.

        Raises
        ------
        ValueError
            The scaler is not fitted.

        See Also
        --------
        load_range : Read a range file into a fitted Scaler.

        Examples
        --------
        >>> import io
        >>> import numpy as np
        >>> from libsmo import Scaler
        >>> f = io.BytesIO()
        >>> Scaler(lower=0.0).fit(np.array([[0.0, 10.0], [5.0, 30.0]])).save_range(f)
        >>> print(f.getvalue().decode())
        x
        0 1
        1 0 5
        2 10 30
        <BLANKLINE>
        """
        self._check_fitted()
        y_scaling = None
        if self.y_range is not None and self.y_min_ is not None:
            y_scaling = (self.y_range[0], self.y_range[1], self.y_min_, self.y_max_)
        write_range_file(path, self.lower, self.upper, self.feature_min_,
                         self.feature_max_, y_scaling, index=self.feature_index_ + 1)

    @classmethod
    def load_range(cls, path):
        """Make a fitted Scaler from svm-scale's range file (``svm-scale -r``'s).

        lower, upper and y_range come from the file.

        Parameters
        ----------
        path : str, path-like, int or binary file object
            The range file (svm-scale's or `save_range`'s).

        Returns
        -------
        Scaler
            Fitted: it scales as svm-scale -r scales with this file.

        Raises
        ------
        ValueError
            The file is not a range file (the message names the line), or its
            limits are not lower < upper.

        See Also
        --------
        save_range : Write a fitted Scaler's range file.

        Examples
        --------
        >>> import os
        >>> import tempfile
        >>> import numpy as np
        >>> from libsmo import Scaler
        >>> X = np.array([[0.0, 10.0], [5.0, 30.0]])
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = os.path.join(folder, "range")
        ...     Scaler(lower=0.0).fit(X).save_range(path)
        ...     scaler = Scaler.load_range(path)
        >>> scaler.lower, scaler.transform([[2.5, 20.0]])
        (0.0, array([[0.5, 0.5]]))
        """
        ranges = read_range_file(path)
        y = ranges.y_scaling
        scaler = cls(lower=ranges.lower, upper=ranges.upper,
                     y_range=None if y is None else (y[0], y[1]))
        _limits(scaler.lower, scaler.upper, "x")
        if y is not None:
            _limits(y[0], y[1], "y")
        scaler.feature_index_ = ranges.index - 1
        scaler.feature_min_ = ranges.feature_min
        scaler.feature_max_ = ranges.feature_max
        scaler.y_min_ = None if y is None else y[2]
        scaler.y_max_ = None if y is None else y[3]
        scaler.n_features_in_ = int(ranges.index.max()) if len(ranges.index) else 0
        return scaler
