/* bit_counts.h: kernel rows of 0/1 rows kept as bitmaps (`Rows.bit_values`,
 * `bitmaps.bit_kernel_block`), and the exponential the RBF tables are filled with. A row
 * of such values is a bit count and a table load per entry; the tables hold exactly the
 * values inner_loops.h's row loops compute, so the two give the same bits.
 */
#ifndef LIBSMO_BIT_COUNTS_H
#define LIBSMO_BIT_COUNTS_H

#include "inner_loops.h"

/* exp(x) exactly as smo_rbf_from_dots computes each entry of a row. */
static double smo_rbf_exp(double x)
{
#ifdef SMO_VECTOR
    smo_v4d v = {x, x, x, x};
    double e[4];
    smo_store4d(e, smo_exp4(v));
    return e[0];
#else
    return exp(x);
#endif
}

/* Rows of 0/1 values kept as bitmaps (bit f of a row's `words` 64-bit words is feature
 * f): x'row_j is the number of features both have, popcount(x & row_j). On a9a (123
 * binary features, 14 a row) a row of these is two AND-and-count steps per row where the
 * CSR gather waits on a chain of fourteen dependent additions. The count is exact, and
 * so is any sum of products of zeros and ones in double precision: the same values as
 * the CSR and dense loops give. */
