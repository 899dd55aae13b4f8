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
 * With NDEBUG (benchmark builds only) nothing is recorded or checked.
 */
#ifndef DDB_LOCK_CHECK_H
#define DDB_LOCK_CHECK_H

#include <assert.h>
#include <stdbool.h>

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

#endif
