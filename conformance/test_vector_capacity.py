# SPDX-License-Identifier: MIT
"""What vector indexes add to ConsumedCapacity and to DescribeBackup, through
raw signed requests (Debian's boto3 predates vector indexes).

What DynamoDB does (developer guide "Monitoring vector index capacity": "set
the ReturnConsumedCapacity parameter ... to INDEXES in your write API requests";
"For write operations (PutItem, UpdateItem, DeleteItem, BatchWriteItem,
TransactWriteItems), the response includes a VectorIndexes map in
ConsumedCapacity, keyed by index name. Each entry reports
VectorWriteRequestBytes"; "If a write does not change indexed attributes, it
incurs no vector write capacity"; the API reference's VectorCapacity:
"Reported for write operations that modify attributes indexed by a vector
index"): a write reports, under INDEXES only, the bytes of every vector index
whose entry it puts, changes or removes, and nothing for the others. The bytes
follow what dynoxide captured from the live service (2026-08): 4 bytes a
dimension plus the vector attribute's name plus the rest of the projected
entry at item size, the larger of the old and new entry for an update, at
least 1 KB per index; they never join CapacityUnits. DescribeBackup's
SourceTableFeatureDetails carries the table's VectorIndexes (VectorIndexInfo:
IndexName, VectorAttribute, SearchSchema, Projection, Dimensions,
DistanceFunction; API reference).
"""

import pytest

from util import delete_table_quietly, raw_call, unique_table_name, wait_active


def vec(values):
    return {"L": [{"N": str(x)} for x in values]}


def call_ok(client, op, body):
    status, data = raw_call(client, op, body)
    assert status == 200, data
    return data


def vindex(name, dims, projection, schema=None):
    v = {"IndexName": name, "VectorAttribute": {"AttributeName": "emb"},
         "Projection": projection, "Dimensions": dims, "DistanceFunction": "COSINE"}
    if schema:
        v["SearchSchema"] = schema
    return v


@pytest.fixture
def table(dynamodb):
    """Two indexes on `emb`: `big` (300 dimensions, INCLUDE note) and `keys`
    (KEYS_ONLY, same dimensions), on a table keyed by pk."""
    name = unique_table_name("veccap")
    call_ok(dynamodb, "CreateTable", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "VectorIndexes": [
            vindex("big", 300, {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["note"]}),
            vindex("keys", 300, {"ProjectionType": "KEYS_ONLY"})]})
    wait_active(dynamodb, name)
    yield name
    delete_table_quietly(dynamodb, name)


# The entry of pk "a" in `big`: the vector (4 x 300 + len("emb")), the key
# (len("pk") + len("a")) and note (len("note") + its length).
VECTOR = 4 * 300 + 3
KEY = 2 + 1


def put(client, table, item, mode="INDEXES"):
    return call_ok(client, "PutItem", {"TableName": table, "Item": item,
                                       "ReturnConsumedCapacity": mode})


def vector_bytes(data):
    return data["ConsumedCapacity"].get("VectorIndexes")


def test_put_reports_each_index_it_writes(dynamodb, table):
    data = put(dynamodb, table, {"pk": {"S": "a"}, "emb": vec([1] * 300), "note": {"S": "xyz"},
                                 "extra": {"S": "zzz"}})
    cc = data["ConsumedCapacity"]
    assert cc["TableName"] == table
    assert cc["CapacityUnits"] == cc["Table"]["CapacityUnits"]  # bytes never join the units
    assert vector_bytes(data) == {
        "big": {"VectorWriteRequestBytes": VECTOR + KEY + 4 + 3},
        "keys": {"VectorWriteRequestBytes": VECTOR + KEY}}


def test_total_and_none_report_no_vector_bytes(dynamodb, table):
    data = put(dynamodb, table, {"pk": {"S": "a"}, "emb": vec([1] * 300)}, mode="TOTAL")
    assert "VectorIndexes" not in data["ConsumedCapacity"]
    data = put(dynamodb, table, {"pk": {"S": "b"}, "emb": vec([1] * 300)}, mode="NONE")
    assert "ConsumedCapacity" not in data


def test_items_outside_the_index_cost_nothing(dynamodb, table):
    data = put(dynamodb, table, {"pk": {"S": "a"}, "note": {"S": "xyz"}})
    assert vector_bytes(data) is None


