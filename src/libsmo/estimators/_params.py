"""The estimators' parameters, declared as scikit-learn declares its own
(`_parameter_constraints`: one list of acceptable forms per constructor parameter) and
checked at fit, never in `__init__` (scikit-learn's convention: `clone` and
`set_params` store values as given).

The forms reuse libsmo's constraint objects (`libsmo._utils.constraints`) and the tables
of `libsmo.training._params`, so that a value the estimators accept is one `TrainParams` accepts
too; what only the estimators know (gamma="scale", callable kernels, max_iter=-1,
class_weight="balanced", decision_function_shape) is declared here. A refused value
raises scikit-learn's `InvalidParameterError` (a ValueError and a TypeError), naming
the parameter, the estimator and the value.
"""
import numbers

import numpy as np

from libsmo._utils import constraints as pv
from libsmo._utils.names import KERNELS
from libsmo.estimators._sklearn_compat import InvalidParameterError, sklearn_refusal
from libsmo.training._params import FORMULATION_CONSTRAINTS as FORMULATION
from libsmo.training._params import KERNEL_CONSTRAINTS as KERNEL
from libsmo.training._params import SOLVER_CONSTRAINTS as SOLVER


class AnyOf:
    """The first of several forms that accepts the value (scikit-learn's list of
    constraints); the message lists what each form said."""
    __slots__ = ("forms",)

    def __init__(self, *forms):
        self.forms = forms

    def check(self, value, name):
        reasons = []
        for form in self.forms:
            try:
                return form.check(value, name)
            except (TypeError, ValueError) as exc:
                reasons.append(str(exc))
        raise ValueError("; or ".join(reasons))


class Exactly:
    """One particular value (max_iter=-1: no limit)."""
    __slots__ = ("value", "meaning")

    def __init__(self, value, meaning):
        self.value, self.meaning = value, meaning

    def check(self, value, name):
        same_kind = (isinstance(value, numbers.Integral) if isinstance(self.value, int)
                     else isinstance(value, type(self.value)))
        if same_kind and not isinstance(value, (bool, np.bool_)) and value == self.value:
            return self.value
        raise ValueError(f"{name} must be {self.value!r} ({self.meaning}), got {value!r}")


class Callable(pv.IsCallable):
    """A callable (a kernel function k(X, Y) returning the Gram matrix)."""


# what the five estimators share, in scikit-learn's BaseLibSVM order
COMMON = {
    "kernel": AnyOf(pv.OneOf(KERNELS), Callable()),
    "degree": KERNEL["degree"],
    "gamma": AnyOf(pv.OneOf(("scale", "auto")), pv.Positive(allow_zero=True)),
    "coef0": KERNEL["coef0"],
    "tol": SOLVER["tol"],
    "shrinking": SOLVER["shrinking"],
    "cache_size": SOLVER["cache_size"],
    "verbose": SOLVER["verbose"],
    "max_iter": AnyOf(Exactly(-1, "no limit"), pv.Positive(integer=True)),
    # libsmo's own: start from the previous fit; one-vs-one pairs as joblib tasks
    "warm_start": pv.Boolean(),
    "n_jobs": SOLVER["n_jobs"],
}

CLASSIFIER = {
    # scikit-learn 1.9's default "deprecated" means False, as there
    "probability": AnyOf(FORMULATION["probability"],
                         Exactly("deprecated", "scikit-learn's default, meaning False")),
    "class_weight": AnyOf(pv.OneOf(("balanced",)), FORMULATION["class_weight"]),
    "decision_function_shape": pv.OneOf(("ovr", "ovo")),
    "break_ties": pv.Boolean(),
    "random_state": pv.Seed(legacy=True),
}

C = {"C": FORMULATION["C"]}
NU = {"nu": FORMULATION["nu"]}
EPSILON = {"epsilon": FORMULATION["epsilon"]}
LINEAR_SOLVER = {"linear_solver": SOLVER["linear_solver"]}
# SVC's: C-SVC's binary problems by the partitioned solver (`libsmo.train`'s solver=)
PARTITIONED = {"solver": SOLVER["solver"], "partitions": SOLVER["partitions"],
               "partitioning": SOLVER["partitioning"]}


def validate_parameters(estimator):
    """Check every constructor parameter of `estimator` against its class's
    `_parameter_constraints`.

    Parameters
    ----------
    estimator : one of libsmo's estimators

    Returns
    -------
    dict
        name -> the value as the constraint normalises it (floats as float, ...).

    Raises
    ------
    InvalidParameterError
        The first parameter whose value no form accepts.
    """
    name = type(estimator).__name__
    checked = {}
    for param, constraint in estimator._parameter_constraints.items():
        value = getattr(estimator, param)
        try:
            checked[param] = constraint.check(value, param)
        except (TypeError, ValueError) as exc:
            # scikit-learn's own words where its estimator refuses the value too, so
            # that code matching its messages keeps working
            theirs = sklearn_refusal(name, param, value)
            if theirs is not None:
                raise theirs from None
            raise InvalidParameterError(
                f"The {param!r} parameter of {name} is invalid: {exc}") from None
    return checked
