# SPDX-License-Identifier: MIT
"""Emulator only: the design gate, `ddbemu insight --check [RULES]`.

A test suite run against ddbemu leaves its traffic in the access-pattern
report; the gate judges it against rules (defaults, or a RULES file in JSON or
YAML, per table) and exits 1 with a Markdown report naming each finding's
request shape, so that CI fails a design whose tests scan a large table and
passes one whose tests query. It reads the report from a running server
(--endpoint) or from the file a --db-path server leaves when it stops.
"""

import json
import subprocess
import urllib.request

import pytest

from util import unique_table_name

pytestmark = pytest.mark.usefixtures("emulator")

TABLE_ITEMS = 1500


def gate(ddbemu_bin, *args):
    proc = subprocess.run([ddbemu_bin, "insight", "--check", *args],
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def seed(ddb, table, items=TABLE_ITEMS, gsi=False):
    attrs = [{"AttributeName": "pk", "AttributeType": "S"},
             {"AttributeName": "sk", "AttributeType": "S"}]
    extra = {}
    if gsi:
        attrs.append({"AttributeName": "g", "AttributeType": "S"})
        extra["GlobalSecondaryIndexes"] = [{
            "IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}]
    ddb.create_table(TableName=table, BillingMode="PAY_PER_REQUEST", AttributeDefinitions=attrs,
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}], **extra)
    for first in range(0, items, 25):
        ddb.batch_write_item(RequestItems={table: [
            {"PutRequest": {"Item": {"pk": {"S": f"user#{i % 100}"}, "sk": {"S": f"order#{i}"},
                                     "status": {"S": "open" if i % 50 == 0 else "done"},
                                     "g": {"S": f"g{i % 7}"}}}}
            for i in range(first, min(first + 25, items))]})


def reset_report(srv):
    """Seeding is not the design under test: the report starts after it."""
    req = urllib.request.Request(f"{srv.endpoint_url}/ddbemu/insight/reset", data=b"{}",
                                 method="POST")
    urllib.request.urlopen(req, timeout=30).read()


def scanning_suite(ddb, table):
    """A test suite that finds a user's open orders by scanning."""
    pages = ddb.get_paginator("scan").paginate(
        TableName=table, FilterExpression="pk = :u AND #s = :open",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":u": {"S": "user#0"}, ":open": {"S": "open"}})
    return [item for page in pages for item in page["Items"]]


def querying_suite(ddb, table):
    """The same question, asked of the key."""
    pages = ddb.get_paginator("query").paginate(
        TableName=table, KeyConditionExpression="pk = :u",
        ExpressionAttributeValues={":u": {"S": "user#0"}})
    return [i for page in pages for i in page["Items"] if i["status"]["S"] == "open"]


def test_a_suite_that_scans_a_large_table_fails_the_gate(start_server, ddbemu_bin):
    srv = start_server()
    ddb = srv.client()
    table = unique_table_name("gate")
    seed(ddb, table)
    reset_report(srv)
    assert len(scanning_suite(ddb, table)) == TABLE_ITEMS // 100
    code, out, _ = gate(ddbemu_bin, "--endpoint", srv.endpoint_url)
    assert code == 1, out
    assert out.startswith("## ddbemu design gate: FAILED")
    rows = [line for line in out.splitlines() if line.startswith(f"| {table} |")]
    rules = [row.split(" | ")[1] for row in rows]
    assert rules == ["scan_max_items", "max_read_amplification"], out
    # Each finding names the request shape that caused it.
    assert f"`Scan` on table `{table}` with a filter on" in rows[0]
    assert f"{TABLE_ITEMS}-item table (limit 1000)" in rows[0]


def test_a_suite_that_queries_passes_the_gate(start_server, ddbemu_bin):
    srv = start_server()
    ddb = srv.client()
    table = unique_table_name("gate")
    seed(ddb, table)
    reset_report(srv)
    assert len(querying_suite(ddb, table)) == TABLE_ITEMS // 100
    code, out, _ = gate(ddbemu_bin, "--endpoint", srv.endpoint_url)
    assert code == 0, out
    assert out.startswith("## ddbemu design gate: passed")
    assert f"`{table}`" in out


