"""libsmo: support vector machines with a typed-Cython SMO solver, LIBSVM-compatible.

The plain API::

    model = libsmo.train(X, y, kernel="rbf", C=1.0)
    model.predict(X_test)
"""
from libsmo.crossval import cross_validation
from libsmo.model import Model
from libsmo.train import ConvergenceWarning, train

__all__ = ["ConvergenceWarning", "Model", "NuSVC", "NuSVR", "OneClassSVM",
           "RandomFourierFeatures", "SVC", "SVR", "Scaler", "cross_validation",
           "dump_svmlight_file", "load_model", "load_svmlight_file", "load_svmlight_files",
           "train"]
__version__ = "0.1.0"

# The estimators and the transformer use scikit-learn when it is installed, and
# importing it takes about a second: they load on first use, so that the command-line
# tools and the plain API start quickly.
# The file readers (libsmo.io) and the Scaler, which writes range files, load on first
# use as well: io imports the model layer, never the reverse, and since importing
# libsmo.model runs this file first, an import of io here would break that rule.
_LAZY = {"SVC": "libsmo.estimators", "NuSVC": "libsmo.estimators",
         "SVR": "libsmo.estimators", "NuSVR": "libsmo.estimators",
         "OneClassSVM": "libsmo.estimators", "RandomFourierFeatures": "libsmo.rff",
         "Scaler": "libsmo.scaling", "dump_svmlight_file": "libsmo.io",
         "load_model": "libsmo.io", "load_svmlight_file": "libsmo.io",
         "load_svmlight_files": "libsmo.io"}
# submodules that `libsmo.<name>` reaches without importing them first, as it did
# when this file imported them
_LAZY_MODULES = ("formats", "io", "scaling", "dask")


def __getattr__(name):
    import importlib
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _LAZY_MODULES:
        return importlib.import_module(f"libsmo.{name}")
    raise AttributeError(f"module 'libsmo' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_LAZY_MODULES))
