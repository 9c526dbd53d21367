"""LIBSVM's random numbers: C's rand() as the GNU C library computes it.

svm-train draws every random number it uses from rand(): the shuffles behind
cross-validation folds (`-v n`, stratified for classification) and behind the internal
5-fold cross-validation of the probability models (`-b 1`: one shuffle of each pair's
examples for Platt's sigmoid, one of the data for the SVR scale). It never calls
srand(), so on Linux (glibc) every run starts from srand(1) and prints the same figures.
`LibsvmRandom` reproduces that sequence exactly, so that libsmo's folds can be LIBSVM's
own: with the same solver steps, `libsmo-train -v 5` prints svm-train's accuracy digit
for digit, and a grid search picks svm-grid's cell.

glibc's rand() (the TYPE_3 additive feedback generator) keeps 34 words: r[0] = seed,
r[i] = 16807 r[i-1] mod (2^31 - 1) for i < 31, r[31..33] = r[0..2], then
r[k] = r[k-31] + r[k-3] (mod 2^32); the k-th output (k >= 344) is r[k] >> 1.
"""
import numpy as np

_MASK = 0xFFFFFFFF
# scikit-learn's fit draws its seed as randint(this) (np.iinfo is slow to ask each fit)
_SEED_DRAW_BOUND = int(np.iinfo(np.int32).max)


