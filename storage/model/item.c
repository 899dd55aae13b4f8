/*
 * item.c - reference-counted immutable items; see item.h.
 */
#include "storage/model/item.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/text.h"
#include "storage/model/codec.h"

#include <assert.h>
#include <pthread.h>
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

/* ---- the thread's scratch: the decode arena and the encoder's buffer ---- */

/* The last items item_attrs decoded, each with a reference (so no other
 * item can take its address while it is remembered) and its tree in the
 * arena: a write reads its item's tree in a few places (the schema check,
 * the batch's and the transaction's own checks), and a hit costs a compare
 * where a decode costs ~2.7k instructions for the chat item. Forgotten at
 * every reset and release, when the trees may go. (Keeping the tree
 * item_new was given, to spare even the first decode, was tried and
 * measured: the tree's value_clear only moved to the reset, PutItem gained
 * 0.5k instructions and BatchWriteItem lost 9k.) */
#define MEMO_SIZE 4

struct memo {
    struct item *item; /* a reference; NULL when empty */
    const struct value *tree;
};

struct scratch {
    struct decode_arena arena; /* trees item_attrs and item_get decode (item.h) */
    struct text_buf encoding;  /* item_new's buffer, kept for the thread's next item */
    struct memo memo[MEMO_SIZE];
    unsigned memo_next; /* the entry the next decode replaces */
    bool memo_used;     /* an entry may be set */
    bool registered;    /* scratch_key set, so a thread's exit frees it */
};

static void memo_forget(struct scratch *s)
{
    if (!s->memo_used) return;
    for (size_t i = 0; i < MEMO_SIZE; i++) {
        item_unref(s->memo[i].item);
        s->memo[i].item = NULL;
    }
    s->memo_used = false;
}

static _Thread_local struct scratch thread_scratch; /* zero: an empty arena and buffer */
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *arg)
{
    struct scratch *s = arg;
    memo_forget(s);
    decode_arena_clear(&s->arena);
    text_buf_clear(&s->encoding);
}

static void scratch_key_create(void)
{
    if (pthread_key_create(&scratch_key, scratch_free) != 0) abort();
}

/* The calling thread's scratch, registered to be freed when the thread ends
 * (the server's workers and background threads come and go). */
static struct scratch *scratch(void)
{
    struct scratch *s = &thread_scratch;
    if (!s->registered) {
        pthread_once(&scratch_once, scratch_key_create);
        pthread_setspecific(scratch_key, s);
        s->registered = true;
    }
    return s;
}

void item_scratch_reset(void)
{
    struct scratch *s = scratch();
    memo_forget(s);
    decode_arena_reset(&s->arena);
    /* A buffer grown by a 400 KB item is not kept for the next thousand small ones. */
    if (s->encoding.cap > 64 * 1024) text_buf_clear(&s->encoding);
}

struct decode_mark item_scratch_mark(void)
{
    return decode_arena_mark(&scratch()->arena);
}

void item_scratch_release(struct decode_mark mark)
{
    struct scratch *s = scratch();
    memo_forget(s);
    decode_arena_release(&s->arena, mark);
}

/* ---- the process's name dictionary ---- */

/*
 * One dictionary for every item of the process rather than one per table:
 * an item then never needs encoding again when it moves between tables
 * (restores, forks, imports, stream images, transactions over several
 * tables), item_new needs no table, and its lookups take no lock
 * (name_dict.c): two writers of different tables share only read-only
 * lines of it (bench/README.md, "Writers of different tables"). What a
 * per-table dictionary would bound better - a process whose tables use
 * ever new names - name_dict bounds by its caps, after which
 * names are kept inline in each item (docs/differences.md has none of it:
 * nothing of it is visible through the API).
 */
static struct name_dict *process_names;
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void names_create(void)
{
    process_names = name_dict_new();
}

const struct name_dict *item_names(void)
{
    pthread_once(&names_once, names_create);
    return process_names;
}

