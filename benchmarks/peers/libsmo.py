"""libsmo as the benchmarks run it: ``libsmo.train`` on the case's parameters with
LIBSVM's tolerance, cache and shrinking, on `threads` threads."""
import numpy as np

from benchmarks.peers._fit import CACHE_MB, TOL, Fit, dist_version

NAME = "libsmo"


def version():
    return dist_version("libsmo")


def reader():
    """libsmo's reader of LIBSVM files, imported: read(path, n_features) -> (CSR X, y)."""
    from libsmo import load_svmlight_file

    def read(path, n_features):
        X, y = load_svmlight_file(path, n_features=n_features)
        return X.tocsr(), np.asarray(y, dtype=np.float64)
    return read


def fit_from_model(model):
    """A libsmo `Model`'s answer as a `Fit`."""
    return Fit(predict=model.predict, support=np.asarray(model.support, dtype=np.int64),
               dual_coef=np.asarray(model.sv_coef),
               n_support=(np.asarray(model.n_support) if len(model.classes) else None),
               rho=np.asarray(model.rho), n_iter=int(sum(model.n_iter)),
               # training's kernel values, for its rate against the BLAS peak
               kernel_evaluations=(int(sum(model.kernel_evaluations))
                                   if model.kernel_evaluations else None),
               reported_objective=float(sum(model.objective)))


def prepare(case, X, y, threads, cache_mb=CACHE_MB, **options):
    """What libsmo needs before its clock starts, and the function that trains.

    Parameters
    ----------
    case : benchmarks.cases.Case
    X, y : training rows and labels
    threads : int
        n_threads.
    cache_mb : float
        The kernel cache (default run.py's 100 MB).
    **options
        More keyword arguments of ``libsmo.train`` (e.g. linear_solver).

    Returns
    -------
    callable
        fit() -> `Fit`.
    """
    import libsmo
    import libsmo._blocks.support_rows as support_rows

    # libsmo imports its training and prediction code on first use (so that its
    # commands start fast); the other libraries import theirs before their clocks
    # start. blas_dots (sparse rows' prediction) imports scipy.linalg: 37 ms and
    # 8 MB of RSS, so only where prediction may use it: sparse support vectors
    # too wide to be densified (at most every training row is one).
    import libsmo.training._fitting  # noqa: F401
    from libsmo._utils import sparse as _sparse
    if (_sparse.issparse(X)
            and X.shape[0] * X.shape[1] * 8 > support_rows.DENSE_SV_BYTES):
        import libsmo._core.blas_dots  # noqa: F401

    def fit():
        model = libsmo.train(X, y, svm_type=case.svm_type, kernel=case.kernel, C=case.C,
                             gamma=case.gamma, epsilon=case.epsilon, tol=TOL,
                             cache_size=cache_mb, shrinking=True, n_threads=threads,
                             **options)
        return fit_from_model(model)
    return fit
