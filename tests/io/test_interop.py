"""Model files between libsmo and LIBSVM, both ways, with both peers.

Peers: Debian's svm-train / svm-predict (LIBSVM 3.24, found on PATH) and
libsvm-official (LIBSVM 3.37, in this process). For every svm_type x kernel LIBSVM has
(-s 0..4, -t 0..4) on heart_scale and on a second set (a 300-row subset of pendigits
scaled to [0, 1] for classification and one-class, housing_scale for the regressions),
plus probability models (-b 1):

- LIBSVM -> libsmo: a model written by svm-train or by libsvm-official and read by
  `libsmo.load_model` gives LIBSVM's decision values (libsvm-official's C
  svm_predict_values on the same file, 1e-12) and LIBSVM's labels (svm-predict's
  output file and libsvm-official's svm_predict), and probabilities;
- `libsmo.save_model(load_model(f), g, libsvm_precision=True)` gives f back byte for byte;
- libsmo -> LIBSVM: that model saved by libsmo (lossless) makes svm-predict write the
  same output file as the original does, and a model trained by `libsmo.train` and
  saved is read by svm-predict and libsvm-official with libsmo's own predictions.

svm-predict 3.24 does not know 3.37's prob_density_marks (one-class -b 1), and
svm-train 3.24 refuses one-class -b 1: those cases use libsvm-official only. Otherwise
the two writers agree: on these data every -b 0 model file of svm-train 3.24 equals
libsvm-official 3.37's byte for byte, and -b 1 files differ only in the probA/probB
values (each draws its own cross-validation folds).
"""
import os
import shutil
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.svm as sk
from libsvm import svmutil

import libsmo
from helpers.data import UNDER_CI, data_file, load_dataset
from helpers.peers import libsvm_decision, libsvm_predict, libsvm_predict_proba

SVM_TYPES = ["c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr"]
KERNELS = ["linear", "poly", "rbf", "sigmoid", "precomputed"]
TYPE_CODES = {t: i for i, t in enumerate(SVM_TYPES)}
KERNEL_CODES = {k: i for i, k in enumerate(KERNELS)}
TRAINERS = ["svm-train", "libsvm-official"]
REGRESSION = ("epsilon_svr", "nu_svr")
CLASSIFICATION = ("c_svc", "nu_svc")


def second_set(svm_type):
    return "housing" if svm_type in REGRESSION else "pendigits"


PLAIN_CASES = [(t, k, d, False) for t in SVM_TYPES for k in KERNELS
               for d in ("heart", second_set(t))]
PROBABILITY_CASES = [("c_svc", "rbf", "heart", True),
                     ("c_svc", "linear", "pendigits", True),
                     ("nu_svc", "poly", "heart", True), ("one_class", "rbf", "heart", True),
                     ("one_class", "linear", "pendigits", True),
                     ("epsilon_svr", "rbf", "housing", True),
                     ("nu_svr", "sigmoid", "heart", True),
                     ("c_svc", "precomputed", "heart", True)]
CASES = PLAIN_CASES + PROBABILITY_CASES


def case_id(case):
    svm_type, kernel, data, probability = case
    return f"{svm_type}-{kernel}-{data}" + ("-b1" if probability else "")


def need_tools():
    missing = [t for t in ("svm-train", "svm-predict") if shutil.which(t) is None]
    if missing:
        reason = (f"LIBSVM's command-line tools are not installed ({', '.join(missing)}; "
                  "Debian package libsvm-tools)")
        if UNDER_CI:
            pytest.fail(reason)
        pytest.skip(reason)


