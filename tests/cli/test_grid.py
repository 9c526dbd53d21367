"""libsmo-grid and libsmo.training._grid against LIBSVM's grid.py (Debian's svm-grid driving
svm-train): the same job order, lines, result file and best cell, in one process."""
import importlib.machinery
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from test_cli import run

import libsmo
from helpers.data import UNDER_CI, data_file, load_dataset, script_env
from libsmo.training import _grid as grid
from libsmo.training._crossval import fold_predictions, libsvm_folds
from libsmo.training._params import TrainParams


def svm_grid_path():
    path = shutil.which("svm-grid")
    if path is None or shutil.which("svm-train") is None:
        reason = "Debian's libsvm-tools (svm-grid, svm-train) is not installed"
        if UNDER_CI:
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def svm_grid_module():
    """LIBSVM's grid.py itself, loaded as a module (it is a Python script)."""
    loader = importlib.machinery.SourceFileLoader("libsvm_grid", svm_grid_path())
    spec = importlib.util.spec_from_loader("libsvm_grid", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


@pytest.mark.parametrize("c_range,g_range", [
    ((-5, 15, 2), (3, -15, -2)), ((-1.0, 3.0, 1.0), None), (None, (0.0, -4.0, -0.5)),
    ((2.0, 2.0, 1.0), (-3.0, -1.0, 1.0)),
])
def test_job_order_is_grid_pys(tmp_path, c_range, g_range):
    libsvm = svm_grid_module()

    class Options:   # what calculate_jobs reads of grid.py's GridOption
        c_begin, c_end, c_step = c_range or (0, 0, 1)
        g_begin, g_end, g_step = g_range or (0, 0, 1)
        grid_with_c, grid_with_g = c_range is not None, g_range is not None
        resume_pathname = None

    jobs, _ = libsvm.calculate_jobs(Options)
    theirs = [cell for line in jobs for cell in line]
    ours = grid.job_order(None if c_range is None else grid.log2_range(*c_range),
                          None if g_range is None else grid.log2_range(*g_range))
    assert ours == theirs


@pytest.mark.parametrize("name,options", [
    ("heart_scale", ["-log2c", "-3,5,2", "-log2g", "-9,-1,2"]),
    ("australian_scale", ["-log2c", "-1,3,2", "-log2g", "-5,-1,2", "-v", "4"]),
    ("heart_scale", ["-log2c", "null", "-log2g", "-7,-2,1", "-c", "2"]),
    ("heart_scale", ["-log2c", "0,2,1", "-log2g", "null", "-t", "0"]),
], ids=["heart", "australian-v4", "g-only", "c-only-linear"])
def test_lines_and_result_file_are_svm_grids(tmp_path, name, options):
    """Each cell's rate, the running best, the result file and the final line: what
    svm-grid prints driving svm-train (the folds are LIBSVM's, the trainings take
    LIBSVM's steps)."""
    path = svm_grid_path()
    data = data_file(name)
    if "-c" in options:   # grid.py refuses -c; C goes through as an svm-train option
        with pytest.raises(subprocess.CalledProcessError):
            subprocess.run([path, "-gnuplot", "null", *options, str(data)], check=True,
                           capture_output=True, cwd=tmp_path)
        options = options[:-2]
    common = ["-gnuplot", "null", *options]
    theirs = run([path, "-svmtrain", shutil.which("svm-train"), *common, "-out",
                  "theirs.out", data], tmp_path)
    ours = run(["libsmo-grid", *common, "-out", "ours.out", data], tmp_path)
    assert ours.stdout == theirs.stdout
    # the same lines; each written as its cell finishes (svm-grid's single worker
    # finishes them in the job order, libsmo's gamma columns in their own)
    assert sorted((tmp_path / "ours.out").read_text().splitlines()) == sorted(
        (tmp_path / "theirs.out").read_text().splitlines())


def test_grid_pys_errors(tmp_path):
    data = data_file("heart_scale")
    out = run(["libsmo-grid", "-c", "1", data], tmp_path, ok=False)
    assert out.returncode == 1
    assert out.stderr == 'Use -log2c and -log2g.\nTry "libsmo-grid" for more information.\n'
    out = run(["libsmo-grid", tmp_path / "nope"], tmp_path, ok=False)
    assert out.stderr.startswith("dataset not found\n")
    out = run(["libsmo-grid", "-log2c", "null", "-log2g", "null", data], tmp_path, ok=False)
    assert out.stderr.startswith("-log2c and -log2g should not be null simultaneously")
    out = run(["libsmo-grid"], tmp_path, ok=False)
    assert out.returncode == 1 and out.stdout.startswith("Usage: libsmo-grid")


def test_resume_skips_the_cells_already_done(tmp_path):
    data = data_file("heart_scale")
    options = ["-gnuplot", "null", "-log2c", "-1,3,2", "-log2g", "-7,-3,2"]
    whole = run(["libsmo-grid", *options, "-out", "whole.out", data], tmp_path).stdout
    lines = (tmp_path / "whole.out").read_text().splitlines()
    (tmp_path / "part.out").write_text("\n".join(lines[:4]) + "\n")
    resumed = run(["libsmo-grid", *options, "-out", "part.out", "-resume", "part.out",
                   data], tmp_path).stdout
    assert resumed.count("[resumed]") == 4 and resumed.count("[local]") == len(lines) - 4
    assert resumed.splitlines()[-1] == whole.splitlines()[-1]
    assert sorted((tmp_path / "part.out").read_text().splitlines()) == sorted(lines)


def test_regression_grids_minimise_the_mean_squared_error():
    X, y = load_dataset("housing_scale")
    result = grid.grid_search(X, y, log2c=(-1, 3, 2), log2g=(-3, -1, 1),
                              svm_type="epsilon_svr")
    assert result.best.rate == min(cell.rate for cell in result.cells)
    # each rate is svm-train -v 5's figure with LIBSVM's folds
    c, g = 2.0 ** result.best.log2c, 2.0 ** result.best.log2g
    cv = libsmo.cross_validation(X, y, 5, svm_type="epsilon_svr", C=c, gamma=g,
                                 random_state=libsmo.LibsvmRandom())
    assert result.best.rate == float(f"{cv['mse']:g}")


def test_any_mapping_of_the_gamma_tasks_gives_the_same_grid():
    """The tasks (one per gamma, its cells in the job order) may run through a
    parallel map."""
    X, y = load_dataset("heart_scale")
    seen = []

    def recording_map(function, tasks):
        tasks = list(tasks)
        seen.extend(tasks)
        return map(function, tasks)

    serial = grid.grid_search(X, y, log2c=(-1, 3, 2), log2g=(-7, -3, 2),
                              map_tasks=recording_map)
    assert [t.log2g for t in seen] == sorted({t.log2g for t in seen}, key=[
        cell.log2g for cell in serial.cells].index)
    job_order = [(cell.log2c, cell.log2g) for cell in serial.cells]
    assert all(list(t.log2cs) == [c for c, g in job_order if g == t.log2g] for t in seen)
    with ThreadPoolExecutor(2) as pool:
        threaded = grid.grid_search(X, y, log2c=(-1, 3, 2), log2g=(-7, -3, 2),
                                    map_tasks=pool.map)
    assert threaded == serial


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_n_jobs_gives_the_same_grid_on_any_joblib_backend(backend):
    """n_jobs=2: the gammas' tasks as joblib tasks (threads here, or processes, which
    receive the validator pickled), each training on one thread with half the cache:
    the same cells, rates and best cell as one after another."""
    import joblib
    X, y = load_dataset("heart_scale")
    serial = grid.grid_search(X, y, log2c=(-1, 3, 2), log2g=(-7, -3, 2))
    with joblib.parallel_config(backend=backend):
        parallel = grid.grid_search(X, y, log2c=(-1, 3, 2), log2g=(-7, -3, 2), n_jobs=2)
    assert parallel == serial
    with pytest.raises(ValueError, match="n_jobs"):
        grid.grid_search(X, y, log2c=(-1, 3, 2), log2g=(-7, -3, 2), n_jobs=0)


def test_the_command_with_jobs_prints_svm_grids_lines(tmp_path):
    """libsmo-grid --jobs 2 prints the same lines and file as svm-grid."""
    path = svm_grid_path()
    data = data_file("heart_scale")
    common = ["-gnuplot", "null", "-log2c", "-3,5,2", "-log2g", "-9,-1,2"]
    theirs = run([path, "-svmtrain", shutil.which("svm-train"), *common, "-out",
                  "theirs.out", data], tmp_path)
    ours = run(["libsmo-grid", "--jobs", "2", *common, "-out", "ours.out", data], tmp_path)
    assert ours.stdout == theirs.stdout
    assert sorted((tmp_path / "ours.out").read_text().splitlines()) == sorted(
        (tmp_path / "theirs.out").read_text().splitlines())
    bad = run(["libsmo-grid", "--jobs", "two", data], tmp_path, ok=False)
    assert bad.returncode == 1 and "--jobs needs an integer" in bad.stderr


def test_warm_starts_along_c_take_fewer_steps_to_the_same_figures():
    """Each fold at C = 8 started from the same fold's model at C = 2, where most
    support vectors sit at C: `alpha_seed` scales it by 4 (alpha seeding), far fewer
    SMO steps, every fold's objective the cold fit's (the same optimum), the same
    predictions; the grid with warm_start=True has svm-grid's best cell and every rate
    within one example of the cold grid's."""
    X, y = load_dataset("heart_scale")
    params = TrainParams.from_kwargs(gamma=2.0 ** -13)
    folds = libsvm_folds(y, len(y), 5, "c_svc", libsmo.LibsvmRandom(1))
    _, previous = fold_predictions(X, y, folds, params.replace(C=2.0), keep_models=True)
    seeds = [grid.alpha_seed(m, 2.0, 8.0, len(y) - len(f)) for m, f in zip(previous, folds)]
    for s, m in zip(seeds, previous):
        off_support = np.delete(s, m.support, axis=1)
        assert np.array_equal(s[:, m.support], 4.0 * m.sv_coef) and not off_support.any()
    cold, cold_models = fold_predictions(X, y, folds, params.replace(C=8.0),
                                         keep_models=True)
    warm, warm_models = fold_predictions(X, y, folds, params.replace(C=8.0),
                                         starts=seeds, keep_models=True)
    steps = [(sum(c.n_iter), sum(w.n_iter)) for c, w in zip(cold_models, warm_models)]
    assert sum(w for _, w in steps) < 0.5 * sum(c for c, _ in steps), steps
    for c, w in zip(cold_models, warm_models):
        assert abs(w.objective[0] - c.objective[0]) <= 1e-3 * abs(c.objective[0])
    assert np.sum(cold != warm) <= 1
    serial = grid.grid_search(X, y, log2c=(-1, 11, 2), log2g=(-13, -5, 2))
    seeded = grid.grid_search(X, y, log2c=(-1, 11, 2), log2g=(-13, -5, 2), warm_start=True)
    assert seeded.best == serial.best
    assert all(abs(a.rate - b.rate) <= 100.0 / len(y) + 1e-4
               for a, b in zip(serial.cells, seeded.cells))


def test_the_kernel_matrix_path_and_the_direct_path_agree():
    """Below the cache's budget a gamma's cells train on blocks of one kernel matrix;
    above it each fold computes its rows. Both give the same rates."""
    X, y = load_dataset("heart_scale")
    shared = grid.grid_search(X, y, log2c=(-1, 5, 2), log2g=(-5, -1, 2))
    direct = grid.grid_search(X, y, log2c=(-1, 5, 2), log2g=(-5, -1, 2), cache_size=0.1)
    assert [c.rate for c in shared.cells] == [c.rate for c in direct.cells]


def test_probability_cells_draw_as_each_svm_train_does():
    X, y = load_dataset("heart_scale")
    result = grid.grid_search(X, y, log2c=(0, 0, 1), log2g=(-3, -3, 1), probability=True)
    cv = libsmo.cross_validation(X, y, 5, C=1.0, gamma=0.125, probability=True,
                                 random_state=libsmo.LibsvmRandom())
    assert result.cells[0].rate == float(f"{cv['accuracy']:g}")
    again = grid.grid_search(X, y, log2c=(0, 0, 1), log2g=(-3, -3, 1), probability=True)
    assert again == result


def test_the_command_runs_without_a_terminal_or_gnuplot(tmp_path):
    """-gnuplot with a missing program: grid.py's message, and the grid goes on."""
    data = data_file("heart_scale")
    out = run(["libsmo-grid", "-gnuplot", tmp_path / "no-gnuplot", "-out", "null",
               "-log2c", "0,1,1", "-log2g", "-2,-1,1", data], tmp_path)
    assert out.stderr == "gnuplot executable not found\n"
    assert len(out.stdout.splitlines()) == 5
    assert np.isfinite(float(out.stdout.split()[-1]))


def test_gnuplot_is_waited_for_or_ended(tmp_path):
    """The command starts gnuplot before the grid and, after it, waits for the picture;
    when the grid fails, gnuplot is ended instead of left running."""
    from libsmo.cli._grid import _Plotter
    drawing = tmp_path / "drawing"
    drawing.write_text(f"#!/bin/sh\nsleep 0.2\nexec cat > {tmp_path / 'drawn'}\n")
    drawing.chmod(0o755)
    plotter = _Plotter.start(str(drawing))
    plotter.draw("splot\n")
    assert plotter.process.returncode == 0
    assert (tmp_path / "drawn").read_text() == "splot\n"
    waiting = tmp_path / "waiting"
    waiting.write_text("#!/bin/sh\nexec sleep 600\n")
    waiting.chmod(0o755)
    plotter = _Plotter.start(str(waiting))
    plotter.stop()
    assert plotter.process.returncode == -signal.SIGKILL   # ended, not left to sleep


def test_the_contour_is_svm_grids_picture(tmp_path):
    """With gnuplot installed, the png has svm-grid's bytes (grid.py's drawing
    commands over the same cells)."""
    path = svm_grid_path()
    if shutil.which("gnuplot") is None:
        # .ci/run installs it (Debian's gnuplot-nox)
        reason = "gnuplot is not installed (svm-grid draws nothing without it)"
        if UNDER_CI:
            pytest.fail(reason)
        pytest.skip(reason)
    data = data_file("heart_scale")
    options = ["-out", "null", "-log2c", "-1,5,2", "-log2g", "-7,-1,2"]
    run(["libsmo-grid", "-gnuplot", shutil.which("gnuplot"), "-png", "ours.png", *options,
         data], tmp_path)
    theirs = subprocess.run([path, "-svmtrain", shutil.which("svm-train"), "-gnuplot",
                             shutil.which("gnuplot"), "-png", "theirs.png", *options,
                             str(data)], cwd=tmp_path, capture_output=True, timeout=300)
    assert theirs.returncode == 0
    # svm-grid does not wait for its gnuplot: poll until the picture stops growing
    ours_size, sizes = (tmp_path / "ours.png").stat().st_size, []
    for _ in range(300):
        png = tmp_path / "theirs.png"
        sizes.append(png.stat().st_size if png.exists() else 0)
        if sizes[-1] >= ours_size or sizes[-3:] == [sizes[-1]] * 3 and sizes[-1]:
            break
        time.sleep(0.1)
    assert (tmp_path / "ours.png").read_bytes() == (tmp_path / "theirs.png").read_bytes()


def test_bench_grid_smoke(tmp_path):
    """benchmarks/bench_grid.py on a 2 x 2 grid: both tools run, the same best cell."""
    svm_grid_path()
    data_file("heart_scale")
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_grid.py"
    # the libsmo this test imports (installed, or the checkout on PYTHONPATH), not
    # --source: a clean checkout holds no compiled extensions
    out = subprocess.run([sys.executable, str(script), "--cases", "heart_scale",
                          "--repeats", "1", "--log2c=0,1,1", "--log2g=-2,-1,1", "--output",
                          str(tmp_path / "grid.json")], capture_output=True, text=True,
                         cwd=tmp_path, timeout=600, env=script_env())
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    result = json.loads((tmp_path / "grid.json").read_text())["cases"][0]
    assert result["same_best"] and result["cells"] == 4


def _column_steps(X, y, folds, params, log2cs, seed):
    """SMO steps of one gamma's cells along C, each fold started by seed(model,
    previous_C, C, training rows) from its model at the previous C (None: cold)."""
    steps, models, previous_C = 0, None, None
    for log2c in log2cs:
        C = 2.0 ** log2c
        starts = (None if models is None or seed is None
                  else [seed(m, previous_C, C, len(y) - len(f))
                        for m, f in zip(models, folds)])
        _, models = fold_predictions(X, y, folds, params.replace(C=C), starts=starts,
                                     keep_models=True)
        steps += sum(sum(m.n_iter) for m in models)
        previous_C = C
    return steps


def test_alpha_seed_keeps_free_alphas_where_scaling_them_costs_steps():
    """Where most support vectors are free (heart_scale at gamma 2^-7, C up to 2^15),
    scaling the whole solution by C's ratio moves the free alphas away from the new
    optimum: `alpha_seed` keeps such a model as it is, and the column takes fewer
    steps than with every model scaled (276,254 against 319,730 when written)."""
    X, y = load_dataset("heart_scale")
    params = TrainParams.from_kwargs(gamma=2.0 ** -7)
    folds = libsvm_folds(y, len(y), 5, "c_svc", libsmo.LibsvmRandom(1))
    log2cs = range(5, 16, 2)

    def scaled(model, previous_C, C, n_rows):
        return model.replace(sv_coef=model.sv_coef * (C / previous_C))

    by_rule = _column_steps(X, y, folds, params, log2cs, grid.alpha_seed)
    always_scaled = _column_steps(X, y, folds, params, log2cs, scaled)
    assert by_rule < 0.95 * always_scaled, (by_rule, always_scaled)
    _, models = fold_predictions(X, y, folds, params.replace(C=2.0 ** 15),
                                 keep_models=True)
    kept = [grid.alpha_seed(m, 2.0 ** 15, 2.0 ** 17, len(y) - len(f))
            for m, f in zip(models, folds)]
    assert any(np.array_equal(k[:, m.support], m.sv_coef) for k, m in zip(kept, models))


@pytest.mark.skipif((os.cpu_count() or 1) < 2,
                    reason="one core: BLAS has one thread whatever the command does")
def test_the_command_keeps_blas_to_one_thread(tmp_path):
    """Each grid task trains and predicts on one thread: the command gives BLAS one
    thread before numpy loads it (its idle threads would spin on the other cores after
    each fold's prediction), unless the environment sets a count."""
    data = data_file("heart_scale")
    driver = ("import sys; from libsmo import cli; "
              "status = cli.main(['grid', '-log2c', '0,1,1', '-log2g', '-2,-1,1', '-out', "
              "'null', '-gnuplot', 'null', sys.argv[1]]); "
              "from threadpoolctl import threadpool_info; "
              "print(status, max(p['num_threads'] for p in threadpool_info() "
              "if p['user_api'] == 'blas'))")
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")}

    def blas_threads(env):
        out = subprocess.run([sys.executable, "-c", driver, str(data)], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        status, threads = out.stdout.split()[-2:]
        assert status == "0"
        return int(threads)

    assert blas_threads(environment) == 1
    assert blas_threads(dict(environment, OPENBLAS_NUM_THREADS="2")) == 2
