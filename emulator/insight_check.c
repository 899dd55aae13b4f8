/*
 * insight_check.c - the design gate's judgement and its Markdown
 * (insight_check.h).
 *
 * Reads only the report's documented members (docs/validating-a-design.md),
 * so it judges a report from any ddbemu that writes them. One pass per table:
 * Scans against the table's size, each Query and Scan's read amplification,
 * each partition key's busiest second against DynamoDB's per-partition
 * limits, each index's on-demand cost against its table's, the largest item.
 */
#include "emulator/insight_check.h"

#include "api/http/dispatch.h"
#include "storage/base/alloc.h"
#include "storage/base/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct finding {
    char *table, *rule, *observed, *shape;
};

struct findings {
    struct finding *v;
    size_t n;
};

/* Markdown cell text: '|' and newlines would break the row. */
static void cell(struct text_buf *b, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|')
            text_buf_puts(b, "\\|");
        else if (*s == '\n')
            text_buf_puts(b, " ");
        else
            text_buf_add(b, s, 1);
    }
}

static char *take(struct text_buf *b)
{
    size_t len;
    char *s = text_buf_take(b, &len);
    return s ? s : xstrdup("");
}

static void add(struct findings *f, const char *table, const char *rule, struct text_buf *observed,
                struct text_buf *shape)
{
    f->v = xrealloc(f->v, (f->n + 1) * sizeof *f->v);
    f->v[f->n++] = (struct finding){xstrdup(table), xstrdup(rule), take(observed), take(shape)};
}

static double num(const json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k));
}

/* "table T" or "index I of T". */
static void source_name(struct text_buf *b, const char *table, const json_t *source)
{
    const char *index = json_string_value(json_object_get(source, "index"));
    if (index)
        text_buf_printf(b, "index `%s` of `%s`", index, table);
    else
        text_buf_printf(b, "table `%s`", table);
}

/* The filters of one operation on a source: " with FilterExpression on a, b"
 * (each filter shape with its requests), or " without a filter". */
static void filters(struct text_buf *b, const json_t *source, const char *operation)
{
    const json_t *list = json_object_get(source, "filters");
    bool any = false;

    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *f = json_array_get(list, i);
        if (strcmp(json_string_value(json_object_get(f, "operation")), operation) != 0) continue;
        long long n = (long long) json_integer_value(json_object_get(f, "requests"));
        text_buf_printf(b, "%s filter on `%s` (%lld request%s)", any ? ";" : " with a",
                        json_string_value(json_object_get(f, "attributes")), n, n == 1 ? "" : "s");
        any = true;
    }
    if (!any) text_buf_puts(b, " without a filter");
}

/* The operations of the table's requests of one kind, with their counts:
 * "PutItem ×120, BatchWriteItem ×18". */
static void operations(struct text_buf *b, const json_t *t, bool writes)
{
    static const char *const write_ops[] = {"PutItem",
                                            "UpdateItem",
                                            "DeleteItem",
                                            "BatchWriteItem",
                                            "TransactWriteItems",
                                            "ExecuteStatement",
                                            "BatchExecuteStatement",
                                            "ExecuteTransaction",
                                            NULL};
    static const char *const read_ops[] = {"GetItem",
                                           "Query",
                                           "Scan",
                                           "BatchGetItem",
                                           "TransactGetItems",
                                           "ExecuteStatement",
                                           "BatchExecuteStatement",
                                           "ExecuteTransaction",
                                           NULL};
    const char *const *ops = writes ? write_ops : read_ops;
    const json_t *requests = json_object_get(t, "requests");
    bool any = false;

    for (size_t i = 0; ops[i]; i++) {
        long long n = (long long) json_integer_value(json_object_get(requests, ops[i]));
        if (!n) continue;
        text_buf_printf(b, "%s%s ×%lld", any ? ", " : "", ops[i], n);
        any = true;
    }
    if (!any) text_buf_puts(b, writes ? "no write requests" : "no read requests");
}

