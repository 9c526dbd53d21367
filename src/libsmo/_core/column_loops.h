/* column_loops.h: a sparse feature's column of stored values added into dense sums, the
 * innermost loop of training's sparse Q rows (`sparse_dots.SparseColumns`) and of
 * prediction's sparse kernel blocks (`kernel_blocks.column_dots`).
 *
 * In C rather than Cython: the same loop compiled from Cython ran 15-25% slower on the
 * reviews' prediction columns (145 million products, 0.21-0.25 s against 0.17-0.19 s at
 * one thread), and four entries at a time gained a little more. Each sum gets its
 * products in the order of the scalar loop, so the values are the same.
 */
#ifndef LIBSMO_COLUMN_LOOPS_H
#define LIBSMO_COLUMN_LOOPS_H

#include <string.h>

#include "inner_loops.h"   /* smo_prefetch */

/* sums[rows[p]] += x vals[p] for p in [p, end). The rows of one column are distinct (a
 * feature is stored once a row: the rows are canonical CSR), so four loads may go
 * before four stores; each sum still gets exactly one product here. */
static inline void smo_add_column(const int* rows, const double* vals, long long p,
                                  long long end, double x, double* sums)
{
    for (; p + 4 <= end; p += 4) {
        int r0 = rows[p], r1 = rows[p + 1], r2 = rows[p + 2], r3 = rows[p + 3];
        double s0 = sums[r0] + x * vals[p], s1 = sums[r1] + x * vals[p + 1];
        double s2 = sums[r2] + x * vals[p + 2], s3 = sums[r3] + x * vals[p + 3];
        sums[r0] = s0;
        sums[r1] = s1;
        sums[r2] = s2;
        sums[r3] = s3;
    }
    for (; p < end; p++)
        sums[rows[p]] += x * vals[p];
}

/* out[r, j] (+)= x_r'sv_j for the CSR rows r in [first, last) (indices, data, indptr)
 * and the support vectors' columns (col_start, n_features + 1 offsets; col_row, col_val),
 * out C-contiguous with n_sv columns: each row adds the columns of its stored features
 * in ascending feature order. `add`: onto what out holds, else onto zeros. */
static void smo_column_dots_rows(const int* indices, const double* data,
                                 const long long* indptr, long long first, long long last,
                                 const long long* col_start, const int* col_row,
                                 const double* col_val, double* out, long long n_sv,
                                 int add)
{
    long long r, k, end = indptr[last], ahead;
    if (!add)
        memset(out + first * n_sv, 0, (size_t)((last - first) * n_sv) * sizeof(double));
    for (r = first; r < last; r++) {
        double* row = out + r * n_sv;
        for (k = indptr[r]; k < indptr[r + 1]; k++) {
            /* the next feature's column start, two ahead, and its first entries, one
             * ahead, as training's SparseColumns._part fetches them (3-4% here) */
            if (k + 2 < end)
                smo_prefetch(&col_start[indices[k + 2]]);
            if (k + 1 < end) {
                ahead = col_start[indices[k + 1]];
                smo_prefetch(&col_row[ahead]);
                smo_prefetch(&col_val[ahead]);
            }
            smo_add_column(col_row, col_val, col_start[indices[k]],
                           col_start[indices[k] + 1], data[k], row);
        }
    }
}

#endif
