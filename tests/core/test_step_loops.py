"""The solver's per-step passes shared among threads (libsmo/_core/step_loops.h).

On active sets of 8,192 variables or more, the worst violator, its partner, the gradient
and G_bar updates, the new Q rows' conversion and the row cache's exchanges run on the
kernel's threads. Each pass merges its ranges so that it gives what the one-thread pass
gives, ties included: a fit on two threads must be the fit on one, bit for bit, and
LIBSVM's optimum.
"""
import numpy as np
import pytest

import libsmo
from helpers.data import load_dataset
from helpers.peers import libsvm_train
from libsmo._core.cache import RowCache


def _same_fit(one, two):
    np.testing.assert_array_equal(one.support, two.support)
    np.testing.assert_array_equal(one.sv_coef, two.sv_coef)
    np.testing.assert_array_equal(one.rho, two.rho)
    np.testing.assert_array_equal(one.n_iter, two.n_iter)


@pytest.fixture(scope="module")
def a9a_rows():
    return load_dataset("a9a", n_rows=10000, n_features=123)


def test_two_threads_give_the_one_thread_fit_and_libsvm_optimum(a9a_rows):
    X, y = a9a_rows
    one = libsmo.train(X, y, C=1.0, gamma=0.05, n_threads=1)
    two = libsmo.train(X, y, C=1.0, gamma=0.05, n_threads=2)
    _same_fit(one, two)
    peer = libsvm_train(X, y, C=1.0, gamma=0.05)
    assert two.objective[0] == pytest.approx(peer.objectives[0], rel=1e-6)
    assert two.n_sv == peer.l


@pytest.mark.parametrize("svm_type, params, n_rows", [
    ("nu_svc", {"nu": 0.3}, 10000),          # two sign groups in every pass
    ("epsilon_svr", {"C": 1.0}, 5000),       # 2 l variables over l rows
    ("one_class", {"nu": 0.2}, 10000),
])
def test_the_other_formulations_on_two_threads(a9a_rows, svm_type, params, n_rows):
    X, y = a9a_rows
    X, y = X[:n_rows], y[:n_rows]
    one = libsmo.train(X, y, svm_type=svm_type, gamma=0.05, n_threads=1, **params)
    two = libsmo.train(X, y, svm_type=svm_type, gamma=0.05, n_threads=2, **params)
    _same_fit(one, two)


def test_ties_across_the_threads_ranges_go_where_one_thread_puts_them():
    # 9,000 rows that are copies of 30 points: gradients tie exactly all over the
    # active set, and the selection must take the last of the tied variables
    rng = np.random.default_rng(5)
    points = rng.normal(size=(30, 6))
    labels = np.where(points[:, 0] + 0.3 * rng.normal(size=30) > 0, 1.0, -1.0)
    which = rng.integers(30, size=9000)
    X, y = points[which], labels[which]
    one = libsmo.train(X, y, C=2.0, gamma=0.5, n_threads=1)
    two = libsmo.train(X, y, C=2.0, gamma=0.5, n_threads=2)
    _same_fit(one, two)
    assert one.n_iter[0] > 10


def test_row_cache_exchanges_on_two_threads_match_one():
    n = 300
    rng = np.random.default_rng(0)
    caches = [RowCache(n, 1e9, 1), RowCache(n, 1e9, 2)]
    fills = rng.random((n, n)).astype(np.float32)
    for cache in caches:
        for i in range(200):
            # some rows shorter than the exchanged entries: those are evicted
            cache.request(i, n if i % 7 else 150, fills[i])
    for i, j in rng.integers(n, size=(40, 2)):
        for cache in caches:
            cache.swap(int(i), int(j))
    for i in range(n):
        assert caches[0].cached(i) == caches[1].cached(i)
    assert any(caches[1].cached(i) for i in range(n))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n_swaps", [1, 60, 700])   # 700: more than the rows, flushed
def test_a_shrinking_pass_deferred_leaves_the_rows_the_exchanges_leave(threads, n_swaps):
    """RowCache.swap_pass (the exchanges of one shrinking pass kept and then made row by
    row, on the threads) ends with the same cached rows as the exchanges made one at a
    time: the same values, and the same rows evicted for holding only the lower entry
    of some exchange (rows of varied lengths, exchanges within the shrunk lengths and
    beyond them)."""
    n = 300
    rng = np.random.default_rng(n_swaps)
    fills = rng.random((n, n)).astype(np.float32)
    one_at_a_time, deferred = RowCache(n, 1e9, 1), RowCache(n, 1e9, threads)
    lengths = rng.choice([40, 150, 260, n], size=n)
    for cache in (one_at_a_time, deferred):
        for i in range(220):
            cache.request(i, int(lengths[i]), fills[i])
    pairs = [(int(i), int(j)) for i, j in rng.integers(n, size=(n_swaps, 2))]
    for i, j in pairs:
        one_at_a_time.swap(i, j)
    deferred.swap_pass(pairs)
    kept = [i for i in range(n) if one_at_a_time.cached(i)]
    assert kept
    if n_swaps > 1:
        assert len(kept) < 220   # some rows could not follow an exchange
    for i in range(n):
        assert deferred.cached(i) == one_at_a_time.cached(i)
    # the cache goes on as usual afterwards
    assert deferred.request(kept[0], n, fills[0]) == one_at_a_time.request(kept[0], n,
                                                                            fills[0])


