# SPDX-License-Identifier: MIT
"""Emulator only: --delay-transient-statuses (DynamoDB Local's
-delayTransientStatuses) and the waiters, in both modes.

With the flag, changes pass through AWS's transient statuses on the
engine's clock, and each status allows what it allows on AWS:
- CreateTable answers CREATING and DescribeTable says CREATING (its GSIs
  too) until the table is ready; item operations meanwhile get
  ResourceNotFoundException "Requested resource not found" (dynalite's
  recorded behaviour for a table that is not ACTIVE);
- UpdateTable and DeleteTable on a table that is CREATING, UPDATING or
  DELETING get ResourceInUseException "Attempt to change a resource which is
  still in use: Table is being created|updated|deleted: NAME" (the texts
  dynalite's deleteTable.js records, and Terraform's AWS provider and
  ack-api-quirks DDB-TABLE-374 quote from the live service; the DeleteTable
  API reference: "If a table is in CREATING or UPDATING states, then
  DynamoDB returns a ResourceInUseException");
- a deleted table is DELETING for a few seconds (DescribeTable, ListTables,
  and CreateTable of the name answers "Table already exists") and gone for
  item operations at once;
- a GSI added by UpdateTable is CREATING, and Query on it is refused with
  "Cannot read from backfilling global secondary index: NAME"; a deleted one
  is DELETING, unreadable, and blocks other index changes and DeleteTable;
- a new stream is ENABLING.

The tests move the engine's clock (POST /ddbemu/clock) instead of waiting:
right after a change the clock is moved back an hour, so the transient
status lasts whatever the machine's speed, then forward past the change's
time. Nothing here asserts on wall-clock time.
"""

import json
import os
import shutil
import subprocess
import threading
import time
import urllib.request

import pytest
from botocore.exceptions import ClientError

from conftest import ACCESS_KEY, REGION, SECRET_KEY, make_client
from util import assert_error, client_error, unique_table_name

pytestmark = pytest.mark.usefixtures("emulator")

HOUR_MS = 3600 * 1000
NOT_FOUND = "Requested resource not found"


def in_use(verb, name):
    return f"Attempt to change a resource which is still in use: Table is being {verb}: {name}"


class Emu:
    def __init__(self, srv):
        self.srv = srv
        self.url = srv.endpoint_url
        self.ddb = make_client(self.url)

    def advance_ms(self, ms):
        req = urllib.request.Request(self.url + "/ddbemu/clock",
                                     data=json.dumps({"advance_ms": ms}).encode(), method="POST")
        with urllib.request.urlopen(req, timeout=30) as resp:
            assert resp.status == 200

    def hold(self):
        """Moves the clock back an hour: whatever just started stays transient."""
        self.advance_ms(-HOUR_MS)

    def release(self, seconds):
        """Undoes hold() and lets `seconds` of engine time pass."""
        self.advance_ms(HOUR_MS + int(seconds * 1000))

    def status(self, name):
        return self.ddb.describe_table(TableName=name)["Table"]["TableStatus"]

    def create(self, name, **extra):
        args = dict(TableName=name, BillingMode="PAY_PER_REQUEST",
                    KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                    AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}])
        args.update(extra)
        return self.ddb.create_table(**args)["TableDescription"]


@pytest.fixture
def delayed(start_server):
    return Emu(start_server("--delay-transient-statuses"))


