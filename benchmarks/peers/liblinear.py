"""LIBLINEAR (liblinear-official) as the benchmarks run it.

Its SVMs are another problem than LIBSVM's dual (the bias is regularised, as a feature
of value 1 with -B 1, and there is no equality constraint), so its answer is not a
`Fit` comparable by the dual objective: `prepare` returns its model and prediction, and a
script shows its time and accuracy as a reference, never a ratio of equal work.
"""
import numpy as np

from benchmarks.peers._fit import dist_version

NAME = "liblinear"


def version():
    return dist_version("liblinear-official")


def available():
    """Whether liblinear-official is installed (the bench extra installs it)."""
    try:
        import liblinear.liblinearutil  # noqa: F401
    except ImportError:
        return False
    return True


def prepare(X, y, options):
    """The function that trains LIBLINEAR with `options` (its train's option string,
    e.g. "-s 3 -c 0.05 -B 1") and returns predict(Xt) -> labels.

    Returns
    -------
    callable
    """
    from liblinear.liblinearutil import predict, train

    def fit():
        model = train(y, X, options + " -q")

        def predict_rows(Xt):
            labels, _, _ = predict(np.zeros(Xt.shape[0]), Xt, model, "-q")
            return np.asarray(labels)
        return predict_rows
    return fit
