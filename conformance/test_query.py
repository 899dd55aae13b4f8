# SPDX-License-Identifier: MIT
"""Query: key conditions, order, paging (Limit and the 1 MB page), filters,
projections, Select, capacity, and the validation errors AWS answers.

Sources for the expected behaviour and texts: dynalite's test/query.js (run
against AWS with REMOTE=1), scylladb test/alternator test_query.py,
test_key_conditions.py, test_query_filter.py and test_filter_expression.py
(written against AWS), DynamoDB Local's validateSelect, and the API reference.
Every refused call is followed by a check that the table did not change.
"""

import re

import pytest
from botocore.exceptions import ClientError

from paging import all_pages, canonical, snapshot
from util import VALIDATION, assert_error, assert_raw_error, client_error, random_string

S = lambda v: {"S": v}  # noqa: E731
N = lambda v: {"N": str(v)}  # noqa: E731


def refused(client, table, call, code, message, **kwargs):
    """call(**kwargs) fails with code/message and the table is unchanged."""
    before = snapshot(client, table)
    err = client_error(call, **kwargs)
    assert_error(err, code, message)
    assert snapshot(client, table) == before
    return err


def refused_raw(raw, client, table, target, body, type_, message):
    before = snapshot(client, table)
    assert_raw_error(raw(target, body), type_, message)
    assert snapshot(client, table) == before


def fill(client, table, items):
    for item in items:
        client.put_item(TableName=table, Item=item)


@pytest.fixture
def sn_partition(dynamodb, table_sn):
    """Ten items c = 0..9 in a fresh partition of table_sn, with x = c % 3."""
    p = random_string()
    items = [{"p": S(p), "c": N(i), "x": N(i % 3)} for i in range(10)]
    fill(dynamodb, table_sn, items)
    return p, items


def q(client, table, p, cond="", values=None, **kwargs):
    vals = {":p": S(p)}
    vals.update(values or {})
    return client.query(TableName=table, KeyConditionExpression="p = :p" + cond,
                        ExpressionAttributeValues=vals, **kwargs)


# --------------------------------------------------------------------------
# key conditions and order
# --------------------------------------------------------------------------


def test_every_sort_key_operator_selects_its_range(dynamodb, table_sn, sn_partition):
    # DynamoDB: "=, <, <=, >, >=, BETWEEN, begins_with" on the sort key
    # (developerguide/Query.KeyConditionExpressions.html); dynalite test/query.js.
    p, items = sn_partition
    cases = [
        (" AND c = :v", {":v": N(4)}, [4]),
        (" AND c < :v", {":v": N(4)}, [0, 1, 2, 3]),
        (" AND c <= :v", {":v": N(4)}, [0, 1, 2, 3, 4]),
        (" AND c > :v", {":v": N(4)}, [5, 6, 7, 8, 9]),
        (" AND c >= :v", {":v": N(4)}, [4, 5, 6, 7, 8, 9]),
        (" AND c BETWEEN :a AND :b", {":a": N(2), ":b": N(5)}, [2, 3, 4, 5]),
        (" AND :v > c", {":v": N(2)}, [0, 1]),
        ("", {}, list(range(10))),
    ]
    for cond, values, want in cases:
        got = q(dynamodb, table_sn, p, cond, values, ConsistentRead=True)["Items"]
        assert [int(i["c"]["N"]) for i in got] == want, cond


def test_begins_with_on_string_sort_key(dynamodb, table_sc):
    # begins_with selects a prefix of the sort key in byte order (scylla test_query.py test_begins_with).
    p = random_string()
    keys = ["CONNECTION#1", "CONNECTION#2", "CHATROOM#1", "CHATROOM#10", "PROFILE", "ÿÿa", "ÿÿÿ"]
    fill(dynamodb, table_sc, [{"p": S(p), "c": S(k)} for k in keys])
    got = dynamodb.query(TableName=table_sc, KeyConditionExpression="p = :p AND begins_with(c, :b)",
                         ExpressionAttributeValues={":p": S(p), ":b": S("CHATROOM#")})["Items"]
    assert [i["c"]["S"] for i in got] == ["CHATROOM#1", "CHATROOM#10"]
    got = dynamodb.query(TableName=table_sc, KeyConditionExpression="p = :p AND begins_with(c, :b)",
                         ExpressionAttributeValues={":p": S(p), ":b": S("ÿÿ")})["Items"]
    assert [i["c"]["S"] for i in got] == ["ÿÿa", "ÿÿÿ"]


