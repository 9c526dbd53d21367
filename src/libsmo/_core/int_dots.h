/* int_dots.h: dot products of rows whose values are small integers over one divisor
 * (8-bit images stored as pixel / 255.0: Fashion-MNIST, MNIST), kept as int16 beside
 * the data, or as uint8 where every integer is in [0, 255] (`Rows` with int_rows=True,
 * `int_rows.small_integer_rows`, `int_rows.IntRows`).
 *
 * A value v is kept as the integer q with q / divisor == v exactly, so x'y is
 * (sum_f q_f r_f) / divisor^2: an exact integer sum (int32: the rows are kept only when
 * n_features * max|q|^2 < 2^31) and one correctly rounded division, where the double
 * loops of inner_loops.h round after each of the n_features additions. Sixteen int16
 * products are one AVX2 instruction (vpmaddwd) against four doubles, and a row takes a
 * quarter of the memory: on 784-pixel rows four sources at a time run at about 30 G
 * multiply-adds/s against 3.7 for smo_row_dots_many.
 */
#ifndef LIBSMO_INT_DOTS_H
#define LIBSMO_INT_DOTS_H

#include "inner_loops.h"

/* The int16 q with q / divisor == v exactly into *q: 1, or 0 where there is none (a
 * fraction, |q| > 32767, NaN or infinity). */
static inline int smo_small_int(double v, double divisor, int16_t* q)
{
    double r = rint(v * divisor);
    if (!(fabs(r) <= 32767.0) || r / divisor != v)
        return 0;
    *q = (int16_t)r;
    return 1;
}

/* out_f <- the int16 q with q / divisor == v_f exactly, for f in [0, d): 1, or 0 where
 * some value has none (the outputs are then meaningless but defined). One pass with no
 * early exit, so that it vectorises: the rows are converted once a problem. */
SMO_CLONES
static int smo_small_int_row(const double* SMO_RESTRICT v, long d, double divisor,
                             int16_t* SMO_RESTRICT out)
{
    int ok = 1;
    long f;
    for (f = 0; f < d; f++) {
        double r = rint(v[f] * divisor);
        int in_range = (r >= -32767.0) & (r <= 32767.0);   /* false for NaN */
        ok &= in_range & (r / divisor == v[f]);
        /* only values in range are converted (a conversion out of range is undefined) */
        out[f] = (int16_t)(int32_t)(in_range ? r : 0.0);
    }
    return ok;
}

/* sum_f q_f^2 of an int16 row into *norm, and its largest |q_f| into *largest. */
SMO_CLONES
static void smo_int_row_norm(const int16_t* SMO_RESTRICT q, long d, int64_t* norm,
                             int32_t* largest)
{
    int64_t s = 0;
    int32_t m = *largest;
    long f;
    for (f = 0; f < d; f++) {
        int32_t a = q[f] < 0 ? -q[f] : q[f];
        s += a * a;
        m = a > m ? a : m;
    }
    *norm = s;
    *largest = m;
}

/* The sums below are generated for rows kept as int16 and as uint8 (rows whose every
 * integer is in [0, 255], 8-bit pixels: half the memory, so that a pair of 12,000
 * Fashion-MNIST images, 9.4 MB, stays in the last-level cache where its int16 rows,
 * 19 MB, stream from memory). Sources are always int16: uint8 rows are widened into a
 * scratch row first (smo_widen_bytes). Every element is taken as int16 and every
 * product summed in int32, so both widths give the same integers. */

/* NAME(a, b, d): sum_f a_f b_f over d features in int32 (the caller bounds
 * d max|q|^2), a of type TA and b of type TB. */
#define SMO_INT_DOT(NAME, TA, TB)                                                      \
static inline int32_t NAME(const TA* SMO_RESTRICT a, const TB* SMO_RESTRICT b, long d) \
{                                                                                      \
    int32_t s = 0;                                                                     \
    long f;                                                                            \
    for (f = 0; f < d; f++)                                                            \
        s += (int32_t)(int16_t)a[f] * (int16_t)b[f];                                   \
    return s;                                                                          \
}

