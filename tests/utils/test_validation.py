"""Input validation at the public boundary: `libsmo.train`, `Model.predict` and
`Model.decision_function`.

Every bad input must raise ValueError or TypeError with a message that names the
parameter and/or the bad value; every accepted layout of the same numbers (lists,
float32, int, Fortran order, strided views, CSC, COO, unsorted or duplicated CSR) must
give the same model as the canonical one. The data are generated here, so this file
needs no data set.
"""
import re

import numpy as np
import pytest
import scipy.sparse as sp

import libsmo

W = np.array([1.0, -2.0, 0.5, 1.0, 0.0])


def make_data(n=60, d=5, seed=0):
    """n x d standard normal rows, labels +1/-1 from a linear rule."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ W[:d] > 0, 1, -1)
    return X, y


def make_sparse_data(n=60, d=5, seed=0):
    """Rows with about half their entries zero, as a canonical CSR, and labels."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.5)
    y = np.where(X @ W[:d] > 0, 1, -1)
    if len(np.unique(y)) < 2:  # pragma: no cover - the seed gives both classes
        y[0] = -y[0]
    return sp.csr_matrix(X), y


@pytest.fixture(scope="module")
def data():
    return make_data()


@pytest.fixture(scope="module")
def model(data):
    X, y = data
    return libsmo.train(X, y)


@pytest.fixture(scope="module")
def precomputed_model(data):
    X, y = data
    return libsmo.train(X @ X.T, y, kernel="precomputed")


def assert_same_model(a, b, tol=1e-12):
    assert a.svm_type == b.svm_type and a.kernel == b.kernel
    np.testing.assert_array_equal(a.classes, b.classes)
    np.testing.assert_array_equal(a.n_support, b.n_support)
    np.testing.assert_array_equal(a.support, b.support)
    np.testing.assert_allclose(a.rho, b.rho, rtol=tol, atol=tol)
    np.testing.assert_allclose(a.sv_coef, b.sv_coef, rtol=tol, atol=tol)


# ---------------------------------------------------------------------------------------
# X: non-finite values
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_dense_X_with_nan_or_inf(data, bad):
    X, y = data
    X = X.copy()
    X[7, 2] = bad
    with pytest.raises(ValueError, match=r"^X holds NaN or infinity \(first at row 7\)"):
        libsmo.train(X, y)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_sparse_X_with_nan_or_inf(bad, fmt):
    X, y = make_sparse_data()
    X = X.copy()
    row = 11
    X.data[X.indptr[row] + 1] = bad  # the second stored entry of row 11
    X = X.asformat(fmt)
    with pytest.raises(ValueError, match=r"^X holds NaN or infinity \(first at row 11\)"):
        libsmo.train(X, y)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_predict_rejects_nan_or_inf(model, data, bad):
    X, _ = data
    X = X[:10].copy()
    X[4, 0] = bad
    for method in (model.predict, model.decision_function):
        with pytest.raises(ValueError, match=r"X holds NaN or infinity \(first at row 4\)"):
            method(X)
        with pytest.raises(ValueError, match=r"X holds NaN or infinity \(first at row 4\)"):
            method(sp.csr_matrix(X))


# ---------------------------------------------------------------------------------------
# X: shape and dtype
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape_of", [lambda X: X[:, 0], lambda X: X[:, :, None]],
                         ids=["1-D", "3-D"])
def test_X_not_2d(data, shape_of):
    X, y = data
    bad = shape_of(X)
    with pytest.raises(ValueError,
                       match=rf"^X must be 2-D .*got shape {re.escape(str(bad.shape))}"):
        libsmo.train(bad, y)


def test_X_with_zero_rows():
    with pytest.raises(ValueError, match=r"^X has no rows \(shape \(0, 5\)\)"):
        libsmo.train(np.zeros((0, 5)), np.zeros(0))


def test_sparse_X_with_zero_rows():
    with pytest.raises(ValueError, match=r"^X has no rows \(shape \(0, 5\)\)"):
        libsmo.train(sp.csr_matrix((0, 5)), np.zeros(0))


@pytest.mark.parametrize("make, dtype_text", [
    (lambda X: np.full(X.shape, "a"), "<U1"),
    (lambda X: X.astype(str), "<U"),
    (lambda X: X.astype(object), "object"),
    (lambda X: X.astype(complex), "complex128"),
], ids=["letters", "numeric-strings", "object", "complex"])
def test_X_not_real_numbers(data, make, dtype_text):
    X, y = data
    with pytest.raises(TypeError,
                       match=rf"^X must hold real numbers, got .*{re.escape(dtype_text)}"):
        libsmo.train(make(X), y)


