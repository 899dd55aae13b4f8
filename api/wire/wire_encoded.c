/*
 * wire_encoded.c - item JSON from the compact encoding; see wire_encoded.h.
 *
 * Mirrors wire_value.c's writer token for token (an object per
 * AttributeValue with its type name as the key; NULL as true; sets as arrays
 * of bare payloads), so both give the same bytes for one item.
 */
#include "api/wire/wire_encoded.h"

#include <string.h>

static const char *const type_names[] = {
    [ENC_S] = "S",        [ENC_N] = "N",       [ENC_B] = "B",   [ENC_TRUE] = "BOOL",
    [ENC_FALSE] = "BOOL", [ENC_NULL] = "NULL", [ENC_M] = "M",   [ENC_L] = "L",
    [ENC_SS] = "SS",      [ENC_NS] = "NS",     [ENC_BS] = "BS",
};

static bool write_value(struct json_out *w, const struct enc_value *v);

/* The bare payload of a value (what follows "S": and what a set's array holds). */
static bool write_payload(struct json_out *w, const struct enc_value *v)
{
    const uint8_t *data;
    size_t len;
    char text[NUMBER_TEXT_MAX];
    struct enc_members m;
    struct enc_value e;
    const char *name = NULL;
    size_t name_len = 0;

    switch (v->type) {
    case ENC_S:
        if (!enc_value_bytes(v, &data, &len)) return false;
        json_out_stringn(w, (const char *) data, len);
        return true;
    case ENC_B:
        if (!enc_value_bytes(v, &data, &len)) return false;
        json_out_base64(w, data, len);
        return true;
    case ENC_N:
        if (!enc_value_bytes(v, &data, &len) || !(len = enc_number_text(data, len, text)))
            return false;
        json_out_stringn(w, text, len);
        return true;
    case ENC_TRUE:
    case ENC_NULL: json_out_bool(w, true); return true;
    case ENC_FALSE: json_out_bool(w, false); return true;
    case ENC_M:
        if (!enc_members_init(&m, v)) return false;
        json_out_object_begin(w);
        while (enc_members_next(&m, &name, &name_len, &e)) {
            json_out_keyn(w, name, name_len);
            if (!write_value(w, &e)) return false;
        }
        json_out_object_end(w);
        return !m.bad;
    case ENC_L:
    case ENC_SS:
    case ENC_NS:
    case ENC_BS:
        if (!enc_members_init(&m, v)) return false;
        json_out_array_begin(w);
        while (enc_members_next(&m, &name, &name_len, &e)) {
            if (!(v->type == ENC_L ? write_value(w, &e) : write_payload(w, &e))) return false;
        }
        json_out_array_end(w);
        return !m.bad;
    }
    return false;
}

static bool write_value(struct json_out *w, const struct enc_value *v)
{
    if (v->type < ENC_S || v->type > ENC_BS) return false;
    json_out_object_begin(w);
    json_out_key(w, type_names[v->type]);
    if (!write_payload(w, v)) return false;
    json_out_object_end(w);
    return true;
}

static bool kept(const struct wire_top_names *keep, const char *name, size_t len)
{
    if (!keep) return true;
    for (size_t i = 0; i < keep->count; i++) {
        if (keep->lens[i] == len && memcmp(keep->names[i], name, len) == 0) return true;
    }
    return false;
}

bool wire_encoded_write_item(struct json_out *w, const void *data, size_t len,
                             const struct name_dict *dict, const struct wire_top_names *keep)
{
    struct enc_cursor c;
    struct enc_attr a;

    enc_cursor_init(&c, data, len, dict);
    json_out_object_begin(w);
    while (enc_cursor_next(&c, &a)) {
        if (!kept(keep, a.name, a.name_len)) continue;
        struct enc_value v = {a.type, a.value, a.value_len};
        json_out_keyn(w, a.name, a.name_len);
        if (!write_value(w, &v)) return false;
    }
    json_out_object_end(w);
    return !c.bad && c.p == c.end;
}
