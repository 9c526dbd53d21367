"""Rows of small integers over one divisor summed in int16 (`RowPaths.int_rows`,
`int_rows.small_integer_rows`, `Rows.dots` through int_dots.h): 8-bit images as
pixel / 255 (Fashion-MNIST) give each dot product as an exact integer sum divided once,
the double loops' values up to their rounding, so training reaches the same optimum as
the double loops and as libsvm-official."""
import numpy as np
import pytest

import libsmo
from helpers.data import load_fashion_mnist
from helpers.peers import libsvm_decision, libsvm_summary, libsvm_train
from helpers.training import train_on_paths
from libsmo._blocks import kernel_block as _prediction
from libsmo._core.int_rows import (
    IntRows,
    int_dots_block,
    small_integer_data,
    small_integer_rows,
    take_small_integer_rows,
)
from libsmo._core.kernel import Kernel
from libsmo._core.rows import Rows
from libsmo._utils import sparse as sp
from libsmo.training import _execution as execution


def _pixels(n=60, d=100, seed=0):
    """Random 8-bit images with half their pixels 0: (pixels, pixels / 255.0)."""
    rng = np.random.default_rng(seed)
    q = rng.integers(0, 256, size=(n, d))
    q[rng.random(q.shape) < 0.5] = 0
    return q, q / 255.0


def test_pixels_over_255_become_the_pixels():
    q, X = _pixels()
    rows = np.arange(59, -1, -2, dtype=np.int32)
    ints, divisor, norms = small_integer_rows(X, rows)
    assert divisor == 255.0 and ints.dtype == np.int16
    np.testing.assert_array_equal(ints, q[rows])
    np.testing.assert_array_equal(norms, (q[rows] ** 2).sum(axis=1) / 65025.0)
    ints, divisor, _ = small_integer_rows(q.astype(np.float64) - 128, rows)
    assert divisor == 1.0
    np.testing.assert_array_equal(ints, q[rows] - 128)
    ints, divisor, _ = small_integer_rows(sp.csr_matrix(X), rows)
    np.testing.assert_array_equal(ints, q[rows])


def test_rows_as_bytes_are_the_same_integers():
    """`as_bytes=True`: 8-bit values come as uint8, converted a row at a time, the same
    integers, divisor and norms as int16; integers outside [0, 255] come as int16, and
    values over no divisor as None. `max_bytes` bounds the result (one byte a value as
    uint8, two as int16), and a `Kernel` given its bound keeps the bytes or nothing."""
    q, X = _pixels()
    rows = np.arange(59, -1, -2, dtype=np.int32)
    wide = small_integer_rows(X, rows)
    narrow = small_integer_rows(X, rows, as_bytes=True)
    assert narrow[0].dtype == np.uint8 and narrow[1] == wide[1] == 255.0
    np.testing.assert_array_equal(narrow[0], wide[0])
    np.testing.assert_array_equal(narrow[2], wide[2])
    centred = small_integer_rows(q.astype(np.float64) - 128, rows, as_bytes=True)
    assert centred[0].dtype == np.int16 and centred[1] == 1.0
    np.testing.assert_array_equal(centred[0], q[rows] - 128)
    X_off = X.copy()
    X_off[5, 4] = 0.3
    assert small_integer_rows(X_off, rows, as_bytes=True) is None
    size = len(rows) * X.shape[1]
    assert small_integer_rows(X, rows, as_bytes=True, max_bytes=size) is not None
    assert small_integer_rows(X, rows, as_bytes=True, max_bytes=size - 1) is None
    assert small_integer_rows(X, rows, max_bytes=2 * size - 1) is None
    assert small_integer_rows(q.astype(np.float64) - 128, rows, as_bytes=True,
                              max_bytes=2 * size - 1) is None
    n, d = X.shape
    kept = Kernel(X, "rbf", 0.01, 3, 0.0, int_rows_max_bytes=n * d)
    assert kept.rows.has_int_rows and kept.rows.int_row_bytes == 1
    assert not Kernel(X, "rbf", 0.01, 3, 0.0, int_rows_max_bytes=n * d - 1).rows.has_int_rows


