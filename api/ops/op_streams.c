/*
 * op_streams.c - the DynamoDB Streams API on the DynamoDB port:
 * ListStreams, DescribeStream, GetShardIterator, GetRecords
 * (X-Amz-Target DynamoDBStreams_20120810.<Op>, application/x-amz-json-1.0).
 *
 * The SDKs' Streams clients (boto3 "dynamodbstreams",
 * @aws-sdk/client-dynamodb-streams) sign with the service name "dynamodb",
 * so the same SigV4 credential selects the same namespace as the tables, and
 * dispatch.c treats these targets like any other row of the operations table.
 *
 * Wire shapes follow the Streams model (botocore dynamodbstreams
 * 2012-08-10): records carry eventID, eventName, eventVersion "1.1",
 * eventSource "aws:dynamodb", awsRegion, dynamodb {ApproximateCreationDateTime
 * (epoch seconds), Keys, NewImage, OldImage, SequenceNumber, SizeBytes,
 * StreamViewType} and, for TTL deletions, userIdentity {PrincipalId:
 * "dynamodb.amazonaws.com", Type: "Service"} - the member names of the model's
 * Identity shape (an AWS Lambda event spells the same object
 * {"type", "principalId"}; the Streams API does not).
 *
 * Limits: Limit is 1..100 for ListStreams and DescribeStream and 1..1000 for
 * GetRecords (API reference "The upper limit is ..."; Alternator's AWS-run
 * tests: 0, -1 and 1001 are ValidationExceptions naming the limit). A
 * malformed StreamArn is storage's "Invalid StreamArn", whatever its length
 * (the live service answers that for 'fake-stream'), so StreamArn carries no
 * length constraint here.
 */
#include "api/ops/ops.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "api/wire/wire_encoded.h"
#include "api/wire/wire_table.h"
#include "api/wire/wire_value.h"
#include "storage/base/limits.h"
#include "storage/base/text.h"
#include "storage/engine/db.h"
#include "storage/engine/db_streams.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* request shapes                                                            */
/* ------------------------------------------------------------------------ */

static const char *const iterator_type_choices[] = {"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER",
                                                    "AFTER_SEQUENCE_NUMBER", NULL};
static const char *const shard_filter_type_choices[] = {"CHILD_SHARDS", NULL};

const struct field list_streams_fields[] = {
    {"TableName", F_STRING, .min_len = 3, .max_len = DDB_MAX_TABLE_NAME_LEN,
     .pattern = SHAPE_TABLE_NAME_PATTERN},
    {"Limit", F_INTEGER, .has_min = true, .min_value = 1, .has_max = true,
     .max_value = DDB_MAX_LIST_STREAMS_LIMIT},
    {"ExclusiveStartStreamArn", F_STRING},
    {0},
};

/* A ShardFilter needs both members: one without Type or without ShardId is
 * refused with a ValidationException (scylla's test_streams.py
 * test_stream_shard_filtering_missing_type/_missing_shard_id, run against
 * AWS; the text is not recorded: the model's "must not be null" form). */
static const struct field shard_filter_fields[] = {
    {"Type", F_STRING, .required = true, .choices = shard_filter_type_choices},
    {"ShardId", F_STRING, .required = true, .min_len = 28, .max_len = 65},
    {0},
};

const struct field describe_stream_fields[] = {
    {"StreamArn", F_STRING, .required = true},
    {"Limit", F_INTEGER, .has_min = true, .min_value = 1, .has_max = true,
     .max_value = DDB_MAX_DESCRIBE_STREAM_LIMIT},
    {"ExclusiveStartShardId", F_STRING, .min_len = 28, .max_len = 65},
    {"ShardFilter", F_STRUCT, .shape_name = "ShardFilter", .children = shard_filter_fields},
    {0},
};

const struct field get_shard_iterator_fields[] = {
    {"StreamArn", F_STRING, .required = true},
    {"ShardId", F_STRING, .required = true, .min_len = 28, .max_len = 65},
    {"ShardIteratorType", F_STRING, .required = true, .choices = iterator_type_choices},
    {"SequenceNumber", F_STRING, .min_len = 21, .max_len = 40},
    {0},
};

const struct field get_records_fields[] = {
    {"ShardIterator", F_STRING, .required = true, .min_len = 1, .max_len = 2048},
    {"Limit", F_INTEGER, .has_min = true, .min_value = 1, .has_max = true,
     .max_value = DDB_MAX_GET_RECORDS_LIMIT},
    {0},
};

/* ------------------------------------------------------------------------ */
/* helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* A member, with JSON null treated as absent (as shape.c does). */
static const char *member_str(const json_t *obj, const char *key)
{
    return json_string_value(body_member(obj, key));
}

static size_t member_limit(const json_t *obj, size_t dflt)
{
    json_t *v = body_member(obj, "Limit");
    return json_is_integer(v) ? (size_t) json_integer_value(v) : dflt;
}

