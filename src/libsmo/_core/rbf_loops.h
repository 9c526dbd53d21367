/* rbf_loops.h: RBF kernel rows from their dot products, the exponentials four at a time
 * and, where the processor has AVX-512 (Zen 4, Skylake-SP and later), eight at a time.
 * Part of inner_loops.h, which includes it at its end.
 *
 * The exponential and the row's arithmetic are written once (SMO_DEFINE_EXP,
 * SMO_DEFINE_RBF) and made for both widths, so every lane runs the same IEEE
 * operations in the same order: an entry has the same value whichever width computed
 * it (tests/test_kernel.py compares the two on every entry of real rows). Eight at a
 * time, one pass over a row took 1.40 ns a value against 1.78 (Zen 4, a one-off C
 * program with the build's flags; -ffp-contract=off makes each a*b + c two operations).
 */
#ifndef LIBSMO_RBF_LOOPS_H
#define LIBSMO_RBF_LOOPS_H

#include "inner_loops.h"

#ifdef SMO_VECTOR
/* exp(x) for x <= 0, to about one ulp: x = k ln2 + r with |r| <= ln2 / 2, e^r by its
 * Taylor polynomial of degree 13 (truncation below 1e-17), times 2^k built in the
 * exponent bits. Below -708 (where exp leaves the normal doubles) it gives 0: its
 * callers store float32, where anything under 1e-45 is 0 anyway. Estrin's scheme: a
 * shallow tree of independent products instead of Horner's chain of 13 dependent
 * steps, which left the core waiting on latency. */
#define SMO_DEFINE_EXP(QUALIFIERS, NAME, V, L)                                         \
QUALIFIERS V NAME(V x)                                                                 \
{                                                                                      \
    const double shift = 6755399441055744.0; /* 1.5 * 2^52: rounds to an integer */   \
    V zero = (V){0}, lo = zero - 708.0, xc, kd, r, r2, r4, r8, p;                      \
    L underflow = (L)(x < lo), k;                                                      \
    xc = (V)((underflow & (L)lo) | (~underflow & (L)x));                               \
    kd = xc * 1.4426950408889634 + shift;                                              \
    /* the low bits of kd now hold k; 0x4338... is the bit pattern of shift */         \
    k = (L)kd - (int64_t)0x4338000000000000LL;                                         \
    kd = kd - shift;                                                                   \
    /* ln 2 in two parts: k * 6.93147180369123816490e-01 is exact for |k| < 2^20 */    \
    r = (xc - kd * 6.93147180369123816490e-01) - kd * 1.90821492927058770002e-10;      \
    r2 = r * r;                                                                        \
    r4 = r2 * r2;                                                                      \
    r8 = r4 * r4;                                                                      \
    p = ((1.0 + r) + r2 * (0.5 + r * (1.0 / 6.0)))                                     \
        + r4 * (((1.0 / 24.0) + r * (1.0 / 120.0))                                     \
                + r2 * ((1.0 / 720.0) + r * (1.0 / 5040.0)))                           \
        + r8 * (((1.0 / 40320.0) + r * (1.0 / 362880.0))                               \
                + r2 * ((1.0 / 3628800.0) + r * (1.0 / 39916800.0))                    \
                + r4 * ((1.0 / 479001600.0) + r * (1.0 / 6227020800.0)));             \
    p = p * (V)((k + 1023) << 52);                                                     \
    return (V)(~underflow & (L)p);                                                     \
}

/* exp(-gamma d) of a vector of entries, d = (sq_i + sq) - 2 dot (LIBSVM's formula, in
 * its order of operations), clamped at 0 for prediction, where rounding of the
 * expansion can make it slightly negative, so that no value exceeds 1 (K(x, x) = 1
 * exactly, as LIBSVM's difference form gives it). */
#define SMO_DEFINE_RBF(QUALIFIERS, NAME, EXP, V, L)                                    \
QUALIFIERS V NAME(V dot, V sq, double sq_i, double gamma, int clamp)                   \
{                                                                                      \
    V zero = (V){0};                                                                   \
    V d = (sq_i + sq) - 2.0 * dot;                                                     \
    if (clamp)                                                                         \
        d = (V)(~(L)(d < zero) & (L)d);                                                \
    return EXP(-gamma * d);                                                            \
}

/* forced inline (SMO_INLINED): an out-of-line copy is compiled for the default target,
 * and a clone calling it would run SSE2 code */
SMO_DEFINE_EXP(SMO_INLINED, smo_exp4, smo_v4d, smo_v4l)
SMO_DEFINE_RBF(SMO_INLINED, smo_rbf4, smo_exp4, smo_v4d, smo_v4l)
#endif

/* The eight-wide path: GCC on Linux/x86-64, as the clones of inner_loops.h. */
#if defined(SMO_VECTOR) && defined(__GNUC__) && !defined(__clang__) \
    && defined(__x86_64__) && defined(__linux__)
#define SMO_WIDE_RBF 1
#define SMO_WIDE_TARGET __attribute__((target("avx512f,avx512dq")))
typedef double smo_v8d __attribute__((vector_size(64)));
typedef int64_t smo_v8l __attribute__((vector_size(64)));

SMO_DEFINE_EXP(SMO_WIDE_TARGET static inline __attribute__((always_inline)), smo_exp8,
               smo_v8d, smo_v8l)
SMO_DEFINE_RBF(SMO_WIDE_TARGET static inline __attribute__((always_inline)), smo_rbf8,
               smo_exp8, smo_v8d, smo_v8l)

