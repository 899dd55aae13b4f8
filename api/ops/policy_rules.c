/*
 * policy_rules.c - what makes a resource-based policy document acceptable.
 *
 * DynamoDB runs IAM's policy grammar over the document; ddbemu checks its
 * structure only (it never evaluates a policy, docs/differences.md). The texts
 * are AWS's, from the ack-api-quirks lab's catalogue (DDB-TABLE-442, 457,
 * live service 2026-10): "Maximum policy size of 20480 bytes exceeded",
 * "Invalid policy document: This policy contains invalid Json", "... This
 * text appears not to be a policy" (the JSON null), "... Could not parse the
 * policy: Statement is empty!", "... Missing required field Effect" /
 * "Resource", "... The Statement Ids in the policy are not unique". A
 * document without Statement and a statement without Action are not recorded;
 * they get the "Missing required field" form.
 */
#include "api/ops/policy_rules.h"

#include "api/ops/table_rules.h"
#include "storage/base/limits.h"

#include <jansson.h>
#include <stdbool.h>
#include <string.h>

#define INVALID_DOCUMENT TABLE_RULES_INVALID "Invalid policy document: "

static int invalid(struct ddb_error *err, const char *why)
{
    return ddb_error_set(err, DDB_VALIDATION, INVALID_DOCUMENT "%s", why);
}

static bool has(const json_t *statement, const char *a, const char *b)
{
    return json_object_get(statement, a) || (b && json_object_get(statement, b));
}

static int check_statement(const json_t *s, struct ddb_error *err)
{
    if (!json_is_object(s)) return invalid(err, "This policy contains invalid Json");
    if (!has(s, "Effect", NULL)) return invalid(err, "Missing required field Effect");
    if (!has(s, "Action", "NotAction")) return invalid(err, "Missing required field Action");
    if (!has(s, "Resource", "NotResource")) return invalid(err, "Missing required field Resource");
    return 0;
}

int policy_rules_check(const char *doc, size_t len, struct ddb_error *err)
{
    json_t *root, *statements;
    json_error_t jerr;
    size_t i, n;
    int rc = -1;

    if (len > DDB_MAX_POLICY_BYTES)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID "Maximum policy size of %d bytes exceeded",
                             DDB_MAX_POLICY_BYTES);
    root = json_loadb(doc, len, JSON_DECODE_ANY, &jerr);
    if (!root || json_is_array(root) || json_is_string(root) || json_is_number(root) ||
        json_is_boolean(root)) {
        rc = invalid(err, "This policy contains invalid Json");
        goto out;
    }
    if (json_is_null(root)) {
        rc = invalid(err, "This text appears not to be a policy");
        goto out;
    }
    statements = json_object_get(root, "Statement");
    if (!statements) {
        rc = invalid(err, "Missing required field Statement");
        goto out;
    }
    n = json_is_array(statements) ? json_array_size(statements) : 1;
    if (n == 0) {
        rc = invalid(err, "Could not parse the policy: Statement is empty!");
        goto out;
    }
    for (i = 0; i < n; i++) {
        json_t *s = json_is_array(statements) ? json_array_get(statements, i) : statements;
        const char *sid = json_string_value(json_object_get(s, "Sid"));
        if (check_statement(s, err) != 0) goto out;
        for (size_t j = 0; sid && j < i; j++) {
            const char *other =
                json_string_value(json_object_get(json_array_get(statements, j), "Sid"));
            if (other && strcmp(sid, other) == 0) {
                rc = invalid(err, "The Statement Ids in the policy are not unique");
                goto out;
            }
        }
    }
    rc = 0;
out:
    json_decref(root);
    return rc;
}
