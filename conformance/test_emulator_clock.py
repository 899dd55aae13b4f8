# SPDX-License-Identifier: MIT
"""Emulator only: the control interface (/ddbemu/...) and what follows its clock.

The control interface is not DynamoDB's: it lets a test move the engine's
clock, run a TTL sweep now and reset a namespace, so that behaviour AWS shows
over hours (TTL expiry, the 24-hour stream trim, 15-minute iterator expiry,
four-hourly shard rollover, the one-TTL-change-per-hour rule) is observable in
seconds. Each test runs its own ddbemu (start_server), so moving its clock
cannot disturb the rest of the suite; most start it with --ttl-interval 3600
so that only the test's explicit sweeps delete anything.

What AWS does in each case, and the sources, are in storage/engine/ttl.c and
storage/stream/stream.c and in test_ttl.py / test_streams.py; here the point is the
same behaviour on the emulator's clock.
"""

import json
import time
import urllib.error
import urllib.request

import pytest

from conftest import make_client, send_raw, sign_headers
from util import assert_error, client_error, random_string, unique_table_name

pytestmark = pytest.mark.usefixtures("emulator")

DAY_S = 24 * 60 * 60
SERVICE = {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}


class Emu:
    """A dedicated server with its clients and control helpers."""

    def __init__(self, srv):
        self.srv = srv
        self.url = srv.endpoint_url
        self.ddb = make_client(self.url)
        self.streams = make_client(self.url, service="dynamodbstreams")

    def control(self, path, body=None, method=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + "/ddbemu/" + path, data=data,
                                     method=method or ("POST" if data is not None else "GET"))
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def now_s(self):
        return self.control("clock")[1]["now_ms"] // 1000

    def advance(self, seconds):
        status, _ = self.control("clock", {"advance_ms": int(seconds * 1000)})
        assert status == 200

    def sweep(self):
        status, body = self.control("ttl/sweep", {})
        assert status == 200
        return body["deleted"]

    def raw(self, target, body):
        payload = json.dumps(body).encode()
        headers = sign_headers(self.url + "/", payload,
                               {"Content-Type": "application/x-amz-json-1.0",
                                "X-Amz-Target": target})
        return send_raw(self.url + "/", body=payload, headers=headers)

    def stream_records(self, table, kind="TRIM_HORIZON"):
        arn = self.ddb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
        out = []
        for shard in self.streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
            it = self.streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                                 ShardIteratorType=kind)["ShardIterator"]
            while it:
                resp = self.streams.get_records(ShardIterator=it)
                out += resp["Records"]
                if not resp["Records"]:
                    break
                it = resp.get("NextShardIterator")
        return out


@pytest.fixture
def emu(start_server):
    return Emu(start_server("--ttl-interval", "3600"))


def make_stream_table(ddb, gsis=(), ttl=None, view="NEW_AND_OLD_IMAGES"):
    name = unique_table_name()
    defs = {"PK", "SK"} | {a for g in gsis for a in g}
    args = dict(TableName=name, BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                           {"AttributeName": "SK", "KeyType": "RANGE"}],
                AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                                      for a in sorted(defs)],
                StreamSpecification={"StreamEnabled": True, "StreamViewType": view})
    if gsis:
        args["GlobalSecondaryIndexes"] = [
            {"IndexName": f"GSI{i + 1}", "Projection": {"ProjectionType": "ALL"},
             "KeySchema": [{"AttributeName": h, "KeyType": "HASH"},
                           {"AttributeName": r, "KeyType": "RANGE"}]}
            for i, (h, r) in enumerate(gsis)]
    ddb.create_table(**args)
    if ttl:
        ddb.update_time_to_live(TableName=name,
                                TimeToLiveSpecification={"AttributeName": ttl, "Enabled": True})
    return name


def get(ddb, table, pk, sk):
    return ddb.get_item(TableName=table, Key={"PK": {"S": pk}, "SK": {"S": sk}},
                        ConsistentRead=True).get("Item")


# ---- the control interface itself ----

def test_clock_can_be_read_set_and_advanced(emu):
    status, body = emu.control("clock")
    assert status == 200 and abs(body["now_ms"] / 1000 - time.time()) < 60
    assert body["now"].endswith("Z")
    status, body = emu.control("clock", {"set_ms": 1893456000000})  # 2030-01-01T00:00:00Z
    assert status == 200 and body["now"].startswith("2030-01-01T00:00:0")
    status, body = emu.control("clock", {"advance_ms": 86400000})
    assert body["now"].startswith("2030-01-02T00:00:0")


def test_control_errors(emu):
    assert emu.control("clock", {"advance_ms": "soon"})[0] == 400
    assert emu.control("clock", {})[0] == 400
    assert emu.control("reset", {})[0] == 400
    status, body = emu.control("nothing-here", {})
    assert status == 404 and "error" in body