static void key_text(struct text_buf *b, const json_t *key)
{
    char *text = json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    text_buf_printf(b, "`%s`", text ? text : "?");
    free(text);
}

static void check_scans(struct findings *f, const char *name, const json_t *t, const json_t *s,
                        const struct gate_rules *r)
{
    const json_t *scan = json_object_get(s, "scan");
    double items = json_object_get(s, "index") ? num(s, "entry_count") : num(s, "item_count");
    struct text_buf obs = {0}, shape = {0};

    (void) t;
    if (r->scan_max_items < 0 || num(scan, "requests") == 0 || items <= r->scan_max_items) return;
    text_buf_printf(&obs, "Scan of a %.0f-item %s (limit %.0f): %.0f page%s read %.0f items", items,
                    json_object_get(s, "index") ? "index" : "table", r->scan_max_items,
                    num(scan, "requests"), num(scan, "requests") == 1 ? "" : "s",
                    num(scan, "items_read"));
    text_buf_puts(&shape, "`Scan` on ");
    source_name(&shape, name, s);
    filters(&shape, s, "Scan");
    add(f, name, "scan_max_items", &obs, &shape);
}

static void check_amplification(struct findings *f, const char *name, const json_t *s,
                                const struct gate_rules *r)
{
    static const char *const kinds[] = {"query", "scan"}, *const ops[] = {"Query", "Scan"};

    if (r->max_read_amplification < 0) return;
    for (size_t k = 0; k < 2; k++) {
        const json_t *reads = json_object_get(s, kinds[k]);
        double read = num(reads, "items_read"), returned = num(reads, "items_returned");
        struct text_buf obs = {0}, shape = {0};
        if (read < r->min_items_read || read <= r->max_read_amplification * returned) continue;
        if (returned > 0)
            text_buf_printf(&obs, "%.0f items read for %.0f returned: %.1f per item (limit %g)",
                            read, returned, read / returned, r->max_read_amplification);
        else
            text_buf_printf(&obs, "%.0f items read, none returned (limit %g per item)", read,
                            r->max_read_amplification);
        text_buf_printf(&shape, "`%s` on ", ops[k]);
        source_name(&shape, name, s);
        filters(&shape, s, ops[k]);
        add(f, name, "max_read_amplification", &obs, &shape);
    }
}

static void check_partitions(struct findings *f, const char *name, const json_t *t, const json_t *s,
                             const json_t *limits, const struct gate_rules *r)
{
    static const char *const lists[] = {"top_reads", "top_writes"};
    static const char *const peaks[] = {"peak_rcu_per_s", "peak_wcu_per_s"};
    static const char *const limit_keys[] = {"partition_rcu_per_s", "partition_wcu_per_s"};
    static const char *const units[] = {"RCU", "WCU"};

    if (r->partition_limit_share < 0) return;
    for (size_t l = 0; l < 2; l++) {
        const json_t *top = json_object_get(json_object_get(s, "partitions"), lists[l]);
        double limit = num(limits, limit_keys[l]) * r->partition_limit_share;
        for (size_t i = 0; i < json_array_size(top); i++) {
            const json_t *k = json_array_get(top, i);
            struct text_buf obs = {0}, shape = {0};
            if (num(k, peaks[l]) <= limit) continue;
            text_buf_printf(&obs, "partition key ");
            key_text(&obs, json_object_get(k, "key"));
            text_buf_printf(
                &obs, " peaked at %.1f %s/s at engine time %lld ms (limit %.0f)", num(k, peaks[l]),
                units[l], (long long) json_integer_value(json_object_get(k, "peak_at_ms")), limit);
            text_buf_printf(&shape, "%s of one partition key of ", l ? "writes" : "reads");
            source_name(&shape, name, s);
            text_buf_puts(&shape, " (");
            operations(&shape, t, l == 1);
            text_buf_puts(&shape, ")");
            add(f, name, "partition_limit_share", &obs, &shape);
        }
    }
}

