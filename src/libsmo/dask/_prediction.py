"""Prediction of data that lives on the workers, block by block: each block of a dask
array (or partition of a dask dataframe) is predicted where it is, by the fitted
estimator sent to each worker once (one graph key, fetched once per worker)."""
import numpy as np


def _predict_block(block, estimator, method, dtype, columns=None):
    if block.shape[0] == 0:
        # a block without rows (a filtered dask dataframe, a chunk of 0 rows): nothing
        # to predict, and the estimator's validation refuses 0 rows
        return np.empty((0,) if columns is None else (0, columns), dtype=dtype)
    values = getattr(estimator, method)(block)
    return np.asarray(values)


def _predict_frame(frame, estimator, method, dtype):
    import pandas as pd
    return pd.Series(_predict_block(frame.to_numpy(dtype=np.float64), estimator, method,
                                    dtype), index=frame.index)


def map_prediction(estimator, X, method, dtype, columns=None):
    """estimator.<method> of every block of X, lazily.

    Parameters
    ----------
    estimator : fitted libsmo estimator
    X : dask array (n, d), or dask dataframe
    method : str
        "predict" or "decision_function" (one value per row).
    dtype : numpy dtype
        Of the values.
    columns : int or None
        Values per row when the method gives a 2-D array (multi-class decision values).

    Returns
    -------
    dask array of shape (n,) or (n, columns); for a dataframe, a dask Series (or
    dataframe with `columns`)
    """
    import dask.array as da

    import dask
    shared = dask.delayed(estimator, pure=True)
    # dask.dataframe (and pyarrow under it) only for a dataframe
    if type(X).__module__.startswith("dask.dataframe"):
        if columns is not None:
            X = X.to_dask_array(lengths=True)
        else:
            return X.map_partitions(_predict_frame, shared, method, np.dtype(dtype),
                                    meta=(None, np.dtype(dtype)))
    if not isinstance(X, da.Array) or X.ndim != 2:
        raise TypeError("X must be a 2-D dask array or a dask dataframe, got "
                        f"{type(X).__name__}")
    X = X.rechunk({1: -1})
    if columns is not None:
        return X.map_blocks(_predict_block, shared, method, np.dtype(dtype), columns,
                            dtype=dtype, chunks=(X.chunks[0], (columns,)),
                            meta=np.empty((0, 0), dtype=dtype))
    return X.map_blocks(_predict_block, shared, method, np.dtype(dtype), drop_axis=1,
                        dtype=dtype, meta=np.empty((0,), dtype=dtype))
