"""LIBSVM's model files.

`load_model` reads a LIBSVM model file (svm-train 3.x, libsvm-official), `save_model`
writes one in LIBSVM's layout: the header in svm_save_model's order
and formats (``%.17g`` for gamma, coef0, rho, probA, probB, prob_density_marks and the
coefficients), one line per support vector. Support vector values are written
losslessly by default; ``libsvm_precision=True`` writes them with ``%.8g`` as svm-train
does, so that a file svm-train wrote comes back byte for byte.

Every parse error is a ValueError naming the file and the line. A model saved to a path
goes through a temporary file (`libsmo.io.atomic`): a failure leaves any previous file
as it was.

This module imports `libsmo.model.Model`; the model layer never imports io.
"""
import math

import numpy as np

from libsmo._utils.names import (
    CLASSIFICATION_TYPES,
    INT_MAX,
    LIBSVM_KERNEL_NAMES,
    SVM_TYPES,
)
from libsmo.io._svmlight import Parser
from libsmo.io._text import FLOAT_RE, INT_RE, fail_at_line
from libsmo.io._writer import format_lines
from libsmo.io.atomic import write_atomically
from libsmo.io.sources import _read_all
from libsmo.io.svmlight import SvmlightRows, _as_csr_for_writing
from libsmo.model._model import Model

__all__ = ["load_model", "model_to_bytes", "save_model"]

# the word in a model file's kernel_type line -> libsmo's kernel name
_KERNEL_FROM_FILE = {word: kernel for kernel, word in LIBSVM_KERNEL_NAMES.items()}
N_DENSITY_MARKS = 10  # LIBSVM's nr_marks


class _Header:
    """The header lines of a model file: key -> (tokens, line number, line)."""

    def __init__(self, name):
        self.name = name
        self.items = {}

    def fail(self, line_no, line, reason):
        fail_at_line(self.name, line_no, line, reason)

    def has(self, key):
        return key in self.items

    def ints(self, key, count=None, minimum=None):
        tokens, line_no, line = self.items[key]
        if count is not None and len(tokens) != count:
            self.fail(line_no, line, f"{key} needs {count} integer(s), found {len(tokens)}")
        values = []
        for token in tokens:
            if not INT_RE.match(token):
                self.fail(line_no, line, f"{key}: {token.decode('ascii', 'replace')!r} "
                                         "is not an integer")
            value = int(token)
            if minimum is not None and value < minimum:
                self.fail(line_no, line, f"{key} must be >= {minimum}")
            if abs(value) > INT_MAX:
                self.fail(line_no, line, f"{key}: {value} is beyond a C int")
            values.append(value)
        return values

    def floats(self, key, count):
        tokens, line_no, line = self.items[key]
        if len(tokens) != count:
            self.fail(line_no, line, f"{key} needs {count} number(s), found {len(tokens)}")
        values = []
        for token in tokens:
            if not FLOAT_RE.match(token):
                self.fail(line_no, line, f"{key}: {token.decode('ascii', 'replace')!r} "
                                         "is not a finite number")
            value = float(token)
            if not math.isfinite(value):
                self.fail(line_no, line, f"{key}: {token.decode('ascii', 'replace')!r} "
                                         "overflows double precision")
            values.append(value)
        return np.array(values, dtype=np.float64)

    def word(self, key, table):
        tokens, line_no, line = self.items[key]
        text = b" ".join(tokens).decode("utf-8", "replace")
        if len(tokens) != 1 or text not in table:
            self.fail(line_no, line, f"unknown {key} {text!r} (expected one of "
                                     f"{', '.join(table)})")
        return text

    def unexpected(self, key, why):
        _, line_no, line = self.items[key]
        self.fail(line_no, line, f"{key} {why}")


_HEADER_KEYS = (b"svm_type", b"kernel_type", b"degree", b"gamma", b"coef0", b"nr_class",
                b"total_sv", b"rho", b"label", b"probA", b"probB", b"prob_density_marks",
                b"nr_sv")


