/*
 * snapshots_disk.c - the writer of named snapshots under --db-path; see
 * snapshots_disk.h. The thread takes the job at the head of the queue,
 * leaves it there while it writes (so that snapshot_disk_pending sees it),
 * then moves it to the done list and wakes snapshot_disk_sync's waiters.
 * Writing reads only the job: its items are immutable and referenced, its
 * stream copies are its own, so it needs no engine lock.
 */
#include "storage/engine/snapshots_disk.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/jobs/snapshot_record.h"
#include "storage/persist/snapshot_file.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct snapshot_disk {
    struct journal *journal;
    pthread_mutex_t mutex;
    pthread_cond_t work; /* a job is queued, or stop */
    pthread_cond_t done; /* a job is written */
    struct snapshot_job *head, *tail;
    struct snapshot_job *written_jobs; /* waiting to be freed under the engine lock */
    uint64_t queued;                   /* tickets handed out */
    uint64_t written;                  /* every job up to this ticket is on disk */
    bool stop;
    pthread_t thread;
};

struct snapshot_job_table *snapshot_job_add_table(struct snapshot_job_namespace *jn)
{
    struct snapshot_job_table *jt;

    jn->tables = xrealloc(jn->tables, sizeof *jn->tables * (jn->table_count + 1));
    jt = &jn->tables[jn->table_count++];
    memset(jt, 0, sizeof *jt);
    return jt;
}

/* Frees a job; the caller holds the engine lock exclusively (stream copies). */
static void job_free(struct snapshot_job *job)
{
    assert_lock_exclusive();
    for (size_t i = 0; i < job->namespace_count; i++) {
        struct snapshot_job_namespace *jn = &job->namespaces[i];
        for (size_t k = 0; k < jn->table_count; k++) {
            struct snapshot_job_table *jt = &jn->tables[k];
            text_buf_clear(&jt->record);
            snapshot_refs_free(jt->items, jt->item_count, jt->history, jt->history_count);
        }
        free(jn->tables);
        for (size_t k = 0; k < jn->stream_count; k++) {
            stream_snapshot_free(jn->streams[k]);
            free(jn->stream_arns[k]);
        }
        free(jn->streams);
        free(jn->stream_arns);
        free(jn->id);
    }
    free(job->namespaces);
    text_buf_clear(&job->state);
    free(job->name);
    free(job);
}

/* Frees the written jobs; the caller holds the engine lock exclusively. */
static void free_written(struct snapshot_disk *sd)
{
    assert_lock_exclusive();
    struct snapshot_job *list;

    pthread_mutex_lock(&sd->mutex);
    list = sd->written_jobs;
    sd->written_jobs = NULL;
    pthread_mutex_unlock(&sd->mutex);
    while (list) {
        struct snapshot_job *next = list->next;
        job_free(list);
        list = next;
    }
}

void snapshot_disk_queue(struct snapshot_disk *sd, struct snapshot_job *job)
{
    assert_lock_exclusive();
    free_written(sd);
    pthread_mutex_lock(&sd->mutex);
    job->next = NULL;
    job->ticket = ++sd->queued;
    if (sd->tail)
        sd->tail->next = job;
    else
        sd->head = job;
    sd->tail = job;
    pthread_cond_signal(&sd->work);
    pthread_mutex_unlock(&sd->mutex);
}

bool snapshot_disk_pending(struct snapshot_disk *sd, const char *name)
{
    bool pending = false;

    pthread_mutex_lock(&sd->mutex);
    for (const struct snapshot_job *job = sd->head; job; job = job->next)
        if (strcmp(job->name, name) == 0) pending = !job->delete;
    pthread_mutex_unlock(&sd->mutex);
    return pending;
}

void snapshot_disk_sync(struct snapshot_disk *sd)
{
    pthread_mutex_lock(&sd->mutex);
    for (uint64_t until = sd->queued; sd->written < until;)
        pthread_cond_wait(&sd->done, &sd->mutex);
    pthread_mutex_unlock(&sd->mutex);
}

