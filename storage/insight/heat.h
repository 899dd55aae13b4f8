/*
 * heat.h - consumption over sliding one-second windows, per partition key.
 *
 * DynamoDB serves at most 3,000 read units and 1,000 write units per second
 * from one partition (developerguide/warm-throughput-scenarios.html: "each
 * individual partition is limited to 1,000 write units per second and 3,000
 * read units per second"), so what a designer needs to know is each partition
 * key's busiest second, not its average. A heat window keeps the last second
 * in ten 100 ms slots of the engine clock: the sum of the slots that lie in
 * (now - 1 s, now] is the consumption of the sliding one-second window ending
 * now, and its highest value is the key's peak. The sum only grows when units
 * are recorded, so computing it there finds every peak.
 *
 * A heat map holds one window per partition key (open addressing keyed by the
 * key's hash, which the row key already carries: nothing is hashed again). It
 * is bounded: past HEAT_MAX_KEYS keys it keeps the hotter half and counts the
 * keys it let go (`evicted`), so a table with millions of cold keys costs a
 * fixed amount of memory while its hot keys stay.
 *
 * Not thread-safe: the owner (insight.c) says which lock guards a map.
 * Allocation happens only when a key is seen for the first time.
 */
#ifndef DDB_INSIGHT_HEAT_H
#define DDB_INSIGHT_HEAT_H

#include "storage/model/key.h"
#include "storage/model/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HEAT_SLOTS    10  /* slots per window */
#define HEAT_SLOT_MS  100 /* HEAT_SLOTS * HEAT_SLOT_MS = one second */
#define HEAT_MAX_KEYS 1024

/* Read and write units over a sliding one-second window, and their peaks. */
struct heat_window {
    int64_t slot_id[HEAT_SLOTS]; /* now_ms / HEAT_SLOT_MS of the slot's contents; 0: empty */
    double slot_rcu[HEAT_SLOTS];
    double slot_wcu[HEAT_SLOTS];
    double total_rcu, total_wcu;
    double peak_rcu, peak_wcu;        /* the highest one-second sums seen */
    int64_t peak_rcu_ms, peak_wcu_ms; /* engine clock when each peak was reached */
};

/* Bytes of a key's parts kept in its heat_key itself; a longer key is
 * allocated. */
#define HEAT_KEY_INLINE 40

/* One partition key's window. The key is its parts as they came (each: its
 * type byte, its length in 4 bytes, its key_part bytes - an N's comparable
 * form), not a value: a map over millions of partition keys meets a new
 * key at nearly every request, and a value's malloc each time was 2.7% of
 * a Query at 1,000,000 items (bench/README.md, "The heat map's keys").
 * heat_key_value makes the value a report needs. */
struct heat_key {
    uint64_t hash; /* key_hash() of the partition key parts */
    uint32_t key_len, part_count;
    union {
        uint8_t bytes[HEAT_KEY_INLINE]; /* key_len <= HEAT_KEY_INLINE */
        uint8_t *heap;                  /* owned, otherwise */
    } key;
    struct heat_window w;
};

/* The partition key of k as a new value (owned): the key itself with one
 * part, a list of the parts with several. */
void heat_key_value(const struct heat_key *k, struct value *out);

struct heat_rank; /* what an eviction ranks a key by (heat.c) */

struct heat_map {
    struct heat_key *keys; /* the first `count` are the keys, in the order they came */
    size_t count, keys_cap;
    uint32_t *slots; /* index in keys + 1, 0 when empty; power-of-two cap, <= half full */
    size_t cap;
    struct heat_rank *ranks; /* the eviction's scratch (HEAT_MAX_KEYS), made by the first one */
    uint64_t evicted;        /* keys let go to stay under HEAT_MAX_KEYS */
};

void heat_window_record(struct heat_window *w, int64_t now_ms, double rcu, double wcu);

/* The units recorded in the sliding one-second window (now - 1 s, now],
 * without recording anything. with_later: also the units recorded at a
 * later time, before the clock was set back - the throughput model's
 * per-second limits count them, as a token bucket earns nothing when the
 * clock goes back; the report's peaks do not. */
void heat_window_sum(const struct heat_window *w, int64_t now_ms, bool with_later, double *rcu,
                     double *wcu);

void heat_map_init(struct heat_map *m);
void heat_map_clear(struct heat_map *m); /* frees everything; m becomes empty */
/* Adds rcu/wcu at now_ms to the window of the partition key made of parts
 * (count of them, hash their key_hash()); the parts are copied when new. */
void heat_map_record(struct heat_map *m, uint64_t hash, const struct key_part *parts, size_t count,
                     int64_t now_ms, double rcu, double wcu);

/* The window of a partition key, or NULL when the map has none for it. */
const struct heat_window *heat_map_find(const struct heat_map *m, uint64_t hash,
                                        const struct key_part *parts, size_t count);

/* The n keys with the highest write (by_write) or read peak, hottest first
 * (ties: more units in all, then the lower hash, so the order is stable); at
 * most n pointers into m (borrowed, valid until m changes) go to out. Returns
 * how many. Keys without units of that kind are left out. */
size_t heat_map_top(const struct heat_map *m, bool by_write, const struct heat_key **out, size_t n);

#endif