static void check_index_cost(struct findings *f, const char *name, const json_t *t,
                             const json_t *prices, const struct gate_rules *r)
{
    const json_t *base = json_object_get(t, "base"), *indexes = json_object_get(t, "indexes");
    double rru = num(prices, "on_demand_per_million_rru") / 1e6;
    double wru = num(prices, "on_demand_per_million_wru") / 1e6;
    double table_cost = num(base, "rcu") * rru + num(base, "wcu") * wru;

    if (r->index_cost_ratio < 0) return;
    for (size_t i = 0; i < json_array_size(indexes); i++) {
        const json_t *x = json_array_get(indexes, i);
        double cost = num(x, "rcu") * rru + num(x, "wcu") * wru;
        struct text_buf obs = {0}, shape = {0};
        if (cost <= 0 || cost <= r->index_cost_ratio * table_cost) continue;
        text_buf_printf(&obs,
                        "index `%s` cost $%.6f on demand (%.1f RCU, %.1f WCU), its table $%.6f "
                        "(limit %g× the table)",
                        json_string_value(json_object_get(x, "index")), cost, num(x, "rcu"),
                        num(x, "wcu"), table_cost, r->index_cost_ratio);
        text_buf_puts(&shape, "writes to table `");
        text_buf_puts(&shape, name);
        text_buf_puts(&shape, "` (");
        operations(&shape, t, true);
        text_buf_printf(&shape, ") copied into ");
        source_name(&shape, name, x);
        if (num(json_object_get(x, "query"), "requests") ||
            num(json_object_get(x, "scan"), "requests"))
            text_buf_printf(&shape, ", read by Query ×%.0f and Scan ×%.0f on it",
                            num(json_object_get(x, "query"), "requests"),
                            num(json_object_get(x, "scan"), "requests"));
        add(f, name, "index_cost_ratio", &obs, &shape);
    }
}

static void check_item_size(struct findings *f, const char *name, const json_t *t,
                            const struct gate_rules *r)
{
    const json_t *largest = json_object_get(json_object_get(t, "sizes"), "largest_items");

    if (r->max_item_bytes < 0) return;
    for (size_t i = 0; i < json_array_size(largest); i++) {
        const json_t *l = json_array_get(largest, i);
        struct text_buf obs = {0}, shape = {0};
        if (num(l, "bytes") <= r->max_item_bytes) continue;
        text_buf_printf(&obs, "item of %.0f bytes (limit %.0f; DynamoDB's own is 400 KB)",
                        num(l, "bytes"), r->max_item_bytes);
        text_buf_puts(&shape, "the item ");
        key_text(&shape, json_object_get(l, "key"));
        text_buf_printf(&shape, " of table `%s`, written by ", name);
        operations(&shape, t, true);
        add(f, name, "max_item_bytes", &obs, &shape);
    }
}

static void print_rules(FILE *out, const struct gate_config *c)
{
    const char *name;
    json_t *v;

    fprintf(out, "\n<details><summary>Rules</summary>\n\n| Rule | Default |\n|---|---|\n");
    for (size_t i = 0; gate_rule_names[i]; i++) {
        double x = gate_rule_value(&c->defaults, gate_rule_names[i]);
        if (x < 0)
            fprintf(out, "| %s | off |\n", gate_rule_names[i]);
        else
            fprintf(out, "| %s | %g |\n", gate_rule_names[i], x);
    }
    json_object_foreach(c->tables, name, v)
    {
        char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
        fprintf(out, "\nTable `%s`: `%s`\n", name, text ? text : "?");
        free(text);
    }
    fprintf(out, "\n</details>\n");
}

