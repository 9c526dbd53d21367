"""`libsmo.dask.SVC`: libsmo's SVC trained on data that lives on a Dask cluster.

Its parameters are `libsmo.SVC`'s (and so scikit-learn's), plus `cascade_rows`; its
fitted attributes and `to_model()` are `libsmo.SVC`'s, so that a model trained on the
cluster predicts, saves and loads as any other. `fit` uses the current Dask client
(`distributed.get_client()`: the one made last in this process).
"""
import warnings

import numpy as np

import libsmo.dask._prediction as _prediction
import libsmo.dask._training as training
from libsmo._utils import constraints as pv
from libsmo._utils.constraints import check_positive
from libsmo.estimators._classes import SVC as _SVC
from libsmo.estimators._input import ALL_LEFT_OUT
from libsmo.estimators._params import validate_parameters
from libsmo.exceptions import ConvergenceWarning
from libsmo.training._params import TrainParams

__all__ = ["SVC"]


def current_client():
    """Return the Dask client that `SVC.fit` uses.

    libsmo.dask makes no client of its own: it trains on the cluster of the client
    the application made (``Client(address)``, or ``Client()`` for a local
    cluster).

    Returns
    -------
    distributed.Client
        ``distributed.get_client()``: the client made last in this process (or the
        worker's client inside a task).

    Raises
    ------
    ValueError
        No client has been made; the message says how to make one.

    See Also
    --------
    distributed.get_client : What this calls.

    Examples
    --------
    >>> from distributed import Client
    >>> import libsmo.dask
    >>> client = Client(processes=False, n_workers=1, dashboard_address=":0")
    >>> libsmo.dask.current_client() is client
    True
    >>> client.close()
    """
    from distributed import get_client
    try:
        return get_client()
    except ValueError:
        raise ValueError("libsmo.dask needs a Dask client: make one first, e.g. "
                         "`from distributed import Client; client = Client(address)` "
                         "(Client() starts a local cluster)") from None


def _is_dask_collection(X):
    return hasattr(X, "__dask_graph__")


