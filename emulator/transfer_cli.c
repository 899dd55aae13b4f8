/*
 * transfer_cli.c - the `ddbemu export` and `ddbemu import` subcommands: their
 * options, their messages and their exit status (0 done, 1 failed, 2 a usage
 * error). The work itself is api/client/transfer_client.c's, over HTTP to a
 * running ddbemu, so the server may be on another machine.
 *
 * The access key and region choose the server's namespace as an SDK's do:
 * --access-key / --region, else AWS_ACCESS_KEY_ID and AWS_REGION (or
 * AWS_DEFAULT_REGION), else "local" and "us-east-1".
 */
#include "emulator/transfer_cli.h"

#include "api/client/transfer_client.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char transfer_cli_help[] =
    "Subcommands (they talk to a running ddbemu at URL, e.g. http://localhost:8000):\n"
    "  ddbemu export --endpoint URL --table TABLE --out DIR [--format DYNAMODB_JSON|ION]\n"
    "      scans TABLE and writes it into DIR as ExportTableToPointInTime lays out an\n"
    "      export (DIR/AWSDynamoDB/<export id>/manifest-summary.json, data/*.json.gz, ...)\n"
    "  ddbemu import --endpoint URL --in DIR --table-definition FILE [--table TABLE]\n"
    "                [--format DYNAMODB_JSON|ION|CSV]\n"
    "      creates the table FILE describes (a CreateTable request, as\n"
    "      'aws dynamodb create-table --cli-input-json' takes it; --table renames it)\n"
    "      and writes into it every item of the data files under DIR: an AWS export,\n"
    "      or files of DynamoDB JSON lines, Ion lines or CSV (a header line first),\n"
    "      plain, gzip or zstd\n"
    "  both: [--access-key KEY] [--region REGION] choose the namespace (default:\n"
    "      AWS_ACCESS_KEY_ID and AWS_REGION, else local and us-east-1);\n"
    "      [--secret-key SECRET] (default: AWS_SECRET_ACCESS_KEY, and\n"
    "      AWS_SESSION_TOKEN) signs for real, for a ddbemu started with --credentials\n";

enum {
    OPT_ENDPOINT = 1,
    OPT_TABLE,
    OPT_OUT,
    OPT_IN,
    OPT_DEFINITION,
    OPT_FORMAT,
    OPT_KEY,
    OPT_REGION,
    OPT_SECRET
};

struct cli_args {
    const char *endpoint, *table, *out, *in, *definition, *format, *access_key, *region;
    const char *secret_key;
};

static int usage(const char *command, const char *problem)
{
    fprintf(stderr, "ddbemu %s: %s\nTry 'ddbemu --help'.\n", command, problem);
    return 2;
}

static const char *env_or(const char *a, const char *b, const char *fallback)
{
    const char *v = a ? getenv(a) : NULL;

    if (!v || !v[0]) v = b ? getenv(b) : NULL;
    return v && v[0] ? v : fallback;
}

static int parse(const char *command, int argc, char **argv, struct cli_args *a)
{
    static const struct option options[] = {
        {"endpoint", required_argument, NULL, OPT_ENDPOINT},
        {"table", required_argument, NULL, OPT_TABLE},
        {"out", required_argument, NULL, OPT_OUT},
        {"in", required_argument, NULL, OPT_IN},
        {"table-definition", required_argument, NULL, OPT_DEFINITION},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"access-key", required_argument, NULL, OPT_KEY},
        {"region", required_argument, NULL, OPT_REGION},
        {"secret-key", required_argument, NULL, OPT_SECRET},
        {NULL, 0, NULL, 0},
    };
    int c;

    memset(a, 0, sizeof *a);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case OPT_ENDPOINT: a->endpoint = optarg; break;
        case OPT_TABLE: a->table = optarg; break;
        case OPT_OUT: a->out = optarg; break;
        case OPT_IN: a->in = optarg; break;
        case OPT_DEFINITION: a->definition = optarg; break;
        case OPT_FORMAT: a->format = optarg; break;
        case OPT_KEY: a->access_key = optarg; break;
        case OPT_REGION: a->region = optarg; break;
        case OPT_SECRET: a->secret_key = optarg; break;
        default: {
            char problem[300];
            snprintf(problem, sizeof problem, "unknown option or missing value: '%s'",
                     argv[optind - 1]);
            return usage(command, problem);
        }
        }
    }
    if (optind < argc) {
        char problem[300];
        snprintf(problem, sizeof problem, "unexpected argument '%s'", argv[optind]);
        return usage(command, problem);
    }
    if (!a->endpoint) return usage(command, "--endpoint URL is required");
    return 0;
}

