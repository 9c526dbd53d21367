"""The typed result of the core's solvers (`libsmo._core.solution`): a `Solution` is
immutable once made (no attribute can be set, its arrays are read-only), and
`make_solution` leaves the flags of the arrays it is given as they were.
"""
import numpy as np
import pytest

from helpers.layouts import in_layout
from libsmo._core.kernel import Kernel
from libsmo._core.qmatrix import QMatrix
from libsmo._core.solution import Solution, make_solution
from libsmo._core.solvers import solve


def a_solution():
    """A solver's result on a small C-SVC problem."""
    rng = np.random.default_rng(0)
    D = rng.standard_normal((20, 3))
    y = np.where(D[:, 0] > 0, 1.0, -1.0)
    Q = QMatrix(Kernel(in_layout(D, "dense"), "rbf", 0.5, 3, 0.0), y, 1.0)
    return solve(Q, -np.ones(20), y, np.ones(20), tol=1e-3)


@pytest.mark.parametrize("attribute", ["alpha", "gradient", "rho", "r", "objective",
                                       "n_iter", "status", "finite"])
def test_solution_attributes_cannot_be_set(attribute):
    solution = a_solution()
    with pytest.raises(AttributeError):
        setattr(solution, attribute, getattr(solution, attribute))
    with pytest.raises(AttributeError):
        solution.extra = 1


def test_solution_arrays_are_read_only():
    solution = a_solution()
    for array in (solution.alpha, solution.gradient):
        assert not array.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1.0
    assert isinstance(solution, Solution)


def test_solution_arrays_cannot_be_made_writeable_again():
    solution = a_solution()
    with pytest.raises(ValueError):
        solution.alpha.flags.writeable = True


@pytest.mark.parametrize("writeable", [True, False])
def test_make_solution_leaves_the_flags_of_its_arrays(writeable):
    rng = np.random.default_rng(0)
    alpha, G, p = rng.random(5), rng.standard_normal(5), -np.ones(5)
    y, C = np.array([1.0, -1, 1, -1, 1]), np.ones(5)
    arrays = (alpha, G, p, y, C)
    for array in arrays:
        array.flags.writeable = writeable
    solution = make_solution(alpha, G, p, y, C, False, 3, 1)   # 1: optimal
    assert all(array.flags.writeable == writeable for array in arrays)
    assert not solution.alpha.flags.writeable and not solution.gradient.flags.writeable
    np.testing.assert_array_equal(solution.alpha, alpha)
    np.testing.assert_array_equal(solution.gradient, G)
    assert solution.objective == pytest.approx(0.5 * alpha @ (G + p), rel=1e-14)
    assert (solution.n_iter, solution.status) == (3, "optimal")


def test_make_solution_sums_in_the_solvers_order_and_answers_in_the_callers():
    """rho's free-variable mean and the objective are summed in the order given (the
    solver's, as LIBSVM sums them); alpha and G come back moved to order[k]."""
    rng = np.random.default_rng(0)
    n = 50
    alpha = rng.uniform(0.1, 0.9, n)          # all free
    G, p = rng.normal(size=n) * 1e3, -np.ones(n)
    y, C = np.where(rng.random(n) < 0.5, 1.0, -1.0), np.ones(n)
    order = rng.permutation(n).astype(np.int32)
    out = make_solution(alpha, G, p, y, C, False, 7, 1, order=order)
    assert out.rho == np.cumsum(y * G)[-1] / n
    assert out.objective == np.cumsum(alpha * (G + p))[-1] / 2
    np.testing.assert_array_equal(out.alpha[order], alpha)
    np.testing.assert_array_equal(out.gradient[order], G)
    with pytest.raises(ValueError, match=r"order entry 50 is outside \[0, 50\)"):
        make_solution(alpha, G, p, y, C, False, 7, 1, order=np.arange(1, n + 1))


@pytest.mark.parametrize("short", ["G", "p", "y", "C", "order"])
def test_make_solution_refuses_arrays_of_another_length_than_alpha(short):
    # its loops read them by alpha's entries without bounds checks: alpha of 10**7
    # entries with the others of one crashed the interpreter (the audit's r01)
    arrays = dict(alpha=np.zeros(10), G=np.zeros(10), p=np.zeros(10), y=np.ones(10),
                  C=np.ones(10), order=np.arange(10))
    arrays[short] = np.ones(1)
    order = arrays.pop("order")
    with pytest.raises(ValueError, match=rf"{short} must have shape \(10,\)"):
        make_solution(*arrays.values(), False, 0, 1, order=order)
