/*
 * lifecycle.c - open, listen, close: one emulator's life (see lifecycle.h).
 *
 * What the command line's flags mean for the engine and the server is decided
 * here once, for the process (main.c) and the library (library.c) alike.
 */
#include "emulator/lifecycle.h"

#include "api/control/control.h"
#include "api/control/mcp_session.h"
#include "api/faults/faults.h"
#include "api/http/server.h"
#include "emulator/credentials_file.h"
#include "emulator/faults_file.h"
#include "emulator/fd_limit.h"
#include "emulator/init_files.h"
#include "emulator/report_file.h"
#include "emulator/sweeper.h"
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/engine/db.h"
#include "storage/engine/db_consistency.h"
#include "storage/model/item.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A message for *why, formatted as printf does (owned by the caller). */
static char *sentence(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *sentence(const char *fmt, ...)
{
    va_list ap;
    char *text;
    int len;

    va_start(ap, fmt);
    len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    text = xmalloc((size_t) len + 1);
    va_start(ap, fmt);
    vsnprintf(text, (size_t) len + 1, fmt, ap);
    va_end(ap);
    return text;
}

/* --consistency and its lags: the engine-wide consistency model (docs/consistency.md). */
static void set_consistency(struct db *db, const struct config *cfg)
{
    struct consistency_settings cs;

    consistency_settings_default(&cs);
    cs.aws = cfg->consistency_aws;
    if (cfg->consistency_read_lag_ms >= 0) cs.read_lag_ms = cfg->consistency_read_lag_ms;
    if (cfg->consistency_gsi_lag_ms >= 0) cs.gsi_lag_ms = cfg->consistency_gsi_lag_ms;
    if (cfg->consistency_transaction_ms >= 0) cs.transaction_ms = cfg->consistency_transaction_ms;
    cs.seeded = cfg->consistency_seeded;
    cs.seed = cfg->consistency_seed;
    db_set_consistency(db, &cs);
}

struct emulator *emulator_open(const struct config *cfg, char **why, int *exit_status)
{
    struct emulator *emu = xcalloc(1, sizeof *emu);

    *why = NULL;
    *exit_status = 1;
    emu->cfg = *cfg;
    if (credentials_file_load(emu->cfg.credentials, &emu->credentials) != 0) {
        *why = sentence("--credentials %s: the keys cannot be loaded",
                        emu->cfg.credentials[0] ? emu->cfg.credentials : CREDENTIALS_ENV);
        *exit_status = 2; /* a usage error, like a bad flag */
        free(emu);
        return NULL;
    }
    if (emu->cfg.db_path[0]) {
        char *reason = NULL;
        emu->db = db_open_dir(emu->cfg.db_path, &reason);
        if (!emu->db) {
            *why = sentence("--db-path %s: %s", emu->cfg.db_path, reason);
            free(reason);
            credentials_free(emu->credentials);
            free(emu);
            return NULL;
        }
    } else {
        emu->db = db_new();
    }
    db_set_delay_transient(emu->db, emu->cfg.delay_transient_statuses);
    db_set_throughput_model(emu->db, emu->cfg.aws_throughput);
    set_consistency(emu->db, &emu->cfg);

    emu->api_cfg.shared_db = emu->cfg.shared_db;
    emu->api_cfg.control_enabled = config_control_enabled(&emu->cfg);
    emu->api_cfg.mcp_read_only = emu->cfg.mcp_read_only;
    emu->api_cfg.s3_dir = emu->cfg.s3_dir[0] ? emu->cfg.s3_dir : NULL;
    emu->api_cfg.cors_origins = emu->cfg.cors;
    emu->api_cfg.credentials = emu->credentials;
    emu->api_cfg.root_as_dynamodb_local = emu->cfg.as_dynamodb_local;
    /* Off loopback, the control interface is as open as the network: with
     * --credentials it asks for the same signatures (README, control). */
    emu->api_cfg.control_needs_auth = emu->credentials && !config_is_loopback(&emu->cfg);
    emu->ctx.db = emu->db;
    emu->ctx.config = &emu->api_cfg;
    emu->ctx.operations = api_operations;
    emu->ctx.control = control_handle;
    emu->mcp_sessions = mcp_sessions_new();
    emu->ctx.mcp_sessions = emu->mcp_sessions;

    /* --init: the tables exist before the first request can arrive. */
    if (init_files_load(&emu->ctx, emu->cfg.init_files, emu->cfg.init_count) != 0) {
        *why = sentence("--init: a file could not be loaded");
        emulator_close(emu);
        return NULL;
    }
    /* --faults: in force from the first request (the --init requests above
     * are the emulator's own and never faulted). */
    emu->faults = fault_set_new();
    emu->ctx.faults = emu->faults;
    if (emu->cfg.faults_file && faults_file_load(emu->cfg.faults_file, emu->faults) != 0) {
        *why = sentence("--faults %s: the rules cannot be loaded", emu->cfg.faults_file);
        *exit_status = 2; /* a usage error, like a bad flag */
        emulator_close(emu);
        return NULL;
    }
    /* What loading the database and --init decoded on this thread is dead
     * (storage/model/item.h: the thread's scratch). */
    item_scratch_reset();
    emu->sweeper = sweeper_start(emu->db, emu->cfg.ttl_interval_ms);
    if (!emu->sweeper) {
        *why = sentence("cannot start the TTL sweeper thread");
        emulator_close(emu);
        return NULL;
    }
    return emu;
}

int emulator_listen(struct emulator *emu, char **why)
{
    struct server_config server_cfg;
    const char *error = NULL;

    *why = NULL;
    if (emu->server) {
        *why = sentence("already listening on port %u", (unsigned) emulator_port(emu));
        return -1;
    }
    server_config_init(&server_cfg);
    server_cfg.max_connections = fd_limit_fit(emu->cfg.max_connections);
    server_cfg.max_body_memory = emu->cfg.max_body_memory;
    server_cfg.idle_timeout_s = emu->cfg.idle_timeout_s;
    server_cfg.request_timeout_s = emu->cfg.request_timeout_s;
    server_cfg.host = emu->cfg.host;
    server_cfg.port = emu->cfg.port;
    server_cfg.threads = emu->cfg.threads;
    server_cfg.max_body_bytes = DDB_MAX_REQUEST_BYTES;
    server_cfg.max_request_line_bytes = DDB_MAX_REQUEST_LINE_BYTES;
    server_cfg.max_header_bytes = DDB_MAX_REQUEST_HEADER_BYTES;
    server_cfg.server_name = API_SERVER_NAME;
    server_cfg.handler = api_http_handler;
    server_cfg.handler_arg = &emu->ctx;
    emu->server = server_start(&server_cfg, &error);
    if (!emu->server) {
        *why = sentence("cannot listen on %s port %u: %s", emu->cfg.host, (unsigned) emu->cfg.port,
                        error);
        return -1;
    }
    return 0;
}

uint16_t emulator_port(const struct emulator *emu)
{
    return emu->server ? server_port(emu->server) : 0;
}

void emulator_close(struct emulator *emu)
{
    if (!emu) return;
    if (emu->server) server_stop(emu->server);
    if (emu->sweeper) sweeper_stop(emu->sweeper);
    /* The run's report, for `ddbemu insight --check --db-path` (CI). */
    if (emu->cfg.db_path[0]) report_file_write(emu->db, emu->cfg.db_path);
    fault_set_free(emu->faults);
    mcp_sessions_free(emu->mcp_sessions);
    db_free(emu->db);
    credentials_free(emu->credentials);
    free(emu);
}
