"""Where the benchmarks' data are, and the readers that belong to no peer.

LIBSVM-format data sets are ``<name>.xz`` in LIBSMO_DATA_DIR (default: ../shared/data
beside the repository, as tests/helpers/data.py reads them), decompressed once into
LIBSMO_DATA_CACHE (default: a libsmo-data-cache folder in the system's temporary
directory, the tests' cache too), never next to the originals. Fashion-MNIST is Debian's
dataset-fashion-mnist (idx files under LIBSMO_FASHION_MNIST, default
/usr/share/datasets/fashion-mnist).
"""
import gzip
import hashlib
import lzma
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("LIBSMO_DATA_DIR", REPO.parent / "shared" / "data"))
CACHE_DIR = Path(os.environ.get("LIBSMO_DATA_CACHE",
                                Path(tempfile.gettempdir()) / "libsmo-data-cache"))
FASHION_DIR = Path(os.environ.get("LIBSMO_FASHION_MNIST",
                                  "/usr/share/datasets/fashion-mnist"))
FASHION_FILES = {"train_images": "train-images-idx3-ubyte.gz",
                 "train_labels": "train-labels-idx1-ubyte.gz",
                 "test_images": "t10k-images-idx3-ubyte.gz",
                 "test_labels": "t10k-labels-idx1-ubyte.gz"}


def decompress(name, data_dir=None):
    """Path of ``<data_dir>/<name>.xz`` decompressed into CACHE_DIR.

    Refreshed when the source is newer; written to a temporary name, then renamed into
    place, so that two processes never read half a file.

    Parameters
    ----------
    name : str
        A data set's name without ``.xz``, e.g. "a9a.t".
    data_dir : path-like, optional
        Default DATA_DIR (LIBSMO_DATA_DIR).

    Returns
    -------
    pathlib.Path
    """
    source = Path(data_dir or DATA_DIR) / f"{name}.xz"
    if not source.exists():
        sys.exit(f"benchmarks: data set {name!r} not found at {source} (set "
                 "LIBSMO_DATA_DIR or use --data-dir)")
    if CACHE_DIR.resolve() == source.parent.resolve():
        sys.exit(f"benchmarks: the cache folder {CACHE_DIR} is the data folder; set "
                 "LIBSMO_DATA_CACHE elsewhere")
    # a subfolder per source folder: tests/data keeps the first rows of some sets under
    # the full sets' names, and a cache keyed by name alone served them to full runs
    tag = hashlib.sha1(str(source.parent.resolve()).encode()).hexdigest()[:8]
    target = CACHE_DIR / tag / name
    if not target.exists() or target.stat().st_mtime < source.stat().st_mtime:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{name}.")
        try:
            with os.fdopen(fd, "wb") as out, lzma.open(source) as src:
                shutil.copyfileobj(src, out)
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
    return target


def load_svmlight(name, n_features=None, data_dir=None):
    """(X as CSR float64, y) of a LIBSVM-format data set, read by scikit-learn's reader.

    For scripts in which libsmo and a peer share one copy of the data: a reader that is
    neither of theirs (run.py times each library's own reader instead; the tests check
    libsmo's against this one).

    Returns
    -------
    (scipy.sparse.csr_matrix, ndarray)
    """
    from sklearn.datasets import load_svmlight_file
    X, y = load_svmlight_file(str(decompress(name, data_dir)), n_features=n_features)
    return X.tocsr(), np.asarray(y, dtype=np.float64)


def read_idx(path):
    """An idx file (gzip or plain) as a numpy array: the MNIST format, a magic number
    whose last byte is the number of dimensions, big-endian dimensions, unsigned bytes.

    Returns
    -------
    ndarray of uint8
    """
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    n_dims = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(n_dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * n_dims).reshape(dims)


def fashion_paths():
    """The four Fashion-MNIST files (training and test images and labels) as strings;
    exits with a message when one is missing."""
    paths = {key: FASHION_DIR / name for key, name in FASHION_FILES.items()}
    missing = [str(p) for p in paths.values() if not p.exists()]
    if missing:
        sys.exit(f"benchmarks: Fashion-MNIST not found ({', '.join(missing)}): install "
                 "Debian's dataset-fashion-mnist or set LIBSMO_FASHION_MNIST")
    return {key: str(p) for key, p in paths.items()}


def load_fashion(rows=60000, paths=None):
    """Fashion-MNIST as dense float64 in [0, 1]: the first `rows` training images and
    the 10,000 test images, with float labels 0..9.

    Returns
    -------
    (X, y, Xt, yt)
    """
    paths = paths or fashion_paths()
    # the idx headers' counts: 60,000 and 10,000, or the tests' first images
    images = read_idx(paths["train_images"])
    X = images.reshape(len(images), -1)[:rows] / 255.0
    y = read_idx(paths["train_labels"])[:rows].astype(np.float64)
    Xt = read_idx(paths["test_images"]).reshape(-1, 28 * 28) / 255.0
    yt = read_idx(paths["test_labels"]).astype(np.float64)
    return np.ascontiguousarray(X), y, np.ascontiguousarray(Xt), yt
