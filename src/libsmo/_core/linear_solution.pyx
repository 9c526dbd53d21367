# cython: language_level=3
"""`LinearSolution`: what a linear SVM solver returns (the dual coordinate descent of
linear_cd, the Newton method of linear_newton, Crammer and Singer's linear_cs, the L1
coordinate descent of linear_l1), its arrays read-only."""


cdef class LinearSolution:
    """The result of one run of a linear solver (read-only arrays).

    Attributes
    ----------
    w : ndarray of shape (n_weights,) (Crammer-Singer: (n_weights, n_classes))
        The weights; with a bias feature its weight is the last entry.
    dual : ndarray
        The dual point of every row, 0 for rows not in the problem (the Newton method:
        the one its optimality conditions give; L1: empty).
    n_iter : int
        Epochs (the Newton method: its steps).
    objective : float
        The objective the solver minimised, at its answer (the duals' value, LIBLINEAR's
        "Objective value"; the primal methods' f(w)).
    status : str
        "optimal", "max_iter", "stalled" (the Newton method: no more decrease to be
        had), "slow" (a dual asked to stop where it would not reach tol within
        max_iter epochs) or "stopped" (another thread's stop flag).
    violation : float
        The solver's stopping figure at the end (the dual: the last epoch's spread of
        projected gradients; regression and L1: summed violation over the first
        epoch's; Newton: |grad f| over its value at 0).
    reference : float
        The regression dual's summed violation that tol was relative to (its first
        epoch's, or the one it was given); 0 for the other solvers.
    """
    cdef readonly object w, dual
    cdef readonly long n_iter
    cdef readonly double objective, violation, reference
    cdef readonly str status

    def __init__(self, w, dual, n_iter, objective, status, violation, reference=0.0):
        w.flags.writeable = False
        dual.flags.writeable = False
        self.w, self.dual, self.n_iter = w, dual, n_iter
        self.objective, self.status, self.violation = objective, status, violation
        self.reference = reference

    def __repr__(self):
        return (f"LinearSolution(status={self.status!r}, n_iter={self.n_iter}, "
                f"objective={self.objective!r})")
