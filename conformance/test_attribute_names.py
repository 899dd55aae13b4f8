# SPDX-License-Identifier: MIT
"""Attribute name lengths and empty names.

Attribute names are 1 to 64 KB long; the names of key attributes and of the
attributes an index projects by name are limited to 255 (developer guide,
"Service, account, and table quotas": attribute names). scylla's
test_limits.py, run against AWS, finds that a 65,535-character name is the
longest accepted and that 65,536 is refused with a ValidationException
naming the limit, in items, keys, AttributesToGet, AttributeUpdates and
ExpressionAttributeNames, and that 256 characters are refused for key and
projected names. In the model these names are the AttributeName shape (at
most 65535) and NonKeyAttributeName (1 to 255), which DynamoDB's validator
reports in its collection forms ("Map keys must satisfy constraint: [...]",
"Member must satisfy constraint: [...]", as recorded for RequestItems and
for other services' lists). The "Value '...'" part renders the request as
ddbemu prints it (docs/differences.md), so only the rest is compared.
"""

import re

import pytest

from util import VALIDATION, assert_raw_error, get_item, random_string

LONGEST = "n" * 65535
TOO_LONG = LONGEST + "n"


def constraint(path, form, rule):
    return re.compile(r"(?s)1 validation error detected: Value '.*' at '" + re.escape(path)
                      + r"' failed to satisfy constraint: " + re.escape(form + rule))


NAME_RULE = "[Member must have length less than or equal to 65535]"


def test_names_of_65535_characters_are_accepted(dynamodb, table_s):
    p = {"S": random_string()}
    dynamodb.put_item(TableName=table_s, Item={"p": p, LONGEST: {"S": "x"}})
    got = dynamodb.get_item(TableName=table_s, Key={"p": p}, ConsistentRead=True,
                            ProjectionExpression="#n", ExpressionAttributeNames={"#n": LONGEST})
    assert got["Item"] == {LONGEST: {"S": "x"}}
    got = dynamodb.get_item(TableName=table_s, Key={"p": p}, ConsistentRead=True,
                            AttributesToGet=[LONGEST])
    assert got["Item"] == {LONGEST: {"S": "x"}}


def test_names_of_65536_characters_are_refused(raw, dynamodb, table_s):
    p = {"S": random_string()}
    key = {"p": p}
    dynamodb.put_item(TableName=table_s, Item=key)
    cases = [
        ("PutItem", {"Item": {"p": p, TOO_LONG: {"S": "x"}}},
         constraint("item", "Map keys must satisfy constraint: ", NAME_RULE)),
        ("GetItem", {"Key": key, "AttributesToGet": [TOO_LONG]},
         constraint("attributesToGet", "Member must satisfy constraint: ", NAME_RULE)),
        ("GetItem", {"Key": key, "ProjectionExpression": "#n",
                     "ExpressionAttributeNames": {"#n": TOO_LONG}},
         constraint("expressionAttributeNames", "Map value must satisfy constraint: ", NAME_RULE)),
        ("UpdateItem", {"Key": key,
                        "AttributeUpdates": {TOO_LONG: {"Action": "PUT", "Value": {"S": "x"}}}},
         constraint("attributeUpdates", "Map keys must satisfy constraint: ", NAME_RULE)),
        ("UpdateItem", {"Key": key, "UpdateExpression": "SET #n = :v",
                        "ExpressionAttributeNames": {"#n": TOO_LONG},
                        "ExpressionAttributeValues": {":v": {"S": "x"}}},
         constraint("expressionAttributeNames", "Map value must satisfy constraint: ", NAME_RULE)),
        ("DeleteItem", {"Key": key, "Expected": {TOO_LONG: {"Exists": False}}},
         constraint("expected", "Map keys must satisfy constraint: ", NAME_RULE)),
    ]
    for operation, body, message in cases:
        assert_raw_error(raw(operation, {"TableName": table_s, **body}), VALIDATION, message)
    assert get_item(dynamodb, table_s, key) == key


def test_empty_expression_attribute_name_is_refused(raw, table_s):
    # Text quoted from DynamoDB's answers in applications that match on it
    # ("ExpressionAttributeNames contains invalid value: Empty attribute name
    # for key #DE").
    resp = raw("GetItem", {"TableName": table_s, "Key": {"p": {"S": "x"}},
                           "ProjectionExpression": "#a", "ExpressionAttributeNames": {"#a": ""}})
    assert_raw_error(resp, VALIDATION,
                     "ExpressionAttributeNames contains invalid value: Empty attribute name for "
                     "key #a")


NON_KEY_RULE = ("[Member must have length less than or equal to 255, Member must have length "
                "greater than or equal to 1]")


def gsi(name, non_key):
    return {"IndexName": name, "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": non_key}}


@pytest.mark.parametrize("bad", ["x" * 256, ""])
def test_projected_names_are_1_to_255_characters(raw, dynamodb, make_table, bad):
    defs = [{"AttributeName": "p", "AttributeType": "S"},
            {"AttributeName": "g", "AttributeType": "S"}]
    name = "ddbemu_names_" + random_string()
    resp = raw("CreateTable", {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
                               "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}],
                               "AttributeDefinitions": defs,
                               "GlobalSecondaryIndexes": [gsi("idx", ["ok", bad])]})
    assert_raw_error(resp, VALIDATION, constraint(
        "globalSecondaryIndexes.1.member.projection.nonKeyAttributes",
        "Member must satisfy constraint: ", NON_KEY_RULE))
    assert raw("DescribeTable", {"TableName": name}).status == 400
    # 255 characters are accepted, and UpdateTable checks its Create the same way.
    table = make_table(("p", "S"), AttributeDefinitions=defs,
                       GlobalSecondaryIndexes=[gsi("idx", ["x" * 255])])
    resp = raw("UpdateTable", {"TableName": table, "AttributeDefinitions": defs,
                               "GlobalSecondaryIndexUpdates": [{"Create": gsi("idx2", [bad])}]})
    assert_raw_error(resp, VALIDATION, constraint(
        "globalSecondaryIndexUpdates.1.member.create.projection.nonKeyAttributes",
        "Member must satisfy constraint: ", NON_KEY_RULE))
    gsis = dynamodb.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"]
    assert [g["IndexName"] for g in gsis] == ["idx"]
