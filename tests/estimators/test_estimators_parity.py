"""The estimators where scikit-learn's own suite found them different (issue 15): sparse
attributes, callable kernels, sample weights of zero or less, C=inf, the ovr tie rule,
scikit-learn's exceptions and warning classes, parameters checked as scikit-learn checks
them. Each on real data against scikit-learn itself."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from sklearn import svm as sk
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils._param_validation import InvalidParameterError

import libsmo
from helpers.data import load_dataset


def dense(a):
    return a.toarray() if sp.issparse(a) else np.asarray(a)


@pytest.mark.parametrize("Est,params", [(libsmo.SVC, {"kernel": "linear"}),
                                        (libsmo.SVC, {}),
                                        (libsmo.SVR, {"kernel": "linear"}),
                                        (libsmo.OneClassSVM, {"kernel": "linear"})],
                         ids=["SVC-linear", "SVC-rbf", "SVR-linear", "OneClass-linear"])
def test_a_sparse_fit_keeps_sparse_attributes_like_scikit_learn(Est, params):
    X, y = load_dataset("heart_scale")          # CSR
    params = dict(params, tol=1e-8)
    extra = {"linear_solver": "kernel"} if Est is not libsmo.SVR and "kernel" in params else {}
    ours = Est(**params, **extra).fit(X, y)
    theirs = getattr(sk, Est.__name__)(**params).fit(X, y)
    assert sp.issparse(ours.support_vectors_) and sp.issparse(ours.dual_coef_)
    np.testing.assert_allclose(dense(ours.dual_coef_), dense(theirs.dual_coef_), atol=1e-5)
    np.testing.assert_array_equal(dense(ours.support_vectors_),
                                  dense(theirs.support_vectors_))
    if params.get("kernel") == "linear":
        assert sp.issparse(ours.coef_)
        np.testing.assert_allclose(dense(ours.coef_), dense(theirs.coef_), atol=1e-5)
    dense_fit = Est(**params, **extra).fit(X.toarray(), y)
    assert not sp.issparse(dense_fit.dual_coef_)
    np.testing.assert_allclose(dense_fit.dual_coef_, dense(ours.dual_coef_), atol=1e-6)


def test_callable_kernel_equals_the_precomputed_and_named_kernel():
    X, y = load_dataset("heart_scale", dense=True)
    gamma = 0.2

    def rbf(A, B):
        sq = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
        return np.exp(-gamma * sq)

    train, test = slice(0, 200), slice(200, None)
    ours = libsmo.SVC(kernel=rbf, C=2.0, tol=1e-8).fit(X[train], y[train])
    theirs = sk.SVC(kernel=rbf, C=2.0, tol=1e-8).fit(X[train], y[train])
    named = libsmo.SVC(kernel="rbf", gamma=gamma, C=2.0, tol=1e-8).fit(X[train], y[train])
    np.testing.assert_array_equal(ours.support_, theirs.support_)
    np.testing.assert_allclose(ours.decision_function(X[test]),
                               theirs.decision_function(X[test]), atol=1e-5)
    np.testing.assert_allclose(ours.decision_function(X[test]),
                               named.decision_function(X[test]), atol=1e-5)
    np.testing.assert_array_equal(ours.predict(X[test]), theirs.predict(X[test]))
    # strings, as scikit-learn's own test feeds them: anything the kernel reads
    words = ["A A", "A", "B", "B B", "A B"]

    def count_kernel(a, b):
        return np.array([[u.count("A") * v.count("A") + u.count("B") * v.count("B")
                          for v in b] for u in a], dtype=float)

    clf = libsmo.SVC(kernel=count_kernel).fit(words, [1, 1, 2, 2, 1])
    assert clf.predict(["A A A", "B B B"]).tolist() == [1, 2]


def test_a_kernel_returning_the_wrong_shape_is_refused_at_fit():
    with pytest.raises(ValueError, match=r"shape \(1, 1\) for 2 x 2 samples"):
        libsmo.SVR(kernel=lambda a, b: np.array([[1.0]])).fit([[0.0], [1.0]], [0.0, 0.5])


@pytest.mark.parametrize("Est", [libsmo.SVC, libsmo.NuSVC, libsmo.SVR])
def test_weights_of_zero_or_less_leave_samples_out_as_scikit_learn(Est):
    X, y = load_dataset("heart_scale")
    w = np.random.default_rng(3).uniform(-1, 2, size=len(y))
    ours = Est(tol=1e-8).fit(X, y, sample_weight=w)
    theirs = getattr(sk, Est.__name__)(tol=1e-8).fit(X, y, sample_weight=w)
    kept = w > 0
    without = Est(tol=1e-8, gamma=ours._gamma).fit(X[kept], y[kept], sample_weight=w[kept])
    # scikit-learn's support_ counts only the samples of positive weight; libsmo's
    # indexes the caller's X
    np.testing.assert_array_equal(ours.support_, np.flatnonzero(kept)[theirs.support_])
    score = "predict" if Est is libsmo.SVR else "decision_function"
    np.testing.assert_allclose(getattr(ours, score)(X), getattr(theirs, score)(X), atol=1e-5)
    np.testing.assert_allclose(getattr(ours, score)(X), getattr(without, score)(X),
                               atol=1e-9)


@pytest.mark.parametrize("Est,message", [
    (libsmo.SVC, "all samples have zero or negative weights"),
    (libsmo.OneClassSVM, "all samples have zero or negative weights"),
])
def test_no_sample_left_is_scikit_learns_error(Est, message):
    X, y = load_dataset("heart_scale")
    with pytest.raises(ValueError, match=message):
        Est().fit(X, y, sample_weight=-np.ones(len(y)))


@pytest.mark.parametrize("Est", [libsmo.SVC, libsmo.LinearSVC, libsmo.LinearSVR])
@pytest.mark.parametrize("bad", [-np.inf, np.inf, np.nan])
def test_a_weight_that_is_not_finite_is_refused_by_name(Est, bad):
    """A negative weight leaves its sample out, as scikit-learn's LIBSVM does, but -inf
    is no weight: it is refused as NaN and +inf are, naming the sample (-inf once
    became a weight of 0, silently). scikit-learn's LinearSVC and LinearSVR refuse all
    three; its SVC trains on them."""
    X, y = load_dataset("heart_scale")
    w = np.ones(len(y))
    w[3] = bad
    with pytest.raises(ValueError, match=r"sample_weight\[3\]"):
        Est().fit(X, y, sample_weight=w)
    if Est is not libsmo.SVC:
        with pytest.raises(ValueError):
            getattr(sk, Est.__name__)().fit(X, y, sample_weight=w)


def test_one_class_left_is_scikit_learns_error():
    X, y = load_dataset("heart_scale")
    w = np.where(y > 0, 1.0, -1.0)
    with pytest.raises(ValueError, match="positive weights belong to the same class"):
        libsmo.SVC().fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="specified nu is infeasible"):
        libsmo.NuSVC().fit(X, y, sample_weight=w)


@pytest.mark.parametrize("Est", [libsmo.SVC, libsmo.SVR])
def test_infinite_C_is_a_hard_margin_as_in_scikit_learn(Est):
    X, y = load_dataset("heart_scale")
    ours = Est(C=np.inf, gamma=0.1, tol=1e-8).fit(X, y)
    theirs = getattr(sk, Est.__name__)(C=np.inf, gamma=0.1, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), atol=1e-5)
    assert libsmo.train(X, y, C=float("inf"), gamma=0.1).objective[0] < 0


def test_ovr_scores_break_exact_ties_as_scikit_learn():
    """Far from every training point an RBF kernel of gamma 1e6 is exactly 0, so every
    pair's decision value is -rho: scikit-learn's tie rule, not LIBSVM's votes, decides
    the ovr scores there, and argmax(ovr) then differs from predict (its own test)."""
    X, y = load_dataset("pendigits", n_rows=300)
    X = X / 100.0
    grid = np.random.default_rng(0).uniform(0, 1, size=(200, X.shape[1]))
    ours = libsmo.SVC(gamma=1e6).fit(X, y)
    theirs = sk.SVC(gamma=1e6).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(grid), theirs.decision_function(grid),
                               atol=1e-9)
    np.testing.assert_array_equal(ours.predict(grid), theirs.predict(grid))


def test_predict_proba_after_switching_probability_on_is_not_fitted_error():
    X, y = load_dataset("heart_scale")
    est = libsmo.SVC().fit(X, y)
    assert not hasattr(est, "predict_proba")
    est.probability = True
    with pytest.raises(NotFittedError, match="fitted with probability=False"):
        est.predict_proba(X)


def test_convergence_warning_is_scikit_learns():
    assert issubclass(libsmo.ConvergenceWarning, ConvergenceWarning)
    X, y = load_dataset("heart_scale")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=ConvergenceWarning)
        libsmo.train(X, y, max_iter=3)       # libsmo's own warning, filtered away
        libsmo.SVC(max_iter=3).fit(X, y)
    with pytest.warns(ConvergenceWarning, match=r"\(max_iter=3\)\.  Consider"):
        libsmo.SVC(max_iter=3).fit(X, y)


@pytest.mark.parametrize("Est,param,value", [
    (libsmo.SVC, "decision_function_shape", "bad"),
    (libsmo.SVC, "probability", "yes"),
    (libsmo.SVC, "random_state", "x"),
    (libsmo.SVC, "kernel", "gauss"),
    (libsmo.SVC, "C", -1.0),
    (libsmo.SVC, "gamma", "often"),
    (libsmo.SVC, "max_iter", -2),
    (libsmo.SVC, "class_weight", "equal"),
    (libsmo.SVC, "break_ties", "no"),
    (libsmo.NuSVC, "nu", 1.5),
    (libsmo.SVR, "epsilon", -0.1),
    (libsmo.NuSVR, "tol", 0),
    (libsmo.OneClassSVM, "cache_size", -5),
    (libsmo.OneClassSVM, "linear_solver", "fast"),
    (libsmo.SVR, "degree", 2.5),
    (libsmo.SVR, "shrinking", "yes"),
])
def test_bad_parameters_are_refused_at_fit_as_scikit_learn_does(Est, param, value):
    X, y = load_dataset("heart_scale")
    est = Est(**{param: value})        # no check in __init__ (scikit-learn's rule)
    with pytest.raises(InvalidParameterError,
                       match=f"'{param}' parameter of {Est.__name__}") as ours:
        est.fit(X, y)
    # scikit-learn refuses the same value, in the same words
    theirs = getattr(sk, Est.__name__)
    if param in theirs().get_params():
        with pytest.raises(InvalidParameterError) as refusal:
            theirs(**{param: value}).fit(X, y)
        assert str(ours.value) == str(refusal.value)


def test_every_parameter_has_a_constraint():
    for Est in (libsmo.SVC, libsmo.NuSVC, libsmo.SVR, libsmo.NuSVR, libsmo.OneClassSVM):
        assert set(Est._parameter_constraints) == set(Est().get_params())


def test_nu_svc_with_a_constant_sigmoid_kernel_is_a_clear_error():
    """scikit-learn: "The dual coefficients or intercepts are not finite"; svm-train
    writes a model whose rho is NaN. Never a ZeroDivisionError: scikit-learn's words,
    then libsmo's reason."""
    X, y = [[50, 60], [70, 80], [60, 90], [80, 50]], [1, 1, -1, -1]
    with pytest.raises(ValueError) as theirs:
        sk.NuSVC(kernel="sigmoid", gamma="auto").fit(X, y)
    with pytest.raises(ValueError, match=r"nu-SVC found no classifier") as ours:
        libsmo.NuSVC(kernel="sigmoid", gamma="auto").fit(X, y)
    assert str(ours.value).startswith(str(theirs.value))
    with pytest.raises(ValueError, match=r"^nu-SVC found no classifier"):
        libsmo.train(X, y, svm_type="nu_svc", kernel="sigmoid", gamma=0.5)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("Est,data,params", [
    (libsmo.NuSVC, "heart_scale", {"nu": 0.1}),
    (libsmo.NuSVC, "pendigits", {"nu": 0.3, "gamma": "scale"}),
    (libsmo.OneClassSVM, "heart_scale", {"nu": 0.1}),
    (libsmo.NuSVR, "bodyfat_scale", {"nu": 0.3, "C": 3.0}),
], ids=["NuSVC", "NuSVC-multiclass", "OneClassSVM", "NuSVR"])
def test_nu_types_start_where_scikit_learn_starts(Est, data, params, weighted):
    # scikit-learn's LIBSVM adds nu * w_i row by row for the starting sum, LIBSVM 3.37
    # multiplies nu by l: for nu = 0.1 on 270 rows the bits differ, and so did the path
    # (heart_scale NuSVC: intercept -0.3648 in 998 steps against -0.4095 in 1,063)
    X, y = load_dataset(data)
    X, y = X[:800].toarray(), y[:800]
    weights = (np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weighted else None)
    fit_y = () if Est is libsmo.OneClassSVM else (y,)
    ours = Est(**params).fit(X, *fit_y, sample_weight=weights)
    theirs = getattr(sk, Est.__name__)(**params).fit(X, *fit_y, sample_weight=weights)
    for name in ("support_", "dual_coef_", "intercept_", "n_iter_"):
        np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name),
                                      err_msg=name)


