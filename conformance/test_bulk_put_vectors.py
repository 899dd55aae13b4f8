# SPDX-License-Identifier: MIT
"""Bulk put items into a table with vector indexes, through raw signed
requests (Debian's boto3 predates both).

What DynamoDB does: "You can use bulk put items to ingest data into tables
that have a vector index" (developer guide, BulkPutItems); the written items
reach the index as any write's do, and BulkOperationUsage reports, per vector
index, BulkPutVectorBytes (the model's VectorIndexesBulkVectorBytesMap;
BulkPutBytes "excludes bulk put vector bytes"). How AWS sizes them is not
published: ddbemu counts each written item's entry in the index - the vector
at 4 bytes a dimension plus its name, and the entry's other attributes at
item size - without the 1 KB floor of a write request (ours,
docs/differences.md).
"""

import pytest

from test_bulk_put_items import lines, ok, record, run
from transfer_util import make_bucket


@pytest.fixture
def bucket(server, s3_dir, region):
    return make_bucket(server, s3_dir, region)


@pytest.fixture
def out_bucket(server, s3_dir, region):
    return make_bucket(server, s3_dir, region)


def test_bulk_put_vector_bytes(raw, dynamodb, bucket, out_bucket):
    from util import delete_table_quietly, unique_table_name, wait_active
    table = unique_table_name("bulkvec")
    ok(raw("CreateTable", {
        "TableName": table, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}],
        "VectorIndexes": [{"IndexName": "vix", "VectorAttribute": {"AttributeName": "emb"},
                           "Projection": {"ProjectionType": "KEYS_ONLY"}, "Dimensions": 3,
                           "DistanceFunction": "EUCLIDEAN"}]}))
    try:
        wait_active(dynamodb, table)
        emb = {"L": [{"N": "1"}, {"N": "2"}, {"N": "3"}]}
        bucket.put("in/x.json", lines([record({"p": {"S": "k0"}, "emb": emb}),
                                       record({"p": {"S": "k1"}, "emb": emb}),
                                       record({"p": {"S": "plain"}})]))
        done = run(raw, table, bucket, out_bucket)
        assert done["BulkOperationStatus"] == "COMPLETED"
        (usage,) = done["BulkOperationUsage"]
        # Two entries of 4 x 3 + len("emb") + len("p") + len("k0") bytes.
        assert usage["VectorIndexes"] == {"vix": {"BulkPutVectorBytes": 2 * (12 + 3 + 1 + 2)}}
        # The index serves the written items.
        found = ok(raw("SearchVectors", {
            "TableName": table, "IndexName": "vix",
            "SearchVector": [{"N": "1"}, {"N": "2"}, {"N": "3"}], "TopK": 5}))
        assert sorted(r["Item"]["p"]["S"] for r in found["SearchResults"]) == ["k0", "k1"]
    finally:
        delete_table_quietly(dynamodb, table)
