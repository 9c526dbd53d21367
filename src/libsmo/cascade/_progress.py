"""What a long partitioned fit says as it goes (`libsmo.cascade._local`): a line on the
"libsmo" logger at each leaf, node of the tree and round of the global check; the
user's callback, with the fit's figures (rounds, working-set size, m(a) - M(a),
elapsed seconds), which may stop the fit; and for the estimators' ``verbose`` a
progress bar on stderr (tqdm when installed, else one line redrawn on a terminal).
"""
import importlib.util
import logging
import math
import sys
import threading
import time

__all__ = ["FitProgress"]

logger = logging.getLogger("libsmo")


class FitProgress:
    """The reports of one partitioned solve.

    Parameters
    ----------
    callback : callable or None
        The fit's callback (`libsmo.train`'s): called with a dict after each leaf, node
        and round (keys ``stage``, ``done``, ``total``, ``n_iter``, ``active_size`` (the
        working set's rows), ``n_support``, ``violation`` (m(a) - M(a) over every row,
        NaN before the first round), ``objective``, ``elapsed``), and by each
        partition's solver every callback_every steps with the solver's own dict and
        ``stage`` and ``elapsed`` (from the threads that solve the partitions).
        Returning False stops the fit (status "stopped").
    bar : bool
        Draw a progress bar on stderr.
    n_rows, n_partitions : int
        The problem's size, for the messages.
    tol : float
        The stopping tolerance, which the bar's rounds close in on.

    Examples
    --------
    >>> from libsmo.cascade._partitioned import Progress
    >>> seen = []
    >>> report = FitProgress(callback=seen.append, bar=False, n_rows=100,
    ...                      n_partitions=2, tol=1e-3)
    >>> report(Progress("leaf", 1, 2, 50, 10, float("nan"), 30, -4.0, 0.1))
    True
    >>> seen[0]["stage"], seen[0]["active_size"]
    ('leaf', 50)
    >>> report.close()
    """

    def __init__(self, callback, bar, n_rows, n_partitions, tol):
        self.callback = callback
        self.n_rows, self.n_partitions, self.tol = n_rows, n_partitions, tol
        self.started = time.monotonic()
        self.stopped = False
        self._lock = threading.Lock()
        self._bar = _Bar(n_partitions, tol) if bar else None

    def __call__(self, progress):
        """A report of `solve_partitioned`; False when the fit is to stop."""
        if progress.stage == "leaf":
            what = f"leaf {progress.done}/{progress.total}"
        elif progress.stage == "tree":
            what = f"node {progress.done}/{progress.total} of the tree"
        else:
            what = f"round {progress.done}"
        gap = ("" if math.isnan(progress.gap)
               else f", m(a) - M(a) = {progress.gap:.3g} (tol {self.tol:g})")
        logger.info("partitioned: %s: %d rows, %d support vectors%s, %d steps, %.1f s",
                    what, progress.working_set, progress.n_support, gap, progress.n_iter,
                    progress.elapsed)
        if self._bar is not None:
            self._bar.update(progress)
        if self.callback is not None and not self.stopped:
            answer = self.callback({
                "stage": progress.stage, "done": progress.done, "total": progress.total,
                "n_iter": progress.n_iter, "active_size": progress.working_set,
                "n_support": progress.n_support, "violation": progress.gap,
                "objective": progress.objective, "elapsed": progress.elapsed})
            if answer is False:
                self.stopped = True
        return not self.stopped

    def node_callback(self, stage):
        """The callback a partition's solver gets (None when the fit has none): the
        user's, with ``stage`` and ``elapsed`` added; once the fit is stopping, False."""
        if self.callback is None:
            return None

        def callback(info):
            if self.stopped:
                return False
            info = dict(info, stage=stage, elapsed=time.monotonic() - self.started)
            with self._lock:   # one call at a time, whichever thread solves
                answer = self.callback(info)
            if answer is False:
                self.stopped = True
            return answer

        return callback

    def close(self):
        """End the bar."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class _Bar:
    """Leaves solved out of the partitions, then the rounds' m(a) - M(a) closing in on
    tol (on a log scale): tqdm's bar when tqdm is installed, else a line redrawn on a
    terminal, else nothing."""

    def __init__(self, n_partitions, tol):
        self.n_partitions, self.tol = n_partitions, tol
        self.first_gap = None
        self.tqdm = None
        self.line = False
        if importlib.util.find_spec("tqdm") is not None:
            from tqdm.auto import tqdm
            self.tqdm = tqdm(total=n_partitions, desc="partitioned: leaves", unit="leaf",
                             file=sys.stderr, leave=True)
        else:
            self.line = sys.stderr.isatty()

    def update(self, progress):
        if progress.stage == "round" and self.first_gap is None and progress.gap > 0:
            self.first_gap = progress.gap
            if self.tqdm is not None:
                self.tqdm.reset(total=100)
                self.tqdm.unit = "%"
                self.tqdm.set_description("partitioned: rounds")
        if self.tqdm is not None:
            if progress.stage == "leaf":
                self.tqdm.update(1)
            elif progress.stage == "round":
                self.tqdm.n = self._closed(progress.gap)
                self.tqdm.set_postfix_str(
                    f"round {progress.done}, working set {progress.working_set:,}, "
                    f"m-M {progress.gap:.2e}", refresh=False)
                self.tqdm.refresh()
            else:
                self.tqdm.set_postfix_str(f"tree node {progress.done}/{progress.total}")
        elif self.line:
            if progress.stage == "round":
                text = (f"partitioned: round {progress.done}, working set "
                        f"{progress.working_set:,}, m-M {progress.gap:.2e} "
                        f"(tol {self.tol:g}), {progress.elapsed:.0f} s")
            else:
                text = (f"partitioned: {progress.stage} {progress.done}/{progress.total}, "
                        f"{progress.elapsed:.0f} s")
            sys.stderr.write("\r" + text.ljust(78))
            sys.stderr.flush()

    def _closed(self, gap):
        """Percent of the way from the first round's gap down to tol, on a log scale."""
        if gap <= self.tol or self.first_gap is None or self.first_gap <= self.tol:
            return 100
        return int(max(0.0, min(99.0, 100 * math.log(self.first_gap / gap)
                                / math.log(self.first_gap / self.tol))))

    def close(self):
        if self.tqdm is not None:
            self.tqdm.close()
        elif self.line:
            sys.stderr.write("\n")
            sys.stderr.flush()
