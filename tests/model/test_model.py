"""Model: decision values in blocks, feature-count handling as svm-predict, voting."""
import numpy as np
import pytest
import scipy.sparse as sp

import libsmo
import libsmo._blocks.kernel_block as prediction
from helpers.data import load_dataset
from helpers.peers import libsvm_decision, libsvm_train


def test_blocks_give_the_same_values(monkeypatch):
    X, y = load_dataset("a1a")
    model = libsmo.train(X, y)
    whole = model.decision_function(X)
    # a block budget of a few rows forces hundreds of blocks
    monkeypatch.setattr(prediction, "BLOCK_BYTES", 8 * model.n_sv * 7)
    # BLAS may sum in another order for another block height: equal to rounding
    np.testing.assert_allclose(model.decision_function(X), whole, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.decision_function(X.toarray()), whole, rtol=0,
                               atol=1e-12)


def test_fewer_sparse_columns_are_padded():
    """a9a.t never uses feature 123: read without n_features it has 122 columns."""
    X, y = load_dataset("a9a", n_rows=2000)
    Xt, _ = load_dataset("a9a.t", n_rows=3000)
    assert Xt.shape[1] == 122
    model = libsmo.train(X, y, gamma=0.05)
    padded = sp.csr_matrix((Xt.data, Xt.indices, Xt.indptr), shape=(Xt.shape[0], 123))
    np.testing.assert_array_equal(model.decision_function(Xt),
                                  model.decision_function(padded))


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_extra_sparse_columns_count_as_in_svm_predict(kernel):
    X, y = load_dataset("heart_scale")
    # tight: the linear kernel's primal solver takes its own path to the optimum
    model = libsmo.train(X, y, kernel=kernel, tol=1e-7)
    peer = libsvm_train(X, y, kernel=kernel, tol=1e-7)
    rng = np.random.default_rng(0)
    extra = sp.random(X.shape[0], 3, density=0.3, random_state=rng, format="csr")
    wider = sp.hstack([X, extra], format="csr")
    np.testing.assert_allclose(model.decision_function(wider),
                               libsvm_decision(peer, wider), atol=1e-5)
    if kernel == "rbf":
        assert not np.allclose(model.decision_function(wider), model.decision_function(X))


def test_dense_rows_must_have_the_training_width(heart_scale):
    X, y = heart_scale
    model = libsmo.train(X, y)
    with pytest.raises(ValueError, match="14 features.*trained with 13"):
        model.predict(np.zeros((2, 14)))


def test_empty_input_gives_empty_output(heart_scale):
    X, y = heart_scale
    model = libsmo.train(X, y)
    assert model.predict(X[:0]).shape == (0,)
    assert model.decision_function(np.zeros((0, 13))).shape == (0,)


def test_model_fields_follow_libsvm(heart_scale):
    X, y = heart_scale
    model = libsmo.train(X, y, kernel="linear")
    peer = libsvm_train(X, y, kernel="linear")
    assert model.svm_type == "c_svc"
    assert model.n_classes == 2
    assert list(model.n_support) == [peer.nSV[0], peer.nSV[1]]
    # support vectors grouped by class, in training order within each class
    first = model.support[:model.n_support[0]]
    second = model.support[model.n_support[0]:]
    assert np.all(y[first] == model.classes[0]) and np.all(y[second] == model.classes[1])
    assert np.all(np.diff(first) > 0) and np.all(np.diff(second) > 0)
    assert np.all(model.sv_coef[0, :model.n_support[0]] > 0)
    assert np.all(model.sv_coef[0, model.n_support[0]:] < 0)
    assert sp.issparse(model.support_vectors)
    assert "c_svc" in repr(model)


def test_class_order_carries_each_pair_s_training_statistics():
    """`with_class_order` moves each pair's n_iter, objective, status and kernel
    evaluations with the pair (`_model_checks.PER_PROBLEM_FIELDS`)."""
    X, y = load_dataset("heart_scale")
    y3 = np.where(np.arange(len(y)) % 3 == 0, 2.0, y)
    model = libsmo.train(X, y3, gamma=0.1)
    pairs = [(i, j) for i in range(3) for j in range(i + 1, 3)]   # LIBSVM's order
    order = [2, 0, 1]
    moved = model.with_class_order(order)
    for new_index, (i, j) in enumerate(pairs):
        source = pairs.index(tuple(sorted((order[i], order[j]))))
        for name in ("n_iter", "objective", "status", "kernel_evaluations"):
            assert getattr(moved, name)[new_index] == getattr(model, name)[source]
    assert len(set(model.kernel_evaluations)) == 3   # the pairs are told apart


def test_a_field_assigned_after_a_prediction_changes_the_next_one():
    """Prediction keeps the pairs' layout and the support vectors' between calls (a
    few rows' prediction took as long to gather them); assigning a field drops them,
    so the next prediction is the new model's, as a model built with that field."""
    X, y = load_dataset("heart_scale")
    labels = np.digitize(X[:, 0].toarray().ravel(), [-0.3, 0.3])  # three classes
    model = libsmo.train(X, labels, C=4)
    assert model.n_classes == 3
    before, rho = model.decision_function(X), model.rho.copy()
    votes_before = model.predict(X)
    rebuilt = model.replace(rho=model.rho + 1.0, sv_coef=-model.sv_coef)
    model.rho = model.rho + 1.0
    model.sv_coef = -model.sv_coef
    after = model.decision_function(X)
    np.testing.assert_array_equal(after, rebuilt.decision_function(X))
    # sum(-coef K) - (rho + 1) = -(before + rho) - rho - 1
    np.testing.assert_allclose(after, -before - 2 * rho - 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(model.predict(X), rebuilt.predict(X))
    assert not np.array_equal(model.predict(X), votes_before)


def test_a_pickle_holds_the_fields_not_what_prediction_derived():
    """What prediction derives and keeps (the layouts of the support vectors and of the
    pairs, a linear model's weights) stays out of a pickle: the same bytes before and
    after a prediction, and the loaded model, which checks its fields before it
    predicts, gives the same values."""
    import pickle
    X, y = load_dataset("heart_scale")
    labels = np.digitize(X[:, 0].toarray().ravel(), [-0.3, 0.3])
    for kernel in ("rbf", "linear"):
        model = libsmo.train(X, labels, kernel=kernel, C=4)
        fresh = pickle.dumps(model)
        values = model.decision_function(X)
        if kernel == "linear":
            model.linear_weights()
        assert pickle.dumps(model) == fresh
        loaded = pickle.loads(fresh)
        np.testing.assert_array_equal(loaded.decision_function(X), values)
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
