"""The linear SVMs' compiled solvers: the dual coordinate descent (libsmo._core.linear_cd,
LIBLINEAR's solve_l2r_l1l2_svc / solve_l2r_l1l2_svr), the primal Newton method
(libsmo._core.linear_newton) and the rows they read in place (libsmo._core.linear_rows).

They must reach the optimum their stopping rule promises (checked from the optimality
conditions, and by the two methods agreeing on one problem), read dense and CSR rows
alike (the same bits), draw scikit-learn's permutations, and refuse what they cannot
index safely."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from helpers.data import load_dataset
from helpers.layouts import in_layout
from libsmo._core.linear_cd import bounded_draws, dual_diagonal, svc_dual, svr_dual
from libsmo._core.linear_newton import primal_newton
from libsmo._core.linear_rows import LinearRows
from libsmo._utils.random_sources import SklearnRandom


def binary_problem(name="heart_scale", n_rows=None):
    X, y = load_dataset(name, n_rows=n_rows)
    signs = np.where(y == np.unique(y)[1], 1.0, -1.0)
    order = np.argsort(signs > 0, kind="stable")
    return X, signs, order


def primal_svc(X, signs, C, w, bias, squared):
    """1/2 |w|^2 + sum C_i loss, the bias as a feature of value `bias` (w's last entry)."""
    margin = signs * (X @ w[:-1] + bias * w[-1])
    loss = np.maximum(1 - margin, 0)
    return 0.5 * w @ w + np.sum(C * (loss * loss if squared else loss))


def test_bounded_draws_are_scikit_learns():
    ranges = np.arange(5000, 0, -1)
    for seed in (0, 1, 12345, 2**31 - 2):
        np.testing.assert_array_equal(bounded_draws(seed, ranges),
                                      SklearnRandom(seed).bounded(ranges))


@pytest.mark.parametrize("squared", [False, True])
def test_dense_and_csr_rows_take_the_same_steps(squared):
    X, signs, order = binary_problem()
    C = np.full(len(signs), 0.5)
    runs = [svc_dual(LinearRows(in_layout(X.toarray(), layout), 1.0), order, signs, C,
                     squared_hinge=squared, tol=1e-5, seed=7)
            for layout in ("dense", "csr")]
    np.testing.assert_array_equal(runs[0].w, runs[1].w)
    np.testing.assert_array_equal(runs[0].dual, runs[1].dual)
    assert runs[0].n_iter == runs[1].n_iter


@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_float32_rows_are_read_as_their_float64_copy(layout):
    """float32 values (a vectorizer's dtype=np.float32) are read in place, each
    converted exactly where it is used: the steps of their float64 copy, bit for bit,
    for both methods."""
    X, signs, order = binary_problem("a1a")
    X = (X.multiply(np.linspace(0.3, 1.7, X.shape[1])).tocsr() / 3).astype(np.float32)
    if layout == "dense":
        X = X.toarray()
    rows32, rows64 = LinearRows(X, 1.0), LinearRows(X.astype(np.float64), 1.0)
    assert rows32.single and not rows64.single
    C = np.full(len(signs), 0.7)
    for squared in (False, True):
        a = svc_dual(rows32, order, signs, C, squared_hinge=squared, tol=1e-4, seed=4)
        b = svc_dual(rows64, order, signs, C, squared_hinge=squared, tol=1e-4, seed=4)
        np.testing.assert_array_equal(a.w, b.w)
    a = primal_newton(rows32, order, signs, C, tol=1e-8)
    b = primal_newton(rows64, order, signs, C, tol=1e-8)
    np.testing.assert_array_equal(a.w, b.w)


def test_unit_rows_take_the_same_steps_as_their_values():
    """a1a's values are all 1: the loops read its indices alone, the same sums as the
    dense rows'."""
    X, signs, order = binary_problem("a1a")
    rows = LinearRows(X, 1.0)
    assert rows.unit_values and not LinearRows(X * 2.0, 1.0).unit_values
    C = np.ones(len(signs))
    a = svc_dual(rows, order, signs, C, tol=1e-3, seed=3)
    b = svc_dual(LinearRows(X.toarray(), 1.0), order, signs, C, tol=1e-3, seed=3)
    np.testing.assert_array_equal(a.w, b.w)


def widened(X, n_features=70_000):
    """X with empty columns up to n_features: past what uint16 column indices hold."""
    return sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))