def test_creating_table_refuses_item_operations_and_changes(delayed):
    name = unique_table_name()
    desc = delayed.create(name, AttributeDefinitions=[
        {"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "byG",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}])
    delayed.hold()
    assert desc["TableStatus"] == "CREATING"
    table = delayed.ddb.describe_table(TableName=name)["Table"]
    assert table["TableStatus"] == "CREATING"
    assert table["GlobalSecondaryIndexes"][0]["IndexStatus"] == "CREATING"
    assert name in delayed.ddb.list_tables()["TableNames"]

    for call in (lambda: delayed.ddb.put_item(TableName=name, Item={"p": {"S": "a"}}),
                 lambda: delayed.ddb.get_item(TableName=name, Key={"p": {"S": "a"}}),
                 lambda: delayed.ddb.scan(TableName=name)):
        assert_error(client_error(call), "ResourceNotFoundException", NOT_FOUND)
    err = client_error(delayed.ddb.update_table, TableName=name,
                       StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    assert_error(err, "ResourceInUseException", in_use("created", name))
    err = client_error(delayed.ddb.delete_table, TableName=name)
    assert_error(err, "ResourceInUseException", in_use("created", name))

    delayed.release(6)
    table = delayed.ddb.describe_table(TableName=name)["Table"]
    assert table["TableStatus"] == "ACTIVE"
    assert table["GlobalSecondaryIndexes"][0]["IndexStatus"] == "ACTIVE"
    delayed.ddb.put_item(TableName=name, Item={"p": {"S": "a"}})
    assert delayed.ddb.get_item(TableName=name, Key={"p": {"S": "a"}})["Item"] == {"p": {"S": "a"}}


def test_updating_table_serves_items_but_refuses_changes(delayed):
    name = unique_table_name()
    delayed.create(name)
    delayed.advance_ms(6000)
    desc = delayed.ddb.update_table(
        TableName=name, BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 2})["TableDescription"]
    delayed.hold()
    assert desc["TableStatus"] == "UPDATING"
    assert delayed.status(name) == "UPDATING"
    delayed.ddb.put_item(TableName=name, Item={"p": {"S": "u"}})
    assert "Item" in delayed.ddb.get_item(TableName=name, Key={"p": {"S": "u"}})
    err = client_error(delayed.ddb.update_table, TableName=name,
                       ProvisionedThroughput={"ReadCapacityUnits": 3, "WriteCapacityUnits": 3})
    assert_error(err, "ResourceInUseException", in_use("updated", name))
    err = client_error(delayed.ddb.delete_table, TableName=name)
    assert_error(err, "ResourceInUseException", in_use("updated", name))
    # Nothing of the refused calls changed the table.
    table = delayed.ddb.describe_table(TableName=name)["Table"]
    assert table["ProvisionedThroughput"]["ReadCapacityUnits"] == 2
    delayed.release(6)
    assert delayed.status(name) == "ACTIVE"


def test_deleting_table_is_described_until_gone(delayed):
    name = unique_table_name()
    delayed.create(name)
    delayed.advance_ms(6000)
    delayed.ddb.put_item(TableName=name, Item={"p": {"S": "d"}})
    desc = delayed.ddb.delete_table(TableName=name)["TableDescription"]
    delayed.hold()
    assert desc["TableStatus"] == "DELETING"
    assert delayed.status(name) == "DELETING"
    assert name in delayed.ddb.list_tables()["TableNames"]
    err = client_error(delayed.ddb.get_item, TableName=name, Key={"p": {"S": "d"}})
    assert_error(err, "ResourceNotFoundException", NOT_FOUND)
    err = client_error(delayed.ddb.delete_table, TableName=name)
    assert_error(err, "ResourceInUseException", in_use("deleted", name))
    err = client_error(delayed.create, name)
    assert_error(err, "ResourceInUseException", f"Table already exists: {name}")
    delayed.release(6)
    err = client_error(delayed.ddb.describe_table, TableName=name)
    assert_error(err, "ResourceNotFoundException",
                 f"Requested resource not found: Table: {name} not found")
    assert name not in delayed.ddb.list_tables()["TableNames"]
    # The name is free again, and the new table is empty.
    delayed.create(name)
    delayed.advance_ms(6000)
    assert delayed.ddb.scan(TableName=name)["Count"] == 0


def list_all(client, limit):
    names, kwargs = [], {"Limit": limit}
    while True:
        page = client.list_tables(**kwargs)
        names += page["TableNames"]
        if "LastEvaluatedTableName" not in page:
            return names
        kwargs["ExclusiveStartTableName"] = page["LastEvaluatedTableName"]


def test_list_tables_pages_over_deleting_tables(delayed):
    names = sorted(unique_table_name("list") for _ in range(4))
    for name in names:
        delayed.create(name)
    delayed.advance_ms(6000)
    delayed.ddb.delete_table(TableName=names[1])
    delayed.ddb.delete_table(TableName=names[3])
    delayed.hold()
    for limit in (1, 2, 3, 100):
        assert list_all(delayed.ddb, limit) == names
    delayed.release(6)
    for limit in (1, 2, 100):
        assert list_all(delayed.ddb, limit) == [names[0], names[2]]
    # The last page ends where the visible tables end (no LastEvaluatedTableName).
    page = delayed.ddb.list_tables(ExclusiveStartTableName=names[0], Limit=1)
    assert page["TableNames"] == [names[2]] and "LastEvaluatedTableName" not in page


def test_new_gsi_is_creating_and_not_readable(delayed):
    name = unique_table_name()
    delayed.create(name)
    delayed.advance_ms(6000)
    delayed.ddb.put_item(TableName=name, Item={"p": {"S": "1"}, "g": {"S": "x"}})
    delayed.ddb.update_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}}])
    delayed.hold()
    gsi = delayed.ddb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
    assert gsi["IndexStatus"] == "CREATING"
    assert gsi["Backfilling"] is True
    err = client_error(delayed.ddb.query, TableName=name, IndexName="byG",
                       KeyConditionExpression="g = :g",
                       ExpressionAttributeValues={":g": {"S": "x"}})
    assert_error(err, "ValidationException",
                 "Cannot read from backfilling global secondary index: byG")
    delayed.release(61)
    gsi = delayed.ddb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
    assert gsi["IndexStatus"] == "ACTIVE"
    assert delayed.ddb.query(TableName=name, IndexName="byG", KeyConditionExpression="g = :g",
                             ExpressionAttributeValues={":g": {"S": "x"}})["Count"] == 1


