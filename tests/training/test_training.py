"""Training control: status, max_iter, the callback, Ctrl-C, verbose output."""
import gc
import logging
import os
import pickle
import signal
import threading

import numpy as np
import pytest

import libsmo
from helpers.data import load_dataset
from helpers.processes import process_cpu_seconds, wait_until
from libsmo.training import _execution as execution


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_status_optimal_and_objective(heart_scale):
    X, y = heart_scale
    model = libsmo.train(X, y)
    assert model.status == ["optimal"]
    assert model.n_iter[0] > 0
    assert model.objective[0] < 0
    assert model.n_support.sum() == model.n_sv == len(model.support)


def test_max_iter_stops_with_a_usable_model(heart_scale):
    X, y = heart_scale
    with pytest.warns(libsmo.ConvergenceWarning, match="max_iter of 10 steps reached"):
        model = libsmo.train(X, y, max_iter=10)
    assert model.status == ["max_iter"]
    assert model.n_iter == [10]
    full = libsmo.train(X, y)
    assert model.objective[0] > full.objective[0]
    assert np.isfinite(model.decision_function(X)).all()
    assert set(np.unique(model.predict(X))) <= {1.0, -1.0}


def test_callback_sees_progress_and_can_stop():
    X, y = load_dataset("a9a", n_rows=5000)
    seen = []

    def callback(info):
        seen.append(info)
        return len(seen) < 3

    with pytest.warns(libsmo.ConvergenceWarning, match="stopped"):
        model = libsmo.train(X, y, gamma=0.05, callback=callback, callback_every=100)
    assert model.status == ["stopped"]
    assert len(seen) == 3
    assert [s["n_iter"] for s in seen] == sorted(s["n_iter"] for s in seen)
    assert seen[-1]["objective"] < seen[0]["objective"] < 0
    assert all(s["violation"] > 0 for s in seen)
    assert np.isfinite(model.decision_function(X[:10])).all()


def test_callback_exception_reaches_the_caller(heart_scale):
    X, y = heart_scale

    def callback(info):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        libsmo.train(X, y, tol=1e-9, callback=callback, callback_every=1)


def test_verbose_goes_through_logging(heart_scale, caplog):
    X, y = heart_scale
    with caplog.at_level(logging.INFO, logger="libsmo"):
        model = libsmo.train(X, y, verbose=True)
    text = caplog.text
    assert f"optimization finished, #iter = {model.n_iter[0]}" in text
    assert "nSV = %d" % model.n_sv in text
    assert "obj = " in text and "rho = " in text


def test_quiet_by_default(heart_scale, caplog):
    X, y = heart_scale
    with caplog.at_level(logging.DEBUG, logger="libsmo"):
        libsmo.train(X, y)
    assert caplog.text == ""


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="signals reach the main thread only")
def test_ctrl_c_interrupts_within_a_second_and_frees_the_cache(keyboard_interrupt):
    """SIGINT during a long fit raises KeyboardInterrupt promptly; repeated interrupted
    fits do not keep their kernel caches."""
    X, y = load_dataset("a9a")
    libsmo.train(X[:200], y[:200])  # warm up imports and allocations
    gc.collect()
    before = rss_bytes()
    for _ in range(4):
        sent = []

        def interrupt(progress):
            # from the solver's progress report after 6,000 steps: the fit has filled
            # its cache and is still running, however fast this machine is (a timer
            # of 0.7 s raced the whole fit, 0.78 s at tol=1e-12 on a quiet core)
            if progress["n_iter"] >= 6000 and not sent:
                sent.append(process_cpu_seconds())
                os.kill(os.getpid(), signal.SIGINT)

        with pytest.raises(KeyboardInterrupt):
            libsmo.train(X, y, gamma=0.05, tol=1e-12, cache_size=100, n_threads=1,
                         callback=interrupt)
        caught = process_cpu_seconds()
        # CPU seconds after the signal: the work done, whatever the machine's load
        assert sent and caught - sent[0] < 1.0
    gc.collect()
    # each fit fills tens of MB of cache in 6,000 steps; four leaked caches would show
    assert rss_bytes() - before < 60 * 2**20


