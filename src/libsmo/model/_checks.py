"""The checks of a `Model`'s fields, made whenever a model is built (by training, from a
file, by `Model.replace`) and again before it predicts if a field was assigned since.

Prediction reads these fields with scipy's products and the compiled norms, which trust
their inputs: a CSR matrix whose index points past its width, or an `n_support` that
does not add up to the support vectors, would read outside a buffer. So a `Model` that
exists holds consistent fields; one that would not is a ValueError (TypeError for a
value of the wrong kind) naming the field.
"""
import numbers

import numpy as np

from libsmo._core.checks import all_finite
from libsmo._utils.constraints import check_positive, check_real
from libsmo._utils.names import CLASSIFICATION_TYPES, INT_MAX, KERNELS, SVM_TYPES
from libsmo._utils.validation import check_data
from libsmo.model import _one_vs_one as ovo


def _choice(value, name, choices):
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"Model.{name} must be one of {', '.join(map(repr, choices))}; "
                         f"got {value!r}")
    return value


def _finite_vector(value, name, length=None):
    """A 1-D float64 vector of finite numbers (of `length` entries when given)."""
    try:
        arr = np.atleast_1d(np.asarray(value, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"Model.{name} must hold numbers: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"Model.{name} must be 1-D, got shape {arr.shape}")
    if length is not None and len(arr) != length:
        raise ValueError(f"Model.{name} has {len(arr)} values; this model needs {length}")
    if not all_finite(np.ascontiguousarray(arr)):
        raise ValueError(f"Model.{name} holds NaN or infinity")
    return arr


def _index_vector(value, name, length, upper=None):
    """A 1-D int64 vector of `length` entries in [0, upper)."""
    arr = np.asarray(value)
    if arr.size == 0:
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu" or arr.ndim != 1:
        raise ValueError(f"Model.{name} must be a 1-D array of integers, got "
                         f"{arr.dtype} of shape {arr.shape}")
    if len(arr) != length:
        raise ValueError(f"Model.{name} has {len(arr)} entries; this model needs {length}")
    arr = arr.astype(np.int64, copy=False)
    if len(arr) and (arr.min() < 0 or (upper is not None and arr.max() >= upper)):
        bound = f"[0, {upper})" if upper is not None else ">= 0"
        raise ValueError(f"Model.{name} holds an entry outside {bound}")
    return arr


# the training's statistics, one entry per binary problem in LIBSVM's pair order (empty
# for a model read from a file)
PER_PROBLEM_FIELDS = ("n_iter", "objective", "status", "kernel_evaluations")


def check_model_fields(fields):
    """Validate and normalise a Model's fields.

    Parameters
    ----------
    fields : dict
        Field name -> value, every field of `Model`.

    Returns
    -------
    dict
        The fields in the forms prediction reads: floats, int64 and float64 arrays,
        support vectors as dense C-contiguous float64 or canonical CSR.

    Raises
    ------
    TypeError, ValueError
        A field of the wrong kind, out of range, or inconsistent with the others (the
        message names it).
    """
    out = dict(fields)
    svm_type = _choice(fields["svm_type"], "svm_type", SVM_TYPES)
    kernel = _choice(fields["kernel"], "kernel", KERNELS)
    out["gamma"] = check_positive(fields["gamma"], "Model.gamma", allow_zero=True)
    out["degree"] = check_positive(fields["degree"], "Model.degree", integer=True,
                                   allow_zero=True)
    out["coef0"] = check_real(fields["coef0"], "Model.coef0")
    n_features = fields["n_features"]
    if isinstance(n_features, (bool, np.bool_)) or not isinstance(n_features,
                                                                  numbers.Integral):
        raise TypeError(f"Model.n_features must be an integer, got {n_features!r}")
    if n_features < 0:
        raise ValueError(f"Model.n_features must be >= 0, got {n_features}")
    out["n_features"] = n_features = int(n_features)

    sv_coef = np.ascontiguousarray(fields["sv_coef"], dtype=np.float64)
    if sv_coef.ndim == 1:
        sv_coef = sv_coef[None, :]
    if sv_coef.ndim != 2:
        raise ValueError(f"Model.sv_coef must be 2-D, got shape {sv_coef.shape}")
    if not all_finite(sv_coef):
        raise ValueError("Model.sv_coef holds NaN or infinity")
    n_sv = sv_coef.shape[1]

    classes = np.asarray(fields["classes"])
    if classes.ndim != 1:
        raise ValueError(f"Model.classes must be 1-D, got shape {classes.shape}")
    if svm_type in CLASSIFICATION_TYPES:
        k = len(classes)
        if k < 1:
            raise ValueError(f"Model.classes is empty; a {svm_type} model has classes")
        # with counts, np.unique skips its test for masked arrays, whose import of
        # numpy.ma (15-30 ms) a command would otherwise pay here
        if len(np.unique(classes, return_counts=True)[0]) != k:
            raise ValueError(f"Model.classes repeats a label: {classes.tolist()}")
        n_support = _index_vector(fields["n_support"], "n_support", k)
        if n_support.sum() != n_sv:
            raise ValueError(f"Model.n_support adds up to {int(n_support.sum())} support "
                             f"vectors, but sv_coef has {n_sv}")
        rows, n_pairs = max(k - 1, 1), ovo.n_pairs(k)
    else:
        if len(classes) or len(np.asarray(fields["n_support"])):
            raise ValueError(f"Model.classes and Model.n_support are for classification; "
                             f"a {svm_type} model has none")
        n_support = np.zeros(0, dtype=np.int64)
        rows, n_pairs = 1, 1
    if sv_coef.shape[0] != rows:
        raise ValueError(f"Model.sv_coef has shape {sv_coef.shape}; this model needs "
                         f"({rows}, n_SV)")
    out["classes"], out["n_support"], out["sv_coef"] = classes, n_support, sv_coef
    out["rho"] = _finite_vector(fields["rho"], "rho", n_pairs)

    probability_length = n_pairs if svm_type in CLASSIFICATION_TYPES else None
    for name in ("probA", "probB", "prob_density_marks"):
        if fields[name] is not None:
            length = None if name == "prob_density_marks" else probability_length
            out[name] = _finite_vector(fields[name], name, length)

    support = fields["support"]
    if kernel == "precomputed":
        if support is None:
            raise ValueError("a precomputed-kernel Model needs `support`, the training "
                             "row of each support vector")
        out["support"] = _index_vector(support, "support", n_sv, upper=n_features)
        if n_features > INT_MAX:
            raise ValueError(f"Model.n_features {n_features} is beyond a C int")
        out["support_vectors"] = None
    else:
        if support is not None:
            out["support"] = _index_vector(support, "support", n_sv)
        SV = fields["support_vectors"]
        if SV is None:
            raise ValueError(f"a {kernel}-kernel Model needs its support_vectors")
        try:
            SV = check_data(SV, "Model.support_vectors", allow_empty=True)
        except (TypeError, ValueError) as exc:
            raise type(exc)(str(exc)) from None
        if SV.shape != (n_sv, n_features):
            raise ValueError(f"Model.support_vectors has shape {SV.shape}; sv_coef and "
                             f"n_features say ({n_sv}, {n_features})")
        out["support_vectors"] = SV
    for name in PER_PROBLEM_FIELDS:
        out[name] = list(fields[name])
    return out
