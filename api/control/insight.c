/*
 * insight.c - the access-pattern report over the control interface:
 *
 *   GET  /ddbemu/insight                 every table (of one namespace with
 *   GET  /ddbemu/insight/<table>         ?access_key=..&region=.., as a client
 *                                        with those credentials sees them)
 *   POST /ddbemu/insight/reset           {"access_key", "region", "table"}: all optional
 *
 * The JSON shape is documented in docs/validating-a-design.md and is kept
 * stable: members are added, never renamed or removed. The counting and the
 * judging are storage's (storage/insight/); this file only chooses the
 * namespace, as control.c does for a reset, and writes the snapshot out.
 */
#include "api/control/insight.h"

#include "api/http/dispatch.h"
#include "api/http/response.h"
#include "api/wire/json_out.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/engine/db.h"
#include "storage/engine/db_report.h"
#include "storage/insight/prices.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INSIGHT_PREFIX "insight"

static void reply_json(struct http_response *resp, int status, struct json_out *w)
{
    size_t len;
    char *text = json_out_take(w, &len);
    response_set_body(resp, status, RESPONSE_CONTENT_TYPE_JSON, text, len); /* takes text */
}

static void reply_error(struct http_response *resp, int status, const char *message)
{
    struct json_out w;
    json_out_init(&w);
    json_out_object_begin(&w);
    json_out_key(&w, "error");
    json_out_string(&w, message);
    json_out_object_end(&w);
    reply_json(resp, status, &w);
}

/* The namespace a client with these credentials uses (dispatch.c's rule):
 * false when none was named (every namespace). */
static bool namespace_of(const struct api_config *config, const char *access_key,
                         const char *region, char *out, size_t size)
{
    if (config && config->shared_db) {
        snprintf(out, size, "%s", API_SHARED_NAMESPACE);
        return true;
    }
    if (!access_key || !region || !access_key[0] || !region[0]) return false;
    snprintf(out, size, "%.190s/%s", access_key, region);
    return true;
}

static void key_real(struct json_out *w, const char *key, double v)
{
    json_out_key(w, key);
    json_out_real(w, v);
}

static void key_int(struct json_out *w, const char *key, long long v)
{
    json_out_key(w, key);
    json_out_integer(w, v);
}

/* Dollars, to a hundredth of a cent. */
static void key_usd(struct json_out *w, const char *key, double v)
{
    key_real(w, key, round(v * 10000.0) / 10000.0);
}

/* items read per item returned; null when nothing was returned. */
static void key_ratio(struct json_out *w, const char *key, uint64_t read, uint64_t returned)
{
    json_out_key(w, key);
    if (returned)
        json_out_real(w, (double) read / (double) returned);
    else
        json_out_null(w);
}

static void write_reads(struct json_out *w, const char *key, const struct insight_reads_report *r)
{
    json_out_key(w, key);
    json_out_object_begin(w);
    key_int(w, "requests", (long long) r->requests);
    key_int(w, "items_read", (long long) r->items_read);
    key_int(w, "items_returned", (long long) r->items_returned);
    key_int(w, "bytes_read", (long long) r->bytes_read);
    key_real(w, "rcu", r->units);
    key_ratio(w, "read_amplification", r->items_read, r->items_returned);
    json_out_object_end(w);
}

static void write_keys(struct json_out *w, const char *key, const struct insight_key_report *k,
                       size_t n, bool writes)
{
    json_out_key(w, key);
    json_out_array_begin(w);
    for (size_t i = 0; i < n; i++) {
        json_out_object_begin(w);
        json_out_key(w, "key");
        wire_value_write(w, &k[i].key);
        key_real(w, writes ? "peak_wcu_per_s" : "peak_rcu_per_s", k[i].peak_per_s);
        key_int(w, "peak_at_ms", (long long) k[i].peak_ms);
        key_real(w, writes ? "wcu" : "rcu", k[i].total);
        json_out_object_end(w);
    }
    json_out_array_end(w);
}

