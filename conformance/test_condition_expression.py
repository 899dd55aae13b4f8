# SPDX-License-Identifier: MIT
"""ConditionExpression on PutItem, UpdateItem and DeleteItem.

What a condition means is the developer guide's
(Expressions.OperatorsAndFunctions.html) as scylla
test/alternator/test_condition_expression.py checks it against AWS: a
comparison between different types is false rather than an error, a missing
attribute is never equal to anything and always "<>" anything, the functions
work on the types the guide lists. A failed condition is
ConditionalCheckFailedException "The conditional request failed" and changes
nothing. The request-level errors (mixing with Expected, names and values)
are dynalite's recordings (test/putItem.js, deleteItem.js, updateItem.js);
the per-expression parse errors are in test_expression_errors.py.
"""

import pytest

from unchanged import conditional, validation
from util import B, L, M, N, S, get_item, random_key


ITEM = {
    "s": S("hello"), "n": N(5), "b": B(b"\x01\x02"), "t": {"BOOL": True}, "z": {"NULL": True},
    "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1", "2"]}, "bs": {"BS": [b"x"]},
    "l": L(S("a"), N(1), L(S("x"))), "m": M(k=S("v"), n=N(1)),
}

# (condition, values, holds). Each row is evaluated against ITEM by a PutItem
# that rewrites the same item with that condition: it succeeds when the
# condition holds, and is ConditionalCheckFailedException otherwise.
CASES = [
    # = and <>: equal values of one type; other types are unequal; a missing
    # attribute is never equal and always <> (scylla test_update_condition_eq_*,
    # test_update_condition_ne, test_update_condition_ne_two_unset).
    ("s = :v", {":v": S("hello")}, True),
    ("s = :v", {":v": N(5)}, False),
    ("ss = :v", {":v": {"SS": ["b", "a"]}}, True),
    ("l = :v", {":v": L(S("a"), N(1), L(S("x")))}, True),
    ("m = :v", {":v": M(n=N(1), k=S("v"))}, True),
    ("n = :v", {":v": N("5.0")}, True),
    ("nope = :v", {":v": S("hello")}, False),
    ("nope = absent", None, False),
    ("s <> :v", {":v": N(5)}, True),
    ("nope <> :v", {":v": N(5)}, True),
    ("nope <> absent", None, True),
    ("size(s) = n", None, True),
    # < <= > >=: numbers numerically, strings and binaries by bytes; other
    # types make the comparison false (scylla test_update_condition_lt & co.).
    ("n < :v", {":v": N(6)}, True),
    ("n <= :v", {":v": N(5)}, True),
    ("n > :v", {":v": N(5)}, False),
    ("n >= :v", {":v": N("4.99")}, True),
    ("n < :v", {":v": S("6")}, False),
    ("s < :v", {":v": S("help")}, True),
    ("b < :v", {":v": B(b"\x02")}, True),
    ("b > :v", {":v": B(b"\x01")}, True),
    ("nope < :v", {":v": N(6)}, False),
    # BETWEEN is inclusive; IN compares with each operand.
    ("n BETWEEN :lo AND :hi", {":lo": N(1), ":hi": N(5)}, True),
    ("n BETWEEN :lo AND :hi", {":lo": N(6), ":hi": N(9)}, False),
    ("s BETWEEN :lo AND :hi", {":lo": S("a"), ":hi": S("z")}, True),
    ("s IN (:a, :b)", {":a": S("x"), ":b": S("hello")}, True),
    ("n IN (:a, :b)", {":a": S("5"), ":b": N(4)}, False),
    # Functions.
    ("attribute_exists(s)", None, True),
    ("attribute_exists(nope)", None, False),
    ("attribute_not_exists(nope)", None, True),
    ("attribute_exists(m.k)", None, True),
    ("attribute_exists(l[2][0])", None, True),
    ("attribute_exists(l[5])", None, False),
    ("attribute_exists(s.x)", None, False),
    ("attribute_type(s, :t)", {":t": S("S")}, True),
    ("attribute_type(z, :t)", {":t": S("NULL")}, True),
    ("attribute_type(ns, :t)", {":t": S("NS")}, True),
    ("attribute_type(n, :t)", {":t": S("S")}, False),
    ("begins_with(s, :v)", {":v": S("he")}, True),
    ("begins_with(s, :v)", {":v": S("lo")}, False),
    ("begins_with(b, :v)", {":v": B(b"\x01")}, True),
    ("begins_with(n, :v)", {":v": S("5")}, False),
    ("contains(s, :v)", {":v": S("ell")}, True),
    ("contains(ss, :v)", {":v": S("a")}, True),
    ("contains(ns, :v)", {":v": N(2)}, True),
    ("contains(ns, :v)", {":v": S("2")}, False),
    ("contains(bs, :v)", {":v": B(b"x")}, True),
    # contains on a list compares whole elements (SCHEMAS.md: contains on a
    # list of user ids, as the likes design uses it).
    ("contains(l, :v)", {":v": S("a")}, True),
    ("contains(l, :v)", {":v": L(S("x"))}, True),
    ("contains(l, :v)", {":v": S("x")}, False),
    ("size(s) = :v", {":v": N(5)}, True),
    ("size(b) = :v", {":v": N(2)}, True),
    ("size(ss) = :v", {":v": N(2)}, True),
    ("size(l) = :v", {":v": N(3)}, True),
    ("size(m) = :v", {":v": N(2)}, True),
    ("size(l[2]) < :v", {":v": N(2)}, True),
    ("size(nope) < :v", {":v": N(2)}, False),
    # Logic: NOT binds tighter than AND, AND tighter than OR; parentheses.
    ("NOT attribute_exists(nope)", None, True),
    ("s = :x OR n = :y AND n = :z", {":x": S("hello"), ":y": N(6), ":z": N(5)}, True),
    ("(s = :x OR n = :y) AND n = :z", {":x": S("bye"), ":y": N(6), ":z": N(5)}, False),
    ("NOT s = :x AND n = :z", {":x": S("bye"), ":z": N(5)}, True),
    ("NOT (s = :x AND n = :z)", {":x": S("hello"), ":z": N(5)}, False),
    ("attribute_exists(s) and attribute_exists(m.n) AND NOT contains(ss, :x)",
     {":x": S("zz")}, True),
]