def test_deleted_gsi_is_deleting_and_blocks_index_and_table_changes(delayed):
    # A deleted GSI is DELETING for a while; meanwhile it cannot be read, no
    # other index may be created or deleted ("Only 1 online index ...",
    # ack-api-quirks DDB-TABLE-159) and the table cannot be deleted
    # (DDB-TABLE-150); then it is gone.
    name = unique_table_name()
    gsi = {"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
           "Projection": {"ProjectionType": "ALL"}}
    delayed.create(name, AttributeDefinitions=[
        {"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[gsi])
    delayed.advance_ms(6000)
    desc = delayed.ddb.update_table(TableName=name, GlobalSecondaryIndexUpdates=[
        {"Delete": {"IndexName": "byG"}}])["TableDescription"]
    assert desc["GlobalSecondaryIndexes"][0]["IndexStatus"] == "DELETING"
    # Halfway: the table is ACTIVE again (after 5 s), the index not gone yet
    # (60 s); 25 s of margin on either side.
    delayed.advance_ms(30000)
    table = delayed.ddb.describe_table(TableName=name)["Table"]
    assert table["TableStatus"] == "ACTIVE"
    assert [(g["IndexName"], g["IndexStatus"]) for g in table["GlobalSecondaryIndexes"]] == \
        [("byG", "DELETING")]
    err = client_error(delayed.ddb.query, TableName=name, IndexName="byG",
                       KeyConditionExpression="g = :g",
                       ExpressionAttributeValues={":g": {"S": "x"}})
    assert_error(err, "ValidationException", "The table does not have the specified index: byG")
    err = client_error(delayed.ddb.update_table, TableName=name,
                       AttributeDefinitions=[{"AttributeName": "h", "AttributeType": "S"}],
                       GlobalSecondaryIndexUpdates=[{"Create": dict(
                           gsi, IndexName="byH",
                           KeySchema=[{"AttributeName": "h", "KeyType": "HASH"}])}])
    assert_error(err, "LimitExceededException",
                 "Subscriber limit exceeded: Only 1 online index can be created or deleted "
                 "simultaneously per table")
    err = client_error(delayed.ddb.delete_table, TableName=name)
    assert_error(err, "ResourceInUseException",
                 "Attempt to change a resource which is still in use: Cannot delete table while "
                 "indexes are being created, updated, or deleted.")
    delayed.advance_ms(31000)
    assert "GlobalSecondaryIndexes" not in delayed.ddb.describe_table(TableName=name)["Table"]
    assert delayed.ddb.delete_table(TableName=name)["TableDescription"]["TableStatus"] == "DELETING"


def test_new_stream_is_enabling(delayed):
    name = unique_table_name()
    desc = delayed.create(name, StreamSpecification={"StreamEnabled": True,
                                                     "StreamViewType": "NEW_IMAGE"})
    delayed.hold()
    streams = make_client(delayed.url, service="dynamodbstreams")
    arn = desc["LatestStreamArn"]
    assert streams.describe_stream(StreamArn=arn)["StreamDescription"]["StreamStatus"] == "ENABLING"
    delayed.release(6)
    assert streams.describe_stream(StreamArn=arn)["StreamDescription"]["StreamStatus"] == "ENABLED"


def watch_statuses(client):
    """Records every TableStatus (or error code) DescribeTable answers to client."""
    seen = []

    def on_call(http_response, parsed, **_):
        seen.append(parsed.get("Table", {}).get("TableStatus")
                    or parsed.get("Error", {}).get("Code"))

    client.meta.events.register("after-call.dynamodb.DescribeTable", on_call)
    return seen


def run_waiter_while(emu, waiter_name, name, seen, then):
    """Runs boto3's waiter in a thread; once it has polled at least once,
    calls then(); returns when the waiter does (or raises its error)."""
    errors = []

    def wait():
        try:
            emu.ddb.get_waiter(waiter_name).wait(
                TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 120})
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    thread = threading.Thread(target=wait)
    thread.start()
    while not seen and thread.is_alive():
        time.sleep(0.05)
    then()
    thread.join(timeout=300)
    assert not thread.is_alive(), "the waiter never returned"
    assert not errors, errors


def test_boto3_waiters_wait_through_the_transient_statuses(delayed):
    seen = watch_statuses(delayed.ddb)
    name = unique_table_name()
    delayed.create(name)
    delayed.hold()
    run_waiter_while(delayed, "table_exists", name, seen, lambda: delayed.release(6))
    assert seen[0] == "CREATING" and seen[-1] == "ACTIVE", seen

    seen.clear()
    delayed.ddb.delete_table(TableName=name)
    delayed.hold()
    run_waiter_while(delayed, "table_not_exists", name, seen, lambda: delayed.release(6))
    assert seen[0] == "DELETING" and seen[-1] == "ResourceNotFoundException", seen


def test_boto3_waiters_return_at_once_without_the_flag(start_server):
    emu = Emu(start_server())
    name = unique_table_name()
    assert emu.create(name)["TableStatus"] == "CREATING"
    seen = watch_statuses(emu.ddb)
    emu.ddb.get_waiter("table_exists").wait(TableName=name,
                                            WaiterConfig={"Delay": 1, "MaxAttempts": 2})
    assert seen == ["ACTIVE"]
    emu.ddb.delete_table(TableName=name)
    emu.ddb.get_waiter("table_not_exists").wait(TableName=name,
                                                WaiterConfig={"Delay": 1, "MaxAttempts": 2})
    assert seen[-1] == "ResourceNotFoundException"


def aws_cli(emu, *args):
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY,
               AWS_DEFAULT_REGION=REGION, AWS_PAGER="", AWS_CONFIG_FILE="/dev/null",
               AWS_SHARED_CREDENTIALS_FILE="/dev/null")
    return subprocess.run(["/usr/bin/aws", "dynamodb", "--endpoint-url", emu.url, *args],
                          capture_output=True, text=True, timeout=120, env=env,
                          stdin=subprocess.DEVNULL)


needs_cli = pytest.mark.skipif(not shutil.which("/usr/bin/aws"),
                               reason="Debian's awscli is not installed (scripts/lib.sh lists it)")


@needs_cli
@pytest.mark.parametrize("delay", [False, True])
def test_aws_cli_waiters(start_server, delay):
    emu = Emu(start_server(*(["--delay-transient-statuses"] if delay else [])))
    name = unique_table_name()
    result = aws_cli(emu, "create-table", "--table-name", name,
                     "--billing-mode", "PAY_PER_REQUEST",
                     "--attribute-definitions", "AttributeName=p,AttributeType=S",
                     "--key-schema", "AttributeName=p,KeyType=HASH")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["TableDescription"]["TableStatus"] == "CREATING"
    if delay:
        emu.hold()
        assert emu.status(name) == "CREATING"
        emu.release(6)  # the CLI waiter polls every 20 s: let its first poll succeed
    result = aws_cli(emu, "wait", "table-exists", "--table-name", name)
    assert result.returncode == 0, result.stderr
    assert emu.status(name) == "ACTIVE"
    result = aws_cli(emu, "delete-table", "--table-name", name)
    assert result.returncode == 0, result.stderr
    if delay:
        emu.hold()
        assert emu.status(name) == "DELETING"
        emu.release(6)
    result = aws_cli(emu, "wait", "table-not-exists", "--table-name", name)
    assert result.returncode == 0, result.stderr
    with pytest.raises(ClientError):
        emu.ddb.describe_table(TableName=name)


def test_a_transition_across_a_restart_comes_back_complete(start_server, tmp_path):
    data = str(tmp_path / "data")
    emu = Emu(start_server("--delay-transient-statuses", "--db-path", data))
    created, deleted = unique_table_name(), unique_table_name()
    emu.create(deleted)
    emu.advance_ms(6000)
    emu.ddb.delete_table(TableName=deleted)
    emu.create(created)
    emu.hold()
    assert emu.status(created) == "CREATING"
    assert emu.status(deleted) == "DELETING"
    assert emu.srv.stop() is None
    emu = Emu(start_server("--delay-transient-statuses", "--db-path", data))
    # What was under way is done: the new table ACTIVE, the deleted one gone.
    assert emu.status(created) == "ACTIVE"
    assert emu.ddb.list_tables()["TableNames"] == [created]