/* NAME(a, p0, p1, p2, p3, d, divisor2, out, stride): a'p_k / divisor2 for the four
 * rows p_k into out[k stride], the sums in int32: one load of a's features for four
 * multiply-adds. Inline, so that it takes the target of the clone it is called from. */
#define SMO_INT_DOTS4(NAME, TA, TP)                                                    \
static inline void NAME(const TA* SMO_RESTRICT a, const TP* SMO_RESTRICT p0,           \
                        const TP* SMO_RESTRICT p1, const TP* SMO_RESTRICT p2,          \
                        const TP* SMO_RESTRICT p3, long d, double divisor2,            \
                        double* SMO_RESTRICT out, long stride)                         \
{                                                                                      \
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;                                            \
    long f;                                                                            \
    for (f = 0; f < d; f++) {                                                          \
        int32_t v = (int16_t)a[f];                                                     \
        s0 += v * (int16_t)p0[f];                                                      \
        s1 += v * (int16_t)p1[f];                                                      \
        s2 += v * (int16_t)p2[f];                                                      \
        s3 += v * (int16_t)p3[f];                                                      \
    }                                                                                  \
    out[0] = (double)s0 / divisor2;                                                    \
    out[stride] = (double)s1 / divisor2;                                               \
    out[2 * stride] = (double)s2 / divisor2;                                           \
    out[3 * stride] = (double)s3 / divisor2;                                           \
}

/* NAME(n, d, rows, ld, xs, count, divisor2, out, ld_out): out[b ld_out + j] <-
 * (x_b'row_j) / divisor2 for b in [0, count) and j in [0, n), row j at rows + j ld
 * (type TR, row-major), the sources x_b int16. Four sources share each load of a row;
 * sources left over go four rows at a time, so that a single row of dot products
 * (count 1) also keeps four sums going. */
#define SMO_INT_DOTS_MANY(NAME, TR, ROW_DOTS4, SOURCE_DOTS4, DOT)                      \
SMO_CLONES                                                                             \
static void NAME(int n, long d, const TR* SMO_RESTRICT rows, long ld,                  \
                 const int16_t* const* SMO_RESTRICT xs, int count, double divisor2,    \
                 double* SMO_RESTRICT out, long ld_out)                                \
{                                                                                      \
    int j, b, first_single = count - count % 4;                                        \
    for (j = 0; j < n; j++)                                                            \
        for (b = 0; b < first_single; b += 4)                                          \
            ROW_DOTS4(rows + (long)j * ld, xs[b], xs[b + 1], xs[b + 2], xs[b + 3], d,  \
                      divisor2, out + (long)b * ld_out + j, ld_out);                   \
    for (b = first_single; b < count; b++) {                                           \
        const TR* r = rows;                                                            \
        double* o = out + (long)b * ld_out;                                            \
        for (j = 0; j + 4 <= n; j += 4, r += 4 * ld)                                   \
            SOURCE_DOTS4(xs[b], r, r + ld, r + 2 * ld, r + 3 * ld, d, divisor2, o + j, \
                         1);                                                           \
        for (; j < n; j++)                                                             \
            o[j] = (double)DOT(xs[b], rows + (long)j * ld, d) / divisor2;              \
    }                                                                                  \
}

/* NAME(n, d, base, ld, index, xs, count, divisor2, out, ld_out): as SMO_INT_DOTS_MANY
 * with row j at base + index[j] ld: rows read where the data set keeps them (a uint8
 * data set stored once, whose problems are subsets of its rows: `IntRows.shared`). */