def test_table_creation_time_follows_the_clock(emu):
    emu.control("clock", {"set_ms": 1893456000000})
    name = make_stream_table(emu.ddb)
    desc = emu.ddb.describe_table(TableName=name)["Table"]
    assert abs(desc["CreationDateTime"].timestamp() - 1893456000) < 5
    assert desc["LatestStreamLabel"].startswith("2030-01-01T00:00:0")


def test_no_control_flag_turns_the_interface_off(start_server):
    srv = start_server("--no-control")
    resp = send_raw(srv.endpoint_url + "/ddbemu/clock", method="GET")
    # Without the interface the path is just DynamoDB's: a GET of any path but
    # / is refused (test_http_edge.py::test_get_of_another_path_is_refused).
    assert resp.status == 404 and resp.data == "<UnknownOperationException/>\n"


def test_control_is_off_by_default_when_not_on_loopback(start_server):
    srv = start_server("--host", "0.0.0.0")
    resp = send_raw(srv.endpoint_url + "/ddbemu/clock", method="GET")
    assert resp.status == 404 and resp.data == "<UnknownOperationException/>\n"
    srv = start_server("--host", "0.0.0.0", "--control")
    resp = send_raw(srv.endpoint_url + "/ddbemu/clock", method="GET")
    assert "now_ms" in resp.data


def test_reset_removes_one_namespaces_tables(emu):
    other = make_client(emu.url, access_key="otherKey" + random_string(4))
    mine = make_stream_table(emu.ddb)
    theirs = make_stream_table(other)
    status, body = emu.control("reset", {"access_key": "ddbemuTestKey", "region": "us-east-1"})
    assert status == 200 and body["tables_deleted"] == 1
    assert mine not in emu.ddb.list_tables()["TableNames"]
    assert emu.streams.list_streams()["Streams"] == []
    assert theirs in other.list_tables()["TableNames"]


# ---- TTL on the clock ----

def test_chat_connections_expire_after_24_hours(emu):
    # SCHEMAS.md 1: connection records carry ttl = connectedAt + 24 h (epoch
    # seconds); here the user's connections are also listed through GSI1.
    table = make_stream_table(emu.ddb, gsis=[("GSI1PK", "GSI1SK")], ttl="ttl")
    now = emu.now_s()
    conn, user = "c-" + random_string(6), "u-" + random_string(6)
    ttl = {"N": str(now + DAY_S)}
    emu.ddb.put_item(TableName=table, Item={
        "PK": {"S": f"CONNECTION#{conn}"}, "SK": {"S": "METADATA"}, "userId": {"S": user},
        "connectedAt": {"N": str(now)}, "ttl": ttl,
        "GSI1PK": {"S": f"USERCONNECTIONS#{user}"}, "GSI1SK": {"S": f"CONNECTION#{conn}"}})
    emu.ddb.put_item(TableName=table, Item={
        "PK": {"S": f"USER#{user}"}, "SK": {"S": f"CONNECTION#{conn}"}, "ttl": ttl})
    emu.ddb.put_item(TableName=table, Item={
        "PK": {"S": f"USER#{user}"}, "SK": {"S": "CHATROOM#r1"}, "joinedAt": {"N": str(now)},
        "GSI1PK": {"S": f"USERROOMS#{user}"}, "GSI1SK": {"S": str(now)}})

    def gsi_count(pk):
        return emu.ddb.query(TableName=table, IndexName="GSI1",
                             KeyConditionExpression="GSI1PK = :p",
                             ExpressionAttributeValues={":p": {"S": pk}})["Count"]

    assert emu.sweep() == 0
    emu.advance(DAY_S - 60)
    assert emu.sweep() == 0
    emu.advance(120)
    # Expired but not yet swept: still readable, as on AWS.
    assert get(emu.ddb, table, f"CONNECTION#{conn}", "METADATA") is not None
    assert emu.sweep() == 2
    assert get(emu.ddb, table, f"CONNECTION#{conn}", "METADATA") is None
    assert get(emu.ddb, table, f"USER#{user}", f"CONNECTION#{conn}") is None
    assert get(emu.ddb, table, f"USER#{user}", "CHATROOM#r1") is not None
    assert gsi_count(f"USERCONNECTIONS#{user}") == 0
    assert gsi_count(f"USERROOMS#{user}") == 1

    removes = [r for r in emu.stream_records(table) if r["eventName"] == "REMOVE"]
    assert len(removes) == 2
    for r in removes:
        assert r["userIdentity"] == SERVICE
        assert "OldImage" in r["dynamodb"] and "NewImage" not in r["dynamodb"]
    inserts = [r for r in emu.stream_records(table) if r["eventName"] == "INSERT"]
    assert all("userIdentity" not in r for r in inserts)


