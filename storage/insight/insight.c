/*
 * insight.c - the access-pattern counters of one table; see insight.h.
 *
 * Everything lives in one allocation made when the table is created: the
 * sources and filters are fixed arrays, so recording never allocates except
 * when a heat map meets a new partition key or an item joins the largest
 * five. The locking rule is insight.h's: writers under the engine's exclusive
 * lock, readers under the engine's shared lock plus `mu`, and only atomics
 * after the engine lock is released.
 */
#include "storage/insight/insight.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* insight.h's rule, asserted by every function that records: a writer's
 * locks (the catalog lock, or the table's lock, exclusively), or the catalog
 * lock shared with ins->mu (insight_lock) held. The table is not known here,
 * so "the table's lock" is any table lock the thread holds exclusively. */
#define assert_lock_recording(ins)                                                                 \
    assert(lock_check_writing() ||                                                                 \
           (lock_check_hold() == LOCK_HOLD_SHARED && checked_mutex_held(&(ins)->mu)))

const char *insight_op_name(enum insight_op op)
{
    static const char *const names[] = {
#define X(id, name) name,
        INSIGHT_OPS(X)
#undef X
    };
    return op < INSIGHT_OP_COUNT ? names[op] : "?";
}

static void source_clear(struct insight_source *s)
{
    heat_map_clear(&s->heat);
    memset(s, 0, sizeof *s);
}

static void largest_clear(struct insight_table *ins)
{
    for (size_t i = 0; i < INSIGHT_LARGEST_ITEMS; i++) {
        for (size_t k = 0; k < ins->largest[i].key_count; k++)
            value_clear(&ins->largest[i].key[k]);
        memset(&ins->largest[i], 0, sizeof ins->largest[i]);
    }
}

/* Zeroes the counters; sources and the lock are left to the caller. */
static void counters_clear(struct insight_table *ins, int64_t now_ms)
{
    ins->since_ms = now_ms;
    memset(ins->requests, 0, sizeof ins->requests);
    ins->items_read = 0;
    atomic_store(&ins->items_returned, 0);
    ins->items_written = 0;
    ins->conditional_check_failed = 0;
    ins->transactions_canceled = 0;
    atomic_store(&ins->stale_reads, 0);
    atomic_store(&ins->gsi_stale_reads, 0);
    atomic_store(&ins->conflicts, 0);
    memset(&ins->batch_get, 0, sizeof ins->batch_get);
    memset(&ins->batch_write, 0, sizeof ins->batch_write);
    memset(&ins->transact_get, 0, sizeof ins->transact_get);
    memset(&ins->transact_write, 0, sizeof ins->transact_write);
    memset(ins->vectors, 0, sizeof ins->vectors);
}

struct insight_table *insight_new(int64_t now_ms)
{
    struct insight_table *ins = xcalloc(1, sizeof *ins);

    atomic_init(&ins->refs, 1);
    checked_mutex_init(&ins->mu);
    counters_clear(ins, now_ms);
    ins->sources[0].used = true; /* the table itself, named "" */
    return ins;
}

struct insight_table *insight_ref(struct insight_table *ins)
{
    atomic_fetch_add_explicit(&ins->refs, 1, memory_order_relaxed);
    return ins;
}

void insight_unref(struct insight_table *ins)
{
    if (!ins || atomic_fetch_sub_explicit(&ins->refs, 1, memory_order_acq_rel) != 1) return;
    for (size_t i = 0; i < INSIGHT_MAX_SOURCES; i++)
        source_clear(&ins->sources[i]);
    largest_clear(ins);
    checked_mutex_destroy(&ins->mu);
    free(ins);
}

void insight_reset(struct insight_table *ins, int64_t now_ms)
{
    assert_lock_exclusive();
    /* The engine lock is exclusive, but a page finishing after it released
     * the lock may still add its returned items: those are atomics. */
    counters_clear(ins, now_ms);
    largest_clear(ins);
    for (size_t i = 0; i < INSIGHT_MAX_SOURCES; i++)
        source_clear(&ins->sources[i]);
    ins->sources[0].used = true;
}

void insight_lock(struct insight_table *ins)
{
    assert_lock_held();
    checked_mutex_lock(&ins->mu);
}

void insight_unlock(struct insight_table *ins)
{
    assert_lock_held();
    assert_mutex_held(&ins->mu);
    checked_mutex_unlock(&ins->mu);
}

struct insight_source *insight_source(struct insight_table *ins, const char *index_name,
                                      bool is_global)
{
    assert_lock_recording(ins);
    struct insight_source *free_slot = NULL;

    if (!index_name) return &ins->sources[0];
    for (size_t i = 1; i < INSIGHT_MAX_SOURCES; i++) {
        struct insight_source *s = &ins->sources[i];
        if (!s->used) {
            if (!free_slot) free_slot = s;
        } else if (strcmp(s->name, index_name) == 0) {
            return s;
        }
    }
    if (!free_slot || strlen(index_name) >= sizeof free_slot->name) return NULL;
    free_slot->used = true;
    free_slot->is_global = is_global;
    strcpy(free_slot->name, index_name);
    heat_map_init(&free_slot->heat);
    return free_slot;
}

struct insight_vector *insight_vector(struct insight_table *ins, const char *name)
{
    assert_lock_recording(ins);
    struct insight_vector *free_slot = NULL;

    for (size_t i = 0; i < INSIGHT_MAX_VECTORS; i++) {
        struct insight_vector *v = &ins->vectors[i];
        if (!v->used) {
            if (!free_slot) free_slot = v;
        } else if (strcmp(v->name, name) == 0) {
            return v;
        }
    }
    if (!free_slot || strlen(name) >= sizeof free_slot->name) return NULL;
    free_slot->used = true;
    strcpy(free_slot->name, name);
    return free_slot;
}

void insight_vector_search(struct insight_table *ins, const char *name, double bytes)
{
    assert_lock_recording(ins);
    struct insight_vector *v = insight_vector(ins, name);
    if (!v) return;
    v->searches++;
    v->search_bytes += bytes;
}

void insight_vector_write(struct insight_table *ins, const char *name, double bytes)
{
    assert_lock_recording(ins);
    struct insight_vector *v = insight_vector(ins, name);
    if (!v) return;
    v->writes++;
    v->write_bytes += bytes;
}

void insight_count_request(struct insight_table *ins, enum insight_op op)
{
    assert_lock_recording(ins);
    ins->requests[op]++;
}

void insight_count_sizes(struct insight_sizes *s, uint64_t items)
{
    assert_lock_held();
    s->count++;
    s->items += items;
    if (items > s->max) s->max = items;
}

void insight_read_item(struct insight_table *ins, uint64_t hash, const struct key_part *pk,
                       double units, bool found, int64_t now_ms)
{
    assert_lock_recording(ins);
    struct insight_source *t = &ins->sources[0];

    t->rcu += units;
    heat_window_record(&t->total, now_ms, units, 0);
    heat_map_record(&t->heat, hash, pk, 1, now_ms, units, 0);
    if (found) {
        ins->items_read++;
        atomic_fetch_add_explicit(&ins->items_returned, 1, memory_order_relaxed);
    }
}

static bool same_key(const struct insight_item *it, uint64_t hash, const struct key_part *key,
                     size_t key_count)
{
    if (!it->used || it->hash != hash || it->key_count != key_count) return false;
    for (size_t k = 0; k < key_count; k++) {
        char text[NUMBER_TEXT_MAX];
        struct value v;
        key_part_value(&key[k], text, &v);
        if (!value_equal(&it->key[k], &v)) return false;
    }
    return true;
}

/* Keeps the five largest items written, each item once at its largest size. */
static void note_size(struct insight_table *ins, uint64_t hash, const struct key_part *key,
                      size_t key_count, size_t bytes)
{
    struct insight_item *l = ins->largest;
    size_t at = INSIGHT_LARGEST_ITEMS, n = INSIGHT_LARGEST_ITEMS;

    if (l[n - 1].used && bytes <= l[n - 1].bytes) return; /* the usual case: one compare */
    for (size_t i = 0; i < n; i++) {
        if (same_key(&l[i], hash, key, key_count)) {
            if (bytes <= l[i].bytes) return;
            at = i; /* it grew: take it out, then place it again */
            break;
        }
    }
    if (at == INSIGHT_LARGEST_ITEMS) at = n - 1; /* drop the smallest */
    for (size_t k = 0; k < l[at].key_count; k++)
        value_clear(&l[at].key[k]);
    memmove(&l[at], &l[at + 1], sizeof *l * (n - 1 - at));
    memset(&l[n - 1], 0, sizeof l[n - 1]);
    for (at = 0; at < n - 1 && l[at].used && l[at].bytes >= bytes; at++) {
    }
    memmove(&l[at + 1], &l[at], sizeof *l * (n - 1 - at));
    l[at].used = true;
    l[at].hash = hash;
    l[at].bytes = bytes;
    l[at].key_count = key_count;
    for (size_t k = 0; k < key_count; k++) {
        char text[NUMBER_TEXT_MAX];
        struct value v;
        key_part_value(&key[k], text, &v);
        value_copy(&l[at].key[k], &v);
    }
}

void insight_write_item(struct insight_table *ins, uint64_t hash, const struct key_part *key,
                        size_t key_count, size_t new_size, bool wrote, double rcu, double wcu,
                        int64_t now_ms)
{
    assert_lock_recording(ins);
    struct insight_source *t = &ins->sources[0];

    t->rcu += rcu;
    t->wcu += wcu;
    heat_window_record(&t->total, now_ms, rcu, wcu);
    heat_map_record(&t->heat, hash, key, 1, now_ms, rcu, wcu);
    if (!wrote) return;
    ins->items_written++;
    t->writes++;
    if (new_size) note_size(ins, hash, key, key_count, new_size);
}

void insight_index_write(struct insight_table *ins, struct insight_source *src, uint64_t hash,
                         const struct key_part *parts, size_t count, double units, int64_t now_ms)
{
    assert_lock_recording(ins);
    if (!src) return;
    src->wcu += units;
    src->writes++;
    heat_window_record(&src->total, now_ms, 0, units);
    /* An LSI has no capacity of its own: it uses the table's. */
    if (!src->is_global) heat_window_record(&ins->sources[0].total, now_ms, 0, units);
    heat_map_record(&src->heat, hash, parts, count, now_ms, 0, units);
}

/* The filter entry for attrs on this kind of read, claimed on first use; NULL when full. */
static struct insight_filter *filter_for(struct insight_source *s, const char *attrs, bool is_scan)
{
    for (size_t i = 0; i < INSIGHT_MAX_FILTERS; i++) {
        struct insight_filter *f = &s->filters[i];
        if (!f->used) {
            f->used = true;
            f->is_scan = is_scan;
            snprintf(f->attrs, sizeof f->attrs, "%s", attrs);
            return f;
        }
        if (f->is_scan == is_scan && strncmp(f->attrs, attrs, sizeof f->attrs - 1) == 0) return f;
    }
    s->filters_untracked++;
    return NULL;
}

void insight_read_page(struct insight_table *ins, const struct insight_page_read *r,
                       struct insight_page *page)
{
    assert_lock_recording(ins);
    struct insight_source *src = insight_source(ins, r->index_name, r->is_global);
    struct insight_source *table = &ins->sources[0];
    size_t n = 0;

    memset(page, 0, sizeof *page);
    ins->requests[r->is_scan ? INSIGHT_SCAN : INSIGHT_QUERY]++;
    ins->items_read += r->items_read;
    page->returned[n++] = &ins->items_returned;
    if (r->table_units > 0) table->rcu += r->table_units;
    /* The table's window is its capacity pool, which its LSIs share. */
    if (r->table_units > 0 || (r->index_name && !r->is_global))
        heat_window_record(&table->total, r->now_ms,
                           r->table_units + (r->is_global ? 0 : r->index_units), 0);
    if (src) {
        struct insight_reads *reads = r->is_scan ? &src->scan : &src->query;
        double units = r->index_name ? r->index_units : r->table_units;
        if (r->index_name) {
            src->rcu += units;
            heat_window_record(&src->total, r->now_ms, units, 0);
        }
        reads->requests++;
        reads->items_read += r->items_read;
        reads->bytes_read += r->bytes_read;
        reads->units += units;
        page->returned[n++] = &reads->items_returned;
        if (r->parts)
            heat_map_record(&src->heat, r->hash, r->parts, r->part_count, r->now_ms, units, 0);
        if (r->filter_attrs) {
            struct insight_filter *f = filter_for(src, r->filter_attrs, r->is_scan);
            if (f) {
                f->requests++;
                f->items_read += r->items_read;
                page->returned[n++] = &f->items_returned;
            }
        }
    }
    page->ins = insight_ref(ins);
}

void insight_page_finish(struct insight_page *page, uint64_t returned)
{
    if (!page->ins) return;
    for (size_t i = 0; i < 3; i++) {
        if (page->returned[i])
            atomic_fetch_add_explicit(page->returned[i], returned, memory_order_relaxed);
    }
    insight_unref(page->ins);
    memset(page, 0, sizeof *page);
}
