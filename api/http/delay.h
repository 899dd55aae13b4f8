/*
 * delay.h - answers held back for a while without holding a thread.
 *
 * A latency fault (api/faults/faults.h) asks for an answer to be sent some
 * milliseconds late, in real time. A worker thread of the server polls many
 * connections; one that slept would stall every other connection it owns.
 * Instead server.c suspends the connection (libmicrohttpd's
 * MHD_suspend_connection: the worker goes on with its other connections) and
 * hands it here; one timer thread sleeps until the earliest one is due and
 * calls the resume function for it, after which libmicrohttpd calls the
 * server's handler again and the held answer is sent. So a thousand delayed
 * answers cost one sleeping thread, and a delayed answer delays no other.
 *
 * Locking: one mutex guards the list; the resume function is called with it
 * released. Ownership: the timer never owns what it is handed.
 */
#ifndef DDB_DELAY_H
#define DDB_DELAY_H

struct delay;

typedef void delay_resume_fn(void *item);

/* Starts the timer thread; resume is called once for every item held. Never
 * NULL (aborts if no thread). */
struct delay *delay_start(delay_resume_fn *resume);
/* Resumes item after ms milliseconds (monotonic clock). */
void delay_hold(struct delay *d, void *item, unsigned ms);
/* Resumes everything still held, at once (the server is stopping: nothing
 * may be held after the call begins), stops the thread and frees the timer.
 * NULL is a no-op. */
void delay_free(struct delay *d);

#endif
