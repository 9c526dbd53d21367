"""Scaler against svm-scale (LIBSVM 3.24): the same scaled values, range files that
move either way, svm-scale's warnings; and the Scaler on its own."""
import os
import re
import shutil
import subprocess
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import libsmo
from helpers.data import UNDER_CI, data_file
from libsmo.scaling import ScalingWarning, UnscaledFeaturesWarning


def need_svm_scale():
    if shutil.which("svm-scale") is None:
        reason = "svm-scale (Debian package libsvm-tools) is not installed"
        if UNDER_CI:
            pytest.fail(reason)
        pytest.skip(reason)


def svm_scale(*args):
    result = subprocess.run(["svm-scale", *map(str, args)], capture_output=True,
                            timeout=120, env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert result.returncode == 0, result.stderr
    return result.stdout, result.stderr.decode()


def as_svm_scale_prints(X, y):
    """The text svm-scale writes for scaled rows: "%.17g " label, "%d:%g " entries."""
    X = sp.csr_matrix(X)
    lines = []
    for i in range(X.shape[0]):
        part = slice(X.indptr[i], X.indptr[i + 1])
        lines.append("%.17g " % y[i] + "".join("%d:%g " % (j + 1, v) for j, v in
                                               zip(X.indices[part], X.data[part])))
    return ("\n".join(lines) + "\n").encode()


def head(tmp_path, name, n_rows):
    """The first n_rows lines of a data set, as a file."""
    path = tmp_path / f"{name}.{n_rows}"
    with open(data_file(name), "rb") as source:
        path.write_bytes(b"".join(line for _, line in zip(range(n_rows), source)))
    return path


def caught(fn):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in seen if issubclass(w.category, ScalingWarning)]


@pytest.mark.parametrize("name,rows,options", [
    ("heart_scale", None, {}),
    ("heart_scale", None, {"lower": 0, "upper": 3, "y_range": (-2, 5)}),
    ("a9a", 3000, {}),
    ("a9a", None, {"lower": 0}),
    ("housing_scale", None, {"lower": -5, "upper": 0.5, "y_range": (0, 1)}),
])
def test_scaled_values_and_range_file_match_svm_scale(tmp_path, name, rows, options):
    need_svm_scale()
    path = head(tmp_path, name, rows) if rows else data_file(name)
    X, y = libsmo.load_svmlight_file(path)
    args = []
    if "lower" in options:
        args += ["-l", options["lower"]]
    if "upper" in options:
        args += ["-u", options["upper"]]
    if "y_range" in options:
        args += ["-y", *options["y_range"]]
    theirs, stderr = svm_scale(*args, "-s", tmp_path / "theirs.range", path)
    scaler = libsmo.Scaler(**options)
    (Xs, ys), messages = caught(lambda: scaler.fit_transform(X, y))
    assert sp.isspmatrix_csr(Xs)
    assert as_svm_scale_prints(Xs, ys) == theirs
    scaler.save_range(tmp_path / "ours.range")
    theirs_range = (tmp_path / "theirs.range").read_bytes()
    assert (tmp_path / "ours.range").read_bytes() == theirs_range
    # svm-scale's warning when the data grew denser, word for word
    grew = "WARNING: original #nonzeros" in stderr
    assert grew == any("original #nonzeros" in m for m in messages)
    if grew:
        text = stderr[stderr.index("WARNING: original"):].strip()
        assert "WARNING: " + [m for m in messages if "#nonzeros" in m][0] == text
    # dense input gives the same values
    if X.shape[0] <= 3000:
        Xd, _ = caught(lambda: scaler.transform(X.toarray()))
        np.testing.assert_array_equal(Xd, Xs.toarray())


def test_range_files_move_both_ways(tmp_path):
    """Train on a9a, scale a9a.t with the training ranges: svm-scale -r with libsmo's
    range file, libsmo with svm-scale's, the same values and the same warnings about
    test features the training data never varied."""
    need_svm_scale()
    train, test = head(tmp_path, "a9a", 2000), head(tmp_path, "a9a.t", 3000)
    svm_scale("-s", tmp_path / "theirs.range", train)
    X, y = libsmo.load_svmlight_file(train)
    Xt, yt = libsmo.load_svmlight_file(test)
    ours = libsmo.Scaler().fit(X, y)
    ours.save_range(tmp_path / "ours.range")
    expected, stderr = svm_scale("-r", tmp_path / "ours.range", test)
    for scaler in (ours, libsmo.Scaler.load_range(tmp_path / "theirs.range")):
        (Xs, ys), messages = caught(lambda: scaler.transform(Xt, yt))
        assert as_svm_scale_prints(Xs, ys) == expected
        unseen = sorted(int(i) for i in re.findall(r"feature index (\d+) appeared", stderr))
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            scaler.transform(Xt, yt)
        [features] = [w.message.features for w in seen
                      if issubclass(w.category, UnscaledFeaturesWarning)]
        assert unseen and features == unseen
        assert sum("no scaling range" in m for m in messages) == 1


def test_restored_y_range(tmp_path):
    need_svm_scale()
    path = data_file("housing_scale")
    svm_scale("-y", 0, 1, "-l", 0, "-s", tmp_path / "r", path)
    X, y = libsmo.load_svmlight_file(path)
    scaler = libsmo.Scaler.load_range(tmp_path / "r")
    assert scaler.y_range == (0, 1) and scaler.lower == 0
    expected, _ = svm_scale("-r", tmp_path / "r", path)
    Xs, ys = scaler.transform(X, y)
    assert as_svm_scale_prints(Xs, ys) == expected


