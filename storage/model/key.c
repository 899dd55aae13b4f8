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
    out->src = NULL;
    if (v->type == VALUE_N) {
        out->len = (uint32_t) number_text_to_comparable(v->u.str.data, v->u.str.len, number);
        out->data = number;
    } else {
        assert(v->u.str.len <= UINT32_MAX);
        out->len = (uint32_t) v->u.str.len;
        out->data = (const uint8_t *) v->u.str.data;
    }
}

void key_part_at(const uint8_t *at, struct key_part *out)
{
    const uint8_t *p = at + 1;
    uint64_t len = 0;

    /* A stored item's bytes, written by item_encode: trusted, not checked. */
    for (unsigned shift = 0;; shift += 7) {
        uint8_t c = *p++;
        len |= (uint64_t) (c & 0x7F) << shift;
        if (!(c & 0x80)) break;
    }
    assert(at[0] == ENC_S || at[0] == ENC_N || at[0] == ENC_B);
    out->type = at[0] == ENC_S ? VALUE_S : at[0] == ENC_N ? VALUE_N : VALUE_B;
    out->data = p;
    out->len = (uint32_t) len;
    out->src = at;
}

void key_part_value(const struct key_part *p, char *text, struct value *out)
{
    out->type = (enum value_type) p->type;
    if (p->type == VALUE_N) {
        out->u.str.len = enc_number_text(p->data, p->len, text);
        assert(out->u.str.len > 0); /* comparable bytes of a valid number */
        out->u.str.data = text;
    } else {
        out->u.str.data = (char *) (uintptr_t) p->data; /* a read-only view */
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
