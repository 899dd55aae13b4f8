# SPDX-License-Identifier: MIT
"""Concurrent like/unlike transactions stay consistent (issue: transactions,
"Concurrency"; SCHEMAS.md section 2).

Several threads, each with its own boto3 client and connection, like and
unlike a few hot comments at random with the four-table like transaction of
seeds/001 and the two-table unlike, while another thread reads the tables
with TransactGetItems and single-item writes land on the same tables. On
DynamoDB a transaction is serializable with every other transaction and
single-item write (developerguide transaction-apis.html, "Isolation levels"),
so at every moment a TransactGetItems sees the counter equal to the number of
like records, and afterwards every counter equals the number of like
records, and every unread notification counts exactly the likes given.

The emulator serializes conflicting transactions instead of cancelling them
with TransactionConflict (docs/differences.md), so here every cancellation
must be a ConditionalCheckFailed of the like (already liked) or of the unlike
(not liked). The run is bounded by a count of operations and by time; timing
itself is never asserted.
"""

import random
import threading
import time

from botocore.exceptions import ClientError

from conftest import make_client
from util import N, S, random_string

THREADS = 4
OPS_PER_THREAD = 150
DEADLINE_S = 60
USERS = [f"user{i}" for i in range(8)]
COMMENTS = ["c1", "c2", "c3"]
AUTHOR = "author"


