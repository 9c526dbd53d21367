"""`sklearn.svm` with libsmo's five estimators in place of scikit-learn's.

scikit-learn's own SVM tests (tests/test_sklearn_suite.py runs them) import this module
where they import `sklearn.svm`: SVC, NuSVC, SVR, NuSVR and OneClassSVM are libsmo's,
everything else (LinearSVC, LinearSVR, l1_min_c, the private modules the tests reach
into) is scikit-learn's.
"""
from sklearn.svm import *  # noqa: F401,F403  LinearSVC, LinearSVR, l1_min_c
from sklearn.svm import _base, _classes, _libsvm, _libsvm_sparse  # noqa: F401

from libsmo import SVC, SVR, NuSVC, NuSVR, OneClassSVM  # noqa: F401

LIBSMO_ESTIMATORS = (SVC, NuSVC, SVR, NuSVR, OneClassSVM)
