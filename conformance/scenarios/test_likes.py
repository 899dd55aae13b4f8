# SPDX-License-Identifier: MIT
"""Likes and their notifications across five tables (SCHEMAS.md section 2,
seeds/001: the m3 lounge design).

  comments-favorite                          commentId (S) / userId (S): one item per like
  comments-favorite-count                    commentId (S): count
  notification-fav-to-my-comment-unread      userId / commentId; lastupdate, numFavorite,
                                             favUserIds; LSI userId + numFavorite (N)
  notification-fav-to-my-comment-unread-count userId / commentId; count; LSI userId + count
  notification-fav-to-my-comment-read        userId / readAt; commentId, favUserIds, ttl

A like is one TransactWriteItems over four tables, written exactly as the
article's Go code sends it (the expressions come from the Go SDK's expression
builder, hence "attribute_exists (#0)" with a space and the trailing newline);
SCHEMAS.md adds the condition that refuses a like that already exists. An
unlike is a Delete and a decrement in one transaction; marking a notification
read resets the unread records and puts a read record in one transaction.
Everything a test asserts is what DynamoDB's documented semantics give for
these requests (transaction-apis.html; the cancellation reasons as
conformance/test_transact.py pins them).
"""

import time

import pytest

from util import N, S, attr_defs, get_item, index, random_string

FAVORITE = "comments-favorite"
COUNT = "comments-favorite-count"
UNREAD = "notification-fav-to-my-comment-unread"
UNREAD_COUNT = "notification-fav-to-my-comment-unread-count"
READ = "notification-fav-to-my-comment-read"
CCF = "The conditional request failed"


