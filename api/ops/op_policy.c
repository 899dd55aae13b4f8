/*
 * op_policy.c - PutResourcePolicy, GetResourcePolicy, DeleteResourcePolicy.
 *
 * A policy belongs to a table or to its stream, named by ResourceArn (arn.c:
 * "ARNs must start with 'arn:'", "Invalid resource Arn" for another region,
 * AccessDeniedException for another account, index ARNs refused). The
 * document is checked by policy_rules.c and kept by storage/policies.c with
 * its revision id; nothing enforces it (docs/differences.md).
 * ConfirmRemoveSelfResourceAccess is accepted: with no IAM here, no policy can
 * lock its caller out.
 */
#include "api/ops/ops.h"
#include "api/ops/policy_rules.h"
#include "api/wire/arn.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "storage/control/settings.h"

#include <stdlib.h>
#include <string.h>

#define RESOURCE_ARN_FIELD                                                                         \
    {                                                                                              \
        "ResourceArn", F_STRING, .required = true, .min_len = 1, .max_len = 1283                   \
    }
#define EXPECTED_REVISION_FIELD                                                                    \
    {                                                                                              \
        "ExpectedRevisionId", F_STRING, .min_len = 1, .max_len = 255                               \
    }

const struct field put_resource_policy_fields[] = {
    RESOURCE_ARN_FIELD,
    {"Policy", F_STRING, .required = true},
    EXPECTED_REVISION_FIELD,
    {"ConfirmRemoveSelfResourceAccess", F_BOOLEAN},
    {0},
};

const struct field get_resource_policy_fields[] = {
    RESOURCE_ARN_FIELD,
    {0},
};

const struct field delete_resource_policy_fields[] = {
    RESOURCE_ARN_FIELD,
    EXPECTED_REVISION_FIELD,
    {0},
};

/* The table or stream the request names, into res and target. */
static int resolve(struct api_request *rq, struct arn_resource *res, struct policy_target *target)
{
    json_t *arn = body_member(rq->body, "ResourceArn");

    if (arn_resolve_resource(json_string_value(arn), json_string_length(arn), rq->scope.region,
                             ARN_FOR_POLICY, res, &rq->err) != 0)
        return -1;
    target->table_name = res->table_name;
    target->stream_label = res->stream_label;
    target->resource_arn = json_string_value(arn);
    return 0;
}

static void reply_revision(struct api_request *rq, const char *revision_id)
{
    rq->reply = json_object();
    json_object_set_new(rq->reply, "RevisionId", json_string(revision_id));
}

int op_put_resource_policy(struct api_request *rq)
{
    json_t *policy = body_member(rq->body, "Policy");
    struct arn_resource res = {0};
    struct policy_target target;
    char *revision = NULL;
    int rc = -1;

    if (resolve(rq, &res, &target) != 0) goto out;
    if (policy_rules_check(json_string_value(policy), json_string_length(policy), &rq->err) != 0)
        goto out;
    if (db_put_resource_policy(rq->db, &rq->scope, &target, json_string_value(policy),
                               body_member_str(rq->body, "ExpectedRevisionId"), &revision,
                               &rq->err) != 0)
        goto out;
    reply_revision(rq, revision);
    rc = 0;
out:
    free(revision);
    arn_resource_clear(&res);
    return rc;
}

int op_get_resource_policy(struct api_request *rq)
{
    struct arn_resource res = {0};
    struct policy_target target;
    struct resource_policy p = {0};
    int rc = -1;

    if (resolve(rq, &res, &target) != 0) goto out;
    if (db_get_resource_policy(rq->db, &rq->scope, &target, &p, &rq->err) != 0) goto out;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "Policy", json_string(p.document));
    json_object_set_new(rq->reply, "RevisionId", json_string(p.revision_id));
    rc = 0;
out:
    resource_policy_clear(&p);
    arn_resource_clear(&res);
    return rc;
}

int op_delete_resource_policy(struct api_request *rq)
{
    struct arn_resource res = {0};
    struct policy_target target;
    char *revision = NULL;
    int rc = -1;

    if (resolve(rq, &res, &target) != 0) goto out;
    if (db_delete_resource_policy(rq->db, &rq->scope, &target,
                                  body_member_str(rq->body, "ExpectedRevisionId"), &revision,
                                  &rq->err) != 0)
        goto out;
    reply_revision(rq, revision);
    rc = 0;
out:
    free(revision);
    arn_resource_clear(&res);
    return rc;
}