def test_sleeping_threads_are_woken_only_for_long_passes():
    """Under OMP_WAIT_POLICY=passive the passes, exchanges and kernel rows stay on one
    thread unless very long (each parallel region would wake sleeping threads): the
    policy is read, a pass of 9,000 variables goes to one thread under it and to two
    otherwise, and a two-thread fit is the one-thread fit either way.

    Each policy runs in a fresh process whose OpenMP and BLAS variables are only those
    set here: none is inherited from the environment the tests run in."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    code = ("import sys, numpy as np, libsmo\n"
            "from libsmo._core.cache import openmp_pass_threads, openmp_threads_sleep\n"
            "print(openmp_threads_sleep(), openmp_pass_threads(9000, 2),"
            " openmp_pass_threads(1 << 20, 2))\n"
            # a problem the solver finishes (about 5,000 steps): the 0/1 rows this test
            # used before ran both libsmo and LIBSVM into their 10,000,000-step cap
            "rng = np.random.default_rng(0)\n"
            "X = rng.normal(size=(9000, 40))\n"
            "y = np.where(X[:, :5].sum(1) + rng.normal(size=9000) > 0.0, 1.0, -1.0)\n"
            "a, b = (libsmo.train(X, y, C=1.0, gamma=0.02, n_threads=t) for t in (1, 2))\n"
            "assert a.status == ['optimal'], a.status\n"
            "print(np.array_equal(a.sv_coef, b.sv_coef) and a.n_iter == b.n_iter)\n")
    root = str(Path(libsmo.__file__).resolve().parents[1])
    inherited = {name: value for name, value in os.environ.items()
                 if not name.startswith(("OMP_", "GOMP_", "KMP_", "OPENBLAS_", "MKL_",
                                         "BLIS_", "PYTHON"))}
    for policy, expected in (("passive", "True 1 2"), ("PASSIVE", "True 1 2"),
                             ("active", "False 2 2"), (None, "False 2 2")):
        env = dict(inherited, PYTHONPATH=root, OMP_NUM_THREADS="2",
                   OPENBLAS_NUM_THREADS="1")
        if policy is not None:
            env["OMP_WAIT_POLICY"] = policy
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd="/",
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == expected.split() + ["True"], (policy, out.stdout)


def test_the_governor_sends_a_preempted_run_to_one_thread_for_a_while():
    """thread_governor.h: a window of at least 0.1 s on the threads in which the process
    had less than 0.85 of a core's CPU time per thread (another process held a core)
    sends the run to one thread for two windows, then back to the threads; preempted
    again, for twice as long (up to 64 windows); a window on the threads at full CPU
    starts the count over. Shorter windows wait."""
    from libsmo._core.thread_governor import decisions

    def windows(shares, threads=2):
        # windows of 0.125 s (exact in binary: no window ends a rounding short), each
        # giving `share` of a core per thread (only windows on the threads are judged)
        out, now, cpu = [], 0.0, 0.0
        for share in shares:
            now += 0.125
            cpu += share * 0.125 * threads
            out.append((now, cpu))
        return out

    assert decisions(2, windows([1.0, 0.99, 0.97])) == [2, 2, 2]
    assert decisions(1, windows([0.3, 0.3], threads=1)) == [1, 1]
    # preempted: one thread for 2 windows, back, preempted: 4, back, full, preempted: 2
    shares = [0.6, 0.5, 0.5, 0.6, 0.5, 0.5, 0.5, 0.5, 1.0, 0.6, 0.5, 0.5]
    assert decisions(2, windows(shares)) == [1, 1, 2, 1, 1, 1, 1, 2, 2, 1, 1, 2]
    # a window not over yet (0.05 s) changes nothing
    assert decisions(2, [(0.05, 0.0), (0.1, 0.1)]) == [2, 1]
    # the backoff stops doubling at 64 windows
    counts = decisions(2, windows([0.6] * 400))
    assert max(len(run) for run in "".join(map(str, counts)).split("2")) == 64


def test_a_fit_beside_a_busy_process_is_the_fit_on_a_quiet_machine(a9a_rows):
    """Beside a process that keeps a core busy the governor may run steps on one thread:
    the fit is the same bits (thread counts never change a step)."""
    import multiprocessing
    X, y = a9a_rows
    quiet = libsmo.train(X, y, C=1.0, gamma=0.05, n_threads=2)
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(2)]
    for spinner in spinners:
        spinner.start()
    try:
        busy = libsmo.train(X, y, C=1.0, gamma=0.05, n_threads=2)
    finally:
        for spinner in spinners:
            spinner.terminate()
            spinner.join()
    _same_fit(quiet, busy)


def _spin():
    while True:
        pass
