"""Rows of dot products summed over a CSR row's own features' columns
(`sparse_dots.SparseColumns`, `Rows.build_columns`, `RowPaths.sparse_columns`) are the
gathers' values bit for bit, through the solver's swaps and on two threads, so a fit
takes the same steps to the same model; on TF-IDF rows they are the faster way.
Prediction sums sparse rows over the sparse support vectors' columns likewise, after one
dense product over the features most of them store."""
import sys
from pathlib import Path

import numpy as np
import pytest

import libsmo
from helpers.data import data_file, load_dataset
from helpers.peers import libsvm_decision, libsvm_predict, libsvm_summary, libsvm_train
from helpers.training import train_on_paths
from libsmo._blocks.kernel_block import kernel_block
from libsmo._blocks.support_rows import (
    DENSE_FEATURE_SHARE,
    SparseSupportColumns,
    SupportRows,
)
from libsmo._core.blas_dots import dense_dots
from libsmo._core.kernel import Kernel
from libsmo._core.kernel_blocks import column_dots, dense_columns_of, split_by_slot
from libsmo._core.qmatrix import QMatrix
from libsmo._core.rows import Rows
from libsmo._core.solvers import solve
from libsmo._core.sparse_dots import (
    DENSE_COLUMN_MIN_ROWS,
    DENSE_COLUMN_SHARE,
    SparseColumns,
    copy_bytes,
    dense_column_count,
)
from libsmo._utils import sparse as sp

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def first_reviews(limit):
    """TF-IDF rows of the first `limit` clothing reviews (the text_reviews example's own
    reader and vectorizer), canonical CSR as validation leaves it, and the labels."""
    csv = data_file("Womens Clothing E-Commerce Reviews.csv")
    sys.path.insert(0, str(EXAMPLES))
    try:
        import text_reviews
    finally:
        sys.path.remove(str(EXAMPLES))
    texts, labels, _ = text_reviews.read_reviews(csv, limit=limit)
    X = text_reviews.vectorizer().fit_transform(texts).tocsr()
    X.sort_indices()
    return X, np.where(labels == 1, 1.0, -1.0)


@pytest.fixture(scope="module")
def reviews():
    """`first_reviews` of 1,500 reviews."""
    return first_reviews(1500)


@pytest.fixture(scope="module")
def long_reviews():
    """`first_reviews` of 4,500 reviews: rows long enough (PARALLEL_MIN_ENTRIES) for the
    kernel to share them among threads."""
    return first_reviews(4500)


def columns_of(sv):
    """`SparseColumns` over the CSR rows sv."""
    return SparseColumns(sv.data, sv.indices, sv.indptr[:-1].astype(np.int64),
                         np.diff(sv.indptr).astype(np.int32), sv.shape[1])


@pytest.mark.parametrize("dense_share", [0.0, DENSE_COLUMN_SHARE])
@pytest.mark.parametrize("nthreads", [1, 2])
def test_column_rows_are_the_gathered_rows_through_swaps(reviews, nthreads, dense_share):
    """Also where the commonest words' columns are dense (training's columns): the
    products with a row's zeros leave the sums' bits alone."""
    X = reviews[0]
    gathered, by_columns = Rows(X), Rows(X)
    n_dense = dense_column_count(np.bincount(X.indices, minlength=X.shape[1]),
                                 X.shape[0], dense_share)
    assert (n_dense > 0) == (dense_share > 0)
    assert by_columns.build_columns(dense_share) == copy_bytes(X.nnz, X.shape[1],
                                                               X.shape[0], n_dense)
    assert by_columns.columns.n_dense == n_dense
    rng = np.random.default_rng(0)
    for step in range(40):
        i, j = rng.integers(0, X.shape[0], size=2)
        gathered.swap_rows(i, j)
        by_columns.swap_rows(i, j)
        row = int(rng.integers(0, X.shape[0]))
        expected = gathered.row_dots(row, nthreads)
        np.testing.assert_array_equal(by_columns.row_dots(row, nthreads), expected)
    # most of these rows went through the columns (the others did not pay)
    assert by_columns.columns.n_built >= 20
    # each thread's start in every column, found again for another thread count; so
    # many threads that the table would outgrow the copy search the columns instead
    columns = by_columns.columns
    assert 41 * X.shape[1] * 8 > columns.n_bytes
    for threads, table in ((3, 3), (2, 2), (40, 0), (3, 3)):
        built = columns.n_built
        np.testing.assert_array_equal(by_columns.row_dots(5, threads),
                                      gathered.row_dots(5, 1))
        assert columns.n_built == built + 1 and columns.bound_threads == table
    assert gathered.columns is None