# ---------------------------------------------------------------- the Scaler alone

def test_constant_and_unknown_features_become_zero():
    X = np.array([[1.0, 5.0, 0.0], [3.0, 5.0, 2.0], [2.0, 5.0, 4.0]])
    scaler = libsmo.Scaler(lower=0, upper=1).fit(X)
    np.testing.assert_array_equal(scaler.transform(X),
                                  [[0, 0, 0], [1, 0, 0.5], [0.5, 0, 1]])
    wider = np.hstack([X, [[1.0], [0.0], [0.0]]])
    out, messages = caught(lambda: scaler.transform(wider))
    assert out.shape == (3, 4) and not out[:, 3].any()
    assert len(messages) == 1 and "feature index 4" in messages[0]
    narrow = sp.csr_matrix(X[:, :2])  # a missing column is zeros: mapped like zeros
    np.testing.assert_array_equal(scaler.transform(narrow).toarray(),
                                  [[0, 0, 0], [1, 0, 0], [0.5, 0, 0]])


def test_sparse_zeros_are_mapped_as_svm_scale_does():
    X = sp.csr_matrix(np.array([[0.0, 2.0], [4.0, 0.0], [2.0, 1.0]]))
    (out, messages) = caught(lambda: libsmo.Scaler().fit_transform(X))
    np.testing.assert_array_equal(out.toarray(), [[-1, 1], [1, -1], [0, 0]])
    assert out.nnz == 4  # the two exact zeros of row 3 are not stored
    assert messages == []  # 4 non-zeros before, 4 after
    (out, messages) = caught(lambda: libsmo.Scaler().fit_transform(X[:2]))
    assert out.nnz == 4 and len(messages) == 1 and "> new      #nonzeros 4" in messages[0]


def test_y_scaling_and_arguments(tmp_path):
    X = np.eye(3)
    scaler = libsmo.Scaler(lower=0, y_range=(0, 10)).fit(X, [2.0, 4.0, 3.0])
    _, ys = scaler.transform(X, [2.0, 4.0, 3.0])
    np.testing.assert_array_equal(ys, [0, 10, 5])
    np.testing.assert_array_equal(scaler.transform(X, [1.0, 1.0, 1.0])[1], [-5, -5, -5])
    with pytest.raises(ValueError, match="fit needs y"):
        libsmo.Scaler(y_range=(0, 1)).fit(X)
    with pytest.raises(ValueError, match="inconsistent"):
        libsmo.Scaler(lower=1, upper=1).fit(X)
    with pytest.raises(ValueError, match="not fitted"):
        libsmo.Scaler().transform(X)
    with pytest.raises(ValueError, match="NaN"):
        libsmo.Scaler().fit(np.array([[np.nan]]))
    with pytest.raises(ValueError, match="no rows"):
        libsmo.Scaler().fit(np.zeros((0, 2)))
    scaler.save_range(tmp_path / "r")
    again = libsmo.Scaler.load_range(tmp_path / "r")
    np.testing.assert_array_equal(again.transform(X, [2.0, 4.0, 3.0])[1], [0, 10, 5])


@pytest.mark.parametrize("text,line,reason", [
    (b"", None, "empty range file"),
    (b"x\n-1\n", 2, "lower upper"),
    (b"x\n-1 1\n1 0 1\n1 0 2\n", 4, "increasing"),
    (b"x\n-1 1\n0 0 1\n", 3, "increasing"),
    (b"x\n-1 1\n2 a 1\n", 3, "min max"),
    (b"x\n-1 1\n2 0\n", 3, "index min max"),
    (b"y\n0 1\nx\n-1 1\n", 3, "y_min y_max"),
    (b"z\n-1 1\n", 1, "expected the line 'x'"),
    (b"x\n-1 nan\n", 2, "lower upper"),
    (b"x\n-1 1e999\n", 2, "finite"),
    (b"x\n1 -1\n", None, "inconsistent"),
])
def test_malformed_range_file(tmp_path, text, line, reason):
    path = tmp_path / "bad.range"
    path.write_bytes(text)
    with pytest.raises(ValueError, match=re.escape(reason)) as info:
        libsmo.Scaler.load_range(path)
    if line is not None:
        assert str(path) in str(info.value) and f"line {line}" in str(info.value)


def test_range_file_with_crlf(tmp_path):
    path = tmp_path / "crlf.range"
    path.write_bytes(b"y\r\n0 1 \r\n2 4\r\nx\r\n-1 1\r\n2 0 2  \r\n")
    scaler = libsmo.Scaler.load_range(path)
    Xs, ys = scaler.transform(np.array([[5.0, 1.0]]), [3.0])
    np.testing.assert_array_equal(Xs, [[0, 0]])
    np.testing.assert_array_equal(ys, [0.5])


@pytest.mark.parametrize("dense", [False, True])
def test_ranges_that_overflow_are_refused(tmp_path, dense):
    """Found by the fuzz campaign (tests/test_fuzz_campaign.py, range case 380): a
    range file whose minimum is 1.8e308 and maximum 1 makes svm-scale's map overflow to
    inf; libsmo refuses with a ValueError and no numpy warning before it."""
    X = libsmo.load_svmlight_file(str(data_file("heart_scale")))[0][:30]
    X = X.toarray() if dense else X
    path = tmp_path / "far.range"
    path.write_bytes(b"x\n-1 1\n1 -1 1\n2 -1 1\n3 1.7976931348623157e308 1\n")
    scaler = libsmo.Scaler.load_range(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", ScalingWarning)   # features 4.. have no range
        with pytest.raises(ValueError, match="overflows double precision"):
            scaler.transform(X)
