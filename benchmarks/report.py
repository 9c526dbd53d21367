"""Summaries and tables of run.py: medians over repeats, ratios libsmo / peer (the
median of per-repeat ratios: the libraries of one repeat run back to back, so their
ratio cancels some of the machine's drift), ratios against the fastest peer at the same
thread count, and the work behind them: every run of every library held against one
reference run of its case (`benchmarks.agreement`). A ratio one of whose runs did other
work is flagged, in its cell and in the list of flags under the tables, and run.py
exits with status 1.
"""
import math
import statistics

from benchmarks import agreement
from benchmarks.cases import Case
from benchmarks.peers import LABELS, LIBRARIES, THREADLESS

PEERS = tuple(lib for lib in LIBRARIES if lib != "libsmo")
MEDIAN_KEYS = ("load_s", "train_s", "train_cpu_s", "refit_s", "predict_s", "memory_mb",
               "peak_rss_mb", "rss_after_load_mb", "train_peak_rss_mb",
               "file_pages_added_mb", "anon_added_mb", "predict_madds", "train_madds")
RATIO_KEYS = ("train_s", "train_cpu_s", "refit_s", "predict_s", "load_s", "memory_mb",
              "peak_rss_mb", "train_peak_rss_mb")
ANSWER_KEYS = ("objective", "n_sv", "n_iter", "accuracy", "mse", "train_rows",
               "test_rows", "n_features")


def finite(value):
    return (value is not None and isinstance(value, (int, float))
            and not isinstance(value, bool) and math.isfinite(value))


def median_of(runs, key):
    """Median of runs[i][key] over the runs that have it (None if none)."""
    values = [run[key] for run in runs if finite(run.get(key))]
    return statistics.median(values) if values else None


def median_ratio(ours, theirs, key):
    """Median over repeats of ours[r][key] / theirs[r][key] (None without a pair)."""
    ratios = [a[key] / b[key] for a, b in zip(ours, theirs)
              if finite(a.get(key)) and finite(b.get(key)) and b[key] > 0]
    return statistics.median(ratios) if ratios else None


# ---------------------------------------------------------------- the work behind

def reference_run(runs_by_threads):
    """The run every other run of a case is held against: libsmo's first successful
    run at the fewest threads (else the first library's), as (library, threads, run)."""
    for threads in sorted(runs_by_threads, key=lambda t: (t is None, t)):
        runs = runs_by_threads[threads]
        for lib in ["libsmo"] + [lib for lib in runs if lib != "libsmo"]:
            for run in runs.get(lib, []):
                if "error" not in run:
                    return lib, threads, run
    return None


def check_runs(case, runs, reference):
    """Every run of one thread count held against the reference.

    Returns
    -------
    dict
        library -> list of `agreement.RunCheck` as dicts (a failed run: its error).
    """
    regression = case.svm_type == "epsilon_svr"
    checks = {}
    for lib, lib_runs in runs.items():
        checks[lib] = []
        for position, run in enumerate(lib_runs):
            repeat = run.get("repeat", position)
            if "error" in run:
                checks[lib].append({"library": lib, "repeat": repeat, "agrees": False,
                                    "problems": ["the run failed"]})
                continue
            check = agreement.check_run(run, reference, regression, repeat)
            checks[lib].append(dict(vars(check), agrees=check.agrees,
                                    problems=list(check.problems)))
    return checks


def summarize_case(case, runs_by_threads, peaks=None):
    """The summaries of one case, one per thread count, every run checked against the
    case's one reference run.

    Parameters
    ----------
    case : benchmarks.cases.Case
    runs_by_threads : dict
        threads -> library -> list of child results (one per repeat).
    peaks : dict, optional
        str(threads) -> numpy's dense matrix-product rate (multiply-adds/s).

    Returns
    -------
    list of dict
    """
    peaks = peaks or {}
    found = reference_run(runs_by_threads)
    out = []
    for threads in sorted(runs_by_threads, key=lambda t: (t is None, t)):
        out.append(summarize(case, runs_by_threads[threads], threads,
                             peaks.get(str(threads)), found))
    return out