/* Whether this processor runs the eight-wide path (AVX-512 F and DQ). */
static int smo_has_wide_rbf(void) { return (smo_cpu_features() & SMO_CPU_AVX512_DQ) != 0; }

/* smo_rbf_row eight entries at a time; the last one to seven go through the same
 * exponential, padded. */
SMO_WIDE_TARGET
static void smo_rbf_row8(int n, double* out, const double* sq, double sq_i, double gamma,
                         int clamp)
{
    smo_v8d a, b, s, t;
    double o[8] = {0.0}, q[8] = {0.0};
    int j = 0, m;
    for (; j + 16 <= n; j += 16) {
        memcpy(&a, out + j, sizeof a);
        memcpy(&b, out + j + 8, sizeof b);
        memcpy(&s, sq + j, sizeof s);
        memcpy(&t, sq + j + 8, sizeof t);
        a = smo_rbf8(a, s, sq_i, gamma, clamp);
        b = smo_rbf8(b, t, sq_i, gamma, clamp);
        memcpy(out + j, &a, sizeof a);
        memcpy(out + j + 8, &b, sizeof b);
    }
    for (; j < n; j += 8) {
        m = n - j < 8 ? n - j : 8;
        memcpy(o, out + j, (size_t)m * sizeof(double));
        memcpy(q, sq + j, (size_t)m * sizeof(double));
        memcpy(&a, o, sizeof a);
        memcpy(&s, q, sizeof s);
        a = smo_rbf8(a, s, sq_i, gamma, clamp);
        memcpy(o, &a, sizeof a);
        memcpy(out + j, o, (size_t)m * sizeof(double));
    }
}
#else
static int smo_has_wide_rbf(void) { return 0; }
#endif

/* out_j <- smo_rbf4 of (out_j, sq_j) for j in [0, n), four entries at a time: an RBF
 * kernel row from the dot products in out. The last one to three entries go through
 * the same exponential, padded, so that each entry is smo_rbf_exp(-gamma d) wherever it
 * falls in a row (the tables of bit_counts.h hold exactly these values). */
SMO_INLINED void smo_rbf_row4(int n, double* out, const double* sq, double sq_i,
                              double gamma, int clamp)
{
    int j = 0, t;
#ifdef SMO_VECTOR
    double o[4] = {0.0, 0.0, 0.0, 0.0}, q[4] = {0.0, 0.0, 0.0, 0.0};
    for (; j + 8 <= n; j += 8) {
        smo_v4d e0 = smo_rbf4(smo_load4d(out + j), smo_load4d(sq + j), sq_i, gamma, clamp);
        smo_v4d e1 = smo_rbf4(smo_load4d(out + j + 4), smo_load4d(sq + j + 4), sq_i, gamma,
                              clamp);
        smo_store4d(out + j, e0);
        smo_store4d(out + j + 4, e1);
    }
    for (; j + 4 <= n; j += 4)
        smo_store4d(out + j, smo_rbf4(smo_load4d(out + j), smo_load4d(sq + j), sq_i,
                                      gamma, clamp));
    if (j < n) {
        for (t = 0; j + t < n; t++) {
            o[t] = out[j + t];
            q[t] = sq[j + t];
        }
        smo_store4d(o, smo_rbf4(smo_load4d(o), smo_load4d(q), sq_i, gamma, clamp));
        for (t = 0; j + t < n; t++)
            out[j + t] = o[t];
    }
#else
    (void)t;
    for (; j < n; j++) {
        double d = (sq_i + sq[j]) - 2.0 * out[j];
        out[j] = exp(-gamma * (clamp && d < 0.0 ? 0.0 : d));
    }
#endif
}

/* An RBF kernel row, eight entries at a time where the processor can, else four: the
 * same values either way. */
SMO_INLINED void smo_rbf_row(int n, double* out, const double* sq, double sq_i,
                             double gamma, int clamp)
{
#ifdef SMO_WIDE_RBF
    if (n >= 8 && smo_has_wide_rbf()) {
        smo_rbf_row8(n, out, sq, sq_i, gamma, clamp);
        return;
    }
#endif
    smo_rbf_row4(n, out, sq, sq_i, gamma, clamp);
}

/* An RBF kernel row of training, from its dot products. */
SMO_CLONES
static void smo_rbf_from_dots(int n, double* out, const double* sq, double sq_i,
                              double gamma)
{
    smo_rbf_row(n, out, sq, sq_i, gamma, 0);
}

/* A row of prediction's RBF kernel block, from its dot products (clamped). */
SMO_CLONES
static void smo_rbf_from_dots_clamped(int n, double* out, const double* sq, double sq_i,
                                      double gamma)
{
    smo_rbf_row(n, out, sq, sq_i, gamma, 1);
}

/* Test entry: the row four entries at a time into out4 and, where the processor has
 * the eight-wide path, eight at a time into out8 (both hold the dot products on entry).
 * Returns whether out8 was computed. */
static int smo_rbf_row_both_widths(int n, double* out4, double* out8, const double* sq,
                                   double sq_i, double gamma, int clamp)
{
    smo_rbf_row4(n, out4, sq, sq_i, gamma, clamp);
#ifdef SMO_WIDE_RBF
    if (smo_has_wide_rbf()) {
        smo_rbf_row8(n, out8, sq, sq_i, gamma, clamp);
        return 1;
    }
#endif
    (void)out8;
    return 0;
}

#endif
