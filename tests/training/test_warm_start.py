"""Warm starts (train's `init`, the estimators' warm_start): a fit stopped by max_iter
or time_limit goes on to the optimum of an uninterrupted fit, and a fit seeded with the
solution of a neighbouring C (alpha seeding) reaches the cold fit's optimum, both in
fewer steps than a cold fit. The optimum is LIBSVM's own (libsvm-official's objective).

Step counts from these tests' fits (RBF): the first 3,000 rows of a9a (gamma=0.05),
C-SVC C=1: cold 1,312 steps; stopped at 500 and resumed: 812 more (exactly the rest of
the cold path); seeded from the optimum of C=0.5: 1,285, of C=2: 1,080. The first 2,000
rows of letter (26 classes, 325 pairs, gamma=1): C=10 cold 62,537 steps in all; stopped
at 40 a pair (13,000) and resumed: 49,575 more; C=20 cold 62,715, seeded from C=10:
4,813.
"""
import warnings

import numpy as np
import pytest

import libsmo
from helpers.data import load_dataset
from helpers.peers import libsvm_train
from libsmo.training._warm_start import make_feasible, regression_seed

RTOL = 1e-6


@pytest.fixture(scope="module")
def a9a():
    X, y = load_dataset("a9a", n_rows=3000)
    return X, y


def _stopped(X, y, **params):
    with pytest.warns(libsmo.ConvergenceWarning):
        return libsmo.train(X, y, **params)


def _close(a, b, rtol=RTOL):
    return abs(a - b) <= rtol * abs(b)


def test_resumed_c_svc_reaches_libsvm_optimum_in_the_remaining_steps(a9a):
    X, y = a9a
    cold = libsmo.train(X, y, C=1.0, gamma=0.05)
    stopped = _stopped(X, y, C=1.0, gamma=0.05, max_iter=500)
    assert stopped.status == ["max_iter"] and stopped.n_iter == [500]
    resumed = libsmo.train(X, y, C=1.0, gamma=0.05, init=stopped)
    assert resumed.status == ["optimal"]
    # the solver goes on from the very point where it stopped: the same path
    assert resumed.n_iter[0] == cold.n_iter[0] - 500
    assert _close(resumed.objective[0], cold.objective[0])
    peer = libsvm_train(X, y, C=1.0, gamma=0.05)
    assert _close(resumed.objective[0], peer.objectives[0])
    assert np.allclose(resumed.rho, cold.rho, atol=1e-9)


def test_time_limit_then_resume(a9a):
    X, y = a9a
    cold = libsmo.train(X, y, C=1.0, gamma=0.05)
    stopped = _stopped(X, y, C=1.0, gamma=0.05, time_limit=1e-6)
    assert stopped.status == ["time_limit"]
    resumed = libsmo.train(X, y, C=1.0, gamma=0.05, init=stopped)
    assert resumed.status == ["optimal"]
    assert resumed.n_iter[0] + stopped.n_iter[0] == cold.n_iter[0]
    assert _close(resumed.objective[0], cold.objective[0])


@pytest.mark.parametrize("seed_C", [0.5, 2.0])
def test_alpha_seeding_along_C(a9a, seed_C):
    """From a smaller C every old alpha stays feasible; from a larger one they are
    clipped and y'a = 0 is restored."""
    X, y = a9a
    cold = libsmo.train(X, y, C=1.0, gamma=0.05)
    seed = libsmo.train(X, y, C=seed_C, gamma=0.05)
    seeded = libsmo.train(X, y, C=1.0, gamma=0.05, init=seed)
    assert _close(seeded.objective[0], cold.objective[0])
    assert seeded.n_iter[0] < cold.n_iter[0]
    pred = libsmo.train(X, y, C=1.0, gamma=0.05).predict(X)
    assert np.mean(seeded.predict(X) == pred) >= 0.999


def test_coefficients_as_init(a9a):
    X, y = a9a
    seed = libsmo.train(X, y, C=0.5, gamma=0.05)
    coef = np.zeros(len(y))
    coef[seed.support] = seed.sv_coef[0]
    from_array = libsmo.train(X, y, C=1.0, gamma=0.05, init=coef)
    from_model = libsmo.train(X, y, C=1.0, gamma=0.05, init=seed)
    assert np.array_equal(from_array.sv_coef, from_model.sv_coef)


