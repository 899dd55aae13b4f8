/*
 * read.c - Query and Scan: one page of items from a table or an index
 * (GetItem is read_item.c; the source a page reads and the request's checks
 * against it are read_source.c).
 *
 * Reads hold the lock shared, so they never block each other. They return
 * references to immutable items (see item.h) and leave encoding to the
 * caller, outside the lock.
 *
 * A Query or Scan page is read in two steps. Under the shared lock the request is checked
 * against the schema (index, ExclusiveStartKey, key condition, filter and
 * projection rules, in the order AWS reports them), then the walker seeks to
 * the start of the key range (O(log n)), walks it in the requested direction
 * and takes references to the items it reads, stopping at Limit or after 1 MB
 * of item data read (both count items read, before any filter, as on AWS).
 * After the lock is released the filter and projections run on those
 * immutable items, so a costly filter never holds up writers.
 *
 * Query touches only its partition and sort-key range: O(log n + k), however
 * many other partitions the table has. Scan walks in partition-hash order, and
 * a parallel-scan segment is a contiguous range of hashes, so segments are
 * disjoint and together cover every item exactly once.
 *
 * LastEvaluatedKey is returned whenever the page stopped because of Limit or
 * the 1 MB read limit, even when no item follows (dynalite test/query.js
 * "should return LastEvaluatedKey if just over limit"; see docs/differences.md
 * for the cases where AWS can tell that nothing follows).
 *
 * Error texts and their order come from dynalite's recorded AWS answers
 * (test/query.js, test/scan.js; actions/query.js, actions/scan.js).
 */
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"
#include "storage/engine/capacity.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/engine/db_items.h"
#include "storage/engine/read_project.h"
#include "storage/engine/read_source.h"
#include "storage/engine/read_stale.h"
#include "storage/table/throttle.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Query and Scan ---- */

/* Drops the page's item references and frees what it owns; p becomes empty. */
void read_page_clear(struct read_page *p)
{
    for (size_t i = 0; i < p->count; i++)
        item_unref(p->items[i]);
    free(p->items);
    value_clear(&p->last_evaluated_key);
    consumed_capacity_clear(&p->capacity);
    memset(p, 0, sizeof *p);
    value_init_null(&p->last_evaluated_key);
}

/* The smallest byte string greater than every string with this prefix (S
 * or B bytes), written to buf (prefix->len bytes) as *out, or false when
 * there is none (the prefix is all 0xff bytes). */
static bool prefix_successor(const struct key_part *prefix, uint8_t *buf, struct key_part *out)
{
    uint32_t len = prefix->len;
    while (len > 0 && prefix->data[len - 1] == 0xff)
        len--;
    if (len == 0) return false;
    memcpy(buf, prefix->data, len);
    buf[len - 1]++;
    *out = (struct key_part){.data = buf, .len = len, .type = prefix->type};
    return true;
}

/* [first, end) of the rows a resolved key condition selects; *end_before,
 * the row before end (the last row when end is NULL). */
static void query_range(const struct source *s, const struct key_condition *kc,
                        struct skiplist_node **first, struct skiplist_node **end,
                        struct skiplist_node **end_before)
{
    struct row_key lo, hi;
    /* The numbers of the key parts, then of the bounds lo and hi. */
    struct key_numbers nums;
    uint8_t lo_num[NUMBER_COMPARABLE_MAX], hi_num[NUMBER_COMPARABLE_MAX];
    struct key_part lo_part, hi_part, succ;
    uint8_t succ_room[DDB_MAX_SORT_KEY_BYTES], *succ_buf;
    size_t n = 0;

    memset(&lo, 0, sizeof lo);
    for (size_t i = 0; i < kc->hash_count; i++, n++)
        key_part_of(&kc->hash[i].value, nums.n[n], &lo.parts[n]);
    for (size_t i = 0; i < kc->range_eq_count; i++, n++)
        key_part_of(&kc->range_eq[i].value, nums.n[n], &lo.parts[n]);
    lo.part_count = n;
    lo.hash = key_hash(lo.parts, kc->hash_count);
    if (kc->range_op != KEY_RANGE_NONE) key_part_of(&kc->lo, lo_num, &lo_part);
    if (kc->range_op == KEY_RANGE_BETWEEN) key_part_of(&kc->hi, hi_num, &hi_part);
    hi = lo;

