/*
 * op_tags.c - TagResource, UntagResource, ListTagsOfResource.
 *
 * The checks run in the order AWS answers them (dynalite's recorded
 * test/tagResource.js, untagResource.js, listTagsOfResource.js; the
 * ack-api-quirks lab, DDB-TABLE-071/105/107/108, live service 2026-10): a
 * missing ResourceArn is "Invalid TableArn"; a ResourceArn without the "arn:"
 * prefix, then a missing Tags/TagKeys, then the rest of the ARN (arn.c); an
 * empty list; the tag rules (tag_rules.c); then the table (storage/tags.c:
 * "Requested resource not found: ResourceArn: <arn> not found", and the
 * 50-tag limit on the merged set). Tags are ARN-addressed only: a table name
 * is refused as an ARN without the prefix.
 */
#include "api/ops/ops.h"
#include "api/ops/tag_rules.h"
#include "api/wire/arn.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/control/settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct field string_member = {.type = F_STRING};

static const struct field tag_fields[] = {
    {"Key", F_STRING},
    {"Value", F_STRING},
    {0},
};
static const struct field tag_member = {
    .type = F_STRUCT, .shape_name = "Tag", .children = tag_fields};

/* ResourceArn and the lists are checked by the handlers, in AWS's order. */
const struct field tag_resource_fields[] = {
    {"ResourceArn", F_STRING},
    {"Tags", F_LIST, .member = &tag_member},
    {0},
};

const struct field untag_resource_fields[] = {
    {"ResourceArn", F_STRING},
    {"TagKeys", F_LIST, .member = &string_member},
    {0},
};

const struct field list_tags_of_resource_fields[] = {
    {"ResourceArn", F_STRING},
    {"NextToken", F_STRING},
    {0},
};

/* ListTagsOfResource answers at most this many tags per page. A table has at
 * most 50, so AWS answers them all at once [q DDB-TABLE-108]. */
#define TAGS_PAGE DDB_MAX_TAGS

/*
 * The ResourceArn checks shared by the three operations, up to the table's
 * name in *out. list is the request's Tags/TagKeys member and list_name its
 * name in AWS's messages (NULL for ListTagsOfResource).
 */
static int resolve(struct api_request *rq, const char *list_name, const json_t *list,
                   struct arn_resource *out)
{
    json_t *arn = body_member(rq->body, "ResourceArn");
    const char *s = json_string_value(arn);
    size_t len = json_string_length(arn);

    memset(out, 0, sizeof *out);
    if (!arn) return ddb_error_set(&rq->err, DDB_VALIDATION, "Invalid TableArn");
    if (!arn_is_arn(s, len))
        return arn_resolve_resource(s, len, rq->scope.region, ARN_FOR_TAGS, out, &rq->err);
    if (list_name && !list)
        return ddb_error_set(&rq->err, DDB_VALIDATION,
                             "1 validation error detected: Value null at '%s' failed to satisfy "
                             "constraint: Member must not be null",
                             list_name);
    if (arn_resolve_resource(s, len, rq->scope.region, ARN_FOR_TAGS, out, &rq->err) != 0) return -1;
    /* A stream has no tags of its own: AWS does not find it [q DDB-TABLE-071]. */
    if (out->kind == ARN_STREAM) {
        arn_resource_clear(out);
        return ddb_error_resource_arn_not_found(&rq->err, s);
    }
    return 0;
}

