"""Reference readers of LIBSVM's data and model files, written from the formats' rules
with Python's own float() and int(), and nothing of libsmo's: what a file says, or
`Rejected` when the format refuses it.

tests/io/test_fuzz_formats.py holds libsmo's readers to them on mutated files, and the
fuzz campaign's workers (helpers/fuzz_campaign_worker.py) on every case they read.
"""
import math
import re

import numpy as np
import scipy.sparse as sp

NUMBER = re.compile(rb"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                    rb"|inf|infinity|nan)\Z", re.IGNORECASE)
FINITE = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
INTEGER = re.compile(rb"[+-]?[0-9]+\Z")
INT_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1


class Rejected(Exception):
    """The reference reader's verdict: not a valid file."""


# -------------------------------------------------------------- reference readers

def ref_number(token):
    if not NUMBER.match(token):
        raise Rejected(token)
    return float(token)


def ref_features(tokens, min_index):
    features, previous = [], -1
    for token in tokens:
        index, colon, value = token.partition(b":")
        if not colon or not INTEGER.match(index):
            raise Rejected(token)
        index = int(index)
        if index > INT_MAX or index < min_index or index <= previous:
            raise Rejected(token)
        features.append((index, ref_number(value)))
        previous = index
    return features


def ref_load_data(raw):
    """(X, y, qid) as libsmo.load_svmlight_file(zero_based="auto", query_id=True)
    should read `raw`, by the rules of the format."""
    rows = []
    for line in raw.split(b"\n"):
        tokens = line.split(b"#", 1)[0].split()
        if not tokens:
            continue
        label, rest, qid = ref_number(tokens[0]), tokens[1:], 0
        if rest and rest[0].startswith(b"qid:"):
            if not INTEGER.match(rest[0][4:]) or abs(int(rest[0][4:])) > INT64_MAX:
                raise Rejected(rest[0])
            qid, rest = int(rest[0][4:]), rest[1:]
        rows.append((label, qid, ref_features(rest, 0)))
    indices = [i for _, _, f in rows for i, _ in f]
    shift = 1 if indices and min(indices) > 0 else 0
    n_features = (max(indices) - shift if indices else 0) + 1
    indptr = np.cumsum([0] + [len(f) for _, _, f in rows])
    X = ((np.array([v for _, _, f in rows for _, v in f], dtype=float),
          np.array(indices, dtype=np.int64) - shift, indptr), (len(rows), n_features))
    return X, np.array([r[0] for r in rows]), np.array([r[1] for r in rows])


MODEL_KEYS = {b"svm_type", b"kernel_type", b"degree", b"gamma", b"coef0", b"nr_class",
              b"total_sv", b"rho", b"label", b"probA", b"probB", b"prob_density_marks",
              b"nr_sv"}
SVM_TYPES = [b"c_svc", b"nu_svc", b"one_class", b"epsilon_svr", b"nu_svr"]
KERNELS = {b"linear": "linear", b"polynomial": "poly", b"rbf": "rbf",
           b"sigmoid": "sigmoid", b"precomputed": "precomputed"}


