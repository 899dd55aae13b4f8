# SPDX-License-Identifier: MIT
"""Scan: paging, parallel scan segments, filters, projections, Select and the
validation errors AWS answers.

Sources: dynalite test/scan.js and validations/scan.js (recorded against AWS),
scylladb test/alternator test_scan.py (written against AWS), DynamoDB Local's
error texts, and the API reference (Segment 0..999999, TotalSegments
1..1000000). Every refused call is followed by a check that nothing changed.
"""

import re

import pytest

from paging import all_pages, canonical, snapshot
from util import VALIDATION, assert_error, assert_raw_error, client_error, random_string

S = lambda v: {"S": v}  # noqa: E731
N = lambda v: {"N": str(v)}  # noqa: E731


def refused(client, table, call, code, message, **kwargs):
    before = snapshot(client, table)
    assert_error(client_error(call, **kwargs), code, message)
    assert snapshot(client, table) == before


@pytest.fixture(scope="module")
def scan_table(dynamodb, _session_tables):
    """A table of its own (Scan sees every item): 40 partitions, 1 to 4 items each."""
    name = _session_tables(("p", "S"), ("c", "N"))
    items = []
    for i in range(40):
        for j in range(1 + i % 4):
            items.append({"p": S(f"part{i}"), "c": N(j), "v": N(i * 10 + j), "odd": {"BOOL": j % 2 == 1}})
    for start in range(0, len(items), 25):
        dynamodb.batch_write_item(RequestItems={name: [
            {"PutRequest": {"Item": it}} for it in items[start:start + 25]]})
    return name, items


def test_scan_returns_every_item_once_with_and_without_limit(dynamodb, scan_table):
    # scylla test_scan.py test_scan_basic: every item once, whatever the Limit.
    name, items = scan_table
    for limit in (None, 1, 2, 7, 33, 100, 1000):
        kwargs = {"Limit": limit} if limit else {}
        got, pgs = all_pages(dynamodb.scan, TableName=name, **kwargs)
        assert canonical(got) == canonical(items), limit
        if limit:
            assert all(pg["ScannedCount"] <= limit for pg in pgs)


def test_scan_order_is_by_partition_hash_and_sort_key_within(dynamodb, scan_table):
    # Partitions come back in hash order - not in the order written - and the
    # items of one partition in sort-key order (scylla test_scan_sort_order_string).
    name, items = scan_table
    got, _ = all_pages(dynamodb.scan, TableName=name)
    parts = []
    for item in got:
        if not parts or parts[-1] != item["p"]["S"]:
            parts.append(item["p"]["S"])
    assert len(parts) == 40  # each partition is contiguous
    assert parts != [f"part{i}" for i in range(40)]
    for part in parts:
        cs = [int(i["c"]["N"]) for i in got if i["p"]["S"] == part]
        assert cs == sorted(cs)
    again, _ = all_pages(dynamodb.scan, TableName=name, Limit=5)
    assert again == got


