"""Command-line tools that take LIBSVM's options: libsmo-train, libsmo-predict,
libsmo-scale and libsmo-grid (also `python -m libsmo train|predict|scale|grid`); and
LIBLINEAR's: libsmo-linear-train and libsmo-linear-predict (`python -m libsmo
linear-train|linear-predict`).

They read and write LIBSVM's files and print LIBSVM's lines, so that a script written
for svm-train / svm-predict / svm-scale / svm-grid runs unchanged (`libsmo.cli._common`
states the conventions; docs/user_guide/libsvm.md lists the lines that still differ).
Each tool lives in its own module, imported when it runs: this one imports nothing
heavy, so `-h`, usage errors and `python -m libsmo` start without numpy or scipy.
"""
import sys

_TOOLS = {"train": ("libsmo.cli._train", "train_main"),
          "predict": ("libsmo.cli._predict", "predict_main"),
          "scale": ("libsmo.cli._scale", "scale_main"),
          "grid": ("libsmo.cli._grid", "grid_main"),
          "linear-train": ("libsmo.cli._linear_train", "linear_train_main"),
          "linear-predict": ("libsmo.cli._linear_predict", "linear_predict_main")}


def _run(tool, argv):
    import importlib
    module, function = _TOOLS[tool]
    return getattr(importlib.import_module(module), function)(argv)


def train_main(argv=None):
    """Run libsmo-train: svm-train's options, files and lines.

    ``libsmo-train [options] training_set_file [model_file]`` reads LIBSVM's data
    file, checks the parameters in LIBSVM's order and words, then trains and writes
    the model file (or, with ``-v n``, prints the cross-validation figures), with
    svm-train's lines on stdout. Options are svm-train's (``-s -t -d -g -r -c -n
    -p -m -e -h -b -wi -v -q``) and libsmo's ``--threads``, ``--selection`` and
    ``--seed``. A usage error prints the usage and returns 1.

    Parameters
    ----------
    argv : list of str, default=None
        The command's arguments; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 on success, 1 on a usage error or a failure (one line
        on stderr, no traceback), 130 when interrupted.

    See Also
    --------
    libsmo.train : The training behind the command.
    predict_main : The command libsmo-predict, which predicts with the model file.

    Notes
    -----
    Random draws (``-v`` folds, ``-b 1``'s internal folds) are glibc's rand()
    after srand(1), as svm-train's, unless ``--seed`` says otherwise, so that two
    runs print the same lines, and the same as svm-train's.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> from sklearn.datasets import load_iris
    >>> import libsmo
    >>> from libsmo.cli import train_main
    >>> X, y = load_iris(return_X_y=True)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     data = os.path.join(folder, "iris.txt")
    ...     libsmo.dump_svmlight_file(X, y, data)
    ...     status = train_main(["-q", "-c", "4", data, os.path.join(folder, "iris.model")])
    ...     status = train_main(["-q", "-v", "5", data])
    Cross Validation Accuracy = 98%
    """
    return _run("train", argv)


def predict_main(argv=None):
    """Run libsmo-predict: svm-predict's options, files and lines.

    ``libsmo-predict [options] test_file model_file output_file`` predicts every
    row of a LIBSVM data file with a LIBSVM model file (svm-train's or
    libsmo-train's), writes one prediction a line (with ``-b 1``, the
    probabilities too) and prints svm-predict's accuracy or regression figures.

    Parameters
    ----------
    argv : list of str, default=None
        The command's arguments; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 on success, 1 on a usage error or a failure (one line
        on stderr, no traceback, no output file written).

    See Also
    --------
    libsmo.load_model : Read the model file.
    train_main : The command libsmo-train, which writes the model file.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> from sklearn.datasets import load_iris
    >>> import libsmo
    >>> from libsmo.cli import predict_main, train_main
    >>> X, y = load_iris(return_X_y=True)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     data = os.path.join(folder, "iris.txt")
    ...     model = os.path.join(folder, "iris.model")
    ...     libsmo.dump_svmlight_file(X, y, data)
    ...     status = train_main(["-q", "-c", "4", data, model])
    ...     status = predict_main([data, model, os.path.join(folder, "predictions")])
    Accuracy = 97.3333% (146/150) (classification)
    """
    return _run("predict", argv)