@pytest.mark.parametrize("change", ["fraction", "one_ulp", "too_large", "int32_sum",
                                    "nan", "sparse_csr"])
def test_other_values_keep_the_double_loops(change):
    """A value that is no integer over 1 or 255 (one ulp off is enough), an integer
    beyond int16, rows whose dot products could leave int32, NaN, or CSR rows whose
    int16 copy would take more memory than their values and indices: no int rows."""
    q, X = _pixels()
    X = X.copy()
    if change == "fraction":
        X[3, 7] = 0.3
    elif change == "one_ulp":
        X[5, 9] = np.nextafter(X[5, 9], 2.0)
    elif change == "too_large":
        X = q.astype(np.float64)
        X[0, 0] = 40000.0
    elif change == "int32_sum":
        X = q.astype(np.float64)
        X[0, 0] = 4700.0          # 100 features * 4700^2 > 2^31
    elif change == "nan":
        X[1, 1] = np.nan
    else:
        X = sp.csr_matrix(np.where(np.arange(100) < 5, X, 0.0))   # 5 of 100 stored
    rows = np.arange(X.shape[0], dtype=np.int32)
    assert small_integer_rows(X, rows) is None
    assert not Rows(X, int_rows=True).has_int_rows


def test_rows_and_columns_outside_x_are_refused():
    """Rows outside X, or CSR column indices outside its width, raise rather than
    write outside the int16 rows."""
    _, X = _pixels(n=10, d=80)
    with pytest.raises(IndexError, match=r"row 10 is outside \[0, 10\)"):
        small_integer_rows(X, np.array([0, 10], dtype=np.int32))
    bad = sp.csr_matrix(X)
    bad.indices[3] = 80
    with pytest.raises(ValueError, match=r"column index outside \[0, 80\)"):
        small_integer_rows(bad, np.arange(10, dtype=np.int32))


@pytest.mark.parametrize("layout", ["copy", "in_place", "csr"])
@pytest.mark.parametrize("width", ["uint8", "int16"])
def test_dot_products_are_the_exact_integer_sums(layout, width):
    """Every row of dot products is sum(q_i q_j) / D^2 exactly, within the double
    loops' rounding of them, whatever the storage, after swaps too; the squared norms
    likewise. Pixels over 255 are kept as uint8; integers outside [0, 255] (here
    pixels - 128 over 1) as int16."""
    q, X = _pixels(n=70, d=130, seed=1)
    divisor = 255.0
    if width == "int16":
        q, X, divisor = q - 128, q - 128.0, 1.0
    data = sp.csr_matrix(X) if layout == "csr" else X
    rows = np.arange(69, 4, -1, dtype=np.int32)
    ints = Rows(data, rows, copy_dense=layout == "copy", int_rows=True)
    plain = Rows(data, rows, copy_dense=layout == "copy")
    assert ints.has_int_rows and ints.int_divisor == divisor
    assert ints.int_row_bytes == (1 if width == "uint8" else 2)
    assert not plain.has_int_rows and plain.int_row_bytes == 0
    ints.swap_rows(0, 7)
    plain.swap_rows(0, 7)
    order = np.asarray(ints.index)
    for i in (0, 7, 30, len(rows) - 1):
        exact = (q[order] @ q[order[i]]) / divisor ** 2
        np.testing.assert_array_equal(ints.row_dots(i), exact)
        np.testing.assert_allclose(ints.row_dots(i), plain.row_dots(i), rtol=1e-14,
                                   atol=0.0)
    np.testing.assert_array_equal(ints.sq_norm, (q[order] ** 2).sum(axis=1) / divisor ** 2)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly", "sigmoid"])
