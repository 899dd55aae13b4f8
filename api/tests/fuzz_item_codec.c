/*
 * fuzz_item_codec.c - libFuzzer target for the stored item's forms.
 *
 * Input: a JSON object, read as an item's attribute map (wire_value.c's
 * decoder, unchecked input). Whatever decodes goes through every form an
 * item is kept in, and each must give the item back exactly:
 *   - the stored form: item_new lays the tree out in one block
 *     (value_compact_copy); the item's DynamoDB JSON (wire_value_write_map,
 *     what GetItem, Query and Scan answer) must be byte for byte the JSON of
 *     the decoded tree - the input's canonical form - and its size the tree's;
 *   - the binary record (codec.c, what persistence and stream records hold):
 *     encoded from the stored item and decoded again, it must be equal and
 *     write the same JSON, and a copy (value_copy) of the stored tree too;
 *   - the compact encoding (item_encoding.c, issue 26), with its top-level
 *     names interned in a dictionary and without one: decoded again it must
 *     be equal and write the canonical JSON (into a tree of its own and
 *     into a decode arena), and the answer writer that
 *     reads the encoding in place (wire_encoded_write_item) must write the
 *     same bytes, and a projection of some of its names (in the order
 *     asked) the tree writer's bytes for those; every truncation of it must
 *     be refused by both readers; the sizes read from it
 *     (enc_value_size_bytes) must add up to the tree's size;
 *   - a projection of top-level names made from the stored item
 *     (item_project) must be the item item_new makes of those attributes:
 *     the same bytes and size.
 * Nothing may crash, trip an assertion or sanitizer, or leak. Built only with
 * -DDDB_FUZZ=ON and clang (see api/CMakeLists.txt).
 */
#include "api/wire/json_in.h"
#include "api/wire/wire_encoded.h"
#include "api/wire/wire_value.h"
#include "storage/base/text.h"
#include "storage/model/codec.h"
#include "storage/model/item.h"
#include "storage/model/item_encoding.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The item JSON of map m, owned by the caller. */
static char *write_json(const struct value *m, size_t *len)
{
    struct json_out w;
    char *out;

    json_out_init(&w);
    wire_value_write_map(&w, m);
    out = json_out_take(&w, len);
    json_out_clear(&w);
    return out;
}

static void check_same_json(const char *want, size_t want_len, const struct value *m)
{
    size_t len;
    char *got = write_json(m, &len);
    if (len != want_len || memcmp(got, want, len) != 0) __builtin_trap();
    free(got);
}

/* The projection both checks below make of m: its last and first
 * attributes (in that order; one, once, when m has one) and a name it
 * lacks, into names/lens (3 at most; returns how many), and those of the
 * attributes m has, in that order, into *attrs (a new map). */
static size_t last_and_first(const struct value *m, const char *names[3], size_t lens[3],
                             struct value *attrs)
{
    size_t count = m->u.map.count, n = 0;

    value_init_map(attrs);
    for (size_t k = 0; k < 2 && k < count; k++) {
        const struct attr *a = &m->u.map.attrs[k == 0 ? count - 1 : 0];
        struct value copy;
        if (n == 1 && a == &m->u.map.attrs[count - 1]) break; /* one attribute: once */
        names[n] = a->name;
        lens[n++] = a->name_len;
        value_copy(&copy, &a->value);
        value_map_append(attrs, a->name, a->name_len, &copy);
    }
    if (!value_map_get(m, "\001absent", 7)) {
        names[n] = "\001absent";
        lens[n++] = 7;
    }
    return n;
}

/* That projection written from the encoding: the tree writer's JSON of
 * those attributes in that order. */
static void check_projection(const struct text_buf *enc, const struct value *m,
                             const struct name_dict *dict)
{
    const char *names[3];
    size_t lens[3], len, want_len;
    struct value projected;
    struct json_out w;
    size_t n = last_and_first(m, names, lens, &projected);

    char *want = write_json(&projected, &want_len);
    struct wire_top_names keep = {names, lens, n};
    json_out_init(&w);
    if (!wire_encoded_write_item(&w, enc->data, enc->len, dict, &keep)) __builtin_trap();
    char *got = json_out_take(&w, &len);
    if (len != want_len || memcmp(got, want, len) != 0) __builtin_trap();
    free(got);
    free(want);
    value_clear(&projected);
}

/* The sizes read from the encoding add up to m's size. */
static void check_sizes(const struct text_buf *enc, const struct value *m,
                        const struct name_dict *dict)
{
    struct enc_cursor c;
    struct enc_attr at;
    size_t total = 0, i = 0;

    enc_cursor_init(&c, enc->data, enc->len, dict);
    while (enc_cursor_next(&c, &at)) {
        struct enc_value v = {at.type, at.value, at.value_len};
        size_t size = enc_value_size_bytes(&v);
        if (size != value_size_bytes(&m->u.map.attrs[i++].value)) __builtin_trap();
        total += at.name_len + size;
    }
    if (c.bad || total != item_attrs_size_bytes(m)) __builtin_trap();
}

