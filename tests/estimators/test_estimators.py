"""The scikit-learn estimators: scikit-learn's own checks, and the same answers as
scikit-learn's SVC / NuSVC / SVR / NuSVR / OneClassSVM on real data."""
import pickle
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import pytest
from sklearn import svm as sk
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import libsmo
from helpers.data import load_dataset

WEIGHTS_VS_SCALE = (
    "gamma='scale' is computed from the unweighted variance of X, as in scikit-learn, so "
    "repeated rows change gamma itself; with a fixed gamma, weights equal repetition "
    "(test_integer_weights_equal_repetition)", AssertionError)
NU_INFEASIBLE_WHEN_REPEATED = (
    "the check's repeated rows leave classes of 3 and 10 examples, for which nu=0.5 is "
    "infeasible: refused with LIBSVM's ValueError, as scikit-learn's NuSVC refuses it",
    ValueError)
# check name -> (why it fails on libsmo, the exception it fails with): strict xfails
EXPECTED_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data": WEIGHTS_VS_SCALE,
    "check_sample_weight_equivalence_on_sparse_data": WEIGHTS_VS_SCALE,
}


def dense(a):
    """Both libraries keep dual_coef_ and coef_ sparse after a sparse fit."""
    return a.toarray() if hasattr(a, "toarray") else np.asarray(a)


def expected_failures(estimator):
    """The checks `estimator` fails, each with its reason and exception."""
    if getattr(estimator, "kernel", None) == "precomputed":
        return {}   # the checks that weigh samples do not run on a precomputed kernel
    failures = dict(EXPECTED_FAILURES)
    if isinstance(estimator, libsmo.NuSVC):
        failures["check_class_weight_classifiers"] = (
            "class_weight is ignored by nu-SVC, as in LIBSVM and scikit-learn",
            AssertionError)
        failures["check_sample_weight_equivalence_on_dense_data"] = \
            NU_INFEASIBLE_WHEN_REPEATED
        failures["check_sample_weight_equivalence_on_sparse_data"] = \
            NU_INFEASIBLE_WHEN_REPEATED
    return failures


def check_name(check):
    """The name of one of scikit-learn's checks (a function or a partial of one)."""
    return getattr(check, "func", check).__name__


@parametrize_with_checks([libsmo.SVC(), libsmo.NuSVC(), libsmo.SVR(), libsmo.NuSVR(),
                          libsmo.OneClassSVM(), libsmo.SVC(kernel="precomputed"),
                          libsmo.SVR(kernel="precomputed")])
def test_scikit_learn_checks(estimator, check, request):
    expected = expected_failures(estimator).get(check_name(check))
    if expected is not None:
        reason, raises = expected
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True, raises=raises))
    check(estimator)


# linear_solver="kernel": LIBSVM's path step for step. pendigits' 16 features make a
# linear kernel's optimum a set of alphas sharing one w; the primal solver lands on
# another member of that set (test_linear_primal_solver_matches_scikit_learn).
PAIRS = [
    (libsmo.SVC, sk.SVC, {"C": 2.0}),
    (libsmo.NuSVC, sk.NuSVC, {"nu": 0.4}),
    (libsmo.SVC, sk.SVC, {"C": 1.0, "kernel": "linear"}),
    (libsmo.SVC, sk.SVC, {"C": 1.0, "kernel": "poly", "degree": 2, "gamma": "auto"}),
]


@pytest.mark.parametrize("ours,theirs,params", PAIRS,
                         ids=["SVC-rbf", "NuSVC", "SVC-linear", "SVC-poly"])
@pytest.mark.parametrize("name,n_rows", [("heart_scale", None), ("pendigits", 1200)])
def test_same_answers_as_scikit_learn_classifiers(ours, theirs, params, name, n_rows):
    X, y = load_dataset(name, n_rows=n_rows)
    if name == "pendigits":
        X = X / 100.0
    extra = {"linear_solver": "kernel"} if params.get("kernel") == "linear" else {}
    a = ours(tol=1e-6, **params, **extra).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        b = theirs(tol=1e-6, **params).fit(X, y)
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_array_equal(a.n_support_, b.n_support_)
    np.testing.assert_allclose(dense(a.dual_coef_), dense(b.dual_coef_), atol=1e-5)
    np.testing.assert_allclose(a.intercept_, b.intercept_, atol=1e-5)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-5)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    if params.get("kernel") == "linear":
        np.testing.assert_allclose(dense(a.coef_), dense(b.coef_), atol=1e-5)
    a.set_params(decision_function_shape="ovo")
    b.set_params(decision_function_shape="ovo")
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-5)


@pytest.mark.parametrize("name,n_rows", [("heart_scale", None), ("pendigits", 1200),
                                         ("a1a", None)])
