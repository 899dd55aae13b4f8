/*
 * heat.c - sliding one-second windows per partition key; see heat.h.
 *
 * The keys sit in one dense array; an open-addressed index of their
 * positions (linear probing, at most half full) finds one in one or two
 * probes. Keys are never removed one by one - only the eviction, which
 * compacts the array and rebuilds the index - so no tombstones are needed.
 * The eviction allocates nothing once the map is full: a table written
 * with millions of partition keys evicts every HEAT_MAX_KEYS / 2 new keys,
 * under its lock, and copying and sorting the keys themselves cost a
 * calloc of ~1 MB, a heap consolidation and a qsort of 330-byte structs
 * each time (bench/README.md, "DeleteItem and the heat map"). It has no
 * lock of its own: insight.h says how the maps it keeps are guarded.
 */
#include "storage/insight/heat.h"

#include "storage/base/alloc.h"

#include <stdlib.h>
#include <string.h>

#define INITIAL_CAP 16

/* The partition limits the eviction ranks keys against (heat.h). */
#define PARTITION_RCU_PER_S 3000.0
#define PARTITION_WCU_PER_S 1000.0

/* +1 so that slot id 0 always means "empty", even at the epoch. */
static int64_t slot_id_at(int64_t now_ms)
{
    return now_ms / HEAT_SLOT_MS + 1;
}

void heat_window_sum(const struct heat_window *w, int64_t now_ms, bool with_later, double *rcu,
                     double *wcu)
{
    int64_t id = slot_id_at(now_ms);

    *rcu = *wcu = 0;
    /* The window (now - 1 s, now]: slots id - 9 .. id. A slot from the future
     * (the clock was set back) is not part of it unless asked. */
    for (size_t i = 0; i < HEAT_SLOTS; i++) {
        if (w->slot_id[i] > id - HEAT_SLOTS && (with_later || w->slot_id[i] <= id)) {
            *rcu += w->slot_rcu[i];
            *wcu += w->slot_wcu[i];
        }
    }
}

void heat_window_record(struct heat_window *w, int64_t now_ms, double rcu, double wcu)
{
    int64_t id = slot_id_at(now_ms);
    size_t slot = (size_t) (id % HEAT_SLOTS);
    double sum_rcu, sum_wcu;

    if (w->slot_id[slot] != id) {
        w->slot_id[slot] = id;
        w->slot_rcu[slot] = 0;
        w->slot_wcu[slot] = 0;
    }
    w->slot_rcu[slot] += rcu;
    w->slot_wcu[slot] += wcu;
    w->total_rcu += rcu;
    w->total_wcu += wcu;
    heat_window_sum(w, now_ms, false, &sum_rcu, &sum_wcu);
    if (rcu > 0 && sum_rcu > w->peak_rcu) {
        w->peak_rcu = sum_rcu;
        w->peak_rcu_ms = now_ms;
    }
    if (wcu > 0 && sum_wcu > w->peak_wcu) {
        w->peak_wcu = sum_wcu;
        w->peak_wcu_ms = now_ms;
    }
}

void heat_map_init(struct heat_map *m)
{
    memset(m, 0, sizeof *m);
}

/* The packed parts of k (heat.h). */
static const uint8_t *key_bytes(const struct heat_key *k)
{
    return k->key_len <= HEAT_KEY_INLINE ? k->key.bytes : k->key.heap;
}

static void key_free(struct heat_key *k)
{
    if (k->key_len > HEAT_KEY_INLINE) free(k->key.heap);
}

/* Packs parts[0..count) into k. */
static void key_set(struct heat_key *k, const struct key_part *parts, size_t count)
{
    size_t len = 0;
    uint8_t *p;

    for (size_t i = 0; i < count; i++)
        len += 5 + parts[i].len;
    k->key_len = (uint32_t) len;
    k->part_count = (uint32_t) count;
    p = len <= HEAT_KEY_INLINE ? k->key.bytes : (k->key.heap = xmalloc(len));
    for (size_t i = 0; i < count; i++) {
        uint32_t n = parts[i].len;
        *p++ = parts[i].type;
        memcpy(p, &n, 4);
        if (n) memcpy(p + 4, parts[i].data, n);
        p += 4 + n;
    }
}

/* The packed part at p (key_set's form) into *part, borrowing its bytes;
 * returns where the next one begins. */
static const uint8_t *part_at(const uint8_t *p, struct key_part *part)
{
    *part = (struct key_part){.data = p + 5, .type = p[0]};
    memcpy(&part->len, p + 1, 4);
    return p + 5 + part->len;
}

/* Whether k holds exactly the parts (types and bytes: an N's comparable
 * bytes are equal when the numbers are). */
static bool key_is(const struct heat_key *k, const struct key_part *parts, size_t count)
{
    const uint8_t *p = key_bytes(k);
    struct key_part stored;

    if (k->part_count != count) return false;
    for (size_t i = 0; i < count; i++) {
        p = part_at(p, &stored);
        if (!key_part_equal(&stored, &parts[i])) return false;
    }
    return true;
}

void heat_key_value(const struct heat_key *k, struct value *out)
{
    const uint8_t *p = key_bytes(k);

    if (k->part_count > 1) value_init_list(out, VALUE_L);
    for (size_t i = 0; i < k->part_count; i++) {
        char text[NUMBER_TEXT_MAX];
        struct key_part part;
        struct value v, copy;
        p = part_at(p, &part);
        key_part_value(&part, text, &v);
        value_copy(k->part_count > 1 ? &copy : out, &v);
        if (k->part_count > 1) value_list_append(out, &copy);
    }
}

void heat_map_clear(struct heat_map *m)
{
    for (size_t i = 0; i < m->count; i++)
        key_free(&m->keys[i]);
    free(m->keys);
    free(m->slots);
    free(m->ranks);
    memset(m, 0, sizeof *m);
}

