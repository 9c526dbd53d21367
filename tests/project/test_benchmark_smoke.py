"""benchmarks/run.py end to end on a tiny slice: it runs, writes its results, and
libsmo and LIBSVM reach the same dual objective.

The script runs as a subprocess from a temporary folder, not from the repository root,
whose libsmo/ source folder would otherwise be imported instead of the installed package.
"""
import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.data import data_file, load_fashion_mnist

RUN = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"
CASES = ("a9a", "housing")
LIBRARIES = ("libsmo", "libsvm", "sklearn")


def test_benchmark_smoke(tmp_path):
    pytest.importorskip("libsvm")
    pytest.importorskip("sklearn")
    # the data the two cases read (fails under CI when missing, skips elsewhere)
    for name in ("a9a", "a9a.t", "housing_scale"):
        data_file(name)
    out = tmp_path / "results"
    work = tmp_path / "cwd"
    work.mkdir()
    proc = subprocess.run(
        [sys.executable, str(RUN), "--cases", ",".join(CASES), "--rows", "400",
         "--repeats", "1", "--threads", "1", "--libraries", ",".join(LIBRARIES),
         "--out", str(out)],
        cwd=work, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    results = json.loads((out / "latest.json").read_text())
    assert results["machine"]["threads"] == [1]
    by_case = {case["case"]: case for case in results["cases"]}
    assert set(by_case) == set(CASES)
    for name, case in by_case.items():
        for library in LIBRARIES:
            runs = case["runs"][library]
            assert len(runs) == 1 and "error" not in runs[0], (name, library, runs)
            for key in ("load_s", "train_s", "train_cpu_s", "predict_s"):
                value = runs[0][key]
                assert math.isfinite(value) and value >= 0, (name, library, key, value)
            assert runs[0]["train_rows"] <= 400
        # scikit-learn's objective, from the "obj = " lines its LIBSVM prints
        assert case["agreement"]["objective_rel_diff_sklearn"] <= 1e-4, case["agreement"]
        assert case["agreement"]["objectives_agree"], (name, case["agreement"])
        assert case["ratios"]["vs_libsvm"]["train_s"] is not None
    table = (out / "latest.md").read_text()
    assert "| a9a" in table and "peak memory ratio" in table
    assert "Against the fastest peer at the same thread count" in table
    # the table written again from the JSON alone is the same table
    again = tmp_path / "again"
    proc = subprocess.run(
        [sys.executable, str(RUN), "--table-from", str(out / "latest.json"), "--out",
         str(again)], cwd=work, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (again / "latest.md").read_text() == table


@pytest.mark.parametrize("extra", [[], ["--threads", "2", "--busy", "1"]])
def test_fit_loop_smoke(tmp_path, extra):
    """benchmarks/fit_loop.py (repeated fits in one process, for profilers) runs, also
    beside a process that keeps a core busy (--busy), to the same steps."""
    data_file("housing_scale")
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "fit_loop.py"), "housing", "--repeats", "2",
         *extra], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "housing: 2 fits, median" in proc.stdout and "steps 220" in proc.stdout


def test_fit_loop_predict_smoke(tmp_path):
    """fit_loop.py --predict times repeated predictions of a case's test rows."""
    data_file("letter.scale")
    data_file("letter.scale.t")
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "fit_loop.py"), "letter", "--predict",
         "--repeats", "2"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "letter: 2 predictions of 5000 rows, median" in proc.stdout
    assert "accuracy 97.64%" in proc.stdout


def test_rows_together_smoke(tmp_path):
    """benchmarks/rows_together.py (the measurement behind execution.ROWS_TOGETHER)
    runs, and every setting reaches the same objective in the same steps."""
    load_fashion_mnist("train", n_rows=10)   # fails under CI, skips elsewhere, if absent
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "rows_together.py"), "--rows", "600",
         "--binary", "--repeats", "1", "--together", "4,8"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    fits = [line.split(", ", 1)[1] for line in proc.stdout.splitlines()
            if " s, objective " in line]
    assert len(fits) == 3 and len(set(fits)) == 1, proc.stdout


def test_contention_smoke(tmp_path):
    """benchmarks/contention.py (one training alone, then two at once) runs, prints its
    table, and every copy takes the same steps."""
    load_fashion_mnist("train", n_rows=10)   # fails under CI, skips elsewhere, if absent
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "contention.py"), "--rows", "1500",
         "--repeats", "1"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    copies = [line for line in proc.stdout.splitlines() if " at once: cpu " in line]
    assert len(copies) == 3, proc.stdout
    assert "| 0 vs 6 | 2 |" in proc.stdout


