/*
 * ui.c - GET /ddbemu/ui[/<file>]; see ui.h. The files and
 * their types are api/console/'s; this file maps paths to them and answers.
 */
#include "api/control/ui.h"

#include "api/console/console.h"
#include "api/http/response.h"
#include "storage/base/alloc.h"

#include <string.h>

#define CONSOLE_PREFIX "ui"

static void reply_text(struct http_response *resp, int status, const char *text)
{
    size_t len = strlen(text);
    char *body = xmalloc(len + 1);

    memcpy(body, text, len + 1);
    response_set_body(resp, status, "text/plain; charset=utf-8", body, len);
}

void console_http_handle(const struct http_request *req, const char *what,
                         struct http_response *resp)
{
    const char *name = what + strlen(CONSOLE_PREFIX);
    const struct console_file *file;
    char *body;

    if (strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0) {
        reply_text(resp, 405, "the console is read with GET\n");
        return;
    }
    if (*name == '/') name++;
    file = console_file_find(name);
    if (!file) {
        reply_text(resp, 404, "no such console file\n");
        return;
    }
    body = xmalloc(file->len + 1);
    memcpy(body, file->data, file->len + 1); /* with the generator's trailing NUL */
    response_set_body(resp, 200, console_content_type(file->name), body, file->len);
    /* Served from memory and changed only by a new binary: the browser asks
     * again each time (cheap on loopback), so an upgrade is never stale. */
    http_response_add_header(resp, "Cache-Control", "no-cache");
    http_response_add_header(resp, "X-Content-Type-Options", "nosniff");
}
