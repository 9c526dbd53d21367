"""scikit-learn estimators over libsmo's training: SVC, NuSVC, SVR, NuSVR, OneClassSVM,
and the RandomFourierFeatures transformer.

``_classes``
    the public estimators, their parameters and documentation.
``_base``, ``_classifier``
    fitting through `TrainParams`, scikit-learn's fitted attributes, prediction.
``_params``, ``_input``
    the estimators' parameter forms and data checks, in scikit-learn's words.
``_warm_start``
    ``warm_start=True``: the previous fit mapped onto the new fit's rows.
``_sklearn_compat``
    scikit-learn's base classes and exceptions, or stand-ins without it.
``_rff``
    random Fourier features (Rahimi and Recht 2007).
"""
from libsmo.estimators._classes import SVC, SVR, NuSVC, NuSVR, OneClassSVM
from libsmo.estimators._rff import RandomFourierFeatures

__all__ = ["NuSVC", "NuSVR", "OneClassSVM", "RandomFourierFeatures", "SVC", "SVR"]
