"""The execution of binary problems: how one `BinaryProblem` becomes a `Solution`.

An `Executor` holds what one fit shares across its binary problems: the rows in the
solver's layout, the resolved kernel and solver parameters, the fit's deadline and a
stop flag. For each problem it

- picks the solver: the primal weights (`libsmo._core.linear_smo`) for a linear
  kernel's large problems, else cached kernel rows (`libsmo._core.smo` over a QMatrix,
  or an SVRQMatrix for the regressions);
- gives the solver its stopping conditions (step cap, the time the fit has left, the
  stop flag, the callback);
- checks and reports the result: an overflowing kernel is a ValueError, an early stop a
  ConvergenceWarning, and with verbose=True LIBSVM's "optimization finished" line.

`map_pairs` runs independent problems (one-vs-one pairs) on threads, each on a share of
the cache and one kernel thread, so that the fit stays within cache_size and n_threads;
a problem whose Q is too large for a share runs alone, on every thread with the whole
cache.
"""
import dataclasses
import itertools
import logging
import math
import time
import warnings
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

import numpy as np

from libsmo._blocks.kernel_block import for_each_kernel_block
from libsmo._blocks.support_rows import SupportRows
from libsmo._core.arrays import squared_norms
from libsmo._core.cache import release_free_memory
from libsmo._core.checks import all_finite
from libsmo._core.int_rows import small_integer_data, small_integer_rows
from libsmo._core.kernel import Kernel
from libsmo._core.qmatrix import QMatrix, SVRQMatrix
from libsmo._core.rows import MAX_FEATURE_MAJOR
from libsmo._core.solvers import solve, solve_linear
from libsmo._core.sparse_dots import (
    DENSE_COLUMN_MIN_ROWS,
    DENSE_COLUMN_SHARE,
    copy_bytes,
    dense_column_count,
)
from libsmo._core.stopping import SolverStopped
from libsmo._utils import cache_budget as budget
from libsmo._utils import sparse as sp
from libsmo.exceptions import sklearn_compatible_warning
from libsmo.training._linear_start import (
    coordinate_rows,
    dual_cd_start,
    linear_gradients,
    one_class_cd_start,
)
from libsmo.training._problem import take_rows

logger = logging.getLogger("libsmo")

# SMO steps the primal solver takes from a linear C-SVC start that fell short of the
# stopping rule (`libsmo.training._linear_start`) before the kernel solver takes over
PRIMAL_FINISH_STEPS = 20_000

# linear_solver="auto" on rows the kernel reads as bytes (8-bit pixels): Q may outgrow
# twice the cache this many times over before the primal solver takes the problem
# (`Executor.uses_primal`); the rows of X looked at to tell
BYTE_ROWS_Q_FACTOR = 16
BYTE_ROWS_PROBE = 256
# linear_solver="auto" below that bound: a C-SVC problem of at least this many rows
# whose mean C_i |x_i|^2 is at most this goes to the primal solver all the same
# (`Executor._start_pays`); the coordinate descent's start needs more epochs as that
# product grows, while kernel rows cost the same (tuned on bench_linear_auto.py's cases
# with the start's revisits, `_linear_start.START_REVISITS`)
START_PAYS = ((2_000, 10.0), (5_000, 150.0))
# linear_solver="auto" below that bound: a one-class problem of at least this many rows
# goes to the primal solver, whose start (LIBLINEAR's -s 21 method) took 0.01 to 0.84 of
# kernel rows' time from 1,000 rows on every set of bench_linear_auto.py --one-class
# (binary, TF-IDF, word counts, dense features), whatever |x|^2; on rows the kernel
# reads as bytes, whose kernel rows are cheap, from the second number (Fashion-MNIST:
# 0.31 to 0.76 of kernel rows' time at 2,000 rows, 0.06 to 0.22 at 12,000)
ONE_CLASS_START_ROWS = (1_000, 2_000)

