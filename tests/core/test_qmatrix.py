"""The Q matrices of the core (`libsmo._core.qmatrix`): the rows the solver reads.

`QMatrix` gives Q_ij = s_i s_j K(x_i, x_j) as float32 (C-SVC and nu-SVC: s = y;
one-class: s = 1) and `SVRQMatrix` the 2l x 2l matrix [[K, -K], [-K, K]] of the
regressions, both over the solver's permuted variables. Checked here against numpy
(LIBSVM's kernels written out, `helpers.layouts.kernel_reference`) for every kernel on dense and
CSR input: whole rows, prefixes of rows, rows after a sequence of swaps (as shrinking
makes them), with a cache too small for more than two rows, and the diagonal.

Tolerances: a Q entry is a float64 kernel value rounded to float32, so it is within
2^-24 (relative) of the exact value, and the kernel's own error is ~1e-12 (test_kernel);
a row computed from another start (the cache extends rows) may round its exponentials
differently by one float64 ulp, so rows reached along different paths are compared to
one float32 ulp.
"""
import numpy as np
import pytest

from helpers.layouts import in_layout, kernel_reference
from libsmo._core.kernel import Kernel
from libsmo._core.linear_smo import LinearSolver
from libsmo._core.platt_smo import PlattSolver
from libsmo._core.qmatrix import QMatrix, SVRQMatrix
from libsmo._core.smo import Solver
from libsmo._core.solvers import solve, solve_linear

FLOAT32_RTOL = 2.0**-24 * 1.001   # float32 rounding of the exact value, with a margin
KERNEL_ATOL = 1e-12

# name -> (kernel, gamma, degree, coef0)
KERNELS = {
    "linear": ("linear", 0.0, 3, 0.0),
    "poly": ("poly", 0.3, 3, 0.5),
    "rbf": ("rbf", 0.5, 3, 0.0),
    "sigmoid": ("sigmoid", 0.1, 3, -0.2),
}
TINY_CACHE_MB = 1e-9   # holds the two rows the budget always allows, no more


def data(n=11, d=5, seed=0):
    """n x d with about a third of its entries zero, and one row all zero."""
    rng = np.random.default_rng(seed)
    D = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.7)
    D[3] = 0.0
    return D


def signs(n, seed=1):
    s = np.where(np.random.default_rng(seed).random(n) < 0.5, 1.0, -1.0)
    s[:2] = [1.0, -1.0]
    return s


def exact_Q(D, name, s):
    """s_i s_j K(x_i, x_j) in float64, from numpy."""
    return np.outer(s, s) * kernel_reference(D, D, *KERNELS[name])


def assert_float32_of(row, expected):
    """`row` (float32) is `expected` (float64) rounded to float32."""
    assert row.dtype == np.float32
    np.testing.assert_allclose(row.astype(np.float64), expected, rtol=FLOAT32_RTOL,
                               atol=KERNEL_ATOL)


def swap_sequence(n, seed, steps=40):
    """(i, j, length) triples: swap i and j, then ask for row i over `length` entries."""
    rng = np.random.default_rng(seed)
    return [(int(rng.integers(n)), int(rng.integers(n)), int(rng.integers(1, n + 1)))
            for _ in range(steps)]


def step_seed(name):
    """A different swap sequence for each kernel."""
    return sorted(KERNELS).index(name)


# ---------------------------------------------------------------------------------------
# QMatrix

@pytest.mark.parametrize("name", list(KERNELS))
def test_rows_are_signed_kernel_values_in_float32(layout, name):
    D = data()
    s = signs(len(D))
    X = in_layout(D, layout)
    Q = QMatrix(Kernel(X, *KERNELS[name]), s, 100.0)
    reference = Kernel(X, *KERNELS[name])
    expected = exact_Q(D, name, s)
    for i in range(len(D)):
        row = Q.row(i)
        assert_float32_of(row, expected[i])
        # exactly (s_i s_j) K_ij of the core's own kernel row, rounded once to float32
        np.testing.assert_array_equal(row, (s[i] * s * reference.kernel_row(i))
                                      .astype(np.float32))
    np.testing.assert_allclose(Q.diagonal(), np.diag(expected), rtol=1e-12, atol=1e-12)


def test_precomputed_rows_are_the_signed_gram_matrix():
    D = data()
    s = signs(len(D))
    gram = kernel_reference(D, D, "rbf", 0.5, 3, 0.0)
    Q = QMatrix(Kernel(in_layout(gram, "dense"), "precomputed", 0.0, 3, 0.0), s, 100.0)
    for i in range(len(D)):
        assert_float32_of(Q.row(i), s[i] * s * gram[i])
    np.testing.assert_array_equal(Q.diagonal(), np.diag(gram))


