# SPDX-License-Identifier: MIT
"""Orders in the general single table of SCHEMAS.md section 4 (seeds/003).

Table PK/SK with GSI1 (GSI1PK/GSI1SK) and GSI2 (GSI2PK/GSI2SK), projection
ALL, streams NEW_AND_OLD_IMAGES and encryption set at creation (deletion
protection too in the seed, but Debian's boto3 1.26 predates that member). An order is created with one TransactWriteItems: the order's
metadata (with attribute_not_exists(PK) for idempotency), the user's order
list entry and one item per product line - the seed's createOrder, request for
request. Re-submitting the same order is refused as a whole and changes
nothing; a retry with the same ClientRequestToken succeeds without writing
(API reference TransactWriteItems, ClientRequestToken).
"""

import pytest

from util import N, S, attr_defs, get_item, index, random_string

CCF = "The conditional request failed"


@pytest.fixture
def orders_table(make_table):
    return make_table(
        ("PK", "S"), ("SK", "S"),
        AttributeDefinitions=attr_defs(PK="S", SK="S", GSI1PK="S", GSI1SK="S", GSI2PK="S",
                                       GSI2SK="S"),
        GlobalSecondaryIndexes=[index("GSI1", "GSI1PK", "GSI1SK"),
                                index("GSI2", "GSI2PK", "GSI2SK")],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        SSESpecification={"Enabled": True})


def order_record(order):
    return {"PK": S(f"ORDER#{order['id']}"), "SK": S("METADATA"),
            "GSI1PK": S(f"STATUS#{order['status']}"), "GSI1SK": S(order["createdAt"]),
            "GSI2PK": S(f"USER#{order['userId']}"), "GSI2SK": S(f"ORDER#{order['createdAt']}"),
            "entityType": S("Order"), "id": S(order["id"]), "userId": S(order["userId"]),
            "status": S(order["status"]), "totalAmount": N(order["totalAmount"]),
            "createdAt": S(order["createdAt"])}


def user_order_record(order):
    return {"PK": S(f"USER#{order['userId']}"),
            "SK": S(f"ORDER#{order['createdAt']}#{order['id']}"),
            "entityType": S("UserOrder"), "orderId": S(order["id"]),
            "status": S(order["status"]), "totalAmount": N(order["totalAmount"]),
            "createdAt": S(order["createdAt"])}


def line_record(order, line):
    return {"PK": S(f"ORDER#{order['id']}"), "SK": S(f"ITEM#{line['id']}"),
            "entityType": S("OrderItem"), "id": S(line["id"]), "quantity": N(line["quantity"]),
            "price": N(line["price"])}


def create_order_items(table, order, lines):
    """The seed's createOrder transaction."""
    return ([{"Put": {"TableName": table, "Item": order_record(order),
                      "ConditionExpression": "attribute_not_exists(PK)"}},
             {"Put": {"TableName": table, "Item": user_order_record(order)}}]
            + [{"Put": {"TableName": table, "Item": line_record(order, line)}} for line in lines])


def new_order(user="u1", status="PENDING", created="2024-05-01T10:00:00Z", lines=2):
    order = {"id": random_string(12), "userId": user, "status": status,
             "totalAmount": 0, "createdAt": created}
    items = [{"id": f"P{i}", "quantity": i + 1, "price": 100 * (i + 1)} for i in range(lines)]
    order["totalAmount"] = sum(i["quantity"] * i["price"] for i in items)
    return order, items


def query(client, table, condition, values, **extra):
    return client.query(TableName=table, KeyConditionExpression=condition,
                        ExpressionAttributeValues=values, **extra)["Items"]


