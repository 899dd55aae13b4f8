/*
 * value.c - DynamoDB attribute values: lifecycle, comparison, maps, sizes.
 *
 * Maps are arrays in insertion order (the order responses show). A small map
 * is searched linearly: most items have a few dozen attributes, and one
 * allocation per level matters more on the hot paths (encode, compare keys)
 * than asymptotic lookup cost. A map whose capacity reaches MAP_INDEX_MIN_CAP
 * also carries a hash index in the same allocation, after its attributes:
 * 2 * capacity uint32 slots of open addressing (0: empty, else position + 1),
 * so lookups and inserts stay O(1) and decoding an item of 40,000 attributes
 * is linear, not quadratic. The capacity is a function of count alone
 * (grow_capacity), so the index is found without a field of its own and
 * struct value keeps its size; anything that moves attributes (growth,
 * removal) rebuilds the index.
 *
 * Sets are kept in DynamoDB Local's order (value_compare_set_elements; see
 * value.h for who sorts); membership over a whole set (equality, union,
 * difference) goes through a temporary hash of its elements (struct
 * value_set_index), so those are linear too.
 */
#include "storage/model/value.h"

#include "storage/base/alloc.h"
#include "storage/model/number.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <xxhash.h>

/* Capacity from which a map carries a hash index (see the file comment). */
#define MAP_INDEX_MIN_CAP 16
/* Size from which a set's membership tests use a hash of its elements. */
#define SET_INDEX_MIN 16

void value_clear(struct value *v)
{
    switch (v->type) {
    case VALUE_S:
    case VALUE_N:
    case VALUE_B: free(v->u.str.data); break;
    case VALUE_L:
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS:
        for (size_t i = 0; i < v->u.list.count; i++)
            value_clear(&v->u.list.elems[i]);
        free(v->u.list.elems);
        break;
    case VALUE_M:
        for (size_t i = 0; i < v->u.map.count; i++) {
            free(v->u.map.attrs[i].name);
            value_clear(&v->u.map.attrs[i].value);
        }
        free(v->u.map.attrs);
        break;
    case VALUE_BOOL:
    case VALUE_NULL: break;
    }
    value_init_null(v);
}

/* Capacity grows in powers of two; count alone tells the capacity. */
static size_t grow_capacity(size_t count)
{
    size_t cap = 4;
    while (cap < count)
        cap *= 2;
    return cap;
}

static bool needs_growth(size_t count)
{
    /* A new element is appended at index count; grow when count is 0 or a power of two >= 4. */
    return count == 0 || (count >= 4 && (count & (count - 1)) == 0);
}

/* ---- a map's storage: attributes, then (from MAP_INDEX_MIN_CAP) its index ---- */

static size_t map_capacity(size_t count)
{
    return count ? grow_capacity(count) : 0;
}

static bool map_indexed(size_t cap)
{
    return cap >= MAP_INDEX_MIN_CAP;
}

static size_t map_bytes(size_t cap)
{
    return cap * sizeof(struct attr) + (map_indexed(cap) ? 2 * cap * sizeof(uint32_t) : 0);
}

static uint32_t *map_slots(const struct value *m, size_t cap)
{
    return (uint32_t *) (m->u.map.attrs + cap);
}

static uint64_t name_hash(const char *name, size_t name_len)
{
    return XXH3_64bits(name, name_len);
}

/* Records position pos in the index of a map of capacity cap. */
static void map_index_add(struct value *m, size_t cap, size_t pos)
{
    uint32_t *slots = map_slots(m, cap);
    size_t mask = 2 * cap - 1;
    const struct attr *a = &m->u.map.attrs[pos];
    size_t i = name_hash(a->name, a->name_len) & mask;
    while (slots[i])
        i = (i + 1) & mask;
    slots[i] = (uint32_t) pos + 1;
}

/* Rebuilds the index after attributes moved (growth, removal). */
static void map_index_rebuild(struct value *m)
{
    size_t cap = map_capacity(m->u.map.count);
    if (!map_indexed(cap)) return;
    memset(map_slots(m, cap), 0, 2 * cap * sizeof(uint32_t));
    for (size_t i = 0; i < m->u.map.count; i++)
        map_index_add(m, cap, i);
}