static void write_source(struct json_out *w, const struct insight_report_table *t,
                         const struct insight_source_report *s)
{
    json_out_object_begin(w);
    if (s->name) {
        json_out_key(w, "index");
        json_out_string(w, s->name);
    }
    json_out_key(w, "type");
    json_out_string(w, !s->name ? "TABLE" : s->is_global ? "GSI" : "LSI");
    key_real(w, "rcu", s->rcu);
    key_real(w, "wcu", s->wcu);
    key_int(w, s->name ? "entries_written" : "items_written", (long long) s->writes);
    if (s->name) {
        /* Index write units per unit written to the table. */
        json_out_key(w, "write_amplification");
        if (t->sources[0].wcu > 0)
            json_out_real(w, s->wcu / t->sources[0].wcu);
        else
            json_out_null(w);
    }
    key_int(w, s->name ? "entry_count" : "item_count", (long long) s->item_count);
    key_int(w, s->name ? "projected_bytes" : "size_bytes", (long long) s->size_bytes);
    json_out_key(w, "provisioned");
    if (s->provisioned) {
        json_out_object_begin(w);
        key_int(w, "rcu", (long long) s->provisioned_rcu);
        key_int(w, "wcu", (long long) s->provisioned_wcu);
        json_out_object_end(w);
    } else {
        json_out_null(w);
    }
    write_reads(w, "query", &s->query);
    write_reads(w, "scan", &s->scan);
    json_out_key(w, "filters");
    json_out_array_begin(w);
    for (size_t i = 0; i < s->filter_count; i++) {
        const struct insight_filter_report *f = &s->filters[i];
        json_out_object_begin(w);
        json_out_key(w, "operation");
        json_out_string(w, f->is_scan ? "Scan" : "Query");
        json_out_key(w, "attributes");
        json_out_string(w, f->attrs);
        key_int(w, "requests", (long long) f->requests);
        key_int(w, "items_read", (long long) f->items_read);
        key_int(w, "items_returned", (long long) f->items_returned);
        key_ratio(w, "read_amplification", f->items_read, f->items_returned);
        json_out_object_end(w);
    }
    json_out_array_end(w);
    json_out_key(w, "peak");
    json_out_object_begin(w);
    key_real(w, "rcu_per_s", s->peak_rcu_per_s);
    key_int(w, "rcu_at_ms", (long long) s->peak_rcu_ms);
    key_real(w, "wcu_per_s", s->peak_wcu_per_s);
    key_int(w, "wcu_at_ms", (long long) s->peak_wcu_ms);
    json_out_object_end(w);
    json_out_key(w, "partitions");
    json_out_object_begin(w);
    key_int(w, "tracked", (long long) s->keys_tracked);
    key_int(w, "evicted", (long long) s->keys_evicted);
    write_keys(w, "top_reads", s->top_read, s->top_read_count, false);
    write_keys(w, "top_writes", s->top_write, s->top_write_count, true);
    json_out_object_end(w);
    json_out_object_end(w);
}

static void write_sizes(struct json_out *w, const char *key, const struct insight_sizes *s)
{
    json_out_key(w, key);
    json_out_object_begin(w);
    key_int(w, "count", (long long) s->count);
    key_int(w, "items", (long long) s->items);
    key_int(w, "max", (long long) s->max);
    json_out_object_end(w);
}

