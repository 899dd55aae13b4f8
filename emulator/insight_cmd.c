/*
 * insight_cmd.c - `ddbemu insight [--endpoint URL] [--table NAME]
 * [--access-key KEY --region REGION] [--json] [--reset]`, and the design
 * gate `ddbemu insight --check [RULES] [--db-path DIR] [--output FILE]`
 * (insight_check.h judges, insight_rules.h reads RULES).
 *
 * A client of the control interface, nothing more: the report is computed by
 * the server (api/control/insight.c renders it, storage/insight/ counts and
 * judges); this file chooses what to ask for and lays the JSON out as text,
 * one table after another, findings last so that they are what stays on the
 * screen.
 */
#include "emulator/insight_cmd.h"

#include "api/client/http_client.h"
#include "emulator/insight_check.h"
#include "emulator/insight_rules.h"
#include "emulator/report_file.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ENDPOINT "http://127.0.0.1:8000"

static void usage(FILE *f)
{
    fprintf(
        f, "usage: ddbemu insight [--endpoint URL] [--table NAME] [--access-key KEY --region "
           "REGION] [--json] [--reset]\n"
           "       ddbemu insight --check [RULES] [--endpoint URL | --db-path DIR] [--table NAME]\n"
           "                      [--access-key KEY --region REGION] [--output FILE]\n"
           "\n"
           "Prints the access-pattern report of a running ddbemu: requests, items read and\n"
           "returned, capacity units as AWS charges them, partition heat against the\n"
           "3,000 RCU / 1,000 WCU per-partition limits, item sizes, monthly cost and findings.\n"
           "\n"
           "  --endpoint URL      the ddbemu to ask (default " DEFAULT_ENDPOINT ")\n"
           "  --table NAME        one table only\n"
           "  --access-key KEY    with --region: only the tables that credential sees\n"
           "  --region REGION\n"
           "  --json              print the JSON as served (GET /ddbemu/insight)\n"
           "  --reset             set the counters back to zero instead\n"
           "\n"
           "  --check [RULES]     the design gate: judge the report against rules (defaults,\n"
           "                      or the RULES file, JSON or YAML; docs/testing.md), print a\n"
           "                      Markdown report and exit 1 when a rule is broken\n"
           "  --db-path DIR       judge the report a server with --db-path DIR left there when\n"
           "                      it stopped, instead of asking a running one\n"
           "  --output FILE       write the Markdown report to FILE instead of stdout\n"
           "\n"
           "With AWS_SECRET_ACCESS_KEY (and AWS_ACCESS_KEY_ID) set, requests are signed for\n"
           "real, as a ddbemu started with --credentials off loopback asks.\n");
}

static double num(const json_t *obj, const char *key)
{
    return json_number_value(json_object_get(obj, key));
}

static long long integer(const json_t *obj, const char *key)
{
    return (long long) json_integer_value(json_object_get(obj, key));
}

/* A key value ({"S": "x"}) as text. */
static void print_key(const json_t *key)
{
    const char *type;
    json_t *v;

    if (json_object_size(key) != 1) {
        char *text = json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS);
        printf("%s", text ? text : "?");
        free(text);
        return;
    }
    json_object_foreach((json_t *) key, type, v)
    {
        if (json_is_string(v))
            printf("%s", json_string_value(v));
        else {
            char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            printf("%s", text ? text : "?");
            free(text);
        }
    }
}

static void print_requests(const json_t *t)
{
    const char *op;
    json_t *n;
    bool any = false;

    printf("  Requests       ");
    json_object_foreach(json_object_get(t, "requests"), op, n)
    {
        if (json_integer_value(n) == 0) continue;
        printf("%s%s %lld", any ? ", " : "", op, (long long) json_integer_value(n));
        any = true;
    }
    printf("%s\n", any ? "" : "none");
}

static const char *source_name(const json_t *s)
{
    const char *index = json_string_value(json_object_get(s, "index"));
    return index ? index : "table";
}

static void print_reads(const json_t *s)
{
    static const char *const kinds[] = {"query", "scan"};
    for (size_t k = 0; k < 2; k++) {
        const json_t *r = json_object_get(s, kinds[k]);
        if (integer(r, "requests") == 0) continue;
        printf("    %-10s %-5s %lld pages, %lld items read, %lld returned, %.1f RCU",
               source_name(s), k ? "Scan" : "Query", integer(r, "requests"),
               integer(r, "items_read"), integer(r, "items_returned"), num(r, "rcu"));
        if (json_is_number(json_object_get(r, "read_amplification")))
            printf(" (%.1f read per item returned)", num(r, "read_amplification"));
        printf("\n");
    }
    for (size_t i = 0; i < json_array_size(json_object_get(s, "filters")); i++) {
        const json_t *f = json_array_get(json_object_get(s, "filters"), i);
        printf("    %-10s %-5s filter on %s: %lld read, %lld returned\n", source_name(s),
               json_string_value(json_object_get(f, "operation")),
               json_string_value(json_object_get(f, "attributes")), integer(f, "items_read"),
               integer(f, "items_returned"));
    }
}

