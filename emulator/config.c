/*
 * config.c - command-line options: one table, parsed and documented from it.
 *
 * Each row of options[] is one flag: its native long name, DynamoDB Local's
 * spelling of it (when DynamoDB Local has the flag), whether it takes a
 * value (and the value's name in --help), its help text and the function
 * that applies it. The parser and the --help text both read these rows.
 *
 * Spellings accepted: the native "--name" and "--name=VALUE" (GNU style),
 * and DynamoDB Local's single-dash "-localName VALUE" (as its Java launcher
 * parses them, so that docker-compose files and CI scripts written for it
 * work unchanged; "--localName" too). Names match exactly: no abbreviations,
 * so "-p" is an unknown flag rather than a guess. Anything else is an error
 * (exit status 2, a line on stderr).
 */
#include "emulator/config.h"

#include "api/http/server.h"
#include "emulator/dynamodb_local.h"
#include "emulator/transfer_cli.h"
#include "emulator/version.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int option_apply_fn(struct config *cfg, const char *value);

/* Where the errors of the parse under way go (stderr, or the library's
 * buffer): set by config_parse_to for the length of one parse, under
 * parse_lock, so that emulators opened on several threads at once keep
 * their messages apart. */
static FILE *messages;
static pthread_mutex_t parse_lock = PTHREAD_MUTEX_INITIALIZER;

struct option_row {
    const char *name;    /* native spelling: --name */
    const char *alias;   /* DynamoDB Local's spelling (-alias, also --alias), or NULL */
    const char *metavar; /* NULL: the flag takes no value */
    const char *help;
    option_apply_fn *apply;
};

static int parse_uint(const char *value, unsigned long max, unsigned long *out)
{
    char *end;

    errno = 0;
    if (!value[0] || value[0] == '-') return -1;
    *out = strtoul(value, &end, 10);
    if (errno || *end || *out > max) return -1;
    return 0;
}

static int apply_host(struct config *cfg, const char *value)
{
    if (!value[0] || strlen(value) >= sizeof cfg->host) {
        fprintf(messages, "ddbemu: --host: not a host name or address: '%s'\n", value);
        return -1;
    }
    snprintf(cfg->host, sizeof cfg->host, "%s", value);
    return 0;
}

static int apply_port(struct config *cfg, const char *value)
{
    unsigned long n;

    if (parse_uint(value, 65535, &n) != 0) {
        fprintf(messages, "ddbemu: --port: not a port number (0-65535): '%s'\n", value);
        return -1;
    }
    cfg->port = (uint16_t) n;
    return 0;
}

static int apply_threads(struct config *cfg, const char *value)
{
    unsigned long n;

    if (parse_uint(value, 1024, &n) != 0) {
        fprintf(messages, "ddbemu: --threads: not a thread count (0-1024): '%s'\n", value);
        return -1;
    }
    cfg->threads = (unsigned) n;
    return 0;
}

static int apply_max_connections(struct config *cfg, const char *value)
{
    unsigned long n;

    if (parse_uint(value, 1000000, &n) != 0 || n == 0) {
        fprintf(messages, "ddbemu: --max-connections: not a count (1-1000000): '%s'\n", value);
        return -1;
    }
    cfg->max_connections = (unsigned) n;
    return 0;
}

/* --max-body-memory MIB: at least 32, so that one 16 MB request always fits. */
static int apply_max_body_memory(struct config *cfg, const char *value)
{
    unsigned long n;

    if (parse_uint(value, 1024 * 1024, &n) != 0 || n < 32) {
        fprintf(messages, "ddbemu: --max-body-memory: not a number of MiB (32-1048576): '%s'\n",
                value);
        return -1;
    }
    cfg->max_body_memory = (size_t) n * 1024 * 1024;
    return 0;
}

static int apply_seconds(const char *flag, unsigned *out, const char *value)
{
    unsigned long n;

    if (parse_uint(value, 86400, &n) != 0 || n == 0) {
        fprintf(messages, "ddbemu: --%s: not a number of seconds (1-86400): '%s'\n", flag, value);
        return -1;
    }
    *out = (unsigned) n;
    return 0;
}

static int apply_idle_timeout(struct config *cfg, const char *value)
{
    return apply_seconds("idle-timeout", &cfg->idle_timeout_s, value);
}

static int apply_request_timeout(struct config *cfg, const char *value)
{
    return apply_seconds("request-timeout", &cfg->request_timeout_s, value);
}

