"""One batch of the fuzz campaign (tests/test_fuzz_campaign.py), run in its own process.

    python fuzz_campaign_worker.py JOB.json

The job names a kind ("data", "model", "range", "params", or one of the families
that check answers against another computation of them: "partitions", "grid_ranges",
"warm_starts"), the campaign's seed, the
first case and the number of cases, the seed files, a working folder and the limits.
Case i of a kind is always the same bytes (or parameters): its random generator is
seeded by (seed, kind, i), so any case replays alone. The process caps its own address
space (`resource.setrlimit(RLIMIT_AS)`) and each case's time (SIGALRM), so a case that
would allocate without bound or hang is recorded, not waited for.

Every case must end in a clean refusal or a checked answer:

- a clean refusal is a ValueError or TypeError with a message, raised by a `raise`
  statement of libsmo's own code (its validation, its parsers): an exception from
  inside numpy or scipy, a Python error surfacing from libsmo's code (a `NoneType`
  TypeError, a failed int()), or one without a message is a failure;
- a data file: libsmo reads exactly what the reference reader
  (helpers/reference_readers.py, written from the format's rules) reads, or both refuse
  it; what reads trains or is refused;
- a model file: libsmo loads exactly the fields the reference model reader reads, or
  both refuse it; a model that loads predicts what libsvm-official predicts from the
  same file (decision values, labels, probabilities), and saves and reloads to the
  same predictions;
- a range file: it scales rows to finite values;
- parameters: accepted ones train a model whose predictions are finite, and, where the
  solver finished (not stopped by max_iter or time_limit), to the dual objective
  libsvm-official's svm_train reaches with the same parameters (which must accept
  them too).
- partitions: the cascade over a random partitioning (sorted, grouped, one-row and
  empty partitions) reaches the single machine's optimum;
- grid ranges: a random range is refused or gives a bounded list of values;
- warm starts: a random start ends at the cold fit's optimum, or (a hostile one) is
  refused.

Anything else -- another exception, MemoryError, a timeout, a wrong answer -- is a
failure, written with its case number and traceback. A crash ends the process; the
parent finds the case in the progress file, which names the case about to run before
it runs.

Results go to JOB.json's "out" as JSON: counts of clean errors and checked results,
what each check compared, and the failures.
"""
import ast
import functools
import json
import linecache
import os
import resource
import signal
import sys
import traceback
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import libsmo
from helpers.peers import (
    libsvm_load_model,
    libsvm_predict_proba,
    libsvm_predict_values,
    libsvm_train,
)
from helpers.reference_readers import (
    Rejected,
    assert_model_as,
    assert_reads_as,
    ref_load_data,
    ref_load_model,
)

KINDS = ("data", "model", "range", "params", "partitions", "grid_ranges", "warm_starts")
NOISE = b" \t\r\n:#-+.eE0123456789qidxy\x00\xff"
SPECIAL = [b"1e999", b"-1e999", b"1e-400", b"nan", b"-nan", b"inf", b"-0", b"-1", b"0",
           b"99999999999999999999", b"2147483647", b"2147483648", b"4294967296",
           b"1.7976931348623157e308", b"0x10", b"1e", b".", b"-", b"", b"1_0",
           b"4.9e-324", b"+2", b"00003", b"1e+308", b"-2147483648", b"1e300"]
HEADER_WORDS = [b"svm_type", b"kernel_type", b"degree", b"gamma", b"coef0", b"nr_class",
                b"total_sv", b"rho", b"label", b"probA", b"probB", b"nr_sv", b"SV",
                b"prob_density_marks", b"c_svc", b"nu_svc", b"one_class", b"epsilon_svr",
                b"nu_svr", b"rbf", b"linear", b"polynomial", b"sigmoid", b"precomputed",
                b"x", b"y"]

# A precomputed model's kernel rows need a column per training row: models (files) that
# claim more than this many are only loaded.
PRECOMPUTED_MAX_COLUMNS = 100_000
# what the checks compared, counted over the cases: the reference readers' reading,
# libsvm-official's predictions, probabilities and objectives, and the parameter sets
# whose solver stopped at max_iter or time_limit (no optimum to compare)
CHECKS = ("reference_reader", "libsvm_predictions", "libsvm_probabilities",
          "overflow_refused", "libsvm_objective", "stopped_early")


class CaseTimeout(Exception):
    """A case ran past its time limit."""


def case_rng(seed, kind, index):
    """The random generator of case `index` of `kind`: the same for every run."""
    return np.random.default_rng([seed, KINDS.index(kind), index])


def token_spans(data):
    """(start, end) of each run of bytes other than whitespace and ':'."""
    spans, start = [], None
    for position, byte in enumerate(data):
        if byte in b" \t\r\n:":
            if start is not None:
                spans.append((start, position))
                start = None
        elif start is None:
            start = position
    if start is not None:
        spans.append((start, len(data)))
    return spans


