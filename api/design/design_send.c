/*
 * design_send.c - what every format reader of a design document uses to
 * act on it: sending one request through the caller's target, writing items
 * in BatchWriteItem requests of 25, and recording the load's first error
 * (design_internal.h).
 *
 * Below design.c and the readers (workbench.c, cloudformation.c), which all
 * call it, so that design.c can call the readers without a circle.
 */
#include "api/design/design_internal.h"
#include "storage/base/limits.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int design_fail(struct design_ctx *c, const char *fmt, ...)
{
    va_list ap;
    char buf[2048];

    if (c->error) return -1;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->error = malloc(strlen(c->name) + strlen(buf) + 3);
    if (c->error) sprintf(c->error, "%s: %s", c->name, buf);
    return -1;
}

int design_send(struct design_ctx *c, const char *what, const char *target, const json_t *body,
                json_t **answer)
{
    char *text = json_dumps(body, JSON_COMPACT), *reply = NULL;
    char full[128];
    json_t *parsed;
    int status;

    if (answer) *answer = NULL;
    snprintf(full, sizeof full, "DynamoDB_20120810.%s", target);
    status =
        c->to->call(c->to->arg, c->to->access_key, c->to->region, full, text ? text : "{}", &reply);
    free(text);
    parsed = reply ? json_loads(reply, 0, NULL) : NULL;
    free(reply);
    if (status != 200) {
        const char *type = json_string_value(json_object_get(parsed, "__type"));
        const char *message = json_string_value(json_object_get(parsed, "message"));
        const char *hash = type ? strchr(type, '#') : NULL;
        if (!message) message = json_string_value(json_object_get(parsed, "Message"));
        design_fail(c, "%s: %s: %s", what,
                    hash   ? hash + 1
                    : type ? type
                           : "error",
                    message ? message : "(no message)");
        json_decref(parsed);
        return -1;
    }
    if (answer)
        *answer = parsed;
    else
        json_decref(parsed);
    return 0;
}

int design_put_items(struct design_ctx *c, const char *what, const char *table, const json_t *items)
{
    size_t n = json_array_size(items);

    for (size_t first = 0; first < n; first += DDB_MAX_BATCH_WRITE_ITEMS) {
        json_t *body = json_object(), *requests = json_array(), *answer;
        json_t *unprocessed;
        int rc;
        for (size_t i = first; i < n && i < first + DDB_MAX_BATCH_WRITE_ITEMS; i++) {
            json_t *item = json_array_get(items, i);
            if (!json_is_object(item)) {
                json_decref(requests);
                json_decref(body);
                return design_fail(c, "%s: item %zu is not an object of attribute values", what, i);
            }
            json_array_append_new(requests, json_pack("{s:{s:O}}", "PutRequest", "Item", item));
        }
        json_object_set_new(body, "RequestItems", json_pack("{s:o}", table, requests));
        rc = design_send(c, what, "BatchWriteItem", body, &answer);
        json_decref(body);
        if (rc != 0) return -1;
        unprocessed = json_object_get(answer, "UnprocessedItems");
        rc = json_object_size(unprocessed) ? design_fail(c, "%s: items were not processed", what)
                                           : 0;
        json_decref(answer);
        if (rc != 0) return -1;
        c->summary->items +=
            n - first < DDB_MAX_BATCH_WRITE_ITEMS ? n - first : DDB_MAX_BATCH_WRITE_ITEMS;
    }
    return 0;
}
