# SPDX-License-Identifier: MIT
"""The order of a projected item's attributes in the answer's JSON.

An item is a JSON object, whose members DynamoDB leaves unordered (SDKs read
it as a map), so this is ddbemu's own rule, written down in
docs/differences.md: a projected item lists its attributes sorted by the
bytes of their names, whatever order the item was written in and the
projection names them in; a whole item lists them in the order they were
written. Every read answers the same bytes for the same projection - GetItem,
BatchGetItem, TransactGetItems, Query, Scan (of the table and of a GSI of
partial projection) and PartiQL - whether the projection names only
top-level attributes (made from the stored encoding, issue 26) or nested
paths (made from the decoded tree). Skipped against AWS.
"""

import json

import pytest

from conftest import running_against_aws

pytestmark = pytest.mark.skipif(running_against_aws(), reason="ddbemu's own member order")

# Written in an order that is neither sorted nor reverse sorted.
ITEM = [
    ("p", {"S": "k1"}),
    ("zeta", {"N": "-12.50"}),
    ("m", {"M": {"y": {"S": "yo"}, "x": {"NS": ["3", "1"]}}}),
    ("Alpha", {"L": [{"BOOL": True}, {"NULL": True}, {"B": "AAE="}]}),
    ("g", {"S": "gsi"}),
    ("b", {"SS": ["b", "a"]}),
    ("n", {"N": "0"}),
]
# The answer's form of each value (numbers canonical, sets in set order).
ANSWERED = {
    "p": {"S": "k1"},
    "zeta": {"N": "-12.5"},
    "m": {"M": {"y": {"S": "yo"}, "x": {"NS": ["1", "3"]}}},
    "Alpha": {"L": [{"BOOL": True}, {"NULL": True}, {"B": "AAE="}]},
    "g": {"S": "gsi"},
    "b": {"SS": ["a", "b"]},
    "n": {"N": "0"},
}


def pairs(data):
    """The members of a JSON object text, in order, nested objects too."""
    return json.loads(data, object_pairs_hook=lambda kv: kv)


def member(body, *path):
    """The raw member at path of an answer (lists of pairs, indexes for arrays)."""
    node = pairs(body)
    for step in path:
        if isinstance(step, int):
            node = node[step]
        else:
            node = dict(node)[step]
    return node


def as_pairs(obj):
    return pairs(json.dumps(obj))


@pytest.fixture
def table(make_table, raw):
    name = make_table(
        ("p", "S"),
        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "byg",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["zeta", "m"]},
        }])
    body = '{"TableName": %s, "Item": {%s}}' % (
        json.dumps(name), ", ".join("%s: %s" % (json.dumps(k), json.dumps(v)) for k, v in ITEM))
    assert raw("PutItem", body).status == 200
    return name


def projected_answers(raw, table, projection, names=None):
    """The Item each read answers under projection, as member pairs."""
    extra = {"ProjectionExpression": projection}
    if names:
        extra["ExpressionAttributeNames"] = names
    key = {"p": {"S": "k1"}}
    out = {}
    r = raw("GetItem", dict(TableName=table, Key=key, **extra))
    out["GetItem"] = member(r.body, "Item")
    r = raw("BatchGetItem", {"RequestItems": {table: dict(Keys=[key], **extra)}})
    out["BatchGetItem"] = member(r.body, "Responses", table, 0)
    r = raw("TransactGetItems", {"TransactItems": [{"Get": dict(TableName=table, Key=key,
                                                                **extra)}]})
    out["TransactGetItems"] = member(r.body, "Responses", 0, "Item")
    r = raw("Query", dict(TableName=table, KeyConditionExpression="p = :p",
                          ExpressionAttributeValues={":p": {"S": "k1"}}, **extra))
    out["Query"] = member(r.body, "Items", 0)
    r = raw("Scan", dict(TableName=table, **extra))
    out["Scan"] = member(r.body, "Items", 0)
    r = raw("Scan", dict(TableName=table, FilterExpression="n = :z",
                         ExpressionAttributeValues={":z": {"N": "0"}}, **extra))
    out["Scan with a filter"] = member(r.body, "Items", 0)
    return out


@pytest.mark.parametrize("projection,names,want", [
    # top-level names only: from the stored encoding
    ("zeta, p, m, Alpha, nothing, b", None, ["Alpha", "b", "m", "p", "zeta"]),
    ("#n, g", {"#n": "n"}, ["g", "n"]),
    ("nothing", None, []),
    # a nested path: from the decoded tree, the same order
    ("zeta, m.y, Alpha[1], p", None, ["Alpha", "m", "p", "zeta"]),
])
def test_projected_members_sorted_by_name(raw, table, projection, names, want):
    answers = projected_answers(raw, table, projection, names)
    first = None
    for op, got in answers.items():
        assert [k for k, _ in got] == want, op
        if first is None:
            first = got
        assert got == first, op  # the same members, values and order in every read
    for k, v in first:
        if k == "m" and "m.y" in projection:
            assert v == as_pairs({"M": {"y": {"S": "yo"}}})
        elif k == "Alpha" and "[1]" in projection:
            assert v == as_pairs({"L": [{"NULL": True}]})
        else:
            assert v == as_pairs(ANSWERED[k])


def test_whole_item_in_written_order(raw, table):
    r = raw("GetItem", {"TableName": table, "Key": {"p": {"S": "k1"}}})
    assert [k for k, _ in member(r.body, "Item")] == [k for k, _ in ITEM]


def test_gsi_of_partial_projection(raw, table):
    """A GSI read projects what the index holds: attributes it does not
    project are left out, the rest sorted by name."""
    r = raw("Query", {"TableName": table, "IndexName": "byg", "KeyConditionExpression": "g = :g",
                      "ExpressionAttributeValues": {":g": {"S": "gsi"}},
                      "ProjectionExpression": "zeta, b, p, Alpha, m, g"})
    assert r.status == 200, r.data
    got = member(r.body, "Items", 0)
    assert [k for k, _ in got] == ["g", "m", "p", "zeta"]
    assert got == [(k, as_pairs(ANSWERED[k])) for k in ["g", "m", "p", "zeta"]]
    r = raw("Query", {"TableName": table, "IndexName": "byg", "KeyConditionExpression": "g = :g",
                      "ExpressionAttributeValues": {":g": {"S": "gsi"}},
                      "FilterExpression": "attribute_exists(zeta)",
                      "ProjectionExpression": "zeta, b, p"})
    assert [k for k, _ in member(r.body, "Items", 0)] == ["p", "zeta"]


def test_partiql_select_columns(raw, table):
    for statement in ('SELECT zeta, p, Alpha, nothing FROM "%s" WHERE p = \'k1\'' % table,
                      'SELECT zeta, p, Alpha, nothing FROM "%s"' % table):
        r = raw("ExecuteStatement", {"Statement": statement})
        assert r.status == 200, r.data
        got = member(r.body, "Items", 0)
        assert got == [(k, as_pairs(ANSWERED[k])) for k in ["Alpha", "p", "zeta"]], statement
