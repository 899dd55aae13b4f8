# SPDX-License-Identifier: MIT
"""Emulator only: --consistency aws (docs/consistency.md).

DynamoDB is less consistent than any local emulator: an eventually consistent
read "may not reflect the results of a recently completed write operation"
(developerguide/HowItWorks.ReadConsistency.html), every GSI read is eventually
consistent and "write operations propagate to a GSI within 1 second"
(repost.aws knowledge-center/dynamodb-missing-table-items-gsi), and a request
that meets an ongoing transaction conflicts (developerguide/transaction-apis.html,
"Transaction conflict handling in DynamoDB"). With the model on, ddbemu shows
each of these deterministically on its engine clock. Each test freezes the
clock of its own server and moves it by hand, so nothing here depends on how
fast the machine is.
"""

import json
import threading
import urllib.error
import urllib.request
import uuid

import pytest
from botocore.exceptions import ClientError

from conftest import make_client
from util import unique_table_name

pytestmark = pytest.mark.usefixtures("emulator")

REGION = "us-east-1"


class Emu:
    """A dedicated server, one namespace with the model on, and its client."""

    def __init__(self, srv, **settings):
        self.url = srv.endpoint_url
        self.access_key = "AKIDCONS" + uuid.uuid4().hex[:12].upper()
        self.ddb = make_client(self.url, access_key=self.access_key, region=REGION)
        self.set(mode="aws", **settings)

    def control(self, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + "/ddbemu/" + path, data=data,
                                     method="POST" if data is not None else "GET")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def set(self, **settings):
        body = dict(settings, access_key=self.access_key, region=REGION)
        status, answer = self.control("consistency", body)
        assert status == 200, answer
        return answer

    def freeze(self):
        assert self.control("clock", {"freeze": True})[0] == 200

    def advance_ms(self, ms):
        assert self.control("clock", {"advance_ms": ms})[0] == 200

    def report(self, table):
        status, body = self.control(
            f"insight/{table}?access_key={self.access_key}&region={REGION}")
        assert status == 200, body
        return body["tables"][0]


@pytest.fixture
def emu(start_server):
    e = Emu(start_server("--ttl-interval", "3600"), read_lag_ms=1000, gsi_lag_ms=2000,
            transaction_ms=500, seed=None)
    e.freeze()
    return e


