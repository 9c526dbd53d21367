"""The trained model: LIBSVM's svm_model fields, decision values and predictions.

The model knows nothing of training: it is what `libsmo.train` returns and what a model
file holds. Classification models follow LIBSVM's one-vs-one layout: support vectors
grouped by class in label order, `sv_coef` of shape (n_classes - 1, n_SV), one rho per
pair of classes in the order (0,1), (0,2), ..., (1,2), ...
"""
import numpy as np

from libsmo._blocks.kernel_block import for_each_kernel_block
from libsmo._blocks.support_rows import DENSE_SV_BYTES, SupportRows
from libsmo._utils import constraints as pv
from libsmo._utils import sparse as sp
from libsmo._utils.names import CLASSIFICATION_TYPES, FLAVORS
from libsmo._utils.validation import check_data, check_norms, check_precomputed
from libsmo.model import _one_vs_one as ovo
from libsmo.model import _probability
from libsmo.model._checks import PER_PROBLEM_FIELDS, check_model_fields

# A linear model predicts from its primal weights only when that saves work: below this
# many support vectors per pair, the kernel expansion costs little and keeps LIBSVM's
# arithmetic (sum_i coef_i x_i'x - rho), whose exact zeros the weights' rounding can
# turn into +-2e-16 (a one-class model then predicts +1 where LIBSVM predicts -1).
PRIMAL_MIN_SV_PER_PAIR = 16


def _finite_decisions(values):
    """values, unless some are inf or NaN: a model whose numbers (read from a file,
    say) are too large for double precision is refused rather than trusted."""
    if not np.isfinite(values).all():
        _refuse_overflow()
    return values


def _refuse_overflow():
    raise ValueError("decision values overflow double precision (inf or NaN): this "
                     "model's support vectors, coefficients or kernel parameters are "
                     "too large for these rows")


