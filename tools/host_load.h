/* How busy the host is, for benchmarks that say how much of the machine
 * they had: Linux's /proc/stat and this process's CPU clock. */
#ifndef SINEW_TOOLS_HOST_LOAD_H
#define SINEW_TOOLS_HOST_LOAD_H

#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* CPU seconds all of the host's CPUs have been busy (Linux /proc/stat);
 * negative when unknown. */
static inline double host_busy_s(void)
{
    unsigned long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "r");
    int got = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                         &v[6], &v[7])
                : 0;
    if (f)
        fclose(f);
    long tick = sysconf(_SC_CLK_TCK);
    if (got != 8 || tick <= 0)
        return -1.0;
    /* user nice system idle iowait irq softirq steal: all but idle and iowait */
    return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)tick;
}

/* CPU seconds of this process, every thread (lavapipe's included). */
static inline double own_cpu_s(void)
{
    struct timespec ts;
    return clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0 ? (double)ts.tv_sec + ts.tv_nsec * 1e-9 : -1.0;
}

#endif
