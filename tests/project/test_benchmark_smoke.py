"""The benchmark scripts end to end on tiny slices: they run, write their results,
and the work behind their ratios is shown equal -- or, when a run is made to do other
work (run.py's test-only --override, or a tampered results file), the ratio is flagged
and the script exits with status 1.

The scripts run as subprocesses from a temporary folder, as a user runs them
(``python benchmarks/run.py ...``).
"""
import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.data import REPO_DATA_DIR, data_file, load_fashion_mnist, script_env

REPO = Path(__file__).resolve().parents[2]
RUN = REPO / "benchmarks" / "run.py"
CASES = ("a9a", "housing")
LIBRARIES = ("libsmo", "libsvm", "sklearn")


@pytest.fixture
def benchmarks_package(monkeypatch):
    """The repository root on sys.path for this test only, so that the `benchmarks`
    package imports (as the scripts import it)."""
    monkeypatch.syspath_prepend(str(REPO))


def run_benchmark(tmp_path, *args, timeout=300):
    """run.py with `args` from a fresh folder; the finished process."""
    work = tmp_path / "cwd"
    work.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, str(RUN), *args], cwd=work,
                          capture_output=True, text=True, timeout=timeout,
                          env=script_env())


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    """One run of run.py on a9a and housing, 400 rows, two repeats: its folder and
    finished process."""
    # the data the two cases read, the repository's (script_env points the scripts there)
    for name in ("a9a", "a9a.t", "housing_scale"):
        data_file(name)
    tmp_path = tmp_path_factory.mktemp("smoke")
    out = tmp_path / "results"
    proc = run_benchmark(tmp_path, "--cases", ",".join(CASES), "--rows", "400",
                         "--repeats", "2", "--threads", "1", "--libraries",
                         ",".join(LIBRARIES), "--out", str(out))
    return tmp_path, proc


def test_benchmark_smoke(smoke_run):
    tmp_path, proc = smoke_run
    out = tmp_path / "results"
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    results = json.loads((out / "latest.json").read_text())
    assert results["machine"]["threads"] == [1]
    by_case = {case["case"]: case for case in results["cases"]}
    assert set(by_case) == set(CASES)
    for name, case in by_case.items():
        agreement = case["agreement"]
        assert agreement["reference"]["library"] == "libsmo"
        for library in LIBRARIES:
            runs = case["runs"][library]
            assert len(runs) == 2 and all("error" not in run for run in runs), runs
            for run in runs:
                for key in ("load_s", "train_s", "train_cpu_s", "predict_s"):
                    value = run[key]
                    assert math.isfinite(value) and value >= 0, (name, library, key)
                assert run["train_rows"] <= 400
                # LIBSVM's own printed objective beside the one from its coefficients
                if library in ("libsmo", "libsvm"):
                    assert math.isclose(run["reported_objective"], run["objective"],
                                        rel_tol=1e-6)
            # every repeat of every library checked against libsmo's first run
            checks = agreement["runs"][library]
            assert len(checks) == 2 and all(check["agrees"] for check in checks)
            assert all(check["objective_rel_diff"] <= 1e-6 for check in checks), checks
            assert agreement["library_agrees"][library]
        assert agreement["flagged_ratios"] == []
        assert case["ratios"]["vs_libsvm"]["train_s"] is not None
    table = (out / "latest.md").read_text()
    assert "| a9a" in table and "peak memory ratio" in table
    assert "Against the fastest peer at the same thread count" in table
    assert "every run against the reference" in table and "(FLAGGED)" not in table
    assert "| 2/2 |" in table and "None: every ratio compares runs" in table
    # the table written again from the JSON alone is the same table
    again = tmp_path / "again"
    proc = run_benchmark(tmp_path, "--table-from", str(out / "latest.json"), "--out",
                         str(again), timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (again / "latest.md").read_text() == table


def test_a_tampered_run_is_flagged(smoke_run):
    """A results file whose second LIBSVM run on housing had another objective (as a
    run that solved another problem would): written again from it, the table flags
    the ratios against LIBSVM on that case, names the run, and run.py exits with 1.
    Only the second repeat is changed: every repeat is checked, not the first."""
    tmp_path, proc = smoke_run
    assert proc.returncode == 0, proc.stderr[-3000:]
    saved = json.loads((tmp_path / "results" / "latest.json").read_text())
    housing = next(case for case in saved["cases"] if case["case"] == "housing")
    housing["runs"]["libsvm"][1]["objective"] *= 1.01
    # the stored verdicts are not trusted: they are recomputed from the raw runs
    housing["agreement"]["flagged_ratios"] = []
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(saved))
    again = tmp_path / "tampered-table"
    proc = run_benchmark(tmp_path, "--table-from", str(tampered), "--out", str(again),
                         timeout=120)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    table = (again / "latest.md").read_text()
    assert "housing at 1 thread(s): LIBSVM run 2: objective differs by 1.0e-02" in table
    assert "the ratio vs_libsvm is flagged" in table
    housing_rows = [line for line in table.splitlines()
                    if line.startswith("| housing") and "(FLAGGED)" in line]
    assert housing_rows, table
    assert not any(line.startswith("| a9a") and "(FLAGGED)" in line
                   for line in table.splitlines())