def scale_main(argv=None):
    """Run libsmo-scale: svm-scale's options; the scaled data on stdout.

    ``libsmo-scale [-l lower] [-u upper] [-y y_lower y_upper] [-s save_filename]
    [-r restore_filename] filename`` scales each feature of a LIBSVM data file to
    [lower, upper] with svm-scale's arithmetic, and writes or reads svm-scale's
    range file.

    Parameters
    ----------
    argv : list of str, default=None
        The command's arguments; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 on success, 1 on a usage error or a failure.

    See Also
    --------
    libsmo.Scaler : The scaling behind the command.

    Examples
    --------
    The scaled rows are written to ``sys.stdout`` as bytes (as svm-scale writes
    them); here they are caught in a buffer:

    >>> import contextlib
    >>> import io
    >>> import os
    >>> import tempfile
    >>> import numpy as np
    >>> import libsmo
    >>> from libsmo.cli import scale_main
    >>> X = np.array([[1.0, 10.0], [2.0, 30.0], [3.0, 20.0]])
    >>> out = io.TextIOWrapper(io.BytesIO())
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     data = os.path.join(folder, "data.txt")
    ...     libsmo.dump_svmlight_file(X, np.array([1, -1, 1]), data)
    ...     with contextlib.redirect_stdout(out):
    ...         status = scale_main(["-l", "0", "-u", "1", data])
    >>> out.flush()
    >>> print(out.buffer.getvalue().decode())
    1
    -1 1:0.5 2:1
    1 1:1 2:0.5
    <BLANKLINE>
    """
    return _run("scale", argv)


def grid_main(argv=None):
    """Run libsmo-grid: svm-grid's options and output, the whole grid in one process.

    ``libsmo-grid [grid_options] [svm_options] dataset`` cross-validates every
    (C, gamma) of the grid (``-log2c begin,end,step``, ``-log2g ...``, ``-v n``)
    with svm-train's folds, prints svm-grid's line for each cell in its job order
    and the best C, gamma and rate last, and writes svm-grid's ``.out`` file and
    contour picture (``-out``, ``-png``, ``-gnuplot``; ``null`` for none).

    Parameters
    ----------
    argv : list of str, default=None
        The command's arguments; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 on success, 1 on a usage error or a failure.

    See Also
    --------
    libsmo.training.grid_search : The search behind the command.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> from sklearn.datasets import load_iris
    >>> import libsmo
    >>> from libsmo.cli import grid_main
    >>> X, y = load_iris(return_X_y=True)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     data = os.path.join(folder, "iris.txt")
    ...     libsmo.dump_svmlight_file(X, y, data)
    ...     status = grid_main(["-log2c", "-1,1,2", "-log2g", "-3,-1,2", "-out", "null",
    ...                         "-gnuplot", "null", data])
    [local] 1.0 -1.0 96.6667 (best c=2.0, g=0.5, rate=96.6667)
    [local] 1.0 -3.0 97.3333 (best c=2.0, g=0.125, rate=97.3333)
    [local] -1.0 -1.0 97.3333 (best c=2.0, g=0.125, rate=97.3333)
    [local] -1.0 -3.0 97.3333 (best c=0.5, g=0.125, rate=97.3333)
    0.5 0.125 97.3333
    """
    return _run("grid", argv)


