# cython: language_level=3
"""LIBLINEAR 2.50's primal Newton method for the L2-loss linear SVMs (-s 2, squared
hinge, and -s 11, squared epsilon-insensitive): newton.cpp's `NEWTON::newton` with its
preconditioned conjugate gradient and backtracking line search, on linear.cpp's
`l2r_l2_svc_fun` / `l2r_l2_svr_fun` (Galli and Lin, "A study on truncated Newton methods
for linear classification", 2021, the method that replaced the trust region in 2.40).

It minimises the primal

    f(w) = 1/2 w'w + sum_i C_i max(0, 1 - y_i w'x_i)^2                (classification)
    f(w) = 1/2 w'w + sum_i C_i max(0, |w'x_i - y_i| - p)^2             (regression)

(w with LIBLINEAR's bias feature as its last entry, regularised) until
|grad f(w)| <= tol |grad f(0)|. Each Newton step solves H s = -g by conjugate gradient
with the diagonal preconditioner 0.99 + 0.01 diag(H), stopping on the quadratic model's
decrease; a Hessian-vector product is one pass over the rows with a margin violation
(Hv = s + 2 X_I' C_I X_I s). A step that decreases f by less than 0.01 alpha g's, after
20 halvings, ends the run unless the full step lowers the gradient's norm (near the
optimum Armijo's test on f fails by rounding before the gradient reaches a tight
tolerance; LIBLINEAR stops there), as does a decrease below 1e-12 |f| where the quadratic model
also promised no more (scikit-learn's trust-region TRON's test; LIBLINEAR 2.50 stops on
the actual decrease alone, a few digits short of a tolerance such as 1e-12).

Where the dual coordinate descent stalls (its epochs reach max_iter, typically at
large C on unscaled data), this converges in a few dozen steps; LIBLINEAR switches to
it then for -s 1 and -s 12, and so does libsmo's LinearSVC.

With n_threads > 1 (liblinear-multicore's -m) the passes over the rows run on OpenMP
threads: X v row by row (each row's own sum), and the sums over the rows one share a
thread, the shares added in order.
"""
import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_CheckSignals
from cython.parallel cimport prange
from libc.math cimport fabs, isfinite, sqrt
from libsmo._core.linear_solution import LinearSolution
from libsmo._core.linear_rows cimport (LinearRows, RowData, add_row, add_squares, dot_w,
                                       problem_inputs)

cnp.import_array()

# newton.cpp's constants: the Armijo fraction, the halvings, the preconditioner's mix
cdef double ETA = 0.01
cdef int MAX_HALVINGS = 20
cdef double ALPHA_PCG = 0.01


