/*
 * sweeper.h - the TTL sweeper thread: when expired items are deleted.
 *
 * Every interval it calls db_expire_items() (storage/ttl.c decides what
 * expires and deletes it in bounded batches). A condition variable makes
 * sweeper_stop() prompt instead of waiting out the interval.
 */
#ifndef DDB_EMULATOR_SWEEPER_H
#define DDB_EMULATOR_SWEEPER_H

struct db;
struct sweeper;

/* Starts the thread; db is borrowed and must outlive sweeper_stop(). Returns
 * NULL (with errno set) when the thread cannot be created. */
struct sweeper *sweeper_start(struct db *db, unsigned interval_ms);
/* Wakes the thread, waits for it to finish its current batch and frees it.
 * NULL is a no-op. */
void sweeper_stop(struct sweeper *s);

#endif
