/*
 * db.c - struct db: namespaces, the lock and the clock; see db.h and db_internal.h.
 */
#include "storage/engine/db.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/engine/db_internal.h"
#include "storage/engine/db_items.h"
#include "storage/engine/snapshots_disk.h"
#include "storage/jobs/backup_record.h"
#include "storage/jobs/snapshot_record.h"
#include "storage/persist/journal.h"
#include "storage/stream/stream.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct db *db_new(void)
{
    struct db *db = xcalloc(1, sizeof *db);

    /* Writer-preferring, and its readers share no cache line (spread_rwlock.h). */
    spread_rwlock_init(&db->lock);
    atomic_init(&db->clock_offset_ms, 0);
    atomic_init(&db->frozen_ms, DB_CLOCK_RUNNING);
    atomic_init(&db->consistency_draws, 0);
    consistency_settings_default(&db->consistency);
    atomic_init(&db->bulk.running, 0);
    atomic_init(&db->bulk.stopping, false);
    db->streams = stream_registry_new();
    return db;
}

void db_free(struct db *db)
{
    int64_t now_ms;

    if (!db) return;
    /* Nothing else may use db now; the lock is taken so that the teardown
     * meets the same contracts as every other change. The tables are only
     * unloaded, not deleted: nothing of the teardown is recorded. */
    bulk_jobs_stop(&db->bulk); /* their workers take the lock to finish */
    db_write_lock(db);
    now_ms = db_now_ms(db);
    db_forget_held(db, NULL);
    if (db->journal) {
        for (size_t i = 0; i < db->namespace_count; i++) {
            for (size_t t = 0; t < db->namespaces[i].table_count; t++)
                db->namespaces[i].tables[t]->journal = NULL;
        }
        stream_registry_forget_journal(db->streams);
    }
    for (size_t i = 0; i < db->namespace_count; i++) {
        struct namespace *ns = &db->namespaces[i];
        for (size_t t = 0; t < ns->table_count; t++)
            table_free(ns->tables[t], now_ms);
        free(ns->tables);
        free(ns->id);
    }
    free(db->namespaces);
    db_forget_tokens(db, NULL, INT64_MAX);
    free(db->tokens);
    transfer_jobs_forget(&db->transfers, NULL);
    free(db->transfers.exports);
    free(db->transfers.imports);
    bulk_jobs_forget(&db->bulk, NULL);
    backup_list_forget(&db->backups, NULL);
    free(db->backups.backups);
    snapshot_disk_free(db->snapshot_disk); /* writes what is still queued first */
    db->snapshot_disk = NULL;
    snapshot_store_free(db->snapshots);
    stream_registry_free(db->streams); /* after the tables, which detach from their streams */
    db_unlock(db);
    journal_close(db->journal);
    spread_rwlock_destroy(&db->lock);
    free(db);
}

/* The table locks the calling thread holds under the catalog lock shared
 * (db_lock_tables), in the order it took them; db_unlock releases them. */
static _Thread_local struct {
    pthread_rwlock_t *locks[LOCK_CHECK_MAX_TABLES];
    size_t count;
    bool catalog_shared; /* the catalog lock is held shared (else exclusive), for db_unlock */
} tables_locked;

void db_read_lock(struct db *db)
{
    spread_rwlock_read_lock(&db->lock);
    tables_locked.catalog_shared = true;
    lock_check_acquired(LOCK_HOLD_SHARED);
}

/* How many times a writer tries a table's lock before it sleeps on it, a
 * pause apart: 256 pauses are 3-12 us, about one write's time under the lock. */
#define LOCK_SPIN_TRIES 256

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/*
 * A single-item write holds its table's lock for a few microseconds. A
 * writer that found it taken used to sleep at once: a futex wait, a wake-up
 * system call from the holder, and a context switch each way, costing more
 * than the wait itself (bench/README.md, "Writers spin before they sleep":
 * UpdateItem at 1,000,000 items +14-17% requests a second). It tries again
 * for a while first. Readers, which wait only for a writer, still sleep at
 * once: no measured leg has them wait.
 */
