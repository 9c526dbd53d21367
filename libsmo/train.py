"""Training, from the public entry to the model: parameters -> problems -> solve -> Model.

`train` takes LIBSVM's parameters as keywords and builds a `TrainParams` (validated in
`libsmo.params`); `fit` does the rest for any caller that already has one (the
estimators, cross-validation, the commands):

1. the data are validated and brought to the solver's layout (`libsmo.problem`);
2. an `Executor` (`libsmo.execution`) is set up for the fit's binary problems;
3. the formulation of `svm_type` (`FORMULATIONS`, LIBSVM's svm_train switch) turns the
   data into binary problems, solves them and collects a `FormulationResult`
   (`libsmo.classification` for C-SVC and nu-SVC, `libsmo.formulations` for the rest);
4. the result becomes a `Model` with the support vectors taken from the data.

With `init` (a warm start), each binary problem starts from a previous solution made
feasible for it (`libsmo.warm_start`) instead of LIBSVM's start.
"""
import dataclasses
import logging

from libsmo import _validation as v
from libsmo.classification import fit_classification
from libsmo.exceptions import ConvergenceWarning
from libsmo.execution import Executor
from libsmo.formulations import fit_one_class, fit_regression
from libsmo.model import Model
from libsmo.params import TrainParams
from libsmo.problem import dense_copy_budget, take_rows, training_set
from libsmo.warm_start import starting_point

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
          linear_solver="auto", n_jobs=None, init=None):
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
    cache_size : float > 0 or "auto"
        Kernel row cache in megabytes, LIBSVM's -m; it changes which kernel rows are
        computed again, never the steps or the model. "auto" (default): as much as
        the problem can use (each binary problem's whole Q matrix, 4 l^2 bytes, where
        it fits), bounded by half of the memory available when the fit starts
        (/proc/meminfo's MemAvailable; `libsmo._cache_budget.AUTO_MEMORY_FRACTION`)
        and taken a row at a time as the solver computes rows, so a fit holds what
        its solver keeps asking for. Where Q is larger than the bound, the rows of the
        variables nearest the solver's next steps are kept (the cache's "ranked"
        policy), so the fit slows gradually as the cache shrinks, without LRU's cliff.
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
        Steps between callback calls (checked after every step, at most every 50 ms).
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
        twice `cache_size` (200 MB for "auto"), where it wins (a9a, C=0.05: 14x faster
        than kernel rows), and kernel rows for smaller ones, where they win (sector's
        one-vs-one pairs).
    n_jobs : int or None
        One-vs-one pairs trained at once as joblib tasks (each with one thread, BLAS
        and OpenMP included, and cache_size / n_jobs of the cache): on local threads,
        or on any joblib backend a ``joblib.parallel_config`` context selects (Dask,
        Ray, processes). None is 1 unless such a context sets a number; -1 is every
        core (every worker of a cluster). The model is the same, bit for bit, for
        every n_jobs and backend. With a process or cluster backend, `callback` must
        be picklable and runs where the pair runs.
    init : Model, array-like or None
        Warm start: a Model whose `support` indexes these rows (a fit stopped by
        max_iter or time_limit, a fit with other C, gamma or weights, from which
        this one goes on), or the dual coefficients of every row (shape (n,), or
        (n_classes - 1, n) in LIBSVM's one-vs-one layout, classes in LIBSVM's order).
        Each binary problem starts there, clipped to its bounds and with its
        equality constraint(s) restored; it ends at the same optimum as a cold fit,
        usually in fewer steps. A model of another kind (classification,
        regression, one-class) is refused; classes the model does not know start
        cold.

    Returns
    -------
    Model

    Raises
    ------
    ValueError, TypeError
        Bad data or parameters; the message names the parameter and its value.
    """
    params = TrainParams.from_kwargs(
        svm_type=svm_type, kernel=kernel, C=C, nu=nu, epsilon=epsilon, gamma=gamma,
        degree=degree, coef0=coef0, tol=tol, cache_size=cache_size, shrinking=shrinking,
        selection=selection, class_weight=class_weight, max_iter=max_iter,
        time_limit=time_limit, verbose=verbose, callback=callback,
        callback_every=callback_every, n_threads=n_threads, probability=probability,
        random_state=random_state, linear_solver=linear_solver, n_jobs=n_jobs)
    return fit(X, y, params, sample_weight=sample_weight, init=init)


def fit(X, y, params, sample_weight=None, init=None):
    """Train with parameters that are already a `TrainParams` (see `train`).

    Parameters
    ----------
    X, y, sample_weight, init
        As for `train`.
    params : TrainParams

    Returns
    -------
    Model
    """
    return fit_training_set(training_set_for(X, y, sample_weight, params), params,
                            init=init)


def training_set_for(X, y, sample_weight, params):
    """The `TrainingSet` that `fit` makes of X, y and sample_weight for `params`:
    validated, in the solver's layout. A caller that trains on the same rows many
    times (a grid search's folds) makes it once and passes it to `fit_training_set`
    with any params of the same svm_type, kernel name and cache_size.

    Returns
    -------
    TrainingSet

    Raises
    ------
    TypeError, ValueError
        Bad data; the message names X, y or sample_weight.
    """
    return training_set(X, y, sample_weight, params.svm_type, params.kernel.kernel,
                        dense_copy_bytes=dense_copy_budget(params.solver.cache_size))


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
    return Model(svm_type=params.svm_type, kernel=kernel.kernel, gamma=kernel.gamma,
                 degree=kernel.degree, coef0=kernel.coef0, classes=result.classes,
                 n_support=result.n_support, support_vectors=support_vectors,
                 support=result.sv_rows, sv_coef=result.sv_coef, rho=result.rho,
                 n_features=data.n_features, probA=result.probA, probB=result.probB,
                 prob_density_marks=result.prob_density_marks,
                 n_iter=[f.n_iter for f in result.fits],
                 objective=[f.objective for f in result.fits],
                 status=[f.status for f in result.fits],
                 kernel_evaluations=_kernel_evaluations(result.fits))


def _kernel_evaluations(fits):
    """Each binary problem's kernel values computed, or () if any went uncounted."""
    counts = [f.kernel_evaluations for f in fits]
    return () if None in counts else counts
