"""Shared fixtures: heart_scale, the dense/CSR `layout` parameter, and one OpenMP thread
for libsvm-official. Helpers live in the `helpers` package beside this file (data sets,
layouts, peers)."""
import ctypes

import pytest

from helpers.data import load_dataset
from helpers.layouts import LAYOUTS


@pytest.fixture
def heart_scale():
    """heart_scale (270 x 13, labels +1/-1) as CSR."""
    return load_dataset("heart_scale")


@pytest.fixture(scope="session", autouse=True)
def single_threaded_libsvm():
    """libsvm-official 3.37 computes each kernel row in an OpenMP loop; on a machine
    whose cores are busy its threads wait for each other, and a fit or a prediction
    takes tens to hundreds of times longer (a9a, 8000 rows, linear: 35 s instead of
    under 1 s). One OpenMP thread for the whole session, restored afterwards; libsmo's
    own threads are set explicitly by its n_threads."""
    try:
        gomp = ctypes.CDLL("libgomp.so.1")
    except OSError:
        yield
        return
    before = gomp.omp_get_max_threads()
    gomp.omp_set_num_threads(1)
    yield
    gomp.omp_set_num_threads(before)


@pytest.fixture(params=LAYOUTS)
def layout(request):
    """Runs a test once on dense and once on CSR input (see `helpers.layouts.in_layout`)."""
    return request.param
