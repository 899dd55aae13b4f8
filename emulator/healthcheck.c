/*
 * healthcheck.c - one GET / to a running ddbemu (see healthcheck.h).
 */
#include "emulator/healthcheck.h"

#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* Every step (connect, send, each read) waits at most this long. */
#define HEALTHCHECK_TIMEOUT_S 3

int healthcheck_run(const char *host, uint16_t port)
{
    static const char request[] = "GET / HTTP/1.0\r\nHost: localhost\r\n\r\n";
    struct addrinfo hints, *res = NULL;
    struct timeval tv = {HEALTHCHECK_TIMEOUT_S, 0};
    char service[8], answer[512];
    size_t len = 0;
    ssize_t n;
    int fd = -1, rc = 1;

    if (strcmp(host, "0.0.0.0") == 0) host = "127.0.0.1";
    if (strcmp(host, "::") == 0) host = "::1";
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    snprintf(service, sizeof service, "%u", (unsigned) port);
    if (getaddrinfo(host, service, &hints, &res) != 0 || !res) {
        fprintf(stderr, "ddbemu: health check: cannot resolve %s\n", host);
        goto out;
    }
    fd = socket(res->ai_family, SOCK_STREAM, 0);
    if (fd < 0) goto out;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
        fprintf(stderr, "ddbemu: health check: nothing answers on %s port %s\n", host, service);
        goto out;
    }
    if (send(fd, request, sizeof request - 1, MSG_NOSIGNAL) != (ssize_t) (sizeof request - 1))
        goto out;
    while (len < sizeof answer - 1 && (n = recv(fd, answer + len, sizeof answer - 1 - len, 0)) > 0)
        len += (size_t) n;
    answer[len] = '\0';
    if ((strncmp(answer, "HTTP/1.1 200 ", 13) == 0 || strncmp(answer, "HTTP/1.0 200 ", 13) == 0) &&
        strstr(answer, "\r\n\r\nhealthy: "))
        rc = 0;
    else
        fprintf(stderr, "ddbemu: health check: unexpected answer from %s port %s\n", host, service);
out:
    if (fd >= 0) close(fd);
    if (res) freeaddrinfo(res);
    return rc;
}
