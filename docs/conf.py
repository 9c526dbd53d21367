"""Sphinx configuration of libsmo's documentation (docs/build.sh builds and checks it).

The site is made from: the pages in this folder (Markdown through myst-parser, except
the API reference's reStructuredText), the docstrings (autodoc, autosummary, numpydoc),
the example scripts in ../examples (sphinx-gallery runs them at build time), and the
benchmark results committed in ../benchmarks/results-committed (tables and figures made
by _ext/libsmo_docs.py at build time).

Environment:
- LIBSMO_DOCS_QUICK=1 (also CI=true): the gallery runs its examples on the reduced
  sizes the example tests use (about 16 CPU seconds for the whole build, instead of
  about 17 CPU minutes).
- LIBSMO_DOCS_OFFLINE=1: do not try to reach numpy's, scipy's, scikit-learn's and
  Python's inventories (intersphinx); without network they are skipped anyway, and the
  build says so.
- LIBSMO_DATA_DIR: the data sets the examples read (default ../../shared/data).
"""
import ast
import importlib.util
import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(REPO / "benchmarks"))

# libsmo as installed (pip install .), else this checkout's in-place build
# (python setup.py build_ext --inplace writes the extensions into src/libsmo)
if importlib.util.find_spec("libsmo") is None:
    sys.path.insert(0, str(REPO / "src"))
from intersphinx_fallback import reachable_inventories  # noqa: E402

import libsmo  # noqa: E402

project = "libsmo"
author = "the libsmo developers"
copyright = "2026, the libsmo developers"
version = release = libsmo.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "libsmo_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_generated/README.md", "**.ipynb_checkpoints",
                    "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5",
                    "auto_examples/*.codeobj.json"]
templates_path = ["_templates"]
default_role = "literal"
# LIBSVM's names and the commands' words keep their straight quotes
smartquotes = False

# -- Markdown ---------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# -- API reference ----------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# numpydoc's validation runs on every docstring the API reference shows, and fails the
# build (-W) on the checks the docstrings' own test enforces
# (tests/project/test_docstrings.py's NUMPYDOC_CHECKS, read from the file without
# running it); until that test exists, the checks below.
DEFAULT_NUMPYDOC_CHECKS = {"GL08", "PR01", "RT01", "EX01"}
DOCSTRING_TEST = REPO / "tests" / "project" / "test_docstrings.py"


def _constants(path, names):
    """The literal values assigned to `names` at the top level of a Python file."""
    values = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in names:
                    values[target.id] = ast.literal_eval(node.value)
    return values


_DOCSTRING_TEST = _constants(DOCSTRING_TEST, {"NUMPYDOC_CHECKS", "PROPERTY_PR02_MARK"}) \
    if DOCSTRING_TEST.exists() else {}
numpydoc_validation_checks = set(_DOCSTRING_TEST.get("NUMPYDOC_CHECKS",
                                                     DEFAULT_NUMPYDOC_CHECKS))
if "PROPERTY_PR02_MARK" in _DOCSTRING_TEST:
    # a property that returns a method documents that method's parameters (the
    # classifiers' predict_proba), which numpydoc reports as PR02
    numpydoc_validation_overrides = {"PR02": [_DOCSTRING_TEST["PROPERTY_PR02_MARK"]]}

# -- cross-references to numpy, scipy, scikit-learn and Python ------------------
intersphinx_mapping = reachable_inventories(
    {"python": "https://docs.python.org/3/",
     "numpy": "https://numpy.org/doc/stable/",
     "scipy": "https://docs.scipy.org/doc/scipy/",
     "sklearn": "https://scikit-learn.org/stable/"},
    cache=DOCS / "_build" / "inventories",
    shipped=DOCS / "_inventories",
    offline=os.environ.get("LIBSMO_DOCS_OFFLINE") == "1")
intersphinx_timeout = 10

# -- the gallery --------------------------------------------------------------
QUICK = (os.environ.get("LIBSMO_DOCS_QUICK") == "1"
         or os.environ.get("CI", "").lower() in ("1", "true", "yes"))
os.environ["LIBSMO_DOCS_QUICK"] = "1" if QUICK else "0"
os.environ.setdefault("LIBSMO_GALLERY_OUT", str(DOCS / "_build" / "gallery-output"))
sphinx_gallery_conf = {
    "examples_dirs": str(REPO / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/(?!_)[^/]+\.py$",   # run every example but _common.py
    "ignore_pattern": r"^(_common|__init__)\.py$",
    "within_subsection_order": "FileNameSortKey",
    "reset_argv": "gallery_hooks.reset_argv",
    "image_scrapers": ("matplotlib", "gallery_hooks.png_files"),
    "remove_config_comments": True,
    "download_all_examples": False,
    "plot_gallery": "True",
    "abort_on_example_error": True,
    "show_memory": False,
    "min_reported_time": 1,
    "capture_repr": (),
}

# -- HTML ---------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"libsmo {release}"
html_static_path = []
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "secondary_sidebar_items": ["page-toc"],
    "header_links_before_dropdown": 8,
}
html_sidebars = {"index": [], "changelog": []}
