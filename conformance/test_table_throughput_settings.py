# SPDX-License-Identifier: MIT
"""OnDemandThroughput and WarmThroughput of a table, in CreateTable and
UpdateTable (2024, newer than Debian's boto3: sent as raw JSON).

What DynamoDB answers (API reference, OnDemandThroughput and WarmThroughput;
ack-api-quirks DDB-TABLE-134/442/456, live service 2026-10): an on-demand
table's maxima are described as set; OnDemandThroughput on a provisioned
table, or a maximum of 0, is refused; WarmThroughput defaults to 12000 reads
and 4000 writes per second on demand, can be raised but never lowered, and on
a provisioned table starts at no less than its capacity. On AWS a warm
throughput increase reports UPDATING for minutes: describe polls.
"""

import pytest

from util import random_string, raw_call, running_on_aws_sleep

INVALID = "One or more parameter values were invalid: "


def create(dynamodb, **extra):
    name = f"ddbemu_warm_{random_string()}"
    body = {"TableName": name, "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}], **extra}
    if "ProvisionedThroughput" not in extra:
        body["BillingMode"] = "PAY_PER_REQUEST"
    return name, raw_call(dynamodb, "CreateTable", body)


@pytest.fixture
def tables(dynamodb):
    names = []
    yield names
    for name in names:
        try:
            dynamodb.delete_table(TableName=name)
        except dynamodb.exceptions.ResourceNotFoundException:
            pass


def describe(dynamodb, name):
    status, data = raw_call(dynamodb, "DescribeTable", {"TableName": name})
    assert status == 200, data
    return data["Table"]


def test_on_demand_maxima(dynamodb, tables):
    name, (status, data) = create(dynamodb, OnDemandThroughput={"MaxReadRequestUnits": 100,
                                                                "MaxWriteRequestUnits": 50})
    assert status == 200, data
    tables.append(name)
    assert describe(dynamodb, name)["OnDemandThroughput"] == {"MaxReadRequestUnits": 100,
                                                              "MaxWriteRequestUnits": 50}
    status, data = raw_call(dynamodb, "UpdateTable", {
        "TableName": name, "OnDemandThroughput": {"MaxReadRequestUnits": 200}})
    assert status == 200, data
    for _ in range(120):
        got = describe(dynamodb, name)
        if got["TableStatus"] == "ACTIVE" and got["OnDemandThroughput"]["MaxReadRequestUnits"] == 200:
            break
        running_on_aws_sleep(1)
    assert got["OnDemandThroughput"] == {"MaxReadRequestUnits": 200, "MaxWriteRequestUnits": 50}


def test_on_demand_refusals(dynamodb, tables, make_table):
    name, (status, data) = create(dynamodb, OnDemandThroughput={"MaxReadRequestUnits": 0})
    assert (status, data["message"]) == (400, INVALID + "Requested MaxReadRequestUnits for "
                                         "OnDemandThroughput for table is outside of valid range")
    provisioned = make_table(ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    status, data = raw_call(dynamodb, "UpdateTable", {
        "TableName": provisioned, "OnDemandThroughput": {"MaxWriteRequestUnits": 10}})
    assert (status, data["message"]) == (400, INVALID + "MaxWriteRequestUnits for "
                                         "OnDemandThroughput cannot be specified when the table "
                                         "BillingMode is PROVISIONED")
    assert "OnDemandThroughput" not in describe(dynamodb, provisioned)


def test_warm_throughput(dynamodb, make_table):
    name = make_table()
    assert describe(dynamodb, name)["WarmThroughput"] == {
        "ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}
    status, data = raw_call(dynamodb, "UpdateTable", {
        "TableName": name, "WarmThroughput": {"ReadUnitsPerSecond": 15000}})
    assert status == 200, data
    for _ in range(900):
        warm = describe(dynamodb, name)["WarmThroughput"]
        if warm["Status"] == "ACTIVE" and warm["ReadUnitsPerSecond"] == 15000:
            break
        running_on_aws_sleep(1)
    assert warm == {"ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}
    status, data = raw_call(dynamodb, "UpdateTable", {
        "TableName": name, "WarmThroughput": {"ReadUnitsPerSecond": 14000}})
    assert (status, data["message"]) == (400, INVALID + "Requested ReadUnitsPerSecond for "
                                         "WarmThroughput for table is lower than current "
                                         "WarmThroughput, decreasing WarmThroughput is not "
                                         "supported")
    status, data = raw_call(dynamodb, "UpdateTable", {
        "TableName": name, "WarmThroughput": {"ReadUnitsPerSecond": 16000},
        "DeletionProtectionEnabled": False})
    assert (status, data["__type"].split("#")[1]) == (400, "ValidationException")
    assert describe(dynamodb, name)["WarmThroughput"]["ReadUnitsPerSecond"] == 15000


def test_warm_throughput_of_a_provisioned_table(dynamodb, tables):
    name, (status, data) = create(
        dynamodb, ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        WarmThroughput={"ReadUnitsPerSecond": 4, "WriteUnitsPerSecond": 5})
    assert (status, data["message"]) == (400, INVALID + "Requested ReadUnitsPerSecond for "
                                         "WarmThroughput for table is lower than ReadCapacityUnits "
                                         "of ProvisionedThroughput")
    status, _ = raw_call(dynamodb, "DescribeTable", {"TableName": name})
    assert status == 400


def test_index_throughput_settings(dynamodb, tables):
    name, (status, data) = create(
        dynamodb,
        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
            "OnDemandThroughput": {"MaxReadRequestUnits": 10, "MaxWriteRequestUnits": 20},
            "WarmThroughput": {}}])
    assert status == 200, data
    tables.append(name)

    def index():
        for _ in range(900):
            table = describe(dynamodb, name)
            gsi = table["GlobalSecondaryIndexes"][0]
            if table["TableStatus"] == "ACTIVE" and gsi["IndexStatus"] == "ACTIVE" and \
                    gsi["WarmThroughput"]["Status"] == "ACTIVE":
                return gsi
            running_on_aws_sleep(1)
        raise AssertionError("index never ACTIVE")

    gsi = index()
    assert gsi["OnDemandThroughput"] == {"MaxReadRequestUnits": 10, "MaxWriteRequestUnits": 20}
    assert gsi["WarmThroughput"] == {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000,
                                     "Status": "ACTIVE"}
    status, data = raw_call(dynamodb, "UpdateTable", {"TableName": name, "GlobalSecondaryIndexUpdates": [
        {"Update": {"IndexName": "by_g", "WarmThroughput": {"ReadUnitsPerSecond": 13000}}}]})
    assert status == 200, data
    for _ in range(900):
        gsi = index()
        if gsi["WarmThroughput"]["ReadUnitsPerSecond"] == 13000:
            break
        running_on_aws_sleep(1)
    assert gsi["WarmThroughput"] == {"ReadUnitsPerSecond": 13000, "WriteUnitsPerSecond": 4000,
                                     "Status": "ACTIVE"}
    for update, message in [
        ({"IndexName": "by_g", "WarmThroughput": {}},
         "WarmThroughput must have at least one of ReadUnitsPerSecond or WriteUnitsPerSecond "
         "specified for index: by_g"),
        ({"IndexName": "by_g"},
         "The only Updates for index: by_g when TableThroughputMode is PAY_PER_REQUEST can be to "
         "OnDemandThroughput, WarmThroughput"),
        ({"IndexName": "by_g", "WarmThroughput": {"ReadUnitsPerSecond": 12500}},
         "Requested ReadUnitsPerSecond for WarmThroughput for index by_g is lower than current "
         "WarmThroughput, decreasing WarmThroughput is not supported"),
    ]:
        status, data = raw_call(dynamodb, "UpdateTable", {
            "TableName": name, "GlobalSecondaryIndexUpdates": [{"Update": update}]})
        assert (status, data["message"]) == (400, INVALID + message), update
    assert index()["WarmThroughput"]["ReadUnitsPerSecond"] == 13000