    switch (kc->range_op) {
    case KEY_RANGE_NONE:
        *first = skiplist_lower_bound(s->rows, &lo, KEY_BIAS_LOW);
        *end = skiplist_upper_bound_before(s->rows, &hi, KEY_BIAS_HIGH, end_before);
        return;
    case KEY_RANGE_EQ:
    case KEY_RANGE_BETWEEN:
    case KEY_RANGE_GE:
    case KEY_RANGE_GT:
    case KEY_RANGE_BEGINS_WITH: lo.parts[lo.part_count++] = lo_part; break;
    case KEY_RANGE_LT:
    case KEY_RANGE_LE: break;
    }
    switch (kc->range_op) {
    case KEY_RANGE_EQ: hi.parts[hi.part_count++] = lo_part; break;
    case KEY_RANGE_BETWEEN: hi.parts[hi.part_count++] = hi_part; break;
    case KEY_RANGE_LT:
    case KEY_RANGE_LE: hi.parts[hi.part_count++] = lo_part; break;
    default: break;
    }

    *first = kc->range_op == KEY_RANGE_GT ? skiplist_upper_bound(s->rows, &lo, KEY_BIAS_HIGH)
                                          : skiplist_lower_bound(s->rows, &lo, KEY_BIAS_LOW);
    if (kc->range_op == KEY_RANGE_LT) {
        *end = skiplist_lower_bound_before(s->rows, &hi, KEY_BIAS_LOW, end_before);
    } else if (kc->range_op == KEY_RANGE_BEGINS_WITH) {
        /* A sort key is at most 1024 bytes; a longer prefix matches nothing
         * stored but is still answered (with memory of its own). */
        succ_buf = lo_part.len <= sizeof succ_room ? succ_room : xmalloc(lo_part.len);
        if (prefix_successor(&lo_part, succ_buf, &succ)) {
            hi.parts[hi.part_count++] = succ;
            *end = skiplist_lower_bound_before(s->rows, &hi, KEY_BIAS_LOW, end_before);
        } else {
            *end = skiplist_upper_bound_before(s->rows, &hi, KEY_BIAS_HIGH, end_before);
        }
        if (succ_buf != succ_room) free(succ_buf);
    } else {
        *end = skiplist_upper_bound_before(s->rows, &hi, KEY_BIAS_HIGH, end_before);
    }
}

/* True when node comes before end in forward order (end NULL = past the last row). */
static bool before(const struct skiplist_node *node, const struct skiplist_node *end)
{
    struct row_key end_key;
    if (end == NULL) return true;
    /* Mostly the next partition's first row: its hash decides, without a
     * read of its item (a cache miss on a large table). */
    if (node->hash != end->hash) return node->hash < end->hash;
    skiplist_node_key(end, &end_key);
    return skiplist_node_compare(node, &end_key, KEY_BIAS_LOW) < 0;
}

struct walk {
    struct item **read; /* references to the items read, in walk order */
    size_t read_count;
    size_t read_cap;
    size_t read_bytes;  /* by AWS's item-size rules (projected size on an index) */
    size_t fetch_bytes; /* whole items fetched from the table for an LSI read */
    bool stopped_early; /* Limit or the 1 MB page limit ended the page */
};

/*
 * A page's rows are walked by following the list's links from the range's
 * first row to its end, compared by node, not by key: a key comparison reads
 * the row's item, which on a large table is a cache miss of its own
 * (bench/README.md, "Query's rows and the cache"). What the walk reads is
 * asked for ahead: a Query's item WALK_AHEAD rows before its row is taken
 * (a second pointer leads the walk; bench/README.md, "The walk asks for
 * items eight rows ahead"), and every line of the row's item as it is
 * taken, which the answer is written from once the lock is let go.
 */
#define WALK_AHEAD 8

/* The row after node in the walk's direction within the range [first, end); NULL past it. */
static inline struct skiplist_node *walk_step(const struct skiplist_node *node, bool forward,
                                              const struct skiplist_node *first,
                                              const struct skiplist_node *end)
{
    if (forward) {
        struct skiplist_node *next = skiplist_next(node);
        return next == end ? NULL : next;
    }
    return node == first ? NULL : skiplist_prev(node);
}

