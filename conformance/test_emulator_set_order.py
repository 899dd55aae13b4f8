# SPDX-License-Identifier: MIT
"""Set order: an emulator behaviour, not a DynamoDB rule.

DynamoDB defines string, number and binary sets as unordered (developer guide,
HowItWorks.NamingRulesDataTypes: "The order of the values within a set is not
preserved. Therefore, your applications must not rely on any particular order
of elements within the set."). Test suites written against DynamoDB Local do
rely on the order it returns, so ddbemu returns sets in that order, in every
read, ReturnValues, PartiQL answer, stream image and export:

- SS by UTF-16 code units, as Java's String.compareTo (upper case before
  lower case, a prefix first, U+1F600 - the surrogates D83D DE00 - before
  U+E000..U+FFFF, where UTF-8 byte order puts it after them);
- NS numerically (-10 < -1 < 0.001 < 9 < 10 < 100), written back in
  canonical form (1e2 is 100, 1.50 is 1.5);
- BS by bytes as unsigned (7f < 80 < ff), a prefix first.

The order does not depend on the order the members were given in, and
UpdateItem's ADD and DELETE keep it. How we know: DynamoDB Local 1.25.1 (the
DynamoDBLocal.jar in the npm package amplify-dynamodb-simulator), probed with
boto3 through each of the operations below; docs/differences.md records it.

Since this is DynamoDB Local's behaviour, this file also runs against
DynamoDB Local (DDBEMU_ENDPOINT=http://127.0.0.1:8000), where every test
passes except those that need ddbemu (exports; a PartiQL set literal, which
DynamoDB Local keeps in its written order until an update touches it, and
ddbemu sorts like every other set). It is skipped against AWS.
"""

import base64
import gzip
import json
import random
import time
from decimal import Decimal

import pytest

from conftest import running_against_aws
from transfer_util import make_bucket

pytestmark = pytest.mark.skipif(
    running_against_aws(), reason="DynamoDB Local's set order; AWS leaves it open")

# Each set given in an order that is neither sorted nor reverse sorted, and
# the order DynamoDB Local returns.
SS_GIVEN = ["b", "\uff21", "a", "B", "\U0001f600", "A", "\u00e9", "ab", "a ", "~", "\ue000",
            "\ufffd", "\ud7ff", "Z", "0", "\u00c9", "\u00ff", "\u0100"]
SS_SORTED = ["0", "A", "B", "Z", "a", "a ", "ab", "b", "~", "\u00c9", "\u00e9", "\u00ff",
             "\u0100", "\ud7ff", "\U0001f600", "\ue000", "\uff21", "\ufffd"]
NS_GIVEN = ["1", "10", "9", "-1", "1e2", "0.001", "100.5", "2", "-10", "-0.5", "0"]
NS_SORTED = ["-10", "-1", "-0.5", "0", "0.001", "1", "2", "9", "10", "100", "100.5"]
BS_GIVEN = [b"\x80", b"\x7f", b"\xff", b"\x00", b"\x01", b"\xfe", b"\x00\x00", b"\xff\x00",
            b"a", b"ab", b"B"]
BS_SORTED = [b"\x00", b"\x00\x00", b"\x01", b"B", b"a", b"ab", b"\x7f", b"\x80", b"\xfe",
             b"\xff", b"\xff\x00"]

ITEM_SETS = {"ss": {"SS": SS_GIVEN}, "ns": {"NS": NS_GIVEN}, "bs": {"BS": BS_GIVEN}}
WANT = {"ss": {"SS": SS_SORTED}, "ns": {"NS": NS_SORTED}, "bs": {"BS": BS_SORTED}}


def the_sets(item):
    return {name: item[name] for name in ("ss", "ns", "bs")}


def put_sets(dynamodb, table, key, given=None):
    item = {"p": {"S": key}, **(given or ITEM_SETS)}
    dynamodb.put_item(TableName=table, Item=item)


def get(dynamodb, table, key):
    return dynamodb.get_item(TableName=table, Key={"p": {"S": key}},
                             ConsistentRead=True)["Item"]


def utf16(s):
    return s.encode("utf-16-be")