def run(*args):
    result = subprocess.run(args, capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert result.returncode == 0, f"{' '.join(map(str, args))}: {result.stderr}"
    return result.stdout


def svm_predict(data_path, model_path, out_path, probability=False):
    """svm-predict's output file: labels (or values), and probabilities with -b 1."""
    run("svm-predict", "-b", str(int(probability)), str(data_path), str(model_path),
        str(out_path))
    lines = out_path.read_text().split("\n")
    if probability and lines[0].startswith("labels"):
        rows = np.array([[float(v) for v in line.split()] for line in lines[1:] if line])
        return rows[:, 0], rows[:, 1:]
    return np.array([float(v) for v in lines if v]), None


class Data:
    """A data set as a file for svm-train/svm-predict and as arrays for libsmo."""

    def __init__(self, path, X, y, kernel_path, K):
        self.path, self.X, self.y = path, X, y
        self.kernel_path, self.K = kernel_path, K

    def file(self, kernel):
        return self.kernel_path if kernel == "precomputed" else self.path

    def rows(self, kernel, model=None):
        """What libsmo predicts on: X, or the Gram matrix (for a model read from a
        file only its first n_features columns: the file knows the training rows only
        up to its last support vector)."""
        if kernel != "precomputed":
            return self.X
        return self.K if model is None else self.K[:, :model.n_features]


def _rbf_gram(X, gamma):
    X = X.toarray()
    sq = (X * X).sum(1)
    return np.exp(-gamma * np.maximum(sq[:, None] + sq[None] - 2 * X @ X.T, 0))


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    folder = tmp_path_factory.mktemp("interop_data")
    out = {}
    sources = {"heart": load_dataset("heart_scale"),
               "housing": load_dataset("housing_scale")}
    X, y = load_dataset("pendigits", n_rows=300)
    sources["pendigits"] = (X / 100.0, y)
    for name, (X, y) in sources.items():
        path = folder / name
        libsmo.dump_svmlight_file(X, y, path)
        K = _rbf_gram(X, 1.0 / X.shape[1])
        kernel_path = folder / f"{name}.kernel"
        serials = np.arange(1, X.shape[0] + 1, dtype=float)[:, None]
        libsmo.dump_svmlight_file(np.hstack([serials, K]), y, kernel_path, zero_based=True)
        out[name] = Data(path, X, y, kernel_path, K)
    return out


class LibsvmModels:
    """Model files written by each peer, trained once per case."""

    def __init__(self, folder, datasets):
        self.folder, self.datasets, self.cache = folder, datasets, {}

    def get(self, trainer, case):
        key = (trainer, case)
        if key not in self.cache:
            svm_type, kernel, data, probability = case
            path = self.folder / (f"{trainer}-{case_id(case)}.model")
            source = self.datasets[data].file(kernel)
            options = (f"-s {TYPE_CODES[svm_type]} -t {KERNEL_CODES[kernel]} "
                       f"-b {int(probability)} -q")
            if trainer == "svm-train":
                run("svm-train", *options.split(), str(source), str(path))
            else:
                y, x = svmutil.svm_read_problem(str(source))
                svmutil.svm_save_model(str(path), svmutil.svm_train(y, x, options))
            self.cache[key] = path
        return self.cache[key]


@pytest.fixture(scope="module")
def libsvm_models(tmp_path_factory, datasets):
    return LibsvmModels(tmp_path_factory.mktemp("interop_models"), datasets)


def one_class_probability(case):
    svm_type, _, _, probability = case
    return svm_type == "one_class" and probability


# Debian's svm-train and svm-predict are LIBSVM 3.24, which has no one-class
# probabilities (prob_density_marks came with 3.30): such a model is trained by
# libsvm-official (3.37) only, and no test hands its file to the 3.24 tools. The pairs
# are left out of the parameters rather than skipped, so that no test id stands for a
# check that never runs.
TRAINER_CASES = [pytest.param(trainer, case, id=f"{case_id(case)}-{trainer}")
                 for case in CASES for trainer in TRAINERS
                 if not (trainer == "svm-train" and one_class_probability(case))]
FOR_SVM_PREDICT_324 = [param for param in TRAINER_CASES
                       if not one_class_probability(param.values[1])]


def assert_same_decisions(ours, theirs, model):
    """1e-12 relative, or absolute relative to the size of the terms summed (a
    one-class value of 1 can be 600 - 599: rho sets the scale of the rounding)."""
    scale = max(1.0, float(np.abs(model.rho).max()) if model.rho.size else 0.0)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12 * scale)


def assert_same_labels(ours, theirs, decision):
    """Equal labels, except (at most a handful) where a decision value is zero to
    rounding, where the two sums may fall on either side."""
    differ = np.flatnonzero(ours != theirs)
    if len(differ):
        near_zero = np.abs(np.atleast_2d(decision.T).T[differ]).min(axis=-1) < 1e-9
        assert near_zero.all() and len(differ) <= 2, (differ, ours[differ], theirs[differ])


def predictions_close(svm_type, ours, theirs, decision):
    if svm_type in REGRESSION:
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    else:
        assert_same_labels(ours, theirs, decision)


