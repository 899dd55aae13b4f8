/*
 * skiplist.c - the engine's ordered map; see skiplist.h.
 */
#include "storage/table/skiplist.h"

#include "storage/base/alloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The header of a table row's node: the offsets fill the padding after
 * level and part_count (skiplist.h, bench/README.md "Memory per item"). */
static_assert(sizeof(struct skiplist_node) == 32, "a level-1 table row's node is 40 bytes");

/* Bytes of the offsets a node of part_count parts keeps after next[]. */
static size_t tail_offsets(size_t part_count)
{
    return part_count > SKIPLIST_HEAD_PARTS ? 3 * (part_count - SKIPLIST_HEAD_PARTS) : 0;
}

/* The bytes of a node with room for level links and part_count key parts. */
static size_t node_bytes(int level, size_t part_count)
{
    return sizeof(struct skiplist_node) + sizeof(struct skiplist_node *) * (size_t) level +
           tail_offsets(part_count);
}

/* A node of sl's pool with room for level links and part_count key parts (skiplist.h). */
static struct skiplist_node *node_new(struct skiplist *sl, int level, size_t part_count)
{
    struct skiplist_node *n = node_pool_alloc(&sl->nodes, node_bytes(level, part_count));
    n->level = (uint8_t) level;
    n->part_count = (uint8_t) part_count;
    return n;
}

static void node_free(struct skiplist *sl, struct skiplist_node *n)
{
    node_pool_free(&sl->nodes, n, node_bytes(n->level, n->part_count));
}

/* Where the 3 offset bytes of part i lie. */
static inline uint8_t *part_at(struct skiplist_node *n, size_t i)
{
    if (i < SKIPLIST_HEAD_PARTS) return &n->part_at[3 * i];
    return (uint8_t *) (void *) &n->next[n->level] + 3 * (i - SKIPLIST_HEAD_PARTS);
}

/* The type byte of part i's value in the node's item encoding. */
static inline const uint8_t *part_value(const struct skiplist_node *n, size_t i)
{
    const uint8_t *at = part_at((struct skiplist_node *) (uintptr_t) n, i);
    uint32_t off = (uint32_t) at[0] | (uint32_t) at[1] << 8 | (uint32_t) at[2] << 16;
    return (const uint8_t *) n->item + off;
}

/* Sets the node's hash, item and the offsets of key's parts in item. */
static void node_set(struct skiplist_node *n, const struct row_key *key, struct item *item)
{
    assert(key->part_count == n->part_count);
    n->hash = key->hash;
    n->item = item;
    for (size_t i = 0; i < key->part_count; i++) {
        ptrdiff_t off = key->parts[i].src - (const uint8_t *) item;
        uint8_t *at = part_at(n, i);
        /* The part was read in the item's own encoding (item_key_part). */
        assert(key->parts[i].src && off > 0 && off < (1 << 24) &&
               (size_t) off < sizeof *item + item->encoded_len);
        at[0] = (uint8_t) off;
        at[1] = (uint8_t) (off >> 8);
        at[2] = (uint8_t) (off >> 16);
    }
}

void skiplist_node_key(const struct skiplist_node *n, struct row_key *out)
{
    out->hash = n->hash;
    out->part_count = n->part_count;
    for (size_t i = 0; i < n->part_count; i++)
        key_part_at(part_value(n, i), &out->parts[i]);
}

void skiplist_node_prefetch_part(const struct skiplist_node *n, size_t i)
{
    __builtin_prefetch(part_value(n, i));
}

/* Asks for the lines of n's key parts in its item. */
static inline void prefetch_key(const struct skiplist_node *n)
{
    for (size_t i = 0; i < n->part_count; i++)
        __builtin_prefetch(part_value(n, i));
}

int skiplist_node_compare(const struct skiplist_node *n, const struct row_key *probe,
                          enum key_bias bias)
{
    if (n->hash != probe->hash) return n->hash < probe->hash ? -1 : 1;
    for (size_t i = 0; i < n->part_count; i++) {
        struct key_part part;
        int c;
        if (i >= probe->part_count || !probe->parts[i].data) return -(int) bias;
        key_part_at(part_value(n, i), &part);
        c = key_part_compare(&part, &probe->parts[i]);
        if (c != 0) return c;
    }
    return 0;
}