/* Takes node's item into the page; returns false when the page is full after it. */
static bool walk_take(struct walk *w, const struct source *s, const struct read_page_op *op,
                      struct skiplist_node *node)
{
    size_t size = s->is_index ? index_projected_size(s->index, node->item) : node->item->size_bytes;
    item_prefetch(node->item);
    if (w->read_count == w->read_cap) {
        w->read_cap = w->read_cap ? w->read_cap * 2 : 64;
        w->read = xrealloc(w->read, sizeof *w->read * w->read_cap);
    }
    w->read[w->read_count++] = item_ref(node->item);
    w->read_bytes += size;
    if (s->fetch) w->fetch_bytes += node->item->size_bytes;
    if ((op->limit > 0 && (int64_t) w->read_count >= op->limit) ||
        w->read_bytes >= DDB_MAX_PAGE_READ_BYTES) {
        w->stopped_early = true;
        return false;
    }
    return true;
}

/* Takes the rows of [first, end) from node on, in the walk's direction, until
 * the page is full; a second pointer WALK_AHEAD rows ahead (never past the
 * page's Limit) asks for each row's item before the row is taken. */
static void walk_range(struct walk *w, const struct source *s, const struct read_page_op *op,
                       struct skiplist_node *node, const struct skiplist_node *first,
                       const struct skiplist_node *end)
{
    struct skiplist_node *ahead = node;
    int64_t left = op->limit > 0 ? op->limit : INT64_MAX;

    for (int k = 0; k < WALK_AHEAD && ahead && left > 0; k++, left--) {
        __builtin_prefetch(ahead->item);
        ahead = walk_step(ahead, op->scan_forward, first, end);
    }
    for (; node; node = walk_step(node, op->scan_forward, first, end)) {
        if (ahead && left > 0) {
            __builtin_prefetch(ahead->item);
            ahead = walk_step(ahead, op->scan_forward, first, end);
            left--;
        }
        if (!walk_take(w, s, op, node)) break;
    }
}

/* Copies the key attributes of the source's row into a LastEvaluatedKey map. */
static void make_last_key(const struct source *s, const struct item *item, struct value *out)
{
    const char *names[ROW_KEY_MAX_PARTS];
    size_t n = read_source_key_names(s, names);
    value_init_map(out);
    for (size_t i = 0; i < n; i++) {
        struct value v;
        value_copy(&v, item_get(item, names[i], strlen(names[i])));
        value_map_set(out, names[i], strlen(names[i]), &v);
    }
}

/*
 * Applies filter, Select and projections to the items read; runs outside the
 * lock. A GSI holds only its projected attributes, so its filter and result
 * see only those; an LSI fetches the rest of the item from the table when the
 * request needs it. A projection of top-level names is made from the
 * encoding (item_project): the tree is decoded only for a filter, a nested
 * projection or an index's view without a projection.
 */
static int finish_page(const struct source *s, const struct read_page_op *op, struct walk *w,
                       struct read_page *out, struct ddb_error *err)
{
    struct table_index view = {.def = &s->index_def, .table_key = &s->table_key};
    bool partial = s->is_index && s->index_def.projection.type != PROJECTION_ALL;
    bool index_view = partial && op->select != SELECT_ALL_ATTRIBUTES;
    struct page_names names;
    bool encoded =
        page_names_init(&names, op->projection, index_view && s->is_global ? &view : NULL);
    const struct expr_top_names *top = encoded ? &names.top : NULL;
    /* Without a tree projection, a GSI's view is read only by the filter. */
    bool need_view = partial && s->is_global && (op->filter || !top);
    bool need_tree = op->filter || need_view || (!top && (partial || op->projection));
    /* Whether an item is decoded, projected or viewed on its way to the page. */
    bool reshaped = need_tree || top || op->projection || index_view;
    int rc = 0;

