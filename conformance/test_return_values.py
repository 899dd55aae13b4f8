# SPDX-License-Identifier: MIT
"""ReturnValues of PutItem, UpdateItem and DeleteItem, and
ReturnValuesOnConditionCheckFailure.

The UpdateItem cases follow scylla test/alternator/test_returnvalues.py
(written against AWS) and dynalite test/updateItem.js (recorded against AWS).
ReturnValuesOnConditionCheckFailure is newer than Debian's boto3 1.26, so its
requests and the exception's "Item" member go through the raw JSON helper.
"""

import re

import pytest

from unchanged import conditional, refused_raw, validation
from util import DDB, L, M, N, S, VALIDATION, assert_raw_error, get_item, random_key


def update(client, table, k, expr, values=None, rv=None, **kw):
    args = dict(TableName=table, Key=k, UpdateExpression=expr, **kw)
    if values:
        args["ExpressionAttributeValues"] = values
    if rv:
        args["ReturnValues"] = rv
    return client.update_item(**args)


ENUM = ("1 validation error detected: Value '{}' at 'returnValues' failed to satisfy "
        "constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, "
        "UPDATED_NEW]")


# ---------------------------------------------------------------------------
# PutItem and DeleteItem: NONE and ALL_OLD
# ---------------------------------------------------------------------------


def test_put_item_all_old(dynamodb, table_s):
    # ALL_OLD returns the replaced item, nothing when there was none; NONE
    # and the default return nothing (scylla test_put_item_returnvalues).
    k = random_key()
    assert "Attributes" not in dynamodb.put_item(TableName=table_s, Item={**k, "a": S("hi")},
                                                 ReturnValues="ALL_OLD")
    got = dynamodb.put_item(TableName=table_s, Item={**k, "a": S("hello")}, ReturnValues="ALL_OLD")
    assert got["Attributes"] == {**k, "a": S("hi")}
    got = dynamodb.put_item(TableName=table_s, Item={**k, "a": S("x")}, ReturnValues="NONE")
    assert "Attributes" not in got


def test_delete_item_all_old(dynamodb, table_s):
    # The same for DeleteItem (scylla test_delete_item_returnvalues).
    k = random_key()
    assert "Attributes" not in dynamodb.delete_item(TableName=table_s, Key=k,
                                                    ReturnValues="ALL_OLD")
    dynamodb.put_item(TableName=table_s, Item={**k, "a": S("hi")})
    got = dynamodb.delete_item(TableName=table_s, Key=k, ReturnValues="ALL_OLD")
    assert got["Attributes"] == {**k, "a": S("hi")}
    assert get_item(dynamodb, table_s, k) is None


@pytest.mark.parametrize("value", ["UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"])
def test_put_and_delete_refuse_the_update_only_values(dynamodb, table_s, value):
    # "ReturnValues can only be ALL_OLD or NONE" (dynalite test/putItem.js,
    # recorded against AWS; paritysuite records it for DeleteItem).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": S("old")})
    message = "ReturnValues can only be ALL_OLD or NONE"
    validation(dynamodb, table_s, k, message, dynamodb.put_item, TableName=table_s,
               Item={**k, "a": S("new")}, ReturnValues=value)
    validation(dynamodb, table_s, k, message, dynamodb.delete_item, TableName=table_s, Key=k,
               ReturnValues=value)


@pytest.mark.parametrize("operation", ["PutItem", "DeleteItem", "UpdateItem"])
def test_unknown_return_values(raw, dynamodb, table_s, operation):
    # ReturnValues is an enum, case-sensitive (scylla test_trivial_returnvalues);
    # the message lists AWS's values in AWS's order (dynalite
    # test/putItem.js "incorrect attributes"; paritysuite records the same
    # sentence for DeleteItem).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": S("old")})
    body = {"TableName": table_s, "ReturnValues": "none"}
    body.update({"Item": {**k, "a": S("new")}} if operation == "PutItem" else {"Key": k})
    refused_raw(raw, dynamodb, table_s, k, operation, body, ENUM.format("none"))


# ---------------------------------------------------------------------------
# UpdateItem: all five
# ---------------------------------------------------------------------------


def test_update_none(dynamodb, table_s):
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": S("hi")})
    assert "Attributes" not in update(dynamodb, table_s, k, "SET b = :v", {":v": S("x")})
    assert "Attributes" not in update(dynamodb, table_s, k, "SET b = :v", {":v": S("x")}, "NONE")


def test_update_all_old(dynamodb, table_s):
    # The whole old item, attributes not updated included; nothing for an
    # item that did not exist (scylla test_update_item_returnvalues_all_old).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": S("hi"), "b": S("dog")})
    got = update(dynamodb, table_s, k, "SET b = :v", {":v": S("cat")}, "ALL_OLD")
    assert got["Attributes"] == {**k, "a": S("hi"), "b": S("dog")}
    assert "Attributes" not in update(dynamodb, table_s, random_key(), "SET b = :v",
                                      {":v": S("cat")}, "ALL_OLD")


