"""libsmo.cross_validation against libsvm-official's svm_train with -v n.

svm_train draws its folds from C's rand(); with ``random_state=libsmo.LibsvmRandom(seed)``
libsmo draws the same folds (glibc's rand() after srand(seed), which
`helpers.peers.libsvm_seed` gives LIBSVM), so the figures are LIBSVM's own, compared
exactly, run by run. With numpy's generator (an int random_state) the folds are
libsmo's own: those tests check the folds' properties, not LIBSVM's figures.
"""
import warnings

import numpy as np
import pytest

import libsmo
from helpers.data import load_dataset
from helpers.peers import SVM_TYPE_CODES, libsvm_seed
from libsmo._utils.libsvm_figures import regression_figures

SEEDS = [1, 2, 3]


def libsvm_cv(X, y, options, seed):
    """LIBSVM's cross-validation figure (accuracy in percent, or MSE) with C's rand()
    seeded `seed`."""
    from libsvm.svmutil import svm_parameter, svm_problem, svm_train
    prob = svm_problem(list(y), X)
    libsvm_seed(seed)
    return svm_train(prob, svm_parameter(options + " -q"))


@pytest.mark.parametrize("svm_type,params,options", [
    ("c_svc", {"C": 1.0}, "-c 1"),
    ("nu_svc", {"nu": 0.4}, "-n 0.4"),
], ids=["c_svc", "nu_svc"])
@pytest.mark.parametrize("seed", SEEDS)
def test_heart_scale_accuracy_as_libsvm(svm_type, params, options, seed):
    X, y = load_dataset("heart_scale")
    ours = libsmo.cross_validation(X, y, 5, random_state=libsmo.LibsvmRandom(seed),
                                   svm_type=svm_type, **params)
    theirs = libsvm_cv(X, y, f"-s {SVM_TYPE_CODES[svm_type]} {options} -v 5", seed)
    # the same number of correct predictions: libsvm-official's Python computes its
    # percentage as 100 * mean(correct), one rounding from svm-train's (and libsmo's)
    # 100.0 * correct / l
    assert int(np.count_nonzero(ours["predictions"] == y)) == round(theirs * len(y) / 100)
    assert ours["accuracy"] == pytest.approx(theirs, rel=1e-14)
    assert 75 <= ours["accuracy"] <= 90


@pytest.mark.parametrize("seed", SEEDS)
def test_housing_scale_mse_as_libsvm(seed):
    X, y = load_dataset("housing_scale")
    result = libsmo.cross_validation(X, y, 5, random_state=libsmo.LibsvmRandom(seed),
                                     svm_type="epsilon_svr", C=10.0, epsilon=0.5)
    theirs = libsvm_cv(X, y, "-s 3 -c 10 -p 0.5 -v 5", seed)
    # the same folds and trainings; the mean of the squared errors summed in LIBSVM's
    # order
    assert result["mse"] == pytest.approx(theirs, rel=1e-12)
    assert result["mse"] == pytest.approx(np.mean((result["predictions"] - y) ** 2))
    assert result["squared_correlation"] == pytest.approx(
        np.corrcoef(result["predictions"], y)[0, 1] ** 2, rel=1e-9)
    assert "accuracy" not in result


@pytest.mark.parametrize("name,n_rows", [("heart_scale", None), ("pendigits", 700)])
def test_folds_are_stratified(name, n_rows):
    X, y = load_dataset(name, n_rows=n_rows)
    result = libsmo.cross_validation(X, y, 5, random_state=0, C=10.0, gamma=1e-4 if
                                     name == "pendigits" else None)
    folds = result["folds"]
    np.testing.assert_array_equal(np.sort(np.concatenate(folds)), np.arange(len(y)))
    classes, counts = np.unique(y, return_counts=True)
    for fold in folds:
        in_fold = np.array([np.count_nonzero(y[fold] == c) for c in classes])
        # each class spread over the folds to within one example of its share
        assert np.all(np.abs(in_fold - counts / 5) < 1.0)
        # and so the fold's class proportions within one example of the overall ones
        assert np.all(np.abs(in_fold - len(fold) * counts / len(y)) <= 1.0)
    assert result["accuracy"] == pytest.approx(100 * np.mean(result["predictions"] == y))


