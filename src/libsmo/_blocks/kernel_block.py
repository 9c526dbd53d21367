"""Kernel values between many rows and the support vectors, in blocks of bounded memory.

Dense blocks use BLAS (numpy's matmul); sparse rows against sparse support vectors are
a dense product over the support vectors' common features and sums over the columns of
the others (`libsmo._blocks.support_rows.SparseSupportColumns`); neither
densifies a sparse input beyond one block of the kernel matrix, and neither costs
anything in the width of the rows beyond their non-zeros: support vectors whose
columns are few among very many (an index of 2**31 - 1 in a file) are kept on those
columns only (`libsmo._blocks.support_rows.SupportRows`), and each block of rows is matched to them.

RBF values are LIBSVM's: the expansion |x|^2 + |sv|^2 - 2 x'sv that makes a block one
matrix product loses the difference of two nearly equal rows to rounding when gamma is
large, so where that rounding could move the exponent by more than 1e-10, the squared
distance is computed again as svm-predict computes it, sum over features of
(x_f - sv_f)^2; K(x, x) is 1 at any gamma.

Rows and support vectors of zeros and ones (a9a, w8a) are matched on bitmaps instead
(`bit_block`): every kernel value is then a function of one count (common features, or
features only one of the two has), which is exact, and the block is a bit count and a
table load per value. a9a's test set, 16,281 rows against 11,618 support vectors:
see docs/performance.md.
"""
import contextlib
import sys

import numpy as np

from libsmo._blocks.support_rows import nbytes, squared_norms
from libsmo._core.bitmaps import pack_bits
from libsmo._core.int_rows import int_dots_block, small_integer_rows
from libsmo._core.kernel import rbf_exp_table
from libsmo._core.kernel_blocks import (
    bit_kernel_block,
    bit_kernel_products,
    rbf_block_from_dots,
    sparse_dots_feature_major,
)
from libsmo._utils import sparse as sp

# The kernel block of one batch of rows is kept near this many bytes. 16 MB rather
# than 32: letter's prediction (5,000 rows x 6,746 SVs) 0.29 -> 0.24 s and +45 ->
# +29 MB. 8 MB rather than 16: 1.01-1.08x the time on letter, a9a, w8a and
# Fashion-MNIST. And at most BLOCK_PER_DATA times the bytes of the rows and the support
# vectors, so that a small problem's prediction holds memory in proportion to it
# (pendigits, 3,498 rows x 901 SVs: +23 MB with 16 MB blocks, +7 MB for LIBSVM's whole
# fit and prediction).
BLOCK_BYTES = 8 * 2**20
BLOCK_PER_DATA = 4
# Rows a block when the kernel sums K @ coef are counted on bitmaps, which build no
# kernel block (what a block holds is its rows' bitmaps and sums): the blocks of the
# budget above cut w8a's test set into 47 and cost 8-15% of a9a's and w8a's prediction
# in slicing and per-block set-up.
COUNTED_BLOCK_ROWS = 4096
# Sparse rows whose stored values are at most this fraction of their entries are
# multiplied with dense support vectors by feature (nnz x n_SV multiply-adds) rather
# than densified for BLAS (rows x width x n_SV): 300 test rows against 8,000 support
# vectors, a9a (11% stored) 11.8 -> 8.3 ms, w8a (4%) 22.5 -> 8.7 ms; letter (all
# stored) would go 1.6 -> 5.4 ms.
BY_FEATURE_MAX_DENSITY = 0.2
# Predictions of at least this many kernel values that read rows by feature or count
# them on bitmaps run BLAS on one thread, leaving the cores to prediction's own OpenMP
# loops (a9a's test set on two cores: 1.5 s with both thread pools, 0.64 s so).
OWN_THREADS_MIN = 2**20
# Where rounding in the expansion of |x - sv|^2 may move gamma |x - sv|^2 by more than
# this, the distance is computed again feature by feature.
RBF_EXPONENT_TOLERANCE = 1e-10
# exp(-x) is 0 in double precision beyond this.
EXP_UNDERFLOW = 746.0