# ------------------------------------------------------------------ LIBSVM -> libsmo

@pytest.mark.parametrize("trainer,case", TRAINER_CASES)
def test_libsvm_model_gives_libsvm_predictions(trainer, case, datasets, libsvm_models,
                                               tmp_path):
    need_tools()
    svm_type, kernel, data_name, probability = case
    data = datasets[data_name]
    path = libsvm_models.get(trainer, case)
    model = libsmo.load_model(path)
    assert model.svm_type == svm_type and model.kernel == kernel
    if kernel != "precomputed":
        assert sp.isspmatrix_csr(model.support_vectors)
    rows = data.rows(kernel, model)
    reference = svmutil.svm_load_model(str(path))  # LIBSVM 3.37's reader and predictor
    decision = model.decision_function(rows)
    theirs = libsvm_decision(reference, data.rows(kernel), kernel)
    assert_same_decisions(decision, theirs, model)
    predicted = model.predict(rows)
    predictions_close(svm_type, predicted, libsvm_predict(reference, data.rows(kernel),
                                                          kernel), decision)
    readable_by_324 = not (svm_type == "one_class" and probability)
    if readable_by_324:
        labels, _ = svm_predict(data.file(kernel), path, tmp_path / "out")
        predictions_close(svm_type, predicted, labels, decision)
    if probability and svm_type in CLASSIFICATION + ("one_class",):
        proba = model.predict_proba(rows)
        labels_b, proba_ref = libsvm_predict_proba(reference, data.rows(kernel), kernel)
        np.testing.assert_allclose(proba, proba_ref, rtol=1e-9, atol=1e-12)
        if svm_type != "one_class":
            assert_same_labels(model.classes[np.argmax(proba, axis=1)], labels_b, decision)
            labels_p, proba_p = svm_predict(data.file(kernel), path, tmp_path / "outb",
                                            probability=True)
            np.testing.assert_allclose(proba, proba_p, rtol=1e-5, atol=1e-6)  # %g text
    if probability and svm_type in REGRESSION:
        assert model.probA[0] == svmutil.libsvm.svm_get_svr_probability(reference)


@pytest.mark.parametrize("trainer,case", TRAINER_CASES)
def test_libsvm_model_saved_back_byte_for_byte(trainer, case, libsvm_models, tmp_path):
    need_tools()
    path = libsvm_models.get(trainer, case)
    out = tmp_path / "again.model"
    libsmo.save_model(libsmo.load_model(path), out, libsvm_precision=True)
    assert out.read_bytes() == path.read_bytes()


@pytest.mark.parametrize("trainer,case", FOR_SVM_PREDICT_324)
def test_resaved_libsvm_model_predicts_the_same_in_svm_predict(trainer, case, datasets,
                                                               libsvm_models, tmp_path):
    """Saved losslessly (libsmo's default), svm-predict's output file is unchanged."""
    need_tools()
    svm_type, kernel, data_name, probability = case
    path = libsvm_models.get(trainer, case)
    resaved = tmp_path / "resaved.model"
    libsmo.save_model(libsmo.load_model(path), resaved)
    source = datasets[data_name].file(kernel)
    flag = str(int(probability))
    outputs = []
    for model_path, out in ((path, tmp_path / "a"), (resaved, tmp_path / "b")):
        run("svm-predict", "-b", flag, str(source), str(model_path), str(out))
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


# ------------------------------------------------------------------ libsmo -> LIBSVM

@pytest.mark.parametrize("case", PLAIN_CASES + [c for c in PROBABILITY_CASES
                                                if c[0] != "one_class"], ids=case_id)
