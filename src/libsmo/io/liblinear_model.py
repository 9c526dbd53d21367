"""LIBLINEAR's model files: the weights of a linear model as LIBLINEAR 2.50's save_model
writes them and its load_model reads them (liblinear-train, liblinear-predict,
liblinear-official's `save_model` / `load_model`).

The file::

    solver_type L2R_L2LOSS_SVC_DUAL
    nr_class 2
    label 1 -1
    nr_feature 123
    bias 1
    w
    0.123 
    ...

one line of nr_w weights per feature, then the bias feature's line where bias >= 0;
nr_w is 1 for two classes (the weights of label[0], the positive class), for
regression and for the one-class SVM (no label line; the one-class model's ``rho``
line follows bias), else nr_class (one column per class, in the label line's order).
Numbers are written with C's ``%.17g``, so that they read back to the same doubles.

The estimators train LIBLINEAR's support vector machines (`SVM_SOLVERS`), and
libsmo-linear-train its one-class SVM as well; the files of its logistic regressions
and one-class SVM (`PREDICT_ONLY`: no estimator holds them) are read and written too,
so that libsmo-linear-predict predicts with every model liblinear-train writes.
"""
import math
import numbers
from dataclasses import dataclass

import numpy as np

from libsmo.io._text import FLOAT_RE, INT_RE, fail_at_line
from libsmo.io._svmlight import read_numbers
from libsmo.io._writer import format_table
from libsmo.io.atomic import write_atomically
from libsmo.io.sources import _read_all

__all__ = ["LiblinearModel", "load_liblinear_model", "save_liblinear_model"]

# LIBLINEAR's solver types that are support vector machines: name -> its -s number
SVM_SOLVERS = {"L2R_L2LOSS_SVC_DUAL": 1, "L2R_L2LOSS_SVC": 2, "L2R_L1LOSS_SVC_DUAL": 3,
               "MCSVM_CS": 4, "L1R_L2LOSS_SVC": 5, "L2R_L2LOSS_SVR": 11,
               "L2R_L2LOSS_SVR_DUAL": 12, "L2R_L1LOSS_SVR_DUAL": 13}
REGRESSION = ("L2R_L2LOSS_SVR", "L2R_L2LOSS_SVR_DUAL", "L2R_L1LOSS_SVR_DUAL")
# LIBLINEAR's solver types that no estimator holds, which libsmo-linear-predict predicts
# with (the one-class SVM's libsmo-linear-train trains): name -> -s number
PREDICT_ONLY = {"L2R_LR": 0, "L1R_LR": 6, "L2R_LR_DUAL": 7, "ONECLASS_SVM": 21}
# the logistic regressions, whose decision values give probabilities (predict -b 1)
LOGISTIC = ("L2R_LR", "L1R_LR", "L2R_LR_DUAL")
ONE_CLASS = "ONECLASS_SVM"
INT32_MAX = 2**31 - 1
# the bytes of weights' text the reader parses at a time
WEIGHT_CHUNK = 1 << 18


