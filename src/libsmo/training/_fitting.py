"""Training, from the public entry to the model: parameters -> problems -> solve -> Model.

`train` takes LIBSVM's parameters as keywords and builds a `TrainParams` (validated in
`libsmo.training._params`); `fit` does the rest for any caller that already has one (the
estimators, cross-validation, the commands):

1. the data are validated and brought to the solver's layout (`libsmo.training._problem`);
2. an `Executor` (`libsmo.training._execution`) is set up for the fit's binary problems;
3. the formulation of `svm_type` (`FORMULATIONS`, LIBSVM's svm_train switch) turns the
   data into binary problems, solves them and collects a `FormulationResult`
   (`libsmo.training._pairs` for C-SVC and nu-SVC, `libsmo.training._formulations` for the rest);
4. the result becomes a `Model` with the support vectors taken from the data.

With `init` (a warm start), each binary problem starts from a previous solution made
feasible for it (`libsmo.training._warm_start`) instead of LIBSVM's start.
"""
import dataclasses
import logging

import numpy as np

from libsmo._utils import sparse as sp
from libsmo._utils import validation as v
from libsmo._utils.row_layout import DENSE_COPY_BYTES, dense_copy_budget
from libsmo.exceptions import ConvergenceWarning
from libsmo.model._model import Model
from libsmo.training._execution import Executor
from libsmo.training._formulations import fit_one_class, fit_regression
from libsmo.training._pairs import fit_classification
from libsmo.training._params import TrainParams
from libsmo.training._problem import take_rows, training_set
from libsmo.training._warm_start import starting_point

__all__ = ["ConvergenceWarning", "FORMULATIONS", "fit", "fit_training_set", "train",
           "training_set_for"]

logger = logging.getLogger("libsmo")

# LIBSVM's svm_train: which formulation makes the model of each svm_type
FORMULATIONS = {"c_svc": fit_classification, "nu_svc": fit_classification,
                "one_class": fit_one_class, "epsilon_svr": fit_regression,
                "nu_svr": fit_regression}


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


