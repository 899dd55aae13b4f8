/*
 * healthcheck.h - `ddbemu --health-check`: is the ddbemu at HOST:PORT serving?
 *
 * For a container's HEALTHCHECK, whose image has no curl or wget: sends
 * DynamoDB's health request (GET /) and waits at most a few seconds for the
 * "healthy: ..." answer. A wildcard listen address (0.0.0.0, ::) is asked on
 * loopback. No state; nothing survives the call.
 */
#ifndef DDB_EMULATOR_HEALTHCHECK_H
#define DDB_EMULATOR_HEALTHCHECK_H

#include <stdint.h>

/* 0 when the server answered 200 with a health line, or (--as-dynamodb-local,
 * the image's entrypoint) DynamoDB Local's 400 MissingAuthenticationToken;
 * 1 otherwise (a line on stderr says why). */
int healthcheck_run(const char *host, uint16_t port);

#endif
