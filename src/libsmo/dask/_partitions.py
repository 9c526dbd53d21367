"""Training data that lives on the workers: a dask array, or a sequence of dense or CSR
partitions, made into one future per partition holding its validated rows, labels and
global row numbers (`PartitionData`).

The rows never come to the client: each partition is validated where it is computed
(`libsmo._utils.validation.check_data`), and only its size, width, density and labels are
gathered, from which the client sorts the classes (scikit-learn's `classes_`) and
numbers the rows. Sparse partitions are densified where the whole data would be (the
rule of `libsmo.training._problem.solver_layout`), so that every kernel value is computed as a
single machine computes it.

A dask array's partitions are recomputed from its graph when a worker is lost, and so
are in-memory partitions, which go to the workers inside their tasks (they pass through
the scheduler, which keeps them for that: for data larger than the scheduler should
hold, give a dask array that loads on the workers).
"""
from dataclasses import dataclass
from typing import Optional

import numpy as np
import scipy.sparse as sp

from libsmo._core.arrays import csr_to_dense
from libsmo._core.int_rows import small_integer_rows
from libsmo._utils import validation as v
from libsmo._utils.row_layout import reads_dense
from libsmo.training._problem import take_rows

# class sums larger than this (k x n_features entries) are not gathered
MOMENT_ENTRIES = 1 << 22


@dataclass(frozen=True)
class PartitionData:
    """One partition on its worker.

    Attributes
    ----------
    X : ndarray or csr_matrix
        The rows, validated, in the layout the solver reads.
    labels : ndarray of int
        Class index of each row (into the sorted classes); the targets themselves
        before `encode`.
    ids : ndarray of int64
        Row numbers in the whole data.
    weights : ndarray or None
        Sample weights.
    """
    X: object
    labels: np.ndarray
    ids: np.ndarray
    weights: Optional[np.ndarray]


@dataclass(frozen=True)
class PartitionInfo:
    """What the client learns of a partition: its size, and its classes with their
    rows (`counts`) and their rows of weight > 0 (`taking_part`)."""
    n_rows: int
    n_features: int
    nnz: int
    sparse: bool
    classes: np.ndarray
    counts: np.ndarray
    taking_part: np.ndarray


def validate(X, y, weights, index):
    """A partition's rows, labels and weights checked (messages name the partition).

    Returns
    -------
    PartitionData
        With the raw labels and no row numbers yet.
    """
    name = f"X (partition {index})"
    # a partition without rows (a filtered dask dataframe) is valid: `load_partitions`
    # leaves it out
    X = v.check_data(X, name, allow_empty=True)
    v.check_norms(X, name)
    y = v.check_labels(np.asarray(y).ravel(), X.shape[0])
    if weights is not None:
        # a partition may hold only rows of weight 0 (one class's rows, all left
        # out): the whole data's classes are checked on the client (`SVC.fit`)
        weights = v.check_sample_weight(np.asarray(weights).ravel(), X.shape[0],
                                        allow_all_zero=True)
    return PartitionData(X=X, labels=y, ids=np.zeros(0, dtype=np.int64), weights=weights)


def info(part):
    """The `PartitionInfo` of a validated partition."""
    X = part.X
    classes, encoded, counts = np.unique(part.labels, return_inverse=True,
                                         return_counts=True)
    taking_part = (counts if part.weights is None else
                   np.bincount(encoded.ravel()[part.weights > 0], minlength=len(classes)))
    return PartitionInfo(n_rows=X.shape[0], n_features=X.shape[1],
                         nnz=int(X.nnz) if sp.issparse(X) else X.size,
                         sparse=sp.issparse(X), classes=classes, counts=counts,
                         taking_part=taking_part)


def encode(part, classes, offset, n_features, densify):
    """The partition with class indices, row numbers from `offset`, the data's full
    width, and dense rows where the whole data is trained dense."""
    X = part.X
    if X.shape[1] < n_features:
        X = (sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))
             if sp.issparse(X) else np.hstack([X, np.zeros((X.shape[0],
                                                            n_features - X.shape[1]))]))
    if densify and sp.issparse(X):
        X = csr_to_dense(X)
    labels = np.searchsorted(classes, part.labels)
    return PartitionData(X=X, labels=labels,
                         ids=np.arange(offset, offset + X.shape[0], dtype=np.int64),
                         weights=part.weights)


def moments(part):
    """(sum, sum of squares, entries) of the partition's values, for gamma='scale'."""
    X = part.X
    if sp.issparse(X):
        return float(X.data.sum()), float(X.data @ X.data), X.shape[0] * X.shape[1]
    return float(X.sum()), float(np.vdot(X, X)), X.size


