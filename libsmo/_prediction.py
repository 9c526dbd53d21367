"""Kernel values between many rows and the support vectors, in blocks of bounded memory.

Dense blocks use BLAS (numpy's matmul), sparse blocks scipy's sparse product; neither
densifies a sparse input beyond one block of the kernel matrix.
"""
import numpy as np
import scipy.sparse as sp

from libsmo._core.arrays import squared_norms as kernel_squared_norms

# The kernel block of one batch of rows is kept near this many bytes. 16 MB rather
# than 32: letter's prediction (5,000 rows x 6,746 SVs) 0.29 -> 0.24 s and +45 ->
# +29 MB, a9a's (12,000 training rows) the same speed and +40 -> +21 MB.
BLOCK_BYTES = 16 * 2**20
# Sparse support vectors are densified for prediction when that copy is this small:
# a dense product (BLAS) is about ten times faster than a sparse one on narrow data
# such as a9a (123 features), while wide text data (sector: 55,197) stays sparse.
DENSE_SV_BYTES = 64 * 2**20


def prediction_layout(SV):
    """The support vectors as prediction should hold them: dense when small enough."""
    if sp.issparse(SV) and SV.shape[0] * SV.shape[1] * 8 <= DENSE_SV_BYTES:
        return SV.toarray()
    return SV


def dense_block(X_block, SV):
    """A block of rows, densified when the support vectors are dense and the dense
    block fits the block budget (then the product is one BLAS call)."""
    if (sp.issparse(X_block) and not sp.issparse(SV)
            and X_block.shape[0] * X_block.shape[1] * 8 <= BLOCK_BYTES):
        return X_block.toarray()
    return X_block


def squared_norms(X):
    """Row-wise squared Euclidean norms of a dense or sparse matrix (any scipy format),
    summed feature by feature as LIBSVM sums them (`libsmo._core.arrays.squared_norms`)."""
    return kernel_squared_norms(X.tocsr() if sp.issparse(X) else X)


def kernel_block(X, SV, kernel, gamma, degree, coef0, X_norms=None, SV_norms=None):
    """K(X, SV) as a dense (n_rows, n_SV) array.

    Parameters
    ----------
    X, SV : ndarray or csr_matrix
        Rows and support vectors, with the same number of columns.
    kernel : {"linear", "poly", "rbf", "sigmoid"}
    gamma, degree, coef0 : LIBSVM's kernel parameters.
    X_norms, SV_norms : ndarray, optional
        Squared norms, for the RBF kernel; computed when not given.
    """
    if sp.issparse(X) or sp.issparse(SV):
        dots = X @ SV.T
        dots = dots.toarray() if sp.issparse(dots) else np.asarray(dots)
    else:
        dots = X @ SV.T
    if kernel == "linear":
        return dots
    if kernel == "rbf":
        if X_norms is None:
            X_norms = squared_norms(X)
        if SV_norms is None:
            SV_norms = squared_norms(SV)
        dots *= -2.0
        dots += X_norms[:, None]
        dots += SV_norms[None, :]
        np.maximum(dots, 0.0, out=dots)
        dots *= -gamma
        return np.exp(dots, out=dots)
    dots *= gamma
    dots += coef0
    if kernel == "poly":
        return dots ** degree
    if kernel == "sigmoid":
        return np.tanh(dots, out=dots)
    raise ValueError(f"unknown kernel {kernel!r}")


def iter_row_blocks(n_rows, n_cols):
    """Slices of rows whose (rows x n_cols) float64 block stays within BLOCK_BYTES."""
    step = max(1, BLOCK_BYTES // (8 * max(1, n_cols)))
    for start in range(0, n_rows, step):
        yield slice(start, min(n_rows, start + step))


def for_each_kernel_block(visit, X, SV, kernel, gamma, degree, coef0, X_norms=None,
                          SV_norms=None, rows=None):
    """Call visit(block, K(X[block], SV)) over slices of rows whose kernel block stays
    within BLOCK_BYTES (with `rows`, of the rows X[rows], taken a block at a time).

    Each block goes straight to `visit` and is bound nowhere else, so it is freed when
    visit returns, before the next one is built. (A generator's loop variable kept the
    last block alive while the next was built: letter's prediction peaked at +95 MB
    with two blocks, against LIBSVM's +62.5 MB for its whole fit and prediction.)

    Parameters
    ----------
    visit : callable
        visit(block, K) with a slice of rows and their (rows, n_SV) kernel values; K is
        valid during the call only.
    X : ndarray or csr_matrix
        The rows; for kernel="precomputed", their kernel values with every training row.
    SV : ndarray or csr_matrix, or for kernel="precomputed" an index array
        The support vectors (as `prediction_layout` holds them), or the columns of X
        that belong to them.
    kernel, gamma, degree, coef0, X_norms, SV_norms
        As for `kernel_block`; SV_norms is computed once here when needed.
    rows : array of int, optional
        Row indices into X (default: all rows, in order); X_norms then follows them.
    """
    n_sv = len(SV) if kernel == "precomputed" else SV.shape[0]
    n_rows = X.shape[0] if rows is None else len(rows)
    if kernel == "rbf" and SV_norms is None:
        SV_norms = squared_norms(SV)
    # a sparse-sparse product first builds a sparse result (12 bytes an entry, and
    # text rows share common words, so it fills in) before it becomes dense: blocks
    # two thirds as tall keep the two within the budget (these are the blocks that were
    # a third of a 32 MB budget: 6,793 TF-IDF reviews against 4,286 support vectors,
    # peak 151 MB -> 55 MB, time 1.08 s -> 1.38 s)
    sparse_product = kernel != "precomputed" and sp.issparse(X) and sp.issparse(SV)
    for block in iter_row_blocks(n_rows, 3 * n_sv // 2 if sparse_product else n_sv):
        X_block = X[block] if rows is None else X[rows[block]]
        if kernel == "precomputed":
            visit(block, X_block[:, SV])
        else:
            visit(block, kernel_block(dense_block(X_block, SV), SV, kernel, gamma, degree,
                                      coef0,
                                      X_norms=None if X_norms is None else X_norms[block],
                                      SV_norms=SV_norms))
