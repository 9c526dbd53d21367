"""Exact C-SVC training over partitions that live on Dask workers.

    X, y on the workers ──load_partitions──> one PartitionData future per partition
    two classes, or a pair of more than `cascade_rows` rows:
        libsmo.cascade._partitioned.solve_partitioned over the partitions' rows of the pair
        (leaves where the partitions live, support vectors merged up the tree, the
        global optimality check fed back until m(a) - M(a) <= tol on every row)
    smaller pairs (one-vs-one): trained whole, each on one worker, as
        `libsmo.training._pairs.run_pair_task` (the pair exactly as a single machine
        trains it, so the same coefficients bit for bit)
    ──_one_vs_one_result──> LIBSVM's layout ──> Model (support vectors fetched once)

The classes are sorted (scikit-learn's `classes_`) and the model labels them 0..k-1, as
`libsmo.SVC` trains them, so that `libsmo.dask.SVC` can set the same fitted attributes.
"""
import dataclasses
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

import libsmo.dask._partitions as parts
from libsmo._utils.cache_budget import policy_megabytes
from libsmo.cascade import solve_partitioned
from libsmo.cascade._nodes import problem_rows
from libsmo.model import _one_vs_one as ovo
from libsmo.model._model import Model
from libsmo.training._pair_results import PairResults, check_one_vs_one_bounds
from libsmo.training._pairs import PairTask, one_vs_one_result, run_pair_task
from libsmo.training._problem import BinaryFit, take_rows


class DaskRunner:
    """The cascade driver's runner on a Dask client: tasks become futures, placed by
    Dask where their inputs live."""

    def __init__(self, client):
        self.client = client

    def submit(self, function, *args):
        """A future of function(*args)."""
        return self.client.submit(function, *args, pure=False)

    def gather(self, futures):
        """The futures' values, here."""
        return self.client.gather(futures)


@dataclass(frozen=True)
class LoadedData:
    """The training data as the client knows it.

    Attributes
    ----------
    partitions : list of Future
        One `PartitionData` each.
    classes : ndarray
        The sorted labels.
    class_counts : ndarray
        Rows of each class.
    taking_part : ndarray
        Rows of each class of weight > 0 (`class_counts` without sample weights).
    n_rows, n_features : int
    sparse : bool
        Every partition is a sparse matrix (the fitted attributes are then CSR, as
        scikit-learn's after a sparse fit).
    holders : list
        The worker address holding each partition when it was loaded (or None).
    """
    partitions: list
    classes: np.ndarray
    class_counts: np.ndarray
    taking_part: np.ndarray
    n_rows: int
    n_features: int
    sparse: bool
    holders: list

    def each(self, client, function, *args):
        """A future of function(partition, *args) for every partition, run where the
        partition lives.

        Dask places a task where its inputs are, except a group of many small tasks on
        few inputs ("root-ish" tasks), which it spreads over the workers regardless: a
        class's row numbers, asked of 4 Fashion-MNIST partitions on 2 workers, moved
        94 MB partitions between them and took 1.2 s. The pin is loose
        (`allow_other_workers`), so that a lost worker's partition is used elsewhere."""
        return [submit_on(client, holder, function, part, *args)
                for part, holder in zip(self.partitions, self.holders)]


def submit_on(client, address, function, *args):
    """A future of function(*args), run on the worker at `address` while it lives (or
    wherever Dask places it, for None)."""
    if address is None:
        return client.submit(function, *args, pure=False)
    return client.submit(function, *args, pure=False, workers=[address],
                         allow_other_workers=True)


def _split(values, sizes):
    """A whole array cut into pieces of `sizes` rows (or None)."""
    if values is None:
        return [None] * len(sizes)
    values = np.asarray(values)
    if len(values) != sum(sizes):
        raise ValueError(f"y or sample_weight has {len(values)} entries but X has "
                         f"{sum(sizes)} rows")
    return np.split(values, np.cumsum(sizes)[:-1])


def _is_dask_dataframe(values):
    """A dask DataFrame or Series (dask.dataframe is imported only for one)."""
    return type(values).__module__.startswith("dask.dataframe") and hasattr(
        values, "to_dask_array")


