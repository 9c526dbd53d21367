/* openmp_threads.h: how many threads an OpenMP region may have here (omp_get_max_threads,
 * which threadpoolctl's limits set), 1 when built without OpenMP. One definition for
 * every module that sizes its own parallel loops. */
#ifndef LIBSMO_OPENMP_THREADS_H
#define LIBSMO_OPENMP_THREADS_H

#ifdef _OPENMP
#include <omp.h>
static int smo_openmp_max_threads(void) { return omp_get_max_threads(); }
#else
static int smo_openmp_max_threads(void) { return 1; }
#endif

#endif
