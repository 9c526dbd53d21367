"""libsmo's LinearSVC and LinearSVR against LIBLINEAR 2.50 (liblinear-official,
liblinear-multicore at two threads) and scikit-learn's LinearSVC and LinearSVR, on a9a,
w8a, a TF-IDF of the clothing reviews and sector (classification), and housing, bodyfat
and the reviews' ratings (regression), at C in {0.01, 0.1, 1, 10}.

Every library solves the same problem: LIBLINEAR's -s 3 (hinge, dual coordinate
descent) or -s 1 (squared hinge, dual coordinate descent, continued by the primal Newton
method when its 300 epochs run out), the bias as a feature of value 1 (-B 1; for the
estimators fit_intercept=True, intercept_scaling=1), one-vs-rest for several classes, the
same eps (--eps, default 0.001, scikit-learn's tol) and LIBLINEAR's 300 epochs
(max_iter=300 for the estimators). libsmo runs LinearSVC(dual=True, n_jobs=1) and, for
the one-vs-rest sets, n_jobs=2 as well; liblinear-multicore runs "-m 2" (its parallel
dual coordinate descent; for -s 11 its Newton method's row passes on two threads, as
libsmo's LinearSVR(dual=False, n_jobs=2) beside it). scikit-learn's copy of LIBLINEAR does not switch to Newton
(it warns instead).

Timed: training (libsmo and scikit-learn: fit on the CSR matrix, input checks
included; LIBLINEAR: train() on a problem converted beforehand, so its Python
conversion is left out) and prediction of the test set (LIBLINEAR: predict(), which
converts the rows in Python; the estimators: predict()). The libraries alternate run by
run (the order reversed every other run) and the table gives medians over --repeats
runs and the median ratios libsmo / LIBLINEAR (below 1: libsmo faster). A call under
5 ms (the small regression sets) is timed as the mean of repeated calls over 50 ms,
for every library alike: one cold call measures the caches and the clock. Other
sessions share this machine: read ratios, not seconds.

The primal objective 1/2 (|w|^2 + b^2) + C sum_i loss_i is computed here, the same way,
from each library's w and b (summed over the one-vs-rest problems) for every run; the
table gives each library's median and its relative difference from liblinear-official's.
The dual's eps bounds the primal value only loosely (two runs that both reach eps 0.001
from different random orders differ by up to a few 1e-4, and by 1e-2 on bodyfat's
-s 13), so the check is one-sided and against the spread of LIBLINEAR's own runs: the
script exits with status 1 when libsmo's median objective exceeds the highest of
LIBLINEAR's by more than --objective-tol (1e-4) where both reached eps and LIBLINEAR's
own runs agree within it (where they do not, the case is shown as not checked, and
the JSON's reference_spread says how far apart they were), or when libsmo's n_jobs=2
model is not its n_jobs=1 model (the Newton method's: when its objective is not
LIBLINEAR's, as for n_jobs=1). A run that
stopped at its 300 epochs before eps (LIBLINEAR's hinge; the estimators' warnings) is
marked "capped" and not checked: its answer depends on the epochs' random orders.

"libsmo-linear-train" is libsmo's LIBLINEAR train() (`libsmo.training._liblinear`, the
library behind the libsmo-linear-train command) on the same CSR rows with LIBLINEAR's
parameters, timed as LIBLINEAR's train() is. It stops where LIBLINEAR stops: where
LIBLINEAR's hinge (-s 3, -s 13) takes its 300 epochs short of eps, so does it, where
the estimator goes on to eps within the work of 300 full epochs; so on those rows it is
the same work as LIBLINEAR's, and elsewhere the same stopping rule. Its permutations
come from fixed seeds, as LIBLINEAR's from its one rand() stream.

The regressions (--data housing bodyfat reviews-rating; --solvers 13 12 11) solve
LIBLINEAR's -s 13 (epsilon-insensitive loss, dual coordinate descent; "capped" where
its 300 epochs run out), -s 12 (its square, the dual continued by the Newton method as
for -s 1) and -s 11 (the square by the primal Newton method; the estimators'
dual=False), with -p --epsilon (default LIBLINEAR's 0.1; the estimators' epsilon), the
same -B 1, eps and epochs. Their primal objective is 1/2 (|w|^2 + b^2) + C sum
max(0, |y_i - w'x_i - b| - p) (squared for -s 12 and 11), checked as the classifiers',
and the test mean squared error stands for the accuracy. liblinear-multicore runs only
-s 11 at two threads: its -s 12 and -s 13 are LIBLINEAR's one-thread dual. housing and
bodyfat have one file each: the first 80% of its rows train, the rest test; the
reviews predict their "Rating" (1 to 5). Without liblinear-official, the LIBLINEAR
column is liblinear-multicore at one thread (for the regressions LIBLINEAR's code but
its random stream). --json FILE writes the rows of the committed results
(benchmarks/results-committed/linear_svm.json, linear_svr.json).

--svc-linear adds libsmo.SVC(kernel="linear") on the two-class sets with the hinge loss:
LIBSVM's problem (an unregularised bias and its equality constraint, solved by SMO on
w from a start by LIBLINEAR's coordinate descent), so its time and accuracy are shown
beside the others; its objective (computed with b^2, which its problem does not have)
is not compared, but its answer is checked by LIBSVM's stopping rule: m(a) - M(a) over
every training row, at most eps plus what LIBSVM's float32 Q rows may leave in the
kernel solver's gradient (`float32_allowance`; the primal solver hands large-C problems
over to that solver).

--convergence instead counts ConvergenceWarnings of libsmo's and scikit-learn's
LinearSVC (LinearSVR on the regression sets) at their defaults (tol=1e-4,
max_iter=1000, dual="auto", both losses; LinearSVR's epsilon 0) over the same data and
C values, the data as given and standardised (StandardScaler without centring, which
keeps sparse data sparse).

OpenMP threads wait passively (OMP_WAIT_POLICY=passive, unless set): spinning at
liblinear-multicore's barriers on a shared machine made its 2-thread runs 40 times
slower than its one thread (a9a, C=1).

liblinear-official and liblinear-multicore install the same package, `liblinear`;
the importable one is used as whichever it is (liblinear-multicore has `-m`), and the
other is loaded from a folder given by --liblinear-official / --liblinear-multicore
(made by `pip install --target DIR liblinear-official`).

Data: ../shared/data/<name>.xz decompressed into $LIBSMO_DATA_CACHE (default
$TMPDIR/libsmo-data-cache), never into the repository. The reviews: title and text,
TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True), the first 80% of the
rows to train and the rest to test, predicting the "Recommended IND" column (binary;
"reviews") or the "Department Name" column (six classes, one-vs-rest;
"reviews-department").

    python benchmarks/bench_linear_svm.py --liblinear-official /tmp/peers/liblinear-official
    python benchmarks/bench_linear_svm.py --data a9a --C 0.1 --repeats 1
    python benchmarks/bench_linear_svm.py --data housing bodyfat reviews-rating --json FILE
    python benchmarks/bench_linear_svm.py --convergence
    python benchmarks/bench_linear_svm.py --convergence --data housing bodyfat reviews-rating
"""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
# liblinear-multicore's threads wait at a barrier each epoch; spinning there (libgomp's
# default) on a shared machine made its runs 40 times slower than one thread
os.environ.setdefault("OMP_WAIT_POLICY", "passive")
import argparse
import gc
import importlib
import importlib.util
import json
import logging
import math
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import libsmo  # noqa: E402
from benchmarks import data as bench_data  # noqa: E402
from benchmarks.committed_results import objective_check  # noqa: E402
from benchmarks.measure import blas_threads  # noqa: E402

