# SPDX-License-Identifier: MIT
"""U+0000 (NUL) in attribute names and string values.

DynamoDB strings are Unicode with UTF-8 encoding and attribute names are any
UTF-8 string of 1 to 64 KB (developer guide, "Supported data types and naming
rules"): NUL is an ordinary character in both. "a" and "a\\0" are different
names and different values, and every operation keeps every byte: items,
keys, indexes, expressions, legacy parameters and stream records.
"""

import pytest

from util import get_item, random_string

Z = "\x00"


def test_names_and_values_with_nul_round_trip(dynamodb, table_s):
    p = {"S": random_string() + Z}
    item = {
        "p": p,
        "a": {"S": "plain"},
        "a" + Z: {"S": Z},
        Z + "b" + Z: {"S": "x" + Z + "y"},
        "m": {"M": {"k" + Z: {"S": "v" + Z}, "k": {"S": "w"}}},
        "l": {"L": [{"S": Z}, {"M": {Z: {"NULL": True}}}]},
        "ss": {"SS": ["s" + Z + "1", "s" + Z + "2", "s"]},
    }
    dynamodb.put_item(TableName=table_s, Item=item)
    got = get_item(dynamodb, table_s, {"p": p})
    assert {k: v for k, v in got.items() if k != "ss"} == \
        {k: v for k, v in item.items() if k != "ss"}
    assert sorted(got["ss"]["SS"]) == sorted(item["ss"]["SS"])
    # A key that differs only after the NUL is another item.
    assert get_item(dynamodb, table_s, {"p": {"S": p["S"][:-1]}}) is None


def test_set_elements_that_differ_after_a_nul_are_not_duplicates(dynamodb, table_s):
    p = {"S": random_string()}
    dynamodb.put_item(TableName=table_s, Item={"p": p, "ss": {"SS": ["a" + Z + "b", "a" + Z + "c"]}})
    assert sorted(get_item(dynamodb, table_s, {"p": p})["ss"]["SS"]) == \
        ["a" + Z + "b", "a" + Z + "c"]


def test_expressions_resolve_names_with_nul(dynamodb, table_s):
    p = {"S": random_string()}
    dynamodb.put_item(TableName=table_s, Item={
        "p": p, "n" + Z: {"S": "one"}, "n": {"S": "two"}, "m": {"M": {"k" + Z: {"N": "1"}}}})
    names = {"#n": "n" + Z, "#m": "m", "#k": "k" + Z}
    got = dynamodb.get_item(TableName=table_s, Key={"p": p}, ConsistentRead=True,
                            ProjectionExpression="#n, #m.#k", ExpressionAttributeNames=names)
    assert got["Item"] == {"n" + Z: {"S": "one"}, "m": {"M": {"k" + Z: {"N": "1"}}}}
    out = dynamodb.update_item(
        TableName=table_s, Key={"p": p},
        UpdateExpression="SET #m.#k = #m.#k + :one, #new = :v REMOVE #n",
        ConditionExpression="#n = :one_s AND size(#n) = :three",
        ExpressionAttributeNames={**names, "#new": Z},
        ExpressionAttributeValues={":one": {"N": "1"}, ":v": {"S": Z + Z},
                                   ":one_s": {"S": "one"}, ":three": {"N": "3"}},
        ReturnValues="ALL_NEW")["Attributes"]
    assert out == {"p": p, "n": {"S": "two"}, "m": {"M": {"k" + Z: {"N": "2"}}},
                   Z: {"S": Z + Z}}
    scanned = dynamodb.query(TableName=table_s, KeyConditionExpression="#p = :p",
                             FilterExpression="#z = :zz",
                             ExpressionAttributeNames={"#p": "p", "#z": Z},
                             ExpressionAttributeValues={":p": p, ":zz": {"S": Z + Z}})
    assert scanned["Items"] == [out]


def test_legacy_parameters_take_names_with_nul(dynamodb, make_table):
    table_s = make_table()
    p = {"S": random_string()}
    dynamodb.put_item(TableName=table_s, Item={"p": p, "e" + Z: {"S": "v"}, "e": {"S": "w"}})
    # Expected and AttributeUpdates name the attribute with the NUL, not "e".
    out = dynamodb.update_item(
        TableName=table_s, Key={"p": p},
        Expected={"e" + Z: {"Value": {"S": "v"}}},
        AttributeUpdates={"u" + Z: {"Action": "PUT", "Value": {"S": "x"}}},
        ReturnValues="UPDATED_NEW")
    assert out["Attributes"] == {"u" + Z: {"S": "x"}}
    got = dynamodb.get_item(TableName=table_s, Key={"p": p}, ConsistentRead=True,
                            AttributesToGet=["e" + Z, "u" + Z])["Item"]
    assert got == {"e" + Z: {"S": "v"}, "u" + Z: {"S": "x"}}
    scanned = dynamodb.scan(TableName=table_s, ScanFilter={
        "p": {"ComparisonOperator": "EQ", "AttributeValueList": [p]},
        "e" + Z: {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "v"}]}})
    assert scanned["Count"] == 1


