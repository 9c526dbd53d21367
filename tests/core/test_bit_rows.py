"""Rows of zeros and ones counted on bitmaps (`RowPaths.bit_rows`, `Rows.bit_values`,
`Kernel`'s count table; prediction's `_prediction.bit_block`): every kernel value is a
function of an exact count, so training takes the same steps to the same solution and
prediction gives the same decision values as the dot-product loops, only faster. The
decision values' agreement with libsvm-official on a9a and w8a is checked in
test_prediction_blocks.py, which now runs through these bitmaps."""
import contextlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import libsmo
from helpers.data import load_dataset
from helpers.training import train_on_paths
from libsmo._blocks import kernel_block as _prediction
from libsmo._blocks.support_rows import SupportRows
from libsmo._core.bitmaps import pack_bits
from libsmo._core.kernel import Kernel
from libsmo._core.kernel_blocks import bit_kernel_block, bit_kernel_products
from libsmo._core.qmatrix import QMatrix
from libsmo._utils import sparse as sp


@pytest.fixture(scope="module")
def a9a_part():
    X, y = load_dataset("a9a", n_rows=2000)
    return X, y


def _fit(X, y, bit_rows, monkeypatch, **params):
    return train_on_paths(X, y, bit_rows=bit_rows, **params)


@pytest.mark.parametrize("params", [
    dict(C=1.0, gamma=0.05),
    dict(C=1.0, gamma=0.05, n_threads=2),
    dict(C=1.0, gamma=0.05, shrinking=False),
    dict(C=1.0, gamma=0.05, dense=True),                  # a private dense copy
    dict(C=1.0, gamma=0.05, dense=True, cache_size=0.5),  # dense rows read in place
    dict(C=1.0, kernel="poly", gamma=0.05, degree=3, coef0=1.0),
    dict(C=1.0, kernel="sigmoid", gamma=0.01, coef0=-0.5),
    dict(C=0.1, kernel="linear"),
    dict(svm_type="nu_svc", nu=0.3, gamma=0.05),
    dict(svm_type="epsilon_svr", C=1.0, gamma=0.05, epsilon=0.2),
    dict(svm_type="one_class", nu=0.1, gamma=0.05),
])
def test_bit_rows_take_the_same_steps(a9a_part, params, monkeypatch):
    """2,000 a9a rows (123 one-hot features): the bitmaps give the step count, the
    coefficients and rho of the dot products, bit for bit, for every kernel and
    formulation."""
    X, y = a9a_part
    params = dict(params)
    if params.pop("dense", False):
        X = X.toarray()
    kernel = Kernel(X, params.get("kernel", "rbf"), 0.05, 3, 0.0)
    assert kernel.rows.has_bit_rows
    plain = _fit(X, y, False, monkeypatch, **params)
    counted = _fit(X, y, True, monkeypatch, **params)
    assert counted.n_iter == plain.n_iter
    np.testing.assert_array_equal(counted.support, plain.support)
    np.testing.assert_array_equal(counted.sv_coef, plain.sv_coef)
    np.testing.assert_array_equal(counted.rho, plain.rho)


def test_multiclass_pairs_take_the_same_steps(monkeypatch):
    """Three classes made from a9a's rows (three one-vs-one pairs, each on a subset of
    rows with its own bitmaps): the same model either way."""
    X, y = load_dataset("a9a", n_rows=1500)
    labels = np.where(y > 0, 2.0, np.where(np.arange(len(y)) % 2, 0.0, 1.0))
    plain = _fit(X, labels, False, monkeypatch, C=1.0, gamma=0.05)
    counted = _fit(X, labels, True, monkeypatch, C=1.0, gamma=0.05)
    np.testing.assert_array_equal(counted.n_iter, plain.n_iter)
    np.testing.assert_array_equal(counted.sv_coef, plain.sv_coef)
    np.testing.assert_array_equal(counted.rho, plain.rho)


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_q_rows_counted_into_float_are_the_dot_products_rows(kernel, n_threads):
    """The solver's Q rows from the bitmaps go from count to float32 in one pass
    (`smo_bit_q_rows`); with the dot products they pass through a row of doubles. The
    same bits, whole and as extended prefixes, on rows long enough to be split over the
    threads (3,000 > the kernel's 2,048 entries), also after swaps."""
    X, y = load_dataset("a9a", n_rows=3000)
    args = (kernel, 0.05, 3, 0.0)
    Qs = [QMatrix(Kernel(X, *args, n_threads=n_threads, bit_rows=bits), y, 100.0)
          for bits in (True, False)]
    assert Qs[0].kernel.rows.has_bit_rows and not Qs[1].kernel.rows.has_bit_rows
    for i in (0, 1, 2999):
        np.testing.assert_array_equal(Qs[0].row(i, 2500), Qs[1].row(i, 2500))
        np.testing.assert_array_equal(Qs[0].row(i), Qs[1].row(i))   # extended
    for Q in Qs:
        Q.swap(5, 2998)
    np.testing.assert_array_equal(Qs[0].row(5), Qs[1].row(5))
    np.testing.assert_array_equal(Qs[0].row(7), Qs[1].row(7))


