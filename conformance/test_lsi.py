# SPDX-License-Identifier: MIT
"""Local secondary indexes: an alternative sort key within each partition,
projections that fetch from the table, item collection metrics, and the
likes design of SCHEMAS.md section 2 (LSIs on counters).

Sources (each test names its own):
  - scylladb test/alternator/test_lsi.py, written and run against AWS;
  - dynalite test/query.js (recorded AWS answers);
  - the DynamoDB API reference (API_Query.html Select, API_PutItem.html
    ItemCollectionMetrics) and developer guide (LSI.html);
  - the ack-api-quirks DynamoDB lab findings (DDB-TABLE-nnn).
"""

import pytest

from util import N, S, VALIDATION, assert_raw_error, attr_defs, client_error, index, random_string


@pytest.fixture
def lsi_table(make_table):
    """p (S) hash, c (S) range; LSIs on p with: "by_n" n (N) KEYS_ONLY,
    "by_s" s (S) INCLUDE [a], "by_m" m (N) ALL."""
    return make_table(("p", "S"), ("c", "S"),
                      AttributeDefinitions=attr_defs(p="S", c="S", n="N", s="S", m="N"),
                      LocalSecondaryIndexes=[index("by_n", "p", "n", "KEYS_ONLY"),
                                             index("by_s", "p", "s", "INCLUDE", ["a"]),
                                             index("by_m", "p", "m")])


def query(dynamodb, table, idx, p, **kwargs):
    return dynamodb.query(TableName=table, IndexName=idx, KeyConditionExpression="p = :p",
                          ExpressionAttributeValues={":p": S(p)}, **kwargs)


def test_lsi_orders_a_partition_by_its_sort_key(dynamodb, lsi_table):
    # scylla test_lsi.py::test_lsi_1 (against AWS): same partition, other order.
    p = random_string()
    for c, m in (("a", 3), ("b", 1), ("c", 2)):
        dynamodb.put_item(TableName=lsi_table, Item={"p": S(p), "c": S(c), "m": N(m)})
    got = query(dynamodb, lsi_table, "by_m", p)["Items"]
    assert [i["c"]["S"] for i in got] == ["b", "c", "a"]
    got = query(dynamodb, lsi_table, "by_m", p, ScanIndexForward=False)["Items"]
    assert [i["c"]["S"] for i in got] == ["a", "c", "b"]


def test_lsi_allows_consistent_reads(dynamodb, lsi_table):
    # Only GSIs refuse ConsistentRead (scylla test_lsi.py::test_lsi_consistent_read).
    p = random_string()
    dynamodb.put_item(TableName=lsi_table, Item={"p": S(p), "c": S("c"), "m": N(1)})
    assert query(dynamodb, lsi_table, "by_m", p, ConsistentRead=True)["Count"] == 1


def test_lsi_is_sparse(dynamodb, lsi_table):
    # Items without the LSI sort key are not in the LSI (scylla
    # test_lsi.py::test_lsi_missing_attribute).
    p = random_string()
    dynamodb.put_item(TableName=lsi_table, Item={"p": S(p), "c": S("1"), "n": N(1)})
    dynamodb.put_item(TableName=lsi_table, Item={"p": S(p), "c": S("2")})
    assert query(dynamodb, lsi_table, "by_n", p)["Count"] == 1
    assert dynamodb.query(TableName=lsi_table, KeyConditionExpression="p = :p",
                          ExpressionAttributeValues={":p": S(p)})["Count"] == 2


def test_lsi_returns_projected_attributes_by_default(dynamodb, lsi_table):
    # Without Select an index read returns ALL_PROJECTED_ATTRIBUTES (API_Query.html
    # Select): the index key, the table key and NonKeyAttributes.
    p = random_string()
    item = {"p": S(p), "c": S("c"), "n": N(1), "s": S("s"), "a": S("A"), "z": S("Z")}
    dynamodb.put_item(TableName=lsi_table, Item=item)
    assert query(dynamodb, lsi_table, "by_n", p)["Items"] == [
        {"p": S(p), "c": S("c"), "n": N(1)}]
    assert query(dynamodb, lsi_table, "by_s", p)["Items"] == [
        {"p": S(p), "c": S("c"), "s": S("s"), "a": S("A")}]