#define SMO_INDEXED_INT_DOTS_MANY(NAME, TR, ROW_DOTS4, SOURCE_DOTS4, DOT)              \
SMO_CLONES                                                                             \
static void NAME(int n, long d, const TR* SMO_RESTRICT base, long ld,                  \
                 const int* SMO_RESTRICT index, const int16_t* const* SMO_RESTRICT xs, \
                 int count, double divisor2, double* SMO_RESTRICT out, long ld_out)    \
{                                                                                      \
    int j, b, first_single = count - count % 4;                                        \
    for (j = 0; j < n; j++)                                                            \
        for (b = 0; b < first_single; b += 4)                                          \
            ROW_DOTS4(base + (long)index[j] * ld, xs[b], xs[b + 1], xs[b + 2],         \
                      xs[b + 3], d, divisor2, out + (long)b * ld_out + j, ld_out);     \
    for (b = first_single; b < count; b++) {                                           \
        double* o = out + (long)b * ld_out;                                            \
        for (j = 0; j + 4 <= n; j += 4)                                                \
            SOURCE_DOTS4(xs[b], base + (long)index[j] * ld,                            \
                         base + (long)index[j + 1] * ld, base + (long)index[j + 2] * ld,\
                         base + (long)index[j + 3] * ld, d, divisor2, o + j, 1);       \
        for (; j < n; j++)                                                             \
            o[j] = (double)DOT(xs[b], base + (long)index[j] * ld, d) / divisor2;       \
    }                                                                                  \
}

SMO_INT_DOT(smo_int_dot, int16_t, int16_t)
SMO_INT_DOT(smo_int_byte_dot, int16_t, uint8_t)
SMO_INT_DOTS4(smo_int_dots4, int16_t, int16_t)
SMO_INT_DOTS4(smo_byte_int_dots4, uint8_t, int16_t)
SMO_INT_DOTS4(smo_int_byte_dots4, int16_t, uint8_t)
SMO_INT_DOTS_MANY(smo_int_dots_many, int16_t, smo_int_dots4, smo_int_dots4, smo_int_dot)
SMO_INT_DOTS_MANY(smo_byte_dots_many, uint8_t, smo_byte_int_dots4, smo_int_byte_dots4,
                  smo_int_byte_dot)
SMO_INDEXED_INT_DOTS_MANY(smo_indexed_byte_dots_many, uint8_t, smo_byte_int_dots4,
                          smo_int_byte_dots4, smo_int_byte_dot)

/* out_f <- q_f - 128 as int8 for f in [0, d) (the top bit flipped), zeros from d up to
 * `padded`: a uint8 row as a shifted source of smo_vnni_byte_dots_many. */
static inline void smo_shift_bytes(const uint8_t* SMO_RESTRICT q, long d, long padded,
                                   int8_t* SMO_RESTRICT out)
{
    long f;
    for (f = 0; f < d; f++)
        out[f] = (int8_t)(q[f] ^ 0x80);
    for (; f < padded; f++)
        out[f] = 0;
}

/* out_f <- q_f for f in [0, d): a uint8 row as an int16 source. */
static inline void smo_widen_bytes(const uint8_t* SMO_RESTRICT q, long d,
                                   int16_t* SMO_RESTRICT out)
{
    long f;
    for (f = 0; f < d; f++)
        out[f] = q[f];
}

/* out_f <- q_f for f in [0, d) where every q_f is in [0, 255]: 1; else 0 (out is then
 * meaningless but defined). One pass with no early exit, so that it vectorises. */
static inline int smo_narrow_bytes(const int16_t* SMO_RESTRICT q, long d,
                                   uint8_t* SMO_RESTRICT out)
{
    int ok = 1;
    long f;
    for (f = 0; f < d; f++) {
        ok &= (q[f] >= 0) & (q[f] <= 255);
        out[f] = (uint8_t)q[f];
    }
    return ok;
}

/* Exchange the n bytes at a and at b (two rows of the same storage). */
static inline void smo_swap_bytes(void* SMO_RESTRICT a, void* SMO_RESTRICT b, size_t n)
{
    unsigned char* x = (unsigned char*)a;
    unsigned char* y = (unsigned char*)b;
    size_t k;
    for (k = 0; k < n; k++) {
        unsigned char t = x[k];
        x[k] = y[k];
        y[k] = t;
    }
}

