"""The partitioned solver on one machine (`libsmo.train(solver="partitioned")`,
`libsmo.cascade._local`): the single solver's optimum (objective within 1e-6 relative,
predictions equal on at least 99.9% of test rows) on a9a and Fashion-MNIST for every
partitioning and thread count, against libsmo's SMO and libsvm-official; one-vs-one
pairs; partitions of one class; warm starts; stops by time, callback and error; its
reports; its parameters; the runner of threads and the partitionings themselves."""
import logging
import threading
import warnings

import numpy as np
import pytest

import libsmo
from helpers.data import load_dataset, load_fashion_mnist
from helpers.peers import libsvm_train
from libsmo._core.stopping import SolverStopped
from libsmo.cascade import LocalRunner, solve_partitioned
from libsmo.cascade._local import partition_count, uses_partitioned
from libsmo.cascade._nodes import Block
from libsmo.cascade._partitioning import BALANCE, partition_rows
from libsmo.cascade._threads import ThreadRunner
from libsmo.exceptions import ConvergenceWarning
from libsmo.training._params import TrainParams

PARTITIONINGS = ["kmeans", "stratified", "random"]


def _footwear(n_rows, kind="train"):
    """Fashion-MNIST footwear (5, 7, 9) against the rest, pixels as uint8."""
    X, y = load_fashion_mnist(kind, n_rows=n_rows)
    return np.rint(X * 255).astype(np.uint8), np.isin(y, (5, 7, 9)).astype(int)


@pytest.fixture(scope="module")
def a9a():
    X, y = load_dataset("a9a", n_rows=4000)
    Xt, yt = load_dataset("a9a.t", n_rows=3000, n_features=X.shape[1])
    return X, y, Xt, yt


@pytest.fixture(scope="module")
def fashion():
    X, y = _footwear(3000)
    Xt, yt = _footwear(1000, "t10k")
    gamma = 1.0 / (784 * X.astype(np.float64).var())
    return X, y, Xt, yt, gamma


def _same_optimum(partitioned, single, X_test):
    assert partitioned.status == ["optimal"]
    rel = abs(partitioned.objective[0] - single.objective[0]) / abs(single.objective[0])
    assert rel <= 1e-6, rel
    agree = np.mean(partitioned.predict(X_test) == single.predict(X_test))
    assert agree >= 0.999, agree


@pytest.mark.parametrize("partitioning", PARTITIONINGS)
@pytest.mark.parametrize("n_threads", [1, 2])
def test_a9a_reaches_the_single_solvers_optimum(a9a, partitioning, n_threads):
    X, y, Xt, yt = a9a
    single = libsmo.train(X, y, C=1.0, gamma=0.05)
    partitioned = libsmo.train(X, y, C=1.0, gamma=0.05, solver="partitioned",
                               partitions=4, partitioning=partitioning,
                               n_threads=n_threads)
    _same_optimum(partitioned, single, Xt)
    peer = libsvm_train(X, y, C=1.0, gamma=0.05)
    assert abs(partitioned.objective[0] - peer.objectives[0]) <= 1e-6 * abs(peer.objectives[0])


@pytest.mark.parametrize("partitioning", PARTITIONINGS)
@pytest.mark.parametrize("partitions", [3, 8])
def test_fashion_mnist_reaches_the_single_solvers_optimum(fashion, partitioning,
                                                          partitions):
    """8-bit images stored as bytes, few support vectors: the cascade's rounds (the
    leaves' support vectors far from the whole problem's), not the whole problem from
    the leaves' alphas."""
    X, y, Xt, yt, gamma = fashion
    single = libsmo.train(X, y, C=10.0, gamma=gamma)
    partitioned = libsmo.train(X, y, C=10.0, gamma=gamma, solver="partitioned",
                               partitions=partitions, partitioning=partitioning,
                               n_threads=2)
    _same_optimum(partitioned, single, Xt)
    assert abs(partitioned.n_sv - single.n_sv) <= 0.02 * single.n_sv


def test_estimator_with_n_jobs(fashion):
    X, y, Xt, yt, _ = fashion
    single = libsmo.SVC(C=10.0).fit(X, y)
    partitioned = libsmo.SVC(C=10.0, solver="partitioned", partitions=4, n_jobs=2).fit(X, y)
    _same_optimum(partitioned.to_model(), single.to_model(), Xt)
    assert np.mean(partitioned.predict(Xt) == single.predict(Xt)) >= 0.999
    assert partitioned.fit_status_ == 0


