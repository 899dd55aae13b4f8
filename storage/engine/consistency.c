/*
 * consistency.c - --consistency aws (db_consistency.h, docs/consistency.md):
 * its settings, the "as of" answer of an eventually consistent read, and the
 * transactions that hold their items.
 *
 * Reads. A table of a namespace with the model on keeps its recent versions
 * (table/versions.h). An eventually consistent GetItem, BatchGetItem, Query
 * or Scan of the table or an LSI answers as of now minus the read lag, a read
 * of a GSI as of now minus the GSI lag: every answer is a state the item
 * really had. With a seed, each read's lag is drawn in [0, lag] from a
 * counter-based generator (splitmix64 of seed + draw number), so a run that
 * sends the same requests in the same order sees the same stale answers.
 * ConsistentRead (tables and LSIs) and TransactGetItems read the latest state.
 *
 * Transactions. AWS holds a TransactWriteItems' items between its prepare and
 * its commit, and answers after the commit; a request that touches one
 * meanwhile conflicts. Here the transaction is checked, prepared and
 * committed in one critical section (all or nothing, never half visible),
 * and its items stay held for transaction_ms of the engine clock after the
 * commit; its caller is answered when that time has passed
 * (consistency_wait_hold, outside the lock), so that a client never meets its
 * own transaction, as on AWS. While the clock is frozen the caller is
 * answered at once - nothing would end the wait - and the test moves the
 * clock past the hold itself. During the window a PutItem, UpdateItem or DeleteItem of a held
 * item fails with TransactionConflictException, another TransactWriteItems or
 * a TransactGetItems naming one is canceled with the TransactionConflict
 * reason at its position, a GetItem succeeds, and a retry with the same
 * ClientRequestToken answers TransactionInProgressException
 * (docs/consistency.md cites each rule; docs/differences.md the window).
 *
 * Locking: settings and holds change under the lock exclusively; reads look
 * under the shared lock. The seeded draw counter and the report's counters
 * are atomics.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/engine/db_consistency.h"
#include "storage/engine/db_internal.h"
#include "storage/table/versions.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct consistency_settings *settings_of(const struct db *db,
                                                      const struct namespace *ns)
{
    return ns && ns->has_consistency ? &ns->consistency : &db->consistency;
}

/* How long a table of a namespace with setting s keeps a change. */
static int64_t window_of(const struct consistency_settings *s)
{
    return s->read_lag_ms > s->gsi_lag_ms ? s->read_lag_ms : s->gsi_lag_ms;
}

/* Starts keeping t's recent versions for window_ms (or changes the window). */
static void keep_versions(struct table *t, int64_t window_ms)
{
    if (!t->recent)
        t->recent = versions_new(window_ms);
    else
        t->recent->window_ms = window_ms;
}

static void drop_versions(struct table *t)
{
    versions_free(t->recent);
    t->recent = NULL;
}

/* Keeps, or stops keeping, the recent versions of ns's tables after its
 * setting changed, and recomputes consistency_any. Caller holds the lock
 * exclusively. */
static void apply_settings(struct db *db)
{
    assert_lock_exclusive();
    db->consistency_any = db->consistency.aws;
    for (size_t i = 0; i < db->namespace_count; i++) {
        struct namespace *ns = &db->namespaces[i];
        const struct consistency_settings *s = settings_of(db, ns);
        db->consistency_any = db->consistency_any || s->aws;
        for (size_t t = 0; t < ns->table_count; t++) {
            if (s->aws)
                keep_versions(ns->tables[t], window_of(s));
            else
                drop_versions(ns->tables[t]);
        }
    }
    if (!db->consistency_any) db_forget_held(db, NULL);
}

void db_set_consistency(struct db *db, const struct consistency_settings *s)
{
    db_write_lock(db);
    db->consistency = *s;
    atomic_store(&db->consistency_draws, 0);
    apply_settings(db);
    db_unlock(db);
}

void db_set_namespace_consistency(struct db *db, const char *namespace_id,
                                  const struct consistency_settings *s)
{
    struct db_scope scope = {.namespace_id = namespace_id, .region = ""};
    struct namespace *ns;

    db_write_lock(db);
    ns = s ? db_namespace_for_write(db, &scope) : db_find_namespace(db, &scope);
    if (ns) {
        ns->has_consistency = s != NULL;
        if (s) ns->consistency = *s;
    }
    atomic_store(&db->consistency_draws, 0);
    apply_settings(db);
    db_unlock(db);
}

void db_get_consistency(struct db *db, const char *namespace_id, struct consistency_settings *out)
{
    struct db_scope scope = {.namespace_id = namespace_id, .region = ""};

    db_read_lock(db);
    *out = *settings_of(db, db_find_namespace(db, &scope));
    db_unlock(db);
}

const struct consistency_settings *consistency_in(struct db *db, const struct db_scope *scope)
{
    assert_lock_held();
    const struct consistency_settings *s = settings_of(db, db_find_namespace(db, scope));
    return s->aws ? s : NULL;
}

void consistency_table_added(struct db *db, const struct db_scope *scope, struct table *t)
{
    assert_lock_exclusive();
    const struct consistency_settings *s = consistency_in(db, scope);
    if (s) keep_versions(t, window_of(s));
}

/* splitmix64 (Steele, Lea, Flood 2014): a good 64-bit mix of a counter. */
static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