@pytest.mark.parametrize("name", list(KERNELS))
def test_prefixes_of_rows_and_their_extension(layout, name):
    """Rows asked for over a prefix (the active set), then over more of it."""
    D = data()
    s = signs(len(D))
    Q = QMatrix(Kernel(in_layout(D, layout), *KERNELS[name]), s, 100.0)
    expected = exact_Q(D, name, s)
    for i, length in [(4, 3), (4, 7), (0, 11), (4, 11), (9, 1), (9, 5)]:
        row = Q.row(i, length)
        assert row.shape == (length,)
        assert_float32_of(row, expected[i, :length])


def matrix_and_reference(layout, name):
    """(X, Q, whole): `data()` in `layout`, a QMatrix over it with a large cache, and a
    second one that the tests read whole rows from."""
    D = data()
    s = signs(len(D))
    X = in_layout(D, layout)
    return (X, QMatrix(Kernel(X, *KERNELS[name]), s, 100.0),
            QMatrix(Kernel(X, *KERNELS[name]), s, 100.0))


@pytest.mark.parametrize("name", list(KERNELS))
def test_whole_rows_for_g_bar_leave_the_cached_prefix_as_it_is(layout, name):
    """`get_row_split` (the G_bar update's whole row): the cached prefix and a tail
    computed beside it give the whole row, the same bits as a row cached whole, and
    the cached part does not grow; a row not cached is cached whole. SVR's rows are
    whole kernel rows and come back whole."""
    X, Q, whole = matrix_and_reference(layout, name)
    n = X.shape[0]
    Q.row(4, 6)
    for _ in range(2):   # asked twice: still 6 entries from the cache
        split, row = Q.row_split(4, 11)
        assert split == 6
        np.testing.assert_array_equal(row, whole.row(4))
    assert Q.row_split(7, 11)[0] == 11
    assert Q.row_split(7, 11)[0] == 11
    np.testing.assert_array_equal(Q.row_split(7, 11)[1], whole.row(7))
    svr = SVRQMatrix(Kernel(X, *KERNELS[name]), 100.0)
    svr.row(3, 5)
    split, row = svr.row_split(3, 2 * n)
    assert split == 2 * n
    np.testing.assert_array_equal(row, svr.row(3))


@pytest.mark.parametrize("name", list(KERNELS))
def test_entries_for_the_gradient_reconstruction_leave_the_cache_alone(layout, name):
    """`get_entries` (the reconstruction reads each row once): the same bits as the
    cached rows, from the cache when it holds them, and a row it did not hold, or held
    only in part, is neither cached nor grown. SVR assembles rows from cached kernel
    rows and gives the same entries as its whole rows."""
    X, Q, whole = matrix_and_reference(layout, name)
    n = X.shape[0]
    Q.row(4, 6)
    Q.row(2)
    for i, start, end in [(4, 6, 11), (4, 0, 11), (7, 3, 11), (7, 0, 5), (2, 5, 11),
                          (2, 0, 11)]:
        np.testing.assert_array_equal(Q.entries(i, start, end), whole.row(i)[start:end])
    assert (Q.cached_length(4), Q.cached_length(7), Q.cached_length(2)) == (6, 0, 11)
    svr = SVRQMatrix(Kernel(X, *KERNELS[name]), 100.0)
    np.testing.assert_array_equal(svr.entries(n + 3, 5, 2 * n), svr.row(n + 3)[5:])


@pytest.mark.parametrize("cache_mb", [100.0, TINY_CACHE_MB], ids=["large", "tiny"])
@pytest.mark.parametrize("name", list(KERNELS))
def test_rows_after_swaps_are_the_permuted_matrix(layout, name, cache_mb):
    D = data()
    n = len(D)
    s = signs(n)
    Q = QMatrix(Kernel(in_layout(D, layout), *KERNELS[name]), s, cache_mb)
    expected = exact_Q(D, name, s)
    perm = np.arange(n)
    for step, (i, j, length) in enumerate(swap_sequence(n, seed=step_seed(name))):
        # rows cached before the swap, of several lengths, must follow it
        Q.row(j, n if step % 2 else length)
        Q.swap(i, j)
        perm[[i, j]] = perm[[j, i]]
        assert_float32_of(Q.row(i, length), expected[perm[i]][perm][:length])
        assert_float32_of(Q.row(j), expected[perm[j]][perm])
        np.testing.assert_allclose(Q.diagonal(), np.diag(expected)[perm], rtol=1e-12,
                                   atol=1e-12)
    # the kernel inside follows the same permutation
    np.testing.assert_allclose(Q.kernel.kernel_row(0), kernel_reference(
        D, D, *KERNELS[name])[perm[0]][perm], rtol=1e-12, atol=KERNEL_ATOL)