/* ---- items ---- */

/*
 * The stored form: a 12-byte header and the item's encoding in one
 * allocation - no pointer, no per-value allocation, names as dictionary
 * ids (docs/architecture.md, "The stored item"; bench/README.md, "Memory
 * per item"). The encoding is written into the thread's buffer and copied
 * once its length is known.
 */
/* A new item (one reference) of the encoding in buf, of DynamoDB size size_bytes. */
static struct item *item_from_bytes(const struct text_buf *buf, size_t size_bytes)
{
    struct item *item;

    assert(buf->len <= UINT32_MAX);
    item = xmalloc(sizeof *item + buf->len);
    atomic_init(&item->refcount, 1);
    item->size_bytes = (uint32_t) size_bytes;
    item->encoded_len = (uint32_t) buf->len;
    memcpy(item->encoded, buf->data, buf->len);
    return item;
}

struct item *item_new(struct value *attrs)
{
    struct text_buf *buf = &scratch()->encoding;
    struct item *item;

    assert(attrs->type == VALUE_M);
    pthread_once(&names_once, names_create);
    buf->len = 0;
    item_encode(buf, attrs, process_names);
    item = item_from_bytes(buf, item_attrs_size_bytes(attrs));
    value_clear(attrs);
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
    if (atomic_fetch_sub_explicit(&item->refcount, 1, memory_order_acq_rel) == 1) free(item);
}

const struct value *item_attrs(const struct item *item)
{
    struct scratch *s = scratch();
    struct memo *m;
    struct value *out;
    bool ok;

    for (size_t i = 0; i < MEMO_SIZE; i++) {
        if (s->memo[i].item == item) return s->memo[i].tree;
    }
    out = decode_arena_alloc(&s->arena, sizeof *out);
    ok = item_decode_in(&s->arena, item->encoded, item->encoded_len, process_names, out);
    assert(ok); /* item_new's own bytes */
    (void) ok;
    m = &s->memo[s->memo_next++ % MEMO_SIZE];
    item_unref(m->item);
    s->memo_used = true;
    /* Read-only: the reference only keeps the address from being reused. */
    m->item = item_ref((struct item *) (uintptr_t) item);
    m->tree = out;
    return out;
}

/* The top-level attribute `name` of item into *out; false when it has none. */
static bool find_attr(const struct item *item, const char *name, size_t name_len,
                      struct enc_attr *out)
{
    struct enc_cursor c;

    enc_cursor_init(&c, item->encoded, item->encoded_len, process_names);
    while (enc_cursor_next(&c, out)) {
        if (out->name_len == name_len && memcmp(out->name, name, name_len) == 0) return true;
    }
    assert(!c.bad);
    return false;
}

const struct value *item_get(const struct item *item, const char *name, size_t name_len)
{
    struct enc_attr at;
    struct decode_arena *a = &scratch()->arena;
    struct value *out;
    bool ok;

    if (!find_attr(item, name, name_len, &at)) return NULL;
    out = decode_arena_alloc(a, sizeof *out);
    ok = enc_value_decode_in(a, at.type, at.value, at.value_len, out);
    assert(ok);
    (void) ok;
    return out;
}

const struct value *item_get_cstr(const struct item *item, const char *name)
{
    return item_get(item, name, strlen(name));
}

bool item_key_part(const struct item *item, const char *name, size_t name_len, struct key_part *out)
{
    struct enc_attr at;

    if (!find_attr(item, name, name_len, &at)) return false;
    if (at.type != ENC_S && at.type != ENC_N && at.type != ENC_B) return false;
    key_part_at(at.value - 1, out); /* the type byte before the value */
    return true;
}

bool item_key_parts(const struct item *item, const char *const *names, size_t count,
                    struct key_part *out)
{
    size_t lens[ROW_KEY_MAX_PARTS], left = count;
    bool found[ROW_KEY_MAX_PARTS] = {false};
    struct enc_cursor c;
    struct enc_attr at;

