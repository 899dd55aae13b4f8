# SPDX-License-Identifier: MIT
"""The calls Terraform's aws_dynamodb_table resource makes, in its order.

terraform-provider-aws (internal/service/dynamodb/table.go, v5) creates a
table with CreateTable carrying Tags and DeletionProtectionEnabled and waits
with DescribeTable until the table and its indexes are ACTIVE; every refresh
reads DescribeTable, DescribeContinuousBackups, DescribeTimeToLive and
ListTagsOfResource. An update turns point-in-time recovery on
(UpdateContinuousBackups, then waits on DescribeContinuousBackups), turns TTL
on (UpdateTimeToLive, waits on DescribeTimeToLive), adds a GSI (UpdateTable
with AttributeDefinitions and a GSI Create, waits for the index to be ACTIVE)
and changes tags (UntagResource for removed keys, then TagResource). Destroy
turns deletion protection off (UpdateTable), then DeleteTable and waits for
DescribeTable to answer ResourceNotFoundException. Each step's result is
checked as Terraform's read would see it.

DeletionProtectionEnabled (2023) is newer than Debian's boto3, so the calls
that carry it are sent as raw JSON with the same client's credentials.
test_terraform_cli.py replays the same sequence with the AWS CLI.
"""

import pytest

from util import client_error, poll_until, raw_call, running_on_aws_sleep, unique_table_name


def table_active(dynamodb, name):
    desc = dynamodb.describe_table(TableName=name)["Table"]
    indexes_active = all(i["IndexStatus"] == "ACTIVE" for i in desc.get("GlobalSecondaryIndexes", []))
    return desc if desc["TableStatus"] == "ACTIVE" and indexes_active else None


def refresh(dynamodb, name):
    """Terraform's read of an aws_dynamodb_table: four calls. DescribeTable goes
    raw, so that members newer than Debian's boto3 model are kept."""
    status, data = raw_call(dynamodb, "DescribeTable", {"TableName": name})
    assert status == 200, data
    table = data["Table"]
    backups = dynamodb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
    ttl = dynamodb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
    tags = dynamodb.list_tags_of_resource(ResourceArn=table["TableArn"])["Tags"]
    return {
        "table": table,
        "pitr": backups["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"],
        "ttl": ttl,
        "tags": {t["Key"]: t["Value"] for t in tags},
    }


def test_create_read_update_destroy(dynamodb):
    name = unique_table_name("tf")
    # ---- create ----
    status, data = raw_call(dynamodb, "CreateTable", {
        "TableName": name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "DeletionProtectionEnabled": True,
        "Tags": [{"Key": "Name", "Value": name}, {"Key": "Environment", "Value": "test"}],
    })
    assert status == 200, data
    assert data["TableDescription"]["DeletionProtectionEnabled"] is True
    try:
        poll_until(lambda: table_active(dynamodb, name), "ACTIVE")
        state = poll_until(lambda: (lambda s: s if s["tags"] else None)(refresh(dynamodb, name)),
                         "tagged")
        assert state["tags"] == {"Name": name, "Environment": "test"}
        assert state["pitr"] == "DISABLED"
        assert state["ttl"] == {"TimeToLiveStatus": "DISABLED"}
        assert state["table"]["DeletionProtectionEnabled"] is True
        assert state["table"]["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"

        # ---- update: PITR on ----
        dynamodb.update_continuous_backups(
            TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
        poll_until(lambda: dynamodb.describe_continuous_backups(TableName=name)[
            "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"][
            "PointInTimeRecoveryStatus"] == "ENABLED", "PITR ENABLED")
        # ---- update: TTL on ----
        dynamodb.update_time_to_live(TableName=name, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "expires_at"})
        poll_until(lambda: dynamodb.describe_time_to_live(TableName=name)["TimeToLiveDescription"][
            "TimeToLiveStatus"] == "ENABLED", "TTL ENABLED")
        # ---- update: a GSI added ----
        dynamodb.update_table(
            TableName=name,
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"},
                                  {"AttributeName": "owner", "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[{"Create": {
                "IndexName": "by_owner", "Projection": {"ProjectionType": "ALL"},
                "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}]}}])
        poll_until(lambda: table_active(dynamodb, name), "index ACTIVE")
        # ---- update: tags changed (removed keys first, then new values) ----
        arn = state["table"]["TableArn"]
        dynamodb.untag_resource(ResourceArn=arn, TagKeys=["Environment"])
        running_on_aws_sleep(3)
        dynamodb.tag_resource(ResourceArn=arn, Tags=[{"Key": "Team", "Value": "storage"}])
        state = poll_until(lambda: (lambda s: s if "Team" in s["tags"] else None)(
            refresh(dynamodb, name)), "retagged")
        assert state["tags"] == {"Name": name, "Team": "storage"}
        assert state["pitr"] == "ENABLED"
        assert state["ttl"] == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires_at"}
        assert [i["IndexName"] for i in state["table"]["GlobalSecondaryIndexes"]] == ["by_owner"]
        assert state["table"]["DeletionProtectionEnabled"] is True

        # ---- destroy: refused while protected, then protection off, delete, wait ----
        err = client_error(dynamodb.delete_table, TableName=name)
        assert err.response["Error"]["Message"] == (
            "Resource cannot be deleted as it is currently protected against deletion. Disable "
            "deletion protection first.")
        status, data = raw_call(dynamodb, "UpdateTable", {"TableName": name,
                                                          "DeletionProtectionEnabled": False})
        assert status == 200, data
        poll_until(lambda: table_active(dynamodb, name), "ACTIVE after protection off")
        assert refresh(dynamodb, name)["table"]["DeletionProtectionEnabled"] is False
        dynamodb.delete_table(TableName=name)
        for _ in range(600):
            try:
                dynamodb.describe_table(TableName=name)
            except dynamodb.exceptions.ResourceNotFoundException:
                break
            running_on_aws_sleep(1)
        else:
            pytest.fail("table never went away")
    finally:
        raw_call(dynamodb, "UpdateTable", {"TableName": name, "DeletionProtectionEnabled": False})
        try:
            dynamodb.delete_table(TableName=name)
        except dynamodb.exceptions.ResourceNotFoundException:
            pass
