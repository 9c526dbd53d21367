"""Reliability: awkward data gives a correct model or a clear error, threads are safe,
fit releases the GIL, memory stays within the cache budget and prediction blocks."""
import errno
import os
import resource
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
import scipy.sparse as sp

import libsmo
from helpers.data import data_file, load_dataset
from helpers.processes import process_cpu_seconds, wait_until

# ---- numbers at the edges ------------------------------------------------------------

@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly", "sigmoid"])
def test_values_whose_squares_overflow_are_rejected(kernel):
    X = np.array([[1e300, 0.0], [0.0, 1.0], [1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="X row 0 is too large for a kernel"):
        libsmo.train(X, [1, 1, -1, -1], kernel=kernel)


def test_predicting_rows_whose_squares_overflow_is_rejected(heart_scale):
    X, y = heart_scale
    model = libsmo.train(X, y)
    bad = np.zeros((3, 13))
    bad[2, 4] = 1e200
    with pytest.raises(ValueError, match="X row 2 is too large"):
        model.predict(bad)


def test_kernel_overflow_is_an_error_not_an_empty_model():
    X = np.array([[5.0, 0], [0, 5.0], [1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="poly kernel overflows"):
        libsmo.train(X, [1, 1, -1, -1], kernel="poly", degree=400, gamma=10.0)


def test_subnormal_and_tiny_values_train():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    for scale in (1e-310, 1e-150):
        model = libsmo.train(X * scale, y, gamma=1.0 / scale**2 if scale > 1e-200 else 1.0)
        assert np.isfinite(model.sv_coef).all() and np.isfinite(model.rho).all()


# ---- awkward data sets ---------------------------------------------------------------

def test_two_examples():
    model = libsmo.train([[0.0, 1.0], [1.0, 0.0]], ["a", "b"], kernel="linear")
    np.testing.assert_array_equal(model.predict([[0.0, 1.0], [1.0, 0.0]]), ["a", "b"])


@pytest.mark.parametrize("sparse", [False, True])
def test_identical_rows_with_opposite_labels(sparse):
    X = np.ones((6, 3))
    X = sp.csr_matrix(X) if sparse else X
    y = [1, -1, 1, -1, 1, -1]
    model = libsmo.train(X, y, C=2.0)
    # nothing separates the rows: every alpha sits at C and the decision is rho alone
    assert model.n_sv == 6
    np.testing.assert_allclose(np.abs(model.sv_coef), 2.0)
    assert np.isfinite(model.decision_function(X)).all()


def test_all_zero_rows_and_constant_features():
    rng = np.random.default_rng(1)
    X = np.hstack([rng.normal(size=(50, 2)), np.full((50, 1), 3.0)])
    X[:5] = 0.0
    y = np.where(X[:, 0] + X[:, 1] > 0, 1, -1)
    y[:5] = 1
    dense = libsmo.train(X, y, tol=1e-8)
    sparse = libsmo.train(sp.csr_matrix(X), y, tol=1e-8)
    np.testing.assert_allclose(dense.decision_function(X), sparse.decision_function(X),
                               atol=1e-6)
    assert np.mean(dense.predict(X) == y) > 0.9


def test_all_zero_csr_matrix():
    X = sp.csr_matrix((10, 4))
    model = libsmo.train(X, [1, -1] * 5)
    assert np.isfinite(model.decision_function(X)).all()


def test_int64_indices_and_other_sparse_formats(heart_scale):
    X, y = heart_scale
    reference = libsmo.train(X, y).decision_function(X)
    wide = sp.csr_matrix((X.data, X.indices.astype(np.int64), X.indptr.astype(np.int64)),
                         shape=X.shape)
    for variant in (wide, X.tocsc(), X.tocoo(), X.todok(), X.tolil(), sp.csr_array(X)):
        model = libsmo.train(variant, y)
        np.testing.assert_allclose(model.decision_function(variant), reference, atol=1e-10)


def test_empty_test_set(heart_scale):
    X, y = heart_scale
    model = libsmo.train(X, y)
    assert model.predict(X[:0]).shape == (0,)
    assert model.predict(np.empty((0, 13))).shape == (0,)


# ---- threads and the GIL -------------------------------------------------------------

def test_predict_from_several_threads_gives_identical_results():
    X, y = load_dataset("a1a")
    model = libsmo.train(X, y)
    expected = model.decision_function(X)
    results = [None] * 6

    def work(k):
        results[k] = model.decision_function(X if k % 2 else X.toarray())

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        np.testing.assert_allclose(r, expected, atol=1e-10)


def test_fit_releases_the_gil():
    """While a fit runs in another thread, this one runs Python (which needs the GIL)
    alongside it: the CPU seconds it spins for are most of the fit's. A fit that held
    the GIL would leave this thread waiting for it, spending almost none. CPU seconds,
    not wall time: a loaded machine slows both threads alike."""
    # C=30: a fit of about two CPU seconds, long beside the Python around the solver
    X, y = load_dataset("a9a", n_rows=16000)
    done = threading.Event()
    fit_cpu = []

    def fit():
        start = time.thread_time()
        libsmo.train(X, y, gamma=0.05, C=30.0)
        fit_cpu.append(time.thread_time() - start)
        done.set()

    worker = threading.Thread(target=fit)
    start = time.thread_time()
    worker.start()
    spins = 0
    while not done.is_set():
        spins += 1   # bytecode: runs only while this thread holds the GIL
    spun = time.thread_time() - start
    worker.join()
    assert fit_cpu and fit_cpu[0] > 0.2, fit_cpu
    assert spun > 0.5 * fit_cpu[0], (spun, fit_cpu, spins)


# ---- memory --------------------------------------------------------------------------

def peak_rss_delta(code):
    """Run code in a fresh interpreter; returns (peak RSS - RSS before the code) in MB."""
    script = textwrap.dedent("""
        import resource, sys
        sys.path.insert(0, {tests!r})
        def peak():
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        {setup}
        base = peak()
        {body}
        print(peak() - base)
    """)
    setup, body = code
    # run from a neutral folder: `python -c` puts the working directory first on
    # sys.path, and the source tree holds no compiled extensions
    out = subprocess.run([sys.executable, "-c", script.format(
        tests=str(Path(__file__).resolve().parents[1]), setup=setup, body=body)],
        capture_output=True, text=True, timeout=600, cwd=tempfile.gettempdir())
    assert out.returncode == 0, out.stderr
    return float(out.stdout.strip().splitlines()[-1])


def test_training_memory_stays_within_the_cache_budget():
    path = data_file("a9a")
    setup = ("import numpy as np, libsmo\n"
             "from sklearn.datasets import load_svmlight_file\n"
             f"X, y = load_svmlight_file({str(path)!r})\n"
             "X = X[:16000]; y = y[:16000]\n"
             "libsmo.train(X[:300], y[:300])")
    grown = peak_rss_delta((setup, "libsmo.train(X, y, gamma=0.05, cache_size=20)"))
    # 20 MB of cache plus O(n) solver state (a few MB) plus a copy of the CSR rows for
    # the support vectors; nothing near the 1 GB a full float32 Q of 16000 rows takes
    assert grown < 20 + 60, grown


def test_predicting_a_million_rows_in_bounded_memory():
    setup = ("import numpy as np, libsmo\n"
             "rng = np.random.default_rng(0)\n"
             "Xtr = rng.normal(size=(600, 8)); ytr = np.where(Xtr[:, 0] * Xtr[:, 1] > 0, 1, -1)\n"
             "model = libsmo.train(Xtr, ytr, C=10.0)\n"
             "X = rng.normal(size=(1_000_000, 8)).astype(np.float64)\n"
             "model.predict(X[:1000])")
    grown = peak_rss_delta((setup, "pred = model.predict(X)"))
    # output (8 MB) and one kernel block of at most 16 MB, not the 1e6 x n_SV matrix
    # (several GB)
    assert grown < 8 + 16 + 60, grown


# ---- faults: Ctrl-C and failed writes ------------------------------------------------

def neutral_env():
    """The environment for a child interpreter: one OpenMP thread, as the tests use."""
    return dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")


def default_sigint():
    """In a child before it runs: SIGINT's default disposition, which Python turns into
    KeyboardInterrupt (an ignored SIGINT, inherited from a background job of a
    non-interactive shell, would stay ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_sigint_during_estimator_fit_leaves_the_previous_model(tmp_path):
    """A script that fits and saves, interrupted with SIGINT during the fit: it ends
    with KeyboardInterrupt within a second, and the model file it would have replaced
    is untouched, with no temporary file beside it."""
    target = tmp_path / "model.txt"
    target.write_bytes(b"the previous model\n")
    script = textwrap.dedent(f"""
        import signal, sys, time
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
        import libsmo
        from helpers.data import load_dataset
        X, y = load_dataset("a9a", n_rows=12000)
        # C=100 at a tolerance of 1e-12: a fit only a signal ends (minutes)
        est = libsmo.SVC(C=100.0, gamma=0.05, tol=1e-12)
        # the solver's first progress report says "solving" (the estimator's fit, its
        # parameters given a callback)
        reported = []
        def solving(progress):
            if not reported:
                reported.append(print("solving", flush=True))
        import libsmo.estimators._base as base
        fit = base.fit_training_set
        base.fit_training_set = lambda data, params, **kw: fit(
            data, params.replace(callback=solving), **kw)
        print("fitting", flush=True)
        try:
            est.fit(X, y)
            est.save({str(target)!r})
        except KeyboardInterrupt:
            print(time.process_time(), flush=True)
            raise
    """)
    data_file("a9a")  # decompressed (or failed/skipped) here, not in the child
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=tempfile.gettempdir(),
                             env=neutral_env(), preexec_fn=default_sigint)
    try:
        assert child.stdout.readline().strip() == "fitting", child.stderr.read()
        # the solver's first progress report (callback_every steps in): the signal
        # lands in the solver, however slow the machine is at getting there
        assert child.stdout.readline().strip() == "solving", child.stderr.read()
        sent = process_cpu_seconds(child.pid)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        child.kill()
    caught = float(out.strip().splitlines()[-1])
    # the child's CPU seconds between the signal and the handler: its work, whatever
    # the machine's load (/proc's clock ticks round down by up to 10 ms)
    assert caught - sent < 1.0
    assert child.returncode != 0 and "KeyboardInterrupt" in err
    assert target.read_bytes() == b"the previous model\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.txt"]


def test_sigint_stops_libsmo_train_without_a_model_file(tmp_path):
    """libsmo-train interrupted during training: exit status 130, a one-line message,
    no model file and no temporary file."""
    data = data_file("a9a")
    # C=100 at a tolerance of 1e-12: more than 12 CPU seconds of training, so the signal
    # lands in the solver on any machine (C=1 now ends in 2.6 s)
    child = subprocess.Popen(["libsmo-train", "-e", "1e-12", "-c", "100", "-g", "0.05",
                              str(data), "a9a.model"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=tmp_path, env=neutral_env(),
                             preexec_fn=default_sigint)
    try:
        # three CPU seconds of the child's: start-up and reading a9a take about one, so
        # it is training, however long a loaded machine takes to give it them
        assert wait_until(lambda: child.poll() is not None
                          or process_cpu_seconds(child.pid) >= 3.0, limit=600)
        assert child.poll() is None, child.communicate()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        sent = process_cpu_seconds(child.pid)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=30)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        child.kill()
    # the child's CPU seconds from the signal to its exit (its total, reaped, less
    # what it had used when signalled): its work, whatever the machine's load
    total = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert total - sent < 1.0
    assert child.returncode == 130
    assert err.strip() == "libsmo-train: interrupted, no file written"
    assert list(tmp_path.iterdir()) == []


WRITERS = {
    "save_model": lambda model, X, y, path: libsmo.save_model(model, path),
    "dump_svmlight_file": lambda model, X, y, path: libsmo.dump_svmlight_file(X, y, path),
    "Scaler.save_range": lambda model, X, y, path: libsmo.Scaler().fit(X).save_range(path),
}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_write_that_runs_out_of_space_leaves_the_previous_file(writer, tmp_path):
    """A real failed write: the file-size limit (RLIMIT_FSIZE, with SIGXFSZ ignored so
    that write() fails with EFBIG as on a full disk) set below the new file's size. The
    writer raises OSError; the old file is intact and no temporary file is left."""
    target = tmp_path / "out.txt"
    target.write_bytes(b"previous contents\n")
    script = textwrap.dedent(f"""
        import resource, signal, sys
        sys.path[:0] = [{str(Path(__file__).resolve().parents[1])!r},
                        {str(Path(__file__).resolve().parent)!r}]
        import libsmo
        from helpers.data import load_dataset
        from test_reliability import WRITERS
        X, y = load_dataset("heart_scale")
        model = libsmo.train(X, y)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (60, resource.RLIM_INFINITY))
        try:
            WRITERS[{writer!r}](model, X, y, {str(target)!r})
        except OSError as exc:
            print("OSError", exc.errno)
    """)
    data_file("heart_scale")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, cwd=tempfile.gettempdir(), env=neutral_env())
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["OSError", str(errno.EFBIG)]
    assert target.read_bytes() == b"previous contents\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_a_save_without_permission_leaves_the_previous_file(heart_scale, tmp_path,
                                                            monkeypatch):
    """No permission to create the temporary file (simulated: the tests may run as
    root, whom a read-only folder does not stop): PermissionError, old file intact;
    libsmo-train's save error is its usage of LIBSVM's message and status 1."""
    X, y = heart_scale
    model = libsmo.train(X, y)
    target = tmp_path / "heart.model"
    target.write_bytes(b"previous model\n")

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(tmp_path))

    from libsmo.io import atomic
    monkeypatch.setattr(atomic.tempfile, "mkstemp", refuse)
    with pytest.raises(PermissionError):
        libsmo.save_model(model, target)
    with pytest.raises(PermissionError):
        libsmo.SVC(gamma=0.1).fit(X, y).save(target)
    assert target.read_bytes() == b"previous model\n"
    from libsmo.cli import train_main
    assert train_main(["-q", str(data_file("heart_scale")), str(target)]) == 1
    assert target.read_bytes() == b"previous model\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["heart.model"]
