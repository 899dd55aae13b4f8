# SPDX-License-Identifier: MIT
"""The legacy parameters of the single-item operations: Expected (with
ConditionalOperator) on PutItem/UpdateItem/DeleteItem, AttributeUpdates on
UpdateItem, AttributesToGet on GetItem, and the rule against mixing them with
expressions.

Semantics from scylla test/alternator/test_expected.py and test_item.py (run
against AWS); messages from dynalite test/putItem.js, deleteItem.js,
updateItem.js and getItem.js (recorded against AWS) unless a comment says
otherwise. Every refused write is checked to have changed nothing.
"""

import pytest

from unchanged import conditional, validation
from util import B, L, M, N, S, assert_error, client_error, get_item, random_key, random_string


INVALID = "One or more parameter values were invalid: "


def updater(client, table, k):
    """update(attribute_updates, **more) -> response."""
    def update(updates, **more):
        return client.update_item(TableName=table, Key=k, AttributeUpdates=updates, **more)
    return update


# ---------------------------------------------------------------------------
# Expected
# ---------------------------------------------------------------------------

ITEM = {"a": N(1), "s": S("hello"), "b": B(b"cat"), "set": {"NS": ["2", "4", "7"]},
        "l": L(N(2), N(4), N(7))}

# (Expected, holds) against ITEM: scylla test_expected.py's operator tests.
EXPECTED_CASES = [
    ({"a": {"Value": N(1)}}, True),
    ({"a": {"Value": N(1), "Exists": True}}, True),
    ({"a": {"Value": N(2)}}, False),
    ({"q": {"Exists": False}}, True),
    ({"a": {"Exists": False}}, False),
    ({"a": {"ComparisonOperator": "EQ", "AttributeValueList": [N(1)]}}, True),
    ({"a": {"ComparisonOperator": "EQ", "AttributeValueList": [S("1")]}}, False),
    ({"a": {"ComparisonOperator": "EQ", "Value": N(1)}}, True),
    ({"set": {"ComparisonOperator": "EQ", "AttributeValueList": [{"NS": ["7", "2", "4"]}]}}, True),
    ({"a": {"ComparisonOperator": "NE", "AttributeValueList": [N(2)]}}, True),
    ({"a": {"ComparisonOperator": "NE", "AttributeValueList": [S("1")]}}, True),
    ({"q": {"ComparisonOperator": "NE", "AttributeValueList": [N(1)]}}, True),
    ({"a": {"ComparisonOperator": "NE", "AttributeValueList": [N(1)]}}, False),
    ({"a": {"ComparisonOperator": "LE", "AttributeValueList": [N(1)]}}, True),
    ({"s": {"ComparisonOperator": "LT", "AttributeValueList": [S("world")]}}, True),
    ({"b": {"ComparisonOperator": "LT", "AttributeValueList": [B(b"dog")]}}, True),
    ({"a": {"ComparisonOperator": "LT", "AttributeValueList": [S("1")]}}, False),
    ({"a": {"ComparisonOperator": "GE", "AttributeValueList": [N(1)]}}, True),
    ({"a": {"ComparisonOperator": "GT", "AttributeValueList": [N(1)]}}, False),
    ({"a": {"ComparisonOperator": "NOT_NULL"}}, True),
    ({"q": {"ComparisonOperator": "NOT_NULL", "AttributeValueList": []}}, False),
    ({"q": {"ComparisonOperator": "NULL"}}, True),
    ({"a": {"ComparisonOperator": "NULL"}}, False),
    ({"s": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [S("ell")]}}, True),
    ({"set": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [N(4)]}}, True),
    ({"l": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [N(4)]}}, True),
    ({"q": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [N(1)]}}, False),
    ({"s": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [S("dog")]}}, True),
    ({"l": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [N(4)]}}, False),
    # A missing attribute neither CONTAINS nor NOT_CONTAINS anything
    # (scylla test_update_expected_1_not_contains).
    ({"q": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [N(1)]}}, False),
    ({"s": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [S("hell")]}}, True),
    ({"a": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [S("1")]}}, False),
    ({"a": {"ComparisonOperator": "IN", "AttributeValueList": [N(3), N(1)]}}, True),
    ({"a": {"ComparisonOperator": "IN", "AttributeValueList": [N(3), N(4)]}}, False),
    ({"a": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [N(0), N(1)]}}, True),
    ({"s": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [S("a"), S("b")]}}, False),
    # Several entries are ANDed (scylla test_update_expected_multi_true/false).
    ({"a": {"Exists": True, "Value": N(1)}, "q": {"Exists": False},
      "s": {"ComparisonOperator": "EQ", "AttributeValueList": [S("hello")]}}, True),
    ({"a": {"Exists": True, "Value": N(1)}, "q": {"Exists": False},
      "s": {"ComparisonOperator": "EQ", "AttributeValueList": [S("bye")]}}, False),
    ({}, True),
]


