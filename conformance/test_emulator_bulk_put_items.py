# SPDX-License-Identifier: MIT
"""Bulk put items where only the emulator can be asked: --throughput-model
aws paces an operation at its MaxWriteRequestUnits ("The maximum rate, in
write request units per second, at which the bulk operation attempts to
write ... you limit only the bulk operation; the table's provisioned or
on-demand capacity settings don't change": API reference), which makes an
operation slow enough to watch its progress and to cancel it
("Cancellation doesn't remove items that the operation has already
written"; IN_PROGRESS -> CANCELLING -> CANCELLED), and the engine stops
running operations when it closes; with --db-path the operations are kept.
"""

import json
import time
import uuid

from transfer_util import LocalBucket
from util import raw_call

FINAL = {"COMPLETED", "COMPLETED_WITH_ERRORS", "FAILED", "CANCELLED"}


def make_job(srv, s3_dir, count, **table_args):
    client = srv.client()
    table = "bulk_" + uuid.uuid4().hex[:8]
    args = {"BillingMode": "PAY_PER_REQUEST"}
    args.update(table_args)
    client.create_table(TableName=table,
                        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}],
                        **args)
    src = LocalBucket(s3_dir, f"in-{uuid.uuid4().hex[:12]}")
    out = LocalBucket(s3_dir, f"out-{uuid.uuid4().hex[:12]}")
    src.put("data.json", b"".join(
        json.dumps({"Item": {"p": {"S": f"k{i:05}"}}}).encode() + b"\n" for i in range(count)))
    return client, table, src, out


def start(client, table, src, out, **extra):
    body = {"TableName": table,
            "InputS3Configuration": {"S3Bucket": src.name, "InputFormat": "DYNAMODB_JSON"},
            "OutputS3Configuration": {"S3Bucket": out.name, "OutputType": ["ERROR"]}}
    body.update(extra)
    status, data = raw_call(client, "StartBulkPutItems", body)
    assert status == 200, data
    return data["BulkOperationDescription"]["BulkOperationArn"]


def describe(client, arn):
    status, data = raw_call(client, "DescribeBulkOperation", {"BulkOperationArn": arn})
    assert status == 200, data
    return data["BulkOperationDescription"]


