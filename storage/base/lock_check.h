/*
 * lock_check.h - the engine lock's contract, checked where it is stated.
 *
 * Storage has one lock (struct db's rwlock). Most functions below the db_*
 * entry points say "the caller holds db->lock" (shared to read, exclusive to
 * change); those rooms (table/, stream/) do not know struct db, so they
 * cannot look at the lock itself. db.c records, per thread, how the calling
 * thread holds the lock as it takes and releases it, and every such function
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

/* Called by db.c right after taking the lock, and right before releasing it. */
void lock_check_acquired(enum lock_hold how);
void lock_check_released(void);

/* How the calling thread holds the engine lock. */
enum lock_hold lock_check_hold(void);

/* The caller holds the engine lock, shared or exclusive. */
#define assert_lock_held() assert(lock_check_hold() != LOCK_HOLD_NONE)
/* The caller holds the engine lock exclusively. */
#define assert_lock_exclusive() assert(lock_check_hold() == LOCK_HOLD_EXCLUSIVE)

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
