"""Random Fourier features: the kernel approximation on real data, sparse input,
reproducibility, and scikit-learn's transformer checks."""
import numpy as np
import pytest
import scipy.sparse as sp

import libsmo
from helpers.data import load_dataset


def exact_kernel(X, kernel, gamma):
    X = X.toarray() if sp.issparse(X) else X
    if kernel == "rbf":
        sq = (X * X).sum(1)
        return np.exp(-gamma * np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0))
    return np.exp(-gamma * np.abs(X[:, None, :] - X[None, :, :]).sum(-1))


def approximation_error(X, kernel, gamma, n_components, seeds=range(5)):
    K = exact_kernel(X, kernel, gamma)
    errors = []
    for seed in seeds:
        Z = libsmo.RandomFourierFeatures(n_components, gamma=gamma, kernel=kernel,
                                         random_state=seed).fit_transform(X)
        errors.append(np.sqrt(np.mean((Z @ Z.T - K) ** 2)))
    return np.mean(errors)


@pytest.mark.parametrize("kernel,gamma", [("rbf", 0.1), ("laplacian", 0.05)])
def test_error_falls_like_one_over_sqrt_components(kernel, gamma):
    X, _ = load_dataset("heart_scale", dense=True)
    sizes = np.array([100, 300, 1000, 3000])
    errors = [approximation_error(X, kernel, gamma, D, seeds=range(8)) for D in sizes]
    slope = np.polyfit(np.log(sizes), np.log(errors), 1)[0]
    assert -0.62 < slope < -0.38, (slope, errors)
    assert errors[-1] < 0.04


def test_sparse_input_is_never_densified_and_matches_dense():
    X, _ = load_dataset("a1a", n_rows=400)
    rff = libsmo.RandomFourierFeatures(300, gamma=0.05, random_state=0).fit(X)
    Z_sparse = rff.transform(X)
    Z_dense = rff.transform(X.toarray())
    np.testing.assert_allclose(Z_sparse, Z_dense, atol=1e-12)
    err = np.sqrt(np.mean((Z_sparse @ Z_sparse.T - exact_kernel(X, "rbf", 0.05)) ** 2))
    assert err < 0.1


def test_reproducible_and_dtype():
    X, _ = load_dataset("heart_scale")
    a = libsmo.RandomFourierFeatures(50, random_state=3).fit_transform(X)
    b = libsmo.RandomFourierFeatures(50, random_state=3).fit_transform(X)
    c = libsmo.RandomFourierFeatures(50, random_state=4).fit_transform(X)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
    z32 = libsmo.RandomFourierFeatures(50, dtype=np.float32, random_state=3).fit_transform(X)
    assert z32.dtype == np.float32
    np.testing.assert_allclose(z32, a, atol=1e-6)


def test_rff_then_linear_svm_approaches_the_rbf_svm():
    X, y = load_dataset("a9a", n_rows=3000)
    Xt, yt = load_dataset("a9a.t", n_rows=3000, n_features=123)
    exact = libsmo.train(X, y, gamma=0.05).predict(Xt)
    rff = libsmo.RandomFourierFeatures(1000, gamma=0.05, random_state=0).fit(X)
    approx = libsmo.train(rff.transform(X), y, kernel="linear").predict(rff.transform(Xt))
    assert abs(np.mean(exact == yt) - np.mean(approx == yt)) < 0.02


def test_bad_parameters():
    X = np.ones((3, 2))
    with pytest.raises(ValueError, match="n_components must be finite and > 0"):
        libsmo.RandomFourierFeatures(0).fit(X)
    with pytest.raises(ValueError, match="gamma must be finite and > 0"):
        libsmo.RandomFourierFeatures(gamma=-1).fit(X)
    with pytest.raises(ValueError, match="kernel must be one of"):
        libsmo.RandomFourierFeatures(kernel="poly").fit(X)
    with pytest.raises(ValueError, match="expecting 2 features"):
        libsmo.RandomFourierFeatures().fit(X).transform(np.ones((3, 5)))


def test_scikit_learn_transformer_checks():
    from sklearn.utils.estimator_checks import check_estimator
    check_estimator(libsmo.RandomFourierFeatures(n_components=20, random_state=0))
