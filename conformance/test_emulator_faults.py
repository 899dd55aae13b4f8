# SPDX-License-Identifier: MIT
"""Emulator only: fault injection (--faults FILE, /ddbemu/faults).

DynamoDB throttles, fails with 5xx, leaves batches partly processed, cancels
transactions and loses answers on its own schedule; ddbemu does it on demand
so that retry code can be tested. Each fault answers as DynamoDB does (status,
__type and message: storage/base/error.h, api/faults/fault_rule.c), and the
SDK's own retry machinery - boto3's standard and adaptive modes here, the
JavaScript SDK v3 in conformance/js/faults.test.mjs - is what recovers.

Each test runs its own ddbemu (start_server), so its rules touch no other test.
"""

import json
import socket
import threading
import time
import urllib.error
import urllib.request
import uuid

import boto3
import botocore.config
import botocore.exceptions
import pytest

from conftest import ACCESS_KEY, SECRET_KEY, REGION, make_client
from util import DDB, raw_call, unique_table_name

pytestmark = pytest.mark.usefixtures("emulator")


def faults(srv, method="GET", body=None, path="faults"):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"{srv.endpoint_url}/ddbemu/{path}", data=data, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def add_rule(srv, rule):
    status, body = faults(srv, "POST", rule)
    assert status == 200, body
    return body["ids"][0]


def rule_state(srv, rule_id):
    return next(r for r in faults(srv)[1]["faults"] if r["id"] == rule_id)


def retrying_client(srv, mode, attempts=5):
    return boto3.client(
        "dynamodb", endpoint_url=srv.endpoint_url, region_name=REGION,
        aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
        config=botocore.config.Config(retries={"mode": mode, "total_max_attempts": attempts},
                                      read_timeout=60))


def make_table(ddb, name=None):
    name = name or unique_table_name("faults")
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    return name


# The errors a fault can answer, as DynamoDB sends them (developerguide
# Programming.Errors, "Error messages and codes"; the API reference's Errors).
ERRORS = [
    ("ThrottlingException", 400, "com.amazon.coral.availability#ThrottlingException",
     "message", "Rate of requests exceeds the allowed throughput."),
    ("ProvisionedThroughputExceededException", 400, DDB + "ProvisionedThroughputExceededException",
     "message", "The level of configured provisioned throughput for the table was exceeded. "
     "Consider increasing your provisioning level with the UpdateTable API."),
    ("RequestLimitExceeded", 400, DDB + "RequestLimitExceeded", "message",
     "Throughput exceeds the current throughput limit for your account. To request a limit "
     "increase, contact AWS Support at https://aws.amazon.com/support."),
    ("InternalServerError", 500, DDB + "InternalServerError", "message", "Internal server error"),
    ("ServiceUnavailable", 503, DDB + "ServiceUnavailable", "message",
     "DynamoDB is currently unavailable. (This should be a temporary state.)"),
    ("TransactionConflictException", 400, DDB + "TransactionConflictException", "message",
     "Transaction is ongoing for the item"),
    ("TransactionInProgressException", 400, DDB + "TransactionInProgressException", "Message",
     "The transaction with the given request token is already in progress."),
    ("ItemCollectionSizeLimitExceededException", 400,
     DDB + "ItemCollectionSizeLimitExceededException", "message", "Collection size exceeded."),
    ("LimitExceededException", 400, DDB + "LimitExceededException", "message",
     "Too many operations for a given subscriber."),
]