class Model:
    """A trained support vector machine in LIBSVM's terms (its svm_model).

    What `libsmo.train` returns and what a LIBSVM model file holds: the fields of
    LIBSVM's svm_model, each kept as an attribute of the same name, with the
    decision values, predictions and probabilities svm-predict computes. The
    constructor checks that the fields agree with each other (a ValueError names
    the field that does not); a field assigned later is checked again before the
    model next predicts (`check_fields`).

    Classification models follow LIBSVM's one-vs-one layout: classes in LIBSVM's
    order (first appearance in the training labels), support vectors grouped by
    class in that order, one row of ``sv_coef`` for each other class, one ``rho``
    for each pair of classes in the order (0, 1), (0, 2), ..., (1, 2), ...

    Parameters
    ----------
    svm_type : {'c_svc', 'nu_svc', 'one_class', 'epsilon_svr', 'nu_svr'}
        LIBSVM's formulation (``svm-train -s 0..4``).
    kernel : {'linear', 'poly', 'rbf', 'sigmoid', 'precomputed'}
        LIBSVM's kernel (``-t 0..4``).
    gamma : float
        Kernel coefficient of 'poly', 'rbf' and 'sigmoid'.
    degree : int
        Degree of the 'poly' kernel.
    coef0 : float
        Independent term of the 'poly' and 'sigmoid' kernels.
    classes : array-like
        Class labels in LIBSVM's order (first appearance in the training labels;
        -1/+1 data puts +1 first); empty for regression and one-class.
    n_support : array-like of int
        Support vectors of each class (empty for regression and one-class).
    support_vectors : ndarray, sparse matrix or None
        The support vectors, shape (n_SV, n_features), dense or CSR as the training
        data was; None for a precomputed kernel.
    support : array-like of int or None
        0-based indices of the support vectors in the training data; None when not
        known (a model file of another kernel than 'precomputed' does not record
        them).
    sv_coef : array-like of shape (n_classes - 1, n_SV)
        The products y_i * alpha_i of the support vectors, in LIBSVM's one-vs-one
        layout.
    rho : array-like of shape (n_classes * (n_classes - 1) / 2,)
        Offsets of the decision values: f(x) = sum_i sv_coef_i K(x_i, x) - rho.
    n_features : int
        Columns of the training data (training rows for a precomputed kernel).
    probA, probB : array-like or None, default=None
        With probability estimates: each pair's Platt sigmoid (classification),
        or the Laplace scale of the residuals in ``probA[0]`` (regression).
    prob_density_marks : array-like or None, default=None
        One-class probability marks (LIBSVM 3.30+), with probability estimates.
    n_iter : sequence of int, default=()
        Solver steps of each binary problem; empty for a model read from a file.
    objective : sequence of float, default=()
        Dual objective of each binary problem; empty for a model read from a file.
    status : sequence of str, default=()
        How each binary problem's solver stopped: 'optimal', 'max_iter',
        'time_limit' or 'stopped'; empty for a model read from a file.
    kernel_evaluations : sequence of int, default=()
        Kernel values each binary problem's solver computed (a row the cache served
        again costs none; 0 for the linear kernel's primal solver; the probability
        model's internal cross-validation not counted). Empty for a model read from
        a file or trained on a Dask cluster.

    See Also
    --------
    libsmo.train : Train a Model.
    libsmo.load_model : Read a Model from a LIBSVM model file.
    libsmo.save_model : Write a Model as a LIBSVM model file.
    libsmo.SVC.from_model : A scikit-learn estimator that predicts with a Model.

    Notes
    -----
    A Model is LIBSVM's: its labels, support vectors, coefficients and
    probabilities are what svm-train writes and svm-predict reads, in LIBSVM's
    class order. The scikit-learn estimators keep their classes sorted and, for two
    classes, the signs flipped; their `to_model` gives the Model in these terms.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import libsmo
    >>> X, y = load_iris(return_X_y=True)
    >>> model = libsmo.train(X, y, C=1.0)
    >>> model
    Model(svm_type='c_svc', kernel='rbf', classes=[0, 1, 2], n_sv=45, n_features=4)
    >>> model.n_support.tolist(), model.sv_coef.shape, model.rho.shape
    ([7, 19, 19], (2, 45), (3,))
    >>> model.status
    ['optimal', 'optimal', 'optimal']
    >>> model.predict(X[[0, 50, 100]])
    array([0, 1, 2])
    """

    def __init__(self, *, svm_type, kernel, gamma, degree, coef0, classes, n_support,
                 support_vectors, support, sv_coef, rho, n_features, probA=None,
                 probB=None, prob_density_marks=None, n_iter=(), objective=(), status=(),
                 kernel_evaluations=()):
        fields = check_model_fields(dict(
            svm_type=svm_type, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
            classes=classes, n_support=n_support, support_vectors=support_vectors,
            support=support, sv_coef=sv_coef, rho=rho, n_features=n_features, probA=probA,
            probB=probB, prob_density_marks=prob_density_marks, n_iter=n_iter,
            objective=objective, status=status, kernel_evaluations=kernel_evaluations))
        self.__dict__.update(fields)
        self._forget_derived()

    @classmethod
    def _from_training(cls, **fields):
        """A Model of a training's own fields, in the forms `check_model_fields` gives
        (Python numbers, int64 and float64 arrays, C-contiguous support vectors or
        canonical CSR, lists of statistics), checked before it first predicts or is
        saved, as a field assigned after construction is, instead of now: the
        estimators renumber `support` at once, which would have them checked twice,
        and a small fit's time is mostly such Python work."""
        model = object.__new__(cls)
        model.__dict__.update(fields)
        missing = set(Model._FIELDS) - set(fields)
        if missing:
            raise TypeError(f"Model fields missing: {sorted(missing)}")
        model._forget_derived()
        object.__setattr__(model, "_checked", False)
        return model

    def __setattr__(self, name, value):
        # a field assigned after construction (the estimators renumber `support`) is
        # checked again, with the others, before the model next predicts
        object.__setattr__(self, name, value)
        if name in Model._FIELDS:
            self._forget_derived()
            object.__setattr__(self, "_checked", False)

    def __getstate__(self):
        # a pickle holds the fields, not what prediction derived from them (copies in
        # other layouts, made again at the first prediction after loading), and the
        # loaded model checks its fields once before it predicts, as one built anew
        state = dict(self.__dict__)
        state.update(_sv_layout=None, _weights=None, _pairs=None, _checked=False)
        return state

    def _forget_derived(self):
        """Drop what prediction derived from the fields (layouts, norms, weights)."""
        object.__setattr__(self, "_checked", True)
        object.__setattr__(self, "_sv_layout", None)
        object.__setattr__(self, "_weights", None)
        object.__setattr__(self, "_pairs", None)

    def check_fields(self):
        """Check the fields again if one was assigned since they were last checked.

        Prediction and `libsmo.save_model` call it; a field assigned a value that
        contradicts the others (a wrong length, a kernel LIBSVM does not know) is
        reported here as a ValueError naming the field.

        Raises
        ------
        ValueError
            A field disagrees with the others; the message names it.

        Examples
        --------
        >>> import numpy as np, libsmo
        >>> model = libsmo.train(np.array([[0.0], [1.0]]), np.array([-1, 1]))
        >>> model.rho = np.array([0.0, 1.0])
        >>> model.check_fields()
        Traceback (most recent call last):
        ...
        ValueError: ...
        """
        if not self._checked:
            fields = check_model_fields({name: getattr(self, name)
                                         for name in Model._FIELDS})
            self.__dict__.update(fields)
            self._forget_derived()

    _FIELDS = ("svm_type", "kernel", "gamma", "degree", "coef0", "classes", "n_support",
               "support_vectors", "support", "sv_coef", "rho", "n_features", "probA",
               "probB", "prob_density_marks", "n_iter", "objective", "status",
               "kernel_evaluations")
    # what a Model pickled before the field existed reads (its __dict__ lacks it)
    kernel_evaluations = ()
    # (and one pickled before prediction kept its pairs' layout, `_pair_decisions`)
    _pairs = None

    def replace(self, **changes):
        """Make a new Model with the given fields changed and the others shared.

        Parameters
        ----------
        **changes
            Any of the constructor's keyword arguments; the new model's fields are
            checked as the constructor checks them.

        Returns
        -------
        Model
            The new model (this one is unchanged).

        Raises
        ------
        TypeError
            A keyword that is not a field.

        Examples
        --------
        >>> import numpy as np, libsmo
        >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
        >>> model = libsmo.train(X, np.array([1, 1, 2, 2]), kernel="linear")
        >>> shifted = model.replace(rho=model.rho + 1.0)
        >>> model.decision_function(X[:1]), shifted.decision_function(X[:1])
        (array([1.]), array([0.]))
        """
        unknown = set(changes) - set(self._FIELDS)
        if unknown:
            raise TypeError(f"Model has no field(s) {sorted(unknown)}")
        fields = {name: getattr(self, name) for name in self._FIELDS}
        fields.update(changes)
        return Model(**fields)

    @property
    def n_classes(self):
        """Number of classes (2 for regression and one-class, as in LIBSVM).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> import libsmo
        >>> X, y = load_iris(return_X_y=True)
        >>> libsmo.train(X, y).n_classes
        3
        """
        return len(self.classes) if self.svm_type in CLASSIFICATION_TYPES else 2

    @property
    def n_sv(self):
        """Total number of support vectors.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> import libsmo
        >>> X, y = load_iris(return_X_y=True)
        >>> libsmo.train(X, y).n_sv
        45
        """
        return int(self.sv_coef.shape[1])

    def __repr__(self):
        return (f"Model(svm_type={self.svm_type!r}, kernel={self.kernel!r}, "
                f"classes={self.classes.tolist()}, n_sv={self.n_sv}, "
                f"n_features={self.n_features})")

    def with_class_order(self, order):
        """Return the same classifier with its classes in another order.

        LIBSVM orders classes by first appearance in the training labels; scikit-learn
        sorts them. Both describe the same one-vs-one machine: moving a class moves its
        support vectors and their coefficient rows, and a pair whose two classes change
        places has its decision value negated (coefficients and rho change sign, and
        its Platt sigmoid P(first | f) = 1 / (1 + exp(A f + B)) keeps A and negates B).

        Parameters
        ----------
        order : sequence of int
            A permutation of range(n_classes): the new model's class i is this model's
            class order[i].

        Returns
        -------
        Model
            Equal predictions, decision values up to the pairs' signs and order.

        Raises
        ------
        ValueError
            The model is not a classifier, or order is not a permutation.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> import libsmo
        >>> X, y = load_iris(return_X_y=True)
        >>> model = libsmo.train(X, y)
        >>> reordered = model.with_class_order([2, 1, 0])
        >>> reordered.classes, reordered.predict(X[[0, 50, 100]])
        (array([2, 1, 0]), array([0, 1, 2]))
        """
        self.check_fields()
        if self.svm_type not in CLASSIFICATION_TYPES:
            raise ValueError(f"with_class_order applies to classifiers, not {self.svm_type}")
        k = self.n_classes
        order = np.asarray(order, dtype=np.int64)
        if order.shape != (k,) or not np.array_equal(np.sort(order), np.arange(k)):
            raise ValueError(f"order must be a permutation of range({k}); got {order.tolist()}")
        new_of_old = np.empty(k, dtype=np.int64)
        new_of_old[order] = np.arange(k)
        slices = ovo.class_slices(self.n_support)
        new_slices = ovo.class_slices(self.n_support[order])
        sv_rows = np.concatenate([np.arange(slices[c].start, slices[c].stop) for c in order])
        # a pair's coefficients move with their classes, negated when the two classes
        # change places
        sv_coef = np.zeros_like(self.sv_coef)
        for a, b in ovo.pairs(k):
            na, nb = new_of_old[a], new_of_old[b]
            sign = 1.0 if na < nb else -1.0
            sv_coef[ovo.coef_row(na, nb), new_slices[na]] = (
                sign * self.sv_coef[ovo.coef_row(a, b), slices[a]])
            sv_coef[ovo.coef_row(nb, na), new_slices[nb]] = (
                sign * self.sv_coef[ovo.coef_row(b, a), slices[b]])
        n_pairs = ovo.n_pairs(k)
        source = np.empty(n_pairs, dtype=np.int64)
        sign = np.empty(n_pairs)
        for i, j in ovo.pairs(k):
            a, b = order[i], order[j]
            source[ovo.pair_index(i, j, k)] = ovo.pair_index(min(a, b), max(a, b), k)
            sign[ovo.pair_index(i, j, k)] = 1.0 if a < b else -1.0
        has_probability = self.probA is not None and self.probB is not None
        support_vectors = (None if self.support_vectors is None
                           else self.support_vectors[sv_rows])
        return self.replace(
            classes=self.classes[order], n_support=self.n_support[order],
            support_vectors=support_vectors,
            support=None if self.support is None else self.support[sv_rows],
            sv_coef=sv_coef, rho=sign * self.rho[source],
            probA=self.probA[source] if has_probability else None,
            probB=sign * self.probB[source] if has_probability else None,
            **{name: [getattr(self, name)[p] for p in source] if getattr(self, name)
               else () for name in PER_PROBLEM_FIELDS})

    def _check_rows(self, X):
        """Validated rows, and their squared norms for the RBF kernel.

        Sparse rows may have fewer columns than the training data (LIBSVM files omit
        trailing zero features) or more: features the model never saw add nothing to a
        dot product but do count in |x - sv|^2, exactly as in LIBSVM's svm-predict.
        """
        self.check_fields()
        if self.kernel == "precomputed":
            return check_precomputed(X, "X", n_train=self.n_features), None
        X = check_data(X, "X", allow_empty=True)
        norms = check_norms(X, "X")
        if X.shape[1] != self.n_features and not sp.issparse(X):
            raise ValueError(f"X has {X.shape[1]} features, but this model was "
                             f"trained with {self.n_features}")
        return X, norms

    def _each_kernel_block(self, X, norms, visit, coef=None):
        """visit(slice, K(X[slice], SV)) over blocks of rows, or with `coef`
        visit(slice, K(X[slice], SV) @ coef) (see for_each_kernel_block)."""
        if self.kernel == "precomputed":
            for_each_kernel_block(visit, X, self.support, "precomputed", 0.0, 0, 0.0,
                                  coef=coef)
            return
        if self._sv_layout is None:
            self._sv_layout = SupportRows(self.support_vectors)
        for_each_kernel_block(visit, X, self._sv_layout, self.kernel, self.gamma,
                              self.degree, self.coef0, X_norms=norms, coef=coef)

    def linear_weights(self):
        """Compute the primal weights of a linear-kernel model.

        One row per pair of classes, in rho's order (one row for two classes and the
        other svm types), so that f(x) = W x - rho; computed once and kept
        (read-only).

        Returns
        -------
        ndarray of shape (n_pairs, n_features)
            W, row k the weights sum_i sv_coef_i x_i of pair k.

        Raises
        ------
        ValueError
            The kernel is not linear.

        Examples
        --------
        >>> import numpy as np, libsmo
        >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
        >>> model = libsmo.train(X, np.array([1, 1, 2, 2]), kernel="linear")
        >>> model.linear_weights(), model.rho
        (array([[-0.5, -0.5]]), array([0.]))
        """
        self.check_fields()
        if self.kernel != "linear":
            raise ValueError(f"primal weights exist for the linear kernel, not {self.kernel!r}")
        if self._weights is None:
            SV = self.support_vectors
            if self.svm_type not in CLASSIFICATION_TYPES:
                rows = [self.sv_coef[0] @ SV]
            else:
                rows = [ci @ SV[si] + cj @ SV[sj] for si, ci, sj, cj in
                        ovo.pair_coefficients(self.sv_coef, self.n_support)]
            self._weights = np.vstack([np.asarray(r, dtype=np.float64).reshape(1, -1)
                                       for r in rows])
            self._weights.flags.writeable = False
        return self._weights

    def decision_function(self, X):
        """Compute the decision values f(x) = sum_i sv_coef_i K(x_i, x) - rho of each pair.

        Parameters
        ----------
        X : array-like of shape (n, n_features) or sparse matrix
            The rows; for kernel='precomputed', K(x, x_j) for every training row j.
            Sparse rows may have fewer or more columns than the model (LIBSVM's
            files omit trailing zero features).

        Returns
        -------
        ndarray of shape (n,) or (n, n_classes * (n_classes - 1) / 2)
            One value a row for two classes, regression and one-class, else one a
            pair of classes in LIBSVM's pair order; a positive value votes for the
            first class of the pair.

        Raises
        ------
        ValueError
            Rows of the wrong width, or decision values that overflow double
            precision.

        Examples
        --------
        >>> import numpy as np, libsmo
        >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
        >>> model = libsmo.train(X, np.array([1, 1, 2, 2]), kernel="linear")
        >>> model.decision_function([[-1.0, -1.0], [2.0, 1.0]])
        array([ 1. , -1.5])
        """
        X, norms = self._check_rows(X)
        n_pairs = self._n_decisions()
        # overflow shows as inf or NaN, which _finite_decisions refuses with a message
        with np.errstate(over="ignore", invalid="ignore"):
            if self._by_primal_weights():
                # one product with the primal weights instead of one per support vector
                out = np.asarray(self._with_width(X) @ self.linear_weights().T) - self.rho
                return _finite_decisions(out[:, 0] if n_pairs == 1 else out)
            out = np.empty((X.shape[0], n_pairs))
            if n_pairs == 1:
                # one decision (two classes, regression, one-class): the kernel sums
                # with the coefficients, which 0/1 rows count without the block
                def visit(rows, sums):
                    out[rows, 0] = sums - self.rho[0]

                self._each_kernel_block(X, norms, visit, coef=self.sv_coef[0])
            else:
                pair_decisions = self._pair_decisions()

                def visit(rows, K):
                    pair_decisions(K, out[rows])

                self._each_kernel_block(X, norms, visit)
        return _finite_decisions(out[:, 0] if n_pairs == 1 else out)

    def _pair_decisions(self):
        """The pairs' decision values from a kernel block (`ovo.PairDecisions`: the
        classes' slices and coefficients, gathered once until a field is assigned,
        as the support vectors' layout is; a prediction of a few rows took as long
        to gather them as to compute its kernel values)."""
        if self._pairs is None:
            self._pairs = ovo.PairDecisions(self.sv_coef, self.n_support, self.rho)
        return self._pairs

    def _n_decisions(self):
        """Decision values a row: one per pair of classes, else one."""
        return (ovo.n_pairs(self.n_classes) if self.svm_type in CLASSIFICATION_TYPES
                else 1)

    def _by_primal_weights(self):
        """Whether decision values come from the primal weights (`linear_weights`)."""
        n_pairs = self._n_decisions()
        return (self.kernel == "linear" and n_pairs * self.n_features * 8 <= DENSE_SV_BYTES
                and self.n_sv > PRIMAL_MIN_SV_PER_PAIR * n_pairs)

    def _votes(self, X):
        """The one-vs-one votes of each row of X for each class, (n, n_classes) int64,
        counted a kernel block at a time: every row's decision values at once would
        hold n x k(k-1)/2 doubles (sector's 3,207 test rows and 105 classes: 140 MB,
        whose first touch cost a third of the prediction). Inf or NaN decision values
        raise ValueError, as `decision_function` does."""
        X, norms = self._check_rows(X)
        counts = np.zeros((X.shape[0], self.n_classes), dtype=np.int64)
        pair_decisions = self._pair_decisions()
        n_pairs = self._n_decisions()

        def visit(rows, K):
            values = np.empty((K.shape[0], n_pairs))
            if pair_decisions(K, values):
                _refuse_overflow()
            ovo.tally_pairs(values, counts[rows])

        with np.errstate(over="ignore", invalid="ignore"):
            self._each_kernel_block(X, norms, visit)
        return counts

    def _with_width(self, X):
        """Sparse rows cut or padded to the model's n_features columns (the features
        beyond add nothing to a dot product)."""
        if not sp.issparse(X) or X.shape[1] == self.n_features:
            return X
        if X.shape[1] < self.n_features:
            return sp.csr_matrix((X.data, X.indices, X.indptr),
                                 shape=(X.shape[0], self.n_features))
        return X[:, :self.n_features]

    def predict(self, X):
        """Predict labels (classification), values (regression) or +1/-1 (one-class).

        Classification counts the one-vs-one votes, ties going to the class first in
        ``classes``, as LIBSVM's svm_predict does.

        Parameters
        ----------
        X : array-like of shape (n, n_features) or sparse matrix
            The rows, as for `decision_function`.

        Returns
        -------
        ndarray of shape (n,)
            Labels of ``classes``, regression values, or +1 (normal) / -1
            (outlier).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> import libsmo
        >>> X, y = load_iris(return_X_y=True)
        >>> libsmo.train(X, y).predict(X[[0, 50, 100]])
        array([0, 1, 2])
        """
        if (self.svm_type in CLASSIFICATION_TYPES and self.n_classes > 2
                and not self._by_primal_weights()):
            return self.classes[np.argmax(self._votes(X), axis=1)]
        dec = self.decision_function(X)
        if self.svm_type == "one_class":
            return np.where(dec > 0, 1.0, -1.0)
        if self.svm_type not in CLASSIFICATION_TYPES:
            return dec
        if dec.ndim == 1:
            return np.where(dec > 0, self.classes[0], self.classes[1])
        votes = ovo.votes(dec, self.n_classes)
        return self.classes[np.argmax(votes, axis=1)]

    def predict_proba(self, X, *, flavor="libsvm"):
        """Estimate probabilities, as LIBSVM's svm_predict_probability (svm-predict -b 1).

        Classification: each pair's decision value goes through its Platt sigmoid
        1 / (1 + exp(probA f + probB)), clipped to [1e-7, 1 - 1e-7]; with two classes
        these are the probabilities, with more they are coupled into class
        probabilities by Wu, Lin and Weng's method [2]_. svm-predict -b 1 labels a row
        with ``classes[argmax(predict_proba(X))]`` (the first class on ties), which
        can differ from `predict`, whose labels come from the votes.

        One-class (a model trained with probability=True, LIBSVM 3.30+): column 0 is
        the probability of being normal (+1), read from the density marks (0.001 below
        the lowest mark, i/10 between marks i-1 and i, 0.999 above the highest),
        column 1 its complement (outlier, -1).

        Parameters
        ----------
        X : array-like of shape (n, n_features) or sparse matrix
            The rows, as for `decision_function`.
        flavor : {'libsvm', 'sklearn'}, default='libsvm'
            'sklearn': two classes are coupled as more are, as scikit-learn's copy of
            LIBSVM does (its predict_proba), instead of read from the sigmoid.

        Returns
        -------
        ndarray of shape (n, n_classes)
            Columns in ``classes`` order (one-class: normal, outlier).

        Raises
        ------
        ValueError
            The model has no probability information (train with probability=True),
            or is a regression: its probability model is the Laplace scale probA[0]
            of the residual, not a distribution over classes.

        References
        ----------
        .. [1] H.-T. Lin, C.-J. Lin and R. C. Weng, "A note on Platt's probabilistic
           outputs for support vector machines", Machine Learning, 68(3), 267-276,
           2007.
        .. [2] T.-F. Wu, C.-J. Lin and R. C. Weng, "Probability estimates for
           multi-class classification by pairwise coupling", Journal of Machine
           Learning Research, 5, 975-1005, 2004.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> import libsmo
        >>> X, y = load_iris(return_X_y=True)
        >>> model = libsmo.train(X, y, probability=True, random_state=0)
        >>> model.predict_proba(X[[0, 50, 100]]).round(2)
        array([[0.97, 0.01, 0.01],
               [0.01, 0.96, 0.03],
               [0.01, 0.  , 0.98]])
        """
        pv.OneOf(FLAVORS).check(flavor, "flavor")
        self._check_probability_model()
        dec = self.decision_function(X)
        if self.svm_type == "one_class":
            normal = _probability.one_class_probability(dec, self.prob_density_marks)
            return np.column_stack([normal, 1.0 - normal])
        return _probability.class_probabilities(dec, self.probA, self.probB,
                                                self.n_classes, flavor=flavor)

    def _check_probability_model(self):
        """Raise ValueError unless predict_proba can answer for this model."""
        if self.svm_type in CLASSIFICATION_TYPES:
            n_pairs = ovo.n_pairs(self.n_classes)
            if (self.probA is None or self.probB is None or len(self.probA) != n_pairs
                    or len(self.probB) != n_pairs):
                raise ValueError("this model has no probability estimates (probA/probB "
                                 "for each pair of classes): train it with "
                                 "probability=True (LIBSVM's -b 1)")
        elif self.svm_type == "one_class":
            if self.prob_density_marks is None:
                raise ValueError("this one-class model has no probability estimates "
                                 "(prob_density_marks): train it with probability=True; "
                                 "training needs at least 5 positive and 5 negative "
                                 "decision values")
        else:
            raise ValueError(f"predict_proba does not apply to {self.svm_type}: LIBSVM's "
                             "regression probability model is a Laplace distribution "
                             "of the residual, target = prediction + z with density "
                             "exp(-|z|/sigma)/(2 sigma), sigma = probA[0]"
                             + ("" if self.probA is not None else
                                " (train with probability=True to get it)"))