@pytest.fixture
def keyboard_interrupt():
    """Python's own SIGINT handler for the test (not whatever disposition the test run
    inherited: a background job of a non-interactive shell ignores SIGINT)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_time_limit_stops_with_a_usable_model():
    X, y = load_dataset("a9a", n_rows=12000)
    start = process_cpu_seconds()
    with pytest.warns(libsmo.ConvergenceWarning, match="time_limit"):
        # C=30: seconds of work, so that 0.3 s stops it on any machine (a9a's rows are
        # counted on bitmaps, and C=1 ends in about a second)
        model = libsmo.train(X, y, gamma=0.05, C=30.0, tol=1e-9, time_limit=0.3)
    # CPU, not wall, seconds: a loaded machine stretches the wall time of the work
    # after the limit, not the work itself (and the limit bounds CPU from above)
    assert process_cpu_seconds() - start < 1.5
    assert model.status == ["time_limit"]
    assert 0 < model.n_iter[0]
    # how far 0.3 s gets depends on the machine: the model must be valid, not good
    assert np.isfinite(model.decision_function(X[:2000])).all()
    assert set(np.unique(model.predict(X[:2000]))) <= {1.0, -1.0}


def test_time_limit_is_shared_by_the_pairs_of_a_multiclass_fit():
    # C=100, gamma=8: seconds of pairs, so that 0.1 s stops them on a fast machine too
    X, y = load_dataset("letter.scale")
    start = process_cpu_seconds()
    with pytest.warns(libsmo.ConvergenceWarning):
        model = libsmo.train(X, y, C=100.0, gamma=8.0, tol=1e-9, time_limit=0.1)
    assert process_cpu_seconds() - start < 3.0
    assert "time_limit" in model.status
    with pytest.raises(ValueError, match="time_limit must be finite and > 0"):
        libsmo.train(X, y, time_limit=0)


@pytest.mark.parametrize("cache_size", [100.0, 0.17])
def test_parallel_pairs_give_the_same_model(cache_size):
    X, y = load_dataset("pendigits", n_rows=1500)
    if cache_size < 1:
        # pairs of 280-320 rows: some take more than ALONE_MIN_SHARES halves of this
        # cache and run alone on both threads, the others two at once
        counts = np.unique(y, return_counts=True)[1]
        shares = {execution.cache_megabytes(np.inf, counts[a] + counts[b])
                  > execution.ALONE_MIN_SHARES * cache_size / 2
                  for a in range(len(counts)) for b in range(a)}
        assert shares == {True, False}
    one = libsmo.train(X, y, gamma=1e-4, C=10.0, n_threads=1, probability=True,
                       random_state=3, cache_size=cache_size)
    two = libsmo.train(X, y, gamma=1e-4, C=10.0, n_threads=2, probability=True,
                       random_state=3, cache_size=cache_size)
    np.testing.assert_array_equal(one.support, two.support)
    np.testing.assert_array_equal(one.sv_coef, two.sv_coef)
    np.testing.assert_array_equal(one.rho, two.rho)
    np.testing.assert_array_equal(one.probA, two.probA)
    assert one.n_iter == two.n_iter and one.objective == two.objective


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="signals reach the main thread only")
def test_ctrl_c_stops_parallel_pairs(keyboard_interrupt):
    X, y = load_dataset("letter.scale")
    # threads other tests left (joblib's loky manager, Dask's offload pool) are not ours
    before = set(threading.enumerate())
    sent = []

    def interrupt_once(progress):
        # from a pair's progress report, so that the signal comes while the pairs run
        # however fast this machine is (a timer of 0.3 s raced the whole fit: letter
        # at tol=1e-12 takes 0.32 s on two quiet cores)
        if not sent:
            sent.append(process_cpu_seconds())
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        libsmo.train(X, y, C=10.0, gamma=1.0, tol=1e-12, n_threads=2,
                     callback=interrupt_once)
    assert sent
    # CPU seconds of both solver threads after the signal: the stop, not the fit
    assert process_cpu_seconds() - sent[0] < 1.0
    # no solver thread is left running (each ends once it sees the interrupt)
    assert wait_until(lambda: set(threading.enumerate()) <= before), (
        set(threading.enumerate()) - before)


def test_kernel_evaluations_are_training_s_kernel_work(tmp_path, heart_scale):
    """Each binary problem reports the kernel values it computed: at most the whole
    matrix and its diagonal with a cache that holds it, more with a cache of two rows
    (rows evicted and computed again), none for the primal solver, and nothing for a
    model read from a file."""
    X, y = heart_scale
    n = X.shape[0]
    large = libsmo.train(X, y, gamma=0.1, cache_size=100)
    tiny = libsmo.train(X, y, gamma=0.1, cache_size=1e-6)
    assert large.n_iter == tiny.n_iter
    assert n < large.kernel_evaluations[0] <= n + n * n
    assert tiny.kernel_evaluations[0] > large.kernel_evaluations[0]
    # three classes: one count per pair, in the pairs' order
    y3 = np.where(np.arange(n) % 3 == 0, 2.0, y)
    three = libsmo.train(X, y3, gamma=0.1)
    assert len(three.kernel_evaluations) == 3
    assert all(count > 0 for count in three.kernel_evaluations)
    assert three.replace(rho=three.rho).kernel_evaluations == three.kernel_evaluations
    primal = libsmo.train(X, y, kernel="linear", linear_solver="primal")
    assert primal.kernel_evaluations == [0]
    rows = libsmo.train(X, y, kernel="linear", linear_solver="kernel")
    assert rows.kernel_evaluations[0] > n
    libsmo.save_model(large, tmp_path / "heart.model")
    assert libsmo.load_model(tmp_path / "heart.model").kernel_evaluations == []


def test_a_model_pickled_before_kernel_evaluations_still_works(heart_scale):
    X, y = heart_scale
    model = libsmo.train(X, y, gamma=0.1)
    state = dict(model.__dict__)
    del state["kernel_evaluations"]
    old = libsmo.Model.__new__(libsmo.Model)
    old.__dict__.update(state)
    restored = pickle.loads(pickle.dumps(old))
    assert restored.kernel_evaluations == ()
    np.testing.assert_array_equal(restored.predict(X), model.predict(X))
    assert restored.replace(rho=model.rho).kernel_evaluations == []


def _field_forms(model):
    """Each field's type, dtype, shape and contiguity, and its values."""
    import scipy.sparse as sp
    forms = {}
    for name in libsmo.Model._FIELDS:
        value = getattr(model, name)
        if isinstance(value, np.ndarray):
            forms[name] = ("array", value.dtype.str, value.shape, value.flags.c_contiguous,
                           value.tobytes())
        elif sp.issparse(value):
            forms[name] = ("csr", value.format, value.indices.dtype.str,
                           value.indptr.dtype.str, value.toarray().tobytes())
        else:
            forms[name] = (type(value).__name__, repr(value))
    return forms