/* The index slot of the key made of parts, or the empty slot it would take. */
static size_t probe(const struct heat_map *m, uint64_t hash, const struct key_part *parts,
                    size_t count)
{
    size_t mask = m->cap - 1, i = (size_t) hash & mask;

    for (; m->slots[i]; i = (i + 1) & mask) {
        const struct heat_key *k = &m->keys[m->slots[i] - 1];
        if (k->hash == hash && key_is(k, parts, count)) break;
    }
    return i;
}

/* Rebuilds the index at capacity cap over the keys there are. */
static void reindex(struct heat_map *m, size_t cap)
{
    size_t mask = cap - 1;

    if (cap != m->cap) {
        free(m->slots);
        m->slots = xcalloc(cap, sizeof *m->slots);
        m->cap = cap;
    } else {
        memset(m->slots, 0, cap * sizeof *m->slots);
    }
    for (size_t k = 0; k < m->count; k++) {
        size_t i = (size_t) m->keys[k].hash & mask;
        while (m->slots[i])
            i = (i + 1) & mask;
        m->slots[i] = (uint32_t) k + 1;
    }
}

/* A key's place in the eviction's order: its hotness and its position. */
struct heat_rank {
    double hotness;
    uint32_t index;
};

static double hotness(const struct heat_key *k)
{
    double r = k->w.peak_rcu / PARTITION_RCU_PER_S, w = k->w.peak_wcu / PARTITION_WCU_PER_S;
    return r > w ? r : w;
}

/* Hotter first; among equals the older key: a total order, so the same
 * keys stay whatever qsort does. */
static int hotter_first(const void *a, const void *b)
{
    const struct heat_rank *x = a, *y = b;
    if (x->hotness != y->hotness) return x->hotness > y->hotness ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Keeps the hotter half of the keys, so that a new key finds room. */
static void evict(struct heat_map *m)
{
    size_t n = m->count, keep = n / 2, kept = 0;
    bool stays[HEAT_MAX_KEYS] = {false};

    if (!m->ranks) m->ranks = xmalloc(HEAT_MAX_KEYS * sizeof *m->ranks);
    for (size_t k = 0; k < n; k++)
        m->ranks[k] = (struct heat_rank){hotness(&m->keys[k]), (uint32_t) k};
    qsort(m->ranks, n, sizeof *m->ranks, hotter_first);
    for (size_t r = 0; r < keep; r++)
        stays[m->ranks[r].index] = true;
    for (size_t k = 0; k < n; k++) {
        if (!stays[k]) {
            key_free(&m->keys[k]);
            continue;
        }
        if (kept != k) m->keys[kept] = m->keys[k];
        kept++;
    }
    m->count = kept;
    m->evicted += n - kept;
    reindex(m, m->cap);
}

void heat_map_record(struct heat_map *m, uint64_t hash, const struct key_part *parts, size_t count,
                     int64_t now_ms, double rcu, double wcu)
{
    size_t i;
    struct heat_key *k;

    if (m->cap == 0) reindex(m, INITIAL_CAP);
    i = probe(m, hash, parts, count);
    if (!m->slots[i]) {
        bool moved = false; /* the index rebuilt: i is stale */
        if (m->count >= HEAT_MAX_KEYS) {
            evict(m);
            moved = true;
        }
        if ((m->count + 1) * 2 > m->cap) {
            reindex(m, m->cap * 2);
            moved = true;
        }
        if (m->count == m->keys_cap) {
            m->keys_cap = m->keys_cap ? m->keys_cap * 2 : INITIAL_CAP;
            m->keys = xrealloc(m->keys, m->keys_cap * sizeof *m->keys);
        }
        k = &m->keys[m->count];
        memset(k, 0, sizeof *k);
        k->hash = hash;
        key_set(k, parts, count);
        m->count++;
        if (moved) i = probe(m, hash, parts, count); /* the index was rebuilt */
        m->slots[i] = (uint32_t) m->count;
    }
    heat_window_record(&m->keys[m->slots[i] - 1].w, now_ms, rcu, wcu);
}

const struct heat_window *heat_map_find(const struct heat_map *m, uint64_t hash,
                                        const struct key_part *parts, size_t count)
{
    size_t i;

    if (m->cap == 0) return NULL;
    i = probe(m, hash, parts, count);
    return m->slots[i] ? &m->keys[m->slots[i] - 1].w : NULL;
}

/* Whether a ranks before b (heat_map_top's order). */
static bool ranks_before(const struct heat_key *a, const struct heat_key *b, bool by_write)
{
    double pa = by_write ? a->w.peak_wcu : a->w.peak_rcu,
           pb = by_write ? b->w.peak_wcu : b->w.peak_rcu;
    double ta = by_write ? a->w.total_wcu : a->w.total_rcu,
           tb = by_write ? b->w.total_wcu : b->w.total_rcu;
    if (pa != pb) return pa > pb;
    if (ta != tb) return ta > tb;
    return a->hash < b->hash;
}

size_t heat_map_top(const struct heat_map *m, bool by_write, const struct heat_key **out, size_t n)
{
    size_t got = 0;

    /* Insertion into a short sorted list: n is small (the report's top 10). */
    for (size_t i = 0; i < m->count && n; i++) {
        const struct heat_key *k = &m->keys[i];
        size_t at;
        if ((by_write ? k->w.total_wcu : k->w.total_rcu) <= 0) continue;
        for (at = got; at > 0 && ranks_before(k, out[at - 1], by_write); at--) {
        }
        if (at >= n) continue;
        if (got < n) got++;
        memmove(&out[at + 1], &out[at], sizeof *out * (got - 1 - at));
        out[at] = k;
    }
    return got;
}