DATASETS = {
    "a9a": ("a9a", "a9a.t", 123),
    "w8a": ("w8a", "w8a.t", 300),
    "reviews": None,
    "reviews-department": None,
    "sector": ("sector.scale", "sector.t.scale", 55197),
    # regression: one file each, the first 80% of its rows to train
    "housing": ("housing_scale", None, 13),
    "bodyfat": ("bodyfat_scale", None, 14),
    "reviews-rating": None,
}
REGRESSION_SETS = ("housing", "bodyfat", "reviews-rating")
# LIBLINEAR's solver types and the estimators' loss for each
LOSSES = {3: "hinge", 1: "squared_hinge", 13: "epsilon_insensitive",
          12: "squared_epsilon_insensitive", 11: "squared_epsilon_insensitive"}
REGRESSION_SOLVERS = (13, 12, 11)
SQUARED_LOSS = (1, 12, 11)
PRIMAL_SOLVERS = (11,)    # the estimators' dual=False
# the duals whose 300 epochs end the run (-s 1 and -s 12 go on by the Newton method)
CAPPED_BY_EPOCHS = (3, 13)
# the line LIBLINEAR (and libsmo's LIBLINEAR train()) prints when a dual's epochs run out
CAPPED_LINE = "reaching max number of iterations"
# liblinear-multicore's parallel solvers among these ("-m": -s 0, 1, 2, 3, 5, 6, 11, 21;
# its -s 12 and -s 13 are LIBLINEAR's one-thread dual)
MULTICORE_SOLVERS = (3, 1, 11)
REVIEWS = "Womens Clothing E-Commerce Reviews.csv"


# ------------------------------------------------------------------------- the peers