def test_lsi_fetches_unprojected_attributes_from_the_table(dynamodb, lsi_table):
    # "If any of the requested attributes are not projected into the local
    # secondary index, DynamoDB fetches each of these attributes from the parent
    # table. This extra fetching incurs additional throughput cost" (API_Query.html
    # Select); Select ALL_ATTRIBUTES fetches whole items (dynalite test/query.js
    # "should return all attributes when specified for secondary indexes":
    # the table is charged as well as the index).
    p = random_string()
    item = {"p": S(p), "c": S("c"), "n": N(1), "s": S("s"), "a": S("A"), "z": S("Z")}
    dynamodb.put_item(TableName=lsi_table, Item=item)
    resp = query(dynamodb, lsi_table, "by_n", p, Select="ALL_ATTRIBUTES",
                 ReturnConsumedCapacity="INDEXES")
    assert resp["Items"] == [item]
    assert resp["ConsumedCapacity"]["Table"]["CapacityUnits"] > 0
    assert resp["ConsumedCapacity"]["LocalSecondaryIndexes"]["by_n"]["CapacityUnits"] > 0
    resp = query(dynamodb, lsi_table, "by_n", p, ProjectionExpression="c, z",
                 ReturnConsumedCapacity="INDEXES")
    assert resp["Items"] == [{"c": S("c"), "z": S("Z")}]
    assert resp["ConsumedCapacity"]["Table"]["CapacityUnits"] > 0
    # Only projected attributes asked for: the index alone is read.
    resp = query(dynamodb, lsi_table, "by_s", p, ProjectionExpression="a, s",
                 ReturnConsumedCapacity="INDEXES")
    assert resp["Items"] == [{"a": S("A"), "s": S("s")}]
    assert resp["ConsumedCapacity"]["Table"]["CapacityUnits"] == 0.0


def test_lsi_filter_on_an_unprojected_attribute(dynamodb, lsi_table):
    # A filter may use attributes the LSI does not store: they are fetched
    # (developerguide/LSI.html "Attribute projections").
    p = random_string()
    dynamodb.put_item(TableName=lsi_table, Item={"p": S(p), "c": S("1"), "n": N(1), "z": S("y")})
    dynamodb.put_item(TableName=lsi_table, Item={"p": S(p), "c": S("2"), "n": N(2), "z": S("n")})
    resp = dynamodb.query(TableName=lsi_table, IndexName="by_n", FilterExpression="z = :z",
                          KeyConditionExpression="p = :p",
                          ExpressionAttributeValues={":p": S(p), ":z": S("y")})
    assert resp["Count"] == 1 and resp["ScannedCount"] == 2
    assert resp["Items"] == [{"p": S(p), "c": S("1"), "n": N(1)}]


def test_lsi_select_all_attributes_is_allowed(dynamodb, lsi_table):
    # Unlike a GSI (test_gsi.py), an LSI with any projection serves
    # ALL_ATTRIBUTES by fetching (dynalite test/query.js).
    p = random_string()
    item = {"p": S(p), "c": S("c"), "s": S("s"), "z": S("Z")}
    dynamodb.put_item(TableName=lsi_table, Item=item)
    assert dynamodb.scan(TableName=lsi_table, IndexName="by_s", Select="ALL_ATTRIBUTES",
                         FilterExpression="p = :p",
                         ExpressionAttributeValues={":p": S(p)})["Items"] == [item]


def test_item_collection_metrics_on_writes(dynamodb, lsi_table, make_table):
    # ReturnItemCollectionMetrics SIZE on a table with an LSI reports the
    # partition key and the size range in GB; small collections read [0.0, 1.0]
    # (API_PutItem.html ItemCollectionMetrics; the ack-api-quirks catalogue).
    # A table without an LSI returns none.
    p = random_string()
    key = {"p": S(p), "c": S("c")}
    want = {"ItemCollectionKey": {"p": S(p)}, "SizeEstimateRangeGB": [0.0, 1.0]}
    resp = dynamodb.put_item(TableName=lsi_table, Item={**key, "n": N(1)},
                             ReturnItemCollectionMetrics="SIZE")
    assert resp["ItemCollectionMetrics"] == want
    resp = dynamodb.update_item(TableName=lsi_table, Key=key, UpdateExpression="SET n = :n",
                                ExpressionAttributeValues={":n": N(2)},
                                ReturnItemCollectionMetrics="SIZE")
    assert resp["ItemCollectionMetrics"] == want
    resp = dynamodb.delete_item(TableName=lsi_table, Key=key, ReturnItemCollectionMetrics="SIZE")
    assert resp["ItemCollectionMetrics"] == want
    resp = dynamodb.put_item(TableName=lsi_table, Item={**key, "n": N(1)})
    assert "ItemCollectionMetrics" not in resp
    plain = make_table(("p", "S"))
    resp = dynamodb.put_item(TableName=plain, Item={"p": S(p)}, ReturnItemCollectionMetrics="SIZE")
    assert "ItemCollectionMetrics" not in resp


def test_lsi_writes_are_charged_to_the_lsi(dynamodb, lsi_table):
    # developerguide/LSI.html#LSI.ThroughputConsiderations.Writes: entering an
    # LSI costs one write there, itemized under LocalSecondaryIndexes.
    p = random_string()
    resp = dynamodb.put_item(TableName=lsi_table, Item={"p": S(p), "c": S("c"), "m": N(1)},
                             ReturnConsumedCapacity="INDEXES")
    cc = resp["ConsumedCapacity"]
    assert cc["Table"]["CapacityUnits"] == 1.0
    assert set(cc["LocalSecondaryIndexes"]) == {"by_m"}
    assert cc["LocalSecondaryIndexes"]["by_m"]["CapacityUnits"] == 1.0
    assert cc["CapacityUnits"] == 2.0


