"""LIBLINEAR's one-class SVM (libsmo._core.linear_oneclass, LIBLINEAR 2.50's -s 21)
against liblinear-official's train(): its method draws nothing at random and libsmo
adds its terms in LIBLINEAR's order, so w, rho and the iterations are LIBLINEAR's to
the bit, on binary rows (a1a, whose many equal gradients test the pairs' tie-break),
real-valued ones (heart_scale, letter) and dense and float32 copies of them; and the
optimum is the one-class problem's (checked from its optimality conditions)."""
import numpy as np
import pytest

from helpers.data import load_dataset
from helpers.peers import liblinear_train
from libsmo._core.linear_oneclass import liblinear_start, one_class_dual
from libsmo._core.linear_rows import LinearRows


def liblinears(X, nu, eps):
    """liblinear-official's w and rho for -s 21 on the rows X."""
    model = liblinear_train(np.zeros(X.shape[0]), X, f"-s 21 -n {nu} -e {eps} -q")
    return np.array([model.w[j] for j in range(model.nr_feature)]), model.rho


@pytest.mark.parametrize("name,n_rows", [("heart_scale", None), ("a1a", None),
                                         ("letter.scale", 2000)])
@pytest.mark.parametrize("nu", [0.05, 0.3, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("eps", [0.01, 1e-5])
def test_w_and_rho_are_liblinears_to_the_bit(name, n_rows, nu, eps):
    X, _ = load_dataset(name, n_rows=n_rows)
    w, rho = liblinears(X, nu, eps)
    solution, ours = one_class_dual(LinearRows(X), liblinear_start(nu, X.shape[0]), tol=eps)
    np.testing.assert_array_equal(solution.w, w)
    assert ours == rho      # (infinite for nu = 1: every row at its bound 1)
    assert solution.status == "optimal"
    assert solution.objective == pytest.approx(0.5 * float(w @ w), rel=1e-12)


def test_threads_give_the_same_bits():
    """n_threads > 1 computes each active row's gradient on one of the threads (the
    extremes then taken in the rows' order): the same w, rho and iterations."""
    X, _ = load_dataset("a1a")
    rows = LinearRows(X)
    one, rho = one_class_dual(rows, liblinear_start(0.3, rows.n_rows), tol=1e-5)
    for threads in (2, 3):
        more, rho_more = one_class_dual(rows, liblinear_start(0.3, rows.n_rows), tol=1e-5,
                                          n_threads=threads)
        np.testing.assert_array_equal(more.w, one.w)
        assert rho_more == rho and more.n_iter == one.n_iter


@pytest.mark.parametrize("layout", ["dense", "float32", "dense float32"])
def test_dense_and_float32_rows_give_the_same_bits(layout):
    """Dense rows sum in the row's order too, and float32 values are each converted
    exactly: LIBLINEAR's answer on the same (float32-rounded) values."""
    X, _ = load_dataset("heart_scale")
    if "float32" in layout:
        X = X.astype(np.float32)
    w, rho = liblinears(X.astype(np.float64), 0.2, 1e-4)
    rows = LinearRows(X.toarray() if "dense" in layout else X)
    solution, ours = one_class_dual(rows, liblinear_start(0.2, rows.n_rows), tol=1e-4)
    np.testing.assert_array_equal(solution.w, w)
    assert ours == rho


def test_the_answer_meets_the_optimality_conditions():
    """At eps 1e-8: sum a = nu l, 0 <= a <= 1, w = sum a_i x_i, and every row at 0 lies
    on or above rho, every row at 1 on or below, the free rows at rho (within eps)."""
    X, _ = load_dataset("heart_scale")
    nu, eps = 0.3, 1e-8
    solution, rho = one_class_dual(LinearRows(X), liblinear_start(nu, X.shape[0]), tol=eps)
    a = np.asarray(solution.dual)
    assert a.sum() == pytest.approx(nu * X.shape[0], rel=1e-12)
    assert a.min() >= 0 and a.max() <= 1
    np.testing.assert_allclose(solution.w, X.T @ a, rtol=1e-10, atol=1e-10)
    scores = X @ solution.w
    scale = np.abs(scores).max()
    assert (scores[a == 0] >= rho - eps * scale).all()
    assert (scores[a == 1] <= rho + eps * scale).all()
    free = (a > 0) & (a < 1)
    assert free.any()
    np.testing.assert_allclose(scores[free], rho, rtol=0, atol=1e-6 * scale)


def test_stop_flag_and_iteration_limit():
    X, _ = load_dataset("a1a")
    rows = LinearRows(X)
    flag = np.ones(1, dtype=np.int8)
    solution, _ = one_class_dual(rows, liblinear_start(0.5, rows.n_rows), tol=1e-8,
                                 stop_flag=flag)
    assert solution.status == "stopped" and solution.n_iter == 1
    solution, rho = one_class_dual(rows, liblinear_start(0.5, rows.n_rows), tol=1e-12,
                                   max_iter=3)
    assert solution.status == "max_iter" and solution.n_iter == 3 and np.isfinite(rho)


@pytest.mark.parametrize("nu", [0.0, 1.5, float("nan")])
def test_liblinears_start_refuses_nu_outside_the_problem(nu):
    """LIBLINEAR does not check nu: above 1 it writes past its arrays."""
    with pytest.raises(ValueError, match="nu must be in"):
        liblinear_start(nu, 10)


@pytest.mark.parametrize("kwargs,words", [
    (dict(tol=0.0), "tol must be > 0"), (dict(max_iter=-1), "max_iter >= 0"),
    (dict(n_threads=0), "n_threads >= 1"),
    (dict(start=np.full(270, 2.0)), "within"), (dict(start=np.full(3, 0.5)), "one entry"),
    (dict(bounds=np.zeros(270)), "bounds must be finite"),
    (dict(order=np.array([0, 270])), "outside"),
])
def test_refuses_what_is_outside_the_problem(kwargs, words):
    X, _ = load_dataset("heart_scale")
    settings = dict(start=liblinear_start(0.5, 270)) | kwargs
    if "order" in kwargs:
        settings["start"] = np.zeros(2)
    with pytest.raises(ValueError, match=words):
        one_class_dual(LinearRows(X), **settings)


def test_refuses_a_bias_feature_and_no_rows():
    X, _ = load_dataset("heart_scale")
    with pytest.raises(ValueError, match="no bias feature"):
        one_class_dual(LinearRows(X, 1.0), liblinear_start(0.5, 270))
    with pytest.raises(ValueError, match="no rows"):
        one_class_dual(LinearRows(X[:0]), np.zeros(0))