def test_contention_all_pairs_smoke(tmp_path):
    """contention.py --all-pairs trains the 45 pairs in one process, then shared out
    over two, and the steps summed over the pairs are the same both ways."""
    load_fashion_mnist("train", n_rows=10)   # fails under CI, skips elsewhere, if absent
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "contention.py"), "--rows", "1500",
         "--repeats", "1", "--all-pairs"], cwd=tmp_path, capture_output=True, text=True,
        timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    runs = [line for line in proc.stdout.splitlines() if " at once: cpu " in line]
    assert len(runs) == 3, proc.stdout
    assert "| all 45 pairs | 2 |" in proc.stdout


def test_thread_counts_of_one_repeat_run_back_to_back(monkeypatch):
    """run.py runs every thread count of one repeat before the next repeat (the counts
    and libraries rotated), scikit-learn only at the first count, and the report's
    speedup is the median of the per-repeat ratios of those neighbouring runs."""
    # only for this test: benchmarks/distributed.py would shadow Dask's package in the
    # worker processes of later tests, which inherit sys.path
    monkeypatch.syspath_prepend(str(RUN.parent))
    import bench_report
    import run
    order = []
    # a drifting machine: every run is slower than the one before it, and two threads
    # do the same work in 0.6 of the time
    def spawn(job, workdir):
        order.append((job["repeat"], job["threads"], job["library"]))
        seconds = (1 + 0.5 * len(order)) * (0.6 if job["threads"] == 2 else 1.0)
        return {"library": job["library"], "threads": job["threads"],
                "train_s": seconds, "predict_s": seconds / 10, "accuracy": 90.0,
                "objective": -1.0}
    monkeypatch.setattr(run, "spawn", spawn)
    monkeypatch.setattr(run, "progress", lambda *args: None)
    args = run.argparse.Namespace(repeats=3, threads=[1, 2], rows=None, data_dir=".",
                                  libraries=["libsmo", "sklearn"])
    summaries, failed = run.run_case("letter", args, {}, None, {})
    assert not failed
    assert order == [(0, 1, "libsmo"), (0, 1, "sklearn"), (0, 2, "libsmo"),
                     (1, 2, "libsmo"), (1, 1, "sklearn"), (1, 1, "libsmo"),
                     (2, 1, "libsmo"), (2, 1, "sklearn"), (2, 2, "libsmo")]
    assert [s["threads"] for s in summaries] == [1, 2]
    # scikit-learn's one-thread runs stand at two threads
    assert summaries[1]["runs"]["sklearn"] == summaries[0]["runs"]["sklearn"]
    (speedup,) = bench_report.thread_speedups(summaries)
    assert speedup["library"] == "libsmo" and speedup["threads"] == 2
    # per repeat: run 1 vs run 3 (1.5 / (2.5*0.6)), run 6 vs 4 (4 / (3*0.6)), 7 vs 9
    assert speedup["train_speedup"] == pytest.approx(statistics.median(
        [1.5 / 1.5, 4.0 / 1.8, 4.5 / 3.3]))
    assert "2 vs 1" in "\n".join(bench_report.speedup_table(summaries))


@pytest.mark.parametrize("prefault", [False, True])
def test_first_fit_smoke(tmp_path, prefault):
    """benchmarks/first_fit.py (a fresh process's first fit, the same fit again, and
    once more after a cache sweep) runs, prints a row per library, and the three fits
    of each process did the same work, libsmo's as LIBSVM's; with --prefault-heap the
    first fit finds its kernel cache's pages already there (housing's cache alone is
    about 125 pages)."""
    pytest.importorskip("libsvm")
    data_file("housing_scale")
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "first_fit.py"), "--cases", "housing",
         "--libraries", "libsmo,libsvm", "--threads", "1", "--repeats", "1",
         *(["--prefault-heap", "2"] if prefault else [])],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    rows = {line.split(" | ")[0].strip("| "): line.strip("| ").split(" | ")
            for line in proc.stdout.splitlines() if line.startswith("| libs")}
    assert set(rows) == {"libsmo", "libsvm"}, proc.stdout
    for cells in rows.values():
        first, again, evicted = map(float, cells[2:5])
        assert min(first, again, evicted) > 0, cells
        assert not cells[7].startswith("differ"), cells
    objective = {name: float(cells[7].split(",")[0]) for name, cells in rows.items()}
    assert math.isclose(objective["libsmo"], objective["libsvm"], rel_tol=1e-6), objective
    assert rows["libsmo"][6] == "1.00"
    first_faults = int(rows["libsmo"][5].split(" / ")[0])
    assert (first_faults < 100) == prefault, rows["libsmo"]
