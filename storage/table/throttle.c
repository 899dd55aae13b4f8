/*
 * throttle.c - admission and charging by AWS's throughput model; see throttle.h.
 *
 * Provisioned capacity is a token bucket per table and per GSI; the
 * per-partition and on-demand limits read the access-pattern report's
 * sliding one-second windows (insight/heat.h), which every request already
 * records where its units are charged, so there is one window logic and one
 * record of what was consumed. Lock order: t->throttle.mu, then the insight
 * lock.
 */
#include "storage/table/throttle.h"

#include "storage/base/lock_check.h"
#include "storage/insight/insight.h"
#include "storage/table/table.h"

#include <string.h>

/* ProvisionedThroughputExceededException, as AWS words it for a table and for its GSIs. */
#define TABLE_EXCEEDED                                                                             \
    "The level of configured provisioned throughput for the table was exceeded. Consider "         \
    "increasing your provisioning level with the UpdateTable API."
#define GSI_EXCEEDED                                                                               \
    "The level of configured provisioned throughput for one or more global secondary indexes "     \
    "of the table was exceeded. Consider increasing your provisioning level for the "              \
    "under-provisioned global secondary indexes with the UpdateTable API"
/* ThrottlingException, as AWS words it for an on-demand table and for its GSIs. */
#define TABLE_THROTTLED                                                                            \
    "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically "   \
    "scaling your table or index so please try again shortly. If exceptions persist, check if "    \
    "you have a hot key: "                                                                         \
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/"                            \
    "bp-partition-key-design.html"
#define GSI_THROTTLED                                                                              \
    "Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB "  \
    "is automatically scaling your index so please try again shortly."

void table_throttle_init(struct table_throttle *th)
{
    assert_lock_exclusive();
    memset(th, 0, sizeof *th);
    pthread_mutex_init(&th->mu, NULL);
}

void table_throttle_clear(struct table_throttle *th)
{
    assert_lock_exclusive();
    pthread_mutex_destroy(&th->mu);
    memset(th, 0, sizeof *th);
}

/* The state of the table (gsi NULL) or of a GSI. A GSI's is reached
 * through the const index that reads hold: it is mutable state guarded by
 * t->throttle.mu, as the report's counters are by theirs. */
static struct throttle_source *state_of(struct table *t, const struct table_index *gsi)
{
    return gsi ? (struct throttle_source *) &gsi->throttle : &t->throttle.table;
}

static bool on_demand(const struct table *t)
{
    return t->def.billing == BILLING_PAY_PER_REQUEST;
}

/* Whether the units of the last second leave room: rcu/max_rcu + wcu/max_wcu < 1
 * (AWS's "linear combination of both"). */
static bool has_room(const struct heat_window *w, int64_t now_ms, double max_rcu, double max_wcu)
{
    double rcu, wcu;

    if (!w) return true;
    /* Units recorded before the clock was set back still count: moving the
     * clock back never makes room (as a bucket earns nothing then). */
    heat_window_sum(w, now_ms, true, &rcu, &wcu);
    return rcu / max_rcu + wcu / max_wcu < 1.0;
}

static double larger(double a, double b)
{
    return a > b ? a : b;
}

/* On demand: what the table or GSI takes at once now - the initial
 * throughput or twice the settled previous peak, capped by its
 * OnDemandThroughput maximum - against the units of its last second. */
static bool on_demand_has_room(struct throttle_source *ts, const struct heat_window *total,
                               const struct on_demand_throughput *max, int64_t now_ms)
{
    double max_rcu, max_wcu;

    /* A peak 30 minutes old is the previous peak. */
    if (total->peak_rcu_ms + THROTTLE_PEAK_SETTLE_MS <= now_ms)
        ts->settled_rcu = larger(ts->settled_rcu, total->peak_rcu);
    if (total->peak_wcu_ms + THROTTLE_PEAK_SETTLE_MS <= now_ms)
        ts->settled_wcu = larger(ts->settled_wcu, total->peak_wcu);
    max_rcu = larger(THROTTLE_ON_DEMAND_RCU, 2 * ts->settled_rcu);
    max_wcu = larger(THROTTLE_ON_DEMAND_WCU, 2 * ts->settled_wcu);
    if (max->max_read > 0 && (double) max->max_read < max_rcu) max_rcu = (double) max->max_read;
    if (max->max_write > 0 && (double) max->max_write < max_wcu) max_wcu = (double) max->max_write;
    return has_room(total, now_ms, max_rcu, max_wcu);
}

/* The capacity of a table (gsi NULL) or GSI for one kind of request: its
 * bucket when provisioned, its table-wide limit on demand. src: its report
 * source (NULL when it has none: nothing measured, nothing limited). */
static bool source_has_room(struct table *t, const struct table_index *gsi,
                            struct insight_source *src, bool write, int64_t now_ms)
{
    struct throttle_source *ts = state_of(t, gsi);