static void write_cost(struct json_out *w, const struct insight_cost *c)
{
    json_out_key(w, "cost");
    json_out_object_begin(w);
    key_real(w, "rcu_per_s", c->rcu_per_s);
    key_real(w, "wcu_per_s", c->wcu_per_s);
    key_usd(w, "on_demand_monthly_usd", c->on_demand_monthly);
    json_out_key(w, "provisioned_at_average");
    json_out_object_begin(w);
    key_int(w, "rcu", (long long) c->provisioned_avg_rcu);
    key_int(w, "wcu", (long long) c->provisioned_avg_wcu);
    key_usd(w, "monthly_usd", c->provisioned_avg_monthly);
    json_out_object_end(w);
    json_out_key(w, "provisioned_at_peak");
    json_out_object_begin(w);
    key_int(w, "rcu", (long long) c->provisioned_peak_rcu);
    key_int(w, "wcu", (long long) c->provisioned_peak_wcu);
    key_usd(w, "monthly_usd", c->provisioned_peak_monthly);
    json_out_object_end(w);
    json_out_key(w, "configured_monthly_usd");
    if (c->has_configured)
        json_out_real(w, round(c->configured_monthly * 10000.0) / 10000.0);
    else
        json_out_null(w);
    /* Unrounded: a few searches cost far less than a hundredth of a cent. */
    key_real(w, "vector_search_monthly_usd", c->vector_search_monthly);
    key_real(w, "vector_write_monthly_usd", c->vector_write_monthly);
    json_out_object_end(w);
}

/* One vector index: {"index", "searches", "search_request_bytes", "writes",
 * "write_request_bytes", "item_count", "size_bytes"}. */
static void write_vector(struct json_out *w, const struct insight_vector_report *v)
{
    json_out_object_begin(w);
    json_out_key(w, "index");
    json_out_string(w, v->name);
    key_int(w, "searches", (long long) v->searches);
    key_real(w, "search_request_bytes", v->search_bytes);
    key_int(w, "writes", (long long) v->writes);
    key_real(w, "write_request_bytes", v->write_bytes);
    key_int(w, "item_count", (long long) v->item_count);
    key_int(w, "size_bytes", (long long) v->size_bytes);
    json_out_object_end(w);
}