@pytest.mark.parametrize("expected,holds", EXPECTED_CASES)
def test_expected_semantics(dynamodb, table_s, expected, holds):
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, **ITEM})
    update = updater(dynamodb, table_s, k)
    if holds:
        update({"z": {"Value": N(9), "Action": "PUT"}}, Expected=expected)
        assert get_item(dynamodb, table_s, k)["z"] == N(9)
    else:
        conditional(dynamodb, table_s, k, update, {"z": {"Value": N(9), "Action": "PUT"}},
                    Expected=expected)


def test_expected_conditional_operator(dynamodb, table_s):
    # ConditionalOperator OR needs one entry to hold, AND (the default) all
    # (scylla test_update_expected_multi_true and _false).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": N(1), "b": N(2), "c": N(3)})
    update = updater(dynamodb, table_s, k)
    some = {"a": {"Exists": True, "Value": N(74)},
            "b": {"ComparisonOperator": "EQ", "AttributeValueList": [N(2)]},
            "c": {"Exists": False}}
    none = {**some, "b": {"ComparisonOperator": "EQ", "AttributeValueList": [N(999)]}}
    update({"z": {"Value": N(5)}}, Expected=some, ConditionalOperator="OR")
    conditional(dynamodb, table_s, k, update, {"z": {"Value": N(6)}}, Expected=none,
                ConditionalOperator="OR")
    conditional(dynamodb, table_s, k, update, {"z": {"Value": N(6)}}, Expected=some,
                ConditionalOperator="AND")
    assert get_item(dynamodb, table_s, k)["z"] == N(5)


def test_expected_on_put_and_delete(dynamodb, table_s):
    # The same conditions guard PutItem and DeleteItem (scylla
    # test_put_item_expected, test_delete_item_expected).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": N(1)})
    dynamodb.put_item(TableName=table_s, Item={**k, "a": N(2)}, Expected={"a": {"Value": N(1)}})
    conditional(dynamodb, table_s, k, dynamodb.put_item, TableName=table_s,
                Item={**k, "a": N(3)}, Expected={"a": {"Value": N(1)}})
    conditional(dynamodb, table_s, k, dynamodb.delete_item, TableName=table_s, Key=k,
                Expected={"a": {"Value": N(1)}})
    dynamodb.delete_item(TableName=table_s, Key=k, Expected={"a": {"Value": N(2)}})
    assert get_item(dynamodb, table_s, k) is None


