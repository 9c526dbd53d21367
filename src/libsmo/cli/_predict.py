"""libsmo-predict: svm-predict's command line, checks, lines and output file.

Output lines are svm-predict's: a label per line ("%.17g"), or with -b 1 a "labels ..."
header and "label p1 p2 ..." lines ("%g"); one-class models trained with probabilities
write LIBSVM 3.30's "label normal outlier" header. -b 1 on a model without probability
information is refused as svm-predict refuses it. A prediction that fails (a model whose
numbers overflow, a precomputed model needing more columns than the file has) is one
line on stderr and status 1, never a traceback. The output file is written whole or not
at all.
"""
from libsmo._utils.names import CLASSIFICATION_TYPES, REGRESSION_TYPES
from libsmo.cli._common import CommandError, UsageError, command, usage, write_stdout

PREDICT_USAGE = """\
Usage: libsmo-predict [options] test_file model_file output_file
options:
-b probability_estimates: whether to predict probability estimates, 0 or 1 (default 0); for one-class SVM only 0 is supported
-q : quiet mode (no outputs)
"""


def parse_predict_args(argv, unknown="Unknown option"):
    """svm-predict's (and liblinear-predict's) command line: (probability, quiet,
    test_file, model_file, output_file); `unknown` starts the message of an unknown
    option."""
    probability, quiet = False, False
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        if argv[i] == "-q":
            quiet = True
            i += 1
        elif argv[i] == "-b" and i + 1 < len(argv):
            if argv[i + 1] not in ("0", "1"):
                raise UsageError(f"Wrong value for -b: {argv[i + 1]!r} (0 or 1)")
            probability = argv[i + 1] == "1"
            i += 2
        else:
            raise UsageError(f"{unknown}: {argv[i]}")
    if len(argv) - i != 3:
        raise UsageError("")
    return (probability, quiet, *argv[i:])


def _prediction_lines(model, X, probability, quiet):
    """The output file's lines, the predicted values, and what svm-predict prints
    before them."""
    import numpy as np
    notes = []
    if probability and model.svm_type in CLASSIFICATION_TYPES + ("one_class",):
        proba = model.predict_proba(X)
        if model.svm_type == "one_class":
            predicted = model.predict(X)   # LIBSVM labels by the decision value here
            header = "label normal outlier"
        else:
            predicted = model.classes[np.argmax(proba, axis=1)]
            header = "labels " + " ".join(f"{int(c)}" for c in model.classes)
        lines = [header] + [f"{p:g} " + " ".join(f"{q:g}" for q in row)
                            for p, row in zip(predicted, proba)]
        return lines, np.asarray(predicted, dtype=float), notes
    if probability:   # a regression with its Laplace scale
        notes.append("Prob. model for test data: target value = predicted value + z,\n"
                     "z: Laplace distribution e^(-|z|/sigma)/(2sigma),"
                     f"sigma={model.probA[0]:g}\n")
    predicted = np.asarray(model.predict(X), dtype=float)
    return [f"{p:.17g}" for p in predicted], predicted, notes


def _has_probability(model):
    """svm_check_probability_model (with LIBSVM 3.30's one-class marks)."""
    if model.svm_type in CLASSIFICATION_TYPES:
        return model.probA is not None and model.probB is not None
    if model.svm_type in REGRESSION_TYPES:
        return model.probA is not None
    return model.prob_density_marks is not None


def prediction_summary(y, predicted, regression, accuracy_suffix=" (classification)"):
    """svm-predict's (and liblinear-predict's) closing lines: the mean squared error and
    squared correlation of a regression, else the accuracy (`accuracy_suffix` after it:
    liblinear-predict has none), with LIBSVM's sums and divisions
    (`libsmo._utils.libsvm_figures`)."""
    import numpy as np

    from libsmo._utils.libsvm_figures import c_divide, printf_g, regression_figures
    if regression:
        mse, squared_correlation = regression_figures(y, predicted)
        return (f"Mean squared error = {printf_g(mse)} (regression)\n"
                f"Squared correlation coefficient = {printf_g(squared_correlation)} "
                "(regression)\n")
    correct, n = int(np.sum(predicted == y)), len(y)
    # svm-predict and liblinear-predict: (double)correct / total * 100
    return (f"Accuracy = {printf_g(c_divide(correct, n) * 100)}% ({correct}/{n})"
            f"{accuracy_suffix}\n")


@command("libsmo-predict")
def predict_main(argv):
    """libsmo-predict: svm-predict's options and files. Returns the exit status."""
    try:
        probability, quiet, test_file, model_file, output_file = parse_predict_args(argv)
    except UsageError as exc:
        return usage(PREDICT_USAGE, str(exc))
    from libsmo.cli._data import check_input_file, read_test_rows
    check_input_file(test_file)
    from libsmo._utils.row_layout import DENSE_COPY_BYTES
    from libsmo.io import load_model, write_atomically
    try:
        # dense support vectors where they are dense enough: no scipy for small models
        model = load_model(model_file, dense_copy_bytes=DENSE_COPY_BYTES)
    except OSError as exc:
        raise CommandError(f"can't open model file {model_file} "
                           f"({exc.strerror or exc})") from None
    except ValueError as exc:
        raise CommandError(f"can't open model file {model_file} ({exc})") from None
    if probability and not _has_probability(model):
        raise CommandError("Model does not support probabiliy estimates")
    if not probability and _has_probability(model) and not quiet:
        write_stdout("Model supports probability estimates, but disabled in prediction.\n")
    problem = read_test_rows(test_file, model.kernel, model.n_features)
    try:
        lines, predicted, notes = _prediction_lines(model, problem.X, probability, quiet)
    except Exception as exc:   # whatever the model's numbers do: one line, no traceback
        raise CommandError(f"can't predict with model file {model_file}: {exc}") from None
    if notes and not quiet:
        write_stdout("".join(notes))
    try:
        write_atomically(output_file, ("\n".join(lines) + ("\n" if lines else "")).encode())
    except OSError as exc:
        raise CommandError(f"can't open output file {output_file} "
                           f"({exc.strerror or exc})") from None
    if not quiet:
        write_stdout(prediction_summary(problem.y, predicted,
                                        model.svm_type in REGRESSION_TYPES))
    return 0
