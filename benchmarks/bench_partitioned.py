"""The partitioned solver on one machine against libsmo's default solver and
scikit-learn-intelex, on binary problems of 300,000 and 1,000,000 rows built from
Fashion-MNIST (RBF, C=10, gamma = 1 / (784 var X), tol 1e-3).

The data (seeded, built once and kept in LIBSMO_DATA_CACHE as .npy files):

  fmnist300k  the 60,000 training images and their four one-pixel shifts (up, down,
              left, right; the vacated row or column black): 300,000 rows, the
              construction of benchmarks/distributed.py.
  fmnist1m    the 60,000 training images under 27 transformations, each of nine
              placements (as they are, and moved one pixel in each of the 8 directions)
              either not rotated or rotated by +8 or -8 degrees (bilinear, about the
              image's centre, rounded back to 8-bit pixels): 1,620,000 virtual rows,
              of which a seeded choice of 1,000,000 (numpy's default_rng(2026)).
  --rows N    an even sample of N rows of fmnist300k (every shift present), for a
              quick run.

  The label is footwear (sandal, sneaker, ankle boot: classes 5, 7, 9) against the rest,
  tested on the 10,000 test images. libsmo is given the pixels as uint8 (stored once,
  a byte a value: libsmo reads them as bytes); its gamma is 1 / (784 var X) of those
  pixels, the same kernel as pixels / 255 with that data's gamma. scikit-learn-intelex
  is given the same pixels as float32 (exact) with the same gamma.

Runs (--runs, comma-separated), each in a fresh process (spawned; its own peak memory):

  smo            libsmo.train(solver="smo"): LIBSVM's solver over all rows, one thread
  smo64          the same on the pixels / 255 as float64 (how the data was given before
                 libsmo kept bytes: the 933 s of issue 45's note), fmnist300k only
  partitioned1   libsmo.train(solver="partitioned", n_threads=1)
  partitioned2   libsmo.train(solver="partitioned", n_threads=2)
  sklearnex      sklearnex.svm.SVC (oneDAL) on float32 pixels (its default threads)

smo, smo64 and sklearnex get --budget seconds (default 3600): libsmo's as its
time_limit (a run that reaches it reports status "time_limit" and the time it took),
scikit-learn-intelex, which has no time limit, is killed at the budget and reported as
not finished with the time it had reached. The partitioned runs have no limit. Printed
per run: fit seconds, CPU seconds,
the dual objective and its relative difference to the smo run's (or the best found),
nSV, test accuracy, peak RSS of the process (VmHWM: the data, as loaded, included)
and the data's own MB, the status, and for the partitioned runs the rounds.

    python benchmarks/bench_partitioned.py --cases fmnist300k --runs partitioned1,partitioned2
    python benchmarks/bench_partitioned.py --cases fmnist1m
    python benchmarks/bench_partitioned.py --rows 60000 --runs smo,partitioned1 \\
        --partitionings kmeans,stratified,random --partitions 4,8,16

With --partitionings/--partitions the partitioned runs are repeated for each
partitioning and partition count (the measurements that chose the defaults). Results
go to benchmarks/results/bench_partitioned.json.
"""
import argparse
import gzip
import hashlib
import json
import multiprocessing
import os
import resource
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
FMNIST = Path(os.environ.get("LIBSMO_FASHION_MNIST", "/usr/share/datasets/fashion-mnist"))
CACHE = Path(os.environ.get("LIBSMO_DATA_CACHE",
                            Path(tempfile.gettempdir()) / "libsmo-data-cache"))
FOOTWEAR = (5, 7, 9)
SEED = 2026
ANGLES = (8.0, -8.0)
MILLION = 1_000_000
C = 10.0
TOL = 1e-3
CACHE_MB = 200


# ------------------------------------------------------------------ data

