"""scikit-learn-compatible estimators: SVC, NuSVC, SVR, NuSVR, OneClassSVM.

They train with `libsmo.train` and keep the LIBSVM-format `Model` (`to_model()`), while
their parameters and fitted attributes follow scikit-learn's `sklearn.svm` classes:
classes sorted, `intercept_ = -rho`, and for two classes the sign flipped so that a
positive decision value means `classes_[1]`; after a sparse fit `support_vectors_`,
`dual_coef_` and the linear `coef_` are CSR; `kernel` may be a callable k(X, Y)
returning the Gram matrix; a sample weight of zero or less leaves its sample out; C may
be inf. Their parameters are declared in `_parameter_constraints` and checked at fit.
With scikit-learn installed they are real scikit-learn estimators (clone, Pipeline,
GridSearchCV, pickle); libsmo itself imports without it. What they share is
`libsmo.estimators._base` and `libsmo.estimators._classifier`.

Two parameters beyond scikit-learn's SVMs: ``warm_start=True`` starts each fit from the
previous fit's solution (same rows; see `libsmo.train`'s ``init``): a fit stopped by
max_iter goes on where it stopped, a fit with a new C starts from the old optimum. And
``n_jobs`` trains a classifier's one-vs-one pairs as joblib tasks (see `libsmo.train`),
the same model for every n_jobs. SVC also takes ``solver``, ``partitions`` and
``partitioning``: large binary problems by the partitioned exact solver, on n_jobs
threads (see `SVC`). Data given as uint8 (8-bit pixels) is trained as bytes, an eighth
of its float64 copy, with the same kernel values.
"""
import numpy as np

from libsmo.estimators import _params as p
from libsmo.estimators._base import _BaseOther, _BaseRegressor
from libsmo.estimators._classifier import _BaseClassifier, probability_params
from libsmo.estimators._sklearn_compat import HAVE_SKLEARN, OutlierMixin  # noqa: F401 (whether

# the estimators are scikit-learn's own subclasses)

__all__ = ["NuSVC", "NuSVR", "OneClassSVM", "SVC", "SVR"]


