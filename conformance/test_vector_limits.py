# SPDX-License-Identifier: MIT
"""The SearchSchema and projection limits of a vector index, through raw
signed requests (Debian's boto3 predates vector indexes).

What DynamoDB does: "up to 18 inline filters" per index (AWS's agent toolkit
reference, vector-search.md), and "The total number of projected non-key
attributes is shared across the vector attribute (counts as 1) and
INLINE_FILTER search schema elements (each counts as 1). HASH search schema
elements do not count toward this limit" (API reference, CreateTable
VectorIndexes), a projection holding at most 20 non-key attributes
(NonKeyAttributes' limit). AWS's texts for these two refusals are not
recorded; ddbemu words them as AWS's captured HASH-count text
(docs/differences.md). The rules hold wherever a vector index is defined:
CreateTable, UpdateTable's Create and a restore's VectorIndexOverride.
"""

import pytest

from util import VALIDATION, delete_table_quietly, raw_call, unique_table_name, wait_active

INVALID = "One or more parameter values were invalid: "


def defs(names):
    return [{"AttributeName": "pk", "AttributeType": "S"}] + [
        {"AttributeName": n, "AttributeType": "S"} for n in names]


def vindex(filters, hash_=None, projection=None):
    schema = [{"AttributeName": f, "SearchSchemaElementType": "INLINE_FILTER"} for f in filters]
    if hash_:
        schema.insert(0, {"AttributeName": hash_, "SearchSchemaElementType": "HASH"})
    v = {"IndexName": "vix", "VectorAttribute": {"AttributeName": "emb"},
         "Projection": projection or {"ProjectionType": "KEYS_ONLY"}, "Dimensions": 2,
         "DistanceFunction": "COSINE"}
    if schema:
        v["SearchSchema"] = schema
    return v


def create(client, name, index, names):
    return raw_call(client, "CreateTable", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": defs(names), "VectorIndexes": [index]})


def include(n):
    return {"ProjectionType": "INCLUDE", "NonKeyAttributes": [f"n{i}" for i in range(n)]}


FILTERS_TEXT = (INVALID + "Value '19' at 'SearchSchema' failed to satisfy constraint: Member "
                "must have INLINE_FILTER count less than or equal to 18")


@pytest.mark.parametrize("index,names,ok,message", [
    # 18 filters and a HASH: accepted (the HASH does not count).
    (vindex([f"f{i}" for i in range(18)], hash_="h"), [f"f{i}" for i in range(18)] + ["h"],
     True, None),
    (vindex([f"f{i}" for i in range(19)]), [f"f{i}" for i in range(19)], False, FILTERS_TEXT),
    # INCLUDE: 18 names + the vector + 1 filter = 20, accepted.
    (vindex(["f0"], projection=include(18)), ["f0"], True, None),
    # 19 names + the vector + 1 filter = 21.
    (vindex(["f0"], projection=include(19)), ["f0"], False,
     INVALID + "Value '21' at 'Projection' failed to satisfy constraint: Member must have "
     "projected non-key attribute count less than or equal to 20"),
    # A filter or the vector named in NonKeyAttributes counts once.
    (vindex(["n0"], projection=include(19)), ["n0"], True, None),
])
def test_create_table_limits(dynamodb, index, names, ok, message):
    name = unique_table_name("veclim")
    try:
        status, data = create(dynamodb, name, index, names)
        if ok:
            assert status == 200, data
        else:
            assert status == 400, data
            assert (data["__type"], data["message"]) == (VALIDATION, message)
    finally:
        delete_table_quietly(dynamodb, name)


def test_update_table_and_restore_limits(dynamodb):
    name = unique_table_name("veclimup")
    filters = [f"f{i}" for i in range(19)]
    status, data = raw_call(dynamodb, "CreateTable", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": defs([])})
    assert status == 200, data
    arn = None
    try:
        wait_active(dynamodb, name)
        status, data = raw_call(dynamodb, "UpdateTable", {
            "TableName": name, "AttributeDefinitions": defs(filters),
            "VectorIndexUpdates": [{"Create": vindex(filters)}]})
        assert status == 400, data
        assert data["message"] == FILTERS_TEXT
        arn = dynamodb.create_backup(TableName=name, BackupName="veclimits")["BackupDetails"][
            "BackupArn"]
        target = unique_table_name("veclimrs")
        status, data = raw_call(dynamodb, "RestoreTableFromBackup", {
            "TargetTableName": target, "BackupArn": arn,
            "VectorIndexOverride": [vindex([], projection=include(20))]})
        assert status == 400, data
        assert data["message"] == (
            INVALID + "Value '21' at 'Projection' failed to satisfy constraint: Member must "
            "have projected non-key attribute count less than or equal to 20")
        assert target not in dynamodb.list_tables()["TableNames"]
    finally:
        if arn:
            dynamodb.delete_backup(BackupArn=arn)
        delete_table_quietly(dynamodb, name)


def test_gsi_keyed_on_a_live_vector_attribute_is_refused(dynamodb):
    # The text is AWS's, as dynoxide captured it (spec-24): the vector
    # attribute holds lists, so a GSI cannot key on it; nothing is created.
    name = unique_table_name("vecgsi")
    status, data = create(dynamodb, name, vindex([]), [])
    assert status == 200, data
    try:
        wait_active(dynamodb, name)
        status, data = raw_call(dynamodb, "UpdateTable", {
            "TableName": name,
            "AttributeDefinitions": [{"AttributeName": "emb", "AttributeType": "S"}],
            "GlobalSecondaryIndexUpdates": [{"Create": {
                "IndexName": "byEmb", "KeySchema": [{"AttributeName": "emb", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}}]})
        assert status == 400, data
        assert (data["__type"], data["message"]) == (VALIDATION, INVALID + (
            "Attributes cannot be redefined. Please check that your attribute has the same "
            "type as previously defined. Existing schema: VectorIndexSchema:[VectorAttribute: "
            "key{emb:L:2}] New schema: Schema:[SchemaElement: key{emb:S:HASH}]"))
        assert "GlobalSecondaryIndexes" not in dynamodb.describe_table(TableName=name)["Table"]
    finally:
        delete_table_quietly(dynamodb, name)
