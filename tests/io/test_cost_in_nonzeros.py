"""Cost in the non-zeros, not the width: a feature index of 2**31 - 1 in a data file, a
model file or a range file costs what its few entries cost (svm-predict: 0.06 s and
3 MB), never an allocation as wide as the index. And RBF prediction is LIBSVM's at any
gamma (K(x, x) = 1).

The wide cases run in a child interpreter under a 2 GB address-space limit: before,
they asked for 8 to 45 GB, which the limit turns into a failure instead of a machine
that swaps."""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import libsmo
from helpers.data import UNDER_CI, data_file, load_dataset
from libsmo.scaling import ScalingWarning

TESTS = Path(__file__).resolve().parents[1]   # tests/, where the helpers package is
WIDE = 2**31 - 1


def run_limited(code, limit_bytes=2 * 2**30):
    """Run code in a child interpreter whose address space is limited; returns the
    JSON object it prints last."""
    script = textwrap.dedent(f"""
        import json, resource, sys, tracemalloc
        sys.path.insert(0, {str(TESTS)!r})
        import numpy as np, scipy.sparse as sp, libsmo
        from helpers.data import data_file, load_dataset
        resource.setrlimit(resource.RLIMIT_AS, ({limit_bytes}, {limit_bytes}))
        def peak_mb(fn):
            tracemalloc.start()
            tracemalloc.reset_peak()
            try:
                result = fn()
            finally:
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
            return result, peak / 2**20
    """) + textwrap.dedent(code)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=600, cwd=tempfile.gettempdir(),
                         env=dict(os.environ, OMP_NUM_THREADS="1",
                                  OPENBLAS_NUM_THREADS="1"))
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def wide_files(tmp_path_factory):
    """heart_scale's first 30 lines plus one line with index 2**31 - 1; a model file
    trained on heart_scale whose first support vector gains that index; a range file
    naming it."""
    folder = tmp_path_factory.mktemp("wide")
    lines = Path(data_file("heart_scale")).read_text().splitlines()[:30]
    (folder / "data").write_text("\n".join(lines + [f"1 {WIDE}:0.5"]) + "\n")
    X, y = load_dataset("heart_scale")
    libsmo.save_model(libsmo.train(X, y, gamma=0.5), folder / "model")
    text = (folder / "model").read_text().splitlines()
    first_sv = text.index("SV") + 1
    text[first_sv] = text[first_sv].rstrip() + f" {WIDE}:1"
    (folder / "wide.model").write_text("\n".join(text) + "\n")
    (folder / "range").write_text(f"x\n-1 1\n1 0 1\n{WIDE} 0 1\n")
    return folder


def svm_predict(test, model, folder):
    import shutil
    if shutil.which("svm-predict") is None:
        reason = "svm-predict (Debian package libsvm-tools) is not installed"
        if UNDER_CI:
            pytest.fail(reason)
        pytest.skip(reason)
    out = folder / "svm-predict.out"
    subprocess.run(["svm-predict", str(test), str(model), str(out)], check=True,
                   capture_output=True, timeout=120)
    return np.loadtxt(out)


def test_predicting_a_row_with_index_2_31_is_svm_predicts_answer(wide_files):
    """Before: 15 s and 8.4 GB for 31 rows."""
    result = run_limited(f"""
        X, y = libsmo.load_svmlight_file({str(wide_files / "data")!r})
        model = libsmo.load_model({str(wide_files / "model")!r})
        labels, peak = peak_mb(lambda: model.predict(X))
        print(json.dumps({{"labels": labels.tolist(), "peak": peak, "width": X.shape[1]}}))
    """)
    assert result["width"] == WIDE
    assert result["peak"] < 20
    np.testing.assert_array_equal(
        result["labels"], svm_predict(wide_files / "data", wide_files / "model",
                                      wide_files))


def test_a_model_file_with_index_2_31_predicts_as_svm_predict(wide_files):
    """Before: 6.7 s and 8.4 GB (scipy transposing the support vectors through an
    index array as long as their width)."""
    heart = data_file("heart_scale")
    result = run_limited(f"""
        X, y = libsmo.load_svmlight_file({str(heart)!r})
        model = libsmo.load_model({str(wide_files / "wide.model")!r})
        (labels, dec), peak = peak_mb(lambda: (model.predict(X), model.decision_function(X)))
        print(json.dumps({{"labels": labels.tolist(), "peak": peak,
                           "n_features": model.n_features}}))
    """)
    assert result["n_features"] == WIDE
    assert result["peak"] < 20
    np.testing.assert_array_equal(
        result["labels"], svm_predict(heart, wide_files / "wide.model", wide_files))


