"""Prediction's fast paths: the fused RBF pass, sparse rows read by feature, and all
pairs' decision values class by class. Each is checked against the plain formula and
the model's decisions against libsvm-official's on real data."""
import numpy as np
import pytest
import scipy.sparse as sp

import libsmo
import libsmo._blocks.kernel_block as prediction
from helpers.data import load_dataset
from helpers.peers import libsvm_decision, libsvm_train
from libsmo._blocks.support_rows import SupportRows
from libsmo._core.kernel_blocks import rbf_block_from_dots, sparse_dots_feature_major
from libsmo._core.pair_votes import pair_decisions, tally_pairs
from libsmo.model import _one_vs_one as ovo


def test_fused_rbf_pass_matches_the_formula():
    rng = np.random.default_rng(0)
    X, SV = rng.normal(size=(37, 9)), rng.normal(size=(203, 9))
    x_norms, sv_norms = (X * X).sum(1), (SV * SV).sum(1)
    for gamma in (1e-3, 0.5, 4.0):
        dots = X @ SV.T
        expected = np.exp(-gamma * np.maximum(x_norms[:, None] + sv_norms[None, :]
                                              - 2 * dots, 0.0))
        rbf_block_from_dots(dots, x_norms, sv_norms, gamma)
        np.testing.assert_allclose(dots, expected, rtol=1e-14, atol=1e-300)
    # a row against itself: the clamp keeps K(x, x) at exactly 1
    dots = X @ X.T
    rbf_block_from_dots(dots, x_norms, x_norms, 2.0)
    assert np.all(dots <= 1.0)
    np.testing.assert_allclose(np.diag(dots), 1.0, rtol=0, atol=1e-13)
    with pytest.raises(ValueError, match="norms of 36 rows"):
        rbf_block_from_dots(X @ SV.T, x_norms[:-1], sv_norms, 1.0)


def test_rbf_sums_made_row_by_row_are_the_block_times_the_coefficients():
    """rbf_block_from_dots given coefficients sums each RBF row with them as it is
    made: the block it leaves is the one it leaves without them, bit for bit, the sums
    are K @ coef to rounding, and one or two threads give the same bits."""
    rng = np.random.default_rng(1)
    X, SV = rng.normal(size=(150, 7)), rng.normal(size=(1403, 7))   # a tail of 3
    x_norms, sv_norms = (X * X).sum(1), (SV * SV).sum(1)
    coef_t = np.ascontiguousarray(rng.normal(size=(3, SV.shape[0])))
    block = X @ SV.T
    rbf_block_from_dots(block, x_norms, sv_norms, 0.3)
    results = []
    for threads in (1, 2):
        dots, sums = X @ SV.T, np.empty((X.shape[0], 3))
        rbf_block_from_dots(dots, x_norms, sv_norms, 0.3, threads, coef_t, sums)
        np.testing.assert_array_equal(dots, block)
        np.testing.assert_allclose(sums, block @ coef_t.T, rtol=1e-12, atol=1e-12)
        results.append(sums)
    np.testing.assert_array_equal(results[0], results[1])
    with pytest.raises(ValueError, match="coefficients of shape"):
        rbf_block_from_dots(X @ SV.T, x_norms, sv_norms, 0.3, 0, coef_t[:2].copy(),
                            np.empty((X.shape[0], 3)))


def test_kernel_sums_equal_the_block_times_the_coefficients():
    """kernel_block(coef=...) for each kernel, RBF's exact-distance path too (gamma
    large enough that the norms' expansion may round), is K @ coef."""
    X, _ = load_dataset("a9a.t", n_rows=300, n_features=123)
    SV = load_dataset("a9a", n_rows=500, n_features=123)[0]
    SV = SV.multiply(np.linspace(0.5, 1.5, 123)).tocsr()   # not 0/1: dot products
    coef = np.random.default_rng(2).normal(size=SV.shape[0])
    rows = SupportRows(SV)
    for kernel, gamma in (("rbf", 0.05), ("rbf", 1e9), ("linear", 0.0), ("poly", 0.1),
                          ("sigmoid", 0.01)):
        K = prediction.kernel_block(X, rows.rows, kernel, gamma, 3, 0.5,
                                    SV_norms=rows.norms)
        for c in (coef, np.column_stack([coef, -2 * coef])):
            sums = prediction.kernel_block(X, rows.rows, kernel, gamma, 3, 0.5,
                                           SV_norms=rows.norms, coef=c)
            assert sums.shape == (X.shape[0],) + c.shape[1:]
            np.testing.assert_allclose(sums, K @ c, rtol=1e-12, atol=1e-9)


