# SPDX-License-Identifier: MIT
"""Bulk put items: StartBulkPutItems, DescribeBulkOperation,
ListBulkOperations, CancelBulkOperation, through raw signed JSON requests
(Debian's boto3 predates these operations).

What DynamoDB does, and how we know: the API reference pages of the four
operations and of InputS3Configuration / OutputS3Configuration /
BulkOperationDescription (members, constraints, statuses: IN_PROGRESS, then
COMPLETED "without parsing or validation errors. Condition-check failures do
not cause the operation to complete with errors", COMPLETED_WITH_ERRORS, FAILED;
CANCELLING, CANCELLED), and the developer guide's BulkPutItems pages (input
formats DYNAMODB_JSON lines and Ion, GZIP/ZSTD/NONE, per-item condition
expressions, an output report of ERROR and CONDITION_CHECK_FAILURE records).
What those pages leave open - the record's member names, the report's layout,
error texts - ddbemu decided (docs/differences.md, "Bulk put items"); tests
of those are marked "ours". Against AWS the buckets are DDBEMU_S3_BUCKET.
"""

import gzip
import json
import shutil
import subprocess
import time
import uuid

import pytest

from transfer_util import make_bucket, wire_json

FINAL = {"COMPLETED", "COMPLETED_WITH_ERRORS", "FAILED", "CANCELLED"}


@pytest.fixture
def bucket(server, s3_dir, region):
    return make_bucket(server, s3_dir, region)


@pytest.fixture
def out_bucket(server, s3_dir, region):
    return make_bucket(server, s3_dir, region)


def ok(resp):
    assert resp.status == 200, resp.data
    return resp.data


def record(item, **condition):
    rec = {"Item": {k: wire_json(v) for k, v in item.items()}}
    for k, v in condition.items():
        if k == "ExpressionAttributeValues":
            v = {name: wire_json(x) for name, x in v.items()}
        rec[k] = v
    return rec


def lines(records):
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def start(raw, table, bucket, out_bucket, prefix="in/", fmt="DYNAMODB_JSON",
          compression=None, types=("ERROR", "CONDITION_CHECK_FAILURE"), **extra):
    body = {
        "TableName": table,
        "InputS3Configuration": {"S3Bucket": bucket.name, "S3KeyPrefix": prefix,
                                 "InputFormat": fmt},
        "OutputS3Configuration": {"S3Bucket": out_bucket.name, "S3KeyPrefix": "report",
                                  "OutputType": list(types)},
        "ClientToken": str(uuid.uuid4()),
    }
    if compression:
        body["InputS3Configuration"]["InputCompressionType"] = compression
    body.update(extra)
    return raw("StartBulkPutItems", body)


def describe(raw, arn):
    return ok(raw("DescribeBulkOperation", {"BulkOperationArn": arn}))["BulkOperationDescription"]


