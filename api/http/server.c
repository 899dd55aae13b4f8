/*
 * server.c - libmicrohttpd daemon: connections, bodies, the size cap.
 *
 * One daemon with an internal polling thread per pool worker (epoll where
 * available); each worker runs the handler for the connections it owns, so
 * requests on different connections run in parallel and HTTP/1.1 keep-alive
 * comes from libmicrohttpd. Per request, a struct request_state accumulates
 * the body in a buffer that grows geometrically but never past
 * max_body_bytes: a Content-Length over the cap is refused with 413 before a
 * byte of the body is read; a chunked body that passes the cap is dropped
 * from then on (read, not stored) and answered 413 at its end, or its
 * connection closed if it goes on past twice the cap. No request can make the
 * server buffer more than the cap.
 * (AWS answers an over-16-MiB request with a bare 413, as dynalite's
 * connection tests record.) The request line and headers live in a
 * per-connection pool of CONNECTION_MEMORY_BYTES: libmicrohttpd answers a
 * longer request line 414 and longer headers 431, and closes the connection,
 * so neither can grow memory either.
 *
 * The http_request handed to the handler points into request_state; the
 * handler's http_response is converted to an MHD_Response and freed here.
 */
#include "api/http/server.h"

#include "storage/base/alloc.h"

#include <assert.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
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
    struct server_config config;
    char *host; /* owned copy of config.host */
    struct sockaddr_storage addr;
    uint16_t port;
    atomic_int held;      /* answers parked until their release */
    atomic_int active;    /* requests being handled now */
    atomic_bool stopping; /* server_stop has begun: no request is handled */
};

/* Each connection's pool for its request line, headers and read buffer. */
#define CONNECTION_MEMORY_BYTES (64 * 1024)

/* One request in flight. */
struct request_state {
    char *body;
    size_t body_len;
    size_t body_cap;
    bool refused;     /* a 413 has been queued */
    bool too_large;   /* a chunked body passed the cap: the rest is dropped */
    size_t discarded; /* bytes dropped since */
    struct http_field *headers;
    size_t header_count;
    size_t header_cap;
    struct http_field *query;
    size_t query_count;
    size_t query_cap;
    /* A held answer: the connection is suspended until release_held(). */
    bool held;
    struct http_response held_response;
    struct MHD_Connection *conn;
};

/* ---- struct http_request / http_response helpers ---- */

