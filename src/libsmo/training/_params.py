"""The parameters of a training, built and validated in one place.

`TrainParams` is what flows down from the interfaces (`libsmo.train`, the estimators,
the commands, cross-validation) to the formulations and the solvers: the formulation's
own numbers (svm_type, C, nu, epsilon, class weights, probability, random_state) with a
`KernelParams` (kernel, gamma, degree, coef0) and a `SolverParams` (tolerance, cache,
shrinking, selection, stopping, threads, the linear-kernel solver, logging). All three
are frozen dataclasses: each field is checked against the declarative table
(`*_CONSTRAINTS`, see `libsmo._utils.constraints`) when the object is made, so an object
that exists is valid, and a changed copy (`dataclasses.replace`) is checked again.

gamma=None stays None here (LIBSVM's 1 / n_features): `KernelParams.for_data` resolves
it once the data's width is known.
"""
import dataclasses
from dataclasses import dataclass
from typing import Callable, Optional, Union

from libsmo._core.cache import POLICIES as CACHE_POLICIES
from libsmo._utils import constraints as pv
from libsmo._utils.names import CLASSIFICATION_TYPES, FLAVORS, KERNELS, SVM_TYPES

SELECTIONS = ("second_order", "platt")
LINEAR_SOLVERS = ("auto", "primal", "kernel")
# how a C-SVC binary problem is solved: LIBSVM's SMO over all its rows, the partitioned
# method (`libsmo.cascade`), or the partitioned method where it was measured to win
SOLVERS = ("smo", "partitioned", "auto")
# how the partitioned method splits a problem's rows (`libsmo.cascade._partitioning`)
PARTITIONINGS = ("stratified", "random", "kmeans")


@dataclass(frozen=True)
class RowPaths:
    """Which of the core's faster data paths a fit may take.

    Each path computes the same kernel values, bit for bit, so a fit takes the same
    steps on every setting; they differ only in speed. Every path is on by default;
    tests and benchmarks switch one off to compare it with the plain loops.

    Attributes
    ----------
    bit_rows : bool
        Rows whose values are all zeros and ones get bitmaps, and a kernel row is a
        bit count and a table load per entry (`Rows.bit_values`): one-hot data such
        as a9a.
    int_rows : bool
        Rows of many features whose values are small integers over one divisor (8-bit
        images as pixel / 255) get int16 or uint8 copies whose dot products are
        summed exactly in integers (`libsmo._core.int_rows`).
    sparse_columns : bool
        CSR rows keep a feature-major copy too, where it fits in half of what is left
        of the cache, and a row of dot products is summed over the columns of the
        row's own features (`libsmo._core.sparse_dots.SparseColumns`): text-like data.
    rows_together : int > 0
        A Q row missing from the cache is computed with this many rows the next steps
        are likely to ask for, in one pass over dense rows stored row by row, when the
        rows take at least `rows_together_min_bytes`: such rows wait on memory, and
        one read of the data then serves all of them.
    rows_together_min_bytes : int >= 0
    reconstruct_together : bool
        The gradient's reconstruction computes the uncached rows it reads 16 at a time
        in one pass over the data where the rows allow it (`QMatrix.entries_block`):
        each uncached row otherwise streams the whole data from memory once.
    cache_policy : {"ranked", "lru"}
        The kernel cache's eviction policy (`libsmo._core.cache.POLICIES`): LIBSVM's
        least recently used row, or "ranked": among the least recently used rows,
        that of the variable farthest from the solver's next selections
        (row_ranks.h). Neither changes the steps, only which rows are computed again.

    Examples
    --------
    >>> from libsmo.training import TrainParams
    >>> from libsmo.training._params import RowPaths
    >>> params = TrainParams.from_kwargs(row_paths=RowPaths(bit_rows=False))
    >>> params.solver.row_paths.bit_rows
    False
    """
    bit_rows: bool = True
    int_rows: bool = True
    sparse_columns: bool = True
    rows_together: int = 8
    rows_together_min_bytes: int = 12 * 2**20
    reconstruct_together: bool = True
    cache_policy: str = "ranked"

    def __post_init__(self):
        _check_fields(self, ROW_PATH_CONSTRAINTS)


