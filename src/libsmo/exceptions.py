"""The warnings libsmo issues of its own."""
import sys


class _PlaceholderBase(UserWarning):
    """ConvergenceWarning's base until scikit-learn is imported (see
    `sklearn_compatible_warning`)."""


class ConvergenceWarning(_PlaceholderBase):
    """Training stopped before the optimum (max_iter, time_limit or the callback).

    Once scikit-learn has been imported (before or after libsmo), this is a subclass of
    ``sklearn.exceptions.ConvergenceWarning``, so that a filter for scikit-learn's
    warning also catches libsmo's. libsmo does not import scikit-learn for it (that
    costs a second of start-up): the base is adopted when libsmo is imported, when its
    estimators are, and before each warning is issued.
    """


def sklearn_compatible_warning():
    """`ConvergenceWarning`, made a subclass of scikit-learn's ConvergenceWarning if
    scikit-learn's exceptions have been imported.

    Returns
    -------
    type
        `ConvergenceWarning` itself (one class for the whole library).
    """
    sklearn_exceptions = sys.modules.get("sklearn.exceptions")
    base = getattr(sklearn_exceptions, "ConvergenceWarning", None)
    if base is not None and ConvergenceWarning.__bases__ == (_PlaceholderBase,):
        # the placeholder and scikit-learn's class are both plain Python subclasses of
        # UserWarning, so the exchange of bases is allowed
        ConvergenceWarning.__bases__ = (base,)
    return ConvergenceWarning


sklearn_compatible_warning()