    out->scanned_count = w->read_count;
    /* Zeroed: read_page_clear unrefs items[0..count) and COUNT pages fill none. */
    out->items = xcalloc(w->read_count ? w->read_count : 1, sizeof *out->items);
    if (!reshaped && op->select != SELECT_COUNT) {
        /* A plain page (the loop below would keep every item as it is):
         * the items move to the page without a scratch mark each. */
        for (size_t i = 0; i < w->read_count; i++) {
            out->items[i] = w->read[i];
            w->read[i] = NULL;
        }
        out->count = w->read_count;
        page_names_clear(&names);
        return 0;
    }
    for (size_t i = 0; i < w->read_count; i++) {
        struct item *item = w->read[i];
        struct value projected, gsi_view;
        /* Decoded only when something reads the tree: a plain page is
         * answered from the stored encoding (api/wire). What an item decodes
         * is dead after its turn (the page keeps items), so it is released. */
        struct decode_mark mark = item_scratch_mark();
        const struct value *attrs = need_tree ? item_attrs(item) : NULL;
        const struct value *base = attrs;
        bool matched = true, have_view = false;

        w->read[i] = NULL;
        if (need_view) {
            read_index_view(&view, attrs, &gsi_view);
            have_view = true;
        }
        if (op->filter && rc == 0 &&
            expr_eval_condition(op->filter, have_view ? &gsi_view : attrs, &matched, err) != 0)
            rc = -1;
        if (rc != 0 || !matched || op->select == SELECT_COUNT) {
            if (rc == 0 && matched) out->count++;
            if (have_view) value_clear(&gsi_view);
            item_unref(item);
            item_scratch_release(mark);
            continue;
        }
        if (top) {
            struct item *kept = item_project(item, top->names, top->lens, top->count);
            item_unref(item);
            item = kept;
        } else {
            if (index_view && (s->is_global || !op->projection)) {
                if (!have_view) read_index_view(&view, attrs, &gsi_view);
                have_view = true;
                base = &gsi_view;
            }
            if (op->projection) {
                expr_project(op->projection, base, &projected);
                item_unref(item);
                item = item_new(&projected);
            } else if (base != attrs) {
                item_unref(item);
                item = item_new(&gsi_view);
                have_view = false; /* taken by item_new */
            }
        }
        if (have_view) value_clear(&gsi_view);
        item_scratch_release(mark);
        out->items[out->count++] = item;
    }
    page_names_clear(&names);
    return rc;
}

static void walk_clear(struct walk *w)
{
    for (size_t i = 0; i < w->read_count; i++)
        item_unref(w->read[i]);
    free(w->read);
}

/* Read capacity of a page: the total size read, rounded up to 4 KB once, and
 * for a Scan at least DDB_MIN_SCAN_READ_UNITS (limits.h); an LSI read that
 * fetched items from the table also pays for those (dynalite test/query.js
 * "should return all attributes when specified for secondary indexes": Table
 * 3 + index 1). The units charged to the index and to the table go to
 * *index_units and *table_units, for the report. */
static void charge_page(const struct table *t, const struct source *s,
                        const struct read_page_op *op, bool is_scan, enum return_capacity mode,
                        const struct walk *w, struct read_page *out, double *index_units,
                        double *table_units)
{
    size_t min_bytes = is_scan ? (size_t) DDB_MIN_SCAN_READ_UNITS * DDB_READ_UNIT_BYTES : 0;
    double units = capacity_read_units(w->read_bytes > min_bytes ? w->read_bytes : min_bytes,
                                       op->consistent_read);
    *index_units = *table_units = 0;
    capacity_begin(&out->capacity, mode, t->def.name);
    if (s->is_index) {
        *index_units = units;
        capacity_add_index(&out->capacity, mode, s->index_def.name, s->is_global, units, 0);
        if (s->fetch && w->fetch_bytes) {
            *table_units = capacity_read_units(w->fetch_bytes, op->consistent_read);
            capacity_add_table(&out->capacity, *table_units, 0);
        }
    } else {
        *table_units = units;
        capacity_add_table(&out->capacity, units, 0);
    }
}

/* --throughput-model aws: whether a page may be read - from the GSI, or
 * from the table (its LSIs read the table's capacity) - of the Query's
 * partition (kc) or of none (a Scan, kc NULL). */
static int admit_page(struct db *db, struct table *t, const struct source *s,
                      const struct key_condition *kc, struct ddb_error *err)
{
    struct key_part parts[4];
    struct key_numbers nums;
    size_t count = 0;

    if (!db->aws_throughput) return 0;
    for (; kc && count < kc->hash_count && count < 4; count++)
        key_part_of(&kc->hash[count].value, nums.n[count], &parts[count]);
    return throttle_admit_read(t, s->is_global ? s->index : NULL,
                               count ? key_hash(parts, count) : 0, parts, count, db_now_ms(db),
                               err);
}

