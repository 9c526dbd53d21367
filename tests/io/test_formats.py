"""The file formats without LIBSVM's tools: the data reader against scikit-learn's, the
data writer, model files written and read back, and every kind of malformed input."""
import bz2
import gzip
import io
import lzma
import os
import re

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.datasets as sklearn_datasets

import libsmo
from helpers.data import data_file, load_dataset
from libsmo.io import model_file, sources

SVM_TYPES = ["c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr"]
KERNELS = ["linear", "poly", "rbf", "sigmoid", "precomputed"]


def sk_load(f, **kw):
    out = sklearn_datasets.load_svmlight_file(f, **kw)
    return (sp.csr_matrix(out[0]),) + tuple(out[1:])


def assert_same_csr(A, B):
    A, B = sp.csr_matrix(A), sp.csr_matrix(B)
    assert A.shape == B.shape
    np.testing.assert_array_equal(A.indptr, B.indptr)
    np.testing.assert_array_equal(A.indices, B.indices)
    np.testing.assert_array_equal(A.data, B.data)  # NaN == NaN here, and exact
    assert A.data.dtype == B.data.dtype


def write(tmp_path, text, name="data.txt"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


# ------------------------------------------------------------------ reader vs sklearn

@pytest.mark.parametrize("name", ["heart_scale", "a9a", "a9a.t", "pendigits",
                                  "housing_scale", "ijcnn1.val", "bodyfat_scale",
                                  "svmguide1", "sector.scale"])
def test_reader_matches_sklearn_on_real_files(name):
    path = str(data_file(name))
    X, y = libsmo.load_svmlight_file(path)
    X2, y2 = sk_load(path)
    assert isinstance(X, sp.csr_matrix)
    assert_same_csr(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert y.dtype == np.float64


def test_several_files_share_n_features():
    train, test = str(data_file("a9a")), str(data_file("a9a.t"))
    ours = libsmo.load_svmlight_files([train, test])
    theirs = sklearn_datasets.load_svmlight_files([train, test])
    assert ours[0].shape[1] == ours[2].shape[1] == 123
    for a, b in zip(ours, theirs):
        if sp.issparse(a):
            assert_same_csr(a, b)
        else:
            np.testing.assert_array_equal(a, b)


def test_n_features_and_dtype():
    path = str(data_file("a9a.t"))
    X, _ = libsmo.load_svmlight_file(path, n_features=123, dtype=np.float32)
    X2, _ = sk_load(path, n_features=123, dtype=np.float32)
    assert X.shape == (16281, 123)
    assert_same_csr(X, X2)
    with pytest.raises(ValueError, match=r"n_features was set to 100.*line \d+.*index"):
        libsmo.load_svmlight_file(path, n_features=100)
    with pytest.raises(ValueError, match="n_features must be >= 1"):
        libsmo.load_svmlight_file(path, n_features=0)


CRAFTED = [
    "1 1:0.5 3:2\n-1 2:1\n",
    "# comment\n+1 1:1 # trailing comment\n\n   \n-1.5e2 4:-3.25e-3\n",
    "1 1:1\r\n2 2:2   \r\n",                        # CRLF and trailing blanks
    "3\n4 2:1\n5\n",                                # rows without features
    "1 0:1 5:2\n2 1:3\n",                           # zero-based (auto)
    "1 qid:3 1:1\n2 qid:3 2:1\n3 qid:7 1:2 3:1\n",  # qid
    "0.25 1:inf 2:-inf 3:nan\n",                    # what float() reads
    "1 1:1e-320 2:1.7976931348623157e308 3:123456789012345678901234567890\n",
    "1 1:0.1 2:.5 3:5. 4:-0 5:+7 6:1E+2 7:00012\n",
    "1 1:1",                                        # no final newline
    "",                                             # empty file
]


@pytest.mark.parametrize("text", CRAFTED)
@pytest.mark.parametrize("zero_based", ["auto", True, False])
def test_reader_matches_sklearn_on_crafted_text(tmp_path, text, zero_based):
    path = str(write(tmp_path, text))
    try:
        expected = sk_load(path, zero_based=zero_based, query_id=True)
    except ValueError:
        with pytest.raises(ValueError, match=re.escape(path)):
            libsmo.load_svmlight_file(path, zero_based=zero_based, query_id=True)
        return
    got = libsmo.load_svmlight_file(path, zero_based=zero_based, query_id=True)
    assert_same_csr(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    # scikit-learn returns only the qids it found; libsmo one per row (0 if none)
    if len(expected[2]) == len(got[1]):
        np.testing.assert_array_equal(got[2], expected[2])
    else:
        assert not expected[2].size and not got[2].any()


def test_rows_without_qid_get_zero(tmp_path):
    path = write(tmp_path, "1 qid:4 1:1\n2 1:1\n")
    _, _, qid = libsmo.load_svmlight_file(path, query_id=True)
    np.testing.assert_array_equal(qid, [4, 0])


def test_sources_paths_file_objects_descriptors_and_compression(tmp_path):
    path = data_file("heart_scale")
    raw = path.read_bytes()
    X0, y0 = libsmo.load_svmlight_file(str(path))
    packed = {"gz": gzip.compress(raw), "bz2": bz2.compress(raw), "xz": lzma.compress(raw)}
    sources = [path, str(path).encode(), io.BytesIO(raw)]
    for kind, data in packed.items():
        sources.append(write(tmp_path, data, f"h.{kind}"))
        sources.append(write(tmp_path, data, f"misnamed_{kind}.txt"))  # found by content
        sources.append(io.BytesIO(data))
    with open(path, "rb") as handle:
        sources.append(handle)
        for source in sources:
            X, y = libsmo.load_svmlight_file(source)
            assert_same_csr(X, X0)
            np.testing.assert_array_equal(y, y0)
    fd = os.open(path, os.O_RDONLY)
    try:
        X, _ = libsmo.load_svmlight_file(fd)
        assert_same_csr(X, X0)
    finally:
        os.close(fd)
    with open(path) as text_handle, pytest.raises(TypeError, match="binary mode"):
        libsmo.load_svmlight_file(text_handle)
    with pytest.raises(FileNotFoundError):
        libsmo.load_svmlight_file(tmp_path / "missing")


def test_corrupt_compressed_file_is_a_value_error(tmp_path):
    raw = data_file("heart_scale").read_bytes()
    for kind, data in {"gz": gzip.compress(raw), "bz2": bz2.compress(raw),
                       "xz": lzma.compress(raw)}.items():
        truncated = write(tmp_path, data[:len(data) // 2], f"t.{kind}")
        with pytest.raises(ValueError, match="t." + kind):
            libsmo.load_svmlight_file(truncated)


def test_small_chunks_give_the_same_result(monkeypatch):
    """Lines cut across the chunks the reader feeds to the parser."""
    path = str(data_file("heart_scale"))
    X0, y0 = libsmo.load_svmlight_file(path)
    for size in (1, 7, 100):
        monkeypatch.setattr(sources, "_CHUNK", size)
        X, y = libsmo.load_svmlight_file(path)
        assert_same_csr(X, X0)
        np.testing.assert_array_equal(y, y0)


BAD_LINES = [
    ("1 2:a", "invalid feature value"),
    ("x 1:2", "invalid label"),
    ("1:2 3:4", "invalid label"),
    ("1 2:3:4", "invalid feature value"),
    ("1 3:1 2:1", "sorted and unique"),
    ("1 2:1 2:1", "sorted and unique"),
    ("1 -1:2", "invalid feature index -1"),
    ("1 1:", "invalid feature value"),
    ("1 :1", "invalid feature index"),
    ("1 a:1", "invalid feature index"),
    ("1 5", "expected index:value"),
    ("1 qid:x 1:2", "invalid query id"),
    ("1 1:2 qid:3", "invalid feature index"),
    ("1 99999999999:1", "too large"),
    ("1 2147483648:1", "too large"),
    ("1 1:1e", "invalid feature value"),
    ("1 1:0x10", "invalid feature value"),
    ("1 1:1_0", "invalid feature value"),
    ("1 1:1\x002", "invalid feature value"),
    ("1\x00 1:1", "invalid label"),
    ("inf5 1:1", "invalid label"),
]


@pytest.mark.parametrize("line,reason", BAD_LINES)
def test_malformed_line_names_file_line_and_text(tmp_path, line, reason):
    path = write(tmp_path, "1 1:1\n# fine\n\n-1 2:0.5\n" + line + "\n1 1:1\n")
    with pytest.raises(ValueError) as info:
        libsmo.load_svmlight_file(path)
    message = str(info.value)
    assert str(path) in message and "line 5" in message and reason in message
    shown = line.replace("\x00", "\\x00")
    assert shown[:20] in message


def test_index_zero_when_one_based(tmp_path):
    path = write(tmp_path, "1 1:1\n2 0:1\n")
    with pytest.raises(ValueError, match=r"line 2: invalid feature index 0"):
        libsmo.load_svmlight_file(path, zero_based=False)
    X, _ = libsmo.load_svmlight_file(path)  # auto: zero-based
    assert X.shape == (2, 2)


def test_bad_arguments(tmp_path):
    path = write(tmp_path, "1 1:1\n")
    with pytest.raises(ValueError, match="zero_based"):
        libsmo.load_svmlight_file(path, zero_based="yes")
    with pytest.raises(TypeError):
        libsmo.load_svmlight_file(3.5)


# ------------------------------------------------------------------------- the writer

def _awkward_values(rng, n):
    values = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
    values[::7] = 1 / 3
    values[1::11] = 5e-324
    values[2::13] = -1.7976931348623157e308
    return values


@pytest.mark.parametrize("zero_based", [False, True])
def test_dump_then_load_is_lossless(tmp_path, zero_based):
    rng = np.random.default_rng(0)
    X = sp.random(60, 40, density=0.2, format="csr", random_state=1)
    X.data = _awkward_values(rng, X.nnz)
    X.data[3] = 0.0  # an explicit zero, kept
    y = _awkward_values(rng, 60)
    path = tmp_path / "out.txt"
    libsmo.dump_svmlight_file(X, y, path, zero_based=zero_based)
    X2, y2 = libsmo.load_svmlight_file(path, n_features=40, zero_based=zero_based)
    assert_same_csr(X2, X)
    np.testing.assert_array_equal(y2, y)
    X3, y3 = sk_load(str(path), n_features=40, zero_based=zero_based)
    np.testing.assert_array_equal(X3.toarray(), X.toarray())
    np.testing.assert_array_equal(y3, y)


def test_dump_dense_skips_zeros_and_formats_like_libsvm(tmp_path):
    X = np.array([[0.5, 0.0, -2.0], [0.0, 0.0, 0.0], [1e-5, 3.0, 0.1]])
    buffer = io.BytesIO()
    libsmo.dump_svmlight_file(X, np.array([1, -1, 2]), buffer)
    assert buffer.getvalue() == b"1 1:0.5 3:-2\n-1\n2 1:1e-05 2:3 3:0.1\n"
    buffer = io.BytesIO()
    libsmo.dump_svmlight_file(X, [1.5, -1, 2], buffer, zero_based=True, comment="a\nb",
                              query_id=[1, 1, 2])
    assert buffer.getvalue() == (b"# a\n# b\n1.5 qid:1 0:0.5 2:-2\n-1 qid:1\n"
                                 b"2 qid:2 0:1e-05 1:3 2:0.1\n")
    X2, y2, q = libsmo.load_svmlight_file(io.BytesIO(buffer.getvalue()), query_id=True)
    np.testing.assert_array_equal(X2.toarray(), X)
    np.testing.assert_array_equal(q, [1, 1, 2])


def test_dump_compresses_by_extension(tmp_path):
    X, y = load_dataset("heart_scale")
    for ext in ("gz", "bz2", "xz"):
        path = tmp_path / f"h.{ext}"
        libsmo.dump_svmlight_file(X, y, path)
        assert sources._compression(path.read_bytes()[:6]) == ext
        X2, y2 = libsmo.load_svmlight_file(path)
        assert_same_csr(X2, X)


def test_dump_rejects_bad_input(tmp_path):
    X = np.eye(3)
    with pytest.raises(ValueError, match="rows"):
        libsmo.dump_svmlight_file(X, [1, 2], tmp_path / "a")
    with pytest.raises(TypeError):
        libsmo.dump_svmlight_file(X, ["a", "b", "c"], tmp_path / "a")
    with pytest.raises(ValueError, match="NUL"):
        libsmo.dump_svmlight_file(X, [1, 2, 3], tmp_path / "a", comment="x\0y")
    assert not (tmp_path / "a").exists()


def test_failed_write_leaves_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "data.txt"
    path.write_bytes(b"previous\n")

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="No space"):
        libsmo.dump_svmlight_file(np.eye(2), [1, 2], path)
    assert path.read_bytes() == b"previous\n"
    assert os.listdir(tmp_path) == ["data.txt"]


# ------------------------------------------------------------------------ model files

GOLDEN = b"""svm_type c_svc
kernel_type polynomial
degree 2
gamma 0.5
coef0 1
nr_class 3
total_sv 4
rho 0.10000000000000001 -0.20000000000000001 0.29999999999999999
label 3 1 2
probA -1 -2 -3
probB 0.5 0.25 0.125
nr_sv 2 1 1
SV
1 0.5 1:0.25 3:-1 
-1 0 2:1 
0.75 -0.25 1:1 2:1 3:1 
-0.75 -0.25 4:2 
"""


def test_golden_model_fields_and_bytes(tmp_path):
    path = write(tmp_path, GOLDEN, "golden.model")
    m = libsmo.load_model(path)
    assert (m.svm_type, m.kernel, m.degree, m.gamma, m.coef0) == ("c_svc", "poly", 2,
                                                                    0.5, 1.0)
    np.testing.assert_array_equal(m.classes, [3, 1, 2])
    np.testing.assert_array_equal(m.n_support, [2, 1, 1])
    np.testing.assert_array_equal(m.rho, [0.1, -0.2, 0.3])
    np.testing.assert_array_equal(m.sv_coef, [[1, -1, 0.75, -0.75], [0.5, 0, -0.25, -0.25]])
    np.testing.assert_array_equal(m.probA, [-1, -2, -3])
    np.testing.assert_array_equal(m.probB, [0.5, 0.25, 0.125])
    assert sp.isspmatrix_csr(m.support_vectors) and m.support is None
    assert m.n_features == 4
    np.testing.assert_array_equal(m.support_vectors.toarray(),
                                  [[0.25, 0, -1, 0], [0, 1, 0, 0], [1, 1, 1, 0],
                                   [0, 0, 0, 2]])
    out = io.BytesIO()
    libsmo.save_model(m, out, libsvm_precision=True)
    assert out.getvalue() == GOLDEN
    libsmo.save_model(m, tmp_path / "again.model")
    assert (tmp_path / "again.model").read_bytes() == GOLDEN


def test_crlf_trailing_blanks_and_blank_header_lines(tmp_path):
    text = GOLDEN.replace(b"\n", b"  \r\n").replace(b"nr_class 3", b"\nnr_class 3")
    m = libsmo.load_model(write(tmp_path, text + b"\r\n\r\n", "crlf.model"))
    out = io.BytesIO()
    libsmo.save_model(m, out, libsvm_precision=True)
    assert out.getvalue() == GOLDEN


@pytest.fixture(scope="module")
def heart():
    return load_dataset("heart_scale")


def _train(X, y, svm_type, kernel, **kw):
    if kernel == "precomputed":
        K = np.exp(-0.1 * ((X.toarray()[:, None, :] - X.toarray()[None]) ** 2).sum(-1))
        return libsmo.train(K, y, svm_type=svm_type, kernel=kernel, **kw), K
    return libsmo.train(X, y, svm_type=svm_type, kernel=kernel, **kw), X


@pytest.mark.parametrize("svm_type", SVM_TYPES)
@pytest.mark.parametrize("kernel", KERNELS)
def test_saved_model_predicts_exactly_as_in_memory(tmp_path, heart, svm_type, kernel):
    X, y = heart
    model, data = _train(X, y, svm_type, kernel)
    path = tmp_path / "m.model"
    libsmo.save_model(model, path)
    loaded = libsmo.load_model(path)
    for field in ("svm_type", "kernel", "degree", "gamma", "coef0"):
        if field == "gamma" and kernel in ("linear", "precomputed"):
            continue
        if field in ("degree", "coef0") and kernel not in ("poly", "sigmoid"):
            continue
        assert getattr(loaded, field) == getattr(model, field), field
    for field in ("classes", "n_support", "sv_coef", "rho"):
        np.testing.assert_array_equal(getattr(loaded, field), getattr(model, field))
    loaded_data = data
    if kernel == "precomputed":
        np.testing.assert_array_equal(loaded.support, model.support)
        # the file knows the training rows only up to its last support vector
        loaded_data = data[:, :loaded.n_features]
    else:
        np.testing.assert_array_equal(loaded.support_vectors.toarray(),
                                      model.support_vectors.toarray())
    np.testing.assert_allclose(loaded.decision_function(loaded_data),
                               model.decision_function(data), rtol=1e-14, atol=1e-14)
    # and the file is what a second save writes
    again = tmp_path / "again.model"
    libsmo.save_model(loaded, again)
    assert again.read_bytes() == path.read_bytes()


@pytest.mark.parametrize("svm_type", SVM_TYPES)
def test_probability_fields_round_trip(tmp_path, heart, svm_type):
    X, y = heart
    model = libsmo.train(X, y, svm_type=svm_type, probability=True, random_state=0)
    path = tmp_path / "p.model"
    libsmo.save_model(model, path)
    loaded = libsmo.load_model(path)
    for field in ("probA", "probB", "prob_density_marks"):
        ours, theirs = getattr(loaded, field), getattr(model, field)
        assert (ours is None) == (theirs is None), field
        if ours is not None:
            np.testing.assert_array_equal(ours, theirs)
    if svm_type in ("c_svc", "nu_svc", "one_class"):
        np.testing.assert_allclose(loaded.predict_proba(X), model.predict_proba(X),
                                   rtol=1e-13, atol=1e-15)


def test_libsvm_precision_writes_eight_digits(tmp_path, heart):
    X, y = heart
    model = libsmo.train(X * np.pi, y)
    exact, short = io.BytesIO(), io.BytesIO()
    libsmo.save_model(model, exact)
    libsmo.save_model(model, short, libsvm_precision=True)
    sv_line = short.getvalue().split(b"SV\n")[1].split(b"\n")[0]
    values = [t.split(b":")[1] for t in sv_line.split()[1:]]
    assert all(v == b"%.8g" % float(v) for v in values)
    lossless = libsmo.load_model(io.BytesIO(exact.getvalue()))
    np.testing.assert_array_equal(lossless.support_vectors.toarray(),
                                  model.support_vectors.toarray())


def test_labels_must_be_integers(tmp_path, heart):
    X, y = heart
    for labels in (np.where(y > 0, "yes", "no"), y / 2):
        model = libsmo.train(X, labels)
        with pytest.raises(ValueError, match="integer class labels"):
            libsmo.save_model(model, tmp_path / "m.model")
    assert not list(tmp_path.iterdir())


def test_failed_save_leaves_previous_model(tmp_path, heart, monkeypatch):
    X, y = heart
    model = libsmo.train(X, y)
    path = tmp_path / "m.model"
    libsmo.save_model(model, path)
    before = path.read_bytes()
    monkeypatch.setattr(model_file, "format_lines",
                        lambda *a, **k: (_ for _ in ()).throw(MemoryError()))
    with pytest.raises(MemoryError):
        libsmo.save_model(libsmo.train(X, -y), path)
    monkeypatch.undo()

    def broken_replace(src, dst):
        raise OSError(5, "I/O error")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        libsmo.save_model(libsmo.train(X, -y), path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["m.model"]


def test_save_keeps_mode_of_existing_file(tmp_path, heart):
    X, y = heart
    path = tmp_path / "m.model"
    path.write_bytes(b"")
    os.chmod(path, 0o640)
    libsmo.save_model(libsmo.train(X, y), path)
    assert (os.stat(path).st_mode & 0o777) == 0o640


def _golden_with(old, new):
    assert old in GOLDEN
    return GOLDEN.replace(old, new, 1)


BAD_MODELS = [
    (_golden_with(b"svm_type c_svc", b"svm_type c_svm"), 1, "unknown svm_type"),
    (_golden_with(b"kernel_type polynomial", b"kernel_type poly"), 2, "unknown kernel"),
    (_golden_with(b"degree 2", b"degree 2.5"), 3, "not an integer"),
    (_golden_with(b"gamma 0.5", b"gamma nan"), 4, "not a finite number"),
    (_golden_with(b"gamma 0.5", b"gamma 1e999"), 4, "overflows"),
    # found by the fuzz campaign: refused by the Model's checks without file and line
    (_golden_with(b"gamma 0.5", b"gamma -2147483648"), 4, "gamma must be >= 0"),
    (_golden_with(b"coef0 1\n", b"coef0 1\ncoef0 2\n"), 6, "given twice"),
    (_golden_with(b"nr_class 3", b"nr_klass 3"), 6, "unknown text"),
    (_golden_with(b"rho 0.10000000000000001 ", b"rho "), 8, "needs 3 number"),
    (_golden_with(b"label 3 1 2", b"label 3 1 x"), 9, "not an integer"),
    (_golden_with(b"label 3 1 2", b"label 3 1 2 4"), 9, "needs 3 integer"),
    # found by the slow fuzz campaign: the Model's check refused it without file and line
    (_golden_with(b"label 3 1 2", b"label 3 1 3"), 9, "label repeats the label 3"),
    (_golden_with(b"nr_sv 2 1 1", b"nr_sv 2 1 2"), 12, "adds up to 5"),
    (_golden_with(b"nr_sv 2 1 1", b"nr_sv 2 -1 3"), 12, ">= 0"),
    (_golden_with(b"probB 0.5 0.25 0.125", b"probB 0.5 0.25"), 11, "needs 3"),
    (_golden_with(b"SV\n", b"SV extra\n"), 13, "SV alone"),
    (_golden_with(b"-1 0 2:1 ", b"-1 0 2:x "), 15, "invalid feature value"),
    (_golden_with(b"-1 0 2:1 ", b"-1 2:1 "), 15, "invalid coefficient"),
    (_golden_with(b"-1 0 2:1 ", b"-1 nan 2:1 "), 15, "must be finite"),
    (_golden_with(b"-1 0 2:1 ", b"-1 0 2:inf "), 15, "must be finite"),
    (_golden_with(b"-1 0 2:1 ", b"-1 0 0:1 "), 15, "indices start at 1"),
    (_golden_with(b"0.75 -0.25 1:1 2:1 3:1 ", b"0.75 -0.25 1:1 3:1 2:1 "), 16, "sorted"),
    (_golden_with(b"-1 0 2:1 \n", b"-1 0 2:1 \n\n"), 16, "empty line"),
    (_golden_with(b"-1 0 2:1 ", b"-1 0 2:1 # note"), 15, "invalid feature"),
]


@pytest.mark.parametrize("text,line,reason", BAD_MODELS)
def test_malformed_model_names_file_and_line(tmp_path, text, line, reason):
    path = write(tmp_path, text, "bad.model")
    with pytest.raises(ValueError) as info:
        libsmo.load_model(path)
    message = str(info.value)
    assert str(path) in message and f"line {line}" in message and reason in message


@pytest.mark.parametrize("text,reason", [
    (GOLDEN.replace(b"total_sv 4", b"total_sv 5").replace(b"nr_sv 2 1 1", b"nr_sv 2 2 1"),
     "total_sv is 5, but the file has 4"),
    (GOLDEN + b"1 1 1:1 \n", "total_sv is 4, but the file has 5"),
    (GOLDEN.split(b"SV\n")[0], "ends before the 'SV' line"),
    (GOLDEN.replace(b"rho 0.10000000000000001 -0.20000000000000001 0.29999999999999999\n",
                    b""), "no rho line"),
    (GOLDEN.replace(b"gamma 0.5\n", b""), "needs a gamma line"),
    (GOLDEN.replace(b"label 3 1 2\n", b""), "needs a label line"),
    (b"svm_type epsilon_svr\nkernel_type linear\nnr_class 3\ntotal_sv 0\nrho 1 2 3\nSV\n",
     "must be 2 for epsilon_svr"),
    (b"svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 0\nrho 1\n"
     b"label 1 2\nSV\n", "only for classification"),
    (b"svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 0\nrho 1\n"
     b"prob_density_marks 1 2 3 4 5 6 7 8 9 10\nSV\n", "only for one_class"),
    (b"svm_type c_svc\nkernel_type precomputed\nnr_class 2\ntotal_sv 1\nrho 1\n"
     b"label 1 2\nnr_sv 1 0\nSV\n1 1:3 \n", "serial number"),
    (b"svm_type c_svc\nkernel_type precomputed\nnr_class 2\ntotal_sv 1\nrho 1\n"
     b"label 1 2\nnr_sv 1 0\nSV\n1 0:2.5 \n", "must be an integer"),
    (gzip.compress(GOLDEN)[:40], "cannot decompress"),
])
def test_inconsistent_model_is_rejected(tmp_path, text, reason):
    path = write(tmp_path, text, "bad.model")
    with pytest.raises(ValueError, match=re.escape(reason)) as info:
        libsmo.load_model(path)
    assert str(path) in str(info.value)


def test_precomputed_model_file(tmp_path):
    text = (b"svm_type c_svc\nkernel_type precomputed\nnr_class 2\ntotal_sv 2\nrho 0.5\n"
            b"label 1 -1\nnr_sv 1 1\nSV\n1 0:3 \n-1 0:7 1:0.5 \n")
    m = libsmo.load_model(write(tmp_path, text, "pre.model"))
    assert m.support_vectors is None and m.n_features == 7
    np.testing.assert_array_equal(m.support, [2, 6])
    K = np.zeros((1, 7))
    K[0, 2], K[0, 6] = 2.0, 1.0
    np.testing.assert_allclose(m.decision_function(K), [2.0 - 1.0 - 0.5])
    out = io.BytesIO()
    libsmo.save_model(m, out)  # svm-train writes only the serial number, as here
    assert out.getvalue() == text.replace(b"0:7 1:0.5 ", b"0:7 ")


def test_single_class_and_empty_models(tmp_path):
    """svm-train writes these for one-class training data and for an SVR whose
    epsilon tube holds every target."""
    texts = [b"svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 1\ntotal_sv 0\nrho\n"
             b"label 1\nnr_sv 0\nSV\n",
             b"svm_type epsilon_svr\nkernel_type rbf\ngamma 0.5\nnr_class 2\n"
             b"total_sv 0\nrho 0.25\nSV\n"]
    X = sp.csr_matrix(np.ones((3, 4)))
    for text, expected in zip(texts, ([1, 1, 1], [-0.25] * 3)):
        m = libsmo.load_model(io.BytesIO(text))
        np.testing.assert_array_equal(m.predict(X), expected)
        out = io.BytesIO()
        libsmo.save_model(m, out, libsvm_precision=True)
        assert out.getvalue() == text
