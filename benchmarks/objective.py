"""The dual objective of a fit, from its support vectors and dual coefficients: one
function for every library, so that objectives compared in a table were computed the
same way (not one library's printed line against another's own sum).

For the coefficients a of one binary problem (LIBSVM's sv_coef: y_i alpha_i; for SVR
alpha_i - alpha_i*) and K the kernel matrix of its support vectors:

- C-SVC: 1/2 a'Ka - sum |a| (LIBSVM's dual, its "obj =" line);
- nu-SVC: 1/2 a'Ka (LIBSVM prints the objective before scaling a by 1/r, which the
  model does not keep: this is that objective over r^2, the same function of the
  coefficients for every library);
- one-class: 1/2 a'Ka;
- epsilon-SVR: 1/2 a'Ka + epsilon sum |a| - z'a (z the targets);
- nu-SVR: 1/2 a'Ka - z'a;

summed over the one-vs-one pairs. Pair (i, j) of a classifier takes class i's support
vectors with their coefficients of row j - 1 and class j's with those of row i (LIBSVM's
layout, scikit-learn's too). The kernel matrix is never held whole: rows of it are made
block by block against every support vector, and every pair's quadratic form is
accumulated at once (K A, with A the coefficients of each pair as columns); the linear
kernel goes through the primal weights SV'a instead.
"""
import numpy as np
import scipy.sparse as sp

# one block of kernel rows against every support vector: at most this many bytes
BLOCK_BYTES = 64 * 2**20
# support vectors are densified for the block products when they take at most this
DENSE_BYTES = 512 * 2**20
# the linear kernel's primal weights are formed for this many pairs at a time
PAIRS_AT_ONCE = 64


def pair_coefficients(dual_coef, n_support):
    """A: one column per one-vs-one pair, the pair's coefficient of each support vector
    (0 for the support vectors of the other classes).

    Parameters
    ----------
    dual_coef : ndarray of shape (k - 1, n_SV)
    n_support : ndarray of int, shape (k,)

    Returns
    -------
    ndarray of shape (n_SV, k (k - 1) / 2)
    """
    k = len(n_support)
    start = np.concatenate([[0], np.cumsum(n_support)])
    n_sv = dual_coef.shape[1]
    columns = []
    for i in range(k):
        for j in range(i + 1, k):
            a = np.zeros(n_sv)
            a[start[i]:start[i + 1]] = dual_coef[j - 1, start[i]:start[i + 1]]
            a[start[j]:start[j + 1]] = dual_coef[i, start[j]:start[j + 1]]
            columns.append(a)
    return np.column_stack(columns) if columns else np.zeros((n_sv, 0))


def _dense_enough(S):
    return not sp.issparse(S) or S.shape[0] * S.shape[1] * 8 <= DENSE_BYTES


def quadratic_forms(S, A, kernel, gamma=None, degree=3, coef0=0.0):
    """diag(A' K A) for K the kernel matrix of the rows of S, without holding K.

    Parameters
    ----------
    S : ndarray or CSR matrix of shape (n, d)
        The support vectors.
    A : ndarray of shape (n, p)
    kernel : str
        "linear", "rbf", "poly" or "sigmoid" (LIBSVM's formulas).

    Returns
    -------
    ndarray of shape (p,)
    """
    n, p = A.shape
    if kernel == "linear":
        out = np.empty(p)
        St = S.T.tocsr() if sp.issparse(S) else S.T
        for first in range(0, p, PAIRS_AT_ONCE):
            W = np.asarray(St @ A[:, first:first + PAIRS_AT_ONCE])
            out[first:first + PAIRS_AT_ONCE] = np.einsum("ij,ij->j", W, W)
        return out
    if kernel not in ("rbf", "poly", "sigmoid"):
        raise ValueError(f"no kernel {kernel!r} here (linear, rbf, poly, sigmoid)")
    if _dense_enough(S):
        S = S.toarray() if sp.issparse(S) else np.asarray(S, dtype=np.float64)
        sq = np.einsum("ij,ij->i", S, S)
    else:
        S = S.tocsr()
        sq = np.asarray(S.multiply(S).sum(axis=1)).ravel()
    block = max(1, int(BLOCK_BYTES // (8 * max(n, 1))))
    total = np.zeros(p)
    ST = S.T
    for first in range(0, n, block):
        rows = slice(first, min(n, first + block))
        dots = S[rows] @ ST
        dots = dots.toarray() if sp.issparse(dots) else np.asarray(dots)
        if kernel == "rbf":
            K = np.exp(-gamma * np.maximum(sq[rows, None] + sq[None, :] - 2.0 * dots, 0.0))
        elif kernel == "poly":
            K = (gamma * dots + coef0) ** degree
        else:
            K = np.tanh(gamma * dots + coef0)
        total += np.einsum("ij,ij->j", A[rows], K @ A)
    return total


def dual_objective(fit, X, y, svm_type, kernel, gamma=None, degree=3, coef0=0.0,
                   epsilon=0.1, support_vectors=None):
    """The dual objective of `fit` (summed over its binary problems), from its
    coefficients and the training rows its support indices point to.

    Parameters
    ----------
    fit : benchmarks.peers.Fit
    X : ndarray or CSR matrix
        The training rows the fit was trained on.
    y : ndarray
        Their labels or targets (SVR's z).
    svm_type, kernel : str
    gamma, degree, coef0, epsilon : the kernel's and formulation's parameters
    support_vectors : ndarray or CSR matrix, optional
        The support vectors themselves, for a fit whose indices are not rows of X
        (then y is indexed by `fit.support` only for SVR's targets).

    Returns
    -------
    float
    """
    support = np.asarray(fit.support, dtype=np.int64)
    S = X[support] if support_vectors is None else support_vectors
    coef = np.asarray(fit.dual_coef, dtype=np.float64)
    if svm_type in ("c_svc", "nu_svc"):
        A = pair_coefficients(coef, np.asarray(fit.n_support))
    else:
        A = coef[:1].T
    quad = 0.5 * quadratic_forms(S, A, kernel, gamma, degree, coef0)
    if svm_type == "c_svc":
        return float(np.sum(quad - np.abs(A).sum(axis=0)))
    if svm_type in ("nu_svc", "one_class"):
        return float(np.sum(quad))
    b, z = A[:, 0], np.asarray(y, dtype=np.float64)[support]
    if svm_type == "epsilon_svr":
        return float(quad[0] + epsilon * np.abs(b).sum() - z @ b)
    if svm_type == "nu_svr":
        return float(quad[0] - z @ b)
    raise ValueError(f"unknown svm_type {svm_type!r}")


def case_objective(fit, X, y, case):
    """`dual_objective` with a `benchmarks.cases.Case`'s parameters."""
    return dual_objective(fit, X, y, case.svm_type, case.kernel, gamma=case.gamma,
                          epsilon=case.epsilon)
