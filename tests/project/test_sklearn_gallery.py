"""scikit-learn's own gallery scripts with libsmo's estimators substituted print
scikit-learn's text and draw scikit-learn's figures.

The scripts come from scikit-learn's sdist (`pip download --no-binary :all: --no-deps
scikit-learn==1.9.1`, unpacked; SKLEARN_EXAMPLES points at its examples/ folder). Each
runs twice in a subprocess, with the Agg backend: as published, and with
`sklearn.svm.SVC` / `SVR` / ... replaced by libsmo's before the script imports them.
Both runs' stdout must be equal, and every figure the same image (its pixels, saved as
PNG, up to anti-aliasing: one level on a few edge pixels). plot_svm_regression's polynomial SVR takes 14.9 M solver steps, and
plot_grid_search_digits' C=1000 linear fits up to 12.1 M: past LIBSVM's cap of 10^7
(scikit-learn has none), so they test max_iter=-1.

Slow (minutes): `SKLEARN_EXAMPLES=... pytest -m slow tests/project/test_sklearn_gallery.py`.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.data import UNDER_CI

pytestmark = pytest.mark.slow

EXAMPLES = os.environ.get("SKLEARN_EXAMPLES")
SCRIPTS = ["svm/plot_svm_regression.py", "model_selection/plot_grid_search_digits.py"]
SEED = 0

RUNNER = r'''
import sys, runpy, warnings
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
script, out_dir, substitute = sys.argv[1], sys.argv[2], sys.argv[3] == "libsmo"
if substitute:
    import sklearn.svm, libsmo
    for name in ("SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM"):
        setattr(sklearn.svm, name, getattr(libsmo, name))
plt.show = lambda *a, **k: None
# plot_svm_regression draws its data from numpy's global generator, unseeded
np.random.seed(int(sys.argv[4]))
runpy.run_path(script, run_name="__main__")
for number in plt.get_fignums():
    plt.figure(number).savefig(f"{out_dir}/figure{number}.png", dpi=50)
'''


@pytest.mark.parametrize("script", SCRIPTS)
def test_gallery_script_with_libsmo_is_scikit_learns(tmp_path, script):
    if not EXAMPLES:
        why = ("SKLEARN_EXAMPLES is not set (the examples/ folder of scikit-learn's sdist: "
               "`python .ci/sklearn_examples.py` prints it)")
        if UNDER_CI:   # .ci/run sets it for the quarter of the slow set that has these
            pytest.fail(why)
        pytest.skip(why)
    import matplotlib.image
    import numpy as np
    path = Path(EXAMPLES) / script
    outputs = {}
    for library in ("sklearn", "libsmo"):
        out_dir = tmp_path / library
        out_dir.mkdir()
        proc = subprocess.run([sys.executable, "-c", RUNNER, str(path), str(out_dir),
                               library, str(SEED)], capture_output=True, text=True,
                              timeout=1800, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "ConvergenceWarning" not in proc.stderr, proc.stderr[-3000:]
        outputs[library] = proc.stdout, sorted(out_dir.glob("*.png"))
    (text, figures), (our_text, our_figures) = outputs["sklearn"], outputs["libsmo"]
    # plot_grid_search_digits prints every candidate's scores and the short list of
    # the best (all of which must be equal), then refits the short-listed candidate
    # that was fastest to predict in this run: a choice by the clock, which may fall
    # on another of the short list (then its report differs too)
    cut = "\nThe selected final model"
    head, _, tail = text.partition(cut)
    our_head, _, our_tail = our_text.partition(cut)
    assert our_head == head
    # the refitted candidate's row ends with its parameters: "params  {...}"
    chosen = [next((ln.split(None, 1)[1] for ln in t.splitlines()
                    if ln.startswith("params ")), None) for t in (tail, our_tail)]
    if tail:
        shortlist = head.rpartition("recall model:")[2]
        assert None not in chosen and all(c in shortlist for c in chosen), chosen
        if chosen[0] == chosen[1]:
            assert [ln for ln in our_tail.splitlines() if "time" not in ln] == \
                [ln for ln in tail.splitlines() if "time" not in ln]
    assert [f.name for f in our_figures] == [f.name for f in figures]
    for ours, theirs in zip(our_figures, figures):
        a, b = matplotlib.image.imread(ours), matplotlib.image.imread(theirs)
        assert a.shape == b.shape, ours.name
        # the same picture: curves whose values differ in the last digits (about 1e-11)
        # may shade an anti-aliased edge pixel one level (1/255) apart, nothing more
        differ = np.abs(a - b)
        assert differ.max() <= 1.01 / 255, (ours.name, differ.max())
        assert np.count_nonzero(differ) <= 1e-3 * differ.size, ours.name