EDITS = ["drop", "duplicate", "swap", "insert", "number", "number", "number", "word",
         "cut", "newline", "repeat_line"]


def apply_edits(seed_bytes, n_edits, integer, coin):
    """`n_edits` random edits of a file: bytes dropped, duplicated, swapped or inserted,
    a number replaced by an extreme or malformed one, a header word replaced by another,
    the file cut, a line joined to the next or split, a line repeated many times.

    The choices come from `integer(lo, hi)` (an integer in [lo, hi]) and `coin()`, so
    that the same edits serve this campaign (a numpy generator) and the hypothesis
    tests of tests/test_fuzz_formats.py (whose draws shrink a failing case).
    """
    def pick(values):
        return values[integer(0, len(values) - 1)]
    data = bytearray(seed_bytes)
    for _ in range(n_edits):
        kind = pick(EDITS)
        size = len(data)
        at = integer(0, size)
        length = integer(1, 12)
        if kind == "drop":
            del data[at:at + length]
        elif kind == "duplicate":
            data[at:at] = data[at:at + length]
        elif kind == "swap" and size > 1:
            other = integer(0, size - 1)
            a, b = min(at, other), max(at, other)
            if b < size:
                data[a], data[b] = data[b], data[a]
        elif kind == "insert":
            data[at:at] = bytes([pick(NOISE)])
        elif kind in ("number", "word"):
            spans = token_spans(data)
            if spans:
                begin, end = pick(spans)
                data[begin:end] = pick(SPECIAL if kind == "number" else HEADER_WORDS)
        elif kind == "cut":
            del data[at:]
        elif kind == "newline":
            newlines = [i for i, byte in enumerate(data) if byte == 10]
            if newlines and coin():
                del data[pick(newlines)]
            else:
                data[at:at] = b"\n"
        elif kind == "repeat_line":
            lines = bytes(data).split(b"\n")
            which = integer(0, len(lines) - 1)
            lines[which:which + 1] = [lines[which]] * integer(2, 199)
            data = bytearray(b"\n".join(lines))
    return bytes(data)


def mutate(seed_bytes, rng):
    """A case's file: mostly one edit, up to four (`apply_edits`), drawn from `rng`."""
    return apply_edits(seed_bytes, int(min(4, rng.geometric(0.6))),
                       lambda lo, hi: int(rng.integers(lo, hi + 1)),
                       lambda: bool(rng.random() < 0.5))


# ------------------------------------------------------------ clean refusals

LIBSMO_DIR = Path(libsmo.__file__).resolve().parent


def _source_path(filename):
    """The file of a traceback entry inside libsmo, or None (Cython names its .pyx
    files by their path at build time, e.g. src/libsmo/io/_svmlight.pyx)."""
    path = Path(filename)
    if not path.is_absolute():
        parts = path.parts
        if "libsmo" not in parts:
            return None
        path = LIBSMO_DIR.joinpath(*parts[parts.index("libsmo") + 1:])
    try:
        path.resolve().relative_to(LIBSMO_DIR)
    except ValueError:
        return None
    return path.resolve()


@functools.lru_cache(maxsize=None)
def _raise_lines(path):
    """The lines of a Python file on which a `raise` statement stands (any of its
    lines, for a statement written over several)."""
    tree = ast.parse(Path(path).read_text())
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return frozenset(lines)


def raised_by_libsmo(error):
    """Whether `error` was raised by a `raise` statement of libsmo's own code (the
    innermost frame of its traceback), not by numpy, scipy or Python underneath.

    Returns
    -------
    (bool, str)
        The verdict and where the error was raised.
    """
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return False, "no traceback"
    last = frames[-1]
    where = f"{last.filename}:{last.lineno}"
    path = _source_path(last.filename)
    if path is None:
        return False, where
    if path.suffix == ".py":
        return last.lineno in _raise_lines(str(path)), where
    # Cython: the statement on that line of the .pyx source
    return linecache.getline(str(path), last.lineno).lstrip().startswith("raise"), where


def clean_refusal(error):
    """None when `error` is a clean refusal, else what is wrong with it."""
    if not isinstance(error, (ValueError, TypeError)):
        return f"{type(error).__name__} is not a refusal"
    if not str(error).strip():
        return f"{type(error).__name__} without a message"
    own, where = raised_by_libsmo(error)
    if not own:
        return f"{type(error).__name__} raised at {where}, not by libsmo's own checks"
    return None


# ----------------------------------------------------------------------- the cases

def check_finite(values, what):
    values = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        raise AssertionError(f"{what}: non-finite values returned without an error")


