# SPDX-License-Identifier: MIT
"""Emulator only: named snapshots, restore and fork (docs/snapshots.md).

A snapshot saves every table of a namespace - items, indexes, streams with
their records, TTL settings - and a restore puts them back exactly; a fork
copies a snapshot or a live namespace into another access key. Each test
compares everything a client can read: every table's description, a Scan,
every GSI and LSI Query, TTL, and every stream record of every shard.
"""

import json
import urllib.error
import urllib.request

import pytest

from util import random_string

pytestmark = pytest.mark.usefixtures("emulator")

REGION = "us-east-1"


def control(endpoint_url, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(endpoint_url + "/ddbemu/" + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def create_seeded(db, name, count=40):
    db.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                              for n in ("pk", "sk", "g", "l")],
        GlobalSecondaryIndexes=[{"IndexName": "byG",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                                               {"AttributeName": "sk", "KeyType": "RANGE"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
        LocalSecondaryIndexes=[{"IndexName": "byL",
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                              {"AttributeName": "l", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    db.update_time_to_live(TableName=name, TimeToLiveSpecification={"Enabled": True,
                                                                     "AttributeName": "exp"})
    for i in range(count):
        db.put_item(TableName=name, Item={
            "pk": {"S": f"p{i % 5}"}, "sk": {"S": f"s{i:03d}"}, "g": {"S": f"g{i % 3}"},
            "l": {"S": f"l{(i * 7) % 11:02d}"}, "n": {"N": str(i)}})
    # A MODIFY and a REMOVE, so the stream holds every kind of record.
    db.update_item(TableName=name, Key={"pk": {"S": "p0"}, "sk": {"S": "s000"}},
                   UpdateExpression="SET n = :n", ExpressionAttributeValues={":n": {"N": "100"}})
    db.delete_item(TableName=name, Key={"pk": {"S": "p1"}, "sk": {"S": "s001"}})


def pages(call, key, **kwargs):
    out, start = [], None
    while True:
        page = call(**kwargs, **({"ExclusiveStartKey": start} if start else {}))
        out += page[key]
        start = page.get("LastEvaluatedKey")
        if not start:
            return out


def stream_records(db, streams, table):
    arn = db.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    desc = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    records = []
    for shard in desc["Shards"]:
        it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        while it:
            page = streams.get_records(ShardIterator=it)
            records += page["Records"]
            if not page["Records"]:
                break
            it = page.get("NextShardIterator")
    return desc["StreamArn"], [(s["ShardId"], s["SequenceNumberRange"].get("StartingSequenceNumber"))
                               for s in desc["Shards"]], records


def state(db, streams, table):
    """Everything a client reads of the table, in a comparable form."""
    t = db.describe_table(TableName=table)["Table"]
    for volatile in ("TableStatus",):
        t.pop(volatile, None)
    for g in t.get("GlobalSecondaryIndexes", []):
        g.pop("IndexStatus", None)
    out = {"table": t,
           "scan": sorted(pages(db.scan, "Items", TableName=table), key=json.dumps),
           "ttl": db.describe_time_to_live(TableName=table)["TimeToLiveDescription"]}
    for g in ("g0", "g1", "g2"):
        out["gsi_" + g] = pages(db.query, "Items", TableName=table, IndexName="byG",
                                KeyConditionExpression="g = :g",
                                ExpressionAttributeValues={":g": {"S": g}})
    for p in ("p0", "p1", "p2", "p3", "p4"):
        out["lsi_" + p] = pages(db.query, "Items", TableName=table, IndexName="byL",
                                KeyConditionExpression="pk = :p",
                                ExpressionAttributeValues={":p": {"S": p}})
    out["stream"] = stream_records(db, streams, table)
    return out


@pytest.fixture
def namespace(client_for, endpoint_url):
    """A fresh access key's DynamoDB and Streams clients; its namespace is reset after."""
    from conftest import make_client
    key = "snap" + random_string(8)
    made = []

    def make(access_key=key):
        made.append(access_key)
        return (client_for(access_key=access_key),
                make_client(endpoint_url, access_key=access_key, region=REGION,
                            service="dynamodbstreams"))

    yield key, make
    for k in made:
        control(endpoint_url, "POST", "reset", {"access_key": k, "region": REGION})


def test_save_change_restore_is_exact(endpoint_url, namespace):
    key, make = namespace
    db, streams = make()
    a, b = "snapA" + random_string(4), "snapB" + random_string(4)
    create_seeded(db, a)
    create_seeded(db, b, count=7)
    before = {t: state(db, streams, t) for t in (a, b)}
    name = "s-" + random_string(8)
    status, info = control(endpoint_url, "POST", "snapshots",
                           {"name": name, "access_key": key, "region": REGION})
    assert status == 200, info
    assert info["tables"] == 2 and info["items"] == 39 + 6
    assert info["stream_records"] == 2 * 2 + 40 + 7  # puts, one MODIFY and one REMOVE each
    try:
        # Change items, index keys, a table dropped (TTL and stream with it), one created.
        db.put_item(TableName=a, Item={"pk": {"S": "p9"}, "sk": {"S": "new"}, "g": {"S": "g0"}})
        db.update_item(TableName=a, Key={"pk": {"S": "p2"}, "sk": {"S": "s002"}},
                       UpdateExpression="SET g = :g, l = :l",
                       ExpressionAttributeValues={":g": {"S": "g1"}, ":l": {"S": "zz"}})
        db.delete_item(TableName=a, Key={"pk": {"S": "p3"}, "sk": {"S": "s003"}})
        db.delete_table(TableName=b)
        db.create_table(TableName="later" + random_string(4), BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}])
        assert state(db, streams, a) != before[a]

        status, answer = control(endpoint_url, "POST", f"snapshots/{name}/restore", {})
        assert status == 200 and answer == {"tables": 2}
        assert sorted(db.list_tables()["TableNames"]) == sorted([a, b])
        for t in (a, b):
            assert state(db, streams, t) == before[t]
        # The restored table takes writes, with stream records after the old ones.
        db.put_item(TableName=a, Item={"pk": {"S": "p0"}, "sk": {"S": "after"}})
        _, _, records = stream_records(db, streams, a)
        assert len(records) == len(before[a]["stream"][2]) + 1
        assert records[-1]["eventName"] == "INSERT"
        assert int(records[-1]["dynamodb"]["SequenceNumber"]) > \
            int(records[-2]["dynamodb"]["SequenceNumber"])
        # Restoring again goes back once more, as many times as asked.
        assert control(endpoint_url, "POST", f"snapshots/{name}/restore", {})[0] == 200
        assert state(db, streams, a) == before[a]
    finally:
        control(endpoint_url, "DELETE", f"snapshots/{name}")


def test_fork_snapshot_and_live_namespace(endpoint_url, namespace):
    key, make = namespace
    db, streams = make()
    table = "fork" + random_string(4)
    create_seeded(db, table)
    seeded = state(db, streams, table)
    name = "f-" + random_string(8)
    assert control(endpoint_url, "POST", "snapshots",
                   {"name": name, "access_key": key, "region": REGION})[0] == 200
    try:
        worker = "w1" + random_string(6)
        status, answer = control(endpoint_url, "POST", f"snapshots/{name}/fork",
                                 {"to_access_key": worker})
        assert status == 200 and answer["tables"] == 1, answer
        wdb, wstreams = make(worker)
        assert state(wdb, wstreams, table) == seeded
        # The fork's changes stay in the fork; the original is untouched.
        wdb.delete_item(TableName=table, Key={"pk": {"S": "p0"}, "sk": {"S": "s000"}})
        wdb.put_item(TableName=table, Item={"pk": {"S": "p7"}, "sk": {"S": "w"}})
        assert state(db, streams, table) == seeded
        assert state(wdb, wstreams, table) != seeded
        # Forking into a namespace with tables needs replace.
        status, answer = control(endpoint_url, "POST", f"snapshots/{name}/fork",
                                 {"to_access_key": worker})
        assert status == 409, answer
        assert control(endpoint_url, "POST", f"snapshots/{name}/fork",
                       {"to_access_key": worker, "replace": True})[0] == 200
        assert state(wdb, wstreams, table) == seeded

        # A live fork copies what the namespace holds now.
        db.put_item(TableName=table, Item={"pk": {"S": "p5"}, "sk": {"S": "live"}})
        now = state(db, streams, table)
        live = "w2" + random_string(6)
        status, answer = control(endpoint_url, "POST", "fork",
                                 {"access_key": key, "region": REGION, "to_access_key": live})
        assert status == 200, answer
        ldb, lstreams = make(live)
        assert state(ldb, lstreams, table) == now
    finally:
        control(endpoint_url, "DELETE", f"snapshots/{name}")


def test_list_delete_and_errors(endpoint_url, namespace):
    key, make = namespace
    db, _ = make()
    name = "l-" + random_string(8)
    body = {"name": name, "access_key": key, "region": REGION}
    assert control(endpoint_url, "POST", "snapshots", body)[0] == 200
    assert control(endpoint_url, "POST", "snapshots", body)[0] == 409
    status, listing = control(endpoint_url, "GET", "snapshots")
    mine = [s for s in listing["snapshots"] if s["name"] == name]
    assert status == 200 and mine[0]["namespace"] == f"{key}/{REGION}" and mine[0]["tables"] == 0
    assert control(endpoint_url, "DELETE", f"snapshots/{name}") == (200, {"deleted": name})
    assert control(endpoint_url, "DELETE", f"snapshots/{name}")[0] == 404
    assert control(endpoint_url, "POST", f"snapshots/{name}/restore", {})[0] == 404
    assert control(endpoint_url, "POST", "snapshots", {"name": "bad/name", "all": True})[0] == 400
    assert control(endpoint_url, "POST", "snapshots", {"name": "x"})[0] == 400
    assert control(endpoint_url, "POST", "snapshots/x/restore", {"capacity": "half"})[0] == 400


def test_capacity_counters_kept_or_reset(endpoint_url, namespace):
    key, make = namespace
    db, _ = make()
    table = "cap" + random_string(4)
    create_seeded(db, table, count=5)
    name = "c-" + random_string(8)
    assert control(endpoint_url, "POST", "snapshots",
                   {"name": name, "access_key": key, "region": REGION})[0] == 200

    def writes():
        status, report = control(endpoint_url, "GET",
                                 f"insight/{table}?access_key={key}&region={REGION}")
        assert status == 200, report
        return report["tables"][0]["base"]["items_written"]

    try:
        seen = writes()
        assert seen >= 7
        assert control(endpoint_url, "POST", f"snapshots/{name}/restore",
                       {"capacity": "keep"})[0] == 200
        assert writes() == seen
        assert control(endpoint_url, "POST", f"snapshots/{name}/restore",
                       {"capacity": "reset"})[0] == 200
        assert writes() == 0
    finally:
        control(endpoint_url, "DELETE", f"snapshots/{name}")