@pytest.mark.parametrize("condition,values,holds", CASES, ids=[c[0] for c in CASES])
def test_condition_semantics(dynamodb, table_s, condition, values, holds):
    k = random_key()
    item = {**k, **ITEM}
    dynamodb.put_item(TableName=table_s, Item=item)
    args = dict(TableName=table_s, Item={**item, "changed": {"BOOL": True}},
                ConditionExpression=condition)
    if values:
        args["ExpressionAttributeValues"] = values
    if holds:
        dynamodb.put_item(**args)
        assert get_item(dynamodb, table_s, k)["changed"] == {"BOOL": True}
    else:
        conditional(dynamodb, table_s, k, dynamodb.put_item, **args)


def test_condition_names_for_reserved_words(dynamodb, table_s):
    # A reserved word (STATUS) is named through ExpressionAttributeNames;
    # "#name" is one path element even when it contains a dot (developerguide
    # Expressions.ExpressionAttributeNames.html).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "status": S("on"), "a.b": N(1)})
    dynamodb.put_item(TableName=table_s, Item={**k, "status": S("off"), "a.b": N(1)},
                      ConditionExpression="#s = :on AND #ab = :one",
                      ExpressionAttributeNames={"#s": "status", "#ab": "a.b"},
                      ExpressionAttributeValues={":on": S("on"), ":one": N(1)})
    assert get_item(dynamodb, table_s, k)["status"] == S("off")


def test_put_if_absent(dynamodb, table_s):
    # The usual "create only": attribute_not_exists on the key holds for a
    # new item and fails once it exists (dynalite test/putItem.js
    # "expecting existing key to not exist").
    k = random_key()
    args = dict(TableName=table_s, Item={**k, "a": N(1)},
                ConditionExpression="attribute_not_exists(p)")
    dynamodb.put_item(**args)
    conditional(dynamodb, table_s, k, dynamodb.put_item, **{**args, "Item": {**k, "a": N(2)}})


