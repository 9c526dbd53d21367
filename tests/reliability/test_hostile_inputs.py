"""What a hostile or careless caller hands the library gets a clear ValueError or
TypeError, never a crash: sparse matrices of every format whose arrays were edited in
place, Model fields that disagree, labels no float64 holds, parameters out of bounds,
nu-SVC problems without a solution.

Each crash case runs in a child interpreter: a segmentation fault there fails the test
instead of ending the test run.
"""
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import libsmo
from helpers.peers import libsvm_decision, libsvm_train

TESTS = Path(__file__).resolve().parents[1]   # tests/, where the helpers package is


def run_child(code):
    """Run code in a fresh interpreter; returns its CompletedProcess."""
    script = f"import sys\nsys.path.insert(0, {str(TESTS)!r})\n" + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, cwd=tempfile.gettempdir())


# ---- sparse matrices edited in place ---------------------------------------------------

SPARSE_EDITS = {
    "csc index beyond": ("X.copy().tocsc()", "C.indices[3] = 10**6", "not a valid CSC matrix"),
    "csc negative index": ("X.copy().tocsc()", "C.indices[3] = -5", "not a valid CSC matrix"),
    "csc pointer beyond": ("X.copy().tocsc()", "C.indptr[2] = 10**6", "not a valid CSC matrix"),
    "csc pointers cut": ("X.copy().tocsc()", "C.indptr = C.indptr[:-3]",
                         "not a valid CSC matrix"),
    "coo row beyond": ("X.copy().tocoo()", "C.row[3] = 10**6", "not a valid COO matrix"),
    "coo negative column": ("X.copy().tocoo()", "C.col[3] = -1", "not a valid COO matrix"),
    "coo rows cut": ("X.copy().tocoo()", "C.row = C.row[:-5]", "not a valid COO matrix"),
    "bsr index beyond": ("X.copy().tobsr(blocksize=(1, 1))", "C.indices[3] = 10**6",
                         "not a valid BSR matrix"),
    "bsr pointer beyond": ("X.copy().tobsr(blocksize=(2, 1))", "C.indptr[4] = 10**6",
                           "not a valid BSR matrix"),
    "lil column beyond": ("X.copy().tolil()", "C.rows[0].append(10**6); C.data[0].append(1.0)",
                          "not a valid CSR matrix"),
    "lil values longer": ("X.copy().tolil()", "C.data[0].extend([1.0] * 100)",
                          "not a valid LIL matrix"),
    "dia offsets cut": ("X.copy().todia()", "C.offsets = C.offsets[:-1]",
                        "not a valid DIA matrix"),
    "csr shape grown": ("X.copy()", "C._shape = (10**6, 13)", "not a valid CSR matrix"),
    "csr index beyond": ("X.copy()", "C.indices[0] = 10**7", "not a valid CSR matrix"),
}


def test_sparse_matrices_edited_in_place_are_refused_before_scipy_reads_them():
    """Before: scipy's own conversion (CSC, COO, BSR to CSR) ran on the edited arrays
    and wrote outside its buffers (segmentation fault, heap corruption)."""
    cases = [(name, make, edit) for name, (make, edit, _) in SPARSE_EDITS.items()]
    out = run_child(f"""
        import numpy as np, scipy.sparse as sp, libsmo
        X = sp.random(40, 13, density=0.5, format="csr", random_state=0)
        y = np.array([1, -1] * 20)
        model = libsmo.train(X, y)
        for name, make, edit in {cases!r}:
            for use in ("train", "predict"):
                C = eval(make)
                exec(edit)
                try:
                    libsmo.train(C, y) if use == "train" else model.predict(C)
                    print(name, use, "accepted")
                except (ValueError, TypeError) as exc:
                    print(name, use, type(exc).__name__, exc)
    """)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 2 * len(SPARSE_EDITS)
    for name, (_, _, message) in SPARSE_EDITS.items():
        for use in ("train", "predict"):
            line = next(l for l in lines if l.startswith(f"{name} {use} "))
            assert f"ValueError X is {message}" in line, line


def test_a_diagonal_matrix_with_short_diagonals_is_still_valid():
    X = sp.random(40, 13, density=0.5, format="csr", random_state=0)
    y = np.array([1, -1] * 20)
    C = X.todia()
    C.data = C.data[:, :3]  # DIA allows stored diagonals shorter than the width
    reference = libsmo.train(C.tocsr(), y)
    np.testing.assert_array_equal(libsmo.train(C, y).sv_coef, reference.sv_coef)


# ---- Model fields -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def three_class_model():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = np.repeat([1, 2, 3], 20)
    X[y == 2] += 2.0
    return libsmo.train(X, y, probability=True, random_state=0), X