def test_rows_computed_together_give_the_same_model(kernel, monkeypatch):
    """Q rows computed 1, 3, 5 or 8 at a time on int16 rows (four sources a pass and
    the sources left over, `Rows.dots_many`) give the same model bit for bit, on two
    threads too; K(x, x) of RBF is exactly 1."""
    X, labels = load_fashion_mnist("train", n_rows=800)
    y = np.where(labels >= 5, 1.0, -1.0)
    params = dict(kernel=kernel, C=1.0, gamma=0.002, coef0=0.1)
    k = Kernel(X, kernel, 0.002, 3, 0.1)
    assert k.rows.has_int_rows
    if kernel == "rbf":
        assert all(k.kernel_row(i)[i] == 1.0 for i in range(0, 800, 37))
    models = []
    for together, threads in ((1, 1), (3, 1), (5, 2), (8, 1)):
        models.append(train_on_paths(X, y, n_threads=threads, rows_together=together,
                                     rows_together_min_bytes=0, **params))
    for m in models[1:]:
        assert m.n_iter == models[0].n_iter
        np.testing.assert_array_equal(m.sv_coef, models[0].sv_coef)
        np.testing.assert_array_equal(m.rho, models[0].rho)


@pytest.fixture(scope="module")
def fashion_two_classes():
    """The Fashion-MNIST rows of classes 0 (T-shirt) and 6 (shirt) among the first
    3,000 (about 600): a hard pair."""
    X, labels = load_fashion_mnist("train", n_rows=3000)
    keep = np.flatnonzero((labels == 0) | (labels == 6))[:1500]
    return np.ascontiguousarray(X[keep]), np.where(labels[keep] == 0, 1.0, -1.0)


def test_fashion_mnist_fit_equals_the_double_loops_and_libsvm(fashion_two_classes,
                                                              monkeypatch):
    """Fashion-MNIST pixels / 255 train on int16 rows: the objective of the double
    loops and of libsvm-official (3.37) to 1e-9 and 1e-6, the same support vectors as
    both and the same steps as the double loops."""
    X, y = fashion_two_classes
    params = dict(C=10.0, gamma=float(1.0 / (784 * X.var())))
    assert Kernel(X, "rbf", params["gamma"], 3, 0.0).rows.has_int_rows
    counted = libsmo.train(X, y, **params)
    plain = train_on_paths(X, y, int_rows=False, **params)
    np.testing.assert_allclose(counted.objective, plain.objective, rtol=1e-9)
    np.testing.assert_array_equal(counted.support, plain.support)
    assert abs(counted.n_iter[0] - plain.n_iter[0]) <= 0.01 * plain.n_iter[0]
    peer = libsvm_train(X, y, C=params["C"], gamma=params["gamma"])
    np.testing.assert_allclose(counted.objective[0], peer.objectives[0], rtol=1e-6)
    np.testing.assert_array_equal(np.sort(counted.support),
                                  np.sort(libsvm_summary(peer)["support"]))


def test_prediction_sums_the_pixels_as_training_does(fashion_two_classes, monkeypatch):
    """Decision values on 600 Fashion-MNIST test images, ten classes and two: through
    the int16 blocks (`_prediction.int_dots`) within 1e-12 of the BLAS products and
    within 1e-9 of libsvm-official's, the same predicted labels as both."""
    X, y = fashion_two_classes
    Xt, _ = load_fashion_mnist("t10k", n_rows=600)
    gamma = float(1.0 / (784 * X.var()))
    binary = libsmo.train(X, y, C=10.0, gamma=gamma)
    X10, y10 = load_fashion_mnist("train", n_rows=1000)
    ten = libsmo.train(X10, y10, C=10.0, gamma=gamma)
    summed = [m.decision_function(Xt) for m in (binary, ten)]
    labels = [m.predict(Xt) for m in (binary, ten)]
    asked = []
    monkeypatch.setattr(_prediction, "int_dots",
                        lambda X, SV: asked.append(SV.ints is not None))
    for m, dec, lab in zip((binary, ten), summed, labels):
        np.testing.assert_allclose(dec, m.decision_function(Xt), rtol=0, atol=1e-12)
        np.testing.assert_array_equal(lab, m.predict(Xt))
    assert asked and all(asked)
    peer = libsvm_train(X, y, C=10.0, gamma=gamma)
    np.testing.assert_allclose(summed[0], libsvm_decision(peer, Xt), rtol=0, atol=1e-9)


