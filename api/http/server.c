/*
 * server.c - libmicrohttpd daemon: connections, bodies, the size cap.
 *
 * One daemon with an internal polling thread per pool worker (poll, not
 * epoll: below); each worker runs the handler for the connections it owns, so
 * requests on different connections run in parallel and HTTP/1.1 keep-alive
 * comes from libmicrohttpd. The workers do not accept: the acceptor's thread
 * does, and hands each connection to a worker (acceptor.h says why).
 *
 * Per request, a struct request_state accumulates the body in a buffer that
 * grows geometrically but never past max_body_bytes: a Content-Length over
 * the cap is refused with 413 before a byte of the body is read; a chunked
 * body that passes the cap is dropped from then on (read, not stored) and
 * answered 413 at its end, or its connection closed if it goes on past twice
 * the cap. No request can make the server buffer more than the cap.
 * (AWS answers an over-16-MiB request with a bare 413, as dynalite's
 * connection tests record.) A request line or headers longer than the
 * configured bounds (DynamoDB's 16 KB each) get a bare 400 once the headers
 * are in, before the body is read. Both live in a per-connection pool of
 * CONNECTION_MEMORY_BYTES: libmicrohttpd answers a request line too long for
 * it 414 and headers 431 itself, and closes the connection, so neither can
 * grow memory either.
 *
 * The http_request handed to the handler points into request_state; the
 * handler's http_response is converted to an MHD_Response and freed here.
 *
 * Bounds (server_config; README "Connections and floods"): at most
 * max_connections are open - beyond it the acceptor stops accepting and new
 * connections wait in the kernel's listen backlog until one closes, and the
 * log says so once per episode; the bodies buffered at once, all connections
 * together, stay under max_body_memory - a request that would pass it is
 * answered 503 (before its body is read when Content-Length says so); a
 * connection silent for idle_timeout_s is closed, and so is one whose request
 * has not arrived whole within request_timeout_s of its first byte (a slow
 * drip of its line, headers or body: deadline.h).
 *
 * Why poll and not epoll: libmicrohttpd 0.9.75's epoll loop is
 * edge-triggered and takes a short read as "nothing more to read", so a
 * request whose bytes and FIN arrived together (a client that sent part of a
 * body and closed, typical of a flood: the connection waited in the backlog
 * while the client gave up) is never read again: its EOF goes unseen and it
 * holds its descriptor and its slot until the idle timeout. Once every slot is
 * held so, nothing is accepted. poll() is level-triggered: the EOF is read at
 * once and the connection closed.
 *
 * Locking: the counters are atomics, updated from every worker thread;
 * everything else of a connection is touched only by the worker that owns it.
 */
#include "api/http/server.h"

#include "api/http/acceptor.h"
#include "api/http/deadline.h"
#include "api/http/delay.h"
#include "storage/base/alloc.h"
#include "storage/base/thread_cache.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct server {
    struct MHD_Daemon *daemon;
    struct acceptor *acceptor; /* the listening socket and its thread */
    struct server_config config;
    char *host;                           /* owned copy of config.host */
    struct deadline *deadline;            /* the request deadline watcher */
    struct delay *delay;                  /* the timer of held answers (delay.h) */
    atomic_int active;                    /* requests being handled now */
    atomic_bool stopping;                 /* server_stop has begun: no request is handled */
    atomic_uint connections;              /* open now */
    atomic_bool at_bound;                 /* max_connections was reached and has not eased since */
    atomic_uint_fast64_t waited;          /* times the bound was reached (episodes) */
    atomic_size_t body_memory;            /* bytes of request-body buffers, all connections */
    atomic_uint_fast64_t budget_refusals; /* 503s for max_body_memory */
    atomic_int_fast64_t log_second;       /* the second of the last library message */
    atomic_uint log_lines;                /* library messages printed in that second */
    atomic_uint_fast64_t log_dropped;     /* library messages not printed (flood) */
};

/* Library messages printed per second at most; the rest are counted. */
#define LOG_LINES_PER_SECOND 5