void skiplist_init(struct skiplist *sl)
{
    node_pool_init(&sl->nodes);
    /* The head: the one node of its size, so not from the pool's slabs. */
    sl->head = xcalloc(1, node_bytes(SKIPLIST_MAX_LEVEL, 0));
    sl->head->level = SKIPLIST_MAX_LEVEL;
    sl->level = 1;
    sl->count = 0;
    sl->rng = 0x9e3779b97f4a7c15ULL;
    sl->dir = NULL;
    sl->dir_cap = sl->dir_count = 0;
    sl->dir_decided = sl->dir_on = false;
}

void skiplist_without_directory(struct skiplist *sl)
{
    assert(sl->count == 0);
    sl->dir_decided = true;
    sl->dir_on = false;
}

void skiplist_clear(struct skiplist *sl)
{
    struct skiplist_node *n;
    if (!sl->head) return;
    n = sl->head->next[0];
    while (n) {
        struct skiplist_node *next = n->next[0];
        item_unref(n->item);
        n = next;
    }
    node_pool_clear(&sl->nodes);
    free(sl->head);
    free(sl->dir);
    memset(sl, 0, sizeof *sl);
}

/* Level with probability 1/4 per step: fewer pointers than 1/2, same O(log n). */
static int random_level(struct skiplist *sl)
{
    int level = 1;
    uint64_t x = sl->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    sl->rng = x;
    while (level < SKIPLIST_MAX_LEVEL && (x & 3) == 0) {
        level++;
        x >>= 2;
    }
    return level;
}

struct skiplist_node *skiplist_first(const struct skiplist *sl)
{
    return sl->head->next[0];
}

struct skiplist_node *skiplist_last(const struct skiplist *sl)
{
    struct skiplist_node *n = sl->head;
    for (int i = sl->level - 1; i >= 0; i--) {
        while (n->next[i])
            n = n->next[i];
    }
    return n == sl->head ? NULL : n;
}

/*
 * The partition directory. Rows are ordered by their partition's hash first
 * (skiplist_node_compare), so each partition's rows - with the rare other
 * partition of the same 64-bit hash - are one run of the list. The directory
 * maps a hash to the run's first and last nodes: a bound past the run's last
 * row is that row's successor, found at once - the end of a Query over a
 * whole partition, or over all of it after a sort key's prefix; any other
 * bound within a partition is sought forward from the run's first node
 * (search_run). Either spares a descent from the head, whose upper levels
 * stay in cache but whose lower ones, at a million rows, are a cache miss
 * each - two thirds of what a Query of 50 rows cost more at 1,000,000 items
 * than at 10,000 (bench/README.md, "Where Query's extra cost at 1M goes").
 * Open addressing, linear probing, backward-shift deletion; 24 bytes a slot,
 * so 32-64 bytes a partition. Kept only for rows with a sort key: where each
 * partition is one row, a lookup by the whole key goes through the table's
 * key_index and a directory would only cost memory.
 */
#define DIR_FIRST_CAP 64

static size_t dir_slot(const struct skiplist *sl, uint64_t hash)
{
    size_t mask = sl->dir_cap - 1, i = (size_t) hash & mask;
    while (sl->dir[i].first && sl->dir[i].hash != hash)
        i = (i + 1) & mask;
    return i;
}

/* The run of hash's entry, or NULL when no row has that hash. */
static struct skiplist_dir_slot *dir_find(const struct skiplist *sl, uint64_t hash)
{
    struct skiplist_dir_slot *e;

    if (!sl->dir_count) return NULL;
    e = &sl->dir[dir_slot(sl, hash)];
    return e->first ? e : NULL;
}

/* Enters a run of one node, n, whose hash has no entry. */
static void dir_add(struct skiplist *sl, struct skiplist_node *n)
{
    if ((sl->dir_count + 1) * 4 > sl->dir_cap * 3) {
        struct skiplist_dir_slot *old = sl->dir;
        size_t old_cap = sl->dir_cap;
        sl->dir_cap = old_cap ? old_cap * 2 : DIR_FIRST_CAP;
        sl->dir = xcalloc(sl->dir_cap, sizeof *sl->dir);
        for (size_t k = 0; k < old_cap; k++) {
            if (old[k].first) sl->dir[dir_slot(sl, old[k].hash)] = old[k];
        }
        free(old);
    }
    sl->dir_count++;
    sl->dir[dir_slot(sl, n->hash)] = (struct skiplist_dir_slot){n->hash, n, n};
}