def test_rows_taken_from_the_whole_data_are_the_rows_converted_alone():
    """small_integer_data converts every row once, as bytes; the rows a pair takes from
    it (`take_small_integer_rows`) are the same values as those rows converted alone,
    even where alone they would get another divisor (integers over 1, not 255), and
    their byte rows give the same dot products as int16 rows."""
    q, X = _pixels(n=50, d=100)
    X[7] = q[7] > 0   # a row of integers: over divisor 1 on its own, 255 with the rest
    data = small_integer_data(X)
    assert data[0].dtype == np.uint8 and data[1] == 255.0
    rows = np.array([7, 3, 3, 49, 0], dtype=np.int32)
    taken, divisor, norms = take_small_integer_rows(data, rows)
    for k, r in enumerate(rows):
        np.testing.assert_array_equal(taken[k] / divisor, X[r])
    alone = small_integer_rows(X, rows[:1])
    assert alone[1] == 1.0
    np.testing.assert_array_equal(norms[:1], alone[2])   # |x|^2 rounded once either way
    np.testing.assert_array_equal(norms, small_integer_rows(X, rows)[2])
    as_bytes, as_int16 = IntRows(taken, divisor, 4), IntRows(taken.astype(np.int16),
                                                             divisor, 4)
    assert as_bytes.row_bytes == as_int16.row_bytes == 1
    # pixels minus 128: no byte form, so every pair converts its own rows
    assert small_integer_data(X - 128.0 / 255.0) is None
    assert small_integer_data(X + 0.1) is None


def test_pairs_take_their_rows_from_one_conversion(monkeypatch):
    """A ten-class fit converts the rows to small integers once for its 45 pairs
    (`Executor._share_int_rows`, the bytes taken from the cache), on one thread and on
    two, and trains the same model bit for bit as pairs that each convert their own
    rows."""
    X, y = load_fashion_mnist("train", n_rows=1000)
    import libsmo._core.rows as rows_module
    made, converted = [], []
    real_data, real_rows = execution.small_integer_data, rows_module.small_integer_rows
    monkeypatch.setattr(execution, "small_integer_data",
                        lambda X: made.append(X.shape) or real_data(X))
    monkeypatch.setattr(rows_module, "small_integer_rows",
                        lambda X, rows, **kw: converted.append(len(rows))
                        or real_rows(X, rows, **kw))
    shared = [libsmo.train(X, y, C=10.0, gamma=0.0125, n_threads=t) for t in (1, 2)]
    assert made == [X.shape, X.shape] and converted == []
    monkeypatch.setattr(execution.Executor, "_share_int_rows", lambda self, n: None)
    alone = libsmo.train(X, y, C=10.0, gamma=0.0125)
    assert len(converted) == 45
    for m in shared:
        assert m.n_iter == alone.n_iter
        np.testing.assert_array_equal(m.sv_coef, alone.sv_coef)
        np.testing.assert_array_equal(m.rho, alone.rho)
    # a binary fit has one problem: nothing to share; nor does a fit whose bytes
    # (0.78 MB) would take more than a quarter of its cache
    made.clear()
    libsmo.train(X[:300], np.where(y[:300] >= 5, 1, -1), C=10.0, gamma=0.0125)
    libsmo.train(X, y, C=10.0, gamma=0.0125, cache_size=3)
    assert made == []


def test_int_dots_block_checks_its_shapes():
    q, X = _pixels(n=20, d=100)
    ints, divisor, _ = small_integer_rows(X, np.arange(20, dtype=np.int32))
    out = np.empty((20, 7))
    int_dots_block(ints, ints[:7], divisor, out, 2)
    np.testing.assert_array_equal(out, (q @ q[:7].T) / 65025.0)
    with pytest.raises(ValueError, match="columns"):
        int_dots_block(ints, np.ascontiguousarray(ints[:7, :50]), divisor, out)
    with pytest.raises(ValueError, match="shape"):
        int_dots_block(ints, ints[:6], divisor, out)