def test_update_charges_the_indexes_whose_entry_changed(dynamodb, table):
    put(dynamodb, table, {"pk": {"S": "a"}, "emb": vec([1] * 300), "note": {"S": "xyz"}})

    def update(expr, values):
        return call_ok(dynamodb, "UpdateItem", {
            "TableName": table, "Key": {"pk": {"S": "a"}}, "UpdateExpression": expr,
            "ExpressionAttributeValues": values, "ReturnConsumedCapacity": "INDEXES"})

    # An attribute no index projects: no vector bytes at all.
    assert vector_bytes(update("SET extra = :v", {":v": {"S": "q"}})) is None
    # note is in big's entry only; the larger (new) entry is charged.
    assert vector_bytes(update("SET note = :v", {":v": {"S": "xyzxyz"}})) == {
        "big": {"VectorWriteRequestBytes": VECTOR + KEY + 4 + 6}}
    # A new vector changes every index on it, KEYS_ONLY too.
    assert vector_bytes(update("SET emb = :v", {":v": vec([2] * 300)})) == {
        "big": {"VectorWriteRequestBytes": VECTOR + KEY + 4 + 6},
        "keys": {"VectorWriteRequestBytes": VECTOR + KEY}}
    # Removing the vector takes the item out of both: the old entries are charged.
    assert vector_bytes(update("REMOVE emb SET note = :v", {":v": {"S": "x"}})) == {
        "big": {"VectorWriteRequestBytes": VECTOR + KEY + 4 + 6},
        "keys": {"VectorWriteRequestBytes": VECTOR + KEY}}


def test_delete_charges_the_removed_entry(dynamodb, table):
    put(dynamodb, table, {"pk": {"S": "a"}, "emb": vec([1] * 300)})
    data = call_ok(dynamodb, "DeleteItem", {"TableName": table, "Key": {"pk": {"S": "a"}},
                                            "ReturnConsumedCapacity": "INDEXES"})
    assert vector_bytes(data) == {"big": {"VectorWriteRequestBytes": VECTOR + KEY},
                                  "keys": {"VectorWriteRequestBytes": VECTOR + KEY}}


def test_small_entries_cost_one_kilobyte(dynamodb):
    name = unique_table_name("veccapsmall")
    call_ok(dynamodb, "CreateTable", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "VectorIndexes": [vindex("vix", 3, {"ProjectionType": "ALL"})]})
    try:
        wait_active(dynamodb, name)
        data = put(dynamodb, name, {"pk": {"S": "a"}, "emb": vec([1, 2, 3])})
        assert vector_bytes(data) == {"vix": {"VectorWriteRequestBytes": 1024.0}}
    finally:
        delete_table_quietly(dynamodb, name)


def test_batch_and_transaction_writes_report_per_table(dynamodb, table):
    data = call_ok(dynamodb, "BatchWriteItem", {
        "RequestItems": {table: [
            {"PutRequest": {"Item": {"pk": {"S": "a"}, "emb": vec([1] * 300)}}},
            {"PutRequest": {"Item": {"pk": {"S": "b"}, "emb": vec([1] * 300)}}},
            {"PutRequest": {"Item": {"pk": {"S": "c"}}}}]},
        "ReturnConsumedCapacity": "INDEXES"})
    (cc,) = data["ConsumedCapacity"]
    assert cc["VectorIndexes"] == {"big": {"VectorWriteRequestBytes": 2 * (VECTOR + KEY)},
                                   "keys": {"VectorWriteRequestBytes": 2 * (VECTOR + KEY)}}
    data = call_ok(dynamodb, "TransactWriteItems", {
        "TransactItems": [
            {"Put": {"TableName": table, "Item": {"pk": {"S": "d"}, "emb": vec([1] * 300),
                                                  "note": {"S": "n"}}}},
            {"Delete": {"TableName": table, "Key": {"pk": {"S": "a"}}}}],
        "ReturnConsumedCapacity": "INDEXES"})
    (cc,) = data["ConsumedCapacity"]
    assert cc["VectorIndexes"] == {
        "big": {"VectorWriteRequestBytes": (VECTOR + KEY + 4 + 1) + (VECTOR + KEY)},
        "keys": {"VectorWriteRequestBytes": 2 * (VECTOR + KEY)}}


def test_describe_backup_lists_vector_indexes(dynamodb):
    name = unique_table_name("vecbackup")
    schema = [{"AttributeName": "user", "SearchSchemaElementType": "HASH"}]
    index = vindex("vix", 3, {"ProjectionType": "KEYS_ONLY"}, schema)
    call_ok(dynamodb, "CreateTable", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "user", "AttributeType": "S"}],
        "VectorIndexes": [index]})
    arn = None
    try:
        wait_active(dynamodb, name)
        arn = dynamodb.create_backup(TableName=name, BackupName="vecbackup")["BackupDetails"][
            "BackupArn"]
        data = call_ok(dynamodb, "DescribeBackup", {"BackupArn": arn})
        features = data["BackupDescription"]["SourceTableFeatureDetails"]
        assert features["VectorIndexes"] == [index]
    finally:
        if arn:
            dynamodb.delete_backup(BackupArn=arn)
        delete_table_quietly(dynamodb, name)


def test_describe_backup_without_vector_indexes(dynamodb):
    name = unique_table_name("vecbackupnone")
    dynamodb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                          KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    arn = None
    try:
        wait_active(dynamodb, name)
        arn = dynamodb.create_backup(TableName=name, BackupName="vecbackup")["BackupDetails"][
            "BackupArn"]
        data = call_ok(dynamodb, "DescribeBackup", {"BackupArn": arn})
        assert "VectorIndexes" not in data["BackupDescription"]["SourceTableFeatureDetails"]
    finally:
        if arn:
            dynamodb.delete_backup(BackupArn=arn)
        delete_table_quietly(dynamodb, name)
