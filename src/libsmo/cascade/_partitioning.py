"""How the partitioned solver splits one binary problem's rows into partitions.

The split changes no answer (the global check ends every partitioning at the same
optimum) but how much work the leaves leave to the rounds: a leaf whose support vectors
are close to the whole problem's ones leaves few violators. Three ways, each a pure
function of the rows (seeded, so that a fit is repeatable):

- ``"random"``: a random permutation cut into equal parts;
- ``"stratified"``: each class dealt out over the partitions, so that every partition
  has the whole problem's share of each class;
- ``"kmeans"``: k-means (Lloyd's, k-means++ seeds) on a sample of the rows, every row
  then sent to its nearest centre, a partition being a region of the input space (as
  Hsieh, Si and Dhillon's DC-SVM clusters by kernel k-means, whose RBF clusters are
  those of the input space); partitions are kept within `BALANCE` times the mean size
  (a row whose centre is full goes to its nearest centre with room), so that no leaf
  is most of the problem.

The default is "stratified" (`libsmo.train`'s partitioning): on the 300,000-row
shifted Fashion-MNIST problem of benchmarks/bench_partitioned.py, 16 partitions, one
thread, the fits took 49.3 (stratified), 51.7 (random) and 55.7 (kmeans, four rounds of
the check against two) CPU seconds, to the same optimum; on 120,000 of its rows (8
partitions) 17.1, 16.4 and 18.8. Regions of the input space make leaves of few support
vectors, but their union is further from the whole problem's support vectors than a
representative sample's, and the rounds that follow cost more than the leaves saved.
"""
import numpy as np

from libsmo._utils import sparse as sp

__all__ = ["partition_rows"]

# k-means runs on a sample of this many rows per partition, at least SAMPLE_MIN_ROWS
# and at most SAMPLE_MAX_ROWS (as float32: 784 pixels, 31 MB at most)
SAMPLE_ROWS_PER_PARTITION = 400
SAMPLE_MIN_ROWS = 4000
SAMPLE_MAX_ROWS = 10000
# Lloyd's iterations on the sample
KMEANS_ITERATIONS = 10
# A partition holds at most this many times the mean partition size
BALANCE = 1.5
# rows converted to doubles at once for the distances to the centres
CHUNK_VALUES = 1 << 22
# the nearest centres kept for each row (a row whose nearest are all full has its
# distances computed again)
CHOICES = 4
# every partitioning is seeded: the same data make the same partitions
SEED = 0


def partition_rows(X, rows, signs, n_partitions, method, stop_flag=None):
    """Split a binary problem's rows into partitions.

    Parameters
    ----------
    X : ndarray (float64 or uint8) or csr_matrix
        The training data; the problem's rows are X[rows].
    rows : ndarray of int
        The problem's rows.
    signs : ndarray of float64
        Their labels, +1 or -1.
    n_partitions : int >= 1
    method : {"kmeans", "stratified", "random"}
    stop_flag : int8 ndarray of shape (1,) or None
        Read between chunks of the assignment: set, the split ends (KeyboardInterrupt
        reaches this thread between chunks by itself).

    Returns
    -------
    list of ndarray of int64
        Positions into `rows` (not rows of X), each sorted; every position in exactly
        one; no empty partition (fewer partitions when there are fewer rows).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(12.0).reshape(6, 2)
    >>> signs = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
    >>> parts = partition_rows(X, np.arange(6), signs, 3, "stratified")
    >>> [sorted(signs[p].tolist()) for p in parts]
    [[-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0]]
    """
    n = len(rows)
    n_partitions = max(1, min(int(n_partitions), n))
    if n_partitions == 1:
        return [np.arange(n, dtype=np.int64)]
    rng = np.random.default_rng(SEED)
    if method == "random":
        labels = _dealt(rng.permutation(n), n_partitions)
    elif method == "stratified":
        labels = np.empty(n, dtype=np.int64)
        offset = 0
        for side in (1.0, -1.0):
            members = rng.permutation(np.flatnonzero(signs == side))
            # each class dealt from where the other stopped, so the sizes stay equal
            labels[members] = (offset + np.arange(len(members))) % n_partitions
            offset += len(members)
    elif method == "kmeans":
        labels = _kmeans_labels(X, rows, n_partitions, rng, stop_flag)
    else:
        raise ValueError(f"unknown partitioning {method!r}")
    order = np.argsort(labels, kind="stable")
    bounds = np.searchsorted(labels[order], np.arange(n_partitions + 1))
    parts = [np.sort(order[a:b]).astype(np.int64) for a, b in zip(bounds[:-1], bounds[1:])]
    return [p for p in parts if len(p)]


def _dealt(permutation, n_partitions):
    """Labels 0..p-1 dealt out over a permutation: partition sizes differ by one."""
    labels = np.empty(len(permutation), dtype=np.int64)
    labels[permutation] = np.arange(len(permutation)) % n_partitions
    return labels


