# SPDX-License-Identifier: MIT
"""GetItem with ProjectionExpression.

The projected item keeps the named parts in place - map keys inside their
maps, list elements inside their list, in order - and leaves out what the
item does not have; an existing item projected to nothing is "Item": {}
(scylla test/alternator/test_projection_expression.py, run against AWS). The
errors are dynalite's recordings (test/getItem.js). AttributesToGet, the
legacy form, is in test_legacy_params.py.
"""

import pytest

from util import L, M, N, S, assert_error, client_error, random_key, random_string


def project(client, table, k, expr, names=None):
    args = dict(TableName=table, Key=k, ConsistentRead=True, ProjectionExpression=expr)
    if names:
        args["ExpressionAttributeNames"] = names
    return client.get_item(**args)


NESTED = {"a": M(b=L(N(2), N(4), M(x=S("hi"), y=S("yo"))), c=N(5)), "b": S("hello")}


@pytest.mark.parametrize("expr,expected", [
    # scylla test_projection_expression_path, run against AWS.
    ("a", {"a": NESTED["a"]}),
    ("a.b", {"a": M(b=L(N(2), N(4), M(x=S("hi"), y=S("yo"))))}),
    ("a.b[0]", {"a": M(b=L(N(2)))}),
    ("a.b[2]", {"a": M(b=L(M(x=S("hi"), y=S("yo"))))}),
    ("a.b[2].y", {"a": M(b=L(M(y=S("yo"))))}),
    ("x", {}),
    ("a.b[3]", {}),
    ("a.x", {}),
    ("a.x.y", {}),
    ("a.b[3].x", {}),
    ("a.b.x", {}),
    ("a[0]", {}),
    ("a.b[0].x", {}),
    ("a.b[0][0]", {}),
    ("a.b[0],a.b[1]", {"a": M(b=L(N(2), N(4)))}),
    ("a.b[0],a.c", {"a": M(b=L(N(2)), c=N(5))}),
    ("a.c,b", {"a": M(c=N(5)), "b": S("hello")}),
    ("a.x, a.b[0], x, a.b[3].x", {"a": M(b=L(N(2)))}),
    ("a.b[2], a.b[0]", {"a": M(b=L(N(2), M(x=S("hi"), y=S("yo"))))}),
    ("p, b", None),  # the key is projected only when named
])
def test_projection_paths(dynamodb, table_s, expr, expected):
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, **NESTED})
    if expected is None:
        expected = {**k, "b": S("hello")}
    assert project(dynamodb, table_s, k, expr)["Item"] == expected


def test_projection_of_a_missing_item(dynamodb, table_s):
    # No item, no "Item" (dynalite test/getItem.js "should return empty
    # response if key does not exist").
    got = project(dynamodb, table_s, random_key(), "a, b")
    assert "Item" not in got


def test_projection_names(dynamodb, table_s):
    # #names stand for one path element each, even with a dot in them
    # (scylla test_projection_expression_path_references and
    # test_projection_expression_path_dot); reserved words go through them.
    k = random_key()
    dynamodb.put_item(TableName=table_s, Item={**k, "a.b": S("hi"), "a": M(b=S("yo"), c=S("jo")),
                                               "status": S("on")})
    assert project(dynamodb, table_s, k, "a.b")["Item"] == {"a": M(b=S("yo"))}
    assert project(dynamodb, table_s, k, "#n", {"#n": "a.b"})["Item"] == {"a.b": S("hi")}
    assert project(dynamodb, table_s, k, "#n1.#n2", {"#n1": "a", "#n2": "c"})["Item"] == {
        "a": M(c=S("jo"))}
    assert project(dynamodb, table_s, k, "#s", {"#s": "status"})["Item"] == {"status": S("on")}


