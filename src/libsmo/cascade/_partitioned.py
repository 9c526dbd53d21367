"""One binary C-SVC problem whose rows are split into partitions, solved exactly: the
pieces of the Cascade SVM (Graf, Cosatto, Bottou, Dourdanovic and Vapnik, NIPS 2004)
with a global optimality check, which `libsmo.dask` runs where the partitions live.
Nothing here knows about Dask: every function is a pure function of typed objects.

    partition rows ──problem_rows──> Block (rows, signs, C_i, ids, alpha)
    Block ──solve_block──> NodeResult ──support──> Block of its support vectors
    support vectors of two nodes ──concat_blocks──> the next node's Block (warm start)
    ...up the tree to the root; then, until the whole problem is optimal:
      every partition: score_rows (v_t = -y_t G_t of its rows against the current
      support vectors) -> the whole problem's m(a) and M(a) (`optimality`);
      m - M <= tol: done; else the node's support vectors and violating rows + the
      partitions' violators (`working_rows`, with G and G_bar from the partitions'
      kernel sums, so the solver starts without a kernel row; only the most violating
      where all would take the working set past `grow_fraction` of the rows,
      `top_violations`) ──next_working_set──> solve_block (warm start) again; a
      working set of most rows is made all rows.

Why the answer is the single-machine optimum: a row outside the working set has
a_t = 0, so its gradient is G_t = y_t f(x_t) - 1 with f the current support vectors'
sum; the check computes it for every row of every partition, and stops only when
LIBSVM's rule m(a) - M(a) <= tol holds over all of them, which is the rule a single
solver over all rows stops by. Rows of the working set are scored with the solver's own
gradient, so that the check and the solver agree there. Each round either lowers the
objective (the two rows that make m and M form a violating pair, and both join the next
working set) or, when the solver took no step, keeps every row of the working set, so
the working set grows: the loop ends.
"""
import dataclasses
import math
import time
from dataclasses import dataclass

import numpy as np

from libsmo.cascade._nodes import (
    Block,
    RowScores,
    concat_blocks,
    keep_ids,
    merge_whole,
    next_working_set,
    optimality,
    score_rows,
    solve_block,
    working_rows,
)

__all__ = ["CascadeResult", "LocalRunner", "Round", "solve_partitioned"]


@dataclass(frozen=True)
class NodeSummary:
    """What the driver reads of a solved node (small: no rows)."""
    scores: RowScores
    n_rows: int
    n_support: int
    objective: float
    n_iter: int
    status: str
    rho: float
    has_free: bool


def node_summary(node):
    """The `NodeSummary` of a `NodeResult`."""
    return NodeSummary(scores=node.summary(), n_rows=len(node.block),
                       n_support=int(np.count_nonzero(node.block.alpha > 0)),
                       objective=node.objective, n_iter=node.n_iter, status=node.status,
                       rho=node.rho, has_free=node.has_free)


def node_support(node):
    """The node's support vectors (a Block)."""
    return node.support()


def node_ids(node):
    """The ids of the node's rows (the working set)."""
    return node.block.ids


def merge_supports(*nodes):
    """The support vectors of several solved nodes, as the next node's Block."""
    return concat_blocks(*(node.support() for node in nodes))


def violator_count(block, scored, above, below):
    """How many of a partition's rows outside the working set violate."""
    with np.errstate(invalid="ignore"):
        return int(np.count_nonzero(((block.signs > 0) & (scored.v > above))
                                    | ((block.signs < 0) & (scored.v < below))))


def top_violations(block, scored, M, m, count):
    """The `count` largest violations of a partition's rows outside the working set,
    largest first: v - M for rows of I_up (y = +1), m - v for rows of I_low (y = -1);
    only positive ones (the rows of the working set have no score, NaN)."""
    with np.errstate(invalid="ignore"):
        amount = np.where(block.signs > 0, scored.v - M, m - scored.v)
        amount = amount[amount > 0]
    if len(amount) > count:
        amount = np.partition(amount, len(amount) - count)[len(amount) - count:]
    return np.sort(amount)[::-1]


def scores_of(scored):
    """The RowScores of a `score_rows` result."""
    return scored.scores