class SVC(_BaseClassifier):
    """C-support vector classification: LIBSVM's C-SVC with scikit-learn's interface.

    A drop-in for `sklearn.svm.SVC`: the same parameters, fitted attributes and
    predictions, trained by libsmo's SMO solver (LIBSVM's ``svm-train -s 0``).
    Several classes are trained one-vs-one, one binary problem per pair of classes,
    as LIBSVM does. Beyond scikit-learn's parameters, ``linear_solver`` chooses how a
    linear kernel is solved, ``warm_start`` starts a fit from the previous one and
    ``n_jobs`` trains the pairs of classes at once; `to_model`, `save` and
    `from_model` move the model to and from LIBSVM's model files.

    Parameters
    ----------
    C : float, default=1.0
        Regularisation parameter: the box constraint 0 <= alpha_i <= C of the dual
        (LIBSVM's ``-c``). Must be positive; ``np.inf`` is a hard margin.
    kernel : {'linear', 'poly', 'rbf', 'sigmoid', 'precomputed'} or callable, default='rbf'
        LIBSVM's kernel (``-t 0..4``): u'v, (gamma u'v + coef0)^degree,
        ``exp(-gamma |u - v|^2)``, tanh(gamma u'v + coef0), or a Gram matrix given as X.
        A callable k(X, Y) returns the Gram matrix of the rows of X and Y; the model
        is then trained as a precomputed kernel.
    degree : int, default=3
        Degree of the polynomial kernel (LIBSVM's ``-d``); ignored by the others.
    gamma : {'scale', 'auto'} or float, default='scale'
        Kernel coefficient of 'rbf', 'poly' and 'sigmoid' (LIBSVM's ``-g``):
        'scale' is 1 / (n_features * X.var()), 'auto' is 1 / n_features (LIBSVM's
        default), a float must be non-negative.
    coef0 : float, default=0.0
        Independent term of the 'poly' and 'sigmoid' kernels (LIBSVM's ``-r``).
    shrinking : bool, default=True
        Whether to use the shrinking heuristic (LIBSVM's ``-h``).
    probability : bool, default=False
        Whether to fit LIBSVM's probability model (``-b 1``): each pair's Platt
        sigmoid on the decision values of an internal 5-fold cross-validation, so
        that `predict_proba` is available. It makes `fit` about six times slower.
    tol : float, default=1e-3
        Tolerance of the stopping rule m(a) - M(a) <= tol (LIBSVM's ``-e``).
    cache_size : float or 'auto', default='auto'
        Size of the kernel row cache in MB (LIBSVM's ``-m``). 'auto': as much as
        the problem can use (its whole Q matrix where it fits) within half of the
        memory available when the fit starts, as `libsmo.train` documents;
        scikit-learn's default is 200. It changes which kernel rows are computed
        again, never the steps or the model.
    class_weight : dict or 'balanced', default=None
        Multiplies C by class_weight[label] for that class (LIBSVM's ``-wi``).
        'balanced' weighs each class by n_samples / (n_classes * its count). None
        gives every class weight one.
    verbose : bool, default=False
        Log the solver's progress and LIBSVM's summary lines on the ``libsmo``
        logger (LIBSVM prints them unless ``-q``).
    max_iter : int, default=-1
        Steps of each binary problem before the solver stops (a
        `libsmo.ConvergenceWarning` then says so); -1 is no limit, as in
        scikit-learn (``libsmo.train`` and the commands keep LIBSVM's cap of
        max(10^7, 100 times the rows of the binary problem)).
    decision_function_shape : {'ovr', 'ovo'}, default='ovr'
        Shape of `decision_function` for more than two classes: one-vs-rest scores
        of shape (n_samples, n_classes), or LIBSVM's one-vs-one values of shape
        (n_samples, n_classes * (n_classes - 1) / 2). Training is one-vs-one either
        way.
    break_ties : bool, default=False
        With decision_function_shape='ovr' and more than two classes, predict the
        class of the largest one-vs-rest score instead of the first class among those
        with the most votes.
    random_state : int, RandomState instance or None, default=None
        Seeds the folds of the probability model's internal cross-validation; ignored
        unless probability=True. An int gives the same probabilities on every run.
    linear_solver : {'auto', 'primal', 'kernel'}, default='auto'
        How kernel='linear' is solved. 'primal' keeps the primal weights
        w = sum_i alpha_i y_i x_i and computes every gradient from them: no kernel
        rows and no cache, the same optimum to the same tolerance, many times faster
        on large data. 'kernel' uses cached kernel rows and follows LIBSVM's steps
        (the same ``dual_coef_`` where the optimum's alphas are not unique). 'auto' takes
        'primal' for each binary problem whose kernel matrix outgrows twice the
        cache (16 times that on dense rows of 8-bit values, such as pixels) and for
        smaller C-SVC problems where its start pays (at least 2,000 rows, C x'x
        small: see `libsmo.train`), 'kernel' for the others. libsmo's own parameter.
    warm_start : bool, default=False
        Start each fit from the previous fit's solution on the same rows (see the
        ``init`` parameter of `libsmo.train`): a fit stopped by max_iter goes on where
        it stopped, a fit with a new C starts from the old optimum. libsmo's own
        parameter.
    n_jobs : int, default=None
        One-vs-one pairs trained at once as joblib tasks (local threads, or the
        backend of a ``joblib.parallel_config`` context); None is 1 unless such a
        context sets it, -1 is every core. The model is the same for every n_jobs.
        libsmo's own parameter.
    solver : {'smo', 'partitioned', 'auto'}, default='smo'
        How each binary problem (the two classes, or a one-vs-one pair) is solved:
        'smo' is LIBSVM's solver; 'partitioned' solves every problem of at least
        2,000 rows by the partitioned exact method (the rows split into
        ``partitions``, solved partition by partition on ``n_jobs`` threads, then
        checked by LIBSVM's stopping rule over every row, so that the model is the
        single solver's optimum); 'auto' takes the partitioned method for problems
        of at least 100,000 dense rows with a non-linear kernel, where it was
        measured to win, else SMO. With ``verbose=True`` a partitioned fit draws a
        progress bar on stderr (tqdm's when installed). libsmo's own parameter.
    partitions : int or 'auto', default='auto'
        Partitions of each problem the partitioned method solves; 'auto' is about
        20,000 rows each, at least two a thread, at most 64. libsmo's own parameter.
    partitioning : {'stratified', 'random', 'kmeans'}, default='stratified'
        How the partitioned method splits the rows: each class dealt out evenly,
        at random, or by the regions of k-means centres of a sample (as DC-SVM
        clusters). The same optimum with each. libsmo's own parameter.

    Attributes
    ----------
    class_weight_ : ndarray of shape (n_classes,)
        The multiplier of C for each class, from ``class_weight``.
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    coef_ : ndarray or sparse matrix of shape (n_classes * (n_classes - 1) / 2, n_features)
        Primal weights of each pair of classes, only for kernel='linear'; sparse
        after a fit on sparse X. Read-only, computed from `dual_coef_` and
        `support_vectors_`.
    dual_coef_ : ndarray or sparse matrix of shape (n_classes - 1, n_SV)
        y_i * alpha_i of the support vectors, in LIBSVM's one-vs-one layout; sparse
        after a fit on sparse X.
    fit_status_ : int
        0 if every binary problem reached the optimum, 1 if one stopped early.
    intercept_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        The constants of the decision functions, -rho of each pair.
    n_features_in_ : int
        Number of features seen during `fit`.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during `fit`, when X has string column names.
    n_iter_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        SMO steps of each binary problem.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training data.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors, grouped by class; empty for a precomputed kernel,
        sparse after a fit on sparse X.
    n_support_ : ndarray of shape (n_classes,), dtype=int32
        Number of support vectors of each class.
    probA_, probB_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        Each pair's Platt sigmoid ``1 / (1 + exp(probA_ * f + probB_))`` of the decision
        value f, with probability=True; empty arrays otherwise.
    shape_fit_ : tuple of int
        Shape of the training X.

    See Also
    --------
    libsmo.NuSVC : Classification with nu, a bound on the fraction of errors.
    libsmo.train : The same solver with LIBSVM's parameters, returning a Model.
    libsmo.dask.SVC : This estimator on data that lives on a Dask cluster.
    sklearn.svm.SVC : The scikit-learn estimator, over its copy of LIBSVM.

    Notes
    -----
    The models are scikit-learn's: the same ``support_``, ``dual_coef_`` and
    ``intercept_`` (most fits bit for bit, decision values within about 1e-11),
    classes sorted, and for two classes a positive decision value meaning
    ``classes_[1]``. Where scikit-learn's copy of LIBSVM computes differently from
    LIBSVM 3.37, this estimator follows scikit-learn; `libsmo.train` and the
    commands follow LIBSVM. The differences from scikit-learn:

    - sparse rows predicted by a model fitted on dense ones are answered, where
      scikit-learn raises ValueError;
    - ``probability=True`` gives no deprecation warning (scikit-learn 1.9
      deprecates it; its default ``'deprecated'`` is accepted and means False);
    - a callable kernel whose Gram matrix has the wrong shape, a NaN sample weight,
      a class whose samples all have weight 0, ``max_iter=0`` and rows whose
      squared norms overflow are refused at `fit` with a ValueError;
    - with sample weights that leave samples out, ``support_`` indexes the
      caller's X;
    - ``verbose=True`` logs on the ``libsmo`` logger instead of printing on
      stdout.

    The solver is Platt's SMO [2]_ with LIBSVM's second-order working set
    selection [3]_, shrinking and stopping rule [1]_; the probability model is
    Platt's sigmoid as fitted by Lin, Lin and Weng [4]_, coupled for more than two
    classes by Wu, Lin and Weng's method [5]_.

    References
    ----------
    .. [1] C.-C. Chang and C.-J. Lin, "LIBSVM: A library for support vector
       machines", ACM Transactions on Intelligent Systems and Technology, 2(3),
       27:1-27:27, 2011.
    .. [2] J. C. Platt, "Sequential Minimal Optimization: A fast algorithm for
       training support vector machines", Microsoft Research Technical Report
       MSR-TR-98-14, 1998.
    .. [3] R.-E. Fan, P.-H. Chen and C.-J. Lin, "Working set selection using
       second order information for training support vector machines", Journal of
       Machine Learning Research, 6, 1889-1918, 2005.
    .. [4] H.-T. Lin, C.-J. Lin and R. C. Weng, "A note on Platt's probabilistic
       outputs for support vector machines", Machine Learning, 68(3), 267-276,
       2007.
    .. [5] T.-F. Wu, C.-J. Lin and R. C. Weng, "Probability estimates for
       multi-class classification by pairwise coupling", Journal of Machine
       Learning Research, 5, 975-1005, 2004.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from libsmo import SVC
    >>> X = np.array([[-1, -1], [-2, -1], [1, 1], [2, 1]])
    >>> y = np.array([1, 1, 2, 2])
    >>> clf = make_pipeline(StandardScaler(), SVC(gamma="auto"))
    >>> clf.fit(X, y)
    Pipeline(steps=[('standardscaler', StandardScaler()),
                    ('svc', SVC(gamma='auto'))])
    >>> print(clf.predict([[-0.8, -1]]))
    [1]

    Three classes, trained one-vs-one:

    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = SVC(C=1.0).fit(X, y)
    >>> clf.n_support_
    array([ 7, 29, 24], dtype=int32)
    >>> clf.decision_function(X[:1]).shape
    (1, 3)
    >>> print(round(clf.score(X, y), 3))
    0.973

    The partitioned solver reaches the same optimum as LIBSVM's:

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(4000, 5))
    >>> y = (X[:, 0] + X[:, 1] ** 2 > 1).astype(int)
    >>> smo = SVC(C=10.0).fit(X, y)
    >>> partitioned = SVC(C=10.0, solver="partitioned", partitions=4, n_jobs=2).fit(X, y)
    >>> ratio = partitioned.to_model().objective[0] / smo.to_model().objective[0]
    >>> bool(abs(ratio - 1) < 1e-6)
    True
    """

    _svm_type = "c_svc"
    _parameter_constraints = {**p.C, **p.COMMON, **p.CLASSIFIER, **p.LINEAR_SOLVER,
                              **p.PARTITIONED}

    def __init__(self, *, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, probability=False, tol=1e-3, cache_size="auto",
                 class_weight=None, verbose=False, max_iter=-1,
                 decision_function_shape="ovr", break_ties=False, random_state=None,
                 linear_solver="auto", warm_start=False, n_jobs=None, solver="smo",
                 partitions="auto", partitioning="stratified"):
        self.solver = solver
        self.partitions = partitions
        self.partitioning = partitioning
        self.linear_solver = linear_solver
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state

    def _formulation_params(self):
        params = dict(C=self.C, linear_solver=self.linear_solver, solver=self.solver,
                      partitions=self.partitions, partitioning=self.partitioning)
        params.update(probability_params(self))
        return params