@pytest.mark.parametrize("values", ["unit", "float64", "float32"])
def test_narrow_columns_take_the_same_steps_as_int32_ones(values):
    """CSR rows of at most 65536 features are read through a uint16 copy of their
    column indices: the dual (both losses), the regression dual and the Newton method
    take the same steps, bit for bit, as on the same rows read through int32 indices,
    for unit values, float64 values and float32 ones alike."""
    X, signs, order = binary_problem("a1a", n_rows=500)
    unit = values == "unit"
    if not unit:
        X = X.multiply(np.linspace(0.2, 1.9, X.shape[1])).tocsr()
        X = X.astype(np.float32) if values == "float32" else X
    narrow, wide = LinearRows(X, 1.0), LinearRows(widened(X), 1.0)
    assert narrow.narrow_columns and not wide.narrow_columns
    assert narrow.unit_values == wide.unit_values == unit
    assert narrow.single == wide.single == (values == "float32")
    d = X.shape[1]
    C = np.random.RandomState(2).uniform(0.1, 3.0, len(signs))

    def same(a, b):
        np.testing.assert_array_equal(a.w[:d], b.w[:d])
        assert not np.any(b.w[d:-1]) and a.w[-1] == b.w[-1]
        np.testing.assert_array_equal(a.dual, b.dual)
        assert a.n_iter == b.n_iter

    for squared in (False, True):
        same(*(svc_dual(rows, order, signs, C, squared_hinge=squared, tol=1e-4, seed=7)
               for rows in (narrow, wide)))
    targets = signs * 2.0 + np.arange(len(signs)) % 3
    same(*(svr_dual(rows, order, targets, C, epsilon=0.1, tol=1e-3, seed=7)
           for rows in (narrow, wide)))
    same(*(primal_newton(rows, order, signs, C, tol=1e-4) for rows in (narrow, wide)))


@pytest.mark.parametrize("bias", [0.0, 1.5])
@pytest.mark.parametrize("squared", [False, True])
def test_unit_rows_diagonal_counts_their_values(squared, bias):
    """The diagonal of unit rows comes from their counts of values (hinge: the count
    itself; squared hinge: 1/(2 C_i) plus one 1 at a time): the same bits as the
    squares of the dense rows' values, empty rows included, and so the same steps."""
    X, signs, order = binary_problem("a1a", n_rows=401)
    D = X.toarray()
    D[5] = 0.0                                        # an empty row
    X = sp.csr_matrix(D)
    rows, dense = LinearRows(X, bias), LinearRows(D, bias)
    assert rows.unit_values
    C = np.random.RandomState(1).uniform(0.01, 20.0, len(signs))
    part = order[order % 3 != 0]
    by_counts = dual_diagonal(rows, part, C, squared_hinge=squared)
    by_squares = dual_diagonal(dense, part, C, squared_hinge=squared)
    np.testing.assert_array_equal(by_counts.view(np.int64)[part],
                                  by_squares.view(np.int64)[part])
    a = svc_dual(rows, part, signs, C, squared_hinge=squared, tol=1e-3, seed=5)
    b = svc_dual(dense, part, signs, C, squared_hinge=squared, tol=1e-3, seed=5)
    np.testing.assert_array_equal(a.w, b.w)
    np.testing.assert_array_equal(a.dual, b.dual)
    assert a.n_iter == b.n_iter


