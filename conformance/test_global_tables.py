# SPDX-License-Identifier: MIT
"""Global tables and replica auto scaling, as an account without global tables
sees them.

What DynamoDB answers (ack-api-quirks lab, live service 2026-10: DDB-TABLE-070,
442, 446, 455, 457): CreateGlobalTable/UpdateGlobalTable (version 2017.11.29)
are "not supported"; DescribeTableReplicaAutoScaling on a regional table is
ResourceNotFoundException "Global table with name: '<t>' does not exist.";
UpdateTableReplicaAutoScaling checks its parameters first; ReplicaUpdates
with an empty action is refused. The emulator serves one region, so every
ReplicaUpdates request ends in a ValidationException (docs/differences.md):
these tests only pin what AWS answers too.
"""

from util import (assert_error, assert_table_absent, client_error, delete_table_quietly,
                  random_string, raw_call, unique_table_name)

LEGACY = ("One or more parameter values were invalid: DynamoDB global tables version 2017.11.29 "
          "is not supported. We recommend using DynamoDB global tables version 2019.11.21, "
          "instead of version 2017.11.29 (Legacy).")


def test_legacy_global_tables(dynamodb, make_table, region):
    table = make_table(StreamSpecification={"StreamEnabled": True,
                                            "StreamViewType": "NEW_AND_OLD_IMAGES"})
    err = client_error(dynamodb.create_global_table, GlobalTableName=table,
                       ReplicationGroup=[{"RegionName": region}])
    assert_error(err, "ValidationException", LEGACY)
    err = client_error(dynamodb.update_global_table, GlobalTableName=table,
                       ReplicaUpdates=[{"Create": {"RegionName": region}}])
    assert_error(err, "ValidationException", LEGACY)
    err = client_error(dynamodb.update_global_table, GlobalTableName=table, ReplicaUpdates=[{}])
    assert_error(err, "ValidationException", "One or more parameter values were invalid")
    err = client_error(dynamodb.describe_global_table, GlobalTableName=table)
    assert err.response["Error"]["Code"] == "GlobalTableNotFoundException"
    err = client_error(dynamodb.describe_global_table_settings, GlobalTableName=table)
    assert err.response["Error"]["Code"] == "GlobalTableNotFoundException"
    names = [g["GlobalTableName"] for g in dynamodb.list_global_tables()["GlobalTables"]]
    assert table not in names


def test_replica_auto_scaling_of_a_regional_table(dynamodb, make_table):
    table = make_table()
    err = client_error(dynamodb.describe_table_replica_auto_scaling, TableName=table)
    assert_error(err, "ResourceNotFoundException", f"Global table with name: '{table}' does not exist.")
    err = client_error(dynamodb.update_table_replica_auto_scaling, TableName=table,
                       ProvisionedWriteCapacityAutoScalingUpdate={"MinimumUnits": 1,
                                                                  "MaximumUnits": 5})
    assert_error(err, "ValidationException",
                 f"Failed to update settings for global table with name: \u2018{table}\u2019: "
                 "Parameters 'ScalingPolicyUpdate' are required unless auto scaling is being "
                 "disabled.")
    missing = f"ddbemu_missing_{random_string()}"
    err = client_error(dynamodb.describe_table_replica_auto_scaling, TableName=missing)
    assert_error(err, "ResourceNotFoundException",
                 f"Global table with name: '{missing}' does not exist.")


def test_replica_update_without_action(dynamodb, make_table):
    table = make_table()
    before = dynamodb.describe_table(TableName=table)["Table"]
    err = client_error(dynamodb.update_table, TableName=table, ReplicaUpdates=[{}])
    assert_error(err, "ValidationException",
                 "There are no actions specified in the Replica Update Action of the request.")
    err = client_error(dynamodb.update_table, TableName=table, ReplicaUpdates=[
        {"Delete": {"RegionName": "eu-west-3"}}], BillingMode="PAY_PER_REQUEST")
    assert_error(err, "ValidationException", "One or more parameter values were invalid: Replica "
                 "modification must be the only operation in the request")
    assert dynamodb.describe_table(TableName=table)["Table"] == before


# ---------------------------------------------------------------------------
# Members of the latest model (newer than Debian's boto3: raw requests).
# GlobalTableSettingsReplicationMode and DisassociationProtectionEnabled are
# stored and described back; a multi-account source or a disassociation is
# refused, since this emulator has one account, one region and no replicas
# (docs/differences.md, "Global tables": every text below is ours).
# ---------------------------------------------------------------------------

INVALID = "One or more parameter values were invalid: "


def create_raw(dynamodb, name, **extra):
    return raw_call(dynamodb, "CreateTable", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}], **extra})


def test_create_table_replication_mode_is_described(dynamodb):
    name = unique_table_name()
    try:
        status, data = create_raw(dynamodb, name, GlobalTableSettingsReplicationMode="ENABLED")
        assert status == 200, data
        assert data["TableDescription"]["GlobalTableSettingsReplicationMode"] == "ENABLED"
        status, data = raw_call(dynamodb, "DescribeTable", {"TableName": name})
        assert data["Table"]["GlobalTableSettingsReplicationMode"] == "ENABLED"
        assert "DisassociationProtectionEnabled" not in data["Table"]
    finally:
        delete_table_quietly(dynamodb, name)