@pytest.mark.parametrize("source", ["own", "shared"])
@pytest.mark.parametrize("threads", [1, 2])
def test_few_features_of_small_integers_are_floats_summed_exactly(source, threads):
    """Rows of at most 64 features whose values are integers in [0, 255] (digits' 0-16;
    here the extreme, 64 features of values up to 255) are copied feature-major as
    floats (FEATURE_MAJOR_INTS): every row of dot products is the exact integer sum, the
    doubles' value bit for bit, after swaps too, from the rows converted alone or taken
    from the fit's conversion of all of X; half the bytes of the doubles' copy."""
    rng = np.random.default_rng(3)
    q = rng.integers(0, 256, size=(1100, 64))
    q[0] = 255   # the largest sum the floats must hold exactly: 64 * 255^2 < 2^24
    X = q.astype(np.float64)
    rows = np.arange(1099, 0, -3, dtype=np.int32)
    int_source = small_integer_data(X) if source == "shared" else None
    floats = Rows(X, rows, copy_dense=True, int_rows=True, int_source=int_source)
    doubles = Rows(X, rows, copy_dense=True)
    assert floats.layout_name == "feature_major_ints" and not floats.has_int_rows
    assert doubles.layout_name == "feature_major"
    assert floats.copy_bytes_per_row * 2 == doubles.copy_bytes_per_row == 8 * 64
    for i, j in ((0, 9), (5, 200), (366, 1)):
        floats.swap_rows(i, j)
        doubles.swap_rows(i, j)
    order = np.asarray(floats.index)
    np.testing.assert_array_equal(order, np.asarray(doubles.index))
    np.testing.assert_array_equal(floats.sq_norm, doubles.sq_norm)
    for i in (0, 9, 200, len(rows) - 1):
        exact = (q[order] @ q[order[i]]).astype(np.float64)
        np.testing.assert_array_equal(floats.row_dots(i, threads), exact)
        np.testing.assert_array_equal(floats.row_dots(i, threads),
                                      doubles.row_dots(i, threads))


@pytest.mark.parametrize("values", ["fraction", "over_255", "negative", "over_divisor",
                                    "65_features"])
def test_other_few_feature_rows_keep_the_doubles(values):
    """Values that are not integers in [0, 255] over divisor 1 keep the feature-major
    doubles: pixels over 255 in particular, whose double sums are rounded and stay so.
    More than 64 features take the int16 rows over the doubles read in place."""
    rng = np.random.default_rng(4)
    q = rng.integers(0, 17, size=(40, 65 if values == "65_features" else 20))
    X = q.astype(np.float64)
    if values == "fraction":
        X[3, 2] += 0.5
    elif values == "over_255":
        X[3, 2] = 256.0
    elif values == "negative":
        X[3, 2] = -1.0
    elif values == "over_divisor":
        X /= 255.0
    layout = Rows(X, copy_dense=True, int_rows=True).layout_name
    assert layout == ("shared_dense" if values == "65_features" else "feature_major")


