"""Reliability, third round (issue 46): each reproducer of ../shared/repro/reliability-3
as a test. The cascade's partitionings (item 1) are in test_cascade_partitionings.py;
the fuzz families that grew from this round are in test_fuzz_campaign.py."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import libsmo


def _script(tmp_path, name, code):
    path = tmp_path / name
    path.write_text(textwrap.dedent(code))
    return path


# ---- item 2: a function of the user's script that calls libsmo, shipped to workers ----

USER_SCRIPT = """
    import sys
    import numpy as np
    import cloudpickle
    import joblib
    import libsmo

    X = np.random.default_rng(0).normal(size=(100, 4))
    y = (X[:, 0] > 0).astype(int)


    def fit_one(C):                  # a function of the user's script or notebook
        return int(libsmo.train(X, y, C=C).n_iter[0])


    if __name__ == "__main__":
        if sys.argv[1] == "pickle":
            sys.stdout.buffer.write(cloudpickle.dumps(fit_one))
        else:
            here = [fit_one(C) for C in (1.0, 2.0)]
            there = joblib.Parallel(n_jobs=2)(joblib.delayed(fit_one)(C)
                                              for C in (1.0, 2.0))
            print(here == there, here)
"""


def test_a_script_function_that_calls_libsmo_is_cloudpicklable(tmp_path):
    """cloudpickle pickles a function of __main__ by value and the modules it refers to
    by reference: `libsmo` must be a plain module for that (issue 46, item 2)."""
    script = _script(tmp_path, "user_script.py", USER_SCRIPT)
    pickled = subprocess.run([sys.executable, str(script), "pickle"], capture_output=True,
                             cwd=tmp_path, timeout=300)
    assert pickled.returncode == 0, pickled.stderr.decode()
    # another process, which never saw the script, runs it
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, cloudpickle; "
         "print(cloudpickle.loads(sys.stdin.buffer.read())(1.0))"],
        input=pickled.stdout, capture_output=True, cwd="/", timeout=300)
    assert loaded.returncode == 0, loaded.stderr.decode()
    X = np.random.default_rng(0).normal(size=(100, 4))
    assert int(loaded.stdout) == int(libsmo.train(X, (X[:, 0] > 0).astype(int)).n_iter[0])


def test_a_script_function_that_calls_libsmo_runs_under_loky(tmp_path):
    """joblib's default backend (loky) ships the function with cloudpickle."""
    script = _script(tmp_path, "user_script.py", USER_SCRIPT)
    out = subprocess.run([sys.executable, str(script), "loky"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("True"), out.stdout


# ---- item 3: grid ranges that never end -------------------------------------------------

def _command(args, cwd, limit_memory=False, timeout=300):
    """A libsmo command run as `python -m libsmo <tool>` (this interpreter's), with an
    address-space cap of 3 GiB when asked, so that a runaway fails fast."""
    def cap():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))
    tool = args[0][len("libsmo-"):]
    return subprocess.run([sys.executable, "-m", "libsmo", tool, *map(str, args[1:])],
                          capture_output=True, text=True, cwd=cwd, timeout=timeout,
                          preexec_fn=cap if limit_memory else None)


