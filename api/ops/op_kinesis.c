/*
 * op_kinesis.c - Enable/Disable/Update/DescribeKinesisStreamingDestination.
 *
 * There is no Kinesis here: storage (kinesis.c) keeps each destination's
 * state, and nothing is ever sent (docs/differences.md). The answers are
 * DynamoDB's: Enable answers ENABLING, Disable DISABLING, Update UPDATING
 * (API reference of each operation); the destination settles at once.
 */
#include "api/ops/ops.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "storage/control/settings.h"

#include <stdlib.h>

static const char *const precision_choices[] = {"MILLISECOND", "MICROSECOND", NULL};

static const struct field streaming_configuration_fields[] = {
    {"ApproximateCreationDateTimePrecision", F_STRING, .choices = precision_choices},
    {0},
};

#define STREAM_ARN_FIELD                                                                           \
    {                                                                                              \
        "StreamArn", F_STRING, .required = true, .min_len = 37, .max_len = 1024                    \
    }

const struct field enable_kinesis_streaming_destination_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    STREAM_ARN_FIELD,
    {"EnableKinesisStreamingConfiguration", F_STRUCT,
     .shape_name = "EnableKinesisStreamingConfiguration",
     .children = streaming_configuration_fields},
    {0},
};

const struct field disable_kinesis_streaming_destination_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    STREAM_ARN_FIELD,
    {"EnableKinesisStreamingConfiguration", F_STRUCT,
     .shape_name = "EnableKinesisStreamingConfiguration",
     .children = streaming_configuration_fields},
    {0},
};

const struct field update_kinesis_streaming_destination_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    STREAM_ARN_FIELD,
    {"UpdateKinesisStreamingConfiguration", F_STRUCT,
     .shape_name = "UpdateKinesisStreamingConfiguration",
     .children = streaming_configuration_fields},
    {0},
};

const struct field describe_kinesis_streaming_destination_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    {0},
};

/* {"ApproximateCreationDateTimePrecision": precision} */
static json_t *configuration(const char *precision)
{
    json_t *c = json_object();
    json_object_set_new(c, "ApproximateCreationDateTimePrecision", json_string(precision));
    return c;
}

static int change(struct api_request *rq, enum kinesis_action action, const char *config_member,
                  const char *status)
{
    const char *table = body_member_str(rq->body, "TableName");
    const char *stream = body_member_str(rq->body, "StreamArn");
    json_t *config = body_member(rq->body, config_member);
    const char *precision = body_member_str(config, "ApproximateCreationDateTimePrecision");
    char *now = NULL;

    /* [q DDB-TABLE-442]: an Update must say what to change. */
    if (action == KINESIS_UPDATE && !precision)
        return ddb_error_set(&rq->err, DDB_VALIDATION,
                             "Streaming destination cannot be updated with given parameters: "
                             "UpdateKinesisStreamingConfiguration cannot be null or contain only "
                             "null values");
    if (db_change_kinesis(rq->db, &rq->scope, table, stream, action,
                          action == KINESIS_DISABLE ? NULL : precision, &now, &rq->err) != 0)
        return -1;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "TableName", json_string(table));
    json_object_set_new(rq->reply, "StreamArn", json_string(stream));
    json_object_set_new(rq->reply, "DestinationStatus", json_string(status));
    if (action != KINESIS_DISABLE || config)
        json_object_set_new(rq->reply, config_member, configuration(now));
    free(now);
    return 0;
}

int op_enable_kinesis_streaming_destination(struct api_request *rq)
{
    return change(rq, KINESIS_ENABLE, "EnableKinesisStreamingConfiguration", "ENABLING");
}

int op_disable_kinesis_streaming_destination(struct api_request *rq)
{
    return change(rq, KINESIS_DISABLE, "EnableKinesisStreamingConfiguration", "DISABLING");
}

int op_update_kinesis_streaming_destination(struct api_request *rq)
{
    return change(rq, KINESIS_UPDATE, "UpdateKinesisStreamingConfiguration", "UPDATING");
}

int op_describe_kinesis_streaming_destination(struct api_request *rq)
{
    const char *table = body_member_str(rq->body, "TableName");
    struct kinesis_destination *d = NULL;
    size_t count = 0;
    json_t *list;

    if (db_describe_kinesis(rq->db, &rq->scope, table, &d, &count, &rq->err) != 0) return -1;
    list = json_array();
    for (size_t i = 0; i < count; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "StreamArn", json_string(d[i].stream_arn));
        json_object_set_new(e, "DestinationStatus",
                            json_string(d[i].status == KINESIS_ACTIVE ? "ACTIVE" : "DISABLED"));
        json_object_set_new(e, "ApproximateCreationDateTimePrecision", json_string(d[i].precision));
        json_array_append_new(list, e);
    }
    kinesis_destinations_free(d, count);
    rq->reply = json_object();
    json_object_set_new(rq->reply, "TableName", json_string(table));
    json_object_set_new(rq->reply, "KinesisDataStreamDestinations", list);
    return 0;
}
