/*
 * cors.c - the CORS headers of every answer and the preflight (see cors.h).
 */
#include "api/http/cors.h"

#include <string.h>

/* Whether origin is one of the comma-separated allowed origins (exact match;
 * blanks around the commas are ignored). */
static bool origin_listed(const char *allowed, const char *origin)
{
    size_t origin_len = strlen(origin);
    const char *p = allowed;

    while (*p) {
        size_t len = strcspn(p, ",");
        const char *item = p;
        size_t item_len = len;
        while (item_len && (*item == ' ' || *item == '\t')) {
            item++;
            item_len--;
        }
        while (item_len && (item[item_len - 1] == ' ' || item[item_len - 1] == '\t'))
            item_len--;
        if (item_len == origin_len && memcmp(item, origin, origin_len) == 0) return true;
        if (item_len == 1 && *item == '*') return true;
        p += len;
        if (*p == ',') p++;
    }
    return false;
}

bool cors_apply(const char *allowed, const struct http_request *req, struct http_response *resp)
{
    const char *origin = http_request_header(req, "Origin");
    bool everyone = !allowed || strcmp(allowed, "*") == 0;

    if (!origin) return false;
    if (everyone) {
        http_response_add_header(resp, "Access-Control-Allow-Origin", "*");
    } else {
        if (!origin_listed(allowed, origin)) return false;
        http_response_add_header(resp, "Access-Control-Allow-Origin", origin);
        http_response_add_header(resp, "Vary", "Origin");
    }
    http_response_add_header(resp, "Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
    if (strcmp(req->method, "OPTIONS") != 0) return false;

    const char *h = http_request_header(req, "Access-Control-Request-Headers");
    const char *m = http_request_header(req, "Access-Control-Request-Method");
    if (h) http_response_add_header(resp, "Access-Control-Allow-Headers", h);
    if (m) http_response_add_header(resp, "Access-Control-Allow-Methods", m);
    http_response_add_header(resp, "Access-Control-Max-Age", CORS_MAX_AGE_SECONDS);
    resp->status = 200;
    return true;
}
