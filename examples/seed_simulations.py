"""An exact RBF SVM against random Fourier features
================================================

The seed articles' simulations. Three 2-D problems, each with its own training and test
points (different seeds):

- "gaussian mixture": four Gaussian blobs at the corners of a square, opposite corners
  sharing a class (an XOR pattern no line separates);
- "moons": scikit-learn's two interleaved half circles with noise;
- "circles": scikit-learn's two concentric circles with noise.

On each, two models:

- exact: `libsmo.train(X, y, kernel="rbf", C=0.6, gamma=2)`, the articles' setting;
- rff:   `libsmo.RandomFourierFeatures(200, gamma=2)` then a linear SVM with the same
  C=0.6. The map's inner products approximate the same RBF kernel at the same scale
  (z(x)'z(x) is about 1 = K(x, x)), so the same C means the same trade-off, and no C
  was tuned for either model.

It prints a table (fit times, support vectors, training and test accuracy) and draws
both models' decision boundaries, one row per problem, in
<out-dir>/seed_simulations_boundaries.png. With 200 features the approximate boundary
follows the exact one closely on all three problems, and the test accuracies agree to a
point or two. Fit times are wall-clock seconds (for rff: drawing the map, transforming
the training points and training), with BLAS on one thread (see `one_blas_thread`).

Run::

    python examples/seed_simulations.py [--n-train 1000] [--n-test 1000]
                                        [--grid 200] [--out-dir examples/output]
"""
import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import make_blobs, make_circles, make_moons  # noqa: E402

import libsmo  # noqa: E402
from _common import EXAMPLES, one_blas_thread  # noqa: E402

DEFAULT_OUT = EXAMPLES / "output"
C = 0.6
GAMMA = 2.0
N_COMPONENTS = 200


def gaussian_mixture(n, seed):
    """Four Gaussian blobs at (+-1, +-1); (1, 1) and (-1, -1) are class +1."""
    centers = [(1, 1), (-1, -1), (1, -1), (-1, 1)]
    X, blob = make_blobs(n_samples=n, centers=centers, cluster_std=0.55, random_state=seed)
    return X, np.where(blob < 2, 1, -1)


def moons(n, seed):
    X, y = make_moons(n_samples=n, noise=0.25, random_state=seed)
    return X, np.where(y == 1, 1, -1)


def circles(n, seed):
    X, y = make_circles(n_samples=n, noise=0.12, factor=0.5, random_state=seed)
    return X, np.where(y == 1, 1, -1)


SIMULATIONS = {"gaussian mixture": gaussian_mixture, "moons": moons, "circles": circles}


# %%
# The two models
# --------------
# The exact model trains on the points themselves; the approximate one draws
# `libsmo.RandomFourierFeatures` and trains a linear SVM on the features, with the same
# C. Both expose the trained `libsmo.Model` and the features it predicts from.


class ExactRBF:
    """The exact RBF SVM."""

    def fit(self, X, y):
        self.model = libsmo.train(X, y, kernel="rbf", C=C, gamma=GAMMA)
        return self

    def features(self, X):
        return X


class RFFLinear:
    """Random Fourier features followed by a linear libsmo SVM."""

    def __init__(self, random_state):
        self.rff = libsmo.RandomFourierFeatures(N_COMPONENTS, gamma=GAMMA,
                                                random_state=random_state)

    def fit(self, X, y):
        self.model = libsmo.train(self.rff.fit_transform(X), y, kernel="linear", C=C)
        return self

    def features(self, X):
        return self.rff.transform(X)


# %%
# Fit, score and draw
# -------------------
# For each problem: both models' times, support vectors and accuracies, and their
# decision values on a grid (the boundary at 0, the margins at -1 and +1).


def score(estimator, X):
    """Decision values with > 0 meaning class +1 (the model's first class)."""
    model = estimator.model
    values = np.ravel(model.decision_function(estimator.features(X)))
    return values if model.classes[0] == 1 else -values


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-train", type=int, default=1000, help="training points")
    parser.add_argument("--n-test", type=int, default=1000, help="test points")
    parser.add_argument("--grid", type=int, default=200,
                        help="grid points per axis for the boundary plots")
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)

    print(f"exact: RBF SVM, C={C}, gamma={GAMMA}; rff: RandomFourierFeatures("
          f"{N_COMPONENTS}, gamma={GAMMA}) + linear SVM, C={C}")
    print(f"{args.n_train} training and {args.n_test} test points per problem\n")
    header = (f"{'data':18s} {'model':6s} {'fit s':>7s} {'nSV':>5s} "
              f"{'train acc':>9s} {'test acc':>8s}")
    print(header)
    print("-" * len(header))

    fig, axes = plt.subplots(len(SIMULATIONS), 2, figsize=(10, 4.6 * len(SIMULATIONS)),
                             squeeze=False)
    for row, (name, simulate) in enumerate(SIMULATIONS.items()):
        X, y = simulate(args.n_train, seed=2 * row)
        X_test, y_test = simulate(args.n_test, seed=2 * row + 1)
        lo = np.minimum(X.min(0), X_test.min(0)) - 0.3
        hi = np.maximum(X.max(0), X_test.max(0)) + 0.3
        gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], args.grid),
                             np.linspace(lo[1], hi[1], args.grid))
        grid = np.column_stack([gx.ravel(), gy.ravel()])
        for col, (label, estimator) in enumerate(
                (("exact", ExactRBF()), ("rff", RFFLinear(random_state=row)))):
            start = time.perf_counter()
            model = estimator.fit(X, y).model
            seconds = time.perf_counter() - start
            train_acc = 100 * np.mean(model.predict(estimator.features(X)) == y)
            test_acc = 100 * np.mean(model.predict(estimator.features(X_test)) == y_test)
            print(f"{name:18s} {label:6s} {seconds:7.3f} {model.n_sv:5d} "
                  f"{train_acc:8.2f}% {test_acc:7.2f}%", flush=True)

            ax = axes[row, col]
            values = score(estimator, grid).reshape(gx.shape)
            limit = max(1.5, float(np.abs(values).max()))
            ax.contourf(gx, gy, values, levels=np.linspace(-limit, limit, 21),
                        cmap="RdBu_r", alpha=0.6)
            ax.contour(gx, gy, values, levels=[-1, 0, 1], colors="k",
                       linestyles=["--", "-", "--"], linewidths=[0.8, 1.6, 0.8])
            ax.scatter(X_test[:, 0], X_test[:, 1], c=np.where(y_test == 1, "tab:red",
                                                              "tab:blue"),
                       s=6, edgecolors="none")
            title = ("exact RBF SVM" if label == "exact"
                     else f"RFF({N_COMPONENTS}) + linear SVM")
            ax.set_title(f"{name}: {title}\ntest accuracy {test_acc:.1f}%, "
                         f"fit {seconds:.2f} s", fontsize=10)
            ax.set_xlim(lo[0], hi[0])
            ax.set_ylim(lo[1], hi[1])
            ax.set_aspect("equal")
    fig.suptitle(f"Exact RBF SVM (C={C}, gamma={GAMMA}) against random Fourier features "
                 f"+ linear SVM; test points shown")
    fig.tight_layout()
    path = args.out_dir / "seed_simulations_boundaries.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"\nwrote {path}")


# %%
# Run it
# ------
# The table, then the figure: one row per problem, exact model on the left.

if __name__ == "__main__":
    with one_blas_thread():
        main()