static void print_heat(const json_t *s, const json_t *limits)
{
    const json_t *parts = json_object_get(s, "partitions");
    static const char *const lists[] = {"top_writes", "top_reads"};
    static const char *const peaks[] = {"peak_wcu_per_s", "peak_rcu_per_s"};
    static const char *const limit_keys[] = {"partition_wcu_per_s", "partition_rcu_per_s"};
    static const char *const units[] = {"WCU", "RCU"};

    for (size_t l = 0; l < 2; l++) {
        const json_t *top = json_object_get(parts, lists[l]);
        for (size_t i = 0; i < json_array_size(top) && i < 3; i++) {
            const json_t *k = json_array_get(top, i);
            double peak = num(k, peaks[l]), limit = num(limits, limit_keys[l]);
            printf("    %-10s ", source_name(s));
            print_key(json_object_get(k, "key"));
            printf("  %.1f %s/s (%.0f%% of %.0f)%s\n", peak, units[l], 100.0 * peak / limit, limit,
                   peak > limit ? "  OVER THE LIMIT" : "");
        }
    }
}

static void print_table(const json_t *t, const json_t *limits)
{
    const json_t *items = json_object_get(t, "items"), *cap = json_object_get(t, "capacity");
    const json_t *base = json_object_get(t, "base"), *indexes = json_object_get(t, "indexes");
    const json_t *scans = json_object_get(t, "scans"), *cost = json_object_get(t, "cost");
    const json_t *sizes = json_object_get(t, "sizes"), *findings = json_object_get(t, "findings");
    const json_t *tx = json_object_get(t, "transactions"), *b = json_object_get(t, "batches");
    const char *kind;
    json_t *v;

    printf("\nTable %s (%s, %s), observed %.1f s\n", json_string_value(json_object_get(t, "table")),
           json_string_value(json_object_get(t, "namespace")),
           json_string_value(json_object_get(t, "billing_mode")), num(t, "observed_seconds"));
    print_requests(t);
    printf("  Items          read %lld, returned %lld, written %lld\n", integer(items, "read"),
           integer(items, "returned"), integer(items, "written"));
    printf("  Capacity       %.1f RCU, %.1f WCU (table %.1f RCU, %.1f WCU", num(cap, "rcu"),
           num(cap, "wcu"), num(base, "rcu"), num(base, "wcu"));
    for (size_t i = 0; i < json_array_size(indexes); i++) {
        const json_t *x = json_array_get(indexes, i);
        printf("; %s %.1f RCU, %.1f WCU", source_name(x), num(x, "rcu"), num(x, "wcu"));
    }
    printf(")\n");
    if (integer(scans, "requests"))
        printf("  Scans          %lld pages read %lld items, %.1f RCU (%.0f%% of read units)\n",
               integer(scans, "requests"), integer(scans, "items_read"), num(scans, "rcu"),
               100.0 * num(scans, "share_of_rcu"));
    json_object_foreach((json_t *) b, kind, v)
    {
        if (integer(v, "count"))
            printf("  %-14s %lld requests, %lld items (at most %lld)\n", kind, integer(v, "count"),
                   integer(v, "items"), integer(v, "max"));
    }
    json_object_foreach((json_t *) tx, kind, v)
    {
        if (json_is_object(v) && integer(v, "count"))
            printf("  %-14s %lld requests, %lld actions (at most %lld)\n", kind,
                   integer(v, "count"), integer(v, "items"), integer(v, "max"));
    }
    if (integer(tx, "canceled"))
        printf("  Canceled       %lld transactions\n", integer(tx, "canceled"));
    if (integer(t, "conditional_check_failed"))
        printf("  Conditions     %lld ConditionalCheckFailed\n",
               integer(t, "conditional_check_failed"));
    for (size_t i = 0; i < json_array_size(json_object_get(t, "vector_indexes")); i++) {
        const json_t *x = json_array_get(json_object_get(t, "vector_indexes"), i);
        printf("  Vector index   %s: %lld searches, %.0f search bytes; %lld writes, %.0f write "
               "bytes; %lld entries\n",
               json_string_value(json_object_get(x, "index")), integer(x, "searches"),
               num(x, "search_request_bytes"), integer(x, "writes"), num(x, "write_request_bytes"),
               integer(x, "item_count"));
    }
    printf("  Reads\n");
    print_reads(base);
    for (size_t i = 0; i < json_array_size(indexes); i++)
        print_reads(json_array_get(indexes, i));
    printf("  Hottest partitions (busiest second)\n");
    print_heat(base, limits);
    for (size_t i = 0; i < json_array_size(indexes); i++)
        print_heat(json_array_get(indexes, i), limits);
    if (json_array_size(json_object_get(sizes, "largest_items"))) {
        const json_t *l = json_array_get(json_object_get(sizes, "largest_items"), 0);
        char *key = json_dumps(json_object_get(l, "key"), JSON_COMPACT | JSON_SORT_KEYS);
        printf("  Largest item   %s: %lld bytes (%.1f%% of the item limit)\n", key ? key : "?",
               integer(l, "bytes"), 100.0 * num(l, "share_of_limit"));
        free(key);
    }
    if (json_array_size(json_object_get(sizes, "item_collections"))) {
        const json_t *c = json_array_get(json_object_get(sizes, "item_collections"), 0);
        printf("  Largest collection ");
        print_key(json_object_get(c, "key"));
        printf(": %lld bytes (%.4f%% of the limit)\n", integer(c, "bytes"),
               100.0 * num(c, "share_of_limit"));
    }
    printf("  Monthly cost   on-demand $%.2f; provisioned at the average %lld RCU / %lld WCU "
           "$%.2f; at the peak %lld RCU / %lld WCU $%.2f",
           num(cost, "on_demand_monthly_usd"),
           integer(json_object_get(cost, "provisioned_at_average"), "rcu"),
           integer(json_object_get(cost, "provisioned_at_average"), "wcu"),
           num(json_object_get(cost, "provisioned_at_average"), "monthly_usd"),
           integer(json_object_get(cost, "provisioned_at_peak"), "rcu"),
           integer(json_object_get(cost, "provisioned_at_peak"), "wcu"),
           num(json_object_get(cost, "provisioned_at_peak"), "monthly_usd"));
    if (json_is_number(json_object_get(cost, "configured_monthly_usd")))
        printf("; as configured $%.2f", num(cost, "configured_monthly_usd"));
    if (json_array_size(json_object_get(t, "vector_indexes")))
        printf("; vector search $%.4f, vector writes $%.4f", num(cost, "vector_search_monthly_usd"),
               num(cost, "vector_write_monthly_usd"));
    printf("\n");
    printf("  Findings%s\n", json_array_size(findings) ? "" : "       none");
    for (size_t i = 0; i < json_array_size(findings); i++) {
        const json_t *f = json_array_get(findings, i);
        bool warning = strcmp(json_string_value(json_object_get(f, "severity")), "warning") == 0;
        printf("  %s %s\n", warning ? "!" : "-", json_string_value(json_object_get(f, "message")));
    }
}

