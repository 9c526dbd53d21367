"""The solvers of the core (`libsmo._core.solvers.solve` over a QMatrix or SVRQMatrix,
and `solve_linear`) on tiny problems whose optimum is known exactly.

The typed result these solvers return is tested in test_solution.py.

The known optimum comes from `exact_qp`, which solves

    min 1/2 a'Qa + p'a   s.t.  A a = b,  0 <= a <= C

(A = y' for one equality constraint, or the two rows of the nu variant, one per sign of
y) by enumerating the active sets: every variable at 0, at C_i or free, the KKT system
of the free variables and the multipliers solved, and the feasible point of least
objective kept. Q is positive semi-definite, so that point is the global optimum. It is
given the matrix the solver works on: the float32 rows of the QMatrix (the kernel
solver), or the float64 products x_i'x_j (the primal solver). Two cases are also worked
out by hand.

Tolerances follow from the stopping rule. The solver stops when m(a) - M(a) <= tol, per
sign group for the nu variant. With d = a - a* and u = y * d (sum u = 0 in each group),
convexity gives f(a) - f* <= G'd = -sum_t v_t u_t <= (m - M) |d|_1 / 2, and optimality
of a* gives f(a) - f* >= d'Qd / 2 >= lambda_min |d|^2 / 2. So

    |d| <= tol sqrt(n) / lambda_min,   f(a) - f* <= tol |d|_1 / 2,

and rho, a mean of y_t G_t over free variables that all lie within tol of each other,
is within tol + ||Q||_inf |d|_inf of the exact one. For epsilon-SVR, Q = [[K, -K],
[-K, K]] is singular, but a_k a*_k = 0 both at the optimum and wherever the solver stops
(v of alpha*_k exceeds v of alpha_k by 2 epsilon > tol), so |d|_1 is |d beta|_1 for
beta = a - a*, d'Qd = d beta' K d beta, and the bound holds with lambda_min(K) and
n = l. nu-SVR's alpha is not unique here (its epsilon, -r, comes out 0), but its
objective depends on beta alone: lambda_min(K) |d beta|^2 <= tol |d|_1 <= tol sum(C)
bounds beta. The tests use those bounds, computed per problem, and require them to be
sharp (below 2e-6; 1e-3 for nu-SVR's beta).

The solver's Q is float32: a singular kernel matrix (a low-rank linear or polynomial
kernel, duplicated points) rounds to one that is slightly indefinite, where an exact
minimum can lie 1e-7 below a point that meets tol = 1e-8, and the solver (like LIBSVM)
may cycle there until its step cap. The problems here have lambda_min above 0.19.
"""
import functools
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple, Optional

import numpy as np
import pytest

import libsmo
from helpers.layouts import in_layout, kernel_reference
from libsmo._core.kernel import Kernel
from libsmo._core.qmatrix import QMatrix, SVRQMatrix
from libsmo._core.solvers import SELECTIONS, solve, solve_linear

TOL = 1e-8
CACHES = {"large": 100.0, "tiny": 0.0}   # tiny: the two rows the budget always allows


def exact_qp(Q, p, A, b, C):
    """The minimiser of 1/2 a'Qa + p'a over {A a = b, 0 <= a <= C} and its value, by
    enumerating the 3^n active sets (n <= 7 or so)."""
    n, m = len(p), A.shape[0]
    best, best_f = None, np.inf
    for pattern in itertools.product((0, 1, 2), repeat=n):  # lower, upper, free
        pattern = np.array(pattern)
        a = np.where(pattern == 1, C, 0.0)
        F, B = np.flatnonzero(pattern == 2), np.flatnonzero(pattern != 2)
        if len(F):
            kkt = np.zeros((len(F) + m, len(F) + m))
            kkt[:len(F), :len(F)] = Q[np.ix_(F, F)]
            kkt[:len(F), len(F):] = A[:, F].T
            kkt[len(F):, :len(F)] = A[:, F]
            rhs = np.r_[-p[F] - Q[np.ix_(F, B)] @ a[B], b - A[:, B] @ a[B]]
            a[F] = np.linalg.lstsq(kkt, rhs, rcond=None)[0][:len(F)]
        if (np.any(a < -1e-12) or np.any(a > C + 1e-12)
                or np.any(np.abs(A @ a - b) > 1e-10)):
            continue
        a = np.clip(a, 0.0, C)
        f = 0.5 * a @ Q @ a + p @ a
        if f < best_f:
            best, best_f = a, f
    return best, best_f


