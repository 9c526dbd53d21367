# One thread instead of the kernel's while other processes hold the cores
# (thread_governor.h; the solver asks at its steps, `smo.due`).

cdef extern from "thread_governor.h" nogil:
    ctypedef struct SmoThreadGovernor:
        int max_threads
        int threads
    double smo_governor_seconds()
    double smo_process_cpu_seconds()
    void smo_governor_start(SmoThreadGovernor* g, int max_threads, double now,
                            double cpu)
    int smo_governor_decide(SmoThreadGovernor* g, double now, double cpu)
    int smo_governor_step(SmoThreadGovernor* g)
