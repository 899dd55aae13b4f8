/*
 * vector_index.c - vector groups, their maintenance and the exact search;
 * see vector_index.h.
 */
#include "storage/table/vector_index.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"
#include "storage/table/vector_distance.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The bounds DynamoDB prints (spec-24 2.4). */
#define F32_BOUND 3.4028235e38

void vector_index_init(struct vector_index *vi, const struct vector_index_def *def,
                       const struct table_def *table)
{
    const char *hash = vector_index_hash_name(def);

    memset(vi, 0, sizeof *vi);
    vi->def = def;
    vi->dims = (size_t) def->dimensions;
    vi->hash_type = VALUE_S;
    if (hash) table_def_attr_type(table, hash, &vi->hash_type);
    vi->status = INDEX_ACTIVE;
}

static void group_free(struct vector_group *g)
{
    for (size_t i = 0; i < g->count; i++)
        item_unref(g->items[i]);
    value_clear(&g->hash);
    free(g->vectors);
    free(g->self_dots);
    free(g->items);
    free(g);
}

void vector_index_clear(struct vector_index *vi)
{
    for (size_t i = 0; i < vi->group_count; i++)
        group_free(vi->groups[i]);
    free(vi->groups);
    memset(vi, 0, sizeof *vi);
}

enum index_status vector_index_status_at(const struct vector_index *vi, int64_t now_ms)
{
    if (vi->status != INDEX_ACTIVE) return vi->status;
    if (vi->transient_until_ms && now_ms < vi->transient_until_ms) return vi->transient;
    return INDEX_ACTIVE;
}

bool vector_parse_float(const struct value *n, float *out)
{
    double d = strtod(n->u.str.data, NULL);
    if (!(d >= -F32_BOUND && d <= F32_BOUND)) return false;
    *out = (float) d;
    return true;
}

/* ------------------------------------------------------------------------ */
/* what a write may hold (spec-24 2.4)                                       */
/* ------------------------------------------------------------------------ */

static int check_vector(const struct vector_index_def *def, const struct value *v,
                        struct ddb_error *err)
{
    static const char prefix[] = "One or more parameter values were invalid. ";

    if (v->type != VALUE_L)
        return ddb_error_set(err, DDB_VALIDATION,
                             "%sInvalid type for parameter %s, Expected: 32-bit floating point "
                             "number list IndexName: %s",
                             prefix, def->attribute, def->name);
    if ((int64_t) v->u.list.count != def->dimensions)
        return ddb_error_set(err, DDB_VALIDATION,
                             "%sInvalid size for parameter %s, Expected: %lld, Actual: %zu "
                             "IndexName: %s",
                             prefix, def->attribute, (long long) def->dimensions, v->u.list.count,
                             def->name);
    for (size_t i = 0; i < v->u.list.count; i++) {
        const struct value *e = &v->u.list.elems[i];
        float f;
        if (e->type != VALUE_N)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "%sInvalid type for parameter %s[%zu], Expected: 32-bit floating "
                                 "point number, Actual: %s. IndexName: %s",
                                 prefix, def->attribute, i, value_type_name(e->type), def->name);
        if (!vector_parse_float(e, &f))
            return ddb_error_set(err, DDB_VALIDATION,
                                 "%sInvalid value for parameter %s[%zu], Value: %s is outside "
                                 "valid range [-3.4028235E38, 3.4028235E38]. IndexName: %s",
                                 prefix, def->attribute, i, e->u.str.data, def->name);
    }
    return 0;
}

/* A SearchSchema attribute, when present, has its declared type; a HASH value is not empty. */
static int check_schema_attr(const struct vector_index_def *def, const struct search_element *s,
                             enum value_type type, const struct value *v, struct ddb_error *err)
{
    if (v->type != type)
        return ddb_error_set(err, DDB_VALIDATION,
                             "One or more parameter values were invalid. Attribute '%s' type "
                             "mismatch. Expected: %s, Actual: %s. IndexName: %s",
                             s->name, value_type_name(type), value_type_name(v->type), def->name);
    if (s->type == SEARCH_HASH && (v->type == VALUE_S || v->type == VALUE_B) && !v->u.str.len)
        return ddb_error_set(err, DDB_VALIDATION,
                             "One or more parameter values are not valid. A value specified for a "
                             "secondary index key is not supported. The AttributeValue for a key "
                             "attribute cannot contain an empty %s value. IndexName: %s, "
                             "IndexKey: %s",
                             v->type == VALUE_S ? "string" : "binary", def->name, s->name);
    return 0;
}