class SVC(_SVC):
    """C-support vector classification of data that lives on a Dask cluster, exactly.

    `libsmo.SVC` for a dask array (or a list of partitions) whose rows stay on the
    workers: each binary problem too large for one worker is solved by the cascade
    over the partitions, where they live (see `libsmo.cascade`), to the optimum a
    single solver reaches; the smaller ones are trained whole on one worker, as
    `libsmo.SVC` trains them. The fitted attributes and `to_model` are
    `libsmo.SVC`'s, so that a model trained on the cluster predicts, saves and loads
    as any other. `fit` uses the current Dask client (`current_client`).

    Parameters
    ----------
    C : float, default=1.0
        Regularisation parameter, the box constraint of the dual (LIBSVM's ``-c``).
    kernel : {'linear', 'poly', 'rbf', 'sigmoid'}, default='rbf'
        LIBSVM's kernel (``-t 0..3``); 'precomputed' and callable kernels are not
        available here.
    degree : int, default=3
        Degree of the polynomial kernel (LIBSVM's ``-d``).
    gamma : {'scale', 'auto'} or float, default='scale'
        Kernel coefficient (LIBSVM's ``-g``); 'scale' is computed over the
        partitions on the workers.
    coef0 : float, default=0.0
        Independent term of the 'poly' and 'sigmoid' kernels (LIBSVM's ``-r``).
    shrinking : bool, default=True
        Whether to use the shrinking heuristic (LIBSVM's ``-h``).
    probability : bool, default=False
        Must be False: the probability model is not available here (a ValueError
        says so).
    tol : float, default=1e-3
        Tolerance of LIBSVM's stopping rule (``-e``), which the cascade checks on
        every row of every partition.
    cache_size : float, default=200
        Kernel row cache of each solve, in MB (LIBSVM's ``-m``).
    class_weight : dict or 'balanced', default=None
        Multiplies C by the class's weight (LIBSVM's ``-wi``).
    verbose : bool, default=False
        Log the solvers' progress on the ``libsmo`` logger, where each solve runs.
    max_iter : int, default=-1
        Steps of each solve before it stops; -1 is LIBSVM's cap.
    decision_function_shape : {'ovr', 'ovo'}, default='ovr'
        Shape of `decision_function` for more than two classes, as for
        `libsmo.SVC`.
    break_ties : bool, default=False
        Predict from the one-vs-rest scores instead of the votes, as for
        `libsmo.SVC`.
    random_state : int, RandomState instance or None, default=None
        Unused (the probability model is not available); kept for
        `libsmo.SVC`'s interface.
    linear_solver : {'auto', 'primal', 'kernel'}, default='auto'
        How kernel='linear' is solved, as for `libsmo.SVC`.
    warm_start : bool, default=False
        Must be False: warm starts are not available here.
    n_jobs : int, default=None
        No effect: the cluster's workers run the tasks.
    cascade_rows : int, default=50_000
        A binary problem (the two classes, or one one-vs-one pair) with more rows
        than this is solved by the cascade over the partitions of X: leaves, merged
        support vectors, and a global optimality check until LIBSVM's stopping rule
        holds on every row. A smaller one is trained whole on one worker. 0 cascades
        every problem.

    Attributes
    ----------
    cascades_ : dict
        Maps each cascaded pair (i, j) of indices into ``classes_`` to its
        `libsmo.cascade.CascadeResult` (leaf sizes, rounds of the check, steps;
        its ``support`` is left on the workers, None here).
    classes_, class_weight_, dual_coef_, intercept_, support_vectors_, n_support_
        As for `libsmo.SVC`.
    support_, n_iter_, fit_status_, shape_fit_, n_features_in_, coef_
        As for `libsmo.SVC` (``support_`` indexes the rows of the whole X).

    See Also
    --------
    libsmo.SVC : The same estimator on data in memory.
    libsmo.cascade.solve_partitioned : The cascade's algorithm.

    Notes
    -----
    The cascade follows Graf et al. [1]_ (leaves solved alone, their support
    vectors merged up a tree), with a global check that makes it exact: every
    partition scores its rows against the current support vectors and the
    violators of LIBSVM's stopping rule join the next working set, until the
    maximal violation over all rows is at most ``tol``. Where most rows are support
    vectors, the whole problem is solved once from the leaves' solutions, as in
    Hsieh, Si and Dhillon's divide and conquer [2]_.

    For a model that fits one machine, ``n_jobs`` of `libsmo.SVC` with
    ``joblib.parallel_config(backend="dask")`` spreads its one-vs-one pairs over
    the cluster instead.

    References
    ----------
    .. [1] H. P. Graf, E. Cosatto, L. Bottou, I. Dourdanovic and V. Vapnik,
       "Parallel support vector machines: the Cascade SVM", Advances in Neural
       Information Processing Systems 17, 2004.
    .. [2] C.-J. Hsieh, S. Si and I. S. Dhillon, "A divide-and-conquer solver for
       kernel support vector machines", Proceedings of the 31st International
       Conference on Machine Learning, 2014.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from distributed import Client
    >>> from sklearn.datasets import load_iris
    >>> import libsmo.dask
    >>> client = Client(processes=False, n_workers=1, dashboard_address=":0")
    >>> X, y = load_iris(return_X_y=True)
    >>> order = np.random.RandomState(0).permutation(len(y))
    >>> X, y = da.from_array(X[order], chunks=(50, 4)), da.from_array(y[order], chunks=50)
    >>> clf = libsmo.dask.SVC(cascade_rows=0).fit(X, y)   # every pair by the cascade
    >>> clf.n_support_
    array([ 7, 29, 24], dtype=int32)
    >>> clf.cascades_[0, 1].status, clf.cascades_[0, 1].leaves
    ('optimal', (35, 29, 36))
    >>> clf.predict(X)[:5].compute()
    array([2, 1, 0, 2, 0])
    >>> client.close()
    """

    _public_module = "libsmo.dask"      # its page of the API documentation

    # (libsmo.SVC's solver, partitions and partitioning are the one-machine cascade's:
    # here the cascade is cascade_rows')
    _parameter_constraints = {**{name: form for name, form
                                 in _SVC._parameter_constraints.items()
                                 if name not in ("solver", "partitions", "partitioning")},
                              "cascade_rows": pv.Positive(integer=True, allow_zero=True)}

    def __init__(self, *, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, probability=False, tol=1e-3, cache_size=200,
                 class_weight=None, verbose=False, max_iter=-1,
                 decision_function_shape="ovr", break_ties=False, random_state=None,
                 linear_solver="auto", warm_start=False, n_jobs=None,
                 cascade_rows=50_000):
        super().__init__(C=C, kernel=kernel, degree=degree, gamma=gamma, coef0=coef0,
                         shrinking=shrinking, probability=probability, tol=tol,
                         cache_size=cache_size, class_weight=class_weight,
                         verbose=verbose, max_iter=max_iter,
                         decision_function_shape=decision_function_shape,
                         break_ties=break_ties, random_state=random_state,
                         linear_solver=linear_solver, warm_start=warm_start,
                         n_jobs=n_jobs)
        self.cascade_rows = cascade_rows

    def fit(self, X, y, sample_weight=None):
        """Fit on data that lives on the cluster.

        Parameters
        ----------
        X : dask array or dask DataFrame of shape (n_samples, n_features), or list
            The rows, chunked by rows only; or a sequence of partitions (ndarrays or
            scipy sparse matrices of the same width). Partitions without rows are
            left out.
        y : dask array or Series, array-like of shape (n_samples,), or list of arrays
            Class labels, chunked as X's rows, or one array per partition.
        sample_weight : dask array, array-like or list of arrays, default=None
            Per-sample weights multiplying C, given as y is; a sample of weight 0 or
            less is left out.

        Returns
        -------
        self
            The fitted estimator itself.

        Raises
        ------
        ValueError
            No Dask client, probability=True, warm_start=True, a precomputed or
            callable kernel, fewer than two classes, no class with a sample of
            positive weight, or bad data or parameters.

        Examples
        --------
        >>> import numpy as np
        >>> from distributed import Client
        >>> import libsmo.dask
        >>> client = Client(processes=False, n_workers=1, dashboard_address=":0")
        >>> parts = [np.array([[0.0], [1.0], [3.0]]), np.array([[4.0], [0.5], [3.5]])]
        >>> labels = [np.array([0, 0, 1]), np.array([1, 0, 1])]
        >>> clf = libsmo.dask.SVC(kernel="linear").fit(parts, labels)
        >>> clf.support_, clf.predict([[1.9], [2.1]])
        (array([1, 2], dtype=int32), array([0, 1]))
        >>> client.close()
        """
        validate_parameters(self)
        for name, unsupported in (("probability", self.probability),
                                  ("warm_start", self.warm_start),
                                  ("kernel='precomputed'", self.kernel == "precomputed"),
                                  ("a callable kernel", callable(self.kernel))):
            if unsupported:
                raise ValueError(f"libsmo.dask.SVC does not support {name}; use libsmo.SVC")
        cascade_rows = check_positive(self.cascade_rows, "cascade_rows", integer=True,
                                      allow_zero=True)
        client = current_client()
        data = training.load_partitions(client, X, y, sample_weight)
        self.classes_ = data.classes
        if len(self.classes_) < 2:
            raise ValueError("The number of classes has to be greater than one; got "
                             f"{len(self.classes_)} class")
        if not data.taking_part.any():
            raise ValueError(ALL_LEFT_OUT)
        # libsmo.SVC's check of the classes left with a row of weight > 0 (one entry
        # per such class: the check counts the classes present)
        present = np.flatnonzero(data.taking_part)
        self._check_classes_taking_part(present, np.ones(len(present), dtype=bool))
        self.class_weight_ = self._class_weights(
            np.repeat(np.arange(len(data.classes)), data.class_counts))
        gamma = self._scaled_gamma(client, data)
        params = TrainParams.from_kwargs(svm_type="c_svc", gamma=gamma, C=self.C,
                                         linear_solver=self.linear_solver,
                                         **self._train_options())
        fitted = training.fit_classifier(client, data, params, self.class_weight_,
                                         cascade_rows)
        model = fitted.model
        self.cascades_ = fitted.cascades
        self.fit_status_ = int(any(s != "optimal" for s in model.status))
        if self.fit_status_:
            warnings.warn(f"Solver terminated early (max_iter={self.max_iter}). Consider "
                          "pre-processing your data with StandardScaler or MinMaxScaler.",
                          ConvergenceWarning, stacklevel=2)
        self.shape_fit_ = (data.n_rows, data.n_features)
        self.n_features_in_ = data.n_features
        self._gamma = gamma
        self._sparse = data.sparse
        self._set_fitted(model)
        return self

    def _scaled_gamma(self, client, data):
        if self.gamma == "scale":
            return training.gamma_scale(client, data)
        if self.gamma == "auto":
            return 1.0 / data.n_features
        if isinstance(self.gamma, str):
            raise ValueError(f"gamma must be 'scale', 'auto' or a float >= 0; got "
                             f"{self.gamma!r}")
        return check_positive(self.gamma, "gamma", allow_zero=True)

    def predict(self, X):
        """Predict class labels, block by block on the workers for a dask collection.

        Parameters
        ----------
        X : dask array, dask dataframe, array-like or sparse matrix
            Samples; a dask array or dataframe is predicted where its blocks live,
            other data here, as `libsmo.SVC` predicts it.

        Returns
        -------
        dask array, dask Series or ndarray of shape (n_samples,)
            Labels of ``classes_``: lazy for a dask collection (a dask Series for a
            dask dataframe), computed for in-memory X.

        Examples
        --------
        >>> import numpy as np
        >>> import dask.array as da
        >>> from distributed import Client
        >>> import libsmo.dask
        >>> client = Client(processes=False, n_workers=1, dashboard_address=":0")
        >>> X = da.from_array(np.array([[0.0], [1.0], [3.0], [4.0]]), chunks=2)
        >>> y = da.from_array(np.array([0, 0, 1, 1]), chunks=2)
        >>> clf = libsmo.dask.SVC(kernel="linear").fit(X, y)
        >>> labels = clf.predict(X)
        >>> type(labels).__name__, labels.compute()
        ('Array', array([0, 0, 1, 1]))
        >>> client.close()
        """
        if _is_dask_collection(X):
            return _prediction.map_prediction(self, X, "predict",
                                              self.classes_.dtype)
        return super().predict(X)

    def decision_function(self, X):
        """Compute decision values, block by block on the workers for a dask collection.

        Parameters
        ----------
        X : dask array, dask dataframe, array-like or sparse matrix
            Samples; a dask array or dataframe is computed where its blocks live,
            other data here, as `libsmo.SVC.decision_function` computes it.

        Returns
        -------
        dask array, dask collection or ndarray
            Of shape (n_samples,) for two classes, else (n_samples, n_classes) or
            (n_samples, n_pairs) as decision_function_shape says; lazy for a dask
            collection.

        Examples
        --------
        >>> import numpy as np
        >>> import dask.array as da
        >>> from distributed import Client
        >>> import libsmo.dask
        >>> client = Client(processes=False, n_workers=1, dashboard_address=":0")
        >>> X = da.from_array(np.array([[0.0], [1.0], [3.0], [4.0]]), chunks=2)
        >>> y = da.from_array(np.array([0, 0, 1, 1]), chunks=2)
        >>> clf = libsmo.dask.SVC(kernel="linear").fit(X, y)
        >>> clf.decision_function(X).compute().round(2)
        array([-2.,  -1.,  1.,  2.])
        >>> client.close()
        """
        if _is_dask_collection(X):
            k = len(self.classes_)
            columns = (None if k == 2 else
                       k if self.decision_function_shape == "ovr" else k * (k - 1) // 2)
            return _prediction.map_prediction(self, X, "decision_function",
                                              np.float64, columns=columns)
        return super().decision_function(X)