/* ...and what it consumed, where it was admitted. */
static void charge_page_throttle(struct db *db, struct table *t, const struct source *s,
                                 double index_units, double table_units)
{
    if (!db->aws_throughput) return;
    if (s->is_global) {
        throttle_charge(t, s->index, index_units, 0, db_now_ms(db));
        index_units = 0;
    }
    throttle_charge(t, NULL, index_units + table_units, 0, db_now_ms(db));
}

/* Collects a filter's top-level attribute names into a sorted, ", "-separated
 * list (the report names a filter by what it reads). */
struct name_list {
    const char *names[16];
    size_t lens[16];
    size_t count;
};

static bool collect_name(const void *ctx, const char *name, size_t name_len)
{
    struct name_list *l = (struct name_list *) ctx;
    size_t at = 0;
    for (; at < l->count; at++) {
        size_t n = l->lens[at] < name_len ? l->lens[at] : name_len;
        int c = memcmp(l->names[at], name, n);
        if (c == 0 && l->lens[at] == name_len) return true; /* seen */
        if (c > 0 || (c == 0 && l->lens[at] > name_len)) break;
    }
    if (l->count == 16) return true;
    memmove(&l->names[at + 1], &l->names[at], sizeof *l->names * (l->count - at));
    memmove(&l->lens[at + 1], &l->lens[at], sizeof *l->lens * (l->count - at));
    l->names[at] = name;
    l->lens[at] = name_len;
    l->count++;
    return true;
}

static const char *filter_attrs(const struct expr *filter, char *buf, size_t size)
{
    struct name_list l = {.count = 0};
    size_t pos = 0;

    if (!filter) return NULL;
    expr_names_all(filter, collect_name, &l);
    buf[0] = '\0';
    for (size_t i = 0; i < l.count && pos + 3 < size; i++) {
        int n =
            snprintf(buf + pos, size - pos, "%s%.*s", i ? ", " : "", (int) l.lens[i], l.names[i]);
        if (n < 0) break;
        pos += (size_t) n < size - pos ? (size_t) n : size - pos - 1;
    }
    return buf;
}

/* Records a page in the table's counters; the caller holds the engine lock
 * shared. *page takes the items returned once the filter has run. */
static void record_page(struct db *db, const struct table *t, const struct source *s,
                        const struct read_page_op *op, const struct walk *w, bool is_scan,
                        const struct key_condition *kc, double index_units, double table_units,
                        struct insight_page *page)
{
    assert_lock_held();
    char attrs[INSIGHT_FILTER_TEXT];
    struct key_part parts[4];
    struct key_numbers nums;
    struct insight_page_read r = {
        .index_name = s->is_index ? s->index_def.name : NULL,
        .is_global = s->is_global,
        .is_scan = is_scan,
        .items_read = w->read_count,
        .bytes_read = w->read_bytes,
        .index_units = index_units,
        .table_units = table_units,
        .filter_attrs = filter_attrs(op->filter, attrs, sizeof attrs),
        .now_ms = db_now_ms(db),
    };
    if (kc) {
        for (size_t i = 0; i < kc->hash_count && i < 4; i++)
            key_part_of(&kc->hash[i].value, nums.n[i], &parts[i]);
        r.part_count = kc->hash_count < 4 ? kc->hash_count : 4;
        r.hash = key_hash(parts, r.part_count);
        r.parts = parts;
    }
    insight_lock(t->insight);
    insight_read_page(t->insight, &r, page);
    insight_unlock(t->insight);
}

/*
 * --consistency aws: an eventually consistent page (every GSI page) answers
 * as of a moment ago (read_stale.h), counted in the table's report; sets
 * LastEvaluatedKey when the page stopped early. Caller holds the lock.
 */
static void answer_as_of(struct db *db, const struct db_scope *scope, struct table *t,
                         const struct source *s, const struct read_page_op *op,
                         struct stale_bounds *b, struct walk *w, struct value *last_key)
{
    assert_lock_held();
    const struct consistency_settings *cs = NULL;
    struct item *last = w->stopped_early ? item_ref(w->read[w->read_count - 1]) : NULL;
    bool truncated;
    size_t differs;