@pytest.mark.parametrize("n_threads", [1, 2])
def test_narrowed_columns_give_the_whole_columns_bits(reviews, n_threads):
    """The gradient's reconstruction narrows the columns to the rows it asks products
    with (`QMatrix.narrow_rows`, `SparseColumns.narrow`): Q entries over exactly that
    range come from a copy of those rows' columns, the same bits as over the whole
    columns; another range, or any range after a swap, reads the whole columns again;
    a short loop (fewer than NARROW_MIN_ROWS rows) or an empty range makes no copy."""
    X, y = reviews
    n = X.shape[0]
    m = n - 600   # the narrowed range is [m, n)
    Q, whole = (QMatrix(Kernel(X, "rbf", 1.0, 3, 0.0, n_threads=n_threads), y, 100.0)
                for _ in range(2))
    for matrix in (Q, whole):
        assert matrix.kernel.rows.build_columns(DENSE_COLUMN_SHARE) > 0
    rng = np.random.default_rng(1)
    for i, j in rng.integers(0, X.shape[0], size=(30, 2)):
        Q.swap(i, j)
        whole.swap(i, j)
    Q.narrow_rows(m, n, 256)
    columns = Q.kernel.rows.columns
    assert columns.narrowed is not None
    assert columns.narrowed.n_dense > 0
    for i in (0, 5, m - 1, m + 300):
        np.testing.assert_array_equal(Q.entries(i, m, n), whole.entries(i, m, n))
    # a range inside the narrowed one (the steps' rows over part of the active set)
    np.testing.assert_array_equal(Q.entries(7, m + 100, n - 50),
                                  whole.entries(7, m + 100, n - 50))
    assert columns.narrowed.n_built >= 4
    np.testing.assert_array_equal(Q.entries(3, 0, m), whole.entries(3, 0, m))
    built = columns.narrowed.n_built
    Q.swap(0, 1)
    whole.swap(0, 1)
    np.testing.assert_array_equal(Q.entries(4, m, n), whole.entries(4, m, n))
    assert columns.narrowed.n_built == built
    Q.narrow_rows(m, n, 255)
    assert columns.narrowed is None
    Q.narrow_rows(m, n, 256)
    Q.narrow_rows(0, 0, 0)
    assert columns.narrowed is None


