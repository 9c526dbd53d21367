"""The linear kernel's primal solver (libsmo._core.linear_smo): Platt's SMO with the weights w
kept explicitly. It must reach LIBSVM's optimum (the dual objective, w, rho, decision
values and labels) to the solver tolerance, on sparse and dense data, for C-SVC
(binary, one-vs-one, weighted) and one-class, and stop like the kernel solver."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import libsmo
from helpers.data import load_dataset
from helpers.peers import libsvm_decision, libsvm_summary, libsvm_train

TIGHT = 1e-6


def primal_weights(model):
    """w of a binary model: sum_i coef_i x_i."""
    w = model.sv_coef[0] @ model.support_vectors
    return np.asarray(w).ravel()


@pytest.mark.parametrize("name,n_rows,C", [("heart_scale", None, 1.0), ("a1a", None, 1.0),
                                           ("w1a", None, 4.0), ("a9a", 8000, 0.05)])
def test_same_optimum_as_libsvm(name, n_rows, C):
    X, y = load_dataset(name, n_rows=n_rows)
    model = libsmo.train(X, y, kernel="linear", C=C, tol=TIGHT, linear_solver="primal")
    assert model.status == ["optimal"]
    peer = libsvm_train(X, y, kernel="linear", C=C, tol=TIGHT)
    theirs = libsvm_summary(peer)
    # the dual objective LIBSVM prints, to its six printed decimals
    assert model.objective[0] == pytest.approx(peer.objectives[0], rel=1e-6, abs=2e-6)
    w_theirs = np.asarray(theirs["sv_coef"] @ X[theirs["support"]]).ravel()
    np.testing.assert_allclose(primal_weights(model), w_theirs,
                               atol=1e-4 * np.abs(w_theirs).max())
    dec = model.decision_function(X)
    dec_theirs = libsvm_decision(peer, X, "linear")
    np.testing.assert_allclose(dec, dec_theirs, atol=1e-4)
    unsure = np.abs(dec_theirs) < 1e-4
    np.testing.assert_array_equal(model.predict(X)[~unsure],
                                  np.where(dec_theirs > 0, *theirs["labels"][:2])[~unsure])


def test_primal_and_kernel_rows_agree_at_default_tolerance():
    """Both solvers of libsmo, and LIBSVM, at -e 0.001: objectives within 1e-4
    relative, accuracies equal on a9a.t (Platt's linear Adult setting, C=0.05)."""
    X, y = load_dataset("a9a", n_rows=12000)
    Xt, yt = load_dataset("a9a.t", n_features=X.shape[1], n_rows=6000)
    X = sp.csr_matrix(X, shape=(X.shape[0], Xt.shape[1]))
    primal = libsmo.train(X, y, kernel="linear", C=0.05, linear_solver="primal")
    rows = libsmo.train(X, y, kernel="linear", C=0.05, linear_solver="kernel")
    peer = libsvm_train(X, y, kernel="linear", C=0.05)
    for f in (primal.objective[0], rows.objective[0]):
        assert f == pytest.approx(peer.objectives[0], rel=1e-4)
    accuracy = [np.mean(m.predict(Xt) == yt) for m in (primal, rows)]
    assert abs(accuracy[0] - accuracy[1]) <= 0.001


def test_dense_and_sparse_reach_the_same_optimum():
    """Dense and CSR rows sum their dot products in different orders, so the two runs
    may part ways at a rounding-level tie; they end at the same optimum."""
    X, y = load_dataset("heart_scale")
    sparse = libsmo.train(X, y, kernel="linear", C=2.0, tol=TIGHT, linear_solver="primal")
    dense = libsmo.train(X.toarray(), y, kernel="linear", C=2.0, tol=TIGHT,
                         linear_solver="primal")
    assert dense.objective[0] == pytest.approx(sparse.objective[0], rel=1e-9)
    np.testing.assert_allclose(primal_weights(dense), primal_weights(sparse), atol=1e-5)
    np.testing.assert_allclose(dense.decision_function(X), sparse.decision_function(X),
                               atol=1e-5)


def test_random_fourier_features_dense():
    """Dense features of RFF(a9a): the primal solver's optimum is LIBSVM's."""
    X, y = load_dataset("a9a", n_rows=3000)
    Z = libsmo.RandomFourierFeatures(n_components=300, gamma=0.05,
                                     random_state=0).fit_transform(X)
    model = libsmo.train(Z, y, kernel="linear", C=1.0, tol=TIGHT, linear_solver="primal")
    peer = libsvm_train(Z, y, kernel="linear", C=1.0, tol=TIGHT)
    assert model.objective[0] == pytest.approx(peer.objectives[0], rel=1e-6, abs=2e-6)
    np.testing.assert_allclose(model.decision_function(Z),
                               libsvm_decision(peer, Z, "linear"), atol=1e-4)


def test_multiclass_weights_and_one_class_match_kernel_rows():
    """One-vs-one pairs with class and sample weights, and one-class: each binary
    problem's objective equals the kernel-row solver's (tol 1e-6)."""
    X, y = load_dataset("pendigits", n_rows=900)
    X = X / 100.0
    weights = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    cases = [dict(svm_type="c_svc", C=0.5, class_weight={0: 2.0, 7: 0.5},
                  sample_weight=weights),
             dict(svm_type="one_class", nu=0.2)]
    for params in cases:
        primal = libsmo.train(X, y, kernel="linear", tol=TIGHT, linear_solver="primal",
                              **params)
        rows = libsmo.train(X, y, kernel="linear", tol=TIGHT, linear_solver="kernel",
                            **params)
        np.testing.assert_allclose(primal.objective, rows.objective, rtol=1e-6)
        np.testing.assert_allclose(primal.decision_function(X), rows.decision_function(X),
                                   atol=1e-4)


def test_stops_like_the_kernel_solver():
    X, y = load_dataset("a9a", n_rows=5000)
    primal = dict(kernel="linear", linear_solver="primal")
    with pytest.warns(libsmo.ConvergenceWarning):
        model = libsmo.train(X, y, C=1.0, max_iter=50, **primal)
    assert model.status == ["max_iter"] and model.n_iter == [50]
    seen = []

    def stop_early(info):
        seen.append(info)
        return False

    # (at C = 1 the start meets the stopping rule and SMO takes no step; at C = 10 the
    # start stops at its epoch cap and SMO has many left)
    with pytest.warns(libsmo.ConvergenceWarning):
        model = libsmo.train(X, y, C=10.0, callback=stop_early, callback_every=10,
                             **primal)
    assert model.status == ["stopped"] and seen and seen[0]["objective"] < 0

    def interrupt(info):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        libsmo.train(X, y, C=10.0, callback=interrupt, callback_every=10, **primal)


def test_choice_is_validated():
    X, y = load_dataset("heart_scale")
    with pytest.raises(ValueError, match="linear_solver='primal' needs kernel='linear'"):
        libsmo.train(X, y, kernel="rbf", linear_solver="primal")
    with pytest.raises(ValueError, match="svm_type"):
        libsmo.train(X, y, kernel="linear", svm_type="nu_svc", linear_solver="primal")
    with pytest.raises(ValueError, match="linear_solver must be one of"):
        libsmo.train(X, y, kernel="linear", linear_solver="fast")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        libsmo.train(X, y, kernel="linear", svm_type="nu_svc")  # auto: kernel rows


def test_auto_takes_the_primal_solver_where_q_outgrows_the_cache():
    """"auto": kernel rows while a problem's Q (4 l^2 bytes) fits in twice the cache,
    the primal solver beyond (a problem of fewer rows than the start's rule below the
    bound asks for); the answers agree either way."""
    X, y = load_dataset("a9a", n_rows=1500)   # Q: 9 MB
    small_cache = libsmo.train(X, y, kernel="linear", C=0.05, cache_size=2)
    large_cache = libsmo.train(X, y, kernel="linear", C=0.05, cache_size=10)
    primal = libsmo.train(X, y, kernel="linear", C=0.05, linear_solver="primal")
    rows = libsmo.train(X, y, kernel="linear", C=0.05, linear_solver="kernel",
                        cache_size=10)
    assert small_cache.n_iter == primal.n_iter       # the same solver's steps
    assert large_cache.n_iter == rows.n_iter
    assert small_cache.objective[0] == pytest.approx(large_cache.objective[0], rel=1e-4)


def test_auto_takes_the_primal_solver_below_the_bound_where_the_start_pays():
    """"auto" below Q's bound: 3,000 rows of a9a (|x|^2 = 14 or less) at C = 0.05 go to
    the primal solver (mean C |x|^2 below 10), at C = 5 to kernel rows (above 10); the
    answers are the other solver's optimum."""
    X, y = load_dataset("a9a", n_rows=3000)   # Q: 36 MB, within the 200 MB bound
    for C, solver in ((0.05, "primal"), (5.0, "kernel")):
        auto = libsmo.train(X, y, kernel="linear", C=C)
        same = libsmo.train(X, y, kernel="linear", C=C, linear_solver=solver)
        other = libsmo.train(X, y, kernel="linear", C=C,
                             linear_solver={"primal": "kernel", "kernel": "primal"}[solver])
        assert auto.n_iter == same.n_iter
        np.testing.assert_array_equal(auto.sv_coef, same.sv_coef)
        assert auto.objective[0] == pytest.approx(other.objective[0], rel=1e-4)
