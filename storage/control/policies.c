/*
 * policies.c - PutResourcePolicy, GetResourcePolicy and DeleteResourcePolicy:
 * the resource-based policy of a table or of its stream.
 *
 * A policy is kept as the client sent it, with a revision id that is the
 * engine clock's millisecond timestamp as text (AWS's are timestamps too, and
 * compare as such: moto's AWS-verified test_dynamodb_resource_policy.py),
 * strictly increasing per resource. Putting the same document again is a
 * no-op that keeps the revision. ExpectedRevisionId guards each change;
 * "NO_POLICY" expects none. The texts of PolicyNotFoundException and of the
 * not-found errors are AWS's, as recorded by that test and by the
 * ack-api-quirks lab (DDB-TABLE-070, 446). Policies are kept, never enforced
 * (docs/differences.md); the document's rules are api/'s.
 */
#include "storage/base/alloc.h"
#include "storage/control/settings.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POLICY_NOT_FOUND "Resource-based policy not found for the provided ResourceArn: "

/* The table and the policy slot the target names; an error when either is
 * missing. A stream re-enabled since its policy was set has a new label: the
 * old stream's policy is gone (for_change: the slot is emptied and given to
 * the current stream, which needs the lock exclusively; otherwise *p is an
 * empty slot). */
static int find_policy(struct db *db, const struct db_scope *scope,
                       const struct policy_target *target, bool for_change, struct table **t,
                       struct resource_policy **p, struct ddb_error *err)
{
    static const struct resource_policy none = {0};

    *t = db_find_table(db, scope, target->table_name);
    if (!*t) return ddb_error_table_not_found(err, target->table_name);
    if (!target->stream_label) {
        *p = &(*t)->meta.policy;
        return 0;
    }
    if (!(*t)->latest_stream_label || strcmp((*t)->latest_stream_label, target->stream_label))
        return ddb_error_table_stream_not_found(err, target->stream_label, target->table_name);
    if (!(*t)->meta.stream_policy_label ||
        strcmp((*t)->meta.stream_policy_label, target->stream_label)) {
        if (!for_change) {
            *p = (struct resource_policy *) &none; /* read only */
            return 0;
        }
        resource_policy_clear(&(*t)->meta.stream_policy);
        free((*t)->meta.stream_policy_label);
        (*t)->meta.stream_policy_label = xstrdup(target->stream_label);
    }
    *p = &(*t)->meta.stream_policy;
    return 0;
}

/* ExpectedRevisionId against the current policy p. */
static int check_expected(const struct policy_target *target, const struct resource_policy *p,
                          const char *expected, struct ddb_error *err)
{
    const char *what = target->stream_label ? "stream" : "table";
    const char *name = target->stream_label ? target->stream_label : target->table_name;

    if (!expected) return 0;
    if (strcmp(expected, "NO_POLICY") == 0) {
        if (!p->document) return 0;
        return ddb_error_set(err, DDB_POLICY_NOT_FOUND,
                             POLICY_NOT_FOUND "Requested policy update expecting none to be "
                                              "present for %s %s, but a policy exists with "
                                              "revision id %s.",
                             what, name, p->revision_id);
    }
    if (!p->document)
        return ddb_error_set(err, DDB_POLICY_NOT_FOUND, POLICY_NOT_FOUND "%s",
                             target->resource_arn);
    if (strcmp(expected, p->revision_id) == 0) return 0;
    return ddb_error_set(err, DDB_POLICY_NOT_FOUND,
                         POLICY_NOT_FOUND "Requested update for policy with revision id %s, but "
                                          "the policy associated to target %s %s has revision id "
                                          "%s.",
                         expected, what, name, p->revision_id);
}

int db_get_resource_policy(struct db *db, const struct db_scope *scope,
                           const struct policy_target *target, struct resource_policy *out,
                           struct ddb_error *err)
{
    struct table *t;
    struct resource_policy *p = NULL;
    int rc = -1;

    memset(out, 0, sizeof *out);
    db_read_lock(db);
    if (find_policy(db, scope, target, false, &t, &p, err) != 0) goto out;
    if (!p->document) {
        ddb_error_set(err, DDB_POLICY_NOT_FOUND, POLICY_NOT_FOUND "%s", target->resource_arn);
        goto out;
    }
    out->document = xstrdup(p->document);
    out->revision_id = xstrdup(p->revision_id);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

int db_put_resource_policy(struct db *db, const struct db_scope *scope,
                           const struct policy_target *target, const char *document,
                           const char *expected_revision, char **revision_id, struct ddb_error *err)
{
    struct table *t;
    struct resource_policy *p = NULL;
    int rc = -1;

    *revision_id = NULL;
    db_write_lock(db);
    if (find_policy(db, scope, target, true, &t, &p, err) != 0) goto out;
    if (check_expected(target, p, expected_revision, err) != 0) goto out;
    if (!p->document || strcmp(p->document, document) != 0) {
        int64_t rev = db_now_ms(db);
        char text[32];
        if (p->revision_id && rev <= strtoll(p->revision_id, NULL, 10))
            rev = strtoll(p->revision_id, NULL, 10) + 1;
        snprintf(text, sizeof text, "%" PRId64, rev);
        resource_policy_clear(p);
        p->document = xstrdup(document);
        p->revision_id = xstrdup(text);
        persist_table(t);
    }
    *revision_id = xstrdup(p->revision_id);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

int db_delete_resource_policy(struct db *db, const struct db_scope *scope,
                              const struct policy_target *target, const char *expected_revision,
                              char **revision_id, struct ddb_error *err)
{
    struct table *t;
    struct resource_policy *p = NULL;
    int rc = -1;

    *revision_id = NULL;
    db_write_lock(db);
    if (find_policy(db, scope, target, true, &t, &p, err) != 0) goto out;
    if (!p->document) {
        ddb_error_set(err, DDB_POLICY_NOT_FOUND, POLICY_NOT_FOUND "%s", target->resource_arn);
        goto out;
    }
    if (check_expected(target, p, expected_revision, err) != 0) goto out;
    *revision_id = p->revision_id;
    p->revision_id = NULL;
    resource_policy_clear(p);
    persist_table(t);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}