/*
 * Each connection's pool for its request line, headers and read buffer.
 * libmicrohttpd 0.9.75 zeroes the whole pool after every request on a
 * kept-alive connection (MHD_pool_reset), so its size is paid per request:
 * 64 KiB was ~98,000 instructions of memset a request, and flushed the
 * worker's L1 cache each time. 32 KiB still holds a request line or headers
 * well past DynamoDB's 16 KB bounds (so that they get DynamoDB's 400, not
 * libmicrohttpd's 414/431: test_emulator_http_edge.py pins the sizes); the
 * body never lives there (body_append copies it out as it arrives).
 */
#define CONNECTION_MEMORY_BYTES (32 * 1024)

/* A finished request's state is kept by its worker thread for the next
 * request, with its body buffer when that is at most this large: a fresh
 * 4 KiB buffer per request was a large-chunk malloc, which makes glibc merge
 * its fastbins first (malloc_consolidate) - scattered over the heap of a
 * large table, 1-4% of a single-item request's time. */
#define SPARE_BODY_BYTES (64 * 1024)

/* One request in flight. */
struct request_state {
    char *body;
    size_t body_len;
    size_t body_cap;
    bool refused;      /* a 413 or 503 has been queued */
    unsigned dropping; /* nonzero: the body is dropped, answered with this status at its end */
    size_t discarded;  /* bytes dropped since */
    struct http_field *headers;
    size_t header_count;
    size_t header_cap;
    struct http_field *query;
    size_t query_count;
    size_t query_cap;
    bool holding;              /* the connection is suspended; held is its answer */
    struct http_response held; /* owned while holding */
};

/* Each thread's spare request_state (NULL when none); freed at thread exit. */
static pthread_key_t spare_key;
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;

/* ---- struct http_request / http_response helpers ---- */

/* ASCII lower case of c (header names are ASCII tokens). */
static unsigned char ascii_lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char) (c | 0x20) : c;
}

const char *http_request_header(const struct http_request *req, const char *name)
{
    unsigned char first = ascii_lower((unsigned char) name[0]);

    /* A request is looked up ~50 times: most names differ in their first
     * letter, which is compared before strcasecmp is called. */
    for (size_t i = 0; i < req->header_count; i++)
        if (ascii_lower((unsigned char) req->headers[i].name[0]) == first &&
            strcasecmp(req->headers[i].name, name) == 0)
            return req->headers[i].value;
    return NULL;
}

bool http_request_query(const struct http_request *req, const char *name, const char **value)
{
    for (size_t i = 0; i < req->query_count; i++) {
        if (strcmp(req->query[i].name, name) == 0) {
            if (value) *value = req->query[i].value;
            return true;
        }
    }
    return false;
}

/* Sets header i to copies of name and value, both in one allocation (name's;
 * value follows it), then frees what header i held (name or value may point
 * into it). */
static void response_header_put(struct http_response *resp, size_t i, const char *name,
                                const char *value)
{
    size_t name_len = strlen(name), value_len = strlen(value);
    char *both = xmalloc(name_len + value_len + 2);

    memcpy(both, name, name_len + 1);
    memcpy(both + name_len + 1, value, value_len + 1);
    if (i < resp->header_count) free(resp->headers[i].name);
    resp->headers[i].name = both;
    resp->headers[i].value = both + name_len + 1;
}

void http_response_add_header(struct http_response *resp, const char *name, const char *value)
{
    assert(resp->header_count < HTTP_MAX_RESPONSE_HEADERS);
    response_header_put(resp, resp->header_count, name, value);
    resp->header_count++;
}

void http_response_set_header(struct http_response *resp, const char *name, const char *value)
{
    for (size_t i = 0; i < resp->header_count; i++) {
        if (strcasecmp(resp->headers[i].name, name) == 0) {
            /* The name as first given (its case) is kept: copied before
             * its block is freed. */
            response_header_put(resp, i, resp->headers[i].name, value);
            return;
        }
    }
    http_response_add_header(resp, name, value);
}