/* Rows of dot products over rows of integers in [0, 127] of few features kept in groups
 * of four features (`Rows`' FEATURE_QUADS: group g of row j is the four bytes at
 * cols[g ld + 4 j], features 4g to 4g + 3, zeros past the last): out_j = sum_f x_f
 * c_{jf}, an exact integer sum (at most 64 features of 127 * 127), the value the
 * doubles give. With AVX-512 VNNI one instruction (vpdpbusd) multiplies and adds four
 * features of sixteen rows: the data of a row of dot products is a quarter of the
 * floats' and fits the first-level cache (digits' pairs: about 4x smo_small_int_dots).
 * `Rows` takes this layout only where smo_has_avx512_vnni(); elsewhere the plain loop
 * below is what the function is. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#include <immintrin.h>

static int smo_has_avx512_vnni(void)
{
    static int known = 0, has = 0;
    if (!known) {
        __builtin_cpu_init();
        has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
              && __builtin_cpu_supports("avx512vnni");
        known = 1;
    }
    return has;
}

/* sixteen rows' sums as doubles */
#define SMO_QUAD_STORE(p, acc)                                                         \
    do {                                                                               \
        _mm512_storeu_pd((p), _mm512_cvtepi32_pd(_mm512_castsi512_si256(acc)));        \
        _mm512_storeu_pd((p) + 8, _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(acc, 1))); \
    } while (0)

__attribute__((target("avx512f,avx512bw,avx512vnni")))
static void smo_quad_dots(int n, int groups, long ld, const uint8_t* SMO_RESTRICT cols,
                          const int8_t* SMO_RESTRICT x, double* SMO_RESTRICT out)
{
    int j = 0, g, t;
    int32_t w;
    /* four sums of sixteen rows in flight: each vpdpbusd waits on its own last */
    for (; j + 64 <= n; j += 64) {
        __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0, xb;
        const uint8_t* c = cols + 4L * j;
        for (g = 0; g < groups; g++, c += ld) {
            memcpy(&w, x + 4 * g, sizeof w);
            xb = _mm512_set1_epi32(w);
            a0 = _mm512_dpbusd_epi32(a0, _mm512_loadu_si512(c), xb);
            a1 = _mm512_dpbusd_epi32(a1, _mm512_loadu_si512(c + 64), xb);
            a2 = _mm512_dpbusd_epi32(a2, _mm512_loadu_si512(c + 128), xb);
            a3 = _mm512_dpbusd_epi32(a3, _mm512_loadu_si512(c + 192), xb);
        }
        SMO_QUAD_STORE(out + j, a0);
        SMO_QUAD_STORE(out + j + 16, a1);
        SMO_QUAD_STORE(out + j + 32, a2);
        SMO_QUAD_STORE(out + j + 48, a3);
    }
    for (; j + 16 <= n; j += 16) {
        __m512i a0 = _mm512_setzero_si512();
        const uint8_t* c = cols + 4L * j;
        for (g = 0; g < groups; g++, c += ld) {
            memcpy(&w, x + 4 * g, sizeof w);
            a0 = _mm512_dpbusd_epi32(a0, _mm512_loadu_si512(c), _mm512_set1_epi32(w));
        }
        SMO_QUAD_STORE(out + j, a0);
    }
    if (j < n) {
        /* the last one to fifteen rows: their bytes only, read and written under masks */
        int r = n - j;
        __mmask64 bytes = r == 16 ? ~(__mmask64)0 : (((__mmask64)1 << (4 * r)) - 1);
        __mmask8 low = (__mmask8)(r >= 8 ? 0xFF : (1u << r) - 1);
        __mmask8 high = (__mmask8)(r <= 8 ? 0 : (1u << (r - 8)) - 1);
        __m512i a0 = _mm512_setzero_si512();
        const uint8_t* c = cols + 4L * j;
        for (g = 0; g < groups; g++, c += ld) {
            memcpy(&w, x + 4 * g, sizeof w);
            a0 = _mm512_dpbusd_epi32(a0, _mm512_maskz_loadu_epi8(bytes, c),
                                     _mm512_set1_epi32(w));
        }
        _mm512_mask_storeu_pd(out + j, low, _mm512_cvtepi32_pd(_mm512_castsi512_si256(a0)));
        _mm512_mask_storeu_pd(out + j + 8, high,
                              _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(a0, 1)));
    }
    (void)t;
}

