"""scikit-learn-intelex's SVC / SVR (oneDAL's solver) as the benchmarks run them: the
same estimator parameters as scikit-learn's, with n_jobs = the thread count."""
from benchmarks.peers import sklearn as _sklearn
from benchmarks.peers._fit import dist_version

NAME = "sklearnex"
reader = _sklearn.reader


def version():
    return dist_version("scikit-learn-intelex")


def prepare(case, X, y, threads):
    """scikit-learn-intelex's SVC / SVR for the case on `threads` threads.

    Returns
    -------
    callable
        fit() -> `Fit`.
    """
    from sklearnex.svm import SVC, SVR
    return _sklearn.prepare_estimator(SVC, SVR, case, X, y, n_jobs=threads)
