"""LIBLINEAR's model files (libsmo.io.liblinear_model): written as LIBLINEAR 2.50's
save_model writes them, read as its load_model reads them, and refused with the file
and line named where LIBLINEAR would misread them."""
import io
import math

import numpy as np
import pytest

from libsmo.io.liblinear_model import (
    LiblinearModel,
    liblinear_model_to_bytes,
    load_liblinear_model,
    save_liblinear_model,
)

BINARY = (b"solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 2\n"
          b"bias 1\nw\n0.5 \n-0.25 \n0.125 \n")


# liblinear-official 2.50's save_model of a one-class SVM (-s 21): no labels, and rho
ONE_CLASS = (b"solver_type ONECLASS_SVM\nnr_class 2\nnr_feature 2\nbias -1\nrho 0.5\nw\n"
             b"0.25 \n-1 \n")


def read(text):
    return load_liblinear_model(io.BytesIO(text))


def test_reads_and_writes_back_the_same_bytes():
    model = read(BINARY)
    assert model.solver_type == "L2R_L2LOSS_SVC_DUAL"
    assert model.labels == (1, -1) and model.n_features == 2 and model.bias == 1.0
    np.testing.assert_array_equal(model.w, [[0.5], [-0.25], [0.125]])
    assert liblinear_model_to_bytes(model) == BINARY


def test_weights_are_written_as_cs_printf_writes_them():
    """save_model's ``fprintf(fp, "%.17g ", w)``: the C library's own snprintf, called
    on awkward doubles (subnormals, -0, the extremes, halfway cases), gives the same
    text as the writer's compiled formatter."""
    import ctypes
    import ctypes.util
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.snprintf.restype = ctypes.c_int
    rng = np.random.default_rng(7)
    values = np.concatenate([
        [0.0, -0.0, 5e-324, -2.2250738585072014e-308, 1.7976931348623157e308, 0.1,
         1 / 3, 1e16, 123456789012345678.0, 0.5, 2.5e-5, 1e-5, 9.999999999999999e22],
        rng.standard_normal(500) * 10.0 ** rng.integers(-300, 300, 500)])
    w = values.reshape(-1, 1)
    text = liblinear_model_to_bytes(LiblinearModel("L2R_L2LOSS_SVR", None, len(w), -1.0, w))
    buffer = ctypes.create_string_buffer(64)
    expected = b""
    for value in values:
        libc.snprintf(buffer, 64, b"%.17g \n", ctypes.c_double(value))
        expected += buffer.value
    assert text.split(b"w\n", 1)[1] == expected


def test_weights_are_read_at_c_speed_as_float_reads_them():
    """The weights' fast reader (`read_numbers`) gives float()'s doubles for every
    token the format allows, and gives up (-1: the caller reads token by token and
    names the line) on every other, or where the array has no room."""
    from libsmo.io._svmlight import read_numbers
    rng = np.random.default_rng(3)
    tokens = [b"0", b"-0", b".5", b"5.", b"+1e-5", b"1E+300", b"4.9406564584124654e-324",
              b"123456789012345678901234567890", b"0.1000000000000000055511151231257827"]
    tokens += [b"%.17g" % v for v in rng.standard_normal(300) * 10.0 ** rng.integers(
        -300, 300, 300)]
    text = b"w\n" + b" \n".join(tokens) + b" \n"
    out = np.full(len(tokens) + 1, np.nan)
    assert read_numbers(text, 2, len(text), out, 1) == len(tokens)
    np.testing.assert_array_equal(out[1:], [float(t) for t in tokens])
    assert read_numbers(text, 2, len(text), np.empty(len(tokens)), 1) == -1    # no room
    for bad in (b"inf", b"nan", b"-inf", b"1e400", b"0x10", b"1_0", b"1e5.3", b"1e",
                b"e5", b"--1", b"1,5", b"\x00"):
        text = b"1 \n" + bad + b" \n2 \n"
        assert read_numbers(text, 0, len(text), np.empty(3), 0) == -1, bad
    with pytest.raises(ValueError, match="span"):
        read_numbers(b"1 2", 0, 4, np.empty(2), 0)


def test_doubles_round_trip_through_the_file(tmp_path):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((6, 3)) * 10.0 ** rng.integers(-300, 300, (6, 3))
    model = LiblinearModel("L2R_L2LOSS_SVC", (3, 1, 2), 5, 2.5, w)
    path = tmp_path / "m.model"
    save_liblinear_model(model, path)
    again = load_liblinear_model(path)
    assert (again.solver_type, again.labels, again.n_features, again.bias) == (
        "L2R_L2LOSS_SVC", (3, 1, 2), 5, 2.5)
    np.testing.assert_array_equal(again.w, w)


