"""Command-line tools that take LIBSVM's options: libsmo-train, libsmo-predict,
libsmo-scale (also `python -m libsmo train|predict|scale`).

They read and write LIBSVM's files and print LIBSVM's lines, so that a script written
for svm-train / svm-predict / svm-scale runs unchanged. A bad option or file prints the
usage text and exits non-zero.
"""
import functools
import logging
import os
import sys
import warnings

import numpy as np

from libsmo.names import CLASSIFICATION_TYPES, KERNELS, REGRESSION_TYPES, SVM_TYPES

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
--threads n : OpenMP threads for kernel rows (default 1)
--selection s : partner choice, second_order (default) or platt
"""

PREDICT_USAGE = """\
Usage: libsmo-predict [options] test_file model_file output_file
options:
-b probability_estimates: whether to predict probability estimates, 0 or 1 (default 0); for one-class SVM only 0 is supported
-q : quiet mode (no outputs)
"""

SCALE_USAGE = """\
Usage: libsmo-scale [options] data_filename
options:
-l lower : x scaling lower limit (default -1)
-u upper : x scaling upper limit (default +1)
-y y_lower y_upper : y scaling limits (default: no y scaling)
-s save_filename : save scaling parameters to save_filename
-r restore_filename : restore scaling parameters from restore_filename
"""


class UsageError(Exception):
    """A bad command line: print the message and the usage text, exit 1."""


def _number(text, option, kind=float):
    try:
        return kind(text)
    except ValueError:
        raise UsageError(f"Wrong value for {option}: {text!r}") from None


def _choice(text, option, names):
    value = _number(text, option, int)
    if not 0 <= value < len(names):
        raise UsageError(f"Wrong value for {option}: {text}")
    return names[value]


def parse_train_args(argv):
    """svm-train's command line as keyword arguments of libsmo.train plus the tool's
    own settings (files, -v, -q).

    Returns
    -------
    params : dict
    settings : dict
        input, model, folds (or None), quiet, threads.
    """
    params = {"class_weight": {}}
    settings = {"folds": None, "quiet": False, "threads": 1}
    files = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if not arg.startswith("-") or arg == "-":
            files = argv[i:]
            break
        if arg == "-q":
            settings["quiet"] = True
            i += 1
            continue
        if i + 1 >= len(argv):
            raise UsageError(f"Missing value for {arg}")
        value = argv[i + 1]
        i += 2
        if arg == "-s":
            params["svm_type"] = _choice(value, arg, SVM_TYPES)
        elif arg == "-t":
            params["kernel"] = _choice(value, arg, KERNELS)
        elif arg == "-d":
            params["degree"] = _number(value, arg, int)
        elif arg == "-g":
            params["gamma"] = _number(value, arg)
        elif arg == "-r":
            params["coef0"] = _number(value, arg)
        elif arg == "-c":
            params["C"] = _number(value, arg)
        elif arg == "-n":
            params["nu"] = _number(value, arg)
        elif arg == "-p":
            params["epsilon"] = _number(value, arg)
        elif arg == "-m":
            params["cache_size"] = _number(value, arg)
        elif arg == "-e":
            params["tol"] = _number(value, arg)
        elif arg == "-h":
            params["shrinking"] = _choice(value, arg, [False, True])
        elif arg == "-b":
            params["probability"] = _choice(value, arg, [False, True])
        elif arg == "-v":
            settings["folds"] = _number(value, arg, int)
            if settings["folds"] < 2:
                raise UsageError("n-fold cross validation: n must >= 2")
        elif arg.startswith("-w") and len(arg) > 2:
            params["class_weight"][_number(arg[2:], arg)] = _number(value, arg)
        elif arg == "--threads":
            settings["threads"] = _number(value, arg, int)
        elif arg == "--selection":
            params["selection"] = value
        else:
            raise UsageError(f"Unknown option: {arg}")
    if not files or len(files) > 2:
        raise UsageError("")
    settings["input"] = files[0]
    settings["model"] = (files[1] if len(files) == 2
                         else os.path.basename(files[0]) + ".model")
    if not params["class_weight"]:
        del params["class_weight"]
    return params, settings


def _log_to_stdout(quiet):
    """LIBSVM prints its training lines on stdout; libsmo logs them: route them there."""
    logger = logging.getLogger("libsmo")
    for handler in list(logger.handlers):
        if getattr(handler, "_libsmo_cli", False):
            logger.removeHandler(handler)
    if quiet:
        return False
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler._libsmo_cli = True
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return True


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


def _read_problem(path, kernel):
    """(X, y) from a LIBSVM data file; for a precomputed kernel the dense Gram matrix
    (column 0 holds the serial numbers 1..n, as svm-train expects)."""
    from libsmo.io import load_svmlight_file
    if kernel == "precomputed":
        X, y = load_svmlight_file(path, zero_based=True)
        X = X.toarray()
        return X[:, 1:], y
    return load_svmlight_file(path)


def _interruptible(name):
    """Ctrl-C ends a tool with a one-line message and the shell's status for SIGINT
    (130), not a traceback; its files are written whole or not at all."""
    def wrap(tool):
        @functools.wraps(tool)
        def run(argv=None):
            try:
                return tool(argv)
            except KeyboardInterrupt:
                print(f"{name}: interrupted, no file written", file=sys.stderr)
                return 130
        return run
    return wrap


@_interruptible("libsmo-train")
def train_main(argv=None):
    """libsmo-train: svm-train's options and files. Returns the exit status."""
    from libsmo.params import TrainParams
    from libsmo.train import fit
    argv = sys.argv[1:] if argv is None else argv
    try:
        params, settings = parse_train_args(argv)
    except UsageError as exc:
        if str(exc):
            print(exc, file=sys.stderr)
        print(TRAIN_USAGE, end="", file=sys.stderr)
        return 1
    try:
        X, y = _read_problem(settings["input"], params.get("kernel", "rbf"))
    except OSError:
        print(f"can't open input file {settings['input']}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    verbose = _log_to_stdout(settings["quiet"])
    try:
        if settings["folds"]:
            from libsmo import cross_validation
            result = cross_validation(X, y, settings["folds"], n_threads=settings["threads"],
                                      **params)
            if params.get("svm_type", "c_svc") in REGRESSION_TYPES:
                print(f"Cross Validation Mean squared error = {result['mse']:g}")
                print("Cross Validation Squared correlation coefficient = "
                      f"{result['squared_correlation']:g}")
            else:
                print(f"Cross Validation Accuracy = {result['accuracy']:g}%")
            return 0
        progress = None
        if not settings["quiet"] and sys.stderr.isatty():
            progress = _ProgressLine(sys.stderr)
        train_params = TrainParams.from_kwargs(verbose=verbose, n_threads=settings["threads"],
                                               callback=progress, **params)
        try:
            model = fit(X, y, train_params)
        finally:
            if progress is not None:
                progress.close()
        model.save(settings["model"], libsvm_precision=True)
    except (ValueError, TypeError) as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"can't save model to file {settings['model']}: {exc}", file=sys.stderr)
        return 1
    return 0


