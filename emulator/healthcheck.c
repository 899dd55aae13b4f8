/*
 * healthcheck.c - one GET / to a running ddbemu (see healthcheck.h).
 */
#include "emulator/healthcheck.h"

#include "api/client/http_client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every step (connect, send, each read) waits at most this long. */
#define HEALTHCHECK_TIMEOUT_S 3

int healthcheck_run(const char *host, uint16_t port)
{
    struct http_target t = {.port = port, .timeout_s = HEALTHCHECK_TIMEOUT_S};
    struct text_buf answer = {0};
    int status = 0, rc = 1;

    if (strcmp(host, "0.0.0.0") == 0) host = "127.0.0.1";
    if (strcmp(host, "::") == 0) host = "::1";
    snprintf(t.host, sizeof t.host, "%s", host);
    if (http_fetch(&t, "GET", "/", NULL, &status, &answer) != 0)
        fprintf(stderr, "ddbemu: health check: nothing answers on %s port %u (%s)\n", host,
                (unsigned) port, strerror(errno));
    else if (status == 200 && answer.data && strncmp(answer.data, "healthy: ", 9) == 0)
        rc = 0;
    else if (status == 400 && answer.data && strstr(answer.data, "#MissingAuthenticationToken\""))
        rc = 0; /* a server run with --as-dynamodb-local answers GET / as DynamoDB Local */
    else
        fprintf(stderr, "ddbemu: health check: unexpected answer from %s port %u\n", host,
                (unsigned) port);
    free(answer.data);
    return rc;
}
