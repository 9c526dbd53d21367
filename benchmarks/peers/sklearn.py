"""scikit-learn's SVC / SVR as the benchmarks run them (its bundled LIBSVM, which has no
threads), and the estimator fit that scikit-learn-intelex's module shares."""
import numpy as np

from benchmarks.peers._fit import CACHE_MB, TOL, Fit, dist_version

NAME = "sklearn"


def version():
    return dist_version("scikit-learn")


def int32_indices(X):
    """CSR X with int32 index arrays (scikit-learn's SVC refuses int64 ones): a copy a
    user of scikit-learn's reader pays."""
    if not hasattr(X, "indptr") or (X.indices.dtype == np.int32
                                    and X.indptr.dtype == np.int32):
        return X
    X = X.copy()
    X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
    return X


def reader():
    """scikit-learn's reader of LIBSVM files, imported: read(path, n_features) -> (X, y),
    X's indices cast to int32 (its SVC refuses the int64 ones the reader returns)."""
    from sklearn.datasets import load_svmlight_file

    def read(path, n_features):
        X, y = load_svmlight_file(path, n_features=n_features)
        return int32_indices(X.tocsr()), np.asarray(y, dtype=np.float64)
    return read


def estimator_params(case):
    """The keyword arguments of SVC / SVR for a case: LIBSVM's tolerance, cache and
    shrinking, gamma always given (unused by the linear kernel; given so that "scale"
    is not computed)."""
    params = dict(kernel=case.kernel, C=case.C, tol=TOL, cache_size=CACHE_MB,
                  shrinking=True, gamma=case.gamma if case.gamma is not None else 1.0)
    if case.svm_type == "epsilon_svr":
        params["epsilon"] = case.epsilon
    elif case.svm_type != "c_svc":
        raise ValueError(f"the estimators' benchmark runs c_svc and epsilon_svr, not "
                         f"{case.svm_type}")
    return params


def fit_from_estimator(estimator, predict=None):
    """A fitted scikit-learn-style SVC / SVR's answer as a `Fit` (`predict`: its
    prediction, default the estimator's own)."""
    coef = estimator.dual_coef_
    # sparse after a sparse fit, as scikit-learn's
    coef = coef.toarray() if hasattr(coef, "toarray") else np.asarray(coef)
    classifier = hasattr(estimator, "classes_")
    n_iter = getattr(estimator, "n_iter_", None)
    return Fit(predict=predict or estimator.predict,
               support=np.asarray(estimator.support_, dtype=np.int64),
               dual_coef=np.asarray(coef, dtype=np.float64),
               n_support=np.asarray(estimator.n_support_) if classifier else None,
               rho=-np.asarray(estimator.intercept_, dtype=np.float64),
               n_iter=int(np.sum(n_iter)) if n_iter is not None else None)


def prepare_estimator(SVC, SVR, case, X, y, predict_int32=False, **extra):
    """The estimator made before the clock starts, and the function that fits it.

    With `predict_int32` the test rows' CSR indices are cast to int32 inside
    prediction (scikit-learn's SVC refuses int64 ones: a copy its users pay).

    Returns
    -------
    callable
        fit() -> `Fit`.
    """
    kind = SVR if case.svm_type == "epsilon_svr" else SVC
    estimator = kind(**estimator_params(case), **extra)
    X = int32_indices(X)

    def predict(Xt):
        return estimator.predict(int32_indices(Xt))

    def fit():
        estimator.fit(X, y)
        return fit_from_estimator(estimator, predict if predict_int32 else None)
    return fit


def prepare(case, X, y, threads=None):
    """scikit-learn's SVC / SVR for the case (`threads` unused: it has none).

    Returns
    -------
    callable
        fit() -> `Fit`.
    """
    from sklearn.svm import SVC, SVR
    return prepare_estimator(SVC, SVR, case, X, y, predict_int32=True)
