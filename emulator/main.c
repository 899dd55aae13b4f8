/*
 * main.c - the whole life of the ddbemu process, on one screen.
 *
 * config -> block signals -> emulator_open (engine, in memory or loaded from
 * --db-path; --init; TTL sweeper) -> emulator_listen (HTTP server) -> one line
 * on stderr -> wait for SIGINT/SIGTERM -> emulator_close (reverse order; the
 * engine last: with --db-path it flushes). lifecycle.c holds the steps, which
 * libddbemu (library.c) runs too.
 */
#include "api/sigv4/credentials.h"
#include "emulator/config.h"
#include "emulator/dynamodb_local.h"
#include "emulator/healthcheck.h"
#include "emulator/insight_cmd.h"
#include "emulator/lifecycle.h"
#include "emulator/signals.h"
#include "emulator/transfer_cli.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    struct config cfg;
    struct emulator *emu;
    char *why = NULL;
    int status;
    bool ipv6;

    /* Subcommands talk to a running ddbemu instead of being one. */
    if (argc > 1 && transfer_cli_is_command(argv[1])) return transfer_cli_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "insight") == 0) return insight_command(argc - 1, argv + 1);

    switch (config_parse(&cfg, argc, argv)) {
    case CONFIG_RUN: break;
    case CONFIG_EXIT: return 0;
    case CONFIG_ERROR: return 2;
    }
    if (cfg.health_check) return healthcheck_run(cfg.host, cfg.port);

    /* Before any thread exists, so that every thread inherits the mask. */
    signals_block();

    emu = emulator_open(&cfg, &why, &status);
    if (!emu) {
        fprintf(stderr, "ddbemu: %s\n", why);
        free(why);
        return status;
    }
    if (emulator_listen(emu, &why) != 0) {
        fprintf(stderr, "ddbemu: %s\n", why);
        free(why);
        emulator_close(emu);
        return 1;
    }
    ipv6 = strchr(cfg.host, ':') != NULL;
    fprintf(stderr, "ddbemu listening on http://%s%s%s:%u\n", ipv6 ? "[" : "", cfg.host,
            ipv6 ? "]" : "", (unsigned) emulator_port(emu));
    if (emu->credentials)
        fprintf(stderr, "ddbemu: verifying signatures against %zu credential%s\n",
                credentials_count(emu->credentials),
                credentials_count(emu->credentials) == 1 ? "" : "s");
    if (cfg.as_dynamodb_local) dynamodb_local_banner(&cfg, emulator_port(emu));

    signals_wait();

    emulator_close(emu);
    return 0;
}
