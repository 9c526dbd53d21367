"""LIBSVM's formulations as thin adapters onto the one SMO solver.

Each formulation builds (Q, p, y, C, starting alpha) for `_smo.solve` and turns the
solution into a `Model`:

- C-SVC:      Q_ij = y_i y_j K_ij, p = -1, C_i = C * class weight * sample weight
- nu-SVC:     the same Q, p = 0, C_i = weights, the nu variant started at
              sum(a) = nu l / 2 per class; a, rho and the objective are scaled by 1/r
- one-class:  Q = K, p = 0, C_i = weights, started at sum(a) = nu l
- eps-SVR:    2l variables (a, a*), p = (eps - z, eps + z), y = (+1, -1)
- nu-SVR:     2l variables, p = (-z, z), the nu variant started at sum = C nu l / 2 per
              sign; epsilon = -r

Classification with k classes trains the k(k-1)/2 one-vs-one problems, each on the
examples of its two classes (first class first, each in the order given), as LIBSVM.

With probability=True (LIBSVM's -b 1), `libsmo.probability` adds what LIBSVM adds:
each pair's Platt sigmoid (probA, probB) fitted to decision values from a 5-fold
cross-validation of that pair's problem, each fold trained by the same `_train_pair`;
for the regressions the Laplace scale of 5-fold cross-validated residuals (probA[0]),
each fold trained by `_regression`; for one-class the density marks of the training
decision values. The folds come from numpy's default_rng(random_state).
"""
import copy
import logging
import math
import os
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from libsmo import _validation as v
from libsmo import probability as prob
from libsmo._cache import QMatrix, SVRQMatrix
from libsmo._linear import solve_linear
from libsmo._kernel import Kernel, all_finite, csr_to_dense
from libsmo._prediction import for_each_kernel_block
from libsmo._smo import solve
from libsmo.model import Model

logger = logging.getLogger("libsmo")

SVM_TYPES = ("c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr")


class ConvergenceWarning(UserWarning):
    """Training stopped before the optimum (max_iter or the callback)."""


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


def _greedy_fill(total, upper):
    """Starting point: alpha_k = min(upper_k, what is left of total), in order.

    LIBSVM starts nu-SVC, one-class and nu-SVR this way; it meets sum(alpha) = total
    whenever sum(upper) >= total.
    """
    alpha = np.zeros(len(upper))
    for k, c in enumerate(upper):
        if total <= 0:
            break
        alpha[k] = min(c, total)
        total -= alpha[k]
    return alpha


