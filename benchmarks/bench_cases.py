"""The cases of benchmarks/run.py and how their data are read.

Each case names its training and test data and the problem (svm_type, kernel, C,
gamma, epsilon). Data come from ../shared/data (LIBSVM files, decompressed once into
$LIBSMO_DATA_CACHE by bench_train.decompress), the reviews CSV (TF-IDF features built by
examples/text_reviews.py's own functions), or Fashion-MNIST (Debian's
dataset-fashion-mnist: idx files under /usr/share/datasets/fashion-mnist, pixels scaled
to [0, 1], dense). Cases without a test file are split 70/30 with a fixed seed.
"""
import gzip
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import bench_train  # noqa: E402

SEED = 0              # the 70/30 splits of the cases without a test file
TRAIN_FRACTION = 0.7
REVIEWS_CSV = "Womens Clothing E-Commerce Reviews.csv"
FASHION_DIR = Path(os.environ.get("LIBSMO_FASHION_MNIST",
                                  "/usr/share/datasets/fashion-mnist"))
# 1 / (784 var X) of Fashion-MNIST's 60,000 training images scaled to [0, 1]
# (scikit-learn's gamma="scale"); the 12,000-row subset's is 0.010190
FASHION_GAMMA = 0.010235

# train/test: data set names in the data folder (without .xz); test None: a 70/30 split;
# format: "svmlight" (default), "reviews" or "fashion" (rows: the first rows of the
# 60,000 training images; the test set is the 10,000 test images)
CASES = {
    "a9a": dict(train="a9a", test="a9a.t", n_features=123, svm_type="c_svc",
                kernel="rbf", C=1.0, gamma=0.05),
    "a9a-linear": dict(train="a9a", test="a9a.t", n_features=123, svm_type="c_svc",
                       kernel="linear", C=0.05),
    "w8a": dict(train="w8a", test="w8a.t", n_features=300, svm_type="c_svc",
                kernel="rbf", C=5.0, gamma=0.05),
    "ijcnn1": dict(train="ijcnn1.val", test=None, n_features=22, svm_type="c_svc",
                   kernel="rbf", C=32.0, gamma=2.0),
    "reviews": dict(train=REVIEWS_CSV, test=None, n_features=None, svm_type="c_svc",
                    kernel="rbf", C=1.0, gamma=1.0, format="reviews"),
    "sector": dict(train="sector.scale", test="sector.t.scale", n_features=55197,
                   svm_type="c_svc", kernel="linear", C=1.0),
    "letter": dict(train="letter.scale", test="letter.scale.t", n_features=16,
                   svm_type="c_svc", kernel="rbf", C=10.0, gamma=1.0),
    "pendigits": dict(train="pendigits", test="pendigits.t", n_features=16,
                      svm_type="c_svc", kernel="rbf", C=10.0, gamma=1.0, scale=0.01),
    "housing": dict(train="housing_scale", test=None, n_features=13,
                    svm_type="epsilon_svr", kernel="rbf", C=1.0, gamma=1.0 / 13,
                    epsilon=0.1),
    "fashion-12k": dict(train="fashion-mnist", test="fashion-mnist.t", n_features=784,
                        svm_type="c_svc", kernel="rbf", C=10.0, gamma=FASHION_GAMMA,
                        format="fashion", rows=12000),
    "fashion": dict(train="fashion-mnist", test="fashion-mnist.t", n_features=784,
                    svm_type="c_svc", kernel="rbf", C=10.0, gamma=FASHION_GAMMA,
                    format="fashion", rows=60000),
}


def is_dense(case):
    """Whether a case's data are dense arrays (Fashion-MNIST) rather than CSR."""
    return case.get("format") == "fashion"


def split_rows(n):
    """Sorted training and test row indices of a fixed-seed 70/30 split of n rows.

    numpy's own generator, not scikit-learn's, so that the children need not import
    scikit-learn; every child draws the same split.

    Returns
    -------
    (ndarray, ndarray)
    """
    order = np.random.RandomState(SEED).permutation(n)
    cut = int(TRAIN_FRACTION * n)
    return np.sort(order[:cut]), np.sort(order[cut:])


