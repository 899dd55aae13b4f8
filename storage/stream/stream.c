/*
 * stream.c - DynamoDB Streams: per-stream change logs, shards, sequence
 * numbers, the 24-hour trim and shard iterators; see stream.h.
 *
 * Shape, as AWS shows it (sources in the comments below): a stream is named
 * by the table's LatestStreamArn; it holds shards "shardId-<20-digit creation
 * ms>-<8 hex>" whose ids sort by age, each with a SequenceNumberRange of
 * 21-digit decimal sequence numbers; a shard closes (EndingSequenceNumber)
 * when it rolls over, when the stream is disabled or when the table is
 * deleted, and its child names it as ParentShardId. Sequence numbers come from
 * one counter per db, so they increase across shards and streams, and a child
 * shard's first number is above its parent's last.
 *
 * Records keep references to immutable items: the new and old images as the
 * stream's view type shows them, or a small key-only item when neither is
 * shown. A record is trimmed 24 hours after it was written; a closed shard is
 * forgotten once it has been closed for 24 hours and holds nothing; a disabled
 * stream is forgotten 24 hours after it was disabled.
 *
 * Shard iterators are opaque strings "<stream ARN>|1|<base64>", the form AWS
 * uses (AWS CLI reference, dynamodbstreams get-records example); the base64
 * part holds the shard, the next sequence number to read, the creation time on
 * the engine's clock and a keyed hash, so a forged or mangled iterator is
 * refused rather than trusted.
 *
 * Locking: every db_* entry point here takes db->lock exclusively, because
 * looking at a stream applies the rollover and trim that the clock calls for.
 * Streams calls are rare next to item calls, so readers of items never wait
 * long. The internal functions assume the exclusive lock.
 */
#include "storage/stream/stream.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/db_internal.h"
#include "storage/table/table.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <xxhash.h>

/* Exact texts AWS sends. Sources: "Requested resource not found: Stream: <arn>
 * not found" - an AWS-run test of stream readers (DescribeStream on a missing
 * stream); "Invalid StreamArn" - the AWS SDK for JavaScript v2 integration
 * test against the live service; "The data you are trying to access has been
 * trimmed" and "Requested resource not found: Shard does not exist" - errors
 * quoted from the live service by stream consumers (node-dynamodb-stream
 * issue 13; the Kinesis adapter's shard-end handling); "Invalid ShardId in
 * ShardIterator" - a live-service error quoted in formkiq-core issue 524. The
 * ExpiredIteratorException text is the API reference's description of that
 * exception's message. */
#define MSG_INVALID_ARN      "Invalid StreamArn"
#define MSG_STREAM_NOT_FOUND "Requested resource not found: Stream: %s not found"
#define MSG_SHARD_NOT_FOUND  "Requested resource not found: Shard does not exist"
#define MSG_ITERATOR_SHARD   "Invalid ShardId in ShardIterator"
#define MSG_TRIMMED          "The data you are trying to access has been trimmed"
#define MSG_EXPIRED          "The provided iterator exceeds the maximum age allowed."
/* Not recorded from AWS: Alternator's AWS-run tests only pin the type
 * (ValidationException) for a garbage iterator and sequence number. */
#define MSG_INVALID_ITERATOR "Invalid ShardIterator"
#define MSG_INVALID_SEQUENCE "Invalid SequenceNumber"

/* AWS's sequence numbers have at least 21 digits (SequenceNumber, length 21..40). */
#define SEQUENCE_DIGITS 21

struct stream_record {
    uint64_t seq;
    int64_t created_ms;
    size_t size_bytes;
    enum stream_event event;
    bool by_ttl;
    struct item *old_image; /* held when the view shows it */
    struct item *new_image; /* held when the view shows it */
    struct item *keys_only; /* the key attributes, when neither image is held */
};

struct shard {
    char *id;
    char *parent_id; /* NULL for a stream's first shard */
    int64_t created_ms;
    uint64_t start_seq;
    uint64_t last_seq; /* the last number given out in this shard (start_seq when none) */
    bool closed;
    int64_t closed_ms;
    struct stream_record *records; /* the live records are [head, count) */
    size_t head, count, cap;
    uint64_t trimmed_through; /* the highest sequence number trimmed away; 0 when none */
};

struct stream {
    struct stream_registry *reg;
    char *namespace_id;
    char *arn;
    char *label;
    char *table_name;
    char *region;
    struct key_schema key;
    enum stream_view view;
    int64_t creation_ms;
    bool enabled;
    int64_t disabled_ms;
    struct shard *shards; /* oldest first, which is also shard id order */
    size_t shard_count, shard_cap;
    uint64_t event_seed; /* eventIDs are hashes of (stream, sequence number) */
};

struct stream_registry {
    struct db *db;
    struct stream **streams; /* sorted by (namespace_id, arn) */
    size_t count, cap;
    uint64_t next_seq; /* the next sequence number; never 0 */
    uint64_t secret;   /* keys the iterators' hashes */
};