def _one_line_error(out, *fragments):
    """Status 1, one line on stderr holding `fragments`, no traceback."""
    assert out.returncode == 1, (out.returncode, out.stderr)
    assert "Traceback" not in out.stderr, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def small_data(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    libsmo.dump_svmlight_file(X, np.sign(X[:, 0]), str(tmp_path / "d.txt"))
    return tmp_path / "d.txt"


RUNAWAY_RANGES = [
    ((1, 2, float("nan")), "must be finite"), ((1, float("inf"), 1), "must be finite"),
    ((float("nan"), 1, 1), "must be finite"), ((1, 2, 1e-300), "more than 100000 values"),
    ((1, 0, 1), "holds no value"), ((0, 2000, 1), "overflows"),
    ((-1e20, -1e20 + 5, 1), "lost to rounding"), ((1, 2, 0), "must not be 0")]

# run under a memory cap: where these ranges are not refused they grow a list until
# memory runs out, which must fail this test, not end the test run
RANGES_SCRIPT = """
    import json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))
    import numpy as np
    from libsmo.training import _grid as grid
    ranges = json.loads(sys.argv[1])
    answers = []
    for r in ranges:
        try:
            answers.append(repr(grid.log2_range(*r, name="log2c")))
        except BaseException as e:
            answers.append(f"{type(e).__name__}: {e}")
    X = np.random.default_rng(0).normal(size=(30, 2))
    for log2c, log2g in [((1, 2, float("nan")), None), ((0, 999, 1), (0, -999, -1)),
                         ((0, 1, 1), (0, 1))]:
        try:
            grid.grid_search(X, np.sign(X[:, 0]), log2c=log2c, log2g=log2g)
            answers.append("accepted")
        except BaseException as e:
            answers.append(f"{type(e).__name__}: {e}")
    print(json.dumps(answers))
"""


def test_log2_range_and_grid_search_refuse_ranges_without_end(tmp_path):
    import json
    script = _script(tmp_path, "ranges.py", RANGES_SCRIPT)
    out = subprocess.run([sys.executable, str(script),
                          json.dumps([list(r) for r, _ in RUNAWAY_RANGES])],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    answers = json.loads(out.stdout)
    for (bad, reason), answer in zip(RUNAWAY_RANGES, answers):
        assert answer.startswith("ValueError: log2c ") and reason in answer, (bad, answer)
    searched = answers[len(RUNAWAY_RANGES):]
    assert searched[0] == "ValueError: log2c 1,2,nan: begin, end and step must be finite"
    assert searched[1].startswith("ValueError: the grid has 1000000 cells, more than "
                                  "libsmo.training._grid.MAX_GRID_CELLS")
    assert searched[2].startswith("ValueError: log2g must be (begin, end, step)")


@pytest.mark.parametrize("bad", ["1,2,nan", "1,inf,1", "nan,1,1", "1,2,1e-300"])
def test_the_grid_command_refuses_a_runaway_range_at_once(tmp_path, small_data, bad):
    out = _command(["libsmo-grid", "-log2c", bad, "-log2g", "null", "-gnuplot", "null",
                    "-out", "null", small_data], tmp_path, limit_memory=True)
    _one_line_error(out, "ERROR: -log2c")


# ---- item 4: warm starts that lie ---------------------------------------------------------

def kkt_gap(model, X, y, C):
    """LIBSVM's m(a) - M(a) of a binary C-SVC model on its training rows, computed
    afresh from the model's decision values (G_t = y_t (f(x_t) + rho) - 1), not from
    the solver's own gradient. The model's first class is the +1 side."""
    signs = np.where(np.asarray(y) == model.classes[0], 1.0, -1.0)
    alpha = np.zeros(len(signs))
    alpha[model.support] = np.abs(model.sv_coef[0])
    G = signs * (model.decision_function(X) + model.rho[0]) - 1.0
    v = -signs * G
    below, above = alpha < C, alpha > 0
    up = (below & (signs > 0)) | (above & (signs < 0))
    low = (below & (signs < 0)) | (above & (signs > 0))
    return v[up].max() - v[low].min()


@pytest.mark.parametrize("options", [{}, {"selection": "platt"},
                                     {"kernel": "linear", "linear_solver": "primal"},
                                     {"kernel": "linear", "linear_solver": "kernel"}],
                         ids=["second-order", "platt", "primal", "linear-kernel"])
@pytest.mark.parametrize("seed", [1e10, 1e20, 1e100, 1e300])
def test_a_far_warm_start_ends_at_the_true_optimum(options, seed):
    """C = inf with dual coefficients of +-seed (feasible): the fit ends at the cold
    fit's optimum, and "optimal" is true of the gradient computed afresh (issue 46,
    item 4: it ended "optimal" with objective +9.2e10 where alpha = 0 gives 0)."""
    import warnings
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    y = (X[:, 0] > 0).astype(int)
    cold = libsmo.train(X, y, C=np.inf, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no max_iter warning either
        warm = libsmo.train(X, y, C=np.inf, init=np.where(y == 1, seed, -seed),
                            max_iter=10**6, **options)
    assert warm.status == ["optimal"]
    assert abs(warm.objective[0] - cold.objective[0]) <= 1e-6 * abs(cold.objective[0])
    assert kkt_gap(warm, X, y, np.inf) <= 1e-3 * 1.01
    assert np.abs(warm.decision_function(X) - cold.decision_function(X)).max() <= 1e-2
    assert np.mean(warm.predict(X) == cold.predict(X)) >= 0.99


def test_a_far_warm_start_of_a_regression_and_with_bounds():
    """The same for epsilon-SVR (y'a = 0 over its 2l variables) and a C-SVC whose
    bounds clip the seed."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    t = X[:, 0] + 0.1 * rng.normal(size=120)
    y = (X[:, 0] > 0).astype(int)
    for target, options, init in [
            (t, dict(svm_type="epsilon_svr", C=1e30), 1e20 * np.sign(t)),
            (y, dict(C=1e30), np.where(y == 1, 1e25, -1e25)),
            (y, dict(C=10.0), np.where(y == 1, 1e25, -1e25))]:
        cold = libsmo.train(X, target, **options)
        warm = libsmo.train(X, target, init=init, **options)
        assert warm.status == ["optimal"]
        assert abs(warm.objective[0] - cold.objective[0]) <= 1e-5 * abs(cold.objective[0])


@pytest.mark.parametrize("seed", [1e307, 1.7e308])
def test_seeds_whose_sums_overflow_are_refused(seed):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="init's coefficients are too large: their sum "
                                         "overflows"):
        libsmo.train(X, y, C=np.inf, init=np.where(y == 1, seed, -seed))
    model = libsmo.train(X, y)
    model.sv_coef = model.sv_coef * seed
    with pytest.raises(ValueError, match="init's sv_coef are too large"):
        libsmo.train(X, y, init=model)


# ---- item 8: nu at its limit is not a kernel overflow --------------------------------------

def test_nu_at_its_limit_names_nu_not_the_kernel(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    y = (X[:, 0] > 0).astype(int)
    largest = 2 * np.bincount(y).min() / len(y)
    cases = [(lambda: libsmo.train(X, svm_type="one_class", nu=1.0), "one-class SVM with "
              "nu = 1: every coefficient is at its bound"),
             (lambda: libsmo.OneClassSVM(nu=1.0).fit(X), "one-class SVM with nu = 1"),
             (lambda: libsmo.train(X, y, svm_type="nu_svc", nu=largest),
              "nu-SVC with nu = 0.966667: every coefficient of the smaller class is at "
              "its bound"),
             (lambda: libsmo.NuSVC(nu=largest).fit(X, y), "nu-SVC with nu = 0.966667")]
    for fit, message in cases:
        with pytest.raises(ValueError) as error:
            fit()
        assert message in str(error.value) and "overflow" not in str(error.value)
        assert "rho is undefined" in str(error.value)
    # just below the limit both train
    assert libsmo.train(X, svm_type="one_class", nu=0.99).status == ["optimal"]
    assert libsmo.train(X, y, svm_type="nu_svc", nu=0.95).status == ["optimal"]
    libsmo.dump_svmlight_file(X, y, str(tmp_path / "d.txt"))
    out = _command(["libsmo-train", "-s", "2", "-n", "1", "d.txt", "m"], tmp_path)
    _one_line_error(out, "one-class SVM with nu = 1")
    assert not (tmp_path / "m").exists()


# ---- items 5 and 13: libsmo.dask's input ----------------------------------------------------



def _filtered_frame(n_classes=2):
    """A dask dataframe of 4 partitions whose second is filtered away, and the rows
    it keeps."""
    import dask.dataframe as dd
    import pandas as pd
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    y = (X[:, 0] > 0).astype(int) if n_classes == 2 else np.digitize(X[:, 0], [-0.5, 0.5])
    frame = pd.DataFrame(X, columns=list("abcde"))
    frame["y"], frame["i"] = y, np.arange(400)
    kept = dd.from_pandas(frame, npartitions=4)
    kept = kept[(kept.i < 100) | (kept.i >= 200)]
    rows = np.r_[0:100, 200:400]
    return kept, X[rows], y[rows]


def test_dask_fit_skips_empty_partitions(client):
    import libsmo.dask
    kept, X, y = _filtered_frame()
    Xd = kept[list("abcde")].to_dask_array(lengths=True)
    yd = kept["y"].to_dask_array(lengths=True)
    assert 0 in Xd.chunks[0]
    single = libsmo.SVC().fit(X, y)
    for options in ({}, {"cascade_rows": 0}):
        dist = libsmo.dask.SVC(**options).fit(Xd, yd)
        assert np.array_equal(dist.predict(X), single.predict(X))
        assert abs(dist.to_model().objective[0] - single.to_model().objective[0]) <= (
            1e-6 * abs(single.to_model().objective[0]))
    # a sequence of partitions with an empty one
    dist = libsmo.dask.SVC().fit([X[:100], X[:0], X[100:]], y)
    assert np.array_equal(dist.dual_coef_, single.dual_coef_)
    with pytest.raises(ValueError, match="X has no rows"):
        libsmo.dask.SVC().fit([X[:0], X[:0]], y[:0])


def test_dask_fit_takes_a_dask_dataframe(client):
    import libsmo.dask
    kept, X, y = _filtered_frame()
    single = libsmo.SVC().fit(X, y)
    dist = libsmo.dask.SVC().fit(kept[list("abcde")], kept["y"])
    assert np.array_equal(dist.dual_coef_, single.dual_coef_)
    assert np.array_equal(dist.predict(X), single.predict(X))


def test_dask_predict_skips_empty_blocks(client):
    import libsmo.dask
    kept, X, y = _filtered_frame(n_classes=3)
    single = libsmo.SVC().fit(X, y)
    dist = libsmo.dask.SVC().fit([X[:150], X[150:]], y)
    frame = kept[list("abcde")]
    Xd = frame.to_dask_array(lengths=True)
    assert np.array_equal(dist.predict(frame).compute().to_numpy(), single.predict(X))
    assert np.array_equal(dist.predict(Xd).compute(), single.predict(X))
    decisions = dist.decision_function(Xd).compute()
    assert decisions.shape == (300, 3)
    np.testing.assert_allclose(decisions, single.decision_function(X), atol=1e-9)


def test_dask_refuses_a_callable_kernel(client):
    import libsmo.dask
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="libsmo.dask.SVC does not support a callable "
                                         "kernel; use libsmo.SVC"):
        libsmo.dask.SVC(kernel=lambda a, b: a @ b.T).fit([X[:20], X[20:]], y)


# ---- item 6: SIGTERM and SIGHUP remove what was being written ---------------------------

def _default_signals():
    """In the child: the signals at their default action, whatever the test runner
    inherited (nohup ignores SIGHUP, a background job SIGINT)."""
    import signal
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def _tool_process(args, cwd, stdout=subprocess.DEVNULL):
    tool = args[0][len("libsmo-"):]
    return subprocess.Popen([sys.executable, "-m", "libsmo", tool, *map(str, args[1:])],
                            stdout=stdout, stderr=subprocess.PIPE, text=True, cwd=cwd,
                            preexec_fn=_default_signals)


def test_sigterm_during_a_save_removes_the_temporary_file(tmp_path):
    import glob
    import signal
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 300))
    libsmo.dump_svmlight_file(X, np.arange(3000) % 2, str(tmp_path / "wide.txt"))
    target = tmp_path / "out.model"        # ~13 MB of model: seconds to format
    child = _tool_process(["libsmo-train", "wide.txt", target], tmp_path)
    sent = False
    while child.poll() is None:            # until the temporary file exists
        if glob.glob(str(tmp_path / ".out.model.*.tmp")):
            child.send_signal(signal.SIGTERM)
            sent = True
            break
    _, err = child.communicate(timeout=300)
    assert sent, "the save ended before its temporary file was seen"
    assert child.returncode == -signal.SIGTERM
    assert err.strip().splitlines()[-1] == "libsmo-train: SIGTERM, no file written"
    assert not target.exists()
    assert glob.glob(str(tmp_path / ".*.tmp")) == []


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_during_training_end_the_command_by_the_signal(tmp_path,
                                                                          signame):
    import signal

    from helpers.processes import process_cpu_seconds
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 20))
    # random labels, C = 1000 at tol 1e-12: the steps grow with the rows squared, and
    # 20,000 rows take minutes where the signal comes after one CPU second (3,000 rows
    # did too, until the solver got fast enough to finish them within that second)
    libsmo.dump_svmlight_file(X, rng.integers(0, 2, 20000), str(tmp_path / "d.txt"))
    child = _tool_process(["libsmo-train", "-c", "1000", "-e", "1e-12", "d.txt", "m"],
                          tmp_path)
    while child.poll() is None and process_cpu_seconds(child.pid) < 1.0:
        pass                               # start-up, reading; then the solver
    assert child.poll() is None
    child.send_signal(getattr(signal, signame))
    _, err = child.communicate(timeout=300)
    assert child.returncode == -getattr(signal, signame)
    assert err.strip() == f"libsmo-train: {signame}, no file written"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.txt"]


# ---- item 10: a symbolic link in a loop is not replaced ---------------------------------

def test_a_symlink_loop_as_output_is_refused(tmp_path):
    import errno

    from libsmo.io.atomic import write_atomically
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    libsmo.dump_svmlight_file(X, np.sign(X[:, 0]), str(tmp_path / "d.txt"))
    os.symlink("loop2", tmp_path / "loop1")
    os.symlink("loop1", tmp_path / "loop2")
    out = _command(["libsmo-train", "-q", "d.txt", "loop1"], tmp_path)
    _one_line_error(out, "can't save model to file loop1", "Too many levels of symbolic "
                                                            "links")
    with pytest.raises(OSError) as error:
        write_atomically(str(tmp_path / "loop2"), b"x")
    assert error.value.errno == errno.ELOOP
    for name in ("loop1", "loop2"):
        assert os.path.islink(tmp_path / name)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    # a dangling link is still followed: its target is created, the link stays
    os.symlink("made.model", tmp_path / "dangling")
    _command(["libsmo-train", "-q", "d.txt", "dangling"], tmp_path)
    assert os.path.islink(tmp_path / "dangling") and (tmp_path / "made.model").exists()


# ---- item 7: libsmo-grid's errors are one line -------------------------------------------

def test_the_grid_command_reports_bad_files_in_one_line(tmp_path, small_data):
    (tmp_path / "bad1.out").write_text("log2c=1 log2g=1 rate=50\nlog2c=-- log2g=1 rate=60\n")
    (tmp_path / "bad2.out").write_text("log2c=1 log2g=1 rate=.\n")
    (tmp_path / "bad3.out").write_text("log2c=1 log2g=1 rate=5..\n")
    (tmp_path / "bad4.out").write_bytes(b"log2c=1 log2g=1 rate=5\n\xce\xff\n")
    base = ["-log2c", "1,3,2", "-log2g", "1,1,1", "-gnuplot", "null"]
    cases = [
        (["-log2c", "1,0,1", "-log2g", "null", "-gnuplot", "null", "-out", "null"],
         "ERROR: -log2c 1.0,0.0,1.0: the range holds no value"),
        (base + ["-out", tmp_path], "can't open output file"),
        (base + ["-out", tmp_path / "no" / "such" / "x.out"], "No such file or directory"),
        (base + ["-out", "/dev/full"], "can't write to output file /dev/full: No space"),
        (base + ["-out", "null", "-resume", tmp_path], "can't read the -resume file"),
        (base + ["-out", "null", "-resume", "bad1.out"], "bad1.out line 2: a malformed "
                                                         "number"),
        (base + ["-out", "null", "-resume", "bad2.out"], "bad2.out line 1"),
        (base + ["-out", "null", "-resume", "bad3.out"], "bad3.out line 1"),
        (base + ["-out", "null", "-resume", "bad4.out"], "bad4.out line 2: not UTF-8"),
    ]
    for options, fragment in cases:
        if options[-1] == "/dev/full" and not os.path.exists("/dev/full"):
            continue
        _one_line_error(_command(["libsmo-grid", *options, small_data], tmp_path), fragment)


# ---- item 12: an interrupted grid leaves its finished cells, and says so ---------------

def test_an_interrupted_grid_has_written_each_finished_cell(tmp_path):
    """Three gammas, eleven values of C: gamma 2**-1 (the first column, done in about
    a second here) and 2**5 are quick, gamma 2**-7 with large C on random labels takes
    tens of seconds. The .out file has the first cells' lines while the others still
    run (the column's cells were written only when the whole column was done), and
    Ctrl-C's line says what the file holds. stdout gives its lines in the job order,
    so its first line too comes while the slow column runs."""
    import signal
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 10))
    libsmo.dump_svmlight_file(X, np.where(rng.random(2000) < 0.5, 1, -1),
                              str(tmp_path / "g.txt"))
    out = tmp_path / "g.out"
    child = _tool_process(["libsmo-grid", "-log2c", "-5,15,2", "-log2g", "5,-7,-6",
                           "-gnuplot", "null", "-out", out, "g.txt"], tmp_path)
    while child.poll() is None and not (out.exists() and out.read_text().count("\n")):
        pass
    assert child.poll() is None, "the grid ended before its first cell was written"
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=300)
    lines = out.read_text().splitlines()
    assert child.returncode == 130
    assert 1 <= len(lines) < 33
    assert err.strip() == (f"libsmo-grid: interrupted, {out} holds the cells finished so "
                           f"far ({len(lines)} in this run): -resume {out} goes on from "
                           "them")
    assert all(re.fullmatch(r"log2c=-?\d+\.0 log2g=-?\d\.0 rate=[\d.]+", line)
               for line in lines)
    # -out null: nothing was written, and the line says that
    child = _tool_process(["libsmo-grid", "-log2c", "-5,15,2", "-log2g", "5,-7,-6",
                           "-gnuplot", "null", "-out", "null", "g.txt"], tmp_path,
                          stdout=subprocess.PIPE)
    child.stdout.readline()                # the first cell's line: training goes on
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=300)
    assert child.returncode == 130
    assert err.strip() == "libsmo-grid: interrupted, no file written"


# ---- item 9: train(init=model) checks an edited model's fields as predict does ----------

@pytest.mark.parametrize("field, edit", [
    ("sv_coef", lambda m: m.sv_coef[0]), ("support", lambda m: m.support + 0.5),
    ("support", lambda m: np.ones(len(m.support), bool)),
    ("classes", lambda m: m.classes[None]), ("rho", lambda m: m.rho[:1])],
    ids=["sv_coef-row", "support-float", "support-bool", "classes-2d", "rho-short"])
def test_init_with_an_edited_model_gets_the_field_errors(field, edit):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    y = np.repeat([0, 1, 2], 40)
    model = libsmo.train(X, y)
    setattr(model, field, edit(model))
    with pytest.raises((TypeError, ValueError)) as from_init:
        libsmo.train(X, y, init=model)
    assert str(from_init.value).startswith(f"Model.{field} ")
    model = libsmo.train(X, y)
    setattr(model, field, edit(model))
    with pytest.raises(type(from_init.value)) as from_predict:
        model.predict(X)
    assert str(from_init.value) == str(from_predict.value)


def test_init_with_a_support_list_is_read_as_predict_reads_it():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    y = np.repeat([0, 1, 2], 40)
    model = libsmo.train(X, y)
    resumed = libsmo.train(X, y, init=model)
    model.support = list(model.support)
    assert np.array_equal(libsmo.train(X, y, init=model).sv_coef, resumed.sv_coef)


# ---- item 11: a callable kernel's sparse answer is checked before it is densified -------

def test_a_callable_kernels_sparse_answer_of_the_wrong_shape_is_refused():
    import scipy.sparse as sparse
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match=r"returned a matrix of shape \(1000000, 1000000\)"
                                         r" for 60 x 60 samples"):
        libsmo.SVC(kernel=lambda a, b: sparse.csr_matrix((10**6, 10**6))).fit(X, y)
    # the right shape, sparse, is the dense answer's model; at prediction the same check
    dense = libsmo.SVC(kernel=lambda a, b: a @ b.T).fit(X, y)
    calls = []

    def sparse_linear(a, b):
        calls.append(len(a))
        if len(calls) > 1 and len(a) == 7:
            return sparse.csr_matrix((10**6, 10**6))
        return sparse.csr_matrix(a @ b.T)

    model = libsmo.SVC(kernel=sparse_linear).fit(X, y)
    np.testing.assert_array_equal(model.dual_coef_, dense.dual_coef_)
    with pytest.raises(ValueError, match="for 7 x 60 samples"):
        model.decision_function(X[:7])


# ---- item 14: small error paths ------------------------------------------------------------

def test_cross_validation_n_jobs_gets_libsmos_message():
    X = np.random.default_rng(0).normal(size=(60, 3))
    y = np.arange(60) % 2
    with pytest.raises(ValueError) as from_train:
        libsmo.train(X, y, n_jobs=0)
    with pytest.raises(ValueError) as from_cv:
        libsmo.cross_validation(X, y, 3, n_jobs=0)
    assert str(from_cv.value) == str(from_train.value)
    with pytest.raises(TypeError, match="n_jobs must be an integer"):
        libsmo.cross_validation(X, y, 3, n_jobs=1.5)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_endless_lines_are_refused_by_the_readers(tmp_path):
    """A stream without line ends (/dev/zero) as a range file, a model file or data:
    one line naming the file and the line, not a MemoryError (under a 3 GiB cap)."""
    from libsmo.io.sources import MAX_LINE_BYTES
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.arange(60) % 2
    libsmo.dump_svmlight_file(X, y, str(tmp_path / "d.txt"))
    for argv, fragment in [
            (["libsmo-scale", "-r", "/dev/zero", "d.txt"], "failed to read scaling"),
            (["libsmo-predict", "d.txt", "/dev/zero", "o"], "can't open model file"),
            (["libsmo-train", "/dev/zero", "m"], "line 1 (longer than")]:
        out = _command(argv, tmp_path, limit_memory=True)
        _one_line_error(out, fragment, f"longer than {MAX_LINE_BYTES} bytes")
    with pytest.raises(ValueError, match="/dev/zero, line 1: longer than"):
        libsmo.load_svmlight_file("/dev/zero")


def test_a_long_line_within_the_bound_is_read(tmp_path, monkeypatch):
    """The bound is on one line: lines that end are read whatever the file's size, a
    line of exactly MAX_LINE_BYTES is taken, one byte more is not."""
    import libsmo.io.sources as sources
    monkeypatch.setattr(sources, "MAX_LINE_BYTES", 64)
    monkeypatch.setattr(sources, "_CHUNK", 16)
    line = b"1 " + b" ".join(b"%d:1" % k for k in range(1, 14))
    line += b" " * (64 - len(line))          # exactly MAX_LINE_BYTES
    (tmp_path / "ok.txt").write_bytes((line + b"\n") * 50)
    X, y = libsmo.load_svmlight_file(str(tmp_path / "ok.txt"))
    assert X.shape == (50, 13)
    (tmp_path / "long.txt").write_bytes(line + b"\n" + line + b" \n")
    with pytest.raises(ValueError, match="long.txt, line 2: longer than 64 bytes"):
        libsmo.load_svmlight_file(str(tmp_path / "long.txt"))
    model = libsmo.train(X.toarray(), np.arange(50) % 2, kernel="linear")
    libsmo.save_model(model, str(tmp_path / "m.model"))
    monkeypatch.setattr(sources, "MAX_LINE_BYTES", 8)
    with pytest.raises(ValueError, match="m.model, line 1: longer than 8 bytes"):
        libsmo.load_model(str(tmp_path / "m.model"))


def test_the_grid_reads_a_feature_index_of_2_31_minus_1_as_training_does(tmp_path):
    """libsmo-grid's kernel matrix on the columns the rows use (16 GiB of address space
    before, MemoryError under a cap), the same rate as the same rows numbered 1..4."""
    (tmp_path / "huge.txt").write_text("1 1:0.5 2147483647:1\n-1 1:-0.5 3:1\n1 2:1\n"
                                       "-1 1:-1\n")
    (tmp_path / "small.txt").write_text("1 1:0.5 4:1\n-1 1:-0.5 3:1\n1 2:1\n-1 1:-1\n")
    lines = []
    for name in ("huge.txt", "small.txt"):
        out = _command(["libsmo-grid", "-log2c", "1,1,1", "-log2g", "1,1,1", "-gnuplot",
                        "null", "-out", "null", "-v", "2", name], tmp_path,
                       limit_memory=True)
        assert out.returncode == 0, out.stderr
        lines.append(out.stdout)
    assert lines[0] == lines[1]


# ---- item 15: very many classes -------------------------------------------------------------

MANY_CLASSES_SCRIPT = """
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))
    import numpy as np, libsmo
    X = np.random.default_rng(0).normal(size=(10**6, 2))
    y = np.arange(10**6)
    for fit in (lambda: libsmo.train(X, y),
                lambda: libsmo.train(X[:20000], y[:20000]),
                lambda: libsmo.SVC().fit(X[:20000], y[:20000]),
                lambda: libsmo.cross_validation(X[:20000], y[:20000] // 2, 2)):
        try:
            fit()
            print("trained")
        except ValueError as e:
            print(e)
"""


def test_many_classes_beyond_a_bound_are_refused_before_training(tmp_path):
    """10^6 one-row classes: more pairs than LIBSVM's int counts (they ran without end);
    20,000 under a 2 GiB address-space limit: the model's sv_coef alone is at least
    8 (k - 1) k bytes (3 GiB) (they ran until a MemoryError near 4 GB). Both refused
    before any pair is trained."""
    script = _script(tmp_path, "many.py", MANY_CLASSES_SCRIPT)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 4
    assert lines.pop(0) == ("y has 1000000 classes: one-vs-one training would make "
                            "499999500000 pairs, more than LIBSVM's INT_MAX (2147483647) "
                            "that a model can count")
    assert lines[0].startswith("y has 20000 classes: the one-vs-one model of its "
                               "199990000 pairs needs at least ")
    assert lines[0].endswith("more than the 2.0 GiB this process can have")
    assert lines[1] == lines[0]
    assert lines[2].startswith("y has 10000 classes")


def test_many_classes_hold_no_object_per_pair_and_report_progress(caplog, monkeypatch):
    """100 one-row classes, 4,950 pairs: the fit's peak Python memory is a few numbers
    a pair (727 bytes a pair before: an object per pair's result), and the "libsmo"
    logger reports every hundredth of the pairs (of fits of PROGRESS_MIN_PAIRS pairs,
    lowered here to keep the test short)."""
    import logging
    import tracemalloc

    import libsmo.training._pair_results
    monkeypatch.setattr(libsmo.training._pair_results, "PROGRESS_MIN_PAIRS", 1000)
    k = 100
    n_pairs = k * (k - 1) // 2
    rng = np.random.default_rng(0)
    X = rng.normal(size=(k, 2))
    libsmo.train(X[:3], np.arange(3))     # imports and first-call caches
    caplog.set_level(logging.INFO, logger="libsmo")
    tracemalloc.start()
    try:
        model = libsmo.train(X, np.arange(k))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak / n_pairs < 300
    assert model.sv_coef.shape == (k - 1, k) and len(model.rho) == n_pairs
    np.testing.assert_array_equal(model.predict(X), np.arange(k))
    progress = [r for r in caplog.records if getattr(r, "libsmo_progress", False)]
    assert 95 <= len(progress) <= 100      # each hundredth, and the last pair
    assert progress[-1].getMessage().startswith(
        f"libsmo: {n_pairs} of {n_pairs} one-vs-one pairs trained (100%)")
    caplog.clear()
    libsmo.train(X[:40], np.arange(40))   # 780 pairs: no report
    assert not [r for r in caplog.records if getattr(r, "libsmo_progress", False)]


def test_progress_records_go_to_stderr_in_the_commands(capsys):
    import logging

    from libsmo.cli._common import StdoutLines
    handler = StdoutLines()
    plain = logging.LogRecord("libsmo", logging.INFO, __file__, 1, "obj = 1", None, None)
    progress = logging.LogRecord("libsmo", logging.INFO, __file__, 1,
                                 "libsmo: 1 of 2 one-vs-one pairs trained (50%)", None, None)
    progress.libsmo_progress = True
    handler.emit(plain)
    handler.emit(progress)
    out, err = capsys.readouterr()
    assert out == "obj = 1\n"
    assert err == "libsmo: 1 of 2 one-vs-one pairs trained (50%)\n"


def test_a_many_class_model_is_the_same_on_two_threads_and_as_tasks():
    """The pairs' results in flat arrays and LIBSVM's layout made class by class: the
    same model one pair after another, on two threads (a few pairs in flight) and as
    joblib tasks."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 3))
    y = rng.integers(0, 12, 240)
    serial = libsmo.train(X, y, C=4.0)
    for options in ({"n_threads": 2}, {"n_jobs": 2}):
        other = libsmo.train(X, y, C=4.0, **options)
        np.testing.assert_array_equal(other.sv_coef, serial.sv_coef)
        np.testing.assert_array_equal(other.rho, serial.rho)
        np.testing.assert_array_equal(other.support, serial.support)
        assert other.n_iter == serial.n_iter and other.status == serial.status
