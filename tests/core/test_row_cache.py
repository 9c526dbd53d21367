"""The Q-row cache (`libsmo._core.cache.RowCache`), LIBSVM's Cache, on its own.

Tested through its Python accessors (`request`, `cached`, `swap`) against a model of
the cache written here in plain Python over numpy rows: the values written come back,
rows asked for with a longer length are extended and keep their prefix, the byte budget
evicts the least recently used rows, the budget always holds two full rows (the solver
reads the two rows of a step together), and `swap` keeps every cached row a prefix of
the permuted matrix.

The budget: `size_bytes / 4` float entries, less 20 bytes (5 entries) of bookkeeping per
row (a pointer and three ints, as LIBSVM counts its head_t), and never fewer than
2 * n_rows entries. So k full rows of n entries fit exactly in 4 n (k + 5) bytes.
"""
import numpy as np
import pytest

from libsmo._core.cache import RowCache

BOOKKEEPING_ENTRIES = 5  # (sizeof(float*) + 3 * sizeof(int)) / sizeof(float) per row


def budget_for(n_rows, entries):
    """The size_bytes that leaves exactly `entries` float entries for rows."""
    return 4.0 * (entries + BOOKKEEPING_ENTRIES * n_rows)


class CacheModel:
    """LIBSVM's Cache in plain Python: which rows are held, how long, in which LRU order,
    and their values (numpy float32 rows). Given `distances` (one per row position),
    the "ranked" policy: the largest distance is evicted first, the least recently used
    on ties, never the row returned last (until a swap)."""

    def __init__(self, n_rows, size_bytes, distances=None):
        entries = int(size_bytes / 4) - BOOKKEEPING_ENTRIES * n_rows
        self.free = max(entries, 2 * n_rows)
        self.rows = {}   # i -> float32 row (its length is the cached length)
        self.lru = []    # least recently used first
        self.distances = distances
        self.last = None

    def _victim(self):
        candidates = [h for h in self.lru if h != self.last]
        if self.distances is None:
            return candidates[0]
        return max(candidates, key=lambda h: (self.distances[h], -self.lru.index(h)))

    def request(self, i, length, fill):
        have = len(self.rows.get(i, ()))
        if have:
            self.lru.remove(i)
        if length > have:
            while self.free < length - have and self.lru:
                self._evict(self._victim())
            old = self.rows.get(i, np.empty(0, np.float32))
            new = np.asarray(fill[have:length], np.float32)
            self.rows[i] = np.concatenate([old, new])
            self.free -= length - have
        else:
            have = length
        self.lru.append(i)
        self.last = i
        return have

    def _evict(self, i):
        self.lru.remove(i)
        self.free += len(self.rows.pop(i))

    def swap(self, i, j):
        if i == j:
            return
        self.last = None
        for t in (i, j):
            if t in self.rows:
                self.lru.remove(t)
        ri, rj = self.rows.pop(i, None), self.rows.pop(j, None)
        if rj is not None:
            self.rows[i] = rj
        if ri is not None:
            self.rows[j] = ri
        for t in (i, j):
            if t in self.rows:
                self.lru.append(t)
        lo, hi = min(i, j), max(i, j)
        for h in list(self.lru):
            row = self.rows[h]
            if len(row) > hi:
                row[[lo, hi]] = row[[hi, lo]]
            elif len(row) > lo:
                self._evict(h)


def assert_same(cache, model, n_rows):
    for i in range(n_rows):
        expected = model.rows.get(i, np.empty(0, np.float32))
        np.testing.assert_array_equal(np.array(cache.cached(i), np.float32), expected,
                                      err_msg=f"row {i}")

def _walk_against_the_model(cache, model, M, perm, rng, steps=300):
    """Random swaps and row requests, each on the cache and its reference model: the
    same hits, the same contents, and every cached row M's row under the permutation."""
    n = len(perm)
    for _ in range(steps):
        if rng.random() < 0.3:
            i, j = rng.integers(n, size=2)
            cache.swap(int(i), int(j))
            model.swap(int(i), int(j))
            perm[[i, j]] = perm[[j, i]]
        else:
            i, length = int(rng.integers(n)), int(rng.integers(1, n + 1))
            fill = M[perm[i]][perm]
            assert cache.request(i, length, fill) == model.request(i, length, fill)
        assert_same(cache, model, n)
        for i in range(n):
            row = cache.cached(i)
            np.testing.assert_array_equal(row, M[perm[i]][perm][:len(row)])