@pytest.mark.parametrize("kind,given,want", [
    ("SS", SS_GIVEN, SS_SORTED),
    ("NS", NS_GIVEN, NS_SORTED),
    ("BS", BS_GIVEN, BS_SORTED),
    # numbers of other scales, written in other forms, come back canonical
    ("NS", ["1.50", "01", "1E+1", "-0", "1e-3", "12345678901234567890123456789012345678e-10"],
     ["0", "0.001", "1", "1.5", "10", "1234567890123456789012345678.9012345678"]),
    ("NS", ["1e125", "-1e125", "1e-130", "-1e-130", "0"],
     ["-1" + "0" * 125, "-0." + "0" * 129 + "1", "0", "0." + "0" * 129 + "1", "1" + "0" * 125]),
    ("NS", ["1.10", "1.09", "1.1e1"], ["1.09", "1.1", "11"]),
    ("NS", ["11", "2", "3", "100", "20"], ["2", "3", "11", "20", "100"]),
    # supplementary characters (surrogates D800..DFFF) sort between U+D7FF and U+E000
    ("SS", ["\uff61", "\U00010000", "\ud7ff"], ["\ud7ff", "\U00010000", "\uff61"]),
    ("SS", ["\u0800", "\u07ff", "\u0080", "\u007f"], ["\u007f", "\u0080", "\u07ff", "\u0800"]),
])
def test_a_set_comes_back_in_dynamodb_locals_order(dynamodb, table_s, kind, given, want):
    # Given in two orders, read back in one.
    for members in (given, list(reversed(given))):
        put_sets(dynamodb, table_s, "order", {"v": {kind: members}})
        assert get(dynamodb, table_s, "order")["v"] == {kind: want}


def test_random_sets_follow_the_comparators(dynamodb, table_s):
    # Members drawn where the candidate orders disagree: UTF-16 against UTF-8
    # order, numeric against textual, unsigned against signed bytes.
    rng = random.Random(29)
    alphabet = ["a", "b", "A", "B", "0", "\u00e9", "\u00c9", "\U0001f600", "\ufffd", "\ue000",
                "\u00ff", "\u0100", "\ud7ff", "\U00010000", " ", "~", "\u007f"]
    for i in range(20):
        ss, ns, bs = set(), set(), set()
        while len(ss) < 12:
            ss.add("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4))))
        while len(ns) < 12:  # distinct values: texts of one number would be duplicates
            ns.add(str(Decimal(rng.randint(-10**rng.randint(0, 12), 10**rng.randint(0, 12)))
                       .scaleb(rng.randint(-20, 20)).normalize()))
        while len(bs) < 12:
            bs.add(bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 3))))
        given = {}
        for name, kind, members in (("ss", "SS", ss), ("ns", "NS", ns), ("bs", "BS", bs)):
            members = sorted(members)  # a seeded shuffle, not the hash order of a set
            rng.shuffle(members)
            given[name] = {kind: members}
        put_sets(dynamodb, table_s, f"random-{i}", given)
        got = get(dynamodb, table_s, f"random-{i}")
        assert got["ss"]["SS"] == sorted(ss, key=utf16)
        assert [Decimal(x) for x in got["ns"]["NS"]] == sorted(Decimal(x) for x in ns)
        assert got["bs"]["BS"] == sorted(bs)


def test_every_read_shows_the_order(dynamodb, make_table):
    table = make_table(("p", "S"))
    key = {"p": {"S": "k"}}
    nested = {"M": {"deep": {"SS": ["z", "\u00e9", "a"]},
                    "l": {"L": [{"NS": ["3", "-3", "0.5"]}]}}}
    nested_want = {"M": {"deep": {"SS": ["a", "z", "\u00e9"]},
                         "l": {"L": [{"NS": ["-3", "0.5", "3"]}]}}}
    dynamodb.put_item(TableName=table, Item={**key, **ITEM_SETS, "nested": nested})

    item = get(dynamodb, table, "k")
    assert the_sets(item) == WANT and item["nested"] == nested_want
    query = dynamodb.query(TableName=table, KeyConditionExpression="p = :p",
                           ExpressionAttributeValues={":p": {"S": "k"}})["Items"]
    assert [the_sets(i) for i in query] == [WANT]
    scan = dynamodb.scan(TableName=table)["Items"]
    assert [the_sets(i) for i in scan] == [WANT]
    projected = dynamodb.get_item(TableName=table, Key=key,
                                  ProjectionExpression="ns, nested.deep")["Item"]
    assert projected == {"ns": WANT["ns"], "nested": {"M": {"deep": nested_want["M"]["deep"]}}}
    batch = dynamodb.batch_get_item(RequestItems={table: {"Keys": [key]}})["Responses"][table]
    assert [the_sets(i) for i in batch] == [WANT]
    tx = dynamodb.transact_get_items(TransactItems=[{"Get": {"TableName": table, "Key": key}}])
    assert the_sets(tx["Responses"][0]["Item"]) == WANT
    pql = dynamodb.execute_statement(
        Statement=f'SELECT ss, ns, bs FROM "{table}" WHERE p = \'k\'')["Items"]
    assert pql == [WANT]

    # ReturnValues: the old image of a put, the new one of an update, a delete's.
    old = dynamodb.put_item(TableName=table, Item={**key, **ITEM_SETS},
                            ReturnValues="ALL_OLD")["Attributes"]
    assert the_sets(old) == WANT and old["nested"] == nested_want
    new = dynamodb.update_item(TableName=table, Key=key, UpdateExpression="SET x = :x",
                               ExpressionAttributeValues={":x": {"S": "x"}},
                               ReturnValues="ALL_NEW")["Attributes"]
    assert the_sets(new) == WANT
    gone = dynamodb.delete_item(TableName=table, Key=key, ReturnValues="ALL_OLD")["Attributes"]
    assert the_sets(gone) == WANT

    # Writes by batch, transaction and PartiQL parameters store the same order.
    dynamodb.batch_write_item(RequestItems={table: [
        {"PutRequest": {"Item": {"p": {"S": "batch"}, **ITEM_SETS}}}]})
    dynamodb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": {"p": {"S": "tx"}, **ITEM_SETS}}}])
    dynamodb.execute_statement(
        Statement=f"INSERT INTO \"{table}\" VALUE {{'p': 'pql', 'ss': ?, 'ns': ?, 'bs': ?}}",
        Parameters=[ITEM_SETS["ss"], ITEM_SETS["ns"], ITEM_SETS["bs"]])
    for k in ("batch", "tx", "pql"):
        assert the_sets(get(dynamodb, table, k)) == WANT, k