def refused(call):
    """Run call(); the clean refusal it raised, or None when it returned. Any other
    exception (an unclean one included) propagates as a failure."""
    try:
        call()
    except (ValueError, TypeError) as error:
        problem = clean_refusal(error)
        if problem:
            raise AssertionError(f"{problem}: {error}") from error
        return error
    return None


def run_data_case(libsmo, path, checked):
    """A data file reads as the reference reader reads it, or both refuse it."""
    raw = Path(path).read_bytes()
    try:
        expected = ref_load_data(raw)
    except Rejected:
        expected = None
    try:
        X, y, qid = libsmo.load_svmlight_file(path, query_id=True)
    except (ValueError, TypeError) as error:
        if expected is not None:
            raise AssertionError(f"refused a file the format accepts: {error}") from error
        raise
    if expected is None:
        raise AssertionError("accepted a file the format refuses")
    assert_reads_as(X, y, qid, expected)
    checked["reference_reader"] += 1
    X.check_format(full_check=True)
    if X.shape[0] and X.shape[0] <= 400 and X.shape[1] <= 10**6:
        model = libsmo.train(X, y, C=1.0, gamma=0.1, max_iter=20_000)
        check_finite(model.decision_function(X), "decision values of the training rows")
    return "valid"


def prediction_rows(model, rows):
    """Rows to predict with a model: `rows` (CSR, 16 features; a model of fewer or more
    features reads them as svm-predict would), or for a precomputed kernel rows of
    kernel values, one column per training row the model counts."""
    if model.kernel != "precomputed":
        return rows
    return np.abs(np.random.default_rng(0).normal(size=(rows.shape[0],
                                                        max(1, model.n_features))))


def run_model_case(libsmo, path, rows, work, checked):
    """A model file loads as the reference model reader reads it (or both refuse it),
    and predicts what libsvm-official predicts from the same file."""
    raw = Path(path).read_bytes()
    try:
        expected = ref_load_model(raw)
    except Rejected:
        expected = None
    try:
        model = libsmo.load_model(path)
    except (ValueError, TypeError) as error:
        if expected is not None:
            raise AssertionError(f"refused a model the format accepts: {error}") from error
        raise
    if expected is None:
        raise AssertionError("accepted a model the format refuses")
    assert_model_as(model, expected)
    checked["reference_reader"] += 1
    if model.kernel == "precomputed" and model.n_features > PRECOMPUTED_MAX_COLUMNS:
        return "valid"   # loaded; kernel rows that wide cannot be built here
    X = prediction_rows(model, rows)
    peer = libsvm_load_model(path)
    theirs_labels, theirs_values = libsvm_predict_values(peer, X, model.kernel)
    overflow = refused(lambda: model.decision_function(X))
    if overflow is not None:
        # refused: only where the sums overflow, in LIBSVM or in the kernel's terms as
        # libsmo forms them (an RBF distance as |x|^2 + |sv|^2 - 2 x'sv, where
        # LIBSVM's sparse rows sum the squared differences: a feature of 1e308 is an
        # inf norm here, a kernel value of 0 there)
        overflows = (not np.isfinite(decision_term_scale(model, X)).all()
                     or np.any(~(np.abs(theirs_values) < 1e300)))
        if "overflow" not in str(overflow) or not overflows:
            raise AssertionError(f"refused to predict ({overflow}) what LIBSVM predicts")
        checked["overflow_refused"] += 1
        return "valid"
    ours_values = model.decision_function(X).reshape(theirs_values.shape)
    predictions = model.predict(X)
    check_finite(predictions, "predictions")
    # the two sum the same terms in other orders: equal to rounding of the terms
    scale = decision_term_scale(model, X).reshape(-1, 1)
    close = np.abs(ours_values - theirs_values) <= 1e-9 * scale + 1e-12
    if not close.all():
        raise AssertionError(f"decision values differ from LIBSVM's: {ours_values[~close]}"
                             f" against {theirs_values[~close]}")
    # labels wherever no decision value is within rounding of a tie (regression: the
    # values themselves, compared above)
    clear = (np.abs(theirs_values) > 1e-6 * scale + 1e-9).all(axis=1)
    if model.svm_type in ("epsilon_svr", "nu_svr"):
        clear[:] = True
    elif not np.array_equal(predictions[clear], theirs_labels[clear]):
        raise AssertionError("labels differ from LIBSVM's")
    checked["libsvm_predictions"] += 1
    if model.svm_type in ("c_svc", "nu_svc") and model.probA is not None:
        probabilities = refused(lambda: model.predict_proba(X))
        if probabilities is None and clear.all():
            ours = model.predict_proba(X)
            _, theirs = libsvm_predict_proba(peer, X, model.kernel)
            if not np.allclose(ours, theirs, rtol=1e-6, atol=1e-9):
                raise AssertionError("probabilities differ from LIBSVM's")
            checked["libsvm_probabilities"] += 1
    again = os.path.join(work, "resaved.model")
    libsmo.save_model(model, again)
    np.testing.assert_array_equal(libsmo.load_model(again).predict(X), predictions)
    return "valid"


