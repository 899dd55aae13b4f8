/*
 * value.h - DynamoDB attribute values as plain C data.
 *
 * struct value is the one in-memory form of an AttributeValue: api/wire/wire_value.c
 * converts JSON to and from it, and everything in storage works on it. Binary
 * data is always pointer + length (strings and binaries may hold NUL); every
 * str.data also has a NUL after its last byte (not counted in len) for the
 * convenience of code that prints it.
 *
 * Ownership: a struct value owns everything it points to. value_clear() frees
 * it; value_copy() deep-copies. Set elements are values of the set's scalar
 * type (S, N or B); N values hold their canonical text (see number.h), so
 * equal numbers have equal bytes.
 *
 * Set order: DynamoDB defines sets as unordered; ddbemu keeps every SS, NS
 * and BS in the order DynamoDB Local returns them (value_compare_set_elements),
 * so every reader (the wire, stream images, exports, PartiQL, the disk form)
 * shows one order whatever order the members came in. The code that builds
 * a set from members (a decoder, an update action, a literal) ends with
 * value_set_sort; code that only drops members keeps the order. Writers
 * assert it (value_set_is_sorted).
 */
#ifndef DDB_VALUE_H
#define DDB_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum value_type {
    VALUE_S,
    VALUE_N,
    VALUE_B,
    VALUE_BOOL,
    VALUE_NULL,
    VALUE_M,
    VALUE_L,
    VALUE_SS,
    VALUE_NS,
    VALUE_BS,
};

struct attr;

struct value {
    enum value_type type;
    union {
        struct {
            char *data; /* owned; S: UTF-8, B: raw bytes, N: canonical number text */
            size_t len;
        } str;
        bool boolean; /* BOOL; NULL carries no data (DynamoDB's NULL is always true) */
        struct {
            struct value *elems; /* owned; L: any values; SS/NS/BS: S/N/B values */
            size_t count;
        } list;
        struct {
            struct attr *attrs; /* owned; names are unique */
            size_t count;
        } map;
    } u;
};

/* One name/value pair of a map (and of an item, which is a top-level map). */
struct attr {
    char *name; /* owned, NUL-terminated; may contain NUL, so use name_len */
    size_t name_len;
    struct value value;
};

/* ---- lifecycle ---- */
void value_clear(struct value *v); /* frees contents; v becomes NULL-typed */
void value_copy(struct value *dst, const struct value *src);
/* Moves src into dst (dst is overwritten without being cleared); src becomes NULL-typed. */
void value_move(struct value *dst, struct value *src);

/* ---- compact copies (the stored form of an item, item.c) ---- */
/* Bytes of one block that holds a copy of v whole: its arrays, names and strings. */
size_t value_compact_size(const struct value *v);
/* Copies src into block (value_compact_size(src) bytes, 8-byte aligned):
 * every array and byte string of the copy lies inside the block, so the copy
 * is freed by freeing the block, never by value_clear, and is read-only
 * (its maps and lists have no room to grow). */
void value_compact_copy(struct value *dst, const struct value *src, void *block);

/* ---- read-only maps in caller memory (item_decode_in's arena) ---- */
/* Bytes (a multiple of 8) of the block a read-only map of count attributes
 * lives in: its attributes and, for a large map, the index value_map_find reads. */
size_t value_frozen_map_bytes(size_t count);
/* Makes m a map of count attributes over block (value_frozen_map_bytes(count),
 * 8-byte aligned). The caller fills m->u.map.attrs[0..count) (unique names),
 * then calls value_frozen_map_seal. Like a compact copy, it is read-only
 * and freed with its block, never by value_clear. */
void value_frozen_map_init(struct value *m, void *block, size_t count);
void value_frozen_map_seal(struct value *m);

