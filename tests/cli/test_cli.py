"""The command-line tools against LIBSVM's own (Debian's svm-train, svm-predict,
svm-scale): same options, same printed lines, interchangeable files."""
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from helpers.data import UNDER_CI, data_file


def need_debian_tool(program, package):
    """Skip where Debian's `package` (its `program`) is not installed; fail under CI."""
    if shutil.which(program) is None:
        reason = f"Debian's {package} ({program}) is not installed"
        if UNDER_CI:
            pytest.fail(reason)
        pytest.skip(reason)


def need_libsvm_tools():
    need_debian_tool("svm-train", "libsvm-tools")


def run(args, cwd, ok=True):
    """Run a command; the tools are run as `python -m libsmo ...` so that they are
    this interpreter's, from a folder outside the source tree."""
    if args[0].startswith("libsmo-"):
        args = [sys.executable, "-m", "libsmo", args[0][len("libsmo-"):], *args[1:]]
    out = subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd,
                         timeout=300)
    if ok:
        assert out.returncode == 0, (args, out.stdout, out.stderr)
    return out


def accuracy_line(text):
    return re.search(r"Accuracy = \S+ \(\d+/\d+\) \(classification\)", text).group(0)


@pytest.mark.parametrize("options", [[], ["-t", "0"], ["-s", "1", "-n", "0.4"],
                                     ["-c", "4", "-g", "0.5"], ["-w1", "3", "-w-1", "0.5"]],
                         ids=["default", "linear", "nu-svc", "c-g", "weights"])
def test_train_and_predict_like_libsvm(tmp_path, options):
    need_libsvm_tools()
    data = data_file("heart_scale")
    run(["svm-train", "-q", *options, data, "theirs.model"], tmp_path)
    trained = run(["libsmo-train", *options, data, "ours.model"], tmp_path)
    assert "optimization finished, #iter = " in trained.stdout
    assert "Total nSV = " in trained.stdout
    # each tool predicts with each model: the same accuracy line four times
    lines = set()
    for model in ("theirs.model", "ours.model"):
        lines.add(accuracy_line(run(["svm-predict", data, model, "o1"], tmp_path).stdout))
        lines.add(accuracy_line(run(["libsmo-predict", data, model, "o2"], tmp_path).stdout))
        np.testing.assert_array_equal(np.loadtxt(tmp_path / "o1"), np.loadtxt(tmp_path / "o2"))
    assert len(lines) == 1, lines


def test_default_model_name_and_quiet(tmp_path):
    need_libsvm_tools()
    data = data_file("heart_scale")
    out = run(["libsmo-train", "-q", data], tmp_path)
    assert out.stdout == ""
    assert (tmp_path / "heart_scale.model").exists()
    assert run(["libsmo-predict", "-q", data, "heart_scale.model", "p"], tmp_path).stdout == ""


def test_regression_lines(tmp_path):
    need_libsvm_tools()
    data = data_file("housing_scale")
    run(["svm-train", "-q", "-s", "3", "-c", "10", "-p", "0.5", data, "theirs.model"], tmp_path)
    run(["libsmo-train", "-q", "-s", "3", "-c", "10", "-p", "0.5", data, "ours.model"], tmp_path)
    theirs = run(["svm-predict", data, "theirs.model", "o1"], tmp_path).stdout
    ours = run(["libsmo-predict", data, "ours.model", "o2"], tmp_path).stdout
    mse = [float(re.search(r"Mean squared error = (\S+) \(regression\)", t).group(1))
           for t in (theirs, ours)]
    assert mse[1] == pytest.approx(mse[0], rel=1e-4)
    assert "Squared correlation coefficient = " in ours


def test_probability_output(tmp_path):
    need_libsvm_tools()
    data = data_file("heart_scale")
    run(["libsmo-train", "-q", "-b", "1", data, "ours.model"], tmp_path)
    run(["svm-predict", "-b", "1", data, "ours.model", "o1"], tmp_path)
    run(["libsmo-predict", "-b", "1", data, "ours.model", "o2"], tmp_path)
    theirs = (tmp_path / "o1").read_text().splitlines()
    ours = (tmp_path / "o2").read_text().splitlines()
    assert ours[0] == theirs[0] == "labels 1 -1"
    np.testing.assert_allclose(np.loadtxt(ours[1:]), np.loadtxt(theirs[1:]), atol=2e-6)


def test_cross_validation_line(tmp_path):
    """svm-train's folds by default: svm-train's figure, on every run."""
    need_libsvm_tools()
    data = data_file("heart_scale")
    theirs = run(["svm-train", "-v", "5", data], tmp_path).stdout
    lines = {accuracy_of(run(["libsmo-train", "-v", "5", data], tmp_path).stdout)
             for _ in range(2)}
    assert lines == {accuracy_of(theirs)}
    other = run(["libsmo-train", "--seed", "7", "-v", "5", data], tmp_path).stdout
    assert 75 < float(accuracy_of(other)) < 90