def load_model(f, dense_copy_bytes=0):
    r"""Read a LIBSVM model file (svm-train's, svm_save_model's or `save_model`'s).

    The header (svm_type, kernel_type, degree, gamma, coef0, nr_class, total_sv,
    rho, label, probA, probB, prob_density_marks, nr_sv) and the support vectors
    are checked as they are read, so that a file LIBSVM would misread is refused
    rather than predicted with.

    Parameters
    ----------
    f : str, path-like or binary file object
        The model file; gzip, bzip2 and xz content is decompressed transparently.
    dense_copy_bytes : int, default=0
        Support vectors that would be read dense within this many bytes (by the
        rule of `libsmo._utils.row_layout.reads_dense`) are returned as a dense
        array (the commands predict so without importing scipy); 0 keeps them CSR.

    Returns
    -------
    Model
        Support vectors as CSR of shape (total_sv, largest index) (or dense, see
        dense_copy_bytes) and support None (the file does not record training
        indices), except for a precomputed kernel: support_vectors None, support
        the serial numbers of the ``0:n`` entries minus 1 and n_features the
        largest of them. n_iter, objective and status are empty.

    Raises
    ------
    ValueError
        Anything LIBSVM's reader would misread: unknown or repeated header lines,
        a label given twice, counts that disagree with nr_class or total_sv, numbers
        that do not parse, feature indices below 1 or not increasing, blank lines
        among the support vectors, NaN or infinite numbers. The message names the
        file and the line.

    See Also
    --------
    save_model : Write a model file.
    libsmo.SVC.from_model : A scikit-learn estimator predicting with a model file.

    Examples
    --------
    >>> import io
    >>> import libsmo
    >>> text = b"svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0\n"
    >>> text += b"label 1 -1\nnr_sv 1 1\nSV\n0.5 1:1\n-0.5 1:-1\n"
    >>> model = libsmo.load_model(io.BytesIO(text))
    >>> model
    Model(svm_type='c_svc', kernel='linear', classes=[1.0, -1.0], n_sv=2, n_features=1)
    >>> model.predict([[2.0], [-3.0]])
    array([ 1., -1.])
    """
    raw, name = _read_all(f)
    header = _Header(name)
    pos, line_no, found_sv = 0, 0, False
    while pos < len(raw):
        end = raw.find(b"\n", pos)
        end = len(raw) if end < 0 else end
        line = raw[pos:end]
        pos = end + 1
        line_no += 1
        tokens = line.split()
        if not tokens:
            continue
        key = tokens[0]
        if key == b"SV":
            if len(tokens) > 1:
                header.fail(line_no, line, "the SV line must hold SV alone")
            found_sv = True
            break
        if key not in _HEADER_KEYS:
            header.fail(line_no, line, "unknown text in model file")
        key = key.decode()
        if key in header.items:
            header.fail(line_no, line, f"{key} given twice")
        header.items[key] = (tokens[1:], line_no, line)
    if not found_sv:
        raise ValueError(f"{name}, line {line_no}: the file ends before the 'SV' line "
                         "that starts the support vectors")
    for key in ("svm_type", "kernel_type", "nr_class", "total_sv", "rho"):
        if not header.has(key):
            raise ValueError(f"{name}: the header has no {key} line")
    svm_type = header.word("svm_type", SVM_TYPES)
    kernel = _KERNEL_FROM_FILE[header.word("kernel_type", tuple(_KERNEL_FROM_FILE))]
    degree, gamma, coef0 = 3, 0.0, 0.0
    needed = {"degree": kernel == "poly", "gamma": kernel in ("poly", "rbf", "sigmoid"),
              "coef0": kernel in ("poly", "sigmoid")}
    for key, need in needed.items():
        if need and not header.has(key):
            raise ValueError(f"{name}: a {LIBSVM_KERNEL_NAMES[kernel]} kernel needs a "
                             f"{key} line")
    if header.has("degree"):
        degree = header.ints("degree", 1, minimum=0)[0]
    if header.has("gamma"):
        gamma = float(header.floats("gamma", 1)[0])
        if gamma < 0:
            # svm_check_parameter's "gamma < 0": no model svm-train writes has one, and
            # a Model's gamma is >= 0 (model._checks)
            header.unexpected("gamma", f"must be >= 0, got {gamma!r}")
    if header.has("coef0"):
        coef0 = float(header.floats("coef0", 1)[0])
    k = header.ints("nr_class", 1, minimum=1)[0]
    total_sv = header.ints("total_sv", 1, minimum=0)[0]
    classification = svm_type in CLASSIFICATION_TYPES
    if not classification and k != 2:
        header.unexpected("nr_class", f"must be 2 for {svm_type}")
    n_pairs = k * (k - 1) // 2
    rho = header.floats("rho", n_pairs)
    if classification:
        for key in ("label", "nr_sv"):
            if not header.has(key):
                raise ValueError(f"{name}: a {svm_type} model needs a {key} line")
        labels = header.ints("label", k)
        if len(set(labels)) != k:
            # LIBSVM would count one label's votes as two classes' and predict whichever
            # of the two wins; nor could a model's classes name its columns
            repeated = next(v for v in labels if labels.count(v) > 1)
            header.unexpected("label", f"repeats the label {repeated}")
        classes = np.array(labels, dtype=np.float64)
        n_support = np.array(header.ints("nr_sv", k, minimum=0), dtype=np.int64)
        if n_support.sum() != total_sv:
            header.unexpected("nr_sv", f"adds up to {n_support.sum()}, but total_sv is "
                                       f"{total_sv}")
    else:
        for key in ("label", "nr_sv"):
            if header.has(key):
                header.unexpected(key, f"is only for classification, not {svm_type}")
        classes = np.array([], dtype=np.float64)
        n_support = np.array([], dtype=np.int64)
    probA = header.floats("probA", n_pairs) if header.has("probA") else None
    probB = header.floats("probB", n_pairs) if header.has("probB") else None
    marks = None
    if header.has("prob_density_marks"):
        if svm_type != "one_class":
            header.unexpected("prob_density_marks", "is only for one_class models")
        marks = header.floats("prob_density_marks", N_DENSITY_MARKS)

    precomputed = kernel == "precomputed"
    body = raw[pos:].rstrip()
    parser = Parser(name, k - 1, 0 if precomputed else 1, comments=False,
                    skip_blank=False, allow_qid=False, first_line=line_no + 1)
    if body:
        parser.feed(body, True)
    data, indices, indptr, leading, _, lines = parser.result()
    if parser.rows != total_sv:
        raise ValueError(f"{name}: total_sv is {total_sv}, but the file has "
                         f"{parser.rows} support vector lines")

    def fail_at(row, reason):
        n = int(lines[row])
        header.fail(n, raw.split(b"\n", n)[n - 1], reason)

    bad = ~np.isfinite(leading).all(axis=1)
    if bad.any():
        fail_at(int(np.argmax(bad)), "coefficients must be finite")
    if len(data) and not np.isfinite(data).all():
        row = int(np.searchsorted(indptr, int(np.argmax(~np.isfinite(data))), "right") - 1)
        fail_at(row, "feature values must be finite")
    sv_coef = leading.T.copy() if k > 1 else np.zeros((1, total_sv))
    if precomputed:
        starts = indptr[:-1]
        for row in range(total_sv):
            if indptr[row + 1] == starts[row] or indices[starts[row]] != 0:
                fail_at(row, "a precomputed kernel's support vector is 0:n, the serial "
                             "number n of a training row")
            serial = data[starts[row]]
            if not (serial >= 1 and serial == int(serial) and serial <= INT_MAX):
                fail_at(row, "the serial number of a precomputed kernel's support vector "
                             "must be an integer >= 1")
        serials = data[starts].astype(np.int64) if total_sv else np.zeros(0, np.int64)
        support_vectors = None
        support = serials - 1
        n_features = int(serials.max()) if total_sv else 0
    else:
        n_features = int(parser.seen_max_index) if len(data) else 0
        index_dtype = np.int32 if len(data) <= INT_MAX else np.int64
        rows = SvmlightRows(data, (indices - 1).astype(index_dtype),
                            indptr.astype(index_dtype), (total_sv, n_features), None, None)
        support_vectors = rows.dense_or_csr(dense_copy_bytes=dense_copy_bytes)
        support = None
    return Model(svm_type=svm_type, kernel=kernel, gamma=gamma, degree=degree,
                 coef0=coef0, classes=classes, n_support=n_support,
                 support_vectors=support_vectors, support=support, sv_coef=sv_coef,
                 rho=rho, n_features=n_features, probA=probA, probB=probB,
                 prob_density_marks=marks)


