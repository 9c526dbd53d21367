"""Accuracy against time: an exact RBF SVM or random Fourier features
====================================================================

An exact RBF SVM against random Fourier features and a linear SVM. Two data sets from
../shared/data (LIBSVM format, xz-compressed):

- a9a (UCI Adult, 32,561 training rows, 123 binary features), tested on a9a.t: the
  exact model is Platt's Adult setting, RBF with C=1, gamma=0.05;
- ijcnn1.val (14,990 rows, 22 features; only the validation part of ijcnn1 is here, so
  it is split 70/30 at random with a fixed seed, stratified by label): RBF with C=32,
  gamma=2.

Against each exact model: `libsmo.RandomFourierFeatures(D, gamma)` with the same gamma,
then `libsmo.train(Z, y, kernel="linear")` with the same C, for D in 100, 300, 1000,
3000. The random features approximate the same kernel at the same scale, so the same C
is the same trade-off; the approximation's test accuracy climbs towards the exact
model's as D grows. The times are wall-clock seconds for training (for RFF: drawing
the map, transforming the training rows and training the linear SVM), and for
prediction on the test rows, with BLAS on one thread (see `one_blas_thread`).

What a full run finds (a 2-core machine): the approximation closes in on the exact
model as D grows (a9a: 83.96%, 84.76%, 84.85%, 84.99% for D = 100 to 3000 against
85.09% exact; ijcnn1: 92.82%, 97.42%, 98.62%, 99.11% against 99.22%), and on these two
sets the exact model is the most accurate; it is the fastest to train on ijcnn1, and
on a9a only D = 100 trains faster, a point of accuracy lower, each step in D
multiplying the time. Prediction from the primal
weights is one product per row, as fast as the exact model's at D = 100 to 300. The
exact kernel on sparse binary rows (a9a) or a few columns (ijcnn1, 698 support vectors
on 22 features) is cheap, and C = 32 makes ijcnn1's linear problem on dense random
features slow. RFF pays off when the exact model's support vectors run into the
hundreds of thousands.

It prints one table and draws test accuracy against training time (log scale), one
panel per data set, in <out-dir>/large_scale_accuracy_vs_time.png.

Run::

    python examples/large_scale.py [--data-dir ../shared/data] [--rows N]
                                   [--components 100,300,1000,3000]
                                   [--datasets a9a,ijcnn1] [--out-dir examples/output]
"""
import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

import libsmo  # noqa: E402
from _common import REPO, decompressed, one_blas_thread  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "data"
DEFAULT_OUT = REPO / "examples" / "output"
SEED = 0

DATASETS = {
    "a9a": {"train": "a9a", "test": "a9a.t", "n_features": 123, "C": 1.0, "gamma": 0.05},
    "ijcnn1": {"train": "ijcnn1.val", "test": None, "n_features": 22, "C": 32.0,
               "gamma": 2.0},
}


# %%
# The data
# --------
# LIBSVM-format files, decompressed once into a cache folder and read with
# `libsmo.load_svmlight_file`.


def load(data_dir, name, n_features):
    """(X, y) of <data_dir>/<name>.xz, decompressed once into a cache folder."""
    source = Path(data_dir) / f"{name}.xz"
    if not source.exists():
        raise SystemExit(f"data set {name!r} not found at {source} (see --data-dir)")
    target = decompressed(source)
    if hasattr(libsmo, "load_svmlight_file"):
        X, y = libsmo.load_svmlight_file(str(target), n_features=n_features)
    else:
        from sklearn.datasets import load_svmlight_file
        X, y = load_svmlight_file(str(target), n_features=n_features)
    return X.tocsr(), np.asarray(y)


def split(data_dir, case, rows):
    """Training and test rows of a case; `rows` keeps the first rows of the training
    part only."""
    X, y = load(data_dir, case["train"], case["n_features"])
    if case["test"] is None:
        X, X_test, y, y_test = train_test_split(X, y, test_size=0.3, random_state=SEED,
                                                stratify=y)
    else:
        X_test, y_test = load(data_dir, case["test"], case["n_features"])
    if rows is not None:
        X, y = X[:rows], y[:rows]
    return X, y, X_test, y_test


# %%
# The two ways
# ------------
# The exact kernel model, and the random features with the primal linear solver; each
# timed in training and in prediction.