def test_number_and_binary_sort_orders(dynamodb, table_sn, table_sb):
    # Numbers sort numerically, binaries as unsigned bytes (dynalite test/query.js
    # "should return items in order for numbers/binary").
    p = random_string()
    numbers = ["-99.1", "-10.1", "-1", "-0.01", "0", "0.01", "0.9", "1", "1.1", "9", "10.9", "99.1"]
    fill(dynamodb, table_sn, [{"p": S(p), "c": N(n)} for n in reversed(numbers)])
    got = dynamodb.query(TableName=table_sn, KeyConditionExpression="p = :p",
                         ExpressionAttributeValues={":p": S(p)})["Items"]
    assert [i["c"]["N"] for i in got] == numbers
    blobs = [b"\x00", b"\x01\xff", b"\x7f", b"\x80", b"\xfe", b"\xff\x00"]
    fill(dynamodb, table_sb, [{"p": S(p), "c": {"B": b}} for b in reversed(blobs)])
    got = dynamodb.query(TableName=table_sb, KeyConditionExpression="p = :p",
                         ExpressionAttributeValues={":p": S(p)}, ScanIndexForward=False)["Items"]
    assert [i["c"]["B"] for i in got] == list(reversed(blobs))


def test_reverse_order_and_reverse_paging(dynamodb, table_sn, sn_partition):
    # ScanIndexForward=false returns the sort-key range backwards, and pages
    # resume below the LastEvaluatedKey (scylla test_query_reverse_paging).
    p, _ = sn_partition
    got = q(dynamodb, table_sn, p, ScanIndexForward=False)["Items"]
    assert [int(i["c"]["N"]) for i in got] == list(range(9, -1, -1))
    for limit in (1, 3, 4, 10):
        items, pgs = all_pages(q, client=dynamodb, table=table_sn, p=p, cond=" AND c <= :v",
                               values={":v": N(7)}, ScanIndexForward=False, Limit=limit)
        assert [int(i["c"]["N"]) for i in items] == list(range(7, -1, -1))
        assert all(len(pg["Items"]) <= limit for pg in pgs)


def test_legacy_key_conditions_every_operator(dynamodb, table_sn, sn_partition):
    # KeyConditions with EQ/LE/LT/GE/GT/BETWEEN (dynalite test/query.js
    # "should query a range table with ..."; scylla test_query_basic_restrictions).
    p, _ = sn_partition
    cases = [("EQ", [N(3)], [3]), ("LE", [N(2)], [0, 1, 2]), ("LT", [N(2)], [0, 1]),
             ("GE", [N(8)], [8, 9]), ("GT", [N(8)], [9]), ("BETWEEN", [N(3), N(5)], [3, 4, 5])]
    for op, values, want in cases:
        got = dynamodb.query(TableName=table_sn, KeyConditions={
            "p": {"ComparisonOperator": "EQ", "AttributeValueList": [S(p)]},
            "c": {"ComparisonOperator": op, "AttributeValueList": values}})["Items"]
        assert [int(i["c"]["N"]) for i in got] == want, op


def test_legacy_begins_with_key_condition(dynamodb, table_sc):
    p = random_string()
    fill(dynamodb, table_sc, [{"p": S(p), "c": S(k)} for k in ["aaa", "aab", "abc"]])
    got = dynamodb.query(TableName=table_sc, KeyConditions={
        "p": {"ComparisonOperator": "EQ", "AttributeValueList": [S(p)]},
        "c": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [S("aa")]}})["Items"]
    assert [i["c"]["S"] for i in got] == ["aaa", "aab"]


# --------------------------------------------------------------------------
# Limit, LastEvaluatedKey and the 1 MB page
# --------------------------------------------------------------------------


def test_limit_stopping_at_the_last_item_still_returns_last_evaluated_key(dynamodb, table_sn,
                                                                         sn_partition):
    # DynamoDB returns LastEvaluatedKey whenever Limit stopped the page, even at
    # the partition's last item (dynalite test/query.js "should not return
    # LastEvaluatedKey if Limit is at least size of response" - its assertion
    # records the key); the next page is then empty and final.
    p, items = sn_partition
    page = q(dynamodb, table_sn, p, Limit=10)
    assert page["Count"] == 10 and page["ScannedCount"] == 10
    assert page["LastEvaluatedKey"] == {"p": S(p), "c": N(9)}
    nxt = q(dynamodb, table_sn, p, Limit=10, ExclusiveStartKey=page["LastEvaluatedKey"])
    assert nxt["Items"] == [] and nxt["Count"] == 0 and "LastEvaluatedKey" not in nxt
    # A Limit above the item count reads everything and has no LastEvaluatedKey.
    assert "LastEvaluatedKey" not in q(dynamodb, table_sn, p, Limit=11)


