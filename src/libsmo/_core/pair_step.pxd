# What the two SMO solvers (kernel rows in smo.pyx, primal weights in linear_smo.pyx) share: a
# variable's bound status, the index sets I_up / I_low, and the analytic solution of
# the two-variable subproblem.

cdef enum AlphaStatus:
    LOWER_BOUND = 0
    UPPER_BOUND = 1
    FREE = 2


cdef inline signed char bound_status(double alpha, double C) noexcept nogil:
    if alpha >= C:
        return UPPER_BOUND
    if alpha <= 0:
        return LOWER_BOUND
    return FREE


cdef inline bint in_up(double y, signed char status) noexcept nogil:
    """t in I_up: a_t can grow (y = +1) or shrink (y = -1), i.e. y_t a_t can rise."""
    if y > 0:
        return status != UPPER_BOUND
    return status != LOWER_BOUND


cdef inline bint in_low(double y, signed char status) noexcept nogil:
    """t in I_low: y_t a_t can fall."""
    if y > 0:
        return status != LOWER_BOUND
    return status != UPPER_BOUND


cdef inline double curvature(double quad) noexcept nogil:
    """quad, or LIBSVM's TAU = 1e-12 in place of a non-positive one (a kernel that is
    not positive semi-definite, or two equal rows)."""
    return quad if quad > 0 else 1e-12


cdef inline void solve_pair(double Gi, double Gj, double yi, double yj, double QDi,
                            double QDj, double Qij, double Ci, double Cj,
                            double* ai, double* aj) noexcept nogil:
    """Minimise the dual over (a_i, a_j) along y_i a_i + y_j a_j = const, then clip to
    the box [0, C_i] x [0, C_j] (LIBSVM's update, which Platt's takeStep computes with
    the bounds L and H). G are gradients, QD the diagonal of Q, Qij = y_i y_j K_ij; ai
    and aj hold the old values on entry and the new ones on return."""
    cdef double quad, delta, diff, total
    cdef double a = ai[0], b = aj[0]
    if yi != yj:
        quad = curvature(QDi + QDj + 2.0 * Qij)
        delta = (-Gi - Gj) / quad
        diff = a - b
        a += delta
        b += delta
        if diff > 0:
            if b < 0:
                b = 0
                a = diff
        elif a < 0:
            a = 0
            b = -diff
        if diff > Ci - Cj:
            if a > Ci:
                a = Ci
                b = Ci - diff
        elif b > Cj:
            b = Cj
            a = Cj + diff
    else:
        quad = curvature(QDi + QDj - 2.0 * Qij)
        delta = (Gi - Gj) / quad
        total = a + b
        a -= delta
        b += delta
        if total > Ci:
            if a > Ci:
                a = Ci
                b = total - Ci
        elif b < 0:
            b = 0
            a = total
        if total > Cj:
            if b > Cj:
                b = Cj
                a = total - Cj
        elif a < 0:
            a = 0
            b = total
    ai[0] = a
    aj[0] = b
