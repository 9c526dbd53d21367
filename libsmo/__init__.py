"""libsmo: support vector machines with a typed-Cython SMO solver, LIBSVM-compatible.

The plain API::

    model = libsmo.train(X, y, kernel="rbf", C=1.0)
    model.predict(X_test)
"""
from libsmo.crossval import cross_validation
from libsmo.io import (dump_svmlight_file, load_model, load_svmlight_file,
                       load_svmlight_files)
from libsmo.model import Model
from libsmo.scaling import Scaler
from libsmo.train import ConvergenceWarning, train

__all__ = ["ConvergenceWarning", "Model", "NuSVC", "NuSVR", "OneClassSVM",
           "RandomFourierFeatures", "SVC", "SVR", "Scaler", "cross_validation",
           "dump_svmlight_file", "load_model", "load_svmlight_file", "load_svmlight_files",
           "train"]
__version__ = "0.1.0"

# The estimators and the transformer use scikit-learn when it is installed, and
# importing it takes about a second: they load on first use, so that the command-line
# tools and the plain API start quickly.
_LAZY = {"SVC": "libsmo.estimators", "NuSVC": "libsmo.estimators",
         "SVR": "libsmo.estimators", "NuSVR": "libsmo.estimators",
         "OneClassSVM": "libsmo.estimators", "RandomFourierFeatures": "libsmo.rff"}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'libsmo' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
