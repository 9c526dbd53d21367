"""Read-only arrays everywhere: the compiled core only reads what it is given (const
memoryviews), so data that a backend hands over read-only trains and predicts as a
writable copy does. Ray gives its workers read-only arrays, loky memory-maps large
arguments read-only ('r'), and a user may pass a np.memmap or a frozen array.

Every array a fit can take is frozen here (X dense and CSR, y, sample weights, class
weights, precomputed kernels, a warm start's model, the stop flag); the answers must be
the writable copies' bit for bit. The loky test memory-maps every argument of every
task (max_nbytes=0), the one-byte stop flag included, which is what Ray does to them.
"""
import joblib
import numpy as np
import pytest
import scipy.sparse as sp

import libsmo
from helpers.data import load_dataset


def frozen(a):
    """A read-only copy of a dense array, or of a CSR matrix's three arrays."""
    if sp.issparse(a):
        a = a.copy()
        for part in (a.data, a.indices, a.indptr):
            part.setflags(write=False)
        return a
    a = np.array(a)
    a.setflags(write=False)
    return a


def same_model(ours, reference):
    for field in ("support", "sv_coef", "rho", "n_support", "objective", "n_iter",
                  "probA", "probB"):
        a, b = getattr(ours, field), getattr(reference, field)
        if a is None or b is None:
            assert a is None and b is None, field
        else:
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=field)


@pytest.mark.parametrize("dense", [True, False], ids=["dense", "csr"])
@pytest.mark.parametrize("svm_type,kernel,extra", [
    ("c_svc", "rbf", dict(probability=True, random_state=0, class_weight={1: 2.0})),
    ("c_svc", "linear", dict(linear_solver="primal")),
    ("c_svc", "poly", dict(degree=2)),
    ("nu_svc", "rbf", {}),
    ("one_class", "rbf", {}),
    ("epsilon_svr", "rbf", dict(probability=True, random_state=0)),
    ("nu_svr", "linear", {}),
])
def test_train_and_predict_on_read_only_arrays(dense, svm_type, kernel, extra):
    X, y = load_dataset("heart_scale", dense=dense)
    weights = np.linspace(0.5, 1.5, len(y))
    if svm_type in ("epsilon_svr", "nu_svr"):
        y = X[:, 0].toarray().ravel() if sp.issparse(X) else X[:, 0].copy()
        X = X[:, 1:]
    reference = libsmo.train(X, y, svm_type=svm_type, kernel=kernel,
                             sample_weight=weights, **extra)
    Xr, yr, wr = frozen(X), frozen(y), frozen(weights)
    model = libsmo.train(Xr, yr, svm_type=svm_type, kernel=kernel, sample_weight=wr,
                         **extra)
    same_model(model, reference)
    np.testing.assert_array_equal(model.decision_function(Xr),
                                  reference.decision_function(X))
    np.testing.assert_array_equal(model.predict(Xr), reference.predict(X))
    if extra.get("probability") and svm_type == "c_svc":
        np.testing.assert_array_equal(model.predict_proba(Xr), reference.predict_proba(X))
    # a warm start from a model whose arrays are read-only
    start = model.replace(sv_coef=frozen(model.sv_coef), rho=frozen(model.rho))
    warm = libsmo.train(Xr, yr, svm_type=svm_type, kernel=kernel, sample_weight=wr,
                        init=start, **extra)
    np.testing.assert_allclose(warm.objective, reference.objective, rtol=1e-3)


def test_precomputed_kernels_read_only(heart_scale):
    X, y = heart_scale
    X = X.toarray()
    K = X @ X.T
    reference = libsmo.train(K, y, kernel="precomputed", C=0.5)
    model = libsmo.train(frozen(K), frozen(y), kernel="precomputed", C=0.5)
    same_model(model, reference)
    np.testing.assert_array_equal(model.decision_function(frozen(K[:50])),
                                  reference.decision_function(K[:50]))
    clf = libsmo.SVC(kernel="precomputed").fit(frozen(K), frozen(y))
    np.testing.assert_array_equal(clf.support_, libsmo.SVC(kernel="precomputed")
                                  .fit(K, y).support_)


