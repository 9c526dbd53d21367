# cython: language_level=3
"""The checks of the Python boundary and of the compiled entries, as typed loops: each
one pass over the stored values without numpy temporaries (a ufunc call costs
microseconds per array on a small fit), and the compiled core indexes without bounds
checks (setup.py) only after them.

- `compressed_is_canonical` / `csr_is_canonical`: whether CSR (CSC, BSR) arrays
  describe a matrix of their shape, and whether every row's column indices rise
  strictly (the layout the row accessor reads);
- `all_finite`: no NaN or infinity in a float64 array; `first_above`: the first value
  over a limit;
- the checks of the compiled entries: `matrix_shape` (2-D), `check_lengths` (one entry
  per variable), `check_indices` (row numbers), `check_range` (a range of rows),
  `checked_indptr`, `check_csr_rows` and `csr_arrays` (CSR extents and column indices).
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport isfinite

cnp.import_array()


ctypedef fused csr_index:
    int
    long long


cdef Py_ssize_t _scan_rows(const long long[::1] starts, const long long[::1] stops,
                           long long n_values, const csr_index[::1] indices,
                           bint scan_indices, long long n_columns, bint* canonical,
                           long long* total) noexcept nogil:
    """The one scan of compressed rows: the first row k whose stored values, positions
    [starts[k], stops[k]), are not within [0, n_values] or (with scan_indices) hold a
    column index outside [0, n_columns); else -1. *total counts the rows' values and
    *canonical tells whether every row's indices rise strictly (with scan_indices)."""
    cdef Py_ssize_t k
    cdef long long p
    canonical[0] = True
    total[0] = 0
    for k in range(starts.shape[0]):
        if starts[k] < 0 or stops[k] < starts[k] or stops[k] > n_values:
            return k
        total[0] += stops[k] - starts[k]
        if scan_indices:
            for p in range(starts[k], stops[k]):
                if indices[p] < 0 or indices[p] >= n_columns:
                    return k
                if p > starts[k] and indices[p] <= indices[p - 1]:
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
    cdef long long n_stored = len(indices), total
    cdef Py_ssize_t bad_line = -1, n_lines = max(ptr.shape[0] - 1, 0)
    cdef bint canonical = True
    cdef const int[::1] indices32
    cdef const long long[::1] indices64
    if ptr.shape[0] != n_major + 1:
        raise ValueError(f"{ptr.shape[0]} index pointers for {n_major} {line}s")
    if n_major >= 0 and (ptr[0] != 0 or ptr[n_major] != n_stored):
        raise ValueError(f"index pointers run from {ptr[0]} to {ptr[n_major]} over "
                         f"{n_major} {line}s for {n_stored} stored values")
    if n_values != n_stored:
        raise ValueError(f"{n_stored} indices for {n_values} stored values")
    if n_lines and np.asarray(indices).dtype == np.int32:
        indices32 = np.ascontiguousarray(indices)
        with nogil:
            bad_line = _scan_rows(ptr[:n_lines], ptr[1:], n_stored, indices32, True,
                                  n_minor, &canonical, &total)
    elif n_lines:
        indices64 = np.ascontiguousarray(indices, dtype=np.int64)
        with nogil:
            bad_line = _scan_rows(ptr[:n_lines], ptr[1:], n_stored, indices64, True,
                                  n_minor, &canonical, &total)
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
        X is not 2-D (a 1-D sparse array), or its arrays do not describe a CSR matrix
        of its shape (see `compressed_is_canonical`).
    """
    n_rows, n_columns = matrix_shape(X)
    return compressed_is_canonical(X.indptr, X.indices, len(X.data), n_rows, n_columns)


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


def check_range(long long start, long long end, str what="rows"):
    """Raise ValueError unless 0 <= start <= end: a range [start, end) of `what` that
    the loops slice and index by (an end past the rows is clamped where they slice)."""
    if not 0 <= start <= end:
        raise ValueError(f"a range of {what} needs 0 <= start <= end, got [{start}, "
                         f"{end})")


def matrix_shape(X, str what="X"):
    """X's shape (n_rows, n_columns), once X is known to be 2-D: the compiled entries
    read X.shape[1], and with bounds checks off (setup.py) a 1-D or 0-d X would be read
    past its shape.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix or array
    what : str
        X's name, for the message.

    Raises
    ------
    ValueError
        X is not 2-D.
    """
    shape = np.shape(X)
    if len(shape) != 2:
        raise ValueError(f"{what} must be 2-D, got shape {shape}")
    return shape


cdef Py_ssize_t _first_outside(const csr_index[::1] values, long long n) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(values.shape[0]):
        if values[k] < 0 or values[k] >= n:
            return k
    return -1


def check_indices(values, long long n, str what, error=IndexError):
    """Raise `error` unless every entry of a 1-D integer array is in [0, n): one typed
    pass (row numbers, positions the loops below index by).

    Parameters
    ----------
    values : 1-D array of int
    n : int
    what : str
        What an entry is, for the message ("row").
    error : type
        The exception (IndexError; ValueError for indices that are data).
    """
    cdef Py_ssize_t bad
    cdef const int[::1] values32
    cdef const long long[::1] values64
    values = np.asarray(values)
    if values.dtype == np.int32:
        values32 = np.ascontiguousarray(values)
        with nogil:
            bad = _first_outside(values32, n)
    else:
        values64 = np.ascontiguousarray(values, dtype=np.int64)
        with nogil:
            bad = _first_outside(values64, n)
    if bad >= 0:
        raise error(f"{what} {values[bad]} is outside [0, {n})")


def check_csr_rows(indices, starts, stops, long long n_values, long long n_columns=0):
    """Raise ValueError unless each row k's stored values, positions [starts[k],
    stops[k]), lie within the n_values stored and (unless indices is None) hold column
    indices in [0, n_columns): one typed pass over those rows' indices, which the loops
    that read the rows then index by without checks.

    Parameters
    ----------
    indices : 1-D array of int32 or int64, or None
    starts, stops : 1-D arrays of int64 of one length
    n_values : int
        The stored values (the shortest of the arrays the rows are read from).
    n_columns : int

    Returns
    -------
    int
        The rows' stored values in all.
    """
    cdef const long long[::1] first = np.ascontiguousarray(starts, dtype=np.int64)
    cdef const long long[::1] last = np.ascontiguousarray(stops, dtype=np.int64)
    cdef const int[::1] columns32
    cdef const long long[::1] columns64
    cdef bint scan = indices is not None, canonical
    cdef Py_ssize_t bad
    cdef long long total
    if first.shape[0] != last.shape[0]:
        raise ValueError(f"{first.shape[0]} row starts for {last.shape[0]} row ends")
    if scan and np.asarray(indices).dtype == np.int64:
        columns64 = np.ascontiguousarray(indices)
        n_values = min(n_values, columns64.shape[0])
        with nogil:
            bad = _scan_rows(first, last, n_values, columns64, True, n_columns,
                             &canonical, &total)
    else:
        # (no indices: an empty int32 view, never read)
        columns32 = np.ascontiguousarray(indices if scan else np.zeros(0, np.int32),
                                         dtype=np.int32)
        n_values = min(n_values, columns32.shape[0]) if scan else n_values
        with nogil:
            bad = _scan_rows(first, last, n_values, columns32, scan, n_columns,
                             &canonical, &total)
    if bad >= 0 and 0 <= first[bad] <= last[bad] <= n_values:
        raise ValueError(f"row {bad} holds a column index outside [0, {n_columns})")
    if bad >= 0:
        raise ValueError(f"row {bad}'s stored values [{first[bad]}, {last[bad]}) are not "
                         f"within the {n_values} stored (index pointers or extents)")
    return total


def checked_indptr(indptr, long long n_rows, long long n_values, indices=None,
                   long long n_columns=0):
    """CSR index pointers as a C-contiguous int64 array, once they are known to rise
    (not strictly) within [0, n_values] over n_rows rows, and, with `indices`, once
    every row's column indices are known to be in [0, n_columns) (`check_csr_rows`):
    the loops that read the rows index by them without checks.

    Parameters
    ----------
    indptr : 1-D array of int
    n_rows : int
    n_values : int
        The stored values.
    indices : 1-D array of int32, optional
    n_columns : int

    Returns
    -------
    ndarray of int64 of shape (n_rows + 1,)

    Raises
    ------
    ValueError
        Another length, pointers that decrease or leave [0, n_values], or a column
        index outside [0, n_columns).
    """
    ptr = np.ascontiguousarray(indptr, dtype=np.int64)
    if ptr.shape != (n_rows + 1,):
        raise ValueError(f"indptr must have shape ({n_rows + 1},) for {n_rows} rows, "
                         f"got {ptr.shape}")
    check_csr_rows(indices, ptr[:-1], ptr[1:], n_values, n_columns)
    return ptr


def csr_arrays(X):
    """The data (float64), column indices (int32) and index pointers (int64) of a
    csr_matrix X, once they are known to describe its rows (`checked_indptr` with the
    indices: one typed pass over them), for the loops that index by them unchecked.

    Raises
    ------
    ValueError
        X is not 2-D, or its arrays do not describe such rows.
    """
    n_rows, n_columns = matrix_shape(X)
    data = np.asarray(X.data, dtype=np.float64)
    indices = np.asarray(X.indices, dtype=np.int32)
    return data, indices, checked_indptr(X.indptr, n_rows, len(data), indices, n_columns)
