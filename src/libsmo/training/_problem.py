"""The typed objects between the problem layer and its neighbours.

    TrainingSet ──formulations──> BinaryProblem ──execution──> Solution (libsmo._core)
         ^                                                         │
    validation                     BinaryFit <──formulations───────┘
                                       │
                              FormulationResult ──train──> Model

- `TrainingSet`: validated data in the layout the solver reads, with labels, weights and
  the examples that take part (weight > 0);
- `BinaryProblem`: LIBSVM's dual over some rows, (Q from the kernel, p, y, C_i, start);
- `BinaryFit`: one binary problem's answer in the model's terms (coefficients y_i a_i,
  rho, objective, steps, status), scaled back where nu-SVC scales;
- `FormulationResult`: what a formulation gives the model: classes, support-vector rows
  and coefficients, rho, probability fields, and the fits that make the model.

All are frozen dataclasses: nothing is changed after it is made.
"""
import functools
from dataclasses import dataclass
from typing import Optional

import numpy as np

from libsmo._core.arrays import csr_to_dense, row_ranges
from libsmo._utils import sparse as sp
from libsmo._utils import validation as v
from libsmo._utils.names import REGRESSION_TYPES
from libsmo._utils.row_layout import (
    COMPACT_WIDTH_FACTOR,
    DENSE_COPY_BYTES,
    reads_dense,
)
from libsmo.model._one_vs_one import group_classes


@dataclass(frozen=True)
class TrainingSet:
    """Validated training data.

    Attributes
    ----------
    X : ndarray or csr_matrix
        The rows as validated (dense float64, dense uint8 as given, or canonical CSR;
        for a precomputed kernel the n x n Gram matrix): support vectors are taken
        from it.
    X_solver : ndarray or csr_matrix
        The same rows as the solver reads them (see `solver_layout`).
    y : ndarray of shape (n,)
        Labels (classification), targets (regression) or zeros (one-class).
    weights : ndarray of shape (n,)
        Per-example weights (ones by default).
    kept : ndarray of int
        The examples of weight > 0, which alone take part in training, in the order
        the training takes them (ascending unless `training_set` was given an order).
    n_classes : int or None
        Set when y holds class indices 0 .. n_classes - 1 whose first appearances among
        the kept examples come in that order (the estimators' layout): then they are
        LIBSVM's class order as they stand (`class_groups`).
    """
    X: object
    X_solver: object
    y: np.ndarray
    weights: np.ndarray
    kept: np.ndarray
    n_classes: Optional[int] = None

    @property
    def solver_copy_bytes(self):
        """Bytes of X_solver that are a private copy (a dense copy of CSR rows), which
        the fit takes from its kernel cache; 0 when the solver reads the caller's
        arrays."""
        if self.X_solver is self.X or sp.issparse(self.X_solver):
            return 0
        return self.X_solver.nbytes

    @property
    def n_features(self):
        """Columns of X (training rows for a precomputed kernel)."""
        return self.X.shape[1]

    @functools.cached_property
    def class_groups(self):
        """(classes, index) of the kept examples' labels in LIBSVM's order
        (`_one_vs_one.group_classes`), found once however many fits read them (a grid
        trains each fold's set at every C)."""
        if self.n_classes is not None:
            # class c is label c, and the labels first appear in order: the grouping
            # `group_classes` would find
            return np.arange(self.n_classes, dtype=self.y.dtype), self.y[self.kept]
        return group_classes(self.y[self.kept])