def test_delete_with_condition(dynamodb, table_s):
    # DeleteItem deletes only when the condition holds; on a missing item the
    # condition sees every attribute missing (dynalite test/deleteItem.js).
    k = random_key()
    conditional(dynamodb, table_s, k, dynamodb.delete_item, TableName=table_s, Key=k,
                ConditionExpression="a = :a", ExpressionAttributeValues={":a": N(1)})
    dynamodb.put_item(TableName=table_s, Item={**k, "a": N(1)})
    conditional(dynamodb, table_s, k, dynamodb.delete_item, TableName=table_s, Key=k,
                ConditionExpression="attribute_not_exists(a)")
    dynamodb.delete_item(TableName=table_s, Key=k, ConditionExpression="a = :a",
                         ExpressionAttributeValues={":a": N(1)})
    assert get_item(dynamodb, table_s, k) is None
    dynamodb.delete_item(TableName=table_s, Key=k, ConditionExpression="attribute_not_exists(a)")


def test_update_with_condition(dynamodb, table_s):
    # UpdateItem: the condition sees the item before the update
    # (developerguide WorkingWithItems.html#WorkingWithItems.ConditionalUpdate).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "price": N(10)})
    args = dict(TableName=table_s, Key=k, UpdateExpression="SET price = price - :d",
                ConditionExpression="price > :min",
                ExpressionAttributeValues={":d": N(5), ":min": N(6)})
    dynamodb.update_item(**args)
    assert get_item(dynamodb, table_s, k)["price"] == N(5)
    conditional(dynamodb, table_s, k, dynamodb.update_item, **args)


# ---------------------------------------------------------------------------
# Request-level errors
# ---------------------------------------------------------------------------


def _write(op, table, k):
    return {"PutItem": {"TableName": table, "Item": {**k, "a": N(1)}},
            "DeleteItem": {"TableName": table, "Key": k},
            "UpdateItem": {"TableName": table, "Key": k}}[op]


CALLS = {"PutItem": "put_item", "DeleteItem": "delete_item", "UpdateItem": "update_item"}


@pytest.mark.parametrize("operation", ["PutItem", "DeleteItem"])
def test_request_errors_of_conditional_writes(dynamodb, table_s, operation):
    # dynalite test/putItem.js and test/deleteItem.js "validations", recorded
    # against AWS, in AWS's order of checks.
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": N(0)})
    call = getattr(dynamodb, CALLS[operation])
    base = _write(operation, table_s, k)
    for extra, message in [
        ({"Expected": {"a": {"Exists": False}}, "ConditionExpression": "a = :a",
          "ExpressionAttributeValues": {":a": N(1)}},
         "Can not use both expression and non-expression parameters in the same request: "
         "Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"),
        ({"Expected": {"a": {"Exists": False}}, "ExpressionAttributeNames": {"#a": "a"}},
         "ExpressionAttributeNames can only be specified when using expressions"),
        ({"Expected": {"a": {"Exists": False}}, "ExpressionAttributeValues": {":a": N(1)}},
         "ExpressionAttributeValues can only be specified when using expressions: "
         "ConditionExpression is null"),
        ({"ConditionExpression": ""},
         "Invalid ConditionExpression: The expression can not be empty;"),
        ({"ConditionExpression": "a = :a", "ExpressionAttributeNames": {},
          "ExpressionAttributeValues": {":a": N(1)}},
         "ExpressionAttributeNames must not be empty"),
        ({"ConditionExpression": "a = :a", "ExpressionAttributeNames": {"a": "a"},
          "ExpressionAttributeValues": {":a": N(1)}},
         'ExpressionAttributeNames contains invalid key: Syntax error; key: "a"'),
        ({"ConditionExpression": "a = :a", "ExpressionAttributeValues": {}},
         "ExpressionAttributeValues must not be empty"),
        ({"ConditionExpression": "a = :a", "ExpressionAttributeValues": {"a": N(1)}},
         'ExpressionAttributeValues contains invalid key: Syntax error; key: "a"'),
        ({"ConditionExpression": "a = :b", "ExpressionAttributeValues": {":b": {"NS": ["1", "1"]}}},
         "ExpressionAttributeValues contains invalid value: Input collection contains "
         "duplicates for key :b"),
        ({"ConditionExpression": "a = :a", "ExpressionAttributeNames": {"#a": "a"},
          "ExpressionAttributeValues": {":a": N(1)}},
         "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a}"),
        ({"ConditionExpression": "a = :a", "ExpressionAttributeValues": {":a": N(1), ":u": N(2)}},
         "Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}"),
        ({"ConditionExpression": "a between :b and :a",
          "ExpressionAttributeValues": {":a": S("a"), ":b": N(1)}},
         "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower "
         "and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: "
         "AttributeValue: {S:a}"),
        ({"ConditionExpression": "a between :b and :a",
          "ExpressionAttributeValues": {":a": S("a"), ":b": S("b")}},
         "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater "
         "than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound "
         "operand: AttributeValue: {S:a}"),
    ]:
        validation(dynamodb, table_s, k, message, call, **base, **extra)


