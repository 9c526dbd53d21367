"""The vector paths of the compiled core, what this processor can run, and which of them
the tests compared in this session (printed at its end by tests/core/conftest.py)."""
import os

from helpers.data import UNDER_CI

# /proc/cpuinfo's flags each target needs: x86-64-v4 is v3 (AVX2, BMI1/2, F16C, FMA,
# LZCNT, MOVBE) plus AVX-512 F, BW, CD, DQ and VL
TARGET_FLAGS = {
    "default": (),
    "popcnt": ("popcnt",),
    "avx2": ("avx2",),
    "x86-64-v4": ("avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "avx512f",
                  "avx512bw", "avx512cd", "avx512dq", "avx512vl"),
    "rbf eight-wide": ("avx512f", "avx512dq"),
    "vpopcntq": ("avx512f", "avx512_vpopcntdq"),
}
# every variant the compiled core holds on GCC / Linux / x86-64: SMO_CLONES' three
# clones, SMO_POPCNT_CLONES' two, and the two paths chosen at run time
VARIANTS = ("clones: default", "clones: avx2", "clones: x86-64-v4", "popcount: default",
            "popcount: popcnt", "rbf eight-wide", "vpopcntq")
COMPARED = {}


def cpu_flags():
    """This processor's flags (/proc/cpuinfo; empty elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def x86_64_linux():
    return os.uname().sysname == "Linux" and os.uname().machine == "x86_64"


def supports(target):
    """Whether this processor runs code built for `target` (a TARGET_FLAGS key)."""
    return x86_64_linux() and set(TARGET_FLAGS[target]) <= cpu_flags()


def variant_target(variant):
    """The TARGET_FLAGS key of a VARIANTS name."""
    return variant.split(": ")[-1]


def compared(variant, how):
    """Record that a test compared `variant` (a VARIANTS name), and how."""
    assert variant in VARIANTS, variant
    COMPARED.setdefault(variant, []).append(how)


def missing():
    """The variants this processor runs that no test of the session compared."""
    return [v for v in VARIANTS if supports(variant_target(v)) and v not in COMPARED]


def under_ci_or_skip(reason):
    """Fail under CI, skip elsewhere."""
    import pytest
    if UNDER_CI:
        pytest.fail(reason)
    pytest.skip(reason)
