"""One batch of the fuzz campaign (tests/test_fuzz_campaign.py), run in its own process.

    python fuzz_campaign_worker.py JOB.json

The job names a kind ("data", "model", "range" or "params"), the campaign's seed, the
first case and the number of cases, the seed files, a working folder and the limits.
Case i of a kind is always the same bytes (or parameters): its random generator is
seeded by (seed, kind, i), so any case replays alone. The process caps its own address
space (`resource.setrlimit(RLIMIT_AS)`) and each case's time (SIGALRM), so a case that
would allocate without bound or hang is recorded, not waited for.

Every case must end in a clean refusal (ValueError or TypeError, whose subclasses
include the decoding errors) or a valid result: a data file that reads trains or is
refused, a model that loads predicts finite values (and saves and reloads to the same
predictions), a range file that loads scales rows to finite values, parameters that are
accepted train a model whose predictions are finite. Anything else -- another exception,
MemoryError, a timeout -- is a failure, written with its case number and traceback. A
crash ends the process; the parent finds the case in the progress file, which names
the case about to run before it runs.

Results go to JOB.json's "out" as JSON: counts of clean errors and valid results, and
the failures.
"""
import json
import os
import resource
import signal
import sys
import traceback
import warnings

import numpy as np

import libsmo

KINDS = ("data", "model", "range", "params")
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


# ----------------------------------------------------------------------- the cases

def check_finite(values, what):
    values = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        raise AssertionError(f"{what}: non-finite values returned without an error")


def run_data_case(libsmo, path):
    X, y = libsmo.load_svmlight_file(path)
    if X.shape[0] != len(y):
        raise AssertionError(f"{X.shape[0]} rows but {len(y)} labels")
    X.check_format(full_check=True)
    if X.shape[0] and X.shape[0] <= 400 and X.shape[1] <= 10**6:
        model = libsmo.train(X, y, C=1.0, gamma=0.1, max_iter=20_000)
        check_finite(model.decision_function(X), "decision values of the training rows")
    return "valid"


def run_model_case(libsmo, path, rows, work):
    """rows: CSR rows of 16 features; a model of fewer or more features reads them as
    svm-predict would (sparse rows may be wider or narrower than the model)."""
    model = libsmo.load_model(path)
    X = rows
    if model.kernel == "precomputed":
        if model.n_features > PRECOMPUTED_MAX_COLUMNS:
            return "valid"   # loaded; kernel rows that wide cannot be built here
        X = np.abs(np.random.default_rng(0).normal(size=(rows.shape[0],
                                                          max(1, model.n_features))))
    predictions = model.predict(X)
    check_finite(predictions, "predictions")
    try:
        probabilities = model.predict_proba(X)
    except ValueError:
        probabilities = None   # no probability model: refused, as svm-predict -b 1
    if probabilities is not None:
        check_finite(probabilities, "probabilities")
    again = os.path.join(work, "resaved.model")
    libsmo.save_model(model, again)
    np.testing.assert_array_equal(libsmo.load_model(again).predict(X), predictions)
    return "valid"


def run_range_case(libsmo, path, X):
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


def run_params_case(libsmo, rng, data):
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

    import libsmo  # after the limit: its imports count against it too
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
                outcome = run_params_case(libsmo, rng, params_data)
            else:
                raw = mutate(seeds[int(rng.integers(0, len(seeds)))], rng)
                with open(path, "wb") as f:
                    f.write(raw)
                if kind == "data":
                    outcome = run_data_case(libsmo, path)
                elif kind == "model":
                    outcome = run_model_case(libsmo, path, rows, work)
                else:
                    outcome = run_range_case(libsmo, path, rows)
        except (ValueError, TypeError) as error:
            outcome = "clean_error"
            if not str(error).strip():
                failures.append({"case": index, "error": f"{type(error).__name__} "
                                 "without a message"})
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
        json.dump({"counts": counts, "failures": failures}, f)


if __name__ == "__main__":
    main()
