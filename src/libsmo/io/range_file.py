"""svm-scale's range files: the text svm-scale writes with ``-s`` and reads with ``-r``
(see `libsmo.scaling.Scaler`).
"""
import math
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from libsmo._utils.names import INT_MAX
from libsmo.io._text import FLOAT_RE, INT_RE, fail_at_line
from libsmo.io.atomic import write_atomically
from libsmo.io.sources import _read_all

__all__ = ["RangeFile", "read_range_file", "write_range_file"]


@dataclass(frozen=True)
class RangeFile:
    """What a range file holds (`read_range_file`'s result).

    Attributes
    ----------
    lower, upper : float
        The x scaling limits.
    y_scaling : (y_lower, y_upper, y_min, y_max) or None
        The y scaling limits and the range of y, when the file has a 'y' section.
    index : ndarray of int64
        The 1-based feature indices the file lists, increasing.
    feature_min, feature_max : ndarray of float64
        Each listed feature's minimum and maximum.
    """

    lower: float
    upper: float
    y_scaling: Optional[Tuple[float, float, float, float]]
    index: np.ndarray
    feature_min: np.ndarray
    feature_max: np.ndarray


def write_range_file(f, lower, upper, feature_min, feature_max, y_scaling=None,
                     index=None):
    """Write svm-scale's range file (``svm-scale -s``).

    Parameters
    ----------
    f : str, path-like or binary file object
    lower, upper : float
        The x scaling limits.
    feature_min, feature_max : array of shape (n_features,)
        Per feature; features with min == max are left out, as svm-scale leaves them
        out.
    y_scaling : (y_lower, y_upper, y_min, y_max) or None
    index : array of int, optional
        The 1-based feature index of each entry, increasing (default: entry j is index
        j + 1).
    """
    lines = []
    if y_scaling is not None:
        y_lower, y_upper, y_min, y_max = y_scaling
        lines += ["y", "%.17g %.17g" % (y_lower, y_upper), "%.17g %.17g" % (y_min, y_max)]
    lines += ["x", "%.17g %.17g" % (lower, upper)]
    feature_min = np.asarray(feature_min, dtype=np.float64)
    feature_max = np.asarray(feature_max, dtype=np.float64)
    index = (np.arange(1, len(feature_min) + 1) if index is None
             else np.asarray(index, dtype=np.int64))
    for j in np.flatnonzero(feature_min != feature_max):
        lines.append("%d %.17g %.17g" % (index[j], feature_min[j], feature_max[j]))
    write_atomically(f, ("\n".join(lines) + "\n").encode("ascii"))


def read_range_file(f):
    """Read svm-scale's range file (``svm-scale -r``).

    Parameters
    ----------
    f : str, path-like, int or binary file object

    Returns
    -------
    RangeFile
        lower, upper (floats), y_scaling ((y_lower, y_upper, y_min, y_max) or None),
        index (int64 array, 1-based feature indices, increasing), feature_min,
        feature_max (float64 arrays).

    Raises
    ------
    ValueError
        The file is not a range file; the message names the line.
    """
    raw, name = _read_all(f)
    lines = [(n + 1, line) for n, line in enumerate(raw.split(b"\n"))]
    lines = [(n, line.split(), line) for n, line in lines if line.strip()]

    def fail(n, line, reason):
        fail_at_line(name, n, line, reason)

    def numbers(item, count, what):
        n, tokens, line = item
        if len(tokens) != count or not all(FLOAT_RE.match(t) for t in tokens):
            fail(n, line, f"expected {what}")
        values = [float(t) for t in tokens]
        if not all(math.isfinite(v) for v in values):
            fail(n, line, f"{what} must be finite")
        return values

    pos = 0
    y_scaling = None
    if not lines:
        raise ValueError(f"{name}: empty range file (expected 'x' and the limits)")
    if lines[0][1] == [b"y"]:
        if len(lines) < 3:
            raise ValueError(f"{name}: the 'y' section needs two lines of numbers")
        y_scaling = tuple(numbers(lines[1], 2, "y_lower y_upper")
                          + numbers(lines[2], 2, "y_min y_max"))
        pos = 3
    if pos >= len(lines) or lines[pos][1] != [b"x"]:
        n, _, line = lines[pos] if pos < len(lines) else (len(raw.split(b"\n")), [], b"")
        fail(n, line, "expected the line 'x'")
    if pos + 1 >= len(lines):
        raise ValueError(f"{name}: the 'x' line must be followed by 'lower upper'")
    lower, upper = numbers(lines[pos + 1], 2, "lower upper")
    index, fmin, fmax = [], [], []
    previous = 0
    for item in lines[pos + 2:]:
        n, tokens, line = item
        if len(tokens) != 3 or not INT_RE.match(tokens[0]):
            fail(n, line, "expected 'index min max'")
        idx = int(tokens[0])
        if idx <= previous or idx > INT_MAX:
            fail(n, line, "feature indices must be >= 1 and increasing")
        low, high = numbers((n, tokens[1:], line), 2, "min max")
        index.append(idx)
        fmin.append(low)
        fmax.append(high)
        previous = idx
    return RangeFile(lower=lower, upper=upper, y_scaling=y_scaling,
                     index=np.array(index, dtype=np.int64),
                     feature_min=np.array(fmin, dtype=np.float64),
                     feature_max=np.array(fmax, dtype=np.float64))
