"""The documentation: the built site's front page, SVC's API page, a gallery page and
the Performance page hold what they should; the command reference lists every option
the commands take; the README starts with its two commands, stays short, and its
headline table is the one the committed benchmark results make; the link checker finds
broken links.

The site is built by `bash docs/build.sh` (.ci/run does it before this test). Without
docs/_build/html the tests of the built pages are skipped with the reason, and fail
under CI (CI=true).
"""
import inspect
import re
import struct
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from helpers.data import UNDER_CI

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "docs" / "_build" / "html"
SECTIONS = {"getting_started.html": "Getting started",
            "user_guide/index.html": "User guide",
            "commands.html": "Command reference", "api.html": "API reference",
            "auto_examples/index.html": "Gallery", "performance.html": "Performance",
            "developer/index.html": "Developer guide", "changelog.html": "Changelog"}
USAGES = {"train": ("libsmo.cli._train", "TRAIN_USAGE"),
          "predict": ("libsmo.cli._predict", "PREDICT_USAGE"),
          "scale": ("libsmo.cli._scale", "SCALE_USAGE"),
          "grid": ("libsmo.cli._grid", "GRID_USAGE"),
          "linear-train": ("libsmo.cli._linear_train", "LINEAR_TRAIN_USAGE"),
          "linear-predict": ("libsmo.cli._linear_predict", "LINEAR_PREDICT_USAGE")}

sys.path.insert(0, str(REPO / "benchmarks"))
import committed_results  # noqa: E402

sys.path.remove(str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "docs"))
import check_links  # noqa: E402

sys.path.remove(str(REPO / "docs"))


class Page(HTMLParser):
    """A built page: its title, text, ids, images and links."""

    def __init__(self, path):
        super().__init__()
        self.path = path
        self.title = ""
        self.text = []
        self.ids = set()
        self.images = []
        self.links = []
        self._in_title = False
        self.feed(path.read_text(encoding="utf-8"))

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "title":
            self._in_title = True
        elif tag == "img":
            self.images.append(attrs.get("src", ""))
        elif tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        self.text.append(data)

    @property
    def words(self):
        return " ".join(" ".join(self.text).split())


def built(relative):
    """A page of the built site; skip (fail under CI) when the site is not built."""
    if not (SITE / "index.html").exists():
        reason = f"the documentation is not built ({SITE} missing): run bash docs/build.sh"
        if UNDER_CI:
            pytest.fail(reason)
        pytest.skip(reason)
    path = SITE / relative
    assert path.exists(), f"{relative} missing from the built site"
    return Page(path)


def image_size(path):
    """(width, height) of a PNG file, from its header."""
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_front_page_names_libsmo_and_links_every_section():
    page = built("index.html")
    assert page.title.startswith("libsmo")
    assert "Support vector machines with LIBSVM's answers" in page.words
    for target, title in SECTIONS.items():
        assert target in page.links, f"the front page does not link {target}"
        assert title in built(target).title, (target, built(target).title)


def test_svc_api_page_has_its_signature_methods_and_parameter_table():
    page = built("generated/libsmo.SVC.html")
    assert page.title.startswith("libsmo.SVC")
    assert "libsmo.SVC" in page.ids
    for method in ("fit", "predict", "decision_function", "to_model", "save"):
        assert f"libsmo.SVC.{method}" in page.ids, f"SVC.{method} is not documented"
    import libsmo
    if "Parameters\n----------" not in inspect.cleandoc(libsmo.SVC.__doc__):
        pytest.skip("SVC's docstring has no numpydoc Parameters section yet (the "
                    "numpydoc docstrings are another branch's work)")
    html = page.path.read_text(encoding="utf-8")
    # the Parameters field, up to the next field (Attributes)
    table = re.search(r'<dt class="field-odd">Parameters.*?(?=<dt class="field-)', html,
                      re.DOTALL)
    assert table, "SVC's page has no Parameters table"
    for name in ("C", "kernel", "gamma", "probability", "class_weight"):
        assert f"<strong>{name}</strong>" in table.group(0), f"{name} missing from it"


def test_gallery_page_shows_its_output_and_figure():
    page = built("auto_examples/seed_simulations.html")
    assert page.title.startswith("An exact RBF SVM against random Fourier features")
    # the script's printed table, run at build time
    for problem in ("gaussian mixture", "moons", "circles"):
        row = rf"{problem}\s+exact\s+[\d.]+\s+\d+\s+[\d.]+%"
        assert re.search(row, page.words), problem
    figures = [src for src in page.images if "sphx_glr_seed_simulations_" in src]
    assert figures, "the gallery page shows no figure"
    width, height = image_size((page.path.parent / figures[0]).resolve())
    assert width > 300 and height > 300