@pytest.mark.parametrize("n_threads", [1, 2])
def test_word_major_bitmaps_give_the_same_q_rows_and_steps(monkeypatch, n_threads):
    """The solver's Q rows counted on word-major bitmaps (`Rows.bits_t`,
    `smo_bit_q_cols`: eight rows a step with VPOPCNTQ where the processor has it, else
    one by one) are the row-major counts' rows, also after swaps and on two threads; a
    fit takes the same steps to the same coefficients either way."""
    from libsmo._core import rows as rows_module
    X, y = load_dataset("a9a", n_rows=3000)
    Qs, fits = [], []
    for word_major in (True, False):
        monkeypatch.setattr(rows_module, "WORD_MAJOR_BITS", word_major)
        kernel = Kernel(X, "rbf", 0.05, 3, 0.0, n_threads=n_threads)
        assert kernel.rows.bits_by_word == word_major
        Qs.append(QMatrix(kernel, y, 100.0))
        fits.append(libsmo.train(X, y, C=1.0, gamma=0.05, n_threads=n_threads))
    for i in (0, 1, 2999):
        np.testing.assert_array_equal(Qs[0].row(i, 2501), Qs[1].row(i, 2501))
        np.testing.assert_array_equal(Qs[0].row(i), Qs[1].row(i))
    for Q in Qs:
        Q.swap(5, 2998)
        Q.swap(6, 5)
    for i in (5, 6, 2998):
        np.testing.assert_array_equal(Qs[0].row(i), Qs[1].row(i))
    assert fits[0].n_iter == fits[1].n_iter
    np.testing.assert_array_equal(fits[0].sv_coef, fits[1].sv_coef)
    np.testing.assert_array_equal(fits[0].rho, fits[1].rho)


@pytest.mark.parametrize("kernel", ["rbf", "poly", "sigmoid", "linear"])
@pytest.mark.parametrize("n_rows", [1, 5, 37])
def test_kernel_rows_are_the_same_values(kernel, n_rows):
    """Rows of kernel values from the bitmaps equal those from the dot products exactly,
    whatever the row's length modulo 4 (the RBF row loop's tail takes the same
    exponential as the table), also after the solver's swaps."""
    X, _ = load_dataset("a9a", n_rows=n_rows + 3)
    rows = np.arange(3, n_rows + 3)
    args = (kernel, 0.07, 3, 0.5)
    counted = Kernel(X, *args, rows=rows, bit_rows=True)
    plain = Kernel(X, *args, rows=rows, bit_rows=False)
    assert counted.rows.has_bit_rows and not plain.rows.has_bit_rows
    for i in range(n_rows):
        np.testing.assert_array_equal(counted.kernel_row(i), plain.kernel_row(i))
    if n_rows > 1:
        for k in (counted, plain):
            k.rows.swap_rows(0, n_rows - 1)
        np.testing.assert_array_equal(counted.kernel_row(0), plain.kernel_row(0))
        np.testing.assert_array_equal(counted.rows.row_dots(n_rows - 1),
                                      plain.rows.row_dots(n_rows - 1))


