# cython: language_level=3
"""Platt's own SMO loop on LIBSVM's dual (selection="platt"): the paper's strategy,
kept to stay faithful to it and to compare against.

The outer loop alternates passes over all examples with passes over the non-bound ones;
examineExample(i2) tests i2 against Keerthi et al.'s two thresholds (2001, kept per sign
group for the nu variant) and tries partners in Platt's order: the one with the largest
|E1 - E2| (the variable that defines the threshold i2 violates), then the non-bound
examples from a random start, then all of them. The step, shrinking, gradient and
stopping are the base `Solver`'s (libsmo._core.smo).
"""
cimport cython
from libsmo._core.pair_step cimport FREE
from libsmo._core.smo cimport Solver, due, is_low, is_up, sign_group
from libsmo._core.stopping cimport NO_MEMORY, OPTIMAL


@cython.final
cdef class PlattSolver(Solver):
    """Platt's examineExample loop; construct as `Solver`."""

    cdef unsigned long long rng

    def __init__(self, *args):
        super().__init__(*args)
        self.rng = 0x9E3779B97F4A7C15

    cdef unsigned long long _random(self) noexcept nogil:
        # xorshift64: a fixed seed keeps Platt's random starts reproducible
        self.rng ^= self.rng << 13
        self.rng ^= self.rng >> 7
        self.rng ^= self.rng << 17
        return self.rng

    cdef int _step_and_refresh(self, int i, int j) noexcept nogil:
        cdef int r
        if i == j or j < 0 or sign_group(self, i) != sign_group(self, j):
            return 0
        r = self.take_step(i, j, True)
        if r > 0:
            self._thresholds()
        return r

    cdef int examine_example(self, int i2) noexcept nogil:
        """Platt's examineExample: 1 if a step was taken with i2, 0 if i2 satisfies the
        optimality conditions or no partner moves it, -1 on memory failure."""
        cdef int g = sign_group(self, i2)
        cdef double v2 = -self.y[i2] * self.G[i2]
        cdef bint viol_up = is_up(self, i2) and v2 > self.M_low[g] + self.eps
        cdef bint viol_low = is_low(self, i2) and v2 < self.m_up[g] - self.eps
        cdef int partner, k, start, n = self.active_size, r
        if not viol_up and not viol_low:
            return 0
        # first choice: the partner with the largest |E1 - E2|
        if viol_up and (not viol_low or v2 - self.M_low[g] > self.m_up[g] - v2):
            partner = self.j_low[g]
        else:
            partner = self.i_up[g]
        r = self._step_and_refresh(i2, partner)
        if r != 0:
            return r
        # then the non-bound examples, from a random start
        start = <int>(self._random() % <unsigned long long>n)
        for k in range(n):
            partner = (start + k) % n
            if self.status[partner] == FREE:
                r = self._step_and_refresh(i2, partner)
                if r != 0:
                    return r
        # then every example, from a random start
        start = <int>(self._random() % <unsigned long long>n)
        for k in range(n):
            partner = (start + k) % n
            r = self._step_and_refresh(i2, partner)
            if r != 0:
                return r
        return 0

    cdef void optimize(self) noexcept nogil:
        """Platt's outer loop, alternating passes over all and over non-bound examples.
        Returns with `stop` set (an operation that failed set it itself)."""
        cdef bint examine_all = True
        cdef int k, changed, r
        cdef long long last_shrink = 0
        cdef long long shrink_every = self.l if self.l < 1000 else 1000
        self._thresholds()
        while True:
            changed = 0
            k = 0
            while k < self.active_size:
                if examine_all or self.status[k] == FREE:
                    r = self.examine_example(k)
                    if r < 0:
                        return
                    if r > 0:
                        changed += 1
                    # after every example, stepped or not: an examination that finds no
                    # partner scans every variable, and a pass of those is O(l^2)
                    if due(self):
                        return
                k += 1
            if self.shrinking and self.n_iter - last_shrink >= shrink_every:
                last_shrink = self.n_iter
                if self.do_shrinking() < 0:
                    return
                self._thresholds()
            if examine_all:
                examine_all = False
                if changed == 0:
                    if self._unshrink_all() < 0:   # (nothing to do when none is shrunk)
                        return
                    if self._thresholds() <= self.eps:
                        # optimal on a gradient whose rounding is small, or on G
                        # computed again (`Solver._verify_optimum`); else passes go on
                        r = self._verify_optimum()
                        if r < 0:
                            return
                        if r == 0 or self._thresholds() <= self.eps:
                            self.stop = OPTIMAL
                            return
                        examine_all = True
                        continue
                    # a pass that took no step, yet not optimal: a variable within an
                    # ulp of its bound, whose every step the progress test refuses.
                    # The worst pair's step without the test (LIBSVM has none) puts it
                    # on its bound; without it the passes would repeat for ever.
                    r = self._step_worst_pair()
                    if r < 0:
                        self.stop = NO_MEMORY
                        return
                    if r > 0 and due(self):
                        return
                    examine_all = True
            elif changed == 0:
                examine_all = True
            # a pass can take time without a step: due() reads the clock, Ctrl-C and the callback
            # are checked after every pass too
            if self.poller.due(self.n_iter):
                self.stop = self.poller.stop
                return

    cdef int _step_worst_pair(self) noexcept nogil:
        """take_step without the progress test on the most violating pair of the group
        with the largest violation (the thresholds are fresh)."""
        cdef int g = 0, r
        if (self.i_up[1] != -1 and self.j_low[1] != -1
                and (self.i_up[0] == -1 or self.j_low[0] == -1
                     or self.m_up[1] - self.M_low[1] > self.m_up[0] - self.M_low[0])):
            g = 1
        if self.i_up[g] == -1 or self.j_low[g] == -1:
            return 0
        r = self.take_step(self.i_up[g], self.j_low[g], False)
        if r > 0:
            self._thresholds()
        return r
