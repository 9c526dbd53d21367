"""The partitioned solver on one machine: one C-SVC binary problem (a two-class fit, or
a one-vs-one pair) solved by `solve_partitioned` over partitions of its rows, the
partitions' solves and scorings on threads of this process (`ThreadRunner`), the data
read where the fit keeps it (a block is the problem's rows of the one training matrix,
never a copy: `Block.rows`).

    the problem's rows ──partition_rows──> partitions (positions)
        ──Block(X = the training data, rows = its rows of X)──> solve_partitioned
        (ThreadRunner: leaves side by side, each on a share of the cache; the
        rounds' working sets alone, on the whole cache)
        ──CascadeResult──> BinaryFit (coef = y a over the problem's rows)

The global check is LIBSVM's stopping rule over every row, so the model is the one a
single solver over all rows reaches, to the same tolerance: the objectives agree within
the optimum's tolerance and the predictions on all but a few rows near the boundary.

Which problems go this way is `TrainParams.solver.solver` (see `libsmo.train`):
"partitioned" sends every C-SVC problem of at least `MIN_ROWS` rows, "auto" those where
it was measured to win (`uses_partitioned`).
"""
import dataclasses
import logging
import math
import time
import warnings

import numpy as np

from libsmo._utils import parallel as _parallel
from libsmo._utils import sparse as sp
from libsmo._utils.constraints import usable_cores
from libsmo.cascade._nodes import Block
from libsmo.cascade._partitioned import solve_partitioned
from libsmo.cascade._partitioning import partition_rows
from libsmo.cascade._progress import FitProgress
from libsmo.cascade._threads import ThreadRunner
from libsmo.exceptions import sklearn_compatible_warning
from libsmo.training._problem import BinaryFit
from libsmo.training._warm_start import make_feasible

__all__ = ["partition_count", "partition_threads", "solve_c_svc_partitioned",
           "uses_partitioned"]

logger = logging.getLogger("libsmo")

# solver="partitioned": problems of fewer rows are solved whole (a partition of a few
# hundred rows costs more in set-up and scoring than it saves)
MIN_ROWS = 2000
# solver="auto": problems of at least this many rows, on dense rows (measured: see
# benchmarks/bench_partitioned.py's notes)
AUTO_MIN_ROWS = 100_000
# partitions="auto": about this many rows a partition, at least two a thread
AUTO_PARTITION_ROWS = 20_000
AUTO_MAX_PARTITIONS = 64
# each leaf's cache is at least this many MB
MIN_SHARE_MB = 1.0
# the rounds' working sets grow by at most this fraction of the rows at a time
# (`solve_partitioned`'s grow_fraction): on 120,000 rows of the shifted Fashion-MNIST
# (8 random partitions, one thread) the second round's working set of 22,656, 12,000
# or 4,800 rows (0.25, 0.1, 0.04) held every support vector each time, and the fit
# took 17.6, 15.0 and 14.1 CPU seconds
GROW_FRACTION = 0.05


def uses_partitioned(params, n_rows, X):
    """Whether a C-SVC binary problem of `n_rows` rows of X is solved by the partitioned
    method under `params`.

    Parameters
    ----------
    params : TrainParams
    n_rows : int
    X : ndarray or csr_matrix
        The training data in the solver's layout.

    Returns
    -------
    bool
    """
    choice = params.solver.solver
    if (choice == "smo" or params.svm_type != "c_svc"
            or params.kernel.kernel == "precomputed" or n_rows < MIN_ROWS):
        return False
    if choice == "partitioned":
        return True
    # "auto": large problems of dense rows with a non-linear kernel
    return (n_rows >= AUTO_MIN_ROWS and not sp.issparse(X)
            and params.kernel.kernel != "linear")


def partition_threads(solver):
    """Threads the partitions are solved on: n_threads, or n_jobs when it asks for more
    (the estimators' parameter), at most the usable cores."""
    jobs = 1
    if solver.n_jobs is not None:
        jobs = min(_parallel.effective_n_jobs(solver.n_jobs), usable_cores())
    return max(1, int(solver.n_threads or 1), jobs)