@dataclass(frozen=True)
class BinaryProblem:
    """min 1/2 a'Qa + p'a  s.t.  y'a = y'start, 0 <= a_t <= upper_bound_t.

    Attributes
    ----------
    rows : ndarray of int
        Rows of the training data: variable t is row rows[t] (with `regression`, the l
        rows stand for 2l variables, a and a*).
    signs : ndarray of float64
        y_t in {+1, -1} for each variable.
    linear_term : ndarray of float64
        p.
    upper_bound : ndarray of float64
        C_t of each variable (C times class and sample weights).
    start : ndarray of float64 or None
        A feasible starting alpha (None: zeros).
    nu : bool
        The nu variant's second equality constraint (one per sign of y).
    regression : bool
        Q of the regressions: Q_st = y_s y_t K(x_(s mod l), x_(t mod l)).
    gradient, gradient_bar : ndarray of float64 or None
        G = Q start + p and G_bar (the upper-bound variables' C_s Q_s summed) at
        `start`, when the caller knows them (the cascade's working sets): the kernel
        solver then does not compute them. Ignored by the primal solver.
    seeded : bool
        `start` is a warm start from outside the formulation (train's init, a grid's
        alpha seeding), not LIBSVM's own start: the solvers then pull a start worse
        than zero in and confirm an optimum on a gradient computed afresh (see
        `libsmo._core.smo`).
    """
    rows: np.ndarray
    signs: np.ndarray
    linear_term: np.ndarray
    upper_bound: np.ndarray
    start: Optional[np.ndarray] = None
    nu: bool = False
    regression: bool = False
    gradient: Optional[np.ndarray] = None
    gradient_bar: Optional[np.ndarray] = None
    seeded: bool = False

    @property
    def n_variables(self):
        """The number of dual variables."""
        return len(self.linear_term)


@dataclass(frozen=True)
class BinaryFit:
    """One binary problem's answer in the model's terms.

    Attributes
    ----------
    coef : ndarray of float64
        y_t a_t for each row of the problem (regression: a_t - a*_t).
    rho : float
    objective : float
    n_iter : int
    status : str
        "optimal", "max_iter", "time_limit" or "stopped".
    kernel_evaluations : int or None
        Kernel values the solver computed (`Solution.kernel_evaluations`); None where
        they were not counted (a distributed fit's cascade).
    """
    coef: np.ndarray
    rho: float
    objective: float
    n_iter: int
    status: str
    kernel_evaluations: Optional[int] = None


@dataclass(frozen=True)
class ProblemStatistics:
    """The training record of a model's binary problems, one entry each in LIBSVM's
    order (what `Model` keeps as n_iter, objective, status, kernel_evaluations).

    Attributes
    ----------
    n_iter : list of int
    objective : list of float
    status : list of str
    kernel_evaluations : list of int
        Empty when some problem's were not counted (a distributed fit's cascade).
    """
    n_iter: list
    objective: list
    status: list
    kernel_evaluations: list

    @classmethod
    def of(cls, fits):
        """The statistics of some `BinaryFit`s."""
        counts = [f.kernel_evaluations for f in fits]
        return cls(n_iter=[f.n_iter for f in fits], objective=[f.objective for f in fits],
                   status=[f.status for f in fits],
                   kernel_evaluations=[] if None in counts else counts)


@dataclass(frozen=True)
class FormulationResult:
    """What a formulation hands to the model.

    Attributes
    ----------
    classes : ndarray
        LIBSVM's class order (empty for one-class and regression).
    n_support : ndarray of int
        Support vectors per class (empty for one-class and regression).
    sv_rows : ndarray of int
        Rows of the training data that are support vectors, grouped by class.
    sv_coef : ndarray of shape (max(k - 1, 1), n_SV)
    rho : ndarray
    statistics : ProblemStatistics
        Of the binary problems of the model (not those of internal cross-validation).
    probA, probB, prob_density_marks : ndarray or None
    """
    classes: np.ndarray
    n_support: np.ndarray
    sv_rows: np.ndarray
    sv_coef: np.ndarray
    rho: np.ndarray
    statistics: ProblemStatistics
    probA: Optional[np.ndarray] = None
    probB: Optional[np.ndarray] = None
    prob_density_marks: Optional[np.ndarray] = None