BAD_FIELDS = {
    "degree": (-1, ValueError, "Model.degree must be finite and >= 0"),
    "gamma": (-0.5, ValueError, "Model.gamma must be finite and >= 0"),
    "coef0": (float("nan"), ValueError, "Model.coef0 must be finite"),
    "classes": ([1, 2], ValueError, "Model.n_support has 3 entries; this model needs 2"),
    "n_support": ([5, 0, 0], ValueError, "Model.n_support adds up to 5"),
    "rho": ([0.0], ValueError, "Model.rho has 1 values; this model needs 3"),
    "probA": ([1.0, 2.0], ValueError, "Model.probA has 2 values; this model needs 3"),
    "sv_coef": (np.zeros((1, 3)), ValueError, "Model.n_support adds up to"),
    "svm_type": ("c-svc", ValueError, "Model.svm_type must be one of"),
    "kernel": ("gauss", ValueError, "Model.kernel must be one of"),
    "n_features": (2.5, TypeError, "Model.n_features must be an integer"),
    "support": ([-1], ValueError, "Model.support has 1 entries"),
}


@pytest.mark.parametrize("field", sorted(BAD_FIELDS))
def test_inconsistent_model_fields_are_refused(three_class_model, field):
    model, _ = three_class_model
    value, error, message = BAD_FIELDS[field]
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        model.replace(**{field: value})


def test_support_vectors_beyond_their_width_are_refused(three_class_model):
    """Before: replace(support_vectors=<CSR with an index past its width>) then predict
    read outside the matrix (segmentation fault)."""
    model, X = three_class_model
    SV = sp.csr_matrix(model.support_vectors)
    SV.indices[0] = 10**7
    with pytest.raises(ValueError, match="Model.support_vectors is not a valid CSR"):
        model.replace(support_vectors=SV)
    with pytest.raises(ValueError, match=r"Model.support_vectors has shape \(\d+, 5\)"):
        model.replace(support_vectors=np.zeros((model.n_sv, 5)))


def test_a_field_assigned_after_construction_is_checked_before_predicting(
        three_class_model):
    model, X = three_class_model
    copy = model.replace()
    expected = model.decision_function(X)
    copy.n_support = np.array([1, 1, 1])
    with pytest.raises(ValueError, match="Model.n_support adds up to 3"):
        copy.predict(X)
    copy.n_support = model.n_support  # consistent again: predicts as before
    np.testing.assert_array_equal(copy.decision_function(X), expected)
    # a new support_vectors replaces what prediction derived from the old ones
    copy.support_vectors = np.asarray(model.support_vectors) * 2.0
    assert not np.allclose(copy.decision_function(X), expected)


def test_a_precomputed_model_needs_support_within_its_training_rows():
    K = np.eye(6) + 0.1
    model = libsmo.train(K, [1, 1, 1, -1, -1, -1], kernel="precomputed")
    with pytest.raises(ValueError, match=r"Model.support holds an entry outside \[0, 6\)"):
        model.replace(support=np.full(model.n_sv, 6))
    with pytest.raises(ValueError, match="needs `support`"):
        model.replace(support=None)


# ---- labels -------------------------------------------------------------------------------

@pytest.mark.parametrize("labels", [
    [2**70, 2**70 + 1, 5],                                   # Python ints: object array
    np.array([2**60, 2**60 + 1, 5], dtype=np.int64),
    np.array([2**63 + 1, 2**63 + 3, 5], dtype=np.uint64),
])
def test_labels_that_no_float64_holds_are_refused(labels):
    """Before: [2**70, 2**70 + 1, 5] trained as two classes (scikit-learn: "Unknown
    label type")."""
    X = np.eye(3) + 0.1
    with pytest.raises(ValueError, match="which a float64 cannot hold exactly"):
        libsmo.train(X, labels)


def test_large_labels_that_float64_holds_train():
    X = np.eye(3) + 0.1
    model = libsmo.train(X, np.array([2**60, 2**61, 5], dtype=np.int64))
    assert sorted(model.classes.tolist()) == [5, 2**60, 2**61]
    # regression targets are real numbers: rounded, as any float, not refused
    libsmo.train(X, np.array([2**60 + 1, 1, 2]), svm_type="epsilon_svr")


# ---- parameters ---------------------------------------------------------------------------

