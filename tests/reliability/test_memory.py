"""Training memory is data + cache + O(n) (issue 17): dense rows are read where the
caller keeps them unless a private copy fits in half of the kernel cache, from which
it is then taken. Measured in a fresh process from its peak resident memory (VmHWM,
reset just before the fit), so that nothing else the test run holds counts."""
import subprocess
import sys
import textwrap
from pathlib import Path

import libsmo

PACKAGE_ROOT = str(Path(libsmo.__file__).resolve().parents[1])

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import scipy.sparse as sp
    import libsmo

    def peak_kb():
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmHWM"))

    rng = np.random.default_rng(0)
    n, d = 12_000, 500                      # 48 MB of float64 rows
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, -1)
    if sys.argv[1] == "csr":
        X[np.abs(X) < 1.0] = 0.0            # about a third non-zero
        X = sp.csr_matrix(X)
    libsmo.train(X[:200], y[:200], gamma=1.0 / d)   # libraries loaded, code paged in
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")                        # VmHWM := current RSS
    before = peak_kb()
    libsmo.train(X, y, gamma=1.0 / d, C=1.0, cache_size=20, max_iter=300)
    print((peak_kb() - before) / 1024.0)
""")


def added_peak_mb(layout):
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", SCRIPT, layout],
                         capture_output=True, text=True, check=True, cwd="/",
                         env={"PYTHONPATH": PACKAGE_ROOT, "OMP_NUM_THREADS": "1",
                              "OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    return float(out.stdout.strip().splitlines()[-1])


def test_dense_training_adds_the_cache_not_a_copy_of_the_data():
    # 48 MB of rows, a 20 MB cache: a private copy would add 48 MB; O(n) is the
    # solver's arrays (a few MB for 12,000 rows)
    assert added_peak_mb("dense") < 20 + 15


def test_sparse_training_adds_the_cache_not_a_copy_of_the_data():
    assert added_peak_mb("csr") < 20 + 15