def _g17(values):
    return " ".join("%.17g" % v for v in values)


def _finite(values, what):
    values = np.atleast_1d(np.asarray(values, dtype=np.float64))
    if not np.isfinite(values).all():
        raise ValueError(f"cannot save a model whose {what} holds NaN or infinity")
    return values


def model_to_bytes(model, libsvm_precision=False):
    """Return the text of `model` in LIBSVM's model format.

    The bytes `save_model` writes: the header, then one line per support vector,
    ``coefficients index:value ...``.

    Parameters
    ----------
    model : Model
        The model to write.
    libsvm_precision : bool, default=False
        Support vector values with ``%.8g`` as svm-train writes them; False writes
        them losslessly.

    Returns
    -------
    bytes
        The whole file.

    Raises
    ------
    ValueError
        The model cannot be written in LIBSVM's format (see `save_model`).

    See Also
    --------
    save_model : Write these bytes to a file, atomically.

    Examples
    --------
    >>> import numpy as np
    >>> import libsmo
    >>> from libsmo.io import model_to_bytes
    >>> X = np.array([[-1.0], [1.0]])
    >>> model = libsmo.train(X, np.array([-1, 1]), kernel="linear")
    >>> print(model_to_bytes(model).decode())
    svm_type c_svc
    kernel_type linear
    nr_class 2
    total_sv 2
    rho 0
    label 1 -1
    nr_sv 1 1
    SV
    0.5 1:1
    -0.5 1:-1
    <BLANKLINE>
    """
    model.check_fields()
    svm_type, kernel = model.svm_type, model.kernel
    if svm_type not in SVM_TYPES:
        raise ValueError(f"unknown svm_type {svm_type!r}")
    if kernel not in LIBSVM_KERNEL_NAMES:
        raise ValueError(f"unknown kernel {kernel!r}")
    classification = svm_type in CLASSIFICATION_TYPES
    sv_coef = np.atleast_2d(np.asarray(model.sv_coef, dtype=np.float64))
    n_sv = sv_coef.shape[1]
    if classification:
        labels = np.asarray(model.classes)
        k = len(labels)
        if labels.dtype.kind not in "biuf":
            raise ValueError("LIBSVM model files store integer class labels; this model's "
                             f"labels are {labels.tolist()!r}: train on integer labels "
                             "to save it")
        if k and (not np.isfinite(labels.astype(float)).all()
                  or (labels != np.round(labels)).any()
                  or np.abs(labels.astype(float)).max() > INT_MAX):
            raise ValueError("LIBSVM model files store integer class labels (C ints); "
                             f"this model's labels are {labels.tolist()!r}")
        labels = [int(v) for v in labels]
        n_support = [int(v) for v in np.asarray(model.n_support)]
        if len(n_support) != k or sum(n_support) != n_sv:
            raise ValueError(f"n_support {n_support} does not match {k} classes and "
                             f"{n_sv} support vectors")
    else:
        k = 2
    n_pairs = k * (k - 1) // 2
    if sv_coef.shape[0] != max(k - 1, 1) or (k == 1 and n_sv):
        raise ValueError(f"sv_coef has shape {sv_coef.shape}; {k} classes need "
                         f"({k - 1}, n_SV)")
    rho = _finite(model.rho, "rho")
    if len(rho) != n_pairs:
        raise ValueError(f"rho has {len(rho)} values; {k} classes need {n_pairs}")
    _finite(sv_coef, "sv_coef")
    lines = [f"svm_type {svm_type}", f"kernel_type {LIBSVM_KERNEL_NAMES[kernel]}"]
    if kernel == "poly":
        lines.append("degree %d" % int(model.degree))
    if kernel in ("poly", "rbf", "sigmoid"):
        lines.append("gamma %.17g" % _finite(model.gamma, "gamma")[0])
    if kernel in ("poly", "sigmoid"):
        lines.append("coef0 %.17g" % _finite(model.coef0, "coef0")[0])
    lines += [f"nr_class {k}", f"total_sv {n_sv}", ("rho " + _g17(rho)).rstrip()]
    if classification:
        lines.append(" ".join(["label"] + [str(v) for v in labels]))
    for key in ("probA", "probB"):
        values = getattr(model, key, None)
        if values is not None:
            values = _finite(values, key)
            if len(values) != n_pairs:
                raise ValueError(f"{key} has {len(values)} values; {k} classes need "
                                 f"{n_pairs}")
            lines.append((key + " " + _g17(values)).rstrip())
    marks = getattr(model, "prob_density_marks", None)
    if marks is not None:
        marks = _finite(marks, "prob_density_marks")
        if len(marks) != N_DENSITY_MARKS:
            raise ValueError(f"prob_density_marks has {len(marks)} values; LIBSVM's files "
                             f"hold {N_DENSITY_MARKS}")
        lines.append("prob_density_marks " + _g17(marks))
    if classification:
        lines.append(" ".join(["nr_sv"] + [str(v) for v in n_support]))
    lines.append("SV")
    head = ("\n".join(lines) + "\n").encode("ascii")
    leading = np.ascontiguousarray(sv_coef[:max(k - 1, 0)].T)
    if kernel == "precomputed":
        if model.support is None or len(model.support) != n_sv:
            raise ValueError("a precomputed-kernel model needs `support`, the training "
                             "row of each support vector")
        serials = np.asarray(model.support, dtype=np.int64) + 1
        if n_sv and (serials.min() < 1 or serials.max() > INT_MAX):
            raise ValueError("support holds indices outside 0 .. 2**31 - 2")
        body = format_lines(leading, np.arange(n_sv + 1, dtype=np.int64),
                            np.zeros(n_sv, dtype=np.int64), serials.astype(np.float64),
                            index_offset=0, lead_format=("g", 17),
                            value_format=("g", 17), trailing_blank=True)
    else:
        SV = model.support_vectors
        if SV is None:
            raise ValueError("this model has no support vectors to save")
        SV = _as_csr_for_writing(SV)
        if SV.shape[0] != n_sv:
            raise ValueError(f"support_vectors has {SV.shape[0]} rows but sv_coef has "
                             f"{n_sv} columns")
        _finite(SV.data, "support_vectors")
        body = format_lines(leading, SV.indptr.astype(np.int64),
                            SV.indices.astype(np.int64), SV.data, index_offset=1,
                            lead_format=("g", 17),
                            value_format=("g", 8) if libsvm_precision else ("r", 0),
                            trailing_blank=True)
    return head + body


