# SPDX-License-Identifier: MIT
"""Point-in-time recovery: DescribeContinuousBackups, UpdateContinuousBackups and
RestoreTableToPointInTime, as far as they can be seen without waiting.

What DynamoDB does (API reference: ContinuousBackupsDescription,
PointInTimeRecoverySpecification, RestoreTableToPointInTime): continuous
backups are always ENABLED; point-in-time recovery is DISABLED until turned on,
then described with its RecoveryPeriodInDays (1 to 35, 35 by default) and the
restorable window (EarliestRestorableDateTime, LatestRestorableDateTime). A
restore names its source once (SourceTableName or SourceTableArn) and its time
once (RestoreDateTime or UseLatestRestorableTime), makes a new table with the
source's indexes and a RestoreSummary, and fails with
PointInTimeRecoveryUnavailableException when recovery is off,
InvalidRestoreTimeException outside the window, TableNotFoundException for an
unknown source and TableAlreadyExistsException for a taken target name. Texts
that AWS's documentation does not record are ddbemu's (docs/differences.md).
The restores of past seconds, which need the clock to move, are in
test_emulator_pitr.py.
"""

import datetime

import pytest

from util import (assert_error, client_error, delete_table_quietly, raw_call, unique_table_name,
                  wait_active)


@pytest.fixture
def table(dynamodb):
    name = unique_table_name("pitr")
    dynamodb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    wait_active(dynamodb, name)
    yield name
    delete_table_quietly(dynamodb, name)


@pytest.fixture
def targets(dynamodb):
    made = []

    def new():
        made.append(unique_table_name("pitr_restored"))
        return made[-1]
    yield new
    for name in made:
        delete_table_quietly(dynamodb, name)


def pitr(client, name):
    status, data = raw_call(client, "DescribeContinuousBackups", {"TableName": name})
    assert status == 200, data
    desc = data["ContinuousBackupsDescription"]
    assert desc["ContinuousBackupsStatus"] == "ENABLED"
    return desc["PointInTimeRecoveryDescription"]


