"""The svmlight / LIBSVM data format (``label [qid:q] idx:val ...``).

`load_svmlight_file` / `load_svmlight_files` read it with scikit-learn's names and
behaviour (CSR X, float64 y, optional query ids, ``zero_based="auto"``), through the
Cython parser of `libsmo.io._svmlight`; paths or binary file objects, gzip / bzip2 / xz
recognised by their first bytes. `dump_svmlight_file` writes dense or sparse data
back, every number in the shortest text that reads back to the same double.

Every parse error is a ValueError naming the file and the line.
"""
import os
from dataclasses import dataclass

import numpy as np

from libsmo._utils import sparse as sp
from libsmo._utils.names import INT_MAX
from libsmo._utils.row_layout import DENSE_COPY_BYTES, reads_dense
from libsmo.io._svmlight import Parser
from libsmo.io._writer import format_lines
from libsmo.io.atomic import write_atomically
from libsmo.io.sources import _parse_stream, _Source

__all__ = ["dump_svmlight_file", "load_svmlight_file", "load_svmlight_files"]


def load_svmlight_file(f, n_features=None, dtype=np.float64, zero_based="auto",
                       query_id=False):
    r"""Read a file in the svmlight / LIBSVM format into a CSR matrix and labels.

    The same names and behaviour as `sklearn.datasets.load_svmlight_file`: lines
    ``label [qid:q] idx:val idx:val ...`` with strictly increasing indices, '#'
    comments, blank lines skipped, lines with a label only give rows without features.
    The parser is compiled (several times faster than scikit-learn's reader).

    Parameters
    ----------
    f : str, path-like, int or binary file object
        A path, a file descriptor, or a file object opened in binary mode (not closed
        here). gzip, bzip2 and xz content is decompressed transparently, whatever the
        file's name.
    n_features : int, default=None
        Number of columns; at least the largest index read (None: that index).
    dtype : numpy dtype, default=numpy.float64
        The dtype of X (values are read as float64 and converted); y is always
        float64.
    zero_based : bool or 'auto', default='auto'
        Whether the indices count from 0 (True) or from 1 (False; LIBSVM's files).
        'auto': one-based unless some index is 0 (scikit-learn's rule).
    query_id : bool, default=False
        Also return each row's ``qid`` (0 where a row has none, as svmlight).

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_rows, n_features)
        The rows.
    y : ndarray of shape (n_rows,)
        The labels, float64.
    qid : ndarray of shape (n_rows,)
        The query ids, int64; returned only with ``query_id=True``.

    Raises
    ------
    ValueError
        A malformed line (the message names the file, the line number and its text),
        a compressed file that does not decompress, or n_features smaller than the
        data. Nothing is returned from a file that fails.

    See Also
    --------
    load_svmlight_files : Read several files with one number of columns.
    dump_svmlight_file : Write X and y in this format.
    sklearn.datasets.load_svmlight_file : The scikit-learn reader of the format.

    Examples
    --------
    >>> import io
    >>> import libsmo
    >>> f = io.BytesIO(b"1 2:1.5\n-1 1:2\n# a comment\n1\n")
    >>> X, y = libsmo.load_svmlight_file(f)
    >>> X.toarray()
    array([[0. , 1.5],
           [2. , 0. ],
           [0. , 0. ]])
    >>> y
    array([ 1., -1.,  1.])

    A malformed line is named:

    >>> libsmo.load_svmlight_file(io.BytesIO(b"1 1:2\n-1 3:x\n"))
    Traceback (most recent call last):
    ...
    ValueError: <file object>, line 2: invalid feature value in '3:x': '-1 3:x'
    """
    return tuple(load_svmlight_files([f], n_features=n_features, dtype=dtype,
                                     zero_based=zero_based, query_id=query_id))