    assert(count <= ROW_KEY_MAX_PARTS);
    for (size_t i = 0; i < count; i++)
        lens[i] = strlen(names[i]);
    enc_cursor_init(&c, item->encoded, item->encoded_len, process_names);
    while (left && enc_cursor_next(&c, &at)) {
        for (size_t i = 0; i < count; i++) {
            if (found[i] || at.name_len != lens[i] || memcmp(at.name, names[i], lens[i]) != 0)
                continue;
            if (at.type != ENC_S && at.type != ENC_N && at.type != ENC_B) return false;
            key_part_at(at.value - 1, &out[i]);
            found[i] = true;
            left--;
        }
    }
    assert(!c.bad);
    return left == 0;
}

bool item_equal(const struct item *a, const struct item *b)
{
    struct decode_mark mark;
    bool equal;

    if (a == b) return true;
    if (a->encoded_len == b->encoded_len && memcmp(a->encoded, b->encoded, a->encoded_len) == 0)
        return true;
    if (a->size_bytes != b->size_bytes) return false; /* equal items have equal sizes */
    mark = item_scratch_mark();
    equal = value_equal(item_attrs(a), item_attrs(b));
    item_scratch_release(mark);
    return equal;
}

void item_codec_put(struct text_buf *b, const struct item *item)
{
    struct decode_mark mark = item_scratch_mark();
    codec_put_value(b, item_attrs(item));
    item_scratch_release(mark);
}

/* ---- projections of top-level names, from the encoding ---- */

/* Where one kept attribute's bytes lie in the item's encoding: its name (id
 * or inline), type byte and value, copied as they are (one dictionary for
 * every item, so an id means the same name in the new item). */
struct kept_attr {
    const uint8_t *start; /* NULL: the item has no attribute of that name */
    size_t len;
    size_t size_bytes; /* name bytes + enc_value_size_bytes */
};

#define KEPT_ON_STACK 16

/*
 * One walk of the encoding finds each kept name's bytes (an attribute's
 * bytes are those between the cursor's positions before and after it); the
 * new encoding is the count and those bytes in the caller's order, written
 * straight into the new item's block once their length is known. What it
 * costs against the tree path (decode, expr_project, item_new's encode):
 * bench/README.md, "Projected answers from the encoding".
 */
struct item *item_project(const struct item *item, const char *const *names, const size_t *lens,
                          size_t count)
{
    struct kept_attr on_stack[KEPT_ON_STACK], *kept = on_stack;
    struct enc_cursor c;
    struct enc_attr at;
    struct item *out;
    size_t left = count, found, len = 0, size = 0;
    uint8_t *p;

    if (count > KEPT_ON_STACK) kept = xmalloc(count * sizeof *kept);
    for (size_t i = 0; i < count; i++)
        kept[i].start = NULL;
    enc_cursor_init(&c, item->encoded, item->encoded_len, process_names);
    for (const uint8_t *start = c.p; left && enc_cursor_next(&c, &at); start = c.p) {
        for (size_t i = 0; i < count; i++) {
            if (kept[i].start || lens[i] != at.name_len || memcmp(names[i], at.name, lens[i]) != 0)
                continue;
            struct enc_value v = {at.type, at.value, at.value_len};
            kept[i] = (struct kept_attr){start, (size_t) (c.p - start),
                                         at.name_len + enc_value_size_bytes(&v)};
            len += kept[i].len;
            size += kept[i].size_bytes;
            left--;
            break;
        }
    }
    assert(!c.bad); /* item_new's own bytes */
    found = count - left;
    len += enc_uvar_size(found);
    assert(len <= UINT32_MAX);
    out = xmalloc(sizeof *out + len);
    atomic_init(&out->refcount, 1);
    out->size_bytes = (uint32_t) size;
    out->encoded_len = (uint32_t) len;
    p = enc_put_uvar(out->encoded, found);
    for (size_t i = 0; i < count; i++) {
        if (!kept[i].start) continue;
        memcpy(p, kept[i].start, kept[i].len);
        p += kept[i].len;
    }
    assert(p == out->encoded + len);
    if (kept != on_stack) free(kept);
    return out;
}