void http_response_set_body(struct http_response *resp, char *body, size_t len)
{
    free(resp->body);
    resp->body = body;
    resp->body_len = body ? len : 0;
}

void http_response_clear(struct http_response *resp)
{
    free(resp->body);
    for (size_t i = 0; i < resp->header_count; i++)
        free(resp->headers[i].name); /* and its value, in the same block */
    memset(resp, 0, sizeof *resp);
}

/* ---- libmicrohttpd callbacks ---- */

static void fields_add(struct http_field **fields, size_t *count, size_t *cap, const char *name,
                       const char *value)
{
    if (*count == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *fields = xrealloc(*fields, *cap * sizeof **fields);
    }
    (*fields)[*count].name = name;
    (*fields)[*count].value = value;
    (*count)++;
}

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
    struct request_state *st = cls;

    (void) kind;
    fields_add(&st->headers, &st->header_count, &st->header_cap, key, value ? value : "");
    return MHD_YES;
}

static enum MHD_Result collect_query(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
    struct request_state *st = cls;

    (void) kind;
    fields_add(&st->query, &st->query_count, &st->query_cap, key, value);
    return MHD_YES;
}

/* The headers every answer carries, whoever wrote it. */
static void add_server_headers(const struct server *srv, struct MHD_Response *r)
{
    if (srv->config.server_name)
        MHD_add_response_header(r, MHD_HTTP_HEADER_SERVER, srv->config.server_name);
}

static enum MHD_Result queue_empty(const struct server *srv, struct MHD_Connection *conn,
                                   unsigned status)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret;

    if (!r) return MHD_NO;
    add_server_headers(srv, r);
    ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* Takes n bytes of the server's body budget; false (nothing taken) when it
 * would pass max_body_memory. */
static bool budget_take(struct server *srv, size_t n)
{
    size_t used = atomic_load(&srv->body_memory);

    do {
        if (n > srv->config.max_body_memory - used) return false;
    } while (!atomic_compare_exchange_weak(&srv->body_memory, &used, used + n));
    return true;
}

static void body_free(struct server *srv, struct request_state *st)
{
    atomic_fetch_sub(&srv->body_memory, st->body_cap);
    free(st->body);
    st->body = NULL;
    st->body_len = st->body_cap = 0;
}

static void state_free(void *p)
{
    struct request_state *st = p;

    if (!st) return;
    if (st->holding) http_response_clear(&st->held);
    free(st->body);
    free(st->headers);
    free(st->query);
    free(st);
}

static void spare_key_create(void)
{
    if (pthread_key_create(&spare_key, state_free) != 0) abort(); /* only out of keys */
}

/* A request's state: this thread's spare one if it has one (its body buffer
 * counted in the body budget again, or dropped if the budget is full), else
 * a new one. */
static struct request_state *state_take(struct server *srv)
{
    struct request_state *st = pthread_getspecific(spare_key);

    if (!st) return xcalloc(1, sizeof *st);
    pthread_setspecific(spare_key, NULL);
    if (st->body_cap && !budget_take(srv, st->body_cap)) {
        free(st->body);
        st->body = NULL;
        st->body_cap = 0;
    }
    return st;
}

/* The request is over: its state becomes this thread's spare one (emptied,
 * its body buffer kept out of the body budget if small), or is freed when
 * the thread has one already or the server is stopping (the thread may not
 * be a worker then). */
static void state_give_back(struct server *srv, struct request_state *st)
{
    if (st->holding) http_response_clear(&st->held);
    st->holding = false;
    if (st->body_cap > SPARE_BODY_BYTES || atomic_load(&srv->stopping)) body_free(srv, st);
    atomic_fetch_sub(&srv->body_memory, st->body_cap);
    if (atomic_load(&srv->stopping) || pthread_getspecific(spare_key) ||
        pthread_setspecific(spare_key, st) != 0) {
        st->body_cap = 0; /* already out of the budget */
        state_free(st);
        return;
    }
    st->body_len = 0;
    st->refused = false;
    st->dropping = 0;
    st->discarded = 0;
    st->header_count = 0;
    st->query_count = 0;
}

