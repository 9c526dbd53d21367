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
from helpers.data import load_dataset, load_fashion_mnist

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


@pytest.mark.parametrize("name,n_rows,weighted", [
    ("letter.scale", 3000, False), ("letter.scale", 3000, True), ("a1a", None, False),
])
def test_linear_one_class_from_liblinears_start_is_scikit_learns(name, n_rows, weighted,
                                                                 monkeypatch):
    """OneClassSVM(kernel="linear") on the primal weights starts from LIBLINEAR's -s 21
    method (`one_class_cd_start`: on letter by linear_solver="auto", which takes the
    primal solver where the start pays; on a1a by "primal"), and SMO confirms its
    point: scikit-learn's (LIBSVM's) model at tolerance 1e-6 on both sides, sample
    weights (the variables' bounds) too."""
    from libsmo.training import _execution
    starts = []
    original = _execution.one_class_cd_start

    def spy(*args, **kwargs):
        starts.append(original(*args, **kwargs))
        return starts[-1]
    monkeypatch.setattr(_execution, "one_class_cd_start", spy)
    X, _ = load_dataset(name, n_rows=n_rows)
    weight = (np.random.default_rng(0).uniform(0.5, 2.0, X.shape[0]) if weighted
              else None)
    solver = "auto" if name == "letter.scale" else "primal"
    a = libsmo.OneClassSVM(kernel="linear", nu=0.3, tol=1e-6, linear_solver=solver).fit(
        X, sample_weight=weight)
    b = sk.OneClassSVM(kernel="linear", nu=0.3, tol=1e-6).fit(X, sample_weight=weight)
    assert len(starts) == 1
    np.testing.assert_allclose(dense(a.coef_), dense(b.coef_), rtol=0,
                               atol=1e-5 * np.abs(dense(b.coef_)).max())
    scale = np.abs(b.offset_).max()
    np.testing.assert_allclose(a.offset_, b.offset_, rtol=0, atol=1e-5 * scale)
    scores = b.decision_function(X)
    np.testing.assert_allclose(a.decision_function(X), scores, rtol=0, atol=1e-5 * scale)
    sure = np.abs(scores) > 1e-5 * scale
    np.testing.assert_array_equal(a.predict(X)[sure], b.predict(X)[sure])


def test_class_weight_balanced_matches_scikit_learn():
    X, y = load_dataset("a1a")
    a = libsmo.SVC(class_weight="balanced", tol=1e-6).fit(X, y)
    b = sk.SVC(class_weight="balanced", tol=1e-6).fit(X, y)
    np.testing.assert_allclose(a.class_weight_, b.class_weight_)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-5)


def test_classifier_fit_reads_rows_in_libsvm_order_without_copying_x():
    # the classifiers train on their rows in LIBSVM's order (each class's first row,
    # in sorted order, in front) read through an index: a reordered copy of X held the
    # data twice during the fit (Fashion-MNIST 20,000 x 784: 125 MB more than train's)
    import tracemalloc
    rng = np.random.default_rng(5)
    label = rng.integers(0, 3, size=3000)
    label[:3] = [2, 1, 0]       # the first appearances are not the sorted order
    y = np.array(["a", "b", "c"])[label]
    # three clouds apart: few support vectors, whose copy in the model is small
    X = rng.normal(scale=0.1, size=(3000, 300))
    X[:, :3] += 2.0 * np.eye(3)[label]
    w = rng.uniform(0.0, 2.0, size=len(X))
    w[rng.integers(0, len(X), size=100)] = 0.0
    params = dict(C=2.0, gamma=1.0 / 300, tol=1e-6)
    tracemalloc.start()
    try:
        ours = libsmo.SVC(cache_size=1, **params).fit(X, y, sample_weight=w)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert ours.support_.size < len(X) / 10
    assert peak < X.nbytes / 4
    theirs = sk.SVC(**params).fit(X, y, sample_weight=w)
    # scikit-learn's support_ counts the rows of positive weight only
    np.testing.assert_array_equal(ours.support_, np.flatnonzero(w > 0)[theirs.support_])
    np.testing.assert_array_equal(ours.n_support_, theirs.n_support_)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, atol=1e-6)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X),
                               atol=1e-6)


