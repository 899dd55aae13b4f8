/*
 * engine/db_persist_bulk.c - bulk put items operations on disk: what a bulk
 * operation's record holds, and how the operations come back at start.
 *
 * An operation's whole description is one record (the bulk_operations table
 * of its namespace's file, schema version 5), written again whenever it
 * changes: when it starts, after every batch of items, as its input is read,
 * when it is cancelled and when it ends. Its items reach the file through
 * the write path like every write. At start the records are loaded in start
 * order; an operation that was still running when the previous process ended
 * without closing (kill -9, a crash) has no worker any more, so it is ended
 * there and then: CANCELLED when its cancellation had been asked for, else
 * FAILED (the code and text are ours; docs/differences.md).
 *
 * Every persist_* function is a no-op when the engine is in memory, and is
 * called with the engine lock held exclusively.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/jobs/bulk_record.h"
#include "storage/model/codec.h"
#include "storage/persist/journal.h"

#include <stdlib.h>
#include <string.h>

/* The fields of a bulk operation's record (codec.h: new fields take new tags). */
enum bulk_tag {
    KT_TABLE = 1,    /* name, ARN, id */
    KT_TOKEN = 2,    /* ClientToken */
    KT_INPUT = 3,    /* bucket, owner, prefix, format, compression */
    KT_OUTPUT = 4,   /* count, types, bucket, owner, prefix, SSE algorithm, KMS key */
    KT_MAX_WRU = 5,  /* MaxWriteRequestUnits, when given */
    KT_TIER = 6,     /* PerformanceTier */
    KT_STATE = 7,    /* status, start, end */
    KT_COUNTS = 8,   /* processed, failed, condition failed, processed bytes */
    KT_TOTAL = 9,    /* total bytes, once known */
    KT_USAGE = 10,   /* table bytes, count, then name, global, vector, bytes per index */
    KT_FAILURE = 11, /* code, message */
};

void persist_bulk(struct db *db, const char *namespace_id, const struct bulk_desc *d)
{
    assert_lock_exclusive();
    struct text_buf b = {0};
    size_t m;

    if (!db->journal) return;
    m = codec_field_begin(&b, KT_TABLE);
    codec_put_str(&b, d->table_name);
    codec_put_str(&b, d->table_arn);
    codec_put_str(&b, d->table_id);
    codec_field_end(&b, m);
    if (d->client_token) codec_put_str_field(&b, KT_TOKEN, d->client_token);
    m = codec_field_begin(&b, KT_INPUT);
    codec_put_str(&b, d->in_bucket);
    codec_put_str(&b, d->in_bucket_owner);
    codec_put_str(&b, d->in_prefix);
    codec_put_str(&b, d->in_format);
    codec_put_str(&b, d->in_compression);
    codec_field_end(&b, m);
    m = codec_field_begin(&b, KT_OUTPUT);
    codec_put_uvar(&b, d->out_type_count);
    for (size_t i = 0; i < d->out_type_count; i++)
        codec_put_str(&b, d->out_types[i]);
    codec_put_str(&b, d->out_bucket);
    codec_put_str(&b, d->out_bucket_owner);
    codec_put_str(&b, d->out_prefix);
    codec_put_str(&b, d->out_sse_algorithm);
    codec_put_str(&b, d->out_sse_kms_key_id);
    codec_field_end(&b, m);
    if (d->has_max_wru) codec_put_ivar_field(&b, KT_MAX_WRU, d->max_wru);
    codec_put_str_field(&b, KT_TIER, d->performance_tier);
    m = codec_field_begin(&b, KT_STATE);
    codec_put_uvar(&b, (uint64_t) d->status);
    codec_put_ivar(&b, d->start_ms);
    codec_put_ivar(&b, d->end_ms);
    codec_field_end(&b, m);
    m = codec_field_begin(&b, KT_COUNTS);
    codec_put_ivar(&b, d->processed_items);
    codec_put_ivar(&b, d->failed_items);
    codec_put_ivar(&b, d->condition_failed_items);
    codec_put_ivar(&b, d->processed_bytes);
    codec_field_end(&b, m);
    if (d->has_total_bytes) codec_put_ivar_field(&b, KT_TOTAL, d->total_bytes);
    m = codec_field_begin(&b, KT_USAGE);
    codec_put_ivar(&b, d->table_bytes);
    codec_put_uvar(&b, d->index_count);
    for (size_t i = 0; i < d->index_count; i++) {
        codec_put_str(&b, d->indexes[i].name);
        codec_put_bool(&b, d->indexes[i].global);
        codec_put_bool(&b, d->indexes[i].vector);
        codec_put_ivar(&b, d->indexes[i].bytes);
    }
    codec_field_end(&b, m);
    if (d->failure_code) {
        m = codec_field_begin(&b, KT_FAILURE);
        codec_put_str(&b, d->failure_code);
        codec_put_str(&b, d->failure_message);
        codec_field_end(&b, m);
    }
    journal_put_bulk(journal_file_for(db->journal, namespace_id), d->arn, b.data, b.len);
    text_buf_clear(&b);
}