def read_idx(path):
    """An idx file (gzip or plain) as a numpy array (the MNIST format: a magic number
    whose last byte is the number of dimensions, then big-endian dimensions, then
    unsigned bytes)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    n_dims = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(n_dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * n_dims).reshape(dims)


def fashion_paths():
    """The four Fashion-MNIST files (train/test images and labels)."""
    names = {"train_images": "train-images-idx3-ubyte.gz",
             "train_labels": "train-labels-idx1-ubyte.gz",
             "test_images": "t10k-images-idx3-ubyte.gz",
             "test_labels": "t10k-labels-idx1-ubyte.gz"}
    paths = {key: FASHION_DIR / name for key, name in names.items()}
    missing = [str(p) for p in paths.values() if not p.exists()]
    if missing:
        sys.exit(f"bench_cases: Fashion-MNIST not found ({', '.join(missing)}): install "
                 "Debian's dataset-fashion-mnist or set LIBSMO_FASHION_MNIST")
    return {key: str(p) for key, p in paths.items()}


def load_fashion(paths, rows):
    """Fashion-MNIST as dense float64 in [0, 1]: the first `rows` training images and
    the 10,000 test images, with float labels 0..9."""
    X = read_idx(paths["train_images"]).reshape(60000, -1)[:rows] / 255.0
    y = read_idx(paths["train_labels"])[:rows].astype(np.float64)
    Xt = read_idx(paths["test_images"]).reshape(10000, -1) / 255.0
    yt = read_idx(paths["test_labels"]).astype(np.float64)
    return np.ascontiguousarray(X), y, np.ascontiguousarray(Xt), yt


def reviews_features(csv_path):
    """TF-IDF features of the reviews, built as examples/text_reviews.py builds them.

    Its own functions (read_reviews, vectorizer) and split (stratified 70/30 with its
    SEED, vocabulary learnt from the training part) are used, not copies of them.

    Returns
    -------
    (X, y, Xt, yt)
        CSR float64 matrices and integer labels ("Recommended IND").
    """
    sys.path.insert(0, str(REPO / "examples"))
    from sklearn.model_selection import train_test_split

    import text_reviews
    texts, labels, _ = text_reviews.read_reviews(csv_path)
    train_text, test_text, y, yt = train_test_split(
        texts, labels, test_size=0.3, random_state=text_reviews.SEED, stratify=labels)
    tfidf = text_reviews.vectorizer()
    X = tfidf.fit_transform(train_text).tocsr()
    Xt = tfidf.transform(test_text).tocsr()
    return X, np.asarray(y, dtype=np.float64), Xt, np.asarray(yt, dtype=np.float64)


def data_paths(case, data_dir):
    """The files a case reads: LIBSVM files decompressed into the cache (once), or the
    Fashion-MNIST idx files."""
    if case.get("format") == "fashion":
        return fashion_paths()
    names = [case["train"]] + ([case["test"]] if case.get("test") else [])
    return {name: str(bench_train.decompress(data_dir, name)) for name in names}


def load_data(job):
    """Load a case's data with the job's library's own reader.

    Parameters
    ----------
    job : dict
        The child's job (see run.py's `child_main`): case, library, paths, data_dir,
        rows.

    Returns
    -------
    (X, y, Xt, yt, seconds)
        Training and test matrices (CSR, or dense for Fashion-MNIST), their labels, and
        the reading time.
    """
    case, library = job["case"], job["library"]
    paths = job["paths"]
    # the readers are imported before the clock starts: the first import of
    # sklearn.datasets alone takes about a second
    if library == "libsmo":
        from libsmo import load_svmlight_file
    elif library in ("sklearn", "sklearnex"):
        import sklearn.datasets  # noqa: F401  (bench_train.load imports it)
    else:
        from libsvm.svmutil import svm_read_problem
    if case.get("format") == "reviews":
        sys.path.insert(0, str(REPO / "examples"))
        import text_reviews  # noqa: F401

    def read(name):
        if library == "libsmo":
            X, y = load_svmlight_file(paths[name], n_features=case["n_features"])
        elif library in ("sklearn", "sklearnex"):
            X, y = bench_train.load(job["data_dir"], name, case["n_features"])
        else:
            y, X = svm_read_problem(paths[name], return_scipy=True)
        return X.tocsr(), np.asarray(y, dtype=np.float64)

    start = time.perf_counter()
    if case.get("format") == "reviews":
        X, y, Xt, yt = reviews_features(paths[case["train"]])
    elif case.get("format") == "fashion":
        X, y, Xt, yt = load_fashion(paths, case["rows"])
    else:
        X, y = read(case["train"])
        if case["test"] is not None:
            Xt, yt = read(case["test"])
    seconds = time.perf_counter() - start
    if case.get("format") not in ("reviews", "fashion") and case["test"] is None:
        train_rows, test_rows = split_rows(X.shape[0])
        X, y, Xt, yt = X[train_rows], y[train_rows], X[test_rows], y[test_rows]
    if case.get("scale") is not None:
        X, Xt = X * case["scale"], Xt * case["scale"]
    if job["rows"]:
        X, y, Xt, yt = X[:job["rows"]], y[:job["rows"]], Xt[:job["rows"]], yt[:job["rows"]]
    return X, y, Xt, yt, seconds


def describe(case):
    """Short text of a case's problem, e.g. "RBF C=1 g=0.05"."""
    kind = "SVR " if case["svm_type"] == "epsilon_svr" else ""
    text = f"{kind}{'RBF' if case['kernel'] == 'rbf' else 'linear'} C={case['C']:g}"
    if case["kernel"] == "rbf":
        text += f" g={case['gamma']:.3g}"
    if case["svm_type"] == "epsilon_svr":
        text += f" eps={case['epsilon']:g}"
    return text
