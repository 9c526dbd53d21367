"""libsmo.onnx.to_onnx: the five estimators through skl2onnx's SVM converters and back
through onnxruntime, on real data (scikit-learn's bundled breast cancer, wine and
diabetes sets, standardised), against the estimators' own labels, probabilities and
decision values. ONNX's SVM operators compute in float32: values agree to float32's
precision, labels exactly (no row here sits within float32 rounding of a boundary)."""
import numpy as np
import onnxruntime as ort
import pytest
from sklearn import datasets

import libsmo
import libsmo.onnx


def standardised(name):
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X.astype(np.float32), y


def run(onx, X):
    session = ort.InferenceSession(onx.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    outputs = session.run(None, {session.get_inputs()[0].name: X})
    return {o.name: value for o, value in zip(session.get_outputs(), outputs)}


def close(ours, theirs, rtol=2e-5):
    """Float32 agreement, relative to the values' scale."""
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    assert ours.shape == theirs.shape
    scale = max(1.0, float(np.abs(ours).max()))
    np.testing.assert_allclose(theirs, ours, rtol=0, atol=rtol * scale)


@pytest.mark.parametrize("name,estimator", [
    ("breast_cancer", libsmo.SVC(C=2.0)),
    ("breast_cancer", libsmo.SVC(kernel="poly", degree=2, coef0=1.0)),
    ("wine", libsmo.SVC(C=10.0)),
    ("wine", libsmo.NuSVC(nu=0.3)),
], ids=["svc-binary", "svc-binary-poly", "svc-multiclass", "nusvc-multiclass"])
def test_classifier_labels_and_decision_values(name, estimator):
    X, y = standardised(name)
    estimator.fit(X, y)
    out = run(libsmo.onnx.to_onnx(estimator, X, options={"zipmap": False,
                                                         "raw_scores": True}), X)
    np.testing.assert_array_equal(out["label"], estimator.predict(X))
    ours = estimator.decision_function(X)
    # binary: onnxruntime's two columns are (-d, d); more classes: scikit-learn's "ovr"
    close(ours, out["probabilities"][:, 1] if ours.ndim == 1 else out["probabilities"])


@pytest.mark.parametrize("name", ["breast_cancer", "wine"])
def test_classifier_probabilities(name):
    X, y = standardised(name)
    clf = libsmo.SVC(probability=True, random_state=0).fit(X, y)
    out = run(libsmo.onnx.to_onnx(clf, X, options={"zipmap": False}), X)
    np.testing.assert_array_equal(out["label"], clf.predict(X))
    close(clf.predict_proba(X), out["probabilities"])


@pytest.mark.parametrize("estimator", [libsmo.SVR(C=10.0, epsilon=5.0), libsmo.NuSVR(C=10.0)],
                         ids=["svr", "nusvr"])
def test_regression_values(estimator):
    X, y = standardised("diabetes")
    estimator.fit(X, y)
    close(estimator.predict(X), run(libsmo.onnx.to_onnx(estimator, X), X)["variable"][:, 0])


def test_one_class_labels_and_scores():
    X, _ = standardised("breast_cancer")
    detector = libsmo.OneClassSVM(nu=0.1, gamma=0.02).fit(X)
    out = run(libsmo.onnx.to_onnx(detector, X), X)
    np.testing.assert_array_equal(out["label"][:, 0], detector.predict(X))
    close(detector.decision_function(X), out["scores"][:, 0])


def test_default_outputs_and_float64_input():
    """The default options are skl2onnx's (a ZipMap of the probabilities); float64 rows
    give a float64 input and one tensor of probabilities (onnxruntime's ZipMap takes
    float32 only)."""
    X, y = standardised("wine")
    clf = libsmo.SVC(probability=True, random_state=0).fit(X, y)
    out = run(libsmo.onnx.to_onnx(clf, X), X)
    np.testing.assert_array_equal(out["output_label"], clf.predict(X))
    close(clf.predict_proba(X), [[row[c] for c in clf.classes_]
                                 for row in out["output_probability"]])
    X64 = X.astype(np.float64)
    onx = libsmo.onnx.to_onnx(clf, X64)
    out = run(onx, X64)
    np.testing.assert_array_equal(out["label"], clf.predict(X64))
    close(clf.predict_proba(X64), out["probabilities"])


def test_refuses_what_onnx_cannot_compute():
    X, y = standardised("wine")
    with pytest.raises(TypeError, match="kernel='precomputed'"):
        libsmo.onnx.to_onnx(libsmo.SVC(kernel="precomputed").fit(X @ X.T, y), X)
    with pytest.raises(TypeError, match="not RandomFourierFeatures"):
        libsmo.onnx.to_onnx(libsmo.RandomFourierFeatures().fit(X), X)
    from libsmo.estimators._sklearn_compat import NotFittedError
    with pytest.raises(NotFittedError):
        libsmo.onnx.to_onnx(libsmo.SVC(), X)


def sparsified(estimator):
    """`estimator` (fitted) with sparse ``coef_``."""
    return estimator.sparsify()


@pytest.mark.parametrize("name,estimator,after", [
    ("breast_cancer", libsmo.LinearSVC(), None),
    ("breast_cancer", libsmo.LinearSVC(loss="hinge", fit_intercept=False), None),
    ("wine", libsmo.LinearSVC(), None),
    ("wine", libsmo.LinearSVC(multi_class="crammer_singer"), None),
    ("wine", libsmo.LinearSVC(penalty="l1", dual=False, C=0.1), sparsified),
], ids=["binary", "binary-hinge-no-intercept", "one-vs-rest", "crammer-singer",
        "l1-sparse-coef"])
def test_linear_classifier_labels_and_scores(name, estimator, after):
    """LinearSVC through skl2onnx's LinearSVC converter: its labels, and its decision
    values as the "probabilities" (for two classes one column, d)."""
    X, y = standardised(name)
    estimator.fit(X, y)
    if after is not None:
        after(estimator)
    out = run(libsmo.onnx.to_onnx(estimator, X), X)
    np.testing.assert_array_equal(out["label"], estimator.predict(X))
    scores = estimator.decision_function(X)
    close(scores, out["probabilities"][:, 0] if scores.ndim == 1 else out["probabilities"])


def test_linear_classifier_as_scikit_learns():
    """The peer: scikit-learn's LinearSVC, fitted with the same parameters to a tight
    tolerance and converted by skl2onnx itself, gives an ONNX model with the same
    outputs, labels and scores (to the two solvers' tolerance) as libsmo's."""
    from sklearn.svm import LinearSVC
    X, y = standardised("wine")
    params = dict(C=0.5, tol=1e-10, max_iter=100_000, dual=True, random_state=0)
    ours = libsmo.LinearSVC(**params).fit(X, y)
    theirs = LinearSVC(**params).fit(X, y)
    ours_out = run(libsmo.onnx.to_onnx(ours, X), X)
    import skl2onnx
    theirs_out = run(skl2onnx.to_onnx(theirs, X[:1]), X)
    assert list(ours_out) == list(theirs_out) == ["label", "probabilities"]
    np.testing.assert_array_equal(ours_out["label"], theirs_out["label"])
    close(theirs_out["probabilities"], ours_out["probabilities"], rtol=1e-4)


def test_linear_classifier_string_labels_and_pipeline():
    """String labels, and a scikit-learn Pipeline holding a LinearSVC converted by
    skl2onnx.to_onnx after `register_converters`, without options (scikit-learn's
    LinearSVC needs some there: skl2onnx gives the step zipmap=True, which its
    LinearSVC converter refuses)."""
    import skl2onnx
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    X, y = datasets.load_wine(return_X_y=True)
    X = X.astype(np.float32)
    labels = np.array(["barolo", "grignolino", "barbera"])[y]
    pipe = make_pipeline(StandardScaler(), libsmo.LinearSVC()).fit(X, labels)
    libsmo.onnx.register_converters()
    out = run(skl2onnx.to_onnx(pipe, X[:1]), X)
    np.testing.assert_array_equal(out["label"], pipe.predict(X))
    close(pipe.decision_function(X), out["probabilities"])


def test_linear_classifier_options_reach_the_converter():
    """Converter options given for the libsmo estimator reach skl2onnx's LinearSVC
    converter (which converts its scikit-learn twin): "nocl" drops the class labels
    (the label is the class's index), also where the options name the class; an
    option that converter does not know is refused as for scikit-learn's LinearSVC;
    "zipmap", which means nothing without probabilities, is left out."""
    import skl2onnx
    X, y = standardised("wine")
    clf = libsmo.LinearSVC().fit(X, y + 10)
    out = run(libsmo.onnx.to_onnx(clf, X, options={"nocl": True, "zipmap": False}), X)
    np.testing.assert_array_equal(out["label"], clf.predict(X) - 10)
    libsmo.onnx.register_converters()
    by_class = {libsmo.LinearSVC: {"nocl": True}}
    out = run(skl2onnx.to_onnx(clf, X[:1], options=by_class), X)
    np.testing.assert_array_equal(out["label"], clf.predict(X) - 10)
    assert by_class == {libsmo.LinearSVC: {"nocl": True}}
    with pytest.raises(NameError, match="bogus"):
        libsmo.onnx.to_onnx(clf, X, options={"bogus": 1})


@pytest.mark.parametrize("loss", ["epsilon_insensitive", "squared_epsilon_insensitive"])
def test_linear_regression_values(loss):
    """LinearSVR through skl2onnx's LinearSVR converter (ONNX's LinearRegressor), in
    float32 and, exactly to rounding, in float64."""
    X, y = standardised("diabetes")
    reg = libsmo.LinearSVR(loss=loss, C=10.0, epsilon=5.0, dual=True,
                           max_iter=10_000).fit(X, y)
    close(reg.predict(X), run(libsmo.onnx.to_onnx(reg, X), X)["variable"][:, 0])
    X64 = X.astype(np.float64)
    out = run(libsmo.onnx.to_onnx(reg, X64), X64)["variable"][:, 0]
    np.testing.assert_allclose(out, reg.predict(X64), rtol=1e-12, atol=1e-9)


def test_linear_classifier_refuses_float64_rows():
    """skl2onnx writes a LinearSVC's scores for float32 input only (scikit-learn's
    LinearSVC's too): float64 rows are refused by name, not by skl2onnx's
    NotImplementedError from inside the conversion."""
    X, y = standardised("wine")
    clf = libsmo.LinearSVC().fit(X, y)
    with pytest.raises(TypeError, match="float32"):
        libsmo.onnx.to_onnx(clf, X.astype(np.float64))