static void write_table(struct json_out *w, const struct insight_report_table *t)
{
    double rcu = insight_report_rcu(t), scan_rcu = 0;
    uint64_t scan_items = 0;

    for (size_t i = 0; i < t->source_count; i++) {
        scan_rcu += t->sources[i].scan.units;
        scan_items += t->sources[i].scan.items_read;
    }
    json_out_object_begin(w);
    json_out_key(w, "table");
    json_out_string(w, t->name);
    json_out_key(w, "namespace");
    json_out_string(w, t->namespace_id);
    json_out_key(w, "billing_mode");
    json_out_string(w, t->pay_per_request ? "PAY_PER_REQUEST" : "PROVISIONED");
    key_int(w, "since_ms", (long long) t->since_ms);
    key_real(w, "observed_seconds", t->cost.observed_seconds);
    json_out_key(w, "requests");
    json_out_object_begin(w);
    for (int op = 0; op < INSIGHT_OP_COUNT; op++)
        key_int(w, insight_op_name((enum insight_op) op), (long long) t->requests[op]);
    json_out_object_end(w);
    json_out_key(w, "items");
    json_out_object_begin(w);
    key_int(w, "read", (long long) t->items_read);
    key_int(w, "returned", (long long) t->items_returned);
    key_int(w, "written", (long long) t->items_written);
    json_out_object_end(w);
    json_out_key(w, "capacity");
    json_out_object_begin(w);
    key_real(w, "rcu", rcu);
    key_real(w, "wcu", insight_report_wcu(t));
    json_out_object_end(w);
    json_out_key(w, "scans");
    json_out_object_begin(w);
    key_int(w, "requests", (long long) (t->requests[INSIGHT_SCAN]));
    key_int(w, "items_read", (long long) scan_items);
    key_real(w, "rcu", scan_rcu);
    json_out_key(w, "share_of_rcu");
    if (rcu > 0)
        json_out_real(w, scan_rcu / rcu);
    else
        json_out_null(w);
    json_out_object_end(w);
    json_out_key(w, "batches");
    json_out_object_begin(w);
    write_sizes(w, "BatchGetItem", &t->batch_get);
    write_sizes(w, "BatchWriteItem", &t->batch_write);
    json_out_object_end(w);
    json_out_key(w, "transactions");
    json_out_object_begin(w);
    write_sizes(w, "TransactGetItems", &t->transact_get);
    write_sizes(w, "TransactWriteItems", &t->transact_write);
    key_int(w, "canceled", (long long) t->transactions_canceled);
    json_out_object_end(w);
    key_int(w, "conditional_check_failed", (long long) t->conditional_check_failed);
    json_out_key(w, "consistency");
    json_out_object_begin(w);
    key_int(w, "stale_reads", (long long) t->stale_reads);
    key_int(w, "gsi_stale_reads", (long long) t->gsi_stale_reads);
    key_int(w, "transaction_conflicts", (long long) t->conflicts);
    json_out_object_end(w);
    json_out_key(w, "base");
    write_source(w, t, &t->sources[0]);
    json_out_key(w, "indexes");
    json_out_array_begin(w);
    for (size_t i = 1; i < t->source_count; i++)
        write_source(w, t, &t->sources[i]);
    json_out_array_end(w);
    json_out_key(w, "vector_indexes");
    json_out_array_begin(w);
    for (size_t i = 0; i < t->vector_count; i++)
        write_vector(w, &t->vectors[i]);
    json_out_array_end(w);
    json_out_key(w, "sizes");
    json_out_object_begin(w);
    json_out_key(w, "largest_items");
    json_out_array_begin(w);
    for (size_t i = 0; i < t->largest_count; i++) {
        json_out_object_begin(w);
        json_out_key(w, "key");
        wire_value_write_map(w, &t->largest[i].key);
        key_int(w, "bytes", (long long) t->largest[i].bytes);
        key_real(w, "share_of_limit", (double) t->largest[i].bytes / (double) t->item_limit_bytes);
        json_out_object_end(w);
    }
    json_out_array_end(w);
    json_out_key(w, "item_collections");
    if (t->has_lsi) {
        json_out_array_begin(w);
        for (size_t i = 0; i < t->collection_count; i++) {
            json_out_object_begin(w);
            json_out_key(w, "key");
            wire_value_write(w, &t->collections[i].key);
            key_int(w, "bytes", (long long) t->collections[i].bytes);
            key_real(w, "share_of_limit",
                     (double) t->collections[i].bytes / (double) t->collection_limit_bytes);
            json_out_object_end(w);
        }
        json_out_array_end(w);
    } else {
        json_out_null(w); /* the 10 GB limit applies to tables with an LSI only */
    }
    json_out_object_end(w);
    write_cost(w, &t->cost);
    json_out_key(w, "findings");
    json_out_array_begin(w);
    for (size_t i = 0; i < t->finding_count; i++) {
        const struct insight_finding *f = &t->findings[i];
        json_out_object_begin(w);
        json_out_key(w, "severity");
        json_out_string(w, f->severity == INSIGHT_WARNING ? "warning" : "notice");
        json_out_key(w, "kind");
        json_out_string(w, f->kind);
        json_out_key(w, "index");
        if (f->index)
            json_out_string(w, f->index);
        else
            json_out_null(w);
        json_out_key(w, "message");
        json_out_string(w, f->message);
        json_out_object_end(w);
    }
    json_out_array_end(w);
    json_out_object_end(w);
}

static void write_report(struct json_out *w, struct db *db,
                         const struct insight_report_table *tables, size_t count)
{
    int64_t now_ms = db_now_ms(db);

    json_out_object_begin(w);
    key_int(w, "now_ms", (long long) now_ms);
    json_out_key(w, "prices");
    json_out_object_begin(w);
    json_out_key(w, "region");
    json_out_string(w, PRICES_REGION);
    json_out_key(w, "checked");
    json_out_string(w, PRICES_CHECKED);
    key_real(w, "on_demand_per_million_rru", PRICES_ON_DEMAND_PER_MILLION_RRU);
    key_real(w, "on_demand_per_million_wru", PRICES_ON_DEMAND_PER_MILLION_WRU);
    key_real(w, "provisioned_per_rcu_hour", PRICES_PROVISIONED_PER_RCU_HOUR);
    key_real(w, "provisioned_per_wcu_hour", PRICES_PROVISIONED_PER_WCU_HOUR);
    key_real(w, "hours_per_month", PRICES_HOURS_PER_MONTH);
    key_real(w, "vector_search_per_gb", PRICES_VECTOR_SEARCH_PER_GB);
    key_real(w, "vector_write_per_gb", PRICES_VECTOR_WRITE_PER_GB);
    json_out_object_end(w);
    json_out_key(w, "limits");
    json_out_object_begin(w);
    key_real(w, "partition_rcu_per_s", INSIGHT_PARTITION_RCU_PER_S);
    key_real(w, "partition_wcu_per_s", INSIGHT_PARTITION_WCU_PER_S);
    key_int(w, "item_bytes", DDB_MAX_ITEM_BYTES);
    key_int(w, "item_collection_bytes", (long long) DDB_MAX_ITEM_COLLECTION_BYTES);
    json_out_object_end(w);
    json_out_key(w, "tables");
    json_out_array_begin(w);
    for (size_t i = 0; i < count; i++)
        write_table(w, &tables[i]);
    json_out_array_end(w);
    json_out_object_end(w);
}

