"""Declarative constraints on scalar parameters, in the spirit of scikit-learn's
`_parameter_constraints`: a table maps each parameter to a constraint object, and one
function checks a set of values against the table, returning them normalised (floats as
float, integers as int).

Every message names the parameter and the value: "C must be finite and > 0, got 0",
"kernel must be one of 'linear', ...; got 'gauss'", "degree must be an integer, got 2.5
(float)". Wrong types raise TypeError, wrong values ValueError.
"""
import math
import numbers
import os

import numpy as np

from libsmo._utils.names import INT_MAX
from libsmo._utils.random_sources import LibsvmRandom, SklearnRandom

# ---------------------------------------------------------------------------- primitives

def check_positive(value, name, *, integer=False, allow_zero=False, allow_inf=False):
    """A finite number > 0 (>= 0 with allow_zero; +inf too with allow_inf); ints only
    with integer=True, and then at most 2**31 - 1.

    Returns
    -------
    float or int
    """
    kind = numbers.Integral if integer else numbers.Real
    # the exact builtin types first: an ABC isinstance costs more than the rest
    exact = type(value) is int or (type(value) is float and not integer)
    if not exact and (isinstance(value, (bool, np.bool_)) or not isinstance(value, kind)):
        what = "an integer" if integer else "a number"
        raise TypeError(f"{name} must be {what}, got {value!r} ({type(value).__name__})")
    try:
        # float() first: comparing a numpy float32 with 1e308 casts 1e308 to float32
        as_float = float(value)
    except OverflowError:  # an int beyond the doubles
        as_float = math.inf
    finite = math.isfinite(as_float) or (allow_inf and as_float == math.inf)
    if not finite or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        what = f"{bound} (inf allowed)" if allow_inf else f"finite and {bound}"
        raise ValueError(f"{name} must be {what}, got {value!r}")
    if integer and value > INT_MAX:
        raise ValueError(f"{name} must be at most {INT_MAX}, got {value!r}")
    return int(value) if integer else as_float


def check_real(value, name):
    """A finite real number, as float."""
    if type(value) is not float and (isinstance(value, (bool, np.bool_))
                                     or not isinstance(value, numbers.Real)):
        raise TypeError(f"{name} must be a number, got {value!r} ({type(value).__name__})")
    try:
        as_float = float(value)
    except OverflowError:  # an int beyond the doubles
        as_float = math.inf
    if not math.isfinite(as_float):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return as_float