def test_nu_budget_follows_each_libsvms_arithmetic():
    from libsmo.training._formulations import nu_budget
    weights = np.ones(270)
    assert nu_budget(0.1, 1.0, weights, "libsvm") == 0.1 * 270
    sequential = 0.0
    for w in weights:
        sequential += (w * 1.0) * 0.1
    assert nu_budget(0.1, 1.0, weights, "sklearn") == sequential != 0.1 * 270
    weights = np.random.default_rng(1).uniform(0.5, 2.0, 300)
    sequential = 0.0
    for w in weights:
        sequential += (w * 3.0) * 0.3
    assert nu_budget(0.3, 3.0, weights, "sklearn") == sequential
    assert nu_budget(0.3, 3.0, weights, "libsvm") == (3.0 * 0.3) * weights.sum()


def scikit_learn_bounded(rs, ranges):
    """sklearn/svm/src/newrand's bounded_rand_int, written out scalar by scalar on
    std::mt19937's outputs (a numpy RandomState of the same seed draws them)."""
    out = []
    for r in ranges:
        m = int(rs.randint(0, 2**32, dtype=np.uint64)) * r
        if m % 2**32 < r:
            t = (2**32 - r) % r
            while m % 2**32 < t:
                m = int(rs.randint(0, 2**32, dtype=np.uint64)) * r
        out.append(m >> 32)
    return out


