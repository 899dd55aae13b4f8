/*
 * stream_read.c - the reading side of DynamoDB Streams: ListStreams,
 * DescribeStream, shard iterators and GetRecords over the change log; see
 * stream.h.
 *
 * Shard iterators are opaque strings "<stream ARN>|1|<base64>", the form AWS
 * uses (AWS CLI reference, dynamodbstreams get-records example); the base64
 * part holds the shard, the next sequence number to read, the creation time on
 * the engine's clock and a keyed hash, so a forged or mangled iterator is
 * refused rather than trusted.
 *
 * Looking at a stream applies the rollover and trim that the clock calls for,
 * so the caller holds db->lock exclusively for every function here (Streams
 * calls are rare next to item calls, so readers of items never wait long).
 */
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"
#include "storage/base/text.h"
#include "storage/stream/stream.h"
#include "storage/stream/stream_internal.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Exact texts AWS sends (its "not found" texts for a stream and a shard are
 * base/error.c's). Sources: "Invalid StreamArn" - the AWS SDK for JavaScript
 * v2 integration test against the live service; "The data you are trying to
 * access has been trimmed" - an error quoted from the live service by stream
 * consumers (node-dynamodb-stream issue 13); "Invalid ShardId in
 * ShardIterator" - a live-service error quoted in formkiq-core issue 524. The
 * ExpiredIteratorException text is the API reference's description of that
 * exception's message. */
#define MSG_INVALID_ARN    "Invalid StreamArn"
#define MSG_ITERATOR_SHARD "Invalid ShardId in ShardIterator"
#define MSG_TRIMMED        "The data you are trying to access has been trimmed"
#define MSG_EXPIRED        "The provided iterator exceeds the maximum age allowed."
/* Not recorded from AWS: Alternator's AWS-run tests only pin the type
 * (ValidationException) for a garbage iterator and sequence number. */
#define MSG_INVALID_ITERATOR "Invalid ShardIterator"
#define MSG_INVALID_SEQUENCE "Invalid SequenceNumber"

/* AWS's sequence numbers have at least 21 digits (SequenceNumber, length 21..40). */
#define SEQUENCE_DIGITS 21

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
/* iterators                                                                 */
/* ------------------------------------------------------------------------ */

/* Decodes an iterator's base64 part into a new NUL-terminated string; NULL
 * when it is not valid base64 or holds a NUL (never ours). */