def solver_layout(X, dense_copy_bytes=DENSE_COPY_BYTES):
    """X as the solver should read it: CSR with at least half its entries non-zero
    becomes dense when that copy takes at most dense_copy_bytes; CSR whose width is many
    times its stored values
    keeps only the columns it uses (the solver's buffers are as wide as its rows: one
    index of 2**31 - 1 asked for 16 GB), which changes no dot product or norm."""
    if not sp.issparse(X):
        return X
    if X.shape[1] > COMPACT_WIDTH_FACTOR * (X.nnz + X.shape[0]):
        columns = np.unique(X.indices)
        X = sp.csr_matrix((X.data, np.searchsorted(columns, X.indices).astype(np.int32),
                           X.indptr), shape=(X.shape[0], len(columns)))
    if reads_dense(X.shape[0], X.shape[1], X.nnz, dense_copy_bytes):
        return csr_to_dense(X)
    return X


def take_rows(X, rows):
    """X[rows] (any row indices, in their order), as a new csr_matrix for CSR X: one
    gather over the rows' index ranges instead of scipy's fancy indexing."""
    if not sp.issparse(X):
        return X[rows]
    # compiled: the numpy ops it replaced cost 60 us a first fit (housing's), 20 us after
    take, indptr = row_ranges(X.indptr, np.ascontiguousarray(rows, dtype=np.int64))
    return sp.csr_matrix((X.data.take(take), X.indices.take(take),
                          indptr.astype(X.indptr.dtype, copy=False)),
                         shape=(len(rows), X.shape[1]))


def training_set(X, y, sample_weight, svm_type, kernel, dense_copy_bytes=DENSE_COPY_BYTES,
                 n_classes=None, order=None):
    """Validate the data of one training and bring it to the solver's layout.

    Parameters
    ----------
    X : array-like or sparse matrix
    y : array-like or None
        None only for svm_type="one_class".
    sample_weight : array-like or None
    svm_type, kernel : str
        Validated names (see `libsmo.training._params.TrainParams`).
    dense_copy_bytes : int
        The largest dense copy of CSR rows the solver may make (see `solver_layout`).
    n_classes : int or None
        The classifiers' encoded labels (`TrainingSet.n_classes`): y is then an integer
        ndarray of class indices, of one label a row, that its caller made and checked,
        and it is taken as it is.
    order : ndarray of int or None
        A permutation of the rows: the order in which the training takes them (the
        estimators put the first row of each class, in sorted order, in front), read
        through this index instead of a reordered copy of X; None: X's order.

    Returns
    -------
    TrainingSet

    Raises
    ------
    TypeError, ValueError
        Bad data; the message names X, y or sample_weight.
    """
    if kernel == "precomputed":
        X = v.check_precomputed(X, "X")
    else:
        # 8-bit rows stay bytes: a million 784-pixel images are 784 MB, not 6.3 GB
        X = v.check_data(X, "X", keep_bytes=True)
        v.check_norms(X, "X")
    n = X.shape[0]
    if svm_type == "one_class":
        y = np.zeros(n) if y is None else v.check_labels(y, n)
    elif y is None:
        raise ValueError(f"y is required for svm_type={svm_type!r}")
    elif n_classes is None:
        y = v.check_labels(y, n, classes=svm_type not in REGRESSION_TYPES)
    if svm_type in REGRESSION_TYPES:
        if y.dtype.kind not in "biuf":
            raise TypeError(f"y must hold real targets for {svm_type}, got dtype {y.dtype}")
        y = y.astype(np.float64)
    weights = v.check_sample_weight(sample_weight, n)
    if weights is None:
        weights = np.ones(n)
    kept = (np.flatnonzero(weights > 0) if order is None
            else order[weights[order] > 0])
    return TrainingSet(X=X, X_solver=solver_layout(X, dense_copy_bytes), y=y, weights=weights,
                       kept=kept, n_classes=n_classes)