int64_t consistency_as_of(struct db *db, const struct consistency_settings *cs, bool gsi,
                          int64_t now_ms)
{
    int64_t lag = gsi ? cs->gsi_lag_ms : cs->read_lag_ms;

    if (cs->seeded && lag > 0) {
        uint64_t n = atomic_fetch_add(&db->consistency_draws, 1);
        lag = (int64_t) (splitmix64(cs->seed + n) % (uint64_t) (lag + 1));
    }
    return now_ms - lag;
}

struct item *consistency_read_item(struct db *db, const struct consistency_settings *cs,
                                   struct table *t, const struct row_key *key, struct item *found,
                                   int64_t now_ms)
{
    assert_lock_held();
    struct item *then;

    if (!t->recent) return found;
    then = versions_state_at(t->recent, &t->def.key, key, found,
                             consistency_as_of(db, cs, false, now_ms));
    if (then != found) atomic_fetch_add(&t->insight->stale_reads, 1);
    return then;
}

/* Drops the holds that ended at or before now_ms; caller holds the lock exclusively. */
static void release_ended(struct db *db, int64_t now_ms)
{
    assert_lock_exclusive();
    size_t kept = 0;

    for (size_t i = 0; i < db->held_count; i++) {
        if (db->held[i].until_ms <= now_ms)
            db_held_free(&db->held[i]);
        else
            db->held[kept++] = db->held[i];
    }
    db->held_count = kept;
}

bool consistency_is_held(struct db *db, const struct db_scope *scope, const struct table *t,
                         const struct row_key *key, int64_t now_ms)
{
    assert_lock_held();
    for (size_t i = 0; i < db->held_count; i++) {
        const struct held_transaction *h = &db->held[i];
        if (h->until_ms <= now_ms || strcmp(h->namespace_id, scope->namespace_id) != 0) continue;
        for (size_t k = 0; k < h->count; k++) {
            struct key_numbers nums;
            struct row_key rk;
            if (strcmp(h->table_names[k], t->def.name) != 0) continue;
            table_row_key(t, &h->keys[k], &nums, &rk);
            if (rk.hash == key->hash && row_key_compare(&rk, key, KEY_BIAS_LOW) == 0) return true;
        }
    }
    return false;
}

int consistency_check_write(struct db *db, const struct db_scope *scope, struct table *t,
                            const struct row_key *key, int64_t now_ms, struct ddb_error *err)
{
    assert_lock_exclusive();
    release_ended(db, now_ms);
    if (!consistency_is_held(db, scope, t, key, now_ms)) return 0;
    atomic_fetch_add(&t->insight->conflicts, 1);
    /* The message AWS sends with TransactionConflictException (docs/consistency.md). */
    return ddb_error_set(err, DDB_TRANSACTION_CONFLICT, "Transaction is ongoing for the item");
}

bool consistency_token_held(struct db *db, const struct db_scope *scope, const char *token,
                            int64_t now_ms)
{
    assert_lock_held();
    for (size_t i = 0; i < db->held_count; i++) {
        const struct held_transaction *h = &db->held[i];
        if (h->until_ms > now_ms && h->token && strcmp(h->token, token) == 0 &&
            strcmp(h->namespace_id, scope->namespace_id) == 0)
            return true;
    }
    return false;
}

/* A new map of the key attributes of t in attrs (an item or a Key). */
static void key_of(const struct table *t, const struct value *attrs, struct value *out)
{
    const struct key_schema *k = &t->def.key;

    value_init_map(out);
    for (size_t i = 0; i < 1 + k->range_count; i++) {
        const char *name = i == 0 ? k->hash_names[0] : k->range_names[0];
        const struct value *v = value_map_get(attrs, name, strlen(name));
        struct value copy;
        if (!v) continue;
        value_copy(&copy, v);
        value_map_set(out, name, strlen(name), &copy);
    }
}

void consistency_wait_hold(struct db *db, int64_t until_ms)
{
    int64_t now_ms;

    while (!db_clock_is_frozen(db) && (now_ms = db_now_ms(db)) < until_ms) {
        int64_t step = until_ms - now_ms < 5 ? until_ms - now_ms : 5;
        struct timespec ts = {.tv_sec = 0, .tv_nsec = step * 1000000};
        nanosleep(&ts, NULL);
    }
}

int64_t consistency_hold(struct db *db, const struct db_scope *scope,
                         const struct consistency_settings *cs, struct table *const *tables,
                         const struct write_op *ops, size_t op_count, const char *token,
                         int64_t now_ms)
{
    assert_lock_exclusive();
    struct held_transaction *h;

    release_ended(db, now_ms);
    if (cs->transaction_ms <= 0) return now_ms;
    db->held = xrealloc(db->held, sizeof *db->held * (db->held_count + 1));
    h = &db->held[db->held_count++];
    h->namespace_id = xstrdup(scope->namespace_id);
    h->token = token ? xstrdup(token) : NULL;
    h->until_ms = now_ms + cs->transaction_ms;
    h->count = op_count;
    h->table_names = xcalloc(op_count ? op_count : 1, sizeof *h->table_names);
    h->keys = xcalloc(op_count ? op_count : 1, sizeof *h->keys);
    for (size_t i = 0; i < op_count; i++) {
        h->table_names[i] = xstrdup(tables[i]->def.name);
        key_of(tables[i], ops[i].kind == WRITE_PUT ? item_attrs(ops[i].put_item) : &ops[i].key,
               &h->keys[i]);
    }
    return h->until_ms;
}
