/*
 * name_dict.h - a table's attribute names, interned: name <-> small id.
 *
 * Every item of a table repeats the same few top-level attribute names; the
 * stored encoding (item_encoding.h) keeps a varint id instead of the name.
 * A dictionary belongs to one table and is reference counted: the table
 * holds one reference and every encoded item holds one, so an item that
 * outlives its table (a stream record, a reader's reference, a snapshot)
 * can still be decoded, and the last release - DeleteTable's, or the last
 * such item's - frees the dictionary.
 *
 * Names are never removed while the dictionary lives: ids stay valid for
 * every item without a count per name. What bounds it is NAME_DICT_MAX_NAMES
 * and NAME_DICT_MAX_BYTES: past them name_dict_intern refuses, and the
 * encoder stores the name inline in the item instead (a table whose items
 * use ever new top-level names does not grow a dictionary without end).
 *
 * Concurrency: ids are read (name_dict_name) without a lock from any thread
 * holding a reference, while a writer may intern: entries live in chunks
 * that never move, published by a release store of the count. Interning
 * takes the dictionary's own mutex (writers of one table may run in
 * parallel with the engine's per-table locking).
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
/* How many names it holds, and the bytes it uses (for bench/memory notes). */
size_t name_dict_count(const struct name_dict *d);
size_t name_dict_bytes(const struct name_dict *d);

#endif
