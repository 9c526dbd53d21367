"""libsmo-train: svm-train's command line, checks, lines and files.

The order is svm-train's: the command line (usage errors), the data file ("can't open
input file", "Wrong input format at line N"), LIBSVM's parameter check in its order and
words ("ERROR: C <= 0", "ERROR: specified nu is infeasible", ...), then training or
cross-validation with LIBSVM's lines on stdout. Random draws (-v folds, -b 1's internal
folds) are LIBSVM's own, glibc's rand() after srand(1) as svm-train draws them, unless
--seed says otherwise: two runs print the same lines, and the same as svm-train's.
"""

from libsmo._utils.names import (
    CLASSIFICATION_TYPES,
    INT_MAX,
    KERNELS,
    REGRESSION_TYPES,
    SVM_TYPES,
)
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
from libsmo.cli._data import read_problem

TRAIN_USAGE = """\
Usage: libsmo-train [options] training_set_file [model_file]
options:
-s svm_type : set type of SVM (default 0)
\t0 -- C-SVC\t\t(multi-class classification)
\t1 -- nu-SVC\t\t(multi-class classification)
\t2 -- one-class SVM
\t3 -- epsilon-SVR\t(regression)
\t4 -- nu-SVR\t\t(regression)
-t kernel_type : set type of kernel function (default 2)
\t0 -- linear: u'*v
\t1 -- polynomial: (gamma*u'*v + coef0)^degree
\t2 -- radial basis function: exp(-gamma*|u-v|^2)
\t3 -- sigmoid: tanh(gamma*u'*v + coef0)
\t4 -- precomputed kernel (kernel values in training_set_file)
-d degree : set degree in kernel function (default 3)
-g gamma : set gamma in kernel function (default 1/num_features)
-r coef0 : set coef0 in kernel function (default 0)
-c cost : set the parameter C of C-SVC, epsilon-SVR, and nu-SVR (default 1)
-n nu : set the parameter nu of nu-SVC, one-class SVM, and nu-SVR (default 0.5)
-p epsilon : set the epsilon in loss function of epsilon-SVR (default 0.1)
-m cachesize : set cache memory size in MB (default 100)
-e epsilon : set tolerance of termination criterion (default 0.001)
-h shrinking : whether to use the shrinking heuristics, 0 or 1 (default 1)
-b probability_estimates : whether to train a SVC or SVR model for probability estimates, 0 or 1 (default 0)
-wi weight : set the parameter C of class i to weight*C, for C-SVC (default 1)
-v n: n-fold cross validation mode
-q : quiet mode (no outputs)
libsmo only:
-m auto : size the cache for the problem, within half of the available memory
--threads n : threads for kernel rows and one-vs-one pairs (default 1)
--selection s : partner choice, second_order (default) or platt
--seed n : srand() seed of the random folds of -v and -b 1 (default 1, svm-train's)
"""

def _cache_size(text):
    """-m: megabytes as LIBSVM reads them, or "auto" (`libsmo._utils.cache_budget`)."""
    return "auto" if text == "auto" else float(text)


# svm-train's parameters with their defaults, in LIBSVM's names
DEFAULTS = {"svm_type": 0, "kernel_type": 2, "degree": 3, "gamma": 0.0, "coef0": 0.0,
            "nu": 0.5, "cache_size": 100.0, "C": 1.0, "eps": 1e-3, "p": 0.1,
            "shrinking": 1, "probability": 0}
# option letter -> (LIBSVM's name, type)
OPTIONS = {"s": ("svm_type", int), "t": ("kernel_type", int), "d": ("degree", int),
           "g": ("gamma", float), "r": ("coef0", float), "n": ("nu", float),
           "m": ("cache_size", _cache_size), "c": ("C", float), "e": ("eps", float),
           "p": ("p", float), "h": ("shrinking", int), "b": ("probability", int)}


def parse_train_args(argv):
    """svm-train's command line.

    Returns
    -------
    options : dict
        LIBSVM's parameter names (svm_type, kernel_type, C, ...) with their values as
        given (checked later, in LIBSVM's order), "weights" (label -> weight), and the
        libsmo-only "threads", "selection", "seed".
    settings : dict
        input, model, folds (or None), quiet.

    Raises
    ------
    UsageError
    """
    options = dict(DEFAULTS, weights={}, threads=1, selection="second_order", seed=1)
    settings = {"folds": None, "quiet": False}
    pairs, files = scan_options(argv)
    for arg, value in pairs:
        if arg == "-q":
            settings["quiet"] = True
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
            options["weights"][option_value(arg[2:], arg, int)] = \
                option_value(value, arg, float)
        elif arg == "--threads":
            options["threads"] = option_value(value, arg, int)
        elif arg == "--selection":
            options["selection"] = value
        elif arg == "--seed":
            options["seed"] = option_value(value, arg, int)
        else:
            raise UsageError(f"Unknown option: {arg}")
    settings["input"], settings["model"] = training_files(files)
    return options, settings