# Why the other estimators take no ``solver``: the partitioned solver's nodes solve
# C-SVC's dual (p = -1, one equality constraint, a row outside the working set at
# a = 0), which its global check reads as LIBSVM's stopping rule; nu-SVC's second
# equality constraint and 1/r scaling, one-class's start at sum(a) = nu l (rows outside
# a working set are not at 0) and the regressions' 2l variables are not theirs.


class NuSVC(_BaseClassifier):
    """Nu-support vector classification: LIBSVM's nu-SVC with scikit-learn's interface.

    A drop-in for `sklearn.svm.NuSVC` (LIBSVM's ``svm-train -s 1``): like `SVC`, with
    the parameter nu in (0, 1] instead of C. nu is an upper bound on the fraction of
    margin errors and a lower bound on the fraction of support vectors. Several
    classes are trained one-vs-one, as LIBSVM does.

    Parameters
    ----------
    nu : float, default=0.5
        Upper bound on the fraction of margin errors and lower bound on the fraction
        of support vectors (LIBSVM's ``-n``); in (0, 1]. A nu too large for the
        classes' sizes is infeasible (a ValueError says so).
    kernel : {'linear', 'poly', 'rbf', 'sigmoid', 'precomputed'} or callable, default='rbf'
        LIBSVM's kernel (``-t 0..4``): u'v, (gamma u'v + coef0)^degree,
        ``exp(-gamma |u - v|^2)``, tanh(gamma u'v + coef0), or a Gram matrix given as X.
        A callable k(X, Y) returns the Gram matrix of the rows of X and Y.
    degree : int, default=3
        Degree of the polynomial kernel (LIBSVM's ``-d``); ignored by the others.
    gamma : {'scale', 'auto'} or float, default='scale'
        Kernel coefficient of 'rbf', 'poly' and 'sigmoid' (LIBSVM's ``-g``):
        'scale' is 1 / (n_features * X.var()), 'auto' is 1 / n_features (LIBSVM's
        default), a float must be non-negative.
    coef0 : float, default=0.0
        Independent term of the 'poly' and 'sigmoid' kernels (LIBSVM's ``-r``).
    shrinking : bool, default=True
        Whether to use the shrinking heuristic (LIBSVM's ``-h``).
    probability : bool, default=False
        Whether to fit LIBSVM's probability model (``-b 1``), so that
        `predict_proba` is available; it makes `fit` about six times slower.
    tol : float, default=1e-3
        Tolerance of the stopping rule (LIBSVM's ``-e``).
    cache_size : float or 'auto', default='auto'
        Size of the kernel row cache in MB (LIBSVM's ``-m``), or 'auto': as much as
        the problem can use within half of the available memory (see `SVC`).
    class_weight : dict or 'balanced', default=None
        Recorded in ``class_weight_``, as scikit-learn does; it does not change the
        model, since nu-SVC has no C for the weights to multiply (LIBSVM ignores
        ``-wi`` for nu-SVC too).
    verbose : bool, default=False
        Log the solver's progress and LIBSVM's summary lines on the ``libsmo``
        logger.
    max_iter : int, default=-1
        Steps of each binary problem before the solver stops; -1 is LIBSVM's own
        cap, max(10^7, 100 times the rows of the binary problem).
    decision_function_shape : {'ovr', 'ovo'}, default='ovr'
        Shape of `decision_function` for more than two classes: one-vs-rest
        (n_samples, n_classes) or LIBSVM's one-vs-one (n_samples, n_classes *
        (n_classes - 1) / 2).
    break_ties : bool, default=False
        With decision_function_shape='ovr' and more than two classes, predict the
        class of the largest one-vs-rest score instead of the first class among those
        with the most votes.
    random_state : int, RandomState instance or None, default=None
        Seeds the folds of the probability model's internal cross-validation; ignored
        unless probability=True.
    warm_start : bool, default=False
        Start each fit from the previous fit's solution on the same rows (libsmo's own
        parameter, see `SVC`).
    n_jobs : int, default=None
        One-vs-one pairs trained at once as joblib tasks; the model is the same for
        every n_jobs (libsmo's own parameter, see `SVC`).

    Attributes
    ----------
    class_weight_ : ndarray of shape (n_classes,)
        The class weights from ``class_weight`` (unused by nu-SVC).
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    coef_ : ndarray or sparse matrix of shape (n_classes * (n_classes - 1) / 2, n_features)
        Primal weights of each pair of classes, only for kernel='linear'.
    dual_coef_ : ndarray or sparse matrix of shape (n_classes - 1, n_SV)
        y_i * alpha_i of the support vectors, in LIBSVM's one-vs-one layout (LIBSVM
        scales nu-SVC's solution so that the margins are +-1).
    fit_status_ : int
        0 if every binary problem reached the optimum, 1 if one stopped early.
    intercept_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        The constants of the decision functions.
    n_features_in_ : int
        Number of features seen during `fit`.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during `fit`, when X has string column names.
    n_iter_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        SMO steps of each binary problem.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training data.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors, grouped by class; empty for a precomputed kernel.
    n_support_ : ndarray of shape (n_classes,), dtype=int32
        Number of support vectors of each class.
    probA_, probB_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        Each pair's Platt sigmoid, with probability=True; empty arrays otherwise.
    shape_fit_ : tuple of int
        Shape of the training X.

    See Also
    --------
    libsmo.SVC : Classification with the parameter C.
    libsmo.train : The same solver with LIBSVM's parameters (svm_type='nu_svc').
    sklearn.svm.NuSVC : The scikit-learn estimator, over its copy of LIBSVM.

    Notes
    -----
    Always LIBSVM's solver: the partitioned solver (`SVC`'s ``solver``) solves
    C-SVC's dual only; nu-SVC's two equality constraints and its 1/r scaling are not
    the partitions' problem, so their check over every row would not be nu-SVC's
    stopping rule.

    The differences from scikit-learn are `SVC`'s. LIBSVM 3.37 and scikit-learn's
    copy of LIBSVM start nu-SVC's solver from sums computed in another order (nu
    times the sum of the weights, or nu times each weight added row by row), which
    can change the solver's path in the last bits; this estimator starts where
    scikit-learn does, `libsmo.train` where LIBSVM does.

    References
    ----------
    .. [1] B. Schölkopf, A. J. Smola, R. C. Williamson and P. L. Bartlett, "New
       support vector algorithms", Neural Computation, 12(5), 1207-1245, 2000.
    .. [2] C.-C. Chang and C.-J. Lin, "LIBSVM: A library for support vector
       machines", ACM Transactions on Intelligent Systems and Technology, 2(3),
       27:1-27:27, 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from libsmo import NuSVC
    >>> X = np.array([[-1, -1], [-2, -1], [1, 1], [2, 1]])
    >>> y = np.array([1, 1, 2, 2])
    >>> clf = make_pipeline(StandardScaler(), NuSVC())
    >>> clf.fit(X, y)
    Pipeline(steps=[('standardscaler', StandardScaler()), ('nusvc', NuSVC())])
    >>> print(clf.predict([[-0.8, -1]]))
    [1]

    nu bounds the fraction of support vectors from below:

    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = NuSVC(nu=0.05).fit(X, y)
    >>> print(round(clf.n_support_.sum() / len(y), 2))
    0.14
    """

    _svm_type = "nu_svc"
    _parameter_constraints = {**p.NU, **p.COMMON, **p.CLASSIFIER}

    def __init__(self, *, nu=0.5, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, probability=False, tol=1e-3, cache_size="auto",
                 class_weight=None, verbose=False, max_iter=-1,
                 decision_function_shape="ovr", break_ties=False, random_state=None,
                 warm_start=False, n_jobs=None):
        self.nu = nu
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state

    def _formulation_params(self):
        params = dict(nu=self.nu)
        params.update(probability_params(self))
        return params


