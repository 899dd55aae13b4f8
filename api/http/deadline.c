/*
 * deadline.c - the request deadline watcher (deadline.h says what and why).
 *
 * A watch's state is one atomic word, so that the worker's two calls never
 * wait for the watcher's lock: the low STATE_TIME_BITS hold when the current
 * request began (milliseconds since the watcher started, plus one; zero
 * between requests), the high bits count requests that have arrived whole.
 * The watcher changes the word only by compare-and-swap against the value it
 * looked at, so a request that arrives whole while the watcher looks is never
 * mistaken for the next one beginning.
 */
#include "api/http/deadline.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#define STATE_TIME_BITS 40
#define STATE_TIME_MASK ((UINT64_C(1) << STATE_TIME_BITS) - 1)
/* The longest tick; shorter for short timeouts, so a cut comes at most a
 * quarter of the timeout late. */
#define MAX_TICK_MS 1000

struct deadline_conn {
    struct deadline_conn *prev, *next; /* the watcher's list, under its lock */
    int fd;
    _Atomic uint64_t state; /* arrivals << STATE_TIME_BITS | began (0: none) */
    /* The watcher's own, under its lock: */
    uint64_t seen_arrivals; /* the arrival count when received_base was read */
    uint64_t received_base; /* bytes received by then */
    bool cut;               /* its socket has been shut down */
};

struct deadline {
    struct checked_mutex lock; /* the watcher's lock */
    pthread_cond_t wake;       /* deadline_free's call to stop */
    pthread_t thread;
    bool stopping;
    struct deadline_conn *head;
    struct timespec epoch; /* when the watcher started */
    uint64_t timeout_ms;
    unsigned tick_ms;
    atomic_uint_fast64_t cuts;
};

static uint64_t now_ms(const struct deadline *d)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    int64_t ms = (int64_t) (t.tv_sec - d->epoch.tv_sec) * 1000 +
                 (int64_t) (t.tv_nsec - d->epoch.tv_nsec) / 1000000;

    return (uint64_t) ms + 1;
}

/* Bytes the kernel has received on fd, or false when it cannot say (not a
 * TCP socket, or a kernel older than 4.1). */
static bool bytes_received(int fd, uint64_t *out)
{
    struct tcp_info info;
    socklen_t len = sizeof info;

    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return false;
    if (len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received)
        return false;
    *out = info.tcpi_bytes_received;
    return true;
}

static void log_cut(struct deadline *d)
{
    uint64_t n = atomic_fetch_add(&d->cuts, 1) + 1;

    /* The 1st, 2nd, 4th, 8th...: a slow-loris flood does not flood the log. */
    if ((n & (n - 1)) == 0)
        fprintf(stderr,
                "ddbemu: closed a connection whose request had not arrived whole %" PRIu64
                " s after its first byte (--request-timeout; %" PRIu64 " so far)\n",
                d->timeout_ms / 1000, n);
}

/* One look at c; the caller (the watcher) holds the watcher's lock. */
static void look(struct deadline *d, struct deadline_conn *c, uint64_t now)
{
    assert_mutex_held(&d->lock);
    uint64_t state = atomic_load(&c->state);
    uint64_t began = state & STATE_TIME_MASK;
    uint64_t arrivals = state >> STATE_TIME_BITS;
    uint64_t received;

    if (c->cut) return;
    if (began) {
        /* (A worker may have stamped it after the watcher read the clock.) */
        if (now <= began || now - began <= d->timeout_ms) return;
        /* libmicrohttpd sees the end of the stream and closes it. */
        shutdown(c->fd, SHUT_RDWR);
        c->cut = true;
        log_cut(d);
        return;
    }
    if (!bytes_received(c->fd, &received)) return;
    if (arrivals != c->seen_arrivals) {
        /* A request arrived since the last look: count from here. */
        c->seen_arrivals = arrivals;
        c->received_base = received;
        return;
    }
    if (received > c->received_base)
        atomic_compare_exchange_strong(&c->state, &state, state | (now & STATE_TIME_MASK));
}

static void *watch_loop(void *arg)
{
    struct deadline *d = arg;

    checked_mutex_lock(&d->lock);
    while (!d->stopping) {
        struct timespec until;
        uint64_t now = now_ms(d);

        for (struct deadline_conn *c = d->head; c; c = c->next)
            look(d, c, now);
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += (long) d->tick_ms * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        while (!d->stopping && checked_mutex_wait(&d->wake, &d->lock, &until) != ETIMEDOUT) {
        }
    }
    checked_mutex_unlock(&d->lock);
    return NULL;
}

struct deadline *deadline_start(unsigned timeout_s)
{
    struct deadline *d = xcalloc(1, sizeof *d);
    pthread_condattr_t attr;

    d->timeout_ms = (uint64_t) timeout_s * 1000;
    d->tick_ms = d->timeout_ms / 4 < MAX_TICK_MS ? (unsigned) (d->timeout_ms / 4) : MAX_TICK_MS;
    if (d->tick_ms == 0) d->tick_ms = 1;
    clock_gettime(CLOCK_MONOTONIC, &d->epoch);
    checked_mutex_init(&d->lock);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&d->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (pthread_create(&d->thread, NULL, watch_loop, d) != 0) {
        fprintf(stderr, "ddbemu: cannot start the request deadline thread\n");
        abort();
    }
    return d;
}

void deadline_free(struct deadline *d)
{
    if (!d) return;
    checked_mutex_lock(&d->lock);
    d->stopping = true;
    pthread_cond_signal(&d->wake);
    checked_mutex_unlock(&d->lock);
    pthread_join(d->thread, NULL);
    /* libmicrohttpd has stopped and unwatched every connection. */
    while (d->head)
        deadline_unwatch(d, d->head);
    pthread_cond_destroy(&d->wake);
    checked_mutex_destroy(&d->lock);
    free(d);
}

struct deadline_conn *deadline_watch(struct deadline *d, int fd)
{
    struct deadline_conn *c = xcalloc(1, sizeof *c);

    /* New: no request has arrived and no byte has been counted, so any byte
     * the watcher sees begins the first request. */
    c->fd = fd;
    atomic_init(&c->state, 0);
    checked_mutex_lock(&d->lock);
    c->next = d->head;
    if (d->head) d->head->prev = c;
    d->head = c;
    checked_mutex_unlock(&d->lock);
    return c;
}

void deadline_unwatch(struct deadline *d, struct deadline_conn *c)
{
    if (!c) return;
    checked_mutex_lock(&d->lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        d->head = c->next;
    if (c->next) c->next->prev = c->prev;
    checked_mutex_unlock(&d->lock);
    free(c);
}

void deadline_request_began(struct deadline *d, struct deadline_conn *c)
{
    uint64_t state = atomic_load(&c->state);
    uint64_t now = now_ms(d) & STATE_TIME_MASK;

    /* Already begun (the watcher saw its first bytes): keep the earlier time. */
    while (!(state & STATE_TIME_MASK) &&
           !atomic_compare_exchange_weak(&c->state, &state, state | now)) {
    }
}

void deadline_request_arrived(struct deadline_conn *c)
{
    uint64_t state = atomic_load(&c->state);
    uint64_t next;

    do {
        next = ((state >> STATE_TIME_BITS) + 1) << STATE_TIME_BITS;
    } while (!atomic_compare_exchange_weak(&c->state, &state, next));
}
