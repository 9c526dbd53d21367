"""libsmo.dask on a LocalCluster against single-process libsmo and LIBSVM, same data and
parameters (RBF, tol 1e-3, one thread everywhere).

Cases (--cases, comma-separated):
  fmnist10   Fashion-MNIST 10 classes (Debian's dataset-fashion-mnist, pixels / 255),
             C=10, gamma = 1 / (784 var X): one-vs-one pairs spread over the workers
  a9a        a9a binary, C=1, gamma=0.05: the cascade (cascade_rows=0)
  fmnist300k the 300,000 rows of Fashion-MNIST and its one-pixel shifts (up, down,
             left, right: the virtual-examples construction), footwear (sandal,
             sneaker, ankle boot) against the rest, C=10, same gamma: the cascade

For each case: single-process libsmo and (with --libsvm) libsvm-official, each in a
fresh process; then libsmo.dask.SVC on a LocalCluster of 1 and 2 worker processes of one
thread (--workers), with the data cut into --partitions partitions and loaded on the
workers before the clock starts. Printed: fit time, the ratio to single-process libsmo,
CPU seconds (for the cluster: every worker's and the client's) and the busiest worker's
CPU seconds, which is the fit's time on a machine whose cores are free (on a shared
machine wall time also counts the neighbours' work), and its ratio to single-process
libsmo's CPU time; the objective (sum over the binary problems) and its relative
difference, nSV, test accuracy, peak RSS during the fit (the process with its data;
for the cluster the largest worker's, with its partitions), the bytes moved between
workers during the fit, and the cascade's rounds. --rows takes the first rows only
(fmnist300k: an even sample of its rows; a quick run); results go to
benchmarks/results/distributed.json.

The objective of every run is computed the same way from its dual coefficients
(`benchmarks.objective`); a run whose objective, nSV or accuracy differs from
single-process libsmo's beyond `benchmarks.agreement`'s tolerances has its ratios
FLAGGED and the script exits with status 1. The single-process runs are prepared by
their `benchmarks.peers` modules (a 200 MB cache, as the cluster's fit).

    python benchmarks/distributed.py --cases a9a --rows 8000 --partitions 2,4,8
    python benchmarks/distributed.py --cases fmnist10 --libsvm
"""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import argparse  # noqa: E402
import json  # noqa: E402
import multiprocessing  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
if not __package__:
    # run as a file: the repository root on the path instead of this folder, whose
    # distributed.py (this file) would shadow Dask's package of that name
    sys.path[0] = str(HERE.parent)

from benchmarks import agreement, data, objective  # noqa: E402
from benchmarks.cases import Case  # noqa: E402
from benchmarks.peers import peer  # noqa: E402

FOOTWEAR = (5, 7, 9)
CACHE_MB = 200


# ------------------------------------------------------------------ data

def _svmlight(name, n_features=None):
    return peer("libsmo").reader()(str(data.decompress(name)), n_features)


def _fashion(kind):
    prefix = "train" if kind == "train" else "test"
    paths = data.fashion_paths()
    X = data.read_idx(paths[f"{prefix}_images"]).reshape(-1, 784)
    y = data.read_idx(paths[f"{prefix}_labels"]).astype(np.int64)
    return X.astype(np.float64) / 255.0, y


def shifted(X):
    """X and its four one-pixel shifts (the images moved up, down, left, right, the
    vacated row or column black)."""
    images = X.reshape(-1, 28, 28)
    out = [X]
    for axis, step in ((1, -1), (1, 1), (2, -1), (2, 1)):
        moved = np.roll(images, step, axis=axis)
        edge = 0 if step == 1 else -1
        if axis == 1:
            moved[:, edge, :] = 0
        else:
            moved[:, :, edge] = 0
        out.append(moved.reshape(-1, 784))
    return np.vstack(out)


def load_case(case, rows):
    """(X, y, X_test, y_test, params) of a case."""
    if case == "a9a":
        X, y = _svmlight("a9a")
        Xt, yt = _svmlight("a9a.t", n_features=X.shape[1])
        params = dict(C=1.0, gamma=0.05)
    else:
        X, y = _fashion("train")
        Xt, yt = _fashion("t10k")
        if case == "fmnist300k":
            X, y = shifted(X), np.tile(y, 5)
            y, yt = np.isin(y, FOOTWEAR).astype(int), np.isin(yt, FOOTWEAR).astype(int)
        elif case != "fmnist10":
            raise ValueError(f"unknown case {case!r}")
        params = dict(C=10.0, gamma=None)
    if rows and case == "fmnist300k":
        # an even sample, so that every shift is in it
        pick = np.linspace(0, X.shape[0] - 1, rows).astype(int)
        X, y = X[pick], y[pick]
    elif rows:
        X, y = X[:rows], y[:rows]
    if params["gamma"] is None:
        params["gamma"] = float(1.0 / (784 * X.var()))
    return X, y, Xt, yt, params


# ------------------------------------------------------------------ memory

def reset_peak():
    """Start this process's peak RSS afresh (Linux: a process forked from one holding
    the data would otherwise report its parent's peak)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def peak_mb():
    """This process's peak RSS since `reset_peak`, in MB."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ------------------------------------------------------------------ single process

def _case(case, params):
    return Case(case, case, None, None, "c_svc", "rbf", C=params["C"],
                gamma=params["gamma"])


def _single(case, rows, library):
    X, y, Xt, yt, params = load_case(case, rows)
    y, yt = y.astype(np.float64), yt.astype(np.float64)
    problem = _case(case, params)
    fit = peer(library).prepare(problem, X, y, 1, cache_mb=CACHE_MB)
    reset_peak()   # the peak of the data as trained and the fit, not of building them
    start, cpu = time.perf_counter(), time.process_time()
    answer = fit()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = peak_mb()
    accuracy = float(np.mean(answer.predict(Xt) == yt))
    return dict(seconds=seconds, cpu=cpu, busiest_cpu=cpu,
                objective=objective.case_objective(answer, X, y, problem),
                n_sv=answer.n_sv, accuracy=accuracy, peak_mb=peak)