class _Trainer:
    """What one call of `train` shares across its binary problems."""

    def __init__(self, X, kernel, gamma, degree, coef0, solver_options, cache_size,
                 n_threads, verbose, time_limit=None, primal="never"):
        self.X = X
        self.primal = primal
        self.kernel_args = (kernel, gamma, degree, coef0)
        self.solver_options = solver_options
        self.cache_size = cache_size
        self.n_threads = n_threads
        self.verbose = verbose
        self.deadline = None if time_limit is None else time.monotonic() + time_limit
        self.stop_flag = None
        self.results = []

    def kernel(self, rows):
        kernel, gamma, degree, coef0 = self.kernel_args
        return Kernel(self.X, kernel, gamma, degree, coef0, rows=rows,
                      n_threads=self.n_threads)

    def fork(self, **changes):
        """The same settings with results of its own: for the models of the internal
        cross-validation, which are not part of the returned model's n_iter,
        objective and status, and for pairs trained in parallel (with `changes` to
        n_threads, cache_size and stop_flag)."""
        other = copy.copy(self)
        other.results = []
        for name, value in changes.items():
            setattr(other, name, value)
        return other

    def map_pairs(self, fit, n_pairs):
        """[fit(p, trainer) for p in range(n_pairs)], in order.

        With n_threads > 1 the pairs run on a pool of threads (the solver releases the
        GIL), each on a fork with one kernel thread and an equal share of the cache, so
        the fit stays within cache_size. Ctrl-C or an error in any pair stops the
        others through a shared flag the solvers poll.
        """
        workers = min(self.n_threads, n_pairs)
        if workers <= 1:
            return [fit(p, self) for p in range(n_pairs)]
        stop = np.zeros(1, dtype=np.int8)
        forks = [self.fork(n_threads=1, cache_size=self.cache_size / workers,
                           stop_flag=stop) for _ in range(n_pairs)]
        pool = ThreadPoolExecutor(max_workers=workers)
        futures = []
        try:
            futures.extend(pool.submit(fit, p, forks[p]) for p in range(n_pairs))
            outcomes = [f.result() for f in futures]
        except BaseException:
            # Ctrl-C reaches this thread only: tell the solvers, drop what has not begun
            stop[0] = 1
            for f in futures:
                f.cancel()
            raise
        finally:
            pool.shutdown(wait=True)
        for f in forks:
            self.results.extend(f.results)
        return outcomes

    def decision_values(self, rows, sv, coef, rho):
        """sum_s coef_s K(x_sv[s], x_r) - rho for each row r (indices into X)."""
        out = np.full(len(rows), -float(rho))
        if len(sv) == 0 or len(rows) == 0:
            return out
        kernel, gamma, degree, coef0 = self.kernel_args
        SV = sv if kernel == "precomputed" else _rows(self.X, sv)
        def visit(block, K):
            out[block] += K @ coef

        for_each_kernel_block(visit, self.X, SV, kernel, gamma, degree, coef0, rows=rows)
        return out

    def uses_primal(self, n_variables, nu=False):
        """Whether a binary problem of n_variables goes to the primal solver: always or
        never as linear_solver says, and for "auto" when its Q matrix (float32) is
        larger than twice the cache. Below that, kernel rows are computed about once
        and the kernel solver's fewer, second-order steps win (sector's pairs of ~120
        rows: 3.5x; 5,800 TF-IDF reviews: 2x); above it, evicted rows are computed
        again and again, and passes of O(nnz) over the data win (a9a C=0.05: 14x;
        random Fourier features of 8,000 a9a rows: 6x; 15,849 reviews: 1.2x)."""
        if nu or self.primal == "never":
            return False
        return (self.primal == "always"
                or 4.0 * n_variables * n_variables > 2 * self.cache_size * 2**20)

    def solve_rows(self, rows, signs, p, upper, alpha=None, nu=False):
        """One binary problem on the rows `rows` of X (signs y, linear term p, bounds
        upper, start alpha): with the primal weights for the linear kernel (see
        `uses_primal`), else with cached kernel rows."""
        if self.uses_primal(len(rows), nu):
            return self.run_primal(rows, p, signs, upper, alpha)
        return self.run(QMatrix(self.kernel(rows), signs, self.cache_size), p, signs, upper,
                        alpha, nu)

    def run_primal(self, rows, p, y, C, alpha=None):
        """Solve on the rows X[rows] with the linear kernel's primal solver."""
        options = self._solver_options(len(p))
        del options["shrinking"], options["selection"]  # no kernel rows to shrink or pick
        return self._finish(solve_linear(self.X, rows, p, y, C, alpha,
                                         stop_flag=self.stop_flag, **options))

    def run(self, Q, p, y, C, alpha=None, nu=False):
        """Solve with Q's cached kernel rows."""
        if not all_finite(Q.diagonal()):
            self._overflow()
        return self._finish(solve(Q, p, y, C, alpha, nu=nu, stop_flag=self.stop_flag,
                                  **self._solver_options(len(p))))

    def _solver_options(self, n_variables):
        options = dict(self.solver_options)
        if options["max_iter"] is None:
            # LIBSVM's safety cap: a degenerate problem must still end
            options["max_iter"] = max(10_000_000, 100 * n_variables)
        if self.deadline is not None:
            options["time_limit"] = max(0.0, self.deadline - time.monotonic())
        return options

    def _finish(self, result):
        """Check, keep and report one solver result."""
        if not (result["finite"] and math.isfinite(result["rho"])):
            self._overflow()
        self.results.append(result)
        if self.verbose:
            logger.info("optimization finished, #iter = %d", result["n_iter"])
        if result["status"] != "optimal":
            warnings.warn(f"libsmo: training stopped before the optimum "
                          f"({result['status']} after {result['n_iter']} steps)",
                          ConvergenceWarning, stacklevel=5)
        return result

    def _overflow(self):
        kernel, gamma, degree, coef0 = self.kernel_args
        raise ValueError(
            f"the {kernel} kernel overflows on this data (gamma={gamma}, degree={degree}, "
            f"coef0={coef0}): kernel values are inf or NaN; scale the features (for "
            "example to [-1, 1]) or lower gamma or degree")

    def log_summary(self, objective, rho, coef, upper):
        if self.verbose:
            n_sv = int(np.count_nonzero(coef))
            n_bsv = int(np.count_nonzero(np.abs(coef) >= upper * (1 - 1e-12)))
            logger.info("obj = %f, rho = %f", objective, rho)
            logger.info("nSV = %d, nBSV = %d", n_sv, n_bsv)


