/*
 * value.c - DynamoDB attribute values: lifecycle, comparison, maps, sizes.
 *
 * Maps are small arrays searched linearly: items rarely have more than a few
 * dozen attributes, and an array keeps an item in one or two allocations per
 * level, which matters more for the hot paths (encode, compare keys) than
 * asymptotic lookup cost.
 */
#include "storage/model/value.h"

#include "storage/base/alloc.h"
#include "storage/model/number.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

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
    case VALUE_M:
        dst->u.map.count = src->u.map.count;
        dst->u.map.attrs = xmalloc(sizeof(struct attr) * grow_capacity(src->u.map.count));
        for (size_t i = 0; i < src->u.map.count; i++) {
            const struct attr *a = &src->u.map.attrs[i];
            dst->u.map.attrs[i].name = xmemdup(a->name, a->name_len);
            dst->u.map.attrs[i].name_len = a->name_len;
            value_copy(&dst->u.map.attrs[i].value, &a->value);
        }
        break;
    case VALUE_BOOL: dst->u.boolean = src->u.boolean; break;
    case VALUE_NULL: break;
    }
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
        for (size_t i = 0; i < a->u.list.count; i++) {
            if (!value_set_contains(b, &a->u.list.elems[i])) return false;
        }
        return true;
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

static ssize_t map_index(const struct value *m, const char *name, size_t name_len)
{
    assert(m->type == VALUE_M);
    for (size_t i = 0; i < m->u.map.count; i++) {
        const struct attr *a = &m->u.map.attrs[i];
        if (a->name_len == name_len && memcmp(a->name, name, name_len) == 0) return (ssize_t) i;
    }
    return -1;
}

const struct value *value_map_get(const struct value *m, const char *name, size_t name_len)
{
    ssize_t i = map_index(m, name, name_len);
    return i < 0 ? NULL : &m->u.map.attrs[i].value;
}

void value_map_set(struct value *m, const char *name, size_t name_len, struct value *v)
{
    ssize_t i = map_index(m, name, name_len);
    if (i >= 0) {
        value_clear(&m->u.map.attrs[i].value);
        value_move(&m->u.map.attrs[i].value, v);
        return;
    }
    if (needs_growth(m->u.map.count))
        m->u.map.attrs =
            xrealloc(m->u.map.attrs, sizeof(struct attr) * grow_capacity(m->u.map.count + 1));
    struct attr *a = &m->u.map.attrs[m->u.map.count++];
    a->name = xmemdup(name, name_len);
    a->name_len = name_len;
    value_move(&a->value, v);
}

bool value_map_remove(struct value *m, const char *name, size_t name_len)
{
    ssize_t i = map_index(m, name, name_len);
    if (i < 0) return false;
    free(m->u.map.attrs[i].name);
    value_clear(&m->u.map.attrs[i].value);
    /* Keep the order of the remaining attributes. */
    memmove(&m->u.map.attrs[i], &m->u.map.attrs[i + 1],
            sizeof(struct attr) * (m->u.map.count - (size_t) i - 1));
    m->u.map.count--;
    return true;
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
