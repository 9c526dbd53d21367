"""The test suite's data: the real data sets of ../shared/data, decompressed to a cache
folder, and Debian's Fashion-MNIST.

The data live beside the repository (`../shared/data/*.xz`; LIBSMO_DATA_DIR overrides).
They are decompressed once into LIBSMO_DATA_CACHE (default: a libsmo folder in the
system's temporary directory), never next to the originals. A test that needs a data set
that is missing fails under CI (CI=true) and is skipped elsewhere, with the reason.
"""
import functools
import lzma
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
DATA_DIR = Path(os.environ.get("LIBSMO_DATA_DIR", REPO.parent / "shared" / "data"))
CACHE_DIR = Path(os.environ.get("LIBSMO_DATA_CACHE",
                                Path(tempfile.gettempdir()) / "libsmo-data-cache"))
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


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