def _classification(trainer, y, kept, svm_type, C, nu, class_weight, weights, rng=None):
    """One-vs-one classification; with a Generator `rng`, also each pair's probA, probB."""
    classes, index = group_classes(y)
    k = len(classes)
    if k < 2:
        raise ValueError(f"y has a single class ({np.asarray(classes[0]).item()!r}); "
                         f"{svm_type} needs at least two")
    class_factor = np.ones(k)
    if class_weight and svm_type == "nu_svc":
        # LIBSVM (and scikit-learn) multiply C by the class weights; nu-SVC has no C
        warnings.warn("class_weight has no effect on nu_svc, as in LIBSVM: class weights "
                      "scale C, which nu-SVC does not have", UserWarning, stacklevel=3)
        class_weight = None
    if class_weight is not None:
        if not isinstance(class_weight, dict):
            raise TypeError(f"class_weight must be a dict label -> weight, got "
                            f"{type(class_weight).__name__}")
        position = {np.asarray(c).item(): i for i, c in enumerate(classes)}
        for label, w in class_weight.items():
            w = v.check_positive(w, f"class_weight[{label!r}]")
            key = np.asarray(label).item()
            if key not in position:
                warnings.warn(f"class label {label!r} specified in class_weight is not "
                              "found in y", UserWarning, stacklevel=3)
                continue
            class_factor[position[key]] = w
    members = [np.flatnonzero(index == c) for c in range(k)]
    if svm_type == "nu_svc":
        mass = [weights[m].sum() for m in members]
        for a in range(k):
            for b in range(a + 1, k):
                if nu * (mass[a] + mass[b]) / 2 > min(mass[a], mass[b]):
                    raise ValueError(
                        f"nu={nu} is infeasible for classes {np.asarray(classes[a]).item()!r} "
                        f"and {np.asarray(classes[b]).item()!r} ({mass[a]:g} and {mass[b]:g} "
                        "examples): it must "
                        "be at most 2 * min(n1, n2) / (n1 + n2)")
    n = len(y)
    pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
    # one generator per pair, drawn in order: the probabilities do not depend on how
    # many pairs run at once
    pair_rngs = ([None] * len(pairs) if rng is None else
                 [np.random.default_rng(s) for s in rng.integers(2**63, size=len(pairs))])

    def fit(p, pair_trainer):
        a, b = pairs[p]
        factors = (class_factor[a], class_factor[b])
        sigmoid = None
        if rng is not None:
            sigmoid = _pair_probability(pair_trainer, kept, members[a], members[b],
                                        svm_type, C, nu, factors, weights, pair_rngs[p])
        return sigmoid, _train_pair(pair_trainer, kept, members[a], members[b], svm_type,
                                    C, nu, factors, weights)

    outcomes = trainer.map_pairs(fit, len(pairs))
    nonzero = np.zeros(n, dtype=bool)
    pair_coef = []
    rhos = []
    for _, (rows, coef, rho) in outcomes:
        nonzero[rows[coef != 0]] = True
        pair_coef.append((rows, coef))
        rhos.append(rho)
    probA = [sigmoid[0] for sigmoid, _ in outcomes if sigmoid is not None]
    probB = [sigmoid[1] for sigmoid, _ in outcomes if sigmoid is not None]
    # support vectors grouped by class, in training order within each class
    sv_rows = np.concatenate([m[nonzero[m]] for m in members])
    position = np.full(n, -1)
    position[sv_rows] = np.arange(len(sv_rows))
    sv_coef = np.zeros((k - 1, len(sv_rows)))
    pair = 0
    for a in range(k):
        for b in range(a + 1, k):
            rows, coef = pair_coef[pair]
            n_a = len(members[a])
            for part, row_slice, line in ((rows[:n_a], slice(0, n_a), b - 1),
                                          (rows[n_a:], slice(n_a, None), a)):
                mask = nonzero[part]
                sv_coef[line, position[part[mask]]] = coef[row_slice][mask]
            pair += 1
    if trainer.verbose:
        logger.info("Total nSV = %d", len(sv_rows))
    n_support = [int(np.count_nonzero(nonzero[m])) for m in members]
    parts = dict(classes=classes, n_support=n_support, sv_rows=sv_rows, sv_coef=sv_coef,
                 rho=rhos)
    if rng is not None:
        parts.update(probA=probA, probB=probB)
    return parts


