/*
 * deadline.h - closes connections whose request does not arrive in time.
 *
 * libmicrohttpd's only timer is its idle timeout, which starts again with
 * every byte: a client that sends a request line or headers one byte at a
 * time (a slow-loris) keeps its connection, and its slot under
 * --max-connections, for as long as it likes. A deadline watch gives each
 * request a fixed time from its first byte to its last (--request-timeout):
 * a watcher thread looks at every open connection once a tick and shuts down
 * the socket of one whose request is overdue; libmicrohttpd then reads the
 * end of the stream and closes the connection as it closes any other.
 *
 * When a request begins: when libmicrohttpd has read its request line (the
 * server calls deadline_request_began), or earlier, when the watcher sees the
 * socket's count of received bytes (the kernel's TCP_INFO) grow while the
 * connection was between requests - the only way to see a request line that
 * is still dripping in. It ends when the whole request has arrived
 * (deadline_request_arrived): the time the handler takes, the time an answer
 * waits, the time the client takes to read it, and the silence between
 * requests on a keep-alive connection are not counted (the idle timeout
 * governs silence).
 *
 * Ownership and locking: the watcher owns every struct deadline_conn. A
 * connection's watch is registered when libmicrohttpd opens it and removed
 * when libmicrohttpd says it is closed, which it says before it closes the
 * descriptor; both take the watcher's lock, which the watcher holds while it
 * looks at descriptors, so it never touches a descriptor that has been closed
 * (and perhaps reused). The two request calls come from the connection's
 * worker thread and only touch the watch's atomic state.
 */
#ifndef DDB_DEADLINE_H
#define DDB_DEADLINE_H

#include <stdint.h>

struct deadline;
struct deadline_conn;

/* Starts the watcher thread: a request must arrive within timeout_s seconds
 * of its first byte (timeout_s > 0). Never NULL (aborts if no thread). */
struct deadline *deadline_start(unsigned timeout_s);
/* Stops the thread and frees the watcher. Every connection must have been
 * unwatched (libmicrohttpd has stopped). NULL is a no-op. */
void deadline_free(struct deadline *d);

/* A connection libmicrohttpd has just opened on socket fd. */
struct deadline_conn *deadline_watch(struct deadline *d, int fd);
/* The connection is closing; called before its descriptor is closed. Frees c. */
void deadline_unwatch(struct deadline *d, struct deadline_conn *c);

/* Its request line has been read (the request has begun, if not already). */
void deadline_request_began(struct deadline *d, struct deadline_conn *c);
/* Its request has arrived whole: no deadline until the next one begins. */
void deadline_request_arrived(struct deadline_conn *c);

#endif
