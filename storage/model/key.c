/*
 * key.c - partition hashing and row ordering; see key.h.
 */
#include "storage/model/key.h"

#include <assert.h>
/* The state struct is only visible with static linking declarations; we use it on the stack. */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

uint64_t key_hash(const struct value *const *parts, size_t count)
{
    XXH64_state_t state;
    XXH64_reset(&state, 0);
    for (size_t i = 0; i < count; i++) {
        /* Type and length first, so ("ab","c") and ("a","bc") hash apart. */
        unsigned char header[9];
        uint64_t len = parts[i]->u.str.len;
        header[0] = (unsigned char) parts[i]->type;
        for (int b = 0; b < 8; b++)
            header[1 + b] = (unsigned char) (len >> (8 * b));
        XXH64_update(&state, header, sizeof header);
        XXH64_update(&state, parts[i]->u.str.data, parts[i]->u.str.len);
    }
    return XXH64_digest(&state);
}

int row_key_compare_parts(uint64_t hash, const struct value *const *parts, size_t count,
                          const struct row_key *probe, enum key_bias bias)
{
    if (hash != probe->hash) return hash < probe->hash ? -1 : 1;
    for (size_t i = 0; i < count; i++) {
        int c;
        if (i >= probe->part_count) return -(int) bias;
        if (!probe->parts[i]) return -(int) bias;
        c = value_compare_scalar(parts[i], probe->parts[i]);
        if (c != 0) return c;
    }
    return 0;
}

int row_key_compare(const struct row_key *row, const struct row_key *probe, enum key_bias bias)
{
    return row_key_compare_parts(row->hash, row->parts, row->part_count, probe, bias);
}