def test_create_order_serves_every_access_pattern(dynamodb, orders_table):
    # One transaction writes the order, the user's list entry and the lines;
    # then every access pattern of the seed finds them: order detail, order
    # lines (begins_with ITEM#), the user's orders newest first, orders by
    # status on GSI1, orders by user on GSI2.
    order, lines = new_order(lines=3)
    dynamodb.transact_write_items(TransactItems=create_order_items(orders_table, order, lines))
    oid = order["id"]
    assert get_item(dynamodb, orders_table, {"PK": S(f"ORDER#{oid}"), "SK": S("METADATA")}) == \
        order_record(order)
    got = query(dynamodb, orders_table, "PK = :pk AND begins_with(SK, :p)",
                {":pk": S(f"ORDER#{oid}"), ":p": S("ITEM#")})
    assert got == [line_record(order, line) for line in lines]
    later, later_lines = new_order(created="2024-05-02T10:00:00Z")
    dynamodb.transact_write_items(TransactItems=create_order_items(orders_table, later,
                                                                   later_lines))
    got = query(dynamodb, orders_table, "PK = :pk AND begins_with(SK, :p)",
                {":pk": S("USER#u1"), ":p": S("ORDER#")}, ScanIndexForward=False, Limit=20)
    assert [i["orderId"]["S"] for i in got] == [later["id"], oid]
    got = query(dynamodb, orders_table, "GSI1PK = :pk AND GSI1SK >= :since",
                {":pk": S("STATUS#PENDING"), ":since": S("2024-05-01T00:00:00Z")},
                IndexName="GSI1")
    assert [i["id"]["S"] for i in got] == [oid, later["id"]]
    got = query(dynamodb, orders_table, "GSI2PK = :pk", {":pk": S("USER#u1")}, IndexName="GSI2")
    assert [i["id"]["S"] for i in got] == [oid, later["id"]]


def test_resubmitting_an_order_is_refused_and_changes_nothing(dynamodb, orders_table):
    # attribute_not_exists(PK) on the metadata makes a second submission of
    # the same order fail as a whole: ConditionalCheckFailed on the first
    # action, None on the others, and the second submission's different
    # amounts are not written anywhere.
    order, lines = new_order()
    dynamodb.transact_write_items(TransactItems=create_order_items(orders_table, order, lines))
    changed = dict(order, totalAmount=1)
    changed_lines = [dict(line, quantity=99) for line in lines]
    with pytest.raises(dynamodb.exceptions.TransactionCanceledException) as info:
        dynamodb.transact_write_items(
            TransactItems=create_order_items(orders_table, changed, changed_lines))
    codes = ["ConditionalCheckFailed"] + ["None"] * (1 + len(lines))
    assert info.value.response["Error"]["Message"] == (
        "Transaction cancelled, please refer cancellation reasons for specific reasons ["
        + ", ".join(codes) + "]")
    assert [r["Code"] for r in info.value.response["CancellationReasons"]] == codes
    assert info.value.response["CancellationReasons"][0]["Message"] == CCF
    oid = order["id"]
    assert get_item(dynamodb, orders_table, {"PK": S(f"ORDER#{oid}"), "SK": S("METADATA")}) == \
        order_record(order)
    assert get_item(dynamodb, orders_table, {"PK": S(f"ORDER#{oid}"), "SK": S("ITEM#P0")}) == \
        line_record(order, lines[0])
    user_key = {"PK": S("USER#u1"), "SK": S(f"ORDER#{order['createdAt']}#{oid}")}
    assert get_item(dynamodb, orders_table, user_key)["totalAmount"] == N(order["totalAmount"])


