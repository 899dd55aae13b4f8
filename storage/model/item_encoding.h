/*
 * item_encoding.h - the compact byte form of an item (issue 26).
 *
 * The form the design in docs/architecture.md ("The stored item") keeps in
 * a table: no pointers, no per-node allocation, every value skippable.
 *
 *   item      := count:uvar attr*                 (top level)
 *   attr      := name type:u8 value
 *   name      := uvar(id << 1)                    an id of the table's name_dict
 *              | uvar(len << 1 | 1) bytes          inline (no dictionary, or it is full)
 *   value     := S, B: len:uvar bytes
 *                N:    len:uvar comparable bytes   (number_to_comparable)
 *                TRUE, FALSE, NULL: nothing
 *                M:    body_len:uvar count:uvar (len:uvar name-bytes type value)*
 *                L:    body_len:uvar count:uvar (type value)*
 *                SS/BS/NS: body_len:uvar count:uvar (len:uvar bytes)*   members in set order
 *
 * Nested map names are inline: only top-level names repeat across items
 * often enough to pay for a dictionary entry, and arbitrary nested keys
 * (maps used as dictionaries) would grow it without end. Containers carry
 * their body's byte length, so a reader skips a value without walking it.
 *
 * Numbers: sign class byte (0 negative, 1 zero, 2 positive), then for
 * non-zero numbers the exponent byte (exponent + 129, inverted when
 * negative), the digits packed two to a byte as digit + 1 (a 0 nibble pads
 * an odd count), inverted for negatives and followed by 0xFF. memcmp of two
 * comparable forms (the shorter, when a prefix, first) orders the numbers,
 * and equal numbers have equal bytes, so keys compare and hash unparsed.
 *
 * Decoding checks every length, count, type byte, number and set order
 * against the input and returns false on anything malformed, never reading
 * past its end (fuzz_item_codec cuts encodings to check it). It does not
 * look for a name twice in one map: only item_encode's output, whose maps
 * come from struct value maps, is ever decoded. Pure functions; no locking
 * beyond name_dict's own.
 */
#ifndef DDB_ITEM_ENCODING_H
#define DDB_ITEM_ENCODING_H

#include "storage/base/text.h"
#include "storage/model/name_dict.h"
#include "storage/model/number.h"
#include "storage/model/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Type bytes of the encoding (not enum value_type: BOOL splits in two). */
enum enc_type {
    ENC_S = 1,
    ENC_N,
    ENC_B,
    ENC_TRUE,
    ENC_FALSE,
    ENC_NULL,
    ENC_M,
    ENC_L,
    ENC_SS,
    ENC_NS,
    ENC_BS,
};

/* Longest comparable number: class, exponent, 19 digit bytes, terminator. */
#define NUMBER_COMPARABLE_MAX 22

/* The comparable bytes of n into out; returns their count. */
size_t number_to_comparable(const struct number *n, uint8_t out[NUMBER_COMPARABLE_MAX]);
/* The comparable bytes of a canonical number text (value.h: a stored N). */
size_t number_text_to_comparable(const char *text, size_t len, uint8_t out[NUMBER_COMPARABLE_MAX]);
/* The number of comparable bytes p[0..len); false when they are not a valid form. */
bool number_from_comparable(const uint8_t *p, size_t len, struct number *out);

/* The uvar of every count and length above: 7 bits a byte, low first, the
 * high bit set on all but the last. How many bytes v takes; and v written
 * at p, returning the byte after it. */
size_t enc_uvar_size(uint64_t v);
static inline uint8_t *enc_put_uvar(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t) (v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t) v;
    return p;
}

/* Appends the encoding of map attrs (VALUE_M, canonical N texts, sets in
 * set order) to out. Top-level names are interned in dict; with dict NULL
 * (or when it is full) they are kept inline. */
void item_encode(struct text_buf *out, const struct value *attrs, struct name_dict *dict);
/* Appends one top-level attribute (item_encode's attr: name, type, value)
 * to out: for a writer that puts an item together from pieces of another
 * (item_with_changes). */
void item_encode_attr(struct text_buf *out, const char *name, size_t name_len,
                      const struct value *v, struct name_dict *dict);
