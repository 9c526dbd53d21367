"""Helpers every layer uses: the registry of names, parameter constraints, the data
boundary's checks, random sources, joblib tasks, the one way to scipy.sparse, the rule
that chooses dense or compact rows, and the figures LIBSVM's tools print.

Nothing here imports anything above `libsmo._core`.
"""
