"""scipy.sparse, imported the first time something needs it.

Importing scipy.sparse costs 0.1-0.2 s (scipy 1.17's array-API layer clones numpy, which
imports numpy.f2py and numpy.testing): more than a whole small training, and more than
svm-train's entire run. Dense data never needs scipy, so the modules on the training,
model and file paths reach scipy.sparse through this module instead of importing it:

    from libsmo._utils import sparse as sp

`sp.issparse(X)` answers without importing scipy (an object cannot be a scipy sparse
matrix while scipy.sparse has never been imported); every other name (`sp.csr_matrix`,
`sp.vstack`, ...) imports scipy.sparse on first use and is scipy.sparse's own.
"""
import sys

import numpy as np

_SCIPY_SPARSE = "scipy.sparse"


def issparse(x):
    """Whether `x` is a scipy sparse matrix or array, without importing scipy.

    Parameters
    ----------
    x : object

    Returns
    -------
    bool
    """
    global _SPARSE_TYPES
    if type(x) is np.ndarray:
        # the usual answer without scipy's: its first isinstance test of a class walks
        # every sparse class's subclass hooks (70-80 us, in every first fit on dense
        # data)
        return False
    module = sys.modules.get(_SCIPY_SPARSE)
    if module is None:
        return False
    if _SPARSE_TYPES is None:
        _SPARSE_TYPES = frozenset(getattr(module, f"{fmt}_{kind}")
                                  for fmt in _FORMATS for kind in ("matrix", "array"))
    # scipy's own classes by their type: scipy's test goes through an abstract base
    # class (3 us a call, about 11 calls a fit; 9-40 us the first time a class is seen)
    return type(x) in _SPARSE_TYPES or module.issparse(x)


# scipy.sparse's formats, whose matrix and array classes `issparse` knows by type once
# scipy.sparse is loaded
_FORMATS = ("csr", "csc", "coo", "bsr", "dia", "dok", "lil")
_SPARSE_TYPES = None


def dense_to_csr_arrays(X):
    """The (data, indices, indptr) of a dense matrix's CSR form, as
    `scipy.sparse.csr_matrix(X)` stores it (every value != 0, NaN included, row by
    row), with numpy alone.

    Parameters
    ----------
    X : ndarray of shape (n, d)

    Returns
    -------
    data : ndarray of X's dtype
    indices : ndarray of int64
    indptr : ndarray of int64
    """
    stored = X != 0
    indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.count_nonzero(stored, axis=1), out=indptr[1:])
    return X[stored], np.nonzero(stored)[1].astype(np.int64), indptr


def __getattr__(name):
    # PEP 562: any other name is scipy.sparse's, imported now
    import scipy.sparse
    return getattr(scipy.sparse, name)
