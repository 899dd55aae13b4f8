# SPDX-License-Identifier: MIT
"""Vector indexes (CreateTable VectorIndexes, UpdateTable VectorIndexUpdates,
DescribeTable VectorIndexes) and SearchVectors, through raw signed requests:
Debian's boto3 predates both.

What DynamoDB does (API reference: SearchVectors, VectorIndex,
VectorIndexDescription; developer guide "Vector search: requirements and
limitations"; AWS's agent toolkit reference vector-search.md, which quotes the
service's errors verbatim; error texts captured from the live service by the
dynoxide emulator, 2026-08): a vector index lives only on an on-demand table,
over a list-of-numbers attribute of 1..4096 dimensions that must not be in
AttributeDefinitions; its SearchSchema has at most one HASH and INLINE_FILTER
elements, each defined in AttributeDefinitions. A write whose vector attribute
is present but not a list of Dimensions 32-bit floats, or whose HASH/filter
attribute has the wrong type, is refused; an item without the vector attribute
is written and left out of the index. SearchVectors returns the TopK (1..100)
nearest items with a Score: COSINE 1 - cos (0..2, smaller first), EUCLIDEAN the
distance (smaller first), DOT_PRODUCT the dot product (larger first); the
HASH value is required in SearchConditionExpression, which takes only
equalities; the vector attribute is left out of results unless named. Query,
Scan and PartiQL refuse vector indexes. AWS's search is approximate and orders
equal scores arbitrarily: the tests here use well-separated scores, except the
tie test, which pins ddbemu's documented rule (table key order).
"""

import pytest

from util import (DDB, VALIDATION, delete_table_quietly, raw_call, unique_table_name,
                  wait_active)

INVALID = "One or more parameter values were invalid: "


def vec(*xs):
    return {"L": [{"N": str(x)} for x in xs]}


def qvec(*xs):
    return [{"N": str(x)} for x in xs]


def vindex(name="vix", attr="emb", dims=3, fn="COSINE", schema=None, projection=None):
    v = {"IndexName": name, "VectorAttribute": {"AttributeName": attr},
         "Projection": projection or {"ProjectionType": "ALL"}, "Dimensions": dims,
         "DistanceFunction": fn}
    if schema is not None:
        v["SearchSchema"] = schema
    return v


def create_body(name, indexes, defs=None, billing="PAY_PER_REQUEST"):
    body = {"TableName": name, "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}] + (defs or []),
            "VectorIndexes": indexes}
    if billing == "PAY_PER_REQUEST":
        body["BillingMode"] = billing
    else:
        body["ProvisionedThroughput"] = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
    return body


def call_ok(client, op, body):
    status, data = raw_call(client, op, body)
    assert status == 200, data
    return data


def call_err(client, op, body, type_, message):
    status, data = raw_call(client, op, body)
    assert status == 400, data
    assert data["__type"] == type_, data
    assert data["message"] == message, data
    return data


@pytest.fixture
def table(dynamodb):
    """A table with a COSINE index partitioned by `user`, with a `cat` filter."""
    name = unique_table_name("vec")
    defs = [{"AttributeName": "user", "AttributeType": "S"},
            {"AttributeName": "cat", "AttributeType": "N"}]
    schema = [{"AttributeName": "user", "SearchSchemaElementType": "HASH"},
              {"AttributeName": "cat", "SearchSchemaElementType": "INLINE_FILTER"}]
    call_ok(dynamodb, "CreateTable", create_body(name, [vindex(schema=schema)], defs))
    wait_active(dynamodb, name)
    yield name
    delete_table_quietly(dynamodb, name)


def put(client, table, pk, emb=None, **attrs):
    item = {"pk": {"S": pk}}
    if emb is not None:
        item["emb"] = vec(*emb)
    for k, v in attrs.items():
        item[k] = v
    call_ok(client, "PutItem", {"TableName": table, "Item": item})


def search(client, table, vector, top_k=10, index="vix", user="u1", **extra):
    body = {"TableName": table, "IndexName": index, "SearchVector": qvec(*vector), "TopK": top_k}
    if user is not None:
        body["SearchConditionExpression"] = "#u = :u"
        body["ExpressionAttributeNames"] = {"#u": "user"}
        body["ExpressionAttributeValues"] = {":u": {"S": user}}
    body.update(extra)
    return body


