"""Summaries and tables of benchmarks/run.py: medians over repeats, ratios libsmo /
peer (the median of per-repeat ratios: the libraries of one repeat run back to back, so
their ratio cancels some of the machine's drift), ratios against the fastest peer at the
same thread count, agreement of objectives and accuracies, and the markdown tables.
"""
import math
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_cases import describe  # noqa: E402

LIBRARIES = ("libsmo", "libsvm", "sklearn", "sklearnex")
PEERS = ("libsvm", "sklearn", "sklearnex")
LABELS = {"libsmo": "libsmo", "libsvm": "LIBSVM", "sklearn": "sklearn",
          "sklearnex": "sklearnex"}
# scikit-learn's SVC has no threads: its one-thread runs are its runs at every count
THREADLESS = ("sklearn",)
OBJECTIVE_RTOL = 1e-4
ACCURACY_POINTS = 0.1
MSE_RTOL = 1e-3
MEDIAN_KEYS = ("load_s", "train_s", "train_cpu_s", "refit_s", "predict_s", "memory_mb",
               "peak_rss_mb", "rss_after_load_mb", "train_peak_rss_mb",
               "file_pages_added_mb", "anon_added_mb", "predict_madds", "train_madds")
RATIO_KEYS = ("train_s", "train_cpu_s", "refit_s", "predict_s", "load_s", "memory_mb",
              "peak_rss_mb", "train_peak_rss_mb")


def finite(value):
    return value is not None and isinstance(value, (int, float)) and math.isfinite(value)


def median_of(runs, key):
    """Median of runs[i][key] over the runs that have it (None if none)."""
    values = [run[key] for run in runs if finite(run.get(key))]
    return statistics.median(values) if values else None


def median_ratio(ours, theirs, key):
    """Median over repeats of ours[r][key] / theirs[r][key] (None without a pair)."""
    ratios = [a[key] / b[key] for a, b in zip(ours, theirs)
              if finite(a.get(key)) and finite(b.get(key)) and b[key] > 0]
    return statistics.median(ratios) if ratios else None


def summarize(name, case, runs, threads=None, blas_peak=None):
    """Medians, ratios and agreement of one case at one thread count.

    Parameters
    ----------
    name : str
    case : dict
        Its CASES entry.
    runs : dict
        library -> list of the child results, one per repeat.
    threads : int or None
    blas_peak : float or None
        numpy's dense matrix-product rate at this thread count (multiply-adds/s).

    Returns
    -------
    dict
    """
    ok = {lib: [r for r in rs if "error" not in r] for lib, rs in runs.items()}
    summary = {"case": name, "params": case, "threads": threads, "runs": runs,
               "median": {}, "ratios": {}, "blas_peak": blas_peak}
    for lib, rs in ok.items():
        if not rs:
            continue
        first = rs[0]   # objective, n_sv, accuracy: the same in every run
        summary["median"][lib] = {key: median_of(rs, key) for key in MEDIAN_KEYS}
        summary["median"][lib].update(
            {key: first.get(key) for key in ("objective", "n_sv", "n_iter", "accuracy",
                                             "mse", "train_rows", "test_rows",
                                             "n_features")})
    for other in PEERS:
        if "libsmo" not in runs or other not in runs:
            continue
        summary["ratios"][f"vs_{other}"] = {
            key: median_ratio(runs["libsmo"], runs[other], key) for key in RATIO_KEYS}
        if case.get("format") in ("reviews", "fashion"):
            # the same reading code for every library: not a comparison of readers
            summary["ratios"][f"vs_{other}"]["load_s"] = None
    summary["ratios"]["vs_fastest"] = fastest_peer_ratios(summary)
    summary["agreement"] = agreement(case, summary["median"])
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


