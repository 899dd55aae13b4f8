# SPDX-License-Identifier: MIT
"""Item size (400 KB, counted by AWS's rules), key sizes and nesting depth.

Item size (developer guide, "Item sizes and formats"): the sum of attribute
name bytes and value bytes; strings count their UTF-8 bytes, binaries their
raw bytes, numbers about 1 byte per two significant digits plus 1, NULL and
BOOL 1 byte, lists and maps 3 bytes plus 1 per element plus the elements.
"""

import base64
import re

import pytest

from util import VALIDATION, assert_raw_error, attr_defs, get_item, index, random_string

MAX_ITEM = 400 * 1024  # service quotas, "Items": 400 KB
TOO_BIG = "Item size has exceeded the maximum allowed size"


def check_boundary(dynamodb, raw, table, make_item):
    """make_item(extra) builds an item of exactly 400 KB + extra bytes: extra
    0 must be stored, extra 1 refused with the item left as it was."""
    p = random_string(10)
    fitting = make_item(p, 0)
    dynamodb.put_item(TableName=table, Item=fitting)
    assert get_item(dynamodb, table, {"p": {"S": p}}) == fitting
    resp = raw("PutItem", {"TableName": table, "Item": jsonable(make_item(p, 1))})
    assert_raw_error(resp, VALIDATION, TOO_BIG)
    assert get_item(dynamodb, table, {"p": {"S": p}}) == fitting


def jsonable(item):
    """boto3-style item (bytes for B) -> JSON wire form (base64 for B)."""

    def conv(v):
        (k, x), = v.items()
        if k == "B":
            return {"B": base64.b64encode(x).decode()}
        if k == "BS":
            return {"BS": [base64.b64encode(b).decode() for b in x]}
        if k == "L":
            return {"L": [conv(e) for e in x]}
        if k == "M":
            return {"M": {n: conv(e) for n, e in x.items()}}
        return v

    return {n: conv(v) for n, v in item.items()}


def test_item_of_exactly_400_kb(dynamodb, raw, table_s):
    # {p: 10 chars, b: ...} of exactly 409600 bytes is stored, one byte more
    # is refused. Source: dynalite test/putItem.js "should return
    # ValidationException if item is too big with small attribute" and
    # "... ResourceNotFoundException if item is just small enough with small
    # attribute" (recorded; MAX_SIZE 409600).
    check_boundary(dynamodb, raw, table_s, lambda p, extra: {
        "p": {"S": p}, "b": {"S": "a" * (MAX_ITEM - 11 - 1 + extra)}})


def test_attribute_names_count_toward_item_size(dynamodb, raw, table_s):
    # Source: dynalite test/putItem.js "... too big with larger attribute" /
    # "... just small enough with larger attribute" (27-character name).
    name = "b" * 27
    check_boundary(dynamodb, raw, table_s, lambda p, extra: {
        "p": {"S": p}, name: {"S": "a" * (MAX_ITEM - 11 - 27 + extra)}})


def test_item_size_with_several_attributes(dynamodb, raw, table_s):
    # Source: dynalite test/putItem.js "... too big with multi attributes" /
    # "... just small enough with multi attributes".
    check_boundary(dynamodb, raw, table_s, lambda p, extra: {
        "p": {"S": p}, "bb": {"S": "a" * (MAX_ITEM - 11 - 2 - 5 + extra)}, "ccc": {"S": "cc"}})


def test_item_size_counts_number_digits(dynamodb, raw, table_s):
    # Two numbers of 7 significant digits (126 digits long) count 5 bytes
    # each. Source: dynalite test/putItem.js "... too big with multi number
    # attribute" / "... just small enough with multi number attribute".
    number = "1111111" + "0" * 119
    check_boundary(dynamodb, raw, table_s, lambda p, extra: {
        "p": {"S": p}, "b": {"S": "a" * (MAX_ITEM - 11 - 1 - 6 - 6 + extra)},
        "c": {"N": number}, "d": {"N": number}})


