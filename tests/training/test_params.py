"""The parameter objects of a training (`libsmo.training._params`): `TrainParams` with its
`KernelParams` and `SolverParams`, frozen dataclasses checked against the declarative
tables of `libsmo._utils.constraints` when they are made.

Defaults are LIBSVM's (read from libsvm-official's own svm_parameter); every constraint
of the three tables refuses what it should, with the parameter's name and value in the
message, TypeError for a wrong type and ValueError for a wrong value; unknown names,
changed copies, frozen fields, gamma=None, the primal policy of each linear_solver,
kernel and svm_type, and the combinations that do not apply.
"""
import dataclasses
import os
import re
import warnings

import numpy as np
import pytest

from libsmo._utils.names import CLASSIFICATION_TYPES, KERNELS, SVM_TYPES
from libsmo.training._params import (
    FORMULATION_CONSTRAINTS,
    KERNEL_CONSTRAINTS,
    LINEAR_SOLVERS,
    SOLVER_CONSTRAINTS,
    KernelParams,
    RowPaths,
    SolverParams,
    TrainParams,
)


def test_defaults_are_libsvms():
    """svm-train's defaults, as libsvm-official's svm_parameter sets them."""
    from libsvm.svm import svm_parameter
    theirs = svm_parameter()
    ours = TrainParams()
    assert ours.svm_type == SVM_TYPES[theirs.svm_type] == "c_svc"
    assert ours.kernel.kernel == KERNELS[theirs.kernel_type] == "rbf"
    assert ours.kernel.degree == theirs.degree
    assert ours.kernel.coef0 == theirs.coef0
    # LIBSVM's gamma 0 stands for 1 / n_features, as libsmo's None does
    assert theirs.gamma == 0 and ours.kernel.gamma is None
    assert ours.kernel.for_data(8).gamma == 1 / 8
    assert ours.C == theirs.C and ours.nu == theirs.nu and ours.epsilon == theirs.p
    assert ours.solver.tol == theirs.eps and ours.solver.cache_size == theirs.cache_size
    assert ours.solver.shrinking is bool(theirs.shrinking) is True
    assert ours.probability is bool(theirs.probability) is False
    assert ours.class_weight is None and theirs.nr_weight == 0
    # libsmo's own: LIBSVM's selection, its step cap, one thread, no stopping early
    assert ours.solver.selection == "second_order" and ours.solver.max_iter is None
    assert ours.solver.step_cap(5) == 10**7 and ours.solver.step_cap(200_000) == 2 * 10**7
    assert (ours.solver.n_threads, ours.solver.linear_solver) == (1, "auto")
    assert ours.solver.callback is None and ours.solver.time_limit is None
    assert ours == TrainParams.from_kwargs()


# (name, bad value, exception): at least one for every constraint of the three tables
BAD = [
    ("kernel", "gauss", ValueError), ("kernel", "RBF", ValueError),
    ("gamma", -1.0, ValueError), ("gamma", float("nan"), ValueError),
    ("gamma", "0.1", TypeError),
    ("degree", -1, ValueError), ("degree", 2.5, TypeError), ("degree", True, TypeError),
    ("coef0", float("inf"), ValueError), ("coef0", "0", TypeError),
    ("tol", 0, ValueError), ("tol", float("nan"), ValueError), ("tol", True, TypeError),
    ("cache_size", 0, ValueError), ("cache_size", -1.0, ValueError),
    ("cache_size", "100", TypeError),
    ("shrinking", 1, TypeError), ("shrinking", "yes", TypeError),
    ("selection", "wss3", ValueError),
    ("max_iter", 0, ValueError), ("max_iter", -2, ValueError), ("max_iter", 2**31, ValueError),
    ("max_iter", 10.0, TypeError),
    ("time_limit", 0, ValueError), ("time_limit", -1.0, ValueError),
    ("time_limit", "1", TypeError),
    ("callback", 3, TypeError), ("callback", "print", TypeError),
    ("callback_every", 0, ValueError), ("callback_every", 2.0, TypeError),
    ("n_threads", 0, ValueError), ("n_threads", 1.5, TypeError),
    ("n_jobs", 0, ValueError), ("n_jobs", 1.5, TypeError),
    ("linear_solver", "dual", ValueError), ("flavor", "scikit-learn", ValueError),
    ("svm_type", "svc", ValueError),
    ("C", 0, ValueError), ("C", -1.0, ValueError), ("C", "1", TypeError),
    ("nu", 0, ValueError), ("nu", 1.5, ValueError), ("nu", "0.5", TypeError),
    ("epsilon", -0.1, ValueError), ("epsilon", None, TypeError),
    ("class_weight", {1: 0}, ValueError), ("class_weight", {"a": "2"}, TypeError),
    ("probability", 1, TypeError),
    ("random_state", -1, ValueError), ("random_state", "a", TypeError),
    ("random_state", 1.5, TypeError),
    ("random_state", np.random.RandomState(0), TypeError),
    ("row_paths", {"bit_rows": False}, TypeError),
    ("solver", "cascade", ValueError), ("partitions", 0, ValueError),
    ("partitions", "many", ValueError), ("partitions", 2.5, TypeError),
    ("partitioning", "clustered", ValueError), ("progress_bar", 1, TypeError),
]
ACCEPTS_ANYTHING = {"verbose"}   # read as a bool