@pytest.mark.parametrize("squared", [False, True])
def test_the_dual_stops_at_its_optimality_conditions(squared):
    """At the end every projected gradient of the dual lies within [-tol, tol]
    (LIBLINEAR's rule on the last full epoch), a stays in its box, and w is
    sum a_i y_i x_i with the bias feature."""
    X, signs, order = binary_problem("a1a")
    C = np.where(signs > 0, 2.0, 0.5)
    tol = 1e-4
    sol = svc_dual(LinearRows(X, 1.0), order, signs, C, squared_hinge=squared, tol=tol,
                   seed=1, max_iter=100000)
    assert sol.status == "optimal"
    a = sol.dual
    Xb = sp.hstack([X, np.ones((X.shape[0], 1))]).tocsr()
    np.testing.assert_allclose(sol.w, Xb.T @ (a * signs), atol=1e-10)
    diag = 0.5 / C if squared else 0.0
    G = signs * (Xb @ sol.w) - 1 + a * diag
    upper = np.inf if squared else C
    assert np.all(a >= 0) and np.all(a <= upper)
    PG = np.where(a == 0, np.minimum(G, 0), np.where(a == upper, np.maximum(G, 0), G))
    assert np.abs(PG).max() <= 10 * tol   # the last epoch saw tol; w moved a little since
    # the dual objective it reports
    dual = 0.5 * sol.w @ sol.w + np.sum(a * (a * diag - 2)) / 2
    assert sol.objective == pytest.approx(dual, rel=1e-12)


@pytest.mark.parametrize("name", ["heart_scale", "a1a"])
def test_dual_and_newton_reach_one_optimum(name):
    """The squared hinge by both methods: the same primal objective, and each reports
    its own figure (the dual's objective is minus the primal's at the optimum)."""
    X, signs, order = binary_problem(name)
    C = np.full(len(signs), 1.0)
    rows = LinearRows(X, 1.0)
    dual = svc_dual(rows, order, signs, C, squared_hinge=True, tol=1e-7, max_iter=100000)
    newton = primal_newton(rows, order, signs, C, tol=1e-10)
    assert dual.status == "optimal" and newton.status in ("optimal", "stalled")
    f_dual = primal_svc(X, signs, C, dual.w, 1.0, True)
    f_newton = primal_svc(X, signs, C, newton.w, 1.0, True)
    assert newton.objective == pytest.approx(f_newton, rel=1e-10)
    assert f_dual == pytest.approx(f_newton, rel=1e-6)
    assert -dual.objective == pytest.approx(f_newton, rel=1e-5)
    # the dual point the Newton method derives satisfies w = sum a_i y_i x_i, as far
    # as the gradient w - sum a_i y_i x_i has fallen (|grad f(0)| is a few hundred)
    Xb = sp.hstack([X, np.ones((X.shape[0], 1))]).tocsr()
    assert newton.violation <= 1e-7
    np.testing.assert_allclose(Xb.T @ (newton.dual * signs), newton.w, atol=1e-4)


@pytest.mark.parametrize("regression", [False, True])
def test_newton_on_threads_reaches_one_threads_optimum(regression, layout):
    """The Newton method's row passes shared by 2 and 3 threads (liblinear-multicore's
    -m): one thread's optimum, the same bits at every run with the same threads, and
    one thread still the default's steps (LIBLINEAR's order)."""
    if regression:
        X, y = load_dataset("housing_scale")
        order = np.arange(len(y))
        kw = dict(regression=True, epsilon=0.5)
    else:
        X, y, order = binary_problem("a1a")
        kw = {}
    rows = LinearRows(in_layout(X.toarray(), layout), 1.0)
    C = np.random.RandomState(0).uniform(0.5, 2.0, len(y))
    one = primal_newton(rows, order, y, C, tol=1e-8, **kw)
    default = primal_newton(rows, order, y, C, tol=1e-8, n_threads=1, **kw)
    np.testing.assert_array_equal(one.w, default.w)
    for threads in (2, 3):
        runs = [primal_newton(rows, order, y, C, tol=1e-8, n_threads=threads, **kw)
                for _ in range(2)]
        np.testing.assert_array_equal(runs[0].w, runs[1].w)
        assert runs[0].status in ("optimal", "stalled")
        assert runs[0].objective == pytest.approx(one.objective, rel=1e-9)
        # (the weights as far as the gradient's tolerance fixes them)
        assert np.abs(runs[0].w - one.w).max() <= 1e-4 * np.abs(one.w).max()
    with pytest.raises(ValueError, match="n_threads"):
        primal_newton(rows, order, y, C, n_threads=0, **kw)


