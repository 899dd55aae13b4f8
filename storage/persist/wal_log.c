/*
 * wal_log.c - the log of acknowledged units: files, records, appending,
 * rotation and replay; see wal_log.h for the format and the promises.
 */
#include "storage/persist/wal_log.h"

#include "storage/base/alloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define MAGIC       "DDBEMLOG"
#define MAGIC_LEN   8
#define NAME_PREFIX "ddbemu-"
#define NAME_SUFFIX ".log"
#define NAME_DIGITS 20
/* The largest batch buffer a flush keeps for the next one. */
#define FLUSH_KEEP_BYTES (1024 * 1024)

/* A file the appender has left: deleted once the writer is past last_seq. */
struct closed_file {
    char *path;
    uint64_t last_seq;
};

struct wal_log {
    char *dir;
    size_t rotate_bytes;
    /* The appender's (one thread at a time, wal_log.h), and under
     * pending_mutex the flusher's too. */
    pthread_mutex_t pending_mutex;
    struct text_buf pending; /* records numbered but not yet written, in order */
    uint64_t next_seq;
    uint64_t appended; /* bytes of records ever added: a ticket is one of these */
    /* The flusher's (one thread at a time: flush_mutex). */
    pthread_mutex_t flush_mutex;
    struct text_buf flushing; /* the batch being written (pending's old buffer) */
    int fd;
    char *path;               /* the current file */
    size_t file_bytes;        /* written to it so far */
    uint64_t written_seq;     /* the last unit written */
    _Atomic uint64_t written; /* bytes of records written (appended's count) */
    /* Shared with wal_log_drop_through. */
    pthread_mutex_t mutex;
    struct closed_file *closed;
    size_t closed_count;
};

/* ------------------------------------------------------------------------ */
/* records                                                                   */
/* ------------------------------------------------------------------------ */

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char) (v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char) (v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The check of a record: over len, seq and the payload (the record minus
 * its first four bytes). */
static uint32_t record_check(const unsigned char *record, size_t payload_len)
{
    return (uint32_t) XXH3_64bits(record + 4, WAL_LOG_RECORD_HEADER - 4 + payload_len);
}

size_t wal_log_record_read(const void *data, size_t avail, uint64_t *seq, const void **payload,
                           size_t *len)
{
    const unsigned char *p = data;
    size_t n;

    if (avail < WAL_LOG_RECORD_HEADER) return 0;
    n = get_u32(p + 4);
    if (n > avail - WAL_LOG_RECORD_HEADER) return 0;
    if (get_u32(p) != record_check(p, n)) return 0;
    *seq = get_u64(p + 8);
    *payload = p + WAL_LOG_RECORD_HEADER;
    *len = n;
    return WAL_LOG_RECORD_HEADER + n;
}

void wal_log_unit_start(struct text_buf *b)
{
    static const char zeros[WAL_LOG_RECORD_HEADER];

    b->len = 0;
    text_buf_add(b, zeros, sizeof zeros);
}

/* ------------------------------------------------------------------------ */
/* files                                                                     */
/* ------------------------------------------------------------------------ */

static int fail_errno(char **why, const char *path, const char *what)
{
    struct text_buf b = {0};

    text_buf_printf(&b, "%s: %s: %s", path, what, strerror(errno));
    *why = text_buf_take(&b, NULL);
    return -1;
}

static char *file_path(const char *dir, uint64_t first_seq)
{
    struct text_buf b = {0};

    text_buf_printf(&b, "%s/" NAME_PREFIX "%0*llu" NAME_SUFFIX, dir, NAME_DIGITS,
                    (unsigned long long) first_seq);
    return text_buf_take(&b, NULL);
}

/* Whether name is a log file's. */
static bool is_log_name(const char *name)
{
    size_t prefix = strlen(NAME_PREFIX), suffix = strlen(NAME_SUFFIX);

    if (strlen(name) != prefix + NAME_DIGITS + suffix) return false;
    if (strncmp(name, NAME_PREFIX, prefix) != 0) return false;
    for (size_t i = 0; i < NAME_DIGITS; i++) {
        if (name[prefix + i] < '0' || name[prefix + i] > '9') return false;
    }
    return strcmp(name + prefix + NAME_DIGITS, NAME_SUFFIX) == 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The paths of dir's log files in log order (the names sort so), owned. */
static int list_files(const char *dir, char ***paths, size_t *count, char **why)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    *paths = NULL;
    *count = 0;
    if (!d) return fail_errno(why, dir, "cannot be read");
    while ((e = readdir(d))) {
        if (!is_log_name(e->d_name)) continue;
        struct text_buf b = {0};
        text_buf_printf(&b, "%s/%s", dir, e->d_name);
        *paths = xrealloc(*paths, sizeof **paths * (*count + 1));
        (*paths)[(*count)++] = text_buf_take(&b, NULL);
    }
    closedir(d);
    if (*count) qsort(*paths, *count, sizeof **paths, compare_names);
    return 0;
}

static void free_paths(char **paths, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(paths[i]);
    free(paths);
}

/* Writes all of data, across short writes. */
static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;

    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += n;
        len -= (size_t) n;
    }
    return 0;
}