@pytest.mark.parametrize("total", [1, 2, 3, 7, 17, 100, 1000000])
def test_parallel_scan_segments_cover_every_item_exactly_once(dynamodb, scan_table, total):
    # Segments are disjoint and together return the whole table (scylla
    # test_scan_parallel); each segment pages on its own.
    name, items = scan_table
    got = []
    segments = range(total) if total <= 100 else [0, 1, total // 2, total - 1]
    for segment in segments:
        seg_items, _ = all_pages(dynamodb.scan, TableName=name, Segment=segment,
                                 TotalSegments=total, Limit=3)
        got.extend(seg_items)
    if total <= 100:
        assert canonical(got) == canonical(items)
    else:
        assert len(got) <= len(items)


def test_parallel_scan_with_a_start_key_from_another_segment(dynamodb, scan_table):
    # dynalite actions/scan.js: "Invalid ExclusiveStartKey. Please use
    # ExclusiveStartKey with correct Segment."
    name, _ = scan_table
    first = None
    for segment in range(4):
        page = dynamodb.scan(TableName=name, Segment=segment, TotalSegments=4, Limit=1)
        if page.get("LastEvaluatedKey"):
            first = (segment, page["LastEvaluatedKey"])
            break
    assert first
    other = (first[0] + 1) % 4
    refused(dynamodb, name, dynamodb.scan, "ValidationException",
            "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use "
            f"ExclusiveStartKey with correct Segment. TotalSegments: 4 Segment: {other}",
            TableName=name, Segment=other, TotalSegments=4, ExclusiveStartKey=first[1])


def test_segment_parameter_rules(dynamodb, raw, scan_table):
    # dynalite test/scan.js "missing TotalSegments/Segment", "Segment more than
    # TotalSegments"; scylla test_scan_parallel_incorrect (TotalSegments 1000001).
    name, _ = scan_table
    refused(dynamodb, name, dynamodb.scan, "ValidationException",
            "The TotalSegments parameter is required but was not present in the request when "
            "Segment parameter is present", TableName=name, Segment=1)
    refused(dynamodb, name, dynamodb.scan, "ValidationException",
            "The Segment parameter is required but was not present in the request when parameter "
            "TotalSegments is present", TableName=name, TotalSegments=3)
    refused(dynamodb, name, dynamodb.scan, "ValidationException",
            "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
            "Segment: 3 is not less than TotalSegments: 3", TableName=name, Segment=3,
            TotalSegments=3)
    before = snapshot(dynamodb, name)
    assert_raw_error(raw("Scan", {"TableName": name, "Segment": 0, "TotalSegments": 1000001}),
                     VALIDATION,
                     "1 validation error detected: Value '1000001' at 'totalSegments' failed to "
                     "satisfy constraint: Member must have value less than or equal to 1000000")
    assert_raw_error(raw("Scan", {"TableName": name, "Segment": -1, "TotalSegments": 2}),
                     VALIDATION,
                     "1 validation error detected: Value '-1' at 'segment' failed to satisfy "
                     "constraint: Member must have value greater than or equal to 0")
    assert_raw_error(raw("Scan", {"TableName": name, "Limit": 0}), VALIDATION,
                     "1 validation error detected: Value '0' at 'limit' failed to satisfy "
                     "constraint: Member must have value greater than or equal to 1")
    assert snapshot(dynamodb, name) == before


def test_filters_projections_and_counts(dynamodb, scan_table):
    # FilterExpression / ScanFilter (with ConditionalOperator) apply after the
    # read: ScannedCount counts everything read, Count what matched; Scan may
    # filter on key attributes (scylla test_scan_with_key_equality_filtering).
    name, items = scan_table
    want = [i for i in items if i["odd"]["BOOL"]]
    got, pgs = all_pages(dynamodb.scan, TableName=name, FilterExpression="odd = :t",
                         ExpressionAttributeValues={":t": {"BOOL": True}}, Limit=9)
    assert canonical(got) == canonical(want)
    assert sum(pg["ScannedCount"] for pg in pgs) == len(items)
    assert sum(pg["Count"] for pg in pgs) == len(want)
    got, _ = all_pages(dynamodb.scan, TableName=name, ScanFilter={
        "p": {"ComparisonOperator": "EQ", "AttributeValueList": [S("part3")]},
        "c": {"ComparisonOperator": "EQ", "AttributeValueList": [N(0)]}},
        ConditionalOperator="OR", AttributesToGet=["v"])
    assert sorted(int(i["v"]["N"]) for i in got) == sorted(
        [30, 31, 32, 33] + [i * 10 for i in range(40) if i != 3])
    counted, pgs = all_pages(dynamodb.scan, TableName=name, Select="COUNT",
                             FilterExpression="c = :z", ExpressionAttributeValues={":z": N(3)})
    assert sum(pg["Count"] for pg in pgs) == 10 and all("Items" not in pg for pg in pgs)


def test_scan_paginator(dynamodb, scan_table):
    name, items = scan_table
    paginator = dynamodb.get_paginator("scan")
    for page_size in (1, 17, 1234):
        got = [i for page in paginator.paginate(TableName=name,
                                                PaginationConfig={"PageSize": page_size})
               for i in page["Items"]]
        assert canonical(got) == canonical(items)
    result = paginator.paginate(TableName=name, TotalSegments=2, Segment=1).build_full_result()
    assert 0 < len(result["Items"]) < len(items)


def test_scan_validation_messages(dynamodb, scan_table):
    # dynalite test/scan.js; DynamoDB Local's validateSelect.
    name, _ = scan_table
    refused(dynamodb, name, dynamodb.scan, "ResourceNotFoundException",
            "Requested resource not found", TableName="no_such_table_" + random_string())
    refused(dynamodb, name, dynamodb.scan, "ValidationException",
            "Can not use both expression and non-expression parameters in the same request: "
            "Non-expression parameters: {ScanFilter} Expression parameters: {FilterExpression}",
            TableName=name, FilterExpression="v = :v", ExpressionAttributeValues={":v": N(1)},
            ScanFilter={"v": {"ComparisonOperator": "NULL"}})
    refused(dynamodb, name, dynamodb.scan, "ValidationException",
            "ExpressionAttributeValues can only be specified when using expressions: "
            "FilterExpression is null", TableName=name, ExpressionAttributeValues={":v": N(1)})
    refused(dynamodb, name, dynamodb.scan, "ValidationException",
            "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
            TableName=name, Select="ALL_PROJECTED_ATTRIBUTES")
    refused(dynamodb, name, dynamodb.scan, "ValidationException",
            "Cannot specify the ProjectionExpression when choosing to get only the Count",
            TableName=name, Select="COUNT", ProjectionExpression="v")
    refused(dynamodb, name, dynamodb.scan, "ValidationException",
            "One or more parameter values were invalid: Duplicate value in attribute name: v",
            TableName=name, AttributesToGet=["v", "v"])
    refused(dynamodb, name, dynamodb.scan, "ValidationException",
            "The provided starting key is invalid: The provided key element does not match the "
            "schema", TableName=name, ExclusiveStartKey={"p": S("x")})
    refused(dynamodb, name, dynamodb.scan, "ValidationException",
            "The provided starting key is invalid: The provided key element does not match the "
            "schema", TableName=name, ExclusiveStartKey={"p": S("x"), "c": S("1")})
    refused(dynamodb, name, dynamodb.scan, "ValidationException",
            "Invalid FilterExpression: The expression can not be empty;", TableName=name,
            FilterExpression="")
    refused(dynamodb, name, dynamodb.scan, "ValidationException",
            "One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not "
            "valid for N AttributeValue type", TableName=name,
            ScanFilter={"v": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [N(1)]}})