# With n_threads > 1, one-vs-one pairs run n_threads at once, each on a share of the
# cache, except a pair whose whole Q matrix (float32) takes more than this many shares:
# it runs alone, on every thread with the whole cache (`Executor.map_pairs`). Two such
# pairs at once compute their evicted rows again and again; a pair alone on two threads
# runs its steps on one. Fashion-MNIST, 10 classes, 100 MB, two threads against the
# pairs two at once (`--rows` images; Q over a share of 50 MB): 20,000 (1.3 shares)
# 2.15-2.48 s against 1.57-1.67; 30,000 (2.9) 3.91-4.63 against 3.41; 45,000 (6.5)
# 7.25-7.89 against 8.98-11.86; 60,000 (11.5) 13.2-15.0 against 17.6-20.0 s.
ALONE_MIN_SHARES = 4.0

# Pairs handed to the pool of threads at a time, per thread (`Executor.map_pairs`): the
# pool's queue never holds more, so that a fit of millions of pairs keeps a few futures.
IN_FLIGHT_PER_THREAD = 4

# A fit whose caches held this many bytes gives the heap's free memory back at its end
# (`Executor.release_memory`).
RELEASE_MIN_BYTES = 32 * 2**20


def cache_megabytes(cache_size, n_rows):
    """The kernel cache one problem of n_rows cached rows is given: cache_size MB, but
    no more than the whole float32 matrix of n_rows x n_rows with LIBSVM's bookkeeping
    of 20 bytes a row (a cache_size of 1e12 must not mean an unbounded budget, and a
    budget beyond 2**63 bytes would not even fit the cache's counters)."""
    whole = (4.0 * n_rows * n_rows + 20.0 * n_rows) / 2**20
    if isinstance(whole, float):
        return min(float(cache_size), whole)
    return np.minimum(float(cache_size), whole)   # (n_rows may be an array of them)


class UndefinedOffset(ValueError):
    """A solution whose offset rho is undefined: no variable strictly between its
    bounds, and the bound ones leave one side of LIBSVM's interval for rho empty
    (one-class with nu = 1, nu-SVC at its largest feasible nu). Not an overflow: the
    formulation that asked for it says which parameter makes it so."""