cdef class _Primal:
    """The objective and its derivatives over the problem's rows (l2r_l2_svc_fun and
    l2r_l2_svr_fun); wx holds X w at the last `value` or line search."""
    cdef RowData r
    cdef const int[::1] rows
    cdef const double[::1] y
    cdef const double[::1] C
    cdef bint regression
    cdef double p
    cdef Py_ssize_t l, nw
    cdef double[::1] wx
    cdef double[::1] tmp
    cdef int[::1] violators   # the rows with a loss (LIBLINEAR's I)
    cdef Py_ssize_t size_I
    cdef double wTw
    cdef int threads          # the row passes' threads (1: LIBLINEAR's order throughout)
    cdef double[:, ::1] parts # threads > 1: each thread's share of X_I' v

    cdef void rows_times(self, const double* v, double* out) noexcept nogil:
        """out[k] = x_k'v for every row of the problem: each row's own sum, so the same
        bits on any number of threads."""
        cdef const RowData* r = &self.r
        cdef const int* rows = &self.rows[0]
        cdef Py_ssize_t k, l = self.l
        if self.threads == 1 or l < 2:
            for k in range(l):
                out[k] = dot_w(r, rows[k], v)
            return
        for k in prange(l, num_threads=self.threads, schedule="static"):
            out[k] = dot_w(r, rows[k], v)

    cdef void violators_times(self, const double* a, const double* v, double* out,
                              bint squares=False) noexcept nogil:
        """out = sum over the violators j (rows I_j) of c_j x_{I_j}, with c_j = a[j]
        (v NULL: the gradient's terms) or C_{I_j} x_{I_j}'v (the Hessian's), added in
        LIBLINEAR's order on one thread; with `squares`, out = 1 + the sum of 2 C_{I_j}
        times x_{I_j}'s squared entries (the preconditioner's, from 1 as LIBLINEAR's).
        On several threads, each sums a contiguous share of the violators in that order
        into its own vector and the shares are added in thread order: the same bits for
        the same number of threads, not one thread's (liblinear-multicore's -m splits
        these sums too)."""
        cdef const RowData* r = &self.r
        cdef const int* rows = &self.rows[0]
        cdef const int* I = &self.violators[0]
        cdef const double* C = &self.C[0]
        cdef Py_ssize_t j, f, t, first, last, nw = self.nw, size = self.size_I
        cdef int threads = self.threads
        cdef double c
        cdef double* part
        if threads == 1 or size < 2 * threads:
            for f in range(nw):
                out[f] = 1 if squares else 0
            for j in range(size):
                if squares:
                    add_squares(r, rows[I[j]], C[I[j]] * 2, out)
                    continue
                c = a[j] if v == NULL else C[I[j]] * dot_w(r, rows[I[j]], v)
                add_row(r, rows[I[j]], c, out)
            return
        for t in prange(threads, num_threads=threads, schedule="static"):
            part = &self.parts[t, 0]
            for f in range(nw):
                part[f] = 1 if squares and t == 0 else 0
            first = size * t // threads
            last = size * (t + 1) // threads
            for j in range(first, last):
                if squares:
                    add_squares(r, rows[I[j]], C[I[j]] * 2, part)
                else:
                    c = a[j] if v == NULL else C[I[j]] * dot_w(r, rows[I[j]], v)
                    add_row(r, rows[I[j]], c, part)
        for f in prange(nw, num_threads=threads, schedule="static"):
            c = self.parts[0, f]
            for t in range(1, threads):
                c = c + self.parts[t, f]
            out[f] = c

    cdef double loss(self, Py_ssize_t k, double wx_k) noexcept nogil:
        cdef double d
        if self.regression:
            d = wx_k - self.y[k]
            if d < -self.p:
                return self.C[k] * (d + self.p) * (d + self.p)
            if d > self.p:
                return self.C[k] * (d - self.p) * (d - self.p)
            return 0
        d = 1 - self.y[k] * wx_k
        return self.C[k] * d * d if d > 0 else 0

    cdef double value(self, const double* w) noexcept nogil:
        cdef Py_ssize_t k
        cdef double f = 0
        self.wTw = 0
        self.rows_times(w, &self.wx[0])
        for k in range(self.nw):
            self.wTw += w[k] * w[k]
        for k in range(self.l):
            f += self.loss(k, self.wx[k])
        return f + 0.5 * self.wTw

    cdef void gradient(self, const double* w, double* g) noexcept nogil:
        """g = w + 2 X_I' (the violations' slopes), I the rows with a loss; at the w
        of the last `value` or line search."""
        cdef Py_ssize_t k, j
        cdef double d, t
        self.size_I = 0
        for k in range(self.l):
            if self.regression:
                d = self.wx[k] - self.y[k]
                if d < -self.p:
                    t = self.C[k] * (d + self.p)
                elif d > self.p:
                    t = self.C[k] * (d - self.p)
                else:
                    continue
            else:
                t = self.wx[k] * self.y[k]
                if t >= 1:
                    continue
                t = self.C[k] * self.y[k] * (t - 1)
            self.tmp[self.size_I] = t
            self.violators[self.size_I] = <int>k
            self.size_I += 1
        self.violators_times(&self.tmp[0], NULL, g)
        for j in range(self.nw):
            g[j] = w[j] + 2 * g[j]

    cdef void hessian_times(self, const double* s, double* Hs) noexcept nogil:
        cdef Py_ssize_t j
        self.violators_times(NULL, s, Hs)
        for j in range(self.nw):
            Hs[j] = s[j] + 2 * Hs[j]

    cdef void preconditioner(self, double* M) noexcept nogil:
        cdef Py_ssize_t j
        self.violators_times(NULL, NULL, M, True)
        for j in range(self.nw):
            M[j] = (1 - ALPHA_PCG) + ALPHA_PCG * M[j]

    cdef double line_search(self, double* w, const double* s, double* f, const double* g,
                            double alpha) noexcept nogil:
        """Backtracking from alpha along s (Armijo's rule, eta 0.01, at most 20
        halvings); w, f and wx updated on success. Returns the step, 0 on failure."""
        cdef Py_ssize_t k, j
        cdef double sTs = 0, wTs = 0, gTs = 0, fold = f[0], loss
        cdef int halvings
        self.rows_times(s, &self.tmp[0])
        for j in range(self.nw):
            sTs += s[j] * s[j]
            wTs += s[j] * w[j]
            gTs += s[j] * g[j]
        for halvings in range(MAX_HALVINGS):
            loss = 0
            for k in range(self.l):
                loss += self.loss(k, self.tmp[k] * alpha + self.wx[k])
            f[0] = loss + (alpha * alpha * sTs + self.wTw) / 2.0 + alpha * wTs
            if f[0] - fold <= ETA * alpha * gTs:
                for k in range(self.l):
                    self.wx[k] += alpha * self.tmp[k]
                for j in range(self.nw):
                    w[j] += alpha * s[j]
                self.wTw += alpha * alpha * sTs + 2 * alpha * wTs
                return alpha
            alpha *= 0.5
        f[0] = fold
        return 0


