/*
 * table_writers.c - writers of different tables do not wait for each other
 * (docs/architecture.md, "Locking"; bench/README.md, "Writers of different
 * tables"): PutItem through the engine's db_* API, no HTTP.
 *
 *   table_writers [--slice 1] [--rounds 5] [--keys 100000] [--smoke]
 *
 * One engine, two tables in one namespace. Round by round it measures four
 * slices of `slice` seconds each: one thread putting items into table 0;
 * two threads, each putting into its own table; and a CPU-bound reference -
 * one, then two threads each spinning on private work (an xorshift loop
 * touching nothing shared) - so that the writers' ratio can be read against
 * what this machine gives two threads at all (2 cores, shared with other
 * work, do not give 2.0). Items are about 160 bytes (DynamoDB's size), keys
 * cycle through `keys` per table. Prints, the median round of each: items/s
 * for 1 and 2 writer threads and their ratio, the reference's ratio, and the
 * writers' ratio over the reference's. --smoke runs one short round of each
 * and checks only that every put succeeded. Nothing here asserts a speed.
 */
#include "storage/base/alloc.h"
#include "storage/engine/db.h"
#include "storage/engine/db_items.h"
#include "storage/engine/db_tables.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ROUNDS 32

static const struct db_scope scope = {"bench", "us-east-1"};
static const char *const tables[2] = {"writers-0", "writers-1"};

struct options {
    double slice_s;
    unsigned rounds;
    unsigned keys;
    bool smoke;
};

struct leg {
    struct db *db; /* NULL: the CPU-bound reference */
    const struct options *opt;
    /* Read by every worker at every step: alone on its cache line, so that
     * no worker's counting makes the others miss on it. */
    alignas(64) atomic_bool stop;
    alignas(64) atomic_bool failed;
};

/* Each worker counts in its own cache line: a shared counter would make the
 * two writers pass one line back and forth at every put, which the engine
 * does not do and the measurement must not add. */
struct worker {
    alignas(64) struct leg *leg;
    unsigned index;     /* its table, and its seed */
    atomic_ullong done; /* puts, or reference iterations in thousands */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void set_attr(struct value *m, const char *name, const char *text, bool number)
{
    struct value v;

    if (number)
        value_init_number_text(&v, text, strlen(text));
    else
        value_init_string(&v, text, strlen(text));
    value_map_set(m, name, strlen(name), &v);
}

/* An item of about 160 bytes (by DynamoDB's size rules) whose key is k. */
static struct item *make_item(unsigned index, uint64_t k)
{
    struct value m;
    char buf[96];

    value_init_map(&m);
    snprintf(buf, sizeof buf, "user-%u-%08llu", index, (unsigned long long) k);
    set_attr(&m, "pk", buf, false);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long) (k * 7919 % 100000));
    set_attr(&m, "score", buf, true);
    set_attr(&m, "name", "Ada Lovelace of the Analytical Engine", false);
    set_attr(&m, "email", "ada@example.com", false);
    set_attr(&m, "city", "London", false);
    set_attr(&m, "note", "a note of some length to bring the item near 160 bytes", false);
    return item_new(&m);
}

static void *writer_main(void *arg)
{
    struct worker *w = arg;
    struct leg *leg = w->leg;
    uint64_t k = (uint64_t) w->index * 7;

    while (!atomic_load_explicit(&leg->stop, memory_order_relaxed)) {
        struct write_op op = {.kind = WRITE_PUT, .table_name = tables[w->index]};
        struct write_result res;
        struct ddb_error err = {0};

        op.put_item = make_item(w->index, k++ % leg->opt->keys);
        if (db_write_item(leg->db, &scope, &op, RETURN_CAPACITY_NONE, &res, &err) != 0) {
            fprintf(stderr, "table_writers: PutItem failed: %s\n", err.message);
            atomic_store(&leg->failed, true);
            ddb_error_clear(&err);
        } else {
            write_result_clear(&res);
        }
        item_unref(op.put_item);
        atomic_fetch_add_explicit(&w->done, 1, memory_order_relaxed);
    }
    return NULL;
}

/* The reference: private work only, counted in thousands of steps. */
static void *spinner_main(void *arg)
{
    struct worker *w = arg;
    struct leg *leg = w->leg;
    uint64_t x = 88172645463325252ULL + w->index, sink = 0;

    while (!atomic_load_explicit(&leg->stop, memory_order_relaxed)) {
        for (int i = 0; i < 1000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            sink += x;
        }
        atomic_fetch_add_explicit(&w->done, 1, memory_order_relaxed);
    }
    if (sink == 42) fputc(' ', stderr); /* keeps the loop */
    return NULL;
}

