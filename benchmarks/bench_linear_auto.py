"""SVC(kernel="linear")'s two solvers side by side, by problem size: the primal solver
(linear_solver="primal": LIBLINEAR's coordinate descent as its start, then SMO on w)
against kernel rows (linear_solver="kernel": LIBSVM's solver), and what "auto" picks,
on two-class problems of the first N rows (a seeded permutation) of each data set, at
each C. The measurements behind "auto"'s rule (`libsmo.training._execution.Executor.
uses_primal`: Q against the cache, START_PAYS below it, BYTE_ROWS_Q_FACTOR for 8-bit
rows).

Data (--data, comma-separated; from ../shared/data or --data-dir):

  a9a, w8a      binary sparse features (w8a: 3% positives)
  reviews       TF-IDF of the clothing reviews (unigrams and bigrams), "Recommended IND"
  counts        the same reviews as raw word counts (CountVectorizer): |x|^2 ~ 100
  rff300        300 random Fourier features (gamma 0.05) of 10,000 a9a rows: dense
  letter        letter.scale, letters A-M against N-Z (16 dense features)
  pendigits     pendigits / 100, digits 0-4 against 5-9 (16 dense features)
  fashion       Fashion-MNIST's first 12,000 training images / 255 (8-bit pixels),
                classes 0-4 against 5-9 (Debian's dataset-fashion-mnist)

Each fit is `libsmo.SVC(kernel="linear", C=C, linear_solver=...)`, one thread
(n_jobs=1), the three solvers alternating, the order reversed every other repeat
(a fit under 5 ms timed as the mean of repeated fits, as in bench_linear_svm.py);
printed are the medians of --repeats fits, the primal's time over kernel rows', auto's
time over the faster one's, and the mean C |x_i|^2 that the rule reads. Both solvers
stop at LIBSVM's rule: m(a) - M(a) over every training row is computed in double
precision from each fitted model (`bench_linear_svm.stopping_violation`) and the script
exits with status 1 where one exceeds tol (1e-3) by more than what LIBSVM's float32 Q
rows may leave in the solver's own gradient (`bench_linear_svm.float32_allowance`: the
kernel solver reads them, and the primal solver hands large-C problems over to it).
Other sessions share this machine: read ratios, not seconds.

With --one-class, `libsmo.OneClassSVM(kernel="linear", nu=...)` instead (--nu, the
data's labels unused), whose primal solver starts from LIBLINEAR's -s 21 method, beside
scikit-learn's OneClassSVM (LIBSVM's kernel rows) as the peer: each fit's one-class
m(a) - M(a) over every row (I_up: a_t < 1, I_low: a_t > 0, v_t = -w'x_t) is held to tol
as above, and each objective 1/2 |w|^2 is printed beside scikit-learn's.

    python benchmarks/bench_linear_auto.py
    python benchmarks/bench_linear_auto.py --data fashion --sizes 2000,5000,12000 --C 0.1,1
    python benchmarks/bench_linear_auto.py --json results/linear_auto.json
    python benchmarks/bench_linear_auto.py --one-class --nu 0.1,0.5 --json FILE
"""
import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import libsmo  # noqa: E402
from libsmo._core.arrays import squared_norms  # noqa: E402
from benchmarks import data as bench_data  # noqa: E402
from benchmarks.bench_linear_svm import (  # noqa: E402
    dataset,
    float32_allowance,
    reviews_text,
    stopping_violation,
    timed,
)
from benchmarks.options import data_dir_option, name_list, positive_int  # noqa: E402

DATA = ("a9a", "w8a", "reviews", "counts", "rff300", "letter", "pendigits", "fashion")
SOLVERS = ("primal", "kernel", "auto")
TOL = 1e-3


