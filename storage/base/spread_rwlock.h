/*
 * spread_rwlock.h - a writer-preferring reader-writer lock whose readers
 * share no cache line: the catalog lock (docs/architecture.md, "Locking").
 *
 * Every item operation takes the catalog lock shared before its table's
 * lock. With a pthread rwlock each of those acquisitions and releases is a
 * read-modify-write of the lock's one reader count, so two threads writing
 * two different tables still trade that cache line at every request
 * (bench/README.md, "Writers of different tables"). Here the reader count
 * is spread over SPREAD_RWLOCK_SLOTS counters, one cache line each; a
 * thread always counts itself in the same one (threads are dealt slots in
 * turn as they first read-lock any spread_rwlock; beyond that many threads,
 * slots are shared, which is still correct).
 *
 * A reader adds itself to its slot, then looks at `writing`; a writer sets
 * `writing`, then waits until every slot is zero. Both steps are sequentially
 * consistent, so either the reader sees the writer (and steps back: leaves
 * its slot and waits for the writer's mutex) or the writer sees the reader
 * (and waits for it to leave). Readers that arrive while a writer holds or
 * waits for the lock wait too: writers are preferred, as the pthread rwlock
 * with PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP was. Like it, the lock
 * is not recursive: a thread that holds it shared must not take it again.
 *
 * Writers are rare (table lifecycle, operations over the whole catalog); a
 * reader pays two atomic operations on its own line, the writer a scan of
 * the slots.
 */
#ifndef DDB_SPREAD_RWLOCK_H
#define DDB_SPREAD_RWLOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define SPREAD_RWLOCK_SLOTS 32
#define SPREAD_RWLOCK_LINE  64

/* One reader count alone on its cache line. */
struct spread_rwlock_slot {
    atomic_uint readers;
    char pad[SPREAD_RWLOCK_LINE - sizeof(atomic_uint)];
};

struct spread_rwlock {
    struct spread_rwlock_slot *slots; /* SPREAD_RWLOCK_SLOTS, line-aligned; owned */
    atomic_bool writing;              /* a writer holds or waits for the lock */
    pthread_mutex_t writer;           /* held by the writer throughout; readers wait on it */
    pthread_mutex_t drain;            /* with drained: the writer waits for readers to leave */
    pthread_cond_t drained;
};

void spread_rwlock_init(struct spread_rwlock *l);
void spread_rwlock_destroy(struct spread_rwlock *l);

void spread_rwlock_read_lock(struct spread_rwlock *l);
void spread_rwlock_read_unlock(struct spread_rwlock *l);
void spread_rwlock_write_lock(struct spread_rwlock *l);
void spread_rwlock_write_unlock(struct spread_rwlock *l);

#endif