/* Replaces *slot with a string read from in. */
static void take_str(struct codec_in *in, char **slot)
{
    free(*slot);
    *slot = codec_get_str(in);
}

static void decode_output(struct codec_in *f, struct bulk_desc *d)
{
    uint64_t n = codec_get_uvar(f);

    if (n > BULK_MAX_OUTPUT_TYPES) {
        f->bad = true;
        return;
    }
    for (size_t i = 0; i < d->out_type_count; i++)
        free(d->out_types[i]);
    d->out_type_count = 0;
    for (uint64_t i = 0; i < n && !f->bad; i++)
        d->out_types[d->out_type_count++] = codec_get_str(f);
    take_str(f, &d->out_bucket);
    take_str(f, &d->out_bucket_owner);
    take_str(f, &d->out_prefix);
    take_str(f, &d->out_sse_algorithm);
    take_str(f, &d->out_sse_kms_key_id);
}

static void decode_usage(struct codec_in *f, struct bulk_desc *d)
{
    uint64_t n;

    d->table_bytes = codec_get_ivar(f);
    n = codec_get_uvar(f);
    /* Each index takes at least four bytes: a count beyond that is damage. */
    if (f->bad || n > (uint64_t) (f->end - f->p) / 4) {
        f->bad = true;
        return;
    }
    for (size_t i = 0; i < d->index_count; i++)
        free(d->indexes[i].name);
    free(d->indexes);
    d->indexes = xcalloc(n ? n : 1, sizeof *d->indexes);
    d->index_count = 0;
    for (uint64_t i = 0; i < n && !f->bad; i++) {
        struct bulk_index_usage *u = &d->indexes[d->index_count++];
        u->name = codec_get_str(f);
        u->global = codec_get_bool(f);
        u->vector = codec_get_bool(f);
        u->bytes = codec_get_ivar(f);
    }
}

