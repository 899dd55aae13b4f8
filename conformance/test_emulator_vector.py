# SPDX-License-Identifier: MIT
"""Vector indexes with the emulator's own flags (emulator only).

--init: a CloudFormation template's AWS::DynamoDB::Table VectorIndexes property
is passed to CreateTable as it is (the property mirrors CreateTable's member;
docs/differences.md), so the table comes up with its vector index. --db-path
keeps vector indexes across a restart. --delay-transient-statuses gives an
index added by UpdateTable AWS's CREATING phase with Backfilling true, during
which SearchVectors answers "Cannot search backfilling vector index: <index>"
(AWS's text, developer guide troubleshooting and agent toolkit reference).
"""

import json
import subprocess

import pytest
import urllib.request

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


def test_delay_transient_statuses(start_server):
    srv = start_server("--delay-transient-statuses")
    ddb = make_client(srv.endpoint_url)
    index = {"IndexName": "vix", "VectorAttribute": {"AttributeName": "emb"},
             "Projection": {"ProjectionType": "ALL"}, "Dimensions": 2,
             "DistanceFunction": "COSINE"}
    status, data = raw_call(ddb, "CreateTable", {
        "TableName": "Slow", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "VectorIndexes": [index]})
    assert status == 200, data
    # Created with the table: CREATING while the table is, without Backfilling.
    status, data = raw_call(ddb, "DescribeTable", {"TableName": "Slow"})
    assert data["Table"]["TableStatus"] == "CREATING"
    assert data["Table"]["VectorIndexes"][0]["IndexStatus"] == "CREATING"
    assert "Backfilling" not in data["Table"]["VectorIndexes"][0]
    advance(srv, 6)
    status, data = raw_call(ddb, "DescribeTable", {"TableName": "Slow"})
    assert data["Table"]["VectorIndexes"][0]["IndexStatus"] == "ACTIVE"
    # Added by UpdateTable: CREATING with Backfilling true, not searchable yet.
    status, data = raw_call(ddb, "UpdateTable", {"TableName": "Slow", "VectorIndexUpdates": [
        {"Create": dict(index, IndexName="vix2", DistanceFunction="EUCLIDEAN")}]})
    assert status == 200, data
    status, data = raw_call(ddb, "DescribeTable", {"TableName": "Slow"})
    added = data["Table"]["VectorIndexes"][1]
    assert (added["IndexName"], added["IndexStatus"], added["Backfilling"]) == (
        "vix2", "CREATING", True)
    search = {"TableName": "Slow", "IndexName": "vix2",
              "SearchVector": [{"N": "1"}, {"N": "0"}], "TopK": 1}
    status, data = raw_call(ddb, "SearchVectors", search)
    assert status == 400 and data["message"] == "Cannot search backfilling vector index: vix2"
    advance(srv, 61)
    status, data = raw_call(ddb, "DescribeTable", {"TableName": "Slow"})
    assert data["Table"]["VectorIndexes"][1]["IndexStatus"] == "ACTIVE"
    assert "Backfilling" not in data["Table"]["VectorIndexes"][1]
    status, data = raw_call(ddb, "SearchVectors", search)
    assert status == 200 and data["SearchResults"] == [], data


def advance(srv, seconds):
    req = urllib.request.Request(srv.endpoint_url + "/ddbemu/clock",
                                 data=json.dumps({"advance_ms": seconds * 1000}).encode(),
                                 method="POST")
    with urllib.request.urlopen(req, timeout=30) as resp:
        assert resp.status == 200


def control_status(srv, path):
    with urllib.request.urlopen(srv.endpoint_url + "/ddbemu/" + path, timeout=30) as resp:
        return resp.status, json.loads(resp.read())


def control(srv, path):
    with urllib.request.urlopen(srv.endpoint_url + "/ddbemu/" + path, timeout=30) as resp:
        assert resp.status == 200
        return json.loads(resp.read())


