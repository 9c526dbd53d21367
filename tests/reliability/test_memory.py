"""Training memory is data + cache + O(n) (issue 17): dense rows are read where the
caller keeps them unless a private copy fits in half of the kernel cache, from which
it is then taken. Measured in a fresh process from its peak resident memory (VmHWM,
reset just before the fit), so that nothing else the test run holds counts."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

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



PARTITIONED = textwrap.dedent("""
    import sys
    import numpy as np
    import libsmo
    sys.path.insert(0, sys.argv[2])
    from helpers.data import load_fashion_mnist

    def peak_kb():
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmHWM"))

    # the 60,000 Fashion-MNIST images as bytes (47 MB; as doubles 376 MB), footwear
    # against the rest
    X, labels = load_fashion_mnist()
    X, y = np.rint(X * 255).astype(np.uint8), np.isin(labels, (5, 7, 9)).astype(int)
    del labels
    options = dict(gamma=1.6e-7, C=10.0, solver="partitioned", n_threads=2,
                   partitioning=sys.argv[1])
    libsmo.train(X[:3000], y[:3000], partitions=2, **options)   # code paged in
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")                        # VmHWM := current RSS
    before = peak_kb()
    model = libsmo.train(X, y, cache_size=20, partitions=16, **options)
    print(model.status[0], model.n_sv, (peak_kb() - before) / 1024.0)
""")


@pytest.mark.slow   # all 60,000 Fashion-MNIST images (Debian's dataset-fashion-mnist)
def test_partitioned_training_of_bytes_adds_the_cache_and_o_n():
    """The partitioned solver must not copy its data per partition, nor make doubles of
    its bytes: the 60,000 Fashion-MNIST images as uint8 (47 MB) in 16 partitions on two
    threads, a 20 MB cache. Besides the cache: O(n) doubles (the partitions' variables,
    kernel sums and scores, the k-means assignment: at most 30 doubles a row, 14 MB),
    the support vectors' rows as doubles for the kernel blocks, and the blocks
    themselves (8 MB each, one a thread); a copy of the data, per partition or as
    doubles, would add 47 or 376 MB."""
    tests = str(Path(__file__).resolve().parents[1])
    for partitioning in ("stratified", "kmeans"):
        out = subprocess.run([sys.executable, "-W", "ignore", "-c", PARTITIONED,
                              partitioning, tests],
                             capture_output=True, text=True, check=True, cwd="/",
                             env={"PYTHONPATH": PACKAGE_ROOT, "OMP_NUM_THREADS": "1",
                                  "OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
        status, n_sv, added = out.stdout.split()
        assert status == "optimal"
        support_mb = int(n_sv) * 784 * 8 / 2**20
        bound = 20 + 30 * 8 * 60_000 / 2**20 + 2 * support_mb + 2 * 8 + 10
        print(partitioning, n_sv, added, bound)
        assert float(added) < bound
