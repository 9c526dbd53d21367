"""Q rows computed together on a cache miss (`RowPaths.rows_together`,
`QMatrix.get_rows`, `Rows.dots_many`): the kernel values are the same bits as one row
at a time, so the solver takes the same steps to the same solution; only the time
changes. Also the sixteen-sum dense dot product behind both."""
import numpy as np
import pytest

from helpers.data import load_fashion_mnist
from helpers.training import train_on_paths
from libsmo._core.kernel import Kernel
from libsmo.training import _execution as execution


def _fit(X, y, rows_together, monkeypatch, int_rows=True, **params):
    return train_on_paths(X, y, int_rows=int_rows, rows_together=rows_together,
                          rows_together_min_bytes=0, **params)


@pytest.mark.parametrize("options", [
    dict(),                                   # int16 rows of the pixels / 255
    dict(int_rows=False),                     # the private row-major copy
    dict(int_rows=False, cache_size=9),       # rows read in place (no room for a copy)
    dict(n_threads=2),                        # OpenMP over the rows
    dict(shrinking=False),
])
def test_rows_together_take_the_same_steps(options, monkeypatch):
    """1,200 Fashion-MNIST images, binary (clothes against footwear and bags), C=10:
    8 rows computed together give the alphas, rho and step count of 1 row at a time,
    exactly."""
    X, labels = load_fashion_mnist("train", n_rows=1200)
    y = np.where(labels >= 5, 1.0, -1.0)
    params = dict(C=10.0, gamma=0.0102, **options)
    one = _fit(X, y, 1, monkeypatch, **params)
    many = _fit(X, y, 8, monkeypatch, **params)
    assert many.n_iter == one.n_iter
    np.testing.assert_array_equal(many.support, one.support)
    np.testing.assert_array_equal(many.sv_coef, one.sv_coef)
    np.testing.assert_array_equal(many.rho, one.rho)


def test_rows_together_in_one_vs_one(monkeypatch):
    """Ten classes (45 pairs): the same model either way."""
    X, y = load_fashion_mnist("train", n_rows=1500)
    one = _fit(X, y, 1, monkeypatch, C=10.0, gamma=0.0102)
    many = _fit(X, y, 8, monkeypatch, C=10.0, gamma=0.0102)
    assert many.n_iter == one.n_iter
    np.testing.assert_array_equal(many.sv_coef, one.sv_coef)
    np.testing.assert_array_equal(many.rho, one.rho)


@pytest.mark.parametrize("d", [1, 7, 15, 16, 17, 31, 100, 784])
def test_the_dense_dot_is_exact_on_integers_and_close_elsewhere(d):
    """The sixteen running sums give exact dot products of small integers (every
    partial sum is exact) and agree with numpy to rounding on real values, for every
    remainder of d modulo 16."""
    rng = np.random.default_rng(d)
    X = rng.integers(-50, 50, size=(40, d)).astype(np.float64)
    kernel = Kernel(X, "linear", 1.0, 3, 0.0, copy_dense=d > 64)
    np.testing.assert_array_equal(kernel.kernel_row(3), X @ X[3])
    Z = rng.standard_normal((40, d))
    kernel = Kernel(Z, "linear", 1.0, 3, 0.0, copy_dense=False)
    np.testing.assert_allclose(kernel.kernel_row(5), Z @ Z[5], rtol=1e-12, atol=1e-12)


def test_which_problems_compute_rows_together():
    """Dense rows stored row by row, and int16 rows of small integers (CSR ones too): 8
    rows at a time, whatever the cache's size (`test_rows_ahead_never_evict_a_row`);
    other CSR rows and feature-major rows: one at a time."""
    from scipy import sparse

    from libsmo._core.qmatrix import QMatrix
    X, labels = load_fashion_mnist("train", n_rows=1200)
    sign = np.where(labels >= 5, 1.0, -1.0)
    rbf = ("rbf", 0.0102, 3, 0.0)
    assert QMatrix(Kernel(X, *rbf), sign, 100.0, rows_together=8).rows_together == 8
    assert QMatrix(Kernel(X, *rbf, copy_dense=False), sign, 9.0,
                   rows_together=8).rows_together == 8
    assert QMatrix(Kernel(X, *rbf), sign, 4.0, rows_together=8).rows_together == 8
    assert QMatrix(Kernel(sparse.csr_matrix(X), *rbf), sign, 100.0,
                   rows_together=8).rows_together == 8
    assert QMatrix(Kernel(sparse.csr_matrix(X), *rbf, int_rows=False), sign, 100.0,
                   rows_together=8).rows_together == 1
    narrow = np.ascontiguousarray(X[:, :16])
    assert QMatrix(Kernel(narrow, *rbf), sign, 100.0, rows_together=8).rows_together == 1


def test_the_executor_asks_for_rows_together_on_large_dense_rows():
    """Rows that stay in the processor's caches are computed one at a time (there the
    rows computed ahead cost more than they save); 12 MB or more of dense rows, 8."""
    from scipy import sparse

    from libsmo.training._params import KernelParams, RowPaths, SolverParams
    X, _ = load_fashion_mnist("train", n_rows=2100)   # 2,100 x 784 doubles: 12.6 MB
    kernel = KernelParams(kernel="rbf", gamma=0.0102)
    executor = execution.Executor(X, kernel, SolverParams(), "never")
    assert executor._rows_together(2100) == RowPaths().rows_together == 8
    assert executor._rows_together(1200) == 1
    sparse_rows = execution.Executor(sparse.csr_matrix(X), kernel, SolverParams(), "never")
    assert sparse_rows._rows_together(2100) == 1