def test_limit_counts_items_read_before_the_filter(dynamodb, table_sn, sn_partition):
    # Limit bounds ScannedCount, not Count, and a page may be empty
    # (dynalite "should only return Limit items if requested and QueryFilter";
    # scylla test_query_filter_paging).
    p, items = sn_partition
    page = q(dynamodb, table_sn, p, FilterExpression="x = :x", values={":x": N(2)}, Limit=4)
    assert page["ScannedCount"] == 4 and page["Count"] == 1
    assert [i["c"]["N"] for i in page["Items"]] == ["2"]
    assert page["LastEvaluatedKey"] == {"p": S(p), "c": N(3)}
    got, pgs = all_pages(q, client=dynamodb, table=table_sn, p=p,
                         FilterExpression="x = :x", values={":x": N(0)}, Limit=1)
    assert [int(i["c"]["N"]) for i in got] == [0, 3, 6, 9]
    assert sum(pg["ScannedCount"] for pg in pgs) == 10
    assert any(pg["Count"] == 0 for pg in pgs)


def _big_partition(client, table, count=30, size=100 * 1024):
    """count items of about size bytes each in one new partition (3 MB by default)."""
    p = random_string()
    pad = "x" * size
    items = []
    for i in range(count):
        items.append({"p": S(p), "c": N(i), "pad": S(pad), "even": {"BOOL": i % 2 == 0}})
    for start in range(0, count, 25):
        client.batch_write_item(RequestItems={table: [
            {"PutRequest": {"Item": it}} for it in items[start:start + 25]]})
    return p, items


@pytest.fixture(scope="module")
def big_partition(dynamodb, table_sn):
    return _big_partition(dynamodb, table_sn)


def test_paging_through_a_3mb_partition_sees_every_item_once(dynamodb, table_sn, big_partition):
    # A page stops after 1 MB of data read (developerguide/Query.Pagination.html),
    # with LastEvaluatedKey, and following it returns every item exactly once.
    p, items = big_partition
    got, pgs = all_pages(q, client=dynamodb, table=table_sn, p=p)
    assert [int(i["c"]["N"]) for i in got] == list(range(30))
    assert len(pgs) >= 3  # 3 MB cannot come back in fewer than three 1 MB pages
    for pg in pgs[:-1]:
        # A page ends with the item that brings the data read to 1 MB: 11 items
        # of 100 KB (10 would be 1000 KB).
        assert pg["LastEvaluatedKey"]["c"] == pg["Items"][-1]["c"]
        assert pg["ScannedCount"] == 11
    # With a Limit below the page size, and with a filter, every item still shows up once.
    got, pgs = all_pages(q, client=dynamodb, table=table_sn, p=p, Limit=7)
    assert [int(i["c"]["N"]) for i in got] == list(range(30))
    assert all(pg["ScannedCount"] <= 7 for pg in pgs)
    got, pgs = all_pages(q, client=dynamodb, table=table_sn, p=p,
                         FilterExpression="even = :t", values={":t": {"BOOL": True}})
    assert [int(i["c"]["N"]) for i in got] == list(range(0, 30, 2))
    assert sum(pg["ScannedCount"] for pg in pgs) == 30 and len(pgs) >= 3
    got, pgs = all_pages(q, client=dynamodb, table=table_sn, p=p, Limit=4, ScanIndexForward=False,
                         FilterExpression="even = :t", values={":t": {"BOOL": False}})
    assert [int(i["c"]["N"]) for i in got] == list(range(29, 0, -2))


def test_the_1mb_limit_counts_data_read_not_returned(dynamodb, table_sn, big_partition):
    # Projection and Select COUNT do not enlarge a page: the limit is on the
    # data read (developerguide/Query.Pagination.html).
    p, _ = big_partition
    full = q(dynamodb, table_sn, p)
    projected = q(dynamodb, table_sn, p, ProjectionExpression="c")
    counted = q(dynamodb, table_sn, p, Select="COUNT")
    assert projected["ScannedCount"] == full["ScannedCount"] == counted["ScannedCount"] < 30
    assert projected["LastEvaluatedKey"] == full["LastEvaluatedKey"] == counted["LastEvaluatedKey"]
    assert "Items" not in counted and counted["Count"] == counted["ScannedCount"]