/* The change of changes[0..count) that names at, or -1. */
static long change_of(const struct attr_change *changes, size_t count, const struct enc_attr *at)
{
    for (size_t j = 0; j < count; j++) {
        if (changes[j].name_len == at->name_len &&
            memcmp(changes[j].name, at->name, at->name_len) == 0)
            return (long) j;
    }
    return -1;
}

/*
 * Two walks of the old encoding: the first finds which changes replace an
 * attribute (so the new count, which comes first, is known), the second
 * writes the new encoding into the thread's buffer - an untouched
 * attribute's bytes copied as they are (the bytes between the cursor's
 * positions before and after it), a changed one encoded from its value -
 * and the new item's size is the old one's with the changed attributes'
 * sizes swapped. Nothing of the old item is decoded.
 */
struct item *item_with_changes(const struct item *old, const struct attr_change *changes,
                               size_t count)
{
    struct text_buf *buf = &scratch()->encoding;
    bool on_stack[ITEM_CHANGES_MAX] = {0}, *replaces = on_stack;
    struct enc_cursor c;
    struct enc_attr at;
    size_t size = old->size_bytes;
    uint64_t attrs = 0;
    uint8_t head[10];

    if (count > ITEM_CHANGES_MAX) replaces = xcalloc(count, sizeof *replaces);
    enc_cursor_init(&c, old->encoded, old->encoded_len, process_names);
    while (enc_cursor_next(&c, &at)) {
        long j = change_of(changes, count, &at);
        struct enc_value v = {at.type, at.value, at.value_len};
        attrs++;
        if (j < 0) continue;
        replaces[j] = true;
        size -= at.name_len + enc_value_size_bytes(&v);
        if (!changes[j].value) attrs--;
    }
    assert(!c.bad); /* item_new's own bytes */
    for (size_t j = 0; j < count; j++) {
        if (!changes[j].value) continue;
        if (!replaces[j]) attrs++;
        size += changes[j].name_len + value_size_bytes(changes[j].value);
    }
    buf->len = 0;
    text_buf_add(buf, (const char *) head, (size_t) (enc_put_uvar(head, attrs) - head));
    enc_cursor_init(&c, old->encoded, old->encoded_len, process_names);
    for (const uint8_t *start = c.p; enc_cursor_next(&c, &at); start = c.p) {
        long j = change_of(changes, count, &at);
        if (j < 0)
            text_buf_add(buf, (const char *) start, (size_t) (c.p - start));
        else if (changes[j].value)
            item_encode_attr(buf, changes[j].name, changes[j].name_len, changes[j].value,
                             process_names);
    }
    for (size_t j = 0; j < count; j++) {
        if (changes[j].value && !replaces[j])
            item_encode_attr(buf, changes[j].name, changes[j].name_len, changes[j].value,
                             process_names);
    }
    if (replaces != on_stack) free(replaces);
    return item_from_bytes(buf, size);
}

bool item_kept_attrs_differ(const struct item *a, const struct item *b,
                            bool (*keep)(const void *ctx, const struct attr *at), const void *ctx)
{
    struct decode_mark mark = item_scratch_mark();
    const struct value *pair[2] = {item_attrs(a), item_attrs(b)};
    bool differ = false;

    for (size_t s = 0; s < 2 && !differ; s++) {
        const struct value *x = pair[s], *y = pair[1 - s];
        for (size_t i = 0; i < x->u.map.count && !differ; i++) {
            const struct attr *at = &x->u.map.attrs[i];
            const struct value *other;
            if (!keep(ctx, at)) continue;
            other = value_map_get(y, at->name, at->name_len);
            differ = !other || !value_equal(&at->value, other);
        }
    }
    item_scratch_release(mark);
    return differ;
}