static int make_target(const char *command, const struct cli_args *a, struct http_target *t)
{
    const char *key = a->access_key ? a->access_key : env_or("AWS_ACCESS_KEY_ID", NULL, "local");
    const char *region =
        a->region ? a->region : env_or("AWS_REGION", "AWS_DEFAULT_REGION", "us-east-1");

    memset(t, 0, sizeof *t);
    if (http_parse_url(a->endpoint, t) != 0)
        return usage(command, "--endpoint must be http://HOST[:PORT]");
    if (strlen(key) >= sizeof t->access_key || strlen(region) >= sizeof t->region)
        return usage(command, "the access key or the region is too long");
    snprintf(t->access_key, sizeof t->access_key, "%s", key);
    snprintf(t->region, sizeof t->region, "%s", region);
    if (a->secret_key) {
        const char *token = env_or("AWS_SESSION_TOKEN", NULL, "");
        if (!a->secret_key[0] || strlen(a->secret_key) >= sizeof t->secret_key ||
            strlen(token) >= sizeof t->session_token)
            return usage(command, "the secret key or the session token is empty or too long");
        snprintf(t->secret_key, sizeof t->secret_key, "%s", a->secret_key);
        snprintf(t->session_token, sizeof t->session_token, "%s", token);
    } else if (http_target_sign_from_env(t) != 0) {
        return usage(command, "AWS_SECRET_ACCESS_KEY or AWS_SESSION_TOKEN is too long");
    }
    return 0;
}

static int run_export(int argc, char **argv)
{
    struct cli_args a;
    struct http_target t;
    struct transfer_report report;
    char *why = NULL;
    int rc = parse("export", argc, argv, &a);

    if (rc != 0) return rc;
    if (!a.table || !a.out) return usage("export", "--table TABLE and --out DIR are required");
    if (a.in || a.definition) return usage("export", "--in and --table-definition are for import");
    if (a.format && strcmp(a.format, "DYNAMODB_JSON") != 0 && strcmp(a.format, "ION") != 0)
        return usage("export", "--format must be DYNAMODB_JSON or ION");
    if ((rc = make_target("export", &a, &t)) != 0) return rc;
    if (transfer_client_export(&t, a.table, a.out, a.format ? a.format : "DYNAMODB_JSON", &report,
                               &why) != 0) {
        fprintf(stderr, "ddbemu export: %s\n", why);
        free(why);
        transfer_report_clear(&report);
        return 1;
    }
    printf("ddbemu export: %zu items of %s written; manifest %s\n", report.items, a.table,
           report.path);
    transfer_report_clear(&report);
    return 0;
}

static int run_import(int argc, char **argv)
{
    struct cli_args a;
    struct http_target t;
    struct transfer_report report;
    char *why = NULL;
    int rc = parse("import", argc, argv, &a);

    if (rc != 0) return rc;
    if (!a.in || !a.definition)
        return usage("import", "--in DIR and --table-definition FILE are required");
    if (a.out) return usage("import", "--out is for export");
    if ((rc = make_target("import", &a, &t)) != 0) return rc;
    if (transfer_client_import(&t, a.in, a.definition, a.table, a.format, &report, &why) != 0) {
        fprintf(stderr, "ddbemu import: %s (%zu items written)\n", why, report.items);
        free(why);
        transfer_report_clear(&report);
        return 1;
    }
    printf("ddbemu import: %zu items written\n", report.items);
    transfer_report_clear(&report);
    return 0;
}

bool transfer_cli_is_command(const char *arg)
{
    return arg && (strcmp(arg, "export") == 0 || strcmp(arg, "import") == 0);
}

int transfer_cli_main(int argc, char **argv)
{
    return strcmp(argv[0], "export") == 0 ? run_export(argc, argv) : run_import(argc, argv);
}