@pytest.mark.parametrize("expected,message", [
    # dynalite test/putItem.js, deleteItem.js, updateItem.js, recorded
    # against AWS.
    ({"a": {}}, INVALID + "Value must be provided when Exists is null for Attribute: a"),
    ({"a": {"Exists": True}}, INVALID + "Value must be provided when Exists is true for Attribute: a"),
    ({"a": {"Exists": False, "Value": S("a")}},
     INVALID + "Value cannot be used when Exists is false for Attribute: a"),
    ({"a": {"ComparisonOperator": "LT"}},
     INVALID + "Value or AttributeValueList must be used with ComparisonOperator: LT for "
               "Attribute: a"),
    ({"a": {"Exists": True, "ComparisonOperator": "LT"}},
     INVALID + "Exists and ComparisonOperator cannot be used together for Attribute: a"),
    ({"a": {"AttributeValueList": [S("a")], "Value": S("a"), "ComparisonOperator": "LT"}},
     INVALID + "Value and AttributeValueList cannot be used together for Attribute: a"),
    ({"a": {"Value": S("a"), "AttributeValueList": []}},
     INVALID + "Value and AttributeValueList cannot be used together for Attribute: a"),
    ({"a": {"AttributeValueList": [S("a")]}},
     INVALID + "AttributeValueList can only be used with a ComparisonOperator for Attribute: a"),
    ({"a": {"Exists": True, "AttributeValueList": [S("a")]}},
     INVALID + "AttributeValueList can only be used with a ComparisonOperator for Attribute: a"),
    ({"a": {"AttributeValueList": [], "ComparisonOperator": "EQ"}},
     INVALID + "Invalid number of argument(s) for the EQ ComparisonOperator"),
    ({"a": {"AttributeValueList": [S("a")], "ComparisonOperator": "NULL"}},
     INVALID + "Invalid number of argument(s) for the NULL ComparisonOperator"),
    ({"a": {"AttributeValueList": [], "ComparisonOperator": "IN"}},
     INVALID + "Invalid number of argument(s) for the IN ComparisonOperator"),
    ({"a": {"AttributeValueList": [N(1), N(10), N(12)], "ComparisonOperator": "BETWEEN"}},
     INVALID + "Invalid number of argument(s) for the BETWEEN ComparisonOperator"),
    ({"a": {"Value": S("a"), "ComparisonOperator": "NULL"}},
     INVALID + "Invalid number of argument(s) for the NULL ComparisonOperator"),
    ({"a": {"Value": S("a"), "ComparisonOperator": "BETWEEN"}},
     INVALID + "Invalid number of argument(s) for the BETWEEN ComparisonOperator"),
    ({"a": {"ComparisonOperator": "IN", "AttributeValueList": [S("b"), N(1)]}},
     INVALID + "AttributeValues inside AttributeValueList must be of same type"),
    ({"a": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [S("b"), S("a")]}},
     "The BETWEEN condition was provided a range where the lower bound is greater than the "
     "upper bound"),
    # BEGINS_WITH takes a string or binary, CONTAINS no set, list or map: a
    # ValidationException (scylla test_update_expected_1_begins_with_false,
    # test_update_expected_1_contains, run against AWS), with the text AWS
    # gives for the same Condition in a QueryFilter (dynalite test/query.js).
    ({"a": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [N(3)]}},
     INVALID + "ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"),
    ({"a": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [L(N(1))]}},
     INVALID + "ComparisonOperator CONTAINS is not valid for L AttributeValue type"),
])
def test_expected_errors(dynamodb, table_s, expected, message):
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": N(1)})
    validation(dynamodb, table_s, k, message, dynamodb.put_item, TableName=table_s,
               Item={**k, "a": N(2)}, Expected=expected)
    validation(dynamodb, table_s, k, message, dynamodb.delete_item, TableName=table_s, Key=k,
               Expected=expected)
    validation(dynamodb, table_s, k, message, dynamodb.update_item, TableName=table_s, Key=k,
               AttributeUpdates={"z": {"Value": N(1)}}, Expected=expected)


@pytest.mark.parametrize("expected,message", [
    # ConditionalOperator needs an Expected of two or more entries; scylla
    # test_update_expected_empty (run against AWS) shows the refusal of an
    # empty one, and the two texts are DynamoDB's request validator's as
    # Amazon's DAX client carries it (the second also recorded from AWS for
    # a one-element ScanFilter by paritysuite).
    ({}, "ConditionalOperator cannot be used without Filter or Expected"),
    ({"a": {"Value": N(1)}},
     "ConditionalOperator can only be used when Filter or Expected has two or more elements"),
])
def test_conditional_operator_needs_two_conditions(dynamodb, table_s, expected, message):
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": N(1)})
    for op in ["OR", "AND"]:
        validation(dynamodb, table_s, k, message, dynamodb.update_item, TableName=table_s, Key=k,
                   AttributeUpdates={"z": {"Value": N(4)}}, Expected=expected,
                   ConditionalOperator=op)


