# SPDX-License-Identifier: MIT
"""The real-time chat design of SCHEMAS.md section 1, end to end through boto3.

One table PK/SK (S/S) with GSI1 on GSI1PK/GSI1SK: connections, user
connections, rooms, messages, last messages, memberships and profiles. The
access patterns: GetItem by connection id; Query PK = :pk AND
begins_with(SK, :p) for a user's connections and rooms; the latest 50
messages newest first (ScanIndexForward false, Limit 50) paged with
ExclusiveStartKey; a user's rooms through GSI1; BatchGetItem of METADATA +
LASTMESSAGE for 50 rooms (100 keys, the maximum - 101 must fail with a
ValidationException and change nothing).
"""

import uuid

import pytest

from paging import all_pages, snapshot
from util import assert_error, client_error

S = lambda v: {"S": v}  # noqa: E731


@pytest.fixture(scope="module")
def chat(dynamodb, _session_tables):
    name = _session_tables(("PK", "S"), ("SK", "S"), AttributeDefinitions=[
        {"AttributeName": n, "AttributeType": "S"} for n in ("PK", "SK", "GSI1PK", "GSI1SK")],
        GlobalSecondaryIndexes=[{"IndexName": "GSI1", "KeySchema": [
            {"AttributeName": "GSI1PK", "KeyType": "HASH"},
            {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}])
    now = 1_700_000_000_000
    writes = []
    for c in range(3):
        conn = f"conn{c}"
        ttl = {"N": str(now // 1000 + 86400)}
        writes.append({"PK": S(f"CONNECTION#{conn}"), "SK": S("METADATA"), "userId": S("u1"),
                       "connectedAt": {"N": str(now)}, "ttl": ttl})
        writes.append({"PK": S("USER#u1"), "SK": S(f"CONNECTION#{conn}"), "ttl": ttl})
    writes.append({"PK": S("USER#u1"), "SK": S("PROFILE"), "nickname": S("alice")})
    for r in range(50):
        room = f"room{r:02}"
        writes.append({"PK": S(f"CHATROOM#{room}"), "SK": S("METADATA"), "name": S(room),
                       "type": S("group"), "participantIds": {"L": [S("u1"), S("u2")]}})
        writes.append({"PK": S(f"CHATROOM#{room}"), "SK": S("LASTMESSAGE"),
                       "lastMessageAt": {"N": str(now + r)}, "lastMessage": S(f"hi {r}")})
        if r < 5:
            writes.append({"PK": S("USER#u1"), "SK": S(f"CHATROOM#{room}"),
                           "joinedAt": {"N": str(now + r)}, "GSI1PK": S("USERROOMS#u1"),
                           "GSI1SK": S(f"{now + r}")})
    messages = []
    for m in range(120):
        sk = f"MESSAGE#{now + m * 1000}#{uuid.UUID(int=m)}"
        messages.append(sk)
        writes.append({"PK": S("CHATROOM#room00"), "SK": S(sk), "senderId": S("u1"),
                       "content": S(f"message {m}"), "messageType": S("text")})
    for start in range(0, len(writes), 25):
        dynamodb.batch_write_item(RequestItems={name: [
            {"PutRequest": {"Item": w}} for w in writes[start:start + 25]]})
    return name, messages


def test_connection_by_id(dynamodb, chat):
    name, _ = chat
    item = dynamodb.get_item(TableName=name, Key={"PK": S("CONNECTION#conn1"),
                                                  "SK": S("METADATA")})["Item"]
    assert item["userId"] == S("u1")


def test_user_connections_and_rooms_by_prefix(dynamodb, chat):
    name, _ = chat

    def by_prefix(prefix):
        items, _ = all_pages(dynamodb.query, TableName=name,
                             KeyConditionExpression="PK = :pk AND begins_with(SK, :p)",
                             ExpressionAttributeValues={":pk": S("USER#u1"), ":p": S(prefix)})
        return [i["SK"]["S"] for i in items]

    assert by_prefix("CONNECTION#") == [f"CONNECTION#conn{c}" for c in range(3)]
    assert by_prefix("CHATROOM#") == [f"CHATROOM#room{r:02}" for r in range(5)]
    assert by_prefix("PROFILE") == ["PROFILE"]


def test_latest_50_messages_newest_first_with_paging(dynamodb, chat):
    # Limit 50 newest first; ExclusiveStartKey continues into older messages.
    name, messages = chat
    args = dict(TableName=name, KeyConditionExpression="PK = :pk AND begins_with(SK, :m)",
                ExpressionAttributeValues={":pk": S("CHATROOM#room00"), ":m": S("MESSAGE#")},
                ScanIndexForward=False, Limit=50)
    newest = list(reversed(messages))
    page = dynamodb.query(**args)
    assert [i["SK"]["S"] for i in page["Items"]] == newest[:50]
    assert page["LastEvaluatedKey"] == {"PK": S("CHATROOM#room00"), "SK": S(newest[49])}
    page2 = dynamodb.query(ExclusiveStartKey=page["LastEvaluatedKey"], **args)
    assert [i["SK"]["S"] for i in page2["Items"]] == newest[50:100]
    page3 = dynamodb.query(ExclusiveStartKey=page2["LastEvaluatedKey"], **args)
    assert [i["SK"]["S"] for i in page3["Items"]] == newest[100:]
    assert "LastEvaluatedKey" not in page3
    # The same walk through boto3's paginator.
    paginator = dynamodb.get_paginator("query")
    pages = list(paginator.paginate(PaginationConfig={"PageSize": 50}, **{
        k: v for k, v in args.items() if k != "Limit"}))
    assert [i["SK"]["S"] for p in pages for i in p["Items"]] == newest
    assert [len(p["Items"]) for p in pages] == [50, 50, 20]


def test_user_rooms_through_gsi1(dynamodb, chat):
    name, _ = chat
    got = dynamodb.query(TableName=name, IndexName="GSI1",
                         KeyConditionExpression="GSI1PK = :u",
                         ExpressionAttributeValues={":u": S("USERROOMS#u1")},
                         ScanIndexForward=False)["Items"]
    assert [i["SK"]["S"] for i in got] == [f"CHATROOM#room{r:02}" for r in range(4, -1, -1)]


def test_batch_get_metadata_and_last_message_of_50_rooms(dynamodb, chat):
    # 100 keys - the BatchGetItem maximum - in one call.
    name, _ = chat
    keys = []
    for r in range(50):
        keys.append({"PK": S(f"CHATROOM#room{r:02}"), "SK": S("METADATA")})
        keys.append({"PK": S(f"CHATROOM#room{r:02}"), "SK": S("LASTMESSAGE")})
    resp = dynamodb.batch_get_item(RequestItems={name: {"Keys": keys}})
    assert resp["UnprocessedKeys"] == {}
    got = resp["Responses"][name]
    assert len(got) == 100
    assert sum(1 for i in got if i["SK"] == S("LASTMESSAGE")) == 50
    # 101 keys: refused, no value printed and the member spelt as in the
    # request (nubo-db/dynamodb-conformance, checked against AWS), and nothing
    # changed.
    before = snapshot(dynamodb, name)
    err = client_error(dynamodb.batch_get_item, RequestItems={name: {"Keys": keys + [
        {"PK": S("CHATROOM#room50"), "SK": S("METADATA")}]}})
    assert_error(err, "ValidationException",
                 f"1 validation error detected: Value at 'RequestItems.{name}.member.Keys' failed "
                 "to satisfy constraint: Member must have length less than or equal to 100")
    assert snapshot(dynamodb, name) == before
