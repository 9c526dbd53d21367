"""LIBSVM (libsvm-official, the Python binding of LIBSVM 3.3x) as the benchmarks run it:
svm_train on an svm_problem built before the clock starts (svm-train would have read it
from its file), with svm-train's options for the case.

libsvm-official is built with OpenMP: its threads are OMP_NUM_THREADS, read once when
its library loads, so a script sets that variable before this module's functions run
(run.py sets it in each child's environment).
"""
import re

import numpy as np

from benchmarks.peers._fit import CACHE_MB, TOL, Fit, dist_version

NAME = "libsvm"
SVM_TYPES = {"c_svc": 0, "nu_svc": 1, "one_class": 2, "epsilon_svr": 3, "nu_svr": 4}
KERNELS = {"linear": 0, "poly": 1, "rbf": 2, "sigmoid": 3}


def version():
    return dist_version("libsvm-official")


def reader():
    """LIBSVM's reader (svm_read_problem, as scipy): read(path, n_features) -> (X, y)."""
    from libsvm.svmutil import svm_read_problem

    def read(path, n_features):
        y, X = svm_read_problem(path, return_scipy=True)
        X = X.tocsr()
        if n_features is not None and X.shape[1] < n_features:
            X.resize((X.shape[0], n_features))
        return X, np.asarray(y, dtype=np.float64)
    return read


def options(case, cache_mb=CACHE_MB, **extra):
    """svm-train's option string for a case (-q is not given: the "obj =" and "#iter ="
    lines are read), with any other parameter as extra (nu=..., degree=...)."""
    params = dict(C=case.C, gamma=case.gamma, epsilon=case.epsilon, **extra)
    text = f"-s {SVM_TYPES[case.svm_type]} -t {KERNELS[case.kernel]}"
    flags = {"C": "-c", "gamma": "-g", "epsilon": "-p", "nu": "-n", "degree": "-d",
             "coef0": "-r"}
    for key, flag in flags.items():
        if params.get(key) is not None:
            text += f" {flag} {params[key]!r}"
    return text + f" -e {TOL!r} -m {cache_mb:g} -h 1"


def printed_figures(text):
    """(sum of the "obj = ..." values, sum of the "#iter = " counts) LIBSVM printed."""
    objectives = re.findall(r"obj = (\S+),", text)
    if not objectives:
        raise RuntimeError(f"no 'obj = ...' line in LIBSVM's output:\n{text[-2000:]}")
    n_iter = sum(int(v) for v in re.findall(r"#iter = (\d+)", text))
    return float(sum(float(v) for v in objectives)), n_iter


def fit_from_model(model, printed):
    """A libsvm-official svm_model's answer as a `Fit` (`printed`: what it printed)."""
    k = model.get_nr_class()
    coef = np.array(model.get_sv_coef(), dtype=np.float64).reshape(model.l, -1).T
    n_support = (np.array([model.nSV[i] for i in range(k)])
                 if model.get_svm_type() in (0, 1) else None)
    n_pairs = max(k * (k - 1) // 2, 1)
    objective, n_iter = printed_figures(printed)

    def predict(Xt):
        if model.get_svm_type() == SVM_TYPES["nu_svc"] and k > 2:
            return predict_nu_svc(model, Xt)
        from libsvm.svmutil import svm_predict
        labels, _, _ = svm_predict(np.zeros(Xt.shape[0]), Xt, model, "-q")
        return np.asarray(labels)
    return Fit(predict=predict, support=np.array(model.get_sv_indices(), dtype=np.int64) - 1,
               dual_coef=coef, n_support=n_support,
               rho=np.array([model.rho[i] for i in range(n_pairs)]), n_iter=n_iter,
               reported_objective=objective)


def predict_nu_svc(model, Xt):
    """Labels of a multi-class nu-SVC model, row by row through the C
    svm_predict_values with a buffer of k (k - 1) / 2 values: libsvm-official 3.37's
    Python svm_predict allots one decision value for NU_SVC (it means NU_SVR) and so
    overflows the heap on such models."""
    from ctypes import c_double

    import scipy.sparse as sp
    from libsvm.svm import gen_svm_nodearray, libsvm
    k = model.get_nr_class()
    buffer = (c_double * (k * (k - 1) // 2))()
    Xt = sp.csr_matrix(Xt)
    labels = np.empty(Xt.shape[0])
    for i in range(Xt.shape[0]):
        part = slice(Xt.indptr[i], Xt.indptr[i + 1])
        nodes = gen_svm_nodearray((Xt.indices[part], Xt.data[part]))[0]
        labels[i] = libsvm.svm_predict_values(model, nodes, buffer)
    return labels


def prepare(case, X, y, threads=None, cache_mb=CACHE_MB, **extra):
    """The svm_problem and svm_parameter, built before the clock starts, and the
    function that trains (`threads` is OMP_NUM_THREADS, set by the caller; `extra`:
    more of svm-train's parameters, nu=..., by name).

    Returns
    -------
    callable
        fit() -> `Fit`.
    """
    from libsvm.svm import PRINT_STRING_FUN
    from libsvm.svmutil import svm_parameter, svm_problem, svm_train
    problem = svm_problem(y, X)
    parameter = svm_parameter(options(case, cache_mb, **extra))
    printed = []
    # LIBSVM's messages through a Python callback (svm_train installs it): a handful
    # of lines a binary problem, so no measurable cost
    parameter.print_func = PRINT_STRING_FUN(lambda text: printed.append(text.decode()))

    def fit():
        printed.clear()
        model = svm_train(problem, parameter)
        fit_result = fit_from_model(model, "".join(printed))
        # the model's support vectors point into the problem's nodes: keep it alive
        # as long as the model
        model.problem = problem
        return fit_result
    return fit