@pytest.mark.parametrize("sort_threads", [2, 3])
def test_columns_sorted_on_threads_are_the_columns_sorted_on_one(long_reviews,
                                                                 sort_threads):
    """A copy of at least SORT_PARALLEL_MIN values is sorted on its threads, each range
    of rows put after the earlier ranges in every column (`_sort_on_threads`), and the
    dense columns filled a slot a thread: the same columns as one thread's counting
    sort, so the same rows of products, also through the per-thread bounds that assume
    each column's rows ascending; narrowed copies sort on the same threads."""
    X = long_reviews[0]
    assert X.nnz >= 1 << 16
    one, many, gathered = Rows(X), Rows(X), Rows(X)
    assert one.build_columns(DENSE_COLUMN_SHARE) == many.build_columns(DENSE_COLUMN_SHARE,
                                                                       sort_threads)
    assert (one.columns.n_threads, many.columns.n_threads) == (1, sort_threads)
    np.testing.assert_array_equal(many.columns.col_start, one.columns.col_start)
    assert many.columns.n_dense == one.columns.n_dense > 0
    for row in (0, 7, X.shape[0] - 1):
        expected = gathered.row_dots(row, 1)
        for threads in (1, 2, 3):
            np.testing.assert_array_equal(many.row_dots(row, threads), expected)
    assert many.columns.n_built == 9
    Q = QMatrix(Kernel(X, "rbf", 1.0, 3, 0.0, n_threads=2), long_reviews[1], 1.0)
    Q.kernel.rows.build_columns(DENSE_COLUMN_SHARE, sort_threads)
    Q.narrow_rows(0, X.shape[0] - 10, 256)
    assert Q.kernel.rows.columns.narrowed.n_threads == sort_threads


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_q_rows_finished_in_the_columns_regions_are_the_passes_rows(long_reviews, kernel,
                                                                     n_threads):
    """`Kernel.q_row`: where the columns sum a row, each thread turns its part into
    float32 Q entries in the region that summed it (`SmoRowFinish`; RBF and linear).
    The bits are those of the gathers' dot products turned into Q by the separate
    passes: in place (rows in their first order, all asked), read out after swaps, over
    a narrowed copy and over a range inside it, on every thread count (3: parts that
    are not multiples of the exponential's four lanes). Poly rows are not finished
    there, and are the same too."""
    X, y = long_reviews
    n = X.shape[0]
    fused, passes = (QMatrix(Kernel(X, kernel, 0.7, 3, 0.5, n_threads=n_threads), y, 1.0)
                     for _ in range(2))
    assert fused.kernel.rows.build_columns(DENSE_COLUMN_SHARE) > 0
    columns = fused.kernel.rows.columns

    def check(start, end):
        for i in (0, 17, n - 1):
            np.testing.assert_array_equal(fused.entries(i, start, end),
                                          passes.entries(i, start, end))

    check(0, n)
    check(101, n - 3)
    rng = np.random.default_rng(2)
    for i, j in rng.integers(0, n, size=(50, 2)):
        fused.swap(i, j)
        passes.swap(i, j)
    check(0, n)
    fused.narrow_rows(5, n - 2, 256)
    check(5, n - 2)
    check(9, n - 2)
    # every row was summed over the columns (five ranges of three rows)
    assert columns.n_built == 15 and columns.narrowed.n_built == 6


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_rows_added_in_one_region_are_the_rows_added_one_by_one(long_reviews, kernel,
                                                                 n_threads):
    """`QMatrix.add_rows`, the gradient's reconstruction: over the narrowed copy the
    reconstruction makes, every row of a batch is summed, finished and added by each
    thread in one region (`SparseColumns.add_rows`; RBF and linear), rows the cache
    holds are read from it, and the sums are the bits of the rows' entries added one
    by one in the batch's order, after swaps too. Elsewhere (poly, or a range the copy
    does not hold whole) the rows are added one by one."""
    X, y = long_reviews
    n = X.shape[0]
    Q = QMatrix(Kernel(X, kernel, 0.7, 3, 0.5, n_threads=n_threads), y, 100.0)
    assert Q.kernel.rows.build_columns(DENSE_COLUMN_SHARE) > 0
    columns = Q.kernel.rows.columns
    rng = np.random.default_rng(5)
    for i, j in rng.integers(0, n, size=(40, 2)):
        Q.swap(i, j)
    start, end = 1200, n
    rows = rng.choice(start, size=300, replace=False)
    coefs = rng.uniform(-1.0, 1.0, size=300)
    for i in rows[::7]:
        Q.row(int(i))                  # cached whole: read from the cache
    base = rng.standard_normal(end - start)

    def one_by_one(start, end, out):
        for i, c in zip(rows, coefs):
            out += c * Q.entries(int(i), start, end).astype(np.float64)
        return out

    Q.narrow_rows(start, end, len(rows))
    built = columns.narrowed.n_built
    added = base.copy()
    evaluated = Q.kernel.evaluations
    assert Q.added_rows(rows, coefs, start, end, added) == (kernel != "poly")
    # `Kernel.evaluations`: each uncached row's entries once, in one region or one by one
    n_uncached = len(rows) - len(rows[::7])
    assert Q.kernel.evaluations - evaluated == n_uncached * (end - start)
    np.testing.assert_array_equal(added, one_by_one(start, end, base.copy()))
    # the uncached rows were summed once by add_rows, once by entries(); the cached not
    assert columns.narrowed.n_built - built == 2 * (len(rows) - len(rows[::7]))
    # a range inside the copy's: one by one, the same sums
    added = base[3:].copy()
    evaluated = Q.kernel.evaluations
    assert not Q.added_rows(rows, coefs, start + 3, end, added)
    assert Q.kernel.evaluations - evaluated == n_uncached * (end - start - 3)
    np.testing.assert_array_equal(added, one_by_one(start + 3, end, base[3:].copy()))