def test_scan_capacity(dynamodb, scan_table):
    # One page of small items: the data read rounded up to 4 KB, halved for
    # eventually consistent reads.
    name, items = scan_table
    page = dynamodb.scan(TableName=name, ReturnConsumedCapacity="TOTAL", ConsistentRead=True)
    assert page["ConsumedCapacity"]["TableName"] == name
    assert page["ConsumedCapacity"]["CapacityUnits"] >= 1.0
    page2 = dynamodb.scan(TableName=name, ReturnConsumedCapacity="TOTAL")
    assert page2["ConsumedCapacity"]["CapacityUnits"] == page["ConsumedCapacity"]["CapacityUnits"] / 2


def test_scan_of_a_gsi_and_its_start_keys(dynamodb, make_table):
    # Scanning an index returns its (sparse) rows; LastEvaluatedKey carries the
    # index and table keys, and a start key of the wrong shape is refused
    # (dynalite "ExclusiveStartKey is invalid for global index").
    table = make_table(("p", "S"), AttributeDefinitions=[
        {"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "N"}],
        GlobalSecondaryIndexes=[{"IndexName": "byg", "KeySchema": [
            {"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}])
    for i in range(12):
        item = {"p": S(f"k{i}")}
        if i % 3:
            item["g"] = N(i % 2)
        dynamodb.put_item(TableName=table, Item=item)
    got, pgs = all_pages(dynamodb.scan, TableName=table, IndexName="byg", Limit=3)
    assert len(got) == 8 and all("g" in i for i in got)
    assert set(pgs[0]["LastEvaluatedKey"]) == {"p", "g"}
    refused(dynamodb, table, dynamodb.scan, "ValidationException",
            "The provided starting key is invalid", TableName=table, IndexName="byg",
            ExclusiveStartKey={"p": S("k1")})
    refused(dynamodb, table, dynamodb.scan, "ValidationException",
            "The provided key element does not match the schema", TableName=table,
            IndexName="byg", ExclusiveStartKey={"p": S("k1"), "g": S("1")})


def test_scan_of_a_tiny_table_costs_four_units(dynamodb, make_table):
    # A Scan request is charged at least 4 read units, 2 when eventually
    # consistent: a one-item table's Scan reports 4.0 / 2.0 where its Query
    # reports 1.0 / 0.5 (scylla test_returnconsumedcapacity.py
    # test_scan_consumed_capacity and test_query_consumed_capacity, run against
    # AWS; Stack Overflow question 70121087). Each segment of a parallel Scan
    # is a request of its own.
    name = make_table()
    dynamodb.put_item(TableName=name, Item={"p": {"S": "x"}, "animal": {"S": "cat"}})
    for consistent, units in ((True, 4.0), (False, 2.0)):
        resp = dynamodb.scan(TableName=name, ConsistentRead=consistent,
                             ReturnConsumedCapacity="TOTAL")
        assert resp["Count"] == 1
        assert resp["ConsumedCapacity"] == {"TableName": name, "CapacityUnits": units}
        resp = dynamodb.scan(TableName=name, ConsistentRead=consistent, Segment=1,
                             TotalSegments=2, ReturnConsumedCapacity="TOTAL")
        assert resp["ConsumedCapacity"]["CapacityUnits"] == units
        resp = dynamodb.query(TableName=name, ConsistentRead=consistent,
                              KeyConditionExpression="p = :p",
                              ExpressionAttributeValues={":p": {"S": "x"}},
                              ReturnConsumedCapacity="TOTAL")
        assert resp["ConsumedCapacity"]["CapacityUnits"] == units / 4
