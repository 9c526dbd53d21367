"""LIBSVM's formulations as thin adapters onto the one SMO solver.

This module groups the classes, builds (Q, p, y, C) for the solver, runs it, and turns
its alphas into a `Model`. The solver knows nothing of classes or support vectors.
"""
import logging
import os

import numpy as np
import scipy.sparse as sp

from libsmo import _validation as v
from libsmo._cache import QMatrix
from libsmo._kernel import Kernel
from libsmo._smo import solve
from libsmo.model import Model

logger = logging.getLogger("libsmo")


def group_classes(y):
    """Class labels in LIBSVM's order and each example's class index.

    Labels are ordered by first appearance, except that two-class data labelled -1/+1
    puts +1 first, so that the binary SVM's positive side is the +1 class (LIBSVM's
    svm_group_classes).

    Returns
    -------
    classes : ndarray
    index : ndarray of int
        For each example, the position of its label in `classes`.
    """
    uniq, first, inverse = np.unique(y, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    classes = uniq[order]
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    index = rank[inverse.ravel()]
    if (len(classes) == 2 and y.dtype.kind in "iuf"
            and classes[0] == -1 and classes[1] == 1):
        classes = classes[::-1].copy()
        index = 1 - index
    return classes, index


def _resolve_threads(n_threads):
    if n_threads is None:
        return os.cpu_count() or 1
    return v.check_positive(n_threads, "n_threads", integer=True)


def _progress_logger(info):
    logger.info("iter %d: active %d, violation %.3g, objective %.6f",
                info["n_iter"], info["active_size"], info["violation"], info["objective"])


def _enable_verbose_output():
    """verbose=True promises output: give the libsmo logger a stderr handler when the
    application configured none."""
    if not logger.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)


def train(X, y, *, kernel="rbf", C=1.0, gamma=None, degree=3, coef0=0.0, tol=1e-3,
          cache_size=100, shrinking=True, selection="second_order", max_iter=None,
          verbose=False, callback=None, callback_every=1000, n_threads=1):
    """Train a C-support vector classifier with SMO.

    Parameters
    ----------
    X : array-like of shape (n, d) or scipy sparse matrix
        Training rows. Sparse input stays sparse (CSR) all the way. For
        kernel="precomputed", the n x n Gram matrix.
    y : array-like of shape (n,)
        Two distinct labels (numbers or strings).
    kernel : {"rbf", "linear", "poly", "sigmoid", "precomputed"}
        LIBSVM's kernels: u'v, (gamma u'v + coef0)^degree, exp(-gamma |u-v|^2),
        tanh(gamma u'v + coef0), or a user-supplied Gram matrix.
    C : float > 0
        Box constraint.
    gamma : float >= 0 or None
        Kernel coefficient; None means 1 / n_features, as LIBSVM.
    degree : int >= 0
    coef0 : float
    tol : float > 0
        Stopping tolerance on the maximal violation m(a) - M(a), LIBSVM's -e.
    cache_size : float > 0
        Kernel row cache in megabytes, LIBSVM's -m.
    shrinking : bool
        LIBSVM's -h.
    selection : {"second_order", "platt"}
        Partner choice: Fan, Chen and Lin's second-order rule (fast, LIBSVM's) or
        Platt's original heuristics.
    max_iter : int > 0 or None
        Stop after this many SMO steps; the model's status then says "max_iter".
    verbose : bool
        Log progress and LIBSVM's summary lines on the "libsmo" logger.
    callback : callable or None
        Called every `callback_every` steps with a dict (n_iter, active_size, violation,
        objective); return False to stop (status "stopped"). An exception it raises
        ends training and reaches the caller.
    callback_every : int > 0
        Steps between callback calls (the solver checks at most every 32 steps).
    n_threads : int or None
        OpenMP threads for long kernel rows; None uses every core. The default, 1, is
        what LIBSVM uses: threads speed up a fit on an idle machine (about 1.25x with
        two cores on a9a) but slow it down many times when another process holds a
        core, since every kernel row waits for its slowest thread.

    Returns
    -------
    Model

    Raises
    ------
    ValueError, TypeError
        Bad data or parameters; the message names the parameter and its value.
    """
    if kernel == "precomputed":
        X = v.check_precomputed(X, "X")
    else:
        X = v.check_data(X, "X")
    y = v.check_labels(y, X.shape[0])
    kernel, gamma, degree, coef0 = v.check_kernel_params(kernel, gamma, degree, coef0,
                                                         X.shape[1])
    C = v.check_positive(C, "C")
    tol = v.check_positive(tol, "tol")
    cache_size = v.check_positive(cache_size, "cache_size")
    if not isinstance(shrinking, (bool, np.bool_)):
        raise TypeError(f"shrinking must be True or False, got {shrinking!r}")
    selection = v.check_choice(selection, "selection", v.SELECTIONS)
    if max_iter is not None:
        max_iter = v.check_positive(max_iter, "max_iter", integer=True)
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable, got {callback!r}")
    callback_every = v.check_positive(callback_every, "callback_every", integer=True)
    n_threads = _resolve_threads(n_threads)

    classes, index = group_classes(y)
    if len(classes) < 2:
        raise ValueError(f"y has a single class ({np.asarray(classes[0]).item()!r}); "
                         "C-SVC needs two")
    if len(classes) > 2:
        raise ValueError(f"y has {len(classes)} classes; libsmo.train handles two classes "
                         "for now")
    if verbose:
        _enable_verbose_output()
        if callback is None:
            callback = _progress_logger

    # LIBSVM trains on the examples of the first class, then those of the second, each
    # in the order given; keeping that order keeps the solver's path the same as LIBSVM's
    order = np.concatenate([np.flatnonzero(index == 0), np.flatnonzero(index == 1)])
    n_pos = int(np.count_nonzero(index == 0))
    signs = np.where(np.arange(len(order)) < n_pos, 1.0, -1.0)
    kern = Kernel(X, kernel, gamma, degree, coef0, rows=order, n_threads=n_threads)
    Q = QMatrix(kern, signs, cache_size)
    result = solve(Q, -np.ones(len(order)), signs, np.full(len(order), C), tol=tol,
                   shrinking=bool(shrinking), selection=selection, max_iter=max_iter,
                   callback=callback, callback_every=callback_every)
    alpha = result["alpha"]
    is_sv = alpha > 0
    support = order[is_sv]
    n_support = [int(np.count_nonzero(is_sv[:n_pos])), int(np.count_nonzero(is_sv[n_pos:]))]
    sv_coef = (signs * alpha)[is_sv][None, :]
    if verbose:
        n_bsv = int(np.count_nonzero(alpha >= C))
        logger.info("optimization finished, #iter = %d", result["n_iter"])
        logger.info("obj = %.6f, rho = %.6f", result["objective"], result["rho"])
        logger.info("nSV = %d, nBSV = %d", int(is_sv.sum()), n_bsv)
    if result["status"] != "optimal":
        logger.warning("libsmo: training stopped before the optimum (%s after %d steps)",
                       result["status"], result["n_iter"])
    if kernel == "precomputed":
        support_vectors = None
    else:
        support_vectors = X[support]
        if sp.issparse(support_vectors):
            support_vectors = sp.csr_matrix(support_vectors)
    return Model(svm_type="c_svc", kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                 classes=classes, n_support=n_support, support_vectors=support_vectors,
                 support=support, sv_coef=sv_coef, rho=[result["rho"]],
                 n_features=X.shape[1], n_iter=[result["n_iter"]],
                 objective=[result["objective"]], status=[result["status"]])