def test_svc_solves_trains_problem_with_scikit_learns_class_order():
    # SVC orders the classes as scikit-learn sorts them (-1 first), train as LIBSVM
    # does (+1 first for -1/+1 labels): SVC on y is train on -y, step for step, and the
    # two orders are two paths to the optimum (Fashion-MNIST 20,000: 11,345 steps
    # against 11,265), not two costs of one path
    X, labels = load_fashion_mnist("train", n_rows=2000)
    y = np.where(np.isin(labels, (0, 2, 4, 6)), 1.0, -1.0)
    gamma = float(1.0 / (784 * X.var()))
    ours = libsmo.SVC(C=10.0, gamma=gamma).fit(X, y)
    flipped = libsmo.train(X, -y, C=10.0, gamma=gamma)
    assert ours.n_iter_.tolist() == flipped.n_iter
    np.testing.assert_array_equal(ours.support_, flipped.support)
    np.testing.assert_array_equal(ours._model.sv_coef, flipped.sv_coef)
    np.testing.assert_array_equal(ours._model.rho, flipped.rho)
    assert ours._model.objective == flipped.objective
    # and scikit-learn's LIBSVM takes that order's steps too
    theirs = sk.SVC(C=10.0, gamma=gamma).fit(X, y)
    assert ours.n_iter_.tolist() == theirs.n_iter_.tolist()
    np.testing.assert_array_equal(ours.support_, theirs.support_)


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


def _label_kinds():
    """Labels of every kind a classifier may be given: plain classes (which libsmo
    recognises without scikit-learn's check_classification_targets) and the others."""
    rng = np.random.default_rng(3)
    n = 40
    ints = rng.integers(0, 3, n)
    return {
        "int": ints, "uint8": ints.astype(np.uint8), "negative": ints - 5,
        "bool": ints > 0, "float": ints.astype(float), "float32": ints.astype(np.float32),
        "float16": ints.astype(np.float16), "str": np.array(["a", "b", "c"])[ints],
        "object str": np.array(["a", "b", "c"], dtype=object)[ints],
        "object int": ints.astype(object), "continuous": ints + 0.5,
        "one fraction": np.where(np.arange(n) == 7, 1.25, ints.astype(float)),
        "huge floats": ints * 1e20, "many classes": np.arange(n) % 30,
        "many floats": (np.arange(n) % 30).astype(float), "two of many": np.arange(n) % 2,
        "one class": np.zeros(n, dtype=int), "list": ints.tolist(),
        "column": ints[:, None],
    }


@pytest.mark.parametrize("kind", list(_label_kinds()))
def test_classifier_labels_are_checked_as_scikit_learn_checks_them(kind):
    """libsmo answers the common labels' check_classification_targets itself: every
    kind of label gets scikit-learn's classes, errors and warnings."""
    y = _label_kinds()[kind]
    X = np.random.default_rng(4).normal(size=(len(y), 3))

    def outcome(cls):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                classes = cls().fit(X, y).classes_
                result = ("fitted", classes.dtype.kind, classes.tolist())
            except ValueError as exc:
                result = ("ValueError", str(exc).split(";")[0])
        names = sorted({(w.category.__name__, str(w.message)) for w in caught
                        if "class" in str(w.message) or "shape" in str(w.message)})
        return result, names

    ours, theirs = outcome(libsmo.SVC), outcome(sk.SVC)
    if kind == "one class":   # the same refusal, in libsmo's words
        assert ours[0][0] == theirs[0][0] == "ValueError"
        return
    assert ours == theirs


