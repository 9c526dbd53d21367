"""Rows given as uint8 (8-bit pixels stored once, a byte a value: `Rows`' BYTES layout):
the kernel reads them as bytes, in place through its index or from a private copy of
its rows, and every kernel value, solver step and linear-solver product is the one the
same numbers give as doubles."""
import numpy as np
import pytest

import libsmo
from helpers.data import load_dataset, load_fashion_mnist
from libsmo._core.int_rows import IntRows
from libsmo._core.kernel import Kernel
from libsmo._core.rows import MAX_BYTE_FEATURES, Rows
from libsmo._utils.validation import byte_variance, check_data


def _pixels(n=300, d=200, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.integers(0, 256, size=(n, d), dtype=np.uint8)
    q[rng.random(q.shape) < 0.4] = 0
    return q


@pytest.mark.parametrize("copy", [False, True])
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly", "sigmoid"])
def test_kernel_rows_of_bytes_are_those_of_doubles(copy, kernel):
    q = _pixels()
    rows = np.random.default_rng(1).permutation(300)[:150]
    gamma = 1e-6
    of_bytes = Kernel(q, kernel, gamma, 2, 0.5, rows=rows, copy_dense=copy)
    of_doubles = Kernel(q.astype(np.float64), kernel, gamma, 2, 0.5, rows=rows,
                        copy_dense=copy, int_rows=False)
    assert of_bytes.rows.layout_name == "bytes"
    # a copy takes a byte a value from the cache; in place, nothing
    assert of_bytes.rows.int_row_bytes == (1 if copy else 0)
    for i in (0, 17, 149):
        np.testing.assert_array_equal(of_bytes.kernel_row(i), of_doubles.kernel_row(i))
    # after the solver's swaps, the rows follow
    for kernel_rows in (of_bytes.rows, of_doubles.rows):
        kernel_rows.swap_rows(3, 120)
        kernel_rows.swap_rows(0, 7)
    for i in (0, 3, 7, 120):
        np.testing.assert_array_equal(of_bytes.rows.row_dots(i), of_doubles.rows.row_dots(i))


def test_rows_in_place_are_never_written_and_may_be_read_only():
    q = _pixels()
    q.setflags(write=False)
    before = q.copy()
    kernel = Kernel(q, "rbf", 1e-6, 3, 0.0, rows=np.arange(299, -1, -1), copy_dense=False)
    kernel.rows.swap_rows(0, 5)
    kernel.kernel_row(0)
    np.testing.assert_array_equal(q, before)


def test_bytes_that_cannot_be_summed_in_int32_are_refused():
    wide = np.zeros((2, MAX_BYTE_FEATURES + 1), dtype=np.uint8)
    with pytest.raises(ValueError, match="features"):
        Rows(wide)
    with pytest.raises(ValueError, match="C-contiguous"):
        Rows(np.zeros((4, 6), dtype=np.uint8)[:, ::2])
    with pytest.raises(ValueError, match="uint8"):
        IntRows(np.zeros((3, 4), dtype=np.int16), 1.0, 4, index=np.arange(3, dtype=np.int32))
    # check_data keeps bytes only where the core can read them
    assert check_data(wide, keep_bytes=True).dtype == np.float64
    assert check_data(_pixels(), keep_bytes=True).dtype == np.uint8
    assert check_data(_pixels()).dtype == np.float64


def test_training_on_bytes_takes_the_steps_of_doubles():
    """Fashion-MNIST's pixels as uint8 and as the same integers in float64: the same
    steps, objective and support vectors (every dot product is an exact integer both
    ways), for C-SVC, one-class and epsilon-SVR, the kernel and the linear solvers."""
    X, y = load_fashion_mnist(n_rows=1500)
    q = np.rint(X * 255).astype(np.uint8)
    labels = np.isin(y, (5, 7, 9)).astype(int)
    doubles = q.astype(np.float64)
    gamma = 1.0 / (784 * doubles.var())
    for options in (dict(C=10.0), dict(svm_type="one_class", nu=0.2),
                    dict(svm_type="epsilon_svr", C=1.0, epsilon=0.2),
                    dict(kernel="linear", C=1e-4, linear_solver="primal"),
                    dict(kernel="linear", C=1e-4, linear_solver="kernel")):
        target = y.astype(float) if options.get("svm_type") == "epsilon_svr" else labels
        a = libsmo.train(q, target, gamma=gamma, **options)
        b = libsmo.train(doubles, target, gamma=gamma, **options)
        assert a.n_iter == b.n_iter, options
        assert a.objective == b.objective, options
        np.testing.assert_array_equal(a.support, b.support)
        np.testing.assert_array_equal(a.sv_coef, b.sv_coef)
        assert a.support_vectors.dtype == np.float64
        np.testing.assert_array_equal(a.support_vectors, b.support_vectors)


def test_probability_and_pairs_on_bytes():
    X, y = load_fashion_mnist(n_rows=900)
    q = np.rint(X * 255).astype(np.uint8)
    gamma = 1.0 / (784 * q.astype(np.float64).var())
    a = libsmo.train(q, y, gamma=gamma, C=5.0, probability=True, random_state=3,
                     n_threads=2)
    b = libsmo.train(q.astype(np.float64), y, gamma=gamma, C=5.0, probability=True,
                     random_state=3, n_threads=2)
    np.testing.assert_array_equal(a.sv_coef, b.sv_coef)
    np.testing.assert_array_equal(a.probA, b.probA)
    np.testing.assert_array_equal(a.predict_proba(X[:50] * 255), b.predict_proba(X[:50] * 255))


def test_estimators_keep_bytes_and_scale_gamma_exactly():
    X, y = load_fashion_mnist(n_rows=800)
    q = np.rint(X * 255).astype(np.uint8)
    assert byte_variance(q) == pytest.approx(q.astype(np.float64).var(), rel=1e-14)
    a = libsmo.SVC(C=3.0).fit(q, y)
    b = libsmo.SVC(C=3.0, gamma=a._gamma).fit(q.astype(np.float64), y)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    np.testing.assert_array_equal(a.predict(q), b.predict(q))


def test_sparse_and_other_dtypes_are_unchanged():
    X, y = load_dataset("a9a", n_rows=500)
    model = libsmo.train(X, y, gamma=0.05)
    assert model.n_sv > 0
    dense = X.toarray().astype(np.int8)
    assert check_data(dense, keep_bytes=True).dtype == np.float64


PATHS = {"vnni": (True, False), "avx2": (False, True), "plain": (False, False)}


def _path_or_skip(path, monkeypatch):
    """Byte rows take VNNI's or AVX2's sums only on processors that have them (asked
    with only that path's switch on, whatever the module's switches were)."""
    import libsmo._core.int_rows as int_rows_module
    vnni, avx2 = PATHS[path]
    monkeypatch.setattr(int_rows_module, "VNNI_BYTE_DOTS", vnni)
    monkeypatch.setattr(int_rows_module, "AVX2_BYTE_DOTS", avx2)
    rows = IntRows(_pixels(2, 8), 1.0, 1)
    if not (rows.vnni if vnni else rows.avx2):
        pytest.skip(f"this processor has no {path.upper()}: byte rows cannot take it")


def _rows_both_ways(monkeypatch, X, path, **options):
    """Rows of X summed by `path` and by the plain loops."""
    import libsmo._core.int_rows as int_rows_module
    made = []
    for name in (path, "plain"):
        vnni, avx2 = PATHS[name]
        monkeypatch.setattr(int_rows_module, "VNNI_BYTE_DOTS", vnni)
        monkeypatch.setattr(int_rows_module, "AVX2_BYTE_DOTS", avx2)
        made.append(Rows(X, **options))
        assert made[-1].byte_path() == name
    return made


# (pixels / 255 of at most 64 features take the feature-major floats, not byte rows)
SOURCES_AND_FEATURES = [(source, d) for source in ("bytes in place", "bytes copied")
                        for d in (1, 15, 31, 63, 64, 65, 128, 200, 784, 785)] + [
                       ("pixels / 255", d) for d in (65, 79, 128, 200, 784, 785)]


@pytest.mark.parametrize("path", ["vnni", "avx2"])
@pytest.mark.parametrize("source, d", SOURCES_AND_FEATURES)
def test_simd_sums_of_bytes_are_the_plain_sums(path, source, d, monkeypatch):
    """uint8 rows summed with vpdpbusd (each source shifted by -128, the row's sum added
    back) or with AVX2's vpmaddwd on widened bytes give the integers the plain loops
    give, for one source and for up to 16 in a pass (groups of four, the last group
    short), on one and two threads, over part of the rows (an active set), after swaps,
    in place through an index and copied."""
    _path_or_skip(path, monkeypatch)
    q = _pixels(n=2100, d=d, seed=d)
    rows = np.random.default_rng(2).permutation(2100)[:2050]
    if source == "pixels / 255":
        X, options = q / 255.0, dict(int_rows=True)
    else:
        X, options = q, dict(copy_dense=source == "bytes copied")
    fast, plain = _rows_both_ways(monkeypatch, X, path, rows=rows, **options)
    for swap in ((3, 2000), (0, 7)):
        fast.swap_rows(*swap)
        plain.swap_rows(*swap)
    for count in (1, 2, 3, 4, 5, 8, 16):
        sources = np.arange(count) * 97 % 2050
        for threads in (1, 2):
            a = fast.many_row_dots(sources, threads)
            np.testing.assert_array_equal(a, plain.many_row_dots(sources, threads))
    np.testing.assert_array_equal(fast.row_dots(11, 2), plain.row_dots(11, 2))
    exact = X[rows].astype(np.float64)
    exact[[3, 2000]] = exact[[2000, 3]]
    exact[[0, 7]] = exact[[7, 0]]
    np.testing.assert_allclose(fast.row_dots(5), exact @ exact[5], rtol=1e-12)


@pytest.mark.parametrize("path", ["vnni", "avx2"])
def test_simd_sums_at_the_int32_limit(path, monkeypatch):
    """Rows of 255s at the most features bytes may have: VNNI's shifted sums and the
    rows' sums wrap in int32 on the way, AVX2's pairs of 255 x 255 do not; the totals
    (d 255^2 < 2^31) are exact."""
    _path_or_skip(path, monkeypatch)
    q = np.full((6, MAX_BYTE_FEATURES), 255, dtype=np.uint8)
    q[1, ::3] = 0
    q[2] = 1
    fast, plain = _rows_both_ways(monkeypatch, q, path, copy_dense=False)
    a = fast.many_row_dots(np.arange(6))
    np.testing.assert_array_equal(a, plain.many_row_dots(np.arange(6)))
    assert a[0, 0] == MAX_BYTE_FEATURES * 255 * 255
    np.testing.assert_array_equal(a, q.astype(np.int64) @ q.T.astype(np.int64))


@pytest.mark.parametrize("path", ["vnni", "avx2"])
def test_training_takes_the_same_steps_on_every_byte_path(path, monkeypatch):
    """Fashion-MNIST's pixels / 255 in a cache of a few rows (the full cache's misses
    compute rows one at a time, free room several together): the steps, objective and
    model with the SIMD sums are those of the plain loops."""
    _path_or_skip(path, monkeypatch)
    import libsmo._core.int_rows as int_rows_module
    X, y = load_fashion_mnist(n_rows=2000)
    labels = np.isin(y, (0, 2, 4, 6)).astype(int)
    models = {}
    for name in (path, "plain"):
        monkeypatch.setattr(int_rows_module, "VNNI_BYTE_DOTS", PATHS[name][0])
        monkeypatch.setattr(int_rows_module, "AVX2_BYTE_DOTS", PATHS[name][1])
        models[name] = [libsmo.train(X, labels, C=10.0, gamma=0.05, cache_size=size)
                        for size in (1, 100)]
    for a, b in zip(models[path], models["plain"]):
        assert a.n_iter == b.n_iter
        assert a.objective == b.objective
        np.testing.assert_array_equal(a.support, b.support)
        np.testing.assert_array_equal(a.sv_coef, b.sv_coef)
