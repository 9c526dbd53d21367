# cython: language_level=3
"""L1-regularised squared-hinge SVM by coordinate descent over the features: LIBLINEAR's
`solve_l1r_l2_svc` (-s 5; Yuan, Chang, Hsieh and Lin, JMLR 2010, "A comparison of
optimization methods and software for large-scale L1-regularized linear
classification", CDN), as scikit-learn's copy runs it (per-row C_i, its random source).

It minimises

    |w|_1 + sum_i C_i max(0, 1 - y_i w'x_i)^2

one weight at a time: each epoch visits the active features in a random order; a
feature's step is the one-variable Newton step of the smooth part with the L1 term's
soft threshold, shortened by backtracking until the sufficient decrease condition holds
(first tested on the quadratic bound xj_sq d^2 + G d, which saves the loss's pass over
the column most of the time). b_i = 1 - y_i w'x_i is kept for every row. A feature at 0
whose gradient lies well inside [-1, 1] (by the last epoch's largest violation / l) is
shrunk; an epoch whose summed violation is within tol of the first epoch's stops the run
once it covered every feature.

The columns come from the caller as CSC arrays of the problem's rows (their row indices
the rows' positions in the problem, ascending in each column) with LIBLINEAR's bias
column last, values already multiplied by the row's sign: the transpose LIBLINEAR makes.
Arithmetic and order are scikit-learn's.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport fabs
from libc.stdint cimport uint32_t
from libsmo._core.checks import checked_indptr
from libsmo._core.linear_epochs cimport (poll_stop, raise_pending_signal,
                                         shuffle_active, smo_mt19937, smo_mt_seed,
                                         stop_flag_pointer)
from libsmo._core.linear_solution import LinearSolution

cnp.import_array()

# LIBLINEAR's line search: Armijo's fraction and the halvings before b is rebuilt
cdef double SIGMA = 0.01
cdef int MAX_HALVINGS = 20


def l1_svc(values, row_index, col_ptr, signs, bounds, *, double tol=0.01,
           long max_iter=1000, unsigned long seed=0, signed char[::1] stop_flag=None):
    """Minimise the L1-regularised squared-hinge SVM's primal by LIBLINEAR's coordinate
    descent over the features.

    Parameters
    ----------
    values : array of float64
        The columns' stored values, each multiplied by its row's sign.
    row_index : array of int32
        Their rows (positions 0..l-1 in the problem), ascending within a column.
    col_ptr : array of int
        Column j is [col_ptr[j], col_ptr[j + 1]); the bias column (if any) last.
    signs : array of shape (l,)
        y_i in {+1, -1} (read as > 0 or not).
    bounds : array of shape (l,)
        C_i, finite and > 0.
    tol : float
        The stopping figure's bound (LIBLINEAR's primal eps, which classification
        scales by min(#pos, #neg) / l).
    max_iter : int
        Epochs at most.
    seed : int
        The Mersenne Twister's seed.
    stop_flag : int8 array of shape (1,), optional

    Returns
    -------
    LinearSolution
        w (one weight per column), an empty dual, the epochs, the primal objective, the
        status and the last epoch's summed violation over the first's.

    Raises
    ------
    ValueError
        Arrays that do not describe the columns, a bound that is not finite and > 0.
    KeyboardInterrupt
        Ctrl-C.
    """
    y_in = np.where(np.asarray(signs) > 0, 1.0, -1.0)
    C_in = np.ascontiguousarray(bounds, dtype=np.float64)
    cdef Py_ssize_t l = y_in.shape[0]
    if C_in.shape != (l,):
        raise ValueError(f"bounds must have shape ({l},), got {C_in.shape}")
    if not (np.all(C_in > 0) and np.all(np.isfinite(C_in))):
        raise ValueError("bounds must be finite and > 0")
    if not tol > 0 or max_iter < 0 or seed > 0xFFFFFFFF:
        raise ValueError(f"tol must be > 0, max_iter >= 0 and seed a 32-bit int; got "
                         f"{tol!r}, {max_iter!r}, {seed!r}")
    cdef const double[::1] xv = np.ascontiguousarray(values, dtype=np.float64)
    cdef const int[::1] xr = np.ascontiguousarray(row_index, dtype=np.int32)
    cdef const long long[::1] cp = checked_indptr(col_ptr, len(col_ptr) - 1, len(xv), xr, l)
    cdef signed char* flag = stop_flag_pointer(stop_flag)
    cdef const double[::1] C = C_in
    cdef Py_ssize_t w_size = cp.shape[0] - 1
    cdef double[::1] w = np.zeros(max(w_size, 1))
    cdef double[::1] b = np.ones(max(l, 1))
    cdef double[::1] xj_sq = np.zeros(max(w_size, 1))
    cdef int[::1] index = np.arange(max(w_size, 1), dtype=np.int32)
    cdef smo_mt19937 gen
    cdef Py_ssize_t j, s, t, active = w_size
    cdef long long k
    cdef long it = 0
    cdef int status = 0, halvings, ind
    cdef double G_loss, G, H, Gp, Gn, d, d_old, d_diff, delta, cond, appxcond
    cdef double loss_old = 0, loss_new, b_new, val, tmp, violation, v = 0
    cdef double Gmax_old = 1.0 / 0.0, Gmax_new = 0, Gnorm1_new = 0, Gnorm1_init = -1.0
    with nogil:
        smo_mt_seed(&gen, <uint32_t>seed)
        for j in range(w_size):
            for k in range(cp[j], cp[j + 1]):
                xj_sq[j] += C[xr[k]] * xv[k] * xv[k]
        while it < max_iter:
            Gmax_new = 0
            Gnorm1_new = 0
            shuffle_active(&index[0], active, &gen)
            s = 0
            while s < active:
                j = index[s]
                G_loss = 0
                H = 0
                for k in range(cp[j], cp[j + 1]):
                    ind = xr[k]
                    if b[ind] > 0:
                        val = xv[k]
                        tmp = C[ind] * val
                        G_loss -= tmp * b[ind]
                        H += tmp * val
                G_loss *= 2
                G = G_loss
                H *= 2
                H = H if H > 1e-12 else 1e-12
                Gp = G + 1
                Gn = G - 1
                violation = 0
                if w[j] == 0:
                    if Gp < 0:
                        violation = -Gp
                    elif Gn > 0:
                        violation = Gn
                    elif Gp > Gmax_old / l and Gn < -Gmax_old / l:
                        active -= 1
                        index[s], index[active] = index[active], index[s]
                        continue
                elif w[j] > 0:
                    violation = fabs(Gp)
                else:
                    violation = fabs(Gn)
                Gmax_new = Gmax_new if Gmax_new > violation else violation
                Gnorm1_new += violation
                s += 1
                # the Newton direction with the L1 term's soft threshold
                if Gp < H * w[j]:
                    d = -Gp / H
                elif Gn > H * w[j]:
                    d = -Gn / H
                else:
                    d = -w[j]
                if fabs(d) < 1.0e-12:
                    continue
                delta = fabs(w[j] + d) - fabs(w[j]) + G * d
                d_old = 0
                halvings = 0
                while halvings < MAX_HALVINGS:
                    d_diff = d_old - d
                    cond = fabs(w[j] + d) - fabs(w[j]) - SIGMA * delta
                    appxcond = xj_sq[j] * d * d + G_loss * d + cond
                    if appxcond <= 0:
                        for k in range(cp[j], cp[j + 1]):
                            b[xr[k]] += d_diff * xv[k]
                        break
                    if halvings == 0:
                        loss_old = 0
                    loss_new = 0
                    for k in range(cp[j], cp[j + 1]):
                        ind = xr[k]
                        if halvings == 0 and b[ind] > 0:
                            loss_old += C[ind] * b[ind] * b[ind]
                        b_new = b[ind] + d_diff * xv[k]
                        b[ind] = b_new
                        if b_new > 0:
                            loss_new += C[ind] * b_new * b_new
                    cond = cond + loss_new - loss_old
                    if cond <= 0:
                        break
                    d_old = d
                    d *= 0.5
                    delta *= 0.5
                    halvings += 1
                w[j] += d
                if halvings >= MAX_HALVINGS:
                    # b rebuilt from w when the line search took every halving
                    for t in range(l):
                        b[t] = 1
                    for t in range(w_size):
                        if w[t] == 0:
                            continue
                        for k in range(cp[t], cp[t + 1]):
                            b[xr[k]] -= w[t] * xv[k]
            if it == 0:
                Gnorm1_init = Gnorm1_new
            it += 1
            status = poll_stop(flag)
            if status != 0:
                break
            if Gnorm1_new <= tol * Gnorm1_init:
                if active == w_size:
                    status = 1
                    break
                active = w_size
                Gmax_old = 1.0 / 0.0
                continue
            Gmax_old = Gmax_new
        for j in range(w_size):
            v += fabs(w[j])
        for t in range(l):
            if b[t] > 0:
                v += C[t] * b[t] * b[t]
    if status == 4:
        raise_pending_signal()
    names = {0: "max_iter", 1: "optimal", 3: "stopped"}
    return LinearSolution(np.array(w[:w_size]), np.zeros(0), it, v, names[status],
                          Gnorm1_new / Gnorm1_init if Gnorm1_init > 0 else 0.0)
