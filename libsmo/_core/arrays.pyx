# cython: language_level=3
"""Array utilities of the Python boundary, as typed loops: the checks and conversions
that validation and the kernel's data layout need, each one pass over the stored values
without numpy temporaries (a ufunc call costs microseconds per array on a small fit).

- `squared_norms`: |x|^2 of every row, summed feature by feature as LIBSVM sums them;
- `compressed_is_canonical` / `csr_is_canonical`: whether CSR (CSC, BSR) arrays
  describe a matrix of their shape, and whether every row's column indices rise
  strictly (the layout the row accessor reads);
- `all_finite`: no NaN or infinity in a float64 array;
- `csr_to_dense`: a CSR matrix as a C-contiguous float64 array.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport isfinite

cnp.import_array()


def squared_norms(X):
    """Squared Euclidean norm of every row, summed feature by feature (LIBSVM's order).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix or array-like of shape (n, d)
        CSR sums its stored values in their order (sorted indices: feature order).

    Returns
    -------
    ndarray of shape (n,)
    """
    cdef Py_ssize_t i, f
    cdef long long p
    cdef double s
    cdef const double[::1] values
    cdef const long long[::1] indptr
    cdef const double[:, :] dense
    out = np.empty(X.shape[0])
    cdef double[::1] sq = out
    if hasattr(X, "indptr"):
        values = np.asarray(X.data, dtype=np.float64)
        indptr = np.asarray(X.indptr, dtype=np.int64)
        with nogil:
            for i in range(sq.shape[0]):
                s = 0.0
                for p in range(indptr[i], indptr[i + 1]):
                    s += values[p] * values[p]
                sq[i] = s
    else:
        dense = np.asarray(X, dtype=np.float64)
        with nogil:
            for i in range(sq.shape[0]):
                s = 0.0
                for f in range(dense.shape[1]):
                    s += dense[i, f] * dense[i, f]
                sq[i] = s
    return out


ctypedef fused csr_index:
    int
    long long


cdef Py_ssize_t _scan_csr_rows(const long long[::1] indptr, const csr_index[::1] indices,
                               long long n_columns, bint* canonical) noexcept nogil:
    """The first row whose index pointers decrease or pass the stored values, or that
    holds a column index outside [0, n_columns), else -1; *canonical tells whether every
    row's indices rise strictly."""
    cdef Py_ssize_t i
    cdef long long p
    canonical[0] = True
    for i in range(indptr.shape[0] - 1):
        if indptr[i + 1] < indptr[i] or indptr[i + 1] > indices.shape[0]:
            return i
        for p in range(indptr[i], indptr[i + 1]):
            if indices[p] < 0 or indices[p] >= n_columns:
                return i
            if p > indptr[i] and indices[p] <= indices[p - 1]:
                canonical[0] = False
    return -1


def compressed_is_canonical(indptr, indices, long long n_values, long long n_major,
                            long long n_minor, str line="row"):
    """Whether compressed sparse arrays (CSR: major = rows; CSC: major = columns; BSR:
    block rows) describe a matrix of n_major x n_minor, and whether every major line's
    minor indices rise strictly (sorted, no duplicates).

    Parameters
    ----------
    indptr, indices : 1-D integer arrays
    n_values : int
        Entries (or blocks) stored: the length the data must have.
    n_major, n_minor : int
    line : str
        What a major line is called in messages ("row", "column", "block row").

    Returns
    -------
    bool
        Whether the indices rise strictly within every line.

    Raises
    ------
    ValueError
        The arrays do not describe such a matrix: index pointers that do not rise from
        0 to the number of stored values, or a minor index outside [0, n_minor). scipy
        does not check these when it builds a matrix from arrays or when one is edited
        in place, and its conversions and products (like the kernel) would read or
        write outside their buffers.
    """
    for what, arr in (("index pointers", indptr), ("indices", indices)):
        arr = np.asarray(arr)
        if arr.ndim != 1 or arr.dtype.kind not in "iu":
            raise ValueError(f"{what} must be a 1-D integer array, got {arr.dtype} of "
                             f"shape {arr.shape}")
    # (unsigned values beyond 2**63 wrap to negative int64 here, which the scan refuses)
    cdef const long long[::1] ptr = np.ascontiguousarray(indptr, dtype=np.int64)
    cdef long long n_stored = len(indices)
    cdef Py_ssize_t bad_line
    cdef bint canonical
    cdef const int[::1] indices32
    cdef const long long[::1] indices64
    if ptr.shape[0] != n_major + 1:
        raise ValueError(f"{ptr.shape[0]} index pointers for {n_major} {line}s")
    if n_major >= 0 and (ptr[0] != 0 or ptr[n_major] != n_stored):
        raise ValueError(f"index pointers run from {ptr[0]} to {ptr[n_major]} over "
                         f"{n_major} {line}s for {n_stored} stored values")
    if n_values != n_stored:
        raise ValueError(f"{n_stored} indices for {n_values} stored values")
    if np.asarray(indices).dtype == np.int32:
        indices32 = np.ascontiguousarray(indices)
        with nogil:
            bad_line = _scan_csr_rows(ptr, indices32, n_minor, &canonical)
    else:
        indices64 = np.ascontiguousarray(indices, dtype=np.int64)
        with nogil:
            bad_line = _scan_csr_rows(ptr, indices64, n_minor, &canonical)
    if bad_line >= 0:
        minor = {"row": "column", "column": "row"}.get(line, "block column")
        raise ValueError(f"{line} {bad_line} has index pointers that decrease or pass the "
                         f"stored values, or a {minor} index outside [0, {n_minor})")
    return canonical


def csr_is_canonical(X):
    """Whether a CSR matrix's rows hold strictly increasing column indices (sorted, no
    duplicates): the layout the sparse rows are read in, where a row scattered into a
    dense buffer cannot overwrite itself and sums run in feature order.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix
        With int32 or int64 indices.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        The arrays do not describe a CSR matrix of X's shape (see
        `compressed_is_canonical`).
    """
    return compressed_is_canonical(X.indptr, X.indices, len(X.data), X.shape[0],
                                   X.shape[1])


def check_lengths(long long n, str what, **arrays):
    """Raise ValueError unless every array has shape (n,): the solvers index their
    arrays by variable without bounds checks.

    Parameters
    ----------
    n : int
        The number of variables.
    what : str
        What n counts, for the message ("Q's variables", "rows").
    **arrays : array-like
        The arrays by name.
    """
    for name, values in arrays.items():
        if np.shape(values) != (n,):
            raise ValueError(f"{name} must have shape ({n},) ({what}), "
                             f"got {np.shape(values)}")


def all_finite(values):
    """Whether every entry of a C-contiguous float64 array is finite (NaN or infinity in
    the data would make kernel values NaN).

    Parameters
    ----------
    values : ndarray of float64, C-contiguous, any shape

    Returns
    -------
    bool
    """
    cdef const double[::1] flat = values.reshape(-1)
    cdef Py_ssize_t k
    cdef bint finite = True
    with nogil:
        for k in range(flat.shape[0]):
            if not isfinite(flat[k]):
                finite = False
                break
    return finite


def first_above(const double[::1] values, double limit):
    """The index of the first entry that is not <= limit (NaN included), or -1.

    Parameters
    ----------
    values : ndarray of float64, 1-D, C-contiguous
    limit : float

    Returns
    -------
    int
    """
    cdef Py_ssize_t k
    cdef Py_ssize_t found = -1
    with nogil:
        for k in range(values.shape[0]):
            if not values[k] <= limit:
                found = k
                break
    return found


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
    """
    cdef const long long[::1] ptr = np.asarray(indptr, dtype=np.int64)
    cdef Py_ssize_t n = rows.shape[0], n_rows = ptr.shape[0] - 1, r
    cdef long long p, total = 0
    for r in range(n):
        if rows[r] < 0 or rows[r] >= n_rows:
            raise IndexError(f"row {rows[r]} is outside the {n_rows} rows")
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
    """
    cdef const double[::1] values = np.asarray(X.data, dtype=np.float64)
    cdef const int[::1] indices = np.asarray(X.indices, dtype=np.int32)
    cdef const long long[::1] indptr = np.asarray(X.indptr, dtype=np.int64)
    out = np.zeros(X.shape)
    cdef double[:, ::1] dense = out
    cdef Py_ssize_t i
    cdef long long p
    with nogil:
        for i in range(dense.shape[0]):
            for p in range(indptr[i], indptr[i + 1]):
                dense[i, indices[p]] += values[p]
    return out