def test_class_labels_of_the_fast_check_are_scikit_learns():
    """`sorted_classes` without scikit-learn's check where the labels are plainly
    classes: the same classes and indices as np.unique, and scikit-learn's own
    check (its error) for the others."""
    from sklearn.utils.multiclass import check_classification_targets

    from libsmo.estimators._input import sorted_classes
    for kind, y in _label_kinds().items():
        y = np.asarray(y).ravel() if kind == "column" else np.asarray(y)
        try:
            check_classification_targets(y)
        except ValueError as exc:
            with pytest.raises(ValueError, match="Unknown label type"):
                sorted_classes(y)
            assert "Unknown label type" in str(exc)
            continue
        classes, encoded = sorted_classes(y)
        expected, expected_encoded = np.unique(y, return_inverse=True)
        assert np.array_equal(classes, expected) and classes.dtype == expected.dtype
        assert np.array_equal(encoded, expected_encoded.ravel())


def test_two_class_labels_by_their_extremes_are_np_uniques():
    """Two distinct labels are found from their minimum and maximum
    (`_input._two_classes`): np.unique's classes (dtype, values, and which zero it
    keeps of 0.0 and -0.0) and indices, for every kind of number."""
    from libsmo.estimators._input import sorted_classes
    rng = np.random.default_rng(8)
    picks = rng.integers(0, 2, 50)
    pairs = [(-1.0, 1.0), (0.0, 1.0), (-0.0, 1.0), (-1.0, 0.0), (-1.0, -0.0), (3, 7),
             (0, 1), (False, True), (-2.0**40, 2.0**40), (0.5, 1.5)]
    cases = [np.array(pair)[picks] for pair in pairs]
    cases += [np.array(pair, dtype=dtype)[picks] for pair, dtype in
              [((3, 7), np.int8), ((1, 2), np.uint16), ((-1, 1), np.float32)]]
    cases += [np.array([0.0, -0.0, 1.0, 1.0]), np.array([-0.0, 0.0, 1.0]), np.ones(5)]
    for y in cases:
        expected, expected_encoded = np.unique(y, return_inverse=True)
        if y.dtype.kind == "f" and np.any(y != np.round(y)):
            with pytest.raises(ValueError, match="Unknown label type"):
                sorted_classes(y)
            continue
        classes, encoded = sorted_classes(y)
        assert classes.dtype == expected.dtype and np.array_equal(classes, expected)
        assert np.array_equal(np.signbit(classes.astype(float)),
                              np.signbit(expected.astype(float)))
        assert encoded.dtype == expected_encoded.dtype
        assert np.array_equal(encoded, expected_encoded.ravel())


