/* A tool asked to stop by a signal: SIGINT (Ctrl-C), SIGTERM or SIGHUP set a
 * flag that the tool's work checks at its own safe points (sinew-sim after a
 * step, sinew-prep while TetGen runs), so that it can finish what it holds,
 * remove what it made, and exit with 128 + the signal's number (130 for
 * SIGINT, 143 for SIGTERM, 129 for SIGHUP). A second signal of the same kind
 * takes its default action at once: the process ends without finishing. */
#ifndef SINEW_TOOLS_STOP_H
#define SINEW_TOOLS_STOP_H

/* Catches the three signals until stop_release. restart: system calls the
 * signal interrupts are restarted (SA_RESTART; a device's driver waits
 * through them), or fail with EINTR (a wait for a child that must end). A
 * SIGHUP that is ignored (nohup) stays ignored; SIGINT and SIGTERM are
 * caught even where ignored, as a shell's background job has SIGINT. */
void stop_catch(int restart);

/* The actions stop_catch replaced, back in place; a signal caught stays caught. */
void stop_release(void);

/* The signal caught first (0: none yet). */
int stop_signal(void);

/* 128 + that signal: the tool's exit status once it has stopped. */
int stop_status(void);

/* Its name, "SIGINT", "SIGTERM" or "SIGHUP" ("" before one came). */
const char *stop_name(void);

#endif