    if (db->consistency_any && t->recent && (s->is_global || !op->consistent_read))
        cs = consistency_in(db, scope);
    if (!cs) goto out;
    b->t = t;
    b->index = s->index;
    b->exclusive_start_key = op->exclusive_start_key;
    b->last = last;
    b->limit = op->limit;
    differs = read_stale_page(b, consistency_as_of(db, cs, s->is_global, db_now_ms(db)), &w->read,
                              &w->read_count, &w->read_cap, &truncated);
    if (differs)
        atomic_fetch_add(s->is_global ? &t->insight->gsi_stale_reads : &t->insight->stale_reads, 1);
    if (truncated) {
        item_unref(last);
        last = item_ref(w->read[w->read_count - 1]);
        w->stopped_early = true;
    }
out:
    if (last) make_last_key(s, last, last_key);
    item_unref(last);
}

/*
 * Query: one page of the key range of op->key_condition (see db.h). Takes the
 * lock shared for the checks and the walk; *out is owned by the caller
 * (read_page_clear) and left empty on -1.
 */
int db_query(struct db *db, const struct db_scope *scope, const struct read_page_op *op,
             enum return_capacity return_capacity, struct read_page *out, struct ddb_error *err)
{
    struct table *t;
    struct source s;
    struct key_condition kc;
    struct walk w;
    struct skiplist_node *first, *end, *end_before, *node;
    struct insight_page page = {.ins = NULL};
    struct stale_bounds bounds = {.t = NULL};
    double index_units, table_units;
    bool source_open = false;
    int rc = -1;

    memset(out, 0, sizeof *out);
    value_init_null(&out->last_evaluated_key);
    memset(&kc, 0, sizeof kc);
    value_init_null(&kc.lo);
    value_init_null(&kc.hi);
    memset(&w, 0, sizeof w);
    db_lock_table(db, scope, op->table_name, LOCK_HOLD_SHARED);
    if (db_require_table(db, scope, op->table_name, &t, err) != 0) goto unlock;
    if (read_source_open(t, op, db_now_ms(db), &s, err) != 0) goto unlock;
    source_open = true;
    if (read_check_query(t, &s, op, &kc, err) != 0) goto unlock;
    if (admit_page(db, t, &s, &kc, err) != 0) goto unlock;
    read_source_decide_fetch(&s, op);
    query_range(&s, &kc, &first, &end, &end_before);
    if (op->exclusive_start_key) {
        struct key_numbers esk_nums;
        struct row_key esk;
        struct skiplist_node *bound, *bound_before;
        read_source_row_key(t, &s, op->exclusive_start_key, &esk_nums, &esk);
        if (op->scan_forward) {
            /* Resume at the first row after the start key, if that is later. */
            bound = skiplist_upper_bound(s.rows, &esk, KEY_BIAS_LOW);
            if (!bound)
                first = NULL;
            else if (first && before(first, bound))
                first = bound;
        } else {
            /* Resume below the start key, if that is lower than the range's end. */
            bound = skiplist_lower_bound_before(s.rows, &esk, KEY_BIAS_LOW, &bound_before);
            if (bound && (!end || before(bound, end))) {
                end = bound;
                end_before = bound_before;
            }
        }
        /* A start key can move one bound past the other. */
        if (first && end && !before(first, end)) first = NULL;
    }
    /* The range holds rows when its first row is not its end: the key
     * condition's bounds are in order (BETWEEN's are checked), so first
     * never comes after end but by a start key's move above. The walk
     * reaches the end (or the first row, backward) by its links, and starts
     * backward at the row before end without reading end's row. */
    if (first == end) first = NULL;
    if (op->scan_forward)
        node = first;
    else
        node = first ? end_before : NULL;
    walk_range(&w, &s, op, node, first, end);
    bounds.kc = &kc;
    bounds.forward = op->scan_forward;
    if (db->consistency_any)
        answer_as_of(db, scope, t, &s, op, &bounds, &w, &out->last_evaluated_key);
    else if (w.stopped_early)
        make_last_key(&s, w.read[w.read_count - 1], &out->last_evaluated_key);
    charge_page(t, &s, op, false, return_capacity, &w, out, &index_units, &table_units);
    charge_page_throttle(db, t, &s, index_units, table_units);
    record_page(db, t, &s, op, &w, false, &kc, index_units, table_units, &page);
    rc = 0;
unlock:
    db_unlock(db);
    if (rc == 0) rc = finish_page(&s, op, &w, out, err);
    insight_page_finish(&page, rc == 0 ? out->count : 0);
    if (rc != 0) read_page_clear(out);
    if (source_open) read_source_clear(&s);
    key_condition_clear(&kc);
    walk_clear(&w);
    return rc;
}