@pytest.mark.parametrize("indices, indptr, message", [
    ([0, 7, 1], [0, 2, 3], r"row 0 has index pointers that decrease or pass the stored "
                           r"values, or a column index outside \[0, 3\)"),
    ([0, -1, 1], [0, 2, 3], r"row 0 .* outside \[0, 3\)"),
    ([0, 2, 1], [0, 4, 3], r"row 0 has index pointers that decrease or pass the stored "
                           r"values"),
    ([0, 2, 1], [0, 3, 2], r"index pointers run from 0 to 2 over 2 rows for 3 stored"),
    ([0, 2, 1], [0, 2, 5], r"index pointers run from 0 to 5 over 2 rows for 3 stored"),
], ids=["column-beyond", "negative-column", "pointer-beyond-values", "last-pointer-short",
        "last-pointer-beyond"])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_csr_arrays_that_do_not_describe_a_matrix(indices, indptr, message, index_dtype):
    """scipy builds a csr_matrix from arrays without checking them; the kernel would read
    and write outside its buffers, so training refuses them by name."""
    X = sp.csr_matrix((np.ones(3), np.array(indices, dtype=index_dtype),
                       np.array([0, 1, 3], dtype=index_dtype)), shape=(2, 3))
    # set after scipy built the matrix (from these pointers it would trim the arrays)
    X.indptr = np.array(indptr, dtype=index_dtype)
    with pytest.raises(ValueError, match=r"^X is not a valid CSR matrix: " + message):
        libsmo.train(X, [1, -1])


def test_sparse_X_complex(data):
    X, y = data
    with pytest.raises(TypeError, match=r"^X must hold real numbers, got dtype complex128"):
        libsmo.train(sp.csr_matrix(X.astype(complex)), y)


def test_ragged_X():
    with pytest.raises(ValueError, match=r"^X cannot be read as a 2-D array"):
        libsmo.train([[1.0, 2.0], [3.0]], [1, -1])


# ---------------------------------------------------------------------------------------
# y
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("length", [59, 61])
def test_y_wrong_length(data, length):
    X, y = data
    bad = np.resize(y, length)
    with pytest.raises(ValueError, match=rf"^y has {length} labels but X has 60 rows"):
        libsmo.train(X, bad)


def test_y_2d(data):
    X, y = data
    with pytest.raises(ValueError, match=r"^y must be 1-D, got shape \(60, 2\)"):
        libsmo.train(X, np.column_stack([y, y]))


def test_y_column_vector_is_accepted(data):
    X, y = data
    assert_same_model(libsmo.train(X, y[:, None]), libsmo.train(X, y))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_y_with_nan(data, bad):
    X, y = data
    y = y.astype(float)
    y[13] = bad
    with pytest.raises(ValueError, match=r"^y holds NaN or infinity \(first at index 13\)"):
        libsmo.train(X, y)


def test_y_complex(data):
    X, y = data
    with pytest.raises(TypeError, match=r"^y must hold real labels, got complex dtype"):
        libsmo.train(X, y.astype(complex))


def test_y_of_other_objects(data):
    X, y = data
    bad = y.astype(object)
    bad[3] = None
    with pytest.raises(TypeError, match=r"^y must hold numbers or strings.*NoneType"):
        libsmo.train(X, bad)


@pytest.mark.parametrize("svm_type", ["c_svc", "nu_svc"])
def test_y_single_class(data, svm_type):
    X, _ = data
    with pytest.raises(ValueError,
                       match=rf"^y has a single class \(7\); {svm_type} needs at least two"):
        libsmo.train(X, np.full(60, 7), svm_type=svm_type)


def test_y_required_for_classification(data):
    X, _ = data
    with pytest.raises(ValueError, match=r"^y is required for svm_type='c_svc'"):
        libsmo.train(X)


def test_three_classes_train_one_vs_one(data):
    """Three classes are valid for c_svc: one-vs-one, classes in first-appearance order."""
    X, _ = data
    y3 = np.array([2, 0, 1] * 20)
    model = libsmo.train(X, y3)
    np.testing.assert_array_equal(model.classes, [2, 0, 1])
    assert len(model.rho) == 3
    assert set(np.unique(model.predict(X))) <= {0, 1, 2}