/* Rows of dot products over uint8 rows (`IntRows`' bytes, 8-bit pixels of many
 * features) with AVX-512 VNNI. vpdpbusd multiplies unsigned bytes by signed ones, so a
 * source x (integers in [0, 255]) is given shifted, s = x - 128 as int8 (the bits of x
 * with the top one flipped, `smo_shift_bytes`), and x'r = s'r + 128 sum_f r_f, the row's
 * sum taken by a second vpdpbusd against ones. Every sum wraps in int32 and the true
 * total is below 2^31 (IntRows keeps rows only where d max|q|^2 is), so the integers
 * are those smo_byte_dots_many sums and the doubles the same bits; but sixty-four
 * features go in one instruction, against sixteen for vpmaddwd on widened bytes, and
 * a row of dot products runs at the speed memory streams the rows: a miss of the
 * kernel cache in a full cache computes its row alone, one pass over all rows. Rows
 * are base + index[j] ld (index NULL: base + j ld); a source is padded with zeros to
 * a multiple of 64 bytes, a row's last bytes are read under a mask. */
#define SMO_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))
#define SMO_BYTE_ROW(j) (base + (index != NULL ? (long)index[j] : (long)(j)) * ld)

/* x'r from the shifted sums acc (s'r, per lane) and the row's sums (r'1, per lane) */
SMO_VNNI static inline int32_t smo_vnni_total(__m512i acc, __m512i row_sums)
{
    return _mm512_reduce_add_epi32(_mm512_add_epi32(acc, _mm512_slli_epi32(row_sums, 7)));
}

/* totals[k] = x_k'r for four sources' shifted sums a0..a3 and the row's sums s: the
 * four horizontal sums folded together (each 128-bit lane gathers the four, then the
 * lanes are added). */
SMO_VNNI static inline void smo_vnni_totals4(__m512i a0, __m512i a1, __m512i a2, __m512i a3,
                                             __m512i row_sums, int32_t* totals)
{
    const __m512i shift = _mm512_slli_epi32(row_sums, 7);
    __m512i t01, t23, u;
    a0 = _mm512_add_epi32(a0, shift);
    a1 = _mm512_add_epi32(a1, shift);
    a2 = _mm512_add_epi32(a2, shift);
    a3 = _mm512_add_epi32(a3, shift);
    t01 = _mm512_add_epi32(_mm512_unpacklo_epi32(a0, a1), _mm512_unpackhi_epi32(a0, a1));
    t23 = _mm512_add_epi32(_mm512_unpacklo_epi32(a2, a3), _mm512_unpackhi_epi32(a2, a3));
    u = _mm512_add_epi32(_mm512_unpacklo_epi64(t01, t23), _mm512_unpackhi_epi64(t01, t23));
    u = _mm512_add_epi32(u, _mm512_shuffle_i32x4(u, u, 0x4E));
    u = _mm512_add_epi32(u, _mm512_shuffle_i32x4(u, u, 0xB1));
    _mm_storeu_si128((__m128i*)totals, _mm512_castsi512_si128(u));
}

/* One source against every row, a row at a time: two pairs of sums in flight. (Four
 * rows at a time, four streams of rows, ran at half the speed.) */
