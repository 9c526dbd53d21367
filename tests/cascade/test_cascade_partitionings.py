"""The cascade whatever the partitioning (issue 46, item 1): rows sorted or grouped by
label, one partition per class, one-row and empty partitions, a class present in only
some partitions. A partition of one class of the pair is a leaf whose optimum is
alpha = 0 with no rho (`cascade_nodes.solve_block`); the whole solve is still the
single-machine optimum. The algorithm runs here without a cluster (`LocalRunner`), and
on a LocalCluster of two worker processes through `libsmo.dask.SVC`."""
import warnings

import numpy as np
import pytest

import libsmo
from libsmo.cascade import LocalRunner, solve_partitioned
from libsmo.cascade._nodes import problem_rows, solve_block
from libsmo.training._params import TrainParams

C, GAMMA = 1.0, 0.2


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _blocks(X, labels, bounds):
    return [problem_rows(X[a:b], labels[a:b], np.arange(a, b), 0, 1, (C, C))
            for a, b in zip(bounds[:-1], bounds[1:])]


def _orders(y):
    """Row orders and partition bounds the cascade must not care about."""
    n = len(y)
    by_class = np.argsort(y, kind="stable")
    n0 = int(np.sum(y == 0))
    # runs of 50 rows of one class, the classes taking turns
    runs = [by_class[k:k + 50] for k in range(0, n, 50)]
    grouped = np.concatenate(runs[0::2] + runs[1::2])
    return {
        "sorted, 4 partitions": (by_class, np.linspace(0, n, 5).astype(int)),
        "one partition per class": (by_class, np.array([0, n0, n])),
        "grouped runs, 8 partitions": (grouped, np.linspace(0, n, 9).astype(int)),
        "one row a partition": (by_class, np.arange(n + 1)),
        "empty partitions": (by_class, np.array([0, 0, 100, 100, 100, n, n])),
        # class 1 only in the last partition, which holds class 0 too
        "a class in one partition only": (by_class, np.array([0, n0 // 3, 2 * n0 // 3,
                                                              n0 - 10, n])),
    }


def _single(X, y):
    """libsmo.train's objective and rho oriented as problem_rows orients the pair
    (label 0 is +1)."""
    model = libsmo.train(X, y, C=C, gamma=GAMMA)
    sign = 1.0 if model.classes[0] == 0 else -1.0
    return model.objective[0], sign * model.rho[0]


def test_a_one_class_block_is_alpha_zero_without_rho():
    X, y = _data()
    params = TrainParams.from_kwargs(C=C, gamma=GAMMA)
    rows = np.flatnonzero(y == 1)
    block = problem_rows(X[rows], y[rows], rows, 0, 1, (C, C))
    assert np.all(block.signs < 0)
    node = solve_block(block, params.kernel.for_data(5), params.solver)
    assert node.status == "optimal" and node.n_iter == 0 and node.objective == 0.0
    assert not node.block.alpha.any() and not node.has_free
    # G = Q 0 - 1 = -1: v = -y G = y
    np.testing.assert_array_equal(node.v, block.signs)
    assert np.isnan(node.rho)


PARTITIONINGS = ["sorted, 4 partitions", "one partition per class",
                 "grouped runs, 8 partitions", "one row a partition", "empty partitions",
                 "a class in one partition only"]


@pytest.mark.parametrize("partitioning", PARTITIONINGS)
def test_any_partitioning_gives_the_single_machine_optimum(partitioning):
    X, y = _data()
    order, bounds = _orders(y)[partitioning]
    params = TrainParams.from_kwargs(C=C, gamma=GAMMA)
    result = solve_partitioned(LocalRunner(), _blocks(X[order], y[order], bounds),
                               params.kernel.for_data(5), params.solver)
    objective, rho = _single(X, y)
    assert result.status == "optimal"
    assert abs(result.objective - objective) <= 1e-6 * abs(objective)
    assert abs(result.rho - rho) <= 1e-3
    assert result.leaves == tuple(np.diff(bounds))


# ---- the same through libsmo.dask.SVC ----------------------------------------------------

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
import libsmo.dask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=2, processes=True,
                                           threads_per_worker=1, dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_dask_cascade_on_data_sorted_by_class(client):
    X, y = _data()
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    single = libsmo.SVC(C=C, gamma=GAMMA).fit(X, y)
    Xd, yd = da.from_array(X, chunks=(100, 5)), da.from_array(y, chunks=100)
    dist = libsmo.dask.SVC(C=C, gamma=GAMMA, cascade_rows=0).fit(Xd, yd)
    assert dist.cascades_[0, 1].status == "optimal"
    objective = single.to_model().objective[0]
    assert abs(dist.to_model().objective[0] - objective) <= 1e-6 * abs(objective)
    assert np.abs(dist.decision_function(X) - single.decision_function(X)).max() <= 1e-3


def test_dask_cascade_with_one_partition_per_class_of_three(client):
    """Three classes, each in its own partition (one file per class): every pair's
    leaves hold one class each."""
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(loc=c, size=(80, 4)) for c in range(3)])
    y = np.repeat([0, 1, 2], 80)
    single = libsmo.SVC(C=C, gamma=GAMMA).fit(X, y)
    dist = libsmo.dask.SVC(C=C, gamma=GAMMA, cascade_rows=0).fit(
        [X[:80], X[80:160], X[160:]], y)
    for a, b in zip(dist.to_model().objective, single.to_model().objective):
        assert abs(a - b) <= 1e-6 * abs(b)
    assert np.array_equal(dist.predict(X), single.predict(X))


def test_dask_class_whose_weights_are_all_zero_gets_svcs_error(client):
    X, y = _data()
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    w = np.where(y == 0, 0.0, 1.0)
    with pytest.raises(ValueError) as expected:
        libsmo.SVC(gamma=GAMMA).fit(X, y, sample_weight=w)
    Xd, yd = da.from_array(X, chunks=(100, 5)), da.from_array(y, chunks=100)
    with pytest.raises(ValueError) as got:
        libsmo.dask.SVC(gamma=GAMMA).fit(Xd, yd, sample_weight=da.from_array(w, chunks=100))
    assert str(got.value) == str(expected.value)
    # three classes, the middle one all of weight 0: SVC names it
    y3 = np.arange(len(y)) % 3
    w3 = np.where(y3 == 1, 0.0, 1.0)
    with pytest.raises(ValueError, match="class .*1.* has no sample of positive weight"):
        libsmo.dask.SVC(gamma=GAMMA).fit([X[:200], X[200:]], y3, sample_weight=w3)
    with pytest.raises(ValueError, match="all samples have zero or negative weights"):
        libsmo.dask.SVC(gamma=GAMMA).fit([X[:200], X[200:]], y3,
                                         sample_weight=np.zeros(len(y)))
