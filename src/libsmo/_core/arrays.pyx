# cython: language_level=3
"""Conversions of the caller's arrays that validation and the kernel's data layout
need, as typed loops (one pass over the stored values, no numpy temporaries):

- `squared_norms`: |x|^2 of every row, summed feature by feature as LIBSVM sums them;
- `row_ranges`: where some CSR rows' values are, for gathering them;
- `csr_to_dense`: a CSR matrix as a C-contiguous float64 array.

Their arguments are checked by `libsmo._core.checks` first.
"""
import numpy as np
cimport numpy as cnp

from libsmo._core.checks import checked_indptr, csr_arrays, matrix_shape

cnp.import_array()


def squared_norms(X):
    """Squared Euclidean norm of every row, summed feature by feature (LIBSVM's order).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix or array-like of shape (n, d)
        CSR sums its stored values in their order (sorted indices: feature order); a
        uint8 array's rows are summed exactly in integers, without a copy.

    Returns
    -------
    ndarray of shape (n,)

    Raises
    ------
    ValueError
        X is not 2-D, or CSR index pointers that do not rise within the stored values
        (`checked_indptr`).
    """
    cdef Py_ssize_t i, f
    cdef long long p
    cdef double s
    cdef const double[::1] values
    cdef const long long[::1] indptr
    cdef const double[:, :] dense
    cdef const unsigned char[:, :] byte_rows
    cdef long long whole
    out = np.empty(matrix_shape(X)[0])
    cdef double[::1] sq = out
    if hasattr(X, "indptr"):
        values = np.asarray(X.data, dtype=np.float64)
        indptr = checked_indptr(X.indptr, sq.shape[0], values.shape[0])
        with nogil:
            for i in range(sq.shape[0]):
                s = 0.0
                for p in range(indptr[i], indptr[i + 1]):
                    s += values[p] * values[p]
                sq[i] = s
    elif isinstance(X, np.ndarray) and X.dtype == np.uint8:
        byte_rows = X
        with nogil:
            for i in range(sq.shape[0]):
                whole = 0
                for f in range(byte_rows.shape[1]):
                    whole += <long long>byte_rows[i, f] * byte_rows[i, f]
                sq[i] = <double>whole
    else:
        dense = np.asarray(X, dtype=np.float64)
        with nogil:
            for i in range(sq.shape[0]):
                s = 0.0
                for f in range(dense.shape[1]):
                    s += dense[i, f] * dense[i, f]
                sq[i] = s
    return out


def row_ranges(indptr, const long long[::1] rows):
    """Where the stored values of some rows of a compressed matrix are: the positions
    of rows[0]'s values, then rows[1]'s, ..., and the index pointer of those rows as a
    matrix of their own.

    Parameters
    ----------
    indptr : ndarray of int
        The matrix's index pointer (n_rows + 1 entries).
    rows : ndarray of int64
        Row indices in [0, n_rows), any order, repeats allowed.

    Returns
    -------
    positions : ndarray of int64
    new_indptr : ndarray of int64 of len(rows) + 1

    Raises
    ------
    IndexError
        A row index is outside [0, n_rows).
    ValueError
        The index pointers decrease at one of the rows.
    """
    cdef const long long[::1] ptr = np.asarray(indptr, dtype=np.int64)
    cdef Py_ssize_t n = rows.shape[0], n_rows = ptr.shape[0] - 1, r
    cdef long long p, total = 0
    for r in range(n):
        if rows[r] < 0 or rows[r] >= n_rows:
            raise IndexError(f"row {rows[r]} is outside the {n_rows} rows")
        if ptr[rows[r] + 1] < ptr[rows[r]]:   # (total would not count what is written)
            raise ValueError(f"indptr decreases at row {rows[r]}")
        total += ptr[rows[r] + 1] - ptr[rows[r]]
    out_positions = np.empty(total, dtype=np.int64)
    out_indptr = np.empty(n + 1, dtype=np.int64)
    cdef long long[::1] positions = out_positions, new_indptr = out_indptr
    cdef long long k = 0
    with nogil:
        new_indptr[0] = 0
        for r in range(n):
            for p in range(ptr[rows[r]], ptr[rows[r] + 1]):
                positions[k] = p
                k += 1
            new_indptr[r + 1] = k
    return out_positions, out_indptr


def csr_to_dense(X):
    """X.toarray() for CSR with int32 indices, as C-contiguous float64 (duplicates are
    summed, as scipy sums them).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix

    Returns
    -------
    ndarray of shape X.shape

    Raises
    ------
    ValueError
        X is not 2-D, or its arrays do not describe CSR rows (`csr_arrays`).
    """
    cdef const double[::1] values
    cdef const int[::1] indices
    cdef const long long[::1] indptr
    values, indices, indptr = csr_arrays(X)
    out = np.zeros(X.shape)
    cdef double[:, ::1] dense = out
    cdef Py_ssize_t i
    cdef long long p
    with nogil:
        for i in range(dense.shape[0]):
            for p in range(indptr[i], indptr[i + 1]):
                dense[i, indices[p]] += values[p]
    return out
