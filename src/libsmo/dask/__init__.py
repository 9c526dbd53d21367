"""libsmo on a Dask cluster: exact SVM training on data that lives on the workers, and
prediction block by block.

    from distributed import Client
    import dask.array as da
    import libsmo.dask

    client = Client("scheduler-address:8786")      # or Client() for a local cluster
    X = da.from_zarr(...)                            # rows chunked over the workers
    clf = libsmo.dask.SVC(C=10, gamma=0.05).fit(X, y)
    clf.predict(X_test)                              # a dask array, computed where it lives
    libsmo.save_model(clf.to_model(), "model.txt")  # LIBSVM's model file

Dask is an optional extra (``pip install "libsmo[dask]"``): ``import libsmo`` never
imports it; this package does. For the one-vs-one pairs, folds and grid cells of a
model that fits one machine, ``n_jobs`` with ``joblib.parallel_config(backend="dask")``
spreads the tasks of `libsmo.train` and the estimators over the cluster instead.
"""
try:
    import dask  # noqa: F401
    import distributed  # noqa: F401
except ImportError as error:   # pragma: no cover - the extra is missing
    raise ImportError("libsmo.dask needs Dask and distributed: pip install "
                      "\"libsmo[dask]\"") from error

from libsmo.dask._estimators import SVC, current_client

__all__ = ["SVC", "current_client"]