def keys_of(data):
    return [r["Item"]["pk"]["S"] for r in data["SearchResults"]]


# ---- definition ----

def test_create_and_describe(dynamodb, table):
    # VectorIndexDescription members in the model's order; ACTIVE once created.
    desc = dynamodb.describe_table(TableName=table)["Table"]
    status, data = raw_call(dynamodb, "DescribeTable", {"TableName": table})
    vi = data["Table"]["VectorIndexes"]
    assert len(vi) == 1
    assert list(vi[0]) == ["IndexName", "SearchSchema", "Projection", "VectorAttribute",
                           "Dimensions", "DistanceFunction", "IndexStatus", "IndexSizeBytes",
                           "ItemCount", "IndexArn"]
    assert vi[0]["IndexName"] == "vix"
    assert vi[0]["VectorAttribute"] == {"AttributeName": "emb"}
    assert vi[0]["Dimensions"] == 3
    assert vi[0]["DistanceFunction"] == "COSINE"
    assert vi[0]["IndexStatus"] == "ACTIVE"
    assert "Backfilling" not in vi[0]
    assert vi[0]["IndexArn"] == desc["TableArn"] + "/index/vix"
    # The SearchSchema attributes are the table's AttributeDefinitions, the vector one is not.
    names = sorted(d["AttributeName"] for d in data["Table"]["AttributeDefinitions"])
    assert names == ["cat", "pk", "user"]


@pytest.mark.parametrize("indexes,defs,billing,message", [
    ([vindex()], [], "PROVISIONED",
     INVALID + "Vector indexes are only supported for PAY_PER_REQUEST tables"),
    ([], [], "PAY_PER_REQUEST", INVALID + "List of VectorIndexes is empty"),
    ([vindex(dims=4097)], [], "PAY_PER_REQUEST",
     INVALID + "Number of dimensions must be between 1 and 4096 inclusive."),
    ([vindex(attr="e2")], [{"AttributeName": "e2", "AttributeType": "S"}], "PAY_PER_REQUEST",
     INVALID + "Conflicting attribute definition for 'e2'. An attribute cannot be defined in "
     "AttributeDefinitions when used as a VectorAttribute."),
    ([vindex(schema=[{"AttributeName": "nope", "SearchSchemaElementType": "HASH"}])], [],
     "PAY_PER_REQUEST",
     INVALID + "One element in SearchSchema is not defined in attribute definitions"),
    ([vindex(schema=[{"AttributeName": "a", "SearchSchemaElementType": "HASH"},
                     {"AttributeName": "b", "SearchSchemaElementType": "HASH"}])],
     [{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "S"}],
     "PAY_PER_REQUEST",
     INVALID + "Value '2' at 'SearchSchema' failed to satisfy constraint: Member must have HASH "
     "count less than or equal to 1"),
    ([vindex(schema=[{"AttributeName": "a", "SearchSchemaElementType": "HASH"},
                     {"AttributeName": "a", "SearchSchemaElementType": "INLINE_FILTER"}])],
     [{"AttributeName": "a", "AttributeType": "S"}], "PAY_PER_REQUEST",
     INVALID + "SearchSchema contains a duplicate AttributeName"),
    ([vindex(), vindex()], [], "PAY_PER_REQUEST", INVALID + "Duplicate index name: vix"),
    ([vindex(), vindex(name="vix2", dims=4)], [], "PAY_PER_REQUEST",
     INVALID + "Conflicting attribute definition for 'emb'. All VectorIndexes on the same "
     "vector attribute must use the same dimensions."),
    ([vindex(name=f"vix{i}") for i in range(6)], [], "PAY_PER_REQUEST",
     INVALID + "VectorIndex count exceeds the per-table limit of 5"),
])
def test_create_refused(dynamodb, indexes, defs, billing, message):
    name = unique_table_name("vec")
    call_err(dynamodb, "CreateTable", create_body(name, indexes, defs, billing),
             VALIDATION, message)
    status, _ = raw_call(dynamodb, "DescribeTable", {"TableName": name})
    assert status == 400  # nothing was created