def test_libsmo_model_read_by_libsvm(case, datasets, tmp_path):
    """A model trained by libsmo.train and saved: svm-predict and libsvm-official
    predict what libsmo predicts."""
    need_tools()
    svm_type, kernel, data_name, probability = case
    data = datasets[data_name]
    model = libsmo.train(data.rows(kernel), data.y, svm_type=svm_type, kernel=kernel,
                         probability=probability, random_state=0)
    rows = data.rows(kernel)
    decision = model.decision_function(rows)
    predicted = model.predict(rows)
    path = tmp_path / "libsmo.model"
    libsmo.save_model(model, path)
    reference = svmutil.svm_load_model(str(path))
    assert_same_decisions(decision, libsvm_decision(reference, rows, kernel), model)
    labels, proba = svm_predict(data.file(kernel), path, tmp_path / "out",
                                probability=probability)
    if probability and svm_type in CLASSIFICATION:
        mine = model.predict_proba(rows)
        np.testing.assert_allclose(mine, proba, rtol=1e-5, atol=1e-6)
        _, proba_ref = libsvm_predict_proba(reference, rows, kernel)
        np.testing.assert_allclose(mine, proba_ref, rtol=1e-9, atol=1e-12)
    else:
        predictions_close(svm_type, predicted, labels, decision)
    # LIBSVM's own precision: svm-predict agrees with the model as libsmo reads it back
    short = tmp_path / "libsmo8.model"
    libsmo.save_model(model, short, libsvm_precision=True)
    reread = libsmo.load_model(short)
    labels8, _ = svm_predict(data.file(kernel), short, tmp_path / "out8")
    predictions_close(svm_type, reread.predict(data.rows(kernel, reread)), labels8,
                      decision)


def test_one_class_probability_model_from_libsmo(datasets, tmp_path):
    """LIBSVM 3.37's density marks: libsvm-official reads libsmo's file with the same
    probabilities (svm-predict 3.24 predates them)."""
    data = datasets["heart"]
    model = libsmo.train(data.X, data.y, svm_type="one_class", probability=True)
    path = tmp_path / "oc.model"
    libsmo.save_model(model, path)
    reference = svmutil.svm_load_model(str(path))
    _, proba = libsvm_predict_proba(reference, data.X)
    np.testing.assert_allclose(model.predict_proba(data.X), proba, rtol=1e-9, atol=1e-12)


def test_data_written_by_libsmo_is_read_by_svm_train(datasets, tmp_path):
    """The writer's lossless numbers are plain C doubles to svm-train: the model it
    trains on libsmo's file equals the one it trains on the original file."""
    need_tools()
    source = data_file("heart_scale")
    X, y = libsmo.load_svmlight_file(source)
    ours = tmp_path / "heart.txt"
    libsmo.dump_svmlight_file(X, y, ours)
    models = []
    for name, data in (("a", source), ("b", ours)):
        run("svm-train", "-q", str(data), str(tmp_path / name))
        models.append((tmp_path / name).read_bytes())
    assert models[0] == models[1]


# ------------------------------------------------------------ LIBSVM file -> estimator

ESTIMATOR_OF = {"c_svc": "SVC", "nu_svc": "NuSVC", "one_class": "OneClassSVM",
                "epsilon_svr": "SVR", "nu_svr": "NuSVR"}
FROM_MODEL_CASES = [("c_svc", "rbf", "heart", False), ("c_svc", "rbf", "pendigits", False),
                    ("c_svc", "linear", "pendigits", True),
                    ("c_svc", "precomputed", "heart", True),
                    ("nu_svc", "poly", "pendigits", False), ("nu_svc", "poly", "heart", True),
                    ("one_class", "rbf", "heart", False),
                    ("epsilon_svr", "rbf", "housing", False),
                    ("nu_svr", "sigmoid", "heart", False)]