class Likes:
    """The five tables of one test and the application's requests."""

    def __init__(self, client, make_table):
        suffix = random_string(8)
        self.client = client
        self.t = {}
        self.t[FAVORITE] = make_table(("commentId", "S"), ("userId", "S"),
                                      name=f"{FAVORITE}-{suffix}")
        self.t[COUNT] = make_table(("commentId", "S"), name=f"{COUNT}-{suffix}")
        self.t[UNREAD] = make_table(
            ("userId", "S"), ("commentId", "S"), name=f"{UNREAD}-{suffix}",
            AttributeDefinitions=attr_defs(userId="S", commentId="S", numFavorite="N"),
            LocalSecondaryIndexes=[index("numFavorite-index", "userId", "numFavorite")])
        self.t[UNREAD_COUNT] = make_table(
            ("userId", "S"), ("commentId", "S"), name=f"{UNREAD_COUNT}-{suffix}",
            AttributeDefinitions=attr_defs(userId="S", commentId="S", count="N"),
            LocalSecondaryIndexes=[index("count-index", "userId", "count")])
        self.t[READ] = make_table(("userId", "S"), ("readAt", "S"), name=f"{READ}-{suffix}")

    # ---- posting a comment creates its counters and its (empty) notification ----

    def post_comment(self, author, comment):
        c = self.client
        c.put_item(TableName=self.t[COUNT], Item={"commentId": S(comment), "count": N(0)})
        c.put_item(TableName=self.t[UNREAD], Item={
            "userId": S(author), "commentId": S(comment), "lastupdate": S(now()),
            "numFavorite": N(0), "favUserIds": {"L": []}})
        c.put_item(TableName=self.t[UNREAD_COUNT], Item={
            "userId": S(author), "commentId": S(comment), "count": N(0)})

    # ---- the article's transactions ----

    def like_items(self, user, comment, author, when):
        return [
            {"Put": {
                "Item": {"userId": S(user), "commentId": S(comment)},
                "TableName": self.t[FAVORITE],
                "ConditionExpression": "attribute_not_exists (#0)",
                "ExpressionAttributeNames": {"#0": "userId"},
            }},
            {"Update": {
                "ConditionExpression": "attribute_exists (#0)",
                "ExpressionAttributeNames": {"#0": "count"},
                "ExpressionAttributeValues": {":0": N(1)},
                "Key": {"commentId": S(comment)},
                "TableName": self.t[COUNT],
                "UpdateExpression": "SET #0 = #0 + :0\n",
            }},
            {"Update": {
                "ExpressionAttributeNames": {"#0": "lastupdate", "#1": "numFavorite",
                                             "#2": "favUserIds"},
                "ExpressionAttributeValues": {":2": {"L": [S(user)]}, ":0": S(when),
                                              ":1": N(1)},
                "Key": {"userId": S(author), "commentId": S(comment)},
                "TableName": self.t[UNREAD],
                "UpdateExpression": "SET #0 = :0, #1 = #1 + :1, #2 = list_append(#2, :2)\n",
            }},
            {"Update": {
                "ExpressionAttributeNames": {"#0": "count"},
                "ExpressionAttributeValues": {":0": N(1)},
                "Key": {"userId": S(author), "commentId": S(comment)},
                "TableName": self.t[UNREAD_COUNT],
                "UpdateExpression": "SET #0 = #0 + :0\n",
            }},
        ]

    def like(self, user, comment, author, when=None):
        return self.client.transact_write_items(
            TransactItems=self.like_items(user, comment, author, when or now()))

    def unlike_items(self, user, comment):
        return [
            {"Delete": {
                "Key": {"commentId": S(comment), "userId": S(user)},
                "TableName": self.t[FAVORITE],
                "ConditionExpression": "attribute_exists (#0)",
                "ExpressionAttributeNames": {"#0": "userId"},
            }},
            {"Update": {
                "ConditionExpression": "attribute_exists (#0)",
                "ExpressionAttributeNames": {"#0": "count"},
                "ExpressionAttributeValues": {":0": N(1)},
                "Key": {"commentId": S(comment)},
                "TableName": self.t[COUNT],
                "UpdateExpression": "SET #0 = #0 - :0\n",
            }},
        ]

    def unlike(self, user, comment):
        return self.client.transact_write_items(TransactItems=self.unlike_items(user, comment))

    def mark_read(self, author, comment, ttl_days=7):
        """Moves the unread notification to the read table: reset the unread
        record, zero its count and put a read record with a TTL n days ahead."""
        unread = get_item(self.client, self.t[UNREAD],
                          {"userId": S(author), "commentId": S(comment)})
        read_at = now()
        expires = int(time.time()) + ttl_days * 24 * 3600
        self.client.transact_write_items(TransactItems=[
            {"Update": {
                "Key": {"userId": S(author), "commentId": S(comment)},
                "TableName": self.t[UNREAD],
                "UpdateExpression": "SET #0 = :0, #1 = :1, #2 = :2",
                "ExpressionAttributeNames": {"#0": "lastupdate", "#1": "numFavorite",
                                             "#2": "favUserIds"},
                "ExpressionAttributeValues": {":0": S(read_at), ":1": N(0), ":2": {"L": []}},
            }},
            {"Update": {
                "Key": {"userId": S(author), "commentId": S(comment)},
                "TableName": self.t[UNREAD_COUNT],
                "UpdateExpression": "SET #0 = :0",
                "ExpressionAttributeNames": {"#0": "count"},
                "ExpressionAttributeValues": {":0": N(0)},
            }},
            {"Put": {
                "TableName": self.t[READ],
                "Item": {"userId": S(author), "readAt": S(read_at), "commentId": S(comment),
                         "favUserIds": unread["favUserIds"], "ttl": N(expires)},
                "ConditionExpression": "attribute_not_exists(readAt)",
            }},
        ])
        return read_at, expires

    # ---- reads ----

    def count(self, comment):
        return int(get_item(self.client, self.t[COUNT], {"commentId": S(comment)})["count"]["N"])

    def likers(self, comment):
        resp = self.client.query(TableName=self.t[FAVORITE],
                                 KeyConditionExpression="commentId = :c",
                                 ExpressionAttributeValues={":c": S(comment)},
                                 ConsistentRead=True)
        return sorted(i["userId"]["S"] for i in resp["Items"])

    def unread(self, author, comment):
        return get_item(self.client, self.t[UNREAD], {"userId": S(author), "commentId": S(comment)})

    def unread_notifications(self, author):
        """The unread notifications with at least one like, via the LSI."""
        resp = self.client.query(
            TableName=self.t[UNREAD], IndexName="numFavorite-index",
            KeyConditionExpression="userId = :u AND numFavorite >= :one",
            ExpressionAttributeValues={":u": S(author), ":one": N(1)})
        return resp["Items"]

    def unread_total(self, author):
        """Sum of the unread counts with at least one like, via the count LSI."""
        resp = self.client.query(
            TableName=self.t[UNREAD_COUNT], IndexName="count-index",
            KeyConditionExpression="userId = :u AND #c >= :one",
            ExpressionAttributeNames={"#c": "count"},
            ExpressionAttributeValues={":u": S(author), ":one": N(1)})
        return sum(int(i["count"]["N"]) for i in resp["Items"])


