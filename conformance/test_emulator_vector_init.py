# SPDX-License-Identifier: MIT
"""--init with vector indexes (emulator only): a CloudFormation template's
AWS::DynamoDB::Table VectorIndexes property is passed to CreateTable as it is
(the property mirrors CreateTable's member; docs/differences.md), so the table
comes up with its vector index, searchable at once.
"""

import json

from conftest import make_client
from util import raw_call


def test_cloudformation_vector_indexes(start_server, tmp_path):
    template = {"Resources": {"Memory": {"Type": "AWS::DynamoDB::Table", "Properties": {
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "VectorIndexes": [{"IndexName": "vix", "VectorAttribute": {"AttributeName": "emb"},
                           "Projection": {"ProjectionType": "ALL"}, "Dimensions": 2,
                           "DistanceFunction": "DOT_PRODUCT"}]}}}}
    path = tmp_path / "t.json"
    path.write_text(json.dumps(template))
    srv = start_server("--init", str(path))
    ddb = make_client(srv.endpoint_url, access_key="local", region="us-east-1")
    status, data = raw_call(ddb, "DescribeTable", {"TableName": "Memory"})
    assert status == 200, data
    assert [v["IndexName"] for v in data["Table"]["VectorIndexes"]] == ["vix"]
    ddb.put_item(TableName="Memory", Item={"pk": {"S": "a"},
                                           "emb": {"L": [{"N": "1"}, {"N": "2"}]}})
    status, data = raw_call(ddb, "SearchVectors", {
        "TableName": "Memory", "IndexName": "vix", "SearchVector": [{"N": "1"}, {"N": "1"}],
        "TopK": 1})
    assert status == 200, data
    assert data["SearchResults"] == [{"Item": {"pk": {"S": "a"}}, "Score": 3.0}]


def test_db_path_keeps_vector_indexes_and_items_left_out(start_server, tmp_path):
    # --db-path: the definition and the indexed vectors survive a restart; an
    # item written before the index with a vector the index cannot hold is
    # kept in the table and left out of the index, before and after.
    data_dir = str(tmp_path / "data")
    srv = start_server("--db-path", data_dir)
    ddb = make_client(srv.endpoint_url)
    ddb.create_table(TableName="Docs", BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    ddb.put_item(TableName="Docs", Item={"pk": {"S": "bad"}, "emb": {"S": "not a vector"}})
    ddb.put_item(TableName="Docs", Item={"pk": {"S": "good"},
                                         "emb": {"L": [{"N": "1"}, {"N": "0"}]}})
    status, data = raw_call(ddb, "UpdateTable", {"TableName": "Docs", "VectorIndexUpdates": [
        {"Create": {"IndexName": "vix", "VectorAttribute": {"AttributeName": "emb"},
                    "Projection": {"ProjectionType": "KEYS_ONLY"}, "Dimensions": 2,
                    "DistanceFunction": "COSINE"}}]})
    assert status == 200, data
    srv.stop()
    srv = start_server("--db-path", data_dir)
    ddb = make_client(srv.endpoint_url)
    assert ddb.describe_table(TableName="Docs")["Table"]["ItemCount"] == 2
    status, data = raw_call(ddb, "SearchVectors", {
        "TableName": "Docs", "IndexName": "vix", "SearchVector": [{"N": "1"}, {"N": "0"}],
        "TopK": 5})
    assert status == 200, data
    assert data["SearchResults"] == [{"Item": {"pk": {"S": "good"}}, "Score": 0.0}]
