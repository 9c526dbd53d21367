"""Probability estimates as LIBSVM makes them, in plain numpy.

- Platt's sigmoid P(y = +1 | f) = 1 / (1 + exp(A f + B)), fitted as in Lin, Lin and Weng
  (2007), "A note on Platt's probabilistic outputs for support vector machines": Newton's
  method with a backtracking line search on the cross-entropy of the regularised targets
  (N+ + 1) / (N+ + 2) and 1 / (N- + 2), every term evaluated in a form that cannot
  overflow.
- Pairwise coupling of the one-vs-one probabilities r_ij ~ P(i | i or j) into class
  probabilities: method 2 of Wu, Lin and Weng (2004), "Probability estimates for
  multi-class classification by pairwise coupling" (JMLR 5), the fixed-point iteration
  LIBSVM uses, with its stopping rule and iteration cap.
- The Laplace scale of SVR residuals (LIBSVM's svm_svr_probability) and the density marks
  of one-class SVM (LIBSVM 3.30+, Que and Lin's binning).
- The fold assignments of LIBSVM's internal and user-level cross-validation, drawn from a
  numpy Generator, or from C's rand() as LIBSVM draws them (`LibsvmRandom`: the same
  shuffles, so the same folds as svm-train).

This module knows nothing of training: the callers in `libsmo.training._pairs`,
`libsmo.training._formulations` and `libsmo.training._crossval` pass in decision values, or a function that trains on some rows and
returns decision values for others.
"""
import warnings

import numpy as np

from libsmo._utils.random_sources import LibsvmRandom, SklearnRandom
from libsmo.model._one_vs_one import pairwise_matrix

#: LIBSVM clips every pairwise probability to [MIN_PROB, 1 - MIN_PROB].
MIN_PROB = 1e-7
#: Folds of the internal cross-validation behind probA/probB and the SVR scale.
INTERNAL_FOLDS = 5
#: One-class marks (LIBSVM's nr_marks).
N_MARKS = 10


# ---------------------------------------------------------------------------
# folds


