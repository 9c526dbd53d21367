"""The benchmark results committed under benchmarks/results-committed/, as tables and
figures: the documentation's Performance page and the README's headline table are made
from these files and from nothing else.

    python benchmarks/committed_results.py readme            # the README's headline table
    python benchmarks/committed_results.py figures DIR       # every figure, as PNG files

Each JSON file holds one benchmark's current results: what was measured, the date, the
machine, the software, the commands that produced it, notes, and its rows. A new run
replaces a file (or some of its rows) whole; the history of the figures lives in git and
in CHANGELOG.md, not in the files.
"""
import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results-committed"

PEER_NAMES = {"libsvm": "LIBSVM", "sklearn": "scikit-learn",
              "sklearnex": "scikit-learn-intelex",
              "libsvm (an earlier run)": "LIBSVM, an earlier run"}
# the fastest-peer table's cases, in the order the tables and figures show them
SHORT_LABELS = {"a9a": "a9a, RBF", "w8a": "w8a, RBF", "fashion-12k": "Fashion-MNIST 12,000",
                "fashion": "Fashion-MNIST 60,000", "letter": "letter, 26 classes",
                "pendigits": "pendigits, 10 classes", "reviews": "reviews, sparse TF-IDF",
                "sector": "sector, linear, 105 classes", "a9a-linear": "a9a, linear",
                "ijcnn1": "ijcnn1, RBF", "housing": "housing, SVR"}
# the README's headline rows: one thread, one row per kind of problem
HEADLINE_CASES = ("a9a", "w8a", "fashion", "letter", "reviews", "sector", "ijcnn1",
                  "housing")


def load(name):
    """One committed result file (``name`` without ``.json``) as a dict."""
    return json.loads((RESULTS / f"{name}.json").read_text())


def names():
    """The committed result files, by name."""
    return sorted(path.stem for path in RESULTS.glob("*.json"))


def number(value, digits=3):
    """A figure as the tables print it: None as a dash, small times with their
    significant digits, thousands with separators."""
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return f"{value:,}"
    if value == 0:
        return "0"
    if abs(value) < 1e-3:
        return f"{value:.1e}"
    if abs(value) >= 100:
        return f"{value:,.1f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.{digits}g}"


def ratio(value):
    """A ratio libsmo / peer with two decimals; one that rounds to zero says so."""
    if value is None:
        return "-"
    return "< 0.01" if value < 0.005 else f"{value:.2f}"


def peer(name):
    return PEER_NAMES.get(name, name)


# ---------------------------------------------------------------------------
# tables: (header, rows) with every cell a string


def fastest_peer_table(train_peer=None):
    """The fastest-peer table, optionally only the rows whose fastest training peer is
    ``train_peer`` ("libsvm", "sklearn" or "sklearnex")."""
    data = load("fastest_peer")
    header = ["case", "threads", "libsmo train s", "peer train s", "train ratio",
              "libsmo predict s", "peer predict s", "predict ratio",
              "peak memory ratio", "run"]
    rows = []
    for row in data["rows"]:
        if train_peer is not None and row["train_peer"] != train_peer:
            continue
        rows.append([row["label"], str(row["threads"]), number(row["libsmo_train_s"]),
                     f"{number(row['peer_train_s'])} ({peer(row['train_peer'])})",
                     ratio(row["train_ratio"]), number(row["libsmo_predict_s"]),
                     f"{number(row['peer_predict_s'])} ({peer(row['predict_peer'])})",
                     ratio(row["predict_ratio"]),
                     f"{ratio(row['peak_memory_ratio'])} ({peer(row['memory_peer'])})",
                     f"{row['date']}, median of {row['repeats']}"])
    return header, rows


def objectives_table():
    """What shows that the fastest-peer table's runs did the same work."""
    data = load("fastest_peer")
    seen, rows = set(), []
    for row in data["rows"]:
        if row["case"] in seen:
            continue
        seen.add(row["case"])
        same = [r for r in data["rows"] if r["case"] == row["case"]]
        objective = next(r["objective"] for r in same
                         if r["objective"] != "as at one thread")
        rows.append([row["label"], objective, row["command"]])
    return ["case", "objective", "command"], rows