void value_copy(struct value *dst, const struct value *src)
{
    dst->type = src->type;
    switch (src->type) {
    case VALUE_S:
    case VALUE_N:
    case VALUE_B:
        dst->u.str.data = xmemdup(src->u.str.data, src->u.str.len);
        dst->u.str.len = src->u.str.len;
        break;
    case VALUE_L:
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS:
        dst->u.list.count = src->u.list.count;
        /* Capacity as value_list_append expects it, so a copy can be appended to. */
        dst->u.list.elems = xmalloc(sizeof(struct value) * grow_capacity(src->u.list.count));
        for (size_t i = 0; i < src->u.list.count; i++)
            value_copy(&dst->u.list.elems[i], &src->u.list.elems[i]);
        break;
    case VALUE_M: {
        size_t cap = map_capacity(src->u.map.count);
        dst->u.map.count = src->u.map.count;
        dst->u.map.attrs = cap ? xmalloc(map_bytes(cap)) : NULL;
        for (size_t i = 0; i < src->u.map.count; i++) {
            const struct attr *a = &src->u.map.attrs[i];
            dst->u.map.attrs[i].name = xmemdup(a->name, a->name_len);
            dst->u.map.attrs[i].name_len = a->name_len;
            value_copy(&dst->u.map.attrs[i].value, &a->value);
        }
        /* Same positions, same capacity: the index copies as it is. */
        if (map_indexed(cap))
            memcpy(map_slots(dst, cap), map_slots(src, cap), 2 * cap * sizeof(uint32_t));
        break;
    }
    case VALUE_BOOL: dst->u.boolean = src->u.boolean; break;
    case VALUE_NULL: break;
    }
}

/* ---- compact copies: a whole tree in one block (item.c's stored form) ---- */

/* The two parts of a block: the arrays (struct attr, struct value, a map's
 * index slots; all multiples of 8 bytes, so they stay aligned) first, then
 * the bytes of names and strings, each with its NUL. */
struct compact_sizes {
    size_t arrays;
    size_t bytes;
};

static void compact_measure(const struct value *v, struct compact_sizes *sz)
{
    switch (v->type) {
    case VALUE_S:
    case VALUE_N:
    case VALUE_B: sz->bytes += v->u.str.len + 1; break;
    case VALUE_L:
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS:
        sz->arrays += v->u.list.count * sizeof(struct value);
        for (size_t i = 0; i < v->u.list.count; i++)
            compact_measure(&v->u.list.elems[i], sz);
        break;
    case VALUE_M: {
        /* A small map holds exactly its attributes (nothing appends to a
         * stored item); an indexed one keeps its capacity, because its
         * index is found after `capacity` attributes (the file comment). */
        size_t cap = map_capacity(v->u.map.count);
        sz->arrays += map_indexed(cap) ? map_bytes(cap) : v->u.map.count * sizeof(struct attr);
        for (size_t i = 0; i < v->u.map.count; i++) {
            sz->bytes += v->u.map.attrs[i].name_len + 1;
            compact_measure(&v->u.map.attrs[i].value, sz);
        }
        break;
    }
    case VALUE_BOOL:
    case VALUE_NULL: break;
    }
}

size_t value_compact_size(const struct value *v)
{
    struct compact_sizes sz = {0, 0};
    compact_measure(v, &sz);
    return sz.arrays + sz.bytes;
}

/* Cursors into the block being filled: arrays from its start, bytes after them. */
struct compact_cursor {
    char *arrays;
    char *bytes;
};

static char *compact_bytes(struct compact_cursor *c, const char *data, size_t len)
{
    char *out = c->bytes;
    if (len) memcpy(out, data, len);
    out[len] = '\0';
    c->bytes += len + 1;
    return out;
}

static void compact_fill(struct value *dst, const struct value *src, struct compact_cursor *c)
{
    *dst = *src;
    switch (src->type) {
    case VALUE_S:
    case VALUE_N:
    case VALUE_B: dst->u.str.data = compact_bytes(c, src->u.str.data, src->u.str.len); break;
    case VALUE_L:
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS:
        dst->u.list.elems = src->u.list.count ? (struct value *) (void *) c->arrays : NULL;
        c->arrays += src->u.list.count * sizeof(struct value);
        for (size_t i = 0; i < src->u.list.count; i++)
            compact_fill(&dst->u.list.elems[i], &src->u.list.elems[i], c);
        break;
    case VALUE_M: {
        size_t cap = map_capacity(src->u.map.count);
        dst->u.map.attrs = src->u.map.count ? (struct attr *) (void *) c->arrays : NULL;
        if (map_indexed(cap)) {
            /* Same positions, same capacity: the index copies as it is. */
            memcpy(map_slots(dst, cap), map_slots(src, cap), 2 * cap * sizeof(uint32_t));
            c->arrays += map_bytes(cap);
        } else {
            c->arrays += src->u.map.count * sizeof(struct attr);
        }
        for (size_t i = 0; i < src->u.map.count; i++) {
            const struct attr *a = &src->u.map.attrs[i];
            struct attr *d = &dst->u.map.attrs[i];
            d->name = compact_bytes(c, a->name, a->name_len);
            d->name_len = a->name_len;
            compact_fill(&d->value, &a->value, c);
        }
        break;
    }
    case VALUE_BOOL:
    case VALUE_NULL: break;
    }
}

