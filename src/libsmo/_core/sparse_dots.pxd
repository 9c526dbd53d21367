# Rows of dot products of CSR training rows: gathers over every stored value, or a
# feature-major copy summed over the row's own features' columns (text-like data).

cdef extern from "step_loops.h" nogil:
    # a row of dot products made a row of Q part by part (`SparseColumns.dots`)
    ctypedef struct SmoRowFinish:
        int rbf
        double gamma, sq_i, s_i
        const double* sq
        const double* sign
        float* q_out
    # rows of Q added to a sum in one region (`SparseColumns.add_rows`)
    ctypedef struct SmoRowBatch:
        int count
        const int* rows
        const double* coefs
        const float* const* cached
        const long long* row_start
        const int* row_nnz
        const int* features
        const double* values
        const double* sq_norm
        const double* sign
    void smo_finish_part(const SmoRowFinish* finish, double* dots, int lo, int hi)
    void smo_prefetch(const void* p)

cdef extern from "column_loops.h" nogil:
    # a column's stored values added into sums; prediction's rows of column dots
    void smo_add_column(const int* rows, const double* vals, long long p, long long end,
                        double x, double* sums)
    void smo_column_dots_rows(const int* indices, const double* data,
                              const long long* indptr, long long first, long long last,
                              const long long* col_start, const int* col_row,
                              const double* col_val, double* out, long long n_sv, int add)


cdef void gather_dots(const double* data, const int* indices, const long long* row_start,
                      const int* row_nnz, int i, int start, int end, int nthreads,
                      double* scatter, double* out) noexcept nogil


cdef class SparseColumns:
    # column f: rows col_row[col_start[f] : col_start[f + 1]] (their numbers when the
    # copy was made, ascending) with values col_val[...]
    cdef readonly long long[::1] col_start
    cdef int[::1] col_row
    cdef double[::1] col_val
    # the row now at position j was row original[j] (the solver swaps its variables)
    cdef readonly int[::1] original
    # no swap yet: original[j] == j
    cdef bint unswapped
    # rows split among bound_threads threads (`_thread_bounds`): thread t's entries of
    # column f start at bounds[t * n_features + f] (t = bound_threads: the column's end)
    cdef long long* bounds
    cdef readonly int bound_threads
    # a row of sums by original row number (`dots`)
    cdef double[::1] sums
    # the features that at least dense_share of the rows store (n_dense of them, 0 for
    # none): column f also as dense[dense_slot[f]], by original row number (-1: none)
    cdef readonly double dense_share
    cdef readonly int n_dense
    cdef int[::1] dense_slot
    cdef double[:, ::1] dense
    cdef readonly long long n_bytes
    # the threads that sort this copy and its narrowed copies
    cdef readonly int n_threads
    # rows of products built here (for tests and diagnostics)
    cdef readonly long long n_built
    # `narrow`: the columns of the rows now at [narrow_start, narrow_end) alone; None
    # when not narrowed
    cdef readonly SparseColumns narrowed
    cdef int narrow_start, narrow_end
    # `pays`: the stored values of the rows [gathers_start, gathers_end) (-1: none yet
    # or a swap since), the gathers' work over the range the steps ask again and again
    cdef int gathers_start, gathers_end
    cdef long long gathers

    cdef void _sort(self, const double[::1] data, const int[::1] indices,
                    const long long[::1] row_start, const int[::1] row_nnz,
                    long long total) noexcept nogil
    cdef int _sort_on_threads(self, const double[::1] data, const int[::1] indices,
                              const long long[::1] row_start, const int[::1] row_nnz,
                              int threads) except -1
    cdef bint pays(self, const int* features, int nnz, const int* row_nnz, int start,
                   int end) noexcept nogil
    cdef long long _column_values(self, const int* features, int nnz) noexcept nogil
    cdef void dots(self, int i, const int* features, const double* values, int nnz,
                   int start, int end, int nthreads, double* out,
                   const SmoRowFinish* finish) noexcept nogil
    cdef bint add_rows(self, const SmoRowBatch* batch, int start, int end, int nthreads,
                       const SmoRowFinish* finish, double* work, double* out) noexcept nogil
    cdef void _add_part(self, const SmoRowBatch* batch, int first, int last,
                        const long long* begin, const long long* stop,
                        const SmoRowFinish* finish, double* work,
                        double* out) noexcept nogil
    cdef bint _thread_bounds(self, int nthreads) noexcept nogil
    cdef void _part(self, int first, int last, const long long* begin,
                    const long long* stop, const int* features, const double* values,
                    int nnz, double* sums) noexcept nogil
    cdef long long _first_at_least(self, int f, int row) noexcept nogil
    cdef void _read_out(self, int first, int last, int start, double* out,
                        const SmoRowFinish* finish) noexcept nogil
    cdef void swap(self, int i, int j) noexcept nogil