def test_insight_report_counts_vector_searches_and_writes(start_server, ddbemu_bin):
    # The access-pattern report: SearchVectors calls per index with their
    # VectorSearchRequestBytes (counted whether or not the request asked for
    # ConsumedCapacity), writes with their VectorWriteRequestBytes, and the
    # monthly cost at the published per-GB rates ($0.002 searched, $0.52
    # written, us-east-1; storage/insight/prices.h).
    from conftest import ACCESS_KEY, REGION
    srv = start_server()
    ddb = make_client(srv.endpoint_url)
    status, data = raw_call(ddb, "CreateTable", {
        "TableName": "Mem", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "user", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "VectorIndexes": [{"IndexName": "vix", "VectorAttribute": {"AttributeName": "emb"},
                           "SearchSchema": [{"AttributeName": "user",
                                             "SearchSchemaElementType": "HASH"}],
                           "Projection": {"ProjectionType": "KEYS_ONLY"}, "Dimensions": 300,
                           "DistanceFunction": "COSINE"}]})
    assert status == 200, data
    for pk, user in (("a", "u1"), ("b", "u1"), ("c", "u2")):
        ddb.put_item(TableName="Mem", Item={"pk": {"S": pk}, "user": {"S": user},
                                            "emb": {"L": [{"N": "1"}] * 300}})
    ddb.put_item(TableName="Mem", Item={"pk": {"S": "d"}})  # not in the index
    search = {"TableName": "Mem", "IndexName": "vix", "SearchVector": [{"N": "1"}] * 300,
              "TopK": 5, "SearchConditionExpression": "#u = :u",
              "ExpressionAttributeNames": {"#u": "user"},
              "ExpressionAttributeValues": {":u": {"S": "u1"}},
              "ReturnConsumedCapacity": "TOTAL"}
    status, data = raw_call(ddb, "SearchVectors", search)
    assert status == 200, data
    first = data["ConsumedCapacity"]["VectorSearchRequestBytes"]
    del search["ReturnConsumedCapacity"]
    status, data = raw_call(ddb, "SearchVectors", search)
    assert status == 200, data
    report = control(srv, f"insight/Mem?access_key={ACCESS_KEY}&region={REGION}")["tables"][0]
    assert report["requests"]["SearchVectors"] == 2
    (v,) = report["vector_indexes"]
    # Each entry: the vector (4 x 300 + "emb"), the key ("pk" + 1) and user
    # ("user" + 2); a search of u1 reads its two vectors.
    entry = 4 * 300 + 3 + 3 + 6
    assert first == 2 * (4 * 300 + 3)
    assert v == {"index": "vix", "searches": 2, "search_request_bytes": 2 * first,
                 "writes": 3, "write_request_bytes": 3 * entry, "item_count": 3,
                 "size_bytes": 3 * (4 * 300 + 3)}
    status, body = control_status(srv, "insight")
    assert (body["prices"]["vector_search_per_gb"], body["prices"]["vector_write_per_gb"]) == (
        0.002, 0.52)
    cost = report["cost"]
    month = 730 * 3600 / report["observed_seconds"]
    assert cost["vector_search_monthly_usd"] == pytest.approx(2 * first * month / 1e9 * 0.002)
    assert cost["vector_write_monthly_usd"] == pytest.approx(3 * entry * month / 1e9 * 0.52)
    # ... and the text report of `ddbemu insight`.
    out = subprocess.run([ddbemu_bin, "insight",
                          "--endpoint", srv.endpoint_url, "--table", "Mem", "--access-key",
                          ACCESS_KEY, "--region", REGION],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert (f"Vector index   vix: 2 searches, {2 * first:.0f} search bytes; 3 writes, "
            f"{3 * entry} write bytes; 3 entries") in out.stdout


def test_partiql_writes_report_vector_bytes(start_server):
    # ExecuteStatement writes report ConsumedCapacity.VectorIndexes under
    # INDEXES like PutItem (AWS's monitoring page names the five item APIs
    # only; docs/differences.md).
    srv = start_server()
    ddb = make_client(srv.endpoint_url)
    status, data = raw_call(ddb, "CreateTable", {
        "TableName": "Pql", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "VectorIndexes": [{"IndexName": "vix", "VectorAttribute": {"AttributeName": "emb"},
                           "Projection": {"ProjectionType": "ALL"}, "Dimensions": 2,
                           "DistanceFunction": "COSINE"}]})
    assert status == 200, data
    status, data = raw_call(ddb, "ExecuteStatement", {
        "Statement": "INSERT INTO \"Pql\" VALUE {'pk': 'a', 'emb': [1, 2]}",
        "ReturnConsumedCapacity": "INDEXES"})
    assert status == 200, data
    assert data["ConsumedCapacity"]["VectorIndexes"] == {
        "vix": {"VectorWriteRequestBytes": 1024.0}}