static int apply_shared_db(struct config *cfg, const char *value)
{
    (void) value;
    cfg->shared_db = true;
    return 0;
}

static int apply_in_memory(struct config *cfg, const char *value)
{
    (void) value;
    cfg->in_memory = true;
    return 0;
}

static int apply_db_path(struct config *cfg, const char *value)
{
    if (!value[0] || strlen(value) >= sizeof cfg->db_path) {
        fprintf(messages, "ddbemu: --db-path: not a directory name: '%s'\n", value);
        return -1;
    }
    snprintf(cfg->db_path, sizeof cfg->db_path, "%s", value);
    cfg->in_memory = false;
    return 0;
}

static int apply_s3_dir(struct config *cfg, const char *value)
{
    if (!value[0] || strlen(value) >= sizeof cfg->s3_dir) {
        fprintf(messages, "ddbemu: --s3-dir: not a directory name: '%s'\n", value);
        return -1;
    }
    snprintf(cfg->s3_dir, sizeof cfg->s3_dir, "%s", value);
    return 0;
}

/* --init FILE, repeatable: the value is kept as it is (argv outlives the config). */
static int apply_init(struct config *cfg, const char *value)
{
    if (!value[0] || cfg->init_count == CONFIG_MAX_INIT) {
        fprintf(messages, "ddbemu: --init: give a file, at most %d times\n", CONFIG_MAX_INIT);
        return -1;
    }
    cfg->init_files[cfg->init_count++] = value;
    return 0;
}

/* --faults FILE: read by emulator/faults_file.c once the options are parsed. */
static int apply_faults(struct config *cfg, const char *value)
{
    if (!value[0]) {
        fprintf(stderr, "ddbemu: --faults: give a file of fault rules (JSON)\n");
        return -1;
    }
    cfg->faults_file = value;
    return 0;
}

static int apply_log_level(struct config *cfg, const char *value)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};

    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (strcmp(value, names[i]) == 0) {
            cfg->log_level = (enum log_level) i;
            return 0;
        }
    }
    fprintf(messages, "ddbemu: --log-level: expected error, warn, info or debug, not '%s'\n",
            value);
    return -1;
}

/* --ttl-interval SECONDS: a positive number of seconds, fractions allowed, at most a day. */
static int apply_ttl_interval(struct config *cfg, const char *value)
{
    char *end;
    double secs;

    errno = 0;
    secs = strtod(value, &end);
    if (errno || end == value || *end || !(secs >= 0.001 && secs <= 86400)) {
        fprintf(messages, "ddbemu: --ttl-interval: not a number of seconds (0.001-86400): '%s'\n",
                value);
        return -1;
    }
    cfg->ttl_interval_ms = (unsigned) (secs * 1000 + 0.5);
    return 0;
}

static int apply_control(struct config *cfg, const char *value)
{
    (void) value;
    cfg->control = CONTROL_ON;
    return 0;
}

static int apply_no_control(struct config *cfg, const char *value)
{
    (void) value;
    cfg->control = CONTROL_OFF;
    return 0;
}

static int apply_mcp_read_only(struct config *cfg, const char *value)
{
    (void) value;
    cfg->mcp_read_only = true;
    return 0;
}

bool config_is_loopback(const struct config *cfg)
{
    const char *h = cfg->host;

    return strncmp(h, "127.", 4) == 0 || strcmp(h, "::1") == 0 || strcmp(h, "localhost") == 0;
}

bool config_control_enabled(const struct config *cfg)
{
    if (cfg->control != CONTROL_AUTO) return cfg->control == CONTROL_ON;
    return config_is_loopback(cfg);
}

static int apply_credentials(struct config *cfg, const char *value)
{
    if (!value[0] || strlen(value) >= sizeof cfg->credentials) {
        fprintf(messages, "ddbemu: --credentials: not a file name: '%s'\n", value);
        return -1;
    }
    snprintf(cfg->credentials, sizeof cfg->credentials, "%s", value);
    return 0;
}

/* -cors ORIGINS: DynamoDB Local's "*" (every origin) or a comma list of origins. */
static int apply_cors(struct config *cfg, const char *value)
{
    size_t len = strlen(value);

    if (!len || len >= sizeof cfg->cors || value[0] == ',' || value[len - 1] == ',' ||
        strstr(value, ",,") || strpbrk(value, "\r\n")) {
        fprintf(messages,
                "ddbemu: --cors: expected * or a comma-separated list of origins "
                "(https://a.example,https://b.example), not '%s'\n",
                value);
        return -1;
    }
    snprintf(cfg->cors, sizeof cfg->cors, "%s", value);
    return 0;
}