def test_plain_training_data_skip_scikit_learns_checks_with_its_outcome():
    """Plain arrays at fit (`_input._plain_fit_data`) are taken as validate_data
    would return them, with its attributes (n_features_in_, no feature_names_in_
    after a fit on a data frame); every other input goes through it, as does any
    data that is not finite."""
    import pandas as pd
    from sklearn import config_context
    from sklearn.utils.validation import validate_data

    from libsmo.estimators._input import _plain_fit_data, validate_features
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 4))
    y = rng.integers(0, 3, 30)
    clf = libsmo.SVC().fit(pd.DataFrame(X, columns=list("abcd")), y)
    assert list(clf.feature_names_in_) == list("abcd")
    Xv, yv = validate_features(clf, X, y)
    assert Xv is X and yv is y and clf.n_features_in_ == 4
    assert not hasattr(clf, "feature_names_in_")
    theirs = sk.SVC()
    Xs, ys = validate_data(theirs, X, y, accept_sparse="csr", order="C",
                           accept_large_sparse=False, dtype=[np.float64, np.uint8])
    assert np.array_equal(Xs, Xv) and np.array_equal(ys, yv)
    assert theirs.n_features_in_ == clf.n_features_in_

    plain = [(X, y), (X, y.astype(float)), (X, np.array(list("abc"))[y]), (X[:1], y[:1]),
             (np.asfortranarray(X), y), (X[:, ::2], y)]
    for Xp, yp in plain:
        taken = _plain_fit_data(Xp, yp, None)
        theirs = validate_data(sk.SVC(), Xp, yp, accept_sparse="csr", order="C",
                               accept_large_sparse=False, dtype=[np.float64, np.uint8])[0]
        assert taken.flags.c_contiguous and np.array_equal(taken, theirs)
        # C-ordered data as it is, other orders copied (scikit-learn copies them too)
        assert (taken is Xp) == Xp.flags.c_contiguous
    nan_X, inf_y = X.copy(), y.astype(float)
    nan_X[3, 1], inf_y[2] = np.nan, np.inf
    others = [(X.astype(np.float32), y), (X.tolist(), y),
              (X, y.tolist()), (X, y[:-1]), (X, y[:, None]), (X, y.astype(object)),
              (X[:0], y[:0]), (X[:, :0], y), (nan_X, y), (X, inf_y),
              (pd.DataFrame(X), y), (X, y + 0j)]
    for Xo, yo in others:
        assert _plain_fit_data(Xo, yo, None) is None
    with config_context(assume_finite=True):
        # as validate_data, which then checks nothing
        assert _plain_fit_data(nan_X, y, None) is nan_X
    # the refusals are scikit-learn's own
    for Xo, yo in [(nan_X, y), (X, inf_y), (X[:0], y[:0]), (X, y[:-1])]:
        with pytest.raises(ValueError) as ours:
            libsmo.SVC().fit(Xo, yo)
        with pytest.raises(ValueError) as expected:
            sk.SVC().fit(Xo, yo)
        assert str(ours.value) == str(expected.value)


def test_plain_csr_training_data_skip_scikit_learns_checks_with_its_outcome():
    """CSR rows at a linear estimator's fit (`_input._plain_fit_data` with the
    linear estimators' kept dtypes: values of a kept
    dtype, int32 indices, finite) are X itself, as validate_data returns them, with
    its attributes; any other sparse input, and data that are not finite, go through
    it, with scikit-learn's refusals."""
    import scipy.sparse as spm
    from sklearn import config_context
    from sklearn.utils.validation import validate_data

    from libsmo.estimators._input import _plain_fit_data, validate_features
    kept = [np.float64, np.float32]
    rng = np.random.default_rng(6)
    X = spm.random(40, 7, density=0.3, format="csr", random_state=6)
    X = spm.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                       shape=X.shape)
    y = rng.integers(0, 2, 40)
    for Xp, yp in [(X, y), (X, y.astype(float)), (spm.csr_array(X), y),
                   (X.astype(np.float32), y), (X, np.array(list("ab"))[y])]:
        assert _plain_fit_data(Xp, yp, kept) is Xp
        est = libsmo.LinearSVC()
        Xv, yv = validate_features(est, Xp, yp, dtype=kept)
        theirs = sk.LinearSVC()
        Xs, ys = validate_data(theirs, Xp, yp, accept_sparse="csr", order="C",
                               accept_large_sparse=False, dtype=kept)
        assert Xv is Xs is Xp and np.array_equal(yv, ys)
        assert est.n_features_in_ == theirs.n_features_in_ == 7
    nan_X, inf_y = X.copy(), y.astype(float)
    nan_X.data[3], inf_y[2] = np.nan, np.inf
    wide = X.copy()     # 64-bit index arrays (scipy's constructor would narrow them)
    wide.indices, wide.indptr = X.indices.astype(np.int64), X.indptr.astype(np.int64)
    others = [(X.tocsc(), y), (X.astype(np.int64), y), (wide, y), (X, y[:-1]),
              (X, y[:, None]), (X, y.astype(object)), (X[:0], y[:0]), (nan_X, y),
              (X, inf_y), (X, y + 0j)]
    for Xo, yo in others:
        assert _plain_fit_data(Xo, yo, kept) is None
    # the kernel estimators' fit (no dtype) takes CSR rows through validate_data; dense
    # float64 rows are X itself either way
    assert _plain_fit_data(X, y, None) is None
    dense = X.toarray()
    assert _plain_fit_data(dense, y, kept) is dense
    with config_context(assume_finite=True):
        assert _plain_fit_data(nan_X, y, kept) is nan_X
    for Xo, yo in [(nan_X, y), (X, inf_y), (X[:0], y[:0]), (X, y[:-1])]:
        with pytest.raises(ValueError) as ours:
            libsmo.LinearSVC().fit(Xo, yo)
        with pytest.raises(ValueError) as expected:
            sk.LinearSVC().fit(Xo, yo)
        assert str(ours.value) == str(expected.value)