def kernel_magnitudes(X, model):
    """|K(x, sv)| for the rows of X against the model's support vectors, by LIBSVM's
    formulas over rows of any width (a feature beyond the other's width is 0 in the
    dot product and counts in its own row's norm)."""
    if model.kernel == "precomputed":
        return np.abs(np.asarray(X)[:, np.asarray(model.support, dtype=np.int64)])
    X, SV = sp.csr_matrix(X), sp.csr_matrix(model.support_vectors)
    width = min(X.shape[1], SV.shape[1])
    dots = (X[:, :width] @ SV[:, :width].T).toarray()
    g, c, d = model.gamma, model.coef0, model.degree
    with np.errstate(all="ignore"):
        if model.kernel == "linear":
            K = dots
        elif model.kernel == "poly":
            K = (g * dots + c) ** d
        elif model.kernel == "sigmoid":
            K = np.tanh(g * dots + c)
        else:
            sq_x = np.asarray(X.multiply(X).sum(axis=1)).reshape(-1, 1)
            sq_sv = np.asarray(SV.multiply(SV).sum(axis=1)).reshape(1, -1)
            K = np.exp(-g * (sq_x + sq_sv - 2 * dots))
    return np.abs(K)


def decision_term_scale(model, X):
    """Per row, the sum of the magnitudes of the terms of its decision values
    (|coef| @ |K(SV, x)| + |rho|): what rounding the sums in another order is relative
    to."""
    with np.errstate(all="ignore"):
        return ((kernel_magnitudes(X, model) @ np.abs(model.sv_coef).T).max(axis=1)
                + np.abs(model.rho).max(initial=0.0))


def run_range_case(libsmo, path, X, checked):
    scaler = libsmo.Scaler.load_range(path)
    check_finite(scaler.transform(X).data, "scaled values")
    return "valid"


def random_params(rng):
    """Random keyword arguments for libsmo.train: each parameter set with probability
    0.4, to a plausible value (80%) or a hostile one (20%: wrong type, sign, NaN,
    infinity, huge, unknown name)."""
    def pick(values):
        return values[int(rng.integers(0, len(values)))]
    hostile_numbers = [0.0, -1.0, np.inf, -np.inf, np.nan, 1e300, "1", None, [1.0], True]
    plausible = {
        "svm_type": ["c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr"],
        "kernel": ["linear", "poly", "rbf", "sigmoid", "precomputed"],
        "C": [1e-3, 0.5, 1.0, 10.0, 1e4, np.inf], "nu": [1e-3, 0.1, 0.5, 0.9, 1.0],
        "epsilon": [0.0, 0.01, 0.1, 2.0], "gamma": [1e-6, 0.01, 0.5, 5.0],
        "coef0": [-1.0, 0.0, 0.5, 3.0], "degree": [1, 2, 3, 5],
        "tol": [1e-6, 1e-3, 0.1, 10.0], "cache_size": [0.1, 1, 100, 1e12],
        "shrinking": [True, False], "probability": [True, False],
        "max_iter": [None, 1, 50, 10**6], "n_threads": [1, 2, 100_000, 2**31 - 1],
        "class_weight": [None, {1: 2.0}, {-1: 0.5, 1: 3.0}, {99: 1.0}],
        "random_state": [None, 0, 7], "time_limit": [None, 1e-9, 5.0],
    }
    hostile = {
        "svm_type": ["C_SVC", "bad", 0, None], "kernel": ["RBF", "bad", 2, None],
        "degree": [0, -1, 2.5, 10**9, "3", None], "gamma": ["bad", "scale", -1.0, np.nan],
        "max_iter": [0, -2, 2.5, "10"], "n_threads": [0, -1, 2**63, 1.5, "2"],
        "class_weight": [{1: -1.0}, {1: np.nan}, "balanced", "bad", {1: "x"}],
        "random_state": [2**32, -1, "x", 1.5], "time_limit": [0.0, -1.0, np.nan, "1"],
        "shrinking": ["yes", 2], "probability": ["yes", None],
        "cache_size": [0.0, -1.0, np.nan, np.inf],
    }
    params = {}
    for name, values in plausible.items():
        if rng.random() < 0.4:
            bad = rng.random() < 0.2
            params[name] = pick(hostile.get(name, hostile_numbers) if bad else values)
    return params


# libsmo.train's parameters that svm_train has too (the others -- threads, limits,
# seeds -- do not change the optimum)
LIBSVM_PARAMS = ("svm_type", "kernel", "C", "nu", "epsilon", "degree", "coef0", "tol",
                 "shrinking", "class_weight")