def test_ttl_in_milliseconds_never_expires(emu):
    # Seed 003: "TTL の値は Unix epoch(秒)": a value in milliseconds lies tens
    # of thousands of years ahead, so the item never expires.
    table = make_stream_table(emu.ddb, gsis=[("GSI1PK", "GSI1SK"), ("GSI2PK", "GSI2SK")],
                              ttl="expiresAt")
    now = emu.now_s()
    emu.ddb.put_item(TableName=table, Item={"PK": {"S": "SESSION#ms"}, "SK": {"S": "DATA"},
                                            "entityType": {"S": "Session"},
                                            "expiresAt": {"N": str((now + DAY_S) * 1000)}})
    emu.ddb.put_item(TableName=table, Item={"PK": {"S": "SESSION#s"}, "SK": {"S": "DATA"},
                                            "entityType": {"S": "Session"},
                                            "expiresAt": {"N": str(now + DAY_S)}})
    emu.advance(DAY_S + 60)
    assert emu.sweep() == 1
    assert get(emu.ddb, table, "SESSION#s", "DATA") is None
    assert get(emu.ddb, table, "SESSION#ms", "DATA") is not None
    emu.advance(365 * DAY_S)
    emu.sweep()
    assert get(emu.ddb, table, "SESSION#ms", "DATA") is not None


def test_what_never_expires(emu):
    table = make_stream_table(emu.ddb, ttl="ttl")
    now = emu.now_s()
    cases = {
        "string": {"S": str(now - 60)},
        "six_years_ago": {"N": str(now - 6 * 365 * DAY_S)},
        "list": {"L": [{"N": str(now - 60)}]},
        "set": {"NS": [str(now - 60)]},
    }
    for pk, v in cases.items():
        emu.ddb.put_item(TableName=table, Item={"PK": {"S": pk}, "SK": {"S": "x"}, "ttl": v})
    emu.ddb.put_item(TableName=table, Item={"PK": {"S": "absent"}, "SK": {"S": "x"}})
    for pk, value in [("exponent", f"{(now - 60) // 10}e1"), ("fraction", f"{now - 60}.25")]:
        emu.ddb.put_item(TableName=table, Item={"PK": {"S": pk}, "SK": {"S": "x"},
                                                "ttl": {"N": value}})
    assert emu.sweep() == 2  # exponent and fraction
    for pk in list(cases) + ["absent"]:
        assert get(emu.ddb, table, pk, "x") is not None, pk


def test_nothing_expires_while_ttl_is_off_and_changes_wait_an_hour(emu):
    table = make_stream_table(emu.ddb)
    now = emu.now_s()
    emu.ddb.put_item(TableName=table, Item={"PK": {"S": "a"}, "SK": {"S": "x"},
                                            "ttl": {"N": str(now - 60)}})
    assert emu.sweep() == 0
    spec = {"AttributeName": "ttl", "Enabled": True}
    emu.ddb.update_time_to_live(TableName=table, TimeToLiveSpecification=spec)
    emu.advance(59 * 60)
    err = client_error(emu.ddb.update_time_to_live, TableName=table,
                       TimeToLiveSpecification={"AttributeName": "ttl", "Enabled": False})
    assert_error(err, "ValidationException",
                 "Time to live has been modified multiple times within a fixed interval")
    emu.advance(2 * 60)
    emu.ddb.update_time_to_live(TableName=table,
                                TimeToLiveSpecification={"AttributeName": "ttl", "Enabled": False})
    assert emu.sweep() == 0
    assert emu.ddb.describe_time_to_live(TableName=table)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "DISABLED"}


def test_the_sweeper_thread_runs_every_ttl_interval(start_server):
    emu = Emu(start_server("--ttl-interval", "0.2"))
    table = make_stream_table(emu.ddb, ttl="ttl")
    emu.ddb.put_item(TableName=table, Item={"PK": {"S": "a"}, "SK": {"S": "x"},
                                            "ttl": {"N": str(emu.now_s() - 60)}})
    deadline = time.time() + 10
    while get(emu.ddb, table, "a", "x") is not None and time.time() < deadline:
        time.sleep(0.1)
    assert get(emu.ddb, table, "a", "x") is None


# ---- streams on the clock ----