def test_a_run_of_other_work_fails_the_benchmark(tmp_path):
    """LIBSVM made to train with C=2 instead of the case's C=1 (run.py's test-only
    --override): its runs solve another problem, the table flags every ratio against it
    and run.py exits with status 1."""
    data_file("housing_scale")
    out = tmp_path / "results"
    proc = run_benchmark(tmp_path, "--cases", "housing", "--rows", "200", "--repeats",
                         "1", "--threads", "1", "--libraries", "libsmo,libsvm",
                         "--out", str(out), "--override", "libsvm:C=2")
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads((out / "latest.json").read_text())
    (case,) = results["cases"]
    assert case["agreement"]["library_agrees"] == {"libsmo": True, "libsvm": False}
    assert "vs_libsvm" in case["agreement"]["flagged_ratios"]
    assert "flag(s)" in proc.stderr
    table = (out / "latest.md").read_text()
    assert "LIBSVM run 1: objective differs" in table and "(FLAGGED)" in table


@pytest.mark.parametrize("extra", [[], ["--threads", "2", "--busy", "1"]])
def test_fit_loop_smoke(tmp_path, extra):
    """benchmarks/fit_loop.py (repeated fits in one process, for profilers) runs, also
    beside a process that keeps a core busy (--busy), to the same steps."""
    data_file("housing_scale")
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "fit_loop.py"), "housing", "--repeats", "2",
         *extra], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=script_env())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "housing: 2 fits, median" in proc.stdout and "steps 220" in proc.stdout


def test_fit_loop_predict_smoke(tmp_path):
    """fit_loop.py --predict times repeated predictions of a case's test rows."""
    data_file("letter.scale")
    data_file("letter.scale.t")
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "fit_loop.py"), "letter", "--predict",
         "--repeats", "2"], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=script_env())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "letter: 2 predictions of 5000 rows, median" in proc.stdout
    assert "accuracy 97.64%" in proc.stdout



def test_small_fits_smoke(tmp_path):
    """bench_small_fits.py fits and predicts beside scikit-learn (warm, one repeat),
    both estimators in one run, and shows the same work: SVC's support vectors and dual
    coefficients, LinearSVC's objectives; the predictions agree with scikit-learn's on
    iris; its rows are what the committed small_fits.json holds."""
    out = tmp_path / "small.json"
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "bench_small_fits.py"), "--datasets", "iris",
         "--estimator", "SVC", "LinearSVC", "--fresh", "0", "--warm", "1", "--fits", "2",
         "--predict", "1", "--calls", "2", "--json", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=script_env())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    results = json.loads(out.read_text())
    svc, linear = results["rows"]
    assert (svc["estimator"], linear["estimator"]) == ("SVC", "LinearSVC")
    for row in (svc, linear):
        assert row["data"] == "iris" and row["predictions_agreeing"] == 150
        assert row["fresh_fit_ratio"] is None
        assert row["warm_fit_ratio"] > 0 and row["predict_one_row_ratio"] > 0
    assert (svc["work_sklearn"], svc["work_libsmo"], svc["answer_difference"]) == (60, 60, 0)
    # libsmo's Newton method (LIBLINEAR 2.50's) ends within 1e-4 of scikit-learn's
    assert abs(linear["answer_difference"]) < 1e-4
    assert set(results["times"]) == {"SVC", "LinearSVC"}
    assert "--estimator SVC LinearSVC" in results["commands"][0]
    assert proc.stdout.count("| iris | 150 of 150 |") == 2

def test_rows_together_smoke(tmp_path):
    """benchmarks/rows_together.py (the measurement behind execution.ROWS_TOGETHER)
    runs, and every setting reaches the same objective in the same steps."""
    load_fashion_mnist("train", n_rows=10)   # the repository's first images
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "rows_together.py"), "--rows", "600",
         "--binary", "--repeats", "1", "--together", "4,8"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=script_env())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    fits = [line.split(", ", 1)[1] for line in proc.stdout.splitlines()
            if " s, objective " in line]
    assert len(fits) == 3 and len(set(fits)) == 1, proc.stdout


def test_byte_dots_smoke(tmp_path):
    """benchmarks/byte_dots.py (the VNNI and AVX2 sums of 8-bit rows against the plain
    loops) runs: the passes give the same bits, the fits the same steps, nothing is
    flagged."""
    load_fashion_mnist("train", n_rows=10)   # the repository's first images
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "byte_dots.py"), "--rows", "600", "--repeats",
         "2", "--fit", "--cache-sizes", "1,auto"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=script_env())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "FLAGGED" not in proc.stdout
    if "neither AVX-512 VNNI nor AVX2" not in proc.stdout:
        # two passes and two fits, each with a ratio per path the processor has
        assert len([line for line in proc.stdout.splitlines() if "ratio" in line]) == 4
        assert "plain" in proc.stdout, proc.stdout


def test_contention_smoke(tmp_path):
    """benchmarks/contention.py (one training alone, then two at once) runs, prints its
    table, and every copy takes the same steps."""
    load_fashion_mnist("train", n_rows=10)   # the repository's first images
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "contention.py"), "--rows", "1500",
         "--repeats", "1"], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=script_env())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    copies = [line for line in proc.stdout.splitlines() if " at once: cpu " in line]
    assert len(copies) == 3, proc.stdout
    assert "| 0 vs 6 | 2 |" in proc.stdout


def test_contention_all_pairs_smoke(tmp_path):
    """contention.py --all-pairs trains the 45 pairs in one process, then shared out
    over two, and the steps summed over the pairs are the same both ways."""
    load_fashion_mnist("train", n_rows=10)   # the repository's first images
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "contention.py"), "--rows", "1500",
         "--repeats", "1", "--all-pairs"], cwd=tmp_path, capture_output=True, text=True,
        timeout=300, env=script_env())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    runs = [line for line in proc.stdout.splitlines() if " at once: cpu " in line]
    assert len(runs) == 3, proc.stdout
    assert "| all 45 pairs | 2 |" in proc.stdout