def test_every_error_answers_as_dynamodb_and_changes_nothing(start_server):
    srv = start_server()
    ddb = srv.client()
    table = make_table(ddb)
    for name, status, type_, key, message in ERRORS:
        add_rule(srv, {"id": name, "match": {"operation": "PutItem", "table": table},
                       "action": {"type": "error", "error": name}, "trigger": {"times": 1}})
        got_status, body = raw_call(ddb, "PutItem", {"TableName": table,
                                                     "Item": {"pk": {"S": name}}})
        assert (got_status, body) == (status, {"__type": type_, key: message}), name
        assert "Item" not in ddb.get_item(TableName=table, Key={"pk": {"S": name}})
        assert rule_state(srv, name)["fired"] == 1
    # A refused call is not counted by the access-pattern report: it never ran.
    report = json.loads(urllib.request.urlopen(
        f"{srv.endpoint_url}/ddbemu/insight/{table}").read())
    assert report["tables"][0]["requests"].get("PutItem", 0) == 0


@pytest.mark.parametrize("mode", ["standard", "adaptive"])
@pytest.mark.parametrize("error", ["ThrottlingException", "ProvisionedThroughputExceededException",
                                   "InternalServerError", "ServiceUnavailable"])
def test_boto3_retry_modes_get_a_faulted_put_through(start_server, mode, error):
    srv = start_server()
    table = make_table(srv.client())
    rule = add_rule(srv, {"match": {"operation": "PutItem"},
                          "action": {"type": "error", "error": error}, "trigger": {"times": 2}})
    ddb = retrying_client(srv, mode)
    resp = ddb.put_item(TableName=table, Item={"pk": {"S": "a"}})
    assert resp["ResponseMetadata"]["RetryAttempts"] == 2
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}
    assert rule_state(srv, rule)["fired"] == 2


