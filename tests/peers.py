"""Running the peers (libsvm-official) on the same data and reading their answers in
libsmo's terms, for the comparison tests."""
import numpy as np
import scipy.sparse as sp

from libsmo._prediction import kernel_block

KERNEL_CODES = {"linear": 0, "poly": 1, "rbf": 2, "sigmoid": 3, "precomputed": 4}


def libsvm_train(X, y, *, kernel="rbf", C=1.0, gamma=None, degree=3, coef0=0.0,
                 tol=1e-3, shrinking=True, cache_size=100):
    """Train libsvm-official's C-SVC; returns its svm_model."""
    from libsvm.svmutil import svm_parameter, svm_problem, svm_train
    if gamma is None:
        gamma = 1.0 / X.shape[1]
    if kernel == "precomputed":
        ids = np.arange(1, X.shape[0] + 1, dtype=np.float64)[:, None]
        prob = svm_problem(list(y), np.hstack([ids, np.asarray(X)]), isKernel=True)
    else:
        prob = svm_problem(list(y), sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X))
    options = (f"-q -s 0 -t {KERNEL_CODES[kernel]} -c {C!r} -g {gamma!r} -d {degree} "
               f"-r {coef0!r} -e {tol!r} -h {int(shrinking)} -m {cache_size}")
    return svm_train(prob, svm_parameter(options))


def libsvm_summary(m):
    """The fields of a binary libsvm model: labels, nSV per class, 0-based support
    indices, sv_coef and rho."""
    return {
        "labels": np.array(m.get_labels()),
        "n_support": np.array([m.nSV[i] for i in range(m.nr_class)]),
        "support": np.array(m.get_sv_indices()) - 1,
        "sv_coef": np.array([c[0] for c in m.get_sv_coef()]),
        "rho": m.rho[0],
    }


def libsvm_decision(m, X, kernel="rbf"):
    """libsvm-official's decision values (first pair) for the rows of X."""
    from libsvm.svmutil import svm_predict
    if kernel == "precomputed":
        ids = np.zeros((X.shape[0], 1))
        X = np.hstack([ids, np.asarray(X)])
    elif sp.issparse(X):
        X = sp.csr_matrix(X)
    _, _, values = svm_predict([0.0] * X.shape[0], X, m, "-q")
    return np.array([v[0] for v in values])


def dual_objective(sv_coef, SV, kernel, gamma, degree, coef0):
    """1/2 a'Qa - e'a of a binary C-SVC from its support vectors (coef = y * alpha)."""
    K = kernel_block(SV, SV, kernel, gamma, degree, coef0)
    return 0.5 * sv_coef @ K @ sv_coef - np.abs(sv_coef).sum()