/* ------------------------------------------------------------------------ */
/* names                                                                     */
/* ------------------------------------------------------------------------ */

const char *stream_status_name(enum stream_status s)
{
    static const char *const names[] = {"ENABLING", "ENABLED", "DISABLING", "DISABLED"};
    return names[s];
}

const char *stream_event_name(enum stream_event e)
{
    static const char *const names[] = {"INSERT", "MODIFY", "REMOVE"};
    return names[e];
}

static bool view_has_new(enum stream_view v)
{
    return v == STREAM_NEW_IMAGE || v == STREAM_NEW_AND_OLD_IMAGES;
}

static bool view_has_old(enum stream_view v)
{
    return v == STREAM_OLD_IMAGE || v == STREAM_NEW_AND_OLD_IMAGES;
}

static void format_seq(uint64_t seq, char out[STREAM_SEQUENCE_TEXT_MAX])
{
    snprintf(out, STREAM_SEQUENCE_TEXT_MAX, "%0*" PRIu64, SEQUENCE_DIGITS, seq);
}

/* Parses a sequence number: 1 to 40 decimal digits. Values beyond uint64
 * saturate (they lie after every number this emulator gives out). */
static bool parse_seq(const char *text, uint64_t *out)
{
    size_t len = strlen(text);
    uint64_t v = 0;

    if (len == 0 || len >= STREAM_SEQUENCE_TEXT_MAX) return false;
    for (size_t i = 0; i < len; i++) {
        unsigned d;
        if (text[i] < '0' || text[i] > '9') return false;
        d = (unsigned) (text[i] - '0');
        v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
    }
    *out = v;
    return true;
}

/* "arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>", loosely:
 * anything else is AWS's "Invalid StreamArn". */
static bool is_stream_arn(const char *arn)
{
    const char *table, *stream;

    if (!arn || strncmp(arn, "arn:", 4) != 0) return false;
    table = strstr(arn, ":table/");
    if (!table) return false;
    stream = strstr(table + 7, "/stream/");
    return stream && stream > table + 7 && stream[8] != '\0';
}

/* ------------------------------------------------------------------------ */
/* lifecycle                                                                 */
/* ------------------------------------------------------------------------ */

static void record_clear(struct stream_record *r)
{
    item_unref(r->old_image);
    item_unref(r->new_image);
    item_unref(r->keys_only);
    memset(r, 0, sizeof *r);
}

static void shard_clear(struct shard *sh)
{
    for (size_t i = sh->head; i < sh->count; i++)
        record_clear(&sh->records[i]);
    free(sh->records);
    free(sh->id);
    free(sh->parent_id);
    memset(sh, 0, sizeof *sh);
}

static void stream_free(struct stream *s)
{
    for (size_t i = 0; i < s->shard_count; i++)
        shard_clear(&s->shards[i]);
    free(s->shards);
    key_schema_clear(&s->key);
    free(s->namespace_id);
    free(s->arn);
    free(s->label);
    free(s->table_name);
    free(s->region);
    free(s);
}

struct stream_registry *stream_registry_new(struct db *db)
{
    struct stream_registry *reg = xcalloc(1, sizeof *reg);

    reg->db = db;
    reg->next_seq = 1;
    if (getrandom(&reg->secret, sizeof reg->secret, 0) != (ssize_t) sizeof reg->secret)
        reg->secret = (uint64_t) (uintptr_t) reg ^ 0x9E3779B97F4A7C15ULL;
    return reg;
}

void stream_registry_free(struct stream_registry *reg)
{
    if (!reg) return;
    for (size_t i = 0; i < reg->count; i++)
        stream_free(reg->streams[i]);
    free(reg->streams);
    free(reg);
}

/* Registry order: namespace, then ARN (ListStreams pages in ARN order). */
static int stream_order(const struct stream *s, const char *namespace_id, const char *arn)
{
    int c = strcmp(s->namespace_id, namespace_id);
    return c ? c : strcmp(s->arn, arn);
}