/* Decodes a bulk operation's record; false when it is not one. */
static bool decode_bulk(const char *arn, const void *state, size_t len, struct bulk_desc *d)
{
    struct codec_in in, f;
    uint64_t tag, status;

    memset(d, 0, sizeof *d);
    d->arn = xstrdup(arn);
    codec_in_init(&in, state, len);
    while (codec_next_field(&in, &tag, &f)) {
        switch ((enum bulk_tag) tag) {
        case KT_TABLE:
            take_str(&f, &d->table_name);
            take_str(&f, &d->table_arn);
            take_str(&f, &d->table_id);
            break;
        case KT_TOKEN: take_str(&f, &d->client_token); break;
        case KT_INPUT:
            take_str(&f, &d->in_bucket);
            take_str(&f, &d->in_bucket_owner);
            take_str(&f, &d->in_prefix);
            take_str(&f, &d->in_format);
            take_str(&f, &d->in_compression);
            break;
        case KT_OUTPUT: decode_output(&f, d); break;
        case KT_MAX_WRU:
            d->has_max_wru = true;
            d->max_wru = codec_get_ivar(&f);
            break;
        case KT_TIER: take_str(&f, &d->performance_tier); break;
        case KT_STATE:
            status = codec_get_uvar(&f);
            if (status > BULK_CANCELLED) f.bad = true;
            d->status = (enum bulk_status) status;
            d->start_ms = codec_get_ivar(&f);
            d->end_ms = codec_get_ivar(&f);
            break;
        case KT_COUNTS:
            d->processed_items = codec_get_ivar(&f);
            d->failed_items = codec_get_ivar(&f);
            d->condition_failed_items = codec_get_ivar(&f);
            d->processed_bytes = codec_get_ivar(&f);
            break;
        case KT_TOTAL:
            d->has_total_bytes = true;
            d->total_bytes = codec_get_ivar(&f);
            break;
        case KT_USAGE: decode_usage(&f, d); break;
        case KT_FAILURE:
            take_str(&f, &d->failure_code);
            take_str(&f, &d->failure_message);
            break;
        default: break; /* written by a newer ddbemu */
        }
        if (f.bad) in.bad = true;
    }
    return codec_ok(&in) && d->table_name && d->table_arn && d->in_bucket && d->in_format;
}

struct bulk_loading {
    struct db *db;
    const char *namespace_id;
};

static bool load_bulk(void *ctx, const char *arn, const void *state, size_t len)
{
    struct bulk_loading *l = ctx;
    struct bulk_jobs *jobs = &l->db->bulk;
    struct bulk_job *job;
    struct bulk_desc d;

    if (!decode_bulk(arn, state, len, &d)) {
        bulk_desc_clear(&d);
        return false;
    }
    jobs->jobs = xrealloc(jobs->jobs, sizeof *jobs->jobs * (jobs->count + 1));
    job = &jobs->jobs[jobs->count++];
    memset(job, 0, sizeof *job);
    job->namespace_id = xstrdup(l->namespace_id);
    job->desc = d;
    if (d.status == BULK_CANCELLING) {
        /* Its cancellation had been asked for: it ends as a cancelled one. */
        job->desc.status = BULK_CANCELLED;
        job->desc.end_ms = db_now_ms(l->db);
        persist_bulk(l->db, l->namespace_id, &job->desc);
    } else if (!bulk_status_is_final(d.status)) {
        job->desc.status = BULK_FAILED;
        job->desc.end_ms = db_now_ms(l->db);
        free(job->desc.failure_code);
        free(job->desc.failure_message);
        job->desc.failure_code = xstrdup(BULK_INTERRUPTED_CODE);
        job->desc.failure_message = xstrdup(BULK_INTERRUPTED_MESSAGE);
        persist_bulk(l->db, l->namespace_id, &job->desc);
    }
    return true;
}

int persist_load_bulk(struct db *db, struct journal_file *f, const char *namespace_id, char **why)
{
    assert_lock_exclusive();
    struct bulk_loading l = {db, namespace_id};

    return journal_load_bulk(f, load_bulk, &l, why);
}

/* Operations are listed in start order; files hold them in ARN order. */
static int compare_jobs(const void *a, const void *b)
{
    const struct bulk_job *x = a, *y = b;
    if (x->desc.start_ms != y->desc.start_ms) return x->desc.start_ms < y->desc.start_ms ? -1 : 1;
    return strcmp(x->desc.arn, y->desc.arn);
}

void persist_sort_bulk(struct db *db)
{
    assert_lock_exclusive();
    if (db->bulk.count) qsort(db->bulk.jobs, db->bulk.count, sizeof *db->bulk.jobs, compare_jobs);
}
