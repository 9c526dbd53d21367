"""The execution of binary problems (`libsmo.training._execution.Executor`): how a
`BinaryProblem` of the problem layer becomes a `Solution` of the core.

The choice of the primal solver (never, always, or where Q outgrows twice the cache);
`solve` gives exactly what the core's `solve` / `solve_linear` give when called
directly with the same rows, kernel and options, for every kind of problem (kernel rows,
the nu variant, one-class, the regressions, the primal weights), on dense and CSR input;
`map_pairs` on two threads gives the results of one thread, in order, each problem on a
share of the cache; an overflowing kernel is a ValueError naming it; an early stop is a
ConvergenceWarning with a usable result.
"""
import numpy as np
import pytest

from helpers.layouts import in_layout
from libsmo._core.kernel import Kernel
from libsmo._core.qmatrix import QMatrix, SVRQMatrix
from libsmo._core.solvers import solve, solve_linear
from libsmo.exceptions import ConvergenceWarning
from libsmo._core.rows import MAX_FEATURE_MAJOR
from libsmo.training._execution import (
    BYTE_ROWS_Q_FACTOR,
    ONE_CLASS_START_ROWS,
    START_PAYS,
    Executor,
)
from libsmo.training._linear_start import coordinate_rows, dual_cd_start, one_class_cd_start
from libsmo.training._params import KernelParams, SolverParams
from libsmo.training._problem import BinaryProblem

RBF = KernelParams(kernel="rbf", gamma=0.3)
LINEAR = KernelParams(kernel="linear", gamma=0.0)


def data(n=40, d=6, seed=0):
    rng = np.random.default_rng(seed)
    D = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.6)
    z = D[:, 0] - D[:, 1] + 0.3 * rng.standard_normal(n)
    return D, z


def sized(n, nu=False, regression=False, bound=1.0):
    """A problem of n variables over the first n rows (its size, kind and bounds are
    what uses_primal reads)."""
    return BinaryProblem(rows=np.arange(n), signs=np.ones(n), linear_term=-np.ones(n),
                         upper_bound=np.full(n, bound), nu=nu, regression=regression)


def problems(z):
    """One problem of each kind over some rows of the data (not in their order)."""
    rng = np.random.default_rng(1)
    rows = rng.permutation(len(z))[:30]
    signs = np.where(z[rows] > 0, 1.0, -1.0)
    C = rng.uniform(0.5, 2.0, 30)
    start = np.zeros(30)
    for g in (signs > 0, signs < 0):
        start[np.flatnonzero(g)[:3]] = 1.0
    l = 12
    svr_signs = np.r_[np.ones(l), -np.ones(l)]
    half = np.r_[np.ones(3), np.zeros(l - 3)]
    return {
        "c_svc": BinaryProblem(rows=rows, signs=signs, linear_term=-np.ones(30),
                               upper_bound=C),
        "nu_svc": BinaryProblem(rows=rows, signs=signs, linear_term=np.zeros(30),
                                upper_bound=np.ones(30), start=start, nu=True),
        "one_class": BinaryProblem(rows=rows, signs=np.ones(30), linear_term=np.zeros(30),
                                   upper_bound=np.ones(30), start=np.r_[np.ones(9),
                                                                        np.zeros(21)]),
        "epsilon_svr": BinaryProblem(rows=rows[:l], signs=svr_signs,
                                     linear_term=np.r_[0.1 - z[rows[:l]],
                                                       0.1 + z[rows[:l]]],
                                     upper_bound=np.ones(2 * l), regression=True),
        "nu_svr": BinaryProblem(rows=rows[:l], signs=svr_signs,
                                linear_term=np.r_[-z[rows[:l]], z[rows[:l]]],
                                upper_bound=np.ones(2 * l), start=np.r_[half, half],
                                nu=True, regression=True),
    }


# ---------------------------------------------------------------------------------------
# uses_primal