def ref_load_model(raw):
    """The fields a LIBSVM model file says, by the rules load_model documents."""
    lines = raw.split(b"\n")
    header, n = {}, 0
    while True:
        if n == len(lines):
            raise Rejected("no SV line")
        tokens = lines[n].split()
        n += 1
        if not tokens:
            continue
        if tokens[0] == b"SV":
            if len(tokens) > 1:
                raise Rejected("SV")
            break
        if tokens[0] not in MODEL_KEYS or tokens[0] in header:
            raise Rejected(tokens[0])
        header[tokens[0]] = tokens[1:]

    def ints(key, count, minimum=-INT_MAX):
        values = header[key]
        if len(values) != count or not all(INTEGER.match(v) for v in values):
            raise Rejected(key)
        values = [int(v) for v in values]
        if any(v < minimum or abs(v) > INT_MAX for v in values):
            raise Rejected(key)
        return values

    def floats(key, count):
        values = header[key]
        if len(values) != count or not all(FINITE.match(v) for v in values):
            raise Rejected(key)
        values = [float(v) for v in values]
        if not all(math.isfinite(v) for v in values):
            raise Rejected(key)
        return values

    for key in (b"svm_type", b"kernel_type", b"nr_class", b"total_sv", b"rho"):
        if key not in header:
            raise Rejected(key)
    if len(header[b"svm_type"]) != 1 or header[b"svm_type"][0] not in SVM_TYPES:
        raise Rejected("svm_type")
    if len(header[b"kernel_type"]) != 1 or header[b"kernel_type"][0] not in KERNELS:
        raise Rejected("kernel_type")
    svm_type = header[b"svm_type"][0].decode()
    kernel = KERNELS[header[b"kernel_type"][0]]
    needs = {b"degree": kernel == "poly", b"gamma": kernel in ("poly", "rbf", "sigmoid"),
             b"coef0": kernel in ("poly", "sigmoid")}
    if any(need and key not in header for key, need in needs.items()):
        raise Rejected("kernel parameter")
    out = {"svm_type": svm_type, "kernel": kernel,
           "degree": ints(b"degree", 1, 0)[0] if b"degree" in header else 3,
           "gamma": floats(b"gamma", 1)[0] if b"gamma" in header else 0.0,
           "coef0": floats(b"coef0", 1)[0] if b"coef0" in header else 0.0}
    if out["gamma"] < 0:
        raise Rejected("gamma < 0")   # svm_check_parameter's rule; svm-train writes none
    k = ints(b"nr_class", 1, 1)[0]
    total = ints(b"total_sv", 1, 0)[0]
    classification = svm_type in ("c_svc", "nu_svc")
    if not classification and k != 2:
        raise Rejected("nr_class")
    pairs = k * (k - 1) // 2
    out["rho"] = floats(b"rho", pairs)
    if classification:
        if b"label" not in header or b"nr_sv" not in header:
            raise Rejected("label")
        out["classes"] = ints(b"label", k)
        if len(set(out["classes"])) != k:
            raise Rejected("label repeated")   # load_model's documented refusal
        out["n_support"] = ints(b"nr_sv", k, 0)
        if sum(out["n_support"]) != total:
            raise Rejected("nr_sv")
    else:
        if b"label" in header or b"nr_sv" in header:
            raise Rejected("label")
        out["classes"], out["n_support"] = [], []
    for key in (b"probA", b"probB"):
        out[key.decode()] = floats(key, pairs) if key in header else None
    out["prob_density_marks"] = None
    if b"prob_density_marks" in header:
        if svm_type != "one_class":
            raise Rejected("marks")
        out["prob_density_marks"] = floats(b"prob_density_marks", 10)
    body = b"\n".join(lines[n:]).rstrip()
    sv_lines = body.split(b"\n") if body else []
    if len(sv_lines) != total:
        raise Rejected("total_sv")
    coefs, svs = [], []
    for line in sv_lines:
        tokens = line.split()
        if len(tokens) < k - 1:
            raise Rejected("coefficients")
        coef = [ref_number(t) for t in tokens[:k - 1]]
        features = ref_features(tokens[k - 1:], 0 if kernel == "precomputed" else 1)
        if not all(math.isfinite(v) for v in coef + [v for _, v in features]):
            raise Rejected("not finite")
        coefs.append(coef)
        svs.append(features)
    out["sv_coef"] = np.array(coefs).T.reshape(max(k - 1, 1) if total else -1, total) \
        if k > 1 else np.zeros((1, total))
    if kernel == "precomputed":
        serials = []
        for features in svs:
            if not features or features[0][0] != 0:
                raise Rejected("0:n")
            value = features[0][1]
            if not (value >= 1 and value == int(value) and value <= INT_MAX):
                raise Rejected("serial")
            serials.append(int(value))
        out["support"] = [s - 1 for s in serials]
        out["n_features"] = max(serials, default=0)
    else:
        width = max((i for f in svs for i, _ in f), default=0)
        # sparse, as the file: an index of 2**31 - 1 must not cost its width here either
        rows = [r for r, features in enumerate(svs) for _ in features]
        columns = [i - 1 for features in svs for i, _ in features]
        values = [v for features in svs for _, v in features]
        SV = sp.csr_matrix((values, (rows, columns)), shape=(total, width))
        out["SV"], out["n_features"] = SV, width
    return out


# ------------------------------------------------------- what a reader must give

def assert_reads_as(X, y, qid, expected):
    """libsmo's (X, y, qid) of a file are what `ref_load_data` read: the same CSR
    arrays, exact doubles (NaN where NaN, the sign of -0.0 and -nan), labels, query
    ids. Raises AssertionError naming the first difference."""
    ((data, indices, indptr), shape), y_ref, qid_ref = expected
    assert sp.isspmatrix_csr(X) and X.shape == shape, (X.shape, shape)
    assert np.array_equal(X.indptr, indptr), "row pointers"
    assert np.array_equal(X.indices, indices), "column indices"
    assert np.array_equal(X.data, data, equal_nan=True), "values"
    assert np.array_equal(np.signbit(X.data), np.signbit(data)), "signs of values"
    assert np.array_equal(y, y_ref, equal_nan=True), "labels"
    assert np.array_equal(np.signbit(y), np.signbit(y_ref)), "signs of labels"
    assert np.array_equal(qid, qid_ref), "query ids"


def assert_model_as(model, expected):
    """A libsmo Model holds the fields `ref_load_model` read from the same file.
    Raises AssertionError naming the first field that differs."""
    for key in ("svm_type", "kernel", "degree", "gamma", "coef0", "n_features"):
        assert getattr(model, key) == expected[key], key
    for key in ("classes", "n_support", "rho", "sv_coef"):
        assert np.array_equal(getattr(model, key), np.asarray(expected[key], float)), key
    for key in ("probA", "probB", "prob_density_marks"):
        ours, theirs = getattr(model, key), expected[key]
        assert (ours is None) == (theirs is None), key
        assert ours is None or np.array_equal(ours, theirs), key
    if model.kernel == "precomputed":
        assert np.array_equal(model.support, expected["support"]), "support"
    else:
        ours, theirs = sp.csr_matrix(model.support_vectors), expected["SV"]
        assert ours.shape == theirs.shape and (ours != theirs).nnz == 0, "support vectors"
