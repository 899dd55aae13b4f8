/*
 * report.c - the access-pattern report from a snapshot: cost and findings;
 * see report.h.
 *
 * Pure functions of the snapshot: no lock and no clock. The thresholds of
 * the findings are the emulator's choice, stated next to each; the limits
 * they compare against are DynamoDB's.
 */
#include "storage/insight/report.h"

#include "storage/base/alloc.h"
#include "storage/insight/prices.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A filter is worth a finding when it read at least this many items, and this
 * many per item it returned. */
#define AMPLIFICATION_MIN_READ  10
#define AMPLIFICATION_MIN_RATIO 10.0
/* Scans are worth a finding when they took at least this share of read units. */
#define SCAN_SHARE_MIN 0.5
/* Items and collections are worth a finding from this share of their limit. */
#define SIZE_SHARE_MIN 0.25

void insight_report_table_clear(struct insight_report_table *r)
{
    free(r->name);
    free(r->namespace_id);
    for (size_t i = 0; i < r->largest_count; i++)
        value_clear(&r->largest[i].key);
    for (size_t i = 0; i < r->collection_count; i++)
        value_clear(&r->collections[i].key);
    for (size_t i = 0; i < r->source_count; i++) {
        struct insight_source_report *s = &r->sources[i];
        free(s->name);
        for (size_t k = 0; k < s->top_read_count; k++)
            value_clear(&s->top_read[k].key);
        for (size_t k = 0; k < s->top_write_count; k++)
            value_clear(&s->top_write[k].key);
    }
    free(r->sources);
    free(r->vectors);
    for (size_t i = 0; i < r->finding_count; i++) {
        free(r->findings[i].index);
        free(r->findings[i].message);
    }
    free(r->findings);
    memset(r, 0, sizeof *r);
}

static void reads_snapshot(const struct insight_reads *in, struct insight_reads_report *out)
{
    out->requests = in->requests;
    out->items_read = in->items_read;
    out->items_returned = atomic_load_explicit(&in->items_returned, memory_order_relaxed);
    out->bytes_read = in->bytes_read;
    out->units = in->units;
}

static size_t top_snapshot(const struct heat_map *m, bool by_write, struct insight_key_report *out)
{
    const struct heat_key *top[INSIGHT_TOP_KEYS];
    size_t n = heat_map_top(m, by_write, top, INSIGHT_TOP_KEYS);

    for (size_t i = 0; i < n; i++) {
        heat_key_value(top[i], &out[i].key);
        out[i].peak_per_s = by_write ? top[i]->w.peak_wcu : top[i]->w.peak_rcu;
        out[i].peak_ms = by_write ? top[i]->w.peak_wcu_ms : top[i]->w.peak_rcu_ms;
        out[i].total = by_write ? top[i]->w.total_wcu : top[i]->w.total_rcu;
    }
    return n;
}

void insight_source_snapshot(const struct insight_source *s, struct insight_source_report *out)
{
    memset(out, 0, sizeof *out);
    out->name = s->name[0] ? xstrdup(s->name) : NULL;
    out->is_global = s->is_global;
    out->rcu = s->rcu;
    out->wcu = s->wcu;
    out->writes = s->writes;
    reads_snapshot(&s->query, &out->query);
    reads_snapshot(&s->scan, &out->scan);
    for (size_t i = 0; i < INSIGHT_MAX_FILTERS && s->filters[i].used; i++) {
        struct insight_filter_report *f = &out->filters[out->filter_count++];
        memcpy(f->attrs, s->filters[i].attrs, sizeof f->attrs);
        f->is_scan = s->filters[i].is_scan;
        f->requests = s->filters[i].requests;
        f->items_read = s->filters[i].items_read;
        f->items_returned =
            atomic_load_explicit(&s->filters[i].items_returned, memory_order_relaxed);
    }
    out->peak_rcu_per_s = s->total.peak_rcu;
    out->peak_wcu_per_s = s->total.peak_wcu;
    out->peak_rcu_ms = s->total.peak_rcu_ms;
    out->peak_wcu_ms = s->total.peak_wcu_ms;
    out->top_read_count = top_snapshot(&s->heat, false, out->top_read);
    out->top_write_count = top_snapshot(&s->heat, true, out->top_write);
    out->keys_tracked = s->heat.count;
    out->keys_evicted = s->heat.evicted;
}

double insight_report_rcu(const struct insight_report_table *r)
{
    double sum = 0;
    for (size_t i = 0; i < r->source_count; i++)
        sum += r->sources[i].rcu;
    return sum;
}