def test_uses_primal_never_and_always():
    X = in_layout(data()[0], "dense")
    never = Executor(X, LINEAR, SolverParams(), "never")
    always = Executor(X, LINEAR, SolverParams(), "always")
    for n in (2, 50, 5000):
        assert not never.uses_primal(sized(n))
        assert always.uses_primal(sized(n))
        # the primal solver has no second equality constraint and no 2l variables
        for nu, regression in [(True, False), (False, True), (True, True)]:
            assert not always.uses_primal(sized(n, nu, regression))


@pytest.mark.parametrize("cache_mb, n_largest_kernel", [(2.0, 1024), (0.5, 512),
                                                        (100.0, 7240)])
def test_uses_primal_large_when_q_outgrows_twice_the_cache(cache_mb, n_largest_kernel):
    """"large": the primal weights once Q's 4 n^2 bytes exceed 2 * cache_size MB (the
    bounds large enough that the start's rule below it does not apply)."""
    X = in_layout(data(n=n_largest_kernel + 1)[0], "dense")
    executor = Executor(X, LINEAR, SolverParams(cache_size=cache_mb), "large")
    n = n_largest_kernel
    assert 4 * n * n <= 2 * cache_mb * 2**20 < 4 * (n + 1) ** 2
    assert not executor.uses_primal(sized(n, bound=1000.0))
    assert executor.uses_primal(sized(n + 1, bound=1000.0))
    assert not executor.uses_primal(sized(n + 1, nu=True))
    assert not executor.uses_primal(sized(n + 1, regression=True))


@pytest.mark.parametrize("kind", ["uint8", "over 255", "floats", "zeros and ones"])
def test_uses_primal_large_later_for_rows_the_kernel_reads_as_bytes(kind):
    """"large" on rows the kernel reads as bytes (8-bit pixels: uint8, or k/255 as
    floats) waits until Q outgrows BYTE_ROWS_Q_FACTOR times twice the cache; other
    rows, and rows of zeros and ones (bitmaps to the kernel), switch at twice it."""
    rng = np.random.default_rng(3)
    pixels = rng.integers(0, 256, size=(300, MAX_FEATURE_MAJOR + 16)).astype(np.uint8)
    X = {"uint8": pixels, "over 255": pixels / 255.0,
         "floats": pixels / 255.0 + 1e-9 * rng.random(pixels.shape),
         "zeros and ones": (pixels > 127).astype(np.float64)}[kind]
    cache_mb = 0.5
    executor = Executor(X, LINEAR, SolverParams(cache_size=cache_mb), "large")
    n_twice = 512                           # the largest n with Q within twice the cache
    n_bytes = 2048                          # within BYTE_ROWS_Q_FACTOR = 16 times that
    assert 4 * n_bytes ** 2 <= BYTE_ROWS_Q_FACTOR * 2 * cache_mb * 2**20 < 4 * (n_bytes + 1) ** 2
    assert not executor.uses_primal(sized(n_twice))
    as_bytes = kind in ("uint8", "over 255")
    assert executor.uses_primal(sized(n_twice + 1)) != as_bytes
    assert executor.uses_primal(sized(n_bytes)) != as_bytes
    assert executor.uses_primal(sized(n_bytes + 1))
    always = Executor(X, LINEAR, SolverParams(cache_size=cache_mb), "always")
    assert always.uses_primal(sized(n_twice))


def c_svc_of(n, C, **changes):
    """A C-SVC problem over the first n rows with every bound C."""
    fields = dict(rows=np.arange(n), signs=np.where(np.arange(n) % 2, 1.0, -1.0),
                  linear_term=-np.ones(n), upper_bound=np.full(n, C))
    fields.update(changes)
    return BinaryProblem(**fields)


