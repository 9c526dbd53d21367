"""Reliability, third round (issue 46): each reproducer of ../shared/repro/reliability-3
as a test. The cascade's partitionings (item 1) are in test_cascade_partitionings.py;
the fuzz families that grew from this round are in test_fuzz_campaign.py."""
import os
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