def train(X, y=None, *, svm_type="c_svc", kernel="rbf", C=1.0, nu=0.5, epsilon=0.1,
          gamma=None, degree=3, coef0=0.0, tol=1e-3, cache_size="auto", shrinking=True,
          selection="second_order", class_weight=None, sample_weight=None,
          max_iter=None, time_limit=None, verbose=False, callback=None,
          callback_every=1000, n_threads=1, probability=False, random_state=None,
          linear_solver="auto", n_jobs=None, init=None, solver="smo", partitions="auto",
          partitioning="stratified"):
    """Train a support vector machine with SMO: any of LIBSVM's five formulations.

    The Python side of ``svm-train``: the same formulations, kernels, parameters,
    stopping rule and answers (the same solver steps where LIBSVM's are taken), on
    dense or sparse (CSR) data. Several classes are trained one-vs-one, one binary
    problem per pair of classes, as LIBSVM does. The result is a `libsmo.Model`
    with LIBSVM's svm_model fields, which predicts and saves as LIBSVM's model
    files do.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training rows. Sparse input stays sparse (CSR) all the way. For
        kernel='precomputed', the (n_samples, n_samples) Gram matrix.
    y : array-like of shape (n_samples,), default=None
        Class labels (numbers or strings; two or more classes) for c_svc and nu_svc,
        real targets for the regressions; ignored (may be None) for one_class.
    svm_type : {'c_svc', 'nu_svc', 'one_class', 'epsilon_svr', 'nu_svr'}, default='c_svc'
        The formulation (LIBSVM's ``-s 0..4``).
    kernel : {'rbf', 'linear', 'poly', 'sigmoid', 'precomputed'}, default='rbf'
        LIBSVM's kernel (``-t``): u'v, (gamma u'v + coef0)^degree,
        ``exp(-gamma |u - v|^2)``, tanh(gamma u'v + coef0), or a Gram matrix given as X.
    C : float, default=1.0
        Box constraint of c_svc, epsilon_svr and nu_svr (LIBSVM's ``-c``);
        positive, or ``np.inf`` for a hard margin.
    nu : float, default=0.5
        The parameter of nu_svc, one_class and nu_svr (LIBSVM's ``-n``), in (0, 1].
    epsilon : float, default=0.1
        Half-width of epsilon_svr's insensitive tube (LIBSVM's ``-p``); >= 0.
    gamma : float, default=None
        Kernel coefficient (LIBSVM's ``-g``), >= 0; None is 1 / n_features, as in
        LIBSVM.
    degree : int, default=3
        Degree of the polynomial kernel (LIBSVM's ``-d``), >= 0.
    coef0 : float, default=0.0
        Independent term of the polynomial and sigmoid kernels (LIBSVM's ``-r``).
    tol : float, default=1e-3
        Stopping tolerance on the maximal violation m(a) - M(a) (LIBSVM's ``-e``).
    cache_size : float or 'auto', default='auto'
        Kernel row cache in megabytes (LIBSVM's ``-m``); it changes which kernel rows
        are computed again, never the steps or the model. 'auto': as much as the
        problem can use (each binary problem's whole Q matrix, 4 l^2 bytes, where it
        fits), bounded by half of the memory available when the fit starts
        (MemAvailable in /proc/meminfo,
        `libsmo._utils.cache_budget.AUTO_MEMORY_FRACTION`) and taken a row at a time
        as the solver computes rows, so a fit holds what its solver keeps asking for.
        Where Q is larger than the bound, the rows of the variables nearest the
        solver's next steps are kept (`RowPaths.cache_policy` 'ranked'), so a fit
        slows gradually as the cache shrinks, without LRU's cliff.
    shrinking : bool, default=True
        Whether to use the shrinking heuristic (LIBSVM's ``-h``).
    selection : {'second_order', 'platt'}, default='second_order'
        Partner choice: Fan, Chen and Lin's second-order rule [3]_ (LIBSVM's) or
        Platt's original heuristics [1]_ with Keerthi et al.'s two thresholds [2]_.
    class_weight : dict, default=None
        Maps a label to the weight multiplying C for that class (LIBSVM's ``-wi``);
        c_svc only (for nu_svc it has no effect, as in LIBSVM, and a warning says
        so).
    sample_weight : array-like of shape (n_samples,), default=None
        Per-example weights multiplying C (for nu_svc and one_class, the per-example
        bound); an example of weight 0 is left out.
    max_iter : int, default=None
        Stop each binary problem after this many SMO steps; the model's status then
        says 'max_iter' and a `libsmo.ConvergenceWarning`, naming the cap, is issued.
        None is LIBSVM's cap, max(10^7, 100 * number of variables); -1 is no limit
        (the estimators' ``max_iter=-1``, as in scikit-learn).
    time_limit : float, default=None
        Seconds of training after which the solver stops where it is, as with
        max_iter (status 'time_limit', ConvergenceWarning). The whole fit shares the
        budget: the binary problems of a multi-class fit get what the earlier ones
        left. None is no limit.
    verbose : bool, default=False
        Log progress and LIBSVM's summary lines on the ``libsmo`` logger.
    callback : callable, default=None
        Called every `callback_every` steps with a dict (n_iter, active_size,
        violation, objective); return False to stop (status 'stopped'). An
        exception it raises ends training and reaches the caller.
    callback_every : int, default=1000
        Steps between callback calls (checked after every step, at most every
        50 ms).
    n_threads : int or None, default=1
        Threads; None uses every core. With several classes the one-vs-one pairs are
        trained in parallel, each with one thread and an equal share of the cache;
        with two classes (and for the regressions and one-class) long kernel rows are
        spread over OpenMP threads. 1 is what LIBSVM uses: OpenMP rows speed up a
        fit on an idle machine but slow it down many times when another process
        holds a core, since every kernel row waits for its slowest thread.
    probability : bool, default=False
        Also fit LIBSVM's probability model (``-b 1``): for classification each
        pair's Platt sigmoid (probA, probB) on the decision values of an internal
        5-fold cross-validation (so about six trainings per pair) [4]_; for the
        regressions the Laplace scale of 5-fold cross-validated residuals
        (probA[0]); for one-class the density marks of LIBSVM 3.30+. Then
        `Model.predict_proba` works.
    random_state : None, int, numpy Generator or LibsvmRandom, default=None
        Seed of the internal cross-validation's folds (numpy's default_rng). An int
        gives the same probabilities on every run; None draws fresh folds each time;
        ``libsmo.LibsvmRandom()`` draws svm-train's folds.
    linear_solver : {'auto', 'primal', 'kernel'}, default='auto'
        How a linear kernel is solved for c_svc and one_class. 'primal' keeps the
        weights w = sum alpha_i y_i x_i and computes every gradient as a dot product
        with w (Platt's linear SVM with Keerthi's thresholds): no kernel rows and no
        cache, a pass over the data costs O(nnz), and it reaches the same optimum to
        the same tolerance (`selection`, `shrinking` and `cache_size` do not apply).
        For c_svc it starts from LIBLINEAR's dual coordinate descent, run with the
        intercept as a Lagrange multiplier of y'a = 0 until the constraint holds
        (`libsmo.training._linear_start`; not when `init` gives a start, or max_iter
        or time_limit bound the work): SMO then has few steps or none left, and
        where it has many (a large C) the kernel solver takes the rest (the model's
        n_iter counts the last solver's SMO steps only). For one_class it starts
        from LIBLINEAR's -s 21 method (its two-level coordinate descent, whose
        problem and stopping rule are LIBSVM's one-class ones) run to tol from
        LIBSVM's start or `init`'s (not where max_iter or time_limit bound the
        work), and SMO confirms its point.
        'kernel' uses cached kernel rows like every other kernel. 'auto' takes
        'primal' for each binary problem whose Q matrix (4 l^2 bytes) exceeds twice
        `cache_size` (200 MB for 'auto'), and below that where the start pays:
        c_svc problems of at least 2,000 rows with a mean C_i x_i'x_i of at most 10,
        or 5,000 rows with at most 150 (the start's epochs grow with it), one_class
        problems of at least 1,000 rows; kernel rows for the others. On dense rows of 8-bit values (pixels: uint8, or k/255 as
        floats), whose kernel rows are cheap and on which the coordinate descent is
        slow, 'primal' only where Q exceeds 16 times that bound (one_class: from
        5,000 rows).
    n_jobs : int, default=None
        One-vs-one pairs trained at once as joblib tasks (each with one thread, BLAS
        and OpenMP included, and cache_size / n_jobs of the cache): on local threads,
        or on any joblib backend a ``joblib.parallel_config`` context selects (Dask,
        Ray, processes). None is 1 unless such a context sets a number; -1 is every
        core (every worker of a cluster). The model is the same, bit for bit, for
        every n_jobs and backend. With a process or cluster backend, `callback` must
        be picklable and runs where the pair runs.
    init : Model or array-like, default=None
        Warm start: a Model whose `support` indexes these rows (a fit stopped by
        max_iter or time_limit, a fit with other C, gamma or weights, from which
        this one goes on), or the dual coefficients of every row (shape (n,), or
        (n_classes - 1, n) in LIBSVM's one-vs-one layout, classes in LIBSVM's order).
        Each binary problem starts there, clipped to its bounds and with its
        equality constraint(s) restored; it ends at the same optimum as a cold fit.
        A model of another kind (classification, regression, one-class) is refused;
        classes the model does not know start cold.
    solver : {'smo', 'partitioned', 'auto'}, default='smo'
        How c_svc's binary problems (the two classes, or each one-vs-one pair) are
        solved. "smo" (default): LIBSVM's solver over all the problem's rows.
        "partitioned": problems of at least 2,000 rows by the partitioned exact
        method (`libsmo.cascade`): the rows split into `partitions`, each solved
        alone on its own thread (n_threads, or n_jobs when larger), the support
        vectors merged and solved again, then rounds in which every row is scored
        against the current support vectors and the violators join the next working
        set, until LIBSVM's stopping rule m(a) - M(a) <= tol holds over every row.
        The model is then the single solver's optimum to the same tolerance (the
        objective within the optimum's tolerance, the predictions equal but for rows
        on the boundary); it reports its progress on the "libsmo" logger and through
        `callback`, and its own lines stand for the solver's with verbose=True.
        "auto": the partitioned method where it was measured to win, for c_svc
        problems of at least 100,000 dense rows and a kernel other than linear
        (benchmarks/bench_partitioned.py), else SMO. nu_svc, one_class and the
        regressions are always solved by SMO: the partitions' nodes solve C-SVC's
        dual (p = -1, one equality constraint); the nu variant's second constraint
        and its 1/r scaling, one-class's start at sum(a) = nu l and the regressions'
        2l variables are not theirs yet, so the global check would not be LIBSVM's
        rule for those problems.
    partitions : int or 'auto', default='auto'
        Partitions (at least 1) of each problem the partitioned method solves. "auto": about
        20,000 rows each, at least two a thread, at most 64.
    partitioning : {'stratified', 'random', 'kmeans'}, default='stratified'
        How the partitioned method splits a problem's rows: "stratified" (default),
        each class dealt out evenly over the partitions; "random"; "kmeans", the
        regions of k-means centres of a sample (as DC-SVM clusters). The model is the
        same optimum with each; they differ in time, stratified the least on the
        large sets measured (benchmarks/bench_partitioned.py).

    Returns
    -------
    Model
        The trained model, its ``status``, ``n_iter`` and ``objective`` one entry
        per binary problem.

    Raises
    ------
    ValueError
        Bad data or parameters; the message names the parameter and its value.
    TypeError
        A parameter of the wrong type, or an unknown keyword.

    See Also
    --------
    libsmo.SVC : The scikit-learn estimator over this training.
    libsmo.cross_validation : Cross-validation, svm-train's ``-v``, with these parameters.
    libsmo.training.fit : The same with the parameters as a TrainParams.
    libsmo.save_model : Write the model as a LIBSVM model file.

    Notes
    -----
    Where LIBSVM 3.37 and scikit-learn's copy of LIBSVM compute differently (the
    nu formulations' starting sums, the probability folds, two-class
    probabilities), train follows LIBSVM and the estimators follow scikit-learn.
    Labels are ordered as LIBSVM orders them: by first appearance, with -1/+1 data
    putting +1 first. Ctrl-C stops training within a fraction of a second with
    KeyboardInterrupt.

    The defaults that are about speed, as measured when they were chosen: OpenMP
    rows (n_threads=2) made a9a's fit about 1.25x faster on two idle cores, and
    many times slower with another process on a core, hence n_threads=1; the
    primal linear solver fitted a9a (C=0.05) 14x faster than kernel rows, while
    kernel rows win on small problems such as sector's one-vs-one pairs, hence
    linear_solver='auto'.

    References
    ----------
    .. [1] J. C. Platt, "Sequential Minimal Optimization: A fast algorithm for
       training support vector machines", Microsoft Research Technical Report
       MSR-TR-98-14, 1998.
    .. [2] S. S. Keerthi, S. K. Shevade, C. Bhattacharyya and K. R. K. Murthy,
       "Improvements to Platt's SMO algorithm for SVM classifier design", Neural
       Computation, 13(3), 637-649, 2001.
    .. [3] R.-E. Fan, P.-H. Chen and C.-J. Lin, "Working set selection using
       second order information for training support vector machines", Journal of
       Machine Learning Research, 6, 1889-1918, 2005.
    .. [4] H.-T. Lin, C.-J. Lin and R. C. Weng, "A note on Platt's probabilistic
       outputs for support vector machines", Machine Learning, 68(3), 267-276,
       2007.
    .. [5] C.-C. Chang and C.-J. Lin, "LIBSVM: A library for support vector
       machines", ACM Transactions on Intelligent Systems and Technology, 2(3),
       27:1-27:27, 2011.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import libsmo
    >>> X, y = load_iris(return_X_y=True)
    >>> model = libsmo.train(X, y, kernel="rbf", C=1.0, gamma=0.5)
    >>> model
    Model(svm_type='c_svc', kernel='rbf', classes=[0, 1, 2], n_sv=41, n_features=4)
    >>> model.status, model.n_iter
    (['optimal', 'optimal', 'optimal'], [34, 36, 40])
    >>> model.predict(X[[0, 50, 100]])
    array([0, 1, 2])

    The linear kernel on the primal weights, and on kernel rows, reach one
    optimum:

    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import minmax_scale
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = minmax_scale(X)
    >>> primal = libsmo.train(X, y, kernel="linear", linear_solver="primal")
    >>> rows = libsmo.train(X, y, kernel="linear", linear_solver="kernel")
    >>> round(primal.objective[0], 3), round(rows.objective[0], 3)
    (-67.104, -67.104)
    """
    params = TrainParams.from_kwargs(
        svm_type=svm_type, kernel=kernel, C=C, nu=nu, epsilon=epsilon, gamma=gamma,
        degree=degree, coef0=coef0, tol=tol, cache_size=cache_size, shrinking=shrinking,
        selection=selection, class_weight=class_weight, max_iter=max_iter,
        time_limit=time_limit, verbose=verbose, callback=callback,
        callback_every=callback_every, n_threads=n_threads, probability=probability,
        random_state=random_state, linear_solver=linear_solver, n_jobs=n_jobs,
        solver=solver, partitions=partitions, partitioning=partitioning)
    return fit(X, y, params, sample_weight=sample_weight, init=init)