def libsvm_check_parameter(options, y):
    """LIBSVM's svm_check_parameter, in its order and words: the first problem, with
    libsmo's detail after it, or None."""
    svm_type, kernel = options["svm_type"], options["kernel_type"]
    if not 0 <= svm_type < len(SVM_TYPES):
        return f"unknown svm type (-s {svm_type})"
    if not 0 <= kernel < len(KERNELS):
        return f"unknown kernel type (-t {kernel})"
    name, kernel_name = SVM_TYPES[svm_type], KERNELS[kernel]
    if kernel_name in ("poly", "rbf", "sigmoid") and options["gamma"] < 0:
        return f"gamma < 0 (-g {options['gamma']:g})"
    if kernel_name == "poly" and options["degree"] < 0:
        return f"degree of polynomial kernel < 0 (-d {options['degree']})"
    checks = [
        (options["cache_size"] != "auto" and not options["cache_size"] > 0,
         "cache_size <= 0", "-m", "cache_size"),
        (not options["eps"] > 0, "eps <= 0", "-e", "eps"),
        (name in ("c_svc", "epsilon_svr", "nu_svr") and not options["C"] > 0, "C <= 0",
         "-c", "C"),
        (name in ("nu_svc", "one_class", "nu_svr") and not 0 < options["nu"] <= 1,
         "nu <= 0 or nu > 1", "-n", "nu"),
        (name == "epsilon_svr" and not options["p"] >= 0, "p < 0", "-p", "p"),
        (options["shrinking"] not in (0, 1), "shrinking != 0 and shrinking != 1", "-h",
         "shrinking"),
        (options["probability"] not in (0, 1), "probability != 0 and probability != 1",
         "-b", "probability"),
    ]
    for failed, words, flag, key in checks:
        if failed:
            return f"{words} ({flag} {options[key]:g})"
    if name == "nu_svc":
        return _nu_infeasible(options["nu"], y)
    return None


def _nu_infeasible(nu, y):
    """LIBSVM's nu-SVC feasibility over the class counts: nu (n1 + n2) / 2 <= min(n1, n2)
    for every pair of classes."""
    import numpy as np
    labels, counts = np.unique(y, return_counts=True)
    for a in range(len(counts)):
        for b in range(a + 1, len(counts)):
            if nu * (counts[a] + counts[b]) / 2 > min(counts[a], counts[b]):
                most = 2 * min(counts[a], counts[b]) / (counts[a] + counts[b])
                return (f"specified nu is infeasible (nu={nu:g} > {most:g} for classes "
                        f"{labels[a]:g} and {labels[b]:g})")
    return None


def check_labels(y, svm_type, files="LIBSVM's"):
    """LIBSVM's (and LIBLINEAR's) model files store class labels as C ints: refuse
    others before training, naming the first."""
    import numpy as np
    if svm_type not in CLASSIFICATION_TYPES or len(y) == 0:
        return
    bad = np.flatnonzero((y != np.round(y)) | (y < -INT_MAX - 1) | (y > INT_MAX))
    if len(bad):
        raise CommandError(f"ERROR: class labels must be integers, as {files} model files "
                           f"store them: example {bad[0] + 1} has label {float(y[bad[0]]):g}")


def train_keywords(options):
    """The keywords of libsmo.train for checked LIBSVM options."""
    svm_type, kernel = SVM_TYPES[options["svm_type"]], KERNELS[options["kernel_type"]]
    keywords = dict(svm_type=svm_type, kernel=kernel, C=options["C"], nu=options["nu"],
                    epsilon=options["p"], coef0=options["coef0"],
                    cache_size=options["cache_size"], tol=options["eps"],
                    shrinking=bool(options["shrinking"]),
                    probability=bool(options["probability"]), n_threads=options["threads"],
                    selection=options["selection"])
    # LIBSVM reads gamma 0 as 1/num_features, and ignores gamma and degree where its
    # kernel does not use them
    if kernel in ("poly", "rbf", "sigmoid") and options["gamma"] != 0:
        keywords["gamma"] = options["gamma"]
    if kernel == "poly":
        keywords["degree"] = options["degree"]
    if options["weights"] and svm_type in CLASSIFICATION_TYPES:
        keywords["class_weight"] = dict(options["weights"])
    return keywords


def training_failed(exc):
    """One line for arithmetic that failed inside training (a division by a zero
    margin, say), where svm-train would write a model of NaNs: an error, not a
    traceback."""
    return f"ERROR: training failed ({type(exc).__name__}: {exc})"


class _ProgressLine:
    """A live progress line on a terminal's stderr, rewritten in place."""

    def __init__(self, stream):
        self.stream = stream
        self.shown = False

    def __call__(self, info):
        self.stream.write(f"\r  iter {info['n_iter']:>9d}  active {info['active_size']:>8d}  "
                          f"violation {info['violation']:9.3g}  objective "
                          f"{info['objective']:.6g}   ")
        self.stream.flush()
        self.shown = True

    def close(self):
        if self.shown:
            self.stream.write("\r" + " " * 79 + "\r")
            self.stream.flush()


def _no_progress(info):
    """The callback when there is no terminal: nothing (and no progress lines among
    LIBSVM's on stdout)."""