def two_classes(name, data_dir):
    """(X, y) of data set `name` with labels +1 / -1, as the module's docstring says."""
    if name in ("a9a", "w8a", "reviews"):
        X, y, _, _ = dataset(name, data_dir)
        return X, np.where(y > 0, 1.0, -1.0)
    if name == "counts":
        from sklearn.feature_extraction.text import CountVectorizer
        text, labels = reviews_text(data_dir, "Recommended IND")
        X = CountVectorizer(min_df=2).fit_transform(text).tocsr().astype(np.float64)
        return X, np.where(labels > 0, 1.0, -1.0)
    if name == "rff300":
        X, y = two_classes("a9a", data_dir)
        rows = np.random.default_rng(0).permutation(X.shape[0])[:10_000]
        features = libsmo.RandomFourierFeatures(300, gamma=0.05, random_state=0)
        return features.fit_transform(X[rows]), y[rows]
    if name in ("letter", "pendigits"):
        file, d, half, scale = (("letter.scale", 16, 13, 1.0) if name == "letter"
                                else ("pendigits", 16, 4, 100.0))
        X, y = bench_data.load_svmlight(file, n_features=d, data_dir=data_dir)
        return X.toarray() / scale, np.where(y <= half, 1.0, -1.0)
    X, y, _, _ = bench_data.load_fashion(rows=12_000)
    return X, np.where(y <= 4, 1.0, -1.0)


def compare(X, y, sizes, Cs, repeats, seed=1):
    """One row per (size, C): the medians of each solver's fit time, the worst
    m(a) - M(a) of each solver's fits and by how much it exceeds tol beyond its
    `float32_allowance` (0: not), and mean C |x_i|^2 over the rows."""
    order = np.random.default_rng(seed).permutation(X.shape[0])
    rows = []
    for n in sizes:
        if n > X.shape[0]:
            continue
        Xn, yn = X[order[:n]], y[order[:n]]
        norms = squared_norms(Xn)
        for C in Cs:
            times = {s: [] for s in SOLVERS}
            worst = {s: 0.0 for s in SOLVERS}
            beyond = {s: 0.0 for s in SOLVERS}
            for repeat in range(repeats):
                for solver in (SOLVERS if repeat % 2 == 0 else SOLVERS[::-1]):
                    svc = libsmo.SVC(kernel="linear", C=C, tol=TOL, n_jobs=1,
                                     linear_solver=solver)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        _, seconds = timed(lambda: svc.fit(Xn, yn))
                    times[solver].append(seconds)
                    violation = stopping_violation(svc, Xn, yn)
                    worst[solver] = max(worst[solver], violation)
                    excess = violation - TOL - float32_allowance(svc, Xn)
                    beyond[solver] = max(beyond[solver], excess, 0.0)
            median = {s: float(np.median(t)) for s, t in times.items()}
            rows.append({"rows": n, "C": C, "C_x2": float(C * norms.mean()),
                         "seconds": median, "violation": worst, "beyond_tol": beyond,
                         "primal_over_kernel": median["primal"] / median["kernel"],
                         "auto_over_best": median["auto"] / min(median["primal"],
                                                                 median["kernel"])})
    return rows


def one_class_violation(est, X):
    """The one-class SVM's m(a) - M(a) at a fitted model's answer (bounds 1, no sample
    weights), over every training row: LIBSVM's stopping rule, which the fit must meet
    at tol."""
    alpha = np.zeros(X.shape[0])
    dense = [a.toarray() if hasattr(a, "toarray") else np.asarray(a)
             for a in (est.dual_coef_, est.coef_)]
    alpha[est.support_] = dense[0].ravel()
    v = -np.asarray(X @ dense[1].ravel()).ravel()
    return float(v[alpha < 1].max() - v[alpha > 0].min())


def half_norm(est):
    """1/2 |w|^2: the one-class dual's objective at a fitted model's answer."""
    w = est.coef_.toarray() if hasattr(est.coef_, "toarray") else np.asarray(est.coef_)
    return 0.5 * float(np.sum(w * w))