def accuracy_of(text):
    return re.search(r"Cross Validation Accuracy = (\S+)%", text).group(1)


@pytest.mark.parametrize("args,tool", [
    (["-x", "1", "{data}"], "libsmo-train"),
    (["-c"], "libsmo-train"),
    (["-c", "abc", "{data}"], "libsmo-train"),
    ([], "libsmo-train"),
    (["{data}"], "libsmo-predict"),
    (["-b", "2", "{data}", "m", "o"], "libsmo-predict"),
    (["-x", "1", "{data}"], "libsmo-scale"),
    ([], "libsmo-scale"),
])
def test_bad_options_print_usage_and_fail(tmp_path, args, tool):
    """As LIBSVM's exit_with_help: the usage text on stdout, status 1."""
    data = data_file("heart_scale")
    out = run([tool, *[a.format(data=data) for a in args]], tmp_path, ok=False)
    assert out.returncode == 1
    assert out.stdout.startswith("Usage: " + tool)
    assert "Traceback" not in out.stderr


def test_missing_files_fail_cleanly(tmp_path):
    out = run(["libsmo-train", tmp_path / "nope"], tmp_path, ok=False)
    assert out.returncode != 0 and "can't open input file" in out.stderr
    data = data_file("heart_scale")
    out = run(["libsmo-predict", data, tmp_path / "nope.model", "o"], tmp_path, ok=False)
    assert out.returncode != 0 and "can't open model file" in out.stderr


@pytest.mark.parametrize("name,options", [("heart_scale", ["-l", "0", "-u", "1"]),
                                          ("housing_scale", ["-y", "0", "1"]),
                                          ("a9a", ["-l", "0"])])
def test_scale_like_svm_scale(tmp_path, name, options):
    """The same bytes as svm-scale: scaled data, range files, and each tool restoring
    the other's range file."""
    need_libsvm_tools()
    data = data_file(name)
    theirs = run(["svm-scale", *options, "-s", "theirs.range", data], tmp_path)
    ours = run(["libsmo-scale", *options, "-s", "ours.range", data], tmp_path)
    assert ours.stdout == theirs.stdout and ours.stderr == theirs.stderr
    assert (tmp_path / "ours.range").read_bytes() == (tmp_path / "theirs.range").read_bytes()
    again = run(["svm-scale", "-r", "ours.range", data], tmp_path).stdout
    mine = run(["libsmo-scale", "-r", "theirs.range", data], tmp_path).stdout
    assert again == mine == theirs.stdout


def test_scale_names_unscaled_features_as_svm_scale(tmp_path):
    """A range file fitted on other data (bodyfat's 14 features for housing's 13, and
    heart_scale's 13 for pendigits' 16): the scaled data, and svm-scale's warning for
    each feature that varies but has no range, in its words and order."""
    need_libsvm_tools()
    for fitted, data in (("heart_scale", "pendigits"), ("housing_scale", "bodyfat_scale")):
        run(["svm-scale", "-s", "r", data_file(fitted)], tmp_path)
        theirs = run(["svm-scale", "-r", "r", data_file(data)], tmp_path)
        ours = run(["libsmo-scale", "-r", "r", data_file(data)], tmp_path)
        assert "was not seen in the scaling factor file r." in theirs.stderr
        assert ours.stderr == theirs.stderr and ours.stdout == theirs.stdout


TOOLS = ("libsmo-train", "libsmo-predict", "libsmo-scale", "libsmo-grid",
         "libsmo-linear-train", "libsmo-linear-predict")


def test_pyproject_declares_the_tools():
    """[project.scripts] names each tool, and each entry point resolves to a function."""
    import importlib
    from pathlib import Path
    tomllib = pytest.importorskip("tomllib")   # Python 3.11+
    scripts = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml")
                            .read_text())["project"]["scripts"]
    assert sorted(scripts) == sorted(TOOLS)
    for target in scripts.values():
        module, function = target.split(":")
        assert callable(getattr(importlib.import_module(module), function))


def test_console_scripts_are_installed():
    """What the installed libsmo declares is on PATH, and prints its usage."""
    from importlib import metadata
    try:
        declared = [e.name for e in metadata.distribution("libsmo").entry_points
                    if e.group == "console_scripts"]
    except metadata.PackageNotFoundError:
        declared = []
    if not declared:
        reason = "libsmo is not installed (pip install . installs its commands)"
        if UNDER_CI:
            pytest.fail(reason)
        pytest.skip(reason)
    for name in declared:
        path = shutil.which(name)
        assert path is not None, f"{name} is not on PATH after pip install"
        out = subprocess.run([path], capture_output=True, text=True)
        assert out.returncode != 0 and f"Usage: {name}" in out.stdout
