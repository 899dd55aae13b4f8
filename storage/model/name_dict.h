/*
 * name_dict.h - attribute names, interned: name <-> small id.
 *
 * Items repeat the same few top-level attribute names; the stored encoding
 * (item_encoding.h) keeps a varint id instead of the name. The engine's
 * items share one dictionary for the whole process (item.c: a table's
 * names are interned the first time any of its items is stored, and ids
 * never change, so an item can be moved between tables, forks, snapshots
 * and stream records without being encoded again). A dictionary is
 * reference counted for the other users (tests, benchmarks): its last
 * release frees it.
 *
 * Names are never removed while the dictionary lives: ids stay valid for
 * every item without a count per name. What bounds it is NAME_DICT_MAX_NAMES
 * and NAME_DICT_MAX_BYTES: past them name_dict_intern refuses, and the
 * encoder stores the name inline in the item instead (items that use ever
 * new top-level names do not grow a dictionary without end).
 *
 * Concurrency: lookups (name_dict_find, name_dict_name, name_dict_entry_of,
 * name_dict_chunk, and name_dict_intern of a name already present) take no
 * lock, from any thread holding a reference, while a writer may add:
 * entries live in chunks that never move, published by release stores
 * (name_dict.c). Adding a name takes the dictionary's own mutex.
 */
#ifndef DDB_NAME_DICT_H
#define DDB_NAME_DICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NAME_DICT_CHUNK     256
#define NAME_DICT_MAX_NAMES 65536
#define NAME_DICT_MAX_BYTES (4u << 20)

struct name_dict;

/* One interned name. Entries live in chunks of NAME_DICT_CHUNK that never
 * move, so a reader that saw an id below name_dict_count() may read its
 * entry without a call (name_dict_chunk). */
struct name_dict_entry {
    char *name; /* owned by the dictionary, NUL-terminated */
    uint32_t len;
    bool plain; /* text_json_plain: an answer copies it without a look */
};

/* A new, empty dictionary with one reference (the caller's). */
struct name_dict *name_dict_new(void);
/* Adds a reference and returns d; NULL stays NULL. */
struct name_dict *name_dict_ref(struct name_dict *d);
/* Drops a reference; frees at zero. NULL is a no-op. */
void name_dict_unref(struct name_dict *d);

/* The id of name (added when new) into *id; false when the dictionary is
 * full (the caller keeps the name inline). Needs no lock (see above). */
bool name_dict_intern(struct name_dict *d, const char *name, size_t len, uint32_t *id);
/* The id of name if it is present, without adding it. */
bool name_dict_find(const struct name_dict *d, const char *name, size_t len, uint32_t *id);
/* The name of id (NUL-terminated, borrowed for the dictionary's life) and
 * its length; id must have come from this dictionary. */
const char *name_dict_name(const struct name_dict *d, uint32_t id, size_t *len);
/* The entry of id; id must have come from this dictionary. */
const struct name_dict_entry *name_dict_entry_of(const struct name_dict *d, uint32_t id);
/* The entries of ids [k * NAME_DICT_CHUNK, (k + 1) * NAME_DICT_CHUNK), or NULL
 * before the first of them was added; valid for the dictionary's life. */
const struct name_dict_entry *name_dict_chunk(const struct name_dict *d, size_t k);
/* How many names it holds, and the bytes it uses (for bench/memory notes). */
size_t name_dict_count(const struct name_dict *d);
size_t name_dict_bytes(const struct name_dict *d);

#endif
