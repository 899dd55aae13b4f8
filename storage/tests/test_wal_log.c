/*
 * test_wal_log.c - the log of acknowledged units (persist/wal_log.h): units
 * come back whole and in order across rotated files; folded files are
 * deleted; a torn record at the end of the last file is ignored, while a
 * damaged record anywhere else, a gap in the numbers, another format or
 * another program's file refuse the directory.
 *
 * test_persist.c replays a log through a whole engine; conformance's
 * test_emulator_persistence.py does it through the real server (kill -9,
 * garbage appended, a byte flipped).
 */
#include "storage/base/text.h"
#include "storage/persist/wal_log.h"
#include "storage/tests/check.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *temp_dir(void)
{
    char templ[] = "/tmp/ddbemu-test-wal-log-XXXXXX";
    char *d = mkdtemp(templ);
    return d ? strdup(d) : NULL;
}

static void remove_dir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* The log files of dir, sorted, as full paths (owned); returns the count. */
static size_t log_files(const char *dir, char paths[][512], size_t max)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;

    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "ddbemu-", 7) != 0 || n == max) continue;
        snprintf(paths[n++], 512, "%s/%s", dir, e->d_name);
    }
    if (d) closedir(d);
    qsort(paths, n, 512, (int (*)(const void *, const void *)) strcmp);
    return n;
}

/* Unit i's payload: "unit <i>" and i bytes of 'x', so that sizes vary. */
static void payload_of(uint64_t i, struct text_buf *out)
{
    out->len = 0;
    text_buf_printf(out, "unit %llu ", (unsigned long long) i);
    for (uint64_t k = 0; k < i % 97; k++)
        text_buf_add(out, "x", 1);
}

/* Appends units first..last to a new log in dir; rotate: the file size. */
static void write_units(const char *dir, uint64_t first, uint64_t last, size_t rotate)
{
    char *why = NULL;
    struct wal_log *log = wal_log_create(dir, first, rotate, &why);
    struct text_buf b = {0}, p = {0};

    CHECK(log != NULL);
    if (!log) {
        fprintf(stderr, "%s\n", why);
        free(why);
        return;
    }
    for (uint64_t i = first; i <= last; i++) {
        uint64_t seq = 0;
        wal_log_unit_start(&b);
        payload_of(i, &p);
        text_buf_add(&b, p.data, p.len);
        CHECK(wal_log_append(log, &b, &seq, &why) == 0);
        CHECK_INT_EQ(seq, i);
    }
    wal_log_close(log, false);
    text_buf_clear(&b);
    text_buf_clear(&p);
}

/* What a replay saw. */
struct seen {
    uint64_t count, next; /* next: the unit expected */
    unsigned files;
    bool wrong;
};

static int on_unit(void *ctx, uint64_t seq, const void *payload, size_t len, char **why)
{
    struct seen *s = ctx;
    struct text_buf want = {0};

    (void) why;
    payload_of(seq, &want);
    if ((s->next && seq != s->next) || len != want.len || memcmp(payload, want.data, len) != 0)
        s->wrong = true;
    s->next = seq + 1;
    s->count++;
    text_buf_clear(&want);
    return 0;
}

static int on_file(void *ctx, char **why)
{
    (void) why;
    ((struct seen *) ctx)->files++;
    return 0;
}

/* Replays dir; returns its result, with *why kept in msg (or ""). */
static int replay(const char *dir, struct seen *s, uint64_t *last, char *msg, size_t msg_len)
{
    char *why = NULL;
    int rc;

    memset(s, 0, sizeof *s);
    rc = wal_log_replay(dir, on_unit, on_file, s, last, &why);
    snprintf(msg, msg_len, "%s", why ? why : "");
    free(why);
    return rc;
}

static void flip_byte(const char *path, long offset_from_end)
{
    FILE *f = fopen(path, "r+b");
    int c;

    CHECK(f != NULL);
    if (!f) return;
    fseek(f, -offset_from_end, SEEK_END);
    c = fgetc(f);
    fseek(f, -offset_from_end, SEEK_END);
    fputc(c ^ 0x40, f);
    fclose(f);
}

static void append_bytes(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "ab");

    CHECK(f != NULL);
    if (!f) return;
    fwrite(data, 1, len, f);
    fclose(f);
}