def compare_one_class(X, sizes, nus, repeats, seed=1):
    """One row per (size, nu): the medians of each libsmo solver's and scikit-learn's fit
    time, each one's worst m(a) - M(a) and excess over tol and float32 Q's allowance,
    and the objectives 1/2 |w|^2."""
    from sklearn.svm import OneClassSVM
    order = np.random.default_rng(seed).permutation(X.shape[0])
    fitters = {s: (lambda nu, s=s: libsmo.OneClassSVM(kernel="linear", nu=nu, tol=TOL,
                                                    linear_solver=s)) for s in SOLVERS}
    fitters["scikit-learn"] = lambda nu: OneClassSVM(kernel="linear", nu=nu, tol=TOL)
    names = list(fitters)
    rows = []
    for n in sizes:
        if n > X.shape[0]:
            continue
        Xn = X[order[:n]]
        for nu in nus:
            times = {s: [] for s in names}
            worst = {s: 0.0 for s in names}
            beyond = {s: 0.0 for s in names}
            objective = {}
            for repeat in range(repeats):
                for name in (names if repeat % 2 == 0 else names[::-1]):
                    est, seconds = timed(lambda: fitters[name](nu).fit(Xn))
                    times[name].append(seconds)
                    violation = one_class_violation(est, Xn)
                    worst[name] = max(worst[name], violation)
                    excess = violation - TOL - float32_allowance(est, Xn)
                    beyond[name] = max(beyond[name], excess, 0.0)
                    objective[name] = half_norm(est)
            median = {s: float(np.median(t)) for s, t in times.items()}
            rows.append({"rows": n, "nu": nu, "seconds": median, "violation": worst,
                         "beyond_tol": beyond, "objective": objective,
                         "primal_over_kernel": median["primal"] / median["kernel"],
                         "auto_over_best": median["auto"] / min(median["primal"],
                                                                 median["kernel"]),
                         "auto_over_sklearn": median["auto"] / median["scikit-learn"]})
    return rows


def one_class_main(args):
    """--one-class: the table and the JSON of `compare_one_class`; 1 where a fit is
    beyond tol."""
    nus = [float(v) for v in args.nu.split(",")]
    sizes = [int(s) for s in args.sizes.split(",")]
    print("| data | rows | nu | primal / kernel | auto / faster | auto / scikit-learn | "
          "objective rel. to scikit-learn's (auto) | "
          "m - M (primal, kernel, scikit-learn) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    out, failed = [], False
    for name in args.data:
        X, _ = two_classes(name, args.data_dir)
        for row in compare_one_class(X, sizes, nus, args.repeats):
            row["data"] = name
            out.append(row)
            v, f = row["violation"], row["objective"]
            bad = max(row["beyond_tol"].values()) > 0
            failed |= bad
            relative = (f["auto"] - f["scikit-learn"]) / abs(f["scikit-learn"])
            print(f"| {name} | {row['rows']} | {row['nu']:g} | "
                  f"{row['primal_over_kernel']:.2f} | {row['auto_over_best']:.2f} | "
                  f"{row['auto_over_sklearn']:.3f} | {relative:.1e} | {v['primal']:.1e}, "
                  f"{v['kernel']:.1e}, {v['scikit-learn']:.1e}"
                  f"{' BEYOND TOL' if bad else ''} |", flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"tol": TOL, "rows": out}, indent=1))
    return 1 if failed else 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=name_list(DATA),
                        default=["a9a", "w8a", "reviews", "rff300", "letter"])
    parser.add_argument("--sizes", default="2000,5000,10000")
    parser.add_argument("--C", default="0.1,1,10")
    parser.add_argument("--repeats", type=positive_int, default=3)
    parser.add_argument("--json", default=None, help="write the rows to this file")
    parser.add_argument("--one-class", action="store_true",
                        help="OneClassSVM(kernel='linear') and scikit-learn's instead")
    parser.add_argument("--nu", default="0.1,0.5", help="with --one-class")
    data_dir_option(parser)
    args = parser.parse_args(argv)
    if args.one_class:
        return one_class_main(args)
    sizes = [int(s) for s in args.sizes.split(",")]
    Cs = [float(c) for c in args.C.split(",")]
    print("| data | rows | C | mean C abs(x)^2 | primal / kernel | auto / faster | "
          "m - M (primal, kernel) |")
    print("|---|---:|---:|---:|---:|---:|---|")
    out, failed = [], False
    for name in args.data:
        X, y = two_classes(name, args.data_dir)
        for row in compare(X, y, sizes, Cs, args.repeats):
            row["data"] = name
            out.append(row)
            v = row["violation"]
            bad = max(row["beyond_tol"].values()) > 0
            failed |= bad
            print(f"| {name} | {row['rows']} | {row['C']:g} | {row['C_x2']:.3g} | "
                  f"{row['primal_over_kernel']:.2f} | {row['auto_over_best']:.2f} | "
                  f"{v['primal']:.1e}, {v['kernel']:.1e}{' BEYOND TOL' if bad else ''} |",
                  flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"tol": TOL, "rows": out}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
