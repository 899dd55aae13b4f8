# SPDX-License-Identifier: MIT
"""The seed designs' access patterns (SCHEMAS.md) written in PartiQL, as a
team using the console's PartiQL editor or ExecuteStatement would write
them: the chat table's key and GSI reads, the likes transaction across four
tables, and the session store's overloaded GSI. Each read is the Query the
design uses (a pinned partition key), each write the one write path.
"""

import pytest

from util import N, S, client_error, get_item, random_string


def stmt(dynamodb, statement, *params, **kwargs):
    args = {"Statement": statement}
    if params:
        args["Parameters"] = list(params)
    args.update(kwargs)
    return dynamodb.execute_statement(**args)


# ---- 1. real-time chat, single table ----

@pytest.fixture
def chat(make_table):
    return make_table(("PK", "S"), ("SK", "S"), AttributeDefinitions=[
        {"AttributeName": "PK", "AttributeType": "S"},
        {"AttributeName": "SK", "AttributeType": "S"},
        {"AttributeName": "GSI1PK", "AttributeType": "S"},
        {"AttributeName": "GSI1SK", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "GSI1",
            "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"},
                          {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}])


def test_chat_access_patterns(dynamodb, chat):
    t = f'"{chat}"'
    stmt(dynamodb, f"INSERT INTO {t} VALUE {{'PK': 'CONNECTION#c1', 'SK': 'METADATA', "
                   "'userId': 'u1', 'connectedAt': 1700000000, 'ttl': 1700086400}")
    stmt(dynamodb, f"INSERT INTO {t} VALUE {{'PK': 'USER#u1', 'SK': 'CONNECTION#c1', "
                   "'ttl': 1700086400}")
    for room, joined in [("r1", "2024-01-02"), ("r2", "2024-01-01")]:
        stmt(dynamodb, f"INSERT INTO {t} VALUE {{'PK': 'USER#u1', 'SK': ?, 'joinedAt': ?, "
                       "'GSI1PK': 'USERROOMS#u1', 'GSI1SK': ?}",
             S(f"CHATROOM#{room}"), S(joined), S(joined))
        stmt(dynamodb, f"INSERT INTO {t} VALUE {{'PK': ?, 'SK': 'METADATA', 'name': ?, "
                       "'participantIds': ['u1', 'u2'], 'type': 'group'}",
             S(f"CHATROOM#{room}"), S(f"room {room}"))
        stmt(dynamodb, f"INSERT INTO {t} VALUE {{'PK': ?, 'SK': 'LASTMESSAGE', "
                       "'lastMessage': 'hi'}", S(f"CHATROOM#{room}"))
    for i in range(60):
        stmt(dynamodb, f"INSERT INTO {t} VALUE {{'PK': 'CHATROOM#r1', 'SK': ?, 'senderId': 'u2', "
                       "'content': ?, 'messageType': 'text'}",
             S(f"MESSAGE#{1700000000000 + i}#{random_string(8)}"), S(f"m{i}"))

    # GetItem by connection id
    got = stmt(dynamodb, f"SELECT userId FROM {t} WHERE PK = 'CONNECTION#c1' AND SK = 'METADATA'")
    assert got["Items"] == [{"userId": S("u1")}]
    # a user's connections and rooms: begins_with on the sort key
    got = stmt(dynamodb, f"SELECT SK FROM {t} WHERE PK = ? AND begins_with(SK, 'CHATROOM#')",
               S("USER#u1"))
    assert [i["SK"]["S"] for i in got["Items"]] == ["CHATROOM#r1", "CHATROOM#r2"]
    # the latest 50 messages, newest first, then the rest with NextToken
    first = stmt(dynamodb, f"SELECT content FROM {t} WHERE PK = 'CHATROOM#r1' "
                           "AND begins_with(SK, 'MESSAGE#') ORDER BY SK DESC", Limit=50)
    assert [i["content"]["S"] for i in first["Items"]] == [f"m{i}" for i in range(59, 9, -1)]
    rest = stmt(dynamodb, f"SELECT content FROM {t} WHERE PK = 'CHATROOM#r1' "
                          "AND begins_with(SK, 'MESSAGE#') ORDER BY SK DESC",
                Limit=50, NextToken=first["NextToken"])
    assert [i["content"]["S"] for i in rest["Items"]] == [f"m{i}" for i in range(9, -1, -1)]
    # the user's rooms by join date, from GSI1
    got = stmt(dynamodb, f'SELECT SK FROM {t}."GSI1" WHERE GSI1PK = \'USERROOMS#u1\' '
                         "ORDER BY GSI1SK")
    assert [i["SK"]["S"] for i in got["Items"]] == ["CHATROOM#r2", "CHATROOM#r1"]
    # METADATA + LASTMESSAGE of several rooms in one batch
    reads = [{"Statement": f"SELECT * FROM {t} WHERE PK = ? AND SK = ?",
              "Parameters": [S(f"CHATROOM#{room}"), S(sk)]}
             for room in ["r1", "r2"] for sk in ["METADATA", "LASTMESSAGE"]]
    got = dynamodb.batch_execute_statement(Statements=reads)["Responses"]
    assert [r["Item"]["SK"]["S"] for r in got] == ["METADATA", "LASTMESSAGE"] * 2


