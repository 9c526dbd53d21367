"""The whole LIBSVM family against libsvm-official: C-SVC and nu-SVC (binary and
one-vs-one multi-class), one-class, epsilon-SVR, nu-SVR; class and sample weights.

At tol=1e-6 each binary problem must reach LIBSVM's objective (as LIBSVM prints it, six
decimals) and rho, with the same number of support vectors and the same predictions
except where a decision value is within 1e-6 of a tie.
"""
import numpy as np
import pytest

import libsmo
from helpers.data import load_dataset
from helpers.peers import libsvm_decision, libsvm_predict, libsvm_train

TIGHT = 1e-6
KERNELS = {
    "linear": {},
    "poly": {"gamma": 0.1, "coef0": 1.0, "degree": 3},
    "rbf": {},
    "sigmoid": {"gamma": 0.01, "coef0": -0.5},
}
TYPE_PARAMS = {
    "c_svc": {"C": 1.0},
    "nu_svc": {"nu": 0.5},
    "one_class": {"nu": 0.2},
    "epsilon_svr": {"C": 1.0, "epsilon": 0.1},
    "nu_svr": {"C": 1.0, "nu": 0.4},
}


def assert_matches_libsvm(model, peer, X, *, rho_atol=1e-5, n_sv_slack=0):
    """Objectives, rho, nSV, decision values and predictions against a LIBSVM model."""
    n_pairs = len(model.rho)
    assert len(peer.objectives) == n_pairs
    ours = np.array(model.objective)
    theirs = np.array(peer.objectives)
    # LIBSVM prints the objective with %f: compare to its six decimals
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(model.rho, [peer.rho[i] for i in range(n_pairs)],
                               atol=rho_atol)
    assert abs(model.n_sv - peer.l) <= n_sv_slack
    dec_theirs = libsvm_decision(peer, X)
    dec_ours = model.decision_function(X)
    np.testing.assert_allclose(dec_ours, dec_theirs, atol=1e-4)
    pred_theirs = libsvm_predict(peer, X)
    pred_ours = model.predict(X)
    if model.svm_type in ("epsilon_svr", "nu_svr"):
        np.testing.assert_allclose(pred_ours, pred_theirs, atol=1e-4)
        return
    near_tie = (np.abs(dec_theirs) < 1e-6)
    near_tie = near_tie.any(axis=1) if near_tie.ndim == 2 else near_tie
    np.testing.assert_array_equal(pred_ours[~near_tie], pred_theirs[~near_tie])


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("svm_type", list(TYPE_PARAMS))
def test_heart_scale_every_type_and_kernel(svm_type, kernel):
    X, y = load_dataset("heart_scale")
    params = dict(kernel=kernel, **KERNELS[kernel], **TYPE_PARAMS[svm_type])
    model = libsmo.train(X, y, svm_type=svm_type, tol=TIGHT, **params)
    peer = libsvm_train(X, y, svm_type=svm_type, tol=TIGHT, **params)
    assert model.status == ["optimal"]
    assert_matches_libsvm(model, peer, X)


@pytest.mark.parametrize("selection", ["platt", "second_order"])
@pytest.mark.parametrize("svm_type", ["nu_svc", "one_class", "epsilon_svr", "nu_svr"])
def test_both_strategies_without_shrinking(svm_type, selection):
    X, y = load_dataset("heart_scale")
    params = TYPE_PARAMS[svm_type]
    model = libsmo.train(X, y, svm_type=svm_type, tol=TIGHT, selection=selection,
                         shrinking=False, **params)
    peer = libsvm_train(X, y, svm_type=svm_type, tol=TIGHT, **params)
    assert_matches_libsvm(model, peer, X, rho_atol=1e-4)


