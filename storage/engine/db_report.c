/*
 * insight.c - the access-pattern report's entry points: a snapshot of the
 * counters of one namespace's tables (or every namespace's) with the table
 * facts they are judged against, and the reset of those counters.
 *
 * The snapshot holds the engine lock shared - readers go on - and each
 * table's insight lock while its counters are copied (insight/insight.h);
 * the reset holds the engine lock exclusively. Everything after the copy
 * (cost, findings) is insight/report.c's, outside the lock.
 */
#include "storage/engine/db_report.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/insight/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The five largest item collections of an LSI table, largest first. */
static void snapshot_collections(const struct table *t, struct insight_report_table *r)
{
    const struct collection_sizes *cs = &t->collections;
    struct insight_collection_report *out = r->collections;

    for (size_t i = 0; i < cs->cap; i++) {
        const struct collection_entry *e = &cs->slots[i];
        size_t at;
        if (!e->used) continue;
        for (at = r->collection_count; at > 0 && out[at - 1].bytes < e->bytes; at--) {
        }
        if (at >= INSIGHT_LARGEST_ITEMS) continue;
        if (r->collection_count == INSIGHT_LARGEST_ITEMS)
            value_clear(&out[INSIGHT_LARGEST_ITEMS - 1].key);
        else
            r->collection_count++;
        memmove(&out[at + 1], &out[at], sizeof *out * (r->collection_count - 1 - at));
        value_copy(&out[at].key, &e->key);
        out[at].bytes = e->bytes;
    }
}

static void snapshot_largest(const struct table *t, const struct insight_table *ins,
                             struct insight_report_table *r)
{
    const struct key_schema *k = &t->def.key;

    for (size_t i = 0; i < INSIGHT_LARGEST_ITEMS && ins->largest[i].used; i++) {
        const struct insight_item *it = &ins->largest[i];
        struct insight_item_report *out = &r->largest[r->largest_count++];
        value_init_map(&out->key);
        for (size_t p = 0; p < it->key_count; p++) {
            const char *name = p == 0 ? k->hash_names[0] : k->range_names[0];
            struct value copy;
            value_copy(&copy, &it->key[p]);
            value_map_set(&out->key, name, strlen(name), &copy);
        }
        out->bytes = it->bytes;
    }
}

/* The table's vector indexes with their counters (zero for one never used);
 * caller holds the engine lock and ins's. */
static void snapshot_vectors(const struct table *t, struct insight_table *ins,
                             struct insight_report_table *r)
{
    assert_lock_held();
    assert_mutex_held(&ins->mu);
    r->vector_count = t->vector_count;
    r->vectors = t->vector_count ? xcalloc(t->vector_count, sizeof *r->vectors) : NULL;
    for (size_t i = 0; i < t->vector_count; i++) {
        const struct vector_index *vi = &t->vectors[i];
        const struct insight_vector *v = insight_vector(ins, vi->def->name);
        struct insight_vector_report *out = &r->vectors[i];
        snprintf(out->name, sizeof out->name, "%s", vi->def->name);
        out->item_count = (int64_t) vi->item_count;
        out->size_bytes = vi->size_bytes;
        if (!v) continue;
        out->searches = v->searches;
        out->search_bytes = v->search_bytes;
        out->writes = v->writes;
        out->write_bytes = v->write_bytes;
    }
}

/* One table's report; caller holds the engine lock shared. */
static void snapshot_table(const char *namespace_id, const struct table *t, int64_t now_ms,
                           struct insight_report_table *r)
{
    assert_lock_held();
    struct insight_table *ins = t->insight;

    memset(r, 0, sizeof *r);
    r->name = xstrdup(t->def.name);
    r->namespace_id = xstrdup(namespace_id);
    r->pay_per_request = t->def.billing == BILLING_PAY_PER_REQUEST;
    r->has_lsi = t->def.lsi_count > 0;
    r->now_ms = now_ms;
    r->item_limit_bytes = DDB_MAX_ITEM_BYTES;
    r->collection_limit_bytes = t->collection_limit_bytes;
    r->source_count = 1 + t->index_count;
    r->sources = xcalloc(r->source_count, sizeof *r->sources);