def load_liblinear(folder, alias):
    """The `liblinear` package of a `pip install --target` folder, as module `alias`."""
    init = Path(folder) / "liblinear" / "__init__.py"
    if not init.exists():
        sys.exit(f"bench_linear_svm: no liblinear package in {folder}")
    spec = importlib.util.spec_from_file_location(
        alias, init, submodule_search_locations=[str(init.parent)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[alias] = module
    spec.loader.exec_module(module)
    return importlib.import_module(f"{alias}.liblinearutil")


def is_multicore(util):
    return "nr_thread" in getattr(util.parameter, "_names", ())


def find_peers(args):
    """{"official": liblinearutil or None, "multicore": ... or None}; without
    liblinear-official, "official" is liblinear-multicore run at one thread (LIBLINEAR
    2.50's one-thread solvers; for the regressions its code but the random stream)."""
    peers = {"official": None, "multicore": None}
    try:
        import liblinear.liblinearutil as installed
        peers["multicore" if is_multicore(installed) else "official"] = installed
    except ImportError:
        pass
    for kind, folder in (("official", args.liblinear_official),
                         ("multicore", args.liblinear_multicore)):
        if folder:
            util = load_liblinear(folder, f"liblinear_{kind}")
            if is_multicore(util) != (kind == "multicore"):
                sys.exit(f"bench_linear_svm: {folder} holds the other LIBLINEAR")
            peers[kind] = util
    if peers["official"] is None and peers["multicore"] is not None:
        peers["official"] = peers["multicore"]
    return peers


# --------------------------------------------------------------------------- the data

def reviews_text(data_dir, label):
    """The reviews' title and text, one string each, and their `label` column, for the
    reviews that have one."""
    import pandas as pd
    frame = pd.read_csv(bench_data.decompress(REVIEWS, data_dir))
    frame = frame[frame[label].notna()]
    text = (frame["Title"].fillna("") + " " + frame["Review Text"].fillna("")).to_numpy()
    return text, frame[label].to_numpy()


def reviews_data(data_dir, label="Recommended IND"):
    """The reviews' TF-IDF rows and `label`: "Recommended IND" (two classes),
    "Department Name" (six classes, as codes of the sorted names; the reviews without
    one left out) or "Rating" (1 to 5, a regression target as given), the first 80% to
    train."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    text, labels = reviews_text(data_dir, label)
    y = (labels.astype(np.float64) if label == "Rating" else
         np.unique(labels, return_inverse=True)[1].astype(np.float64))
    cut = int(0.8 * len(y))
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
    X = vectorizer.fit_transform(text[:cut]).tocsr()
    Xt = vectorizer.transform(text[cut:]).tocsr()
    return X, y[:cut], Xt, y[cut:]


def int32_csr(X):
    """CSR with 32-bit indices, as LIBLINEAR's wrappers (scikit-learn's too) take it
    (scikit-learn's svmlight reader gives 64-bit ones)."""
    import scipy.sparse as sp
    X = X.tocsr()
    return sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                         shape=X.shape)


def dataset(name, data_dir):
    if name == "reviews":
        X, y, Xt, yt = reviews_data(data_dir)
    elif name == "reviews-department":
        X, y, Xt, yt = reviews_data(data_dir, "Department Name")
    elif name == "reviews-rating":
        X, y, Xt, yt = reviews_data(data_dir, "Rating")
    else:
        train, test, n_features = DATASETS[name]
        X, y = bench_data.load_svmlight(train, n_features=n_features, data_dir=data_dir)
        if test is None:
            cut = int(0.8 * len(y))
            X, y, Xt, yt = X[:cut], y[:cut], X[cut:], y[cut:]
        else:
            Xt, yt = bench_data.load_svmlight(test, n_features=n_features,
                                              data_dir=data_dir)
    return int32_csr(X), y, int32_csr(Xt), yt


# ---------------------------------------------------------------------------- the runs

def primal_objective(X, y, classes, W, b, C, solver, epsilon=0.0):
    """1/2 (|w|^2 + b^2) + C sum loss of LIBLINEAR's problem `solver`: for the
    classifiers summed over the one-vs-rest problems (one for two classes: classes[1]
    positive), the loss max(0, 1 - s_i (w'x_i + b)); for the regressions (`classes`
    None) max(0, |y_i - w'x_i - b| - epsilon); squared for -s 1, 12 and 11."""
    total = 0.0
    problems = [None] if classes is None else (
        [classes[1]] if len(classes) == 2 else classes)
    scores = X @ W.T + b
    for k, positive in enumerate(problems):
        if positive is None:
            xi = np.maximum(np.abs(y - scores[:, k]) - epsilon, 0)
        else:
            s = np.where(y == positive, 1.0, -1.0)
            xi = np.maximum(1 - s * scores[:, k], 0)
        total += 0.5 * (W[k] @ W[k] + b[k] ** 2) + C * np.sum(
            xi * xi if solver in SQUARED_LOSS else xi)
    return total


def _squared_loss_slopes(scores, y, positive, epsilon):
    """Half each row's derivative of its squared loss by its score (the regression's
    where `positive` is None, else the one-vs-rest problem's of class `positive`)."""
    if positive is None:
        r = y - scores
        return -np.sign(r) * np.maximum(np.abs(r) - epsilon, 0)
    s = np.where(y == positive, 1.0, -1.0)
    return -s * np.maximum(1 - s * scores, 0)


def gradient_ratio(X, y, classes, W, b, C, epsilon=0.0):
    """The primal Newton method's stopping figure for a squared loss (LIBLINEAR's -s 2
    and -s 11, scikit-learn's too): |grad f(w)| / |grad f(0)| of 1/2 (|w|^2 + b^2) + C sum
    loss^2 (the bias a feature of value 1), the largest over the one-vs-rest problems
    (`primal_objective`'s). The method stops where it is at most tol."""
    problems = [None] if classes is None else (
        [classes[1]] if len(classes) == 2 else classes)
    ones = np.ones(X.shape[0])
    worst = 0.0
    for k, positive in enumerate(problems):
        # grad f = w + 2C sum_i slope_i x_i, the bias feature's entry last
        at_w = _squared_loss_slopes(X @ W[k] + b[k], y, positive, epsilon)
        at_zero = _squared_loss_slopes(np.zeros(X.shape[0]), y, positive, epsilon)
        grad = np.append(W[k] + 2 * C * (X.T @ at_w), b[k] + 2 * C * (ones @ at_w))
        grad0 = 2 * C * np.append(X.T @ at_zero, ones @ at_zero)
        worst = max(worst, float(np.linalg.norm(grad) / np.linalg.norm(grad0)))
    return worst


def prediction_score(pred, yt, regression):
    """The test accuracy (a fraction) of predicted labels, or the test mean squared
    error of predicted targets."""
    pred = np.asarray(pred)
    return float(np.mean((pred - yt) ** 2) if regression else np.mean(pred == yt))


# A call shorter than SHORT_CALL seconds is timed again, as the mean of as many calls
# as last LOOP_SECONDS: timed once, after gc.collect() has walked every Python object,
# a sub-millisecond fit measures cold caches and the clock more than the library, and
# a Python estimator's cold start more than a C library's. Every library is timed the
# same way.
SHORT_CALL = 0.005
LOOP_SECONDS = 0.05


def timed(fn, cpu=None):
    """(the first fn(), wall seconds of a call); with a dict `cpu`, its "seconds" set
    to the process's CPU seconds (all threads) of a call. A call under SHORT_CALL
    seconds is repeated for LOOP_SECONDS and the mean taken."""
    gc.collect()
    start, start_cpu = time.perf_counter(), time.process_time()
    out = fn()
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - start_cpu
    if seconds < SHORT_CALL:
        calls = min(1000, math.ceil(LOOP_SECONDS / max(seconds, 1e-6)))
        start, start_cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            fn()
        seconds = (time.perf_counter() - start) / calls
        cpu_seconds = (time.process_time() - start_cpu) / calls
    if cpu is not None:
        cpu["seconds"] = cpu_seconds
    return out, seconds


def liblinear_weights(model, classes):
    """(W, B) of a LIBLINEAR model, one row per class in `classes`' order (the
    estimators' classes_): a regression's or a binary problem's one row, signed so
    that W x + B > 0 means classes[1] (LIBLINEAR's first label is the one it met
    first)."""
    labels = list(model.get_labels())
    if classes is None or len(classes) == 2:
        w, b = model.get_decfun()
        sign = 1.0 if classes is None or labels[0] == classes[1] else -1.0
        return sign * np.array([w]), sign * np.array([b])
    pairs = [model.get_decfun(labels.index(c)) for c in classes]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


def capped_by_epochs(printed, solver):
    """Whether a run of LIBLINEAR's `solver` that printed `printed` stopped at its
    dual's 300 epochs short of eps (-s 3 and -s 13: the others go on by Newton)."""
    return CAPPED_LINE in printed and solver in CAPPED_BY_EPOCHS


def liblinear_runner(util, prob, Xt, yt, classes, solver, C, eps, threads, epsilon=None):
    """A run of LIBLINEAR `solver`; `classes` None for a regression (its -p `epsilon`)."""
    # -B 1 in the parameters: train() sets the problem's bias to the parameters' own
    options = (f"-s {solver} -c {C!r} -e {eps!r} -B 1"
               + (f" -p {epsilon!r}" if classes is None else "")
               + (f" -m {threads}" if threads > 1 else ""))

    # LIBLINEAR's messages through a Python callback, as the LIBSVM peer reads its own:
    # the one line that says the epochs ran out
    callback_type = importlib.import_module(
        util.__name__.rsplit(".", 1)[0] + ".liblinear").PRINT_STRING_FUN

    def run(repeat):
        param = util.parameter(options)
        printed = []
        param.print_func = callback_type(lambda text: printed.append(text.decode()))
        cpu = {}
        model, seconds = timed(lambda: util.train(prob, param), cpu)
        W, B = liblinear_weights(model, classes)
        (pred, _, _), predict_seconds = timed(lambda: util.predict(yt, Xt, model, "-q"))
        return {"train": seconds, "cpu": cpu["seconds"], "predict": predict_seconds,
                "W": W, "b": B, "score": prediction_score(pred, yt, classes is None),
                "capped": capped_by_epochs("".join(printed), solver)}
    return run


class _LoggedLines(logging.Handler):
    """The lines libsmo's LIBLINEAR train() logged (its info())."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def linear_train_runner(X, y, Xt, yt, classes, solver, C, eps, epsilon=None):
    """A run of libsmo's LIBLINEAR train() (`libsmo.training._liblinear`, the library
    behind libsmo-linear-train) with LIBLINEAR's parameters: its problem and its stopping
    rules (300 epochs of a dual, then -s 1 and -s 12 go on by the Newton method), so the
    same work as LIBLINEAR's train() where a dual's epochs run out before eps, where the
    estimators go on to eps (`LinearSVC`'s max_iter counts full epochs' visits). Its
    permutations are libsmo's fixed seeds (LIBLINEAR's runs: one fixed rand() stream),
    its prediction the model's estimator's (`from_model`)."""
    from libsmo.training._liblinear import LiblinearParams, train
    params = LiblinearParams(solver=solver, C=C, eps=eps, bias=1.0,
                             p=0.1 if epsilon is None else epsilon)
    regression = classes is None
    make = libsmo.LinearSVR if regression else libsmo.LinearSVC
    logger = logging.getLogger("libsmo")

    def run(repeat):
        lines, level = _LoggedLines(), logger.level
        logger.addHandler(lines)
        logger.setLevel(logging.INFO)
        try:
            cpu = {}
            model, seconds = timed(lambda: train(X, y, params), cpu)
        finally:
            logger.removeHandler(lines)
            logger.setLevel(level)
        est = make.from_model(model, X.shape[1])
        pred, predict_seconds = timed(lambda: est.predict(Xt))
        return {"train": seconds, "cpu": cpu["seconds"], "predict": predict_seconds,
                "W": np.atleast_2d(est.coef_), "b": np.atleast_1d(est.intercept_),
                "capped": capped_by_epochs("".join(lines.lines), solver),
                "score": prediction_score(pred, yt, regression)}
    return run


def stopping_violation(est, X, y):
    """LIBSVM's m(a) - M(a) of a two-class SVC(kernel="linear") at its answer, over every
    training row (v_t = y_t - w'x_t; I_up: y = +1 below C or y = -1 above 0, I_low the
    other way round): its stopping rule, which the fit must meet at tol."""
    signs = np.where(y == est.classes_[1], 1.0, -1.0)
    alpha = np.zeros(len(y))
    dense = [a.toarray() if hasattr(a, "toarray") else np.asarray(a)
             for a in (est.dual_coef_, est.coef_)]
    alpha[est.support_] = np.abs(dense[0].ravel())
    w = dense[1]
    v = signs - np.asarray(X @ w.ravel()).ravel()
    below, above = alpha < est.C, alpha > 0
    up = np.where(signs > 0, below, above)
    low = np.where(signs > 0, above, below)
    return float(v[up].max() - v[low].min())


def float32_allowance(est, X):
    """How far LIBSVM's float32 Q rows may have moved the kernel solver's m(a) - M(a)
    from its value in double precision: each of the two gradients G_i = sum_j a_j Q_ij
    - 1 within 2^-24 sum_j a_j |x_i| . |x_j| (entry-wise absolute values, |Q_ij| at
    most that), at the worst row."""
    dual = est.dual_coef_.toarray() if hasattr(est.dual_coef_, "toarray") else est.dual_coef_
    alpha = np.zeros(X.shape[0])
    alpha[est.support_] = np.abs(np.asarray(dual).ravel())
    magnitudes = abs(X)
    sums = np.asarray(magnitudes @ np.asarray(magnitudes.T @ alpha).ravel()).ravel()
    return 2 * 2.0**-24 * float(sums.max())


def estimator_runner(make, X, y, Xt, yt, regression=False, violation=False):
    def run(repeat):
        # another seed each repeat: the epochs a hinge problem needs vary by the
        # permutations' seed (reviews, C=1: 40 to 115), and LIBLINEAR's one fixed
        # stream is one draw of that spread; the median over seeds is the fair figure
        cpu = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est, seconds = timed(lambda: make(repeat).fit(X, y), cpu)
        pred, predict_seconds = timed(lambda: est.predict(Xt))
        stalled = any("converge" in str(w.message) for w in caught)
        return {"train": seconds, "cpu": cpu["seconds"], "predict": predict_seconds,
                "W": np.atleast_2d(est.coef_.toarray() if hasattr(est.coef_, "toarray")
                                   else np.asarray(est.coef_)),
                "b": np.atleast_1d(est.intercept_),
                "capped": stalled, "score": prediction_score(pred, yt, regression),
                "violation": stopping_violation(est, X, y) if violation else None,
                "allowance": float32_allowance(est, X) if violation else None}
    return run


def run_case(name, data, solver, C, args, peers):
    X, y, Xt, yt = data
    regression = solver in REGRESSION_SOLVERS
    classes = None if regression else np.unique(y)
    loss = LOSSES[solver]
    common = dict(loss=loss, dual=solver not in PRIMAL_SOLVERS, C=C, tol=args.eps,
                  max_iter=300)
    if regression:
        common.update(epsilon=args.epsilon)
    epsilon = args.epsilon if regression else None
    runners = {}
    if peers["official"] is not None:
        prob = peers["official"].problem(y, X)
        runners["LIBLINEAR"] = liblinear_runner(peers["official"], prob, Xt, yt, classes,
                                                solver, C, args.eps, 1, epsilon)
    ours = libsmo.LinearSVR if regression else libsmo.LinearSVC
    runners["libsmo"] = estimator_runner(
        lambda seed: ours(random_state=seed, **common), X, y, Xt, yt, regression)
    if args.revisits is not None and not regression and common["dual"]:
        # LinearSVC(revisits=N) beside its default: 0 shows LIBLINEAR's steps
        runners["libsmo revisits"] = estimator_runner(
            lambda seed: ours(random_state=seed, revisits=args.revisits, **common),
            X, y, Xt, yt)
    if args.float32 and X.dtype == np.float64:
        # the same rows stored as float32 (a vectorizer's dtype=np.float32), converted
        # before the clock starts, as a caller converts once: the solvers read them in
        # place, 8 bytes a stored value with its column index instead of 12; held to
        # LIBLINEAR's objective on the float64 rows as libsmo's run is
        X32 = X.astype(np.float32)
        runners["libsmo float32"] = estimator_runner(
            lambda seed: ours(random_state=seed, **common), X32, y, Xt, yt, regression)
    if (not regression and len(classes) > 2) or solver in PRIMAL_SOLVERS:
        # n_jobs=2: the one-vs-rest problems two at once; one problem's Newton method
        # on two threads over its rows (liblinear-multicore's -m 2)
        runners["libsmo 2 jobs"] = estimator_runner(
            lambda seed: ours(random_state=seed, n_jobs=2, **common),
            X, y, Xt, yt, regression)
    runners["libsmo-linear-train"] = linear_train_runner(X, y, Xt, yt, classes, solver,
                                                         C, args.eps, epsilon)
    if peers["multicore"] is not None and solver in MULTICORE_SOLVERS:
        prob_mc = peers["multicore"].problem(y, X)
        runners["LIBLINEAR-mc 2t"] = liblinear_runner(peers["multicore"], prob_mc, Xt, yt,
                                                      classes, solver, C, args.eps, 2,
                                                      epsilon)
    if not args.no_sklearn:
        from sklearn.svm import LinearSVC, LinearSVR
        theirs = LinearSVR if regression else LinearSVC
        runners["scikit-learn"] = estimator_runner(
            lambda seed: theirs(random_state=seed, **common), X, y, Xt, yt, regression)
    if args.svc_linear and not regression and len(classes) == 2 and solver == 3:
        # LIBSVM's problem (unregularised bias, its optimum), not LIBLINEAR's: its time
        # and accuracy beside the others, its objective not comparable
        runners["SVC linear"] = estimator_runner(
            lambda seed: libsmo.SVC(kernel="linear", C=C, tol=args.eps), X, y, Xt, yt,
            violation=True)
    runs = {k: [] for k in runners}
    order = list(runners)
    for r in range(args.repeats):
        for k in (order if r % 2 == 0 else order[::-1]):
            runs[k].append(runners[k](r))
    return summarise(name, X, y, classes, solver, C, runs, args)


def objective_summary(objectives):
    """One library's runs' primal objectives as the checks read them: {"objective":
    the median, "highest_objective", "spread": (max - min) / |min|, how far apart the
    random orders left them}. A library is held to a reference's objective by its
    median against the highest of the reference's runs (`above_reference`), unless
    the reference's spread exceeds the tolerance (its stopping rule leaves the
    objective to the order)."""
    low, high = min(objectives), max(objectives)
    return {"objective": statistics.median(objectives), "highest_objective": high,
            "spread": (high - low) / abs(low)}


def above_reference(summary, reference):
    """How far (relative) `summary`'s median objective lies above the highest of the
    reference's runs; both as `objective_summary` gives them."""
    return ((summary["objective"] - reference["highest_objective"])
            / abs(reference["highest_objective"]))