size_t value_frozen_map_bytes(size_t count)
{
    size_t cap = map_capacity(count);
    return map_indexed(cap) ? map_bytes(cap) : count * sizeof(struct attr);
}

void value_frozen_map_init(struct value *m, void *block, size_t count)
{
    m->type = VALUE_M;
    m->u.map.attrs = count ? block : NULL;
    m->u.map.count = count;
}

void value_frozen_map_seal(struct value *m)
{
    map_index_rebuild(m); /* a small map has none */
}

void value_compact_copy(struct value *dst, const struct value *src, void *block)
{
    struct compact_sizes sz = {0, 0};
    struct compact_cursor c;

    assert(((uintptr_t) block & 7) == 0);
    compact_measure(src, &sz);
    c.arrays = block;
    c.bytes = (char *) block + sz.arrays;
    compact_fill(dst, src, &c);
    assert(c.arrays == (char *) block + sz.arrays &&
           c.bytes == (char *) block + sz.arrays + sz.bytes);
}

void value_move(struct value *dst, struct value *src)
{
    *dst = *src;
    value_init_null(src);
}

void value_init_null(struct value *v)
{
    memset(v, 0, sizeof *v);
    v->type = VALUE_NULL;
}

void value_init_bool(struct value *v, bool b)
{
    memset(v, 0, sizeof *v);
    v->type = VALUE_BOOL;
    v->u.boolean = b;
}

static void init_bytes(struct value *v, enum value_type type, const void *data, size_t len)
{
    memset(v, 0, sizeof *v);
    v->type = type;
    v->u.str.data = xmemdup(data, len);
    v->u.str.len = len;
}

void value_init_string(struct value *v, const char *data, size_t len)
{
    init_bytes(v, VALUE_S, data, len);
}

void value_init_binary(struct value *v, const void *data, size_t len)
{
    init_bytes(v, VALUE_B, data, len);
}

void value_init_number_text(struct value *v, const char *text, size_t len)
{
    init_bytes(v, VALUE_N, text, len);
}

void value_init_map(struct value *v)
{
    memset(v, 0, sizeof *v);
    v->type = VALUE_M;
}

void value_init_list(struct value *v, enum value_type type)
{
    assert(type == VALUE_L || type == VALUE_SS || type == VALUE_NS || type == VALUE_BS);
    memset(v, 0, sizeof *v);
    v->type = type;
}

static const char *const type_names[] = {
    [VALUE_S] = "S",       [VALUE_N] = "N",   [VALUE_B] = "B", [VALUE_BOOL] = "BOOL",
    [VALUE_NULL] = "NULL", [VALUE_M] = "M",   [VALUE_L] = "L", [VALUE_SS] = "SS",
    [VALUE_NS] = "NS",     [VALUE_BS] = "BS",
};

const char *value_type_name(enum value_type type)
{
    return type_names[type];
}

bool value_type_from_name(const char *name, size_t len, enum value_type *out)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
        if (strlen(type_names[i]) == len && memcmp(type_names[i], name, len) == 0) {
            *out = (enum value_type) i;
            return true;
        }
    }
    return false;
}

bool value_is_set(const struct value *v)
{
    return v->type == VALUE_SS || v->type == VALUE_NS || v->type == VALUE_BS;
}

bool value_is_scalar_key_type(enum value_type type)
{
    return type == VALUE_S || type == VALUE_N || type == VALUE_B;
}

enum value_type value_set_element_type(enum value_type set_type)
{
    switch (set_type) {
    case VALUE_SS: return VALUE_S;
    case VALUE_NS: return VALUE_N;
    case VALUE_BS: return VALUE_B;
    default: assert(!"not a set type"); return VALUE_NULL;
    }
}