/* Appends a chunk of body. Returns 0, or the status to answer once the body
 * has been dropped: 413 when it would pass the cap, 503 when the server's
 * body budget cannot hold it. */
static unsigned body_append(struct server *srv, struct request_state *st, const char *data,
                            size_t len)
{
    size_t max = srv->config.max_body_bytes;

    if (len > max - st->body_len) return MHD_HTTP_CONTENT_TOO_LARGE;
    if (st->body_len + len + 1 > st->body_cap) {
        size_t cap = st->body_cap ? st->body_cap : 4096;
        while (cap < st->body_len + len + 1)
            cap *= 2;
        if (cap > max + 1) cap = max + 1;
        if (!budget_take(srv, cap - st->body_cap)) return MHD_HTTP_SERVICE_UNAVAILABLE;
        st->body = xrealloc(st->body, cap);
        st->body_cap = cap;
    }
    memcpy(st->body + st->body_len, data, len);
    st->body_len += len;
    st->body[st->body_len] = '\0';
    return 0;
}

/* Adds "name: value\r\n"'s length to *(size_t *) cls. */
static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    (void) kind;
    *(size_t *) cls += strlen(key) + (value ? strlen(value) : 0) + 4;
    return MHD_YES;
}

/* Adds "name=value&"'s length to *(size_t *) cls. */
static enum MHD_Result count_argument(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
    (void) kind;
    *(size_t *) cls += strlen(key) + (value ? strlen(value) + 1 : 0) + 1;
    return MHD_YES;
}

/*
 * Whether the request line or the headers pass the configured bounds, in
 * bytes as sent, near enough: libmicrohttpd hands the path decoded and
 * without its query string, so the query's arguments are added back as
 * "name=value&" ("%41" counts as one byte: a few bytes' slack at most).
 */
static bool head_too_large(const struct server *srv, struct MHD_Connection *conn,
                           const char *method, const char *url, const char *version)
{
    size_t line = strlen(method) + 1 + strlen(url) + 1 + strlen(version) + 2, headers = 0;

    if (srv->config.max_request_line_bytes) {
        MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, count_argument, &line);
        if (line > srv->config.max_request_line_bytes) return true;
    }
    if (srv->config.max_header_bytes) {
        MHD_get_connection_values(conn, MHD_HEADER_KIND, count_header, &headers);
        if (headers > srv->config.max_header_bytes) return true;
    }
    return false;
}

/* Says that the body budget refused a request: at the 1st, 2nd, 4th, 8th...
 * refusal, so that a flood cannot flood the log. */
static void log_budget_refusal(struct server *srv)
{
    uint64_t n = atomic_fetch_add(&srv->budget_refusals, 1) + 1;

    if ((n & (n - 1)) == 0)
        fprintf(stderr,
                "ddbemu: request bodies in memory reached --max-body-memory (%zu bytes): "
                "answered 503 (%" PRIu64 " so far)\n",
                srv->config.max_body_memory, n);
}

static enum MHD_Result send_response(const struct server *srv, struct MHD_Connection *conn,
                                     struct http_response *resp)
{
    struct MHD_Response *r;
    enum MHD_Result ret;

    if (resp->body && resp->body_len) {
        /* Freed through the thread's cache: the next answer of this size
         * takes the block back instead of a large malloc (thread_cache.h). */
        r = MHD_create_response_from_buffer_with_free_callback(resp->body_len, resp->body,
                                                               thread_cache_free);
        if (r) resp->body = NULL; /* now MHD's */
    } else {
        r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    }
    if (!r) {
        http_response_clear(resp);
        return MHD_NO;
    }
    add_server_headers(srv, r);
    for (size_t i = 0; i < resp->header_count; i++)
        MHD_add_response_header(r, resp->headers[i].name, resp->headers[i].value);
    ret = MHD_queue_response(conn, (unsigned) (resp->status ? resp->status : 500), r);
    MHD_destroy_response(r);
    http_response_clear(resp);
    return ret;
}