def test_thread_counts_of_one_repeat_run_back_to_back(benchmarks_package):
    """run.py runs every thread count of one repeat before the next repeat (the counts
    and libraries rotated), scikit-learn only at the first count, and the report's
    speedup is the median of the per-repeat ratios of those neighbouring runs."""
    from benchmarks import report, runner
    from benchmarks.cases import CASES
    order = []
    # a drifting machine: every run is slower than the one before it, and two threads
    # do the same work in 0.6 of the time
    def spawn(job, workdir):
        order.append((job["repeat"], job["threads"], job["library"]))
        seconds = (1 + 0.5 * len(order)) * (0.6 if job["threads"] == 2 else 1.0)
        return {"library": job["library"], "threads": job["threads"],
                "train_s": seconds, "predict_s": seconds / 10, "accuracy": 90.0,
                "objective": -1.0, "n_sv": 10}
    plan = runner.Plan(libraries=("libsmo", "sklearn"), threads=(1, 2), repeats=3)
    summaries, failed = runner.run_case(CASES["letter"], plan, {}, None, {}, spawn=spawn,
                                        progress=lambda *args: None)
    assert not failed
    assert order == [(0, 1, "libsmo"), (0, 1, "sklearn"), (0, 2, "libsmo"),
                     (1, 2, "libsmo"), (1, 1, "sklearn"), (1, 1, "libsmo"),
                     (2, 1, "libsmo"), (2, 1, "sklearn"), (2, 2, "libsmo")]
    assert [s["threads"] for s in summaries] == [1, 2]
    # scikit-learn's one-thread runs stand at two threads
    assert summaries[1]["runs"]["sklearn"] == summaries[0]["runs"]["sklearn"]
    (speedup,) = report.thread_speedups(summaries)
    assert speedup["library"] == "libsmo" and speedup["threads"] == 2
    assert speedup["same_work"]
    # per repeat: run 1 vs run 3 (1.5 / (2.5*0.6)), run 6 vs 4 (4 / (3*0.6)), 7 vs 9
    assert speedup["train_speedup"] == pytest.approx(statistics.median(
        [1.5 / 1.5, 4.0 / 1.8, 4.5 / 3.3]))
    assert "2 vs 1" in "\n".join(report.speedup_table(summaries))


def test_every_repeat_and_thread_count_is_checked(benchmarks_package):
    """A library's third repeat at two threads with another objective: the runs at
    that count disagree, its ratios there and its speedup are flagged; its runs at one
    thread and the other library's are not."""
    from benchmarks import report, runner
    from benchmarks.cases import CASES

    def spawn(job, workdir):
        broken = job["library"] == "libsvm" and job["threads"] == 2 and job["repeat"] == 2
        return {"library": job["library"], "threads": job["threads"], "train_s": 1.0,
                "predict_s": 0.1, "accuracy": 90.0, "n_sv": 10,
                "objective": -1.5 if broken else -1.0}
    plan = runner.Plan(libraries=("libsmo", "libsvm"), threads=(1, 2), repeats=3)
    one, two = runner.run_case(CASES["letter"], plan, {}, None, {}, spawn=spawn,
                               progress=lambda *args: None)[0]
    assert one["agreement"]["flagged_ratios"] == []
    assert "vs_libsvm" in two["agreement"]["flagged_ratios"]
    assert two["agreement"]["library_agrees"] == {"libsmo": True, "libsvm": False}
    assert [c["agrees"] for c in two["agreement"]["runs"]["libsvm"]] == [True, True, False]
    speedups = {s["library"]: s["same_work"] for s in report.thread_speedups([one, two])}
    assert speedups == {"libsmo": True, "libsvm": False}
    lines = report.flags([one, two])
    assert lines[0] == ("letter at 2 thread(s): LIBSVM run 3: objective differs by "
                        "5.0e-01 (relative)")


@pytest.mark.parametrize("prefault", [False, True])
def test_first_fit_smoke(tmp_path, prefault):
    """benchmarks/first_fit.py (a fresh process's first fit, the same fit again, and
    once more after a cache sweep, with --prefault-heap after touching the heap
    first) runs, prints a row per library with its page faults, and the three fits of
    each process did the same work, libsmo's as LIBSVM's."""
    data_file("housing_scale")
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "first_fit.py"), "--cases", "housing",
         "--libraries", "libsmo,libsvm", "--threads", "1", "--repeats", "1",
         *(["--prefault-heap", "2"] if prefault else [])],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=script_env())
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
    faults = [int(count) for count in rows["libsmo"][5].split(" / ")]
    assert len(faults) == 3 and min(faults) >= 0, rows["libsmo"]


