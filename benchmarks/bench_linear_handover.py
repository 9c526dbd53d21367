"""The squared hinge's dual beside scikit-learn's: where scikit-learn's LinearSVC
(dual=True) reaches tol, libsmo's must take its steps to the bit; where scikit-learn's
stops at max_iter epochs and warns, libsmo's hands over to the Newton method once the
dual's progress shows that it would (`libsmo._core.linear_epochs.progress_slow`), and
its primal objective must be at most scikit-learn's.

Each case is a binary problem (a set of more than two labels: its first label against
the rest) fitted by `libsmo.LinearSVC(C=C, dual=True, random_state=0, revisits=0)` (the
steps of scikit-learn's dual, whose watch is what is checked here) and
`sklearn.svm.LinearSVC` with the same arguments, at scikit-learn's defaults otherwise
(squared hinge, tol 1e-4, max_iter 1000), one thread, the two alternating; printed are
scikit-learn's epochs, libsmo's iterations (epochs, plus Newton steps where it handed
over), whether the weights are the same bits, the relative difference of the primal
objectives 1/2 (w'w + b^2) + C sum max(0, 1 - y f(x))^2 and the ratio of median times.
The script exits with status 1 where scikit-learn reached tol and libsmo's weights
differ (the watch fired on a dual that converges), or where libsmo's objective exceeds
scikit-learn's by more than 1e-4 relative. Other sessions share this machine: read
ratios, not seconds.

    python benchmarks/bench_linear_handover.py
    python benchmarks/bench_linear_handover.py --data a1a,ijcnn1.val --C 1,10 --repeats 3
"""
import argparse
import functools
import sys
import time
import warnings
from pathlib import Path

import numpy as np

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import libsmo  # noqa: E402
from benchmarks import data as bench_data  # noqa: E402
from benchmarks.bench_linear_svm import int32_csr, primal_objective, write_rows  # noqa: E402
from benchmarks.options import data_dir_option, name_list, positive_int  # noqa: E402

DATA = ("heart_scale", "a1a", "w1a", "australian_scale", "svmguide1",
        "breast-cancer_scale", "diabetes_scale", "ijcnn1.val", "letter.scale", "pendigits",
        "housing_scale")
OBJECTIVE_TOL = 1e-4
SQUARED_HINGE = 1      # LIBLINEAR's -s 1, for bench_linear_svm.primal_objective


def binary_problem(name, data_dir):
    """(X, y in {-1, 1}) of data set `name`: its two labels, or its first against the
    rest."""
    X, y = bench_data.load_svmlight(name, data_dir=data_dir)
    labels = np.unique(y)
    first = labels[1] if len(labels) == 2 else labels[0]
    return int32_csr(X), np.where(y == first, 1, -1)


def compare(name, X, y, C, repeats):
    """One case: both fits `repeats` times, alternating; the row printed and kept."""
    from sklearn.svm import LinearSVC
    # revisits=0: libsmo's default revisits take other steps than scikit-learn's
    makers = {"libsmo": functools.partial(libsmo.LinearSVC, revisits=0),
              "scikit-learn": LinearSVC}
    seconds = {k: [] for k in makers}
    models = {}
    for r in range(repeats):
        for label in (makers if r % 2 == 0 else reversed(list(makers))):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                models[label] = makers[label](C=C, dual=True, random_state=0).fit(X, y)
                seconds[label].append(time.perf_counter() - start)
    ours, theirs = models["libsmo"], models["scikit-learn"]
    converged = bool(theirs.n_iter_ < theirs.max_iter)
    same = bool(np.array_equal(ours.coef_, theirs.coef_)
                and np.array_equal(ours.intercept_, theirs.intercept_))
    f_ours, f_theirs = (primal_objective(X, y, m.classes_, m.coef_, m.intercept_, C,
                                         SQUARED_HINGE) for m in (ours, theirs))
    rel = float((f_ours - f_theirs) / abs(f_theirs))
    row = {"data": name, "rows": X.shape[0], "C": C, "sklearn_epochs": int(theirs.n_iter_),
           "libsmo_iterations": int(ours.n_iter_), "same_bits": same,
           "objective_rel_diff": rel,
           "time_ratio": float(np.median(seconds["libsmo"]) / np.median(seconds["scikit-learn"])),
           "bad": bool((converged and not same) or rel > OBJECTIVE_TOL)}
    kind = "same" if same else ("handed over" if not converged else "DIFFERS")
    print(f"| {name} | {C:g} | {row['sklearn_epochs']} | {row['libsmo_iterations']} | "
          f"{kind} | {rel:+.1e} | {row['time_ratio']:.2f} |"
          + (" <- bad" if row["bad"] else ""), flush=True)
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    data_dir_option(parser)
    parser.add_argument("--data", type=name_list(DATA), default=list(DATA))
    parser.add_argument("--C", type=lambda s: [float(c) for c in s.split(",")],
                        default=[0.01, 0.1, 1.0, 10.0, 100.0])
    parser.add_argument("--repeats", type=positive_int, default=1)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    print("| data | C | scikit-learn epochs | libsmo iterations | weights | objective "
          "rel. diff | time libsmo / scikit-learn |")
    print("|---|---:|---:|---:|---|---:|---:|")
    rows = []
    for name in args.data:
        X, y = binary_problem(name, args.data_dir)
        rows += [compare(name, X, y, C, args.repeats) for C in args.C]
    if args.json:
        write_rows(args.json, rows)
    return 1 if any(r["bad"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
