# SPDX-License-Identifier: MIT
"""TableName given as the table's ARN, and table names that break the naming rules.

Since 2024 every operation on an existing table takes the table's ARN in
TableName (API reference, e.g. API_GetItem.html: "You can also provide the
Amazon Resource Name (ARN) of the table in this parameter"); the TableName
model became TableArn (1..1024 characters). What AWS answers, as recorded by
the ack-api-quirks DynamoDB lab (DDB-TABLE-011, 2026-10): the ARN works for
DescribeTable, UpdateTable, DeleteTable, PutItem, DescribeTimeToLive,
DescribeContinuousBackups...; DescribeTable still reports the bare name; an
ARN of another region is a ValidationException "1 validation error detected:
Invalid AWS region in '<ARN>'", of another account an AccessDeniedException
"Access is denied", an index or stream ARN a ValidationException.
"""

import pytest

from util import S, assert_error, assert_validation_errors, client_error, get_item, random_string

ACCOUNT = "000000000000"  # the emulator's fixed account; on AWS, the caller's


@pytest.fixture
def arn_of(dynamodb):
    def arn(table):
        return dynamodb.describe_table(TableName=table)["Table"]["TableArn"]
    return arn


def test_describe_table_by_arn_reports_the_name(dynamodb, table_s, arn_of):
    arn = arn_of(table_s)
    desc = dynamodb.describe_table(TableName=arn)["Table"]
    assert desc["TableName"] == table_s
    assert desc["TableArn"] == arn


def test_item_operations_by_arn(dynamodb, table_sc, arn_of):
    arn = arn_of(table_sc)
    p = S(random_string())
    dynamodb.put_item(TableName=arn, Item={"p": p, "c": S("1"), "v": S("a")})
    dynamodb.update_item(TableName=arn, Key={"p": p, "c": S("1")},
                         UpdateExpression="SET w = :w", ExpressionAttributeValues={":w": S("b")})
    got = dynamodb.get_item(TableName=arn, Key={"p": p, "c": S("1")}, ConsistentRead=True)
    assert got["Item"] == {"p": p, "c": S("1"), "v": S("a"), "w": S("b")}
    q = dynamodb.query(TableName=arn, KeyConditionExpression="p = :p",
                       ExpressionAttributeValues={":p": p}, ConsistentRead=True)
    assert q["Count"] == 1
    scan = dynamodb.scan(TableName=arn, FilterExpression="p = :p",
                         ExpressionAttributeValues={":p": p}, ConsistentRead=True)
    assert scan["Items"] == [got["Item"]]
    dynamodb.delete_item(TableName=arn, Key={"p": p, "c": S("1")})
    assert get_item(dynamodb, table_sc, {"p": p, "c": S("1")}) is None


def test_batch_and_transactions_by_arn(dynamodb, table_s, arn_of):
    arn = arn_of(table_s)
    p1, p2, p3 = (S(random_string()) for _ in range(3))
    resp = dynamodb.batch_write_item(RequestItems={arn: [
        {"PutRequest": {"Item": {"p": p1}}}, {"PutRequest": {"Item": {"p": p2}}}]})
    assert all(not v for v in resp["UnprocessedItems"].values())
    got = dynamodb.batch_get_item(RequestItems={arn: {"Keys": [{"p": p1}, {"p": p2}],
                                                      "ConsistentRead": True}})
    items = [i for v in got["Responses"].values() for i in v]
    assert sorted(i["p"]["S"] for i in items) == sorted([p1["S"], p2["S"]])
    dynamodb.transact_write_items(TransactItems=[
        {"Put": {"TableName": arn, "Item": {"p": p3}}},
        {"Delete": {"TableName": arn, "Key": {"p": p1}}}])
    got = dynamodb.transact_get_items(TransactItems=[
        {"Get": {"TableName": arn, "Key": {"p": p3}}},
        {"Get": {"TableName": arn, "Key": {"p": p1}}}])
    assert got["Responses"][0]["Item"] == {"p": p3}
    assert "Item" not in got["Responses"][1]