def test_three_classes_infeasible_nu_names_the_classes(data):
    """With three classes the nu-SVC feasibility check names the offending pair."""
    X, _ = data
    y3 = np.array([0] * 50 + [1] * 5 + [2] * 5)
    with pytest.raises(ValueError,
                       match=r"^specified nu is infeasible: nu=0\.9 for classes .*0.* and .*1.* "
                             r"\(50 and 5 examples\)"):
        libsmo.train(X, y3, svm_type="nu_svc", nu=0.9)


# ---------------------------------------------------------------------------------------
# Scalar parameters
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("param, value, exc, message", [
    ("C", 0, ValueError, r"^C must be > 0 \(inf allowed\), got 0$"),
    ("C", -1.5, ValueError, r"^C must be > 0 \(inf allowed\), got -1\.5$"),
    ("C", float("nan"), ValueError, r"^C must be > 0 \(inf allowed\), got nan$"),
    ("C", float("-inf"), ValueError, r"^C must be > 0 \(inf allowed\), got -inf$"),
    ("C", "1", TypeError, r"^C must be a number, got '1' \(str\)$"),
    ("C", None, TypeError, r"^C must be a number, got None"),
    ("gamma", -0.5, ValueError, r"^gamma must be finite and >= 0, got -0\.5$"),
    ("gamma", float("nan"), ValueError, r"^gamma must be finite and >= 0, got nan$"),
    ("degree", -1, ValueError, r"^degree must be finite and >= 0, got -1$"),
    ("degree", 2.5, TypeError, r"^degree must be an integer, got 2\.5 \(float\)$"),
    ("coef0", float("inf"), ValueError, r"^coef0 must be finite, got inf$"),
    ("coef0", 10**400, ValueError, r"^coef0 must be finite, got 1000"),
    ("tol", 0, ValueError, r"^tol must be finite and > 0, got 0$"),
    ("tol", -1e-3, ValueError, r"^tol must be finite and > 0, got -0\.001$"),
    ("cache_size", 0, ValueError, r"^cache_size must be finite and > 0, got 0$"),
    ("cache_size", -100, ValueError, r"^cache_size must be finite and > 0, got -100$"),
    ("max_iter", 0, ValueError, r"^max_iter must be finite and > 0, got 0$"),
    ("max_iter", -5, ValueError, r"^max_iter must be finite and > 0, got -5$"),
    ("max_iter", 10.0, TypeError, r"^max_iter must be an integer, got 10\.0 \(float\)$"),
    ("shrinking", "yes", TypeError, r"^shrinking must be True or False, got 'yes'$"),
    ("shrinking", 1, TypeError, r"^shrinking must be True or False, got 1$"),
    ("callback", 3, TypeError, r"^callback must be callable, got 3$"),
    ("callback", "print", TypeError, r"^callback must be callable, got 'print'$"),
    ("kernel", "gaussian", ValueError,
     r"^kernel must be one of 'linear', 'poly', 'rbf', 'sigmoid', 'precomputed'; "
     r"got 'gaussian'$"),
    ("kernel", "RBF", ValueError, r"^kernel must be one of .*; got 'RBF'$"),
    ("selection", "wss3", ValueError,
     r"^selection must be one of 'second_order', 'platt'; got 'wss3'$"),
    ("svm_type", "svc", ValueError, r"^svm_type must be one of .*'c_svc'.*; got 'svc'$"),
])
def test_bad_parameter(data, param, value, exc, message):
    X, y = data
    with pytest.raises(exc, match=message):
        libsmo.train(X, y, **{param: value})


@pytest.mark.parametrize("kernel", ["poly", "rbf"])
def test_bad_degree_or_gamma_for_every_kernel(data, kernel):
    """Parameters are checked whatever the kernel, not only where they are used."""
    X, y = data
    with pytest.raises(ValueError, match=r"^gamma must be finite and >= 0, got -1"):
        libsmo.train(X, y, kernel=kernel, gamma=-1)
    with pytest.raises(TypeError, match=r"^degree must be an integer, got 2\.5"):
        libsmo.train(X, y, kernel=kernel, degree=2.5)