class Executor:
    """Solves the binary problems of one fit.

    Parameters
    ----------
    X : ndarray or csr_matrix
        The training rows in the solver's layout (`TrainingSet.X_solver`).
    kernel : KernelParams
        With gamma resolved.
    solver : SolverParams
        Its cache_size "auto" becomes the bound that
        `libsmo._utils.cache_budget.budget_megabytes` gives when the executor is made
        (each problem's cache is at most its whole Q).
    primal_policy : {"never", "large", "always"}
        `TrainParams.primal_policy`.
    policy_cache_size : float or None
        The cache (MB) against which "large" is judged; default `solver.cache_size`
        (for "auto", `libsmo._utils.cache_budget.AUTO_POLICY_MB`).
        Problems solved at once each get a share of the cache but keep the whole
        fit's choice of solver, so that they give the same answer as one by one.
    reserved_bytes : int
        Memory the fit already took from the cache budget (a dense copy of CSR rows).

    Notes
    -----
    Memory stays within data + cache_size + O(n): dense rows are read where the caller
    keeps them, unless a private copy fits in half of what is left of the cache: then
    the copy is made and taken from the cache (as are the small integers all pairs
    take their rows from, `_share_int_rows`). The copy pays: feature-major rows of few
    features are read 2.5x faster, and row-major rows whose swaps keep the active rows
    one sequential run make a fit 20-25% faster (Fashion-MNIST 6,000 x 784: 2.0 s
    against 2.5 s in place; a9a 8,000 rows dense: 0.95 against 1.23 s).
    """

    def __init__(self, X, kernel, solver, primal_policy="never", policy_cache_size=None,
                 reserved_bytes=0):
        self.X = X
        self.kernel = kernel
        self.primal_policy = primal_policy
        self.policy_cache_size = (budget.policy_megabytes(solver.cache_size)
                                  if policy_cache_size is None else policy_cache_size)
        if solver.cache_size == budget.AUTO:
            # the bound of this fit's caches, read once (`libsmo._utils.cache_budget`)
            solver = solver.with_cache_megabytes(budget.budget_megabytes(budget.AUTO))
        self.solver = solver
        self.reserved_mb = reserved_bytes / 2**20
        self.deadline = (None if solver.time_limit is None
                         else time.monotonic() + solver.time_limit)
        self.stop_flag = None
        # shared with `share`'s copies: whether a cache of RELEASE_MIN_BYTES was freed
        self.large_cache_freed = [False]
        # shared with them too: the small integers of all of X (`_share_int_rows`)
        self.int_source = [None]
        # and X as the coordinate descent reads it (`_dual_cd_rows`), made once
        self.cd_rows = [None]
        # and whether the kernel reads X's rows as bytes (`_byte_rows`), and the rows'
        # squared norms (`_start_pays`)
        self.byte_rows = [None]
        self.row_squares = [None]

    def share(self, n_threads, cache_size, stop_flag):
        """The same executor with a share of the threads and the cache (cache_size MB,
        what remains after the fit's reserve, divided) and a stop flag shared with its
        siblings (for problems solved at the same time)."""
        other = object.__new__(Executor)
        other.__dict__.update(self.__dict__)
        other.solver = dataclasses.replace(self.solver, n_threads=n_threads,
                                           cache_size=cache_size)
        other.reserved_mb = 0.0
        other.stop_flag = stop_flag
        return other

    # ---- solving ---------------------------------------------------------------------

    def uses_primal(self, problem):
        """Whether `problem` goes to the primal solver: always or never as linear_solver
        says, and for "auto" when its Q matrix (float32) is larger than twice the cache.
        Below that, kernel rows are computed about once and the kernel solver's fewer,
        second-order steps win (sector's pairs of ~120 rows: 3.5x; 5,800 TF-IDF
        reviews: 2x); above it, evicted rows are computed again and again, and passes
        of O(nnz) over the data win (a9a C=0.05: 14x; random Fourier features of 8,000
        a9a rows: 6x; 15,849 reviews: 1.2x). Rows the kernel reads as bytes
        (`_byte_rows`: 8-bit pixels) keep kernel rows until Q outgrows BYTE_ROWS_Q_FACTOR
        times that: their kernel rows cost a fifth of float rows', and images'
        correlated pixels make the coordinate descent's start slow (two classes of
        Fashion-MNIST at C = 1: kernel rows 4 times faster at 12,000 rows, 1.1 times
        at 40,000, about where the bound falls). Below the bound, a C-SVC or one-class
        problem may still go to the primal solver where its coordinate-descent start
        pays (`_start_pays`)."""
        if problem.nu or problem.regression or self.primal_policy == "never":
            return False
        if self.primal_policy == "always":
            return True
        n = problem.n_variables
        q_bytes, limit = 4.0 * n * n, 2 * self.policy_cache_size * 2**20
        if q_bytes > limit and (q_bytes > BYTE_ROWS_Q_FACTOR * limit
                                or not self._byte_rows()):
            return True
        return self._start_pays(problem)

    def _start_pays(self, problem):
        """Whether a problem whose Q fits the cache's bound (on rows the kernel reads as
        bytes, BYTE_ROWS_Q_FACTOR times it) still goes to the primal solver: a C-SVC
        or one-class problem that starts from a coordinate descent
        (`_starts_from_coordinate_descent`), on rows the kernel does not read as bytes,
        of at least n rows and mean C_i |x_i|^2 at most c for a pair (n, c) of
        START_PAYS. The start's epochs grow with C |x|^2 (the dual's diagonal against
        its bounds) and kernel rows' cost with n^2; `benchmarks/bench_linear_auto.py`
        measures both sides (the Performance page: of its 64 cases the rule picks the
        slower solver in seven, four on w8a, up to 1.9 times the faster's time (its 3%
        positives need few kernel rows), and three at its edges, up to 1.4). A
        one-class problem goes there from ONE_CLASS_START_ROWS rows (the second on
        rows the kernel reads as bytes)."""
        n = problem.n_variables
        if not self._starts_from_coordinate_descent(problem):
            return False
        if self._one_class(problem):
            return n >= ONE_CLASS_START_ROWS[self._byte_rows()]
        if n < min(rows for rows, _ in START_PAYS) or self._byte_rows():
            return False
        if self.row_squares[0] is None:
            self.row_squares[0] = squared_norms(self.X)
        scale = float(np.mean(problem.upper_bound * self.row_squares[0][problem.rows]))
        return any(n >= rows and scale <= most for rows, most in START_PAYS)

    def _byte_rows(self):
        """Whether the kernel reads X's rows as bytes (`rows.Rows`' integer rows):
        dense rows of more than MAX_FEATURE_MAJOR features whose values are integers in
        [0, 255] over one divisor, not all 0 and 1 (those become bitmaps), judged by its
        first BYTE_ROWS_PROBE rows, once a fit."""
        if self.byte_rows[0] is None:
            X = self.X
            found = None
            if (not sp.issparse(X) and self.kernel.kernel != "precomputed"
                    and self.solver.row_paths.int_rows and X.ndim == 2
                    and X.shape[1] > MAX_FEATURE_MAJOR):
                probe = np.arange(min(BYTE_ROWS_PROBE, X.shape[0]), dtype=np.int32)
                if X.dtype == np.uint8:
                    found = (X[probe], 1.0, None)
                elif X.dtype == np.float64 and X.flags.c_contiguous:
                    found = small_integer_rows(X, probe, as_bytes=True)
            self.byte_rows[0] = bool(found is not None and found[0].dtype == np.uint8
                                     and found[0].size and found[0].max() > 1)
        return self.byte_rows[0]

    def _starts_from_coordinate_descent(self, problem):
        """Whether the primal solver starts `problem` from one of LIBLINEAR's coordinate
        descents (`libsmo.training._linear_start`): a C-SVC problem (p = -e, one
        equality constraint, finite bounds: not a hard margin) without a start of its
        own, or a one-class problem (`_one_class`), in a fit whose work is not bounded
        by max_iter or time_limit (which count SMO's steps and time, not the
        start's)."""
        if (problem.nu or problem.regression or self.solver.max_iter not in (None, -1)
                or self.solver.time_limit is not None
                or not np.all(np.isfinite(problem.upper_bound))):
            return False
        return self._one_class(problem) or (problem.start is None
                                            and np.all(problem.linear_term == -1.0))

    @staticmethod
    def _one_class(problem):
        """Whether `problem` is the one-class SVM's (p = 0, every y_t = +1, started at
        its sum), which LIBLINEAR's -s 21 method starts (`one_class_cd_start`)."""
        return bool(problem.start is not None and not problem.nu
                    and not problem.regression and np.all(problem.linear_term == 0.0)
                    and np.all(problem.signs == 1.0))

    def _dual_cd_rows(self, problem):
        """X as the coordinate descent reads it (`coordinate_rows`, made once a fit)
        where `_starts_from_coordinate_descent`, else None."""
        if not self._starts_from_coordinate_descent(problem):
            return None
        if self.cd_rows[0] is None:
            self.cd_rows[0] = coordinate_rows(self.X)
        return self.cd_rows[0]

    def solve(self, problem):
        """Solve one binary problem.

        Parameters
        ----------
        problem : BinaryProblem

        Returns
        -------
        Solution

        Raises
        ------
        ValueError
            The kernel overflows on this data (inf or NaN values), or the start's
            coefficients are so large that the gradient's sums do.
        UndefinedOffset
            The solution's rho is undefined (every variable at a bound, one side of
            LIBSVM's interval for rho empty): the formulation says why.
        KeyboardInterrupt, MemoryError, or what the callback raised
        """
        options = self._solver_options(problem.n_variables)
        given_start = problem.start
        primal = self.uses_primal(problem)
        rows = self._dual_cd_rows(problem) if primal else None
        solution = None
        if rows is not None and self._one_class(problem):
            problem = dataclasses.replace(problem, seeded=True, start=one_class_cd_start(
                rows, problem.rows, problem.upper_bound, problem.start, self.solver.tol,
                stop_flag=self.stop_flag))
        elif rows is not None:
            start = dual_cd_start(rows, problem.rows, problem.signs, problem.upper_bound,
                                  self.solver.tol, stop_flag=self.stop_flag)
            problem = dataclasses.replace(problem, start=start.alpha, seeded=True)
            if not start.near:
                # steps left: the primal solver takes PRIMAL_FINISH_STEPS at most, each
                # refreshing every free example's gradient; past them the kernel
                # solver's second-order steps on the cached rows of its shrunk active
                # set cost far less (a9a at C = 10: hundreds of thousands of steps)
                solution = solve_linear(self.X, problem.rows, problem.linear_term,
                                        problem.signs, problem.upper_bound, start.alpha,
                                        seeded=True, **dict(
                                            options, max_iter=PRIMAL_FINISH_STEPS))
                if solution.status == "max_iter":
                    gradient, gradient_bar = linear_gradients(
                        rows, problem.rows, problem.signs, problem.upper_bound,
                        solution.alpha)
                    problem = dataclasses.replace(problem, start=solution.alpha,
                                                  gradient=gradient,
                                                  gradient_bar=gradient_bar)
                    solution, primal = None, False
        if solution is None and primal:
            solution = solve_linear(self.X, problem.rows, problem.linear_term,
                                    problem.signs, problem.upper_bound, problem.start,
                                    seeded=problem.seeded, **options)
        elif solution is None:
            kernel, cache = self._kernel_and_cache(problem.rows)
            if problem.regression:
                Q = SVRQMatrix(kernel, cache)
            else:
                Q = QMatrix(kernel, problem.signs, cache,
                            rows_together=self._rows_together(len(problem.rows)),
                            reconstruct_together=self.solver.row_paths.reconstruct_together,
                            cache_policy=self.solver.row_paths.cache_policy)
            try:
                if not all_finite(Q.diagonal()):
                    self._overflow()
                solution = solve(Q, problem.linear_term, problem.signs,
                                 problem.upper_bound, problem.start, nu=problem.nu,
                                 shrinking=self.solver.shrinking,
                                 selection=self.solver.selection,
                                 gradient=problem.gradient,
                                 gradient_bar=problem.gradient_bar,
                                 seeded=problem.seeded, **options)
            finally:
                # the rows now, not when a traceback that holds the solver goes
                if Q.release_cache() >= RELEASE_MIN_BYTES:
                    self.large_cache_freed[0] = True
        return self._checked(solution, given_start)

    def release_memory(self):
        """Once the fit is over: hand the heap's free memory back to the system if one
        of its caches held RELEASE_MIN_BYTES or more (`cache.release_free_memory`)."""
        if self.large_cache_freed[0]:
            release_free_memory()
            self.large_cache_freed[0] = False

    def _kernel_and_cache(self, rows):
        """The kernel over `rows` and the cache (MB) its Q matrix gets. Dense rows are
        copied (feature-major when few features, else row-major) only when the copy
        takes at most half of what is left of the cache, else read in place; rows of
        small integers (`RowPaths.int_rows`: uint8 where every integer is in [0, 255],
        an eighth of a copy, else int16, a quarter; read instead of one) likewise, so
        that a 100 MB cache keeps Fashion-MNIST 40,000 x 784 on its bytes (31 MB) where
        int16 (63 MB) would not fit and the doubles would be read in place. What the
        rows keep beside the data is taken from the cache: the copy, the int rows,
        bitmaps of 0/1 rows (`RowPaths.bit_rows`)."""
        paths = self.solver.row_paths
        cache_mb = max(0.0, self.solver.cache_size - self.reserved_mb)
        half_cache = cache_mb * 2**20 / 2
        n_features = self.X.shape[1]
        # (uint8 rows are copied as bytes: a byte a value)
        copy = (not sp.issparse(self.X) and self.kernel.kernel != "precomputed"
                and self.X.itemsize * len(rows) * n_features <= half_cache)
        kernel = Kernel(self.X, self.kernel.kernel, self.kernel.gamma, self.kernel.degree,
                        self.kernel.coef0, rows=rows, n_threads=self.solver.n_threads,
                        copy_dense=copy, bit_rows=paths.bit_rows,
                        int_rows=paths.int_rows,
                        int_source=self.int_source[0] or None,
                        int_rows_max_bytes=half_cache)
        bytes_per_row = (1.0 * kernel.rows.copy_bytes_per_row + 8.0 * kernel.rows.bit_words
                         + 1.0 * n_features * kernel.rows.int_row_bytes)
        cache_mb -= bytes_per_row * len(rows) / 2**20
        if (paths.sparse_columns and kernel.rows.layout_name == "csr"
                and kernel.rows.bit_words == 0
                and self._column_bytes(rows) <= max(0.0, cache_mb) * 2**20 / 2):
            cache_mb -= kernel.rows.build_columns(DENSE_COLUMN_SHARE,
                                                  kernel.n_threads) / 2**20
        return kernel, cache_megabytes(max(0.0, cache_mb), len(rows))

    def _column_bytes(self, rows):
        """What `Rows.build_columns(DENSE_COLUMN_SHARE)` takes for these CSR rows of X
        (the features' counts only where there are rows enough for dense columns: a
        one-vs-one pair of few rows among thousands of features, as sector's 5,460,
        would count them all for none)."""
        rows = np.asarray(rows)
        indptr = self.X.indptr
        stored = int(np.sum(indptr[rows + 1] - indptr[rows]))
        n_dense = 0
        if len(rows) >= DENSE_COLUMN_MIN_ROWS:
            counts = np.bincount(self.X[rows].indices, minlength=self.X.shape[1])
            n_dense = dense_column_count(counts, len(rows), DENSE_COLUMN_SHARE)
        return copy_bytes(stored, self.X.shape[1], len(rows), n_dense)

    def _rows_together(self, n_rows):
        """How many Q rows the solver computes in one pass on a miss
        (`RowPaths.rows_together` where n_rows of these dense rows take
        `RowPaths.rows_together_min_bytes`, else 1; the QMatrix further asks for rows
        stored row by row and a cache that holds them all)."""
        if sp.issparse(self.X) or self.kernel.kernel == "precomputed":
            return 1
        data_bytes = float(self.X.itemsize) * n_rows * self.X.shape[1]
        paths = self.solver.row_paths
        return (paths.rows_together if data_bytes >= paths.rows_together_min_bytes
                else 1)

    def _solver_options(self, n_variables):
        """The stopping conditions of one solver run."""
        time_limit = None
        if self.deadline is not None:
            time_limit = max(0.0, self.deadline - time.monotonic())
        return dict(tol=self.solver.tol, max_iter=self.solver.step_cap(n_variables),
                    callback=self.solver.callback,
                    callback_every=self.solver.callback_every, time_limit=time_limit,
                    stop_flag=self.stop_flag)

    def _checked(self, solution, start=None):
        """Check and report one solver result (`start`: the problem's starting point)."""
        if self.stop_flag is not None and self.stop_flag[0]:
            # a sibling failed or Ctrl-C came: this result will not be used
            raise SolverStopped("stopped with the other problems of the fit")
        if not solution.finite:
            if start is not None and np.any(start):
                largest = float(np.max(np.abs(start)))
                if not largest * len(start) <= 1e300:
                    # the start alone overflows sums of kernel values of order 1
                    raise ValueError(
                        f"the starting point (init) overflows: coefficients up to "
                        f"{largest:.3g} make the solver's kernel sums inf or NaN; start "
                        "from coefficients of a solution's size (or none)")
            self._overflow()
        if not math.isfinite(solution.rho):
            # alpha and G are finite: rho is undefined, not overflowed (no free variable,
            # and one side of LIBSVM's interval empty: it writes rho = inf or nan)
            raise UndefinedOffset(
                "every dual coefficient ended at a bound, so the offset rho is undefined "
                "(LIBSVM writes rho = inf or nan)")
        if self.solver.verbose:
            # LIBSVM's solver prints this at each such rebuild, before its last line
            for _ in range(solution.few_free_rebuilds):
                logger.info("WARNING: using -h 0 may be faster")
            logger.info("optimization finished, #iter = %d", solution.n_iter)
        if solution.status == "max_iter":
            # the step cap reached is the cap used: max_iter, or LIBSVM's for None
            cap = ("max_iter" if self.solver.max_iter is not None
                   else "LIBSVM's cap max(10^7, 100 l) (max_iter=None; -1: no limit)")
            warnings.warn(f"libsmo: training stopped before the optimum: {cap} of "
                          f"{solution.n_iter} steps reached", sklearn_compatible_warning(),
                          stacklevel=5)
        elif solution.status != "optimal":
            warnings.warn(f"libsmo: training stopped before the optimum "
                          f"({solution.status} after {solution.n_iter} steps)",
                          sklearn_compatible_warning(), stacklevel=5)
        return solution

    def _overflow(self):
        k = self.kernel
        raise ValueError(
            f"the {k.kernel} kernel overflows on this data (gamma={k.gamma}, "
            f"degree={k.degree}, coef0={k.coef0}): kernel values are inf or NaN; scale "
            "the features (for example to [-1, 1]) or lower gamma or degree")

    # ---- several problems at once ------------------------------------------------------

    def map_pairs(self, fit, n_items, sizes=None, collect=True):
        """[fit(p, executor) for p in range(n_items)], in order.

        With n_threads > 1 the items run on a pool of threads (the solver releases the
        GIL), each on an executor with one kernel thread and an equal share of the
        cache, so the fit stays within cache_size. Ctrl-C, or an error in any item,
        stops the others at once through a shared flag the solvers poll, and is what
        this raises. A few items a thread are handed to the pool at a time
        (IN_FLIGHT_PER_THREAD), so that millions of pairs hold no future each.

        Parameters
        ----------
        fit : callable
            fit(p, executor) -> the result of item p.
        n_items : int
        sizes : sequence of int, optional
            Each item's number of variables. An item whose whole Q matrix (float32)
            takes more than ALONE_MIN_SHARES of one thread's share of the cache runs
            alone first, on every thread with the whole cache: such problems solved at
            once, each on a share, compute their evicted rows again and again (all
            60,000 Fashion-MNIST images, 10 classes, 12,000-row pairs, 100 MB: two
            threads took 25.5 s and 47 CPU s against one thread's 24 s).
        collect : bool
            Keep the results (False: `fit` keeps what it needs itself, and None is
            returned).

        Returns
        -------
        list or None
            The items' results, in order.
        """
        self._share_int_rows(n_items)
        out = [None] * n_items if collect else None
        workers = min(self.solver.n_threads, n_items)
        if workers <= 1:
            for p in range(n_items):
                value = fit(p, self)
                if collect:
                    out[p] = value
            return out
        share = self._thread_share(workers)
        alone = np.zeros(0, dtype=np.int64)
        if sizes is not None:
            whole = cache_megabytes(math.inf, np.asarray(sizes, dtype=np.float64))
            alone = np.flatnonzero(whole > ALONE_MIN_SHARES * share)
        for p in alone.tolist():
            value = fit(p, self)
            if collect:
                out[p] = value
        together = np.ones(n_items, dtype=bool)
        together[alone] = False
        self._map_on_threads(fit, np.flatnonzero(together), out)
        return out

    def _share_int_rows(self, n_items):
        """Before several problems over the same dense rows (a multi-class fit's pairs):
        their small integers, made once (`int_rows.small_integer_data`) for every
        problem's kernel to take its rows from. Each class's rows were converted once
        for each of its k - 1 pairs: 0.12 s of Fashion-MNIST 12,000's 1.3 s
        one-thread fit; digits' pairs copy their floats from them (FEATURE_MAJOR_INTS).
        Only where a problem's rows could be int rows at all (`Rows`),
        and where its bytes (one a value, converted a row at a time) take at most a
        quarter of the cache: they are then taken from the cache, so that memory stays
        data + cache + O(n). The same values, so the same steps."""
        if (n_items < 2 or self.int_source[0] is not None
                or not self.solver.row_paths.int_rows
                or sp.issparse(self.X) or self.kernel.kernel == "precomputed"
                or self.X.dtype == np.uint8):   # bytes already: every kernel reads them
            return
        budget = max(0.0, self.solver.cache_size - self.reserved_mb) * 2**20
        if 1.0 * self.X.size > budget / 4:
            return
        found = small_integer_data(self.X)
        if found and self.X.shape[1] <= MAX_FEATURE_MAJOR and found[1] != 1.0:
            found = None   # few features take integers over divisor 1 only (`Rows`)
        # False: tried, none (not every value a small integer over one divisor)
        self.int_source[0] = found or False
        if self.int_source[0]:
            self.reserved_mb += self.int_source[0][0].nbytes / 2**20

    def _thread_share(self, workers):
        """The cache (MB) of each of `workers` problems solved at once."""
        return max(1e-3, self.solver.cache_size - self.reserved_mb) / workers

    def _map_on_threads(self, fit, items, out):
        """fit(p, executor) for p in items (an int array) on min(n_threads, len(items))
        threads, each with one kernel thread and its share of the cache (see
        `map_pairs`); out[p] the result, when out is a list."""
        workers = min(self.solver.n_threads, len(items))
        if workers <= 1:
            for p in items.tolist():
                value = fit(p, self)
                if out is not None:
                    out[p] = value
            return
        stop = np.zeros(1, dtype=np.int8)
        shared = self.share(1, self._thread_share(workers), stop)
        pool = ThreadPoolExecutor(max_workers=workers)
        queue = iter(items.tolist())
        running = {}   # future -> item

        def submit(count):
            for p in itertools.islice(queue, count):
                running[pool.submit(fit, p, shared)] = p

        try:
            submit(IN_FLIGHT_PER_THREAD * workers)
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                if any(f.exception() is not None for f in done):
                    # the others stop at their next poll; then the error that set them
                    # stopping, not what stopping raised
                    stop[0] = 1
                    for future in running:
                        future.cancel()   # those not begun
                    wait(running)
                    failed = [f.exception() for f in running
                              if not f.cancelled() and f.exception() is not None]
                    raise next((e for e in failed if not isinstance(e, SolverStopped)),
                               failed[0])
                for future in done:
                    p = running.pop(future)
                    if out is not None:
                        out[p] = future.result()
                submit(len(done))
        except BaseException:
            # Ctrl-C reaches this thread only: tell the solvers, drop what has not begun
            stop[0] = 1
            for future in running:
                future.cancel()
            raise
        finally:
            pool.shutdown(wait=True)

    # ---- decision values on the training rows -------------------------------------------

    def decision_values(self, rows, sv_rows, coef, rho):
        """sum_s coef_s K(x_sv[s], x_r) - rho for each of `rows` (indices into X), with
        support vectors the rows `sv_rows` of X: for the probability models'
        cross-validation and one-class marks."""
        out = np.full(len(rows), -float(rho))
        if len(sv_rows) == 0 or len(rows) == 0:
            return out
        k = self.kernel
        SV = (sv_rows if k.kernel == "precomputed"
              else SupportRows(take_rows(self.X, sv_rows)))

        def visit(block, sums):
            out[block] += sums

        for_each_kernel_block(visit, self.X, SV, k.kernel, k.gamma, k.degree, k.coef0,
                              rows=rows, coef=coef)
        return out
