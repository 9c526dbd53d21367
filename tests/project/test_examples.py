"""The README's first command and the benchmark scripts run end to end."""
import json
import subprocess
import sys
from pathlib import Path

from helpers.data import DATA_DIR, data_file

REPO = Path(__file__).resolve().parents[2]


def run(*args, timeout=300):
    out = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                         timeout=timeout, cwd=REPO)
    assert out.returncode == 0, out.stderr
    return out


def test_quickstart():
    out = run(REPO / "examples" / "quickstart.py")
    assert "rbf" in out.stdout and "linear" in out.stdout
    assert "optimization finished" in out.stderr
    rbf_line = next(line for line in out.stdout.splitlines() if line.startswith("rbf"))
    test_accuracy = float(rbf_line.split()[-1])
    assert test_accuracy > 0.9


def test_training_benchmark_smoke(tmp_path):
    data_file("a9a")  # fails under CI / skips elsewhere when the data are missing
    data_file("a9a.t")
    output = tmp_path / "bench.json"
    run(REPO / "benchmarks" / "bench_train.py", "--cases", "a9a", "--rows", "400",
        "--repeats", "1", "--data-dir", DATA_DIR, "--output", output)
    (result,) = json.loads(output.read_text())
    assert result["objective_rel_diff"] < 1e-4
    assert result["train_ratio"] > 0
