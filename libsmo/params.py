"""The parameters of a training, built and validated in one place.

`TrainParams` is what flows down from the interfaces (`libsmo.train`, the estimators,
the commands, cross-validation) to the formulations and the solvers: the formulation's
own numbers (svm_type, C, nu, epsilon, class weights, probability, random_state) with a
`KernelParams` (kernel, gamma, degree, coef0) and a `SolverParams` (tolerance, cache,
shrinking, selection, stopping, threads, the linear-kernel solver, logging). All three
are frozen dataclasses: each field is checked against the declarative table
(`*_CONSTRAINTS`, see `libsmo._param_validation`) when the object is made, so an object
that exists is valid, and a changed copy (`dataclasses.replace`) is checked again.

gamma=None stays None here (LIBSVM's 1 / n_features): `KernelParams.for_data` resolves
it once the data's width is known.
"""
import dataclasses
from dataclasses import dataclass
from typing import Callable, Optional, Union

from libsmo import _param_validation as pv
from libsmo.names import CLASSIFICATION_TYPES, FLAVORS, KERNELS, SVM_TYPES

SELECTIONS = ("second_order", "platt")
LINEAR_SOLVERS = ("auto", "primal", "kernel")

KERNEL_CONSTRAINTS = {
    "kernel": pv.OneOf(KERNELS),
    "gamma": pv.OrNone(pv.Positive(allow_zero=True)),
    "degree": pv.Positive(integer=True, allow_zero=True),
    "coef0": pv.Finite(),
}

SOLVER_CONSTRAINTS = {
    "tol": pv.Positive(),
    "cache_size": pv.CacheSize(),
    "shrinking": pv.Boolean(),
    "selection": pv.OneOf(SELECTIONS),
    "max_iter": pv.OrNone(pv.Positive(integer=True)),
    "time_limit": pv.OrNone(pv.Positive()),
    "callback": pv.OrNone(pv.IsCallable()),
    "callback_every": pv.Positive(integer=True),
    "n_threads": pv.Threads(),
    "n_jobs": pv.OrNone(pv.Jobs()),
    "linear_solver": pv.OneOf(LINEAR_SOLVERS),
    "verbose": pv.Truthy(),
}

FORMULATION_CONSTRAINTS = {
    "svm_type": pv.OneOf(SVM_TYPES),
    "C": pv.Positive(allow_inf=True),   # C = inf: a hard margin, as LIBSVM allows
    "nu": pv.Positive(maximum=1.0),
    "epsilon": pv.Positive(allow_zero=True),
    "class_weight": pv.ClassWeights(),
    "probability": pv.Boolean(),
    "random_state": pv.Seed(),
    "flavor": pv.OneOf(FLAVORS),
}


_NO_DEFAULT = object()
_DEFAULTS = {}   # filled below, once the classes exist


def _check_fields(obj, constraints):
    """Validate a frozen dataclass's fields in place (normalised values), in the
    table's order. A field that holds its default object is valid as it is: train()
    passes every keyword, most of them defaults, and a fit of a few milliseconds
    should not spend a tenth of a millisecond re-checking them."""
    defaults = _DEFAULTS.get(type(obj), {})
    for name, constraint in constraints.items():
        value = getattr(obj, name)
        if value is defaults.get(name, _NO_DEFAULT):
            continue
        checked = constraint.check(value, name)
        if checked is not value:
            object.__setattr__(obj, name, checked)


@dataclass(frozen=True)
class KernelParams:
    """LIBSVM's kernel and its parameters.

    Attributes
    ----------
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"}
    gamma : float >= 0 or None
        None: 1 / n_features, resolved by `for_data`.
    degree : int >= 0
    coef0 : float
    """
    kernel: str = "rbf"
    gamma: Optional[float] = None
    degree: int = 3
    coef0: float = 0.0

    def __post_init__(self):
        _check_fields(self, KERNEL_CONSTRAINTS)

    def for_data(self, n_features):
        """These parameters with gamma resolved for data of n_features columns.

        Returns
        -------
        KernelParams
        """
        if self.gamma is not None:
            return self
        return dataclasses.replace(self, gamma=1.0 / n_features if n_features > 0 else 0.0)

    def describe(self):
        """kernel=..., gamma=..., degree=..., coef0=... for error messages."""
        return (f"the {self.kernel} kernel (gamma={self.gamma}, degree={self.degree}, "
                f"coef0={self.coef0})")


@dataclass(frozen=True)
class SolverParams:
    """How the binary problems are solved.

    Attributes
    ----------
    tol : float > 0
        LIBSVM's -e: stop when m(a) - M(a) <= tol.
    cache_size : float > 0 or "auto"
        The Q-row cache in MB (LIBSVM's -m), or "auto": as much as the problem can use
        within a share of the available memory (`libsmo._cache_budget`).
    shrinking : bool
    selection : {"second_order", "platt"}
    max_iter : int > 0 or None
        Steps per binary problem; None is LIBSVM's cap, max(10^7, 100 l).
    time_limit : float > 0 or None
        Seconds for the whole fit.
    callback : callable or None
    callback_every : int > 0
    n_threads : int > 0
        Clamped to the cores this process may use; None given here means all of them.
    n_jobs : int or None
        joblib tasks at once for independent problems (one-vs-one pairs, folds); None
        is 1 unless a joblib context says otherwise (see `libsmo._parallel`).
    linear_solver : {"auto", "primal", "kernel"}
    verbose : bool
    """
    tol: float = 1e-3
    cache_size: Union[float, str] = 100.0
    shrinking: bool = True
    selection: str = "second_order"
    max_iter: Optional[int] = None
    time_limit: Optional[float] = None
    callback: Optional[Callable] = None
    callback_every: int = 1000
    n_threads: Optional[int] = 1
    n_jobs: Optional[int] = None
    linear_solver: str = "auto"
    verbose: bool = False

    def __post_init__(self):
        _check_fields(self, SOLVER_CONSTRAINTS)

    def step_cap(self, n_variables):
        """max_iter, or LIBSVM's safety cap max(10^7, 100 n) for n variables: a
        degenerate problem must still end."""
        return self.max_iter if self.max_iter is not None else max(10_000_000,
                                                                    100 * n_variables)


