"""Training: parameters, LIBSVM's formulations, the solver's execution, one-vs-one,
cross-validation and svm-grid's search.

``_params``
    `TrainParams` (`KernelParams`, `SolverParams`): every parameter, checked once.
``_problem``
    the typed contracts `TrainingSet`, `BinaryProblem`, `BinaryFit`,
    `FormulationResult`, and the solver's layout of the rows.
``_formulations``
    LIBSVM's adapters `solve_c_svc` ... `solve_nu_svr`; one-class and regression fits.
``_pairs``
    one-vs-one training of the pairs of classes.
``_warm_start``
    starting points: a previous model's coefficients made feasible, greedy starts.
``_execution``
    `Executor`: one binary problem to a `Solution` on the compiled core.
``_fitting``
    `train` and `fit`: data to problems to a `Model`.
``_crossval``
    svm-train's ``-v``: LIBSVM's folds and out-of-fold predictions.
``_grid``
    svm-grid's search in one process.
"""
import importlib

__all__ = ["TrainParams", "cross_validation", "fit", "grid_search", "train"]

# The names load on first use: `libsmo.cascade`, which the fitting sends large C-SVC
# problems to, imports this package's lower modules (`_execution`, `_problem`,
# `_warm_start`); importing them must not import the fitting, which imports the
# cascade, before the cascade is loaded.
_LAZY = {"TrainParams": "libsmo.training._params",
         "cross_validation": "libsmo.training._crossval",
         "fit": "libsmo.training._fitting", "train": "libsmo.training._fitting",
         "grid_search": "libsmo.training._grid"}


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'libsmo.training' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
