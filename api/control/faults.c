/*
 * faults.c (control) - /ddbemu/faults (see faults.h here): add, list,
 * remove and clear fault rules, each one call into api/faults/.
 */
#include "api/control/faults.h"

#include "api/faults/faults.h"
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

static void reply_error(struct http_response *resp, int status, const char *message)
{
    reply(resp, status, json_pack("{s:s}", "error", message));
}

static void add(struct fault_set *set, const struct http_request *req, struct http_response *resp)
{
    json_error_t jerr;
    json_t *doc = json_loadb(req->body, req->body_len, 0, &jerr);
    json_t *ids;
    char *why = NULL;

    if (!json_is_object(doc) && !json_is_array(doc)) {
        json_decref(doc);
        reply_error(resp, 400, "the body must be a rule, a list of rules or {\"faults\": [...]}");
        return;
    }
    ids = json_array();
    if (fault_set_add(set, doc, ids, &why) != 0) {
        reply_error(resp, 400, why);
        free(why);
        json_decref(ids);
    } else {
        reply(resp, 200, json_pack("{s:o}", "ids", ids));
    }
    json_decref(doc);
}

void faults_http_handle(const struct api_context *ctx, const struct http_request *req,
                        const char *what, struct http_response *resp)
{
    const char *id = strchr(what, '/');
    bool get = strcmp(req->method, "GET") == 0, post = strcmp(req->method, "POST") == 0;
    bool del = strcmp(req->method, "DELETE") == 0;

    if (!ctx->faults) {
        reply_error(resp, 404, "fault injection is not available in this server");
        return;
    }
    if (id && id[1] && del) {
        if (fault_set_remove(ctx->faults, id + 1))
            reply(resp, 200, json_pack("{s:i}", "removed", 1));
        else
            reply_error(resp, 404, "no fault rule has that id (GET /ddbemu/faults lists them)");
    } else if (id) {
        reply_error(resp, 404, "use DELETE /ddbemu/faults/<id> to remove a rule");
    } else if (get) {
        reply(resp, 200, fault_set_list(ctx->faults));
    } else if (post) {
        add(ctx->faults, req, resp);
    } else if (del) {
        reply(resp, 200, json_pack("{s:I}", "removed", (json_int_t) fault_set_clear(ctx->faults)));
    } else {
        reply_error(resp, 404, "GET, POST or DELETE /ddbemu/faults");
    }
}