def enable(client, name, days=None):
    spec = {"PointInTimeRecoveryEnabled": True}
    if days is not None:
        spec["RecoveryPeriodInDays"] = days
    status, data = raw_call(client, "UpdateContinuousBackups",
                            {"TableName": name, "PointInTimeRecoverySpecification": spec})
    assert status == 200, data
    return data["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]


def test_recovery_settings(dynamodb, table):
    assert pitr(dynamodb, table) == {"PointInTimeRecoveryStatus": "DISABLED"}
    desc = enable(dynamodb, table)
    assert desc["PointInTimeRecoveryStatus"] == "ENABLED"
    assert desc["RecoveryPeriodInDays"] == 35
    assert desc["EarliestRestorableDateTime"] <= desc["LatestRestorableDateTime"]
    desc = enable(dynamodb, table, days=7)
    assert desc["RecoveryPeriodInDays"] == 7
    assert pitr(dynamodb, table)["RecoveryPeriodInDays"] == 7
    # boto3's model of 2022 reads the same answer.
    out = dynamodb.describe_continuous_backups(TableName=table)["ContinuousBackupsDescription"]
    assert out["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED"
    dynamodb.update_continuous_backups(TableName=table, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": False})
    assert pitr(dynamodb, table) == {"PointInTimeRecoveryStatus": "DISABLED"}


@pytest.mark.parametrize("days", [0, 36])
def test_recovery_period_bounds(dynamodb, table, days):
    status, data = raw_call(dynamodb, "UpdateContinuousBackups", {
        "TableName": table, "PointInTimeRecoverySpecification": {
            "PointInTimeRecoveryEnabled": True, "RecoveryPeriodInDays": days}})
    assert status == 400, data
    assert data["__type"] == "com.amazon.coral.validate#ValidationException"
    bound = ("greater than or equal to 1" if days < 1 else "less than or equal to 35")
    assert data["message"] == (
        f"1 validation error detected: Value '{days}' at "
        f"'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy "
        f"constraint: Member must have value {bound}")
    assert pitr(dynamodb, table) == {"PointInTimeRecoveryStatus": "DISABLED"}


def test_unknown_table(dynamodb):
    missing = unique_table_name("missing")
    err = client_error(dynamodb.describe_continuous_backups, TableName=missing)
    assert_error(err, "TableNotFoundException", f"Table not found: {missing}")
    err = client_error(dynamodb.update_continuous_backups, TableName=missing,
                       PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    assert_error(err, "TableNotFoundException", f"Table not found: {missing}")


def test_restore_errors(dynamodb, table, targets):
    target = targets()
    err = client_error(dynamodb.restore_table_to_point_in_time, SourceTableName=table,
                       TargetTableName=target, UseLatestRestorableTime=True)
    assert_error(err, "PointInTimeRecoveryUnavailableException",
                 f"Point in time recovery is not enabled for table '{table}'")
    missing = unique_table_name("missing")
    err = client_error(dynamodb.restore_table_to_point_in_time, SourceTableName=missing,
                       TargetTableName=target, UseLatestRestorableTime=True)
    assert_error(err, "TableNotFoundException", f"Table not found: {missing}")

    desc = enable(dynamodb, table)
    future = datetime.datetime.fromtimestamp(
        desc["LatestRestorableDateTime"] + 3600, tz=datetime.timezone.utc)
    err = client_error(dynamodb.restore_table_to_point_in_time, SourceTableName=table,
                       TargetTableName=target, RestoreDateTime=future)
    assert_error(err, "InvalidRestoreTimeException",
                 "Invalid restore time specified: RestoreDateTime must be between "
                 "EarliestRestorableDateTime and LatestRestorableDateTime")
    err = client_error(dynamodb.restore_table_to_point_in_time, SourceTableName=table,
                       TargetTableName=table, UseLatestRestorableTime=True)
    assert_error(err, "TableAlreadyExistsException", f"Table already exists: {table}")

    arn = dynamodb.describe_table(TableName=table)["Table"]["TableArn"]
    err = client_error(dynamodb.restore_table_to_point_in_time, SourceTableName=table,
                       SourceTableArn=arn, TargetTableName=target, UseLatestRestorableTime=True)
    assert_error(err, "ValidationException", "One or more parameter values were invalid: Only "
                 "one of SourceTableName or SourceTableArn can be specified")
    err = client_error(dynamodb.restore_table_to_point_in_time, TargetTableName=target,
                       UseLatestRestorableTime=True)
    assert_error(err, "ValidationException", "One or more parameter values were invalid: Either "
                 "SourceTableName or SourceTableArn must be specified")
    err = client_error(dynamodb.restore_table_to_point_in_time, SourceTableName=table,
                       TargetTableName=target)
    assert_error(err, "ValidationException", "One or more parameter values were invalid: Either "
                 "RestoreDateTime or UseLatestRestorableTime must be specified")
    err = client_error(dynamodb.restore_table_to_point_in_time, SourceTableName=table,
                       TargetTableName=target, UseLatestRestorableTime=True,
                       RestoreDateTime=future)
    assert_error(err, "ValidationException", "One or more parameter values were invalid: Only "
                 "one of RestoreDateTime or UseLatestRestorableTime can be specified")
    # Nothing was created.
    err = client_error(dynamodb.describe_table, TableName=target)
    assert err.response["Error"]["Code"] == "ResourceNotFoundException"


def test_restore_to_the_latest_time_by_arn(dynamodb, table, targets):
    enable(dynamodb, table)
    arn = dynamodb.describe_table(TableName=table)["Table"]["TableArn"]
    target = targets()
    desc = dynamodb.restore_table_to_point_in_time(
        SourceTableArn=arn, TargetTableName=target,
        UseLatestRestorableTime=True)["TableDescription"]
    assert desc["TableName"] == target
    assert desc["TableStatus"] == "CREATING"
    summary = desc["RestoreSummary"]
    assert summary["SourceTableArn"] == arn
    assert "SourceBackupArn" not in summary
    assert summary["RestoreInProgress"] is True
    assert [g["IndexName"] for g in desc["GlobalSecondaryIndexes"]] == ["by_g"]
    restored = wait_active(dynamodb, target)
    assert restored["RestoreSummary"]["RestoreInProgress"] is False
    assert restored["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    # Point-in-time recovery is not carried over to the restored table.
    assert pitr(dynamodb, target) == {"PointInTimeRecoveryStatus": "DISABLED"}
