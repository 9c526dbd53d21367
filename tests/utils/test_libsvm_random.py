"""LIBSVM's random numbers (`libsmo.LibsvmRandom`): C's rand() as glibc computes it, and
with it svm-train's own folds: its cross-validation figures and its probability models,
compared with Debian's svm-train on real data."""
import ctypes
import re
import shutil
import subprocess

import numpy as np
import pytest

import libsmo
from helpers.data import UNDER_CI, data_file, load_dataset


def need_svm_train():
    if shutil.which("svm-train") is None:
        reason = "Debian's libsvm-tools (svm-train) is not installed"
        if UNDER_CI:
            pytest.fail(reason)
        pytest.skip(reason)


def svm_train(*args, cwd):
    out = subprocess.run(["svm-train", *map(str, args)], capture_output=True, text=True,
                         cwd=cwd, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("seed", [0, 1, 7, 12345, 2**31 - 1, 2**31, 2**32 - 1])
def test_the_sequence_is_glibcs_rand(seed):
    libc = ctypes.CDLL("libc.so.6")
    libc.rand.restype = ctypes.c_int
    libc.srand(ctypes.c_uint(seed))
    theirs = [libc.rand() for _ in range(2000)]
    libc.srand(ctypes.c_uint(1))          # leave the process's rand() as it started
    ours = libsmo.LibsvmRandom(seed)
    assert [ours.rand() for _ in range(2000)] == theirs


def test_shuffles_and_parts_follow_one_sequence():
    a, b = libsmo.LibsvmRandom(), libsmo.LibsvmRandom()
    perm = a.permutation(50)
    assert sorted(perm.tolist()) == list(range(50))
    # LIBSVM's shuffle: j = i + rand() % (n - i), swap(perm[i], perm[j])
    expected = list(range(50))
    for i in range(50):
        j = i + b.rand() % (50 - i)
        expected[i], expected[j] = expected[j], expected[i]
    assert perm.tolist() == expected
    first, second = a.split([10, 20])
    c = libsmo.LibsvmRandom()
    c.skip(50)
    draws = [c.rand() for _ in range(31)]
    assert first.rand() == draws[0] and second.rand() == draws[10] and a.rand() == draws[30]


@pytest.mark.parametrize("seed", ["1", -1, 2**32, 1.5])
def test_bad_seeds(seed):
    with pytest.raises((TypeError, ValueError)):
        libsmo.LibsvmRandom(seed)


@pytest.mark.parametrize("name,options", [
    ("heart_scale", {}),
    ("heart_scale", {"C": 2.0, "gamma": 0.03125}),
    ("heart_scale", {"probability": True}),
    ("housing_scale", {"svm_type": "epsilon_svr", "C": 10.0}),
    ("australian_scale", {"svm_type": "nu_svc", "nu": 0.3}),
], ids=["heart", "heart-c-g", "heart-b1", "housing-svr", "australian-nu"])
def test_cross_validation_with_libsvm_folds_prints_svm_trains_figures(tmp_path, name,
                                                                      options):
    """svm-train -v 5 and libsmo's cross_validation with LibsvmRandom(1): the same
    folds, the same trainings, the same figures to the digits svm-train prints."""
    need_svm_train()
    flags = {"C": "-c", "gamma": "-g", "nu": "-n"}
    args = ["-v", "5"]
    for key, value in options.items():
        if key == "svm_type":
            args += ["-s", str(libsmo._utils.names.SVM_TYPES.index(value))]
        elif key == "probability":
            args += ["-b", "1"]
        else:
            args += [flags[key], repr(value)]
    theirs = svm_train(*args, data_file(name), cwd=tmp_path)
    X, y = load_dataset(name)
    result = libsmo.cross_validation(X, y, 5, random_state=libsmo.LibsvmRandom(), **options)
    if "svm_type" in options and options["svm_type"].endswith("svr"):
        mse = re.search(r"Mean squared error = (\S+)", theirs).group(1)
        corr = re.search(r"Squared correlation coefficient = (\S+)", theirs).group(1)
        assert (f"{result['mse']:g}", f"{result['squared_correlation']:g}") == (mse, corr)
    else:
        accuracy = re.search(r"Cross Validation Accuracy = (\S+)%", theirs).group(1)
        assert f"{result['accuracy']:g}" == accuracy


def test_a_fold_that_trains_on_one_class_predicts_it_as_svm_train(tmp_path):
    """Heart_scale's +1 rows and a single -1 row: the fold that tests the -1 row trains
    on +1 rows alone, and LIBSVM's model of one class predicts that class everywhere.
    The same folds as svm-train -v 5, so the same figure."""
    need_svm_train()
    lines = data_file("heart_scale").read_text().splitlines()
    kept = [line for line in lines if line.split()[0] in ("+1", "1")]
    kept.insert(0, next(line for line in lines if line.split()[0] == "-1"))
    path = tmp_path / "one_negative"
    path.write_text("\n".join(kept) + "\n")
    theirs = svm_train("-v", "5", str(path), cwd=tmp_path)
    X, y = libsmo.load_svmlight_file(str(path))
    assert (y == -1).sum() == 1
    result = libsmo.cross_validation(X, y, 5, random_state=libsmo.LibsvmRandom())
    accuracy = re.search(r"Cross Validation Accuracy = (\S+)%", theirs).group(1)
    assert f"{result['accuracy']:g}" == accuracy
    assert result["predictions"][0] == 1.0


@pytest.mark.parametrize("name,options,svm_type", [
    ("heart_scale", ["-b", "1"], "c_svc"),
    ("housing_scale", ["-s", "3", "-b", "1"], "epsilon_svr"),
], ids=["heart-svc", "housing-svr"])
def test_probability_models_from_svm_trains_folds(tmp_path, name, options, svm_type):
    """-b 1 draws its internal folds from rand(): with LibsvmRandom(1) the Platt
    parameters (or SVR's Laplace scale) are svm-train's to 1e-12."""
    need_svm_train()
    svm_train("-q", *options, data_file(name), "theirs.model", cwd=tmp_path)
    theirs = libsmo.load_model(tmp_path / "theirs.model")
    X, y = load_dataset(name)
    ours = libsmo.train(X, y, svm_type=svm_type, probability=True,
                        random_state=libsmo.LibsvmRandom())
    np.testing.assert_allclose(ours.probA, theirs.probA, rtol=1e-12)
    if theirs.probB is not None:
        np.testing.assert_allclose(ours.probB, theirs.probB, rtol=1e-12)


def test_multi_class_probability_draws_each_pairs_folds_in_order(tmp_path):
    """Pendigits (10 classes, 45 pairs): pair p's folds continue the sequence where pair
    p-1's end, as svm_train draws them; with 2 threads the pairs draw the same."""
    need_svm_train()
    X, y = load_dataset("pendigits", n_rows=600)
    path = tmp_path / "pendigits600"
    libsmo.dump_svmlight_file(X, y, path)
    svm_train("-q", "-b", "1", "-c", "4", "-g", "0.0001", path, "theirs.model", cwd=tmp_path)
    theirs = libsmo.load_model(tmp_path / "theirs.model")
    for threads in (1, 2):
        ours = libsmo.train(X, y, C=4.0, gamma=0.0001, probability=True, n_threads=threads,
                            random_state=libsmo.LibsvmRandom())
        # the same folds; the pairs' solutions at tol 1e-3 and Platt's Newton steps
        # round differently, so the sigmoids agree to about 1e-4
        np.testing.assert_allclose(ours.probA, theirs.probA, rtol=1e-4)
        np.testing.assert_allclose(ours.probB, theirs.probB, atol=1e-3)


def test_two_runs_give_the_same_folds():
    X, y = load_dataset("heart_scale")
    first = libsmo.cross_validation(X, y, 5, random_state=libsmo.LibsvmRandom(3))
    second = libsmo.cross_validation(X, y, 5, random_state=libsmo.LibsvmRandom(3))
    assert first["accuracy"] == second["accuracy"]
    for a, b in zip(first["folds"], second["folds"]):
        np.testing.assert_array_equal(a, b)