def test_update_updated_old(dynamodb, table_s):
    # Only the old values of what the update writes, and only those that
    # existed (scylla test_update_item_returnvalues_updated_old).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": S("hi"), "b": S("dog")})
    got = update(dynamodb, table_s, k, "SET b = :v, c = :w", {":v": S("cat"), ":w": S("x")},
                 "UPDATED_OLD")
    assert got["Attributes"] == {"b": S("dog")}
    assert update(dynamodb, table_s, k, "SET b = :v", {":v": S("cat")},
                  "UPDATED_OLD")["Attributes"] == {"b": S("cat")}
    assert update(dynamodb, table_s, k, "REMOVE b", None, "UPDATED_OLD")["Attributes"] == {
        "b": S("cat")}
    assert "Attributes" not in update(dynamodb, table_s, k, "SET b = :v", {":v": S("cat")},
                                      "UPDATED_OLD")


def test_update_all_new(dynamodb, table_s):
    # The whole new item; a removed attribute is gone; an update that
    # creates nothing returns nothing (scylla
    # test_update_item_returnvalues_all_new).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": S("hi"), "b": S("dog")})
    assert update(dynamodb, table_s, k, "SET b = :v", {":v": S("cat")},
                  "ALL_NEW")["Attributes"] == {**k, "a": S("hi"), "b": S("cat")}
    assert update(dynamodb, table_s, k, "REMOVE b", None, "ALL_NEW")["Attributes"] == {
        **k, "a": S("hi")}
    fresh = random_key()
    assert update(dynamodb, table_s, fresh, "SET b = :v", {":v": S("cat")},
                  "ALL_NEW")["Attributes"] == {**fresh, "b": S("cat")}
    assert "Attributes" not in update(dynamodb, table_s, random_key(), "REMOVE b", None, "ALL_NEW")


def test_update_updated_new(dynamodb, table_s):
    # The new values of what the update writes, never the key, never a
    # removed attribute (scylla test_update_item_returnvalues_updated_new).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": N(1), "b": S("dog")})
    assert update(dynamodb, table_s, k, "SET a = a + :one", {":one": N(1)},
                  "UPDATED_NEW")["Attributes"] == {"a": N(2)}
    assert "Attributes" not in update(dynamodb, table_s, k, "REMOVE b", None, "UPDATED_NEW")
    assert update(dynamodb, table_s, k, "SET a = :v, b = :w REMOVE c",
                  {":v": S("x"), ":w": S("y")}, "UPDATED_NEW")["Attributes"] == {
        "a": S("x"), "b": S("y")}
    fresh = random_key()
    assert update(dynamodb, table_s, fresh, "SET a = :v", {":v": N(1)},
                  "UPDATED_NEW")["Attributes"] == {"a": N(1)}


def test_update_nested(dynamodb, table_s):
    # UPDATED_OLD/UPDATED_NEW return only the nested paths written, inside
    # their parents; a list index past the end is not returned, and after a
    # REMOVE of a list element the shifted element at that index is (scylla
    # test_update_item_returnvalues_nested, run against AWS).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": M(b=S("dog"), c=L(N(1), N(2), N(3))),
                                               "d": S("cat")})
    assert update(dynamodb, table_s, k, "SET a.b = :v", {":v": S("hi")},
                  "ALL_OLD")["Attributes"] == {**k, "a": M(b=S("dog"), c=L(N(1), N(2), N(3))),
                                               "d": S("cat")}
    assert update(dynamodb, table_s, k, "SET a.b = :v", {":v": S("yo")},
                  "UPDATED_OLD")["Attributes"] == {"a": M(b=S("hi"))}
    assert update(dynamodb, table_s, k, "SET a.c[1] = :v", {":v": N(7)},
                  "UPDATED_OLD")["Attributes"] == {"a": M(c=L(N(2)))}
    assert update(dynamodb, table_s, k, "SET a.c[1] = :v, a.b = :w", {":v": N(8), ":w": S("dog")},
                  "UPDATED_OLD")["Attributes"] == {"a": M(b=S("yo"), c=L(N(7)))}
    assert update(dynamodb, table_s, k, "SET a.c[1] = :v, a.b = :w", {":v": N(3), ":w": S("dog")},
                  "UPDATED_NEW")["Attributes"] == {"a": M(b=S("dog"), c=L(N(3)))}
    assert update(dynamodb, table_s, k, "REMOVE a.c[1], a.c[3]", None,
                  "UPDATED_OLD")["Attributes"] == {"a": M(c=L(N(3)))}
    assert "Attributes" not in update(dynamodb, table_s, k, "SET a.x1 = :v", {":v": N(8)},
                                      "UPDATED_OLD")
    assert update(dynamodb, table_s, k, "SET a.x2 = :v", {":v": N(8)},
                  "UPDATED_NEW")["Attributes"] == {"a": M(x2=N(8))}
    assert "Attributes" not in update(dynamodb, table_s, k, "SET a.c[100] = :v", {":v": N(70)},
                                      "UPDATED_NEW")
    assert update(dynamodb, table_s, k, "REMOVE a.c[1]", None,
                  "UPDATED_NEW")["Attributes"] == {"a": M(c=L(N(70)))}