def values(n, seed=0):
    """An n x n matrix of distinct float32 values (its rows are what gets cached)."""
    rng = np.random.default_rng(seed)
    return rng.permutation(n * n).reshape(n, n).astype(np.float32) / 7


def test_rows_come_back_with_the_values_written():
    M = values(6)
    cache = RowCache(6, 1e6)
    for i in (3, 0, 5):
        assert cache.request(i, 6, M[i]) == 0
    for i in range(6):
        expected = M[i] if i in (3, 0, 5) else []
        np.testing.assert_array_equal(cache.cached(i), expected)
    # asking again finds the whole row valid and writes nothing
    assert cache.request(3, 6, np.zeros(6, np.float32)) == 6
    np.testing.assert_array_equal(cache.cached(3), M[3])


def test_a_longer_request_extends_the_row_and_keeps_its_prefix():
    M = values(8)
    cache = RowCache(8, 1e6)
    assert cache.request(2, 3, M[2]) == 0
    np.testing.assert_array_equal(cache.cached(2), M[2, :3])
    # the first 3 entries are valid: only entries 3..5 come from the new fill
    assert cache.request(2, 6, np.full(8, -1.0, np.float32)) == 3
    np.testing.assert_array_equal(cache.cached(2), np.r_[M[2, :3], [-1.0] * 3])
    # a shorter request finds everything valid and leaves the row as it was
    assert cache.request(2, 4, np.zeros(8, np.float32)) == 4
    assert len(cache.cached(2)) == 6
    assert cache.request(2, 8, M[2]) == 6
    np.testing.assert_array_equal(cache.cached(2), np.r_[M[2, :3], [-1.0] * 3, M[2, 6:]])


def test_release_frees_every_row_and_the_cache_stays_usable():
    """`release` (a fit's end, `Executor.solve`) frees the rows at once and says how
    many bytes they held; the budget is whole again and rows come back as before."""
    M = values(8)
    cache = RowCache(8, budget_for(8, 2 * 8))
    cache.request(1, 8, M[1])
    cache.request(2, 5, M[2])
    assert cache.release() == 4 * (8 + 5)
    assert cache.cached(1) == [] and cache.cached(2) == []
    assert cache.release() == 0
    assert cache.request(3, 8, M[3]) == 0
    assert cache.request(4, 8, M[4]) == 0   # two full rows fit again
    np.testing.assert_array_equal(cache.cached(3), M[3])
    np.testing.assert_array_equal(cache.cached(4), M[4])


@pytest.mark.parametrize("k", [2, 3, 5])
def test_a_budget_of_k_rows_holds_k_rows_and_evicts_the_least_recent(k):
    n = 10
    M = values(n)
    cache = RowCache(n, budget_for(n, k * n))
    for i in range(k):
        cache.request(i, n, M[i])
    assert all(len(cache.cached(i)) == n for i in range(k))
    # touching row 0 makes row 1 the least recently used
    assert cache.request(0, n, M[0]) == n
    cache.request(k, n, M[k])
    assert cache.cached(1) == [] and len(cache.cached(0)) == n
    assert all(len(cache.cached(i)) == n for i in [0] + list(range(2, k + 1)))
    # then row 2 (or row 0 when k = 2: it is older than row k)
    cache.request(k + 1, n, M[k + 1])
    gone = 0 if k == 2 else 2
    assert cache.cached(gone) == []
    held = [i for i in range(n) if cache.cached(i)]
    assert len(held) == k


@pytest.mark.parametrize("k", [3, 4])
def test_one_entry_less_holds_one_row_less(k):
    """The bookkeeping counts against the budget: 4 n (k + 5) - 4 bytes hold k - 1
    rows."""
    n = 10
    M = values(n)
    cache = RowCache(n, budget_for(n, k * n) - 4)
    for i in range(k):
        cache.request(i, n, M[i])
    assert cache.cached(0) == []
    assert [len(cache.cached(i)) for i in range(1, k)] == [n] * (k - 1)