@pytest.mark.parametrize("case", FROM_MODEL_CASES, ids=case_id)
def test_estimator_from_svm_train_model(case, datasets, libsvm_models, tmp_path):
    """`Estimator.from_model(file)` of an svm-train model: svm-predict's labels and
    probabilities, with scikit-learn's sorted classes (LIBSVM's first-appearance order
    reordered: heart_scale's +1 comes first, pendigits' classes are shuffled)."""
    need_tools()
    svm_type, kernel, data_name, probability = case
    data = datasets[data_name]
    path = libsvm_models.get("svm-train", case)
    n_columns = data.X.shape[0] if kernel == "precomputed" else data.X.shape[1]
    cls = getattr(libsmo, ESTIMATOR_OF[svm_type])
    est = cls.from_model(path, n_features=n_columns)
    assert est.kernel == kernel and est.n_features_in_ == n_columns
    rows = data.K if kernel == "precomputed" else data.X.toarray()  # dense: full width
    labels, proba = svm_predict(data.file(kernel), path, tmp_path / "out", probability)
    if svm_type in CLASSIFICATION:
        np.testing.assert_array_equal(est.classes_, np.unique(data.y))
        decision = est.decision_function(rows)
        if probability:
            # svm-predict -b 1 labels by the largest probability, columns in file order
            file_order = np.array(
                (tmp_path / "out").read_text().split("\n")[0].split()[1:], dtype=float)
            np.testing.assert_allclose(est.predict_proba(rows),
                                       proba[:, np.argsort(file_order)], rtol=1e-5, atol=1e-6)
            assert_same_labels(est.classes_[est.predict_proba(rows).argmax(1)], labels,
                               decision)
        else:
            assert_same_labels(est.predict(rows), labels, decision)
        # the votes of the reordered pairs are LIBSVM's votes
        np.testing.assert_array_equal(est.predict(rows),
                                      libsmo.load_model(path).predict(data.rows(kernel)))
    elif svm_type == "one_class":
        np.testing.assert_array_equal(est.predict(rows), labels)
    else:
        np.testing.assert_allclose(est.predict(rows), labels, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("data_name", ["heart", "pendigits"])
def test_estimator_from_model_matches_scikit_learn(data_name, datasets, tmp_path):
    """The reordered model is scikit-learn's: sklearn.svm.SVC fitted on the same data
    gives the same ovo and ovr decision values, intercept_ and dual_coef_ (both solvers
    at tolerance 1e-7, so that their different paths end at the same optimum)."""
    need_tools()
    data = datasets[data_name]
    path = tmp_path / "tight.model"
    run("svm-train", "-q", "-c", "2", "-e", "1e-7", str(data.path), str(path))
    X = data.X.toarray()
    gamma = 1.0 / X.shape[1]   # svm-train's default
    ours = libsmo.SVC.from_model(path, n_features=X.shape[1])
    theirs = sk.SVC(C=2.0, gamma=gamma, tol=1e-7, decision_function_shape="ovo").fit(X, data.y)
    ovo = ours.set_params(decision_function_shape="ovo").decision_function(X)
    np.testing.assert_allclose(ovo, theirs.decision_function(X), atol=1e-5)
    # ovr values count votes: compare rows where no pair's value is within the tolerance
    # of zero, where the two solvers' votes could differ
    clear = np.abs(np.atleast_2d(ovo.T).T).min(axis=1) > 1e-4
    ovr = ours.set_params(decision_function_shape="ovr").decision_function(X)
    theirs.set_params(decision_function_shape="ovr")
    np.testing.assert_allclose(ovr[clear], theirs.decision_function(X)[clear], atol=1e-5)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-5)
    np.testing.assert_array_equal(ours.n_support_, theirs.n_support_)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, atol=1e-4)
    # labels: scikit-learn's, except where two classes tie on votes, which LIBSVM (and
    # so a model read from its file) gives to the class it met first in training
    votes = np.sort(np.rint(ovr), axis=1) if ovr.ndim == 2 else np.zeros((len(X), 2))
    untied = votes[:, -1] > votes[:, -2] if ovr.ndim == 2 else np.ones(len(X), bool)
    np.testing.assert_array_equal(ours.predict(X)[untied], theirs.predict(X)[untied])


def test_estimator_round_trip_through_a_file(datasets, tmp_path):
    """fit -> save -> from_model: the same predictions, decision values and
    probabilities; another estimator type is refused with the right one named."""
    data = datasets["pendigits"]
    fitted = libsmo.SVC(C=3.0, probability=True, random_state=0).fit(data.X, data.y)
    path = tmp_path / "svc.model"
    fitted.save(path)
    loaded = libsmo.SVC.from_model(path, n_features=data.X.shape[1])
    np.testing.assert_array_equal(loaded.predict(data.X), fitted.predict(data.X))
    np.testing.assert_allclose(loaded.decision_function(data.X),
                               fitted.decision_function(data.X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(loaded.predict_proba(data.X), fitted.predict_proba(data.X),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(loaded.to_model().classes, fitted.classes_)
    assert not hasattr(loaded, "support_")   # a model file does not record them
    with pytest.raises(ValueError, match="libsmo.SVC.from_model"):
        libsmo.NuSVC.from_model(path)
    with pytest.raises(ValueError, match="n_features"):
        libsmo.SVC.from_model(path, n_features=3)
    with pytest.raises(TypeError, match="model"):
        libsmo.SVC.from_model(42)
