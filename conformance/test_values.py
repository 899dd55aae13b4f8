# SPDX-License-Identifier: MIT
"""Attribute values: every type round-trips exactly; empty strings and
binaries are allowed outside keys; sets must be non-empty and free of
duplicates; malformed AttributeValues get AWS's messages."""

import pytest

from util import VALIDATION, assert_raw_error, get_item, random_string


def test_every_type_round_trips(raw, table_s):
    # S N B BOOL NULL SS NS BS L M, nested in lists and maps, including empty
    # lists and maps, come back exactly. Source: dynalite test/putItem.js
    # "should put multi attribute item" (recorded).
    p = {"S": random_string()}
    item = {
        "p": p,
        "b": {"N": "-56.789"},
        "c": {"B": "Yg=="},
        "d": {"BOOL": False},
        "e": {"NULL": True},
        "f": {"SS": ["a"]},
        "g": {"NS": ["-56.789"]},
        "h": {"BS": ["Yg=="]},
        "i": {"L": [
            {"S": "a"}, {"N": "-56.789"}, {"B": "Yg=="}, {"BOOL": True}, {"NULL": True},
            {"SS": ["a"]}, {"NS": ["-56.789"]}, {"BS": ["Yg=="]}, {"L": []}, {"M": {}},
        ]},
        "j": {"M": {
            "a": {"S": "a"}, "b": {"N": "-56.789"}, "c": {"B": "Yg=="}, "d": {"BOOL": True},
            "e": {"NULL": True}, "f": {"SS": ["a"]}, "g": {"NS": ["-56.789"]},
            "h": {"BS": ["Yg=="]}, "i": {"L": []}, "j": {"M": {"a": {"M": {}}, "b": {"L": []}}},
        }},
    }
    resp = raw("PutItem", {"TableName": table_s, "Item": item})
    assert resp.status == 200 and resp.data == {}
    resp = raw("GetItem", {"TableName": table_s, "Key": {"p": p}, "ConsistentRead": True})
    assert resp.data == {"Item": item}


def test_sets_round_trip_as_sets(dynamodb, table_s):
    # Sets keep their members (the order is not significant: API reference
    # AttributeValue SS/NS/BS "An attribute of type ... Set").
    value = {
        "ss": {"SS": ["b", "a", "c", "é", "😀"]},
        "ns": {"NS": ["3", "-1", "2.5", "100"]},
        "bs": {"BS": [b"\x00", b"\xff", b"ab"]},
    }
    p = {"S": random_string()}
    dynamodb.put_item(TableName=table_s, Item={"p": p, **value})
    got = get_item(dynamodb, table_s, {"p": p})
    for name, v in value.items():
        (kind, members), = v.items()
        (got_kind, got_members), = got[name].items()
        assert got_kind == kind
        assert sorted(got_members) == sorted(members)


def test_strings_and_binaries_keep_every_byte(dynamodb, table_s):
    # Strings are UTF-8 and may hold any character including NUL; binaries
    # hold any byte (developer guide, "Data types": String, Binary).
    p = {"S": random_string()}
    item = {
        "p": p,
        "nul": {"S": "a\x00b"},
        "uni": {"S": "日本語 ✓ 😀 \u2028"},
        "bytes": {"B": bytes(range(256))},
        "list": {"L": [{"S": "\x00"}, {"B": b"\x00\x00"}]},
    }
    dynamodb.put_item(TableName=table_s, Item=item)
    assert get_item(dynamodb, table_s, {"p": p}) == item


def test_empty_strings_and_binaries_outside_keys(raw, table_s):
    # Non-key attributes may be empty strings or binaries, also inside sets.
    # Source: dynalite test/putItem.js "should put empty values" (recorded).
    p = {"S": random_string()}
    item = {"p": p, "b": {"S": ""}, "c": {"B": ""}, "d": {"SS": [""]}, "e": {"BS": [""]},
            "f": {"M": {"x": {"S": ""}}}, "g": {"L": [{"B": ""}]}}
    resp = raw("PutItem", {"TableName": table_s, "Item": item})
    assert resp.status == 200, resp.data
    resp = raw("GetItem", {"TableName": table_s, "Key": {"p": p}, "ConsistentRead": True})
    assert resp.data == {"Item": item}


EMPTY_VALUE = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
PREFIX = "One or more parameter values were invalid: "

# Source for each row: dynalite test/putItem.js "should return
# ValidationException for unsupported datatype in Item", "... for invalid
# values in Item", "... for multiple datatypes in Item" (recorded).
BAD_VALUES = [
    ({}, EMPTY_VALUE),
    ({"a": ""}, EMPTY_VALUE),
    ({"M": {"a": {}}}, EMPTY_VALUE),
    ({"L": [{}]}, EMPTY_VALUE),
    ({"L": [{"a": {}}]}, EMPTY_VALUE),
    ({"NULL": False}, PREFIX + "Null attribute value types must have the value of true"),
    ({"SS": []}, PREFIX + "An string set  may not be empty"),
    ({"NS": []}, PREFIX + "An number set  may not be empty"),
    ({"BS": []}, PREFIX + "Binary sets should not be empty"),
    ({"SS": ["a", "a"]}, PREFIX + "Input collection [a, a] contains duplicates."),
    ({"BS": ["Yg==", "Yg=="]}, PREFIX + "Input collection [Yg==, Yg==]of type BS contains duplicates."),
    ({"NS": ["1", "1"]}, "Input collection contains duplicates"),
    ({"S": "a", "N": "1"},
     "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the "
     "supported datatypes"),
]


@pytest.mark.parametrize("value,message", BAD_VALUES, ids=[str(i) for i in range(len(BAD_VALUES))])
def test_invalid_values_are_refused(raw, dynamodb, table_s, value, message):
    p = {"S": random_string()}
    dynamodb.put_item(TableName=table_s, Item={"p": p, "v": {"S": "old"}})
    resp = raw("PutItem", {"TableName": table_s, "Item": {"p": p, "v": value}})
    assert_raw_error(resp, VALIDATION, message)
    assert get_item(dynamodb, table_s, {"p": p}) == {"p": p, "v": {"S": "old"}}


@pytest.mark.parametrize("value,message", BAD_VALUES[:6], ids=[str(i) for i in range(6)])
def test_invalid_values_in_keys_are_refused(raw, table_s, value, message):
    # The same value checks run on GetItem's Key. Source: dynalite
    # test/getItem.js "should return ValidationException for unsupported
    # datatype in Key" / "... invalid values in Key" (recorded).
    resp = raw("GetItem", {"TableName": table_s, "Key": {"p": value}})
    assert_raw_error(resp, VALIDATION, message)
