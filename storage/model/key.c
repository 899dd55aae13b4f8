/*
 * key.c - partition hashing and row ordering; see key.h.
 */
#include "storage/model/key.h"

#include <assert.h>
#include <string.h>
/* The state struct is only visible with static linking declarations; we use it on the stack. */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

void key_part_of(const struct value *v, uint8_t number[NUMBER_COMPARABLE_MAX], struct key_part *out)
{
    assert(value_is_scalar_key_type(v->type));
    out->type = (uint8_t) v->type;
    if (v->type == VALUE_N) {
        out->len = (uint32_t) number_text_to_comparable(v->u.str.data, v->u.str.len, number);
        out->data = number;
    } else {
        assert(v->u.str.len <= UINT32_MAX);
        out->len = (uint32_t) v->u.str.len;
        out->data = (const uint8_t *) v->u.str.data;
    }
}

void key_part_value(const struct key_part *p, char *text, struct value *out)
{
    out->type = (enum value_type) p->type;
    if (p->type == VALUE_N) {
        out->u.str.len = enc_number_text(p->data, p->len, text);
        assert(out->u.str.len > 0); /* comparable bytes of a valid number */
        out->u.str.data = text;
    } else {
        out->u.str.data = (char *) (uintptr_t) p->data; /* read-only view */
        out->u.str.len = p->len;
    }
}

int key_part_compare(const struct key_part *a, const struct key_part *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->data, b->data, n) : 0;

    assert(a->type == b->type);
    if (c != 0) return c < 0 ? -1 : 1;
    return a->len < b->len ? -1 : a->len > b->len;
}

bool key_part_equal(const struct key_part *a, const struct key_part *b)
{
    return a->type == b->type && a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

uint64_t key_hash(const struct key_part *parts, size_t count)
{
    XXH64_state_t state;
    XXH64_reset(&state, 0);
    for (size_t i = 0; i < count; i++) {
        /* Type and length first, so ("ab","c") and ("a","bc") hash apart. */
        unsigned char header[9];
        char text[NUMBER_TEXT_MAX];
        const void *data = parts[i].data;
        uint64_t len = parts[i].len;

        if (parts[i].type == VALUE_N) { /* hashed as its canonical text, as before (key.h) */
            len = enc_number_text(parts[i].data, parts[i].len, text);
            assert(len > 0);
            data = text;
        }
        header[0] = parts[i].type;
        for (int b = 0; b < 8; b++)
            header[1 + b] = (unsigned char) (len >> (8 * b));
        XXH64_update(&state, header, sizeof header);
        XXH64_update(&state, data, len);
    }
    return XXH64_digest(&state);
}

int row_key_compare(const struct row_key *row, const struct row_key *probe, enum key_bias bias)
{
    if (row->hash != probe->hash) return row->hash < probe->hash ? -1 : 1;
    for (size_t i = 0; i < row->part_count; i++) {
        int c;
        if (i >= probe->part_count || !probe->parts[i].data) return -(int) bias;
        c = key_part_compare(&row->parts[i], &probe->parts[i]);
        if (c != 0) return c;
    }
    return 0;
}

/* ---- packed parts ---- */

static size_t uvar_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

size_t key_parts_packed_size(const struct key_part *parts, size_t count)
{
    size_t size = 0;
    for (size_t i = 0; i < count; i++)
        size += 1 + uvar_size(parts[i].len) + parts[i].len;
    return size;
}

void key_parts_pack(const struct key_part *parts, size_t count, uint8_t *out)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t len = parts[i].len;
        *out++ = parts[i].type;
        do {
            uint8_t c = len & 0x7F;
            len >>= 7;
            *out++ = (uint8_t) (len ? c | 0x80 : c);
        } while (len);
        if (parts[i].len) memcpy(out, parts[i].data, parts[i].len);
        out += parts[i].len;
    }
}

/* One packed part at p into *out; returns the byte after it. The bytes are
 * the node's own (key_parts_pack), so nothing is checked. */
static inline const uint8_t *unpack_one(const uint8_t *p, struct key_part *out)
{
    uint32_t len = 0;
    int shift = 0;

    out->type = *p++;
    while (*p & 0x80) {
        len |= (uint32_t) (*p++ & 0x7F) << shift;
        shift += 7;
    }
    len |= (uint32_t) *p++ << shift;
    out->len = len;
    out->data = p;
    return p + len;
}

void key_parts_unpack(const uint8_t *packed, size_t count, struct key_part *out)
{
    for (size_t i = 0; i < count; i++)
        packed = unpack_one(packed, &out[i]);
}

int row_key_compare_packed(uint64_t hash, const uint8_t *packed, size_t count,
                           const struct row_key *probe, enum key_bias bias)
{
    if (hash != probe->hash) return hash < probe->hash ? -1 : 1;
    for (size_t i = 0; i < count; i++) {
        struct key_part part;
        int c;
        if (i >= probe->part_count || !probe->parts[i].data) return -(int) bias;
        packed = unpack_one(packed, &part);
        c = key_part_compare(&part, &probe->parts[i]);
        if (c != 0) return c;
    }
    return 0;
}