def test_query_capacity_is_the_data_read_in_4kb_units(dynamodb, table_sn):
    # Read units: the total size of the items read, rounded up to 4 KB once per
    # page, halved for eventually consistent reads
    # (developerguide/read-write-operations.html "Query").
    p = random_string()
    fill(dynamodb, table_sn, [{"p": S(p), "c": N(i), "pad": S("y" * 3000)} for i in range(3)])
    page = q(dynamodb, table_sn, p, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    assert page["ConsumedCapacity"] == {"TableName": table_sn, "CapacityUnits": 3.0}
    page = q(dynamodb, table_sn, p, ReturnConsumedCapacity="INDEXES")
    assert page["ConsumedCapacity"] == {"TableName": table_sn, "CapacityUnits": 1.5,
                                        "Table": {"CapacityUnits": 1.5}}
    empty = q(dynamodb, table_sn, random_string(), ReturnConsumedCapacity="TOTAL")
    assert empty["ConsumedCapacity"]["CapacityUnits"] == 0.5


# --------------------------------------------------------------------------
# Select, projections, filters
# --------------------------------------------------------------------------


def test_select_count_returns_counts_without_items(dynamodb, table_sn, sn_partition):
    # Select COUNT (dynalite "should return COUNT if requested"; LastEvaluatedKey
    # "even if only Count is selected").
    p, _ = sn_partition
    page = q(dynamodb, table_sn, p, " AND c >= :v", {":v": N(6)}, Select="COUNT")
    assert "Items" not in page and page["Count"] == 4 and page["ScannedCount"] == 4
    page = q(dynamodb, table_sn, p, Select="COUNT", Limit=2, FilterExpression="x = :x",
             values={":x": N(1)})
    assert page["Count"] == 1 and page["ScannedCount"] == 2
    assert page["LastEvaluatedKey"] == {"p": S(p), "c": N(1)}


def test_projection_expression_and_attributes_to_get(dynamodb, table_sc):
    # Projections keep only the named parts; items without them come back empty
    # (dynalite "should only return requested (nested) attributes").
    p = random_string()
    fill(dynamodb, table_sc, [
        {"p": S(p), "c": S("1"), "a": S("a1"), "m": {"M": {"x": N(1), "y": N(2)}},
         "l": {"L": [S("l0"), S("l1"), S("l2")]}},
        {"p": S(p), "c": S("2")},
    ])
    got = dynamodb.query(TableName=table_sc, KeyConditionExpression="p = :p",
                         ExpressionAttributeValues={":p": S(p)},
                         ProjectionExpression="#m.y, l[2], a",
                         ExpressionAttributeNames={"#m": "m"})["Items"]
    assert got == [{"a": S("a1"), "m": {"M": {"y": N(2)}}, "l": {"L": [S("l2")]}}, {}]
    got = dynamodb.query(TableName=table_sc, KeyConditions={
        "p": {"ComparisonOperator": "EQ", "AttributeValueList": [S(p)]}},
        AttributesToGet=["c", "a"], Select="SPECIFIC_ATTRIBUTES")["Items"]
    assert got == [{"c": S("1"), "a": S("a1")}, {"c": S("2")}]


def test_legacy_query_filter_and_conditional_operator(dynamodb, table_sn, sn_partition):
    # QueryFilter conditions are ANDed, or ORed with ConditionalOperator OR
    # (scylla test_query_filter.py test_query_filter_and / _or).
    p, _ = sn_partition
    key = {"p": {"ComparisonOperator": "EQ", "AttributeValueList": [S(p)]}}
    flt = {"x": {"ComparisonOperator": "EQ", "AttributeValueList": [N(1)]},
           "y": {"ComparisonOperator": "NULL"}}
    got = dynamodb.query(TableName=table_sn, KeyConditions=key, QueryFilter=flt)["Items"]
    assert [int(i["c"]["N"]) for i in got] == [1, 4, 7]
    flt = {"x": {"ComparisonOperator": "EQ", "AttributeValueList": [N(1)]},
           "z": {"ComparisonOperator": "NOT_NULL"}}
    got = dynamodb.query(TableName=table_sn, KeyConditions=key, QueryFilter=flt,
                         ConditionalOperator="OR")["Items"]
    assert [int(i["c"]["N"]) for i in got] == [1, 4, 7]
    # KeyConditions may be combined with the expression parameters other than
    # KeyConditionExpression (dynalite "all expressions and non-expression
    # without KeyConditionExpression").
    got = dynamodb.query(TableName=table_sn, KeyConditions=key, FilterExpression="x = :x",
                         ExpressionAttributeValues={":x": N(2)}, ProjectionExpression="c")["Items"]
    assert got == [{"c": N(2)}, {"c": N(5)}, {"c": N(8)}]


def test_query_filter_contains_and_not_contains(dynamodb, table_sn):
    # CONTAINS/NOT_CONTAINS work on strings, sets and lists; a missing
    # attribute matches neither (scylla test_query_filter.py; alternator's
    # check_NOT_CONTAINS).
    p = random_string()
    fill(dynamodb, table_sn, [
        {"p": S(p), "c": N(1), "s": S("hello"), "ss": {"SS": ["a", "b"]}, "l": {"L": [N(1)]}},
        {"p": S(p), "c": N(2), "s": S("world"), "ss": {"SS": ["c"]}, "l": {"L": [N(2)]}},
        {"p": S(p), "c": N(3)},
    ])
    key = {"p": {"ComparisonOperator": "EQ", "AttributeValueList": [S(p)]}}

    def run(attr, op, value):
        got = dynamodb.query(TableName=table_sn, KeyConditions=key, QueryFilter={
            attr: {"ComparisonOperator": op, "AttributeValueList": [value]}})["Items"]
        return [int(i["c"]["N"]) for i in got]

    assert run("s", "CONTAINS", S("ell")) == [1]
    assert run("s", "NOT_CONTAINS", S("ell")) == [2]
    assert run("ss", "CONTAINS", S("c")) == [2]
    assert run("l", "NOT_CONTAINS", N(1)) == [2]


def test_filter_expression_functions(dynamodb, table_sn, sn_partition):
    p, _ = sn_partition
    got = q(dynamodb, table_sn, p, FilterExpression="x IN (:a, :b) AND NOT x = :c",
            values={":a": N(0), ":b": N(2), ":c": N(2)})["Items"]
    assert [int(i["c"]["N"]) for i in got] == [0, 3, 6, 9]


# --------------------------------------------------------------------------
# paginators
# --------------------------------------------------------------------------


def test_boto3_query_paginator_walks_every_page(dynamodb, table_sn, sn_partition, big_partition):
    # boto3's paginator follows LastEvaluatedKey with PageSize as Limit.
    p, _ = sn_partition
    paginator = dynamodb.get_paginator("query")
    for page_size in (1, 3, 10, 100):
        got = [i for page in paginator.paginate(
            TableName=table_sn, KeyConditionExpression="p = :p",
            ExpressionAttributeValues={":p": S(p)}, PaginationConfig={"PageSize": page_size})
            for i in page["Items"]]
        assert [int(i["c"]["N"]) for i in got] == list(range(10))
    bp, _ = big_partition
    result = paginator.paginate(TableName=table_sn, KeyConditionExpression="p = :p",
                                ExpressionAttributeValues={":p": S(bp)},
                                ProjectionExpression="c").build_full_result()
    assert [int(i["c"]["N"]) for i in result["Items"]] == list(range(30))


def test_resource_query_with_conditions_helpers(dynamodb_resource, table_sn, sn_partition):
    from boto3.dynamodb.conditions import Attr, Key
    p, _ = sn_partition
    table = dynamodb_resource.Table(table_sn)
    got = table.query(KeyConditionExpression=Key("p").eq(p) & Key("c").between(2, 4),
                      FilterExpression=Attr("x").ne(0))["Items"]
    assert [int(i["c"]) for i in got] == [2, 4]


# --------------------------------------------------------------------------
# validation: every message AWS answers, and nothing changes
# --------------------------------------------------------------------------


def test_missing_table(dynamodb, table_sn):
    # dynalite "should check table exists before checking key validity".
    refused(dynamodb, table_sn, dynamodb.query, "ResourceNotFoundException",
            "Requested resource not found", TableName="no_such_table_" + random_string(),
            KeyConditionExpression="z = :a", ExpressionAttributeValues={":a": N(1)})


def test_key_condition_parameter_rules(dynamodb, table_sn):
    # dynalite test/query.js (validations) and validations/query.js.
    p = random_string()
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "Either the KeyConditions or KeyConditionExpression parameter must be specified in "
            "the request.", TableName=table_sn)
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "Can not use both expression and non-expression parameters in the same request: "
            "Non-expression parameters: {KeyConditions} Expression parameters: "
            "{KeyConditionExpression}", TableName=table_sn, KeyConditionExpression="p = :p",
            ExpressionAttributeValues={":p": S(p)},
            KeyConditions={"p": {"ComparisonOperator": "EQ", "AttributeValueList": [S(p)]}})
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "Can not use both expression and non-expression parameters in the same request: "
            "Non-expression parameters: {AttributesToGet, QueryFilter} Expression parameters: "
            "{ProjectionExpression, FilterExpression}", TableName=table_sn,
            KeyConditions={"p": {"ComparisonOperator": "EQ", "AttributeValueList": [S(p)]}},
            AttributesToGet=["a"], ProjectionExpression="a", FilterExpression="b = :b",
            ExpressionAttributeValues={":b": N(1)},
            QueryFilter={"a": {"ComparisonOperator": "NULL"}})
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "ExpressionAttributeValues can only be specified when using expressions: "
            "FilterExpression and KeyConditionExpression are null", TableName=table_sn,
            KeyConditions={"p": {"ComparisonOperator": "EQ", "AttributeValueList": [S(p)]}},
            ExpressionAttributeValues={":b": N(1)})
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "ExpressionAttributeNames can only be specified when using expressions",
            TableName=table_sn, ExpressionAttributeNames={"#a": "a"},
            KeyConditions={"p": {"ComparisonOperator": "EQ", "AttributeValueList": [S(p)]}})
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}",
            TableName=table_sn, KeyConditionExpression="p = :p",
            ExpressionAttributeValues={":p": S(p)}, ExpressionAttributeNames={"#x": "x"})
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "Value provided in ExpressionAttributeValues unused in expressions: keys: {:q}",
            TableName=table_sn, KeyConditionExpression="p = :p",
            ExpressionAttributeValues={":p": S(p), ":q": S(p)})
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "ExpressionAttributeNames contains invalid key: Syntax error; key: \"x\"",
            TableName=table_sn, KeyConditionExpression="p = :p",
            ExpressionAttributeValues={":p": S(p)}, ExpressionAttributeNames={"x": "x"})