_clock = [0]


def now():
    """A strictly increasing timestamp string (the article records nanoseconds)."""
    _clock[0] = max(_clock[0] + 1, time.time_ns())
    return str(_clock[0])


@pytest.fixture
def likes(dynamodb, make_table):
    return Likes(dynamodb, make_table)


def assert_cancelled(err, codes):
    assert err.response["Error"]["Code"] == "TransactionCanceledException"
    assert err.response["Error"]["Message"] == (
        "Transaction cancelled, please refer cancellation reasons for specific reasons ["
        + ", ".join(codes) + "]")
    got = err.response["CancellationReasons"]
    assert [r["Code"] for r in got] == codes
    for code, r in zip(codes, got):
        if code == "ConditionalCheckFailed":
            assert r["Message"] == CCF
        else:
            assert "Message" not in r


def test_like_updates_four_tables_at_once(likes):
    # The like transaction of the article: the like record, the counter, the
    # unread notification (list_append keeps the order of likes) and its count.
    likes.post_comment("author", "c1")
    likes.like("u1", "c1", "author", when="100")
    likes.like("u2", "c1", "author", when="200")
    assert likes.likers("c1") == ["u1", "u2"]
    assert likes.count("c1") == 2
    assert likes.unread("author", "c1") == {
        "userId": S("author"), "commentId": S("c1"), "lastupdate": S("200"),
        "numFavorite": N(2), "favUserIds": {"L": [S("u1"), S("u2")]}}
    assert likes.unread_total("author") == 2


def test_a_like_that_exists_is_refused_and_changes_nothing(likes, dynamodb):
    # The Put's attribute_not_exists fails, so the whole transaction is
    # cancelled: one reason per action, only the first ConditionalCheckFailed.
    likes.post_comment("author", "c1")
    likes.like("u1", "c1", "author", when="100")
    with pytest.raises(dynamodb.exceptions.TransactionCanceledException) as info:
        likes.like("u1", "c1", "author", when="300")
    assert_cancelled(info.value, ["ConditionalCheckFailed", "None", "None", "None"])
    assert likes.count("c1") == 1
    assert likes.unread("author", "c1")["favUserIds"] == {"L": [S("u1")]}
    assert likes.unread("author", "c1")["lastupdate"] == S("100")
    assert likes.unread_total("author") == 1


def test_a_like_without_a_counter_is_refused(likes, dynamodb, make_table):
    # The counter must exist (attribute_exists on count): a comment whose
    # counter record is gone cannot be liked, and nothing else is written.
    likes.post_comment("author", "c1")
    dynamodb.delete_item(TableName=likes.t[COUNT], Key={"commentId": S("c1")})
    with pytest.raises(dynamodb.exceptions.TransactionCanceledException) as info:
        likes.like("u1", "c1", "author")
    assert_cancelled(info.value, ["None", "ConditionalCheckFailed", "None", "None"])
    assert likes.likers("c1") == []
    assert likes.unread("author", "c1")["numFavorite"] == N(0)


def test_unlike_removes_the_like_and_decrements(likes, dynamodb):
    # Unlike = Delete + decrement; the notification keeps the like (the
    # article leaves notifications alone). A second unlike is refused.
    likes.post_comment("author", "c1")
    likes.like("u1", "c1", "author")
    likes.like("u2", "c1", "author")
    likes.unlike("u1", "c1")
    assert likes.likers("c1") == ["u2"]
    assert likes.count("c1") == 1
    assert likes.unread("author", "c1")["numFavorite"] == N(2)
    with pytest.raises(dynamodb.exceptions.TransactionCanceledException) as info:
        likes.unlike("u1", "c1")
    assert_cancelled(info.value, ["ConditionalCheckFailed", "None"])
    assert likes.count("c1") == 1


