"""libsmo.dask on a LocalCluster of two worker processes: the cascade's models are the
single-machine optimum (LIBSVM's stopping rule checked on every row), one-vs-one pairs
trained whole on the workers are libsmo's pairs bit for bit, prediction runs block by
block, the joblib Dask backend spreads pairs and folds, and a lost worker is retried
without changing the model."""
import os
import subprocess
import sys
from pathlib import Path

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import distributed
import libsmo
import libsmo.dask
from helpers.data import load_dataset, load_fashion_mnist
from helpers.peers import libsvm_train


def _partitions(X, n):
    bounds = np.linspace(0, X.shape[0], n + 1).astype(int)
    return [X[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _assert_same_optimum(dist, single, X_test, tol=1e-3):
    """The promises: objective within 1e-6 relative, decision values within 2 tol,
    at least 99.9% of predictions equal. Two points that both meet LIBSVM's stopping
    rule m(a) - M(a) <= tol may each have rho anywhere in an interval of width tol, so
    their decision values may differ by about tol (full a9a, 4 partitions: 1.3e-3)."""
    for a, b in zip(dist.to_model().objective, single.to_model().objective):
        assert abs(a - b) <= 1e-6 * abs(b)
    dec_d, dec_s = dist.decision_function(X_test), single.decision_function(X_test)
    assert np.abs(dec_d - dec_s).max() <= 2 * tol
    assert np.mean(dist.predict(X_test) == single.predict(X_test)) >= 0.999


def test_binary_cascade_is_the_single_machine_optimum(client):
    X, y = load_dataset("a9a", n_rows=4000)
    X_test, _ = load_dataset("a9a.t", n_rows=3000, n_features=X.shape[1])
    single = libsmo.SVC(C=1.0, gamma=0.05).fit(X, y)
    dist = libsmo.dask.SVC(C=1.0, gamma=0.05, cascade_rows=0).fit(_partitions(X, 4), y)
    _assert_same_optimum(dist, single, X_test)
    record = dist.cascades_[0, 1]
    assert record.leaves == (1000, 1000, 1000, 1000)
    assert record.rounds[-1].gap <= 1e-3 and record.status == "optimal"
    # 40% of a9a's rows are support vectors: the leaves' alphas start the whole problem
    assert [(r.working_set, r.added) for r in record.rounds] == [(4000, 0)]
    peer = libsvm_train(X, y, C=1.0, gamma=0.05)
    assert abs(dist.to_model().objective[0] - peer.objectives[0]) <= 1e-6 * abs(
        peer.objectives[0])
    assert np.array_equal(dist.classes_, single.classes_)
    assert dist.support_vectors_.shape[1] == X.shape[1]
    assert np.array_equal(dist.support_vectors_[:5].toarray(),
                          X[dist.support_[:5]].toarray())


def test_fashion_mnist_cascaded_pairs(client):
    X, y = load_fashion_mnist("train", n_rows=3000)
    keep = np.isin(y, [0, 2, 6])          # T-shirt, pullover, shirt: the hard ones
    X, y = X[keep][:1500], y[keep][:1500]
    X_test, _ = load_fashion_mnist("t10k", n_rows=1000)
    gamma = 1.0 / (784 * X.var())
    single = libsmo.SVC(C=10, gamma=gamma).fit(X, y)
    dist = libsmo.dask.SVC(C=10, gamma=gamma, cascade_rows=0).fit(
        da.from_array(X, chunks=(400, 784)), da.from_array(y, chunks=400))
    assert set(dist.cascades_) == {(0, 1), (0, 2), (1, 2)}
    _assert_same_optimum(dist, single, X_test)


def test_fashion_mnist_pairs_on_the_workers_are_libsmo_pairs(client):
    X, y = load_fashion_mnist("train", n_rows=2000)
    gamma = 1.0 / (784 * X.var())
    single = libsmo.SVC(C=10, gamma=gamma).fit(X, y)
    dist = libsmo.dask.SVC(C=10, gamma=gamma).fit(da.from_array(X, chunks=(700, 784)),
                                                  da.from_array(y, chunks=700))
    assert dist.cascades_ == {}
    assert np.array_equal(dist.support_, single.support_)
    assert np.array_equal(dist.dual_coef_, single.dual_coef_)
    assert np.array_equal(dist.intercept_, single.intercept_)
    X_test, _ = load_fashion_mnist("t10k", n_rows=500)
    dX = da.from_array(X_test, chunks=(200, 784))
    predicted = dist.predict(dX)
    assert isinstance(predicted, da.Array)
    assert np.array_equal(predicted.compute(), single.predict(X_test))
    assert np.allclose(dist.decision_function(dX).compute(),
                       single.decision_function(X_test))
    assert np.array_equal(dist.to_model().sv_coef, single.to_model().sv_coef)


def test_class_rows_move_between_workers_as_bytes():
    from libsmo.dask import _partitions as parts
    X, _ = load_fashion_mnist("train", n_rows=300)
    packed = parts.pack_rows(X)
    assert isinstance(packed, parts.ByteRows)
    assert packed.q.dtype == np.uint8 and packed.q.nbytes * 8 == X.nbytes
    assert np.array_equal(parts.unpack_rows([packed]), X)
    # a class's blocks stay bytes when stacked; a block of other values makes doubles
    other = X[:5] + 1e-3
    assert parts.pack_rows(other) is other
    assert isinstance(parts.stack_rows([packed, parts.pack_rows(X[:7])]), parts.ByteRows)
    empty = parts.pack_rows(X[:0])   # a partition without rows of the class
    assert not isinstance(empty, parts.ByteRows)
    both = parts.stack_rows([empty, packed, empty])
    assert isinstance(both, parts.ByteRows) and np.array_equal(parts.unpack_rows([both]), X)
    mixed = parts.stack_rows([packed, other])
    assert mixed.dtype == np.float64 and np.array_equal(mixed, np.vstack([X, other]))
    assert np.array_equal(parts.unpack_rows([packed, other, packed]),
                          np.vstack([X, other, X]))
    # integers beyond a byte (here up to 300) stay doubles
    wide = np.arange(300 * 70, dtype=np.float64).reshape(300, 70) % 301
    assert parts.pack_rows(wide) is wide


def test_partition_tasks_run_where_the_partition_lives(client):
    from libsmo.dask import _training as training
    X, y = load_fashion_mnist("train", n_rows=2000)
    data = training.load_partitions(client, da.from_array(X, chunks=(500, 784)),
                                    da.from_array(y, chunks=500))
    assert None not in data.holders and len(set(data.holders)) == 2

    def where(part):
        return distributed.get_worker().address
    # forty small tasks on four partitions: Dask alone spreads such a group over the
    # workers without regard to where the partitions are
    futures = [f for _ in range(10) for f in data.each(client, where)]
    assert client.gather(futures) == data.holders * 10


def test_pairs_are_run_costliest_first_with_results_in_order(client):
    from libsmo.dask import _training as training
    X, y = load_fashion_mnist("train", n_rows=3000)
    data = training.load_partitions(client, [X[:1000], X[1000:2000], X[2000:]], y)
    pairs = [(a, b) for a in range(10) for b in range(a + 1, 10)]
    costs = training.pair_costs(client, data, pairs)
    # close classes cost more than far ones: T-shirt/shirt (0, 6) and pullover/coat
    # (2, 4) against trousers/sneaker (1, 7) and trousers/bag (1, 8)
    rank = {pair: r for r, pair in enumerate(sorted(pairs, key=lambda p: -costs[pairs.index(p)]))}
    assert max(rank[0, 6], rank[2, 4]) < min(rank[1, 7], rank[1, 8])
    tasks = [(cost, np.square, (float(i),)) for i, cost in enumerate(costs)]
    assert training.run_costliest_first(client, tasks) == [float(i) ** 2 for i in
                                                          range(len(pairs))]


def test_predict_a_dataframe(client):
    X, y = load_dataset("heart_scale", dense=True)
    clf = libsmo.dask.SVC(C=1.0, gamma=0.1).fit(_partitions(X, 2), y)
    frame = dd.from_pandas(pd.DataFrame(X), npartitions=3)
    predicted = clf.predict(frame).compute()
    assert np.array_equal(predicted.to_numpy(), clf.predict(X))


def test_gamma_scale_and_class_weight(client):
    X, y = load_dataset("heart_scale", dense=True)
    single = libsmo.SVC(C=1.0, class_weight="balanced").fit(X, y)
    dist = libsmo.dask.SVC(C=1.0, class_weight="balanced").fit(_partitions(X, 3), y)
    assert np.isclose(dist._gamma, single._gamma, rtol=1e-12)
    assert np.allclose(dist.class_weight_, single.class_weight_)
    assert np.mean(dist.predict(X) == single.predict(X)) >= 0.999


def test_joblib_dask_backend_spreads_pairs_and_folds(client):
    import joblib
    X, y = load_dataset("letter.scale", n_rows=1200)
    serial = libsmo.train(X, y, C=10, gamma=1)
    cv_serial = libsmo.cross_validation(X, y, 4, random_state=1, C=10, gamma=1)
    with joblib.parallel_config(backend="dask"):
        parallel = libsmo.train(X, y, C=10, gamma=1)
        cv_parallel = libsmo.cross_validation(X, y, 4, random_state=1, C=10, gamma=1)
    assert np.array_equal(serial.sv_coef, parallel.sv_coef)
    assert np.array_equal(serial.rho, parallel.rho)
    assert np.array_equal(cv_serial["predictions"], cv_parallel["predictions"])


def _load_or_die(path, marker):
    """A partition loader whose first call ends its worker's process."""
    import libsmo.io
    if not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    X, y = libsmo.io.load_svmlight_file(path, n_features=13)
    return X.toarray()


def test_a_lost_worker_is_retried_without_changing_the_model(client, tmp_path):
    import dask
    from helpers.data import data_file
    path = str(data_file("heart_scale"))
    X, y = load_dataset("heart_scale", dense=True)
    loaded = [da.from_delayed(dask.delayed(_load_or_die)(path, str(tmp_path / "died")),
                              shape=X.shape, dtype=float)]
    parts = da.concatenate(loaded)
    dist = libsmo.dask.SVC(C=1.0, gamma=0.1, cascade_rows=0).fit(parts, y)
    assert (tmp_path / "died").exists()
    again = libsmo.dask.SVC(C=1.0, gamma=0.1, cascade_rows=0).fit(_partitions(X, 1), y)
    assert np.array_equal(dist.dual_coef_, again.dual_coef_)


def test_errors(client):
    X, y = load_dataset("heart_scale", dense=True)
    with pytest.raises(ValueError, match="probability"):
        libsmo.dask.SVC(probability=True).fit(_partitions(X, 2), y)
    with pytest.raises(TypeError, match="sequence of partitions"):
        libsmo.dask.SVC().fit(X, y)
    with pytest.raises(ValueError, match="different widths"):
        libsmo.dask.SVC().fit([X[:100], X[100:, :5]], y)
    with pytest.raises(ValueError, match="partition 1"):
        bad = X[100:].copy()
        bad[0, 0] = np.nan
        libsmo.dask.SVC().fit([X[:100], bad], y)


def test_importing_libsmo_does_not_import_dask():
    code = ("import sys, numpy as np, libsmo; libsmo.train(np.eye(4), [0, 1, 0, 1], "
            "n_jobs=2); assert 'dask' not in sys.modules and 'distributed' not in "
            "sys.modules, sorted(m for m in sys.modules if 'dask' in m)")
    # the libsmo these tests import (installed, or a built checkout on PYTHONPATH): a
    # clean checkout holds no compiled extensions
    package_root = str(Path(libsmo.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=package_root)
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd="/")


@pytest.mark.slow
def test_full_a9a_cascade(client):
    X, y = load_dataset("a9a")
    X_test, _ = load_dataset("a9a.t", n_features=X.shape[1])
    single = libsmo.SVC(C=1.0, gamma=0.05).fit(X, y)
    dist = libsmo.dask.SVC(C=1.0, gamma=0.05, cascade_rows=0).fit(_partitions(X, 4), y)
    _assert_same_optimum(dist, single, X_test)


@pytest.mark.slow
def test_full_fashion_mnist_ten_classes(client):
    X, y = load_fashion_mnist("train")
    X_test, _ = load_fashion_mnist("t10k")
    gamma = 1.0 / (784 * X.var())
    single = libsmo.SVC(C=10, gamma=gamma).fit(X, y)
    dist = libsmo.dask.SVC(C=10, gamma=gamma).fit(da.from_array(X, chunks=(15000, 784)),
                                                  da.from_array(y, chunks=15000))
    _assert_same_optimum(dist, single, X_test)
