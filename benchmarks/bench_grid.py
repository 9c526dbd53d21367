"""libsmo-grid against svm-grid driving svm-train (Debian's libsvm-tools, LIBSVM 3.24):
the same grid, the same folds (svm-train's: glibc's rand() after srand(1), which
libsmo-grid draws too), one thread each, on heart_scale, australian_scale and a1a.

Each run is a whole command, timed from start to exit the way a user runs it:
svm-grid starts one svm-train per cell; libsmo-grid runs every cell in one process (its
start-up included). Runs alternate between the two tools; the medians of --repeats runs
are compared. Both must report the same best cell; the cells whose rates differ are
counted (libsmo's solver takes LIBSVM's steps, but float rounding can move a long run
of steps, and so an example's prediction, at large C).

    python benchmarks/bench_grid.py                          # svm-grid's default grid
    python benchmarks/bench_grid.py --cases heart_scale --repeats 5
    python benchmarks/bench_grid.py --libsmo-grid libsmo-grid   # the installed command
    python benchmarks/bench_grid.py --source --libsmo-options=--warm-start
    python benchmarks/bench_grid.py --source --jobs 2   # two cores each

With --jobs N both tools use N cores: svm-grid runs from a copy whose nr_local_worker is
N (grid.py's own setting for local workers, which it has no option for), libsmo-grid
gets --jobs N.

By default libsmo-grid runs as `python -m libsmo grid` with this interpreter, from the
installed package or, with --source, from this checkout's src/ (its modules precompiled
into their __pycache__ folders first, as an installed package's are; the compiled
modules built in place). The data are $LIBSMO_DATA_DIR/<name>.xz (`benchmarks.data`).
The grid's time ratio stands on equal work only when both tools report the same best
cell: otherwise the script exits with status 1.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import data, options  # noqa: E402

REPO = data.REPO
CASES = ("heart_scale", "australian_scale", "a1a")
DEFAULT_OUTPUT = REPO / "benchmarks" / "results" / "bench_grid.json"
LINE = re.compile(r"^\[(\w+)\] (.*) (\S+) \(best")


def run_grid(command, data, options, workdir, env):
    """(seconds, stdout) of one grid command."""
    start = time.perf_counter()
    out = subprocess.run([*command, *options, str(data)], capture_output=True, text=True,
                         cwd=workdir, env=env, timeout=24 * 3600)
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({out.returncode}): {out.stderr}")
    return seconds, out.stdout


def rates(stdout):
    """{cell: rate} from a grid's lines."""
    return {m.group(2): m.group(3) for m in map(LINE.match, stdout.splitlines()) if m}


def svm_grid_with_workers(svm_grid, jobs, workdir):
    """The command of a copy of svm-grid (in workdir) that runs `jobs` local workers:
    grid.py's nr_local_worker, which it sets in its source instead of an option."""
    source = Path(svm_grid).read_text()
    edited, count = re.subn(r"(?m)^nr_local_worker = \d+$", f"nr_local_worker = {jobs}",
                            source)
    if count != 1:
        sys.exit(f"{svm_grid} has no nr_local_worker line to set")
    copy = Path(workdir) / "svm-grid-workers"
    copy.write_text(edited)
    interpreter = source.splitlines()[0][2:].split() if source.startswith("#!") else []
    return (interpreter or [sys.executable]) + [str(copy)]


def libsmo_command(args, env):
    if args.libsmo_grid:
        return shlex.split(args.libsmo_grid)
    if args.source:
        # the checkout's modules compiled once into their __pycache__ folders (ignored
        # by git), as installed modules are, so that each run does not compile them
        # again (PYTHONDONTWRITEBYTECODE may be set); a PYTHONPYCACHEPREFIX would not
        # do: numpy's and scipy's compiled modules are not there
        env["PYTHONPATH"] = str(REPO / "src")
        subprocess.run([sys.executable, "-m", "compileall", "-q",
                        str(REPO / "src" / "libsmo")], env=env, check=True)
    return [sys.executable, "-m", "libsmo", "grid"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--log2c", default=None, help="begin,end,step (svm-grid's default)")
    parser.add_argument("--log2g", default=None, help="begin,end,step (svm-grid's default)")
    options.data_dir_option(parser)
    parser.add_argument("--libsmo-grid", default=None,
                        help="the libsmo-grid command to time (default: python -m libsmo grid)")
    parser.add_argument("--libsmo-options", default="",
                        help="more options for libsmo-grid (e.g. --warm-start)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="cores for each tool: svm-grid's local workers, libsmo-grid's "
                             "--jobs")
    parser.add_argument("--source", action="store_true",
                        help="run libsmo from this checkout instead of the installed package")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    svm_grid, svm_train = shutil.which("svm-grid"), shutil.which("svm-train")
    if svm_grid is None or svm_train is None:
        sys.exit("svm-grid and svm-train are needed (Debian's libsvm-tools)")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    ours = libsmo_command(args, env) + shlex.split(args.libsmo_options)
    if args.jobs > 1:
        ours += ["--jobs", str(args.jobs)]
    theirs = [svm_grid, "-svmtrain", svm_train]
    grid_options = ["-gnuplot", "null", "-out", "null"]
    if args.log2c:
        grid_options += ["-log2c", args.log2c]
    if args.log2g:
        grid_options += ["-log2g", args.log2g]
    results = []
    with tempfile.TemporaryDirectory() as workdir:
        if args.jobs > 1:
            theirs = svm_grid_with_workers(svm_grid, args.jobs, workdir) + theirs[1:]
        for case in args.cases.split(","):
            data_file = data.decompress(case, args.data_dir)
            times = {"svm-grid": [], "libsmo-grid": []}
            outputs = {}
            for repeat in range(args.repeats):
                order = [("svm-grid", theirs), ("libsmo-grid", ours)]
                for name, command in (order if repeat % 2 == 0 else order[::-1]):
                    seconds, stdout = run_grid(command, data_file, grid_options, workdir, env)
                    times[name].append(seconds)
                    outputs[name] = stdout
                    print(f"{case}: {name} {seconds:.2f} s", flush=True)
            a, b = rates(outputs["svm-grid"]), rates(outputs["libsmo-grid"])
            best = [outputs[n].splitlines()[-1] for n in ("svm-grid", "libsmo-grid")]
            medians = {n: statistics.median(t) for n, t in times.items()}
            results.append({
                "case": case, "cells": len(a), "times_s": times, "median_s": medians,
                "ratio": medians["libsmo-grid"] / medians["svm-grid"],
                "best": best, "same_best": best[0] == best[1],
                "cells_differing": sorted(k for k in a if a[k] != b.get(k))})
    print()
    print("| case | cells | svm-grid s | libsmo-grid s | ratio | speed-up | best cell "
          "(svm-grid) | same best | cells whose rate differs |")
    print("|---|---:|---:|---:|---:|---:|---|---|---|")
    for r in results:
        print(f"| {r['case']} | {r['cells']} | {r['median_s']['svm-grid']:.2f} | "
              f"{r['median_s']['libsmo-grid']:.2f} | {r['ratio']:.3f} | "
              f"{1 / r['ratio']:.1f}x | {r['best'][0]} | {'yes' if r['same_best'] else 'NO'} "
              f"| {len(r['cells_differing'])} {r['cells_differing'][:3]} |")
    print(f"\nmedians of {args.repeats} runs; commands: {' '.join(ours)} / "
          f"{' '.join(theirs)}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({"command": ours, "peer": theirs, "options": grid_options,
                                       "repeats": args.repeats, "cases": results},
                                      indent=1))
    return 0 if all(r["same_best"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