def test_multiclass_resume_and_seed():
    X, y = load_dataset("letter.scale", n_rows=2000)
    cold = libsmo.train(X, y, C=10, gamma=1)
    stopped = _stopped(X, y, C=10, gamma=1, max_iter=40)
    resumed = libsmo.train(X, y, C=10, gamma=1, init=stopped)
    assert all(s == "optimal" for s in resumed.status)
    for r, c, s in zip(resumed.objective, cold.objective, stopped.n_iter):
        assert _close(r, c)
    assert sum(resumed.n_iter) + sum(stopped.n_iter) <= sum(cold.n_iter) * 1.01
    seeded = libsmo.train(X, y, C=20, gamma=1, init=cold)
    cold20 = libsmo.train(X, y, C=20, gamma=1)
    assert all(_close(a, b) for a, b in zip(seeded.objective, cold20.objective))
    assert sum(seeded.n_iter) < sum(cold20.n_iter)


@pytest.mark.parametrize("svm_type, extra", [
    ("nu_svc", dict(nu=0.3, tol=1e-7)),   # nu-SVC's objective is scaled by 1/r^2:
    # at tol 1e-3 two fits of the same problem differ by 1e-3 in it
    ("one_class", dict(nu=0.3)),
    ("epsilon_svr", dict(C=1.0, epsilon=0.1)),
    ("nu_svr", dict(C=1.0, nu=0.3))])
def test_every_formulation_resumes_to_its_optimum(a9a, svm_type, extra):
    X, y = a9a
    X, y = X[:1500], y[:1500]
    target = None if svm_type == "one_class" else y
    cold = libsmo.train(X, target, svm_type=svm_type, gamma=0.05, **extra)
    stopped = _stopped(X, target, svm_type=svm_type, gamma=0.05, max_iter=300, **extra)
    resumed = libsmo.train(X, target, svm_type=svm_type, gamma=0.05, init=stopped, **extra)
    assert resumed.status == ["optimal"]
    assert _close(resumed.objective[0], cold.objective[0])
    assert resumed.n_iter[0] < cold.n_iter[0]


@pytest.mark.parametrize("svm_type", ["epsilon_svr", "nu_svr"])
def test_regression_seeded_along_C(a9a, svm_type):
    X, y = a9a
    X, y = X[:1500], y[:1500]
    cold = libsmo.train(X, y, svm_type=svm_type, C=2.0, gamma=0.05)
    seed = libsmo.train(X, y, svm_type=svm_type, C=1.0, gamma=0.05)
    seeded = libsmo.train(X, y, svm_type=svm_type, C=2.0, gamma=0.05, init=seed)
    assert _close(seeded.objective[0], cold.objective[0])
    assert seeded.n_iter[0] < cold.n_iter[0]


# ---------------------------------------------------------------- feasibility

@pytest.mark.parametrize("mode", ["c_svc", "one_class", "nu"])
def test_make_feasible_meets_bounds_and_constraints(mode):
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(2, 40))
        signs = np.where(rng.random(n) < 0.5, 1.0, -1.0)
        signs[:2] = (1.0, -1.0)
        if mode == "one_class":
            signs[:] = 1.0
        bound = rng.uniform(0.1, 2.0, n)
        seed = rng.normal(0, 2, n)
        if mode == "c_svc":
            a = make_feasible(seed, signs, bound)
            assert abs(a @ signs) <= 1e-9 * max(1.0, np.abs(a).sum())
        else:
            groups = [signs > 0, signs < 0] if mode == "nu" else [signs > 0]
            total = 0.5 * min(bound[g].sum() for g in groups)
            a = make_feasible(seed, signs, bound, total=total, nu=mode == "nu")
            for g in groups:
                assert abs(a[g].sum() - total) <= 1e-9 * total
        assert np.all(a >= 0) and np.all(a <= bound)


def test_a_feasible_seed_is_left_as_it_is():
    signs = np.array([1.0, 1.0, -1.0, -1.0])
    bound = np.ones(4)
    seed = np.array([1.0, 0.25, 0.75, 0.5])
    assert np.array_equal(make_feasible(seed, signs, bound), seed)
    assert np.array_equal(make_feasible(seed, signs, bound, total=1.25, nu=True), seed)


