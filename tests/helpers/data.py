"""The test suite's data: what the default suite reads ships in tests/data; the
full-size sets are optional.

- tests/data (the repository's own, README.md there gives sources and licences): the
  small LIBSVM sets whole, the first rows of the large ones (`SUBSETS`), the first
  4,500 clothing reviews, and the first images of Fashion-MNIST. Every test of the
  default suite reads only these, so it runs the same from any clone.
- the full-size sets: `LIBSMO_DATA_DIR` (default ../shared/data beside the
  repository, where it exists) for the LIBSVM files and the reviews, and
  `LIBSMO_FASHION_MNIST` (default Debian's dataset-fashion-mnist) for Fashion-MNIST.
  A test that needs more rows than the repository keeps reads them there and is
  skipped, with the reason, where they are missing; those tests are marked `slow`.

Files are decompressed once into LIBSMO_DATA_CACHE (default: a libsmo folder in the
system's temporary directory), never next to the originals; the repository's and the
full set's copies of a name are cached apart.
"""
import functools
import gzip
import hashlib
import lzma
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
REPO_DATA_DIR = REPO / "tests" / "data"
DATA_DIR = Path(os.environ.get("LIBSMO_DATA_DIR", REPO.parent / "shared" / "data"))
CACHE_DIR = Path(os.environ.get("LIBSMO_DATA_CACHE",
                                Path(tempfile.gettempdir()) / "libsmo-data-cache"))
# a missing peer program (svm-train, ...) fails the tests that need it under CI
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# the sets of which tests/data keeps only the first rows (the others it keeps whole);
# tests/data/make_subsets.py writes them
SUBSETS = {"w8a": 3000, "w8a.t": 1500, "ijcnn1.val": 5000, "sector.scale": 200,
           "a1a.t": 2000, "Womens Clothing E-Commerce Reviews.csv": 4500}
FASHION_SUBSET = {"train": 3000, "t10k": 1000}


def _needs_full(name, why):
    pytest.skip(f"{why}: the full-size {name!r} is not at {DATA_DIR / (name + '.xz')} "
                "(set LIBSMO_DATA_DIR to the folder of the full-size data sets)")


def _decompressed(source):
    """Path of the xz file `source` decompressed into CACHE_DIR (refreshed when the
    source is newer)."""
    tag = hashlib.sha1(str(source.parent).encode()).hexdigest()[:8]
    target = CACHE_DIR / tag / source.stem
    if not target.exists() or target.stat().st_mtime < source.stat().st_mtime:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{source.stem}.")
        with os.fdopen(fd, "wb") as out, lzma.open(source) as src:
            shutil.copyfileobj(src, out)
        os.replace(tmp, target)
    return target


def data_file(name, full=False):
    """Path of the decompressed data set `name` (e.g. "heart_scale", "a9a.t").

    The repository's copy (tests/data: whole, or the first rows of the sets in
    `SUBSETS`); with full=True the full-size file, which for a set of `SUBSETS` is
    LIBSMO_DATA_DIR's (the test is skipped, with the reason, where it is missing).
    """
    if not (full and name in SUBSETS):
        source = REPO_DATA_DIR / f"{name}.xz"
        if source.exists():
            return _decompressed(source)
    source = DATA_DIR / f"{name}.xz"
    if not source.exists():
        _needs_full(name, "this test reads the whole file")
    return _decompressed(source)


@functools.lru_cache(maxsize=None)
def _load(name, n_features, full):
    from libsmo import load_svmlight_file  # tests/io/test_formats.py checks it on sklearn's
    X, y = load_svmlight_file(str(data_file(name, full=full)), n_features=n_features)
    return X.tocsr(), y


def load_dataset(name, n_rows=None, n_features=None, dense=False):
    """(X, y) of a LIBSVM-format data set: CSR (or dense), the first n_rows rows (None:
    all of them). The repository's rows where it keeps that many, else the full-size
    file's (skipped, with the reason, where it is missing).

    Returned arrays are copies, so a test may modify them.
    """
    kept = SUBSETS.get(name)
    full = kept is not None and (n_rows is None or n_rows > kept)
    if full and not (DATA_DIR / f"{name}.xz").exists():
        _needs_full(name, f"this test reads {'all' if n_rows is None else n_rows} rows, "
                          f"the repository keeps the first {kept}")
    X, y = _load(name, n_features, full)
    if n_rows is not None:
        X, y = X[:n_rows], y[:n_rows]
    X = X.toarray() if dense else X.copy()
    return X, np.array(y)


FASHION_MNIST_DIR = Path(os.environ.get("LIBSMO_FASHION_MNIST",
                                        "/usr/share/datasets/fashion-mnist"))
REPO_FASHION_MNIST_DIR = REPO_DATA_DIR / "fashion-mnist"


@functools.lru_cache(maxsize=None)
def _fashion_mnist(folder, kind):
    images = Path(folder) / f"{kind}-images-idx3-ubyte.gz"
    labels = Path(folder) / f"{kind}-labels-idx1-ubyte.gz"
    with gzip.open(images) as f:
        raw = np.frombuffer(f.read(), dtype=np.uint8, offset=16)
    with gzip.open(labels) as f:
        y = np.frombuffer(f.read(), dtype=np.uint8, offset=8).astype(np.int64)
    return raw.reshape(len(y), 784), y


def load_fashion_mnist(kind="train", n_rows=None):
    """Fashion-MNIST: pixels scaled to [0, 1] as float64 (n x 784) and labels 0..9;
    `kind` "train" (60,000) or "t10k" (10,000), the first n_rows rows (None: all).
    The repository's first images where it keeps that many (`FASHION_SUBSET`), else
    Debian's dataset-fashion-mnist (LIBSMO_FASHION_MNIST; skipped, with the reason,
    where it is missing)."""
    folder = REPO_FASHION_MNIST_DIR
    if n_rows is None or n_rows > FASHION_SUBSET[kind]:
        folder = FASHION_MNIST_DIR
        if not (folder / f"{kind}-images-idx3-ubyte.gz").exists():
            pytest.skip(f"this test reads {'all' if n_rows is None else n_rows} "
                        f"Fashion-MNIST {kind} images, the repository keeps the first "
                        f"{FASHION_SUBSET[kind]}: Debian's dataset-fashion-mnist is not "
                        f"at {folder} (set LIBSMO_FASHION_MNIST)")
    X, y = _fashion_mnist(str(folder), kind)
    if n_rows is not None:
        X, y = X[:n_rows], y[:n_rows]
    return X.astype(np.float64) / 255.0, y.copy()


def script_env():
    """The environment of a benchmark or example script run by a test: its data (the
    LIBSVM files it finds under --data-dir REPO_DATA_DIR, Fashion-MNIST through
    LIBSMO_FASHION_MNIST) are the repository's."""
    return dict(os.environ, LIBSMO_DATA_DIR=str(REPO_DATA_DIR),
                LIBSMO_FASHION_MNIST=str(REPO_FASHION_MNIST_DIR))
