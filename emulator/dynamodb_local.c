/*
 * dynamodb_local.c - DynamoDB Local's signs of life (see dynamodb_local.h).
 *
 * The banner has DynamoDB Local's shape (its first line verbatim, then one
 * "Name:\tvalue" line per setting, as DynamoDB Local 1.x and 2.x print them);
 * it is printed once the port is listening, where DynamoDB Local prints it
 * just before, so a wait for it never races the socket.
 */
#include "emulator/dynamodb_local.h"

#include <stdio.h>
#include <string.h>

bool dynamodb_local_launcher(const char *argv0)
{
    const char *base;

    if (!argv0) return false;
    base = strrchr(argv0, '/');
    return strcmp(base ? base + 1 : argv0, "java") == 0;
}

void dynamodb_local_banner(const struct config *cfg, uint16_t port)
{
    printf("Initializing DynamoDB Local with the following configuration:\n"
           "Port:\t%u\n"
           "InMemory:\t%s\n"
           "DbPath:\t%s\n"
           "SharedDb:\t%s\n"
           "shouldDelayTransientStatuses:\t%s\n"
           "CorsParams:\t%s\n\n",
           (unsigned) port, cfg->db_path[0] ? "false" : "true",
           cfg->db_path[0] ? cfg->db_path : "null", cfg->shared_db ? "true" : "false",
           cfg->delay_transient_statuses ? "true" : "false", cfg->cors);
    fflush(stdout);
}