def test_linear_svr_benchmark_smoke(tmp_path, benchmarks_package):
    """bench_linear_svm.py's regressions (LIBLINEAR's -s 13, 12 and 11 against
    LinearSVR) on housing, bodyfat and the repository's first reviews, one repeat:
    it exits 0, and every row of its JSON shows libsmo's primal objective at
    LIBLINEAR's (within the script's 1e-4, one-sided, where neither was capped), the
    estimator's and libsmo-linear-train's (LIBLINEAR's train() on libsmo's solvers),
    scikit-learn's beside it, and finite ratios and test MSEs. At eps 1e-4: at the
    benchmark's 1e-3 the -s 13 dual's objective on bodyfat varies by up to 0.5% with
    the epochs' random order (LIBLINEAR's as libsmo's), at 1e-4 by less than 1e-4."""
    util = pytest.importorskip("liblinear.liblinearutil")
    from benchmarks.bench_linear_svm import is_multicore
    # the README's test requirements install liblinear-official, but where
    # liblinear-multicore was installed too the importable `liblinear` may be its
    multicore = is_multicore(util)
    for name in ("housing_scale", "bodyfat_scale", "Womens Clothing E-Commerce Reviews.csv"):
        data_file(name)
    out = tmp_path / "svr.json"
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "bench_linear_svm.py"), "--data", "housing",
         "bodyfat", "reviews-rating", "--C", "0.1", "--eps", "1e-4", "--repeats", "1",
         "--json", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=script_env())
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = json.loads(out.read_text())["rows"]
    assert [(r["data"], r["solver"]) for r in rows] == [
        (name, solver) for name in ("housing", "bodyfat", "reviews-rating")
        for solver in (13, 12, 11)]
    for row in rows:
        runs = row["runs"]
        assert row["reference"] == "LIBLINEAR" and row["epsilon"] == 0.1
        assert row["dual"] == (row["solver"] != 11)
        # liblinear-multicore, where it is the importable one, is parallel for -s 11 only
        assert ("LIBLINEAR-mc 2t" in runs) == (multicore and row["solver"] == 11)
        assert {"LIBLINEAR", "libsmo", "libsmo-linear-train", "scikit-learn"} <= set(runs)
        for ours in (runs["libsmo"], runs["libsmo-linear-train"]):
            if not (ours["capped"] or runs["LIBLINEAR"]["capped"]):
                assert ours["objective_rel_diff"] <= 1e-4, row
        for run in runs.values():
            assert run["objective"] > 0 and math.isfinite(run["train_ratio"])
            assert 0 < run["test_mse"] < 100, row
    # the reviews' ratings (1 to 5): a model better than predicting their mean's 1.3
    reviews = [r for r in rows if r["data"] == "reviews-rating"]
    assert all(r["runs"]["libsmo"]["test_mse"] < 1.0 for r in reviews), reviews
    assert "| reviews-rating | 11 | 0.1 |" in proc.stdout


def test_linear_svr_benchmark_flags_a_worse_objective(benchmarks_package, monkeypatch):
    """bench_linear_svm.summarise flags libsmo's regression when its primal objective
    exceeds LIBLINEAR's beyond --objective-tol, and not when either run was capped by
    its epochs."""
    import argparse
    import os

    import numpy as np

    # the script sets OpenMP's defaults in os.environ as it is imported: in a copy here
    monkeypatch.setattr(os, "environ", dict(os.environ))
    from benchmarks import bench_linear_svm as bench
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([1.0, 2.0, 3.0])
    args = argparse.Namespace(eps=1e-3, epsilon=0.1, objective_tol=1e-4, repeats=1)

    def run(w, capped=False):
        return [{"train": 1.0, "cpu": 1.0, "predict": 0.1, "W": np.array([w]),
                 "b": np.array([0.0]), "score": 0.0, "capped": capped}]
    best = [1.0, 2.0]
    # the SVR primal by hand: w'x fits y exactly (no loss), then 1/2 |w|^2; w = (1.2, 2)
    # leaves residuals -0.2, 0, -0.2, each 0.1 beyond p
    assert bench.primal_objective(X, y, None, np.array([best]), np.zeros(1), 1.0, 13,
                                  0.1) == pytest.approx(2.5)
    assert bench.primal_objective(X, y, None, np.array([[1.2, 2.0]]), np.zeros(1), 1.0,
                                  12, 0.1) == pytest.approx(0.5 * (1.44 + 4) + 0.02)
    good = bench.summarise("toy", X, y, None, 13, 1.0,
                           {"LIBLINEAR": run(best), "libsmo": run(best)}, args)
    assert good["disagree"] == [] and good["rows"]["libsmo"]["rel"] == 0
    worse = {"LIBLINEAR": run(best), "libsmo": run([2.0, 3.0])}
    assert bench.summarise("toy", X, y, None, 12, 1.0, worse, args)["disagree"] == ["libsmo"]
    capped = {"LIBLINEAR": run(best, capped=True), "libsmo": run([2.0, 3.0])}
    assert bench.summarise("toy", X, y, None, 13, 1.0, capped, args)["disagree"] == []


def test_linear_train_runs_stop_where_liblinear_stops(benchmarks_package, monkeypatch):
    """bench_linear_svm.run_case's libsmo-linear-train runs (libsmo's LIBLINEAR train())
    on two classes (heart_scale) and 26 (letter's first 2,000 rows), both losses: where
    LIBLINEAR's hinge stops at its 300 epochs they stop there too while the estimator
    goes on to eps; where LIBLINEAR reaches eps their objective is LIBLINEAR's within the
    script's 1e-4 and their accuracy LIBLINEAR's; nothing is flagged (the estimator
    with LIBLINEAR's steps beside its default revisits, --revisits 0, held to
    LIBLINEAR's objective as libsmo's run is, and with --float32 the estimator on the
    rows stored as float32, held so too)."""
    import argparse
    import os
    util = pytest.importorskip("liblinear.liblinearutil")
    from helpers.data import load_dataset
    monkeypatch.setattr(os, "environ", dict(os.environ))
    from benchmarks import bench_linear_svm as bench
    args = argparse.Namespace(eps=1e-3, epsilon=0.1, objective_tol=1e-4, repeats=1,
                              no_sklearn=True, svc_linear=False, revisits=0, float32=True)
    peers = {"official": util, "multicore": None}
    for name, n_rows, C in (("heart_scale", None, 1.0), ("letter.scale", 2000, 0.1)):
        X, y = load_dataset(name, n_rows=n_rows)
        for solver in (3, 1):
            res = bench.run_case(name, (X, y, X, y), solver, C, args, peers)
            assert res["disagree"] == [], res["disagree"]
            rows = res["rows"]
            assert "libsmo revisits" in rows and "libsmo float32" in rows
            ours, ref = rows["libsmo-linear-train"], rows["LIBLINEAR"]
            assert ours["capped"] == ref["capped"] == (solver == 3), (name, solver)
            if ref["capped"]:
                # the estimator's hinge counts its work, not its epochs, and goes on
                assert not rows["libsmo"]["capped"]
            else:
                assert ours["rel"] <= 1e-4 and ours["score"] == pytest.approx(ref["score"])