def test_every_constraint_has_a_bad_value_here():
    tables = {**KERNEL_CONSTRAINTS, **SOLVER_CONSTRAINTS, **FORMULATION_CONSTRAINTS}
    assert {name for name, _, _ in BAD} | ACCEPTS_ANYTHING == set(tables)


def owner(name):
    """The dataclass whose table holds `name`."""
    if name in KERNEL_CONSTRAINTS:
        return KernelParams
    return SolverParams if name in SOLVER_CONSTRAINTS else TrainParams


@pytest.mark.parametrize("name, value, exc", BAD,
                         ids=[f"{n}={v!r}" for n, v, _ in BAD])
def test_each_constraint_refuses_with_name_and_value(name, value, exc):
    for make in (owner(name), TrainParams.from_kwargs):
        with pytest.raises(exc) as caught:
            make(**{name: value})
        assert type(caught.value) is exc
        message = str(caught.value)
        assert message.startswith(name), message
        shown = (repr(value) if not isinstance(value, dict)
                 else repr(next(iter(value.values()))))
        assert shown in message, message


@pytest.mark.parametrize("name, value, exc", [
    ("bit_rows", 1, TypeError), ("int_rows", "yes", TypeError),
    ("sparse_columns", None, TypeError), ("rows_together", 0, ValueError),
    ("rows_together", 2.0, TypeError), ("rows_together_min_bytes", -1, ValueError),
])
def test_row_paths_refuse_with_name_and_value(name, value, exc):
    with pytest.raises(exc, match=f"^{name}.*{value!r}"):
        RowPaths(**{name: value})


def test_class_weight_must_be_a_dict():
    with pytest.raises(TypeError, match=r"^class_weight must be a dict label -> weight, "
                                        r"got list$"):
        TrainParams(class_weight=[1.0, 2.0])


@pytest.mark.parametrize("name", ["kernel", "svm_type"])
def test_a_choice_of_the_wrong_type_is_a_type_error(name):
    with pytest.raises(TypeError, match=re.escape(name)):
        TrainParams.from_kwargs(**{name: 2})


def test_values_are_normalised():
    params = TrainParams.from_kwargs(C=2, degree=np.int64(2), max_iter=np.int32(50),
                                     gamma=np.float64(0.5), verbose=1,
                                     shrinking=np.bool_(False), random_state=np.int64(3))
    assert type(params.C) is float and params.C == 2.0
    assert type(params.kernel.degree) is int and params.kernel.degree == 2
    assert type(params.solver.max_iter) is int and params.solver.max_iter == 50
    assert type(params.kernel.gamma) is float and params.kernel.gamma == 0.5
    assert params.solver.verbose is True and params.solver.shrinking is False
    assert type(params.random_state) is int
    assert SolverParams(n_threads=None).n_threads == (os.cpu_count() or 1)