def test_create_shape_errors(dynamodb):
    # Coral's envelope with the member paths of the model (dynoxide's captures).
    name = unique_table_name("vec")
    bad = vindex(name="vx", dims=0, fn="MANHATTAN")
    status, data = raw_call(dynamodb, "CreateTable", create_body(name, [bad]))
    assert status == 400 and data["__type"] == VALIDATION
    msg = data["message"]
    assert msg.startswith("3 validation errors detected: "), msg
    assert ("Value 'vx' at 'vectorIndexes.1.member.indexName' failed to satisfy constraint: "
            "Member must have length greater than or equal to 3") in msg
    assert ("Value '0' at 'vectorIndexes.1.member.dimensions' failed to satisfy constraint: "
            "Member must have value greater than or equal to 1") in msg
    assert ("Value 'MANHATTAN' at 'vectorIndexes.1.member.distanceFunction' failed to satisfy "
            "constraint: Member must satisfy enum value set: [COSINE, DOT_PRODUCT, EUCLIDEAN]"
            ) in msg


def test_update_table_create_and_delete(dynamodb, table):
    put(dynamodb, table, "a", [1, 0, 0], user={"S": "u1"})
    put(dynamodb, table, "bad", user={"S": "u1"}, emb2={"S": "not a vector"})
    data = call_ok(dynamodb, "UpdateTable", {"TableName": table, "VectorIndexUpdates": [
        {"Create": vindex(name="euc", attr="emb", dims=3, fn="EUCLIDEAN")}]})
    assert data["TableDescription"]["TableStatus"] == "UPDATING"
    created = [v for v in data["TableDescription"]["VectorIndexes"] if v["IndexName"] == "euc"]
    assert created[0]["IndexStatus"] == "CREATING"
    wait_active(dynamodb, table)
    # The existing item was indexed (backfill); searching the new index finds it.
    found = call_ok(dynamodb, "SearchVectors", search(dynamodb, table, [1, 0, 0], index="euc",
                                                      user=None))
    assert keys_of(found) == ["a"]
    assert found["SearchResults"][0]["Score"] == 0.0
    data = call_ok(dynamodb, "UpdateTable", {"TableName": table, "VectorIndexUpdates": [
        {"Delete": {"IndexName": "euc"}}]})
    deleted = [v for v in data["TableDescription"]["VectorIndexes"] if v["IndexName"] == "euc"]
    assert deleted[0]["IndexStatus"] == "DELETING"
    wait_active(dynamodb, table)


