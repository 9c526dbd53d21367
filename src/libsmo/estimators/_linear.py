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
int scikit-learn's fit draws from random_state: with revisits=0 a binary problem (and
the first class's of several) takes the same steps as scikit-learn's LinearSVC, to the
bit. Class k of several is seeded with that int + k, so that the classes can train at
once (``n_jobs``, threads: the solvers release the GIL) and give the same model for
every n_jobs.

Beyond scikit-learn: a squared-loss dual that reaches max_iter epochs, or whose
progress shows that it would (`libsmo._core.linear_epochs`), goes on by the Newton
method from its weights (LIBLINEAR's switch for -s 1 and -s 12; scikit-learn's copy
warns instead), ``warm_start=True`` starts each fit from the previous solution (a
path of C values), ``n_jobs`` trains the one-vs-rest classes as joblib tasks, and the
classification dual gives each epoch's two extreme violators ``revisits`` more steps
(by default 16: fewer epochs where coupled rows would hold it above tol).
"""
import dataclasses
import functools
import warnings

import numpy as np
import scipy.sparse as sp

from libsmo._core.linear_rows import LinearRows
from libsmo._utils import constraints as pv
from libsmo._utils.constraints import usable_cores
from libsmo._utils.parallel import effective_n_jobs, imap_tasks
from libsmo._utils.random_sources import SklearnRandom
from libsmo.estimators._classifier import _BaseClassifier
from libsmo.estimators._input import (
    check_targets,
    effective_sample_weight,
    sorted_classes,
    validate_features,
)
from libsmo.estimators._params import AnyOf, validate_parameters
from libsmo.estimators._sklearn_compat import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    check_is_fitted,
)
from libsmo.exceptions import ConvergenceWarning
from libsmo.io.liblinear_model import (
    SVM_SOLVERS,
    LiblinearModel,
    load_liblinear_model,
    save_liblinear_model,
)
from libsmo.training._linear import (
    SMOOTHED_MAX_WEIGHTS,
    SOLVER_TYPES,
    FeatureColumns,
    LinearTask,
    choose_dual,
    newton_threads,
    shared_diagonals,
    solve_crammer_singer,
    solve_guarded,
)
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
# LIBLINEAR's solver numbers -> its names (the model file's solver_type)
SOLVER_NAMES = {number: name for name, number in SVM_SOLVERS.items()}
INT32 = np.iinfo(np.int32)
INT16_MAX = int(np.iinfo(np.int16).max)
# LinearSVC's revisits at most (the solver's count is a C int; far more than any use)
MAX_REVISITS = 1 << 20


def fit_seed(random_state):
    """The Mersenne Twister's seed of one fit, drawn as scikit-learn's fit draws it
    (randint(2**31 - 1) from check_random_state(random_state)); a numpy Generator gives
    one draw of its own."""
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(INT32.max))
    if hasattr(random_state, "seed") and not isinstance(random_state,
                                                        np.random.RandomState):
        return int(random_state.seed) & 0xFFFFFFFF    # SklearnRandom, LibsvmRandom
    if type(random_state) is int:
        return _int_seed_draw(random_state)
    return SklearnRandom.from_random_state(random_state).seed


@functools.lru_cache(maxsize=64)
def _int_seed_draw(random_state):
    """The seed an int random_state gives (a fresh RandomState of it, one draw): the
    same every fit, and seeding a RandomState takes longer than a small problem's
    epochs."""
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

    def __sklearn_is_fitted__(self):
        """Whether a fit (or a LIBLINEAR model) gave the estimator its weights: what
        scikit-learn's check_is_fitted asks, instead of looking through the name of
        every attribute (longer than the rest of a one-row prediction)."""
        return "coef_" in self.__dict__

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
        max_iter, and keep what a warm start needs; (fits, weights): task k's weights
        are row k of `weights` (its fit's w a view of that row). Each fit's weights move
        into that array as it finishes, and the solver's own are freed then: collecting
        the fits first and stacking their weights after held every class's weights
        twice at once (the fit's peak memory with many classes and features). One task
        (two classes, a regression) runs here, its weights the solver's own (`weights`
        a view of them), and takes the n_jobs as the Newton method's threads over its
        rows instead (liblinear-multicore's -m; `newton_threads`: fewer on small
        data)."""
        if len(tasks) == 1:
            # (joblib is asked for n_jobs only where the rows could use the threads)
            threads = newton_threads(tasks[0].rows, 2)
            if threads > 1:
                threads = newton_threads(tasks[0].rows,
                                         min(effective_n_jobs(n_jobs), usable_cores()))
            if threads != tasks[0].threads:
                tasks = [dataclasses.replace(tasks[0], threads=threads)]
            fits = [solve_guarded(tasks[0])]
            weights = np.asarray(fits[0].w, dtype=np.float64).reshape(1, -1)
        else:
            weights = np.empty((len(tasks), tasks[0].rows.n_weights))
            fits = []
            try:
                for k, fit in enumerate(imap_tasks(solve_guarded, tasks, n_jobs)):
                    weights[k] = fit.w
                    fits.append(dataclasses.replace(fit, w=weights[k]))
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
            # copies: coef_ is a view of `weights`, which a caller may change
            self._warm = {"dual": [f.dual for f in fits], "w": [f.w.copy() for f in fits],
                          "n_rows": tasks[0].rows.n_rows}
        self.n_iter_ = int(max(f.n_iter for f in fits))
        return fits, weights

    def _stall_message(self, fits):
        if any(f.method == "l1" for f in fits):
            why = " The L1-regularised coordinate descent took max_iter epochs."
        elif self.loss in self._squared_losses:
            why = (" The primal Newton method took its maximum of steps, or found no "
                   "more decrease short of tol (or its arithmetic overflowed, on values "
                   "of 1e30 and up: scale the features) and the dual did not reach tol "
                   "after it.")
        else:
            loss = "hinge" if self.loss == "hinge" else "loss"
            why = (f" The dual coordinate descent of loss={self.loss!r} did not reach tol "
                   "within the work of max_iter full epochs, nor, after it, from the "
                   f"point the Newton method on the smoothed {loss} gave within max_iter "
                   f"steps (tried for at most {SMOOTHED_MAX_WEIGHTS} weights; the fit "
                   "keeps that point where it is the better): scale the features, lower C, "
                   f"raise tol or max_iter, or use the squared {loss}, whose stalled dual "
                   "goes on by the Newton method.")
        return NOT_CONVERGED + why

    def _coef_and_intercept(self, W):
        """coef_ (a view of W) and intercept_ from the weights W, one row per problem or
        class, the bias's weight last."""
        if self.fit_intercept:
            return W[:, :-1], self.intercept_scaling * W[:, -1]
        return W, 0.0

    def _scores(self, X):
        check_is_fitted(self)
        X, _ = validate_features(self, X, reset=False, dtype=READ_AS_IS)
        return _dense_scores(X, self.coef_, self.intercept_)

    def _weight_columns(self):
        """coef_ and the bias feature's weights as LIBLINEAR's w: one row per feature
        (the bias feature's last, where fit_intercept), one column per problem."""
        check_is_fitted(self)
        coef = self.coef_.toarray() if sp.issparse(self.coef_) else np.asarray(self.coef_)
        coef = np.atleast_2d(coef)
        if not self.fit_intercept:
            return coef.T, -1.0
        bias = float(self.intercept_scaling)
        intercept = np.broadcast_to(np.asarray(self.intercept_, dtype=np.float64),
                                    (coef.shape[0],))
        return np.vstack([coef.T, intercept / bias]), bias

    def save(self, path):
        r"""Write the fitted model as a LIBLINEAR model file.

        The file is LIBLINEAR 2.50's (its save_model's format): liblinear-predict,
        liblinear-official's `load_model` and `from_model` read it, and predict this
        estimator's labels.

        Parameters
        ----------
        path : str, path-like or binary file object
            Where to write; a path is written to a temporary file in its folder and
            renamed into place, so that a failure leaves any previous file intact.

        Raises
        ------
        ValueError
            The model cannot be written in LIBLINEAR's format (class labels that are
            not 32-bit integers, NaN or infinite weights).

        See Also
        --------
        from_model : The other way: an estimator from a LIBLINEAR model file.

        Examples
        --------
        >>> import io
        >>> import numpy as np
        >>> from libsmo import LinearSVC
        >>> X = np.array([[-2.0, -1.0], [-1.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
        >>> clf = LinearSVC(random_state=0).fit(X, [-1, -1, 1, 1])
        >>> out = io.BytesIO()
        >>> clf.save(out)
        >>> print(out.getvalue().decode().split("w\n")[0], end="")
        solver_type L2R_L2LOSS_SVC
        nr_class 2
        label 1 -1
        nr_feature 2
        bias 1
        """
        save_liblinear_model(self._liblinear_model(), path)

    @classmethod
    def _read_liblinear(cls, model, n_features):
        """(the estimator with the solver's parameters, the model, the features' and
        the bias feature's weights, the width)."""
        if not isinstance(model, LiblinearModel):
            model = load_liblinear_model(model)
        if model.solver_type not in cls._solver_parameters:
            raise ValueError(f"a {model.solver_type} model is not a {cls.__name__} "
                             f"model (solver types {sorted(cls._solver_parameters)})")
        width = model.n_features if n_features is None else n_features
        if not isinstance(width, (int, np.integer)) or width < model.n_features:
            raise ValueError(f"n_features must be an integer of at least the model's "
                             f"nr_feature {model.n_features}, got {n_features!r}")
        with_bias = model.bias > 0
        estimator = cls(**cls._solver_parameters[model.solver_type],
                        fit_intercept=bool(with_bias),
                        intercept_scaling=model.bias if with_bias else 1.0)
        features = np.zeros((int(width), model.nr_w))
        features[:model.n_features] = model.w[:model.n_features]
        bias_weights = (model.bias * model.w[model.n_features] if with_bias
                        else np.zeros(model.nr_w))
        estimator.n_features_in_ = int(width)
        estimator._solver_type = model.solver_type
        return estimator, model, features, bias_weights

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class LinearSVC(ClassifierMixin, _BaseLinear):
    """Linear support vector classification: LIBLINEAR's problems and solvers.

    A drop-in for `sklearn.svm.LinearSVC`: the same parameters, problems, fitted
    attributes and messages, trained by libsmo's compiled copies of LIBLINEAR's dual
    coordinate descent (Hsieh et al. 2008), its primal Newton method, Crammer and
    Singer's multi-class dual and the L1-regularised coordinate descent. It minimises
    ``1/2 w'w + sum_i C_i loss(y_i (w'x_i + b))``, the bias b being LIBLINEAR's extra
    feature of value ``intercept_scaling`` (regularised with w). Several classes are
    trained one-vs-rest. Beyond scikit-learn: ``n_jobs`` trains the one-vs-rest
    problems at once, ``warm_start`` starts a fit from the previous solution, and a
    squared-hinge dual that stalls goes on by the Newton method, as LIBLINEAR does.

    Parameters
    ----------
    penalty : {'l1', 'l2'}, default='l2'
        The regularisation. 'l1' (with loss='squared_hinge' and dual=False;
        LIBLINEAR's ``-s 5``, coordinate descent over the features on a column-major
        copy of the rows) gives sparse ``coef_``.
    loss : {'hinge', 'squared_hinge'}, default='squared_hinge'
        The loss: the hinge ``max(0, 1 - y f(x))`` (LIBLINEAR's ``-s 3``; dual only)
        or its square (``-s 1`` in the dual, ``-s 2`` in the primal).
    dual : bool or 'auto', default='auto'
        The dual coordinate descent (True) or the primal Newton method (False;
        squared hinge only). 'auto' is scikit-learn's rule: the dual when
        n_samples < n_features and the combination allows it. A squared-hinge dual
        that reaches max_iter epochs finishes by the Newton method from its weights
        (up to 1000 steps), as LIBLINEAR's ``-s 1`` does; so does one whose progress
        over 25 epochs (from the 50th) shows that max_iter epochs would not reach
        tol, without them (with ``revisits=0`` a dual that reaches tol takes
        scikit-learn's steps).
    tol : float, default=1e-4
        LIBLINEAR's ``-e``: the dual stops when its projected gradients lie within
        tol; the primal when the gradient's norm is within ``tol * min(#pos, #neg) /
        n`` of its value at w = 0.
    C : float, default=1.0
        Regularisation parameter: the weight of the losses against ``1/2 w'w``
        (LIBLINEAR's ``-c``). Must be positive.
    multi_class : {'ovr', 'crammer_singer'}, default='ovr'
        One-vs-rest problems, or Crammer and Singer's joint multi-class problem
        (LIBLINEAR's ``-s 4``, which ignores loss, penalty and dual; its epochs are
        bounded by max_iter, where scikit-learn's copy allows 100000).
    fit_intercept : bool, default=True
        Whether to fit the bias b (as LIBLINEAR's extra feature); False is
        LIBLINEAR's ``-B -1``.
    intercept_scaling : float, default=1.0
        The bias feature's value (LIBLINEAR's ``-B``): ``intercept_`` is
        intercept_scaling times its weight, so a larger value regularises the bias
        less.
    class_weight : dict or 'balanced', default=None
        Multiplies C by class_weight[label] for the rows of that class (LIBLINEAR's
        ``-wi``; in one-vs-rest, for the class's own problem); 'balanced' weighs the
        classes by ``n_samples / (n_classes * count)``. A weight of 0 leaves the
        class's rows out of its problem (as scikit-learn's C_i = 0 does; in
        one-vs-rest they stay in the other classes' problems).
    verbose : int, default=0
        Print each problem's method, iterations and objective after the fit.
    random_state : int, RandomState instance or None, default=None
        The seed of the dual's random permutations, drawn from random_state at every
        fit as scikit-learn draws it (so that, with ``revisits=0``, the same int
        gives scikit-learn's steps).
    max_iter : int, default=1000
        The most epochs of the dual, or Newton steps of the primal. The hinge loss's
        dual, which has no primal method to go on by, counts its work instead: past
        max_iter epochs it goes on while the rows it visited stay within max_iter full
        epochs' worth (its later epochs, where the shrinking set most rows aside, are
        short), and where that ends short of tol, at most max_iter Newton steps on the
        hinge smoothed over narrowing bands bring it to a point from which the dual
        meets tol; so its ``n_iter_`` may exceed max_iter.
    warm_start : bool, default=False
        Start each fit from the previous fit's solution when the rows and classes
        are the same (a path of C values).
    n_jobs : int, default=None
        The number of one-vs-rest problems trained at once (joblib tasks on
        threads); None means 1. The model is the same for every n_jobs, but for
        one problem (two classes) solved by the primal Newton method (dual=False,
        or a squared-hinge dual that reached max_iter): there n_jobs threads share
        its passes over the rows (liblinear-multicore's ``-m``), and its sums,
        added in shares, give the same optimum in bits that depend on n_jobs.
    revisits : int, default=16
        After each epoch of the dual coordinate descent that has not met tol, the
        rows of its largest and smallest projected gradient take this many more
        coordinate steps each, in turn (libsmo's own parameter). Where two coupled
        rows hold the stopping measure above tol (each step of one undoing part of
        the other's), they settle in a few steps instead of one an epoch: on text
        data the dual then often reaches tol in a third to a half of the epochs, at
        the same optimum. 0 takes LIBLINEAR's and scikit-learn's steps: with the same
        random_state a two-class problem's ``coef_`` is then scikit-learn's, to the
        bit.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The weights w, one row per problem (one row for two classes).
    intercept_ : ndarray of shape (1,) or (n_classes,), or float
        The bias b of each problem; 0.0 when fit_intercept is False.
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_features_in_ : int
        The number of features seen during `fit`.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        The names of the features, when X has string column names.
    n_iter_ : int
        The most iterations (epochs or Newton steps) any problem took.

    See Also
    --------
    libsmo.LinearSVR : Linear support vector regression on the same solvers.
    libsmo.SVC : LIBSVM's problem (unregularised bias, one-vs-one); kernel='linear'.
    sklearn.svm.LinearSVC : The scikit-learn estimator, over its copy of LIBLINEAR.

    Notes
    -----
    The problems are scikit-learn's: for two classes one problem whose positive class
    is ``classes_[1]``, for k classes k one-vs-rest problems, class i's weight on its
    own rows; a sample of weight 0 or less is left out. The rows go to the solver
    grouped by class and the permutations come from scikit-learn's Mersenne Twister,
    so that with ``revisits=0`` a binary problem takes scikit-learn's steps. The bias
    is regularised, so the optimum differs from `libsmo.SVC` with a linear kernel
    (LIBSVM's problem).

    References
    ----------
    .. [1] C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi and S. Sundararajan, "A
       dual coordinate descent method for large-scale linear SVM", ICML 2008.
    .. [2] R.-E. Fan, K.-W. Chang, C.-J. Hsieh, X.-R. Wang and C.-J. Lin, "LIBLINEAR:
       A library for large linear classification", JMLR 9, 2008.

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
        "class_weight": AnyOf(pv.OneOf(("balanced",)), pv.ClassWeights(allow_zero=True)),
        "n_jobs": SOLVER["n_jobs"],
        "revisits": pv.Positive(integer=True, allow_zero=True, maximum=MAX_REVISITS),
        **COMMON,
    }
    _squared_losses = ("squared_hinge",)
    _solver_parameters = {
        "L2R_L2LOSS_SVC_DUAL": {"loss": "squared_hinge", "dual": True},
        "L2R_L2LOSS_SVC": {"loss": "squared_hinge", "dual": False},
        "L2R_L1LOSS_SVC_DUAL": {"loss": "hinge", "dual": True},
        "MCSVM_CS": {"multi_class": "crammer_singer"},
        "L1R_L2LOSS_SVC": {"penalty": "l1", "loss": "squared_hinge", "dual": False},
    }

    def __init__(self, penalty="l2", loss="squared_hinge", *, dual="auto", tol=1e-4,
                 C=1.0, multi_class="ovr", fit_intercept=True, intercept_scaling=1,
                 class_weight=None, verbose=0, random_state=None, max_iter=1000,
                 warm_start=False, n_jobs=None, revisits=16):
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
        self.revisits = revisits

    def fit(self, X, y, sample_weight=None):
        """Fit the classifier on samples X and labels y.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples; float64 and float32 rows (dense C-contiguous or CSR)
            are read in place, others are converted to float64.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies C per sample; a sample of weight 0 or less is left out.

        Returns
        -------
        self
            The fitted estimator itself.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import LinearSVC
        >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 3.0], [3.0, 2.0]])
        >>> clf = LinearSVC(random_state=0).fit(X, [0, 0, 1, 1])
        >>> clf.classes_, clf.coef_.shape
        (array([0, 1]), (1, 2))
        """
        X, y = self._fit_start(X, y)
        classes, encoded = sorted_classes(y)
        if len(classes) < 2:
            raise ValueError("This solver needs samples of at least 2 classes in the "
                             f"data, but the data contains only one class: {classes[0]!r}")
        crammer_singer = self.multi_class == "crammer_singer"   # loss, penalty, dual unused
        dual = True if crammer_singer else self._use_dual(X, self.penalty)
        self._solver_type = ("MCSVM_CS" if crammer_singer else
                             SOLVER_NAMES[SOLVER_TYPES[(self.loss, self.penalty, dual)]])
        previous_classes = getattr(self, "classes_", None)
        self.classes_ = classes
        n = len(encoded)
        given = effective_sample_weight(sample_weight, n)
        weight = np.ones(n) if given is None else given
        class_C = self.C * self._class_weights(encoded, weight)
        # scikit-learn's LIBLINEAR groups the rows by class, in sorted order
        # (as int16 where the classes allow: numpy sorts those stably by radix);
        # without sample weights every row takes part (no gathers by the rows)
        taking_part = None if given is None else np.flatnonzero(weight > 0)
        # a class weighted 0 adds nothing to a problem where its rows are positive (or,
        # Crammer and Singer's, to the one problem): its rows leave it
        zero_classes = class_C == 0
        if zero_classes.any() and (crammer_singer or len(classes) == 2):
            taking_part = np.flatnonzero((weight > 0) & ~zero_classes[encoded])
        codes = encoded if taking_part is None else encoded[taking_part]
        if len(classes) <= INT16_MAX:
            codes = codes.astype(np.int16)
        order = np.argsort(codes, kind="stable")
        if taking_part is not None:
            order = taking_part[order]
        rows = self._linear_rows(X)
        seed = fit_seed(self.random_state)
        if crammer_singer:
            return self._fit_crammer_singer(rows, order, encoded,
                                            class_C[encoded] * weight, seed)
        if len(classes) == 2:
            positives = [encoded == 1]
            # each row's class's C (times its weight: 1 without weights, so left out)
            bounds = [class_C[encoded] if given is None else class_C[encoded] * weight]
        else:
            positives = [encoded == k for k in range(len(classes))]
            bounds = [np.where(p, class_C[k], self.C) * weight
                      for k, p in enumerate(positives)]
        same_classes = (previous_classes is not None
                        and np.array_equal(previous_classes, classes))
        starts = (self._warm_starts(len(positives), n, dual) if same_classes
                  else [None] * len(positives))
        stop_flag = np.zeros(1, dtype=np.int8)
        squared = self.loss == "squared_hinge"
        # one-vs-rest: the rows of a class weighted 0 leave its own problem alone
        orders = [order[encoded[order] != k] if len(positives) > 2 and zero_classes[k]
                  else order for k in range(len(positives))]
        shared_columns = (FeatureColumns.of(X, order, rows.bias) if self.penalty == "l1"
                          else None)
        columns = [FeatureColumns.of(X, rows_in, rows.bias)
                   if shared_columns is not None and rows_in is not order
                   else shared_columns for rows_in in orders]
        # the one-vs-rest problems' duals share their diagonal, computed once
        diagonals = (shared_diagonals(rows, order, bounds, squared)
                     if dual and self.penalty == "l2" and len(bounds) > 1
                     and not zero_classes.any() else [None] * len(bounds))
        tasks = [LinearTask(rows, rows_in, np.where(p, 1.0, -1.0), b, dual, squared, False,
                            0.0, float(self.tol), int(self.max_iter),
                            (seed + k) & 0xFFFFFFFF, stop_flag, start, row_columns,
                            diagonal, epochs_as_work=True, revisits=int(self.revisits))
                 for k, (rows_in, p, b, start, row_columns, diagonal)
                 in enumerate(zip(orders, positives, bounds, starts, columns, diagonals))]
        _, weights = self._solve(tasks, self.n_jobs)
        self.coef_, self.intercept_ = self._coef_and_intercept(weights)
        return self

    def _fit_crammer_singer(self, rows, order, encoded, bounds, seed):
        """One joint problem over every class (LIBLINEAR's -s 4); for two classes the
        difference of the classes' weights, as scikit-learn reports it."""
        fit = solve_crammer_singer(rows, order, encoded, bounds, len(self.classes_),
                                   float(self.tol), int(self.max_iter), seed)
        if not fit.converged:
            warnings.warn(NOT_CONVERGED + " The Crammer-Singer dual coordinate descent "
                          "took max_iter epochs: scale the features, lower C, raise tol "
                          "or max_iter, or use multi_class='ovr', whose stalled problems "
                          "go on by Newton's method.", ConvergenceWarning, stacklevel=3)
        self.n_iter_ = int(fit.n_iter)
        coef, intercept = self._coef_and_intercept(np.atleast_2d(fit.w))
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
        return _BaseClassifier._class_weights(self, encoded, allow_zero=True)

    def decision_function(self, X):
        """Compute the confidence scores ``w'x + b`` of the samples in X.

        For two classes one score per sample (positive means ``classes_[1]``), else
        one per sample and class (its one-vs-rest problem's).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The scores.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import LinearSVC
        >>> X = np.array([[-2.0, -1.0], [-1.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
        >>> clf = LinearSVC(random_state=0).fit(X, [0, 0, 1, 1])
        >>> clf.decision_function([[-3.0, -2.0], [3.0, 2.0]]) > 0
        array([False,  True])
        """
        scores = self._scores(X)
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Predict the class labels of the samples in X.

        The class of the largest score; for two classes ``classes_[1]`` where the
        score is positive.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted labels.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import LinearSVC
        >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
        >>> clf = LinearSVC(random_state=0).fit(X, ["a", "a", "b", "b", "c", "c"])
        >>> clf.predict([[0.0], [5.0]])
        array(['a', 'c'], dtype='<U1')
        """
        scores = self.decision_function(X)
        index = (scores > 0).astype(np.intp) if scores.ndim == 1 else scores.argmax(axis=1)
        return self.classes_[index]

    def _liblinear_model(self):
        """This classifier as LIBLINEAR's model: two classes one column, the weights of
        classes_[1] (LIBLINEAR's label[0], its positive class), several classes one
        column per class. Crammer-Singer's format has a column per class for two
        classes too, but LIBLINEAR predicts two classes from the first column alone:
        coef_ there, and zeros in the second."""
        W, bias = self._weight_columns()
        labels = []
        for label in self.classes_.tolist():
            if (isinstance(label, bool) or not isinstance(label, (int, float))
                    or label != int(label) or not INT32.min <= label <= INT32.max):
                raise ValueError("LIBLINEAR's model files hold 32-bit integer labels; "
                                 f"classes_ holds {label!r}")
            labels.append(int(label))
        if len(labels) == 2:
            labels = labels[::-1]
            if self._solver_type == "MCSVM_CS":     # LIBLINEAR reads column 0 alone
                W = np.hstack([W, np.zeros_like(W)])
        return LiblinearModel(self._solver_type, tuple(labels), self.n_features_in_,
                              bias, W)

    @classmethod
    def from_model(cls, model, n_features=None):
        r"""Make a classifier that predicts with a LIBLINEAR model, without fitting.

        Parameters
        ----------
        model : LiblinearModel, str, path-like or binary file object
            A LIBLINEAR model file (liblinear-train's, liblinear-official's or
            `save`'s) of a classifier: solver type L2R_L2LOSS_SVC_DUAL (``-s 1``),
            L2R_L2LOSS_SVC (2), L2R_L1LOSS_SVC_DUAL (3), MCSVM_CS (4) or
            L1R_L2LOSS_SVC (5).
        n_features : int, default=None
            Columns of the data it will predict (``n_features_in_``); the features
            past the model's nr_feature weigh 0, as in LIBLINEAR. None takes the
            model's nr_feature.

        Returns
        -------
        LinearSVC
            Fitted: loss, penalty, dual or multi_class from the solver type,
            fit_intercept and intercept_scaling from the bias; ``coef_``,
            ``intercept_`` and ``classes_`` (sorted) such that it predicts the model's
            labels. C and tol keep their defaults (a model file does not record them).
            A two-class Crammer-Singer model predicts as LIBLINEAR predicts it, from
            its first class's weights alone.

        Raises
        ------
        ValueError
            The file is not a classifier's model (a regression or logistic
            regression model), holds one class, or n_features is smaller than its
            nr_feature.

        See Also
        --------
        save : The other way: write a fitted classifier's model file.

        Examples
        --------
        >>> import io
        >>> from libsmo import LinearSVC
        >>> text = b"solver_type L2R_L1LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\n"
        >>> text += b"nr_feature 2\nbias -1\nw\n1 \n-1 \n"
        >>> clf = LinearSVC.from_model(io.BytesIO(text))
        >>> clf.loss, clf.classes_, clf.predict([[2.0, 1.0], [0.0, 1.0]])
        ('hinge', array([-1,  1]), array([ 1, -1]))
        """
        estimator, model, features, bias_weights = cls._read_liblinear(model, n_features)
        labels = list(model.labels)
        if len(labels) < 2:
            raise ValueError(f"the model has one class (label {labels[0]}), which "
                             "liblinear-train writes for data of one class: a "
                             "classifier needs two or more (libsmo-linear-predict "
                             "predicts with it)")
        classes = np.array(sorted(labels), dtype=np.int64)
        if len(labels) == 2:
            # label[0] where the first column's value is positive, as LIBLINEAR
            # predicts (Crammer-Singer's second column included, which it ignores)
            sign = 1.0 if labels[0] == classes[1] else -1.0
            coef, intercept = sign * features[:, :1].T, sign * bias_weights[:1]
        else:
            order = [labels.index(c) for c in classes]
            coef, intercept = features[:, order].T, bias_weights[order]
        estimator.classes_ = classes
        estimator.coef_ = np.ascontiguousarray(coef)
        estimator.intercept_ = intercept if estimator.fit_intercept else 0.0
        return estimator

    def densify(self):
        """Convert ``coef_`` back to a dense array (after `sparsify`).

        Returns
        -------
        self
            The estimator itself.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import LinearSVC
        >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 3.0], [3.0, 2.0]])
        >>> clf = LinearSVC(random_state=0).fit(X, [0, 0, 1, 1]).sparsify()
        >>> type(clf.densify().coef_).__name__
        'ndarray'
        """
        check_is_fitted(self)
        if sp.issparse(self.coef_):
            self.coef_ = self.coef_.toarray()
        return self

    def sparsify(self):
        """Convert ``coef_`` to a CSR matrix, for coefficients that are mostly zeros.

        Prediction then takes sparse products; `densify` converts back.

        Returns
        -------
        self
            The estimator itself.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import LinearSVC
        >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 3.0], [3.0, 2.0]])
        >>> clf = LinearSVC(penalty="l1", dual=False, random_state=0).fit(X, [0, 0, 1, 1])
        >>> clf.sparsify().coef_.format
        'csr'
        """
        check_is_fitted(self)
        self.coef_ = sp.csr_matrix(self.coef_)
        return self


class LinearSVR(RegressorMixin, _BaseLinear):
    """Linear support vector regression: LIBLINEAR's problems and solvers.

    A drop-in for `sklearn.svm.LinearSVR`: the same parameters, problem, fitted
    attributes and messages. It minimises ``1/2 w'w + sum_i C_i loss(y_i - w'x_i -
    b)``, the bias b being LIBLINEAR's extra feature of value ``intercept_scaling``
    (regularised with w): the epsilon-insensitive loss by LIBLINEAR's dual coordinate
    descent (``-s 13``), its square by the dual (``-s 12``) or the primal Newton
    method (``-s 11``). A squared-loss dual that stalls goes on by the Newton method,
    as LIBLINEAR does; ``warm_start`` starts a fit from the previous solution.

    Parameters
    ----------
    epsilon : float, default=0.0
        The half width of the insensitive zone (LIBLINEAR's ``-p``): errors within
        epsilon cost nothing. Must be non-negative.
    tol : float, default=1e-4
        LIBLINEAR's ``-e``: the dual stops when an epoch's summed violation is within
        tol of the first epoch's; the primal when the gradient's norm is within tol
        of its value at w = 0.
    C : float, default=1.0
        Regularisation parameter: the weight of the losses against ``1/2 w'w``
        (LIBLINEAR's ``-c``). Must be positive.
    loss : {'epsilon_insensitive', 'squared_epsilon_insensitive'}, \
default='epsilon_insensitive'
        The loss ``max(0, |r| - epsilon)`` of a residual r (dual only), or its
        square.
    fit_intercept : bool, default=True
        Whether to fit the bias b (as LIBLINEAR's extra feature).
    intercept_scaling : float, default=1.0
        The bias feature's value (LIBLINEAR's ``-B``): ``intercept_`` is
        intercept_scaling times its weight.
    dual : bool or 'auto', default='auto'
        The dual coordinate descent (True) or the primal Newton method (False;
        squared loss only); 'auto' is scikit-learn's rule, as in `LinearSVC`. A
        squared-loss dual that reaches max_iter epochs, or whose progress shows that
        it would, finishes by the Newton method (LIBLINEAR's ``-s 12``).
    verbose : int, default=0
        Print the method, iterations and objective after the fit.
    random_state : int, RandomState instance or None, default=None
        The seed of the dual's random permutations, drawn from random_state at every
        fit as scikit-learn draws it.
    max_iter : int, default=1000
        The most epochs of the dual, or Newton steps of the primal. The
        epsilon-insensitive loss's dual, which has no primal method to go on by,
        counts its work instead: past max_iter epochs it goes on while the rows it
        visited stay within max_iter full epochs' worth, and where that ends short
        of tol, at most max_iter Newton steps on the loss smoothed over narrowing
        bands bring it to a point from which the dual meets tol; so its ``n_iter_``
        may exceed max_iter.
    warm_start : bool, default=False
        Start each fit from the previous fit's solution when the rows are the same.
    n_jobs : int, default=None
        Threads of the primal Newton method's passes over the rows (dual=False, or
        a squared-loss dual that reached max_iter; liblinear-multicore's ``-m``);
        None means 1. Its sums, added in one share a thread, reach the same optimum
        in bits that depend on n_jobs. The dual coordinate descent runs on one
        thread.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weights w.
    intercept_ : ndarray of shape (1,) or float
        The bias b; 0.0 when fit_intercept is False.
    n_features_in_ : int
        The number of features seen during `fit`.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        The names of the features, when X has string column names.
    n_iter_ : int
        The iterations (epochs or Newton steps) the fit took.

    See Also
    --------
    libsmo.LinearSVC : Linear support vector classification on the same solvers.
    libsmo.SVR : LIBSVM's epsilon-SVR (unregularised bias); kernel='linear'.
    sklearn.svm.LinearSVR : The scikit-learn estimator, over its copy of LIBLINEAR.

    Notes
    -----
    The differences from scikit-learn are `LinearSVC`'s: the same problem and
    stopping rule, and a squared-loss dual that reaches max_iter (or would, by its
    progress) finishes by the Newton method instead of only warning.

    References
    ----------
    .. [1] C.-H. Ho and C.-J. Lin, "Large-scale linear support vector regression",
       JMLR 13, 2012.

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
        "n_jobs": SOLVER["n_jobs"],
        **COMMON,
    }
    _squared_losses = ("squared_epsilon_insensitive",)
    _solver_parameters = {
        "L2R_L2LOSS_SVR": {"loss": "squared_epsilon_insensitive", "dual": False},
        "L2R_L2LOSS_SVR_DUAL": {"loss": "squared_epsilon_insensitive", "dual": True},
        "L2R_L1LOSS_SVR_DUAL": {"loss": "epsilon_insensitive", "dual": True},
    }

    def __init__(self, *, epsilon=0.0, tol=1e-4, C=1.0, loss="epsilon_insensitive",
                 fit_intercept=True, intercept_scaling=1.0, dual="auto", verbose=0,
                 random_state=None, max_iter=1000, warm_start=False, n_jobs=None):
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
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None):
        """Fit the regression on samples X and targets y.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples; float64 and float32 rows (dense C-contiguous or CSR)
            are read in place, others are converted to float64.
        y : array-like of shape (n_samples,)
            Real targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies C per sample; a sample of weight 0 or less is left out.

        Returns
        -------
        self
            The fitted estimator itself.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import LinearSVR
        >>> X = np.arange(10.0).reshape(-1, 1)
        >>> reg = LinearSVR(C=10.0, random_state=0, tol=1e-6).fit(X, 3 * X.ravel())
        >>> reg.coef_.round(1), reg.intercept_.round(1)
        (array([3.]), array([0.]))
        """
        X, y = self._fit_start(X, y)
        y = np.asarray(y, dtype=np.float64)
        dual = self._use_dual(X)
        self._solver_type = SOLVER_NAMES[SOLVER_TYPES[(self.loss, "l2", dual)]]
        n = len(y)
        weight = effective_sample_weight(sample_weight, n)
        if weight is None:
            order, bounds = np.arange(n, dtype=np.int32), np.full(n, float(self.C))
        else:
            order, bounds = np.flatnonzero(weight > 0), self.C * weight
        rows = self._linear_rows(X)
        start = self._warm_starts(1, n, dual)[0]
        task = LinearTask(rows, order, y, bounds, dual,
                          self.loss == "squared_epsilon_insensitive", True,
                          float(self.epsilon), float(self.tol), int(self.max_iter),
                          fit_seed(self.random_state), np.zeros(1, dtype=np.int8),
                          start, epochs_as_work=True)
        _, weights = self._solve([task], self.n_jobs)
        coef, intercept = self._coef_and_intercept(weights)
        self.coef_ = coef.ravel()
        self.intercept_ = intercept
        return self

    def predict(self, X):
        """Predict the targets ``w'x + b`` of the samples in X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted targets.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import LinearSVR
        >>> X = np.arange(10.0).reshape(-1, 1)
        >>> reg = LinearSVR(C=10.0, random_state=0, tol=1e-6).fit(X, 2 * X.ravel() + 1)
        >>> reg.predict([[0.0], [5.0]]).round(1)
        array([ 1., 11.])
        """
        check_is_fitted(self)
        X, _ = validate_features(self, X, reset=False, dtype=READ_AS_IS)
        return _dense_scores(X, self.coef_[None, :], self.intercept_).ravel()

    def _liblinear_model(self):
        W, bias = self._weight_columns()
        return LiblinearModel(self._solver_type, None, self.n_features_in_, bias, W)

    @classmethod
    def from_model(cls, model, n_features=None):
        r"""Make a regression that predicts with a LIBLINEAR model, without fitting.

        Parameters
        ----------
        model : LiblinearModel, str, path-like or binary file object
            A LIBLINEAR model file (liblinear-train's, liblinear-official's or
            `save`'s) of a support vector regression: solver type L2R_L2LOSS_SVR
            (``-s 11``), L2R_L2LOSS_SVR_DUAL (12) or L2R_L1LOSS_SVR_DUAL (13).
        n_features : int, default=None
            Columns of the data it will predict (``n_features_in_``); the features
            past the model's nr_feature weigh 0. None takes the model's nr_feature.

        Returns
        -------
        LinearSVR
            Fitted: loss and dual from the solver type, fit_intercept and
            intercept_scaling from the bias, ``coef_`` and ``intercept_``. C, epsilon
            and tol keep their defaults (a model file does not record them).

        Raises
        ------
        ValueError
            The file is not a regression's model, or n_features is smaller than its
            nr_feature.

        See Also
        --------
        save : The other way: write a fitted regression's model file.

        Examples
        --------
        >>> import io
        >>> from libsmo import LinearSVR
        >>> text = b"solver_type L2R_L1LOSS_SVR_DUAL\nnr_class 2\n"
        >>> text += b"nr_feature 1\nbias 1\nw\n2 \n1 \n"
        >>> LinearSVR.from_model(io.BytesIO(text)).predict([[0.0], [3.0]])
        array([1., 7.])
        """
        estimator, model, features, bias_weights = cls._read_liblinear(model, n_features)
        estimator.coef_ = np.ascontiguousarray(features[:, 0])
        estimator.intercept_ = bias_weights[:1] if estimator.fit_intercept else 0.0
        return estimator
