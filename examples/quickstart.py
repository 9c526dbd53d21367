"""libsmo in one minute
====================

Train SVMs on data made here and look at what training found.

1. Data: two noisy interleaved half-moons in 2-D (2,000 training and 1,000 test points,
   made with numpy's default_rng(0), so every run prints the same numbers). No files
   are read and nothing is written.
2. `libsmo.train` with an RBF kernel and with a linear kernel (C-SVC). For each model:
   training time, number of support vectors, SMO iterations (`model.n_iter`; the
   linear model's solver starts from LIBLINEAR's coordinate descent, which here already
   meets the tolerance, so SMO takes no steps), the dual objective
   (`model.objective`), how the solver stopped (`model.status`: "optimal" means the
   tolerance was met) and the training and test accuracy. The moons are not
   linearly separable, so the RBF model is the more accurate one.
3. The same data given as a scipy CSR matrix trains the same model: the decision
   values agree to rounding.
4. `verbose=True` reports through Python's `logging` (the "libsmo" logger), so an
   application decides where the lines go; here `logging.basicConfig` sends them to
   standard error with a prefix.

Run (a second or two)::

    python examples/quickstart.py
"""
import logging
import time

import numpy as np
import scipy.sparse as sp

import libsmo

RBF = {"kernel": "rbf", "C": 1.0, "gamma": 2.0}
LINEAR = {"kernel": "linear", "C": 1.0}


def half_moons(n, rng, noise=0.25):
    """n points of two interleaved half circles plus Gaussian noise; labels +1 / -1."""
    t = rng.uniform(0, np.pi, size=n)
    upper = rng.random(n) < 0.5
    x = np.where(upper, np.cos(t), 1 - np.cos(t))
    y = np.where(upper, np.sin(t), 0.5 - np.sin(t))
    X = np.column_stack([x, y]) + rng.normal(scale=noise, size=(n, 2))
    return X, np.where(upper, 1, -1)


# %%
# The data
# --------
# Two half-moons, drawn from a fixed seed.

rng = np.random.default_rng(0)
X, y = half_moons(2000, rng)
X_test, y_test = half_moons(1000, rng)
print(f"data: two half-moons, {X.shape[0]} training and {X_test.shape[0]} test "
      f"points, {X.shape[1]} features\n")

# %%
# An RBF and a linear C-SVC
# -------------------------
# `libsmo.train` returns a `libsmo.Model` with LIBSVM's fields; `n_iter`,
# `objective` and `status` have one entry per binary problem (here one).

print(f"{'kernel':8s} {'time (s)':>9s} {'nSV':>5s} {'n_iter':>6s} {'objective':>11s} "
      f"{'status':>8s} {'train acc':>9s} {'test acc':>8s}")
models = {}
for params in (RBF, LINEAR):
    start = time.perf_counter()
    model = libsmo.train(X, y, **params)
    seconds = time.perf_counter() - start
    models[params["kernel"]] = model
    train_acc = np.mean(model.predict(X) == y)
    test_acc = np.mean(model.predict(X_test) == y_test)
    print(f"{params['kernel']:8s} {seconds:9.3f} {model.n_sv:5d} {model.n_iter[0]:6d} "
          f"{model.objective[0]:11.4f} {model.status[0]:>8s} {train_acc:9.3f} "
          f"{test_acc:8.3f}")

# %%
# Sparse input: the same model
# ----------------------------
# A scipy CSR matrix stays sparse all the way; the kernel values are the same bits.

sparse_model = libsmo.train(sp.csr_matrix(X), y, **RBF)
gap = np.max(np.abs(sparse_model.decision_function(X_test)
                    - models["rbf"].decision_function(X_test)))
print(f"same data as a scipy CSR matrix: {sparse_model.n_sv} support vectors, "
      f"max |difference of decision values| = {gap:.1e}")

# %%
# LIBSVM's lines through logging
# ------------------------------
# `verbose=True` speaks through the "libsmo" logger (here on standard error).

print("verbose=True on 300 points, through logging (on standard error):", flush=True)
logging.basicConfig(level=logging.INFO, format="  [%(name)s] %(message)s")
libsmo.train(X[:300], y[:300], **RBF, verbose=True)

rbf, linear = models["rbf"], models["linear"]
print(f"\nsummary: RBF test accuracy {np.mean(rbf.predict(X_test) == y_test):.1%} "
      f"with {rbf.n_sv} support vectors, linear "
      f"{np.mean(linear.predict(X_test) == y_test):.1%} with {linear.n_sv}; both "
      f"solved to the tolerance ({rbf.status[0]}, {linear.status[0]}); CSR input "
      f"gives the same model (difference {gap:.1e}).")