def test_performance_page_holds_the_committed_results():
    page = built("performance.html")
    data = committed_results.load("fastest_peer")
    for row in data["rows"]:
        assert row["label"] in page.words, row["label"]
        assert row["date"] in page.words, row["date"]
    _, rows = committed_results.all_peers_table()
    assert rows[0][0] in page.words and rows[0][1] in page.words
    # the linear regressions' table, every case with its LIBLINEAR objective
    _, rows = committed_results.linear_svr_table()
    for row in rows:
        assert row[0] in page.words and row[6] in page.words, row
    # LinearSVC's ConvergenceWarnings at the defaults: every fit's row, whole
    _, rows = committed_results.linear_convergence_table()
    for row in rows:
        assert " ".join(row) in page.words, row
    # LinearSVC with revisits beside its default: every case with both ratios
    _, rows = committed_results.linear_revisits_table()
    for row in rows:
        assert row[0] in page.words and row[4] in page.words and row[5] in page.words, row
    # LinearSVC on float32 rows beside float64: every case with both ratios
    _, rows = committed_results.linear_float32_table()
    for row in rows:
        assert row[0] in page.words and row[5] in page.words and row[6] in page.words, row
    # the linear one-class SVM's solvers and scikit-learn's: every case with its ratios
    _, rows = committed_results.linear_one_class_table()
    for row in rows:
        assert row[0] in page.words and row[3] in page.words and row[5] in page.words, row
    # the linear fits' memory, every case with libsmo's MB and ratio over LIBLINEAR's
    _, rows = committed_results.linear_memory_table()
    for row in rows:
        assert row[0] in page.words and row[3] in page.words and row[4] in page.words, row
    for name in committed_results.FIGURES:
        shown = [src for src in page.images if src.endswith(name)]
        assert shown, f"the performance page does not show {name}"
        width, height = image_size((page.path.parent / shown[0]).resolve())
        assert width > 300 and height > 200


def test_the_command_reference_lists_every_option():
    import importlib
    reference = (REPO / "docs" / "commands.md").read_text()
    for command, (module, constant) in USAGES.items():
        usage = getattr(importlib.import_module(module), constant)
        options = set(re.findall(r"^(-{1,2}[a-z][\w-]*)", usage, re.MULTILINE))
        assert len(options) >= 2, (command, options)
        for option in options:
            assert f"`{option}" in reference, f"libsmo-{command} {option} is not documented"
        assert f"```{{command-usage}} {command}" in reference


def test_readme_starts_with_its_two_commands_and_stays_short():
    lines = (REPO / "README.md").read_text().splitlines()
    assert lines[:5] == ["# libsmo", "", "```bash",
                         "pip install . && python examples/quickstart.py",
                         "pip install -r requirements/test.txt && pytest"], lines[:5]
    assert lines[5] == "```"
    assert len(lines) <= 150, len(lines)
    # CI runs the two commands as written, in order
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert ci.index(lines[3]) < ci.index(lines[4])


def test_readme_headline_is_made_from_the_committed_results():
    readme = (REPO / "README.md").read_text()
    block = re.search(r"<!-- headline:start[^>]*-->\n(.*?)\n<!-- headline:end -->", readme,
                      re.DOTALL)
    assert block, "README.md has no headline block"
    assert block.group(1) == committed_results.headline(), (
        "README's headline differs from `python benchmarks/committed_results.py readme`")


def test_the_link_checker_finds_a_missing_page_and_anchor(tmp_path):
    (tmp_path / "index.html").write_text(
        '<html><body id="top"><a href="other.html#there">ok</a>'
        '<a href="missing.html">missing</a><a href="other.html#nowhere">anchor</a>'
        '<a href="https://example.org/x">external</a><img src="_images/x.png">'
        '</body></html>')
    (tmp_path / "other.html").write_text('<html><body><p id="there">here</p></body></html>')
    broken, n_pages = check_links.broken_links(tmp_path)
    assert n_pages == 2
    assert sorted((str(page), link, why) for page, link, why in broken) == [
        ("index.html", "_images/x.png", "no such file"),
        ("index.html", "missing.html", "no such file"),
        ("index.html", "other.html#nowhere", "no such anchor")]
