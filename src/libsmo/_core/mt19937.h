/* The 32-bit Mersenne Twister (Matsumoto and Nishimura 1998; C++'s std::mt19937) and
   scikit-learn's bounded integers on it (sklearn/svm/src/newrand: Lemire's method with
   its "tweaked" threshold), the random source of scikit-learn's LIBLINEAR: the
   coordinate descent's permutations draw what scikit-learn's draw for the same seed.

   Written from the published algorithm (init_genrand, genrand_int32); one generator a
   solver run, no global state, so runs on several threads do not share a stream. */
#ifndef SMO_MT19937_H
#define SMO_MT19937_H

#include <stdint.h>

#define SMO_MT_N 624
#define SMO_MT_M 397

typedef struct {
    uint32_t state[SMO_MT_N];
    int next;
} smo_mt19937;

static void smo_mt_seed(smo_mt19937 *g, uint32_t seed)
{
    int i;
    g->state[0] = seed;
    for (i = 1; i < SMO_MT_N; i++)
        g->state[i] = 1812433253u * (g->state[i - 1] ^ (g->state[i - 1] >> 30)) + (uint32_t)i;
    g->next = SMO_MT_N;
}

/* the next block of SMO_MT_N outputs' state words */
static void smo_mt_twist(smo_mt19937 *g)
{
    uint32_t *s = g->state;
    uint32_t y;
    int k;
    for (k = 0; k < SMO_MT_N - SMO_MT_M; k++) {
        y = (s[k] & 0x80000000u) | (s[k + 1] & 0x7fffffffu);
        s[k] = s[k + SMO_MT_M] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    for (; k < SMO_MT_N - 1; k++) {
        y = (s[k] & 0x80000000u) | (s[k + 1] & 0x7fffffffu);
        s[k] = s[k + SMO_MT_M - SMO_MT_N] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    y = (s[SMO_MT_N - 1] & 0x80000000u) | (s[0] & 0x7fffffffu);
    s[SMO_MT_N - 1] = s[SMO_MT_M - 1] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    g->next = 0;
}

static inline uint32_t smo_mt_next(smo_mt19937 *g)
{
    uint32_t y;
    if (g->next >= SMO_MT_N)
        smo_mt_twist(g);
    y = g->state[g->next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* A uniform integer in [0, range), range >= 1: floor(x range / 2^32) of the next
   output x, drawn again while the low half of x range is below 2^32 mod range (the
   threshold reduced as scikit-learn reduces it, which takes the same draws). */
static inline uint32_t smo_mt_bounded(smo_mt19937 *g, uint32_t range)
{
    uint32_t x = smo_mt_next(g);
    uint64_t m = (uint64_t)x * (uint64_t)range;
    uint32_t low = (uint32_t)m;
    if (low < range) {
        uint32_t t = -range;
        if (t >= range) {
            t -= range;
            if (t >= range)
                t %= range;
        }
        while (low < t) {
            x = smo_mt_next(g);
            m = (uint64_t)x * (uint64_t)range;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

#endif
