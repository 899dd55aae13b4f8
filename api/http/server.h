/*
 * server.h - the HTTP server, and the plain request/response it passes on.
 *
 * server.c wraps libmicrohttpd: it accepts connections on a thread pool
 * (HTTP/1.1 keep-alive), accumulates each request body up to a hard cap,
 * and hands a struct http_request to a handler function, which fills a
 * struct http_response. The structs carry no libmicrohttpd types, so the
 * handler (dispatch.c's api_handle) is unit-tested without sockets.
 * Nothing here knows DynamoDB: the protocol facts the server applies come
 * from its caller, in struct server_config - the body size cap, answered
 * with 413 before the body is read when Content-Length allows, and as soon
 * as the cap is passed otherwise; the bounds of the request line and of the
 * headers, answered with 400 before the body is read; the Server header.
 */
#ifndef DDB_API_SERVER_H
#define DDB_API_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One header or query argument. Header names compare case-insensitively. */
struct http_field {
    const char *name;
    const char *value; /* a query argument without '=' has NULL */
};

/* A request as the handler sees it; everything is borrowed for the call. */
struct http_request {
    const char *method; /* "POST", "GET", ... */
    const char *path;   /* the path without the query string */
    const struct http_field *headers;
    size_t header_count;
    const struct http_field *query; /* decoded query-string arguments */
    size_t query_count;
    const char *body; /* body_len bytes, NUL-terminated for convenience */
    size_t body_len;
};

#define HTTP_MAX_RESPONSE_HEADERS 12

/* A response the handler fills; the server sends it and frees it with http_response_clear. */
struct http_response {
    int status;
    char *body; /* owned (malloc); may be NULL for an empty body */
    size_t body_len;
    struct {
        char *name;  /* owned: one block with the value (http_response_add_header) */
        char *value; /* inside name's block: never freed on its own */
    } headers[HTTP_MAX_RESPONSE_HEADERS];
    size_t header_count;
    /* Set by a fault (api/faults/faults.h) after the request has done its work:
     * the answer is held this long (real time) without holding a worker
     * thread, or the connection is reset instead of answered. */
    unsigned delay_ms;
    bool reset_connection;
};

/* The value of header name (case-insensitive) in req, or NULL. */
const char *http_request_header(const struct http_request *req, const char *name);
/* Whether query argument name is present, and its value (NULL when it has no '='). */
bool http_request_query(const struct http_request *req, const char *name, const char **value);

/* Adds a header to resp (copies both strings). Asserts there is room. */
void http_response_add_header(struct http_response *resp, const char *name, const char *value);
/* Sets header name to value: replaces the value of an existing header of that
 * name (case-insensitive), else adds it. */
void http_response_set_header(struct http_response *resp, const char *name, const char *value);
/* Sets the body (takes ownership of body, which must come from malloc). */
void http_response_set_body(struct http_response *resp, char *body, size_t len);
/* Frees the body and headers; leaves resp zeroed. */
void http_response_clear(struct http_response *resp);

/* The handler called for every request, on one of the server's threads, concurrently. */
typedef void http_handler_fn(void *arg, const struct http_request *req, struct http_response *resp);

/* The bounds' defaults (README "Connections and floods"). 1,000 connections
 * of a 32 KiB header pool each, and 256 MiB of bodies (sixteen of DynamoDB's
 * largest requests at once), keep a flood to about 290 MiB. */
#define SERVER_DEFAULT_MAX_CONNECTIONS   1000
#define SERVER_DEFAULT_MAX_BODY_MEMORY   ((size_t) 256 * 1024 * 1024)
#define SERVER_DEFAULT_IDLE_TIMEOUT_S    60
#define SERVER_DEFAULT_REQUEST_TIMEOUT_S 60

struct server_config {
    const char *host;      /* address or name to bind, e.g. "127.0.0.1" */
    uint16_t port;         /* 0: any free port */
    unsigned threads;      /* worker threads; 0: one per CPU */
    size_t max_body_bytes; /* larger bodies are refused with 413 */
    /* A longer request line, or headers longer all together, are refused with 400 before the
     * body is read (0: no bound but the per-connection memory, server.c). */
    size_t max_request_line_bytes;
    size_t max_header_bytes;
    /* Bounds (server.c says what happens at each; all must be nonzero). */
    unsigned max_connections;   /* open at once; more wait in the listen backlog */
    size_t max_body_memory;     /* request bodies buffered at once, all connections: 503 past it */
    unsigned idle_timeout_s;    /* a connection silent this long is closed */
    unsigned request_timeout_s; /* a request not whole this long after its first byte: closed */
    const char *server_name;    /* the Server header of every answer; NULL: none. Borrowed */
    http_handler_fn *handler;
    void *handler_arg;
};

struct server;

/* Zeroes cfg and sets the bounds to their defaults. */
void server_config_init(struct server_config *cfg);

/* Binds and starts serving. Returns NULL and writes a line to *error (static
 * text or a strerror) when the address cannot be resolved or bound. */
struct server *server_start(const struct server_config *config, const char **error);
/* The port actually bound (useful with port 0). */
uint16_t server_port(const struct server *server);
/* Stops accepting, waits for in-flight requests, frees everything. NULL is a no-op. */
void server_stop(struct server *server);

#endif
