"""The trained model: LIBSVM's svm_model fields, prediction and probabilities.

``_model``
    `Model`: the fields, decision values, votes, predictions, probabilities.
``_checks``
    the consistency checks every Model's fields pass (from training or from a file).
``_one_vs_one``
    LIBSVM's class order and one-vs-one layout: pairs, coefficient rows, votes and
    scikit-learn's one-vs-rest scores.
``_probability``
    Platt's sigmoid, pairwise coupling, the SVR Laplace scale, one-class marks and the
    folds that fit them.
"""
from libsmo.model._model import Model

__all__ = ["Model"]
