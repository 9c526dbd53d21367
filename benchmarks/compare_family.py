"""libsmo and LIBSVM side by side on each formulation: dual objective (computed the same
way from each side's dual coefficients, `benchmarks.objective`, summed over the
one-vs-one pairs), support vectors and test accuracy or mean squared error, same data
and parameters, default tol 1e-3, one thread.

    python benchmarks/compare_family.py            # prints a markdown table

Each side is prepared and fitted by its `benchmarks.peers` module. A row whose two fits
did other work (`benchmarks.agreement`: objective, nSV) has its time ratio FLAGGED and
the script exits with status 1.
"""
import os

# libsvm-official is built with OpenMP: one thread, as libsmo's default, so that the
# comparison is thread for thread (this must be set before libsvm is loaded)
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

if not __package__:
    # run as a file: the repository root on the path instead of this folder
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import agreement, data, objective, options  # noqa: E402
from benchmarks.cases import Case  # noqa: E402
from benchmarks.peers import peer  # noqa: E402

# (svm_type, train set, test set or None for the training set, n_features, parameters)
CASES = [
    ("c_svc", "heart_scale", None, 13, {}),
    ("c_svc", "a1a", "a1a.t", 123, {"C": 1.0, "gamma": 0.05}),
    ("c_svc", "pendigits", "pendigits.t", 16, {"C": 10.0, "gamma": 1e-4}),
    ("c_svc", "letter.scale", "letter.scale.t", 16, {"C": 10.0, "gamma": 1.0}),
    ("nu_svc", "heart_scale", None, 13, {"nu": 0.5}),
    ("nu_svc", "pendigits", "pendigits.t", 16, {"nu": 0.05, "gamma": 1e-4}),
    ("one_class", "heart_scale", None, 13, {"nu": 0.2}),
    ("epsilon_svr", "housing_scale", None, 13, {"C": 10.0, "epsilon": 0.5}),
    ("epsilon_svr", "bodyfat_scale", None, 14, {"C": 10.0, "epsilon": 0.005}),
    ("nu_svr", "housing_scale", None, 13, {"C": 10.0, "nu": 0.4}),
    ("nu_svr", "bodyfat_scale", None, 14, {"C": 1.0, "nu": 0.4}),
]


def score(svm_type, pred, y):
    if svm_type in ("epsilon_svr", "nu_svr"):
        return f"MSE {np.mean((pred - y) ** 2):.6g}"
    if svm_type == "one_class":
        return f"outliers {np.mean(pred == -1):.4f}"
    return f"acc {100 * np.mean(pred == y):.2f}%"


def side(library, case, nu, X, y):
    """(seconds, objective from the coefficients, nSV, predict) of one side's fit."""
    extra = {"nu": nu} if nu is not None else {}
    fit = peer(library).prepare(case, X, y, 1, **extra)
    start = time.perf_counter()
    answer = fit()
    seconds = time.perf_counter() - start
    dual = objective.dual_objective(answer, X, y, case.svm_type, case.kernel,
                                    gamma=case.gamma, epsilon=case.epsilon)
    return seconds, dual, answer.n_sv, answer.predict


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.data_dir_option(parser)
    args = parser.parse_args(argv)
    print("| svm_type | data (test) | objective libsmo | objective LIBSVM | rel diff | "
          "nSV libsmo / LIBSVM | libsmo | LIBSVM | train s libsmo/LIBSVM |")
    print("|---|---|---|---|---|---|---|---|---|")
    flagged = False
    for svm_type, train_name, test_name, d, params in CASES:
        X, y = data.load_svmlight(train_name, d, args.data_dir)
        Xt, yt = ((X, y) if test_name is None
                  else data.load_svmlight(test_name, d, args.data_dir))
        case = Case(f"{svm_type} {train_name}", train_name, test_name, d, svm_type, "rbf",
                    C=params.get("C", 1.0), gamma=params.get("gamma", 1.0 / d),
                    epsilon=params.get("epsilon", 0.1))
        ours_s, ours_obj, ours_nsv, ours_predict = side("libsmo", case, params.get("nu"),
                                                        X, y)
        theirs_s, theirs_obj, theirs_nsv, theirs_predict = side(
            "libsvm", case, params.get("nu"), X, y)
        rel = agreement.relative_difference(ours_obj, theirs_obj)
        same = (rel <= agreement.OBJECTIVE_RTOL
                and abs(ours_nsv - theirs_nsv) <= agreement.NSV_RTOL * theirs_nsv)
        flagged |= not same
        print(f"| {svm_type} | {train_name} ({test_name or 'train'}) | {ours_obj:.6f} | "
              f"{theirs_obj:.6f} | {rel:.1e} | {ours_nsv} / {theirs_nsv} | "
              f"{score(svm_type, ours_predict(Xt), yt)} | "
              f"{score(svm_type, theirs_predict(Xt), yt)} | {ours_s:.2f}/{theirs_s:.2f}"
              f"{'' if same else ' (FLAGGED)'} |", flush=True)
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