@dataclass(frozen=True)
class LiblinearModel:
    """A LIBLINEAR model: what its model file holds.

    The weights of a linear model as LIBLINEAR lays them out, with its solver type and
    class labels; `libsmo.LinearSVC.from_model` and `libsmo.LinearSVR.from_model` make
    estimators of its support vector machines, and libsmo-linear-predict predicts with
    every type.

    Parameters
    ----------
    solver_type : str
        LIBLINEAR's name of the solver: one of its support vector machines
        (``"L2R_L2LOSS_SVC_DUAL"``, ``"L2R_L1LOSS_SVC_DUAL"``, ``"MCSVM_CS"``, ...), its
        logistic regressions (``"L2R_LR"``, ``"L1R_LR"``, ``"L2R_LR_DUAL"``) or its
        one-class SVM (``"ONECLASS_SVM"``).
    labels : tuple of int or None
        The class labels in the file's order; None for regression and the one-class
        SVM.
    n_features : int
        The number of features (LIBLINEAR's nr_feature), the bias feature not counted.
    bias : float
        The bias feature's value; negative for none.
    w : ndarray of shape (n_features + (bias >= 0), nr_w)
        The weights, one row per feature (the bias feature's last) and one column per
        class, or one column for two classes (label[0] positive), regression and the
        one-class SVM.
    rho : float, default=0.0
        The one-class SVM's offset: a row is an inlier (+1) where ``w'x - rho > 0``
        (liblinear-train writes ``inf`` for ``-n 1``: every row an outlier); 0 for the
        other types, whose files have no rho line.

    See Also
    --------
    load_liblinear_model : Read a model file.
    save_liblinear_model : Write one.

    Examples
    --------
    >>> import numpy as np
    >>> from libsmo.io.liblinear_model import LiblinearModel
    >>> m = LiblinearModel("L2R_L1LOSS_SVC_DUAL", (1, -1), 2, 1.0,
    ...                    np.array([[0.5], [-0.25], [0.1]]))
    >>> m.nr_w
    1
    """

    solver_type: str
    labels: tuple
    n_features: int
    bias: float
    w: np.ndarray
    rho: float = 0.0

    @property
    def nr_w(self):
        """Return the columns of `w` LIBLINEAR's format has for this model.

        Returns
        -------
        int
            1 for two classes (except Crammer-Singer's), for regression and for the
            one-class SVM, else the number of classes.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo.io import LiblinearModel
        >>> LiblinearModel("MCSVM_CS", (0, 1, 2), 1, -1.0, np.zeros((1, 3))).nr_w
        3
        """
        if self.labels is None or (len(self.labels) == 2 and self.solver_type != "MCSVM_CS"):
            return 1
        return len(self.labels)

    @property
    def n_rows(self):
        """Return the rows of `w`: the features, and the bias feature where bias >= 0.

        Returns
        -------
        int
            ``n_features + 1`` where bias >= 0, else ``n_features``.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo.io import LiblinearModel
        >>> LiblinearModel("L2R_L2LOSS_SVR", None, 4, 1.0, np.zeros((5, 1))).n_rows
        5
        """
        return self.n_features + (1 if self.bias >= 0 else 0)


def _has_labels(solver_type):
    return solver_type not in REGRESSION and solver_type != ONE_CLASS


def _check(model):
    if model.solver_type not in SVM_SOLVERS and model.solver_type not in PREDICT_ONLY:
        raise ValueError(f"solver_type {model.solver_type!r} is not one of LIBLINEAR's "
                         f"{sorted(SVM_SOLVERS) + sorted(PREDICT_ONLY)}")
    if (model.labels is None) == _has_labels(model.solver_type):
        raise ValueError("a regression or one-class model has no labels, a classifier "
                         "has them")
    if (not isinstance(model.rho, numbers.Real) or math.isnan(model.rho)
            or (model.rho != 0 and model.solver_type != ONE_CLASS)):
        raise ValueError(f"rho must be a number (a one-class model's may be infinite), "
                         f"and 0 but for a one-class model, got {model.rho!r}")
    if model.labels is not None:
        if len(model.labels) < 1 or len(set(model.labels)) != len(model.labels):
            raise ValueError(f"labels must be one or more distinct integers, got "
                             f"{model.labels}")
        if any(isinstance(label, (bool, np.bool_)) or not isinstance(label, numbers.Real)
               or not math.isfinite(label) or label != int(label)
               or not -INT32_MAX - 1 <= label <= INT32_MAX for label in model.labels):
            raise ValueError(f"LIBLINEAR's labels are 32-bit integers, got {model.labels}")
    if np.iscomplexobj(model.w):
        raise ValueError("w must hold real numbers, got complex ones")
    w = np.asarray(model.w, dtype=np.float64)
    if w.shape != (model.n_rows, model.nr_w):
        raise ValueError(f"w has shape {w.shape}, LIBLINEAR's format needs "
                         f"{(model.n_rows, model.nr_w)}")
    if not (np.all(np.isfinite(w)) and np.isfinite(model.bias)):
        raise ValueError("a LIBLINEAR model file cannot hold NaN or infinite numbers")
    return w


def liblinear_model_to_bytes(model):
    """Return the text of `model`'s LIBLINEAR model file, as save_model writes it.

    Parameters
    ----------
    model : LiblinearModel
        The model.

    Returns
    -------
    bytes
        The file's text.

    Raises
    ------
    ValueError
        The model is not one LIBLINEAR's format can hold: another solver type, labels
        that are not distinct 32-bit integers, a `w` of another shape, a rho where the
        type has none, NaN or infinite numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from libsmo.io.liblinear_model import LiblinearModel, liblinear_model_to_bytes
    >>> m = LiblinearModel("L2R_L1LOSS_SVC_DUAL", (1, -1), 1, -1.0, np.array([[0.5]]))
    >>> print(liblinear_model_to_bytes(m).decode(), end="")
    solver_type L2R_L1LOSS_SVC_DUAL
    nr_class 2
    label 1 -1
    nr_feature 1
    bias -1
    w
    0.5 
    """
    w = _check(model)
    lines = [f"solver_type {model.solver_type}",
             f"nr_class {2 if model.labels is None else len(model.labels)}"]
    if model.labels is not None:
        lines.append("label " + " ".join(str(int(label)) for label in model.labels))
    lines += [f"nr_feature {int(model.n_features)}", f"bias {model.bias:.17g}"]
    if model.solver_type == ONE_CLASS:
        lines.append(f"rho {model.rho:.17g}")
    lines.append("w")
    return (("\n".join(lines) + "\n").encode("ascii")
            + format_table(np.ascontiguousarray(w), ("g", 17)))


