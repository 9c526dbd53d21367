"""Training as `libsmo.train` does it, with parameters `train` does not take."""
from libsmo.training import TrainParams, fit
from libsmo.training._params import RowPaths


def train_on_paths(X, y, sample_weight=None, **keywords):
    """`libsmo.train(X, y, **keywords)`, with `RowPaths` fields (bit_rows, int_rows,
    sparse_columns, rows_together, rows_together_min_bytes, reconstruct_together,
    cache_policy) among the keywords: the core's data paths switched on or off, to
    compare them (the same steps on any)."""
    path_fields = {name: keywords.pop(name) for name in list(keywords)
                   if name in RowPaths.__dataclass_fields__}
    params = TrainParams.from_kwargs(row_paths=RowPaths(**path_fields), **keywords)
    return fit(X, y, params, sample_weight=sample_weight)