def test_n_threads_beyond_the_cores_is_clamped():
    """Before: n_threads=100_000 on rows of at least 2,048 entries was a segmentation
    fault, 2**31 - 1 an abort in the OpenMP runtime."""
    out = run_child("""
        import numpy as np, libsmo
        from libsmo.training._params import SolverParams
        from libsmo._utils.constraints import usable_cores
        rng = np.random.default_rng(0)
        X = rng.normal(size=(2500, 5)); y = np.where(X[:, 0] > 0, 1, -1)
        reference = libsmo.train(X, y, max_iter=200)
        for n in (100_000, 2**31 - 1):
            model = libsmo.train(X, y, n_threads=n, max_iter=200)
            assert np.array_equal(model.sv_coef, reference.sv_coef)
            assert SolverParams(n_threads=n).n_threads == usable_cores()
        print("ok")
    """)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
    with pytest.raises(ValueError, match="n_threads must be finite and > 0"):
        libsmo.train(np.eye(2), [1, 2], n_threads=0)
    with pytest.raises(ValueError, match="n_threads must be at most 2147483647"):
        libsmo.train(np.eye(2), [1, 2], n_threads=2**31)


def test_a_huge_cache_size_is_limited_to_what_q_can_use():
    """cache_size=1e12 (MB) or beyond: the cache holds at most the whole Q matrix."""
    from libsmo.training._execution import cache_megabytes
    assert cache_megabytes(1e12, 1000) == pytest.approx(1000 * 1000 * 4 / 2**20, rel=0.05)
    assert cache_megabytes(1e300, 1000) == cache_megabytes(1e12, 1000)
    assert cache_megabytes(0.5, 100_000) == 0.5
    X = np.random.default_rng(0).normal(size=(300, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    np.testing.assert_array_equal(libsmo.train(X, y, cache_size=1e300).sv_coef,
                                  libsmo.train(X, y).sv_coef)


# ---- nu-SVC without a solution ------------------------------------------------------------

NU_MESSAGE = "nu-SVC found no classifier for this data"


@pytest.mark.parametrize("case", ["constant kernel", "tiny gamma", "tiny nu", "sigmoid"])
def test_nu_svc_whose_margins_are_all_equal_is_a_clear_error(heart_scale, case):
    """Before: ZeroDivisionError (rho / r with r = 0). LIBSVM divides all the same and
    writes inf and NaN coefficients; scikit-learn's NuSVC then refuses its model."""
    X, y = heart_scale
    kwargs = {
        "constant kernel": dict(X=[[1.0], [1.0]], y=[1, 2]),
        "tiny gamma": dict(X=X, y=y, gamma=1e-9),
        "tiny nu": dict(X=X, y=y, nu=1e-320),
        "sigmoid": dict(X=[[50, 60], [70, 80], [60, 90], [80, 50]], y=[1, 1, -1, -1],
                        kernel="sigmoid", gamma=0.5),
    }[case]
    with pytest.raises(ValueError, match=NU_MESSAGE):
        libsmo.train(svm_type="nu_svc", **kwargs)


def test_nu_svc_with_a_negative_r_is_libsvms_model():
    """r < 0 (nu too small for these random labels, a sigmoid kernel): LIBSVM divides by
    it and prints "C = -1.150407"; scikit-learn's NuSVC fits. Before, libsmo refused it
    with the message for r = 0."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 2, size=60).astype(float)
    params = dict(svm_type="nu_svc", kernel="sigmoid", gamma=0.3, coef0=0.5, nu=0.3)
    peer = libsvm_train(X, y, **params)
    assert re.findall(r"C = (\S+)", peer.output) == ["-1.150407"]
    model = libsmo.train(X, y, **params)
    assert model.n_iter == [int(n) for n in re.findall(r"#iter = (\d+)", peer.output)]
    np.testing.assert_allclose(model.decision_function(X).ravel(),
                               libsvm_decision(peer, X).ravel(), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(libsmo.NuSVC(kernel="sigmoid", gamma=0.3, coef0=0.5,
                                               nu=0.3).fit(X, y).predict(X),
                                  model.predict(X))


def test_nu_svc_without_a_solution_through_the_estimator_and_cross_validation():
    X = [[50, 60], [70, 80], [60, 90], [80, 50]]
    with pytest.raises(ValueError, match=NU_MESSAGE):
        libsmo.NuSVC(kernel="sigmoid", gamma="auto").fit(X, [1, 1, -1, -1])
    with pytest.raises(ValueError, match=NU_MESSAGE):
        libsmo.cross_validation(np.ones((10, 2)), [1, 2] * 5, 5, svm_type="nu_svc")


# ---- the compiled core's entries, called with arrays that do not fit together --------
# Built with boundscheck=False (setup.py), these read or wrote outside their arrays and
# crashed the interpreter (the audit's reproducers r10-r20); each now raises first.

def _csr(data, indices, indptr, shape):
    return sp.csr_matrix((np.array(data, dtype=np.float64), np.array(indices, np.int32),
                          np.array(indptr, dtype=np.int32)), shape=shape)


def _squared_norms_past_the_values():
    from libsmo._core.arrays import squared_norms
    X = sp.csr_matrix(np.ones((3, 2)))
    X.indptr[-1] = 10**9   # edited in place: scipy does not check again
    squared_norms(X)


def _core_entries():
    """name -> (call, exception, message pattern)."""
    from libsmo._core.arrays import csr_to_dense, row_ranges, squared_norms
    from libsmo._core.bitmaps import pack_bits
    from libsmo._core.checks import csr_is_canonical
    from libsmo._core.int_rows import IntRows, small_integer_rows
    from libsmo._core.kernel_blocks import sparse_dots_feature_major, split_by_slot
    from libsmo._core.sparse_dots import SparseColumns
    from libsmo.io._writer import format_lines
    one_d = sp.csr_array(np.ones(5))   # scipy >= 1.15: a 1-D sparse array
    i32, i64 = np.int32, np.int64

    def columns(starts=(0, 1), indices=(0, 1)):
        return SparseColumns(np.ones(2), np.array(indices, i32), np.array(starts, i64),
                             np.array([1, 1], i32), 5)

    def lines(indptr=(0, 1), n_rows=1, **formats):
        return format_lines(np.ones((n_rows, 1)), np.array(indptr, i64),
                            np.zeros(1, i64), np.ones(1), **formats)

    two_d = r"X must be 2-D, got shape \(5,\)"
    return {
        "squared_norms 0-d": (lambda: squared_norms(np.array(5.0)), ValueError,
                              r"X must be 2-D, got shape \(\)"),
        "squared_norms indptr": (_squared_norms_past_the_values, ValueError,
                                 r"row 2's stored values \[4, 1000000000\) are not"),
        "csr_is_canonical 1-D": (lambda: csr_is_canonical(one_d), ValueError, two_d),
        "csr_to_dense column": (lambda: csr_to_dense(_csr([1.0], [10**9], [0, 1], (1, 5))),
                                ValueError, r"column index outside \[0, 5\)"),
        "row_ranges indptr": (lambda: row_ranges(np.array([0, 10**8, 0]),
                                                 np.array([0, 1], i64)),
                              ValueError, "indptr decreases at row 1"),
        "pack_bits row": (lambda: pack_bits(np.ones((7, 5)), rows=np.array([10**9], i32)),
                          IndexError, r"row 1000000000 is outside \[0, 7\)"),
        "pack_bits 1-D": (lambda: pack_bits(np.ones(5)), ValueError, two_d),
        "small_integer_rows 1-D": (lambda: small_integer_rows(np.ones(5), np.arange(1)),
                                   ValueError, two_d),
        "IntRows 1-D": (lambda: IntRows(np.ones(5, np.int16), 1.0, 4), ValueError,
                        r"ints must be 2-D"),
        "SparseColumns column": (lambda: columns(indices=(0, 10**8)), ValueError,
                                 r"row 1 holds a column index outside \[0, 5\)"),
        "SparseColumns extent": (lambda: columns(starts=(0, 5)), ValueError,
                                 r"row 1's stored values \[5, 6\) are not within the 2"),
        "SparseColumns narrow": (lambda: columns().narrow(
            np.ones(2), np.array([0, 1], i32), np.array([0, 1], i64),
            np.array([1, 1], i32), -1, 1), ValueError, r"0 <= start <= end"),
        "sparse_dots_feature_major 1-D": (lambda: sparse_dots_feature_major(
            one_d, np.zeros((5, 3)), np.empty((1, 3))), ValueError, two_d),
        "split_by_slot 1-D": (lambda: split_by_slot(one_d, np.zeros(5, i32),
                                                    np.zeros((1, 1))), ValueError, two_d),
        "format_lines indptr": (lambda: lines(indptr=(0, 10**8)), ValueError,
                                r"row 0's stored values \[0, 100000000\) are not within"),
        "format_lines rows": (lambda: lines(n_rows=2), ValueError,
                              r"indptr must have shape \(3,\)"),
        "format_lines lead_format": (lambda: lines(lead_format=("g",)), ValueError,
                                     r"lead_format must be a \(code, precision\) pair"),
        "format_lines value_format": (lambda: lines(value_format=()), ValueError,
                                      r"value_format must be a \(code, precision\) pair"),
    }


@pytest.mark.parametrize("case", sorted(_core_entries()))
def test_core_entries_refuse_arrays_that_do_not_fit_together(case):
    call, error, match = _core_entries()[case]
    with pytest.raises(error, match=match):
        call()
