"""Every vector path of the compiled core runs in a test on this processor, or is the
same source as one that does.

The compiled core holds several versions of its vector loops (GCC on Linux x86-64):
GCC's clones of inner_loops.h's, rbf_loops.h's and int_dots.h's loops (SMO_CLONES:
x86-64-v4, avx2, default), of bit_counts.h's counts (SMO_POPCNT_CLONES: popcnt,
default), and two paths chosen at run time: RBF rows eight entries at a time (AVX-512 F
and DQ; made from the same macros as the four-wide rows) and 0/1 rows counted eight
vectors at a time (AVX-512 VPOPCNTDQ). The installed extension runs one clone per
processor, so the others never run in the tests that call it. Here simd_program.c, over
the same headers, is compiled once per target the way GCC compiles each clone
(SMO_CLONES and SMO_POPCNT_CLONES defined empty, the target given as -march / -m flags)
and once with the plain C loops (-DSMO_NO_VECTOR); each build this processor can run
must print what the plain loops print, bit for bit (exponentials: within 2 ulp of
libm's, and the same bits in every vector build), and its runtime paths (the
eight-wide RBF row, the VPOPCNTQ counts) must equal the narrow ones inside it.

The variants compared are printed at the end of the session (tests/core/conftest.py);
a variant this processor runs that no test compared fails under CI.
"""
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import libsmo._core
from helpers import simd

HEADER_DIR = Path(libsmo._core.__file__).resolve().parent
PROGRAM = Path(__file__).resolve().parent / "simd_program.c"
CLONES_AS_TARGETS = ["-DSMO_CLONES=", "-DSMO_POPCNT_CLONES="]
# build -> (its compiler flags, the variants it is the code of)
BUILDS = {
    "default": ([], ("clones: default", "popcount: default")),
    "avx2": (["-mavx2", "-mpopcnt"], ("clones: avx2", "popcount: popcnt")),
    "x86-64-v4": (["-march=x86-64-v4"], ("clones: x86-64-v4", "popcount: popcnt")),
}
# tags whose lines every build prints identically, and those of the exponentials
# (vector exp against libm's exp in the plain build)
EXACT = ("S", "P", "G", "Q", "D", "I", "V")
EXPONENTIALS = ("E", "B")

pytestmark = pytest.mark.skipif(not simd.x86_64_linux(),
                                reason="the clones are built by GCC on Linux x86-64")


def compiler():
    cc = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        simd.under_ci_or_skip("no C compiler on PATH (CI builds the extensions with one)")
    return cc


def build_and_run(folder, name, flags):
    binary = folder / f"simd-{name}"
    subprocess.run([compiler(), "-O2", "-ffp-contract=off", "-Wno-psabi",
                    f"-I{HEADER_DIR}", *flags, str(PROGRAM), "-o", str(binary), "-lm"],
                   check=True, capture_output=True, text=True)
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:]
    return run.stdout.splitlines()


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """The plain build's lines, and a cache of the vector builds' lines."""
    folder = tmp_path_factory.mktemp("simd")
    return {"folder": folder,
            "plain": build_and_run(folder, "plain", CLONES_AS_TARGETS + ["-DSMO_NO_VECTOR"])}


def split(lines, tags):
    return [line for line in lines if line[0] in tags]


def exponentials(lines):
    return np.array([float.fromhex(v) for line in split(lines, EXPONENTIALS)
                     for v in line.split()[1:]])


@pytest.mark.parametrize("build", list(BUILDS))
def test_each_target_prints_the_plain_loops_answers(build, outputs):
    flags, variants = BUILDS[build]
    if not simd.supports(build):
        pytest.skip(f"this processor cannot run {build} code: those clones are the same "
                    "source as the builds compared here")
    lines = build_and_run(outputs["folder"], build, CLONES_AS_TARGETS + flags)
    plain = outputs["plain"]
    assert len(lines) == len(plain) > 100_000
    assert split(lines, EXACT) == split(plain, EXACT)
    # the exponentials: within 2 ulp of libm's exp, 0 where exp leaves the normals
    got, expected = exponentials(lines), exponentials(plain)
    normal = expected > 1e-300
    assert normal.sum() > 10_000 and (~normal).sum() > 100
    ulp = np.abs(got[normal] - expected[normal]) / np.spacing(expected[normal])
    assert ulp.max() <= 2.0
    assert np.all(got[~normal] <= 1e-300)
    # and the same bits in every vector build
    outputs.setdefault("vector", lines)
    assert split(lines, EXPONENTIALS) == split(outputs["vector"], EXPONENTIALS)
    for variant in variants:
        simd.compared(variant, f"simd_program.c built for {build}, against the plain loops")
    # the runtime paths ran inside this build where the processor has them, and each
    # equalled its narrow path (the program stops on the first difference)
    wide = {int(line.split()[1]) for line in lines if line.startswith("W ")}
    popcounts = {int(line.split()[1]) for line in lines if line.startswith("V ")}
    assert wide == {int(simd.supports("rbf eight-wide"))}
    assert popcounts == {int(simd.supports("vpopcntq"))}
    if wide == {1}:
        simd.compared("rbf eight-wide", f"the {build} build's rows, against four-wide")
    if popcounts == {1}:
        simd.compared("vpopcntq", f"the {build} build's counts, against the scalar count")


def test_the_extension_runs_what_this_processor_has():
    """The installed extension picks the clone and the runtime paths this processor
    supports (GCC's resolver and the core's own CPU check), as /proc/cpuinfo says."""
    from libsmo._core.kernel import simd_paths
    paths = simd_paths()
    expected = next(t for t in ("x86-64-v4", "avx2", "default") if simd.supports(t))
    assert paths == {"clones": expected,
                     "rbf_eight_wide": simd.supports("rbf eight-wide"),
                     "vpopcntq": simd.supports("vpopcntq")}


def test_every_variant_this_processor_runs_was_compared():
    """Last in this module: every variant the processor supports was compared above
    (or by test_kernel.py and test_bit_rows.py in the extension itself); under CI a
    variant left uncompared fails."""
    missing = simd.missing()
    if missing:
        simd.under_ci_or_skip(f"variants this processor runs but no test compared in this "
                              f"session: {', '.join(missing)}")