class SVR(_BaseRegressor):
    """Epsilon-support vector regression: LIBSVM's epsilon-SVR, scikit-learn's interface.

    A drop-in for `sklearn.svm.SVR` (LIBSVM's ``svm-train -s 3``): a function whose
    deviation from the targets costs nothing inside a tube of half-width epsilon and
    C times the excess outside it.

    Parameters
    ----------
    kernel : {'linear', 'poly', 'rbf', 'sigmoid', 'precomputed'} or callable, default='rbf'
        LIBSVM's kernel (``-t 0..4``): u'v, (gamma u'v + coef0)^degree,
        ``exp(-gamma |u - v|^2)``, tanh(gamma u'v + coef0), or a Gram matrix given as X.
        A callable k(X, Y) returns the Gram matrix of the rows of X and Y.
    degree : int, default=3
        Degree of the polynomial kernel (LIBSVM's ``-d``); ignored by the others.
    gamma : {'scale', 'auto'} or float, default='scale'
        Kernel coefficient of 'rbf', 'poly' and 'sigmoid' (LIBSVM's ``-g``):
        'scale' is 1 / (n_features * X.var()), 'auto' is 1 / n_features (LIBSVM's
        default), a float must be non-negative.
    coef0 : float, default=0.0
        Independent term of the 'poly' and 'sigmoid' kernels (LIBSVM's ``-r``).
    tol : float, default=1e-3
        Tolerance of the stopping rule (LIBSVM's ``-e``).
    C : float, default=1.0
        Penalty of a deviation outside the tube (LIBSVM's ``-c``); positive, or
        ``np.inf``.
    epsilon : float, default=0.1
        Half-width of the tube within which deviations cost nothing (LIBSVM's
        ``-p``); non-negative.
    shrinking : bool, default=True
        Whether to use the shrinking heuristic (LIBSVM's ``-h``).
    cache_size : float or 'auto', default='auto'
        Size of the kernel row cache in MB (LIBSVM's ``-m``), or 'auto': as much as
        the problem can use within half of the available memory (see `SVC`).
    verbose : bool, default=False
        Log the solver's progress and LIBSVM's summary lines on the ``libsmo``
        logger.
    max_iter : int, default=-1
        Steps before the solver stops; -1 is LIBSVM's own cap,
        max(10^7, 200 * n_samples) (two variables a sample).
    warm_start : bool, default=False
        Start each fit from the previous fit's solution on the same rows (libsmo's own
        parameter, see `SVC`).
    n_jobs : int, default=None
        Has no effect on one regression problem; kept for the estimators' common
        interface (libsmo's own parameter).

    Attributes
    ----------
    coef_ : ndarray or sparse matrix of shape (1, n_features)
        Primal weights, only for kernel='linear'.
    dual_coef_ : ndarray or sparse matrix of shape (1, n_SV)
        alpha_i - alpha_i^* of the support vectors.
    fit_status_ : int
        0 if the solver reached the optimum, 1 if it stopped early.
    intercept_ : ndarray of shape (1,)
        The constant of the decision function, -rho.
    n_features_in_ : int
        Number of features seen during `fit`.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during `fit`, when X has string column names.
    n_iter_ : int
        SMO steps of the solver.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training data.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors; empty for a precomputed kernel.
    n_support_ : ndarray of shape (1,), dtype=int32
        Number of support vectors.
    probA_, probB_ : ndarray of shape (0,)
        Empty: the estimator fits no probability model.
    shape_fit_ : tuple of int
        Shape of the training X.

    See Also
    --------
    libsmo.NuSVR : Regression with nu, a bound on the fraction of support vectors.
    libsmo.train : The same solver with LIBSVM's parameters (svm_type='epsilon_svr').
    sklearn.svm.SVR : The scikit-learn estimator, over its copy of LIBSVM.

    Notes
    -----
    Always LIBSVM's solver: the partitioned solver (`SVC`'s ``solver``) solves
    C-SVC's dual only; the regression's 2l variables (a and a* of each row) are not
    the partitions' problem, whose nodes have one variable a row.

    The differences from scikit-learn are `SVC`'s (sparse rows after a dense fit,
    refused inputs, ``support_`` with sample weights, the ``libsmo`` logger).

    References
    ----------
    .. [1] A. J. Smola and B. Schölkopf, "A tutorial on support vector regression",
       Statistics and Computing, 14(3), 199-222, 2004.
    .. [2] C.-C. Chang and C.-J. Lin, "LIBSVM: A library for support vector
       machines", ACM Transactions on Intelligent Systems and Technology, 2(3),
       27:1-27:27, 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from libsmo import SVR
    >>> rng = np.random.RandomState(0)
    >>> y = rng.randn(10)
    >>> X = rng.randn(10, 5)
    >>> regr = make_pipeline(StandardScaler(), SVR(C=1.0, epsilon=0.2))
    >>> regr.fit(X, y)
    Pipeline(steps=[('standardscaler', StandardScaler()),
                    ('svr', SVR(epsilon=0.2))])

    A wider tube leaves fewer support vectors:

    >>> from sklearn.datasets import load_diabetes
    >>> X, y = load_diabetes(return_X_y=True)
    >>> for epsilon in (10.0, 50.0):
    ...     regr = make_pipeline(StandardScaler(), SVR(C=100.0, epsilon=epsilon))
    ...     print(epsilon, regr.fit(X, y)[-1].n_support_)
    10.0 [367]
    50.0 [176]
    """

    _svm_type = "epsilon_svr"
    _parameter_constraints = {**p.COMMON, **p.C, **p.EPSILON}

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3,
                 C=1.0, epsilon=0.1, shrinking=True, cache_size="auto", verbose=False,
                 max_iter=-1, warm_start=False, n_jobs=None):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def _formulation_params(self):
        return dict(C=self.C, epsilon=self.epsilon)


