/*
 * heat.c - sliding one-second windows per partition key; see heat.h.
 *
 * The map is open addressing with linear probing at most half full, so a
 * lookup is one or two probes; keys are never removed one by one (only the
 * eviction rebuilds the map), so no tombstones are needed. It has no lock of
 * its own: insight.h says how the maps it keeps are guarded.
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

void heat_map_clear(struct heat_map *m)
{
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].used) value_clear(&m->slots[i].key);
    }
    free(m->slots);
    memset(m, 0, sizeof *m);
}

/* Whether the stored key equals the parts. */
static bool part_is(const struct value *stored, const struct key_part *part)
{
    char text[NUMBER_TEXT_MAX];
    struct value v;

    key_part_value(part, text, &v);
    return value_equal(stored, &v);
}

static bool key_is(const struct heat_key *k, const struct key_part *parts, size_t count)
{
    if (count == 1) return part_is(&k->key, &parts[0]);
    if (k->key.type != VALUE_L || k->key.u.list.count != count) return false;
    for (size_t i = 0; i < count; i++) {
        if (!part_is(&k->key.u.list.elems[i], &parts[i])) return false;
    }
    return true;
}

/* A copy (owned) of a key part as a value. */
static void part_copy(struct value *out, const struct key_part *part)
{
    char text[NUMBER_TEXT_MAX];
    struct value v;

    key_part_value(part, text, &v);
    value_copy(out, &v);
}

static size_t probe(const struct heat_map *m, uint64_t hash, const struct key_part *parts,
                    size_t count)
{
    size_t mask = m->cap - 1, i = (size_t) hash & mask;

    while (m->slots[i].used && !(m->slots[i].hash == hash && key_is(&m->slots[i], parts, count)))
        i = (i + 1) & mask;
    return i;
}

/* The slot for a key already in the map, found by its stored value. */
static size_t probe_key(const struct heat_map *m, const struct heat_key *k)
{
    size_t mask = m->cap - 1, i = (size_t) k->hash & mask;

    while (m->slots[i].used)
        i = (i + 1) & mask;
    return i;
}

static void rehash(struct heat_map *m, size_t cap, struct heat_key *keep, size_t keep_count)
{
    free(m->slots);
    m->cap = cap;
    m->slots = xcalloc(cap, sizeof *m->slots);
    m->count = keep_count;
    for (size_t i = 0; i < keep_count; i++)
        m->slots[probe_key(m, &keep[i])] = keep[i];
}

/* Every used key, moved out of the map into a new array (the map keeps its slots). */
static struct heat_key *take_all(struct heat_map *m)
{
    struct heat_key *all = xcalloc(m->count ? m->count : 1, sizeof *all);
    size_t n = 0;

    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].used) all[n++] = m->slots[i];
    }
    return all;
}

static double hotness(const struct heat_key *k)
{
    double r = k->w.peak_rcu / PARTITION_RCU_PER_S, w = k->w.peak_wcu / PARTITION_WCU_PER_S;
    return r > w ? r : w;
}

static int hotter_first(const void *a, const void *b)
{
    double ha = hotness(a), hb = hotness(b);
    return ha > hb ? -1 : ha < hb ? 1 : 0;
}

/* Keeps the hotter half of the keys, so that a new key finds room. */
static void evict(struct heat_map *m)
{
    struct heat_key *all = take_all(m);
    size_t n = m->count, keep = n / 2;

    qsort(all, n, sizeof *all, hotter_first);
    for (size_t i = keep; i < n; i++)
        value_clear(&all[i].key);
    m->evicted += n - keep;
    rehash(m, m->cap, all, keep);
    free(all);
}

static void grow(struct heat_map *m)
{
    struct heat_key *all = m->count ? take_all(m) : NULL;
    size_t n = m->count;

    rehash(m, m->cap ? m->cap * 2 : INITIAL_CAP, all, n);
    free(all);
}

void heat_map_record(struct heat_map *m, uint64_t hash, const struct key_part *parts, size_t count,
                     int64_t now_ms, double rcu, double wcu)
{
    size_t i;
    struct heat_key *k;

    if (m->cap == 0) grow(m);
    i = probe(m, hash, parts, count);
    if (!m->slots[i].used) {
        if (m->count >= HEAT_MAX_KEYS) evict(m);
        if ((m->count + 1) * 2 > m->cap) grow(m);
        i = probe(m, hash, parts, count);
        k = &m->slots[i];
        memset(k, 0, sizeof *k);
        k->used = true;
        k->hash = hash;
        if (count == 1) {
            part_copy(&k->key, &parts[0]);
        } else {
            value_init_list(&k->key, VALUE_L);
            for (size_t p = 0; p < count; p++) {
                struct value copy;
                part_copy(&copy, &parts[p]);
                value_list_append(&k->key, &copy);
            }
        }
        m->count++;
    }
    heat_window_record(&m->slots[i].w, now_ms, rcu, wcu);
}

const struct heat_window *heat_map_find(const struct heat_map *m, uint64_t hash,
                                        const struct key_part *parts, size_t count)
{
    size_t i;

    if (m->cap == 0) return NULL;
    i = probe(m, hash, parts, count);
    return m->slots[i].used ? &m->slots[i].w : NULL;
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
    for (size_t i = 0; i < m->cap && n; i++) {
        const struct heat_key *k = &m->slots[i];
        size_t at;
        if (!k->used || (by_write ? k->w.total_wcu : k->w.total_rcu) <= 0) continue;
        for (at = got; at > 0 && ranks_before(k, out[at - 1], by_write); at--) {
        }
        if (at >= n) continue;
        if (got < n) got++;
        memmove(&out[at + 1], &out[at], sizeof *out * (got - 1 - at));
        out[at] = k;
    }
    return got;
}
