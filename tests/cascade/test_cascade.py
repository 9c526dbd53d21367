"""The cascade's algorithm without a cluster (`libsmo.cascade` with its LocalRunner):
the same optimum as one solver over all rows, whatever the partitions, the tree's fan-in
or when the working set is widened to every row; and the solver's start from a known
gradient (the core's `gradient`/`gradient_bar`), which its rounds rely on."""
import numpy as np
import pytest

import libsmo
from helpers.data import load_dataset
from helpers.peers import libsvm_train
from libsmo._core.kernel import Kernel
from libsmo._core.qmatrix import QMatrix
from libsmo._core.solvers import solve
from libsmo._utils.validation import check_data
from libsmo.cascade import LocalRunner, solve_partitioned
from libsmo.cascade._nodes import problem_rows
from libsmo.training._params import TrainParams


def _blocks(X, y, n_parts, C=1.0):
    labels = np.where(y > 0, 0, 1)
    bounds = np.linspace(0, X.shape[0], n_parts + 1).astype(int)
    return [problem_rows(X[a:b], labels[a:b], np.arange(a, b), 0, 1, (C, C))
            for a, b in zip(bounds[:-1], bounds[1:])]


@pytest.fixture(scope="module")
def a9a():
    X, y = load_dataset("a9a", n_rows=3000)
    return check_data(X), y


@pytest.mark.parametrize("n_parts, fan_in, whole_fraction, direct_fraction", [
    (1, 2, 0.5, 0.3), (3, 2, 0.5, 1.0), (4, 2, 1.0, 1.0), (6, 3, 0.5, 1.0),
    (8, 8, 1.0, 1.0), (4, 2, 0.5, 0.3)])
def test_cascade_reaches_libsvm_optimum(a9a, n_parts, fan_in, whole_fraction,
                                        direct_fraction):
    X, y = a9a
    params = TrainParams.from_kwargs(C=1.0, gamma=0.05)
    result = solve_partitioned(LocalRunner(), _blocks(X, y, n_parts),
                               params.kernel.for_data(X.shape[1]), params.solver,
                               fan_in=fan_in, whole_fraction=whole_fraction,
                               direct_fraction=direct_fraction)
    peer = libsvm_train(X, y, C=1.0, gamma=0.05)
    assert result.status == "optimal"
    assert result.rounds[-1].gap <= 1e-3
    assert abs(result.objective - peer.objectives[0]) <= 1e-6 * abs(peer.objectives[0])
    single = libsmo.train(X, y, C=1.0, gamma=0.05)
    # the same rows are support vectors, up to the optimum's tolerance
    assert abs(len(result.support) - single.n_sv) <= 0.01 * single.n_sv
    # label 0 (y = +1) is the positive side, as in LIBSVM's order of -1/+1 data
    assert abs(result.rho - single.rho[0]) <= 1e-3


def test_rounds_feed_back_violators(a9a):
    X, y = a9a
    params = TrainParams.from_kwargs(C=1.0, gamma=0.05)
    result = solve_partitioned(LocalRunner(), _blocks(X, y, 4),
                               params.kernel.for_data(X.shape[1]), params.solver,
                               whole_fraction=1.0, direct_fraction=1.0)
    assert result.leaves == (750, 750, 750, 750)
    assert result.rounds[0].gap > 1e-3 and result.rounds[0].added > 0
    assert result.rounds[-1].added == 0


def test_rounds_add_the_most_violating_rows_up_to_grow_fraction(a9a):
    """Violators that would take the working set past grow_fraction of the rows: only
    the most violating join, up to that size, and the rounds still end at LIBSVM's
    optimum (with every violator the second working set holds 1,910 rows)."""
    X, y = a9a
    params = TrainParams.from_kwargs(C=1.0, gamma=0.05)
    result = solve_partitioned(LocalRunner(), _blocks(X, y, 4),
                               params.kernel.for_data(X.shape[1]), params.solver,
                               whole_fraction=1.0, direct_fraction=1.0, grow_fraction=0.5)
    assert result.rounds[0].added > 0
    assert result.rounds[1].working_set == 1500
    assert result.status == "optimal" and result.rounds[-1].gap <= 1e-3
    peer = libsvm_train(X, y, C=1.0, gamma=0.05)
    assert abs(result.objective - peer.objectives[0]) <= 1e-6 * abs(peer.objectives[0])
    every = solve_partitioned(LocalRunner(), _blocks(X, y, 4),
                              params.kernel.for_data(X.shape[1]), params.solver,
                              whole_fraction=1.0, direct_fraction=1.0, grow_fraction=1.0)
    assert every.rounds[1].working_set > 1500


def test_solver_starts_from_a_given_gradient(a9a):
    """G and G_bar given with a start: the same solution and steps as computing them."""
    X, y = a9a
    X, y = X[:800], y[:800]
    warm = libsmo.train(X, y, C=0.5, gamma=0.05)
    alpha = np.zeros(len(y))
    alpha[warm.support] = np.abs(warm.sv_coef[0])
    C = np.ones(len(y))

    def q():
        return QMatrix(Kernel(X, "rbf", 0.05, 3, 0.0), y.astype(float), 100)

    Q = q()
    K = np.array([Q.row(i) for i in range(len(y))], dtype=np.float64)
    G = K @ alpha - 1.0
    G_bar = K @ np.where(alpha >= C, C, 0.0)
    plain = solve(q(), -np.ones(len(y)), y.astype(float), C, alpha)
    given = solve(q(), -np.ones(len(y)), y.astype(float), C, alpha, gradient=G,
                  gradient_bar=G_bar)
    assert given.n_iter == plain.n_iter
    assert np.allclose(given.alpha, plain.alpha, atol=1e-9)
    assert abs(given.objective - plain.objective) <= 1e-9 * abs(plain.objective)
    with pytest.raises(ValueError, match="both"):
        solve(q(), -np.ones(len(y)), y.astype(float), C, alpha, gradient=G)


def test_leaves_start_the_whole_problem_when_most_rows_support(a9a):
    """a9a's leaves keep about 40% of their rows as support vectors: the whole problem
    is solved next from their alphas (Hsieh et al.'s divide and conquer), in fewer SMO
    steps than from zero, to the same optimum, and no round of scoring follows."""
    X, y = a9a
    params = TrainParams.from_kwargs(C=1.0, gamma=0.05)
    result = solve_partitioned(LocalRunner(), _blocks(X, y, 4),
                               params.kernel.for_data(X.shape[1]), params.solver)
    assert len(result.rounds) == 1
    assert result.rounds[0].working_set == X.shape[0] and result.rounds[0].added == 0
    assert result.status == "optimal" and result.rounds[0].gap <= 1e-3
    cold = solve_partitioned(LocalRunner(), _blocks(X, y, 1),
                             params.kernel.for_data(X.shape[1]), params.solver)
    assert result.rounds[0].n_iter < cold.n_iter
    print(f"SMO steps from the leaves' alphas: {result.rounds[0].n_iter}, from zero: "
          f"{cold.n_iter}")
    assert abs(result.objective - cold.objective) <= 1e-6 * abs(cold.objective)
