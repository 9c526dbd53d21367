"""benchmarks/objective.py: the dual objective the benchmark tables compare, computed
from a fit's support vectors and dual coefficients the same way for every library.
It must be the objective each solver itself reports (libsmo's model, LIBSVM's "obj ="
lines), block by block or whole, sparse or dense, for every formulation."""
import numpy as np
import pytest

import libsmo
from helpers.data import load_dataset
from helpers.peers import libsvm_train

REPO_ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def benchmarks_package(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO_ROOT))


@pytest.mark.parametrize("name,n_rows,params", [
    ("heart_scale", None, {"svm_type": "c_svc", "C": 2.0, "gamma": 0.1}),
    ("heart_scale", None, {"svm_type": "c_svc", "kernel": "linear", "C": 0.5}),
    ("pendigits", 600, {"svm_type": "c_svc", "C": 10.0, "gamma": 1e-4}),
    ("heart_scale", None, {"svm_type": "one_class", "nu": 0.2, "gamma": 0.1}),
    ("housing_scale", None, {"svm_type": "epsilon_svr", "C": 10.0, "epsilon": 0.5,
                             "gamma": 0.1}),
    ("housing_scale", None, {"svm_type": "nu_svr", "C": 10.0, "nu": 0.4, "gamma": 0.1}),
], ids=["c_svc", "c_svc-linear", "c_svc-10-classes", "one_class", "epsilon_svr",
        "nu_svr"])
@pytest.mark.parametrize("dense", [False, True], ids=["csr", "dense"])
def test_the_objective_from_coefficients_is_the_solvers(name, n_rows, params, dense,
                                                        monkeypatch):
    from benchmarks import objective
    from benchmarks.peers import libsmo as libsmo_peer
    X, y = load_dataset(name, n_rows=n_rows, dense=dense)
    model = libsmo.train(X, y, **params)
    fit = libsmo_peer.fit_from_model(model)
    kernel = params.get("kernel", "rbf")
    computed = objective.dual_objective(fit, X, y, params["svm_type"], kernel,
                                        gamma=params.get("gamma"),
                                        epsilon=params.get("epsilon", 0.1))
    assert computed == pytest.approx(sum(model.objective), rel=1e-7)
    # LIBSVM's printed objective, the peer's own figure for the same problem
    peer = libsvm_train(X, y, **params)
    assert computed == pytest.approx(sum(peer.objectives), rel=1e-6)
    # in blocks of a few rows of the kernel matrix: the same sum
    monkeypatch.setattr(objective, "BLOCK_BYTES", 8 * 3 * X.shape[0])
    monkeypatch.setattr(objective, "PAIRS_AT_ONCE", 2)
    again = objective.dual_objective(fit, X, y, params["svm_type"], kernel,
                                     gamma=params.get("gamma"),
                                     epsilon=params.get("epsilon", 0.1))
    assert again == pytest.approx(computed, rel=1e-12)


def test_each_library_reads_the_same_objective():
    """LIBSVM's and scikit-learn's answers, read into the benchmarks' one form, give
    libsmo's objective on a multi-class problem (their classes in other orders)."""
    from benchmarks import objective
    from benchmarks.cases import Case
    from benchmarks.peers import peer
    X, y = load_dataset("pendigits", n_rows=500)
    y = y[::-1].copy()   # first appearance != sorted: LIBSVM's and scikit-learn's orders differ
    case = Case("pendigits-500", "pendigits", None, 16, "c_svc", "rbf", C=10.0, gamma=1e-4)
    values = {library: objective.case_objective(peer(library).prepare(case, X, y, 1)(),
                                                X, y, case)
              for library in ("libsmo", "libsvm", "sklearn")}
    assert values["libsvm"] == pytest.approx(values["libsmo"], rel=1e-7)
    assert values["sklearn"] == pytest.approx(values["libsmo"], rel=1e-5)


def test_pair_coefficients_follow_libsvms_layout():
    from benchmarks.objective import pair_coefficients
    # three classes of 2, 1 and 2 support vectors; rows: coefficients against the
    # other classes in LIBSVM's layout
    coef = np.array([[1.0, 2.0, 3.0, 4.0, 5.0],
                     [6.0, 7.0, 8.0, 9.0, 10.0]])
    A = pair_coefficients(coef, np.array([2, 1, 2]))
    # pair (0, 1): class 0 with row 0, class 1 with row 0
    np.testing.assert_array_equal(A[:, 0], [1.0, 2.0, 3.0, 0.0, 0.0])
    # pair (0, 2): class 0 with row 1, class 2 with row 0
    np.testing.assert_array_equal(A[:, 1], [6.0, 7.0, 0.0, 4.0, 5.0])
    # pair (1, 2): class 1 with row 1, class 2 with row 1
    np.testing.assert_array_equal(A[:, 2], [0.0, 0.0, 8.0, 9.0, 10.0])
