/*
 * design.c - loading a design document; see design.h.
 *
 * The format is told by the document's content, not its file name: a JSON
 * object with "DataModel" is a NoSQL Workbench model (workbench.c), one with
 * "Resources" a CloudFormation or SAM template (cloudformation.c), one with
 * "TableName" a CreateTable request (sent as it is); text that is not JSON is
 * read as YAML, which only templates use.
 */
#include "api/design/design_internal.h"
#include "api/design/yaml_json.h"

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

    for (size_t first = 0; first < n; first += 25) {
        json_t *body = json_object(), *requests = json_array(), *answer;
        json_t *unprocessed;
        int rc;
        for (size_t i = first; i < n && i < first + 25; i++) {
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
        c->summary->items += (n - first < 25 ? n - first : 25);
    }
    return 0;
}

/* A CreateTable request as a file: sent as it is. */
static int create_table_request(struct design_ctx *c, const json_t *request)
{
    char what[600];
    const char *table = json_string_value(json_object_get(request, "TableName"));

    snprintf(what, sizeof what, "table %s: CreateTable", table ? table : "?");
    if (design_send(c, what, "CreateTable", request, NULL) != 0) return -1;
    c->summary->tables++;
    return 0;
}

int design_load(const char *name, const char *text, size_t len, const struct design_target *to,
                struct design_summary *out, char **error)
{
    struct design_ctx c = {.name = name, .to = to, .summary = out, .error = NULL};
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, 0, &jerr);
    int rc;

    memset(out, 0, sizeof *out);
    *error = NULL;
    if (!doc) {
        /* Not JSON: a YAML template, or a broken JSON file (say why as JSON). */
        size_t i = 0, line = 0;
        char why[256];
        while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
            i++;
        if (i < len && (text[i] == '{' || text[i] == '[')) {
            design_fail(&c, "line %d: not valid JSON: %s", jerr.line, jerr.text);
            *error = c.error;
            return -1;
        }
        doc = yaml_to_json(text, len, &line, why, sizeof why);
        if (!doc) {
            design_fail(&c, "line %zu: not valid JSON or YAML: %s", line, why);
            *error = c.error;
            return -1;
        }
    }
    if (!json_is_object(doc))
        rc = design_fail(&c, "the document must be an object (a NoSQL Workbench model, a "
                             "CloudFormation template or a CreateTable request)");
    else if (json_object_get(doc, "DataModel"))
        rc = design_workbench(&c, doc);
    else if (json_object_get(doc, "Resources"))
        rc = design_cloudformation(&c, doc);
    else if (json_object_get(doc, "TableName"))
        rc = create_table_request(&c, doc);
    else
        rc = design_fail(&c, "not a NoSQL Workbench model (no DataModel), a CloudFormation "
                             "template (no Resources) or a CreateTable request (no TableName)");
    json_decref(doc);
    *error = c.error;
    return rc;
}