def wait_done(client, arn, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        d = describe(client, arn)
        if d["BulkOperationStatus"] in FINAL:
            return d
        time.sleep(0.1)
    raise AssertionError("the bulk operation did not end")


def count_items(client, table):
    n, args = 0, {"TableName": table, "Select": "COUNT"}
    while True:
        page = client.scan(**args)
        n += page["Count"]
        if "LastEvaluatedKey" not in page:
            return n
        args["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def test_paced_operation_shows_progress_and_can_be_cancelled(start_server, s3_dir):
    srv = start_server("--s3-dir", s3_dir, "--throughput-model", "aws")
    client, table, src, out = make_job(srv, s3_dir, 4096)
    # 4,096 one-unit items at 1,024 units a second take about four seconds.
    arn = start(client, table, src, out, MaxWriteRequestUnits=1024)
    d = describe(client, arn)
    deadline = time.time() + 10
    while d["ProcessedItemCount"] == 0 and time.time() < deadline:
        time.sleep(0.05)
        d = describe(client, arn)
    assert d["BulkOperationStatus"] == "IN_PROGRESS"
    assert d["MaxWriteRequestUnits"] == 1024
    assert "EndTime" not in d
    assert 0 < d["ProcessedItemCount"] < 4096
    status, data = raw_call(client, "CancelBulkOperation", {"BulkOperationArn": arn})
    assert status == 200, data
    assert data == {"BulkOperationArn": arn, "BulkOperationStatus": "CANCELLING"}
    # A second cancellation answers the same while the workers are still
    # stopping; on a busy machine they may have stopped already, and then the
    # operation has ended and refuses it as any ended operation does.
    status, data = raw_call(client, "CancelBulkOperation", {"BulkOperationArn": arn})
    if status == 200:
        assert data["BulkOperationStatus"] == "CANCELLING"
    else:
        assert (status, data["__type"].split("#")[-1]) == (400, "ValidationException"), data
        assert "cannot be cancelled because it is" in data["message"], data
        assert describe(client, arn)["BulkOperationStatus"] == "CANCELLED"
    d = wait_done(client, arn)
    assert d["BulkOperationStatus"] == "CANCELLED"
    assert "EndTime" in d
    assert 0 < d["ProcessedItemCount"] < 4096
    # What was written stays.
    assert count_items(client, table) == d["ProcessedItemCount"]


def test_paced_operation_completes(start_server, s3_dir):
    srv = start_server("--s3-dir", s3_dir, "--throughput-model", "aws")
    client, table, src, out = make_job(srv, s3_dir, 2048)
    arn = start(client, table, src, out, MaxWriteRequestUnits=1024)
    assert describe(client, arn)["BulkOperationStatus"] == "IN_PROGRESS"
    d = wait_done(client, arn)
    assert d["BulkOperationStatus"] == "COMPLETED"
    assert d["ProcessedItemCount"] == 2048
    assert count_items(client, table) == 2048


def test_bulk_writes_do_not_spend_the_tables_capacity(start_server, s3_dir):
    # A provisioned table of 1 WCU takes 300 items at once: the operation is
    # limited by its own rate, not by the table's capacity (ours, from the
    # API reference's "you limit only the bulk operation").
    srv = start_server("--s3-dir", s3_dir, "--throughput-model", "aws")
    client, table, src, out = make_job(
        srv, s3_dir, 300, BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    d = wait_done(client, start(client, table, src, out))
    assert d["BulkOperationStatus"] == "COMPLETED"
    assert count_items(client, table) == 300


def test_a_running_operation_does_not_hold_up_shutdown(start_server, s3_dir):
    srv = start_server("--s3-dir", s3_dir, "--throughput-model", "aws")
    client, table, src, out = make_job(srv, s3_dir, 20000)
    arn = start(client, table, src, out, MaxWriteRequestUnits=1024)
    assert describe(client, arn)["BulkOperationStatus"] == "IN_PROGRESS"
    begun = time.time()
    assert srv.stop() is None
    assert time.time() - begun < 10


def test_db_path_keeps_the_items_and_the_operations(start_server, s3_dir, tmp_path):
    # The items are ordinary writes, journaled as PutItem's are; each
    # operation's description is recorded whenever it changes, so that after
    # a restart DescribeBulkOperation answers it as it was and
    # ListBulkOperations lists it. One still running when the emulator stops
    # does not end with it on AWS; here it ends FAILED (docs/differences.md).
    data = str(tmp_path / "data")
    srv = start_server("--s3-dir", s3_dir, "--db-path", data, "--throughput-model", "aws")
    client, table, src, out = make_job(srv, s3_dir, 50)
    done = wait_done(client, start(client, table, src, out, ClientToken="tok-" + table))
    assert done["BulkOperationStatus"] == "COMPLETED"
    client, slow, src2, out2 = make_job(srv, s3_dir, 20000)
    running = start(client, slow, src2, out2, MaxWriteRequestUnits=1024)
    assert describe(client, running)["BulkOperationStatus"] == "IN_PROGRESS"
    status, before = raw_call(client, "ListBulkOperations", {})
    assert status == 200, before
    assert srv.stop() is None

    srv = start_server("--s3-dir", s3_dir, "--db-path", data, "--throughput-model", "aws")
    client = srv.client()
    assert count_items(client, table) == 50
    assert describe(client, done["BulkOperationArn"]) == done
    stopped = describe(client, running)
    assert stopped["BulkOperationStatus"] == "FAILED"
    assert stopped["FailureCode"] == "InternalServerError"
    assert stopped["ProcessedItemCount"] == count_items(client, slow) < 20000
    status, listed = raw_call(client, "ListBulkOperations", {})
    assert status == 200, listed
    assert [s["BulkOperationArn"] for s in listed["BulkOperationsSummaryList"]] == [
        s["BulkOperationArn"] for s in before["BulkOperationsSummaryList"]] == [
        running, done["BulkOperationArn"]]
    # The client token is remembered too: a retry answers the same operation.
    assert start(client, table, src, out, ClientToken="tok-" + table) == done["BulkOperationArn"]