class NuSVR(_BaseRegressor):
    """Nu-support vector regression: LIBSVM's nu-SVR with scikit-learn's interface.

    A drop-in for `sklearn.svm.NuSVR` (LIBSVM's ``svm-train -s 4``): like `SVR`, but
    the tube's width is found by the solver, and nu in (0, 1] bounds the fraction of
    support vectors from below and the fraction of samples outside the tube from
    above.

    Parameters
    ----------
    nu : float, default=0.5
        Lower bound on the fraction of support vectors and upper bound on the
        fraction of samples outside the tube (LIBSVM's ``-n``); in (0, 1].
    C : float, default=1.0
        Penalty of a deviation outside the tube (LIBSVM's ``-c``); positive, or
        ``np.inf``.
    kernel : {'linear', 'poly', 'rbf', 'sigmoid', 'precomputed'} or callable, default='rbf'
        LIBSVM's kernel (``-t 0..4``): u'v, (gamma u'v + coef0)^degree,
        ``exp(-gamma |u - v|^2)``, tanh(gamma u'v + coef0), or a Gram matrix given as X.
        A callable k(X, Y) returns the Gram matrix of the rows of X and Y.
    degree : int, default=3
        Degree of the polynomial kernel (LIBSVM's ``-d``); ignored by the others.
    gamma : {'scale', 'auto'} or float, default='scale'
        Kernel coefficient of 'rbf', 'poly' and 'sigmoid' (LIBSVM's ``-g``):
        'scale' is 1 / (n_features * X.var()), 'auto' is 1 / n_features (LIBSVM's
        default), a float must be non-negative.
    coef0 : float, default=0.0
        Independent term of the 'poly' and 'sigmoid' kernels (LIBSVM's ``-r``).
    shrinking : bool, default=True
        Whether to use the shrinking heuristic (LIBSVM's ``-h``).
    tol : float, default=1e-3
        Tolerance of the stopping rule (LIBSVM's ``-e``).
    cache_size : float or 'auto', default='auto'
        Size of the kernel row cache in MB (LIBSVM's ``-m``), or 'auto': as much as
        the problem can use within half of the available memory (see `SVC`).
    verbose : bool, default=False
        Log the solver's progress and LIBSVM's summary lines on the ``libsmo``
        logger.
    max_iter : int, default=-1
        Steps before the solver stops; -1 is LIBSVM's own cap,
        max(10^7, 200 * n_samples) (two variables a sample).
    warm_start : bool, default=False
        Start each fit from the previous fit's solution on the same rows (libsmo's own
        parameter, see `SVC`).
    n_jobs : int, default=None
        Has no effect on one regression problem; kept for the estimators' common
        interface (libsmo's own parameter).

    Attributes
    ----------
    coef_ : ndarray or sparse matrix of shape (1, n_features)
        Primal weights, only for kernel='linear'.
    dual_coef_ : ndarray or sparse matrix of shape (1, n_SV)
        alpha_i - alpha_i^* of the support vectors.
    fit_status_ : int
        0 if the solver reached the optimum, 1 if it stopped early.
    intercept_ : ndarray of shape (1,)
        The constant of the decision function, -rho.
    n_features_in_ : int
        Number of features seen during `fit`.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during `fit`, when X has string column names.
    n_iter_ : int
        SMO steps of the solver.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training data.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors; empty for a precomputed kernel.
    n_support_ : ndarray of shape (1,), dtype=int32
        Number of support vectors.
    probA_, probB_ : ndarray of shape (0,)
        Empty: the estimator fits no probability model.
    shape_fit_ : tuple of int
        Shape of the training X.

    See Also
    --------
    libsmo.SVR : Regression with a tube of given width epsilon.
    libsmo.train : The same solver with LIBSVM's parameters (svm_type='nu_svr').
    sklearn.svm.NuSVR : The scikit-learn estimator, over its copy of LIBSVM.

    Notes
    -----
    Always LIBSVM's solver: the partitioned solver (`SVC`'s ``solver``) solves
    C-SVC's dual only; the regression's 2l variables and nu's second constraint are
    not the partitions' problem.

    The differences from scikit-learn are `SVC`'s; the solver starts from
    scikit-learn's sums, as `NuSVC` says.

    References
    ----------
    .. [1] B. Schölkopf, A. J. Smola, R. C. Williamson and P. L. Bartlett, "New
       support vector algorithms", Neural Computation, 12(5), 1207-1245, 2000.
    .. [2] C.-C. Chang and C.-J. Lin, "LIBSVM: A library for support vector
       machines", ACM Transactions on Intelligent Systems and Technology, 2(3),
       27:1-27:27, 2011.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from libsmo import NuSVR
    >>> X, y = load_diabetes(return_X_y=True)
    >>> regr = make_pipeline(StandardScaler(), NuSVR(C=100.0, nu=0.1)).fit(X, y)
    >>> print(regr[-1].n_support_, round(regr[-1].n_support_[0] / len(y), 2))
    [79] 0.18
    """

    _svm_type = "nu_svr"
    _parameter_constraints = {**p.NU, **p.C, **p.COMMON}

    def __init__(self, *, nu=0.5, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, tol=1e-3, cache_size="auto", verbose=False, max_iter=-1,
                 warm_start=False, n_jobs=None):
        self.nu = nu
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def _formulation_params(self):
        return dict(C=self.C, nu=self.nu)


