"""libsmo and LIBSVM side by side on each formulation: dual objective (summed over the
one-vs-one pairs) and test accuracy or mean squared error, same data and parameters,
default tol 1e-3.

    python benchmarks/compare_family.py            # prints a markdown table
"""
import os

# libsvm-official is built with OpenMP: one thread, as libsmo's default, so that the
# comparison is thread for thread (this must be set before libsvm is loaded)
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse
import lzma
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import libsmo

REPO = Path(__file__).resolve().parents[1]
# (svm_type, train set, test set or None for the training set, n_features, parameters)
CASES = [
    ("c_svc", "heart_scale", None, 13, {}),
    ("c_svc", "a1a", "a1a.t", 123, {"C": 1.0, "gamma": 0.05}),
    ("c_svc", "pendigits", "pendigits.t", 16, {"C": 10.0, "gamma": 1e-4}),
    ("c_svc", "letter.scale", "letter.scale.t", 16, {"C": 10.0, "gamma": 1.0}),
    ("nu_svc", "heart_scale", None, 13, {"nu": 0.5}),
    ("nu_svc", "pendigits", "pendigits.t", 16, {"nu": 0.05, "gamma": 1e-4}),
    ("one_class", "heart_scale", None, 13, {"nu": 0.2}),
    ("epsilon_svr", "housing_scale", None, 13, {"C": 10.0, "epsilon": 0.5}),
    ("epsilon_svr", "bodyfat_scale", None, 14, {"C": 10.0, "epsilon": 0.005}),
    ("nu_svr", "housing_scale", None, 13, {"C": 10.0, "nu": 0.4}),
    ("nu_svr", "bodyfat_scale", None, 14, {"C": 1.0, "nu": 0.4}),
]
CODES = {"c_svc": 0, "nu_svc": 1, "one_class": 2, "epsilon_svr": 3, "nu_svr": 4}


def load(data_dir, name, n_features):
    from sklearn.datasets import load_svmlight_file
    cache = Path(tempfile.gettempdir()) / "libsmo-data-cache"
    cache.mkdir(exist_ok=True)
    target = cache / name
    if not target.exists():
        with lzma.open(data_dir / f"{name}.xz") as src, open(target, "wb") as out:
            shutil.copyfileobj(src, out)
    X, y = load_svmlight_file(str(target), n_features=n_features)
    return X.tocsr(), y


def libsvm(X, y, Xt, svm_type, params):
    """Train libsvm-official; returns (sum of printed objectives, predictions, seconds)."""
    sys.path.insert(0, str(REPO / "tests"))
    from peers import libsvm_predict, libsvm_train
    start = time.perf_counter()
    model = libsvm_train(X, y, svm_type=svm_type, **params)
    seconds = time.perf_counter() - start
    return sum(model.objectives), libsvm_predict(model, Xt), seconds


def score(svm_type, pred, y):
    if svm_type in ("epsilon_svr", "nu_svr"):
        return f"MSE {np.mean((pred - y) ** 2):.6g}"
    if svm_type == "one_class":
        return f"outliers {np.mean(pred == -1):.4f}"
    return f"acc {100 * np.mean(pred == y):.2f}%"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data")
    args = parser.parse_args(argv)
    print("| svm_type | data (test) | objective libsmo | objective LIBSVM | rel diff | "
          "libsmo | LIBSVM | train s libsmo/LIBSVM |")
    print("|---|---|---|---|---|---|---|---|")
    for svm_type, train_name, test_name, d, params in CASES:
        X, y = load(args.data_dir, train_name, d)
        Xt, yt = (X, y) if test_name is None else load(args.data_dir, test_name, d)
        start = time.perf_counter()
        model = libsmo.train(X, y, svm_type=svm_type, **params)
        ours_s = time.perf_counter() - start
        ours_obj = sum(model.objective)
        theirs_obj, theirs_pred, theirs_s = libsvm(X, y, Xt, svm_type, params)
        rel = abs(ours_obj - theirs_obj) / abs(theirs_obj)
        print(f"| {svm_type} | {train_name} ({test_name or 'train'}) | {ours_obj:.6f} | "
              f"{theirs_obj:.6f} | {rel:.1e} | {score(svm_type, model.predict(Xt), yt)} | "
              f"{score(svm_type, theirs_pred, yt)} | {ours_s:.2f}/{theirs_s:.2f} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
