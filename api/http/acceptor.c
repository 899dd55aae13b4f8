/*
 * acceptor.c - the listening socket and the thread that accepts (acceptor.h).
 */
#define _GNU_SOURCE /* accept4: the descriptor non-blocking and close-on-exec in one call */
#include "api/http/acceptor.h"

#include "storage/base/alloc.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct acceptor {
    int fd; /* the listening socket */
    uint16_t port;
    sem_t slots; /* free connection slots */
    atomic_bool stopping;
    bool started;
    pthread_t thread;
    acceptor_hand_fn *hand;
    void *hand_arg;
};

/* How long the thread waits before trying again when the process or the
 * system is out of descriptors or memory (the connection stays in the
 * backlog meanwhile). */
#define ACCEPT_RETRY_NS (10 * 1000 * 1000)

struct acceptor *acceptor_open(const struct sockaddr *addr, socklen_t addr_len, unsigned slots,
                               const char **error)
{
    struct acceptor *a;
    struct sockaddr_storage bound;
    socklen_t bound_len = sizeof bound;
    int fd, on = 1;

    fd = socket(addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *error = "cannot open a socket for that address";
        return NULL;
    }
    /* A restart may bind the port its predecessor's connections still hold
     * in TIME_WAIT; an IPv6 address is that address only, not IPv4 too. As
     * libmicrohttpd did, a socket that refuses either still listens. */
    (void) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (addr->sa_family == AF_INET6)
        (void) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    if (bind(fd, addr, addr_len) != 0 || listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *) &bound, &bound_len) != 0) {
        close(fd);
        *error = "cannot listen on that address (in use, or not this machine's?)";
        return NULL;
    }
    a = xcalloc(1, sizeof *a);
    a->fd = fd;
    a->port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *) &bound)->sin6_port
                                                : ((struct sockaddr_in *) &bound)->sin_port);
    sem_init(&a->slots, 0, slots);
    return a;
}

uint16_t acceptor_port(const struct acceptor *a)
{
    return a->port;
}

/* Waits for a free slot; false once the acceptor is stopping. */
static bool take_slot(struct acceptor *a)
{
    while (sem_wait(&a->slots) != 0)
        if (errno != EINTR) abort();
    return !atomic_load(&a->stopping);
}

/* One failed accept: true to go on. Running out of descriptors or memory
 * leaves the connection in the backlog and tries again shortly, saying so
 * once per episode. */
static bool accept_failed(struct acceptor *a, int err, bool *short_of)
{
    struct timespec pause = {0, ACCEPT_RETRY_NS};

    if (atomic_load(&a->stopping)) return false;
    switch (err) {
    case EINTR:
    case ECONNABORTED:
    case EPROTO: return true; /* that connection is gone; the next may be fine */
    case EMFILE:
    case ENFILE:
    case ENOBUFS:
    case ENOMEM:
        if (!*short_of)
            fprintf(stderr, "ddbemu: cannot accept a connection (%s); trying again\n",
                    strerror(err));
        *short_of = true;
        nanosleep(&pause, NULL);
        return true;
    default:
        fprintf(stderr, "ddbemu: accepting connections failed (%s); no more are accepted\n",
                strerror(err));
        return false;
    }
}

static void *accept_loop(void *arg)
{
    struct acceptor *a = arg;
    bool short_of = false;

    while (take_slot(a)) {
        struct sockaddr_storage peer;
        socklen_t peer_len = sizeof peer;
        int fd = accept4(a->fd, (struct sockaddr *) &peer, &peer_len, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd < 0) {
            int err = errno;
            sem_post(&a->slots);
            if (!accept_failed(a, err, &short_of)) break;
            continue;
        }
        short_of = false;
        if (!a->hand(a->hand_arg, fd, (struct sockaddr *) &peer, peer_len)) sem_post(&a->slots);
    }
    return NULL;
}

void acceptor_start(struct acceptor *a, acceptor_hand_fn *hand, void *arg)
{
    a->hand = hand;
    a->hand_arg = arg;
    if (pthread_create(&a->thread, NULL, accept_loop, a) != 0) {
        fprintf(stderr, "ddbemu: cannot start the acceptor thread\n");
        abort();
    }
    a->started = true;
}

void acceptor_release(struct acceptor *a)
{
    sem_post(&a->slots);
}

void acceptor_stop(struct acceptor *a)
{
    atomic_store(&a->stopping, true);
    if (a->started) {
        /* Wakes the thread wherever it waits: accept on a socket shut down
         * fails (EINVAL), and a post lets a wait for a slot return. */
        shutdown(a->fd, SHUT_RDWR);
        sem_post(&a->slots);
        pthread_join(a->thread, NULL);
        a->started = false;
    }
    if (a->fd >= 0) close(a->fd);
    a->fd = -1;
}

void acceptor_free(struct acceptor *a)
{
    if (!a) return;
    if (a->fd >= 0) acceptor_stop(a);
    sem_destroy(&a->slots);
    free(a);
}