@pytest.mark.parametrize("name", ["housing_scale", "bodyfat_scale"])
@pytest.mark.parametrize("svm_type,params", [
    ("epsilon_svr", {"C": 10.0, "epsilon": 0.5}),
    ("nu_svr", {"C": 10.0, "nu": 0.4}),
], ids=["epsilon_svr", "nu_svr"])
def test_regression_sets(name, svm_type, params):
    X, y = load_dataset(name)
    if name == "bodyfat_scale":
        # targets span [0.995, 1.109]: a narrower tube, and for nu-SVR a smaller C
        # (at C=10 LIBSVM itself stops at its 10^7-step cap)
        params = ({"C": 10.0, "epsilon": 0.005} if svm_type == "epsilon_svr"
                  else {"C": 1.0, "nu": 0.4})
    model = libsmo.train(X, y, svm_type=svm_type, tol=TIGHT, **params)
    peer = libsvm_train(X, y, svm_type=svm_type, tol=TIGHT, **params)
    # ill-conditioned (bodyfat: ~2e5 steps): rho and the SV count may move a little
    assert_matches_libsvm(model, peer, X, rho_atol=1e-4, n_sv_slack=2)
    mse_ours = np.mean((model.predict(X) - y) ** 2)
    mse_theirs = np.mean((libsvm_predict(peer, X) - y) ** 2)
    assert abs(mse_ours - mse_theirs) <= 1e-4 * mse_theirs


@pytest.mark.parametrize("name,n_rows,params", [
    ("pendigits", 2500, {"svm_type": "c_svc", "C": 10.0, "gamma": 1e-4}),
    ("pendigits", 2500, {"svm_type": "nu_svc", "nu": 0.05, "gamma": 1e-4}),
    ("letter.scale", 3000, {"svm_type": "c_svc", "C": 10.0, "gamma": 1.0}),
], ids=["pendigits-c_svc", "pendigits-nu_svc", "letter-c_svc"])
def test_multiclass_pairs(name, n_rows, params):
    """Every one-vs-one pair: LIBSVM's objective and rho; the same votes."""
    X, y = load_dataset(name, n_rows=n_rows)
    model = libsmo.train(X, y, tol=TIGHT, **params)
    peer = libsvm_train(X, y, tol=TIGHT, **params)
    k = len(np.unique(y))
    assert len(model.classes) == k and model.sv_coef.shape[0] == k - 1
    np.testing.assert_array_equal(model.classes, peer.get_labels())
    # an alpha within noise of zero may count as a support vector on one side only
    assert np.abs(model.n_support - [peer.nSV[i] for i in range(k)]).max() <= 1
    assert_matches_libsvm(model, peer, X, n_sv_slack=3)
    Xt, yt = load_dataset(name + ".t", n_rows=1000)
    agree = np.mean(model.predict(Xt) == libsvm_predict(peer, Xt))
    assert agree >= 0.999


def test_class_order_is_first_appearance():
    X, y = load_dataset("pendigits", n_rows=600)
    model = libsmo.train(X, y, gamma=1e-4)
    _, first = np.unique(y, return_index=True)
    np.testing.assert_array_equal(model.classes, y[np.sort(first)])


def test_class_weights_match_libsvm_wi():
    X, y = load_dataset("heart_scale")
    weights = {1: 2.5, -1: 0.5}
    model = libsmo.train(X, y, class_weight=weights, tol=TIGHT)
    peer = libsvm_train(X, y, class_weight=weights, tol=TIGHT)
    assert_matches_libsvm(model, peer, X)
    plain = libsmo.train(X, y, tol=TIGHT)
    assert not np.allclose(plain.decision_function(X), model.decision_function(X))


def test_multiclass_class_weights_match_libsvm():
    X, y = load_dataset("pendigits", n_rows=1500)
    weights = {0: 3.0, 5: 0.25}
    model = libsmo.train(X, y, class_weight=weights, gamma=1e-4, C=2.0, tol=TIGHT)
    peer = libsvm_train(X, y, class_weight=weights, gamma=1e-4, C=2.0, tol=TIGHT)
    assert_matches_libsvm(model, peer, X)


@pytest.mark.parametrize("svm_type", ["c_svc", "epsilon_svr", "nu_svc", "one_class"])
def test_integer_sample_weights_equal_duplicated_examples(svm_type):
    X, y = load_dataset("heart_scale")
    rng = np.random.default_rng(0)
    w = rng.integers(0, 3, size=len(y))  # 0 drops an example, 2 duplicates it
    repeat = np.repeat(np.arange(len(y)), w)
    params = dict(TYPE_PARAMS[svm_type])
    weighted = libsmo.train(X, y, svm_type=svm_type, sample_weight=w, tol=1e-8, **params)
    duplicated = libsmo.train(X[repeat], y[repeat], svm_type=svm_type, tol=1e-8, **params)
    np.testing.assert_allclose(weighted.decision_function(X),
                               duplicated.decision_function(X), atol=1e-5)
    assert set(weighted.support) <= set(np.flatnonzero(w > 0))


