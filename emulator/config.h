/*
 * config.h - the process's settings, from the command line.
 *
 * One option table in config.c drives both getopt_long and --help, so a flag
 * cannot exist without being documented. Defaults are safe: loopback only,
 * port 8000, in memory. DynamoDB Local's single-dash spellings (-port,
 * -sharedDb, -inMemory, -dbPath, -cors, ...) are accepted beside the native
 * --long names: a row carries DynamoDB Local's name for its flag.
 */
#ifndef DDB_EMULATOR_CONFIG_H
#define DDB_EMULATOR_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

/* Whether the emulator-only control interface (/ddbemu/...) is served: by
 * default only when listening on a loopback address. */
enum control_mode { CONTROL_AUTO, CONTROL_ON, CONTROL_OFF };

#define CONFIG_MAX_INIT 32

struct config {
    char host[256];     /* address or name to listen on */
    uint16_t port;      /* 0: any free port */
    unsigned threads;   /* HTTP worker threads; 0: one per CPU */
    bool shared_db;     /* one namespace for every credential and region */
    bool in_memory;     /* false with --db-path */
    char db_path[4096]; /* --db-path: the data directory; "" in memory */
    char s3_dir[4096];  /* --s3-dir: buckets are its folders; "" when not given */
    enum log_level log_level;
    unsigned ttl_interval_ms;        /* how often the TTL sweeper runs (--ttl-interval) */
    enum control_mode control;       /* the /ddbemu/ control interface (--control, --no-control) */
    char cors[4096];                 /* --cors: "*" (default) or a comma list of allowed origins */
    char credentials[4096];          /* --credentials FILE: verify signatures; "" when not given */
    bool delay_transient_statuses;   /* --delay-transient-statuses: AWS's CREATING etc. last */
    bool aws_throughput;             /* --throughput-model aws: throttle as AWS does */
    bool consistency_aws;            /* --consistency aws (docs/consistency.md) */
    long consistency_read_lag_ms;    /* --consistency-read-lag-ms; -1: the default */
    long consistency_gsi_lag_ms;     /* --consistency-gsi-lag-ms; -1: the default */
    long consistency_transaction_ms; /* --consistency-transaction-ms; -1: the default */
    bool consistency_seeded;         /* --consistency-seed given */
    unsigned long long consistency_seed;
    bool optimize_db;           /* --optimize-db-before-startup (accepted; needs --db-path) */
    bool health_check;          /* --health-check: ask a running server, do not serve */
    bool as_dynamodb_local;     /* --as-dynamodb-local: DynamoDB Local's GET / and banner */
    bool mcp_read_only;         /* --mcp-read-only: MCP tools that change anything refused */
    unsigned max_connections;   /* --max-connections: open at once */
    size_t max_body_memory;     /* --max-body-memory: request bodies in memory, bytes */
    unsigned idle_timeout_s;    /* --idle-timeout: a silent connection is closed */
    unsigned request_timeout_s; /* --request-timeout: a body's time to arrive */
    const char *init_files[CONFIG_MAX_INIT]; /* --init, in order; point into argv */
    size_t init_count;
    const char *faults_file; /* --faults FILE: fault rules in force from the start; NULL: none */
};

/* What config_parse decided. */
enum config_result {
    CONFIG_RUN,   /* start the server */
    CONFIG_EXIT,  /* --help or --version was printed: exit 0 */
    CONFIG_ERROR, /* a message was printed to stderr: exit 2 */
};

/* Fills cfg with the defaults, then applies argv. Prints --help/--version to
 * stdout and errors (with a hint to --help) to stderr. Run under the name
 * "java" (dynamodb_local.h: the image's link for DynamoDB Local's command
 * lines), the defaults are DynamoDB Local's: every interface, and
 * --as-dynamodb-local. */
enum config_result config_parse(struct config *cfg, int argc, char **argv);
/* config_parse, with its errors written to errors instead of stderr (the
 * library keeps them as the message it returns). Thread-safe. */
enum config_result config_parse_to(struct config *cfg, int argc, char **argv, FILE *errors);
/* Whether the control interface is on: --control, or by default when cfg->host
 * is a loopback address (127.0.0.0/8, ::1, localhost); never with --no-control. */
bool config_control_enabled(const struct config *cfg);
/* Whether cfg->host is a loopback address (127.0.0.0/8, ::1, localhost). */
bool config_is_loopback(const struct config *cfg);

#endif