static int compare_bytes(const char *a, size_t a_len, const char *b, size_t b_len)
{
    size_t n = a_len < b_len ? a_len : b_len;
    int c = n ? memcmp(a, b, n) : 0; /* memcmp compares as unsigned char */
    if (c != 0) return c < 0 ? -1 : 1;
    return a_len < b_len ? -1 : a_len > b_len ? 1 : 0;
}

int value_compare_scalar(const struct value *a, const struct value *b)
{
    assert(a->type == b->type && value_is_scalar_key_type(a->type));
    if (a->type == VALUE_N)
        return number_compare_text(a->u.str.data, a->u.str.len, b->u.str.data, b->u.str.len);
    return compare_bytes(a->u.str.data, a->u.str.len, b->u.str.data, b->u.str.len);
}

/*
 * A byte of UTF-8 as a rank whose order is UTF-16 code-unit order (Java's
 * String.compareTo, which DynamoDB Local sorts string sets by). UTF-8 byte
 * order is code point order; UTF-16 differs only in writing U+10000 and up
 * as surrogates D800..DBFF, below U+E000..U+FFFF. Past an equal prefix, the
 * first differing bytes are either two lead bytes, or two continuation bytes
 * under one lead byte (one range, where both orders agree); so moving the
 * lead bytes of U+E000..U+FFFF (0xEE, 0xEF) above every other byte
 * (0xF0..0xF4 lead the supplementary planes) is the whole fix. Injective, so
 * only equal strings compare equal.
 */
static unsigned utf16_rank(unsigned char c)
{
    return c == 0xEE || c == 0xEF ? c + 0x12u : c;
}

static int compare_utf16_order(const char *a, size_t a_len, const char *b, size_t b_len)
{
    size_t n = a_len < b_len ? a_len : b_len;
    for (size_t i = 0; i < n; i++) {
        if (a[i] == b[i]) continue;
        return utf16_rank((unsigned char) a[i]) < utf16_rank((unsigned char) b[i]) ? -1 : 1;
    }
    return a_len < b_len ? -1 : a_len > b_len ? 1 : 0;
}

int value_compare_set_elements(const struct value *a, const struct value *b)
{
    assert(a->type == b->type && value_is_scalar_key_type(a->type));
    if (a->type == VALUE_S)
        return compare_utf16_order(a->u.str.data, a->u.str.len, b->u.str.data, b->u.str.len);
    return value_compare_scalar(a, b); /* N numerically, B as unsigned bytes */
}

/* A member and, for NS, its number parsed once: the sort compares many times. */
struct set_key {
    struct value v; /* moved out of the set while sorting */
    struct number num;
};

static int compare_set_keys(const void *pa, const void *pb)
{
    const struct set_key *a = pa, *b = pb;
    if (a->v.type == VALUE_N) return number_compare(&a->num, &b->num);
    return value_compare_set_elements(&a->v, &b->v);
}

bool value_set_sort(struct value *set)
{
    size_t n = set->u.list.count;
    struct set_key *keys;
    bool sorted = true, distinct = true;

    assert(value_is_set(set));
    if (n < 2) return true;
    keys = xmalloc(n * sizeof *keys);
    for (size_t i = 0; i < n; i++) {
        keys[i].v = set->u.list.elems[i];
        if (keys[i].v.type == VALUE_N) {
            struct ddb_error err = {0};
            if (number_parse(keys[i].v.u.str.data, keys[i].v.u.str.len, &keys[i].num, &err) != 0) {
                assert(!"value_set_sort needs validated number texts");
                ddb_error_clear(&err);
            }
        }
        if (i > 0 && sorted) sorted = compare_set_keys(&keys[i - 1], &keys[i]) < 0;
    }
    if (!sorted) {
        qsort(keys, n, sizeof *keys, compare_set_keys);
        for (size_t i = 0; i < n; i++) {
            set->u.list.elems[i] = keys[i].v;
            if (i > 0 && distinct) distinct = compare_set_keys(&keys[i - 1], &keys[i]) != 0;
        }
    }
    free(keys);
    return distinct;
}

bool value_set_is_sorted(const struct value *set)
{
    assert(value_is_set(set));
    for (size_t i = 1; i < set->u.list.count; i++) {
        if (value_compare_set_elements(&set->u.list.elems[i - 1], &set->u.list.elems[i]) >= 0)
            return false;
    }
    return true;
}

