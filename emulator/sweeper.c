/*
 * sweeper.c - the TTL sweeper thread (see sweeper.h).
 *
 * The thread sleeps on a condition variable with a deadline on the monotonic
 * clock (so a jump of the wall clock, or of the engine's clock, does not
 * change the cadence), then sweeps. sweeper_stop() sets the flag and signals,
 * so shutdown never waits for an interval to pass. Signals stay blocked in
 * this thread, as in every thread (signals.c): main alone receives them.
 */
#include "emulator/sweeper.h"

#include "storage/base/alloc.h"
#include "storage/engine/db.h"
#include "storage/engine/db_ttl.h"
#include "storage/model/item.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

struct sweeper {
    struct db *db;
    unsigned interval_ms;
    pthread_t thread;
    pthread_mutex_t mutex;
    pthread_cond_t cond; /* signalled by sweeper_stop */
    bool stopping;       /* guarded by mutex */
};

static void deadline_after(struct timespec *ts, unsigned ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long) (ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static void *sweeper_main(void *arg)
{
    struct sweeper *s = arg;

    pthread_mutex_lock(&s->mutex);
    while (!s->stopping) {
        struct timespec deadline;
        int rc = 0;

        deadline_after(&deadline, s->interval_ms);
        while (!s->stopping && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&s->cond, &s->mutex, &deadline);
        if (s->stopping) break;
        pthread_mutex_unlock(&s->mutex);
        db_expire_items(s->db, SIZE_MAX);
        item_scratch_reset(); /* nothing of the sweep is kept (storage/model/item.h) */
        pthread_mutex_lock(&s->mutex);
    }
    pthread_mutex_unlock(&s->mutex);
    return NULL;
}

struct sweeper *sweeper_start(struct db *db, unsigned interval_ms)
{
    struct sweeper *s = xcalloc(1, sizeof *s);
    pthread_condattr_t attr;
    int rc;

    s->db = db;
    s->interval_ms = interval_ms ? interval_ms : 1;
    pthread_mutex_init(&s->mutex, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cond, &attr);
    pthread_condattr_destroy(&attr);
    rc = pthread_create(&s->thread, NULL, sweeper_main, s);
    if (rc != 0) {
        pthread_cond_destroy(&s->cond);
        pthread_mutex_destroy(&s->mutex);
        free(s);
        errno = rc;
        return NULL;
    }
    return s;
}

void sweeper_stop(struct sweeper *s)
{
    if (!s) return;
    pthread_mutex_lock(&s->mutex);
    s->stopping = true;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->mutex);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->mutex);
    free(s);
}