# ---- 2. likes and notifications, several tables, one transaction ----

@pytest.fixture
def likes(make_table):
    fav = make_table(("commentId", "S"), ("userId", "S"))
    fav_count = make_table(("commentId", "S"))
    unread = make_table(("userId", "S"), ("commentId", "S"), AttributeDefinitions=[
        {"AttributeName": "userId", "AttributeType": "S"},
        {"AttributeName": "commentId", "AttributeType": "S"},
        {"AttributeName": "numFavorite", "AttributeType": "N"}],
        LocalSecondaryIndexes=[{
            "IndexName": "numFavorite-index",
            "KeySchema": [{"AttributeName": "userId", "KeyType": "HASH"},
                          {"AttributeName": "numFavorite", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}])
    unread_count = make_table(("userId", "S"), ("commentId", "S"))
    return fav, fav_count, unread, unread_count


def like(dynamodb, tables, comment, owner, liker, now):
    fav, fav_count, unread, unread_count = tables
    return dynamodb.execute_transaction(TransactStatements=[
        {"Statement": f'INSERT INTO "{fav}" VALUE {{\'commentId\': ?, \'userId\': ?}}',
         "Parameters": [S(comment), S(liker)]},
        {"Statement": f'UPDATE "{fav_count}" SET "count" = "count" + 1 WHERE commentId = ?',
         "Parameters": [S(comment)]},
        {"Statement": f'UPDATE "{unread}" SET lastupdate = ? SET numFavorite = numFavorite + 1 '
                      "SET favUserIds = list_append(favUserIds, ?) "
                      "WHERE userId = ? AND commentId = ?",
         "Parameters": [N(now), {"L": [S(liker)]}, S(owner), S(comment)]},
        {"Statement": f'UPDATE "{unread_count}" SET "count" = "count" + 1 '
                      "WHERE userId = ? AND commentId = ?",
         "Parameters": [S(owner), S(comment)]},
    ])


def test_likes_transaction(dynamodb, likes):
    fav, fav_count, unread, unread_count = likes
    stmt(dynamodb, f"INSERT INTO \"{fav_count}\" VALUE {{'commentId': 'c1', 'count': 0}}")
    stmt(dynamodb, f"INSERT INTO \"{unread}\" VALUE {{'userId': 'owner', 'commentId': 'c1', "
                   "'numFavorite': 0, 'favUserIds': [], 'lastupdate': 0}")
    stmt(dynamodb, f"INSERT INTO \"{unread_count}\" VALUE {{'userId': 'owner', 'commentId': 'c1', "
                   "'count': 0}")
    like(dynamodb, likes, "c1", "owner", "alice", 100)
    like(dynamodb, likes, "c1", "owner", "bob", 200)
    # the same like again: the INSERT is a duplicate and cancels all four
    err = client_error(like, dynamodb, likes, "c1", "owner", "alice", 300)
    assert err.response["Error"]["Code"] == "TransactionCanceledException"
    assert [r["Code"] for r in err.response["CancellationReasons"]] == [
        "DuplicateItem", "None", "None", "None"]
    assert get_item(dynamodb, fav_count, {"commentId": S("c1")})["count"] == N(2)
    note = get_item(dynamodb, unread, {"userId": S("owner"), "commentId": S("c1")})
    assert note["numFavorite"] == N(2) and note["lastupdate"] == N(200)
    assert note["favUserIds"] == {"L": [S("alice"), S("bob")]}
    # unread notifications through the LSI, and contains() on the list
    got = stmt(dynamodb, f'SELECT commentId FROM "{unread}"."numFavorite-index" '
                         "WHERE userId = 'owner' AND numFavorite >= 1 AND contains(favUserIds, ?)",
               S("bob"))
    assert got["Items"] == [{"commentId": S("c1")}]
    # unlike: delete the like and decrement the counter, together
    dynamodb.execute_transaction(TransactStatements=[
        {"Statement": f"DELETE FROM \"{fav}\" WHERE commentId = 'c1' AND userId = 'alice'"},
        {"Statement": f'UPDATE "{fav_count}" SET "count" = "count" - 1 WHERE commentId = \'c1\''}])
    assert get_item(dynamodb, fav_count, {"commentId": S("c1")})["count"] == N(1)
    assert get_item(dynamodb, fav, {"commentId": S("c1"), "userId": S("alice")}) is None


# ---- 3. session store, GSI with the keys inverted ----

@pytest.fixture
def sessions(make_table):
    return make_table(("PK", "S"), ("SK", "S"), AttributeDefinitions=[
        {"AttributeName": "PK", "AttributeType": "S"},
        {"AttributeName": "SK", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "GSI",
            "KeySchema": [{"AttributeName": "SK", "KeyType": "HASH"},
                          {"AttributeName": "PK", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}])


def test_session_access_patterns(dynamodb, sessions):
    t = f'"{sessions}"'
    for sid, login in [("suuid#s1", 10), ("suuid#s2", 20)]:
        stmt(dynamodb, f"INSERT INTO {t} VALUE {{'PK': ?, 'SK': 'c#ABC', 'last_login_time': ?}}",
             S(sid), N(login))
    stmt(dynamodb, f"INSERT INTO {t} VALUE {{'PK': 'suuid#s1', 'SK': 'child#suuid#k1', "
                   "'access_token': 'tok'}")
    # getSessionBySessionId
    got = stmt(dynamodb, f"SELECT * FROM {t} WHERE PK = 'suuid#s1' AND SK = 'c#ABC'")
    assert got["Items"][0]["last_login_time"] == N(10)
    # getChildSessionsBySessionId
    got = stmt(dynamodb, f"SELECT SK FROM {t} WHERE PK = 'suuid#s1' AND begins_with(SK, 'child#')")
    assert got["Items"] == [{"SK": S("child#suuid#k1")}]
    # getSessionByChildSessionId
    got = stmt(dynamodb, f'SELECT PK FROM {t}."GSI" WHERE SK = \'child#suuid#k1\'')
    assert got["Items"] == [{"PK": S("suuid#s1")}]
    # getSessionsByCustomerId: GSI keys are not unique, all come back
    got = stmt(dynamodb, f'SELECT PK FROM {t}."GSI" WHERE SK = ?', S("c#ABC"))
    assert sorted(i["PK"]["S"] for i in got["Items"]) == ["suuid#s1", "suuid#s2"]
    # getLastLoginTimeByCustomerId: Limit 1
    got = stmt(dynamodb, f'SELECT last_login_time FROM {t}."GSI" WHERE SK = \'c#ABC\'', Limit=1)
    assert len(got["Items"]) == 1 and "NextToken" in got
    # getSessionIdByCustomerId
    got = stmt(dynamodb, f'SELECT PK FROM {t}."GSI" WHERE SK = \'c#ABC\' AND PK = \'suuid#s2\'')
    assert got["Items"] == [{"PK": S("suuid#s2")}]
    # expireSession
    stmt(dynamodb, f"DELETE FROM {t} WHERE PK = 'suuid#s2' AND SK = 'c#ABC'")
    assert get_item(dynamodb, sessions, {"PK": S("suuid#s2"), "SK": S("c#ABC")}) is None