@pytest.mark.parametrize("squared", [False, True])
def test_regression_dual_and_newton(squared):
    X, y = load_dataset("housing_scale")
    order = np.arange(len(y))
    C = np.full(len(y), 1.0)
    rows = LinearRows(X, 1.0)
    sol = svr_dual(rows, order, y, C, epsilon=0.5, squared_loss=squared, tol=1e-6,
                   max_iter=200000, seed=2)
    assert sol.status == "optimal"
    residual = np.abs(y - (X @ sol.w[:-1] + sol.w[-1]))
    beyond = np.maximum(residual - 0.5, 0)
    primal = 0.5 * sol.w @ sol.w + np.sum(beyond * beyond if squared else beyond)
    assert np.all(np.abs(sol.dual) <= (np.inf if squared else 1.0))
    if squared:
        newton = primal_newton(rows, order, y, C, regression=True, epsilon=0.5, tol=1e-10)
        assert newton.objective == pytest.approx(primal, rel=1e-6)
    # strong duality: the dual's minimum is minus the primal's
    assert -sol.objective == pytest.approx(primal, rel=1e-4)


@pytest.mark.parametrize("squared", [False, True])
def test_revisits_reach_the_same_optimum_in_fewer_epochs(squared):
    """heart_scale at C = 1 and tol 1e-4: after each epoch that did not meet tol the
    epoch's two extreme violators take more steps (`revisits`); the dual meets the same
    stopping rule (its last epoch's spread of projected gradients within tol; from the
    rows, at the end, within twice tol, as LIBLINEAR's own steps: the epoch measures
    each row when it visits it) at the same optimum, in fewer epochs over 20 seeds."""
    X, y = load_dataset("heart_scale")
    signs = np.where(y > 0, 1.0, -1.0)
    order, C, rows = np.arange(len(y)), np.ones(len(y)), LinearRows(X, 1.0)
    dense = np.hstack([X.toarray(), np.ones((len(y), 1))])
    epochs = {0: 0, 16: 0}
    for seed in range(20):
        runs = {k: svc_dual(rows, order, signs, C, squared_hinge=squared, tol=1e-4,
                            max_iter=100_000, seed=seed, revisits=k) for k in epochs}
        for k, sol in runs.items():
            assert sol.status == "optimal"
            epochs[k] += sol.n_iter
        sol = runs[16]
        assert sol.objective == pytest.approx(runs[0].objective, rel=1e-6)
        a = np.asarray(sol.dual)
        G = signs * (dense @ sol.w) - 1 + (a / 2 if squared else 0)
        PG = np.where(a <= 0, np.minimum(G, 0),
                      np.where(a >= (np.inf if squared else 1), np.maximum(G, 0), G))
        assert sol.violation <= 1e-4 and PG.max() - PG.min() <= 2e-4
    assert epochs[16] < epochs[0]


def test_the_regression_duals_tol_is_relative_to_its_reference():
    """svr_dual's tol bounds the summed violation relative to its first epoch's (the
    solution's `reference`), or to a reference it is given: from a point near the
    optimum, relative to the run's own first epoch it must go on further (its first
    epoch's violation is already small), relative to the first run's reference it
    stops at once."""
    X, y = load_dataset("housing_scale")
    order, C, rows = np.arange(len(y)), np.full(len(y), 1.0), LinearRows(X, 1.0)
    first = svr_dual(rows, order, y, C, epsilon=0.5, tol=1e-3, max_iter=100000, seed=2)
    assert first.status == "optimal" and first.reference > 0
    assert first.violation <= 1e-3
    near = np.asarray(first.dual)
    own = svr_dual(rows, order, y, C, epsilon=0.5, tol=1e-3, max_iter=100000, seed=3,
                   start=near)
    given = svr_dual(rows, order, y, C, epsilon=0.5, tol=1e-3, max_iter=100000, seed=3,
                     start=near, reference=first.reference)
    assert given.reference == first.reference and own.reference < first.reference
    assert given.status == own.status == "optimal"
    assert given.n_iter < own.n_iter