def test_sparse_rows_read_by_feature_give_the_dot_products():
    X, _ = load_dataset("a9a.t", n_rows=700, n_features=123)
    SV = load_dataset("a9a", n_rows=1100, n_features=123)[0].toarray()
    SV[:, 5] *= 0.37   # values other than 0/1, so that rounding could show
    out = np.empty((X.shape[0], SV.shape[0]))
    sparse_dots_feature_major(X, np.ascontiguousarray(SV.T), out)
    np.testing.assert_allclose(out, X.toarray() @ SV.T, rtol=1e-14, atol=1e-13)
    bad = X.copy()
    bad.indices = bad.indices.copy()
    bad.indices[3] = 500
    with pytest.raises(ValueError, match="outside"):
        sparse_dots_feature_major(sp.csr_matrix((bad.data, bad.indices, bad.indptr),
                                                shape=(700, 123)),
                                  np.ascontiguousarray(SV.T), out)
    with pytest.raises(ValueError, match="do not match"):
        sparse_dots_feature_major(X, np.ascontiguousarray(SV.T), out[:5])


def test_pair_decisions_class_by_class_equal_pair_by_pair():
    X, y = load_dataset("letter.scale", n_rows=3000)
    Xt, _ = load_dataset("letter.scale.t", n_rows=500)
    model = libsmo.train(X, y, C=10, gamma=1.0)
    assert model.n_classes == 26
    K = np.empty((Xt.shape[0], model.n_sv))

    def keep(rows, block):
        K[rows] = block
    model._each_kernel_block(*model._check_rows(Xt), keep)
    pairs = ovo.pair_coefficients(model.sv_coef, model.n_support)
    by_pair = np.column_stack([K[:, si] @ ci + K[:, sj] @ cj - model.rho[p]
                               for p, (si, ci, sj, cj) in enumerate(pairs)])
    out = np.empty_like(by_pair)
    ovo.PairDecisions(model.sv_coef, model.n_support, model.rho)(K, out)
    np.testing.assert_allclose(out, by_pair, rtol=0, atol=1e-12)


@pytest.mark.parametrize("k", [2, 3, 26, 105])
def test_pair_loops_equal_numpy_bit_for_bit(k):
    """pair_decisions and tally_pairs against the numpy they replaced: the same doubles,
    the same count of inf and NaN values; LIBSVM's votes go to the second class of a
    pair where its value is zero or NaN (`> 0`), scikit-learn's one-vs-rest tally to
    the first (only a negative value votes for the second), with the same confidence
    sums. 400 rows of 105 classes run on the OpenMP threads, 400 rows of 3 on one."""
    rng = np.random.default_rng(k)
    n, n_pairs = 400, k * (k - 1) // 2
    shares = rng.standard_normal((n, k, k - 1))
    rho = rng.standard_normal(n_pairs)
    shares[0, 0, 0], shares[1, k - 1, 0], shares[2, 0, k - 2] = np.nan, np.inf, -np.inf
    first, second = np.triu_indices(k, 1)   # LIBSVM's pair order
    expected = np.ascontiguousarray(shares[:, first, second - 1] + shares[:, second, first])
    expected -= rho
    out = np.empty((n, n_pairs))
    assert pair_decisions(shares, rho, out) == np.count_nonzero(~np.isfinite(expected))
    np.testing.assert_array_equal(out, expected)
    expected[3] = 0.0
    votes = np.zeros((n, k), dtype=np.int64)
    tally_pairs(expected, votes)
    counts = np.zeros((n, k), dtype=np.int64)
    confidence = np.zeros((n, k))
    tally_pairs(expected, counts, confidence)
    by_pair, ovr_counts, ovr_confidence = (np.zeros((n, k), dtype=np.int64),
                                           np.zeros((n, k)), np.zeros((n, k)))
    for p, (i, j) in enumerate(ovo.pairs(k)):
        positive, negative = expected[:, p] > 0, expected[:, p] < 0
        by_pair[:, i] += positive
        by_pair[:, j] += ~positive
        ovr_counts[:, i] += ~negative
        ovr_counts[:, j] += negative
        ovr_confidence[:, i] += expected[:, p]
        ovr_confidence[:, j] -= expected[:, p]
    np.testing.assert_array_equal(votes, by_pair)
    np.testing.assert_array_equal(counts, ovr_counts)
    np.testing.assert_array_equal(confidence, ovr_confidence)
    assert (votes.sum(axis=1) == n_pairs).all() and votes[3, k - 1] == k - 1
    assert counts[3, 0] == k - 1
    with pytest.raises(ValueError, match="pairs of"):
        tally_pairs(expected, np.zeros((n, k + 1), dtype=np.int64))