def test_one_vs_one_pairs_above_the_size(monkeypatch):
    """Three classes of about 300 rows (the repository's 3,000 images), the size above
    which pairs go to the partitioned solver lowered to 500: every pair by the
    partitioned solver, each the pair's single-solver optimum."""
    monkeypatch.setattr(libsmo.cascade._local, "MIN_ROWS", 500)
    X, y = load_fashion_mnist(n_rows=3000)
    keep = np.flatnonzero(np.isin(y, (0, 2, 6)))
    assert min(np.count_nonzero(y[keep] == c) for c in (0, 2, 6)) * 2 >= 500
    X, y = np.rint(X[keep] * 255).astype(np.uint8), y[keep]
    gamma = 1.0 / (784 * X.astype(np.float64).var())
    single = libsmo.train(X, y, C=5.0, gamma=gamma)
    partitioned = libsmo.train(X, y, C=5.0, gamma=gamma, solver="partitioned",
                               partitions=3, n_threads=2)
    assert partitioned.status == ["optimal"] * 3
    np.testing.assert_allclose(partitioned.objective, single.objective, rtol=1e-6)
    Xt, yt = load_fashion_mnist("t10k", n_rows=1000)
    Xt = np.rint(Xt[np.isin(yt, (0, 2, 6))] * 255)
    assert np.mean(partitioned.predict(Xt) == single.predict(Xt)) >= 0.999


@pytest.mark.parametrize("runner", ["local", "threads"])
def test_partitions_of_one_class(a9a, runner):
    """Rows sorted by label in 8 partitions: all but one hold one class, whose leaf
    optimum is alpha = 0 (not an overflow); the same optimum (issue 46, item 1)."""
    X, y, _, _ = a9a
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    params = TrainParams.from_kwargs(C=1.0, gamma=0.05)
    signs = np.where(y > 0, 1.0, -1.0)
    bounds = np.linspace(0, len(y), 9).astype(int)
    blocks = [Block(X=X, signs=signs[a:b], upper_bound=np.ones(b - a),
                    ids=np.arange(a, b), alpha=np.zeros(b - a), rows=np.arange(a, b))
              for a, b in zip(bounds[:-1], bounds[1:])]
    assert len(set(signs[:bounds[1]])) == 1 and len(set(signs[bounds[-2]:])) == 1
    kernel = params.kernel.for_data(X.shape[1])
    if runner == "local":
        result = solve_partitioned(LocalRunner(), blocks, kernel, params.solver)
    else:
        with ThreadRunner(2) as threads:
            result = solve_partitioned(threads, blocks, kernel, params.solver,
                                       stop_flag=threads.stop_flag)
    single = libsmo.train(X, y, C=1.0, gamma=0.05)
    assert result.status == "optimal"
    assert abs(result.objective - single.objective[0]) <= 1e-6 * abs(single.objective[0])


def test_warm_start_from_another_c(fashion):
    X, y, Xt, _, gamma = fashion
    earlier = libsmo.train(X, y, C=2.0, gamma=gamma)
    single = libsmo.train(X, y, C=10.0, gamma=gamma)
    warm = libsmo.train(X, y, C=10.0, gamma=gamma, solver="partitioned", partitions=3,
                        init=earlier)
    _same_optimum(warm, single, Xt)


def test_auto_solves_small_problems_by_smo(a9a):
    X, y, _, _ = a9a
    auto = libsmo.train(X, y, C=1.0, gamma=0.05, solver="auto")
    single = libsmo.train(X, y, C=1.0, gamma=0.05)
    assert auto.n_iter == single.n_iter and auto.objective == single.objective


def test_which_problems_go_partitioned():
    dense = np.zeros((1, 4))
    assert uses_partitioned(TrainParams.from_kwargs(solver="partitioned"), 5000, dense)
    assert not uses_partitioned(TrainParams.from_kwargs(solver="partitioned"), 500, dense)
    assert not uses_partitioned(TrainParams.from_kwargs(solver="smo"), 10**6, dense)
    assert not uses_partitioned(TrainParams.from_kwargs(solver="partitioned",
                                                        svm_type="nu_svc"), 10**6, dense)
    assert not uses_partitioned(TrainParams.from_kwargs(solver="partitioned",
                                                        kernel="precomputed"), 10**6, dense)
    assert uses_partitioned(TrainParams.from_kwargs(solver="auto"), 10**6, dense)
    assert not uses_partitioned(TrainParams.from_kwargs(solver="auto"), 50_000, dense)
    assert not uses_partitioned(TrainParams.from_kwargs(solver="auto", kernel="linear"),
                                10**6, dense)
    assert partition_count(5, 10**6, 2) == 5
    assert partition_count("auto", 10**6, 2) == 50
    assert partition_count("auto", 20_000, 2) == 4
    assert partition_count(50, 3000, 1) == 30