def test_lsi_cannot_be_deleted_like_a_gsi(dynamodb, lsi_table):
    # GlobalSecondaryIndexUpdates only knows GSIs; an LSI name is refused and the
    # LSI stays (scylla test_gsi_updatetable.py::test_gsi_delete_with_lsi:
    # ResourceNotFoundException or ValidationException).
    err = client_error(dynamodb.update_table, TableName=lsi_table,
                       GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_n"}}])
    assert err.response["Error"]["Code"] in ("ResourceNotFoundException", "ValidationException")
    names = [i["IndexName"] for i in
             dynamodb.describe_table(TableName=lsi_table)["Table"]["LocalSecondaryIndexes"]]
    assert names == ["by_n", "by_s", "by_m"]


def test_lsi_cannot_be_added_by_update_table(raw, dynamodb, make_table):
    # LSIs are declared at CreateTable only: UpdateTable has no member for them
    # (ack-api-quirks DDB-TABLE-357; SCHEMAS.md section 2).
    name = make_table(("p", "S"), ("c", "S"))
    resp = raw("UpdateTable", {"TableName": name, "AttributeDefinitions": attr_defs(l="N"),
                               "LocalSecondaryIndexes": [index("late", "p", "l")]})
    assert_raw_error(resp, VALIDATION)
    assert resp.data["message"].startswith("At least one of ProvisionedThroughput, BillingMode")
    assert "LocalSecondaryIndexes" not in dynamodb.describe_table(TableName=name)["Table"]


# --------------------------------------------------------------------------
# The likes design (SCHEMAS.md section 2): LSIs on counters
# --------------------------------------------------------------------------


def test_likes_unread_notifications_by_lsi(dynamodb, make_table):
    # notification-fav-to-my-comment-unread: userId hash, commentId range, LSI on
    # userId + numFavorite; unread = Query the LSI with numFavorite >= 1. The
    # unread-count table has an LSI on userId + count; the total is the sum.
    unread = make_table(("userId", "S"), ("commentId", "S"),
                        AttributeDefinitions=attr_defs(userId="S", commentId="S", numFavorite="N"),
                        LocalSecondaryIndexes=[index("userId-numFavorite-index", "userId",
                                                     "numFavorite")])
    counts = make_table(("userId", "S"), ("commentId", "S"),
                        AttributeDefinitions=attr_defs(userId="S", commentId="S", count="N"),
                        LocalSecondaryIndexes=[index("userId-count-index", "userId", "count")])
    user = random_string()
    for comment in ("c1", "c2", "c3"):
        dynamodb.put_item(TableName=unread, Item={
            "userId": S(user), "commentId": S(comment), "numFavorite": N(0),
            "favUserIds": {"L": []}, "lastupdate": N(0)})
        dynamodb.put_item(TableName=counts, Item={"userId": S(user), "commentId": S(comment),
                                                  "count": N(0)})
    # Two likes on c1, one on c3.
    for comment, fan in (("c1", "u1"), ("c1", "u2"), ("c3", "u3")):
        dynamodb.update_item(
            TableName=unread, Key={"userId": S(user), "commentId": S(comment)},
            UpdateExpression="SET #0 = :0, #1 = #1 + :1, #2 = list_append(#2, :2)",
            ExpressionAttributeNames={"#0": "lastupdate", "#1": "numFavorite", "#2": "favUserIds"},
            ExpressionAttributeValues={":0": N(1), ":1": N(1), ":2": {"L": [S(fan)]}})
        dynamodb.update_item(
            TableName=counts, Key={"userId": S(user), "commentId": S(comment)},
            UpdateExpression="SET #0 = #0 + :0", ExpressionAttributeNames={"#0": "count"},
            ExpressionAttributeValues={":0": N(1)})
    resp = dynamodb.query(TableName=unread, IndexName="userId-numFavorite-index",
                          KeyConditionExpression="userId = :u AND numFavorite >= :one",
                          ExpressionAttributeValues={":u": S(user), ":one": N(1)})
    assert [(i["commentId"]["S"], i["numFavorite"]["N"]) for i in resp["Items"]] == [
        ("c3", "1"), ("c1", "2")]
    assert resp["Items"][1]["favUserIds"] == {"L": [S("u1"), S("u2")]}
    resp = dynamodb.query(TableName=counts, IndexName="userId-count-index",
                          KeyConditionExpression="userId = :u AND #c >= :one",
                          ExpressionAttributeNames={"#c": "count"},
                          ExpressionAttributeValues={":u": S(user), ":one": N(1)})
    assert sum(int(i["count"]["N"]) for i in resp["Items"]) == 3