    insight_lock(ins);
    r->since_ms = ins->since_ms;
    memcpy(r->requests, ins->requests, sizeof r->requests);
    r->items_read = ins->items_read;
    r->items_returned = atomic_load_explicit(&ins->items_returned, memory_order_relaxed);
    r->items_written = ins->items_written;
    r->conditional_check_failed = ins->conditional_check_failed;
    r->transactions_canceled = ins->transactions_canceled;
    r->stale_reads = atomic_load_explicit(&ins->stale_reads, memory_order_relaxed);
    r->gsi_stale_reads = atomic_load_explicit(&ins->gsi_stale_reads, memory_order_relaxed);
    r->conflicts = atomic_load_explicit(&ins->conflicts, memory_order_relaxed);
    r->batch_get = ins->batch_get;
    r->batch_write = ins->batch_write;
    r->transact_get = ins->transact_get;
    r->transact_write = ins->transact_write;
    snapshot_largest(t, ins, r);
    insight_source_snapshot(&ins->sources[0], &r->sources[0]);
    for (size_t i = 0; i < t->index_count; i++) {
        const struct table_index *idx = &t->indexes[i];
        struct insight_source *src = insight_source(ins, idx->def->name, idx->def->is_global);
        struct insight_source_report *out = &r->sources[1 + i];
        if (src) {
            insight_source_snapshot(src, out);
        } else {
            memset(out, 0, sizeof *out);
            out->name = xstrdup(idx->def->name);
            out->is_global = idx->def->is_global;
        }
        out->item_count = (int64_t) idx->rows.count;
        out->size_bytes = idx->size_bytes;
        out->provisioned = idx->def->is_global && !r->pay_per_request;
        out->provisioned_rcu = out->provisioned ? idx->def->throughput.read_units : 0;
        out->provisioned_wcu = out->provisioned ? idx->def->throughput.write_units : 0;
    }
    snapshot_vectors(t, ins, r);
    insight_unlock(ins);

    r->sources[0].item_count = (int64_t) t->items.count;
    r->sources[0].size_bytes = t->size_bytes;
    r->sources[0].provisioned = !r->pay_per_request;
    r->sources[0].provisioned_rcu = r->pay_per_request ? 0 : t->def.throughput.read_units;
    r->sources[0].provisioned_wcu = r->pay_per_request ? 0 : t->def.throughput.write_units;
    if (r->has_lsi) snapshot_collections(t, r);
}

static void append(struct insight_report_table **out, size_t *count, const char *namespace_id,
                   const struct table *t, int64_t now_ms)
{
    *out = xrealloc(*out, sizeof **out * (*count + 1));
    snapshot_table(namespace_id, t, now_ms, &(*out)[*count]);
    (*count)++;
}

int db_insight_report(struct db *db, const char *namespace_id, const char *table_name,
                      struct insight_report_table **out, size_t *count, struct ddb_error *err)
{
    int64_t now_ms;
    int rc = 0;

    *out = NULL;
    *count = 0;
    /* Every table's counters, which their writers change under their own
     * locks only: the catalog lock exclusively stops them all. */
    db_write_lock(db);
    now_ms = db_now_ms(db);
    for (size_t n = 0; n < db->namespace_count; n++) {
        const struct namespace *ns = &db->namespaces[n];
        if (namespace_id && strcmp(ns->id, namespace_id) != 0) continue;
        for (size_t i = 0; i < ns->table_count; i++) {
            if (table_name && strcmp(ns->tables[i]->def.name, table_name) != 0) continue;
            append(out, count, ns->id, ns->tables[i], now_ms);
        }
    }
    db_unlock(db);
    if (table_name && *count == 0) rc = ddb_error_table_not_found(err, table_name);
    for (size_t i = 0; i < *count; i++)
        insight_report_judge(&(*out)[i]);
    return rc;
}

void db_insight_report_free(struct insight_report_table *tables, size_t count)
{
    for (size_t i = 0; i < count; i++)
        insight_report_table_clear(&tables[i]);
    free(tables);
}

size_t db_insight_reset(struct db *db, const char *namespace_id, const char *table_name)
{
    size_t reset = 0;
    int64_t now_ms;

    db_write_lock(db);
    now_ms = db_now_ms(db);
    for (size_t n = 0; n < db->namespace_count; n++) {
        const struct namespace *ns = &db->namespaces[n];
        if (namespace_id && strcmp(ns->id, namespace_id) != 0) continue;
        for (size_t i = 0; i < ns->table_count; i++) {
            if (table_name && strcmp(ns->tables[i]->def.name, table_name) != 0) continue;
            insight_reset(ns->tables[i]->insight, now_ms);
            reset++;
        }
    }
    db_unlock(db);
    return reset;
}