def load_svmlight_files(files, n_features=None, dtype=np.float64, zero_based="auto",
                        query_id=False):
    r"""Read several svmlight / LIBSVM files with one number of columns (the largest).

    A training file and a test file read together get the same width, even when
    the test file's largest index is smaller. With zero_based='auto' the files are
    one-based unless one of them uses index 0.

    Parameters
    ----------
    files : str, path-like, int, binary file object, or a list of them
        The files, as `load_svmlight_file` takes each.
    n_features : int, default=None
        Number of columns of every X; at least the largest index of any file
        (None: that index).
    dtype : numpy dtype, default=numpy.float64
        The dtype of each X; each y is float64.
    zero_based : bool or 'auto', default='auto'
        Whether the indices count from 0 (True) or from 1 (False); 'auto' as
        described above.
    query_id : bool, default=False
        Also return each file's query ids.

    Returns
    -------
    list
        [X1, y1, X2, y2, ...], or [X1, y1, qid1, X2, ...] with query_id=True.

    Raises
    ------
    ValueError
        A malformed line in any file (named with its line), or n_features smaller
        than the data.

    See Also
    --------
    load_svmlight_file : Read one file.
    sklearn.datasets.load_svmlight_files : The scikit-learn reader of several files.

    Examples
    --------
    >>> import io
    >>> import libsmo
    >>> train = io.BytesIO(b"1 1:0.5 3:2\n-1 2:1\n")
    >>> test = io.BytesIO(b"1 1:1\n")
    >>> X_train, y_train, X_test, y_test = libsmo.load_svmlight_files([train, test])
    >>> X_train.shape, X_test.shape
    ((2, 3), (1, 3))
    """
    result = []
    for rows in read_svmlight_rows(files, n_features, dtype, zero_based):
        result += [rows.to_csr(), rows.y]
        if query_id:
            result.append(rows.qid)
    return result


@dataclass(frozen=True)
class SvmlightRows:
    """One file's rows as the parser read them: CSR arrays (indices from 0, in the file's
    order, explicit zeros kept), labels and query ids.

    Attributes
    ----------
    data : ndarray of the requested dtype
    indices, indptr : ndarray of int32 (int64 past 2**31 - 1 entries or columns)
    shape : (n_rows, n_features)
    y : ndarray of float64
    qid : ndarray of int64
    """
    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple
    y: np.ndarray
    qid: np.ndarray

    def to_csr(self):
        """The rows as a scipy.sparse.csr_matrix sharing these arrays."""
        return sp.csr_matrix((self.data, self.indices, self.indptr), shape=self.shape)

    def has_explicit_zeros(self):
        """Whether the file stores a value 0 somewhere (``3:0``), which a dense matrix
        could not tell from a missing entry."""
        return bool(len(self.data)) and not np.all(self.data != 0)

    def to_dense(self, width=None):
        """The rows as a C-contiguous dense matrix (missing entries 0) of `width`
        columns (default: the rows' own; at least that many)."""
        X = np.zeros((self.shape[0], self.shape[1] if width is None else width),
                     dtype=self.data.dtype)
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        X[rows, self.indices] = self.data
        return X

    def dense_or_csr(self, width=None, dense_copy_bytes=None, keeps_stored_zeros=False):
        """The rows dense (`to_dense(width)`) where `libsmo._utils.row_layout.reads_dense` would
        read them dense within dense_copy_bytes (default its own limit), else CSR: the
        commands' way to small data without importing scipy.

        Parameters
        ----------
        width : int or None
            Columns of a dense result; rows wider than this stay CSR.
        dense_copy_bytes : int or None
            0 keeps the rows CSR.
        keeps_stored_zeros : bool
            Whether a stored 0 (``3:0``) must survive (a model file writes it): a file
            with one then stays CSR.
        """
        width = self.shape[1] if width is None else width
        budget = DENSE_COPY_BYTES if dense_copy_bytes is None else dense_copy_bytes
        if (budget and self.shape[1] <= width
                and not (keeps_stored_zeros and self.has_explicit_zeros())
                and reads_dense(self.shape[0], width, len(self.data), budget)):
            return self.to_dense(width)
        return self.to_csr()