def _as_floats(X, rows):
    """X[rows] as dense float32 rows (a chunk: the data itself stays as it is). The
    centres need no more precision than float32's, whose products take half the
    time."""
    block = X[rows]
    if sp.issparse(block):
        return block.astype(np.float32).toarray()
    return np.asarray(block, dtype=np.float32)


def _kmeans_labels(X, rows, k, rng, stop_flag):
    """Each row's partition: the nearest of k centres found by k-means on a sample,
    with partitions kept within BALANCE times the mean size."""
    n = len(rows)
    size = min(n, SAMPLE_MAX_ROWS, max(SAMPLE_MIN_ROWS, SAMPLE_ROWS_PER_PARTITION * k))
    sample = _as_floats(X, np.sort(rng.choice(rows, size=size, replace=False)))
    centres = _kmeans(sample, k, rng)
    del sample

    def distances(positions):
        # |x - c|^2 - |x|^2 = |c|^2 - 2 x'c for every centre (|x|^2 is the same for
        # every centre of a row, and left out), a chunk of rows at a time
        out = np.empty((len(positions), k))
        step = max(1, CHUNK_VALUES // max(1, X.shape[1]))
        for start in range(0, len(positions), step):
            if stop_flag is not None and stop_flag[0]:
                raise KeyboardInterrupt
            chunk = _as_floats(X, rows[positions[start:start + step]])
            np.subtract(centre_norms[None, :], 2.0 * (chunk @ centres.T),
                        out=out[start:start + step])
        return out

    centre_norms = np.einsum("ij,ij->i", centres, centres)
    # each row's CHOICES nearest centres and their distances (O(n), whatever k)
    m = min(k, CHOICES)
    choices = np.empty((n, m), dtype=np.int32)
    gaps = np.empty((n, m))
    step = max(1, CHUNK_VALUES // max(1, X.shape[1]))
    for start in range(0, n, step):
        d = distances(np.arange(start, min(n, start + step)))
        near = np.argsort(d, axis=1, kind="stable")[:, :m]
        choices[start:start + step] = near
        gaps[start:start + step] = np.take_along_axis(d, near, axis=1)
    return _balanced_assignment(choices, gaps, k, distances)


def _kmeans(sample, k, rng):
    """k centres of the sample's rows: k-means++ seeds, then Lloyd's iterations (a
    centre left without rows keeps its place)."""
    norms = np.einsum("ij,ij->i", sample, sample)
    centres = [sample[rng.integers(len(sample))]]
    closest = np.maximum(norms - 2.0 * sample @ centres[0] + centres[0] @ centres[0], 0.0)
    for _ in range(1, k):
        total = closest.sum()
        pick = (rng.integers(len(sample)) if total <= 0
                else rng.choice(len(sample), p=closest / total))
        centres.append(sample[pick])
        closest = np.minimum(closest, np.maximum(
            norms - 2.0 * sample @ centres[-1] + centres[-1] @ centres[-1], 0.0))
    centres = np.array(centres)
    for _ in range(KMEANS_ITERATIONS):
        nearest = np.argmin(np.einsum("ij,ij->i", centres, centres)[None, :]
                            - 2.0 * sample @ centres.T, axis=1)
        counts = np.bincount(nearest, minlength=k)
        filled = counts > 0
        # each cluster's mean from its own rows (numpy's add.at is a loop over the
        # rows; a sorted copy of the sample would double its memory)
        moved = np.array([sample[nearest == c].mean(axis=0, dtype=np.float64)
                          for c in np.flatnonzero(filled)], dtype=np.float32)
        if np.array_equal(moved, centres[filled]):
            break
        centres[filled] = moved
    return centres


def _balanced_assignment(choices, gaps, k, distances):
    """Each row to its nearest centre, unless that partition already holds BALANCE
    times the mean size: rows are placed in the order of how much they prefer their
    nearest centre to their next, those with the most to lose first, and a row whose
    nearest centres (`choices`, `gaps` their distances) are full goes to its nearest
    centre with room (`distances(positions)` computes all of them again)."""
    n = choices.shape[0]
    nearest = choices[:, 0].astype(np.int64)
    capacity = int(np.ceil(BALANCE * n / k))
    if np.bincount(nearest, minlength=k).max() <= capacity:
        return nearest
    regret = gaps[:, 1] - gaps[:, 0] if choices.shape[1] > 1 else np.zeros(n)
    labels = np.full(n, -1, dtype=np.int64)
    room = np.full(k, capacity)
    for row in np.argsort(-regret, kind="stable"):
        for centre in choices[row]:
            if room[centre] > 0:
                labels[row] = centre
                room[centre] -= 1
                break
    left = np.flatnonzero(labels < 0)
    if len(left):
        for row, ranking in zip(left, np.argsort(distances(left), axis=1)):
            centre = next(c for c in ranking if room[c] > 0)
            labels[row] = centre
            room[centre] -= 1
    return labels