def all_peers_table():
    data = load("all_peers")
    header = ["case", "libsmo train s", "LIBSVM train s", "scikit-learn train s",
              "train ratio vs LIBSVM", "second fit ratio vs LIBSVM",
              "predict ratio vs LIBSVM / scikit-learn", "load ratio vs scikit-learn",
              "added memory ratio vs LIBSVM / scikit-learn",
              "peak memory ratio vs LIBSVM / scikit-learn", "objectives (rel. diff)",
              "accuracy libsmo / LIBSVM"]
    rows = [[r["label"], number(r["libsmo_train_s"]), number(r["libsvm_train_s"]),
             number(r["sklearn_train_s"]), ratio(r["train_ratio_libsvm"]),
             ratio(r["second_fit_ratio_libsvm"]),
             f"{ratio(r['predict_ratio_libsvm'])} / {ratio(r['predict_ratio_sklearn'])}",
             ratio(r["load_ratio_sklearn"]),
             (f"{ratio(r['added_memory_ratio_libsvm'])} / "
              f"{ratio(r['added_memory_ratio_sklearn'])}"),
             (f"{ratio(r['peak_memory_ratio_libsvm'])} / "
              f"{ratio(r['peak_memory_ratio_sklearn'])}"),
             f"agree ({r['objective_rel_diff']:.1e})", r["accuracy"]]
            for r in data["rows"]]
    return header, rows


def scaling_table():
    data = load("scaling_a9a")
    header = ["rows", "libsmo s", "LIBSVM s", "ratio", "nSV libsmo", "nSV LIBSVM"]
    rows = [[number(r["rows"]), number(r["libsmo_s"]), number(r["libsvm_s"]),
             ratio(r["ratio"]), number(r["libsmo_nsv"]), number(r["libsvm_nsv"])]
            for r in data["rows"]]
    return header, rows


def grid_table():
    data = load("grid")
    header = ["data", "svm-grid s", "libsmo-grid s", "ratio", "libsmo-grid --warm-start s",
              "ratio (svm-grid s beside it)", "cells whose rate differs (cold; warm)"]
    rows = [[f"{r['data']} ({r['rows']:,} rows)", number(r["svm_grid_s"]),
             number(r["libsmo_grid_s"]), f"{r['ratio']:.3f}", number(r["warm_start_s"]),
             f"{r['warm_start_ratio']:.3f} ({number(r['svm_grid_s_beside_warm'])})",
             f"{r['differing_cells']}; {r['differing_cells_warm']}"]
            for r in data["rows"]]
    return header, rows


def startup_table():
    data = load("startup")
    header = ["command", "libsmo s", "svm-train etc. s"]
    rows = [[r["command"], number(r["libsmo_s"]), number(r["libsvm_s"])]
            for r in data["rows"]]
    return header, rows


def distributed_table():
    data = load("distributed")
    header = ["case", "run", "fit s", "CPU s", "busiest CPU s", "busiest / libsmo CPU",
              "objective rel. diff", "nSV", "accuracy %", "peak MB", "moved MB"]
    rows, previous = [], None
    for r in data["rows"]:
        run = (r["run"] if r["workers"] == 0 else
               f"dask, {r['workers']} worker{'s' if r['workers'] > 1 else ''}, "
               f"{r['partitions']} partitions")
        case = "" if r["case"] == previous else f"{r['case']} ({r['date']})"
        previous = r["case"]
        rows.append([case, run, number(r["fit_s"]), number(r["cpu_s"]),
                     number(r["busiest_cpu_s"]), ratio(r["busiest_over_libsmo_cpu"]),
                     number(r["objective_rel_diff"]), number(r["n_sv"]),
                     f"{r['accuracy_percent']:.2f}", r["peak_mb"], r["moved_mb"] or "-"])
    return header, rows


def run_ratio(runs, name, key="train_ratio"):
    """A ratio of one library's runs in a bench_linear_svm.py row; a dash where it did
    not run."""
    return ratio(runs[name][key]) if name in runs else "-"


def capped_note(ours, ref):
    """Which of libsmo's and LIBLINEAR's runs stopped at their epochs before eps (a
    LIBLINEAR run that stopped there beside a libsmo run that went on to eps is the
    hinge's work-counted dual's case)."""
    if ours["capped"] and ref["capped"]:
        return " (both capped)"
    if ref["capped"]:
        return " (LIBLINEAR capped)"
    return " (libsmo capped)" if ours["capped"] else ""


