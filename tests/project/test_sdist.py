"""`python -m build`: an sdist holding everything a build needs, and a wheel built from
that sdist unpacked in a clean folder (build's own way), which installs into a fresh
virtual environment and trains there, commands included.

Slow (one whole build in an isolated environment that pip fills from the package index,
minutes): `pytest -m slow tests/project/test_sdist.py`; .ci/run runs it.
"""
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def run(args, cwd, timeout=1800):
    out = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                         timeout=timeout)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    return out.stdout


def test_sdist_and_wheel_build_and_install(tmp_path):
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "build", "--outdir", dist, REPO], cwd=tmp_path)
    (sdist,) = dist.glob("libsmo-*.tar.gz")
    (wheel,) = dist.glob("libsmo-*.whl")

    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md",
                   "requirements/test.txt", "requirements/onnx.txt",
                   "src/libsmo/_core/smo.pyx", "src/libsmo/_core/smo.pxd",
                   "src/libsmo/_core/inner_loops.h", "src/libsmo/io/_svmlight.pyx",
                   "src/libsmo/onnx.py"):
        assert needed in names, needed
    with zipfile.ZipFile(wheel) as whl:
        inside = whl.namelist()
        metadata = whl.read(next(n for n in inside if n.endswith("METADATA"))).decode()
    assert any(n.startswith("libsmo/_core/smo.") and n.endswith((".so", ".pyd"))
               for n in inside)
    assert any("_cyutility" in n for n in inside)
    # the extras are the requirements files' lists
    assert "Provides-Extra: test" in metadata and "Provides-Extra: onnx" in metadata
    assert 'Requires-Dist: skl2onnx>=1.17; extra == "onnx"' in metadata

    # a fresh environment (the machine's numpy and scipy visible), outside the clone
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--system-site-packages", venv], cwd=tmp_path)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    # --ignore-installed: the machine's own libsmo (CI's `pip install .`) would
    # otherwise satisfy the requirement and nothing would go into the venv
    run([python, "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed",
         wheel], cwd=tmp_path)
    work = tmp_path / "elsewhere"
    work.mkdir()
    (work / "tiny").write_text("+1 1:0.9 2:0.1\n-1 1:0.1 2:0.8\n+1 1:0.8 2:0.3\n"
                               "-1 1:0.2 2:0.9\n")
    out = run([python, "-c",
               "import libsmo, numpy as np; print(libsmo.__file__);"
               "X, y = libsmo.load_svmlight_file('tiny');"
               "print(libsmo.SVC(kernel='linear').fit(X, y).score(X, y))"], cwd=work)
    location, score = out.split()
    assert Path(location).resolve().is_relative_to(venv.resolve())
    assert float(score) == 1.0
    run([bindir / "libsmo-train", "-t", "0", "tiny", "tiny.model"], cwd=work)
    assert (work / "tiny.model").read_text().startswith("svm_type c_svc\n")
