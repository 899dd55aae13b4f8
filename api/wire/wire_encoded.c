/*
 * wire_encoded.c - item JSON from the compact encoding; see wire_encoded.h.
 *
 * Writes the bytes wire_value.c's writer writes (an object per
 * AttributeValue with its type name as the key; NULL as true; sets as arrays
 * of bare payloads), but lays them out itself (json_out's raw values): the
 * type's key and the braces around it are one literal, commas are placed by
 * position, numbers are turned into text in the answer's buffer. A call per
 * token cost more than the token (bench/README.md, "Answers written from
 * the encoding").
 */
#include "api/wire/wire_encoded.h"

#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Appends a literal's bytes (its length known at compile time: the copy is a store or two). */
#define PUT_LIT(w, lit) put_bytes(w, lit, sizeof lit - 1)

static inline void put_bytes(struct json_out *w, const char *bytes, size_t n)
{
    memcpy(json_out_room(w, n), bytes, n);
    w->len += n;
}

/* The payload of an S, N or B value. Nearly every one is under 128 bytes,
 * its length one byte (item_encoding.h: len:uvar bytes): read here, without
 * the call; longer ones through enc_value_bytes. */
static inline bool scalar_bytes(const struct enc_value *v, const uint8_t **data, size_t *len)
{
    if (v->len > 0 && v->p[0] < 0x80 && (size_t) v->p[0] + 1 == v->len) {
        *data = v->p + 1;
        *len = v->p[0];
        return true;
    }
    return enc_value_bytes(v, data, len);
}

/* A number's quoted text, turned from its comparable bytes in the answer's buffer. */
static bool put_number(struct json_out *w, const uint8_t *data, size_t len)
{
    char *o = json_out_room(w, NUMBER_TEXT_MAX + 2);
    size_t n = enc_number_text(data, len, o + 1);

    if (!n) return false;
    o[0] = '"';
    o[n + 1] = '"';
    w->len += n + 2;
    return true;
}

/* The quoted payload of an S, N or B value (what follows "S": and what a set's array holds). */
static inline bool put_scalar(struct json_out *w, const struct enc_value *v)
{
    const uint8_t *data;
    size_t len;

    if (!scalar_bytes(v, &data, &len)) return false;
    if (v->type == ENC_S)
        json_out_raw_string(w, (const char *) data, len);
    else if (v->type == ENC_N)
        return put_number(w, data, len);
    else
        json_out_raw_base64(w, data, len);
    return true;
}

static bool put_value(struct json_out *w, const struct enc_value *v, bool colon);

/* A container's payload: {"name":AttributeValue,...} for M, [AttributeValue,...]
 * for L, [payload,...] for sets. */
static bool put_members(struct json_out *w, const struct enc_value *v)
{
    struct enc_members m;
    struct enc_value e;
    const char *name = NULL;
    size_t name_len = 0;
    bool first = true;

    if (!enc_members_init(&m, v)) return false;
    put_bytes(w, v->type == ENC_M ? "{" : "[", 1);
    while (enc_members_next(&m, &name, &name_len, &e)) {
        if (!first) PUT_LIT(w, ",");
        first = false;
        if (v->type == ENC_M) json_out_raw_string(w, name, name_len);
        if (!(v->type == ENC_M || v->type == ENC_L ? put_value(w, &e, v->type == ENC_M)
                                                   : put_scalar(w, &e)))
            return false;
    }
    put_bytes(w, v->type == ENC_M ? "}" : "]", 1);
    return !m.bad;
}

/*
 * What opens each type's AttributeValue, after the ':' of the member it
 * is the value of (a list element or set member starts at text + 1): the
 * type's key, and for BOOL and NULL the whole value. Copied as one 16-byte
 * block, so each text has room for it.
 */
static const struct {
    char text[24];
    uint8_t len; /* with the ':' */
    bool whole;  /* the value is complete: no payload, no closing '}' */
} openers[] = {
    [ENC_S] = {":{\"S\":", 6, false},
    [ENC_N] = {":{\"N\":", 6, false},
    [ENC_B] = {":{\"B\":", 6, false},
    [ENC_TRUE] = {":{\"BOOL\":true}", 14, true},
    [ENC_FALSE] = {":{\"BOOL\":false}", 15, true},
    [ENC_NULL] = {":{\"NULL\":true}", 14, true},
    [ENC_M] = {":{\"M\":", 6, false},
    [ENC_L] = {":{\"L\":", 6, false},
    [ENC_SS] = {":{\"SS\":", 7, false},
    [ENC_NS] = {":{\"NS\":", 7, false},
    [ENC_BS] = {":{\"BS\":", 7, false},
};

/* An AttributeValue, after the ':' that precedes it when colon is set. */
static bool put_value(struct json_out *w, const struct enc_value *v, bool colon)
{
    size_t skip = !colon;
    char *o;

    if (v->type < ENC_S || v->type > ENC_BS) return false;
    o = json_out_room(w, 16);
    memcpy(o, openers[v->type].text + skip, 16);
    w->len += openers[v->type].len - skip;
    if (openers[v->type].whole) return true;
    if (!(v->type <= ENC_B ? put_scalar(w, v) : put_members(w, v))) return false;
    PUT_LIT(w, "}");
    return true;
}

/* The index of name in keep, or keep->count when it is not kept. */
static size_t kept_index(const struct wire_top_names *keep, const char *name, size_t len)
{
    for (size_t i = 0; i < keep->count; i++) {
        if (keep->lens[i] == len && (len == 0 || keep->names[i][0] == name[0]) &&
            memcmp(keep->names[i], name, len) == 0)
            return i;
    }
    return keep->count;
}