def summarize(case, runs, threads=None, blas_peak=None, reference=None):
    """Medians, ratios and the work behind them at one thread count.

    Parameters
    ----------
    case : benchmarks.cases.Case
    runs : dict
        library -> list of the child results, one per repeat.
    threads : int or None
    blas_peak : float or None
        numpy's dense matrix-product rate at this thread count (multiply-adds/s).
    reference : (library, threads, run) or None
        The case's reference run (`reference_run`); by default this count's own.

    Returns
    -------
    dict
    """
    reference = reference or reference_run({threads: runs})
    ok = {lib: [r for r in rs if "error" not in r] for lib, rs in runs.items()}
    summary = {"case": case.name, "params": case.to_dict(), "threads": threads,
               "runs": runs, "median": {}, "ratios": {}, "blas_peak": blas_peak}
    for lib, rs in ok.items():
        if not rs:
            continue
        summary["median"][lib] = {key: median_of(rs, key) for key in MEDIAN_KEYS}
        summary["median"][lib].update({key: median_of(rs, key) for key in ANSWER_KEYS})
    checks = check_runs(case, runs, reference[2]) if reference else {}
    agrees = {lib: bool(lib_checks) and all(c["agrees"] for c in lib_checks)
              for lib, lib_checks in checks.items()}
    summary["agreement"] = {
        "reference": ({"library": reference[0], "threads": reference[1],
                       **{key: reference[2].get(key) for key in ANSWER_KEYS}}
                      if reference else None),
        "runs": checks, "library_agrees": agrees}
    flags = []
    for other in PEERS:
        if "libsmo" not in runs or other not in runs:
            continue
        ratios = {key: median_ratio(runs["libsmo"], runs[other], key) for key in RATIO_KEYS}
        if case.format in ("reviews", "fashion"):
            # the same reading code for every library: not a comparison of readers
            ratios["load_s"] = None
        summary["ratios"][f"vs_{other}"] = ratios
        if not (agrees.get("libsmo") and agrees.get(other)):
            flags.append(f"vs_{other}")
    summary["ratios"]["vs_fastest"] = fastest_peer_ratios(summary)
    for key, entry in summary["ratios"]["vs_fastest"].items():
        if not (agrees.get("libsmo") and agrees.get(entry["peer"])):
            flags.append(f"vs_fastest:{key}")
    summary["agreement"]["flagged_ratios"] = flags
    lib = summary["median"].get("libsmo", {})
    if blas_peak and lib.get("predict_madds") and lib.get("predict_s"):
        summary["predict_fraction_of_peak"] = (lib["predict_madds"] / lib["predict_s"]
                                               / blas_peak)
    if blas_peak and lib.get("train_madds") and lib.get("train_s"):
        summary["train_fraction_of_peak"] = lib["train_madds"] / lib["train_s"] / blas_peak
    return summary


def fastest_peer_ratios(summary):
    """For training time, prediction time and peak memory: the peer with the smallest
    median and libsmo's ratio to it (median of per-repeat ratios)."""
    out = {}
    for key in ("train_s", "predict_s", "train_peak_rss_mb"):
        medians = {peer: summary["median"][peer].get(key) for peer in PEERS
                   if peer in summary["median"] and finite(summary["median"][peer].get(key))}
        if not medians or "libsmo" not in summary["runs"]:
            continue
        peer = min(medians, key=medians.get)
        out[key] = {"peer": peer, "ratio": median_ratio(summary["runs"]["libsmo"],
                                                        summary["runs"][peer], key)}
    return out


def flags(summaries):
    """Every flagged ratio and every disagreeing run, in words (empty: every ratio
    stands on equal work).

    Returns
    -------
    list of str
    """
    lines = []
    for s in summaries:
        where = f"{s['case']} at {s.get('threads')} thread(s)"
        for lib, lib_checks in s["agreement"]["runs"].items():
            if lib in THREADLESS and s.get("threads") != _first_threads(summaries, s):
                continue   # its runs are those of the first count, listed there
            for check in lib_checks:
                if not check["agrees"]:
                    lines.append(f"{where}: {LABELS[lib]} run {check['repeat'] + 1}: "
                                 f"{'; '.join(check['problems'])}")
        for ratio in s["agreement"]["flagged_ratios"]:
            lines.append(f"{where}: the ratio {ratio} is flagged (its runs did other work)")
    return lines


def _first_threads(summaries, s):
    counts = [t["threads"] for t in summaries if t["case"] == s["case"]
              and t.get("threads") is not None]
    return min(counts) if counts else s.get("threads")


# ------------------------------------------------------------------------ tables

def fmt(value, spec=".2f", missing="-"):
    return missing if value is None else format(value, spec)