@pytest.mark.parametrize("shape", [(60, 5), (60, 59), (59, 60)])
def test_precomputed_needs_a_square_matrix(data, shape):
    _, y = data
    rng = np.random.default_rng(1)
    with pytest.raises(ValueError,
                       match=rf"^kernel='precomputed' needs X to be the square Gram matrix"
                             rf".*got shape {re.escape(str(shape))}"):
        libsmo.train(rng.standard_normal(shape), y[:shape[0]], kernel="precomputed")


def test_precomputed_with_nan(data):
    X, y = data
    G = X @ X.T
    G[2, 9] = np.nan
    with pytest.raises(ValueError, match=r"^X holds NaN or infinity \(first at row 2\)"):
        libsmo.train(G, y, kernel="precomputed")


# ---------------------------------------------------------------------------------------
# Prediction
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["predict", "decision_function"])
@pytest.mark.parametrize("n_features", [4, 6])
def test_predict_wrong_number_of_features(model, method, n_features):
    rows = np.zeros((3, n_features))
    with pytest.raises(ValueError,
                       match=rf"^X has {n_features} features, but this model was trained "
                             r"with 5$"):
        getattr(model, method)(rows)


@pytest.mark.parametrize("method", ["predict", "decision_function"])
@pytest.mark.parametrize("shape", [(1, 5), (5, 1, 1)])
def test_predict_not_2d(model, method, shape):
    rows = np.zeros(shape).squeeze(0) if len(shape) == 2 else np.zeros(shape)
    with pytest.raises(ValueError, match=r"^X must be 2-D .*got shape"):
        getattr(model, method)(rows)


@pytest.mark.parametrize("method", ["predict", "decision_function"])
def test_predict_not_real_numbers(model, method):
    with pytest.raises(TypeError, match=r"^X must hold real numbers"):
        getattr(model, method)(np.full((2, 5), "x"))


@pytest.mark.parametrize("method", ["predict", "decision_function"])
def test_precomputed_predict_too_few_columns(precomputed_model, method):
    K = np.ones((4, 59))
    with pytest.raises(ValueError,
                       match=r"^kernel='precomputed' needs X with one column per training "
                             r"row \(at least 60\); got shape \(4, 59\)"):
        getattr(precomputed_model, method)(K)


def test_precomputed_predict_ignores_extra_columns(precomputed_model):
    # svm-predict reads the columns of the support vectors' serial numbers only
    K = np.random.default_rng(0).normal(size=(4, 61))
    np.testing.assert_array_equal(precomputed_model.decision_function(K),
                                  precomputed_model.decision_function(K[:, :60]))


def test_precomputed_predict_right_columns(precomputed_model, data):
    X, _ = data
    pred = precomputed_model.predict(X[:10] @ X.T)
    assert pred.shape == (10,)
    assert set(np.unique(pred)) <= {1, -1}


def test_predict_empty_input(model):
    assert model.predict(np.zeros((0, 5))).shape == (0,)
    assert model.decision_function(sp.csr_matrix((0, 5))).shape == (0,)


# ---------------------------------------------------------------------------------------
# Accepted inputs: every layout of the same numbers gives the same model
# ---------------------------------------------------------------------------------------

def test_lists_give_the_same_model(data, model):
    X, y = data
    from_lists = libsmo.train(X.tolist(), y.tolist())
    assert_same_model(from_lists, model)
    np.testing.assert_array_equal(from_lists.predict(X[:5].tolist()), model.predict(X[:5]))


@pytest.mark.parametrize("layout", ["float32", "int", "fortran", "strided"])
def test_dense_layouts_give_the_same_model(layout):
    rng = np.random.default_rng(0)
    if layout == "int":
        X = rng.integers(-3, 4, size=(60, 5))
        y = np.where(X @ W > 0, 1, -1)
        reference = X.astype(np.float64)
    elif layout == "float32":
        X, y = make_data()
        X = X.astype(np.float32)
        reference = X.astype(np.float64)
    elif layout == "fortran":
        X, y = make_data()
        reference = X
        X = np.asfortranarray(X)
        assert not X.flags.c_contiguous
    else:
        wide, y = make_data(d=5)
        wide = np.repeat(wide, 2, axis=1)  # 60 x 10; every other column is the original
        X = wide[:, ::2]
        assert not X.flags.c_contiguous
        reference = np.ascontiguousarray(X)
    assert reference.dtype == np.float64 and reference.flags.c_contiguous
    expected = libsmo.train(reference, y)
    got = libsmo.train(X, y)
    assert_same_model(got, expected)
    np.testing.assert_array_equal(got.support_vectors, expected.support_vectors)
    np.testing.assert_array_equal(got.predict(X), expected.predict(reference))