def test_request_errors_of_update_item(dynamodb, table_s):
    # dynalite test/updateItem.js "validations", recorded against AWS;
    # ConditionExpression with AttributeUpdates is refused too (scylla
    # test_condition_expression_attribute_updates).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": N(0)})
    base = _write("UpdateItem", table_s, k)
    for extra, message in [
        ({"AttributeUpdates": {"a": {"Value": N(1)}}, "Expected": {"a": {"Exists": False}},
          "UpdateExpression": "SET a = :a", "ConditionExpression": "a = :a",
          "ExpressionAttributeValues": {":a": N(1)}},
         "Can not use both expression and non-expression parameters in the same request: "
         "Non-expression parameters: {AttributeUpdates, Expected} Expression parameters: "
         "{UpdateExpression, ConditionExpression}"),
        ({"AttributeUpdates": {"a": {"Value": N(1)}}, "ConditionExpression": "a = :a",
          "ExpressionAttributeValues": {":a": N(2)}},
         "Can not use both expression and non-expression parameters in the same request: "
         "Non-expression parameters: {AttributeUpdates} Expression parameters: "
         "{ConditionExpression}"),
        ({"Expected": {"a": {"Exists": False}}, "ExpressionAttributeValues": {":a": N(1)}},
         "ExpressionAttributeValues can only be specified when using expressions: "
         "UpdateExpression and ConditionExpression are null"),
        ({"UpdateExpression": "", "ConditionExpression": ""},
         "Invalid UpdateExpression: The expression can not be empty;"),
        ({"ConditionExpression": ""},
         "Invalid ConditionExpression: The expression can not be empty;"),
        ({"UpdateExpression": "remove a set b = list_append(b, if_not_exists(a, :a))",
          "ConditionExpression": "a = :b", "ExpressionAttributeValues": {":a": S("a"), ":b": S("a")},
          "ExpressionAttributeNames": {"#a": "a"}},
         "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a}"),
        ({"UpdateExpression": "remove a", "ConditionExpression": "a = :b",
          "ExpressionAttributeValues": {":b": S("a"), ":c": S("a")}},
         "Value provided in ExpressionAttributeValues unused in expressions: keys: {:c}"),
    ]:
        validation(dynamodb, table_s, k, message, dynamodb.update_item, **base, **extra)


def test_condition_value_names_across_expressions(dynamodb, table_s):
    # One set of names and values serves every expression of the request: a
    # value used only by the condition, a name only by the update, are used
    # (dynalite validations/index.js validateExpressions, one context).
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a": N(1)})
    dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="SET #b = :v",
                         ConditionExpression="a = :old",
                         ExpressionAttributeNames={"#b": "b"},
                         ExpressionAttributeValues={":v": N(2), ":old": N(1)})
    assert get_item(dynamodb, table_s, k) == {**k, "a": N(1), "b": N(2)}