/* The first position whose stream is >= (namespace_id, arn). */
static size_t registry_lower_bound(const struct stream_registry *reg, const char *namespace_id,
                                   const char *arn)
{
    size_t lo = 0, hi = reg->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (stream_order(reg->streams[mid], namespace_id, arn) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct stream *registry_find(const struct stream_registry *reg, const char *namespace_id,
                                    const char *arn)
{
    size_t pos = registry_lower_bound(reg, namespace_id, arn);
    if (pos < reg->count && stream_order(reg->streams[pos], namespace_id, arn) == 0)
        return reg->streams[pos];
    return NULL;
}

static void registry_remove_at(struct stream_registry *reg, size_t pos)
{
    stream_free(reg->streams[pos]);
    memmove(&reg->streams[pos], &reg->streams[pos + 1],
            sizeof *reg->streams * (reg->count - pos - 1));
    reg->count--;
}

/* ------------------------------------------------------------------------ */
/* shards                                                                    */
/* ------------------------------------------------------------------------ */

/* "shardId-00000001550719748929-e0a2afc5": the creation time in milliseconds,
 * zero-padded to 20 digits, and 8 hex digits (the form of AWS's shard ids, as
 * DescribeStream answers quoted in serverless-plugins issue 36 show). */
static char *new_shard_id(const struct stream *s, int64_t created_ms)
{
    char buf[64];
    uint64_t mix[2] = {(uint64_t) created_ms, (uint64_t) s->shard_count};
    uint32_t suffix = (uint32_t) XXH64(mix, sizeof mix, s->event_seed);

    snprintf(buf, sizeof buf, "shardId-%020" PRId64 "-%08" PRIx32,
             created_ms < 0 ? (int64_t) 0 : created_ms, suffix);
    return xstrdup(buf);
}

static struct shard *open_shard(struct stream *s)
{
    return s->shard_count && !s->shards[s->shard_count - 1].closed ? &s->shards[s->shard_count - 1]
                                                                   : NULL;
}

/* Appends a new open shard (the child of parent_id, when given). */
static void shard_open(struct stream *s, int64_t created_ms, const char *parent_id)
{
    struct shard *sh;

    if (s->shard_count == s->shard_cap) {
        s->shard_cap = s->shard_cap ? s->shard_cap * 2 : 4;
        s->shards = xrealloc(s->shards, sizeof *s->shards * s->shard_cap);
    }
    sh = &s->shards[s->shard_count];
    memset(sh, 0, sizeof *sh);
    sh->id = new_shard_id(s, created_ms);
    sh->parent_id = parent_id ? xstrdup(parent_id) : NULL;
    sh->created_ms = created_ms;
    /* The starting number is reserved for the shard, so that a closed empty
     * shard still has StartingSequenceNumber <= EndingSequenceNumber below
     * its child's start. */
    sh->start_seq = s->reg->next_seq++;
    sh->last_seq = sh->start_seq;
    s->shard_count++;
}

static void shard_close(struct shard *sh, int64_t closed_ms)
{
    sh->closed = true;
    sh->closed_ms = closed_ms;
}

/* Rolls the open shard over as often as the clock says. AWS closes a shard
 * and opens its child about every four hours; when more than a retention
 * period has passed, the shards in between would already be forgotten, so the
 * child opens at the start of the current period directly. */
static void stream_roll_over(struct stream *s, int64_t now_ms)
{
    const int64_t lifetime = DDB_STREAM_SHARD_LIFETIME_MS;
    const int64_t max_chain = DDB_STREAM_RETENTION_MS / DDB_STREAM_SHARD_LIFETIME_MS + 1;
    struct shard *sh;

    while ((sh = open_shard(s)) && now_ms - sh->created_ms >= lifetime) {
        int64_t periods = (now_ms - sh->created_ms) / lifetime;
        int64_t child_ms = sh->created_ms + (periods > max_chain ? periods : 1) * lifetime;
        char *parent = xstrdup(sh->id);

        shard_close(sh, sh->created_ms + lifetime);
        shard_open(s, child_ms, parent); /* may move s->shards */
        free(parent);
    }
}

/* Drops records written more than the retention period ago, then closed
 * shards that have been closed that long and hold nothing more. */
static void stream_trim(struct stream *s, int64_t now_ms)
{
    int64_t horizon = now_ms - DDB_STREAM_RETENTION_MS;
    size_t kept = 0;

    for (size_t i = 0; i < s->shard_count; i++) {
        struct shard *sh = &s->shards[i];
        while (sh->head < sh->count && sh->records[sh->head].created_ms < horizon) {
            sh->trimmed_through = sh->records[sh->head].seq;
            record_clear(&sh->records[sh->head]);
            sh->head++;
        }
        if (sh->head == sh->count) {
            sh->head = sh->count = 0;
        } else if (sh->head > 64 && sh->head * 2 > sh->count) {
            memmove(sh->records, &sh->records[sh->head],
                    sizeof *sh->records * (sh->count - sh->head));
            sh->count -= sh->head;
            sh->head = 0;
        }
        if (sh->closed && sh->closed_ms < horizon && sh->count == 0) {
            shard_clear(sh);
            continue;
        }
        s->shards[kept++] = *sh;
    }
    s->shard_count = kept;
}

static void stream_maintain(struct stream *s, int64_t now_ms)
{
    if (s->enabled) stream_roll_over(s, now_ms);
    stream_trim(s, now_ms);
}

void stream_registry_maintain(struct stream_registry *reg, int64_t now_ms)
{
    size_t i = 0;

    while (i < reg->count) {
        struct stream *s = reg->streams[i];
        if (!s->enabled && s->disabled_ms < now_ms - DDB_STREAM_RETENTION_MS) {
            registry_remove_at(reg, i);
            continue;
        }
        stream_maintain(s, now_ms);
        i++;
    }
}

void stream_registry_drop_namespace(struct stream_registry *reg, const char *namespace_id)
{
    size_t i = 0;

    while (i < reg->count) {
        if (strcmp(reg->streams[i]->namespace_id, namespace_id) == 0) {
            assert(!reg->streams[i]->enabled); /* its table was freed first */
            registry_remove_at(reg, i);
        } else {
            i++;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* opening and closing                                                       */
/* ------------------------------------------------------------------------ */

static struct stream *stream_open(struct stream_registry *reg, const char *namespace_id,
                                  const struct table *t, int64_t now_ms)
{
    struct stream *s = xcalloc(1, sizeof *s);
    size_t pos;

    s->reg = reg;
    s->namespace_id = xstrdup(namespace_id);
    s->arn = xstrdup(t->latest_stream_arn);
    s->label = xstrdup(t->latest_stream_label);
    s->table_name = xstrdup(t->def.name);
    s->region = xstrdup(t->region);
    key_schema_copy(&s->key, &t->def.key);
    s->view = t->def.stream.view;
    s->creation_ms = now_ms;
    s->enabled = true;
    s->event_seed = XXH64(s->arn, strlen(s->arn), reg->secret);
    shard_open(s, now_ms, NULL);

    /* The same ARN again (the same table name re-created in the same
     * millisecond): the newer stream replaces the closed older one. */
    pos = registry_lower_bound(reg, namespace_id, s->arn);
    if (pos < reg->count && stream_order(reg->streams[pos], namespace_id, s->arn) == 0)
        registry_remove_at(reg, pos);
    if (reg->count == reg->cap) {
        reg->cap = reg->cap ? reg->cap * 2 : 8;
        reg->streams = xrealloc(reg->streams, sizeof *reg->streams * reg->cap);
    }
    memmove(&reg->streams[pos + 1], &reg->streams[pos], sizeof *reg->streams * (reg->count - pos));
    reg->streams[pos] = s;
    reg->count++;
    return s;
}

/* Disables a stream: its open shard closes now; everything stays readable
 * for the retention period. */
static void stream_close(struct stream *s, int64_t now_ms)
{
    struct shard *sh;

    if (!s->enabled) return;
    stream_roll_over(s, now_ms);
    sh = open_shard(s);
    if (sh) shard_close(sh, now_ms);
    s->enabled = false;
    s->disabled_ms = now_ms;
}

void stream_sync_table(struct db *db, const char *namespace_id, struct table *t)
{
    const char *want = t->def.stream.enabled ? t->latest_stream_arn : NULL;
    int64_t now_ms = db_now_ms(db);

    if (t->stream && (!want || strcmp(t->stream->arn, want) != 0)) {
        stream_close(t->stream, now_ms);
        t->stream = NULL;
    }
    if (want && !t->stream) t->stream = stream_open(db->streams, namespace_id, t, now_ms);
}

void stream_detach(struct stream *s)
{
    if (s) stream_close(s, db_now_ms(s->reg->db));
}

/* ------------------------------------------------------------------------ */
/* recording                                                                 */
/* ------------------------------------------------------------------------ */

/* The key attributes of item as a new VALUE_M, in key schema order. */
static void item_keys(const struct key_schema *k, const struct item *item, struct value *out)
{
    value_init_map(out);
    for (size_t r = 0; r < 2; r++) {
        size_t count = r == 0 ? k->hash_count : k->range_count;
        for (size_t i = 0; i < count; i++) {
            const char *name = r == 0 ? k->hash_names[i] : k->range_names[i];
            const struct value *v = item_get_cstr(item, name);
            struct value copy;
            if (!v) continue;
            value_copy(&copy, v);
            value_map_set(out, name, strlen(name), &copy);
        }
    }
}

static size_t keys_size(const struct key_schema *k, const struct item *item)
{
    size_t size = 0;
    for (size_t r = 0; r < 2; r++) {
        size_t count = r == 0 ? k->hash_count : k->range_count;
        for (size_t i = 0; i < count; i++) {
            const char *name = r == 0 ? k->hash_names[i] : k->range_names[i];
            const struct value *v = item_get_cstr(item, name);
            if (v) size += strlen(name) + value_size_bytes(v);
        }
    }
    return size;
}

void stream_record_change(struct stream *s, struct item *old_item, struct item *new_item,
                          enum stream_origin origin)
{
    int64_t now_ms;
    struct shard *sh;
    struct stream_record *r;
    const struct item *any;

    assert(s->enabled);
    if (!old_item && !new_item) return;
    /* A write that leaves the item as it was is not a change (Alternator's
     * AWS-run test_streams.py: a second identical PutItem adds no record). */
    if (old_item && new_item && value_equal(&old_item->attrs, &new_item->attrs)) return;

    now_ms = db_now_ms(s->reg->db);
    stream_maintain(s, now_ms);
    sh = open_shard(s);
    assert(sh);
    if (sh->count == sh->cap) {
        sh->cap = sh->cap ? sh->cap * 2 : 16;
        sh->records = xrealloc(sh->records, sizeof *sh->records * sh->cap);
    }
    r = &sh->records[sh->count++];
    memset(r, 0, sizeof *r);
    r->seq = s->reg->next_seq++;
    sh->last_seq = r->seq;
    r->created_ms = now_ms;
    r->event = !old_item   ? STREAM_EVENT_INSERT
               : !new_item ? STREAM_EVENT_REMOVE
                           : STREAM_EVENT_MODIFY;
    r->by_ttl = origin == STREAM_ORIGIN_TTL;
    any = new_item ? new_item : old_item;

    /* SizeBytes is the size of the record's Keys and images by the item-size
     * rules: the Lambda developer guide's sample record (Keys {Id: 101},
     * NewImage {Message: "New item!", Id: 101}) has SizeBytes 26 = 5 + 21. */
    r->size_bytes = keys_size(&s->key, any);
    if (view_has_new(s->view) && new_item) {
        r->new_image = item_ref(new_item);
        r->size_bytes += new_item->size_bytes;
    }
    if (view_has_old(s->view) && old_item) {
        r->old_image = item_ref(old_item);
        r->size_bytes += old_item->size_bytes;
    }
    if (!r->new_image && !r->old_image) {
        struct value keys;
        item_keys(&s->key, any, &keys);
        r->keys_only = item_new(&keys);
    }
}

/* ------------------------------------------------------------------------ */
/* iterators                                                                 */
/* ------------------------------------------------------------------------ */

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const char *data, size_t len)
{
    char *out = xmalloc((len + 2) / 3 * 4 + 1);
    size_t o = 0;

    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t) (unsigned char) data[i] << 16;
        if (i + 1 < len) v |= (uint32_t) (unsigned char) data[i + 1] << 8;
        if (i + 2 < len) v |= (unsigned char) data[i + 2];
        out[o++] = b64_alphabet[(v >> 18) & 63];
        out[o++] = b64_alphabet[(v >> 12) & 63];
        out[o++] = i + 1 < len ? b64_alphabet[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < len ? b64_alphabet[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

/* Decodes strict padded base64 into a new NUL-terminated string; NULL when malformed. */
static char *b64_decode(const char *text)
{
    size_t len = strlen(text), o = 0;
    char *out;

    if (len == 0 || len % 4) return NULL;
    out = xmalloc(len / 4 * 3 + 1);
    for (size_t i = 0; i < len; i += 4) {
        uint32_t v = 0;
        int pad = 0;
        for (size_t j = 0; j < 4; j++) {
            const char *p;
            char c = text[i + j];
            if (c == '=' && i + 4 == len && j >= 2) {
                pad++;
                v <<= 6;
                continue;
            }
            p = c && !pad ? strchr(b64_alphabet, c) : NULL;
            if (!p) {
                free(out);
                return NULL;
            }
            v = (v << 6) | (uint32_t) (p - b64_alphabet);
        }
        out[o++] = (char) (v >> 16);
        if (pad < 2) out[o++] = (char) (v >> 8);
        if (pad < 1) out[o++] = (char) v;
    }
    out[o] = '\0';
    if (strlen(out) != o) { /* an embedded NUL is never ours */
        free(out);
        return NULL;
    }
    return out;
}

static uint64_t iterator_hash(const struct stream_registry *reg, const char *arn,
                              const char *payload)
{
    XXH64_state_t *st = XXH64_createState();
    uint64_t h;

    XXH64_reset(st, reg->secret);
    XXH64_update(st, arn, strlen(arn) + 1);
    XXH64_update(st, payload, strlen(payload));
    h = XXH64_digest(st);
    XXH64_freeState(st);
    return h;
}

static char *make_iterator(const struct stream *s, const struct shard *sh, uint64_t position,
                           int64_t now_ms)
{
    char payload[256], signed_payload[300];
    char *b64, *out;
    size_t len;

    snprintf(payload, sizeof payload, "%s|%" PRIu64 "|%" PRId64, sh->id, position, now_ms);
    snprintf(signed_payload, sizeof signed_payload, "%s|%016" PRIx64, payload,
             iterator_hash(s->reg, s->arn, payload));
    b64 = b64_encode(signed_payload, strlen(signed_payload));
    len = strlen(s->arn) + strlen(b64) + 4;
    out = xmalloc(len);
    snprintf(out, len, "%s|1|%s", s->arn, b64);
    free(b64);
    return out;
}

struct iterator_parts {
    char *arn;      /* owned */
    char *shard_id; /* owned */
    uint64_t position;
    int64_t created_ms;
};

static void iterator_parts_clear(struct iterator_parts *p)
{
    free(p->arn);
    free(p->shard_id);
    memset(p, 0, sizeof *p);
}

/* Splits and verifies an iterator; false when it is not one of ours. */
static bool parse_iterator(const struct stream_registry *reg, const char *iterator,
                           struct iterator_parts *out)
{
    const char *bar = strchr(iterator, '|');
    char *payload = NULL, *fields[4], *save = NULL, *end;
    size_t n = 0;
    unsigned long long hash;
    bool ok = false;

    memset(out, 0, sizeof *out);
    if (!bar || strncmp(bar, "|1|", 3) != 0) return false;
    out->arn = xmemdup(iterator, (size_t) (bar - iterator));
    payload = b64_decode(bar + 3);
    if (!payload) goto out;
    {
        /* Only the canonical encoding is ours: base64 leaves unused bits in a
         * final character, and an iterator edited there must not decode to the
         * same payload. */
        char *canonical = b64_encode(payload, strlen(payload));
        bool same = strcmp(canonical, bar + 3) == 0;
        free(canonical);
        if (!same) goto out;
    }
    for (char *f = strtok_r(payload, "|", &save); f && n < 4; f = strtok_r(NULL, "|", &save))
        fields[n++] = f;
    if (n != 4 || strtok_r(NULL, "|", &save)) goto out;
    hash = strtoull(fields[3], &end, 16);
    if (*end || strlen(fields[3]) != 16) goto out;
    fields[3][-1] = '\0'; /* the hashed part is "shard|position|created" */
    fields[1][-1] = '|';
    fields[2][-1] = '|';
    if (iterator_hash(reg, out->arn, payload) != (uint64_t) hash) goto out;
    fields[1][-1] = '\0';
    fields[2][-1] = '\0';
    if (!parse_seq(fields[1], &out->position)) goto out;
    out->created_ms = strtoll(fields[2], &end, 10);
    if (*end) goto out;
    out->shard_id = xstrdup(fields[0]);
    ok = true;
out:
    free(payload);
    if (!ok) iterator_parts_clear(out);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* the Streams API                                                           */
/* ------------------------------------------------------------------------ */

void stream_summary_clear(struct stream_summary *s)
{
    free(s->arn);
    free(s->table_name);
    free(s->label);
    memset(s, 0, sizeof *s);
}

int db_list_streams(struct db *db, const struct db_scope *scope, const char *table_name,
                    const char *exclusive_start_arn, size_t limit, struct stream_summary **out,
                    size_t *count, char **last_evaluated_arn, struct ddb_error *err)
{
    struct stream_registry *reg = db->streams;
    size_t pos, n = 0;

    assert(limit > 0);
    *out = NULL;
    *count = 0;
    *last_evaluated_arn = NULL;
    if (exclusive_start_arn && !is_stream_arn(exclusive_start_arn))
        return ddb_error_set(err, DDB_VALIDATION, MSG_INVALID_ARN);
    db_write_lock(db);
    stream_registry_maintain(reg, db_now_ms(db));
    pos = registry_lower_bound(reg, scope->namespace_id,
                               exclusive_start_arn ? exclusive_start_arn : "");
    if (exclusive_start_arn && pos < reg->count &&
        stream_order(reg->streams[pos], scope->namespace_id, exclusive_start_arn) == 0)
        pos++;
    *out = xcalloc(limit ? limit : 1, sizeof **out);
    for (; pos < reg->count && strcmp(reg->streams[pos]->namespace_id, scope->namespace_id) == 0;
         pos++) {
        const struct stream *s = reg->streams[pos];
        if (table_name && strcmp(s->table_name, table_name) != 0) continue;
        if (n == limit) {
            /* Another stream follows the full page. */
            *last_evaluated_arn = xstrdup((*out)[n - 1].arn);
            break;
        }
        (*out)[n].arn = xstrdup(s->arn);
        (*out)[n].table_name = xstrdup(s->table_name);
        (*out)[n].label = xstrdup(s->label);
        n++;
    }
    *count = n;
    db_unlock(db);
    return 0;
}

void stream_desc_clear(struct stream_desc *d)
{
    for (size_t i = 0; i < d->shard_count; i++) {
        free(d->shards[i].shard_id);
        free(d->shards[i].parent_shard_id);
    }
    free(d->shards);
    free(d->arn);
    free(d->label);
    free(d->table_name);
    key_schema_clear(&d->key);
    free(d->last_evaluated_shard_id);
    memset(d, 0, sizeof *d);
}

/* The scope's stream named arn, maintained up to now (every stream is: few
 * exist, and a lookup must not find one that has expired); NULL with the
 * error set. */
static struct stream *find_stream(struct db *db, const struct db_scope *scope, const char *arn,
                                  int64_t now_ms, struct ddb_error *err)
{
    struct stream *s;

    stream_registry_maintain(db->streams, now_ms); /* forgets streams disabled 24 h ago */
    s = registry_find(db->streams, scope->namespace_id, arn);
    if (!s) {
        ddb_error_set(err, DDB_RESOURCE_NOT_FOUND, MSG_STREAM_NOT_FOUND, arn);
        return NULL;
    }
    stream_maintain(s, now_ms);
    return s;
}

static struct shard *find_shard(struct stream *s, const char *shard_id)
{
    for (size_t i = 0; i < s->shard_count; i++) {
        if (strcmp(s->shards[i].id, shard_id) == 0) return &s->shards[i];
    }
    return NULL;
}

static void describe_shard(const struct shard *sh, struct shard_desc *out)
{
    out->shard_id = xstrdup(sh->id);
    out->parent_shard_id = sh->parent_id ? xstrdup(sh->parent_id) : NULL;
    format_seq(sh->start_seq, out->starting_sequence);
    if (sh->closed)
        format_seq(sh->last_seq, out->ending_sequence);
    else
        out->ending_sequence[0] = '\0';
}

int db_describe_stream(struct db *db, const struct db_scope *scope, const char *arn, size_t limit,
                       const char *exclusive_start_shard_id, const char *child_of_shard_id,
                       struct stream_desc *out, struct ddb_error *err)
{
    struct stream *s;
    int rc = -1;

    assert(limit > 0);
    memset(out, 0, sizeof *out);
    if (!is_stream_arn(arn)) return ddb_error_set(err, DDB_VALIDATION, MSG_INVALID_ARN);
    db_write_lock(db);
    s = find_stream(db, scope, arn, db_now_ms(db), err);
    if (!s) goto out;
    out->arn = xstrdup(s->arn);
    out->label = xstrdup(s->label);
    out->table_name = xstrdup(s->table_name);
    out->status = s->enabled ? STREAM_ENABLED : STREAM_DISABLED;
    out->view = s->view;
    out->creation_ms = s->creation_ms;
    key_schema_copy(&out->key, &s->key);
    out->shards = xcalloc(s->shard_count ? s->shard_count : 1, sizeof *out->shards);
    /* Shard ids sort by creation time, so "after the start id" is a string
     * comparison; an unknown start id simply lists the shards after it (AWS
     * answers an empty page for a made-up id: Alternator's AWS-run tests). */
    for (size_t i = 0; i < s->shard_count; i++) {
        const struct shard *sh = &s->shards[i];
        if (exclusive_start_shard_id && strcmp(sh->id, exclusive_start_shard_id) <= 0) continue;
        if (child_of_shard_id && (!sh->parent_id || strcmp(sh->parent_id, child_of_shard_id) != 0))
            continue;
        if (out->shard_count == limit) {
            out->last_evaluated_shard_id = xstrdup(out->shards[limit - 1].shard_id);
            break;
        }
        describe_shard(sh, &out->shards[out->shard_count++]);
    }
    rc = 0;
out:
    db_unlock(db);
    if (rc != 0) stream_desc_clear(out);
    return rc;
}

int db_get_shard_iterator(struct db *db, const struct db_scope *scope, const char *arn,
                          const char *shard_id, enum shard_iterator_type type,
                          const char *sequence_number, char **iterator, struct ddb_error *err)
{
    struct stream *s;
    struct shard *sh;
    uint64_t seq = 0, position = 0;
    int64_t now_ms;
    int rc = -1;

    *iterator = NULL;
    if (!is_stream_arn(arn)) return ddb_error_set(err, DDB_VALIDATION, MSG_INVALID_ARN);
    db_write_lock(db);
    now_ms = db_now_ms(db);
    s = find_stream(db, scope, arn, now_ms, err);
    if (!s) goto out;
    sh = find_shard(s, shard_id);
    if (!sh) {
        ddb_error_set(err, DDB_RESOURCE_NOT_FOUND, MSG_SHARD_NOT_FOUND);
        goto out;
    }
    switch (type) {
    case SHARD_ITERATOR_TRIM_HORIZON:
        position = sh->trimmed_through >= sh->start_seq ? sh->trimmed_through + 1 : sh->start_seq;
        break;
    case SHARD_ITERATOR_LATEST:
        /* Just after the most recent record: everything written from now on. */
        position = sh->closed ? sh->last_seq + 1 : s->reg->next_seq;
        break;
    case SHARD_ITERATOR_AT_SEQUENCE_NUMBER:
    case SHARD_ITERATOR_AFTER_SEQUENCE_NUMBER:
        if (!sequence_number || !parse_seq(sequence_number, &seq)) {
            ddb_error_set(err, DDB_VALIDATION, MSG_INVALID_SEQUENCE);
            goto out;
        }
        position = type == SHARD_ITERATOR_AT_SEQUENCE_NUMBER || seq == UINT64_MAX ? seq : seq + 1;
        /* "You request a shard iterator with a sequence number older than the
         * trim point (24 hours)" (API reference, TrimmedDataAccessException). */
        if (position <= sh->trimmed_through) {
            ddb_error_set(err, DDB_TRIMMED_DATA_ACCESS, MSG_TRIMMED);
            goto out;
        }
        break;
    }
    *iterator = make_iterator(s, sh, position, now_ms);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

void stream_records_clear(struct stream_records *r)
{
    for (size_t i = 0; i < r->count; i++) {
        value_clear(&r->records[i].keys);
        item_unref(r->records[i].new_image);
        item_unref(r->records[i].old_image);
    }
    free(r->records);
    free(r->region);
    free(r->next_iterator);
    memset(r, 0, sizeof *r);
}

/* The first live record of sh with a sequence number >= position. */
static size_t first_record_at(const struct shard *sh, uint64_t position)
{
    size_t lo = sh->head, hi = sh->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sh->records[mid].seq < position)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void export_record(const struct stream *s, const struct stream_record *r,
                          struct stream_record_out *out)
{
    uint64_t h1 = XXH64(&r->seq, sizeof r->seq, s->event_seed);
    uint64_t h2 = XXH64(&r->seq, sizeof r->seq, s->event_seed ^ 0xA5A5A5A5A5A5A5A5ULL);
    const struct item *keys_from = r->new_image   ? r->new_image
                                   : r->old_image ? r->old_image
                                                  : r->keys_only;

    memset(out, 0, sizeof *out);
    /* eventID: 32 hex digits, as AWS's records carry. */
    snprintf(out->event_id, sizeof out->event_id, "%016" PRIx64 "%016" PRIx64, h1, h2);
    out->event = r->event;
    out->by_ttl = r->by_ttl;
    out->created_ms = r->created_ms;
    format_seq(r->seq, out->sequence_number);
    out->size_bytes = r->size_bytes;
    out->view = s->view;
    item_keys(&s->key, keys_from, &out->keys);
    out->new_image = item_ref(r->new_image);
    out->old_image = item_ref(r->old_image);
}

int db_get_records(struct db *db, const struct db_scope *scope, const char *iterator, size_t limit,
                   struct stream_records *out, struct ddb_error *err)
{
    struct iterator_parts it;
    struct stream *s;
    struct shard *sh;
    int64_t now_ms;
    size_t first, bytes = 0, cap;
    uint64_t next;
    int rc = -1;

    memset(out, 0, sizeof *out);
    db_write_lock(db);
    if (!parse_iterator(db->streams, iterator, &it)) {
        ddb_error_set(err, DDB_VALIDATION, MSG_INVALID_ITERATOR);
        goto out;
    }
    now_ms = db_now_ms(db);
    /* "A shard iterator expires 15 minutes after it is retrieved" (API reference). */
    if (now_ms - it.created_ms > DDB_STREAM_ITERATOR_TTL_MS) {
        ddb_error_set(err, DDB_EXPIRED_ITERATOR, MSG_EXPIRED);
        goto out;
    }
    s = find_stream(db, scope, it.arn, now_ms, err);
    if (!s) goto out;
    sh = find_shard(s, it.shard_id);
    if (!sh) {
        ddb_error_set(err, DDB_RESOURCE_NOT_FOUND, MSG_ITERATOR_SHARD);
        goto out;
    }
    if (it.position <= sh->trimmed_through) {
        ddb_error_set(err, DDB_TRIMMED_DATA_ACCESS, MSG_TRIMMED);
        goto out;
    }
    first = first_record_at(sh, it.position);
    cap = sh->count - first < limit ? sh->count - first : limit;
    out->records = xcalloc(cap ? cap : 1, sizeof *out->records);
    next = it.position;
    /* "GetRecords can retrieve a maximum of 1 MB of data or 1000 stream
     * records, whichever comes first" (API reference); at least one record. */
    for (size_t i = first; i < sh->count && out->count < limit; i++) {
        const struct stream_record *r = &sh->records[i];
        if (out->count && bytes + r->size_bytes > DDB_MAX_GET_RECORDS_BYTES) break;
        bytes += r->size_bytes;
        export_record(s, r, &out->records[out->count++]);
        next = r->seq + 1;
    }
    out->region = xstrdup(s->region);
    /* NextShardIterator is absent once a closed shard has been read to its end
     * (API reference: "If set to null, the shard has been closed"; AWS omits
     * the member, Alternator's test_streams_closed_read). */
    if (!(sh->closed && next > sh->last_seq))
        out->next_iterator = make_iterator(s, sh, next, now_ms);
    rc = 0;
out:
    db_unlock(db);
    iterator_parts_clear(&it);
    if (rc != 0) stream_records_clear(out);
    return rc;
}