def with_coef_scaled(estimator, factor):
    """A subclass of the linear `estimator` whose fit leaves coef_ times `factor`: an
    answer made worse, which the benchmarks' checks must flag."""
    class Worse(estimator):
        def fit(self, X, y, sample_weight=None):
            super().fit(X, y, sample_weight)
            self.coef_ = factor * self.coef_
            return self
    return Worse


def test_linear_convergence_count_checks_the_answers(benchmarks_package, monkeypatch):
    """bench_linear_svm.py --convergence: a row for each scaling, loss and C with both
    libraries' warnings, n_iter_, times and objectives; libsmo's answer is held to
    scikit-learn's objective where libsmo did not warn, and a worse one is flagged."""
    import argparse
    import os

    import libsmo
    from helpers.data import load_dataset
    pytest.importorskip("sklearn")
    monkeypatch.setattr(os, "environ", dict(os.environ))
    from benchmarks import bench_linear_svm as bench
    X, y = load_dataset("heart_scale")
    monkeypatch.setattr(bench, "dataset", lambda name, data_dir: (X, y, X, y))
    args = argparse.Namespace(data_dir=None, objective_tol=1e-4)
    rows, failed = bench.count_convergence_warnings(["heart_scale"], [0.1, 1.0], args)
    assert failed == []
    assert [(r["scaling"], r["loss"], r["C"]) for r in rows] == [
        (scaling, loss, C) for scaling in ("as given", "standardised")
        for loss in ("squared_hinge", "hinge") for C in (0.1, 1.0)]
    for row in rows:
        for run in row["runs"].values():
            assert isinstance(run["warns"], bool) and run["n_iter"] >= 1
            assert run["seconds"] > 0 and run["objective"] > 0
        assert row["objective_rel_diff"] <= 1e-4
    # heart_scale's hinge at C = 1 as given: scikit-learn stops at its 1,000 epochs
    hinge = rows[3]["runs"]
    assert hinge["scikit-learn"]["warns"] and hinge["scikit-learn"]["n_iter"] == 1000
    assert not hinge["libsmo"]["warns"] and hinge["libsmo"]["n_iter"] > 1000

    monkeypatch.setattr(bench.libsmo, "LinearSVC", with_coef_scaled(libsmo.LinearSVC, 2))
    _, failed = bench.count_convergence_warnings(["heart_scale"], [1.0], args)
    assert len(failed) == 4, failed


def test_linear_convergence_count_takes_linear_svr_on_the_regression_sets(
        benchmarks_package, monkeypatch):
    """--convergence on a regression set counts LinearSVR's warnings, both losses: on
    bodyfat at C = 10 scikit-learn's epsilon-insensitive dual stops at its 1,000
    epochs and warns, libsmo's is finished without a warning, and its objective, held
    to scikit-learn's, is below it. The squared loss's Newton method, whose answer
    there is above scikit-learn's by more than 1e-4, is held to its own stopping
    rule, computed from the answer; answers made worse fail both checks."""
    import argparse
    import os

    import libsmo
    from helpers.data import load_dataset
    pytest.importorskip("sklearn")
    monkeypatch.setattr(os, "environ", dict(os.environ))
    from benchmarks import bench_linear_svm as bench
    X, y = load_dataset("bodyfat_scale")
    monkeypatch.setattr(bench, "dataset", lambda name, data_dir: (X, y, X, y))
    args = argparse.Namespace(data_dir=None, objective_tol=1e-4)
    rows, failed = bench.count_convergence_warnings(["bodyfat"], [10.0], args)
    assert failed == []
    assert [(r["scaling"], r["loss"], r["classes"]) for r in rows] == [
        (scaling, loss, 0) for scaling in ("as given", "standardised")
        for loss in ("squared_epsilon_insensitive", "epsilon_insensitive")]
    dual = rows[1]["runs"]
    assert dual["scikit-learn"]["warns"] and dual["scikit-learn"]["n_iter"] == 1000
    assert not dual["libsmo"]["warns"] and rows[1]["objective_rel_diff"] < 0
    assert rows[0]["objective_rel_diff"] > 1e-4 and rows[0]["gradient_ratio"] <= 1e-4

    monkeypatch.setattr(bench.libsmo, "LinearSVR", with_coef_scaled(libsmo.LinearSVR, 1.5))
    _, failed = bench.count_convergence_warnings(["bodyfat"], [10.0], args)
    assert len(failed) == 4, failed