def test_update_add_and_delete_keep_the_order(dynamodb, table_s):
    key = {"p": {"S": "update"}}
    dynamodb.put_item(TableName=table_s, Item={
        **key, "n": {"NS": ["10", "2"]}, "s": {"SS": ["m", "b"]}, "b": {"BS": [b"\x90", b"\x10"]}})
    got = dynamodb.update_item(
        TableName=table_s, Key=key, UpdateExpression="ADD n :n, s :s, b :b",
        ExpressionAttributeValues={":n": {"NS": ["-5", "100", "1"]},
                                   ":s": {"SS": ["a", "z", "B"]},
                                   ":b": {"BS": [b"\xff", b"\x00", b"\x7f"]}},
        ReturnValues="ALL_NEW")["Attributes"]
    assert got["n"] == {"NS": ["-5", "1", "2", "10", "100"]}
    assert got["s"] == {"SS": ["B", "a", "b", "m", "z"]}
    assert got["b"] == {"BS": [b"\x00", b"\x10", b"\x7f", b"\x90", b"\xff"]}

    got = dynamodb.update_item(
        TableName=table_s, Key=key, UpdateExpression="DELETE n :n, s :s",
        ExpressionAttributeValues={":n": {"NS": ["2"]}, ":s": {"SS": ["m"]}},
        ReturnValues="UPDATED_NEW")["Attributes"]
    assert got == {"n": {"NS": ["-5", "1", "10", "100"]}, "s": {"SS": ["B", "a", "b", "z"]}}

    got = dynamodb.update_item(
        TableName=table_s, Key=key, UpdateExpression="SET n2 = :n, s2 = :s",
        ExpressionAttributeValues={":n": {"NS": ["7", "-7", "0"]}, ":s": {"SS": ["y", "x", "Y"]}},
        ReturnValues="UPDATED_NEW")["Attributes"]
    assert got == {"n2": {"NS": ["-7", "0", "7"]}, "s2": {"SS": ["Y", "x", "y"]}}

    # ADD of a set to an absent attribute, then the old value REMOVE returns.
    dynamodb.update_item(TableName=table_s, Key=key, UpdateExpression="ADD fresh :n",
                         ExpressionAttributeValues={":n": {"NS": ["7", "-7", "0"]}})
    got = dynamodb.update_item(TableName=table_s, Key=key, UpdateExpression="REMOVE fresh",
                               ReturnValues="UPDATED_OLD")["Attributes"]
    assert got == {"fresh": {"NS": ["-7", "0", "7"]}}

    # The legacy AttributeUpdates ADD, and PartiQL's set_add.
    got = dynamodb.update_item(
        TableName=table_s, Key=key,
        AttributeUpdates={"legacy": {"Action": "ADD", "Value": {"SS": ["q", "c", "Q"]}}},
        ReturnValues="UPDATED_NEW")["Attributes"]
    assert got == {"legacy": {"SS": ["Q", "c", "q"]}}
    dynamodb.execute_statement(
        Statement=f"UPDATE \"{table_s}\" SET s = set_add(s, <<'0', 'c'>>) WHERE p = 'update'")
    assert get(dynamodb, table_s, "update")["s"] == {"SS": ["0", "B", "a", "b", "c", "z"]}


