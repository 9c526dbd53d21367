"""Fuzzing the readers: real data and model files with bytes dropped, duplicated,
swapped or inserted, numbers made huge, negative, NaN, lines cut or joined.

Each mutated file either parses to what it says -- what a plain reference reader,
written here from the format's rules with Python's own float() and int(), makes of the
same bytes -- or raises ValueError; never another exception, a hang, or a different
result. A few hundred cases run by default (derandomized, so CI sees the same cases);
`pytest -m slow` runs 10,000 of each.
"""
import gzip
import io

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import libsmo
from helpers.data import data_file, load_dataset
from helpers.fuzz_campaign_worker import apply_edits
from helpers.reference_readers import (
    Rejected,
    assert_model_as,
    assert_reads_as,
    ref_load_data,
    ref_load_model,
)

# no deadline: a case's time is the machine's, not the reader's (a reader that hangs
# is the fuzz campaign's to catch, under its own per-case limit)
FAST = settings(max_examples=300, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SLOW = settings(max_examples=10_000, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# models wider than this many features are predicted on sparse rows only
WIDE = 100_000


# ------------------------------------------------------------------------ mutations



@st.composite
def mutated(draw, seed):
    """1 to 3 of the fuzz campaign's edits (tests/helpers/fuzz_campaign_worker.py), each choice a
    hypothesis draw."""
    return apply_edits(seed, draw(st.integers(1, 3)),
                       lambda lo, hi: draw(st.integers(lo, hi)),
                       lambda: draw(st.booleans()))


# ------------------------------------------------------------------------- seeds

def data_seed():
    with open(data_file("heart_scale"), "rb") as f:
        lines = [next(f) for _ in range(12)]
    return b"".join(lines[:5]) + b"# a comment\n\n-1 qid:3 2:0.5 7:1\n" + b"".join(
        lines[5:])


def model_seeds():
    X, y = load_dataset("heart_scale", n_rows=40)
    Xp, yp = load_dataset("pendigits", n_rows=40)
    Xp = Xp / 100
    models = [libsmo.train(X, y, C=0.5),
              libsmo.train(Xp, yp, kernel="poly", gamma=0.5, coef0=1, probability=True,
                           random_state=0),
              libsmo.train(X, y, svm_type="epsilon_svr", kernel="sigmoid", C=0.1),
              libsmo.train(X, y, svm_type="one_class", kernel="linear", nu=0.2,
                           probability=True),
              libsmo.train((X @ X.T).toarray(), y, kernel="precomputed", C=0.1)]
    seeds = []
    for model in models:
        out = io.BytesIO()
        libsmo.save_model(model, out, libsvm_precision=True)
        seeds.append(out.getvalue())
    return seeds


_SEEDS = {}


def seeds(kind):
    if kind not in _SEEDS:
        _SEEDS[kind] = data_seed() if kind == "data" else model_seeds()
    return _SEEDS[kind]


# -------------------------------------------------------------------- the checks

def check_data(raw):
    try:
        expected = ref_load_data(raw)
    except Rejected:
        expected = None
    try:
        X, y, qid = libsmo.load_svmlight_file(io.BytesIO(raw), query_id=True)
    except ValueError as exc:
        assert expected is None, f"rejected a valid file: {exc}"
        assert "line" in str(exc)
        return
    assert expected is not None, "accepted a file the format rejects"
    assert_reads_as(X, y, qid, expected)


def check_model(raw):
    try:
        expected = ref_load_model(raw)
    except Rejected:
        expected = None
    try:
        model = libsmo.load_model(io.BytesIO(raw))
    except ValueError as exc:
        assert expected is None, f"rejected a valid model: {exc}"
        return
    assert expected is not None, "accepted a model the format rejects"
    assert_model_as(model, expected)
    assert_predicts_finite_or_refuses(model)
    # what was read is written back and read again unchanged
    out = io.BytesIO()
    libsmo.save_model(model, out)
    again = libsmo.load_model(io.BytesIO(out.getvalue()))
    assert np.array_equal(again.sv_coef, model.sv_coef)
    assert np.array_equal(again.rho, model.rho)


def assert_predicts_finite_or_refuses(model):
    """A model that loads predicts finite decision values, labels among its classes
    and probabilities in [0, 1], or refuses with a ValueError that says why."""
    rng = np.random.default_rng(0)
    width = max(model.n_features, 1)
    if width > WIDE:
        # a file's index of 2**31 - 1: rows as sparse as the model's, the last column
        # among their entries (dense rows that wide cannot be built)
        if model.kernel == "precomputed":
            return
        columns = np.r_[np.arange(min(16, width - 1)), width - 1]
        X = sp.csr_matrix((rng.uniform(-1, 1, size=4 * len(columns)),
                           np.tile(columns, 4), np.arange(5) * len(columns)),
                          shape=(4, width))
        candidates = (X,)
    else:
        X = rng.uniform(-1, 1, size=(4, width))
        X[:, ::3] = 0.0
        candidates = (X, sp.csr_matrix(X)) if model.kernel != "precomputed" else (X,)
    for rows in candidates:
        try:
            dec = model.decision_function(rows)
            labels = model.predict(rows)
        except ValueError as exc:
            assert "overflow" in str(exc), exc
            continue
        assert np.isfinite(dec).all()
        if model.svm_type in ("c_svc", "nu_svc"):
            assert set(labels.tolist()) <= set(model.classes.tolist())
        try:
            proba = model.predict_proba(rows)
        except ValueError as exc:
            assert "probab" in str(exc) or "overflow" in str(exc), exc
            continue
        assert np.isfinite(proba).all() and (proba >= 0).all() and (proba <= 1).all()


def test_unmutated_seeds_read_as_the_reference_reads_them():
    check_data(seeds("data"))
    for seed in seeds("model"):
        check_model(seed)
        assert ref_load_model(seed)  # and they are valid


@FAST
@given(data=st.data())
def test_mutated_data(data):
    check_data(data.draw(mutated(seeds("data"))))


@FAST
@given(data=st.data())
def test_mutated_models(data):
    seed = data.draw(st.sampled_from(seeds("model")))
    check_model(data.draw(mutated(seed)))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(data=st.data())
def test_mutated_gzip(data):
    """A damaged gzip file raises ValueError unless it still decompresses; then it
    reads as its content says."""
    raw = data.draw(mutated(gzip.compress(seeds("data")[:300], mtime=0)))
    try:
        content = gzip.decompress(raw) if raw.startswith(b"\x1f\x8b") else raw
    except (OSError, EOFError, Exception):
        with pytest.raises(ValueError):
            libsmo.load_svmlight_file(io.BytesIO(raw))
        return
    check_data(content)


@pytest.mark.slow
@SLOW
@given(data=st.data())
def test_mutated_data_many(data):
    check_data(data.draw(mutated(seeds("data"))))


@pytest.mark.slow
@SLOW
@given(data=st.data())
def test_mutated_models_many(data):
    seed = data.draw(st.sampled_from(seeds("model")))
    check_model(data.draw(mutated(seed)))