static void print_report(const json_t *report)
{
    const json_t *p = json_object_get(report, "prices"),
                 *tables = json_object_get(report, "tables");

    printf("ddbemu access-pattern report: %zu table%s\n", json_array_size(tables),
           json_array_size(tables) == 1 ? "" : "s");
    printf("Prices: %s as checked %s: on-demand $%g per million read and $%g per million write "
           "request units; provisioned $%g per RCU-hour and $%g per WCU-hour; vector indexes $%g "
           "per GB searched and $%g per GB written; %g hours a month\n",
           json_string_value(json_object_get(p, "region")),
           json_string_value(json_object_get(p, "checked")), num(p, "on_demand_per_million_rru"),
           num(p, "on_demand_per_million_wru"), num(p, "provisioned_per_rcu_hour"),
           num(p, "provisioned_per_wcu_hour"), num(p, "vector_search_per_gb"),
           num(p, "vector_write_per_gb"), num(p, "hours_per_month"));
    for (size_t i = 0; i < json_array_size(tables); i++)
        print_table(json_array_get(tables, i), json_object_get(report, "limits"));
}

/* The design gate over a report: 0 passed, 1 a rule is broken, 2 the rules
 * or the output cannot be used. */
static int gate(const json_t *report, const char *rules_path, const char *output)
{
    struct gate_config config;
    FILE *out = stdout;
    size_t findings;

    gate_config_defaults(&config);
    if (rules_path && gate_config_load(&config, rules_path) != 0) {
        gate_config_clear(&config);
        return 2;
    }
    if (output && !(out = fopen(output, "w"))) {
        perror(output);
        gate_config_clear(&config);
        return 2;
    }
    findings = insight_check(report, &config, out);
    if (out != stdout && fclose(out) != 0) {
        perror(output);
        gate_config_clear(&config);
        return 2;
    }
    if (output)
        fprintf(stderr, "ddbemu insight: design gate %s: %zu finding%s (%s)\n",
                findings ? "FAILED" : "passed", findings, findings == 1 ? "" : "s", output);
    gate_config_clear(&config);
    return findings ? 1 : 0;
}

/* The gate over the report a --db-path server left in dir when it stopped,
 * narrowed to a table and a namespace as the server would narrow it. */