def summarise(name, X, y, classes, solver, C, runs, args):
    reference = "LIBLINEAR" if "LIBLINEAR" in runs else "libsmo"
    rows = {}
    for k, rs in runs.items():
        last = rs[-1]
        objectives = [primal_objective(X, y, classes, r["W"], r["b"], C, solver,
                                       args.epsilon) for r in rs]
        rows[k] = {"train": statistics.median(r["train"] for r in rs),
                   "predict": statistics.median(r["predict"] for r in rs),
                   **objective_summary(objectives),
                   "score": last["score"], "capped": last["capped"],
                   "violation": max((r.get("violation") or 0.0) for r in rs)
                   if rs[0].get("violation") is not None else None,
                   "beyond_tol": max(r["violation"] - args.eps - r["allowance"] for r in rs)
                   if rs[0].get("violation") is not None else None,
                   "runs": rs}
    ref = rows[reference]
    # LIBLINEAR's own runs (other points of its rand() stream) further apart than the
    # tolerance: the stopping rule leaves the objective to the random orders (-s 13 at
    # eps 0.001 on housing and bodyfat), and no solver can be held to it there
    ref["order_dependent"] = ref["spread"] > args.objective_tol
    disagree = []
    for k, row in rows.items():
        row["ratio"] = statistics.median(
            a["train"] / b["train"] for a, b in zip(row["runs"], runs[reference]))
        row["cpu_ratio"] = statistics.median(
            a["cpu"] / b["cpu"] for a, b in zip(row["runs"], runs[reference]))
        row["predict_ratio"] = statistics.median(
            a["predict"] / b["predict"] for a, b in zip(row["runs"], runs[reference]))
        row["rel"] = (row["objective"] - ref["objective"]) / abs(ref["objective"])
        # libsmo must reach LIBLINEAR's objective (a lower one is a better solution of
        # the same problem: the dual's eps bounds the primal's value only loosely, so
        # each run's random order moves it): libsmo's median over its seeds against
        # the highest of LIBLINEAR's runs, each from another point of its rand() stream
        if (k.startswith("libsmo") and above_reference(row, ref) > args.objective_tol
                and not (row["capped"] or ref["capped"] or ref["order_dependent"])):
            disagree.append(k)
    # (the Newton method's sums on two threads are added in another order: its model
    # is checked by its objective, as libsmo's)
    same_seeds = solver in PRIMAL_SOLVERS or all(
        np.array_equal(a["W"], b["W"])
        for a, b in zip(runs.get("libsmo 2 jobs", []), runs["libsmo"]))
    if not same_seeds:
        disagree.append("libsmo 2 jobs (not libsmo's model)")
    # SVC(kernel="linear") solves LIBSVM's problem: checked by LIBSVM's stopping rule,
    # within what the kernel solver's float32 Q rows may leave in its own gradient
    svc = rows.get("SVC linear")
    if svc is not None and not svc["beyond_tol"] <= args.eps * 1e-9:
        allowed = any(r["allowance"] for r in runs["SVC linear"])
        disagree.append(f"SVC linear (m - M = {svc['violation']:.2e} > eps"
                        f"{' + float32 allowance' if allowed else ''})")
    what = ("regression, p=" + repr(args.epsilon) if classes is None
            else f"{len(classes)} classes")
    print(f"\n{name} ({X.shape[0]} x {X.shape[1]}, {what}), "
          f"-s {solver} ({LOSSES[solver]}), C={C}, eps={args.eps}, median of {args.repeats}")
    print(f"{'':20s} {'train s':>8s} {'/ LL':>6s} {'cpu / LL':>8s} {'predict s':>9s} "
          f"{'/ LL':>6s} {'primal objective':>18s} {'rel. diff':>9s} "
          f"{'test acc' if classes is not None else 'test MSE':>8s}")
    for k, row in rows.items():
        note = " capped" if row["capped"] else ""
        if row.get("order_dependent"):
            note += f" (its runs' objectives {row['spread']:.1e} apart: not checked)"
        if row["violation"] is not None:
            note += f" (LIBSVM's problem; m - M = {row['violation']:.1e})"
        score = (f"{row['score']:8.4g}" if classes is None
                 else f"{100 * row['score']:7.2f}%")
        print(f"{k:20s} {row['train']:8.3f} {row['ratio']:6.2f} {row['cpu_ratio']:8.2f} "
              f"{row['predict']:9.4f} {row['predict_ratio']:6.2f} {row['objective']:18.6f} "
              f"{row['rel']:9.1e} {score}{note}", flush=True)
    if disagree:
        print(f"OBJECTIVES DISAGREE beyond {args.objective_tol:g}: {', '.join(disagree)}")
    return {"name": name, "solver": solver, "C": C, "rows": rows, "disagree": disagree,
            "shape": X.shape, "classes": None if classes is None else len(classes),
            "reference": reference}