@pytest.mark.parametrize("fmt", ["csc", "coo", "csr_array", "coo_array"])
def test_sparse_formats_give_the_same_model(fmt):
    X, y = make_sparse_data()
    expected = libsmo.train(X, y)
    other = {"csc": X.tocsc(), "coo": X.tocoo(), "csr_array": sp.csr_array(X),
             "coo_array": sp.coo_array(X)}[fmt]
    got = libsmo.train(other, y)
    assert_same_model(got, expected)
    assert sp.isspmatrix_csr(got.support_vectors)
    assert (got.support_vectors != expected.support_vectors).nnz == 0
    np.testing.assert_array_equal(got.decision_function(other),
                                  expected.decision_function(X))


def scrambled_csr(X, seed=0):
    """X with every entry split into two halves (duplicates that sum back exactly) and the
    indices of each row shuffled."""
    rng = np.random.default_rng(seed)
    data, indices, indptr = [], [], [0]
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        cols = np.concatenate([X.indices[lo:hi], X.indices[lo:hi]])
        vals = np.concatenate([X.data[lo:hi] * 0.5, X.data[lo:hi] * 0.5])
        order = rng.permutation(len(cols))
        data.append(vals[order])
        indices.append(cols[order])
        indptr.append(indptr[-1] + len(cols))
    return sp.csr_matrix((np.concatenate(data), np.concatenate(indices).astype(np.int32),
                          np.array(indptr, dtype=np.int32)), shape=X.shape)


def test_unsorted_and_duplicate_csr_give_the_same_model():
    X, y = make_sparse_data()
    messy = scrambled_csr(X)
    assert not messy.has_sorted_indices
    assert messy.nnz == 2 * X.nnz
    # the duplicates really sum back to X
    assert (messy.toarray() == X.toarray()).all()
    expected = libsmo.train(X, y)
    got = libsmo.train(messy, y)
    assert_same_model(got, expected)
    assert got.support_vectors.nnz == expected.support_vectors.nnz
    assert (got.support_vectors != expected.support_vectors).nnz == 0
    np.testing.assert_allclose(got.decision_function(messy), expected.decision_function(X),
                               rtol=0, atol=1e-12)


def test_unsorted_only_csr_gives_the_same_model():
    X, y = make_sparse_data()
    rng = np.random.default_rng(3)
    messy = X.copy()
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        order = lo + rng.permutation(hi - lo)
        messy.indices[lo:hi] = X.indices[order]
        messy.data[lo:hi] = X.data[order]
    messy = sp.csr_matrix((messy.data, messy.indices, messy.indptr), shape=X.shape)
    assert not messy.has_sorted_indices
    assert_same_model(libsmo.train(messy, y), libsmo.train(X, y))


def test_train_does_not_modify_dense_X(data):
    X, y = data
    Xf = np.asfortranarray(X)
    for arr in (X, Xf, X.astype(np.float32)):
        before = arr.copy()
        flags = (arr.flags.c_contiguous, arr.flags.f_contiguous, arr.dtype)
        libsmo.train(arr, y)
        libsmo.train(arr, y, kernel="linear", shrinking=False)
        np.testing.assert_array_equal(arr, before)
        assert (arr.flags.c_contiguous, arr.flags.f_contiguous, arr.dtype) == flags


def test_train_does_not_modify_sparse_X():
    X, y = make_sparse_data()
    messy = scrambled_csr(X)
    data, indices, indptr = messy.data.copy(), messy.indices.copy(), messy.indptr.copy()
    libsmo.train(messy, y)
    np.testing.assert_array_equal(messy.data, data)
    np.testing.assert_array_equal(messy.indices, indices)
    np.testing.assert_array_equal(messy.indptr, indptr)
    assert messy.indices.dtype == indices.dtype and messy.indptr.dtype == indptr.dtype
    assert messy.nnz == 2 * X.nnz
    # nor is another format
    coo = X.tocoo()
    row, col, vals = coo.row.copy(), coo.col.copy(), coo.data.copy()
    libsmo.train(coo, y)
    np.testing.assert_array_equal(coo.row, row)
    np.testing.assert_array_equal(coo.col, col)
    np.testing.assert_array_equal(coo.data, vals)


