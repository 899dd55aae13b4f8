/*
 * op_ttl.c - UpdateTimeToLive and DescribeTimeToLive.
 *
 * The request shapes carry the model's constraints (TimeToLiveSpecification
 * with Enabled and AttributeName, 1 to 255 characters, both required: the
 * ack-api-quirks lab's and Alternator's AWS-run tests name the paths
 * 'timeToLiveSpecification.attributeName' / '.enabled'); everything that
 * needs the table - already enabled, another attribute, the one-change-per-
 * hour rule - is storage's (storage/ttl.c), in AWS's order.
 *
 * UpdateTimeToLive answers with the specification it was given, not with the
 * resulting status (API reference: "returns the current
 * TimeToLiveSpecification"; the lab: "the Update echoes the request shape").
 */
#include "api/ops/ops.h"
#include "api/wire/shape.h"
#include "storage/base/limits.h"
#include "storage/engine/db.h"
#include "storage/engine/db_ttl.h"

#include <string.h>

static const struct field ttl_specification_fields[] = {
    {"Enabled", F_BOOLEAN, .required = true},
    {"AttributeName", F_STRING, .required = true, .min_len = 1,
     .max_len = DDB_MAX_TTL_ATTRIBUTE_LEN},
    {0},
};

const struct field update_time_to_live_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    {"TimeToLiveSpecification", F_STRUCT, .required = true, .shape_name = "TimeToLiveSpecification",
     .children = ttl_specification_fields},
    {0},
};

const struct field describe_time_to_live_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    {0},
};

static const char *member_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

/* UpdateTimeToLive: one storage call, then the specification echoed back. */
int op_update_time_to_live(struct api_request *rq)
{
    json_t *spec = json_object_get(rq->body, "TimeToLiveSpecification");
    const char *attribute = member_str(spec, "AttributeName");
    bool enabled = json_is_true(json_object_get(spec, "Enabled"));
    json_t *echo;

    if (db_update_ttl(rq->db, &rq->scope, member_str(rq->body, "TableName"), enabled, attribute,
                      &rq->err) != 0)
        return -1;
    echo = json_object();
    json_object_set_new(echo, "AttributeName", json_string(attribute));
    json_object_set_new(echo, "Enabled", json_boolean(enabled));
    rq->reply = json_object();
    json_object_set_new(rq->reply, "TimeToLiveSpecification", echo);
    return 0;
}

/* DescribeTimeToLive: {"TimeToLiveDescription": {"TimeToLiveStatus", "AttributeName"?}};
 * AttributeName only while TTL is on (a never-configured and a disabled table
 * both read {TimeToLiveStatus: DISABLED}: the lab's DDB-TABLE-144). */
int op_describe_time_to_live(struct api_request *rq)
{
    struct ttl_desc d;
    json_t *desc;

    if (db_describe_ttl(rq->db, &rq->scope, member_str(rq->body, "TableName"), &d, &rq->err) != 0)
        return -1;
    desc = json_object();
    json_object_set_new(desc, "TimeToLiveStatus", json_string(ttl_status_name(d.status)));
    if (d.attribute) json_object_set_new(desc, "AttributeName", json_string(d.attribute));
    rq->reply = json_object();
    json_object_set_new(rq->reply, "TimeToLiveDescription", desc);
    ttl_desc_clear(&d);
    return 0;
}