int op_tag_resource(struct api_request *rq)
{
    json_t *list = body_member(rq->body, "Tags"), *e;
    struct arn_resource res;
    struct tag *tags = NULL;
    size_t i;
    int rc = -1;

    if (resolve(rq, "tags", list, &res) != 0) goto out;
    if (json_array_size(list) == 0) {
        ddb_error_set(&rq->err, DDB_VALIDATION, "Atleast one Tag needs to be provided as Input.");
        goto out;
    }
    if (json_array_size(list) > DDB_MAX_TAGS) {
        ddb_error_set(&rq->err, DDB_VALIDATION,
                      "Number of Tags exceed the current limit for the provided ResourceArn");
        goto out;
    }
    if (tag_rules_check_tags(list, &rq->err) != 0) goto out;
    tags = xcalloc(json_array_size(list), sizeof *tags);
    json_array_foreach(list, i, e)
    {
        tags[i].key = (char *) body_member_str(e, "Key");
        tags[i].value = (char *) body_member_str(e, "Value");
    }
    rc = db_tag_resource(rq->db, &rq->scope, res.table_name,
                         body_member_str(rq->body, "ResourceArn"), tags, json_array_size(list),
                         &rq->err);
    rq->reply_empty = true; /* an empty body, not {} */
out:
    free(tags); /* the strings are the body's */
    arn_resource_clear(&res);
    return rc;
}

int op_untag_resource(struct api_request *rq)
{
    json_t *list = body_member(rq->body, "TagKeys"), *e;
    struct arn_resource res;
    char **keys = NULL;
    size_t i;
    int rc = -1;

    if (resolve(rq, "tagKeys", list, &res) != 0) goto out;
    if (json_array_size(list) == 0) {
        ddb_error_set(&rq->err, DDB_VALIDATION,
                      "Atleast one Tag Key needs to be provided as Input.");
        goto out;
    }
    /* [q DDB-TABLE-107]: even though it removes tags. */
    if (json_array_size(list) > DDB_MAX_TAGS) {
        ddb_error_set(&rq->err, DDB_VALIDATION,
                      "Number of Tags exceed the current limit for the provided ResourceArn");
        goto out;
    }
    json_array_foreach(list, i, e)
    {
        if (tag_rules_check_key(json_string_value(e), json_string_length(e), &rq->err) != 0)
            goto out;
    }
    keys = xcalloc(json_array_size(list), sizeof *keys);
    json_array_foreach(list, i, e) keys[i] = (char *) json_string_value(e);
    rc = db_untag_resource(rq->db, &rq->scope, res.table_name,
                           body_member_str(rq->body, "ResourceArn"), keys, json_array_size(list),
                           &rq->err);
    rq->reply_empty = true; /* an empty body, not {} */
out:
    free(keys); /* the strings are the body's */
    arn_resource_clear(&res);
    return rc;
}

/* NextToken: the position of the page's first tag, as ListTagsOfResource
 * wrote it; -1 when it is not one. */
static long parse_token(const char *token, size_t count)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(token, &end, 10);
    if (errno || end == token || *end || n <= 0 || (size_t) n >= count) return -1;
    return n;
}

int op_list_tags_of_resource(struct api_request *rq)
{
    const char *token = body_member_str(rq->body, "NextToken");
    struct arn_resource res;
    struct tag *tags = NULL;
    size_t count = 0, first = 0;
    json_t *list;
    int rc = -1;

    if (resolve(rq, NULL, NULL, &res) != 0) goto out;
    if (db_list_tags(rq->db, &rq->scope, res.table_name, body_member_str(rq->body, "ResourceArn"),
                     &tags, &count, &rq->err) != 0)
        goto out;
    if (token) {
        long n = parse_token(token, count);
        if (n < 0) {
            ddb_error_set(&rq->err, DDB_VALIDATION, "Invalid NextToken: %s", token);
            goto out;
        }
        first = (size_t) n;
    }
    list = json_array();
    for (size_t i = first; i < count && i < first + TAGS_PAGE; i++) {
        json_t *t = json_object();
        json_object_set_new(t, "Key", json_string(tags[i].key));
        json_object_set_new(t, "Value", json_string(tags[i].value));
        json_array_append_new(list, t);
    }
    rq->reply = json_object();
    json_object_set_new(rq->reply, "Tags", list);
    if (first + TAGS_PAGE < count) {
        char next[32];
        snprintf(next, sizeof next, "%zu", first + TAGS_PAGE);
        json_object_set_new(rq->reply, "NextToken", json_string(next));
    }
    rc = 0;
out:
    tags_free(tags, count);
    arn_resource_clear(&res);
    return rc;
}