def test_key_condition_against_the_schema(dynamodb, table_sn):
    # Messages recorded by dynalite (test/query.js) and scylla
    # (test_key_condition_expression.py) against AWS.
    p = random_string()
    cases = [
        ("c = :n", {":n": N(1)}, "Query condition missed key schema element: p"),
        ("p = :p AND z = :n", {":p": S(p), ":n": N(1)},
         "Query condition missed key schema element: c"),
        ("p = :n", {":n": N(1)},
         "One or more parameter values were invalid: Condition parameter type does not match "
         "schema type"),
        ("p > :p", {":p": S(p)}, "Query key condition not supported"),
        ("p = :p OR c = :n", {":p": S(p), ":n": N(1)},
         "Invalid operator used in KeyConditionExpression: OR"),
        ("p = :p AND c = :n AND c = :n", {":p": S(p), ":n": N(1)},
         "KeyConditionExpressions must only contain one condition per key"),
    ]
    for expr, values, message in cases:
        refused(dynamodb, table_sn, dynamodb.query, "ValidationException", message,
                TableName=table_sn, KeyConditionExpression=expr, ExpressionAttributeValues=values)


def test_an_empty_partition_key_value_is_refused(dynamodb, table_sn):
    # Recorded from DynamoDB by third parties (moto issue 7062, 2023; a 2026
    # capture): the item operations' message, naming the key attribute.
    message = ("One or more parameter values are not valid. The AttributeValue for a key "
               "attribute cannot contain an empty string value. Key: p")
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException", message,
            TableName=table_sn, KeyConditionExpression="p = :p",
            ExpressionAttributeValues={":p": S("")})
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException", message,
            TableName=table_sn, KeyConditionExpression="p = :p AND c > :n",
            ExpressionAttributeValues={":p": S(""), ":n": N(1)})
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException", message,
            TableName=table_sn,
            KeyConditions={"p": {"ComparisonOperator": "EQ", "AttributeValueList": [S("")]}})