def test_expected_error_order(dynamodb, table_s):
    # PutItem checks the item's size before Expected (dynalite test/putItem.js
    # "item is too big" sends Expected {a: {}} and gets the size error), and
    # ReturnValues before both.
    k = random_key()
    big = {**k, "b": S("x" * 410000)}
    validation(dynamodb, table_s, k, "Item size has exceeded the maximum allowed size",
               dynamodb.put_item, TableName=table_s, Item=big, Expected={"a": {}})
    validation(dynamodb, table_s, k, "ReturnValues can only be ALL_OLD or NONE",
               dynamodb.put_item, TableName=table_s, Item=big, Expected={"a": {}},
               ReturnValues="ALL_NEW")


# ---------------------------------------------------------------------------
# AttributeUpdates
# ---------------------------------------------------------------------------


def test_attribute_updates_put_and_delete(dynamodb, table_s):
    # PUT (the default action) writes the value; DELETE without a value
    # removes the attribute (dynalite test/updateItem.js "should delete
    # normal values and return updated new", recorded against AWS).
    k = random_key()
    update = updater(dynamodb, table_s, k)
    update({"b": {"Value": S("a")}, "c": {"Value": S("a"), "Action": "PUT"}})
    got = update({"b": {"Action": "DELETE"}, "c": {"Value": S("a")}}, ReturnValues="UPDATED_NEW")
    assert got["Attributes"] == {"c": S("a")}
    assert get_item(dynamodb, table_s, k) == {**k, "c": S("a")}


def test_attribute_updates_add(dynamodb, table_s):
    # ADD adds numbers, unions sets and - undocumented - appends to lists;
    # a missing attribute counts as 0, the empty set or the empty list (scylla
    # test_item.py test_update_item_add; dynalite test/updateItem.js "should
    # add list value and return updated new", recorded against AWS).
    k = random_key()
    update = updater(dynamodb, table_s, k)
    update({"n": {"Action": "ADD", "Value": N(7)}, "s": {"Action": "ADD", "Value": {"NS": ["1", "2"]}},
            "l": {"Action": "ADD", "Value": L(S("a"), N(1))}})
    got = update({"n": {"Action": "ADD", "Value": N("-1.5")},
                  "s": {"Action": "ADD", "Value": {"NS": ["2", "3"]}},
                  "l": {"Action": "ADD", "Value": L(S("b"), N(2))}},
                 ReturnValues="UPDATED_NEW")
    assert got["Attributes"]["n"] == N("5.5")
    assert sorted(got["Attributes"]["s"]["NS"]) == ["1", "2", "3"]
    assert got["Attributes"]["l"] == L(S("a"), N(1), S("b"), N(2))


def test_attribute_updates_delete_from_sets(dynamodb, table_s):
    # DELETE with a set value takes elements out; the attribute goes when the
    # set empties (dynalite test/updateItem.js "should delete set values and
    # return updated new").
    k = random_key()
    update = updater(dynamodb, table_s, k)
    update({"b": {"Value": {"NS": ["1", "2", "3"]}}, "c": {"Value": S("a")}})
    got = update({"b": {"Action": "DELETE", "Value": {"NS": ["1", "4"]}}},
                 ReturnValues="UPDATED_NEW")
    assert sorted(got["Attributes"]["b"]["NS"]) == ["2", "3"]
    got = update({"b": {"Action": "DELETE", "Value": {"NS": ["2", "3"]}}, "c": {"Value": S("a")}},
                 ReturnValues="UPDATED_NEW")
    assert got["Attributes"] == {"c": S("a")}
    assert get_item(dynamodb, table_s, k) == {**k, "c": S("a")}


def test_attribute_updates_on_a_missing_item(dynamodb, table_s):
    # PUT and ADD create the item; only-DELETE updates do not; an empty map
    # creates the key-only item (scylla test_item.py
    # test_update_item_non_existent, test_update_item_add; dynalite "should
    # just add valid ADD actions if nothing exists").
    for updates, expected in [
        ({"a": {"Value": N(3), "Action": "PUT"}}, {"a": N(3)}),
        ({"a": {"Action": "ADD", "Value": {"SS": ["x"]}}}, {"a": {"SS": ["x"]}}),
        ({}, {}),
        ({"a": {"Action": "DELETE"}}, None),
        ({"a": {"Action": "DELETE", "Value": {"SS": ["x"]}}}, None),
        ({"b": {"Action": "DELETE"}, "c": {"Action": "DELETE", "Value": {"SS": ["a", "b"]}},
          "d": {"Action": "ADD", "Value": N(5)}}, {"d": N(5)}),
    ]:
        k = random_key()
        updater(dynamodb, table_s, k)(updates)
        got = get_item(dynamodb, table_s, k)
        assert got == (None if expected is None else {**k, **expected}), updates