@_interruptible("libsmo-predict")
def predict_main(argv=None):
    """libsmo-predict: svm-predict's options and files. Returns the exit status."""
    from libsmo.io import load_model, write_atomically
    argv = sys.argv[1:] if argv is None else argv
    probability, quiet = False, False
    i = 0
    try:
        while i < len(argv) and argv[i].startswith("-"):
            if argv[i] == "-q":
                quiet = True
                i += 1
            elif argv[i] == "-b" and i + 1 < len(argv):
                probability = _choice(argv[i + 1], "-b", [False, True])
                i += 2
            else:
                raise UsageError(f"Unknown option: {argv[i]}")
        if len(argv) - i != 3:
            raise UsageError("")
    except UsageError as exc:
        if str(exc):
            print(exc, file=sys.stderr)
        print(PREDICT_USAGE, end="", file=sys.stderr)
        return 1
    test_file, model_file, output_file = argv[i:]
    try:
        model = load_model(model_file)
    except (OSError, ValueError) as exc:
        print(f"can't open model file {model_file}: {exc}", file=sys.stderr)
        return 1
    try:
        X, y = _read_problem(test_file, model.kernel)
    except OSError:
        print(f"can't open input file {test_file}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    regression = model.svm_type in REGRESSION_TYPES
    lines = []
    if probability and model.svm_type in CLASSIFICATION_TYPES:
        if model.probA is None:
            print("Model does not support probabiliy estimates", file=sys.stderr)
            return 1
        proba = model.predict_proba(X)
        predicted = model.classes[np.argmax(proba, axis=1)]
        lines.append("labels " + " ".join(f"{c:g}" for c in model.classes))
        lines += [f"{p:g} " + " ".join(f"{q:g}" for q in row)
                  for p, row in zip(predicted, proba)]
    else:
        if probability and regression and model.probA is not None and not quiet:
            print("Prob. model for test data: target value = predicted value + z,\n"
                  "z: Laplace distribution e^(-|z|/sigma)/(2sigma),"
                  f"sigma={model.probA[0]:g}")
        predicted = model.predict(X).astype(float)
        lines = [f"{p:.17g}" for p in predicted]
    try:
        # whole or not at all, like the model files
        write_atomically(output_file,
                         ("\n".join(lines) + ("\n" if lines else "")).encode())
    except OSError:
        print(f"can't open output file {output_file}", file=sys.stderr)
        return 1
    if quiet:
        return 0
    n = len(y)
    if regression:
        mse = float(np.mean((predicted - y) ** 2)) if n else float("nan")
        corr = np.corrcoef(predicted, y)[0, 1] ** 2 if n > 1 else float("nan")
        print(f"Mean squared error = {mse:g} (regression)")
        print(f"Squared correlation coefficient = {corr:g} (regression)")
    else:
        correct = int(np.sum(predicted == y))
        print(f"Accuracy = {100.0 * correct / n if n else 0:g}% ({correct}/{n}) "
              "(classification)")
    return 0


@_interruptible("libsmo-scale")
def scale_main(argv=None):
    """libsmo-scale: svm-scale's options; writes the scaled data to stdout."""
    from libsmo.io import dump_svmlight_file, load_svmlight_file
    from libsmo.scaling import Scaler
    argv = sys.argv[1:] if argv is None else argv
    lower, upper, y_range, save, restore = -1.0, 1.0, None, None, None
    i = 0
    try:
        while i < len(argv) and argv[i].startswith("-"):
            arg = argv[i]
            if arg == "-y" and i + 2 < len(argv):
                y_range = (_number(argv[i + 1], arg), _number(argv[i + 2], arg))
                i += 3
                continue
            if i + 1 >= len(argv):
                raise UsageError(f"Missing value for {arg}")
            value = argv[i + 1]
            if arg == "-l":
                lower = _number(value, arg)
            elif arg == "-u":
                upper = _number(value, arg)
            elif arg == "-s":
                save = value
            elif arg == "-r":
                restore = value
            else:
                raise UsageError(f"Unknown option: {arg}")
            i += 2
        if len(argv) - i != 1:
            raise UsageError("")
        if not upper > lower or (y_range is not None and not y_range[1] > y_range[0]):
            raise UsageError("inconsistent lower/upper specification")
        if save and restore:
            raise UsageError("cannot use -r and -s simultaneously")
    except UsageError as exc:
        if str(exc):
            print(exc, file=sys.stderr)
        print(SCALE_USAGE, end="", file=sys.stderr)
        return 1
    data_file = argv[i]
    try:
        X, y = load_svmlight_file(data_file)
        scaler = (Scaler.load_range(restore) if restore
                  else Scaler(lower=lower, upper=upper, y_range=y_range).fit(X, y))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Xs, ys = scaler.transform(X, y)
        for w in caught:  # as svm-scale prints them
            print(f"WARNING: {w.message}", file=sys.stderr)
        if save:
            scaler.save_range(save)
        dump_svmlight_file(Xs, ys, sys.stdout.buffer, libsvm_precision=True)
    except OSError as exc:
        print(f"can't open file: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    sys.stdout.flush()
    return 0


def main(argv=None):
    """python -m libsmo train|predict|scale [options] ..."""
    argv = sys.argv[1:] if argv is None else argv
    tools = {"train": train_main, "predict": predict_main, "scale": scale_main}
    if not argv or argv[0] not in tools:
        print("Usage: python -m libsmo train|predict|scale [options] ...", file=sys.stderr)
        return 1
    return tools[argv[0]](argv[1:])
