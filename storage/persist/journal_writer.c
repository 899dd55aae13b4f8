/*
 * journal_writer.c - handing units to the log, and folding them into the
 * files: journal_submit adds the unit being built to the log's waiting
 * records (wal_log.h) and copies it to the end of j->queue under j->mutex,
 * waking the writer when needed; journal_flush, once the engine's locks are
 * let go, writes it (with whatever other threads added meanwhile); the
 * writer thread swaps the whole queue out, applies its units
 * (journal_apply.c), commits one transaction per file, and deletes the log
 * files it no longer needs. Backpressure: a submitter waits only when
 * UNFOLDED_MAX_BYTES are submitted and not folded.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/persist/journal.h"
#include "storage/persist/journal_internal.h"
#include "storage/persist/wal_log.h"

#include <time.h>

/*
 * Folds what is queued, on the writer's thread: called with j->mutex held,
 * which is released while SQLite works, so that more units queue up
 * meanwhile - they form the next group.
 */
static void fold_queued(struct journal *j)
{
    assert_mutex_held(&j->mutex);
    struct text_buf taken = j->queue;
    uint64_t last = 0;
    char *why = NULL;

    j->queue = j->group;
    j->queue.len = 0;
    j->group = taken;
    checked_mutex_unlock(&j->mutex);

    for (size_t at = 0; at < j->group.len;) {
        const void *payload;
        size_t len,
            n = wal_log_record_read(j->group.data + at, j->group.len - at, &last, &payload, &len);
        if (!n) journal_die("the journal's queue is damaged (a ddbemu bug)");
        if (journal_apply_unit(j, last, payload, len, &why) != 0) journal_die(why);
        at += n;
    }
    journal_commit_group(j, last);
    wal_log_drop_through(j->log, last);
    /* A burst's buffer is not kept for good. */
    if (j->group.cap > 4 * FOLD_GROUP_BYTES) text_buf_clear(&j->group);

    checked_mutex_lock(&j->mutex);
    j->unfolded -= taken.len;
    if (j->room_waiters) pthread_cond_broadcast(&j->room);
}

/* The writer: sleeps until a unit is waiting, lets the group grow for
 * FOLD_WAIT_MS (or until it passes FOLD_GROUP_BYTES, or a submitter waits
 * for room, or the journal closes), folds it, and again. */
static void *writer_main(void *arg)
{
    struct journal *j = arg;

    checked_mutex_lock(&j->mutex);
    for (;;) {
        if (j->queue.len) {
            if (!j->stop && !j->room_waiters && j->queue.len < FOLD_GROUP_BYTES) {
                struct timespec until;
                clock_gettime(CLOCK_MONOTONIC, &until); /* j->work waits on it */
                until.tv_nsec += FOLD_WAIT_MS * 1000000L;
                if (until.tv_nsec >= 1000000000L) {
                    until.tv_sec++;
                    until.tv_nsec -= 1000000000L;
                }
                j->writer_gathering = true;
                checked_mutex_wait(&j->work, &j->mutex, &until);
                j->writer_gathering = false;
            }
            fold_queued(j);
            continue;
        }
        if (j->stop) break;
        j->writer_idle = true;
        checked_mutex_wait(&j->work, &j->mutex, NULL);
        j->writer_idle = false;
    }
    checked_mutex_unlock(&j->mutex);
    return NULL;
}

/* The last unit this thread submitted, by its journal and log ticket, until
 * journal_flush saw it written (ticket 0: none). */
static _Thread_local struct {
    struct journal *j;
    uint64_t ticket;
} unflushed;

/* journal_submit's work without its assertions: journal_writer_stop runs it
 * once more at close, after the engine's last unlock (which submitted
 * everything the engine recorded). */
static void submit_unit(struct journal *j)
{
    struct journal_unit *u = journal_unit_of(j, false);
    uint64_t seq, ticket;
    char *why = NULL;

    if (!u) return;
    if (!u->buf.len) {
        journal_unit_done(j, u);
        return;
    }
    /* The log's numbers, its order and the queue's order are one order. */
    checked_mutex_lock(&j->append_mutex);
    if (wal_log_add(j->log, &u->buf, &seq, &ticket, &why) != 0) journal_die(why);
    unflushed.j = j;
    unflushed.ticket = ticket;
    checked_mutex_lock(&j->mutex);
    while (j->unfolded > UNFOLDED_MAX_BYTES) {
        j->room_waiters++;
        pthread_cond_signal(&j->work);
        checked_mutex_wait(&j->room, &j->mutex, NULL);
        j->room_waiters--;
    }
    text_buf_add(&j->queue, u->buf.data, u->buf.len);
    j->unfolded += u->buf.len;
    /* One wake-up a group: the first unit wakes the writer, a full group
     * ends its wait. */
    if (j->writer_idle || (j->writer_gathering && j->queue.len >= FOLD_GROUP_BYTES)) {
        j->writer_idle = j->writer_gathering = false;
        pthread_cond_signal(&j->work);
    }
    checked_mutex_unlock(&j->mutex);
    checked_mutex_unlock(&j->append_mutex);
    journal_unit_done(j, u);
}

void journal_submit(struct journal *j)
{
    assert_lock_held();
    /* Only a writer records (journal_put_* assert it). */
    assert(!journal_unit_of(j, false) || lock_check_writing());
    submit_unit(j);
}

void journal_flush(struct journal *j)
{
    char *why = NULL;

    if (unflushed.j != j || !unflushed.ticket) return;
    if (wal_log_flush(j->log, unflushed.ticket, &why) != 0) journal_die(why);
    unflushed.ticket = 0;
}

int journal_writer_start(struct journal *j, char **why)
{
    if (pthread_create(&j->writer, NULL, writer_main, j) != 0) {
        *why = xstrdup("cannot start the persistence thread");
        return -1;
    }
    j->writer_started = true;
    return 0;
}

void journal_writer_stop(struct journal *j)
{
    char *why = NULL;

    if (!j->writer_started) return;
    submit_unit(j);
    if (wal_log_flush(j->log, UINT64_MAX, &why) != 0) journal_die(why);
    checked_mutex_lock(&j->mutex);
    j->stop = true;
    pthread_cond_signal(&j->work);
    checked_mutex_unlock(&j->mutex);
    pthread_join(j->writer, NULL);
    j->writer_started = false;
}