@pytest.mark.parametrize("as_bytes", [False, True])
def test_uses_primal_large_for_one_class_problems_from_their_rows(as_bytes):
    """"large" below Q's bound: a one-class problem (p = 0, y = +1, started at its sum)
    goes to the primal solver from ONE_CLASS_START_ROWS rows whatever its |x|^2 (the
    second number on rows the kernel reads as bytes); a bound on the work keeps kernel
    rows."""
    rng = np.random.default_rng(4)
    X = (rng.integers(0, 256, size=(6000, MAX_FEATURE_MAJOR + 16)).astype(np.uint8)
         if as_bytes else np.full((6000, 3), 30.0))          # |x|^2 = 2,700
    executor = Executor(X, LINEAR, SolverParams(cache_size=1000.0), "large")
    assert 4 * 6000**2 <= 2 * 1000 * 2**20
    least = ONE_CLASS_START_ROWS[as_bytes]

    def one_class(n):
        return c_svc_of(n, 1.0, signs=np.ones(n), linear_term=np.zeros(n),
                        start=np.full(n, 0.5))
    assert executor.uses_primal(one_class(least))
    assert not executor.uses_primal(one_class(least - 1))
    bounded = Executor(X, LINEAR, SolverParams(cache_size=1000.0, max_iter=10_000),
                       "large")
    assert not bounded.uses_primal(one_class(least))
    if as_bytes:
        # Q beyond twice the cache but within BYTE_ROWS_Q_FACTOR times that: a C-SVC
        # problem keeps kernel rows, a one-class one takes the primal solver
        small = Executor(X, LINEAR, SolverParams(cache_size=0.5), "large")
        n = least
        assert 2 * 0.5 * 2**20 < 4 * n * n <= BYTE_ROWS_Q_FACTOR * 2 * 0.5 * 2**20
        assert small.uses_primal(one_class(n))
        assert not small.uses_primal(c_svc_of(n, 1e-6))


