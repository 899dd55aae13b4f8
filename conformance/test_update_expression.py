# SPDX-License-Identifier: MIT
"""UpdateItem with UpdateExpression: SET (with +, -, if_not_exists and
list_append), REMOVE, ADD and DELETE on top-level and nested attributes, the
item an update creates or does not create, what may not be updated, and the
errors an update raises while it is applied.

Every refused update is checked to have changed nothing (unchanged.py). The
errors of parsing and checking an expression are in test_expression_errors.py;
ReturnValues in test_return_values.py; AttributeUpdates in
test_legacy_params.py.
"""

import pytest

from unchanged import conditional, validation
from util import L, M, N, S, get_item, random_key, random_string


NOT_FOUND = "The provided expression refers to an attribute that does not exist in the item"
BAD_TYPE = "An operand in the update expression has an incorrect data type"
BAD_PATH = "The document path provided in the update expression is invalid for update"


def put(client, table, k, **attrs):
    client.put_item(TableName=table, Item={**k, **attrs})


# ---------------------------------------------------------------------------
# The likes design (SCHEMAS.md section 2)
# ---------------------------------------------------------------------------


def test_likes_unread_notification_update(dynamodb, table_s):
    # The unread notification of seeds/001 is updated with exactly this
    # expression (the Go SDK's expression builder numbers names and values):
    # a SET of a value, an increment and a list append in one SET clause
    # (developerguide Expressions.UpdateExpressions.html: SET with + and
    # list_append).
    k = random_key()
    put(dynamodb, table_s, k, lastupdate=N(100), numFavorite=N(1), favUserIds=L(S("u1")))
    got = dynamodb.update_item(
        TableName=table_s, Key=k,
        UpdateExpression="SET #0 = :0, #1 = #1 + :1, #2 = list_append(#2, :2)\n",
        ExpressionAttributeNames={"#0": "lastupdate", "#1": "numFavorite", "#2": "favUserIds"},
        ExpressionAttributeValues={":0": N(200), ":1": N(1), ":2": L(S("u2"))},
        ReturnValues="ALL_NEW")
    assert got["Attributes"] == {**k, "lastupdate": N(200), "numFavorite": N(2),
                                 "favUserIds": L(S("u1"), S("u2"))}
    assert get_item(dynamodb, table_s, k) == got["Attributes"]


def test_likes_update_of_a_missing_notification_is_refused(dynamodb, table_s):
    # "#1 + :1" and "list_append(#2, :2)" read attributes the new item does
    # not have: "The provided expression refers to an attribute that does not
    # exist in the item" (dynalite test/updateItem.js "trying to reference
    # non-existent attribute", recorded against AWS), and no item is created.
    k = random_key()
    validation(dynamodb, table_s, k, NOT_FOUND, dynamodb.update_item,
               TableName=table_s, Key=k,
               UpdateExpression="SET #0 = :0, #1 = #1 + :1, #2 = list_append(#2, :2)",
               ExpressionAttributeNames={"#0": "lastupdate", "#1": "numFavorite",
                                         "#2": "favUserIds"},
               ExpressionAttributeValues={":0": N(1), ":1": N(1), ":2": L(S("u"))})
    assert get_item(dynamodb, table_s, k) is None


def test_likes_counter_increment_needs_the_counter(dynamodb, table_s):
    # The counter table's "SET #0 = #0 + :0" with "attribute_exists (#0)":
    # the condition fails on a counter that does not exist yet
    # (ConditionalCheckFailedException, dynalite test/updateItem.js), and
    # succeeds once it does.
    k = random_key()
    args = dict(TableName=table_s, Key=k, UpdateExpression="SET #0 = #0 + :0",
                ConditionExpression="attribute_exists (#0)",
                ExpressionAttributeNames={"#0": "count"}, ExpressionAttributeValues={":0": N(1)})
    conditional(dynamodb, table_s, k, dynamodb.update_item, **args)
    assert get_item(dynamodb, table_s, k) is None
    put(dynamodb, table_s, k, count=N(41))
    dynamodb.update_item(**args)
    assert get_item(dynamodb, table_s, k)["count"] == N(42)


