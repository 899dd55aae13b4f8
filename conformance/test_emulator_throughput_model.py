# SPDX-License-Identifier: MIT
"""Emulator only: --throughput-model aws, AWS's throughput model on the
engine's clock.

What DynamoDB does, and how we know:
- a provisioned table or GSI serves its RCU/WCU per second and keeps up to
  300 seconds of unused capacity as burst (developer guide, "Burst
  capacity"; repost.aws "dynamodb-spiky-workloads-short-intervals": 150 RCU
  unused for five minutes is 45,000 units);
- a GSI without the write capacity for a base-table write throttles that
  write (developer guide, GSI "Throughput considerations");
- each partition serves at most 3,000 RCU / 1,000 WCU per second, and an
  on-demand table takes 4,000 WRU / 12,000 RRU at once, or twice a previous
  peak (developer guide, on-demand "Initial throughput and scaling
  properties"; repost.aws "on-demand-table-throttling-dynamodb");
- throttled requests answer ProvisionedThroughputExceededException
  (provisioned) or ThrottlingException (on demand) with the texts quoted
  from AWS in public bug reports; BatchWriteItem/BatchGetItem return what
  was throttled in UnprocessedItems/UnprocessedKeys and refuse the batch
  only when nothing could be done (API reference); a transaction is
  cancelled with a ProvisionedThroughputExceeded reason.

Where AWS documents nothing the emulator's choices are those of
docs/differences.md: a new bucket holds one second of capacity, a request
starts while its bucket holds more than zero units and then pays what it
consumed (possibly into debt).

Nothing waits: the tests move the engine's clock. To make the arithmetic
exact whatever the machine's speed, a test "freezes" capacity by moving the
clock back an hour once its buckets have started (a clock set back earns
nothing), and pins the clock (set_ms) before each request that the
one-second windows measure. No assertion depends on wall-clock time.
"""

import json
import threading
import urllib.error
import urllib.request

import botocore.config
import boto3
import pytest

from conftest import ACCESS_KEY, REGION, SECRET_KEY, Server, make_client
from util import assert_error, client_error, unique_table_name

pytestmark = pytest.mark.usefixtures("emulator")

HOUR_MS = 3600 * 1000

TABLE_EXCEEDED = ("The level of configured provisioned throughput for the table was exceeded. "
                  "Consider increasing your provisioning level with the UpdateTable API.")
GSI_EXCEEDED = ("The level of configured provisioned throughput for one or more global "
                "secondary indexes of the table was exceeded. Consider increasing your "
                "provisioning level for the under-provisioned global secondary indexes with the "
                "UpdateTable API")