def fashion(kind):
    """Fashion-MNIST's `kind` ("train" or "t10k") images as uint8 rows, and labels."""
    with gzip.open(FMNIST / f"{kind}-images-idx3-ubyte.gz") as f:
        X = np.frombuffer(f.read(), dtype=np.uint8, offset=16).reshape(-1, 784)
    with gzip.open(FMNIST / f"{kind}-labels-idx1-ubyte.gz") as f:
        y = np.frombuffer(f.read(), dtype=np.uint8, offset=8).astype(np.int64)
    return X, y


def shift(images, dy, dx):
    """Images (n, 28, 28) moved dy rows down and dx columns right (by -1, 0 or 1),
    the vacated row and column black."""
    out = np.zeros_like(images)
    rows_to = slice(max(dy, 0), 28 + min(dy, 0))
    rows_from = slice(max(-dy, 0), 28 + min(-dy, 0))
    cols_to = slice(max(dx, 0), 28 + min(dx, 0))
    cols_from = slice(max(-dx, 0), 28 + min(-dx, 0))
    out[:, rows_to, cols_to] = images[:, rows_from, cols_from]
    return out


def rotate(images, degrees):
    """Images (n, 28, 28) rotated by `degrees` about their centre (bilinear, the
    outside black), rounded to 8-bit pixels."""
    from scipy.ndimage import rotate as nd_rotate
    turned = nd_rotate(images.astype(np.float32), degrees, axes=(2, 1), reshape=False,
                       order=1, mode="constant", cval=0.0)
    return np.clip(np.rint(turned), 0, 255).astype(np.uint8)


def shifted_300k(X, y):
    """fmnist300k: X and its four one-pixel shifts (benchmarks/distributed.py's)."""
    images = X.reshape(-1, 28, 28)
    moves = [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)]
    return (np.vstack([shift(images, dy, dx).reshape(-1, 784) for dy, dx in moves]),
            np.tile(y, len(moves)))


def million(X, y):
    """fmnist1m: a seeded choice of 1,000,000 of the 27 transformations of each image
    (nine placements times no rotation and two rotations), built a transformation at a
    time into one uint8 array."""
    placements = [(dy, dx) for dy in (0, -1, 1) for dx in (0, -1, 1)]
    transforms = [(p, a) for a in (0.0,) + ANGLES for p in placements]
    n = X.shape[0]
    chosen = np.sort(np.random.default_rng(SEED).choice(len(transforms) * n, MILLION,
                                                        replace=False))
    out = np.empty((MILLION, 784), dtype=np.uint8)
    labels = np.empty(MILLION, dtype=np.int64)
    images = X.reshape(-1, 28, 28)
    start = 0
    for t, ((dy, dx), angle) in enumerate(transforms):
        mine = chosen[(chosen >= t * n) & (chosen < (t + 1) * n)] - t * n
        if not len(mine):
            continue
        part = shift(images[mine], dy, dx)
        if angle:
            part = rotate(part, angle)
        out[start:start + len(mine)] = part.reshape(-1, 784)
        labels[start:start + len(mine)] = y[mine]
        start += len(mine)
    return out, labels


def load_case(case, rows=None):
    """(X uint8, y in {0, 1}, X_test uint8, y_test) of a case, built once into CACHE."""
    name = case if not rows else f"{case}-{rows}"
    # named after the images' folder too: another LIBSMO_FASHION_MNIST (the tests' first
    # images) must not be served from this one's files, nor the other way round
    name += "-" + hashlib.sha1(str(FMNIST.resolve()).encode()).hexdigest()[:8]
    path_X, path_y = CACHE / f"{name}-X.npy", CACHE / f"{name}-y.npy"
    X_test, y_test = fashion("t10k")
    y_test = np.isin(y_test, FOOTWEAR).astype(np.int64)
    if path_X.exists() and path_y.exists():
        return np.load(path_X), np.load(path_y), X_test, y_test
    X, y = fashion("train")
    if case == "fmnist300k":
        X, y = shifted_300k(X, y)
    elif case == "fmnist1m":
        X, y = million(X, y)
    else:
        raise ValueError(f"unknown case {case!r}")
    if rows:
        # an even sample, so that every shift is in it
        pick = np.linspace(0, X.shape[0] - 1, rows).astype(int)
        X, y = np.ascontiguousarray(X[pick]), y[pick]
    y = np.isin(y, FOOTWEAR).astype(np.int64)
    CACHE.mkdir(parents=True, exist_ok=True)
    for path, values in ((path_X, X), (path_y, y)):
        fd, tmp = tempfile.mkstemp(dir=CACHE, suffix=".npy")
        with os.fdopen(fd, "wb") as f:
            np.save(f, values)
        os.replace(tmp, path)
    return X, y, X_test, y_test


