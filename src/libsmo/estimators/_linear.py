"""scikit-learn's LinearSVC and LinearSVR on libsmo's linear solvers: LIBLINEAR's dual
coordinate descent (`libsmo._core.linear_cd`) and its primal Newton method
(`libsmo._core.linear_newton`), reading the caller's dense or CSR rows in place.

The problems are scikit-learn's (its `_fit_liblinear`): the intercept is LIBLINEAR's
bias feature of value intercept_scaling, regularised with the weights; a classifier
with k > 2 classes trains k one-vs-rest problems (class i against the rest, C times
class i's weight for its rows and C for the others'), two classes one problem whose
positive class is classes_[1]; C_i = C x class weight x sample weight, and a sample of
weight 0 or less is left out. The rows go to the solver grouped by class in sorted
order, and the permutations come from scikit-learn's Mersenne Twister seeded with the
int scikit-learn's fit draws from random_state: a binary problem (and the first class's
of several) takes the same steps as scikit-learn's LinearSVC, to the bit. Class k of
several is seeded with that int + k, so that the classes can train at once
(``n_jobs``, threads: the solvers release the GIL) and give the same model for every
n_jobs.

Beyond scikit-learn: a squared-loss dual that reaches max_iter epochs goes on by the
Newton method from its weights (LIBLINEAR's switch for -s 1 and -s 12; scikit-learn's
copy warns instead), ``warm_start=True`` starts each fit from the previous solution (a
path of C values), ``n_jobs`` trains the one-vs-rest classes as joblib tasks.
"""
import warnings

import numpy as np
import scipy.sparse as sp

from libsmo._utils import constraints as pv
from libsmo._core.linear_rows import LinearRows
from libsmo.estimators._classifier import _BaseClassifier
from libsmo.estimators._input import check_targets, effective_sample_weight, validate_features
from libsmo.estimators._params import AnyOf, validate_parameters
from libsmo._utils.parallel import map_tasks
from libsmo._utils.random_sources import SklearnRandom
from libsmo.estimators._sklearn_compat import (HAVE_SKLEARN, BaseEstimator, ClassifierMixin,
                                    RegressorMixin, check_is_fitted)
from libsmo.exceptions import ConvergenceWarning
from libsmo.training._linear import (FeatureColumns, LinearTask, choose_dual,
                                    solve_crammer_singer, solve_guarded)
from libsmo.training._params import SOLVER_CONSTRAINTS as SOLVER

__all__ = ["LinearSVC", "LinearSVR"]

# scikit-learn's words, which its users' filters and tests match
NOT_CONVERGED = "Liblinear failed to converge, increase the number of iterations."
# the values the solvers read without a copy (float32: a vectorizer's dtype=np.float32)
READ_AS_IS = [np.float64, np.float32]
COMMON = {
    "tol": pv.Positive(),
    "C": pv.Positive(),
    "fit_intercept": pv.Boolean(),
    "intercept_scaling": pv.Positive(),
    "dual": AnyOf(pv.Boolean(), pv.OneOf(("auto",))),
    "verbose": SOLVER["verbose"],
    "random_state": pv.Seed(legacy=True),
    "max_iter": pv.Positive(integer=True, allow_zero=True),
    "warm_start": pv.Boolean(),
}


def fit_seed(random_state):
    """The Mersenne Twister's seed of one fit, drawn as scikit-learn's fit draws it
    (randint(2**31 - 1) from check_random_state(random_state)); a numpy Generator gives
    one draw of its own."""
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int32).max))
    if hasattr(random_state, "seed") and not isinstance(random_state,
                                                        np.random.RandomState):
        return int(random_state.seed) & 0xFFFFFFFF    # SklearnRandom, LibsvmRandom
    return SklearnRandom.from_random_state(random_state).seed


def _dense_scores(X, coef, intercept):
    scores = X @ coef.T
    if sp.issparse(scores):
        scores = scores.toarray()
    return np.asarray(scores) + intercept


