/*
 * shard_records.c - a shard's array of records: dropping a record's images,
 * and sharing the array between a stream and its copies in snapshots,
 * restores and forks (stream_internal.h, struct record_share).
 *
 * A copy (stream_copy.c) reads the array of the shard it copies, which
 * reads it on too; the first of them to add or trim a record copies it
 * (each record's struct, its images by reference), or takes it as it is
 * when it is the only holder left. So saving, restoring and forking a
 * stream of 100,000 records copies none (bench/README.md, "Snapshots").
 * The caller holds the stream's table's lock exclusively (or the catalog
 * lock so); shard_share_records, which adds a holder, the catalog lock
 * exclusively, so a writer that finds itself the only holder stays so.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/stream/stream_internal.h"

#include <stdlib.h>
#include <string.h>

void record_clear(struct stream_record *r)
{
    assert_table_writing();
    item_unref(r->old_image);
    item_unref(r->new_image);
    item_unref(r->keys_only);
    memset(r, 0, sizeof *r);
}

static struct item *ref_or_null(struct item *item)
{
    return item ? item_ref(item) : NULL;
}

/* Drops one reference to rs; the last frees the records and their images. */
static void release_records(struct record_share *rs)
{
    if (atomic_fetch_sub(&rs->refs, 1) != 1) return;
    for (size_t i = rs->head; i < rs->count; i++)
        record_clear(&rs->records[i]);
    free(rs->records);
    free(rs);
}

void shard_share_records(struct shard *from, struct shard *to)
{
    assert_lock_exclusive();
    struct record_share *rs = from->shared;

    if (!rs) {
        rs = xcalloc(1, sizeof *rs);
        atomic_init(&rs->refs, 1);
        rs->records = from->records;
        rs->head = from->head;
        rs->count = from->count;
        from->shared = rs;
    }
    atomic_fetch_add(&rs->refs, 1);
    to->shared = rs;
    to->records = from->records;
    to->head = from->head;
    to->count = to->cap = from->count;
}

void shard_unshare(struct shard *sh)
{
    assert_table_writing();
    struct record_share *rs = sh->shared;
    struct stream_record *own;
    size_t n;

    if (!rs) return;
    sh->shared = NULL;
    if (atomic_load(&rs->refs) == 1) {
        /* No other holder (a new one needs this lock): the array is sh's. */
        free(rs);
        return;
    }
    n = sh->count - sh->head;
    own = xmalloc(sizeof *own * (n ? n : 1));
    for (size_t k = 0; k < n; k++) {
        struct stream_record r = sh->records[sh->head + k];
        r.old_image = ref_or_null(r.old_image);
        r.new_image = ref_or_null(r.new_image);
        r.keys_only = ref_or_null(r.keys_only);
        own[k] = r;
    }
    sh->records = own;
    sh->head = 0;
    sh->count = sh->cap = n;
    release_records(rs);
}

void shard_detach(struct shard *sh)
{
    assert_table_writing();
    if (!sh->shared) return;
    release_records(sh->shared);
    sh->shared = NULL;
    sh->records = NULL;
    sh->head = sh->count = sh->cap = 0;
}