@pytest.mark.parametrize("ranges", [list(range(300, 0, -1)),
                                    # about a third of these draws are rejected
                                    [1431655766] * 200 + [7, 1, 2**31 - 1] * 20])
def test_scikit_learns_random_numbers(ranges):
    from libsmo._utils.random_sources import SklearnRandom
    ours = SklearnRandom(12345)
    assert list(ours.bounded(ranges)) == scikit_learn_bounded(
        np.random.RandomState(12345), ranges)
    # the sequence goes on where it stopped, rejected draws included
    again = np.random.RandomState(12345)
    scikit_learn_bounded(again, ranges)
    assert list(ours.bounded([5, 9, 1431655766])) == scikit_learn_bounded(
        again, [5, 9, 1431655766])


@pytest.mark.parametrize("Est,data,params", [
    (libsmo.SVC, "heart_scale", {}),
    (libsmo.NuSVC, "heart_scale", {"nu": 0.3}),
    (libsmo.SVC, "pendigits", {"C": 10.0}),
], ids=["SVC", "NuSVC", "SVC-multiclass"])
@pytest.mark.parametrize("seed", [0, "RandomState"])
def test_probabilities_are_scikit_learns_for_a_random_state(Est, data, params, seed):
    # scikit-learn seeds its LIBSVM's Mersenne Twister from random_state; each pair's
    # Platt folds start from that seed; its folds train the pair's second class first;
    # two classes' probabilities are coupled as more are
    X, y = load_dataset(data)
    X, y = X[:600].toarray(), y[:600]

    def random_state():
        return np.random.RandomState(3) if seed == "RandomState" else seed
    ours = Est(probability=True, random_state=random_state(), **params).fit(X, y)
    theirs = getattr(sk, Est.__name__)(probability=True, random_state=random_state(),
                                        **params).fit(X, y)
    # Platt's Newton steps run in numpy here: the last bits may differ
    np.testing.assert_allclose(ours.probA_, theirs.probA_, rtol=1e-12)
    np.testing.assert_allclose(ours.probB_, theirs.probB_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X),
                               rtol=0, atol=1e-12)


