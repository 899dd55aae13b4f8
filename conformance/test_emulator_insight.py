# SPDX-License-Identifier: MIT
"""Emulator only: the access-pattern report (GET /ddbemu/insight).

Each test runs the workload of one seed design (../shared/SCHEMAS.md) against
its own ddbemu and checks the report's numbers exactly, computed here from
AWS's capacity rules (developerguide/read-write-operations.html, "Capacity
unit consumption"): an item's size is the UTF-8 length of its attribute names
plus its values; a write costs one unit per started KB of the larger of the
item before and after, a strongly consistent read one unit per started 4 KB
(half for an eventually consistent read, twice for a transactional one), a
Query or Scan page is rounded up once over the bytes it read; a transactional
write costs twice a standard one; an index write costs one unit per started KB
of the projected entry, two when the index key changes. Partition limits: 3,000
RCU and 1,000 WCU per second per partition (developerguide/
warm-throughput-scenarios.html).

Bursts that must land in one second are sent as one BatchWriteItem, whose
writes all commit at the same instant, and the clock is moved 10 s between
bursts, so no assertion depends on how fast the machine is.
"""

import json
import math
import subprocess
import urllib.error
import urllib.request

import pytest

from conftest import ACCESS_KEY, REGION, make_client
from util import client_error

pytestmark = pytest.mark.usefixtures("emulator")

KB = 1024


def size_of(item):
    """AWS's size of an item whose values are all strings."""
    return sum(len(k.encode()) + len(v["S"].encode()) for k, v in item.items())


def wcu(size):
    return max(1, math.ceil(size / KB))


def rcu(total_bytes, consistent):
    units = max(1, math.ceil(total_bytes / (4 * KB)))
    return units if consistent else units / 2


class Emu:
    def __init__(self, srv):
        self.url = srv.endpoint_url
        self.ddb = make_client(self.url)

    def control(self, path, body=None, method=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + "/ddbemu/" + path, data=data,
                                     method=method or ("POST" if data is not None else "GET"))
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def advance(self, seconds):
        assert self.control("clock", {"advance_ms": int(seconds * 1000)})[0] == 200

    def report(self, table):
        status, body = self.control(
            f"insight/{table}?access_key={ACCESS_KEY}&region={REGION}")
        assert status == 200, body
        assert len(body["tables"]) == 1
        return body["tables"][0]

    def batch_put(self, table, items):
        resp = self.ddb.batch_write_item(
            RequestItems={table: [{"PutRequest": {"Item": it}} for it in items]})
        assert not resp.get("UnprocessedItems")


@pytest.fixture
def emu(start_server):
    return Emu(start_server("--ttl-interval", "3600"))


def findings(report, kind):
    return [f for f in report["findings"] if f["kind"] == kind]


# ---- seed 1: a hot chat room ----

def create_chat(ddb):
    ddb.create_table(
        TableName="Chat", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                              for a in ("PK", "SK", "GSI1PK", "GSI1SK")],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "GSI1", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"},
                          {"AttributeName": "GSI1SK", "KeyType": "RANGE"}]}])


def message(room, n, content_len):
    return {"PK": {"S": f"CHATROOM#{room}"}, "SK": {"S": f"MESSAGE#{1767225600000 + n:013d}"},
            "senderId": {"S": f"USER#{n % 7}"}, "content": {"S": "m" * content_len},
            "messageType": {"S": "text"}}