def agreement(case, med):
    """Whether libsmo's objective agrees with LIBSVM's and its accuracy (MSE) with
    every peer's."""
    agree = {}
    if "libsmo" in med and "libsvm" in med and finite(med["libsvm"].get("objective")):
        a, b = med["libsmo"]["objective"], med["libsvm"]["objective"]
        rel = abs(a - b) / max(abs(b), 1e-300)
        agree["objective_rel_diff"] = rel
        agree["objectives_agree"] = rel <= OBJECTIVE_RTOL
    for other in PEERS:
        if "libsmo" not in med or other not in med:
            continue
        if finite(med[other].get("objective")):
            a, b = med["libsmo"]["objective"], med[other]["objective"]
            agree[f"objective_rel_diff_{other}"] = abs(a - b) / max(abs(b), 1e-300)
        if case["svm_type"] == "epsilon_svr":
            a, b = med["libsmo"]["mse"], med[other]["mse"]
            agree[f"metric_agree_{other}"] = abs(a - b) <= MSE_RTOL * abs(b)
        else:
            a, b = med["libsmo"]["accuracy"], med[other]["accuracy"]
            agree[f"metric_agree_{other}"] = abs(a - b) <= ACCURACY_POINTS
    return agree


def fmt(value, spec=".2f", missing="-"):
    return missing if value is None else format(value, spec)


def seconds(value):
    """A time for the table: more decimals for the millisecond fits (housing)."""
    if not finite(value):
        return "-"
    return fmt(value, ".2f" if value >= 1 else ".3f" if value >= 0.01 else ".4f")


def _metric(s):
    med = s["median"]
    if s["params"]["svm_type"] == "epsilon_svr":
        return (f"MSE {fmt(med.get('libsmo', {}).get('mse'), '.4f')} / "
                f"{fmt(med.get('libsvm', {}).get('mse'), '.4f')}")
    return (f"{fmt(med.get('libsmo', {}).get('accuracy'))} / "
            f"{fmt(med.get('libsvm', {}).get('accuracy'))} %")


def _rows(s):
    med = s["median"]
    any_lib = next((med[lib] for lib in LIBRARIES if lib in med), {})
    return f"{any_lib['train_rows']:,}" if any_lib.get("train_rows") else "?"


def _objectives(agree):
    if "objectives_agree" not in agree:
        return "-"
    return (f"{'yes' if agree['objectives_agree'] else 'NO'} "
            f"({agree['objective_rel_diff']:.1e})")


