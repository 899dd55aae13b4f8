# SPDX-License-Identifier: MIT
"""The order of the violations in one ValidationException.

DynamoDB's front end lists a request's model violations member by member in
the iteration order of a java.util.HashMap keyed by the members' lowerCamel
names, so the order is fixed for a given operation but differs between
operations (UpdateItem, with more members, has twice the buckets of PutItem).
The answers below were recorded in us-east-1 in 2026 (nubo-db/
dynamodb-conformance, captures/2026-06-09-validation-rewording.json, probes
o_put_three_bad_enums, o_del_two_bad_enums, o_upd_two_bad_enums); dynalite's
older recordings, made when DynamoDB ran on Java 7's HashMap, list other
orders, which the same rule with Java 7's hash reproduces.
"""

from util import VALIDATION, assert_raw_error, get_item, random_string

RETURN_VALUES = ("Value 'INVALID' at 'returnValues' failed to satisfy constraint: Member must "
                 "satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]")
RETURN_CAPACITY = ("Value 'INVALID' at 'returnConsumedCapacity' failed to satisfy constraint: "
                   "Member must satisfy enum value set: [INDEXES, TOTAL, NONE]")
RETURN_METRICS = ("Value 'INVALID' at 'returnItemCollectionMetrics' failed to satisfy "
                  "constraint: Member must satisfy enum value set: [SIZE, NONE]")


def test_put_item_lists_return_values_first(raw, dynamodb, table_s):
    key = {"p": {"S": random_string()}}
    resp = raw("PutItem", {"TableName": table_s, "Item": key, "ReturnValues": "INVALID",
                           "ReturnConsumedCapacity": "INVALID",
                           "ReturnItemCollectionMetrics": "INVALID"})
    assert_raw_error(resp, VALIDATION, "3 validation errors detected: " + "; ".join(
        [RETURN_VALUES, RETURN_CAPACITY, RETURN_METRICS]))
    assert get_item(dynamodb, table_s, key) is None


def test_delete_item_lists_return_values_first(raw, dynamodb, table_s):
    key = {"p": {"S": random_string()}}
    dynamodb.put_item(TableName=table_s, Item=key)
    resp = raw("DeleteItem", {"TableName": table_s, "Key": key, "ReturnValues": "INVALID",
                              "ReturnConsumedCapacity": "INVALID"})
    assert_raw_error(resp, VALIDATION, "2 validation errors detected: " + "; ".join(
        [RETURN_VALUES, RETURN_CAPACITY]))
    assert get_item(dynamodb, table_s, key) == key


def test_update_item_lists_return_consumed_capacity_first(raw, dynamodb, table_s):
    key = {"p": {"S": random_string()}}
    dynamodb.put_item(TableName=table_s, Item=key)
    resp = raw("UpdateItem", {"TableName": table_s, "Key": key, "ReturnValues": "INVALID",
                              "ReturnConsumedCapacity": "INVALID",
                              "UpdateExpression": "SET a = :v",
                              "ExpressionAttributeValues": {":v": {"S": "x"}}})
    assert_raw_error(resp, VALIDATION, "2 validation errors detected: " + "; ".join(
        [RETURN_CAPACITY, RETURN_VALUES]))
    assert get_item(dynamodb, table_s, key) == key