def run_params_case(libsmo, rng, data, checked):
    X, y, K = data
    params = random_params(rng)
    targets = y
    if params.get("svm_type") in ("epsilon_svr", "nu_svr"):
        targets = y * 0.5 + 0.1
    rows = K if params.get("kernel") == "precomputed" else X
    params.setdefault("max_iter", 20_000)
    params.setdefault("time_limit", 5.0)
    model = libsmo.train(rows, targets, **params)
    check_finite(model.predict(rows), "predictions")
    if model.probA is not None or model.prob_density_marks is not None:
        check_finite(model.predict_proba(rows), "probabilities")
    if any(status != "optimal" for status in model.status):
        checked["stopped_early"] += 1   # stopped by max_iter or time_limit: no optimum
        return "valid"
    # the same problem in svm_train: it must accept it and reach the same optimum
    same = {key: params[key] for key in LIBSVM_PARAMS if key in params}
    try:
        peer = libsvm_train(rows, targets, gamma=model.gamma, **same)
    except ValueError as error:   # svm_check_parameter's refusal
        raise AssertionError(f"libsmo trained what svm_train refuses: {error}") from error
    ours, theirs = float(np.sum(model.objective)), float(np.sum(peer.objectives))
    # LIBSVM prints each objective with six decimals
    if not abs(ours - theirs) <= 1e-6 * abs(theirs) + 1e-6 * max(1, len(peer.objectives)):
        raise AssertionError(f"objective {ours!r} against svm_train's {theirs!r}")
    checked["libsvm_objective"] += 1
    return "valid"


# ------------------------------------------- the cascade, grid ranges and warm starts

def _separable_enough(rng, n, d, noise):
    """Random rows and 0/1 labels (both present) of a binary problem."""
    X = rng.normal(size=(n, d)) * rng.choice([0.1, 1.0, 3.0])
    y = (X[:, 0] + noise * rng.normal(size=n) > 0).astype(int)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    return X, y


