"""scikit-learn's own SVM tests, run on libsmo's estimators.

The installed scikit-learn's `sklearn/svm/tests/test_svm.py` and `test_sparse.py` are
read from its package, their imports of `sklearn.svm` pointed at `_sklearn_svm_shim`
(libsmo's SVC, NuSVC, SVR, NuSVR and OneClassSVM, scikit-learn's everything else), and
run here as the classes `TestSvm` and `TestSparse`: every assertion is scikit-learn's,
unedited. The import rewrites are exact string replacements that must each match once,
so a scikit-learn whose tests import differently fails here instead of silently testing
its own estimators.

`EXPECTED_FAILURES` lists every test that does not pass on libsmo, with the reason and
the exception it fails with; each is a strict xfail with that exception (a test that
starts passing, or fails in another way, fails until the list says so).

A test that passes without ever calling libsmo's estimators (scikit-learn's LinearSVC,
LinearSVR and liblinear tests: libsmo has no linear estimator yet) is reported as
skipped with that reason, not as passed (tests/estimators/conftest.py), so that the
pass count is of tests that ran libsmo.
"""
import sys
import types
from pathlib import Path

import pytest
import sklearn

import libsmo
from helpers import sklearn_svm_shim as _sklearn_svm_shim  # noqa: F401

SUITE_DIR = Path(sklearn.__file__).parent / "svm" / "tests"
PACKAGE = "libsmo_sklearn_suite"

# The only edits to scikit-learn's files: where they import sklearn.svm. Each rewrite
# keeps the line count, so tracebacks show scikit-learn's own lines.
IMPORT_REWRITES = {
    "test_svm": [
        ("from sklearn import base, datasets, linear_model, metrics, svm\n",
         "from sklearn import base, datasets, linear_model, metrics; "
         "from helpers import sklearn_svm_shim as svm\n"),
        ("from sklearn.svm import (\n", "from helpers.sklearn_svm_shim import (\n"),
    ],
    "test_sparse": [
        ("from sklearn import base, datasets, linear_model, svm\n",
         "from sklearn import base, datasets, linear_model; from helpers import sklearn_svm_shim as svm\n"),
        ("from sklearn.svm.tests import test_svm\n", f"from {PACKAGE} import test_svm\n"),
    ],
}

# Deliberate deviations, each documented in docs/user_guide/estimators.md ("scikit-learn's
# own tests").
SPARSE_ROWS_ON_DENSE_FIT = (
    "predicting sparse rows with a model fitted on dense rows gives the right answer "
    "(libsmo's kernels take any mix of dense and CSR rows); scikit-learn raises ValueError")
PROBABILITY_KEPT = (
    "probability=True keeps LIBSVM's probability model (svm-train -b 1) without "
    "scikit-learn 1.9's FutureWarning: libsmo does not deprecate it")
PROB_ATTRIBUTES_KEPT = (
    "probA_ and probB_ are LIBSVM's Platt parameters and stay, without scikit-learn 1.9's "
    "FutureWarning")

# what scikit-learn's test fails with where libsmo deliberately differs: pytest.raises
# or pytest.warns that saw nothing (Failed), a message that did not match
# (AssertionError), libsmo's own earlier refusal (ValueError)
DID_NOT_RAISE_OR_WARN = pytest.fail.Exception

