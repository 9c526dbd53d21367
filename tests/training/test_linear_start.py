"""The linear C-SVC's start from LIBLINEAR's coordinate descent
(libsmo.training._linear_start): the rows it reads, a start near LIBSVM's optimum, and
the primal solver's fit from it at LIBSVM's optimum."""
import numpy as np
import pytest
import scipy.sparse as sp

import libsmo
from helpers.data import load_dataset
from helpers.peers import libsvm_train
from libsmo.training._linear_start import coordinate_rows, dual_cd_start


def test_coordinate_rows_are_float_rows_with_int32_columns():
    X = sp.csr_matrix(np.array([[0.0, 1.5], [2.0, 0.0]]))
    X.indices = X.indices.astype(np.int64)
    rows = coordinate_rows(X)
    assert rows.indices.dtype == np.int32
    np.testing.assert_array_equal(rows.toarray(), X.toarray())
    rows = coordinate_rows(np.full((2, 2), 255, dtype=np.uint8))
    assert rows.dtype == np.float32 and np.all(rows == 255.0)
    dense = np.ones((2, 2))
    assert coordinate_rows(dense) is dense
    assert coordinate_rows(np.asfortranarray(np.eye(3))).flags.c_contiguous


def _violation(X, signs, alpha, upper_bound):
    """LIBSVM's m(a) - M(a) at alpha, from w = sum a_t y_t x_t."""
    w = np.asarray(X.T @ (alpha * signs)).ravel()
    v = -signs * (signs * np.asarray(X @ w).ravel() - 1.0)
    up = np.where(signs > 0, alpha < upper_bound, alpha > 0)
    low = np.where(signs > 0, alpha > 0, alpha < upper_bound)
    return v[up].max() - v[low].min()


@pytest.mark.parametrize("C,weight", [(0.05, 1.0), (1.0, 2.0)])
def test_coordinate_descent_start_is_near_libsvms_optimum(C, weight):
    """The primal solver's start (`libsmo.training._linear_start`): feasible and near
    LIBSVM's objective; at C = 0.05 within LIBSVM's stopping rule already (at larger C
    the last runs of coordinate descent may stop at their epoch cap, and SMO goes on);
    the fit from it is LIBSVM's optimum, class weights included."""
    X, y = load_dataset("a9a", n_rows=8000)
    X = sp.csr_matrix(X)
    signs = np.where(y > 0, 1.0, -1.0)
    bounds = C * np.where(signs > 0, weight, 1.0)
    alpha = dual_cd_start(X, np.arange(X.shape[0]), signs, bounds, 1e-3)
    assert np.all((alpha >= 0) & (alpha <= bounds))
    assert abs(signs @ alpha) < 1e-9 * bounds.sum()
    within = _violation(X, signs, alpha, bounds) <= 1e-3
    assert within or C > 0.05
    peer = libsvm_train(X, y, kernel="linear", C=C, class_weight={1: weight, -1: 1.0})
    w = np.asarray(X.T @ (alpha * signs)).ravel()
    objective = 0.5 * w @ w - alpha.sum()
    assert objective == pytest.approx(peer.objectives[0], rel=1e-4 if within else 1e-3)
    model = libsmo.train(X, y, kernel="linear", C=C, class_weight={1: weight},
                         linear_solver="primal")
    assert model.status == ["optimal"]
    assert model.objective[0] == pytest.approx(peer.objectives[0], rel=1e-4)