def test_count_is_a_reserved_word(dynamodb, table_s):
    # The unlike's decrement must name "count" through #names: COUNT is one
    # of DynamoDB's reserved words (developerguide ReservedWords.html), and a
    # bare reserved word is refused with this text (dynalite
    # test/updateItem.js "reserved keywords").
    k = random_key()
    put(dynamodb, table_s, k, count=N(3))
    validation(dynamodb, table_s, k,
               "Invalid UpdateExpression: Attribute name is a reserved keyword; "
               "reserved keyword: count",
               dynamodb.update_item, TableName=table_s, Key=k,
               UpdateExpression="SET count = count - :one",
               ExpressionAttributeValues={":one": N(1)})
    dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="SET #c = #c - :one",
                         ExpressionAttributeNames={"#c": "count"},
                         ExpressionAttributeValues={":one": N(1)})
    assert get_item(dynamodb, table_s, k)["count"] == N(2)


# ---------------------------------------------------------------------------
# Which item an update leaves
# ---------------------------------------------------------------------------


def test_update_of_a_missing_item_creates_it(dynamodb, table_s):
    # UpdateItem "creates a new item if it does not already exist" (API
    # reference, UpdateItem), with the key attributes of the request.
    k = random_key()
    dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="SET a = :v",
                         ExpressionAttributeValues={":v": S("x")})
    assert get_item(dynamodb, table_s, k) == {**k, "a": S("x")}


def test_update_without_actions_creates_the_key_only_item(dynamodb, table_s):
    # An UpdateItem with no update at all writes the key-only item (dynalite
    # test/updateItem.js "should just add item with key if no action";
    # scylla test_item.py test_update_item_non_existent, run against AWS).
    k = random_key()
    got = dynamodb.update_item(TableName=table_s, Key=k)
    assert "Attributes" not in got
    assert get_item(dynamodb, table_s, k) == k


def test_removing_from_a_missing_item_creates_nothing(dynamodb, table_s):
    # But an update that only removes attributes from an item that does not
    # exist does not create it (scylla test_item.py
    # test_update_item_non_existent, issue #5862, run against AWS) - also
    # for DELETE from a missing set and nested paths (scylla
    # test_nested_attribute_remove_from_missing_item).
    for expr, values in [("REMOVE a", None), ("REMOVE a, b.c, d[2]", None),
                         ("DELETE s :v", {":v": {"SS": ["x"]}})]:
        k = random_key()
        args = dict(TableName=table_s, Key=k, UpdateExpression=expr, ReturnValues="ALL_NEW")
        if values:
            args["ExpressionAttributeValues"] = values
        got = dynamodb.update_item(**args)
        assert "Attributes" not in got
        assert get_item(dynamodb, table_s, k) is None


def test_update_with_a_failed_condition_creates_nothing(dynamodb, table_s):
    # The condition is evaluated against the missing item (every attribute
    # missing); when it fails, nothing is written.
    k = random_key()
    conditional(dynamodb, table_s, k, dynamodb.update_item, TableName=table_s, Key=k,
                UpdateExpression="SET a = :v", ConditionExpression="attribute_exists(p)",
                ExpressionAttributeValues={":v": N(1)})
    assert get_item(dynamodb, table_s, k) is None
    dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="SET a = :v",
                         ConditionExpression="attribute_not_exists(p)",
                         ExpressionAttributeValues={":v": N(1)})
    assert get_item(dynamodb, table_s, k) == {**k, "a": N(1)}


# ---------------------------------------------------------------------------
# SET
# ---------------------------------------------------------------------------


def test_set_copies_values_read_before_the_update(dynamodb, table_s):
    # Every right-hand side reads the item as it was before the update, so
    # two attributes can be swapped in one SET (scylla
    # test_update_expression.py test_update_expression_multi_with_copy).
    k = random_key()
    put(dynamodb, table_s, k, a=S("A"), b=S("B"))
    dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="SET a = b, b = a")
    assert get_item(dynamodb, table_s, k) == {**k, "a": S("B"), "b": S("A")}


def test_if_not_exists(dynamodb, table_s):
    # if_not_exists(path, value): the attribute when it exists, else value;
    # the fallback may be another attribute (dynalite test/updateItem.js
    # "should update values from other attributes": b = if_not_exists(b, a)
    # on a new item is the key value).
    k = random_key()
    got = dynamodb.update_item(TableName=table_s, Key=k,
                               UpdateExpression="SET b = if_not_exists(b, p)",
                               ReturnValues="UPDATED_NEW")
    assert got["Attributes"] == {"b": k["p"]}
    dynamodb.update_item(TableName=table_s, Key=k,
                         UpdateExpression="SET b = if_not_exists(b, :v), c = if_not_exists(c, :v)",
                         ExpressionAttributeValues={":v": N(7)})
    assert get_item(dynamodb, table_s, k) == {**k, "b": k["p"], "c": N(7)}
    # A missing fallback attribute is the usual error.
    validation(dynamodb, table_s, k, NOT_FOUND, dynamodb.update_item, TableName=table_s, Key=k,
               UpdateExpression="SET d = if_not_exists(d, nothere)")