def test_iterators_expire_after_15_minutes(emu):
    table = make_stream_table(emu.ddb, view="KEYS_ONLY")
    arn = emu.ddb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    shard = emu.streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
    it = emu.streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    emu.advance(14 * 60)
    nxt = emu.streams.get_records(ShardIterator=it)["NextShardIterator"]
    emu.advance(2 * 60)
    err = client_error(emu.streams.get_records, ShardIterator=it)
    assert_error(err, "ExpiredIteratorException",
                 "The provided iterator exceeds the maximum age allowed.")
    resp = emu.raw("DynamoDBStreams_20120810.GetRecords", {"ShardIterator": it})
    assert resp.status == 400
    assert resp.data["__type"] == \
        "com.amazonaws.dynamodb.streams.v20120810#ExpiredIteratorException"
    # The iterator GetRecords handed out 2 minutes ago is fresh.
    assert emu.streams.get_records(ShardIterator=nxt)["Records"] == []


def test_records_are_trimmed_after_24_hours(emu):
    table = make_stream_table(emu.ddb, view="KEYS_ONLY")
    arn = emu.ddb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    emu.ddb.put_item(TableName=table, Item={"PK": {"S": "a"}, "SK": {"S": "x"}})
    emu.advance(DAY_S - 60)
    first = emu.streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
    it = emu.streams.get_shard_iterator(StreamArn=arn, ShardId=first["ShardId"],
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    emu.advance(120)
    err = client_error(emu.streams.get_records, ShardIterator=it)
    assert_error(err, "TrimmedDataAccessException",
                 "The data you are trying to access has been trimmed")
    resp = emu.raw("DynamoDBStreams_20120810.GetRecords", {"ShardIterator": it})
    assert resp.data["__type"] == \
        "com.amazonaws.dynamodb.streams.v20120810#TrimmedDataAccessException"
    assert emu.stream_records(table) == []


def test_shards_roll_over_with_lineage(emu):
    table = make_stream_table(emu.ddb, view="NEW_IMAGE")
    arn = emu.ddb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    emu.ddb.put_item(TableName=table, Item={"PK": {"S": "a"}, "SK": {"S": "1"}})
    emu.advance(4 * 60 * 60 + 1)
    emu.ddb.put_item(TableName=table, Item={"PK": {"S": "a"}, "SK": {"S": "2"}})
    parent, child = emu.streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    assert "ParentShardId" not in parent
    assert child["ParentShardId"] == parent["ShardId"]
    assert parent["ShardId"] < child["ShardId"]
    assert "EndingSequenceNumber" in parent["SequenceNumberRange"]
    assert "EndingSequenceNumber" not in child["SequenceNumberRange"]
    assert int(parent["SequenceNumberRange"]["EndingSequenceNumber"]) < \
        int(child["SequenceNumberRange"]["StartingSequenceNumber"])
    it = emu.streams.get_shard_iterator(StreamArn=arn, ShardId=parent["ShardId"],
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    resp = emu.streams.get_records(ShardIterator=it)
    assert [r["dynamodb"]["Keys"]["SK"]["S"] for r in resp["Records"]] == ["1"]
    assert "NextShardIterator" not in resp  # the parent is closed and read to its end
    it = emu.streams.get_shard_iterator(StreamArn=arn, ShardId=child["ShardId"],
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    resp = emu.streams.get_records(ShardIterator=it)
    assert [r["dynamodb"]["Keys"]["SK"]["S"] for r in resp["Records"]] == ["2"]
    # ShardFilter is newer than Debian's botocore: sent raw.
    resp = emu.raw("DynamoDBStreams_20120810.DescribeStream",
                   {"StreamArn": arn,
                    "ShardFilter": {"Type": "CHILD_SHARDS", "ShardId": parent["ShardId"]}})
    assert [s["ShardId"] for s in resp.data["StreamDescription"]["Shards"]] == [child["ShardId"]]


def test_record_times_follow_the_clock(emu):
    table = make_stream_table(emu.ddb, view="KEYS_ONLY")
    emu.control("clock", {"set_ms": 1893456000000})
    emu.ddb.put_item(TableName=table, Item={"PK": {"S": "a"}, "SK": {"S": "1"}})
    (record,) = emu.stream_records(table)
    assert abs(record["dynamodb"]["ApproximateCreationDateTime"].timestamp() - 1893456000) < 5


def test_a_disabled_stream_is_gone_after_24_hours(emu):
    table = make_stream_table(emu.ddb, view="KEYS_ONLY")
    arn = emu.ddb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    emu.ddb.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})
    emu.advance(DAY_S - 60)
    assert emu.streams.describe_stream(StreamArn=arn)["StreamDescription"]["StreamStatus"] == \
        "DISABLED"
    emu.advance(120)
    err = client_error(emu.streams.describe_stream, StreamArn=arn)
    assert_error(err, "ResourceNotFoundException",
                 f"Requested resource not found: Stream: {arn} not found")
    assert emu.streams.list_streams(TableName=table)["Streams"] == []
