"""The linear C-SVC's start from LIBLINEAR's coordinate descent
(libsmo.training._linear_start): the rows it reads, a start near LIBSVM's optimum, and
the primal solver's fit from it at LIBSVM's optimum."""
import numpy as np
import pytest
import scipy.sparse as sp

import libsmo
from helpers.data import load_dataset
from helpers.peers import libsvm_train
from libsmo.training._linear_start import coordinate_rows, dual_cd_start, linear_gradients


def test_coordinate_rows_are_float_rows_with_int32_columns():
    X = sp.csr_matrix(np.array([[0.0, 1.5], [2.0, 0.0]]))
    X.indices = X.indices.astype(np.int64)
    rows = coordinate_rows(X)
    assert rows.indices.dtype == np.int32
    np.testing.assert_array_equal(rows.toarray(), X.toarray())
    rows = coordinate_rows(np.full((2, 2), 255, dtype=np.uint8))
    assert rows.dtype == np.float32 and np.all(rows == 255.0)
    dense = np.ones((2, 2))
    assert coordinate_rows(dense) is dense
    assert coordinate_rows(np.asfortranarray(np.eye(3))).flags.c_contiguous


def _violation(X, signs, alpha, upper_bound):
    """LIBSVM's m(a) - M(a) at alpha, from w = sum a_t y_t x_t."""
    w = np.asarray(X.T @ (alpha * signs)).ravel()
    v = -signs * (signs * np.asarray(X @ w).ravel() - 1.0)
    up = np.where(signs > 0, alpha < upper_bound, alpha > 0)
    low = np.where(signs > 0, alpha > 0, alpha < upper_bound)
    return v[up].max() - v[low].min()


@pytest.mark.parametrize("C,weight", [(0.05, 1.0), (1.0, 2.0)])
def test_coordinate_descent_start_is_near_libsvms_optimum(C, weight):
    """The primal solver's start (`libsmo.training._linear_start`): feasible and near
    LIBSVM's objective; at C = 0.05 within LIBSVM's stopping rule already (at larger C
    the last runs of coordinate descent may stop at their epoch cap, and SMO goes on);
    the fit from it is LIBSVM's optimum, class weights included."""
    X, y = load_dataset("a9a", n_rows=8000)
    X = sp.csr_matrix(X)
    signs = np.where(y > 0, 1.0, -1.0)
    bounds = C * np.where(signs > 0, weight, 1.0)
    start = dual_cd_start(X, np.arange(X.shape[0]), signs, bounds, 1e-3)
    alpha = start.alpha
    assert np.all((alpha >= 0) & (alpha <= bounds))
    assert abs(signs @ alpha) < 1e-9 * bounds.sum()
    within = _violation(X, signs, alpha, bounds) <= 1e-3
    assert within or C > 0.05
    peer = libsvm_train(X, y, kernel="linear", C=C, class_weight={1: weight, -1: 1.0})
    w = np.asarray(X.T @ (alpha * signs)).ravel()
    objective = 0.5 * w @ w - alpha.sum()
    assert objective == pytest.approx(peer.objectives[0], rel=1e-4 if within else 1e-3)
    model = libsmo.train(X, y, kernel="linear", C=C, class_weight={1: weight},
                         linear_solver="primal")
    assert model.status == ["optimal"]
    assert model.objective[0] == pytest.approx(peer.objectives[0], rel=1e-4)


def test_the_start_revisits_only_in_its_runs_at_smos_tol(monkeypatch):
    """The start's runs of coordinate descent at SMO's tol or tighter give each epoch's
    extreme violators START_REVISITS more steps; the looser runs keep LIBLINEAR's
    steps; the start stays feasible (the fit from it is LIBSVM's optimum: the test
    above)."""
    from libsmo.training import _linear_start
    X, y = load_dataset("a9a", n_rows=8000)
    X = sp.csr_matrix(X)
    signs = np.where(y > 0, 1.0, -1.0)
    bounds = np.ones(X.shape[0])
    runs, solve = [], _linear_start.svc_dual

    def recorded(*args, **kwargs):
        runs.append((kwargs["tol"], kwargs.get("revisits", 0)))
        return solve(*args, **kwargs)

    monkeypatch.setattr(_linear_start, "svc_dual", recorded)
    start = _linear_start.dual_cd_start(X, np.arange(X.shape[0]), signs, bounds, 1e-3)
    assert {tol <= 1e-3 for tol, _ in runs} == {True, False}
    for tol, revisits in runs:
        assert revisits == (_linear_start.START_REVISITS if tol <= 1e-3 else 0), runs
    assert np.all((start.alpha >= 0) & (start.alpha <= bounds))
    assert abs(signs @ start.alpha) < 1e-9 * bounds.sum()


