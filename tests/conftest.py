"""Shared fixtures: the real data sets of ../shared/data, decompressed to a cache folder;
the dense/CSR `layout` fixture and LIBSVM's kernels in numpy for the layer tests.

The data live beside the repository (`../shared/data/*.xz`; LIBSMO_DATA_DIR overrides).
They are decompressed once into LIBSMO_DATA_CACHE (default: a libsmo folder in the
system's temporary directory), never next to the originals. A test that needs a data set
that is missing fails under CI (CI=true) and is skipped elsewhere, with the reason.
"""
import ctypes
import functools
import lzma
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("LIBSMO_DATA_DIR", REPO.parent / "shared" / "data"))
CACHE_DIR = Path(os.environ.get("LIBSMO_DATA_CACHE",
                                Path(tempfile.gettempdir()) / "libsmo-data-cache"))
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def process_cpu_seconds(pid=None):
    """CPU seconds (user + system, all threads) a process has used so far: this one's
    (`time.process_time`) or another's from /proc (clock ticks).

    Promises such as "Ctrl-C acts within a second" are about the work a process does
    after the signal, which a busy machine does not change, while wall time on a
    shared machine measures the neighbours too: tests time them in CPU seconds.
    """
    import time
    if pid is None:
        return time.process_time()
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields after the command: state is [0], utime [11], stime [12]
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def data_file(name):
    """Path of the decompressed data set `name` (e.g. "heart_scale", "a9a.t").

    Fails under CI and skips elsewhere when ../shared/data does not have it.
    """
    source = DATA_DIR / f"{name}.xz"
    if not source.exists():
        reason = f"data set {name!r} not found at {source} (set LIBSMO_DATA_DIR)"
        if UNDER_CI:
            pytest.fail(reason)
        pytest.skip(reason)
    target = CACHE_DIR / name
    if not target.exists() or target.stat().st_mtime < source.stat().st_mtime:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=CACHE_DIR, prefix=f".{name}.")
        with os.fdopen(fd, "wb") as out, lzma.open(source) as src:
            shutil.copyfileobj(src, out)
        os.replace(tmp, target)
    return target


@functools.lru_cache(maxsize=None)
def _load(name, n_features):
    from libsmo import load_svmlight_file  # tests/test_formats.py checks it on sklearn's
    X, y = load_svmlight_file(str(data_file(name)), n_features=n_features)
    return X.tocsr(), y


def load_dataset(name, n_rows=None, n_features=None, dense=False):
    """(X, y) of a LIBSVM-format data set: CSR (or dense), the first n_rows rows.

    Returned arrays are copies, so a test may modify them.
    """
    X, y = _load(name, n_features)
    if n_rows is not None:
        X, y = X[:n_rows], y[:n_rows]
    X = X.toarray() if dense else X.copy()
    return X, np.array(y)


@pytest.fixture
def heart_scale():
    """heart_scale (270 x 13, labels +1/-1) as CSR."""
    return load_dataset("heart_scale")


@pytest.fixture(scope="session", autouse=True)
def single_threaded_libsvm():
    """libsvm-official 3.37 computes each kernel row in an OpenMP loop; on a machine
    whose cores are busy its threads wait for each other, and a fit or a prediction
    takes tens to hundreds of times longer (a9a, 8000 rows, linear: 35 s instead of
    under 1 s). One OpenMP thread for the whole session, restored afterwards; libsmo's
    own threads are set explicitly by its n_threads."""
    try:
        gomp = ctypes.CDLL("libgomp.so.1")
    except OSError:
        yield
        return
    before = gomp.omp_get_max_threads()
    gomp.omp_set_num_threads(1)
    yield
    gomp.omp_set_num_threads(before)


# ---------------------------------------------------------------------------------------
# Dense and CSR input, and the kernels in numpy, for the tests of the layers

LAYOUTS = ("dense", "csr")


@pytest.fixture(params=LAYOUTS)
def layout(request):
    """Runs a test once on dense and once on CSR input (see `in_layout`)."""
    return request.param


def in_layout(D, layout):
    """The dense array D as the core reads it: validated C-contiguous float64
    ("dense") or canonical CSR with int32 indices ("csr")."""
    from libsmo._validation import check_data
    return check_data(np.asarray(D, dtype=np.float64) if layout == "dense"
                      else sp.csr_matrix(D))


def kernel_reference(U, V, kernel, gamma, degree, coef0):
    """K(u, v) for every row u of U and v of V, straight from LIBSVM's definitions, on
    dense float64 arrays (no squared-norm expansion for the RBF kernel)."""
    U = np.asarray(U, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    if kernel == "rbf":
        diff = U[:, None, :] - V[None, :, :]
        return np.exp(-gamma * np.einsum("ijk,ijk->ij", diff, diff))
    dots = np.einsum("ik,jk->ij", U, V)
    if kernel == "linear":
        return dots
    if kernel == "poly":
        return (gamma * dots + coef0) ** degree
    if kernel == "sigmoid":
        return np.tanh(gamma * dots + coef0)
    raise AssertionError(kernel)


FASHION_MNIST_DIR = Path(os.environ.get("LIBSMO_FASHION_MNIST",
                                        "/usr/share/datasets/fashion-mnist"))


@functools.lru_cache(maxsize=None)
def _fashion_mnist(kind):
    import gzip
    images = FASHION_MNIST_DIR / f"{kind}-images-idx3-ubyte.gz"
    labels = FASHION_MNIST_DIR / f"{kind}-labels-idx1-ubyte.gz"
    for path in (images, labels):
        if not path.exists():
            reason = (f"Fashion-MNIST file {path} not found (Debian's dataset-fashion-mnist;"
                      " set LIBSMO_FASHION_MNIST)")
            if UNDER_CI:
                pytest.fail(reason)
            pytest.skip(reason)
    with gzip.open(images) as f:
        raw = np.frombuffer(f.read(), dtype=np.uint8, offset=16)
    with gzip.open(labels) as f:
        y = np.frombuffer(f.read(), dtype=np.uint8, offset=8).astype(np.int64)
    return raw.reshape(len(y), 784), y


def load_fashion_mnist(kind="train", n_rows=None):
    """Fashion-MNIST (Debian's dataset-fashion-mnist): pixels scaled to [0, 1] as float64
    (n x 784) and labels 0..9; `kind` "train" (60,000) or "t10k" (10,000). Fails under
    CI and skips elsewhere when the files are missing."""
    X, y = _fashion_mnist(kind)
    if n_rows is not None:
        X, y = X[:n_rows], y[:n_rows]
    return X.astype(np.float64) / 255.0, y.copy()