def gamma_of(X):
    """1 / (784 var X), the variance from the counts of each byte value (exact)."""
    counts = np.zeros(256, dtype=np.int64)
    for start in range(0, X.shape[0], 65536):
        counts += np.bincount(X[start:start + 65536].ravel(), minlength=256)
    values = np.arange(256, dtype=np.float64)
    n = counts.sum()
    mean = counts @ values / n
    var = counts @ (values - mean) ** 2 / n
    return 1.0 / (X.shape[1] * var)


# ------------------------------------------------------------------ one run

def peak_mb():
    """This process's peak RSS since it started, in MB: VmHWM, the high-water mark of
    its own memory (ru_maxrss would also count the parent's memory at the fork that
    started it)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _run(case, rows, run, budget, partitioning, partitions, queue):
    try:
        queue.put(_measure(case, rows, run, budget, partitioning, partitions))
    except BaseException:
        queue.put({"error": traceback.format_exc()})


def _measure(case, rows, run, budget, partitioning, partitions):
    X, y, X_test, y_test = load_case(case, rows)
    gamma = gamma_of(X)
    result = dict(run=run, rows=int(X.shape[0]), gamma=gamma, data_mb=X.nbytes / 2**20)
    if run == "sklearnex":
        from sklearnex.svm import SVC
        Xf = X.astype(np.float32)
        result["data_mb"] += Xf.nbytes / 2**20
        start, cpu = time.perf_counter(), time.process_time()
        clf = SVC(C=C, gamma=gamma, tol=TOL, cache_size=CACHE_MB).fit(Xf, y)
        result.update(seconds=time.perf_counter() - start,
                      cpu=time.process_time() - cpu, status="optimal")
        result["n_sv"] = int(clf.support_.shape[0])
        result["accuracy"] = float(np.mean(clf.predict(X_test.astype(np.float32))
                                           == y_test))
        result["n_iter"] = None
        result["objective"] = _objective(clf.support_vectors_, clf.dual_coef_[0], gamma)
        result["peak_mb"] = peak_mb()
        return result
    import libsmo
    options = dict(C=C, gamma=gamma, tol=TOL, cache_size=CACHE_MB)
    if run == "smo64":
        X = X / 255.0
        X_test = X_test / 255.0
        options["gamma"] = gamma * 255.0 ** 2
        result["data_mb"] = X.nbytes / 2**20
    if run.startswith("smo"):
        options["time_limit"] = budget
    else:
        options.update(solver="partitioned", n_threads=int(run[-1]),
                       partitioning=partitioning, partitions=partitions)
    rounds = []

    def callback(info):
        if info.get("stage") == "round" and "done" in info:
            rounds.append((info["active_size"], info["violation"], info["elapsed"]))

    import warnings
    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = libsmo.train(X, y, callback=None if run.startswith("smo") else callback,
                             callback_every=10**9, **options)
    result.update(seconds=time.perf_counter() - start, cpu=time.process_time() - cpu,
                  status=model.status[0], objective=float(model.objective[0]),
                  n_sv=int(model.n_sv), n_iter=int(model.n_iter[0]), rounds=rounds,
                  partitioning=None if run.startswith("smo") else partitioning,
                  partitions=None if run.startswith("smo") else partitions)
    result["peak_mb"] = peak_mb()
    result["accuracy"] = float(np.mean(model.predict(X_test) == y_test))
    return result


def _objective(SV, coef, gamma):
    """The dual objective 1/2 a'Qa - sum(a) of a binary model from its support vectors
    and coefficients y a (|coef| = a), a block of rows at a time."""
    SV = np.asarray(SV, dtype=np.float64)
    coef = np.asarray(coef, dtype=np.float64)
    norms = np.einsum("ij,ij->i", SV, SV)
    quad = 0.0
    for start in range(0, len(SV), 2048):
        block = SV[start:start + 2048]
        d2 = norms[start:start + 2048, None] + norms[None, :] - 2.0 * block @ SV.T
        quad += coef[start:start + 2048] @ (np.exp(-gamma * np.maximum(d2, 0.0)) @ coef)
    return float(0.5 * quad - np.abs(coef).sum())


def run_fresh(case, rows, run, budget, partitioning="stratified", partitions="auto"):
    """One run in a fresh process: its result, or what it had reached at the budget
    (scikit-learn-intelex is killed there)."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_run, args=(case, rows, run, budget, partitioning,
                                                 partitions, queue))
    start = time.perf_counter()
    process.start()
    # libsmo's SMO stops itself at the budget (the data's loading and prediction come on
    # top); scikit-learn-intelex is stopped here; the partitioned runs have no limit
    limit = budget if run == "sklearnex" else budget + 600
    process.join(None if run.startswith("partitioned") else limit)
    if process.is_alive():
        process.kill()
        process.join()
        return dict(run=run, status="not finished",
                    seconds=time.perf_counter() - start, partitioning=partitioning,
                    partitions=partitions)
    return queue.get() if not queue.empty() else dict(run=run, status="crashed")