def test_which_rows_get_bitmaps():
    """Bitmaps only where every value is 0 or 1 and (CSR) they are no larger than the
    values and indices; never for a precomputed kernel."""
    def has_bits(X, kernel="rbf"):
        return Kernel(X, kernel, 0.5, 3, 0.0).rows.has_bit_rows

    ones = sp.csr_matrix(np.array([[1.0, 0, 1, 0], [0, 1, 1, 1], [1, 1, 0, 0]]))
    assert has_bits(ones)
    assert has_bits(ones.toarray())
    stored_zero = ones.copy()
    stored_zero.data[1] = 0.0          # an explicit zero still counts as 0
    assert has_bits(stored_zero)
    twos = ones.copy()
    twos.data[2] = 2.0
    assert not has_bits(twos)
    assert not has_bits(twos.toarray())
    with_nan = ones.toarray()
    with_nan[1, 0] = np.nan
    assert not has_bits(with_nan)
    # 10,000 features, 3 stored a row: 157 words a row against 36 bytes of CSR
    rng = np.random.default_rng(0)
    wide = sp.csr_matrix((np.ones(60), (np.repeat(np.arange(20), 3),
                                        rng.choice(10000, 60))), shape=(20, 10000))
    assert not has_bits(wide)
    gram = np.eye(3)
    assert not has_bits(gram, kernel="precomputed")