def test_a_fit_moves_numpys_global_random_state_as_scikit_learns_does():
    X, y = load_dataset("heart_scale")
    draws = []
    saved = np.random.get_state()   # given back: other tests keep what they inherit
    try:
        for module in (libsmo, sk):
            np.random.seed(0)
            module.SVR().fit(X, y)
            module.SVC(probability=True).fit(X, y)
            draws.append(np.random.rand())
    finally:
        np.random.set_state(saved)
    assert draws[0] == draws[1]


def test_one_convergence_warning_per_fit_as_scikit_learn():
    X, y = load_dataset("pendigits")
    X, y = X[:800].toarray(), y[:800]
    counts = []
    for module in (libsmo, sk):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module.SVC(max_iter=50).fit(X, y)      # 45 pairs, most stopped early
        counts.append(sum(issubclass(w.category, ConvergenceWarning) for w in caught))
    assert counts == [1, 1]


def test_callable_kernel_fit_shape_is_the_given_xs():
    X, y = load_dataset("heart_scale")
    X = X.toarray()
    def kernel(A, B):
        return np.asarray(A) @ np.asarray(B).T
    for data in (X, X.tolist()):
        assert (libsmo.SVC(kernel=kernel).fit(data, y).shape_fit_
                == sk.SVC(kernel=kernel).fit(data, y).shape_fit_)