def _train_pair(trainer, kept, rows_a, rows_b, svm_type, C, nu, factors, weights):
    """One binary problem: the examples rows_a (+1) against rows_b (-1).

    Rows are positions in `kept` (and `weights`); `factors` are the two classes' weights
    (LIBSVM's -wi). Called for each pair of classes and, on parts of a pair, for the
    folds of the probability cross-validation.

    Returns
    -------
    rows : ndarray
        rows_a then rows_b.
    coef : ndarray
        y_i alpha_i for each of `rows`.
    rho : float
    """
    rows = np.concatenate([rows_a, rows_b])
    n_a = len(rows_a)
    signs = np.where(np.arange(len(rows)) < n_a, 1.0, -1.0)
    factor = np.where(signs > 0, factors[0], factors[1])
    if svm_type == "c_svc":
        upper = C * factor * weights[rows]
        result = trainer.solve_rows(kept[rows], signs, -np.ones(len(rows)), upper)
        alpha, rho, objective = result["alpha"], result["rho"], result["objective"]
        if trainer.verbose and factors[0] == factors[1] and np.all(upper == upper[0]):
            logger.info("nu = %f", alpha.sum() / (upper[0] * len(rows)))
    else:
        upper = factor * weights[rows]
        total = nu * upper.sum() / 2
        start = np.concatenate([_greedy_fill(total, upper[:n_a]),
                                _greedy_fill(total, upper[n_a:])])
        result = trainer.solve_rows(kept[rows], signs, np.zeros(len(rows)), upper, start,
                                    nu=True)
        r = result["r"]
        if trainer.verbose:
            logger.info("C = %f", 1 / r)
        alpha = result["alpha"] / r
        rho = result["rho"] / r
        objective = result["objective"] / (r * r)
        upper = upper / r
        result["rho"], result["objective"] = rho, objective
    coef = signs * alpha
    trainer.log_summary(objective, rho, coef, upper)
    return rows, coef, rho