def command_ratio(runs):
    """libsmo-linear-train's ratio in a bench_linear_svm.py row (LIBLINEAR's train() on
    libsmo's solvers: LIBLINEAR's stopping rules), marked where its dual's epochs ran
    out as LIBLINEAR's do; a dash where it did not run."""
    run = runs.get("libsmo-linear-train")
    if run is None:
        return "-"
    return ratio(run["train_ratio"]) + (" (capped)" if run["capped"] else "")


def linear_svm_table():
    """LinearSVC against LIBLINEAR 2.50, liblinear-multicore and scikit-learn's
    LinearSVC: training ratios over LIBLINEAR's, the primal objectives, accuracies."""
    data = load("linear_svm")
    header = ["case", "LIBLINEAR train s", "libsmo / LIBLINEAR", "(CPU time)",
              "scikit-learn / LIBLINEAR", "libsmo n_jobs=2 / LIBLINEAR",
              "libsmo-linear-train / LIBLINEAR",
              "liblinear-multicore 2 threads / LIBLINEAR", "primal objective LIBLINEAR",
              "libsmo (rel. diff)", "test accuracy % libsmo / LIBLINEAR / scikit-learn"]
    rows = []
    for r in data["rows"]:
        runs = r["runs"]
        ours, ref, sk = runs["libsmo"], runs["LIBLINEAR"], runs.get("scikit-learn")
        capped = capped_note(ours, ref)
        rows.append([
            f"{r['data']} ({r['classes']} classes), {r['loss']}, C={r['C']:g}",
            number(ref["train_s"]), run_ratio(runs, "libsmo"),
            run_ratio(runs, "libsmo", "cpu_ratio"), run_ratio(runs, "scikit-learn"),
            run_ratio(runs, "libsmo 2 jobs"), command_ratio(runs),
            run_ratio(runs, "LIBLINEAR-mc 2t"), f"{ref['objective']:.6f}",
            f"{ours['objective']:.6f} ({ours['objective_rel_diff']:.1e}){capped}",
            f"{ours['accuracy_percent']:.2f} / {ref['accuracy_percent']:.2f} / "
            f"{sk['accuracy_percent']:.2f}" if sk else
            f"{ours['accuracy_percent']:.2f} / {ref['accuracy_percent']:.2f} / -"])
    return header, rows


def svc_linear_table():
    """SVC(kernel="linear") (LIBSVM's problem, an unregularised bias) beside LinearSVC
    and LIBLINEAR 2.50 on the two-class sets, hinge loss: training ratios over
    LIBLINEAR's, LIBSVM's stopping rule at SVC's answer, accuracies."""
    data = load("svc_linear")
    header = ["case", "LIBLINEAR train s", "SVC(kernel='linear') / LIBLINEAR",
              "LinearSVC / LIBLINEAR", "SVC's m(a) - M(a) (eps)",
              "test accuracy % SVC / LinearSVC / LIBLINEAR"]
    rows = []
    for r in data["rows"]:
        runs = r["runs"]
        svc, ours, ref = runs["SVC linear"], runs["libsmo"], runs["LIBLINEAR"]
        rows.append([
            f"{r['data']}, C={r['C']:g}", number(ref["train_s"]),
            run_ratio(runs, "SVC linear"), run_ratio(runs, "libsmo"),
            f"{svc['stopping_violation']:.2e} ({r['eps']:g})",
            f"{svc['accuracy_percent']:.2f} / {ours['accuracy_percent']:.2f} / "
            f"{ref['accuracy_percent']:.2f}"])
    return header, rows


# the most rows on which linear_solver="auto" took kernel rows before its rules for the
# coordinate-descent start and for 8-bit rows: 4 n^2 bytes within twice 200 MB
FORMER_AUTO_MAX_KERNEL_ROWS = 10_240


def linear_auto_table():
    """SVC(kernel="linear")'s primal solver against kernel rows, and what
    linear_solver="auto" picks, by problem size and C: time ratios, the mean C x'x
    auto's rule reads, and the worst m(a) - M(a) of the fits."""
    data = load("linear_auto")
    header = ["data", "rows", "C", "mean C x'x", "primal / kernel rows",
              "auto / the faster", "auto before / the faster",
              "m(a) - M(a) primal, kernel"]
    rows = []
    for r in data["rows"]:
        v, seconds = r["violation"], r["seconds"]
        faster = min(seconds["primal"], seconds["kernel"])
        # 'auto' before the start's rule: kernel rows while Q fit twice 200 MB
        before = seconds["primal" if r["rows"] > FORMER_AUTO_MAX_KERNEL_ROWS else "kernel"]
        rows.append([r["data"], f"{r['rows']:,}", f"{r['C']:g}", f"{r['C_x2']:.3g}",
                     ratio(r["primal_over_kernel"]), ratio(r["auto_over_best"]),
                     ratio(before / faster),
                     f"{v['primal']:.1e}, {v['kernel']:.1e}"])
    return header, rows