/* Decodes an encoding into *out (a new VALUE_M the caller owns). dict is
 * the one item_encode used (NULL when it had none). False, with *out
 * NULL-typed, when the bytes are malformed or name an id dict lacks. */
bool item_decode(const void *data, size_t len, const struct name_dict *dict, struct value *out);

/* The encoding is self-delimiting: the length of the one that begins at
 * data, found by walking its attributes (each skipped by its own length),
 * never reading past max bytes; 0 when none ends within them. A stored item
 * need not keep its length beside it (docs/architecture.md). */
size_t item_encoded_length(const void *data, size_t max, const struct name_dict *dict);

/* ---- decoding into a per-request arena ---- */

/* Bump memory for the trees one request decodes: blocks that grow, freed or
 * reused all at once. The paths that need a struct value (conditions,
 * filters, updates) decode into it instead of a malloc per node and a
 * value_clear per tree (bench/README.md, "Memory per item": the compact encoding). */
struct decode_arena {
    struct decode_block *blocks; /* owned; the newest first */
    char *next, *end;            /* free space of the newest block */
    struct decode_block *spare;  /* owned; the last block a release let go of, for reuse */
};

void decode_arena_init(struct decode_arena *a);
/* Forgets every tree decoded into a, keeping its first block for reuse. */
void decode_arena_reset(struct decode_arena *a);
/* Frees everything; a is empty again. */
void decode_arena_clear(struct decode_arena *a);

/* A point of an arena to come back to (issue 26, step 2): a loop that
 * decodes many items outside a request (an export, the TTL sweeper, a
 * backfill) marks the arena before each item and releases it after, so its
 * memory stays bounded and whatever the caller decoded before the mark
 * stays valid. Marks nest; a release forgets everything decoded after its
 * mark (and after any mark taken since); a reset or clear forgets every
 * mark. With DDB_SANITIZE_ARENA (the
 * sanitizer build) every allocation is its own block and a reset or release
 * frees it, so AddressSanitizer reports a tree used after its release. */
struct decode_mark {
    struct decode_block *block; /* the newest block at the mark; NULL when none */
    char *next;
};
struct decode_mark decode_arena_mark(const struct decode_arena *a);
void decode_arena_release(struct decode_arena *a, struct decode_mark mark);

/* item_decode, with the tree in a: read-only, valid until a is reset or
 * cleared, never value_clear-ed. Interned names point into dict, which the
 * caller keeps alive as long (the item's reference does). On false *out is
 * NULL-typed and whatever a holds of it is dropped with a's next reset. */
bool item_decode_in(struct decode_arena *a, const void *data, size_t len,
                    const struct name_dict *dict, struct value *out);

/* size bytes (8-byte aligned) from a, valid as long as what a decodes:
 * for a caller that decodes into a (item.c: the root of an item's tree). */
void *decode_arena_alloc(struct decode_arena *a, size_t size);

/* ---- reading without decoding ---- */

/* One top-level attribute of an encoding: its name and its value's bytes. */
struct enc_attr {
    const char *name; /* borrowed (from the encoding or the dictionary); not NUL-terminated */
    size_t name_len;
    bool name_plain; /* an interned name that text_json_plain holds; false: not known */
    enum enc_type type;
    const uint8_t *value; /* the value after its type byte */
    size_t value_len;     /* bytes of it, including its own length prefix */
};

/* Walks an encoding's top-level attributes. */
struct enc_cursor {
    const uint8_t *p, *end;
    const struct name_dict *dict;
    size_t names; /* the dictionary's names when the walk began: every id an item holds */
    /* The dictionary's first NAME_DICT_CHUNK entries (NULL without names):
     * nearly every id, read without a call. */
    const struct name_dict_entry *first_names;
    uint64_t left; /* attributes not yet returned */
    bool bad;
};

void enc_cursor_init(struct enc_cursor *c, const void *data, size_t len,
                     const struct name_dict *dict);
/* enc_cursor_next for any attribute. */
bool enc_cursor_next_any(struct enc_cursor *c, struct enc_attr *out);