def test_rules_per_table_from_yaml_and_json(start_server, ddbemu_bin, tmp_path):
    srv = start_server()
    ddb = srv.client()
    table = unique_table_name("gate")
    seed(ddb, table)
    reset_report(srv)
    scanning_suite(ddb, table)
    rules = tmp_path / "rules.yaml"
    rules.write_text(f"tables:\n  {table}:\n    scan_max_items: 5000\n"
                     f"    max_read_amplification: null\n")
    assert gate(ddbemu_bin, str(rules), "--endpoint", srv.endpoint_url)[0] == 0
    # Stricter defaults catch what the table's own rule does not switch off.
    rules_json = tmp_path / "rules.json"
    rules_json.write_text(json.dumps({"defaults": {"scan_max_items": 10},
                                      "tables": {table: {"max_read_amplification": False}}}))
    code, out, _ = gate(ddbemu_bin, str(rules_json), "--endpoint", srv.endpoint_url)
    assert code == 1
    assert "| scan_max_items |" in out and "max_read_amplification |" not in out.split("###")[0]
    # A rule the gate does not know is refused, not ignored (exit 2, not 1).
    rules_json.write_text(json.dumps({"defaults": {"scan_max_item": 10}}))
    code, _, err = gate(ddbemu_bin, str(rules_json), "--endpoint", srv.endpoint_url)
    assert code == 2 and "scan_max_item" in err


def test_every_rule_names_its_request_shape(start_server, ddbemu_bin):
    srv = start_server()
    ddb = srv.client()
    table, indexed = unique_table_name("gate"), unique_table_name("gate")
    seed(ddb, table, items=50)
    seed(ddb, indexed, items=50, gsi=True)
    reset_report(srv)
    # One request of 25 items of 41 KB on one partition key: 1,025 WCU in one second.
    ddb.batch_write_item(RequestItems={table: [
        {"PutRequest": {"Item": {"pk": {"S": "hot"}, "sk": {"S": f"m{i}"},
                                 "body": {"S": "x" * 41_000}}}} for i in range(25)]})
    # An item of 150 KB.
    ddb.put_item(TableName=table, Item={"pk": {"S": "big"}, "sk": {"S": "1"},
                                        "body": {"S": "y" * 150_000}})
    # An index read while its table is not: it costs more than the table.
    for n in range(200):
        ddb.query(TableName=indexed, IndexName="byG", KeyConditionExpression="g = :g",
                  ExpressionAttributeValues={":g": {"S": f"g{n % 7}"}})
    code, out, _ = gate(ddbemu_bin, "--endpoint", srv.endpoint_url)
    assert code == 1, out
    rows = {line.split(" | ")[1]: line for line in out.splitlines()
            if line.startswith(f"| {table} |")}
    assert "partition key `{\"S\":\"hot\"}` peaked at" in rows["partition_limit_share"]
    assert "writes of one partition key of table" in rows["partition_limit_share"]
    assert "BatchWriteItem ×" in rows["partition_limit_share"]
    assert "the item `{\"pk\":{\"S\":\"big\"},\"sk\":{\"S\":\"1\"}}`" in rows["max_item_bytes"]
    assert "PutItem ×1" in rows["max_item_bytes"]
    index_rows = [line for line in out.splitlines() if line.startswith(f"| {indexed} |")]
    assert len(index_rows) == 1 and "| index_cost_ratio |" in index_rows[0]
    assert f"copied into index `byG` of `{indexed}`, read by Query ×200" in index_rows[0]


def test_the_gate_reads_the_report_a_db_path_server_leaves(start_server, ddbemu_bin, tmp_path):
    data = tmp_path / "data"
    srv = start_server("--db-path", str(data))
    ddb = srv.client()
    table = unique_table_name("gate")
    seed(ddb, table)
    reset_report(srv)
    scanning_suite(ddb, table)
    assert srv.stop() is None
    report = tmp_path / "gate.md"
    code, out, err = gate(ddbemu_bin, "--db-path", str(data), "--output", str(report))
    assert code == 1, (out, err)
    assert "design gate FAILED: 2 findings" in err
    assert f"`Scan` on table `{table}`" in report.read_text()
    # Narrowed as the server narrows: another table, another access key.
    assert gate(ddbemu_bin, "--db-path", str(data), "--table", table)[0] == 1
    assert gate(ddbemu_bin, "--db-path", str(data), "--table", "other")[0] == 0
    assert gate(ddbemu_bin, "--db-path", str(data), "--access-key", "someoneElse",
                "--region", "us-east-1")[0] == 0
    # No report there (a server that never stopped): exit 2, said why.
    code, _, err = gate(ddbemu_bin, "--db-path", str(tmp_path))
    assert code == 2 and "writes it when it stops" in err