/* ---- constructors (the value starts owning a copy of the bytes) ---- */
void value_init_null(struct value *v);
void value_init_bool(struct value *v, bool b);
void value_init_string(struct value *v, const char *data, size_t len);
void value_init_binary(struct value *v, const void *data, size_t len);
/* text must already be canonical (number_format output). */
void value_init_number_text(struct value *v, const char *text, size_t len);
void value_init_map(struct value *v);                        /* empty M */
void value_init_list(struct value *v, enum value_type type); /* empty L, SS, NS or BS */

/* ---- type facts ---- */
const char *value_type_name(enum value_type type); /* "S", "N", ..., "BS" */
bool value_type_from_name(const char *name, size_t len, enum value_type *out);
bool value_is_set(const struct value *v);            /* SS, NS, BS */
bool value_is_scalar_key_type(enum value_type type); /* S, N, B: the types a key may have */
/* The element type of a set type (SS -> S ...). */
enum value_type value_set_element_type(enum value_type set_type);

/* ---- comparison ---- */
/* Deep equality as DynamoDB defines it: same type and same contents; sets
 * compare as sets (order ignored), maps by names regardless of order. */
bool value_equal(const struct value *a, const struct value *b);
/* Order of two values of the same scalar type (S: bytes as unsigned, N:
 * numerically, B: bytes as unsigned), as DynamoDB sorts keys and compares
 * with < <= > >=. Asserts both have the same scalar key type. */
int value_compare_scalar(const struct value *a, const struct value *b);
/* Order of two members of one set, the order DynamoDB Local returns sets in
 * (found by running it, see docs/differences.md): S by UTF-16 code units as
 * Java's String.compareTo (so U+E000..U+FFFF sort after the supplementary
 * planes, unlike UTF-8 byte order), N numerically, B by bytes as unsigned,
 * a prefix first. 0 only for equal members. Asserts both have one of those
 * types and the same one. */
int value_compare_set_elements(const struct value *a, const struct value *b);

/* ---- maps ---- */
/* Position of name in map m's attributes, or -1. O(1) for large maps. */
ssize_t value_map_find(const struct value *m, const char *name, size_t name_len);
/* Borrowed pointer to the value named name in map m, or NULL. */
const struct value *value_map_get(const struct value *m, const char *name, size_t name_len);
/* Sets name to *v, taking v's contents (v is left NULL-typed); replaces an existing value. */
void value_map_set(struct value *m, const char *name, size_t name_len, struct value *v);
/* Appends name, taking v's contents, for a name the caller knows is absent
 * (a decoder whose source has unique names, a copy of another map's names):
 * no lookup, same result as value_map_set. */
void value_map_append(struct value *m, const char *name, size_t name_len, struct value *v);
/* Removes every attribute whose position i has drop[i] set (drop has count
 * entries), keeping the order of the others, in one O(count) pass. */
void value_map_remove_marked(struct value *m, const bool *drop);

/* ---- lists and sets ---- */
/* Appends *v, taking its contents. Works for L and for sets (no duplicate check). */
void value_list_append(struct value *l, struct value *v);
/* For sets: true when an element equal to e is present. O(count): for many
 * tests against one set use a struct value_set_index. */
bool value_set_contains(const struct value *set, const struct value *e);
/* Puts set's members in set order (value_compare_set_elements); O(n log n),
 * each number parsed once. Returns false when two members are equal (left
 * next to each other), which a set may not hold: the caller refuses it. */
bool value_set_sort(struct value *set);
/* Whether set's members are in strictly ascending set order (for asserts). */
bool value_set_is_sorted(const struct value *set);

/* Membership in a set in O(1), for operations over whole sets (equality,
 * ADD, DELETE). Borrows the set, which must not change while in use. */
struct value_set_index {
    const struct value *set;
    uint32_t *slots; /* owned; NULL for small sets (searched linearly) */
    size_t mask;
};
void value_set_index_init(struct value_set_index *ix, const struct value *set);
bool value_set_index_contains(const struct value_set_index *ix, const struct value *e);
void value_set_index_clear(struct value_set_index *ix);

/* ---- size ---- */
/* Size of the value alone by DynamoDB's item-size rules (not counting a name). */
size_t value_size_bytes(const struct value *v);

#endif