# ------------------------------------------------------------------ main

def _line(result, base):
    if "error" in result:
        return f"| {result.get('run')} | error: {result['error'].splitlines()[-1]} |"
    if "objective" not in result:
        return (f"| {result['run']} | > {result['seconds']:.0f} ({result['status']}) "
                "| | | | | | | | |")
    rel = ((result["objective"] - base["objective"]) / abs(base["objective"])
           if base and "objective" in base else float("nan"))
    name = result["run"]
    if result.get("partitioning"):
        name += f" ({result['partitioning']}, {result['partitions']})"
    return (f"| {name} | {result['seconds']:.1f} | {result['cpu']:.1f} | "
            f"{result['objective']:.6f} | {rel:.1e} | {result['n_sv']} | "
            f"{100 * result['accuracy']:.2f} | {result['peak_mb']:.0f} | "
            f"{result['data_mb']:.0f} | {result['status']} | "
            f"{len(result.get('rounds', []))} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default="fmnist300k,fmnist1m")
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--runs", default="smo,partitioned1,partitioned2,sklearnex")
    parser.add_argument("--budget", type=float, default=3600.0)
    parser.add_argument("--partitionings", default="stratified")
    parser.add_argument("--partitions", default="auto")
    parser.add_argument("--out", default=str(HERE / "results"))
    args = parser.parse_args(argv)
    records = []
    for case in args.cases.split(","):
        X, _, _, _ = load_case(case, args.rows)
        print(f"## {case}: {X.shape[0]} rows, gamma {gamma_of(X):.6g}, C {C}", flush=True)
        del X
        print("| run | fit s | CPU s | objective | rel. diff | nSV | accuracy % | peak MB "
              "| data MB | status | rounds |", flush=True)
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|", flush=True)
        base = None
        for run in args.runs.split(","):
            if run == "smo64" and case != "fmnist300k":
                continue
            variants = ([(None, None)] if run in ("smo", "smo64", "sklearnex") else
                        [(p, int(k) if k != "auto" else k)
                         for p in args.partitionings.split(",")
                         for k in args.partitions.split(",")])
            for partitioning, partitions in variants:
                result = run_fresh(case, args.rows, run, args.budget,
                                   partitioning or "stratified", partitions or "auto")
                result["case"] = case
                records.append(result)
                if base is None and result.get("status") == "optimal":
                    base = result
                print(_line(result, base), flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    target = out / "bench_partitioned.json"
    fd, tmp = tempfile.mkstemp(dir=out, suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(records, f, indent=1)
    os.replace(tmp, target)


if __name__ == "__main__":
    sys.exit(main())