def test_svc_linear_is_checked_by_libsvms_stopping_rule(benchmarks_package, monkeypatch):
    """bench_linear_svm's --svc-linear runs: SVC(kernel="linear")'s m(a) - M(a) over
    every training row, computed from the fitted attributes (sparse as scikit-learn
    gives them for sparse data), is within tol after a fit and far from it after a
    stopped one; summarise flags an answer beyond eps."""
    import argparse
    import os
    import warnings

    import numpy as np
    import scipy.sparse as sp

    import libsmo
    from helpers.data import load_dataset
    monkeypatch.setattr(os, "environ", dict(os.environ))
    from benchmarks import bench_linear_svm as bench
    X, y = load_dataset("a1a")
    X = sp.csr_matrix(X)
    fitted = libsmo.SVC(kernel="linear", C=1.0, tol=1e-3).fit(X, y)
    assert 0 < bench.stopping_violation(fitted, X, y) <= 1e-3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stopped = libsmo.SVC(kernel="linear", C=1.0, max_iter=5).fit(X, y)
    assert bench.stopping_violation(stopped, X, y) > 0.1
    args = argparse.Namespace(eps=1e-3, epsilon=0.1, objective_tol=1e-4, repeats=1)

    def run(violation):
        return [{"train": 1.0, "cpu": 1.0, "predict": 0.1, "W": fitted.coef_.toarray(),
                 "b": fitted.intercept_, "score": 0.8, "capped": False,
                 "violation": violation, "allowance": 0.0}]
    good = bench.summarise("toy", X, y, np.unique(y), 3, 1.0,
                           {"libsmo": run(None), "SVC linear": run(5e-4)}, args)
    assert good["disagree"] == []
    bad = bench.summarise("toy", X, y, np.unique(y), 3, 1.0,
                          {"libsmo": run(None), "SVC linear": run(2e-3)}, args)
    assert bad["disagree"] == ["SVC linear (m - M = 2.00e-03 > eps)"]


