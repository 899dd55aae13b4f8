/*
 * item.c - reference-counted immutable items; see item.h.
 */
#include "storage/model/item.h"

#include "storage/base/alloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

size_t item_attrs_size_bytes(const struct value *attrs)
{
    size_t size = 0;
    assert(attrs->type == VALUE_M);
    for (size_t i = 0; i < attrs->u.map.count; i++)
        size += attrs->u.map.attrs[i].name_len + value_size_bytes(&attrs->u.map.attrs[i].value);
    return size;
}

struct item *item_new(struct value *attrs)
{
    struct item *item = xmalloc(sizeof *item);
    assert(attrs->type == VALUE_M);
    atomic_init(&item->refcount, 1);
    value_move(&item->attrs, attrs);
    item->size_bytes = item_attrs_size_bytes(&item->attrs);
    return item;
}

struct item *item_ref(struct item *item)
{
    if (item) atomic_fetch_add_explicit(&item->refcount, 1, memory_order_relaxed);
    return item;
}

void item_unref(struct item *item)
{
    if (!item) return;
    if (atomic_fetch_sub_explicit(&item->refcount, 1, memory_order_acq_rel) == 1) {
        value_clear(&item->attrs);
        free(item);
    }
}

const struct value *item_get(const struct item *item, const char *name, size_t name_len)
{
    return value_map_get(&item->attrs, name, name_len);
}

const struct value *item_get_cstr(const struct item *item, const char *name)
{
    return value_map_get(&item->attrs, name, strlen(name));
}