@pytest.mark.parametrize("a,op,b,result", [
    # Exact decimal arithmetic, never binary floating point (scylla
    # test_update_expression.py test_update_expression_plus_precision, run
    # against AWS; numbers have 38 significant digits: developerguide
    # HowItWorks.NamingRulesDataTypes.html).
    ("0.1", "+", "0.2", "0.3"),
    ("1", "+", "10000000000000000000000", "10000000000000000000001"),
    ("10000000000000000000000", "-", "1", "9999999999999999999999"),
    ("9e125", "+", "9e124", "99" + "0" * 124),
    ("12345678901234567890123456789012345678", "-", "12345678901234567890123456789012345677",
     "1"),
    ("-5.5", "-", "4.5", "-10"),
    ("1.5", "-", "1.5", "0"),
    ("0.00000000000000000001", "+", "1", "1.00000000000000000001"),
])
def test_arithmetic_is_exact(dynamodb, table_s, a, op, b, result):
    k = random_key()
    put(dynamodb, table_s, k, x=N(a))
    got = dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression=f"SET x = x {op} :b",
                               ExpressionAttributeValues={":b": N(b)}, ReturnValues="UPDATED_NEW")
    assert got["Attributes"] == {"x": N(result)}


@pytest.mark.parametrize("a,op,b", [
    # A result beyond 38 digits or the exponent range is refused; AWS says
    # "overflow" for both (scylla test_update_expression_plus_overflow and
    # test_update_expression_plus_imprecise, run against AWS; the text is
    # the one dynalite recorded for numbers out of range).
    ("9e125", "+", "9e125"),
    ("9e125", "-", "-9e125"),
    ("1e50", "+", "1"),
    ("1e50", "-", "1"),
])
def test_arithmetic_overflow(dynamodb, table_s, a, op, b):
    k = random_key()
    put(dynamodb, table_s, k, x=N(a))
    validation(dynamodb, table_s, k,
               "Number overflow. Attempting to store a number with magnitude larger than "
               "supported range",
               dynamodb.update_item, TableName=table_s, Key=k,
               UpdateExpression=f"SET x = x {op} :b", ExpressionAttributeValues={":b": N(b)})


def test_arithmetic_and_list_append_need_their_types(dynamodb, table_s):
    # + and - take numbers, list_append lists; an attribute of another type is
    # "An operand in the update expression has an incorrect data type"
    # (dynalite test/updateItem.js "using expression to delete/add incorrect
    # types", recorded against AWS).
    k = random_key()
    put(dynamodb, table_s, k, s=S("x"), n=N(1), l=L(N(1)))
    for expr, values in [("SET e = s + :one", {":one": N(1)}),
                         ("SET e = :one - s", {":one": N(1)}),
                         ("SET e = list_append(n, :l)", {":l": L()}),
                         ("SET e = list_append(:l, s)", {":l": L()})]:
        validation(dynamodb, table_s, k, BAD_TYPE, dynamodb.update_item, TableName=table_s,
                   Key=k, UpdateExpression=expr, ExpressionAttributeValues=values)


def test_list_append_either_side(dynamodb, table_s):
    # list_append(a, b) concatenates in order: to prepend, put the new list
    # first (developerguide Expressions.UpdateExpressions.html, "Adding
    # elements to a list").
    k = random_key()
    put(dynamodb, table_s, k, l=L(N(2)))
    dynamodb.update_item(TableName=table_s, Key=k,
                         UpdateExpression="SET l = list_append(:front, l)",
                         ExpressionAttributeValues={":front": L(N(0), N(1))})
    dynamodb.update_item(TableName=table_s, Key=k,
                         UpdateExpression="SET l = list_append(l, :back)",
                         ExpressionAttributeValues={":back": L(N(3))})
    assert get_item(dynamodb, table_s, k)["l"] == L(N(0), N(1), N(2), N(3))


