/*
 * inprocess.c - libddbemu's in-process calls against the same calls over
 * HTTP, in one program, on one engine (bench/README.md, "In-process calls").
 *
 *   inprocess [--items 10000] [--threads 1] [--slice 2] [--rounds 3]
 *             [--ops get,put] [--scramble]
 *
 * Opens an emulator through the public API (emulator/include/ddbemu.h, the
 * shared library) with --shared-db, serves it on a free loopback port, and
 * loads the chat table of workload.h in-process (in the table's order, or
 * with --scramble in workload_pick's, so that a room's messages lie apart in
 * memory as a table filled over time has them). Then, for each op of --ops
 * (GetItem and PutItem unless told: get, put, query, update, getproj,
 * queryproj), it alternates slices: `threads` threads calling ddbemu_call in a
 * loop, then `threads` threads each sending the same requests (workload.h's
 * bodies, random items) over one keep-alive connection, one at a time. Each
 * line gives, for both legs and their ratio, calls per second of wall time
 * and calls per second of the process's CPU time (the callers and, over
 * HTTP, the server's workers: all in this process), the median slice of
 * each; the CPU figure holds on a machine shared with other work, where the
 * wall-clock one follows the load.
 * Every answer must be 200, or the run fails. Nothing here is a test: it
 * measures, it never asserts a speed.
 */
#include "bench/workload.h"

#include "api/client/http_client.h"
#include "emulator/include/ddbemu.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define TABLE      "bench"
#define MAX_ROUNDS 16

#define MAX_OPS 8

struct options {
    uint64_t items;
    unsigned threads;
    double slice_s;
    unsigned rounds;
    bool scramble; /* load the items in workload_pick's order, not the table's */
    enum op ops[MAX_OPS];
    size_t op_count;
};

struct leg_run {
    ddbemu *emu;                 /* in-process leg; NULL for HTTP */
    const struct http_target *t; /* HTTP leg */
    const struct options *opt;
    enum op op;
    atomic_bool stop;
    atomic_ullong calls;
    atomic_bool failed;
};

struct worker_arg {
    struct leg_run *leg;
    uint64_t seed;
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "inprocess: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

/* One in-process call that must answer 200. */
static void must_call(ddbemu *emu, const char *target, const char *body)
{
    char *answer = NULL;
    int status = ddbemu_call(emu, target, body, &answer);

    if (status != 200) die(target, answer);
    ddbemu_free(answer);
}

/* Reads one whole answer from fd into in; its status, or -1. */
static int read_answer(int fd, struct text_buf *in)
{
    struct http_response r;

    in->len = 0;
    for (;;) {
        char chunk[16384];
        ssize_t n;
        int done = in->len ? http_parse_response(in->data, in->len, &r) : 0;
        if (done == 1) return r.status;
        if (done < 0) return -1;
        n = read(fd, chunk, sizeof chunk);
        if (n <= 0) return -1;
        text_buf_add(in, chunk, (size_t) n);
    }
}

static void *worker(void *p)
{
    struct worker_arg *a = p;
    struct leg_run *leg = a->leg;
    struct text_buf body = {0}, out = {0}, in = {0};
    uint64_t rng = a->seed;
    int fd = -1;

    if (!leg->emu) {
        fd = http_connect(leg->t);
        if (fd < 0) die("cannot connect", NULL);
    }
    while (!atomic_load(&leg->stop)) {
        uint64_t i = rng_below(&rng, leg->opt->items);
        int status;
        body.len = 0;
        workload_body(&body, TABLE, leg->opt->items, leg->op, i, 1, false);
        if (leg->emu) {
            char *answer = NULL;
            status = ddbemu_call(leg->emu, op_info[leg->op].target, body.data, &answer);
            ddbemu_free(answer);
        } else {
            out.len = 0;
            http_build_request(&out, leg->t, op_info[leg->op].target, body.data, body.len);
            status = write(fd, out.data, out.len) == (ssize_t) out.len ? read_answer(fd, &in) : -1;
        }
        if (status != 200) {
            atomic_store(&leg->failed, true);
            break;
        }
        atomic_fetch_add(&leg->calls, 1);
    }
    if (fd >= 0) close(fd);
    free(body.data);
    free(out.data);
    free(in.data);
    return NULL;
}

/* CPU time (user + system) of the whole process so far, in seconds: the
 * callers' threads and, over HTTP, the server's workers, all in this process. */
static double process_cpu_s(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return (double) ru.ru_utime.tv_sec + (double) ru.ru_utime.tv_usec / 1e6 +
           (double) ru.ru_stime.tv_sec + (double) ru.ru_stime.tv_usec / 1e6;
}

struct figures {
    double per_s;     /* calls per second of wall time */
    double per_cpu_s; /* calls per second of the process's CPU time */
};

/* The figures of one slice of one leg. */
static struct figures slice(ddbemu *emu, const struct http_target *t, const struct options *opt,
                            enum op op, uint64_t seed)
{
    struct leg_run leg = {.emu = emu, .t = t, .opt = opt, .op = op};
    pthread_t tid[64];
    struct worker_arg args[64];
    double start, cpu_start, calls;