def partition_count(partitions, n_rows, n_threads):
    """The partitions of a problem of n_rows rows: `partitions` when a number, else
    about AUTO_PARTITION_ROWS rows each, at least two a thread, at most
    AUTO_MAX_PARTITIONS (and never more than rows / 100)."""
    if partitions != "auto":
        count = int(partitions)
    else:
        count = max(2 * n_threads, round(n_rows / AUTO_PARTITION_ROWS))
        count = min(count, AUTO_MAX_PARTITIONS)
    return max(1, min(count, n_rows // 100 or 1))


def solve_c_svc_partitioned(executor, rows, signs, upper_bound, params, seed=None):
    """C-SVC on `rows` (labels `signs`, bounds C_i) by the partitioned method, to
    LIBSVM's stopping rule over every row.

    Parameters
    ----------
    executor : Executor
        The fit's: its rows (`X`), kernel, solver parameters, deadline and stop flag.
    rows : ndarray of int
        The problem's rows of X.
    signs : ndarray of float64
    upper_bound : ndarray of float64
    params : TrainParams
    seed : ndarray or None
        A warm start's alpha for the rows (made feasible within each partition).

    Returns
    -------
    BinaryFit
        Coefficients y_t a_t of the problem's rows; kernel_evaluations None (not
        counted across the partitions).
    """
    solver = executor.solver
    n = len(rows)
    n_threads = partition_threads(solver)
    n_parts = partition_count(solver.partitions, n, n_threads)
    cache_mb = max(MIN_SHARE_MB, solver.cache_size - executor.reserved_mb)
    report = FitProgress(callback=solver.callback, bar=solver.progress_bar, n_rows=n,
                         n_partitions=n_parts, tol=solver.tol)
    # the partitions' solvers report through `report`; their own lines would be one
    # "optimization finished" per node
    node = dict(verbose=False, n_jobs=None)
    tree_solver = dataclasses.replace(
        solver, n_threads=1, cache_size=max(MIN_SHARE_MB, cache_mb / n_threads),
        callback=report.node_callback("tree"), **node)
    round_solver = dataclasses.replace(solver, cache_size=cache_mb, n_threads=n_threads,
                                       callback=report.node_callback("round"), **node)
    started = time.monotonic()
    try:
        with ThreadRunner(n_threads) as runner:
            if executor.stop_flag is not None:
                # a sibling problem's stop (the pairs of a fit on threads) stops this one
                runner.stop_flag = executor.stop_flag
            parts = partition_rows(executor.X, rows, signs, n_parts, solver.partitioning,
                                   runner.stop_flag)
            alpha = (np.zeros(n) if seed is None
                     else np.asarray(seed, dtype=np.float64).copy())
            blocks = []
            for part in parts:
                start = make_feasible(alpha[part], signs[part], upper_bound[part])
                blocks.append(Block(X=executor.X, signs=signs[part],
                                    upper_bound=upper_bound[part], ids=part,
                                    alpha=start, rows=rows[part]))
            logger.info("partitioned: %d rows in %d %s partitions on %d thread(s)", n,
                        len(blocks), solver.partitioning, n_threads)
            result = solve_partitioned(
                runner, blocks, executor.kernel, round_solver,
                primal_policy=executor.primal_policy, tree_solver=tree_solver,
                stop_flag=runner.stop_flag, progress=report, deadline=executor.deadline,
                grow_fraction=GROW_FRACTION)
    finally:
        report.close()
    support = result.support
    coef = np.zeros(n)
    coef[support.ids] = support.signs * support.alpha
    logger.info("partitioned: optimal=%s after %d rounds, %d steps, %.1f s",
                result.status == "optimal", len(result.rounds), result.n_iter,
                time.monotonic() - started)
    if solver.verbose:
        n_sv = int(np.count_nonzero(coef))
        n_bsv = int(np.count_nonzero((coef != 0) & (np.abs(coef) >= upper_bound)))
        logger.info("obj = %f, rho = %f", result.objective, result.rho)
        logger.info("nSV = %d, nBSV = %d", n_sv, n_bsv)
    if result.status != "optimal":
        warnings.warn(f"libsmo: training stopped before the optimum ({result.status} "
                      f"after {result.n_iter} steps)", sklearn_compatible_warning(),
                      stacklevel=5)
    if not math.isfinite(result.rho):
        executor._overflow()
    return BinaryFit(coef=coef, rho=float(result.rho), objective=float(result.objective),
                     n_iter=int(result.n_iter), status=result.status,
                     kernel_evaluations=None)
