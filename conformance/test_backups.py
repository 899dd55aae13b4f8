# SPDX-License-Identifier: MIT
"""On-demand backups: CreateBackup, DescribeBackup, ListBackups, DeleteBackup and
RestoreTableFromBackup.

What DynamoDB does (API reference for each operation, and the developer guide's
"Backing up a DynamoDB table" / "Restoring a DynamoDB table from a backup"):
a backup is a consistent snapshot of the table's items and definition; its ARN
is the table ARN followed by /backup/<14 digits>-<8 hex digits>; CreateBackup
answers CREATING and the backup becomes AVAILABLE; DescribeBackup carries
SourceTableDetails and SourceTableFeatureDetails (indexes, stream, TTL);
ListBackups filters by table, creation-time range (lower bound inclusive,
upper exclusive) and type, and pages with LastEvaluatedBackupArn /
ExclusiveStartBackupArn; DeleteBackup answers DELETED. A restore makes a new
table with the backup's items and indexes (unless overridden) and reports
RestoreSummary; tags, streams, TTL and point-in-time recovery are not carried
over. Deleting a table with point-in-time recovery on leaves a SYSTEM backup
named "<table>$DeletedTableBackup", kept 35 days, which ListBackups shows for
BackupType SYSTEM or ALL but not for the default USER (developer guide,
"Point-in-time recovery: how it works"). The "not found"/"already exists" texts are ddbemu's (AWS's are not
recorded; docs/differences.md); the exception types are the API reference's.
"""

import re
import time

import pytest
from botocore.exceptions import ClientError

from paging import scan_all
from util import (assert_error, client_error, delete_table_quietly, get_item, raw_call,
                  unique_table_name, wait_active)

BACKUP_ARN = re.compile(r"arn:aws:dynamodb:[a-z0-9-]+:\d{12}:table/[A-Za-z0-9_.-]+/backup/"
                        r"\d{14}-[0-9a-f]{8}")


