"""The compiled core: rows, kernel, Q-row cache, the two-variable step, stopping and the
two SMO solvers, all typed Cython whose loops run without the GIL.

- `rows`: the one row accessor (dense, CSR, precomputed) both solvers read through;
- `kernel`: LIBSVM's kernel functions over a row of dot products;
- `cache`: the LRU cache of float32 Q rows; `qmatrix`: Q's rows for the
  classification, one-class and regression duals;
- `pair_step.pxd`: bound status, I_up / I_low, the analytic two-variable step;
- `stopping`: step cap, time limit, stop flag, Ctrl-C and the callback;
- `smo`: Platt's SMO with LIBSVM's selection, shrinking and stopping rule;
  `linear_smo`: the same dual for the linear kernel on the primal weights;
- `solution`: the typed result both solvers return;
- `arrays`: typed loops the validation layer uses (CSR checks, finiteness, norms);
- `inner_loops.h`: the data-parallel loops, four doubles at a time.

Nothing here imports anything outside `libsmo._core`.
"""