@pytest.mark.parametrize("size_bytes", [0.0, 1.0, budget_for(10, 5)])
def test_the_budget_always_allows_two_full_rows(size_bytes):
    """Even a budget of nothing keeps the two rows a step reads together."""
    n = 10
    M = values(n)
    cache = RowCache(n, size_bytes)
    order = [4, 7, 1, 4, 9, 2, 2, 8]
    for previous, current in zip(order, order[1:]):
        cache.request(previous, n, M[previous])
        cache.request(current, n, M[current])
        np.testing.assert_array_equal(cache.cached(previous), M[previous])
        np.testing.assert_array_equal(cache.cached(current), M[current])
        held = [i for i in range(n) if cache.cached(i)]
        assert len(held) <= 2


def test_partial_rows_are_evicted_by_entries():
    """The budget is in entries, not rows: short rows leave room for more of them."""
    n = 10
    M = values(n)
    cache = RowCache(n, budget_for(n, 25))
    model = CacheModel(n, budget_for(n, 25))
    for i, length in [(0, 10), (1, 10), (2, 3), (3, 5), (4, 2), (1, 10), (5, 9), (2, 10)]:
        assert cache.request(i, length, M[i]) == model.request(i, length, M[i])
        assert_same(cache, model, n)
    # row 0 made room for row 3, rows 2 and 3 for row 5's 9 entries, rows 4 and 1 (the
    # least recent though just asked for in full) for row 2 again
    assert [i for i in range(n) if cache.cached(i)] == [2, 5]


def test_swap_exchanges_entries_and_evicts_rows_holding_only_the_lower_index():
    n = 8
    M = values(n)
    cache = RowCache(n, 1e6)
    lengths = {0: 8, 1: 2, 2: 6, 3: 5, 5: 4, 6: 8}
    for i, length in lengths.items():
        cache.request(i, length, M[i])
    cache.swap(2, 5)
    # rows 2 and 5 changed places: row 5 is what was row 2, six entries long
    assert len(cache.cached(5)) == 6
    perm = np.arange(n)
    perm[[2, 5]] = [5, 2]
    for i in (0, 5, 6):  # hold both entries 2 and 5: exchanged
        row = cache.cached(i)
        np.testing.assert_array_equal(row, M[perm[i]][perm][:len(row)])
    # rows of length 3..5 hold entry 2 but not entry 5: evicted (row 3, and row 2, which
    # is what was row 5, four entries long)
    assert cache.cached(3) == [] and cache.cached(2) == []
    # a row that holds neither is left alone
    np.testing.assert_array_equal(cache.cached(1), M[1, :2])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("budget_rows", [0, 3, 20])
def test_random_requests_and_swaps_follow_the_model(seed, budget_rows):
    """Requests of any length and swaps of any pair, as the solver makes them while it
    shrinks: the cache matches the model step for step, and every cached row is a prefix
    of the same row of the permuted matrix."""
    n = 12
    rng = np.random.default_rng(seed)
    M = values(n, seed)
    perm = np.arange(n)
    size = budget_for(n, budget_rows * n)
    cache, model = RowCache(n, size), CacheModel(n, size)
    _walk_against_the_model(cache, model, M, perm, rng)


def test_accessors_check_their_arguments():
    cache = RowCache(4, 1e6)
    with pytest.raises(IndexError):
        cache.request(4, 2, np.zeros(4, np.float32))
    with pytest.raises(IndexError):
        cache.request(0, 5, np.zeros(5, np.float32))
    with pytest.raises(ValueError, match="fewer than 3"):
        cache.request(0, 3, np.zeros(2, np.float32))
    with pytest.raises(IndexError):
        cache.swap(0, 4)
    with pytest.raises(IndexError):
        cache.cached(-1)


def test_a_negative_number_of_rows_is_refused():
    # the index is sized n_rows + 1 and its sentinel written at n_rows (the audit's r02)
    with pytest.raises(ValueError, match="n_rows must be >= 0, got -1"):
        RowCache(-1, 1e6)