def test_reproducible_with_random_state():
    X, y = load_dataset("heart_scale")
    first = libsmo.cross_validation(X, y, 5, random_state=4)
    again = libsmo.cross_validation(X, y, 5, random_state=4)
    other = libsmo.cross_validation(X, y, 5, random_state=5)
    np.testing.assert_array_equal(first["predictions"], again["predictions"])
    for a, b in zip(first["folds"], again["folds"]):
        np.testing.assert_array_equal(a, b)
    assert not all(np.array_equal(a, b) for a, b in zip(first["folds"], other["folds"]))
    from_generator = libsmo.cross_validation(X, y, 5, random_state=np.random.default_rng(4))
    np.testing.assert_array_equal(first["predictions"], from_generator["predictions"])


def test_out_of_fold_predictions_come_from_the_other_folds():
    X, y = load_dataset("heart_scale")
    result = libsmo.cross_validation(X, y, 3, random_state=0, kernel="linear")
    for test in result["folds"]:
        train = np.setdiff1d(np.arange(len(y)), test)
        model = libsmo.train(X[train], y[train], kernel="linear")
        np.testing.assert_array_equal(result["predictions"][test], model.predict(X[test]))


def test_precomputed_kernel_gives_the_same_folds_and_predictions():
    X, y = load_dataset("heart_scale")
    linear = libsmo.cross_validation(X, y, 5, random_state=2, kernel="linear")
    gram = (X @ X.T).toarray()
    pre = libsmo.cross_validation(gram, y, 5, random_state=2, kernel="precomputed")
    np.testing.assert_array_equal(pre["predictions"], linear["predictions"])


def test_probability_predictions_and_other_options():
    X, y = load_dataset("heart_scale")
    weights = np.ones(len(y))
    result = libsmo.cross_validation(X, y, 5, random_state=0, probability=True,
                                     sample_weight=weights, class_weight={1: 1.5})
    assert set(np.unique(result["predictions"])) <= {-1.0, 1.0}
    assert 75 <= result["accuracy"] <= 90
    again = libsmo.cross_validation(X, y, 5, random_state=0, probability=True,
                                    sample_weight=weights, class_weight={1: 1.5})
    np.testing.assert_array_equal(result["predictions"], again["predictions"])


def test_one_class_without_labels():
    X, _ = load_dataset("heart_scale")
    result = libsmo.cross_validation(X, None, 4, random_state=0, svm_type="one_class",
                                     nu=0.3)
    assert set(np.unique(result["predictions"])) == {-1.0, 1.0}
    assert "accuracy" not in result
    assert 0.15 <= np.mean(result["predictions"] < 0) <= 0.5


def test_string_labels_and_leave_one_out():
    X, y = load_dataset("heart_scale", n_rows=12)
    labels = np.where(y > 0, "yes", "no")
    with pytest.warns(UserWarning, match="leave-one-out"):
        result = libsmo.cross_validation(X, labels, 20, random_state=0, kernel="linear")
    assert len(result["folds"]) == 12 and all(len(f) == 1 for f in result["folds"])
    assert result["predictions"].dtype == labels.dtype
    assert set(result["predictions"]) <= {"yes", "no"}


def test_bad_arguments():
    X, y = load_dataset("heart_scale", n_rows=30)
    for n_folds in (1, 0, 2.5, True):
        with pytest.raises(ValueError, match="n_folds"):
            libsmo.cross_validation(X, y, n_folds)
    with pytest.raises(ValueError, match="random_state"):
        libsmo.cross_validation(X, y, 3, random_state=-2)
    with pytest.raises(ValueError, match="y is required"):
        libsmo.cross_validation(X, None, 3)
    with pytest.raises(ValueError, match="svm_type"):
        libsmo.cross_validation(X, y, 3, svm_type="svc")


