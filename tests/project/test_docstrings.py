"""numpydoc's validation over libsmo's public API: every public name has a numpydoc
docstring (summary, Parameters, Returns, Examples) that numpydoc can read.

The checks (numpydoc's codes, https://numpydoc.readthedocs.io/en/latest/validation.html)
and why. `NUMPYDOC_CHECKS` holds them for every public object (classes, functions,
methods and properties); the Sphinx build's ``numpydoc_validation_checks`` imports it.

- GL01-GL03, GL05-GL07, GL09, GL10: the docstring's layout (where the text starts and
  ends, no double blank lines, no tabs, only numpydoc's sections and in their order,
  well-formed directives), so that numpydoc parses what is written;
- GL08: every public name has a docstring;
- SS01-SS06: a one-line summary that starts with a capital, ends with a period, has
  no leading blank, fits on one line, and (functions and methods) starts with a verb
  in the infinitive ("Train", not "Trains");
- PR01-PR10: every parameter of the signature is documented, none that is not, in
  the signature's order, each with a type (``int``, ``bool``, ``str``, not ``integer``
  ...) and a description that starts with a capital and ends with a period;
- RT01-RT05: a function or method that returns something has a Returns section whose
  lines are a type, and a described value that starts with a capital and ends with
  a period;
- YD01: a generator has a Yields section;
- SA02-SA04: the See Also entries are described, capitalised and end with a period;
- EX01: an Examples section (they run as doctests: tests/project/test_doctests.py).

`TOP_LEVEL_CHECKS` adds, for the public classes and functions themselves (not their
methods and properties, as in scikit-learn's own test): SA01 (a See Also section) and
ES01 (an extended summary).

Not enforced: none of numpydoc's checks is left out for the public names listed
here, except that a property which returns a function (the classifiers'
``predict_proba`` and ``predict_log_proba``, scikit-learn's available_if pattern)
documents that function's parameters, which numpydoc reports as PR02 because a
property has no signature (scikit-learn's test skips PR02 for properties too; the
Sphinx build can do the same with ``numpydoc_validation_overrides = {"PR02":
[PROPERTY_PR02_MARK]}``, the phrase those docstrings share).

Methods are those of libsmo's own classes defined in libsmo: methods a class inherits
from scikit-learn (get_params, set_params, score, fit_predict, ...) or from Python's
exceptions are documented there.
"""
import importlib
import inspect

import numpydoc.validate as numpydoc_validate
import pytest

NUMPYDOC_CHECKS = {
    "GL01", "GL02", "GL03", "GL05", "GL06", "GL07", "GL08", "GL09", "GL10",
    "SS01", "SS02", "SS03", "SS04", "SS05", "SS06",
    "PR01", "PR02", "PR03", "PR04", "PR05", "PR06", "PR07", "PR08", "PR09", "PR10",
    "RT01", "RT02", "RT03", "RT04", "RT05",
    "YD01",
    "SA02", "SA03", "SA04",
    "EX01",
}
TOP_LEVEL_CHECKS = {"SA01", "ES01"}

# the phrase that marks a property returning a function whose parameters it documents
PROPERTY_PR02_MARK = "This property returns a method"

# the public names: each module's __all__, and the names listed here (libsmo.cli's entry
# points, the console scripts of pyproject.toml and ``python -m libsmo``; the types
# that public functions return)
PUBLIC_MODULES = ["libsmo", "libsmo.io", "libsmo.dask", "libsmo.cascade", "libsmo.training",
                  "libsmo.scaling", "libsmo.cli", "libsmo.onnx", "libsmo.io.range_file",
                  "libsmo.training._grid"]
LISTED = {"libsmo.cli": ["grid_main", "main", "predict_main", "scale_main", "train_main"],
          "libsmo.io.range_file": ["RangeFile"],      # read_range_file's
          "libsmo.training._grid": ["Cell", "GridResult"]}   # grid_search's
# modules whose own __all__ is not read (only the names listed)
LISTED_ONLY = {"libsmo.io.range_file", "libsmo.training._grid"}


def _public_module(name):
    # libsmo.dask needs distributed: the test extra installs it
    return importlib.import_module(name)


def _defined_in_libsmo(member):
    """Whether a class member is a function, class/static method or property whose code
    is libsmo's (not scikit-learn's, not Python's)."""
    if isinstance(member, property):
        member = member.fget
    elif isinstance(member, (classmethod, staticmethod)):
        member = member.__func__
    if not inspect.isfunction(member):
        return False
    return member.__module__.split(".")[0] == "libsmo"


def public_methods(cls):
    """(name, member) of the public methods and properties of cls that libsmo defines
    (inherited from libsmo's base classes included)."""
    members = []
    for name in dir(cls):
        if name.startswith("_"):
            continue
        for klass in cls.__mro__:
            if name in vars(klass):
                if _defined_in_libsmo(vars(klass)[name]):
                    members.append((name, vars(klass)[name]))
                break
    return members


def public_names():
    """(dotted path, is a method or property) of every public object: each class, function
    and warning once (by the first public path that names it), with the public methods
    and properties of each class (a method two classes inherit is listed with each)."""
    found, seen = [], set()
    for module_name in PUBLIC_MODULES:
        try:
            module = _public_module(module_name)
        except pytest.skip.Exception:
            continue
        names = LISTED.get(module_name, [])
        if module_name not in LISTED_ONLY:
            names = names + list(getattr(module, "__all__", []))
        for name in sorted(set(names)):
            obj = getattr(module, name)
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            found.append((f"{module_name}.{name}", False))
            if inspect.isclass(obj):
                found += [(f"{module_name}.{name}.{method}", True)
                          for method, _ in public_methods(obj)]
    return found


PUBLIC_NAMES = public_names()


def _load(path):
    module, _, rest = path.partition(".")
    obj = importlib.import_module(module)
    for part in rest.split("."):
        obj = inspect.getattr_static(obj, part) if inspect.isclass(obj) else getattr(obj, part)
    return obj


def checks_failed(path, is_member):
    """numpydoc's findings for the object at `path` among the enforced checks, as
    (code, message) pairs."""
    checks = NUMPYDOC_CHECKS if is_member else NUMPYDOC_CHECKS | TOP_LEVEL_CHECKS
    result = numpydoc_validate.validate(path)
    errors = [(code, message) for code, message in result["errors"] if code in checks]
    if isinstance(_load(path), property) and PROPERTY_PR02_MARK in (result["docstring"]
                                                                    or ""):
        errors = [(code, message) for code, message in errors if code != "PR02"]
    return errors


def test_the_public_api_is_listed():
    paths = {path for path, _ in PUBLIC_NAMES}
    # a few names that must be there, one of each kind: a lazy top-level name, a
    # method inherited from a base class, a property, a class method, an entry point
    for path in ["libsmo.train", "libsmo.SVC.fit", "libsmo.SVC.coef_",
                 "libsmo.SVC.from_model", "libsmo.Model.predict_proba",
                 "libsmo.cli.train_main", "libsmo.io.write_atomically",
                 "libsmo.cascade.solve_partitioned", "libsmo.Scaler.load_range"]:
        assert path in paths
    # scikit-learn's own methods are scikit-learn's to document
    assert "libsmo.SVC.get_params" not in paths


@pytest.mark.parametrize("path, is_member", PUBLIC_NAMES, ids=[p for p, _ in PUBLIC_NAMES])
def test_numpydoc_validation(path, is_member):
    errors = checks_failed(path, is_member)
    assert not errors, f"{path}:\n" + "\n".join(f"  {code}: {message}"
                                                  for code, message in errors)