@pytest.mark.parametrize("updates,message", [
    # dynalite test/updateItem.js "validations", recorded against AWS.
    ({"a": {"Value": None}},
     INVALID + "Only DELETE action is allowed when no attribute value is specified"),
    ({"a": {"Action": "PUT"}},
     INVALID + "Only DELETE action is allowed when no attribute value is specified"),
    ({"a": {"Action": "ADD"}},
     INVALID + "Only DELETE action is allowed when no attribute value is specified"),
] + [
    ({"a": {"Action": "DELETE", "Value": v}},
     INVALID + "DELETE action with value is not supported for the type " + t)
    for v, t in [(S("1"), "S"), (N(1), "N"), (B(b"b"), "B"), ({"NULL": True}, "NULL"),
                 ({"BOOL": True}, "BOOL"), (M(), "M"), (L(), "L")]
] + [
    ({"a": {"Action": "ADD", "Value": v}},
     INVALID + "ADD action is not supported for the type " + t)
    for v, t in [(S("1"), "S"), (B(b"b"), "B"), ({"NULL": True}, "NULL"), ({"BOOL": True}, "BOOL"),
                 (M(), "M")]
])
def test_attribute_updates_errors(dynamodb, table_s, updates, message):
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": N(1)})
    if updates["a"].get("Value", 0) is None:
        updates = {"a": {}}
    validation(dynamodb, table_s, k, message, dynamodb.update_item, TableName=table_s, Key=k,
               AttributeUpdates=updates)


def test_attribute_updates_type_mismatch(dynamodb, table_s):
    # ADD or DELETE against an attribute of another type: "Type mismatch for
    # attribute to update" (dynalite test/updateItem.js "trying to
    # delete/add incorrect types", recorded against AWS).
    k = random_key()
    update = updater(dynamodb, table_s, k)
    update({"b": {"Value": {"SS": ["1"]}}, "c": {"Value": N(1)}, "d": {"Value": {"NS": ["1"]}},
            "e": {"Value": S("x")}})
    for updates in [{"b": {"Action": "DELETE", "Value": {"NS": ["1"]}}},
                    {"b": {"Action": "DELETE", "Value": {"BS": [b"a"]}}},
                    {"c": {"Action": "DELETE", "Value": {"NS": ["1"]}}},
                    {"b": {"Action": "ADD", "Value": {"NS": ["1"]}}},
                    {"d": {"Action": "ADD", "Value": N(1)}},
                    {"e": {"Action": "ADD", "Value": L(N(1))}}]:
        validation(dynamodb, table_s, k, "Type mismatch for attribute to update", update, updates)


def test_attribute_updates_of_the_key(dynamodb, table_sc):
    # Any action on a key attribute, hash first (dynalite test/updateItem.js
    # "trying to update key" / "range key").
    k = {"p": S(random_string()), "c": S("x")}
    validation(dynamodb, table_sc, k,
               INVALID + "Cannot update attribute c. This attribute is part of the key",
               dynamodb.update_item, TableName=table_sc, Key=k,
               AttributeUpdates={"d": {"Value": N(1)}, "c": {"Value": S("y")}})
    validation(dynamodb, table_sc, k,
               INVALID + "Cannot update attribute p. This attribute is part of the key",
               dynamodb.update_item, TableName=table_sc, Key=k,
               AttributeUpdates={"c": {"Value": S("y")}, "p": {"Action": "DELETE"}})