double insight_report_wcu(const struct insight_report_table *r)
{
    double sum = 0;
    for (size_t i = 0; i < r->source_count; i++)
        sum += r->sources[i].wcu;
    return sum;
}

/* Whole units to provision for a rate: rounded up, and at least 1 (the
 * smallest ProvisionedThroughput AWS accepts). */
static int64_t units_for(double per_s)
{
    double u = ceil(per_s - 1e-9);
    return u < 1 ? 1 : (int64_t) u;
}

static double provisioned_monthly(int64_t rcu, int64_t wcu)
{
    return ((double) rcu * PRICES_PROVISIONED_PER_RCU_HOUR +
            (double) wcu * PRICES_PROVISIONED_PER_WCU_HOUR) *
           PRICES_HOURS_PER_MONTH;
}

/*
 * The cost of the observed rate for a month. On-demand pays every request
 * unit; provisioned capacity is bought per pool - the table (with its LSIs,
 * which share its capacity) and each GSI - either at the average rate or at
 * the busiest second, which is what serving the peak without throttling
 * takes (burst capacity aside).
 */
static void judge_cost(struct insight_report_table *r)
{
    struct insight_cost *c = &r->cost;
    double secs = (double) (r->now_ms - r->since_ms) / 1000.0;
    double month_s = PRICES_HOURS_PER_MONTH * 3600.0;
    double pool_rcu = 0, pool_wcu = 0;

    memset(c, 0, sizeof *c);
    c->observed_seconds = secs < 1 ? 1 : secs;
    c->rcu_per_s = insight_report_rcu(r) / c->observed_seconds;
    c->wcu_per_s = insight_report_wcu(r) / c->observed_seconds;
    c->on_demand_monthly = c->rcu_per_s * month_s / 1e6 * PRICES_ON_DEMAND_PER_MILLION_RRU +
                           c->wcu_per_s * month_s / 1e6 * PRICES_ON_DEMAND_PER_MILLION_WRU;
    for (size_t i = 0; i < r->source_count; i++) {
        const struct insight_source_report *s = &r->sources[i];
        if (i > 0 && !s->is_global) {
            pool_rcu += s->rcu; /* an LSI: the table's pool */
            pool_wcu += s->wcu;
            continue;
        }
        if (s->is_global) {
            c->provisioned_avg_rcu += units_for(s->rcu / c->observed_seconds);
            c->provisioned_avg_wcu += units_for(s->wcu / c->observed_seconds);
        } else {
            pool_rcu += s->rcu;
            pool_wcu += s->wcu;
        }
        c->provisioned_peak_rcu += units_for(s->peak_rcu_per_s);
        c->provisioned_peak_wcu += units_for(s->peak_wcu_per_s);
        if (s->provisioned) {
            c->has_configured = true;
            c->configured_monthly += provisioned_monthly(s->provisioned_rcu, s->provisioned_wcu);
        }
    }
    for (size_t i = 0; i < r->vector_count; i++) {
        const struct insight_vector_report *v = &r->vectors[i];
        c->vector_search_monthly +=
            v->search_bytes / c->observed_seconds * month_s / 1e9 * PRICES_VECTOR_SEARCH_PER_GB;
        c->vector_write_monthly +=
            v->write_bytes / c->observed_seconds * month_s / 1e9 * PRICES_VECTOR_WRITE_PER_GB;
    }
    c->provisioned_avg_rcu += units_for(pool_rcu / c->observed_seconds);
    c->provisioned_avg_wcu += units_for(pool_wcu / c->observed_seconds);
    c->provisioned_avg_monthly =
        provisioned_monthly(c->provisioned_avg_rcu, c->provisioned_avg_wcu);
    c->provisioned_peak_monthly =
        provisioned_monthly(c->provisioned_peak_rcu, c->provisioned_peak_wcu);
}