class OneClassSVM(OutlierMixin, _BaseOther):
    """Unsupervised outlier detection: LIBSVM's one-class SVM with scikit-learn's interface.

    A drop-in for `sklearn.svm.OneClassSVM` (LIBSVM's ``svm-train -s 2``): estimates
    the support of a high-dimensional distribution, a region holding all but a
    fraction nu of the training samples. `predict` gives +1 inside it (inliers) and
    -1 outside (outliers).

    Parameters
    ----------
    kernel : {'linear', 'poly', 'rbf', 'sigmoid', 'precomputed'} or callable, default='rbf'
        LIBSVM's kernel (``-t 0..4``): u'v, (gamma u'v + coef0)^degree,
        ``exp(-gamma |u - v|^2)``, tanh(gamma u'v + coef0), or a Gram matrix given as X.
        A callable k(X, Y) returns the Gram matrix of the rows of X and Y.
    degree : int, default=3
        Degree of the polynomial kernel (LIBSVM's ``-d``); ignored by the others.
    gamma : {'scale', 'auto'} or float, default='scale'
        Kernel coefficient of 'rbf', 'poly' and 'sigmoid' (LIBSVM's ``-g``):
        'scale' is 1 / (n_features * X.var()), 'auto' is 1 / n_features (LIBSVM's
        default), a float must be non-negative.
    coef0 : float, default=0.0
        Independent term of the 'poly' and 'sigmoid' kernels (LIBSVM's ``-r``).
    tol : float, default=1e-3
        Tolerance of the stopping rule (LIBSVM's ``-e``).
    nu : float, default=0.5
        Upper bound on the fraction of training errors (outliers) and lower bound on
        the fraction of support vectors (LIBSVM's ``-n``); in (0, 1].
    shrinking : bool, default=True
        Whether to use the shrinking heuristic (LIBSVM's ``-h``).
    cache_size : float or 'auto', default='auto'
        Size of the kernel row cache in MB (LIBSVM's ``-m``), or 'auto': as much as
        the problem can use within half of the available memory (see `SVC`).
    verbose : bool, default=False
        Log the solver's progress and LIBSVM's summary lines on the ``libsmo``
        logger.
    max_iter : int, default=-1
        Steps before the solver stops; -1 is LIBSVM's own cap,
        max(10^7, 100 * n_samples).
    linear_solver : {'auto', 'primal', 'kernel'}, default='auto'
        How kernel='linear' is solved: on the primal weights, on kernel rows, or
        the faster of the two for the data's size (libsmo's own parameter, see
        `SVC`). On the primal weights the fit starts from LIBLINEAR's one-class
        method (its -s 21: the same problem and stopping rule, on O(nnz) passes over
        the rows) and SMO confirms its point.
    warm_start : bool, default=False
        Start each fit from the previous fit's solution on the same rows (libsmo's own
        parameter, see `SVC`).
    n_jobs : int, default=None
        Has no effect on one problem; kept for the estimators' common interface
        (libsmo's own parameter).

    Attributes
    ----------
    coef_ : ndarray or sparse matrix of shape (1, n_features)
        Primal weights, only for kernel='linear'.
    dual_coef_ : ndarray or sparse matrix of shape (1, n_SV)
        alpha_i of the support vectors.
    fit_status_ : int
        0 if the solver reached the optimum, 1 if it stopped early.
    intercept_ : ndarray of shape (1,)
        The constant of the decision function, -rho.
    offset_ : ndarray of shape (1,)
        rho, so that ``decision_function = score_samples - offset_``.
    n_features_in_ : int
        Number of features seen during `fit`.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during `fit`, when X has string column names.
    n_iter_ : int
        SMO steps of the solver.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training data.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors; empty for a precomputed kernel.
    n_support_ : ndarray of shape (1,), dtype=int32
        Number of support vectors.
    probA_, probB_ : ndarray of shape (0,)
        Empty: the estimator fits no probability model.
    shape_fit_ : tuple of int
        Shape of the training X.

    See Also
    --------
    libsmo.train : The same solver with LIBSVM's parameters (svm_type='one_class').
    sklearn.svm.OneClassSVM : The scikit-learn estimator, over its copy of LIBSVM.
    sklearn.ensemble.IsolationForest : Outlier detection by random trees.

    Notes
    -----
    Always LIBSVM's solver: the partitioned solver (`SVC`'s ``solver``) solves
    C-SVC's dual only; one-class starts at sum(a) = nu l spread over the rows, so a
    row outside a working set is not at a = 0, which the check over every row relies
    on.

    The differences from scikit-learn are `SVC`'s. libsmo's `libsmo.train` also fits
    LIBSVM 3.30's probability marks of a one-class model (``probability=True``);
    this estimator, like scikit-learn's, has no `predict_proba`.

    References
    ----------
    .. [1] B. Schölkopf, J. C. Platt, J. Shawe-Taylor, A. J. Smola and R. C.
       Williamson, "Estimating the support of a high-dimensional distribution",
       Neural Computation, 13(7), 1443-1471, 2001.
    .. [2] C.-C. Chang and C.-J. Lin, "LIBSVM: A library for support vector
       machines", ACM Transactions on Intelligent Systems and Technology, 2(3),
       27:1-27:27, 2011.

    Examples
    --------
    >>> from libsmo import OneClassSVM
    >>> X = [[0], [0.44], [0.45], [0.46], [1]]
    >>> clf = OneClassSVM(gamma="auto").fit(X)
    >>> clf.predict(X)
    array([-1,  1,  1,  1, -1])
    >>> clf.score_samples(X).round(3)
    array([1.78 , 2.055, 2.056, 2.056, 1.733])
    """

    _svm_type = "one_class"
    _parameter_constraints = {**p.COMMON, **p.NU, **p.LINEAR_SOLVER}

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3,
                 nu=0.5, shrinking=True, cache_size="auto", verbose=False, max_iter=-1,
                 linear_solver="auto", warm_start=False, n_jobs=None):
        self.linear_solver = linear_solver
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.nu = nu
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def _formulation_params(self):
        return dict(nu=self.nu, linear_solver=self.linear_solver)

    def fit(self, X, y=None, sample_weight=None):
        """Fit the support of the distribution of X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples; for kernel='precomputed', the (n_samples, n_samples)
            Gram matrix; for a callable kernel, anything the kernel reads.
        y : None
            Ignored; present for scikit-learn's API.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights multiplying each sample's bound; a sample of weight 0
            or less is left out.

        Returns
        -------
        OneClassSVM
            The fitted estimator itself.

        Examples
        --------
        >>> from libsmo import OneClassSVM
        >>> clf = OneClassSVM(gamma="auto").fit([[0], [0.44], [0.45], [0.46], [1]])
        >>> clf.n_support_
        array([3], dtype=int32)
        """
        X, _ = self._start_fit(X, None)
        return self._fit_targets(X, None, sample_weight, **self._formulation_params())

    def _finish_fitted(self, model):
        super()._finish_fitted(model)
        self.offset_ = -self.intercept_

    def decision_function(self, X):
        """Compute the signed distance to the separating surface.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples; for kernel='precomputed', the (n_samples, n_train) kernel values
            against the training samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            Positive for inliers, negative for outliers: sum_i alpha_i K(x_i, x) -
            rho.

        Examples
        --------
        >>> from libsmo import OneClassSVM
        >>> clf = OneClassSVM(gamma="auto").fit([[0], [0.44], [0.45], [0.46], [1]])
        >>> clf.decision_function([[0.45], [1.0]]).round(3)
        array([ 0.001, -0.322])
        """
        return self._decision(X)

    def score_samples(self, X):
        """Compute the raw scores of the samples, before the offset.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples, as for `decision_function`.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``decision_function(X) + offset_``: sum_i alpha_i K(x_i, x).

        Examples
        --------
        >>> from libsmo import OneClassSVM
        >>> clf = OneClassSVM(gamma="auto").fit([[0], [0.44], [0.45], [0.46], [1]])
        >>> clf.score_samples([[0.45], [1.0]]).round(3)
        array([2.056, 1.733])
        """
        return self.decision_function(X) + self.offset_

    def predict(self, X):
        """Predict whether each sample is an inlier (+1) or an outlier (-1).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples, as for `decision_function`.

        Returns
        -------
        ndarray of shape (n_samples,)
            +1 where `decision_function` is positive, else -1 (LIBSVM's rule).

        Examples
        --------
        >>> from libsmo import OneClassSVM
        >>> clf = OneClassSVM(gamma="auto").fit([[0], [0.44], [0.45], [0.46], [1]])
        >>> clf.predict([[0.45], [1.0]])
        array([ 1, -1])
        """
        return np.where(self.decision_function(X) > 0, 1, -1)
