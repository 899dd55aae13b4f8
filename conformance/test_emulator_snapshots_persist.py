# SPDX-License-Identifier: MIT
"""Emulator only: with --db-path, named snapshots survive a restart
(docs/snapshots.md, "Persistence").

What must hold: a snapshot saved is listed after a restart with the same
info, and restoring or forking it then gives exactly what it gave before the
restart (every table's description, Scan, GSI and LSI Queries, TTL, every
stream record of every shard); a deleted one stays deleted; a kill -9 at any
moment leaves each snapshot whole or absent, never a part of one; "wait":
true answers only once the snapshot survives a kill -9; a ddbemu.db written
before snapshots were kept (schema version 1) is upgraded.
"""

import os
import sqlite3
import time
from contextlib import closing

import pytest

from conftest import REGION, make_client
from test_emulator_persistence import kill9
from test_emulator_snapshots import control, create_seeded, state

pytestmark = pytest.mark.usefixtures("emulator")

KEY = "snapdisk"
OTHER = "snapother"


def clients(server, key=KEY):
    return (server.client(access_key=key),
            make_client(server.endpoint_url, access_key=key, region=REGION,
                        service="dynamodbstreams"))


def listing(server):
    status, body = control(server.endpoint_url, "GET", "snapshots")
    assert status == 200, body
    return body["snapshots"]


def save(server, name, wait=True, **scope):
    body = {"name": name, "wait": wait}
    body.update(scope or {"access_key": KEY, "region": REGION})
    status, info = control(server.endpoint_url, "POST", "snapshots", body)
    assert status == 200, info
    return info


def without_disk(infos):
    return [{k: v for k, v in i.items() if k != "on_disk"} for i in infos]


def test_save_restart_list_restore_fork_delete_restart(start_server, tmp_path):
    data = str(tmp_path / "data")
    server = start_server("--db-path", data)
    db, streams = clients(server)
    create_seeded(db, "orders")
    create_seeded(db, "small", count=7)
    odb, ostreams = clients(server, OTHER)
    create_seeded(odb, "elsewhere", count=3)
    seeded = {t: state(db, streams, t) for t in ("orders", "small")}
    other_seeded = state(odb, ostreams, "elsewhere")

    one = save(server, "seed")
    assert one["on_disk"] is True and one["tables"] == 2 and one["items"] == 39 + 6
    world = save(server, "world", wait=False, all=True)
    assert world["on_disk"] in (True, False) and world["tables"] == 3
    # Changes after the save are not in it.
    db.delete_table(TableName="small")
    db.put_item(TableName="orders", Item={"pk": {"S": "p9"}, "sk": {"S": "later"}})
    before = listing(server)
    assert [s["name"] for s in before] == ["seed", "world"]
    server.stop()  # a clean stop writes what is still queued

    server = start_server("--db-path", data)
    db, streams = clients(server)
    after = listing(server)
    assert without_disk(after) == without_disk(before)
    assert all(s["on_disk"] for s in after)
    status, answer = control(server.endpoint_url, "POST", "snapshots/seed/restore", {})
    assert status == 200 and answer == {"tables": 2}
    assert sorted(db.list_tables()["TableNames"]) == ["orders", "small"]
    for t in ("orders", "small"):
        assert state(db, streams, t) == seeded[t]
    # New changes get sequence numbers above every restored one.
    db.put_item(TableName="orders", Item={"pk": {"S": "p0"}, "sk": {"S": "after"}})
    _, _, records = state(db, streams, "orders")["stream"]
    assert int(records[-1]["dynamodb"]["SequenceNumber"]) > \
        int(records[-2]["dynamodb"]["SequenceNumber"])
    # A fork of the stored snapshot is the same seed under another key.
    status, answer = control(server.endpoint_url, "POST", "snapshots/seed/fork",
                             {"to_access_key": "snapworker"})
    assert status == 200 and answer["tables"] == 2, answer
    wdb, wstreams = clients(server, "snapworker")
    for t in ("orders", "small"):
        assert state(wdb, wstreams, t) == seeded[t]
    # The snapshot of every namespace puts the other key back too.
    odb, ostreams = clients(server, OTHER)
    odb.delete_table(TableName="elsewhere")
    assert control(server.endpoint_url, "POST", "snapshots/world/restore", {})[0] == 200
    assert state(odb, ostreams, "elsewhere") == other_seeded
    assert control(server.endpoint_url, "DELETE", "snapshots/world") == (200, {"deleted": "world"})
    server.stop()

    server = start_server("--db-path", data)
    assert [s["name"] for s in listing(server)] == ["seed"]
    db, streams = clients(server)
    db.delete_table(TableName="orders")
    assert control(server.endpoint_url, "POST", "snapshots/seed/restore", {})[0] == 200
    assert state(db, streams, "orders") == seeded["orders"]
    # A name freed by a deletion can be saved again, and is the new snapshot.
    info = save(server, "world", all=True)
    # seed's two tables and the other key's one; restoring "world" emptied
    # snapworker, which it did not hold.
    assert info["tables"] == 3
    server.stop()
    server = start_server("--db-path", data)
    assert [(s["name"], s["tables"]) for s in listing(server)] == [("seed", 2), ("world", 3)]


