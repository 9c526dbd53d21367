"""The kernel cache on large dense binary problems: libsmo against scikit-learn-intelex
and LIBSVM with each library's defaults, and time against cache size.

The problems: the first --rows Fashion-MNIST training images (Debian's
dataset-fashion-mnist, pixels / 255, 784 features), tops (T-shirt/top, pullover, coat,
shirt: classes 0, 2, 4, 6) against the rest, RBF with C=10 and gamma = 1 / (784 var X).

1. Defaults (--rows, default 20000,40000,60000): `libsmo.SVC(C=10, gamma=g)` (its
   cache_size "auto"), `sklearnex.svm.SVC(C=10, gamma=g, n_jobs=1)` (cache_size 200),
   and libsvm-official's `svm_train` with `-c 10 -g g` (-m 100), every library on one
   thread (OMP_NUM_THREADS=1, and threadpoolctl for BLAS).
2. The curve (--curve-rows, default 40000): libsmo.train and LIBSVM (and
   scikit-learn-intelex's SVC(cache_size=) with --curve-libraries) with cache sizes
   --curve-sizes (MB; "whole" is the whole float32 Q with LIBSVM's bookkeeping;
   "auto" is libsmo's cache_size="auto", libsmo only).

Every fit runs in its own process (a fresh heap, its own peak RSS), the libraries
interleaved within each repeat. Each fit's dual objective 1/2 c'Kc - sum |c| is computed
the same way for every library from its dual coefficients c (y_i alpha_i) and support
indices, K in float64 by numpy, which shows the work was equal. Each process reports its
wall time and CPU time (the machine may be shared: the CPU time is the cleaner figure,
the wall time what a user waits). Rows are appended to CSV files under --out as fits
finish, so an interrupted run keeps what it measured:

    cache_defaults.csv   case, rows, library, repeat, wall_s, cpu_s, objective, n_sv,
                         peak_mb, status
    cache_curve.csv      rows, library, cache_mb, repeat, wall_s, cpu_s, objective,
                         n_sv, peak_mb, status

and --plot draws cache_curve.png from cache_curve.csv (median time against cache size,
log axes, one line per library). The summary (medians, libsmo / scikit-learn-intelex,
each size's time over the best size's) is printed at the end and by --summary.

    python benchmarks/bench_cache.py --repeats 3
    python benchmarks/bench_cache.py --rows 20000 --repeats 1 --no-curve
    python benchmarks/bench_cache.py --summary --plot --out DIR
    python benchmarks/bench_cache.py --export benchmarks/results-committed/cache.json \
        --out DIR1,DIR2     # the medians of one or more runs as the committed file

The committed file (`--export`) is what the documentation's Performance page reads
(`benchmarks/committed_results.py`): one row per rows x library x cache size with the
medians, the objective, and each row's CPU time over scikit-learn-intelex's (with its
defaults, at the same rows) and over the best cache size of its library.
"""
import argparse
import csv
import gzip
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

FASHION_DIR = Path(os.environ.get("LIBSMO_FASHION_MNIST",
                                  "/usr/share/datasets/fashion-mnist"))
TOPS = (0, 2, 4, 6)
C = 10.0
DEFAULT_LIBRARIES = ("libsmo", "sklearnex", "libsvm")
CURVE_LIBRARIES = ("libsmo", "libsvm")
DEFAULT_SIZES = "50,100,200,400,800,1600,3200,whole,auto"
# libraries that take cache_size="auto"
AUTO_LIBRARIES = ("libsmo",)
DEFAULTS_FIELDS = ["case", "rows", "library", "repeat", "wall_s", "cpu_s", "objective",
                   "n_sv", "peak_mb", "status"]
CURVE_FIELDS = ["rows", "library", "cache_mb", "repeat", "wall_s", "cpu_s", "objective",
                "n_sv", "peak_mb", "status"]


# ------------------------------------------------------------------------- the data

