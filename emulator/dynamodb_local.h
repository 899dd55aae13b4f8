/*
 * dynamodb_local.h - ddbemu in DynamoDB Local's place (--as-dynamodb-local).
 *
 * Tools written for the amazon/dynamodb-local image look for DynamoDB Local's
 * own signs that it is up: Testcontainers' .NET module waits for GET / to
 * answer 400 (DynamoDB Local's MissingAuthenticationToken; api/http/dispatch.c
 * answers so when api_config.root_as_dynamodb_local is set), recipes wait for
 * the line "Initializing DynamoDB Local with the following configuration:" on
 * its output, and testcontainers-go starts the image's "java" with DynamoDB
 * Local's launcher arguments. docs/testcontainers.md lists what each expects.
 */
#ifndef DDB_EMULATOR_DYNAMODB_LOCAL_H
#define DDB_EMULATOR_DYNAMODB_LOCAL_H

#include "emulator/config.h"

#include <stdbool.h>
#include <stdint.h>

/* Whether argv0 names DynamoDB Local's launcher: its last path component is
 * "java" (the container image links /usr/local/bin/java to ddbemu, for
 * commands that replace the entrypoint with DynamoDB Local's java command). */
bool dynamodb_local_launcher(const char *argv0);

/* Prints DynamoDB Local's start lines on stdout, with cfg's values and the
 * port actually listened on, and flushes them. */
void dynamodb_local_banner(const struct config *cfg, uint16_t port);

#endif