def test_linear_memory_benchmark_smoke(tmp_path, benchmarks_package, monkeypatch):
    """bench_linear_memory.py on the repository's first rows of w8a (the hinge and the
    squared hinge) and of the reviews' ratings (LinearSVR against -s 13, 12, 11) at
    C=1, each fit in its own process: it exits 0 and every row of its JSON holds
    LIBLINEAR's, libsmo's and scikit-learn's extra peak memory, ratios over LIBLINEAR's
    and libsmo's objective at LIBLINEAR's. LIBLINEAR's extra peak holds at least its
    problem's feature_nodes (16 bytes a stored value, two more a row), which the
    measurement must see. At eps 1e-4, as test_linear_svr_benchmark_smoke: at 1e-3 the
    -s 13 dual's objective moves with the epochs' random order, and liblinear-multicore
    (where it is the importable LIBLINEAR) has another one."""
    pytest.importorskip("liblinear.liblinearutil")
    for name in ("w8a", "w8a.t", "Womens Clothing E-Commerce Reviews.csv"):
        data_file(name)
    out = tmp_path / "memory.json"
    proc = subprocess.run(
        [sys.executable, str(RUN.parent / "bench_linear_memory.py"), "--data", "w8a",
         "reviews-rating", "--C", "1", "--eps", "1e-4", "--json", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env=dict(script_env(), LIBSMO_DATA_CACHE=str(tmp_path / "cache")))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = json.loads(out.read_text())["rows"]
    assert [(r["data"], r["solver"], r["C"]) for r in rows] == [
        ("w8a", 3, 1.0), ("w8a", 1, 1.0), ("reviews-rating", 13, 1.0),
        ("reviews-rating", 12, 1.0), ("reviews-rating", 11, 1.0)]
    import os

    import numpy as np

    # the script sets the thread counts in os.environ as it is imported: in a copy here
    monkeypatch.setattr(os, "environ", dict(os.environ))
    from benchmarks.bench_linear_memory import cache_folder
    folder = cache_folder("w8a", REPO_DATA_DIR)
    folder = tmp_path / "cache" / folder.relative_to(folder.parents[2])
    stored = len(np.load(folder / "X_data.npy"))
    feature_nodes_mb = 16 * (stored + 2 * rows[0]["rows"]) / 2**20
    for row in rows:
        runs = row["runs"]
        assert set(runs) == {"LIBLINEAR", "libsmo", "scikit-learn"}, row
        assert runs["LIBLINEAR"]["extra_peak_mb"] >= 0.9 * feature_nodes_mb, row
        for run in runs.values():
            assert run["extra_peak_mb"] >= run["retained_mb"] >= 0, row
            # the MB rounded to 0.1 in the file, the ratio from the unrounded figures:
            # each MB within 0.05 of the file's, so the ratio within 0.05 (1 + ratio)
            # / (the unrounded reference, at least the file's less 0.05) of theirs
            reference = runs["LIBLINEAR"]["extra_peak_mb"]
            shown = run["extra_peak_mb"] / reference
            assert math.isclose(run["memory_ratio"], shown, rel_tol=0.01,
                                abs_tol=0.051 * (1 + shown) / (reference - 0.051)), row
        if not (runs["libsmo"]["capped"] or runs["LIBLINEAR"]["capped"]):
            assert runs["libsmo"]["objective_rel_diff"] <= 1e-4, row
        if row["data"] == "reviews-rating":
            # the ratings 1 to 5: better than their mean's MSE of about 1.3
            assert row["dual"] == (row["solver"] != 11), row
            assert all(0 < run["test_mse"] < 1.0 for run in runs.values()), row
        else:
            assert all(run["accuracy_percent"] > 80 for run in runs.values()), row
    assert "| w8a | 1 | 1 |" in proc.stdout


def test_linear_memory_benchmark_flags_other_work(benchmarks_package, monkeypatch):
    """bench_linear_memory.check flags libsmo's fit when its median objective exceeds
    the highest of LIBLINEAR's beyond --objective-tol or its accuracy differs beyond
    --accuracy-tol, not a capped one nor one where LIBLINEAR's own runs disagree beyond
    the tolerance, and a failed fit; scikit-learn's other answer is marked, not
    flagged; the memory ratio is over LIBLINEAR's extra peak."""
    import argparse
    import os

    monkeypatch.setattr(os, "environ", dict(os.environ))
    from benchmarks.bench_linear_memory import check
    args = argparse.Namespace(objective_tol=1e-4, accuracy_tol=0.5)

    def fit(mb, objective, accuracy=0.85, capped=False, status="ok"):
        return {"status": status, "extra_peak_mb": mb, "retained_mb": mb / 2,
                "cpu_s": 1.0, "objective": objective, "score": accuracy,
                "regression": False, "capped": capped, "data_mb": 5.0,
                "peak_reset": True, "peak_hidden": False}
    same = {"LIBLINEAR": [fit(10.0, 100.0)], "libsmo": [fit(6.0, 100.0)]}
    summaries, flags = check(same, args)
    assert flags == [] and summaries["libsmo"]["memory_ratio"] == pytest.approx(0.6)
    worse = {"LIBLINEAR": [fit(10.0, 100.0)], "libsmo": [fit(6.0, 100.1)]}
    assert check(worse, args)[1] == ["libsmo"]
    other = {"LIBLINEAR": [fit(10.0, 100.0)], "libsmo": [fit(6.0, 100.0, 0.80)]}
    assert check(other, args)[1] == ["libsmo"]
    capped = {"LIBLINEAR": [fit(10.0, 100.0, capped=True)], "libsmo": [fit(6.0, 100.1)]}
    assert check(capped, args)[1] == []
    failed = {"LIBLINEAR": [fit(10.0, 100.0)], "libsmo": [{"status": "failed"}]}
    assert check(failed, args)[1] == ["libsmo"]
    # several repeats (other random orders): libsmo's median against the highest of
    # LIBLINEAR's, and not checked where LIBLINEAR's own runs disagree
    close = {"LIBLINEAR": [fit(10.0, 100.0), fit(10.0, 100.005)],
             "libsmo": [fit(6.0, 100.01), fit(6.0, 100.0), fit(6.0, 100.3)]}
    summaries, flags = check(close, args)
    assert flags == [] and summaries["libsmo"]["objective"] == 100.01
    assert summaries["LIBLINEAR"]["spread"] == pytest.approx(5e-5)
    close["libsmo"][0] = fit(6.0, 100.02)
    assert check(close, args)[1] == ["libsmo"]
    apart = {"LIBLINEAR": [fit(10.0, 100.0), fit(10.0, 100.05)],
             "libsmo": [fit(6.0, 100.1)]}
    summaries, flags = check(apart, args)
    assert flags == [] and summaries["libsmo"]["unchecked"]
    # a peer's other answer is shown, not flagged (bench_linear_svm.py checks libsmo's)
    peer = {"LIBLINEAR": [fit(10.0, 100.0)], "scikit-learn": [fit(12.0, 100.2)]}
    summaries, flags = check(peer, args)
    assert flags == [] and summaries["scikit-learn"]["differs"]


def test_linear_auto_benchmark_smoke(tmp_path):
    """bench_linear_auto.py on 400 rows of a9a: each solver's median time, LIBSVM's
    m(a) - M(a) of every fit within tol and float32 Q's allowance (the work shown
    equal), the mean C |x_i|^2 that auto's rule reads (a9a's rows: 14 ones or fewer),
    written as JSON."""
    out = tmp_path / "auto.json"
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench_linear_auto.py"),
                           "--data", "a9a", "--sizes", "400", "--C", "0.5",
                           "--repeats", "1", "--json", str(out)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=script_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (row,) = json.loads(out.read_text())["rows"]
    assert (row["data"], row["rows"], row["C"]) == ("a9a", 400, 0.5)
    assert 0.5 * 10 < row["C_x2"] <= 0.5 * 14
    assert set(row["seconds"]) == {"primal", "kernel", "auto"}
    assert all(0 < v < 2e-3 for v in row["violation"].values())
    assert not any(row["beyond_tol"].values())
    assert "| a9a | 400 | 0.5 |" in proc.stdout


def test_linear_auto_benchmark_fails_an_answer_beyond_tol(benchmarks_package,
                                                          monkeypatch):
    """A fit whose m(a) - M(a) exceeds tol beyond float32 Q's allowance is marked and
    the script exits with 1."""
    from benchmarks import bench_linear_auto as bench
    monkeypatch.setattr(bench, "stopping_violation", lambda *args: 0.5)
    assert bench.main(["--data", "a9a", "--sizes", "300", "--C", "1", "--repeats", "1",
                       "--data-dir", str(REPO_DATA_DIR)]) == 1


def test_linear_one_class_benchmark_smoke(tmp_path):
    """bench_linear_auto.py --one-class on 300 rows of a9a: libsmo's three solvers and
    scikit-learn's OneClassSVM, each fit's one-class m(a) - M(a) within tol (the work
    shown equal), the objectives 1/2 |w|^2 equal to the tolerance, written as JSON."""
    out = tmp_path / "one_class.json"
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench_linear_auto.py"),
                           "--one-class", "--data", "a9a", "--sizes", "300", "--nu", "0.3",
                           "--repeats", "1", "--json", str(out)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=script_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (row,) = json.loads(out.read_text())["rows"]
    assert (row["data"], row["rows"], row["nu"]) == ("a9a", 300, 0.3)
    assert set(row["seconds"]) == {"primal", "kernel", "auto", "scikit-learn"}
    assert all(0 <= v < 1.5e-3 for v in row["violation"].values())
    assert not any(row["beyond_tol"].values())
    # each within tol of the optimum: f - f* <= tol |a - a*|_1 / 2 <= tol sum(bounds)
    objectives = row["objective"].values()
    assert max(objectives) - min(objectives) <= 1e-3 * 300
    assert "| a9a | 300 | 0.3 |" in proc.stdout


def test_linear_handover_benchmark_smoke(tmp_path):
    """bench_linear_handover.py on heart_scale: at C = 1 scikit-learn's dual reaches tol
    and libsmo's takes its steps (the same bits); at C = 10 scikit-learn's stops at its
    1,000 epochs and libsmo's hands over to Newton early, its objective no higher."""
    out = tmp_path / "handover.json"
    proc = subprocess.run([sys.executable,
                           str(REPO / "benchmarks" / "bench_linear_handover.py"),
                           "--data", "heart_scale", "--C", "1,10", "--json", str(out),
                           "--data-dir", str(REPO_DATA_DIR)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=script_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    converging, stalled = json.loads(out.read_text())["rows"]
    assert converging["same_bits"] and converging["sklearn_epochs"] < 1000
    assert converging["libsmo_iterations"] == converging["sklearn_epochs"]
    assert stalled["sklearn_epochs"] == 1000 and stalled["libsmo_iterations"] < 200
    assert stalled["objective_rel_diff"] <= 0 and not stalled["bad"]
    assert "| heart_scale | 10 | 1000 |" in proc.stdout


def test_linear_handover_benchmark_flags_other_steps(benchmarks_package, monkeypatch):
    """A libsmo fit that leaves scikit-learn's steps where scikit-learn reached tol (here
    a looser tol) is marked and the script exits with 1."""
    import functools

    import libsmo
    from benchmarks import bench_linear_handover as bench
    monkeypatch.setattr(bench.libsmo, "LinearSVC",
                        functools.partial(libsmo.LinearSVC, tol=1e-2))
    assert bench.main(["--data", "heart_scale", "--C", "1",
                       "--data-dir", str(REPO_DATA_DIR)]) == 1


def test_the_float32_table_shows_the_rows_that_ran_float32(benchmarks_package,
                                                           monkeypatch):
    """committed_results.linear_float32_table shows linear_float32.json's rows that ran
    the estimator on float32 rows beside float64 ones: both ratios over LIBLINEAR's
    time, float32's over float64's, float32's objective against LIBLINEAR's; a file
    without such rows is refused."""
    from benchmarks import committed_results
    run = {"train_s": 1.0, "train_ratio": 0.6, "objective_rel_diff": 2e-6,
           "capped": False}
    runs = {"LIBLINEAR": dict(run, train_s=2.0, train_ratio=1.0), "libsmo": run,
            "libsmo float32": dict(run, train_s=0.8, train_ratio=0.48)}
    rows = [{"data": "a9a", "solver": 3, "C": 1.0, "runs": {}},
            {"data": "reviews", "solver": 1, "C": 0.1, "runs": runs}]
    monkeypatch.setattr(committed_results, "load", lambda name: {"rows": rows})
    header, table = committed_results.linear_float32_table()
    assert header[4:7] == ["libsmo / LIBLINEAR", "libsmo float32 / LIBLINEAR",
                           "float32 / float64"]
    assert table == [["reviews", "1", "0.1", "2.000", "0.60", "0.48", "0.80", "2.0e-06"]]
    del rows[1:]
    with pytest.raises(ValueError, match="no rows run with --float32"):
        committed_results.linear_float32_table()


def test_the_revisits_table_names_the_revisits_its_rows_ran(benchmarks_package,
                                                             monkeypatch):
    """committed_results.linear_revisits_table shows linear_svm.json's rows that ran the
    estimator at other revisits beside its default, the two counts in its header; rows
    that ran other counts from each other are refused, as is a file without such rows."""
    from benchmarks import committed_results

    def row(C, counts):
        run = {"train_s": 1.0, "train_ratio": 0.5, "objective_rel_diff": -1e-6,
               "capped": False}
        runs = {"LIBLINEAR": dict(run, train_ratio=1.0), "libsmo": run,
                "libsmo revisits": dict(run, train_ratio=0.75)}
        return {"data": "reviews", "solver": 3, "C": C, "revisits": counts, "runs": runs}

    plain = {"data": "a9a", "solver": 3, "C": 1.0, "runs": {}}
    rows = [plain, row(1.0, {"libsmo": 16, "libsmo revisits": 0})]
    monkeypatch.setattr(committed_results, "load", lambda name: {"rows": rows})
    header, table = committed_results.linear_revisits_table()
    assert header[4:6] == ["libsmo (revisits=16) / LIBLINEAR", "revisits=0 / LIBLINEAR"]
    assert table == [["reviews", "3", "1", "1.000", "0.50", "0.75", "-1.0e-06",
                      "-1.0e-06"]]
    rows.append(row(10.0, {"libsmo": 16, "libsmo revisits": 4}))
    with pytest.raises(ValueError, match="other revisits"):
        committed_results.linear_revisits_table()
    del rows[1:]
    with pytest.raises(ValueError, match="no rows run with --revisits"):
        committed_results.linear_revisits_table()
