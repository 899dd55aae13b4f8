# SPDX-License-Identifier: MIT
"""Emulator only: with --db-path a table's tags, resource-based policies,
contributor insights and Kinesis destinations come back after a restart, as
the rest of the table's description does (test_emulator_persistence.py)."""

import json

import pytest

from util import raw_call

pytestmark = pytest.mark.usefixtures("emulator")

POLICY = json.dumps({"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::000000000000:root"},
    "Action": "dynamodb:GetItem", "Resource": "*"}]})


def settings(client, name):
    table = client.describe_table(TableName=name)["Table"]
    status, policy = raw_call(client, "GetResourcePolicy", {"ResourceArn": table["TableArn"]})
    assert status == 200, policy
    status, stream_policy = raw_call(client, "GetResourcePolicy",
                                     {"ResourceArn": table["LatestStreamArn"]})
    assert status == 200, stream_policy
    insights = client.describe_contributor_insights(TableName=name)
    kinesis = client.describe_kinesis_streaming_destination(TableName=name)
    status, described = raw_call(client, "DescribeTable", {"TableName": name})
    assert status == 200, described
    return {
        "warm": described["Table"]["WarmThroughput"],
        "on_demand": described["Table"]["OnDemandThroughput"],
        "tags": client.list_tags_of_resource(ResourceArn=table["TableArn"])["Tags"],
        "policy": policy,
        "stream_policy": stream_policy,
        "insights": (insights["ContributorInsightsStatus"],
                     insights["ContributorInsightsRuleList"]),
        "kinesis": kinesis["KinesisDataStreamDestinations"],
    }


@pytest.mark.parametrize("stop", ["clean", "kill"])
def test_table_settings_survive_a_restart(start_server, tmp_path, stop):
    data = str(tmp_path / "data")
    server = start_server("--db-path", data)
    client = server.client()
    client.create_table(TableName="settings", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}],
                        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
                        Tags=[{"Key": "a", "Value": "1"}])
    table = client.describe_table(TableName="settings")["Table"]
    client.tag_resource(ResourceArn=table["TableArn"], Tags=[{"Key": "b", "Value": "2"}])
    client.untag_resource(ResourceArn=table["TableArn"], TagKeys=["a"])
    for arn in (table["TableArn"], table["LatestStreamArn"]):
        status, data_ = raw_call(client, "PutResourcePolicy", {"ResourceArn": arn, "Policy": POLICY})
        assert status == 200, data_
    client.update_contributor_insights(TableName="settings", ContributorInsightsAction="ENABLE")
    client.enable_kinesis_streaming_destination(
        TableName="settings", StreamArn="arn:aws:kinesis:us-east-1:000000000000:stream/s1")
    status, data_ = raw_call(client, "UpdateTable", {
        "TableName": "settings", "WarmThroughput": {"WriteUnitsPerSecond": 5000}})
    assert status == 200, data_
    status, data_ = raw_call(client, "UpdateTable", {
        "TableName": "settings", "OnDemandThroughput": {"MaxReadRequestUnits": 70}})
    assert status == 200, data_
    before = settings(client, "settings")
    assert before["warm"]["WriteUnitsPerSecond"] == 5000
    if stop == "clean":
        assert server.stop() is None
    else:
        server.proc.kill()
        server.proc.wait()
        server.proc = None
    server = start_server("--db-path", data)
    assert settings(server.client(), "settings") == before
    assert before["tags"] == [{"Key": "b", "Value": "2"}]