def save_liblinear_model(model, f):
    """Write `model` as a LIBLINEAR model file.

    liblinear-predict, liblinear-official's `load_model` and `load_liblinear_model`
    read it.

    Parameters
    ----------
    model : LiblinearModel
        The model to write.
    f : str, path-like or binary file object
        A path is written to a temporary file in its folder, then renamed into place:
        a failure leaves any previous file intact.

    Raises
    ------
    ValueError
        The model is not one LIBLINEAR's format can hold (see
        `liblinear_model_to_bytes`).

    See Also
    --------
    load_liblinear_model : Read a model file.
    libsmo.LinearSVC.save : The same for a fitted estimator.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> from libsmo.io.liblinear_model import (LiblinearModel, load_liblinear_model,
    ...                                        save_liblinear_model)
    >>> m = LiblinearModel("L2R_L2LOSS_SVR_DUAL", None, 2, 1.0,
    ...                    np.array([[0.5], [-1.5], [2.0]]))
    >>> out = io.BytesIO()
    >>> save_liblinear_model(m, out)
    >>> load_liblinear_model(io.BytesIO(out.getvalue())).w.ravel()
    array([ 0.5, -1.5,  2. ])
    """
    write_atomically(f, liblinear_model_to_bytes(model))


def _int(name, line_no, line, token, what, low=0):
    if not INT_RE.match(token):
        fail_at_line(name, line_no, line, f"{what} must be an integer")
    # (Python's int() refuses over 4,300 digits with a message of its own)
    value = int(token) if len(token) <= 20 else INT32_MAX + 1
    if not low <= value <= INT32_MAX:
        fail_at_line(name, line_no, line, f"{what} must be in [{low}, {INT32_MAX}]")
    return value


def _finite(name, line_no, line, token, what):
    value = float(token) if FLOAT_RE.match(token) else math.nan
    if not math.isfinite(value):     # (1e400 matches and overflows)
        fail_at_line(name, line_no, line, f"{what} must be a finite number")
    return value


