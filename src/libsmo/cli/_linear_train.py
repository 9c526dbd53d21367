"""libsmo-linear-train: liblinear-train's command line, checks, lines and model files
(LIBLINEAR 2.50's train).

The order is liblinear-train's: the command line (usage errors: "unknown option: -x",
"n-fold cross validation: n must >= 2"), the data file ("can't open input file",
"Wrong input format at line N"), LIBLINEAR's parameter check in its order and words
("ERROR: eps <= 0", "ERROR: C <= 0", "ERROR: p < 0", "ERROR: unknown solver type"),
then training (the model file written whole or not at all) or cross-validation, whose
folds are LIBLINEAR's (glibc's rand() after srand(1)). The solver types are LIBLINEAR's
support vector machines (-s 1, 2, 3, 4, 5, 11, 12, 13, and the one-class SVM -s 21 with
its -n nu); its logistic regressions (-s 0, 6, 7) are refused by name, as are -R and -C,
which libsmo's solvers do not have (`libsmo.training._liblinear` holds the problems).
"""
from libsmo.cli._common import (
    MISSING,
    CommandError,
    UsageError,
    command,
    lines_to_stdout,
    option_value,
    scan_options,
    training_files,
    usage,
    write_stdout,
)

LINEAR_TRAIN_USAGE = """\
Usage: libsmo-linear-train [options] training_set_file [model_file]
options:
-s type : set type of solver (default 1)
  for multi-class classification
\t 1 -- L2-regularized L2-loss support vector classification (dual)
\t 2 -- L2-regularized L2-loss support vector classification (primal)
\t 3 -- L2-regularized L1-loss support vector classification (dual)
\t 4 -- support vector classification by Crammer and Singer
\t 5 -- L1-regularized L2-loss support vector classification
  for regression
\t11 -- L2-regularized L2-loss support vector regression (primal)
\t12 -- L2-regularized L2-loss support vector regression (dual)
\t13 -- L2-regularized L1-loss support vector regression (dual)
  for outlier detection
\t21 -- one-class support vector machine (dual)
  (LIBLINEAR's logistic regressions -s 0, 6, 7 are not available)
-c cost : set the parameter C (default 1)
-p epsilon : set the epsilon in loss function of SVR (default 0.1)
-n nu : set the parameter nu of one-class SVM (default 0.5)
-e epsilon : set tolerance of termination criterion
\t-s 2
\t\t|f'(w)|_2 <= eps*min(pos,neg)/l*|f'(w0)|_2,
\t\twhere f is the primal function and pos/neg are # of
\t\tpositive/negative data (default 0.01)
\t-s 11
\t\t|f'(w)|_2 <= eps*|f'(w0)|_2 (default 0.0001)
\t-s 1, 3, 4, and 21
\t\tDual maximal violation <= eps; similar to libsvm (default 0.1 except 0.01 for -s 21)
\t-s 5
\t\t|f'(w)|_1 <= eps*min(pos,neg)/l*|f'(w0)|_1,
\t\twhere f is the primal function (default 0.01)
\t-s 12 and 13
\t\t|f'(alpha)|_1 <= eps |f'(alpha0)|,
\t\twhere f is the dual function (default 0.1)
-B bias : if bias >= 0, instance x becomes [x; bias]; if < 0, no bias term added (default -1)
-wi weight: weights adjust the parameter C of different classes (see README for details)
-v n: n-fold cross validation mode
-m nr_thread : parallel version with [nr_thread] threads (default 1; only for -s 1, 2, 3,
  5, 11, 21: one-vs-rest problems at once, the Newton method's passes of -s 2, 11, the
  one-class SVM's gradients)
-q : quiet mode (no outputs)
"""

# option letter -> (LiblinearParams' field, type)
OPTIONS = {"s": ("solver", int), "c": ("C", float), "p": ("p", float),
           "e": ("eps", float), "B": ("bias", float), "n": ("nu", float),
           "m": ("threads", int)}
# the solver types whose training -m spreads over threads (liblinear-multicore's list,
# less the solvers libsmo does not have)
THREADED_SOLVERS = (1, 2, 3, 5, 11, 21)
# LIBLINEAR 2.50's options without a value that libsmo has no solver for
NOT_AVAILABLE = {
    "-R": "-R (a bias left out of the regularisation) is not available: libsmo's "
          "linear solvers regularise the bias feature",
    "-C": "-C (LIBLINEAR's warm-started search of C) is not available: cross-validate "
          "each C with -v",
}