def linear_one_class_table():
    """OneClassSVM(kernel="linear")'s primal solver (from LIBLINEAR's -s 21 method)
    against kernel rows, what linear_solver="auto" picks, and scikit-learn's
    OneClassSVM, by problem size and nu: time ratios, the objectives against
    scikit-learn's and the worst m(a) - M(a) of the fits."""
    data = load("linear_one_class")
    header = ["data", "rows", "nu", "primal / kernel rows", "auto / the faster",
              "auto / scikit-learn", "objective - scikit-learn's (relative)",
              "m(a) - M(a) primal, kernel, scikit-learn"]
    rows = []
    for r in data["rows"]:
        v, f = r["violation"], r["objective"]
        rows.append([r["data"], f"{r['rows']:,}", f"{r['nu']:g}",
                     ratio(r["primal_over_kernel"]), ratio(r["auto_over_best"]),
                     ratio(r["auto_over_sklearn"]),
                     f"{(f['auto'] - f['scikit-learn']) / abs(f['scikit-learn']):.1e}",
                     f"{v['primal']:.1e}, {v['kernel']:.1e}, {v['scikit-learn']:.1e}"])
    return header, rows


def linear_handover_table():
    """LinearSVC's squared-hinge dual beside scikit-learn's at its defaults: the epochs of
    each, whether libsmo's weights are scikit-learn's bits or it handed over to Newton,
    the objectives' relative difference and the time ratio."""
    data = load("linear_handover")
    header = ["data", "C", "scikit-learn epochs", "libsmo iterations", "weights",
              "objective rel. diff", "libsmo / scikit-learn time"]
    rows = []
    for r in data["rows"]:
        weights = ("the same bits" if r["same_bits"] else
                   "handed over" if r["sklearn_epochs"] >= 1000 else "differ")
        rows.append([r["data"], f"{r['C']:g}", number(r["sklearn_epochs"]),
                     number(r["libsmo_iterations"]), weights,
                     f"{r['objective_rel_diff']:.1e}", ratio(r["time_ratio"])])
    return header, rows


def objective_check(row):
    """A convergence row's objective difference as the tables print it: with the
    Newton method's stopping figure |grad f| / |grad f(0)| where a squared loss was
    held to its rule (at most tol)."""
    text = f"{row['objective_rel_diff']:.1e}"
    if "gradient_ratio" in row:
        text += f" (Newton's figure: {row['gradient_ratio']:.1e})"
    return text


def linear_convergence_table():
    """LinearSVC (LinearSVR on the regression sets) at its defaults beside
    scikit-learn's, as given and standardised: which warned "failed to converge", each
    one's n_iter_, the time ratio and libsmo's objective's relative difference from
    scikit-learn's (below 0: lower; where a squared loss's is above by more than 1e-4,
    the Newton method's stopping figure that its answer meets)."""
    data = load("linear_convergence")
    header = ["data", "scaling", "loss", "C", "libsmo warns", "scikit-learn warns",
              "libsmo n_iter_", "scikit-learn n_iter_", "libsmo / scikit-learn time",
              "objective rel. diff"]
    rows = []
    for r in data["rows"]:
        ours, theirs = r["runs"]["libsmo"], r["runs"]["scikit-learn"]
        rows.append([r["data"], r["scaling"], r["loss"], f"{r['C']:g}",
                     "yes" if ours["warns"] else "no", "yes" if theirs["warns"] else "no",
                     number(ours["n_iter"]), number(theirs["n_iter"]),
                     ratio(ours["seconds"] / theirs["seconds"]), objective_check(r)])
    return header, rows


def rows_beside(name, run, option):
    """The rows of `name`.json (bench_linear_svm.py's) that ran `run` beside libsmo's
    run, as the script's `option` adds it; a file without any is refused."""
    shown = [r for r in load(name)["rows"] if run in r["runs"]]
    if not shown:
        raise ValueError(f"{name}.json has no rows run with {option}")
    return shown