def exact_rho(Q, p, y, C, a, nu):
    """rho (and r for nu) of the exact optimum from its free variables: y_t G_t (nu: G_t
    per sign group) is the same for all of them. None where a group has none."""
    G = Q @ a + p
    free = (a > 1e-9) & (a < C - 1e-9)
    groups = [y > 0, y < 0] if nu else [np.ones(len(y), bool)]
    values = []
    for g in groups:
        yG = (G if nu else y * G)[free & g]
        if len(yG) == 0:
            return None
        assert np.ptp(yG) < 1e-9, "the exact optimum's free variables disagree"
        values.append(yG.mean())
    if not nu:
        return values[0], 0.0
    return (values[0] - values[1]) / 2, (values[0] + values[1]) / 2


def greedy(total, C):
    """alpha_k = min(C_k, what is left of total), in order (LIBSVM's starting points)."""
    out = np.zeros(len(C))
    for k, c in enumerate(C):
        out[k] = min(c, max(total, 0.0))
        total -= out[k]
    return out


# ---------------------------------------------------------------------------------------
# The problems: C-SVC, weighted C-SVC, one-class, nu-SVC, epsilon-SVR

KERNELS = {"rbf": ("rbf", 0.5, 3, 0.0), "linear": ("linear", 0.0, 3, 0.0),
           "poly": ("poly", 0.5, 2, 1.0)}


def points(n, d, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.8)