def fit(X, y, params, sample_weight=None, init=None):
    """Train with parameters that are already a `TrainParams`.

    What `train` does once it has made its TrainParams of its keywords: the
    estimators, cross-validation and the commands build one TrainParams and call
    this.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training rows, as for `train`.
    y : array-like of shape (n_samples,) or None
        Labels or targets, as for `train`.
    params : TrainParams
        Every parameter of the training.
    sample_weight : array-like of shape (n_samples,), default=None
        Per-example weights, as for `train`.
    init : Model or array-like, default=None
        Warm start, as for `train`.

    Returns
    -------
    Model
        The trained model.

    Raises
    ------
    ValueError, TypeError
        Bad data; the message names X, y or sample_weight.

    See Also
    --------
    libsmo.train : The same with LIBSVM's parameters as keywords.
    TrainParams : The parameters.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from libsmo.training import TrainParams, fit
    >>> X, y = load_iris(return_X_y=True)
    >>> params = TrainParams.from_kwargs(kernel="rbf", C=1.0, gamma=0.5)
    >>> fit(X, y, params).n_iter
    [34, 36, 40]
    """
    return fit_training_set(training_set_for(X, y, sample_weight, params), params,
                            init=init)


def training_set_for(X, y, sample_weight, params, n_classes=None, order=None):
    """The `TrainingSet` that `fit` makes of X, y and sample_weight for `params`:
    validated, in the solver's layout. A caller that trains on the same rows many
    times (a grid search's folds) makes it once and passes it to `fit_training_set`
    with any params of the same svm_type, kernel name and cache_size. With n_classes,
    y holds the estimators' encoded labels, taken as they are (see
    `libsmo.training._problem.training_set`); with order, the rows are taken in that
    order (a permutation, read through the index: no reordered copy of X).

    Returns
    -------
    TrainingSet

    Raises
    ------
    TypeError, ValueError
        Bad data; the message names X, y or sample_weight.
    """
    # the budget of a dense copy matters to sparse rows only (for "auto" it reads the
    # available memory, which the executor reads again when the fit starts)
    copy_bytes = (dense_copy_budget(params.solver.cache_size) if sp.issparse(X)
                  else DENSE_COPY_BYTES)
    return training_set(X, y, sample_weight, params.svm_type, params.kernel.kernel,
                        dense_copy_bytes=copy_bytes, n_classes=n_classes, order=order)