@pytest.mark.parametrize("name", ["C", "gamma"])
def test_numpy_float32_values_are_taken_without_a_warning(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        params = TrainParams.from_kwargs(**{name: np.float32(0.5)})
    assert params.as_kwargs()[name] == 0.5


def test_from_kwargs_refuses_unknown_names():
    with pytest.raises(TypeError, match=r"^unknown parameter 'Cee'$"):
        TrainParams.from_kwargs(C=1.0, Cee=2.0)
    # sample weights are data, not parameters
    with pytest.raises(TypeError, match=r"^unknown parameter 'sample_weight'$"):
        TrainParams.from_kwargs(sample_weight=[1.0])


def test_from_kwargs_sorts_the_keywords_into_the_three_objects():
    params = TrainParams.from_kwargs(svm_type="nu_svc", nu=0.3, kernel="poly", degree=2,
                                     tol=1e-5, selection="platt", probability=True)
    assert (params.svm_type, params.nu, params.probability) == ("nu_svc", 0.3, True)
    assert params.kernel == KernelParams(kernel="poly", degree=2)
    assert params.solver == SolverParams(tol=1e-5, selection="platt")
    assert TrainParams.from_kwargs(**params.as_kwargs()) == params


def test_replace_changes_a_copy_and_checks_it_again():
    params = TrainParams.from_kwargs(kernel="linear", linear_solver="primal")
    changed = params.replace(C=2.0, tol=1e-4, gamma=0.5)
    assert (changed.C, changed.solver.tol, changed.kernel.gamma) == (2.0, 1e-4, 0.5)
    assert (params.C, params.solver.tol, params.kernel.gamma) == (1.0, 1e-3, None)
    with pytest.raises(ValueError, match=r"^C must be > 0 \(inf allowed\), got -1"):
        params.replace(C=-1)
    # a combination that no longer applies
    with pytest.raises(ValueError, match="linear_solver='primal' needs kernel='linear'"):
        params.replace(kernel="rbf")
    with pytest.raises(TypeError, match="unknown parameter 'c'"):
        params.replace(c=2.0)
    # dataclasses.replace on any of the three checks again too
    with pytest.raises(ValueError, match=r"^tol must be finite and > 0"):
        dataclasses.replace(params.solver, tol=-1.0)
    with pytest.raises(ValueError, match=r"^gamma must be finite and >= 0"):
        dataclasses.replace(params.kernel, gamma=-1.0)


@pytest.mark.parametrize("obj, field", [(TrainParams(), "C"), (KernelParams(), "gamma"),
                                        (SolverParams(), "tol")])
def test_frozen(obj, field):
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(obj, field, 2.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        obj.new_field = 1


def test_for_data_resolves_gamma_none_only():
    assert KernelParams().for_data(4).gamma == 0.25
    assert KernelParams(kernel="poly", degree=5).for_data(3) == KernelParams(
        kernel="poly", degree=5, gamma=1 / 3)
    assert KernelParams().for_data(0).gamma == 0.0
    given = KernelParams(gamma=0.7)
    assert given.for_data(4) is given
    assert KernelParams(gamma=0.0).for_data(4).gamma == 0.0


PRIMAL_TYPES = ("c_svc", "one_class")


@pytest.mark.parametrize("linear_solver", LINEAR_SOLVERS)
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("svm_type", SVM_TYPES)
def test_primal_policy_and_where_primal_applies(svm_type, kernel, linear_solver):
    applies = kernel == "linear" and svm_type in PRIMAL_TYPES
    kwargs = dict(svm_type=svm_type, kernel=kernel, linear_solver=linear_solver)
    if linear_solver == "primal" and not applies:
        with pytest.raises(ValueError, match=rf"^linear_solver='primal' needs kernel="
                                             rf"'linear' and svm_type 'c_svc' or "
                                             rf"'one_class'; got kernel='{kernel}', "
                                             rf"svm_type='{svm_type}'$"):
            TrainParams.from_kwargs(**kwargs)
        return
    expected = ({"auto": "large", "primal": "always", "kernel": "never"}[linear_solver]
                if applies else "never")
    assert TrainParams.from_kwargs(**kwargs).primal_policy == expected


@pytest.mark.parametrize("svm_type", SVM_TYPES)
def test_class_weight_only_for_classification(svm_type):
    if svm_type in CLASSIFICATION_TYPES:
        params = TrainParams(svm_type=svm_type, class_weight={1: 2})
        assert params.class_weight == {1: 2.0}
        return
    with pytest.raises(ValueError, match=rf"^class_weight applies to classification, not "
                                         rf"svm_type='{svm_type}'$"):
        TrainParams.from_kwargs(svm_type=svm_type, class_weight={1: 2.0})
    assert TrainParams(svm_type=svm_type, class_weight=None).class_weight is None


def test_step_cap():
    assert SolverParams(max_iter=7).step_cap(10**6) == 7
    assert SolverParams(max_iter=-1).step_cap(10**6) == -1      # no limit
    assert SolverParams().step_cap(100_001) == 10_000_100
