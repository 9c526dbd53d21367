"""One module per library the benchmarks run, each preparing and fitting a case the
same way for every script:

- `libsmo`: ``libsmo.train`` with n_threads;
- `libsvm`: libsvm-official (LIBSVM 3.3x's Python binding; OpenMP threads through
  OMP_NUM_THREADS, which must be set before its library loads);
- `sklearn`: scikit-learn's SVC / SVR (its bundled LIBSVM, no threads);
- `sklearnex`: scikit-learn-intelex's SVC / SVR (oneDAL's solver, n_jobs);
- `liblinear`: liblinear-official (a linear SVM; another problem than LIBSVM's dual).

Each module has `reader()` (its library's own LIBSVM-format reader, imported) and
`prepare(case, X, y, threads)`, which does what the library needs before a clock
starts and returns the function that trains and returns a `Fit`.
"""
import importlib

from benchmarks.peers._fit import CACHE_MB, TOL, Fit, dist_version

# run.py's libraries, in its order, and their names in tables
LIBRARIES = ("libsmo", "libsvm", "sklearn", "sklearnex")
LABELS = {"libsmo": "libsmo", "libsvm": "LIBSVM", "sklearn": "sklearn",
          "sklearnex": "sklearnex", "liblinear": "LIBLINEAR"}
# scikit-learn's SVC has no threads: its one-thread runs are its runs at every count
THREADLESS = ("sklearn",)


def peer(name):
    """The module of library `name` (imported on first use, so that a child process
    imports only the library it runs)."""
    if name not in LABELS:
        raise ValueError(f"unknown library {name!r}; known: {', '.join(LABELS)}")
    return importlib.import_module(f"benchmarks.peers.{name}")


__all__ = ["CACHE_MB", "TOL", "Fit", "LABELS", "LIBRARIES", "THREADLESS", "dist_version",
           "peer"]