@pytest.mark.parametrize("squared", [False, True])
@pytest.mark.parametrize("layout", ["dense", "csr", "csr32", "unit"])
def test_a_given_diagonal_takes_the_same_steps(layout, squared):
    """dual_diagonal is Q_ii + D_ii as svc_dual computes it (CSR rows four at a time,
    rows of every length, unequal C_i, rows left out), so a run given it takes the
    same steps, bit for bit."""
    X, signs, order = binary_problem("a1a", n_rows=403)
    D = X.toarray()
    if layout == "unit":
        D = (D != 0).astype(np.float64)
    D[::7] *= np.linspace(0.3, 1.7, D.shape[1])     # unequal values, not only 1s
    if layout == "unit":
        D = (D != 0).astype(np.float64)
    rows_X = in_layout(D, "dense" if layout == "dense" else "csr")
    if layout == "csr32":
        rows_X = sp.csr_matrix((rows_X.data.astype(np.float32), rows_X.indices,
                                rows_X.indptr), shape=rows_X.shape)
    rows = LinearRows(rows_X, 1.5)
    assert rows.unit_values == (layout == "unit")
    C = np.random.RandomState(0).uniform(0.1, 2.0, len(signs))
    part = order[order % 5 != 0]
    diagonal = dual_diagonal(rows, part, C, squared_hinge=squared)
    assert np.all(np.isnan(diagonal[order[order % 5 == 0]]))
    values = np.asarray(rows_X.toarray() if sp.issparse(rows_X) else rows_X,
                        dtype=np.float64)
    by_hand = np.array([(0.5 / C[i] if squared else 0.0) + np.sum(values[i] ** 2)
                        + 1.5 ** 2 for i in part])
    np.testing.assert_allclose(diagonal[part], by_hand, rtol=1e-12)
    own = svc_dual(rows, part, signs, C, squared_hinge=squared, tol=1e-4, seed=3)
    given = svc_dual(rows, part, signs, C, squared_hinge=squared, tol=1e-4, seed=3,
                     diagonal=diagonal)
    np.testing.assert_array_equal(own.w, given.w)
    np.testing.assert_array_equal(own.dual, given.dual)
    assert own.n_iter == given.n_iter
    with pytest.raises(ValueError, match="diagonal must have shape"):
        svc_dual(rows, part, signs, C, diagonal=diagonal[:-1])


def test_rows_outside_the_problem_stay_out():
    """Rows not in `order` (scikit-learn's weights of 0) neither move nor weigh."""
    X, signs, order = binary_problem()
    keep = order[::2]
    C = np.full(len(signs), 1.0)
    C_zero = np.where(np.isin(np.arange(len(signs)), keep), 1.0, 0.0)
    part = svc_dual(LinearRows(X, 1.0), keep, signs, C_zero, tol=1e-4, seed=5)
    alone = svc_dual(LinearRows(X[np.sort(keep)], 1.0),
                     np.searchsorted(np.sort(keep), keep), signs[np.sort(keep)],
                     C[:len(keep)], tol=1e-4, seed=5)
    assert np.all(part.dual[np.setdiff1d(np.arange(len(signs)), keep)] == 0)
    np.testing.assert_array_equal(part.w, alone.w)


