/*
 * acceptor.h - the listening socket, and one thread that accepts each
 * connection and hands it to a worker.
 *
 * libmicrohttpd 0.9.75's thread pool lets every worker poll the one
 * listening socket, and the first awake takes the connection: a burst of
 * connections (an SDK's pool, the benchmark's client) mostly lands on one
 * worker, and that worker then serves all of them while the others idle -
 * measured with 16 connections on two workers: one worker did all the work,
 * the server used one core of two and the machine idled a fifth of its time.
 * The acceptor accepts instead, and the server hands each connection to a
 * worker by libmicrohttpd's own spread (MHD_add_connection: by descriptor,
 * to the next worker with a free slot), so connections opened together are
 * served by all the workers.
 *
 * Slots: the acceptor holds at most `slots` connections open at once. At
 * the bound it stops accepting - new connections wait in the kernel's listen
 * backlog - until acceptor_release says one has closed, as libmicrohttpd's
 * own workers did.
 *
 * Ownership and threads: acceptor_open binds and listens (nothing is
 * accepted yet); acceptor_start starts the thread, which calls `hand` for
 * every connection it accepts; acceptor_stop stops the thread and closes the
 * listening socket; acceptor_free frees it once no connection it handed over
 * is left to release its slot. acceptor_release may be called from any
 * thread.
 */
#ifndef DDB_ACCEPTOR_H
#define DDB_ACCEPTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct acceptor;

/* Takes an accepted connection's descriptor (non-blocking, close-on-exec):
 * true when it now owns it and will acceptor_release its slot when it
 * closes; false when the descriptor was closed and never used, so that the
 * slot is free again at once. */
typedef bool acceptor_hand_fn(void *arg, int fd, const struct sockaddr *peer, socklen_t peer_len);

/* Binds addr (SO_REUSEADDR, IPV6_V6ONLY for an IPv6 address, port 0 picks a
 * free one) and listens with the system's largest backlog. NULL with
 * *error set (a static sentence) when it cannot. slots > 0. */
struct acceptor *acceptor_open(const struct sockaddr *addr, socklen_t addr_len, unsigned slots,
                               const char **error);

/* The port bound (the one picked when addr's was 0). */
uint16_t acceptor_port(const struct acceptor *a);

/* Starts accepting: hand(arg, ...) runs on the acceptor's thread. Aborts
 * when no thread can be created (as the other background threads do). */
void acceptor_start(struct acceptor *a, acceptor_hand_fn *hand, void *arg);

/* A connection handed over has closed: its slot is free. */
void acceptor_release(struct acceptor *a);

/* Stops accepting (a connection in the backlog is refused when the socket
 * closes), joins the thread and closes the socket. acceptor_release may
 * still be called until acceptor_free. */
void acceptor_stop(struct acceptor *a);

/* Frees a stopped acceptor (or one never started). NULL is a no-op. */
void acceptor_free(struct acceptor *a);

#endif
