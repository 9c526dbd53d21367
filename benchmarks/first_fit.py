"""Where a fresh process's first fit goes: each library's first fit, the same fit again,
and the fit once more after a sweep over a large array has pushed its code and data out
of the CPU caches, each with the page faults (`getrusage` minflt) it took.

    python benchmarks/first_fit.py            # housing: libsmo, LIBSVM; 1 and 2 threads
    python benchmarks/first_fit.py --cases housing --libraries libsmo,libsvm --repeats 9

run.py times a library's first fit in a fresh process, which is what a script that
trains once sees. On a small case that fit costs more than the next one in the same
process, for every library; this script splits the difference into what the CPU caches
explain (the evicted column: everything already run once, caches cold) and what only
the first fit pays (memory the process touches for the first time, which the kernel
must fault in page by page, and code run for the first time). Each library is
prepared, and its clock started, exactly as in run.py (its `benchmarks.peers` module);
the libraries alternate from one repeat to the next, one fresh process each.

Output: one row per library and thread count, medians of --repeats processes, in
milliseconds, and the first library's first fit over each library's (a ratio below 1:
the first library is faster). Behind the ratios, the work: every fit's dual objective
from its coefficients (`benchmarks.objective`) and steps; the three fits of a process
must agree, and every library's objective must agree with the first library's
(`benchmarks.agreement`), else the row is FLAGGED and the script exits with status 1.
"""
import argparse
import gc
import json
import resource
import statistics
import sys
import time
from pathlib import Path

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import agreement, cases, objective, options, runner  # noqa: E402
from benchmarks.measure import blas_threads  # noqa: E402
from benchmarks.peers import LIBRARIES, peer  # noqa: E402

# larger than the last-level cache of the machines this runs on (an EPYC CCX has 16-32
# MB), so that a pass over it evicts what the fits left in the caches
SWEEP_BYTES = 64 * 2**20


