"""The README's first command and the benchmark scripts run end to end."""
import json
import subprocess
import sys
from pathlib import Path

from helpers.data import REPO_DATA_DIR, data_file

REPO = Path(__file__).resolve().parents[2]


def run(*args, timeout=300):
    out = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                         timeout=timeout, cwd=REPO)
    assert out.returncode == 0, out.stderr
    return out


def test_quickstart():
    """The quickstart's data are made with default_rng(0), so every run prints the same
    figures (its docstring says so): the RBF model's 93.7% test accuracy with 349
    support vectors, the linear one's 86.9% with 652 (the moons are not linearly
    separable), the CSR input's model identical."""
    out = run(REPO / "examples" / "quickstart.py")
    assert "optimization finished" in out.stderr
    rows = {line.split()[0]: line.split() for line in out.stdout.splitlines()
            if line.split()[:1] in (["rbf"], ["linear"])}
    # kernel, time, nSV, n_iter, objective, status, train acc, test acc
    assert rows["rbf"][2:] == ["349", "382", "-313.5278", "optimal", "0.939", "0.937"]
    # the linear model's start (LIBLINEAR's coordinate descent) meets SMO's rule: 0 steps
    assert rows["linear"][2:] == ["652", "0", "-646.4894", "optimal", "0.863", "0.869"]
    assert ("summary: RBF test accuracy 93.7% with 349 support vectors, linear 86.9% "
            "with 652") in out.stdout
    assert "349 support vectors, max |difference of decision values| = 0.0e+00" in out.stdout


def test_training_benchmark_smoke(tmp_path):
    data_file("a9a")  # the repository's
    data_file("a9a.t")
    output = tmp_path / "bench.json"
    run(REPO / "benchmarks" / "bench_train.py", "--cases", "a9a", "--rows", "400",
        "--repeats", "1", "--data-dir", REPO_DATA_DIR, "--output", output)
    (result,) = json.loads(output.read_text())
    assert result["objective_rel_diff"] < 1e-4
    assert result["train_ratio"] > 0
