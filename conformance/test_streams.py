# SPDX-License-Identifier: MIT
"""DynamoDB Streams through boto3's "dynamodbstreams" client on the same endpoint.

What DynamoDB does, and how we know (each test says which):
- Alternator's test_streams.py (scylladb/scylladb, run against AWS): a record
  per change with INSERT / MODIFY / REMOVE, images per StreamViewType, no
  record for a PutItem that changes nothing or a DeleteItem of nothing,
  SequenceNumber a decimal string that increases, TRIM_HORIZON / LATEST /
  AT_ and AFTER_SEQUENCE_NUMBER iterators, shards listed in id order, an
  empty Records list (not a missing one) when nothing is new, a closed shard
  read to its end has no NextShardIterator, Limit above 1000 refused.
- The Streams model (botocore dynamodbstreams 2012-08-10) for the wire shapes.
- The ack-api-quirks lab (DDB-TABLE-362/378): re-enabling mints a new
  LatestStreamArn; ListStreams(TableName) lists the disabled streams too.
- Texts: "Invalid StreamArn" (AWS SDK for JavaScript v2 integration test
  against the live service), "Requested resource not found: Stream: <arn> not
  found", "Requested resource not found: Shard does not exist".

Tests poll for records for a while because AWS delivers them asynchronously;
the emulator has them at once. Clock-dependent behaviour (iterator expiry,
the 24-hour trim, shard rollover, TTL deletions) is in test_emulator_clock.py.
"""

import time

import pytest
from boto3.dynamodb.types import TypeDeserializer

from util import VALIDATION, assert_error, assert_raw_error, client_error, random_string

DDB = "com.amazonaws.dynamodb.v20120810#"
VIEWS = ["KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"]


def stream_table(make_table, view="NEW_AND_OLD_IMAGES", **kwargs):
    """A table p (S) / c (S) with a stream of the given view; returns (name, arn)."""
    name = make_table(("p", "S"), ("c", "S"),
                      StreamSpecification={"StreamEnabled": True, "StreamViewType": view},
                      **kwargs)
    return name, None


def latest_arn(dynamodb, table):
    return dynamodb.describe_table(TableName=table)["Table"]["LatestStreamArn"]


def shards(streams, arn):
    desc = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    found = list(desc["Shards"])
    while "LastEvaluatedShardId" in desc:
        desc = streams.describe_stream(StreamArn=arn,
                                       ExclusiveStartShardId=desc["LastEvaluatedShardId"])[
            "StreamDescription"]
        found += desc["Shards"]
    return found


def iterators(streams, arn, kind):
    return [streams.get_shard_iterator(StreamArn=arn, ShardId=s["ShardId"],
                                       ShardIteratorType=kind)["ShardIterator"]
            for s in shards(streams, arn)]


def read(streams, its, want, timeout=30):
    """Reads from the iterators until `want` records arrived (or timeout)."""
    out = []
    deadline = time.time() + timeout
    while True:
        nxt = []
        for it in its:
            resp = streams.get_records(ShardIterator=it)
            assert isinstance(resp["Records"], list)
            out += resp["Records"]
            if "NextShardIterator" in resp:
                nxt.append(resp["NextShardIterator"])
        its = nxt
        if len(out) >= want or time.time() > deadline or not its:
            return out
        time.sleep(0.5)


def plain(image):
    d = TypeDeserializer()
    return {k: d.deserialize(v) for k, v in image.items()}


