/*
 * fuzz_sigv4.c - libFuzzer target for the SigV4 signature information.
 *
 * Input: lines. The first is the Authorization header ("-" alone: none), the
 * second the X-Amz-Date header ("-": none), every further line a query-string
 * argument "name=value" (presigned requests: X-Amz-Algorithm, X-Amz-Credential,
 * ...). The request goes through api_handle, whose front parses the signature
 * information and derives the namespace from the credential, to one stub
 * operation that echoes the namespace: no engine, so millions of headers a
 * minute. Every answer must be 200 (signature information accepted) or 400
 * with a __type; nothing may crash, trip a sanitizer or leak. When signatures
 * are verified (--credentials), a context with credentials joins this one.
 * Built only with -DDDB_FUZZ=ON and clang (see api/CMakeLists.txt).
 */
#include "api/http/dispatch.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_QUERY 8

static const struct field echo_fields[] = {{0}};

static int op_echo(struct api_request *rq)
{
    rq->reply =
        json_pack("{s:s,s:s}", "Namespace", rq->scope.namespace_id, "Region", rq->scope.region);
    return 0;
}

static const struct operation echo_ops[] = {
    {"DynamoDB_20120810.ListTables", op_echo, echo_fields},
    {NULL, NULL, NULL},
};

/* The next line of *p (NUL-terminated in place), or NULL at the end. */
static char *next_line(char **p, char *end)
{
    char *line = *p, *nl;

    if (line >= end) return NULL;
    nl = memchr(line, '\n', (size_t) (end - line));
    if (nl) {
        *nl = '\0';
        *p = nl + 1;
    } else {
        *p = end;
    }
    return line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct api_config configs[] = {{.shared_db = false}, {.shared_db = true}};
    struct http_field headers[4] = {
        {"Content-Type", "application/x-amz-json-1.0"},
        {"X-Amz-Target", "DynamoDB_20120810.ListTables"},
    };
    struct http_field query[MAX_QUERY];
    struct http_request req = {.method = "POST", .path = "/", .body = "{}", .body_len = 2};
    size_t nh = 2, nq = 0;
    char *text = malloc(size + 1), *p = text, *end = text + size, *line;

    memcpy(text, data, size);
    text[size] = '\0';
    if ((line = next_line(&p, end)) != NULL && strcmp(line, "-") != 0) {
        headers[nh].name = "Authorization";
        headers[nh++].value = line;
    }
    if ((line = next_line(&p, end)) != NULL && strcmp(line, "-") != 0) {
        headers[nh].name = "X-Amz-Date";
        headers[nh++].value = line;
    }
    while (nq < MAX_QUERY && (line = next_line(&p, end)) != NULL) {
        char *eq = strchr(line, '=');
        if (eq) *eq = '\0';
        query[nq].name = line;
        query[nq++].value = eq ? eq + 1 : NULL;
    }
    req.headers = headers;
    req.header_count = nh;
    req.query = query;
    req.query_count = nq;
    for (size_t i = 0; i < sizeof configs / sizeof *configs; i++) {
        struct api_context ctx = {.config = &configs[i], .operations = echo_ops};
        struct http_response resp;
        memset(&resp, 0, sizeof resp);
        api_handle(&ctx, &req, &resp);
        if (resp.status != 200 && resp.status != 400) __builtin_trap();
        if (resp.status == 400 && (!resp.body || !strstr(resp.body, "\"__type\"")))
            __builtin_trap();
        http_response_clear(&resp);
    }
    free(text);
    return 0;
}