def test_stream_images_show_the_order(dynamodb, dynamodbstreams, make_table):
    table = make_table(("p", "S"), StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    key = {"p": {"S": "k"}}
    dynamodb.put_item(TableName=table, Item={**key, **ITEM_SETS})
    dynamodb.update_item(TableName=table, Key=key, UpdateExpression="ADD ns :n",
                         ExpressionAttributeValues={":n": {"NS": ["-100", "5"]}})
    arn = dynamodb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    shard = dynamodbstreams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
    it = dynamodbstreams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                            ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = []
    for _ in range(30):
        page = dynamodbstreams.get_records(ShardIterator=it)
        records += page["Records"]
        if len(records) >= 2 or "NextShardIterator" not in page:
            break
        it = page["NextShardIterator"]
        time.sleep(0.2)
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY"]
    insert, modify = (r["dynamodb"] for r in records)
    assert the_sets(insert["NewImage"]) == WANT
    assert the_sets(modify["OldImage"]) == WANT
    ns = ["-100", "-10", "-1", "-0.5", "0", "0.001", "1", "2", "5", "9", "10", "100", "100.5"]
    assert the_sets(modify["NewImage"]) == {**WANT, "ns": {"NS": ns}}


def test_a_partiql_set_literal_is_stored_in_set_order(dynamodb, table_s, emulator):
    # ddbemu only: DynamoDB Local keeps a <<...>> literal's written order
    # (['c', 'a', 'B'] here) until an update touches the set; ddbemu keeps
    # every set in one order.
    dynamodb.execute_statement(
        Statement=f"INSERT INTO \"{table_s}\" VALUE "
                  f"{{'p': 'literal', 'ss': <<'c', 'a', 'B'>>, 'ns': <<3, -1, 20, 1e1>>}}")
    item = get(dynamodb, table_s, "literal")
    assert item["ss"] == {"SS": ["B", "a", "c"]}
    assert item["ns"] == {"NS": ["-1", "3", "10", "20"]}


@pytest.mark.parametrize("fmt", ["DYNAMODB_JSON", "ION"])
def test_exports_show_the_order(dynamodb, make_table, server, s3_dir, region, fmt):
    bucket = make_bucket(server, s3_dir, region)  # skips without an emulator's --s3-dir
    table = make_table(("p", "S"))
    put_sets(dynamodb, table, "k")
    dynamodb.update_continuous_backups(
        TableName=table, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    arn = dynamodb.describe_table(TableName=table)["Table"]["TableArn"]
    desc = dynamodb.export_table_to_point_in_time(
        TableArn=arn, S3Bucket=bucket.name, ExportFormat=fmt)["ExportDescription"]
    for _ in range(300):
        desc = dynamodb.describe_export(ExportArn=desc["ExportArn"])["ExportDescription"]
        if desc["ExportStatus"] != "IN_PROGRESS":
            break
        time.sleep(0.2)
    assert desc["ExportStatus"] == "COMPLETED", desc
    base = f"AWSDynamoDB/{desc['ExportArn'].rsplit('/', 1)[1]}/data/"
    lines = [line for key in bucket.keys(base)
             for line in gzip.decompress(bucket.get(key)).decode().splitlines() if line]
    assert len(lines) == 1
    if fmt == "DYNAMODB_JSON":
        item = json.loads(lines[0])["Item"]
        assert item["ss"] == {"SS": SS_SORTED}
        assert item["ns"] == {"NS": NS_SORTED}
        assert item["bs"] == {"BS": [base64.b64encode(b).decode() for b in BS_SORTED]}
    else:
        # Ion text: each set is an annotated list, $dynamodb_NS::[-1d1,...].
        assert [Decimal(x.replace("d", "e")) for x in ion_list(lines[0], "NS")] == \
            [Decimal(x) for x in NS_SORTED]
        assert [json.loads(x) for x in ion_list(lines[0], "SS")] == SS_SORTED
        assert [base64.b64decode(x.strip("{}")) for x in ion_list(lines[0], "BS")] == BS_SORTED


def ion_list(line, kind):
    """The members of the set kind in an Ion line, as written (none holds a
    comma or a bracket in these tests)."""
    start = line.index(f"$dynamodb_{kind}::[") + len(f"$dynamodb_{kind}::[")
    return line[start:line.index("]", start)].split(",")