def fashion_binary(rows):
    """(X, y, gamma): the first `rows` training images as float64 pixels / 255, y = +1
    for tops and -1 for the rest, gamma = 1 / (784 var X)."""
    import numpy as np
    with gzip.open(FASHION_DIR / "train-images-idx3-ubyte.gz") as f:
        X = np.frombuffer(f.read(), dtype=np.uint8, offset=16).reshape(-1, 784)
    with gzip.open(FASHION_DIR / "train-labels-idx1-ubyte.gz") as f:
        labels = np.frombuffer(f.read(), dtype=np.uint8, offset=8)
    X = np.ascontiguousarray(X[:rows] / 255.0)
    y = np.where(np.isin(labels[:rows], TOPS), 1.0, -1.0)
    return X, y, float(1.0 / (X.shape[1] * X.var()))


def whole_q_megabytes(rows):
    """The whole float32 Q with LIBSVM's 20 bytes of bookkeeping a row, in MB."""
    return (4.0 * rows * rows + 20.0 * rows) / 2**20


def dual_objective(X, gamma, support, coef, block=2048):
    """1/2 c'Kc - sum |c| over the support vectors (c = y alpha), K = exp(-gamma
    |x - z|^2) in float64, a block of rows at a time."""
    import numpy as np
    S = X[np.asarray(support, dtype=np.int64)]
    c = np.asarray(coef, dtype=np.float64)
    norms = np.einsum("ij,ij->i", S, S)
    quad = 0.0
    for start in range(0, len(c), block):
        stop = min(start + block, len(c))
        d = norms[start:stop, None] + norms[None, :] - 2.0 * (S[start:stop] @ S.T)
        np.maximum(d, 0.0, out=d)
        quad += c[start:stop] @ (np.exp(-gamma * d) @ c)
    return 0.5 * quad - np.abs(c).sum()


# ------------------------------------------------------------------------- one fit

def fit_once(library, rows, cache_mb):
    """Fit one library on the problem of `rows` rows in this process; returns the
    result dict (seconds, objective, ...). cache_mb None: the library's default;
    "auto": libsmo's cache_size="auto"."""
    import resource

    import numpy as np
    X, y, gamma = fashion_binary(rows)
    # imports (scikit-learn's, behind the estimators) before the clock starts
    if library == "libsmo":
        # the public names load their modules on first use: libsmo.SVC imports the
        # estimators and scikit-learn (about 1.2 CPU seconds), which the clock of
        # scikit-learn-intelex's fit does not count either
        import libsmo
        libsmo_svc, libsmo_train = libsmo.SVC, libsmo.train
    elif library == "sklearnex":
        from sklearnex.svm import SVC
    elif library == "libsvm":
        # and LIBSVM's nodes: svm_train alone is timed
        from libsvm.svmutil import svm_parameter, svm_problem, svm_train
        problem = svm_problem(y.tolist(), X)
        options = f"-c {C:g} -g {gamma!r} -q" + ("" if cache_mb is None
                                                 else f" -m {cache_mb:g}")
    wall, cpu = time.perf_counter(), time.process_time()
    if library == "libsmo":
        if cache_mb is None:
            model = libsmo_svc(C=C, gamma=gamma).fit(X, y)
            support, coef = model.support_, model.dual_coef_[0]
        else:
            model = libsmo_train(X, y, C=C, gamma=gamma, cache_size=cache_mb)
            support, coef = model.support, model.sv_coef[0]
    elif library == "sklearnex":
        sizes = {} if cache_mb is None else {"cache_size": cache_mb}
        model = SVC(C=C, gamma=gamma, n_jobs=1, **sizes).fit(X, y)
        support, coef = model.support_, model.dual_coef_[0]
    elif library == "libsvm":
        model = svm_train(problem, svm_parameter(options))
        support = np.asarray(model.get_sv_indices(), dtype=np.int64) - 1
        coef = np.array([c[0] for c in model.get_sv_coef()])
    else:
        raise ValueError(f"unknown library {library!r}")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"wall_s": wall, "cpu_s": cpu,
            "objective": float(dual_objective(X, gamma, support, coef)),
            "n_sv": len(support),
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}