def seconds(value):
    """A time for the table: more decimals for the millisecond fits (housing)."""
    if not finite(value):
        return "-"
    return fmt(value, ".2f" if value >= 1 else ".3f" if value >= 0.01 else ".4f")


def _case_cell(s):
    case = Case.from_dict(s["params"], s["case"])
    med = s["median"]
    any_lib = next((med[lib] for lib in LIBRARIES if lib in med), {})
    rows = f"{any_lib['train_rows']:,.0f}" if any_lib.get("train_rows") else "?"
    return f"{s['case']} ({case.describe()}; {rows} rows)"


def _ratio(s, name, value):
    """A ratio's cell: the value, marked when its runs did other work."""
    text = fmt(value)
    if value is not None and name in s["agreement"]["flagged_ratios"]:
        text += " (FLAGGED)"
    return text


def _values(values, spec):
    """Every run's value: one when all are equal, else each in run order."""
    shown = [fmt(v, spec) if finite(v) else "-" for v in values]
    return shown[0] if len(set(shown)) == 1 else ", ".join(shown)


def work_table(summaries):
    """Per case, thread count and library: every run's objective against the
    reference, its support vectors and accuracy (MSE), and how many runs agree."""
    lines = [
        "| case | threads | library | objective (median) | largest rel. diff to the "
        "reference | nSV of each run | accuracy % (MSE) of each run | runs agreeing |",
        "|---|---:|---|---:|---:|---|---|---:|"]
    for s in summaries:
        regression = s["params"]["svm_type"] == "epsilon_svr"
        reference = s["agreement"]["reference"]
        for lib in LIBRARIES:
            runs = s["runs"].get(lib)
            if not runs:
                continue
            checks = s["agreement"]["runs"][lib]
            diffs = [c.get("objective_rel_diff") for c in checks]
            worst = max((d for d in diffs if finite(d)), default=None)
            metric = [r.get("mse" if regression else "accuracy") for r in runs]
            is_reference = (reference and reference["library"] == lib
                            and reference["threads"] == s.get("threads"))
            lines.append(
                f"| {_case_cell(s)} | {s.get('threads') or '-'} | {LABELS[lib]}"
                f"{' (reference)' if is_reference else ''} | "
                f"{fmt(s['median'].get(lib, {}).get('objective'), '.6f')} | "
                f"{fmt(worst, '.1e')} | "
                f"{_values([r.get('n_sv') for r in runs], '.0f')} | "
                f"{_values(metric, '.4f' if regression else '.2f')} | "
                f"{sum(c['agrees'] for c in checks)}/{len(checks)} |")
    return lines


def _metric(s):
    med = s["median"]
    if s["params"]["svm_type"] == "epsilon_svr":
        return (f"MSE {fmt(med.get('libsmo', {}).get('mse'), '.4f')} / "
                f"{fmt(med.get('libsvm', {}).get('mse'), '.4f')}")
    return (f"{fmt(med.get('libsmo', {}).get('accuracy'))} / "
            f"{fmt(med.get('libsvm', {}).get('accuracy'))} %")


def _agrees(s, lib):
    value = s["agreement"]["library_agrees"].get(lib)
    return "-" if value is None else ("yes" if value else "NO")


