/*
 * loadgen.c - the benchmark's load generator, bulk loader and probes.
 *
 * bench/run drives every measurement through this one program so that the
 * reference responder and ddbemu see byte-identical requests from the same
 * client. It is shaped like wrk, in C, with the DynamoDB request bodies built
 * in: closed-loop keep-alive connections (one request in flight per
 * connection, the next sent as soon as the answer is complete), spread over
 * one epoll loop per thread, no pipelining, latency measured from the first
 * byte written to the last byte read, every latency kept (a sorted array
 * gives exact percentiles; ten seconds at 100,000 requests/s is 8 MB).
 *
 * Subcommands (bench/run is the only caller; `loadgen --help` lists them):
 *   run       time- or count-bounded load of one operation; prints one line
 *             of key=value figures on stdout;
 *   compare   several legs (server, operation, table) in round-robin slices,
 *             so that all see the same background load, with the server's
 *             CPU time per request read from /proc; one line per leg;
 *   load      writes items [from, to) through BatchWriteItem (25 per request)
 *             or PutItem, over parallel keep-alive connections, and fails on
 *             the first non-2xx answer or non-empty UnprocessedItems (with
 *             --scramble, the items a delete run removed, to put them back);
 *   scan      pages through a table to its end with 1 MB pages, one client
 *             sequentially or N parallel segments; prints items/s;
 *   call      one request with a given target and body; prints the answer;
 *   spawn     starts a server, measures the milliseconds until GET / answers
 *             200, leaves it running and writes its pid;
 *   freeport  prints a free loopback TCP port.
 *
 * The requests and the data set are workload.c's (the chat design of
 * SCHEMAS.md); the HTTP client is http_client.c; this file is the load loop
 * (connections over epoll, latencies, legs) and the command line.
 */
#include "bench/workload.h"

#include "api/client/http_client.h"
#include "storage/base/alloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 64

struct options {
    struct http_target http;
    const char *table;
    enum op op;
    unsigned connections;
    unsigned threads;
    double duration_s;     /* 0: bounded by max_requests only */
    double warmup_s;       /* answers before this are not counted */
    uint64_t max_requests; /* 0: bounded by duration only */
    uint64_t items;        /* the key space random picks are drawn from */
    uint64_t from, to;     /* load: item range; delete: the first k of workload_pick */
    bool scramble;         /* load: items workload_pick(from .. to - 1, items) */
};

/* State shared by the worker threads of one run or load. */
struct shared {
    const struct options *opt;
    _Atomic uint64_t next; /* load: next item; run: requests handed out */
    uint64_t start_ns;
    uint64_t window_ns;   /* answers completed from here on are counted */
    uint64_t deadline_ns; /* 0: none */
    atomic_bool failed;   /* a load must stop: an answer was not a success */
    pthread_mutex_t lock; /* guards first_error */
    char first_error[600];
};

struct worker;

/* One keep-alive connection with at most one request in flight. */
struct conn {
    int fd;
    struct worker *w;
    struct text_buf out; /* the request in flight, kept to resend after a reconnect */
    size_t out_sent;
    struct text_buf in;
    uint64_t sent_ns;
    bool busy;
    unsigned retries; /* reconnects for the current request */
};

struct worker {
    pthread_t thread;
    struct shared *sh;
    struct conn *conns;
    unsigned conn_count;
    int epfd;
    uint64_t rng;
    struct text_buf body; /* scratch for the request body */
    uint64_t *lat;        /* latencies in ns of the counted answers */
    size_t lat_len;
    size_t lat_cap;
    uint64_t errors;
    uint64_t reconnects;
    uint64_t last_ns; /* when the last counted answer completed */
};

/* ---- responses ---- */

/* CLOCK_MONOTONIC in nanoseconds. */
static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