def markdown(results, revisits=None):
    regression = [res for res in results if res["classes"] is None]
    classification = [res for res in results if res["classes"] is not None]
    for group, two_jobs, score in ((classification, "| libsmo 2 jobs / LIBLINEAR ",
                                    "accuracy"),
                                   (regression, "| libsmo 2 jobs / LIBLINEAR ",
                                    "test MSE")):
        if not group:
            continue
        print("\n| data | -s | C | libsmo / LIBLINEAR | (CPU time) " + two_jobs +
              "| libsmo-linear-train / LIBLINEAR | LIBLINEAR-mc 2t / LIBLINEAR "
              "| scikit-learn / LIBLINEAR | objective rel. "
              f"diff (libsmo) | predict libsmo / LIBLINEAR | {score} libsmo / LIBLINEAR |")
        print("|---|---|---|" + "---:|" * (9 if two_jobs else 8))
        for res in group:
            rows = res["rows"]

            def ratio(k):
                return f"{rows[k]['ratio']:.2f}" if k in rows else ""

            def shown(row):
                return (f"{100 * row['score']:.2f}" if res["classes"] is not None
                        else f"{row['score']:.4g}")
            ours, ref = rows["libsmo"], rows.get("LIBLINEAR", rows["libsmo"])
            capped = " (capped)" if ref["capped"] or ours["capped"] else ""
            if ref.get("order_dependent"):
                capped += f" (LIBLINEAR's runs {ref['spread']:.0e} apart)"
            jobs = f" {ratio('libsmo 2 jobs')} |" if two_jobs else ""
            print(f"| {res['name']} | {res['solver']} | {res['C']} | {ratio('libsmo')} | "
                  f"{ours['cpu_ratio']:.2f} |{jobs} {ratio('libsmo-linear-train')}"
                  f"{' (capped)' if rows['libsmo-linear-train']['capped'] else ''} | "
                  f"{ratio('LIBLINEAR-mc 2t')} | "
                  f"{ratio('scikit-learn')} | {ours['rel']:.1e}{capped} | "
                  f"{ours['predict_ratio']:.2f} | {shown(ours)} / {shown(ref)} |")
    markdown_beside(results, "libsmo float32",
                    "| libsmo / LIBLINEAR | libsmo float32 / LIBLINEAR | float32 / float64 "
                    "| objective rel. diff (float32) |",
                    lambda rows, capped: (
                        f"{rows['libsmo']['ratio']:.2f} | "
                        f"{rows['libsmo float32']['ratio']:.2f} | "
                        f"{rows['libsmo float32']['train'] / rows['libsmo']['train']:.2f} | "
                        f"{rows['libsmo float32']['rel']:.1e}{capped} |"))
    markdown_beside(results, "libsmo revisits",
                    f"| libsmo revisits={revisits} / LIBLINEAR | libsmo / LIBLINEAR "
                    f"| objective rel. diff (revisits={revisits}) |",
                    lambda rows, capped: (
                        f"{rows['libsmo revisits']['ratio']:.2f} | "
                        f"{rows['libsmo']['ratio']:.2f} | "
                        f"{rows['libsmo revisits']['rel']:.1e}{capped} |"))


