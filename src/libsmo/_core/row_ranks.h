/* How far a variable is from the solver's next selections: the key by which the kernel
 * cache's "ranked" policy (cache.pyx) chooses the row to evict.
 *
 * LIBSVM's selection takes the worst violator i = argmax of v_t = -y_t G_t over I_up
 * (v_i = m(a)) and a partner j from I_low whose v_j is low, near M(a). A variable whose
 * v_t is far below m(a) (in I_up) and far above M(a) (in I_low) is not selected until
 * the gradient moves it there; a shrunk variable is not selected at all until the
 * active set grows again. Measured on Fashion-MNIST (40,000 images, tops against the
 * rest, RBF C=10): of the rows of variables a step left at a bound, 95-100% were never
 * asked for again, while every row of a free variable was, a median of 850-1,050 steps
 * later: LRU evicted those before their turn whenever the free rows outnumbered the
 * cache's slots. The distance below stands for the time to a row's next use, and the
 * row with the largest is evicted, the least recently used on ties: Belady's rule
 * with the gradient as its forecast. */
#ifndef LIBSMO_ROW_RANKS_H
#define LIBSMO_ROW_RANKS_H

#include <math.h>

typedef struct {
    const double* G;          /* the gradient, per variable */
    const double* y;          /* the signs */
    const double* pen_up;     /* 0.0 in I_up, -inf out: 2 rows (sign groups) of stride */
    const double* pen_low;    /* likewise for I_low */
    long stride;
    int nu;                   /* the nu variant: thresholds per sign group */
    int active_size;          /* variables at and beyond it are shrunk */
    double m[2], M[2];        /* m(a), M(a) per group at the last selection */
} SmoRowRank;

/* The distance of variable t from the next selections: +inf when shrunk, else the
 * smaller of m - v_t (t in I_up) and v_t - M (t in I_low), 0 or more while m and M are
 * the extremes; +inf where neither applies. */
static inline double smo_row_distance(const SmoRowRank* r, int t)
{
    int g;
    double v, d = INFINITY, e;
    if (t >= r->active_size)
        return INFINITY;
    g = (r->nu && r->y[t] < 0) ? 1 : 0;
    v = -r->y[t] * r->G[t];
    if (r->pen_up[g * r->stride + t] == 0.0 && isfinite(r->m[g]))
        d = r->m[g] - v;
    if (r->pen_low[g * r->stride + t] == 0.0 && isfinite(r->M[g])) {
        e = v - r->M[g];
        if (e < d)
            d = e;
    }
    return d;
}

#endif
