/*
 * item.c - reference-counted immutable items; see item.h.
 */
#include "storage/model/item.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"

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

/*
 * The one place that compares an item's size with the quota and words the
 * refusal. Texts recorded against AWS by dynalite: "Item size has exceeded the
 * maximum allowed size" (test/putItem.js, test/batchWriteItem.js, the
 * transaction validations; conformance/test_limits.py, test_batch.py,
 * test_transact.py) and "Item size to update has exceeded the maximum allowed
 * size" (test/updateItem.js "update item is too big";
 * conformance/test_update_expression.py::test_updated_item_size_limit). Where
 * the check runs is the caller's choice, because that decides AWS's error
 * precedence: api/ops checks a given item while decoding, before anything
 * else of the request is looked at; storage checks it again for callers whose
 * items no handler decoded (PartiQL) and checks an update's result once it is
 * computed; an import's reader drops a line whose item is too large.
 */
int item_check_size(size_t size_bytes, enum item_size_check checked, struct ddb_error *err)
{
    static const char *const texts[] = {
        [ITEM_SIZE_GIVEN] = "Item size has exceeded the maximum allowed size",
        [ITEM_SIZE_UPDATED] = "Item size to update has exceeded the maximum allowed size",
    };

    if (size_bytes <= DDB_MAX_ITEM_BYTES) return 0;
    return ddb_error_set(err, DDB_VALIDATION, "%s", texts[checked]);
}

/*
 * The stored form: the item's header and its whole attribute tree in one
 * allocation (value_compact_copy), instead of a malloc for every map, list,
 * name and string - a dozen or more per item, each with the allocator's
 * header and rounding. The tree is still struct value, so every reader
 * (key extraction, conditions, projections, the answer writers) reads it
 * as before; docs/architecture.md, "The stored item", gives the layout and
 * the steps beyond it.
 */
struct item *item_new(struct value *attrs)
{
    size_t block = value_compact_size(attrs);
    struct item *item = xmalloc(sizeof *item + block);

    assert(attrs->type == VALUE_M);
    static_assert(sizeof(struct item) % 8 == 0, "the block after the header stays aligned");
    atomic_init(&item->refcount, 1);
    value_compact_copy(&item->attrs_tree_, attrs, item + 1);
    value_clear(attrs);
    item->size_bytes = item_attrs_size_bytes(&item->attrs_tree_);
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
        free(item); /* the tree lies in the same block (item_new) */
    }
}

const struct value *item_get(const struct item *item, const char *name, size_t name_len)
{
    return value_map_get(&item->attrs_tree_, name, name_len);
}

const struct value *item_get_cstr(const struct item *item, const char *name)
{
    return value_map_get(&item->attrs_tree_, name, strlen(name));
}