def test_query_by_keys_with_nul(dynamodb, table_sc):
    p = {"S": random_string() + Z}
    for c in [Z, Z + Z, Z + "a", "a", "a" + Z]:
        dynamodb.put_item(TableName=table_sc, Item={"p": p, "c": {"S": c}, "f" + Z: {"S": c}})
    got = dynamodb.query(TableName=table_sc,
                         KeyConditionExpression="p = :p AND begins_with(c, :z)",
                         ExpressionAttributeValues={":p": p, ":z": {"S": Z}})
    # Strings sort by their UTF-8 bytes, NUL first.
    assert [i["c"]["S"] for i in got["Items"]] == [Z, Z + Z, Z + "a"]
    got = dynamodb.query(TableName=table_sc, KeyConditions={
        "p": {"ComparisonOperator": "EQ", "AttributeValueList": [p]},
        "c": {"ComparisonOperator": "GT", "AttributeValueList": [{"S": "a"}]}},
        QueryFilter={"f" + Z: {"ComparisonOperator": "EQ",
                               "AttributeValueList": [{"S": "a" + Z}]}})
    assert [i["c"]["S"] for i in got["Items"]] == ["a" + Z]


def test_index_keys_and_projections_keep_nul(dynamodb, make_table):
    name = make_table(
        ("p", "S"),
        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["i" + Z + "n"]}}])
    gsi = dynamodb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
    assert gsi["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["i" + Z + "n"]}
    g = {"S": "G" + Z + random_string()}
    # "i" is another name than the projected "i\0n", and stays out of the index.
    dynamodb.put_item(TableName=name, Item={"p": {"S": Z}, "g": g, "i" + Z + "n": {"S": "1"},
                                            "i": {"S": "2"}})
    dynamodb.put_item(TableName=name, Item={"p": {"S": "b"}, "g": {"S": g["S"] + Z}})
    got = dynamodb.query(TableName=name, IndexName="by_g", KeyConditionExpression="g = :g",
                         ExpressionAttributeValues={":g": g})
    assert got["Items"] == [{"p": {"S": Z}, "g": g, "i" + Z + "n": {"S": "1"}}]


def test_stream_records_keep_names_and_values_with_nul(dynamodb, dynamodbstreams, make_table):
    name = make_table(StreamSpecification={"StreamEnabled": True,
                                           "StreamViewType": "NEW_AND_OLD_IMAGES"})
    arn = dynamodb.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    item = {"p": {"S": "k" + Z}, "n" + Z: {"S": Z}}
    dynamodb.put_item(TableName=name, Item=item)
    shard = dynamodbstreams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
    it = dynamodbstreams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                            ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = dynamodbstreams.get_records(ShardIterator=it)["Records"]
    assert [r["dynamodb"]["NewImage"] for r in records] == [item]
    assert records[0]["dynamodb"]["Keys"] == {"p": {"S": "k" + Z}}


def test_batch_and_transactions_keep_nul(dynamodb, table_s):
    k1, k2 = {"p": {"S": random_string() + Z}}, {"p": {"S": random_string() + Z}}
    dynamodb.batch_write_item(RequestItems={table_s: [
        {"PutRequest": {"Item": {**k1, Z: {"S": "1"}}}}]})
    dynamodb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table_s, "Item": {**k2, Z: {"S": "2"}}}},
        {"ConditionCheck": {"TableName": table_s, "Key": k1,
                            "ConditionExpression": "#z = :one",
                            "ExpressionAttributeNames": {"#z": Z},
                            "ExpressionAttributeValues": {":one": {"S": "1"}}}}])
    got = dynamodb.batch_get_item(RequestItems={table_s: {"Keys": [k1, k2],
                                                          "ConsistentRead": True}})
    assert sorted(got["Responses"][table_s], key=lambda i: i[Z]["S"]) == \
        [{**k1, Z: {"S": "1"}}, {**k2, Z: {"S": "2"}}]
    got = dynamodb.transact_get_items(TransactItems=[
        {"Get": {"TableName": table_s, "Key": k2, "ProjectionExpression": "#z",
                 "ExpressionAttributeNames": {"#z": Z}}}])
    assert got["Responses"] == [{"Item": {Z: {"S": "2"}}}]


@pytest.mark.parametrize("key", ["#a" + Z, ":a" + Z])
def test_placeholder_with_nul_is_not_a_valid_placeholder(raw, table_s, key):
    # Placeholders are '#' or ':' and then [0-9A-Za-z_] (developer guide,
    # "Expression attribute names"); a NUL makes the key invalid, not shorter.
    body = {"TableName": table_s, "Key": {"p": {"S": "x"}},
            "ProjectionExpression": "p"}
    if key[0] == "#":
        body["ExpressionAttributeNames"] = {key: "n"}
    else:
        body["ConditionExpression"] = "p = :a"
        body["ExpressionAttributeValues"] = {key: {"S": "v"}}
    status, _, data = raw("GetItem" if key[0] == "#" else "DeleteItem", body)
    assert status == 400, data
    which = "Names" if key[0] == "#" else "Values"
    assert data["message"].startswith(f"ExpressionAttribute{which} contains invalid key: "
                                      "Syntax error; key: "), data