def test_kill_9_after_a_waited_save_and_a_deletion(start_server, tmp_path):
    data = str(tmp_path / "data")
    server = start_server("--db-path", data)
    db, streams = clients(server)
    create_seeded(db, "orders")
    seeded = state(db, streams, "orders")
    save(server, "gone", wait=False)
    save(server, "kept", wait=False)
    assert control(server.endpoint_url, "DELETE", "snapshots/gone")[0] == 200
    # "wait" answers once this save, and every change queued before it, is on disk.
    save(server, "last", wait=True)
    kill9(server)

    server = start_server("--db-path", data)
    db, streams = clients(server)
    assert [s["name"] for s in listing(server)] == ["kept", "last"]
    db.delete_table(TableName="orders")
    assert control(server.endpoint_url, "POST", "snapshots/kept/restore", {})[0] == 200
    assert state(db, streams, "orders") == seeded


def put_many(db, table, count):
    for start in range(0, count, 25):
        db.batch_write_item(RequestItems={table: [
            {"PutRequest": {"Item": {"pk": {"S": f"p{i % 50}"}, "sk": {"S": f"s{i:06d}"},
                                     "g": {"S": f"g{i % 3}"}, "l": {"S": f"l{i % 11:02d}"},
                                     "pad": {"S": "x" * 200}}}}
            for i in range(start, min(start + 25, count))]})


def test_kill_9_during_a_save_leaves_it_whole_or_absent(start_server, tmp_path):
    data = str(tmp_path / "data")
    server = start_server("--db-path", data)
    db, streams = clients(server)
    create_seeded(db, "big", count=10)
    put_many(db, "big", 6000)
    seeded = state(db, streams, "big")
    items = save(server, "base")["items"]
    outcomes = set()
    # Kill at a different moment of the background write each round: at once,
    # and after growing pauses, so that some kills land inside the write.
    for round_, pause in enumerate((0, 0.005, 0.02, 0.05, 0.1, 0.3)):
        name = f"r{round_}"
        info = save(server, name, wait=False)
        assert info["items"] == items
        if pause:
            time.sleep(pause)
        kill9(server)
        server = start_server("--db-path", data)
        db, streams = clients(server)
        found = {s["name"]: s for s in listing(server)}
        assert "base" in found
        if name in found:
            outcomes.add("whole")
            assert found[name]["items"] == items and found[name]["tables"] == 1
            db.delete_table(TableName="big")
            assert control(server.endpoint_url, "POST", f"snapshots/{name}/restore", {})[0] == 200
            assert state(db, streams, "big") == seeded
            assert control(server.endpoint_url, "DELETE", f"snapshots/{name}")[0] == 200
        else:
            outcomes.add("absent")
    # Deleting: a kill during the deletion leaves the snapshot whole or gone.
    assert control(server.endpoint_url, "DELETE", "snapshots/base")[0] == 200
    kill9(server)
    server = start_server("--db-path", data)
    db, streams = clients(server)
    found = {s["name"]: s for s in listing(server)}
    if "base" in found:
        db.delete_table(TableName="big")
        assert control(server.endpoint_url, "POST", "snapshots/base/restore", {})[0] == 200
        assert state(db, streams, "big") == seeded
    assert outcomes  # each round ended one way or the other, never half


def test_a_version_1_ddbemu_db_is_upgraded(start_server, tmp_path):
    data = str(tmp_path / "data")
    server = start_server("--db-path", data)
    db, streams = clients(server)
    create_seeded(db, "orders", count=5)
    control(server.endpoint_url, "POST", "clock", {"advance_ms": 1000})
    server.stop()
    # ddbemu.db as a ddbemu before snapshots left it: schema version 1.
    meta = os.path.join(data, "ddbemu.db")
    with closing(sqlite3.connect(meta)) as conn, conn:
        for table in ("snapshots", "snapshot_tables", "snapshot_items", "snapshot_history",
                      "snapshot_streams", "snapshot_stream_records"):
            conn.execute(f"DROP TABLE {table}")
        conn.execute("PRAGMA user_version = 1")
    with closing(sqlite3.connect(meta)) as conn, conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
        offset = conn.execute("SELECT value FROM meta WHERE key = 'clock_offset_ms'").fetchone()

    server = start_server("--db-path", data)
    db, streams = clients(server)
    seeded = state(db, streams, "orders")
    save(server, "after-upgrade")
    server.stop()
    with closing(sqlite3.connect(meta)) as conn, conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
        # The engine-wide values were kept by the upgrade.
        assert conn.execute(
            "SELECT value FROM meta WHERE key = 'clock_offset_ms'").fetchone() == offset
    server = start_server("--db-path", data)
    db, streams = clients(server)
    assert [s["name"] for s in listing(server)] == ["after-upgrade"]
    db.delete_table(TableName="orders")
    assert control(server.endpoint_url, "POST", "snapshots/after-upgrade/restore", {})[0] == 200
    assert state(db, streams, "orders") == seeded


def test_without_db_path_snapshots_say_nothing_of_disk(endpoint_url, client_for):
    status, info = control(endpoint_url, "POST", "snapshots",
                           {"name": "mem-only", "access_key": "memonly", "region": REGION,
                            "wait": True})
    try:
        assert status == 200 and "on_disk" not in info
    finally:
        control(endpoint_url, "DELETE", "snapshots/mem-only")