def _pair_probability(trainer, kept, rows_a, rows_b, svm_type, C, nu, factors, weights,
                      rng):
    """probA, probB of one pair (LIBSVM's svm_binary_svc_probability): Platt's sigmoid
    on the decision values of a 5-fold cross-validation of the pair, each fold trained
    by `_train_pair` with the pair's weights."""
    rows = np.concatenate([rows_a, rows_b])
    positive = np.arange(len(rows)) < len(rows_a)

    def fit_decision(train, test):
        fold = trainer.fork()
        train_rows = rows[train]
        sub_rows, coef, rho = _train_pair(fold, kept, train_rows[positive[train]],
                                          train_rows[~positive[train]], svm_type, C, nu,
                                          factors, weights)
        sv = coef != 0
        return fold.decision_values(kept[rows[test]], kept[sub_rows[sv]], coef[sv], rho)

    return prob.binary_svc_probability(positive, fit_decision, rng)


def _one_class(trainer, kept, nu, weights, probability=False):
    """One-class SVM; with probability, also LIBSVM's density marks of the training
    decision values."""
    n = len(kept)
    start = _greedy_fill(nu * weights.sum(), weights)
    result = trainer.solve_rows(kept, np.ones(n), np.zeros(n), weights, start)
    alpha = result["alpha"]
    trainer.log_summary(result["objective"], result["rho"], alpha, weights)
    sv_rows = np.flatnonzero(alpha > 0)
    parts = dict(classes=[], n_support=[], sv_rows=sv_rows,
                 sv_coef=alpha[sv_rows][None, :], rho=[result["rho"]])
    if probability:
        dec = trainer.decision_values(kept, kept[sv_rows], alpha[sv_rows], result["rho"])
        parts["prob_density_marks"] = prob.one_class_density_marks(dec)
    return parts


def _regression(trainer, kept, z, svm_type, C, nu, epsilon, weights, rng=None):
    """epsilon-SVR or nu-SVR; with a Generator `rng`, also LIBSVM's Laplace scale of
    the 5-fold cross-validated residuals, each fold trained by `_regression`."""
    n = len(z)
    Q = SVRQMatrix(trainer.kernel(kept), trainer.cache_size)
    signs = np.ones(2 * n)
    signs[n:] = -1.0
    bound = C * weights
    upper = np.concatenate([bound, bound])
    if svm_type == "epsilon_svr":
        result = trainer.run(Q, np.concatenate([epsilon - z, epsilon + z]), signs, upper)
    else:
        total = C * nu * weights.sum() / 2
        half = _greedy_fill(total, C * weights)
        result = trainer.run(Q, np.concatenate([-z, z]), signs, upper,
                             np.concatenate([half, half]), nu=True)
        if trainer.verbose:
            logger.info("epsilon = %f", -result["r"])
    coef = result["alpha"][:n] - result["alpha"][n:]
    trainer.log_summary(result["objective"], result["rho"], coef, C * weights)
    sv_rows = np.flatnonzero(coef != 0)
    parts = dict(classes=[], n_support=[], sv_rows=sv_rows,
                 sv_coef=coef[sv_rows][None, :], rho=[result["rho"]])
    if rng is not None:
        def fit_predict(train, test):
            fold = trainer.fork()
            sub = _regression(fold, kept[train], z[train], svm_type, C, nu, epsilon,
                              weights[train])
            return fold.decision_values(kept[test], kept[train][sub["sv_rows"]],
                                        sub["sv_coef"][0], sub["rho"][0])

        parts["probA"] = [prob.svr_probability(z, fit_predict, rng)]
        if trainer.verbose:
            logger.info("Prob. model for test data: target value = predicted value + z,\n"
                        "z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma= %g",
                        parts["probA"][0])
    return parts


# Sparse rows that are mostly non-zeros are trained on as dense rows when the dense
# copy is at most this large: a dense dot product is about a third faster than a
# gather through the index list (letter, 16 features all non-zero: 0.98 s against
# 1.29 s for the same 178,449 steps). Support vectors stay in the caller's layout.
DENSE_COPY_BYTES = 128 * 2**20


