"""The figures svm-train -v and svm-predict print, computed as LIBSVM computes them.

LIBSVM adds its sums one after another (np.cumsum adds in that order; numpy's sum and
dot add pairwise, which changes the last bits, and on nearly constant predictions the
squared correlation itself: 0 against svm-predict's -4.52105e-12 on bodyfat), divides
as C divides doubles (x / 0 is a signed infinity, 0 / 0 NaN) and prints with "%g",
where x86's 0 / 0 prints as "-nan". Light on purpose: libsmo-predict imports it.
"""
import math

import numpy as np


def sequential_sum(values):
    """The sum of `values` added one after another, from the first (0.0 when empty)."""
    values = np.asarray(values, dtype=np.float64)
    return float(np.cumsum(values)[-1]) if values.size else 0.0


def c_divide(a, b):
    """a / b as C divides doubles: x / 0 is a signed infinity, 0 / 0 (or NaN) NaN."""
    if b != 0:
        return a / b
    if a != a or a == 0:
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def printf_g(value):
    """C's printf("%g") of a double, as LIBSVM's tools print it on x86 ("-nan" for NaN,
    the sign 0 / 0 leaves)."""
    return "-nan" if value != value else f"{value:g}"


def regression_figures(y, predictions):
    """(mean squared error, squared correlation coefficient) of `predictions` against
    the targets `y`, in LIBSVM's order of operations (svm-predict, svm-train -v).

    Parameters
    ----------
    y, predictions : array-like of float, of one length

    Returns
    -------
    (float, float)
        NaN where LIBSVM divides 0 by 0 (no rows; constant predictions).
    """
    v = np.asarray(predictions, dtype=np.float64)
    t = np.asarray(y, dtype=np.float64)
    n = len(t)
    with np.errstate(all="ignore"):   # C's arithmetic: overflow to inf, no warning
        error = sequential_sum((v - t) * (v - t))
        sum_v, sum_t = sequential_sum(v), sequential_sum(t)
        sum_vv, sum_tt = sequential_sum(v * v), sequential_sum(t * t)
        sum_vt = sequential_sum(v * t)
    numerator = (n * sum_vt - sum_v * sum_t) * (n * sum_vt - sum_v * sum_t)
    denominator = (n * sum_vv - sum_v * sum_v) * (n * sum_tt - sum_t * sum_t)
    return c_divide(error, n), c_divide(numerator, denominator)
