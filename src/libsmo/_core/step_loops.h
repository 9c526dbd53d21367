/* step_loops.h: the per-step loops of the solver (inner_loops.h) shared among OpenMP
 * threads, for long active sets on more than one thread.
 *
 * A step of a large problem spends most of its time in a few passes over the active
 * variables: the worst violator, its second-order partner, the gradient update, and
 * on a cache miss the new Q row's conversion to float. The kernel row was already
 * computed in parallel; these passes ran on one thread, so that two threads gave
 * a9a (32,561 rows) nothing at all. Each pass here splits [0, n) into one contiguous
 * range per thread, runs inner_loops.h's own loop on it, and merges the ranges'
 * results in range order, a tie going to the later range: that is the last index of
 * the whole range, which is what the serial loop gives (the same values compared in
 * the same way), so the solver takes exactly the steps it takes on one thread.
 *
 * Below SMO_STEP_PARALLEL_MIN variables, or on one thread, the serial loop runs as is.
 * Without OpenMP everything is serial.
 */
#ifndef LIBSMO_STEP_LOOPS_H
#define LIBSMO_STEP_LOOPS_H

#include <stdlib.h>
#include "inner_loops.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many variables a pass runs on one thread: starting the threads (about a
 * microsecond when they are spinning between steps) costs more than half the pass. */
#define SMO_STEP_PARALLEL_MIN 8192
/* Under OMP_WAIT_POLICY=passive the threads sleep between parallel regions, and every
 * region pays for waking them (tens of microseconds): a9a's fit on two threads took
 * 6.5 s against 0.85 s. The passes are then split only where they are this long, and
 * the cache's exchanges only over this many rows. */
#define SMO_STEP_PARALLEL_MIN_PASSIVE (1 << 20)
/* At most this many ranges (and threads) per pass. */
#define SMO_STEP_MAX_PARTS 64

/* 1 when the OpenMP threads sleep between regions (read once; the race between
 * threads reading it first writes the same value). */
static int smo_threads_sleep(void)
{
    static int known = 0, asleep = 0;
    if (!known) {
        const char* policy = getenv("OMP_WAIT_POLICY");
        const char* word = "passive";
        int k = 0;
        /* "passive" in any case (strcasecmp is POSIX, not C) */
        while (policy != NULL && word[k] != '\0'
               && (policy[k] | 0x20) == word[k])
            k++;
        asleep = policy != NULL && word[k] == '\0' && policy[k] == '\0';
        known = 1;
    }
    return asleep;
}

/* Start of range k of `parts` over [0, n), a multiple of 8 (the vector loops' stride)
 * except at n. */
static inline int smo_part_start(int n, int parts, int k)
{
    long long start = ((long long)n * k / parts) & ~7LL;
    return k >= parts ? n : (int)start;
}

static inline int smo_step_threads(int n, int threads)
{
    if (threads > SMO_STEP_MAX_PARTS)
        threads = SMO_STEP_MAX_PARTS;
    if (n < (smo_threads_sleep() ? SMO_STEP_PARALLEL_MIN_PASSIVE : SMO_STEP_PARALLEL_MIN))
        return 1;
    return threads < 2 ? 1 : threads;
}

/* smo_argmax_up over [0, n) on up to `threads` threads: the same t and maximum. */
static int smo_argmax_up_threads(int n, const double* G, const double* y,
                                 const double* pen, double* out_max, int threads)
{
    int best_t[SMO_STEP_MAX_PARTS];
    double best[SMO_STEP_MAX_PARTS];
    int parts = smo_step_threads(n, threads), k, t = -1;
    double top = -INFINITY;
    if (parts == 1)
        return smo_argmax_up(n, G, y, pen, out_max);
#ifdef _OPENMP
    #pragma omp parallel for num_threads(parts) schedule(static, 1)
#endif
    for (k = 0; k < parts; k++) {
        int lo = smo_part_start(n, parts, k), hi = smo_part_start(n, parts, k + 1);
        int found = smo_argmax_up(hi - lo, G + lo, y + lo, pen + lo, &best[k]);
        best_t[k] = found < 0 ? -1 : found + lo;
    }
    /* the serial loop keeps the last minimum of -v: a later range wins a tie */
    for (k = 0; k < parts; k++) {
        if (best_t[k] >= 0 && (t < 0 || best[k] >= top)) {
            t = best_t[k];
            top = best[k];
        }
    }
    *out_max = top;
    return t;
}