def test_uses_primal_large_below_the_bound_where_the_start_pays():
    """"large" below Q's bound: C-SVC problems of at least n rows whose mean C_i |x_i|^2
    is at most c, for each (n, c) of START_PAYS, go to the primal solver; smaller
    problems, larger products, and problems the coordinate descent does not start
    (a start of their own, a bound on the work) keep kernel rows."""
    X = np.zeros((6000, 3))
    X[:, 0] = 2.0                                   # |x_i|^2 = 4 for every row
    executor = Executor(X, LINEAR, SolverParams(cache_size=1000.0), "large")
    assert 4 * 6000**2 <= 2 * 1000 * 2**20
    (n_small, c_small), (n_large, c_large) = START_PAYS
    for n, most in START_PAYS:
        assert executor.uses_primal(c_svc_of(n, most / 4))
        assert not executor.uses_primal(c_svc_of(n - 1, most / 4))
        assert not executor.uses_primal(c_svc_of(n, most / 4 * 1.01))
    assert executor.uses_primal(c_svc_of(n_large, c_small / 4 * 1.01))
    weights = np.where(np.arange(n_small) < n_small // 2, 0.5, 1.5) * c_small / 4
    assert executor.uses_primal(c_svc_of(n_small, 1.0, upper_bound=weights))
    weights[0] *= 1.1                                # the mean C_i |x_i|^2 decides
    assert not executor.uses_primal(c_svc_of(n_small, 1.0, upper_bound=weights))
    started = c_svc_of(n_large, 0.01, start=np.zeros(n_large))
    assert not executor.uses_primal(started)
    for bounded in (dict(max_iter=10_000), dict(time_limit=60.0)):
        other = Executor(X, LINEAR, SolverParams(cache_size=1000.0, **bounded), "large")
        assert not other.uses_primal(c_svc_of(n_large, 0.01))
    pixels = np.full((6000, MAX_FEATURE_MAJOR + 1), 7, dtype=np.uint8)
    pixels[:, 0] = 0
    on_bytes = Executor(pixels, LINEAR, SolverParams(cache_size=1000.0), "large")
    assert not on_bytes.uses_primal(c_svc_of(n_large, 1e-6))


# ---------------------------------------------------------------------------------------
# solve: what the core gives when called directly

def direct(X, problem, kernel, solver):
    """The core's solve over a QMatrix (or SVRQMatrix) of the problem's rows."""
    k = Kernel(X, kernel.kernel, kernel.gamma, kernel.degree, kernel.coef0,
               rows=problem.rows, n_threads=solver.n_threads)
    Q = (SVRQMatrix(k, solver.cache_size) if problem.regression
         else QMatrix(k, problem.signs, solver.cache_size))
    return solve(Q, problem.linear_term, problem.signs, problem.upper_bound,
                 problem.start, tol=solver.tol, shrinking=solver.shrinking,
                 selection=solver.selection,
                 max_iter=solver.step_cap(problem.n_variables), nu=problem.nu)


def assert_same_solution(got, expected):
    np.testing.assert_array_equal(got.alpha, expected.alpha)
    np.testing.assert_array_equal(got.gradient, expected.gradient)
    assert (got.rho, got.r, got.objective, got.n_iter, got.status, got.finite) == (
        expected.rho, expected.r, expected.objective, expected.n_iter, expected.status,
        expected.finite)


SOLVER_OPTIONS = {
    "defaults": SolverParams(),
    "platt-no-shrinking": SolverParams(tol=1e-5, selection="platt", shrinking=False,
                                       cache_size=0.01),
}


@pytest.mark.parametrize("options", list(SOLVER_OPTIONS))
@pytest.mark.parametrize("kind", ["c_svc", "nu_svc", "one_class", "epsilon_svr",
                                  "nu_svr"])
def test_solve_is_the_core_called_directly(layout, kind, options):
    D, z = data()
    X = in_layout(D, layout)
    problem = problems(z)[kind]
    solver = SOLVER_OPTIONS[options]
    got = Executor(X, RBF, solver, "never").solve(problem)
    assert got.status == "optimal" and got.n_iter > 0
    assert_same_solution(got, direct(X, problem, RBF, solver))
    # the options reach the solver: the other set of options gives another run
    other = SOLVER_OPTIONS["defaults" if options != "defaults" else "platt-no-shrinking"]
    assert direct(X, problem, RBF, other).n_iter != got.n_iter


@pytest.mark.parametrize("kind", ["c_svc", "one_class"])
def test_solve_on_the_primal_weights_is_solve_linear(layout, kind):
    D, z = data()
    X = in_layout(D, layout)
    problem = problems(z)[kind]
    solver = SolverParams(tol=1e-4)
    got = Executor(X, LINEAR, solver, "always").solve(problem)
    start, seeded = problem.start, False
    if kind == "c_svc":
        # C-SVC starts from LIBLINEAR's coordinate descent (`_linear_start`), here near
        # enough for the primal solver to finish
        cd_start = dual_cd_start(coordinate_rows(X), problem.rows, problem.signs,
                                 problem.upper_bound, 1e-4)
        assert cd_start.near
        start, seeded = cd_start.alpha, True
    else:
        # one-class from LIBLINEAR's -s 21 method, from LIBSVM's start to SMO's tol
        start = one_class_cd_start(coordinate_rows(X), problem.rows, problem.upper_bound,
                                   problem.start, 1e-4)
        assert start.sum() == pytest.approx(problem.start.sum(), rel=1e-12)
        seeded = True
    expected = solve_linear(X, problem.rows, problem.linear_term, problem.signs,
                            problem.upper_bound, start, tol=1e-4,
                            max_iter=solver.step_cap(problem.n_variables), seeded=seeded)
    assert_same_solution(got, expected)
    # and the kernel rows reach the same optimum by another path
    kernel_rows = Executor(X, LINEAR, solver, "never").solve(problem)
    assert kernel_rows.n_iter != got.n_iter
    # both stopped within tol of the optimum: f - f* <= tol |a - a*|_1 / 2 <= tol sum(C)
    assert abs(kernel_rows.objective - got.objective) <= 1e-4 * problem.upper_bound.sum()


def test_the_linear_c_svc_starts_from_coordinate_descent_when_its_work_is_unbounded():
    """The primal solver's C-SVC problems start from `_linear_start` unless they have a
    start, a bound on the work (max_iter, time_limit) or a hard margin; never the other
    formulations."""
    import dataclasses
    D, z = data()
    X = in_layout(D, "dense")
    problem = problems(z)["c_svc"]

    def starts(solver=SolverParams(), **change):
        executor = Executor(X, LINEAR, solver, "always")
        return executor._dual_cd_rows(dataclasses.replace(problem, **change)) is not None

    assert starts()
    assert not starts(start=np.zeros(problem.n_variables))
    assert not starts(upper_bound=np.full(problem.n_variables, np.inf))
    assert not starts(SolverParams(max_iter=1000))
    assert starts(SolverParams(max_iter=-1))
    assert not starts(SolverParams(time_limit=60.0))
    assert not starts(nu=True)
    assert not starts(linear_term=np.zeros(problem.n_variables))


def test_an_early_stop_is_a_convergence_warning_with_a_usable_result():
    D, z = data()
    X = in_layout(D, "dense")
    problem = problems(z)["c_svc"]
    with pytest.warns(ConvergenceWarning, match=r"max_iter of 5 steps reached"):
        capped = Executor(X, RBF, SolverParams(max_iter=5), "never").solve(problem)
    assert (capped.status, capped.n_iter) == ("max_iter", 5)
    assert np.all(capped.alpha >= 0) and np.all(capped.alpha <= problem.upper_bound)
    assert abs(problem.signs @ capped.alpha) < 1e-12
    # a time limit the fit has already used up stops after the solver's first step
    executor = Executor(X, RBF, SolverParams(time_limit=1e-9), "never")
    with pytest.warns(ConvergenceWarning, match=r"time_limit after 1 steps"):
        late = executor.solve(problem)
    assert (late.status, late.n_iter) == ("time_limit", 1)


# ---------------------------------------------------------------------------------------
# map_pairs

def test_map_pairs_on_two_threads_gives_one_threads_results_in_order(layout):
    D, z = data(n=60)
    X = in_layout(D, layout)
    rng = np.random.default_rng(2)
    items = []
    for p in range(7):  # problems of different sizes, so they end out of order
        rows = rng.choice(60, size=12 + 6 * p, replace=False)
        signs = np.where(z[rows] > np.median(z[rows]), 1.0, -1.0)
        items.append(BinaryProblem(rows=rows, signs=signs,
                                   linear_term=-np.ones(len(rows)),
                                   upper_bound=np.full(len(rows), 1.0)))
    seen = []

    def fit(p, executor):
        seen.append((executor.solver.n_threads, executor.solver.cache_size,
                     executor.stop_flag is not None))
        return p, executor.solve(items[p])

    serial = Executor(X, RBF, SolverParams(n_threads=1, cache_size=8.0)).map_pairs(fit, 7)
    assert set(seen) == {(1, 8.0, False)}
    seen.clear()
    two = Executor(X, RBF, SolverParams(n_threads=2, cache_size=8.0))
    threaded = two.map_pairs(fit, 7)
    # each worker: one kernel thread, half the cache, the shared stop flag
    assert set(seen) == {(1, 4.0, True)}
    assert [p for p, _ in serial] == [p for p, _ in threaded] == list(range(7))
    for (_, one), (_, two) in zip(serial, threaded):
        assert_same_solution(two, one)


def test_map_pairs_runs_a_problem_too_large_for_a_share_alone(layout):
    """An item whose Q matrix takes more than ALONE_MIN_SHARES shares of the cache runs
    by itself on every thread with the whole cache; the rest run on shares; the results
    are one thread's, in order."""
    D, z = data(n=60)
    X = in_layout(D, layout)
    rng = np.random.default_rng(3)
    items = []
    for p in range(6):
        rows = rng.choice(60, size=20 + 6 * p, replace=False)
        signs = np.where(z[rows] > np.median(z[rows]), 1.0, -1.0)
        items.append(BinaryProblem(rows=rows, signs=signs,
                                   linear_term=-np.ones(len(rows)),
                                   upper_bound=np.full(len(rows), 1.0)))
    seen = {}

    def fit(p, executor):
        seen[p] = (executor.solver.n_threads, executor.solver.cache_size,
                   executor.stop_flag is not None)
        return executor.solve(items[p])

    # a share is 4 MB: 4 shares hold the float32 Q of 2,045 variables (with 20 bytes
    # a row), not of 2,046
    sizes = [2046, 10, 2045, 10, 5000, 10]
    serial = Executor(X, RBF, SolverParams(n_threads=1, cache_size=8.0)).map_pairs(
        fit, 6, sizes=sizes)
    two = Executor(X, RBF, SolverParams(n_threads=2, cache_size=8.0))
    threaded = two.map_pairs(fit, 6, sizes=sizes)
    assert seen == {0: (2, 8.0, False), 4: (2, 8.0, False), 1: (1, 4.0, True),
                    2: (1, 4.0, True), 3: (1, 4.0, True), 5: (1, 4.0, True)}
    for one, other in zip(serial, threaded):
        assert_same_solution(other, one)
    # one item left beside the large ones runs on the executor itself
    seen.clear()

    def fit_and_number(p, executor):
        fit(p, executor)
        return p

    assert two.map_pairs(fit_and_number, 3, sizes=[5000, 10, 5000]) == [0, 1, 2]
    assert set(seen.values()) == {(2, 8.0, False)}


@pytest.mark.parametrize("n_threads", [1, 2])
def test_map_pairs_raises_what_an_item_raises(n_threads):
    X = in_layout(data()[0], "dense")

    def fit(p, executor):
        if p == 3:
            raise ArithmeticError("item 3")
        return p

    executor = Executor(X, RBF, SolverParams(n_threads=n_threads))
    with pytest.raises(ArithmeticError, match="item 3"):
        executor.map_pairs(fit, 6)
    assert executor.map_pairs(lambda p, ex: p * p, 4) == [0, 1, 4, 9]


# ---------------------------------------------------------------------------------------
# A kernel that overflows

def overflow_case(which):
    """(X, kernel): the diagonal overflows, or only the off-diagonal entries. (Rows whose
    own squared norm overflows never get here: validation refuses them.)"""
    if which == "diagonal":
        D = np.full((4, 2), 1e3)
        D[1] *= -1
        return D, KernelParams(kernel="poly", gamma=1.0, degree=120, coef0=0.0)
    if which == "off-diagonal":
        # (x'x - 999)^94 = 1 on the diagonal, (-x'x - 999)^94 = 1999^94 = inf elsewhere
        D = np.array([[10 * np.sqrt(10.0)], [-10 * np.sqrt(10.0)]])
        return D, KernelParams(kernel="poly", gamma=1.0, degree=94, coef0=-999.0)
    raise AssertionError(which)


@pytest.mark.parametrize("which", ["diagonal", "off-diagonal"])
def test_an_overflowing_kernel_is_a_value_error_naming_it(layout, which):
    D, kernel = overflow_case(which)
    X = in_layout(D, layout)
    n = len(D)
    signs = np.where(np.arange(n) % 2, -1.0, 1.0)
    problem = BinaryProblem(rows=np.arange(n), signs=signs,
                            linear_term=-np.ones(n), upper_bound=np.ones(n))
    executor = Executor(X, kernel, SolverParams(), "never")
    message = (rf"^the {kernel.kernel} kernel overflows on this data "
               rf"\(gamma={kernel.gamma}, degree={kernel.degree}, coef0={kernel.coef0}\)")
    with pytest.raises(ValueError, match=message):
        executor.solve(problem)