/* Closes the connection without an answer, with a TCP reset (SO_LINGER 0),
 * as a connection the network lost mid-answer looks to the client. */
static enum MHD_Result reset_connection(struct MHD_Connection *conn, struct http_response *resp)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct linger hard = {.l_onoff = 1, .l_linger = 0};

    if (info) setsockopt(info->connect_fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    http_response_clear(resp);
    return MHD_NO;
}

static void resume_connection(void *conn)
{
    MHD_resume_connection(conn);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    struct server *srv = cls;
    struct request_state *st = *con_cls;

    if (!st) {
        const char *cl =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        st = state_take(srv);
        *con_cls = st;
        if (head_too_large(srv, conn, method, url, version)) {
            /* Refused before reading the body, as an oversized one. */
            st->refused = true;
            return queue_empty(srv, conn, MHD_HTTP_BAD_REQUEST);
        }
        if (cl) {
            char *end;
            errno = 0;
            unsigned long long n = strtoull(cl, &end, 10);
            if (errno == ERANGE || n > srv->config.max_body_bytes) {
                /* Refused before reading the body. */
                st->refused = true;
                return queue_empty(srv, conn, MHD_HTTP_CONTENT_TOO_LARGE);
            }
            if (n > srv->config.max_body_memory - atomic_load(&srv->body_memory)) {
                st->refused = true;
                log_budget_refusal(srv);
                return queue_empty(srv, conn, MHD_HTTP_SERVICE_UNAVAILABLE);
            }
        }
        return MHD_YES;
    }
    if (st->holding) {
        /* Resumed after a delay (delay.h): the answer is due now. */
        st->holding = false;
        return send_response(srv, conn, &st->held);
    }
    if (*upload_data_size == 0) {
        /* The last call: the whole request is here. */
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        if (info && info->socket_context) deadline_request_arrived(info->socket_context);
    }
    if (st->refused) {
        *upload_data_size = 0; /* the 413 is already queued */
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (st->dropping) {
            /* libmicrohttpd cannot answer in the middle of an upload: the rest
             * is read and dropped (never stored), up to one more cap's worth,
             * after which the connection is simply closed. */
            st->discarded += *upload_data_size;
            *upload_data_size = 0;
            return st->discarded > srv->config.max_body_bytes ? MHD_NO : MHD_YES;
        }
        st->dropping = body_append(srv, st, upload_data, *upload_data_size);
        if (st->dropping) {
            if (st->dropping == MHD_HTTP_SERVICE_UNAVAILABLE) log_budget_refusal(srv);
            st->discarded = 0;
            body_free(srv, st);
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (st->dropping) {
        st->refused = true;
        return queue_empty(srv, conn, st->dropping);
    }

    /* The whole request is here. While stopping, nothing new is done. */
    atomic_fetch_add(&srv->active, 1);
    if (atomic_load(&srv->stopping)) {
        atomic_fetch_sub(&srv->active, 1);
        return queue_empty(srv, conn, MHD_HTTP_SERVICE_UNAVAILABLE);
    }
    MHD_get_connection_values(conn, MHD_HEADER_KIND, collect_header, st);
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_query, st);
    {
        struct http_request req = {
            .method = method,
            .path = url,
            .headers = st->headers,
            .header_count = st->header_count,
            .query = st->query,
            .query_count = st->query_count,
            .body = st->body ? st->body : "",
            .body_len = st->body_len,
        };
        struct http_response resp;
        memset(&resp, 0, sizeof resp);
        srv->config.handler(srv->config.handler_arg, &req, &resp);
        if (resp.reset_connection) {
            atomic_fetch_sub(&srv->active, 1);
            return reset_connection(conn, &resp);
        }
        if (resp.delay_ms) {
            /* Held without holding this worker (delay.h); counted as active
             * until handed over, so that server_stop flushes it. */
            st->held = resp;
            st->holding = true;
            MHD_suspend_connection(conn);
            delay_hold(srv->delay, conn, resp.delay_ms);
            atomic_fetch_sub(&srv->active, 1);
            return MHD_YES;
        }
        atomic_fetch_sub(&srv->active, 1);
        return send_response(srv, conn, &resp);
    }
}

/* libmicrohttpd has read a request line: the request has begun (if the
 * deadline watcher has not seen its first bytes already). */
static void *on_request_line(void *cls, const char *uri, struct MHD_Connection *conn)
{
    struct server *srv = cls;
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    (void) uri;
    if (info && info->socket_context) deadline_request_began(srv->deadline, info->socket_context);
    return NULL; /* on_request makes the request's state */
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct request_state *st = *con_cls;

    (void) cls;
    (void) conn;
    (void) toe;
    if (!st) return;
    state_give_back(cls, st);
    *con_cls = NULL;
}

/* Counts connections; says when the bound is reached, and when it has eased
 * (a quarter of the slots free again), so that a flood writes two lines. */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    struct server *srv = cls;
    unsigned limit = srv->config.max_connections, open;

    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (info) *socket_context = deadline_watch(srv->deadline, info->connect_fd);
        open = atomic_fetch_add(&srv->connections, 1) + 1;
        if (open >= limit && !atomic_exchange(&srv->at_bound, true))
            fprintf(stderr,
                    "ddbemu: %u connections open, the --max-connections bound: new connections "
                    "wait in the listen backlog until one closes (episode %" PRIu64 ")\n",
                    open, atomic_fetch_add(&srv->waited, 1) + 1);
        return;
    }
    /* Before libmicrohttpd closes the descriptor (deadline.h). */
    deadline_unwatch(srv->deadline, *socket_context);
    *socket_context = NULL;
    acceptor_release(srv->acceptor);
    open = atomic_fetch_sub(&srv->connections, 1) - 1;
    if (open <= limit - limit / 4 && atomic_load(&srv->at_bound) &&
        atomic_exchange(&srv->at_bound, false))
        fprintf(stderr, "ddbemu: %u connections open, below the --max-connections bound again\n",
                open);
}

