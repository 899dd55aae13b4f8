/*
 * stream_copy.c - copies of streams for the emulator's snapshots and forks
 * (storage/engine/snapshots.c).
 *
 * A snapshot holds every stream of a namespace as it was, detached from the
 * registry: the shards with their ids, sequence numbers and trim points, and
 * the records, whose images are references to immutable items. The records
 * themselves are shared, not copied: a shard and its copies read one array
 * (struct record_share) until one of them adds or trims a record, which
 * copies it first (shard_records.c; a record costs nothing more until then). Restoring or forking
 * puts a copy back into the registry under a namespace, so ListStreams, DescribeStream and
 * GetRecords answer what they answered when the snapshot was taken. The registry's next sequence
 * number is never moved back: a change after a restore gets a number above every number ever handed
 * out.
 *
 * The caller holds db->lock exclusively for every function here.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/stream/stream.h"
#include "storage/stream/stream_internal.h"

#include <stdlib.h>
#include <string.h>

/* A copy of s for namespace_id, in no registry, whose shards share s's
 * records (copied by whichever first adds or trims one: shard_unshare). */
static struct stream *copy_stream(struct stream *s, const char *namespace_id)
{
    struct stream *c = xcalloc(1, sizeof *c);

    c->namespace_id = xstrdup(namespace_id);
    c->arn = xstrdup(s->arn);
    c->label = xstrdup(s->label);
    c->table_name = xstrdup(s->table_name);
    c->region = xstrdup(s->region);
    key_schema_copy(&c->key, &s->key);
    c->view = s->view;
    c->creation_ms = s->creation_ms;
    c->enabled = s->enabled;
    c->enabling_until_ms = s->enabling_until_ms;
    c->disabled_ms = s->disabled_ms;
    c->event_seed = s->event_seed;
    c->shards = xcalloc(s->shard_count ? s->shard_count : 1, sizeof *c->shards);
    c->shard_count = c->shard_cap = s->shard_count;
    for (size_t i = 0; i < s->shard_count; i++) {
        struct shard *from = &s->shards[i];
        struct shard *to = &c->shards[i];

        *to = *from;
        to->id = xstrdup(from->id);
        to->parent_id = from->parent_id ? xstrdup(from->parent_id) : NULL;
        shard_share_records(from, to);
    }
    return c;
}

size_t stream_snapshot_namespace(const struct stream_registry *reg, const char *namespace_id,
                                 struct stream ***out)
{
    assert_lock_exclusive();
    size_t n = 0;

    *out = NULL;
    for (size_t i = 0; i < reg->count; i++) {
        struct stream *s = reg->streams[i]; /* its shards start sharing */
        if (strcmp(s->namespace_id, namespace_id) != 0) continue;
        *out = xrealloc(*out, sizeof **out * (n + 1));
        (*out)[n++] = copy_stream(s, namespace_id);
    }
    return n;
}

void stream_snapshot_free(struct stream *copy)
{
    assert_lock_exclusive();
    if (copy) stream_free(copy);
}

struct stream *stream_adopt(struct stream_registry *reg, const char *namespace_id,
                            struct journal_file *journal, struct stream *copy)
{
    assert_lock_exclusive();
    struct stream *s = copy_stream(copy, namespace_id);

    s->reg = reg;
    s->journal = journal;
    registry_insert(reg, s);
    persist_stream(s);
    for (size_t i = 0; journal && i < s->shard_count; i++)
        for (size_t k = 0; k < s->shards[i].count; k++)
            persist_record(s, &s->shards[i].records[k]);
    return s;
}

const char *stream_copy_arn(const struct stream *copy)
{
    assert_lock_exclusive();
    return copy->arn;
}

const char *stream_copy_table_name(const struct stream *copy)
{
    assert_lock_exclusive();
    return copy->table_name;
}

size_t stream_copy_record_count(const struct stream *copy)
{
    assert_lock_exclusive();
    size_t n = 0;

    for (size_t i = 0; i < copy->shard_count; i++)
        n += copy->shards[i].count - copy->shards[i].head;
    return n;
}
