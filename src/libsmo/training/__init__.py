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
from libsmo.training._crossval import cross_validation
from libsmo.training._fitting import fit, train
from libsmo.training._grid import grid_search
from libsmo.training._params import TrainParams

__all__ = ["TrainParams", "cross_validation", "fit", "grid_search", "train"]