def parse_linear_train_args(argv):
    """liblinear-train's command line.

    Returns
    -------
    options : dict
        LiblinearParams' fields as given (checked later, in LIBLINEAR's order).
    settings : dict
        input, model, folds (or None), quiet, and notices: liblinear-multicore's
        lines about -m (its solver when -s is not given, or -m ignored).

    Raises
    ------
    UsageError
    CommandError
        -R or -C, which libsmo does not have.
    """
    options = {"solver": 1, "C": 1.0, "p": 0.1, "nu": 0.5, "eps": None, "bias": -1.0,
               "weights": []}
    settings = {"folds": None, "quiet": False, "notices": []}
    pairs, files = scan_options(argv, flags=("-q", *NOT_AVAILABLE))
    for arg, value in pairs:
        if arg == "-q":
            settings["quiet"] = True
        elif arg in NOT_AVAILABLE:
            raise CommandError(f"ERROR: {NOT_AVAILABLE[arg]}")
        elif value is MISSING:
            raise UsageError("")
        elif len(arg) == 2 and arg[1] in OPTIONS:
            name, kind = OPTIONS[arg[1]]
            options[name] = option_value(value, arg, kind)
        elif arg == "-v":
            settings["folds"] = option_value(value, arg, int)
            if settings["folds"] < 2:
                raise UsageError("n-fold cross validation: n must >= 2")
        elif arg.startswith("-w") and len(arg) > 2:
            options["weights"].append((option_value(arg[2:], arg, int),
                                       option_value(value, arg, float)))
        else:
            raise UsageError(f"unknown option: {arg}")
    settings["input"], settings["model"] = training_files(files)
    given = {arg for arg, _ in pairs}
    if "-m" in given:
        if "-s" not in given:
            settings["notices"].append("Solver not specified. Using -s 2\n")
            options["solver"] = 2
        elif options["solver"] not in THREADED_SOLVERS:
            settings["notices"].append(
                "WARNING: parallel solvers are only available for -s "
                f"{', '.join(str(s) for s in THREADED_SOLVERS)} now; use single-core "
                "solvers instead.\n\n")
            options["threads"] = 1
    options["weights"] = tuple(options["weights"])
    return options, settings


@command("libsmo-linear-train")
def linear_train_main(argv):
    """libsmo-linear-train: liblinear-train's options and files. Returns the exit
    status."""
    try:
        options, settings = parse_linear_train_args(argv)
    except UsageError as exc:
        return usage(LINEAR_TRAIN_USAGE, str(exc))
    lines_to_stdout(settings["quiet"])
    for notice in settings["notices"]:
        write_stdout(notice)
    from libsmo.cli._data import read_problem
    from libsmo.training._liblinear import LiblinearParams, check_parameter
    problem = read_problem(settings["input"], "linear", dense_copy_bytes=0)
    params = LiblinearParams(**options)
    refusal = check_parameter(params)
    if refusal is not None:
        raise CommandError(f"ERROR: {refusal}")
    if not params.regression and params.solver != 21:
        # (the one-class SVM's labels take no part in training: any number will do)
        from libsmo.cli._train import check_labels
        check_labels(problem.y, "c_svc", files="LIBLINEAR's")
    X = _csr(problem.X)
    if X.nnz == 0:
        # a file of labels alone (the reader keeps a column): LIBLINEAR's nr_feature 0
        X = X[:, :0]
    _check_finite(X)
    if settings["folds"]:
        return _cross_validate(X, problem.y, params, settings["folds"])
    return _train_and_save(X, problem.y, params, settings["model"])


def _check_finite(X):
    """Refuse NaN and infinite values ("1:nan", "1:1e400", which the reader takes as
    strtod does) before training, in libsmo-train's words: the solvers would train a
    model of NaNs or zeros without a word."""
    from libsmo._utils.validation import check_finite
    try:
        check_finite(X)
    except ValueError as exc:
        raise CommandError(f"ERROR: {exc}") from None


def _csr(X):
    import scipy.sparse as sp
    return X if sp.issparse(X) else sp.csr_matrix(X)


def _cross_validate(X, y, params, folds):
    from libsmo._utils.libsvm_figures import printf_g, regression_figures
    from libsmo._utils.random_sources import LibsvmRandom
    from libsmo.cli._train import training_failed
    from libsmo.training._liblinear import cross_validation
    try:
        target = cross_validation(X, y, params, folds, LibsvmRandom(1))
    except (TypeError, ValueError) as exc:
        raise CommandError(f"ERROR: {exc}") from None
    except ArithmeticError as exc:
        raise CommandError(training_failed(exc)) from None
    if params.regression:
        mse, squared_correlation = regression_figures(y, target)
        write_stdout(f"Cross Validation Mean squared error = {printf_g(mse)}\n"
                     "Cross Validation Squared correlation coefficient = "
                     f"{printf_g(squared_correlation)}\n")
    else:
        import numpy as np
        correct = int(np.count_nonzero(target == y))
        # train.c: 100.0*total_correct/prob.l
        write_stdout(f"Cross Validation Accuracy = {printf_g(100.0 * correct / len(y))}%\n")
    return 0


def _train_and_save(X, y, params, model_file):
    from libsmo.cli._train import training_failed
    from libsmo.io.liblinear_model import save_liblinear_model
    from libsmo.training._liblinear import train
    try:
        model = train(X, y, params)
    except (TypeError, ValueError) as exc:
        raise CommandError(f"ERROR: {exc}") from None
    except ArithmeticError as exc:
        raise CommandError(training_failed(exc)) from None
    try:
        save_liblinear_model(model, model_file)
    except ValueError as exc:
        raise CommandError(f"can't save model to file {model_file} ({exc})") from None
    except OSError as exc:
        raise CommandError(f"can't save model to file {model_file} "
                           f"({exc.strerror or exc})") from None
    return 0


__all__ = ["LINEAR_TRAIN_USAGE", "linear_train_main", "parse_linear_train_args"]