def check_choice(value, name, choices):
    """One of a fixed set of strings (TypeError for a value that is not a string)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {', '.join(map(repr, choices))}; got "
                        f"{value!r} ({type(value).__name__})")
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


# --------------------------------------------------------------------------- constraints
# Plain classes rather than dataclasses: they are made at import time, where each
# dataclass costs a millisecond (the commands' start-up counts).

class _Constraint:
    """A constraint: `check(value, name)` returns the value normalised or raises."""
    __slots__ = ()

    def __repr__(self):
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"{type(self).__name__}({fields})"

class Positive(_Constraint):
    """A finite number > 0 (>= 0 with allow_zero; +inf too with allow_inf), an int with
    integer=True, at most `maximum` when given."""
    __slots__ = ("integer", "allow_zero", "maximum", "allow_inf")

    def __init__(self, integer=False, allow_zero=False, maximum=None, allow_inf=False):
        self.integer, self.allow_zero, self.maximum = integer, allow_zero, maximum
        self.allow_inf = allow_inf

    def check(self, value, name):
        value = check_positive(value, name, integer=self.integer, allow_zero=self.allow_zero,
                               allow_inf=self.allow_inf)
        if self.maximum is not None and value > self.maximum:
            low = "[0" if self.allow_zero else "(0"
            raise ValueError(f"{name} must be in {low}, {self.maximum:g}], got {value!r}")
        return value


class CacheSize(_Constraint):
    """The kernel cache: a number of megabytes (finite and > 0), or "auto" (sized for
    the problem within a share of the available memory: `libsmo._utils.cache_budget`)."""

    def check(self, value, name):
        if isinstance(value, str):
            if value == "auto":
                return value
            raise TypeError(f"{name} must be 'auto' or a number of megabytes > 0, "
                            f"got {value!r} (str)")
        return check_positive(value, name)


class Finite(_Constraint):
    """Any finite real number."""

    def check(self, value, name):
        return check_real(value, name)


class OneOf(_Constraint):
    """One of a fixed set of strings."""
    __slots__ = ("choices",)

    def __init__(self, choices):
        self.choices = tuple(choices)

    def check(self, value, name):
        return check_choice(value, name, self.choices)


class Boolean(_Constraint):
    """True or False (numpy's bool too), nothing else."""

    def check(self, value, name):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {value!r}")
        return bool(value)


class Truthy(_Constraint):
    """Anything, read as a bool (flags such as verbose)."""

    def check(self, value, name):
        return bool(value)


class IsCallable(_Constraint):
    """A callable."""

    def check(self, value, name):
        if not callable(value):
            raise TypeError(f"{name} must be callable, got {value!r}")
        return value


class InstanceOf(_Constraint):
    """An instance of one class (a typed parameter object)."""
    __slots__ = ("cls",)

    def __init__(self, cls):
        self.cls = cls

    def check(self, value, name):
        if not isinstance(value, self.cls):
            raise TypeError(f"{name} must be a {self.cls.__name__}, got {value!r}")
        return value


class Seed(_Constraint):
    """None, an int >= 0, a numpy Generator or a `LibsvmRandom` (LIBSVM's own rand());
    with legacy=True also a numpy RandomState (scikit-learn's forms). Checked only:
    nothing is drawn here (see `libsmo._utils.validation.check_random_state`)."""
    __slots__ = ("legacy",)

    def __init__(self, legacy=False):
        self.legacy = legacy

    def check(self, value, name):
        # LibsvmRandom first: the commands' seeds then never import numpy.random
        if (value is None or isinstance(value, (LibsvmRandom, SklearnRandom))
                or isinstance(value, np.random.Generator)):
            return value
        if self.legacy and isinstance(value, np.random.RandomState):
            return value
        if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
            if value < 0:
                raise ValueError(f"{name} must be >= 0, got {value!r}")
            return int(value)
        forms = ("an int >= 0, a numpy Generator or RandomState, a LibsvmRandom"
                 if self.legacy else "an int >= 0, a numpy Generator or a LibsvmRandom")
        raise TypeError(f"{name} must be None, {forms}; got {value!r}")


class ClassWeights(_Constraint):
    """None, or a dict label -> weight with every weight finite and > 0 (>= 0 with
    allow_zero: LinearSVC's, whose rows of a class weighted 0 leave its problem)."""

    def __init__(self, allow_zero=False):
        self.allow_zero = allow_zero

    def check(self, value, name):
        if value is None:
            return None
        if not isinstance(value, dict):
            raise TypeError(f"{name} must be a dict label -> weight, got "
                            f"{type(value).__name__}")
        return {label: check_positive(w, f"{name}[{label!r}]", allow_zero=self.allow_zero)
                for label, w in value.items()}


def usable_cores():
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class Threads(_Constraint):
    """None (every usable core) or an int >= 1, clamped to the usable cores.

    More threads than cores only wait for one another, and each OpenMP thread costs
    memory of its own: 100,000 threads crashed the runtime, 2**31 - 1 made it ask for
    480 GB. The number is a ceiling, not a demand, so clamping changes no result.
    """

    def check(self, value, name):
        cores = usable_cores()
        if value is None:
            return cores
        return min(check_positive(value, name, integer=True), cores)


class Jobs(_Constraint):
    """joblib's n_jobs: a non-zero int (-1 every core, -2 all but one, ...)."""

    def check(self, value, name):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name} must be an integer, got {value!r} "
                            f"({type(value).__name__})")
        if value == 0 or abs(value) > INT_MAX:
            raise ValueError(f"{name} must be a non-zero integer (-1: every core) of at "
                             f"most {INT_MAX} in size, got {value!r}")
        return int(value)


class OrAuto(_Constraint):
    """The string "auto" (a value the fit chooses), or what `inner` accepts."""
    __slots__ = ("inner",)

    def __init__(self, inner):
        self.inner = inner

    def check(self, value, name):
        if isinstance(value, str):
            if value != "auto":
                raise ValueError(f"{name} must be 'auto' or a number, got {value!r}")
            return value
        return self.inner.check(value, name)


class StepCap(_Constraint):
    """A cap on solver steps: an int > 0, or -1 for no limit (scikit-learn's
    max_iter=-1)."""
    __slots__ = ()

    def check(self, value, name):
        if (isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
                and value == -1):
            return -1
        return check_positive(value, name, integer=True)


class OrNone(_Constraint):
    """None, or what `inner` accepts."""
    __slots__ = ("inner",)

    def __init__(self, inner):
        self.inner = inner

    def check(self, value, name):
        return None if value is None else self.inner.check(value, name)


def validate(values, constraints):
    """Check `values` (name -> value) against `constraints` (name -> constraint), in the
    table's order.

    Parameters
    ----------
    values : dict
        Must hold exactly the names of the table.
    constraints : dict
        Name -> an object with ``check(value, name)``.

    Returns
    -------
    dict
        The values, normalised by their constraints.

    Raises
    ------
    TypeError, ValueError
        The first value its constraint refuses; the message names it.
    """
    return {name: constraint.check(values[name], name)
            for name, constraint in constraints.items()}
