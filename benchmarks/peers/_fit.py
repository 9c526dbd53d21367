"""What every peer trains with, and the answer of one fit in one typed form."""
import dataclasses
from importlib import metadata
from typing import Callable, Optional

import numpy as np

# LIBSVM's -e 0.001 -m 100 -h 1: the tolerance, kernel cache (MB) and shrinking of
# every library's fit
TOL = 1e-3
CACHE_MB = 100


@dataclasses.dataclass(frozen=True)
class Fit:
    """One trained model, in the terms the benchmarks compare.

    Attributes
    ----------
    predict : callable
        predict(Xt) -> labels (or regression values) of the rows of Xt.
    support : ndarray of int
        0-based indices of the support vectors in the training rows.
    dual_coef : ndarray of shape (n_classes - 1, n_SV)
        y_i alpha_i in LIBSVM's one-vs-one layout (SVR: alpha_i - alpha_i*), the support
        vectors grouped by class in the library's class order.
    n_support : ndarray of int or None
        Support vectors per class, in that order (None for regression).
    rho : ndarray
        The pairs' offsets (decision value f(x) = sum coef K - rho).
    n_iter : int or None
        Solver steps summed over the binary problems (None: not reported).
    kernel_evaluations : int or None
        Kernel values computed in training (libsmo; None elsewhere).
    reported_objective : float or None
        The objective the library itself reports (libsmo's model, LIBSVM's "obj ="
        lines); the benchmarks compare `benchmarks.objective.dual_objective` of the
        coefficients instead, computed the same way for every library.
    """
    predict: Callable
    support: np.ndarray
    dual_coef: np.ndarray
    n_support: Optional[np.ndarray]
    rho: np.ndarray
    n_iter: Optional[int] = None
    kernel_evaluations: Optional[int] = None
    reported_objective: Optional[float] = None

    @property
    def n_sv(self):
        """Total number of support vectors."""
        return int(len(self.support))


def dist_version(dist):
    """The installed version of a distribution, or None."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None