@pytest.mark.parametrize("quads", [None, False])
def test_digits_train_the_same_model_on_floats_as_on_doubles(quads, monkeypatch):
    """Ten classes of integers 0-16 in 64 features (scikit-learn's digits, made here
    of the same kind): the pairs' kernels on byte groups (where the processor has
    VNNI) or float rows, taken from the fit's one conversion, give the model of the
    doubles bit for bit, as scikit-learn's SVC gives it."""
    import libsmo._core.rows as rows_module
    monkeypatch.setattr(rows_module, "QUAD_DOTS", quads)
    sk_svm = pytest.importorskip("sklearn.svm")
    rng = np.random.default_rng(6)
    centres = rng.integers(0, 17, size=(10, 64))
    y = np.repeat(np.arange(10), 40)
    X = np.clip(centres[y] + rng.integers(-4, 5, size=(400, 64)), 0, 16).astype(float)
    gamma = 1.0 / (64 * X.var())
    layouts = []
    real_share = execution.Executor._share_int_rows

    def share(self, n_items):
        real_share(self, n_items)
        layouts.append(self.int_source[0] and self.int_source[0][1])

    monkeypatch.setattr(execution.Executor, "_share_int_rows", share)
    floats = train_on_paths(X, y, C=1.0, gamma=gamma)
    assert layouts == [1.0]   # the pairs took their float rows from integers over 1
    doubles = train_on_paths(X, y, C=1.0, gamma=gamma, int_rows=False)
    assert layouts == [1.0, None] and floats.n_iter == doubles.n_iter
    np.testing.assert_array_equal(floats.sv_coef, doubles.sv_coef)
    np.testing.assert_array_equal(floats.rho, doubles.rho)
    theirs = sk_svm.SVC(C=1.0, gamma=gamma).fit(X, y)
    ours = libsmo.SVC(C=1.0, gamma=gamma).fit(X, y)
    np.testing.assert_array_equal(ours.support_, theirs.support_)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, rtol=0, atol=1e-12)


@pytest.mark.parametrize("n_rows", [1, 15, 16, 17, 64, 100, 367])
@pytest.mark.parametrize("n_features", [1, 3, 4, 13, 64])
def test_integers_up_to_127_in_groups_of_four_bytes(n_rows, n_features, monkeypatch):
    """Few features of integers in [0, 127] (digits' 0-16, letter's 0-15) where the
    processor has AVX-512 VNNI: bytes in groups of four features (FEATURE_QUADS), a
    quarter of the floats; every row of dot products the exact integer sum, the
    doubles' bits, on one and two threads, after swaps, the last rows of a block under
    masks. Elsewhere (or with `rows.QUAD_DOTS = False`) the floats, the same values."""
    import libsmo._core.rows as rows_module
    rng = np.random.default_rng(n_rows * 100 + n_features)
    q = rng.integers(0, 128, size=(n_rows + 5, n_features))
    q[-1] = 127
    X = q.astype(np.float64)
    rows = np.arange(n_rows + 4, 4, -1, dtype=np.int32)
    doubles = Rows(X, rows, copy_dense=True)
    layouts = {}
    for quads in (None, False):
        monkeypatch.setattr(rows_module, "QUAD_DOTS", quads)
        layouts[quads] = Rows(X, rows, copy_dense=True, int_rows=True)
    assert layouts[False].layout_name == "feature_major_ints"
    assert layouts[None].layout_name in ("feature_quads", "feature_major_ints")
    if layouts[None].layout_name == "feature_quads":
        assert layouts[None].copy_bytes_per_row == 4 * ((n_features + 3) // 4)
    for r in (*layouts.values(), doubles):
        r.swap_rows(0, n_rows - 1)
    order = np.asarray(doubles.index)
    for r in layouts.values():
        np.testing.assert_array_equal(np.asarray(r.index), order)
        np.testing.assert_array_equal(r.sq_norm, doubles.sq_norm)
        for i in {0, n_rows // 2, n_rows - 1}:
            exact = (q[order] @ q[order[i]]).astype(np.float64)
            for threads in (1, 2):
                np.testing.assert_array_equal(r.row_dots(i, threads), exact)


def test_values_above_127_keep_the_floats():
    """A value above 127 (vpdpbusd multiplies signed bytes) sends the rows to the
    floats, the same exact sums."""
    q = np.random.default_rng(8).integers(0, 100, size=(30, 10))
    q[17, 3] = 128
    X = q.astype(np.float64)
    rows = Rows(X, copy_dense=True, int_rows=True)
    assert rows.layout_name == "feature_major_ints"
    np.testing.assert_array_equal(rows.row_dots(17), (q @ q[17]).astype(np.float64))
