"""Warm starts: a previous solution as the starting point of a new fit.

`libsmo.train(..., init=...)` takes a `Model` whose `support` indexes the new training
rows (a fit stopped by max_iter or time_limit, the fit of a neighbouring C or gamma, the
same estimator fitted before) or the dual coefficients of every training row, and each
binary problem of the new fit starts from them instead of LIBSVM's own start.

    init (Model or coefficients) --starting_point--> StartingPoint
        --pair_seed / row_seed--> a seed per binary problem (alpha in its variables)
        --make_feasible--> BinaryProblem.start

A seed is rarely feasible for the new problem as it is: C may have shrunk, weights
changed, a nu-SVC model's coefficients are scaled by 1/r. `make_feasible` clips it to the
new bounds 0 <= a_t <= C_t and restores the problem's equality constraint(s): y'a = 0
for C-SVC and epsilon-SVR (by the free variables where they can carry the difference,
the bound ones left on their bounds; else the heavier side scaled down to the
lighter), sum(a) = nu sum(w) for one-class and one fixed sum per sign of y for the nu
variants (scaled to that sum, clipped, and what clipping removed spread over the
remaining room). A seed
that is already feasible (a resumed fit) is left exactly as it is, so a resumed fit
goes on from the very point where it stopped.
"""
from dataclasses import dataclass
from typing import Optional

import numpy as np

from libsmo._utils.names import CLASSIFICATION_TYPES, REGRESSION_TYPES
from libsmo.model._model import Model

# Relative mismatch of a sum below which a seed counts as feasible already: the solver
# keeps y'a = Delta to within rounding, and rescaling a feasible point by 1 - 1e-16
# would move its bound variables off their bounds.
FEASIBLE_RTOL = 1e-12


@dataclass(frozen=True)
class StartingPoint:
    """The dual coefficients of every training row, in LIBSVM's layout.

    Attributes
    ----------
    coef : ndarray of shape (max(k - 1, 1), n)
        Row by row what a model's `sv_coef` holds for its support vectors (zero for the
        other rows): y_i a_i per one-vs-one pair for classification, a_i - a*_i for the
        regressions, a_i for one-class.
    classes : ndarray or None
        The class labels of `coef`'s one-vs-one layout; None means the order in which
        the new fit will find them (LIBSVM's order of the training labels).
    """
    coef: np.ndarray
    classes: Optional[np.ndarray] = None

    def pair_seed(self, classes, a, b, rows_a, rows_b):
        """The seed of one-vs-one pair (a, b) of the fit's `classes`: |coef| of rows_a
        then rows_b, or None when `coef` does not know both classes."""
        if self.classes is None:
            if self.coef.shape[0] != max(len(classes) - 1, 1):
                raise ValueError(f"init has {self.coef.shape[0]} rows of coefficients, but "
                                 f"y has {len(classes)} classes: it needs "
                                 f"{max(len(classes) - 1, 1)}")
            ia, ib = a, b
        else:
            known = {np.asarray(c).item(): i for i, c in enumerate(self.classes)}
            ia = known.get(np.asarray(classes[a]).item())
            ib = known.get(np.asarray(classes[b]).item())
            if ia is None or ib is None or max(ia, ib) > self.coef.shape[0]:
                return None
        line_a = ib - 1 if ib > ia else ib
        line_b = ia - 1 if ia > ib else ia
        return np.abs(np.concatenate([self.coef[line_a, rows_a], self.coef[line_b, rows_b]]))

    def row_seed(self, rows):
        """The coefficients of `rows` (one-class, regression)."""
        return self.coef[0, rows]


def starting_point(init, n_rows, svm_type):
    """Check `init` (train's parameter) against the new fit and read its coefficients.

    Parameters
    ----------
    init : Model, array-like or None
        A Model whose `support` indexes the new training rows, or the dual coefficients
        of every training row: shape (n,) (two classes, one-class, regression) or
        (k - 1, n) in LIBSVM's one-vs-one layout.
    n_rows : int
        Training rows of the new fit.
    svm_type : str

    Returns
    -------
    StartingPoint or None

    Raises
    ------
    TypeError, ValueError
        `init` is of another kind of model, or does not fit the rows.
    """
    if init is None:
        return None
    if isinstance(init, Model):
        return _from_model(init, n_rows, svm_type)
    try:
        coef = np.array(init, dtype=np.float64, ndmin=1)
    except (TypeError, ValueError):
        raise TypeError("init must be a libsmo Model or an array of dual coefficients, "
                        f"got {type(init).__name__}") from None
    if coef.ndim == 1:
        coef = coef[None, :]
    if coef.ndim != 2 or coef.shape[1] != n_rows:
        raise ValueError(f"init must hold one dual coefficient per training row ({n_rows}):"
                         f" shape ({n_rows},) or (n_classes - 1, {n_rows}); got shape "
                         f"{np.shape(init)}")
    if not np.isfinite(coef).all():
        raise ValueError("init holds inf or NaN coefficients")
    _check_sums(coef, "init's coefficients")
    return StartingPoint(coef=coef)