def run_single(case, rows, library):
    """One fit in a fresh process (its own peak memory)."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(_single, case, rows, library).result()


# ------------------------------------------------------------------ cluster

def _worker_sent(dask_worker):
    return dask_worker.transfer_outgoing_bytes_total


def _worker_cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_cluster(X, y, Xt, yt, params, workers, partitions, cascade_rows):
    import dask.array as da

    import libsmo.dask
    from distributed import Client, LocalCluster, wait
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        step = -(-X.shape[0] // partitions)
        dX = client.persist(da.from_array(X, chunks=(step, X.shape[1])))
        dy = client.persist(da.from_array(y, chunks=step))
        wait([dX, dy])
        client.run(exec, "import libsmo.dask")   # (exec returns None, not the module) the workers' imports are not the fit's
        client.run(reset_peak)
        before = sum(client.run(_worker_sent).values())
        cpu_before = client.run(_worker_cpu)
        start, client_cpu = time.perf_counter(), time.process_time()
        clf = libsmo.dask.SVC(cache_size=200, cascade_rows=cascade_rows, **params)
        clf.fit(dX, dy)
        seconds, client_cpu = time.perf_counter() - start, time.process_time() - client_cpu
        cpu = {w: c - cpu_before[w] for w, c in client.run(_worker_cpu).items()}
        sent = sum(client.run(_worker_sent).values()) - before
        model = clf.to_model()
        rounds = [[r.working_set, r.added] for c in clf.cascades_.values() for r in c.rounds]
        answer = peer("libsmo").fit_from_model(model)
        dual = objective.dual_objective(answer, X, y, "c_svc", "rbf", gamma=params["gamma"],
                                        support_vectors=model.support_vectors)
        return dict(seconds=seconds, cpu=sum(cpu.values()) + client_cpu,
                    busiest_cpu=max(cpu.values()), objective=dual,
                    n_sv=int(model.n_sv), accuracy=float(np.mean(clf.predict(Xt) == yt)),
                    peak_mb=max(client.run(peak_mb).values()),
                    sent_mb=sent / 2**20, rounds=rounds)
    finally:
        client.close()
        cluster.close()


# ------------------------------------------------------------------ main

def same_work(result, base):
    """The problems of a run held against single-process libsmo's (empty: the same
    work)."""
    return agreement.check_run(dict(result, accuracy=100 * result["accuracy"]),
                               dict(base, accuracy=100 * base["accuracy"]),
                               regression=False).problems


def _row(name, result, base):
    flag = "" if not result.get("problems") else " (FLAGGED)"
    ratio = f"{result['seconds'] / base['seconds']:.2f}{flag}"
    rel = (result["objective"] - base["objective"]) / abs(base["objective"])
    sent = f"{result['sent_mb']:.1f}" if "sent_mb" in result else "-"
    return (f"| {name} | {result['seconds']:.2f} | {ratio} | {result['cpu']:.1f} | "
            f"{result['busiest_cpu']:.1f} | {result['busiest_cpu'] / base['cpu']:.2f}{flag} | "
            f"{result['objective']:.6f} "
            f"| {rel:.1e} | {result['n_sv']} | {100 * result['accuracy']:.2f} | "
            f"{result['peak_mb']:.0f} | {sent} | {result.get('rounds', '-')} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default="fmnist10,a9a")
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--partitions", default=None,
                        help="comma-separated partition counts (default: 2 per worker)")
    parser.add_argument("--libsvm", action="store_true", help="also time libsvm-official")
    parser.add_argument("--out", default=str(HERE / "results"))
    args = parser.parse_args(argv)
    results, flagged = [], []
    for case in args.cases.split(","):
        X, y, Xt, yt, params = load_case(case, args.rows)
        print(f"## {case}: {X.shape[0]} rows, {params}", flush=True)
        lines = ["| run | fit s | ratio to libsmo | CPU s | busiest CPU s | busiest CPU / "
                 "libsmo CPU | objective | rel. diff | nSV | accuracy % | peak MB | moved MB "
                 "| rounds (working set, added) |",
                 "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        base = run_single(case, args.rows, "libsmo")
        lines.append(_row("libsmo, 1 process", base, base))
        print(lines[-1], flush=True)
        record = dict(case=case, rows=X.shape[0], params=params, libsmo=base, cluster=[])
        if args.libsvm:
            record["libsvm"] = theirs = run_single(case, args.rows, "libsvm")
            theirs["problems"] = list(same_work(theirs, base))
            flagged += theirs["problems"]
            lines.append(_row("LIBSVM, 1 process", theirs, base))
        cascade_rows = 0 if case != "fmnist10" else 50_000
        for workers in (int(w) for w in args.workers.split(",")):
            counts = ([int(p) for p in args.partitions.split(",")] if args.partitions
                      else [2 * workers])
            for partitions in counts:
                result = run_cluster(X, y, Xt, yt, params, workers, partitions,
                                     cascade_rows)
                result.update(workers=workers, partitions=partitions)
                result["problems"] = list(same_work(result, base))
                flagged += result["problems"]
                record["cluster"].append(result)
                lines.append(_row(f"dask, {workers} worker(s), {partitions} partitions",
                                  result, base))
                print(lines[-1], flush=True)
        print("\n".join(lines), flush=True)
        results.append(record)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "distributed.json").write_text(json.dumps(results, indent=1))
    for problem in flagged:
        print(f"FLAGGED: {problem}", file=sys.stderr)
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