cdef double _dot(const double[::1] a, const double[::1] b) noexcept nogil:
    cdef double s = 0
    cdef Py_ssize_t j
    for j in range(a.shape[0]):
        s += a[j] * b[j]
    return s


cdef int _conjugate_gradient(_Primal fun, const double[::1] g, const double[::1] M,
                             double[::1] s, double[::1] r, double[::1] d, double[::1] Hd,
                             double[::1] z, double eps_cg, double* model) noexcept nogil:
    """s ~ -H^-1 g by preconditioned conjugate gradient (newton.cpp's pcg): stops when
    the quadratic model's decrease in a step falls below cgtol / steps of the whole.
    Returns the steps taken; `model` receives the model's value g's + s'Hs / 2."""
    cdef Py_ssize_t j, n = g.shape[0]
    cdef double zTr, znewTrnew, alpha, beta, cgtol, dHd, Q = 0, newQ, Qdiff
    cdef int steps = 0, max_steps = max(<int>n, 5)
    for j in range(n):
        s[j] = 0
        r[j] = -g[j]
        z[j] = r[j] / M[j]
        d[j] = z[j]
    zTr = _dot(z, r)
    cgtol = min(eps_cg, sqrt(sqrt(zTr)))
    while steps < max_steps:
        steps += 1
        fun.hessian_times(&d[0], &Hd[0])
        dHd = _dot(d, Hd)
        if dHd <= 1.0e-16:     # avoid 0/0
            break
        alpha = zTr / dHd
        for j in range(n):
            s[j] += alpha * d[j]
            r[j] -= alpha * Hd[j]
        newQ = -0.5 * (_dot(s, r) - _dot(s, g))
        Qdiff = newQ - Q
        if newQ > 0 or Qdiff > 0:    # the model no longer decreases: numerical noise
            break
        if steps * Qdiff >= cgtol * newQ:
            Q = newQ
            break
        Q = newQ
        for j in range(n):
            z[j] = r[j] / M[j]
        znewTrnew = _dot(z, r)
        beta = znewTrnew / zTr
        for j in range(n):
            d[j] = z[j] + beta * d[j]
        zTr = znewTrnew
    model[0] = Q
    return steps