/*
 * The common member laid out at once: a's S or N value under its name, both
 * needing no escape. One room check and one store of the length for the
 * whole member, no call but a number's; the name, the type's key and the
 * string are copied between literals (bench/README.md, "The common member
 * laid out at once"). data, len: the string's bytes or the number's
 * comparable bytes. False, with nothing written, when a byte needs a look:
 * the token writers write the member then.
 */
static inline bool put_plain_member(struct json_out *w, const struct enc_attr *a,
                                    const uint8_t *data, size_t len, bool first)
{
    char *o = json_out_room(w, a->name_len + len + NUMBER_TEXT_MAX + 48);
    enum enc_type type = a->type;

    if (!first) *o++ = ',';
    *o++ = '"';
    /* An interned name was checked once, when the dictionary took it. */
    if (a->name_plain)
        o = json_out_copy(o, a->name, a->name_len);
    else if (!(o = json_out_plain_copy(o, a->name, a->name_len)))
        return false;
    memcpy(o, type == ENC_S ? "\":{\"S\":\"" : "\":{\"N\":\"", 8);
    o += 8;
    if (type == ENC_S) {
        if (!(o = json_out_plain_copy(o, (const char *) data, len))) return false;
    } else {
        size_t n = enc_number_text(data, len, o);
        if (!n) return false;
        o += n;
    }
    memcpy(o, "\"}", 2);
    w->len = (size_t) (o + 2 - w->data);
    return true;
}

/* A member "name":AttributeValue of the item's object, token by token. */
static bool put_attr_tokens(struct json_out *w, const struct enc_attr *a, bool first)
{
    struct enc_value v = {a->type, a->value, a->value_len};

    if (!first) PUT_LIT(w, ",");
    json_out_raw_string(w, a->name, a->name_len);
    return put_value(w, &v, true);
}

/* A member "name":AttributeValue of the item's object: laid out at once when
 * it is plain. Inline in the writers' loops: a call per attribute cost ~170
 * instructions an item, the string test's constants loaded again in each. */
static inline bool put_attr(struct json_out *w, const struct enc_attr *a, bool first)
{
    struct enc_value v = {a->type, a->value, a->value_len};
    const uint8_t *data;
    size_t len;

    if ((a->type == ENC_S || a->type == ENC_N) && scalar_bytes(&v, &data, &len) &&
        put_plain_member(w, a, data, len, first))
        return true;
    return put_attr_tokens(w, a, first);
}

/* Kept attributes found on the stack up to this many names; more are allocated. */
#define KEEP_ON_STACK 16

/* The projection: one walk finds each kept name's attribute (an item's names
 * are distinct, so it stops once all are found), then they are written in
 * keep's order. */
static bool write_kept(struct json_out *w, struct enc_cursor *c, const struct wire_top_names *keep)
{
    struct enc_attr stack[KEEP_ON_STACK], a;
    struct enc_attr *found =
        keep->count <= KEEP_ON_STACK ? stack : xmalloc(keep->count * sizeof *found);
    size_t seen = 0, written = 0;
    bool ok = true;

    for (size_t i = 0; i < keep->count; i++)
        found[i].name = NULL;
    while (seen < keep->count && enc_cursor_next(c, &a)) {
        size_t i = kept_index(keep, a.name, a.name_len);
        if (i == keep->count || found[i].name) continue;
        found[i] = a;
        seen++;
    }
    if (seen < keep->count) ok = !c->bad && c->p == c->end;
    for (size_t i = 0; ok && i < keep->count; i++) {
        if (found[i].name) ok = put_attr(w, &found[i], written++ == 0);
    }
    if (found != stack) free(found);
    return ok;
}

bool wire_encoded_write_item(struct json_out *w, const void *data, size_t len,
                             const struct name_dict *dict, const struct wire_top_names *keep)
{
    struct enc_cursor c;
    struct enc_attr a;
    bool first = true;

    enc_cursor_init(&c, data, len, dict);
    json_out_raw_begin(w);
    PUT_LIT(w, "{");
    if (keep) {
        if (!write_kept(w, &c, keep)) return false;
    } else {
        while (enc_cursor_next(&c, &a)) {
            if (!put_attr(w, &a, first)) return false;
            first = false;
        }
        if (c.bad || c.p != c.end) return false;
    }
    PUT_LIT(w, "}");
    json_out_raw_end(w);
    return true;
}

void wire_write_stored_item(struct json_out *w, const struct item *item)
{
    bool ok = wire_encoded_write_item(w, item->encoded, item->encoded_len, item_names(), NULL);
    assert(ok); /* item_new's own bytes */
    (void) ok;
}

void wire_write_projected_item(struct json_out *w, const struct item *item,
                               const struct expr *projection)
{
    struct expr_top_names top;
    struct value projected;

    if (!projection) {
        wire_write_stored_item(w, item);
    } else if (expr_projection_top_names(projection, &top)) {
        struct wire_top_names keep = {top.names, top.lens, top.count};
        bool ok = wire_encoded_write_item(w, item->encoded, item->encoded_len, item_names(), &keep);
        assert(ok);
        (void) ok;
    } else {
        expr_project(projection, item_attrs(item), &projected);
        wire_value_write_map(w, &projected);
        value_clear(&projected);
    }
}