@pytest.mark.parametrize("name, value, error", [
    ("solver", "cascade", ValueError), ("solver", 1, TypeError),
    ("partitions", 0, ValueError), ("partitions", 2.5, TypeError),
    ("partitions", "many", ValueError), ("partitioning", "kernel_kmeans", ValueError)])
def test_parameters_are_checked(a9a, name, value, error):
    X, y, _, _ = a9a
    with pytest.raises(error, match=name):
        libsmo.train(X[:50], y[:50], **{name: value})
    with pytest.raises(error, match=name):
        libsmo.SVC(**{name: value}).fit(X[:50], y[:50])


def test_reports_on_the_logger_and_the_callback(fashion, caplog):
    X, y, _, _, gamma = fashion
    seen = []
    with caplog.at_level(logging.INFO, logger="libsmo"):
        libsmo.train(X, y, C=10.0, gamma=gamma, solver="partitioned", partitions=3,
                     callback=seen.append, callback_every=50)
    stages = [info["stage"] for info in seen if "done" in info]
    assert stages[:3] == ["leaf"] * 3 and stages[-1] == "round"
    last = [info for info in seen if "done" in info][-1]
    assert last["violation"] <= 1e-3
    assert {"n_iter", "active_size", "violation", "objective", "elapsed"} <= set(last)
    # the partitions' solvers report too, with their stage
    assert any("done" not in info and info["stage"] in ("tree", "round") for info in seen)
    text = caplog.text
    assert "partitioned: 3000 rows in 3 stratified partitions" in text
    assert "leaf 3/3" in text and "round 1" in text and "m(a) - M(a)" in text


def test_callback_stops_the_fit(fashion):
    X, y, _, _, gamma = fashion

    def stop_at_first_round(info):
        return not (info.get("stage") == "round" and "done" in info)

    with pytest.warns(ConvergenceWarning):
        model = libsmo.train(X, y, C=10.0, gamma=gamma, solver="partitioned",
                             partitions=3, callback=stop_at_first_round)
    assert model.status == ["stopped"]


def test_time_limit(fashion):
    X, y, _, _, gamma = fashion
    with pytest.warns(ConvergenceWarning):
        model = libsmo.train(X, y, C=10.0, gamma=gamma, solver="partitioned",
                             partitions=3, time_limit=1e-6)
    assert model.status[0] in ("time_limit", "stopped")


def test_an_error_in_the_callback_reaches_the_caller_and_leaves_no_thread(fashion):
    X, y, _, _, gamma = fashion
    before = set(threading.enumerate())

    def fail(info):
        raise RuntimeError("from the callback")

    with pytest.raises(RuntimeError, match="from the callback"):
        libsmo.train(X, y, C=10.0, gamma=gamma, solver="partitioned", partitions=3,
                     n_threads=2, callback=fail, callback_every=1)
    assert set(threading.enumerate()) <= before


@pytest.mark.parametrize("bar", ["tqdm", "line"])
def test_estimator_verbose_draws_a_bar(fashion, capsys, monkeypatch, bar):
    """verbose=True draws tqdm's bar where tqdm is installed, else a line redrawn on a
    terminal (nothing where stderr is not one)."""
    import importlib.util

    from libsmo.cascade import _progress
    X, y, _, _, _ = fashion
    if bar == "tqdm":
        pytest.importorskip("tqdm")
    else:
        real_find_spec = importlib.util.find_spec
        monkeypatch.setattr(_progress.importlib.util, "find_spec",
                            lambda name, *a: None if name == "tqdm"
                            else real_find_spec(name, *a))
        monkeypatch.setattr(_progress.sys.stderr, "isatty", lambda: True, raising=False)
    libsmo.SVC(C=10.0, solver="partitioned", partitions=3, verbose=True).fit(X, y)
    err = capsys.readouterr().err
    if bar == "tqdm":
        assert "partitioned: leaves" in err or "partitioned: rounds" in err
    else:
        assert "\rpartitioned: " in err and err.endswith("\n")


# ---- the runner -------------------------------------------------------------------

