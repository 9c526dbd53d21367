"""Start-up of the commands as a user sees it: libsmo-train / -predict / -scale against
svm-train / svm-predict / svm-scale, whole processes timed from start to exit, on a
usage error (no arguments: nothing to read) and on heart_scale (270 rows: the data is
read, a model trained, applied, scaled). The bare interpreter is timed too: what Python
costs before libsmo runs a line.

    python benchmarks/bench_startup.py                    # the installed commands
                                                          # (beside this interpreter)
    python benchmarks/bench_startup.py --source           # this checkout, precompiled
    python benchmarks/bench_startup.py --repeats 21

Medians of --repeats runs, the two tools alternating. A ratio stands on equal work only
when both tools wrote the same answer: the same model header (svm_type, kernel, rho,
nSV, ...), the same predictions, the same scaled file; otherwise its row is FLAGGED and
the script exits with status 1.
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

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import data, options  # noqa: E402

REPO = data.REPO


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
    options.data_dir_option(parser)
    args = parser.parse_args(argv)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    if args.source:
        env["PYTHONPATH"] = str(REPO / "src")
        subprocess.run([sys.executable, "-m", "compileall", "-q",
                        str(REPO / "src" / "libsmo")], env=env, check=True)
    heart = str(data.decompress("heart_scale", args.data_dir))
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(["svm-train", "-q", heart, "m"], cwd=work, check=True)
        cases = [
            ("interpreter (python -c pass)", [sys.executable, "-c", "pass"], None),
            ("usage error (no arguments)", libsmo_tool("train", args, env), ["svm-train"]),
            ("train -q heart_scale", libsmo_tool("train", args, env) + ["-q", heart, "m2"],
             ["svm-train", "-q", heart, "m1"]),
            ("predict -q heart_scale", libsmo_tool("predict", args, env)
             + ["-q", heart, "m", "o2"], ["svm-predict", "-q", heart, "m", "o1"]),
            ("scale heart_scale", libsmo_tool("scale", args, env) + [heart],
             ["svm-scale", heart]),
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
        same = same_answers(work, cases, env)
    print("| command | libsmo s | LIBSVM s | ratio | same answer |")
    print("|---|---:|---:|---:|---|")
    for label, mine, peer in rows:
        ratio = f"{mine / peer:.1f}" if peer else "-"
        answer = same.get(label)
        flag = "" if answer is not False else " (FLAGGED)"
        print(f"| {label} | {mine:.3f} | {'-' if peer is None else f'{peer:.3f}'} | "
              f"{ratio}{flag} | {'-' if answer is None else 'yes' if answer else 'NO'} |")
    print(f"\nmedians of {args.repeats} runs; libsmo: "
          f"{'this checkout' if args.source else 'the installed commands'}")
    return 0 if all(same.values()) else 1


def model_header(path):
    """A model file's lines up to "SV" (its parameters, rho, labels and nSV)."""
    lines = []
    for line in Path(path).read_text().splitlines():
        lines.append(line)
        if line.strip() == "SV":
            break
    return lines


def same_answers(work, cases, env):
    """Whether each command pair wrote the same answer (the last timed runs' files;
    the scaled files written once more, to compare): label -> bool."""
    work = Path(work)
    same = {"train -q heart_scale": model_header(work / "m1") == model_header(work / "m2"),
            "predict -q heart_scale": (work / "o1").read_bytes() == (work / "o2").read_bytes()}
    label, ours, theirs = cases[-1]
    outputs = [subprocess.run(command, cwd=work, env=env, capture_output=True,
                              timeout=600).stdout for command in (ours, theirs)]
    same[label] = outputs[0] == outputs[1]
    return same


if __name__ == "__main__":
    sys.exit(main())
