/*
 * spread_rwlock.c - the catalog's reader-writer lock; see spread_rwlock.h.
 */
#include "storage/base/spread_rwlock.h"

#include "storage/base/alloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The next slot to deal, and the calling thread's (0: not dealt yet). */
static atomic_uint next_slot;
static _Thread_local unsigned my_slot;

static atomic_uint *own_readers(struct spread_rwlock *l)
{
    if (!my_slot) my_slot = atomic_fetch_add_explicit(&next_slot, 1, memory_order_relaxed) + 1;
    return &l->slots[(my_slot - 1) % SPREAD_RWLOCK_SLOTS].readers;
}

void spread_rwlock_init(struct spread_rwlock *l)
{
    l->slots = xaligned_alloc(SPREAD_RWLOCK_LINE, sizeof *l->slots * SPREAD_RWLOCK_SLOTS);
    for (unsigned i = 0; i < SPREAD_RWLOCK_SLOTS; i++)
        atomic_init(&l->slots[i].readers, 0);
    atomic_init(&l->writing, false);
    pthread_mutex_init(&l->writer, NULL);
    pthread_mutex_init(&l->drain, NULL);
    pthread_cond_init(&l->drained, NULL);
}

void spread_rwlock_destroy(struct spread_rwlock *l)
{
    pthread_cond_destroy(&l->drained);
    pthread_mutex_destroy(&l->drain);
    pthread_mutex_destroy(&l->writer);
    free(l->slots);
    l->slots = NULL;
}

/* Leaves the slot; a writer waiting for the readers to drain is told. */
static void leave(struct spread_rwlock *l, atomic_uint *readers)
{
    atomic_fetch_sub_explicit(readers, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&l->writing, memory_order_seq_cst)) {
        pthread_mutex_lock(&l->drain);
        pthread_cond_broadcast(&l->drained);
        pthread_mutex_unlock(&l->drain);
    }
}

void spread_rwlock_read_lock(struct spread_rwlock *l)
{
    atomic_uint *readers = own_readers(l);

    for (;;) {
        atomic_fetch_add_explicit(readers, 1, memory_order_seq_cst);
        if (!atomic_load_explicit(&l->writing, memory_order_seq_cst)) return;
        /* A writer holds the lock or waits for it: step back until it is done. */
        leave(l, readers);
        pthread_mutex_lock(&l->writer);
        pthread_mutex_unlock(&l->writer);
    }
}

void spread_rwlock_read_unlock(struct spread_rwlock *l)
{
    leave(l, own_readers(l));
}

void spread_rwlock_write_lock(struct spread_rwlock *l)
{
    pthread_mutex_lock(&l->writer);
    atomic_store_explicit(&l->writing, true, memory_order_seq_cst);
    /* Readers that came in before `writing` was set finish; later ones step
     * back. Each leaving reader broadcasts under drain, which is held from
     * each look at a slot to the wait, so no leaving is missed. */
    pthread_mutex_lock(&l->drain);
    for (unsigned i = 0; i < SPREAD_RWLOCK_SLOTS; i++) {
        while (atomic_load_explicit(&l->slots[i].readers, memory_order_seq_cst))
            pthread_cond_wait(&l->drained, &l->drain);
    }
    pthread_mutex_unlock(&l->drain);
}

void spread_rwlock_write_unlock(struct spread_rwlock *l)
{
    atomic_store_explicit(&l->writing, false, memory_order_seq_cst);
    pthread_mutex_unlock(&l->writer);
}