def test_set_nested_documents(dynamodb, table_s):
    # dynalite test/updateItem.js "should update nested attributes", recorded
    # against AWS: map keys and list indexes are set in place, a list index
    # past the end appends (in index order), ADD works on a list element, and
    # UPDATED_NEW returns the named paths of the new item - where c[4], c[6]
    # and c[8] name positions the appended elements do not have.
    k = random_key()
    dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="set b = :b, c = :c",
                         ExpressionAttributeValues={":b": M(a=N(1), b=N(2), c=N(3)),
                                                    ":c": L(N(1), N(3))})
    got = dynamodb.update_item(
        TableName=table_s, Key=k,
        UpdateExpression="set b.c=((c[1])+(b.a)),b.a = p,c[1] = p, c[4] = b.a - b.b, "
                         "c[2] = b.c add c[8] :b, c[6] :a",
        ExpressionAttributeValues={":a": N(2), ":b": {"SS": ["a"]}},
        ReturnValues="UPDATED_NEW")
    assert got["Attributes"] == {"b": M(a=k["p"], c=N(4)), "c": L(k["p"], N(3), N(2))}
    assert get_item(dynamodb, table_s, k) == {
        **k, "b": M(a=k["p"], b=N(2), c=N(4)),
        "c": L(N(1), k["p"], N(3), N(-1), N(2), {"SS": ["a"]})}


def test_set_through_a_missing_or_scalar_parent_is_refused(dynamodb, table_s):
    # A path through an attribute that is missing or not a map/list: "The
    # document path provided in the update expression is invalid for update"
    # (dynalite test/updateItem.js "non-existent nested attribute in
    # existing item" and "... in non-existent item", recorded against AWS).
    k = random_key()
    dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="set b = p, c = :c, d = :d",
                         ExpressionAttributeValues={":c": M(**{"1": S("a")}),
                                                    ":d": L(S("a"), S("b"))})
    for expr in ["set b.a = :a, #1 = :a", "set y.a = :a, #1 = :a", "set y[1] = :a, #1 = :a",
                 "set c[1] = :a, #1 = :a", "set d.#1 = :a", "remove b.a set #1 = :a",
                 "remove c[1] set #1 = :a", "delete b.a :a set #1 = :a", "add y.a :a set #1 = :a"]:
        validation(dynamodb, table_s, k, BAD_PATH, dynamodb.update_item, TableName=table_s,
                   Key=k, UpdateExpression=expr, ExpressionAttributeNames={"#1": "1"},
                   ExpressionAttributeValues={":a": {"SS": ["a"]}})
    fresh = random_key()
    for expr in ["set b.a = p", "set b[1] = p"]:
        validation(dynamodb, table_s, fresh, BAD_PATH, dynamodb.update_item, TableName=table_s,
                   Key=fresh, UpdateExpression=expr)
    assert get_item(dynamodb, table_s, fresh) is None


# ---------------------------------------------------------------------------
# REMOVE, ADD, DELETE
# ---------------------------------------------------------------------------


def test_remove_list_elements_compacts_the_list(dynamodb, table_s):
    # REMOVE of list elements removes them and shifts the rest down
    # (developerguide Expressions.UpdateExpressions.html, "Removing elements
    # from a list"); indexes name positions before the update, and an index
    # past the end removes nothing.
    k = random_key()
    put(dynamodb, table_s, k, l=L(*[N(i) for i in range(6)]), m=M(a=N(1), b=N(2)))
    dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="REMOVE l[1], l[3], l[9], m.a")
    assert get_item(dynamodb, table_s, k) == {**k, "l": L(N(0), N(2), N(4), N(5)), "m": M(b=N(2))}


def test_add_numbers_and_sets(dynamodb, table_s):
    # ADD adds to a number (a missing one counts as 0) and unions into a set
    # (a missing one counts as empty), dropping duplicates
    # (developerguide Expressions.UpdateExpressions.html, "ADD"; dynalite
    # test/updateItem.js "should throw away duplicate string values").
    k = random_key()
    dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="ADD n :n, s :s",
                         ExpressionAttributeValues={":n": N(5), ":s": {"SS": ["a", "b"]}})
    dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="ADD n :n, s :s",
                         ExpressionAttributeValues={":n": N("-1.5"), ":s": {"SS": ["b", "c"]}})
    item = get_item(dynamodb, table_s, k)
    assert item["n"] == N("3.5")
    assert sorted(item["s"]["SS"]) == ["a", "b", "c"]