/* The interned name id (below c->names) into *out: one of the dictionary's
 * first NAME_DICT_CHUNK, nearly every one, from the chunk the cursor holds,
 * without a call. */
static inline void enc_cursor_name(const struct enc_cursor *c, uint32_t id, struct enc_attr *out)
{
    const struct name_dict_entry *e =
        id < NAME_DICT_CHUNK ? &c->first_names[id] : name_dict_entry_of(c->dict, id);
    out->name = e->name;
    out->name_len = e->len;
    out->name_plain = e->plain;
}

/*
 * The next attribute into *out; false at the end or (c->bad) on damage.
 * Inline for the common attribute - a name interned with an id below 2^13
 * (its varint one or two bytes), an S, N or B value whose length takes one
 * byte - read without a call; any other through enc_cursor_next_any.
 * Answers walk every attribute of every item they write (bench/README.md,
 * "The common member laid out at once").
 */
static inline bool enc_cursor_next(struct enc_cursor *c, struct enc_attr *out)
{
    const uint8_t *p = c->p;
    size_t avail = (size_t) (c->end - p), k = 1, len;
    uint32_t id;

    /* A cut encoding too: enc_cursor_next_any says it is bad. */
    if (c->bad || c->left == 0 || avail < 3) return enc_cursor_next_any(c, out);
    id = p[0];
    if (id & 0x80) {
        if (avail < 4 || (p[1] & 0x80)) return enc_cursor_next_any(c, out);
        id = (id & 0x7F) | (uint32_t) p[1] << 7;
        k = 2;
    }
    len = p[k + 1];
    if ((id & 1) || (id >> 1) >= c->names || p[k] < ENC_S || p[k] > ENC_B || len >= 0x80 ||
        len > avail - k - 2)
        return enc_cursor_next_any(c, out);
    enc_cursor_name(c, id >> 1, out);
    out->type = (enum enc_type) p[k];
    out->value = p + k + 1;
    out->value_len = 1 + len;
    c->p = p + k + 2 + len;
    c->left--;
    return true;
}
/* A value inside an encoding, read in place: its type and its bytes after
 * the type byte (for S, N and B the length prefix and the bytes, for
 * containers the body length and the body; nothing for TRUE/FALSE/NULL). */
struct enc_value {
    enum enc_type type;
    const uint8_t *p;
    size_t len;
};

/* The payload of an S, N or B value: the string's or binary's bytes, or a
 * number's comparable bytes. False when v is damaged. */
bool enc_value_bytes(const struct enc_value *v, const uint8_t **data, size_t *len);
/* The canonical text of comparable number bytes into buf (NUMBER_TEXT_MAX);
 * returns its length, 0 when the bytes are not a number. */
size_t enc_number_text(const uint8_t *data, size_t len, char *buf);

/* DynamoDB's size of the value v (value_size_bytes of its decoded tree),
 * read in place: a number's size from its count of digit nibbles, a
 * container's from its members. An item's size is the sum of its names'
 * bytes and these (item_project sizes its new item without decoding).
 * Damaged bytes give an undefined size, never a read past v. */
size_t enc_value_size_bytes(const struct enc_value *v);

/* Walks the members of an M, L or set value, in stored order. */
struct enc_members {
    const uint8_t *p, *end;
    uint64_t left;
    enum enc_type container;
    bool bad;
};
/* False when v is not a container or is damaged. */
bool enc_members_init(struct enc_members *m, const struct enc_value *v);
/* The next member into *out (and, in a map, its name into *name and *name_len,
 * not NUL-terminated); false at the end or (m->bad) on damage. */
bool enc_members_next(struct enc_members *m, const char **name, size_t *name_len,
                      struct enc_value *out);

/* Decodes one value (type and bytes from an enc_attr) into *out; false when
 * malformed: a tree the caller owns, or (_in) one in a, as item_decode_in. */
bool enc_value_decode_in(struct decode_arena *a, enum enc_type type, const uint8_t *p, size_t len,
                         struct value *out);
bool enc_value_decode(enum enc_type type, const uint8_t *p, size_t len, struct value *out);

#endif