TABLE_THROTTLED = (
    "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically "
    "scaling your table or index so please try again shortly. If exceptions persist, check if "
    "you have a hot key: "
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html")


class Emu:
    """A server started with --throughput-model aws, its client and its clock."""

    def __init__(self, srv):
        self.srv = srv
        self.url = srv.endpoint_url
        self.ddb = make_client(self.url)  # retries off: a throttle surfaces at once

    def clock(self, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + "/ddbemu/clock", data=data,
                                     method="POST" if data else "GET")
        with urllib.request.urlopen(req, timeout=30) as resp:
            assert resp.status == 200
            return json.loads(resp.read())

    def advance_s(self, seconds):
        self.clock({"advance_ms": int(seconds * 1000)})

    def freeze(self):
        """Back an hour: buckets already started earn nothing until thaw()."""
        self.clock({"advance_ms": -HOUR_MS})

    def thaw(self, seconds):
        """Forward past the freeze, then `seconds` more."""
        self.clock({"advance_ms": HOUR_MS + int(seconds * 1000)})

    def now_ms(self):
        return self.clock()["now_ms"]

    def pin(self, ms):
        self.clock({"set_ms": ms})


@pytest.fixture(scope="module")
def emu(log_dir, server):
    if server is None:
        pytest.skip("emulator-only test (DDBEMU_ENDPOINT is set)")
    srv = Server(server.binary, ("--throughput-model", "aws"), log_dir=log_dir).start()
    yield Emu(srv)
    problem = srv.stop()
    if problem:
        pytest.fail(problem, pytrace=False)


def data_of(kb):
    """A string that makes an item {pk, data} exactly `kb` write units."""
    return "x" * (kb * 1024 - 100)


def provisioned(ddb, rcu, wcu, gsi=None, sort_key=False):
    name = unique_table_name("throughput")
    defs = [{"AttributeName": "pk", "AttributeType": "S"}]
    schema = [{"AttributeName": "pk", "KeyType": "HASH"}]
    args = {}
    if sort_key:
        defs.append({"AttributeName": "sk", "AttributeType": "S"})
        schema.append({"AttributeName": "sk", "KeyType": "RANGE"})
    if gsi:
        defs.append({"AttributeName": "gk", "AttributeType": "S"})
        args["GlobalSecondaryIndexes"] = [{
            "IndexName": "byG",
            "KeySchema": [{"AttributeName": "gk", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
            "ProvisionedThroughput": {"ReadCapacityUnits": gsi[0], "WriteCapacityUnits": gsi[1]},
        }]
    if rcu is None:
        args["BillingMode"] = "PAY_PER_REQUEST"
    else:
        args["ProvisionedThroughput"] = {"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu}
    ddb.create_table(TableName=name, AttributeDefinitions=defs, KeySchema=schema, **args)
    return name


def put(ddb, table, pk, kb=1, **attrs):
    item = {"pk": {"S": pk}, "data": {"S": data_of(kb)}}
    for k, v in attrs.items():
        item[k] = {"S": v}
    return ddb.put_item(TableName=table, Item=item)


def exists(ddb, table, pk):
    return "Item" in ddb.get_item(TableName=table, Key={"pk": {"S": pk}})


# ---- provisioned tables: the rate, burst and debt ----

def test_provisioned_writes_at_and_beyond_the_capacity(emu):
    ddb = emu.ddb
    t = provisioned(ddb, 5, 5)
    put(ddb, t, "k0")  # the bucket starts with one second: 5 units, 4 left
    emu.freeze()
    for i in range(1, 5):
        put(ddb, t, f"k{i}")  # exactly the capacity
    err = client_error(put, ddb, t, "k5")
    assert_error(err, "ProvisionedThroughputExceededException", TABLE_EXCEEDED)
    assert not exists(ddb, t, "k5")  # a throttled write changes nothing
    emu.thaw(1)
    put(ddb, t, "k5")
    assert exists(ddb, t, "k5")


def test_burst_keeps_300_seconds_of_unused_capacity(emu):
    ddb = emu.ddb
    t = provisioned(ddb, 5, 1)
    put(ddb, t, "k0")  # 1 unit, none left
    emu.advance_s(1000)  # 1,000 s unused: 300 are kept
    put(ddb, t, "big1", kb=100)
    emu.freeze()
    put(ddb, t, "big2", kb=100)
    put(ddb, t, "big3", kb=100)  # the 300 units of burst are spent
    err = client_error(put, ddb, t, "k1")
    assert_error(err, "ProvisionedThroughputExceededException", TABLE_EXCEEDED)


def test_a_large_write_is_admitted_and_throttles_the_next_until_paid(emu):
    ddb = emu.ddb
    t = provisioned(ddb, 5, 1)
    put(ddb, t, "k0", kb=10)  # 10 units from a bucket of 1: 9 owed
    emu.freeze()
    assert_error(client_error(put, ddb, t, "k1"), "ProvisionedThroughputExceededException",
                 TABLE_EXCEEDED)
    emu.thaw(5)  # 5 of the 9 earned back
    assert_error(client_error(put, ddb, t, "k1"), "ProvisionedThroughputExceededException",
                 TABLE_EXCEEDED)
    emu.advance_s(5)
    put(ddb, t, "k1")


def test_reads_spend_the_read_capacity(emu):
    ddb = emu.ddb
    t = provisioned(ddb, 1, 100)
    put(ddb, t, "k0", kb=40)  # 40 KB: 10 RCU to read strongly consistent
    ddb.get_item(TableName=t, Key={"pk": {"S": "k0"}}, ConsistentRead=True)
    emu.freeze()
    err = client_error(ddb.get_item, TableName=t, Key={"pk": {"S": "k0"}})
    assert_error(err, "ProvisionedThroughputExceededException", TABLE_EXCEEDED)
    err = client_error(ddb.query, TableName=t, KeyConditionExpression="pk = :p",
                       ExpressionAttributeValues={":p": {"S": "k0"}})
    assert_error(err, "ProvisionedThroughputExceededException", TABLE_EXCEEDED)
    err = client_error(ddb.scan, TableName=t)
    assert_error(err, "ProvisionedThroughputExceededException", TABLE_EXCEEDED)
    put(ddb, t, "k1")  # writes have their own capacity
    emu.thaw(10)
    assert exists(ddb, t, "k1")


# ---- GSIs: their own capacity, and back-pressure on the table ----

def test_gsi_without_write_capacity_throttles_base_table_writes(emu):
    ddb = emu.ddb
    t = provisioned(ddb, 100, 100, gsi=(100, 1))
    put(ddb, t, "k0", kb=10, gk="g")  # the GSI pays 10 units from its 1
    emu.freeze()
    err = client_error(put, ddb, t, "k1", gk="g")
    assert_error(err, "ProvisionedThroughputExceededException", GSI_EXCEEDED)
    assert not exists(ddb, t, "k1")
    put(ddb, t, "k2")  # not in the index: the GSI is not written, nothing throttles
    emu.thaw(10)
    put(ddb, t, "k1", gk="g")
    assert exists(ddb, t, "k1")


def test_gsi_reads_spend_the_gsi_read_capacity(emu):
    ddb = emu.ddb
    t = provisioned(ddb, 100, 100, gsi=(1, 100))
    put(ddb, t, "k0", kb=40, gk="g")
    query = dict(TableName=t, IndexName="byG", KeyConditionExpression="gk = :g",
                 ExpressionAttributeValues={":g": {"S": "g"}})
    ddb.query(**query)  # 40 KB eventually consistent: 5 units from 1
    emu.freeze()
    assert_error(client_error(ddb.query, **query), "ProvisionedThroughputExceededException",
                 GSI_EXCEEDED)
    assert exists(ddb, t, "k0")  # the table's own capacity is untouched
    emu.thaw(5)
    ddb.query(**query)


# ---- batches and transactions ----

def test_batch_write_returns_throttled_requests_as_unprocessed_items(emu):
    ddb = emu.ddb
    t = provisioned(ddb, 100, 1)
    requests = [{"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, "data": {"S": "v"}}}}
                for i in range(3)]
    resp = ddb.batch_write_item(RequestItems={t: requests})  # one unit: the first only
    assert resp["UnprocessedItems"] == {t: requests[1:]}
    assert [exists(ddb, t, f"k{i}") for i in range(3)] == [True, False, False]
    emu.freeze()
    # Nothing can be written: the batch itself is refused.
    err = client_error(ddb.batch_write_item, RequestItems=resp["UnprocessedItems"])
    assert_error(err, "ProvisionedThroughputExceededException", TABLE_EXCEEDED)
    emu.thaw(5)
    resp = ddb.batch_write_item(RequestItems=resp["UnprocessedItems"])
    assert resp["UnprocessedItems"] == {}
    assert all(exists(ddb, t, f"k{i}") for i in range(3))


def test_batch_get_returns_throttled_keys_as_unprocessed_keys(emu):
    ddb = emu.ddb
    t = provisioned(ddb, 1, 100)
    for i in range(3):
        put(ddb, t, f"k{i}")
    keys = [{"pk": {"S": f"k{i}"}} for i in range(3)]
    resp = ddb.batch_get_item(RequestItems={t: {"Keys": keys, "ConsistentRead": True}})
    assert [i["pk"]["S"] for i in resp["Responses"][t]] == ["k0"]
    assert resp["UnprocessedKeys"] == {t: {"Keys": keys[1:], "ConsistentRead": True}}
    emu.freeze()
    err = client_error(ddb.batch_get_item, RequestItems=resp["UnprocessedKeys"])
    assert_error(err, "ProvisionedThroughputExceededException", TABLE_EXCEEDED)
    emu.thaw(5)
    resp = ddb.batch_get_item(RequestItems=resp["UnprocessedKeys"])
    assert len(resp["Responses"][t]) == 2 and resp["UnprocessedKeys"] == {}


def test_transaction_without_capacity_is_cancelled(emu):
    ddb = emu.ddb
    t = provisioned(ddb, 100, 1)
    put(ddb, t, "k0", kb=10)
    emu.freeze()
    items = [{"Put": {"TableName": t, "Item": {"pk": {"S": "k1"}}}}]
    err = client_error(ddb.transact_write_items, TransactItems=items)
    assert_error(err, "TransactionCanceledException",
                 "Transaction cancelled, please refer cancellation reasons for specific reasons "
                 "[ProvisionedThroughputExceeded]")
    assert err.response["CancellationReasons"] == [
        {"Code": "ProvisionedThroughputExceeded", "Message": TABLE_EXCEEDED}]
    assert not exists(ddb, t, "k1")
    emu.thaw(30)
    ddb.transact_write_items(TransactItems=items)
    assert exists(ddb, t, "k1")


def test_read_transaction_without_capacity_is_cancelled(emu):
    ddb = emu.ddb
    t = provisioned(ddb, 1, 100)
    put(ddb, t, "k0", kb=10)  # 10 KB: 3 RCU strongly consistent, 6 in a transaction
    gets = [{"Get": {"TableName": t, "Key": {"pk": {"S": "k0"}}}}]
    assert ddb.transact_get_items(TransactItems=gets)["Responses"][0]["Item"]["pk"] == {"S": "k0"}
    emu.freeze()  # the first read left the bucket in debt
    err = client_error(ddb.transact_get_items, TransactItems=gets)
    assert_error(err, "TransactionCanceledException",
                 "Transaction cancelled, please refer cancellation reasons for specific reasons "
                 "[ProvisionedThroughputExceeded]")
    assert err.response["CancellationReasons"] == [
        {"Code": "ProvisionedThroughputExceeded", "Message": TABLE_EXCEEDED}]
    emu.thaw(30)
    assert len(ddb.transact_get_items(TransactItems=gets)["Responses"]) == 1


# ---- the SDK's retries ----

def test_a_retrying_client_succeeds_once_the_clock_has_moved(emu):
    t = provisioned(emu.ddb, 5, 1)
    put(emu.ddb, t, "k0", kb=10)  # 9 units owed
    emu.freeze()
    retrying = boto3.client(
        "dynamodb", endpoint_url=emu.url, region_name=REGION, aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        config=botocore.config.Config(retries={"mode": "standard", "total_max_attempts": 50}))
    throttled = threading.Event()

    def note_attempt(response=None, **_):
        code = (response or (None, {}))[1].get("Error", {}).get("Code") if response else None
        if code == "ProvisionedThroughputExceededException":
            throttled.set()

    retrying.meta.events.register("needs-retry.dynamodb.PutItem", note_attempt)
    result = {}

    def call():
        try:
            result["resp"] = put(retrying, t, "k1")
        except Exception as e:  # reported below
            result["error"] = e

    worker = threading.Thread(target=call)
    worker.start()
    assert throttled.wait(60), "the first attempt was not throttled"
    emu.thaw(60)  # the debt is paid: a retry goes through
    worker.join(120)
    assert not worker.is_alive()
    assert "error" not in result, result.get("error")
    assert result["resp"]["ResponseMetadata"]["RetryAttempts"] >= 1
    assert exists(emu.ddb, t, "k1")


def test_a_client_without_retries_sees_the_exception(emu):
    t = provisioned(emu.ddb, 5, 1)
    put(emu.ddb, t, "k0", kb=10)
    emu.freeze()
    err = client_error(put, emu.ddb, t, "k1")
    assert_error(err, "ProvisionedThroughputExceededException", TABLE_EXCEEDED)
    assert err.response["ResponseMetadata"]["RetryAttempts"] == 0


# ---- on demand: per partition, initial throughput, previous peak ----

BIG_KB = 381  # a ~390 KB item: 381 write units


def test_on_demand_partition_serves_1000_write_units_per_second(emu):
    ddb = emu.ddb
    t = provisioned(ddb, None, None)
    now = emu.now_ms()
    for _ in range(3):  # starts at 0, 381 and 762 units: below 1,000, admitted
        emu.pin(now)
        put(ddb, t, "hot", kb=BIG_KB)  # an overwrite costs the larger item: 381
    emu.pin(now)
    err = client_error(put, ddb, t, "hot", kb=BIG_KB)  # 1,143 in the last second
    assert_error(err, "ThrottlingException", TABLE_THROTTLED)
    emu.pin(now)
    put(ddb, t, "cold")  # another partition key has its own 1,000
    emu.pin(now + 2000)  # two seconds later the window is empty again
    put(ddb, t, "hot", kb=BIG_KB)


def test_on_demand_table_takes_4000_write_units_then_twice_its_previous_peak(emu):
    ddb = emu.ddb
    t = provisioned(ddb, None, None)
    now = emu.now_ms()
    for i in range(11):  # 3,810 before the 11th: it starts, and takes 4,191
        emu.pin(now)
        put(ddb, t, f"p{i}", kb=BIG_KB)
    emu.pin(now)
    err = client_error(put, ddb, t, "p11", kb=BIG_KB)
    assert_error(err, "ThrottlingException", TABLE_THROTTLED)
    # 30 minutes later 4,191 is the previous peak: twice it is taken at once.
    later = now + 31 * 60 * 1000
    for i in range(12):
        emu.pin(later)
        put(ddb, t, f"q{i}", kb=BIG_KB)


def test_without_the_flag_nothing_is_throttled(dynamodb):
    t = provisioned(dynamodb, 1, 1)
    try:
        for i in range(5):
            put(dynamodb, t, f"k{i}", kb=10)
        for i in range(5):
            dynamodb.get_item(TableName=t, Key={"pk": {"S": f"k{i}"}}, ConsistentRead=True)
    finally:
        dynamodb.delete_table(TableName=t)