def test_rules_match_by_operation_table_index_access_key_and_key(start_server):
    srv = start_server()
    ddb = srv.client()
    other = make_client(srv.endpoint_url, access_key="someoneElse")
    table, second = make_table(ddb), make_table(ddb)
    make_table(other, table)
    add_rule(srv, {"match": {"operation": ["PutItem", "DeleteItem"], "table": table,
                             "access_key": ACCESS_KEY, "key": {"pk": {"S": "hot"}}},
                   "action": {"type": "error", "error": "ThrottlingException"}})
    refused = botocore.exceptions.ClientError
    with pytest.raises(refused):
        ddb.put_item(TableName=table, Item={"pk": {"S": "hot"}, "x": {"N": "1"}})
    with pytest.raises(refused):
        ddb.delete_item(TableName=table, Key={"pk": {"S": "hot"}})
    ddb.put_item(TableName=table, Item={"pk": {"S": "cold"}})          # another key
    ddb.put_item(TableName=second, Item={"pk": {"S": "hot"}})          # another table
    other.put_item(TableName=table, Item={"pk": {"S": "hot"}})         # another access key
    ddb.get_item(TableName=table, Key={"pk": {"S": "hot"}})            # another operation
    # An index: only Query/Scan naming it.
    faults(srv, "DELETE")
    ddb.update_table(TableName=table, AttributeDefinitions=[
        {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {"IndexName": "byG", "KeySchema": [
            {"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}}])
    add_rule(srv, {"match": {"table": table, "index": "byG"},
                   "action": {"type": "error", "error": "InternalServerError"}})
    ddb.scan(TableName=table)
    with pytest.raises(refused):
        ddb.scan(TableName=table, IndexName="byG")


def test_latency_holds_the_answer_without_blocking_other_connections(start_server):
    # One worker thread: if the held answer held the thread, the second
    # connection's request could not be answered until the first one was.
    srv = start_server("--threads", "1")
    ddb = srv.client()
    table = make_table(ddb)
    ddb.put_item(TableName=table, Item={"pk": {"S": "slow"}})
    add_rule(srv, {"match": {"operation": "GetItem", "key": {"pk": {"S": "slow"}}},
                   "action": {"type": "latency", "ms": 4000}, "trigger": {"times": 1}})
    result = {}

    def slow_get():
        start = time.monotonic()
        result["item"] = srv.client().get_item(TableName=table, Key={"pk": {"S": "slow"}})["Item"]
        result["seconds"] = time.monotonic() - start

    t = threading.Thread(target=slow_get)
    t.start()
    while rule_state(srv, "fault-1")["fired"] == 0:
        time.sleep(0.01)
    # The held answer is still due when another connection is served.
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "fast"}}).get("Item") is None
    assert t.is_alive()
    t.join(60)
    assert result["item"] == {"pk": {"S": "slow"}}
    assert result["seconds"] >= 4.0


def test_batch_write_loop_resending_unprocessed_items_writes_everything(start_server):
    srv = start_server()
    ddb = srv.client()
    table = make_table(ddb)
    rule = add_rule(srv, {"match": {"operation": "BatchWriteItem"},
                          "action": {"type": "unprocessed", "count": 4}, "trigger": {"times": 3}})
    pending = {table: [{"PutRequest": {"Item": {"pk": {"S": f"item{i}"}}}} for i in range(10)]}
    rounds = []
    while pending:
        resp = ddb.batch_write_item(RequestItems=pending)
        pending = resp["UnprocessedItems"]
        rounds.append(sum(len(v) for v in pending.values()))
    assert rounds == [4, 4, 4, 0]
    assert rule_state(srv, rule)["fired"] == 3
    items = ddb.scan(TableName=table)["Items"]
    assert sorted(i["pk"]["S"] for i in items) == [f"item{i}" for i in range(10)]
    # The report counts what was written, once each: the withheld requests never
    # ran, and the second and third rounds withheld all four, so only the first
    # and the last batch reached the table.
    report = json.loads(urllib.request.urlopen(
        f"{srv.endpoint_url}/ddbemu/insight/{table}").read())["tables"][0]
    assert report["items"]["written"] == 10
    assert report["requests"]["BatchWriteItem"] == 2


def test_batch_get_unprocessed_keys_keep_their_table_request(start_server):
    srv = start_server()
    ddb = srv.client()
    table = make_table(ddb)
    for i in range(3):
        ddb.put_item(TableName=table, Item={"pk": {"S": f"k{i}"}, "v": {"N": str(i)}})
    add_rule(srv, {"match": {"operation": "BatchGetItem", "key": {"pk": {"S": "k1"}}},
                   "action": {"type": "unprocessed"}, "trigger": {"times": 1}})
    request = {table: {"Keys": [{"pk": {"S": f"k{i}"}} for i in range(3)],
                       "ConsistentRead": True, "ProjectionExpression": "pk"}}
    resp = ddb.batch_get_item(RequestItems=request)
    assert sorted(i["pk"]["S"] for i in resp["Responses"][table]) == ["k0", "k2"]
    assert resp["UnprocessedKeys"] == {table: {"Keys": [{"pk": {"S": "k1"}}],
                                               "ConsistentRead": True,
                                               "ProjectionExpression": "pk"}}
    again = ddb.batch_get_item(RequestItems=resp["UnprocessedKeys"])
    assert again["Responses"][table] == [{"pk": {"S": "k1"}}]
    assert again["UnprocessedKeys"] == {}


def test_cancel_a_transaction_at_a_chosen_position(start_server):
    srv = start_server()
    ddb = srv.client()
    table = make_table(ddb)
    add_rule(srv, {"match": {"operation": "TransactWriteItems"},
                   "action": {"type": "cancel", "reason": "ConditionalCheckFailed",
                              "position": 1}, "trigger": {"times": 1}})
    items = [{"Put": {"TableName": table, "Item": {"pk": {"S": f"t{i}"}}}} for i in range(3)]
    status, body = raw_call(ddb, "TransactWriteItems", {"TransactItems": items})
    assert status == 400
    assert body == {
        "__type": DDB + "TransactionCanceledException",
        "CancellationReasons": [{"Code": "None"},
                                {"Code": "ConditionalCheckFailed",
                                 "Message": "The conditional request failed"},
                                {"Code": "None"}],
        "Message": "Transaction cancelled, please refer cancellation reasons for specific "
                   "reasons [None, ConditionalCheckFailed, None]"}
    assert ddb.scan(TableName=table)["Items"] == []
    # By key: the action that names it; a TransactionConflict, which boto3 sees
    # as the same exception with its reasons.
    add_rule(srv, {"match": {"key": {"pk": {"S": "t2"}}},
                   "action": {"type": "cancel", "reason": "TransactionConflict"},
                   "trigger": {"times": 1}})
    with pytest.raises(botocore.exceptions.ClientError) as e:
        ddb.transact_write_items(TransactItems=items)
    assert [r["Code"] for r in e.value.response["CancellationReasons"]] == [
        "None", "None", "TransactionConflict"]
    ddb.transact_write_items(TransactItems=items)
    assert len(ddb.scan(TableName=table)["Items"]) == 3


@pytest.mark.parametrize("how", ["500", "reset"])
def test_lost_answer_transaction_retried_with_its_token_is_applied_once(start_server, how):
    srv = start_server()
    table = make_table(srv.client())
    rule = add_rule(srv, {"match": {"operation": "TransactWriteItems"},
                          "action": {"type": "lose_answer", "how": how}, "trigger": {"times": 1}})
    ddb = retrying_client(srv, "standard")
    token = str(uuid.uuid4())
    resp = ddb.transact_write_items(ClientRequestToken=token, TransactItems=[{"Update": {
        "TableName": table, "Key": {"pk": {"S": "counter"}},
        "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}}])
    assert resp["ResponseMetadata"]["RetryAttempts"] == 1
    assert rule_state(srv, rule)["fired"] == 1
    item = ddb.get_item(TableName=table, Key={"pk": {"S": "counter"}}, ConsistentRead=True)
    assert item["Item"]["n"] == {"N": "1"}


def test_lost_answer_shows_a_non_idempotent_retry(start_server):
    # The case the fault exists for: an UpdateItem ADD retried after its
    # answer was lost is applied twice, as on AWS.
    srv = start_server()
    table = make_table(srv.client())
    add_rule(srv, {"match": {"operation": "UpdateItem"},
                   "action": {"type": "lose_answer", "how": "reset"}, "trigger": {"times": 1}})
    ddb = retrying_client(srv, "standard")
    ddb.update_item(TableName=table, Key={"pk": {"S": "c"}}, UpdateExpression="ADD n :one",
                    ExpressionAttributeValues={":one": {"N": "1"}})
    item = ddb.get_item(TableName=table, Key={"pk": {"S": "c"}})["Item"]
    assert item["n"] == {"N": "2"}


def test_lost_answer_has_changed_everything_streams_and_report_included(start_server):
    srv = start_server()
    ddb = srv.client()
    table = unique_table_name("faults")
    ddb.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    add_rule(srv, {"match": {"operation": "PutItem"},
                   "action": {"type": "lose_answer", "how": "500"}, "trigger": {"times": 1}})
    status, body = raw_call(ddb, "PutItem", {"TableName": table, "Item": {"pk": {"S": "x"}}})
    assert (status, body["__type"]) == (500, DDB + "InternalServerError")
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "x"}})["Item"] == {"pk": {"S": "x"}}
    streams = make_client(srv.endpoint_url, service="dynamodbstreams")
    arn = ddb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                    ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = streams.get_records(ShardIterator=it)["Records"]
    assert [r["eventName"] for r in records] == ["INSERT"]
    report = json.loads(urllib.request.urlopen(
        f"{srv.endpoint_url}/ddbemu/insight/{table}").read())
    assert report["tables"][0]["requests"]["PutItem"] == 1


def probability_sequence(srv, ddb, table, seed, n=40):
    faults(srv, "DELETE")
    add_rule(srv, {"match": {"operation": "GetItem"},
                   "action": {"type": "error", "error": "InternalServerError"},
                   "trigger": {"probability": 0.4, "seed": seed}})
    out = ""
    for _ in range(n):
        status, _ = raw_call(ddb, "GetItem", {"TableName": table, "Key": {"pk": {"S": "a"}}})
        out += "x" if status == 500 else "."
    return out


def test_probability_with_a_seed_is_reproducible(start_server):
    srv = start_server()
    ddb = srv.client()
    table = make_table(ddb)
    first = probability_sequence(srv, ddb, table, seed=7)
    assert probability_sequence(srv, ddb, table, seed=7) == first
    assert probability_sequence(srv, ddb, table, seed=8) != first
    assert 0 < first.count("x") < len(first)
    # Another server, the same seed: the same sequence.
    other = start_server()
    other_ddb = other.client()
    make_table(other_ddb, table)
    assert probability_sequence(other, other_ddb, table, seed=7) == first


def test_engine_time_window(start_server):
    srv = start_server()
    ddb = srv.client()
    table = make_table(ddb)
    now = faults(srv, path="clock")[1]["now_ms"]
    add_rule(srv, {"match": {"operation": "PutItem"},
                   "action": {"type": "error", "error": "ThrottlingException"},
                   "trigger": {"from_ms": now + 60_000, "until_ms": now + 120_000}})

    def put():
        return raw_call(ddb, "PutItem", {"TableName": table, "Item": {"pk": {"S": "w"}}})[0]

    assert put() == 200
    faults(srv, "POST", {"advance_ms": 60_000}, path="clock")
    assert put() == 400
    faults(srv, "POST", {"advance_ms": 59_000}, path="clock")
    assert put() == 400
    faults(srv, "POST", {"advance_ms": 1_000}, path="clock")
    assert put() == 200


def test_control_interface_add_list_remove_clear(start_server):
    srv = start_server()
    status, body = faults(srv, "POST", {"faults": [
        {"id": "a", "action": {"type": "latency", "ms": 1}},
        {"action": {"type": "error", "error": "ThrottlingException"}, "trigger": {"times": 3}}]})
    assert (status, body) == (200, {"ids": ["a", "fault-2"]})
    listed = faults(srv)[1]["faults"]
    assert [r["id"] for r in listed] == ["a", "fault-2"]
    assert listed[1]["remaining"] == 3 and listed[1]["fired"] == 0
    assert listed[0]["action"] == {"type": "latency", "ms": 1}
    # A bad rule: 400, the rule and member named, nothing added.
    status, body = faults(srv, "POST", [{"action": {"type": "latency", "ms": 1}},
                                        {"action": {"type": "error", "error": "Oops"}}])
    assert status == 400 and "action.error" in body["error"]
    assert len(faults(srv)[1]["faults"]) == 2
    assert faults(srv, "DELETE", path="faults/a") == (200, {"removed": 1})
    assert faults(srv, "DELETE", path="faults/a")[0] == 404
    assert faults(srv, "DELETE") == (200, {"removed": 1})
    assert faults(srv)[1] == {"faults": []}


def test_faults_file_at_start(start_server, log_dir, ddbemu_bin, tmp_path):
    path = tmp_path / "faults.json"
    path.write_text(json.dumps([{"id": "boot", "match": {"operation": "ListTables"},
                                 "action": {"type": "error", "error": "ServiceUnavailable"},
                                 "trigger": {"times": 1}}]))
    srv = start_server("--faults", str(path))
    status, body = raw_call(srv.client(), "ListTables", {})
    assert (status, body["__type"]) == (503, DDB + "ServiceUnavailable")
    assert raw_call(srv.client(), "ListTables", {})[0] == 200
    assert rule_state(srv, "boot")["fired"] == 1
    # A bad file stops the start with the rule at fault named.
    path.write_text(json.dumps({"action": {"type": "nope"}}))
    import subprocess
    proc = subprocess.run([ddbemu_bin, "--port", "0", "--faults", str(path)],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert "--faults" in proc.stderr and "action.type" in proc.stderr
