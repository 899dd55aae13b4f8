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
 *     write the same JSON, and a copy (value_copy) of the stored tree too.
 * Nothing may crash, trip an assertion or sanitizer, or leak. Built only with
 * -DDDB_FUZZ=ON and clang (see api/CMakeLists.txt).
 */
#include "api/wire/json_in.h"
#include "api/wire/wire_value.h"
#include "storage/base/text.h"
#include "storage/model/codec.h"
#include "storage/model/item.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
    check_same_json(canon, canon_len, &item->attrs);

    text_buf_init(&record);
    codec_put_value(&record, &item->attrs);
    codec_in_init(&in, record.data, record.len);
    if (!codec_get_value(&in, &decoded) || !codec_ok(&in) || !codec_at_end(&in)) __builtin_trap();
    if (!value_equal(&decoded, &item->attrs)) __builtin_trap();
    check_same_json(canon, canon_len, &decoded);

    value_copy(&copy, &item->attrs);
    check_same_json(canon, canon_len, &copy);

    value_clear(&copy);
    value_clear(&decoded);
    text_buf_clear(&record);
    item_unref(item);
    free(canon);
    return 0;
}