/* Prints "loadgen: what: strerror(errno)" and exits 1. */
static void die(const char *what)
{
    fprintf(stderr, "loadgen: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void record_error(struct shared *sh, const char *what, const struct http_response *r)
{
    pthread_mutex_lock(&sh->lock);
    if (!sh->first_error[0]) {
        int body_len = r ? (int) (r->body_len > 400 ? 400 : r->body_len) : 0;
        snprintf(sh->first_error, sizeof sh->first_error, "%s (HTTP %d): %.*s", what,
                 r ? r->status : 0, body_len, r ? r->body : "");
    }
    pthread_mutex_unlock(&sh->lock);
}

/* ---- connections ---- */

/* Fills c->out with the worker's next request; false when there is no more work. */
static bool next_request(struct conn *c)
{
    struct worker *w = c->w;
    struct shared *sh = w->sh;
    const struct options *opt = sh->opt;
    uint64_t i, n = 1;

    if (atomic_load(&sh->failed)) return false;
    if (opt->op == OP_LOAD_BATCH || opt->op == OP_LOAD_PUT) {
        uint64_t step = opt->op == OP_LOAD_BATCH ? BATCH_MAX : 1;
        i = atomic_fetch_add(&sh->next, step);
        if (i >= opt->to) return false;
        n = opt->to - i < step ? opt->to - i : step;
    } else if (opt->op == OP_DELETE) {
        /* Each delete takes the next item not deleted yet, so every one hits an item. */
        uint64_t k = atomic_fetch_add(&sh->next, 1);
        if (k >= opt->items || (opt->max_requests && k - opt->from >= opt->max_requests))
            return false;
        i = workload_pick(k, opt->items);
    } else {
        if (opt->max_requests && atomic_fetch_add(&sh->next, 1) >= opt->max_requests) return false;
        i = rng_below(&w->rng, opt->items);
    }
    workload_body(&w->body, opt->table, opt->items, opt->op, i, n, opt->scramble);
    http_build_request(&c->out, &opt->http, op_info[opt->op].target, w->body.data, w->body.len);
    c->out_sent = 0;
    c->retries = 0;
    return true;
}

static void conn_watch(struct conn *c, int how, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = c};

    if (epoll_ctl(c->w->epfd, how, c->fd, &ev) != 0) die("epoll_ctl");
}

/* Writes what the socket takes; asks for EPOLLOUT when it takes less than all. */
static int conn_flush(struct conn *c)
{
    while (c->out_sent < c->out.len) {
        ssize_t n = write(c->fd, c->out.data + c->out_sent, c->out.len - c->out_sent);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) {
                conn_watch(c, EPOLL_CTL_MOD, EPOLLIN | EPOLLOUT);
                return 0;
            }
            return -1;
        }
        c->out_sent += (size_t) n;
    }
    conn_watch(c, EPOLL_CTL_MOD, EPOLLIN);
    return 0;
}

static void conn_open(struct conn *c)
{
    c->fd = http_connect(&c->w->sh->opt->http);
    if (c->fd < 0) {
        fprintf(stderr, "loadgen: cannot connect to %s:%u: %s\n", c->w->sh->opt->http.host,
                (unsigned) c->w->sh->opt->http.port, strerror(errno));
        exit(1);
    }
    fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
    c->in.len = 0;
    conn_watch(c, EPOLL_CTL_ADD, EPOLLIN);
}

/* Sends c->out from its start (a new request, or the same one after a reconnect). */
static void conn_send(struct conn *c)
{
    c->busy = true;
    c->out_sent = 0;
    c->sent_ns = now_ns();
    if (conn_flush(c) != 0) {
        /* Reported by the read side as a reset: wait for EPOLLIN/EPOLLHUP. */
        conn_watch(c, EPOLL_CTL_MOD, EPOLLIN);
    }
}

