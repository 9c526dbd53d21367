"""Probability estimates against libsvm-official (LIBSVM 3.37, svm-train -b 1 and
svm-predict -b 1): Platt's sigmoid per pair, pairwise coupling, the SVR Laplace scale and
the one-class density marks; and the pieces of libsmo.model._probability on their own.

LIBSVM draws its probability folds from C's rand(); with
``random_state=libsmo.LibsvmRandom(seed)`` libsmo draws the same folds (glibc's rand()
after srand(seed), which `helpers.peers.libsvm_seed` gives LIBSVM), so the fitted
sigmoids, the SVR Laplace scale and the probabilities are LIBSVM's: compared to
rounding, not on averages. What does not depend on folds (probabilities from given
decision values and probA/probB, the one-class marks) must match to rounding too.
"""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize

import libsmo
from helpers.data import load_dataset
from helpers.peers import libsvm_decision, libsvm_predict_proba, libsvm_seed, libsvm_train
from libsmo.model import _probability as pr

PENDIGITS = {"C": 10.0, "gamma": 1e-4}


def peer_prob(peer, n_pairs):
    return (np.array([peer.probA[i] for i in range(n_pairs)]),
            np.array([peer.probB[i] for i in range(n_pairs)]))


def assert_valid_probabilities(P, k):
    assert P.shape[1] == k
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert P.min() >= pr.MIN_PROB * (1 - 1e-9) and P.max() <= 1 - pr.MIN_PROB * (1 - 1e-9)


# --- the pieces ----------------------------------------------------------------------