static char *b64_decode(const char *text)
{
    size_t len = strlen(text), out_len;
    char *out;

    if (len == 0 || !text_base64_valid(text, len)) return NULL;
    out = text_base64_decode(text, len, &out_len);
    if (strlen(out) != out_len) {
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

static char *make_iterator(const struct stream_registry *reg, const struct stream *s,
                           const struct shard *sh, uint64_t position, int64_t now_ms)
{
    char payload[256], signed_payload[300];
    char *b64, *out;
    size_t len;

    snprintf(payload, sizeof payload, "%s|%" PRIu64 "|%" PRId64, sh->id, position, now_ms);
    snprintf(signed_payload, sizeof signed_payload, "%s|%016" PRIx64, payload,
             iterator_hash(reg, s->arn, payload));
    b64 = text_base64_encode_new(signed_payload, strlen(signed_payload));
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
        char *canonical = text_base64_encode_new(payload, strlen(payload));
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

int stream_list(struct stream_registry *reg, const char *namespace_id, const char *table_name,
                const char *exclusive_start_arn, size_t limit, int64_t now_ms,
                struct stream_summary **out, size_t *count, char **last_evaluated_arn,
                struct ddb_error *err)
{
    assert_lock_exclusive();
    size_t pos, n = 0;

    assert(limit > 0);
    *out = NULL;
    *count = 0;
    *last_evaluated_arn = NULL;
    if (exclusive_start_arn && !is_stream_arn(exclusive_start_arn))
        return ddb_error_set(err, DDB_VALIDATION, MSG_INVALID_ARN);
    stream_registry_maintain(reg, now_ms);
    pos = registry_lower_bound(reg, namespace_id, exclusive_start_arn ? exclusive_start_arn : "");
    if (exclusive_start_arn && pos < reg->count &&
        stream_order(reg->streams[pos], namespace_id, exclusive_start_arn) == 0)
        pos++;
    *out = xcalloc(limit ? limit : 1, sizeof **out);
    for (; pos < reg->count && strcmp(reg->streams[pos]->namespace_id, namespace_id) == 0; pos++) {
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

/* The namespace's stream named arn, maintained up to now (every stream is:
 * few exist, and a lookup must not find one that has expired); NULL with the
 * error set. */
static struct stream *find_stream(struct stream_registry *reg, const char *namespace_id,
                                  const char *arn, int64_t now_ms, struct ddb_error *err)
{
    struct stream *s;

    stream_registry_maintain(reg, now_ms); /* forgets streams disabled 24 h ago */
    s = registry_find(reg, namespace_id, arn);
    if (!s) {
        ddb_error_stream_not_found(err, arn);
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
    out->parent_shard_id = xstrdup_or_null(sh->parent_id);
    format_seq(sh->start_seq, out->starting_sequence);
    if (sh->closed)
        format_seq(sh->last_seq, out->ending_sequence);
    else
        out->ending_sequence[0] = '\0';
}

int stream_describe(struct stream_registry *reg, const char *namespace_id, const char *arn,
                    size_t limit, const char *exclusive_start_shard_id,
                    const char *child_of_shard_id, int64_t now_ms, struct stream_desc *out,
                    struct ddb_error *err)
{
    assert_lock_exclusive();
    struct stream *s;
    int rc = -1;

    assert(limit > 0);
    memset(out, 0, sizeof *out);
    if (!is_stream_arn(arn)) return ddb_error_set(err, DDB_VALIDATION, MSG_INVALID_ARN);
    s = find_stream(reg, namespace_id, arn, now_ms, err);
    if (!s) goto out;
    out->arn = xstrdup(s->arn);
    out->label = xstrdup(s->label);
    out->table_name = xstrdup(s->table_name);
    out->status = !s->enabled                     ? STREAM_DISABLED
                  : now_ms < s->enabling_until_ms ? STREAM_ENABLING
                                                  : STREAM_ENABLED;
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
    if (rc != 0) stream_desc_clear(out);
    return rc;
}

int stream_shard_iterator(struct stream_registry *reg, const char *namespace_id, const char *arn,
                          const char *shard_id, enum shard_iterator_type type,
                          const char *sequence_number, int64_t now_ms, char **iterator,
                          struct ddb_error *err)
{
    assert_lock_exclusive();
    struct stream *s;
    struct shard *sh;
    uint64_t seq = 0, position = 0;

    *iterator = NULL;
    if (!is_stream_arn(arn)) return ddb_error_set(err, DDB_VALIDATION, MSG_INVALID_ARN);
    s = find_stream(reg, namespace_id, arn, now_ms, err);
    if (!s) return -1;
    sh = find_shard(s, shard_id);
    if (!sh) return ddb_error_shard_not_found(err);
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
        if (!sequence_number || !parse_seq(sequence_number, &seq))
            return ddb_error_set(err, DDB_VALIDATION, MSG_INVALID_SEQUENCE);
        position = type == SHARD_ITERATOR_AT_SEQUENCE_NUMBER || seq == UINT64_MAX ? seq : seq + 1;
        /* "You request a shard iterator with a sequence number older than the
         * trim point (24 hours)" (API reference, TrimmedDataAccessException). */
        if (position <= sh->trimmed_through)
            return ddb_error_set(err, DDB_TRIMMED_DATA_ACCESS, MSG_TRIMMED);
        break;
    }
    *iterator = make_iterator(reg, s, sh, position, now_ms);
    return 0;
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
    stream_item_keys(&s->key, keys_from, &out->keys);
    out->new_image = item_ref(r->new_image);
    out->old_image = item_ref(r->old_image);
}

int stream_read_records(struct stream_registry *reg, const char *namespace_id, const char *iterator,
                        size_t limit, int64_t now_ms, struct stream_records *out,
                        struct ddb_error *err)
{
    assert_lock_exclusive();
    struct iterator_parts it;
    struct stream *s;
    struct shard *sh;
    size_t first, bytes = 0, cap;
    uint64_t next;
    int rc = -1;

    memset(out, 0, sizeof *out);
    if (!parse_iterator(reg, iterator, &it)) {
        ddb_error_set(err, DDB_VALIDATION, MSG_INVALID_ITERATOR);
        goto out;
    }
    /* "A shard iterator expires 15 minutes after it is retrieved" (API reference). */
    if (now_ms - it.created_ms > DDB_STREAM_ITERATOR_TTL_MS) {
        ddb_error_set(err, DDB_EXPIRED_ITERATOR, MSG_EXPIRED);
        goto out;
    }
    s = find_stream(reg, namespace_id, it.arn, now_ms, err);
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
        out->next_iterator = make_iterator(reg, s, sh, next, now_ms);
    rc = 0;
out:
    iterator_parts_clear(&it);
    if (rc != 0) stream_records_clear(out);
    return rc;
}
