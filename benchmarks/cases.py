"""The cases of run.py, and how each library reads a case's data.

Each case names its training and test data and the problem (svm_type, kernel, C,
gamma, epsilon). Data come from LIBSVM files (`data.decompress`), the reviews CSV
(TF-IDF features built by examples/text_reviews.py's own functions) or Fashion-MNIST
(pixels scaled to [0, 1], dense). Cases without a test file are split 70/30 with a
fixed seed.
"""
import dataclasses
import sys
import time
from typing import Optional

import numpy as np

from benchmarks import data

SEED = 0              # the 70/30 splits of the cases without a test file
TRAIN_FRACTION = 0.7
REVIEWS_CSV = "Womens Clothing E-Commerce Reviews.csv"
# 1 / (784 var X) of Fashion-MNIST's 60,000 training images scaled to [0, 1]
# (scikit-learn's gamma="scale"); the 12,000-row subset's is 0.010190
FASHION_GAMMA = 0.010235


@dataclasses.dataclass(frozen=True)
class Case:
    """One benchmark problem: its data and its parameters.

    Attributes
    ----------
    name : str
    train, test : str or None
        Data set names in the data folder (without .xz); test None: a 70/30 split.
    n_features : int or None
    svm_type : str
        "c_svc" or "epsilon_svr".
    kernel : str
        "rbf" or "linear".
    C, gamma, epsilon : float
    format : str
        "svmlight", "reviews" (the CSV, TF-IDF) or "fashion" (idx files).
    rows : int or None
        Fashion-MNIST: the first `rows` of the 60,000 training images.
    scale : float or None
        A factor applied to every feature after reading (pendigits' 0..100 to [0, 1]).
    """
    name: str
    train: str
    test: Optional[str]
    n_features: Optional[int]
    svm_type: str
    kernel: str
    C: float
    gamma: Optional[float] = None
    epsilon: float = 0.1
    format: str = "svmlight"
    rows: Optional[int] = None
    scale: Optional[float] = None

    @property
    def dense(self):
        """Whether the case's data are dense arrays (Fashion-MNIST) rather than CSR."""
        return self.format == "fashion"

    def describe(self):
        """Short text of the problem, e.g. "RBF C=1 g=0.05"."""
        kind = "SVR " if self.svm_type == "epsilon_svr" else ""
        text = f"{kind}{'RBF' if self.kernel == 'rbf' else 'linear'} C={self.C:g}"
        if self.kernel == "rbf":
            text += f" g={self.gamma:.3g}"
        if self.svm_type == "epsilon_svr":
            text += f" eps={self.epsilon:g}"
        return text

    def replace(self, **changes):
        """The same case with some parameters changed (`dataclasses.replace`)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self):
        """The case as JSON-ready fields (the results files' "params")."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, fields, name=None):
        """A case from its fields (as `to_dict` wrote them, or an older results file's
        "params", which had no name, format "svmlight" left out)."""
        known = {f.name for f in dataclasses.fields(cls)}
        values = {key: value for key, value in fields.items() if key in known}
        values.setdefault("name", name)
        values.setdefault("format", "svmlight")
        return cls(**values)


CASES = {case.name: case for case in [
    Case("a9a", "a9a", "a9a.t", 123, "c_svc", "rbf", C=1.0, gamma=0.05),
    Case("a9a-linear", "a9a", "a9a.t", 123, "c_svc", "linear", C=0.05),
    Case("w8a", "w8a", "w8a.t", 300, "c_svc", "rbf", C=5.0, gamma=0.05),
    Case("ijcnn1", "ijcnn1.val", None, 22, "c_svc", "rbf", C=32.0, gamma=2.0),
    Case("reviews", REVIEWS_CSV, None, None, "c_svc", "rbf", C=1.0, gamma=1.0,
         format="reviews"),
    Case("sector", "sector.scale", "sector.t.scale", 55197, "c_svc", "linear", C=1.0),
    Case("letter", "letter.scale", "letter.scale.t", 16, "c_svc", "rbf", C=10.0,
         gamma=1.0),
    Case("pendigits", "pendigits", "pendigits.t", 16, "c_svc", "rbf", C=10.0, gamma=1.0,
         scale=0.01),
    Case("housing", "housing_scale", None, 13, "epsilon_svr", "rbf", C=1.0,
         gamma=1.0 / 13, epsilon=0.1),
    Case("fashion-12k", "fashion-mnist", "fashion-mnist.t", 784, "c_svc", "rbf", C=10.0,
         gamma=FASHION_GAMMA, format="fashion", rows=12000),
    Case("fashion", "fashion-mnist", "fashion-mnist.t", 784, "c_svc", "rbf", C=10.0,
         gamma=FASHION_GAMMA, format="fashion", rows=60000),
]}


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


def reviews_features(csv_path):
    """TF-IDF features of the reviews, built as examples/text_reviews.py builds them.

    Its own functions (read_reviews, vectorizer) and split (stratified 70/30 with its
    SEED, vocabulary learnt from the training part) are used, not copies of them.

    Returns
    -------
    (X, y, Xt, yt)
        CSR float64 matrices and float labels ("Recommended IND").
    """
    sys.path.insert(0, str(data.REPO / "examples"))
    from sklearn.model_selection import train_test_split

    import text_reviews
    texts, labels, _ = text_reviews.read_reviews(csv_path)
    train_text, test_text, y, yt = train_test_split(
        texts, labels, test_size=0.3, random_state=text_reviews.SEED, stratify=labels)
    tfidf = text_reviews.vectorizer()
    X = tfidf.fit_transform(train_text).tocsr()
    Xt = tfidf.transform(test_text).tocsr()
    return X, np.asarray(y, dtype=np.float64), Xt, np.asarray(yt, dtype=np.float64)


def data_paths(case, data_dir=None):
    """The files a case reads: LIBSVM files decompressed into the cache (once), or the
    Fashion-MNIST idx files.

    Returns
    -------
    dict
        name -> path (str).
    """
    if case.format == "fashion":
        return data.fashion_paths()
    names = [case.train] + ([case.test] if case.test else [])
    return {name: str(data.decompress(name, data_dir)) for name in names}


def load_case(case, paths, read, rows=None):
    """A case's training and test data, read by `read` (a library's own reader).

    Parameters
    ----------
    case : Case
    paths : dict
        From `data_paths`.
    read : callable
        read(path, n_features) -> (X as CSR, y): a peer's `reader()`, imported before
        this is called, so that the clock counts reading, not importing.
    rows : int, optional
        Keep only the first `rows` training and test rows (a quick run).

    Returns
    -------
    (X, y, Xt, yt, seconds)
        Training and test matrices (CSR, or dense for Fashion-MNIST), their float
        labels, and the reading time (the reviews and Fashion-MNIST are read by the same
        code for every library).
    """
    if case.format == "reviews":
        sys.path.insert(0, str(data.REPO / "examples"))
        import text_reviews  # noqa: F401  (imported before the clock starts)
    start = time.perf_counter()
    if case.format == "reviews":
        X, y, Xt, yt = reviews_features(paths[case.train])
    elif case.format == "fashion":
        X, y, Xt, yt = data.load_fashion(case.rows, paths)
    else:
        X, y = read(paths[case.train], case.n_features)
        if case.test is not None:
            Xt, yt = read(paths[case.test], case.n_features)
    seconds = time.perf_counter() - start
    if case.format == "svmlight" and case.test is None:
        train_rows, test_rows = split_rows(X.shape[0])
        X, y, Xt, yt = X[train_rows], y[train_rows], X[test_rows], y[test_rows]
    if case.scale is not None:
        X, Xt = X * case.scale, Xt * case.scale
    if rows:
        X, y, Xt, yt = X[:rows], y[:rows], Xt[:rows], yt[:rows]
    return X, np.asarray(y, dtype=np.float64), Xt, np.asarray(yt, dtype=np.float64), seconds