    if (!on_demand(t)) {
        const struct throughput *tp = gsi ? &gsi->def->throughput : &t->def.throughput;
        return write ? bucket_admits(&ts->write, (double) tp->write_units, now_ms)
                     : bucket_admits(&ts->read, (double) tp->read_units, now_ms);
    }
    if (!src) return true;
    return on_demand_has_room(ts, &src->total, gsi ? &gsi->def->on_demand : &t->def.on_demand,
                              now_ms);
}

static bool partition_has_room(const struct insight_source *src, uint64_t hash,
                               const struct key_part *parts, size_t count, int64_t now_ms)
{
    if (!src || count == 0) return true;
    return has_room(heat_map_find(&src->heat, hash, parts, count), now_ms, THROTTLE_PARTITION_RCU,
                    THROTTLE_PARTITION_WCU);
}

static int refuse(const struct table *t, bool gsi, struct ddb_error *err)
{
    if (on_demand(t))
        return ddb_error_set(err, DDB_THROTTLING, gsi ? GSI_THROTTLED : TABLE_THROTTLED);
    return ddb_error_set(err, DDB_PROVISIONED_THROUGHPUT_EXCEEDED,
                         gsi ? GSI_EXCEEDED : TABLE_EXCEEDED);
}

static struct insight_source *gsi_source(struct table *t, const struct table_index *gsi)
{
    return gsi ? insight_source(t->insight, gsi->def->name, true) : &t->insight->sources[0];
}

int throttle_admit_read(struct table *t, const struct table_index *gsi, uint64_t hash,
                        const struct key_part *parts, size_t count, int64_t now_ms,
                        struct ddb_error *err)
{
    assert_lock_held();
    bool ok;

    pthread_mutex_lock(&t->throttle.mu);
    insight_lock(t->insight);
    {
        struct insight_source *src = gsi_source(t, gsi);
        ok = source_has_room(t, gsi, src, false, now_ms) &&
             partition_has_room(src, hash, parts, count, now_ms);
    }
    insight_unlock(t->insight);
    pthread_mutex_unlock(&t->throttle.mu);
    return ok ? 0 : refuse(t, gsi != NULL, err);
}

/* Whether the GSI can take the write's entries (the old one removed, the new one put). */
static bool gsi_has_room(struct table *t, const struct table_index *gsi, const struct item *old,
                         const struct item *new_item, int64_t now_ms)
{
    struct insight_source *src;
    struct row_key ok, nk;
    bool had = old && index_item_key(gsi, old, &ok);
    bool has = new_item && index_item_key(gsi, new_item, &nk);
    size_t parts = gsi->def->key.hash_count;

    if (!had && !has) return true; /* the write does not touch this index */
    src = gsi_source(t, gsi);
    if (!source_has_room(t, gsi, src, true, now_ms)) return false;
    if (had && !partition_has_room(src, ok.hash, ok.parts, parts, now_ms)) return false;
    return !has || partition_has_room(src, nk.hash, nk.parts, parts, now_ms);
}

int throttle_admit_write(struct table *t, const struct row_key *key, const struct item *old,
                         const struct item *new_item, int64_t now_ms, struct ddb_error *err)
{
    assert_lock_held();
    bool table_ok, gsi_ok = true;

    pthread_mutex_lock(&t->throttle.mu);
    insight_lock(t->insight);
    table_ok = source_has_room(t, NULL, &t->insight->sources[0], true, now_ms) &&
               partition_has_room(&t->insight->sources[0], key->hash, key->parts, 1, now_ms);
    for (size_t i = 0; table_ok && gsi_ok && i < t->index_count; i++) {
        if (t->indexes[i].def->is_global)
            gsi_ok = gsi_has_room(t, &t->indexes[i], old, new_item, now_ms);
    }
    insight_unlock(t->insight);
    pthread_mutex_unlock(&t->throttle.mu);
    if (!table_ok) return refuse(t, false, err);
    return gsi_ok ? 0 : refuse(t, true, err);
}

void throttle_charge(struct table *t, const struct table_index *gsi, double rcu, double wcu,
                     int64_t now_ms)
{
    assert_lock_held();
    struct throttle_source *ts = state_of(t, gsi);
    const struct throughput *tp = gsi ? &gsi->def->throughput : &t->def.throughput;

    /* On demand the report's windows already hold what was consumed. */
    if (on_demand(t)) return;
    pthread_mutex_lock(&t->throttle.mu);
    if (rcu > 0) bucket_take(&ts->read, (double) tp->read_units, now_ms, rcu);
    if (wcu > 0) bucket_take(&ts->write, (double) tp->write_units, now_ms, wcu);
    pthread_mutex_unlock(&t->throttle.mu);
}
