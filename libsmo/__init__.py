"""libsmo: support vector machines with a typed-Cython SMO solver, LIBSVM-compatible.

The plain API::

    model = libsmo.train(X, y, kernel="rbf", C=1.0)
    model.predict(X_test)
"""
from libsmo.crossval import cross_validation
from libsmo.estimators import SVC, SVR, NuSVC, NuSVR, OneClassSVM
from libsmo.model import Model
from libsmo.rff import RandomFourierFeatures
from libsmo.train import ConvergenceWarning, train

__all__ = ["ConvergenceWarning", "Model", "NuSVC", "NuSVR", "OneClassSVM",
           "RandomFourierFeatures", "SVC", "SVR", "cross_validation", "train"]
__version__ = "0.1.0"