/* One slice of threads workers (writers when db is given): per second. */
static double run_slice(struct db *db, const struct options *opt, unsigned threads, bool *failed)
{
    struct leg leg = {.db = db, .opt = opt};
    struct worker workers[2];
    pthread_t tids[2];
    double start, elapsed;
    unsigned long long done = 0;

    atomic_init(&leg.stop, false);
    atomic_init(&leg.failed, false);
    start = now_s();
    for (unsigned i = 0; i < threads; i++) {
        workers[i].leg = &leg;
        workers[i].index = i;
        atomic_init(&workers[i].done, 0);
        pthread_create(&tids[i], NULL, db ? writer_main : spinner_main, &workers[i]);
    }
    while (now_s() - start < opt->slice_s) {
        struct timespec nap = {0, 10 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    atomic_store(&leg.stop, true);
    for (unsigned i = 0; i < threads; i++)
        pthread_join(tids[i], NULL);
    elapsed = now_s() - start;
    if (atomic_load(&leg.failed)) *failed = true;
    for (unsigned i = 0; i < threads; i++)
        done += atomic_load(&workers[i].done);
    return (double) done / elapsed;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
    qsort(v, n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void create_table(struct db *db, const char *name)
{
    struct table_def def;
    struct table_desc desc;
    struct ddb_error err = {0};

    memset(&def, 0, sizeof def);
    def.name = xstrdup(name);
    def.billing = BILLING_PAY_PER_REQUEST;
    def.attr_defs = xcalloc(1, sizeof *def.attr_defs);
    def.attr_defs[0] = (struct attr_def){xstrdup("pk"), VALUE_S};
    def.attr_def_count = 1;
    def.key.hash_names[def.key.hash_count++] = xstrdup("pk");
    if (db_create_table(db, &scope, &def, &desc, &err) != 0) {
        fprintf(stderr, "table_writers: CreateTable: %s\n", err.message);
        exit(1);
    }
    table_desc_clear(&desc);
}

static void usage(void)
{
    fprintf(stderr, "usage: table_writers [--slice S] [--rounds N] [--keys K] [--smoke]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    struct options opt = {.slice_s = 1.0, .rounds = 5, .keys = 100000};
    double one[MAX_ROUNDS], two[MAX_ROUNDS], ref_one[MAX_ROUNDS], ref_two[MAX_ROUNDS];
    double w1, w2, r1, r2;
    bool failed = false;
    struct db *db;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--smoke") == 0) {
            opt.smoke = true;
            opt.slice_s = 0.05;
            opt.rounds = 1;
            opt.keys = 100;
        } else if (i + 1 < argc && strcmp(argv[i], "--slice") == 0) {
            opt.slice_s = atof(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0) {
            opt.rounds = (unsigned) atoi(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--keys") == 0) {
            opt.keys = (unsigned) atoi(argv[++i]);
        } else {
            usage();
        }
    }
    if (opt.rounds < 1 || opt.rounds > MAX_ROUNDS || opt.slice_s <= 0 || opt.keys < 1) usage();

    db = db_new();
    create_table(db, tables[0]);
    create_table(db, tables[1]);
    /* Fill both tables first, so that every slice writes tables of one size. */
    for (unsigned t = 0; t < 2 && !opt.smoke; t++) {
        for (uint64_t k = 0; k < opt.keys; k++) {
            struct write_op op = {.kind = WRITE_PUT, .table_name = tables[t]};
            struct write_result res;
            struct ddb_error err = {0};
            op.put_item = make_item(t, k);
            if (db_write_item(db, &scope, &op, RETURN_CAPACITY_NONE, &res, &err) != 0) exit(1);
            write_result_clear(&res);
            item_unref(op.put_item);
        }
    }
    for (unsigned r = 0; r < opt.rounds; r++) {
        one[r] = run_slice(db, &opt, 1, &failed);
        two[r] = run_slice(db, &opt, 2, &failed);
        ref_one[r] = run_slice(NULL, &opt, 1, &failed);
        ref_two[r] = run_slice(NULL, &opt, 2, &failed);
    }
    db_free(db);
    if (failed) {
        fprintf(stderr, "table_writers: a put failed\n");
        return 1;
    }
    w1 = median(one, opt.rounds);
    w2 = median(two, opt.rounds);
    r1 = median(ref_one, opt.rounds);
    r2 = median(ref_two, opt.rounds);
    printf("PutItem, 1 thread, 1 table:        %10.0f items/s\n", w1);
    printf("PutItem, 2 threads, 2 tables:      %10.0f items/s   ratio %.2f\n", w2, w2 / w1);
    printf("reference (private work), ratio:   %.2f\n", r2 / r1);
    printf("writers' ratio / reference's:      %.2f\n", (w2 / w1) / (r2 / r1));
    return 0;
}