def save_model(model, f, libsvm_precision=False):
    """Write `model` as a LIBSVM model file.

    svm-predict, libsvm-official and `load_model` read the file; a model read from
    a file svm-train wrote and saved with ``libsvm_precision=True`` comes back byte
    for byte.

    Parameters
    ----------
    model : Model
        The model to write.
    f : str, path-like or binary file object
        A path is written to a temporary file in its folder, then renamed into place:
        a failure leaves any previous file intact.
    libsvm_precision : bool, default=False
        Write support vector values with ``%.8g`` as svm-train does. False writes
        the shortest text that reads back to the same double, so that the saved
        model predicts exactly as the model in memory.

    Raises
    ------
    ValueError
        The model cannot be written in LIBSVM's format (labels that are not integers,
        NaN or infinite numbers, inconsistent fields).

    See Also
    --------
    load_model : Read a model file.
    model_to_bytes : The file's text as bytes.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> import numpy as np
    >>> import libsmo
    >>> X = np.array([[-1.0], [1.0]])
    >>> model = libsmo.train(X, np.array([-1, 1]), kernel="linear")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "line.model")
    ...     libsmo.save_model(model, path)
    ...     again = libsmo.load_model(path)
    >>> again.predict(X), again.rho
    (array([-1.,  1.]), array([0.]))
    """
    write_atomically(f, model_to_bytes(model, libsvm_precision))