def create_table(ddb, gsi=False, lsi=False):
    name = unique_table_name("cons")
    attrs = [{"AttributeName": "pk", "AttributeType": "S"},
             {"AttributeName": "sk", "AttributeType": "S"}]
    kwargs = {}
    if gsi:
        attrs.append({"AttributeName": "status", "AttributeType": "S"})
        kwargs["GlobalSecondaryIndexes"] = [{
            "IndexName": "by_status",
            "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}]
    if lsi:
        attrs.append({"AttributeName": "rank", "AttributeType": "N"})
        kwargs["LocalSecondaryIndexes"] = [{
            "IndexName": "by_rank",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "rank", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}]
    ddb.create_table(TableName=name, AttributeDefinitions=attrs,
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                     BillingMode="PAY_PER_REQUEST", **kwargs)
    return name


def key(pk, sk="a"):
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def get(ddb, table, k, consistent=False):
    return ddb.get_item(TableName=table, Key=k, ConsistentRead=consistent).get("Item")


def sks(items):
    return [it["sk"]["S"] for it in items]


def error_of(excinfo):
    return excinfo.value.response["Error"]


# ---- eventually consistent reads ----

def test_get_item_is_stale_until_the_clock_passes_the_read_lag(emu):
    ddb = emu.ddb
    table = create_table(ddb)
    ddb.put_item(TableName=table, Item={**key("p"), "v": {"N": "1"}})
    # The write is invisible to an eventually consistent read, never to a strong one.
    assert get(ddb, table, key("p")) is None
    assert get(ddb, table, key("p"), consistent=True)["v"] == {"N": "1"}
    emu.advance_ms(1001)
    assert get(ddb, table, key("p"))["v"] == {"N": "1"}
    ddb.update_item(TableName=table, Key=key("p"), UpdateExpression="SET v = :v",
                    ExpressionAttributeValues={":v": {"N": "2"}})
    # A stale answer is a state the item really had.
    assert get(ddb, table, key("p"))["v"] == {"N": "1"}
    emu.advance_ms(999)
    assert get(ddb, table, key("p"))["v"] == {"N": "1"}
    emu.advance_ms(1)
    assert get(ddb, table, key("p"))["v"] == {"N": "2"}
    ddb.delete_item(TableName=table, Key=key("p"))
    assert get(ddb, table, key("p"))["v"] == {"N": "2"}
    assert get(ddb, table, key("p"), consistent=True) is None
    emu.advance_ms(1000)
    assert get(ddb, table, key("p")) is None
    assert emu.report(table)["consistency"]["stale_reads"] == 4


def test_query_scan_and_batch_get_answer_as_of_the_lag(emu):
    ddb = emu.ddb
    table = create_table(ddb)
    for sk in "abc":
        ddb.put_item(TableName=table, Item={**key("p", sk), "v": {"S": "old"}})
    emu.advance_ms(1001)
    ddb.delete_item(TableName=table, Key=key("p", "a"))
    ddb.put_item(TableName=table, Item={**key("p", "b"), "v": {"S": "new"}})
    ddb.put_item(TableName=table, Item={**key("p", "d"), "v": {"S": "new"}})

    def query(**kw):
        return ddb.query(TableName=table, KeyConditionExpression="pk = :p",
                         ExpressionAttributeValues={":p": {"S": "p"}}, **kw)["Items"]

    stale = query()
    assert sks(stale) == ["a", "b", "c"]
    assert [it["v"]["S"] for it in stale] == ["old", "old", "old"]
    assert sks(query(ScanIndexForward=False)) == ["c", "b", "a"]
    assert sks(query(ConsistentRead=True)) == ["b", "c", "d"]
    # Pages of a stale read stay within their range and Limit.
    page = ddb.query(TableName=table, KeyConditionExpression="pk = :p",
                     ExpressionAttributeValues={":p": {"S": "p"}}, Limit=2)
    assert sks(page["Items"]) == ["a", "b"]
    assert sorted(sks(ddb.scan(TableName=table)["Items"])) == ["a", "b", "c"]
    got = ddb.batch_get_item(RequestItems={table: {"Keys": [key("p", "a"), key("p", "d")]}})
    assert sks(got["Responses"][table]) == ["a"]
    got = ddb.batch_get_item(RequestItems={table: {"Keys": [key("p", "a"), key("p", "d")],
                                                   "ConsistentRead": True}})
    assert sks(got["Responses"][table]) == ["d"]
    emu.advance_ms(1000)
    assert sks(query()) == ["b", "c", "d"]
    assert [it["v"]["S"] for it in query()] == ["new", "old", "new"]


def test_gsi_propagates_after_its_own_lag_and_a_moved_item_shows_under_its_old_key(emu):
    ddb = emu.ddb
    table = create_table(ddb, gsi=True)
    emu.set(read_lag_ms=0)
    ddb.put_item(TableName=table, Item={**key("order1"), "status": {"S": "open"}})

    def by_status(status):
        return ddb.query(TableName=table, IndexName="by_status",
                         KeyConditionExpression="#s = :s",
                         ExpressionAttributeNames={"#s": "status"},
                         ExpressionAttributeValues={":s": {"S": status}})["Items"]

    # The base table is current (read lag 0); the GSI misses the new item.
    assert get(ddb, table, key("order1")) is not None
    assert by_status("open") == []
    emu.advance_ms(2001)
    assert len(by_status("open")) == 1
    ddb.update_item(TableName=table, Key=key("order1"), UpdateExpression="SET #s = :c",
                    ExpressionAttributeNames={"#s": "status"},
                    ExpressionAttributeValues={":c": {"S": "closed"}})
    # During propagation the item is still under its old key, not yet under the new one.
    assert len(by_status("open")) == 1
    assert by_status("closed") == []
    emu.advance_ms(2000)
    assert by_status("open") == []
    assert len(by_status("closed")) == 1
    assert emu.report(table)["consistency"]["gsi_stale_reads"] == 3


def test_lsi_strongly_consistent_reads_see_the_latest_write(emu):
    ddb = emu.ddb
    table = create_table(ddb, lsi=True)
    ddb.put_item(TableName=table, Item={**key("p"), "rank": {"N": "5"}})

    def by_rank(consistent):
        return ddb.query(TableName=table, IndexName="by_rank", ConsistentRead=consistent,
                         KeyConditionExpression="pk = :p",
                         ExpressionAttributeValues={":p": {"S": "p"}})["Items"]

    assert by_rank(False) == []
    assert len(by_rank(True)) == 1


def test_a_seed_makes_which_reads_are_stale_reproducible(emu):
    ddb = emu.ddb
    table = create_table(ddb)
    ddb.put_item(TableName=table, Item={**key("p"), "v": {"N": "1"}})
    emu.advance_ms(500)

    def pattern():
        return [get(ddb, table, key("p")) is None for _ in range(40)]

    emu.set(seed=42)
    first = pattern()
    emu.set(seed=42)
    assert pattern() == first
    # Drawn lags in [0, 1000] against a write 500 ms old: some reads stale, some not.
    assert any(first) and not all(first)
    emu.set(seed=None)
    assert all(pattern())


def test_off_by_default_and_per_namespace(emu, start_server):
    srv_ddb = make_client(emu.url, access_key="AKIDOTHERNAMESPACE", region=REGION)
    table = create_table(srv_ddb)
    srv_ddb.put_item(TableName=table, Item={**key("p"), "v": {"N": "1"}})
    assert get(srv_ddb, table, key("p")) is not None
    status, body = emu.control("consistency")
    assert status == 200 and body["mode"] == "off" and body["scope"] == "engine"
    assert emu.control("consistency", {"mode": "sometimes"})[0] == 400
    assert emu.control("consistency", {"read_lag_ms": -1})[0] == 400


# ---- transaction conflicts: the Developer Guide's list, row by row ----

def transact_put(ddb, table, k, token=None, v="t"):
    kwargs = {"ClientRequestToken": token} if token else {}
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": {**k, "v": {"S": v}}}}], **kwargs)


@pytest.mark.parametrize("op", ["PutItem", "UpdateItem", "DeleteItem"])
def test_a_single_write_of_a_held_item_fails_with_transaction_conflict(emu, op):
    """"A PutItem, UpdateItem, or DeleteItem request for an item conflicts with
    an ongoing TransactWriteItems request that includes the same item." """
    ddb = emu.ddb
    table = create_table(ddb)
    transact_put(ddb, table, key("held"))
    calls = {
        "PutItem": lambda: ddb.put_item(TableName=table, Item={**key("held"), "v": {"S": "p"}}),
        "UpdateItem": lambda: ddb.update_item(TableName=table, Key=key("held"),
                                              UpdateExpression="SET v = :v",
                                              ExpressionAttributeValues={":v": {"S": "u"}}),
        "DeleteItem": lambda: ddb.delete_item(TableName=table, Key=key("held")),
    }
    with pytest.raises(ClientError) as e:
        calls[op]()
    assert error_of(e)["Code"] == "TransactionConflictException"
    assert error_of(e)["Message"] == "Transaction is ongoing for the item"
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert get(ddb, table, key("held"), consistent=True)["v"] == {"S": "t"}
    # Another item is free, and the held one is free once the transaction is done.
    ddb.put_item(TableName=table, Item={**key("free"), "v": {"S": "p"}})
    emu.advance_ms(500)
    calls[op]()
    assert emu.report(table)["consistency"]["transaction_conflicts"] == 1


def test_a_transaction_naming_a_held_item_is_canceled_at_its_position(emu):
    """"An item within a TransactWriteItems request is part of another ongoing
    TransactWriteItems request." """
    ddb = emu.ddb
    table = create_table(ddb)
    transact_put(ddb, table, key("held"))
    with pytest.raises(ClientError) as e:
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": table, "Item": {**key("other"), "v": {"S": "x"}}}},
            {"Update": {"TableName": table, "Key": key("held"), "UpdateExpression": "SET v = :v",
                        "ExpressionAttributeValues": {":v": {"S": "x"}}}}])
    err = e.value.response
    assert err["Error"]["Code"] == "TransactionCanceledException"
    assert err["Error"]["Message"] == ("Transaction cancelled, please refer cancellation "
                                       "reasons for specific reasons [None, TransactionConflict]")
    assert [r["Code"] for r in err["CancellationReasons"]] == ["None", "TransactionConflict"]
    assert err["CancellationReasons"][1]["Message"] == "Transaction is ongoing for the item"
    # All or nothing: the other item was not written.
    assert get(ddb, table, key("other"), consistent=True) is None
    emu.advance_ms(500)
    transact_put(ddb, table, key("held"), v="second")
    assert get(ddb, table, key("held"), consistent=True)["v"] == {"S": "second"}