/* The server dropped the connection: reconnect and resend the request in flight. */
static void conn_reopen(struct conn *c)
{
    struct worker *w = c->w;

    epoll_ctl(w->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    w->reconnects++;
    if (++c->retries > 3) {
        fprintf(stderr, "loadgen: the server keeps closing the connection\n");
        exit(1);
    }
    conn_open(c);
    if (c->busy) conn_send(c);
}

/* A whole answer arrived on c: count it, then send the next request if any.
 * Returns false when the connection has nothing more to do. */
static bool conn_answered(struct conn *c, const struct http_response *r, uint64_t t)
{
    struct worker *w = c->w;
    struct shared *sh = w->sh;
    const struct options *opt = sh->opt;
    bool ok = r->status >= 200 && r->status < 300;
    bool counted = t >= sh->window_ns && (!sh->deadline_ns || t <= sh->deadline_ns);

    if (ok && opt->op == OP_LOAD_BATCH && workload_has_unprocessed(r->body, r->body_len)) {
        ok = false;
        record_error(sh, "UnprocessedItems left", r);
    } else if (!ok) {
        record_error(sh, op_info[opt->op].target, r);
    }
    if (!ok) {
        w->errors++;
        if (opt->op == OP_LOAD_BATCH || opt->op == OP_LOAD_PUT) atomic_store(&sh->failed, true);
    }
    if (counted) {
        if (w->lat_len == w->lat_cap) {
            w->lat_cap = w->lat_cap ? w->lat_cap * 2 : 65536;
            w->lat = xrealloc(w->lat, w->lat_cap * sizeof *w->lat);
        }
        w->lat[w->lat_len++] = t - c->sent_ns;
        w->last_ns = t;
    }
    /* Keep whatever followed the answer (nothing, without pipelining). */
    memmove(c->in.data, c->in.data + r->total_len, c->in.len - r->total_len);
    c->in.len -= r->total_len;
    c->busy = false;
    if (r->close) {
        c->retries = 0;
        conn_reopen(c);
    }
    if (sh->deadline_ns && t >= sh->deadline_ns) return false;
    if (!next_request(c)) return false;
    conn_send(c);
    return true;
}

/* Reads what arrived; returns the number of connections that went idle (0 or 1).
 * Returns after one whole answer: epoll is level-triggered, so anything left
 * is reported again, and the usual case costs one read() per request. */
static int conn_readable(struct conn *c)
{
    for (;;) {
        struct http_response r;
        ssize_t n;
        int parsed;

        text_buf_reserve(&c->in, HTTP_READ_CHUNK);
        n = read(c->fd, c->in.data + c->in.len, c->in.cap - c->in.len - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return 0;
        if (n <= 0) {
            if (!c->busy) {
                /* An idle keep-alive connection closed: reopen quietly. */
                c->retries = 0;
                conn_reopen(c);
                return 0;
            }
            conn_reopen(c);
            return 0;
        }
        c->in.len += (size_t) n;
        parsed = http_parse_response(c->in.data, c->in.len, &r);
        if (parsed < 0) {
            fprintf(stderr, "loadgen: the server answered something that is not HTTP/1.x\n");
            exit(1);
        }
        if (parsed == 0) continue;
        return conn_answered(c, &r, now_ns()) ? 0 : 1;
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct epoll_event events[MAX_EVENTS];
    unsigned active = 0;

    w->epfd = epoll_create1(0);
    if (w->epfd < 0) die("epoll_create1");
    for (unsigned k = 0; k < w->conn_count; k++) {
        struct conn *c = &w->conns[k];
        c->w = w;
        conn_open(c);
    }
    for (unsigned k = 0; k < w->conn_count; k++) {
        struct conn *c = &w->conns[k];
        if (next_request(c)) {
            conn_send(c);
            active++;
        }
    }
    while (active > 0) {
        int n = epoll_wait(w->epfd, events, MAX_EVENTS, 100);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait");
        }
        for (int k = 0; k < n; k++) {
            struct conn *c = events[k].data.ptr;
            if (events[k].events & EPOLLOUT) {
                if (conn_flush(c) != 0) conn_reopen(c);
            }
            if (events[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                active -= (unsigned) conn_readable(c);
        }
        if (w->sh->deadline_ns && now_ns() >= w->sh->deadline_ns) break;
    }
    for (unsigned k = 0; k < w->conn_count; k++)
        close(w->conns[k].fd);
    close(w->epfd);
    return NULL;
}

/* ---- run and load ---- */

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

    return x < y ? -1 : x > y;
}

static double percentile_us(const uint64_t *sorted, size_t n, double p)
{
    size_t rank;

    if (!n) return 0;
    rank = (size_t) (p * (double) n + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return (double) sorted[rank - 1] / 1000.0;
}

/* One measured target of a run or comparison, with the figures of all its slices. */
struct leg {
    char label[64];
    struct options opt; /* port, op, table and items of this leg */
    uint64_t *lat;      /* every counted latency, in ns */
    size_t lat_len;
    uint64_t errors;
    uint64_t reconnects;
    double seconds;
    double rps_min, rps_max; /* over slices */
    unsigned slices;
    int pid;      /* the server's process, for its CPU time; 0: not measured */
    double cpu_s; /* the server's CPU time (user + system) within the windows */
};

/* The CPU time (user + system) process pid has used, in seconds; -1 when unreadable. */
static double process_cpu_s(int pid)
{
    char path[64], line[1024];
    const char *p;
    unsigned long long utime, stime;
    FILE *f;

    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    f = fopen(path, "r");
    if (!f) return -1;
    p = fgets(line, sizeof line, f);
    fclose(f);
    /* Fields 14 and 15, counted after the command name's closing parenthesis. */
    p = p ? strrchr(line, ')') : NULL;
    if (!p ||
        sscanf(p, ") %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
        return -1;
    return (double) (utime + stime) / (double) sysconf(_SC_CLK_TCK);
}

static void sleep_until(uint64_t t)
{
    uint64_t now = now_ns();
    struct timespec ts;

    if (now >= t) return;
    ts.tv_sec = (time_t) ((t - now) / 1000000000ULL);
    ts.tv_nsec = (long) ((t - now) % 1000000000ULL);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Runs one slice of leg (or a whole load) to its end and adds its figures to leg.
 * Returns the number of failed answers. */
static uint64_t drive(struct leg *leg)
{
    const struct options *opt = &leg->opt;
    struct shared sh;
    struct worker *workers = xcalloc(opt->threads, sizeof *workers);
    struct conn *conns = xcalloc(opt->connections, sizeof *conns);
    uint64_t total = 0, errors = 0, end_ns = 0;
    double seconds, rps;
    bool load = opt->op == OP_LOAD_BATCH || opt->op == OP_LOAD_PUT;

    memset(&sh, 0, sizeof sh);
    sh.opt = opt;
    atomic_init(&sh.next, load || opt->op == OP_DELETE ? opt->from : 0);
    atomic_init(&sh.failed, false);
    pthread_mutex_init(&sh.lock, NULL);
    sh.start_ns = now_ns();
    sh.window_ns = sh.start_ns + (uint64_t) (opt->warmup_s * 1e9);
    sh.deadline_ns = opt->duration_s > 0 ? sh.window_ns + (uint64_t) (opt->duration_s * 1e9) : 0;

    for (unsigned t = 0, given = 0; t < opt->threads; t++) {
        struct worker *w = &workers[t];
        unsigned share = (opt->connections - given) / (opt->threads - t);
        w->sh = &sh;
        w->conns = conns + given;
        w->conn_count = share;
        w->rng = 0x9E3779B97F4A7C15ULL * (t + 1) ^ (uint64_t) getpid() ^ sh.start_ns;
        given += share;
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0) die("pthread_create");
    }
    if (leg->pid && sh.deadline_ns) {
        /* The server's CPU time over the counted window only. */
        double cpu0, cpu1;
        sleep_until(sh.window_ns);
        cpu0 = process_cpu_s(leg->pid);
        sleep_until(sh.deadline_ns);
        cpu1 = process_cpu_s(leg->pid);
        if (cpu0 >= 0 && cpu1 >= cpu0) leg->cpu_s += cpu1 - cpu0;
    }
    for (unsigned t = 0; t < opt->threads; t++) {
        pthread_join(workers[t].thread, NULL);
        total += workers[t].lat_len;
        errors += workers[t].errors;
        leg->reconnects += workers[t].reconnects;
        if (workers[t].last_ns > end_ns) end_ns = workers[t].last_ns;
    }
    if (sh.deadline_ns) end_ns = sh.deadline_ns;
    if (end_ns < sh.window_ns) end_ns = sh.window_ns;
    seconds = (double) (end_ns - sh.window_ns) / 1e9;

    leg->lat = xrealloc(leg->lat, (leg->lat_len + total + 1) * sizeof *leg->lat);
    for (unsigned t = 0; t < opt->threads; t++) {
        memcpy(leg->lat + leg->lat_len, workers[t].lat, workers[t].lat_len * sizeof *leg->lat);
        leg->lat_len += workers[t].lat_len;
        free(workers[t].lat);
        free(workers[t].body.data);
    }
    for (unsigned k = 0; k < opt->connections; k++) {
        free(conns[k].in.data);
        free(conns[k].out.data);
    }
    if (opt->op == OP_DELETE) {
        /* The next slice deletes from where this one stopped. */
        uint64_t next = atomic_load(&sh.next);
        leg->opt.from = next < opt->items ? next : opt->items;
    }
    rps = seconds > 0 ? (double) total / seconds : 0.0;
    if (!leg->slices || rps < leg->rps_min) leg->rps_min = rps;
    if (!leg->slices || rps > leg->rps_max) leg->rps_max = rps;
    leg->slices++;
    leg->seconds += seconds;
    leg->errors += errors;
    if (sh.first_error[0]) fprintf(stderr, "loadgen: first failure: %s\n", sh.first_error);
    free(conns);
    free(workers);
    pthread_mutex_destroy(&sh.lock);
    return errors;
}

/* Prints a leg's figures as one line of key=value pairs and frees its latencies. */
static void leg_report(struct leg *leg)
{
    uint64_t n = leg->lat_len;
    bool load = leg->opt.op == OP_LOAD_BATCH || leg->opt.op == OP_LOAD_PUT;

    double rps = leg->seconds > 0 ? (double) n / leg->seconds : 0.0;

    qsort(leg->lat, n, sizeof *leg->lat, compare_u64);
    printf("leg=%s op=%s requests=%llu errors=%llu reconnects=%llu seconds=%.3f rps=%.1f "
           "rps_min=%.1f rps_max=%.1f items_per_s=%.1f p50_us=%.1f p90_us=%.1f p99_us=%.1f "
           "max_us=%.1f cpu_us_per_req=%.1f next=%llu\n",
           leg->label, load ? "load" : op_info[leg->opt.op].name, (unsigned long long) n,
           (unsigned long long) leg->errors, (unsigned long long) leg->reconnects, leg->seconds,
           rps, leg->rps_min, leg->rps_max, rps * workload_items_per_request(leg->opt.op),
           percentile_us(leg->lat, n, 0.50), percentile_us(leg->lat, n, 0.90),
           percentile_us(leg->lat, n, 0.99), n ? (double) leg->lat[n - 1] / 1000.0 : 0.0,
           n && leg->pid ? leg->cpu_s * 1e6 / (double) n : 0.0, (unsigned long long) leg->opt.from);
    free(leg->lat);
    leg->lat = NULL;
}

/* Runs the legs in turn, one slice each per round, so that all of them see
 * the same background load; prints one line per leg. */
static int cmd_compare(struct leg *legs, size_t count, unsigned rounds)
{
    uint64_t errors = 0;

    for (unsigned r = 0; r < rounds; r++)
        for (size_t k = 0; k < count; k++)
            errors += drive(&legs[k]);
    for (size_t k = 0; k < count; k++)
        leg_report(&legs[k]);
    return errors ? 1 : 0;
}

/* ---- scan: a table paged to its end ---- */

/* One segment's (or the whole table's) sequential walk. */
struct scan_walk {
    pthread_t thread;
    const struct options *opt;
    unsigned seg, segments; /* segments 0: a plain Scan */
    uint64_t items, pages;
    uint64_t bytes; /* answer bodies */
    int failed;     /* 0, or 1 with the reason printed */
};

/* The last occurrence of needle in hay[0..len), or NULL. A Scan page is ~1.5 MB
 * with its Count and LastEvaluatedKey after the Items, so this looks from the
 * end: a forward search would cost the client more than the server's page. */
static const char *find_last(const char *hay, size_t len, const char *needle)
{
    size_t n = strlen(needle);

    for (size_t i = len >= n ? len - n + 1 : 0; i-- > 0;)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, n) == 0) return hay + i;
    return NULL;
}

/* The unsigned number after the last "key": in body, or 0. */
static uint64_t body_u64(const char *body, size_t len, const char *key)
{
    const char *p = find_last(body, len, key);

    if (!p) return 0;
    p += strlen(key);
    while (p < body + len && (*p == ' ' || *p == ':'))
        p++;
    return strtoull(p, NULL, 10);
}

/* The JSON object after "LastEvaluatedKey": in body: its start and length, or NULL. */
static const char *last_evaluated_key(const char *body, size_t len, size_t *out_len)
{
    static const char name[] = "\"LastEvaluatedKey\"";
    const char *p = find_last(body, len, name), *end = body + len, *start;
    int depth = 0;
    bool in_string = false;

    if (!p) return NULL;
    p += sizeof name - 1;
    while (p < end && *p != '{')
        p++;
    for (start = p; p < end; p++) {
        if (in_string) {
            if (*p == '\\')
                p++;
            else if (*p == '"')
                in_string = false;
        } else if (*p == '"') {
            in_string = true;
        } else if (*p == '{') {
            depth++;
        } else if (*p == '}' && --depth == 0) {
            *out_len = (size_t) (p + 1 - start);
            return start;
        }
    }
    return NULL;
}

/* Sends out on fd (a keep-alive connection) and reads one whole answer into in. */
static int exchange_on(int fd, const struct text_buf *out, struct text_buf *in,
                       struct http_response *r)
{
    for (size_t sent = 0; sent < out->len;) {
        ssize_t n = write(fd, out->data + sent, out->len - sent);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        sent += (size_t) n;
    }
    in->len = 0;
    for (;;) {
        ssize_t n;
        int parsed;
        text_buf_reserve(in, HTTP_READ_CHUNK);
        n = read(fd, in->data + in->len, in->cap - in->len - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        in->len += (size_t) n;
        parsed = http_parse_response(in->data, in->len, r);
        if (parsed < 0) return -1;
        if (parsed > 0) return 0;
    }
}

/* Pages through one segment from its start to its end on one keep-alive connection. */
static void *scan_main(void *arg)
{
    struct scan_walk *s = arg;
    const struct options *opt = s->opt;
    struct text_buf body = {0}, out = {0}, in = {0}, key = {0};
    struct http_response r;
    int fd = http_connect(&opt->http);
    bool more = true;

    if (fd < 0) {
        fprintf(stderr, "loadgen: cannot connect: %s\n", strerror(errno));
        s->failed = 1;
        return NULL;
    }
    while (more) {
        const char *k;
        size_t k_len = 0;
        workload_scan_body(&body, opt->table, s->seg, s->segments, s->pages ? key.data : NULL,
                           key.len);
        http_build_request(&out, &opt->http, "DynamoDB_20120810.Scan", body.data, body.len);
        if (exchange_on(fd, &out, &in, &r) != 0 || r.status != 200 || r.chunked) {
            fprintf(stderr, "loadgen: scan page %llu failed (HTTP %d): %.*s\n",
                    (unsigned long long) s->pages, r.status,
                    (int) (r.body_len > 300 ? 300 : r.body_len), r.body);
            s->failed = 1;
            break;
        }
        s->pages++;
        s->bytes += r.body_len;
        s->items += body_u64(r.body, r.body_len, "\"Count\"");
        k = last_evaluated_key(r.body, r.body_len, &k_len);
        more = k != NULL;
        if (more) {
            key.len = 0;
            text_buf_add(&key, k, k_len);
        }
    }
    close(fd);
    free(body.data);
    free(out.data);
    free(in.data);
    free(key.data);
    return NULL;
}

/* Scans the table to its end (segments 0: one client paging sequentially;
 * otherwise that many parallel segments, one connection each) and prints
 * items, pages, seconds, items/s and the server's CPU ns per item. */
static int cmd_scan(const struct options *opt, unsigned segments, int pid)
{
    unsigned walkers = segments ? segments : 1;
    struct scan_walk *walks = xcalloc(walkers, sizeof *walks);
    uint64_t items = 0, pages = 0, bytes = 0, t0, t1;
    double cpu0 = pid ? process_cpu_s(pid) : -1, cpu1, seconds;
    int failed = 0;

    t0 = now_ns();
    for (unsigned k = 0; k < walkers; k++) {
        walks[k].opt = opt;
        walks[k].seg = k;
        walks[k].segments = segments;
        if (pthread_create(&walks[k].thread, NULL, scan_main, &walks[k]) != 0)
            die("pthread_create");
    }
    for (unsigned k = 0; k < walkers; k++) {
        pthread_join(walks[k].thread, NULL);
        items += walks[k].items;
        pages += walks[k].pages;
        bytes += walks[k].bytes;
        failed |= walks[k].failed;
    }
    t1 = now_ns();
    cpu1 = pid ? process_cpu_s(pid) : -1;
    seconds = (double) (t1 - t0) / 1e9;
    printf("leg=scan segments=%u items=%llu pages=%llu bytes=%llu seconds=%.3f items_per_s=%.1f "
           "cpu_ns_per_item=%.1f errors=%d\n",
           segments, (unsigned long long) items, (unsigned long long) pages,
           (unsigned long long) bytes, seconds, seconds > 0 ? (double) items / seconds : 0.0,
           cpu0 >= 0 && cpu1 >= cpu0 && items ? (cpu1 - cpu0) * 1e9 / (double) items : 0.0, failed);
    free(walks);
    return failed;
}

/* ---- single requests: call and spawn ---- */

static int cmd_call(const struct options *opt, const char *target, const char *body)
{
    struct text_buf out = {0}, in = {0};
    struct http_response r;
    int rc;

    http_build_request(&out, &opt->http, target, body, strlen(body));
    if (http_exchange(&opt->http, &out, &in, &r) != 0) {
        fprintf(stderr, "loadgen: no answer from %s:%u\n", opt->http.host,
                (unsigned) opt->http.port);
        rc = 1;
    } else {
        printf("%d %.*s\n", r.status, (int) r.body_len, r.body);
        rc = r.status >= 200 && r.status < 300 ? 0 : 1;
    }
    free(out.data);
    free(in.data);
    return rc;
}

static int cmd_spawn(const struct options *opt, const char *pidfile, char **argv)
{
    uint64_t start = now_ns(), answered_ns = 0;
    pid_t pid = fork();

    if (pid < 0) die("fork");
    if (pid == 0) {
        /* The server must not hold the caller's stdout (a pipe bench/run reads to EOF). */
        dup2(STDERR_FILENO, STDOUT_FILENO);
        execvp(argv[0], argv);
        fprintf(stderr, "loadgen: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    for (;;) {
        int status;
        struct timespec pause = {0, 100000}; /* 0.1 ms between probes */
        bool answered = http_get_root_ok(&opt->http);
        answered_ns = now_ns();
        /* Checked after the probe too: another process may hold the port. */
        if (waitpid(pid, &status, WNOHANG) == pid) {
            fprintf(stderr, "loadgen: %s exited before answering\n", argv[0]);
            return 1;
        }
        /* A minute: a restart that loads 1,000,000 items from disk takes
         * seconds, more on a busy machine; what it takes is the figure. */
        if (now_ns() - start > 60000000000ULL) {
            fprintf(stderr, "loadgen: %s did not answer GET / within 60 s\n", argv[0]);
            kill(pid, SIGTERM);
            return 1;
        }
        if (answered) break;
        nanosleep(&pause, NULL);
    }
    printf("startup_ms=%.2f pid=%d\n", (double) (answered_ns - start) / 1e6, (int) pid);
    if (pidfile) {
        FILE *f = fopen(pidfile, "w");
        if (!f) die(pidfile);
        fprintf(f, "%d\n", (int) pid);
        fclose(f);
    }
    return 0;
}

static int cmd_freeport(void)
{
    uint16_t port = http_free_port();

    if (!port) die("no free port");
    printf("%u\n", (unsigned) port);
    return 0;
}

/* ---- command line ---- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: loadgen run     --port P --op OP --items N [--table bench] [--duration S]\n"
            "                       [--requests N] [--warmup S] [--connections 16] [--threads 1]\n"
            "       loadgen compare --duration S [--rounds 3] [--warmup S] [--connections 16]\n"
            "                       [--threads 1] LABEL:PORT:OP:TABLE:ITEMS[:PID]...\n"
            "       loadgen load    --port P --from I --to J [--table bench] [--put]\n"
            "                       [--connections 16] [--scramble --items N]\n"
            "       loadgen scan    --port P [--table bench] [--segments N] [--pid PID]\n"
            "       loadgen call    --port P --target X-Amz-Target --body JSON\n"
            "       loadgen spawn   --port P [--pidfile F] -- COMMAND [ARGS...]\n"
            "       loadgen freeport\n"
            "OP is get, put, query, transact, update, delete, batchwrite, batchget, queryproj\n"
            "or getproj (query and get with a ProjectionExpression of three names). run,\n"
            "compare and load print one line of key=value figures per leg (requests, errors,\n"
            "seconds, rps, items_per_s, p50_us, p99_us...); compare runs its legs in turn,\n"
            "one --duration slice each, --rounds times; with a PID it also reports that\n"
            "process's CPU time per request (cpu_us_per_req). delete removes each item once,\n"
            "in workload_pick's order from --from (default 0), and reports next=, where the\n"
            "next run should start; load --scramble --items N puts [--from, --to) of that\n"
            "order back. scan pages through the table to its end (1 MB pages), with\n"
            "--segments N in N parallel segments, and reports items_per_s.\n"
            "--host 127.0.0.1 (IPv4 only) applies to every subcommand.\n");
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;

    errno = 0;
    if (!s || !*s || *s == '-') return false;
    *out = strtoull(s, &end, 10);
    return !errno && !*end;
}

static bool parse_seconds(const char *s, double *out)
{
    char *end;

    if (!s || !*s) return false;
    *out = strtod(s, &end);
    return !*end && *out >= 0;
}

static bool parse_op(const char *s, enum op *op)
{
    for (enum op k = 0; s && k < OP_LOAD_BATCH; k++) { /* the ops of a run (workload.h) */
        if (strcmp(s, op_info[k].name) == 0) {
            *op = k;
            return true;
        }
    }
    return false;
}

/* LABEL:PORT:OP:TABLE:ITEMS[:PID] -> a leg based on base. */
static bool parse_leg(const char *spec, const struct options *base, struct leg *leg)
{
    char copy[512], *fields[6], *save = NULL;
    uint64_t port, items, pid = 0;
    size_t n = 0;

    if (strlen(spec) >= sizeof copy) return false;
    snprintf(copy, sizeof copy, "%s", spec);
    for (char *f = strtok_r(copy, ":", &save); f && n < 6; f = strtok_r(NULL, ":", &save))
        fields[n++] = f;
    if (n < 5 || strtok_r(NULL, ":", &save)) return false;
    if (n == 6 && (!parse_u64(fields[5], &pid) || !pid || pid > INT32_MAX)) return false;
    memset(leg, 0, sizeof *leg);
    leg->opt = *base;
    if (!parse_u64(fields[1], &port) || !port || port > 65535) return false;
    if (!parse_op(fields[2], &leg->opt.op)) return false;
    if (!parse_u64(fields[4], &items) || !items) return false;
    snprintf(leg->label, sizeof leg->label, "%s", fields[0]);
    leg->pid = (int) pid;
    leg->opt.http.port = (uint16_t) port;
    leg->opt.table = xstrdup(fields[3]);
    leg->opt.items = items < 2 && leg->opt.op == OP_TRANSACT ? 2 : items;
    if (leg->opt.op == OP_BATCH_GET && leg->opt.items < BATCH_GET_MAX) return false;
    if (leg->opt.op == OP_BATCH_WRITE && leg->opt.items < BATCH_MAX) return false;
    return true;
}

int main(int argc, char **argv)
{
    struct options opt;
    struct leg *legs = NULL, one;
    size_t leg_count = 0;
    const char *cmd = argc > 1 ? argv[1] : "";
    const char *target = NULL, *body = NULL, *pidfile = NULL, *op = NULL;
    char **command = NULL, **specs = NULL;
    size_t spec_count = 0;
    bool put_load = false;
    uint64_t v, rounds = 3, segments = 0, scan_pid = 0;
    int rc = 2;

    signal(SIGPIPE, SIG_IGN);
    memset(&opt, 0, sizeof opt);
    memset(&one, 0, sizeof one);
    snprintf(opt.http.host, sizeof opt.http.host, "127.0.0.1");
    opt.connections = 16;
    opt.threads = 1;
    opt.table = "bench";

    if (strcmp(cmd, "freeport") == 0) return cmd_freeport();
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    specs = xcalloc((size_t) argc + 1, sizeof *specs);
    for (int k = 2; k < argc; k++) {
        const char *a = argv[k];
        const char *val = k + 1 < argc ? argv[k + 1] : NULL;
        bool ok = true;
        if (strcmp(a, "--") == 0) {
            command = argv + k + 1;
            break;
        } else if (strcmp(a, "--put") == 0) {
            put_load = true;
            continue;
        } else if (strcmp(a, "--scramble") == 0) {
            opt.scramble = true;
            continue;
        } else if (a[0] != '-') {
            specs[spec_count++] = argv[k];
            continue;
        } else if (strcmp(a, "--host") == 0) {
            ok = val && strlen(val) < sizeof opt.http.host;
            if (ok) snprintf(opt.http.host, sizeof opt.http.host, "%s", val);
        } else if (strcmp(a, "--port") == 0) {
            ok = parse_u64(val, &v) && v > 0 && v < 65536;
            opt.http.port = (uint16_t) v;
        } else if (strcmp(a, "--table") == 0) {
            opt.table = val;
        } else if (strcmp(a, "--op") == 0) {
            op = val;
        } else if (strcmp(a, "--connections") == 0) {
            ok = parse_u64(val, &v) && v > 0 && v <= 4096;
            opt.connections = (unsigned) v;
        } else if (strcmp(a, "--threads") == 0) {
            ok = parse_u64(val, &v) && v > 0 && v <= 64;
            opt.threads = (unsigned) v;
        } else if (strcmp(a, "--duration") == 0) {
            ok = parse_seconds(val, &opt.duration_s);
        } else if (strcmp(a, "--warmup") == 0) {
            ok = parse_seconds(val, &opt.warmup_s);
        } else if (strcmp(a, "--requests") == 0) {
            ok = parse_u64(val, &opt.max_requests);
        } else if (strcmp(a, "--rounds") == 0) {
            ok = parse_u64(val, &rounds) && rounds > 0 && rounds <= 1000;
        } else if (strcmp(a, "--items") == 0) {
            ok = parse_u64(val, &opt.items);
        } else if (strcmp(a, "--from") == 0) {
            ok = parse_u64(val, &opt.from);
        } else if (strcmp(a, "--to") == 0) {
            ok = parse_u64(val, &opt.to);
        } else if (strcmp(a, "--target") == 0) {
            target = val;
        } else if (strcmp(a, "--body") == 0) {
            body = val;
        } else if (strcmp(a, "--segments") == 0) {
            ok = parse_u64(val, &segments) && segments <= 64;
        } else if (strcmp(a, "--pid") == 0) {
            ok = parse_u64(val, &scan_pid) && scan_pid <= INT32_MAX;
        } else if (strcmp(a, "--pidfile") == 0) {
            pidfile = val;
        } else {
            ok = false;
        }
        if (!ok || !val) {
            fprintf(stderr, "loadgen: bad argument: %s %s\n", a, val ? val : "");
            usage(stderr);
            goto out;
        }
        k++;
    }
    if (opt.threads > opt.connections) opt.threads = opt.connections;

    if (strcmp(cmd, "compare") == 0) {
        if (!spec_count || !opt.duration_s) {
            fprintf(stderr, "loadgen: compare needs --duration and at least one leg\n");
            goto out;
        }
        opt.max_requests = 0;
        legs = xcalloc(spec_count, sizeof *legs);
        for (; leg_count < spec_count; leg_count++) {
            if (!parse_leg(specs[leg_count], &opt, &legs[leg_count])) {
                fprintf(stderr, "loadgen: bad leg (LABEL:PORT:OP:TABLE:ITEMS[:PID]): %s\n",
                        specs[leg_count]);
                goto out;
            }
        }
        rc = cmd_compare(legs, leg_count, (unsigned) rounds);
        goto out;
    }
    if (spec_count) {
        fprintf(stderr, "loadgen: unexpected argument: %s\n", specs[0]);
        goto out;
    }
    if (!opt.http.port) {
        fprintf(stderr, "loadgen: --port is required\n");
        goto out;
    }
    /* AWS_SECRET_ACCESS_KEY (and AWS_ACCESS_KEY_ID): real signatures, for a
     * ddbemu started with --credentials. */
    if (http_target_sign_from_env(&opt.http) != 0) {
        fprintf(stderr, "loadgen: AWS_SECRET_ACCESS_KEY or a related variable is too long\n");
        goto out;
    }
    if (strcmp(cmd, "call") == 0 && target && body) {
        rc = cmd_call(&opt, target, body);
    } else if (strcmp(cmd, "spawn") == 0 && command && command[0]) {
        rc = cmd_spawn(&opt, pidfile, command);
    } else if (strcmp(cmd, "scan") == 0) {
        rc = cmd_scan(&opt, (unsigned) segments, (int) scan_pid);
    } else if (strcmp(cmd, "load") == 0) {
        if (opt.scramble && !opt.items) {
            fprintf(stderr, "loadgen: load --scramble needs --items\n");
            goto out;
        }
        opt.op = put_load ? OP_LOAD_PUT : OP_LOAD_BATCH;
        opt.duration_s = opt.warmup_s = 0;
        opt.max_requests = 0;
        one.opt = opt;
        snprintf(one.label, sizeof one.label, "load");
        rc = opt.to > opt.from && drive(&one) ? 1 : 0;
        leg_report(&one);
    } else if (strcmp(cmd, "run") == 0) {
        if (!parse_op(op, &opt.op) || !opt.items || (!opt.duration_s && !opt.max_requests)) {
            fprintf(stderr, "loadgen: run needs --op (see --help), --items and "
                            "--duration or --requests\n");
            goto out;
        }
        if (opt.op == OP_TRANSACT && opt.items < 2) opt.items = 2;
        one.opt = opt;
        snprintf(one.label, sizeof one.label, "%s", op);
        rc = drive(&one) ? 1 : 0;
        leg_report(&one);
    } else {
        usage(stderr);
    }
out:
    for (size_t k = 0; k < leg_count; k++)
        free((char *) legs[k].opt.table);
    free(legs);
    free(specs);
    return rc;
}
