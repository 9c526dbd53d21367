"""libsmo: support vector machines with a typed-Cython SMO solver, LIBSVM-compatible.

The plain API::

    model = libsmo.train(X, y, kernel="rbf", C=1.0)
    model.predict(X_test)
"""
import importlib
import sys
import types

from libsmo.exceptions import ConvergenceWarning

__all__ = ["ConvergenceWarning", "LibsvmRandom", "LinearSVC", "LinearSVR", "Model", "NuSVC",
           "NuSVR", "OneClassSVM",
           "RandomFourierFeatures", "SVC", "SVR", "Scaler", "cross_validation",
           "dump_svmlight_file", "load_model", "load_svmlight_file", "load_svmlight_files",
           "train"]
__version__ = "0.1.0"

# Every public name loads on first use, so that `import libsmo` (and with it the
# commands: libsmo-train -h, a usage error, the lazy paths of libsmo.cli) costs no
# numpy, scipy or scikit-learn: the estimators import scikit-learn (about a second),
# training imports numpy and scipy.sparse (about half a second on a busy machine).
# The file readers (libsmo.io) are among them for another reason too: io imports the
# model layer, never the reverse, and since importing libsmo.model runs this file
# first, an import of io here would break that rule.
_LAZY = {"train": "libsmo.train", "cross_validation": "libsmo.crossval",
         "Model": "libsmo.model", "LibsvmRandom": "libsmo._random",
         "SVC": "libsmo.estimators", "NuSVC": "libsmo.estimators",
         "SVR": "libsmo.estimators", "NuSVR": "libsmo.estimators",
         "OneClassSVM": "libsmo.estimators", "RandomFourierFeatures": "libsmo.rff",
         "LinearSVC": "libsmo._estimator_linear", "LinearSVR": "libsmo._estimator_linear",
         "Scaler": "libsmo.scaling", "dump_svmlight_file": "libsmo.io",
         "load_model": "libsmo.io", "load_svmlight_file": "libsmo.io",
         "load_svmlight_files": "libsmo.io"}
# submodules that `libsmo.<name>` reaches without importing them first, as it did
# when this file imported them
_LAZY_MODULES = ("formats", "io", "scaling", "names", "dask")


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


class _Package(types.ModuleType):
    """The `libsmo` module's class: `libsmo.train` is the function, whatever imports
    the submodule of the same name.

    Importing the submodule `libsmo.train` (which training code does) makes Python set
    the package's attribute `train` to that module; when this file imported the
    function eagerly, its own binding came last and won. With lazy names the
    submodule's import would come last, so this property answers instead: the
    function (or whatever a caller assigned, such as a test's stand-in).
    """

    @property
    def train(self):
        override = self.__dict__.get("_train_assigned")
        if override is not None:
            return override
        return importlib.import_module("libsmo.train").train

    @train.setter
    def train(self, value):
        if not (isinstance(value, types.ModuleType) and value.__name__ == "libsmo.train"):
            self.__dict__["_train_assigned"] = value   # the submodule stays in sys.modules

    @train.deleter
    def train(self):
        self.__dict__.pop("_train_assigned", None)


sys.modules[__name__].__class__ = _Package