def markdown_beside(results, run, columns, cells):
    """A pipe table of the cases that ran `run` beside libsmo's: the case (data, -s, C),
    then `columns` (a header's cells after those), each case's `cells(rows, capped)`
    (capped: the note where LIBLINEAR stopped at its epochs)."""
    shown = [res for res in results if run in res["rows"]]
    if not shown:
        return
    print("\n| data | -s | C " + columns)
    print("|---|---|---|" + "---:|" * (columns.count("|") - 1))
    for res in shown:
        rows = res["rows"]
        ref = rows.get("LIBLINEAR", rows["libsmo"])
        print(f"| {res['name']} | {res['solver']} | {res['C']} | "
              + cells(rows, " (capped)" if ref["capped"] else ""))


def result_rows(results, args):
    """The results as the rows of benchmarks/results-committed/linear_svm.json (the
    classifiers) and linear_svr.json (the regressions): each run's medians, ratios over
    the reference's, objective, and test accuracy in percent or test MSE."""
    out = []
    for res in results:
        regression = res["classes"] is None
        runs = {}
        for k, row in res["rows"].items():
            runs[k] = {"train_s": round(row["train"], 4),
                       "train_ratio": round(row["ratio"], 3),
                       "cpu_ratio": round(row["cpu_ratio"], 3),
                       "predict_s": round(row["predict"], 4),
                       "predict_ratio": round(row["predict_ratio"], 3),
                       "objective": float(f"{row['objective']:.10g}"),
                       "objective_rel_diff": float(f"{row['rel']:.2e}"),
                       "capped": bool(row["capped"])}
            if regression:
                runs[k]["test_mse"] = float(f"{row['score']:.6g}")
            else:
                runs[k]["accuracy_percent"] = round(100 * row["score"], 2)
            if row["violation"] is not None:
                runs[k]["stopping_violation"] = float(f"{row['violation']:.3g}")
        row = {"data": res["name"], "rows": int(res["shape"][0]),
               "features": int(res["shape"][1]), "solver": res["solver"],
               "loss": LOSSES[res["solver"]], "C": res["C"], "eps": args.eps,
               "repeats": args.repeats, "reference": res["reference"],
               "reference_spread": float(f"{res['rows'][res['reference']]['spread']:.2e}"),
               "runs": runs}
        if regression:
            row.update(dual=res["solver"] not in PRIMAL_SOLVERS, epsilon=args.epsilon)
        else:
            row["classes"] = res["classes"]
            # the estimator's revisits, and the extra runner's (--revisits)
            row["revisits"] = {"libsmo": libsmo.LinearSVC().revisits}
            if "libsmo revisits" in runs:
                row["revisits"]["libsmo revisits"] = args.revisits
        out.append(row)
    return out