void insight_check_narrow(json_t *report, const char *table, const char *namespace_id)
{
    json_t *tables = json_object_get(report, "tables");

    for (size_t i = json_array_size(tables); i-- > 0;) {
        const json_t *t = json_array_get(tables, i);
        const char *name = json_string_value(json_object_get(t, "table"));
        const char *ns = json_string_value(json_object_get(t, "namespace"));
        if ((table && (!name || strcmp(name, table) != 0)) ||
            (namespace_id &&
             (!ns || (strcmp(ns, namespace_id) != 0 && strcmp(ns, API_SHARED_NAMESPACE) != 0))))
            json_array_remove(tables, i);
    }
}

size_t insight_check(const json_t *report, const struct gate_config *config, FILE *out)
{
    const json_t *tables = json_object_get(report, "tables");
    const json_t *limits = json_object_get(report, "limits");
    const json_t *prices = json_object_get(report, "prices");
    struct findings f = {0};
    size_t n;

    for (size_t i = 0; i < json_array_size(tables); i++) {
        const json_t *t = json_array_get(tables, i), *indexes = json_object_get(t, "indexes");
        const char *name = json_string_value(json_object_get(t, "table"));
        struct gate_rules r;
        gate_rules_for(config, name, &r);
        check_scans(&f, name, t, json_object_get(t, "base"), &r);
        check_amplification(&f, name, json_object_get(t, "base"), &r);
        check_partitions(&f, name, t, json_object_get(t, "base"), limits, &r);
        for (size_t x = 0; x < json_array_size(indexes); x++) {
            check_scans(&f, name, t, json_array_get(indexes, x), &r);
            check_amplification(&f, name, json_array_get(indexes, x), &r);
            check_partitions(&f, name, t, json_array_get(indexes, x), limits, &r);
        }
        check_index_cost(&f, name, t, prices, &r);
        check_item_size(&f, name, t, &r);
    }

    fprintf(out, "## ddbemu design gate: %s\n\n", f.n ? "FAILED" : "passed");
    if (f.n) {
        fprintf(out, "%zu finding%s in the recorded traffic of %zu table%s.\n\n", f.n,
                f.n == 1 ? "" : "s", json_array_size(tables),
                json_array_size(tables) == 1 ? "" : "s");
        fprintf(out, "| Table | Rule | Observed | Request shape |\n|---|---|---|---|\n");
        for (size_t i = 0; i < f.n; i++) {
            struct text_buf row = {0};
            char *text;
            text_buf_puts(&row, "| ");
            cell(&row, f.v[i].table);
            text_buf_puts(&row, " | ");
            cell(&row, f.v[i].rule);
            text_buf_puts(&row, " | ");
            cell(&row, f.v[i].observed);
            text_buf_puts(&row, " | ");
            cell(&row, f.v[i].shape);
            text_buf_puts(&row, " |\n");
            text = take(&row);
            fputs(text, out);
            free(text);
        }
    } else {
        fprintf(out, "No rule broken by the recorded traffic of %zu table%s.\n",
                json_array_size(tables), json_array_size(tables) == 1 ? "" : "s");
    }
    fprintf(out, "\n### Tables\n\n");
    for (size_t i = 0; i < json_array_size(tables); i++) {
        const json_t *t = json_array_get(tables, i), *base = json_object_get(t, "base");
        struct text_buf line = {0};
        char *text;
        text_buf_printf(
            &line, "- `%s` (%s): %.0f items, ", json_string_value(json_object_get(t, "table")),
            json_string_value(json_object_get(t, "namespace")), num(base, "item_count"));
        operations(&line, t, false);
        text_buf_puts(&line, "; ");
        operations(&line, t, true);
        text_buf_puts(&line, "\n");
        text = take(&line);
        fputs(text, out);
        free(text);
    }
    print_rules(out, config);
    n = f.n;
    for (size_t i = 0; i < f.n; i++) {
        free(f.v[i].table);
        free(f.v[i].rule);
        free(f.v[i].observed);
        free(f.v[i].shape);
    }
    free(f.v);
    return n;
}