def test_votes_counted_block_by_block_predict_as_all_decision_values(monkeypatch):
    """Model.predict counts a multi-class model's votes a kernel block at a time
    (`Model._votes`); the labels are those of all rows' decision values voted at once,
    with 1 MB blocks (letter's 1,000 rows in several) as with one block."""
    X, y = load_dataset("letter.scale", n_rows=3000)
    Xt, _ = load_dataset("letter.scale.t", n_rows=1000)
    model = libsmo.train(X, y, C=10, gamma=1.0)
    voted = model.classes[np.argmax(ovo.votes(model.decision_function(Xt), 26), axis=1)]
    np.testing.assert_array_equal(model.predict(Xt), voted)
    monkeypatch.setattr(prediction, "BLOCK_BYTES", 2**20)
    np.testing.assert_array_equal(model.predict(Xt), voted)
    np.testing.assert_array_equal(model.predict(Xt.toarray()), voted)


def test_votes_of_decision_values_that_overflow_are_refused():
    X, y = load_dataset("letter.scale", n_rows=600)
    model = libsmo.train(X, y, C=10, gamma=1.0)
    assert np.abs(model.sv_coef).max() <= 10.0   # C: finite below, a sum of them not
    big = model.replace(sv_coef=model.sv_coef * 1e307)
    with pytest.raises(ValueError, match="decision values overflow double precision"):
        big.predict(X[:50])
    with pytest.raises(ValueError, match="decision values overflow double precision"):
        big.decision_function(X[:50])


@pytest.mark.parametrize("name, n_features, C, gamma", [
    ("letter.scale", 16, 10.0, 1.0),     # dense-ish rows, 26 classes: BLAS product
    ("a9a", 123, 1.0, 0.05),             # 11% stored: rows read by feature
    ("w8a", 300, 5.0, 0.05),             # 4% stored
])
def test_decisions_equal_libsvm(name, n_features, C, gamma):
    X, y = load_dataset(name, n_rows=2500, n_features=n_features)
    Xt, _ = load_dataset(name + ".t", n_rows=1500, n_features=n_features)
    ours = libsmo.train(X, y, C=C, gamma=gamma)
    theirs = libsvm_train(X, y, C=C, gamma=gamma)
    if name != "letter.scale":
        assert prediction.reads_by_feature(Xt[:100], SupportRows(ours.support_vectors).rows)
    # the same optimum to LIBSVM's tolerance: decisions agree to about tol
    np.testing.assert_allclose(ours.decision_function(Xt), libsvm_decision(theirs, Xt),
                               rtol=0, atol=2e-3)
    np.testing.assert_array_equal(ours.predict(Xt), ours.predict(Xt.toarray()))


def _blas_thread_counts():
    from threadpoolctl import threadpool_info
    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]


def test_prediction_holds_every_loaded_blas_to_one_thread_with_one_controller(
        monkeypatch):
    """Prediction's own OpenMP loops hold BLAS to one thread (`_one_blas_thread_if`)
    through one threadpoolctl controller a process (`_blas_libraries`), made again
    when scipy.linalg has brought scipy's own BLAS since; the counts come back after."""
    import scipy.linalg  # noqa: F401  (its BLAS is among the loaded ones)
    before = _blas_thread_counts()
    monkeypatch.setattr(prediction, "_BLAS_LIBRARIES", (None, False))
    with prediction._one_blas_thread_if(True):
        assert _blas_thread_counts() and set(_blas_thread_counts()) == {1}
    assert _blas_thread_counts() == before
    controller = prediction._BLAS_LIBRARIES[0]
    assert prediction._BLAS_LIBRARIES[1] is True
    assert len(controller.lib_controllers) == len(before)
    with prediction._one_blas_thread_if(True):
        assert set(_blas_thread_counts()) == {1}
    assert prediction._BLAS_LIBRARIES[0] is controller
    # a controller made before scipy.linalg was loaded is made again
    monkeypatch.setattr(prediction, "_BLAS_LIBRARIES", (controller, False))
    with prediction._one_blas_thread_if(True):
        pass
    assert prediction._BLAS_LIBRARIES[0] is not controller
    with prediction._one_blas_thread_if(False):
        assert _blas_thread_counts() == before
