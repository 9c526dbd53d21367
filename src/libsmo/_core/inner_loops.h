/* inner_loops.h: the data-parallel inner loops of the solver (working-set selection,
 * gradient and G_bar updates, the SVR row gather) and of the kernel (dense dot products,
 * and through rbf_loops.h the RBF exponentials), written with the vector
 * extensions of GCC and clang so that they run four doubles at a time whatever the
 * target (the compiler splits a 4-wide vector into two SSE2 halves where AVX is absent),
 * with a plain C fallback for other compilers. On Linux/x86-64 GCC also builds an AVX2
 * and an x86-64-v4 (AVX-512) clone of each and picks one at load time: the plain loops
 * run eight doubles at a time in the latter, each entry through the same operations
 * (letter's fit 0.49 -> 0.44 s, a9a's 0.84-0.90 -> 0.81-0.82 s, the same steps).
 *
 * The two selection loops give exactly what the scalar loops of LIBSVM's
 * select_working_set give, ties included (the last index wins, as with its >= and <=
 * tests): every lane keeps its own last best and the lanes are merged by index. The
 * arithmetic is the same IEEE operations in the same order, so the solver takes the
 * same steps as before.
 *
 * Membership of a variable in I_up / I_low is a penalty array of 0.0 (member) or -inf
 * (not): adding it masks a value without a branch.
 */
#ifndef LIBSMO_INNER_LOOPS_H
#define LIBSMO_INNER_LOOPS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* SMO_INLINED: a helper compiled into each clone (GCC had kept smo_rbf_row out of line
 * where two clones called it, one SSE2 copy for both: half the speed of AVX2's) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
/* A test program compiles these loops once per target instead (SMO_CLONES defined
 * empty, the target given by -march: tests/core/test_simd_variants.py), so that every
 * clone's code runs on a processor that has its instructions. */
#ifndef SMO_CLONES
#define SMO_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
#define SMO_INLINED static inline __attribute__((always_inline))

/* The clone of SMO_CLONES that GCC's resolver runs on this processor (it tries them in
 * this order), for the tests' report of the paths that ran. */
static const char* smo_clone_target(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4"))
        return "x86-64-v4";
    if (__builtin_cpu_supports("avx2"))
        return "avx2";
    return "default";
}

/* The AVX-512 features whose loops are chosen at run time, probed once (a race between
 * threads writes the same value): F and DQ for rbf_loops.h's eight-wide rows, F and
 * VPOPCNTDQ for bit_counts.h's counts. */
#define SMO_CPU_AVX512_DQ 1
#define SMO_CPU_AVX512_POPCNT 2
static int smo_cpu_features(void)
{
    static int known = 0, features = 0;
    if (!known) {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f")) {
            features = (__builtin_cpu_supports("avx512dq") ? SMO_CPU_AVX512_DQ : 0)
                       | (__builtin_cpu_supports("avx512vpopcntdq") ? SMO_CPU_AVX512_POPCNT
                                                                     : 0);
        }
        known = 1;
    }
    return features;
}
#else
#ifndef SMO_CLONES
#define SMO_CLONES
#endif
#define SMO_INLINED static inline
static const char* smo_clone_target(void) { return "none"; }
#endif

/* A hint to fetch what p points to into the caches ahead of its use (none elsewhere). */
#if defined(__GNUC__) || defined(__clang__)
#define smo_prefetch(p) __builtin_prefetch(p)
#else
#define smo_prefetch(p) ((void)0)
#endif

#if defined(_MSC_VER)
#define SMO_RESTRICT __restrict
#else
#define SMO_RESTRICT restrict
#endif

/* __builtin_convertvector: clang, GCC 9+. SMO_NO_VECTOR forces the plain C loops. */
#if !defined(SMO_NO_VECTOR) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 9))
#define SMO_VECTOR 1
#if defined(__GNUC__) && !defined(__clang__)
/* 32-byte vectors passed between static inline helpers: no ABI is crossed */
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
typedef double smo_v4d __attribute__((vector_size(32)));
typedef int64_t smo_v4l __attribute__((vector_size(32)));
typedef float smo_v4f __attribute__((vector_size(16)));

