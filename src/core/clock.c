/* The host's monotonic clock: POSIX's CLOCK_MONOTONIC, or Windows' performance
 * counter (mingw-w64 has clock_gettime only in winpthreads, a DLL of its own). */
#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <time.h>
#endif

#include "clock.h"

double sinew_host_ms(void)
{
#if defined(_WIN32)
    /* The frequency is fixed at boot, so asking each time is right and cheap. */
    LARGE_INTEGER freq, now;
    QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&now);
    return 1e3 * (double)now.QuadPart / (double)freq.QuadPart;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
#endif
}