    atomic_init(&leg.stop, false);
    atomic_init(&leg.calls, 0);
    atomic_init(&leg.failed, false);
    start = now_s();
    cpu_start = process_cpu_s();
    for (unsigned i = 0; i < opt->threads; i++) {
        args[i] = (struct worker_arg){&leg, seed * 7919 + i + 1};
        pthread_create(&tid[i], NULL, worker, &args[i]);
    }
    {
        struct timespec d = {(time_t) opt->slice_s,
                             (long) ((opt->slice_s - (double) (time_t) opt->slice_s) * 1e9)};
        nanosleep(&d, NULL);
    }
    atomic_store(&leg.stop, true);
    for (unsigned i = 0; i < opt->threads; i++)
        pthread_join(tid[i], NULL);
    if (atomic_load(&leg.failed)) die("a call did not answer 200", op_info[op].name);
    calls = (double) atomic_load(&leg.calls);
    return (struct figures){calls / (now_s() - start), calls / (process_cpu_s() - cpu_start)};
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;

    return x < y ? -1 : x > y;
}

static void load(ddbemu *emu, uint64_t items, bool scramble)
{
    struct text_buf body = {0};

    must_call(emu, "DynamoDB_20120810.CreateTable",
              "{\"TableName\":\"" TABLE "\",\"BillingMode\":\"PAY_PER_REQUEST\","
              "\"AttributeDefinitions\":[{\"AttributeName\":\"PK\",\"AttributeType\":\"S\"},"
              "{\"AttributeName\":\"SK\",\"AttributeType\":\"S\"}],"
              "\"KeySchema\":[{\"AttributeName\":\"PK\",\"KeyType\":\"HASH\"},"
              "{\"AttributeName\":\"SK\",\"KeyType\":\"RANGE\"}]}");
    for (uint64_t i = 0; i < items; i += BATCH_MAX) {
        uint64_t n = items - i < BATCH_MAX ? items - i : BATCH_MAX;
        body.len = 0;
        workload_body(&body, TABLE, items, OP_LOAD_BATCH, i, n, scramble);
        must_call(emu, op_info[OP_LOAD_BATCH].target, body.data);
    }
    free(body.data);
}

/* --ops: a comma-separated list of the ops a run can time here. */
static void parse_ops(const char *list, struct options *opt)
{
    static const enum op allowed[] = {OP_GET,    OP_PUT,      OP_QUERY,
                                      OP_UPDATE, OP_GET_PROJ, OP_QUERY_PROJ};
    const char *p = list;

    opt->op_count = 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        size_t k = 0;
        while (k < sizeof allowed / sizeof *allowed &&
               (strlen(op_info[allowed[k]].name) != len ||
                strncmp(op_info[allowed[k]].name, p, len) != 0))
            k++;
        if (k == sizeof allowed / sizeof *allowed || opt->op_count == MAX_OPS)
            die("--ops takes up to 8 of get, put, query, update, getproj, queryproj", list);
        opt->ops[opt->op_count++] = allowed[k];
        p += len;
        if (*p == ',') p++;
    }
    if (!opt->op_count) die("--ops names no op", list);
}

