"""The partitioned (cascade) exact solver of a binary C-SVC problem: leaves, merges and
LIBSVM's stopping rule checked on every row, on one machine (`LocalRunner`) or on a Dask
cluster (`libsmo.dask`).

``_nodes``
    the pieces: `Block` (rows with their variables), solving a block from a warm start,
    scoring rows against support vectors, the optimality gap, the next working set.
``_partitioned``
    `solve_partitioned`: the rounds until m(a) - M(a) <= tol over every row.
"""
from libsmo.cascade._partitioned import CascadeResult, LocalRunner, Round, solve_partitioned

__all__ = ["CascadeResult", "LocalRunner", "Round", "solve_partitioned"]
