/*
 * http_client.h - the benchmark's minimal HTTP/1.1 client: connecting to a
 * loopback server, writing a DynamoDB request as an SDK does (signed-looking
 * headers), and parsing answers (Content-Length or chunked).
 *
 * Nothing here knows the workloads (workload.h) or the load loop (loadgen.c).
 * All functions are reentrant.
 */
#ifndef DDB_BENCH_HTTP_CLIENT_H
#define DDB_BENCH_HTTP_CLIENT_H

#include "storage/base/text.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes read per read() call. */
#define HTTP_READ_CHUNK 65536

/* Where requests go: an IPv4 address and a port. */
struct http_target {
    char host[64];
    uint16_t port;
};

/* A parsed answer; body points into the caller's buffer. */
struct http_response {
    int status;
    size_t total_len; /* bytes of the whole response, headers included */
    const char *body; /* raw, chunked or not */
    size_t body_len;
    bool close; /* Connection: close */
};

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t now_ns(void);
/* Prints "loadgen: what: strerror(errno)" and exits 1. */
void die(const char *what);

/* A connected, TCP_NODELAY socket to t, or -1 (errno set); exits 2 when the
 * host is not an IPv4 address. */
int http_connect(const struct http_target *t);
/* out becomes a whole POST: headers as an SDK sends them, then body. */
void http_build_request(struct text_buf *out, const struct http_target *t, const char *target,
                        const char *body, size_t body_len);
/* The first occurrence of needle in hay[0..hay_len), or NULL. */
const char *http_find_bytes(const char *hay, size_t hay_len, const char *needle);
/* 1: a whole response is in data; 0: more bytes are needed; -1: not HTTP. */
int http_parse_response(const char *data, size_t len, struct http_response *r);
/* Sends out on a new connection and reads the whole answer into in (r points
 * into it). -1 on a socket failure. */
int http_exchange(const struct http_target *t, const struct text_buf *out, struct text_buf *in,
                  struct http_response *r);
/* Whether GET / answers 200 now. */
bool http_get_root_ok(const struct http_target *t);
/* Finds a free loopback TCP port; 0 on failure. */
uint16_t http_free_port(void);

#endif
