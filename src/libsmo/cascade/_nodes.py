"""The nodes of the Cascade SVM over one binary C-SVC problem (see `libsmo.cascade`, which
drives them): blocks of rows with their variables, a node's solve (warm-started from the
alphas it is given), the scores v_t = -y_t G_t of a partition's rows against the current
support vectors, LIBSVM's optimality over the whole problem, and the next working set.
Every function is a pure function of typed objects, so that it can run wherever the
rows live.
"""
from dataclasses import dataclass
from typing import Optional

import numpy as np

from libsmo._blocks.kernel_block import for_each_kernel_block
from libsmo._blocks.support_rows import SupportRows
from libsmo._core.stopping import SolverStopped
from libsmo._utils import sparse as sp
from libsmo.training._execution import Executor
from libsmo.training._problem import BinaryProblem, take_rows
from libsmo.training._warm_start import make_feasible

__all__ = ["Block", "NodeResult", "Optimality", "RowScores", "Scored", "concat_blocks",
           "keep_ids", "next_working_set", "optimality", "problem_rows", "score_rows",
           "solve_block", "working_rows"]


@dataclass(frozen=True)
class Block:
    """Rows of one binary problem gathered in one place, with their variables.

    Attributes
    ----------
    X : ndarray or csr_matrix
        The rows (dense float64 or canonical CSR).
    signs : ndarray of float64
        y_t in {+1, -1}.
    upper_bound : ndarray of float64
        C_t.
    ids : ndarray of int64
        Each row's index in the whole training data.
    alpha : ndarray of float64
        Current values of the variables (zeros for rows that never took part).
    gradient, gradient_bar : ndarray of float64 or None
        G = Q alpha + p and G_bar = sum of C_s Q_s over the variables at their upper
        bound, over the whole problem's alpha, when known (a working set built from the
        partitions' scores): the solver then starts from them instead of computing a
        kernel row per support vector.
    rows : ndarray of int or None
        Where the block's rows are in X: row k is X[rows[k]], X being a whole data set
        stored once, which no block copies (the partitioned solver on one machine,
        `libsmo.cascade._local`); None: X holds the block's own rows (`libsmo.dask`).
    """
    X: object
    signs: np.ndarray
    upper_bound: np.ndarray
    ids: np.ndarray
    alpha: np.ndarray
    gradient: Optional[np.ndarray] = None
    gradient_bar: Optional[np.ndarray] = None
    rows: Optional[np.ndarray] = None

    def __len__(self):
        return len(self.ids)

    def take(self, mask):
        """The rows where `mask` holds (in order)."""
        rows = np.flatnonzero(mask)
        known = self.gradient is not None
        shared = self.rows is not None
        return Block(X=self.X if shared else take_rows(self.X, rows),
                     signs=self.signs[rows],
                     upper_bound=self.upper_bound[rows], ids=self.ids[rows],
                     alpha=self.alpha[rows],
                     gradient=self.gradient[rows] if known else None,
                     gradient_bar=self.gradient_bar[rows] if known else None,
                     rows=self.rows[rows] if shared else None)

    def row_data(self):
        """The block's rows themselves (a copy where they live in a shared X)."""
        return self.X if self.rows is None else take_rows(self.X, self.rows)


def problem_rows(X, labels, ids, positive, negative, C, weights=None):
    """The rows of one partition that belong to the binary problem `positive` (+1)
    against `negative` (-1), with C_t = C * class factor * sample weight.

    Parameters
    ----------
    X : ndarray or csr_matrix
        The partition's rows, validated.
    labels : ndarray
        Their class indices.
    ids : ndarray of int64
        Their indices in the whole data.
    positive, negative : int
        Class indices of the two sides.
    C : (float, float)
        C times the class weight, for the positive and the negative class.
    weights : ndarray or None
        Sample weights (rows of weight 0 are left out).

    Returns
    -------
    Block
    """
    mask = (labels == positive) | (labels == negative)
    if weights is not None:
        mask &= weights > 0
    rows = np.flatnonzero(mask)
    signs = np.where(labels[rows] == positive, 1.0, -1.0)
    bound = np.where(signs > 0, C[0], C[1])
    if weights is not None:
        bound = bound * weights[rows]
    return Block(X=take_rows(X, rows), signs=signs, upper_bound=bound,
                 ids=np.asarray(ids, dtype=np.int64)[rows], alpha=np.zeros(len(rows)))


