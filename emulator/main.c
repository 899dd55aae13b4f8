/*
 * main.c - the whole life of the ddbemu process, on one screen.
 *
 * config -> block signals -> engine (in memory, or loaded from --db-path) ->
 * HTTP server -> one line on stderr -> TTL sweeper -> wait for SIGINT/SIGTERM
 * -> stop in reverse order (the engine last: with --db-path it flushes).
 */
#include "api/control/control.h"
#include "api/faults/faults.h"
#include "api/http/dispatch.h"
#include "api/http/server.h"
#include "emulator/config.h"
#include "emulator/credentials_file.h"
#include "emulator/faults_file.h"
#include "emulator/fd_limit.h"
#include "emulator/healthcheck.h"
#include "emulator/init_files.h"
#include "emulator/insight_cmd.h"
#include "emulator/report_file.h"
#include "emulator/signals.h"
#include "emulator/sweeper.h"
#include "emulator/transfer_cli.h"
#include "storage/base/limits.h"
#include "storage/engine/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    struct config cfg;
    struct api_config api_cfg;
    struct api_context ctx;
    struct server_config server_cfg;
    struct server *server;
    struct sweeper *sweeper;
    struct db *db;
    struct credentials *credentials = NULL;
    struct fault_set *faults;
    const char *error = NULL;
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

    if (credentials_file_load(cfg.credentials, &credentials) != 0) return 2;

    /* Before any thread exists, so that every thread inherits the mask. */
    signals_block();

    if (cfg.db_path[0]) {
        char *why = NULL;
        db = db_open_dir(cfg.db_path, &why);
        if (!db) {
            fprintf(stderr, "ddbemu: --db-path %s: %s\n", cfg.db_path, why);
            free(why);
            credentials_free(credentials);
            return 1;
        }
    } else {
        db = db_new();
    }
    db_set_delay_transient(db, cfg.delay_transient_statuses);
    db_set_throughput_model(db, cfg.aws_throughput);
    memset(&api_cfg, 0, sizeof api_cfg);
    api_cfg.shared_db = cfg.shared_db;
    api_cfg.control_enabled = config_control_enabled(&cfg);
    api_cfg.s3_dir = cfg.s3_dir[0] ? cfg.s3_dir : NULL;
    api_cfg.cors_origins = cfg.cors;
    api_cfg.credentials = credentials;
    /* Off loopback, the control interface is as open as the network: with
     * --credentials it asks for the same signatures (README, control). */
    api_cfg.control_needs_auth = credentials && !config_is_loopback(&cfg);
    memset(&ctx, 0, sizeof ctx);
    ctx.db = db;
    ctx.config = &api_cfg;
    ctx.operations = api_operations;
    ctx.control = control_handle;

    /* --init: the tables exist before the first request can arrive. */
    if (init_files_load(&ctx, cfg.init_files, cfg.init_count) != 0) {
        db_free(db);
        credentials_free(credentials);
        return 1;
    }
    /* --faults: in force from the first request (the --init requests above
     * are the process's own and never faulted). */
    faults = fault_set_new();
    ctx.faults = faults;
    if (cfg.faults_file && faults_file_load(cfg.faults_file, faults) != 0) {
        fault_set_free(faults);
        db_free(db);
        credentials_free(credentials);
        return 2;
    }

    server_config_init(&server_cfg);
    server_cfg.max_connections = fd_limit_fit(cfg.max_connections);
    server_cfg.max_body_memory = cfg.max_body_memory;
    server_cfg.idle_timeout_s = cfg.idle_timeout_s;
    server_cfg.request_timeout_s = cfg.request_timeout_s;
    server_cfg.host = cfg.host;
    server_cfg.port = cfg.port;
    server_cfg.threads = cfg.threads;
    server_cfg.max_body_bytes = DDB_MAX_REQUEST_BYTES;
    server_cfg.max_request_line_bytes = DDB_MAX_REQUEST_LINE_BYTES;
    server_cfg.max_header_bytes = DDB_MAX_REQUEST_HEADER_BYTES;
    server_cfg.server_name = API_SERVER_NAME;
    server_cfg.handler = api_http_handler;
    server_cfg.handler_arg = &ctx;
    server = server_start(&server_cfg, &error);
    if (!server) {
        fprintf(stderr, "ddbemu: cannot listen on %s port %u: %s\n", cfg.host, (unsigned) cfg.port,
                error);
        fault_set_free(faults);
        db_free(db);
        credentials_free(credentials);
        return 1;
    }
    ipv6 = strchr(cfg.host, ':') != NULL;
    fprintf(stderr, "ddbemu listening on http://%s%s%s:%u\n", ipv6 ? "[" : "", cfg.host,
            ipv6 ? "]" : "", (unsigned) server_port(server));
    if (credentials)
        fprintf(stderr, "ddbemu: verifying signatures against %zu credential%s\n",
                credentials_count(credentials), credentials_count(credentials) == 1 ? "" : "s");

    sweeper = sweeper_start(db, cfg.ttl_interval_ms);
    if (!sweeper) {
        fprintf(stderr, "ddbemu: cannot start the TTL sweeper thread\n");
        server_stop(server);
        fault_set_free(faults);
        db_free(db);
        credentials_free(credentials);
        return 1;
    }

    signals_wait();

    /* Reverse order of start. */
    sweeper_stop(sweeper);
    server_stop(server);
    /* The run's report, for `ddbemu insight --check --db-path` (CI). */
    if (cfg.db_path[0]) report_file_write(db, cfg.db_path);
    fault_set_free(faults);
    db_free(db);
    credentials_free(credentials);
    return 0;
}