static bool bytes_equal(const struct value *a, const struct value *b)
{
    return a->u.str.len == b->u.str.len &&
           (a->u.str.len == 0 || memcmp(a->u.str.data, b->u.str.data, a->u.str.len) == 0);
}

bool value_set_contains(const struct value *set, const struct value *e)
{
    for (size_t i = 0; i < set->u.list.count; i++) {
        if (value_equal(&set->u.list.elems[i], e)) return true;
    }
    return false;
}

/* Set elements are S, N or B with canonical bytes: equal elements have equal bytes. */
static uint64_t element_hash(const struct value *e)
{
    return XXH3_64bits(e->u.str.data, e->u.str.len);
}

void value_set_index_init(struct value_set_index *ix, const struct value *set)
{
    size_t n = set->u.list.count;

    assert(value_is_set(set) && n < UINT32_MAX / 2);
    ix->set = set;
    ix->slots = NULL;
    ix->mask = 0;
    if (n < SET_INDEX_MIN) return;
    ix->mask = grow_capacity(2 * n) - 1;
    ix->slots = xcalloc(ix->mask + 1, sizeof *ix->slots);
    for (size_t k = 0; k < n; k++) {
        size_t i = element_hash(&set->u.list.elems[k]) & ix->mask;
        while (ix->slots[i])
            i = (i + 1) & ix->mask;
        ix->slots[i] = (uint32_t) k + 1;
    }
}

bool value_set_index_contains(const struct value_set_index *ix, const struct value *e)
{
    if (!ix->slots) return value_set_contains(ix->set, e);
    if (e->type != value_set_element_type(ix->set->type)) return false;
    for (size_t i = element_hash(e) & ix->mask; ix->slots[i]; i = (i + 1) & ix->mask) {
        if (bytes_equal(&ix->set->u.list.elems[ix->slots[i] - 1], e)) return true;
    }
    return false;
}

void value_set_index_clear(struct value_set_index *ix)
{
    free(ix->slots);
    memset(ix, 0, sizeof *ix);
}

/* Whether every element of sub is in set (both of one set type). */
static bool set_includes(const struct value *set, const struct value *sub)
{
    struct value_set_index ix;
    bool all = true;

    value_set_index_init(&ix, set);
    for (size_t i = 0; i < sub->u.list.count && all; i++)
        all = value_set_index_contains(&ix, &sub->u.list.elems[i]);
    value_set_index_clear(&ix);
    return all;
}

bool value_equal(const struct value *a, const struct value *b)
{
    if (a->type != b->type) return false;
    switch (a->type) {
    case VALUE_S:
    case VALUE_B:
    case VALUE_N: return bytes_equal(a, b); /* numbers are canonical text */
    case VALUE_BOOL: return a->u.boolean == b->u.boolean;
    case VALUE_NULL: return true;
    case VALUE_L:
        if (a->u.list.count != b->u.list.count) return false;
        for (size_t i = 0; i < a->u.list.count; i++) {
            if (!value_equal(&a->u.list.elems[i], &b->u.list.elems[i])) return false;
        }
        return true;
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS:
        /* Sets hold no duplicates, so equal counts plus inclusion is equality. */
        if (a->u.list.count != b->u.list.count) return false;
        return set_includes(b, a);
    case VALUE_M:
        if (a->u.map.count != b->u.map.count) return false;
        for (size_t i = 0; i < a->u.map.count; i++) {
            const struct attr *x = &a->u.map.attrs[i];
            const struct value *y = value_map_get(b, x->name, x->name_len);
            if (!y || !value_equal(&x->value, y)) return false;
        }
        return true;
    }
    return false;
}

static bool name_is(const struct attr *a, const char *name, size_t name_len)
{
    return a->name_len == name_len && (name_len == 0 || memcmp(a->name, name, name_len) == 0);
}

ssize_t value_map_find(const struct value *m, const char *name, size_t name_len)
{
    size_t cap = map_capacity(m->u.map.count);

    assert(m->type == VALUE_M);
    if (map_indexed(cap)) {
        const uint32_t *slots = map_slots(m, cap);
        size_t mask = 2 * cap - 1;
        for (size_t i = name_hash(name, name_len) & mask; slots[i]; i = (i + 1) & mask) {
            if (name_is(&m->u.map.attrs[slots[i] - 1], name, name_len))
                return (ssize_t) slots[i] - 1;
        }
        return -1;
    }
    for (size_t i = 0; i < m->u.map.count; i++) {
        if (name_is(&m->u.map.attrs[i], name, name_len)) return (ssize_t) i;
    }
    return -1;
}