cdef double _gradient_step(_Primal fun, double[::1] w, const double[::1] s, double[::1] g,
                           double* f, double* gnorm) noexcept nogil:
    """The full Newton step where the line search failed, taken if it lowers the
    gradient's norm: near the optimum f's decrease falls below its rounding (about
    1e-16 |f|, a gradient near 1e-8 of its start), and Armijo's test on f fails where
    the gradient can still fall to the tolerance. Returns 1, or 0 with w, f, g and the
    rows' products as they were."""
    cdef Py_ssize_t j
    cdef double trial_norm
    for j in range(w.shape[0]):
        w[j] += s[j]
    f[0] = fun.value(&w[0])
    fun.gradient(&w[0], &g[0])
    trial_norm = sqrt(_dot(g, g))
    if trial_norm < gnorm[0]:
        gnorm[0] = trial_norm
        return 1
    for j in range(w.shape[0]):
        w[j] -= s[j]
    f[0] = fun.value(&w[0])
    fun.gradient(&w[0], &g[0])
    return 0


def primal_newton(LinearRows rows not None, order, targets, bounds, *,
                  bint regression=False, double epsilon=0.0, double tol=0.01,
                  long max_iter=1000, start=None, double eps_cg=0.5, int n_threads=1,
                  signed char[::1] stop_flag=None):
    """Minimise the L2-loss SVM's primal (squared hinge, or squared epsilon-insensitive
    with `regression`) by LIBLINEAR 2.50's Newton method.

    Parameters
    ----------
    rows : LinearRows
    order : array of int
        The rows in the problem.
    targets : array of shape (n_rows,)
        Classification: y_i in {+1, -1} (read as > 0 or not); regression: y_i.
    bounds : array of shape (n_rows,)
        C_i of every row; finite and > 0 for the rows in order.
    regression : bool
    epsilon : float
        Regression's insensitive half width p (>= 0).
    tol : float
        Stop when |grad f(w)| <= tol |grad f(0)| (LIBLINEAR's primal eps, which its
        classification scales by min(#pos, #neg) / l).
    max_iter : int
        Newton steps at most.
    start : array of shape (n_weights,), optional
        Starting w (a warm start, or the dual solver's w when it stalled).
    eps_cg : float
        The conjugate gradient's relative tolerance (LIBLINEAR's 0.5).
    stop_flag : int8 array of shape (1,), optional
        Another thread sets it to 1 to stop this run.
    n_threads : int
        Threads of the passes over the rows (liblinear-multicore's -m): the products
        X v row by row, and the sums X_I' v in one share of the rows a thread. One
        thread takes LIBLINEAR's steps; more reach the same optimum by sums added in
        another order (the same bits for the same n_threads).

    Returns
    -------
    LinearSolution
        w; `dual` the dual point the optimality conditions give (a_i = 2 C_i times the
        row's margin violation, signed for regression); n_iter the Newton steps;
        objective the primal f(w); status "optimal", "max_iter", "stalled" (the line
        search or the decrease ended it: LIBLINEAR stops there without a warning),
        "stopped" or "overflowed" (the gradient's norm or f is beyond the largest
        double at w = 0 or the start: no step taken, objective NaN); violation
        |grad f(w)| / |grad f(0)|.

    Raises
    ------
    ValueError
        Arrays of other lengths, rows outside X, a bound that is not finite and > 0.
    KeyboardInterrupt
        Ctrl-C.
    """
    cdef Py_ssize_t n = rows.n_rows, nw = rows.n_weights, k
    if not (tol > 0 and eps_cg > 0 and epsilon >= 0) or max_iter < 0 or n_threads < 1:
        raise ValueError(f"tol and eps_cg must be > 0, epsilon >= 0, max_iter >= 0 and "
                         f"n_threads >= 1; got {tol!r}, {eps_cg!r}, {epsilon!r}, "
                         f"{max_iter!r}, {n_threads!r}")
    order, C_in, y_in, _ = problem_inputs(rows, order, targets, bounds, None,
                                          signs=not regression)
    cdef _Primal fun = _Primal()
    fun.r = rows.view()
    fun.rows, fun.y, fun.C = order, y_in, C_in
    fun.regression, fun.p = regression, epsilon
    fun.l, fun.nw = order.shape[0], nw
    fun.wx, fun.tmp = np.zeros(fun.l), np.zeros(fun.l)
    fun.violators = np.zeros(fun.l, dtype=np.int32)
    if nw == 0:
        raise ValueError("the rows have no features and no bias: nothing to fit")
    fun.threads = n_threads
    fun.parts = np.zeros((n_threads if n_threads > 1 else 0, nw))
    cdef double[::1] w = np.zeros(nw)
    if start is not None:
        start = np.asarray(start, dtype=np.float64)
        if start.shape != (nw,) or not np.all(np.isfinite(start)):
            raise ValueError(f"start must be finite of shape ({nw},), got {start.shape}")
        np.asarray(w)[:] = start
    if stop_flag is not None and stop_flag.shape[0] < 1:
        raise ValueError("stop_flag must have one entry")
    cdef signed char* flag = &stop_flag[0] if stop_flag is not None else NULL
    cdef double[::1] g = np.zeros(nw), s = np.zeros(nw), r = np.zeros(nw)
    cdef double[::1] M = np.ones(nw), d = np.zeros(nw), Hd = np.zeros(nw)
    cdef double[::1] z = np.zeros(nw), w0 = np.zeros(nw)
    cdef double f, fold, gnorm0, gnorm, step, model = 0
    cdef long steps = 0
    cdef str status = "max_iter"
    cdef bint interrupted = False
    cdef bint started = start is not None
    with nogil:
        f = fun.value(&w0[0])
        fun.gradient(&w0[0], &g[0])
        gnorm0 = sqrt(_dot(g, g))
        gnorm = gnorm0
        if started:
            # (without a start w is w0, whose value and gradient are at hand: LIBLINEAR
            # computes them twice, two passes over the rows each)
            f = fun.value(&w[0])
            fun.gradient(&w[0], &g[0])
            gnorm = sqrt(_dot(g, g))
    if not (isfinite(gnorm0) and isfinite(gnorm) and isfinite(f)):
        # values of about 1e150 and up overflow the gradient's norm (their squares),
        # and the stopping test inf <= tol * inf once ended here "optimal" at w = 0
        return LinearSolution(np.array(w), np.zeros(n), 0, float("nan"), "overflowed",
                              float("nan"))
    if gnorm <= tol * gnorm0:
        status = "optimal"
    while status == "max_iter" and steps < max_iter:
        with nogil:
            fun.preconditioner(&M[0])
            _conjugate_gradient(fun, g, M, s, r, d, Hd, z, eps_cg, &model)
            fold = f
            step = fun.line_search(&w[0], &s[0], &f, &g[0], 1.0)
            if step != 0:
                fun.gradient(&w[0], &g[0])
                gnorm = sqrt(_dot(g, g))
            else:
                step = _gradient_step(fun, w, s, g, &f, &gnorm)
        if step == 0:
            status = "stalled"
            break
        steps += 1
        if gnorm <= tol * gnorm0:
            status = "optimal"
        elif f < -1.0e32 or (fabs(fold - f) <= 1.0e-12 * fabs(f)
                             and fabs(model) <= 1.0e-12 * fabs(f)):
            status = "stalled"
        if PyErr_CheckSignals() != 0:
            raise KeyboardInterrupt
        if flag != NULL and flag[0] != 0:
            status = "stopped"
    return LinearSolution(np.array(w), _duals(fun, n), steps, f, status,
                          gnorm / gnorm0 if gnorm0 > 0 else 0.0)


cdef object _duals(_Primal fun, Py_ssize_t n):
    """The dual point the optimality conditions give at the last `value`'s X w, for
    every one of the n rows (0 outside the problem): a_i = 2 C_i max(0, 1 - y_i w'x_i);
    regression -2 C_i (max(0, w'x_i - y_i - p) + min(0, w'x_i - y_i + p)). A row listed
    twice takes its last entry's."""
    dual = np.zeros(n)
    cdef double[::1] out = dual
    cdef Py_ssize_t t
    cdef double gap
    with nogil:
        for t in range(fun.l):
            if fun.regression:
                gap = fun.wx[t] - fun.y[t]
                out[fun.rows[t]] = -2 * fun.C[t] * (max(gap - fun.p, 0.0)
                                                    + min(gap + fun.p, 0.0))
            else:
                out[fun.rows[t]] = 2 * fun.C[t] * max(1 - fun.y[t] * fun.wx[t], 0.0)
    return dual