@command("libsmo-train")
def train_main(argv):
    """libsmo-train: svm-train's options and files. Returns the exit status."""
    try:
        options, settings = parse_train_args(argv)
    except UsageError as exc:
        return usage(TRAIN_USAGE, str(exc))
    verbose = lines_to_stdout(settings["quiet"])
    kernel = (KERNELS[options["kernel_type"]] if 0 <= options["kernel_type"] < len(KERNELS)
              else "rbf")
    from libsmo._utils.row_layout import dense_copy_budget
    problem = read_problem(settings["input"], kernel,
                           dense_copy_bytes=dense_copy_budget(options["cache_size"]))
    refusal = libsvm_check_parameter(options, problem.y)
    if refusal is not None:
        raise CommandError(f"ERROR: {refusal}")
    keywords = train_keywords(options)
    check_labels(problem.y, keywords["svm_type"])
    from libsmo._utils.random_sources import LibsvmRandom
    try:
        random_state = LibsvmRandom(options["seed"])
    except (TypeError, ValueError) as exc:
        raise CommandError(f"ERROR: --seed: {exc}") from None
    if settings["folds"]:
        return _cross_validate(problem, settings["folds"], keywords, random_state, verbose)
    return _train_and_save(problem, keywords, random_state, verbose, settings["model"])


def _cross_validate(problem, folds, keywords, random_state, verbose):
    from libsmo.training._crossval import cross_validation
    try:
        result = cross_validation(problem.X, problem.y, folds, random_state=random_state,
                                  verbose=verbose, callback=_no_progress if verbose else None,
                                  **keywords)
    except (TypeError, ValueError) as exc:
        raise CommandError(f"ERROR: {exc}") from None
    except ArithmeticError as exc:
        raise CommandError(training_failed(exc)) from None
    if keywords["svm_type"] in REGRESSION_TYPES:
        from libsmo._utils.libsvm_figures import printf_g
        write_stdout(f"Cross Validation Mean squared error = {printf_g(result['mse'])}\n"
                     "Cross Validation Squared correlation coefficient = "
                     f"{printf_g(result['squared_correlation'])}\n")
    else:
        write_stdout(f"Cross Validation Accuracy = {result.get('accuracy', 0.0):g}%\n")
    return 0


def _train_and_save(problem, keywords, random_state, verbose, model_file):
    import sys

    from libsmo.io.model_file import save_model
    from libsmo.model._one_vs_one import all_one_class
    from libsmo.training._fitting import fit
    from libsmo.training._params import TrainParams
    progress = None
    if verbose:
        terminal = sys.stderr is not None and sys.stderr.isatty()
        progress = _ProgressLine(sys.stderr) if terminal else _no_progress
    try:
        params = TrainParams.from_kwargs(verbose=verbose, callback=progress,
                                         random_state=random_state, **keywords)
        try:
            model = (_single_class_model(problem, params, verbose)
                     if (params.svm_type in CLASSIFICATION_TYPES
                         and all_one_class(problem.y))
                     else fit(problem.X, problem.y, params))
        finally:
            if isinstance(progress, _ProgressLine):
                progress.close()
    except (TypeError, ValueError) as exc:
        raise CommandError(f"ERROR: {exc}") from None
    except ArithmeticError as exc:
        raise CommandError(training_failed(exc)) from None
    if problem.serials is not None:
        # a precomputed kernel's support vectors are written as 0:serial number
        model = model.replace(support=problem.serials[model.support] - 1)
    try:
        save_model(model, model_file, libsvm_precision=True)
    except OSError as exc:
        raise CommandError(f"can't save model to file {model_file} "
                           f"({exc.strerror or exc})") from None
    return 0


def _single_class_model(problem, params, verbose):
    """svm-train's model of training data in one class: LIBSVM warns (on stdout, as its
    other lines), trains no pair, and its model, of no support vector and no rho,
    predicts that label for every row. libsmo.train refuses such data, as
    scikit-learn does; the command keeps svm-train's behaviour and its model file."""
    import numpy as np

    from libsmo.model._model import Model
    from libsmo.model._one_vs_one import ONE_CLASS_LINES
    from libsmo.training._pairs import class_factors
    if verbose:
        write_stdout("".join(line + "\n" for line in ONE_CLASS_LINES))
    class_factors(problem.y[:1], params)   # LIBSVM's warning for a -wi of another label
    precomputed = params.kernel.kernel == "precomputed"
    n_features = problem.X.shape[0] if precomputed else problem.X.shape[1]
    kernel = params.kernel.for_data(n_features)
    empty = np.zeros(0)
    return Model(svm_type=params.svm_type, kernel=kernel.kernel, gamma=kernel.gamma,
                 degree=kernel.degree, coef0=kernel.coef0, classes=problem.y[:1],
                 n_support=[0], support=np.zeros(0, dtype=np.int64),
                 support_vectors=None if precomputed else np.zeros((0, n_features)),
                 sv_coef=np.zeros((1, 0)), rho=empty, n_features=n_features,
                 probA=empty if params.probability else None,
                 probB=empty if params.probability else None)


__all__ = ["TRAIN_USAGE", "libsvm_check_parameter", "parse_train_args", "train_main"]