static void table_write_lock(pthread_rwlock_t *lock)
{
    for (int i = 0; i < LOCK_SPIN_TRIES; i++) {
        if (pthread_rwlock_trywrlock(lock) == 0) return;
        cpu_relax();
    }
    pthread_rwlock_wrlock(lock);
}

static int compare_lock_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (pthread_rwlock_t *const *) a,
              y = (uintptr_t) * (pthread_rwlock_t *const *) b;
    return x < y ? -1 : x > y;
}

void db_lock_tables(struct db *db, const struct db_scope *scope, const char *const *names,
                    size_t count, enum lock_hold how)
{
    pthread_rwlock_t **locks = tables_locked.locks;
    size_t n = 0;

    assert(how != LOCK_HOLD_NONE);
    db_read_lock(db);
    /* --consistency aws keeps state across tables (the held transactions)
     * that every change reads and writes: changes are catalog-wide there. */
    if (how == LOCK_HOLD_EXCLUSIVE && db->consistency_any) goto whole_catalog;
    for (size_t i = 0; i < count; i++) {
        /* DELETING ones too: DescribeTable reads them. */
        struct table *t = db_find_table_entry(db, scope, names[i]);
        bool seen = false;
        if (!t) continue; /* the caller's lookup raises ResourceNotFoundException */
        for (size_t k = 0; k < n && !seen; k++)
            seen = locks[k] == &t->lock;
        if (seen) continue;
        if (n == LOCK_CHECK_MAX_TABLES) goto whole_catalog;
        locks[n++] = &t->lock;
    }
    /* One order for every thread - the locks' addresses, ascending - so
     * that two calls over overlapping tables cannot wait for each other. */
    if (n > 1) qsort(locks, n, sizeof *locks, compare_lock_address);
    for (size_t k = 0; k < n; k++) {
        if (how == LOCK_HOLD_EXCLUSIVE)
            table_write_lock(locks[k]);
        else
            pthread_rwlock_rdlock(locks[k]);
        lock_check_table_acquired(locks[k], how);
    }
    tables_locked.count = n;
    return;
whole_catalog:
    tables_locked.count = 0;
    lock_check_released();
    spread_rwlock_read_unlock(&db->lock);
    db_write_lock(db);
}

void db_lock_table(struct db *db, const struct db_scope *scope, const char *name,
                   enum lock_hold how)
{
    db_lock_tables(db, scope, &name, 1, how);
}

void db_write_lock(struct db *db)
{
    spread_rwlock_write_lock(&db->lock);
    tables_locked.catalog_shared = false;
    lock_check_acquired(LOCK_HOLD_EXCLUSIVE);
}

/*
 * Releases the catalog lock and the table locks taken with it. With
 * persistence, the changes the caller made under them (only a writer makes
 * any) go to the journal's log as one unit first, still under the locks, so
 * in commit order for every table they touched; once it is appended they
 * survive kill -9, so the answer that acknowledges them can go out at once
 * (journal.h).
 */
void db_unlock(struct db *db)
{
    if (db->journal) journal_submit(db->journal);
    while (tables_locked.count) {
        pthread_rwlock_t *lock = tables_locked.locks[--tables_locked.count];
        lock_check_table_released(lock);
        pthread_rwlock_unlock(lock);
    }
    lock_check_released();
    if (tables_locked.catalog_shared)
        spread_rwlock_read_unlock(&db->lock);
    else
        spread_rwlock_write_unlock(&db->lock);
    /* The unit submitted above is written to the log now, outside the
     * locks, before the caller answers (journal.h). */
    if (db->journal) journal_flush(db->journal);
}

void db_set_delay_transient(struct db *db, bool on)
{
    db->delay_transient = on;
}

void db_set_throughput_model(struct db *db, bool aws)
{
    db->aws_throughput = aws;
}

