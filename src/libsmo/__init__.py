"""libsmo: support vector machines with a typed-Cython SMO solver, LIBSVM-compatible.

The plain API::

    model = libsmo.train(X, y, kernel="rbf", C=1.0)
    model.predict(X_test)
    libsmo.save_model(model, "m.model")

The package, one concept a subpackage (``docs/architecture.md`` is the map):
`libsmo.training` (parameters, formulations, the solver's execution, cross-validation,
grid search), `libsmo.model` (the trained model and prediction), `libsmo.io` (LIBSVM's
data, model and range files), `libsmo.estimators` (scikit-learn's estimators),
`libsmo.cascade` (the partitioned exact solver), `libsmo.cli` (the commands),
`libsmo.dask` (Dask), `libsmo.onnx` (export to ONNX), over the compiled core
`libsmo._core`.
"""
import importlib

from libsmo.exceptions import ConvergenceWarning

__all__ = ["ConvergenceWarning", "LibsvmRandom", "Model", "NuSVC", "NuSVR", "OneClassSVM",
           "RandomFourierFeatures", "SVC", "SVR", "Scaler", "cross_validation",
           "dump_svmlight_file", "load_model", "load_svmlight_file", "load_svmlight_files",
           "save_model", "train"]
__version__ = "0.1.0"

# Every public name loads on first use, so that `import libsmo` (and with it the
# commands: libsmo-train -h, a usage error) costs no numpy, scipy or scikit-learn: the
# estimators import scikit-learn (about a second), training imports numpy and
# scipy.sparse (about half a second on a busy machine).
_LAZY = {"train": "libsmo.training", "cross_validation": "libsmo.training",
         "Model": "libsmo.model", "LibsvmRandom": "libsmo._utils.random_sources",
         "SVC": "libsmo.estimators", "NuSVC": "libsmo.estimators",
         "SVR": "libsmo.estimators", "NuSVR": "libsmo.estimators",
         "OneClassSVM": "libsmo.estimators", "RandomFourierFeatures": "libsmo.estimators",
         "Scaler": "libsmo.scaling", "dump_svmlight_file": "libsmo.io",
         "load_model": "libsmo.io", "load_svmlight_file": "libsmo.io",
         "load_svmlight_files": "libsmo.io", "save_model": "libsmo.io"}
# subpackages that `libsmo.<name>` reaches without importing them first
_LAZY_MODULES = ("cascade", "cli", "dask", "estimators", "io", "model", "onnx", "scaling",
                 "training")


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _LAZY_MODULES:
        return importlib.import_module(f"libsmo.{name}")
    raise AttributeError(f"module 'libsmo' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_LAZY_MODULES))
