"""Honest counts for scikit-learn's own SVM tests (test_sklearn_suite.py): a test of
that suite that passes without ever calling one of libsmo's estimators -- scikit-learn's
LinearSVC, LinearSVR and liblinear tests, which the shim leaves to scikit-learn until
libsmo has a linear estimator -- is reported as skipped, with that reason, instead of
passed. The pass count is then the count of scikit-learn's tests that libsmo passed."""
import functools
import inspect

import pytest

import libsmo

ESTIMATORS = (libsmo.SVC, libsmo.NuSVC, libsmo.SVR, libsmo.NuSVR, libsmo.OneClassSVM)
# what a test that runs libsmo calls: making an estimator, fitting, predicting
METHODS = ("__init__", "fit", "predict", "decision_function", "predict_proba",
           "predict_log_proba", "score_samples")
NOT_LIBSMO = ("passed without calling libsmo's SVC, NuSVC, SVR, NuSVR or OneClassSVM: "
              "a test of scikit-learn's own LinearSVC/LinearSVR/liblinear, not counted "
              "as a libsmo pass until libsmo has a linear estimator")
_calls = [0]


def _counting(method):
    @functools.wraps(method)   # keeps __init__'s signature for scikit-learn's get_params
    def counted(*args, **kwargs):
        _calls[0] += 1
        return method(*args, **kwargs)
    return counted


@pytest.fixture(scope="session", autouse=True)
def _count_libsmo_calls():
    """Count every call of the estimators' methods for the session."""
    saved = []
    for cls in ESTIMATORS:
        for name in METHODS:
            # the libsmo class that defines it (the estimators share a base)
            owner = next((base for base in cls.__mro__ if name in vars(base)), None)
            if (owner is None or not owner.__module__.startswith("libsmo")
                    or not inspect.isfunction(vars(owner)[name])   # a property: its
                    # function is the predict or decision_function counted
                    or any(o is owner and n == name for o, n, _ in saved)):
                continue
            saved.append((owner, name, vars(owner)[name]))
            setattr(owner, name, _counting(vars(owner)[name]))
    yield
    for cls, name, method in saved:
        setattr(cls, name, method)


def _is_suite_test(item):
    return hasattr(getattr(item, "cls", None), "suite_module")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    if _is_suite_test(item):
        item.libsmo_calls_before = _calls[0]
    yield
    if _is_suite_test(item):
        item.libsmo_calls = _calls[0] - item.libsmo_calls_before


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if (call.when == "call" and report.passed and _is_suite_test(item)
            and getattr(item, "libsmo_calls", 1) == 0 and not hasattr(report, "wasxfail")):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1], NOT_LIBSMO)