def test_hot_chat_room_peaks_above_the_partition_write_limit(emu):
    create_chat(emu.ddb)
    # Messages of 41 KB: 25 in one batch are 25 * 41 = 1,025 WCU in one second.
    burst1 = [message(42, n, 41 * KB - 100) for n in range(25)]
    burst2 = [message(42, 100 + n, 41 * KB - 100) for n in range(25)]
    quiet = [message(7, 200 + n, 50) for n in range(3)]
    per_item = wcu(size_of(burst1[0]))
    assert per_item == 41
    emu.batch_put("Chat", burst1)
    emu.advance(10)
    emu.batch_put("Chat", burst2)
    emu.advance(10)
    for it in quiet:
        emu.ddb.put_item(TableName="Chat", Item=it)
    # The latest 50 messages of room 42, newest first (eventually consistent):
    # the page stops at 1 MB of items read, as on AWS.
    page = emu.ddb.query(TableName="Chat", KeyConditionExpression="PK = :pk",
                         ExpressionAttributeValues={":pk": {"S": "CHATROOM#42"}},
                         ScanIndexForward=False, Limit=50)
    newest = sorted(burst1 + burst2, key=lambda it: it["SK"]["S"], reverse=True)
    read, read_bytes = 0, 0
    while read < 50 and read_bytes < 1024 * KB:
        read_bytes += size_of(newest[read])
        read += 1
    assert page["Count"] == read == 25

    r = emu.report("Chat")
    written = sum(wcu(size_of(it)) for it in burst1 + burst2 + quiet)
    query_rcu = rcu(read_bytes, consistent=False)
    assert r["requests"]["BatchWriteItem"] == 2
    assert r["requests"]["PutItem"] == 3
    assert r["requests"]["Query"] == 1
    assert r["batches"]["BatchWriteItem"] == {"count": 2, "items": 50, "max": 25}
    assert r["items"] == {"read": 25, "returned": 25, "written": 53}
    assert r["base"]["wcu"] == written
    assert r["capacity"] == {"rcu": query_rcu, "wcu": written}
    assert r["base"]["query"]["rcu"] == query_rcu
    assert r["base"]["query"]["bytes_read"] == read_bytes

    top = r["base"]["partitions"]["top_writes"]
    assert top[0]["key"] == {"S": "CHATROOM#42"}
    assert top[0]["peak_wcu_per_s"] == 25 * per_item == 1025
    assert top[0]["wcu"] == 50 * per_item
    assert top[1]["key"] == {"S": "CHATROOM#7"}
    assert top[1]["wcu"] == 3
    assert r["base"]["peak"]["wcu_per_s"] == 1025
    assert r["base"]["partitions"]["top_reads"][0] == {
        "key": {"S": "CHATROOM#42"}, "peak_rcu_per_s": query_rcu,
        "peak_at_ms": r["base"]["partitions"]["top_reads"][0]["peak_at_ms"], "rcu": query_rcu}

    hot = findings(r, "hot_partition")
    assert len(hot) == 1 and hot[0]["severity"] == "warning" and hot[0]["index"] is None
    assert "`CHATROOM#42`" in hot[0]["message"] and "1025.0 WCU" in hot[0]["message"]
    # No GSI1PK on messages: the index is never written.
    assert r["indexes"][0]["index"] == "GSI1" and r["indexes"][0]["wcu"] == 0
    # At the peak the table needs ceil(1025) WCU; the GSI the minimum of 1.
    assert r["cost"]["provisioned_at_peak"]["wcu"] == 1025 + 1


# ---- seed 2: a viral post's likes ----

def test_viral_post_likes_heat_one_gsi_partition(emu):
    emu.ddb.create_table(
        TableName="Likes", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                              for a in ("PK", "SK", "GSI1PK", "GSI1SK")],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "GSI1",
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["likedAt"]},
            "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"},
                          {"AttributeName": "GSI1SK", "KeyType": "RANGE"}]}])

    def like(user):
        return {"PK": {"S": f"USER#{user}"}, "SK": {"S": "LIKE#POST#1"},
                "GSI1PK": {"S": "POST#1"}, "GSI1SK": {"S": f"USER#{user}"},
                "likedAt": {"S": "2026-01-01T00:00:00Z"}, "device": {"S": "x" * 1500}}

    waves = [[like(w * 25 + i) for i in range(25)] for w in range(3)]
    for wave in waves:
        emu.batch_put("Likes", wave)
        emu.advance(10)
    # Who liked the post: one Query of the GSI partition.
    resp = emu.ddb.query(TableName="Likes", IndexName="GSI1",
                         KeyConditionExpression="GSI1PK = :p",
                         ExpressionAttributeValues={":p": {"S": "POST#1"}})
    assert resp["Count"] == 75

    r = emu.report("Likes")
    items = [it for wave in waves for it in wave]
    projected = [size_of({k: v for k, v in it.items() if k != "device"}) for it in items]
    gsi = r["indexes"][0]
    assert gsi["index"] == "GSI1" and gsi["type"] == "GSI"
    assert r["base"]["wcu"] == sum(wcu(size_of(it)) for it in items) == 75 * 2
    assert gsi["wcu"] == sum(wcu(p) for p in projected) == 75
    assert gsi["entries_written"] == 75
    assert gsi["write_amplification"] == 0.5  # 1 WCU in the index per 2 in the table
    assert gsi["projected_bytes"] == sum(projected)
    top = gsi["partitions"]["top_writes"]
    assert len(top) == 1
    assert top[0]["key"] == {"S": "POST#1"}
    assert top[0]["peak_wcu_per_s"] == 25 and top[0]["wcu"] == 75
    # Each base-table partition (one per user) took one write.
    assert r["base"]["partitions"]["tracked"] == 75
    assert all(k["wcu"] == 2 for k in r["base"]["partitions"]["top_writes"])
    assert gsi["query"] == {"requests": 1, "items_read": 75, "items_returned": 75,
                            "bytes_read": sum(projected), "rcu": rcu(sum(projected), False),
                            "read_amplification": 1.0}
    assert gsi["partitions"]["top_reads"][0]["key"] == {"S": "POST#1"}
    assert findings(r, "hot_partition") == []


