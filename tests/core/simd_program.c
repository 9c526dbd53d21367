/* Every vector loop of the compiled core's headers on random inputs, its results
 * printed exactly (%a): tests/core/test_simd_variants.py compiles this once per target
 * (SMO_CLONES and SMO_POPCNT_CLONES defined empty, the target given by -march / -m
 * flags, as each of GCC's clones is compiled) and once with the plain C loops
 * (-DSMO_NO_VECTOR), runs each where the processor has the target's instructions, and
 * compares what they print. Line tags: S selection, P partner, G gradient updates, Q
 * Q-row gathers, D dot products, I integer rows, E exponentials, W the RBF row's two
 * widths, B bit counts, V the word-major counts (VPOPCNTQ where the processor has it)
 * against the scalar count. */
#include <stdio.h>
#include <stdlib.h>
#include "inner_loops.h"
#include "int_dots.h"
#include "bit_counts.h"

enum { N = 1003, DMAX = 40, WMAX = 6 };

static double unit(void) { return (double)rand() / RAND_MAX; }

int main(void)
{
    static double G[N], y[N], pen[N], QD[N], out[N], out2[N], sq[N], cols[DMAX * N];
    static double rows[N * DMAX], xi[DMAX], xs2[DMAX], xs3[DMAX], many[3 * N];
    static double table[64 * WMAX + 1], row4[N], row8[N];
    static float fcols[DMAX * N], fxi[DMAX];
    static float Q[N], Q2[N], sign[N], krow[2 * N], qout[N], qout2[N];
    static int index_[N];
    static int16_t irows[N * DMAX], ix[4][DMAX];
    static uint8_t brows[N * DMAX];
    static uint64_t bits[N * WMAX], bits_t[WMAX * N], bx[WMAX];
    int r, t, f;
    srand(1);
    for (r = 0; r < 60; r++) {
        int n = 1 + rand() % N, d = 1 + rand() % DMAX, words = 1 + rand() % WMAX, i, j, k;
        double m, low, obj;
        /* the selection loops, on a coarse grid (ties) and on every magnitude */
        for (t = 0; t < n; t++) {
            y[t] = rand() % 2 ? 1.0 : -1.0;
            G[t] = (rand() % 7) - 3.0 + (rand() % 3) * 0.25;
            pen[t] = rand() % 3 ? 0.0 : -INFINITY;
            QD[t] = 1.0 + (rand() % 2);
            Q[t] = (float)((rand() % 5) / 5.0 - 0.4);
            Q2[t] = (float)(unit() - 0.5);
        }
        i = smo_argmax_up(n, G, y, pen, &m);
        j = smo_partner(n, G, y, pen, QD, Q, 1.5, y[0], m, &low, &obj);
        printf("S %d %d %a %a %a\n", i, j, m, low, obj);
        for (t = 0; t < n; t++) {
            G[t] = (unit() - 0.5) * pow(10.0, (rand() % 321) - 160);
            QD[t] = unit() * pow(10.0, (rand() % 21) - 10);
        }
        m = unit() * pow(10.0, (rand() % 321) - 160);
        j = smo_partner(n, G, y, pen, QD, Q, 1e-3, y[0], m, &low, &obj);
        printf("P %d %a %a\n", j, low, obj);
        /* gradient updates */
        for (t = 0; t < n; t++)
            G[t] = unit() - 0.5;
        smo_update_gradient(n, G, Q, 0.75, Q2, -1.25);
        smo_add_scaled_row(n, G, 0.3, Q2);
        for (t = 0; t < n; t++) {
            out[t] = unit();
            sq[t] = unit() - 0.5;
        }
        smo_axpy(n, out, 0.7, sq);
        smo_axpy4(n, out, 0.1, sq, -0.2, G, 0.3, sq, 0.4, G);
        for (t = 0; t < n; t++)
            printf("G %a %a\n", G[t], out[t]);
        /* Q-row gathers */
        for (t = 0; t < 2 * n; t++)
            krow[t] = (float)(unit() - 0.5);
        for (t = 0; t < n; t++) {
            sign[t] = rand() % 2 ? 1.0f : -1.0f;
            index_[t] = rand() % n;
        }
        smo_signed_gather(n, 0.5f, sign, krow, index_, qout);
        smo_svr_row(n, rand() % (n + 1), n / 2, -1.5f, sign, krow, index_, qout2);
        for (t = 0; t < n; t++)
            printf("Q %a %a\n", (double)qout[t], (double)qout2[t]);
        /* dense dot products, row- and feature-major */
        for (t = 0; t < d * n; t++) {
            cols[t] = (rand() % 2001 - 1000) / 333.0;
            rows[t] = (rand() % 2001 - 1000) / 77.0;
        }
        for (f = 0; f < d; f++) {
            xi[f] = (rand() % 2001 - 1000) / 77.0;
            xs2[f] = unit() - 0.5;
            xs3[f] = unit() * 3.0;
        }
        smo_dense_dots(n, d, n, cols, xi, out);
        smo_row_dots(n, d, rows, d, xi, out2);
        for (t = 0; t < n; t++)
            printf("D %a %a\n", out[t], out2[t]);
        smo_indexed_row_dots(n, d, rows, d, index_, xs2, out);
        {
            const double* sources[3] = {xi, xs2, xs3};
            smo_row_dots_many(n, d, rows, d, rand() % 2 ? index_ : NULL, sources, 3, many,
                              n);
        }
        for (t = 0; t < n; t++)
            printf("D %a %a %a %a\n", out[t], many[t], many[n + t], many[2 * n + t]);
        /* integers in [0, 255] as floats, feature-major, and the same as doubles */
        for (t = 0; t < d * n; t++)
            cols[t] = fcols[t] = (float)(rand() % 256);
        for (f = 0; f < d; f++)
            xi[f] = fxi[f] = (float)(rand() % 256);
        smo_small_int_dots(n, d, n, fcols, fxi, out);
        smo_dense_dots(n, d, n, cols, xi, out2);
        for (t = 0; t < n; t++)
            printf("D %a %a\n", out[t], out2[t]);
        /* integer rows: int16 and uint8 storage, 1 to 5 sources */
        {
            double divisor = 255.0;
            int64_t norm;
            int32_t largest = 0;
            int count = 1 + rand() % 5, b, ok;
            const int16_t* sources[5];
            for (t = 0; t < n * d; t++) {
                brows[t] = (uint8_t)(rand() % 256);
                irows[t] = brows[t];
            }
            for (b = 0; b < 4; b++)
                for (f = 0; f < d; f++)
                    ix[b][f] = (int16_t)(rand() % 256);
            for (b = 0; b < count; b++)
                sources[b] = ix[b % 4];
            for (f = 0; f < d; f++)
                xs2[f] = (rand() % 256) / divisor;
            ok = smo_small_int_row(xs2, d, divisor, ix[3]);
            smo_int_row_norm(ix[3], d, &norm, &largest);
            printf("I %d %lld %d\n", ok, (long long)norm, (int)largest);
            smo_int_dots_many(n, d, irows, d, sources, count, divisor * divisor, many, n);
            for (t = 0; t < count * n; t++)
                printf("I %a\n", many[t]);
            smo_byte_dots_many(n, d, brows, d, sources, count, divisor * divisor, many, n);
            for (t = 0; t < count * n; t++)
                printf("I %a\n", many[t]);
        }
        /* RBF exponentials from -10 (sq_i + sq_j - 2 dot): 0 down to about -1500 */
        for (t = 0; t < n; t++) {
            sq[t] = (rand() % 1000) / 10.0;
            out[t] = (rand() % 1000) / 40.0;
            out2[t] = out[t] - 1e-3 * unit();
        }
        smo_rbf_from_dots(n, out, sq, 50.0, 10.0);
        smo_rbf_from_dots_clamped(n, out2, sq, 50.0, 10.0);
        for (t = 0; t < n; t++)
            printf("E %a %a\n", out[t], out2[t]);
        /* the RBF row four and eight entries at a time (AVX-512 F and DQ) */
        for (t = 0; t < n; t++)
            row4[t] = row8[t] = (rand() % 1000) / 40.0;
        k = smo_rbf_row_both_widths(n, row4, row8, sq, 50.0, 0.1, rand() % 2);
        for (t = 0; t < n; t++)
            if (k && row8[t] != row4[t]) {
                printf("W differ %d %a %a\n", t, row4[t], row8[t]);
                return 1;
            }
        printf("W %d\n", k);
        /* 0/1 rows as bitmaps: row-major counts, Q rows, and word-major counts */
        for (t = 0; t < n * words; t++) {
            uint64_t w = ((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 11) ^ rand();
            bits[t] = w;
        }
        for (t = 0; t < n; t++)
            for (f = 0; f < words; f++)
                bits_t[(long)f * n + t] = bits[(long)t * words + f];
        for (f = 0; f < words; f++)
            bx[f] = ((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 11) ^ rand();
        for (t = 0; t <= 64 * words; t++)
            table[t] = smo_rbf_exp(-0.05 * t);
        for (k = 0; k < 2; k++) {
            double s_i = k ? -1.0 : 1.0;
            for (t = 0; t < n; t++)
                sign[t] = rand() % 2 ? 1.0f : -1.0f;
            for (t = 0; t < n; t++)
                out2[t] = sign[t];
            smo_bit_rows(n, words, bits, bx, k, table, out);
            smo_bit_q_rows(n, words, bits, bx, k, table, s_i, out2, qout);
            smo_bit_q_cols(n, words, bits_t, n, bx, k, table, s_i, out2, qout2);
            smo_bit_cols(n, words, bits_t, n, bx, k, table, row4);
            for (t = 0; t < n; t++) {
                double scalar = table[smo_count_col(bits_t, n, t, words, bx, k)];
                if (row4[t] != scalar || row4[t] != out[t] || qout[t] != qout2[t]) {
                    printf("V differ %d %a %a %a\n", t, row4[t], scalar, out[t]);
                    return 1;
                }
                printf("B %a %a\n", out[t], (double)qout[t]);
            }
        }
        printf("V %d\n", smo_has_vpopcnt());
    }
    return 0;
}