def fit_training_set(data, params, init=None):
    """`fit` on data already validated by `training_set_for` (with params of the same
    svm_type, kernel name and cache_size).

    Parameters
    ----------
    data : TrainingSet
    params : TrainParams
    init : as for `train`

    Returns
    -------
    Model
    """
    start = starting_point(init, len(data.y), params.svm_type)
    kernel = params.kernel.for_data(data.n_features)
    solver = params.solver
    if solver.verbose:
        _enable_verbose_output()
        if solver.callback is None:
            solver = dataclasses.replace(solver, callback=_progress_logger)
    executor = Executor(data.X_solver, kernel, solver, params.primal_policy,
                        reserved_bytes=data.solver_copy_bytes)
    # a Generator (whose fresh entropy costs a system call) only when the probability
    # model needs one
    rng = v.check_random_state(params.random_state) if params.probability else None
    try:
        result = FORMULATIONS[params.svm_type](executor, data, params, rng, start=start)
    finally:
        executor.release_memory()
    support_vectors = (None if kernel.kernel == "precomputed"
                       else take_rows(data.X, result.sv_rows))
    if support_vectors is not None and support_vectors.dtype != np.float64:
        # rows trained as bytes: the model's support vectors are numbers as any model's
        support_vectors = support_vectors.astype(np.float64)
    # the fields in the checked forms; the model checks them before it first predicts
    return Model._from_training(
        svm_type=params.svm_type, kernel=kernel.kernel, gamma=float(kernel.gamma),
        degree=int(kernel.degree), coef0=float(kernel.coef0), classes=result.classes,
        n_support=result.n_support, support_vectors=support_vectors,
        support=result.sv_rows, sv_coef=result.sv_coef, rho=result.rho,
        n_features=int(data.n_features), probA=_float_vector(result.probA),
        probB=_float_vector(result.probB),
        prob_density_marks=_float_vector(result.prob_density_marks),
        n_iter=list(result.statistics.n_iter),
        objective=list(result.statistics.objective),
        status=list(result.statistics.status),
        kernel_evaluations=list(result.statistics.kernel_evaluations))


def _float_vector(values):
    """A probability field as a Model holds it: None, or a 1-D float64 array."""
    return None if values is None else np.atleast_1d(np.asarray(values, dtype=np.float64))