def case_cells(row):
    """A bench_linear_svm.py row's case (data, -s, C) and LIBLINEAR's time, and the note
    its objectives take where LIBLINEAR stopped at its epochs."""
    ref = row["runs"]["LIBLINEAR"]
    return ([row["data"], str(row["solver"]), f"{row['C']:g}", f"{ref['train_s']:.3f}"],
            " (capped)" if ref["capped"] else "")


def linear_revisits_table():
    """LinearSVC at its default revisits beside revisits=0 (LIBLINEAR's and
    scikit-learn's steps), from linear_svm.json's rows that ran both: training ratios
    over LIBLINEAR's time and each one's primal objective's relative difference from
    LIBLINEAR's."""
    shown = rows_beside("linear_svm", "libsmo revisits", "--revisits")
    counts = {(r["revisits"]["libsmo"], r["revisits"]["libsmo revisits"]) for r in shown}
    if len(counts) != 1:
        raise ValueError(f"linear_svm.json's rows ran other revisits: {sorted(counts)}")
    (default, other), = counts
    header = ["data", "-s", "C", "LIBLINEAR train s",
              f"libsmo (revisits={default}) / LIBLINEAR", f"revisits={other} / LIBLINEAR",
              f"objective rel. diff (revisits={default})",
              f"objective rel. diff (revisits={other})"]
    rows = []
    for r in shown:
        (case, capped), runs = case_cells(r), r["runs"]
        ours, other_run = runs["libsmo"], runs["libsmo revisits"]
        rows.append(case + [ratio(ours["train_ratio"]), ratio(other_run["train_ratio"]),
                            f"{ours['objective_rel_diff']:.1e}{capped}",
                            f"{other_run['objective_rel_diff']:.1e}{capped}"])
    return header, rows


def linear_float32_table():
    """LinearSVC on the rows stored as float32 beside the float64 rows, from
    linear_float32.json's rows that ran both (bench_linear_svm.py --float32): training
    ratios over LIBLINEAR's time, float32's over float64's, and float32's primal
    objective's relative difference from LIBLINEAR's (on the float64 rows)."""
    header = ["data", "-s", "C", "LIBLINEAR train s", "libsmo / LIBLINEAR",
              "libsmo float32 / LIBLINEAR", "float32 / float64",
              "objective rel. diff (float32)"]
    rows = []
    for r in rows_beside("linear_float32", "libsmo float32", "--float32"):
        (case, capped), runs = case_cells(r), r["runs"]
        ours, single = runs["libsmo"], runs["libsmo float32"]
        rows.append(case + [ratio(ours["train_ratio"]), ratio(single["train_ratio"]),
                            ratio(single["train_s"] / ours["train_s"]),
                            f"{single['objective_rel_diff']:.1e}{capped}"])
    return header, rows


def linear_svr_table():
    """LinearSVR against LIBLINEAR 2.50 (-s 13, 12, 11), liblinear-multicore (-s 11)
    and scikit-learn's LinearSVR: training ratios over LIBLINEAR's (libsmo's n_jobs=2
    where it ran: -s 11's Newton method on two threads), the primal objectives, test
    mean squared errors."""
    data = load("linear_svr")
    header = ["case", "LIBLINEAR train s", "libsmo / LIBLINEAR", "(CPU time)",
              "scikit-learn / LIBLINEAR", "libsmo n_jobs=2 / LIBLINEAR",
              "libsmo-linear-train / LIBLINEAR",
              "liblinear-multicore 2 threads / LIBLINEAR",
              "primal objective LIBLINEAR", "libsmo (rel. diff)",
              "scikit-learn (rel. diff)", "test MSE libsmo / LIBLINEAR / scikit-learn"]
    rows = []
    for r in data["rows"]:
        runs = r["runs"]
        ours, ref, sk = runs["libsmo"], runs["LIBLINEAR"], runs.get("scikit-learn")

        def objective(run):
            capped = " (capped)" if run["capped"] else ""
            return f"{run['objective']:.6g} ({run['objective_rel_diff']:.1e}){capped}"
        method = "dual" if r["dual"] else "primal"
        rows.append([
            f"{r['data']}, {r['loss']} (-s {r['solver']}, {method}), C={r['C']:g}",
            number(ref["train_s"]), run_ratio(runs, "libsmo"),
            run_ratio(runs, "libsmo", "cpu_ratio"), run_ratio(runs, "scikit-learn"),
            run_ratio(runs, "libsmo 2 jobs"), command_ratio(runs),
            run_ratio(runs, "LIBLINEAR-mc 2t"),
            f"{ref['objective']:.6g}" + (" (capped)" if ref["capped"] else ""),
            objective(ours), objective(sk) if sk else "-",
            " / ".join(f"{run['test_mse']:.4g}" if run else "-"
                       for run in (ours, ref, sk))])
    return header, rows