def test_table_descriptions_carry_the_stream(dynamodb, dynamodbstreams, make_table):
    table, _ = stream_table(make_table, "KEYS_ONLY")
    desc = dynamodb.describe_table(TableName=table)["Table"]
    assert desc["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    arn, label = desc["LatestStreamArn"], desc["LatestStreamLabel"]
    assert arn.endswith(f":table/{table}/stream/{label}")
    listed = dynamodbstreams.list_streams(TableName=table)["Streams"]
    assert listed == [{"StreamArn": arn, "TableName": table, "StreamLabel": label}]


def test_describe_stream(dynamodbstreams, dynamodb, make_table):
    table, _ = stream_table(make_table, "NEW_IMAGE")
    arn = latest_arn(dynamodb, table)
    desc = dynamodbstreams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert desc["StreamArn"] == arn
    assert desc["StreamStatus"] == "ENABLED"
    assert desc["StreamViewType"] == "NEW_IMAGE"
    assert desc["TableName"] == table
    assert desc["KeySchema"] == [{"AttributeName": "p", "KeyType": "HASH"},
                                 {"AttributeName": "c", "KeyType": "RANGE"}]
    assert "CreationRequestDateTime" in desc
    ids = [s["ShardId"] for s in desc["Shards"]]
    assert ids and ids == sorted(ids)
    for s in desc["Shards"]:
        assert 28 <= len(s["ShardId"]) <= 65
        assert s["SequenceNumberRange"]["StartingSequenceNumber"].isdecimal()


@pytest.mark.parametrize("view", VIEWS)
def test_records_per_view_type(dynamodb, dynamodbstreams, make_table, view, region):
    table, _ = stream_table(make_table, view)
    arn = latest_arn(dynamodb, table)
    its = iterators(dynamodbstreams, arn, "LATEST")
    p, c = random_string(), random_string()
    key = {"p": {"S": p}, "c": {"S": c}}
    dynamodb.put_item(TableName=table, Item={**key, "x": {"N": "1"}})
    dynamodb.put_item(TableName=table, Item={**key, "x": {"N": "1"}})  # unchanged: no record
    dynamodb.put_item(TableName=table, Item={**key, "x": {"N": "1"}, "y": {"S": "two"}})
    dynamodb.delete_item(TableName=table, Key=key)
    dynamodb.delete_item(TableName=table, Key=key)  # nothing to delete: no record
    records = read(dynamodbstreams, its, 3)
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"]
    one = {"p": p, "c": c, "x": 1}
    two = {"p": p, "c": c, "x": 1, "y": "two"}
    expected = [(None, one), (one, two), (two, None)]
    seqs = []
    for r, (old, new) in zip(records, expected):
        assert r["eventSource"] == "aws:dynamodb"
        assert r["eventVersion"] == "1.1"
        assert r["awsRegion"] == region
        assert len(r["eventID"]) > 0
        assert "userIdentity" not in r
        s = r["dynamodb"]
        assert s["StreamViewType"] == view
        assert plain(s["Keys"]) == {"p": p, "c": c}
        assert s["SizeBytes"] > 0
        assert s["SequenceNumber"].isdecimal()
        seqs.append(int(s["SequenceNumber"]))
        if view in ("NEW_IMAGE", "NEW_AND_OLD_IMAGES") and new:
            assert plain(s["NewImage"]) == new
        else:
            assert "NewImage" not in s
        if view in ("OLD_IMAGE", "NEW_AND_OLD_IMAGES") and old:
            assert plain(s["OldImage"]) == old
        else:
            assert "OldImage" not in s
    assert seqs == sorted(seqs) and len(set(seqs)) == 3


def test_trim_horizon_latest_and_sequence_number_iterators(dynamodb, dynamodbstreams, make_table):
    table, _ = stream_table(make_table, "KEYS_ONLY")
    arn = latest_arn(dynamodb, table)
    for i in range(3):
        dynamodb.put_item(TableName=table, Item={"p": {"S": "k"}, "c": {"S": str(i)}})
    everything = read(dynamodbstreams, iterators(dynamodbstreams, arn, "TRIM_HORIZON"), 3)
    assert [r["dynamodb"]["Keys"]["c"]["S"] for r in everything] == ["0", "1", "2"]

    # LATEST: nothing yet, an empty Records list and a NextShardIterator.
    shard = shards(dynamodbstreams, arn)[-1]["ShardId"]
    latest = dynamodbstreams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                                ShardIteratorType="LATEST")["ShardIterator"]
    resp = dynamodbstreams.get_records(ShardIterator=latest)
    assert resp["Records"] == []
    assert "NextShardIterator" in resp
    dynamodb.put_item(TableName=table, Item={"p": {"S": "k"}, "c": {"S": "3"}})
    after = read(dynamodbstreams, [resp["NextShardIterator"]], 1)
    assert [r["dynamodb"]["Keys"]["c"]["S"] for r in after] == ["3"]

    seq = everything[1]["dynamodb"]["SequenceNumber"]
    shard_of = next(s["ShardId"] for s in shards(dynamodbstreams, arn)
                    if int(s["SequenceNumberRange"]["StartingSequenceNumber"]) <= int(seq))
    at = dynamodbstreams.get_shard_iterator(StreamArn=arn, ShardId=shard_of, SequenceNumber=seq,
                                            ShardIteratorType="AT_SEQUENCE_NUMBER")["ShardIterator"]
    got = dynamodbstreams.get_records(ShardIterator=at, Limit=1)["Records"]
    assert got[0]["dynamodb"]["SequenceNumber"] == seq
    aft = dynamodbstreams.get_shard_iterator(StreamArn=arn, ShardId=shard_of, SequenceNumber=seq,
                                             ShardIteratorType="AFTER_SEQUENCE_NUMBER")[
        "ShardIterator"]
    got = dynamodbstreams.get_records(ShardIterator=aft, Limit=1)["Records"]
    assert got[0]["dynamodb"]["Keys"]["c"]["S"] == "2"