SMO_VNNI static void smo_vnni_source_row(int n, long d, const uint8_t* SMO_RESTRICT base,
                                         long ld, const int* SMO_RESTRICT index,
                                         const int8_t* SMO_RESTRICT x, double divisor2,
                                         double* SMO_RESTRICT out)
{
    const __m512i ones = _mm512_set1_epi8(1);
    const long full = d / 64, off = 64 * full;
    const __mmask64 tail = d % 64 ? (((__mmask64)1 << (d % 64)) - 1) : 0;
    long c;
    int j;
    for (j = 0; j < n; j++) {
        const uint8_t* r = SMO_BYTE_ROW(j);
        __m512i a0 = _mm512_setzero_si512(), a1 = a0, s0 = a0, s1 = a0, v, w;
        for (c = 0; c + 128 <= off; c += 128) {
            v = _mm512_loadu_si512(r + c);
            w = _mm512_loadu_si512(r + c + 64);
            a0 = _mm512_dpbusd_epi32(a0, v, _mm512_loadu_si512(x + c));
            s0 = _mm512_dpbusd_epi32(s0, v, ones);
            a1 = _mm512_dpbusd_epi32(a1, w, _mm512_loadu_si512(x + c + 64));
            s1 = _mm512_dpbusd_epi32(s1, w, ones);
        }
        if (c < off) {
            v = _mm512_loadu_si512(r + c);
            a0 = _mm512_dpbusd_epi32(a0, v, _mm512_loadu_si512(x + c));
            s0 = _mm512_dpbusd_epi32(s0, v, ones);
        }
        if (tail) {
            v = _mm512_maskz_loadu_epi8(tail, r + off);
            a1 = _mm512_dpbusd_epi32(a1, v, _mm512_loadu_si512(x + off));
            s1 = _mm512_dpbusd_epi32(s1, v, ones);
        }
        out[j] = (double)smo_vnni_total(_mm512_add_epi32(a0, a1),
                                        _mm512_add_epi32(s0, s1)) / divisor2;
    }
}

/* Several sources (2 to 16) in one pass over the rows: each row is read once and
 * summed against four sources at a time while it stays in the first-level cache (the
 * last four repeat the last source where count is not a multiple of four). */
SMO_VNNI static void smo_vnni_sources_rows(int n, long d, const uint8_t* SMO_RESTRICT base,
                                           long ld, const int* SMO_RESTRICT index,
                                           const int8_t* const* SMO_RESTRICT xs, int count,
                                           double divisor2, double* SMO_RESTRICT out,
                                           long ld_out)
{
    const __m512i ones = _mm512_set1_epi8(1);
    const long full = d / 64, off = 64 * full;
    const __mmask64 tail = d % 64 ? (((__mmask64)1 << (d % 64)) - 1) : 0;
    long c;
    int j, b, k;
    int32_t totals[4];
    for (j = 0; j < n; j++) {
        const uint8_t* r = SMO_BYTE_ROW(j);
        __m512i s = _mm512_setzero_si512(), v;
        for (b = 0; b < count; b += 4) {
            const int8_t* x0 = xs[b];
            const int8_t* x1 = xs[b + 1 < count ? b + 1 : count - 1];
            const int8_t* x2 = xs[b + 2 < count ? b + 2 : count - 1];
            const int8_t* x3 = xs[b + 3 < count ? b + 3 : count - 1];
            __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
            for (c = 0; c < d; c += 64) {
                /* the last bytes under the mask (whole loads run as fast masked) */
                v = _mm512_maskz_loadu_epi8(c < off ? ~(__mmask64)0 : tail, r + c);
                if (b == 0)
                    s = _mm512_dpbusd_epi32(s, v, ones);
                a0 = _mm512_dpbusd_epi32(a0, v, _mm512_loadu_si512(x0 + c));
                a1 = _mm512_dpbusd_epi32(a1, v, _mm512_loadu_si512(x1 + c));
                a2 = _mm512_dpbusd_epi32(a2, v, _mm512_loadu_si512(x2 + c));
                a3 = _mm512_dpbusd_epi32(a3, v, _mm512_loadu_si512(x3 + c));
            }
            smo_vnni_totals4(a0, a1, a2, a3, s, totals);
            for (k = 0; k < 4 && b + k < count; k++)
                out[(long)(b + k) * ld_out + j] = (double)totals[k] / divisor2;
        }
    }
}

