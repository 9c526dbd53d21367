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
from libsmo.estimators._params import validate_parameters
from libsmo.exceptions import ConvergenceWarning
from libsmo.training._params import TrainParams

__all__ = ["SVC"]


def current_client():
    """The Dask client `fit` uses.

    Raises
    ------
    ValueError
        No client has been made.
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
    """C-support vector classification over data on a Dask cluster, exactly.

    Parameters are `libsmo.SVC`'s, plus:

    cascade_rows : int >= 0, default 50_000
        A binary problem (the two classes, or one one-vs-one pair) with more rows than
        this is solved by the cascade over the partitions of X, where they live (see
        `libsmo.cascade`): leaves, merged support vectors, and a global optimality
        check until LIBSVM's stopping rule holds on every row. A smaller pair is
        trained whole on one worker, exactly as `libsmo.SVC` trains it. 0 cascades
        every problem.

    `probability=True`, `warm_start=True` and `kernel="precomputed"` are not available
    here (a ValueError says so); `n_jobs` has no effect (the cluster's workers run the
    tasks). After `fit`, `cascades_` maps each cascaded pair (i, j) of `classes_` to its
    record (leaf sizes, rounds of the check, steps).
    """

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
        X : dask array of shape (n_samples, n_features), or a sequence of partitions
            (ndarrays or scipy sparse matrices of the same width)
        y : dask array, array-like of shape (n_samples,), or one array per partition
        sample_weight : as y, optional

        Returns
        -------
        self
        """
        validate_parameters(self)
        for name, unsupported in (("probability", self.probability),
                                  ("warm_start", self.warm_start),
                                  ("kernel='precomputed'", self.kernel == "precomputed")):
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
        """Class labels: a dask array (or dask Series for a dask dataframe) computed
        block by block on the workers; for in-memory X, as `libsmo.SVC`.

        Parameters
        ----------
        X : dask array, dask dataframe, array-like or sparse matrix

        Returns
        -------
        dask array, dask Series or ndarray of shape (n_samples,)
        """
        if _is_dask_collection(X):
            return _prediction.map_prediction(self, X, "predict",
                                              self.classes_.dtype)
        return super().predict(X)

    def decision_function(self, X):
        """Decision values (see `libsmo.SVC.decision_function`), block by block on the
        workers for a dask array or dataframe.

        Parameters
        ----------
        X : dask array, dask dataframe, array-like or sparse matrix

        Returns
        -------
        dask array, dask collection or ndarray
        """
        if _is_dask_collection(X):
            k = len(self.classes_)
            columns = (None if k == 2 else
                       k if self.decision_function_shape == "ovr" else k * (k - 1) // 2)
            return _prediction.map_prediction(self, X, "decision_function",
                                              np.float64, columns=columns)
        return super().decision_function(X)