def test_get_records_pages_with_limit(dynamodb, dynamodbstreams, make_table):
    table, _ = stream_table(make_table, "KEYS_ONLY")
    arn = latest_arn(dynamodb, table)
    for i in range(5):
        dynamodb.put_item(TableName=table, Item={"p": {"S": "k"}, "c": {"S": str(i)}})
    read(dynamodbstreams, iterators(dynamodbstreams, arn, "TRIM_HORIZON"), 5)
    it = iterators(dynamodbstreams, arn, "TRIM_HORIZON")[-1]
    seen = []
    while it and len(seen) < 5:
        resp = dynamodbstreams.get_records(ShardIterator=it, Limit=2)
        assert len(resp["Records"]) <= 2
        seen += [r["dynamodb"]["Keys"]["c"]["S"] for r in resp["Records"]]
        it = resp.get("NextShardIterator")
    assert seen == ["0", "1", "2", "3", "4"]


def test_batch_and_transaction_writes_appear_once_each(dynamodb, dynamodbstreams, make_table):
    table, _ = stream_table(make_table, "NEW_IMAGE")
    arn = latest_arn(dynamodb, table)
    its = iterators(dynamodbstreams, arn, "LATEST")
    dynamodb.batch_write_item(RequestItems={table: [
        {"PutRequest": {"Item": {"p": {"S": "b"}, "c": {"S": str(i)}}}} for i in range(2)]})
    dynamodb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": {"p": {"S": "t"}, "c": {"S": "0"}}}},
        {"Update": {"TableName": table, "Key": {"p": {"S": "b"}, "c": {"S": "0"}},
                    "UpdateExpression": "SET v = :v",
                    "ExpressionAttributeValues": {":v": {"N": "1"}}}},
        {"Delete": {"TableName": table, "Key": {"p": {"S": "b"}, "c": {"S": "1"}}}},
    ])
    records = read(dynamodbstreams, its, 5)
    got = sorted((r["eventName"], r["dynamodb"]["Keys"]["p"]["S"], r["dynamodb"]["Keys"]["c"]["S"])
                 for r in records)
    assert got == sorted([("INSERT", "b", "0"), ("INSERT", "b", "1"), ("INSERT", "t", "0"),
                          ("MODIFY", "b", "0"), ("REMOVE", "b", "1")])


def test_failed_transaction_writes_nothing_to_the_stream(dynamodb, dynamodbstreams, make_table):
    table, _ = stream_table(make_table, "KEYS_ONLY")
    arn = latest_arn(dynamodb, table)
    its = iterators(dynamodbstreams, arn, "LATEST")
    err = client_error(dynamodb.transact_write_items, TransactItems=[
        {"Put": {"TableName": table, "Item": {"p": {"S": "a"}, "c": {"S": "0"}}}},
        {"ConditionCheck": {"TableName": table, "Key": {"p": {"S": "z"}, "c": {"S": "0"}},
                            "ConditionExpression": "attribute_exists(p)"}},
    ])
    assert err.response["Error"]["Code"] == "TransactionCanceledException"
    dynamodb.put_item(TableName=table, Item={"p": {"S": "marker"}, "c": {"S": "0"}})
    records = read(dynamodbstreams, its, 1)
    assert [r["dynamodb"]["Keys"]["p"]["S"] for r in records] == ["marker"]


