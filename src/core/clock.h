/* The host's monotonic clock, for wall-clock spans (solve and build times). */
#ifndef SINEW_CORE_CLOCK_H
#define SINEW_CORE_CLOCK_H

/* Milliseconds from an arbitrary fixed point; never goes back. */
double sinew_host_ms(void);

#endif