/* out[b ld_out + j] <- (x_b'row_j) / divisor2 for b in [0, count), j in [0, n): the
 * shifted sources xs (smo_shift_bytes) against uint8 rows, the values
 * smo_byte_dots_many and smo_indexed_byte_dots_many give. Only where
 * smo_has_avx512_vnni(). */
SMO_VNNI static void smo_vnni_byte_dots_many(int n, long d, const uint8_t* SMO_RESTRICT base,
                                             long ld, const int* SMO_RESTRICT index,
                                             const int8_t* const* SMO_RESTRICT xs,
                                             int count, double divisor2,
                                             double* SMO_RESTRICT out, long ld_out)
{
    if (n <= 0 || count <= 0)
        return;
    if (count == 1)
        smo_vnni_source_row(n, d, base, ld, index, xs[0], divisor2, out);
    else
        smo_vnni_sources_rows(n, d, base, ld, index, xs, count, divisor2, out, ld_out);
}

/* The same rows of dot products with AVX2 alone (processors without VNNI): each byte
 * widened to int16 (vpmovzxbw) and multiplied by the int16 source sixteen at a time with
 * vpmaddwd, whose pairs' sums (at most 2 x 255 x 255) are exact in int32. A row at a time
 * for one source, the way the VNNI loop reads them; the compiler's own vectorization of
 * smo_byte_dots_many (four rows at a time) took three times as long.
 * Sources are smo_widen_bytes' int16 rows; features past the last multiple of 16 (of 32
 * for one source) are summed one by one. Only where smo_has_avx2(). */
#define SMO_AVX2 __attribute__((target("avx2")))

static int smo_has_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

SMO_AVX2 static inline int32_t smo_avx2_total(__m256i acc)
{
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
}

/* sixteen bytes of a row widened to int16, times sixteen int16 of a source, in pairs */
#define SMO_AVX2_MADD(r, x) _mm256_madd_epi16(                                          \
    _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i*)(r))),                         \
    _mm256_loadu_si256((const __m256i*)(x)))

SMO_AVX2 static void smo_avx2_source_row(int n, long d, const uint8_t* SMO_RESTRICT base,
                                         long ld, const int* SMO_RESTRICT index,
                                         const int16_t* SMO_RESTRICT x, double divisor2,
                                         double* SMO_RESTRICT out)
{
    const long whole = d - d % 32;
    long c;
    int j;
    for (j = 0; j < n; j++) {
        const uint8_t* r = SMO_BYTE_ROW(j);
        __m256i a0 = _mm256_setzero_si256(), a1 = a0;
        int32_t s;
        for (c = 0; c < whole; c += 32) {
            a0 = _mm256_add_epi32(a0, SMO_AVX2_MADD(r + c, x + c));
            a1 = _mm256_add_epi32(a1, SMO_AVX2_MADD(r + c + 16, x + c + 16));
        }
        s = smo_avx2_total(_mm256_add_epi32(a0, a1));
        for (; c < d; c++)
            s += (int32_t)r[c] * x[c];
        out[j] = (double)s / divisor2;
    }
}

SMO_AVX2 static void smo_avx2_sources_rows(int n, long d, const uint8_t* SMO_RESTRICT base,
                                           long ld, const int* SMO_RESTRICT index,
                                           const int16_t* const* SMO_RESTRICT xs,
                                           int count, double divisor2,
                                           double* SMO_RESTRICT out, long ld_out)
{
    const long whole = d - d % 16;
    long c;
    int j, b, k;
    int32_t totals[4];
    for (j = 0; j < n; j++) {
        const uint8_t* r = SMO_BYTE_ROW(j);
        for (b = 0; b < count; b += 4) {
            const int16_t* x[4];
            __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, v;
            __m128i t;
            for (k = 0; k < 4; k++)
                x[k] = xs[b + k < count ? b + k : count - 1];
            for (c = 0; c < whole; c += 16) {
                v = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i*)(r + c)));
                a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(v, _mm256_loadu_si256((const __m256i*)(x[0] + c))));
                a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(v, _mm256_loadu_si256((const __m256i*)(x[1] + c))));
                a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(v, _mm256_loadu_si256((const __m256i*)(x[2] + c))));
                a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(v, _mm256_loadu_si256((const __m256i*)(x[3] + c))));
            }
            /* each 128-bit half of hadd(hadd(a0, a1), hadd(a2, a3)) holds four partial
             * totals in source order */
            v = _mm256_hadd_epi32(_mm256_hadd_epi32(a0, a1), _mm256_hadd_epi32(a2, a3));
            t = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
            _mm_storeu_si128((__m128i*)totals, t);
            for (k = 0; k < 4 && b + k < count; k++) {
                int32_t s = totals[k];
                for (c = whole; c < d; c++)
                    s += (int32_t)r[c] * x[k][c];
                out[(long)(b + k) * ld_out + j] = (double)s / divisor2;
            }
        }
    }
}