def test_a_condition_check_holds_its_item_too(emu):
    ddb = emu.ddb
    table = create_table(ddb)
    ddb.put_item(TableName=table, Item={**key("checked"), "v": {"S": "c"}})
    ddb.transact_write_items(TransactItems=[
        {"ConditionCheck": {"TableName": table, "Key": key("checked"),
                            "ConditionExpression": "attribute_exists(pk)"}},
        {"Put": {"TableName": table, "Item": {**key("w"), "v": {"S": "w"}}}}])
    with pytest.raises(ClientError) as e:
        ddb.put_item(TableName=table, Item={**key("checked"), "v": {"S": "x"}})
    assert error_of(e)["Code"] == "TransactionConflictException"


def test_transact_get_items_of_a_held_item_is_canceled(emu):
    """"An item within a TransactGetItems request is part of an ongoing
    TransactWriteItems ... request." """
    ddb = emu.ddb
    table = create_table(ddb)
    ddb.put_item(TableName=table, Item={**key("free"), "v": {"S": "f"}})
    transact_put(ddb, table, key("held"))
    with pytest.raises(ClientError) as e:
        ddb.transact_get_items(TransactItems=[{"Get": {"TableName": table, "Key": key("free")}},
                                              {"Get": {"TableName": table, "Key": key("held")}}])
    assert [r["Code"] for r in e.value.response["CancellationReasons"]] == \
        ["None", "TransactionConflict"]
    emu.advance_ms(500)
    got = ddb.transact_get_items(TransactItems=[{"Get": {"TableName": table, "Key": key("held")}}])
    assert got["Responses"][0]["Item"]["v"] == {"S": "t"}


