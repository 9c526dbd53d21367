"""LIBSVM's one-vs-one layout, in one place: the order of the classes and of their pairs,
where each pair's coefficients live, and how pairs vote.

With k classes LIBSVM trains k(k-1)/2 binary problems, pair (i, j) for i < j in the
order (0,1), (0,2), ..., (0,k-1), (1,2), ...; rho, probA and probB follow that order.
The support vectors are grouped by class, and `sv_coef` has k - 1 rows: class i's
vectors carry their coefficient of pair (i, j) on row j - 1 when j > i, else on row j.
A positive decision value of pair (i, j) votes for class i.
"""
import numpy as np

from libsmo._core.pair_votes import pair_decisions, tally_pairs

# what LIBSVM's svm_train prints (info) for training data in one class, whose model has
# no pair and predicts that class everywhere
ONE_CLASS_LINES = ("WARNING: training data in only one class. See README for details.",
                   "Total nSV = 0")


def all_one_class(labels):
    """Whether `labels` (at least one) are all the same: LIBSVM then trains a model of
    one class (a comparison, not np.unique, whose first plain call imports numpy.ma: 8
    ms of every libsmo-train -v and libsmo-grid)."""
    return len(labels) > 0 and bool((labels == labels[0]).all())


def group_classes(y):
    """Class labels in LIBSVM's order and each example's class index.

    Labels are ordered by first appearance, except that two-class data labelled -1/+1
    puts +1 first, so that the binary SVM's positive side is the +1 class (LIBSVM's
    svm_group_classes).

    Parameters
    ----------
    y : ndarray of shape (n,)

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


def pairs(k):
    """The pairs (i, j), i < j, of k classes in LIBSVM's order.

    Returns
    -------
    list of (int, int)
    """
    return [(i, j) for i in range(k) for j in range(i + 1, k)]


def n_pairs(k):
    """k(k-1)/2."""
    return k * (k - 1) // 2


def pair_index(i, j, k):
    """The position of pair (i, j), i < j, among the pairs of k classes."""
    return i * k - i * (i + 1) // 2 + (j - i - 1)


def coef_row(i, j):
    """The sv_coef row on which class i's support vectors carry pair (i, j) (either
    order): j - 1 when j > i, else j."""
    return j - 1 if j > i else j


def class_slices(n_support):
    """The slice of each class's support vectors, from the counts per class."""
    start = np.concatenate([[0], np.cumsum(n_support)]).astype(np.int64)
    return [slice(int(start[c]), int(start[c + 1])) for c in range(len(n_support))]


def pair_coefficients(sv_coef, n_support):
    """Per pair (i, j) in LIBSVM's order: (class i's slice, their coefficients of the
    pair, class j's slice, theirs).

    Returns
    -------
    list of tuples
    """
    slices = class_slices(n_support)
    return [(slices[i], sv_coef[coef_row(i, j), slices[i]],
             slices[j], sv_coef[coef_row(j, i), slices[j]])
            for i, j in pairs(len(n_support))]


class PairDecisions:
    """All pairs' decision values from one block of kernel values, class by class.

    Class c's support vectors carry one coefficient for each of the k - 1 pairs that c
    is in (its column of sv_coef), so K[:, class c] @ sv_coef[:, class c].T gives, in
    one matrix product, c's share of every pair it is in; pair (i, j) is then i's share
    plus j's, minus rho. That is k matrix products (BLAS-3) for the whole block where
    a product per pair made k(k-1)/2 matrix-vector products on strided columns, for
    the same multiply-adds: letter's 26 classes, 5,000 rows against 6,746 support
    vectors, 0.29 s -> 0.05 s. (A dense (n_SV x n_pairs) coefficient matrix would be
    one product, but with k/2 times the multiply-adds, mostly zeros: 0.35 s.)

    Parameters
    ----------
    sv_coef : ndarray of shape (k - 1, n_SV)
    n_support : sequence of int
        Support vectors per class (grouped by class, in class order).
    rho : ndarray of shape (k(k-1)/2,)
    """

    def __init__(self, sv_coef, n_support, rho):
        self.k = len(n_support)
        self.slices = class_slices(n_support)
        self.coef_by_class = [np.ascontiguousarray(np.asarray(sv_coef)[:, s].T,
                                                   dtype=np.float64)
                              for s in self.slices]
        self.rho = np.ascontiguousarray(rho, dtype=np.float64)

    def __call__(self, K, out):
        """out[:, p] = decision value of pair p for the rows of K.

        Parameters
        ----------
        K : ndarray of shape (n_rows, n_SV)
        out : ndarray of shape (n_rows, k(k-1)/2), C-contiguous

        Returns
        -------
        int
            How many of the values are inf or NaN.
        """
        if self.k < 2:
            return 0  # a one-class classifier model has no pairs
        shares = np.empty((K.shape[0], self.k, self.k - 1))
        for c, rows in enumerate(self.slices):
            np.matmul(K[:, rows], self.coef_by_class[c], out=shares[:, c, :])
        # pair (i, j): class i's share on its coefficient row j - 1, class j's on row i
        return pair_decisions(shares, self.rho, out)


def votes(decision_values, k):
    """The votes of each class: pair (i, j) votes for i where its decision value is
    positive, else for j.

    Parameters
    ----------
    decision_values : ndarray of shape (n, k(k-1)/2)
    k : int

    Returns
    -------
    ndarray of int64 of shape (n, k)
    """
    out = np.zeros((decision_values.shape[0], k), dtype=np.int64)
    tally_pairs(np.ascontiguousarray(decision_values, dtype=np.float64), out)
    return out


def ovr_scores(decision_values, k):
    """One-vs-rest scores from one-vs-one decision values, as scikit-learn builds them:
    the votes of each class plus its summed confidence squashed into (-1/3, 1/3), so
    that ties in votes are broken by confidence without ever overturning a vote.

    An exact zero votes for the pair's first class here (scikit-learn's rule: its
    pairs vote for the second class only where the value is negative), where
    `votes`, LIBSVM's prediction, gives it to the second: so the argmax of these
    scores can differ from the predicted label on such ties, as in scikit-learn.

    Parameters
    ----------
    decision_values : ndarray of shape (n, k(k-1)/2)
        Positive for the pair's first class.
    k : int

    Returns
    -------
    ndarray of shape (n, k)
    """
    n = decision_values.shape[0]
    confidence = np.zeros((n, k))
    counts = np.zeros((n, k), dtype=np.int64)
    tally_pairs(np.ascontiguousarray(decision_values, dtype=np.float64), counts,
                confidence)
    return counts + confidence / (3 * (np.abs(confidence) + 1))


def pairwise_matrix(pairwise_probabilities, k):
    """The (n, k, k) matrix r of pairwise probabilities from LIBSVM's pair order:
    r[i, j] = P_pair, r[j, i] = 1 - P_pair (the diagonal is 0)."""
    P = np.asarray(pairwise_probabilities, dtype=np.float64)
    r = np.zeros((P.shape[0], k, k))
    i, j = np.triu_indices(k, 1)   # the upper triangle row by row: LIBSVM's pair order
    r[:, i, j] = P
    r[:, j, i] = 1.0 - P
    return r