def run_child(library, rows, cache_mb, timeout):
    """`fit_once` in a fresh process on one thread; a dict with status "ok",
    "timeout" or "failed"."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    spec = json.dumps({"library": library, "rows": rows, "cache_mb": cache_mb})
    try:
        proc = subprocess.run([sys.executable, __file__, "--child", spec], env=env,
                              capture_output=True, text=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "wall_s": timeout}
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        sys.stderr.write(proc.stderr[-2000:])
        return {"status": "failed"}
    return dict(json.loads(lines[-1]), status="ok")


def child_main(spec):
    spec = json.loads(spec)
    from threadpoolctl import threadpool_limits
    with threadpool_limits(1):
        result = fit_once(spec["library"], spec["rows"], spec["cache_mb"])
    print(json.dumps(result), flush=True)
    return 0


# ------------------------------------------------------------------------- tables

def append_row(path, fields, row):
    new = not path.exists()
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        if new:
            writer.writeheader()
        writer.writerow(row)


def read_rows(path):
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _size(row):
    """A curve row's cache size as a sort key: MB, or inf for "auto" (listed last)."""
    return float("inf") if row["cache_mb"] == "auto" else float(row["cache_mb"])


def _median(rows, key):
    values = [float(r[key]) for r in rows if r["status"] == "ok"]
    return statistics.median(values) if values else float("nan")