def _pieces(client, X, y, sample_weight):
    """One future of validated `PartitionData` per partition of X."""
    import dask.array as da

    import dask
    if _is_dask_dataframe(X):
        # a dask DataFrame's partitions as rows of a dask array (their lengths are
        # computed, so that y and the weights are cut the same way)
        X = X.to_dask_array(lengths=True)
        y, sample_weight = (values.to_dask_array(lengths=True)
                            if _is_dask_dataframe(values) else values
                            for values in (y, sample_weight))
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got a dask array with {X.ndim} dims")
        X = X.rechunk({1: -1})
        rows = X.chunks[0]
        lists = []
        for values in (y, sample_weight):
            if values is None:
                lists.append([None] * len(rows))
            elif isinstance(values, da.Array):
                lists.append(list(values.rechunk({0: rows}).to_delayed().ravel()))
            else:
                lists.append(_split(values, rows))
        tasks = [dask.delayed(parts.validate)(xb, yb, wb, i) for i, (xb, yb, wb) in
                 enumerate(zip(X.to_delayed().ravel(), *lists))]
        return client.compute(tasks)
    if sp.issparse(X) or isinstance(X, np.ndarray):
        raise TypeError("X must be a dask array or a sequence of partitions (dense arrays "
                        "or scipy sparse matrices); for one in-memory array use libsmo.SVC")
    X = list(X)
    if not X:
        raise ValueError("X has no partitions")
    sizes = [x.shape[0] for x in X]
    ys = y if isinstance(y, (list, tuple)) else _split(y, sizes)
    ws = (sample_weight if isinstance(sample_weight, (list, tuple))
          else _split(sample_weight, sizes))
    if len(ys) != len(X) or len(ws) != len(X):
        raise ValueError(f"X has {len(X)} partitions but y or sample_weight has "
                         f"{len(ys)} / {len(ws)}")
    return [client.submit(parts.validate, x, yy, w, i, pure=False)
            for i, (x, yy, w) in enumerate(zip(X, ys, ws))]


def load_partitions(client, X, y, sample_weight=None):
    """Validate and number the partitions on the workers.

    Parameters
    ----------
    client : distributed.Client
    X : dask array or dask DataFrame, or sequence of ndarray / scipy sparse matrices
        (partitions without rows are left out)
    y : dask array or Series, array-like, or a sequence of arrays (one per partition)
    sample_weight : as y, or None

    Returns
    -------
    LoadedData

    Raises
    ------
    TypeError, ValueError
        Bad data (the message names the partition), partitions of different widths.
    """
    if y is None:
        raise ValueError("y is required")
    raw = _pieces(client, X, y, sample_weight)
    infos = client.gather([client.submit(parts.info, r, pure=False) for r in raw])
    # partitions without rows take no part (a filtered dask dataframe leaves some)
    filled = [k for k, i in enumerate(infos) if i.n_rows > 0]
    if not filled:
        raise ValueError("X has no rows (every partition is empty)")
    raw, infos = [raw[k] for k in filled], [infos[k] for k in filled]
    widths = {i.n_features for i in infos}
    if len(widths) > 1 and not all(i.sparse for i in infos):
        raise ValueError(f"the partitions of X have different widths: {sorted(widths)}")
    n_features = max(widths)
    classes = np.unique(np.concatenate([i.classes for i in infos]))
    counts = np.zeros(len(classes), dtype=np.int64)
    taking_part = np.zeros(len(classes), dtype=np.int64)
    for i in infos:
        counts[np.searchsorted(classes, i.classes)] += i.counts
        taking_part[np.searchsorted(classes, i.classes)] += i.taking_part
    offsets = np.concatenate([[0], np.cumsum([i.n_rows for i in infos])])
    densify = parts.densify_rule(infos, n_features)
    encoded = [client.submit(parts.encode, r, classes, int(o), n_features, densify,
                             pure=False) for r, o in zip(raw, offsets)]
    from distributed import wait
    wait(encoded)
    where = client.who_has(encoded)
    holders = [min(where.get(f.key, ()), default=None) for f in encoded]
    return LoadedData(partitions=encoded, classes=classes, class_counts=counts,
                      taking_part=taking_part,
                      n_rows=int(offsets[-1]), n_features=n_features,
                      sparse=all(i.sparse for i in infos), holders=holders)


def gamma_scale(client, data):
    """scikit-learn's gamma='scale', 1 / (n_features X.var()), from the partitions."""
    sums = client.gather(data.each(client, parts.moments))
    total, squares, count = (sum(s[i] for s in sums) for i in range(3))
    var = squares / count - (total / count) ** 2
    return 1.0 / (data.n_features * var) if var > 0 else 1.0


