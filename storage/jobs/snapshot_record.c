/*
 * snapshot_record.c - freeing snapshots (snapshot_record.h). The engine lock
 * is held exclusively by every caller: stream copies and item references are
 * let go of here.
 */
#include "storage/jobs/snapshot_record.h"

#include "storage/base/lock_check.h"
#include "storage/table/table.h"

#include <stdlib.h>
#include <string.h>

void snapshot_refs_free(struct item **items, size_t item_count, struct history_entry *history,
                        size_t history_count)
{
    for (size_t i = 0; items && i < item_count; i++)
        item_unref(items[i]);
    free(items);
    for (size_t i = 0; i < history_count; i++) {
        item_unref(history[i].old_item);
        item_unref(history[i].new_item);
    }
    free(history);
}

static void snap_table_clear(struct snap_table *st)
{
    text_buf_clear(&st->record);
    table_share_release(st->share);
    snapshot_refs_free(st->items, st->item_count, st->history, st->history_count);
    for (size_t i = 0; i < st->order_count; i++)
        free(st->orders[i].items);
    free(st->orders);
}

static void snap_namespace_clear(struct snap_namespace *sn)
{
    for (size_t i = 0; i < sn->table_count; i++)
        snap_table_clear(&sn->tables[i]);
    free(sn->tables);
    for (size_t i = 0; i < sn->stream_count; i++)
        stream_snapshot_free(sn->streams[i]);
    free(sn->streams);
    free(sn->id);
}

void snapshot_free(struct snapshot *s)
{
    assert_lock_exclusive();
    if (!s) return;
    for (size_t i = 0; i < s->namespace_count; i++)
        snap_namespace_clear(&s->namespaces[i]);
    free(s->namespaces);
    free(s->name);
    free(s);
}

void snapshot_store_free(struct snapshot_store *st)
{
    assert_lock_exclusive();
    if (!st) return;
    for (size_t i = 0; i < st->count; i++)
        snapshot_free(st->snapshots[i]);
    free(st->snapshots);
    free(st);
}