/* item_project of that projection: the item of those attributes in that order. */
static void check_item_project(const struct item *item)
{
    const char *names[3];
    size_t lens[3];
    struct value attrs;
    struct item *got, *want;
    size_t n = last_and_first(item_attrs(item), names, lens, &attrs);

    want = item_new(&attrs);
    got = item_project(item, names, lens, n);
    if (got->encoded_len != want->encoded_len || got->size_bytes != want->size_bytes ||
        memcmp(got->encoded, want->encoded, want->encoded_len) != 0)
        __builtin_trap();
    item_unref(got);
    item_unref(want);
}

/* The encoding of m (with dict or inline names) must give m and its JSON back. */
static void check_encoding(const char *canon, size_t canon_len, const struct value *m,
                           struct name_dict *dict)
{
    struct text_buf enc = {0};
    struct value back;
    struct json_out w;
    size_t len;
    char *got;

    item_encode(&enc, m, dict);
    if (!item_decode(enc.data, enc.len, dict, &back)) __builtin_trap();
    if (!value_equal(&back, m)) __builtin_trap();
    check_same_json(canon, canon_len, &back);
    value_clear(&back);
    struct decode_arena arena;
    decode_arena_init(&arena);
    if (!item_decode_in(&arena, enc.data, enc.len, dict, &back)) __builtin_trap();
    if (!value_equal(&back, m)) __builtin_trap();
    check_same_json(canon, canon_len, &back);

    json_out_init(&w);
    if (!wire_encoded_write_item(&w, enc.data, enc.len, dict, NULL)) __builtin_trap();
    got = json_out_take(&w, &len);
    json_out_clear(&w);
    if (len != canon_len || memcmp(got, canon, len) != 0) __builtin_trap();
    free(got);
    check_projection(&enc, m, dict);
    check_sizes(&enc, m, dict);

    /* A cut encoding is damage to both readers, never a read past its end. */
    for (size_t cut = enc.len; cut-- > 0 && cut + 64 > enc.len;) {
        char *copy = malloc(cut ? cut : 1);
        memcpy(copy, enc.data, cut);
        if (item_decode(copy, cut, dict, &back)) __builtin_trap();
        decode_arena_reset(&arena);
        if (item_decode_in(&arena, copy, cut, dict, &back)) __builtin_trap();
        json_out_init(&w);
        if (wire_encoded_write_item(&w, copy, cut, dict, NULL)) __builtin_trap();
        json_out_clear(&w);
        free(copy);
    }
    decode_arena_clear(&arena);
    text_buf_clear(&enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct name_dict *dict;
    struct ddb_error err = {0};
    struct value tree, decoded, copy;
    struct text_buf record;
    struct codec_in in;
    struct item *item;
    size_t canon_len, tree_size;
    char *canon;
    json_t *json = json_in_load((const char *) data, size);

    if (!json) return 0;
    if (wire_value_map_from_json(json, &tree, &err) != 0) {
        if (!ddb_error_is_set(&err)) __builtin_trap();
        ddb_error_clear(&err);
        json_decref(json);
        return 0;
    }
    json_decref(json);
    canon = write_json(&tree, &canon_len);
    tree_size = item_attrs_size_bytes(&tree);

    item = item_new(&tree); /* takes the tree: one block from here on */
    if (tree.type != VALUE_NULL || item->size_bytes != tree_size) __builtin_trap();
    check_same_json(canon, canon_len, item_attrs(item));

    text_buf_init(&record);
    codec_put_value(&record, item_attrs(item));
    codec_in_init(&in, record.data, record.len);
    if (!codec_get_value(&in, &decoded) || !codec_ok(&in) || !codec_at_end(&in)) __builtin_trap();
    if (!value_equal(&decoded, item_attrs(item))) __builtin_trap();
    check_same_json(canon, canon_len, &decoded);

    value_copy(&copy, item_attrs(item));
    check_same_json(canon, canon_len, &copy);

    check_item_project(item);
    check_encoding(canon, canon_len, item_attrs(item), NULL);
    dict = name_dict_new();
    check_encoding(canon, canon_len, item_attrs(item), dict);
    check_encoding(canon, canon_len, item_attrs(item), dict); /* names known: ids only */
    name_dict_unref(dict);

    value_clear(&copy);
    value_clear(&decoded);
    text_buf_clear(&record);
    item_unref(item);
    free(canon);
    return 0;
}
