/*
 * init.c - POST /ddbemu/init; see init.h. The loading is
 * api/design/'s; this file reads the request and writes the answer.
 */
#include "api/control/init.h"

#include "api/http/response.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void reply(struct http_response *resp, int status, json_t *body)
{
    char *text = json_dumps(body, JSON_COMPACT);
    response_set_body(resp, status, RESPONSE_CONTENT_TYPE_JSON, text, text ? strlen(text) : 0);
    json_decref(body);
}

void design_http_handle(const struct http_request *req, design_call_fn *call, void *arg,
                        struct http_response *resp)
{
    const char *key = NULL, *region = NULL, *name = NULL;
    struct design_target to;
    struct design_summary sum;
    char *error = NULL;

    if (strcmp(req->method, "POST") != 0) {
        reply(resp, 404, json_pack("{s:s}", "error", "POST the design document to /ddbemu/init"));
        return;
    }
    http_request_query(req, "access_key", &key);
    http_request_query(req, "region", &region);
    http_request_query(req, "name", &name);
    to.access_key = key && key[0] ? key : DESIGN_DEFAULT_ACCESS_KEY;
    to.region = region && region[0] ? region : DESIGN_DEFAULT_REGION;
    to.call = call;
    to.arg = arg;
    if (design_load(name && name[0] ? name : "request body", req->body, req->body_len, &to, &sum,
                    &error) != 0) {
        reply(resp, 400,
              json_pack("{s:s,s:I,s:I}", "error", error ? error : "cannot load the design",
                        "tables_created", (json_int_t) sum.tables, "items_written",
                        (json_int_t) sum.items));
        free(error);
        return;
    }
    reply(resp, 200,
          json_pack("{s:I,s:I}", "tables_created", (json_int_t) sum.tables, "items_written",
                    (json_int_t) sum.items));
}
