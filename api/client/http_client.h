/*
 * http_client.h - a minimal blocking HTTP/1.1 client for the DynamoDB JSON
 * protocol: connecting to an endpoint, writing a request as an SDK does
 * (signed-looking headers), and parsing answers (Content-Length or chunked).
 *
 * The benchmark's load generator (bench/) and the subcommands of the ddbemu
 * binary (export and import in emulator/transfer_cli.c, insight in
 * emulator/insight_cmd.c) talk to a running ddbemu through it. It knows no DynamoDB semantics: a
 * request is a target
 * ("DynamoDB_20120810.Scan") and a body.
 *
 * Requests are signed as an SDK signs them: X-Amz-Date and an Authorization
 * header with an AWS4-HMAC-SHA256 credential scope, SignedHeaders and a
 * Signature. Given a secret key (http_target.secret_key), the signature is
 * real (api/sigv4/sigv4.h, the rules the server verifies with), so the
 * clients work against a ddbemu started with --credentials, control paths
 * included; without one, ddbemu only checks the signature's shape (and
 * takes the access key and region as the namespace), so a fixed string
 * stands in for it.
 *
 * All functions are reentrant; nothing is kept between calls.
 */
#ifndef DDB_API_CLIENT_HTTP_CLIENT_H
#define DDB_API_CLIENT_HTTP_CLIENT_H

#include "storage/base/text.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes read per read() call. */
#define HTTP_READ_CHUNK 65536

/* Where requests go, and as whom. */
struct http_target {
    char host[256]; /* a host name, an IPv4 address or an IPv6 address (no brackets) */
    uint16_t port;
    char access_key[128];     /* the Credential's access key; "" for the default */
    char region[64];          /* the credential scope's region; "" for us-east-1 */
    char secret_key[128];     /* "" : a stand-in signature (see above) */
    char session_token[2048]; /* sent as X-Amz-Security-Token and signed; "" for none */
    int timeout_s;            /* > 0: connect, each send and each read wait at most this long */
};

/* A parsed answer; body points into the caller's buffer. */
struct http_response {
    int status;
    size_t total_len; /* bytes of the whole response, headers included */
    const char *body; /* raw, chunked or not */
    size_t body_len;
    bool chunked; /* body is in chunked transfer coding */
    bool close;   /* Connection: close */
};

/* Fills t's host and port from "http://HOST[:PORT][/]" (port 80 when absent).
 * -1 for anything else (https:// included: TLS is not spoken here). */
int http_parse_url(const char *url, struct http_target *t);

/* Signs for real from the environment, as SDKs do: when t has no secret key
 * and AWS_SECRET_ACCESS_KEY is set, takes it (with AWS_SESSION_TOKEN), and
 * AWS_ACCESS_KEY_ID as the access key when t has none. Returns -1 when a
 * value does not fit t. */
int http_target_sign_from_env(struct http_target *t);

/* A connected, TCP_NODELAY socket to t, or -1 (errno set, or EHOSTUNREACH
 * when the name does not resolve). */
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
/* One request on a new connection: *status, and the body (de-chunked,
 * NUL-terminated) into answer, which the caller owns. -1 (errno set) when
 * there is no answer. */
int http_call(const struct http_target *t, const char *target, const char *body, size_t body_len,
              int *status, struct text_buf *answer);
/* One plain request on a new connection (the control interface's
 * /ddbemu/... paths): method and path, body as application/json (NULL:
 * none); *status and the body as http_call gives them. */
int http_fetch(const struct http_target *t, const char *method, const char *path, const char *body,
               int *status, struct text_buf *answer);
/* Whether GET / answers 200 now. */
bool http_get_root_ok(const struct http_target *t);
/* Finds a free loopback TCP port; 0 on failure. */
uint16_t http_free_port(void);

#endif
