"""n_jobs: one-vs-one pairs and cross-validation folds as joblib tasks give the same
models as n_jobs=1, bit for bit, on any backend (threads, loky processes; the Dask
backend is in test_dask.py), with one BLAS/OpenMP thread per task."""
import joblib
import numpy as np
import pytest

import libsmo
from helpers.data import load_dataset
from helpers.peers import libsvm_predict, libsvm_train
from libsmo._utils import parallel as _parallel


@pytest.fixture(scope="module", autouse=True)
def no_process_pool_left():
    """joblib's loky backend keeps its worker processes (and two threads) for reuse:
    shut them down after this module."""
    yield
    from joblib.externals.loky import get_reusable_executor
    get_reusable_executor().shutdown(wait=True)


@pytest.fixture(scope="module")
def letter():
    return load_dataset("letter.scale", n_rows=1500)


def _same_model(a, b):
    assert np.array_equal(a.support, b.support)
    assert np.array_equal(a.sv_coef, b.sv_coef)
    assert np.array_equal(a.rho, b.rho)
    assert a.n_iter == b.n_iter
    for name in ("probA", "probB"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None and y is None) or np.array_equal(x, y)


def test_pairs_as_threads_equal_serial_and_libsvm(letter):
    X, y = letter
    serial = libsmo.train(X, y, C=10, gamma=1, n_jobs=1)
    parallel = libsmo.train(X, y, C=10, gamma=1, n_jobs=2)
    _same_model(serial, parallel)
    peer = libsvm_train(X, y, C=10, gamma=1)
    assert np.mean(parallel.predict(X) == libsvm_predict(peer, X)) == 1.0


def test_pairs_on_processes_equal_serial_with_probability(letter):
    X, y = letter
    X, y = X[:600], y[:600]
    serial = libsmo.train(X, y, C=10, gamma=1, probability=True, random_state=3)
    with joblib.parallel_config(backend="loky", n_jobs=2):
        parallel = libsmo.train(X, y, C=10, gamma=1, probability=True, random_state=3)
    _same_model(serial, parallel)


def test_linear_pairs_keep_the_serial_choice_of_solver():
    """Each task has a share of the cache, but the primal/kernel choice is the whole
    fit's: the same coefficients as one pair after another."""
    X, y = load_dataset("letter.scale", n_rows=3000)
    serial = libsmo.train(X, y, kernel="linear", C=1, cache_size=0.5)
    parallel = libsmo.train(X, y, kernel="linear", C=1, cache_size=0.5, n_jobs=2)
    _same_model(serial, parallel)


def test_precomputed_pairs(letter):
    X, y = letter
    X = X[:400].toarray()
    y = y[:400]
    K = X @ X.T
    serial = libsmo.train(K, y, kernel="precomputed", C=1)
    parallel = libsmo.train(K, y, kernel="precomputed", C=1, n_jobs=2)
    _same_model(serial, parallel)


def test_cross_validation_folds_as_tasks(letter):
    X, y = letter
    serial = libsmo.cross_validation(X, y, 5, random_state=0, C=10, gamma=1,
                                     probability=True)
    threads = libsmo.cross_validation(X, y, 5, random_state=0, C=10, gamma=1,
                                      probability=True, n_jobs=2)
    with joblib.parallel_config(backend="loky", n_jobs=2):
        processes = libsmo.cross_validation(X, y, 5, random_state=0, C=10, gamma=1,
                                            probability=True)
    assert np.array_equal(serial["predictions"], threads["predictions"])
    assert np.array_equal(serial["predictions"], processes["predictions"])
    assert serial["accuracy"] > 80


def test_estimators_take_n_jobs(letter):
    X, y = letter
    a = libsmo.SVC(C=10, gamma=1).fit(X, y)
    b = libsmo.SVC(C=10, gamma=1, n_jobs=2).fit(X, y)
    # after a sparse fit dual_coef_ is CSR, as scikit-learn's
    assert np.array_equal(a.dual_coef_.toarray(), b.dual_coef_.toarray())
    assert np.array_equal(a.intercept_, b.intercept_)
    c = libsmo.NuSVC(nu=0.05, gamma=1, n_jobs=-1).fit(X, y)
    d = libsmo.NuSVC(nu=0.05, gamma=1).fit(X, y)
    assert np.array_equal(c.dual_coef_.toarray(), d.dual_coef_.toarray())


def _blas_threads(_):
    from threadpoolctl import threadpool_info
    return max([p["num_threads"] for p in threadpool_info()
                if p["user_api"] == "blas"] or [1])


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_one_thread_per_task(backend):
    with joblib.parallel_config(backend=backend):
        counts = _parallel.map_tasks(_blas_threads, range(4), 2)
    assert counts == [1, 1, 1, 1]


def test_effective_n_jobs():
    from libsmo._utils.constraints import usable_cores
    cores = usable_cores()
    assert _parallel.effective_n_jobs(1) == 1
    assert _parallel.effective_n_jobs(None) == 1
    assert _parallel.effective_n_jobs(3) == min(3, cores)
    with joblib.parallel_config(n_jobs=3):
        assert _parallel.effective_n_jobs(None) == min(3, cores)
    # this machine's threads and processes: no more than its cores (100,000 would
    # start 100,000 threads)
    assert _parallel.effective_n_jobs(100_000) == cores
    with joblib.parallel_config(backend="loky"):
        assert _parallel.effective_n_jobs(2**31 - 1) == cores


def test_a_huge_n_jobs_trains_on_the_cores_there_are(letter):
    X, y = letter
    X, y = X[:1500], y[:1500]
    a = libsmo.train(X, y, C=10.0, gamma=1.0, n_jobs=100_000)
    b = libsmo.train(X, y, C=10.0, gamma=1.0)
    assert np.array_equal(a.sv_coef, b.sv_coef) and np.array_equal(a.rho, b.rho)


def test_an_error_in_one_task_reaches_the_caller(letter):
    X, y = letter

    def callback(info):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        libsmo.train(X, y, C=10, gamma=1, n_jobs=2, callback=callback, callback_every=1)


@pytest.mark.parametrize("value, error", [(0, ValueError), (1.5, TypeError),
                                          (True, TypeError)])
def test_n_jobs_is_checked(letter, value, error):
    X, y = letter
    with pytest.raises(error, match="n_jobs"):
        libsmo.train(X[:50], y[:50], n_jobs=value)
