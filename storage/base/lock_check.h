/*
 * lock_check.h - the engine lock's contract, checked where it is stated.
 *
 * Storage has two levels of engine lock (docs/architecture.md, "Locking"):
 * the catalog lock (struct db's rwlock, "the engine lock" in older comments)
 * and one rwlock per table (struct table's lock). The catalog lock held
 * exclusively is everything: no table lock is needed under it. Item
 * operations hold the catalog lock shared plus their tables' locks (shared to
 * read, exclusive to change), taken in one order (table identity, db.c). Most
 * functions below the db_* entry points say "the caller holds the lock" or
 * "the caller holds the table's lock"; those rooms (table/, stream/) do not
 * know struct db, so they cannot look at the locks themselves. db.c records,
 * per thread, how the calling thread holds the catalog lock and which table
 * locks it holds as it takes and releases them, and every such function
 * asserts the hold it needs, as SQLite asserts sqlite3_mutex_held().
 *
 * The other locks - a room's own mutex whose functions say "the caller
 * holds" it (the journal's queue, the deadline watcher's list) - are a
 * struct checked_mutex: the mutex, and which thread holds it, recorded as
 * checked_mutex_lock, _unlock and _wait take and release it, so that
 * assert_mutex_held(m) can check it the same way.
 *
 * With NDEBUG (benchmark builds only) nothing is recorded or checked: the
 * assertions vanish, and the checked_mutex calls are the pthread calls
 * (inline, below).
 */
#ifndef DDB_LOCK_CHECK_H
#define DDB_LOCK_CHECK_H

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

enum lock_hold { LOCK_HOLD_NONE, LOCK_HOLD_SHARED, LOCK_HOLD_EXCLUSIVE };

/* Called by db.c right after taking the catalog lock, and right before releasing it. */
void lock_check_acquired(enum lock_hold how);
void lock_check_released(void);

/* How the calling thread holds the catalog (engine) lock. */
enum lock_hold lock_check_hold(void);

/* The most table locks one thread holds at once: a call names at most 100
 * tables (TransactWriteItems' and BatchGetItem's limits). */
#define LOCK_CHECK_MAX_TABLES 128

/* Called by db.c right after taking a table's lock (named by its address),
 * and right before releasing it. */
void lock_check_table_acquired(const void *table_lock, enum lock_hold how);
void lock_check_table_released(const void *table_lock);

/* How the calling thread may use the table whose lock is table_lock:
 * EXCLUSIVE under the catalog lock held exclusively or its own lock held
 * exclusively (with the catalog lock shared), SHARED with its lock shared,
 * else NONE. */
enum lock_hold lock_check_table_hold(const void *table_lock);
/* Whether the calling thread may change some table: the catalog lock held
 * exclusively, or some table's lock held exclusively - for the rooms a
 * table owns (its stream, history, indexes) that do not know their table. */
bool lock_check_writing(void);

/* The caller holds the catalog lock, shared or exclusive. */
#define assert_lock_held() assert(lock_check_hold() != LOCK_HOLD_NONE)
/* The caller holds the catalog lock exclusively. */
#define assert_lock_exclusive() assert(lock_check_hold() == LOCK_HOLD_EXCLUSIVE)
/* The caller may read the table whose lock is lk (&t->lock). */
#define assert_table_held(lk) assert(lock_check_table_hold(lk) != LOCK_HOLD_NONE)
/* The caller may change the table whose lock is lk (&t->lock). */
#define assert_table_exclusive(lk) assert(lock_check_table_hold(lk) == LOCK_HOLD_EXCLUSIVE)
/* The caller may change the table it works on (a room that does not know it). */
#define assert_table_writing() assert(lock_check_writing())

/* ---- a room's own mutex ---- */

struct checked_mutex {
    pthread_mutex_t mutex;
    /* The holding thread (its lock_check_self()), NULL when none; written
     * only by the holder, so relaxed order suffices: a thread that reads its
     * own address wrote it itself. */
    _Atomic(const void *) holder;
};

/* An address unique to the calling thread (a thread-local's). */
const void *lock_check_self(void);

static inline void checked_mutex_init(struct checked_mutex *m)
{
    pthread_mutex_init(&m->mutex, NULL);
    atomic_init(&m->holder, NULL);
}

static inline void checked_mutex_destroy(struct checked_mutex *m)
{
    pthread_mutex_destroy(&m->mutex);
}

static inline void checked_mutex_lock(struct checked_mutex *m)
{
    pthread_mutex_lock(&m->mutex);
#ifndef NDEBUG
    atomic_store_explicit(&m->holder, lock_check_self(), memory_order_relaxed);
#endif
}

static inline void checked_mutex_unlock(struct checked_mutex *m)
{
#ifndef NDEBUG
    atomic_store_explicit(&m->holder, NULL, memory_order_relaxed);
#endif
    pthread_mutex_unlock(&m->mutex);
}

/* pthread_cond_wait on m (until NULL), or pthread_cond_timedwait until then
 * on c's clock; m is released meanwhile, and the record follows. Returns
 * what pthread returns. */
static inline int checked_mutex_wait(pthread_cond_t *c, struct checked_mutex *m,
                                     const struct timespec *until)
{
    int rc;

#ifndef NDEBUG
    atomic_store_explicit(&m->holder, NULL, memory_order_relaxed);
#endif
    rc = until ? pthread_cond_timedwait(c, &m->mutex, until) : pthread_cond_wait(c, &m->mutex);
#ifndef NDEBUG
    atomic_store_explicit(&m->holder, lock_check_self(), memory_order_relaxed);
#endif
    return rc;
}

/* Whether the calling thread holds m (always false with NDEBUG). */
static inline bool checked_mutex_held(const struct checked_mutex *m)
{
    return atomic_load_explicit(&m->holder, memory_order_relaxed) == lock_check_self();
}

/* The caller holds m. */
#define assert_mutex_held(m) assert(checked_mutex_held(m))

#endif