@pytest.mark.parametrize("name", list(KERNELS))
def test_a_tiny_cache_gives_the_rows_of_a_large_one(layout, name):
    D = data()
    n = len(D)
    s = signs(n)
    X = in_layout(D, layout)
    large = QMatrix(Kernel(X, *KERNELS[name]), s, 100.0)
    tiny = QMatrix(Kernel(X, *KERNELS[name]), s, TINY_CACHE_MB)
    for i, j, length in swap_sequence(n, seed=7, steps=60):
        np.testing.assert_array_max_ulp(tiny.row(i, length), large.row(i, length), 1)
        np.testing.assert_array_max_ulp(tiny.row(j), large.row(j), 1)
        if (i + j) % 3 == 0:
            tiny.swap(i, j)
            large.swap(i, j)
    np.testing.assert_array_equal(tiny.diagonal(), large.diagonal())


def test_accessors_check_their_arguments():
    Q = QMatrix(Kernel(in_layout(data(), "dense"), "linear", 0.0, 3, 0.0),
                np.ones(11), 1.0)
    with pytest.raises(IndexError):
        Q.row(11)
    with pytest.raises(IndexError):
        Q.row(0, 12)
    with pytest.raises(IndexError):
        Q.swap(0, 11)
    # signs of another length: swaps and rows index them by variable (the audit's r06,
    # and r21, where solve() ran on 3 signs for 400 variables)
    with pytest.raises(ValueError, match=r"sign must have shape \(11,\)"):
        QMatrix(Kernel(in_layout(data(), "dense"), "rbf", 0.5, 3, 0.0), np.ones(1), 1.0)


@pytest.mark.parametrize("start, end", [(-50, 100), (100, 50)])
def test_narrowing_refuses_a_range_that_is_not_one(start, end):
    # the copy of the columns is sliced and indexed by [start, end) (the audit's r07)
    D = in_layout(data(n=300, d=50), "csr")
    K = Kernel(D, "rbf", 0.5, 3, 0.0, bit_rows=False, int_rows=False)
    K.rows.build_columns(0.0, 1)
    Q = QMatrix(K, np.ones(300), 10.0)
    with pytest.raises(ValueError, match=r"0 <= start <= end"):
        Q.narrow_rows(start, end, 1000)
    with pytest.raises(ValueError, match=r"0 <= start <= end"):
        K.rows.columns.narrow(D.data, D.indices, np.asarray(D.indptr[:-1], np.int64),
                              np.diff(D.indptr).astype(np.int32), start, end)
    Q.narrow_rows(100, 1000, 1000)   # an end past the rows: up to the last, as before


@pytest.mark.parametrize("solver_class", [Solver, PlattSolver])
@pytest.mark.parametrize("wrong", ["p", "y", "C", "alpha", "gradient", "gradient_bar"])
def test_solver_constructors_refuse_arrays_of_another_length(solver_class, wrong):
    # the constructors themselves, not only solve(): 2,000 entries for Q's 7 variables
    # crashed the interpreter (the audit's r03, r04)
    Q = QMatrix(Kernel(data(n=7), *KERNELS["rbf"]), signs(7), 1.0)
    arrays = dict(p=-np.ones(7), y=signs(7), C=np.ones(7), alpha=np.zeros(7),
                  gradient=-np.ones(7), gradient_bar=np.zeros(7))
    arrays[wrong] = np.ones(2000)
    with pytest.raises(ValueError, match=rf"{wrong} must have shape \(7,\)"):
        solver_class(Q, *list(arrays.values())[:4], 1e-3, True, None, None, 1000, False,
                     None, None, arrays["gradient"], arrays["gradient_bar"])
    with pytest.raises(ValueError, match="give both gradient and gradient_bar"):
        solver_class(Q, *list(arrays.values())[:4], 1e-3, True, None, None, 1000, False,
                     None, None, np.zeros(7))
    if wrong in ("p", "y", "C", "alpha"):
        arrays = dict(p=-np.ones(300), y=np.ones(300), C=np.ones(300), alpha=np.zeros(300))
        arrays[wrong] = np.ones(1)   # the audit's r05
        with pytest.raises(ValueError, match=rf"{wrong} must have shape \(300,\)"):
            LinearSolver(data(n=300), np.arange(300), *arrays.values(), 1e-3, 10000, None,
                         1000, 5.0, None)