def peer_table(summaries):
    """The table against each peer: times per library, ratios vs LIBSVM / vs sklearn,
    memory, agreement."""
    lines = [
        "| case | threads | libsmo train s | LIBSVM train s | sklearn train s | "
        "sklearnex train s | train ratio vs LIBSVM | second fit ratio vs LIBSVM | "
        "predict ratio vs LIBSVM / sklearn | load ratio vs sklearn | added memory ratio | "
        "peak memory ratio | objectives agree (rel. diff) | accuracy libsmo / LIBSVM |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for s in summaries:
        med, rat = s["median"], s["ratios"]
        train = {lib: seconds(med.get(lib, {}).get("train_s")) for lib in LIBRARIES}
        vs_libsvm, vs_sklearn = rat.get("vs_libsvm", {}), rat.get("vs_sklearn", {})
        lines.append(
            f"| {s['case']} ({describe(s['params'])}; {_rows(s)} rows) | "
            f"{s.get('threads') or '-'} | {train['libsmo']} | {train['libsvm']} | "
            f"{train['sklearn']} | {train['sklearnex']} | "
            f"{fmt(vs_libsvm.get('train_s'))} | {fmt(vs_libsvm.get('refit_s'))} | "
            f"{fmt(vs_libsvm.get('predict_s'))} / {fmt(vs_sklearn.get('predict_s'))} | "
            f"{fmt(vs_sklearn.get('load_s'))} | "
            f"{fmt(vs_libsvm.get('memory_mb'))} / {fmt(vs_sklearn.get('memory_mb'))} | "
            f"{fmt(vs_libsvm.get('train_peak_rss_mb'))} / "
            f"{fmt(vs_sklearn.get('train_peak_rss_mb'))} | "
            f"{_objectives(s['agreement'])} | {_metric(s)} |")
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
            return (f"{LABELS[entry['peer']]} {seconds(value)}", fmt(entry["ratio"]))

        train_peer, train_ratio = peer_cell("train_s")
        predict_peer, predict_ratio = peer_cell("predict_s")
        memory = fast.get("train_peak_rss_mb")
        rate = " / ".join(fmt(s.get(k)) for k in ("predict_fraction_of_peak",
                                                  "train_fraction_of_peak"))
        lib = med.get("libsmo", {})
        lines.append(
            f"| {s['case']} ({describe(s['params'])}; {_rows(s)} rows) | "
            f"{s.get('threads') or '-'} | {seconds(lib.get('train_s'))} | {train_peer} | "
            f"{train_ratio} | {seconds(lib.get('predict_s'))} | {predict_peer} | "
            f"{predict_ratio} | "
            f"{fmt(memory['ratio']) + ' vs ' + LABELS[memory['peer']] if memory else '-'} | "
            f"{rate if s.get('predict_fraction_of_peak') else '-'} |")
    return lines


def thread_speedups(summaries):
    """For each case and each library with threads: its speedup at every thread count
    over the smallest, for training and prediction, as the median over repeats of
    time at the smallest count / time at this count (one repeat's runs at every count
    run back to back: run.py's order).

    Returns
    -------
    list of dict
        case, library, threads, train_speedup, predict_speedup, base_train_s.
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
                out.append({
                    "case": case, "library": lib, "threads": s["threads"],
                    "base_threads": base["threads"],
                    "train_speedup": median_ratio(ours, theirs, "train_s"),
                    "predict_speedup": median_ratio(ours, theirs, "predict_s"),
                    "base_train_s": median_of(ours, "train_s")})
    return out


def speedup_table(summaries):
    """The thread-scaling table (empty without a second thread count)."""
    rows = thread_speedups(summaries)
    if not rows:
        return []
    lines = ["| case | library | threads | train s at the fewest threads | train speedup "
             "| predict speedup |", "|---|---|---|---:|---:|---:|"]
    for row in rows:
        lines.append(
            f"| {row['case']} | {LABELS[row['library']]} | "
            f"{row['threads']} vs {row['base_threads']} | {seconds(row['base_train_s'])} | "
            f"{fmt(row['train_speedup'])}x | {fmt(row['predict_speedup'])}x |")
    return ["", "### More threads against the fewest (medians of per-repeat ratios)",
            ""] + lines


def markdown(summaries, info):
    """Both tables (markdown), headed with the machine and date."""
    versions = ", ".join(f"{k} {info.get(k)}" for k in
                         ("libsmo", "libsvm-official", "scikit-learn",
                          "scikit-learn-intelex") if info.get(k))
    peaks = info.get("blas_peak") or {}
    peak_text = ", ".join(f"{t} thread(s) {p / 1e9:.1f} G multiply-adds/s"
                          for t, p in sorted(peaks.items(), key=lambda kv: int(kv[0])))
    threads = info["threads"] if isinstance(info["threads"], list) else [info["threads"]]
    lines = [
        f"## libsmo vs LIBSVM vs scikit-learn vs scikit-learn-intelex ({info['date']})",
        "",
        f"{info['cpu_model']}, {info['cpu_count']} cores, {info['platform']}; Python "
        f"{info['python']}, numpy {info['numpy']}, {versions}. Threads "
        f"{', '.join(map(str, threads))}; median of {info['repeats']} run(s)"
        + (f", first {info['rows_limit']} training/test rows only"
           if info["rows_limit"] else "") + ". Ratios are libsmo / other (below 1: "
        "libsmo faster or smaller), medians of per-repeat ratios. scikit-learn has no "
        "threads: its one-thread runs stand at every thread count. Added memory is the "
        "peak RSS of training and prediction above the RSS after loading the data, peak "
        "memory that peak itself. Second fit: the same fit again in the same process, "
        "for fits under 2 s." + (f" numpy's BLAS peak (dgemm 2048x1024x2048): "
                                 f"{peak_text}." if peak_text else ""),
        "",
        "### Against the fastest peer at the same thread count",
        "",
    ] + fastest_table(summaries) + [
        "",
        "### Against each peer",
        "",
    ] + peer_table(summaries) + speedup_table(summaries)
    return "\n".join(lines) + "\n"