ROW_PATH_CONSTRAINTS = {
    "bit_rows": pv.Boolean(),
    "int_rows": pv.Boolean(),
    "sparse_columns": pv.Boolean(),
    "rows_together": pv.Positive(integer=True),
    "rows_together_min_bytes": pv.Positive(integer=True, allow_zero=True),
    "reconstruct_together": pv.Boolean(),
    "cache_policy": pv.OneOf(CACHE_POLICIES),
}

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
    "max_iter": pv.OrNone(pv.StepCap()),
    "time_limit": pv.OrNone(pv.Positive()),
    "callback": pv.OrNone(pv.IsCallable()),
    "callback_every": pv.Positive(integer=True),
    "n_threads": pv.Threads(),
    "n_jobs": pv.OrNone(pv.Jobs()),
    "linear_solver": pv.OneOf(LINEAR_SOLVERS),
    "verbose": pv.Truthy(),
    "row_paths": pv.InstanceOf(RowPaths),
    "solver": pv.OneOf(SOLVERS),
    "partitions": pv.OrAuto(pv.Positive(integer=True)),
    "partitioning": pv.OneOf(PARTITIONINGS),
    "progress_bar": pv.Boolean(),
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
        within a share of the available memory (`libsmo._utils.cache_budget`).
    shrinking : bool
    selection : {"second_order", "platt"}
    max_iter : int > 0, -1 or None
        Steps per binary problem; None is LIBSVM's cap, max(10^7, 100 l); -1 is no
        limit (scikit-learn's max_iter=-1).
    time_limit : float > 0 or None
        Seconds for the whole fit.
    callback : callable or None
    callback_every : int > 0
    n_threads : int > 0
        Clamped to the cores this process may use; None given here means all of them.
    n_jobs : int or None
        joblib tasks at once for independent problems (one-vs-one pairs, folds); None
        is 1 unless a joblib context says otherwise (see `libsmo._utils.parallel`).
    linear_solver : {"auto", "primal", "kernel"}
    verbose : bool
    row_paths : RowPaths
        The core's faster data paths (all on by default; the same steps on any).
    solver : {"smo", "partitioned", "auto"}
        How C-SVC's binary problems are solved (see `libsmo.train`): LIBSVM's SMO over
        all their rows, or the partitioned exact method (`libsmo.cascade`) for those
        above its size, or the latter only where it was measured to win.
    partitions : int >= 1 or "auto"
        Partitions of a problem the partitioned method solves.
    partitioning : {"stratified", "random", "kmeans"}
        How the partitioned method splits a problem's rows.
    progress_bar : bool
        A progress bar on stderr for the partitioned method (the estimators'
        ``verbose``).
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
    row_paths: RowPaths = RowPaths()
    solver: str = "smo"
    partitions: object = "auto"
    partitioning: str = "stratified"
    progress_bar: bool = False

    def __post_init__(self):
        _check_fields(self, SOLVER_CONSTRAINTS)

    def with_cache_megabytes(self, megabytes):
        """These parameters with cache_size the number `megabytes` (what "auto" came to
        when a fit started, `libsmo._utils.cache_budget`). Only cache_size is checked
        again: the other fields are this object's, checked when it was made, and a fit
        of a few milliseconds should not check them twice.

        Returns
        -------
        SolverParams

        Examples
        --------
        >>> from libsmo.training._params import SolverParams
        >>> params = SolverParams(cache_size="auto", tol=0.01).with_cache_megabytes(512.0)
        >>> params.cache_size, params.tol
        (512.0, 0.01)
        """
        other = object.__new__(SolverParams)
        other.__dict__.update(self.__dict__)
        object.__setattr__(other, "cache_size",
                           SOLVER_CONSTRAINTS["cache_size"].check(megabytes, "cache_size"))
        return other

    def step_cap(self, n_variables):
        """max_iter (-1: no limit), or for None LIBSVM's safety cap max(10^7, 100 n) for
        n variables: there a degenerate problem must still end."""
        if self.max_iter is None:
            return libsvm_step_cap(n_variables)
        return self.max_iter


def libsvm_step_cap(n_variables):
    """LIBSVM's cap on the steps of one problem of n variables: max(10^7, 100 n)."""
    return max(10_000_000, 100 * n_variables)


@dataclass(frozen=True)
class TrainParams:
    """Everything `libsmo.train` needs besides the data, checked once.

    What flows down from the interfaces (`libsmo.train`, the estimators, the
    commands, cross-validation) to the formulations and the solvers: the
    formulation's own numbers with a `KernelParams` (kernel, gamma, degree, coef0)
    and a `SolverParams` (tolerance, cache, shrinking, selection, stopping,
    threads, the linear-kernel solver, logging). It is a frozen dataclass whose
    fields are checked when it is made, so that one that exists is valid; a
    changed copy (`replace`, ``dataclasses.replace``) is checked again. Most
    callers make one with `from_kwargs`, from `libsmo.train`'s flat keywords.

    Parameters
    ----------
    svm_type : {'c_svc', 'nu_svc', 'one_class', 'epsilon_svr', 'nu_svr'}, default='c_svc'
        LIBSVM's formulation (``-s``).
    C : float, default=1.0
        Box constraint (``-c``), positive, or inf for a hard margin.
    nu : float, default=0.5
        The nu formulations' parameter (``-n``), in (0, 1].
    epsilon : float, default=0.1
        Half-width of epsilon-SVR's tube (``-p``), >= 0.
    class_weight : dict, default=None
        Label -> weight multiplying C (``-wi``); classification only.
    probability : bool, default=False
        Fit LIBSVM's probability model (``-b 1``).
    random_state : None, int, numpy Generator or LibsvmRandom, default=None
        Source of the probability model's folds.
    flavor : {'libsvm', 'sklearn'}, default='libsvm'
        Whose arithmetic the fit follows where LIBSVM 3.37 and scikit-learn's copy of
        LIBSVM differ: the nu types' starting sum (LIBSVM: nu times the sum of the
        weights; scikit-learn: nu times each weight, added row by row), so that the
        solver starts where that LIBSVM starts and takes its steps. 'libsvm' for
        `libsmo.train` and the commands, 'sklearn' for the estimators.
    kernel : KernelParams, default=KernelParams()
        The kernel and its parameters (gamma None: 1 / n_features, resolved when
        the data's width is known).
    solver : SolverParams, default=SolverParams()
        How the binary problems are solved.

    Raises
    ------
    ValueError, TypeError
        A field out of range or of the wrong type (the message names it), or a
        combination that does not apply (class_weight for regression,
        linear_solver='primal' without the linear kernel).

    See Also
    --------
    libsmo.train : Its keywords are this class's flat keywords.
    libsmo.training.fit : Train with a TrainParams.

    Examples
    --------
    >>> from libsmo.training import TrainParams
    >>> params = TrainParams.from_kwargs(C=2.0, kernel="linear", tol=1e-4)
    >>> params.C, params.kernel.kernel, params.solver.tol
    (2.0, 'linear', 0.0001)
    >>> TrainParams.from_kwargs(C=-1.0)
    Traceback (most recent call last):
    ...
    ValueError: C must be > 0 (inf allowed), got -1.0
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
        """Make a TrainParams from `libsmo.train`'s flat keywords.

        Any subset of the keywords (the others take their defaults); each goes to
        the formulation, the `KernelParams` or the `SolverParams`, and every value is
        checked.

        Parameters
        ----------
        **kwargs
            Keywords of `libsmo.train` (not X, y, sample_weight or init), and
            ``flavor`` and ``row_paths``.

        Returns
        -------
        TrainParams
            The checked parameters.

        Raises
        ------
        TypeError
            An unknown keyword, or a value of the wrong type.
        ValueError
            A value out of range, or a combination that does not apply.

        Examples
        --------
        >>> from libsmo.training import TrainParams
        >>> TrainParams.from_kwargs(svm_type="nu_svc", nu=0.2).nu
        0.2
        >>> TrainParams.from_kwargs(cost=1.0)
        Traceback (most recent call last):
        ...
        TypeError: unknown parameter 'cost'
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
        """Return a copy with some flat keywords changed (checked again).

        Parameters
        ----------
        **changes
            Keywords of `from_kwargs`, e.g. ``C=2.0, tol=1e-4``.

        Returns
        -------
        TrainParams
            The changed copy; this one is unchanged.

        Examples
        --------
        >>> from libsmo.training import TrainParams
        >>> params = TrainParams.from_kwargs(C=2.0)
        >>> params.replace(C=4.0, tol=1e-4).C, params.C
        (4.0, 2.0)
        """
        flat = self.as_kwargs()
        flat.update(changes)
        return TrainParams.from_kwargs(**flat)

    def as_kwargs(self):
        """Return the flat keywords of `from_kwargs` that give these parameters.

        Returns
        -------
        dict
            Keyword -> value, for every field of the formulation, the kernel and the
            solver.

        Examples
        --------
        >>> from libsmo.training import TrainParams
        >>> params = TrainParams.from_kwargs(C=2.0, gamma=0.5)
        >>> TrainParams.from_kwargs(**params.as_kwargs()) == params
        True
        """
        flat = {name: getattr(self, name) for name in FORMULATION_CONSTRAINTS}
        flat.update({name: getattr(self.kernel, name) for name in KERNEL_CONSTRAINTS})
        flat.update({name: getattr(self.solver, name) for name in SOLVER_CONSTRAINTS})
        return flat

    @property
    def primal_policy(self):
        """How a linear kernel's binary problems are solved: 'always', 'never' or 'large'.

        'always' on the primal weights (linear_solver='primal'), 'never' (the kernel
        rows; every other kernel and formulation), or 'large': where Q outgrows the
        cache (later on rows of 8-bit values) or the start pays (linear_solver='auto', see
        `libsmo.training._execution.Executor.uses_primal`). The primal solver handles
        the problems without the nu formulations' second constraint: c_svc and
        one_class.

        Examples
        --------
        >>> from libsmo.training import TrainParams
        >>> TrainParams.from_kwargs(kernel="linear").primal_policy
        'large'
        >>> TrainParams.from_kwargs(kernel="rbf").primal_policy
        'never'
        """
        if self.kernel.kernel != "linear" or self.svm_type not in ("c_svc", "one_class"):
            return "never"
        return {"auto": "large", "primal": "always",
                "kernel": "never"}[self.solver.linear_solver]


# each parameter class's default values (the objects themselves), for _check_fields
_DEFAULTS.update({cls: {f.name: f.default for f in dataclasses.fields(cls)
                        if f.default is not dataclasses.MISSING}
                  for cls in (KernelParams, SolverParams, TrainParams)})