def random_partitioning(rng, y):
    """A row order (shuffled, sorted by class, runs of one class taking turns, or as
    given) and partition bounds (equal parts, random cuts, one row a partition, or
    random cuts with empty partitions among them)."""
    n = len(y)
    by_class = np.argsort(y, kind="stable")
    order_kind = str(rng.choice(["shuffled", "sorted", "grouped", "given"]))
    if order_kind == "shuffled":
        order = rng.permutation(n)
    elif order_kind == "sorted":
        order = by_class
    elif order_kind == "grouped":
        run = int(rng.integers(1, 30))
        runs = [by_class[k:k + run] for k in range(0, n, run)]
        order = np.concatenate(runs[0::2] + runs[1::2])
    else:
        order = np.arange(n)
    parts_kind = str(rng.choice(["equal", "random", "one_row", "empty"]))
    if parts_kind == "equal":
        bounds = np.linspace(0, n, int(rng.integers(1, 9)) + 1).astype(int)
    elif parts_kind == "one_row":
        bounds = np.arange(n + 1)
    else:
        cuts = np.sort(rng.integers(0, n + 1, size=int(rng.integers(1, 12))))
        if parts_kind == "empty":
            cuts = np.sort(np.concatenate([cuts, cuts[:max(1, len(cuts) // 2)]]))
        bounds = np.concatenate([[0], cuts, [n]])
    return order, bounds, f"{order_kind} rows, {parts_kind} partitions"


def run_partitions_case(libsmo, rng):
    """The cascade (`libsmo.cascade.solve_partitioned`, run here) over a random
    partitioning of a random binary problem must reach the single-machine optimum:
    status "optimal" and the objective within 1e-6 relative of `libsmo.train`'s. Both
    solve to tol 1e-6 (at LIBSVM's 1e-3, two exact solvers' objectives part by up to
    1e-4 on these small problems), with C * class weight at most 8 (the float32 Q rows
    of larger bounds part them by 1e-5). A refusal is a failure: every partitioning
    is valid."""
    import scipy.sparse as sp

    from libsmo.cascade import LocalRunner, solve_partitioned
    from libsmo.cascade._nodes import problem_rows
    from libsmo.training._params import TrainParams
    n, d = int(rng.integers(20, 160)), int(rng.integers(1, 6))
    X, y = _separable_enough(rng, n, d, float(rng.choice([0.0, 0.3, 1.0, 5.0])))
    C = float(rng.choice([0.05, 0.5, 1.0, 4.0]))
    gamma = float(rng.choice([0.01, 0.3, 2.0]))
    factors = (float(rng.choice([1.0, 0.5, 2.0])), float(rng.choice([1.0, 2.0])))
    weights = None
    if rng.random() < 0.3:   # rows of weight 0 take no part
        weights = rng.choice([0.0, 0.5, 1.0, 3.0], size=n)
        for c in (0, 1):
            if not (weights[y == c] > 0).any():
                weights[np.flatnonzero(y == c)[0]] = 1.0
    data = sp.csr_matrix(X) if rng.random() < 0.3 else X
    order, bounds, what = random_partitioning(rng, y)
    options = dict(fan_in=int(rng.integers(2, 5)),
                   direct_fraction=float(rng.choice([0.3, 1.0])),
                   whole_fraction=float(rng.choice([0.5, 1.0])),
                   grow_fraction=float(rng.choice([0.1, 0.25, 0.5])))
    try:
        single = libsmo.train(data, y, C=C, gamma=gamma, tol=1e-6, sample_weight=weights,
                              class_weight={0: factors[0], 1: factors[1]})
        rows, labels = data[order], y[order]
        kept = None if weights is None else weights[order]
        blocks = [problem_rows(rows[a:b], labels[a:b], order[a:b], 0, 1,
                               (C * factors[0], C * factors[1]),
                               None if kept is None else kept[a:b])
                  for a, b in zip(bounds[:-1], bounds[1:])]
        params = TrainParams.from_kwargs(C=C, gamma=gamma, tol=1e-6)
        result = solve_partitioned(LocalRunner(), blocks, params.kernel.for_data(d),
                                   params.solver, **options)
    except (ValueError, TypeError) as error:
        raise AssertionError(f"a valid partitioning ({what}) refused: "
                             f"{type(error).__name__}: {error}") from None
    if result.status != "optimal":
        raise AssertionError(f"cascade ended {result.status!r} ({what})")
    objective = single.objective[0]
    if abs(result.objective - objective) > 1e-6 * abs(objective):
        raise AssertionError(f"cascade objective {result.objective!r} against the single "
                             f"machine's {objective!r} ({what}, {options})")
    return "valid"


RANGE_VALUES = [float("nan"), float("inf"), -float("inf"), 1e300, -1e300, 1e-300, 0.0,
                1e20, -1e20, 1023.0, 1023.5, 1024.0, -1100.0, 5e-324, 2.0 ** 53]


def random_range(rng):
    """(begin, end, step): small numbers mostly (any sign, fractions), else extremes;
    or None (the parameter not searched)."""
    if rng.random() < 0.15:
        return None

    def value(scale):
        if rng.random() < 0.2:
            return RANGE_VALUES[int(rng.integers(len(RANGE_VALUES)))]
        return float(rng.choice([1.0, 0.5, 0.25, 1.5])) * int(rng.integers(-scale, scale + 1))
    begin, end, step = value(20), value(20), value(4)
    if rng.random() < 0.6 and (end - begin) * step < 0:
        step = -step   # mostly a step towards end, so that most ranges hold values
    return begin, end, step


def run_grid_ranges_case(libsmo, rng):
    """libsmo.training._grid's ranges: `log2_range` refuses a range (ValueError) or returns a
    bounded list (at most MAX_GRID_CELLS finite values from begin towards end by step,
    none past end, 2**v finite); `job_order` refuses a grid of more cells or lists each
    cell once; a grid of at most 4 cells is searched on 24 rows. Never a runaway (the
    case's time and memory limits catch one)."""
    from libsmo.training import _grid as grid
    ranges = [random_range(rng), random_range(rng)]
    if ranges[0] is None and ranges[1] is None:
        ranges[0] = (0.0, 1.0, 1.0)
    values = []
    for name, grid_range in zip(("log2c", "log2g"), ranges):
        if grid_range is None:
            values.append(None)
            continue
        found = grid.log2_range(*grid_range, name=name)
        begin, end, step = grid_range
        if not 1 <= len(found) <= grid.MAX_GRID_CELLS:
            raise AssertionError(f"{name} {grid_range}: {len(found)} values")
        steps = np.diff(found)
        if (found[0] != begin or not np.all(np.isfinite(found))
                or not np.all(np.sign(steps) == np.sign(step)) or max(found) > 1023.0
                or (step > 0 and found[-1] > end) or (step < 0 and found[-1] < end)
                or abs(found[-1] - end) > abs(step) * (1 + 1e-9)):
            raise AssertionError(f"{name} {grid_range}: not a range of it: {found[:5]}...")
        values.append(found)
    cells = grid.job_order(*values)
    expected = np.prod([1 if v is None else len(v) for v in values])
    if len(cells) != expected or len(set(cells)) != expected:
        raise AssertionError(f"{len(cells)} cells for {expected}")
    if expected <= 4:
        X = rng.normal(size=(24, 2))
        y = np.where(X[:, 0] > 0, 1, -1)
        result = grid.grid_search(X, y, log2c=ranges[0], log2g=ranges[1], n_folds=2,
                                  max_iter=20_000)
        rates = [cell.rate for cell in result.cells]
        if len(rates) != expected or not all(0.0 <= r <= 100.0 for r in rates):
            raise AssertionError(f"grid cells {result.cells}")
        if result.best.rate != max(rates):
            raise AssertionError(f"best {result.best} of {result.cells}")
    return "valid"


def random_warm_problem(rng):
    """A random problem (binary or three-class C-SVC, hard margin, epsilon-SVR,
    one-class, nu-SVC) and train's keywords for it, solved to tol 1e-6."""
    n, d = int(rng.integers(20, 120)), int(rng.integers(1, 5))
    X = rng.normal(size=(n, d))
    kind = str(rng.choice(["c_svc", "three_classes", "hard_margin", "epsilon_svr",
                           "one_class", "nu_svc"]))
    # LIBSVM's step cap: at tol 1e-6 a poly-kernel SVR takes 1.5 million steps from
    # some starts (and the case's time limit still holds)
    options = dict(tol=1e-6, kernel=str(rng.choice(["rbf", "rbf", "linear", "poly"])))
    if options["kernel"] == "poly":
        options.update(gamma=0.5, coef0=1.0, degree=2)
    if rng.random() < 0.2:
        options["selection"] = "platt"
    if kind in ("one_class", "nu_svc", "hard_margin"):
        # their linear optima here are degenerate (an objective of 0, or nu-SVC's r
        # near 0): many points are optimal, and which one is reached says nothing
        options.update(kernel="rbf")
        for name in ("gamma", "coef0", "degree"):
            options.pop(name, None)
    elif options["kernel"] == "linear" and kind in ("c_svc", "three_classes") and \
            rng.random() < 0.5:
        options["linear_solver"] = "primal"
    if kind in ("c_svc", "hard_margin"):
        y = (X[:, 0] + (0.0 if kind == "hard_margin" else 0.5) * rng.normal(size=n)
             > 0).astype(int)
        if y.min() == y.max():
            y[0] = 1 - y[0]
        options["C"] = np.inf if kind == "hard_margin" else float(
            rng.choice([0.1, 1.0, 10.0]))
    elif kind == "three_classes":
        y = np.digitize(X[:, 0] + 0.3 * rng.normal(size=n), [-0.4, 0.4])
        options["C"] = float(rng.choice([0.1, 1.0, 10.0]))
    elif kind == "epsilon_svr":
        y = X[:, 0] + 0.1 * rng.normal(size=n)
        options.update(svm_type=kind, C=float(rng.choice([0.1, 1.0, 10.0])), epsilon=0.1)
    elif kind == "one_class":
        y = None
        options.update(svm_type=kind, nu=float(rng.choice([0.1, 0.5, 0.9])))
    else:
        y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
        if y.min() == y.max():
            y[0] = 1 - y[0]
        options.update(svm_type=kind, nu=float(min(0.5, 0.9 * 2 * np.bincount(y).min() / n)))
    return X, y, kind, options


def random_seed(rng, libsmo, X, y, cold, options):
    """A warm start: the cold solution scaled (by 0 up to 1e300), random coefficients,
    +-s by class, a model of another C; or a hostile one (NaN, the wrong length, sums
    that overflow). Returns (init, what, hostile)."""
    n = X.shape[0]
    rows = max(1, len(cold.classes) - 1) if len(cold.classes) else 1
    scale = float(10.0 ** rng.choice([-300, -6, 0, 0.3, 3, 10, 20, 100, 300]))
    what = str(rng.choice(["scaled", "random", "signs", "model", "nan", "length",
                           "overflow"], p=[0.3, 0.2, 0.2, 0.1, 0.07, 0.07, 0.06]))
    if what == "scaled":
        init = np.zeros((rows, n))
        init[:, cold.support] = cold.sv_coef * scale
    elif what == "random":
        init = rng.normal(size=(rows, n)) * scale
    elif what == "signs":
        sign = np.where(X[:, 0] > 0, 1.0, -1.0)
        init = np.tile(sign * scale, (rows, 1))
    elif what == "model":
        changed = dict(options)
        if np.isfinite(changed.get("C", np.nan)):
            changed["C"] = 3.0 * changed["C"]
        return libsmo.train(X, y, **changed), what, False
    elif what == "nan":
        init = np.zeros((rows, n))
        init[0, int(rng.integers(n))] = np.nan
    elif what == "length":
        init = np.zeros((rows, n + 1))
    else:
        init = np.full((rows, n), 1e307)
    with np.errstate(over="ignore", invalid="ignore"):
        hostile = what in ("nan", "length") or not np.isfinite(np.abs(init).sum(axis=1)).all()
    return (init[0] if rows == 1 else init), f"{what} x {scale:g}", hostile


def comparable_objectives(model, options, n):
    """The objectives to compare: nu-SVC's in the solver's own terms (LIBSVM scales
    them by 1/r^2, and r is not determined where the optimum is degenerate: two
    optimal points can give r 0.8% apart), the others as they are."""
    objectives = np.array(model.objective)
    if options.get("svm_type") == "nu_svc":
        r = options["nu"] * n / np.abs(model.sv_coef).sum()   # sum(a) = nu n
        objectives = objectives * r * r
    return objectives


def run_warm_starts_case(libsmo, rng):
    """A warm start (train's init) must end where the cold fit ends: every problem
    "optimal", its objective within 1e-6 of the cold one's relative to the larger of
    |objective| and sum |coef| (the linear term's scale: some optima are near 0), to
    tol 1e-6; a hostile start is refused (ValueError); a valid one never is."""
    X, y, kind, options = random_warm_problem(rng)
    cold = libsmo.train(X, y, **options)
    init, what, hostile = random_seed(rng, libsmo, X, y, cold, options)
    if hostile:
        libsmo.train(X, y, init=init, **options)   # must raise ValueError
        raise AssertionError(f"a hostile warm start ({what}) was accepted")
    try:
        warm = libsmo.train(X, y, init=init, **options)
    except (ValueError, TypeError) as error:
        raise AssertionError(f"a valid warm start ({what}, {kind}) refused: "
                             f"{type(error).__name__}: {error}") from None
    if any(status != "optimal" for status in warm.status + cold.status):
        raise AssertionError(f"{kind} from {what}: {warm.status}, cold {cold.status}")
    n = X.shape[0]
    ours, theirs = (comparable_objectives(m, options, n) for m in (warm, cold))
    scale = np.maximum(np.abs(theirs), np.abs(cold.sv_coef).sum())
    if np.any(np.abs(ours - theirs) > 1e-6 * scale):
        raise AssertionError(f"{kind} from {what}: objectives {ours.tolist()} against the "
                             f"cold {theirs.tolist()} ({options})")
    return "valid"


def main():
    with open(sys.argv[1]) as f:
        job = json.load(f)
    if job["memory_limit"]:
        resource.setrlimit(resource.RLIMIT_AS, (job["memory_limit"], job["memory_limit"]))

    def alarm(signum, frame):
        raise CaseTimeout(f"case ran past {job['case_seconds']} s")
    signal.signal(signal.SIGALRM, alarm)
    warnings.simplefilter("ignore")

    # (the modules imported above count against the limit: it caps the address space
    # of the whole process, mappings made before it included)
    kind, seed = job["kind"], job["seed"]
    work = job["work"]
    seeds = [open(p, "rb").read() for p in job["seed_files"]]
    rows, params_data = None, None
    if kind in ("model", "range"):
        X, _ = libsmo.load_svmlight_file(job["rows_file"])
        rows = X[:30] / 100.0   # pendigits' 0..100 to the scale of the seed models
    if kind == "params":
        X, y = libsmo.load_svmlight_file(job["rows_file"])
        X, y = X[:60], y[:60]
        params_data = (X, y, (X @ X.T).toarray())
    counts = {"clean_error": 0, "valid": 0}
    checked = {name: 0 for name in CHECKS}
    failures = []
    path = os.path.join(work, f"case.{kind}")
    progress = job["progress"]
    for index in range(job["start"], job["start"] + job["count"]):
        with open(progress, "w") as f:
            f.write(str(index))
        rng = case_rng(seed, kind, index)
        try:
            signal.setitimer(signal.ITIMER_REAL, job["case_seconds"])
            if kind == "params":
                outcome = run_params_case(libsmo, rng, params_data, checked)
            elif kind == "partitions":
                outcome = run_partitions_case(libsmo, rng)
            elif kind == "grid_ranges":
                outcome = run_grid_ranges_case(libsmo, rng)
            elif kind == "warm_starts":
                outcome = run_warm_starts_case(libsmo, rng)
            else:
                raw = mutate(seeds[int(rng.integers(0, len(seeds)))], rng)
                with open(path, "wb") as f:
                    f.write(raw)
                if kind == "data":
                    outcome = run_data_case(libsmo, path, checked)
                elif kind == "model":
                    outcome = run_model_case(libsmo, path, rows, work, checked)
                else:
                    outcome = run_range_case(libsmo, path, rows, checked)
        except (ValueError, TypeError) as error:
            problem = clean_refusal(error)
            outcome = None if problem else "clean_error"
            if problem:
                failures.append({"case": index, "error": f"{problem}: {error}",
                                 "traceback": traceback.format_exc(limit=-6)})
        except BaseException as error:   # noqa: B902 -- every other outcome is a failure
            outcome = None
            if isinstance(error, KeyboardInterrupt):
                raise
            failures.append({"case": index, "error": f"{type(error).__name__}: {error}",
                             "traceback": traceback.format_exc(limit=6)})
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if outcome:
            counts[outcome] += 1
    with open(job["out"], "w") as f:
        json.dump({"counts": counts, "checked": checked, "failures": failures}, f)


if __name__ == "__main__":
    main()