@pytest.mark.parametrize("expr,names,message", [
    # dynalite test/getItem.js "validations", recorded against AWS.
    ("", None, "Invalid ProjectionExpression: The expression can not be empty;"),
    ("a.abORt", None,
     "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: abORt"),
    ("#a,ABSoLUTE", {"#a": "a"},
     "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: "
     "ABSoLUTE"),
    ("a,b,a,#a", None,
     "Invalid ProjectionExpression: An expression attribute name used in the document path is "
     "not defined; attribute name: #a"),
    ("b[1], b.a, #a.b, a", {"#a": "a"},
     "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
     "rewrite one of these paths; path one: [a, b], path two: [a]"),
    ("a, #a[1]", {"#a": "a"},
     "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
     "rewrite one of these paths; path one: [a], path two: [a, [1]]"),
    ("a.b, #a[1], #b", {"#a": "a", "#b": "[3]"},
     "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or "
     "rewrite one of these paths; path one: [a, b], path two: [a, [1]]"),
    ("a.b[1], #a[1], #b", {"#a": "a", "#b": "[3]"},
     "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or "
     "rewrite one of these paths; path one: [a, b, [1]], path two: [a, [1]]"),
    ("a[3].b, #a.#b.b", {"#a": "a", "#b": "[3]"},
     "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or "
     "rewrite one of these paths; path one: [a, [3], b], path two: [a, [3], b]"),
    ("a,b", {"#a": "a", "#b": "b"},
     "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}"),
])
def test_projection_errors(dynamodb, table_s, expr, names, message):
    args = dict(TableName=table_s, Key=random_key(), ProjectionExpression=expr)
    if names is not None:
        args["ExpressionAttributeNames"] = names
    assert_error(client_error(dynamodb.get_item, **args), "ValidationException", message)


def test_projection_syntax_errors(dynamodb, table_s):
    # dynalite test/getItem.js "syntax error in ProjectionExpression" records
    # the prefix of each; the whole texts of the first three are real AWS
    # answers pinned by public emulators (storage/tests/test_expr_parse.c).
    for expr in ["whatever(stuff)", ":a", "abort,", "a,,b", "a..b", "a[b]", "(a.b).c", "(a)",
                 "(a),(b)", "(a,b)", "a-b"]:
        err = client_error(dynamodb.get_item, TableName=table_s, Key=random_key(),
                           ProjectionExpression=expr)
        assert err.response["Error"]["Message"].startswith(
            "Invalid ProjectionExpression: Syntax error; "), expr
    for expr, message in [
        ("!!!", 'Syntax error; token: "!", near: "!!"'),
        ("a b", 'Syntax error; token: "b", near: "a b"'),
        ("a,", 'Syntax error; token: "<EOF>", near: ","'),
    ]:
        assert_error(client_error(dynamodb.get_item, TableName=table_s, Key=random_key(),
                                  ProjectionExpression=expr),
                     "ValidationException", "Invalid ProjectionExpression: " + message)


def test_projection_inside_key_attributes(dynamodb, make_table):
    # Key attributes are scalars: "Key attributes must be scalars; list
    # random access '[]' and map lookup '.' are not allowed: Key: a" - and
    # "IndexKey: d" for an index's key (dynalite test/getItem.js
    # "non-scalar key access" and "non-scalar index access", recorded
    # against AWS). The key is checked first.
    table = make_table(
        ("a", "S"),
        AttributeDefinitions=[{"AttributeName": "a", "AttributeType": "S"},
                              {"AttributeName": "d", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "index1",
                                 "KeySchema": [{"AttributeName": "d", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}])
    fmt = ("Key attributes must be scalars; list random access '[]' and map lookup '.' are "
           "not allowed: {}")
    k = {"a": S(random_string())}
    for expr, names, where in [("#a.b.c", {"#a": "a"}, "Key: a"), ("#a[0]", {"#a": "a"}, "Key: a"),
                               ("#d.b.c", {"#d": "d"}, "IndexKey: d"),
                               ("#d[0]", {"#d": "d"}, "IndexKey: d")]:
        err = client_error(dynamodb.get_item, TableName=table, Key=k, ProjectionExpression=expr,
                           ExpressionAttributeNames=names)
        assert_error(err, "ValidationException", fmt.format(where))
    err = client_error(dynamodb.get_item, TableName=table, Key={"b": S("x")},
                       ProjectionExpression="a.b")
    assert_error(err, "ValidationException", "The provided key element does not match the schema")