@pytest.mark.parametrize("gamma", [0.0102, 0.05], ids=["free-rows", "shrunk-rows"])
@pytest.mark.parametrize("options", [
    dict(),                                   # 8-bit rows (uint8) of the pixels / 255
    dict(int_rows=False),                     # the private row-major copy
    dict(int_rows=False, cache_size=9),       # rows read in place (no room for a copy)
    dict(n_threads=2),
])
def test_reconstruction_in_blocks_takes_the_same_steps(options, gamma, monkeypatch):
    """The gradient's reconstruction with its uncached rows computed 16 at a time
    (`RowPaths.reconstruct_together`, `QMatrix.entries_block`) gives the steps, alphas
    and rho of the rows one by one, exactly: 2,000 Fashion-MNIST images (tops against
    the rest), C=10, whose fit rebuilds the gradient through LIBSVM's loop over the
    free rows (gamma 0.0102) or over the shrunk rows (gamma 0.05)."""
    X, labels = load_fashion_mnist("train", n_rows=2000)
    y = np.where(np.isin(labels, (0, 2, 4, 6)), 1.0, -1.0)
    params = dict(C=10.0, gamma=gamma, **options)
    one = _fit(X, y, 1, monkeypatch, reconstruct_together=False, **params)
    many = _fit(X, y, 1, monkeypatch, reconstruct_together=True, **params)
    assert many.n_iter == one.n_iter
    np.testing.assert_array_equal(many.support, one.support)
    np.testing.assert_array_equal(many.sv_coef, one.sv_coef)
    np.testing.assert_array_equal(many.rho, one.rho)


@pytest.mark.parametrize("int_rows", [True, False])
def test_a_block_of_entries_is_the_rows_one_by_one(int_rows):
    """`QMatrix.entries_block`: rows the cache holds over the range come from it, the
    others are computed together and not cached; every entry the bits `get_entries`
    gives, after swaps too, and `added_rows` adds them in the batch's order."""
    from libsmo._core.qmatrix import QMatrix
    X, labels = load_fashion_mnist("train", n_rows=600)
    sign = np.where(labels >= 5, 1.0, -1.0)
    Q = QMatrix(Kernel(X, "rbf", 0.0102, 3, 0.0, int_rows=int_rows), sign, 100.0)
    assert Q.entries_together == 16
    rng = np.random.default_rng(3)
    for i, j in rng.integers(0, 600, size=(30, 2)):
        Q.swap(int(i), int(j))
    rows = [5, 17, 300, 2, 599, 41, 42, 43, 100]
    Q.row(17)            # cached whole
    Q.row(300, 250)      # cached over a prefix only
    for start, end in [(0, 600), (250, 600), (0, 250), (100, 101)]:
        block = Q.entries_of_rows(rows, start, end)
        for b, i in enumerate(rows):
            np.testing.assert_array_equal(block[b], Q.entries(i, start, end))
    assert (Q.cached_length(5), Q.cached_length(17), Q.cached_length(300)) == (0, 600, 250)
    coefs = rng.uniform(-1, 1, size=len(rows))
    added = np.zeros(350)
    Q.added_rows(rows, coefs, 250, 600, added)
    expected = np.zeros(350)
    for i, c in zip(rows, coefs):
        expected += c * Q.entries(i, 250, 600).astype(np.float64)
    np.testing.assert_array_equal(added, expected)
    assert QMatrix(Kernel(X, "rbf", 0.0102, 3, 0.0), sign, 100.0,
                   reconstruct_together=False).entries_together == 1


def test_rows_ahead_never_evict_a_row():
    """`QMatrix.get_rows`: the rows computed ahead go into the cache's free room only
    (`rows_ahead`: up to 8, as many rows as it holds, one when it is full), so a miss
    never pushes out a cached row; the rows are the bits of one row at a time."""
    from libsmo._core.qmatrix import QMatrix
    X, labels = load_fashion_mnist("train", n_rows=1200)
    sign = np.where(labels >= 5, 1.0, -1.0)
    rbf = ("rbf", 0.0102, 3, 0.0)
    whole = QMatrix(Kernel(X, *rbf), sign, 100.0)
    Q = QMatrix(Kernel(X, *rbf), sign, 4.0, rows_together=8)
    assert Q.rows_ahead_of(1200) == 8
    i = 100
    while Q.row_cache.free_entries_now >= 4 * 1200:   # leave room for three rows
        Q.row(i)
        i += 1
    assert Q.rows_ahead_of(1200) == 3 and Q.rows_ahead_of(600) in (6, 7)
    held = [t for t in range(1200) if Q.cached_length(t)]
    evicted = Q.row_cache.n_evicted
    np.testing.assert_array_equal(Q.rows_with([0, 1, 2, 3, 4], 1200), whole.row(0))
    assert Q.row_cache.n_evicted == evicted           # nothing pushed out
    assert [t for t in held if not Q.cached_length(t)] == []
    assert [Q.cached_length(t) for t in range(5)] == [1200, 1200, 1200, 0, 0]
    for t in (1, 2):
        np.testing.assert_array_equal(Q.row(t), whole.row(t))
    assert Q.rows_ahead_of(1200) == 1                 # full: one row a miss
    np.testing.assert_array_equal(Q.rows_with([3, 4], 1200), whole.row(3))
    assert Q.cached_length(4) == 0