def test_training_with_probabilities_on_index_2_31(wide_files):
    """Before: 24 s (libsmo-train -b 1), and a 16 GB buffer as wide as the rows."""
    from libsvm.svmutil import svm_parameter, svm_problem, svm_train
    result = run_limited(f"""
        X, y = libsmo.load_svmlight_file({str(wide_files / "data")!r})
        model, peak = peak_mb(lambda: libsmo.train(X, y, gamma=0.5, probability=True,
                                                   random_state=0))
        print(json.dumps({{"peak": peak, "sv_coef": model.sv_coef[0].tolist(),
                           "support": model.support.tolist(), "rho": model.rho.tolist(),
                           "probA": model.probA.tolist()}}))
    """)
    assert result["peak"] < 20
    assert np.isfinite(result["probA"]).all()
    # the optimum is LIBSVM's (its sparse nodes cost nothing in the width either)
    X, y = libsmo.load_svmlight_file(wide_files / "data")
    rows = [dict(zip((X.indices[X.indptr[i]:X.indptr[i + 1]] + 1).tolist(),
                     X.data[X.indptr[i]:X.indptr[i + 1]].tolist())) for i in range(30 + 1)]
    peer = svm_train(svm_problem(y.tolist(), rows), svm_parameter("-g 0.5 -q"))
    assert sorted(result["support"]) == sorted(i - 1 for i in peer.get_sv_indices())
    np.testing.assert_allclose(result["rho"][0], peer.rho[0], rtol=1e-6)


def test_a_range_file_naming_index_2_31(wide_files):
    """Before: libsmo-scale -r allocated until the kernel killed it (svm-scale: "can't
    allocate enough memory"). Each row gains the one entry svm-scale would print."""
    heart = data_file("heart_scale")
    result = run_limited(f"""
        X, y = libsmo.load_svmlight_file({str(heart)!r})
        scaler = libsmo.Scaler.load_range({str(wide_files / "range")!r})
        import warnings
        warnings.simplefilter("ignore")
        out, peak = peak_mb(lambda: scaler.transform(X))
        print(json.dumps({{"peak": peak, "shape": out.shape, "last": out[:, -1].toarray()
                           .ravel().tolist(), "first": out[:, 0].toarray().ravel().tolist(),
                           "nnz": out.nnz}}))
    """)
    X, _ = load_dataset("heart_scale")
    assert result["peak"] < 20
    assert result["shape"] == [270, WIDE] and result["nnz"] <= 2 * 270
    np.testing.assert_array_equal(result["last"], -1.0)
    np.testing.assert_allclose(result["first"], 2 * X[:, 0].toarray().ravel() - 1)
    # dense rows cannot widen to that index: a clear error, not 4 TB
    scaler = libsmo.Scaler.load_range(wide_files / "range")
    with pytest.raises(ValueError, match="pass X as a scipy sparse matrix"), \
            pytest.warns(ScalingWarning, match="no scaling range"):
        scaler.transform(X.toarray())


def test_a_precomputed_kernel_as_wide_as_its_largest_index_is_refused():
    """Before: libsmo-train -t 4 on a file holding index 2000000000 asked for 44.7 GiB
    and died with MemoryError."""
    result = run_limited("""
        X = sp.csr_matrix((np.ones(31), (np.arange(31) % 30, np.r_[np.arange(30), 2e9]
                           .astype(np.int64))), shape=(30, 2_000_000_001))
        out = {}
        for what, fn in [
                ("train", lambda: libsmo.train(X, np.arange(30) % 2, kernel="precomputed")),
                ("square", lambda: libsmo.train(sp.csr_matrix((40000, 40000)),
                                                np.arange(40000) % 2, kernel="precomputed"))]:
            try:
                fn()
                out[what] = "trained"
            except (ValueError, TypeError) as exc:
                out[what] = str(exc)
        print(json.dumps(out))
    """)
    assert result["train"].startswith("kernel='precomputed' needs X to be the square")
    assert "precomputed kernel that stores only 0 values" in result["square"]


def test_dump_refuses_indices_beyond_a_c_int(tmp_path):
    X = sp.csr_matrix((np.ones(1), np.array([WIDE], dtype=np.int64),
                       np.array([0, 1], dtype=np.int64)), shape=(1, WIDE + 1))
    with pytest.raises(ValueError, match="indices up to 2147483647"):
        libsmo.dump_svmlight_file(X, [1], tmp_path / "out")
    X = sp.csr_matrix((np.full(1, 2.0), np.array([WIDE - 1], dtype=np.int64),
                       np.array([0, 1], dtype=np.int64)), shape=(1, WIDE))
    libsmo.dump_svmlight_file(X, [1], tmp_path / "out")
    back, _ = libsmo.load_svmlight_file(tmp_path / "out")
    assert back.shape == (1, WIDE) and back[0, WIDE - 1] == 2.0