@dataclass(frozen=True)
class TrainParams:
    """Everything `libsmo.train` needs besides the data.

    Attributes
    ----------
    svm_type : {"c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr"}
    C : float > 0, or inf (a hard margin)
    nu : float in (0, 1]
    epsilon : float >= 0
    class_weight : dict label -> weight, or None
    probability : bool
    random_state : None, int >= 0 or numpy Generator
    flavor : {"libsvm", "sklearn"}
        Whose arithmetic the fit follows where LIBSVM 3.37 and scikit-learn's copy of
        LIBSVM differ: the nu types' starting sum (LIBSVM: nu times the sum of the
        weights; scikit-learn: nu times each weight, added row by row), so that the
        solver starts where that LIBSVM starts and takes its steps. "libsvm" for
        `libsmo.train` and the commands, "sklearn" for the estimators.
    kernel : KernelParams
    solver : SolverParams
    """
    svm_type: str = "c_svc"
    C: float = 1.0
    nu: float = 0.5
    epsilon: float = 0.1
    class_weight: Optional[dict] = None
    probability: bool = False
    random_state: object = None
    flavor: str = "libsvm"
    kernel: KernelParams = KernelParams()
    solver: SolverParams = SolverParams()

    def __post_init__(self):
        _check_fields(self, FORMULATION_CONSTRAINTS)
        if self.class_weight is not None and self.svm_type not in CLASSIFICATION_TYPES:
            raise ValueError("class_weight applies to classification, not "
                             f"svm_type={self.svm_type!r}")
        if self.solver.linear_solver == "primal" and (
                self.kernel.kernel != "linear" or self.svm_type not in ("c_svc", "one_class")):
            raise ValueError("linear_solver='primal' needs kernel='linear' and svm_type "
                             f"'c_svc' or 'one_class'; got kernel={self.kernel.kernel!r}, "
                             f"svm_type={self.svm_type!r}")

    @classmethod
    def from_kwargs(cls, **kwargs):
        """TrainParams from `libsmo.train`'s flat keywords (any subset; the others take
        their defaults).

        Raises
        ------
        TypeError
            An unknown keyword, or a value of the wrong type.
        ValueError
            A value out of range, or a combination that does not apply.
        """
        groups = {"kernel": {}, "solver": {}, "formulation": {}}
        for name, value in kwargs.items():
            if name in KERNEL_CONSTRAINTS:
                groups["kernel"][name] = value
            elif name in SOLVER_CONSTRAINTS:
                groups["solver"][name] = value
            elif name in FORMULATION_CONSTRAINTS:
                groups["formulation"][name] = value
            else:
                raise TypeError(f"unknown parameter {name!r}")
        # checked in LIBSVM's order of concerns: what to solve, the kernel, the solver
        svm_type = pv.OneOf(SVM_TYPES).check(groups["formulation"].get("svm_type", "c_svc"),
                                             "svm_type")
        kernel = KernelParams(**groups["kernel"])
        solver = SolverParams(**groups["solver"])
        return cls(**dict(groups["formulation"], svm_type=svm_type), kernel=kernel,
                   solver=solver)

    def replace(self, **changes):
        """A copy with some flat keywords changed (checked again), e.g.
        ``params.replace(C=2.0, tol=1e-4)``.

        Returns
        -------
        TrainParams
        """
        flat = self.as_kwargs()
        flat.update(changes)
        return TrainParams.from_kwargs(**flat)

    def as_kwargs(self):
        """The flat keywords of `libsmo.train` that give these parameters."""
        flat = {name: getattr(self, name) for name in FORMULATION_CONSTRAINTS}
        flat.update({name: getattr(self.kernel, name) for name in KERNEL_CONSTRAINTS})
        flat.update({name: getattr(self.solver, name) for name in SOLVER_CONSTRAINTS})
        return flat

    @property
    def primal_policy(self):
        """How a linear kernel's binary problems are solved: "always" on the primal
        weights, "never", or "large" (only where Q outgrows the cache: see
        `libsmo.execution.Executor.uses_primal`). The primal solver handles the
        problems without the nu variant's second constraint: c_svc and one_class."""
        if self.kernel.kernel != "linear" or self.svm_type not in ("c_svc", "one_class"):
            return "never"
        return {"auto": "large", "primal": "always",
                "kernel": "never"}[self.solver.linear_solver]


# each parameter class's default values (the objects themselves), for _check_fields
_DEFAULTS.update({cls: {f.name: f.default for f in dataclasses.fields(cls)
                        if f.default is not dataclasses.MISSING}
                  for cls in (KernelParams, SolverParams, TrainParams)})