class LocalRunner:
    """Run the cascade's steps here, one after another: the driver without a cluster.

    `solve_partitioned` asks a runner to ``submit`` each step and to ``gather``
    the results; this one calls each function at once and hands back its value,
    so that the cascade runs in this process (the tests, and data that fit one
    machine). `libsmo.dask` passes a Dask client instead.

    See Also
    --------
    solve_partitioned : What the runner runs.

    Examples
    --------
    >>> from libsmo.cascade import LocalRunner
    >>> runner = LocalRunner()
    >>> handle = runner.submit(max, 3, 7)
    >>> runner.gather([handle, runner.submit(min, 3, 7)])
    [7, 3]
    """

    def submit(self, function, *args):
        """Call ``function(*args)`` now and return its value as the handle.

        Parameters
        ----------
        function : callable
            The step.
        *args
            Its arguments (handles are values here).

        Returns
        -------
        object
            ``function(*args)``.

        Examples
        --------
        >>> from libsmo.cascade import LocalRunner
        >>> LocalRunner().submit(pow, 2, 10)
        1024
        """
        return function(*args)

    def gather(self, values):
        """Return the values of handles, which here are the values themselves.

        Parameters
        ----------
        values : object or list
            A handle or a list of handles.

        Returns
        -------
        object or list
            `values`, unchanged.

        Examples
        --------
        >>> from libsmo.cascade import LocalRunner
        >>> LocalRunner().gather([1, 2])
        [1, 2]
        """
        return values


@dataclass(frozen=True)
class Round:
    """One round of the cascade's global check: the working set solved, then scored.

    `CascadeResult.rounds` holds one for each round; the last one's gap is at most
    the tolerance when the problem was solved.

    Parameters
    ----------
    working_set : int
        Rows solved in this round.
    n_support : int
        Support vectors of that solve.
    n_iter : int
        SMO steps of that solve.
    gap : float
        The maximal violation m(a) - M(a) over the whole problem after this
        round's solve.
    added : int
        Violators fed back for the next round (0 in the last).

    See Also
    --------
    CascadeResult : The result that holds the rounds.

    Examples
    --------
    >>> from libsmo.cascade import Round
    >>> Round(working_set=100, n_support=33, n_iter=64, gap=0.0009, added=0).added
    0
    """
    working_set: int
    n_support: int
    n_iter: int
    gap: float
    added: int


@dataclass(frozen=True)
class Progress:
    """Where a partitioned solve is, as `solve_partitioned` reports it to `progress`.

    Attributes
    ----------
    stage : {"leaf", "tree", "round"}
        A leaf solved; a node of the tree (or the whole problem from the leaves'
        alphas) solved; a round of the global check done.
    done, total : int
        Leaves solved and leaves in all ("leaf"); rounds done so far ("round"; total
        is max_rounds); nodes of the tree solved and to solve ("tree").
    working_set : int
        Rows of the node just solved.
    n_support : int
        Its support vectors.
    gap : float
        m(a) - M(a) over every row (NaN before the first round's check).
    n_iter : int
        SMO steps so far, every node together.
    objective : float
        The objective of the node just solved (of the whole problem once its working
        set's support vectors are all the support vectors).
    elapsed : float
        Seconds since the solve began.
    """
    stage: str
    done: int
    total: int
    working_set: int
    n_support: int
    gap: float
    n_iter: int
    objective: float
    elapsed: float


@dataclass(frozen=True)
class CascadeResult:
    """The solution of one binary problem over all its partitions.

    What `solve_partitioned` returns: the support vectors with their alphas and
    the numbers a single solver's `Solution` gives, with the record of the cascade
    (the leaves' sizes and the rounds of the check).

    Parameters
    ----------
    support : Block
        The support vectors with their alpha (rows, signs, bounds, ids into the
        whole data).
    rho : float
        The offset of the decision function, of the whole problem.
    objective : float
        The dual objective of the whole problem.
    n_iter : int
        SMO steps of every node and round together.
    status : str
        'optimal', or how the last solve stopped ('max_iter' also when max_rounds
        ran out).
    leaves : tuple of int
        Rows of each leaf.
    rounds : tuple of Round
        The rounds of the global check.

    See Also
    --------
    solve_partitioned : What returns it.
    Round : One round of the check.

    Examples
    --------
    >>> from libsmo.cascade import CascadeResult, Round
    >>> result = CascadeResult(support=None, rho=0.12, objective=-18.4, n_iter=162,
    ...                        status="optimal", leaves=(50, 50),
    ...                        rounds=(Round(100, 33, 64, 0.0009, 0),))
    >>> result.rounds[-1].gap <= 1e-3
    True
    """
    support: Block
    rho: float
    objective: float
    n_iter: int
    status: str
    leaves: tuple
    rounds: tuple