def test_legacy_key_conditions_against_the_schema(dynamodb, table_sn):
    # dynalite test/query.js: "non-indexable operations", "unsupported conditions",
    # "incorrect number of KeyConditions", argument counts and types.
    p = random_string()
    eq = {"ComparisonOperator": "EQ", "AttributeValueList": [S(p)]}
    cases = [
        ({"p": eq, "c": {"ComparisonOperator": "NULL"}},
         "Attempted conditional constraint is not an indexable operation"),
        ({"p": eq, "c": {"ComparisonOperator": "NE", "AttributeValueList": [N(1)]}},
         "Attempted conditional constraint is not an indexable operation"),
        ({"p": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [S(p)]}},
         "Query key condition not supported"),
        ({"c": {"ComparisonOperator": "EQ", "AttributeValueList": [N(1)]}},
         "Query condition missed key schema element: p"),
        ({}, "Conditions can be of length 1 or 2 only"),
        ({"p": eq, "c": {"ComparisonOperator": "EQ", "AttributeValueList": [N(1)]},
          "z": {"ComparisonOperator": "EQ", "AttributeValueList": [N(1)]}},
         "Conditions can be of length 1 or 2 only"),
        ({"p": eq, "c": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [N(1)]}},
         "One or more parameter values were invalid: Invalid number of argument(s) for the "
         "BETWEEN ComparisonOperator"),
        ({"p": eq, "c": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [N(5), N(1)]}},
         "The BETWEEN condition was provided a range where the lower bound is greater than the "
         "upper bound"),
        ({"p": eq, "c": {"ComparisonOperator": "LT", "AttributeValueList": [{"SS": ["a"]}]}},
         "One or more parameter values were invalid: ComparisonOperator LT is not valid for SS "
         "AttributeValue type"),
        ({"p": eq, "c": {"ComparisonOperator": "IN", "AttributeValueList": [S("b"), N(1)]}},
         "One or more parameter values were invalid: AttributeValues inside AttributeValueList "
         "must be of same type"),
        ({"p": {"ComparisonOperator": "EQ", "AttributeValueList": [N(1)]}},
         "One or more parameter values were invalid: Condition parameter type does not match "
         "schema type"),
    ]
    for conds, message in cases:
        refused(dynamodb, table_sn, dynamodb.query, "ValidationException", message,
                TableName=table_sn, KeyConditions=conds)


