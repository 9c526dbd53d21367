"""The fuzz campaign: mutated data, model and range files and random training
parameters, each case in a worker process with an address-space limit and a time limit
(tests/helpers/fuzz_campaign_worker.py), asserting a clean refusal (a ValueError or
TypeError with a message, raised by libsmo's own checks) or a checked answer -- data
read as the reference reader reads it, models loaded as the reference model reader
loads them and predicting what libsvm-official predicts, parameters training to
svm_train's objective -- and no crash, hang, runaway allocation or other exception.

The default run is the campaign: 20,000 mutated files of each kind and 2,000 parameter
combinations (DEFAULT_CASES: 74 s on two quiet cores), and three families that check
answers, not only their form (issue 46): the cascade (`libsmo.cascade`, run here) over
random partitionings of a random binary problem (rows sorted or grouped by class,
shuffled; equal, random, one-row and empty partitions) against the single machine's
optimum (objective within 1e-6 relative); random grid ranges (`libsmo.training._grid`: refused,
or a bounded range and grid, never a runaway); random warm starts (scaled cold
solutions up to 1e300, random and signed coefficients, models of another C; NaN, wrong
lengths and overflowing sums refused) against the cold optimum. ``pytest -m slow -k
fuzz_campaign`` runs five times as many (SLOW_CASES). The seed is
printed with every result; ``LIBSMO_FUZZ_SEED=<n>`` replays a run (default: a fixed
seed, so CI sees the same cases every run; ``LIBSMO_FUZZ_SEED=random`` draws one), and
a failure names its kind and case number, which replay alone.
"""
import io
import json
import os
import secrets
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import libsmo
from helpers.data import data_file, load_dataset

TESTS = Path(__file__).resolve().parents[1]
WORKER = TESTS / "helpers" / "fuzz_campaign_worker.py"
DEFAULT_CASES = {"data": 20_000, "model": 20_000, "range": 20_000, "params": 2_000,
                 "partitions": 200, "grid_ranges": 1_000, "warm_starts": 500}
# kinds whose every case is valid input: a refusal is a failure there
VALID_ONLY = ("partitions",)
SLOW_CASES = {kind: 5 * n for kind, n in DEFAULT_CASES.items()}
BATCH = 1000            # cases per worker process
MEMORY_LIMIT = 2 * 2**30   # address space of a worker (numpy and scipy take ~0.5 GB)
CASE_SECONDS = 20.0     # one case's limit: a mutated file is at most a few kB
DEFAULT_SEED = 20261124


def campaign_seed():
    """The seed of this run: LIBSMO_FUZZ_SEED (an integer or "random"), else fixed."""
    value = os.environ.get("LIBSMO_FUZZ_SEED")
    if value == "random":
        return secrets.randbelow(2**31)
    return int(value) if value else DEFAULT_SEED


def seed_files(kind, folder):
    """The unmutated files a kind's cases start from, written into `folder`."""
    contents = []
    if kind == "data":
        with open(data_file("heart_scale"), "rb") as f:
            lines = f.readlines()
        contents = [b"".join(lines[:25]),
                    b"".join(lines[:8]) + b"# a comment\n\n-1 qid:3 2:0.5 7:1\n",
                    b"".join(lines[:6]).replace(b" 1:", b" 0:")]   # zero-based
    elif kind == "model":
        X, y = load_dataset("heart_scale", n_rows=40)
        Xp, yp = load_dataset("pendigits", n_rows=60)
        Xp = Xp / 100
        models = [libsmo.train(X, y, C=0.5),
                  libsmo.train(Xp, yp, kernel="poly", gamma=0.5, coef0=1,
                               probability=True, random_state=0),
                  libsmo.train(X, y, svm_type="epsilon_svr", kernel="sigmoid", C=0.1),
                  libsmo.train(X, y, svm_type="nu_svr", kernel="linear", C=0.1),
                  libsmo.train(X, y, svm_type="one_class", kernel="linear", nu=0.2,
                               probability=True),
                  libsmo.train((X @ X.T).toarray(), y, kernel="precomputed", C=0.1)]
        for model in models:
            out = io.BytesIO()
            libsmo.save_model(model, out, libsvm_precision=True)
            contents.append(out.getvalue())
    elif kind == "range":
        X, y = load_dataset("heart_scale")
        for scaler, target in [(libsmo.Scaler(), None),
                               (libsmo.Scaler(0.0, 1.0, y_range=(-1.0, 1.0)), y)]:
            path = folder / "seed.range"
            scaler.fit(X, target).save_range(path)
            contents.append(path.read_bytes())
    paths = []
    for number, content in enumerate(contents):
        path = folder / f"seed{number}.{kind}"
        path.write_bytes(content)
        paths.append(str(path))
    return paths