def test_pack_bits_matches_numpy():
    """Bit f % 64 of word f // 64 is feature f, for dense and CSR rows and a wider
    width; None for any value other than 0 and 1."""
    rng = np.random.default_rng(1)
    D = (rng.random((7, 130)) < 0.2).astype(np.float64)
    expected = np.zeros((7, 3), dtype=np.uint64)
    for k, f in zip(*np.nonzero(D)):
        expected[k, f // 64] |= np.uint64(1) << np.uint64(f % 64)
    np.testing.assert_array_equal(pack_bits(D), expected)
    np.testing.assert_array_equal(pack_bits(sp.csr_matrix(D)), expected)
    wider = pack_bits(D, 200)
    assert wider.shape == (7, 4)
    np.testing.assert_array_equal(wider[:, :3], expected)
    D[3, 5] = 0.5
    assert pack_bits(D) is None
    assert pack_bits(sp.csr_matrix(D)) is None
    with pytest.raises(ValueError, match="width"):
        pack_bits(D, 10)


@pytest.mark.parametrize("kernel", ["rbf", "poly", "sigmoid", "linear"])
def test_bit_blocks_equal_kernel_blocks(kernel):
    """K(rows, SV) counted on bitmaps equals the dot products' block exactly (the RBF
    block's exponential is the same), with and without columns outside the support
    vectors."""
    X, _ = load_dataset("a9a", n_rows=700)
    SV = SupportRows(X[:301].tocsr())   # 301: a row tail of one
    rows = X[301:].tocsr()
    counted = _prediction.bit_block(rows, None, SV, kernel, 0.05, 3, 0.5)
    plain = _prediction.kernel_block(rows.toarray(), SV.rows, kernel, 0.05, 3, 0.5,
                                     SV_norms=SV.norms)
    np.testing.assert_array_equal(counted, plain)
    outside = np.arange(399, dtype=np.float64) % 3
    counted = _prediction.bit_block(rows, outside, SV, kernel, 0.05, 3, 0.5)
    if kernel == "rbf":
        norms = _prediction.squared_norms(rows) + outside
        plain = _prediction.kernel_block(rows.toarray(), SV.rows, kernel, 0.05, 3, 0.5,
                                         X_norms=norms, SV_norms=SV.norms)
    np.testing.assert_array_equal(counted, plain)
    assert _prediction.bit_block(rows, outside + 0.5, SV, "rbf", 0.05, 3, 0.5) is None


@pytest.mark.parametrize("kernel", ["rbf", "poly", "sigmoid"])
def test_prediction_counts_give_the_same_decision_values(kernel, monkeypatch):
    """a9a's test rows against a model of 2,000 training rows: the same decision values
    with and without the bitmaps, also for test rows with features the model's support
    vectors never use; a test row holding another value falls back to dot products.
    The kernel values are the same bits (test_bit_blocks_equal_kernel_blocks); their sum
    with the coefficients is the sixteen-sum dot product here and BLAS's product there,
    so the decision values agree to rounding."""
    X, y = load_dataset("a9a", n_rows=2000)
    Xt, _ = load_dataset("a9a.t", n_rows=600, n_features=X.shape[1])
    model = libsmo.train(X, y, C=1.0, kernel=kernel, gamma=0.05, coef0=0.5)
    counted = model.decision_function(Xt)
    assert model._sv_layout.bits is not None
    monkeypatch.setattr(_prediction, "bit_block", lambda *args: None)
    object.__setattr__(model, "_sv_layout", None)
    np.testing.assert_allclose(model.decision_function(Xt), counted, rtol=0, atol=1e-11)
    monkeypatch.undo()

    # columns past every support vector: part of |x - sv|^2, not of x'sv
    extra = sp.csr_matrix((np.ones(3), ([0, 1, 1], [4, 2, 9])), shape=(3, 10))
    rows = sp.hstack([Xt[:3], extra]).tocsr()
    with_bits = model.decision_function(rows)
    monkeypatch.setattr(_prediction, "bit_block", lambda *args: None)
    object.__setattr__(model, "_sv_layout", None)
    np.testing.assert_allclose(model.decision_function(rows), with_bits, rtol=0,
                               atol=1e-11)
    monkeypatch.undo()

    half = Xt[:5].toarray()
    half[0, np.nonzero(half[0])[0][0]] = 0.5
    model_block = _prediction.bit_block(half, None, model._sv_layout, kernel, 0.05, 3,
                                        0.5)
    assert model_block is None
    np.testing.assert_allclose(model.decision_function(half)[1:], counted[1:5],
                               rtol=1e-12, atol=1e-12)


def test_bit_kernel_block_refuses_what_does_not_match():
    """Shapes that do not match and a table too short for some count are ValueErrors,
    not reads outside the arrays (the block and the kernel sums alike)."""
    x = np.zeros((2, 1), dtype=np.uint64)
    sv = np.zeros((3, 1), dtype=np.uint64)
    out = np.empty((2, 3))
    offsets = np.zeros(2, dtype=np.int64)
    bit_kernel_block(x, sv, offsets, np.arange(65.0), False, out)
    np.testing.assert_array_equal(out, 0.0)
    with pytest.raises(ValueError, match="table"):
        bit_kernel_block(x, sv, offsets, np.arange(64.0), False, out)
    with pytest.raises(ValueError, match="table"):
        bit_kernel_block(x, sv, np.array([0, 1], dtype=np.int64), np.arange(65.0), True,
                         out)
    with pytest.raises(ValueError, match="match"):
        bit_kernel_block(x, sv[:2], offsets, np.arange(65.0), False, out)
    sums = np.empty((2, 1))
    with pytest.raises(ValueError, match="match"):
        bit_kernel_products(x, sv, offsets, np.arange(65.0), False, np.ones((1, 2)), sums)
    with pytest.raises(ValueError, match="table"):
        bit_kernel_products(x, sv, offsets, np.arange(64.0), False, np.ones((1, 3)), sums)
    bit_kernel_products(x, sv, offsets, np.arange(65.0) + 2.0, False, np.ones((1, 3)),
                        sums)
    np.testing.assert_array_equal(sums, 6.0)   # three support vectors, each K = 2


@pytest.mark.parametrize("columns", [1, 3])
def test_bit_kernel_products_equal_the_block_times_coefficients(columns):
    """The kernel sums counted without the block equal K @ coef from the counted block
    (a vector and a matrix of coefficients), to rounding."""
    X, _ = load_dataset("a9a", n_rows=900)
    SV = SupportRows(X[:301].tocsr())
    rows = X[301:].tocsr()
    coef = np.random.default_rng(2).standard_normal((301, columns))
    K = _prediction.bit_block(rows, None, SV, "rbf", 0.05, 3, 0.0)
    sums = _prediction.bit_block(rows, None, SV, "rbf", 0.05, 3, 0.0,
                                 np.ascontiguousarray(coef.T))
    np.testing.assert_allclose(sums, K @ coef, rtol=1e-13, atol=1e-12)
    got = []
    _prediction.for_each_kernel_block(lambda block, s: got.append(s), rows, SV, "rbf",
                                      0.05, 3, 0.0, coef=coef[:, 0])
    np.testing.assert_allclose(np.concatenate(got), K @ coef[:, 0], rtol=1e-13,
                               atol=1e-12)


@pytest.mark.parametrize("words", [1, 2, 5, 6])
@pytest.mark.parametrize("n_sv", [3, 8, 21])
@pytest.mark.parametrize("by_xor", [True, False])
def test_word_major_counts_of_the_sums_are_the_block_values(words, n_sv, by_xor):
    """`bit_kernel_products` counts the support vectors word-major (`smo_bit_cols`,
    eight at a time with AVX-512 VPOPCNTQ where the processor has it, the rest one by
    one) or row by row: with the identity as coefficients each sum is one kernel value,
    exactly the value `bit_kernel_block` counts, for AND and XOR, full groups of eight
    and tails, either way and by default."""
    rng = np.random.default_rng(words * 100 + n_sv)
    full = np.iinfo(np.uint64).max
    x_bits = rng.integers(0, full, size=(17, words), dtype=np.uint64, endpoint=True)
    sv_bits = rng.integers(0, full, size=(n_sv, words), dtype=np.uint64, endpoint=True)
    offsets = rng.integers(0, 4, size=17).astype(np.int64)
    table = rng.standard_normal(64 * words + 8)
    block = np.empty((17, n_sv))
    bit_kernel_block(x_bits, sv_bits, offsets, table, by_xor, block)
    for word_major in (None, True, False):
        sums = np.empty((17, n_sv))
        bit_kernel_products(x_bits, sv_bits, offsets, table, by_xor, np.eye(n_sv), sums,
                            word_major=word_major)
        np.testing.assert_array_equal(sums, block)


def test_rows_of_no_columns_count_zero():
    """Bitmaps of no words: every count is 0, so each value is the table's entry at the
    row's offset, in the block and in the kernel sums."""
    x = np.zeros((3, 0), dtype=np.uint64)
    sv = np.zeros((2, 0), dtype=np.uint64)
    offsets = np.array([0, 1, 2], dtype=np.int64)
    table = np.arange(10.0)
    block = np.empty((3, 2))
    bit_kernel_block(x, sv, offsets, table, True, block)
    np.testing.assert_array_equal(block, [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    sums = np.empty((3, 1))
    bit_kernel_products(x, sv, offsets, table, True, np.array([[1.0, 2.0]]), sums)
    np.testing.assert_array_equal(sums[:, 0], [0.0, 3.0, 6.0])


def test_counted_kernel_sums_run_in_long_blocks_and_fall_back_within_the_budget(
        monkeypatch):
    """K @ coef counted on bitmaps builds no kernel block, so it runs COUNTED_BLOCK_ROWS
    rows a block; a block holding a row of another value is visited again in kernel
    blocks within the budget. Every row once, in order, with the block path's sums."""
    X, y = load_dataset("a9a", n_rows=2000)
    Xt = load_dataset("a9a.t", n_rows=600, n_features=X.shape[1])[0].toarray()
    Xt[450, np.nonzero(Xt[450])[0][0]] = 0.5
    model = libsmo.train(X, y, C=1.0, gamma=0.05)
    model.decision_function(Xt[:2])
    SV = model._sv_layout
    coef = np.linspace(-1.0, 1.0, SV.n_sv)
    monkeypatch.setattr(_prediction, "COUNTED_BLOCK_ROWS", 256)
    monkeypatch.setattr(_prediction, "BLOCK_BYTES", 8 * 40 * SV.n_sv)  # 40-row K blocks
    seen, sums = [], np.zeros(len(Xt))

    def visit(block, values):
        seen.append((block.start, block.stop))
        sums[block] += values
    _prediction.for_each_kernel_block(visit, Xt, SV, "rbf", 0.05, 3, 0.0, coef=coef)
    assert seen == [(0, 256)] + [(a, min(a + 40, 512)) for a in range(256, 512, 40)] + [
        (512, 600)]
    K = np.zeros((len(Xt), SV.n_sv))
    _prediction.for_each_kernel_block(lambda block, values: K.__setitem__(block, values),
                                      Xt, SV, "rbf", 0.05, 3, 0.0)
    np.testing.assert_allclose(sums, K @ coef, rtol=1e-12, atol=1e-12)


def test_counted_kernel_sums_hold_blas_only_around_the_blocks_that_may_call_it(
        monkeypatch):
    """Prediction holds BLAS to one thread around its own loops (threadpoolctl; making
    the controller costs milliseconds once a process). Counted sums call no BLAS: the
    hold is taken only for a block that falls back to kernel blocks, and for kernel
    blocks as before."""
    X, y = load_dataset("a9a", n_rows=2000)
    Xt = load_dataset("a9a.t", n_rows=600, n_features=X.shape[1])[0].toarray()
    model = libsmo.train(X, y, C=1.0, gamma=0.05)
    model.decision_function(Xt[:2])
    SV = model._sv_layout
    coef = np.linspace(-1.0, 1.0, SV.n_sv)
    holds = []

    class Controller:
        def limit(self, limits):
            holds.append(limits)
            return contextlib.nullcontext()

    monkeypatch.setattr(_prediction, "_blas_libraries", Controller)
    monkeypatch.setattr(_prediction, "OWN_THREADS_MIN", 0)
    monkeypatch.setattr(_prediction, "COUNTED_BLOCK_ROWS", 256)

    def run(rows, coefficients):
        holds.clear()
        _prediction.for_each_kernel_block(lambda block, values: None, rows, SV, "rbf",
                                          0.05, 3, 0.0, coef=coefficients)
        return list(holds)

    assert run(Xt, coef) == []                  # every row 0/1: counted, no BLAS
    assert run(Xt, None) == [1]                 # the kernel block itself
    mixed = Xt.copy()
    mixed[300, np.nonzero(mixed[300])[0][0]] = 0.5
    assert run(mixed, coef) == [1]              # the one block that falls back


def test_sparse_support_vectors_of_zeros_and_ones_are_densified_only_when_read():
    """Counted sums read the bitmaps only: the support vectors' dense copy is made for
    the first block that falls back to dot products, and gives the same values as a
    layout that made it at once."""
    X, y = load_dataset("a9a", n_rows=2000)
    Xt = load_dataset("a9a.t", n_rows=300, n_features=X.shape[1])[0]
    model = libsmo.train(X, y, C=1.0, gamma=0.05)
    counted = model.decision_function(Xt)
    layout = model._sv_layout
    assert layout.bits is not None and layout._rows is None
    assert layout.n_sv == model.n_sv and layout.shape == (model.n_sv, X.shape[1])
    waiting_bytes = layout.rows_nbytes
    mixed = Xt.toarray()
    mixed[7, np.nonzero(mixed[7])[0][0]] = 0.5
    values = model.decision_function(mixed)
    assert isinstance(layout._rows, np.ndarray) and layout.rows_nbytes == waiting_bytes
    np.testing.assert_array_equal(np.delete(values, 7), np.delete(counted, 7))
    eager = SupportRows(model.support_vectors)
    eager.rows                                  # the dense copy at once
    sums = np.zeros(len(mixed))
    _prediction.for_each_kernel_block(lambda block, v: sums.__setitem__(block, v), mixed,
                                      eager, "rbf", 0.05, 3, 0.0,
                                      coef=model.sv_coef[0])
    np.testing.assert_allclose(values, sums - model.rho[0], rtol=1e-12, atol=1e-12)


def test_threads_predicting_with_one_model_share_its_lazy_support_vectors():
    """Threads that predict rows of other values with one fresh model at once each
    find the dense support vectors (made by one of them, or both)."""
    X, y = load_dataset("a9a", n_rows=2000)
    Xt = load_dataset("a9a.t", n_rows=200, n_features=X.shape[1])[0].toarray()
    Xt[:, 0] = 0.5                              # no row is counted on the bitmaps
    expected = libsmo.train(X, y, C=1.0, gamma=0.05).decision_function(Xt)
    for _ in range(5):
        model = libsmo.train(X, y, C=1.0, gamma=0.05)
        model.decision_function(Xt[:1] > 0)     # the layout, its copy still waiting
        assert model._sv_layout._rows is None
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(model.decision_function, [Xt] * 4))
        for values in results:
            np.testing.assert_array_equal(values, expected)
