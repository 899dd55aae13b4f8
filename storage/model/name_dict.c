/*
 * name_dict.c - interned attribute names; see name_dict.h.
 *
 * Layout: entries in chunks of NAME_DICT_CHUNK that never move, a chunk
 * directory of fixed size, and an open-addressed hash of ids. Lookups take
 * no lock: every item_new of every table looks its names up here (one
 * dictionary serves the process: item.c), so a mutex on that path would be
 * a cache line every writer thread trades. An entry is written before the
 * release store of its slot, so a reader that sees the slot sees the name;
 * a grown hash is published whole by a release store of the table pointer,
 * and the tables it replaced stay allocated until the dictionary is freed
 * (a reader may still be probing them; together they are smaller than the
 * newest one). Only the mutex holder adds.
 */
#include "storage/model/name_dict.h"

#include "storage/base/alloc.h"
#include "storage/base/text.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

/* The hash of ids: slots hold id + 1, 0 when empty. */
struct slot_table {
    struct slot_table *retired; /* the table this one replaced; freed with the dictionary */
    size_t mask;
    _Atomic uint32_t slots[];
};

struct name_dict {
    atomic_int refcount;
    atomic_uint count; /* entries published; readers load it acquire */
    pthread_mutex_t mu;
    struct name_dict_entry *chunks[NAME_DICT_MAX_NAMES / NAME_DICT_CHUNK];
    _Atomic(struct slot_table *) table; /* NULL until the first name; replaced under mu */
    size_t bytes;                       /* guarded by mu */
};

struct name_dict *name_dict_new(void)
{
    struct name_dict *d = xcalloc(1, sizeof *d);
    atomic_init(&d->refcount, 1);
    atomic_init(&d->count, 0);
    pthread_mutex_init(&d->mu, NULL);
    d->bytes = sizeof *d;
    return d;
}

struct name_dict *name_dict_ref(struct name_dict *d)
{
    if (d) atomic_fetch_add_explicit(&d->refcount, 1, memory_order_relaxed);
    return d;
}

void name_dict_unref(struct name_dict *d)
{
    if (!d || atomic_fetch_sub_explicit(&d->refcount, 1, memory_order_acq_rel) != 1) return;
    unsigned n = atomic_load_explicit(&d->count, memory_order_relaxed);
    for (unsigned i = 0; i < n; i++)
        free(d->chunks[i / NAME_DICT_CHUNK][i % NAME_DICT_CHUNK].name);
    for (size_t c = 0; c < NAME_DICT_MAX_NAMES / NAME_DICT_CHUNK && d->chunks[c]; c++)
        free(d->chunks[c]);
    for (struct slot_table *t = atomic_load_explicit(&d->table, memory_order_relaxed); t;) {
        struct slot_table *older = t->retired;
        free(t);
        t = older;
    }
    pthread_mutex_destroy(&d->mu);
    free(d);
}

static const struct name_dict_entry *entry(const struct name_dict *d, uint32_t id)
{
    return &d->chunks[id / NAME_DICT_CHUNK][id % NAME_DICT_CHUNK];
}

/* The slot of name in table t: its id's slot, or the empty slot it would
 * take; *found is what the slot held when it was read (id + 1, or 0). A
 * reader must use *found, not read the slot again: a writer may fill an
 * empty slot with another name in between. */
static size_t slot_of(const struct name_dict *d, const struct slot_table *t, const char *name,
                      size_t len, uint32_t *found)
{
    size_t i = (size_t) XXH3_64bits(name, len) & t->mask;
    for (;; i = (i + 1) & t->mask) {
        uint32_t s = atomic_load_explicit(&t->slots[i], memory_order_acquire);
        *found = s;
        if (s == 0) return i;
        const struct name_dict_entry *e = entry(d, s - 1);
        if (e->len == len && memcmp(e->name, name, len) == 0) return i;
    }
}