int main(int argc, char **argv)
{
    struct options opt = {.items = 10000,
                          .threads = 1,
                          .slice_s = 2,
                          .rounds = 3,
                          .ops = {OP_GET, OP_PUT},
                          .op_count = 2};
    const char *args[] = {"--shared-db", "--port", "0", NULL};
    struct http_target t = {.host = "127.0.0.1", .timeout_s = 10};
    char *error = NULL;
    ddbemu *emu;
    int port;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--scramble") == 0) {
            opt.scramble = true;
            continue;
        }
        if (!v) die("a value is missing after", a);
        if (strcmp(a, "--items") == 0)
            opt.items = strtoull(v, NULL, 10);
        else if (strcmp(a, "--threads") == 0)
            opt.threads = (unsigned) atoi(v);
        else if (strcmp(a, "--slice") == 0)
            opt.slice_s = atof(v);
        else if (strcmp(a, "--rounds") == 0)
            opt.rounds = (unsigned) atoi(v);
        else if (strcmp(a, "--ops") == 0)
            parse_ops(v, &opt);
        else
            die("usage: inprocess [--items N] [--threads N] [--slice S] [--rounds N] "
                "[--ops get,put,query,...] [--scramble]",
                NULL);
        i++;
    }
    if (opt.items == 0 || opt.threads == 0 || opt.threads > 64 || opt.rounds == 0 ||
        opt.rounds > MAX_ROUNDS || !(opt.slice_s > 0))
        die("out of range: --items >= 1, --threads 1-64, --rounds 1-16, --slice > 0", NULL);

    emu = ddbemu_open(args, &error);
    if (!emu) die("ddbemu_open", error);
    port = ddbemu_listen(emu, &error);
    if (port <= 0) die("ddbemu_listen", error);
    t.port = (uint16_t) port;
    load(emu, opt.items, opt.scramble);
    printf("libddbemu %s: %llu items%s, %u thread(s) per leg, %u rounds of %.1f s slices\n",
           ddbemu_version(), (unsigned long long) opt.items,
           opt.scramble ? " (loaded in scrambled order)" : "", opt.threads, opt.rounds,
           opt.slice_s);
    printf("%-9s %14s %10s %7s   %16s %12s %7s\n", "op", "in-process/s", "HTTP/s", "ratio",
           "in-process/cpu-s", "HTTP/cpu-s", "ratio");
    for (size_t k = 0; k < opt.op_count; k++) {
        double in_wall[MAX_ROUNDS], http_wall[MAX_ROUNDS], in_cpu[MAX_ROUNDS], http_cpu[MAX_ROUNDS];
        unsigned mid = opt.rounds / 2;
        for (unsigned r = 0; r < opt.rounds; r++) {
            struct figures in = slice(emu, NULL, &opt, opt.ops[k], r);
            struct figures over = slice(NULL, &t, &opt, opt.ops[k], r);
            in_wall[r] = in.per_s;
            in_cpu[r] = in.per_cpu_s;
            http_wall[r] = over.per_s;
            http_cpu[r] = over.per_cpu_s;
        }
        qsort(in_wall, opt.rounds, sizeof *in_wall, compare_double);
        qsort(http_wall, opt.rounds, sizeof *http_wall, compare_double);
        qsort(in_cpu, opt.rounds, sizeof *in_cpu, compare_double);
        qsort(http_cpu, opt.rounds, sizeof *http_cpu, compare_double);
        printf("%-9s %14.0f %10.0f %6.1fx   %16.0f %12.0f %6.1fx\n", op_info[opt.ops[k]].name,
               in_wall[mid], http_wall[mid], in_wall[mid] / http_wall[mid], in_cpu[mid],
               http_cpu[mid], in_cpu[mid] / http_cpu[mid]);
    }
    ddbemu_close(emu);
    return 0;
}