def write_rows(path, rows):
    """Write a run's rows with the command that made them, as the committed results'
    files hold them (bench_linear_memory.py and bench_linear_handover.py write theirs
    so too)."""
    path.write_text(json.dumps({"commands": [" ".join(sys.argv)], "rows": rows},
                               indent=1) + "\n")


# --------------------------------------------------------------------- convergence

# the estimators' default tol, at which --convergence fits them
DEFAULT_TOL = 1e-4


def count_convergence_warnings(names, Cs, args):
    """ConvergenceWarnings of libsmo's and scikit-learn's LinearSVC (LinearSVR on the
    regression sets, its epsilon 0) at their defaults (tol 1e-4, max_iter 1000,
    random_state=0), on each set as given and standardised
    (StandardScaler(with_mean=False), sparse rows kept sparse), for both losses and
    every C: whether each warned, its n_iter_, its time (one fit) and its primal
    objective. The answers are checked: where libsmo did not warn, its objective must
    not exceed scikit-learn's by more than --objective-tol relative (scikit-learn's
    capped run stopped above the optimum; one that converged reached the same tol
    from other random orders for the classes after the first), or, for a squared
    loss, its answer must meet the primal Newton method's own stopping rule at tol
    (`gradient_ratio`, in the row as "gradient_ratio": LIBLINEAR 2.50's Newton method
    and scikit-learn's older trust region both stop there, on a few ill-conditioned
    rows at objectives a percent apart). Returns the rows and the cases whose check
    failed."""
    from sklearn import svm
    from sklearn.preprocessing import StandardScaler
    rows, failed = [], []
    print("\n| data | scaling | loss | C | libsmo warns | scikit-learn warns "
          "| libsmo n_iter_ | scikit-learn n_iter_ | libsmo / scikit-learn time "
          "| objective rel. diff |")
    print("|---|---|---|---:|---|---|---:|---:|---:|---:|")
    for name in names:
        X, y, _, _ = dataset(name, args.data_dir)
        regression = name in REGRESSION_SETS
        classes = None if regression else np.unique(y)
        kind = "LinearSVR" if regression else "LinearSVC"
        losses = ((("squared_epsilon_insensitive", 12), ("epsilon_insensitive", 13))
                  if regression else (("squared_hinge", 1), ("hinge", 3)))
        for scaling in ("as given", "standardised"):
            Z = X if scaling == "as given" else StandardScaler(with_mean=False).fit_transform(X)
            for loss, solver in losses:
                for C in Cs:
                    runs = {}
                    for label, make in (("libsmo", getattr(libsmo, kind)),
                                        ("scikit-learn", getattr(svm, kind))):
                        with warnings.catch_warnings(record=True) as caught:
                            warnings.simplefilter("always")
                            est, seconds = timed(
                                lambda: make(loss=loss, C=C, random_state=0).fit(Z, y))
                        W, b = np.atleast_2d(est.coef_), np.atleast_1d(est.intercept_)
                        objective = primal_objective(Z, y, classes, W, b, C, solver)
                        if label == "libsmo" and solver in SQUARED_LOSS:
                            ours_ratio = gradient_ratio(Z, y, classes, W, b, C)
                        runs[label] = {
                            "warns": any("converge" in str(w.message) for w in caught),
                            "n_iter": int(est.n_iter_), "seconds": round(seconds, 4),
                            "objective": float(f"{objective:.10g}")}
                    ours, theirs = runs["libsmo"], runs["scikit-learn"]
                    rel = above_reference(objective_summary([ours["objective"]]),
                                          objective_summary([theirs["objective"]]))
                    row = {"data": name, "scaling": scaling, "loss": loss, "C": C,
                           "classes": 0 if regression else int(len(classes)),
                           "objective_rel_diff": float(f"{rel:.2e}"), "runs": runs}
                    checked_bad = not ours["warns"] and rel > args.objective_tol
                    if checked_bad and solver in SQUARED_LOSS:
                        row["gradient_ratio"] = float(f"{ours_ratio:.2e}")
                        checked_bad = ours_ratio > DEFAULT_TOL
                    if checked_bad:
                        failed.append(f"{name} {scaling} {loss} C={C}")
                    rows.append(row)
                    print(f"| {name} | {scaling} | {loss} | {C} | "
                          f"{'yes' if ours['warns'] else 'no'} | "
                          f"{'yes' if theirs['warns'] else 'no'} | {ours['n_iter']} | "
                          f"{theirs['n_iter']} | {ours['seconds'] / theirs['seconds']:.2f} | "
                          f"{objective_check(row)}"
                          f"{' (above scikit-learn)' if checked_bad else ''} |",
                          flush=True)
    counts = {k: sum(r["runs"][k]["warns"] for r in rows) for k in ("libsmo", "scikit-learn")}
    print(f"\nConvergenceWarnings over {len(rows)} fits each: libsmo {counts['libsmo']}, "
          f"scikit-learn {counts['scikit-learn']}")
    return rows, failed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=bench_data.DATA_DIR, type=Path)
    parser.add_argument("--data", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--C", nargs="+", type=float, default=[0.01, 0.1, 1.0, 10.0])
    parser.add_argument("--solvers", nargs="+", type=int, default=list(LOSSES),
                        choices=list(LOSSES),
                        help="LIBLINEAR's -s: 3 and 1 run on the classification sets, "
                             "13, 12 and 11 on the regression sets")
    parser.add_argument("--eps", type=float, default=0.001)
    parser.add_argument("--epsilon", type=float, default=0.1,
                        help="the regressions' insensitive zone: LIBLINEAR's -p "
                             "(default its 0.1), the estimators' epsilon")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--objective-tol", type=float, default=1e-4)
    parser.add_argument("--liblinear-official", type=Path, default=None)
    parser.add_argument("--liblinear-multicore", type=Path, default=None)
    parser.add_argument("--no-sklearn", action="store_true")
    parser.add_argument("--convergence", action="store_true",
                        help="instead: the ConvergenceWarnings of libsmo's and "
                             "scikit-learn's LinearSVC (LinearSVR on the regression "
                             "sets) at their defaults, as given and "
                             "standardised, with their objectives checked")
    parser.add_argument("--json", type=Path, default=None,
                        help="write the results as rows of the committed results' "
                             "linear_svm.json / linear_svr.json (with --convergence: "
                             "linear_convergence.json) to this file")
    parser.add_argument("--float32", action="store_true",
                        help="also the estimator on the rows stored as float32 (converted "
                             "before the clock starts), held to LIBLINEAR's objective on "
                             "the float64 rows")
    parser.add_argument("--revisits", type=int, default=None,
                        help="also LinearSVC(revisits=N) on the classification duals, "
                             "beside the default (0: LIBLINEAR's steps)")
    parser.add_argument("--svc-linear", action="store_true",
                        help="libsmo.SVC(kernel='linear') (LIBSVM's problem) beside them, "
                             "on the binary sets and the hinge loss")
    args = parser.parse_args(argv)
    if args.convergence:
        rows, failed = count_convergence_warnings(args.data, args.C, args)
        if args.json:
            write_rows(args.json, rows)
        if failed:
            print(f"\nlibsmo's objective above scikit-learn's in: {'; '.join(failed)}")
            return 1
        return 0
    peers = find_peers(args)
    for kind, util in peers.items():
        if kind == "official" and util is not None and util is peers["multicore"]:
            print("liblinear-official: not found: LIBLINEAR is liblinear-multicore at one "
                  "thread")
            continue
        print(f"liblinear-{kind}: {util.__file__ if util else 'not found: column left out'}")
    results = []
    with blas_threads(1):
        for name in args.data:
            solvers = [s for s in args.solvers
                       if (s in REGRESSION_SOLVERS) == (name in REGRESSION_SETS)]
            if not solvers:
                continue
            data = dataset(name, args.data_dir)
            for C in args.C:
                for solver in solvers:
                    results.append(run_case(name, data, solver, C, args, peers))
    markdown(results, args.revisits)
    if args.json:
        write_rows(args.json, result_rows(results, args))
    bad = [f"{r['name']} -s {r['solver']} C={r['C']}" for r in results if r["disagree"]]
    if bad:
        print(f"\nobjectives disagree in: {'; '.join(bad)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
