"""The package's layering, as docs/architecture.md states it: which modules may import
which, no import cycle, and no source file over 500 lines.

The imports are read from the source (module-level `import`, `from ... import` and
Cython's `cimport`), not from a running interpreter, so the test sees what a reader of
the code sees. Imports inside functions are the documented exceptions (Model.save's call
into io, the lazy imports of the commands and of `libsmo/__init__.py`).
"""
import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "libsmo"

# docs/architecture.md's levels: a module imports only modules of its own level or of
# lower ones. Names are module paths below libsmo (a package stands for its modules).
LEVELS = [
    ("foundation", ["names", "exceptions", "_random", "_libsvm_figures",
                    "_param_validation", "_parallel", "_sparse", "_cache_budget",
                    "_core"]),
    ("validation", ["_validation", "params", "_one_vs_one"]),
    ("model", ["_support_rows", "_prediction", "probability", "_model_checks", "model"]),
    ("problem", ["problem", "warm_start", "execution", "formulations", "classification",
                 "train", "crossval", "cascade_nodes", "cascade"]),
    ("io", ["io", "formats", "scaling"]),
    ("interfaces", ["_sklearn_compat", "_estimator_params", "_estimator_input",
                    "_estimator_warm_start", "_estimator_base", "_estimator_classifier",
                    "estimators", "rff", "grid", "_cli_common", "_cli_data", "_cli_train",
                    "_cli_predict", "_cli_scale", "_cli_grid", "cli", "__main__",
                    "__init__", "dask"]),
]
LEVEL_OF = {name: rank for rank, (_, names) in enumerate(LEVELS) for name in names}


def module_name(path):
    """libsmo/_core/smo.pyx -> "_core.smo"; libsmo/io/__init__.py -> "io"."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def level(name):
    """The level of a module: its own entry, else its package's."""
    while name not in LEVEL_OF and "." in name:
        name = name.rsplit(".", 1)[0]
    return LEVEL_OF[name]


CIMPORT = re.compile(r"^(?:from\s+libsmo\.([\w.]+)\s+cimport|cimport\s+libsmo\.([\w.]+))",
                     re.M)


def module_imports(path):
    """The libsmo modules that `path` imports at module level (names below libsmo)."""
    text = path.read_text()
    found = set()
    if path.suffix == ".py":
        for node in ast.parse(text).body:
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module)
                if node.module == "libsmo":  # from libsmo import probability as prob
                    found.update(f"libsmo.{a.name}" for a in node.names)
    else:  # Cython: top-level (unindented) imports and cimports
        found.update(re.findall(r"^(?:from|import)\s+(libsmo[\w.]*)", text, re.M))
        found.update("libsmo." + (a or b) for a, b in CIMPORT.findall(text))
    names = {f[len("libsmo."):] for f in found if f.startswith("libsmo.")}
    # `from libsmo import x` where x is a function, not a module, leaves "libsmo"
    return {n for n in names if (PACKAGE / n.replace(".", "/")).exists()
            or any((PACKAGE / (n.replace(".", "/") + ext)).exists()
                   for ext in (".py", ".pyx", ".pxd"))}


SOURCES = sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".pyx", ".pxd", ".h"))
GRAPH = {module_name(p): set() for p in SOURCES if p.suffix != ".h"}
for _path in SOURCES:
    if _path.suffix != ".h":
        GRAPH[module_name(_path)] |= module_imports(_path)


def test_every_module_has_a_level():
    unplaced = [name for name in GRAPH if name != "" and not _placed(name)]
    assert not unplaced, f"modules missing from docs/architecture.md's levels: {unplaced}"


def _placed(name):
    try:
        level(name)
        return True
    except KeyError:
        return False


@pytest.mark.parametrize("name", sorted(GRAPH))
def test_imports_go_down_the_levels(name):
    """A module imports only its own level or lower ones."""
    upward = sorted(other for other in GRAPH[name]
                    if other != name and level(other) > level(name))
    assert not upward, (f"libsmo.{name} ({LEVELS[level(name)][0]}) imports higher "
                        f"levels: {upward}")


def test_no_import_cycle():
    """Depth-first search over the module-level imports (a package's __init__ counts
    as the package)."""
    state = {}

    def visit(node, trail):
        state[node] = "open"
        for nxt in sorted(GRAPH.get(node, ())):
            if nxt == node or nxt not in GRAPH:
                continue
            if state.get(nxt) == "open":
                cycle = trail[trail.index(nxt):] + [nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = "done"

    for node in sorted(GRAPH):
        if node not in state:
            visit(node, [node])


def test_the_core_imports_nothing_outside_it():
    for name, imports in GRAPH.items():
        if name.startswith("_core"):
            outside = sorted(i for i in imports if not i.startswith("_core"))
            assert not outside, f"libsmo.{name} imports {outside}"


def test_the_model_does_not_import_io_or_training():
    assert not {i for i in GRAPH["model"] if i.split(".")[0] in
                ("io", "formats", "train", "problem", "execution")}

