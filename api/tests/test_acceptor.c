/*
 * test_acceptor.c - the listening socket and its thread (api/http/acceptor.h):
 * at the slots' bound a newcomer waits in the backlog until a slot is
 * released; a connection the hand refuses frees its slot at once; stopping
 * returns while the thread waits for a slot; a port in use is an error.
 */
#include "api/http/acceptor.h"
#include "storage/tests/check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 5000

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int handed[8];
static int handed_count;
static bool keep = true; /* what the hand answers */

static bool hand(void *arg, int fd, const struct sockaddr *peer, socklen_t peer_len)
{
    (void) arg;
    (void) peer_len;
    CHECK(peer->sa_family == AF_INET);
    pthread_mutex_lock(&mu);
    if (handed_count < 8) handed[handed_count] = fd;
    handed_count++;
    pthread_mutex_unlock(&mu);
    if (!keep) close(fd);
    return keep;
}

static int count(void)
{
    int n;

    pthread_mutex_lock(&mu);
    n = handed_count;
    pthread_mutex_unlock(&mu);
    return n;
}

/* Waits up to WAIT_MS for count() to reach n; the count then. */
static int wait_for(int n)
{
    struct timespec ms = {0, 1000000};

    for (int i = 0; i < WAIT_MS && count() < n; i++)
        nanosleep(&ms, NULL);
    return count();
}

static struct acceptor *open_loopback(uint16_t port, unsigned slots, const char **error)
{
    struct sockaddr_in addr;

    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return acceptor_open((struct sockaddr *) &addr, sizeof addr, slots, error);
}

/* A client connection; loopback's connect completes from the backlog. */
static int dial(uint16_t port)
{
    struct sockaddr_in addr;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(connect(fd, (struct sockaddr *) &addr, sizeof addr) == 0);
    return fd;
}

static void reset(bool keep_them)
{
    pthread_mutex_lock(&mu);
    handed_count = 0;
    keep = keep_them;
    pthread_mutex_unlock(&mu);
}

/* An acceptor of `slots` slots whose hand keeps (or refuses) what it gets,
 * started, and n clients dialled to it. */
static struct acceptor *start_dialled(unsigned slots, bool keep_them, int *clients, int n)
{
    const char *error = NULL;
    struct acceptor *a = open_loopback(0, slots, &error);

    reset(keep_them);
    CHECK(a != NULL);
    CHECK(acceptor_port(a) != 0);
    acceptor_start(a, hand, NULL);
    for (int i = 0; i < n; i++)
        clients[i] = dial(acceptor_port(a));
    return a;
}

static void close_all(const int *fds, int n)
{
    for (int i = 0; i < n; i++)
        close(fds[i]);
}

static void test_bound_keeps_newcomers_in_backlog(void)
{
    struct timespec settle = {0, 50000000};
    int clients[3];
    struct acceptor *a = start_dialled(2, true, clients, 3);

    CHECK_INT_EQ(wait_for(2), 2);
    nanosleep(&settle, NULL);
    CHECK_INT_EQ(count(), 2); /* the third waits for a slot */
    close(handed[0]);
    acceptor_release(a);
    CHECK_INT_EQ(wait_for(3), 3);
    acceptor_stop(a);
    acceptor_free(a);
    close_all(handed + 1, 2);
    close_all(clients, 3);
}

static void test_refused_connection_frees_its_slot(void)
{
    int clients[3];
    struct acceptor *a = start_dialled(1, false, clients, 3);

    CHECK_INT_EQ(wait_for(3), 3);
    acceptor_stop(a);
    acceptor_free(a);
    close_all(clients, 3);
}

/* The thread waits for a slot when stopped: the stop still returns. */
static void test_stop_while_waiting_for_a_slot(void)
{
    int clients[2];
    struct acceptor *a = start_dialled(1, true, clients, 2);

    CHECK_INT_EQ(wait_for(1), 1);
    acceptor_stop(a);
    acceptor_release(a); /* the handed connection closes after the stop */
    acceptor_free(a);
    CHECK_INT_EQ(count(), 1);
    close(handed[0]);
    close_all(clients, 2);
}

static void test_port_in_use(void)
{
    const char *error = NULL;
    struct acceptor *a = open_loopback(0, 1, &error);
    struct acceptor *b;

    CHECK(a != NULL);
    b = open_loopback(acceptor_port(a), 1, &error);
    CHECK(b == NULL);
    CHECK(error != NULL && strstr(error, "cannot listen") != NULL);
    acceptor_free(a); /* never started */
}

int main(void)
{
    RUN(test_bound_keeps_newcomers_in_backlog);
    RUN(test_refused_connection_frees_its_slot);
    RUN(test_stop_while_waiting_for_a_slot);
    RUN(test_port_in_use);
    return check_report();
}
