# SPDX-License-Identifier: MIT
"""Emulator only: a snapshot, the live table it was taken of, and every
table restored or forked from it share their rows until each is first
written (docs/snapshots.md, "Sharing"). These tests write to each side in
turn, in the orders that take different paths (the live table writing
first while the snapshot holds the rows; a table that is the last holder;
a schema change on a shared table) and compare everything a client reads
(test_emulator_snapshots.state) on every side after each write.
"""

import time

import pytest

from test_emulator_snapshots import REGION, control, create_seeded, namespace, state  # noqa: F401
from util import random_string

pytestmark = pytest.mark.usefixtures("emulator")


def put(db, table, sk, g="g0"):
    db.put_item(TableName=table, Item={"pk": {"S": "p1"}, "sk": {"S": sk}, "g": {"S": g},
                                       "l": {"S": "l" + sk}})


def test_each_holder_writes_apart(endpoint_url, namespace):
    key, make = namespace
    db, streams = make()
    table = "sh" + random_string(4)
    create_seeded(db, table)
    seeded = state(db, streams, table)
    name = "sh-" + random_string(8)
    assert control(endpoint_url, "POST", "snapshots",
                   {"name": name, "access_key": key, "region": REGION})[0] == 200
    try:
        w1, w2 = "sa" + random_string(6), "sb" + random_string(6)
        assert control(endpoint_url, "POST", f"snapshots/{name}/fork",
                       {"to_access_key": w1})[0] == 200
        assert control(endpoint_url, "POST", f"snapshots/{name}/fork",
                       {"to_access_key": w2})[0] == 200
        db1, s1 = make(w1)
        db2, s2 = make(w2)
        # The live table writes first, while the snapshot and both forks hold its rows.
        put(db, table, "live", g="g1")
        db.delete_item(TableName=table, Key={"pk": {"S": "p2"}, "sk": {"S": "s002"}})
        live = state(db, streams, table)
        assert live != seeded
        assert state(db1, s1, table) == seeded and state(db2, s2, table) == seeded
        # Then one fork; the other still reads the saved rows.
        put(db1, table, "one", g="g2")
        one = state(db1, s1, table)
        assert one not in (seeded, live)
        assert state(db2, s2, table) == seeded
        put(db2, table, "two")
        assert state(db2, s2, table) not in (seeded, live, one)
        assert state(db1, s1, table) == one and state(db, streams, table) == live
        # The snapshot still holds the rows as saved.
        assert control(endpoint_url, "POST", f"snapshots/{name}/restore", {})[0] == 200
        assert state(db, streams, table) == seeded
        assert state(db1, s1, table) == one
    finally:
        control(endpoint_url, "DELETE", f"snapshots/{name}")


def test_last_holder_writes_in_place(endpoint_url, namespace):
    key, make = namespace
    db, streams = make()
    table = "lh" + random_string(4)
    create_seeded(db, table)
    name = "lh-" + random_string(8)
    assert control(endpoint_url, "POST", "snapshots",
                   {"name": name, "access_key": key, "region": REGION})[0] == 200
    # A live fork shares the rows with the source too; the snapshot goes, and
    # each writes in turn: the second to write is the last holder.
    fork = "lf" + random_string(6)
    assert control(endpoint_url, "POST", "fork",
                   {"access_key": key, "region": REGION, "to_access_key": fork})[0] == 200
    assert control(endpoint_url, "DELETE", f"snapshots/{name}")[0] == 200
    fdb, fstreams = make(fork)
    before = state(db, streams, table)
    assert state(fdb, fstreams, table) == before
    put(fdb, table, "forked")
    forked = state(fdb, fstreams, table)
    assert state(db, streams, table) == before
    put(db, table, "source", g="g2")
    db.delete_item(TableName=table, Key={"pk": {"S": "p0"}, "sk": {"S": "s005"}})
    assert state(fdb, fstreams, table) == forked
    after = state(db, streams, table)
    assert after not in (before, forked)
    # Saving the same unchanged table twice shares one set of rows.
    n1, n2 = "lh1-" + random_string(6), "lh2-" + random_string(6)
    try:
        for n in (n1, n2):
            assert control(endpoint_url, "POST", "snapshots",
                           {"name": n, "access_key": key, "region": REGION})[0] == 200
        put(db, table, "again")
        assert control(endpoint_url, "POST", f"snapshots/{n1}/restore", {})[0] == 200
        assert state(db, streams, table) == after
        put(db, table, "again")
        assert control(endpoint_url, "POST", f"snapshots/{n2}/restore", {})[0] == 200
        assert state(db, streams, table) == after
    finally:
        control(endpoint_url, "DELETE", f"snapshots/{n1}")
        control(endpoint_url, "DELETE", f"snapshots/{n2}")


def test_schema_changes_on_a_shared_table(endpoint_url, namespace):
    key, make = namespace
    db, streams = make()
    table = "sc" + random_string(4)
    create_seeded(db, table)
    # TTL changes once an hour: a second table turns it on after the save.
    other = "so" + random_string(4)
    db.create_table(TableName=other, BillingMode="PAY_PER_REQUEST",
                    KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                    AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}])
    for i in range(10):
        db.put_item(TableName=other, Item={"k": {"S": f"k{i}"}, "exp": {"N": str(4000000000 + i)}})
    seeded = state(db, streams, table)
    name = "sc-" + random_string(8)
    assert control(endpoint_url, "POST", "snapshots",
                   {"name": name, "access_key": key, "region": REGION})[0] == 200
    try:
        fork = "sf" + random_string(6)
        assert control(endpoint_url, "POST", f"snapshots/{name}/fork",
                       {"to_access_key": fork})[0] == 200
        fdb, fstreams = make(fork)
        # TTL on (its index read from the shared rows), a GSI dropped and one
        # added (backfilled from the shared rows).
        fdb.update_time_to_live(TableName=other, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "exp"})
        assert db.describe_time_to_live(TableName=other)["TimeToLiveDescription"] == \
            {"TimeToLiveStatus": "DISABLED"}
        assert fdb.scan(TableName=other)["Count"] == 10
        fdb.update_table(TableName=table, GlobalSecondaryIndexUpdates=[
            {"Delete": {"IndexName": "byG"}}])
        fdb.update_table(
            TableName=table,
            AttributeDefinitions=[{"AttributeName": "l", "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[{"Create": {
                "IndexName": "byL2", "Projection": {"ProjectionType": "KEYS_ONLY"},
                "KeySchema": [{"AttributeName": "l", "KeyType": "HASH"}]}}])
        for _ in range(200):
            gsis = fdb.describe_table(TableName=table)["Table"].get("GlobalSecondaryIndexes", [])
            if [g["IndexStatus"] for g in gsis if g["IndexName"] == "byL2"] == ["ACTIVE"]:
                break
            time.sleep(0.05)
        rows = fdb.query(TableName=table, IndexName="byL2", KeyConditionExpression="l = :l",
                         ExpressionAttributeValues={":l": {"S": "l00"}})["Items"]
        assert sorted(r["sk"]["S"] for r in rows) == ["s000", "s011", "s022", "s033"]
        # The source and the snapshot kept their indexes and TTL.
        assert state(db, streams, table) == seeded
        assert control(endpoint_url, "POST", f"snapshots/{name}/restore", {})[0] == 200
        assert state(db, streams, table) == seeded
        put(db, table, "after")
        assert db.query(TableName=table, IndexName="byG", KeyConditionExpression="g = :g",
                        ExpressionAttributeValues={":g": {"S": "g0"}})["Count"] == 15
    finally:
        control(endpoint_url, "DELETE", f"snapshots/{name}")