static int apply_delay_transient_statuses(struct config *cfg, const char *value)
{
    (void) value;
    cfg->delay_transient_statuses = true;
    return 0;
}

/* --throughput-model aws|none: whether requests are throttled by AWS's rules. */
static int apply_throughput_model(struct config *cfg, const char *value)
{
    if (strcmp(value, "aws") == 0 || strcmp(value, "none") == 0) {
        cfg->aws_throughput = strcmp(value, "aws") == 0;
        return 0;
    }
    fprintf(messages, "ddbemu: --throughput-model: expected aws or none, not '%s'\n", value);
    return -1;
}

/* --consistency aws|none: AWS's eventually consistent reads, GSI lag and
 * transaction conflicts (docs/consistency.md). */
static int apply_consistency(struct config *cfg, const char *value)
{
    if (strcmp(value, "aws") == 0 || strcmp(value, "none") == 0) {
        cfg->consistency_aws = strcmp(value, "aws") == 0;
        return 0;
    }
    fprintf(stderr, "ddbemu: --consistency: expected aws or none, not '%s'\n", value);
    return -1;
}

/* A lag in milliseconds, 0 to 600000 (ten minutes). */
static int apply_lag(const char *flag, long *out, const char *value)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(value, &end, 10);
    if (errno || end == value || *end || v < 0 || v > 600000) {
        fprintf(stderr, "ddbemu: --%s: expected milliseconds from 0 to 600000, not '%s'\n", flag,
                value);
        return -1;
    }
    *out = v;
    return 0;
}

static int apply_read_lag(struct config *cfg, const char *value)
{
    return apply_lag("consistency-read-lag-ms", &cfg->consistency_read_lag_ms, value);
}

static int apply_gsi_lag(struct config *cfg, const char *value)
{
    return apply_lag("consistency-gsi-lag-ms", &cfg->consistency_gsi_lag_ms, value);
}

static int apply_transaction_ms(struct config *cfg, const char *value)
{
    return apply_lag("consistency-transaction-ms", &cfg->consistency_transaction_ms, value);
}

static int apply_consistency_seed(struct config *cfg, const char *value)
{
    char *end;

    errno = 0;
    cfg->consistency_seed = strtoull(value, &end, 10);
    if (errno || end == value || *end || value[0] == '-') {
        fprintf(stderr, "ddbemu: --consistency-seed: expected an unsigned integer, not '%s'\n",
                value);
        return -1;
    }
    cfg->consistency_seeded = true;
    return 0;
}

static int apply_optimize_db(struct config *cfg, const char *value)
{
    (void) value;
    cfg->optimize_db = true;
    return 0;
}

static int apply_as_dynamodb_local(struct config *cfg, const char *value)
{
    (void) value;
    cfg->as_dynamodb_local = true;
    return 0;
}

static int apply_health_check(struct config *cfg, const char *value)
{
    (void) value;
    cfg->health_check = true;
    return 0;
}

/* -jar FILE: the Java launcher's, which DynamoDB Local's image commands start with. */
static int apply_jar(struct config *cfg, const char *value)
{
    (void) cfg;
    (void) value;
    return 0;
}

static int apply_disable_telemetry(struct config *cfg, const char *value)
{
    (void) cfg;
    (void) value;
    return 0; /* ddbemu sends no telemetry: accepted so that DynamoDB Local's scripts run */
}

/* Handled in config_parse itself; present so that --help lists them. */
static int apply_nothing(struct config *cfg, const char *value)
{
    (void) cfg;
    (void) value;
    return 0;
}