# ---- the "ranked" policy ------------------------------------------------------------

def test_ranked_evicts_the_largest_distance_first():
    """Under "ranked" with the solver's ranks (here `rank_by`), the row of the largest
    distance goes first (a shrunk variable's, inf, before any), the least recently used
    among equal ones, never the row returned last; without ranks, LRU order."""
    n = 10
    M = values(n)
    cache = RowCache(n, budget_for(n, 4 * n), policy="ranked")
    assert cache.policy_name == "ranked" and RowCache(n, 1e6).policy_name == "lru"
    distances = np.array([5.0, 1.0, 9.0, 0.0, 2.0, np.inf, 3.0, 9.0, 0.5, 7.0])
    cache.rank_by(distances)
    for i in (2, 1, 7, 3):
        cache.request(i, n, M[i])
    cache.request(4, n, M[4])          # rows 2 and 7 tie at 9: 2 is older
    assert cache.cached(2) == [] and len(cache.cached(7)) == n
    cache.request(5, n, M[5])          # 7 (9.0) goes; 5 itself is inf, kept as asked
    assert cache.cached(7) == []
    cache.request(0, n, M[0])          # 5 is inf but the row returned last: 4 (2.0) goes
    assert cache.cached(4) == [] and len(cache.cached(5)) == n
    cache.request(6, n, M[6])          # now 5 (inf) goes first
    assert cache.cached(5) == []
    assert sorted(i for i in range(n) if cache.cached(i)) == [0, 1, 3, 6]
    cache.rank_by(None)                # no ranks: least recently used (row 1)
    cache.request(8, n, M[8])
    assert cache.cached(1) == [] and len(cache.cached(3)) == n
    with pytest.raises(ValueError, match="one distance per row"):
        cache.rank_by(np.zeros(3))
    with pytest.raises(ValueError, match="policy"):
        RowCache(n, 1e6, policy="lfu")


def test_an_lru_cache_ignores_ranks():
    n = 6
    M = values(n)
    cache, model = RowCache(n, budget_for(n, 3 * n)), CacheModel(n, budget_for(n, 3 * n))
    cache.rank_by(np.arange(n, dtype=float)[::-1])
    for i in (0, 1, 2, 3, 0, 4, 5):
        assert cache.request(i, n, M[i]) == model.request(i, n, M[i])
        assert_same(cache, model, n)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("budget_rows", [0, 3, 20])
def test_ranked_requests_and_swaps_follow_the_model(seed, budget_rows):
    """Random requests and swaps under "ranked" with random distances (ties and inf
    among them): the cache matches the model step for step, and every cached row is a
    prefix of the same row of the permuted matrix."""
    n = 12
    rng = np.random.default_rng(seed)
    M = values(n, seed)
    perm = np.arange(n)
    distances = rng.choice([0.0, 1.0, 2.5, 7.0, np.inf], size=n)
    size = budget_for(n, budget_rows * n)
    cache = RowCache(n, size, policy="ranked")
    cache.rank_by(distances)
    model = CacheModel(n, size, distances)
    _walk_against_the_model(cache, model, M, perm, rng)


def test_ranked_weighs_the_least_recent_rows_only():
    """`scan_limit` rows from the least recently used end are weighed (256 by
    default): a far row beyond them waits for a later eviction."""
    from libsmo._core.cache import RANK_SCAN_ROWS
    n = 8
    M = values(n)
    cache = RowCache(n, budget_for(n, 4 * n), policy="ranked")
    assert cache.scan_limit == RANK_SCAN_ROWS == 256
    cache.scan_limit = 2
    cache.rank_by(np.array([1.0, 2.0, 0.0, 9.0, 0.0, 0.0, 0.0, 0.0]))
    for i in (0, 1, 3, 2):
        cache.request(i, n, M[i])
    cache.request(4, n, M[4])      # weighs rows 0 and 1 only: 1 goes, not 3
    assert cache.cached(1) == [] and len(cache.cached(3)) == n
    cache.request(5, n, M[5])      # rows 0 and 3: 3 (9.0) goes
    assert cache.cached(3) == [] and len(cache.cached(0)) == n