def _check_sums(coef, name):
    """Coefficients whose sums stay finite: the start's constraint sums, and the
    solver's kernel sums over them, are taken in doubles."""
    with np.errstate(over="ignore"):
        total = np.abs(coef).sum(axis=1)
    if not np.isfinite(total).all():
        raise ValueError(f"{name} are too large: their sum overflows (the largest is "
                         f"{float(np.max(np.abs(coef))):.3g}); start from coefficients of "
                         "a solution's size (or none)")


def _family(svm_type):
    if svm_type in CLASSIFICATION_TYPES:
        return "classification"
    return "regression" if svm_type in REGRESSION_TYPES else "one-class"


def _from_model(model, n_rows, svm_type):
    # the checks prediction applies to a field assigned after construction (a support
    # of floats, an sv_coef of the wrong shape): ValueError or TypeError naming the
    # field, before anything below indexes with it
    model.check_fields()
    if _family(model.svm_type) != _family(svm_type):
        raise ValueError(f"init is a {model.svm_type} model; a {svm_type} fit can start "
                         f"only from a {_family(svm_type)} model")
    if model.support is None:
        raise ValueError("init has no training indices (`support` is None, as in a model "
                         "read from a file): it cannot say which rows its coefficients "
                         "belong to")
    support = model.support
    if len(support) != model.sv_coef.shape[1]:
        raise ValueError(f"init's support ({len(support)} rows) does not match its "
                         f"sv_coef ({model.sv_coef.shape[1]} columns)")
    if len(support) and (support.min() < 0 or support.max() >= n_rows):
        raise ValueError(f"init's support indexes rows up to {support.max()}, but the "
                         f"training data has {n_rows} rows: init must be a model of "
                         "these rows")
    if not np.isfinite(model.sv_coef).all():
        raise ValueError("init's sv_coef holds inf or NaN")
    _check_sums(model.sv_coef, "init's sv_coef")
    coef = np.zeros((model.sv_coef.shape[0], n_rows))
    coef[:, support] = model.sv_coef
    classes = model.classes if svm_type in CLASSIFICATION_TYPES else None
    return StartingPoint(coef=coef, classes=classes)


# ------------------------------------------------------------- feasibility

def greedy_fill(total, upper):
    """Starting point: alpha_k = min(upper_k, what is left of total), in order.

    LIBSVM starts nu-SVC, one-class and nu-SVR this way; it meets sum(alpha) = total
    whenever sum(upper) >= total.
    """
    alpha = np.zeros(len(upper))
    for k, c in enumerate(upper):
        if total <= 0:
            break
        alpha[k] = min(c, total)
        total -= alpha[k]
    return alpha


def _set_sum(alpha, upper_bound, target):
    """alpha (within its bounds) moved to sum(alpha) = target: scaled down when above,
    raised in proportion to each variable's room when below (never past a bound)."""
    total = alpha.sum()
    if abs(total - target) <= FEASIBLE_RTOL * max(abs(target), abs(total), 1e-300):
        return alpha
    if total > target:
        return alpha * (target / total)
    room = upper_bound - alpha
    available = room.sum()
    if available <= 0:
        return alpha
    return np.minimum(alpha + room * min(1.0, (target - total) / available), upper_bound)


def _balance_by_free(alpha, upper_bound, positive):
    """alpha (within its bounds) moved onto y'a = 0 by its free variables (0 < a_t <
    C_t) alone, or None where they cannot carry the difference: the heavier side's free
    variables lowered in proportion (at most to 0), then the lighter side's raised in
    proportion to their room (at most to C). The variables at a bound stay there: a
    seed near an optimum keeps them, where scaling a side sets free every variable at C
    (which SMO then puts back a pair of steps at a time, each far on the wrong side of
    its margin)."""
    free = (alpha > 0) & (alpha < upper_bound)
    up, down = alpha[positive].sum(), alpha[~positive].sum()
    heavy = positive if up > down else ~positive
    excess = abs(up - down)
    if excess <= FEASIBLE_RTOL * max(up, down, 1e-300):
        return alpha
    alpha = alpha.copy()
    lower = free & heavy
    held = alpha[lower].sum()
    cut = min(excess, held)
    if cut > 0:
        alpha[lower] *= 1.0 - cut / held
    rest = excess - cut
    raise_ = free & ~heavy
    room = (upper_bound - alpha)[raise_].sum()
    if rest > 0 and room > 0:
        added = min(rest, room)
        alpha[raise_] = np.minimum(
            alpha[raise_] + (upper_bound - alpha)[raise_] * (added / room),
            upper_bound[raise_])
        rest -= added
    if rest > FEASIBLE_RTOL * max(up, down, 1e-300):
        return None
    return alpha