def test_logistic_regression_and_one_class_models_are_read_and_written():
    """The files of LIBLINEAR's types libsmo predicts with and does not train: the
    logistic regressions as the SVMs, the one-class SVM with its rho line."""
    model = read(ONE_CLASS)
    assert (model.solver_type, model.labels, model.rho, model.nr_w) == (
        "ONECLASS_SVM", None, 0.5, 1)
    assert liblinear_model_to_bytes(model) == ONE_CLASS
    # liblinear-train's -n 1 model: every row an outlier
    for text, rho in ((b"rho inf", math.inf), (b"rho -inf", -math.inf)):
        model = read(ONE_CLASS.replace(b"rho 0.5", text))
        assert model.rho == rho
        assert liblinear_model_to_bytes(model) == ONE_CLASS.replace(b"rho 0.5", text)
    logistic = BINARY.replace(b"L2R_L2LOSS_SVC_DUAL", b"L1R_LR")
    model = read(logistic)
    assert model.labels == (1, -1) and model.rho == 0.0
    assert liblinear_model_to_bytes(model) == logistic


def test_regression_and_crammer_singer_shapes():
    svr = read(b"solver_type L2R_L1LOSS_SVR_DUAL\nnr_class 2\nnr_feature 1\nbias -1\nw\n3 \n")
    assert svr.labels is None and svr.w.shape == (1, 1)
    cs = read(b"solver_type MCSVM_CS\nnr_class 2\nlabel 0 1\nnr_feature 1\nbias 1\nw\n"
              b"1 2 \n3 4 \n")
    assert cs.nr_w == 2 and cs.w.tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("text,words", [
    (BINARY.replace(b"L2R_L2LOSS_SVC_DUAL", b"SVM"), "line 1: unknown solver_type"),
    (BINARY.replace(b"nr_class 2", b"nr_class 3"), "line 3: 2 labels for nr_class 3"),
    (BINARY.replace(b"label 1 -1", b"label 1 1"), "line 3: a label given twice"),
    (BINARY.replace(b"label 1 -1", b"label 1 x"), "line 3: a label must be an integer"),
    (BINARY.replace(b"nr_feature 2", b"nr_feature 99999999999"), "line 4: nr_feature"),
    (BINARY.replace(b"bias 1", b"bias nan"), "line 5: bias must be a finite number"),
    (BINARY.replace(b"-0.25", b"inf"), "line 8: a weight must be a finite number"),
    # numbers that parse and overflow a double (LIBLINEAR reads them as inf)
    (BINARY.replace(b"bias 1", b"bias 1e400"), "line 5: bias must be a finite number"),
    (BINARY.replace(b"-0.25", b"-1e400"), "line 8: a weight must be a finite number"),
    # an integer beyond Python's 4,300 digits of int()
    (BINARY.replace(b"nr_feature 2", b"nr_feature " + b"9" * 5000), "line 4: nr_feature"),
    (BINARY + b"1 \n", "line 10: more than the 3 weights"),
    (BINARY.replace(b"0.125 \n", b""), "2 weights where nr_feature 2"),
    (BINARY.replace(b"w\n", b""), "line 6: unknown text"),
    (BINARY.split(b"w\n")[0], "no 'w' line"),
    (BINARY.replace(b"bias 1\n", b""), "no bias line"),
    (b"nr_class 2\n" + BINARY, "line 3: nr_class given twice"),
    (BINARY.replace(b"bias 1", b"bias 1\nrho 0"), "line 6: only a one-class model has rho"),
    (BINARY.replace(b"solver_type L2R_L2LOSS_SVC_DUAL", b"solver_type L2R_L2LOSS_SVR"),
     "line 3: a regression or one-class model has no labels"),
    (ONE_CLASS.replace(b"nr_class 2\n", b"nr_class 2\nlabel 1 -1\n"),
     "line 3: a regression or one-class model has no labels"),
    (ONE_CLASS.replace(b"rho 0.5\n", b""), "a one-class model's header needs a rho line"),
    (ONE_CLASS.replace(b"rho 0.5", b"rho 1e400"), "line 5: rho must be a finite number"),
    (ONE_CLASS.replace(b"rho 0.5", b"rho nan"), "line 5: rho must be a finite number"),
    # (LIBLINEAR reads nr_class columns of weights here, and crashes on nr_class 1)
    (ONE_CLASS.replace(b"nr_class 2", b"nr_class 1"), "line 2: a regression or one-class "
     "model has nr_class 2"),
    (ONE_CLASS.replace(b"nr_class 2", b"nr_class 3").replace(b"ONECLASS_SVM",
                                                             b"L2R_L2LOSS_SVR"),
     "line 2: a regression or one-class model has nr_class 2"),
])
def test_bad_files_are_refused_naming_the_line(text, words):
    with pytest.raises(ValueError, match="<file object>") as caught:
        read(text)
    assert words in str(caught.value)


