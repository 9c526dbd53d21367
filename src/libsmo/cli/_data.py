"""The data files of libsmo-train and libsmo-predict, read with LIBSVM's messages.

"can't open input file NAME" when the file cannot be opened, "Wrong input format at line
N" (libsmo's detail after it) when a line is malformed, and for a precomputed kernel
svm-train's checks of the serial numbers in column 0. A precomputed kernel's matrix is
made dense only over the columns the serial numbers use, so that a stray index in a file
cannot decide the size of an allocation.

Features are one-based, as LIBSVM's README defines them: a feature index 0 is "Wrong
input format" (svm-train reads it as one more feature, svm-scale warns that "indices
should start from 1"). Reading such a file as zero-based, as scikit-learn's
zero_based="auto" would, moved every feature of that file, and of no other: a model and
the files predicted with it could disagree on what feature 1 is.
"""
import re
from dataclasses import dataclass

from libsmo.cli._common import CommandError

# the reader's messages name the file and the line: "NAME, line N: reason"
_PARSE_ERROR = re.compile(r"^(?P<name>.*), line (?P<line>\d+): (?P<reason>.*)$", re.S)

INPUT_ERRORS = ("can't open input file", "Wrong input format at line")


@dataclass(frozen=True)
class Problem:
    """A data file as the commands use it.

    Attributes
    ----------
    X : ndarray or csr_matrix
        The features; for a precomputed kernel the dense matrix of kernel values, row i
        against the examples of serial numbers 1..n_columns (column j: serial j + 1).
    y : ndarray of float64
    serials : ndarray of int or None
        For a precomputed training file, each row's serial number (column 0).
    """
    X: object
    y: object
    serials: object = None


def check_input_file(path):
    """svm-train's and svm-predict's first check: "can't open input file NAME"."""
    try:
        with open(path, "rb"):
            pass
    except OSError:
        raise CommandError(f"can't open input file {path}") from None


def _read_rows(path, zero_based):
    """A LIBSVM data file's rows (`libsmo.io.svmlight.SvmlightRows`), with svm-train's
    messages for a file it cannot open or read."""
    from libsmo.io.svmlight import read_svmlight_rows
    check_input_file(path)
    try:
        [rows] = read_svmlight_rows(path, zero_based=zero_based)
    except ValueError as exc:
        match = _PARSE_ERROR.match(str(exc))
        if match:
            raise CommandError(f"Wrong input format at line {match['line']} "
                               f"({match['reason']})") from None
        raise CommandError(f"Wrong input format ({exc})") from None
    except OSError as exc:
        raise CommandError(f"can't open input file {path} ({exc.strerror or exc})") from None
    return rows


def _load(path, zero_based, dense_copy_bytes=0):
    """(X, y) from a LIBSVM data file: zero-based for a precomputed kernel (column 0
    holds the serial numbers), else one-based (zero_based=False: index 0 is refused).

    X is dense when the solver would read these rows as a dense copy anyway
    (`libsmo._utils.row_layout.reads_dense` with dense_copy_bytes) and the file stores no explicit
    zero (``3:0``, which a support vector's line in the model file keeps); else CSR.
    Dense rows train to the same model (the kernel sums in LIBSVM's order either way)
    and spare the command the import of scipy.sparse, which costs more than a small
    training."""
    rows = _read_rows(path, zero_based)
    return rows.dense_or_csr(dense_copy_bytes=dense_copy_bytes,
                             keeps_stored_zeros=True), rows.y


def read_problem(path, kernel, dense_copy_bytes=0):
    """A training file: features one-based as LIBSVM's, or a precomputed kernel's
    square matrix built as svm-train reads it (K(i, j) = row i's value at column
    serial(j)).

    Parameters
    ----------
    path : str
    kernel : str
        The kernel's name ("precomputed" reads serial numbers).
    dense_copy_bytes : int
        The largest dense copy of sparse rows the training may make (see `_load`); 0
        keeps the rows CSR.

    Returns
    -------
    Problem

    Raises
    ------
    CommandError
        svm-train's message for a file it refuses.
    """
    import numpy as np
    if kernel != "precomputed":
        return Problem(*_load(path, False, dense_copy_bytes))
    X, y = _load(path, True)
    n = X.shape[0]
    first = X.indptr[:-1]
    nonempty = X.indptr[1:] > first
    has_serial = np.zeros(n, dtype=bool)
    has_serial[nonempty] = X.indices[first[nonempty]] == 0
    if not has_serial.all():
        raise CommandError("Wrong input format: first column must be 0:sample_serial_number"
                           f" (example {int(np.argmin(has_serial)) + 1})")
    serials = X.data[first].astype(np.int64)
    out_of_range = (serials <= 0) | (serials > n)
    if out_of_range.any():
        bad = int(np.argmax(out_of_range))
        raise CommandError("Wrong input format: sample_serial_number out of range "
                           f"(example {bad + 1} has {X.data[first[bad]]:g}; there are "
                           f"{n} examples)")
    gram = X[:, serials].toarray()   # n x n: what a precomputed kernel is
    return Problem(np.ascontiguousarray(gram), y, serials)


def read_test_rows(path, kernel, n_columns):
    """A file to predict: features one-based as LIBSVM's, or a precomputed kernel's
    values against the training serial numbers 1..n_columns (the others are not read).

    Rows no wider than the model's n_columns are read dense where
    `libsmo._utils.row_layout.reads_dense` would read them dense (stored zeros change no
    prediction), so that predicting them never imports scipy.

    Returns
    -------
    Problem
    """
    import numpy as np
    if kernel != "precomputed":
        rows = _read_rows(path, False)
        return Problem(rows.dense_or_csr(width=n_columns), rows.y)
    X, y = _load(path, True)
    if X.shape[1] - 1 < n_columns:
        raise CommandError(f"Wrong input format: the model's support vectors need kernel "
                           f"values for serial numbers up to {n_columns}; this file has "
                           f"them up to {max(X.shape[1] - 1, 0)}")
    return Problem(np.ascontiguousarray(X[:, 1:n_columns + 1].toarray()), y)