def wait_done(raw, arn, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        d = describe(raw, arn)
        if d["BulkOperationStatus"] in FINAL:
            return d
        time.sleep(0.1)
    raise AssertionError(f"bulk operation {arn} did not end")


def run(raw, *args, **kwargs):
    d = ok(start(raw, *args, **kwargs))["BulkOperationDescription"]
    return wait_done(raw, d["BulkOperationArn"])


def report_lines(out_bucket, kind):
    keys = [k for k in out_bucket.keys("report/") if k.endswith(f"/{kind}/data.json")]
    if not keys:
        return []
    return [json.loads(x) for x in out_bucket.get(keys[0]).splitlines()]


def scan(dynamodb, table):
    return sorted(dynamodb.scan(TableName=table)["Items"], key=lambda i: json.dumps(i, sort_keys=True,
                                                                                  default=str))


# ---------------------------------------------------------------------------


def test_start_answers_in_progress_then_completes(dynamodb, raw, make_table, bucket, out_bucket):
    # API reference: StartBulkPutItems answers a BulkOperationDescription;
    # EndTime is omitted while the operation is in progress; PerformanceTier
    # defaults to STANDARD.
    table = make_table()
    bucket.put("in/part-1.json", lines([record({"p": {"S": f"k{i}"}, "v": {"N": str(i)}})
                                        for i in range(5)]))
    d = ok(start(raw, table, bucket, out_bucket))["BulkOperationDescription"]
    assert d["BulkOperationStatus"] == "IN_PROGRESS" or d["BulkOperationStatus"] in FINAL
    assert d["TableDetails"][0]["TableName"] == table
    assert d["InputS3Configuration"]["S3Bucket"] == bucket.name
    assert d["InputS3Configuration"]["InputFormat"] == "DYNAMODB_JSON"
    assert d["OutputS3Configuration"]["OutputType"] == ["ERROR", "CONDITION_CHECK_FAILURE"]
    assert d["PerformanceTier"] == "STANDARD"
    assert "StartTime" in d
    done = wait_done(raw, d["BulkOperationArn"])
    assert done["BulkOperationStatus"] == "COMPLETED"
    assert done["ProcessedItemCount"] == 5
    assert done["FailedItemCount"] == 0
    assert done["EndTime"] >= done["StartTime"]
    assert done["TotalInputBytes"] == done["ProcessedInputBytes"] > 0
    assert done["BulkOperationUsage"][0]["TableName"] == table
    assert done["BulkOperationUsage"][0]["BulkPutBytes"] > 0
    assert "FailureCode" not in done
    items = dynamodb.scan(TableName=table)["Items"]
    assert sorted(i["p"]["S"] for i in items) == [f"k{i}" for i in range(5)]


def test_table_arn_names_the_table(dynamodb, raw, make_table, bucket, out_bucket):
    # API reference: TableName is "The name or ARN of the existing DynamoDB table".
    table = make_table()
    arn = dynamodb.describe_table(TableName=table)["Table"]["TableArn"]
    bucket.put("in/a.json", lines([record({"p": {"S": "x"}})]))
    done = run(raw, arn, bucket, out_bucket)
    assert done["BulkOperationStatus"] == "COMPLETED"
    assert done["TableDetails"][0]["TableName"] == table
    assert dynamodb.get_item(TableName=table, Key={"p": {"S": "x"}})["Item"]


def _zstd(data):
    if not shutil.which("zstd"):
        pytest.skip("needs the zstd command")
    return subprocess.run(["zstd", "-q", "-c"], input=data, capture_output=True,
                          check=True).stdout


@pytest.mark.parametrize("fmt,compression", [("DYNAMODB_JSON", "GZIP"), ("DYNAMODB_JSON", "ZSTD"),
                                             ("ION", "NONE"), ("ION", "GZIP")])
def test_formats_and_compressions(dynamodb, raw, make_table, bucket, out_bucket, fmt,
                                  compression):
    # Developer guide, BulkPutItems.Format: DYNAMODB_JSON (JSON lines) and ION,
    # compressed with GZIP or ZSTD or not at all.
    table = make_table(("p", "S"), ("c", "N"))
    if fmt == "ION":
        data = (b'$ion_1_0 {Item:{p:"a",c:1.,s:"x y",l:["q",2.5],m:{k:true}}}\n'
                b'{Item:{p:"a",c:2.,ss:$dynamodb_SS::["u","v"]}, '
                b'ConditionExpression:"attribute_not_exists(#p)", '
                b'ExpressionAttributeNames:{\'#p\':"p"}}\n')
    else:
        data = lines([
            record({"p": {"S": "a"}, "c": {"N": "1"}, "s": {"S": "x y"},
                    "l": {"L": [{"S": "q"}, {"N": "2.5"}]}, "m": {"M": {"k": {"BOOL": True}}}}),
            record({"p": {"S": "a"}, "c": {"N": "2"}, "ss": {"SS": ["u", "v"]}},
                   ConditionExpression="attribute_not_exists(#p)",
                   ExpressionAttributeNames={"#p": "p"}),
        ])
    if compression == "GZIP":
        data = gzip.compress(data)
    elif compression == "ZSTD":
        data = _zstd(data)
    bucket.put("in/data", data)
    done = run(raw, table, bucket, out_bucket, fmt=fmt, compression=compression)
    assert done["BulkOperationStatus"] == "COMPLETED", done
    assert done["InputS3Configuration"]["InputCompressionType"] == compression
    got = dynamodb.query(TableName=table, KeyConditionExpression="p = :p",
                         ExpressionAttributeValues={":p": {"S": "a"}})["Items"]
    assert got[0]["s"] == {"S": "x y"}
    assert got[0]["l"] == {"L": [{"S": "q"}, {"N": "2.5"}]}
    assert got[0]["m"] == {"M": {"k": {"BOOL": True}}}
    assert sorted(got[1]["ss"]["SS"]) == ["u", "v"]


def test_conditions_and_their_report(dynamodb, raw, make_table, bucket, out_bucket):
    # Developer guide: per-item condition expressions decide whether an item is
    # written; CONDITION_CHECK_FAILURE reports "the attempted item and, when
    # present, the existing item"; condition failures do not make the
    # operation COMPLETED_WITH_ERRORS nor count in FailedItemCount.
    # Record member names and the report's layout: ours.
    table = make_table()
    dynamodb.put_item(TableName=table, Item={"p": {"S": "old"}, "v": {"N": "1"}})
    recs = [
        record({"p": {"S": "old"}, "v": {"N": "2"}}, ConditionExpression="attribute_not_exists(p)"),
        record({"p": {"S": "new"}, "v": {"N": "3"}}, ConditionExpression="attribute_not_exists(p)"),
        record({"p": {"S": "old"}, "v": {"N": "9"}}, ConditionExpression="v < :max",
               ExpressionAttributeValues={":max": {"N": "0"}}),
        record({"p": {"S": "none"}, "v": {"N": "4"}}, ConditionExpression="attribute_exists(p)"),
    ]
    bucket.put("in/c.json", lines(recs))
    done = run(raw, table, bucket, out_bucket)
    assert done["BulkOperationStatus"] == "COMPLETED"
    assert done["ProcessedItemCount"] == 4
    assert done["FailedItemCount"] == 0
    assert dynamodb.get_item(TableName=table, Key={"p": {"S": "old"}})["Item"]["v"] == {"N": "1"}
    assert dynamodb.get_item(TableName=table, Key={"p": {"S": "new"}})["Item"]["v"] == {"N": "3"}
    assert "Item" not in dynamodb.get_item(TableName=table, Key={"p": {"S": "none"}})
    failures = report_lines(out_bucket, "CONDITION_CHECK_FAILURE")
    assert [(f["ObjectKey"], f["LineNumber"]) for f in failures] == [
        ("in/c.json", 1), ("in/c.json", 3), ("in/c.json", 4)]
    assert failures[0]["AttemptedItem"] == {"p": {"S": "old"}, "v": {"N": "2"}}
    assert failures[0]["ExistingItem"] == {"p": {"S": "old"}, "v": {"N": "1"}}
    assert "ExistingItem" not in failures[2]
    assert report_lines(out_bucket, "ERROR") == []
    manifest = [k for k in out_bucket.keys("report/") if k.endswith("manifest-summary.json")]
    summary = json.loads(out_bucket.get(manifest[0]))
    assert summary["bulkOperationArn"] == done["BulkOperationArn"]
    assert summary["conditionCheckFailedItemCount"] == 3


def test_errors_complete_with_errors_and_keep_the_rest(dynamodb, raw, make_table, bucket,
                                                       out_bucket):
    # API reference: COMPLETED_WITH_ERRORS when at least one input item could
    # not be processed "because of a parsing or validation error"; ERROR output
    # "includes malformed input and item validation failures, such as a missing
    # or incorrectly typed primary key attribute". What stops an object: ours.
    table = make_table()
    good = record({"p": {"S": "good"}})
    bucket.put("in/1.json", lines([
        good,
        record({"q": {"S": "no key"}}),
        record({"p": {"N": "1"}}),
        record({"p": {"S": "cond"}}, ConditionExpression="attribute_not_exists("),
        record({"p": {"S": "unused"}}, ConditionExpression="attribute_exists(p)",
               ExpressionAttributeValues={":x": {"S": "y"}}),
        {"NoItem": {}},
        record({"p": {"S": "after"}}),
    ]))
    bucket.put("in/2.json", json.dumps(record({"p": {"S": "first"}})).encode() + b"\n" +
               b"this is not json\n" + json.dumps(record({"p": {"S": "skipped"}})).encode() + b"\n")
    done = run(raw, table, bucket, out_bucket, types=["ERROR"])
    assert done["BulkOperationStatus"] == "COMPLETED_WITH_ERRORS"
    assert done["FailedItemCount"] == 6
    assert done["ProcessedItemCount"] == 9
    keys = sorted(i["p"]["S"] for i in dynamodb.scan(TableName=table)["Items"])
    assert keys == ["after", "first", "good"]
    errors = report_lines(out_bucket, "ERROR")
    where = [(e["ObjectKey"], e["LineNumber"]) for e in errors]
    assert where == [("in/1.json", 2), ("in/1.json", 3), ("in/1.json", 4), ("in/1.json", 5),
                     ("in/1.json", 6), ("in/2.json", 2)]
    # PutItem's own messages for the same items.
    assert errors[0]["ErrorMessage"] == (
        "One or more parameter values were invalid: Missing the key p in the item")
    assert errors[1]["ErrorMessage"] == (
        "One or more parameter values were invalid: Type mismatch for key p expected: S "
        "actual: N")
    assert errors[3]["ErrorMessage"] == (
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}")
    assert errors[5]["InputRecord"] == "this is not json"
    assert report_lines(out_bucket, "CONDITION_CHECK_FAILURE") == []


def test_writes_reach_indexes_and_streams(dynamodb, dynamodbstreams, raw, make_table, bucket,
                                          out_bucket):
    # The items are written as PutItem writes them: a GSI and the table's
    # stream see them. BulkOperationUsage has BulkPutBytes per index.
    table = make_table(
        ("p", "S"),
        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": "byg",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    bucket.put("in/x.json", lines([record({"p": {"S": f"k{i}"}, "g": {"S": "G"}})
                                   for i in range(3)] + [record({"p": {"S": "nog"}})]))
    done = run(raw, table, bucket, out_bucket)
    assert done["BulkOperationStatus"] == "COMPLETED"
    got = dynamodb.query(TableName=table, IndexName="byg", KeyConditionExpression="g = :g",
                         ExpressionAttributeValues={":g": {"S": "G"}})["Items"]
    assert len(got) == 3
    usage = done["BulkOperationUsage"][0]
    assert usage["GlobalSecondaryIndexes"]["byg"]["BulkPutBytes"] > 0
    assert usage["Table"]["BulkPutBytes"] == usage["BulkPutBytes"]
    assert usage["BulkPutBytes"] > usage["GlobalSecondaryIndexes"]["byg"]["BulkPutBytes"]
    stream_arn = dynamodb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    shard = dynamodbstreams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"][0]
    it = dynamodbstreams.get_shard_iterator(StreamArn=stream_arn, ShardId=shard["ShardId"],
                                            ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = dynamodbstreams.get_records(ShardIterator=it)["Records"]
    assert sorted(r["dynamodb"]["Keys"]["p"]["S"] for r in records) == ["k0", "k1", "k2", "nog"]
    assert {r["eventName"] for r in records} == {"INSERT"}


def test_client_token(raw, make_table, bucket, out_bucket):
    # API reference: the same token and parameters within 8 hours return the
    # same bulk operation; the token with other parameters is
    # IdempotentParameterMismatchException.
    table = make_table()
    bucket.put("in/a.json", lines([record({"p": {"S": "x"}})]))
    token = str(uuid.uuid4())
    first = ok(start(raw, table, bucket, out_bucket, ClientToken=token))
    arn = first["BulkOperationDescription"]["BulkOperationArn"]
    wait_done(raw, arn)
    again = ok(start(raw, table, bucket, out_bucket, ClientToken=token))
    assert again["BulkOperationDescription"]["BulkOperationArn"] == arn
    assert again["BulkOperationDescription"]["ClientToken"] == token
    other = start(raw, table, bucket, out_bucket, ClientToken=token, prefix="other/")
    assert other.status == 400
    assert other.data["__type"].endswith("#IdempotentParameterMismatchException")


def test_request_validation(raw, make_table, bucket, out_bucket):
    # Constraints of the API reference, in Coral's sentence form.
    table = make_table()
    r = start(raw, table, bucket, out_bucket, MaxWriteRequestUnits=1000)
    assert r.status == 400
    assert r.data["__type"] == "com.amazon.coral.validate#ValidationException"
    assert r.data["message"] == (
        "1 validation error detected: Value '1000' at 'maxWriteRequestUnits' failed to "
        "satisfy constraint: Member must have value greater than or equal to 1024")
    r = start(raw, table, bucket, out_bucket, fmt="CSV")
    assert r.status == 400
    assert "Member must satisfy enum value set: [DYNAMODB_JSON, ION]" in r.data["message"]
    r = start(raw, table, bucket, out_bucket, types=["WARNING"])
    assert r.status == 400
    assert "outputS3Configuration.outputType" in r.data["message"]
    r = raw("StartBulkPutItems", {"TableName": table,
                                  "InputS3Configuration": {"S3Bucket": bucket.name,
                                                           "InputFormat": "ION"}})
    assert r.status == 400
    assert ("Value null at 'outputS3Configuration' failed to satisfy constraint: Member must "
            "not be null") in r.data["message"]
    r = start(raw, table, bucket, out_bucket, ClientToken="a$b")
    assert r.status == 400
    assert "Member must satisfy regular expression pattern: ^[^\\$]+$" in r.data["message"]
    body = {"TableName": table,
            "InputS3Configuration": {"S3Bucket": "-bad-", "InputFormat": "ION"},
            "OutputS3Configuration": {"S3Bucket": out_bucket.name, "OutputType": ["ERROR"]}}
    r = raw("StartBulkPutItems", body)
    assert r.status == 400
    assert "at 'inputS3Configuration.s3Bucket'" in r.data["message"]


def test_missing_table_and_operation(raw, bucket, out_bucket, region):
    # ResourceNotFoundException for a table or an operation that is not there.
    r = start(raw, "no_such_table_" + uuid.uuid4().hex[:8], bucket, out_bucket)
    assert r.status == 400
    assert r.data["__type"].endswith("#ResourceNotFoundException")
    arn = (f"arn:aws:dynamodb:{region}:000000000000:table/none/bulk-operation/"
           "01700000000000-00000000")
    for op in ("DescribeBulkOperation", "CancelBulkOperation"):
        r = raw(op, {"BulkOperationArn": arn})
        assert r.status == 400
        assert r.data["__type"].endswith("#ResourceNotFoundException")
    r = raw("DescribeBulkOperation", {"BulkOperationArn": "short"})
    assert r.status == 400
    assert "Member must have length greater than or equal to 37" in r.data["message"]


def test_missing_bucket_fails(raw, make_table, bucket):
    # As an import: a bucket that does not exist ends the operation FAILED
    # with S3NoSuchBucket (FailureCode/FailureMessage "only when FAILED or
    # CANCELLED").
    table = make_table()

    class Gone:
        name = "no-such-bucket-" + uuid.uuid4().hex[:8]

    done = run(raw, table, Gone, bucket)
    assert done["BulkOperationStatus"] == "FAILED"
    assert done["FailureCode"] == "S3NoSuchBucket"
    assert done["FailureMessage"] == "The specified bucket does not exist"


def test_cancel_of_an_ended_operation(raw, make_table, bucket, out_bucket):
    # Ours: an operation that has ended cannot be cancelled.
    table = make_table()
    bucket.put("in/a.json", lines([record({"p": {"S": "x"}})]))
    done = run(raw, table, bucket, out_bucket)
    r = raw("CancelBulkOperation", {"BulkOperationArn": done["BulkOperationArn"]})
    assert r.status == 400
    assert r.data["__type"] == "com.amazon.coral.validate#ValidationException"
    assert describe(raw, done["BulkOperationArn"])["BulkOperationStatus"] == "COMPLETED"


def test_list_pages_newest_first(raw, make_table, bucket, out_bucket):
    # API reference: MaxResults 1..25 (default 10), NextToken
    # "([0-9a-f]{16})+", "with the most recent operations first".
    bucket.put("in/a.json", lines([record({"p": {"S": "x"}})]))
    arns = []
    for _ in range(3):
        arns.append(run(raw, make_table(), bucket, out_bucket)["BulkOperationArn"])
    seen, token = [], None
    while True:
        body = {"MaxResults": 1}
        if token:
            body["NextToken"] = token
        page = ok(raw("ListBulkOperations", body))
        assert len(page["BulkOperationsSummaryList"]) <= 1
        for s in page["BulkOperationsSummaryList"]:
            assert set(s) >= {"BulkOperationArn", "BulkOperationStatus", "StartTime"}
            seen.append(s["BulkOperationArn"])
        token = page.get("NextToken")
        if not token:
            break
    mine = [a for a in seen if a in arns]
    assert mine == list(reversed(arns))
    first = ok(raw("ListBulkOperations", {}))["BulkOperationsSummaryList"]
    assert len(first) <= 10
    r = raw("ListBulkOperations", {"MaxResults": 26})
    assert r.status == 400
    assert "Member must have value less than or equal to 25" in r.data["message"]
    r = raw("ListBulkOperations", {"NextToken": "not-a-token"})
    assert r.status == 400
    assert "Member must satisfy regular expression pattern: ([0-9a-f]{16})+" in r.data["message"]