def test_retry_with_the_same_token_succeeds_without_writing(dynamodb, orders_table):
    # A client that lost the answer retries with the same ClientRequestToken:
    # the retry succeeds (no ConditionalCheckFailed) and writes nothing again;
    # the same token with another order is IdempotentParameterMismatchException.
    order, lines = new_order()
    token = random_string(32)
    items = create_order_items(orders_table, order, lines)
    dynamodb.transact_write_items(ClientRequestToken=token, TransactItems=items)
    dynamodb.delete_item(TableName=orders_table,
                         Key={"PK": S(f"ORDER#{order['id']}"), "SK": S("ITEM#P1")})
    dynamodb.transact_write_items(ClientRequestToken=token, TransactItems=items)
    # The retry wrote nothing: the deleted line stays deleted.
    assert get_item(dynamodb, orders_table,
                    {"PK": S(f"ORDER#{order['id']}"), "SK": S("ITEM#P1")}) is None
    other, other_lines = new_order()
    with pytest.raises(dynamodb.exceptions.IdempotentParameterMismatchException):
        dynamodb.transact_write_items(ClientRequestToken=token, TransactItems=create_order_items(
            orders_table, other, other_lines))
    assert get_item(dynamodb, orders_table,
                    {"PK": S(f"ORDER#{other['id']}"), "SK": S("METADATA")}) is None


def test_an_order_of_98_lines_fits_in_one_transaction(dynamodb, raw, orders_table):
    # 100 actions per transaction (the seed's rule 5, API reference): the
    # metadata, the user entry and 98 lines fit; 99 lines do not.
    order, lines = new_order(lines=98)
    dynamodb.transact_write_items(TransactItems=create_order_items(orders_table, order, lines))
    got = query(dynamodb, orders_table, "PK = :pk AND begins_with(SK, :p)",
                {":pk": S(f"ORDER#{order['id']}"), ":p": S("ITEM#")})
    assert len(got) == 98
    order, lines = new_order(lines=99)
    resp = raw("TransactWriteItems",
               {"TransactItems": create_order_items(orders_table, order, lines)})
    assert resp.status == 400
    assert resp.data["__type"] == "com.amazon.coral.validate#ValidationException"
    assert resp.data["message"].endswith(
        "at 'transactItems' failed to satisfy constraint: Member must have length less than or "
        "equal to 100")
    assert get_item(dynamodb, orders_table,
                    {"PK": S(f"ORDER#{order['id']}"), "SK": S("METADATA")}) is None


def test_an_invalid_line_cancels_the_whole_order(dynamodb, orders_table):
    # All or nothing: a line whose key has the wrong type cancels the order
    # with a ValidationError reason for that line (test_transact.py pins the
    # reason), and neither the metadata nor the other lines are written.
    order, lines = new_order()
    items = create_order_items(orders_table, order, lines)
    items[-1]["Put"]["Item"]["SK"] = N(1)
    with pytest.raises(dynamodb.exceptions.TransactionCanceledException) as info:
        dynamodb.transact_write_items(TransactItems=items)
    reasons = info.value.response["CancellationReasons"]
    assert [r["Code"] for r in reasons] == ["None"] * (len(items) - 1) + ["ValidationError"]
    assert get_item(dynamodb, orders_table,
                    {"PK": S(f"ORDER#{order['id']}"), "SK": S("METADATA")}) is None


def test_order_and_its_lines_read_together(dynamodb, orders_table):
    # TransactGetItems reads the metadata and two lines from one state; a line
    # that was never ordered is {}.
    order, lines = new_order()
    dynamodb.transact_write_items(TransactItems=create_order_items(orders_table, order, lines))
    pk = S(f"ORDER#{order['id']}")
    resp = dynamodb.transact_get_items(TransactItems=[
        {"Get": {"TableName": orders_table, "Key": {"PK": pk, "SK": S("METADATA")},
                 "ProjectionExpression": "#s, totalAmount",
                 "ExpressionAttributeNames": {"#s": "status"}}},
        {"Get": {"TableName": orders_table, "Key": {"PK": pk, "SK": S("ITEM#P0")}}},
        {"Get": {"TableName": orders_table, "Key": {"PK": pk, "SK": S("ITEM#P9")}}},
    ])
    assert resp["Responses"] == [
        {"Item": {"status": S("PENDING"), "totalAmount": N(order["totalAmount"])}},
        {"Item": line_record(order, lines[0])},
        {},
    ]