def run_exact(X, y, X_test, y_test, C, gamma):
    start = time.perf_counter()
    model = libsmo.train(X, y, kernel="rbf", C=C, gamma=gamma)
    train_seconds = time.perf_counter() - start
    start = time.perf_counter()
    accuracy = 100.0 * np.mean(model.predict(X_test) == y_test)
    return {"model": "exact RBF", "D": None, "train_s": train_seconds,
            "predict_s": time.perf_counter() - start, "n_sv": model.n_sv,
            "accuracy": accuracy}


def run_rff(X, y, X_test, y_test, C, gamma, n_components):
    start = time.perf_counter()
    rff = libsmo.RandomFourierFeatures(n_components, gamma=gamma, random_state=SEED)
    Z = rff.fit_transform(X)
    model = libsmo.train(Z, y, kernel="linear", C=C)
    train_seconds = time.perf_counter() - start
    del Z
    start = time.perf_counter()
    accuracy = 100.0 * np.mean(model.predict(rff.transform(X_test)) == y_test)
    return {"model": "RFF + linear", "D": n_components, "train_s": train_seconds,
            "predict_s": time.perf_counter() - start, "n_sv": model.n_sv,
            "accuracy": accuracy}


# %%
# The figure and the table
# ------------------------


def plot(results, path):
    names = list(results)
    fig, axes = plt.subplots(1, len(names), figsize=(6 * len(names), 4.6), squeeze=False)
    for ax, name in zip(axes[0], names):
        rows = results[name]
        exact = [r for r in rows if r["D"] is None]
        rff = [r for r in rows if r["D"] is not None]
        if rff:
            ax.plot([r["train_s"] for r in rff], [r["accuracy"] for r in rff], "o-",
                    color="tab:blue", label="RFF + linear SVM")
            for r in rff:
                ax.annotate(f"D={r['D']}", (r["train_s"], r["accuracy"]),
                            textcoords="offset points", xytext=(6, 4), fontsize=8)
        for r in exact:
            ax.plot([r["train_s"]], [r["accuracy"]], "*", color="tab:red", markersize=14,
                    label="exact RBF SVM")
            ax.axhline(r["accuracy"], color="tab:red", linestyle=":", linewidth=1)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("training time (s, log scale)")
        ax.set_ylabel("test accuracy (%)")
        ax.set_title(f"{name}: {rows[0]['n_train']} training, {rows[0]['n_test']} test "
                     f"rows\nC={rows[0]['C']:g}, gamma={rows[0]['gamma']:g}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(loc="best", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--rows", type=int, default=None,
                        help="train on the first N rows of each training part")
    parser.add_argument("--components", default="100,300,1000,3000",
                        help="comma-separated numbers of random features")
    parser.add_argument("--datasets", default=",".join(DATASETS),
                        help=f"comma-separated, among {', '.join(DATASETS)}")
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    components = [int(c) for c in args.components.split(",") if c]
    names = [n for n in args.datasets.split(",") if n]
    for name in names:
        if name not in DATASETS:
            parser.error(f"unknown data set {name!r}; choose among {', '.join(DATASETS)}")
    args.out_dir.mkdir(parents=True, exist_ok=True)

    header = (f"{'data':8s} {'rows':>6s} {'model':13s} {'D':>5s} {'train s':>8s} "
              f"{'predict s':>9s} {'nSV':>6s} {'test acc':>9s}")
    print(header)
    print("-" * len(header))
    results = {}
    for name in names:
        case = DATASETS[name]
        X, y, X_test, y_test = split(args.data_dir, case, args.rows)
        rows = []
        runs = [lambda: run_exact(X, y, X_test, y_test, case["C"], case["gamma"])]
        runs += [lambda D=D: run_rff(X, y, X_test, y_test, case["C"], case["gamma"], D)
                 for D in components]
        for run in runs:
            r = run()
            r.update(n_train=X.shape[0], n_test=X_test.shape[0], C=case["C"],
                     gamma=case["gamma"])
            rows.append(r)
            D = "" if r["D"] is None else str(r["D"])
            print(f"{name:8s} {X.shape[0]:6d} {r['model']:13s} {D:>5s} {r['train_s']:8.2f} "
                  f"{r['predict_s']:9.2f} {r['n_sv']:6d} {r['accuracy']:8.2f}%",
                  flush=True)
        results[name] = rows
    path = args.out_dir / "large_scale_accuracy_vs_time.png"
    plot(results, path)
    print(f"\nwrote {path}")


# %%
# Run it
# ------

if __name__ == "__main__":
    with one_blas_thread():
        main()