def test_update_table_refused(dynamodb, table):
    call_err(dynamodb, "UpdateTable", {"TableName": table, "VectorIndexUpdates": [
        {"Create": vindex(name="vi1")}, {"Create": vindex(name="vi2")}]}, DDB + "LimitExceededException",
        "Subscriber limit exceeded: Only 1 online index can be created or deleted "
        "simultaneously per table")
    call_err(dynamodb, "UpdateTable", {"TableName": table, "VectorIndexUpdates": [
        {"Create": vindex(name="vi1"), "Delete": {"IndexName": "vix"}}]}, VALIDATION,
        INVALID + "Only one vector index action is allowed per VectorIndexUpdate object")
    call_err(dynamodb, "UpdateTable", {"TableName": table, "VectorIndexUpdates": [
        {"Delete": {"IndexName": "nope"}}]}, DDB + "ResourceNotFoundException",
        f"Requested resource not found: Index nope for table {table}")
    call_err(dynamodb, "UpdateTable", {"TableName": table, "VectorIndexUpdates": [
        {"Create": vindex()}]}, VALIDATION, "Attempting to create an index which already exists")
    call_err(dynamodb, "UpdateTable", {"TableName": table, "VectorIndexUpdates": [
        {"Create": vindex(name="vi4", dims=4)}]}, VALIDATION,
        INVALID + "Conflicting attribute definition for 'emb'. All VectorIndexes on the same "
        "vector attribute must use the same dimensions.")
    call_err(dynamodb, "UpdateTable", {"TableName": table, "BillingMode": "PROVISIONED",
                                       "ProvisionedThroughput": {"ReadCapacityUnits": 1,
                                                                 "WriteCapacityUnits": 1}},
             VALIDATION, INVALID + "Tables with vector indexes must be in PAY_PER_REQUEST mode")
    status, data = raw_call(dynamodb, "DescribeTable", {"TableName": table})
    assert [v["IndexName"] for v in data["Table"]["VectorIndexes"]] == ["vix"]
    assert data["Table"]["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"


# ---- writes ----

@pytest.mark.parametrize("emb,message", [
    ({"S": "x"}, "Invalid type for parameter emb, Expected: 32-bit floating point number list "
                 "IndexName: vix"),
    (vec(1, 2), "Invalid size for parameter emb, Expected: 3, Actual: 2 IndexName: vix"),
    ({"L": [{"N": "1"}, {"S": "2"}, {"N": "3"}]},
     "Invalid type for parameter emb[1], Expected: 32-bit floating point number, Actual: S. "
     "IndexName: vix"),
])
def test_write_refused(dynamodb, table, emb, message):
    item = {"pk": {"S": "w"}, "user": {"S": "u1"}, "emb": emb}
    call_err(dynamodb, "PutItem", {"TableName": table, "Item": item}, VALIDATION,
             "One or more parameter values were invalid. " + message)
    assert "Item" not in call_ok(dynamodb, "GetItem", {"TableName": table,
                                                       "Key": {"pk": {"S": "w"}}})


def test_write_refused_schema_type(dynamodb, table):
    item = {"pk": {"S": "w"}, "user": {"N": "1"}, "emb": vec(1, 0, 0)}
    call_err(dynamodb, "PutItem", {"TableName": table, "Item": item}, VALIDATION,
             "One or more parameter values were invalid. Attribute 'user' type mismatch. "
             "Expected: S, Actual: N. IndexName: vix")


def test_update_and_transaction_writes_checked(dynamodb, table):
    put(dynamodb, table, "a", [1, 0, 0], user={"S": "u1"})
    call_err(dynamodb, "UpdateItem", {"TableName": table, "Key": {"pk": {"S": "a"}},
                                      "UpdateExpression": "SET emb = :e",
                                      "ExpressionAttributeValues": {":e": vec(1, 2)}},
             VALIDATION, "One or more parameter values were invalid. Invalid size for parameter "
             "emb, Expected: 3, Actual: 2 IndexName: vix")
    # One bad action refuses the whole transaction: the good put is not made.
    good = {"Put": {"TableName": table, "Item": {"pk": {"S": "t1"}, "user": {"S": "u1"},
                                                 "emb": vec(0, 1, 0)}}}
    bad = {"Put": {"TableName": table, "Item": {"pk": {"S": "t2"}, "emb": {"N": "1"}}}}
    status, data = raw_call(dynamodb, "TransactWriteItems", {"TransactItems": [good, bad]})
    assert status == 400, data
    assert "Item" not in call_ok(dynamodb, "GetItem", {"TableName": table,
                                                       "Key": {"pk": {"S": "t1"}}})


def test_items_without_vector_or_hash_are_not_indexed(dynamodb, table):
    put(dynamodb, table, "novec", user={"S": "u1"})
    put(dynamodb, table, "nohash", [1, 0, 0])
    put(dynamodb, table, "a", [1, 0, 0], user={"S": "u1"})
    assert keys_of(call_ok(dynamodb, "SearchVectors", search(dynamodb, table, [1, 0, 0]))) == ["a"]
    # REMOVE of the vector de-indexes; DeleteItem too.
    call_ok(dynamodb, "UpdateItem", {"TableName": table, "Key": {"pk": {"S": "a"}},
                                     "UpdateExpression": "REMOVE emb"})
    assert keys_of(call_ok(dynamodb, "SearchVectors", search(dynamodb, table, [1, 0, 0]))) == []
    put(dynamodb, table, "a", [1, 0, 0], user={"S": "u1"})
    call_ok(dynamodb, "DeleteItem", {"TableName": table, "Key": {"pk": {"S": "a"}}})
    assert keys_of(call_ok(dynamodb, "SearchVectors", search(dynamodb, table, [1, 0, 0]))) == []


# ---- search ----

def test_cosine_results_and_order(dynamodb, table):
    put(dynamodb, table, "same", [2, 0, 0], user={"S": "u1"}, cat={"N": "1"}, note={"S": "n"})
    put(dynamodb, table, "near", [3, 4, 0], user={"S": "u1"}, cat={"N": "2"})
    put(dynamodb, table, "orth", [0, 0, 5], user={"S": "u1"}, cat={"N": "1"})
    put(dynamodb, table, "opp", [-1, 0, 0], user={"S": "u1"}, cat={"N": "1"})
    put(dynamodb, table, "other", [1, 0, 0], user={"S": "u2"}, cat={"N": "1"})
    data = call_ok(dynamodb, "SearchVectors", search(dynamodb, table, [1, 0, 0]))
    assert keys_of(data) == ["same", "near", "orth", "opp"]
    scores = [r["Score"] for r in data["SearchResults"]]
    assert scores[0] == 0.0 and scores[2] == 1.0 and scores[3] == 2.0
    assert abs(scores[1] - 0.4) < 1e-6
    # The vector attribute is left out unless named; the other attributes come (ALL).
    assert data["SearchResults"][0]["Item"] == {"pk": {"S": "same"}, "user": {"S": "u1"},
                                                "cat": {"N": "1"}, "note": {"S": "n"}}
    assert "ConsumedCapacity" not in data and "Count" not in data
    # TopK cuts; an INLINE_FILTER equality filters (numbers compare numerically).
    data = call_ok(dynamodb, "SearchVectors", search(
        dynamodb, table, [1, 0, 0], top_k=2, SearchConditionExpression="#u = :u AND cat = :c",
        ExpressionAttributeValues={":u": {"S": "u1"}, ":c": {"N": "1.0"}}))
    assert keys_of(data) == ["same", "orth"]


def test_projection_expression_and_capacity(dynamodb, table):
    put(dynamodb, table, "a", [1, 0.5, 0], user={"S": "u1"}, note={"S": "n"})
    data = call_ok(dynamodb, "SearchVectors", search(
        dynamodb, table, [1, 0, 0], ProjectionExpression="pk, emb, absent_attr",
        ReturnConsumedCapacity="TOTAL"))
    assert data["SearchResults"][0]["Item"] == {"pk": {"S": "a"}, "emb": vec(1, 0.5, 0)}
    assert data["ConsumedCapacity"]["VectorSearchRequestBytes"] >= 1024


@pytest.mark.parametrize("fn,vectors,want", [
    ("EUCLIDEAN", {"a": [1, 0, 0], "b": [10, 0, 0], "c": [-1, 0, 0]}, [("a", 0.0), ("c", 2.0),
                                                                      ("b", 9.0)]),
    ("DOT_PRODUCT", {"a": [1, 0, 0], "b": [10, 0, 0], "c": [-1, 0, 0]}, [("b", 10.0), ("a", 1.0),
                                                                        ("c", -1.0)]),
])
def test_euclidean_and_dot_product(dynamodb, fn, vectors, want):
    name = unique_table_name("vec")
    call_ok(dynamodb, "CreateTable", create_body(name, [vindex(fn=fn)]))
    try:
        wait_active(dynamodb, name)
        for pk, v in vectors.items():
            put(dynamodb, name, pk, v)
        data = call_ok(dynamodb, "SearchVectors", search(dynamodb, name, [1, 0, 0], user=None))
        assert [(r["Item"]["pk"]["S"], r["Score"]) for r in data["SearchResults"]] == want
    finally:
        delete_table_quietly(dynamodb, name)


def test_ties_in_table_key_order(dynamodb, table):
    # ddbemu's rule (docs/differences.md): AWS orders equal scores arbitrarily.
    for pk in ["d", "b", "c", "a"]:
        put(dynamodb, table, pk, [0, 1, 0], user={"S": "u1"})
    data = call_ok(dynamodb, "SearchVectors", search(dynamodb, table, [1, 0, 0], top_k=3))
    assert keys_of(data) == ["a", "b", "c"]


@pytest.mark.parametrize("change,type_,message", [
    ({"TopK": 101}, VALIDATION,
     "Provided TopK value '101' is out of valid range. The value must be between 1 and 100 "
     "inclusive"),
    ({"TopK": 0}, VALIDATION, "1 validation error detected: Value '0' at 'topK' failed to "
     "satisfy constraint: Member must have value greater than or equal to 1"),
    ({"IndexName": "nope"}, VALIDATION, "The table does not have the specified index: nope"),
    ({"SearchVector": [{"N": "1"}, {"S": "0"}, {"N": "0"}]}, VALIDATION,
     "Search vector contains invalid values. All values in the search vector must be a 32-bit "
     "floating-point number attribute"),
    ({"SearchVector": [{"N": "1"}, {"N": "1e39"}, {"N": "0"}]}, VALIDATION,
     "Search vector contains invalid values. All values in the search vector must be a 32-bit "
     "floating-point number attribute"),
    ({"SearchVector": [{"N": "1"}, {"N": "0"}]}, VALIDATION,
     "Input search vector dimension 2 does not match vector index dimension 3"),
    ({"SearchConditionExpression": None}, VALIDATION,
     "SearchConditionExpression must be provided when SearchSchema has a HASH key"),
    ({"SearchConditionExpression": "cat = :c", "ExpressionAttributeNames": None,
      "ExpressionAttributeValues": {":c": {"N": "1"}}}, VALIDATION,
     "SearchConditionExpression must be provided when SearchSchema has a HASH key"),
    ({"SearchConditionExpression": "#u > :u"}, VALIDATION,
     "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression"),
    ({"SearchConditionExpression": "#u = :u OR #u = :u"}, VALIDATION,
     "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression"),
    ({"SearchConditionExpression": "#u = :u AND note = :u"}, VALIDATION,
     "SearchConditionExpression must not contain any attributes that is not in SearchSchema. "
     "Invalid attribute: note"),
    ({"SearchConditionExpression": "#u = :u AND cat.x = :u"}, VALIDATION,
     "Invalid SearchConditionExpression: SearchConditionExpression cannot have conditions on "
     "nested attributes"),
    ({"SearchConditionExpression": "#u = :u AND #u = :u"}, VALIDATION,
     "Invalid SearchConditionExpression: SearchConditionExpression must only contain one "
     "condition per attribute"),
    ({"ExpressionAttributeValues": {":u": {"N": "1"}}}, VALIDATION,
     "Type of 'user' attribute in SearchConditionExpression (N) does not match type in search "
     "schema (S)"),
    ({"TableName": "ddbemu_no_such_table"}, DDB + "ResourceNotFoundException",
     "Requested resource not found"),
])
def test_search_refused(dynamodb, table, change, type_, message):
    body = search(dynamodb, table, [1, 0, 0])
    for k, v in change.items():
        if v is None:
            body.pop(k, None)
        else:
            body[k] = v
    if "SearchConditionExpression" not in body:
        body.pop("ExpressionAttributeNames", None)
        body.pop("ExpressionAttributeValues", None)
    call_err(dynamodb, "SearchVectors", body, type_, message)


def test_query_scan_partiql_refused(dynamodb, table):
    call_err(dynamodb, "Query", {"TableName": table, "IndexName": "vix",
                                 "KeyConditionExpression": "#u = :u",
                                 "ExpressionAttributeNames": {"#u": "user"},
                                 "ExpressionAttributeValues": {":u": {"S": "u1"}}},
             VALIDATION, "Query operation not supported on this index type.")
    call_err(dynamodb, "Scan", {"TableName": table, "IndexName": "vix"}, VALIDATION,
             "Scan operation not supported on this index type")
    call_err(dynamodb, "ExecuteStatement", {"Statement": f'SELECT * FROM "{table}"."vix"'},
             VALIDATION, "Scan operation not supported on this index type")


def test_restore_from_backup_keeps_the_index(dynamodb, table):
    # "The index definition is restored and rebuilt from base-table data" (AWS's
    # agent toolkit reference); the restored table answers the same search.
    put(dynamodb, table, "a", [1, 0, 0], user={"S": "u1"})
    put(dynamodb, table, "b", [0, 1, 0], user={"S": "u1"})
    arn = dynamodb.create_backup(TableName=table, BackupName="vecbackup")["BackupDetails"][
        "BackupArn"]
    target = unique_table_name("vecrestored")
    try:
        dynamodb.restore_table_from_backup(TargetTableName=target, BackupArn=arn)
        wait_active(dynamodb, target)
        data = call_ok(dynamodb, "DescribeTable", {"TableName": target})
        assert [v["IndexName"] for v in data["Table"]["VectorIndexes"]] == ["vix"]
        found = call_ok(dynamodb, "SearchVectors", search(dynamodb, target, [1, 0, 0]))
        assert keys_of(found) == ["a", "b"]
    finally:
        delete_table_quietly(dynamodb, target)
        dynamodb.delete_backup(BackupArn=arn)


def test_restore_with_vector_index_override(dynamodb, table):
    # VectorIndexOverride replaces the backup's vector indexes as
    # GlobalSecondaryIndexOverride replaces its GSIs (API reference,
    # RestoreTableFromBackup): [] restores none, a list restores those.
    put(dynamodb, table, "a", [1, 0, 0], user={"S": "u1"})
    put(dynamodb, table, "b", [0, 1, 0], user={"S": "u1"})
    arn = dynamodb.create_backup(TableName=table, BackupName="vecoverride")["BackupDetails"][
        "BackupArn"]
    without, other = unique_table_name("vecnone"), unique_table_name("vecother")
    try:
        call_ok(dynamodb, "RestoreTableFromBackup",
                {"TargetTableName": without, "BackupArn": arn, "VectorIndexOverride": []})
        wait_active(dynamodb, without)
        data = call_ok(dynamodb, "DescribeTable", {"TableName": without})
        assert "VectorIndexes" not in data["Table"]
        call_ok(dynamodb, "RestoreTableFromBackup",
                {"TargetTableName": other, "BackupArn": arn,
                 "VectorIndexOverride": [vindex(name="flat", fn="EUCLIDEAN")]})
        wait_active(dynamodb, other)
        data = call_ok(dynamodb, "DescribeTable", {"TableName": other})
        assert [(v["IndexName"], v["DistanceFunction"])
                for v in data["Table"]["VectorIndexes"]] == [("flat", "EUCLIDEAN")]
        found = call_ok(dynamodb, "SearchVectors",
                        {"TableName": other, "IndexName": "flat",
                         "SearchVector": qvec(0, 1, 0), "TopK": 2})
        assert keys_of(found) == ["b", "a"]
    finally:
        delete_table_quietly(dynamodb, without)
        delete_table_quietly(dynamodb, other)
        dynamodb.delete_backup(BackupArn=arn)


def test_import_defines_vector_indexes(dynamodb, server, s3_dir, region):
    # "On import, define the index in the import request as you would for
    # CreateTable" (AWS's agent toolkit reference): imported items are indexed.
    import json
    import time
    import uuid

    from transfer_util import make_bucket

    bucket = make_bucket(server, s3_dir, region)
    prefix = f"vec-{uuid.uuid4().hex[:8]}/"
    lines = [{"Item": {"pk": {"S": "a"}, "emb": vec(1, 0, 0)}},
             {"Item": {"pk": {"S": "b"}, "emb": vec(0, 1, 0)}},
             {"Item": {"pk": {"S": "c"}}}]
    bucket.put(prefix + "items.json", "".join(json.dumps(x) + "\n" for x in lines).encode())
    name = unique_table_name("vecimport")
    params = create_body(name, [vindex(fn="EUCLIDEAN")])
    params.pop("VectorIndexes")
    params["VectorIndexes"] = [vindex(fn="EUCLIDEAN")]
    try:
        data = call_ok(dynamodb, "ImportTable", {
            "ClientToken": uuid.uuid4().hex, "InputFormat": "DYNAMODB_JSON",
            "S3BucketSource": {"S3Bucket": bucket.name, "S3KeyPrefix": prefix},
            "TableCreationParameters": params})
        arn = data["ImportTableDescription"]["ImportArn"]
        for _ in range(600):
            d = call_ok(dynamodb, "DescribeImport", {"ImportArn": arn})["ImportTableDescription"]
            if d["ImportStatus"] != "IN_PROGRESS":
                break
            time.sleep(1)
        assert d["ImportStatus"] == "COMPLETED", d
        wait_active(dynamodb, name)
        found = call_ok(dynamodb, "SearchVectors", search(dynamodb, name, [1, 0, 0], user=None))
        assert [(r["Item"]["pk"]["S"], r["Score"]) for r in found["SearchResults"]] == [
            ("a", 0.0), ("b", 2 ** 0.5)]
    finally:
        delete_table_quietly(dynamodb, name)