def test_thread_runner_resolves_futures_and_raises_what_a_task_raised():
    with ThreadRunner(2) as runner:
        a = runner.submit(lambda: 2)
        b = runner.submit(lambda x, y: x * y, a, 5)
        assert runner.gather([a, b, 7]) == [2, 10, 7]
    before = set(threading.enumerate())
    with pytest.raises(ValueError, match="bad"):
        with ThreadRunner(2) as runner:
            def bad():
                raise ValueError("bad")
            failed = runner.submit(bad)
            after = runner.submit(lambda x: x, failed)
            runner.gather(after)
    assert runner.stop_flag[0] == 1
    assert set(threading.enumerate()) <= before


def test_thread_runner_stop_skips_what_has_not_begun():
    gate = threading.Event()
    ran = []
    with pytest.raises(SolverStopped):
        with ThreadRunner(1) as runner:
            first = runner.submit(gate.wait, 5)
            later = [runner.submit(ran.append, k) for k in range(5)]
            runner.stop()
            gate.set()
            runner.gather(first)
            runner.gather(later)
    assert ran == []


# ---- the partitionings --------------------------------------------------------------

@pytest.mark.parametrize("method", PARTITIONINGS)
def test_partitionings_cover_every_row_once(fashion, method):
    X, y, _, _, _ = fashion
    rows = np.arange(0, 3000, 2)
    signs = np.where(y[rows] > 0, 1.0, -1.0)
    parts = partition_rows(X, rows, signs, 6, method)
    together = np.sort(np.concatenate(parts))
    np.testing.assert_array_equal(together, np.arange(len(rows)))
    assert all(np.all(np.diff(p) > 0) for p in parts)
    assert max(len(p) for p in parts) <= np.ceil(BALANCE * len(rows) / 6)
    if method == "stratified":
        shares = [np.mean(signs[p] > 0) for p in parts]
        assert max(shares) - min(shares) <= 0.01
    again = partition_rows(X, rows, signs, 6, method)
    assert all(np.array_equal(p, q) for p, q in zip(parts, again))


def test_kmeans_partitions_are_regions_of_the_input_space():
    """Two far apart blobs and two partitions: each blob is one partition."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(300, 5)), rng.normal(size=(300, 5)) + 20.0])
    signs = np.where(rng.random(600) > 0.5, 1.0, -1.0)
    parts = partition_rows(X, np.arange(600), signs, 2, "kmeans")
    assert sorted(map(tuple, (np.unique(p // 300) for p in parts))) == [(0,), (1,)]


def test_fewer_rows_than_partitions():
    X = np.arange(6.0).reshape(3, 2)
    parts = partition_rows(X, np.arange(3), np.array([1.0, -1.0, 1.0]), 10, "random")
    assert sorted(len(p) for p in parts) == [1, 1, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert partition_rows(X, np.arange(3), np.ones(3), 1, "kmeans")[0].tolist() == [0, 1, 2]


# ---- the full sets (pytest -m slow) ---------------------------------------------------

@pytest.mark.slow
def test_full_a9a():
    X, y = load_dataset("a9a")
    Xt, _ = load_dataset("a9a.t", n_features=X.shape[1])
    single = libsmo.train(X, y, C=1.0, gamma=0.05)
    partitioned = libsmo.train(X, y, C=1.0, gamma=0.05, solver="partitioned",
                               n_threads=2)
    _same_optimum(partitioned, single, Xt)


@pytest.mark.slow
def test_full_fashion_mnist_footwear_and_ten_classes():
    """The 60,000 images as bytes: footwear against the rest (one problem of 60,000
    rows, "auto" partitions), and the ten classes (45 pairs of 12,000 rows, each by the
    partitioned solver)."""
    X, labels = load_fashion_mnist()
    X = np.rint(X * 255).astype(np.uint8)
    Xt, labels_t = load_fashion_mnist("t10k")
    Xt = np.rint(Xt * 255).astype(np.uint8)
    gamma = 1.0 / (784 * X.astype(np.float64).var())
    y = np.isin(labels, (5, 7, 9)).astype(int)
    single = libsmo.train(X, y, C=10.0, gamma=gamma)
    partitioned = libsmo.train(X, y, C=10.0, gamma=gamma, solver="partitioned",
                               n_threads=2)
    _same_optimum(partitioned, single, Xt)
    single = libsmo.train(X, labels, C=10.0, gamma=gamma, n_threads=2)
    partitioned = libsmo.train(X, labels, C=10.0, gamma=gamma, solver="partitioned",
                               n_threads=2)
    assert partitioned.status == ["optimal"] * 45
    np.testing.assert_allclose(partitioned.objective, single.objective, rtol=1e-6)
    assert np.mean(partitioned.predict(Xt) == single.predict(Xt)) >= 0.999