/* Creates the file of the units after the last one written and writes its header. */
static int open_next_file(struct wal_log *log, char **why)
{
    unsigned char header[WAL_LOG_FILE_HEADER] = {0};

    log->path = file_path(log->dir, log->written_seq + 1);
    /* O_EXCL: a file of that name would be a log nobody replayed. */
    log->fd = open(log->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (log->fd < 0) return fail_errno(why, log->path, "cannot create the log file");
    memcpy(header, MAGIC, MAGIC_LEN);
    put_u32(header + MAGIC_LEN, WAL_LOG_VERSION);
    if (write_all(log->fd, header, sizeof header) != 0)
        return fail_errno(why, log->path, "cannot write to the log file");
    log->file_bytes = sizeof header;
    return 0;
}

/* Closes the current file, remembering it for deletion once folded, and
 * opens the next one. */
static int rotate(struct wal_log *log, char **why)
{
    struct closed_file c = {log->path, log->written_seq};

    close(log->fd);
    log->fd = -1;
    log->path = NULL;
    pthread_mutex_lock(&log->mutex);
    log->closed = xrealloc(log->closed, sizeof *log->closed * (log->closed_count + 1));
    log->closed[log->closed_count++] = c;
    pthread_mutex_unlock(&log->mutex);
    return open_next_file(log, why);
}

struct wal_log *wal_log_create(const char *dir, uint64_t first_seq, size_t rotate_bytes, char **why)
{
    struct wal_log *log = xcalloc(1, sizeof *log);

    log->dir = xstrdup(dir);
    log->rotate_bytes = rotate_bytes;
    log->next_seq = first_seq;
    log->written_seq = first_seq - 1;
    log->fd = -1;
    pthread_mutex_init(&log->mutex, NULL);
    pthread_mutex_init(&log->pending_mutex, NULL);
    pthread_mutex_init(&log->flush_mutex, NULL);
    if (open_next_file(log, why) != 0) {
        wal_log_close(log, false);
        return NULL;
    }
    return log;
}

int wal_log_add(struct wal_log *log, struct text_buf *b, uint64_t *seq, uint64_t *ticket,
                char **why)
{
    unsigned char *p = (unsigned char *) b->data;
    size_t payload_len = b->len - WAL_LOG_RECORD_HEADER;

    if (payload_len > UINT32_MAX) {
        *why = xstrdup("a unit of changes is larger than the log's 4 GiB limit for one record");
        return -1;
    }
    pthread_mutex_lock(&log->pending_mutex);
    *seq = log->next_seq++;
    put_u32(p + 4, (uint32_t) payload_len);
    put_u64(p + 8, *seq);
    put_u32(p, record_check(p, payload_len));
    text_buf_add(&log->pending, b->data, b->len);
    log->appended += b->len;
    *ticket = log->appended;
    pthread_mutex_unlock(&log->pending_mutex);
    return 0;
}

/*
 * Writes every record added so far, unless a flush already did (the group
 * commit: whoever comes first writes the records of everyone waiting). The
 * batch is taken whole from pending, so it is written in the order the
 * records were numbered, and a new file is begun between batches, never
 * inside one.
 */
int wal_log_flush(struct wal_log *log, uint64_t ticket, char **why)
{
    struct text_buf swap;
    uint64_t end, last_seq;
    int rc = 0;

    if (atomic_load_explicit(&log->written, memory_order_acquire) >= ticket) return 0;
    pthread_mutex_lock(&log->flush_mutex);
    if (atomic_load_explicit(&log->written, memory_order_relaxed) >= ticket) goto out;
    pthread_mutex_lock(&log->pending_mutex);
    swap = log->pending;
    log->pending = log->flushing;
    log->pending.len = 0;
    log->flushing = swap;
    end = log->appended;
    last_seq = log->next_seq - 1;
    pthread_mutex_unlock(&log->pending_mutex);
    if (log->flushing.len) {
        if (log->file_bytes >= log->rotate_bytes && (rc = rotate(log, why)) != 0) goto out;
        if (write_all(log->fd, log->flushing.data, log->flushing.len) != 0) {
            rc = fail_errno(why, log->path, "cannot write to the log file");
            goto out;
        }
        log->file_bytes += log->flushing.len;
        log->written_seq = last_seq;
        log->flushing.len = 0;
        /* A batch grown by one large unit (a restore, a bulk put) is not kept. */
        if (log->flushing.cap > FLUSH_KEEP_BYTES) text_buf_clear(&log->flushing);
    }
    atomic_store_explicit(&log->written, end, memory_order_release);
out:
    pthread_mutex_unlock(&log->flush_mutex);
    return rc;
}

int wal_log_append(struct wal_log *log, struct text_buf *b, uint64_t *seq, char **why)
{
    uint64_t ticket;

    if (wal_log_add(log, b, seq, &ticket, why) != 0) return -1;
    return wal_log_flush(log, ticket, why);
}

void wal_log_drop_through(struct wal_log *log, uint64_t seq)
{
    size_t dropped = 0;

    pthread_mutex_lock(&log->mutex);
    /* Closed in order: the ones to drop are a prefix. An unlink that fails
     * leaves a file whose units the next start skips as committed. */
    while (dropped < log->closed_count && log->closed[dropped].last_seq <= seq) {
        unlink(log->closed[dropped].path);
        free(log->closed[dropped].path);
        dropped++;
    }
    if (dropped) {
        memmove(log->closed, log->closed + dropped,
                sizeof *log->closed * (log->closed_count - dropped));
        log->closed_count -= dropped;
    }
    pthread_mutex_unlock(&log->mutex);
}

void wal_log_close(struct wal_log *log, bool remove)
{
    char *why = NULL;

    if (!log) return;
    /* What was added and not yet written goes first (nothing, when the
     * journal flushed at its close as it does); a failure here has nobody
     * left to tell but the files' next reader, who sees a torn end. */
    if (log->fd >= 0 && wal_log_flush(log, UINT64_MAX, &why) != 0) free(why);
    if (log->fd >= 0) close(log->fd);
    if (remove) wal_log_drop_through(log, UINT64_MAX);
    if (remove && log->path) unlink(log->path);
    for (size_t i = 0; i < log->closed_count; i++)
        free(log->closed[i].path);
    free(log->closed);
    free(log->path);
    free(log->dir);
    text_buf_clear(&log->pending);
    text_buf_clear(&log->flushing);
    pthread_mutex_destroy(&log->mutex);
    pthread_mutex_destroy(&log->pending_mutex);
    pthread_mutex_destroy(&log->flush_mutex);
    free(log);
}

/* ------------------------------------------------------------------------ */
/* replay                                                                    */
/* ------------------------------------------------------------------------ */

static int fail(char **why, const char *path, const char *what)
{
    struct text_buf b = {0};

    text_buf_printf(&b, "%s: %s", path, what);
    *why = text_buf_take(&b, NULL);
    return -1;
}

/* Reads the whole file at path into *data (owned). */
static int read_file(const char *path, unsigned char **data, size_t *len, char **why)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    size_t got = 0;

    *data = NULL;
    *len = 0;
    if (fd < 0) return fail_errno(why, path, "cannot be opened");
    if (fstat(fd, &st) != 0) {
        fail_errno(why, path, "cannot be read");
        close(fd);
        return -1;
    }
    *data = xmalloc((size_t) st.st_size + 1);
    while (got < (size_t) st.st_size) {
        ssize_t n = read(fd, *data + got, (size_t) st.st_size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            fail_errno(why, path, "cannot be read");
            break;
        }
        if (n == 0) {
            fail(why, path, "cannot be read: it shrank while being read");
            break;
        }
        got += (size_t) n;
    }
    close(fd);
    if (got != (size_t) st.st_size) {
        free(*data);
        *data = NULL;
        return -1;
    }
    *len = got;
    return 0;
}