def test_likes_in_transactions_count_sizes_cancellations_and_double_units(emu):
    ddb = emu.ddb
    for name, range_key in (("comments-favorite", "userId"),
                            ("comments-favorite-count", None)):
        keys = [{"AttributeName": "commentId", "KeyType": "HASH"}]
        defs = [{"AttributeName": "commentId", "AttributeType": "S"}]
        if range_key:
            keys.append({"AttributeName": range_key, "KeyType": "RANGE"})
            defs.append({"AttributeName": range_key, "AttributeType": "S"})
        ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=keys,
                         AttributeDefinitions=defs)
    ddb.put_item(TableName="comments-favorite-count",
                 Item={"commentId": {"S": "C1"}, "count": {"N": "0"}})

    def like(user):
        return ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": "comments-favorite",
                     "Item": {"commentId": {"S": "C1"}, "userId": {"S": user}},
                     "ConditionExpression": "attribute_not_exists(userId)"}},
            {"Update": {"TableName": "comments-favorite-count",
                        "Key": {"commentId": {"S": "C1"}},
                        "UpdateExpression": "SET #c = #c + :one",
                        "ConditionExpression": "attribute_exists(#c)",
                        "ExpressionAttributeNames": {"#c": "count"},
                        "ExpressionAttributeValues": {":one": {"N": "1"}}}}])

    for n in range(30):
        like(f"U{n}")
    err = client_error(like, "U3")  # a second like by the same user
    assert err.response["Error"]["Code"] == "TransactionCanceledException"

    fav = emu.report("comments-favorite")
    count = emu.report("comments-favorite-count")
    for r in (fav, count):
        assert r["requests"]["TransactWriteItems"] == 31
        assert r["transactions"]["TransactWriteItems"] == {"count": 31, "items": 62, "max": 2}
        assert r["transactions"]["canceled"] == 1
        assert findings(r, "transaction_canceled")[0]["message"].startswith("1 of 31")
    # A transactional write of an item under 1 KB costs 2 WCU.
    assert fav["base"]["wcu"] == 30 * 2 and fav["items"]["written"] == 30
    assert count["base"]["wcu"] == 1 + 30 * 2 and count["items"]["written"] == 31
    assert count["base"]["partitions"]["top_writes"][0]["key"] == {"S": "C1"}
    assert count["base"]["partitions"]["top_writes"][0]["wcu"] == 61


# ---- seed 3: sessions, and a Scan with a selective filter ----

def create_sessions(ddb):
    ddb.create_table(
        TableName="Sessions", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("PK", "SK")],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "GSI-inverted", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "SK", "KeyType": "HASH"},
                          {"AttributeName": "PK", "KeyType": "RANGE"}]}])


def session(n):
    return {"PK": {"S": f"suuid#{n:04d}"}, "SK": {"S": f"c#CUST{n % 4}"},
            "status": {"S": "expired" if n % 20 == 3 else "active"},
            "lastLogin": {"S": "2026-01-01T00:00:00Z"}, "payload": {"S": "p" * 900}}