/* smo_partner over [0, n) on up to `threads` threads: the same t, low_max and obj_min. */
static int smo_partner_threads(int n, const double* G, const double* y, const double* pen,
                               const double* QD, const float* Qi, double QD_i, double y_i,
                               double max_up, double* low_max, double* obj_min,
                               int threads)
{
    int best_t[SMO_STEP_MAX_PARTS];
    double best[SMO_STEP_MAX_PARTS], low[SMO_STEP_MAX_PARTS];
    int parts = smo_step_threads(n, threads), k, t = -1;
    double obj = INFINITY, low_all = -INFINITY;
    if (parts == 1)
        return smo_partner(n, G, y, pen, QD, Qi, QD_i, y_i, max_up, low_max, obj_min);
#ifdef _OPENMP
    #pragma omp parallel for num_threads(parts) schedule(static, 1)
#endif
    for (k = 0; k < parts; k++) {
        int lo = smo_part_start(n, parts, k), hi = smo_part_start(n, parts, k + 1);
        int found = smo_partner(hi - lo, G + lo, y + lo, pen + lo, QD + lo, Qi + lo, QD_i,
                                y_i, max_up, &low[k], &best[k]);
        best_t[k] = found < 0 ? -1 : found + lo;
    }
    for (k = 0; k < parts; k++) {
        if (low[k] > low_all)
            low_all = low[k];
        if (best_t[k] >= 0 && best[k] <= obj) {
            t = best_t[k];
            obj = best[k];
        }
    }
    *low_max = low_all;
    *obj_min = obj;
    return t;
}

/* smo_update_gradient over [0, n) on up to `threads` threads. */
static void smo_update_gradient_threads(int n, double* G, const float* Qi, double dai,
                                        const float* Qj, double daj, int threads)
{
    int parts = smo_step_threads(n, threads), k;
    if (parts == 1) {
        smo_update_gradient(n, G, Qi, dai, Qj, daj);
        return;
    }
#ifdef _OPENMP
    #pragma omp parallel for num_threads(parts) schedule(static, 1)
#endif
    for (k = 0; k < parts; k++) {
        int lo = smo_part_start(n, parts, k), hi = smo_part_start(n, parts, k + 1);
        smo_update_gradient(hi - lo, G + lo, Qi + lo, dai, Qj + lo, daj);
    }
}

/* smo_add_scaled_row over [0, n) on up to `threads` threads. */
static void smo_add_scaled_row_threads(int n, double* out, double coef, const float* Qi,
                                       int threads)
{
    int parts = smo_step_threads(n, threads), k;
    if (parts == 1) {
        smo_add_scaled_row(n, out, coef, Qi);
        return;
    }
#ifdef _OPENMP
    #pragma omp parallel for num_threads(parts) schedule(static, 1)
#endif
    for (k = 0; k < parts; k++) {
        int lo = smo_part_start(n, parts, k), hi = smo_part_start(n, parts, k + 1);
        smo_add_scaled_row(hi - lo, out + lo, coef, Qi + lo);
    }
}

/* smo_rbf_from_dots over [0, n) on up to `threads` threads: each entry is the same
 * wherever it falls in a range (smo_rbf_row), so the row is the one-thread row.
 * One part is a plain call, as in every *_threads function here: an OpenMP region
 * of one thread (an if clause) still has libgomp build and free a team, about 0.3 us
 * a call and, in a fresh process, a new heap page faulted in most calls (118 of
 * housing's 175 page faults in its first fit). */
static void smo_rbf_from_dots_threads(int n, double* out, const double* sq, double sq_i,
                                      double gamma, int threads)
{
    int parts = smo_step_threads(n, threads), k;
    if (parts == 1) {
        smo_rbf_from_dots(n, out, sq, sq_i, gamma);
        return;
    }
#ifdef _OPENMP
    #pragma omp parallel for num_threads(parts) schedule(static, 1)
#endif
    for (k = 0; k < parts; k++) {
        int lo = smo_part_start(n, parts, k), hi = smo_part_start(n, parts, k + 1);
        smo_rbf_from_dots(hi - lo, out + lo, sq + lo, sq_i, gamma);
    }
}

/* out_j = (float)(s_i sign_j k_j) for j in [lo, hi): a kernel row made a Q row (the
 * signs of C-SVC's Q_ij = y_i y_j K_ij). Every conversion of a row goes through here, the
 * products in this order, so the floats are the same wherever a row is converted. The
 * pointers restrict-qualified: stores to out would otherwise make the compiler reload
 * what the others point to (a loop three times slower). */
static inline void smo_signed_part(int lo, int hi, double s_i,
                                   const double* SMO_RESTRICT sign,
                                   const double* SMO_RESTRICT k, float* SMO_RESTRICT out)
{
    int j;
    for (j = lo; j < hi; j++)
        out[j] = (float)(s_i * sign[j] * k[j]);
}

/* What turns a row of dot products into a row of Q, entry by entry, for a loop that
 * finishes each thread's part of the row in the region that summed it
 * (sparse_dots.SparseColumns.dots): the RBF kernel when `rbf` (squared norms sq of the
 * row's entries, sq_i of its own row), then q_out_j = (float)(s_i sign_j k_j). The
 * same entries as smo_rbf_from_dots_threads and smo_signed_row_threads give, wherever
 * a part starts: one parallel region a row, where those two passes took one each after
 * the sums' own. */
typedef struct {
    int rbf;
    double gamma, sq_i, s_i;
    const double* sq;
    const double* sign;
    float* q_out;
} SmoRowFinish;

/* Offer item t of value v to the `want` largest kept so far (values[0 : n], sorted
 * descending; a later item goes before an equal value, as the selection's ties): the
 * rows the next steps are likeliest to ask for (smo.Solver._rows_to_come). Returns the
 * new count. */