def _solver_layout(X):
    """X as the solver should read it: CSR with at least half its entries non-zero,
    and small enough, becomes dense."""
    if (sp.issparse(X) and X.shape[0] * X.shape[1] * 8 <= DENSE_COPY_BYTES
            and X.nnz >= 0.5 * X.shape[0] * X.shape[1]):
        return csr_to_dense(X)
    return X


def _rows(X, rows):
    """X[rows] (any row indices, in their order), as a new csr_matrix for CSR X: one
    gather over the rows' index ranges instead of scipy's fancy indexing."""
    if not sp.issparse(X):
        return X[rows]
    starts = X.indptr[rows]
    counts = X.indptr[rows + 1] - starts
    indptr = np.zeros(len(rows) + 1, dtype=X.indptr.dtype)
    np.cumsum(counts, out=indptr[1:])
    take = np.arange(indptr[-1], dtype=np.int64)
    take += np.repeat(starts - indptr[:-1], counts)
    return sp.csr_matrix((X.data[take], X.indices[take], indptr),
                         shape=(len(rows), X.shape[1]))


def _check_sample_weight(sample_weight, n):
    if sample_weight is None:
        return np.ones(n)
    w = np.asarray(sample_weight)
    if w.dtype.kind not in "biuf":
        raise TypeError(f"sample_weight must hold numbers, got dtype {w.dtype}")
    w = w.astype(np.float64).ravel() if w.ndim == 2 and 1 in w.shape else w.astype(float)
    if w.ndim != 1 or len(w) != n:
        raise ValueError(f"sample_weight must have shape ({n},), got {np.shape(sample_weight)}")
    if not np.isfinite(w).all() or (w < 0).any():
        bad = int(np.flatnonzero(~np.isfinite(w) | (w < 0))[0])
        raise ValueError(f"sample_weight must be finite and >= 0; sample_weight[{bad}] = "
                         f"{float(w[bad])!r}")
    if not (w > 0).any():
        raise ValueError("sample_weight is zero for every example: nothing to train on")
    return w


