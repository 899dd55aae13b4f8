/*
 * wal_log.h - the log of acknowledged units (--db-path): append-only files in
 * the data directory that make a unit of changes durable with one write(),
 * before the journal's writer folds it into the SQLite files (journal.h).
 *
 * Files: DIR/ddbemu-<20 digits>.log, the digits the sequence number of the
 * first unit the file holds (so that names sort in log order). A file opens
 * with a 16-byte header - the magic "DDBEMLOG", the format version (u32,
 * WAL_LOG_VERSION) and four zero bytes - followed by records back to back,
 * one a unit:
 *
 *     u32 check    the low 32 bits of XXH3-64 over everything after it
 *                  (len, seq and the payload)
 *     u32 len      the payload's length in bytes
 *     u64 seq      the unit's sequence number: consecutive, without a gap,
 *                  across files
 *     payload      the unit's changes as the journal encodes them
 *                  (journal_encode.c); opaque here
 *
 * Integers are little-endian. The appender moves to a new file once the
 * current one has passed its size (rotate_bytes); a file whose every unit
 * the writer has committed to SQLite is deleted (wal_log_drop_through).
 *
 * Durability: a unit is in the operating system's hands when the write()
 * of its record returns (wal_log_flush), which is all a crash or kill -9 of
 * the process can take from it (the same promise as SQLite's WAL with
 * synchronous=NORMAL); no fsync, so a power loss or an operating-system
 * crash can lose the last units.
 *
 * Reading back (wal_log_replay): every file in order, every record checked;
 * the first unit is the one the first file's name gives, and every other
 * follows the one before. A record that is short, fails its check or breaks
 * that sequence is a torn write when it is at the end of the last file and
 * no whole record follows it: a crash in the middle of its write(), so it
 * was never acknowledged, and the replay ends there. Anywhere else it is
 * damage, and the directory is refused with a message, never repaired by
 * dropping units.
 *
 * Locking: wal_log_add is called by one thread at a time (the journal
 * calls it under its append mutex, with the locks that order the units
 * held); wal_log_flush by any thread, at any time (one flush writes at a
 * time, under a mutex of its own, and takes the waiting records from the
 * adders under another); wal_log_drop_through may run meanwhile on another
 * thread (the list of closed files has its own mutex).
 */
#ifndef DDB_WAL_LOG_H
#define DDB_WAL_LOG_H

#include "storage/base/text.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WAL_LOG_VERSION       1
#define WAL_LOG_FILE_HEADER   16
#define WAL_LOG_RECORD_HEADER 16
/* The default size past which the appender starts a new file. */
#define WAL_LOG_ROTATE_BYTES (4u * 1024 * 1024)

struct wal_log;

/* ---- appending ---- */

/* Starts the log in dir (which holds no log file: replay removed them) with
 * its first unit numbered first_seq. NULL with *why set (owned) on failure. */
struct wal_log *wal_log_create(const char *dir, uint64_t first_seq, size_t rotate_bytes,
                               char **why);
/* Makes b (empty) the start of a unit: reserves its record header, which
 * wal_log_add fills in. The payload is appended to b after it. */
void wal_log_unit_start(struct text_buf *b);
/* Numbers the unit in b (*seq), fills in its header and adds the record to
 * the ones waiting to be written, in number order; *ticket is what
 * wal_log_flush needs to know it is written. b keeps the whole record.
 * Writes nothing: the unit is not durable, and may not be acknowledged,
 * until a flush with its ticket returned. 0, or -1 with *why set (owned)
 * when the unit is too large for a record. */
int wal_log_add(struct wal_log *log, struct text_buf *b, uint64_t *seq, uint64_t *ticket,
                char **why);
/* Returns once the record of ticket, and every one added before it, is
 * written: at once when a flush already wrote it, else by writing, with one
 * write(), every record added so far - those of other threads waiting too
 * (a group commit) - in a new file first when the current one is full.
 * UINT64_MAX writes everything added. 0, or -1 with *why set (owned):
 * nothing acknowledged may follow then (a full disk, a removed directory). */
int wal_log_flush(struct wal_log *log, uint64_t ticket, char **why);
/* wal_log_add, then wal_log_flush of its ticket. */
int wal_log_append(struct wal_log *log, struct text_buf *b, uint64_t *seq, char **why);
/* Deletes the closed files whose every unit is numbered seq or below (the
 * writer has committed them). */
void wal_log_drop_through(struct wal_log *log, uint64_t seq);
/* Closes the log; with remove, deletes all its files (everything in them is
 * committed). NULL is a no-op. */
void wal_log_close(struct wal_log *log, bool remove);

/* ---- reading ---- */

/* Reads the record at data[0..avail): its unit's number and payload
 * (borrowed). Returns the record's length, or 0 when it is short or fails
 * its check. */
size_t wal_log_record_read(const void *data, size_t avail, uint64_t *seq, const void **payload,
                           size_t *len);

/* Called for every unit, in order; returns 0, or -1 with *why set (owned)
 * to end the replay with an error. */
typedef int wal_log_unit_fn(void *ctx, uint64_t seq, const void *payload, size_t len, char **why);
/* Called after the last unit of each file (the caller may commit there). */
typedef int wal_log_file_fn(void *ctx, char **why);

/* Reads every log file of dir in order and calls unit for each unit and
 * file_done after each file. *last_seq receives the number of the last unit
 * (0 when there is none). Returns 0, or -1 with *why set (owned) when a file
 * cannot be read, is damaged (see above), or a callback failed. */
int wal_log_replay(const char *dir, wal_log_unit_fn *unit, wal_log_file_fn *file_done, void *ctx,
                   uint64_t *last_seq, char **why);
/* Deletes every log file of dir (after a replay was committed). */
int wal_log_remove_all(const char *dir, char **why);

#endif
