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
import scipy.sparse as sp

from libsmo._validation import check_data
from libsmo.io import read_range_file, write_range_file

__all__ = ["Scaler", "ScalingWarning"]


class ScalingWarning(UserWarning):
    """What svm-scale prints as WARNING: more non-zeros after scaling, or features with
    no range in the scaling factors."""


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
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = lower + (upper - lower) * (values - vmin) / (vmax - vmin)
    return np.where(values == vmin, lower, np.where(values == vmax, upper, scaled))


class Scaler:
    """Scale features (and optionally the target) to a range, as svm-scale.

    Parameters
    ----------
    lower, upper : float
        The range of the scaled features (svm-scale's -l, -u; default -1, 1).
    y_range : (float, float) or None
        Also scale y to this range (svm-scale's -y lower upper).

    Attributes
    ----------
    feature_min_, feature_max_ : ndarray of shape (n_features,)
        Per column (column j is LIBSVM's index j + 1); a feature with min == max is not
        scaled (it becomes 0). From a range file, features it does not list have 0, 0.
    y_min_, y_max_ : float or None
        The range of y when fitted with y_range.
    """

    def __init__(self, lower=-1.0, upper=1.0, y_range=None):
        self.lower = lower
        self.upper = upper
        self.y_range = y_range

    # ---------------------------------------------------------------- fitting
    def fit(self, X, y=None):
        """Record each feature's min and max over the rows of X (zeros included), and
        y's when y_range is set. Returns self."""
        lower, upper = _limits(self.lower, self.upper, "x")
        X = _check_X(X)
        if X.shape[0] == 0:
            raise ValueError("cannot fit a Scaler on data with no rows")
        if sp.issparse(X):
            self.feature_min_ = np.asarray(X.min(axis=0).toarray(), dtype=float).ravel()
            self.feature_max_ = np.asarray(X.max(axis=0).toarray(), dtype=float).ravel()
        else:
            self.feature_min_ = X.min(axis=0) if X.shape[1] else np.zeros(0)
            self.feature_max_ = X.max(axis=0) if X.shape[1] else np.zeros(0)
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
        if not hasattr(self, "feature_min_"):
            raise ValueError("this Scaler is not fitted: call fit or Scaler.load_range")

    # ------------------------------------------------------------- transforming
    def transform(self, X, y=None):
        """Scale X (and y, when given) with the fitted ranges.

        Returns
        -------
        X_scaled, or (X_scaled, y_scaled) when y is given
            CSR for sparse X, else a dense array; as many columns as X or as the
            fitted ranges, whichever is more. y is scaled only with y_range.
        """
        self._check_fitted()
        X = _check_X(X)
        lower, upper = float(self.lower), float(self.upper)
        fmin = np.asarray(self.feature_min_, dtype=np.float64)
        fmax = np.asarray(self.feature_max_, dtype=np.float64)
        n, width = X.shape[0], max(X.shape[1], len(fmin))
        known = np.zeros(width, dtype=bool)
        known[:len(fmin)] = fmin != fmax
        vmin = np.zeros(width)
        vmax = np.zeros(width)
        vmin[:len(fmin)], vmax[:len(fmin)] = fmin, fmax
        self._warn_unscaled(X, known)
        if sp.issparse(X):
            out, before = self._transform_sparse(X, width, known, vmin, vmax, lower,
                                                 upper), X.nnz
            after = out.nnz
        else:
            padded = np.zeros((n, width))
            padded[:, :X.shape[1]] = X
            out = np.zeros((n, width))
            cols = np.flatnonzero(known)
            out[:, cols] = _scale(padded[:, cols], vmin[cols], vmax[cols], lower, upper)
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
        """fit(X, y) then transform(X, y)."""
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

    def _warn_unscaled(self, X, known):
        """svm-scale -r warns of features that vary in the data but have no range."""
        if X.shape[1] == 0 or X.shape[0] == 0:
            return
        if sp.issparse(X):
            xmin = np.asarray(X.min(axis=0).toarray()).ravel()
            xmax = np.asarray(X.max(axis=0).toarray()).ravel()
        else:
            xmin, xmax = X.min(axis=0), X.max(axis=0)
        varying = np.flatnonzero((xmin != xmax) & ~known[:X.shape[1]])
        for j in varying[:20]:
            warnings.warn(f"feature index {j + 1} varies in the data but has no scaling "
                          "range (it was constant or absent when fitted). The feature is "
                          "scaled to 0.", ScalingWarning, stacklevel=3)
        if len(varying) > 20:
            warnings.warn(f"... and {len(varying) - 20} more features without a scaling "
                          "range, scaled to 0.", ScalingWarning, stacklevel=3)

    @staticmethod
    def _transform_sparse(X, width, known, vmin, vmax, lower, upper):
        n = X.shape[0]
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(X.indptr))
        cols = X.indices.astype(np.int64)
        keep = known[cols]
        rows, cols = rows[keep], cols[keep]
        values = _scale(X.data[keep], vmin[cols], vmax[cols], lower, upper)
        nonzero = values != 0
        parts_r, parts_c, parts_v = [rows[nonzero]], [cols[nonzero]], [values[nonzero]]
        # the zero entries of X: where the zero of a feature maps to a non-zero value,
        # every row that does not store that feature gains it (svm-scale's output(i, 0))
        zero_image = _scale(np.zeros(width), vmin, vmax, lower, upper)
        filled = np.flatnonzero(known & (zero_image != 0))
        if len(filled):
            slot = np.full(width, -1, dtype=np.int64)
            slot[filled] = np.arange(len(filled))
            stored = np.zeros(n * len(filled), dtype=bool)
            in_filled = slot[cols] >= 0
            stored[rows[in_filled] * len(filled) + slot[cols[in_filled]]] = True
            free = np.flatnonzero(~stored)
            parts_r.append(free // len(filled))
            parts_c.append(filled[free % len(filled)])
            parts_v.append(zero_image[filled][free % len(filled)])
        out = sp.csr_matrix((np.concatenate(parts_v),
                             (np.concatenate(parts_r), np.concatenate(parts_c))),
                            shape=(n, width))
        out.sort_indices()
        return out

    # ---------------------------------------------------------------- range files
    def save_range(self, path):
        """Write the ranges as svm-scale's range file (what ``svm-scale -s`` writes)."""
        self._check_fitted()
        y_scaling = None
        if self.y_range is not None and self.y_min_ is not None:
            y_scaling = (self.y_range[0], self.y_range[1], self.y_min_, self.y_max_)
        write_range_file(path, self.lower, self.upper, self.feature_min_,
                         self.feature_max_, y_scaling)

    @classmethod
    def load_range(cls, path):
        """A fitted Scaler from svm-scale's range file (what ``svm-scale -r`` reads):
        lower, upper and y_range come from the file."""
        ranges = read_range_file(path)
        y = ranges.y_scaling
        scaler = cls(lower=ranges.lower, upper=ranges.upper,
                     y_range=None if y is None else (y[0], y[1]))
        _limits(scaler.lower, scaler.upper, "x")
        if y is not None:
            _limits(y[0], y[1], "y")
        size = int(ranges.index.max()) if len(ranges.index) else 0
        scaler.feature_min_ = np.zeros(size)
        scaler.feature_max_ = np.zeros(size)
        scaler.feature_min_[ranges.index - 1] = ranges.feature_min
        scaler.feature_max_[ranges.index - 1] = ranges.feature_max
        scaler.y_min_ = None if y is None else y[2]
        scaler.y_max_ = None if y is None else y[3]
        scaler.n_features_in_ = size
        return scaler