def concat_blocks(*blocks):
    """One Block of the rows of several (support vectors of two nodes, violators)."""
    blocks = [b for b in blocks if len(b)] or list(blocks[:1])
    if len(blocks) == 1:
        return blocks[0]
    rows = None
    if all(b.rows is not None and b.X is blocks[0].X for b in blocks):
        X, rows = blocks[0].X, np.concatenate([b.rows for b in blocks])
    elif any(sp.issparse(b.X) for b in blocks):
        X = sp.vstack([sp.csr_matrix(b.row_data()) for b in blocks], format="csr")
        X.sort_indices()
    else:
        X = np.ascontiguousarray(np.vstack([b.row_data() for b in blocks]))
    known = all(b.gradient is not None for b in blocks)
    return Block(X=X, signs=np.concatenate([b.signs for b in blocks]),
                 upper_bound=np.concatenate([b.upper_bound for b in blocks]),
                 ids=np.concatenate([b.ids for b in blocks]),
                 alpha=np.concatenate([b.alpha for b in blocks]),
                 gradient=np.concatenate([b.gradient for b in blocks]) if known else None,
                 gradient_bar=(np.concatenate([b.gradient_bar for b in blocks]) if known
                               else None), rows=rows)


@dataclass(frozen=True)
class NodeResult:
    """One node of the cascade solved: its rows with their new alpha and scores.

    Attributes
    ----------
    block : Block
        The node's rows, alpha the solution.
    v : ndarray
        v_t = -y_t G_t of every row, from the solver's gradient.
    objective : float
    n_iter : int
    status : str
    rho : float
        LIBSVM's rho over the node's rows.
    has_free : bool
        Whether some variable is strictly inside its bounds (then rho is the mean over
        those, and the rest of the data cannot change it).
    """
    block: Block
    v: np.ndarray
    objective: float
    n_iter: int
    status: str
    rho: float
    has_free: bool

    def support(self):
        """The rows with alpha > 0, as a Block."""
        return self.block.take(self.block.alpha > 0)

    def summary(self):
        """The node's scores in LIBSVM's terms (`RowScores` of all its rows)."""
        return RowScores.of(self.v, self.block, np.ones(len(self.block), dtype=bool))


def solve_block(block, kernel, solver, primal_policy="never", stop_flag=None):
    """Solve the C-SVC dual over a block's rows, started at its alpha (made feasible).

    Parameters
    ----------
    block : Block
    kernel : KernelParams
        With gamma resolved.
    solver : SolverParams
    primal_policy : str
        `TrainParams.primal_policy`.
    stop_flag : int8 ndarray of shape (1,) or None
        Set by another thread to stop the solve (Ctrl-C, an error): the solver polls it.

    Returns
    -------
    NodeResult
    """
    executor = Executor(block.X, kernel, solver, primal_policy)
    executor.stop_flag = stop_flag
    n = len(block)
    if n == 0:
        return NodeResult(block=block, v=np.zeros(0), objective=0.0, n_iter=0,
                          status="optimal", rho=0.0, has_free=False)
    start = make_feasible(block.alpha, block.signs, block.upper_bound)
    if np.all(block.signs > 0) or np.all(block.signs < 0):
        # Rows of one class only (a leaf of data sorted or grouped by label, a
        # partition that holds one class of the pair): y'a = 0 leaves a = 0 the only
        # feasible point (make_feasible has made the start so), hence the optimum,
        # with G = -1 (v = y) and no rho (no free variable, and one side of LIBSVM's
        # interval empty: rho is +-inf, which the solver's result check would take for
        # a kernel overflow). The driver reads a node's rho only when it has free
        # variables.
        return NodeResult(block=Block(X=block.X, signs=block.signs,
                                      upper_bound=block.upper_bound, ids=block.ids,
                                      alpha=np.zeros(n), rows=block.rows),
                          v=block.signs.copy(), objective=0.0, n_iter=0,
                          status="optimal", rho=float("nan"), has_free=False)
    # the gradient matches the block's own alpha only: one made feasible is another
    known = block.gradient is not None and np.array_equal(start, block.alpha)
    solution = executor.solve(BinaryProblem(
        rows=np.arange(n) if block.rows is None else block.rows, signs=block.signs,
        linear_term=-np.ones(n),
        upper_bound=block.upper_bound, start=start if start.any() else None,
        gradient=block.gradient if known else None,
        gradient_bar=block.gradient_bar if known else None))
    alpha = np.array(solution.alpha)
    solved = Block(X=block.X, signs=block.signs, upper_bound=block.upper_bound,
                   ids=block.ids, alpha=alpha, rows=block.rows)
    free = (alpha > 0) & (alpha < block.upper_bound)
    return NodeResult(block=solved, v=-block.signs * np.asarray(solution.gradient),
                      objective=solution.objective, n_iter=int(solution.n_iter),
                      status=solution.status, rho=solution.rho, has_free=bool(free.any()))


