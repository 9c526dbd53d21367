"""LIBSVM's files: data (``label idx:val ...``), models, and svm-scale's range files.

Data
    `load_svmlight_file` / `load_svmlight_files` read the svmlight / LIBSVM data format
    with scikit-learn's names and behaviour (CSR X, float64 y, optional query ids,
    ``zero_based="auto"``), through the Cython parser of `libsmo._svmlight`; paths or
    binary file objects, gzip / bzip2 / xz recognised by their first bytes.
    `dump_svmlight_file` writes dense or sparse data back, every number in the
    shortest text that reads back to the same double.

Models
    `load_model` reads a LIBSVM model file (svm-train 3.x, libsvm-official), `save_model`
    (also `Model.save`) writes one in LIBSVM's layout: the header in svm_save_model's
    order and formats (``%.17g`` for gamma, coef0, rho, probA, probB,
    prob_density_marks and the coefficients), one line per support vector. Support
    vector values are written losslessly by default; ``libsvm_precision=True`` writes
    them with ``%.8g`` as svm-train does, so that a file svm-train wrote comes back
    byte for byte.

Scaling ranges
    `read_range_file` / `write_range_file`: the text svm-scale writes with ``-s`` and
    reads with ``-r`` (see `libsmo.scaling.Scaler`).

Every parse error is a ValueError naming the file and the line. Files written to a
path go to a temporary file in the same folder first, then replace the target
(os.replace): a failure leaves any previous file as it was.
"""
import bz2
import gzip
import io
import lzma
import math
import os
import re
import stat
import tempfile
import zlib

import numpy as np
import scipy.sparse as sp

from libsmo.io._svmlight import Parser, format_lines
from libsmo.names import CLASSIFICATION_TYPES, INT_MAX, LIBSVM_KERNEL_NAMES, SVM_TYPES

__all__ = ["dump_svmlight_file", "load_model", "load_svmlight_file", "load_svmlight_files",
           "read_range_file", "save_model", "write_range_file"]

# the word in a model file's kernel_type line -> libsmo's kernel name
_KERNEL_FROM_FILE = {word: kernel for kernel, word in LIBSVM_KERNEL_NAMES.items()}
N_DENSITY_MARKS = 10  # LIBSVM's nr_marks
_CHUNK = 1 << 22


# --------------------------------------------------------------------------- sources

