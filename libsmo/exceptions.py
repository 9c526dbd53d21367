"""The warnings libsmo issues of its own."""


class ConvergenceWarning(UserWarning):
    """Training stopped before the optimum (max_iter, time_limit or the callback)."""
