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
