"""What the example scripts share."""
import hashlib
import lzma
import os
import shutil
import tempfile
from pathlib import Path

from threadpoolctl import threadpool_limits

# The examples' folder and the repository, from this module's own path: the scripts
# themselves also run under sphinx-gallery, which gives them no __file__.
EXAMPLES = Path(__file__).resolve().parent
REPO = EXAMPLES.parent
CACHE = Path(os.environ.get("LIBSMO_DATA_CACHE",
                            Path(tempfile.gettempdir()) / "libsmo-data-cache"))


def decompressed(source):
    """Path of the xz file `source` decompressed into CACHE (never beside the original),
    once, and again when the source is newer.

    The copy sits in a subfolder named after the source's folder: the repository's
    tests/data keeps only the first rows of some sets under the full sets' names, and a
    cache keyed by name alone served those first rows to a full run.
    """
    source = Path(source).resolve()
    tag = hashlib.sha1(str(source.parent).encode()).hexdigest()[:8]
    target = CACHE / tag / source.stem
    if not target.exists() or target.stat().st_mtime < source.stat().st_mtime:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{source.stem}.")
        try:
            with os.fdopen(fd, "wb") as out, lzma.open(source) as src:
                shutil.copyfileobj(src, out)
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
    return target


def one_blas_thread():
    """OpenBLAS on one thread, as libsmo's own n_threads=1: on a machine whose cores are
    busy with other work, OpenBLAS's threads in the dense kernel rows (dgemv) wait for
    each other and slowed the linear SVM on random features up to 30 times. (The fix
    belongs in libsmo's kernel; until then the examples limit BLAS themselves.)"""
    return threadpool_limits(limits=1, user_api="blas")