def test_delete_from_sets(dynamodb, table_s):
    # DELETE takes elements out of a set; the attribute goes when the set
    # becomes empty, since sets cannot be empty (dynalite test/updateItem.js
    # "should delete set values", recorded against AWS); deleting elements
    # that are not there changes nothing.
    k = random_key()
    put(dynamodb, table_s, k, ns={"NS": ["1", "2", "3"]}, bs={"BS": [b"x", b"y"]})
    dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="DELETE ns :a, bs :b",
                         ExpressionAttributeValues={":a": {"NS": ["1", "4"]}, ":b": {"BS": [b"x"]}})
    item = get_item(dynamodb, table_s, k)
    assert sorted(item["ns"]["NS"]) == ["2", "3"] and item["bs"] == {"BS": [b"y"]}
    dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="DELETE ns :a",
                         ExpressionAttributeValues={":a": {"NS": ["2", "3"]}})
    assert "ns" not in get_item(dynamodb, table_s, k)


def test_add_and_delete_need_matching_types(dynamodb, table_s):
    # ADD to a number or set of another type, DELETE from a non-set or a set
    # of another type: "An operand in the update expression has an incorrect
    # data type" (dynalite test/updateItem.js "using expression to
    # delete/add incorrect types", recorded against AWS).
    k = random_key()
    put(dynamodb, table_s, k, b=M(a={"SS": ["1"]}), c=N(1), d={"NS": ["1"]})
    for expr, value in [("delete d :a", {"SS": ["1"]}), ("delete b :a", {"NS": ["1"]}),
                        ("delete b.a :a", {"NS": ["1"]}), ("delete c :a", {"NS": ["1"]}),
                        ("add b :a", {"NS": ["1"]}), ("add d :a", N(1))]:
        validation(dynamodb, table_s, k, BAD_TYPE, dynamodb.update_item, TableName=table_s,
                   Key=k, UpdateExpression=expr, ExpressionAttributeValues={":a": value})


def test_sections_in_any_order(dynamodb, table_s):
    # SET, REMOVE, ADD and DELETE may come in any order, keywords in any case
    # (dynalite test/updateItem.js "should just add valid ADD actions if
    # nothing exists", recorded against AWS).
    k = random_key()
    got = dynamodb.update_item(
        TableName=table_s, Key=k,
        UpdateExpression="ADD #e :e,#d :d DELETE #c :c REMOVE #b SET #f = :f",
        ExpressionAttributeValues={":c": {"SS": ["a", "b"]}, ":d": N(5), ":e": {"SS": ["a", "b"]},
                                   ":f": L(S("a"), N(1))},
        ExpressionAttributeNames={"#b": "b", "#c": "c", "#d": "d", "#e": "e", "#f": "f"},
        ReturnValues="UPDATED_NEW")
    assert got["Attributes"] == {"d": N(5), "e": {"SS": ["a", "b"]}, "f": L(S("a"), N(1))}
    assert get_item(dynamodb, table_s, k) == {**k, "d": N(5), "e": {"SS": ["a", "b"]},
                                              "f": L(S("a"), N(1))}


# ---------------------------------------------------------------------------
# What an update may not change
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("expr,values", [
    # dynalite test/updateItem.js "should return ValidationException if
    # trying to update key", recorded against AWS: every action on a key
    # attribute, nested ones included, and before any other check.
    ("add p.b :a", {":a": N(1)}),
    ("delete p :a", {":a": {"NS": ["1"]}}),
    ("remove d set b = :a, p = :a", {":a": N(1)}),
    ("delete b :a remove p", {":a": {"NS": ["1"]}}),
    ("set p = p.b + p[1]", None),
])
def test_key_attributes_cannot_be_updated(dynamodb, table_s, expr, values):
    k = random_key()
    put(dynamodb, table_s, k, b={"NS": ["1"]})
    args = dict(TableName=table_s, Key=k, UpdateExpression=expr)
    if values:
        args["ExpressionAttributeValues"] = values
    validation(dynamodb, table_s, k,
               "One or more parameter values were invalid: Cannot update attribute p. "
               "This attribute is part of the key",
               dynamodb.update_item, **args)


def test_range_key_cannot_be_updated(dynamodb, table_sc):
    # The sort key too (dynalite test/updateItem.js "trying to update range key").
    k = {"p": S(random_string()), "c": S("x")}
    validation(dynamodb, table_sc, k,
               "One or more parameter values were invalid: Cannot update attribute c. "
               "This attribute is part of the key",
               dynamodb.update_item, TableName=table_sc, Key=k,
               UpdateExpression="set d[1] = :a add c.b :a", ExpressionAttributeValues={":a": N(1)})