def test_scan_with_a_selective_filter_reports_its_read_amplification(emu):
    create_sessions(emu.ddb)
    items = [session(n) for n in range(40)]
    for i in range(0, 40, 20):
        emu.batch_put("Sessions", items[i:i + 20])
    resp = emu.ddb.scan(TableName="Sessions", FilterExpression="#s = :e",
                        ExpressionAttributeNames={"#s": "status"},
                        ExpressionAttributeValues={":e": {"S": "expired"}})
    assert resp["Count"] == 2 and resp["ScannedCount"] == 40
    resp = emu.ddb.query(TableName="Sessions", IndexName="GSI-inverted",
                         KeyConditionExpression="SK = :c",
                         ExpressionAttributeValues={":c": {"S": "c#CUST1"}})
    assert resp["Count"] == 10

    r = emu.report("Sessions")
    table_bytes = sum(size_of(it) for it in items)
    scan_rcu = rcu(table_bytes, consistent=False)
    query_rcu = rcu(sum(size_of(it) for it in items if it["SK"]["S"] == "c#CUST1"), False)
    assert r["base"]["scan"] == {"requests": 1, "items_read": 40, "items_returned": 2,
                                 "bytes_read": table_bytes, "rcu": scan_rcu,
                                 "read_amplification": 20.0}
    assert r["base"]["filters"] == [{"operation": "Scan", "attributes": "status",
                                     "requests": 1, "items_read": 40, "items_returned": 2,
                                     "read_amplification": 20.0}]
    assert r["scans"] == {"requests": 1, "items_read": 40, "rcu": scan_rcu,
                          "share_of_rcu": scan_rcu / (scan_rcu + query_rcu)}
    assert r["items"]["read"] == 50 and r["items"]["returned"] == 12
    assert r["indexes"][0]["query"]["rcu"] == query_rcu
    amp = findings(r, "read_amplification")
    assert len(amp) == 1 and amp[0]["index"] is None
    assert "read 40 items to return 2 (20.0 per item returned)" in amp[0]["message"]
    assert "`status`" in amp[0]["message"]
    assert len(findings(r, "scan_share")) == (1 if scan_rcu / (scan_rcu + query_rcu) >= 0.5
                                              else 0)
    # Every item also went into the GSI (projection ALL): twice the write units in all.
    assert r["indexes"][0]["wcu"] == r["base"]["wcu"] == sum(wcu(size_of(it)) for it in items)
    assert findings(r, "index_write_amplification") == []


def test_reset_starts_the_counts_again(emu):
    create_sessions(emu.ddb)
    emu.batch_put("Sessions", [session(n) for n in range(5)])
    assert emu.report("Sessions")["items"]["written"] == 5
    status, body = emu.control("insight/reset", {"access_key": ACCESS_KEY, "region": REGION,
                                                 "table": "Sessions"})
    assert (status, body) == (200, {"tables_reset": 1})
    r = emu.report("Sessions")
    assert r["items"] == {"read": 0, "returned": 0, "written": 0}
    assert r["requests"]["BatchWriteItem"] == 0
    assert r["base"]["partitions"]["tracked"] == 0
    assert r["sizes"]["largest_items"] == []
    # The table's contents are untouched: only counting restarts.
    assert r["base"]["item_count"] == 5
    emu.ddb.get_item(TableName="Sessions", Key={"PK": {"S": "suuid#0001"}, "SK": {"S": "c#CUST1"}},
                     ConsistentRead=True)
    r = emu.report("Sessions")
    assert r["requests"]["GetItem"] == 1 and r["base"]["rcu"] == 1


# ---- sizes, conditions, provisioned cost ----