def test_a_warm_start_resumes_from_the_optimum():
    X, signs, order = binary_problem("a1a")
    C = np.full(len(signs), 1.0)
    rows = LinearRows(X, 1.0)
    cold = svc_dual(rows, order, signs, C, squared_hinge=True, tol=1e-4, seed=1)
    warm = svc_dual(rows, order, signs, C, squared_hinge=True, tol=1e-4, seed=2,
                    start=cold.dual)
    assert warm.n_iter <= 2 < cold.n_iter
    np.testing.assert_allclose(warm.w, cold.w, atol=1e-3)
    newton = primal_newton(rows, order, signs, C, tol=1e-6, start=cold.w)
    assert newton.n_iter <= 3


def test_the_stop_flag_and_max_iter_stop_a_run():
    X, signs, order = binary_problem("a1a")
    C = np.full(len(signs), 10.0)
    flag = np.ones(1, dtype=np.int8)
    stopped = svc_dual(LinearRows(X, 1.0), order, signs, C, tol=1e-8, stop_flag=flag)
    assert (stopped.status, stopped.n_iter) == ("stopped", 1)
    capped = svc_dual(LinearRows(X, 1.0), order, signs, C, tol=1e-8, max_iter=3)
    assert (capped.status, capped.n_iter) == ("max_iter", 3)
    newton = primal_newton(LinearRows(X, 1.0), order, signs, C, tol=1e-14, max_iter=1)
    assert (newton.status, newton.n_iter) == ("max_iter", 1)


@pytest.mark.parametrize("regression", [False, True])
def test_max_visits_goes_on_for_the_work_of_max_iter_full_epochs(regression):
    """`max_visits`: past max_iter epochs the run goes on while the examples it visited
    stay within max_visits. Every epoch visits at most the l examples, so max_iter * l
    visits allow more epochs exactly where the shrinking made them short: here the run
    that 200 epochs stop short of tol reaches it, with the steps and answer of a run
    given all the epochs it needs. Without it (0), max_iter epochs; a budget that the
    first max_iter epochs use up changes nothing; a negative count is refused."""
    if regression:
        X, y = load_dataset("housing_scale")
        rows, order = LinearRows(X, 1.0), np.arange(len(y))
        def solve(max_iter, **kw):
            return svr_dual(rows, order, y, np.full(len(y), 1.0), epsilon=0.1,
                            tol=1e-5, max_iter=max_iter, seed=1, **kw)
    else:
        X, signs, order = binary_problem("heart_scale")
        rows = LinearRows(X, 1.0)
        def solve(max_iter, **kw):
            return svc_dual(rows, order, signs, np.full(len(signs), 0.5), tol=1e-4,
                            max_iter=max_iter, seed=3, **kw)
    l = len(order)
    capped, exact = solve(200), solve(1_000_000)
    assert (capped.status, capped.n_iter) == ("max_iter", 200)
    assert exact.status == "optimal" and exact.n_iter > 200
    budget = solve(200, max_visits=200 * l)
    assert (budget.status, budget.n_iter) == ("optimal", exact.n_iter)
    np.testing.assert_array_equal(budget.w, exact.w)
    np.testing.assert_array_equal(budget.dual, exact.dual)
    # the first epoch alone visits l
    within = solve(200, max_visits=l)
    assert (within.status, within.n_iter) == ("max_iter", 200)
    np.testing.assert_array_equal(within.w, capped.w)
    with pytest.raises(ValueError, match="max_visits"):
        solve(200, max_visits=-1)