static void test_units_come_back_in_order_across_files(void)
{
    char *dir = temp_dir(), files[64][512], msg[512];
    struct seen s;
    uint64_t last;

    write_units(dir, 7, 206, 1024);
    CHECK(log_files(dir, files, 64) > 3);
    CHECK_INT_EQ(replay(dir, &s, &last, msg, sizeof msg), 0);
    CHECK_STR_EQ(msg, "");
    CHECK_INT_EQ(s.count, 200);
    CHECK(!s.wrong);
    CHECK_INT_EQ(last, 206);
    CHECK_INT_EQ(s.files, log_files(dir, files, 64));
    CHECK(wal_log_remove_all(dir, &(char *){NULL}) == 0);
    CHECK_INT_EQ(log_files(dir, files, 64), 0);
    CHECK_INT_EQ(replay(dir, &s, &last, msg, sizeof msg), 0);
    CHECK_INT_EQ(last, 0);
    remove_dir(dir);
    free(dir);
}

static void test_folded_files_are_deleted(void)
{
    char *dir = temp_dir(), *why = NULL, files[64][512], msg[512];
    struct wal_log *log = wal_log_create(dir, 1, 256, &why);
    struct text_buf b = {0}, p = {0};
    struct seen s;
    uint64_t seq = 0, last;
    size_t before;

    CHECK(log != NULL);
    if (!log) return;
    for (uint64_t i = 1; i <= 60; i++) {
        wal_log_unit_start(&b);
        payload_of(i, &p);
        text_buf_add(&b, p.data, p.len);
        CHECK(wal_log_append(log, &b, &seq, &why) == 0);
    }
    before = log_files(dir, files, 64);
    CHECK(before > 3);
    /* Only whole files at or below the folded unit go; the rest replays. */
    wal_log_drop_through(log, 30);
    CHECK(log_files(dir, files, 64) < before);
    CHECK(log_files(dir, files, 64) > 1);
    CHECK_INT_EQ(replay(dir, &s, &last, msg, sizeof msg), 0);
    CHECK(!s.wrong);
    CHECK_INT_EQ(last, 60);
    CHECK(s.count >= 30 && s.count < 60);
    /* Closing with everything folded removes the log. */
    wal_log_close(log, true);
    CHECK_INT_EQ(log_files(dir, files, 64), 0);
    text_buf_clear(&b);
    text_buf_clear(&p);
    remove_dir(dir);
    free(dir);
}

static void test_a_torn_tail_is_ignored(void)
{
    char *dir = temp_dir(), files[64][512], msg[512];
    struct seen s;
    uint64_t last;
    size_t n;

    write_units(dir, 1, 40, 512);
    n = log_files(dir, files, 64);
    /* The start of a record: its header says more bytes than follow. */
    {
        static const unsigned char torn[18] = {1, 2, 3, 4, 0x50, 0, 0, 0,   0x29,
                                               0, 0, 0, 0, 0,    0, 0, 'a', 'b'};
        append_bytes(files[n - 1], torn, sizeof torn);
    }
    CHECK_INT_EQ(replay(dir, &s, &last, msg, sizeof msg), 0);
    CHECK_INT_EQ(last, 40);
    CHECK(!s.wrong);
    /* Garbage, or a whole record whose check fails, at the very end too. */
    flip_byte(files[n - 1], 1);
    CHECK_INT_EQ(replay(dir, &s, &last, msg, sizeof msg), 0);
    CHECK_INT_EQ(last, 40);
    remove_dir(dir);
    free(dir);

    /* A new file whose header the crash cut short. */
    dir = temp_dir();
    write_units(dir, 1, 5, 1 << 20);
    {
        char path[600];
        snprintf(path, sizeof path, "%s/ddbemu-%020llu.log", dir, 6ULL);
        append_bytes(path, "DDBE", 4);
    }
    CHECK_INT_EQ(replay(dir, &s, &last, msg, sizeof msg), 0);
    CHECK_INT_EQ(last, 5);
    remove_dir(dir);
    free(dir);
}

static void test_damage_before_a_whole_record_is_refused(void)
{
    char *dir = temp_dir(), files[64][512], msg[512];
    struct seen s;
    uint64_t last;
    size_t n;

    write_units(dir, 1, 40, 1 << 20);
    n = log_files(dir, files, 64);
    CHECK_INT_EQ(n, 1);
    /* A byte inside an earlier record of the last file: units follow it. */
    flip_byte(files[0], 300);
    CHECK_INT_EQ(replay(dir, &s, &last, msg, sizeof msg), -1);
    CHECK(strstr(msg, "damaged record") != NULL);
    CHECK(strstr(msg, files[0]) != NULL);
    remove_dir(dir);
    free(dir);

    /* The very first record, in a log whose numbers are far from zero: the
     * file's name says which unit it starts with. */
    dir = temp_dir();
    write_units(dir, 5000000, 5000040, 1 << 20);
    n = log_files(dir, files, 64);
    {
        FILE *f = fopen(files[0], "rb");
        long size = 0;
        if (f) {
            fseek(f, 0, SEEK_END);
            size = ftell(f);
            fclose(f);
        }
        flip_byte(files[0], size - WAL_LOG_FILE_HEADER - WAL_LOG_RECORD_HEADER - 2);
    }
    CHECK_INT_EQ(replay(dir, &s, &last, msg, sizeof msg), -1);
    CHECK(strstr(msg, "unit 5000000 expected") != NULL);
    remove_dir(dir);
    free(dir);
}

