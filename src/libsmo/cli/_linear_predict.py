"""libsmo-linear-predict: liblinear-predict's command line, checks, lines and output
file (LIBLINEAR 2.50's predict).

The output file holds a label or value a line ("%.17g", liblinear-predict's), computed
as LIBLINEAR computes the decision values (the terms in each row's order, the bias
feature's last), so that the file is liblinear-predict's; the summary is its
"Accuracy = ..% (a/b)" or, for a regression model, its mean squared error and squared
correlation lines. Models written by liblinear-train, liblinear-official or
libsmo-linear-train are read (`libsmo.io.liblinear_model`), of every solver type:
the support vector machines, the logistic regressions and the one-class SVM (+1 or
-1). ``-b 1`` writes a logistic regression's probabilities as liblinear-predict does (a
"labels ..." line, then a row's label and its classes' probabilities, each "%g"), and
is refused for the other types as liblinear-predict refuses it. Test values that are
NaN or infinite (or overflow, "1e400") are refused, as libsmo-predict refuses them. The
output file is written whole or not at all.
"""
from libsmo.cli._common import CommandError, UsageError, command, usage, write_stdout

LINEAR_PREDICT_USAGE = """\
Usage: libsmo-linear-predict [options] test_file model_file output_file
options:
-b probability_estimates: whether to output probability estimates, 0 or 1 (default 0); currently for logistic regression only
-q : quiet mode (no outputs)
"""


def parse_linear_predict_args(argv):
    """liblinear-predict's command line: (probability, quiet, test_file, model_file,
    output_file), read as svm-predict's is (`libsmo.cli._predict.parse_predict_args`)
    with LIBLINEAR's "unknown option" words."""
    from libsmo.cli._predict import parse_predict_args
    return parse_predict_args(argv, unknown="unknown option")


@command("libsmo-linear-predict")
def linear_predict_main(argv):
    """libsmo-linear-predict: liblinear-predict's options and files. Returns the exit
    status."""
    try:
        probability, quiet, test_file, model_file, output_file = \
            parse_linear_predict_args(argv)
    except UsageError as exc:
        return usage(LINEAR_PREDICT_USAGE, str(exc))
    from libsmo.cli._data import check_input_file, read_problem
    check_input_file(test_file)
    from libsmo.io import write_atomically
    from libsmo.io.liblinear_model import load_liblinear_model
    try:
        model = load_liblinear_model(model_file)
    except OSError as exc:
        raise CommandError(f"can't open model file {model_file} "
                           f"({exc.strerror or exc})") from None
    except ValueError as exc:
        raise CommandError(f"can't open model file {model_file} ({exc})") from None
    from libsmo.io.liblinear_model import LOGISTIC, REGRESSION
    if probability and model.solver_type not in LOGISTIC:
        raise CommandError("probability output is only supported for logistic regression "
                           f"(the model is {model.solver_type})")
    problem = read_problem(test_file, "linear", dense_copy_bytes=0)
    from libsmo.training._liblinear import predict, predict_probability
    try:
        # (liblinear-predict refuses "1:1e400", which strtod overflows; NaN and
        # infinite values are refused as libsmo-predict refuses them)
        from libsmo._utils.validation import check_finite
        check_finite(problem.X)
        if probability:
            predicted, probabilities = predict_probability(model, problem.X)
        else:
            predicted = predict(model, problem.X)
    except Exception as exc:   # whatever the model's numbers do: one line, no traceback
        raise CommandError(f"can't predict with model file {model_file}: {exc}") from None
    from libsmo.io._writer import format_table
    if probability:
        # predict.c: "labels" and each label " %d", then a row's "%g" and " %g" each
        import numpy as np
        header = "labels" + "".join(f" {label}" for label in model.labels) + "\n"
        text = header.encode() + format_table(
            np.column_stack([predicted, probabilities]), ("g", 6), trailing_blank=False)
    else:
        text = format_table(predicted.reshape(-1, 1), ("g", 17), trailing_blank=False)
    try:
        write_atomically(output_file, text)
    except OSError as exc:
        raise CommandError(f"can't open output file {output_file} "
                           f"({exc.strerror or exc})") from None
    if not quiet:
        from libsmo.cli._predict import prediction_summary
        write_stdout(prediction_summary(problem.y, predicted,
                                        model.solver_type in REGRESSION,
                                        accuracy_suffix=""))
    return 0


__all__ = ["LINEAR_PREDICT_USAGE", "linear_predict_main", "parse_linear_predict_args"]