class Tables:
    def __init__(self, make_table):
        suffix = random_string(8)
        self.favorite = make_table(("commentId", "S"), ("userId", "S"),
                                   name=f"comments-favorite-{suffix}")
        self.count = make_table(("commentId", "S"), name=f"comments-favorite-count-{suffix}")
        self.unread = make_table(
            ("userId", "S"), ("commentId", "S"),
            name=f"notification-fav-to-my-comment-unread-{suffix}",
            AttributeDefinitions=[{"AttributeName": "userId", "AttributeType": "S"},
                                  {"AttributeName": "commentId", "AttributeType": "S"},
                                  {"AttributeName": "numFavorite", "AttributeType": "N"}],
            LocalSecondaryIndexes=[{"IndexName": "numFavorite-index", "KeySchema": [
                {"AttributeName": "userId", "KeyType": "HASH"},
                {"AttributeName": "numFavorite", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "ALL"}}])
        self.unread_count = make_table(
            ("userId", "S"), ("commentId", "S"),
            name=f"notification-fav-to-my-comment-unread-count-{suffix}")

    def like(self, user, comment):
        return [
            {"Put": {"TableName": self.favorite,
                     "Item": {"userId": S(user), "commentId": S(comment)},
                     "ConditionExpression": "attribute_not_exists (#0)",
                     "ExpressionAttributeNames": {"#0": "userId"}}},
            {"Update": {"TableName": self.count, "Key": {"commentId": S(comment)},
                        "ConditionExpression": "attribute_exists (#0)",
                        "ExpressionAttributeNames": {"#0": "count"},
                        "ExpressionAttributeValues": {":0": N(1)},
                        "UpdateExpression": "SET #0 = #0 + :0\n"}},
            {"Update": {"TableName": self.unread,
                        "Key": {"userId": S(AUTHOR), "commentId": S(comment)},
                        "ExpressionAttributeNames": {"#0": "lastupdate", "#1": "numFavorite",
                                                     "#2": "favUserIds"},
                        "ExpressionAttributeValues": {":0": S(str(time.time_ns())), ":1": N(1),
                                                      ":2": {"L": [S(user)]}},
                        "UpdateExpression":
                            "SET #0 = :0, #1 = #1 + :1, #2 = list_append(#2, :2)\n"}},
            {"Update": {"TableName": self.unread_count,
                        "Key": {"userId": S(AUTHOR), "commentId": S(comment)},
                        "ExpressionAttributeNames": {"#0": "count"},
                        "ExpressionAttributeValues": {":0": N(1)},
                        "UpdateExpression": "SET #0 = #0 + :0\n"}},
        ]

    def unlike(self, user, comment):
        return [
            {"Delete": {"TableName": self.favorite,
                        "Key": {"commentId": S(comment), "userId": S(user)},
                        "ConditionExpression": "attribute_exists (#0)",
                        "ExpressionAttributeNames": {"#0": "userId"}}},
            {"Update": {"TableName": self.count, "Key": {"commentId": S(comment)},
                        "ConditionExpression": "attribute_exists (#0)",
                        "ExpressionAttributeNames": {"#0": "count"},
                        "ExpressionAttributeValues": {":0": N(1)},
                        "UpdateExpression": "SET #0 = #0 - :0\n"}},
        ]


def cancelled_codes(err):
    if err.response["Error"]["Code"] != "TransactionCanceledException":
        raise err
    return [r["Code"] for r in err.response["CancellationReasons"]]


def writer(endpoint_url, tables, seed, stats, errors, deadline):
    client = make_client(endpoint_url)
    rng = random.Random(seed)
    try:
        for _ in range(OPS_PER_THREAD):
            if time.monotonic() > deadline:
                break
            user, comment = rng.choice(USERS), rng.choice(COMMENTS)
            try:
                client.transact_write_items(TransactItems=tables.like(user, comment))
                stats["likes"][comment] += 1
                continue
            except ClientError as e:
                codes = cancelled_codes(e)
                assert codes == ["ConditionalCheckFailed", "None", "None", "None"], codes
            try:
                client.transact_write_items(TransactItems=tables.unlike(user, comment))
                stats["unlikes"][comment] += 1
            except ClientError as e:
                codes = cancelled_codes(e)
                assert codes == ["ConditionalCheckFailed", "None"], codes
    except Exception as e:  # reported by the main thread
        errors.append(e)


def reader(endpoint_url, tables, stop, errors, checks):
    """Reads the counter with every possible like record, and the unread
    notification with its count, each in one TransactGetItems."""
    client = make_client(endpoint_url)
    try:
        while not stop.is_set():
            for comment in COMMENTS:
                gets = [{"Get": {"TableName": tables.count, "Key": {"commentId": S(comment)}}}]
                gets += [{"Get": {"TableName": tables.favorite,
                                  "Key": {"commentId": S(comment), "userId": S(u)}}}
                         for u in USERS]
                gets += [{"Get": {"TableName": tables.unread,
                                  "Key": {"userId": S(AUTHOR), "commentId": S(comment)}}},
                         {"Get": {"TableName": tables.unread_count,
                                  "Key": {"userId": S(AUTHOR), "commentId": S(comment)}}}]
                resp = client.transact_get_items(TransactItems=gets)["Responses"]
                count = int(resp[0]["Item"]["count"]["N"])
                liked = sum(1 for r in resp[1:1 + len(USERS)] if "Item" in r)
                assert count == liked, (comment, count, liked)
                unread, unread_count = resp[-2]["Item"], resp[-1]["Item"]
                num = int(unread["numFavorite"]["N"])
                assert num == len(unread["favUserIds"]["L"]) == int(unread_count["count"]["N"])
                checks[0] += 1
    except Exception as e:
        errors.append(e)


def noise(endpoint_url, tables, stop, errors):
    """Single-item writes on the same tables, on keys the likes never use."""
    client = make_client(endpoint_url)
    i = 0
    try:
        while not stop.is_set():
            key = {"commentId": S(f"noise-{i % 5}"), "userId": S("n")}
            client.put_item(TableName=tables.favorite, Item=key)
            client.delete_item(TableName=tables.favorite, Key=key)
            client.put_item(TableName=tables.count,
                            Item={"commentId": S(f"noise-{i % 5}"), "count": N(i)})
            i += 1
    except Exception as e:
        errors.append(e)


def test_parallel_likes_and_unlikes_keep_every_counter_exact(dynamodb, make_table, endpoint_url):
    tables = Tables(make_table)
    for comment in COMMENTS:
        dynamodb.put_item(TableName=tables.count, Item={"commentId": S(comment), "count": N(0)})
        dynamodb.put_item(TableName=tables.unread, Item={
            "userId": S(AUTHOR), "commentId": S(comment), "lastupdate": S("0"),
            "numFavorite": N(0), "favUserIds": {"L": []}})
        dynamodb.put_item(TableName=tables.unread_count, Item={
            "userId": S(AUTHOR), "commentId": S(comment), "count": N(0)})

    errors, checks = [], [0]
    stop = threading.Event()
    deadline = time.monotonic() + DEADLINE_S
    per_thread = [{"likes": {c: 0 for c in COMMENTS}, "unlikes": {c: 0 for c in COMMENTS}}
                  for _ in range(THREADS)]
    writers = [threading.Thread(target=writer, args=(endpoint_url, tables, seed, per_thread[seed],
                                                     errors, deadline))
               for seed in range(THREADS)]
    background = [threading.Thread(target=reader, args=(endpoint_url, tables, stop, errors,
                                                        checks)),
                  threading.Thread(target=noise, args=(endpoint_url, tables, stop, errors))]
    for t in writers + background:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in background:
        t.join()
    assert not errors, errors
    assert checks[0] > 0

    for comment in COMMENTS:
        likes = sum(s["likes"][comment] for s in per_thread)
        unlikes = sum(s["unlikes"][comment] for s in per_thread)
        count = int(dynamodb.get_item(TableName=tables.count, Key={"commentId": S(comment)},
                                      ConsistentRead=True)["Item"]["count"]["N"])
        records = dynamodb.query(TableName=tables.favorite,
                                 KeyConditionExpression="commentId = :c",
                                 ExpressionAttributeValues={":c": S(comment)},
                                 ConsistentRead=True)["Items"]
        assert count == len(records) == likes - unlikes
        unread = dynamodb.get_item(TableName=tables.unread, ConsistentRead=True,
                                   Key={"userId": S(AUTHOR), "commentId": S(comment)})["Item"]
        assert int(unread["numFavorite"]["N"]) == len(unread["favUserIds"]["L"]) == likes
        unread_count = dynamodb.get_item(TableName=tables.unread_count, ConsistentRead=True,
                                         Key={"userId": S(AUTHOR),
                                              "commentId": S(comment)})["Item"]
        assert int(unread_count["count"]["N"]) == likes