def _cascade_pair(runner, data, params, kernel, a, b, factors, members):
    """One pair (a +1, b -1) by the cascade over the partitions.

    Returns
    -------
    fit : BinaryFit
        Coefficients over members[a] then members[b].
    result : CascadeResult
    """
    C = (params.C * factors[a], params.C * factors[b])
    blocks = data.each(runner.client, _pair_rows, a, b, C)
    result = solve_partitioned(runner, blocks, kernel, params.solver,
                               primal_policy=params.primal_policy)
    support = result.support
    coef = np.zeros(len(members[a]) + len(members[b]))
    positive = support.signs > 0
    coef[np.searchsorted(members[a], support.ids[positive])] = support.alpha[positive]
    coef[len(members[a]) + np.searchsorted(members[b], support.ids[~positive])] = (
        -support.alpha[~positive])
    return BinaryFit(coef=coef, rho=result.rho, objective=result.objective,
                     n_iter=result.n_iter, status=result.status), result


def _pair_rows(part, a, b, C):
    return problem_rows(part.X, part.labels, part.ids, a, b, C, part.weights)


def _class_block(part, c):
    """The partition's rows of class c that take part (weight > 0): rows (as bytes
    where they are 8-bit values, `parts.pack_rows`), ids, weights."""
    rows = parts.class_rows(part, c)
    return (parts.pack_rows(take_rows(part.X, rows)), part.ids[rows],
            None if part.weights is None else part.weights[rows])


def _stack(*pieces):
    """Rows of several partitions of one class, in order."""
    X = parts.stack_rows([p[0] for p in pieces])
    ids = np.concatenate([p[1] for p in pieces])
    weights = (None if pieces[0][2] is None else np.concatenate([p[2] for p in pieces]))
    return X, ids, weights


def _whole_pair(block_a, block_b, params, kernel, factors):
    """One pair trained whole on one worker (`run_pair_task`)."""
    Xa, _, wa = block_a
    Xb, _, wb = block_b
    X = parts.unpack_rows([Xa, Xb])
    n = X.shape[0]
    weights = np.ones(n) if wa is None else np.concatenate([wa, wb])
    task = PairTask(X=X, n_a=Xa.shape[0], weights=weights, factors=factors, seed=None,
                    rng=None, params=params, kernel=kernel,
                    solver=dataclasses.replace(params.solver, n_threads=1, n_jobs=1),
                    policy_cache_size=policy_megabytes(params.solver.cache_size),
                    deadline=None,
                    stop_flag=np.zeros(1, dtype=np.int8))
    return run_pair_task(task)[1]


def pair_costs(client, data, pairs):
    """Each pair's expected training cost, for the order in which pairs are run:
    (n_a + n_b)^2 over the classes' separation |mu_a - mu_b|^2 / (s_a + s_b), where s is
    a class's spread (its mean squared distance to its mean). On Fashion-MNIST's 45
    pairs the separation alone ranks the times with Spearman's rho = 0.89: close
    classes (T-shirt and shirt) take 30 times as long as far ones (trousers and
    sneakers). Equal costs (and no separation where `parts.MOMENT_ENTRIES` is exceeded)
    keep the pairs' order.

    Parameters
    ----------
    client : distributed.Client
    data : LoadedData
    pairs : list of (int, int)
        Class indices.

    Returns
    -------
    ndarray of shape (len(pairs),)
        Relative costs (only their order is used).
    """
    k = len(data.classes)
    moments = client.gather(data.each(client, parts.class_moments, k))
    counts = sum(m[0] for m in moments).astype(float)
    sizes = np.array([counts[a] + counts[b] for a, b in pairs])
    if any(m[1] is None for m in moments):
        return sizes ** 2
    safe = np.maximum(counts, 1.0)
    means = sum(m[1] for m in moments) / safe[:, None]
    spread = np.maximum(sum(m[2] for m in moments) / safe - np.einsum("ij,ij->i", means,
                                                                      means), 0.0)
    separation = np.array([np.sum((means[a] - means[b]) ** 2) / max(spread[a] + spread[b],
                                                                     1e-300)
                           for a, b in pairs])
    return sizes ** 2 / np.maximum(separation, 1e-3)


