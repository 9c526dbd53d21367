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