const char *http_request_header(const struct http_request *req, const char *name)
{
    for (size_t i = 0; i < req->header_count; i++)
        if (strcasecmp(req->headers[i].name, name) == 0) return req->headers[i].value;
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

void http_response_add_header(struct http_response *resp, const char *name, const char *value)
{
    assert(resp->header_count < HTTP_MAX_RESPONSE_HEADERS);
    resp->headers[resp->header_count].name = xstrdup(name);
    resp->headers[resp->header_count].value = xstrdup(value);
    resp->header_count++;
}

void http_response_set_header(struct http_response *resp, const char *name, const char *value)
{
    for (size_t i = 0; i < resp->header_count; i++) {
        if (strcasecmp(resp->headers[i].name, name) == 0) {
            free(resp->headers[i].value);
            resp->headers[i].value = xstrdup(value);
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
    for (size_t i = 0; i < resp->header_count; i++) {
        free(resp->headers[i].name);
        free(resp->headers[i].value);
    }
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

static enum MHD_Result queue_empty(struct MHD_Connection *conn, unsigned status)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret;

    if (!r) return MHD_NO;
    ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* Appends a chunk of body; false when it would pass the cap. */
static bool body_append(struct request_state *st, const char *data, size_t len, size_t max)
{
    if (len > max - st->body_len) return false;
    if (st->body_len + len + 1 > st->body_cap) {
        size_t cap = st->body_cap ? st->body_cap : 4096;
        while (cap < st->body_len + len + 1)
            cap *= 2;
        if (cap > max + 1) cap = max + 1;
        st->body = xrealloc(st->body, cap);
        st->body_cap = cap;
    }
    memcpy(st->body + st->body_len, data, len);
    st->body_len += len;
    st->body[st->body_len] = '\0';
    return true;
}

static enum MHD_Result send_response(struct MHD_Connection *conn, struct http_response *resp)
{
    struct MHD_Response *r;
    enum MHD_Result ret;

    if (resp->body && resp->body_len) {
        r = MHD_create_response_from_buffer(resp->body_len, resp->body, MHD_RESPMEM_MUST_FREE);
        if (r) resp->body = NULL; /* now MHD's */
    } else {
        r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    }
    if (!r) {
        http_response_clear(resp);
        return MHD_NO;
    }
    for (size_t i = 0; i < resp->header_count; i++)
        MHD_add_response_header(r, resp->headers[i].name, resp->headers[i].value);
    ret = MHD_queue_response(conn, (unsigned) (resp->status ? resp->status : 500), r);
    MHD_destroy_response(r);
    http_response_clear(resp);
    return ret;
}

/* The defer hook's release: the connection goes back into the event loop,
 * which calls on_request again to send the held answer. Any thread. */
static void release_held(void *ctx)
{
    struct request_state *st = ctx;
    MHD_resume_connection(st->conn);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    struct server *srv = cls;
    struct request_state *st = *con_cls;
    size_t max = srv->config.max_body_bytes;

    (void) version;
    if (st && st->held) {
        st->held = false;
        atomic_fetch_sub(&srv->held, 1);
        return send_response(conn, &st->held_response);
    }
    if (!st) {
        const char *cl =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        st = xcalloc(1, sizeof *st);
        *con_cls = st;
        if (cl) {
            char *end;
            errno = 0;
            unsigned long long n = strtoull(cl, &end, 10);
            if (errno == ERANGE || n > max) {
                /* Refused before reading the body. */
                st->refused = true;
                return queue_empty(conn, MHD_HTTP_CONTENT_TOO_LARGE);
            }
        }
        return MHD_YES;
    }
    if (st->refused) {
        *upload_data_size = 0; /* the 413 is already queued */
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (st->too_large) {
            /* libmicrohttpd cannot answer in the middle of an upload: the rest
             * is read and dropped (never stored), up to one more cap's worth,
             * after which the connection is simply closed. */
            st->discarded += *upload_data_size;
            *upload_data_size = 0;
            return st->discarded > max ? MHD_NO : MHD_YES;
        }
        if (!body_append(st, upload_data, *upload_data_size, max)) {
            st->too_large = true;
            st->discarded = 0;
            free(st->body);
            st->body = NULL;
            st->body_len = st->body_cap = 0;
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (st->too_large) {
        st->refused = true;
        return queue_empty(conn, MHD_HTTP_CONTENT_TOO_LARGE);
    }

    /* The whole request is here. While stopping, nothing new is done (a
     * held answer could no longer be released before the daemon stops). */
    atomic_fetch_add(&srv->active, 1);
    if (atomic_load(&srv->stopping)) {
        atomic_fetch_sub(&srv->active, 1);
        return queue_empty(conn, MHD_HTTP_SERVICE_UNAVAILABLE);
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
        if (resp.hold && srv->config.defer) {
            /* Parked first, then registered: the release may come at once,
             * from another thread, and must find the answer in place. */
            st->held_response = resp;
            st->held = true;
            st->conn = conn;
            atomic_fetch_add(&srv->held, 1);
            MHD_suspend_connection(conn);
            if (!srv->config.defer(srv->config.defer_arg, resp.hold, release_held, st))
                MHD_resume_connection(conn);
            atomic_fetch_sub(&srv->active, 1);
            return MHD_YES;
        }
        atomic_fetch_sub(&srv->active, 1);
        return send_response(conn, &resp);
    }
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct request_state *st = *con_cls;

    (void) cls;
    (void) conn;
    (void) toe;
    if (!st) return;
    if (st->held) {
        /* The client went away while its answer was held. */
        atomic_fetch_sub(&((struct server *) cls)->held, 1);
        http_response_clear(&st->held_response);
    }
    free(st->body);
    free(st->headers);
    free(st->query);
    free(st);
    *con_cls = NULL;
}

/* ---- lifecycle ---- */

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
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
                     MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC;
    unsigned threads = config->threads ? config->threads : default_threads();
    const union MHD_DaemonInfo *info;
    int gai;

    assert(config->handler && config->max_body_bytes > 0);
    srv->config = *config;
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
    memcpy(&srv->addr, res->ai_addr, res->ai_addrlen);
    if (res->ai_family == AF_INET6) flags |= MHD_USE_IPv6;
    freeaddrinfo(res);

    if (MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES)
        flags |= MHD_USE_EPOLL;
    else
        flags |= MHD_USE_POLL;

    srv->daemon = MHD_start_daemon(
        flags, config->port, NULL, NULL, on_request, srv, MHD_OPTION_SOCK_ADDR,
        (struct sockaddr *) &srv->addr, MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned) 300, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) CONNECTION_MEMORY_BYTES,
        MHD_OPTION_END);
    if (!srv->daemon) {
        *error = "cannot listen on that address (in use, or not this machine's?)";
        goto fail;
    }
    info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
    srv->port = info ? info->port : config->port;
    return srv;
fail:
    free(srv->host);
    free(srv);
    return NULL;
}

uint16_t server_port(const struct server *server)
{
    return server->port;
}

/*
 * libmicrohttpd must not be stopped with a connection parked. New requests
 * are refused from now on; the ones being handled finish, and the held
 * answers are released (their commits are under way) and sent, before it
 * stops - waiting at most 30 s.
 */
void server_stop(struct server *server)
{
    MHD_socket listener;

    if (!server) return;
    atomic_store(&server->stopping, true);
    listener = MHD_quiesce_daemon(server->daemon);
    for (int waited = 0;
         (atomic_load(&server->held) > 0 || atomic_load(&server->active) > 0) && waited < 30000;
         waited++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    MHD_stop_daemon(server->daemon);
    if (listener != MHD_INVALID_SOCKET) close(listener); /* quiesced: ours to close */
    free(server->host);
    free(server);
}
