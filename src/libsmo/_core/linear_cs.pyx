# cython: language_level=3
"""Crammer and Singer's multi-class linear SVM by dual coordinate descent: LIBLINEAR's
`Solver_MCSVM_CS` (-s 4; Keerthi, Sundararajan, Chang, Hsieh and Lin, KDD 2008, "A
sequential dual method for large scale multi-class linear SVMs"), as scikit-learn's copy
runs it (per-row C_i = C x class weight x sample weight, its random source).

It solves

    min_a  1/2 sum_m |w_m|^2 + sum_i sum_m e_i^m a_i^m
    subject to  a_i^m <= C_i^m,  sum_m a_i^m = 0,   w_m = sum_i a_i^m x_i,

with e_i^m = 0 and C_i^m = C_i for the row's own class m = y_i, e_i^m = 1 and C_i^m = 0
for the others. Each step takes one row's k variables together (a small problem solved
exactly by sorting, `_sub_problem`), visiting the rows in a random order each epoch;
a row's classes whose variable sits at its bound with a gradient below the row's
smallest free one are shrunk, and a row left with one class leaves the epoch; an epoch
whose largest spread of gradients, over the rows it moved, is below tol ends the run
once it started from every row and class (the shrinking's own threshold halves from
max(10 tol, 1) on the way).

w is kept as one row of k weights per feature (LIBLINEAR's layout), the bias as
`LinearRows`'s extra feature. Arithmetic and order are scikit-learn's.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport INFINITY, fabs
from libc.stdint cimport uint32_t
from libc.stdlib cimport qsort
from libsmo._core.checks import check_indices
from libsmo._core.linear_epochs cimport (poll_stop, raise_pending_signal,
                                         shuffle_active, smo_mt19937, smo_mt_seed,
                                         stop_flag_pointer)
from libsmo._core.linear_solution import LinearSolution
from libsmo._core.linear_rows cimport (LinearRows, RowData, at_most, problem_inputs,
                                       row_end, row_start, value_at)

cnp.import_array()


cdef int _descending(const void* a, const void* b) noexcept nogil:
    cdef double x = (<const double*>a)[0], y = (<const double*>b)[0]
    if x > y:
        return -1
    if x < y:
        return 1
    return 0


cdef Py_ssize_t _entries(const RowData* r, Py_ssize_t i, int* cols,
                         double* vals) noexcept nogil:
    """Row i's stored features (dense rows: its non-zeros) and the bias feature last,
    as LIBLINEAR's feature nodes list them. Returns their count."""
    cdef Py_ssize_t n = 0
    cdef long long k, first = row_start(r, i)
    cdef double x
    for k in range(first, row_end(r, i)):
        x = value_at(r, k)
        if x != 0 or r.starts != NULL:
            cols[n] = r.columns[k] if r.starts != NULL else <int>(k - first)
            vals[n] = x
            n += 1
    if r.bias > 0:
        cols[n] = <int>r.d
        vals[n] = r.bias
        n += 1
    return n


cdef Py_ssize_t _most_entries(LinearRows rows):
    """The most entries `_entries` lists for one row (at least 1): the dense rows'
    width or the longest CSR row's stored values, not the features' count, since the
    caller's CSR rows may store a column more than once (scipy's non-canonical format,
    which the linear estimators read in place), and the bias."""
    cdef Py_ssize_t most = rows.n_features
    if rows.sparse and rows.n_rows > 0:
        most = int(np.diff(np.asarray(rows.indptr)).max())
    return max(most + (1 if rows.bias > 0 else 0), 1)


cdef void _sub_problem(double A_i, int yi, double C_yi, int active_i, const double* B,
                       double* D, double* alpha_new) noexcept nogil:
    """The k variables of one row: alpha_new from the gradients' offsets B."""
    cdef int r
    cdef double beta
    for r in range(active_i):
        D[r] = B[r]
    if yi < active_i:
        D[yi] += A_i * C_yi
    qsort(D, active_i, sizeof(double), _descending)
    beta = D[0] - A_i * C_yi
    r = 1
    while r < active_i and beta < r * D[r]:
        beta += D[r]
        r += 1
    beta /= r
    for r in range(active_i):
        if r == yi:
            alpha_new[r] = at_most(C_yi, (beta - B[r]) / A_i)
        else:
            alpha_new[r] = at_most(0.0, (beta - B[r]) / A_i)