def load_liblinear_model(f):
    r"""Read a LIBLINEAR model file (liblinear-train's, save_model's).

    The header (solver_type, nr_class, label, nr_feature, bias, and rho for the
    one-class SVM) and the weights are checked as they are read, so that a file
    LIBLINEAR would misread is refused rather than predicted with.

    Parameters
    ----------
    f : str, path-like or binary file object
        The model file; gzip, bzip2 and xz content is decompressed transparently.

    Returns
    -------
    LiblinearModel
        The model.

    Raises
    ------
    ValueError
        A solver type that is not LIBLINEAR's, unknown or repeated header lines, a rho
        line missing from a one-class model or given to another, counts that disagree
        (labels and nr_class, the weights and nr_feature), numbers that do not parse,
        NaN or infinite numbers. The message names the file and the line.

    See Also
    --------
    save_liblinear_model : Write a model file.
    libsmo.LinearSVC.from_model : An estimator predicting with a model file.

    Examples
    --------
    >>> import io
    >>> from libsmo.io.liblinear_model import load_liblinear_model
    >>> text = b"solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\n"
    >>> text += b"nr_feature 2\nbias 1\nw\n0.5 \n-0.25 \n0.125 \n"
    >>> m = load_liblinear_model(io.BytesIO(text))
    >>> m.labels, m.n_features, m.bias, m.w.shape
    ((1, -1), 2, 1.0, (3, 1))
    """
    raw, name = _read_all(f)
    header, line_no, position = {}, 0, 0
    while True:
        if position > len(raw):     # (past the text's last line, as split gives it)
            raise ValueError(f"{name}: no 'w' line: not a LIBLINEAR model file")
        end = raw.find(b"\n", position)
        end = len(raw) if end < 0 else end
        line, position = raw[position:end], end + 1
        line_no += 1
        tokens = line.split()
        if not tokens:
            continue
        key = tokens[0].decode("ascii", "replace")
        if key == "w":
            if len(tokens) > 1:
                fail_at_line(name, line_no, line, "the w line must hold w alone")
            break
        if key not in ("solver_type", "nr_class", "label", "nr_feature", "bias", "rho"):
            fail_at_line(name, line_no, line, "unknown text in model file")
        if key in header:
            fail_at_line(name, line_no, line, f"{key} given twice")
        if key != "label" and len(tokens) != 2:
            fail_at_line(name, line_no, line, f"{key} takes one value")
        header[key] = (tokens[1:], line_no, line)
    for key in ("solver_type", "nr_class", "nr_feature", "bias"):
        if key not in header:
            raise ValueError(f"{name}: the header has no {key} line")
    (solver,), at, text = header["solver_type"]
    solver = solver.decode("ascii", "replace")
    if solver not in SVM_SOLVERS and solver not in PREDICT_ONLY:
        fail_at_line(name, at, text, "unknown solver_type")
    (token,), at, text = header["nr_class"]
    # (1: liblinear-train's model of data of one class, which predicts that class)
    nr_class = _int(name, at, text, token, "nr_class", low=1)
    if not _has_labels(solver) and nr_class != 2:
        # (LIBLINEAR would read nr_class columns of weights, and crashes on 1)
        fail_at_line(name, at, text, "a regression or one-class model has nr_class 2")
    (token,), at, text = header["nr_feature"]
    n_features = _int(name, at, text, token, "nr_feature")
    (token,), at, text = header["bias"]
    bias = _finite(name, at, text, token, "bias")
    rho = 0.0
    if solver == ONE_CLASS:
        if "rho" not in header:
            raise ValueError(f"{name}: a one-class model's header needs a rho line")
        (token,), at, text = header["rho"]
        # (LIBLINEAR 2.50 writes "rho inf" for -n 1, and reads it)
        rho = (math.copysign(math.inf, -1.0 if token.startswith(b"-") else 1.0)
               if token.lstrip(b"+-").lower() in (b"inf", b"infinity")
               else _finite(name, at, text, token, "rho"))
    elif "rho" in header:
        fail_at_line(name, *header["rho"][1:], "only a one-class model has rho")
    labels = None
    if not _has_labels(solver):
        if "label" in header:
            fail_at_line(name, *header["label"][1:],
                         "a regression or one-class model has no labels")
    else:
        if "label" not in header:
            raise ValueError(f"{name}: a classifier's header needs a label line")
        tokens, at, text = header["label"]
        if len(tokens) != nr_class:
            fail_at_line(name, at, text, f"{len(tokens)} labels for nr_class {nr_class}")
        labels = tuple(_int(name, at, text, t, "a label", low=-INT32_MAX - 1)
                       for t in tokens)
        if len(set(labels)) != len(labels):
            fail_at_line(name, at, text, "a label given twice")
    shape = LiblinearModel(solver, labels, n_features, bias, np.zeros((0, 0)))
    expected = shape.n_rows * shape.nr_w
    # at most what the file's text can hold (a weight takes two bytes at least), so
    # that nr_feature alone cannot ask for memory
    values = np.empty(min(expected, (len(raw) - min(position, len(raw))) // 2 + 1))
    count = 0
    # the weights' lines a chunk at a time: a list of every line (and of every
    # weight as a Python float) took many times the file's size
    while position < len(raw):
        end = raw.find(b"\n", position + WEIGHT_CHUNK)
        end = len(raw) if end < 0 else end
        parsed = read_numbers(raw, position, end, values, count)
        if parsed >= 0:
            count += parsed
            line_no += raw.count(b"\n", position, end) + 1
            position = end + 1
            continue
        for line in raw[position:end].split(b"\n"):
            line_no += 1
            for token in line.split():
                value = _finite(name, line_no, line, token, "a weight")
                if count == expected:
                    fail_at_line(name, line_no, line, f"more than the {expected} weights "
                                 f"nr_feature {n_features}, bias and nr_class need")
                values[count] = value
                count += 1
        position = end + 1
    if count != expected:
        raise ValueError(f"{name}: {count} weights where nr_feature {n_features}, "
                         f"bias {bias:g} and nr_class {nr_class} need {expected}")
    w = values.reshape(shape.n_rows, shape.nr_w)
    return LiblinearModel(solver, labels, n_features, bias, w, rho)