static void dir_remove(struct skiplist *sl, uint64_t hash)
{
    size_t mask = sl->dir_cap - 1, i = dir_slot(sl, hash), j = i;

    assert(sl->dir[i].first);
    sl->dir[i].first = NULL;
    sl->dir_count--;
    /* Each later entry of the run moves into the hole unless its home lies
     * cyclically in (hole, entry]: a lookup from its home would not reach it. */
    for (;;) {
        size_t home;
        j = (j + 1) & mask;
        if (!sl->dir[j].first) return;
        home = (size_t) sl->dir[j].hash & mask;
        if (i <= j ? (i < home && home <= j) : (i < home || home <= j)) continue;
        sl->dir[i] = sl->dir[j];
        sl->dir[j].first = NULL;
        i = j;
    }
}

/* Whether n begins its partition's run (its predecessor has another hash). */
static bool opens_run(const struct skiplist_node *n)
{
    return !n->prev || n->prev->hash != n->hash;
}

/* Whether n ends its partition's run (its successor has another hash). */
static bool closes_run(const struct skiplist_node *n)
{
    return !n->next[0] || n->next[0]->hash != n->hash;
}

/* After n was linked in: the directory learns of a new run, or of a new
 * first or last node of a known one. */
static void dir_linked(struct skiplist *sl, struct skiplist_node *n)
{
    bool opens, closes;

    if (!sl->dir_decided) {
        sl->dir_decided = true;
        sl->dir_on = n->part_count >= 2;
    }
    if (!sl->dir_on) return;
    opens = opens_run(n);
    closes = closes_run(n);
    if (opens && closes)
        dir_add(sl, n);
    else if (opens)
        dir_find(sl, n->hash)->first = n;
    else if (closes)
        dir_find(sl, n->hash)->last = n;
}

/* Before n is unlinked: its neighbour in the run, if any, takes its place
 * as the run's first or last node. */
static void dir_unlinking(struct skiplist *sl, struct skiplist_node *n)
{
    bool opens, closes;

    if (!sl->dir_on) return;
    opens = opens_run(n);
    closes = closes_run(n);
    if (opens && closes)
        dir_remove(sl, n->hash);
    else if (opens)
        dir_find(sl, n->hash)->first = n->next[0];
    else if (closes)
        dir_find(sl, n->hash)->last = n->prev;
}

bool skiplist_directory_is_whole(const struct skiplist *sl)
{
    size_t runs = 0;

    if (!sl->dir_on) return true;
    for (struct skiplist_node *n = sl->head->next[0]; n; n = n->next[0]) {
        const struct skiplist_dir_slot *e = dir_find(sl, n->hash);
        if (opens_run(n)) {
            runs++;
            if (!e || e->first != n) return false;
        }
        if (closes_run(n) && (!e || e->last != n)) return false;
    }
    return runs == sl->dir_count;
}

/* The bound descend would find, sought within run, the run of probe's hash
 * (see search_bound): the run's first node when the probe is not after it, its
 * last node's successor when the probe is after the last, and otherwise
 * forward from the first node: at each node the highest link that stays
 * before the probe is taken, climbing to a taller node's top link when it
 * reaches one, and a link that passes the probe is tried one level lower.
 * O(log d) for a bound d nodes on. Every node before the run has a lower
 * hash and every node after it a higher one, so the run decides the bound
 * whatever the probe's bias. *before: the node before the bound. */
static struct skiplist_node *search_run(const struct skiplist_dir_slot *run,
                                        const struct row_key *probe, enum key_bias bias,
                                        bool strict, struct skiplist_node **before)
{
    struct skiplist_node *n = run->first, *last = run->last;
    int i, c;

    /* On a large table the run's two ends and their items' keys are each a
     * cache miss: asked for together, they cost two misses in a row, not four
     * (bench/README.md, "The bound's misses asked for together"). */
    __builtin_prefetch(last);
    prefetch_key(n);
    prefetch_key(last);
    c = skiplist_node_compare(n, probe, bias);
    if (strict ? c >= 0 : c > 0) {
        *before = n->prev;
        return n;
    }
    c = skiplist_node_compare(last, probe, bias);
    if (strict ? c < 0 : c <= 0) {
        *before = last;
        return last->next[0];
    }
    i = n->level - 1;
    for (;;) {
        struct skiplist_node *m = n->next[i];
        if (m) {
            c = skiplist_node_compare(m, probe, bias);
            if (strict ? c < 0 : c <= 0) {
                n = m;
                if (m->level - 1 > i) i = m->level - 1;
                continue;
            }
        }
        if (i == 0) {
            *before = n;
            return n->next[0];
        }
        i--;
    }
}

/* Fills update[] with the last node before the first key that fails `before`
 * at each level, and returns that first node. strict: keys < probe are before;
 * otherwise keys <= probe are before. */