static const struct option_row options[] = {
    {"host", NULL, "ADDR",
     "address or name to listen on (default 127.0.0.1;\n"
     "0.0.0.0 accepts connections from other machines)",
     apply_host},
    {"port", "port", "PORT", "TCP port to listen on (default 8000; 0 picks a free one)",
     apply_port},
    {"threads", NULL, "N", "HTTP worker threads (default: one per CPU)", apply_threads},
    {"max-connections", NULL, "N",
     "connections open at once (default 1000); more wait in\n"
     "the listen backlog until one closes",
     apply_max_connections},
    {"max-body-memory", NULL, "MIB",
     "request bodies held in memory at once, all connections\n"
     "together (default 256); a request past it gets 503",
     apply_max_body_memory},
    {"idle-timeout", NULL, "SECONDS", "close a connection silent this long (default 60)",
     apply_idle_timeout},
    {"request-timeout", NULL, "SECONDS",
     "close a connection whose request (line, headers, body)\n"
     "has not arrived whole this long after its first byte\n"
     "(default 60)",
     apply_request_timeout},
    {"shared-db", "sharedDb", NULL,
     "one set of tables for every access key and region\n"
     "(default: one set per access key + region, as DynamoDB Local)",
     apply_shared_db},
    {"in-memory", "inMemory", NULL, "keep everything in memory (the default; not with --db-path)",
     apply_in_memory},
    {"db-path", "dbPath", "DIR",
     "keep every table in SQLite files in DIR (created if\n"
     "missing) and load them at start; a write is on disk\n"
     "before it is acknowledged",
     apply_db_path},
    {"init", NULL, "FILE",
     "create tables at start from FILE (repeatable): a NoSQL\n"
     "Workbench model with its data, a CloudFormation/SAM\n"
     "template (JSON or YAML) or a CreateTable request JSON,\n"
     "for access key 'local' in us-east-1 (all with --shared-db)",
     apply_init},
    {"faults", NULL, "FILE",
     "fault rules in force from the start (JSON: a rule, a\n"
     "list, or {\"faults\": [...]}; docs/testing.md); change\n"
     "them at run time through /ddbemu/faults",
     apply_faults},
    {"s3-dir", NULL, "DIR",
     "S3 for ExportTableToPointInTime and ImportTable: each\n"
     "folder of DIR is a bucket (without it, every bucket\n"
     "is missing and such jobs fail with S3NoSuchBucket)",
     apply_s3_dir},
    {"cors", "cors", "ORIGINS",
     "origins allowed to call from a browser page: * (the\n"
     "default, every origin) or a comma-separated list",
     apply_cors},
    {"delay-transient-statuses", "delayTransientStatuses", NULL,
     "tables and indexes stay CREATING, UPDATING or DELETING\n"
     "and streams ENABLING for realistic times, as on AWS\n"
     "(default: every change is ACTIVE at once)",
     apply_delay_transient_statuses},
    {"throughput-model", NULL, "MODEL",
     "aws: throttle as DynamoDB does - provisioned capacity\n"
     "with 300 s of burst, 3,000 RCU / 1,000 WCU per partition\n"
     "key, on-demand initial and previous-peak limits; none\n"
     "(the default): never throttle",
     apply_throughput_model},
    {"consistency", NULL, "MODEL",
     "aws: eventually consistent reads may be stale, GSIs\n"
     "lag, transactions conflict, as on DynamoDB (see\n"
     "docs/consistency.md); none (the default): every read\n"
     "sees the latest write",
     apply_consistency},
    {"consistency-read-lag-ms", NULL, "MS",
     "--consistency aws: how far behind an eventually\n"
     "consistent read of a table or LSI may be (default 1000)",
     apply_read_lag},
    {"consistency-gsi-lag-ms", NULL, "MS",
     "--consistency aws: how far behind a GSI read may be\n"
     "(default 1000)",
     apply_gsi_lag},
    {"consistency-transaction-ms", NULL, "MS",
     "--consistency aws: how long a TransactWriteItems holds\n"
     "its items (default 100)",
     apply_transaction_ms},
    {"consistency-seed", NULL, "N",
     "--consistency aws: draw each read's lag from 0 to the\n"
     "lag with this seed (default: every read lags fully)",
     apply_consistency_seed},
    {"optimize-db-before-startup", "optimizeDbBeforeStartup", NULL,
     "accepted for DynamoDB Local's scripts; needs --db-path\n"
     "(ddbemu's files need no optimizing pass at start)",
     apply_optimize_db},
    {"disable-telemetry", "disableTelemetry", NULL,
     "accepted for DynamoDB Local's scripts (ddbemu sends no\n"
     "telemetry)",
     apply_disable_telemetry},
    {"jar", "jar", "FILE",
     "ignored, as are -Dname=value Java options, so that the\n"
     "commands of DynamoDB Local's image (-jar DynamoDBLocal.jar\n"
     "-sharedDb ...) run unchanged",
     apply_jar},
    {"as-dynamodb-local", NULL, NULL,
     "show DynamoDB Local's signs of life, for tools that wait\n"
     "for them: GET / answers 400 MissingAuthenticationToken\n"
     "(not 200 healthy), and its 'Initializing DynamoDB Local\n"
     "...' lines go to stdout once listening (the image's\n"
     "entrypoint; implied when run as 'java', with --host\n"
     "0.0.0.0, see docs/testcontainers.md)",
     apply_as_dynamodb_local},
    {"health-check", NULL, NULL,
     "do not serve: ask the ddbemu at --host/--port whether it\n"
     "is healthy (exit 0) or not (exit 1); for HEALTHCHECK",
     apply_health_check},
    {"log-level", NULL, "LEVEL", "error, warn, info (default) or debug", apply_log_level},
    {"ttl-interval", NULL, "SECONDS",
     "how often expired TTL items are deleted (default 1;\n"
     "fractions allowed)",
     apply_ttl_interval},
    {"credentials", NULL, "FILE",
     "verify every request's SigV4 signature as DynamoDB does,\n"
     "against the keys in FILE: lines of ACCESS_KEY_ID\n"
     "SECRET_ACCESS_KEY [SESSION_TOKEN], # comments (default:\n"
     "any key; the environment variable DDBEMU_CREDENTIALS\n"
     "may hold the file's text instead)",
     apply_credentials},
    {"control", NULL, NULL,
     "serve the emulator control interface (/ddbemu/: clock,\n"
     "TTL sweep, reset) even when not listening on loopback",
     apply_control},
    {"no-control", NULL, NULL,
     "do not serve the control interface (by default it is\n"
     "served when listening on a loopback address)",
     apply_no_control},
    {"mcp-read-only", NULL, NULL,
     "the MCP endpoint (/ddbemu/mcp) refuses every tool that\n"
     "changes data, tables, snapshots or the clock",
     apply_mcp_read_only},
    {"help", "help", NULL, "print this help and exit", apply_nothing},
    {"version", "version", NULL, "print the version and exit", apply_nothing},
};