@pytest.mark.parametrize("wrong", ["p", "y", "C", "alpha", "gradient"])
def test_solvers_refuse_arrays_of_another_length(wrong):
    # The solvers index p, y, C and alpha by variable without bounds checks: an SVR
    # matrix of 7 examples (14 variables) given 2 x 9 targets crashed the interpreter.
    D = in_layout(data(n=7), "csr")
    signs = np.r_[np.ones(7), -np.ones(7)]
    arrays = dict(p=-np.ones(14), y=signs, C=np.ones(14), alpha=np.zeros(14))
    if wrong == "gradient":
        arrays.update(gradient=np.ones(18), gradient_bar=np.zeros(14))
    else:
        arrays[wrong] = np.ones(18)
    Q = SVRQMatrix(Kernel(D, *KERNELS["rbf"]), 100.0)
    with pytest.raises(ValueError, match=rf"{wrong} must have shape \(14,\)"):
        solve(Q, **arrays)
    if wrong != "gradient":
        # the primal solver: 7 variables, one per row
        arrays = dict(p=-np.ones(7), y=signs[::2], C=np.ones(7), alpha=np.zeros(7))
        arrays[wrong] = np.ones(9)
        with pytest.raises(ValueError, match=rf"{wrong} must have shape \(7,\)"):
            solve_linear(D, np.arange(7), **arrays)


# ---------------------------------------------------------------------------------------
# SVRQMatrix: 2l variables over l examples

def exact_svr_Q(D, name):
    K = kernel_reference(D, D, *KERNELS[name])
    return np.block([[K, -K], [-K, K]])


