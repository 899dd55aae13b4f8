/*
 * lock_check.c - per-thread record of how the engine's locks are held; see
 * lock_check.h. A thread holds the catalog lock at most once at a time (the
 * lock is not recursive), so one value per thread is its whole record; its
 * address names the thread for struct checked_mutex. The table locks the
 * thread holds (at most LOCK_CHECK_MAX_TABLES, all under the catalog lock
 * shared) are a small array of (lock address, how).
 */
#include "storage/base/lock_check.h"

static _Thread_local enum lock_hold held = LOCK_HOLD_NONE;

#ifndef NDEBUG
struct table_hold {
    const void *lock;
    enum lock_hold how;
};
static _Thread_local struct table_hold tables_held[LOCK_CHECK_MAX_TABLES];
static _Thread_local size_t tables_held_count;
#endif

void lock_check_acquired(enum lock_hold how)
{
#ifndef NDEBUG
    assert(held == LOCK_HOLD_NONE); /* taking it twice would deadlock */
    assert(!tables_held_count);     /* the catalog lock comes first */
    held = how;
#else
    (void) how;
#endif
}

void lock_check_released(void)
{
#ifndef NDEBUG
    assert(held != LOCK_HOLD_NONE);
    assert(!tables_held_count); /* released after its tables' locks */
    held = LOCK_HOLD_NONE;
#endif
}

void lock_check_table_acquired(const void *table_lock, enum lock_hold how)
{
#ifndef NDEBUG
    /* Only under the catalog lock shared (exclusive needs no table lock),
     * once per table, in ascending order of the lock's address (db.c). */
    assert(held == LOCK_HOLD_SHARED);
    assert(tables_held_count < LOCK_CHECK_MAX_TABLES);
    assert(!tables_held_count ||
           (const char *) tables_held[tables_held_count - 1].lock < (const char *) table_lock);
    tables_held[tables_held_count++] = (struct table_hold){table_lock, how};
#else
    (void) table_lock;
    (void) how;
#endif
}

void lock_check_table_released(const void *table_lock)
{
#ifndef NDEBUG
    for (size_t i = 0; i < tables_held_count; i++) {
        if (tables_held[i].lock != table_lock) continue;
        /* Shifted down, so that the rest stay in acquiring order. */
        for (size_t k = i; k + 1 < tables_held_count; k++)
            tables_held[k] = tables_held[k + 1];
        tables_held_count--;
        return;
    }
    assert(!"a table lock released that was not held");
#else
    (void) table_lock;
#endif
}

enum lock_hold lock_check_table_hold(const void *table_lock)
{
    if (held == LOCK_HOLD_EXCLUSIVE) return LOCK_HOLD_EXCLUSIVE;
#ifndef NDEBUG
    if (held == LOCK_HOLD_SHARED) {
        for (size_t i = 0; i < tables_held_count; i++)
            if (tables_held[i].lock == table_lock) return tables_held[i].how;
    }
#else
    (void) table_lock;
#endif
    return LOCK_HOLD_NONE;
}

bool lock_check_writing(void)
{
    if (held == LOCK_HOLD_EXCLUSIVE) return true;
#ifndef NDEBUG
    for (size_t i = 0; i < tables_held_count; i++)
        if (tables_held[i].how == LOCK_HOLD_EXCLUSIVE) return true;
#endif
    return false;
}

enum lock_hold lock_check_hold(void)
{
    return held;
}

const void *lock_check_self(void)
{
    return &held;
}
