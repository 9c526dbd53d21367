"""libsmo/_core/inner_loops.h's vector loops against its plain C loops (-DSMO_NO_VECTOR), which the
installed build never runs on x86-64 with GCC or clang.

A small C program over the header is compiled both ways and run on random inputs with
many ties (G on a coarse grid, a third of the variables outside I_up / I_low): the
selection loops must pick the same variables with the same values, the dense dot
products must be equal to the bit, and the vectorised RBF exponentials within 2 ulp of
libm's exp, which the plain loop calls.
"""
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import libsmo._core

# the headers ship with the package (package data), beside its compiled modules
HEADER_DIR = Path(libsmo._core.__file__).resolve().parent

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include "inner_loops.h"

int main(void)
{
    enum { N = 1003 };
    static double G[N], y[N], pen[N], QD[N], out[N], sq[N], cols[16 * N], xi[16];
    static float Q[N];
    int r, t, f;
    srand(1);
    for (r = 0; r < 300; r++) {
        int n = 1 + rand() % N, d = 1 + rand() % 16, i, j;
        double m, low, obj;
        for (t = 0; t < n; t++) {
            y[t] = rand() % 2 ? 1.0 : -1.0;
            G[t] = (rand() % 7) - 3.0 + (rand() % 3) * 0.25;
            pen[t] = rand() % 3 ? 0.0 : -INFINITY;
            QD[t] = 1.0 + (rand() % 2);
            Q[t] = (float)((rand() % 5) / 5.0 - 0.4);
            sq[t] = (rand() % 1000) / 10.0;
            out[t] = (rand() % 1000) / 40.0;
        }
        i = smo_argmax_up(n, G, y, pen, &m);
        j = smo_partner(n, G, y, pen, QD, Q, 1.5, y[0], m, &low, &obj);
        printf("S %d %d %.17g %.17g %.17g\n", i, j, m, low, obj);
        /* the partner again on continuous values of every magnitude: near-ties,
           subnormal and overflowing objectives */
        for (t = 0; t < n; t++) {
            double scale = pow(10.0, (rand() % 321) - 160);
            G[t] = ((double)rand() / RAND_MAX - 0.5) * scale;
            QD[t] = (double)rand() / RAND_MAX * pow(10.0, (rand() % 21) - 10);
        }
        m = ((double)rand() / RAND_MAX) * pow(10.0, (rand() % 321) - 160);
        j = smo_partner(n, G, y, pen, QD, Q, 1e-3, y[0], m, &low, &obj);
        printf("P %d %.17g %.17g\n", j, low, obj);
        /* RBF arguments -10 (sq_i + sq_j - 2 dot) from 0 down to about -1500 */
        smo_rbf_from_dots(n, out, sq, 50.0, 10.0);
        for (t = 0; t < n; t++)
            printf("E %.17g\n", out[t]);
        for (t = 0; t < d * n; t++)
            cols[t] = (rand() % 2001 - 1000) / 333.0;
        for (f = 0; f < d; f++)
            xi[f] = (rand() % 2001 - 1000) / 77.0;
        smo_dense_dots(n, d, n, cols, xi, out);
        for (t = 0; t < n; t++)
            printf("D %.17g\n", out[t]);
    }
    return 0;
}
"""


def compiler():
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        if os.environ.get("CI"):
            pytest.fail("no C compiler on PATH (CI builds the extensions with one)")
        pytest.skip("no C compiler on PATH")
    return cc


def run(tmp_path, name, flags):
    source = tmp_path / "simd_check.c"
    source.write_text(PROGRAM)
    binary = tmp_path / name
    subprocess.run([compiler(), "-O2", "-ffp-contract=off", f"-I{HEADER_DIR}", *flags,
                    str(source), "-o", str(binary), "-lm"], check=True,
                   capture_output=True, text=True)
    lines = subprocess.run([str(binary)], check=True, capture_output=True,
                           text=True).stdout.splitlines()
    return lines


def test_vector_loops_equal_plain_c(tmp_path):
    vector = run(tmp_path, "vector", [])
    plain = run(tmp_path, "plain", ["-DSMO_NO_VECTOR"])
    assert len(vector) == len(plain) > 300
    selections = [(a, b) for a, b in zip(vector, plain) if a.startswith("S")]
    assert len(selections) == 300
    assert all(a == b for a, b in selections)
    partners = [(a, b) for a, b in zip(vector, plain) if a.startswith("P")]
    assert len(partners) == 300 and all(a == b for a, b in partners)
    assert sum(a.split()[1] != "-1" for a, _ in partners) > 200
    # ties and empty index sets did occur
    assert len({a.split()[1] for a, _ in selections}) > 50
    dots = [(a, b) for a, b in zip(vector, plain) if a.startswith("D")]
    assert dots and all(a == b for a, b in dots)
    exps = np.array([(float(a.split()[1]), float(b.split()[1]))
                     for a, b in zip(vector, plain) if a.startswith("E")])
    got, expected = exps[:, 0], exps[:, 1]
    normal = expected > 1e-300
    assert normal.sum() > 10000 and (~normal).sum() > 100
    ulp = np.abs(got[normal] - expected[normal]) / np.spacing(expected[normal])
    assert ulp.max() <= 2.0
    assert np.all(got[~normal] <= 1e-300)


@pytest.mark.skipif(not (os.uname().sysname == "Linux" and os.uname().machine == "x86_64"
                         and shutil.which("nm")),
                    reason="the AVX2 clones are built by GCC on Linux x86-64 (nm reads them)")
def test_the_clones_compile_their_helpers_in():
    """A helper that GCC keeps out of line is compiled once, for the default target, and
    an AVX2 clone that calls it runs SSE2 code (`sparse_dots`' RBF rows: twice as slow).
    SMO_INLINED forces the exponential's row loop into each clone: no built module
    holds an out-of-line copy of it."""
    import libsmo._core as core
    modules = sorted(Path(core.__file__).parent.glob("*.so"))
    assert len(modules) >= 10
    helpers = ("smo_rbf_row", "smo_rbf_row4", "smo_rbf4", "smo_exp4")
    for module in modules:
        symbols = subprocess.run(["nm", str(module)], check=True, capture_output=True,
                                 text=True).stdout.split()
        out_of_line = [s for s in symbols if s.split(".")[0] in helpers]
        assert not out_of_line, (module.name, out_of_line)
    # the clones themselves are there (the test reads the right symbols)
    sparse_dots = next(m for m in modules if m.name.startswith("sparse_dots."))
    assert "smo_rbf_from_dots.avx2" in subprocess.run(
        ["nm", str(sparse_dots)], check=True, capture_output=True, text=True).stdout
