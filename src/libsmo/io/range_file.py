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
    r"""What an svm-scale range file holds (`read_range_file`'s result).

    svm-scale writes the limits of its scaling and the range of each feature
    (``-s``) and reads them back (``-r``) to scale other data the same way.

    Parameters
    ----------
    lower, upper : float
        The x scaling limits (svm-scale's ``-l`` and ``-u``).
    y_scaling : tuple of 4 float or None
        (y_lower, y_upper, y_min, y_max): the y scaling limits and the range of y,
        when the file has a 'y' section; else None.
    index : ndarray of int64
        The 1-based feature indices the file lists, increasing.
    feature_min, feature_max : ndarray of float64
        Each listed feature's minimum and maximum.

    See Also
    --------
    read_range_file : Read a range file into a RangeFile.
    libsmo.Scaler.load_range : A fitted Scaler from a range file.

    Examples
    --------
    >>> import io
    >>> from libsmo.io import read_range_file
    >>> ranges = read_range_file(io.BytesIO(b"x\n-1 1\n1 0 1\n3 5 7.5\n"))
    >>> ranges.lower, ranges.upper, ranges.index, ranges.feature_max
    (-1.0, 1.0, array([1, 3]), array([1. , 7.5]))
    """

    lower: float
    upper: float
    y_scaling: Optional[Tuple[float, float, float, float]]
    index: np.ndarray
    feature_min: np.ndarray
    feature_max: np.ndarray


def write_range_file(f, lower, upper, feature_min, feature_max, y_scaling=None,
                     index=None):
    """Write svm-scale's range file (what ``svm-scale -s`` writes).

    The file holds an optional 'y' section (the y limits, then y's range), then
    the 'x' section: the x limits, then one line ``index min max`` for each
    feature whose minimum and maximum differ, every number in ``%.17g``.

    Parameters
    ----------
    f : str, path-like or binary file object
        Where to write; a path is written through a temporary file renamed into
        place.
    lower, upper : float
        The x scaling limits.
    feature_min, feature_max : array-like of shape (n_features,)
        The range of each feature; features with min == max are left out, as
        svm-scale leaves them out.
    y_scaling : tuple of 4 float, default=None
        (y_lower, y_upper, y_min, y_max) for a 'y' section; None writes none.
    index : array-like of int, default=None
        The 1-based feature index of each entry, increasing (None: entry j is index
        j + 1).

    See Also
    --------
    read_range_file : Read the file back.
    libsmo.Scaler.save_range : Write a fitted Scaler's ranges.

    Examples
    --------
    >>> import io
    >>> from libsmo.io import write_range_file
    >>> f = io.BytesIO()
    >>> write_range_file(f, -1.0, 1.0, [0.0, 2.0, 5.0], [1.0, 2.0, 7.5])
    >>> print(f.getvalue().decode())
    x
    -1 1
    1 0 1
    3 5 7.5
    <BLANKLINE>
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
    r"""Read svm-scale's range file (what ``svm-scale -r`` reads).

    Files svm-scale wrote and files `write_range_file` wrote read the same way; a
    line that svm-scale would misread is refused.

    Parameters
    ----------
    f : str, path-like, int or binary file object
        The range file: a path, a file descriptor or a binary file object.

    Returns
    -------
    RangeFile
        The file's numbers: lower, upper (floats), y_scaling ((y_lower, y_upper,
        y_min, y_max) or None), index (int64 array, 1-based feature indices,
        increasing), feature_min, feature_max (float64 arrays).

    Raises
    ------
    ValueError
        The file is not a range file; the message names the line.

    See Also
    --------
    write_range_file : Write a range file.
    libsmo.Scaler.load_range : A fitted Scaler from a range file.

    Examples
    --------
    >>> import io
    >>> from libsmo.io import read_range_file
    >>> f = io.BytesIO(b"y\n-1 1\n10 20\nx\n0 1\n3 0 4\n")
    >>> read_range_file(f)
    RangeFile(lower=0.0, upper=1.0, y_scaling=(-1.0, 1.0, 10.0, 20.0), index=array([3]),
              feature_min=array([0.]), feature_max=array([4.]))
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