class _Prefixed(io.RawIOBase):
    """A readable stream: `prefix`, then the rest of `stream`."""

    def __init__(self, prefix, stream):
        super().__init__()
        self._prefix = prefix
        self._stream = stream

    def readable(self):
        return True

    def readinto(self, buffer):
        view = memoryview(buffer).cast("B")
        if self._prefix:
            n = min(len(view), len(self._prefix))
            view[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = self._stream.read(len(view))
        if data is None:
            return None
        if isinstance(data, str):
            raise TypeError("file objects must be opened in binary mode")
        view[:len(data)] = data
        return len(data)


def _read_exactly(stream, n):
    """Up to n bytes (fewer only at the end of the stream)."""
    parts, got = [], 0
    while got < n:
        data = stream.read(n - got)
        if isinstance(data, str):
            raise TypeError("file objects must be opened in binary mode (got text from "
                            f"{_source_name(stream)})")
        if not data:
            break
        parts.append(bytes(data))
        got += len(data)
    return b"".join(parts)


def _compression(head):
    """'gz', 'bz2', 'xz' or None, from a stream's first bytes."""
    if head.startswith(b"\x1f\x8b"):
        return "gz"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if (len(head) >= 4 and head.startswith(b"BZh") and head[3:4].isdigit()
            and head[3:4] != b"0"):
        return "bz2"
    return None


def _source_name(f):
    if isinstance(f, (str, os.PathLike)):
        return os.fspath(f)
    if isinstance(f, int):
        return f"<file descriptor {f}>"
    name = getattr(f, "name", None)
    return str(name) if isinstance(name, (str, bytes, os.PathLike)) else "<file object>"


class _Source:
    """Context manager: (binary stream with decompression applied, name) for a path, a
    file descriptor or a binary file object. Objects the caller passed are not closed."""

    def __init__(self, f):
        self.f = f
        self.name = _source_name(f)
        self._to_close = []

    def __enter__(self):
        f = self.f
        if isinstance(f, (str, bytes, os.PathLike)):
            if isinstance(f, bytes):
                f = os.fsdecode(f)
                self.name = f
            raw = open(f, "rb")
            self._to_close.append(raw)
        elif isinstance(f, int) and not isinstance(f, bool):
            raw = open(f, "rb", closefd=False)
            self._to_close.append(raw)
        elif hasattr(f, "read"):
            if isinstance(f, io.TextIOBase):
                raise TypeError(f"{self.name}: file objects must be opened in binary mode")
            raw = f
        else:
            raise TypeError("expected a path, a file descriptor or a binary file object, "
                            f"got {type(f).__name__}")
        head = _read_exactly(raw, 6)
        stream = _Prefixed(head, raw)
        kind = _compression(head)
        if kind == "gz":
            stream = gzip.GzipFile(fileobj=io.BufferedReader(stream), mode="rb")
        elif kind == "bz2":
            stream = bz2.BZ2File(io.BufferedReader(stream), mode="rb")
        elif kind == "xz":
            stream = lzma.LZMAFile(io.BufferedReader(stream), mode="rb")
        if kind is not None:
            self._to_close.insert(0, stream)
        return stream, self.name

    def __exit__(self, *exc):
        for stream in self._to_close:
            stream.close()
        return False


def _is_decompression_error(exc):
    """Corrupt or truncated compressed data (not an I/O error, which has an errno)."""
    return (isinstance(exc, (EOFError, lzma.LZMAError, zlib.error))
            or (isinstance(exc, OSError) and exc.errno is None))


def _read(stream, name, size=-1):
    try:
        return stream.read(size)
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
        if not _is_decompression_error(exc):
            raise
        raise ValueError(f"{name}: cannot decompress: {exc}") from None


def _read_all(f):
    """(bytes, name) of a whole source, decompressed."""
    with _Source(f) as (stream, name):
        data = _read(stream, name)
        if isinstance(data, str):
            raise TypeError("file objects must be opened in binary mode")
    return bytes(data), name


def _parse_stream(stream, parser, name):
    """Feed a binary stream to a Parser in chunks."""
    pending = b""
    while True:
        chunk = _read(stream, name, _CHUNK)
        if isinstance(chunk, str):
            raise TypeError("file objects must be opened in binary mode")
        if not chunk:
            break
        buffer = pending + bytes(chunk) if pending else bytes(chunk)
        used = parser.feed(buffer)
        pending = buffer[used:]
    if pending:
        parser.feed(pending, True)


# ------------------------------------------------------------------------------ data

def load_svmlight_file(f, n_features=None, dtype=np.float64, zero_based="auto",
                       query_id=False):
    """Read a file in the svmlight / LIBSVM format into a CSR matrix and labels.

    The same names and behaviour as ``sklearn.datasets.load_svmlight_file``: lines
    ``label [qid:q] idx:val idx:val ...`` with strictly increasing indices, '#'
    comments, blank lines skipped, lines with a label only give rows without features.

    Parameters
    ----------
    f : str, path-like, int or binary file object
        A path, a file descriptor, or a file object opened in binary mode (not closed
        here). gzip, bzip2 and xz content is decompressed transparently, whatever the
        file's name.
    n_features : int or None
        Number of columns; at least the largest index read (None: that index).
    dtype : numpy dtype
        dtype of X (values are read as float64 and converted); y is always float64.
    zero_based : bool or "auto"
        Whether the indices count from 0 (True) or from 1 (False; LIBSVM's files).
        "auto": one-based unless some index is 0 (scikit-learn's rule).
    query_id : bool
        Also return each row's ``qid`` (0 where a row has none, as svmlight).

    Returns
    -------
    (X, y) or (X, y, qid)
        X : scipy.sparse.csr_matrix of shape (n_rows, n_features)
        y : ndarray of float64
        qid : ndarray of int64

    Raises
    ------
    ValueError
        A malformed line (the message names the file, the line number and its text),
        a compressed file that does not decompress, or n_features smaller than the
        data. Nothing is returned from a file that fails.
    """
    return tuple(load_svmlight_files([f], n_features=n_features, dtype=dtype,
                                     zero_based=zero_based, query_id=query_id))


def load_svmlight_files(files, n_features=None, dtype=np.float64, zero_based="auto",
                        query_id=False):
    """Read several svmlight / LIBSVM files with one number of columns (the largest).

    Parameters are those of `load_svmlight_file`; with zero_based="auto" the files are
    one-based unless one of them uses index 0.

    Returns
    -------
    list
        [X1, y1, X2, y2, ...], or [X1, y1, q1, ...] with query_id=True.
    """
    if isinstance(files, (str, bytes, os.PathLike, int)) or hasattr(files, "read"):
        files = [files]
    if not (zero_based is True or zero_based is False or zero_based == "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")
    if n_features is not None:
        if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)):
            raise TypeError(f"n_features must be an integer or None, got {n_features!r}")
        if n_features < 1:
            raise ValueError(f"n_features must be >= 1, got {n_features}")
    parsed = []
    for f in files:
        with _Source(f) as (stream, name):
            parser = Parser(name, 1, 1 if zero_based is False else 0)
            _parse_stream(stream, parser, name)
        parsed.append((name, parser.seen_min_index, parser.seen_max_index,
                       parser.result()))
    one_based = zero_based is False or (
        zero_based == "auto" and all(high >= 0 and low > 0 for _, low, high, _ in parsed))
    shift = 1 if one_based else 0
    n_found = max((high - shift if high >= 0 else 0) for _, _, high, _ in parsed) + 1
    if n_features is None:
        n_features = n_found
    elif n_features < n_found:
        for name, _, high, (data, indices, indptr, _, _, lines) in parsed:
            if high - shift >= n_features:
                pos = int(np.argmax(indices - shift >= n_features))
                row = int(np.searchsorted(indptr, pos, side="right") - 1)
                raise ValueError(
                    f"n_features was set to {n_features}, but input file contains "
                    f"{n_found} features ({name}, line {lines[row]}: index "
                    f"{indices[pos]})")
    n_features = int(n_features)
    index_dtype = np.int32 if n_features <= INT_MAX else np.int64
    result = []
    for name, _, _, (data, indices, indptr, leading, qid, _) in parsed:
        if shift:
            indices -= shift
        if len(data) > INT_MAX:
            index_dtype = np.int64
        X = sp.csr_matrix((np.asarray(data, dtype=dtype), indices.astype(index_dtype),
                           indptr.astype(index_dtype)), shape=(len(indptr) - 1, n_features))
        result += [X, leading[:, 0].copy()]
        if query_id:
            result.append(qid)
    return result