def peer_table(summaries):
    """The table against each peer: times per library, ratios vs LIBSVM / vs sklearn,
    memory, and whether each library's runs did the reference's work."""
    lines = [
        "| case | threads | libsmo train s | LIBSVM train s | sklearn train s | "
        "sklearnex train s | train ratio vs LIBSVM | second fit ratio vs LIBSVM | "
        "predict ratio vs LIBSVM / sklearn | load ratio vs sklearn | added memory ratio | "
        "peak memory ratio | same work: libsmo / LIBSVM / sklearn / sklearnex | "
        "accuracy libsmo / LIBSVM |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for s in summaries:
        med, rat = s["median"], s["ratios"]
        train = {lib: seconds(med.get(lib, {}).get("train_s")) for lib in LIBRARIES}
        vs_libsvm, vs_sklearn = rat.get("vs_libsvm", {}), rat.get("vs_sklearn", {})
        lines.append(
            f"| {_case_cell(s)} | "
            f"{s.get('threads') or '-'} | {train['libsmo']} | {train['libsvm']} | "
            f"{train['sklearn']} | {train['sklearnex']} | "
            f"{_ratio(s, 'vs_libsvm', vs_libsvm.get('train_s'))} | "
            f"{_ratio(s, 'vs_libsvm', vs_libsvm.get('refit_s'))} | "
            f"{_ratio(s, 'vs_libsvm', vs_libsvm.get('predict_s'))} / "
            f"{_ratio(s, 'vs_sklearn', vs_sklearn.get('predict_s'))} | "
            f"{_ratio(s, 'vs_sklearn', vs_sklearn.get('load_s'))} | "
            f"{_ratio(s, 'vs_libsvm', vs_libsvm.get('memory_mb'))} / "
            f"{_ratio(s, 'vs_sklearn', vs_sklearn.get('memory_mb'))} | "
            f"{_ratio(s, 'vs_libsvm', vs_libsvm.get('train_peak_rss_mb'))} / "
            f"{_ratio(s, 'vs_sklearn', vs_sklearn.get('train_peak_rss_mb'))} | "
            f"{' / '.join(_agrees(s, lib) for lib in LIBRARIES)} | {_metric(s)} |")
    return lines


def fastest_table(summaries):
    """The table against the fastest peer at each thread count: training, prediction,
    peak memory, and for dense cases the fraction of numpy's BLAS peak reached."""
    lines = [
        "| case | threads | libsmo train s | fastest peer train | train ratio | "
        "libsmo predict s | fastest peer predict | predict ratio | peak memory ratio "
        "(vs lowest) | predict / train kernel rate, fraction of BLAS peak |",
        "|---|---:|---:|---|---:|---:|---|---:|---:|---|"]
    for s in summaries:
        med, fast = s["median"], s["ratios"].get("vs_fastest", {})

        def peer_cell(key):
            entry = fast.get(key)
            if not entry:
                return "-", "-"
            value = med[entry["peer"]].get(key)
            return (f"{LABELS[entry['peer']]} {seconds(value)}",
                    _ratio(s, f"vs_fastest:{key}", entry["ratio"]))

        train_peer, train_ratio = peer_cell("train_s")
        predict_peer, predict_ratio = peer_cell("predict_s")
        memory = fast.get("train_peak_rss_mb")
        rate = " / ".join(fmt(s.get(k)) for k in ("predict_fraction_of_peak",
                                                  "train_fraction_of_peak"))
        lib = med.get("libsmo", {})
        memory_cell = (_ratio(s, "vs_fastest:train_peak_rss_mb", memory["ratio"])
                       + " vs " + LABELS[memory["peer"]]) if memory else "-"
        lines.append(
            f"| {_case_cell(s)} | "
            f"{s.get('threads') or '-'} | {seconds(lib.get('train_s'))} | {train_peer} | "
            f"{train_ratio} | {seconds(lib.get('predict_s'))} | {predict_peer} | "
            f"{predict_ratio} | {memory_cell} | "
            f"{rate if s.get('predict_fraction_of_peak') else '-'} |")
    return lines


def thread_speedups(summaries):
    """For each case and each library with threads: its speedup at every thread count
    over the smallest, for training and prediction, as the median over repeats of
    time at the smallest count / time at this count (one repeat's runs at every count
    run back to back: the runner's order).

    Returns
    -------
    list of dict
        case, library, threads, base_threads, train_speedup, predict_speedup,
        base_train_s, same_work (whether every run at both counts agrees).
    """
    by_case = {}
    for s in summaries:
        if s.get("threads") is not None:
            by_case.setdefault(s["case"], []).append(s)
    out = []
    for case, group in by_case.items():
        group = sorted(group, key=lambda s: s["threads"])
        base = group[0]
        for s in group[1:]:
            for lib in LIBRARIES:
                if lib in THREADLESS or lib not in s["runs"] or lib not in base["runs"]:
                    continue
                ours, theirs = base["runs"][lib], s["runs"][lib]
                same = (base["agreement"]["library_agrees"].get(lib, False)
                        and s["agreement"]["library_agrees"].get(lib, False))
                out.append({
                    "case": case, "library": lib, "threads": s["threads"],
                    "base_threads": base["threads"],
                    "train_speedup": median_ratio(ours, theirs, "train_s"),
                    "predict_speedup": median_ratio(ours, theirs, "predict_s"),
                    "base_train_s": median_of(ours, "train_s"), "same_work": same})
    return out


def speedup_table(summaries):
    """The thread-scaling table (empty without a second thread count)."""
    rows = thread_speedups(summaries)
    if not rows:
        return []
    lines = ["| case | library | threads | train s at the fewest threads | train speedup "
             "| predict speedup | same work |", "|---|---|---|---:|---:|---:|---|"]
    for row in rows:
        lines.append(
            f"| {row['case']} | {LABELS[row['library']]} | "
            f"{row['threads']} vs {row['base_threads']} | {seconds(row['base_train_s'])} | "
            f"{fmt(row['train_speedup'])}x | {fmt(row['predict_speedup'])}x | "
            f"{'yes' if row['same_work'] else 'NO (FLAGGED)'} |")
    return ["", "### More threads against the fewest (medians of per-repeat ratios)",
            ""] + lines


def markdown(summaries, info):
    """The tables (markdown), headed with the machine and date, followed by the flags."""
    versions = ", ".join(f"{k} {info.get(k)}" for k in
                         ("libsmo", "libsvm-official", "scikit-learn",
                          "scikit-learn-intelex") if info.get(k))
    peaks = info.get("blas_peak") or {}
    peak_text = ", ".join(f"{t} thread(s) {p / 1e9:.1f} G multiply-adds/s"
                          for t, p in sorted(peaks.items(), key=lambda kv: int(kv[0])))
    threads = info["threads"] if isinstance(info["threads"], list) else [info["threads"]]
    flagged = flags(summaries) + [f"a speedup of {LABELS[r['library']]} on {r['case']} "
                                  f"({r['threads']} vs {r['base_threads']} threads) is "
                                  "flagged (its runs did other work)"
                                  for r in thread_speedups(summaries) if not r["same_work"]]
    lines = [
        f"## libsmo vs LIBSVM vs scikit-learn vs scikit-learn-intelex ({info['date']})",
        "",
        f"{info['cpu_model']}, {info['cpu_count']} cores, {info['platform']}; Python "
        f"{info['python']}, numpy {info['numpy']}, {versions}. Threads "
        f"{', '.join(map(str, threads))}; median of {info['repeats']} run(s)"
        + (f", first {info['rows_limit']} training/test rows only"
           if info.get("rows_limit") else "") + ". Ratios are libsmo / other (below 1: "
        "libsmo faster or smaller), medians of per-repeat ratios. scikit-learn has no "
        "threads: its one-thread runs stand at every thread count. Added memory is the "
        "peak RSS of training and prediction above the RSS after loading the data, peak "
        "memory that peak itself. Second fit: the same fit again in the same process, "
        "for fits under 2 s." + (f" numpy's BLAS peak (dgemm 2048x1024x2048): "
                                 f"{peak_text}." if peak_text else ""),
        "",
        "Every run's dual objective is computed from its dual coefficients, the same "
        "way for every library, and every run is held against the case's reference "
        f"run: objectives within {agreement.OBJECTIVE_RTOL:g} (relative), support "
        f"vectors within {agreement.NSV_RTOL:.0%}, accuracy within "
        f"{agreement.ACCURACY_POINTS:g} points (MSE within {agreement.MSE_RTOL:g}). A "
        "ratio one of whose runs did other work is marked FLAGGED.",
        "",
        "### Against the fastest peer at the same thread count",
        "",
    ] + fastest_table(summaries) + [
        "",
        "### Against each peer",
        "",
    ] + peer_table(summaries) + speedup_table(summaries) + [
        "",
        "### The work behind the ratios: every run against the reference",
        "",
    ] + work_table(summaries) + [
        "",
        "### Flags",
        "",
    ] + ([f"- {line}" for line in flagged] if flagged else
         ["None: every ratio compares runs that did the same work."])
    return "\n".join(lines) + "\n"


def summaries_from_saved(saved):
    """The summaries of an earlier run recomputed from its raw runs (run.py's
    --table-from): the JSON's medians, ratios and agreement are not trusted.

    Parameters
    ----------
    saved : dict
        A results file ("machine", "cases").

    Returns
    -------
    list of dict
    """
    peaks = saved["machine"].get("blas_peak") or {}
    grouped = {}
    for entry in saved["cases"]:
        case = Case.from_dict(entry["params"], entry["case"])
        grouped.setdefault(case.name, (case, {}))[1][entry.get("threads")] = entry["runs"]
    out = []
    for case, runs_by_threads in grouped.values():
        out += summarize_case(case, runs_by_threads, peaks)
    return out
