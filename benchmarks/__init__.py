"""libsmo's benchmarks: libsmo against its peers on the same data, parameters, tolerance
and threads, with the work behind every ratio shown to be the same.

The package (each module one concept):

- `data`: where the data sets are (LIBSMO_DATA_DIR, LIBSMO_DATA_CACHE,
  LIBSMO_FASHION_MNIST) and the readers that are no library's own (Fashion-MNIST's idx
  files, a neutral reader of LIBSVM files for scripts that share one copy of the data);
- `cases`: the cases of run.py and how each library reads them;
- `peers/`: one module per library (libsmo, LIBSVM, scikit-learn, scikit-learn-intelex,
  LIBLINEAR): its reader, and a case prepared and fitted the same way for every script,
  the answer as one typed `peers.Fit`;
- `objective`: the dual objective of a fit from its dual coefficients, one function for
  every library;
- `agreement`: what "the same work" means, checked run by run;
- `options`: the command-line options the scripts share;
- `measure`: one run of one library inside its own fresh process (times, memory, answer);
- `runner`: the plan of run.py (fresh processes, rotated order) and the machine it ran on;
- `report`: medians, ratios, the agreement of every run, flags, the markdown tables.

The scripts beside them (run.py, first_fit.py, fit_loop.py, bench_train.py, ...) are
commands built on these modules; each runs as ``python benchmarks/<script>.py`` or as
``python -m benchmarks.<script>`` from the repository root.
"""