def create_source(client, name, stream=False):
    args = dict(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"},
                              {"AttributeName": "l", "AttributeType": "N"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
        LocalSecondaryIndexes=[{"IndexName": "by_l",
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                              {"AttributeName": "l", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        Tags=[{"Key": "team", "Value": "chat"}])
    if stream:
        args["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    client.create_table(**args)
    return wait_active(client, name)


def item(pk, sk, g, l, v):
    return {"pk": {"S": pk}, "sk": {"S": sk}, "g": {"S": g}, "l": {"N": str(l)},
            "v": {"S": v}}


def scan_sorted(client, name):
    """Every item of table name, in key order (pk, sk)."""
    return sorted(scan_all(client, name), key=lambda i: (i["pk"]["S"], i["sk"]["S"]))


def wait_backup(client, arn):
    """DescribeBackup once the backup is AVAILABLE (at once here, soon on AWS)."""
    for _ in range(600):
        desc = client.describe_backup(BackupArn=arn)["BackupDescription"]
        if desc["BackupDetails"]["BackupStatus"] == "AVAILABLE":
            return desc
        time.sleep(1)
    raise AssertionError("backup never became AVAILABLE")


@pytest.fixture
def source(dynamodb):
    name = unique_table_name("backup_src")
    create_source(dynamodb, name, stream=True)
    for i in range(5):
        dynamodb.put_item(TableName=name, Item=item("p", f"s{i}", f"g{i % 2}", i, f"v{i}"))
    yield name
    delete_table_quietly(dynamodb, name)


@pytest.fixture
def cleanup(dynamodb):
    """cleanup(table=..., backup=...) registers what the test made."""
    made = {"tables": [], "backups": []}

    def add(table=None, backup=None):
        if table:
            made["tables"].append(table)
        if backup:
            made["backups"].append(backup)
    yield add
    for name in made["tables"]:
        delete_table_quietly(dynamodb, name)
    for arn in made["backups"]:
        try:
            dynamodb.delete_backup(BackupArn=arn)
        except ClientError:
            pass  # already gone (or a SYSTEM backup AWS keeps for its 35 days)


def test_create_describe_list_and_delete_a_backup(dynamodb, source, cleanup):
    table = dynamodb.describe_table(TableName=source)["Table"]
    details = dynamodb.create_backup(TableName=source, BackupName="nightly")["BackupDetails"]
    arn = details["BackupArn"]
    cleanup(backup=arn)
    assert BACKUP_ARN.fullmatch(arn), arn
    assert arn.startswith(table["TableArn"] + "/backup/")
    assert details["BackupName"] == "nightly"
    assert details["BackupStatus"] in ("CREATING", "AVAILABLE")
    assert details["BackupType"] == "USER"
    assert details["BackupCreationDateTime"].timestamp() >= table["CreationDateTime"].timestamp()

    desc = wait_backup(dynamodb, arn)
    assert desc["BackupDetails"]["BackupArn"] == arn
    src = desc["SourceTableDetails"]
    assert src["TableName"] == source
    assert src["TableArn"] == table["TableArn"]
    assert src["TableId"] == table["TableId"]
    assert src["KeySchema"] == table["KeySchema"]
    assert src["BillingMode"] == "PAY_PER_REQUEST"
    assert src["ItemCount"] == 5
    features = desc["SourceTableFeatureDetails"]
    assert [g["IndexName"] for g in features["GlobalSecondaryIndexes"]] == ["by_g"]
    assert [i["IndexName"] for i in features["LocalSecondaryIndexes"]] == ["by_l"]
    assert features["LocalSecondaryIndexes"][0]["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert features["StreamDescription"] == {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}

    listed = dynamodb.list_backups(TableName=source)["BackupSummaries"]
    assert [b["BackupArn"] for b in listed] == [arn]
    assert listed[0]["BackupName"] == "nightly"
    assert listed[0]["TableName"] == source
    assert listed[0]["BackupType"] == "USER"

    deleted = dynamodb.delete_backup(BackupArn=arn)["BackupDescription"]
    assert deleted["BackupDetails"]["BackupStatus"] == "DELETED"
    assert deleted["SourceTableDetails"]["TableName"] == source
    err = client_error(dynamodb.describe_backup, BackupArn=arn)
    assert_error(err, "BackupNotFoundException", f"Backup not found: {arn}")
    assert dynamodb.list_backups(TableName=source)["BackupSummaries"] == []


def test_a_restore_holds_the_items_of_the_backup_time(dynamodb, source, cleanup):
    before = scan_sorted(dynamodb, source)
    arn = dynamodb.create_backup(TableName=source, BackupName="snap")["BackupDetails"]["BackupArn"]
    cleanup(backup=arn)
    wait_backup(dynamodb, arn)
    # Changes after the backup are not in it.
    dynamodb.put_item(TableName=source, Item=item("p", "s9", "g9", 9, "later"))
    dynamodb.delete_item(TableName=source, Key={"pk": {"S": "p"}, "sk": {"S": "s0"}})

    target = unique_table_name("restored")
    cleanup(table=target)
    desc = dynamodb.restore_table_from_backup(TargetTableName=target,
                                              BackupArn=arn)["TableDescription"]
    assert desc["TableName"] == target
    assert desc["TableStatus"] == "CREATING"
    assert desc["RestoreSummary"]["SourceBackupArn"] == arn
    assert desc["RestoreSummary"]["SourceTableArn"].endswith(f":table/{source}")
    assert desc["RestoreSummary"]["RestoreInProgress"] is True
    assert [g["IndexName"] for g in desc["GlobalSecondaryIndexes"]] == ["by_g"]
    assert [i["IndexName"] for i in desc["LocalSecondaryIndexes"]] == ["by_l"]

    table = wait_active(dynamodb, target)
    assert table["RestoreSummary"]["RestoreInProgress"] is False
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    # Streams are not restored.
    assert "StreamSpecification" not in table
    assert scan_sorted(dynamodb, target) == before
    # The indexes hold the restored items.
    page = dynamodb.query(TableName=target, IndexName="by_g", KeyConditionExpression="g = :g",
                          ExpressionAttributeValues={":g": {"S": "g0"}})
    assert sorted(i["sk"]["S"] for i in page["Items"]) == ["s0", "s2", "s4"]
    page = dynamodb.query(TableName=target, IndexName="by_l",
                          KeyConditionExpression="pk = :p AND l >= :l",
                          ExpressionAttributeValues={":p": {"S": "p"}, ":l": {"N": "3"}})
    assert [i["sk"]["S"] for i in page["Items"]] == ["s3", "s4"]
    # The backup outlives its table.
    delete_table_quietly(dynamodb, source)
    assert wait_backup(dynamodb, arn)["SourceTableDetails"]["TableName"] == source


def test_restore_overrides(dynamodb, source, cleanup):
    arn = dynamodb.create_backup(TableName=source, BackupName="snap")["BackupDetails"]["BackupArn"]
    cleanup(backup=arn)
    wait_backup(dynamodb, arn)
    target = unique_table_name("restored")
    cleanup(table=target)
    # No indexes, provisioned billing (OnDemandThroughputOverride is newer than
    # Debian's boto3: the request goes raw).
    status, data = raw_call(dynamodb, "RestoreTableFromBackup", {
        "TargetTableName": target, "BackupArn": arn,
        "GlobalSecondaryIndexOverride": [], "LocalSecondaryIndexOverride": [],
        "BillingModeOverride": "PROVISIONED",
        "ProvisionedThroughputOverride": {"ReadCapacityUnits": 3, "WriteCapacityUnits": 4},
        "SSESpecificationOverride": {"Enabled": True, "SSEType": "KMS"}})
    assert status == 200, data
    desc = data["TableDescription"]
    assert "GlobalSecondaryIndexes" not in desc
    assert "LocalSecondaryIndexes" not in desc
    # Only the key schema's attributes stay defined.
    assert desc["AttributeDefinitions"] == [{"AttributeName": "pk", "AttributeType": "S"},
                                            {"AttributeName": "sk", "AttributeType": "S"}]
    assert desc["ProvisionedThroughput"]["ReadCapacityUnits"] == 3
    assert desc["ProvisionedThroughput"]["WriteCapacityUnits"] == 4
    assert desc["SSEDescription"]["SSEType"] == "KMS"
    wait_active(dynamodb, target)
    assert len(scan_sorted(dynamodb, target)) == 5

    # An override is checked by CreateTable's rules: an index on an attribute
    # the backup does not define.
    other = unique_table_name("restored")
    err = client_error(dynamodb.restore_table_from_backup, TargetTableName=other, BackupArn=arn,
                       GlobalSecondaryIndexOverride=[{
                           "IndexName": "by_x",
                           "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}],
                           "Projection": {"ProjectionType": "ALL"}}])
    assert err.response["Error"]["Code"] == "ValidationException"
    assert "x" in err.response["Error"]["Message"]
    assert_absent(dynamodb, other)


def assert_absent(client, name):
    err = client_error(client.describe_table, TableName=name)
    assert err.response["Error"]["Code"] == "ResourceNotFoundException"


def test_backup_errors(dynamodb, source, cleanup):
    missing = unique_table_name("missing")
    err = client_error(dynamodb.create_backup, TableName=missing, BackupName="b1x")
    assert_error(err, "TableNotFoundException", f"Table not found: {missing}")

    # boto3 checks lengths itself: the request goes raw.
    status, data = raw_call(dynamodb, "CreateBackup", {"TableName": source, "BackupName": "ab"})
    assert status == 400, data
    assert data["__type"] == "com.amazon.coral.validate#ValidationException"
    assert data["message"] == ("1 validation error detected: Value 'ab' at 'backupName' failed "
                               "to satisfy constraint: Member must have length greater than or "
                               "equal to 3")

    table_arn = dynamodb.describe_table(TableName=source)["Table"]["TableArn"]
    unknown = f"{table_arn}/backup/01700000000000-0123abcd"
    for call in (dynamodb.describe_backup, dynamodb.delete_backup):
        err = client_error(call, BackupArn=unknown)
        assert_error(err, "BackupNotFoundException", f"Backup not found: {unknown}")
    target = unique_table_name("restored")
    err = client_error(dynamodb.restore_table_from_backup, TargetTableName=target,
                       BackupArn=unknown)
    assert_error(err, "BackupNotFoundException", f"Backup not found: {unknown}")
    assert_absent(dynamodb, target)

    arn = dynamodb.create_backup(TableName=source, BackupName="snap")["BackupDetails"]["BackupArn"]
    cleanup(backup=arn)
    wait_backup(dynamodb, arn)
    err = client_error(dynamodb.restore_table_from_backup, TargetTableName=source, BackupArn=arn)
    assert_error(err, "TableAlreadyExistsException", f"Table already exists: {source}")
    assert dynamodb.describe_table(TableName=source)["Table"]["ItemCount"] == 5


def test_list_backups_filters_and_pages(dynamodb, source, cleanup):
    other = unique_table_name("backup_other")
    cleanup(table=other)
    create_source(dynamodb, other)
    arns = []
    for i in range(3):
        arn = dynamodb.create_backup(TableName=source,
                                     BackupName=f"b{i}x")["BackupDetails"]["BackupArn"]
        cleanup(backup=arn)
        arns.append(arn)
        # Creation times differ, so that the order and the time bounds are defined.
        time.sleep(0.01)
    other_arn = dynamodb.create_backup(TableName=other,
                                       BackupName="ob1")["BackupDetails"]["BackupArn"]
    cleanup(backup=other_arn)
    for arn in arns + [other_arn]:
        wait_backup(dynamodb, arn)

    # Limit 1: one backup per page, oldest first, each page naming where to resume.
    seen, start = [], None
    while True:
        page = dynamodb.list_backups(TableName=source, Limit=1,
                                     **({"ExclusiveStartBackupArn": start} if start else {}))
        assert len(page["BackupSummaries"]) <= 1
        seen += [b["BackupArn"] for b in page["BackupSummaries"]]
        start = page.get("LastEvaluatedBackupArn")
        if not start:
            break
        assert start == seen[-1]
    assert seen == arns

    everything = [b["BackupArn"] for b in dynamodb.list_backups()["BackupSummaries"]]
    assert set(arns + [other_arn]) <= set(everything)
    assert [b["BackupArn"] for b in
            dynamodb.list_backups(TableName=other)["BackupSummaries"]] == [other_arn]
    assert [b["BackupArn"] for b in dynamodb.list_backups(
        TableName=source, BackupType="ALL")["BackupSummaries"]] == arns
    assert dynamodb.list_backups(TableName=source, BackupType="SYSTEM")["BackupSummaries"] == []

    # TimeRangeLowerBound is inclusive, TimeRangeUpperBound exclusive. (boto3
    # sends whole seconds; the raw request keeps the milliseconds.)
    created = []
    for arn in arns:
        status, data = raw_call(dynamodb, "DescribeBackup", {"BackupArn": arn})
        assert status == 200, data
        created.append(data["BackupDescription"]["BackupDetails"]["BackupCreationDateTime"])
    status, page = raw_call(dynamodb, "ListBackups", {"TableName": source,
                                                      "TimeRangeLowerBound": created[1]})
    assert status == 200, page
    assert [b["BackupArn"] for b in page["BackupSummaries"]] == arns[1:]
    status, page = raw_call(dynamodb, "ListBackups", {"TableName": source,
                                                      "TimeRangeUpperBound": created[1]})
    assert status == 200, page
    assert [b["BackupArn"] for b in page["BackupSummaries"]] == arns[:1]

    err = client_error(dynamodb.list_backups, BackupType="WEEKLY")
    assert_error(err, "ValidationException",
                 "1 validation error detected: Value 'WEEKLY' at 'backupType' failed to satisfy "
                 "constraint: Member must satisfy enum value set: [USER, SYSTEM, AWS_BACKUP, ALL]")


def system_backups(client, table):
    """The SYSTEM backups of a deleted table (AWS makes them within seconds)."""
    for _ in range(120):
        found = client.list_backups(TableName=table, BackupType="SYSTEM")["BackupSummaries"]
        if found:
            return found
        time.sleep(1)
    return []


def test_deleting_a_table_with_recovery_on_leaves_a_system_backup(dynamodb, cleanup):
    name = unique_table_name("backup_deleted")
    cleanup(table=name)
    create_source(dynamodb, name)
    dynamodb.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    for i in range(3):
        dynamodb.put_item(TableName=name, Item=item("p", f"s{i}", "g", i, "v"))
    before = scan_sorted(dynamodb, name)
    dynamodb.delete_table(TableName=name)

    found = system_backups(dynamodb, name)
    assert len(found) == 1, found
    summary = found[0]
    cleanup(backup=summary["BackupArn"])
    assert summary["BackupName"] == f"{name}$DeletedTableBackup"
    assert summary["BackupType"] == "SYSTEM"
    assert BACKUP_ARN.fullmatch(summary["BackupArn"]), summary["BackupArn"]
    kept = summary["BackupExpiryDateTime"] - summary["BackupCreationDateTime"]
    assert kept.total_seconds() == pytest.approx(35 * 24 * 3600, abs=3600)
    # Not a USER backup; ALL lists both kinds.
    assert dynamodb.list_backups(TableName=name)["BackupSummaries"] == []
    assert [b["BackupArn"] for b in dynamodb.list_backups(
        TableName=name, BackupType="ALL")["BackupSummaries"]] == [summary["BackupArn"]]

    # It restores the table as it was just before the deletion.
    target = unique_table_name("restored")
    cleanup(table=target)
    dynamodb.restore_table_from_backup(TargetTableName=target, BackupArn=summary["BackupArn"])
    wait_active(dynamodb, target)
    assert scan_sorted(dynamodb, target) == before


def test_deleting_a_table_without_recovery_leaves_no_backup(dynamodb, cleanup):
    name = unique_table_name("backup_deleted")
    cleanup(table=name)
    create_source(dynamodb, name)
    dynamodb.delete_table(TableName=name)
    assert dynamodb.list_backups(TableName=name, BackupType="ALL")["BackupSummaries"] == []