def summary(out):
    """The medians of both tables as text (markdown)."""
    lines = []
    defaults = read_rows(out / "cache_defaults.csv")
    if defaults:
        lines += [("| rows | library | fits | median wall s | median CPU s | objective "
                   "| nSV | peak MB | wall / sklearnex | CPU / sklearnex |"),
                  "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for rows in sorted({int(r["rows"]) for r in defaults}):
            here = [r for r in defaults if int(r["rows"]) == rows]
            peer = [r for r in here if r["library"] == "sklearnex"]
            peer_wall, peer_cpu = _median(peer, "wall_s"), _median(peer, "cpu_s")
            for library in DEFAULT_LIBRARIES:
                mine = [r for r in here if r["library"] == library]
                if not mine:
                    continue
                ok = [r for r in mine if r["status"] == "ok"]
                wall, cpu = _median(mine, "wall_s"), _median(mine, "cpu_s")
                objective = f"{float(ok[-1]['objective']):.4f}" if ok else "-"
                n_sv = ok[-1]["n_sv"] if ok else "-"
                peak = f"{_median(mine, 'peak_mb'):.0f}" if ok else "-"
                lines.append(f"| {rows:,} | {library} | {len(ok)}/{len(mine)} | "
                             f"{wall:.1f} | {cpu:.1f} | {objective} | {n_sv} | {peak} | "
                             f"{wall / peer_wall:.2f} | {cpu / peer_cpu:.2f} |")
    curve = read_rows(out / "cache_curve.csv")
    if curve:
        lines += ["", ("| rows | library | cache MB | fits | median wall s | median CPU s "
                       "| objective | CPU / best CPU |"),
                  "|---:|---|---:|---:|---:|---:|---:|---:|"]
        for (rows, library) in sorted({(int(r["rows"]), r["library"]) for r in curve}):
            mine = [r for r in curve if int(r["rows"]) == rows and r["library"] == library]
            sizes = sorted({_size(r) for r in mine})
            cpus = {s: _median([r for r in mine if _size(r) == s], "cpu_s")
                    for s in sizes}
            best = min(v for v in cpus.values() if not math.isnan(v))
            for s in sizes:
                at = [r for r in mine if _size(r) == s]
                ok = [r for r in at if r["status"] == "ok"]
                objective = f"{float(ok[-1]['objective']):.4f}" if ok else "-"
                label = "auto" if s == float("inf") else f"{s:g}"
                lines.append(f"| {rows:,} | {library} | {label} | {len(ok)}/{len(at)} | "
                             f"{_median(at, 'wall_s'):.1f} | {cpus[s]:.1f} | {objective} | "
                             f"{cpus[s] / best:.2f} |")
    return "\n".join(lines)


def plot(out):
    """cache_curve.png: median CPU and wall seconds against cache size."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    curve = read_rows(out / "cache_curve.csv")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    libraries = sorted({r["library"] for r in curve}, key=lambda name: (
        name not in CURVE_LIBRARIES, name))
    for library, colour in zip(libraries, ("tab:blue", "tab:orange", "tab:green")):
        mine = [r for r in curve if r["library"] == library]
        sizes = sorted({_size(r) for r in mine} - {float("inf")})
        for key, style, what in (("cpu_s", "-o", "CPU"), ("wall_s", ":x", "wall")):
            values = [_median([r for r in mine if _size(r) == s], key) for s in sizes]
            ax.plot(sizes, values, style, color=colour, label=f"{library} ({what})")
        auto = [r for r in mine if r["cache_mb"] == "auto"]
        if auto:
            ax.axhline(_median(auto, "cpu_s"), color=colour, linestyle="--", alpha=0.6,
                       label=f"{library} auto (CPU)")
    rows = sorted({int(r["rows"]) for r in curve})
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("cache size (MB)")
    ax.set_ylabel("fit time (s, median)")
    ax.set_title(f"Fashion-MNIST tops vs rest, {', '.join(f'{r:,}' for r in rows)} rows, "
                 "RBF C=10, one thread")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "cache_curve.png", dpi=120)


# ------------------------------------------------------------------------- main

def main(argv=None):
    """Run the benchmark; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--rows", default="20000,40000,60000")
    parser.add_argument("--libraries", default=",".join(DEFAULT_LIBRARIES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--curve-rows", type=int, default=40000)
    parser.add_argument("--curve-sizes", default=DEFAULT_SIZES)
    parser.add_argument("--curve-libraries", default=",".join(CURVE_LIBRARIES))
    parser.add_argument("--curve-repeats", type=int, default=None,
                        help="repeats of the curve (default --repeats)")
    parser.add_argument("--no-defaults", action="store_true")
    parser.add_argument("--no-curve", action="store_true")
    parser.add_argument("--timeout", type=float, default=3600.0,
                        help="seconds a fit may take before it is stopped")
    parser.add_argument("--summary", action="store_true", help="only print the summary")
    parser.add_argument("--plot", action="store_true", help="draw cache_curve.png")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"),
                        help="results folder (--export: a comma-separated list)")
    parser.add_argument("--export", help="write the committed JSON file of --out's runs")
    parser.add_argument("--note", action="append", default=[],
                        help="a note for --export's file (repeatable)")
    args = parser.parse_args(argv)
    if args.child:
        return child_main(args.child)
    if args.export:
        export(args, [Path(d) for d in args.out.split(",")], Path(args.export))
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.summary:
        measure(args, out)
    if args.plot:
        plot(out)
    print(summary(out))
    return 0


def _medians(rows, key_fields):
    """{key: the rows of that key} for the rows' key_fields."""
    groups = {}
    for row in rows:
        groups.setdefault(tuple(row[f] for f in key_fields), []).append(row)
    return groups


def export_rows(outs):
    """The committed file's rows from the CSVs of the run folders `outs`: per rows,
    library and cache ("default" for each library's default), the fits, median wall
    and CPU seconds, the last objective and nSV, the median peak memory, the CPU time
    over scikit-learn-intelex's default fit at the same rows and over its library's
    best cache size at the same rows."""
    measured = []
    for out in outs:
        for row in read_rows(out / "cache_defaults.csv"):
            measured.append(dict(row, cache="default"))
        for row in read_rows(out / "cache_curve.csv"):
            measured.append(dict(row, cache=row["cache_mb"]))
    rows = []
    for (n, library, cache), group in sorted(
            _medians(measured, ("rows", "library", "cache")).items(),
            key=lambda item: (int(item[0][0]), item[0][1] != "libsmo", item[0][1],
                              item[0][2] != "default", item[0][2] == "auto",
                              float(item[0][2]) if item[0][2] not in ("default", "auto")
                              else 0.0)):
        ok = [r for r in group if r["status"] == "ok"]
        rows.append({"rows": int(n), "library": library,
                     "cache": cache if cache in ("default", "auto")
                     else f"{float(cache):g} MB",
                     "fits": f"{len(ok)}/{len(group)}",
                     "wall_s": round(_median(group, "wall_s"), 2),
                     "cpu_s": round(_median(group, "cpu_s"), 2),
                     "objective": round(float(ok[-1]["objective"]), 4) if ok else None,
                     "n_sv": int(ok[-1]["n_sv"]) if ok else None,
                     "peak_mb": round(_median(group, "peak_mb")) if ok else None})
    for row in rows:
        peer = [r for r in rows if r["rows"] == row["rows"]
                and r["library"] == "sklearnex" and r["cache"] == "default"]
        row["cpu_over_sklearnex"] = (round(row["cpu_s"] / peer[0]["cpu_s"], 2)
                                     if peer else None)
        sizes = [r["cpu_s"] for r in rows if r["rows"] == row["rows"]
                 and r["library"] == row["library"] and r["cache"] != "default"
                 and not math.isnan(r["cpu_s"])]
        row["cpu_over_best_size"] = (round(row["cpu_s"] / min(sizes), 2)
                                     if sizes and row["cache"] != "default" else None)
    return rows


def export(args, outs, path):
    """Write the committed JSON file (`benchmarks/committed_results.py` reads it)."""
    import platform

    import numpy as np
    import sklearn
    versions = {"python": platform.python_version(), "numpy": np.__version__,
                "scikit-learn": sklearn.__version__}
    from importlib.metadata import PackageNotFoundError, version
    for package in ("scikit-learn-intelex", "libsvm-official"):
        try:
            versions[package] = version(package)
        except PackageNotFoundError:   # a package that is not installed is left out
            continue
    data = {
        "title": "The kernel cache on Fashion-MNIST binary problems",
        "what": ("Fashion-MNIST's first training images, tops (classes 0, 2, 4, 6) "
                 "against the rest, RBF C=10, gamma = 1/(784 var X), one thread each: "
                 "each library with its defaults, and libsmo.train and "
                 "scikit-learn-intelex at cache sizes 100, 200, 800 MB and libsmo's "
                 "'auto'. Medians; ratios of CPU seconds."),
        "date": time.strftime("%Y-%m-%d"),
        "machine": {"cpu": "AMD EPYC (Zen 4), 2 vCPUs under KVM",
                    "memory_note": "a virtual machine shared with other work"},
        "software": versions,
        "commands": [f"python benchmarks/bench_cache.py --export {path} --out {args.out}"],
        "notes": args.note,
        "rows": export_rows(outs),
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


def measure(args, out):
    libraries = args.libraries.split(",")
    curve_libraries = args.curve_libraries.split(",")
    sizes = [whole_q_megabytes(args.curve_rows) if s == "whole"
             else s if s == "auto" else float(s) for s in args.curve_sizes.split(",")]
    curve_repeats = args.repeats if args.curve_repeats is None else args.curve_repeats
    for repeat in range(max(args.repeats, curve_repeats)):
        if not args.no_defaults and repeat < args.repeats:
            for rows in (int(r) for r in args.rows.split(",")):
                for library in libraries:
                    result = run_child(library, rows, None, args.timeout)
                    row = dict(result, case="tops", rows=rows, library=library,
                               repeat=repeat)
                    append_row(out / "cache_defaults.csv", DEFAULTS_FIELDS, row)
                    print(json.dumps(row), flush=True)
        if not args.no_curve and repeat < curve_repeats:
            for size in sizes:
                for library in curve_libraries:
                    if size == "auto" and library not in AUTO_LIBRARIES:
                        continue
                    result = run_child(library, args.curve_rows, size, args.timeout)
                    row = dict(result, rows=args.curve_rows, library=library,
                               cache_mb=size if size == "auto" else round(size, 1),
                               repeat=repeat)
                    append_row(out / "cache_curve.csv", CURVE_FIELDS, row)
                    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    sys.exit(main())