def _as_csr_for_writing(X):
    """CSR with sorted, unique indices and float64 values (X itself is not modified)."""
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got {X.ndim} dimensions")
        X = sp.csr_matrix(X, dtype=np.float64, copy=True)
        X.sum_duplicates()
        X.sort_indices()
        return X
    arr = np.asarray(X)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"X must hold real numbers, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {arr.shape}")
    return sp.csr_matrix(arr.astype(np.float64))  # stores the non-zeros (and NaN)


def dump_svmlight_file(X, y, f, zero_based=False, comment=None, query_id=None,
                       libsvm_precision=False):
    """Write X and y in the svmlight / LIBSVM format, every number losslessly (or as
    svm-scale writes them).

    Parameters
    ----------
    X : array-like of shape (n, d) or sparse matrix
        Dense rows are written without their zeros; the stored entries of a sparse
        matrix are written (explicit zeros included).
    y : array-like of shape (n,)
        Numeric labels (written in the shortest form that reads back exactly: 1, -1,
        0.5).
    f : str, path-like or binary file object
        A path is written through a temporary file and replaced atomically; a name
        ending in .gz, .bz2 or .xz is compressed accordingly.
    zero_based : bool
        Whether to write indices from 0. Default False: LIBSVM's 1-based indices.
    comment : str or None
        Written first, each line prefixed by "# ". LIBSVM's svm-train does not accept
        comments; libsmo's and scikit-learn's readers do.
    query_id : array-like of int or None
        Written as ``qid:q`` after each label.
    libsvm_precision : bool
        Write what svm-scale writes, byte for byte: labels with ``%.17g``, values with
        ``%g`` (six significant digits), each token followed by a blank. Default False
        writes every number in the shortest form that reads back exactly.
    """
    X = _as_csr_for_writing(X)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    if y.dtype.kind not in "biuf":
        raise TypeError(f"y must hold numbers, got dtype {y.dtype}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
    qid = None
    if query_id is not None:
        qid = np.asarray(query_id)
        if qid.shape != y.shape or qid.dtype.kind not in "iu":
            raise ValueError("query_id must be integers, one per row")
        qid = qid.astype(np.int64)
    head = b""
    if comment is not None:
        if isinstance(comment, str):
            comment = comment.encode("utf-8")
        if b"\0" in comment:
            raise ValueError("comment must not contain NUL bytes")
        head = b"".join(b"# " + line + b"\n" for line in comment.splitlines())
    body = format_lines(np.ascontiguousarray(y, dtype=np.float64).reshape(-1, 1),
                        X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data,
                        index_offset=0 if zero_based else 1,
                        lead_format=("g", 17) if libsvm_precision else ("r", 0),
                        value_format=("g", 6) if libsvm_precision else ("r", 0), qid=qid,
                        trailing_blank=libsvm_precision)
    write_atomically(f, head + body, compress=True)


# ---------------------------------------------------------------------------- output

def _umask():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomically(f, data, compress=False):
    """Write bytes to a binary file object, or to a path through a temporary file in
    the same folder renamed into place, so that a failure leaves any previous file
    intact; a path ending in .gz, .bz2 or .xz is compressed (with compress=True)."""
    if not isinstance(f, (str, bytes, os.PathLike)):
        if not hasattr(f, "write"):
            raise TypeError("expected a path or a binary file object, got "
                            f"{type(f).__name__}")
        if isinstance(f, io.TextIOBase):
            raise TypeError("file objects must be opened in binary mode")
        f.write(data)
        return
    path = os.fsdecode(os.fspath(f))
    if compress:
        if path.endswith(".gz"):
            data = gzip.compress(data, mtime=0)
        elif path.endswith(".bz2"):
            data = bz2.compress(data)
        elif path.endswith(".xz"):
            data = lzma.compress(data)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ---------------------------------------------------------------------------- models

_INT_RE = re.compile(rb"[+-]?[0-9]+\Z")
_FLOAT_RE = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


class _Header:
    """The header lines of a model file: key -> (tokens, line number, line)."""

    def __init__(self, name):
        self.name = name
        self.items = {}

    def fail(self, line_no, line, reason):
        text = line.decode("utf-8", "backslashreplace").rstrip("\r")
        raise ValueError(f"{self.name}, line {line_no}: {reason}: {text[:200]!r}")

    def has(self, key):
        return key in self.items

    def ints(self, key, count=None, minimum=None):
        tokens, line_no, line = self.items[key]
        if count is not None and len(tokens) != count:
            self.fail(line_no, line, f"{key} needs {count} integer(s), found {len(tokens)}")
        values = []
        for token in tokens:
            if not _INT_RE.match(token):
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
            if not _FLOAT_RE.match(token):
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


def load_model(f):
    """Read a LIBSVM model file (as written by svm-train, svm_save_model or
    `Model.save`).

    Parameters
    ----------
    f : str, path-like or binary file object

    Returns
    -------
    Model
        Support vectors as CSR of shape (total_sv, largest index), support None (the
        file does not record training indices), except for a precomputed kernel:
        support_vectors None, support the serial numbers of the ``0:n`` entries minus 1
        and n_features the largest of them.

    Raises
    ------
    ValueError
        Anything LIBSVM's reader would misread: unknown or repeated header lines, counts
        that disagree with nr_class or total_sv, numbers that do not parse, feature
        indices below 1 or not increasing, blank lines among the support vectors, NaN
        or infinite numbers. The message names the file and the line.
    """
    from libsmo.model import Model
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
        classes = np.array(header.ints("label", k), dtype=np.float64)
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
        support_vectors = sp.csr_matrix(
            (data, (indices - 1).astype(index_dtype), indptr.astype(index_dtype)),
            shape=(total_sv, n_features))
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
    """The text of `model` in LIBSVM's model format (see `save_model`)."""
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

    Parameters
    ----------
    model : Model
    f : str, path-like or binary file object
        A path is written to a temporary file in its folder, then renamed into place:
        a failure leaves any previous file intact.
    libsvm_precision : bool
        Write support vector values with ``%.8g`` as svm-train does (a file svm-train
        wrote, loaded and saved this way, comes back byte for byte). Default False:
        the shortest text that reads back to the same double, so that the saved model
        predicts exactly as the model in memory.

    Raises
    ------
    ValueError
        The model cannot be written in LIBSVM's format (labels that are not integers,
        NaN or infinite numbers, inconsistent fields).
    """
    write_atomically(f, model_to_bytes(model, libsvm_precision))


# ------------------------------------------------------------------ svm-scale ranges

def write_range_file(f, lower, upper, feature_min, feature_max, y_scaling=None):
    """Write svm-scale's range file (``svm-scale -s``).

    Parameters
    ----------
    f : str, path-like or binary file object
    lower, upper : float
        The x scaling limits.
    feature_min, feature_max : array of shape (n_features,)
        Per feature (column j is index j + 1); features with min == max are left out,
        as svm-scale leaves them out.
    y_scaling : (y_lower, y_upper, y_min, y_max) or None
    """
    lines = []
    if y_scaling is not None:
        y_lower, y_upper, y_min, y_max = y_scaling
        lines += ["y", "%.17g %.17g" % (y_lower, y_upper), "%.17g %.17g" % (y_min, y_max)]
    lines += ["x", "%.17g %.17g" % (lower, upper)]
    feature_min = np.asarray(feature_min, dtype=np.float64)
    feature_max = np.asarray(feature_max, dtype=np.float64)
    for j in np.flatnonzero(feature_min != feature_max):
        lines.append("%d %.17g %.17g" % (j + 1, feature_min[j], feature_max[j]))
    write_atomically(f, ("\n".join(lines) + "\n").encode("ascii"))


def read_range_file(f):
    """Read svm-scale's range file (``svm-scale -r``).

    Returns
    -------
    dict
        lower, upper (floats), y_scaling ((y_lower, y_upper, y_min, y_max) or None),
        index (int64 array, 1-based feature indices, increasing), feature_min,
        feature_max (float64 arrays).

    Raises
    ------
    ValueError
        The file is not a range file; the message names the line.
    """
    raw, name = _read_all(f)
    lines = [(n + 1, line) for n, line in enumerate(raw.split(b"\n"))]
    lines = [(n, line.split(), line) for n, line in lines if line.strip()]

    def fail(n, line, reason):
        text = line.decode("utf-8", "backslashreplace").rstrip("\r")
        raise ValueError(f"{name}, line {n}: {reason}: {text[:200]!r}")

    def numbers(item, count, what):
        n, tokens, line = item
        if len(tokens) != count or not all(_FLOAT_RE.match(t) for t in tokens):
            fail(n, line, f"expected {what}")
        values = [float(t) for t in tokens]
        if not all(math.isfinite(v) for v in values):
            fail(n, line, f"{what} must be finite")
        return values

    pos = 0
    y_scaling = None
    if not lines:
        raise ValueError(f"{name}: empty range file (expected 'x' and the limits)")
    if lines[0][1] == [b"y"]:
        if len(lines) < 3:
            raise ValueError(f"{name}: the 'y' section needs two lines of numbers")
        y_scaling = tuple(numbers(lines[1], 2, "y_lower y_upper")
                          + numbers(lines[2], 2, "y_min y_max"))
        pos = 3
    if pos >= len(lines) or lines[pos][1] != [b"x"]:
        n, _, line = lines[pos] if pos < len(lines) else (len(raw.split(b"\n")), [], b"")
        fail(n, line, "expected the line 'x'")
    if pos + 1 >= len(lines):
        raise ValueError(f"{name}: the 'x' line must be followed by 'lower upper'")
    lower, upper = numbers(lines[pos + 1], 2, "lower upper")
    index, fmin, fmax = [], [], []
    previous = 0
    for item in lines[pos + 2:]:
        n, tokens, line = item
        if len(tokens) != 3 or not _INT_RE.match(tokens[0]):
            fail(n, line, "expected 'index min max'")
        idx = int(tokens[0])
        if idx <= previous or idx > INT_MAX:
            fail(n, line, "feature indices must be >= 1 and increasing")
        low, high = numbers((n, tokens[1:], line), 2, "min max")
        index.append(idx)
        fmin.append(low)
        fmax.append(high)
        previous = idx
    return {"lower": lower, "upper": upper, "y_scaling": y_scaling,
            "index": np.array(index, dtype=np.int64),
            "feature_min": np.array(fmin, dtype=np.float64),
            "feature_max": np.array(fmax, dtype=np.float64)}
