# SPDX-License-Identifier: MIT
"""Emulator only: --db-path keeps every table in SQLite files and loads them at
start (DynamoDB Local's -dbPath). What must hold: a write acknowledged to the
client survives kill -9; a transaction or a batch is all or nothing on disk;
indexes, streams (and iterators handed out before the restart), TTL state,
client tokens and the control clock come back as they were; a file ddbemu must
not touch (newer, foreign, damaged, or a directory another ddbemu holds) is
refused with a message and a non-zero exit, never reset."""

import http.client
import json
import os
import random
import signal
import sqlite3
import subprocess
import threading
import time

import pytest
from botocore.exceptions import ClientError

from conftest import ACCESS_KEY, REGION, SANITIZER_PATTERNS, make_client
from paging import scan_all

pytestmark = pytest.mark.usefixtures("emulator")


def kill9(server):
    """What a crash does: no flush, no goodbye. (A sanitizer report printed
    before the kill still fails the test; nothing is checked at exit.)"""
    server.proc.send_signal(signal.SIGKILL)
    server.proc.wait()
    assert not SANITIZER_PATTERNS.search(server.stderr_text()), server.stderr_tail(80)
    server.proc = None


def control(server, method, path, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request(method, path, body=json.dumps(body) if body is not None else None)
    resp = conn.getresponse()
    data = json.loads(resp.read() or b"{}")
    conn.close()
    return data


def create_chat_table(client, name, stream=True):
    args = dict(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"},
                              {"AttributeName": "GSI1PK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{"IndexName": "GSI1",
                                 "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
        BillingMode="PAY_PER_REQUEST")
    if stream:
        args["StreamSpecification"] = {"StreamEnabled": True,
                                       "StreamViewType": "NEW_AND_OLD_IMAGES"}
    client.create_table(**args)


def read_stream(streams, arn):
    """Every record of every shard, oldest first."""
    records = []
    desc = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    for shard in desc["Shards"]:
        it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        while it:
            page = streams.get_records(ShardIterator=it, Limit=1000)
            records += page["Records"]
            if not page["Records"]:
                break
            it = page.get("NextShardIterator")
    return records


def key_of(image):
    return (image["PK"]["S"], image["SK"]["S"])


def test_everything_comes_back_after_kill_9(start_server, tmp_path):
    data = str(tmp_path / "data")
    server = start_server("--db-path", data)
    client = server.client()
    streams = make_client(server.endpoint_url, service="dynamodbstreams")
    create_chat_table(client, "persisted")
    control(server, "POST", "/ddbemu/clock", {"advance_ms": 3600 * 1000})
    client.update_time_to_live(TableName="persisted", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "ttl"})
    for i in range(50):
        client.put_item(TableName="persisted", Item={
            "PK": {"S": f"ROOM#{i % 5}"}, "SK": {"S": f"MSG#{i:03d}"},
            "GSI1PK": {"S": f"USER#{i % 3}"}, "n": {"N": str(i)}, "b": {"B": b"\x00\x01" * i}})
    client.update_item(TableName="persisted", Key={"PK": {"S": "ROOM#0"}, "SK": {"S": "MSG#000"}},
                       UpdateExpression="SET n = n + :one", ExpressionAttributeValues={
                           ":one": {"N": "1"}})
    client.delete_item(TableName="persisted", Key={"PK": {"S": "ROOM#1"}, "SK": {"S": "MSG#001"}})
    client.transact_write_items(ClientRequestToken="token-before-crash", TransactItems=[
        {"Put": {"TableName": "persisted", "Item": {"PK": {"S": "T"}, "SK": {"S": "1"}}}}])
    clock_before = control(server, "GET", "/ddbemu/clock")["now_ms"]
    before = sorted(scan_all(client, "persisted"), key=lambda it: key_of(it))
    desc = client.describe_table(TableName="persisted")["Table"]
    arn = desc["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                    ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    first = streams.get_records(ShardIterator=it, Limit=10)
    kill9(server)
    assert log_files(data)

    server = start_server("--db-path", data)
    client = server.client()
    streams = make_client(server.endpoint_url, service="dynamodbstreams")
    after = sorted(scan_all(client, "persisted"), key=lambda it: key_of(it))
    assert after == before
    again = client.describe_table(TableName="persisted")["Table"]
    for member in ("TableArn", "TableId", "CreationDateTime", "KeySchema", "AttributeDefinitions",
                   "LatestStreamArn", "LatestStreamLabel", "StreamSpecification",
                   "BillingModeSummary", "ItemCount"):
        assert again[member] == desc[member], member
    assert again["GlobalSecondaryIndexes"][0]["IndexStatus"] == "ACTIVE"
    assert client.describe_time_to_live(TableName="persisted")["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}
    # The one-change-per-hour window is remembered too.
    with pytest.raises(ClientError) as e:
        client.update_time_to_live(TableName="persisted", TimeToLiveSpecification={
            "Enabled": False, "AttributeName": "ttl"})
    assert "multiple times within a fixed interval" in e.value.response["Error"]["Message"]
    # The index was rebuilt from the items.
    gsi = client.query(TableName="persisted", IndexName="GSI1",
                       KeyConditionExpression="GSI1PK = :u",
                       ExpressionAttributeValues={":u": {"S": "USER#1"}})["Items"]
    assert sorted(key_of(i) for i in gsi) == sorted(
        key_of(i) for i in before if i.get("GSI1PK", {}).get("S") == "USER#1")
    # The iterator handed out before the crash goes on where it stopped.
    rest = streams.get_records(ShardIterator=first["NextShardIterator"], Limit=1000)["Records"]
    seqs = [r["dynamodb"]["SequenceNumber"] for r in first["Records"] + rest]
    assert seqs == sorted(seqs) and len(seqs) == 53  # 50 puts, an update, a delete, the put
    # The clock offset survived (the clock keeps running from where it was).
    assert control(server, "GET", "/ddbemu/clock")["now_ms"] >= clock_before
    # A same-token retry is still recognised: a different request is refused.
    with pytest.raises(ClientError) as e:
        client.transact_write_items(ClientRequestToken="token-before-crash", TransactItems=[
            {"Put": {"TableName": "persisted", "Item": {"PK": {"S": "T"}, "SK": {"S": "2"}}}}])
    assert e.value.response["Error"]["Code"] == "IdempotentParameterMismatchException"


def test_a_clean_stop_keeps_everything_and_deleted_tables_stay_deleted(start_server, tmp_path):
    data = str(tmp_path / "data")
    server = start_server("--db-path", data)
    client = server.client()
    create_chat_table(client, "kept", stream=False)
    create_chat_table(client, "dropped", stream=False)
    client.put_item(TableName="kept", Item={"PK": {"S": "a"}, "SK": {"S": "b"}})
    client.delete_table(TableName="dropped")
    assert server.stop() is None
    server = start_server("--db-path", data)
    client = server.client()
    assert client.list_tables()["TableNames"] == ["kept"]
    assert client.get_item(TableName="kept", Key={"PK": {"S": "a"}, "SK": {"S": "b"}})["Item"]


def test_one_file_per_access_key_and_region_or_one_shared(start_server, tmp_path):
    # DynamoDB Local names its files <access key>_<region>.db, or
    # shared-local-instance.db with -sharedDb.
    data = str(tmp_path / "ns")
    server = start_server("--db-path", data)
    create_chat_table(server.client(), "one", stream=False)
    create_chat_table(server.client(access_key="OTHERKEY", region="eu-west-1"), "two",
                      stream=False)
    assert server.stop() is None
    assert sorted(f for f in os.listdir(data) if f.endswith(".db")) == sorted([
        "OTHERKEY_eu-west-1.db", f"{ACCESS_KEY}_{REGION}.db", "ddbemu.db"])
    shared = str(tmp_path / "shared")
    server = start_server("--db-path", shared, "--shared-db")
    create_chat_table(server.client(), "three", stream=False)
    assert server.stop() is None
    assert sorted(f for f in os.listdir(shared) if f.endswith(".db")) == [
        "ddbemu.db", "shared-local-instance.db"]
    server = start_server("--db-path", shared, "--sharedDb")
    assert server.client(access_key="anyone").list_tables()["TableNames"] == ["three"]


# --------------------------------------------------------------------------
# The crash test
# --------------------------------------------------------------------------


class Writer(threading.Thread):
    """Writes to its own keys through one connection and keeps, for each key,
    what was acknowledged last and what might be in flight."""

    def __init__(self, client, table, wid, stop):
        super().__init__(daemon=True)
        self.client, self.table, self.wid, self.stop_event = client, table, wid, stop
        self.acked = {}       # key -> acknowledged item (None: deleted)
        self.in_flight = {}   # key -> item the unacknowledged request would leave
        self.txns = []        # (txn id, keys) acknowledged
        self.pending_txn = None
        self.batches = []     # (batch id, keys) acknowledged
        self.pending_batch = None
        self.rng = random.Random(wid)
        self.count = 0

    def item(self, pk, sk, **extra):
        it = {"PK": {"S": pk}, "SK": {"S": sk}, "GSI1PK": {"S": f"W{self.wid}"}}
        it.update(extra)
        return it

    def run(self):
        n = 0
        while not self.stop_event.is_set():
            n += 1
            kind = self.rng.choice(["put", "put", "update", "delete", "txn", "batch"])
            try:
                if kind == "put":
                    k = (f"W{self.wid}", f"P{self.rng.randrange(40):03d}")
                    it = self.item(*k, v={"N": str(n)})
                    self.in_flight = {k: it}
                    self.client.put_item(TableName=self.table, Item=it)
                    self.acked[k] = it
                elif kind == "update":
                    k = (f"W{self.wid}", f"P{self.rng.randrange(40):03d}")
                    prev = self.acked.get(k)
                    it = dict(prev or self.item(*k))
                    it["u"] = {"N": str(n)}
                    if prev is None:
                        it = {"PK": {"S": k[0]}, "SK": {"S": k[1]}, "u": {"N": str(n)}}
                    self.in_flight = {k: it}
                    self.client.update_item(TableName=self.table,
                                            Key={"PK": {"S": k[0]}, "SK": {"S": k[1]}},
                                            UpdateExpression="SET u = :n",
                                            ExpressionAttributeValues={":n": {"N": str(n)}})
                    self.acked[k] = it
                elif kind == "delete":
                    k = (f"W{self.wid}", f"P{self.rng.randrange(40):03d}")
                    self.in_flight = {k: None}
                    self.client.delete_item(TableName=self.table,
                                            Key={"PK": {"S": k[0]}, "SK": {"S": k[1]}})
                    self.acked[k] = None
                elif kind == "txn":
                    keys = [(f"W{self.wid}T", f"{n:06d}-{j}") for j in range(3)]
                    self.pending_txn = (n, keys)
                    self.client.transact_write_items(TransactItems=[
                        {"Put": {"TableName": self.table, "Item": self.item(*k, txn={"N": str(n)})}}
                        for k in keys])
                    self.txns.append((n, keys))
                    self.pending_txn = None
                else:
                    keys = [(f"W{self.wid}B", f"{n:06d}-{j:02d}") for j in range(25)]
                    self.pending_batch = (n, keys)
                    self.client.batch_write_item(RequestItems={self.table: [
                        {"PutRequest": {"Item": self.item(*k, batch={"N": str(n)})}}
                        for k in keys]})
                    self.batches.append((n, keys))
                    self.pending_batch = None
                self.in_flight = {}
                self.count += 1
            except Exception:  # the server died under us: the request may or may not count
                return


def write_until_stopped(start_server, data, stop_server):
    """Six writers and the TTL sweeper at work; stop_server(server) ends it
    in the middle; returns the writers, for check_after_restart."""
    server = start_server("--db-path", data, "--ttl-interval", "0.05")
    setup = server.client()
    create_chat_table(setup, "crash")
    setup.update_time_to_live(TableName="crash", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "ttl"})
    # Items the sweeper deletes while the writers run: their ttl has passed.
    for i in range(60):
        setup.put_item(TableName="crash", Item={"PK": {"S": "EXPIRING"}, "SK": {"S": f"{i:03d}"},
                                                "ttl": {"N": str(int(time.time()) - 10)}})
    stop = threading.Event()
    writers = [Writer(server.client(), "crash", w, stop) for w in range(6)]
    for w in writers:
        w.start()
    time.sleep(1.5)
    stop_server(server)
    stop.set()
    for w in writers:
        w.join(timeout=30)
    assert sum(w.count for w in writers) > 100, "the writers barely ran"
    return writers


def check_after_restart(start_server, data, writers):
    server = start_server("--db-path", data)
    client = server.client()
    streams = make_client(server.endpoint_url, service="dynamodbstreams")
    items = {key_of(i): i for i in scan_all(client, "crash")}

    for w in writers:
        # Every acknowledged single-item write is there (or the one in flight
        # at the crash, which may or may not have been applied).
        for k, want in w.acked.items():
            got = items.get(k)
            if k in w.in_flight:
                assert got == want or got == w.in_flight[k], k
            else:
                assert got == want, k
        # Transactions and batches: acknowledged ones whole, the pending one whole or absent.
        for txn, keys in w.txns:
            assert all(k in items for k in keys), f"transaction {txn} lost"
        for batch, keys in w.batches:
            assert all(k in items for k in keys), f"batch {batch} lost"
        for pending in (w.pending_txn, w.pending_batch):
            if pending:
                present = [k in items for k in pending[1]]
                assert all(present) or not any(present), f"partial unit {pending[0]}"
    # Nothing else is half there: every transaction's and batch's items come in whole groups.
    groups = {}
    for k, it in items.items():
        for attr in ("txn", "batch"):
            if attr in it:
                groups.setdefault((k[0], attr, it[attr]["N"]), []).append(k)
    for (owner, attr, gid), keys in groups.items():
        assert len(keys) == (3 if attr == "txn" else 25), (owner, attr, gid, len(keys))
    # ItemCount, the index and the stream agree with the items.
    assert client.describe_table(TableName="crash")["Table"]["ItemCount"] == len(items)
    for w in writers:
        page = client.query(TableName="crash", IndexName="GSI1", Select="COUNT",
                            KeyConditionExpression="GSI1PK = :w",
                            ExpressionAttributeValues={":w": {"S": f"W{w.wid}"}})
        assert page["Count"] == sum(1 for it in items.values()
                                    if it.get("GSI1PK", {}).get("S") == f"W{w.wid}")
    replay = {}
    arn = client.describe_table(TableName="crash")["Table"]["LatestStreamArn"]
    for r in read_stream(streams, arn):
        d = r["dynamodb"]
        if r["eventName"] == "REMOVE":
            replay.pop(key_of(d["Keys"]), None)
        else:
            replay[key_of(d["Keys"])] = d["NewImage"]
    assert replay == items
    # The sweeper's deletions are records too: every expired item is gone or still there whole.
    assert all(k[0] != "EXPIRING" or "ttl" in it for k, it in items.items())


def test_kill_9_under_concurrent_writes_loses_nothing_acknowledged(start_server, tmp_path):
    data = str(tmp_path / "crash")
    writers = write_until_stopped(start_server, data, kill9)
    check_after_restart(start_server, data, writers)


def test_sigterm_under_concurrent_writes_stops_cleanly_and_keeps_them(start_server, tmp_path):
    # A clean stop under writes: the requests being handled finish, the log
    # is folded into the files and removed, and the process exits 0.
    data = str(tmp_path / "term")

    def terminate(server):
        assert server.stop() is None
        assert log_files(data) == []

    writers = write_until_stopped(start_server, data, terminate)
    check_after_restart(start_server, data, writers)


# --------------------------------------------------------------------------
# The log of acknowledged units (storage/persist/wal_log.h)
# --------------------------------------------------------------------------


def log_files(data):
    return sorted(f for f in os.listdir(data) if f.startswith("ddbemu-") and f.endswith(".log"))


def put_numbered(client, table, count, start=0):
    for i in range(start, start + count):
        client.put_item(TableName=table, Item={"PK": {"S": f"K{i:05d}"}, "SK": {"S": "s"},
                                               "n": {"N": str(i)}, "pad": {"S": "p" * (i % 300)}})


def numbered_items(client, table):
    return sorted(int(it["n"]["N"]) for it in scan_all(client, table))


def crash_after_puts(start_server, data, table, count, stream=True):
    """A table with count numbered items, then kill -9: returns the path of the
    one log file left (the current file is removed only by a clean stop)."""
    server = start_server("--db-path", data)
    client = server.client()
    create_chat_table(client, table, stream=stream)
    put_numbered(client, table, count)
    kill9(server)
    [log] = log_files(data)
    return os.path.join(data, log)


def restart_and_check_numbered(start_server, data, table, count):
    """The count items are back; count + 5 after more puts and a clean stop, which leaves no log."""
    server = start_server("--db-path", data)
    client = server.client()
    assert numbered_items(client, table) == list(range(count))
    put_numbered(client, table, 5, start=count)
    assert server.stop() is None
    assert log_files(data) == []
    server = start_server("--db-path", data)
    assert numbered_items(server.client(), table) == list(range(count + 5))


def test_kill_9_leaves_a_log_that_the_next_start_replays_then_removes(start_server, tmp_path):
    data = str(tmp_path / "replay")
    crash_after_puts(start_server, data, "logged", 300)
    restart_and_check_numbered(start_server, data, "logged", 300)


def test_a_torn_record_at_the_end_of_the_log_is_ignored(start_server, tmp_path):
    # A crash in the middle of an append leaves part of a record: it was never
    # acknowledged, and everything before it comes back.
    data = str(tmp_path / "torn")
    log = crash_after_puts(start_server, data, "torn", 120)
    with open(log, "ab") as f:
        f.write(b"\x2a\x00\x00\x00\x10\x27\x00\x00" + os.urandom(40))
    restart_and_check_numbered(start_server, data, "torn", 120)


def test_a_damaged_record_in_the_middle_of_the_log_is_refused(ddbemu_bin, start_server, tmp_path):
    # Acknowledged units follow the damaged one: dropping it and them would
    # lose acknowledged writes, so the directory is refused and left alone.
    data = str(tmp_path / "damaged")
    path = crash_after_puts(start_server, data, "damaged", 200, stream=False)
    raw = bytearray(open(path, "rb").read())
    raw[len(raw) // 2] ^= 0x5A
    open(path, "wb").write(raw)

    result = run_bin(ddbemu_bin, "--db-path", data)
    assert result.returncode != 0
    assert path in result.stderr and "damaged record" in result.stderr, result.stderr
    assert open(path, "rb").read() == raw


def test_a_log_of_another_format_is_refused(ddbemu_bin, start_server, tmp_path):
    data = str(tmp_path / "format")
    path = crash_after_puts(start_server, data, "fmt", 1, stream=False)
    raw = bytearray(open(path, "rb").read())
    raw[8] = 99  # the format version
    open(path, "wb").write(raw)
    result = run_bin(ddbemu_bin, "--db-path", data)
    assert result.returncode != 0
    assert path in result.stderr and "format version 99" in result.stderr, result.stderr


# --------------------------------------------------------------------------
# Files ddbemu must not touch
# --------------------------------------------------------------------------


def run_bin(binary, *args, timeout=30):
    return subprocess.run([binary, "--port", "0", *args], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def make_valid_dir(start_server, path):
    server = start_server("--db-path", path)
    create_chat_table(server.client(), "valid", stream=False)
    for i in range(200):
        server.client().put_item(TableName="valid", Item={
            "PK": {"S": f"{i}"}, "SK": {"S": "x" * 200}})
    assert server.stop() is None
    return os.path.join(path, f"{ACCESS_KEY}_{REGION}.db")


def test_a_file_of_a_newer_ddbemu_is_refused_and_left_alone(ddbemu_bin, start_server, tmp_path):
    data = str(tmp_path / "newer")
    path = make_valid_dir(start_server, data)
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 999")
    db.commit()
    db.close()
    before = open(path, "rb").read()
    result = run_bin(ddbemu_bin, "--db-path", data)
    assert result.returncode != 0
    assert "newer ddbemu" in result.stderr and path in result.stderr, result.stderr
    assert open(path, "rb").read() == before


def test_a_file_that_is_not_ours_is_refused(ddbemu_bin, tmp_path):
    data = tmp_path / "foreign"
    data.mkdir()
    db = sqlite3.connect(str(data / "app.db"))
    db.execute("CREATE TABLE accounts(id INTEGER PRIMARY KEY)")
    db.commit()
    db.close()
    before = (data / "app.db").read_bytes()
    result = run_bin(ddbemu_bin, "--db-path", str(data))
    assert result.returncode != 0
    assert "is not a ddbemu database" in result.stderr, result.stderr
    assert (data / "app.db").read_bytes() == before


def test_a_file_of_garbage_is_refused(ddbemu_bin, tmp_path):
    data = tmp_path / "garbage"
    data.mkdir()
    (data / "AK_us-east-1.db").write_bytes(os.urandom(8192))
    before = (data / "AK_us-east-1.db").read_bytes()
    result = run_bin(ddbemu_bin, "--db-path", str(data))
    assert result.returncode != 0
    assert "AK_us-east-1.db" in result.stderr, result.stderr
    assert (data / "AK_us-east-1.db").read_bytes() == before


def test_a_truncated_file_is_refused(ddbemu_bin, start_server, tmp_path):
    data = str(tmp_path / "truncated")
    path = make_valid_dir(start_server, data)
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(size // 2)
    result = run_bin(ddbemu_bin, "--db-path", data)
    assert result.returncode != 0
    assert os.path.basename(path) in result.stderr, result.stderr


def test_a_directory_in_use_by_another_ddbemu_is_refused(ddbemu_bin, start_server, tmp_path):
    data = str(tmp_path / "busy")
    server = start_server("--db-path", data)
    result = run_bin(ddbemu_bin, "--db-path", data)
    assert result.returncode != 0
    assert "in use by another ddbemu" in result.stderr, result.stderr
    assert f"pid {server.proc.pid}" in result.stderr
    # The first one is unharmed.
    assert server.client().list_tables()["TableNames"] == []


def test_in_memory_and_db_path_together_are_refused(ddbemu_bin, tmp_path):
    # DynamoDB Local: "You can't specify both -dbPath and -inMemory at once."
    result = run_bin(ddbemu_bin, "--in-memory", "--db-path", str(tmp_path / "x"))
    assert result.returncode == 2
    assert "--in-memory and --db-path" in result.stderr