@pytest.mark.parametrize("name", list(KERNELS))
def test_svr_rows_are_the_doubled_signed_kernel(layout, name):
    D = data(n=7)
    Q = SVRQMatrix(Kernel(in_layout(D, layout), *KERNELS[name]), 100.0)
    expected = exact_svr_Q(D, name)
    K = kernel_reference(D, D, *KERNELS[name])
    for i in range(14):
        row = Q.row(i)
        assert row.shape == (14,)
        assert_float32_of(row, expected[i])
        # alpha_k and alpha*_k stand for the same example, with opposite signs
        k = i % 7
        sign = 1.0 if i < 7 else -1.0
        assert_float32_of(row[:7], sign * K[k])
        assert_float32_of(row[7:], -sign * K[k])
        assert_float32_of(Q.row(i, 5), expected[i, :5])
    np.testing.assert_allclose(Q.diagonal(), np.r_[np.diag(K), np.diag(K)], rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("cache_mb", [100.0, TINY_CACHE_MB], ids=["large", "tiny"])
@pytest.mark.parametrize("name", list(KERNELS))
def test_svr_rows_after_swaps_are_the_permuted_matrix(layout, name, cache_mb):
    D = data(n=7)
    n = 14
    Q = SVRQMatrix(Kernel(in_layout(D, layout), *KERNELS[name]), cache_mb)
    expected = exact_svr_Q(D, name)
    perm = np.arange(n)
    for step, (i, j, length) in enumerate(swap_sequence(n, seed=step_seed(name) + 10)):
        # the two assembled rows are held in buffers; a swap must not leave them stale
        Q.row(i, length)
        Q.row(j)
        Q.swap(i, j)
        perm[[i, j]] = perm[[j, i]]
        assert_float32_of(Q.row(i, length), expected[perm[i]][perm][:length])
        assert_float32_of(Q.row(j), expected[perm[j]][perm])
        assert_float32_of(Q.row(i), expected[perm[i]][perm])
        np.testing.assert_allclose(Q.diagonal(), np.diag(expected)[perm], rtol=1e-12,
                                   atol=1e-12)


def test_svr_the_two_most_recent_rows_are_the_buffers_rows():
    """The solver reads the rows of a step's two variables together: asking for a row
    again returns it, whichever of the two buffers holds it."""
    D = data(n=7)
    Q = SVRQMatrix(Kernel(in_layout(D, "csr"), "rbf", 0.5, 3, 0.0), TINY_CACHE_MB)
    expected = exact_svr_Q(D, "rbf")
    for i, j in [(0, 9), (0, 9), (9, 0), (3, 3), (13, 2), (2, 4), (13, 2)]:
        assert_float32_of(Q.row(i, 10), expected[i, :10])
        assert_float32_of(Q.row(j), expected[j])
        assert_float32_of(Q.row(i), expected[i])


def test_svr_a_variable_finds_its_examples_kernel_row_cached():
    """The solver asks whether its variables' rows are cached (`is_cached`, before every
    row it needs): the cache holds the l examples' kernel rows, and variables k and
    l + k, wherever the swaps put them, have example k's. The question was once asked
    of the cache's row k + l itself, past its l rows: a read out of bounds on every
    step, which crashed the interpreter now and then (an epsilon-SVR fit on a9a)."""
    D = data(n=7)
    l = 7
    Q = SVRQMatrix(Kernel(D, "rbf", 0.5, 3, 0.0), 100.0)
    Q.row(l)   # alpha*_0: example 0's kernel row
    # (asked first: the cache's row l is the slot past its rows, always empty)
    assert Q.row_is_cached(l) and Q.row_is_cached(0)
    assert [t for t in range(2 * l) if Q.row_is_cached(t)] == [0, l]
    example = np.r_[np.arange(l), np.arange(l)]
    for i, j in [(1, l), (0, 2 * l - 1), (l + 3, 5)]:
        Q.swap(i, j)
        example[[i, j]] = example[[j, i]]
    Q.row(2)   # the row of example[2]
    held = {0, example[2]}
    assert ([t for t in range(2 * l) if Q.row_is_cached(t)]
            == [t for t in range(2 * l) if example[t] in held])
    with pytest.raises(IndexError):
        Q.row_is_cached(2 * l)


@pytest.mark.parametrize("name", ["rbf", "linear"])
def test_svr_rows_while_a_prefix_of_variables_is_in_its_starting_place(layout, name):
    """Variables not yet swapped are copied from the kernel row in two signed runs
    (`smo_svr_row`), the rest gathered: every split of a row between the two, at every
    length, gives the permuted matrix."""
    D = data(n=7)
    n = 14
    Q = SVRQMatrix(Kernel(in_layout(D, layout), *KERNELS[name]), 100.0)
    expected = exact_svr_Q(D, name)
    perm = np.arange(n)
    # the swaps move the first displaced variable down: 12 (alpha*), 9, 7 (the first
    # alpha*), 6 (the last alpha), 2, then 0
    for i, j in [(None, None), (12, 13), (9, 11), (7, 13), (6, 8), (2, 10), (0, 5)]:
        if i is not None:
            Q.swap(i, j)
            perm[[i, j]] = perm[[j, i]]
        for row in range(n):
            for length in (1, 3, 6, 7, 8, 10, 13, 14):
                assert_float32_of(Q.row(row, length), expected[perm[row]][perm][:length])


# ---------------------------------------------------------------------------------------
# the kernel values computed (training's kernel work, `Kernel.evaluations`)

def test_kernel_evaluations_count_what_the_cache_does_not_serve(layout):
    D = data(n=9)
    n = 9
    kernel = Kernel(in_layout(D, layout), "rbf", 0.5, 3, 0.0)
    Q = QMatrix(kernel, signs(n), 100.0)
    assert kernel.evaluations == n                  # the diagonal
    Q.row(2, 4)
    assert kernel.evaluations == n + 4              # a prefix of a row
    Q.row(2, 4)
    Q.row(2, 3)
    assert kernel.evaluations == n + 4              # served by the cache
    Q.row(2)
    assert kernel.evaluations == n + n              # the row extended, not recomputed
    Q.row(5)
    assert kernel.evaluations == n + 2 * n
    before = kernel.evaluations
    kernel.kernel_row(0)
    assert kernel.evaluations == before + n


def test_svr_kernel_evaluations_count_whole_kernel_rows_once_per_example(layout):
    """The regressions cache whole kernel rows of the l examples: a variable and its
    twin (alpha_k, alpha*_k) share one."""
    D = data(n=9)
    n = 9
    kernel = Kernel(in_layout(D, layout), "rbf", 0.5, 3, 0.0)
    Q = SVRQMatrix(kernel, 100.0)
    assert kernel.evaluations == n                  # the diagonal of the l examples
    Q.row(2, 4)
    assert kernel.evaluations == 2 * n
    Q.row(2 + n)
    Q.row(2)
    assert kernel.evaluations == 2 * n
    Q.row(5 + n, 3)
    assert kernel.evaluations == 3 * n


def test_kernel_evaluations_with_a_cache_of_two_rows(layout):
    D = data(n=9)
    kernel = Kernel(in_layout(D, layout), "rbf", 0.5, 3, 0.0)
    Q = QMatrix(kernel, signs(9), TINY_CACHE_MB)
    for i in (0, 1, 2, 0):      # row 0 was evicted by the third row and comes again
        Q.row(i)
    assert kernel.evaluations == 9 + 4 * 9