@pytest.mark.parametrize("case", ["nu infeasible", "one class left", "no probability",
                                  "no log probability"])
def test_errors_in_scikit_learns_words(case):
    X, y = load_dataset("heart_scale")
    weights = np.where(y > 0, 1.0, 0.0)

    def attempt(module):
        try:
            if case == "nu infeasible":
                module.NuSVC(nu=0.95).fit(X, y)
            elif case == "one class left":
                module.SVC().fit(X, y, sample_weight=weights)
            else:
                est = module.SVC().fit(X, y)
                getattr(est, "predict_proba" if case == "no probability"
                        else "predict_log_proba")
        except (ValueError, AttributeError) as exc:
            return type(exc), str(exc)
        return None
    theirs, ours = attempt(sk), attempt(libsmo)
    assert theirs is not None and ours[0] is theirs[0]
    # scikit-learn's LIBSVM errors carry bytes: str() shows b'...'
    words = theirs[1][2:-1] if theirs[1].startswith("b'") else theirs[1]
    assert ours[1].startswith(words)     # detail may follow scikit-learn's words


def test_scikit_learns_default_parameters_are_accepted():
    # scikit-learn 1.9's probability default is the string "deprecated", meaning False
    X, y = load_dataset("heart_scale")
    params = sk.SVC().get_params()
    ours = libsmo.SVC(**params).fit(X, y)
    assert not hasattr(ours, "predict_proba")
    np.testing.assert_array_equal(ours.predict(X), sk.SVC(**params).fit(X, y).predict(X))
    with pytest.raises(InvalidParameterError, match="probability"):
        libsmo.SVC(probability="yes").fit(X, y)


@pytest.mark.parametrize("interface", ["spmatrix", "sparray"])
@pytest.mark.parametrize("Est,data", [(libsmo.SVR, "bodyfat_scale"), (libsmo.SVC, "pendigits"),
                                      (libsmo.SVC, "heart_scale")])
def test_sparse_attributes_have_scikit_learns_layout(Est, data, interface):
    X, y = load_dataset(data)      # CSR, int32 indices
    X, y = X[:400], y[:400]
    params = {"kernel": "linear"} if data == "pendigits" else {}
    with sklearn.config_context(sparse_interface=interface):
        ours = Est(**params).fit(X, y)
        theirs = getattr(sk, Est.__name__)(**params).fit(X, y)
        names = ["dual_coef_", "support_vectors_"] + (["coef_"] if params else [])
        for name in names:
            assert type(getattr(ours, name)) is type(getattr(theirs, name)), name
        if params:      # the same products: the same stored layout, column for column
            for name in ("indices", "indptr", "data"):
                np.testing.assert_array_equal(getattr(ours.coef_, name),
                                              getattr(theirs.coef_, name), err_msg=name)
    for name in ("indices", "indptr"):
        assert (getattr(ours.dual_coef_, name).dtype
                == getattr(theirs.dual_coef_, name).dtype), name
    np.testing.assert_array_equal(ours.dual_coef_.toarray(), theirs.dual_coef_.toarray())


def test_class_weight_labels_that_are_not_classes_as_scikit_learn():
    # refused only when some class has no weight; else ignored (LIBSVM warns, goes on)
    X, y = load_dataset("heart_scale")
    for module in (libsmo, sk):
        with pytest.raises(ValueError, match="are not in class_weight"):
            module.SVC(class_weight={5: 2.0}).fit(X, y)
    ours = libsmo.SVC(class_weight={1: 2.0, -1: 1.0, 5: 3.0}).fit(X, y)
    theirs = sk.SVC(class_weight={1: 2.0, -1: 1.0, 5: 3.0}).fit(X, y)
    np.testing.assert_array_equal(ours.class_weight_, theirs.class_weight_)
    np.testing.assert_array_equal(ours.dual_coef_.toarray(), theirs.dual_coef_.toarray())
