"""Support vectors as prediction reads them (`SupportRows`): on the columns they use,
dense when that is small, and as bitmaps or int16 rows where their values allow."""
import numpy as np

from libsmo._core.arrays import squared_norms as kernel_squared_norms
from libsmo._core.bitmaps import pack_bits
from libsmo._core.int_rows import small_integer_rows
from libsmo._utils import sparse as sp
from libsmo._utils.row_layout import COMPACT_WIDTH_FACTOR

# Sparse support vectors are densified for prediction when that copy is this small:
# a dense product (BLAS) is about ten times faster than a sparse one on narrow data
# such as a9a (123 features), while wide text data (sector: 55,197) stays sparse.
DENSE_SV_BYTES = 64 * 2**20
# Features stored by at least this share of the sparse support vectors are multiplied
# as one dense block (BLAS) in prediction of sparse rows, the rest over their columns
# (`SparseSupportColumns`). A text's common words make most of the products: on the
# reviews the 32 commonest of 71,530 features make 71% of them.
DENSE_FEATURE_SHARE = 0.2


def nbytes(A):
    """Bytes of a dense array, or of a sparse matrix's three arrays."""
    return (A.data.nbytes + A.indices.nbytes + A.indptr.nbytes if sp.issparse(A)
            else np.asarray(A).nbytes)


def squared_norms(X):
    """Row-wise squared Euclidean norms of a dense or sparse matrix (any scipy format),
    summed feature by feature as LIBSVM sums them (`libsmo._core.arrays.squared_norms`)."""
    return kernel_squared_norms(X.tocsr() if sp.issparse(X) else X)


class SupportRows:
    """Support vectors as prediction reads them.

    Parameters
    ----------
    SV : ndarray or csr_matrix of shape (n_SV, width)
        Validated support vectors (dense C-contiguous float64 or canonical CSR; dense
        uint8 rows are made float64).

    Attributes
    ----------
    rows : ndarray or csr_matrix
        The support vectors on `columns` only (all columns when `columns` is None),
        dense when that copy is at most DENSE_SV_BYTES. Sparse support vectors of
        zeros and ones get that copy on first use: sums counted on their bitmaps do
        not read it, only blocks of other rows do.
    shape : (int, int)
        The shape of `rows`, known without making it.
    columns : ndarray of int or None
        The original column of each column of `rows`, increasing.
    width : int
        The original number of columns.
    norms : ndarray
        Squared norms of the support vectors.
    bits : ndarray of uint64 or None
        Bitmaps of `rows` when all their values are zeros and ones (`pack_bits`), else
        None.
    ints : ndarray of int16 or None
        Dense `rows` of more than 64 columns, without bitmaps, as small integers over
        `int_divisor` (`small_integer_rows`), else None.
    """

    def __init__(self, SV):
        if not sp.issparse(SV) and SV.dtype != np.float64:
            # support vectors taken from rows stored as bytes
            SV = np.ascontiguousarray(SV, dtype=np.float64)
        self.width = SV.shape[1]
        self.norms = squared_norms(SV)
        self.columns = None
        if sp.issparse(SV) and self.width > COMPACT_WIDTH_FACTOR * (SV.nnz + SV.shape[0]):
            self.columns = np.unique(SV.indices).astype(np.int64)
            SV = sp.csr_matrix((SV.data, np.searchsorted(self.columns, SV.indices)
                                .astype(np.int32), SV.indptr),
                               shape=(SV.shape[0], len(self.columns)))
        self.shape = SV.shape
        self.bits = pack_bits(SV) if SV.shape[1] else None
        self._sparse_rows = None
        if sp.issparse(SV) and SV.shape[0] * SV.shape[1] * 8 <= DENSE_SV_BYTES:
            if self.bits is None:
                SV = SV.toarray()
            else:
                # the dense copy (w8a's: 4.5 ms and 7.7 MB of new pages) waits for a
                # block that is not counted on the bitmaps (`rows`)
                self._sparse_rows, SV = SV, None
        self._rows = SV
        self.ints, self.int_divisor = None, 0.0
        if self.bits is None and not sp.issparse(SV) and SV.shape[1] > 64:
            ints = small_integer_rows(SV, np.arange(SV.shape[0], dtype=np.int32))
            if ints is not None:
                self.ints, self.int_divisor, _ = ints
        self._by_feature = None
        self._columns = None

    def by_feature(self):
        """The dense support vectors stored feature by feature, (width, n_SV), made on
        first use (prediction of sparse rows, `reads_by_feature`)."""
        if self._by_feature is None:
            self._by_feature = np.ascontiguousarray(self.rows.T)
        return self._by_feature

    def sparse_columns(self):
        """The sparse support vectors by feature (`SparseSupportColumns`), made on
        first use (prediction of sparse rows)."""
        if self._columns is None:
            self._columns = SparseSupportColumns(self.rows)
        return self._columns

    @property
    def rows(self):
        """The support vectors as the dot products read them (see the class's
        attributes), made dense on first use where that copy waited."""
        # the sparse rows stay (the model holds them anyway): two threads predicting
        # with one model at once may both make the copy, neither finds it gone
        if self._rows is None:
            self._rows = self._sparse_rows.toarray()
        return self._rows

    @property
    def rows_nbytes(self):
        """The bytes of `rows` (of its dense copy when that waits), without making it."""
        if self._rows is None:
            return 8 * self.shape[0] * self.shape[1]
        return nbytes(self._rows)

    @property
    def n_sv(self):
        """The number of support vectors."""
        return self.shape[0]

    def match(self, X):
        """X's rows on the columns of `rows`, and the squared norm of what X holds
        outside them (None when nothing), for |x - sv|^2.

        Parameters
        ----------
        X : ndarray or csr_matrix
            Validated rows; sparse rows may be narrower or wider than the support
            vectors (LIBSVM's files omit trailing zeros; features the model never saw
            add nothing to a dot product but count in |x - sv|^2, as in svm-predict).

        Returns
        -------
        X_matched : ndarray or csr_matrix
        outside : ndarray or None
        """
        width = self.shape[1]
        if not sp.issparse(X):
            if self.columns is not None:
                return np.ascontiguousarray(X[:, self.columns]), None
            return X, None
        if self.columns is None and X.shape[1] <= width:
            if X.shape[1] < width:
                X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
            return X, None
        if self.columns is None:
            position = X.indices.astype(np.int64)
            keep = position < width
        else:
            position = np.searchsorted(self.columns, X.indices)
            keep = self.columns[np.minimum(position, len(self.columns) - 1)] == X.indices \
                if len(self.columns) else np.zeros(len(X.indices), dtype=bool)
        kept_before = np.concatenate([[0], np.cumsum(keep)])
        indptr = kept_before[X.indptr]
        dropped = np.where(keep, 0.0, X.data)
        # per-row sums in order (bincount), not differences of running sums, which
        # would round: gamma may be huge where this matters
        row_of = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        outside = np.bincount(row_of, weights=dropped * dropped, minlength=X.shape[0])
        matched = sp.csr_matrix((X.data[keep], position[keep].astype(np.int32),
                                 indptr.astype(X.indptr.dtype)), shape=(X.shape[0], width))
        return matched, outside


