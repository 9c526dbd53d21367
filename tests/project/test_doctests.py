"""The Examples of libsmo's docstrings run as doctests, one test per module that has
any, on the installed package (so from any clone, whatever the working directory).

They run with ``ELLIPSIS | NORMALIZE_WHITESPACE``, as in scikit-learn: the examples
print rounded numbers and shapes, so that their output is the same on every machine.
Modules of optional extras (``libsmo.dask``) are skipped when the extra is missing.
"""
import doctest
import importlib
import pkgutil

import pytest

import libsmo

OPTION_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# modules that do something when imported (``python -m libsmo`` runs a command)
NOT_IMPORTED = {"libsmo.__main__"}


def libsmo_modules():
    """The names of libsmo and every module below it."""
    names = [libsmo.__name__]
    names += [info.name for info in pkgutil.walk_packages(libsmo.__path__, "libsmo.")]
    return sorted(name for name in names if name not in NOT_IMPORTED)


def _import(name):
    # libsmo.dask needs distributed: the test extra installs it
    return importlib.import_module(name)


def module_doctests(module):
    """The doctests of a module's own objects that have examples."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    return [test for test in finder.find(module, module.__name__) if test.examples]


def _modules_with_examples():
    found = []
    for name in libsmo_modules():
        try:
            module = _import(name)
        except pytest.skip.Exception:
            # listed, and skipped in its test, so that the report says why
            found.append(name)
            continue
        if module_doctests(module):
            found.append(name)
    return found


MODULES = _modules_with_examples()


def test_the_examples_are_found():
    # the package's main names have examples: a missing module here means the finder
    # no longer sees them (a lazy import, a moved module), not that they all pass
    for name in ["libsmo.training._fitting", "libsmo.estimators._classes",
                 "libsmo.model._model", "libsmo.io.svmlight", "libsmo.cli"]:
        assert name in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = _import(name)
    runner = doctest.DocTestRunner(optionflags=OPTION_FLAGS)
    report = []
    for test in module_doctests(module):
        runner.run(test, out=report.append)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, "".join(report)