#if defined(__GNUC__) || defined(__clang__)
#define smo_popcount64(w) ((long)__builtin_popcountll(w))
#else
static inline long smo_popcount64(uint64_t w)
{
    w = w - ((w >> 1) & 0x5555555555555555ULL);
    w = (w & 0x3333333333333333ULL) + ((w >> 2) & 0x3333333333333333ULL);
    w = (w + (w >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (long)((w * 0x0101010101010101ULL) >> 56);
}
#endif

#ifndef SMO_POPCNT_CLONES   /* (a test program compiles each target on its own) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
/* the popcnt instruction where the processor has it; a table-free bit count elsewhere */
#define SMO_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define SMO_POPCNT_CLONES
#endif
#endif

/* out_j <- c_j, or table[c_j] when a table is given, for j in [0, n), where c_j counts
 * the bits of x & row_j (the dot product) or, with by_xor, of x ^ row_j (the squared
 * distance |x|^2 + |row_j|^2 - 2 x'row_j, exactly); row j at rows + j words. A kernel
 * value of 0/1 rows is a function of one of these counts, so the kernel builds a table
 * of its d + 1 values once (`Kernel`) and a row of kernel values costs a count and a
 * load per entry: no exponential left. */
/* The row loop for W words a row: with W a constant the compiler unrolls the count and
 * keeps the words of x in registers (w8a, 5 words: 3.4 ns a value with the words counted
 * in a loop of unknown length). */
#define SMO_BIT_LOOP(W, OP, STORE) \
    for (j = 0; j < n; j++) { \
        const uint64_t* row = rows + (long)j * (W); \
        long c = 0; \
        for (w = 0; w < (W); w++) \
            c += smo_popcount64(row[w] OP x[w]); \
        STORE; \
    }

#define SMO_BIT_CASES(OP, STORE) \
    switch (words) { \
    case 1: SMO_BIT_LOOP(1, OP, STORE) break; \
    case 2: SMO_BIT_LOOP(2, OP, STORE) break; \
    case 3: SMO_BIT_LOOP(3, OP, STORE) break; \
    case 4: SMO_BIT_LOOP(4, OP, STORE) break; \
    case 5: SMO_BIT_LOOP(5, OP, STORE) break; \
    case 6: SMO_BIT_LOOP(6, OP, STORE) break; \
    case 7: SMO_BIT_LOOP(7, OP, STORE) break; \
    case 8: SMO_BIT_LOOP(8, OP, STORE) break; \
    default: SMO_BIT_LOOP(words, OP, STORE) break; \
    }

/* The row loop for either count (AND or XOR), each entry stored by STORE. */
#define SMO_BIT_ROWS_BY_OP(STORE) \
    if (by_xor) { \
        SMO_BIT_CASES(^, STORE) \
    } else { \
        SMO_BIT_CASES(&, STORE) \
    }

#define SMO_STORE_VALUE (out[j] = table ? table[c] : (double)c)
#define SMO_STORE_Q (q_out[j] = (float)(s_i * sign[j] * table[c]))

SMO_POPCNT_CLONES
static void smo_bit_rows(int n, int words, const uint64_t* SMO_RESTRICT rows,
                         const uint64_t* SMO_RESTRICT x, int by_xor,
                         const double* SMO_RESTRICT table, double* SMO_RESTRICT out)
{
    int j, w;
    SMO_BIT_ROWS_BY_OP(SMO_STORE_VALUE)
}

/* A row of the solver's Q matrix in one pass: q_out_j <- (float)(s_i sign_j table[c_j]),
 * the very expression smo_signed_row_threads applies to smo_bit_rows' out_j (the same
 * bits). Counting straight into float32 leaves out the row of doubles between the two:
 * on a9a, 16 bytes an entry written and read again, and the second pass was as long as
 * a third of the counts. */
SMO_POPCNT_CLONES
static void smo_bit_q_rows(int n, int words, const uint64_t* SMO_RESTRICT rows,
                           const uint64_t* SMO_RESTRICT x, int by_xor,
                           const double* SMO_RESTRICT table, double s_i,
                           const double* SMO_RESTRICT sign, float* SMO_RESTRICT q_out)
{
    int j, w;
    SMO_BIT_ROWS_BY_OP(SMO_STORE_Q)
}

/* The count c_j of vector j, word-major: the scalar loop of both functions below,
 * inlined into each of their clones. */
static inline long smo_count_col(const uint64_t* cols, long ld, int j, int words,
                          const uint64_t* x, int by_xor)
{
    long c = 0;
    int w;
    for (w = 0; w < words; w++) {
        uint64_t v = cols[(long)w * ld + j];
        c += smo_popcount64(by_xor ? v ^ x[w] : v & x[w]);
    }
    return c;
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#include <immintrin.h>
#define SMO_VPOPCNT_PATH 1
static int smo_has_vpopcnt(void)
{
    return (smo_cpu_features() & SMO_CPU_AVX512_POPCNT) != 0;
}

/* The counts c_j of the eight vectors j0 .. j0 + 7, word-major. */
__attribute__((target("avx512f,avx512vpopcntdq")))
static inline __m512i smo_count8(const uint64_t* cols, long ld, int j0, int words,
                                 const uint64_t* x, int by_xor)
{
    __m512i count = _mm512_setzero_si512();
    int w;
    for (w = 0; w < words; w++) {
        __m512i v = _mm512_loadu_si512((const void*)(cols + (long)w * ld + j0));
        __m512i xw = _mm512_set1_epi64((long long)x[w]);
        v = by_xor ? _mm512_xor_si512(v, xw) : _mm512_and_si512(v, xw);
        count = _mm512_add_epi64(count, _mm512_popcnt_epi64(v));
    }
    return count;
}

__attribute__((target("avx512f,avx512vpopcntdq")))
static int smo_bit_cols_vpopcnt(int n, int words, const uint64_t* cols, long ld,
                                const uint64_t* x, int by_xor, const double* table,
                                double* out)
{
    int j;
    for (j = 0; j + 8 <= n; j += 8)
        _mm512_storeu_pd(out + j, _mm512_i64gather_pd(
            smo_count8(cols, ld, j, words, x, by_xor), table, 8));
    return j;
}

/* smo_bit_q_rows' values, word-major: eight Q entries a step, through the same double
 * expression (s_i sign_j) table[c_j] and the same rounding to float. */
__attribute__((target("avx512f,avx512vpopcntdq")))
static int smo_bit_q_cols_vpopcnt(int n, int words, const uint64_t* cols, long ld,
                                  const uint64_t* x, int by_xor, const double* table,
                                  double s_i, const double* sign, float* q_out)
{
    int j;
    __m512d si = _mm512_set1_pd(s_i);
    for (j = 0; j + 8 <= n; j += 8) {
        __m512d t = _mm512_i64gather_pd(smo_count8(cols, ld, j, words, x, by_xor),
                                        table, 8);
        __m512d q = _mm512_mul_pd(_mm512_mul_pd(si, _mm512_loadu_pd(sign + j)), t);
        _mm256_storeu_ps(q_out + j, _mm512_cvtpd_ps(q));
    }
    return j;
}
#else
static int smo_has_vpopcnt(void) { return 0; }
#endif

/* smo_bit_q_rows over word-major bitmaps (Rows.bits_t): eight rows a step where the
 * processor has VPOPCNTQ, the scalar loop for the rest (and elsewhere). */
SMO_POPCNT_CLONES
static void smo_bit_q_cols(int n, int words, const uint64_t* SMO_RESTRICT cols, long ld,
                           const uint64_t* SMO_RESTRICT x, int by_xor,
                           const double* SMO_RESTRICT table, double s_i,
                           const double* SMO_RESTRICT sign, float* SMO_RESTRICT q_out)
{
    int j = 0;
#ifdef SMO_VPOPCNT_PATH
    if (smo_has_vpopcnt())
        j = smo_bit_q_cols_vpopcnt(n, words, cols, ld, x, by_xor, table, s_i, sign, q_out);
#endif
    for (; j < n; j++)
        q_out[j] = (float)(s_i * sign[j] * table[smo_count_col(cols, ld, j, words, x,
                                                                by_xor)]);
}

/* Support vectors' bitmaps stored word-major (word w of vector j at cols[w * ld + j]),
 * for prediction's kernel sums: out_j <- table[c_j] for j in [0, n), c_j counted as
 * smo_bit_rows counts it, so the same values. Word-major rows let eight vectors be
 * counted by one AVX-512 VPOPCNTQ on processors that have it (Zen 4, Ice Lake and
 * later): w8a's 5 words, 1.64 -> 0.97 ns a value (benchmarks/bit_counts.py), where
 * gathering eight row-major vectors was slower than the scalar loop (2.6 against 2.0
 * ns in a one-off C program). The scalar loop counts the last n mod 8 vectors;
 * without VPOPCNTQ (smo_has_vpopcnt() == 0) callers keep the row-major bitmaps and
 * smo_bit_rows, whose unrolled loops are faster than this one's. */
SMO_POPCNT_CLONES
static void smo_bit_cols(int n, int words, const uint64_t* SMO_RESTRICT cols, long ld,
                         const uint64_t* SMO_RESTRICT x, int by_xor,
                         const double* SMO_RESTRICT table, double* SMO_RESTRICT out)
{
    int j = 0;
#ifdef SMO_VPOPCNT_PATH
    if (smo_has_vpopcnt())
        j = smo_bit_cols_vpopcnt(n, words, cols, ld, x, by_xor, table, out);
#endif
    for (; j < n; j++)
        out[j] = table[smo_count_col(cols, ld, j, words, x, by_xor)];
}

#endif
