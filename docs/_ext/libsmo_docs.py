"""Sphinx directives that make pages from the code and the committed results, so that
the site cannot drift from either:

- ``benchmark-table``: a table of benchmarks/results-committed/<name>.json (through
  benchmarks/committed_results.py), followed by where, when and how it was measured;
- ``command-usage``: a command's usage text, as the command prints it;
- the Performance page's figures, drawn from the committed results into
  docs/_generated/ when the build starts.
"""
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive, directives

import committed_results

GENERATED = "_generated"
USAGES = {"train": ("libsmo.cli._train", "TRAIN_USAGE"),
          "predict": ("libsmo.cli._predict", "PREDICT_USAGE"),
          "scale": ("libsmo.cli._scale", "SCALE_USAGE"),
          "grid": ("libsmo.cli._grid", "GRID_USAGE"),
          "linear-train": ("libsmo.cli._linear_train", "LINEAR_TRAIN_USAGE"),
          "linear-predict": ("libsmo.cli._linear_predict", "LINEAR_PREDICT_USAGE")}


def _paragraph(text):
    return nodes.paragraph(text=text)


def table_node(header, rows):
    """A docutils table of strings."""
    table = nodes.table(classes=["benchmark-table"])
    group = nodes.tgroup(cols=len(header))
    table += group
    for _ in header:
        group += nodes.colspec(colwidth=1)
    head = nodes.thead()
    group += head
    body = nodes.tbody()
    group += body
    for cells, parent in [(header, head)] + [(row, body) for row in rows]:
        row_node = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += _paragraph(cell)
            row_node += entry
        parent += row_node
    return table


def source_nodes(data):
    """Where, when and how a result file was measured, and its notes."""
    parts = []
    what = data.get("what")
    if what:
        parts.append(_paragraph(what))
    machine = data.get("machine", {})
    software = ", ".join(f"{name} {version}" for name, version
                         in data.get("software", {}).items())
    where = "; ".join(value for value in (data.get("date") and f"Measured {data['date']}",
                                           machine.get("cpu"), machine.get("memory_note"),
                                           software) if value)
    if data.get("settings"):
        where += f". Settings: {data['settings']}"
    parts.append(_paragraph(where + "."))
    commands = data.get("commands", [])
    if commands:
        items = nodes.bullet_list()
        for command in commands:
            item = nodes.list_item()
            paragraph = nodes.paragraph()
            paragraph += nodes.literal(text=command)
            item += paragraph
            items += item
        parts += [_paragraph("Commands:"), items]
    notes = data.get("notes", [])
    if notes:
        items = nodes.bullet_list()
        for note in notes:
            item = nodes.list_item()
            item += _paragraph(note)
            items += item
        parts.append(items)
    return parts


class BenchmarkTable(Directive):
    """``.. benchmark-table:: NAME`` with ``:peer: libsvm|sklearn|sklearnex`` (the
    fastest-peer rows of one peer) and ``:no-source:``."""

    required_arguments = 1
    option_spec = {"peer": directives.unchanged, "no-source": directives.flag}

    def run(self):
        name = self.arguments[0]
        if name not in committed_results.TABLES:
            raise self.error(f"no committed benchmark table {name!r}; "
                             f"known: {sorted(committed_results.TABLES)}")
        if name == "fastest_peer":
            header, rows = committed_results.fastest_peer_table(self.options.get("peer"))
        else:
            header, rows = committed_results.TABLES[name]()
        if not rows:
            raise self.error(f"benchmark table {name!r} has no rows for {self.options}")
        file = committed_results.TABLE_SOURCES.get(name, name)
        result = [table_node(header, rows)]
        if "no-source" not in self.options:
            result += source_nodes(committed_results.load(file))
        env = self.state.document.settings.env
        env.note_dependency(str(committed_results.RESULTS / f"{file}.json"))
        return result


class CommandUsage(Directive):
    """``.. command-usage:: train|predict|scale|grid|linear-train|linear-predict``: the
    usage text the command
    prints."""

    required_arguments = 1

    def run(self):
        import importlib
        try:
            module, constant = USAGES[self.arguments[0]]
        except KeyError:
            raise self.error(f"no command {self.arguments[0]!r}") from None
        text = getattr(importlib.import_module(module), constant).expandtabs(8)
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


def draw_figures(app):
    committed_results.draw_figures(Path(app.srcdir) / GENERATED)


def setup(app):
    app.add_directive("benchmark-table", BenchmarkTable)
    app.add_directive("command-usage", CommandUsage)
    app.connect("builder-inited", draw_figures)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