def test_a_table_without_the_settings_does_not_describe_them(dynamodb, make_table):
    status, data = raw_call(dynamodb, "DescribeTable", {"TableName": make_table()})
    assert status == 200
    assert "GlobalTableSettingsReplicationMode" not in data["Table"]
    assert "DisassociationProtectionEnabled" not in data["Table"]


def test_create_table_replication_mode_rules(dynamodb):
    name = unique_table_name()
    status, data = create_raw(dynamodb, name, GlobalTableSettingsReplicationMode="SOMETIMES")
    assert status == 400 and data["__type"].endswith("ValidationException"), data
    assert data["message"] == (
        "1 validation error detected: Value 'SOMETIMES' at 'globalTableSettingsReplicationMode' "
        "failed to satisfy constraint: Member must satisfy enum value set: "
        "[DISABLED, ENABLED, ENABLED_WITH_OVERRIDES]")
    status, data = create_raw(dynamodb, name,
                              GlobalTableSettingsReplicationMode="ENABLED_WITH_OVERRIDES")
    assert status == 400 and data["message"].startswith(
        INVALID + "GlobalTableSettingsReplicationMode ENABLED_WITH_OVERRIDES cannot be requested"), data
    source = f"arn:aws:dynamodb:eu-west-1:111122223333:table/{name}"
    status, data = create_raw(dynamodb, name, GlobalTableSourceArn=source)
    assert status == 400 and data["message"] == (
        INVALID + "GlobalTableSettingsReplicationMode must be ENABLED when GlobalTableSourceArn "
        "is specified"), data
    status, data = create_raw(dynamodb, name, GlobalTableSourceArn=source,
                              GlobalTableSettingsReplicationMode="ENABLED")
    assert status == 400 and data["message"].startswith(
        INVALID + f"Cannot create a replica of the global table source {source}: "), data
    assert_table_absent(dynamodb, name)


def test_update_table_settings_are_stored(dynamodb, make_table):
    table = make_table()
    status, data = raw_call(dynamodb, "UpdateTable", {
        "TableName": table, "GlobalTableSettingsReplicationMode": "DISABLED"})
    assert status == 200, data
    assert data["TableDescription"]["GlobalTableSettingsReplicationMode"] == "DISABLED"
    status, data = raw_call(dynamodb, "UpdateTable", {
        "TableName": table, "DisassociationProtectionEnabled": False})
    assert status == 200, data
    assert data["TableDescription"]["DisassociationProtectionEnabled"] is False
    status, data = raw_call(dynamodb, "DescribeTable", {"TableName": table})
    assert data["Table"]["GlobalTableSettingsReplicationMode"] == "DISABLED"
    assert data["Table"]["DisassociationProtectionEnabled"] is False


def test_update_table_settings_travel_alone(dynamodb, make_table):
    table = make_table()
    before = dynamodb.describe_table(TableName=table)["Table"]
    status, data = raw_call(dynamodb, "UpdateTable", {
        "TableName": table, "DisassociationProtectionEnabled": True,
        "BillingMode": "PAY_PER_REQUEST"})
    assert status == 400 and data["message"] == (
        INVALID + "DisassociationProtection modification must be the only operation in the "
        "request"), data
    status, data = raw_call(dynamodb, "UpdateTable", {
        "TableName": table, "GlobalTableSettingsReplicationMode": "ENABLED",
        "DeletionProtectionEnabled": False})
    assert status == 400 and data["message"] == (
        INVALID + "DeletionProtection modification must be the only operation in the request"), data
    status, data = raw_call(dynamodb, "UpdateTable", {
        "TableName": table, "GlobalTableSettingsReplicationMode": "ENABLED_WITH_OVERRIDES"})
    assert status == 400 and "ENABLED_WITH_OVERRIDES cannot be requested" in data["message"], data
    assert dynamodb.describe_table(TableName=table)["Table"] == before


def test_disassociate_replica(dynamodb, make_table, region):
    table = make_table()
    # An entry holding only Disassociate has an action.
    status, data = raw_call(dynamodb, "UpdateTable", {"TableName": table, "ReplicaUpdates": [
        {"Disassociate": {"RegionName": region, "DisassociationMode": "WAIT_FOR_REPLICATION"}}]})
    assert status == 400 and data["message"] == (
        "Update global table operation failed because one or more replicas were not part of the "
        f"global table. Please retry the request without these replicas: [{region}]."), data
    status, data = raw_call(dynamodb, "UpdateTable", {"TableName": table, "ReplicaUpdates": [
        {"Disassociate": {"RegionName": region, "DisassociationMode": "NOW"}}]})
    assert status == 400 and data["message"] == (
        "1 validation error detected: Value 'NOW' at "
        "'replicaUpdates.1.member.disassociate.disassociationMode' failed to satisfy constraint: "
        "Member must satisfy enum value set: [WAIT_FOR_REPLICATION]"), data
    status, data = raw_call(dynamodb, "UpdateTable", {"TableName": table, "ReplicaUpdates": [
        {"Disassociate": {"RegionName": region, "DisassociationMode": "WAIT_FOR_REPLICATION"}},
        {"Delete": {"RegionName": "eu-west-3"}}]})
    assert status == 400 and data["message"] == (
        "Update table operation with more than one type of replica actions not allowed."), data