class SparseSupportColumns:
    """Sparse support vectors stored for the dot products of sparse rows with them.

    The features that at least DENSE_FEATURE_SHARE of the support vectors store are
    kept as a dense (n_common, n_SV) block, the others as the columns of
    `sparse_dots.SparseColumns`. A product of two rows counts once per feature both
    store, so the common features make most of them, and a dense matrix product does
    those many times faster than additions scattered over the columns.

    Parameters
    ----------
    SV : csr_matrix of shape (n_SV, width)
        Canonical CSR.
    """

    def __init__(self, SV):
        from libsmo._core.kernel_blocks import split_by_slot
        from libsmo._core.sparse_dots import SparseColumns
        counts = np.bincount(SV.indices, minlength=SV.shape[1])
        self.common = np.flatnonzero(counts >= max(1.0, DENSE_FEATURE_SHARE * SV.shape[0]))
        # per feature, its column in the dense block (-1: summed over the columns)
        self.common_slot = np.full(SV.shape[1], -1, dtype=np.int32)
        self.common_slot[self.common] = np.arange(len(self.common), dtype=np.int32)
        self.common_rows = np.zeros((len(self.common), SV.shape[0]))
        data, indices, row_start, row_nnz = split_by_slot(SV, self.common_slot,
                                                          self.common_rows)
        self.columns = SparseColumns(data, indices, row_start, row_nnz, SV.shape[1],
                                     n_threads=0)

    def dots(self, X):
        """X @ SV.T as a dense C-contiguous array.

        Parameters
        ----------
        X : csr_matrix of shape (n_rows, width)
            Canonical CSR with int32 indices, no wider than the support vectors.

        Returns
        -------
        ndarray of shape (n_rows, n_SV)
        """
        from libsmo._core.blas_dots import dense_dots
        from libsmo._core.kernel_blocks import column_dots, dense_columns_of
        out = np.empty((X.shape[0], self.common_rows.shape[1]))
        # the common features X can store (its width may be less than the SVs')
        n_common = int(np.count_nonzero(self.common < X.shape[1]))
        if n_common:
            common_values = np.empty((X.shape[0], n_common))
            dense_columns_of(X, self.common_slot, common_values)
            dense_dots(common_values, self.common_rows[:n_common], out)
        column_dots(X, self.columns, out, add=n_common > 0)
        return out