/* A table twice the size (16 at first) holding the first count ids, published. */
static struct slot_table *grow_table(struct name_dict *d, unsigned count)
{
    struct slot_table *old = atomic_load_explicit(&d->table, memory_order_relaxed);
    size_t cap = old ? (old->mask + 1) * 2 : 16;
    struct slot_table *t = xcalloc(1, sizeof *t + cap * sizeof t->slots[0]);

    t->mask = cap - 1;
    t->retired = old;
    for (unsigned id = 0; id < count; id++) {
        const struct name_dict_entry *e = entry(d, id);
        uint32_t found;
        atomic_store_explicit(&t->slots[slot_of(d, t, e->name, e->len, &found)], id + 1,
                              memory_order_relaxed);
    }
    d->bytes += sizeof *t + cap * sizeof t->slots[0];
    atomic_store_explicit(&d->table, t, memory_order_release);
    return t;
}

bool name_dict_find(const struct name_dict *d, const char *name, size_t len, uint32_t *id)
{
    const struct slot_table *t = atomic_load_explicit(&d->table, memory_order_acquire);
    uint32_t s;
    if (!t) return false;
    (void) slot_of(d, t, name, len, &s);
    if (!s) return false;
    *id = s - 1;
    return true;
}

bool name_dict_intern(struct name_dict *d, const char *name, size_t len, uint32_t *id)
{
    bool ok = true;
    if (name_dict_find(d, name, len, id)) return true; /* the common case: no lock */
    pthread_mutex_lock(&d->mu);
    unsigned n = atomic_load_explicit(&d->count, memory_order_relaxed);
    struct slot_table *t = atomic_load_explicit(&d->table, memory_order_relaxed);
    if (!t || (n + 1) * 4 > (t->mask + 1) * 3) t = grow_table(d, n);
    uint32_t s;
    /* Only the mutex holder fills slots: what slot_of read stays true. */
    size_t i = slot_of(d, t, name, len, &s);
    if (s) { /* another writer added it since the lookup */
        *id = s - 1;
    } else if (n >= NAME_DICT_MAX_NAMES || d->bytes + len + 1 > NAME_DICT_MAX_BYTES) {
        ok = false;
    } else {
        struct name_dict_entry **chunk = &d->chunks[n / NAME_DICT_CHUNK];
        if (!*chunk) {
            *chunk = xcalloc(NAME_DICT_CHUNK, sizeof **chunk);
            d->bytes += NAME_DICT_CHUNK * sizeof **chunk;
        }
        (*chunk)[n % NAME_DICT_CHUNK] = (struct name_dict_entry){xmemdup(name, len), (uint32_t) len,
                                                                 text_json_plain(name, len)};
        d->bytes += len + 1;
        *id = n;
        atomic_store_explicit(&d->count, n + 1, memory_order_release);
        atomic_store_explicit(&t->slots[i], n + 1, memory_order_release); /* after the entry */
    }
    pthread_mutex_unlock(&d->mu);
    return ok;
}

const char *name_dict_name(const struct name_dict *d, uint32_t id, size_t *len)
{
    const struct name_dict_entry *e = entry(d, id);
    *len = e->len;
    return e->name;
}

const struct name_dict_entry *name_dict_entry_of(const struct name_dict *d, uint32_t id)
{
    return entry(d, id);
}

const struct name_dict_entry *name_dict_chunk(const struct name_dict *d, size_t k)
{
    return k < NAME_DICT_MAX_NAMES / NAME_DICT_CHUNK ? d->chunks[k] : NULL;
}

size_t name_dict_count(const struct name_dict *d)
{
    return atomic_load_explicit(&d->count, memory_order_acquire);
}

size_t name_dict_bytes(const struct name_dict *d)
{
    pthread_mutex_lock((pthread_mutex_t *) &d->mu);
    size_t bytes = d->bytes;
    pthread_mutex_unlock((pthread_mutex_t *) &d->mu);
    return bytes;
}