class _BaseLinear(BaseEstimator):
    """What LinearSVC and LinearSVR share: parameters, the method, the rows, the solves,
    warm starts, prediction's scores."""

    _parameter_constraints = {}
    _squared_losses = ()

    def _fit_start(self, X, y):
        validate_parameters(self)
        y = check_targets(self, y)
        return validate_features(self, X, y, reset=True, dtype=READ_AS_IS)

    def _use_dual(self, X, penalty="l2"):
        return choose_dual(self.loss, penalty, self.dual, X.shape)

    def _linear_rows(self, X):
        return LinearRows(X, float(self.intercept_scaling) if self.fit_intercept else 0.0)

    def _warm_starts(self, n_problems, n_rows, dual):
        """The previous fit's solutions where warm_start=True and they fit this one:
        the same rows and problems (and the same method's kind of start)."""
        previous = getattr(self, "_warm", None)
        if not (self.warm_start and previous is not None):
            return [None] * n_problems
        starts = previous["dual" if dual else "w"]
        if len(starts) != n_problems or previous["n_rows"] != n_rows:
            return [None] * n_problems
        return list(starts)

    def _solve(self, tasks, n_jobs):
        """Solve the tasks (as joblib tasks with n_jobs), warn once if any stopped at
        max_iter, and keep what a warm start needs."""
        try:
            fits = map_tasks(solve_guarded, tasks, n_jobs)
        except BaseException:
            tasks[0].stop_flag[0] = 1     # Ctrl-C here: the other classes stop too
            raise
        if not all(f.converged for f in fits):
            warnings.warn(self._stall_message(fits), ConvergenceWarning, stacklevel=3)
        if self.verbose:
            for k, f in enumerate(fits):
                print(f"[libsmo LinearSVM] problem {k}: {f.method}, {f.n_iter} "
                      f"iterations, objective {f.objective:.6f}, "
                      f"{'optimal' if f.converged else 'stopped at max_iter'}")
        if self.warm_start:
            self._warm = {"dual": [f.dual for f in fits], "w": [f.w for f in fits],
                          "n_rows": tasks[0].rows.n_rows}
        self.n_iter_ = int(max(f.n_iter for f in fits))
        return fits

    def _stall_message(self, fits):
        if any(f.method == "l1" for f in fits):
            why = " The L1-regularised coordinate descent took max_iter epochs."
        elif self.loss in self._squared_losses:
            why = " The primal Newton method took its maximum of steps."
        else:
            why = (f" The dual coordinate descent of loss={self.loss!r}, which has no "
                   "primal method, took max_iter epochs: scale the features, lower C, "
                   "raise tol or max_iter, or use the squared loss, whose stalled dual "
                   "goes on by the Newton method.")
        return NOT_CONVERGED + why

    def _coef_and_intercept(self, fits):
        """coef_ and intercept_ from the problems' weights (a joint problem's are one
        row per class)."""
        W = np.vstack([np.atleast_2d(f.w) for f in fits])
        if self.fit_intercept:
            return W[:, :-1], self.intercept_scaling * W[:, -1]
        return W, 0.0

    def _scores(self, X):
        check_is_fitted(self)
        X, _ = validate_features(self, X, reset=False, dtype=READ_AS_IS)
        return _dense_scores(X, self.coef_, self.intercept_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class LinearSVC(ClassifierMixin, _BaseLinear):
    """Linear support vector classification, scikit-learn's LinearSVC on libsmo's
    solvers (LIBLINEAR's dual coordinate descent and primal Newton method).

    Minimises 1/2 |w|^2 + sum_i C_i loss(y_i (w'x_i + b)) with the bias b as LIBLINEAR's
    extra feature of value intercept_scaling (regularised with w); the hinge loss by the
    dual coordinate descent, the squared hinge by it or by the primal Newton method.

    Parameters
    ----------
    penalty : {"l1", "l2"}, default="l2"
        The regularisation: "l1" (squared hinge, dual=False: LIBLINEAR's -s 5, by
        coordinate descent over the features, on a column-major copy of the rows)
        gives sparse coef_.
    loss : {"hinge", "squared_hinge"}, default="squared_hinge"
    dual : bool or "auto", default="auto"
        The dual coordinate descent (True) or the primal Newton method (False; squared
        hinge only); "auto" is scikit-learn's choice (the dual when n_samples <
        n_features). A squared-hinge dual that reaches max_iter epochs finishes by the
        Newton method from its weights (up to 1000 steps), as LIBLINEAR's -s 1 does.
    tol : float, default=1e-4
        LIBLINEAR's eps: the dual's projected gradients within tol; the primal's
        gradient norm within tol x min(#pos, #neg) / n of its value at w = 0.
    C : float, default=1.0
    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        One-vs-rest, or Crammer and Singer's joint multi-class problem (LIBLINEAR's
        -s 4, which ignores loss, penalty and dual; its epochs are bounded by max_iter,
        where scikit-learn's copy allows 100000).
    fit_intercept : bool, default=True
    intercept_scaling : float, default=1.0
        The bias feature's value; intercept_ = intercept_scaling x its weight.
    class_weight : dict or "balanced", default=None
        C of class i's rows times its weight (in one-vs-rest, for its own problem).
    verbose : int, default=0
        Print each problem's method, iterations and objective.
    random_state : int, RandomState instance or None, default=None
        The permutations' seed is drawn from it at every fit, as scikit-learn draws it.
    max_iter : int, default=1000
        Epochs of the dual, or Newton steps of the primal.
    warm_start : bool, default=False
        Start from the previous fit's solution (the same rows and classes).
    n_jobs : int, default=None
        One-vs-rest problems trained at once (joblib tasks on threads).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,), or 0.0 without an intercept
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    n_iter_ : int
        The most iterations any problem took.

    Examples
    --------
    >>> import numpy as np
    >>> from libsmo import LinearSVC
    >>> X = np.array([[-2.0, -1.0], [-1.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> clf = LinearSVC(random_state=0).fit(X, y)
    >>> clf.predict([[-0.8, -1.0], [1.5, 0.5]])
    array([0, 1])
    """

    _parameter_constraints = {
        "penalty": pv.OneOf(("l1", "l2")),
        "loss": pv.OneOf(("hinge", "squared_hinge")),
        "multi_class": pv.OneOf(("ovr", "crammer_singer")),
        "class_weight": AnyOf(pv.OneOf(("balanced",)), pv.ClassWeights()),
        "n_jobs": SOLVER["n_jobs"],
        **COMMON,
    }
    _squared_losses = ("squared_hinge",)

    def __init__(self, penalty="l2", loss="squared_hinge", *, dual="auto", tol=1e-4,
                 C=1.0, multi_class="ovr", fit_intercept=True, intercept_scaling=1,
                 class_weight=None, verbose=0, random_state=None, max_iter=1000,
                 warm_start=False, n_jobs=None):
        self.penalty = penalty
        self.loss = loss
        self.dual = dual
        self.tol = tol
        self.C = C
        self.multi_class = multi_class
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.verbose = verbose
        self.random_state = random_state
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None):
        """Fit the model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies C per sample; a weight of 0 or less leaves the sample out.

        Returns
        -------
        self
        """
        X, y = self._fit_start(X, y)
        if HAVE_SKLEARN:
            from sklearn.utils.multiclass import check_classification_targets
            check_classification_targets(y)
        classes, encoded = np.unique(y, return_inverse=True)
        encoded = encoded.ravel()
        if len(classes) < 2:
            raise ValueError("This solver needs samples of at least 2 classes in the "
                             f"data, but the data contains only one class: {classes[0]!r}")
        crammer_singer = self.multi_class == "crammer_singer"   # loss, penalty, dual unused
        dual = True if crammer_singer else self._use_dual(X, self.penalty)
        previous_classes = getattr(self, "classes_", None)
        self.classes_ = classes
        n = len(encoded)
        weight = effective_sample_weight(sample_weight, n)
        weight = np.ones(n) if weight is None else weight
        class_C = self.C * self._class_weights(encoded, weight)
        taking_part = np.flatnonzero(weight > 0)
        # scikit-learn's LIBLINEAR groups the rows by class, in sorted order
        order = taking_part[np.argsort(encoded[taking_part], kind="stable")]
        rows = self._linear_rows(X)
        seed = fit_seed(self.random_state)
        if crammer_singer:
            return self._fit_crammer_singer(rows, order, encoded,
                                            class_C[encoded] * weight, seed)
        if len(classes) == 2:
            positives = [encoded == 1]
            bounds = [np.where(encoded == 1, class_C[1], class_C[0]) * weight]
        else:
            positives = [encoded == k for k in range(len(classes))]
            bounds = [np.where(p, class_C[k], self.C) * weight
                      for k, p in enumerate(positives)]
        same_classes = (previous_classes is not None
                        and np.array_equal(previous_classes, classes))
        starts = (self._warm_starts(len(positives), n, dual) if same_classes
                  else [None] * len(positives))
        stop_flag = np.zeros(1, dtype=np.int8)
        columns = (FeatureColumns.of(X, order, rows.bias) if self.penalty == "l1"
                   else None)
        tasks = [LinearTask(rows, order, np.where(p, 1.0, -1.0), b, dual,
                            self.loss == "squared_hinge", False, 0.0, float(self.tol),
                            int(self.max_iter), (seed + k) & 0xFFFFFFFF, stop_flag,
                            start, columns)
                 for k, (p, b, start) in enumerate(zip(positives, bounds, starts))]
        fits = self._solve(tasks, self.n_jobs)
        self.coef_, self.intercept_ = self._coef_and_intercept(fits)
        return self

    def _fit_crammer_singer(self, rows, order, encoded, bounds, seed):
        """One joint problem over every class (LIBLINEAR's -s 4); for two classes the
        difference of the classes' weights, as scikit-learn reports it."""
        fit = solve_crammer_singer(rows, order, encoded, bounds, len(self.classes_),
                                   float(self.tol), int(self.max_iter), seed)
        if not fit.converged:
            warnings.warn(NOT_CONVERGED + " The Crammer-Singer dual coordinate descent "
                          "took max_iter epochs.", ConvergenceWarning, stacklevel=3)
        self.n_iter_ = int(fit.n_iter)
        coef, intercept = self._coef_and_intercept([fit])
        if len(self.classes_) == 2:
            coef = (coef[1] - coef[0]).reshape(1, -1)
            intercept = intercept[1:] - intercept[:1] if self.fit_intercept else 0.0
        self.coef_, self.intercept_ = np.ascontiguousarray(coef), intercept
        return self

    def _class_weights(self, encoded, weight):
        """scikit-learn's compute_class_weight: "balanced" from the weighted class
        counts, a dict's weights (the classes it leaves out weigh 1)."""
        k = len(self.classes_)
        if isinstance(self.class_weight, str):
            counts = np.bincount(encoded, weights=weight, minlength=k)
            with np.errstate(divide="ignore"):
                return counts.sum() / (k * counts)
        return _BaseClassifier._class_weights(self, encoded)

    def decision_function(self, X):
        """Confidence scores: w'x + b per class; (n_samples,) for two classes (positive
        means classes_[1]).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        scores = self._scores(X)
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        """The class of the largest score (two classes: classes_[1] where it is > 0).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        index = (scores > 0).astype(np.intp) if scores.ndim == 1 else scores.argmax(axis=1)
        return self.classes_[index]

    def densify(self):
        """coef_ as a dense array (after `sparsify`); returns self."""
        check_is_fitted(self)
        if sp.issparse(self.coef_):
            self.coef_ = self.coef_.toarray()
        return self

    def sparsify(self):
        """coef_ as a CSR matrix (for coefficients that are mostly zeros); returns self."""
        check_is_fitted(self)
        self.coef_ = sp.csr_matrix(self.coef_)
        return self


