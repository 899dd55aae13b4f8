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

from util import assert_error, client_error, random_string

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