def random_folds(n, n_folds, rng):
    """Test rows of each fold: a random permutation cut into n_folds consecutive runs
    of sizes floor((i+1) n / n_folds) - floor(i n / n_folds) (LIBSVM's plain folds)."""
    perm = rng.permutation(n)
    bounds = [i * n // n_folds for i in range(n_folds + 1)]
    return [perm[bounds[i]:bounds[i + 1]] for i in range(n_folds)]


def stratified_folds(class_index, n_folds, rng):
    """Test rows of each fold with every class spread over the folds (LIBSVM's
    svm_cross_validation): each class's members are shuffled and fold i receives
    members floor(i c / n_folds) .. floor((i+1) c / n_folds) - 1 of a class of c
    examples. Within a fold, classes come in class-index order."""
    class_index = np.asarray(class_index)
    parts = [[] for _ in range(n_folds)]
    for c in range(int(class_index.max()) + 1 if len(class_index) else 0):
        members = np.flatnonzero(class_index == c)
        members = members[rng.permutation(len(members))]
        count = len(members)
        for i in range(n_folds):
            parts[i].append(members[i * count // n_folds:(i + 1) * count // n_folds])
    return [np.concatenate(p) if p else np.zeros(0, dtype=np.intp) for p in parts]


def pair_generators(rng, pair_sizes):
    """One random source per one-vs-one pair, for the pairs' probability folds, so that
    the pairs draw the same folds whether they are trained one by one or at once.

    With a `LibsvmRandom`, pair p continues LIBSVM's one sequence where pair p-1's
    shuffle (one draw per example of the pair) ends, as svm_train draws them; with a
    `SklearnRandom` (the estimators'), every pair starts from its seed, as in
    scikit-learn; with a numpy Generator, each pair gets its own Generator seeded from
    it.

    Parameters
    ----------
    rng : numpy Generator, LibsvmRandom or SklearnRandom
    pair_sizes : sequence of int
        The number of examples of each pair's problem, in LIBSVM's pair order.

    Returns
    -------
    list
    """
    if isinstance(rng, (LibsvmRandom, SklearnRandom)):
        return rng.split(pair_sizes)
    return [np.random.default_rng(s) for s in rng.integers(2**63, size=len(pair_sizes))]


def out_of_fold(folds, n):
    """(train, test) row indices of each fold; train rows in permutation order."""
    everything = np.concatenate(folds) if folds else np.zeros(0, dtype=np.intp)
    start = 0
    for test in folds:
        end = start + len(test)
        yield np.concatenate([everything[:start], everything[end:]]), test
        start = end


# ---------------------------------------------------------------------------
# Platt's sigmoid


def _positive_probability(f):
    """1 / (1 + exp(f)) and its complement, without overflow or cancellation."""
    e = np.exp(-np.abs(f))
    small = e / (1.0 + e)           # the probability on the side f points away from
    large = 1.0 / (1.0 + e)
    positive = f >= 0
    return np.where(positive, small, large), np.where(positive, large, small)


def _sigmoid_objective(f, target):
    """sum_i -t_i log p_i - (1 - t_i) log(1 - p_i) with p_i = 1 / (1 + exp(f_i))."""
    return float(np.sum(np.logaddexp(0.0, f) - (1.0 - target) * f))


def sigmoid_train(decision_values, labels, *, max_iter=100, min_step=1e-10,
                  sigma=1e-12, tol=1e-5):
    """Fit Platt's sigmoid P(+1 | f) = 1 / (1 + exp(A f + B)) to decision values.

    Lin, Lin and Weng's algorithm: Newton's method on the cross-entropy with targets
    (N+ + 1) / (N+ + 2) for positive examples and 1 / (N- + 2) for negative ones, the
    Hessian made strictly positive definite by adding `sigma` to its diagonal, and a
    backtracking line search that halves the step until the objective decreases by at
    least 1e-4 * step * (gradient . direction). Starts at A = 0,
    B = log((N- + 1) / (N+ + 1)); stops when both gradient components are below `tol`,
    when the step falls below `min_step` or after `max_iter` Newton steps.

    Parameters
    ----------
    decision_values : array-like of shape (n,)
    labels : array-like of shape (n,)
        Positive (> 0, or True) for the first class of the pair, else negative.

    Returns
    -------
    (A, B) : tuple of float
    """
    dec = np.asarray(decision_values, dtype=np.float64).ravel()
    positive = np.asarray(labels).ravel() > 0
    if dec.shape != positive.shape:
        raise ValueError(f"decision_values and labels differ in length: {dec.shape[0]} "
                         f"and {positive.shape[0]}")
    n_pos = float(np.count_nonzero(positive))
    n_neg = float(len(dec) - n_pos)
    target = np.where(positive, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    A, B = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
    fval = _sigmoid_objective(dec * A + B, target)
    for _ in range(max_iter):
        p, q = _positive_probability(dec * A + B)
        weight = p * q
        h11 = sigma + float(np.dot(dec * dec, weight))
        h22 = sigma + float(weight.sum())
        h21 = float(np.dot(dec, weight))
        residual = target - p
        g1 = float(np.dot(dec, residual))
        g2 = float(residual.sum())
        if abs(g1) < tol and abs(g2) < tol:
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        slope = g1 * dA + g2 * dB
        step = 1.0
        while step >= min_step:
            new_A, new_B = A + step * dA, B + step * dB
            new_f = _sigmoid_objective(dec * new_A + new_B, target)
            if new_f < fval + 1e-4 * step * slope:
                A, B, fval = new_A, new_B, new_f
                break
            step /= 2.0
        if step < min_step:
            break  # the line search failed: keep the last point, as LIBSVM
    return A, B


def sigmoid_predict(decision_values, A, B):
    """P(+1 | f) = 1 / (1 + exp(A f + B)), elementwise, computed without overflow."""
    f = np.asarray(decision_values, dtype=np.float64) * A + B
    return _positive_probability(f)[0]


# ---------------------------------------------------------------------------
# pairwise coupling


def pairwise_coupling(r, *, max_iter=None):
    """Class probabilities from pairwise ones (Wu, Lin and Weng 2004, method 2).

    Minimises p'Qp subject to sum(p) = 1, with Q_tt = sum_{j != t} r_jt^2 and
    Q_tj = -r_jt r_tj, by LIBSVM's fixed-point iteration: each sweep updates p_t for
    t = 0..k-1 in turn and renormalises; it stops when max_t |(Qp)_t - p'Qp| < 0.005 / k
    or after max(100, k) sweeps. Rows are processed together; each stops on its own.

    Parameters
    ----------
    r : array-like of shape (k, k) or (n, k, k)
        r[..., i, j] estimates P(class i | class i or j); r[i, j] + r[j, i] = 1; the
        diagonal is ignored.

    Returns
    -------
    ndarray of shape (k,) or (n, k)
    """
    r = np.asarray(r, dtype=np.float64)
    single = r.ndim == 2
    if single:
        r = r[None]
    if r.ndim != 3 or r.shape[1] != r.shape[2]:
        raise ValueError(f"r must have shape (k, k) or (n, k, k), got {r.shape}")
    n, k = r.shape[0], r.shape[1]
    if max_iter is None:
        max_iter = max(100, k)
    off = ~np.eye(k, dtype=bool)
    # Q[t, j] = -r[j, t] r[t, j] off the diagonal; Q[t, t] = sum_{j != t} r[j, t]^2
    rt = np.swapaxes(r, 1, 2)
    Q = np.where(off, -rt * r, 0.0)
    diag = np.sum(np.where(off, rt * rt, 0.0), axis=2)
    Q[:, np.arange(k), np.arange(k)] = diag
    p = np.full((n, k), 1.0 / k)
    eps = 0.005 / k
    active = np.arange(n)
    for _ in range(max_iter):
        if len(active) == 0:
            break
        Qa, pa = Q[active], p[active]
        Qp = np.einsum("ntj,nj->nt", Qa, pa)
        pQp = np.einsum("nt,nt->n", pa, Qp)
        error = np.abs(Qp - pQp[:, None]).max(axis=1)
        going = error >= eps
        active, Qa, pa, Qp, pQp = (active[going], Qa[going], pa[going], Qp[going],
                                   pQp[going])
        if len(active) == 0:
            break
        for t in range(k):
            Qtt = Qa[:, t, t]
            diff = (pQp - Qp[:, t]) / Qtt
            pa[:, t] += diff
            scale = 1.0 + diff
            pQp = (pQp + diff * (diff * Qtt + 2.0 * Qp[:, t])) / (scale * scale)
            Qp = (Qp + diff[:, None] * Qa[:, t, :]) / scale[:, None]
            pa /= scale[:, None]
        p[active] = pa
    return p[0] if single else p


def class_probabilities(decision_values, probA, probB, k, flavor="libsvm"):
    """LIBSVM's svm_predict_probability for classification: each pair's sigmoid,
    clipped to [1e-7, 1 - 1e-7]; two classes read directly (LIBSVM 3.37) or, with
    flavor="sklearn", coupled like more (scikit-learn's copy of LIBSVM couples every
    k, so its binary probabilities stop within the coupling's tolerance of the
    sigmoid's).

    decision_values : shape (n, k(k-1)/2), LIBSVM's pair order.
    Returns shape (n, k).
    """
    if k == 1:
        # a model of one class (svm-train's, of data in one class) has no pair; LIBSVM's
        # coupling starts at p = 1 / k, which is then already its answer
        return np.ones((len(np.asarray(decision_values)), 1))
    dec = np.asarray(decision_values, dtype=np.float64).reshape(-1, k * (k - 1) // 2)
    P = sigmoid_predict(dec, np.asarray(probA)[None, :], np.asarray(probB)[None, :])
    P = np.clip(P, MIN_PROB, 1.0 - MIN_PROB)
    if k == 2 and flavor == "libsvm":
        return np.column_stack([P[:, 0], 1.0 - P[:, 0]])
    return pairwise_coupling(pairwise_matrix(P, k))


# ---------------------------------------------------------------------------
# cross-validated fits


def binary_svc_probability(positive, fit_decision, rng, n_folds=INTERNAL_FOLDS):
    """probA, probB of one pair, as LIBSVM's svm_binary_svc_probability.

    The pair's examples are shuffled and cut into `n_folds` folds; for each, a model is
    trained on the other folds by ``fit_decision(train_rows, test_rows)``, which returns
    the decision values of the test rows (positive for the first class). A fold whose
    training part holds one class only gets +1 or -1 (0 if empty). Platt's sigmoid is
    then fitted to all the out-of-fold decision values.

    Parameters
    ----------
    positive : ndarray of bool, shape (n,)
        Membership of the pair's first class.
    fit_decision : callable (train_rows, test_rows) -> ndarray
    rng : numpy Generator or LibsvmRandom

    Returns
    -------
    (A, B)
    """
    positive = np.asarray(positive, dtype=bool)
    n = len(positive)
    dec = np.zeros(n)
    for train, test in out_of_fold(random_folds(n, n_folds, rng), n):
        if len(test) == 0:
            continue
        n_pos = int(np.count_nonzero(positive[train]))
        n_neg = len(train) - n_pos
        if n_pos == 0 and n_neg == 0:
            dec[test] = 0.0
        elif n_neg == 0:
            dec[test] = 1.0
        elif n_pos == 0:
            dec[test] = -1.0
        else:
            dec[test] = fit_decision(train, test)
    return sigmoid_train(dec, positive)


def laplace_scale(residuals):
    """LIBSVM's SVR probability scale sigma: the mean absolute residual, recomputed
    without the residuals beyond 5 standard deviations of a Laplace distribution of
    that mean (std = sqrt(2) * mae)."""
    z = np.abs(np.asarray(residuals, dtype=np.float64))
    mae = z.mean()
    std = np.sqrt(2.0 * mae * mae)
    kept = z[z <= 5.0 * std]
    return float(kept.mean())


def svr_probability(targets, fit_predict, rng, n_folds=INTERNAL_FOLDS):
    """The Laplace scale of an SVR from `n_folds`-fold cross-validated residuals
    (LIBSVM's svm_svr_probability). ``fit_predict(train_rows, test_rows)`` trains on
    the first rows and returns predictions for the second."""
    targets = np.asarray(targets, dtype=np.float64)
    n = len(targets)
    predicted = np.empty(n)
    for train, test in out_of_fold(random_folds(n, min(n_folds, n), rng), n):
        if len(test):
            predicted[test] = fit_predict(train, test)
    return laplace_scale(targets - predicted)


def one_class_density_marks(decision_values, n_marks=N_MARKS):
    """The density marks of a one-class SVM (LIBSVM 3.30+, svm_one_class_probability).

    The training decision values are sorted; n_marks/2 + 1 bin edges are read at equal
    ranks among the negative values (from the smallest) and as many among the
    non-negative ones (up to the largest), with 0 between them; the marks are the
    midpoints of consecutive edges. With fewer than n_marks/2 negative or non-negative
    values there are too few to estimate anything: a warning, and None.
    """
    dec = np.sort(np.asarray(decision_values, dtype=np.float64).ravel())
    n = len(dec)
    n_neg = int(np.searchsorted(dec, 0.0, side="left"))  # values < 0
    n_pos = n - n_neg
    mid = n_marks // 2
    if n_neg < mid or n_pos < mid:
        warnings.warn(f"one-class probability: fewer than {mid} positive or negative "
                      "decision values on the training data, too few for density marks; "
                      "the model has no probability estimates", UserWarning, stacklevel=3)
        return None
    edges = np.empty(n_marks + 1)
    for i in range(mid):
        edges[i] = dec[i * n_neg // mid]
    edges[mid] = 0.0
    for i in range(mid + 1, n_marks + 1):
        edges[i] = dec[n_neg - 1 + (i - mid) * n_pos // mid]
    return (edges[:-1] + edges[1:]) / 2.0


def one_class_probability(decision_values, marks):
    """P(normal | f) from the density marks m_0 <= ... <= m_{M-1}: 0.001 below m_0,
    i / M on [m_{i-1}, m_i), 0.999 from m_{M-1} up (LIBSVM's
    predict_one_class_probability; LIBSVM returns 0 at exactly f == m_{M-1}, which
    breaks monotonicity, and 0.999 above it: here f == m_{M-1} gives 0.999 too)."""
    marks = np.asarray(marks, dtype=np.float64)
    n_marks = len(marks)
    rank = np.searchsorted(marks, np.asarray(decision_values, dtype=np.float64),
                           side="right")
    out = rank / n_marks
    out = np.where(rank == 0, 0.001, out)
    return np.where(rank >= n_marks, 0.999, out)