def class_rows(part, c):
    """Positions of the partition's rows of class `c` that take part (weight > 0)."""
    mask = part.labels == c
    if part.weights is not None:
        mask &= part.weights > 0
    return np.flatnonzero(mask)


def class_moments(part, k):
    """What the client needs of each class to estimate the cost of its pairs.

    Returns
    -------
    counts : ndarray of shape (k,)
        Rows of each class that take part (weight > 0).
    sums : ndarray of shape (k, n_features), or None
        Their sums; None when k x n_features exceeds `MOMENT_ENTRIES`.
    squares : ndarray of shape (k,)
        The sums of their squared norms.
    """
    n = len(part.labels)
    # rows that take no part go to an extra class k, left out below
    labels = part.labels if part.weights is None else np.where(part.weights > 0,
                                                               part.labels, k)
    onehot = sp.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(k + 1, n))[:k]
    X = part.X
    squares = (np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X)
               else np.einsum("ij,ij->i", X, X))
    sums = None
    if k * X.shape[1] <= MOMENT_ENTRIES:
        sums = onehot @ X
        sums = sums.toarray() if sp.issparse(sums) else np.asarray(sums)
    return np.bincount(labels, minlength=k + 1)[:k], sums, onehot @ squares


@dataclass(frozen=True)
class ByteRows:
    """Dense rows moved between workers as bytes: `q / divisor` is the rows, exactly.

    8-bit images (pixel / 255) are an eighth of their float64 bytes this way; the
    receiving worker makes the same doubles again (`unpack_rows`)."""
    q: np.ndarray
    divisor: float

    @property
    def shape(self):
        return self.q.shape


def pack_rows(X):
    """Dense rows of integers in [0, 255] over one divisor (those that training keeps as
    uint8, `libsmo._core.int_rows`) as `ByteRows`; any other rows unchanged.

    Parameters
    ----------
    X : ndarray of shape (n, d), C-contiguous float64, or csr_matrix

    Returns
    -------
    ByteRows, or X itself
    """
    if sp.issparse(X) or X.size == 0:
        return X
    found = small_integer_rows(X, np.arange(X.shape[0]))
    if found is None:
        return X
    q, divisor, _ = found
    if q.min() < 0 or q.max() > 255:
        return X
    return ByteRows(q.astype(np.uint8), divisor)


def unpack_rows(blocks):
    """The float64 rows of several blocks stacked in order.

    Parameters
    ----------
    blocks : list of ndarray or ByteRows (dense), or of csr_matrix
        Blocks of the same width.

    Returns
    -------
    ndarray (a new C-contiguous array) or csr_matrix
    """
    if sp.issparse(blocks[0]):
        return sp.vstack(blocks, format="csr")
    X = np.empty((sum(b.shape[0] for b in blocks), blocks[0].shape[1]))
    start = 0
    for block in blocks:
        end = start + block.shape[0]
        if isinstance(block, ByteRows):
            np.divide(block.q, block.divisor, out=X[start:end])
        else:
            X[start:end] = block
        start = end
    return X


def stack_rows(blocks):
    """Blocks of one class's rows stacked, as `ByteRows` when all are, with one
    divisor (so that they move as bytes again), else as `unpack_rows`.

    Parameters
    ----------
    blocks : list of ndarray, ByteRows or csr_matrix

    Returns
    -------
    ByteRows, ndarray or csr_matrix
    """
    # a partition without rows of the class gives an empty block of doubles
    filled = [b for b in blocks if b.shape[0]]
    if (filled and all(isinstance(b, ByteRows) for b in filled)
            and len({b.divisor for b in filled}) == 1):
        return ByteRows(np.vstack([b.q for b in filled]), filled[0].divisor)
    return unpack_rows(blocks)


def class_ids(part, c):
    """Row numbers of the partition's rows of class `c` that take part."""
    return part.ids[class_rows(part, c)]


def rows_by_id(part, ids):
    """The partition's rows among `ids` (sorted), in the order of their numbers."""
    local = ids[(ids >= part.ids[0]) & (ids <= part.ids[-1])] - part.ids[0] if len(
        part.ids) else np.zeros(0, dtype=np.int64)
    return take_rows(part.X, local)


def densify_rule(infos, n_features):
    """Whether sparse data is trained as dense rows: the rule of
    `libsmo.training._problem.solver_layout`, applied to the whole data."""
    return all(i.sparse for i in infos) and reads_dense(
        sum(i.n_rows for i in infos), n_features, sum(i.nnz for i in infos))
