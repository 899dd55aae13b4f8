/*
 * fuzz_wire_decode.c - libFuzzer target for the wire decoders.
 *
 * Input: one byte choosing the decoder, then a JSON text.
 *   0  json_in_load (json_in.c's own reader): whatever jansson itself
 *      accepts must be read, and read the same; whatever jansson refuses
 *      must be refused, but for a NUL in an object key; a raw NUL byte
 *      is refused wherever it stands.
 *   1  AttributeValue maps (wire_value.c) on unchecked JSON: whatever decodes
 *      is written back (wire_value_write_map), read again and must decode to
 *      an equal value; a failure must set the error and leave nothing owned.
 *   2  table definitions (wire_table.c): a body that passes CreateTable's
 *      request shape (shape.c) and rules (table_rules.c) is decoded into a
 *      table definition and written back as a CreateTable request, which
 *      must pass both again.
 * Nothing may crash, trip an assertion or sanitizer, or leak. Built only with
 * -DDDB_FUZZ=ON and clang (see api/CMakeLists.txt).
 */
#include "api/ops/ops.h"
#include "api/ops/table_rules.h"
#include "api/wire/json_in.h"
#include "api/wire/shape.h"
#include "api/wire/wire_table.h"
#include "api/wire/wire_value.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_json_in(const char *text, size_t len)
{
    json_error_t jerr;
    json_t *ours = json_in_load(text, len);
    json_t *theirs = json_loadb(text, len, JSON_ALLOW_NUL | JSON_DECODE_ANY, &jerr);

    /* A raw NUL byte is never JSON: refused wherever it stands (jansson
     * drops one that directly follows a number, a quirk not copied). */
    if (memchr(text, 0, len)) {
        if (ours) __builtin_trap();
    } else {
        if (theirs && (!ours || !json_equal(ours, theirs))) __builtin_trap();
        /* Refused alike, but for a NUL in a key, which only jansson refuses. */
        if (!theirs && ours && json_error_code(&jerr) != json_error_null_byte_in_key)
            __builtin_trap();
    }
    json_decref(theirs);
    json_decref(ours);
}

static void fuzz_value(const char *text, size_t len)
{
    struct ddb_error err = {0};
    struct value v, again;
    struct json_out w;
    json_t *json = json_in_load(text, len), *back;
    size_t out_len;
    char *out;

    if (!json) return;
    if (json_is_object(json)) {
        const char *key;
        json_t *member;
        /* The first member alone, as a top-level attribute value. */
        json_object_foreach(json, key, member)
        {
            if (wire_value_from_json(member, &v, &err) == 0)
                value_clear(&v);
            else if (!ddb_error_is_set(&err))
                __builtin_trap();
            ddb_error_clear(&err);
            break;
        }
    }
    if (wire_value_map_from_json(json, &v, &err) != 0) {
        if (!ddb_error_is_set(&err)) __builtin_trap();
        ddb_error_clear(&err);
        json_decref(json);
        return;
    }
    json_out_init(&w);
    wire_value_write_map(&w, &v);
    out = json_out_take(&w, &out_len);
    json_out_clear(&w);
    back = json_in_load(out, out_len);
    if (!back || wire_value_map_from_json(back, &again, &err) != 0) __builtin_trap();
    if (!value_equal(&v, &again)) __builtin_trap();
    value_clear(&again);
    value_clear(&v);
    json_decref(back);
    free(out);
    json_decref(json);
}

static void fuzz_table(const char *text, size_t len)
{
    const struct field *fields = create_table_fields;
    struct ddb_error err = {0};
    struct table_def def;
    json_t *body = json_in_load(text, len), *back;

    if (!body || !json_is_object(body) || shape_check(fields, body, &err) != 0 ||
        table_rules_check_create(body, &err) != 0) {
        ddb_error_clear(&err);
        json_decref(body);
        return;
    }
    wire_table_def_from_json(body, &def);
    back = wire_table_def_to_create_json(&def);
    if (shape_check(fields, back, &err) != 0 || table_rules_check_create(back, &err) != 0) {
        fprintf(stderr, "%s\n", err.message ? err.message : "?");
        __builtin_trap();
    }
    json_decref(back);
    table_def_clear(&def);
    json_decref(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *) data + 1;

    if (size == 0) return 0;
    switch (data[0] % 3) {
    case 0: fuzz_json_in(text, size - 1); break;
    case 1: fuzz_value(text, size - 1); break;
    default: fuzz_table(text, size - 1); break;
    }
    return 0;
}