static struct skiplist_node *descend(const struct skiplist *sl, const struct row_key *probe,
                                     enum key_bias bias, bool strict, struct skiplist_node **update)
{
    struct skiplist_node *n = sl->head;
    for (int i = sl->level - 1; i >= 0; i--) {
        while (n->next[i]) {
            int c = skiplist_node_compare(n->next[i], probe, bias);
            if (strict ? c < 0 : c <= 0)
                n = n->next[i];
            else
                break;
        }
        if (update) update[i] = n;
    }
    return n->next[0];
}

/* The bound within the run of probe's hash when the directory has one, else
 * by a descent from the head (no directory, or no row of that hash: then the
 * bound lies in another partition); *before, the node before it. */
static struct skiplist_node *search_bound(const struct skiplist *sl, const struct row_key *probe,
                                          enum key_bias bias, bool strict,
                                          struct skiplist_node **before)
{
    const struct skiplist_dir_slot *run = sl->dir_on ? dir_find(sl, probe->hash) : NULL;
    struct skiplist_node *update[SKIPLIST_MAX_LEVEL], *bound;

    if (run) return search_run(run, probe, bias, strict, before);
    bound = descend(sl, probe, bias, strict, update);
    *before = update[0] == sl->head ? NULL : update[0];
    return bound;
}

struct skiplist_node *skiplist_lower_bound(const struct skiplist *sl, const struct row_key *probe,
                                           enum key_bias bias)
{
    struct skiplist_node *before;
    return search_bound(sl, probe, bias, true, &before);
}

struct skiplist_node *skiplist_upper_bound(const struct skiplist *sl, const struct row_key *probe,
                                           enum key_bias bias)
{
    struct skiplist_node *before;
    return search_bound(sl, probe, bias, false, &before);
}

struct skiplist_node *skiplist_lower_bound_before(const struct skiplist *sl,
                                                  const struct row_key *probe, enum key_bias bias,
                                                  struct skiplist_node **before)
{
    return search_bound(sl, probe, bias, true, before);
}

struct skiplist_node *skiplist_upper_bound_before(const struct skiplist *sl,
                                                  const struct row_key *probe, enum key_bias bias,
                                                  struct skiplist_node **before)
{
    return search_bound(sl, probe, bias, false, before);
}

struct skiplist_node *skiplist_find(const struct skiplist *sl, const struct row_key *key)
{
    struct skiplist_node *n = skiplist_lower_bound(sl, key, KEY_BIAS_LOW);
    if (n && skiplist_node_compare(n, key, KEY_BIAS_LOW) == 0) return n;
    return NULL;
}

struct skiplist_node *skiplist_insert(struct skiplist *sl, const struct row_key *key,
                                      struct item *item)
{
    struct skiplist_node *update[SKIPLIST_MAX_LEVEL];
    struct skiplist_node *at = descend(sl, key, KEY_BIAS_LOW, true, update);
    int level = random_level(sl);
    struct skiplist_node *n;

    assert(!at || skiplist_node_compare(at, key, KEY_BIAS_LOW) != 0);
    (void) at; /* only the assertion reads it */
    if (level > sl->level) {
        for (int i = sl->level; i < level; i++)
            update[i] = sl->head;
        sl->level = level;
    }
    n = node_new(sl, level, key->part_count);
    node_set(n, key, item);
    for (int i = 0; i < level; i++) {
        n->next[i] = update[i]->next[i];
        update[i]->next[i] = n;
    }
    n->prev = update[0] == sl->head ? NULL : update[0];
    if (n->next[0]) n->next[0]->prev = n;
    sl->count++;
    dir_linked(sl, n);
    return n;
}

void skiplist_replace(struct skiplist_node *node, const struct row_key *key, struct item *item)
{
    struct item *old = node->item;
    assert(skiplist_node_compare(node, key, KEY_BIAS_LOW) == 0);
    node_set(node, key, item); /* the offsets of the new item's parts */
    item_unref(old);
}

/* Unlinks and frees n, whose predecessor at each of its levels is update[]. */
static void unlink_node(struct skiplist *sl, struct skiplist_node *n,
                        struct skiplist_node *const *update)
{
    dir_unlinking(sl, n);
    for (int i = 0; i < n->level; i++) {
        if (update[i]->next[i] == n) update[i]->next[i] = n->next[i];
    }
    if (n->next[0]) n->next[0]->prev = n->prev;
    while (sl->level > 1 && !sl->head->next[sl->level - 1])
        sl->level--;
    item_unref(n->item);
    node_free(sl, n);
    sl->count--;
}