@pytest.mark.parametrize("regression", [False, True])
def test_a_slow_dual_stops_early_only_when_asked(regression):
    """`stop_if_slow`: a squared loss's dual whose progress would not reach tol within
    max_iter epochs stops as "slow" after PROGRESS_FIRST (50) epochs, not max_iter,
    where the run without it is (the same steps up to there); a dual that reaches tol
    by itself takes the same steps with or without it."""
    if regression:
        X, y = load_dataset("housing_scale")
        rows, order = LinearRows(X, 1.0), np.arange(len(y))
        def solve(C, max_iter=1000, **kw):
            return svr_dual(rows, order, y, np.full(len(y), C), epsilon=0.1,
                            squared_loss=True, tol=1e-4, max_iter=max_iter, seed=1, **kw)
    else:
        X, signs, order = binary_problem("a1a")
        rows = LinearRows(X, 1.0)
        def solve(C, max_iter=1000, **kw):
            return svc_dual(rows, order, signs, np.full(len(signs), C),
                            squared_hinge=True, tol=1e-4, max_iter=max_iter, seed=3, **kw)
    big = 100.0 if regression else 10.0
    stalled, watched = solve(big), solve(big, stop_if_slow=True)
    assert stalled.status == "max_iter" and stalled.n_iter == 1000
    assert watched.status == "slow" and 50 <= watched.n_iter < 200
    prefix = solve(big, max_iter=watched.n_iter)
    np.testing.assert_array_equal(watched.w, prefix.w)
    np.testing.assert_array_equal(watched.dual, prefix.dual)
    reached, same = solve(0.1), solve(0.1, stop_if_slow=True)
    assert reached.status == "optimal"
    np.testing.assert_array_equal(same.w, reached.w)
    assert (same.status, same.n_iter) == (reached.status, reached.n_iter)


def test_no_bias_and_bias_value():
    """bias 0: no extra weight; another bias value scales its feature (w's last entry
    times the value is the intercept)."""
    X, signs, order = binary_problem()
    C = np.full(len(signs), 1.0)
    none = svc_dual(LinearRows(X, 0.0), order, signs, C, tol=1e-3)
    assert none.w.shape == (X.shape[1],)
    scaled = svc_dual(LinearRows(X, 10.0), order, signs, C, tol=1e-6, max_iter=10**5)
    Xb = sp.hstack([X, np.full((X.shape[0], 1), 10.0)]).tocsr()
    explicit = svc_dual(LinearRows(Xb, 0.0), order, signs, C, tol=1e-6, max_iter=10**5)
    np.testing.assert_array_equal(scaled.w, explicit.w)


def test_the_rows_are_read_in_place_and_pickle():
    X, signs, order = binary_problem()
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    rows = LinearRows(X, 1.0)
    svc_dual(rows, order, signs, np.ones(len(signs)), tol=1e-2)
    for a, b in zip(before, (X.data, X.indices, X.indptr)):
        np.testing.assert_array_equal(a, b)
    again = pickle.loads(pickle.dumps(rows))
    assert (again.n_rows, again.n_features, again.bias) == (270, 13, 1.0)
    assert again.ordered and not pickle.loads(pickle.dumps(
        LinearRows(X, 1.0, ordered=False))).ordered


def test_unordered_dense_rows_solve_the_same_problem():
    """LinearRows(ordered=False) (the C-SVC start's rows): dense rows' sums in four
    interleaved sums, other bits than the ordered ones but the same problem, whose
    dual optimum both runs reach; CSR rows sum in order either way, bit for bit."""
    X, signs, order = binary_problem("a1a", n_rows=600)
    X = X.multiply(np.linspace(0.3, 1.7, X.shape[1])).tocsr()
    C = np.full(len(signs), 0.5)
    D = X.toarray()
    runs = {(layout, ordered): svc_dual(LinearRows(in_layout(D, layout), 1.0, ordered),
                                        order, signs, C, tol=1e-8, seed=2)
            for layout in ("dense", "csr") for ordered in (True, False)}
    np.testing.assert_array_equal(runs["csr", True].w, runs["csr", False].w)
    dense, unordered = runs["dense", True], runs["dense", False]
    assert not np.array_equal(dense.w, unordered.w)
    assert unordered.objective == pytest.approx(dense.objective, rel=1e-9)
    np.testing.assert_allclose(unordered.w, dense.w, atol=1e-5)