def test_sizes_conditions_and_provisioned_cost(emu):
    ddb = emu.ddb
    ddb.create_table(
        TableName="Orders", BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 10},
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                              for a in ("PK", "SK", "placedAt")],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        LocalSecondaryIndexes=[{
            "IndexName": "ByDate", "Projection": {"ProjectionType": "KEYS_ONLY"},
            "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                          {"AttributeName": "placedAt", "KeyType": "RANGE"}]}])
    small = {"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#1"}, "placedAt": {"S": "2026-01-01"}}
    big = {"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#2"}, "placedAt": {"S": "2026-01-02"},
           "lines": {"S": "l" * (150 * KB)}}
    emu.batch_put("Orders", [small, big])
    err = client_error(ddb.put_item, TableName="Orders", Item=small,
                       ConditionExpression="attribute_not_exists(PK)")
    assert err.response["Error"]["Code"] == "ConditionalCheckFailedException"
    emu.advance(3600)

    r = emu.report("Orders")
    assert r["billing_mode"] == "PROVISIONED"
    assert r["conditional_check_failed"] == 1 and r["requests"]["PutItem"] == 1
    assert r["sizes"]["largest_items"][0] == {
        "key": {"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#2"}}, "bytes": size_of(big),
        "share_of_limit": size_of(big) / (400 * KB)}
    large = findings(r, "large_item")
    assert len(large) == 1 and large[0]["severity"] == "notice"
    assert f"is {size_of(big)} bytes" in large[0]["message"]
    # The item collection: both items plus their KEYS_ONLY LSI entries.
    keys_only = sum(size_of({k: it[k] for k in ("PK", "SK", "placedAt")}) for it in (small, big))
    collection = size_of(small) + size_of(big) + keys_only
    assert r["sizes"]["item_collections"] == [{
        "key": {"S": "CUST#1"}, "bytes": collection,
        "share_of_limit": collection / (10 * 1024 ** 3)}]
    lsi = r["indexes"][0]
    assert lsi["type"] == "LSI" and lsi["wcu"] == 2 and lsi["projected_bytes"] == keys_only
    # Cost: the table's own provisioned throughput, and the observed rate.
    cost = r["cost"]
    assert cost["configured_monthly_usd"] == round((5 * 0.00013 + 10 * 0.00065) * 730, 4)
    units = wcu(size_of(small)) + wcu(size_of(big)) + 2  # + the LSI entries
    assert r["capacity"]["wcu"] == units
    secs = r["observed_seconds"]
    assert secs >= 3600
    assert cost["wcu_per_s"] == pytest.approx(units / secs)
    assert cost["on_demand_monthly_usd"] == pytest.approx(
        units / secs * 730 * 3600 / 1e6 * 0.625, abs=1e-4)
    # The batch committed in one instant: the table (with its LSI) peaked at all of it.
    assert cost["provisioned_at_peak"]["wcu"] == units
    assert cost["provisioned_at_average"] == {
        "rcu": 1, "wcu": 1, "monthly_usd": round((0.00013 + 0.00065) * 730, 4)}


# ---- the endpoints and the command ----

def test_report_endpoints_and_errors(emu):
    create_sessions(emu.ddb)
    other = make_client(emu.url, access_key="someoneElse")
    create_sessions(other)
    status, body = emu.control("insight")
    assert status == 200 and len(body["tables"]) == 2
    assert body["limits"]["partition_wcu_per_s"] == 1000
    assert body["limits"]["partition_rcu_per_s"] == 3000
    assert body["prices"]["on_demand_per_million_wru"] == 0.625
    status, body = emu.control(f"insight?access_key={ACCESS_KEY}&region={REGION}")
    assert [t["namespace"] for t in body["tables"]] == [f"{ACCESS_KEY}/{REGION}"]
    status, body = emu.control("insight/NoSuchTable")
    assert status == 404 and "NoSuchTable" in body["error"]
    status, body = emu.control("insight/reset", {})
    assert (status, body) == (200, {"tables_reset": 2})
    status, body = emu.control("insight/nope/deeper")
    assert status == 404


def test_insight_command_prints_the_report(emu, ddbemu_bin):
    create_chat(emu.ddb)
    emu.batch_put("Chat", [message(42, n, 41 * KB - 100) for n in range(25)])
    out = subprocess.run([ddbemu_bin, "insight", "--endpoint", emu.url, "--table", "Chat"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "Table Chat" in out.stdout
    assert "CHATROOM#42  1025.0 WCU/s (102% of 1000)  OVER THE LIMIT" in out.stdout
    assert "BatchWriteItem 1" in out.stdout
    helped = subprocess.run([ddbemu_bin, "--help"], capture_output=True, text=True, timeout=60)
    assert "ddbemu insight" in helped.stdout
    usage = subprocess.run([ddbemu_bin, "insight", "--nope"], capture_output=True, text=True,
                           timeout=60)
    assert usage.returncode == 2 and "usage: ddbemu insight" in usage.stderr
    bad = subprocess.run([ddbemu_bin, "insight", "--endpoint", "http://127.0.0.1:1"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "cannot connect" in bad.stderr
