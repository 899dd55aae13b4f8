/*
 * lock_check.c - per-thread record of how the engine lock is held; see
 * lock_check.h. A thread holds the one engine lock at most once at a time
 * (the lock is not recursive), so one value per thread is the whole record;
 * its address names the thread for struct checked_mutex.
 */
#include "storage/base/lock_check.h"

static _Thread_local enum lock_hold held = LOCK_HOLD_NONE;

void lock_check_acquired(enum lock_hold how)
{
#ifndef NDEBUG
    assert(held == LOCK_HOLD_NONE); /* taking it twice would deadlock */
    held = how;
#else
    (void) how;
#endif
}

void lock_check_released(void)
{
#ifndef NDEBUG
    assert(held != LOCK_HOLD_NONE);
    held = LOCK_HOLD_NONE;
#endif
}

enum lock_hold lock_check_hold(void)
{
    return held;
}

const void *lock_check_self(void)
{
    return &held;
}
