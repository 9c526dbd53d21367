"""Helpers of the test suite: data sets, input layouts, LIBSVM's peers, the shim that runs
scikit-learn's own SVM tests on libsmo, and the fuzz campaign's worker."""