static json_t *epoch_seconds(int64_t ms)
{
    return json_real((double) ms / 1000.0);
}

/* ------------------------------------------------------------------------ */
/* ListStreams                                                               */
/* ------------------------------------------------------------------------ */

int op_list_streams(struct api_request *rq)
{
    struct stream_summary *list = NULL;
    size_t count = 0;
    char *last = NULL;
    json_t *streams;

    if (db_list_streams(rq->db, &rq->scope, member_str(rq->body, "TableName"),
                        member_str(rq->body, "ExclusiveStartStreamArn"),
                        member_limit(rq->body, DDB_MAX_LIST_STREAMS_LIMIT), &list, &count, &last,
                        &rq->err) != 0)
        return -1;
    streams = json_array();
    for (size_t i = 0; i < count; i++) {
        json_t *s = json_object();
        json_object_set_new(s, "StreamArn", json_string(list[i].arn));
        json_object_set_new(s, "TableName", json_string(list[i].table_name));
        json_object_set_new(s, "StreamLabel", json_string(list[i].label));
        json_array_append_new(streams, s);
        stream_summary_clear(&list[i]);
    }
    free(list);
    rq->reply = json_object();
    json_object_set_new(rq->reply, "Streams", streams);
    if (last) json_object_set_new(rq->reply, "LastEvaluatedStreamArn", json_string(last));
    free(last);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* DescribeStream                                                            */
/* ------------------------------------------------------------------------ */

static json_t *shard_to_json(const struct shard_desc *sh)
{
    json_t *o = json_object(), *range = json_object();

    json_object_set_new(o, "ShardId", json_string(sh->shard_id));
    json_object_set_new(range, "StartingSequenceNumber", json_string(sh->starting_sequence));
    if (sh->ending_sequence[0])
        json_object_set_new(range, "EndingSequenceNumber", json_string(sh->ending_sequence));
    json_object_set_new(o, "SequenceNumberRange", range);
    if (sh->parent_shard_id)
        json_object_set_new(o, "ParentShardId", json_string(sh->parent_shard_id));
    return o;
}

int op_describe_stream(struct api_request *rq)
{
    json_t *filter = body_member(rq->body, "ShardFilter");
    const char *child_of = NULL;
    struct stream_desc d;
    json_t *desc, *shards;

    /* ShardFilter {Type: CHILD_SHARDS, ShardId}: only that shard's children. */
    if (filter && member_str(filter, "Type")) child_of = member_str(filter, "ShardId");
    if (db_describe_stream(rq->db, &rq->scope, member_str(rq->body, "StreamArn"),
                           member_limit(rq->body, DDB_MAX_DESCRIBE_STREAM_LIMIT),
                           member_str(rq->body, "ExclusiveStartShardId"), child_of, &d,
                           &rq->err) != 0)
        return -1;
    desc = json_object();
    json_object_set_new(desc, "StreamArn", json_string(d.arn));
    json_object_set_new(desc, "StreamLabel", json_string(d.label));
    json_object_set_new(desc, "StreamStatus", json_string(stream_status_name(d.status)));
    json_object_set_new(desc, "StreamViewType", json_string(stream_view_name(d.view)));
    json_object_set_new(desc, "CreationRequestDateTime", epoch_seconds(d.creation_ms));
    json_object_set_new(desc, "TableName", json_string(d.table_name));
    json_object_set_new(desc, "KeySchema", wire_table_key_schema_to_json(&d.key));
    shards = json_array();
    for (size_t i = 0; i < d.shard_count; i++)
        json_array_append_new(shards, shard_to_json(&d.shards[i]));
    json_object_set_new(desc, "Shards", shards);
    if (d.last_evaluated_shard_id)
        json_object_set_new(desc, "LastEvaluatedShardId", json_string(d.last_evaluated_shard_id));
    rq->reply = json_object();
    json_object_set_new(rq->reply, "StreamDescription", desc);
    stream_desc_clear(&d);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* GetShardIterator                                                          */
/* ------------------------------------------------------------------------ */

static enum shard_iterator_type iterator_type(const char *name)
{
    if (strcmp(name, "LATEST") == 0) return SHARD_ITERATOR_LATEST;
    if (strcmp(name, "AT_SEQUENCE_NUMBER") == 0) return SHARD_ITERATOR_AT_SEQUENCE_NUMBER;
    if (strcmp(name, "AFTER_SEQUENCE_NUMBER") == 0) return SHARD_ITERATOR_AFTER_SEQUENCE_NUMBER;
    return SHARD_ITERATOR_TRIM_HORIZON;
}

/*
 * A SequenceNumber goes with AT_SEQUENCE_NUMBER and AFTER_SEQUENCE_NUMBER
 * only. The live service answers ValidationException both ways (Alternator's
 * AWS-run test_get_shard_iterator); its texts are not recorded, so these are
 * written after the Kinesis service's equivalent InvalidArgumentException.
 */
static int check_sequence_number(const char *type_name, bool needs, bool has, struct ddb_error *err)
{
    if (needs && !has)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Must either specify (1) AT_SEQUENCE_NUMBER or AFTER_SEQUENCE_NUMBER "
                             "and SequenceNumber or (2) TRIM_HORIZON or LATEST and no "
                             "SequenceNumber. Request specified %s and no SequenceNumber.",
                             type_name);
    if (!needs && has)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Must either specify (1) AT_SEQUENCE_NUMBER or AFTER_SEQUENCE_NUMBER "
                             "and SequenceNumber or (2) TRIM_HORIZON or LATEST and no "
                             "SequenceNumber. Request specified %s and also a SequenceNumber.",
                             type_name);
    return 0;
}