def linear_memory_table():
    """bench_linear_memory.py's rows: the extra peak memory of LinearSVC's (LinearSVR's),
    LIBLINEAR's and scikit-learn's fits (each in its own process), ratios over
    LIBLINEAR's, the objectives' relative differences from LIBLINEAR's."""
    data = load("linear_memory")
    header = ["case", "CSR MB", "LIBLINEAR extra peak MB", "libsmo MB",
              "libsmo / LIBLINEAR", "scikit-learn MB", "scikit-learn / LIBLINEAR",
              "liblinear-train 2.3.0 whole process MB",
              "objective rel. diff libsmo / scikit-learn"]
    def mb(value):
        return "-" if value is None else f"{value:.1f}"
    rows = []
    for r in data["rows"]:
        runs = r["runs"]
        ours, ref, sk = runs["libsmo"], runs["LIBLINEAR"], runs.get("scikit-learn")
        capped = (capped_note(ours, ref) or
                  (f" (not checked: LIBLINEAR's runs {r['reference_spread']:.0e} apart)"
                   if ours.get("unchecked") else ""))
        case = (f"{r['data']} ({r['classes']} classes), {r['loss']}, C={r['C']:g}"
                if r.get("classes") else
                f"{r['data']}, {r['loss']} (-s {r['solver']}, "
                f"{'dual' if r['dual'] else 'primal'}), C={r['C']:g}, eps={r['eps']:g}")
        rows.append([
            case, mb(r["data_mb"]), mb(ref["extra_peak_mb"]),
            mb(ours["extra_peak_mb"]), ratio(ours["memory_ratio"]),
            mb(sk["extra_peak_mb"]) if sk else "-",
            ratio(sk["memory_ratio"]) if sk else "-",
            mb(r.get("liblinear_train_process_peak_mb")),
            f"{ours['objective_rel_diff']:.1e} / "
            + (f"{sk['objective_rel_diff']:.1e}" if sk else "-") + capped])
    return header, rows


def cache_table():
    data = load("cache")
    header = ["rows", "library", "cache", "fits", "wall s", "CPU s", "objective", "nSV",
              "peak MB", "CPU / scikit-learn-intelex", "CPU / best size"]
    rows, previous = [], None
    for r in data["rows"]:
        shown = "" if r["rows"] == previous else number(r["rows"])
        previous = r["rows"]
        rows.append([shown, peer(r["library"]), r["cache"], r["fits"], number(r["wall_s"]),
                     number(r["cpu_s"]), f"{r['objective']:.4f}", number(r["n_sv"]),
                     number(r["peak_mb"]), ratio(r["cpu_over_sklearnex"]),
                     ratio(r["cpu_over_best_size"])])
    return header, rows


def partitioned_table():
    data = load("partitioned")
    header = ["case", "run", "fit s", "CPU s", "CPU / smo CPU", "objective",
              "rel. diff", "nSV", "accuracy %", "peak MB", "data MB", "status"]
    rows, previous = [], None
    for r in data["rows"]:
        case = "" if r["case"] == previous else f"{r['case']} ({r['date']})"
        previous = r["case"]
        rows.append([case, r["run"], number(r["fit_s"]), number(r["cpu_s"]),
                     ratio(r["cpu_over_smo"]), f"{r['objective']:.6f}",
                     number(r["objective_rel_diff"]), number(r["n_sv"]),
                     f"{r['accuracy_percent']:.2f}", number(r["peak_mb"]),
                     number(r["data_mb"]), r["status"]])
    return header, rows


