# SPDX-License-Identifier: MIT
"""The session store of SCHEMAS.md section 3 (seeds/002): one table with
generic PK/SK keys, vertical partitioning, and one overloaded GSI whose keys
are the table's keys inverted (GSI hash = SK, GSI range = PK). Every access
pattern of the design's table runs here, as the article describes it.

Data (the article's examples):
  PK suuid#<session>  SK c#<customer>              the parent session: customer_id,
                                                   last_login_time, parent state
  PK suuid#<session>  SK child#suuid#<child>       a child session: access_token,
                                                   session_state
GSI keys are not unique: a customer has several sessions, each found by
SK = c#<customer>; the article adds Limit 1 to getLastLoginTimeByCustomerId
for that reason.
"""

import pytest

from util import S, random_string

GSI = "GSI"


@pytest.fixture
def sessions(dynamodb, make_table):
    """The final schema of the article: PK/SK (S), GSI "GSI" on SK / PK, on demand."""
    return make_table(("PK", "S"), ("SK", "S"), AttributeDefinitions=[
        {"AttributeName": "PK", "AttributeType": "S"},
        {"AttributeName": "SK", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{
            "IndexName": GSI,
            "KeySchema": [{"AttributeName": "SK", "KeyType": "HASH"},
                          {"AttributeName": "PK", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}])


def create_session(dynamodb, table, session, customer, login_time, children=()):
    """createSession: the parent item, then one item per child session."""
    dynamodb.put_item(TableName=table, Item={
        "PK": S(f"suuid#{session}"), "SK": S(f"c#{customer}"), "entity_type": S("session"),
        "customer_id": S(customer), "last_login_time": S(login_time),
        "parent_session_state": S("active"), "parent_access_token": S(random_string(16))})
    for child in children:
        dynamodb.put_item(TableName=table, Item={
            "PK": S(f"suuid#{session}"), "SK": S(f"child#suuid#{child}"),
            "entity_type": S("child_session"), "access_token": S(random_string(16)),
            "session_state": S("active")})


@pytest.fixture
def loaded(dynamodb, sessions):
    """Customer ABC with three sessions (one with children), customer XYZ with one."""
    create_session(dynamodb, sessions, "c342etj3", "ABC", "2023-01-03T10:00:00Z",
                   children=("kljhfytf23", "mnbvcx98", "qwerty12"))
    create_session(dynamodb, sessions, "d0004tj2", "ABC", "2023-01-05T09:30:00Z",
                   children=("zzyyxx11",))
    create_session(dynamodb, sessions, "e1234abc", "ABC", "2023-01-04T08:00:00Z")
    create_session(dynamodb, sessions, "f9999zzz", "XYZ", "2023-01-02T07:00:00Z")
    return sessions


def test_get_session_by_session_id(dynamodb, loaded):
    # getSessionBySessionId: GetItem with the whole key (PK=session_id, SK=customer_id).
    item = dynamodb.get_item(TableName=loaded, Key={"PK": S("suuid#c342etj3"),
                                                    "SK": S("c#ABC")})["Item"]
    assert item["customer_id"] == S("ABC")
    assert item["last_login_time"] == S("2023-01-03T10:00:00Z")


def test_expire_session(dynamodb, loaded):
    # expireSession: DeleteItem on PK+SK; the session also leaves the GSI.
    dynamodb.delete_item(TableName=loaded, Key={"PK": S("suuid#e1234abc"), "SK": S("c#ABC")})
    assert "Item" not in dynamodb.get_item(TableName=loaded, Key={"PK": S("suuid#e1234abc"),
                                                                  "SK": S("c#ABC")})
    got = dynamodb.query(TableName=loaded, IndexName=GSI, KeyConditionExpression="SK = :c",
                         ExpressionAttributeValues={":c": S("c#ABC")})["Items"]
    assert [i["PK"]["S"] for i in got] == ["suuid#c342etj3", "suuid#d0004tj2"]


def test_get_child_sessions_by_session_id(dynamodb, loaded):
    # getChildSessionsBySessionId: Query PK = :s AND begins_with(SK, "child#").
    got = dynamodb.query(TableName=loaded,
                         KeyConditionExpression="PK = :s AND begins_with(SK, :child)",
                         ExpressionAttributeValues={":s": S("suuid#c342etj3"),
                                                    ":child": S("child#")})["Items"]
    assert [i["SK"]["S"] for i in got] == ["child#suuid#kljhfytf23", "child#suuid#mnbvcx98",
                                           "child#suuid#qwerty12"]
    assert all(i["entity_type"] == S("child_session") for i in got)


def test_get_session_by_child_session_id(dynamodb, loaded):
    # getSessionByChildSessionId: Query the GSI with SK = the child's id; the
    # GSI range key PK is the parent session.
    got = dynamodb.query(TableName=loaded, IndexName=GSI, KeyConditionExpression="SK = :c",
                         ExpressionAttributeValues={":c": S("child#suuid#kljhfytf23")})["Items"]
    assert [i["PK"]["S"] for i in got] == ["suuid#c342etj3"]


def test_get_last_login_time_by_customer_id(dynamodb, loaded):
    # getLastLoginTimeByCustomerId: Query the GSI with SK = customer, Limit 1
    # (GSI keys are not unique, hence the limit). One item comes back, with
    # LastEvaluatedKey holding the GSI key and the table key, since more match.
    resp = dynamodb.query(TableName=loaded, IndexName=GSI, Limit=1,
                          KeyConditionExpression="SK = :c",
                          ExpressionAttributeValues={":c": S("c#ABC")})
    assert resp["Count"] == 1
    assert resp["Items"][0]["PK"] == S("suuid#c342etj3")
    assert "last_login_time" in resp["Items"][0]
    assert resp["LastEvaluatedKey"] == {"SK": S("c#ABC"), "PK": S("suuid#c342etj3")}
    nxt = dynamodb.query(TableName=loaded, IndexName=GSI, Limit=1,
                         KeyConditionExpression="SK = :c",
                         ExclusiveStartKey=resp["LastEvaluatedKey"],
                         ExpressionAttributeValues={":c": S("c#ABC")})
    assert nxt["Items"][0]["PK"] == S("suuid#d0004tj2")


def test_get_session_id_by_customer_id(dynamodb, loaded):
    # getSessionIdByCustomerId: Query the GSI with SK = customer AND PK = session.
    got = dynamodb.query(TableName=loaded, IndexName=GSI,
                         KeyConditionExpression="SK = :c AND PK = :s",
                         ExpressionAttributeValues={":c": S("c#ABC"),
                                                    ":s": S("suuid#d0004tj2")})["Items"]
    assert len(got) == 1
    assert got[0]["last_login_time"] == S("2023-01-05T09:30:00Z")


def test_get_sessions_by_customer_id(dynamodb, loaded):
    # getSessionsByCustomerId: Query the GSI with SK = customer: every session
    # of the customer, ordered by the GSI range key (the session id); another
    # customer's sessions and the child items are not among them.
    got = dynamodb.query(TableName=loaded, IndexName=GSI, KeyConditionExpression="SK = :c",
                         ExpressionAttributeValues={":c": S("c#ABC")})["Items"]
    assert [i["PK"]["S"] for i in got] == ["suuid#c342etj3", "suuid#d0004tj2", "suuid#e1234abc"]
    assert all(i["customer_id"] == S("ABC") for i in got)
    got = dynamodb.query(TableName=loaded, IndexName=GSI, KeyConditionExpression="SK = :c",
                         ExpressionAttributeValues={":c": S("c#XYZ")})["Items"]
    assert [i["PK"]["S"] for i in got] == ["suuid#f9999zzz"]


def test_login_updates_follow_into_the_gsi(dynamodb, loaded):
    # Vertical partitioning: updating the parent item's last_login_time is a
    # targeted write, and the GSI answers with the new value.
    dynamodb.update_item(TableName=loaded, Key={"PK": S("suuid#e1234abc"), "SK": S("c#ABC")},
                         UpdateExpression="SET last_login_time = :t",
                         ExpressionAttributeValues={":t": S("2023-02-01T00:00:00Z")})
    got = dynamodb.query(TableName=loaded, IndexName=GSI,
                         KeyConditionExpression="SK = :c AND PK = :s",
                         ExpressionAttributeValues={":c": S("c#ABC"),
                                                    ":s": S("suuid#e1234abc")})["Items"]
    assert got[0]["last_login_time"] == S("2023-02-01T00:00:00Z")