static void add_finding(struct insight_report_table *r, enum insight_severity severity,
                        const char *kind, const char *index, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void add_finding(struct insight_report_table *r, enum insight_severity severity,
                        const char *kind, const char *index, const char *fmt, ...)
{
    struct insight_finding *f;
    va_list ap;
    int len;

    r->findings = xrealloc(r->findings, sizeof *r->findings * (r->finding_count + 1));
    f = &r->findings[r->finding_count++];
    memset(f, 0, sizeof *f);
    f->severity = severity;
    snprintf(f->kind, sizeof f->kind, "%s", kind);
    f->index = index ? xstrdup(index) : NULL;
    va_start(ap, fmt);
    len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    f->message = xmalloc((size_t) len + 1);
    va_start(ap, fmt);
    vsnprintf(f->message, (size_t) len + 1, fmt, ap);
    va_end(ap);
}

/* A scalar key as text for a message: a string or number as it is, others by type. */
static void key_text(const struct value *v, char *buf, size_t size)
{
    if (v->type == VALUE_S || v->type == VALUE_N)
        snprintf(buf, size, "%.*s", (int) (v->u.str.len < 80 ? v->u.str.len : 80), v->u.str.data);
    else if (v->type == VALUE_L)
        snprintf(buf, size, "(%zu-attribute key)", v->u.list.count);
    else
        snprintf(buf, size, "(binary key of %zu bytes)", v->u.str.len);
}

/* "table T" or "index I of table T", for messages. */
static void where(const struct insight_report_table *r, const struct insight_source_report *s,
                  char *buf, size_t size)
{
    if (s->name)
        snprintf(buf, size, "index %s of table %s", s->name, r->name);
    else
        snprintf(buf, size, "table %s", r->name);
}

static void judge_heat(struct insight_report_table *r, const struct insight_source_report *s)
{
    char at[600], key[100];

    where(r, s, at, sizeof at);
    for (size_t k = 0; k < s->top_write_count; k++) {
        const struct insight_key_report *h = &s->top_write[k];
        if (h->peak_per_s <= INSIGHT_PARTITION_WCU_PER_S) break; /* hottest first */
        key_text(&h->key, key, sizeof key);
        add_finding(r, INSIGHT_WARNING, "hot_partition", s->name,
                    "Partition key `%s` of %s peaked at %.1f WCU in one second, above the %.0f "
                    "WCU/s one partition serves: AWS would throttle these writes%s. Spread them "
                    "over more partition key values (write sharding).",
                    key, at, h->peak_per_s, INSIGHT_PARTITION_WCU_PER_S,
                    s->is_global ? ", and a throttled GSI throttles the table's writes too" : "");
    }
    for (size_t k = 0; k < s->top_read_count; k++) {
        const struct insight_key_report *h = &s->top_read[k];
        if (h->peak_per_s <= INSIGHT_PARTITION_RCU_PER_S) break;
        key_text(&h->key, key, sizeof key);
        add_finding(r, INSIGHT_WARNING, "hot_partition", s->name,
                    "Partition key `%s` of %s peaked at %.1f RCU in one second, above the %.0f "
                    "RCU/s one partition serves: AWS would throttle these reads. Cache them, or "
                    "spread them over more partition key values.",
                    key, at, h->peak_per_s, INSIGHT_PARTITION_RCU_PER_S);
    }
}

static void judge_filters(struct insight_report_table *r, const struct insight_source_report *s)
{
    char at[600];

    where(r, s, at, sizeof at);
    for (size_t i = 0; i < s->filter_count; i++) {
        const struct insight_filter_report *f = &s->filters[i];
        double per = (double) f->items_read / (double) (f->items_returned ? f->items_returned : 1);
        if (f->items_read < AMPLIFICATION_MIN_READ || per < AMPLIFICATION_MIN_RATIO) continue;
        add_finding(r, INSIGHT_WARNING, "read_amplification", s->name,
                    "%s on %s read %llu items to return %llu (%.1f per item returned): the "
                    "FilterExpression on `%s` discards the rest after they are read and paid "
                    "for. A key condition on what it filters (in the table's key, or in a "
                    "sparse GSI's) would read only what it returns.",
                    f->is_scan ? "Scan" : "Query", at, (unsigned long long) f->items_read,
                    (unsigned long long) f->items_returned, per, f->attrs);
    }
}

static void judge_scans(struct insight_report_table *r)
{
    double all = insight_report_rcu(r), scans = 0;
    uint64_t count = 0;

    for (size_t i = 0; i < r->source_count; i++) {
        scans += r->sources[i].scan.units;
        count += r->sources[i].scan.requests;
    }
    if (count == 0 || all <= 0 || scans / all < SCAN_SHARE_MIN) return;
    add_finding(r, INSIGHT_WARNING, "scan_share", NULL,
                "Scans took %.1f of the %.1f RCU read from table %s (%.0f%%, %llu Scan pages): "
                "a Scan reads every item and its cost grows with the table. Serve these reads "
                "with a Query on a key or an index.",
                scans, all, r->name, 100.0 * scans / all, (unsigned long long) count);
}

static void judge_sizes(struct insight_report_table *r)
{
    if (r->largest_count &&
        (double) r->largest[0].bytes >= SIZE_SHARE_MIN * (double) r->item_limit_bytes) {
        const struct insight_item_report *it = &r->largest[0];
        double share = (double) it->bytes / (double) r->item_limit_bytes;
        add_finding(r, share >= 0.75 ? INSIGHT_WARNING : INSIGHT_NOTICE, "large_item", NULL,
                    "The largest item written to table %s is %zu bytes, %.0f%% of the %lld-byte "
                    "item limit; each write of it costs %.0f WCU and each strongly consistent "
                    "read %.0f RCU. Move large attributes to S3, or split the item.",
                    r->name, it->bytes, 100.0 * share, (long long) r->item_limit_bytes,
                    ceil((double) it->bytes / 1024.0), ceil((double) it->bytes / 4096.0));
    }
    if (r->collection_count &&
        (double) r->collections[0].bytes >= SIZE_SHARE_MIN * (double) r->collection_limit_bytes) {
        char key[100];
        double share = (double) r->collections[0].bytes / (double) r->collection_limit_bytes;
        key_text(&r->collections[0].key, key, sizeof key);
        add_finding(r, share >= 0.75 ? INSIGHT_WARNING : INSIGHT_NOTICE, "collection_size", NULL,
                    "The item collection of partition key `%s` of table %s holds %lld bytes, "
                    "%.0f%% of the %lld-byte limit on tables with a local secondary index; "
                    "writes to it will fail with ItemCollectionSizeLimitExceededException when "
                    "it is full.",
                    key, r->name, (long long) r->collections[0].bytes, 100.0 * share,
                    (long long) r->collection_limit_bytes);
    }
}

static void judge_index_writes(struct insight_report_table *r)
{
    double table_wcu = r->source_count ? r->sources[0].wcu : 0, index_wcu = 0;

    for (size_t i = 1; i < r->source_count; i++)
        index_wcu += r->sources[i].wcu;
    if (table_wcu <= 0 || index_wcu <= table_wcu) return;
    add_finding(r, INSIGHT_NOTICE, "index_write_amplification", NULL,
                "Writes to table %s cost %.1f WCU in the table and %.1f more in its indexes: "
                "each unit written costs %.2f in all. Project fewer attributes, or index fewer "
                "items (sparse indexes).",
                r->name, table_wcu, index_wcu, (table_wcu + index_wcu) / table_wcu);
}

static void judge_failures(struct insight_report_table *r)
{
    uint64_t writes = r->requests[INSIGHT_PUT_ITEM] + r->requests[INSIGHT_UPDATE_ITEM] +
                      r->requests[INSIGHT_DELETE_ITEM];
    uint64_t transactions = r->requests[INSIGHT_TRANSACT_WRITE_ITEMS];

    if (r->conditional_check_failed && r->conditional_check_failed * 10 >= writes)
        add_finding(r, INSIGHT_NOTICE, "conditional_check_failed", NULL,
                    "%llu of %llu single-item writes to table %s failed their condition "
                    "(ConditionalCheckFailedException).",
                    (unsigned long long) r->conditional_check_failed, (unsigned long long) writes,
                    r->name);
    if (r->transactions_canceled)
        add_finding(r, INSIGHT_NOTICE, "transaction_canceled", NULL,
                    "%llu of %llu TransactWriteItems/TransactGetItems touching table %s were "
                    "canceled (TransactionCanceledException).",
                    (unsigned long long) r->transactions_canceled,
                    (unsigned long long) (transactions + r->requests[INSIGHT_TRANSACT_GET_ITEMS]),
                    r->name);
    if (r->stale_reads || r->gsi_stale_reads)
        add_finding(r, INSIGHT_NOTICE, "stale_reads", NULL,
                    "%llu eventually consistent reads of table %s and %llu reads of its global "
                    "secondary indexes did not reflect a recently completed write "
                    "(--consistency aws; docs/consistency.md).",
                    (unsigned long long) r->stale_reads, r->name,
                    (unsigned long long) r->gsi_stale_reads);
    if (r->conflicts)
        add_finding(r, INSIGHT_NOTICE, "transaction_conflicts", NULL,
                    "%llu requests touching table %s conflicted with an ongoing transaction "
                    "(TransactionConflict; --consistency aws, docs/consistency.md).",
                    (unsigned long long) r->conflicts, r->name);
}

void insight_report_judge(struct insight_report_table *r)
{
    judge_cost(r);
    for (size_t i = 0; i < r->source_count; i++)
        judge_heat(r, &r->sources[i]);
    for (size_t i = 0; i < r->source_count; i++)
        judge_filters(r, &r->sources[i]);
    judge_scans(r);
    judge_index_writes(r);
    judge_sizes(r);
    judge_failures(r);
}