/* libmicrohttpd's own messages (a client that closed mid-request, ...):
 * LOG_LINES_PER_SECOND at most, so that a flood of such clients does not
 * become a flood of the log; the number left out is said with the next one. */
__attribute__((format(printf, 2, 0))) static void on_library_message(void *cls, const char *fmt,
                                                                     va_list ap)
{
    struct server *srv = cls;
    int_fast64_t now = (int_fast64_t) time(NULL);
    int_fast64_t last = atomic_load(&srv->log_second);
    uint64_t dropped;

    if (now != last && atomic_compare_exchange_strong(&srv->log_second, &last, now))
        atomic_store(&srv->log_lines, 0);
    if (atomic_fetch_add(&srv->log_lines, 1) >= LOG_LINES_PER_SECOND) {
        atomic_fetch_add(&srv->log_dropped, 1);
        return;
    }
    dropped = atomic_exchange(&srv->log_dropped, 0);
    if (dropped) fprintf(stderr, "ddbemu: (%" PRIu64 " more such messages not shown)\n", dropped);
    vfprintf(stderr, fmt, ap);
}

/* ---- lifecycle ---- */

void server_config_init(struct server_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->max_connections = SERVER_DEFAULT_MAX_CONNECTIONS;
    cfg->max_body_memory = SERVER_DEFAULT_MAX_BODY_MEMORY;
    cfg->idle_timeout_s = SERVER_DEFAULT_IDLE_TIMEOUT_S;
    cfg->request_timeout_s = SERVER_DEFAULT_REQUEST_TIMEOUT_S;
}

/* The acceptor's hand-over (acceptor.h): libmicrohttpd picks the worker by
 * the descriptor, the next one with room after it. It closes the descriptor
 * when it cannot take it. Taken, the connection gives its slot back in
 * on_connection's close; a connection libmicrohttpd drops before it starts
 * (no memory for its pool) would keep its slot, but ddbemu stops on running
 * out of memory anyway (alloc.h). */
