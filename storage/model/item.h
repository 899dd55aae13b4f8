/*
 * item.h - an item: a top-level map of attributes, immutable once shared.
 *
 * Items are reference counted so that a read can take the item out of the
 * lock without copying it: a stored item is never modified, a write replaces
 * it with a new item and drops the table's reference to the old one. Stream
 * records, condition-failure errors and index entries hold references too.
 *
 * The stored form is the compact encoding (item_encoding.h) after a small
 * header, in one allocation, its top-level names interned in the process's
 * name dictionary (docs/architecture.md, "The stored item"). There is no
 * tree in it: readers that need a struct value decode one (item_attrs,
 * item_get), key readers read the key's bytes in place (item_key_part), and
 * the answer writers copy the encoding straight into JSON (api/wire).
 *
 * Decoded trees live in the calling thread's scratch arena, not in the
 * item: a tree from item_attrs or item_get is read-only, never
 * value_clear-ed, and valid until that arena forgets it - at the start of
 * the thread's next HTTP request (item_scratch_reset, called by api/http),
 * or at the release of a mark taken before it (item_scratch_mark/release:
 * every loop that decodes many items outside a request, or more than a page
 * within one, brackets each item). Nothing may keep such a tree beyond
 * that: keep the item's reference and decode again, or value_copy.
 */
#ifndef DDB_ITEM_H
#define DDB_ITEM_H

#include "storage/base/error.h"
#include "storage/model/item_encoding.h"
#include "storage/model/key.h"
#include "storage/model/value.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct item {
    atomic_int refcount;
    uint32_t size_bytes;  /* DynamoDB's item size: sum of name bytes + value sizes */
    uint32_t encoded_len; /* bytes of encoded[] */
    uint8_t encoded[];    /* item_encode's form, names in item_names() */
};

/* Takes the contents of *attrs (a VALUE_M; encoded, then cleared and left
 * NULL-typed) and returns a new item with one reference, owned by the
 * caller. Computes size_bytes. */
struct item *item_new(struct value *attrs);
/* The dictionary every item's top-level names are interned in (process-wide,
 * never freed: name_dict.h bounds it). */
const struct name_dict *item_names(void);
/* The item's attributes as a read-only tree (VALUE_M), decoded into the
 * calling thread's scratch arena (the lifetime rule above). The thread's
 * last few trees are remembered (item.c) until its next reset or release,
 * so reading one item's tree in several places decodes it once. */
const struct value *item_attrs(const struct item *item);
/* The lines of an item asked for at most ahead of a read: longer items are
 * rare in a page of many. */
#define ITEM_PREFETCH_BYTES 1024

/* Asks for the lines of item's encoding after its header's (which the caller
 * has read), up to ITEM_PREFETCH_BYTES: a page's walk as it takes each item,
 * its writer a few items ahead (bench/README.md, "The writer asks for its
 * items again"). */
static inline void item_prefetch(const struct item *item)
{
    uintptr_t start = (uintptr_t) item, bytes = sizeof *item + item->encoded_len;
    if (bytes > ITEM_PREFETCH_BYTES) bytes = ITEM_PREFETCH_BYTES;
    for (uintptr_t line = (start & ~(uintptr_t) 63) + 64; line < start + bytes; line += 64)
        __builtin_prefetch((const void *) line);
}
/* Adds a reference and returns item; item_ref(NULL) is NULL. */
struct item *item_ref(struct item *item);
/* Drops a reference; frees at zero. item_unref(NULL) is a no-op. */
void item_unref(struct item *item);
/* One attribute's value decoded into the scratch arena (the rule above), or
 * NULL when the item has none of that name. */
const struct value *item_get(const struct item *item, const char *name, size_t name_len);
const struct value *item_get_cstr(const struct item *item, const char *name);
/* Whether the attributes keep(ctx, attribute) selects differ between two
 * items (one has such an attribute the other lacks, or holds another
 * value): what an index row or a vector entry holds, compared across a
 * write. The trees it decodes are forgotten before it returns. */
bool item_kept_attrs_differ(const struct item *a, const struct item *b,
                            bool (*keep)(const void *ctx, const struct attr *at), const void *ctx);
/* Appends codec_put_value of the item's attributes to b: the form
 * persistence, snapshots and stream records keep on disk (unchanged by the
 * stored encoding). The tree it decodes is forgotten before it returns. */
void item_codec_put(struct text_buf *b, const struct item *item);
/* Whether two items hold the same attributes and values (value_equal of
 * their trees): equal encodings answer at once, different ones are decoded
 * (maps built in another order encode differently) and forgotten again. */
bool item_equal(const struct item *a, const struct item *b);
/* The attribute `name` read in place as a key part (key.h): its bytes in the
 * encoding (an N's comparable bytes), with src at its type byte, so a
 * skiplist node can keep its offset. False when the item has no such
 * attribute or it is not an S, N or B. Decodes nothing. */
bool item_key_part(const struct item *item, const char *name, size_t name_len,
                   struct key_part *out);
/* item_key_part of names[0..count) (NUL-terminated; a name may repeat) in one
 * walk of the item, into out[0..count); false when any is missing or not a
 * key type. */
bool item_key_parts(const struct item *item, const char *const *names, size_t count,
                    struct key_part *out);

/* A new item (one reference, the caller's) of item's top-level attributes
 * named names[0..count) (distinct; lens[i] bytes each), in that order - the
 * order an answer lists them: a projection of top-level names, made from
 * the encoding without decoding (the kept attributes' bytes are copied,
 * the size is read from them: enc_value_size_bytes). Names the item lacks
 * are skipped; with none found the item is empty. */
struct item *item_project(const struct item *item, const char *const *names, const size_t *lens,
                          size_t count);

/* One top-level attribute an update sets (value: borrowed) or removes
 * (value NULL). */
struct attr_change {
    const char *name;
    size_t name_len;
    const struct value *value;
};

/* Changes up to this many are matched without an allocation. */
#define ITEM_CHANGES_MAX 16

/* A new item (one reference, the caller's): old's attributes with
 * changes[0..count) (distinct names) applied - a replaced attribute keeps
 * its place, a removed one goes, a new one follows the old ones in the
 * changes' order (expr_apply_update_ex's order) - made from old's encoding
 * without decoding it: an untouched attribute's bytes are copied, only the
 * changed values are encoded. O(attributes x changes). */
struct item *item_with_changes(const struct item *old, const struct attr_change *changes,
                               size_t count);

/* ---- the calling thread's scratch arena (the lifetime rule above) ---- */

/* Forgets every tree this thread decoded: api/http calls it as each request
 * starts, before anything of the request is decoded. */
void item_scratch_reset(void);
/* A point to come back to; a release forgets only what was decoded after
 * it (marks nest), so trees the caller decoded before stay valid. */
struct decode_mark item_scratch_mark(void);
void item_scratch_release(struct decode_mark mark);

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
