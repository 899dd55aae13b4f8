/*
 * http_fetch.h - a minimal blocking HTTP/1.1 client for ddbemu's own
 * subcommands (e.g. `ddbemu insight`), which talk to a running ddbemu's
 * control interface. One request per connection (Connection: close),
 * http:// only, bodies with Content-Length or chunked. Reentrant.
 */
#ifndef DDB_EMULATOR_HTTP_FETCH_H
#define DDB_EMULATOR_HTTP_FETCH_H

#include <stddef.h>

struct http_fetch_result {
    int status;
    char *body; /* owned (malloc), NUL-terminated */
    size_t body_len;
};

/* Sends method (GET/POST) to url + path ("http://host[:port]" with an
 * optional path of its own, to which path is appended) with body (NULL: none,
 * sent as application/json). 0 on an answer of any status; -1 with *why (a
 * static or owned-by-nobody message; print it) when there was none. */
int http_fetch(const char *method, const char *url, const char *path, const char *body,
               struct http_fetch_result *out, const char **why);
void http_fetch_result_clear(struct http_fetch_result *r);

#endif
