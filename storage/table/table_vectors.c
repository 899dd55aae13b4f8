/*
 * table_vectors.c - a table's vector indexes: made with the table, kept in
 * step from table_commit_write(), added and removed by UpdateTable; see
 * table.h ("vector indexes") and vector_index.h.
 *
 * t->vectors[i] describes t->def.vectors[i]; when the definitions move (an
 * index added or removed), every index is pointed at its definition again.
 * Locking: a function that reads the indexes asserts the engine lock held,
 * one that changes them asserts it exclusively; init and clear work on a
 * table nobody else can reach yet or any more and need no lock.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/table/table.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Needs no lock: the table is not yet shared. */
void table_vectors_init(struct table *t)
{
    t->vector_count = t->def.vector_count;
    t->vectors = t->vector_count ? xcalloc(t->vector_count, sizeof *t->vectors) : NULL;
    for (size_t i = 0; i < t->vector_count; i++)
        vector_index_init(&t->vectors[i], &t->def.vectors[i], &t->def);
}

/* Needs no lock: the table is no longer shared. */
void table_vectors_clear(struct table *t)
{
    for (size_t i = 0; i < t->vector_count; i++)
        vector_index_clear(&t->vectors[i]);
    free(t->vectors);
    t->vectors = NULL;
    t->vector_count = 0;
}

struct vector_index *table_find_vector(const struct table *t, const char *name)
{
    assert_lock_held();
    for (size_t i = 0; i < t->vector_count; i++) {
        if (strcmp(t->def.vectors[i].name, name) == 0) return &t->vectors[i];
    }
    return NULL;
}

int table_vectors_check_item(const struct table *t, const struct value *attrs,
                             struct ddb_error *err)
{
    assert_table_held(&t->lock);
    for (size_t i = 0; i < t->def.vector_count; i++) {
        if (vector_index_check_item(&t->def.vectors[i], &t->def, attrs, err) != 0) return -1;
    }
    return 0;
}

void table_vectors_apply_write(struct table *t, struct item *old_item, struct item *new_item)
{
    assert_table_exclusive(&t->lock);
    for (size_t i = 0; i < t->vector_count; i++)
        vector_index_apply_write(&t->vectors[i], old_item, new_item);
}

struct index_desc *table_vectors_describe(const struct table *t)
{
    assert_table_held(&t->lock);
    struct index_desc *descs;

    assert_lock_held();
    if (!t->vector_count) return NULL;
    descs = xcalloc(t->vector_count, sizeof *descs);
    for (size_t i = 0; i < t->vector_count; i++) {
        const struct vector_index *vi = &t->vectors[i];
        size_t len = strlen(t->arn) + strlen(vi->def->name) + 8;
        descs[i].status = vi->status;
        descs[i].backfilling = vi->backfilling;
        descs[i].show_backfilling = vi->report_backfilling;
        descs[i].item_count = (int64_t) vi->item_count;
        descs[i].size_bytes = vi->size_bytes;
        descs[i].arn = xmalloc(len);
        snprintf(descs[i].arn, len, "%s/index/%s", t->arn, vi->def->name);
    }
    return descs;
}

static void repoint(struct table *t)
{
    for (size_t i = 0; i < t->vector_count; i++)
        t->vectors[i].def = &t->def.vectors[i];
}

struct vector_index *table_add_vector(struct table *t, struct vector_index_def *def)
{
    assert_lock_exclusive();
    size_t n = t->def.vector_count;
    struct vector_index *vi;

    t->def.vectors = xrealloc(t->def.vectors, sizeof *t->def.vectors * (n + 1));
    t->def.vectors[n] = *def;
    memset(def, 0, sizeof *def);
    t->def.vector_count++;
    t->vectors = xrealloc(t->vectors, sizeof *t->vectors * (n + 1));
    t->vector_count++;
    repoint(t);
    vi = &t->vectors[n];
    vector_index_init(vi, &t->def.vectors[n], &t->def);
    for (struct skiplist_node *node = skiplist_first(&t->items); node; node = skiplist_next(node))
        vector_index_apply_write(vi, NULL, node->item);
    return vi;
}

void table_remove_vector(struct table *t, const char *name)
{
    assert_lock_exclusive();
    size_t i;

    for (i = 0; i < t->vector_count; i++) {
        if (strcmp(t->def.vectors[i].name, name) == 0) break;
    }
    assert(i < t->vector_count);
    vector_index_clear(&t->vectors[i]);
    vector_index_def_clear(&t->def.vectors[i]);
    memmove(&t->vectors[i], &t->vectors[i + 1], sizeof *t->vectors * (t->vector_count - i - 1));
    memmove(&t->def.vectors[i], &t->def.vectors[i + 1],
            sizeof *t->def.vectors * (t->def.vector_count - i - 1));
    t->vector_count--;
    t->def.vector_count--;
    if (!t->vector_count) {
        free(t->vectors);
        free(t->def.vectors);
        t->vectors = NULL;
        t->def.vectors = NULL;
    }
    repoint(t);
}
