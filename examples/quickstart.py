"""libsmo in one minute: train SVMs on data made here, look at what training found.

It makes two noisy interleaved half-moons (2,000 training and 1,000 test points), trains
an RBF and a linear C-SVC with `libsmo.train`, and prints for each the training time,
support vectors, SMO steps, dual objective and accuracies. It then shows that the same
data as a scipy CSR matrix gives the same model, and that `verbose=True` speaks through
Python's logging. Nothing is written to disk.

Run: python examples/quickstart.py
"""
import logging
import time

import numpy as np
import scipy.sparse as sp

import libsmo


def half_moons(n, rng, noise=0.25):
    """Two interleaved half circles with Gaussian noise; labels +1 / -1."""
    t = rng.uniform(0, np.pi, size=n)
    upper = rng.random(n) < 0.5
    x = np.where(upper, np.cos(t), 1 - np.cos(t))
    y = np.where(upper, np.sin(t), 0.5 - np.sin(t))
    X = np.column_stack([x, y]) + rng.normal(scale=noise, size=(n, 2))
    return X, np.where(upper, 1, -1)


def main():
    rng = np.random.default_rng(0)
    X, y = half_moons(2000, rng)
    X_test, y_test = half_moons(1000, rng)
    print(f"data: {X.shape[0]} training and {X_test.shape[0]} test points, 2 features\n")
    print(f"{'kernel':8s} {'time (s)':>9s} {'nSV':>5s} {'steps':>6s} {'objective':>11s} "
          f"{'status':>8s} {'train acc':>9s} {'test acc':>8s}")
    models = {}
    for kernel, params in (("rbf", {"C": 1.0, "gamma": 2.0}), ("linear", {"C": 1.0})):
        start = time.perf_counter()
        model = libsmo.train(X, y, kernel=kernel, **params)
        seconds = time.perf_counter() - start
        models[kernel] = model
        train_acc = np.mean(model.predict(X) == y)
        test_acc = np.mean(model.predict(X_test) == y_test)
        print(f"{kernel:8s} {seconds:9.3f} {model.n_sv:5d} {model.n_iter[0]:6d} "
              f"{model.objective[0]:11.4f} {model.status[0]:>8s} {train_acc:9.3f} "
              f"{test_acc:8.3f}")

    sparse_model = libsmo.train(sp.csr_matrix(X), y, kernel="rbf", C=1.0, gamma=2.0)
    gap = np.max(np.abs(sparse_model.decision_function(X_test)
                        - models["rbf"].decision_function(X_test)))
    print(f"\nsame data as CSR: max |decision difference| = {gap:.2e}")

    print("\nverbose=True goes through the 'libsmo' logger:", flush=True)
    logging.basicConfig(level=logging.INFO, format="  libsmo: %(message)s")
    libsmo.train(X[:300], y[:300], kernel="rbf", gamma=2.0, verbose=True)


if __name__ == "__main__":
    main()