/* Frees what a held transaction (consistency.c) owns. */
void db_held_free(struct held_transaction *h)
{
    assert_lock_exclusive();
    free(h->namespace_id);
    free(h->token);
    for (size_t i = 0; i < h->count; i++) {
        free(h->table_names[i]);
        value_clear(&h->keys[i]);
    }
    free(h->table_names);
    free(h->keys);
}

void db_forget_held(struct db *db, const char *namespace_id)
{
    assert_lock_exclusive();
    size_t kept = 0;

    for (size_t i = 0; i < db->held_count; i++) {
        if (!namespace_id || strcmp(db->held[i].namespace_id, namespace_id) == 0)
            db_held_free(&db->held[i]);
        else
            db->held[kept++] = db->held[i];
    }
    db->held_count = kept;
    if (!kept) {
        free(db->held);
        db->held = NULL;
    }
}

/* The only call to the system clock in the engine (STYLE B8). */
static int64_t wall_clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t db_now_ms(struct db *db)
{
    int64_t frozen = atomic_load_explicit(&db->frozen_ms, memory_order_relaxed);
    if (frozen != DB_CLOCK_RUNNING) return frozen;
    return wall_clock_ms() + atomic_load(&db->clock_offset_ms);
}

/* The clock's offset is part of what --db-path keeps, so that TTL expiry and
 * stream ages carry on from where a test left the clock. */
static void persist_clock(struct db *db)
{
    if (db->journal)
        journal_meta_set(db->journal, META_CLOCK_OFFSET, atomic_load(&db->clock_offset_ms));
}

/* While frozen, the clock stands at frozen_ms and moves only when told; the
 * offset is kept in step, so that unfreezing carries on from there. The
 * control interface changes the clock one request at a time. */
void db_clock_advance(struct db *db, int64_t delta_ms)
{
    atomic_fetch_add(&db->clock_offset_ms, delta_ms);
    if (atomic_load(&db->frozen_ms) != DB_CLOCK_RUNNING) atomic_fetch_add(&db->frozen_ms, delta_ms);
    persist_clock(db);
}

void db_clock_set(struct db *db, int64_t now_ms)
{
    atomic_store(&db->clock_offset_ms, now_ms - wall_clock_ms());
    if (atomic_load(&db->frozen_ms) != DB_CLOCK_RUNNING) atomic_store(&db->frozen_ms, now_ms);
    persist_clock(db);
}

void db_clock_freeze(struct db *db, bool frozen)
{
    int64_t now_ms = db_now_ms(db);

    if (frozen) {
        atomic_store(&db->frozen_ms, now_ms);
    } else if (atomic_load(&db->frozen_ms) != DB_CLOCK_RUNNING) {
        atomic_store(&db->clock_offset_ms, now_ms - wall_clock_ms());
        atomic_store(&db->frozen_ms, DB_CLOCK_RUNNING);
        persist_clock(db);
    }
}

bool db_clock_is_frozen(struct db *db)
{
    return atomic_load(&db->frozen_ms) != DB_CLOCK_RUNNING;
}

static struct namespace *find_namespace(struct db *db, const char *id)
{
    for (size_t i = 0; i < db->namespace_count; i++) {
        if (strcmp(db->namespaces[i].id, id) == 0) return &db->namespaces[i];
    }
    return NULL;
}

struct namespace *db_find_namespace(struct db *db, const struct db_scope *scope)
{
    assert_lock_held();
    return find_namespace(db, scope->namespace_id);
}

struct table *db_find_table(struct db *db, const struct db_scope *scope, const char *name)
{
    assert_lock_held();
    struct table *t = db_find_table_entry(db, scope, name);
    return t && !table_is_deleting(t) ? t : NULL;
}

