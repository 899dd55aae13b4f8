/*
 * table.c - a table's items, key checks and the single write path; see table.h.
 */
#include "storage/table/table.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"
#include "storage/expr/expr.h"
#include "storage/stream/stream.h"
#include "storage/table/versions.h"

#include <assert.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

static char *new_uuid(void)
{
    unsigned char b[16];
    char *out = xmalloc(37);
    if (getrandom(b, sizeof b, 0) != (ssize_t) sizeof b) {
        /* getrandom on Linux does not fail for 16 bytes once the pool is seeded. */
        for (size_t i = 0; i < sizeof b; i++)
            b[i] = (unsigned char) rand();
    }
    b[6] = (unsigned char) ((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char) ((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
    return out;
}

/* Creates the empty index structures for a new table's indexes. */
static void table_init_indexes(struct table *t)
{
    size_t n = 0;
    t->index_count = t->def.gsi_count + t->def.lsi_count;
    t->indexes = t->index_count ? xcalloc(t->index_count, sizeof *t->indexes) : NULL;
    for (size_t i = 0; i < t->def.gsi_count; i++)
        index_init(&t->indexes[n++], &t->def.gsis[i], &t->def, t->next_index_id++);
    for (size_t i = 0; i < t->def.lsi_count; i++)
        index_init(&t->indexes[n++], &t->def.lsis[i], &t->def, t->next_index_id++);
}

struct table_index *table_find_index(const struct table *t, const char *name)
{
    assert_lock_held();
    for (size_t i = 0; i < t->index_count; i++) {
        if (strcmp(t->indexes[i].def->name, name) == 0) return &t->indexes[i];
    }
    return NULL;
}

struct table_index *table_find_index_by_id(const struct table *t, uint64_t id)
{
    assert_lock_held();
    for (size_t i = 0; i < t->index_count; i++) {
        if (t->indexes[i].id == id) return &t->indexes[i];
    }
    return NULL;
}

/* Points every index at its definition again after def.gsis or def.lsis moved. */
static void repoint_index_defs(struct table *t)
{
    for (size_t i = 0; i < t->def.gsi_count; i++)
        t->indexes[i].def = &t->def.gsis[i];
    for (size_t i = 0; i < t->def.lsi_count; i++)
        t->indexes[t->def.gsi_count + i].def = &t->def.lsis[i];
}

void table_define_attr(struct table *t, const char *name, enum value_type type)
{
    assert_lock_exclusive();
    enum value_type existing;
    if (table_def_attr_type(&t->def, name, &existing)) return;
    t->def.attr_defs =
        xrealloc(t->def.attr_defs, sizeof *t->def.attr_defs * (t->def.attr_def_count + 1));
    t->def.attr_defs[t->def.attr_def_count].name = xstrdup(name);
    t->def.attr_defs[t->def.attr_def_count].type = type;
    t->def.attr_def_count++;
}

struct table_index *table_add_gsi(struct table *t, struct index_def *def)
{
    assert_lock_exclusive();
    size_t g = t->def.gsi_count;
    struct table_index *indexes;

    table_unshare(t); /* a share holds the rows of the indexes it was given */
    indexes = xcalloc(t->index_count + 1, sizeof *indexes);

    /* Existing indexes move as they are (their skiplists do not point back at them);
     * the GSI goes after the others, as DescribeTable lists them in creation order. */
    if (g) memcpy(indexes, t->indexes, sizeof *indexes * g);
    if (t->def.lsi_count)
        memcpy(indexes + g + 1, t->indexes + g, sizeof *indexes * t->def.lsi_count);
    free(t->indexes);
    t->indexes = indexes;
    t->index_count++;
    t->def.gsis = xrealloc(t->def.gsis, sizeof *t->def.gsis * (g + 1));
    t->def.gsis[g] = *def;
    memset(def, 0, sizeof *def);
    t->def.gsi_count++;
    repoint_index_defs(t);
    index_init(&t->indexes[g], &t->def.gsis[g], &t->def, t->next_index_id++);
    return &t->indexes[g];
}

static bool attr_in_use(const struct table *t, const char *name)
{
    if (key_schema_has(&t->def.key, name)) return true;
    for (size_t i = 0; i < t->def.gsi_count; i++) {
        if (key_schema_has(&t->def.gsis[i].key, name)) return true;
    }
    for (size_t i = 0; i < t->def.lsi_count; i++) {
        if (key_schema_has(&t->def.lsis[i].key, name)) return true;
    }
    for (size_t i = 0; i < t->def.vector_count; i++) {
        for (size_t j = 0; j < t->def.vectors[i].search_count; j++) {
            if (strcmp(t->def.vectors[i].search[j].name, name) == 0) return true;
        }
    }
    return false;
}

void table_remove_gsi(struct table *t, const char *name)
{
    assert_lock_exclusive();
    size_t g, kept = 0;

    table_unshare(t);
    for (g = 0; g < t->def.gsi_count; g++) {
        if (strcmp(t->def.gsis[g].name, name) == 0) break;
    }
    assert(g < t->def.gsi_count);
    index_clear(&t->indexes[g]);
    memmove(&t->indexes[g], &t->indexes[g + 1], sizeof *t->indexes * (t->index_count - g - 1));
    t->index_count--;
    index_def_clear(&t->def.gsis[g]);
    memmove(&t->def.gsis[g], &t->def.gsis[g + 1], sizeof *t->def.gsis * (t->def.gsi_count - g - 1));
    t->def.gsi_count--;
    if (t->def.gsi_count == 0) {
        free(t->def.gsis);
        t->def.gsis = NULL;
    }
    if (t->index_count == 0) {
        free(t->indexes);
        t->indexes = NULL;
    }
    repoint_index_defs(t);
    for (size_t i = 0; i < t->def.attr_def_count; i++) {
        if (attr_in_use(t, t->def.attr_defs[i].name))
            t->def.attr_defs[kept++] = t->def.attr_defs[i];
        else
            free(t->def.attr_defs[i].name);
    }
    t->def.attr_def_count = kept;
}

struct table *table_new(struct table_def *def, const char *region, int64_t now_ms)
{
    assert_lock_exclusive();
    struct table *t = xaligned_alloc(alignof(struct table), sizeof *t);
    size_t arn_len;

    memset(t, 0, sizeof *t);
    pthread_rwlock_init(&t->lock, NULL);
    t->def = *def;
    memset(def, 0, sizeof *def);
    t->region = xstrdup(region);
    arn_len = strlen(region) + strlen(t->def.name) + 64;
    t->arn = xmalloc(arn_len);
    snprintf(t->arn, arn_len, "arn:aws:dynamodb:%s:%s:table/%s", region, DDB_ACCOUNT_ID,
             t->def.name);
    t->table_id = new_uuid();
    t->status = TABLE_ACTIVE;
    t->creation_ms = now_ms;
    /* AWS reports LastUpdateToPayPerRequestDateTime for tables created on demand too. */
    if (t->def.billing == BILLING_PAY_PER_REQUEST) t->billing_last_update_ms = now_ms;
    skiplist_init(&t->items);
    key_index_init(&t->item_keys);
    ttl_index_init(&t->ttl_index);
    collection_sizes_init(&t->collections);
    t->insight = insight_new(now_ms);
    table_throttle_init(&t->throttle);
    t->collection_limit_bytes = DDB_MAX_ITEM_COLLECTION_BYTES;
    history_init(&t->history);
    table_init_indexes(t);
    table_vectors_init(t);
    return t;
}

void table_free(struct table *t, int64_t now_ms)
{
    assert_lock_exclusive();
    if (!t) return;
    table_detach_share(t); /* its rows stay the snapshot's */
    for (size_t i = 0; i < t->index_count; i++)
        index_clear(&t->indexes[i]);
    free(t->indexes);
    collection_sizes_clear(&t->collections);
    ttl_index_clear(&t->ttl_index);
    key_index_clear(&t->item_keys);
    skiplist_clear(&t->items);
    table_def_clear(&t->def);
    free(t->arn);
    free(t->table_id);
    free(t->region);
    free(t->latest_stream_arn);
    free(t->latest_stream_label);
    stream_close(t->stream, now_ms); /* the registry keeps it readable for 24 hours */
    table_throttle_clear(&t->throttle);
    insight_unref(t->insight); /* a page still finishing may hold it a moment longer */
    free(t->ttl.attribute);
    history_clear(&t->history);
    versions_free(t->recent);
    restore_summary_clear(&t->restore);
    pthread_rwlock_destroy(&t->lock);
    table_meta_clear(&t->meta);
    for (size_t i = 0; i < t->deleting_gsi_count; i++) {
        index_def_clear(&t->deleting_gsis[i].def);
        free(t->deleting_gsis[i].arn);
    }
    free(t->deleting_gsis);
    table_vectors_clear(t);
    free(t);
}

enum table_status table_status_at(const struct table *t, int64_t now_ms)
{
    assert_lock_held();
    if (t->transient_until_ms && now_ms < t->transient_until_ms) return t->transient;
    return TABLE_ACTIVE;
}

bool table_is_deleting(const struct table *t)
{
    assert_lock_held();
    return t->transient_until_ms && t->transient == TABLE_DELETING;
}

/* Descriptions of count indexes starting at t->indexes[first]. */
static struct index_desc *describe_indexes(const struct table *t, size_t first, size_t count)
{
    struct index_desc *descs;
    if (!count) return NULL;
    descs = xcalloc(count, sizeof *descs);
    for (size_t i = 0; i < count; i++) {
        const struct table_index *idx = &t->indexes[first + i];
        size_t len = strlen(t->arn) + strlen(idx->def->name) + 8;
        descs[i].status = idx->status;
        descs[i].backfilling = idx->backfilling;
        descs[i].show_backfilling = idx->report_backfilling;
        descs[i].item_count = (int64_t) idx->rows.count;
        descs[i].size_bytes = idx->size_bytes;
        descs[i].arn = xmalloc(len);
        snprintf(descs[i].arn, len, "%s/index/%s", t->arn, idx->def->name);
    }
    return descs;
}

void table_describe(const struct table *t, struct table_desc *out)
{
    assert_table_held(&t->lock);
    memset(out, 0, sizeof *out);
    table_def_copy(&out->def, &t->def);
    out->status = t->status;
    out->arn = xstrdup(t->arn);
    out->table_id = xstrdup(t->table_id);
    out->region = xstrdup(t->region);
    out->creation_ms = t->creation_ms;
    out->item_count = (int64_t) t->items.count;
    out->size_bytes = t->size_bytes;
    out->billing_last_update_ms = t->billing_last_update_ms;
    out->throughput_last_increase_ms = t->throughput_last_increase_ms;
    out->throughput_last_decrease_ms = t->throughput_last_decrease_ms;
    out->throughput_decreases_today = t->throughput_decreases_today;
    out->gsi_descs = describe_indexes(t, 0, t->def.gsi_count);
    out->lsi_descs = describe_indexes(t, t->def.gsi_count, t->def.lsi_count);
    out->vector_descs = table_vectors_describe(t);
    out->latest_stream_arn = xstrdup_or_null(t->latest_stream_arn);
    out->latest_stream_label = xstrdup_or_null(t->latest_stream_label);
    restore_summary_copy(&out->restore, &t->restore);
}

static enum value_type key_type(const struct table *t, const char *name)
{
    enum value_type type = VALUE_S;
    bool found = table_def_attr_type(&t->def, name, &type);
    assert(found); /* api/ checked that every key attribute is defined */
    (void) found;
    return type;
}

void table_row_key(const struct table *t, const struct value *attrs, struct key_numbers *nums,
                   struct row_key *out)
{
    assert_lock_held();
    const struct key_schema *k = &t->def.key;
    const struct value *pk = value_map_get(attrs, k->hash_names[0], strlen(k->hash_names[0]));

    assert(pk);
    key_part_of(pk, nums->n[0], &out->parts[0]);
    out->part_count = 1;
    if (k->range_count) {
        const struct value *sk = value_map_get(attrs, k->range_names[0], strlen(k->range_names[0]));
        assert(sk);
        key_part_of(sk, nums->n[1], &out->parts[1]);
        out->part_count = 2;
    }
    out->hash = key_hash(out->parts, 1);
}

void table_item_key(const struct table *t, const struct item *item, struct row_key *out)
{
    assert_lock_held();
    const struct key_schema *k = &t->def.key;
    const char *names[2] = {k->hash_names[0], k->range_count ? k->range_names[0] : NULL};
    bool found;

    out->part_count = 1 + k->range_count;
    found = item_key_parts(item, names, out->part_count, out->parts);
    assert(found); /* a stored item has its table's key (table_check_stored_item) */
    (void) found;
    out->hash = key_hash(out->parts, 1);
}

/* Size limits of key values (ServiceQuotas.html: partition key 2048 bytes,
 * sort key 1024 bytes; numbers are not limited by bytes). Texts as AWS sends
 * them, including the missing space in "limit of2048". */
static int check_key_size(const struct value *v, bool is_hash, struct ddb_error *err)
{
    if (v->type == VALUE_N) return 0;
    if (is_hash && v->u.str.len > DDB_MAX_PARTITION_KEY_BYTES)
        return ddb_error_set(err, DDB_VALIDATION,
                             "One or more parameter values were invalid: Size of hashkey has "
                             "exceeded the maximum size limit of2048 bytes");
    if (!is_hash && v->u.str.len > DDB_MAX_SORT_KEY_BYTES)
        return ddb_error_set(err, DDB_VALIDATION,
                             "One or more parameter values were invalid: Aggregated size of all "
                             "range keys has exceeded the size limit of 1024 bytes");
    return 0;
}

/* AWS words this rule two ways: for an item being written "are not valid."
 * (recorded PutItem/BatchWriteItem responses), for a Key parameter "were
 * invalid:" (dynalite test/getItem.js, recorded). */
static int check_not_empty(const struct value *v, const char *name, bool in_item,
                           struct ddb_error *err)
{
    if ((v->type == VALUE_S || v->type == VALUE_B) && v->u.str.len == 0)
        return ddb_error_set(err, DDB_VALIDATION,
                             "One or more parameter values %s The AttributeValue for a key "
                             "attribute cannot contain an empty %s value. Key: %s",
                             in_item ? "are not valid." : "were invalid:",
                             v->type == VALUE_S ? "string" : "binary", name);
    return 0;
}

int table_check_key(const struct table *t, const struct value *key, struct ddb_error *err)
{
    assert_lock_held();
    const struct key_schema *k = &t->def.key;
    const char *names[2] = {k->hash_names[0], k->range_count ? k->range_names[0] : NULL};
    size_t expected = k->range_count ? 2 : 1;

    if (key->u.map.count != expected)
        return ddb_error_set(err, DDB_VALIDATION,
                             "The provided key element does not match the schema");
    for (size_t i = 0; i < expected; i++) {
        const struct value *v = value_map_get(key, names[i], strlen(names[i]));
        if (!v || v->type != key_type(t, names[i]))
            return ddb_error_set(err, DDB_VALIDATION,
                                 "The provided key element does not match the schema");
    }
    for (size_t i = 0; i < expected; i++) {
        const struct value *v = value_map_get(key, names[i], strlen(names[i]));
        if (check_not_empty(v, names[i], false, err) != 0) return -1;
        if (check_key_size(v, i == 0, err) != 0) return -1;
    }
    return 0;
}

/* Secondary index key attributes need not be present (sparse indexes), but
 * when present they must have the declared type, must not be empty, and must
 * fit the key size limits of their role (2048 bytes for a partition key
 * attribute, 1024 for a sort key attribute; numbers are not limited by bytes).
 * The size text is AWS's, quoted in public reports of real responses
 * ("Size limit exceeded for Index Key c Actual Size: 43398 bytes Max Size:
 * 2048 bytes IndexName: index4", dynalite issue 35). A multi-attribute key
 * is limited attribute by attribute: AWS's rule for the combined size is not
 * recorded. */
static int check_index_keys(const struct table *t, const struct index_def *idx,
                            const struct value *attrs, struct ddb_error *err)
{
    static const size_t max_bytes[2] = {DDB_MAX_PARTITION_KEY_BYTES, DDB_MAX_SORT_KEY_BYTES};
    const struct key_schema *k = &idx->key;
    for (size_t r = 0; r < 2; r++) {
        size_t count = r == 0 ? k->hash_count : k->range_count;
        for (size_t i = 0; i < count; i++) {
            const char *name = r == 0 ? k->hash_names[i] : k->range_names[i];
            const struct value *v = value_map_get(attrs, name, strlen(name));
            enum value_type type;
            if (!v) continue;
            type = key_type(t, name);
            if (v->type != type)
                return ddb_error_set(err, DDB_VALIDATION,
                                     "One or more parameter values were invalid: Type mismatch "
                                     "for Index Key %s Expected: %s Actual: %s IndexName: %s",
                                     name, value_type_name(type), value_type_name(v->type),
                                     idx->name);
            if ((v->type == VALUE_S || v->type == VALUE_B) && v->u.str.len == 0)
                return ddb_error_set(err, DDB_VALIDATION,
                                     "One or more parameter values are not valid. A value "
                                     "specified for a secondary index key is not supported. The "
                                     "AttributeValue for a key attribute cannot contain an empty "
                                     "%s value. IndexName: %s, IndexKey: %s",
                                     v->type == VALUE_S ? "string" : "binary", idx->name, name);
            if (v->type != VALUE_N && v->u.str.len > max_bytes[r])
                return ddb_error_set(err, DDB_VALIDATION,
                                     "One or more parameter values were invalid: Size limit "
                                     "exceeded for Index Key %s Actual Size: %zu bytes Max Size: "
                                     "%zu bytes IndexName: %s",
                                     name, v->u.str.len, max_bytes[r], idx->name);
        }
    }
    return 0;
}

int table_check_stored_item(const struct table *t, const struct value *attrs, struct ddb_error *err)
{
    assert_table_held(&t->lock);
    const struct key_schema *k = &t->def.key;
    const char *names[2] = {k->hash_names[0], k->range_count ? k->range_names[0] : NULL};
    size_t count = k->range_count ? 2 : 1;

    for (size_t i = 0; i < count; i++) {
        const struct value *v = value_map_get(attrs, names[i], strlen(names[i]));
        enum value_type type = key_type(t, names[i]);
        if (!v)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "One or more parameter values were invalid: Missing the key %s "
                                 "in the item",
                                 names[i]);
        if (v->type != type)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "One or more parameter values were invalid: Type mismatch for "
                                 "key %s expected: %s actual: %s",
                                 names[i], value_type_name(type), value_type_name(v->type));
        if (check_not_empty(v, names[i], true, err) != 0) return -1;
        if (check_key_size(v, i == 0, err) != 0) return -1;
    }
    return 0;
}

int table_check_item(const struct table *t, const struct value *attrs, struct ddb_error *err)
{
    assert_table_held(&t->lock);
    if (table_check_stored_item(t, attrs, err) != 0) return -1;
    for (size_t i = 0; i < t->def.gsi_count; i++) {
        if (check_index_keys(t, &t->def.gsis[i], attrs, err) != 0) return -1;
    }
    for (size_t i = 0; i < t->def.lsi_count; i++) {
        if (check_index_keys(t, &t->def.lsis[i], attrs, err) != 0) return -1;
    }
    return table_vectors_check_item(t, attrs, err);
}

/*
 * "Key attributes must be scalars; list random access '[]' and map lookup '.'
 * are not allowed: Key: a" ("IndexKey: d" for an index key), for update
 * paths, projections and filters alike; the table's keys first, then each
 * index's in definition order, GSIs before LSIs (dynalite db/index.js
 * validateKeyPaths, recorded against AWS: test/updateItem.js, getItem.js,
 * query.js, scan.js).
 */
int table_check_key_paths(const struct table *t, const struct expr *e, struct ddb_error *err)
{
    assert_lock_held();
    static const char fmt[] = "Key attributes must be scalars; list random access '[]' and map "
                              "lookup '.' are not allowed: %s: %s";
    const struct key_schema *k = &t->def.key;

    if (!e) return 0;
    for (size_t i = 0; i < 1 + k->range_count; i++) {
        const char *name = i == 0 ? k->hash_names[0] : k->range_names[0];
        if (expr_uses_nested(e, name, strlen(name)))
            return ddb_error_set(err, DDB_VALIDATION, fmt, "Key", name);
    }
    for (size_t g = 0; g < t->def.gsi_count + t->def.lsi_count; g++) {
        const struct index_def *idx =
            g < t->def.gsi_count ? &t->def.gsis[g] : &t->def.lsis[g - t->def.gsi_count];
        for (size_t i = 0; i < idx->key.hash_count + idx->key.range_count; i++) {
            const char *name = i < idx->key.hash_count
                                   ? idx->key.hash_names[i]
                                   : idx->key.range_names[i - idx->key.hash_count];
            if (expr_uses_nested(e, name, strlen(name)))
                return ddb_error_set(err, DDB_VALIDATION, fmt, "IndexKey", name);
        }
    }
    return 0;
}

struct item *table_find(const struct table *t, const struct row_key *key)
{
    assert_table_held(&t->lock);
    struct skiplist_node *n = key_index_find(&t->item_keys, key_index_hash(key), key);
    return n ? n->item : NULL;
}

/* What one item adds to its item collection: its own size plus its LSI entries
 * (developerguide/LSI.html#LSI.ItemCollections: the collection's size is that of
 * the items sharing the partition key and of their local secondary index entries). */
static int64_t collection_share(const struct table *t, const struct item *item)
{
    int64_t size;
    if (!item) return 0;
    size = (int64_t) item->size_bytes;
    for (size_t i = 0; i < t->def.lsi_count; i++) {
        const struct table_index *idx = &t->indexes[t->def.gsi_count + i];
        struct row_key key;
        if (index_item_key(idx, item, &key)) size += (int64_t) index_projected_size(idx, item);
    }
    return size;
}

int64_t table_collection_size(const struct table *t, const struct value *attrs)
{
    assert_table_held(&t->lock);
    const char *hash_name = t->def.key.hash_names[0];
    const struct value *pk = value_map_get(attrs, hash_name, strlen(hash_name));
    uint8_t number[NUMBER_COMPARABLE_MAX];
    struct key_part part;

    assert(pk);
    key_part_of(pk, number, &part);
    return collection_sizes_get(&t->collections, key_hash(&part, 1), pk);
}

int table_check_collection(const struct table *t, const struct item *old,
                           const struct item *new_item, struct ddb_error *err)
{
    assert_table_held(&t->lock);
    int64_t delta;
    if (!t->def.lsi_count || !new_item) return 0;
    delta = collection_share(t, new_item) - collection_share(t, old);
    if (delta <= 0) return 0;
    /* The text of developerguide/Programming.Errors.html for this exception. */
    if (table_collection_size(t, item_attrs(new_item)) + delta > t->collection_limit_bytes)
        return ddb_error_set(err, DDB_ITEM_COLLECTION_SIZE_LIMIT_EXCEEDED,
                             "Collection size exceeded.");
    return 0;
}

/* One day of the engine's clock. */
#define DAY_MS (24LL * 60 * 60 * 1000)

/* Appends a committed change to the point-in-time history (and its file),
 * and drops from its front what has left the recovery window. */
static void record_history(struct table *t, struct item *old_item, struct item *new_item,
                           int64_t now_ms)
{
    const struct history_entry *e;
    uint64_t upto = 0;

    if (!old_item && !new_item) return; /* deleting nothing changes nothing */
    e = history_append(&t->history, now_ms, old_item, new_item);

    if (t->journal) journal_put_history(t->journal, t->uid, e->seq, e->ms, old_item, new_item);
    if (history_trim(&t->history, now_ms - t->pitr.recovery_days * DAY_MS, &upto) && t->journal)
        journal_trim_history(t->journal, t->uid, upto);
}

/* Adds delta to the item collection of key's partition. */
static void add_to_collection(struct table *t, const struct row_key *key, int64_t delta)
{
    char text[NUMBER_TEXT_MAX];
    struct value pk;

    key_part_value(&key->parts[0], text, &pk);
    collection_sizes_add(&t->collections, key->hash, &pk, delta);
}

void table_commit_write(struct table *t, const struct row_key *key, struct item *new_item,
                        const struct commit_info *info)
{
    assert_table_exclusive(&t->lock);
    uint64_t exact_hash = key_index_hash(key);
    struct skiplist_node *node;
    struct item *old_item;
    struct row_key new_key;

    table_unshare(t); /* before any node is looked up: the copy has its own */
    node = key_index_find(&t->item_keys, exact_hash, key);
    /* Keep the old item alive until every structure has let go of it. */
    old_item = node ? item_ref(node->item) : NULL;

    if (t->def.lsi_count)
        add_to_collection(t, key, collection_share(t, new_item) - collection_share(t, old_item));
    for (size_t i = 0; i < t->index_count; i++)
        index_apply_write(&t->indexes[i], key, old_item, new_item);
    table_vectors_apply_write(t, old_item, new_item);
    if (old_item) t->size_bytes -= (int64_t) old_item->size_bytes;
    if (!new_item) {
        if (node) {
            key_index_remove(&t->item_keys, exact_hash, node);
            skiplist_remove_node(&t->items, node);
        }
    } else {
        /* The node finds its key in the item it holds (skiplist.h). */
        table_item_key(t, new_item, &new_key);
        t->size_bytes += (int64_t) new_item->size_bytes;
        if (node)
            skiplist_replace(node, &new_key, new_item);
        else
            key_index_add(&t->item_keys, exact_hash,
                          skiplist_insert(&t->items, &new_key, new_item));
    }
    if (t->ttl.enabled)
        ttl_index_apply_write(&t->ttl_index, t->ttl.attribute, t->ttl.attribute_len, key, old_item,
                              new_item ? &new_key : NULL, new_item);
    /* One stream record and one journal record per committed change, in commit order. */
    if (t->stream) stream_record_change(t->stream, old_item, new_item, info->origin, info->now_ms);
    if (t->journal) journal_put_item(t->journal, t->uid, key, new_item);
    if (t->pitr.enabled && !info->rebuilding) record_history(t, old_item, new_item, info->now_ms);
    if (t->recent && !info->rebuilding)
        versions_record(t->recent, &t->def.key, old_item, new_item, info->now_ms);
    item_unref(old_item);
}

/* The items of the rows of sl, in its order (*count of them; owned array). */
static struct item **list_items(const struct skiplist *sl, size_t *count)
{
    struct item **items = xmalloc(sizeof *items * (sl->count ? sl->count : 1));
    size_t n = 0;

    for (struct skiplist_node *node = sl->head ? skiplist_first(sl) : NULL; node;
         node = skiplist_next(node))
        items[n++] = node->item;
    *count = n;
    return items;
}

void table_row_orders(const struct table *t, struct row_order **out, size_t *count)
{
    assert_table_held(&t->lock);
    struct row_order *o = xcalloc(t->index_count + 1, sizeof *o);

    for (size_t i = 0; i < t->index_count; i++)
        if (!t->indexes[i].backfilling) {
            o[i].items = list_items(&t->indexes[i].rows, &o[i].count);
            o[i].saved = true;
        }
    if (t->ttl.enabled) {
        o[t->index_count].items = list_items(&t->ttl_index.rows, &o[t->index_count].count);
        o[t->index_count].saved = true;
    }
    *out = o;
    *count = t->index_count + 1;
}

void table_commit_sorted(struct table *t, struct item *const *items, size_t count,
                         const struct row_order *orders, const struct commit_info *info)
{
    assert_table_exclusive(&t->lock);
    struct skiplist_builder b;
    struct row_key *keys;

    table_unshare(t);
    if (t->items.count) {
        for (size_t i = 0; i < count; i++) {
            struct row_key key;
            table_item_key(t, items[i], &key);
            table_commit_write(t, &key, item_ref(items[i]), info);
        }
        return;
    }
    /* An index being backfilled takes only the rows behind its cursor: it
     * goes row by row as table_commit_write would take it. */
    for (size_t i = 0; i < t->index_count; i++)
        if (!t->indexes[i].backfilling) {
            if (orders && orders[i].saved)
                index_load(&t->indexes[i], orders[i].items, orders[i].count, true);
            else
                index_load(&t->indexes[i], items, count, false);
        }
    keys = xmalloc(sizeof *keys * (count ? count : 1));
    key_index_reserve(&t->item_keys, count);
    skiplist_builder_begin(&b, &t->items);
    for (size_t i = 0; i < count; i++) {
        struct item *item = items[i];
        struct row_key key;
        table_item_key(t, item, &key);
        keys[i] = key;
        if (t->def.lsi_count) add_to_collection(t, &key, collection_share(t, item));
        for (size_t k = 0; k < t->index_count; k++)
            if (t->indexes[k].backfilling) index_apply_write(&t->indexes[k], &key, NULL, item);
        table_vectors_apply_write(t, NULL, item);
        t->size_bytes += (int64_t) item->size_bytes;
        key_index_add(&t->item_keys, key_index_hash(&key),
                      skiplist_builder_append(&b, &key, item_ref(item)));
        if (t->stream) stream_record_change(t->stream, NULL, item, info->origin, info->now_ms);
        if (t->journal) journal_put_item(t->journal, t->uid, &key, item);
        if (t->pitr.enabled && !info->rebuilding) record_history(t, NULL, item, info->now_ms);
        if (t->recent && !info->rebuilding)
            versions_record(t->recent, &t->def.key, NULL, item, info->now_ms);
    }
    /* Each row's expiry decides its place there: sorted once too. */
    if (t->ttl.enabled) {
        const struct row_order *o = orders ? &orders[t->index_count] : NULL;
        if (o && o->saved) {
            /* The keys of the TTL index's rows, in its order. */
            for (size_t i = 0; i < o->count; i++)
                table_item_key(t, o->items[i], &keys[i]);
            ttl_index_load(&t->ttl_index, t->ttl.attribute, t->ttl.attribute_len, keys, o->items,
                           o->count, true);
        } else {
            ttl_index_load(&t->ttl_index, t->ttl.attribute, t->ttl.attribute_len, keys, items,
                           count, false);
        }
    }
    free(keys);
}

void table_drop_history(struct table *t)
{
    assert_lock_exclusive();
    history_clear(&t->history);
    if (t->journal) journal_trim_history(t->journal, t->uid, UINT64_MAX);
}

/* Puts the item (a new reference) into a scratch skiplist keyed as t's rows. */
static void scratch_put(const struct table *t, struct skiplist *sl, struct item *item)
{
    struct row_key key;
    struct skiplist_node *node;

    table_item_key(t, item, &key);
    node = skiplist_find(sl, &key);
    if (node)
        skiplist_replace(node, &key, item_ref(item));
    else
        skiplist_insert(sl, &key, item_ref(item));
}

void table_items_at(const struct table *t, int64_t at_ms, struct item ***items, size_t *count)
{
    assert_table_held(&t->lock);
    const struct history *h = &t->history;
    struct skiplist scratch;
    size_t n = 0;

    /* Today's items, then every change made after at_ms undone, newest first. */
    skiplist_init(&scratch);
    for (struct skiplist_node *node = skiplist_first(&t->items); node; node = skiplist_next(node))
        scratch_put(t, &scratch, node->item);
    for (size_t i = h->end; i > h->start && h->entries[i - 1].ms > at_ms; i--) {
        const struct history_entry *e = &h->entries[i - 1];
        if (e->old_item) {
            scratch_put(t, &scratch, e->old_item);
        } else {
            struct row_key key;
            table_item_key(t, e->new_item, &key);
            skiplist_remove(&scratch, &key);
        }
    }
    *items = xmalloc(sizeof **items * (scratch.count ? scratch.count : 1));
    for (struct skiplist_node *node = skiplist_first(&scratch); node; node = skiplist_next(node))
        (*items)[n++] = item_ref(node->item);
    *count = n;
    skiplist_clear(&scratch);
}

/* Stream ARNs and labels as DynamoDB forms them: the label is the stream's
 * creation time in ISO 8601 with milliseconds, appended to the table ARN. */
void table_start_stream(struct table *t, int64_t now_ms)
{
    assert_lock_exclusive();
    char label[40];
    time_t secs = (time_t) (now_ms / 1000);
    struct tm tm;
    size_t len;

    gmtime_r(&secs, &tm);
    len = strftime(label, sizeof label, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(label + len, sizeof label - len, ".%03d", (int) (now_ms % 1000));
    free(t->latest_stream_label);
    free(t->latest_stream_arn);
    t->latest_stream_label = xstrdup(label);
    len = strlen(t->arn) + strlen(label) + 16;
    t->latest_stream_arn = xmalloc(len);
    snprintf(t->latest_stream_arn, len, "%s/stream/%s", t->arn, label);
}

void table_sync_stream(struct table *t, struct stream_registry *reg, const char *namespace_id,
                       int64_t now_ms)
{
    assert_lock_exclusive();
    const char *want = t->def.stream.enabled ? t->latest_stream_arn : NULL;

    if (t->stream && (!want || strcmp(stream_arn(t->stream), want) != 0)) {
        stream_close(t->stream, now_ms);
        t->stream = NULL;
    }
    if (want && !t->stream) {
        struct stream_source src = {
            .arn = t->latest_stream_arn,
            .label = t->latest_stream_label,
            .table_name = t->def.name,
            .region = t->region,
            .key = &t->def.key,
            .view = t->def.stream.view,
            .journal = t->journal,
            .enabling_until_ms = t->stream_enabling_until_ms,
        };
        t->stream = stream_open(reg, namespace_id, &src, now_ms);
    }
}