@pytest.fixture
def index_table(dynamodb, make_table):
    # p (S) hash; a GSI keyed on c (S) with sort key d (S).
    return make_table(
        ("p", "S"),
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in "pcd"],
        GlobalSecondaryIndexes=[{
            "IndexName": "index1",
            "KeySchema": [{"AttributeName": "c", "KeyType": "HASH"},
                          {"AttributeName": "d", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}])


def test_index_keys_keep_their_types(dynamodb, index_table):
    # An index key attribute written with a value of the wrong type: refused
    # before the item is read when the request decides the type (a :value,
    # + or -, ADD), and after evaluation when it comes from the item
    # (dynalite test/updateItem.js "trying to update wrong type on index" and
    # "trying to update existing index", recorded against AWS).
    k = {"p": S(random_string())}
    mismatch = ("One or more parameter values were invalid: Type mismatch for Index Key c "
                "Expected: S Actual: N IndexName: index1")
    for expr in ["set d = :s, c = :a", "set e = p add c :a", "set c = p + :a"]:
        validation(dynamodb, index_table, k, mismatch, dynamodb.update_item,
                   TableName=index_table, Key=k, UpdateExpression=expr,
                   ExpressionAttributeValues={":a": N(1), ":s": S("x")} if ":s" in expr
                   else {":a": N(1)})
    dynamodb.update_item(TableName=index_table, Key=k, UpdateExpression="set e = :n",
                         ExpressionAttributeValues={":n": N(1)})
    for expr in ["set c = e", "set d = e"]:
        validation(dynamodb, index_table, k,
                   "The update expression attempted to update the secondary index key to "
                   "unsupported type",
                   dynamodb.update_item, TableName=index_table, Key=k, UpdateExpression=expr)


def test_paths_inside_key_attributes_are_refused(dynamodb, index_table):
    # Key attributes are scalars: a path into one, on either side of an
    # action, is refused (dynalite test/updateItem.js "trying to update index
    # map", recorded against AWS; "Key: p" as for GetItem projections).
    k = {"p": S(random_string())}
    fmt = ("Key attributes must be scalars; list random access '[]' and map lookup '.' are "
           "not allowed: {}")
    for expr, where in [("set d[1] = :a", "IndexKey: d"), ("add d.b :a", "IndexKey: d"),
                        ("set e = list_append(a, b), f = d[1]", "IndexKey: d"),
                        ("set e = p.x", "Key: p")]:
        args = dict(TableName=index_table, Key=k, UpdateExpression=expr)
        if ":a" in expr:
            args["ExpressionAttributeValues"] = {":a": N(1)}
        validation(dynamodb, index_table, k, fmt.format(where), dynamodb.update_item, **args)


def test_updated_item_size_limit(dynamodb, table_s):
    # An update whose result passes 400 KB: "Item size to update has exceeded
    # the maximum allowed size" (dynalite test/updateItem.js "update item is
    # too big", recorded against AWS).
    k = random_key()
    put(dynamodb, table_s, k, a=S("x" * 300000))
    validation(dynamodb, table_s, k, "Item size to update has exceeded the maximum allowed size",
               dynamodb.update_item, TableName=table_s, Key=k, UpdateExpression="SET b = :b",
               ExpressionAttributeValues={":b": S("y" * 120000)})


def test_update_consumed_capacity(dynamodb, table_s):
    # A write is charged by the larger of the old and the new item, 1 KB per
    # unit (dynalite test/updateItem.js "should return ConsumedCapacity for
    # creating and updating larger item", recorded against AWS): a 1,024-byte
    # item costs 1, growing it past 1 KB costs 2.
    k = random_key()
    pad = "b" * (1024 - len("p") - len(k["p"]["S"]) - len("b"))
    got = dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="SET b = :b",
                               ExpressionAttributeValues={":b": S(pad)},
                               ReturnConsumedCapacity="TOTAL")
    assert got["ConsumedCapacity"] == {"TableName": table_s, "CapacityUnits": 1.0}
    got = dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="SET b = :b",
                               ExpressionAttributeValues={":b": S(pad + "b")},
                               ReturnConsumedCapacity="INDEXES")
    assert got["ConsumedCapacity"] == {"TableName": table_s, "CapacityUnits": 2.0,
                                       "Table": {"CapacityUnits": 2.0}}
    # Shrinking back still pays for the larger old item.
    got = dynamodb.update_item(TableName=table_s, Key=k, UpdateExpression="REMOVE b",
                               ReturnConsumedCapacity="TOTAL")
    assert got["ConsumedCapacity"]["CapacityUnits"] == 2.0
