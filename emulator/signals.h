/*
 * signals.h - how the process learns it should stop.
 *
 * SIGINT and SIGTERM are blocked in every thread (signals_block() runs in
 * main before any thread starts, so all threads inherit the mask) and main
 * waits for them with sigwait(): no handler runs asynchronously, so shutdown
 * is ordinary code in main. SIGPIPE is ignored (a client that hangs up must
 * not kill the server).
 */
#ifndef DDB_EMULATOR_SIGNALS_H
#define DDB_EMULATOR_SIGNALS_H

/* Blocks SIGINT and SIGTERM in the calling thread (and the threads it will start). */
void signals_block(void);
/* Waits until SIGINT or SIGTERM arrives and returns its number. */
int signals_wait(void);

#endif
