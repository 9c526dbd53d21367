"""The package's layering, as docs/architecture.md states it: which packages may import
which, no import cycle (imports inside functions included), no module named like a
public name it would shadow, and a package `__init__` that is a plain module.

The imports are read from the source (`import`, `from ... import` at any depth, and
Cython's `cimport`), not from a running interpreter, so the test sees what a reader of
the code sees. `from libsmo.pkg import module` counts as an import of that module, not of
the package's `__init__` (a facade of re-exports).
"""
import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "libsmo"

# docs/architecture.md's levels, bottom up: a module imports only modules of its own
# level or of lower ones. Names are module paths below libsmo; a package stands for
# its modules.
LEVELS = [
    ("compiled core", ["_core"]),
    ("foundation", ["_utils", "exceptions"]),
    ("kernel blocks", ["_blocks"]),
    ("model", ["model"]),
    ("files", ["io", "scaling"]),
    # a binary problem and its execution on the core, which the cascade's nodes solve
    ("problems", ["training._problem", "training._warm_start", "training._linear_start",
                  "training._execution"]),
    ("cascade", ["cascade"]),
    # the rest of training sends large C-SVC problems to the cascade (solver=)
    ("training", ["training"]),
    ("estimators", ["estimators"]),
    ("interfaces", ["cli", "dask", "onnx", "__init__", "__main__"]),
]
LEVEL_OF = {name: rank for rank, (_, names) in enumerate(LEVELS) for name in names}


def module_name(path):
    """src/libsmo/_core/smo.pyx -> "_core.smo"; src/libsmo/io/__init__.py -> "io"."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def is_module(name):
    """Whether libsmo.<name> is a module or package of the source tree."""
    base = PACKAGE / name.replace(".", "/")
    return base.is_dir() or any(base.with_suffix(ext).exists()
                                for ext in (".py", ".pyx", ".pxd"))


def level(name):
    """The level of a module: its own entry, else its package's."""
    while name not in LEVEL_OF and "." in name:
        name = name.rsplit(".", 1)[0]
    return LEVEL_OF[name]


CIMPORT = re.compile(r"^\s*(?:from\s+libsmo\.([\w.]+)\s+cimport|cimport\s+libsmo\.([\w.]+))",
                     re.M)


def module_imports(path, top_level_only=False):
    """The libsmo modules that `path` imports (names below libsmo)."""
    text = path.read_text()
    found = set()
    if path.suffix == ".py":
        tree = ast.parse(text)
        nodes = tree.body if top_level_only else ast.walk(tree)
        for node in nodes:
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                submodules = {f"{node.module}.{a.name}" for a in node.names
                              if node.module.startswith("libsmo")
                              and is_module(f"{node.module}.{a.name}"[len("libsmo."):])}
                found.update(submodules)
                if len(submodules) < len(node.names):
                    found.add(node.module)
    else:  # Cython
        found.update(re.findall(r"^\s*(?:from|import)\s+(libsmo[\w.]*)", text, re.M))
        found.update("libsmo." + (a or b) for a, b in CIMPORT.findall(text))
    names = {f[len("libsmo."):] for f in found if f.startswith("libsmo.")}
    return {n for n in names if is_module(n)}


SOURCES = sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".pyx", ".pxd"))
GRAPH = {}
for _path in SOURCES:
    GRAPH.setdefault(module_name(_path), set()).update(module_imports(_path))


def _placed(name):
    try:
        level(name)
        return True
    except KeyError:
        return False


def test_every_module_has_a_level():
    unplaced = [name for name in GRAPH if not _placed(name)]
    assert not unplaced, f"modules missing from docs/architecture.md's levels: {unplaced}"


@pytest.mark.parametrize("name", sorted(GRAPH))
def test_imports_go_down_the_levels(name):
    """A module imports only its own level or lower ones, inside functions too."""
    upward = sorted(other for other in GRAPH[name]
                    if other != name and level(other) > level(name))
    assert not upward, (f"libsmo.{name} ({LEVELS[level(name)][0]}) imports higher "
                        f"levels: {upward}")


def find_cycle(graph):
    """An import cycle of `graph` as a list of modules, or None."""
    state = {}

    def visit(node, trail):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if nxt == node or nxt not in graph:
                continue
            if state.get(nxt) == "open":
                return trail[trail.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt, trail + [nxt])
                if cycle:
                    return cycle
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node, [node])
            if cycle:
                return cycle
    return None


def test_no_import_cycle():
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def longest_chain(graph):
    """The longest path of imports (the number of modules on it): how deep a reader
    must go from one module to the last it depends on."""
    memo = {}

    def depth(node):
        if node not in memo:
            memo[node] = 1 + max((depth(n) for n in graph.get(node, ())
                                  if n != node and n in graph), default=0)
        return memo[node]

    return max(depth(node) for node in graph)


def test_longest_import_chain_is_reported():
    """The architecture document quotes the depth; it may not grow past it unnoticed."""
    documented = re.search(r"longest import chain is (\d+) modules",
                           (PACKAGE.parents[1] / "docs" / "architecture.md").read_text())
    assert documented, "docs/architecture.md states the longest import chain"
    assert longest_chain(GRAPH) <= int(documented.group(1))


def test_the_core_imports_nothing_outside_it():
    for name, imports in GRAPH.items():
        if name.startswith("_core"):
            outside = sorted(i for i in imports if not i.startswith("_core"))
            assert not outside, f"libsmo.{name} imports {outside}"


def test_io_imports_nothing_from_training():
    for name, imports in GRAPH.items():
        if name.startswith("io"):
            assert not {i for i in imports if i.split(".")[0] in ("training", "cascade")}


def test_the_model_does_not_import_io_or_training():
    for name, imports in GRAPH.items():
        if name.startswith("model"):
            assert not {i for i in imports if i.split(".")[0] in ("io", "training")}, name


def _public_names(package_dir):
    init = package_dir / "__init__.py"
    match = re.search(r"__all__ = \[(.*?)\]", init.read_text(), re.S)
    return set(re.findall(r'"(\w+)"', match.group(1))) if match else set()


@pytest.mark.parametrize("package_dir", sorted(p.parent for p in PACKAGE.rglob("__init__.py")),
                         ids=lambda p: module_name(p / "__init__.py") or "libsmo")
def test_no_module_named_like_a_public_name(package_dir):
    """A submodule named like a name its package exports would replace that name as
    soon as something imports the submodule."""
    modules = {p.stem for p in package_dir.iterdir()
               if p.suffix in (".py", ".pyx") or (p / "__init__.py").exists()}
    clash = modules & _public_names(package_dir)
    assert not clash, f"{package_dir.name}: modules named like public names: {clash}"


def test_package_init_is_a_plain_module():
    """No module-class trick: `libsmo` pickles by reference like any package."""
    text = (PACKAGE / "__init__.py").read_text()
    assert "ModuleType" not in text and "__class__" not in text