# ---- file contents against peak memory (hypothesis) ----------------------------------

INDEX = st.one_of(st.integers(1, 40), st.integers(1, 2**31 + 10), st.just(WIDE),
                  st.just(2**31), st.integers(-3, 0))
NUMBER = st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr),
                   st.integers(-10**30, 10**30).map(str), st.sampled_from(["1", "-1", "0"]))


@st.composite
def data_lines(draw):
    n = draw(st.integers(1, 12))
    lines = []
    for _ in range(n):
        indices = sorted(set(draw(st.lists(INDEX, max_size=6))))
        if draw(st.booleans()):
            indices = draw(st.permutations(indices))
        tokens = [draw(st.sampled_from(["1", "-1", "2", "0.5", "1e308", "nan"]))]
        tokens += [f"{i}:{draw(NUMBER)}" for i in indices]
        lines.append(" ".join(tokens))
    return ("\n".join(lines) + "\n").encode()


def traced_peak(fn):
    """(what fn returns or the ValueError/TypeError it raised, peak traced MB)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        try:
            result = fn()
        except (ValueError, TypeError) as exc:
            result = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return result, peak / 2**20


@pytest.fixture(scope="module")
def small_model():
    X, y = load_dataset("heart_scale")
    return libsmo.train(X[:60], y[:60], gamma=0.2, probability=True, random_state=0)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=data_lines())
def test_peak_memory_of_a_data_file_follows_its_size(text, small_model):
    """Loading, training on and predicting a data file of any content: a clean error or
    a result, within 64 times the file's bytes plus the prediction's fixed budget."""
    import io
    bound = 64 * len(text) / 2**20 + 24
    loaded, peak = traced_peak(lambda: libsmo.load_svmlight_file(io.BytesIO(text)))
    assert peak < bound
    if isinstance(loaded, Exception):
        return
    X, y = loaded
    result, peak = traced_peak(lambda: small_model.predict_proba(X))
    assert peak < bound, result
    result, peak = traced_peak(lambda: libsmo.train(X, y, max_iter=1000))
    assert peak < bound, result
    result, peak = traced_peak(lambda: libsmo.Scaler().fit_transform(X))
    assert peak < bound, result


# ---- RBF at any gamma -------------------------------------------------------------------

@pytest.mark.parametrize("gamma", [1e8, 1e12, 1e14, 1e200])
@pytest.mark.parametrize("form", ["dense", "csr", "csr-wide"])
def test_rbf_kernel_of_a_row_with_itself_is_one(gamma, form):
    """Before: |x|^2 + |x|^2 - 2 x'x rounded to a few units in the last place, and at
    gamma >= 1e12 K(x, x) came out about 0."""
    from libsmo._blocks.kernel_block import for_each_kernel_block
    from libsmo._blocks.support_rows import SupportRows
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 13)) * 10.0
    if form != "dense":
        X = sp.csr_matrix(X)
    if form == "csr-wide":   # support vectors on a few of very many columns
        X = sp.csr_matrix((X.data, X.indices * 1000, X.indptr), shape=(20, 13_000))
    got = np.empty((20, 20))

    def visit(block, K):
        got[block] = K

    for_each_kernel_block(visit, X, SupportRows(X), "rbf", gamma, 3, 0.0)
    np.testing.assert_array_equal(np.diag(got), 1.0)
    off = got[~np.eye(20, dtype=bool)]
    assert (off >= 0).all() and (off < 1).all()


def test_rbf_prediction_at_huge_gamma_is_svm_predicts(tmp_path):
    """Before: at gamma=1e14, 40 of housing's 506 predictions differed from
    svm-predict's by up to 0.30."""
    path = data_file("housing_scale")
    X, y = load_dataset("housing_scale")
    for gamma in (1e12, 1e14):
        model = libsmo.train(X, y, svm_type="epsilon_svr", gamma=gamma)
        libsmo.save_model(model, tmp_path / "housing.model")
        expected = svm_predict(path, tmp_path / "housing.model", tmp_path)
        for rows in (X, X.toarray()):
            np.testing.assert_allclose(model.predict(rows), expected, rtol=1e-12,
                                       atol=1e-12)