def test_filters_may_not_use_key_attributes(dynamodb, table_sn):
    # dynalite "hash key in FilterExpression", "range key in QueryFilter".
    p = random_string()
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "Filter Expression can only contain non-primary key attributes: Primary key "
            "attribute: c", TableName=table_sn, KeyConditionExpression="p = :p",
            FilterExpression="c = :n", ExpressionAttributeValues={":p": S(p), ":n": N(1)})
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "Filter Expression can only contain non-primary key attributes: Primary key "
            "attribute: p", TableName=table_sn, KeyConditionExpression="p = :p",
            FilterExpression="attribute_exists(p)", ExpressionAttributeValues={":p": S(p)})
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "QueryFilter can only contain non-primary key attributes: Primary key attribute: c",
            TableName=table_sn,
            KeyConditions={"p": {"ComparisonOperator": "EQ", "AttributeValueList": [S(p)]}},
            QueryFilter={"c": {"ComparisonOperator": "EQ", "AttributeValueList": [N(1)]}})


def test_projection_into_a_key_attribute_is_refused(dynamodb, table_sn):
    # dynalite db/index.js validateKeyPaths (recorded: "non-scalar index access").
    p = random_string()
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "Key attributes must be scalars; list random access '[]' and map lookup '.' are not "
            "allowed: Key: c", TableName=table_sn, KeyConditionExpression="p = :p",
            ExpressionAttributeValues={":p": S(p)}, ProjectionExpression="c.d")


def test_select_rules(dynamodb, table_sn):
    # DynamoDB Local's validateSelect texts; Query's COUNT + ProjectionExpression
    # carries the "1 validation error detected: " prefix (verified against
    # us-east-1 by ExtendDB's parity tests).
    p = random_string()
    base = dict(TableName=table_sn, KeyConditionExpression="p = :p",
                ExpressionAttributeValues={":p": S(p)})
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
            Select="ALL_PROJECTED_ATTRIBUTES", **base)
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "Must specify the AttributesToGet or ProjectionExpression when choosing to get "
            "SPECIFIC_ATTRIBUTES", Select="SPECIFIC_ATTRIBUTES", **base)
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES",
            Select="ALL_ATTRIBUTES", ProjectionExpression="x", **base)
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "1 validation error detected: Cannot specify the ProjectionExpression when choosing "
            "to get only the Count", Select="COUNT", ProjectionExpression="x", **base)
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "Cannot specify the AttributesToGet when choosing to get only the Count",
            TableName=table_sn, Select="COUNT", AttributesToGet=["x"],
            KeyConditions={"p": {"ComparisonOperator": "EQ", "AttributeValueList": [S(p)]}})


def test_exclusive_start_key_rules(dynamodb, table_sn):
    # dynalite test/query.js: "ExclusiveStartKey ... is invalid", "does not
    # match (range) schema", "out-of-bounds hash key", "non-matching range key",
    # "matching range but non-matching hash key".
    p = random_string()
    base = dict(TableName=table_sn, KeyConditionExpression="p = :p AND c > :n",
                ExpressionAttributeValues={":p": S(p), ":n": N(5)})
    cases = [
        ({"p": S(p)}, "The provided starting key is invalid"),
        ({"p": S(p), "z": N(1)}, "The provided starting key is invalid"),
        ({"p": S(p), "c": N(7), "z": N(1)}, "The provided starting key is invalid"),
        ({"p": S(p), "c": S("7")}, "The provided key element does not match the schema"),
        ({"p": S(p), "c": N(3)}, "The provided starting key does not match the range key predicate"),
        ({"p": S("other"), "c": N(7)},
         "The query can return at most one row and cannot be restarted"),
    ]
    for esk, message in cases:
        refused(dynamodb, table_sn, dynamodb.query, "ValidationException", message,
                ExclusiveStartKey=esk, **base)
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "The provided starting key is outside query boundaries based on provided conditions",
            TableName=table_sn, KeyConditionExpression="p = :p",
            ExpressionAttributeValues={":p": S(p)}, ExclusiveStartKey={"p": S("x"), "c": N(1)})
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "The provided starting key is invalid: One or more parameter values were invalid: "
            "Null attribute value types must have the value of true",
            TableName=table_sn, KeyConditionExpression="p = :p",
            ExpressionAttributeValues={":p": S(p)},
            ExclusiveStartKey={"p": S(p), "c": {"NULL": False}})