def test_a_model_of_one_class_is_read_and_written():
    """liblinear-train writes nr_class 1 for data of one class (one column of w); the
    reader once refused it. LinearSVC.from_model refuses it by name: scikit-learn's
    classifiers need two classes."""
    import libsmo
    text = (b"solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 1\nlabel 7\nnr_feature 1\n"
            b"bias -1\nw\n0.5 \n")
    model = read(text)
    assert model.labels == (7,) and model.w.shape == (1, 1)
    assert liblinear_model_to_bytes(model) == text
    with pytest.raises(ValueError, match="one class"):
        libsmo.LinearSVC.from_model(io.BytesIO(text))


def test_a_huge_nr_feature_allocates_nothing():
    # the header asks for 2^31 - 1 rows of weights; the file holds three numbers
    text = BINARY.replace(b"nr_feature 2", b"nr_feature 2147483647")
    with pytest.raises(ValueError, match="3 weights where nr_feature 2147483647"):
        read(text)


def test_a_large_model_is_read_and_written_in_little_more_than_its_size(tmp_path):
    """200,000 weights (4.2 MB of text): writing takes about twice the file's size in
    memory at its peak and reading three times (the file's bytes, read whole, and
    the weights' array), not a Python object a line and a weight (8.2 and 5.8 times
    here before; a model of 30 million features took 6 GB to write and 3 GB to
    read)."""
    import tracemalloc
    w = np.random.default_rng(0).standard_normal((200_000, 1))
    model = LiblinearModel("L2R_L2LOSS_SVC_DUAL", (1, -1), 199_999, 1.0, w)
    path = tmp_path / "large.model"
    tracemalloc.start()
    try:
        save_liblinear_model(model, path)
        size = path.stat().st_size
        _, written = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        again = load_liblinear_model(path)
        _, read = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(again.w, w)
    assert written < 2.5 * size + 2e6
    assert read < 3.5 * size + 2e6


@pytest.mark.parametrize("model,words", [
    (LiblinearModel("L2R_SVM", (1, -1), 1, -1.0, np.ones((1, 1))), "not one of"),
    (LiblinearModel("L2R_L2LOSS_SVC", (1, -1), 1, -1.0, np.ones((1, 1)), 0.5), "rho"),
    (LiblinearModel("ONECLASS_SVM", None, 1, -1.0, np.ones((1, 1)), np.nan), "rho"),
    (LiblinearModel("ONECLASS_SVM", (1, -1), 1, -1.0, np.ones((1, 1))), "no labels"),
    (LiblinearModel("L2R_L2LOSS_SVC", None, 1, -1.0, np.ones((1, 1))), "no labels"),
    (LiblinearModel("L2R_L2LOSS_SVC", (1, 1), 1, -1.0, np.ones((1, 1))), "distinct"),
    (LiblinearModel("L2R_L2LOSS_SVC", (1, 2**31), 1, -1.0, np.ones((1, 1))), "32-bit"),
    (LiblinearModel("L2R_L2LOSS_SVC", (1, -1), 1, 1.0, np.ones((1, 1))), "shape"),
    (LiblinearModel("L2R_L2LOSS_SVC", (1, -1), 1, -1.0, np.full((1, 1), np.nan)), "NaN"),
    # (once written "label 1 1", which the reader then refused)
    (LiblinearModel("L2R_L2LOSS_SVC", (1.5, 1), 1, -1.0, np.ones((1, 1))), "32-bit"),
    # (once cast to real in silence)
    (LiblinearModel("L2R_L2LOSS_SVC", (1, -1), 1, -1.0, np.full((1, 1), 1 + 1j)), "real"),
])
def test_models_the_format_cannot_hold_are_refused(model, words, tmp_path):
    path = tmp_path / "m.model"
    path.write_bytes(b"previous")
    with pytest.raises(ValueError, match=words):
        save_liblinear_model(model, path)
    assert path.read_bytes() == b"previous"


def test_liblinear_reads_the_file_and_libsmo_reads_liblinears(tmp_path):
    ll = pytest.importorskip("liblinear.liblinearutil")
    from helpers.data import load_dataset
    X, y = load_dataset("heart_scale")
    theirs = ll.train(y, X, "-s 1 -c 0.5 -B 1 -q")
    path = str(tmp_path / "liblinear.model")
    ll.save_model(path, theirs)
    model = load_liblinear_model(path)
    assert model.solver_type == "L2R_L2LOSS_SVC_DUAL" and model.bias == 1.0
    assert list(model.labels) == list(theirs.get_labels())
    w, b = theirs.get_decfun()
    np.testing.assert_array_equal(model.w.ravel(), list(w) + [b])
    ours = str(tmp_path / "libsmo.model")
    save_liblinear_model(model, ours)
    assert open(ours, "rb").read() == open(path, "rb").read()
    again = ll.load_model(ours)
    assert again.get_decfun() == theirs.get_decfun()