def test_sample_weight_scales_C():
    X, y = load_dataset("heart_scale")
    a = libsmo.train(X, y, C=3.0, tol=TIGHT)
    b = libsmo.train(X, y, C=1.0, sample_weight=np.full(len(y), 3.0), tol=TIGHT)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-6)


def test_bad_family_parameters():
    X, y = load_dataset("heart_scale")
    with pytest.raises(ValueError, match="specified nu is infeasible: nu=0.99 for classes"):
        libsmo.train(X, y, svm_type="nu_svc", nu=0.99)
    with pytest.raises(ValueError, match="nu must be in"):
        libsmo.train(X, y, svm_type="one_class", nu=1.5)
    with pytest.raises(ValueError, match="nu must be finite and > 0"):
        libsmo.train(X, y, svm_type="nu_svr", nu=0.0)
    with pytest.raises(ValueError, match="epsilon must be finite and >= 0"):
        libsmo.train(X, y, svm_type="epsilon_svr", epsilon=-1.0)
    with pytest.raises(ValueError, match="svm_type must be one of"):
        libsmo.train(X, y, svm_type="c-svc")
    with pytest.raises(ValueError, match="sample_weight must be finite and >= 0"):
        libsmo.train(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match=r"sample_weight\[3\] = nan"):
        w = np.ones(len(y))
        w[3] = np.nan
        libsmo.train(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="zero for every example"):
        libsmo.train(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match="single class"):
        libsmo.train(X, y, sample_weight=(y > 0).astype(float))
    with pytest.raises(ValueError, match="class_weight applies to classification"):
        libsmo.train(X, y, svm_type="epsilon_svr", class_weight={1: 2.0})
    with pytest.raises(ValueError, match=r"class_weight\[1\] must be finite and > 0"):
        libsmo.train(X, y, class_weight={1: -2.0})
    with pytest.raises(TypeError, match="y must hold real targets"):
        libsmo.train(X, np.array(["a", "b"] * 135), svm_type="nu_svr")
    with pytest.warns(UserWarning, match="class label 7 specified in class_weight"):
        libsmo.train(X, y, class_weight={7: 2.0})


def test_nu_svc_ignores_class_weights_as_libsvm():
    X, y = load_dataset("heart_scale")
    plain = libsmo.train(X, y, svm_type="nu_svc", tol=TIGHT)
    with pytest.warns(UserWarning, match="class_weight has no effect on nu_svc"):
        weighted = libsmo.train(X, y, svm_type="nu_svc", class_weight={1: 3.0}, tol=TIGHT)
    peer = libsvm_train(X, y, svm_type="nu_svc", class_weight={1: 3.0}, tol=TIGHT)
    np.testing.assert_array_equal(weighted.decision_function(X), plain.decision_function(X))
    assert_matches_libsvm(weighted, peer, X)


def test_one_class_needs_no_labels():
    X, _ = load_dataset("heart_scale")
    model = libsmo.train(X, svm_type="one_class", nu=0.1)
    assert set(np.unique(model.predict(X))) <= {1.0, -1.0}
    assert np.mean(model.predict(X) == -1) == pytest.approx(0.1, abs=0.05)


@pytest.mark.slow
def test_sector_linear_accuracy():
    """105 classes of sparse text (5,460 pairs): accuracy within 0.2 points of LIBSVM."""
    X, y = load_dataset("sector.scale")
    Xt, yt = load_dataset("sector.t.scale", n_features=X.shape[1])
    model = libsmo.train(X, y, kernel="linear")
    peer = libsvm_train(X, y, kernel="linear")
    ours = np.mean(model.predict(Xt) == yt)
    theirs = np.mean(libsvm_predict(peer, Xt) == yt)
    assert abs(ours - theirs) <= 0.002