static void test_damage_in_an_earlier_file_is_refused(void)
{
    char *dir = temp_dir(), files[64][512], msg[512];
    struct seen s;
    uint64_t last;

    write_units(dir, 1, 40, 512);
    CHECK(log_files(dir, files, 64) > 2);
    /* Even its last record: only the newest file can end torn. */
    flip_byte(files[0], 1);
    CHECK_INT_EQ(replay(dir, &s, &last, msg, sizeof msg), -1);
    CHECK(strstr(msg, files[0]) != NULL);
    remove_dir(dir);
    free(dir);
}

static void test_a_gap_in_the_numbers_is_refused(void)
{
    char *dir = temp_dir(), msg[512];
    struct seen s;
    uint64_t last;

    /* Units 1-10, then a file of 20-30: a file between them is missing. */
    write_units(dir, 1, 10, 1 << 20);
    write_units(dir, 20, 30, 1 << 20);
    CHECK_INT_EQ(replay(dir, &s, &last, msg, sizeof msg), -1);
    CHECK(strstr(msg, "damaged record") != NULL);
    remove_dir(dir);
    free(dir);
}

static void test_another_format_or_program_is_refused(void)
{
    char *dir = temp_dir(), files[64][512], msg[512];
    struct seen s;
    uint64_t last;
    FILE *f;

    write_units(dir, 1, 3, 1 << 20);
    log_files(dir, files, 64);
    f = fopen(files[0], "r+b");
    CHECK(f != NULL);
    if (f) {
        fseek(f, 8, SEEK_SET);
        fputc(7, f); /* the version */
        fclose(f);
    }
    CHECK_INT_EQ(replay(dir, &s, &last, msg, sizeof msg), -1);
    CHECK(strstr(msg, "format version 7") != NULL);
    f = fopen(files[0], "r+b");
    if (f) {
        fputc('X', f); /* the magic */
        fclose(f);
    }
    CHECK_INT_EQ(replay(dir, &s, &last, msg, sizeof msg), -1);
    CHECK(strstr(msg, "not a ddbemu log file") != NULL);
    remove_dir(dir);
    free(dir);
}

static void test_a_record_is_read_only_whole_and_checked(void)
{
    struct text_buf b = {0};
    char *dir = temp_dir(), *why = NULL;
    struct wal_log *log = wal_log_create(dir, 42, 1 << 20, &why);
    uint64_t seq = 0;
    const void *payload;
    size_t len;

    CHECK(log != NULL);
    if (!log) return;
    wal_log_unit_start(&b);
    text_buf_add(&b, "hello", 5);
    CHECK(wal_log_append(log, &b, &seq, &why) == 0);
    CHECK_INT_EQ(wal_log_record_read(b.data, b.len, &seq, &payload, &len), b.len);
    CHECK_INT_EQ(seq, 42);
    CHECK(len == 5 && memcmp(payload, "hello", 5) == 0);
    CHECK_INT_EQ(wal_log_record_read(b.data, b.len - 1, &seq, &payload, &len), 0);
    CHECK_INT_EQ(wal_log_record_read(b.data, 3, &seq, &payload, &len), 0);
    b.data[WAL_LOG_RECORD_HEADER] ^= 1;
    CHECK_INT_EQ(wal_log_record_read(b.data, b.len, &seq, &payload, &len), 0);
    wal_log_close(log, true);
    text_buf_clear(&b);
    remove_dir(dir);
    free(dir);
}

/* Bytes of the log files of dir. */
static long log_bytes(const char *dir)
{
    char files[64][512];
    size_t n = log_files(dir, files, 64);
    long total = 0;

    for (size_t i = 0; i < n; i++) {
        FILE *f = fopen(files[i], "rb");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        total += ftell(f);
        fclose(f);
    }
    return total;
}

/* Added records wait until a flush; one flush writes every record added
 * before it (other threads' too), and a flush of a written ticket writes
 * nothing. */