@dataclass(frozen=True)
class RowScores:
    """v_t = -y_t G_t of some rows and LIBSVM's extremes over them.

    Attributes
    ----------
    up_max : float
        max of v over I_up (a_t < C_t for y = +1, a_t > 0 for y = -1); -inf if empty.
    low_min : float
        min of v over I_low (a_t < C_t for y = -1, a_t > 0 for y = +1); +inf if empty.
    rho_upper, rho_lower : float
        LIBSVM's bounds on rho from the bound variables (calculate_rho's ub and lb,
        in terms of y G = -v), for a problem without free variables.
    """
    up_max: float
    low_min: float
    rho_upper: float
    rho_lower: float

    @classmethod
    def of(cls, v, block, mask):
        """The extremes of v over block's rows where `mask` holds."""
        a, c, y = block.alpha[mask], block.upper_bound[mask], block.signs[mask]
        v = v[mask]
        below, above = a < c, a > 0
        in_up = (below & (y > 0)) | (above & (y < 0))
        in_low = (below & (y < 0)) | (above & (y > 0))
        # calculate_rho: yG of an upper-bound +1 or a lower-bound -1 raises lb, of an
        # upper-bound -1 or a lower-bound +1 lowers ub
        at_upper, at_lower = ~below, ~above
        raises = (at_upper & (y > 0)) | (at_lower & (y < 0))
        lowers = (at_upper & (y < 0)) | (at_lower & (y > 0))
        return cls(up_max=float(v[in_up].max(initial=-np.inf)),
                   low_min=float(v[in_low].min(initial=np.inf)),
                   rho_upper=float((-v[lowers]).min(initial=np.inf)),
                   rho_lower=float((-v[raises]).max(initial=-np.inf)))


@dataclass(frozen=True)
class Scored:
    """A partition's rows scored against the current support vectors.

    Attributes
    ----------
    v : ndarray
        v_t = -y_t G_t of every row of the partition's block; NaN inside the working
        set.
    scores : RowScores
        Over the rows outside the working set.
    sums : ndarray of shape (n, 2) or None
        For every row, sum_s y_s a_s K(x_s, x_t) and the same over the support vectors
        at their upper bound with C_s for a_s (from which G and G_bar follow); None
        when every row was inside the working set and nothing was computed. Kept for
        the next round.
    support : Block
        The support vectors the sums were computed against.
    """
    v: np.ndarray
    scores: RowScores
    sums: Optional[np.ndarray]
    support: Block


def _coefficients(support):
    """(y_s a_s, y_s C_s [a_s at C_s]) of each support vector, as two columns."""
    at_bound = support.alpha >= support.upper_bound
    return np.column_stack([support.signs * support.alpha,
                            np.where(at_bound, support.signs * support.upper_bound, 0.0)])


def _kernel_sums(block, support_X, coef, kernel, stop_flag=None):
    """K(block's rows, support) @ coef: for each row of the block, the kernel sums with
    each column of coef (one kernel block at a time; `stop_flag` set ends it with
    SolverStopped between two)."""
    sums = np.zeros((len(block), coef.shape[1]))
    if len(coef) and len(block):
        def visit(rows, block_sums):
            if stop_flag is not None and stop_flag[0]:
                raise SolverStopped("stopped with the other tasks of the fit")
            sums[rows] = block_sums

        for_each_kernel_block(visit, block.X, SupportRows(support_X), kernel.kernel,
                              kernel.gamma, kernel.degree, kernel.coef0, coef=coef,
                              rows=block.rows)
    return sums


def _changes(old, new):
    """The support vectors whose coefficients (`_coefficients`) changed from `old` to
    `new`: their rows and the change."""
    coef_old, coef_new = _coefficients(old), _coefficients(new)
    position = {i: k for k, i in enumerate(old.ids.tolist())}
    delta_new = coef_new.copy()
    only_old = np.ones(len(old), dtype=bool)
    for k, i in enumerate(new.ids.tolist()):
        j = position.get(i)
        if j is not None:
            delta_new[k] -= coef_old[j]
            only_old[j] = False
    changed = np.any(delta_new != 0, axis=1)
    rows = concat_blocks(new.take(changed), old.take(only_old))
    return rows.row_data(), np.vstack([delta_new[changed], -coef_old[only_old]])