def minor_faults():
    """Minor page faults of this process so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def timed_fit(fit):
    """(seconds, minor page faults, the Fit) of one call of fit()."""
    faults, start = minor_faults(), time.perf_counter()
    answer = fit()
    return time.perf_counter() - start, minor_faults() - faults, answer
def prefault_heap(megabytes):
    """Touch `megabytes` of malloc's heap in row-sized blocks and free them, with
    glibc's trimming held off, so that the fit that follows finds that memory already
    faulted in: its time without the page faults of its kernel cache (a diagnostic;
    glibc only)."""
    import ctypes
    libc = ctypes.CDLL("libc.so.6")
    M_TRIM_THRESHOLD = -1
    libc.mallopt(M_TRIM_THRESHOLD, 1 << 30)
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    block = 1536
    blocks = [libc.malloc(block) for _ in range(int(megabytes * 2**20) // block)]
    if not all(blocks):
        raise MemoryError("malloc failed while prefaulting the heap")
    for address in blocks:
        ctypes.memset(address, 1, block)
    for address in blocks:
        libc.free(address)


def child(job):
    """One fresh process: the first fit, the second, and one after a cache sweep.

    Returns
    -------
    dict
        first_s, second_s, evicted_s, the three fits' minor page faults, and
        `work`: each fit's (dual objective from its coefficients, steps).
    """
    import numpy as np
    case = cases.Case.from_dict(job["case"], job["case_name"])
    module = peer(job["library"])
    with blas_threads(job["threads"]):
        X, y, _, _, _ = cases.load_case(case, job["paths"], module.reader())
        fit = module.prepare(case, X, y, job["threads"])
        sweep = np.ones(SWEEP_BYTES // 8)   # filled: its pages faulted in now
        if job["prefault_mb"]:
            prefault_heap(job["prefault_mb"])
        gc.collect()
        result = {"work": []}
        answers = []
        for name in ("first", "second", "evicted"):
            if name == "evicted":
                sweep += 1.0
                gc.collect()
            result[f"{name}_s"], result[f"{name}_faults"], answer = timed_fit(fit)
            answers.append(answer)
        # every clock has stopped
        result["work"] = [(objective.case_objective(answer, X, y, case), answer.n_iter)
                          for answer in answers]
    return result


def spawn(job):
    """Run `child` in a fresh interpreter (this module with --child); its result."""
    proc = runner.run_module("benchmarks.first_fit", ["--child", json.dumps(job)],
                             job["threads"])
    if proc.returncode != 0:
        raise RuntimeError(f"{job['library']} at {job['threads']} thread(s) failed: "
                           f"{proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def same_work(results, reference):
    """(text, agrees): "objective, steps" when every fit of every process did the
    same work and its objective agrees with `reference` (the first library's), else
    "differ: " and the distinct (objective, steps) pairs, or the objective FLAGGED."""
    works = {(round(objective_, 6), steps)
             for r in results for objective_, steps in r["work"]}
    objectives = [objective_ for r in results for objective_, _ in r["work"]]
    agrees = all(agreement.objectives_agree(o, reference) for o in objectives)
    if len(works) == 1:
        objective_, steps = works.pop()
        text = f"{objective_:.6f}, {steps}"
    else:
        text = "differ: " + "; ".join(f"{o:.6f}, {s}" for o, s in sorted(works))
    return (text if agrees else text + " FLAGGED (another objective than "
            f"{reference:.6f})"), agrees


def table(case_name, runs, libraries):
    """Markdown rows: medians per library and thread count, first-fit ratios and the
    work behind them; and whether every fit did the first library's work."""
    reference = runs[next(iter(runs))][0]["work"][0][0]
    all_agree = True
    lines = [f"\n### {case_name}\n",
             "| library | threads | first ms | again ms | after cache sweep ms | "
             "page faults first / again / after sweep | "
             f"{libraries[0]}'s first / this one's | objective, steps (each fit) |",
             "|---|---:|---:|---:|---:|---|---:|---|"]
    for (library, threads), results in runs.items():
        def median(key):
            return statistics.median(r[key] for r in results)
        base = runs[(libraries[0], threads)]
        # per-repeat ratios of neighbouring processes, as run.py takes them
        ratio = statistics.median(b["first_s"] / r["first_s"]
                                  for b, r in zip(base, results))
        work, agrees = same_work(results, reference)
        all_agree &= agrees
        lines.append(
            f"| {library} | {threads} | {median('first_s') * 1e3:.2f} | "
            f"{median('second_s') * 1e3:.2f} | {median('evicted_s') * 1e3:.2f} | "
            f"{median('first_faults'):.0f} / {median('second_faults'):.0f} / "
            f"{median('evicted_faults'):.0f} | {ratio:.2f} | {work} |")
    return "\n".join(lines), all_agree


def main(argv=None):
    """Run the measurement and print its table; returns 1 when a fit did other work."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=options.name_list(list(cases.CASES)),
                        default=["housing"],
                        help="comma-separated cases of run.py (small ones: the fit "
                             "runs three times a process)")
    parser.add_argument("--libraries", type=options.name_list(list(LIBRARIES)),
                        default=["libsmo", "libsvm"],
                        help="comma-separated subset of: " + ",".join(LIBRARIES))
    parser.add_argument("--threads", type=options.thread_list, default=[1, 2])
    parser.add_argument("--repeats", type=options.positive_int, default=15)
    options.data_dir_option(parser)
    parser.add_argument("--prefault-heap", type=float, default=0.0, metavar="MB",
                        help="before the first fit, touch and free MB of malloc's heap "
                             "(glibc), so that the fit's kernel cache takes no new pages")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(json.loads(args.child))))
        return 0
    all_agree = True
    for name in args.cases:
        case = cases.CASES[name]
        paths = cases.data_paths(case, args.data_dir)
        runs = {(lib, threads): []
                for threads in args.threads for lib in args.libraries}
        for repeat in range(args.repeats):
            shift = repeat % len(args.libraries)
            for threads in args.threads:
                for lib in args.libraries[shift:] + args.libraries[:shift]:
                    runs[(lib, threads)].append(spawn(
                        {"case_name": name, "case": case.to_dict(), "library": lib,
                         "threads": threads, "paths": paths,
                         "prefault_mb": args.prefault_heap}))
        heap = (f"; heap prefaulted ({args.prefault_heap:g} MB)"
                if args.prefault_heap else "")
        text, agrees = table(f"{name}: {case.describe()}; medians of {args.repeats} "
                             f"fresh processes{heap}", runs, args.libraries)
        print(text)
        all_agree &= agrees
    if not all_agree:
        print("a fit did other work than the first library's (FLAGGED above)",
              file=sys.stderr)
    return 0 if all_agree else 1


if __name__ == "__main__":
    sys.exit(main())