class LinearSVR(RegressorMixin, _BaseLinear):
    """Linear support vector regression, scikit-learn's LinearSVR on libsmo's solvers.

    Minimises 1/2 |w|^2 + sum_i C_i loss(y_i - w'x_i - b) with the bias as LinearSVC's;
    the epsilon-insensitive loss by the dual coordinate descent, the squared one by it
    or by the primal Newton method.

    Parameters
    ----------
    epsilon : float, default=0.0
        The insensitive zone's half width (>= 0).
    tol : float, default=1e-4
        The dual stops when an epoch's summed violation is within tol of the first
        epoch's; the primal when its gradient norm is within tol of its value at 0.
    C : float, default=1.0
    loss : {"epsilon_insensitive", "squared_epsilon_insensitive"}, \
            default="epsilon_insensitive"
    fit_intercept : bool, default=True
    intercept_scaling : float, default=1.0
    dual : bool or "auto", default="auto"
        As LinearSVC's: a squared-loss dual that reaches max_iter finishes by the
        Newton method (LIBLINEAR's -s 12).
    verbose : int, default=0
    random_state : int, RandomState instance or None, default=None
    max_iter : int, default=1000
    warm_start : bool, default=False

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : ndarray of shape (1,), or 0.0 without an intercept
    n_features_in_ : int
    n_iter_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from libsmo import LinearSVR
    >>> X = np.arange(10.0).reshape(-1, 1)
    >>> reg = LinearSVR(C=10.0, random_state=0, tol=1e-6).fit(X, 2 * X.ravel() + 1)
    >>> np.round(reg.predict([[20.0]]), 1)
    array([41.])
    """

    _parameter_constraints = {
        "epsilon": pv.Positive(allow_zero=True),
        "loss": pv.OneOf(("epsilon_insensitive", "squared_epsilon_insensitive")),
        **COMMON,
    }
    _squared_losses = ("squared_epsilon_insensitive",)

    def __init__(self, *, epsilon=0.0, tol=1e-4, C=1.0, loss="epsilon_insensitive",
                 fit_intercept=True, intercept_scaling=1.0, dual="auto", verbose=0,
                 random_state=None, max_iter=1000, warm_start=False):
        self.epsilon = epsilon
        self.tol = tol
        self.C = C
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.dual = dual
        self.verbose = verbose
        self.random_state = random_state
        self.max_iter = max_iter
        self.warm_start = warm_start

    def fit(self, X, y, sample_weight=None):
        """Fit the model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies C per sample; a weight of 0 or less leaves the sample out.

        Returns
        -------
        self
        """
        X, y = self._fit_start(X, y)
        y = np.asarray(y, dtype=np.float64)
        dual = self._use_dual(X)
        n = len(y)
        weight = effective_sample_weight(sample_weight, n)
        weight = np.ones(n) if weight is None else weight
        order = np.flatnonzero(weight > 0)
        rows = self._linear_rows(X)
        start = self._warm_starts(1, n, dual)[0]
        task = LinearTask(rows, order, y, self.C * weight, dual,
                          self.loss == "squared_epsilon_insensitive", True,
                          float(self.epsilon), float(self.tol), int(self.max_iter),
                          fit_seed(self.random_state), np.zeros(1, dtype=np.int8),
                          start)
        fits = self._solve([task], None)
        coef, intercept = self._coef_and_intercept(fits)
        self.coef_ = coef.ravel()
        self.intercept_ = intercept
        return self

    def predict(self, X):
        """w'x + b of each row.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X, _ = validate_features(self, X, reset=False, dtype=READ_AS_IS)
        return _dense_scores(X, self.coef_[None, :], self.intercept_).ravel()