def solve_partitioned(runner, partitions, kernel, solver, *, primal_policy="never",
                      max_rounds=100, fan_in=2, whole_fraction=0.5,
                      direct_fraction=0.3, grow_fraction=0.25, tree_solver=None,
                      stop_flag=None, progress=None, deadline=None):
    """Solve one binary C-SVC problem whose rows are the `partitions`, exactly.

    The cascade [1]_: each partition solved alone (a leaf), the support vectors of
    `fan_in` nodes merged and solved from their alphas, up to one root. Then the
    global check, round after round: every partition scores its rows against the
    root's support vectors, and the violators of LIBSVM's stopping rule join the
    next working set, until m(a) - M(a) <= solver.tol over every row, the rule a
    single solver over all rows stops by. The answer is therefore the
    single-machine optimum, whatever the partitions. Nothing here knows about
    Dask: `runner` runs the steps, here (`LocalRunner`) or where the partitions
    live (`libsmo.dask`).

    Parameters
    ----------
    runner : object
        Runs the steps: ``submit(function, *args)`` returns a handle of
        ``function(*args)``, ``gather(handles)`` their values. `LocalRunner`, or a Dask
        client (`libsmo.dask`), whose handles are futures.
    partitions : list
        Handles of each partition's block of rows of the binary problem
        (``libsmo.cascade._nodes.problem_rows``: rows, signs, bounds C_i, row ids).
    kernel : KernelParams
        The kernel, with gamma resolved (``KernelParams.for_data``).
    solver : SolverParams
        Tolerance, cache and the other settings of every solve.
    primal_policy : {'never', 'always', 'large'}, default='never'
        Whether a linear kernel's solves use the primal weights
        (`TrainParams.primal_policy`).
    max_rounds : int, default=100
        A bound on the rounds of the check (each lowers the objective or grows the
        working set, so it is reached only by a problem that cannot be solved).
    fan_in : int, default=2
        Nodes merged into one at each level of the cascade, >= 2 (2: Graf et al.'s
        binary tree; the number of partitions: every leaf straight into the root).
    whole_fraction : float, default=0.5
        When the next working set would hold more than this fraction of all rows, and
        the rows it keeps are already `grow_fraction` of them, it holds them all (the
        gradients of every row are known by then, so this costs no kernel rows, and it
        spares a round of the check).
    direct_fraction : float, default=0.3
        When the leaves' support vectors are more than this fraction of all rows, the
        whole problem is solved next, from the leaves' alphas, instead of merging up
        the tree, as in Hsieh, Si and Dhillon's divide and conquer [2]_: the root
        would hold most rows anyway, and the check would then add the rest.
    grow_fraction : float, default=0.25
        When the violators would take the working set past this fraction of all rows,
        only the most violating of them join it, up to that size (when the working set
        is already that large, every violator joins, or every row as `whole_fraction`
        says). Rows violate by m(a) - M(a) at most, so the pair that makes the gap
        always joins; a second round over every row would repeat the single solver's
        work.
    tree_solver : SolverParams or None
        For the leaves and the nodes of the tree, which run side by side (a share of
        the cache each, `libsmo.cascade._local`); None: `solver`, which the whole
        problem's solves and the rounds' working sets, each alone, get.
    stop_flag : int8 ndarray of shape (1,) or None
        Shared with every solve and scoring (runners of threads): set, they stop.
    progress : callable or None
        Called as progress(Progress) after each leaf, node of the tree and round; returning False
        stops the solve (status "stopped").
    deadline : float or None
        The time.monotonic() by which the solve stops (status "time_limit"): each solve
        submitted gets the time left.

    Returns
    -------
    CascadeResult
        The support vectors with their alphas, rho and the objective of the whole
        problem, with the record of the leaves and the rounds.

    See Also
    --------
    libsmo.dask.SVC : The classifier that runs this on a Dask cluster.
    LocalRunner : The runner without a cluster.

    Notes
    -----
    Why the answer is the single-machine optimum: a row outside the working set
    has alpha_t = 0, so its gradient is G_t = y_t f(x_t) - 1 with f the current
    support vectors' sum; the check computes it for every row of every partition
    and stops only when LIBSVM's rule holds over all of them. Each round either
    lowers the objective (the two rows that make m and M join the next working
    set) or keeps every row of the working set, so the working set grows: the loop
    ends.

    The fractions' defaults, as measured when they were chosen: on a9a (36%
    support vectors, one worker) the cascade with the direct path took 1.05-1.12x
    plain libsmo's time (benchmarks/distributed.py's results); on 120,000 rows of
    the shifted Fashion-MNIST in 8 partitions the root's 1,295 rows left 118,705
    violators, and letting them all in made a second round of every row, the
    single solver's work again (119.7 s on one worker, against 20.3 s with the
    30,000 most violating).

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
    Iris's two overlapping classes, in four partitions, against one solver over
    all rows:

    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> import libsmo
    >>> from libsmo.cascade import LocalRunner, solve_partitioned
    >>> from libsmo.cascade._nodes import problem_rows
    >>> from libsmo.training import TrainParams
    >>> X, y = load_iris(return_X_y=True)
    >>> X, y = X[y > 0], y[y > 0]
    >>> order = np.random.RandomState(0).permutation(len(y))
    >>> X, y = X[order], y[order]
    >>> labels = np.where(y == 1, 0, 1)          # class index 0 is the positive side
    >>> parts = [problem_rows(X[a:a + 25], labels[a:a + 25], np.arange(a, a + 25),
    ...                       0, 1, (1.0, 1.0)) for a in range(0, 100, 25)]
    >>> params = TrainParams.from_kwargs(C=1.0, gamma=0.5)
    >>> result = solve_partitioned(LocalRunner(), parts, params.kernel.for_data(4),
    ...                            params.solver)
    >>> result.status, result.leaves, round(result.objective, 4)
    ('optimal', (25, 25, 25, 25), -18.4232)
    >>> single = libsmo.train(X, y, C=1.0, gamma=0.5)
    >>> round(single.objective[0], 4)
    -18.4232
    """
    started = time.monotonic()
    tree_solver = solver if tree_solver is None else tree_solver

    def within_deadline(params):
        if deadline is None:
            return params
        return dataclasses.replace(params, time_limit=max(deadline - time.monotonic(),
                                                          1e-9))

    def solve(block, params):
        return runner.submit(solve_block, block, kernel, within_deadline(params),
                             primal_policy, stop_flag)

    def report(stage, done, total, summary, gap, steps):
        if progress is None:
            return True
        return progress(Progress(stage=stage, done=done, total=total,
                                 working_set=summary.n_rows, n_support=summary.n_support,
                                 gap=gap, n_iter=steps, objective=summary.objective,
                                 elapsed=time.monotonic() - started)) is not False

    nodes, handles = [], []
    for p in partitions:
        # each leaf's summary submitted right after it: a runner of threads runs it
        # as soon as the leaf is done (`ThreadRunner`), so each leaf is reported then
        nodes.append(solve(p, tree_solver))
        handles.append(runner.submit(node_summary, nodes[-1]))
    leaves, going = [], True
    for handle in handles:
        # one at a time, so that each leaf is reported when it is done
        leaves.append(runner.gather(handle))
        going = going and report("leaf", len(leaves), len(nodes), leaves[-1], math.nan,
                                 sum(s.n_iter for s in leaves))
    n_rows = sum(s.n_rows for s in leaves)
    solved = []
    if len(nodes) > 1 and sum(s.n_support for s in leaves) > direct_fraction * n_rows:
        # Most rows are support vectors: every level of the tree would solve nearly the
        # whole problem again. Solve it once, started from the leaves' alphas (feasible:
        # each leaf keeps its own equality constraint), as Hsieh, Si and Dhillon's
        # divide and conquer does; its own optimality is then the whole problem's.
        nodes = [solve(runner.submit(merge_whole, *nodes), solver)] if going else nodes[:1]
        solved.extend(nodes if going else [])
    while len(nodes) > 1 and going:
        groups = [nodes[k:k + fan_in] for k in range(0, len(nodes), fan_in)]
        merged = [solve(runner.submit(merge_supports, *group),
                        tree_solver if len(groups) > 1 else solver)
                  if len(group) > 1 else group[0] for group in groups]
        solved.extend(m for m, g in zip(merged, groups) if len(g) > 1)
        nodes = merged
    node = nodes[0]
    cascade = list(leaves)
    for handle in [runner.submit(node_summary, n) for n in solved]:
        cascade.append(runner.gather(handle))
        going = going and report("tree", len(cascade) - len(leaves), len(solved),
                                 cascade[-1], math.nan, sum(s.n_iter for s in cascade))
    n_iter = sum(s.n_iter for s in cascade)
    rounds = []
    scored = [None] * len(partitions)
    for _ in range(max_rounds):
        summary = runner.gather(runner.submit(node_summary, node))
        if summary.n_rows == n_rows or not going:
            # the working set is every row: no row outside it to score (or the solve
            # is stopped: the working set's own scores say where it is)
            scores, support = [], runner.submit(node_support, node)
        else:
            support = runner.submit(node_support, node)
            ids = runner.submit(node_ids, node)
            scored = [runner.submit(score_rows, p, support, kernel, ids, previous,
                                    stop_flag)
                      for p, previous in zip(partitions, scored)]
            scores = runner.gather([runner.submit(scores_of, s) for s in scored])
        if rounds:
            n_iter += summary.n_iter
        check = optimality(summary.scores, scores)
        going = going and report("round", len(rounds) + 1, max_rounds, summary,
                                 check.gap, n_iter)
        late = deadline is not None and time.monotonic() >= deadline
        if check.gap <= solver.tol or summary.status != "optimal" or late or not going:
            rounds.append(Round(summary.n_rows, summary.n_support, summary.n_iter,
                                check.gap, 0))
            if summary.status == "optimal" and check.gap > solver.tol:
                summary = dataclasses.replace(
                    summary, status="time_limit" if late else "stopped")
            break
        above, below = check.M + solver.tol, check.m - solver.tol
        kept = runner.submit(keep_ids, node, above, below)
        counts = runner.gather([runner.submit(len, kept)] + [
            runner.submit(violator_count, p, s, above, below)
            for p, s in zip(partitions, scored)])
        # a working set of most rows is made all of them: their gradients are known,
        # and then the solver's own optimality is the whole problem's (no more round)
        room = int(grow_fraction * n_rows) - counts[0]
        everything = room <= 0 and counts[0] + sum(counts[1:]) > whole_fraction * n_rows
        added = (n_rows - counts[0]) if everything else sum(counts[1:])
        outside_above, outside_below = above, below
        if not everything and 0 < room < added:
            # the most violating `room` rows: those beyond the (room + 1)-th violation
            worst = np.sort(np.concatenate(runner.gather([
                runner.submit(top_violations, p, s, check.M, check.m, room + 1)
                for p, s in zip(partitions, scored)])))[::-1]
            if worst[room] < worst[0]:
                outside_above, outside_below = check.M + worst[room], check.m - worst[room]
                added = int(np.count_nonzero(worst > worst[room]))
        pieces = [runner.submit(working_rows, p, s, outside_above, outside_below, kept,
                                everything)
                  for p, s in zip(partitions, scored)]
        working_set = runner.submit(next_working_set, *pieces)
        rounds.append(Round(summary.n_rows, summary.n_support, summary.n_iter, check.gap,
                            added))
        node = runner.submit(solve_block, working_set, kernel, solver, primal_policy)
    status = summary.status
    if status == "optimal" and check.gap > solver.tol:
        status = "max_iter"
    return CascadeResult(support=runner.gather(support), rho=(
        summary.rho if summary.has_free else check.bound_rho),
        objective=summary.objective, n_iter=n_iter, status=status,
        leaves=tuple(s.n_rows for s in cascade[:len(partitions)]), rounds=tuple(rounds))