def test_linear_gradients_are_the_kernel_solvers():
    """G = Q a - e and G_bar = sum over the variables at C of C_s Q_s, through w, equal
    the sums over the Gram matrix (a subset of rows, in another order)."""
    X, y = load_dataset("heart_scale")
    X = sp.csr_matrix(X)
    rng = np.random.default_rng(0)
    rows = rng.permutation(X.shape[0])[:150]
    signs = np.where(y[rows] > 0, 1.0, -1.0)
    bounds = rng.uniform(0.5, 2.0, 150)
    alpha = np.where(rng.random(150) < 0.3, bounds, rng.uniform(0, 1, 150) * bounds)
    alpha[rng.random(150) < 0.3] = 0.0
    gradient, gradient_bar = linear_gradients(X, rows, signs, bounds, alpha)
    K = (X[rows] @ X[rows].T).toarray()
    Q = signs[:, None] * signs[None, :] * K
    np.testing.assert_allclose(gradient, Q @ alpha - 1.0, rtol=1e-12, atol=1e-12)
    at_bound = alpha == bounds
    np.testing.assert_allclose(gradient_bar, Q[:, at_bound] @ bounds[at_bound],
                               rtol=1e-12, atol=1e-12)


def test_a_start_short_of_the_rule_is_finished_by_the_kernel_solver():
    """At C = 10 the start's last run stops at its epoch cap (not near): the executor
    lets the primal solver take PRIMAL_FINISH_STEPS from it, then hands its point, with
    the gradients through w, to the kernel solver, which ends at LIBSVM's stopping rule
    and libsvm-official's objective in fewer steps than the primal solver needs."""
    from libsmo._core.solvers import solve_linear
    from libsmo.training._execution import PRIMAL_FINISH_STEPS, Executor
    from libsmo.training._params import KernelParams, SolverParams
    from libsmo.training._problem import BinaryProblem
    X, y = load_dataset("a9a", n_rows=8000)
    X = sp.csr_matrix(X)
    signs = np.where(y > 0, 1.0, -1.0)
    n = X.shape[0]
    bounds = np.full(n, 10.0)
    start = dual_cd_start(X, np.arange(n), signs, bounds, 1e-3)
    assert not start.near
    problem = BinaryProblem(rows=np.arange(n), signs=signs, linear_term=-np.ones(n),
                            upper_bound=bounds)
    linear = KernelParams(kernel="linear", gamma=0.0)
    got = Executor(X, linear, SolverParams(), "always").solve(problem)
    primal = solve_linear(X, np.arange(n), -np.ones(n), signs, bounds, start.alpha,
                          seeded=True, max_iter=PRIMAL_FINISH_STEPS)
    assert primal.status == "max_iter"
    gradient, gradient_bar = linear_gradients(X, np.arange(n), signs, bounds, primal.alpha)
    by_kernel = Executor(X, linear, SolverParams(), "never").solve(BinaryProblem(
        rows=np.arange(n), signs=signs, linear_term=-np.ones(n), upper_bound=bounds,
        start=primal.alpha, gradient=gradient, gradient_bar=gradient_bar, seeded=True))
    np.testing.assert_array_equal(got.alpha, by_kernel.alpha)
    assert got.status == "optimal" and got.n_iter == by_kernel.n_iter
    # the primal solver alone from the start: the same optimum, by many more steps
    alone = solve_linear(X, np.arange(n), -np.ones(n), signs, bounds, start.alpha,
                         seeded=True)
    assert alone.n_iter > PRIMAL_FINISH_STEPS + got.n_iter
    # (the kernel solver sums float32 kernel rows: 1% of room for their rounding)
    assert _violation(X, signs, got.alpha, bounds) <= 1e-3 * 1.01
    peer = libsvm_train(X, y, kernel="linear", C=10.0)
    assert got.objective == pytest.approx(peer.objectives[0], rel=1e-4)