const struct value *value_map_get(const struct value *m, const char *name, size_t name_len)
{
    ssize_t i = value_map_find(m, name, name_len);
    return i < 0 ? NULL : &m->u.map.attrs[i].value;
}

void value_map_set(struct value *m, const char *name, size_t name_len, struct value *v)
{
    ssize_t i = value_map_find(m, name, name_len);
    if (i >= 0) {
        value_clear(&m->u.map.attrs[i].value);
        value_move(&m->u.map.attrs[i].value, v);
        return;
    }
    value_map_append(m, name, name_len, v);
}

void value_map_append(struct value *m, const char *name, size_t name_len, struct value *v)
{
    bool grow = needs_growth(m->u.map.count);
    size_t cap = map_capacity(m->u.map.count + 1), pos = m->u.map.count;
    struct attr *a;

    assert(m->type == VALUE_M && m->u.map.count < UINT32_MAX);
    if (grow) m->u.map.attrs = xrealloc(m->u.map.attrs, map_bytes(cap));
    a = &m->u.map.attrs[pos];
    a->name = xmemdup(name, name_len);
    a->name_len = name_len;
    value_move(&a->value, v);
    m->u.map.count++;
    if (grow)
        map_index_rebuild(m); /* the index moved with the capacity */
    else if (map_indexed(cap))
        map_index_add(m, cap, pos);
}

void value_map_remove_marked(struct value *m, const bool *drop)
{
    size_t kept = 0;

    assert(m->type == VALUE_M);
    for (size_t i = 0; i < m->u.map.count; i++) {
        if (drop[i]) {
            free(m->u.map.attrs[i].name);
            value_clear(&m->u.map.attrs[i].value);
            continue;
        }
        if (kept != i) m->u.map.attrs[kept] = m->u.map.attrs[i];
        kept++;
    }
    if (kept == m->u.map.count) return;
    m->u.map.count = kept;
    map_index_rebuild(m); /* positions moved */
}

void value_list_append(struct value *l, struct value *v)
{
    if (needs_growth(l->u.list.count))
        l->u.list.elems =
            xrealloc(l->u.list.elems, sizeof(struct value) * grow_capacity(l->u.list.count + 1));
    value_move(&l->u.list.elems[l->u.list.count++], v);
}

/*
 * Sizes follow "Item sizes and formats" (developerguide/CapacityUnitCalculations.html):
 * strings and binaries are their byte length; a number is about 1 byte per two
 * significant digits plus 1; BOOL and NULL are 1 byte; a list or map costs 3
 * bytes plus 1 byte per element plus its elements (map elements include their
 * names); a set is the sum of its elements.
 */
static size_t number_size_bytes(const struct value *v)
{
    size_t digits = 0;
    bool leading = true;
    size_t trailing_zeros = 0;
    for (size_t i = 0; i < v->u.str.len; i++) {
        char c = v->u.str.data[i];
        if (c < '0' || c > '9') continue;
        if (leading && c == '0') continue;
        leading = false;
        digits++;
        trailing_zeros = c == '0' ? trailing_zeros + 1 : 0;
    }
    digits -= trailing_zeros;
    return (digits + 1) / 2 + 1;
}

size_t value_size_bytes(const struct value *v)
{
    size_t size = 0;
    switch (v->type) {
    case VALUE_S:
    case VALUE_B: return v->u.str.len;
    case VALUE_N: return number_size_bytes(v);
    case VALUE_BOOL:
    case VALUE_NULL: return 1;
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS:
        for (size_t i = 0; i < v->u.list.count; i++)
            size += value_size_bytes(&v->u.list.elems[i]);
        return size;
    case VALUE_L:
        size = 3 + v->u.list.count;
        for (size_t i = 0; i < v->u.list.count; i++)
            size += value_size_bytes(&v->u.list.elems[i]);
        return size;
    case VALUE_M:
        size = 3 + v->u.map.count;
        for (size_t i = 0; i < v->u.map.count; i++)
            size += v->u.map.attrs[i].name_len + value_size_bytes(&v->u.map.attrs[i].value);
        return size;
    }
    return size;
}