def test_attribute_updates_return_values(dynamodb, table_s):
    # ALL_OLD / UPDATED_OLD / ALL_NEW / UPDATED_NEW over AttributeUpdates
    # (dynalite test/updateItem.js "should return all old values when they
    # exist" and friends; scylla
    # test_update_item_returnvalues_all_old_attributeupdates).
    k = random_key()
    update = updater(dynamodb, table_s, k)
    update({"b": {"Value": M(a=S("a"), b=L())}, "c": {"Value": N(1)}})
    got = update({"b": {"Value": M(a=S("b"), b=L())}, "c": {"Action": "ADD", "Value": N(1)}},
                 ReturnValues="UPDATED_OLD")
    assert got["Attributes"] == {"b": M(a=S("a"), b=L()), "c": N(1)}
    got = update({"c": {"Action": "ADD", "Value": N(2)}}, ReturnValues="ALL_OLD")
    assert got["Attributes"] == {**k, "b": M(a=S("b"), b=L()), "c": N(2)}
    got = update({"d": {"Value": S("x")}}, ReturnValues="ALL_NEW")
    assert got["Attributes"] == {**k, "b": M(a=S("b"), b=L()), "c": N(4), "d": S("x")}
    # No actions: nothing updated, nothing in UPDATED_*; ALL_NEW is the item
    # (scylla test_update_item_returnvalues_updated_new / _all_new).
    assert "Attributes" not in update({}, ReturnValues="UPDATED_NEW")
    assert "Attributes" not in update({}, ReturnValues="UPDATED_OLD")
    assert update({}, ReturnValues="ALL_NEW")["Attributes"] == get_item(dynamodb, table_s, k)


def test_attribute_updates_item_size(dynamodb, table_s):
    # "Item size to update has exceeded the maximum allowed size" (dynalite
    # test/updateItem.js "update item is too big").
    k = random_key()
    validation(dynamodb, table_s, k, "Item size to update has exceeded the maximum allowed size",
               dynamodb.update_item, TableName=table_s, Key=k,
               AttributeUpdates={"b": {"Action": "PUT", "Value": S("a" * 409600)},
                                 "c": {"Action": "PUT", "Value": N("1" * 38 + "0" * 88)}})


def test_attribute_updates_with_expected(dynamodb, table_s):
    # The legacy pair: Expected guards AttributeUpdates (dynalite
    # test/updateItem.js "should update when boolean value expect matches").
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "active": {"BOOL": False}})
    got = dynamodb.update_item(TableName=table_s, Key=k,
                               Expected={"active": {"Value": {"BOOL": False}, "Exists": True}},
                               AttributeUpdates={"active": {"Action": "PUT",
                                                            "Value": {"BOOL": True}}},
                               ReturnValues="UPDATED_NEW")
    assert got["Attributes"] == {"active": {"BOOL": True}}


# ---------------------------------------------------------------------------
# AttributesToGet
# ---------------------------------------------------------------------------


def test_attributes_to_get(dynamodb, table_s):
    # Only the named top-level attributes; the key only when named; an
    # existing item with none of them is {} (scylla test_projection_expression
    # top-level cases, the AttributesToGet form).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": S("hello"), "b": M(c=N(1))})
    get = lambda names: dynamodb.get_item(TableName=table_s, Key=k, AttributesToGet=names,
                                          ConsistentRead=True)
    assert get(["a"])["Item"] == {"a": S("hello")}
    assert get(["p", "b", "zz"])["Item"] == {**k, "b": M(c=N(1))}
    assert get(["nothing"])["Item"] == {}
    # A name with a dot is one attribute, not a path.
    assert get(["b.c"])["Item"] == {}


def test_attributes_to_get_errors(dynamodb, table_s):
    # dynalite test/getItem.js, recorded against AWS.
    k = random_key()
    for args, message in [
        ({"AttributesToGet": ["a", "a"]},
         INVALID + "Duplicate value in attribute name: a"),
        ({"AttributesToGet": ["a"], "ProjectionExpression": "a"},
         "Can not use both expression and non-expression parameters in the same request: "
         "Non-expression parameters: {AttributesToGet} Expression parameters: "
         "{ProjectionExpression}"),
        ({"AttributesToGet": ["a"], "ExpressionAttributeNames": {"#a": "a"}},
         "ExpressionAttributeNames can only be specified when using expressions"),
    ]:
        err = client_error(dynamodb.get_item, TableName=table_s, Key=k, **args)
        assert_error(err, "ValidationException", message)