cdef inline bint _shrunk(int m, int yi, double alpha_im, double G_m, double C_i,
                         double minG) noexcept nogil:
    cdef double bound = C_i if m == yi else 0.0
    return alpha_im == bound and G_m < minG


def crammer_singer(LinearRows rows not None, order, labels, bounds, int n_classes, *,
                   double tol=0.1, long max_iter=100000, unsigned long seed=0,
                   signed char[::1] stop_flag=None):
    """Minimise Crammer and Singer's multi-class SVM dual by LIBLINEAR's sequential
    dual method.

    Parameters
    ----------
    rows : LinearRows
    order : array of int
        The rows in the problem, in the first epoch's order (grouped by class).
    labels : array of int of shape (n_rows,)
        Each row's class, in [0, n_classes).
    bounds : array of shape (n_rows,)
        C_i of every row; finite and > 0 for the rows in order.
    n_classes : int
        k >= 2.
    tol : float
        The stopping figure's bound (LIBLINEAR's eps).
    max_iter : int
        Epochs at most (scikit-learn's copy always allows 100000).
    seed : int
        The Mersenne Twister's seed.
    stop_flag : int8 array of shape (1,), optional

    Returns
    -------
    LinearSolution
        w of shape (n_weights, n_classes), the dual of shape (n_rows, n_classes), the
        epochs, the dual objective, the status and the last epoch's spread.

    Raises
    ------
    ValueError
        Arrays of other lengths, rows or labels out of range, a bound that is not
        finite and > 0.
    KeyboardInterrupt
        Ctrl-C.
    """
    cdef Py_ssize_t n = rows.n_rows, nw = rows.n_weights, k = n_classes
    if n_classes < 2 or not tol > 0 or max_iter < 0 or seed > 0xFFFFFFFF:
        raise ValueError(f"n_classes must be >= 2, tol > 0, max_iter >= 0 and seed a "
                         f"32-bit int; got {n_classes}, {tol!r}, {max_iter}, {seed}")
    order, C_in, labels_in, _ = problem_inputs(rows, order, labels, bounds, None)
    labels_in = labels_in.astype(np.int32)
    check_indices(labels_in, k, "label", error=ValueError)
    if nw == 0:
        raise ValueError("the rows have no features and no bias: nothing to fit")
    cdef signed char* flag = stop_flag_pointer(stop_flag)
    cdef Py_ssize_t l = order.shape[0]
    # per problem row t (order[t] is the caller's row)
    cdef int[::1] members = order
    cdef double[::1] C = C_in
    cdef int[::1] y_index = labels_in
    cdef int[::1] y_true = labels_in.copy()
    cdef double[::1] QD = np.zeros(l)
    cdef int[::1] active_i = np.full(l, k, dtype=np.int32)
    cdef int[::1] index = np.arange(l, dtype=np.int32)
    cdef double[:, ::1] alpha = np.zeros((max(l, 1), k))
    cdef int[:, ::1] alpha_index = np.tile(np.arange(k, dtype=np.int32), (max(l, 1), 1))
    cdef double[:, ::1] w = np.zeros((nw, k))
    cdef double[::1] G = np.zeros(k), B = np.zeros(k), D = np.zeros(k)
    cdef double[::1] alpha_new = np.zeros(k), d_val = np.zeros(k)
    cdef int[::1] d_ind = np.zeros(k, dtype=np.int32)
    cdef Py_ssize_t most = _most_entries(rows)
    cdef int[::1] cols = np.zeros(most, dtype=np.int32)
    cdef double[::1] vals = np.zeros(most)
    cdef RowData r = rows.view()
    cdef smo_mt19937 gen
    cdef Py_ssize_t t, s, j, e, n_entries, active = l
    cdef int m, yi, nz_d, status = 0
    cdef long it = 0
    cdef double Ai, minG, maxG, stopping = 0, d, v = 0, val
    cdef double eps_shrink = max(10.0 * tol, 1.0)
    cdef bint start_from_all = True
    cdef double* w_row
    with nogil:
        smo_mt_seed(&gen, <uint32_t>seed)
        for t in range(l):
            n_entries = _entries(&r, members[t], &cols[0], &vals[0])
            for e in range(n_entries):
                QD[t] += vals[e] * vals[e]
        while it < max_iter:
            stopping = -INFINITY
            shuffle_active(&index[0], active, &gen)
            s = 0
            while s < active:
                t = index[s]
                Ai = QD[t]
                if not Ai > 0:
                    s += 1
                    continue
                yi = y_index[t]
                for m in range(active_i[t]):
                    G[m] = 1
                if yi < active_i[t]:
                    G[yi] = 0
                n_entries = _entries(&r, members[t], &cols[0], &vals[0])
                for e in range(n_entries):
                    w_row = &w[cols[e], 0]
                    val = vals[e]
                    for m in range(active_i[t]):
                        G[m] += w_row[alpha_index[t, m]] * val
                minG = INFINITY
                maxG = -INFINITY
                for m in range(active_i[t]):
                    if alpha[t, alpha_index[t, m]] < 0 and G[m] < minG:
                        minG = G[m]
                    if G[m] > maxG:
                        maxG = G[m]
                if yi < active_i[t]:
                    if alpha[t, y_true[t]] < C[t] and G[yi] < minG:
                        minG = G[yi]
                m = 0
                while m < active_i[t]:
                    if _shrunk(m, y_index[t], alpha[t, alpha_index[t, m]], G[m], C[t], minG):
                        active_i[t] -= 1
                        while active_i[t] > m:
                            if not _shrunk(active_i[t], y_index[t],
                                           alpha[t, alpha_index[t, active_i[t]]],
                                           G[active_i[t]], C[t], minG):
                                alpha_index[t, m], alpha_index[t, active_i[t]] = \
                                    alpha_index[t, active_i[t]], alpha_index[t, m]
                                G[m], G[active_i[t]] = G[active_i[t]], G[m]
                                if y_index[t] == active_i[t]:
                                    y_index[t] = m
                                elif y_index[t] == m:
                                    y_index[t] = active_i[t]
                                break
                            active_i[t] -= 1
                    m += 1
                if active_i[t] <= 1:
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
                s += 1
                if maxG - minG <= 1e-12:
                    continue
                stopping = max(maxG - minG, stopping)
                for m in range(active_i[t]):
                    B[m] = G[m] - Ai * alpha[t, alpha_index[t, m]]
                _sub_problem(Ai, y_index[t], C[t], active_i[t], &B[0], &D[0],
                             &alpha_new[0])
                nz_d = 0
                for m in range(active_i[t]):
                    d = alpha_new[m] - alpha[t, alpha_index[t, m]]
                    alpha[t, alpha_index[t, m]] = alpha_new[m]
                    if fabs(d) >= 1e-12:
                        d_ind[nz_d] = alpha_index[t, m]
                        d_val[nz_d] = d
                        nz_d += 1
                for e in range(n_entries):
                    w_row = &w[cols[e], 0]
                    for m in range(nz_d):
                        w_row[d_ind[m]] += d_val[m] * vals[e]
            it += 1
            status = poll_stop(flag)
            if status != 0:
                break
            if stopping < eps_shrink:
                if stopping < tol and start_from_all:
                    status = 1
                    break
                active = l
                for t in range(l):
                    active_i[t] = <int>k
                eps_shrink = max(eps_shrink / 2, tol)
                start_from_all = True
            else:
                start_from_all = False
        for j in range(nw):
            for m in range(k):
                v += w[j, m] * w[j, m]
        v = 0.5 * v
        for t in range(l):
            for m in range(k):
                v += alpha[t, m]
        for t in range(l):
            v -= alpha[t, y_true[t]]
    if status == 4:
        raise_pending_signal()
    dual = np.zeros((n, k))
    dual[order] = np.asarray(alpha)[:l]
    names = {0: "max_iter", 1: "optimal", 3: "stopped"}
    return LinearSolution(np.asarray(w), dual, it, v, names[status], stopping)
