"""The scikit-learn estimators: scikit-learn's own checks, and the same answers as
scikit-learn's SVC / NuSVC / SVR / NuSVR / OneClassSVM on real data."""
import pickle
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import pytest

import libsmo
from helpers.data import load_dataset

sklearn = pytest.importorskip("sklearn")
from sklearn import svm as sk  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

WEIGHTS_VS_SCALE = (
    "gamma='scale' is computed from the unweighted variance of X, as in scikit-learn, so "
    "repeated rows change gamma itself; with a fixed gamma, weights equal repetition "
    "(test_integer_weights_equal_repetition)")
EXPECTED_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data": WEIGHTS_VS_SCALE,
    "check_sample_weight_equivalence_on_sparse_data": WEIGHTS_VS_SCALE,
}


def dense(a):
    """Both libraries keep dual_coef_ and coef_ sparse after a sparse fit."""
    return a.toarray() if hasattr(a, "toarray") else np.asarray(a)


def expected_failures(estimator):
    failures = dict(EXPECTED_FAILURES)
    if isinstance(estimator, libsmo.NuSVC):
        failures["check_class_weight_classifiers"] = (
            "class_weight is ignored by nu-SVC, as in LIBSVM and scikit-learn")
    return failures


@parametrize_with_checks([libsmo.SVC(), libsmo.NuSVC(), libsmo.SVR(), libsmo.NuSVR(),
                          libsmo.OneClassSVM(), libsmo.SVC(kernel="precomputed"),
                          libsmo.SVR(kernel="precomputed")],
                         expected_failed_checks=expected_failures)
def test_scikit_learn_checks(estimator, check):
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