def reads_by_feature(X_block, SV):
    """Whether K(X_block, SV) should take its dot products from the support vectors
    stored feature by feature (`SupportRows.by_feature`): sparse rows against dense
    support vectors, with few enough stored values that nnz x n_SV multiply-adds beat
    a BLAS product of the densified rows."""
    return (sp.issparse(X_block) and not sp.issparse(SV)
            and X_block.nnz <= BY_FEATURE_MAX_DENSITY * X_block.shape[0] * X_block.shape[1])


def dense_block(X_block, SV):
    """A block of rows, densified when the support vectors are dense, the dense block
    fits the block budget and the rows are too dense to read by feature (then the
    product is one BLAS call)."""
    if (sp.issparse(X_block) and not sp.issparse(SV) and not reads_by_feature(X_block, SV)
            and X_block.shape[0] * X_block.shape[1] * 8 <= BLOCK_BYTES):
        return X_block.toarray()
    return X_block


def kernel_block(X, SV, kernel, gamma, degree, coef0, X_norms=None, SV_norms=None,
                 X_outside=None, SV_by_feature=None, dots=None, SV_columns=None,
                 coef=None):
    """K(X, SV) as a dense (n_rows, n_SV) array, or with `coef` the kernel sums
    K(X, SV) @ coef.

    Parameters
    ----------
    X, SV : ndarray or csr_matrix
        Rows and support vectors, with the same number of columns.
    kernel : {"linear", "poly", "rbf", "sigmoid"}
    gamma, degree, coef0 : LIBSVM's kernel parameters.
    X_norms, SV_norms : ndarray, optional
        Squared norms, for the RBF kernel; computed when not given.
    X_outside : ndarray, optional
        Per row, the squared norm of X's features outside these columns (counted in
        |x - sv|^2 where it is computed feature by feature).
    SV_by_feature : ndarray of shape (n_features, n_SV), optional
        Dense support vectors stored feature by feature: given (for sparse rows X that
        `reads_by_feature`), the dot products are read by feature.
    dots : ndarray of shape (n_rows, n_SV), optional
        X @ SV.T already taken (`int_dots`); overwritten with the kernel values.
    SV_columns : SparseSupportColumns, optional
        Sparse support vectors by feature: given (for sparse rows X), the dot products
        are a dense product over the common features and sums over the columns of
        each row's other features (`SparseSupportColumns.dots`).
    coef : ndarray of shape (n_SV,) or (n_SV, n_columns), optional
        Coefficients of the support vectors: given, K @ coef is returned instead of
        K. RBF values are then summed row by row as they are made
        (`kernel_blocks.rbf_block_from_dots` with coefficients), without a second pass
        over the block.

    Notes
    -----
    Values beyond double precision become inf or NaN without a numpy warning: the
    callers refuse non-finite decision values with a ValueError.
    """
    if kernel not in ("linear", "poly", "rbf", "sigmoid"):
        raise ValueError(f"unknown kernel {kernel!r}")
    # OpenMP threads for the RBF pass only where no BLAS product came just before
    # (see rbf_block_from_dots)
    rbf_threads = 1
    if dots is not None:
        rbf_threads = 0
    elif SV_by_feature is not None:
        dots = np.empty((X.shape[0], SV.shape[0]))
        sparse_dots_feature_major(X, SV_by_feature, dots)
        rbf_threads = 0
    elif SV_columns is not None:
        dots = SV_columns.dots(X)
        rbf_threads = 0
    else:
        dots = X @ SV.T
    if sp.issparse(dots):
        dots = dots.toarray()
    dots = np.ascontiguousarray(dots, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        if kernel == "linear":
            return _times(dots, coef)
        if kernel == "rbf":
            return _rbf(dots, X, SV, gamma, X_norms, SV_norms, X_outside, rbf_threads,
                        coef)
        dots *= gamma
        dots += coef0
        if kernel == "poly":
            return _times(dots ** degree, coef)
        return _times(np.tanh(dots, out=dots), coef)


def _rbf(dots, X, SV, gamma, X_norms, SV_norms, X_outside, threads=1, coef=None):
    """exp(-gamma |x - sv|^2) from the dot products (overwritten), or with `coef` its
    kernel sums K @ coef."""
    if X_norms is None:
        X_norms = squared_norms(X)
    if SV_norms is None:
        SV_norms = squared_norms(SV)
    if not _may_be_imprecise(X, SV, gamma, X_norms, SV_norms):
        # the usual case: one fused pass (clamp, scale, exp four or eight values at a
        # time) over each row, and with coefficients each row summed in the same pass
        X_norms = np.ascontiguousarray(X_norms, dtype=np.float64)
        SV_norms = np.ascontiguousarray(SV_norms, dtype=np.float64)
        if coef is None:
            rbf_block_from_dots(dots, X_norms, SV_norms, gamma, threads)
            return dots
        coef, coef_t = coefficient_rows(coef)
        sums = np.empty((dots.shape[0], coef_t.shape[0]))
        rbf_block_from_dots(dots, X_norms, SV_norms, gamma, threads, coef_t, sums)
        return sums[:, 0] if coef.ndim == 1 else sums
    dots *= -2.0
    dots += X_norms[:, None]
    dots += SV_norms[None, :]
    np.maximum(dots, 0.0, out=dots)
    suspect = _imprecise_distances(dots, X, SV, gamma, X_norms, SV_norms)
    dots *= -gamma
    np.exp(dots, out=dots)
    if suspect is not None:
        rows, cols = suspect
        exact = _exact_squared_distances(X, SV, rows, cols, X_outside)
        dots[rows, cols] = np.exp(-gamma * exact)
    return _times(dots, coef)


def coefficient_rows(coef):
    """Coefficients of the support vectors as float64, and as C-contiguous rows (one
    per column of sums), as the kernel-sum loops read them.

    Parameters
    ----------
    coef : array-like of shape (n_SV,) or (n_SV, n_columns)

    Returns
    -------
    coef : ndarray of float64, coef's shape
    coef_t : ndarray of shape (n_columns, n_SV), C-contiguous (n_columns = 1 for 1-D)
    """
    coef = np.asarray(coef, dtype=np.float64)
    return coef, np.ascontiguousarray((coef[:, None] if coef.ndim == 1 else coef).T)


def _imprecise_distances(d2, X, SV, gamma, X_norms, SV_norms):
    """(rows, cols) of the entries of d2 (from the norms' expansion) whose rounding may
    move gamma d2 by more than RBF_EXPONENT_TOLERANCE while exp(-gamma d2) is not 0;
    None when there are none. The expansion's error is at most about (terms + 4) eps
    (|x|^2 + |sv|^2), terms being the products summed per entry."""
    if d2.size == 0 or not _may_be_imprecise(X, SV, gamma, X_norms, SV_norms):
        return None
    error = _error_scale(X, SV, gamma) * (X_norms[:, None] + SV_norms[None, :])
    suspect = (error > RBF_EXPONENT_TOLERANCE) & (gamma * d2 - error < EXP_UNDERFLOW)
    rows, cols = np.nonzero(suspect)
    return (rows, cols) if len(rows) else None


def _error_scale(X, SV, gamma):
    """gamma (terms + 4) eps: the expansion's rounding per unit of |x|^2 + |sv|^2."""
    terms = min(X.shape[1], _max_row_nnz(X) + _max_row_nnz(SV)) + 4
    return gamma * terms * np.finfo(np.float64).eps


def _may_be_imprecise(X, SV, gamma, X_norms, SV_norms):
    """Whether any entry of the expansion may be off by more than RBF_EXPONENT_TOLERANCE
    in the exponent (False in the usual case: then no entry needs a second look)."""
    if len(X_norms) == 0 or len(SV_norms) == 0:
        return False
    return (_error_scale(X, SV, gamma) * (X_norms.max() + SV_norms.max())
            > RBF_EXPONENT_TOLERANCE)


def _max_row_nnz(A):
    if not sp.issparse(A):
        return A.shape[1]
    return int(np.diff(A.indptr).max()) if A.shape[0] else 0


def _exact_squared_distances(X, SV, rows, cols, X_outside):
    """sum_f (X[r, f] - SV[c, f])^2 (plus what X holds outside these columns) for each
    pair (rows[k], cols[k]), in chunks of at most BLOCK_BYTES of differences."""
    out = np.empty(len(rows))
    width = max(1, X.shape[1])
    step = max(1, BLOCK_BYTES // (8 * width))
    for start in range(0, len(rows), step):
        part = slice(start, start + step)
        left, right = X[rows[part]], SV[cols[part]]
        if sp.issparse(left) and sp.issparse(right):
            diff = (left - right).tocsr()
            squares = diff.multiply(diff)
            out[part] = np.asarray(squares.sum(axis=1)).ravel()
        else:
            left = left.toarray() if sp.issparse(left) else left
            right = right.toarray() if sp.issparse(right) else right
            diff = left - right
            out[part] = np.einsum("ij,ij->i", diff, diff)
    if X_outside is not None:
        out += X_outside[rows]
    return out


def iter_row_blocks(n_rows, n_cols, budget=None):
    """Slices of rows whose (rows x n_cols) float64 block stays within `budget` bytes
    (default BLOCK_BYTES)."""
    step = max(1, int(budget or BLOCK_BYTES) // (8 * max(1, n_cols)))
    for start in range(0, n_rows, step):
        yield slice(start, min(n_rows, start + step))


def for_each_kernel_block(visit, X, SV, kernel, gamma, degree, coef0, X_norms=None,
                          rows=None, coef=None):
    """Call visit(block, K(X[block], SV)) over slices of rows whose kernel block stays
    within BLOCK_BYTES (with `rows`, of the rows X[rows], taken a block at a time); with
    `coef`, visit(block, K(X[block], SV) @ coef).

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
    SV : SupportRows, or for kernel="precomputed" an index array
        The support vectors, or the columns of X that belong to them.
    kernel, gamma, degree, coef0
        As for `kernel_block`.
    X_norms : ndarray, optional
        Squared norms of the rows of X (all of X, whatever `rows` says), for the RBF
        kernel; computed a block at a time when not given.
    rows : array of int, optional
        Row indices into X (default: all rows, in order).
    coef : ndarray of shape (n_SV,) or (n_SV, n_columns), optional
        Coefficients of the support vectors: visit is given the kernel sums K @ coef
        (decision values), which rows of zeros and ones count without building K
        (`libsmo._core.kernel_blocks.bit_kernel_products`) and RBF blocks sum row by
        row as they are made (`kernel_block(coef=...)`).
    """
    n_sv = len(SV) if kernel == "precomputed" else SV.n_sv
    coef_t = None
    if coef is not None:
        coef, coef_t = coefficient_rows(coef)
    n_rows = X.shape[0] if rows is None else len(rows)
    # prediction's own OpenMP loops: counts on bitmaps, integer sums, products by
    # feature, and sparse rows against sparse support vectors summed over the support
    # vectors' columns (`column_dots`; scipy's sparse product built a sparse result
    # first, 12 bytes an entry, which text rows fill in). The bitmaps are asked first:
    # `SV.rows` may be a dense copy made on first use.
    own_loops = (kernel != "precomputed" and n_rows * n_sv >= OWN_THREADS_MIN
                 and (SV.bits is not None or SV.ints is not None
                      or reads_by_feature(X, SV.rows)
                      or (sp.issparse(X) and sp.issparse(SV.rows))))
    budget = min(BLOCK_BYTES, max(2**20, BLOCK_PER_DATA * (
        nbytes(X) + (nbytes(SV) if kernel == "precomputed" else SV.rows_nbytes))))
    counting = coef is not None and kernel != "precomputed" and SV.bits is not None
    # counted sums call no BLAS: the hold (and the controller it makes once a process,
    # 5 ms of w8a's first prediction) only around blocks that may
    with _one_blas_thread_if(own_loops and not counting):
        for block in (iter_row_blocks(n_rows, n_cols=1, budget=8 * COUNTED_BLOCK_ROWS)
                      if counting else iter_row_blocks(n_rows, n_sv, budget)):
            if not _visit_block(visit, block, X, SV, kernel, gamma, degree, coef0,
                                X_norms, rows, coef, coef_t, counting):
                # rows that are not zeros and ones: kernel blocks within the budget
                with _one_blas_thread_if(own_loops and counting):
                    for part in iter_row_blocks(block.stop - block.start, n_sv, budget):
                        _visit_block(visit, slice(block.start + part.start,
                                                  block.start + part.stop), X, SV,
                                     kernel, gamma, degree, coef0, X_norms, rows, coef,
                                     coef_t)


def _one_blas_thread_if(condition):
    """A context in which BLAS runs on one thread (threadpoolctl) when `condition`
    holds: prediction's own OpenMP loops then have the cores (the decision products
    between them are small). Otherwise a context that does nothing."""
    if not condition:
        return contextlib.nullcontext()
    return _blas_libraries().limit(limits=1)


# threadpoolctl's controller of the BLAS libraries loaded, and whether scipy.linalg
# (whose own BLAS `blas_dots` calls) was loaded when it was made
_BLAS_LIBRARIES = (None, False)


def _blas_libraries():
    """threadpoolctl's controller of the loaded BLAS libraries, made once a process
    (and again once scipy.linalg, which loads scipy's own BLAS, is imported): making
    one looks at every shared library the process has loaded, 2.8-3.3 ms a prediction
    beside the reviews' data tools (273 libraries), where its `limit` takes 0.02 ms."""
    global _BLAS_LIBRARIES
    controller, with_scipy_blas = _BLAS_LIBRARIES
    scipy_blas = "scipy.linalg" in sys.modules
    if controller is None or with_scipy_blas != scipy_blas:
        from threadpoolctl import ThreadpoolController
        controller = ThreadpoolController().select(user_api="blas")
        _BLAS_LIBRARIES = (controller, scipy_blas)
    return controller


def _visit_block(visit, block, X, SV, kernel, gamma, degree, coef0, X_norms, rows,
                 coef=None, coef_t=None, counted_only=False):
    """visit(block, K(X[block], SV)), or with `coef` visit(block, K(X[block], SV) @ coef)
    (`coef_t`: coef as rows, C-contiguous): one block of `for_each_kernel_block`.
    With `counted_only`, only where the block's rows can be counted on bitmaps; returns
    False (and visits nothing) where they cannot, True otherwise."""
    taken = block if rows is None else rows[block]
    X_block = X[taken]
    if not sp.issparse(X_block) and X_block.dtype != np.float64:
        # rows stored as bytes (`libsmo._utils.validation.check_data(keep_bytes=True)`):
        # a block of them as the numbers they are
        X_block = X_block.astype(np.float64)
    if kernel == "precomputed":
        visit(block, _times(X_block[:, SV], coef))
        return True
    matched, outside = SV.match(X_block)
    if SV.bits is not None:
        counted = bit_block(matched, outside, SV, kernel, gamma, degree, coef0, coef_t)
        if counted is not None:
            visit(block, counted if coef is None or coef.ndim == 2 else counted[:, 0])
            return True
    if counted_only:
        return False
    # the rows' norms only where the dot products are taken (counts need none)
    norms = None
    if kernel == "rbf":
        norms = squared_norms(X_block) if X_norms is None else X_norms[taken]
    matched = dense_block(matched, SV.rows)
    by_feature = SV.by_feature() if reads_by_feature(matched, SV.rows) else None
    columns = (SV.sparse_columns() if sp.issparse(matched) and sp.issparse(SV.rows)
               else None)
    visit(block, kernel_block(matched, SV.rows, kernel, gamma, degree, coef0,
                              X_norms=norms, SV_norms=SV.norms, X_outside=outside,
                              SV_by_feature=by_feature, dots=int_dots(matched, SV),
                              SV_columns=columns, coef=coef))
    return True


def int_dots(X, SV):
    """X @ SV.rows.T summed in integers (`int_dots_block`, as training sums them) when
    the support vectors have int16 rows (`SV.ints`) and the dense rows X are small
    integers over the same divisor; None otherwise (then BLAS takes the product)."""
    if SV.ints is None or sp.issparse(X):
        return None
    ints = small_integer_rows(X, np.arange(X.shape[0], dtype=np.int32))
    if ints is None or ints[1] != SV.int_divisor:
        return None
    dots = np.empty((X.shape[0], SV.n_sv))
    int_dots_block(ints[0], SV.ints, SV.int_divisor, dots)
    return dots


def _times(K, coef):
    """K, or K @ coef (a dense result) when coefficients are given."""
    if coef is None:
        return K
    return np.asarray(K @ coef)


def bit_block(X, X_outside, SV, kernel, gamma, degree, coef0, coef_t=None):
    """K(X, SV) counted on bitmaps (`libsmo._core.kernel_blocks.bit_kernel_block`) when the
    rows X, matched to the support vectors' columns, hold only zeros and ones; None
    otherwise (then the dot products are taken). With `coef_t`, the kernel sums
    K(X, SV) @ coef_t.T instead (`bit_kernel_products`), without the block.

    Parameters
    ----------
    X : ndarray or csr_matrix
        Rows on the columns of `SV.rows` (`SupportRows.match`).
    X_outside : ndarray or None
        The squared norm of what each row holds outside those columns: for RBF it adds
        to every squared distance, and must be a small integer for the counts to stay
        exact (a 0/1 row: the number of its features the model never saw).
    SV : SupportRows
        With bitmaps (`SV.bits`).
    kernel, gamma, degree, coef0
        As for `kernel_block`.
    coef_t : ndarray of shape (n_columns, n_SV), C-contiguous, optional

    Returns
    -------
    ndarray of shape (n_rows, n_SV), or (n_rows, n_columns) with coef_t; or None
    """
    x_bits = pack_bits(X, SV.shape[1])
    if x_bits is None:
        return None
    most = 64 * x_bits.shape[1]
    offsets = np.zeros(X.shape[0], dtype=np.int64)
    if kernel == "rbf" and X_outside is not None and len(X_outside):
        if not (np.all(X_outside == np.floor(X_outside)) and X_outside.max() <= most):
            return None
        offsets = X_outside.astype(np.int64)
    counts = np.arange(int(offsets.max(initial=0)) + most + 1, dtype=np.float64)
    # each kernel's function of the count, as `kernel_block` computes it of a dot product
    if kernel == "rbf":
        table = rbf_exp_table(gamma, len(counts))
    elif kernel == "linear":
        table = counts
    else:
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            scaled = counts * gamma
            scaled += coef0
            table = scaled ** degree if kernel == "poly" else np.tanh(scaled)
    if coef_t is not None:
        out = np.empty((X.shape[0], coef_t.shape[0]))
        bit_kernel_products(x_bits, SV.bits, offsets, table, kernel == "rbf", coef_t, out)
        return out
    out = np.empty((X.shape[0], SV.n_sv))
    bit_kernel_block(x_bits, SV.bits, offsets, table, kernel == "rbf", out)
    return out