def test_estimators_and_cross_validation_on_read_only_arrays(heart_scale):
    X, y = heart_scale
    for Xs in (X, X.toarray()):
        Xr, yr = frozen(Xs), frozen(y)
        for cls, target in ((libsmo.SVC, y), (libsmo.NuSVC, y), (libsmo.SVR, y),
                            (libsmo.NuSVR, y), (libsmo.OneClassSVM, None)):
            ours = cls().fit(Xr, None if target is None else yr,
                             sample_weight=frozen(np.ones(len(y))))
            reference = cls().fit(Xs, target)
            np.testing.assert_array_equal(ours.predict(Xr), reference.predict(Xs))
        a = libsmo.cross_validation(Xr, yr, 5, random_state=1)
        b = libsmo.cross_validation(Xs, y, 5, random_state=1)
        assert a.keys() == b.keys()
        for key in a:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_solver_entries_take_read_only_inputs(heart_scale):
    """The core's Python entries: the solver's p, y, C, alpha and stop flag."""
    from libsmo._core.kernel import Kernel
    from libsmo._core.qmatrix import QMatrix
    from libsmo._core.solvers import solve
    X, y = heart_scale
    X = X.toarray()
    l = len(y)

    def fresh_q(X):
        return QMatrix(Kernel(X, "rbf", 0.1, 3, 0.0), y, 10.0)

    args = (-np.ones(l), y.astype(np.float64), np.ones(l), np.zeros(l))
    reference = solve(fresh_q(X), *args)
    flag = np.zeros(1, dtype=np.int8)
    solution = solve(fresh_q(frozen(X)), *(frozen(a) for a in args), stop_flag=frozen(flag))
    assert solution.status == reference.status == "optimal"
    np.testing.assert_array_equal(solution.alpha, reference.alpha)
    assert solution.rho == reference.rho


def test_loky_with_memory_mapped_inputs():
    """Pairs as loky tasks whose every array argument is memory-mapped read-only
    (max_nbytes=0: the stop flag too, as Ray hands it over): the one-process model."""
    X, y = load_dataset("pendigits", n_rows=600)
    reference = libsmo.train(X, y, C=4.0, gamma=0.05, probability=True, random_state=3)
    with joblib.parallel_config(backend="loky", n_jobs=2, max_nbytes=0):
        model = libsmo.train(X, y, C=4.0, gamma=0.05, probability=True, random_state=3,
                             n_jobs=2)
        clf = libsmo.SVC(C=4.0, gamma=0.05, n_jobs=2).fit(X, y)
    same_model(model, reference)
    np.testing.assert_array_equal(clf.predict(X), libsmo.SVC(C=4.0, gamma=0.05)
                                  .fit(X, y).predict(X))


def test_np_memmap_input(tmp_path, heart_scale):
    X, y = heart_scale
    X = X.toarray()
    path = tmp_path / "X.dat"
    X.tofile(path)
    mapped = np.memmap(path, dtype=np.float64, mode="r", shape=X.shape)
    same_model(libsmo.train(mapped, y), libsmo.train(X, y))


@pytest.mark.slow
def test_ray_backend_fit():
    """joblib's Ray backend: the pairs run on Ray's workers, whose arrays are
    read-only. Ray is the slow set's requirement (requirements/slow.txt), not the
    default suite's: it takes minutes to install."""
    import ray
    from ray.util.joblib import register_ray
    from sklearn.datasets import load_digits
    register_ray()
    X, y = load_digits(return_X_y=True)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with joblib.parallel_config(backend="ray"):
            clf = libsmo.SVC(n_jobs=2).fit(X, y)
    finally:
        ray.shutdown()
    np.testing.assert_array_equal(clf.support_, libsmo.SVC().fit(X, y).support_)


@pytest.mark.parametrize("dense", [True, False], ids=["dense", "csr"])
@pytest.mark.parametrize("make", [
    lambda: libsmo.LinearSVC(loss="hinge", random_state=0),
    lambda: libsmo.LinearSVC(dual=False),
    lambda: libsmo.LinearSVC(penalty="l1", dual=False, C=0.1, random_state=0),
    lambda: libsmo.LinearSVC(multi_class="crammer_singer", random_state=0),
    lambda: libsmo.LinearSVR(random_state=0),
    lambda: libsmo.LinearSVR(loss="squared_epsilon_insensitive", dual=False),
], ids=["svc-hinge", "svc-primal", "svc-l1", "svc-cs", "svr-dual", "svr-primal"])
def test_linear_estimators_read_frozen_arrays(make, dense):
    """The linear solvers read rows, targets and weights in place: frozen ones give the
    writable copies' coef_ and intercept_ bit for bit."""
    X, y = load_dataset("heart_scale")
    X = X.toarray() if dense else X
    weights = np.linspace(0.5, 2.0, X.shape[0])
    ours = make().fit(frozen(X), frozen(y), sample_weight=frozen(weights))
    reference = make().fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(ours.coef_, reference.coef_)
    np.testing.assert_array_equal(ours.intercept_, reference.intercept_)
    np.testing.assert_array_equal(ours.predict(frozen(X)), reference.predict(X))
