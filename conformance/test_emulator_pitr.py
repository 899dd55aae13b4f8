# SPDX-License-Identifier: MIT
"""Emulator only: point-in-time recovery over time, with the engine's clock moved
through the control interface (POST /ddbemu/clock), and backups and history
across a restart with --db-path.

What DynamoDB does (developer guide, "Point-in-time recovery: how it works";
API reference, RestoreTableToPointInTime and ExportTableToPointInTime): a table
with recovery on can be restored, as a new table, to any second between
EarliestRestorableDateTime (when recovery was turned on, or the start of the
recovery period) and LatestRestorableDateTime (about five minutes ago); the new
table holds the items as they were at that second, with its indexes unless
GlobalSecondaryIndexOverride says otherwise, and with the billing override
applied. Turning recovery off forgets the past: turned on again, the window
starts anew. An export with an ExportTime in the window writes the table as it
was then.
"""

import glob
import gzip
import json

import pytest

from util import client_error, clock_advance, clock_now, raw_call

pytestmark = pytest.mark.usefixtures("emulator")

MINUTE_MS = 60 * 1000
DAY_MS = 24 * 60 * MINUTE_MS


def create(client, name):
    client.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}])


def put(client, table, pk, v, g="x"):
    client.put_item(TableName=table, Item={"pk": {"S": pk}, "v": {"N": str(v)}, "g": {"S": g}})


def contents(client, table):
    """{pk: v} of every item."""
    items = client.scan(TableName=table, ConsistentRead=True)["Items"]
    return {i["pk"]["S"]: int(i["v"]["N"]) for i in items}


def restore_at(client, source, target, ms, **overrides):
    status, data = raw_call(client, "RestoreTableToPointInTime", dict(
        SourceTableName=source, TargetTableName=target, RestoreDateTime=ms / 1000, **overrides))
    assert status == 200, data
    return data["TableDescription"]