static inline smo_v4d smo_load4d(const double* p)
{
    smo_v4d v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline smo_v4d smo_load4f(const float* p)
{
    smo_v4f v;
    memcpy(&v, p, sizeof v);
    return __builtin_convertvector(v, smo_v4d);
}

static inline void smo_store4d(double* p, smo_v4d v) { memcpy(p, &v, sizeof v); }

/* mask ? a : b, with mask lanes all ones or all zeros */
static inline smo_v4d smo_blend(smo_v4l mask, smo_v4d a, smo_v4d b)
{ return (smo_v4d)((mask & (smo_v4l)a) | (~mask & (smo_v4l)b)); }

static inline smo_v4l smo_blend_l(smo_v4l mask, smo_v4l a, smo_v4l b)
{ return (mask & a) | (~mask & b); }
#endif

/* Both selection loops keep two sets of running minima (the halves of an 8-wide step:
 * consecutive compare-and-blend steps do not wait on each other), merged lane by lane,
 * then across lanes, a tie going to the larger index (the scalar loops' last, <=). */
#ifdef SMO_VECTOR
static inline void smo_merge_min(smo_v4d* va, smo_v4l* ia, smo_v4d vb, smo_v4l ib)
{
    smo_v4l take = (smo_v4l)(vb < *va) | ((smo_v4l)(vb == *va) & (smo_v4l)(ib > *ia));
    *va = smo_blend(take, vb, *va);
    *ia = smo_blend_l(take, ib, *ia);
}

/* The lanes' minimum into (*best, *best_t), lanes without an index skipped. */
static inline void smo_lanes_min(smo_v4d v, smo_v4l idx, double* best, int* best_t)
{
    int k;
    for (k = 0; k < 4; k++) {
        if (idx[k] < 0)
            continue;
        if (v[k] < *best || (v[k] == *best && idx[k] > *best_t)) {
            *best = v[k];
            *best_t = (int)idx[k];
        }
    }
}
#endif

/* The last t in [0, n) maximising v_t = -(y_t G_t) + pen_t; -1 when every pen_t is
 * -inf (an empty I_up). *out_max receives the maximum. Computed as the last minimum
 * of -v_t = y_t G_t - pen_t (negation is exact, so the same t and value). */
SMO_CLONES
static int smo_argmax_up(int n, const double* G, const double* y, const double* pen,
                         double* out_max)
{
    int t = 0, best_t = -1;
    double best = INFINITY, u;
#ifdef SMO_VECTOR
    if (n >= 8) {
        smo_v4d vbest = {INFINITY, INFINITY, INFINITY, INFINITY}, vbest2 = vbest;
        smo_v4l vidx = {-1, -1, -1, -1}, vidx2 = vidx;
        smo_v4l lane = {0, 1, 2, 3};
        smo_v4l take;
        for (; t + 8 <= n; t += 8) {
            smo_v4d u0 = smo_load4d(y + t) * smo_load4d(G + t) - smo_load4d(pen + t);
            smo_v4d u1 = smo_load4d(y + t + 4) * smo_load4d(G + t + 4)
                         - smo_load4d(pen + t + 4);
            take = (smo_v4l)(u0 <= vbest);
            vbest = smo_blend(take, u0, vbest);
            vidx = smo_blend_l(take, lane, vidx);
            take = (smo_v4l)(u1 <= vbest2);
            vbest2 = smo_blend(take, u1, vbest2);
            vidx2 = smo_blend_l(take, lane + 4, vidx2);
            lane += 8;
        }
        smo_merge_min(&vbest, &vidx, vbest2, vidx2);
        smo_lanes_min(vbest, vidx, &best, &best_t);
    }
#endif
    for (; t < n; t++) {
        u = y[t] * G[t] - pen[t];
        if (u <= best) {
            best = u;
            best_t = t;
        }
    }
    if (best == INFINITY)
        best_t = -1;
    *out_max = -best;
    return best_t;
}

#ifdef SMO_VECTOR
/* One 4-wide step of smo_partner's loop at t, into the running (vbest, vidx, vlow). */
static inline void smo_partner_step(int t, const double* G, const double* y,
                                    const double* pen, const double* QD, const float* Qi,
                                    double QD_i, double two_yi, double max_up,
                                    smo_v4l lane, smo_v4d* vbest, smo_v4l* vidx,
                                    smo_v4d* vlow)
{
    const smo_v4d zero = {0.0, 0.0, 0.0, 0.0};
    const smo_v4d tau = {1e-12, 1e-12, 1e-12, 1e-12};
    smo_v4d vy = smo_load4d(y + t);
    smo_v4d vw = vy * smo_load4d(G + t) + smo_load4d(pen + t);
    smo_v4d vgd = max_up + vw;
    smo_v4d vquad = (QD_i + smo_load4d(QD + t)) - (two_yi * vy) * smo_load4f(Qi + t);
    smo_v4d vobj;
    smo_v4l take;
    *vlow = smo_blend((smo_v4l)(vw >= *vlow), vw, *vlow);
    vquad = smo_blend((smo_v4l)(vquad > zero), vquad, tau);
    vobj = -(vgd * vgd) / vquad;
    take = (smo_v4l)(vgd > zero) & (smo_v4l)(vobj <= *vbest);
    *vbest = smo_blend(take, vobj, *vbest);
    *vidx = smo_blend_l(take, lane, *vidx);
}
#endif

/* LIBSVM's second-order partner of i over I_low (Fan, Chen and Lin 2005): among t with
 * grad_diff = max_up + y_t G_t > 0 (y_t G_t masked by pen_t), the last t minimising
 * -grad_diff^2 / quad, quad = QD_i + QD_t - 2 y_i y_t Q_it (TAU = 1e-12 when not
 * positive). *low_max receives the largest y_t G_t over I_low (-M of the gap test),
 * *obj_min the minimum (+inf when no t qualifies). Returns t, or -1. */
SMO_CLONES
static int smo_partner(int n, const double* G, const double* y, const double* pen,
                       const double* QD, const float* Qi, double QD_i, double y_i,
                       double max_up, double* low_max, double* obj_min)
{
    int t = 0, best_t = -1;
    double best = INFINITY, low = -INFINITY;
    double w, grad_diff, quad, obj;
    double two_yi = 2.0 * y_i;
#ifdef SMO_VECTOR
    if (n >= 8) {
        smo_v4d vbest = {INFINITY, INFINITY, INFINITY, INFINITY}, vbest2 = vbest;
        smo_v4d vlow = {-INFINITY, -INFINITY, -INFINITY, -INFINITY}, vlow2 = vlow;
        smo_v4l vidx = {-1, -1, -1, -1}, vidx2 = vidx;
        smo_v4l lane = {0, 1, 2, 3};
        int k;
        for (; t + 8 <= n; t += 8) {
            smo_partner_step(t, G, y, pen, QD, Qi, QD_i, two_yi, max_up, lane, &vbest,
                             &vidx, &vlow);
            smo_partner_step(t + 4, G, y, pen, QD, Qi, QD_i, two_yi, max_up, lane + 4,
                             &vbest2, &vidx2, &vlow2);
            lane += 8;
        }
        smo_merge_min(&vbest, &vidx, vbest2, vidx2);
        smo_lanes_min(vbest, vidx, &best, &best_t);
        for (k = 0; k < 4; k++) {
            if (vlow[k] > low)
                low = vlow[k];
            if (vlow2[k] > low)
                low = vlow2[k];
        }
    }
#endif
    for (; t < n; t++) {
        w = y[t] * G[t] + pen[t];
        if (w >= low)
            low = w;
        grad_diff = max_up + w;
        if (grad_diff > 0) {
            quad = (QD_i + QD[t]) - (two_yi * y[t]) * (double)Qi[t];
            if (!(quad > 0))
                quad = 1e-12;
            obj = -(grad_diff * grad_diff) / quad;
            if (obj <= best) {
                best = obj;
                best_t = t;
            }
        }
    }
    *low_max = low;
    *obj_min = best;
    return best_t;
}

/* G_k += Qi_k dai + Qj_k daj for k in [0, n): the gradient update of one SMO step. */
SMO_CLONES
static void smo_update_gradient(int n, double* SMO_RESTRICT G, const float* SMO_RESTRICT Qi,
                                double dai, const float* SMO_RESTRICT Qj, double daj)
{
    for (int k = 0; k < n; k++)
        G[k] += (double)Qi[k] * dai + (double)Qj[k] * daj;
}

/* out_k += coef Qi_k for k in [0, n): G_bar when a variable reaches or leaves its upper
 * bound, and the gradient's initialisation from a starting point. */
SMO_CLONES
static void smo_add_scaled_row(int n, double* SMO_RESTRICT out, double coef,
                               const float* SMO_RESTRICT Qi)
{
    for (int k = 0; k < n; k++)
        out[k] += coef * (double)Qi[k];
}

/* out_j <- s_i s_j krow[index_j] for j in [0, n): a regression Q row assembled from
 * the cached kernel row of its example (index and sign follow the solver's order). */
SMO_CLONES
static void smo_signed_gather(int n, float s_i, const float* SMO_RESTRICT sign,
                              const float* SMO_RESTRICT krow, const int* SMO_RESTRICT index,
                              float* SMO_RESTRICT out)
{
    for (int j = 0; j < n; j++)
        out[j] = s_i * sign[j] * krow[index[j]];
}

/* The same row when the variables 0 .. in_order - 1 are still in their starting places
 * (j < l: example j, sign +1; l <= j < 2l: example j - l, sign -1): those entries are
 * two signed copies of the kernel row, which vectorise where the gather does not (an
 * SVR fit of a few hundred examples ends before its first shrinking), the rest a
 * gather. The products are the gather's: s_i * (+-1) is exact. */
SMO_CLONES
static void smo_svr_row(int n, int in_order, int l, float s_i,
                        const float* SMO_RESTRICT sign, const float* SMO_RESTRICT krow,
                        const int* SMO_RESTRICT index, float* SMO_RESTRICT out)
{
    int j, ordered = in_order < n ? in_order : n;
    int first = ordered < l ? ordered : l;
    float s_neg = -s_i;
    for (j = 0; j < first; j++)
        out[j] = s_i * krow[j];
    for (j = l; j < ordered; j++)
        out[j] = s_neg * krow[j - l];
    smo_signed_gather(n - ordered, s_i, sign + ordered, krow, index + ordered,
                      out + ordered);
}

/* a'b with sixteen running sums: sum k adds a_f b_f for f = k (mod 16) while sixteen
 * features remain, sum 0 takes the tail in order (so rows of fewer than sixteen features
 * are summed in LIBSVM's order), and the sums meet in one fixed tree. The order of the
 * operations is this code's, not the compiler's: the vector loop, the plain C loop and
 * every clone give the same bits. Four independent four-wide sums keep the adders busy
 * where one sum (or four scalar ones) waits on each addition: a row of 784-feature dot
 * products ran at 2.3 G multiply-adds/s with four scalar sums. Inline, so that it
 * takes the target of the clone it is called from. */
static inline double smo_dot16(const double* SMO_RESTRICT a, const double* SMO_RESTRICT b,
                               long d)
{
    double s[16] = {0.0};
    long f = 0;
    int k;
#ifdef SMO_VECTOR
    smo_v4d s0 = {0.0, 0.0, 0.0, 0.0}, s1 = s0, s2 = s0, s3 = s0;
    for (; f + 16 <= d; f += 16) {
        s0 += smo_load4d(a + f) * smo_load4d(b + f);
        s1 += smo_load4d(a + f + 4) * smo_load4d(b + f + 4);
        s2 += smo_load4d(a + f + 8) * smo_load4d(b + f + 8);
        s3 += smo_load4d(a + f + 12) * smo_load4d(b + f + 12);
    }
    smo_store4d(s, s0);
    smo_store4d(s + 4, s1);
    smo_store4d(s + 8, s2);
    smo_store4d(s + 12, s3);
#else
    for (; f + 16 <= d; f += 16)
        for (k = 0; k < 16; k++)
            s[k] += a[f + k] * b[f + k];
#endif
    for (; f < d; f++)
        s[0] += a[f] * b[f];
    for (k = 0; k < 8; k++)
        s[k] += s[k + 8];
    for (k = 0; k < 4; k++)
        s[k] += s[k + 4];
    return (s[0] + s[2]) + (s[1] + s[3]);
}

/* out_j <- x'row_j for j in [0, n), row j at rows + j ld (row-major rows). */
SMO_CLONES
static void smo_row_dots(int n, long d, const double* SMO_RESTRICT rows, long ld,
                         const double* SMO_RESTRICT x, double* SMO_RESTRICT out)
{
    int j;
    for (j = 0; j < n; j++)
        out[j] = smo_dot16(rows + (long)j * ld, x, d);
}

/* out_j <- x'row_j for j in [0, n), row j at base + index[j] ld (the caller's rows, read
 * in place in the solver's order). */
SMO_CLONES
static void smo_indexed_row_dots(int n, long d, const double* SMO_RESTRICT base, long ld,
                                 const int* SMO_RESTRICT index,
                                 const double* SMO_RESTRICT x, double* SMO_RESTRICT out)
{
    int j;
    for (j = 0; j < n; j++)
        out[j] = smo_dot16(base + (long)index[j] * ld, x, d);
}

/* out[b ld_out + j] <- x_b'row_j for b in [0, count) and j in [0, n), row j at
 * base + (index ? index[j] : j) ld: `count` rows of dot products in one pass over the
 * rows, each row read from memory once for all of them (it stays in L1 while the count
 * sources go by), each value the same bits as smo_row_dots gives. Rows of many
 * features that do not fit in the caches make a row of dot products wait on memory;
 * here the memory traffic of one row buys `count`. */
SMO_CLONES
static void smo_row_dots_many(int n, long d, const double* SMO_RESTRICT base, long ld,
                              const int* SMO_RESTRICT index,
                              const double* const* SMO_RESTRICT xs, int count,
                              double* SMO_RESTRICT out, long ld_out)
{
    int j, b;
    for (j = 0; j < n; j++) {
        const double* row = base + (long)(index ? index[j] : j) * ld;
        for (b = 0; b < count; b++)
            out[(long)b * ld_out + j] = smo_dot16(row, xs[b], d);
    }
}

/* out_j <- sum_f xi_f cols[f ld + j] for j in [0, n): dot products of x_i with n rows
 * stored feature-major (column f of the rows at cols + f ld). Each sum runs over f in
 * order, as LIBSVM's dot does. Sixteen sums at a time stay in registers while the
 * features go by, so the loop vectorises across rows even with few features, where a
 * dot product per row spends most of its time starting and finishing. */
SMO_CLONES
static void smo_dense_dots(int n, int d, long ld, const double* SMO_RESTRICT cols,
                           const double* SMO_RESTRICT xi, double* SMO_RESTRICT out)
{
    int j = 0, f;
#ifdef SMO_VECTOR
    for (; j + 16 <= n; j += 16) {
        smo_v4d s0 = {0.0, 0.0, 0.0, 0.0}, s1 = s0, s2 = s0, s3 = s0;
        const double* c = cols + j;
        for (f = 0; f < d; f++, c += ld) {
            double x = xi[f];
            s0 += x * smo_load4d(c);
            s1 += x * smo_load4d(c + 4);
            s2 += x * smo_load4d(c + 8);
            s3 += x * smo_load4d(c + 12);
        }
        smo_store4d(out + j, s0);
        smo_store4d(out + j + 4, s1);
        smo_store4d(out + j + 8, s2);
        smo_store4d(out + j + 12, s3);
    }
#endif
    for (; j < n; j++) {
        double sum = 0.0;
        for (f = 0; f < d; f++)
            sum += xi[f] * cols[(long)f * ld + j];
        out[j] = sum;
    }
}

/* The same rows of dot products over rows of small integers held as floats
 * (`Rows`' FEATURE_MAJOR_INTS: integers in [0, 255], at most 64 features): every
 * product is an integer below 2^16 and every partial sum one below 2^22, so each is
 * exact in float whatever the order of the additions or their fusing with the
 * products, and the sum is the integer smo_dense_dots gives on the same values as
 * doubles. Eight lanes a vector instead of four and half the memory; the products are
 * fused where the target has FMA (exact here, hence allowed for this loop alone). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=fast")
#endif
SMO_CLONES
static void smo_small_int_dots(int n, int d, long ld, const float* SMO_RESTRICT cols,
                               const float* SMO_RESTRICT xi, double* SMO_RESTRICT out)
{
#if defined(__clang__)
#pragma clang fp contract(fast)
#endif
    int j = 0, f;
#ifdef SMO_VECTOR
    int k;
    typedef float smo_v8f __attribute__((vector_size(32)));
    for (; j + 32 <= n; j += 32) {
        smo_v8f s0 = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}, s1 = s0, s2 = s0,
                s3 = s0, c0, c1, c2, c3;
        const float* c = cols + j;
        for (f = 0; f < d; f++, c += ld) {
            float x = xi[f];
            memcpy(&c0, c, sizeof c0);
            memcpy(&c1, c + 8, sizeof c1);
            memcpy(&c2, c + 16, sizeof c2);
            memcpy(&c3, c + 24, sizeof c3);
            s0 += x * c0;
            s1 += x * c1;
            s2 += x * c2;
            s3 += x * c3;
        }
        for (k = 0; k < 8; k++) {
            out[j + k] = s0[k];
            out[j + 8 + k] = s1[k];
            out[j + 16 + k] = s2[k];
            out[j + 24 + k] = s3[k];
        }
    }
    for (; j + 8 <= n; j += 8) {
        smo_v8f s0 = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}, c0;
        const float* c = cols + j;
        for (f = 0; f < d; f++, c += ld) {
            memcpy(&c0, c, sizeof c0);
            s0 += xi[f] * c0;
        }
        for (k = 0; k < 8; k++)
            out[j + k] = s0[k];
    }
#endif
    for (; j < n; j++) {
        float sum = 0.0f;
        for (f = 0; f < d; f++)
            sum += xi[f] * cols[(long)f * ld + j];
        out[j] = sum;
    }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

/* j in [0, n): out_j += a b_j, a sparse row's stored value times the dense column of a
 * feature most rows store (training's sparse_dots.SparseColumns: the scalar loop's
 * order, as -ffp-contract=off keeps it), and out_j += a b_j + c d_j + e f_j + g h_j,
 * four stored values times their support-vector feature rows in one pass over the
 * output (prediction's sparse_dots_feature_major; a quarter of the loads and stores). */
SMO_CLONES
static void smo_axpy(int n, double* SMO_RESTRICT out, double a, const double* SMO_RESTRICT b)
{
    for (int j = 0; j < n; j++)
        out[j] += a * b[j];
}

SMO_CLONES
static void smo_axpy4(int n, double* SMO_RESTRICT out, double a,
                      const double* SMO_RESTRICT b, double c, const double* SMO_RESTRICT d,
                      double e, const double* SMO_RESTRICT f, double g,
                      const double* SMO_RESTRICT h)
{
    for (int j = 0; j < n; j++)
        out[j] += (a * b[j] + c * d[j]) + (e * f[j] + g * h[j]);
}

/* The RBF rows (exponentials four and, where the CPU has AVX-512, eight at a time). */
#include "rbf_loops.h"

#endif