@pytest.mark.parametrize("number,size", [
    ("1" * 38 + "0" * 88, 20),   # "... too big with big number attribute"
    ("1" + "0" * 125, 2),        # "... too big with smallest number attribute"
    ("11" + "0" * 124, 2),       # "... too big with smaller number attribute"
    ("11111" + "0" * 121, 4),    # "... too big with medium number attribute"
])
def test_number_sizes_push_item_over_400_kb(raw, table_s, number, size):
    # A number of n significant digits counts at least ceil(n/2) + 1 bytes:
    # these items are 409601 bytes by that rule and AWS refuses them.
    # Source: dynalite test/putItem.js, the cases named above (recorded).
    p = random_string(10)
    item = {"p": {"S": p}, "b": {"S": "a" * (MAX_ITEM + 1 - 11 - 1 - 1 - size)},
            "c": {"N": number}}
    resp = raw("PutItem", {"TableName": table_s, "Item": item})
    assert_raw_error(resp, VALIDATION, TOO_BIG)


def test_strings_count_utf8_bytes(dynamodb, raw, table_s):
    # Strings count their UTF-8 bytes, not characters (developer guide:
    # "(number of UTF-8-encoded bytes)"); "é" is 2 bytes.
    check_boundary(dynamodb, raw, table_s, lambda p, extra: {
        "p": {"S": p}, "b": {"S": "é" * ((MAX_ITEM - 12) // 2) + "a" * extra}})


def test_binaries_count_raw_bytes(dynamodb, raw, table_s):
    # Binaries count their raw bytes, not their base64 length (developer
    # guide: "the value's raw byte length is used for calculating size").
    check_boundary(dynamodb, raw, table_s, lambda p, extra: {
        "p": {"S": p}, "b": {"B": b"\x01" * (MAX_ITEM - 12 + extra)}})


HASH_TOO_BIG = ("One or more parameter values were invalid: Size of hashkey has exceeded the "
                "maximum size limit of2048 bytes")
RANGE_TOO_BIG = ("One or more parameter values were invalid: Aggregated size of all range keys "
                 "has exceeded the size limit of 1024 bytes")


def test_partition_key_of_2048_bytes(dynamodb, raw, table_s):
    # Partition keys hold up to 2048 bytes; 2049 is refused with AWS's
    # message (its missing space included) by PutItem and GetItem. Source:
    # dynalite test/putItem.js and getItem.js "should return
    # ValidationException if hash key is too big" (recorded); service quotas,
    # "Partition key length".
    key = random_string(10) + "a" * 2038
    dynamodb.put_item(TableName=table_s, Item={"p": {"S": key}})
    assert get_item(dynamodb, table_s, {"p": {"S": key}}) == {"p": {"S": key}}
    for op, field in (("PutItem", "Item"), ("GetItem", "Key"), ("DeleteItem", "Key")):
        resp = raw(op, {"TableName": table_s, field: {"p": {"S": key + "a"}}})
        assert_raw_error(resp, VALIDATION, HASH_TOO_BIG)


def test_sort_key_of_1024_bytes(dynamodb, raw, table_sc):
    # Sort keys hold up to 1024 bytes. Source: dynalite test/putItem.js and
    # getItem.js "should return ValidationException if range key is too big"
    # (recorded); service quotas, "Sort key length".
    p = {"S": random_string()}
    sort = random_string(10) + "b" * 1014
    dynamodb.put_item(TableName=table_sc, Item={"p": p, "c": {"S": sort}})
    assert get_item(dynamodb, table_sc, {"p": p, "c": {"S": sort}}) is not None
    for op, field in (("PutItem", "Item"), ("GetItem", "Key")):
        resp = raw(op, {"TableName": table_sc, field: {"p": p, "c": {"S": sort + "b"}}})
        assert_raw_error(resp, VALIDATION, RANGE_TOO_BIG)



def index_too_big(name, size, limit, index):
    return ("One or more parameter values were invalid: Size limit exceeded for Index Key "
            f"{name} Actual Size: {size} bytes Max Size: {limit} bytes IndexName: {index}")


@pytest.fixture
def indexed_table(make_table):
    """Hash key p; GSI g_idx (g HASH, gs RANGE); LSI l_idx (p HASH, ls RANGE)."""
    return make_table(
        ("p", "S"), ("c", "S"),
        AttributeDefinitions=attr_defs(p="S", c="S", g="S", gs="B", ls="S"),
        GlobalSecondaryIndexes=[index("g_idx", "g", "gs")],
        LocalSecondaryIndexes=[index("l_idx", "p", "ls", "KEYS_ONLY")])


@pytest.mark.parametrize("attr,value,size,limit,index", [
    ("g", {"S": "g" * 2049}, 2049, 2048, "g_idx"),
    ("gs", {"B": base64.b64encode(b"\x00" * 1025).decode()}, 1025, 1024, "g_idx"),
    ("ls", {"S": "é" * 513}, 1026, 1024, "l_idx"),
])
def test_index_key_over_the_key_size_limit_is_refused(dynamodb, raw, indexed_table, attr,
                                                      value, size, limit, index):
    # A write whose secondary-index key attribute is longer than a key may be
    # (2048 bytes for a partition key, 1024 for a sort key, UTF-8 bytes or raw
    # binary bytes) is refused, not left out of the index. Text from real
    # responses quoted in dynalite issue 35 ("Size limit exceeded for Index
    # Key c Actual Size: 43398 bytes Max Size: 2048 bytes IndexName: index4")
    # and wellcomecollection/platform issue 2285.
    key = {"p": {"S": random_string()}, "c": {"S": "c"}}
    fitting = {"g": {"S": "g" * 2048}, "gs": {"B": b"\x00" * 1024}, "ls": {"S": "é" * 512}}
    dynamodb.put_item(TableName=indexed_table, Item={**key, **fitting})
    resp = raw("PutItem", {"TableName": indexed_table,
                           "Item": {**key, **jsonable(fitting), attr: value}})
    assert_raw_error(resp, VALIDATION, index_too_big(attr, size, limit, index))
    resp = raw("UpdateItem", {"TableName": indexed_table, "Key": key,
                              "UpdateExpression": "SET #a = :v",
                              "ExpressionAttributeNames": {"#a": attr},
                              "ExpressionAttributeValues": {":v": value}})
    assert_raw_error(resp, VALIDATION, index_too_big(attr, size, limit, index))
    # Nothing changed: the item and its index entries are those of the first write.
    assert get_item(dynamodb, indexed_table, key) == {**key, **fitting}
    got = dynamodb.query(TableName=indexed_table, IndexName="g_idx",
                         KeyConditionExpression="g = :g",
                         ExpressionAttributeValues={":g": fitting["g"]})["Items"]
    assert [i["p"] for i in got] == [key["p"]]


def nested(kind, depth):
    value = {"S": "leaf"}
    for _ in range(depth):
        value = {"M": {"a": value}} if kind == "M" else {"L": [value]}
    return value


# AWS's wording, captured in eu-west-2: "Nesting Levels have exceeded
# supported limits: Attributes in the item have nested levels beyond supported
# limit"; the capture notes that the wording varies by region.
NESTING = re.compile(r"(?s).*Nesting Levels have exceeded supported limits.*")


@pytest.mark.parametrize("kind", ["M", "L"])
def test_nesting_depth(dynamodb, raw, table_s, kind):
    # Documents nest up to 32 levels: an attribute holding 31 nested maps is
    # stored, 50 levels are refused. Source: scylla test_manual_requests.py
    # test_almost_exceed_nested_level / test_exceed_nested_level_a_little (run
    # against AWS); service quotas, "Nested attribute depth: 32".
    p = {"S": random_string()}
    ok = {"p": p, "v": nested(kind, 31)}
    dynamodb.put_item(TableName=table_s, Item=ok)
    assert get_item(dynamodb, table_s, {"p": p}) == ok
    resp = raw("PutItem", {"TableName": table_s, "Item": {"p": p, "v": nested(kind, 50)}})
    assert_raw_error(resp, VALIDATION, NESTING)
    assert get_item(dynamodb, table_s, {"p": p}) == ok


def test_absurdly_deep_json_does_not_crash(raw, table_s):
    # A request nested 200,000 levels deep must be answered (refused is fine)
    # without crashing the server. Source: scylla test_manual_requests.py
    # test_deeply_nested_put (run against AWS).
    depth = 200000
    body = ('{"TableName": "' + table_s + '", "Item": {"p": {"S": "x"}, "v": '
            + '{"M": {"a": ' * depth + '{"S": "x"}' + '}}' * depth + "}}")
    resp = raw("PutItem", body)
    assert resp.status in (200, 400, 413)
    assert raw("ListTables", {}).status == 200
