"""The warnings libsmo issues of its own."""
import sys


class _PlaceholderBase(UserWarning):
    """ConvergenceWarning's base until scikit-learn is imported (see
    `sklearn_compatible_warning`)."""


class ConvergenceWarning(_PlaceholderBase):
    """Warning that training stopped before the optimum (max_iter, time_limit or callback).

    `libsmo.train` and the estimators issue it when a solver stops early; the model
    is usable, and its ``status`` (the estimators' ``fit_status_``) says why.

    Once scikit-learn has been imported (before or after libsmo), this is a subclass of
    ``sklearn.exceptions.ConvergenceWarning``, so that a filter for scikit-learn's
    warning also catches libsmo's. libsmo does not import scikit-learn for it (that
    costs a second of start-up): the base is adopted when libsmo is imported, when its
    estimators are, and before each warning is issued.

    See Also
    --------
    sklearn.exceptions.ConvergenceWarning : The scikit-learn warning it subclasses.

    Examples
    --------
    >>> import warnings
    >>> from sklearn.datasets import load_iris
    >>> import libsmo
    >>> X, y = load_iris(return_X_y=True)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     model = libsmo.train(X, y, max_iter=2)
    >>> model.status
    ['max_iter', 'max_iter', 'max_iter']
    >>> {w.category.__name__ for w in caught if issubclass(w.category,
    ...                                                   libsmo.ConvergenceWarning)}
    {'ConvergenceWarning'}
    >>> from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning
    >>> issubclass(libsmo.ConvergenceWarning, SklearnConvergenceWarning)
    True
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