int vector_index_check_item(const struct vector_index_def *def, const struct table_def *table,
                            const struct value *attrs, struct ddb_error *err)
{
    const struct value *v = value_map_get(attrs, def->attribute, strlen(def->attribute));

    if (v && check_vector(def, v, err) != 0) return -1;
    for (size_t i = 0; i < def->search_count; i++) {
        const struct search_element *s = &def->search[i];
        const struct value *a = value_map_get(attrs, s->name, strlen(s->name));
        enum value_type type = VALUE_S;
        if (!a || !table_def_attr_type(table, s->name, &type)) continue;
        if (check_schema_attr(def, s, type, a, err) != 0) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* groups                                                                    */
/* ------------------------------------------------------------------------ */

/* The position of the group for hash (or where it would go); *found says which. */
static size_t group_seek(const struct vector_index *vi, const struct value *hash, bool *found)
{
    size_t lo = 0, hi = vi->group_count;

    *found = false;
    if (!hash) {
        *found = vi->group_count > 0;
        return 0;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = value_compare_scalar(&vi->groups[mid]->hash, hash);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct vector_group *group_get(struct vector_index *vi, const struct value *hash)
{
    bool found;
    size_t pos = group_seek(vi, hash, &found);
    struct vector_group *g;

    if (found) return vi->groups[pos];
    g = xcalloc(1, sizeof *g);
    if (hash)
        value_copy(&g->hash, hash);
    else
        value_init_null(&g->hash);
    vi->groups = xrealloc(vi->groups, sizeof *vi->groups * (vi->group_count + 1));
    memmove(&vi->groups[pos + 1], &vi->groups[pos], sizeof *vi->groups * (vi->group_count - pos));
    vi->groups[pos] = g;
    vi->group_count++;
    return g;
}

/* The item's vector as floats in out, and its HASH value; false when the item
 * does not belong in the index (the rules of the file comment). */
static bool entry_of(const struct vector_index *vi, const struct item *item, float *out,
                     const struct value **hash)
{
    const struct vector_index_def *def = vi->def;
    const struct value *v = item_get_cstr(item, def->attribute);
    const char *hash_name = vector_index_hash_name(def);

    *hash = NULL;
    if (!v || v->type != VALUE_L || v->u.list.count != vi->dims) return false;
    for (size_t i = 0; i < vi->dims; i++) {
        if (v->u.list.elems[i].type != VALUE_N) return false;
        if (!vector_parse_float(&v->u.list.elems[i], &out[i])) return false;
    }
    if (!hash_name) return true;
    *hash = item_get_cstr(item, hash_name);
    if (!*hash || (*hash)->type != vi->hash_type) return false;
    return vi->hash_type == VALUE_N || (*hash)->u.str.len > 0;
}

static int64_t entry_bytes(const struct vector_index *vi)
{
    return (int64_t) (4 * vi->dims + strlen(vi->def->attribute));
}

static void group_add(struct vector_index *vi, struct vector_group *g, const float *vec,
                      struct item *item)
{
    if (g->count == g->cap) {
        /* Growth by a sixteenth keeps the reserved memory within 1.07 x the
         * vectors (large blocks move by mremap, without a copy). */
        g->cap = g->cap < 64 ? g->cap * 2 + 4 : g->cap + g->cap / 16;
        g->vectors = xrealloc(g->vectors, sizeof *g->vectors * g->cap * vi->dims);
        g->self_dots = xrealloc(g->self_dots, sizeof *g->self_dots * g->cap);
        g->items = xrealloc(g->items, sizeof *g->items * g->cap);
    }
    memcpy(g->vectors + g->count * vi->dims, vec, sizeof *vec * vi->dims);
    g->self_dots[g->count] = vector_dot(vec, vec, vi->dims);
    g->items[g->count] = item_ref(item);
    g->count++;
    vi->item_count++;
    vi->size_bytes += entry_bytes(vi);
}

/* Removes item's vector from the group for hash (the group's last one moves into its slot). */
static void group_remove(struct vector_index *vi, const struct value *hash, struct item *item)
{
    bool found;
    size_t pos = group_seek(vi, hash, &found), last;
    struct vector_group *g;

    if (!found) return;
    g = vi->groups[pos];
    for (size_t i = 0; i < g->count; i++) {
        if (g->items[i] != item) continue;
        last = g->count - 1;
        item_unref(g->items[i]);
        if (i != last) {
            memcpy(g->vectors + i * vi->dims, g->vectors + last * vi->dims,
                   sizeof *g->vectors * vi->dims);
            g->self_dots[i] = g->self_dots[last];
            g->items[i] = g->items[last];
        }
        g->count--;
        vi->item_count--;
        vi->size_bytes -= entry_bytes(vi);
        break;
    }
    if (g->count) return;
    group_free(g);
    memmove(&vi->groups[pos], &vi->groups[pos + 1],
            sizeof *vi->groups * (vi->group_count - pos - 1));
    vi->group_count--;
}

void vector_index_apply_write(struct vector_index *vi, struct item *old_item, struct item *new_item)
{
    assert_table_writing();
    float *vec = xmalloc(sizeof *vec * (vi->dims ? vi->dims : 1));
    const struct value *hash;
    struct decode_mark mark = item_scratch_mark(); /* a group keeps a copy of its hash */

    if (old_item && entry_of(vi, old_item, vec, &hash)) group_remove(vi, hash, old_item);
    if (new_item && entry_of(vi, new_item, vec, &hash))
        group_add(vi, group_get(vi, hash), vec, new_item);
    item_scratch_release(mark);
    free(vec);
}

/* ------------------------------------------------------------------------ */
/* write bytes                                                               */
/* ------------------------------------------------------------------------ */

/* Whether the index's entry for an item holds attribute a (the vector aside):
 * the table's keys, the SearchSchema and what the projection adds. */
static bool entry_holds(const struct vector_index *vi, const struct key_schema *table_key,
                        const struct attr *a)
{
    const struct projection *p = &vi->def->projection;
    bool plain = strlen(a->name) == a->name_len; /* a name with a NUL is no key */

    if (plain && key_schema_has(table_key, a->name)) return true;
    for (size_t i = 0; plain && i < vi->def->search_count; i++) {
        if (strcmp(vi->def->search[i].name, a->name) == 0) return true;
    }
    if (p->type == PROJECTION_ALL) return true;
    for (size_t i = 0; p->type == PROJECTION_INCLUDE && i < p->non_key_count; i++) {
        if (p->non_key_lens[i] == a->name_len &&
            memcmp(p->non_key_attrs[i], a->name, a->name_len) == 0)
            return true;
    }
    return false;
}

static bool is_vector_attr(const struct vector_index *vi, const struct attr *a)
{
    return a->name_len == strlen(vi->def->attribute) &&
           memcmp(a->name, vi->def->attribute, a->name_len) == 0;
}

/* The bytes of an item's entry: the vector as 32-bit floats with its name,
 * and the other attributes the entry holds at their item size. */
static size_t entry_size(const struct vector_index *vi, const struct key_schema *table_key,
                         const struct item *item)
{
    size_t size = (size_t) entry_bytes(vi);
    const struct value *attrs = item_attrs(item);

    for (size_t i = 0; i < attrs->u.map.count; i++) {
        const struct attr *a = &attrs->u.map.attrs[i];
        if (!is_vector_attr(vi, a) && entry_holds(vi, table_key, a))
            size += a->name_len + value_size_bytes(&a->value);
    }
    return size;
}

/* What entry_changed compares: an attribute the index's entry holds. */
struct entry_scope {
    const struct vector_index *vi;
    const struct key_schema *table_key;
};

static bool entry_keeps(const void *ctx, const struct attr *at)
{
    const struct entry_scope *e = ctx;
    return is_vector_attr(e->vi, at) || entry_holds(e->vi, e->table_key, at);
}

/* Whether the entries of two items (both in the index) differ. */
static bool entry_changed(const struct vector_index *vi, const struct key_schema *table_key,
                          const struct item *a, const struct item *b)
{
    struct entry_scope e = {vi, table_key};
    return item_kept_attrs_differ(a, b, entry_keeps, &e);
}

size_t vector_index_entry_size(const struct vector_index *vi, const struct key_schema *table_key,
                               const struct item *item)
{
    float *vec = xmalloc(sizeof *vec * (vi->dims ? vi->dims : 1));
    const struct value *hash;
    struct decode_mark mark = item_scratch_mark(); /* the trees die here */
    bool in = entry_of(vi, item, vec, &hash);
    size_t size = in ? entry_size(vi, table_key, item) : 0;

    item_scratch_release(mark);
    free(vec);
    return size;
}

double vector_index_write_bytes(const struct vector_index *vi, const struct key_schema *table_key,
                                const struct item *old_item, const struct item *new_item)
{
    /* An entry's size is never 0 (4 bytes a dimension at least): 0 is "not in the index". */
    size_t had = old_item ? vector_index_entry_size(vi, table_key, old_item) : 0;
    size_t has = new_item ? vector_index_entry_size(vi, table_key, new_item) : 0;
    size_t bytes = had > has ? had : has;

    if (!bytes) return 0;
    if (had && has && !entry_changed(vi, table_key, old_item, new_item)) return 0;
    return bytes < DDB_MIN_VECTOR_REQUEST_BYTES ? DDB_MIN_VECTOR_REQUEST_BYTES : (double) bytes;
}

/* ------------------------------------------------------------------------ */
/* search                                                                    */
/* ------------------------------------------------------------------------ */

static int compare_key_part(const struct item *a, const struct item *b, const char *name)
{
    struct decode_mark mark = item_scratch_mark(); /* the values die here */
    const struct value *x = item_get_cstr(a, name), *y = item_get_cstr(b, name);
    int c = !x || !y || x->type != y->type ? 0 : value_compare_scalar(x, y);

    item_scratch_release(mark);
    return c;
}

/* The tie rule: equal scores rank in the table's primary key order. */
static int compare_keys(const struct key_schema *k, const struct item *a, const struct item *b)
{
    int c = compare_key_part(a, b, k->hash_names[0]);
    if (c || !k->range_count) return c;
    return compare_key_part(a, b, k->range_names[0]);
}

static bool hit_better(const struct vector_index *vi, const struct vector_query *q,
                       const struct vector_hit *a, const struct vector_hit *b)
{
    if (a->score != b->score) return vector_score_better(vi->def->distance, a->score, b->score);
    return compare_keys(q->table_key, a->item, b->item) < 0;
}

/* The heap keeps the k best hits with the worst at the root. */
static void heap_sift_down(const struct vector_index *vi, const struct vector_query *q,
                           struct vector_hit *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, worst = i;
        if (l < n && hit_better(vi, q, &h[worst], &h[l])) worst = l;
        if (r < n && hit_better(vi, q, &h[worst], &h[r])) worst = r;
        if (worst == i) return;
        struct vector_hit t = h[i];
        h[i] = h[worst];
        h[worst] = t;
        i = worst;
    }
}

static void heap_sift_up(const struct vector_index *vi, const struct vector_query *q,
                         struct vector_hit *h, size_t i)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!hit_better(vi, q, &h[parent], &h[i])) return;
        struct vector_hit t = h[i];
        h[i] = h[parent];
        h[parent] = t;
        i = parent;
    }
}

