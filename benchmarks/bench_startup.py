"""Start-up of the commands as a user sees it: libsmo-train / -predict / -scale against
svm-train / svm-predict / svm-scale, whole processes timed from start to exit, on a
usage error (no arguments: nothing to read) and on heart_scale (270 rows: the data is
read, a model trained, applied, scaled). The bare interpreter is timed too: what Python
costs before libsmo runs a line.

    python benchmarks/bench_startup.py                    # the installed commands
                                                          # (beside this interpreter)
    python benchmarks/bench_startup.py --source           # this checkout, precompiled
    python benchmarks/bench_startup.py --repeats 21

Medians of --repeats runs, the two tools alternating.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_train import DEFAULT_DATA_DIR, decompress  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def timed(command, cwd, env):
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=600)
    return time.perf_counter() - start


def libsmo_tool(name, args, env):
    """The command that runs libsmo's `name` (train, predict, scale)."""
    if args.source:
        return [sys.executable, "-m", "libsmo", name]
    # the script pip installed beside this interpreter: a version manager's shim found
    # first on PATH (pyenv's is a bash script that runs `pyenv exec`) adds its own
    # start-up, 0.05-0.1 s here, which is not libsmo's
    beside = Path(sys.executable).parent / f"libsmo-{name}"
    path = str(beside) if beside.is_file() else shutil.which(f"libsmo-{name}")
    if path is None:
        sys.exit(f"libsmo-{name} is not installed: pip install . (or use --source)")
    return [path]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--source", action="store_true",
                        help="run libsmo from this checkout (modules precompiled)")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    args = parser.parse_args(argv)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    if args.source:
        env["PYTHONPATH"] = str(REPO)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "libsmo")],
                       env=env, check=True)
    data = str(decompress(args.data_dir, "heart_scale"))
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(["svm-train", "-q", data, "m"], cwd=work, check=True)
        cases = [
            ("interpreter (python -c pass)", [sys.executable, "-c", "pass"], None),
            ("usage error (no arguments)", libsmo_tool("train", args, env), ["svm-train"]),
            ("train -q heart_scale", libsmo_tool("train", args, env) + ["-q", data, "m2"],
             ["svm-train", "-q", data, "m1"]),
            ("predict -q heart_scale", libsmo_tool("predict", args, env)
             + ["-q", data, "m", "o2"], ["svm-predict", "-q", data, "m", "o1"]),
            ("scale heart_scale", libsmo_tool("scale", args, env) + [data],
             ["svm-scale", data]),
        ]
        rows = []
        for label, ours, theirs in cases:
            mine, peer = [], []
            for repeat in range(args.repeats):
                pair = [(mine, ours), (peer, theirs)] if repeat % 2 == 0 else \
                    [(peer, theirs), (mine, ours)]
                for sink, command in pair:
                    if command is not None:
                        sink.append(timed(command, work, env))
            rows.append((label, statistics.median(mine),
                         statistics.median(peer) if peer else None))
    print("| command | libsmo s | LIBSVM s | ratio |")
    print("|---|---:|---:|---:|")
    for label, mine, peer in rows:
        ratio = f"{mine / peer:.1f}" if peer else "-"
        print(f"| {label} | {mine:.3f} | {'-' if peer is None else f'{peer:.3f}'} | "
              f"{ratio} |")
    print(f"\nmedians of {args.repeats} runs; libsmo: "
          f"{'this checkout' if args.source else 'the installed commands'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