def test_sparse_rows_of_a_few_hundred_entries_are_shared_among_threads(long_reviews):
    """A Q entry of CSR rows sums about a row's stored values, so `Kernel.row_threads`
    counts it as a sixteenth of a dense entry for each: 1,000 entries of these TF-IDF
    rows go to both threads (their columns split between them: `bound_threads`), where
    the threshold of 2,048 dense entries had left such rows (the G_bar update's tails)
    on one."""
    X, y = long_reviews
    assert X.nnz / X.shape[0] * 1000 / 16 >= 2048 > 1000
    for threads in (1, 2):
        Q = QMatrix(Kernel(X, "rbf", 1.0, 3, 0.0, n_threads=threads), y, 1.0)
        Q.kernel.rows.build_columns(DENSE_COLUMN_SHARE)
        columns = Q.kernel.rows.columns
        Q.entries(3, 0, 1000)
        assert columns.n_built == 1 and columns.bound_threads == (2 if threads == 2 else 0)


def test_steps_between_shrinking_passes_read_the_active_rows_columns(reviews):
    """After each shrinking pass the solver narrows the columns to the active variables
    (`Solver.do_shrinking`): at every later step the copy holds exactly the active
    rows, the steps' rows not in the cache are summed there, and the gradient's
    rebuilds drop it."""
    X, y = reviews
    n = X.shape[0]
    Q = QMatrix(Kernel(X, "rbf", 1.0, 3, 0.0), y, 100.0)
    assert Q.kernel.rows.build_columns(DENSE_COLUMN_SHARE) > 0
    columns = Q.kernel.rows.columns
    seen, built = [], []

    def record(progress):
        narrowed = columns.narrowed
        seen.append((progress["active_size"],
                     None if narrowed is None else len(narrowed.original)))
        if narrowed is not None:
            built.append(narrowed.n_built)

    solution = solve(Q, -np.ones(n), y, np.ones(n), callback=record, callback_every=1)
    narrowed = [(active, rows) for active, rows in seen if rows is not None]
    assert narrowed, "no shrinking pass narrowed the columns"
    assert all(active == rows < n for active, rows in narrowed)
    assert max(built) > 0
    assert all(rows is None for active, rows in seen if active == n)
    assert columns.narrowed is None
    assert solution.n_iter == len(seen)


