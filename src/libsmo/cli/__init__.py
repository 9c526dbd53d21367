"""Command-line tools that take LIBSVM's options: libsmo-train, libsmo-predict,
libsmo-scale and libsmo-grid (also `python -m libsmo train|predict|scale|grid`).

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
          "grid": ("libsmo.cli._grid", "grid_main")}


def _run(tool, argv):
    import importlib
    module, function = _TOOLS[tool]
    return getattr(importlib.import_module(module), function)(argv)


def train_main(argv=None):
    """libsmo-train: svm-train's options and files. Returns the exit status."""
    return _run("train", argv)


def predict_main(argv=None):
    """libsmo-predict: svm-predict's options and files. Returns the exit status."""
    return _run("predict", argv)


def scale_main(argv=None):
    """libsmo-scale: svm-scale's options; the scaled data on stdout. Returns the exit
    status."""
    return _run("scale", argv)


def grid_main(argv=None):
    """libsmo-grid: svm-grid's options and output, the whole grid in one process.
    Returns the exit status."""
    return _run("grid", argv)


def main(argv=None):
    """python -m libsmo train|predict|scale|grid [options] ..."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in _TOOLS:
        print("Usage: python -m libsmo train|predict|scale|grid [options] ...")
        return 1
    return _run(argv[0], argv[1:])