def train(X, y=None, *, svm_type="c_svc", kernel="rbf", C=1.0, nu=0.5, epsilon=0.1,
          gamma=None, degree=3, coef0=0.0, tol=1e-3, cache_size=100, shrinking=True,
          selection="second_order", class_weight=None, sample_weight=None,
          max_iter=None, time_limit=None, verbose=False, callback=None,
          callback_every=1000, n_threads=1, probability=False, random_state=None,
          linear_solver="auto"):
    """Train a support vector machine with SMO: any of LIBSVM's five formulations.

    Parameters
    ----------
    X : array-like of shape (n, d) or scipy sparse matrix
        Training rows. Sparse input stays sparse (CSR) all the way. For
        kernel="precomputed", the n x n Gram matrix.
    y : array-like of shape (n,)
        Class labels (numbers or strings; two or more classes) for c_svc and nu_svc,
        real targets for the regressions; ignored (may be None) for one_class.
    svm_type : {"c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr"}
        LIBSVM's -s 0..4.
    kernel : {"rbf", "linear", "poly", "sigmoid", "precomputed"}
        LIBSVM's kernels: u'v, (gamma u'v + coef0)^degree, exp(-gamma |u-v|^2),
        tanh(gamma u'v + coef0), or a user-supplied Gram matrix.
    C : float > 0
        Box constraint (c_svc, epsilon_svr, nu_svr).
    nu : float in (0, 1]
        nu_svc, one_class, nu_svr.
    epsilon : float >= 0
        Width of the insensitive tube of epsilon_svr (LIBSVM's -p).
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
    class_weight : dict or None
        label -> weight multiplying C for that class (LIBSVM's -wi); c_svc only (for
        nu_svc it has no effect, as in LIBSVM, and a warning says so).
    sample_weight : array-like of shape (n,) or None
        Per-example weights multiplying C (for nu_svc and one_class, the per-example
        bound); an example of weight 0 is left out.
    max_iter : int > 0 or None
        Stop each binary problem after this many SMO steps; the model's status then
        says "max_iter" and a ConvergenceWarning is issued. None is LIBSVM's cap,
        max(10^7, 100 * number of variables).
    time_limit : float > 0 or None
        Seconds of training after which the solver stops where it is, as with max_iter
        (status "time_limit", ConvergenceWarning). The whole fit shares the budget: the
        binary problems of a multi-class fit get what the earlier ones left.
    verbose : bool
        Log progress and LIBSVM's summary lines on the "libsmo" logger.
    callback : callable or None
        Called every `callback_every` steps with a dict (n_iter, active_size, violation,
        objective); return False to stop (status "stopped"). An exception it raises
        ends training and reaches the caller.
    callback_every : int > 0
        Steps between callback calls (the solver checks at most every 32 steps).
    n_threads : int or None
        Threads; None uses every core. With several classes the one-vs-one pairs are
        trained in parallel, each with one thread and an equal share of the cache;
        with two classes (and for the regressions and one-class) long kernel rows are
        spread over OpenMP threads. The default, 1, is what LIBSVM uses: OpenMP rows
        speed up a fit on an idle machine (about 1.25x with two cores on a9a) but
        slow it down many times when another process holds a core, since every
        kernel row waits for its slowest thread.
    probability : bool
        Also fit LIBSVM's probability model (-b 1): for classification each pair's
        Platt sigmoid (probA, probB) on the decision values of an internal 5-fold
        cross-validation (so about six trainings per pair); for the regressions the
        Laplace scale of 5-fold cross-validated residuals (probA[0]); for one-class
        the density marks of LIBSVM 3.30+. Then `Model.predict_proba` works.
    random_state : None, int >= 0 or numpy Generator
        Seed of the internal cross-validation's folds (numpy's default_rng). An int
        gives the same probabilities on every run; None draws fresh folds each time.
        LIBSVM draws its folds from C's rand(), so its probabilities differ slightly
        from any of these.
    linear_solver : {"auto", "primal", "kernel"}
        How a linear kernel is solved for c_svc and one_class. "primal" keeps the
        weights w = sum alpha_i y_i x_i and computes every gradient as a dot product
        with w (Platt's linear SVM with Keerthi's thresholds): no kernel rows and no
        cache, a pass over the data costs O(nnz), and it reaches the same optimum to
        the same tolerance (`selection`, `shrinking` and `cache_size` do not apply).
        "kernel" uses cached kernel rows like every other kernel. "auto" (default)
        takes "primal" for each binary problem whose Q matrix (4 l^2 bytes) exceeds
        twice `cache_size`, where it wins (a9a, C=0.05: 14x faster than kernel rows),
        and kernel rows for smaller ones, where they win (sector's one-vs-one pairs).

    Returns
    -------
    Model

    Raises
    ------
    ValueError, TypeError
        Bad data or parameters; the message names the parameter and its value.
    """
    svm_type = v.check_choice(svm_type, "svm_type", SVM_TYPES)
    if kernel == "precomputed":
        X = v.check_precomputed(X, "X")
    else:
        X = v.check_data(X, "X")
        v.check_norms(X, "X")
    n = X.shape[0]
    if svm_type == "one_class":
        y = np.zeros(n) if y is None else v.check_labels(y, n)
    elif y is None:
        raise ValueError(f"y is required for svm_type={svm_type!r}")
    else:
        y = v.check_labels(y, n)
    if svm_type in ("epsilon_svr", "nu_svr"):
        if y.dtype.kind not in "biuf":
            raise TypeError(f"y must hold real targets for {svm_type}, got dtype {y.dtype}")
        y = y.astype(np.float64)
    kernel, gamma, degree, coef0 = v.check_kernel_params(kernel, gamma, degree, coef0,
                                                         X.shape[1])
    C = v.check_positive(C, "C")
    nu = v.check_positive(nu, "nu")
    if nu > 1:
        raise ValueError(f"nu must be in (0, 1], got {nu!r}")
    epsilon = v.check_positive(epsilon, "epsilon", allow_zero=True)
    tol = v.check_positive(tol, "tol")
    cache_size = v.check_positive(cache_size, "cache_size")
    if not isinstance(shrinking, (bool, np.bool_)):
        raise TypeError(f"shrinking must be True or False, got {shrinking!r}")
    selection = v.check_choice(selection, "selection", v.SELECTIONS)
    if max_iter is not None:
        max_iter = v.check_positive(max_iter, "max_iter", integer=True)
    if time_limit is not None:
        time_limit = v.check_positive(time_limit, "time_limit")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable, got {callback!r}")
    callback_every = v.check_positive(callback_every, "callback_every", integer=True)
    n_threads = (os.cpu_count() or 1 if n_threads is None else
                 v.check_positive(n_threads, "n_threads", integer=True))
    if class_weight is not None and svm_type not in ("c_svc", "nu_svc"):
        raise ValueError(f"class_weight applies to classification, not svm_type={svm_type!r}")
    weights = _check_sample_weight(sample_weight, n)
    if not isinstance(probability, (bool, np.bool_)):
        raise TypeError(f"probability must be True or False, got {probability!r}")
    # validated either way; a Generator (whose fresh entropy costs a system call) only
    # when the probability model needs one
    rng = None
    if probability or random_state is not None:
        rng = prob.check_random_state(random_state)
    if not probability:
        rng = None
    linear_solver = v.check_choice(linear_solver, "linear_solver",
                                   ("auto", "primal", "kernel"))
    if linear_solver == "primal" and (kernel != "linear"
                                      or svm_type not in ("c_svc", "one_class")):
        raise ValueError("linear_solver='primal' needs kernel='linear' and svm_type "
                         f"'c_svc' or 'one_class'; got kernel={kernel!r}, "
                         f"svm_type={svm_type!r}")
    primal = "never"
    if kernel == "linear" and svm_type in ("c_svc", "one_class"):
        primal = {"auto": "large", "primal": "always", "kernel": "never"}[linear_solver]
    if verbose:
        _enable_verbose_output()
        if callback is None:
            callback = _progress_logger
    kept = np.flatnonzero(weights > 0)  # examples of weight 0 take no part
    trainer = _Trainer(_solver_layout(X), kernel, gamma, degree, coef0,
                       dict(tol=tol, shrinking=bool(shrinking), selection=selection,
                            max_iter=max_iter, callback=callback,
                            callback_every=callback_every),
                       cache_size, n_threads, verbose, time_limit, primal)
    y_kept, w_kept = y[kept], weights[kept]
    if svm_type in ("c_svc", "nu_svc"):
        parts = _classification(trainer, y_kept, kept, svm_type, C, nu, class_weight,
                                w_kept, rng)
    elif svm_type == "one_class":
        parts = _one_class(trainer, kept, nu, w_kept, probability=bool(probability))
    else:
        parts = _regression(trainer, kept, y_kept, svm_type, C, nu, epsilon, w_kept, rng)
    support = kept[parts["sv_rows"]]
    if kernel == "precomputed":
        support_vectors = None
    else:
        support_vectors = _rows(X, support)
    results = trainer.results
    return Model(svm_type=svm_type, kernel=kernel, gamma=gamma, degree=degree,
                 coef0=coef0, classes=parts["classes"], n_support=parts["n_support"],
                 support_vectors=support_vectors, support=support, sv_coef=parts["sv_coef"],
                 rho=parts["rho"], n_features=X.shape[1], probA=parts.get("probA"),
                 probB=parts.get("probB"),
                 prob_density_marks=parts.get("prob_density_marks"),
                 n_iter=[r["n_iter"] for r in results],
                 objective=[r["objective"] for r in results],
                 status=[r["status"] for r in results])
