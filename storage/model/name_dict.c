/*
 * name_dict.c - interned attribute names; see name_dict.h.
 *
 * Layout: entries in chunks of NAME_DICT_CHUNK that never move (a reader
 * holds no lock), a chunk directory of fixed size, and an open-addressed
 * hash of ids for interning, which only the mutex holder reads or grows.
 */
#include "storage/model/name_dict.h"

#include "storage/base/alloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

struct name_entry {
    char *name; /* owned, NUL-terminated */
    uint32_t len;
};

struct name_dict {
    atomic_int refcount;
    atomic_uint count; /* entries published; readers load it acquire */
    pthread_mutex_t mu;
    struct name_entry *chunks[NAME_DICT_MAX_NAMES / NAME_DICT_CHUNK];
    uint32_t *slots; /* id + 1, 0 empty; guarded by mu */
    size_t mask;
    size_t bytes;
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
    free(d->slots);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

static const struct name_entry *entry(const struct name_dict *d, uint32_t id)
{
    return &d->chunks[id / NAME_DICT_CHUNK][id % NAME_DICT_CHUNK];
}

/* The slot of name in d's hash: its id's slot, or the empty slot it would take. */
static size_t slot_of(const struct name_dict *d, const char *name, size_t len)
{
    size_t i = (size_t) XXH3_64bits(name, len) & d->mask;
    for (;; i = (i + 1) & d->mask) {
        uint32_t s = d->slots[i];
        if (s == 0) return i;
        const struct name_entry *e = entry(d, s - 1);
        if (e->len == len && memcmp(e->name, name, len) == 0) return i;
    }
}

static void grow_slots(struct name_dict *d, unsigned count)
{
    size_t cap = d->mask ? (d->mask + 1) * 2 : 16;
    free(d->slots);
    d->slots = xcalloc(cap, sizeof *d->slots);
    d->mask = cap - 1;
    for (unsigned id = 0; id < count; id++) {
        const struct name_entry *e = entry(d, id);
        d->slots[slot_of(d, e->name, e->len)] = id + 1;
    }
}

bool name_dict_find(const struct name_dict *d, const char *name, size_t len, uint32_t *id)
{
    bool found = false;
    pthread_mutex_lock((pthread_mutex_t *) &d->mu);
    if (d->slots) {
        uint32_t s = d->slots[slot_of(d, name, len)];
        if (s) {
            *id = s - 1;
            found = true;
        }
    }
    pthread_mutex_unlock((pthread_mutex_t *) &d->mu);
    return found;
}

bool name_dict_intern(struct name_dict *d, const char *name, size_t len, uint32_t *id)
{
    bool ok = true;
    pthread_mutex_lock(&d->mu);
    unsigned n = atomic_load_explicit(&d->count, memory_order_relaxed);
    if (!d->slots || (n + 1) * 4 > (d->mask + 1) * 3) grow_slots(d, n);
    size_t i = slot_of(d, name, len);
    if (d->slots[i]) {
        *id = d->slots[i] - 1;
    } else if (n >= NAME_DICT_MAX_NAMES || d->bytes + len + 1 > NAME_DICT_MAX_BYTES) {
        ok = false;
    } else {
        struct name_entry **chunk = &d->chunks[n / NAME_DICT_CHUNK];
        if (!*chunk) {
            *chunk = xcalloc(NAME_DICT_CHUNK, sizeof **chunk);
            d->bytes += NAME_DICT_CHUNK * sizeof **chunk;
        }
        (*chunk)[n % NAME_DICT_CHUNK] = (struct name_entry){xmemdup(name, len), (uint32_t) len};
        d->bytes += len + 1;
        d->slots[i] = n + 1;
        *id = n;
        atomic_store_explicit(&d->count, n + 1, memory_order_release);
    }
    pthread_mutex_unlock(&d->mu);
    return ok;
}

const char *name_dict_name(const struct name_dict *d, uint32_t id, size_t *len)
{
    const struct name_entry *e = entry(d, id);
    *len = e->len;
    return e->name;
}

size_t name_dict_count(const struct name_dict *d)
{
    return atomic_load_explicit(&d->count, memory_order_acquire);
}

size_t name_dict_bytes(const struct name_dict *d)
{
    return d->bytes + (d->mask ? (d->mask + 1) * sizeof *d->slots : 0);
}