def linear_train_main(argv=None):
    """Run libsmo-linear-train: liblinear-train's options, files and lines.

    ``libsmo-linear-train [options] training_set_file [model_file]`` reads LIBSVM's
    data file, checks the parameters in LIBLINEAR's order and words, then trains the
    linear SVM and writes LIBLINEAR's model file (or, with ``-v n``, prints the
    cross-validation accuracy or mean squared error). Options are LIBLINEAR 2.50's
    (``-s -c -p -e -B -wi -v -q``) for its support vector machines, solver types 1, 2,
    3, 4, 5, 11, 12 and 13; its logistic regressions and one-class SVM are refused by
    name. A usage error prints the usage and returns 1.

    Parameters
    ----------
    argv : list of str, default=None
        The command's arguments; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 on success, 1 on a usage error or a failure (one line
        on stderr, no traceback, no model file written), 130 when interrupted.

    See Also
    --------
    linear_predict_main : The command libsmo-linear-predict, which predicts with the
        model file.
    libsmo.LinearSVC : The estimator on the same solvers (scikit-learn's problems).

    Notes
    -----
    The cross-validation folds are LIBLINEAR's (glibc's rand() after srand(1)); the
    solvers' random permutations are libsmo's, so a model equals liblinear-train's
    to the solver's tolerance, not to the bit.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> from sklearn.datasets import load_iris
    >>> import libsmo
    >>> from libsmo.cli import linear_train_main
    >>> X, y = load_iris(return_X_y=True)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     data = os.path.join(folder, "iris.txt")
    ...     libsmo.dump_svmlight_file(X, y, data)
    ...     status = linear_train_main(["-q", "-s", "2", "-B", "1", data,
    ...                                 os.path.join(folder, "iris.model")])
    ...     status = linear_train_main(["-q", "-s", "2", "-B", "1", "-v", "5", data])
    Cross Validation Accuracy = 94.6667%
    """
    return _run("linear-train", argv)


def linear_predict_main(argv=None):
    """Run libsmo-linear-predict: liblinear-predict's options, files and lines.

    ``libsmo-linear-predict [-b 0|1] [-q] test_file model_file output_file`` predicts
    every row of a LIBSVM data file with a LIBLINEAR model file (liblinear-train's or
    libsmo-linear-train's, of any solver type), writes one label or value a line as
    liblinear-predict does (with ``-b 1``, a logistic regression's labels and
    probabilities), and prints its accuracy or regression figures.

    Parameters
    ----------
    argv : list of str, default=None
        The command's arguments; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 on success, 1 on a usage error or a failure (one line
        on stderr, no traceback, no output file written).

    See Also
    --------
    libsmo.io.load_liblinear_model : Read the model file.
    linear_train_main : The command libsmo-linear-train, which writes the model file.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> from sklearn.datasets import load_iris
    >>> import libsmo
    >>> from libsmo.cli import linear_predict_main, linear_train_main
    >>> X, y = load_iris(return_X_y=True)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     data = os.path.join(folder, "iris.txt")
    ...     model = os.path.join(folder, "iris.model")
    ...     libsmo.dump_svmlight_file(X, y, data)
    ...     status = linear_train_main(["-q", "-s", "2", "-B", "1", data, model])
    ...     status = linear_predict_main([data, model, os.path.join(folder, "out")])
    Accuracy = 96.6667% (145/150)
    """
    return _run("linear-predict", argv)


def main(argv=None):
    """Run ``python -m libsmo train|predict|scale|grid|linear-train|linear-predict ...``.

    The first argument names the command; the others are its own, as for
    libsmo-train, libsmo-predict, libsmo-scale and libsmo-grid.

    Parameters
    ----------
    argv : list of str, default=None
        The command's name and its arguments; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The command's exit status; 1 (and a usage line) when no known command is
        named.

    See Also
    --------
    train_main : The command libsmo-train.
    predict_main : The command libsmo-predict.
    scale_main : The command libsmo-scale.
    grid_main : The command libsmo-grid.
    linear_train_main : The command libsmo-linear-train.
    linear_predict_main : The command libsmo-linear-predict.

    Examples
    --------
    >>> from libsmo.cli import main
    >>> main(["help"])
    Usage: python -m libsmo train|predict|scale|grid|linear-train|linear-predict [options] ...
    1
    """
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in _TOOLS:
        print("Usage: python -m libsmo train|predict|scale|grid|linear-train|linear-predict "
              "[options] ...")
        return 1
    return _run(argv[0], argv[1:])

