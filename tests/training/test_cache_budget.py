"""`cache_size="auto"` (`libsmo._utils.cache_budget`): the default of `libsmo.train` and the
estimators, `-m auto` of the commands. A number keeps LIBSVM's meaning (megabytes);
"auto" is bounded by half of the available memory, each problem's cache by its whole Q,
and it never changes a step or a model: only which rows are computed again."""
import numpy as np
import pytest

import libsmo
from helpers.data import load_fashion_mnist
from libsmo._utils import cache_budget as budget
from libsmo.training import _execution as execution
from libsmo.training._params import TrainParams


def test_auto_is_half_of_the_available_memory():
    assert budget.AUTO_MEMORY_FRACTION == 0.5
    assert budget.auto_megabytes(available=10_000.0) == 5_000.0
    assert budget.auto_megabytes(available=150.0) == budget.AUTO_MIN_MB   # never below
    available = budget.available_megabytes()
    assert available is None or available > 0
    expected = (budget.AUTO_FALLBACK_MB if available is None
                else max(budget.AUTO_MIN_MB, available / 2))
    # the memory moves between two readings: within 5% of it
    assert budget.budget_megabytes("auto") == pytest.approx(expected, rel=0.05)
    assert budget.budget_megabytes("auto", share=4) == pytest.approx(expected / 4, rel=0.05)


def test_memavailable_is_read_where_linux_has_it(monkeypatch, tmp_path):
    """/proc/meminfo's MemAvailable (kB) when it can be read, else os.sysconf's free
    pages, else nothing (and then AUTO_FALLBACK_MB)."""
    assert budget.MEMINFO_PATH == "/proc/meminfo"
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24684544 kB\nMemFree:  1000 kB\n"
                       "MemAvailable:   2097152 kB\n")
    monkeypatch.setattr(budget, "MEMINFO_PATH", str(meminfo))
    assert budget.available_megabytes() == 2048.0
    assert budget.budget_megabytes("auto") == 1024.0
    meminfo.write_text("MemTotal: 1 kB\n")
    monkeypatch.setattr(budget.os, "sysconf", lambda name: {
        "SC_AVPHYS_PAGES": 1024, "SC_PAGE_SIZE": 4096}[name])
    assert budget.available_megabytes() == 4.0

    def no_sysconf(name):
        raise ValueError(name)
    monkeypatch.setattr(budget.os, "sysconf", no_sysconf)
    assert budget.available_megabytes() is None
    assert budget.budget_megabytes("auto") == budget.AUTO_FALLBACK_MB


def test_auto_is_the_default_of_train_and_the_estimators():
    import inspect
    assert inspect.signature(libsmo.train).parameters["cache_size"].default == "auto"
    for cls in (libsmo.SVC, libsmo.NuSVC, libsmo.SVR, libsmo.NuSVR, libsmo.OneClassSVM):
        assert cls().cache_size == "auto"
    # the parameter object keeps svm-train's -m 100 (the commands')
    assert TrainParams().solver.cache_size == 100.0
    assert TrainParams.from_kwargs(cache_size="auto").solver.cache_size == "auto"
    assert TrainParams.from_kwargs(cache_size=50).solver.cache_size == 50.0
    for bad, exc in [("big", TypeError), ("AUTO", TypeError), (0, ValueError),
                     (float("nan"), ValueError), (None, TypeError)]:
        with pytest.raises(exc, match="cache_size"):
            TrainParams.from_kwargs(cache_size=bad)


def test_the_executor_bounds_auto_and_keeps_the_solver_choice(monkeypatch):
    """An executor turns "auto" into the bound it reads once; each problem's cache is
    then at most its whole Q (`execution.cache_megabytes`); the linear kernel's
    solver is chosen as with 200 MB, whatever the machine's memory."""
    monkeypatch.setattr(budget, "available_megabytes", lambda: 3000.0)
    params = TrainParams.from_kwargs(cache_size="auto", kernel="linear")
    kernel = params.kernel.for_data(4)
    executor = execution.Executor(np.zeros((10, 4)), kernel, params.solver, "large")
    assert executor.solver.cache_size == 1500.0
    assert executor.policy_cache_size == budget.AUTO_POLICY_MB == 200.0
    assert execution.cache_megabytes(1500.0, 1000) == pytest.approx(
        (4.0 * 1000**2 + 20.0 * 1000) / 2**20)
    monkeypatch.setattr(budget, "available_megabytes", lambda: 50_000.0)
    again = execution.Executor(np.zeros((10, 4)), kernel, params.solver, "large")
    assert again.policy_cache_size == 200.0


def test_auto_fits_the_model_of_every_number():
    """On 1,500 Fashion-MNIST images (ten classes, 45 pairs), "auto" gives the model of
    100 MB and of a cache of two rows, bit for bit (n_iter, sv_coef, rho)."""
    X, y = load_fashion_mnist("train", n_rows=1500)
    fits = [libsmo.train(X, y, C=10.0, gamma=0.0102, cache_size=size)
            for size in ("auto", 100, 1e-6)]
    for m in fits[1:]:
        assert m.n_iter == fits[0].n_iter
        np.testing.assert_array_equal(m.sv_coef, fits[0].sv_coef)
        np.testing.assert_array_equal(m.rho, fits[0].rho)
