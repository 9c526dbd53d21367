"""What "the same work" means in a benchmark table, checked run by run.

Two runs did the same work when their dual objectives (computed the same way from their
dual coefficients: `benchmarks.objective`) agree to OBJECTIVE_RTOL, their numbers of
support vectors to NSV_RTOL and their test accuracies to ACCURACY_POINTS (mean squared
errors to MSE_RTOL). These are the differences solvers of the same dual at LIBSVM's
tolerance 1e-3 show; a run outside them solved another problem or stopped elsewhere,
and a time ratio against it measures something else. On letter, pendigits, ijcnn1,
a9a (RBF and linear) and housing (4,000 rows or all) the four libraries differed by at
most 1.3e-7 in the objective, 0.9% in nSV (oneDAL's solver keeps a few more free
support vectors) and 0.1 points of accuracy.
"""
import dataclasses
import math
from typing import Optional, Tuple

OBJECTIVE_RTOL = 1e-4
NSV_RTOL = 0.02
ACCURACY_POINTS = 0.2
MSE_RTOL = 1e-3


def relative_difference(a, b):
    """|a - b| / |b| (|a - b| when b is 0); None when either is missing."""
    if a is None or b is None:
        return None
    return abs(a - b) / abs(b) if b != 0 else abs(a - b)


@dataclasses.dataclass(frozen=True)
class RunCheck:
    """One run held against the reference run of its case.

    Attributes
    ----------
    library : str
    threads : int or None
    repeat : int
    objective_rel_diff : float or None
    n_sv : int or None
    n_sv_rel_diff : float or None
    metric_diff : float or None
        Accuracy points (classification) or relative MSE difference (regression).
    problems : tuple of str
        What disagrees, in words; empty when the run did the same work.
    """
    library: str
    threads: Optional[int]
    repeat: int
    objective_rel_diff: Optional[float]
    n_sv: Optional[int]
    n_sv_rel_diff: Optional[float]
    metric_diff: Optional[float]
    problems: Tuple[str, ...]

    @property
    def agrees(self):
        return not self.problems


def _finite(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def check_run(run, reference, regression, repeat=0):
    """Hold a run (a child's result: objective, n_sv, accuracy or mse) against the
    reference run.

    A run without an objective, nSV or metric does not agree: it cannot show that it
    did the same work.

    Returns
    -------
    RunCheck
    """
    problems = []
    objective = relative_difference(run.get("objective"), reference.get("objective"))
    if objective is None or not _finite(objective):
        problems.append("no objective")
    elif objective > OBJECTIVE_RTOL:
        problems.append(f"objective differs by {objective:.1e} (relative)")
    n_sv = relative_difference(run.get("n_sv"), reference.get("n_sv"))
    if n_sv is None:
        problems.append("no support vector count")
    elif n_sv > NSV_RTOL:
        problems.append(f"nSV {run['n_sv']} against {reference['n_sv']}")
    key = "mse" if regression else "accuracy"
    ours, theirs = run.get(key), reference.get(key)
    if not (_finite(ours) and _finite(theirs)):
        metric = None
        problems.append(f"no {key}")
    elif regression:
        metric = relative_difference(ours, theirs)
        if metric > MSE_RTOL:
            problems.append(f"MSE {ours:.6g} against {theirs:.6g}")
    else:
        metric = abs(ours - theirs)
        if metric > ACCURACY_POINTS:
            problems.append(f"accuracy {ours:.2f}% against {theirs:.2f}%")
    return RunCheck(library=run.get("library"), threads=run.get("threads"),
                    repeat=repeat, objective_rel_diff=objective, n_sv=run.get("n_sv"),
                    n_sv_rel_diff=n_sv, metric_diff=metric, problems=tuple(problems))


def objectives_agree(a, b, rtol=OBJECTIVE_RTOL):
    """Whether two objectives agree to `rtol` (relative to the second)."""
    rel = relative_difference(a, b)
    return rel is not None and _finite(rel) and rel <= rtol