static inline int smo_keep_largest(double* values, int* items, int n, int want, double v,
                                   int t)
{
    int k;
    if (n == want && v < values[n - 1])
        return n;
    k = n < want ? n : n - 1;
    while (k > 0 && v >= values[k - 1]) {
        values[k] = values[k - 1];
        items[k] = items[k - 1];
        k--;
    }
    values[k] = v;
    items[k] = t;
    return n < want ? n + 1 : n;
}

/* Rows of Q added to a sum, out_j += coefs[b] Q_{rows[b] j} over one range for b in
 * order (the gradient's reconstruction), for sparse_dots.SparseColumns.add_rows: the
 * rows' entries over the range where the cache holds them (else NULL), and the CSR rows'
 * features and values, squared norms and signs, indexed by the solver's row number. */
typedef struct {
    int count;
    const int* rows;
    const double* coefs;
    const float* const* cached;
    const long long* row_start;
    const int* row_nnz;
    const int* features;
    const double* values;
    const double* sq_norm;
    const double* sign;
} SmoRowBatch;

/* Entries [lo, hi) of the row `dots` (the row's own indices) finished as `finish` says. */
static inline void smo_finish_part(const SmoRowFinish* finish, double* dots, int lo,
                                   int hi)
{
    if (hi <= lo)
        return;
    if (finish->rbf)
        smo_rbf_from_dots(hi - lo, dots + lo, finish->sq + lo, finish->sq_i,
                          finish->gamma);
    smo_signed_part(lo, hi, finish->s_i, finish->sign, dots, finish->q_out);
}

/* smo_signed_part over [0, n) on up to `threads` threads. */
static void smo_signed_row_threads(int n, double s_i, const double* sign, const double* k,
                                   float* out, int threads)
{
    int parts = smo_step_threads(n, threads), part;
    if (parts == 1) {
        smo_signed_part(0, n, s_i, sign, k, out);
        return;
    }
#ifdef _OPENMP
    #pragma omp parallel for num_threads(parts) schedule(static, 1)
#endif
    for (part = 0; part < parts; part++)
        smo_signed_part(smo_part_start(n, parts, part), smo_part_start(n, parts, part + 1),
                        s_i, sign, k, out);
}

/* rows[h][lo] <-> rows[h][hi] for h in [0, count): the row cache following the solver's
 * exchange of two variables (RowCache.swap_index), on up to `threads` threads when
 * there are SMO_SWAP_PARALLEL_MIN rows or more. */
#define SMO_SWAP_PARALLEL_MIN 64
static inline int smo_swap_threads(int count, int threads)
{
    int least = smo_threads_sleep() ? SMO_STEP_PARALLEL_MIN_PASSIVE : SMO_SWAP_PARALLEL_MIN;
    return (count < least || threads < 2) ? 1 : threads;
}

static inline void smo_swap_in_row(float* row, int lo, int hi)
{
    float t = row[lo];
    row[lo] = row[hi];
    row[hi] = t;
}

static void smo_swap_entries_threads(int count, float** rows, int lo, int hi, int threads)
{
    int h, parts = smo_swap_threads(count, threads);
    if (parts == 1) {
        for (h = 0; h < count; h++)
            smo_swap_in_row(rows[h], lo, hi);
        return;
    }
#ifdef _OPENMP
    #pragma omp parallel for num_threads(parts) schedule(static)
#endif
    for (h = 0; h < count; h++)
        smo_swap_in_row(rows[h], lo, hi);
}

/* The exchanges of smo_apply_swaps_threads in one row of `length` valid entries; 1 when
 * the row holds the lower entry of an exchange but not the higher (then it is left as
 * it is from there), else 0. */
static inline char smo_apply_swaps_to_row(float* row, int length, const int* pending,
                                          int n_swaps)
{
    int k;
    for (k = 0; k < n_swaps; k++) {
        int lo = pending[2 * k], hi = pending[2 * k + 1];
        if (length > hi)
            smo_swap_in_row(row, lo, hi);
        else if (length > lo)
            return 1;
    }
    return 0;
}

/* The exchanges pending[2k] <-> pending[2k + 1], k in [0, n_swaps), in order, in each of
 * the `count` rows (lengths[h] valid entries): a row that holds the lower entry of an
 * exchange but not the higher cannot follow it and gets evict[h] = 1 (it is left as it
 * is from there). RowCache.apply_swaps: one visit per row for a shrinking pass's
 * exchanges, on up to `threads` threads. */
static void smo_apply_swaps_threads(int count, float** rows, const int* lengths,
                                    const int* pending, int n_swaps, char* evict,
                                    int threads)
{
    int h, parts = smo_swap_threads(count, threads);
    if (parts == 1) {
        for (h = 0; h < count; h++)
            evict[h] = smo_apply_swaps_to_row(rows[h], lengths[h], pending, n_swaps);
        return;
    }
#ifdef _OPENMP
    #pragma omp parallel for num_threads(parts) schedule(static)
#endif
    for (h = 0; h < count; h++)
        evict[h] = smo_apply_swaps_to_row(rows[h], lengths[h], pending, n_swaps);
}

#endif