def run_batch(job, folder):
    """Run one batch in worker processes, resuming after the case that crashed one.

    Returns
    -------
    dict
        counts of clean errors and valid results, and the failures (crashes included).
    """
    counts = {"clean_error": 0, "valid": 0}
    checked = {}
    failures = []
    start, end = job["start"], job["start"] + job["count"]
    tag = f"{job['kind']}{start}"
    # libsmo as this process imports it, and the tests' helpers (reference readers,
    # libsvm-official's side)
    path = os.pathsep.join([str(Path(libsmo.__file__).parents[1]), str(TESTS)])
    environment = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                       MKL_NUM_THREADS="1", PYTHONPATH=path)
    while start < end:
        part = dict(job, start=start, count=end - start, work=str(folder),
                    out=str(folder / f"{tag}.out.json"),
                    progress=str(folder / f"{tag}.progress"))
        job_file = folder / f"{tag}.job.json"
        job_file.write_text(json.dumps(part))
        Path(part["progress"]).write_text(str(start))
        try:
            finished = subprocess.run([sys.executable, str(WORKER), str(job_file)],
                                      env=environment, capture_output=True,
                                      timeout=CASE_SECONDS * 2 + 0.5 * (end - start))
            returncode, stderr = finished.returncode, finished.stderr.decode()[-2000:]
        except subprocess.TimeoutExpired:
            returncode, stderr = "timeout", ""
        if returncode == 0:
            result = json.loads(Path(part["out"]).read_text())
            for name, value in result["counts"].items():
                counts[name] += value
            for name, value in result["checked"].items():
                checked[name] = checked.get(name, 0) + value
            failures.extend(result["failures"])
            break
        crashed = int(Path(part["progress"]).read_text())
        failures.append({"case": crashed, "error": f"worker process ended ({returncode})",
                         "traceback": stderr})
        start = crashed + 1
    for failure in failures:
        failure["kind"] = job["kind"]
    return {"counts": counts, "checked": checked, "failures": failures}


def run_campaign(sizes, tmp_path):
    seed = campaign_seed()
    jobs = []
    for kind, n in sizes.items():
        folder = tmp_path / kind
        folder.mkdir()
        files = seed_files(kind, folder) if kind in ("data", "model", "range") else []
        rows = {"data": None, "model": "pendigits", "range": "heart_scale",
                "params": "heart_scale"}.get(kind)   # the families make their own rows
        for start in range(0, n, BATCH):
            batch_folder = folder / str(start)
            batch_folder.mkdir()
            jobs.append((dict(kind=kind, seed=seed, start=start, count=min(BATCH, n - start),
                              seed_files=files, case_seconds=CASE_SECONDS,
                              memory_limit=MEMORY_LIMIT,
                              rows_file=str(data_file(rows)) if rows else None),
                         batch_folder))
    with ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1))) as pool:
        results = list(pool.map(lambda job: run_batch(*job), jobs))
    totals = {kind: {"clean_error": 0, "valid": 0} for kind in sizes}
    checks = {kind: {} for kind in sizes}
    failures = []
    for (job, _), result in zip(jobs, results):
        for name, value in result["counts"].items():
            totals[job["kind"]][name] += value
        for name, value in result["checked"].items():
            checks[job["kind"]][name] = checks[job["kind"]].get(name, 0) + value
        failures.extend(result["failures"])
    print(f"\nfuzz campaign seed={seed} (replay: LIBSMO_FUZZ_SEED={seed})")
    for kind, counts in totals.items():
        compared = ", ".join(f"{name.replace('_', ' ')} {value}"
                             for name, value in checks[kind].items() if value)
        print(f"  {kind}: {sizes[kind]} cases, {counts['clean_error']} clean refusals, "
              f"{counts['valid']} checked results ({compared or 'nothing compared'}), "
              f"{sum(f['kind'] == kind for f in failures)} failures")
    return seed, totals, checks, failures