def test_bad_input_is_refused():
    X, signs, order = binary_problem()
    rows = LinearRows(X, 1.0)
    ones = np.ones(len(signs))
    with pytest.raises(ValueError, match="row"):
        svc_dual(rows, [0, 270], signs, ones)
    with pytest.raises(ValueError, match="finite and > 0"):
        svc_dual(rows, order, signs, np.where(signs > 0, 0.0, 1.0))
    with pytest.raises(ValueError, match="shape"):
        svc_dual(rows, order, signs[:-1], ones)
    with pytest.raises(ValueError, match="tol"):
        svr_dual(rows, order, signs, ones, epsilon=-1.0)
    with pytest.raises(ValueError, match="reference >= 0"):
        svr_dual(rows, order, signs, ones, reference=-1.0)
    with pytest.raises(ValueError, match="revisits >= 0"):
        svc_dual(rows, order, signs, ones, revisits=-1)
    with pytest.raises(ValueError, match="finite and > 0"):
        primal_newton(rows, order, signs, np.full(len(signs), np.inf))
    with pytest.raises(TypeError, match="C-contiguous"):
        LinearRows(np.asfortranarray(X.toarray()))
    with pytest.raises(TypeError, match="float64 or float32"):
        LinearRows(X.astype(np.int64))
    with pytest.raises(ValueError, match="2-D"):
        LinearRows(np.ones(3))
    with pytest.raises(ValueError, match="bias"):
        LinearRows(X, -1.0)
    broken = sp.csr_matrix(X, copy=True)
    broken.indices[3] = 10**6
    with pytest.raises(ValueError, match="column index"):
        LinearRows(broken)


def test_shift_at_libsvms_intercept_solves_libsvms_dual():
    """With the intercept held at LIBSVM's (-rho), the coordinate descent's problem is
    LIBSVM's C-SVC dual without its equality constraint, whose Lagrangian term that
    shift is: its optimum meets y'a = 0 and has LIBSVM's objective and weights."""
    from helpers.peers import libsvm_summary, libsvm_train
    X, y = load_dataset("heart_scale")
    X = sp.csr_matrix(X)
    signs = np.where(y > 0, 1.0, -1.0)
    peer = libsvm_train(X, signs, kernel="linear", C=1.0, tol=1e-8)
    theirs = libsvm_summary(peer)
    n = X.shape[0]
    sol = svc_dual(LinearRows(X), np.arange(n), signs, np.ones(n), tol=1e-8,
                   max_iter=100_000, shift=-theirs["rho"] * theirs["labels"][0])
    assert sol.status == "optimal"
    assert abs(signs @ sol.dual) < 1e-5
    assert sol.objective == pytest.approx(peer.objectives[0], rel=1e-6)
    w_theirs = np.asarray(theirs["sv_coef"] @ X[theirs["support"]]).ravel()
    np.testing.assert_allclose(sol.w * theirs["labels"][0], w_theirs, atol=1e-5)


@pytest.mark.parametrize("shift", [-0.7, 1.3])
def test_shifted_dual_reports_its_own_objective(shift):
    """The objective a shifted run reports is its problem's, 1/2 |w|^2 - sum (1 - s y_i)
    a_i at the weights and duals it returns (without a shift the steps are
    scikit-learn's to the bit: tests/estimators/test_linear_svc.py); a shift that is
    not finite is refused."""
    X, y = load_dataset("heart_scale")
    n = X.shape[0]
    signs = np.where(y > 0, 1.0, -1.0)
    rows = LinearRows(sp.csr_matrix(X), bias=1.0)
    sol = svc_dual(rows, np.arange(n), signs, np.ones(n), tol=1e-4, shift=shift)
    expected = 0.5 * sol.w @ sol.w - (1.0 - shift * signs) @ sol.dual
    assert sol.objective == pytest.approx(expected, rel=1e-12)
    unshifted = svc_dual(rows, np.arange(n), signs, np.ones(n), tol=1e-4)
    assert not np.allclose(unshifted.dual, sol.dual)
    for bad in (np.nan, np.inf):
        with pytest.raises(ValueError, match="shift"):
            svc_dual(rows, np.arange(n), signs, np.ones(n), shift=bad)
