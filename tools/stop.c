/* A tool asked to stop by a signal (stop.h): the handler records the signal
 * and sets the prep library's flag, which stops a TetGen run in progress
 * (src/prep/volume.h); nothing else happens inside the handler. */
#define _POSIX_C_SOURCE 200809L
#include "stop.h"

#include <signal.h>
#include <string.h>

#include "prep/volume.h"

static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
#define SIGNAL_COUNT (sizeof signals / sizeof signals[0])

static volatile sig_atomic_t caught;
static struct sigaction previous[SIGNAL_COUNT];
static int installed[SIGNAL_COUNT];

static void on_signal(int sig)
{
    if (!caught)
        caught = sig;
    sinew_prep_interrupted = 1;
}

void stop_catch(int restart)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* SA_RESETHAND: the second signal of a kind finds the default action */
    sa.sa_flags = SA_RESETHAND | (restart ? SA_RESTART : 0);
    for (unsigned k = 0; k < SIGNAL_COUNT; k++) {
        struct sigaction old;
        if (sigaction(signals[k], NULL, &old) != 0)
            continue;
        if (signals[k] == SIGHUP && old.sa_handler == SIG_IGN)
            continue;
        installed[k] = sigaction(signals[k], &sa, &previous[k]) == 0;
    }
}

void stop_release(void)
{
    for (unsigned k = 0; k < SIGNAL_COUNT; k++)
        if (installed[k]) {
            sigaction(signals[k], &previous[k], NULL);
            installed[k] = 0;
        }
}

int stop_signal(void) { return caught; }

int stop_status(void) { return 128 + caught; }

const char *stop_name(void)
{
    return caught == SIGINT ? "SIGINT" : caught == SIGTERM ? "SIGTERM" : caught == SIGHUP ? "SIGHUP" : "";
}