#define OPTION_COUNT (sizeof options / sizeof *options)

static void print_help(FILE *out)
{
    fprintf(out, "Usage: ddbemu [OPTION]...\n"
                 "A local, in-memory emulator of Amazon DynamoDB. Point an SDK or the AWS CLI at\n"
                 "http://HOST:PORT with any credentials (unless --credentials names them) and\n"
                 "any region.\n\nOptions:\n");
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", options[i].name, options[i].metavar ? " " : "",
                 options[i].metavar ? options[i].metavar : "");
        const char *h = options[i].help;
        /* Help texts break their own lines with '\n'; continuation lines are indented. */
        while (h) {
            const char *nl = strchr(h, '\n');
            int len = nl ? (int) (nl - h) : (int) strlen(h);
            fprintf(out, "  %-30s %.*s\n", h == options[i].help ? left : "", len, h);
            h = nl ? nl + 1 : NULL;
        }
        if (options[i].alias)
            fprintf(out, "  %-30s (DynamoDB Local: -%s%s%s)\n", "", options[i].alias,
                    options[i].metavar ? " " : "", options[i].metavar ? options[i].metavar : "");
    }
    fprintf(out, "\nDynamoDB Local's single-dash spellings are accepted as shown, so that\n"
                 "scripts written for it run unchanged.\n");
    fprintf(out, "\n%s", transfer_cli_help);
    fprintf(out, "\nMore subcommands (they talk to a running ddbemu):\n"
                 "  ddbemu insight [--endpoint URL] ...  the access-pattern report "
                 "(ddbemu insight --help)\n");
}

/* The row whose native name (double dash only) or DynamoDB Local spelling
 * (either) is exactly the len bytes at name; NULL when none is. */
static const struct option_row *find_option(const char *name, size_t len, bool double_dash)
{
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const struct option_row *o = &options[i];
        if (double_dash && strlen(o->name) == len && memcmp(o->name, name, len) == 0) return o;
        if (o->alias && strlen(o->alias) == len && memcmp(o->alias, name, len) == 0) return o;
    }
    return NULL;
}

static enum config_result parse(struct config *cfg, int argc, char **argv);

enum config_result config_parse(struct config *cfg, int argc, char **argv)
{
    return config_parse_to(cfg, argc, argv, stderr);
}

enum config_result config_parse_to(struct config *cfg, int argc, char **argv, FILE *errors)
{
    enum config_result result;