def make_feasible(seed, signs, upper_bound, *, total=None, nu=False):
    """A starting point for LIBSVM's dual from a seed that may not be feasible.

    Parameters
    ----------
    seed : ndarray of shape (l,)
        Proposed alpha (any real values).
    signs : ndarray of shape (l,)
        y_t in {+1, -1}.
    upper_bound : ndarray of shape (l,)
        C_t.
    total : float or None
        The fixed sum of the problem's start: sum(a) for one-class, each sign group's
        sum with `nu`; None for the problems started at zero (C-SVC, epsilon-SVR), whose
        constraint is y'a = 0.
    nu : bool
        One constraint per sign of y (nu-SVC, nu-SVR), each group summing to `total`.

    Returns
    -------
    ndarray of shape (l,)
        0 <= a_t <= C_t, with y'a = 0 (total None), sum(a) = total, or each sign
        group's sum = total (nu). A feasible seed comes back unchanged.
    """
    alpha = np.asarray(seed, dtype=np.float64)
    alpha = np.where(np.isfinite(alpha), alpha, 0.0)
    if total is None:
        alpha = np.clip(alpha, 0.0, upper_bound)
        positive = signs > 0
        balanced = _balance_by_free(alpha, upper_bound, positive)
        if balanced is not None:
            return balanced
        up, down = alpha[positive].sum(), alpha[~positive].sum()
        # the heavier side scaled down to the lighter one: always possible
        target = min(up, down)
        alpha[positive] = _set_sum(alpha[positive], upper_bound[positive], target)
        alpha[~positive] = _set_sum(alpha[~positive], upper_bound[~positive], target)
        return alpha
    groups = [signs > 0, signs < 0] if nu else [np.ones(len(alpha), dtype=bool)]
    alpha = alpha.copy()
    for group in groups:
        a, c = np.maximum(alpha[group], 0.0), upper_bound[group]
        s = a.sum()
        if s > 0 and abs(s - total) > FEASIBLE_RTOL * max(total, s):
            # a nu-SVC model's coefficients are scaled by 1/r: scaled back, a value
            # that was at a bound comes back within rounding of it, and is put there
            a = _snap_to_bounds(a * (total / s), c)
        alpha[group] = _set_sum(np.minimum(a, c), c, total)
    return alpha


def _snap_to_bounds(alpha, upper_bound):
    """Values within FEASIBLE_RTOL of 0 or of their bound, put on it (a variable a hair
    below its bound would count as free in the solver)."""
    near = FEASIBLE_RTOL * upper_bound
    alpha = np.where(np.abs(alpha - upper_bound) <= near, upper_bound, alpha)
    return np.where(alpha <= near, 0.0, alpha)


def regression_seed(coef, upper_bound, total=None):
    """The 2l variables (a, a*) of a regression from coefficients a - a* per row.

    Parameters
    ----------
    coef : ndarray of shape (l,)
    upper_bound : ndarray of shape (l,)
        C_t of a_t and of a*_t.
    total : float or None
        nu-SVR's sum of a and of a*; None for epsilon-SVR.

    Returns
    -------
    ndarray of shape (2 l,)
        epsilon-SVR: a = max(coef, 0), a* = max(-coef, 0), the cheapest split (the
        objective grows with epsilon sum(a + a*)). nu-SVR: the same plus a common shift
        s_t on both, so that each sums to `total`: a - a*, and with it nu-SVR's
        objective, stays what the seed says, where splitting without the shift and
        then rescaling each sign would lose it. The shift fills rows in order, as
        LIBSVM's start (a = a* = C on the first rows), so that a stopped fit resumes
        with its variables at the bounds where they were.
    """
    d = np.clip(np.where(np.isfinite(coef), coef, 0.0), -upper_bound, upper_bound)
    up, down = np.maximum(d, 0.0), np.maximum(-d, 0.0)
    if total is None:
        return np.concatenate([up, down])
    # sum(a) = sum(a*) needs sum(d) = 0 and room for the shift: the heavier side is
    # scaled to the lighter, and both to at most `total`
    target = min(up.sum(), down.sum(), total)
    up = _set_sum(up, upper_bound, target)
    down = _set_sum(down, upper_bound, target)
    shift = greedy_fill(total - target, upper_bound - np.maximum(up, down))
    return np.concatenate([up + shift, down + shift])