def read_svmlight_rows(files, n_features=None, dtype=np.float64, zero_based="auto"):
    """Parse svmlight / LIBSVM files into CSR arrays without building scipy matrices
    (`load_svmlight_files` builds them from these; the commands may build dense rows
    instead).

    Parameters
    ----------
    files, n_features, dtype, zero_based
        As in `load_svmlight_files`.

    Returns
    -------
    list of SvmlightRows
        One per file, all with the same number of columns.
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
        result.append(SvmlightRows(np.asarray(data, dtype=dtype),
                                   indices.astype(index_dtype), indptr.astype(index_dtype),
                                   (len(indptr) - 1, n_features), leading[:, 0].copy(), qid))
    return result


@dataclass(frozen=True)
class RowsToWrite:
    """The entries to write, row by row, as CSR arrays: what the writers read, built
    without scipy for dense rows."""
    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple

    @property
    def nnz(self):
        """Entries written."""
        return len(self.data)


def _as_csr_for_writing(X):
    """The entries of X to write: float64 values, sorted unique indices (X itself is
    not modified). A sparse matrix writes its stored entries (explicit zeros included,
    duplicates summed); dense rows their values other than 0 (NaN included), as
    scipy.sparse.csr_matrix would store them.

    Returns
    -------
    RowsToWrite
    """
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got {X.ndim} dimensions")
        X = sp.csr_matrix(X, dtype=np.float64, copy=True)
        X.sum_duplicates()
        X.sort_indices()
        return RowsToWrite(X.data, X.indices, X.indptr, X.shape)
    arr = np.asarray(X)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"X must hold real numbers, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {arr.shape}")
    arr = arr.astype(np.float64)
    return RowsToWrite(*sp.dense_to_csr_arrays(arr), arr.shape)


def dump_svmlight_file(X, y, f, zero_based=False, comment=None, query_id=None,
                       libsvm_precision=False):
    """Write X and y in the svmlight / LIBSVM format, every number losslessly.

    Each row becomes a line ``label [qid:q] idx:val idx:val ...`` with the row's
    non-zero entries (a sparse matrix's stored entries) in increasing index order.
    Numbers are written in the shortest text that reads back to the same double,
    or, with ``libsvm_precision=True``, as svm-scale writes them.

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
    zero_based : bool, default=False
        Whether to write indices from 0; False writes LIBSVM's 1-based indices.
    comment : str, default=None
        Written first, each line prefixed by "# ". LIBSVM's svm-train does not accept
        comments; libsmo's and scikit-learn's readers do.
    query_id : array-like of int, default=None
        Written as ``qid:q`` after each label.
    libsvm_precision : bool, default=False
        Write what svm-scale writes, byte for byte: labels with ``%.17g``, values with
        ``%g`` (six significant digits), each token followed by a blank. False writes
        every number in the shortest form that reads back exactly.

    Raises
    ------
    ValueError
        y is not 1-D or not as long as X, a column index beyond LIBSVM's (a C int),
        query ids that are not one integer per row, or a comment with NUL bytes.
    TypeError
        y does not hold numbers.

    See Also
    --------
    load_svmlight_file : Read the format.
    sklearn.datasets.dump_svmlight_file : The scikit-learn writer of the format.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> import libsmo
    >>> X = np.array([[0.0, 1.5], [2.0, 0.0], [0.0, 0.0]])
    >>> f = io.BytesIO()
    >>> libsmo.dump_svmlight_file(X, np.array([1, -1, 1]), f)
    >>> print(f.getvalue().decode())
    1 2:1.5
    -1 1:2
    1
    <BLANKLINE>
    """
    X = _as_csr_for_writing(X)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    if y.dtype.kind not in "biuf":
        raise TypeError(f"y must hold numbers, got dtype {y.dtype}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
    offset = 0 if zero_based else 1
    if X.nnz and int(X.indices.max()) + offset > INT_MAX:
        raise ValueError(f"X has a value in column {int(X.indices.max())}: LIBSVM's "
                         f"format holds indices up to {INT_MAX} (a C int), and "
                         "load_svmlight_file would refuse the file")
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
                        index_offset=offset,
                        lead_format=("g", 17) if libsvm_precision else ("r", 0),
                        value_format=("g", 6) if libsvm_precision else ("r", 0), qid=qid,
                        trailing_blank=libsvm_precision)
    write_atomically(f, head + body, compress=True)