class LibsvmRandom:
    """C's rand() after srand(seed), as glibc computes it: svm-train's random numbers.

    svm-train draws its cross-validation folds (``-v``) and its probability
    model's internal folds (``-b 1``) from rand(), and on Linux, where it never
    calls srand(), from seed 1. Pass a LibsvmRandom as ``random_state`` to
    `libsmo.train` or `libsmo.cross_validation` (or use ``libsmo-train --seed``): the
    folds are then drawn as svm-train draws them, shuffles by
    ``j = i + rand() % (n - i)``, so that with the same solver steps libsmo prints
    svm-train's figures digit for digit. It is stateful, like a numpy Generator:
    each use continues the sequence, as one svm-train run does.

    Parameters
    ----------
    seed : int, default=1
        The seed of srand(), in [0, 2**32 - 1] (0 is taken as 1, as glibc does).
        svm-train's sequence is seed 1.

    Attributes
    ----------
    seed : int
        The seed the sequence started from.

    See Also
    --------
    libsmo.cross_validation : Cross-validation with LIBSVM's folds.
    numpy.random.Generator : The other random source libsmo's functions take.

    Notes
    -----
    glibc's rand() (its TYPE_3 additive feedback generator) keeps 34 words: r[0] =
    seed, r[i] = 16807 r[i-1] mod (2^31 - 1) for i < 31, r[31..33] = r[0..2], then
    r[k] = r[k-31] + r[k-3] (mod 2^32); the k-th output (k >= 344) is r[k] >> 1.

    Examples
    --------
    >>> import libsmo
    >>> random = libsmo.LibsvmRandom()
    >>> [random.rand() for _ in range(3)]
    [1804289383, 846930886, 1681692777]
    >>> libsmo.LibsvmRandom(1).permutation(6)
    array([1, 2, 3, 4, 5, 0])
    """

    __slots__ = ("_words", "seed")

    def __init__(self, seed=1):
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"seed must be an int, got {seed!r}")
        if not 0 <= seed <= _MASK:
            raise ValueError(f"seed must be in [0, 2**32 - 1], got {seed}")
        self.seed = int(seed)
        word = self.seed or 1
        words = [word]
        signed = word - (1 << 32) if word >= 1 << 31 else word
        for _ in range(1, 31):
            # glibc's 16807 * word mod (2^31 - 1) in 32-bit signed arithmetic (Schrage)
            high = abs(signed) // 127773 * (1 if signed >= 0 else -1)  # C's truncation
            low = signed - high * 127773
            signed = 16807 * low - 2836 * high
            if signed < 0:
                signed += 2147483647
            words.append(signed & _MASK)
        words += words[:3]
        self._words = words
        self.skip(310)                           # glibc discards the first 310 outputs

    def rand(self):
        """Draw the next value of C's rand().

        Returns
        -------
        int
            A value in [0, 2**31 - 1].

        Examples
        --------
        >>> import libsmo
        >>> libsmo.LibsvmRandom(1).rand()
        1804289383
        """
        words = self._words
        value = (words[-31] + words[-3]) & _MASK
        words.append(value)
        del words[0]
        return value >> 1

    def skip(self, count):
        """Advance the sequence by `count` draws.

        Parameters
        ----------
        count : int
            Number of draws to pass over.

        Examples
        --------
        >>> import libsmo
        >>> random = libsmo.LibsvmRandom(1)
        >>> random.skip(2)
        >>> random.rand()
        1681692777
        """
        words = self._words
        for _ in range(int(count)):
            words.append((words[-31] + words[-3]) & _MASK)
            del words[0]

    def permutation(self, n):
        """Shuffle 0..n-1 as LIBSVM shuffles its folds.

        For i = 0..n-1: j = i + rand() % (n - i), then perm[i] and perm[j] change
        places (n draws).

        Parameters
        ----------
        n : int
            Number of items.

        Returns
        -------
        ndarray of int64 of shape (n,)
            The shuffled indices.

        Examples
        --------
        >>> import libsmo
        >>> libsmo.LibsvmRandom(1).permutation(6)
        array([1, 2, 3, 4, 5, 0])
        """
        perm = list(range(int(n)))
        rand = self.rand
        for i in range(len(perm)):
            j = i + rand() % (len(perm) - i)
            perm[i], perm[j] = perm[j], perm[i]
        return np.array(perm, dtype=np.int64)

    def copy(self):
        """Return an independent sequence at the same point (this one does not move).

        Returns
        -------
        LibsvmRandom
            The copy.

        Examples
        --------
        >>> import libsmo
        >>> random = libsmo.LibsvmRandom(1)
        >>> twin = random.copy()
        >>> random.rand() == twin.rand()
        True
        """
        twin = LibsvmRandom.__new__(LibsvmRandom)
        twin.seed = self.seed
        twin._words = list(self._words)
        return twin

    def split(self, counts):
        """Split off one sequence for each of the next consecutive parts of this one.

        Part k starts where parts 0..k-1, of counts[0..k-1] draws, end; this sequence
        moves past them all. LIBSVM draws the probability folds of its one-vs-one
        pairs one pair after the other from one sequence; split lets the pairs run in
        any order (or at once) and still draw what LIBSVM draws.

        Parameters
        ----------
        counts : sequence of int
            The draws of each part.

        Returns
        -------
        list of LibsvmRandom
            One sequence for each part.

        Examples
        --------
        >>> import libsmo
        >>> random = libsmo.LibsvmRandom(1)
        >>> first, second = random.split([2, 3])
        >>> first.rand(), second.rand(), random.rand()
        (1804289383, 1681692777, 424238335)
        """
        parts = []
        for count in counts:
            parts.append(self.copy())
            self.skip(count)
        return parts

    def __repr__(self):
        return f"LibsvmRandom(seed={self.seed})"


