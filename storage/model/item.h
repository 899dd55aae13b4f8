/*
 * item.h - an item: a top-level map of attributes, immutable once shared.
 *
 * Items are reference counted so that a read can take the item out of the
 * lock without copying it: a stored item is never modified, a write replaces
 * it with a new item and drops the table's reference to the old one. Stream
 * records, condition-failure errors and index entries hold references too.
 *
 * Build an item's map with the value_map_* functions, then item_new() takes it
 * and keeps a compact copy: header and tree in one allocation (item.c). After
 * item_new() the item must not be changed, and its attrs are never cleared
 * or moved out: copy them (value_copy) to build a changed item.
 */
#ifndef DDB_ITEM_H
#define DDB_ITEM_H

#include "storage/base/error.h"
#include "storage/model/value.h"

#include <stdatomic.h>
#include <stddef.h>

struct item {
    atomic_int refcount;
    size_t size_bytes; /* DynamoDB's item size: sum of name bytes + value sizes */
    struct value
        attrs_tree_; /* VALUE_M; lies in the item's own allocation; read it with item_attrs() */
};

/* Takes the contents of *attrs (a VALUE_M; copied compactly, then cleared and
 * left NULL-typed) and returns a new item with one reference, owned by the
 * caller. Computes size_bytes. */
struct item *item_new(struct value *attrs);
/* The item's attributes as a read-only tree (VALUE_M). Every reader goes
 * through here, not through the struct: today the tree lies in the item's
 * own block and lives as long as the caller's reference; issue 26's next
 * step (docs/architecture.md, "The stored item") keeps only the encoding and
 * makes this decode into the calling thread's arena, valid until that arena
 * is released. */
static inline const struct value *item_attrs(const struct item *item)
{
    return &item->attrs_tree_;
}
/* Adds a reference and returns item; item_ref(NULL) is NULL. */
struct item *item_ref(struct item *item);
/* Drops a reference; frees at zero. item_unref(NULL) is a no-op. */
void item_unref(struct item *item);
/* Borrowed pointer to an attribute's value, or NULL. Valid while the caller holds a reference. */
const struct value *item_get(const struct item *item, const char *name, size_t name_len);
const struct value *item_get_cstr(const struct item *item, const char *name);
/* Size by DynamoDB's rules of a top-level attribute map. */
size_t item_attrs_size_bytes(const struct value *attrs);

/* What an item's size is checked as: DynamoDB words the refusal of an item a
 * request gives whole differently from that of the item an update makes. */
enum item_size_check {
    ITEM_SIZE_GIVEN,   /* PutItem, BatchWriteItem, TransactWriteItems Put, PartiQL, imports */
    ITEM_SIZE_UPDATED, /* the result of an UpdateItem (or a transaction's Update) */
};
/* The item-size rule, written once: 0 when size_bytes is at most
 * DDB_MAX_ITEM_BYTES (400 KB), else -1 with ValidationException in AWS's
 * words for `checked`. */
int item_check_size(size_t size_bytes, enum item_size_check checked, struct ddb_error *err);

#endif