def score_rows(block, support, kernel, exclude_ids, previous=None, stop_flag=None):
    """v_t = -y_t G_t of a partition's rows of the problem against the current support
    vectors, for the rows outside the working set (a_t = 0 there).

    The kernel sums of the previous round are updated with the support vectors whose
    coefficients changed since, instead of being computed again (a warm-started round
    moves part of the alphas only).

    Parameters
    ----------
    block : Block
        The partition's rows of the problem (`problem_rows`).
    support : Block
        The current support vectors with their alpha.
    kernel : KernelParams
    exclude_ids : ndarray of int64
        The working set's rows, which the solver scores itself.
    previous : Scored or None
        This partition's result of the previous round.
    stop_flag : int8 ndarray of shape (1,) or None
        Set by another thread to stop the scoring (SolverStopped).

    Returns
    -------
    Scored
    """
    outside = ~np.isin(block.ids, exclude_ids)
    if not outside.any():
        sums = None   # the solver scored every row itself
    elif previous is not None and previous.sums is not None:
        X_changed, delta = _changes(previous.support, support)
        sums = previous.sums + _kernel_sums(block, X_changed, delta, kernel, stop_flag)
    else:
        sums = _kernel_sums(block, support.row_data(), _coefficients(support), kernel,
                            stop_flag)
    # G_t = y_t f_t - 1, so v_t = -y_t G_t = y_t - f_t
    v = np.full(len(block), np.nan) if sums is None else block.signs - sums[:, 0]
    v[~outside] = np.nan
    # a row outside the working set is at a = 0 in the current solution, whatever the
    # partition's leaf started from (a warm start's alpha)
    current = Block(X=block.X, signs=block.signs, upper_bound=block.upper_bound,
                    ids=block.ids, alpha=np.zeros(len(block)), rows=block.rows)
    return Scored(v=v, scores=RowScores.of(v, current, outside), sums=sums,
                  support=support)


@dataclass(frozen=True)
class Optimality:
    """LIBSVM's stopping rule over the whole problem.

    Attributes
    ----------
    m, M : float
        max over I_up and min over I_low of v = -y G, over every row.
    gap : float
        m - M; optimal when <= tol.
    bound_rho : float
        LIBSVM's rho of a problem without free variables: the middle of the bounds
        every row allows (with free variables, all of them in the working set, rho is
        the working set's own, `NodeResult.rho`).
    """
    m: float
    M: float
    gap: float
    bound_rho: float


def optimality(node, partition_scores):
    """Combine the working set's scores with the partitions' (`score_rows`).

    Parameters
    ----------
    node : RowScores
        The working set's (`NodeResult.summary`).
    partition_scores : list of RowScores

    Returns
    -------
    Optimality
    """
    everything = [node] + list(partition_scores)
    m = max(s.up_max for s in everything)
    M = min(s.low_min for s in everything)
    upper = min(s.rho_upper for s in everything)
    lower = max(s.rho_lower for s in everything)
    return Optimality(m=m, M=M, gap=m - M, bound_rho=(upper + lower) / 2)


def keep_ids(node, above, below):
    """The rows of a solved node that stay in the next working set: its support
    vectors and its rows that violate by the solver's own scores (in I_up above
    `above`, in I_low below `below`); every row when the solve took no step, so that
    the working set grows.

    Returns
    -------
    ndarray of int64
    """
    block, v = node.block, node.v
    if node.n_iter == 0:
        return block.ids
    a, c, y = block.alpha, block.upper_bound, block.signs
    in_up = ((a < c) & (y > 0)) | ((a > 0) & (y < 0))
    in_low = ((a < c) & (y < 0)) | ((a > 0) & (y > 0))
    return block.ids[(a > 0) | (in_up & (v > above)) | (in_low & (v < below))]


def working_rows(block, scored, above, below, kept, everything=False):
    """A partition's rows of the next working set: those the node keeps (`kept`) and
    its violators outside the working set (in I_up with v > above or in I_low with
    v < below; a = 0 there, so I_up is y = +1 and I_low is y = -1), or with
    `everything` all its rows; with their alpha and, when the partition has its kernel
    sums, their G and G_bar.

    Returns
    -------
    Block
    """
    with np.errstate(invalid="ignore"):
        outside = ((block.signs > 0) & (scored.v > above)) | (
            (block.signs < 0) & (scored.v < below))
    mask = np.ones(len(block), dtype=bool) if everything else (
        outside | np.isin(block.ids, kept))
    support = scored.support
    alpha = np.zeros(len(block))
    if len(support):
        order = np.argsort(support.ids)
        ids = support.ids[order]
        where = np.minimum(np.searchsorted(ids, block.ids), len(ids) - 1)
        found = ids[where] == block.ids
        alpha[found] = support.alpha[order[where[found]]]
    if scored.sums is None:
        gradient = gradient_bar = None
    else:
        gradient = block.signs * scored.sums[:, 0] - 1.0
        gradient_bar = block.signs * scored.sums[:, 1]
    whole = Block(X=block.X, signs=block.signs, upper_bound=block.upper_bound,
                  ids=block.ids, alpha=alpha, gradient=gradient, gradient_bar=gradient_bar,
                  rows=block.rows)
    return whole.take(mask)


def next_working_set(*pieces):
    """The next working set from the partitions' `working_rows`."""
    return concat_blocks(*pieces)


def merge_whole(*nodes):
    """Every row of several solved nodes with their alphas, as one Block (the whole
    problem started from the leaves' solutions)."""
    return concat_blocks(*(node.block for node in nodes))