def test_like_again_after_unlike(likes):
    # A withdrawn like may be given again (the article's requirements).
    likes.post_comment("author", "c1")
    likes.like("u1", "c1", "author")
    likes.unlike("u1", "c1")
    likes.like("u1", "c1", "author")
    assert likes.likers("c1") == ["u1"]
    assert likes.count("c1") == 1
    assert likes.unread("author", "c1")["favUserIds"] == {"L": [S("u1"), S("u1")]}


def test_unread_notifications_come_from_the_lsi(likes):
    # Query the numFavorite LSI with numFavorite >= 1: comments nobody liked
    # are not listed; the unread total is the sum over the count LSI.
    for c in ("c1", "c2", "c3"):
        likes.post_comment("author", c)
    likes.post_comment("other", "c4")
    likes.like("u1", "c1", "author")
    likes.like("u2", "c1", "author")
    likes.like("u1", "c3", "author")
    likes.like("u1", "c4", "other")
    got = likes.unread_notifications("author")
    assert [(i["commentId"]["S"], i["numFavorite"]["N"]) for i in got] == [("c3", "1"),
                                                                           ("c1", "2")]
    assert likes.unread_total("author") == 3
    assert likes.unread_total("other") == 1


def test_mark_read_moves_the_notification(likes):
    # Marking read resets the unread record and its count and puts a read
    # record carrying the likers and a TTL n days ahead in epoch seconds; a
    # like after that starts a new unread notification.
    likes.post_comment("author", "c1")
    likes.like("u1", "c1", "author")
    likes.like("u2", "c1", "author")
    read_at, expires = likes.mark_read("author", "c1")
    assert likes.unread_notifications("author") == []
    assert likes.unread_total("author") == 0
    read = get_item(likes.client, likes.t[READ], {"userId": S("author"), "readAt": S(read_at)})
    assert read == {"userId": S("author"), "readAt": S(read_at), "commentId": S("c1"),
                    "favUserIds": {"L": [S("u1"), S("u2")]}, "ttl": N(expires)}
    assert expires > time.time() + 6 * 24 * 3600
    likes.like("u3", "c1", "author")
    assert [i["favUserIds"] for i in likes.unread_notifications("author")] == [
        {"L": [S("u3")]}]
    assert likes.count("c1") == 3


def test_contains_works_on_the_list_of_likers(likes, dynamodb):
    # contains(path, operand) applies to lists as well as sets (SCHEMAS.md;
    # developerguide Expressions.OperatorsAndFunctions): a ConditionCheck on
    # the notification's favUserIds.
    likes.post_comment("author", "c1")
    likes.like("u1", "c1", "author")
    key = {"userId": S("author"), "commentId": S("c1")}

    def check(user):
        return {"ConditionCheck": {"TableName": likes.t[UNREAD], "Key": key,
                                   "ConditionExpression": "contains(favUserIds, :u)",
                                   "ExpressionAttributeValues": {":u": S(user)}}}
    dynamodb.transact_write_items(TransactItems=[check("u1")])
    with pytest.raises(dynamodb.exceptions.TransactionCanceledException) as info:
        dynamodb.transact_write_items(TransactItems=[check("u2")])
    assert_cancelled(info.value, ["ConditionalCheckFailed"])


def test_like_state_read_in_one_transaction(likes, dynamodb):
    # TransactGetItems reads the counter, the like and the notification from
    # one consistent state.
    likes.post_comment("author", "c1")
    likes.like("u1", "c1", "author", when="100")
    resp = dynamodb.transact_get_items(TransactItems=[
        {"Get": {"TableName": likes.t[COUNT], "Key": {"commentId": S("c1")}}},
        {"Get": {"TableName": likes.t[FAVORITE], "Key": {"commentId": S("c1"), "userId": S("u1")}}},
        {"Get": {"TableName": likes.t[FAVORITE], "Key": {"commentId": S("c1"), "userId": S("u2")}}},
        {"Get": {"TableName": likes.t[UNREAD], "Key": {"userId": S("author"), "commentId": S("c1")},
                 "ProjectionExpression": "numFavorite, favUserIds[0]"}},
    ])
    assert resp["Responses"] == [
        {"Item": {"commentId": S("c1"), "count": N(1)}},
        {"Item": {"commentId": S("c1"), "userId": S("u1")}},
        {},
        {"Item": {"numFavorite": N(1), "favUserIds": {"L": [S("u1")]}}},
    ]