def run_costliest_first(client, tasks):
    """Run (cost, function, args) tasks on the workers, the costliest first, and give
    each worker its next task when it finishes one; their results in the tasks' order.

    Two tasks wait on each worker thread, so that the next one's inputs arrive while the
    current one runs. Dask alone places a task where its inputs live, when it is
    submitted: at the end of a 10-class Fashion-MNIST fit one worker then sat idle for
    4.7 s while the other worked through a queue of long pairs. A task is pinned loosely
    (`allow_other_workers`), so a lost worker's tasks run elsewhere.

    Parameters
    ----------
    client : distributed.Client
    tasks : list of (float, callable, tuple)
        Expected cost, a module-level function and its arguments (futures allowed).
        Each entry is dropped once submitted, so that its inputs can be freed.

    Returns
    -------
    list
        function(*args) of each task, in the order of `tasks`.
    """
    from distributed import as_completed
    slots = [address for address, worker in client.scheduler_info()["workers"].items()
             for _ in range(worker.get("nthreads", 1))] or [None]
    order = iter(sorted(range(len(tasks)), key=lambda i: -tasks[i][0]))
    results, placed = [None] * len(tasks), {}

    def submit(i, address):
        _, function, args = tasks[i]
        tasks[i] = None   # a class block is freed once its last pair is placed and done
        future = submit_on(client, address, function, *args)
        placed[future.key] = (i, address)
        return future

    # slots first: zip stops on them before it takes a task from `order`
    running = as_completed([submit(i, address) for address, i in zip(slots * 2, order)],
                           with_results=True)
    for future, value in running:
        i, address = placed.pop(future.key)
        results[i] = value
        following = next(order, None)
        if following is not None:
            running.add(submit(following, address))
    return results


@dataclass(frozen=True)
class DistributedFit:
    """A classifier trained over partitions.

    Attributes
    ----------
    model : Model
        Classes 0..k-1 (the sorted labels' positions); `support` numbers the rows of
        the whole data.
    cascades : dict
        (a, b) -> CascadeResult of each pair trained by the cascade (its rounds, leaf
        sizes and steps, for inspection; the support vectors left out).
    """
    model: Model
    cascades: dict


def fit_classifier(client, data, params, factors, cascade_rows):
    """C-SVC one-vs-one over the partitions.

    Parameters
    ----------
    client : distributed.Client
    data : LoadedData
    params : TrainParams
        With gamma set.
    factors : ndarray
        Each class's weight on C.
    cascade_rows : int
        Pairs with more rows are solved by the cascade; the others whole, on one
        worker each.

    Returns
    -------
    DistributedFit
    """
    runner = DaskRunner(client)
    k = len(data.classes)
    if k < 2:
        raise ValueError(f"y has a single class ({data.classes[0]!r}); SVC needs two")
    check_one_vs_one_bounds(k, data.n_rows)
    kernel = params.kernel.for_data(data.n_features)
    members = [np.sort(np.concatenate(client.gather(data.each(client, parts.class_ids, c))))
               for c in range(k)]
    pairs = ovo.pairs(k)
    whole = {pair for pair in pairs
             if len(members[pair[0]]) + len(members[pair[1]]) <= cascade_rows}
    blocks = {}
    for c in sorted({c for pair in whole for c in pair}):
        blocks[c] = client.submit(_stack, *data.each(client, _class_block, c), pure=False)
    whole_pairs = [pair for pair in pairs if pair in whole]
    tasks = [(cost, _whole_pair, (blocks[a], blocks[b], params, kernel,
                                  (factors[a], factors[b])))
             for (a, b), cost in zip(whole_pairs, pair_costs(client, data, whole_pairs))]
    blocks.clear()   # the class blocks live as long as the pairs that need them
    fits, cascades = {}, {}
    for a, b in pairs:
        if (a, b) not in whole:
            fits[a, b], result = _cascade_pair(runner, data, params, kernel, a, b,
                                               factors, members)
            cascades[a, b] = dataclasses.replace(result, support=None)
    fits.update(zip(whole_pairs, run_costliest_first(client, tasks)))
    results = PairResults([len(members[a]) + len(members[b]) for a, b in pairs])
    for p, pair in enumerate(pairs):
        results.store(p, fits.pop(pair))
    result = one_vs_one_result(np.arange(k), members, results)
    order = np.sort(result.sv_rows)
    pieces = client.gather(data.each(client, parts.rows_by_id, order))
    SV = (sp.vstack(pieces, format="csr") if sp.issparse(pieces[0])
          else np.vstack(pieces))
    SV = take_rows(SV, np.searchsorted(order, result.sv_rows))
    model = Model(svm_type="c_svc", kernel=kernel.kernel, gamma=kernel.gamma,
                  degree=kernel.degree, coef0=kernel.coef0, classes=np.arange(k),
                  n_support=result.n_support, support_vectors=SV, support=result.sv_rows,
                  sv_coef=result.sv_coef, rho=result.rho, n_features=data.n_features,
                  n_iter=result.statistics.n_iter,
                  objective=result.statistics.objective,
                  status=result.statistics.status)
    return DistributedFit(model=model, cascades=cascades)
