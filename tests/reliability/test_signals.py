"""Ctrl-C within a second in every phase of a fit and of a prediction, and interrupted
fits free what they held.

Each test installs the SIGINT handler it depends on (Python's KeyboardInterrupt) in
the process it signals, instead of inheriting a disposition: run from a background job
of a non-interactive shell, SIGINT is ignored, and a test that relied on it would not
see its KeyboardInterrupt.
"""
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import libsmo
from helpers.data import load_dataset, load_fashion_mnist
from helpers.processes import process_cpu_seconds, wait_until

TESTS = Path(__file__).resolve().parents[1]   # tests/, where the helpers package is

pytestmark = pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                                reason="signals reach the main thread only")


@pytest.fixture
def keyboard_interrupt():
    """Python's own SIGINT handler for the test, the previous disposition after it."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def interrupt_after(seconds, action):
    """Run action() with SIGINT sent to this process after `seconds`; returns the CPU
    seconds the process spent between the signal and KeyboardInterrupt's arrival
    (fails if it never came): the work done after the signal, whatever the load of
    the machine."""
    sent = []

    def fire():
        sent.append(process_cpu_seconds())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(seconds, fire)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            action()
        caught = process_cpu_seconds()
    finally:
        timer.cancel()
        timer.join()
    assert sent, "the action ended before the signal"
    return caught - sent[0]


def interrupt_when(event, action, delay=0.1):
    """`interrupt_after` with the signal sent `delay` seconds after `event` is set (by
    the action's callback, at the stage a test aims at); the CPU seconds between the
    signal and KeyboardInterrupt's arrival."""
    sent = []

    def fire():
        if event.wait(600) and not stopped.is_set():
            time.sleep(delay)
            sent.append(process_cpu_seconds())
            os.kill(os.getpid(), signal.SIGINT)

    stopped = threading.Event()
    thread = threading.Thread(target=fire)
    thread.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            action()
        caught = process_cpu_seconds()
    finally:
        stopped.set()
        event.set()
        thread.join()
    assert sent, "the action ended before the signal"
    return caught - sent[0]


def blobs(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)


# ---- every phase --------------------------------------------------------------------

def test_ctrl_c_during_a_one_class_start(keyboard_interrupt):
    """One-class starts with nu * l alphas at their bound: its gradient's
    initialisation computes 6,000 kernel rows of 12,000 x 200 before the first step
    (before: no poll there at all, 106 s on 25,000 x 200)."""
    X, _ = blobs(12_000, 200)
    delay = interrupt_after(0.3, lambda: libsmo.train(
        X, svm_type="one_class", nu=0.5, gamma=0.005, tol=1e-12))
    assert delay < 1.0


def test_ctrl_c_during_a_nu_svc_start(keyboard_interrupt):
    X, y = blobs(12_000, 200, seed=1)
    delay = interrupt_after(0.3, lambda: libsmo.train(
        X, y, svm_type="nu_svc", nu=0.6, gamma=0.005, tol=1e-12))
    assert delay < 1.0


@pytest.mark.parametrize("selection", ["second_order", "platt"])
def test_ctrl_c_during_steps_on_long_rows(keyboard_interrupt, selection):
    """Rows of 20,000 x 500 dense features: each step computes two rows of 10^7
    multiply-adds, so the clock is read by time, not every 32 steps."""
    X, y = blobs(20_000, 500, seed=2)
    delay = interrupt_after(0.5, lambda: libsmo.train(X, y, gamma=0.002, tol=1e-12,
                                                      selection=selection))
    assert delay < 1.0


def test_ctrl_c_during_the_primal_linear_solver(keyboard_interrupt):
    X, y = load_dataset("a9a")
    delay = interrupt_after(0.3, lambda: libsmo.train(X, y, kernel="linear", C=100.0,
                                                      tol=1e-12, linear_solver="primal"))
    assert delay < 1.0


class Terminated(Exception):
    """What a handler of the test's raises."""


@pytest.mark.parametrize("handler_raises", [KeyboardInterrupt, Terminated])
def test_coordinate_descent_in_the_main_thread_raises_the_handlers_exception(
        handler_raises):
    """The coordinate descents called from the main thread (the linear C-SVC's start
    calls them there) stop on a signal and raise what its handler raised: Ctrl-C's
    KeyboardInterrupt, or the commands' own exception for SIGTERM."""
    from libsmo._core.linear_cd import svc_dual
    from libsmo._core.linear_rows import LinearRows
    X, y = load_dataset("a9a")
    n = X.shape[0]
    rows = LinearRows(X, bias=1.0)

    def handler(signum, frame):
        raise handler_raises()

    previous = signal.signal(signal.SIGINT, handler)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(handler_raises):
            # (5,000 epochs: seconds, so that without the signal it ends, and fails)
            svc_dual(rows, np.arange(n), y, np.full(n, 100.0), tol=1e-12, max_iter=5000)
    finally:
        timer.cancel()
        timer.join()
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_during_a_regression_fit(keyboard_interrupt):
    X, y = blobs(12_000, 200, seed=3)
    delay = interrupt_after(0.3, lambda: libsmo.train(
        X, y * 1.0 + X[:, 1], svm_type="nu_svr", nu=0.5, C=10.0, gamma=0.005, tol=1e-12))
    assert delay < 1.0


def test_ctrl_c_during_parallel_pairs_stops_every_thread(keyboard_interrupt):
    X, y = load_dataset("letter.scale")
    # threads other tests left (joblib's and Dask's pools) are not the solver's
    before = set(threading.enumerate())
    # 0.05 s into 325 pairs that take seconds at C=100, gamma=8, tol=1e-12 (C=10 and
    # gamma=1 took a third of a second: a faster machine could finish first)
    delay = interrupt_after(0.05, lambda: libsmo.train(X, y, C=100.0, gamma=8.0,
                                                       tol=1e-12, n_threads=2))
    assert delay < 1.0
    # no solver thread is left running (each ends once it sees the interrupt)
    assert wait_until(lambda: set(threading.enumerate()) <= before), (
        set(threading.enumerate()) - before)


def test_ctrl_c_during_a_large_prediction(keyboard_interrupt):
    """Prediction goes block by block (16 MB of kernel values each): the signal is
    delivered between two blocks."""
    X, y = blobs(2_000, 50, seed=4)
    model = libsmo.train(X, y, gamma=0.02, C=10.0)
    big = np.random.default_rng(5).normal(size=(400_000, 50))
    delay = interrupt_after(0.3, lambda: [model.decision_function(big) for _ in range(50)])
    assert delay < 1.0


# ---- interrupted fits free what they held ------------------------------------------------

def test_200_interrupted_fits_do_not_grow_memory():
    """Each fit is interrupted by a real SIGINT while it fills a 20 MB kernel cache.
    Resident memory is read after returning freed heap to the system (malloc_trim),
    so that what the allocator keeps for reuse is not mistaken for a leak (before,
    300 interrupted fits seemed to grow it by 4 MB)."""
    script = textwrap.dedent(f"""
        import ctypes, gc, os, signal, sys, threading
        sys.path.insert(0, {str(TESTS)!r})
        import libsmo
        from helpers.data import load_dataset
        signal.signal(signal.SIGINT, signal.default_int_handler)
        trim = ctypes.CDLL("libc.so.6").malloc_trim
        def rss():
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        X, y = load_dataset("a9a", n_rows=4000)
        def interrupted_fit():
            timer = threading.Timer(0.01, lambda: os.kill(os.getpid(), signal.SIGINT))
            try:
                # on a busy machine the signal may come while start() still waits
                timer.start()
                libsmo.train(X, y, gamma=0.05, tol=1e-12, cache_size=20)
                timer.join()
            except KeyboardInterrupt:
                timer.join()
        for _ in range(20):
            interrupted_fit()
        gc.collect(); trim(0)
        before = rss()
        for _ in range(200):
            interrupted_fit()
        gc.collect(); trim(0)
        print((rss() - before) / 2**20)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=600, cwd=tempfile.gettempdir(),
                         env=dict(os.environ, OMP_NUM_THREADS="1"),
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert out.returncode == 0, out.stderr
    grown = float(out.stdout.strip().splitlines()[-1])
    assert grown < 2.0, grown


# ---- the partitioned solver -----------------------------------------------------------

@pytest.mark.slow   # all 60,000 Fashion-MNIST images: the repository keeps 3,000
@pytest.mark.parametrize("stage", ["leaves", "rounds"])
def test_ctrl_c_during_a_partitioned_fit_stops_every_thread(keyboard_interrupt, stage):
    """Ctrl-C while the partitions' solvers run on two threads (the leaves: two of
    30,000 Fashion-MNIST images), or after the first round's check, while the next
    working set is solved and the partitions scored: KeyboardInterrupt within a CPU
    second, no thread of the fit left."""
    X, labels = load_fashion_mnist(n_rows=60_000)
    X, y = np.rint(X * 255).astype(np.uint8), np.isin(labels, (5, 7, 9)).astype(int)
    before = set(threading.enumerate())
    reached = threading.Event()

    def callback(info):
        if stage == "leaves" and info["stage"] == "tree" and "done" not in info:
            reached.set()   # a leaf's solver is stepping
        if stage == "rounds" and info["stage"] == "round" and "done" in info:
            reached.set()   # the first round's check is done: the next is under way

    delay = interrupt_when(reached, lambda: libsmo.train(
        X, y, gamma=1.6e-7, C=10.0, tol=1e-5 if stage == "rounds" else 1e-3,
        solver="partitioned", partitions=2, n_threads=2, callback=callback,
        callback_every=200), delay=0.05)
    assert delay < 1.0
    assert wait_until(lambda: set(threading.enumerate()) <= before), "threads left"


def test_ctrl_c_while_a_large_problem_is_partitioned(keyboard_interrupt, caplog):
    """k-means and the assignment of 1,000,000 rows of 200 bytes to 32 centres (some
    13 GFLOP), in the main thread, chunk by chunk: the signal arrives between two
    chunks."""
    rng = np.random.default_rng(7)
    X = rng.integers(0, 256, size=(1_000_000, 200), dtype=np.uint8)
    y = np.where(X[:, 0] > 127, 1, -1)
    before = set(threading.enumerate())
    with caplog.at_level("INFO", logger="libsmo"):
        delay = interrupt_after(0.5, lambda: libsmo.train(
            X, y, gamma=1e-5, solver="partitioned", partitions=32, partitioning="kmeans",
            n_threads=2))
    assert delay < 1.0
    # interrupted before the partitions were made (the validation or the k-means)
    assert "partitions on" not in caplog.text
    assert wait_until(lambda: set(threading.enumerate()) <= before), "threads left"