def enable(client, table, **spec):
    status, data = raw_call(client, "UpdateContinuousBackups", {
        "TableName": table,
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True, **spec}})
    assert status == 200, data
    return data["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]


def window(client, table):
    status, data = raw_call(client, "DescribeContinuousBackups", {"TableName": table})
    assert status == 200, data
    d = data["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    return (round(d["EarliestRestorableDateTime"] * 1000),
            round(d["LatestRestorableDateTime"] * 1000))


def make_history(srv, client, table):
    """Puts, updates and deletes a minute apart; returns the times between them."""
    create(client, table)
    enable(client, table)
    put(client, table, "a", 1)
    put(client, table, "b", 1)
    put(client, table, "c", 1, g="y")
    clock_advance(srv, MINUTE_MS)
    t1 = clock_now(srv)
    clock_advance(srv, MINUTE_MS)
    client.update_item(TableName=table, Key={"pk": {"S": "a"}}, UpdateExpression="SET v = :v",
                       ExpressionAttributeValues={":v": {"N": "2"}})
    client.delete_item(TableName=table, Key={"pk": {"S": "b"}})
    put(client, table, "d", 1)
    clock_advance(srv, MINUTE_MS)
    t2 = clock_now(srv)
    clock_advance(srv, MINUTE_MS)
    client.delete_item(TableName=table, Key={"pk": {"S": "a"}})
    put(client, table, "c", 3, g="y")
    # Past the five minutes of LatestRestorableDateTime.
    clock_advance(srv, 10 * MINUTE_MS)
    return t1, t2


def test_restore_to_past_seconds(start_server):
    srv = start_server()
    client = srv.client()
    t1, t2 = make_history(srv, client, "orders")
    assert contents(client, "orders") == {"c": 3, "d": 1}

    desc = restore_at(client, "orders", "at_t1", t1)
    assert desc["RestoreSummary"]["RestoreDateTime"] == t1 / 1000
    assert contents(client, "at_t1") == {"a": 1, "b": 1, "c": 1}
    page = client.query(TableName="at_t1", IndexName="by_g", KeyConditionExpression="g = :g",
                        ExpressionAttributeValues={":g": {"S": "x"}})
    assert sorted(i["pk"]["S"] for i in page["Items"]) == ["a", "b"]

    restore_at(client, "orders", "at_t2", t2)
    assert contents(client, "at_t2") == {"a": 2, "c": 1, "d": 1}

    # The latest restorable time: every change so far.
    client.restore_table_to_point_in_time(SourceTableName="orders", TargetTableName="latest",
                                          UseLatestRestorableTime=True)
    assert contents(client, "latest") == {"c": 3, "d": 1}
    # The source is untouched.
    assert contents(client, "orders") == {"c": 3, "d": 1}


def test_restore_overrides_at_a_past_second(start_server):
    srv = start_server()
    client = srv.client()
    t1, _ = make_history(srv, client, "orders")
    desc = restore_at(client, "orders", "no_index", t1, GlobalSecondaryIndexOverride=[],
                      BillingModeOverride="PROVISIONED",
                      ProvisionedThroughputOverride={"ReadCapacityUnits": 2,
                                                     "WriteCapacityUnits": 3})
    assert "GlobalSecondaryIndexes" not in desc
    assert desc["AttributeDefinitions"] == [{"AttributeName": "pk", "AttributeType": "S"}]
    assert desc["ProvisionedThroughput"]["ReadCapacityUnits"] == 2
    table = client.describe_table(TableName="no_index")["Table"]
    assert table["TableStatus"] == "ACTIVE"
    assert "BillingModeSummary" not in table
    assert contents(client, "no_index") == {"a": 1, "b": 1, "c": 1}
    err = client_error(client.query, TableName="no_index", IndexName="by_g",
                       KeyConditionExpression="g = :g",
                       ExpressionAttributeValues={":g": {"S": "x"}})
    assert err.response["Error"]["Code"] == "ValidationException"


def test_the_window_follows_the_clock_and_the_setting(start_server):
    srv = start_server()
    client = srv.client()
    create(client, "tbl")
    before = clock_now(srv)
    clock_advance(srv, MINUTE_MS)
    enabled_at = clock_now(srv)
    enable(client, "tbl", RecoveryPeriodInDays=1)
    put(client, "tbl", "a", 1)
    clock_advance(srv, 10 * MINUTE_MS)
    earliest, latest = window(client, "tbl")
    assert enabled_at <= earliest <= enabled_at + 1000
    assert latest == pytest.approx(clock_now(srv) - 5 * MINUTE_MS, abs=2000)

    # Before recovery was on: outside the window.
    status, data = raw_call(client, "RestoreTableToPointInTime", {
        "SourceTableName": "tbl", "TargetTableName": "xyz", "RestoreDateTime": before / 1000})
    assert status == 400 and data["__type"].endswith("#InvalidRestoreTimeException"), data

    # Two days later the one-day period is the limit.
    clock_advance(srv, 2 * DAY_MS)
    earliest, _ = window(client, "tbl")
    assert earliest == pytest.approx(clock_now(srv) - DAY_MS, abs=2000)
    status, data = raw_call(client, "RestoreTableToPointInTime", {
        "SourceTableName": "tbl", "TargetTableName": "xyz",
        "RestoreDateTime": (enabled_at + 5 * MINUTE_MS) / 1000})
    assert status == 400 and data["__type"].endswith("#InvalidRestoreTimeException"), data

    # A longer period does not bring back what the shorter one let go.
    enable(client, "tbl", RecoveryPeriodInDays=35)
    earliest_after, _ = window(client, "tbl")
    assert earliest_after == pytest.approx(earliest, abs=2000)

    # Off and on again: the window starts anew.
    client.update_continuous_backups(TableName="tbl", PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": False})
    clock_advance(srv, MINUTE_MS)
    again = clock_now(srv)
    enable(client, "tbl")
    earliest, _ = window(client, "tbl")
    assert again <= earliest <= again + 1000


def test_export_at_a_past_time(start_server, tmp_path):
    s3 = tmp_path / "s3"
    (s3 / "bucket").mkdir(parents=True)
    srv = start_server("--s3-dir", str(s3))
    client = srv.client()
    t1, _ = make_history(srv, client, "orders")
    arn = client.describe_table(TableName="orders")["Table"]["TableArn"]
    status, data = raw_call(client, "ExportTableToPointInTime", {
        "TableArn": arn, "S3Bucket": "bucket", "ExportTime": t1 / 1000,
        "ExportFormat": "DYNAMODB_JSON"})
    assert status == 200, data
    export_id = data["ExportDescription"]["ExportArn"].rsplit("/", 1)[1]
    items = {}
    for path in glob.glob(str(s3 / "bucket" / "AWSDynamoDB" / export_id / "data" / "*.gz")):
        with gzip.open(path, "rt") as f:
            for line in f:
                item = json.loads(line)["Item"]
                items[item["pk"]["S"]] = int(item["v"]["N"])
    assert items == {"a": 1, "b": 1, "c": 1}


def test_history_and_backups_survive_a_restart(start_server, tmp_path):
    data_dir = str(tmp_path / "data")
    srv = start_server("--db-path", data_dir)
    client = srv.client()
    t1, t2 = make_history(srv, client, "orders")
    backup = client.create_backup(TableName="orders",
                                  BackupName="before-restart")["BackupDetails"]["BackupArn"]
    put(client, "orders", "e", 9)
    assert srv.stop() is None

    srv = start_server("--db-path", data_dir)
    client = srv.client()
    restore_at(client, "orders", "at_t1", t1)
    assert contents(client, "at_t1") == {"a": 1, "b": 1, "c": 1}
    restore_at(client, "orders", "at_t2", t2)
    assert contents(client, "at_t2") == {"a": 2, "c": 1, "d": 1}
    desc = client.describe_backup(BackupArn=backup)["BackupDescription"]
    assert desc["BackupDetails"]["BackupStatus"] == "AVAILABLE"
    assert desc["SourceTableDetails"]["ItemCount"] == 2
    client.restore_table_from_backup(TargetTableName="from_backup", BackupArn=backup)
    assert contents(client, "from_backup") == {"c": 3, "d": 1}
    assert [b["BackupArn"] for b in client.list_backups()["BackupSummaries"]] == [backup]
    # Changes after the restart join the history kept before it.
    clock_advance(srv, MINUTE_MS)
    t3 = clock_now(srv)
    clock_advance(srv, MINUTE_MS)
    client.delete_item(TableName="orders", Key={"pk": {"S": "e"}})
    clock_advance(srv, 10 * MINUTE_MS)
    restore_at(client, "orders", "at_t3", t3)
    assert contents(client, "at_t3") == {"c": 3, "d": 1, "e": 9}
    client.delete_backup(BackupArn=backup)
    enable(client, "at_t2")
    client.delete_table(TableName="at_t2")
    assert srv.stop() is None

    srv = start_server("--db-path", data_dir)
    client = srv.client()
    assert client.list_backups()["BackupSummaries"] == []
    system = client.list_backups(BackupType="SYSTEM")["BackupSummaries"]
    assert [b["BackupName"] for b in system] == ["at_t2$DeletedTableBackup"]
    assert "BackupExpiryDateTime" in system[0]
    assert contents(client, "at_t1") == {"a": 1, "b": 1, "c": 1}
    assert client.describe_table(TableName="at_t1")["Table"]["RestoreSummary"][
        "RestoreDateTime"].timestamp() == pytest.approx(t1 / 1000)


def test_a_system_backup_expires_after_35_days(start_server):
    srv = start_server()
    client = srv.client()
    create(client, "gone")
    enable(client, "gone")
    put(client, "gone", "a", 1)
    client.delete_table(TableName="gone")
    found = client.list_backups(BackupType="SYSTEM")["BackupSummaries"]
    assert [b["BackupName"] for b in found] == ["gone$DeletedTableBackup"]
    arn = found[0]["BackupArn"]
    clock_advance(srv, 35 * DAY_MS - MINUTE_MS)
    assert client.describe_backup(BackupArn=arn)["BackupDescription"]["BackupDetails"][
        "BackupType"] == "SYSTEM"
    clock_advance(srv, 2 * MINUTE_MS)
    err = client_error(client.describe_backup, BackupArn=arn)
    assert err.response["Error"]["Code"] == "BackupNotFoundException"
    assert client.list_backups(BackupType="ALL")["BackupSummaries"] == []