def test_control_plane_by_arn(dynamodb, make_table, arn_of):
    table = make_table()
    arn = arn_of(table)
    dynamodb.update_time_to_live(TableName=arn, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    ttl = dynamodb.describe_time_to_live(TableName=arn)["TimeToLiveDescription"]
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}
    backups = dynamodb.describe_continuous_backups(TableName=arn)["ContinuousBackupsDescription"]
    assert backups["ContinuousBackupsStatus"] == "ENABLED"
    desc = dynamodb.update_table(TableName=arn, BillingMode="PROVISIONED", ProvisionedThroughput={
        "ReadCapacityUnits": 2, "WriteCapacityUnits": 3})["TableDescription"]
    assert desc["TableName"] == table
    dynamodb.delete_table(TableName=arn)
    err = client_error(dynamodb.describe_table, TableName=table)
    assert err.response["Error"]["Code"] == "ResourceNotFoundException"


def test_arn_of_missing_table_is_not_found(dynamodb, region):
    name = f"ddbemu_missing_{random_string()}"
    arn = f"arn:aws:dynamodb:{region}:{ACCOUNT}:table/{name}"
    err = client_error(dynamodb.get_item, TableName=arn, Key={"p": S("x")})
    assert_error(err, "ResourceNotFoundException", "Requested resource not found")
    err = client_error(dynamodb.describe_table, TableName=arn)
    assert_error(err, "ResourceNotFoundException", f"Requested resource not found: Table: {name} not found")


def test_arn_of_another_region(dynamodb, table_s, arn_of, region):
    other = "eu-west-1" if region != "eu-west-1" else "us-west-2"
    arn = arn_of(table_s).replace(f":{region}:", f":{other}:")
    err = client_error(dynamodb.describe_table, TableName=arn)
    assert_error(err, "ValidationException",
                 f"1 validation error detected: Invalid AWS region in '{arn}'")
    err = client_error(dynamodb.put_item, TableName=arn, Item={"p": S("x")})
    assert_error(err, "ValidationException",
                 f"1 validation error detected: Invalid AWS region in '{arn}'")


def test_arn_of_another_account(dynamodb, table_s, arn_of):
    arn = arn_of(table_s)
    account = arn.split(":")[4]
    other = "111122223333" if account != "111122223333" else "444455556666"
    err = client_error(dynamodb.describe_table, TableName=arn.replace(f":{account}:", f":{other}:"))
    assert_error(err, "AccessDeniedException", "Access is denied")


@pytest.mark.parametrize("suffix", ["/index/by_x", "/stream/2026-01-01T00:00:00.000"])
def test_index_or_stream_arn_is_not_a_table(dynamodb, table_s, arn_of, suffix):
    err = client_error(dynamodb.describe_table, TableName=arn_of(table_s) + suffix)
    assert err.response["Error"]["Code"] == "ValidationException"


def test_invalid_names_are_refused_before_any_lookup(raw):
    # "ab" is a ValidationException, not ResourceNotFoundException (ack-api-quirks
    # DDB-TABLE-442 records "Value 'ab' at 'tableName' ... greater than or
    # equal to 3"); characters outside the pattern break the pattern.
    key = {"p": S("x")}
    for operation in ("GetItem", "DeleteItem", "UpdateItem"):
        status, _, data = raw(operation, {"TableName": "ab", "Key": key})
        assert status == 400
        assert data["message"] == ("1 validation error detected: Value 'ab' at 'tableName' "
                                   "failed to satisfy constraint: Member must have length "
                                   "greater than or equal to 3")
    status, _, data = raw("Query", {"TableName": "bad name", "KeyConditionExpression": "p = :p",
                                    "ExpressionAttributeValues": {":p": S("x")}})
    assert status == 400
    assert_validation_errors(data["message"], [
        "Value 'bad name' at 'tableName' failed to satisfy constraint: "
        "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"])
    status, _, data = raw("DescribeTable", {"TableName": "ab"})
    assert (status, data["message"]) == (400, "TableName must be at least 3 characters long and "
                                              "at most 255 characters long")