/* out[b ld_out + j] <- (x_b'row_j) / divisor2 for int16 sources (smo_widen_bytes) and
 * uint8 rows: the values of smo_byte_dots_many and smo_indexed_byte_dots_many. */
SMO_AVX2 static void smo_avx2_byte_dots_many(int n, long d, const uint8_t* SMO_RESTRICT base,
                                             long ld, const int* SMO_RESTRICT index,
                                             const int16_t* const* SMO_RESTRICT xs,
                                             int count, double divisor2,
                                             double* SMO_RESTRICT out, long ld_out)
{
    if (n <= 0 || count <= 0)
        return;
    if (count == 1)
        smo_avx2_source_row(n, d, base, ld, index, xs[0], divisor2, out);
    else
        smo_avx2_sources_rows(n, d, base, ld, index, xs, count, divisor2, out, ld_out);
}
#undef SMO_AVX2_MADD
#undef SMO_BYTE_ROW
#else
static int smo_has_avx512_vnni(void) { return 0; }
static int smo_has_avx2(void) { return 0; }

/* the plain loops (never called either: IntRows asks only where smo_has_avx2()) */
static void smo_avx2_byte_dots_many(int n, long d, const uint8_t* SMO_RESTRICT base,
                                    long ld, const int* SMO_RESTRICT index,
                                    const int16_t* const* SMO_RESTRICT xs, int count,
                                    double divisor2, double* SMO_RESTRICT out, long ld_out)
{
    if (index != NULL)
        smo_indexed_byte_dots_many(n, d, base, ld, index, xs, count, divisor2, out, ld_out);
    else
        smo_byte_dots_many(n, d, base, ld, xs, count, divisor2, out, ld_out);
}

/* Without GCC's target attributes on x86-64 the shifted sums are taken one by one (never
 * called: IntRows asks for these only where smo_has_avx512_vnni()). */
static void smo_vnni_byte_dots_many(int n, long d, const uint8_t* SMO_RESTRICT base,
                                    long ld, const int* SMO_RESTRICT index,
                                    const int8_t* const* SMO_RESTRICT xs, int count,
                                    double divisor2, double* SMO_RESTRICT out, long ld_out)
{
    int j, b;
    long f;
    for (b = 0; b < count; b++)
        for (j = 0; j < n; j++) {
            const uint8_t* r = base + (index != NULL ? (long)index[j] : (long)j) * ld;
            int32_t s = 0;
            for (f = 0; f < d; f++)
                s += (int32_t)r[f] * ((int32_t)xs[b][f] + 128);
            out[(long)b * ld_out + j] = (double)s / divisor2;
        }
}

static void smo_quad_dots(int n, int groups, long ld, const uint8_t* SMO_RESTRICT cols,
                          const int8_t* SMO_RESTRICT x, double* SMO_RESTRICT out)
{
    int j, g, t;
    for (j = 0; j < n; j++) {
        int32_t s = 0;
        for (g = 0; g < groups; g++)
            for (t = 0; t < 4; t++)
                s += (int32_t)cols[g * ld + 4L * j + t] * x[4 * g + t];
        out[j] = s;
    }
}
#endif

#endif