def test_request_shape_violations(raw, dynamodb, table_sn):
    # Model constraints in AWS's sentence form (dynalite "incorrect attributes").
    p = random_string()
    body = {"TableName": table_sn, "KeyConditionExpression": "p = :p",
            "ExpressionAttributeValues": {":p": S(p)}}
    # Query's Limit prints no value and keeps its request spelling, unlike
    # Scan's (nubo-db/dynamodb-conformance tier3 query "Limit of 0" and scan
    # "Limit of 0", both checked against AWS).
    refused_raw(raw, dynamodb, table_sn, "Query", dict(body, Limit=0), VALIDATION,
                "1 validation error detected: Value at 'Limit' failed to satisfy constraint: "
                "Member must have value greater than or equal to 1")
    refused_raw(raw, dynamodb, table_sn, "Query", dict(body, Select="hi"), VALIDATION,
                "1 validation error detected: Value 'hi' at 'select' failed to satisfy "
                "constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, "
                "ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]")
    refused_raw(raw, dynamodb, table_sn, "Query", dict(body, IndexName="a;"), VALIDATION,
                re.compile(r"2 validation errors detected: .*indexName.*"))


def test_unknown_index(dynamodb, table_sn):
    p = random_string()
    refused(dynamodb, table_sn, dynamodb.query, "ValidationException",
            "The table does not have the specified index: whatever", TableName=table_sn,
            IndexName="whatever", KeyConditionExpression="p = :p",
            ExpressionAttributeValues={":p": S(p)})


def test_gsi_rules_and_projection(dynamodb, make_table):
    # A GSI with KEYS_ONLY holds only keys: no ConsistentRead, no ALL_ATTRIBUTES
    # (dynalite "querying global index with ConsistentRead", "specifying
    # ALL_ATTRIBUTES when global index does not have ALL"); items come back with
    # the projected attributes, and LastEvaluatedKey names index and table keys.
    table = make_table(("p", "S"), ("c", "S"), AttributeDefinitions=[
        {"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "c", "AttributeType": "S"},
        {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "gidx", "KeySchema": [
            {"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    fill(dynamodb, table, [{"p": S(str(i)), "c": S("c"), "g": S("G"), "v": N(i)} for i in range(3)])
    base = dict(TableName=table, IndexName="gidx", KeyConditionExpression="g = :g",
                ExpressionAttributeValues={":g": S("G")})
    refused(dynamodb, table, dynamodb.query, "ValidationException",
            "Consistent reads are not supported on global secondary indexes", ConsistentRead=True,
            **base)
    refused(dynamodb, table, dynamodb.query, "ValidationException",
            "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not "
            "supported for global secondary index gidx because its projection type is not ALL",
            Select="ALL_ATTRIBUTES", **base)
    page = dynamodb.query(Limit=2, ReturnConsumedCapacity="INDEXES", **base)
    assert all(set(i) == {"p", "c", "g"} for i in page["Items"])
    assert set(page["LastEvaluatedKey"]) == {"p", "c", "g"}
    assert page["ConsumedCapacity"] == {"TableName": table, "CapacityUnits": 0.5,
                                        "Table": {"CapacityUnits": 0.0},
                                        "GlobalSecondaryIndexes": {"gidx": {"CapacityUnits": 0.5}}}
    # A filter on an attribute the index does not hold matches nothing.
    got = dynamodb.query(FilterExpression="attribute_exists(v)", **base)
    assert got["Count"] == 0 and got["ScannedCount"] == 3


def test_hash_only_query_cannot_be_restarted(dynamodb, table_s):
    # A Query of a table without a sort key reads at most one item, so an
    # ExclusiveStartKey naming the queried partition is refused (issue 29,
    # quoting "The provided exclusive start key is invalid: ExclusiveStartKey:
    # {p=AttributeValue: {S:...}}" from suites checked against AWS); one
    # naming another partition is outside the query's boundaries (dynalite).
    p = random_string()
    dynamodb.put_item(TableName=table_s, Item={"p": S(p), "a": S("x")})
    base = dict(TableName=table_s, KeyConditionExpression="p = :p",
                ExpressionAttributeValues={":p": S(p)})
    err = client_error(dynamodb.query, ExclusiveStartKey={"p": S(p)}, **base)
    assert_error(err, "ValidationException",
                 "The provided exclusive start key is invalid: ExclusiveStartKey: "
                 f"{{p=AttributeValue: {{S:{p}}}}}")
    err = client_error(dynamodb.query, ExclusiveStartKey={"p": S(p + "x")}, **base)
    assert_error(err, "ValidationException",
                 "The provided starting key is outside query boundaries based on provided "
                 "conditions")
    assert dynamodb.query(**base)["Items"] == [{"p": S(p), "a": S("x")}]
