"""warm_start=True for the five estimators: the previous fit's solution as the next
fit's starting point (`libsmo.train`'s `init`), as scikit-learn's warm_start reuses a
previous solution.

An estimator's model speaks of the caller's rows (`support_`), while a classifier
trains on its rows in another order (the first example of each class first, see
`_BaseClassifier.fit`): `warm_init` maps the one onto the other. A new fit can start
from the previous one only if it has the same rows (and, for a classifier, the same
classes): anything else is a ValueError, not a silent cold start.
"""
from dataclasses import dataclass
from typing import Optional

import numpy as np

from libsmo.model._model import Model


@dataclass(frozen=True)
class PreviousFit:
    """What a warm start needs from the previous fit.

    Attributes
    ----------
    model : Model
        Its `support` indexes the caller's training rows.
    n_rows : int
        Training rows of that fit.
    classes : ndarray or None
        A classifier's `classes_`.
    """
    model: Model
    n_rows: int
    classes: Optional[np.ndarray]


def previous_fit(estimator):
    """The estimator's previous fit when warm_start is on and it has one whose rows are
    known (a model loaded with `from_model` has none); else None.

    Returns
    -------
    PreviousFit or None
    """
    model = getattr(estimator, "_model", None)
    if not getattr(estimator, "warm_start", False) or model is None or model.support is None:
        return None
    return PreviousFit(model=model, n_rows=estimator.shape_fit_[0],
                       classes=getattr(estimator, "classes_", None))


def warm_init(previous, n_rows, order=None, classes=None):
    """train's `init` for the new fit.

    Parameters
    ----------
    previous : PreviousFit or None
    n_rows : int
        Rows of the new fit.
    order : ndarray of int or None
        The classifier's training order: its row k is the caller's row order[k].
    classes : ndarray or None
        The classifier's new `classes_`.

    Returns
    -------
    Model or None

    Raises
    ------
    ValueError
        The new fit's rows or classes are not those of the previous fit.
    """
    if previous is None:
        return None
    if previous.n_rows != n_rows:
        raise ValueError(f"warm_start=True continues from the previous fit, which had "
                         f"{previous.n_rows} training rows; this fit has {n_rows}. Fit "
                         "the same rows, or set warm_start=False")
    if classes is not None and not np.array_equal(previous.classes, classes):
        raise ValueError(f"warm_start=True continues from the previous fit, whose classes "
                         f"were {previous.classes.tolist()}; these are {classes.tolist()}")
    model = previous.model
    if order is None:
        return model
    position = np.empty(n_rows, dtype=np.int64)
    position[order] = np.arange(n_rows)
    return model.replace(support=position[model.support])