def labels(n, seed):
    y = np.where(np.random.default_rng(seed + 100).random(n) < 0.5, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    return y


# seeds of the data, chosen so that each optimum has free variables (in each sign group
# for nu) clear of the bounds, and bound ones, and Q is far enough from singular for a
# bound on |alpha - alpha*| below 2e-6 at tol = 1e-8
SEEDS = {"linear": 5, "rbf": 6, "poly": 6, "one_class-rbf": 3, "one_class-linear": 4,
         "nu_svc": 3, "epsilon_svr": 2, "nu_svr": 22}


def problem(name):
    """(D, kernel, p, y, C, start, nu, regression) of each test problem."""
    if name.startswith("c_svc"):
        kernel = name.split("-")[1]
        seed = SEEDS[kernel]
        D = points(6, 8, seed) if kernel == "linear" else points(7, 3, seed)
        y = labels(len(D), seed)
        C = np.full(len(D), 0.6 if kernel == "linear" else 1.0)
        if name.endswith("weighted"):
            C *= np.random.default_rng(5).uniform(0.3, 2.0, len(D))
        return D, kernel, -np.ones(len(D)), y, C, np.zeros(len(D)), False, False
    seed = SEEDS[name]
    if name.startswith("one_class"):
        kernel = name.split("-")[1]
        D = points(6, 8, seed) if kernel == "linear" else points(7, 3, seed)
        C = np.ones(len(D))
        return D, kernel, np.zeros(len(D)), np.ones(len(D)), C, greedy(0.4 * len(D), C), \
            False, False
    if name == "nu_svc":
        D, y = points(7, 3, seed), labels(7, seed)
        C = np.ones(7)
        start = np.zeros(7)
        for g in (y > 0, y < 0):  # nu l / 2 in each class, nu = 0.5
            start[g] = greedy(0.5 * 7 / 2, C[g])
        return D, "rbf", np.zeros(7), y, C, start, True, False
    if name == "epsilon_svr":
        D = points(3, 2, seed)
        z = np.random.default_rng(seed).standard_normal(3)
        y = np.r_[np.ones(3), -np.ones(3)]
        p = np.r_[0.1 - z, 0.1 + z]   # epsilon = 0.1
        return D, "rbf", p, y, np.full(6, 0.3), np.zeros(6), False, True
    if name == "nu_svr":
        D = points(3, 2, seed)
        z = np.random.default_rng(seed).standard_normal(3)
        y = np.r_[np.ones(3), -np.ones(3)]
        half = greedy(0.5 * 0.8 * 3 / 2, np.full(3, 0.5))   # C nu l / 2, nu = 0.8
        return D, "rbf", np.r_[-z, z], y, np.full(6, 0.5), np.r_[half, half], True, True
    raise AssertionError(name)


KERNEL_PROBLEMS = ["c_svc-rbf", "c_svc-linear", "c_svc-poly", "c_svc-rbf-weighted",
                   "one_class-rbf", "nu_svc", "epsilon_svr", "nu_svr"]
PRIMAL_PROBLEMS = ["c_svc-linear", "c_svc-linear-weighted", "one_class-linear"]


def constraints(y, start, nu):
    A = np.vstack([y > 0, y < 0]).astype(float) if nu else y[None, :]
    return A, A @ start


def q_matrix(X, name, cache_mb=100.0):
    D, kernel, p, y, C, start, nu, regression = problem(name)
    k = Kernel(X, *KERNELS[kernel])
    return SVRQMatrix(k, cache_mb) if regression else QMatrix(k, y, cache_mb)


class Optimum(NamedTuple):
    """A known optimum and how close to it the stopping rule puts the solver."""
    alpha: np.ndarray
    f: float
    rho: Optional[tuple]    # (rho, r) from the free variables; None without them
    alpha_atol: float       # on alpha, or on beta = a - a* where alpha is not unique
    f_atol: float
    rho_atol: float
    unique: bool


@functools.lru_cache(maxsize=None)
def known_optimum(name, layout, primal=False):
    """The exact optimum of problem `name` on the matrix the solver will see, with the
    tolerances the stopping rule implies (see the module's docstring)."""
    D, kernel, p, y, C, start, nu, regression = problem(name)
    n = len(p)
    if primal:
        Q = np.outer(y, y) * (D @ D.T)
    else:
        Qm = q_matrix(in_layout(D, layout), name)
        Q = np.array([Qm.row(i) for i in range(n)], dtype=np.float64)
        # the problem is the one posed: s_i s_j K_ij to float32 precision
        K = kernel_reference(D, D, *KERNELS[kernel])
        np.testing.assert_allclose(Q, np.block([[K, -K], [-K, K]]) if regression
                                   else np.outer(y, y) * K, rtol=1e-7, atol=1e-12)
    A, b = constraints(y, start, nu)
    alpha, f = exact_qp(Q, p, A, b, C)
    # the regressions: lambda_min of K (Q's upper-left block) and n = l
    n_eff = n // 2 if regression else n
    lam = np.linalg.eigvalsh(Q[:n_eff, :n_eff]).min()
    if name == "nu_svr":
        # p = (-z, z): f depends on beta = a - a* alone, and the optimum's epsilon (-r)
        # is 0 here, so alpha is not unique (a_k and a*_k may grow together) but beta
        # is: lambda |d beta|^2 <= d'Qd <= tol |d|_1 <= tol sum(C)
        alpha_atol = np.sqrt(TOL * C.sum() / lam)
        f_atol = TOL * C.sum() / 2
        assert alpha_atol < 1e-3, f"{name}: the bound {alpha_atol:.2g} is not sharp"
    else:
        alpha_atol = TOL * np.sqrt(n_eff) / lam
        f_atol = TOL * np.sqrt(n_eff) * alpha_atol / 2
        assert alpha_atol < 2e-6, f"{name}: the bound {alpha_atol:.2g} is not sharp"
    rho_atol = TOL + np.abs(Q).sum(axis=1).max() * alpha_atol
    return Optimum(alpha, f, exact_rho(Q, p, y, C, alpha, nu), alpha_atol,
                   f_atol + 1e-12 * max(1.0, abs(f)), rho_atol, name != "nu_svr")


def assert_optimum(solution, name, layout, primal=False):
    known = known_optimum(name, layout, primal)
    C = problem(name)[4]
    assert solution.status == "optimal" and solution.n_iter > 0
    assert np.all(solution.alpha >= 0) and np.all(solution.alpha <= C)
    if known.unique:
        np.testing.assert_allclose(solution.alpha, known.alpha, rtol=0,
                                   atol=known.alpha_atol)
    else:
        l = len(C) // 2
        np.testing.assert_allclose(solution.alpha[:l] - solution.alpha[l:],
                                   known.alpha[:l] - known.alpha[l:], rtol=0,
                                   atol=known.alpha_atol)
    assert abs(solution.objective - known.f) <= known.f_atol
    if known.rho is not None:
        assert abs(solution.rho - known.rho[0]) <= known.rho_atol
        assert abs(solution.r - known.rho[1]) <= known.rho_atol


@pytest.mark.parametrize("name", KERNEL_PROBLEMS + ["one_class-linear"])
def test_the_problems_have_free_and_bound_variables(name):
    """Each problem exercises both kinds of variables (and rho from free ones)."""
    known = known_optimum(name, "dense")
    C = problem(name)[4]
    free = (known.alpha > 1e-9) & (known.alpha < C - 1e-9)
    assert free.any() and (~free).any() and known.rho is not None


@pytest.mark.parametrize("cache", list(CACHES))
@pytest.mark.parametrize("shrinking", [True, False], ids=["shrinking", "no-shrinking"])
@pytest.mark.parametrize("selection", SELECTIONS)
@pytest.mark.parametrize("name", KERNEL_PROBLEMS)
def test_kernel_solver_reaches_the_exact_optimum(layout, name, selection, shrinking,
                                                 cache):
    D, kernel, p, y, C, start, nu, regression = problem(name)
    Q = q_matrix(in_layout(D, layout), name, CACHES[cache])
    solution = solve(Q, p, y, C, start, tol=TOL, shrinking=shrinking, selection=selection,
                     nu=nu)
    assert_optimum(solution, name, layout)


@pytest.mark.parametrize("selection", SELECTIONS)
def test_precomputed_kernel_reaches_the_exact_optimum(selection):
    """The Gram matrix of c_svc-rbf, given as a precomputed kernel (dense only)."""
    D, kernel, p, y, C, start, nu, regression = problem("c_svc-rbf")
    gram = kernel_reference(D, D, *KERNELS["rbf"])
    Q = QMatrix(Kernel(in_layout(gram, "dense"), "precomputed", 0.0, 3, 0.0), y, 100.0)
    solution = solve(Q, p, y, C, start, tol=TOL, selection=selection)
    assert_optimum(solution, "c_svc-rbf", "dense")


@pytest.mark.parametrize("name", PRIMAL_PROBLEMS)
def test_primal_solver_reaches_the_exact_optimum(layout, name):
    D, kernel, p, y, C, start, nu, regression = problem(name)
    X = in_layout(D, layout)
    solution = solve_linear(X, np.arange(len(D)), p, y, C, start, tol=TOL)
    assert_optimum(solution, name, layout, primal=True)


# ---------------------------------------------------------------------------------------
# Platt's loop when a variable is one ulp below its bound
#
# Found by comparing the solvers with exact_qp on random tiny problems. On this C-SVC
# problem (the variables in the order train() gives them: class +1 first) Platt's loop
# reaches, after 9 steps, alpha = (0, 1, 1 - 2^-53, 0, 1, 1), the exact optimum
# (0, 1, 1, 0, 1, 1) but for variable 2, which sits one ulp below C = 1: it counts as
# free, so it is in I_up, with the largest v, and m - M = 0.26 > tol. Every step that
# involves it moves it by that ulp and its partner by nothing, and take_step's progress
# test (|d alpha_j| < 1e-12 (...)) refuses them all. The outer loop then alternates
# examine-all passes that take no step forever, and since StopConditions are asked only
# after a step, neither max_iter, a time limit, a stop flag, a callback nor Ctrl-C ends
# it. (The second-order loop took 13 steps; the primal solver takes a refused step
# without the test when a pass changes nothing, and so ends.) The same hung
# libsmo.train(D[order], y[order], kernel="poly", ..., selection="platt"). Since fixed:
# a pass without a step on a problem that is not optimal takes the worst pair's step
# without the progress test, and the stopping conditions are polled after every pass.

STALL_D = [[-1.7174478773981274, 0.0], [-0.7505495967475092, -0.7693883133346631],
           [0.5948316315033605, 0.0], [1.8621727058468038, 0.0], [0.0, 0.0],
           [-0.38338233345671785, -0.24315229568320892]]
STALL_Y = [1.0, 1.0, 1.0, 1.0, -1.0, -1.0]
STALL_KERNEL = ("poly", 0.4290138452156743, 3, 0.2486662442598937)
STALL_RUN = f"""
import json, numpy as np
from libsmo._core.kernel import Kernel
from libsmo._core.qmatrix import QMatrix
from libsmo._core.solvers import solve
y = np.array({STALL_Y!r})
Q = QMatrix(Kernel(np.array({STALL_D!r}), *{STALL_KERNEL!r}), y, 100.0)
s = solve(Q, -np.ones(6), y, np.ones(6), tol=1e-3, selection="platt", max_iter=50)
print(json.dumps([s.status, s.objective, s.alpha.tolist()]))
"""


def test_platt_ends_when_a_variable_is_one_ulp_below_its_bound(tmp_path):
    y = np.array(STALL_Y)
    Qm = QMatrix(Kernel(in_layout(np.array(STALL_D), "dense"), *STALL_KERNEL), y, 100.0)
    Q = np.array([Qm.row(i) for i in range(6)], dtype=np.float64)
    alpha, f = exact_qp(Q, -np.ones(6), y[None, :], np.zeros(1), np.ones(6))
    np.testing.assert_allclose(alpha, [0, 1, 1, 0, 1, 1], atol=1e-12)
    # in a child process: a solver that never ends must not hang the test session
    package_root = str(Path(libsmo.__file__).resolve().parents[1])
    paths = [package_root] + os.environ.get("PYTHONPATH", "").split(os.pathsep)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p))
    try:
        out = subprocess.run([sys.executable, "-c", STALL_RUN], capture_output=True,
                             text=True, timeout=15, cwd=tmp_path, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail("selection='platt' with max_iter=50 did not end within 15 s")
    assert out.returncode == 0, out.stderr
    status, objective, got = json.loads(out.stdout)
    assert status in ("optimal", "max_iter")
    # the stopping rule bounds f - f* by tol |a - a*|_1 / 2 <= tol sum(C) / 2
    assert status != "optimal" or objective - f <= 1e-3 * 6 / 2


# ---------------------------------------------------------------------------------------
# Two problems worked out by hand (linear kernel, one feature)
#
# A: x_1 = +1 (y = +1), x_2 = -1 (y = -1), C = 10. Q = y y' x x' = [[1, 1], [1, 1]],
#    p = (-1, -1), a_1 = a_2 = a by y'a = 0, so f = 2 a^2 - 2 a, least at a = 1/2 < C:
#    alpha = (1/2, 1/2), f = -1/2, w = 1/2 + 1/2 = 1; G = Qa + p = (0, 0), so
#    rho = y_t G_t = 0: f(x) = x, the margins at x = +-1.
# B: x_1 = 2 (y = +1), x_2 = 0 (y = -1), C = 1/4. Q = [[4, 0], [0, 0]], a_1 = a_2 = a,
#    f = 2 a^2 - 2 a would be least at 1/2 > C: both at the bound, alpha = (1/4, 1/4),
#    f = 2/16 - 1/2 = -3/8. G = (4/4 - 1, -1) = (0, -1), y G = (0, 1). No free
#    variable: LIBSVM's rho is the middle of [max y G over the upper-bound y = +1,
#    min y G over the upper-bound y = -1] = (0 + 1) / 2 = 1/2.

HAND = {
    "A": (np.array([[1.0], [-1.0]]), 10.0, [0.5, 0.5], -0.5, 0.0),
    "B": (np.array([[2.0], [0.0]]), 0.25, [0.25, 0.25], -0.375, 0.5),
}
HAND_Y = np.array([1.0, -1.0])


@pytest.mark.parametrize("case", list(HAND))
def test_exact_qp_agrees_with_the_hand_derivation(case):
    D, C, alpha, f, rho = HAND[case]
    Q = np.outer(HAND_Y, HAND_Y) * (D @ D.T)
    got, got_f = exact_qp(Q, -np.ones(2), HAND_Y[None, :], np.zeros(1), np.full(2, C))
    np.testing.assert_allclose(got, alpha, atol=1e-12)
    assert got_f == pytest.approx(f, abs=1e-12)


@pytest.mark.parametrize("solver", ["second_order", "platt", "primal"])
@pytest.mark.parametrize("case", list(HAND))
def test_hand_derived_optimum(layout, case, solver):
    D, C, alpha, f, rho = HAND[case]
    X = in_layout(D, layout)
    Cs = np.full(2, C)
    if solver == "primal":
        solution = solve_linear(X, np.arange(2), -np.ones(2), HAND_Y, Cs, tol=TOL)
    else:
        Q = QMatrix(Kernel(X, "linear", 0.0, 3, 0.0), HAND_Y, 1.0)
        solution = solve(Q, -np.ones(2), HAND_Y, Cs, tol=TOL, selection=solver)
    # one step solves a two-variable problem exactly
    assert solution.status == "optimal" and solution.n_iter == 1
    np.testing.assert_allclose(solution.alpha, alpha, rtol=0, atol=1e-15)
    assert solution.objective == pytest.approx(f, abs=1e-15)
    assert solution.rho == pytest.approx(rho, abs=1e-15) and solution.r == 0.0