def check(sizes, tmp_path):
    seed, totals, checks, failures = run_campaign(sizes, tmp_path)
    shown = "\n".join(f"{f['kind']} case {f['case']}: {f['error']}\n{f.get('traceback', '')}"
                      for f in failures[:5])
    assert not failures, (f"{len(failures)} failures with LIBSMO_FUZZ_SEED={seed}; "
                          f"first ones:\n{shown}")
    for kind, n in sizes.items():
        assert totals[kind]["clean_error"] + totals[kind]["valid"] == n
        if kind in VALID_ONLY:
            assert totals[kind]["valid"] == n, kind
            continue
        # both outcomes occur, so the mutations neither all break the files nor miss them
        assert totals[kind]["clean_error"] > 0 and totals[kind]["valid"] > 0, kind
    # and the answers were checked, not only their absence of crashes: every data and
    # model file read was the reference readers' reading, most models' predictions
    # and a good share of the parameter sets' objectives were compared with LIBSVM's
    for kind in ("data", "model"):
        if kind in sizes:
            # (a data file read as the reference reads it may then be refused by
            # training: a clean refusal after a checked reading)
            assert checks[kind]["reference_reader"] >= totals[kind]["valid"], kind
    if "model" in sizes:
        assert checks["model"]["libsvm_predictions"] >= 0.5 * totals["model"]["valid"]
        assert checks["model"]["libsvm_probabilities"] > 0
    if "params" in sizes:
        assert checks["params"]["libsvm_objective"] >= 0.25 * totals["params"]["valid"]


def test_fuzz_campaign(tmp_path):
    check(DEFAULT_CASES, tmp_path)


@pytest.mark.slow
def test_fuzz_campaign_five_times(tmp_path):
    check(SLOW_CASES, tmp_path)


# ------------------------------------------------------ what counts as a refusal

def test_a_clean_refusal_is_libsmos_own_raise():
    """The worker counts a ValueError/TypeError as a clean refusal only when it has a
    message and a `raise` statement of libsmo's own code raised it: one raised inside
    numpy, by Python underneath libsmo's code (a `NoneType` error on a line of
    libsmo's that is no raise) or without a message is a failure."""
    from helpers.fuzz_campaign_worker import LIBSMO_DIR, clean_refusal

    def caught(call):
        try:
            call()
        except (ValueError, TypeError) as error:
            return error
        raise AssertionError("no error")

    # libsmo's parameter checks and its compiled parser: clean
    assert clean_refusal(caught(lambda: libsmo.train([[0.0], [1.0]], [0, 1], C="1"))) is None
    assert clean_refusal(caught(lambda: libsmo.load_svmlight_file(
        io.BytesIO(b"1 1:x\n")))) is None
    # inside numpy
    problem = clean_refusal(caught(lambda: np.arange(2).reshape(3)))
    assert "not by libsmo's own checks" in problem
    # Python's own TypeError on a line of libsmo's code that raises nothing (the code
    # compiled under the name of one of libsmo's files, at its docstring's line)
    code = compile("\nmissing = None; missing[0]\n",
                   str(LIBSMO_DIR / "_utils" / "validation.py"), "exec")
    problem = clean_refusal(caught(lambda: exec(code, {})))
    assert "TypeError raised at" in problem and "validation.py:2" in problem

    def silent():
        raise ValueError()
    assert "without a message" in clean_refusal(caught(silent))