@pytest.mark.parametrize("options", [
    dict(), dict(svm_type="nu_svc"), dict(svm_type="one_class"),
    dict(svm_type="epsilon_svr"), dict(svm_type="nu_svr", probability=True),
    dict(probability=True), dict(sparse=True), dict(kernel="precomputed"),
    dict(kernel="linear", linear_solver="primal"), dict(bytes=True),
    dict(kernel="poly", degree=np.int64(2), gamma=np.float64(0.3)),
    dict(class_weight={0: 2.0}), dict(solver="partitioned")])
def test_a_trained_model_holds_its_fields_in_their_checked_forms(options):
    """A Model made by training checks its fields before it first predicts, not when
    it is made (`Model._from_training`): they must already be what the check makes
    of them, so that reading them before and after is the same."""
    import scipy.sparse as sp
    from sklearn.datasets import load_iris
    X, y = load_iris(return_X_y=True)
    options = dict(options, random_state=0) if options.get("probability") else options
    if options.pop("sparse", False):
        X = sp.csr_matrix(X)
    if options.pop("bytes", False):
        X = (X * 10).astype(np.uint8)
    if options.get("kernel") == "precomputed":
        X = X @ X.T
    if options.get("svm_type") in ("epsilon_svr", "nu_svr"):
        y = np.arange(len(y)) % 7 * 0.5
    model = libsmo.train(X, y, **options)
    assert not model._checked
    before = _field_forms(model)
    model.check_fields()
    assert model._checked and _field_forms(model) == before


@pytest.mark.parametrize("gather_entries", [1, 7, 60, 1 << 22])
def test_one_vs_one_layout_is_the_same_gathered_in_any_number_of_steps(
        monkeypatch, gather_entries):
    """`one_vs_one_result` gathers as many classes at once as GATHER_ENTRIES allows (a
    class at a time at least): the support vectors, counts and sv_coef are LIBSVM's
    layout, class by class (class c's coefficient of pair (c, j) on row j - 1, of pair
    (i, c) on row i), whatever the step."""
    from libsmo.training import _pairs
    from libsmo.training._pair_results import PairResults, pair_indices
    from libsmo.training._problem import BinaryFit
    monkeypatch.setattr(_pairs, "GATHER_ENTRIES", gather_entries)
    rng = np.random.default_rng(11)
    for _ in range(20):
        k = int(rng.integers(2, 8))
        counts = rng.integers(1, 9, size=k)
        order = rng.permutation(int(counts.sum()))
        members = np.split(order, np.cumsum(counts)[:-1])
        first, second = pair_indices(k)
        results = PairResults(counts[first] + counts[second])
        coefs = {}
        for p, (a, b) in enumerate(zip(first.tolist(), second.tolist())):
            coef = rng.normal(size=counts[a] + counts[b]) * (rng.random(
                counts[a] + counts[b]) < 0.4)
            coefs[a, b] = coef
            results.store(p, BinaryFit(coef=coef, rho=0.0, objective=0.0, n_iter=1,
                                       status="optimal"))
        result = _pairs.one_vs_one_result(np.arange(k), members, results)
        # the layout written out class by class, pair by pair
        columns, rows, n_support = [], [], []
        for c in range(k):
            block = np.zeros((k - 1, counts[c]))
            for j in range(k):
                if j < c:
                    block[j] = coefs[j, c][counts[j]:]
                elif j > c:
                    block[j - 1] = coefs[c, j][:counts[c]]
            support = np.any(block != 0, axis=0)
            columns.append(block[:, support])
            rows.append(members[c][support])
            n_support.append(int(support.sum()))
        assert np.array_equal(result.sv_coef, np.hstack(columns))
        assert np.array_equal(result.sv_rows, np.concatenate(rows))
        assert result.n_support.tolist() == n_support
        assert result.sv_coef.flags.c_contiguous