struct table *db_find_table_entry(struct db *db, const struct db_scope *scope, const char *name)
{
    assert_lock_held();
    struct namespace *ns = find_namespace(db, scope->namespace_id);
    size_t lo = 0, hi;
    if (!ns) return NULL;
    hi = ns->table_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ns->tables[mid]->def.name, name);
        if (c == 0) return ns->tables[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

struct table *db_find_table_by_arn(struct db *db, const struct db_scope *scope, const char *arn)
{
    static const char prefix[] = "arn:aws:dynamodb:";
    const char *region, *account, *name;
    size_t region_len;

    assert_lock_held();
    if (strncmp(arn, prefix, sizeof prefix - 1) != 0) return NULL;
    region = arn + sizeof prefix - 1;
    account = strchr(region, ':');
    if (!account) return NULL;
    region_len = (size_t) (account - region);
    account++;
    name = strchr(account, ':');
    if (!name || strncmp(name, ":table/", 7) != 0) return NULL;
    if (strlen(scope->region) != region_len || strncmp(region, scope->region, region_len) != 0)
        return NULL;
    if ((size_t) (name - account) != strlen(DDB_ACCOUNT_ID) ||
        strncmp(account, DDB_ACCOUNT_ID, strlen(DDB_ACCOUNT_ID)) != 0)
        return NULL;
    name += 7;
    if (strchr(name, '/')) return NULL;
    return db_find_table(db, scope, name);
}

int db_require_table(struct db *db, const struct db_scope *scope, const char *name,
                     struct table **out, struct ddb_error *err)
{
    assert_lock_held();
    *out = db_find_table(db, scope, name);
    if (*out && (*out)->transient_until_ms &&
        table_status_at(*out, db_now_ms(db)) == TABLE_CREATING)
        *out = NULL;
    if (!*out) return ddb_error_resource_not_found(err);
    return 0;
}

/* The scope's namespace, created on first use; caller holds the lock exclusively. */
struct namespace *db_namespace_for_write(struct db *db, const struct db_scope *scope)
{
    assert_lock_exclusive();
    struct namespace *ns = find_namespace(db, scope->namespace_id);
    if (ns) return ns;
    db->namespaces = xrealloc(db->namespaces, sizeof *db->namespaces * (db->namespace_count + 1));
    ns = &db->namespaces[db->namespace_count++];
    memset(ns, 0, sizeof *ns);
    ns->id = xstrdup(scope->namespace_id);
    return ns;
}

size_t db_namespace_position(const struct namespace *ns, const char *name)
{
    size_t lo = 0, hi = ns->table_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ns->tables[mid]->def.name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void db_namespace_insert(struct namespace *ns, struct table *t)
{
    assert_lock_exclusive();
    size_t pos = db_namespace_position(ns, t->def.name);

    if (ns->table_count == ns->table_cap) {
        ns->table_cap = ns->table_cap ? ns->table_cap * 2 : 8;
        ns->tables = xrealloc(ns->tables, sizeof *ns->tables * ns->table_cap);
    }
    memmove(&ns->tables[pos + 1], &ns->tables[pos], sizeof *ns->tables * (ns->table_count - pos));
    ns->tables[pos] = t;
    ns->table_count++;
}

void consumed_capacity_clear(struct consumed_capacity *c)
{
    free(c->table_name);
    for (size_t i = 0; i < c->index_count; i++)
        free(c->indexes[i].index_name);
    free(c->indexes);
    for (size_t i = 0; i < c->vector_count; i++)
        free(c->vectors[i].index_name);
    free(c->vectors);
    memset(c, 0, sizeof *c);
}

void write_result_clear(struct write_result *r)
{
    item_unref(r->old_item);
    item_unref(r->new_item);
    consumed_capacity_clear(&r->capacity);
    value_clear(&r->collection_metrics.key);
    failure_details_clear(&r->failure);
    memset(r, 0, sizeof *r);
}

void db_forget_tokens(struct db *db, const char *namespace_id, int64_t until_ms)
{
    assert_lock_exclusive();
    size_t kept = 0;

    for (size_t i = 0; i < db->token_count; i++) {
        struct client_token *ct = &db->tokens[i];
        bool in_namespace = !namespace_id || strcmp(ct->namespace_id, namespace_id) == 0;
        if (in_namespace && ct->expires_ms <= until_ms) {
            free(ct->namespace_id);
            free(ct->token);
            free(ct->digest);
        } else {
            db->tokens[kept++] = *ct;
        }
    }
    db->token_count = kept;
}