def test_c_svc_seed_keeps_its_bound_variables_when_free_ones_can_carry_the_excess():
    """y'a = 0 restored through the free variables: the heavier side's lowered, then the
    lighter side's raised; the variables at 0 or at C stay there (scaling a side would
    set free every one at C, and SMO would put them back a pair of steps at a time).
    Scaled as a whole when the free ones cannot carry the difference."""
    signs = np.array([1.0, 1.0, 1.0, 1.0, -1.0, -1.0])
    bound = np.full(6, 2.0)
    seed = np.array([2.0, 0.0, 0.5, 1.0, 2.0, 1.4])
    a = make_feasible(seed, signs, bound)
    assert a @ signs == pytest.approx(0.0, abs=1e-15)
    assert (a[0], a[1], a[4], a[5]) == (2.0, 0.0, 2.0, 1.4)
    np.testing.assert_allclose(a[2:4], np.array([0.5, 1.0]) * (1 - 0.1 / 1.5))
    # the heavier side's free variables (1.5) go to 0, the lighter side's rise by the
    # remaining 1.6, all their room
    a = make_feasible(np.array([2.0, 2.0, 0.5, 1.0, 1.0, 1.4]), signs, bound)
    np.testing.assert_allclose(a, [2.0, 2.0, 0.0, 0.0, 2.0, 2.0])
    # too little room: the heavier side is scaled to the lighter
    a = make_feasible(np.array([2.0, 2.0, 2.0, 2.0, 0.5, 0.0]), signs, bound)
    assert a @ signs == pytest.approx(0.0, abs=1e-15)
    np.testing.assert_allclose(a, [0.125, 0.125, 0.125, 0.125, 0.5, 0.0])


def test_regression_seed_keeps_the_coefficients():
    coef = np.array([0.5, -0.25, 0.0, -0.25])
    bound = np.ones(4)
    eps = regression_seed(coef, bound)
    assert np.array_equal(eps[:4] - eps[4:], coef)
    nu = regression_seed(coef, bound, total=1.5)
    assert np.allclose(nu[:4] - nu[4:], coef)
    assert np.isclose(nu[:4].sum(), 1.5) and np.isclose(nu[4:].sum(), 1.5)
    assert np.all(nu >= 0) and np.all(nu <= 1)


# ---------------------------------------------------------------- errors

def test_init_errors(a9a, tmp_path):
    X, y = a9a
    model = libsmo.train(X[:300], y[:300], C=1.0, gamma=0.05)
    with pytest.raises(ValueError, match="only from a regression model"):
        libsmo.train(X[:300], y[:300], svm_type="epsilon_svr", init=model)
    with pytest.raises(ValueError, match="rows up to"):
        libsmo.train(X[:100], y[:100], init=model)
    libsmo.save_model(model, tmp_path / "m.model")
    with pytest.raises(ValueError, match="no training indices"):
        libsmo.train(X[:300], y[:300], init=libsmo.load_model(tmp_path / "m.model"))
    with pytest.raises(ValueError, match="one dual coefficient per training row"):
        libsmo.train(X[:300], y[:300], init=np.zeros(7))
    with pytest.raises(ValueError, match="inf or NaN"):
        libsmo.train(X[:300], y[:300], init=np.full(300, np.nan))
    with pytest.raises(TypeError, match="init must be"):
        libsmo.train(X[:300], y[:300], init="model")


# ---------------------------------------------------------------- estimators

def test_estimator_warm_start_resumes(a9a):
    X, y = a9a
    cold = libsmo.SVC(C=1.0, gamma=0.05).fit(X, y)
    clf = libsmo.SVC(C=1.0, gamma=0.05, max_iter=500, warm_start=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    clf.set_params(max_iter=-1).fit(X, y)
    assert clf.n_iter_[0] == cold.n_iter_[0] - 500
    assert _close(clf.to_model().objective[0], cold.to_model().objective[0])
    assert np.array_equal(clf.support_, cold.support_)
    with pytest.raises(ValueError, match="training rows"):
        clf.fit(X[:100], y[:100])


def test_estimator_warm_start_multiclass_and_regression():
    X, y = load_dataset("letter.scale", n_rows=1500)
    cold = libsmo.SVC(C=10, gamma=1).fit(X, y)
    clf = libsmo.SVC(C=5, gamma=1, warm_start=True).fit(X, y)
    clf.set_params(C=10).fit(X, y)
    assert sum(clf.n_iter_) < sum(cold.n_iter_)
    assert np.mean(clf.predict(X) == cold.predict(X)) >= 0.999
    with pytest.raises(ValueError, match="classes"):
        clf.fit(X, np.where(y == 1, 27, y))
    svr = libsmo.SVR(C=1, gamma=1, warm_start=True).fit(X, y)
    cold_svr = libsmo.SVR(C=2, gamma=1).fit(X, y)
    svr.set_params(C=2).fit(X, y)
    assert svr.n_iter_ < cold_svr.n_iter_
    assert _close(svr.to_model().objective[0], cold_svr.to_model().objective[0])