/* The first hash of parallel-scan segment `segment` of `total`: segments split
 * the 64-bit hash space into equal contiguous ranges. */
static uint64_t segment_start(uint32_t segment, uint32_t total)
{
    return (uint64_t) (((unsigned __int128) segment << 64) / total);
}

/* Scan: one page of the table or index, or of one parallel-scan segment
 * (see db.h). Same locking and ownership as db_query. */
int db_scan(struct db *db, const struct db_scope *scope, const struct read_page_op *op,
            enum return_capacity return_capacity, struct read_page *out, struct ddb_error *err)
{
    struct table *t;
    struct source s;
    struct walk w;
    struct skiplist_node *node;
    struct row_key probe;
    struct stale_bounds bounds;
    struct insight_page page = {.ins = NULL};
    double index_units, table_units;
    bool source_open = false, last_segment = true;
    uint64_t seg_start = 0, seg_end = 0;
    int rc = -1;

    memset(out, 0, sizeof *out);
    value_init_null(&out->last_evaluated_key);
    memset(&w, 0, sizeof w);
    memset(&probe, 0, sizeof probe);
    db_lock_table(db, scope, op->table_name, LOCK_HOLD_SHARED);
    if (db_require_table(db, scope, op->table_name, &t, err) != 0) goto unlock;
    if (read_source_open(t, op, db_now_ms(db), &s, err) != 0) goto unlock;
    source_open = true;
    if (read_check_scan(t, &s, op, err) != 0) goto unlock;
    if (admit_page(db, t, &s, NULL, err) != 0) goto unlock;
    read_source_decide_fetch(&s, op);
    if (op->total_segments > 1) {
        seg_start = probe.hash = segment_start(op->segment, op->total_segments);
        last_segment = op->segment + 1 == op->total_segments;
        if (!last_segment) seg_end = segment_start(op->segment + 1, op->total_segments);
    }
    node = skiplist_lower_bound(s.rows, &probe, KEY_BIAS_LOW);
    if (op->exclusive_start_key) {
        struct key_numbers esk_nums;
        struct row_key esk;
        /* A sparse index row needs every index key; the start key has them (checked). */
        if (read_source_row_key(t, &s, op->exclusive_start_key, &esk_nums, &esk)) {
            /* A start key from another segment would walk into it (dynalite
             * actions/scan.js, recorded against AWS). */
            if (op->total_segments > 1 &&
                (esk.hash < seg_start || (!last_segment && esk.hash >= seg_end))) {
                ddb_error_set(err, DDB_VALIDATION,
                              INVALID_START_KEY ": Invalid ExclusiveStartKey. Please use "
                                                "ExclusiveStartKey with correct Segment. "
                                                "TotalSegments: %u Segment: %u",
                              (unsigned) op->total_segments, (unsigned) op->segment);
                goto unlock;
            }
            node = skiplist_upper_bound(s.rows, &esk, KEY_BIAS_LOW);
        }
    }
    for (; node && (last_segment || node->hash < seg_end); node = skiplist_next(node)) {
        if (!walk_take(&w, &s, op, node)) break;
    }
    bounds = (struct stale_bounds){.segmented = op->total_segments > 1,
                                   .seg_start = seg_start,
                                   .seg_end = seg_end,
                                   .last_segment = last_segment,
                                   .forward = true};
    if (db->consistency_any)
        answer_as_of(db, scope, t, &s, op, &bounds, &w, &out->last_evaluated_key);
    else if (w.stopped_early)
        make_last_key(&s, w.read[w.read_count - 1], &out->last_evaluated_key);
    charge_page(t, &s, op, true, return_capacity, &w, out, &index_units, &table_units);
    charge_page_throttle(db, t, &s, index_units, table_units);
    record_page(db, t, &s, op, &w, true, NULL, index_units, table_units, &page);
    rc = 0;
unlock:
    db_unlock(db);
    if (rc == 0) rc = finish_page(&s, op, &w, out, err);
    insight_page_finish(&page, rc == 0 ? out->count : 0);
    if (rc != 0) read_page_clear(out);
    if (source_open) read_source_clear(&s);
    walk_clear(&w);
    return rc;
}