def small_fits_table():
    """bench_small_fits.py's rows: SVC and LinearSVC fits and predictions on
    scikit-learn's bundled data sets beside scikit-learn's, CPU time ratios, with what
    shows the same work."""
    data = load("small_fits")
    header = ["estimator", "data", "n x d, classes", "work sklearn / libsmo",
              "answers differ by", "first fit, fresh process", "fit, warm",
              "predict one row", "predict every row", "predictions agreeing"]
    rows = []
    for r in data["rows"]:
        if r["estimator"] == "SVC":
            work, differ = "SVs", f"{r['answer_difference']:.1e} (dual_coef_)"
        else:
            work, differ = "iterations", f"{r['answer_difference']:+.1e} (objective)"
        rows.append([r["estimator"], r["data"],
                     f"{r['rows']} x {r['features']}, {r['classes']}",
                     f"{r['work_sklearn']} / {r['work_libsmo']} {work}", differ,
                     ratio(r["fresh_fit_ratio"]), ratio(r["warm_fit_ratio"]),
                     ratio(r["predict_one_row_ratio"]), ratio(r["predict_all_rows_ratio"]),
                     f"{r['predictions_agreeing']} of {r['rows']}"])
    return header, rows


TABLES = {"fastest_peer": fastest_peer_table, "objectives": objectives_table,
          "all_peers": all_peers_table, "scaling_a9a": scaling_table, "grid": grid_table,
          "startup": startup_table, "distributed": distributed_table,
          "cache": cache_table, "partitioned": partitioned_table,
          "linear_svm": linear_svm_table, "linear_svr": linear_svr_table,
          "svc_linear": svc_linear_table, "linear_auto": linear_auto_table,
          "linear_one_class": linear_one_class_table,
          "linear_memory": linear_memory_table, "linear_handover": linear_handover_table,
          "linear_convergence": linear_convergence_table, "small_fits": small_fits_table,
          "linear_revisits": linear_revisits_table, "linear_float32": linear_float32_table}
# the tables made from another table's file: that file, by table
TABLE_SOURCES = {"objectives": "fastest_peer", "linear_revisits": "linear_svm"}


def markdown(header, rows):
    """A pipe table; numeric columns right-aligned."""
    def numeric(column):
        cells = [row[column].split(" ")[0].replace(",", "").lstrip("<").strip()
                 for row in rows]
        try:
            [float(cell) for cell in cells if cell not in ("-", "")]
            return True
        except ValueError:
            return False
    align = ["---:" if numeric(i) else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def headline():
    """The README's headline: one thread, the fastest peer's training time, and the
    line that says where, when and how it was measured (Markdown)."""
    data = load("fastest_peer")
    by_case = {row["case"]: row for row in data["rows"] if row["threads"] == 1}
    header = ["one thread", "libsmo s", "fastest peer", "peer s", "train ratio",
              "predict ratio"]
    rows = []
    for case in HEADLINE_CASES:
        row = by_case[case]
        rows.append([SHORT_LABELS[case], number(row["libsmo_train_s"]),
                     peer(row["train_peer"]), number(row["peer_train_s"]),
                     ratio(row["train_ratio"]), ratio(row["predict_ratio"])])
    dates = sorted({row["date"][:10] for row in by_case.values()
                    if row["case"] in HEADLINE_CASES})
    software = data["software"]
    source = (f"Training seconds, medians of fresh-process runs, {dates[0]} to "
              f"{dates[-1]}; "
              f"{data['machine']['cpu']}; Python {software['python']}, "
              f"LIBSVM {software['libsvm-official'].split()[0]}, scikit-learn "
              f"{software['scikit-learn']}. Ratios libsmo / fastest peer, the same "
              f"objective. Command: `python benchmarks/run.py --cases CASE --threads 1,2 "
              f"--repeats 3` (each row's in `benchmarks/results-committed/"
              f"fastest_peer.json`).")
    return markdown(header, rows) + "\n\n" + source


# ---------------------------------------------------------------------------
# figures


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _save(fig, path):
    """Write a figure as the site shows it, and free it."""
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    _pyplot().close(fig)


def draw_ratio_bars(path):
    """libsmo / fastest peer, training and prediction, one and two threads."""
    plt = _pyplot()
    data = load("fastest_peer")
    cases = list(dict.fromkeys(row["case"] for row in data["rows"]))
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.42 * len(cases) + 1.6), sharey=True)
    for ax, key, title in ((axes[0], "train_ratio", "training"),
                           (axes[1], "predict_ratio", "prediction")):
        for offset, threads, color in ((-0.2, 1, "tab:blue"), (0.2, 2, "tab:orange")):
            values = []
            for case in cases:
                row = next(r for r in data["rows"]
                           if r["case"] == case and r["threads"] == threads)
                values.append(max(row[key], 0.004))
            positions = [i + offset for i in range(len(cases))]
            ax.barh(positions, values, height=0.38, color=color,
                    label=f"{threads} thread{'s' if threads > 1 else ''}")
        ax.axvline(1.0, color="k", linewidth=1)
        ax.set_xlim(0, 1.1)
        ax.set_title(f"{title}: libsmo / fastest peer (below 1: libsmo faster)",
                     fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(cases)))
    axes[0].set_yticklabels([SHORT_LABELS[case] for case in cases])
    axes[0].invert_yaxis()
    axes[1].legend(loc="lower right")
    _save(fig, path)