def test_squared_correlation_is_libsvms_formula():
    rng = np.random.default_rng(0)
    y = rng.normal(size=50)
    v = y + rng.normal(scale=0.5, size=50)
    mse, squared_correlation = regression_figures(y, v)
    assert squared_correlation == pytest.approx(np.corrcoef(y, v)[0, 1] ** 2)
    assert mse == pytest.approx(np.mean((v - y) ** 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(regression_figures(y, np.ones(50))[1])


@pytest.mark.parametrize("kernel", ["rbf", "precomputed"])
def test_fold_blocks_give_the_predictions_of_the_plain_folds(kernel):
    """Folds validated once (`fold_blocks`, as a grid trains them at every C) predict
    what folds cut and validated at each call predict, sample weights included, on a
    data set's rows and on its Gram matrix."""
    from libsmo.training._crossval import fold_blocks, fold_predictions, libsvm_folds
    from libsmo.training._params import TrainParams
    X, y = load_dataset("heart_scale")
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    if kernel == "precomputed":
        X = np.exp(-0.1 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    weights = np.where(np.arange(len(y)) % 3 == 0, 2.0, 1.0)
    folds = libsvm_folds(y, len(y), 5, "c_svc", libsmo.LibsvmRandom(1))
    params = TrainParams.from_kwargs(kernel=kernel, gamma=0.1, C=4.0)
    blocks = fold_blocks(X, y, folds, params, weights)
    assert all(block.training.X.flags.c_contiguous for block in blocks)
    for C in (0.5, 4.0):
        plain = fold_predictions(X, y, folds, params.replace(C=C), sample_weight=weights)
        shared = fold_predictions(X, y, folds, params.replace(C=C), blocks=blocks)
        np.testing.assert_array_equal(shared, plain)


def test_only_a_fold_that_trains_on_one_class_predicts_that_class():
    """A fold whose training rows are all one class predicts that class (LIBSVM's
    one-class-of-data model); every other fold predicts what its model predicts."""
    from libsmo.training._crossval import fold_predictions
    from libsmo.training._params import TrainParams
    X, y = load_dataset("heart_scale")
    labels = np.where(y > 0, "present", "absent")
    absent, present = np.flatnonzero(y < 0), np.flatnonzero(y > 0)
    folds = [absent] + np.array_split(present, 3)
    predictions = fold_predictions(X, labels, folds, TrainParams.from_kwargs(C=2.0))
    assert (predictions[absent] == "present").all()
    for k in range(1, len(folds)):
        rows = np.concatenate([fold for j, fold in enumerate(folds) if j != k])
        model = libsmo.train(X[rows], labels[rows], C=2.0)
        np.testing.assert_array_equal(predictions[folds[k]], model.predict(X[folds[k]]))
        assert set(predictions[folds[k]]) == {"present", "absent"}


@pytest.mark.parametrize("name,n_rows", [("heart_scale", None), ("pendigits", 600)])
def test_gram_blocks_grouped_by_class_take_the_same_steps(name, n_rows):
    """A precomputed kernel's fold blocks hold their training rows regrouped by class
    (`class_grouped`, so that a pair's Q rows are runs of its Gram block): every fit
    then meets the same classes and pairs with the same examples in the same order, so
    it takes the same steps to the same optimum and predicts the same, with two classes
    and with ten."""
    from libsmo.model._probability import out_of_fold
    from libsmo.training._crossval import class_grouped, fold_blocks, libsvm_folds
    from libsmo.training._params import TrainParams
    X, y = load_dataset(name, n_rows=n_rows, dense=True)
    gram = np.exp(-0.05 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    folds = libsvm_folds(y, len(y), 5, "c_svc", libsmo.LibsvmRandom(1))
    params = TrainParams.from_kwargs(kernel="precomputed", C=8.0)
    blocks = fold_blocks(gram, y, folds, params)
    for (train, test), block in zip(out_of_fold(folds, len(y)), blocks):
        grouped = class_grouped(train, y[train])
        assert sorted(grouped) == sorted(train) and not np.array_equal(grouped, train)
        np.testing.assert_array_equal(block.training.y, y[grouped])
        plain = libsmo.train(gram[np.ix_(train, train)], y[train], kernel="precomputed",
                             C=8.0)
        ours = libsmo.train(block.training.X, block.training.y, kernel="precomputed",
                            C=8.0)
        assert ours.n_iter == plain.n_iter and ours.objective == plain.objective
        np.testing.assert_array_equal(ours.classes, plain.classes)
        np.testing.assert_array_equal(grouped[ours.support], train[plain.support])
        np.testing.assert_array_equal(ours.decision_function(block.X_test),
                                      plain.decision_function(gram[np.ix_(test, train)]))


def test_a_training_set_groups_its_classes_once_for_every_fit(monkeypatch):
    """A grid fits each fold's `TrainingSet` at every C: the classes are grouped
    (np.unique) once per set, and each fit is the one `libsmo.train` makes."""
    import libsmo.training._problem
    from libsmo.training._fitting import fit_training_set, training_set_for
    from libsmo.training._params import TrainParams
    X, y = load_dataset("pendigits", n_rows=300)
    calls = []
    group = libsmo.training._problem.group_classes
    monkeypatch.setattr(libsmo.training._problem, "group_classes",
                        lambda labels: calls.append(len(labels)) or group(labels))
    params = TrainParams.from_kwargs(gamma=0.05)
    data = training_set_for(X, y, None, params)
    for C in (0.5, 2.0, 8.0):
        model = fit_training_set(data, params.replace(C=C))
        direct = libsmo.train(X, y, C=C, gamma=0.05)
        assert model.n_iter == direct.n_iter and model.objective == direct.objective
    assert calls == [300, 300, 300, 300]   # this set once, then each train()'s own set