def test_linear_primal_solver_matches_scikit_learn(name, n_rows):
    """The primal weights path: scikit-learn's w (coef_, unique at the optimum),
    intercept_, decision values and labels, at tolerance 1e-6 on both sides."""
    X, y = load_dataset(name, n_rows=n_rows)
    if name == "pendigits":
        X = X / 100.0
    a = libsmo.SVC(kernel="linear", tol=1e-6, linear_solver="primal").fit(X, y)
    b = sk.SVC(kernel="linear", tol=1e-6).fit(X, y)
    np.testing.assert_allclose(dense(a.coef_), dense(b.coef_), atol=1e-4)
    np.testing.assert_allclose(a.intercept_, b.intercept_, atol=1e-4)
    dec_a, dec_b = a.decision_function(X), b.decision_function(X)
    np.testing.assert_allclose(dec_a, dec_b, atol=1e-4)
    unsure = (np.abs(dec_b) < 1e-4) if dec_b.ndim == 1 else np.zeros(len(y), bool)
    np.testing.assert_array_equal(a.predict(X)[~unsure], b.predict(X)[~unsure])


@pytest.mark.parametrize("ours,theirs,params", [
    (libsmo.SVR, sk.SVR, {"C": 10.0, "epsilon": 0.5}),
    (libsmo.NuSVR, sk.NuSVR, {"C": 10.0, "nu": 0.4}),
], ids=["SVR", "NuSVR"])
def test_same_answers_as_scikit_learn_regressors(ours, theirs, params):
    X, y = load_dataset("housing_scale")
    a = ours(tol=1e-6, **params).fit(X, y)
    b = theirs(tol=1e-6, **params).fit(X, y)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_allclose(dense(a.dual_coef_), dense(b.dual_coef_), atol=1e-4)
    np.testing.assert_allclose(a.intercept_, b.intercept_, atol=1e-4)
    np.testing.assert_allclose(a.predict(X), b.predict(X), atol=1e-4)
    assert a.score(X, y) == pytest.approx(b.score(X, y), abs=1e-6)


def test_same_answers_as_scikit_learn_one_class():
    X, _ = load_dataset("heart_scale")
    a = libsmo.OneClassSVM(nu=0.2, tol=1e-6).fit(X)
    b = sk.OneClassSVM(nu=0.2, tol=1e-6).fit(X)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_allclose(dense(a.dual_coef_), dense(b.dual_coef_), atol=1e-5)
    np.testing.assert_allclose(a.offset_, b.offset_, atol=1e-5)
    np.testing.assert_allclose(a.score_samples(X), b.score_samples(X), atol=1e-5)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_class_weight_balanced_matches_scikit_learn():
    X, y = load_dataset("a1a")
    a = libsmo.SVC(class_weight="balanced", tol=1e-6).fit(X, y)
    b = sk.SVC(class_weight="balanced", tol=1e-6).fit(X, y)
    np.testing.assert_allclose(a.class_weight_, b.class_weight_)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-5)


def test_integer_weights_equal_repetition():
    X, y = load_dataset("heart_scale", dense=True)
    w = np.random.default_rng(1).integers(0, 4, size=len(y))
    for Est in (libsmo.SVC, libsmo.SVR, libsmo.OneClassSVM):
        a = Est(gamma=0.1, tol=1e-9).fit(X, y, sample_weight=w)
        b = Est(gamma=0.1, tol=1e-9).fit(X.repeat(w, axis=0), y.repeat(w))
        score = getattr(a, "decision_function", a.predict)
        other = getattr(b, "decision_function", b.predict)
        np.testing.assert_allclose(score(X), other(X), atol=1e-5)


def test_pipeline_grid_search_clone_pickle():
    X, y = load_dataset("heart_scale", dense=True)
    pipe = make_pipeline(StandardScaler(), libsmo.SVC())
    search = GridSearchCV(pipe, {"svc__C": [0.5, 2.0], "svc__gamma": ["scale", 0.01]},
                          cv=3).fit(X, y)
    assert search.best_score_ > 0.75
    model = search.best_estimator_
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    fresh = clone(libsmo.SVC(C=3.0))
    assert fresh.get_params()["C"] == 3.0 and not hasattr(fresh, "support_")


def test_to_model_keeps_labels_and_predictions():
    X, y = load_dataset("pendigits", n_rows=800)
    est = libsmo.SVC(gamma=1e-4).fit(X, y)
    model = est.to_model()
    np.testing.assert_array_equal(model.classes, est.classes_)
    np.testing.assert_array_equal(model.predict(X), est.predict(X))
    np.testing.assert_array_equal(model.support, est.support_)


