"""What the example scripts share."""
from pathlib import Path

from threadpoolctl import threadpool_limits

# The examples' folder and the repository, from this module's own path: the scripts
# themselves also run under sphinx-gallery, which gives them no __file__.
EXAMPLES = Path(__file__).resolve().parent
REPO = EXAMPLES.parent


def one_blas_thread():
    """OpenBLAS on one thread, as libsmo's own n_threads=1: on a machine whose cores are
    busy with other work, OpenBLAS's threads in the dense kernel rows (dgemv) wait for
    each other and slowed the linear SVM on random features up to 30 times. (The fix
    belongs in libsmo's kernel; until then the examples limit BLAS themselves.)"""
    return threadpool_limits(limits=1, user_api="blas")