/* The number in a log file's name: the first unit it holds. */
static uint64_t name_seq(const char *path)
{
    const char *name = strrchr(path, '/');

    return strtoull((name ? name + 1 : path) + strlen(NAME_PREFIX), NULL, 10);
}

/* Whether a whole record that continues the log (numbered after expected - 1)
 * starts anywhere in data[from..len): then a bad record before it is damage,
 * not a torn tail. */
static bool whole_record_follows(const unsigned char *data, size_t from, size_t len,
                                 uint64_t expected)
{
    for (size_t at = from; at + WAL_LOG_RECORD_HEADER <= len; at++) {
        uint64_t seq = get_u64(data + at + 8), got_seq;
        const void *payload;
        size_t payload_len;
        /* Only a number the log could have reached by here is worth a check. */
        if (seq < expected || seq - expected > len / WAL_LOG_RECORD_HEADER) continue;
        if (wal_log_record_read(data + at, len - at, &got_seq, &payload, &payload_len)) return true;
    }
    return false;
}

struct replay {
    wal_log_unit_fn *unit;
    void *ctx;
    uint64_t last_seq; /* 0: no unit yet */
};

/* Replays one file; last says it is the newest one, where a torn tail may
 * be. */
static int replay_file(struct replay *r, const char *path, bool last, char **why)
{
    unsigned char *data;
    size_t len, at = WAL_LOG_FILE_HEADER;
    int rc = 0;

    if (read_file(path, &data, &len, why) != 0) return -1;
    if (len < WAL_LOG_FILE_HEADER) {
        /* Created, and the process died before its header was written. */
        free(data);
        return last ? 0 : fail(why, path, "is a truncated log file (damaged?)");
    }
    if (memcmp(data, MAGIC, MAGIC_LEN) != 0) {
        free(data);
        return fail(why, path, "is not a ddbemu log file; it was left untouched");
    }
    if (get_u32(data + MAGIC_LEN) != WAL_LOG_VERSION) {
        struct text_buf b = {0};
        text_buf_printf(&b,
                        "is a log of format version %u; this ddbemu reads version %d; it was "
                        "left untouched",
                        (unsigned) get_u32(data + MAGIC_LEN), WAL_LOG_VERSION);
        free(data);
        rc = fail(why, path, b.data);
        text_buf_clear(&b);
        return rc;
    }
    while (at < len) {
        uint64_t seq;
        const void *payload;
        size_t payload_len,
            n = wal_log_record_read(data + at, len - at, &seq, &payload, &payload_len);
        /* The first file's first unit is the one its name gives; every
         * other follows the one before, across files. */
        uint64_t expected = r->last_seq ? r->last_seq + 1 : name_seq(path);
        if (!n || seq != expected) {
            /* A torn tail: the write() a crash interrupted, never acknowledged. */
            if (last && !whole_record_follows(data, at + 1, len, expected)) break;
            struct text_buf b = {0};
            text_buf_printf(&b,
                            "holds a damaged record at byte %zu (unit %llu expected); the log was "
                            "left as it is",
                            at, (unsigned long long) expected);
            rc = fail(why, path, b.data);
            text_buf_clear(&b);
            break;
        }
        rc = r->unit(r->ctx, seq, payload, payload_len, why);
        if (rc != 0) break;
        r->last_seq = seq;
        at += n;
    }
    free(data);
    return rc;
}

int wal_log_replay(const char *dir, wal_log_unit_fn *unit, wal_log_file_fn *file_done, void *ctx,
                   uint64_t *last_seq, char **why)
{
    struct replay r = {unit, ctx, 0};
    char **paths;
    size_t count;
    int rc = 0;

    *last_seq = 0;
    if (list_files(dir, &paths, &count, why) != 0) return -1;
    for (size_t i = 0; rc == 0 && i < count; i++) {
        rc = replay_file(&r, paths[i], i + 1 == count, why);
        if (rc == 0) rc = file_done(ctx, why);
    }
    free_paths(paths, count);
    *last_seq = r.last_seq;
    return rc;
}

int wal_log_remove_all(const char *dir, char **why)
{
    char **paths;
    size_t count;
    int rc = 0;

    if (list_files(dir, &paths, &count, why) != 0) return -1;
    for (size_t i = 0; rc == 0 && i < count; i++) {
        if (unlink(paths[i]) != 0) rc = fail_errno(why, paths[i], "cannot be removed");
    }
    free_paths(paths, count);
    return rc;
}