static int gate_from_file(const char *dir, const char *table, const char *namespace_id,
                          const char *rules_path, const char *output)
{
    char path[4200];
    json_error_t jerr;
    json_t *report;
    int rc;

    snprintf(path, sizeof path, "%s/%s", dir, REPORT_FILE_NAME);
    report = json_load_file(path, 0, &jerr);
    if (!json_is_object(report)) {
        fprintf(stderr,
                "ddbemu insight: %s: no report (%s): a server started with --db-path %s writes "
                "it when it stops\n",
                path, jerr.text, dir);
        json_decref(report);
        return 2;
    }
    insight_check_narrow(report, table, namespace_id);
    rc = gate(report, rules_path, output);
    json_decref(report);
    return rc;
}

int insight_command(int argc, char **argv)
{
    static const struct option options[] = {
        {"endpoint", required_argument, NULL, 'e'},
        {"table", required_argument, NULL, 't'},
        {"access-key", required_argument, NULL, 'k'},
        {"region", required_argument, NULL, 'r'},
        {"json", no_argument, NULL, 'j'},
        {"reset", no_argument, NULL, 'R'},
        {"check", no_argument, NULL, 'c'},
        {"db-path", required_argument, NULL, 'd'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *endpoint = DEFAULT_ENDPOINT, *table = NULL, *access_key = NULL, *region = NULL;
    const char *db_path = NULL, *output = NULL;
    bool raw = false, reset = false, check = false;
    struct http_target target = {0};
    struct text_buf answer = {0};
    int status = 0;
    char path[1024];
    json_t *report;
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'e': endpoint = optarg; break;
        case 't': table = optarg; break;
        case 'k': access_key = optarg; break;
        case 'r': region = optarg; break;
        case 'j': raw = true; break;
        case 'R': reset = true; break;
        case 'c': check = true; break;
        case 'd': db_path = optarg; break;
        case 'o': output = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc - (check ? 1 : 0) || (access_key != NULL) != (region != NULL) ||
        ((db_path || output) && !check) || (check && (reset || raw))) {
        usage(stderr);
        return 2;
    }
    if (check && db_path) {
        char ns[512];
        snprintf(ns, sizeof ns, "%s/%s", access_key ? access_key : "", region ? region : "");
        return gate_from_file(db_path, table, access_key ? ns : NULL,
                              optind < argc ? argv[optind] : NULL, output);
    }
    if (http_parse_url(endpoint, &target) != 0) {
        fprintf(stderr, "ddbemu insight: %s: not an http://HOST[:PORT] endpoint\n", endpoint);
        return 2;
    }
    /* Signed with AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY when set: a
     * control interface off loopback with --credentials asks for it. */
    if (http_target_sign_from_env(&target) != 0) {
        fprintf(stderr, "ddbemu insight: AWS_SECRET_ACCESS_KEY or a related variable is too "
                        "long\n");
        return 2;
    }
    if (reset) {
        json_t *body = json_object();
        char *text;
        if (table) json_object_set_new(body, "table", json_string(table));
        if (access_key) json_object_set_new(body, "access_key", json_string(access_key));
        if (region) json_object_set_new(body, "region", json_string(region));
        text = json_dumps(body, JSON_COMPACT);
        json_decref(body);
        c = http_fetch(&target, "POST", "/ddbemu/insight/reset", text, &status, &answer);
        free(text);
    } else {
        int n = snprintf(path, sizeof path, "/ddbemu/insight%s%s", table ? "/" : "",
                         table ? table : "");
        if (access_key && n > 0 && (size_t) n < sizeof path)
            snprintf(path + n, sizeof path - (size_t) n, "?access_key=%s&region=%s", access_key,
                     region);
        c = http_fetch(&target, "GET", path, NULL, &status, &answer);
    }
    if (c != 0) {
        fprintf(stderr, "ddbemu insight: %s: cannot connect: %s\n", endpoint, strerror(errno));
        free(answer.data);
        return check ? 2 : 1;
    }
    if (check && status != 200) {
        /* 1 is the gate's "a rule is broken": anything else that fails is 2. */
        fprintf(stderr, "ddbemu insight: %s\n", answer.data);
        free(answer.data);
        return 2;
    }
    if (status != 200 || raw || reset) {
        fprintf(status == 200 ? stdout : stderr, "%s\n", answer.data);
        free(answer.data);
        return status == 200 ? 0 : 1;
    }
    report = json_loadb(answer.data, answer.len, 0, NULL);
    free(answer.data);
    if (!json_is_object(report)) {
        fprintf(stderr, "ddbemu insight: %s: the answer is not a report\n", endpoint);
        json_decref(report);
        return check ? 2 : 1;
    }
    if (check) {
        c = gate(report, optind < argc ? argv[optind] : NULL, output);
        json_decref(report);
        return c;
    }
    print_report(report);
    json_decref(report);
    return 0;
}