static const char *query_arg(const struct http_request *req, const char *name)
{
    const char *v = NULL;
    return http_request_query(req, name, &v) ? v : NULL;
}

static void handle_report(struct db *db, const struct api_config *config,
                          const struct http_request *req, const char *table,
                          struct http_response *resp)
{
    char ns[256];
    bool one_ns =
        namespace_of(config, query_arg(req, "access_key"), query_arg(req, "region"), ns, sizeof ns);
    struct insight_report_table *tables;
    struct ddb_error err = {0};
    struct json_out w;
    size_t count;

    if (db_insight_report(db, one_ns ? ns : NULL, table, &tables, &count, &err) != 0) {
        reply_error(resp, 404, err.message ? err.message : "no such table");
        ddb_error_clear(&err);
        return;
    }
    json_out_init(&w);
    write_report(&w, db, tables, count);
    db_insight_report_free(tables, count);
    reply_json(resp, 200, &w);
}

static void handle_reset(struct db *db, const struct api_config *config, json_t *body,
                         struct http_response *resp)
{
    const char *table = json_string_value(json_object_get(body, "table"));
    char ns[256];
    bool one_ns = namespace_of(config, json_string_value(json_object_get(body, "access_key")),
                               json_string_value(json_object_get(body, "region")), ns, sizeof ns);
    size_t n = db_insight_reset(db, one_ns ? ns : NULL, table);
    struct json_out w;

    json_out_init(&w);
    json_out_object_begin(&w);
    key_int(&w, "tables_reset", (long long) n);
    json_out_object_end(&w);
    reply_json(resp, 200, &w);
}

char *insight_report_text(struct db *db, size_t *len)
{
    struct insight_report_table *tables;
    struct ddb_error err = {0};
    struct json_out w;
    size_t count;

    if (db_insight_report(db, NULL, NULL, &tables, &count, &err) != 0) {
        /* Every table of every namespace: nothing to be missing. */
        ddb_error_clear(&err);
        tables = NULL;
        count = 0;
    }
    json_out_init(&w);
    write_report(&w, db, tables, count);
    db_insight_report_free(tables, count);
    return json_out_take(&w, len);
}

void insight_handle(struct db *db, const struct api_config *config, const struct http_request *req,
                    const char *what, json_t *body, struct http_response *resp)
{
    const char *rest = what + strlen(INSIGHT_PREFIX);
    bool get = strcmp(req->method, "GET") == 0, post = strcmp(req->method, "POST") == 0;

    if (rest[0] == '\0' && get)
        handle_report(db, config, req, NULL, resp);
    else if (strcmp(rest, "/reset") == 0 && post)
        handle_reset(db, config, body, resp);
    else if (rest[0] == '/' && rest[1] && !strchr(rest + 1, '/') && get)
        handle_report(db, config, req, rest + 1, resp);
    else
        reply_error(resp, 404,
                    "unknown insight endpoint (GET /ddbemu/insight, GET /ddbemu/insight/<table>, "
                    "POST /ddbemu/insight/reset)");
}