def test_train_does_not_modify_y(data):
    X, y = data
    before = y.copy()
    libsmo.train(X, y)
    np.testing.assert_array_equal(y, before)


# ---------------------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------------------

def test_string_labels(data):
    X, y = data
    labels = np.where(y > 0, "spam", "ham")
    first = labels[0]
    model = libsmo.train(X, labels.tolist())
    assert model.classes.tolist() == [first, "ham" if first == "spam" else "spam"]
    pred = model.predict(X)
    assert pred.dtype.kind == "U"
    assert set(pred.tolist()) <= {"spam", "ham"}
    # the same fit as with numeric labels in the same order
    numeric = libsmo.train(X, np.where(labels == first, 1, 2))
    np.testing.assert_array_equal(model.rho, numeric.rho)
    np.testing.assert_array_equal(model.sv_coef, numeric.sv_coef)
    expected = np.where(numeric.predict(X) == 1, first, model.classes[1])
    np.testing.assert_array_equal(pred, expected)
    assert (pred == labels).mean() > 0.8


@pytest.mark.parametrize("dtype", [int, float, np.int8])
def test_minus_one_first_puts_plus_one_first(data, dtype):
    """LIBSVM's rule: two-class data labelled -1/+1 has +1 as its first class."""
    X, y = data
    y = y.astype(dtype)
    order = np.argsort(y, kind="stable")  # every -1 row before every +1 row
    Xs, ys = X[order], y[order]
    assert ys[0] == -1
    model = libsmo.train(Xs, ys)
    assert model.classes.tolist() == [1, -1]
    # the decision value is positive on the +1 side
    dec = model.decision_function(Xs)
    pred = model.predict(Xs)
    np.testing.assert_array_equal(pred, np.where(dec > 0, 1, -1))
    assert (pred == ys).mean() > 0.8


def test_other_two_labels_keep_first_appearance_order(data):
    X, y = data
    y21 = np.where(y > 0, 1, 2)
    order = np.argsort(-y21, kind="stable")  # every 2 before every 1
    model = libsmo.train(X[order], y21[order])
    assert model.classes.tolist() == [2, 1]
    # and 1 first gives [1, 2]
    model = libsmo.train(X[order[::-1]], y21[order[::-1]])
    assert model.classes.tolist() == [1, 2]


def test_plus_one_first_keeps_its_order(data):
    X, y = data
    order = np.argsort(-y, kind="stable")  # every +1 before every -1
    model = libsmo.train(X[order], y[order])
    assert model.classes.tolist() == [1, -1]


# ---------------------------------------------------------------------------------------
# Gaps found by these tests, now closed
# ---------------------------------------------------------------------------------------

def test_object_y_with_nan(data):
    X, y = data
    bad = y.astype(float).astype(object)
    bad[13] = float("nan")
    with pytest.raises(ValueError, match=r"^y holds NaN"):
        libsmo.train(X, bad)


def test_object_y_strings_with_nan(data):
    X, y = data
    bad = np.where(y > 0, "spam", "ham").astype(object)
    bad[13] = float("nan")
    with pytest.raises((ValueError, TypeError), match=r"^y "):
        libsmo.train(X, bad)


def test_object_minus_one_first_puts_plus_one_first(data):
    X, y = data
    order = np.argsort(y, kind="stable")
    model = libsmo.train(X[order], y[order].astype(object))
    assert model.classes.tolist() == [1, -1]


def test_huge_degree(data):
    X, y = data
    with pytest.raises((ValueError, TypeError), match="degree"):
        libsmo.train(X, y, kernel="poly", degree=2**31)


def test_huge_max_iter(data):
    X, y = data
    try:
        libsmo.train(X, y, max_iter=2**70)
    except (ValueError, TypeError) as exc:
        assert "max_iter" in str(exc)