bool skiplist_remove(struct skiplist *sl, const struct row_key *key)
{
    struct skiplist_node *update[SKIPLIST_MAX_LEVEL];
    struct skiplist_node *n = descend(sl, key, KEY_BIAS_LOW, true, update);

    if (!n || skiplist_node_compare(n, key, KEY_BIAS_LOW) != 0) return false;
    unlink_node(sl, n, update);
    return true;
}

/* How many nodes skiplist_remove_node walks back before it searches from the
 * head instead: a level-1 node (3 in 4) needs one, a level-2 node about 4. */
#define REMOVE_WALK_MAX 8

void skiplist_remove_node(struct skiplist *sl, struct skiplist_node *n)
{
    struct skiplist_node *update[SKIPLIST_MAX_LEVEL];
    struct skiplist_node *m = n->prev;
    int found = 0; /* levels whose predecessor update[] holds */

    /* The predecessor at level i is the nearest node before n that reaches
     * level i: walking back, each node is the predecessor at every level it
     * reaches that no nearer node did. Only node headers are read, never a
     * key in an item. */
    for (int steps = 0; found < n->level && m && steps < REMOVE_WALK_MAX; steps++) {
        while (found < n->level && m->level > found)
            update[found++] = m;
        m = m->prev;
    }
    if (found < n->level && !m) {
        while (found < n->level) /* n is among the first nodes: the head precedes it */
            update[found++] = sl->head;
    } else if (found < n->level) {
        struct row_key key;
        skiplist_node_key(n, &key);
        m = descend(sl, &key, KEY_BIAS_LOW, true, update);
        assert(m == n);
    }
    for (int i = 0; i < n->level; i++)
        assert(update[i]->next[i] == n);
    unlink_node(sl, n, update);
}

void skiplist_builder_begin(struct skiplist_builder *b, struct skiplist *sl)
{
    struct skiplist_node *n = sl->head;

    b->sl = sl;
    for (int i = SKIPLIST_MAX_LEVEL - 1; i >= 0; i--) {
        if (i < sl->level)
            while (n->next[i])
                n = n->next[i];
        b->tail[i] = n;
    }
}

struct skiplist_node *skiplist_builder_append(struct skiplist_builder *b, const struct row_key *key,
                                              struct item *item)
{
    struct skiplist *sl = b->sl;
    int level = random_level(sl);
    struct skiplist_node *n = node_new(sl, level, key->part_count); /* next[] all NULL */
    struct skiplist_node *prev = b->tail[0];

    assert(b->tail[0] == sl->head || skiplist_node_compare(b->tail[0], key, KEY_BIAS_LOW) < 0);
    if (level > sl->level) sl->level = level;
    node_set(n, key, item);
    for (int i = 0; i < level; i++) {
        b->tail[i]->next[i] = n;
        b->tail[i] = n;
    }
    n->prev = prev == sl->head ? NULL : prev;
    sl->count++;
    dir_linked(sl, n);
    return n;
}

struct skiplist_node *skiplist_builder_append_copy(struct skiplist_builder *b,
                                                   const struct skiplist_node *from)
{
    struct skiplist *sl = b->sl;
    struct skiplist_node *n = node_new(sl, from->level, from->part_count);
    struct skiplist_node *prev = b->tail[0];

    n->hash = from->hash;
    memcpy(n->part_at, from->part_at, sizeof n->part_at);
    memcpy(&n->next[n->level], &from->next[from->level], tail_offsets(from->part_count));
    n->item = item_ref(from->item);
    if (from->level > sl->level) sl->level = from->level;
    for (int i = 0; i < from->level; i++) {
        b->tail[i]->next[i] = n;
        b->tail[i] = n;
    }
    n->prev = prev == sl->head ? NULL : prev;
    sl->count++;
    dir_linked(sl, n);
    return n;
}

static int row_compare(const void *a, const void *b)
{
    const struct skiplist_row *x = a, *y = b;
    return row_key_compare(&x->key, &y->key, KEY_BIAS_LOW);
}

void skiplist_load(struct skiplist *sl, struct skiplist_row *rows, size_t count, bool in_order)
{
    struct skiplist_builder b;

    if (!in_order) qsort(rows, count, sizeof *rows, row_compare);
    skiplist_builder_begin(&b, sl);
    for (size_t i = 0; i < count; i++)
        skiplist_builder_append(&b, &rows[i].key, item_ref(rows[i].item));
}
