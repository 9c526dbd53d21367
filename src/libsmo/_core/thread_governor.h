/* One thread instead of the kernel's threads while other processes hold the cores.
 *
 * Every kernel row, solver pass and reconstruction batch on the threads ends at a
 * barrier. When another process keeps one of the cores busy, the scheduler takes turns
 * between it and one of the solver's threads, and the other thread waits at every
 * barrier: on this 2-core machine the reviews' fit took 7.2-9.6 s on two threads beside
 * one busy process, 3.3-3.8 s on one thread, 1.9-2.2 s on two threads without it.
 *
 * The signal is the process's CPU time: on the threads, every thread either works or
 * spins at a barrier, so a window of wall time gives each of them that much CPU time
 * (0.98-1.01 of it in every window of quiet fits), unless the scheduler gave its core
 * to another process (0.55-0.75 beside the busy process). The solver asks every
 * SMO_GOVERNOR_EVERY steps; a window of at least SMO_GOVERNOR_WINDOW seconds on the
 * threads whose CPU time per thread falls below SMO_GOVERNOR_SHARE of it sends the run
 * to one thread for `backoff` windows, doubling each time the threads are found
 * preempted again, up to SMO_GOVERNOR_MAX_BACKOFF. Thread counts never change a step,
 * so the steps and the model are the same bits either way; only the time changes. */
#ifndef SMO_THREAD_GOVERNOR_H
#define SMO_THREAD_GOVERNOR_H

#include <sys/resource.h>
#include <time.h>

#define SMO_GOVERNOR_WINDOW 0.1
#define SMO_GOVERNOR_SHARE 0.85
enum { SMO_GOVERNOR_EVERY = 64, SMO_GOVERNOR_MAX_BACKOFF = 64 };

typedef struct {
    int max_threads;     /* the run's threads */
    int threads;         /* the threads now */
    long steps;          /* asked so far */
    double window_start; /* wall seconds */
    double cpu_start;    /* the process's CPU seconds then */
    int single_left;     /* windows still to run on one thread */
    int backoff;         /* windows on one thread after the next preempted window */
} SmoThreadGovernor;

static inline double smo_governor_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The process's CPU seconds so far, user and system, every thread. */
static inline double smo_process_cpu_seconds(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0)
        return 0.0;
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
           + 1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

static inline void smo_governor_start(SmoThreadGovernor* g, int max_threads, double now,
                                      double cpu)
{
    g->max_threads = max_threads > 1 ? max_threads : 1;
    g->threads = g->max_threads;
    g->steps = 0;
    g->window_start = now;
    g->cpu_start = cpu;
    g->single_left = 0;
    g->backoff = 2;
}

/* The threads from now, given the wall clock and the CPU seconds (a window's end when
 * a window's time has passed). */
static inline int smo_governor_decide(SmoThreadGovernor* g, double now, double cpu)
{
    double span = now - g->window_start, share;
    if (g->max_threads <= 1 || span < SMO_GOVERNOR_WINDOW)
        return g->threads;
    share = (cpu - g->cpu_start) / (span * g->threads);
    g->window_start = now;
    g->cpu_start = cpu;
    if (g->threads > 1) {
        if (share < SMO_GOVERNOR_SHARE) {
            g->threads = 1;
            g->single_left = g->backoff;
            if (g->backoff < SMO_GOVERNOR_MAX_BACKOFF)
                g->backoff *= 2;
        } else {
            g->backoff = 2;
        }
    } else if (--g->single_left <= 0) {
        g->threads = g->max_threads;
    }
    return g->threads;
}

/* A step: every SMO_GOVERNOR_EVERY, look at the clocks. */
static inline int smo_governor_step(SmoThreadGovernor* g)
{
    if (g->max_threads <= 1 || ++g->steps % SMO_GOVERNOR_EVERY != 0)
        return g->threads;
    return smo_governor_decide(g, smo_governor_seconds(), smo_process_cpu_seconds());
}

#endif