def test_canonical_csr_is_shared_and_left_as_it_is():
    """CSR already in the kernel's layout (float64, int32 sorted indices, no duplicates)
    is not copied, and training leaves it as it was; any other CSR is copied."""
    from libsmo._utils.validation import check_data
    X, y = make_sparse_data()
    assert X.indices.dtype == np.int32 and X.has_canonical_format
    shared = check_data(X)
    for name in ("data", "indices", "indptr"):
        assert np.shares_memory(getattr(shared, name), getattr(X, name))
    before = X.data.copy(), X.indices.copy(), X.indptr.copy()
    model = libsmo.train(X, y, C=10.0)
    libsmo.train(X, y, kernel="linear", linear_solver="primal")
    model.predict(X)
    for now, then in zip((X.data, X.indices, X.indptr), before):
        np.testing.assert_array_equal(now, then)
    strided = sp.csr_matrix((np.repeat(X.data, 2)[::2], X.indices, X.indptr), shape=X.shape)
    assert not strided.data.flags.c_contiguous
    assert check_data(strided).data.flags.c_contiguous
    np.testing.assert_array_equal(libsmo.train(strided, y, C=10.0).sv_coef, model.sv_coef)
    messy = scrambled_csr(X)
    copied = check_data(messy)
    assert not np.shares_memory(copied.data, messy.data)
    single = X.astype(np.float32)
    converted = check_data(single)
    assert converted.dtype == np.float64
    assert not np.shares_memory(converted.indices, single.indices)


def test_issparse_answers_as_scipy_for_arrays_subclasses_and_sparse_types():
    """libsmo._utils.sparse.issparse answers a plain ndarray itself (without scipy's walk of
    its sparse classes) and every other object as scipy.sparse.issparse does."""
    from libsmo._utils import sparse as _sparse
    dense = np.arange(6.0).reshape(2, 3)
    class CSRSubclass(sp.csr_matrix):
        pass

    candidates = [dense, dense.view(np.ma.MaskedArray), dense.view(np.recarray), [[1.0]],
                  (1, 2), None, CSRSubclass(dense)]
    # every format's matrix and array class (known by type), and a subclass
    sparse_types = [getattr(sp, f"{fmt}_{kind}") for fmt in _sparse._FORMATS
                    for kind in ("matrix", "array")]
    candidates += [make(dense) for make in sparse_types]
    for value in candidates:
        assert _sparse.issparse(value) == sp.issparse(value), type(value)
    assert [_sparse.issparse(v) for v in candidates[6:]] == [True] * (1 + 14)
    assert _sparse._SPARSE_TYPES == frozenset(sparse_types)


def test_first_above_finds_the_first_value_over_the_limit_or_nan():
    from libsmo._core.checks import first_above
    assert first_above(np.array([1.0, 2.0, 3.0]), 3.0) == -1
    assert first_above(np.array([1.0, 4.0, 5.0]), 3.0) == 1
    assert first_above(np.array([1.0, np.nan, 5.0]), 3.0) == 1
    assert first_above(np.array([np.inf]), 1e300) == 0
    assert first_above(np.zeros(0), 0.0) == -1


def test_rows_of_large_norm_are_named_by_check_norms():
    from libsmo._utils.validation import check_norms
    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 2.0], [1e200, 0.0], [1e160, 0.0]]))
    with pytest.raises(ValueError, match="X row 2 is too large for a kernel: its "
                                         "squared norm 1e\\+400|X row 2 is too large"):
        check_norms(X)
    np.testing.assert_array_equal(check_norms(X[:2]), [1.0, 4.0])


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_take_rows_equals_scipy_fancy_indexing(index_dtype):
    """problem.take_rows (one compiled pass over the rows' ranges) gives scipy's X[rows]
    for rows in any order, repeated and empty rows, with either index dtype; a row
    outside X is an IndexError."""
    from libsmo.training._problem import take_rows
    rng = np.random.default_rng(0)
    dense = sp.random(60, 9, density=0.3, random_state=1).toarray()
    dense[5] = 0.0   # an empty row
    X = sp.csr_matrix(dense)
    X.indices, X.indptr = X.indices.astype(index_dtype), X.indptr.astype(index_dtype)
    for rows in (rng.integers(0, 60, size=40), np.array([5, 5, 0, 59]),
                 np.array([], dtype=np.int64), np.arange(60)[::-1]):
        taken = take_rows(X, rows)
        expected = X[rows]
        assert taken.shape == expected.shape and (taken != expected).nnz == 0
        np.testing.assert_array_equal(taken.indptr, expected.indptr)
        # scipy's constructor keeps int32 where the values fit, as before
        assert taken.indices.dtype == expected.indices.dtype == np.int32
    with pytest.raises(IndexError, match="row 60 is outside the 60 rows"):
        take_rows(X, np.array([0, 60]))