@pytest.mark.parametrize("make", [lambda: libsmo.SVC(), lambda: libsmo.LinearSVC()],
                         ids=["SVC", "LinearSVC"])
def test_plain_prediction_data_skip_scikit_learns_checks_with_its_outcome(make):
    """Rows at prediction (`_input._plain_predict_data`: dense float64, or CSR with
    values of a kept dtype and int32 indices, finite, as wide as the fit's data, after
    a fit without feature names) are X itself (or its C-ordered copy), as
    validate_data returns them; every other input goes through it, with its
    conversions, warnings and refusals."""
    import warnings

    import pandas as pd
    import scipy.sparse as spm
    from sklearn import config_context
    from sklearn.utils.validation import validate_data

    from libsmo.estimators._input import _plain_predict_data
    rng = np.random.default_rng(7)
    X = rng.normal(size=(30, 4))
    y = rng.integers(0, 2, 30)
    est = make().fit(X, y)
    linear = isinstance(est, libsmo.LinearSVC)
    dtype = [np.float64, np.float32] if linear else None
    S = spm.csr_matrix(np.where(X > 0, X, 0.0))
    plain = [X, X[:1], np.asfortranarray(X), S, spm.csr_array(S)]
    if linear:
        plain.append(S.astype(np.float32))
    for Xp in plain:
        taken = _plain_predict_data(est, Xp, dtype)
        theirs = validate_data(est, Xp, accept_sparse="csr", order="C",
                               accept_large_sparse=False, dtype=dtype or np.float64,
                               reset=False)
        assert type(taken) is type(theirs) and taken.dtype == theirs.dtype
        if spm.issparse(Xp):
            assert taken is Xp and theirs is Xp
        else:
            assert taken.flags.c_contiguous and np.array_equal(taken, theirs)
            assert (taken is Xp) == Xp.flags.c_contiguous
    nan_X = X.copy()
    nan_X[3, 1] = np.nan
    # (dense float32 rows, which the linear estimators keep, go through validate_data)
    others = [X.astype(np.int64), X.astype(np.float32), X.tolist(), X[:0], X[:, :3],
              nan_X, X[0], pd.DataFrame(X), S.tocsc(), S.astype(np.int64)]
    for Xo in others:
        assert _plain_predict_data(est, Xo, dtype) is None
    with config_context(assume_finite=True):
        assert _plain_predict_data(est, nan_X, dtype) is nan_X
    # the refusals and conversions are scikit-learn's own
    theirs = (sk.LinearSVC if linear else sk.SVC)().fit(X, y)
    for Xo in [nan_X, X[:0], X[:, :3], X[0]]:
        with pytest.raises(ValueError) as ours:
            est.predict(Xo)
        with pytest.raises(ValueError) as expected:
            theirs.predict(Xo)
        assert str(ours.value).startswith(str(expected.value))
    assert np.array_equal(est.predict(X.astype(np.int64)),
                          est.predict(X.astype(np.int64).astype(float)))
    # fitted with feature names, plain rows keep scikit-learn's warning
    named = make().fit(pd.DataFrame(X, columns=list("abcd")), y)
    assert _plain_predict_data(named, X, dtype) is None
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        named.predict(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.predict(X)
        named.predict(pd.DataFrame(X, columns=list("abcd")))