def paper_objective(AB, dec, positive):
    """Lin, Lin and Weng's regularised cross-entropy, written directly from the paper."""
    A, B = AB
    n_pos, n_neg = positive.sum(), (~positive).sum()
    t = np.where(positive, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    p = 1 / (1 + np.exp(A * dec + B))
    return -np.sum(t * np.log(p) + (1 - t) * np.log(1 - p))


@pytest.mark.parametrize("case", ["overlapping", "separable", "unbalanced"])
def test_sigmoid_train_minimises_the_papers_objective(case):
    rng = np.random.default_rng(7)
    if case == "overlapping":
        positive = rng.random(300) < 0.5
        dec = np.where(positive, 0.8, -0.6) + rng.normal(0, 1.0, 300)
    elif case == "separable":
        positive = np.arange(40) < 20
        dec = np.where(positive, 1.0, -1.0) * rng.uniform(1.0, 3.0, 40)
    else:
        positive = rng.random(200) < 0.1
        dec = np.where(positive, 1.5, -1.0) + rng.normal(0, 0.7, 200)
    A, B = pr.sigmoid_train(dec, positive)
    best = minimize(paper_objective, x0=[0.0, 0.0], args=(dec, positive), method="BFGS",
                    options={"gtol": 1e-10})
    np.testing.assert_allclose([A, B], best.x, rtol=1e-4, atol=1e-4)
    assert paper_objective([A, B], dec, positive) <= best.fun + 1e-8
    assert A < 0  # larger decision values mean the positive class


def test_sigmoid_train_accepts_labels_as_plus_minus_one():
    dec = np.array([2.0, 1.0, 0.5, -0.2, -1.0, -2.0, 0.3, -0.4])
    labels = np.array([1, 1, -1, 1, -1, -1, 1, -1])
    assert pr.sigmoid_train(dec, labels) == pr.sigmoid_train(dec, labels > 0)
    with pytest.raises(ValueError, match="length"):
        pr.sigmoid_train(dec, labels[:-1])


def test_sigmoid_predict_is_stable_at_extremes():
    f = np.array([-1e6, -800.0, -30.0, -1.0, 0.0, 1.0, 30.0, 800.0, 1e6])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = pr.sigmoid_predict(f, 1.0, 0.0)
    moderate = np.abs(f) <= 30
    np.testing.assert_allclose(p[moderate], 1 / (1 + np.exp(f[moderate])), rtol=1e-14)
    assert p[0] == 1.0 and p[-1] == 0.0 and np.all(np.diff(p) <= 0)
    assert p[2] > 0.999999999999 and 0 < p[6] < 1e-12  # no cancellation to 1 - 1


@pytest.mark.parametrize("k", [3, 4, 10])
def test_pairwise_coupling_recovers_consistent_probabilities(k):
    rng = np.random.default_rng(k)
    p = rng.dirichlet(np.ones(k), size=20)
    r = p[:, :, None] / (p[:, :, None] + p[:, None, :])
    coupled = pr.pairwise_coupling(r)
    # LIBSVM's stopping rule, max_t |(Qp)_t - p'Qp| < 0.005 / k, leaves errors of ~1e-3
    np.testing.assert_allclose(coupled, p, atol=5e-3)
    np.testing.assert_allclose(coupled.sum(axis=1), 1.0, atol=1e-12)
    # one matrix at a time gives the same as the batch
    np.testing.assert_allclose(pr.pairwise_coupling(r[3]), coupled[3], atol=1e-15)


def test_pairwise_coupling_solves_the_quadratic_problem():
    """Inconsistent r: the answer minimises p'Qp over sum(p) = 1, whose solution is
    Q^-1 e / (e' Q^-1 e) (Wu, Lin and Weng 2004, eq. (18)-(21))."""
    rng = np.random.default_rng(3)
    k = 5
    upper = rng.uniform(0.05, 0.95, (k, k))
    r = np.triu(upper, 1) + np.tril(1 - upper.T, -1)
    Q = np.where(np.eye(k, dtype=bool), 0.0, -r.T * r)
    Q[np.diag_indices(k)] = [sum(r[j, t] ** 2 for j in range(k) if j != t)
                             for t in range(k)]
    exact = np.linalg.solve(Q, np.ones(k))
    exact /= exact.sum()
    np.testing.assert_allclose(pr.pairwise_coupling(r), exact, atol=5e-3)


def test_class_probabilities_as_libsvm_from_its_own_decision_values():
    """Given LIBSVM's decision values and probA/probB, the sigmoids, the clipping and
    the coupling give LIBSVM's svm_predict_probability to rounding."""
    X, y = load_dataset("pendigits", n_rows=600)
    Xt, _ = load_dataset("pendigits.t", n_rows=300)
    peer = libsvm_train(X, y, probability=True, **PENDIGITS)
    labels, theirs = libsvm_predict_proba(peer, Xt)
    A, B = peer_prob(peer, 45)
    ours = pr.class_probabilities(libsvm_decision(peer, Xt), A, B, 10)
    np.testing.assert_allclose(ours, theirs, atol=1e-12)
    np.testing.assert_array_equal(np.array(peer.get_labels())[ours.argmax(axis=1)], labels)


def test_laplace_scale_drops_outliers():
    z = np.array([1.0, -1.0, 2.0, -2.0, 1000.0])
    mae = np.abs(z).mean()                    # 201.2: sqrt(2)*201.2*5 keeps all
    assert pr.laplace_scale(z) == pytest.approx(mae)
    z = np.concatenate([np.full(99, 1.0), [100.0]])  # mae 1.99, cut at 14.07
    assert pr.laplace_scale(z) == pytest.approx(1.0)


def test_density_marks_and_their_probability():
    dec = np.linspace(-1.0, 2.0, 31)
    marks = pr.one_class_density_marks(dec)
    assert marks.shape == (10,) and np.all(np.diff(marks) > 0)
    assert marks[4] < 0 < marks[5]
    p = pr.one_class_probability(np.linspace(-3, 3, 601), marks)
    assert p[0] == 0.001 and p[-1] == 0.999 and np.all(np.diff(p) >= 0)
    assert set(np.round(p, 3)) == {0.001, 0.999} | {i / 10 for i in range(1, 10)}
    with pytest.warns(UserWarning, match="too few"):
        assert pr.one_class_density_marks(np.array([-1.0, 0.5, 1, 2, 3, 4, 5])) is None


def test_folds_partition_the_rows():
    rng = np.random.default_rng(0)
    folds = pr.random_folds(23, 5, rng)
    assert sorted(len(f) for f in folds) == [4, 4, 5, 5, 5]
    np.testing.assert_array_equal(np.sort(np.concatenate(folds)), np.arange(23))
    for train, test in pr.out_of_fold(folds, 23):
        assert len(np.intersect1d(train, test)) == 0 and len(train) + len(test) == 23


@pytest.mark.parametrize("bad,error", [
    (-1, ValueError), (1.5, TypeError), ("0", TypeError), (True, TypeError),
    (np.random.RandomState(0), TypeError)])
def test_random_state_is_checked(heart_scale, bad, error):
    X, y = heart_scale
    with pytest.raises(error, match="random_state"):
        libsmo.train(X, y, probability=True, random_state=bad)


# --- against LIBSVM ------------------------------------------------------------------


@pytest.mark.parametrize("params", [
    {"svm_type": "c_svc"},
    {"svm_type": "c_svc", "kernel": "linear", "C": 0.5, "class_weight": {1: 2.0}},
    {"svm_type": "nu_svc", "nu": 0.4},
], ids=["c_svc", "c_svc-linear-weighted", "nu_svc"])
@pytest.mark.parametrize("seed", [1, 7])
def test_heart_scale_probabilities_as_libsvm(params, seed):
    """svm-train -b 1's folds drawn after srand(seed), and libsmo's from
    LibsvmRandom(seed): the same Platt sigmoids and probabilities, to rounding."""
    X, y = load_dataset("heart_scale")
    kernel = params.get("kernel", "rbf")
    libsvm_seed(seed)
    peer = libsvm_train(X, y, probability=True, **params)
    _, theirs = libsvm_predict_proba(peer, X, kernel)
    model = libsmo.train(X, y, probability=True, random_state=libsmo.LibsvmRandom(seed),
                         **params)
    A, B = peer_prob(peer, 1)
    np.testing.assert_allclose(model.probA, A, rtol=1e-9)
    np.testing.assert_allclose(model.probB, B, rtol=1e-9, atol=1e-12)
    ours = model.predict_proba(X)
    assert_valid_probabilities(ours, 2)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


def test_pendigits_probabilities_as_libsvm():
    """Ten classes, 45 pairs: each pair's folds continue the rand() sequence where the
    previous pair's ended, in both libraries: the 45 sigmoids and the coupled
    probabilities are LIBSVM's to rounding (5e-16 and 2e-14 here)."""
    X, y = load_dataset("pendigits", n_rows=2000)
    Xt, _ = load_dataset("pendigits.t", n_rows=1000)
    libsvm_seed(1)
    peer = libsvm_train(X, y, probability=True, **PENDIGITS)
    labels_theirs, theirs = libsvm_predict_proba(peer, Xt)
    model = libsmo.train(X, y, probability=True, random_state=libsmo.LibsvmRandom(1),
                         **PENDIGITS)
    np.testing.assert_array_equal(model.classes, peer.get_labels())
    A, B = peer_prob(peer, 45)
    np.testing.assert_allclose(model.probA, A, rtol=1e-9)
    np.testing.assert_allclose(model.probB, B, rtol=1e-9, atol=1e-12)
    ours = model.predict_proba(Xt)
    assert_valid_probabilities(ours, 10)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    # svm-predict -b 1 labels: the most probable class
    np.testing.assert_array_equal(model.classes[ours.argmax(axis=1)], labels_theirs)


def test_same_random_state_same_probabilities():
    X, y = load_dataset("pendigits", n_rows=500)
    first = libsmo.train(X, y, probability=True, random_state=11, **PENDIGITS)
    again = libsmo.train(X, y, probability=True, random_state=11, **PENDIGITS)
    other = libsmo.train(X, y, probability=True, random_state=12, **PENDIGITS)
    np.testing.assert_array_equal(first.probA, again.probA)
    np.testing.assert_array_equal(first.probB, again.probB)
    np.testing.assert_array_equal(first.predict_proba(X), again.predict_proba(X))
    assert not np.array_equal(first.probA, other.probA)
    # a Generator is used as given: the same seed, the same stream
    from_generator = libsmo.train(X, y, probability=True,
                                  random_state=np.random.default_rng(11), **PENDIGITS)
    np.testing.assert_array_equal(first.probA, from_generator.probA)
    # the model itself does not depend on the folds
    np.testing.assert_array_equal(first.rho, other.rho)
    assert len(first.n_iter) == len(first.rho) == 45  # folds' training not recorded


def test_dense_sparse_and_precomputed_agree(heart_scale):
    X, y = heart_scale
    # kernel rows for all three (the precomputed kernel has no primal weights)
    sparse = libsmo.train(X, y, kernel="linear", probability=True, random_state=3,
                          linear_solver="kernel")
    dense = libsmo.train(X.toarray(), y, kernel="linear", probability=True, random_state=3,
                         linear_solver="kernel")
    gram = (X @ X.T).toarray()
    pre = libsmo.train(gram, y, kernel="precomputed", probability=True, random_state=3)
    for model in (dense, pre):
        np.testing.assert_allclose(model.probA, sparse.probA, rtol=1e-6)
        np.testing.assert_allclose(model.probB, sparse.probB, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(pre.predict_proba(gram), sparse.predict_proba(X), atol=1e-7)


def test_probabilities_are_clipped():
    """Rows far beyond the data: every pairwise probability is clipped to
    [1e-7, 1 - 1e-7] before coupling, as LIBSVM."""
    X, y = load_dataset("heart_scale")
    model = libsmo.train(X, y, kernel="linear", probability=True, random_state=0)
    far = sp.csr_matrix(X[:20].toarray() * 1e4)
    P = model.predict_proba(far)
    assert_valid_probabilities(P, 2)
    assert set(np.round(P.min(axis=1) / pr.MIN_PROB, 6)) == {1.0}


def test_predict_proba_needs_a_probability_model(heart_scale):
    X, y = heart_scale
    with pytest.raises(ValueError, match="probability=True"):
        libsmo.train(X, y).predict_proba(X)
    svr = libsmo.train(X, y, svm_type="epsilon_svr", probability=True, random_state=0)
    with pytest.raises(ValueError, match="Laplace"):
        svr.predict_proba(X)
    with pytest.raises(TypeError, match="probability"):
        libsmo.train(X, y, probability="yes")


@pytest.mark.parametrize("svm_type,params", [
    ("epsilon_svr", {"C": 10.0, "epsilon": 0.5}),
    ("nu_svr", {"C": 10.0, "nu": 0.4}),
], ids=["epsilon_svr", "nu_svr"])
def test_svr_laplace_scale_as_libsvm(svm_type, params):
    """svm-train -b 1's five folds after srand(1) and LibsvmRandom(1): the same Laplace
    scale, to rounding."""
    X, y = load_dataset("housing_scale")
    libsvm_seed(1)
    peer = libsvm_train(X, y, svm_type=svm_type, probability=True, **params)
    model = libsmo.train(X, y, svm_type=svm_type, probability=True,
                         random_state=libsmo.LibsvmRandom(1), **params)
    assert model.probB is None and model.probA.shape == (1,)
    np.testing.assert_allclose(model.probA[0], peer.probA[0], rtol=1e-9)


def test_one_class_density_marks_as_libsvm():
    X, y = load_dataset("heart_scale")
    peer = libsvm_train(X, y, svm_type="one_class", nu=0.2, probability=True)
    model = libsmo.train(X, svm_type="one_class", nu=0.2, probability=True)
    marks = np.array([peer.prob_density_marks[i] for i in range(10)])
    np.testing.assert_allclose(model.prob_density_marks, marks, atol=1e-6)
    Xt = sp.vstack([X, sp.csr_matrix(X[:50].toarray() * 3)]).tocsr()
    labels_theirs, theirs = libsvm_predict_proba(peer, Xt)
    ours = model.predict_proba(Xt)
    dec = model.decision_function(Xt)
    # identical except where a decision value sits on a mark (within the solver's noise)
    near_mark = np.abs(dec[:, None] - marks[None, :]).min(axis=1) < 1e-6
    np.testing.assert_array_equal(ours[~near_mark], theirs[~near_mark])
    assert ours.min() >= 0 and ours.max() <= 1
    np.testing.assert_allclose(ours.sum(axis=1), 1.0)
    order = np.argsort(dec)
    assert np.all(np.diff(ours[order, 0]) >= 0)  # monotone in the decision value


def test_one_class_with_too_few_outliers_has_no_marks(heart_scale):
    X, _ = heart_scale
    X = X[:8]  # 8 decision values: fewer than 5 on one side of 0
    with pytest.warns(UserWarning, match="too few"):
        model = libsmo.train(X, svm_type="one_class", nu=0.5, probability=True)
    assert model.prob_density_marks is None
    with pytest.raises(ValueError, match="prob_density_marks"):
        model.predict_proba(X)