def draw_time_against_rows(path):
    """Training time against rows on a9a's prefixes, libsmo and LIBSVM, log-log."""
    plt = _pyplot()
    data = load("scaling_a9a")
    rows = [r["rows"] for r in data["rows"]]
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for key, label, marker in (("libsmo_s", "libsmo", "o"),
                               ("libsvm_s", "LIBSVM 3.37", "s")):
        ax.loglog(rows, [r[key] for r in data["rows"]], marker=marker, label=label)
    ax.set_xlabel("training rows (the first rows of a9a)")
    ax.set_ylabel("training seconds, one thread")
    ax.set_title(f"RBF C=1 gamma=0.05, {data['date']}", fontsize=10)
    ax.grid(which="both", alpha=0.3)
    ax.legend()
    _save(fig, path)


def draw_distributed(path):
    """The busiest worker's CPU seconds over single-process libsmo's, per case."""
    plt = _pyplot()
    data = load("distributed")
    runs = [r for r in data["rows"] if r["workers"]]
    cases = list(dict.fromkeys(r["case"] for r in runs))
    short = {case: case.split(":")[0].split(",")[0] for case in cases}
    fig, ax = plt.subplots(figsize=(9, 0.34 * len(runs) + 1.4))
    labels, values, colors = [], [], []
    for case in cases:
        for r in (r for r in runs if r["case"] == case):
            workers = f"{r['workers']} worker{'s' if r['workers'] > 1 else ''}"
            labels.append(f"{short[case]}: {workers}, {r['partitions']} partitions")
            values.append(r["busiest_over_libsmo_cpu"])
            colors.append("tab:blue" if r["workers"] == 1 else "tab:orange")
    ax.barh(range(len(values)), values, color=colors)
    ax.axvline(1.0, color="k", linewidth=1)
    ax.set_yticks(range(len(values)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("busiest worker's CPU seconds / single-process libsmo's")
    ax.grid(axis="x", alpha=0.3)
    _save(fig, path)


def draw_cache_curve(path):
    """CPU seconds against cache size on Fashion-MNIST, one line per library and rows
    (the sizes in megabytes; each library's default and libsmo's "auto" are in the
    table)."""
    plt = _pyplot()
    data = load("cache")
    fig, ax = plt.subplots(figsize=(8.6, 4.4))
    lines = {}
    for r in data["rows"]:
        if r["cache"].endswith(" MB"):
            lines.setdefault((r["library"], r["rows"]), []).append(
                (float(r["cache"][:-3]), r["cpu_s"]))
    styles = {"libsmo": "o-", "libsvm": "s--", "sklearnex": "^:"}
    names = {"libsmo": "libsmo", "libsvm": "LIBSVM 3.37", "sklearnex": "sklearnex"}
    for (library, rows), points in sorted(lines.items(), key=lambda item: (
            item[0][0] != "libsmo", item[0])):
        points.sort()
        ax.loglog([p[0] for p in points], [p[1] for p in points], styles.get(library, "x-"),
                  label=f"{names.get(library, library)}, {rows:,} rows")
    ax.set_xlabel("cache size, MB")
    ax.set_ylabel("training CPU seconds, one thread")
    ax.set_title(f"Fashion-MNIST tops against the rest, RBF C=10, {data['date']}",
                 fontsize=10)
    ax.grid(which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    _save(fig, path)


FIGURES = {"ratio_bars.png": draw_ratio_bars,
           "cache_curve.png": draw_cache_curve,
           "time_against_rows.png": draw_time_against_rows,
           "distributed.png": draw_distributed}


def draw_figures(directory):
    """Every figure into ``directory``; returns their paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, draw in FIGURES.items():
        draw(directory / name)
        paths.append(directory / name)
    return paths


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["readme"]:
        print(headline())
    elif argv[:1] == ["figures"] and len(argv) == 2:
        for path in draw_figures(argv[1]):
            print(path)
    else:
        print("\n".join(__doc__.strip().splitlines()[3:5]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