static bool passes_filters(const struct vector_query *q, const struct item *item)
{
    struct decode_mark mark = item_scratch_mark(); /* the values die here */
    bool passes = true;

    for (size_t i = 0; i < q->filter_count && passes; i++) {
        const struct value *v = item_get_cstr(item, q->filter_names[i]);
        passes = v && value_equal(v, &q->filter_values[i]);
    }
    item_scratch_release(mark);
    return passes;
}

/* Scores every vector of g into the heap h of *n hits (at most q->top_k). */
static void search_group(const struct vector_index *vi, const struct vector_query *q, double qq,
                         const struct vector_group *g, struct vector_hit *h, size_t *n)
{
    enum distance_function f = vi->def->distance;

    for (size_t i = 0; i < g->count; i++) {
        struct vector_hit cand = {
            .item = g->items[i],
            .score = vector_score(f, q->vector, qq, g->vectors + i * vi->dims, g->self_dots[i],
                                  vi->dims),
        };
        if (*n == q->top_k && !hit_better(vi, q, &cand, &h[0])) continue;
        if (!passes_filters(q, cand.item)) continue;
        if (*n < q->top_k) {
            h[(*n)++] = cand;
            heap_sift_up(vi, q, h, *n - 1);
        } else {
            h[0] = cand;
            heap_sift_down(vi, q, h, *n, 0);
        }
    }
}

void vector_index_search(const struct vector_index *vi, const struct vector_query *q,
                         struct vector_hit **hits, size_t *count)
{
    assert_lock_held();
    struct vector_hit *h = xmalloc(sizeof *h * (q->top_k ? q->top_k : 1));
    double qq = vector_dot(q->vector, q->vector, vi->dims);
    size_t n = 0;
    bool found;
    size_t pos = group_seek(vi, q->hash, &found);

    if (q->hash) {
        if (found) search_group(vi, q, qq, vi->groups[pos], h, &n);
    } else {
        for (size_t g = 0; g < vi->group_count; g++)
            search_group(vi, q, qq, vi->groups[g], h, &n);
    }
    /* Pop the worst to the end: h becomes best first. */
    for (size_t end = n; end > 1; end--) {
        struct vector_hit t = h[0];
        h[0] = h[end - 1];
        h[end - 1] = t;
        heap_sift_down(vi, q, h, end - 1, 0);
    }
    for (size_t i = 0; i < n; i++)
        item_ref(h[i].item);
    *hits = h;
    *count = n;
}