static bool hand_connection(void *arg, int fd, const struct sockaddr *peer, socklen_t peer_len)
{
    struct server *srv = arg;

    return MHD_add_connection(srv->daemon, fd, peer, peer_len) == MHD_YES;
}

static unsigned default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    return n > 0 ? (unsigned) n : 2;
}

struct server *server_start(const struct server_config *config, const char **error)
{
    struct server *srv = xcalloc(1, sizeof *srv);
    struct addrinfo hints, *res = NULL;
    char port[8];
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_USE_ITC |
                     MHD_ALLOW_SUSPEND_RESUME;
    unsigned threads = config->threads ? config->threads : default_threads();
    unsigned long mhd_limit;
    int gai;

    assert(config->handler && config->max_body_bytes > 0);
    assert(config->max_connections > 0 && config->idle_timeout_s > 0);
    assert(config->request_timeout_s > 0 && config->max_body_memory > config->max_body_bytes);
    pthread_once(&spare_once, spare_key_create);
    srv->config = *config;
    /* A worker beyond one per connection would never have one. */
    if (threads > config->max_connections) threads = config->max_connections;
    srv->host = xstrdup(config->host);
    srv->config.host = srv->host;

    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    snprintf(port, sizeof port, "%u", (unsigned) config->port);
    gai = getaddrinfo(config->host, port, &hints, &res);
    if (gai != 0 || !res) {
        *error = gai ? gai_strerror(gai) : "cannot resolve the host";
        goto fail;
    }
    srv->acceptor = acceptor_open(res->ai_addr, res->ai_addrlen, config->max_connections, error);
    freeaddrinfo(res);
    if (!srv->acceptor) goto fail;

    /* Not epoll: see the top of this file. The acceptor listens. */
    flags |= MHD_USE_POLL | MHD_USE_NO_LISTEN_SOCKET;
    /* The acceptor holds the bound; libmicrohttpd splits its own limit among
     * the workers, so each may hold all of them (none refuses a connection
     * the acceptor admitted, whichever worker it lands on). */
    mhd_limit = (unsigned long) config->max_connections * threads;
    if (mhd_limit > UINT_MAX) mhd_limit = UINT_MAX;

    srv->deadline = deadline_start(config->request_timeout_s);
    srv->delay = delay_start(resume_connection);
    /* The logger first: libmicrohttpd uses its own for options before it. */
    srv->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, srv, MHD_OPTION_EXTERNAL_LOGGER, on_library_message, srv,
        MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, srv, MHD_OPTION_URI_LOG_CALLBACK,
        on_request_line, srv, MHD_OPTION_CONNECTION_LIMIT, (unsigned) mhd_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, config->idle_timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t) CONNECTION_MEMORY_BYTES, MHD_OPTION_END);
    if (!srv->daemon) {
        *error = "cannot start the HTTP workers";
        goto fail;
    }
    acceptor_start(srv->acceptor, hand_connection, srv);
    return srv;
fail:
    acceptor_free(srv->acceptor);
    delay_free(srv->delay);
    deadline_free(srv->deadline);
    free(srv->host);
    free(srv);
    return NULL;
}

uint16_t server_port(const struct server *server)
{
    return acceptor_port(server->acceptor);
}

/*
 * New requests are refused from now on; the ones being handled finish
 * before libmicrohttpd stops - waiting at most 30 s.
 */
void server_stop(struct server *server)
{
    if (!server) return;
    atomic_store(&server->stopping, true);
    acceptor_stop(server->acceptor);
    for (int waited = 0; atomic_load(&server->active) > 0 && waited < 30000; waited++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    /* No handler runs now, so nothing more is held: held answers are
     * resumed at once, before libmicrohttpd frees their connections. */
    delay_free(server->delay);
    MHD_stop_daemon(server->daemon);
    acceptor_free(server->acceptor); /* after the workers: their closes release slots */
    deadline_free(server->deadline);
    free(server->host);
    free(server);
}