class SklearnRandom:
    """The random numbers of scikit-learn's copy of LIBSVM (sklearn/svm/src/newrand):
    a 32-bit Mersenne Twister (C++'s std::mt19937) seeded with the int that
    scikit-learn's fit draws from its random_state, bounded by Lemire's method.

    scikit-learn draws its probability folds from it: ``perm[i] <-> perm[j]``,
    ``j = i + bounded(n - i)``, for each one-vs-one pair's Platt folds and for the
    regressions' Laplace folds. Its training reseeds the generator at each of the
    folds' trainings, so every pair's shuffle starts from the seed (`split`). With
    these folds libsmo's estimators give scikit-learn's probA_, probB_ and
    predict_proba for the same random_state.

    Parameters
    ----------
    seed : int in [0, 2**32 - 1]
    """

    __slots__ = ("seed", "_bits", "_buffer", "_pos")

    def __init__(self, seed):
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"seed must be an int, got {seed!r}")
        if not 0 <= seed <= _MASK:
            raise ValueError(f"seed must be in [0, 2**32 - 1], got {seed}")
        self.seed = int(seed)
        # the generator is built at the first draw: every estimator's fit makes one of
        # these (scikit-learn's fit draws its seed whatever it trains), and only the
        # probability folds draw from it
        self._bits = None
        self._buffer = None
        self._pos = 0

    def _start(self):
        """The Mersenne Twister in the state std::mt19937(seed) starts from."""
        # numpy's legacy seeding of an int is std::mt19937's (init_genrand)
        key, pos = np.random.RandomState(self.seed).get_state()[1:3]
        self._bits = np.random.MT19937(0)
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        self._buffer = np.zeros(0, dtype=np.uint64)

    @classmethod
    def from_random_state(cls, random_state):
        """The generator scikit-learn's fit seeds: one draw of randint(2**31 - 1) from
        check_random_state(random_state) (None: numpy's global RandomState, an int: a
        RandomState of it, a RandomState: itself). The draw happens here, as in every
        scikit-learn fit.

        Returns
        -------
        SklearnRandom
        """
        if random_state is None:
            source = np.random.mtrand._rand
        elif isinstance(random_state, np.random.RandomState):
            source = random_state
        else:
            source = np.random.RandomState(random_state)
        return cls(int(source.randint(_SEED_DRAW_BOUND)))

    def _draws(self, count):
        """The next `count` 32-bit outputs (uint64), kept in a buffer so that draws
        looked at and not used stay next in the sequence."""
        if self._bits is None:
            self._start()
        if len(self._buffer) - self._pos < count:
            more = max(count - (len(self._buffer) - self._pos), 64)
            self._buffer = np.concatenate([self._buffer[self._pos:],
                                           self._bits.random_raw(more)])
            self._pos = 0
        return self._buffer[self._pos:self._pos + count]

    def bounded(self, ranges):
        """bounded_rand_int(r) for each r of `ranges` in turn: floor(x r / 2^32) of the
        next output x, retried while the low 32 bits of x r are below (2^32 - r) mod r.

        Parameters
        ----------
        ranges : array of int, each in [1, 2**31 - 1]

        Returns
        -------
        ndarray of int64
        """
        ranges = np.asarray(ranges, dtype=np.uint64)
        out = np.empty(len(ranges), dtype=np.int64)
        done = 0
        while done < len(ranges):
            r = ranges[done:]
            m = self._draws(len(r)) * r
            rejected = np.flatnonzero((m & np.uint64(_MASK))
                                      < (np.uint64(1 << 32) - r) % r)
            k = len(r) if len(rejected) == 0 else int(rejected[0])
            out[done:done + k] = (m[:k] >> np.uint64(32)).astype(np.int64)
            # the rejected output is spent; its position draws again from the next one
            self._pos += k + (k < len(r))
            done += k
        return out

    def permutation(self, n):
        """0..n-1 shuffled as LIBSVM shuffles its folds: for i = 0..n-1,
        j = i + bounded(n - i) and swap(perm[i], perm[j]).

        Returns
        -------
        ndarray of int64
        """
        offsets = self.bounded(np.arange(int(n), 0, -1)) if n > 0 else []
        perm = list(range(int(n)))
        for i, offset in enumerate(offsets):
            j = i + int(offset)
            perm[i], perm[j] = perm[j], perm[i]
        return np.array(perm, dtype=np.int64)

    def split(self, counts):
        """One generator per one-vs-one pair: each starts from the seed, as each pair's
        shuffle does in scikit-learn (the previous pair's fold trainings reseeded it).

        Returns
        -------
        list of SklearnRandom
        """
        return [SklearnRandom(self.seed) for _ in counts]

    def __repr__(self):
        return f"SklearnRandom(seed={self.seed})"