static void test_a_flush_writes_every_record_added_before_it(void)
{
    char *dir = temp_dir(), *why = NULL, msg[512];
    struct wal_log *log = wal_log_create(dir, 1, WAL_LOG_ROTATE_BYTES, &why);
    struct text_buf b = {0}, p = {0};
    uint64_t seq = 0, tickets[3], last;
    long empty, after;
    struct seen s;

    CHECK(log != NULL);
    if (!log) return;
    empty = log_bytes(dir);
    for (uint64_t i = 1; i <= 3; i++) {
        wal_log_unit_start(&b);
        payload_of(i, &p);
        text_buf_add(&b, p.data, p.len);
        CHECK(wal_log_add(log, &b, &seq, &tickets[i - 1], &why) == 0);
        CHECK_INT_EQ(seq, i);
    }
    CHECK(tickets[0] < tickets[1] && tickets[1] < tickets[2]);
    CHECK_INT_EQ(log_bytes(dir), empty); /* nothing written yet */
    CHECK(wal_log_flush(log, tickets[0], &why) == 0);
    after = log_bytes(dir);
    CHECK(after > empty);
    CHECK_INT_EQ(replay(dir, &s, &last, msg, sizeof msg), 0);
    CHECK_INT_EQ(s.count, 3); /* the first's flush wrote all three */
    CHECK(!s.wrong);
    CHECK(wal_log_flush(log, tickets[2], &why) == 0);
    CHECK_INT_EQ(log_bytes(dir), after);
    wal_log_close(log, false);
    text_buf_clear(&b);
    text_buf_clear(&p);
    remove_dir(dir);
    free(dir);
}

/* Threads add (in turn, as the journal's append mutex makes them) and
 * flush (at once): every unit comes back once, in number order, across
 * files begun between batches. */
struct adder {
    struct wal_log *log;
    pthread_mutex_t *turn;
    uint64_t *next; /* the number the next unit gets */
    int units;
    bool ok;
};

static void *add_and_flush(void *arg)
{
    struct adder *a = arg;
    struct text_buf b = {0}, p = {0};
    char *why = NULL;

    a->ok = true;
    for (int i = 0; i < a->units; i++) {
        uint64_t seq, ticket;
        pthread_mutex_lock(a->turn);
        wal_log_unit_start(&b);
        payload_of(*a->next, &p);
        text_buf_add(&b, p.data, p.len);
        if (wal_log_add(a->log, &b, &seq, &ticket, &why) != 0 || seq != (*a->next)++) a->ok = false;
        pthread_mutex_unlock(a->turn);
        if (wal_log_flush(a->log, ticket, &why) != 0) a->ok = false;
    }
    text_buf_clear(&b);
    text_buf_clear(&p);
    return NULL;
}

static void test_threads_adding_and_flushing_keep_the_order(void)
{
    enum { THREADS = 4, UNITS = 400 };
    char *dir = temp_dir(), *why = NULL, msg[512], files[256][512];
    struct wal_log *log = wal_log_create(dir, 5, 2048, &why);
    pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;
    struct adder adders[THREADS];
    pthread_t threads[THREADS];
    uint64_t next = 5, last;
    struct seen s;

    CHECK(log != NULL);
    if (!log) return;
    for (int t = 0; t < THREADS; t++) {
        adders[t] = (struct adder){log, &turn, &next, UNITS, false};
        pthread_create(&threads[t], NULL, add_and_flush, &adders[t]);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        CHECK(adders[t].ok);
    }
    wal_log_close(log, false);
    CHECK(log_files(dir, files, 256) > 3);
    CHECK_INT_EQ(replay(dir, &s, &last, msg, sizeof msg), 0);
    CHECK_STR_EQ(msg, "");
    CHECK_INT_EQ(s.count, THREADS * UNITS);
    CHECK(!s.wrong);
    CHECK_INT_EQ(last, 4 + THREADS * UNITS);
    remove_dir(dir);
    free(dir);
}

int main(void)
{
    RUN(test_units_come_back_in_order_across_files);
    RUN(test_folded_files_are_deleted);
    RUN(test_a_flush_writes_every_record_added_before_it);
    RUN(test_threads_adding_and_flushing_keep_the_order);
    RUN(test_a_torn_tail_is_ignored);
    RUN(test_damage_before_a_whole_record_is_refused);
    RUN(test_damage_in_an_earlier_file_is_refused);
    RUN(test_a_gap_in_the_numbers_is_refused);
    RUN(test_another_format_or_program_is_refused);
    RUN(test_a_record_is_read_only_whole_and_checked);
    return check_report();
}
