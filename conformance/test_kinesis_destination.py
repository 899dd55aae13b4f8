# SPDX-License-Identifier: MIT
"""Enable/Disable/Update/DescribeKinesisStreamingDestination.

There is no Kinesis in the emulator (docs/differences.md): destinations are
kept and described. What DynamoDB answers (API reference; ack-api-quirks
DDB-TABLE-442, live service 2026-10): Enable answers ENABLING, Disable
DISABLING, Update UPDATING; a second Enable of an active destination, a
Disable or Update of one that is not active are ValidationExceptions with the
texts below. On AWS the destination's stream must exist and the transitions
take seconds: wait_status polls.
"""

from util import assert_error, client_error, random_string, running_on_aws_sleep

ACCOUNT = "000000000000"
NOT_VALID = "Table is not in a valid state to enable Kinesis Streaming Destination: "


def wait_status(dynamodb, table, stream_arn, status):
    for _ in range(60):
        dests = dynamodb.describe_kinesis_streaming_destination(
            TableName=table)["KinesisDataStreamDestinations"]
        got = [d for d in dests if d["StreamArn"] == stream_arn]
        if got and got[0]["DestinationStatus"] == status:
            return got[0]
        running_on_aws_sleep(1)
    assert got and got[0]["DestinationStatus"] == status


def test_lifecycle(dynamodb, make_table, raw, region):
    table = make_table()
    stream = f"arn:aws:kinesis:{region}:{ACCOUNT}:stream/ddbemu-{random_string()}"
    assert dynamodb.describe_kinesis_streaming_destination(TableName=table)[
        "KinesisDataStreamDestinations"] == []
    resp = dynamodb.enable_kinesis_streaming_destination(TableName=table, StreamArn=stream)
    assert (resp["TableName"], resp["StreamArn"], resp["DestinationStatus"]) == \
        (table, stream, "ENABLING")
    dest = wait_status(dynamodb, table, stream, "ACTIVE")
    assert dest.get("ApproximateCreationDateTimePrecision", "MILLISECOND") == "MILLISECOND"
    err = client_error(dynamodb.enable_kinesis_streaming_destination, TableName=table,
                       StreamArn=stream)
    assert_error(err, "ValidationException", NOT_VALID + "EnableKinesisStreamingDestination must "
                 "be DISABLED or ENABLE_FAILED to perform ENABLE operation.")
    status, _, data = raw("UpdateKinesisStreamingDestination", {
        "TableName": table, "StreamArn": stream,
        "UpdateKinesisStreamingConfiguration": {"ApproximateCreationDateTimePrecision": "MICROSECOND"}})
    assert (status, data["DestinationStatus"]) == (200, "UPDATING")
    assert data["UpdateKinesisStreamingConfiguration"] == {
        "ApproximateCreationDateTimePrecision": "MICROSECOND"}
    running_on_aws_sleep(10)
    status, _, data = raw("UpdateKinesisStreamingDestination", {
        "TableName": table, "StreamArn": stream, "UpdateKinesisStreamingConfiguration": {}})
    assert (status, data["message"]) == (400, "Streaming destination cannot be updated with given "
                                         "parameters: UpdateKinesisStreamingConfiguration cannot "
                                         "be null or contain only null values")
    resp = dynamodb.disable_kinesis_streaming_destination(TableName=table, StreamArn=stream)
    assert resp["DestinationStatus"] == "DISABLING"
    wait_status(dynamodb, table, stream, "DISABLED")
    err = client_error(dynamodb.disable_kinesis_streaming_destination, TableName=table,
                       StreamArn=stream)
    assert_error(err, "ValidationException", NOT_VALID + "KinesisStreamingDestination must be "
                 "ACTIVE to perform DISABLE operation.")
    status, _, data = raw("UpdateKinesisStreamingDestination", {
        "TableName": table, "StreamArn": stream,
        "UpdateKinesisStreamingConfiguration": {"ApproximateCreationDateTimePrecision": "MILLISECOND"}})
    assert (status, data["message"]) == (400, NOT_VALID + "Kinesis streaming is not in ACTIVE "
                                         "state. Updates are only allowed in ACTIVE state. "
                                         f"TableName: {table}, kdsArn: {stream}")


def test_missing_table(dynamodb, region):
    name = f"ddbemu_missing_{random_string()}"
    err = client_error(dynamodb.describe_kinesis_streaming_destination, TableName=name)
    assert_error(err, "ResourceNotFoundException",
                 f"Requested resource not found: Table: {name} not found")