def test_disable_closes_the_stream_and_enable_makes_a_new_one(dynamodb, dynamodbstreams,
                                                              make_table, endpoint_url):
    table, _ = stream_table(make_table, "KEYS_ONLY")
    arn = latest_arn(dynamodb, table)
    dynamodb.put_item(TableName=table, Item={"p": {"S": "a"}, "c": {"S": "0"}})
    read(dynamodbstreams, iterators(dynamodbstreams, arn, "TRIM_HORIZON"), 1)
    dynamodb.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})
    desc = dynamodb.describe_table(TableName=table)["Table"]
    assert "StreamSpecification" not in desc
    assert desc["LatestStreamArn"] == arn  # lingers after disabling (DDB-TABLE-050)
    if endpoint_url is None:
        pytest.skip("AWS takes a while to disable; the rest checks the settled state")
    sd = dynamodbstreams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert sd["StreamStatus"] == "DISABLED"
    for s in sd["Shards"]:
        assert s["SequenceNumberRange"]["EndingSequenceNumber"].isdecimal()
    # Still readable; a closed shard read to its end has no NextShardIterator.
    its = iterators(dynamodbstreams, arn, "TRIM_HORIZON")
    total = 0
    for it in its:
        resp = dynamodbstreams.get_records(ShardIterator=it)
        total += len(resp["Records"])
        assert "NextShardIterator" not in resp
    assert total == 1

    dynamodb.update_table(TableName=table,
                          StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    arn2 = latest_arn(dynamodb, table)
    assert arn2 != arn
    listed = {s["StreamArn"] for s in dynamodbstreams.list_streams(TableName=table)["Streams"]}
    assert listed == {arn, arn2}


def test_a_deleted_tables_stream_stays_listed_and_readable(dynamodb, dynamodbstreams,
                                                           make_table, endpoint_url):
    if endpoint_url is None:
        pytest.skip("AWS's stream goes DISABLING first; checked on the emulator")
    table, _ = stream_table(make_table, "KEYS_ONLY")
    arn = latest_arn(dynamodb, table)
    dynamodb.put_item(TableName=table, Item={"p": {"S": "a"}, "c": {"S": "0"}})
    dynamodb.delete_table(TableName=table)
    sd = dynamodbstreams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert sd["StreamStatus"] == "DISABLED" and sd["TableName"] == table
    assert arn in {s["StreamArn"] for s in dynamodbstreams.list_streams(TableName=table)["Streams"]}
    assert len(read(dynamodbstreams, iterators(dynamodbstreams, arn, "TRIM_HORIZON"), 1)) == 1


def test_list_streams_pages(dynamodbstreams, make_table):
    stream_table(make_table, "KEYS_ONLY")
    stream_table(make_table, "KEYS_ONLY")
    seen, start = [], None
    for _ in range(1000):
        kwargs = {"ExclusiveStartStreamArn": start} if start else {}
        page = dynamodbstreams.list_streams(Limit=1, **kwargs)
        assert len(page["Streams"]) <= 1
        seen += [s["StreamArn"] for s in page["Streams"]]
        start = page.get("LastEvaluatedStreamArn")
        if not start:
            break
    assert len(seen) >= 2 and len(seen) == len(set(seen))


def test_list_streams_of_a_table_without_a_stream_is_empty(dynamodbstreams, make_table):
    table = make_table()
    assert dynamodbstreams.list_streams(TableName=table)["Streams"] == []


def test_describe_stream_after_the_last_shard_is_empty(dynamodb, dynamodbstreams, make_table):
    table, _ = stream_table(make_table, "KEYS_ONLY")
    arn = latest_arn(dynamodb, table)
    last = shards(dynamodbstreams, arn)[-1]["ShardId"]
    desc = dynamodbstreams.describe_stream(StreamArn=arn, ExclusiveStartShardId=last)
    assert desc["StreamDescription"]["Shards"] == []


# ---- errors ----

def test_describe_stream_with_a_malformed_arn(dynamodbstreams):
    err = client_error(dynamodbstreams.describe_stream,
                       StreamArn="sdfadfsdfnlfkajakfgjalksfgklasjklasdjfklasdfasdfgasf")
    assert_error(err, "ValidationException", "Invalid StreamArn")


def test_describe_stream_that_does_not_exist(dynamodb, dynamodbstreams, make_table):
    table, _ = stream_table(make_table, "KEYS_ONLY")
    arn = latest_arn(dynamodb, table)
    missing = arn[:-1] + ("1" if arn[-1] != "1" else "2")
    err = client_error(dynamodbstreams.describe_stream, StreamArn=missing)
    assert_error(err, "ResourceNotFoundException",
                 f"Requested resource not found: Stream: {missing} not found")


def test_stream_errors_use_dynamodbs_namespace(raw, dynamodb, make_table):
    table, _ = stream_table(make_table, "KEYS_ONLY")
    arn = latest_arn(dynamodb, table)
    missing = arn[:-1] + ("1" if arn[-1] != "1" else "2")
    resp = raw("DynamoDBStreams_20120810.DescribeStream", {"StreamArn": missing})
    assert_raw_error(resp, DDB + "ResourceNotFoundException",
                     f"Requested resource not found: Stream: {missing} not found")


def test_get_shard_iterator_for_a_missing_shard(dynamodb, dynamodbstreams, make_table):
    table, _ = stream_table(make_table, "KEYS_ONLY")
    arn = latest_arn(dynamodb, table)
    err = client_error(dynamodbstreams.get_shard_iterator, StreamArn=arn,
                       ShardId="shardId-00000000000000000000-00000000",
                       ShardIteratorType="LATEST")
    assert_error(err, "ResourceNotFoundException",
                 "Requested resource not found: Shard does not exist")


def test_get_shard_iterator_sequence_number_goes_with_its_types(dynamodb, dynamodbstreams,
                                                                make_table):
    table, _ = stream_table(make_table, "KEYS_ONLY")
    arn = latest_arn(dynamodb, table)
    shard = shards(dynamodbstreams, arn)[0]
    seq = shard["SequenceNumberRange"]["StartingSequenceNumber"]
    for kind in ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"):
        err = client_error(dynamodbstreams.get_shard_iterator, StreamArn=arn,
                           ShardId=shard["ShardId"], ShardIteratorType=kind)
        assert err.response["Error"]["Code"] == "ValidationException"
    for kind in ("TRIM_HORIZON", "LATEST"):
        err = client_error(dynamodbstreams.get_shard_iterator, StreamArn=arn,
                           ShardId=shard["ShardId"], ShardIteratorType=kind, SequenceNumber=seq)
        assert err.response["Error"]["Code"] == "ValidationException"


def test_get_records_with_a_garbage_iterator(dynamodbstreams):
    err = client_error(dynamodbstreams.get_records,
                       ShardIterator="sdfsdfsgagaddafgagasgasgasdfasdfasdfasdfasdgasdasdgasdg")
    assert err.response["Error"]["Code"] == "ValidationException"


@pytest.mark.parametrize("limit, constraint", [
    (0, "Member must have value greater than or equal to 1"),
    (1001, "Member must have value less than or equal to 1000"),
])
def test_get_records_limit(raw, dynamodb, dynamodbstreams, make_table, limit, constraint):
    table, _ = stream_table(make_table, "KEYS_ONLY")
    arn = latest_arn(dynamodb, table)
    it = iterators(dynamodbstreams, arn, "LATEST")[0]
    assert dynamodbstreams.get_records(ShardIterator=it, Limit=1000)["Records"] == []
    resp = raw("DynamoDBStreams_20120810.GetRecords", {"ShardIterator": it, "Limit": limit})
    assert_raw_error(resp, VALIDATION,
                     f"1 validation error detected: Value '{limit}' at 'limit' failed to satisfy "
                     f"constraint: {constraint}")


def test_streams_targets_answer_unknown_operation_when_misspelt(raw):
    resp = raw("DynamoDBStreams_20120810.ListStream", {})
    assert resp.status == 400
    assert resp.data == {"__type": "com.amazon.coral.service#UnknownOperationException"}


def test_describe_stream_shard_filter_needs_type_and_shard_id(dynamodb, dynamodbstreams, raw,
                                                               make_table):
    # A ShardFilter without its Type, or without its ShardId, is refused with
    # a ValidationException (scylla's test_streams.py
    # test_stream_shard_filtering_missing_type/_missing_shard_id, run against
    # AWS); the text is the model's "must not be null" form (AWS's words are
    # not recorded). With both, only the shard's children are listed.
    # ShardFilter is newer than Debian's botocore: sent raw.
    name, _ = stream_table(make_table)
    arn = latest_arn(dynamodb, name)
    shard_id = dynamodbstreams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0][
        "ShardId"]
    target = "DynamoDBStreams_20120810.DescribeStream"
    assert_raw_error(raw(target, {"StreamArn": arn, "ShardFilter": {"ShardId": shard_id}}),
                     VALIDATION,
                     "1 validation error detected: Value null at 'shardFilter.type' failed to "
                     "satisfy constraint: Member must not be null")
    assert_raw_error(raw(target, {"StreamArn": arn, "ShardFilter": {"Type": "CHILD_SHARDS"}}),
                     VALIDATION,
                     "1 validation error detected: Value null at 'shardFilter.shardId' failed to "
                     "satisfy constraint: Member must not be null")
    resp = raw(target, {"StreamArn": arn,
                        "ShardFilter": {"Type": "CHILD_SHARDS", "ShardId": shard_id}})
    assert resp.status == 200 and resp.data["StreamDescription"]["Shards"] == []