struct record_sink {
    struct snapshot_file_write *w;
    uint32_t ns;
    const char *arn;
};

static void put_record(void *ctx, uint64_t seq, const void *record, size_t len)
{
    struct record_sink *r = ctx;
    snapshot_file_record(r->w, r->ns, r->arn, seq, record, len);
}

/* Writes a save job; reads only the job (see the top of the file). */
static void write_save(struct journal *journal, const struct snapshot_job *job)
{
    struct snapshot_file_write *w =
        snapshot_file_begin(journal, job->name, job->state.data, job->state.len);
    struct text_buf b = {0};

    for (uint32_t ns = 0; ns < job->namespace_count; ns++) {
        const struct snapshot_job_namespace *jn = &job->namespaces[ns];
        for (uint32_t pos = 0; pos < jn->table_count; pos++) {
            const struct snapshot_job_table *jt = &jn->tables[pos];
            snapshot_file_table(w, ns, pos, jt->record.data, jt->record.len);
            for (size_t i = 0; i < jt->item_count; i++)
                snapshot_file_item(w, ns, pos, i, jt->items[i]);
            for (size_t i = 0; i < jt->history_count; i++) {
                const struct history_entry *e = &jt->history[i];
                snapshot_file_history(w, ns, pos, e->seq, e->ms, e->old_item, e->new_item);
            }
        }
        for (size_t i = 0; i < jn->stream_count; i++) {
            struct record_sink sink = {w, ns, jn->stream_arns[i]};
            b.len = 0;
            stream_copy_encode(jn->streams[i], &b);
            snapshot_file_stream(w, ns, sink.arn, b.data, b.len);
            stream_copy_each_record(jn->streams[i], put_record, &sink);
        }
    }
    text_buf_clear(&b);
    snapshot_file_commit(w);
}

static void *writer_main(void *arg)
{
    struct snapshot_disk *sd = arg;

    pthread_mutex_lock(&sd->mutex);
    for (;;) {
        struct snapshot_job *job = sd->head;
        if (!job) {
            if (sd->stop) break;
            pthread_cond_wait(&sd->work, &sd->mutex);
            continue;
        }
        pthread_mutex_unlock(&sd->mutex);
        if (job->delete)
            snapshot_file_delete(sd->journal, job->name);
        else
            write_save(sd->journal, job);
        pthread_mutex_lock(&sd->mutex);
        sd->head = job->next;
        if (!sd->head) sd->tail = NULL;
        job->next = sd->written_jobs;
        sd->written_jobs = job;
        sd->written = job->ticket;
        pthread_cond_broadcast(&sd->done);
    }
    pthread_mutex_unlock(&sd->mutex);
    return NULL;
}

struct snapshot_disk *snapshot_disk_new(struct journal *j)
{
    struct snapshot_disk *sd = xcalloc(1, sizeof *sd);

    sd->journal = j;
    pthread_mutex_init(&sd->mutex, NULL);
    pthread_cond_init(&sd->work, NULL);
    pthread_cond_init(&sd->done, NULL);
    if (pthread_create(&sd->thread, NULL, writer_main, sd) != 0) {
        /* Not started: saves stay in memory, and say so (no "on_disk"). */
        pthread_cond_destroy(&sd->work);
        pthread_cond_destroy(&sd->done);
        pthread_mutex_destroy(&sd->mutex);
        free(sd);
        return NULL;
    }
    return sd;
}

void snapshot_disk_free(struct snapshot_disk *sd)
{
    assert_lock_exclusive();
    if (!sd) return;
    pthread_mutex_lock(&sd->mutex);
    sd->stop = true;
    pthread_cond_signal(&sd->work);
    pthread_mutex_unlock(&sd->mutex);
    pthread_join(sd->thread, NULL); /* it empties the queue first */
    free_written(sd);
    pthread_cond_destroy(&sd->work);
    pthread_cond_destroy(&sd->done);
    pthread_mutex_destroy(&sd->mutex);
    free(sd);
}
