"""Running the peers (libsvm-official) on the same data and reading their answers in
libsmo's terms, for the comparison tests."""
import re

import numpy as np
import scipy.sparse as sp

from libsmo._blocks.kernel_block import kernel_block

KERNEL_CODES = {"linear": 0, "poly": 1, "rbf": 2, "sigmoid": 3, "precomputed": 4}
SVM_TYPE_CODES = {"c_svc": 0, "nu_svc": 1, "one_class": 2, "epsilon_svr": 3, "nu_svr": 4}
_captured = []
_print_hook = None


def _collecting_print_hook():
    """A LIBSVM print function that appends its messages to `_captured` (emptied)."""
    global _print_hook
    from libsvm.svm import PRINT_STRING_FUN
    if _print_hook is None:
        _print_hook = PRINT_STRING_FUN(lambda text: _captured.append(text.decode()))
    _captured.clear()
    return _print_hook


def libsvm_train(X, y, *, svm_type="c_svc", kernel="rbf", C=1.0, nu=0.5, epsilon=0.1,
                 gamma=None, degree=3, coef0=0.0, tol=1e-3, shrinking=True,
                 cache_size=100, class_weight=None, probability=False):
    """Train libsvm-official; returns its svm_model with `objectives` (one per binary
    problem, parsed from LIBSVM's "obj = " lines) attached."""
    from libsvm.svmutil import svm_parameter, svm_problem, svm_train
    if gamma is None:
        gamma = 1.0 / X.shape[1]
    if kernel == "precomputed":
        ids = np.arange(1, X.shape[0] + 1, dtype=np.float64)[:, None]
        prob = svm_problem(list(y), np.hstack([ids, np.asarray(X)]), isKernel=True)
    else:
        prob = svm_problem(list(y), sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X))
    options = (f"-s {SVM_TYPE_CODES[svm_type]} -t {KERNEL_CODES[kernel]} -c {C!r} "
               f"-n {nu!r} -p {epsilon!r} -g {gamma!r} -d {degree} -r {coef0!r} "
               f"-e {tol!r} -h {int(shrinking)} -m {cache_size} -b {int(probability)}")
    for label, weight in (class_weight or {}).items():
        options += f" -w{label:g} {weight!r}"
    param = svm_parameter(options)
    param.print_func = _collecting_print_hook()  # svm_train installs it
    model = svm_train(prob, param)
    text = "".join(_captured)
    model.objectives = [float(x) for x in re.findall(r"obj = (\S+),", text)]
    model.output = text
    model.problem = prob  # the model's support vectors point into the problem's nodes
    return model


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


def _rows_as_nodes(X, kernel):
    """LIBSVM node arrays of the rows of X (precomputed: 0:0 then the kernel values)."""
    from libsvm.svm import gen_svm_nodearray
    X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X, dtype=float)
    for i in range(X.shape[0]):
        if kernel == "precomputed":
            yield gen_svm_nodearray(list(np.concatenate([[0.0], X[i]])), isKernel=True)[0]
        elif sp.issparse(X):
            part = slice(X.indptr[i], X.indptr[i + 1])
            yield gen_svm_nodearray((X.indices[part], X.data[part]))[0]
        else:
            yield gen_svm_nodearray(X[i])[0]


def _predict_rows(m, X, kernel):
    """(labels, decision values) from the C svm_predict_values, row by row.

    The Python svm_predict of libsvm-official 3.37 allots one decision value for NU_SVC
    (it means NU_SVR) and so overflows the heap on multi-class nu-SVC models: this
    passes a buffer of the right size.
    """
    from ctypes import c_double

    from libsvm.svm import libsvm
    k = m.get_nr_class()
    n_values = k * (k - 1) // 2 if m.get_svm_type() in (0, 1) else 1
    buffer = (c_double * max(n_values, 1))()
    labels = np.empty(X.shape[0])
    values = np.empty((X.shape[0], n_values))
    for i, nodes in enumerate(_rows_as_nodes(X, kernel)):
        labels[i] = libsvm.svm_predict_values(m, nodes, buffer)
        values[i] = buffer[:n_values]
    return labels, values


def libsvm_load_model(path):
    """libsvm-official's svm_load_model of a model file; ValueError when it cannot."""
    from libsvm.svmutil import svm_load_model
    model = svm_load_model(str(path))
    if model is None:
        raise ValueError(f"libsvm-official could not load {path}")
    return model


def libsvm_predict_values(m, X, kernel="rbf"):
    """(labels, decision values of shape (n, values per row)) of libsvm-official's C
    svm_predict_values, row by row."""
    return _predict_rows(m, X, kernel)


def libsvm_decision(m, X, kernel="rbf"):
    """libsvm-official's decision values for the rows of X: shape (n,) for one value per
    row, else (n, k(k-1)/2) in LIBSVM's pair order."""
    values = _predict_rows(m, X, kernel)[1]
    return values[:, 0] if values.shape[1] == 1 else values


def libsvm_predict(m, X, kernel="rbf"):
    """libsvm-official's predicted labels (or regression values) for the rows of X."""
    return _predict_rows(m, X, kernel)[0]


def dual_objective(sv_coef, SV, kernel, gamma, degree, coef0):
    """1/2 a'Qa - e'a of a binary C-SVC from its support vectors (coef = y * alpha)."""
    K = kernel_block(SV, SV, kernel, gamma, degree, coef0)
    return 0.5 * sv_coef @ K @ sv_coef - np.abs(sv_coef).sum()


def libsvm_predict_proba(m, X, kernel="rbf"):
    """(labels, probabilities) from the C svm_predict_probability, row by row, as
    svm-predict -b 1: probabilities of shape (n, nr_class) in the model's label order
    (one-class: normal, outlier). The buffer is sized from the model, whatever its type.
    """
    from ctypes import c_double

    from libsvm.svm import libsvm
    k = max(m.get_nr_class(), 2)
    buffer = (c_double * k)()
    labels = np.empty(X.shape[0])
    probabilities = np.empty((X.shape[0], k))
    for i, nodes in enumerate(_rows_as_nodes(X, kernel)):
        labels[i] = libsvm.svm_predict_probability(m, nodes, buffer)
        probabilities[i] = buffer[:k]
    return labels, probabilities


def libsvm_seed(seed):
    """Seed C's rand(), which LIBSVM's folds (probability and -v) draw from: the
    libsvm library shares the process's C library, so srand here is srand there. Its
    state otherwise depends on every LIBSVM call made earlier in the process."""
    import ctypes
    ctypes.CDLL(None).srand(int(seed))


def liblinear_train(y, X, options):
    """LIBLINEAR 2.50's `train(y, X, options)`: liblinear-official's, after srand(1) (the
    state a fresh `liblinear-train` process starts from), or liblinear-multicore's at
    its default one thread where that is the importable `liblinear` (the two install
    the same package name, so a machine with both has the one installed last). Skips
    the test without either.

    The dual solvers draw each epoch's order at random: official's from the process's
    rand(), whose state otherwise depends on every LIBSVM and LIBLINEAR call made
    earlier in the process, multicore's from a generator of its own that is seeded
    once per process and never reset. Either way the answer is LIBLINEAR's at one of
    its random orders, and the tests compare within the spread of those (at eps 0.01
    heart_scale's hinge objective moves by 1.7e-4 relative over 200 of them)."""
    import pytest
    util = pytest.importorskip("liblinear.liblinearutil")
    libsvm_seed(1)
    return util.train(y, X, options)