    pthread_mutex_lock(&parse_lock);
    messages = errors;
    result = parse(cfg, argc, argv);
    messages = NULL;
    pthread_mutex_unlock(&parse_lock);
    return result;
}

static enum config_result parse(struct config *cfg, int argc, char **argv)
{
    bool in_memory_given = false;

    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->host, sizeof cfg->host, "127.0.0.1");
    cfg->port = 8000;
    cfg->in_memory = true;
    cfg->log_level = LOG_LEVEL_INFO;
    cfg->ttl_interval_ms = 1000;
    cfg->consistency_read_lag_ms = -1;
    cfg->consistency_gsi_lag_ms = -1;
    cfg->consistency_transaction_ms = -1;
    cfg->max_connections = SERVER_DEFAULT_MAX_CONNECTIONS;
    cfg->max_body_memory = SERVER_DEFAULT_MAX_BODY_MEMORY;
    cfg->idle_timeout_s = SERVER_DEFAULT_IDLE_TIMEOUT_S;
    cfg->request_timeout_s = SERVER_DEFAULT_REQUEST_TIMEOUT_S;
    cfg->control = CONTROL_AUTO;
    snprintf(cfg->cors, sizeof cfg->cors, "*");
    /* DynamoDB Local's launcher (java -jar DynamoDBLocal.jar ...): its
     * defaults, every interface among them (dynamodb_local.h). */
    if (argc > 0 && dynamodb_local_launcher(argv[0])) {
        snprintf(cfg->host, sizeof cfg->host, "0.0.0.0");
        cfg->as_dynamodb_local = true;
    }

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *name, *value = NULL, *eq;
        const struct option_row *o;
        bool double_dash = strncmp(arg, "--", 2) == 0;
        size_t len;

        if (arg[0] != '-' || !arg[1] || strcmp(arg, "--") == 0) {
            fprintf(messages, "ddbemu: unexpected argument '%s'\nTry 'ddbemu --help'.\n", arg);
            return CONFIG_ERROR;
        }
        /* A Java system property (-Djava.library.path=./DynamoDBLocal_lib in
         * DynamoDB Local's image commands): meaningless here, ignored. */
        if (!double_dash && arg[1] == 'D' && arg[2]) continue;
        name = arg + (double_dash ? 2 : 1);
        eq = double_dash ? strchr(name, '=') : NULL;
        len = eq ? (size_t) (eq - name) : strlen(name);
        o = find_option(name, len, double_dash);
        if (!o) {
            fprintf(messages, "ddbemu: unknown option '%.*s'\nTry 'ddbemu --help'.\n",
                    (int) (len + (size_t) (name - arg)), arg);
            return CONFIG_ERROR;
        }
        if (o->metavar) {
            if (eq) {
                value = eq + 1;
            } else if (i + 1 < argc) {
                value = argv[++i];
            } else {
                fprintf(messages, "ddbemu: option '%s' needs a value (%s)\nTry 'ddbemu --help'.\n",
                        arg, o->metavar);
                return CONFIG_ERROR;
            }
        } else if (eq) {
            fprintf(messages, "ddbemu: option '--%s' takes no value\nTry 'ddbemu --help'.\n",
                    o->name);
            return CONFIG_ERROR;
        }
        if (strcmp(o->name, "help") == 0) {
            print_help(stdout);
            return CONFIG_EXIT;
        }
        if (strcmp(o->name, "version") == 0) {
            printf("ddbemu %s (commit %s)\n", emulator_version, emulator_commit);
            return CONFIG_EXIT;
        }
        if (o->apply == apply_in_memory) in_memory_given = true;
        if (o->apply(cfg, value) != 0) return CONFIG_ERROR;
    }
    /* DynamoDB Local: "-inMemory ... You can't specify both -dbPath and -inMemory at once." */
    if (in_memory_given && cfg->db_path[0]) {
        fprintf(messages, "ddbemu: --in-memory and --db-path cannot be used together\n"
                          "Try 'ddbemu --help'.\n");
        return CONFIG_ERROR;
    }
    /* DynamoDB Local: "You also must specify -dbPath when you use this parameter." */
    if (cfg->optimize_db && !cfg->db_path[0]) {
        fprintf(messages, "ddbemu: --optimize-db-before-startup needs --db-path\n"
                          "Try 'ddbemu --help'.\n");
        return CONFIG_ERROR;
    }
    return CONFIG_RUN;
}
