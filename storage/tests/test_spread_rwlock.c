/*
 * test_spread_rwlock.c - the catalog's reader-writer lock excludes as a
 * rwlock must: writers alone, readers together, readers that come while a
 * writer waits wait behind it, and more threads than slots share them
 * correctly. Threads count what they saw in atomics; the checks run on the
 * main thread (check.h is not thread-safe). Run under ThreadSanitizer by
 * scripts/test: the unguarded counters below are a data race unless the
 * lock orders every writer against every reader.
 */
#include "storage/base/spread_rwlock.h"
#include "storage/tests/check.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

/* More readers than slots, so that some share one. */
#define READERS      (SPREAD_RWLOCK_SLOTS + 4)
#define WRITERS      2
#define READ_ROUNDS  300
#define WRITE_ROUNDS 300

static struct spread_rwlock lock;
static long guarded_a, guarded_b; /* changed only under the lock held exclusively */
static atomic_int readers_inside, writers_inside;
static atomic_long torn_reads, readers_beside_writer, writers_together, reads_done;

static void *reader(void *arg)
{
    (void) arg;
    for (int i = 0; i < READ_ROUNDS; i++) {
        spread_rwlock_read_lock(&lock);
        atomic_fetch_add(&readers_inside, 1);
        if (atomic_load(&writers_inside)) atomic_fetch_add(&readers_beside_writer, 1);
        if (guarded_a != guarded_b) atomic_fetch_add(&torn_reads, 1);
        atomic_fetch_add(&readers_inside, -1);
        spread_rwlock_read_unlock(&lock);
        atomic_fetch_add(&reads_done, 1);
    }
    return NULL;
}

static void *writer(void *arg)
{
    (void) arg;
    for (int i = 0; i < WRITE_ROUNDS; i++) {
        spread_rwlock_write_lock(&lock);
        if (atomic_fetch_add(&writers_inside, 1)) atomic_fetch_add(&writers_together, 1);
        if (atomic_load(&readers_inside)) atomic_fetch_add(&readers_beside_writer, 1);
        guarded_a++;
        sched_yield(); /* a reader that got in now would see a != b */
        guarded_b++;
        atomic_fetch_add(&writers_inside, -1);
        spread_rwlock_write_unlock(&lock);
    }
    return NULL;
}

static void test_writers_alone_readers_together(void)
{
    pthread_t r[READERS], w[WRITERS];

    spread_rwlock_init(&lock);
    for (int i = 0; i < READERS; i++)
        pthread_create(&r[i], NULL, reader, NULL);
    for (int i = 0; i < WRITERS; i++)
        pthread_create(&w[i], NULL, writer, NULL);
    for (int i = 0; i < READERS; i++)
        pthread_join(r[i], NULL);
    for (int i = 0; i < WRITERS; i++)
        pthread_join(w[i], NULL);
    CHECK_INT_EQ(guarded_a, WRITERS * WRITE_ROUNDS);
    CHECK_INT_EQ(guarded_b, WRITERS * WRITE_ROUNDS);
    CHECK_INT_EQ(atomic_load(&torn_reads), 0);
    CHECK_INT_EQ(atomic_load(&readers_beside_writer), 0);
    CHECK_INT_EQ(atomic_load(&writers_together), 0);
    CHECK_INT_EQ(atomic_load(&reads_done), READERS * READ_ROUNDS);
    for (unsigned i = 0; i < SPREAD_RWLOCK_SLOTS; i++)
        CHECK_INT_EQ(atomic_load(&lock.slots[i].readers), 0);
    spread_rwlock_destroy(&lock);
}

/* The order in which the writer and the late reader got the lock. */
static atomic_int order, writer_turn, late_reader_turn;

static void *waiting_writer(void *arg)
{
    (void) arg;
    spread_rwlock_write_lock(&lock);
    atomic_store(&writer_turn, atomic_fetch_add(&order, 1) + 1);
    spread_rwlock_write_unlock(&lock);
    return NULL;
}

static void *late_reader(void *arg)
{
    (void) arg;
    spread_rwlock_read_lock(&lock);
    atomic_store(&late_reader_turn, atomic_fetch_add(&order, 1) + 1);
    spread_rwlock_read_unlock(&lock);
    return NULL;
}

static void test_a_waiting_writer_goes_before_later_readers(void)
{
    pthread_t w, r;
    struct timespec pause = {0, 20 * 1000 * 1000};

    spread_rwlock_init(&lock);
    spread_rwlock_read_lock(&lock); /* the reader the writer waits for */
    pthread_create(&w, NULL, waiting_writer, NULL);
    while (!atomic_load(&lock.writing))
        sched_yield();
    /* The writer waits for this thread's read hold; a reader now must wait
     * behind the writer, not join the read hold. */
    pthread_create(&r, NULL, late_reader, NULL);
    nanosleep(&pause, NULL);
    CHECK_INT_EQ(atomic_load(&order), 0); /* neither got in */
    spread_rwlock_read_unlock(&lock);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    CHECK_INT_EQ(atomic_load(&writer_turn), 1);
    CHECK_INT_EQ(atomic_load(&late_reader_turn), 2);
    spread_rwlock_destroy(&lock);
}

int main(void)
{
    RUN(test_writers_alone_readers_together);
    RUN(test_a_waiting_writer_goes_before_later_readers);
    return check_report();
}