def test_update_add_with_all_new(dynamodb, table_s):
    # scylla test_update_item_returnvalues_all_new_add_existing and
    # test_update_item_returnvalues_all_new_remove_etc.
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "n": N(3), "s": S("dog"), "d": S("foo")})
    assert update(dynamodb, table_s, k, "ADD n :inc", {":inc": N(1)},
                  "ALL_NEW")["Attributes"]["n"] == N(4)
    got = update(dynamodb, table_s, k, "REMOVE d SET s = :v", {":v": S("cat")}, "ALL_NEW")
    assert got["Attributes"] == {**k, "n": N(4), "s": S("cat")}


def test_update_failure_returns_nothing_and_changes_nothing(dynamodb, table_s):
    # A failed condition answers the exception only (no Attributes exist on
    # errors), and the item stays.
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": N(1)})
    conditional(dynamodb, table_s, k, dynamodb.update_item, TableName=table_s, Key=k,
                UpdateExpression="SET a = :v", ConditionExpression="a = :w",
                ExpressionAttributeValues={":v": N(5), ":w": N(2)}, ReturnValues="ALL_NEW")


# ---------------------------------------------------------------------------
# ReturnValuesOnConditionCheckFailure (raw: newer than Debian's boto3)
# ---------------------------------------------------------------------------

CCF = DDB + "ConditionalCheckFailedException"


def _bodies(table, k):
    # The same failing condition ("s = :v1" with :v1 'rat') in each operation.
    cond = {"ConditionExpression": "s = :v1", "ExpressionAttributeValues": {":v1": S("rat")}}
    return {
        "PutItem": {"TableName": table, "Item": {**k, "s": S("cow")}, **cond},
        "DeleteItem": {"TableName": table, "Key": k, **cond},
        "UpdateItem": {"TableName": table, "Key": k, "UpdateExpression": "SET s = :v2",
                       "ConditionExpression": "s = :v1",
                       "ExpressionAttributeValues": {":v1": S("rat"), ":v2": S("cow")}},
    }


@pytest.mark.parametrize("operation", ["PutItem", "DeleteItem", "UpdateItem"])
def test_return_values_on_condition_check_failure(raw, dynamodb, table_s, operation):
    # With ALL_OLD, the ConditionalCheckFailedException carries the item as it
    # is, in an "Item" member next to "message" (API reference,
    # ConditionalCheckFailedException; scylla
    # test_*_returnvalues_on_condition_check_failure, run against AWS).
    k = random_key()
    body = _bodies(table_s, k)[operation]
    # No item: no "Item".
    data = refused_raw(raw, dynamodb, table_s, k, operation,
                       {**body, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"},
                       "The conditional request failed", CCF)
    assert set(data) == {"__type", "message"}
    dynamodb.put_item(TableName=table_s, Item={**k, "s": S("cat"), "n": N(1)})
    data = refused_raw(raw, dynamodb, table_s, k, operation,
                       {**body, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"},
                       "The conditional request failed", CCF)
    assert data["Item"] == {**k, "s": S("cat"), "n": N(1)}
    assert set(data) == {"__type", "message", "Item"}
    # NONE (the default): no "Item".
    data = refused_raw(raw, dynamodb, table_s, k, operation,
                       {**body, "ReturnValuesOnConditionCheckFailure": "NONE"},
                       "The conditional request failed", CCF)
    assert "Item" not in data
    data = refused_raw(raw, dynamodb, table_s, k, operation, body,
                       "The conditional request failed", CCF)
    assert "Item" not in data


@pytest.mark.parametrize("operation", ["PutItem", "DeleteItem", "UpdateItem"])
def test_return_values_on_condition_check_failure_success(raw, dynamodb, table_s, operation):
    # A write whose condition holds answers as usual: no "Item", no
    # "Attributes" (scylla, as above).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "s": S("rat")})
    body = _bodies(table_s, k)[operation]
    status, _, data = raw(operation, {**body, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"})
    assert status == 200 and data == {}


@pytest.mark.parametrize("operation", ["PutItem", "DeleteItem", "UpdateItem"])
@pytest.mark.parametrize("value", ["UPDATED_OLD", "ALL_NEW", "DUMMY"])
def test_return_values_on_condition_check_failure_enum(raw, dynamodb, table_s, operation, value):
    # Only ALL_OLD and NONE (scylla
    # test_validation_of_returnvalues_on_condition_check_failure checks the
    # exception only). The sentence is the model validator's; no recorded
    # answer shows in which order AWS lists these two values, so either is
    # accepted.
    k = random_key()
    body = {**_bodies(table_s, k)[operation], "ReturnValuesOnConditionCheckFailure": value}
    resp = raw(operation, body)
    assert_raw_error(resp, VALIDATION, re.compile(
        re.escape(f"1 validation error detected: Value '{value}' at "
                  "'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member "
                  "must satisfy enum value set: ") + r"\[(ALL_OLD, NONE|NONE, ALL_OLD)\]"))
    assert get_item(dynamodb, table_s, k) is None