def test_imports_without_scikit_learn():
    code = (
        "import sys; sys.modules['sklearn'] = None\n"
        "import numpy as np, libsmo\n"
        "from libsmo.estimators import _sklearn_compat\n"
        "assert not _sklearn_compat.HAVE_SKLEARN\n"
        "X = np.random.default_rng(0).normal(size=(40, 3)); y = (X[:, 0] > 0).astype(int)\n"
        "est = libsmo.SVC(C=2.0).fit(X, y)\n"
        "assert est.score(X, y) > 0.8 and est.get_params()['C'] == 2.0\n"
        "print(repr(est.set_params(C=1.0)))\n"
    )
    # a neutral working directory: `python -c` would import the uncompiled source tree
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tempfile.gettempdir())
    assert out.returncode == 0, out.stderr
    assert "SVC(" in out.stdout


def test_max_iter_minus_one_is_no_limit_as_in_sklearn(monkeypatch, heart_scale):
    """max_iter=-1 lifts every cap in the estimators (scikit-learn's copy of LIBSVM has
    none), while libsmo.train's default keeps LIBSVM's and its warning names that cap.
    LIBSVM's cap, max(10^7, 100 l), is lowered to 40 steps here so that a small fit
    reaches it."""
    from libsmo.training import _params
    monkeypatch.setattr(_params, "libsvm_step_cap", lambda n_variables: 40)
    X, y = heart_scale
    with pytest.warns(libsmo.ConvergenceWarning,
                      match=r"LIBSVM's cap max\(10\^7, 100 l\).* of 40 steps reached"):
        capped = libsmo.train(X, y, C=10.0, gamma=0.1)
    assert capped.status == ["max_iter"] and capped.n_iter == [40]
    with warnings.catch_warnings():
        warnings.simplefilter("error", libsmo.ConvergenceWarning)
        ours = libsmo.SVC(C=10.0, gamma=0.1).fit(X, y)
    assert ours.fit_status_ == 0 and ours._model.n_iter[0] > 40
    theirs = sk.SVC(C=10.0, gamma=0.1).fit(X, y)
    np.testing.assert_array_equal(ours.support_, theirs.support_)
    # an explicit cap is the one the warning quotes
    with pytest.warns(libsmo.ConvergenceWarning, match=r"max_iter=25\)"):
        stopped = libsmo.SVC(C=10.0, gamma=0.1, max_iter=25).fit(X, y)
    assert stopped.fit_status_ == 1 and stopped._model.n_iter == [25]


def test_html_repr_links_to_the_api_page():
    """scikit-learn's HTML repr links each estimator to its page of libsmo's API
    documentation (DOC_LINK_TEMPLATE), under the name it is public as."""
    from sklearn.utils._repr_html.estimator import estimator_html_repr

    from libsmo.estimators._sklearn_compat import DOC_LINK_TEMPLATE
    for estimator, public in [(libsmo.SVC(), "libsmo.SVC"), (libsmo.NuSVR(), "libsmo.NuSVR"),
                              (libsmo.RandomFourierFeatures(), "libsmo.RandomFourierFeatures")]:
        url = DOC_LINK_TEMPLATE.format(public_name=public)
        assert estimator._get_doc_link() == url
        assert f'href="{url}"' in estimator_html_repr(estimator)
    pipeline = make_pipeline(StandardScaler(), libsmo.SVC())
    assert DOC_LINK_TEMPLATE.format(public_name="libsmo.SVC") in estimator_html_repr(pipeline)


def test_width_mismatch_between_files_names_both_widths_and_the_fix(tmp_path):
    """a1a (largest index 119) and the repository's rows of a1a.t (121) read one by one
    have different widths; the error names both and the two ways out, which then
    work."""
    from helpers.data import data_file
    train, test = data_file("a1a"), data_file("a1a.t")
    X, y = libsmo.load_svmlight_file(str(train))
    Xt, yt = libsmo.load_svmlight_file(str(test))
    assert (X.shape[1], Xt.shape[1]) == (119, 121)
    clf = libsmo.SVC(kernel="linear").fit(X, y)
    with pytest.raises(ValueError, match=r"^X has 121 features, but SVC is expecting 119 "
                       r"features as input\. .*load_svmlight_files.*n_features=119"):
        clf.score(Xt, yt)
    X, y, Xt, yt = libsmo.load_svmlight_files([str(train), str(test)])
    assert X.shape[1] == Xt.shape[1] == 121
    assert libsmo.SVC(kernel="linear").fit(X, y).score(Xt, yt) > 0.8
    X, y = libsmo.load_svmlight_file(str(train), n_features=121)
    assert libsmo.SVC(kernel="linear").fit(X, y).score(Xt, yt) > 0.8