def test_get_item_during_a_transaction_succeeds(emu):
    """"If an ongoing TransactWriteItems or TransactGetItems operation conflicts
    with a concurrent GetItem request, both operations can succeed." """
    ddb = emu.ddb
    table = create_table(ddb)
    emu.set(read_lag_ms=0)
    transact_put(ddb, table, key("held"))
    assert get(ddb, table, key("held"))["v"] == {"S": "t"}
    assert get(ddb, table, key("held"), consistent=True)["v"] == {"S": "t"}


def test_a_same_token_retry_in_flight_is_in_progress_then_idempotent(emu):
    ddb = emu.ddb
    table = create_table(ddb)
    token = "tok-" + uuid.uuid4().hex
    transact_put(ddb, table, key("held"), token=token)
    with pytest.raises(ClientError) as e:
        transact_put(ddb, table, key("held"), token=token)
    assert error_of(e)["Code"] == "TransactionInProgressException"
    emu.advance_ms(500)
    transact_put(ddb, table, key("held"), token=token)  # the idempotent replay


# ---- many clients: stale reads lose updates, correct code does not ----

THREADS = 6
INCREMENTS = 8


def run_clients(worker):
    errors = []

    def guarded(n):
        try:
            worker(n)
        except Exception as exc:  # reported below, with the thread's number
            errors.append(f"client {n}: {exc!r}")

    threads = [threading.Thread(target=guarded, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.fixture
def counter(start_server):
    # A running clock and a 60 s read lag: for the whole test every eventually
    # consistent read answers as of before the counter's last change.
    e = Emu(start_server("--ttl-interval", "3600"), read_lag_ms=60000, transaction_ms=5)
    table = create_table(e.ddb)
    e.ddb.put_item(TableName=table, Item={**key("counter"), "n": {"N": "0"}, "ver": {"N": "0"}})
    e.advance_ms(61000)
    return e, table


def final_count(e, table):
    return int(get(e.ddb, table, key("counter"), consistent=True)["n"]["N"])


def test_read_modify_write_with_stale_reads_loses_updates(counter):
    e, table = counter

    def worker(n):
        ddb = make_client(e.url, access_key=e.access_key, region=REGION)
        for _ in range(INCREMENTS):
            n_now = int(get(ddb, table, key("counter"))["n"]["N"])
            ddb.put_item(TableName=table, Item={**key("counter"), "n": {"N": str(n_now + 1)},
                                                "ver": {"N": "0"}})

    run_clients(worker)
    # Every read saw 0: all but one increment were lost. Only the reads made
    # before any client's first write were current.
    assert final_count(e, table) == 1
    assert e.report(table)["consistency"]["stale_reads"] >= THREADS * (INCREMENTS - 1)


def test_consistent_reads_with_conditional_writes_lose_nothing(counter):
    e, table = counter

    def worker(n):
        ddb = make_client(e.url, access_key=e.access_key, region=REGION)
        done = 0
        while done < INCREMENTS:
            item = get(ddb, table, key("counter"), consistent=True)
            ver = int(item["ver"]["N"])
            try:
                ddb.put_item(TableName=table,
                             Item={**key("counter"), "n": {"N": str(int(item["n"]["N"]) + 1)},
                                   "ver": {"N": str(ver + 1)}},
                             ConditionExpression="ver = :v",
                             ExpressionAttributeValues={":v": {"N": str(ver)}})
                done += 1
            except ClientError as exc:
                if exc.response["Error"]["Code"] not in ("ConditionalCheckFailedException",
                                                         "TransactionConflictException"):
                    raise

    run_clients(worker)
    assert final_count(e, table) == THREADS * INCREMENTS


def test_transactions_with_retries_lose_nothing(counter):
    e, table = counter

    def worker(n):
        ddb = make_client(e.url, access_key=e.access_key, region=REGION)
        done = 0
        while done < INCREMENTS:
            try:
                ddb.transact_write_items(TransactItems=[
                    {"Update": {"TableName": table, "Key": key("counter"),
                                "UpdateExpression": "SET n = n + :one",
                                "ExpressionAttributeValues": {":one": {"N": "1"}}}},
                    {"Put": {"TableName": table,
                             "Item": {**key("log", f"{n}-{done}"), "by": {"N": str(n)}}}}])
                done += 1
            except ClientError as exc:
                if exc.response["Error"]["Code"] not in ("TransactionCanceledException",
                                                         "TransactionConflictException"):
                    raise

    run_clients(worker)
    assert final_count(e, table) == THREADS * INCREMENTS
    assert e.report(table)["consistency"]["transaction_conflicts"] > 0