int op_get_shard_iterator(struct api_request *rq)
{
    const char *type_name = member_str(rq->body, "ShardIteratorType");
    const char *seq = member_str(rq->body, "SequenceNumber");
    enum shard_iterator_type type = iterator_type(type_name);
    bool needs =
        type == SHARD_ITERATOR_AT_SEQUENCE_NUMBER || type == SHARD_ITERATOR_AFTER_SEQUENCE_NUMBER;
    char *iterator = NULL;

    if (check_sequence_number(type_name, needs, seq != NULL, &rq->err) != 0) return -1;
    if (db_get_shard_iterator(rq->db, &rq->scope, member_str(rq->body, "StreamArn"),
                              member_str(rq->body, "ShardId"), type, seq, &iterator, &rq->err) != 0)
        return -1;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "ShardIterator", json_string(iterator));
    free(iterator);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* GetRecords                                                                */
/* ------------------------------------------------------------------------ */

/* Writes key: "text" into the open object. Text that is not valid UTF-8
 * (only a region taken from a request's credential could be) is left out,
 * as jansson's json_string always left it out of these answers. */
static void write_string_member(struct json_out *w, const char *key, const char *text)
{
    if (!text_utf8_is_valid(text, strlen(text))) return;
    json_out_key(w, key);
    json_out_string(w, text);
}

/* Writes one stream record as GetRecords returns it. */
static void write_record(struct json_out *w, const struct stream_record_out *r, const char *region)
{
    json_out_object_begin(w);
    write_string_member(w, "eventID", r->event_id);
    write_string_member(w, "eventName", stream_event_name(r->event));
    write_string_member(w, "eventVersion", "1.1");
    write_string_member(w, "eventSource", "aws:dynamodb");
    write_string_member(w, "awsRegion", region);
    json_out_key(w, "dynamodb");
    json_out_object_begin(w);
    /* Whole seconds, as AWS stamps stream records. */
    json_out_key(w, "ApproximateCreationDateTime");
    json_out_integer(w, (long long) (r->created_ms / 1000));
    json_out_key(w, "Keys");
    wire_value_write_map(w, &r->keys);
    if (r->new_image) {
        json_out_key(w, "NewImage");
        wire_write_stored_item(w, r->new_image);
    }
    if (r->old_image) {
        json_out_key(w, "OldImage");
        wire_write_stored_item(w, r->old_image);
    }
    write_string_member(w, "SequenceNumber", r->sequence_number);
    json_out_key(w, "SizeBytes");
    json_out_integer(w, (long long) r->size_bytes);
    write_string_member(w, "StreamViewType", stream_view_name(r->view));
    json_out_object_end(w);
    if (r->by_ttl) {
        /* "For Time To Live, the principalId is dynamodb.amazonaws.com" and
         * "the type is Service" (the Streams model's Identity shape). */
        json_out_key(w, "userIdentity");
        json_out_object_begin(w);
        write_string_member(w, "PrincipalId", "dynamodb.amazonaws.com");
        write_string_member(w, "Type", "Service");
        json_out_object_end(w);
    }
    json_out_object_end(w);
}

/* Writes {"Records": [...], "NextShardIterator": ...}. */
static void write_records(struct json_out *w, const struct stream_records *r)
{
    json_out_object_begin(w);
    json_out_key(w, "Records");
    json_out_array_begin(w);
    for (size_t i = 0; i < r->count; i++)
        write_record(w, &r->records[i], r->region);
    json_out_array_end(w);
    if (r->next_iterator) write_string_member(w, "NextShardIterator", r->next_iterator);
    json_out_object_end(w);
}

int op_get_records(struct api_request *rq)
{
    struct stream_records r;

    if (db_get_records(rq->db, &rq->scope, member_str(rq->body, "ShardIterator"),
                       member_limit(rq->body, DDB_MAX_GET_RECORDS_LIMIT), &r, &rq->err) != 0)
        return -1;
    write_records(&rq->reply_body, &r);
    stream_records_clear(&r);
    return 0;
}