# test id (module::name[params]) -> (why it does not pass on libsmo, what it raises)
EXPECTED_FAILURES = {
    "test_svm::test_bad_input[42-lil_matrix]": (SPARSE_ROWS_ON_DENSE_FIT,
                                                DID_NOT_RAISE_OR_WARN),
    "test_svm::test_bad_input[42-lil_array]": (SPARSE_ROWS_ON_DENSE_FIT,
                                               DID_NOT_RAISE_OR_WARN),
    "test_svm::test_probability_raises_futurewarning[True-SVC-SVC]": (
        PROBABILITY_KEPT, DID_NOT_RAISE_OR_WARN),
    "test_svm::test_probability_raises_futurewarning[True-NuSVC-NuSVC]": (
        PROBABILITY_KEPT, DID_NOT_RAISE_OR_WARN),
    "test_svm::test_probability_raises_futurewarning[False-SVC-SVC]": (
        PROBABILITY_KEPT, DID_NOT_RAISE_OR_WARN),
    "test_svm::test_probability_raises_futurewarning[False-NuSVC-NuSVC]": (
        PROBABILITY_KEPT, DID_NOT_RAISE_OR_WARN),
    "test_svm::test_svc_nusvc_probA_probB_deprecated[SVC]": (PROB_ATTRIBUTES_KEPT,
                                                             DID_NOT_RAISE_OR_WARN),
    "test_svm::test_svc_nusvc_probA_probB_deprecated[NuSVC]": (PROB_ATTRIBUTES_KEPT,
                                                               DID_NOT_RAISE_OR_WARN),
    "test_svm::test_svr_errors": (
        "a callable kernel's Gram matrix is checked at fit: a kernel that returns a 1 x 1 "
        "matrix for 2 samples is refused by fit with a ValueError naming both shapes; "
        "scikit-learn fits on it and fails only at predict", ValueError),
    "test_svm::test_svc_nonfinite_params[42]": (
        "X whose squared row norms overflow double precision is refused before training "
        "with a ValueError naming the row and saying to scale the features; scikit-learn "
        "trains and then reports non-finite dual coefficients (its pytest.raises match "
        "fails)", AssertionError),
}


def _load(name):
    """scikit-learn's test module `name`, its sklearn.svm imports rewritten."""
    path = SUITE_DIR / f"{name}.py"
    source = path.read_text()
    for old, new in IMPORT_REWRITES[name]:
        if source.count(old) != 1:
            raise RuntimeError(f"{path}: expected the import {old.strip()!r} exactly once; "
                               "this scikit-learn's tests import differently")
        source = source.replace(old, new)
    if "sklearn.svm import" in source.replace("from sklearn.svm._classes import", ""):
        raise RuntimeError(f"{path} still imports from sklearn.svm")
    if PACKAGE not in sys.modules:
        package = types.ModuleType(PACKAGE)
        package.__path__ = []
        sys.modules[PACKAGE] = package
    module = types.ModuleType(f"{PACKAGE}.{name}")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module
    setattr(sys.modules[PACKAGE], name, module)
    exec(compile(source, str(path), "exec"), module.__dict__)
    assert module.svm.SVC is libsmo.SVC
    return module


def _suite_class(name):
    """A test class holding the module's test functions as static methods, so that
    pytest collects them under their own names."""
    module = _load(name)
    tests = {attr: staticmethod(value) for attr, value in vars(module).items()
             if attr.startswith("test_") and callable(value)}
    return type(f"Test{name[5:].capitalize()}", (), dict(tests, suite_module=name))


TestSvm = _suite_class("test_svm")
TestSparse = _suite_class("test_sparse")


def pytest_generate_tests(metafunc):
    # scikit-learn's global_random_seed fixture: its default seed 42, or what
    # SKLEARN_TESTS_GLOBAL_RANDOM_SEED asks for (scikit-learn's own conftest hook)
    from sklearn.conftest import pytest_generate_tests as sklearn_generate_tests
    sklearn_generate_tests(metafunc)


@pytest.fixture(autouse=True)
def _expected_failure(request):
    module = getattr(request.cls, "suite_module", None)
    expected = EXPECTED_FAILURES.get(f"{module}::{request.node.name}")
    if expected is not None:
        reason, raises = expected
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True, raises=raises))


def test_the_suite_is_whole_and_the_list_names_its_tests(request):
    """All 286 of scikit-learn's tests are collected here (none lost to a changed import
    or fixture), at most 11 of them are expected to fail, and every entry of
    EXPECTED_FAILURES names one of them."""
    names = {f"{item.cls.suite_module}::{item.name}" for item in request.session.items
             if hasattr(getattr(item, "cls", None), "suite_module")}
    if not names:   # this test was selected alone
        pytest.skip("run with the whole module to compare the list with the suite")
    assert len(names) == 286
    assert len(EXPECTED_FAILURES) <= 11
    assert set(EXPECTED_FAILURES) <= names, sorted(set(EXPECTED_FAILURES) - names)