@pytest.mark.parametrize("n_rows", [100, None])
def test_the_executor_budgets_what_the_columns_take(reviews, n_rows):
    """`Executor._column_bytes`, the budget check before the copy is made, is the bytes
    `Rows.build_columns` then takes: with dense columns from DENSE_COLUMN_MIN_ROWS
    rows, without below."""
    from libsmo.training._execution import Executor
    from libsmo.training._params import KernelParams, SolverParams
    X = reviews[0]
    n_rows = n_rows or X.shape[0]
    rows = np.arange(0, X.shape[0], X.shape[0] // n_rows)[:n_rows]
    executor = Executor(X, KernelParams(kernel="rbf", gamma=1.0), SolverParams())
    copy = Rows(X[rows])
    assert executor._column_bytes(rows) == copy.build_columns(DENSE_COLUMN_SHARE)
    assert (copy.columns.n_dense > 0) == (n_rows >= DENSE_COLUMN_MIN_ROWS)


def test_columns_are_refused_where_there_is_no_csr():
    X, _ = load_dataset("heart_scale", dense=True)
    assert Rows(X).build_columns() == 0
    a9a, _ = load_dataset("a9a", n_rows=300)
    rows = Rows(a9a, bit_rows=True)   # 0/1 rows are counted on bitmaps instead
    assert rows.has_bit_rows and rows.build_columns() == 0


@pytest.mark.parametrize("n_threads", [1, 2])
def test_fit_on_columns_is_the_fit_on_gathers_and_libsvm(reviews, monkeypatch, n_threads):
    X, y = reviews
    models = {}
    for columns in (True, False):
        models[columns] = train_on_paths(X, y, C=1.0, gamma=1.0, n_threads=n_threads,
                                         sparse_columns=columns)
    a, b = models[True], models[False]
    assert a.n_iter == b.n_iter
    np.testing.assert_array_equal(a.support, b.support)
    np.testing.assert_array_equal(a.sv_coef, b.sv_coef)
    assert a.rho == b.rho
    peer = libsvm_train(X, y, C=1.0, gamma=1.0)
    # LIBSVM prints its objective to six decimals
    assert abs(a.objective[0] - peer.objectives[0]) <= 1e-6
    np.testing.assert_array_equal(a.support, libsvm_summary(peer)["support"])


def test_column_dots_are_the_sparse_product(reviews):
    """Prediction's dot products of sparse rows with sparse support vectors, summed over
    the support vectors' columns on the OpenMP threads, are X @ SV.T up to rounding
    (both sum in feature order; scipy's product keeps other intermediate values)."""
    X = reviews[0]
    sv, rows = X[:600], X[600:900]
    columns = columns_of(sv)
    out = np.full((300, 600), np.nan)
    column_dots(rows, columns, out)
    np.testing.assert_allclose(out, (rows @ sv.T).toarray(), rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="do not match"):
        column_dots(rows, columns, np.empty((300, 599)))
    # what prediction builds from a model's support vectors: the same values
    wide = sp.csr_matrix(X[:6000])
    support = SupportRows(wide)
    assert sp.issparse(support.rows)
    block, _ = support.match(rows)
    np.testing.assert_allclose(
        kernel_block(block, support.rows, "linear", 1.0, 3, 0.0,
                     SV_columns=support.sparse_columns()),
        (block @ support.rows.T).toarray(), rtol=1e-12, atol=1e-15)


def test_common_features_are_one_dense_product(reviews):
    """Sparse support vectors keep the features that at least DENSE_FEATURE_SHARE of
    them store as a dense block (`SparseSupportColumns`), multiplied by BLAS on the
    OpenMP threads (`dense_dots`), with the other features' columns added to it
    (`column_dots(add=True)`): X @ SV.T, also for rows narrower than the support
    vectors, whose width cuts the common features in two."""
    X = reviews[0]
    sv, rows = X[:600], X[600:900]
    split = SparseSupportColumns(sv)
    counts = np.bincount(sv.indices, minlength=sv.shape[1])
    np.testing.assert_array_equal(split.common,
                                  np.flatnonzero(counts >= DENSE_FEATURE_SHARE * 600))
    assert 0 < len(split.common) < 200
    np.testing.assert_array_equal(split.common_rows, sv[:, split.common].toarray().T)
    np.testing.assert_allclose(split.dots(rows), (rows @ sv.T).toarray(),
                               rtol=1e-12, atol=1e-15)
    width = int(split.common[len(split.common) // 2])
    narrow = rows[:, :width]
    np.testing.assert_allclose(split.dots(narrow), (narrow @ sv[:, :width].T).toarray(),
                               rtol=1e-12, atol=1e-15)
    out = np.ones((300, 600))
    column_dots(rows, columns_of(sv), out, add=True)
    np.testing.assert_allclose(out, 1.0 + (rows @ sv.T).toarray(), rtol=1e-12)
    # the rows' common features as a dense block (`dense_columns_of`), narrow rows too
    for part in (rows, narrow):
        n_common = int(np.count_nonzero(split.common < part.shape[1]))
        block = np.full((300, n_common), 7.0)
        dense_columns_of(part, split.common_slot, block)
        np.testing.assert_array_equal(block,
                                      part[:, split.common[:n_common]].toarray())
    with pytest.raises(ValueError, match="beyond the block"):
        dense_columns_of(rows, split.common_slot, np.empty((300, 1)))
    with pytest.raises(ValueError, match="do not match"):
        dense_columns_of(rows, split.common_slot[:10], np.empty((300, 1)))
    # the support vectors split in one pass (`split_by_slot`): the common features
    # feature-major, the others row after row, as numpy's masks select them
    by_slot = np.zeros((len(split.common), 600))
    data, indices, row_start, row_nnz = split_by_slot(sv, split.common_slot, by_slot)
    np.testing.assert_array_equal(by_slot, sv[:, split.common].toarray().T)
    rest = split.common_slot[sv.indices] < 0
    ends = np.concatenate([[0], np.cumsum(rest)])[sv.indptr]
    np.testing.assert_array_equal(row_start, ends[:-1])
    np.testing.assert_array_equal(row_nnz, np.diff(ends))
    np.testing.assert_array_equal(data[:ends[-1]], sv.data[rest])
    np.testing.assert_array_equal(indices[:ends[-1]], sv.indices[rest])
    with pytest.raises(ValueError, match="beyond the block"):
        split_by_slot(sv, split.common_slot, np.zeros((1, 600)))
    with pytest.raises(ValueError, match="do not match"):
        split_by_slot(sv, split.common_slot, np.zeros((len(split.common), 599)))


@pytest.mark.parametrize("n_rows", [0, 5, 70])
def test_dense_dots_is_numpys_product(n_rows):
    rng = np.random.default_rng(n_rows)
    A, B = rng.random((n_rows, 6)), rng.random((6, 33))
    out = np.full((n_rows, 33), np.nan)
    dense_dots(A, B, out)
    np.testing.assert_allclose(out, A @ B, rtol=1e-13)
    dense_dots(A[:, :0].copy(), B[:0].copy(), out)
    assert not out.any()
    with pytest.raises(ValueError, match="do not match"):
        dense_dots(A, B, np.empty((n_rows, 32)))


def test_dense_dots_give_the_same_bits_on_any_number_of_threads():
    """The product is cut into the same column ranges, one dgemm call each, whatever
    the threads (which take the ranges as they finish): the same bits on one and two
    threads, and numpy's product to rounding."""
    from threadpoolctl import threadpool_limits
    rng = np.random.default_rng(3)
    A, B = rng.random((117, 39)), rng.random((39, 2600))   # three ranges and a part
    outs = []
    for threads in (1, 2):
        with threadpool_limits(threads, user_api="openmp"):
            out = np.empty((117, 2600))
            dense_dots(A, B, out)
            outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_allclose(outs[0], A @ B, rtol=1e-13)


def test_sparse_prediction_is_libsvm_s(reviews):
    """Decision values of held-out reviews (sparse rows, sparse support vectors) are
    LIBSVM's, and the labels the same."""
    X, y = reviews
    model = libsmo.train(X[:1000], y[:1000], C=1.0, gamma=1.0)
    peer = libsvm_train(X[:1000], y[:1000], C=1.0, gamma=1.0)
    ours = model.decision_function(X[1000:])
    np.testing.assert_allclose(np.ravel(ours), libsvm_decision(peer, X[1000:]),
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(model.predict(X[1000:]),
                                  libsvm_predict(peer, X[1000:]))


def test_csr_indices_outside_the_width_are_refused():
    """Both loops that index support vectors by a row's column indices check them first
    (`arrays.csr_arrays`): a ValueError, not a read outside the arrays."""
    import scipy.sparse

    from libsmo._core.kernel_blocks import sparse_dots_feature_major
    bad = scipy.sparse.csr_matrix((np.array([1.0, 2.0]), np.array([0, 7], dtype=np.int32),
                                   np.array([0, 1, 2])), shape=(2, 5))
    sv = scipy.sparse.csr_matrix(np.eye(3, 5))
    columns = columns_of(sv)
    with pytest.raises(ValueError, match=r"column index outside \[0, 5\)"):
        column_dots(bad, columns, np.empty((2, 3)))
    with pytest.raises(ValueError, match=r"column index outside \[0, 5\)"):
        sparse_dots_feature_major(bad, np.zeros((5, 3)), np.empty((2, 3)))
