# SPDX-License-Identifier: MIT
"""TransactWriteItems and TransactGetItems: all or nothing, cancellation
reasons, every limit and validation error with AWS's text, idempotent retries
with ClientRequestToken, and transactional capacity.

Sources (each test names its own):
  - scylladb test/alternator/test_transact.py, written and run against AWS;
  - paritysuite dynamodb-conformance tests (tier2/transactions,
    tier3/error-messages/transact*.test.ts, tier3/validation-ordering),
    characterised against AWS in us-east-1 and eu-west-2;
  - raw AWS answers quoted in public issues (pynamodb/PynamoDB#1144,
    boto/boto3#2657, aws/aws-sdk-net#1292, localstack/localstack#6529);
  - moto's transaction tests marked as verified against AWS.

boto3 validates lengths and required members on the client and fills in a
random ClientRequestToken when none is given, so requests AWS must refuse are
sent with the raw helper.
"""

import re

import pytest
from boto3.dynamodb.types import TypeDeserializer

from util import (
    DDB,
    N,
    S,
    VALIDATION,
    assert_error,
    assert_raw_error,
    client_error,
    get_item,
    random_string,
)

CANCELED = DDB + "TransactionCanceledException"
NOT_FOUND = "Requested resource not found"
KEY_MISMATCH = "The provided key element does not match the schema"
CCF = "The conditional request failed"
SAME_ITEM = "Transaction request cannot include multiple operations on one item"
ONE_OF = "TransactItems can only contain one of Check, Put, Update or Delete"
NO_ACTION = "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"
ENUM_RCC = ("Value 'BOGUS' at 'returnConsumedCapacity' failed to satisfy constraint: "
            "Member must satisfy enum value set: [INDEXES, TOTAL, NONE]")
ENUM_RICM = ("Value 'BOGUS2' at 'returnItemCollectionMetrics' failed to satisfy constraint: "
             "Member must satisfy enum value set: [SIZE, NONE]")


def cancelled_message(codes):
    return ("Transaction cancelled, please refer cancellation reasons for specific reasons ["
            + ", ".join(codes) + "]")


def assert_cancelled(err, reasons):
    """err: ClientError of a TransactionCanceledException. reasons: one
    (code, message) per action; message None means no Message member."""
    codes = [code for code, _ in reasons]
    assert_error(err, "TransactionCanceledException", cancelled_message(codes))
    got = err.response["CancellationReasons"]
    assert [r["Code"] for r in got] == codes
    for (code, message), r in zip(reasons, got):
        if message is None:
            assert "Message" not in r, r
        else:
            assert r.get("Message") == message, r


def put(table, item, **extra):
    return {"Put": dict({"TableName": table, "Item": item}, **extra)}


def update(table, key, expression, **extra):
    return {"Update": dict({"TableName": table, "Key": key, "UpdateExpression": expression},
                           **extra)}


def delete(table, key, **extra):
    return {"Delete": dict({"TableName": table, "Key": key}, **extra)}


def check(table, key, condition, **extra):
    return {"ConditionCheck": dict({"TableName": table, "Key": key,
                                    "ConditionExpression": condition}, **extra)}


def get(table, key, **extra):
    return {"Get": dict({"TableName": table, "Key": key}, **extra)}


def raw_write(raw, items, **extra):
    return raw("TransactWriteItems", dict({"TransactItems": items}, **extra))


# --------------------------------------------------------------------------
# All or nothing
# --------------------------------------------------------------------------


def test_put_update_delete_commit_together(dynamodb, table_s):
    # The actions of a successful transaction all take effect; the answer is
    # {} without ReturnConsumedCapacity (paritysuite transactWrite.test.ts
    # "executes Put + Update + Delete atomically"; scylla test_transact.py).
    a, b, c = (S(random_string()) for _ in range(3))
    dynamodb.put_item(TableName=table_s, Item={"p": b, "x": N(1)})
    dynamodb.put_item(TableName=table_s, Item={"p": c, "x": N(1)})
    resp = dynamodb.transact_write_items(TransactItems=[
        put(table_s, {"p": a, "x": S("new")}),
        update(table_s, {"p": b}, "SET x = x + :one", ExpressionAttributeValues={":one": N(1)}),
        delete(table_s, {"p": c}),
    ])
    assert set(resp) == {"ResponseMetadata"}
    assert get_item(dynamodb, table_s, {"p": a}) == {"p": a, "x": S("new")}
    assert get_item(dynamodb, table_s, {"p": b}) == {"p": b, "x": N(2)}
    assert get_item(dynamodb, table_s, {"p": c}) is None


def test_successful_answer_is_empty_object(raw, table_s):
    # A transaction without Return* members answers exactly {}.
    resp = raw_write(raw, [put(table_s, {"p": S(random_string())})])
    assert resp.status == 200, resp.data
    assert resp.data == {}


def test_put_replaces_the_whole_item(dynamodb, table_s):
    # A transactional Put behaves like PutItem (scylla
    # test_transact_write_items_single_put_replaces, run against AWS).
    p = S(random_string())
    dynamodb.put_item(TableName=table_s, Item={"p": p, "x": S("1")})
    dynamodb.transact_write_items(TransactItems=[put(table_s, {"p": p, "y": S("2")})])
    assert get_item(dynamodb, table_s, {"p": p}) == {"p": p, "y": S("2")}


def test_update_of_missing_item_creates_it(dynamodb, table_s):
    # Update is an upsert, as UpdateItem is (developerguide transaction-apis:
    # "adds a new item to the table if it does not already exist").
    p = S(random_string())
    dynamodb.transact_write_items(TransactItems=[
        update(table_s, {"p": p}, "SET x = :v", ExpressionAttributeValues={":v": S("v")})])
    assert get_item(dynamodb, table_s, {"p": p}) == {"p": p, "x": S("v")}


def test_condition_check_writes_nothing(dynamodb, table_s):
    # A true ConditionCheck succeeds and writes nothing (scylla
    # test_transact_write_items_single_conditioncheck_true).
    p = S(random_string())
    dynamodb.transact_write_items(TransactItems=[
        check(table_s, {"p": p}, "attribute_not_exists(p)")])
    assert get_item(dynamodb, table_s, {"p": p}) is None


def test_transaction_spans_tables(dynamodb, table_s, table_sc):
    # Actions may target several tables (scylla
    # test_transact_write_items_multi_table_true).
    p1, p2 = S(random_string()), S(random_string())
    dynamodb.transact_write_items(TransactItems=[
        put(table_s, {"p": p1, "x": S("dog")}),
        put(table_sc, {"p": p2, "c": S("c"), "x": S("cat")},
            ConditionExpression="attribute_not_exists(p)"),
    ])
    assert get_item(dynamodb, table_s, {"p": p1}) == {"p": p1, "x": S("dog")}
    assert get_item(dynamodb, table_sc, {"p": p2, "c": S("c")})["x"] == S("cat")


def four_actions(table, keys):
    """A Put, an Update, a Delete and a ConditionCheck on keys[0..3], each
    with a condition that holds; keys[1] and keys[2] must exist."""
    return [
        put(table, {"p": keys[0], "v": S("new")}, ConditionExpression="attribute_not_exists(p)"),
        update(table, {"p": keys[1]}, "SET v = :v", ConditionExpression="attribute_exists(p)",
               ExpressionAttributeValues={":v": S("new")}),
        delete(table, {"p": keys[2]}, ConditionExpression="attribute_exists(p)"),
        check(table, {"p": keys[3]}, "attribute_not_exists(p)"),
    ]


def falsify(action):
    """The same action with its condition inverted."""
    body = dict(next(iter(action.values())))
    cond = body["ConditionExpression"]
    body["ConditionExpression"] = (cond.replace("attribute_not_exists", "attribute_exists")
                                   if "not" in cond
                                   else cond.replace("attribute_exists", "attribute_not_exists"))
    return {next(iter(action)): body}


@pytest.mark.parametrize("position", [0, 1, 2, 3])
def test_failing_condition_in_each_position_cancels_everything(dynamodb, table_s, position):
    # Whichever action's condition fails, nothing is written and the reasons
    # list one entry per action, in order: "None" (no Message) for the others,
    # ConditionalCheckFailed with "The conditional request failed" for it
    # (scylla test_transact_write_cancellation_reasons_conditionalcheckfailed;
    # paritysuite transactWriteItems.test.ts "one passing, one failing").
    keys = [S(random_string()) for _ in range(4)]
    old = [None, {"p": keys[1], "v": S("old")}, {"p": keys[2], "v": S("old")}, None]
    for item in old:
        if item:
            dynamodb.put_item(TableName=table_s, Item=item)
    actions = four_actions(table_s, keys)
    actions[position] = falsify(actions[position])
    err = client_error(dynamodb.transact_write_items, TransactItems=actions)
    reasons = [("None", None)] * 4
    reasons[position] = ("ConditionalCheckFailed", CCF)
    assert_cancelled(err, reasons)
    assert "ConsumedCapacity" not in err.response
    for key, item in zip(keys, old):
        assert get_item(dynamodb, table_s, {"p": key}) == item


def test_the_same_actions_with_true_conditions_succeed(dynamodb, table_s):
    # Control for the test above: with every condition true, all four apply.
    keys = [S(random_string()) for _ in range(4)]
    for k in keys[1:3]:
        dynamodb.put_item(TableName=table_s, Item={"p": k, "v": S("old")})
    dynamodb.transact_write_items(TransactItems=four_actions(table_s, keys))
    assert get_item(dynamodb, table_s, {"p": keys[0]}) == {"p": keys[0], "v": S("new")}
    assert get_item(dynamodb, table_s, {"p": keys[1]}) == {"p": keys[1], "v": S("new")}
    assert get_item(dynamodb, table_s, {"p": keys[2]}) is None
    assert get_item(dynamodb, table_s, {"p": keys[3]}) is None


def test_every_failing_condition_is_reported(dynamodb, table_s):
    # DynamoDB evaluates every condition and reports each failure, it does not
    # stop at the first (scylla
    # test_transact_write_cancellation_reasons_conditionalcheckfailed).
    p = [S(random_string()) for _ in range(4)]
    err = client_error(dynamodb.transact_write_items, TransactItems=[
        put(table_s, {"p": p[0]}),
        put(table_s, {"p": p[1]}, ConditionExpression="attribute_not_exists(p)"),
        check(table_s, {"p": p[2]}, "attribute_exists(p)"),
        put(table_s, {"p": p[3]}, ConditionExpression="attribute_exists(p)"),
    ])
    assert_cancelled(err, [("None", None), ("None", None), ("ConditionalCheckFailed", CCF),
                           ("ConditionalCheckFailed", CCF)])
    for k in p:
        assert get_item(dynamodb, table_s, {"p": k}) is None


def test_cancellation_body_is_aws_json(raw, table_s):
    # The whole error body, as AWS sends it (raw answers quoted in
    # pynamodb/PynamoDB#1144 and aws/aws-sdk-net#1292): "__type", then
    # "CancellationReasons" with {"Code": "None"} alone for actions that did
    # not fail, then "Message" with a capital M.
    p = S(random_string())
    resp = raw_write(raw, [put(table_s, {"p": S(random_string())}),
                           put(table_s, {"p": p}, ConditionExpression="attribute_exists(p)")])
    assert resp.status == 400
    assert resp.data == {
        "__type": CANCELED,
        "CancellationReasons": [{"Code": "None"},
                                {"Code": "ConditionalCheckFailed", "Message": CCF}],
        "Message": cancelled_message(["None", "ConditionalCheckFailed"]),
    }
    assert list(resp.data) == ["__type", "CancellationReasons", "Message"]


def test_all_old_returns_the_item_in_its_reason(dynamodb, raw, table_s):
    # ReturnValuesOnConditionCheckFailure ALL_OLD puts the current item in that
    # action's reason, between Code and Message (raw AWS answer in
    # boto/boto3#2657; scylla
    # test_transact_write_items_returnvaluesonconditioncheckfailure).
    p = S(random_string())
    item = {"p": p, "x": N(42), "y": S("dog")}
    dynamodb.put_item(TableName=table_s, Item=item)
    action = update(table_s, {"p": p}, "SET x = x + :one", ConditionExpression="x = :other",
                    ExpressionAttributeValues={":one": N(1), ":other": N(43)},
                    ReturnValuesOnConditionCheckFailure="ALL_OLD")
    err = client_error(dynamodb.transact_write_items, TransactItems=[action])
    assert_cancelled(err, [("ConditionalCheckFailed", CCF)])
    reason = err.response["CancellationReasons"][0]
    assert reason["Item"] == item
    resp = raw_write(raw, [action])
    assert list(resp.data["CancellationReasons"][0]) == ["Code", "Item", "Message"]
    deserializer = TypeDeserializer()
    got = {k: deserializer.deserialize(v) for k, v in resp.data["CancellationReasons"][0]["Item"].items()}
    assert got == {"p": p["S"], "x": 42, "y": "dog"}
    assert get_item(dynamodb, table_s, {"p": p}) == item


def test_all_old_on_every_action_type(raw, dynamodb, table_s):
    # ReturnValuesOnConditionCheckFailure is accepted on Put, Delete and
    # ConditionCheck too (API reference, TransactWriteItem).
    p = S(random_string())
    item = {"p": p, "x": S("old")}
    dynamodb.put_item(TableName=table_s, Item=item)
    for action in (put(table_s, {"p": p}, ConditionExpression="attribute_not_exists(p)",
                       ReturnValuesOnConditionCheckFailure="ALL_OLD"),
                   delete(table_s, {"p": p}, ConditionExpression="attribute_not_exists(p)",
                          ReturnValuesOnConditionCheckFailure="ALL_OLD"),
                   check(table_s, {"p": p}, "attribute_not_exists(p)",
                         ReturnValuesOnConditionCheckFailure="ALL_OLD")):
        resp = raw_write(raw, [action])
        assert resp.data["CancellationReasons"] == [
            {"Code": "ConditionalCheckFailed", "Item": item, "Message": CCF}]
    assert get_item(dynamodb, table_s, {"p": p}) == item


def test_without_all_old_no_item_is_returned(dynamodb, table_s):
    # NONE (or no member) returns no Item (scylla, same test).
    p = S(random_string())
    dynamodb.put_item(TableName=table_s, Item={"p": p, "x": N(42)})
    for extra in ({}, {"ReturnValuesOnConditionCheckFailure": "NONE"}):
        err = client_error(dynamodb.transact_write_items, TransactItems=[
            check(table_s, {"p": p}, "x = :v", ExpressionAttributeValues={":v": N(43)}, **extra)])
        assert err.response["CancellationReasons"] == [
            {"Code": "ConditionalCheckFailed", "Message": CCF}]


def test_all_old_of_a_missing_item_returns_no_item(dynamodb, table_s):
    # There is no old item to return when the item does not exist.
    p = S(random_string())
    err = client_error(dynamodb.transact_write_items, TransactItems=[
        check(table_s, {"p": p}, "attribute_exists(p)",
              ReturnValuesOnConditionCheckFailure="ALL_OLD")])
    assert err.response["CancellationReasons"] == [
        {"Code": "ConditionalCheckFailed", "Message": CCF}]


# --------------------------------------------------------------------------
# Per-action validation errors: TransactionCanceledException
# --------------------------------------------------------------------------


def test_put_key_of_wrong_type_is_a_validation_error_reason(dynamodb, table_s):
    # A Put whose key has the wrong type cancels the transaction with a
    # ValidationError reason carrying PutItem's text (paritysuite
    # transactWriteItems.test.ts "Put wrong-typed table key", captured on AWS).
    err = client_error(dynamodb.transact_write_items,
                       TransactItems=[put(table_s, {"p": N(5)})])
    assert_cancelled(err, [("ValidationError", "One or more parameter values were invalid: "
                                               "Type mismatch for key p expected: S actual: N")])


def test_only_the_first_validation_error_is_reported(dynamodb, table_s):
    # DynamoDB validates the actions before running any and stops at the
    # first invalid one: later invalid actions and false conditions get "None"
    # (scylla test_transact_write_cancellation_reasons_validationerror).
    p = S(random_string())
    err = client_error(dynamodb.transact_write_items, TransactItems=[
        put(table_s, {"p": N(7)}),
        put(table_s, {"p": N(8)}),
        put(table_s, {"p": p}, ConditionExpression="attribute_exists(p)"),
    ])
    assert_cancelled(err, [
        ("ValidationError",
         "One or more parameter values were invalid: Type mismatch for key p expected: S actual: N"),
        ("None", None), ("None", None)])
    assert get_item(dynamodb, table_s, {"p": p}) is None


@pytest.mark.parametrize("kind", ["Update", "Delete", "ConditionCheck"])
@pytest.mark.parametrize("key", [N(5), {"L": [S("x")]}])
def test_key_of_wrong_type_is_a_schema_mismatch_reason(dynamodb, table_s, kind, key):
    # Update, Delete and ConditionCheck with a wrong-typed or non-scalar Key
    # cancel with the key-schema text (paritysuite transactWriteItems.test.ts,
    # "cancelled with schema-mismatch reason", four regions).
    action = {"Update": update(table_s, {"p": key}, "SET a = :v",
                               ExpressionAttributeValues={":v": S("x")}),
              "Delete": delete(table_s, {"p": key}),
              "ConditionCheck": check(table_s, {"p": key}, "attribute_not_exists(p)")}[kind]
    err = client_error(dynamodb.transact_write_items, TransactItems=[action])
    assert_cancelled(err, [("ValidationError", KEY_MISMATCH)])


def test_update_that_cannot_apply_is_a_validation_error_reason(dynamodb, table_s):
    # An update expression that fails on the item is a ValidationError reason
    # (raw AWS answer in aws/aws-sdk-net#1292: [None, ValidationError] with
    # "The provided expression refers to an attribute that does not exist in
    # the item").
    p1, p2 = S(random_string()), S(random_string())
    dynamodb.put_item(TableName=table_s, Item={"p": p2})
    err = client_error(dynamodb.transact_write_items, TransactItems=[
        put(table_s, {"p": p1}),
        update(table_s, {"p": p2}, "SET x = nothere + :one",
               ExpressionAttributeValues={":one": N(1)}),
    ])
    assert_cancelled(err, [("None", None), (
        "ValidationError",
        "The provided expression refers to an attribute that does not exist in the item")])
    assert get_item(dynamodb, table_s, {"p": p1}) is None


@pytest.mark.parametrize("kind", ["Put", "Update", "Delete", "ConditionCheck"])
def test_empty_string_key_is_a_request_validation_error(dynamodb, raw, table_s, kind):
    # An empty string key value is refused up front as a ValidationException of
    # the whole request, on every action type (paritysuite
    # transactWriteItems.test.ts "empty-string ... top-level ValidationException").
    key = {"p": S("")}
    action = {"Put": put(table_s, key),
              "Update": update(table_s, key, "SET a = :v", ExpressionAttributeValues={":v": S("x")}),
              "Delete": delete(table_s, key),
              "ConditionCheck": check(table_s, key, "attribute_not_exists(p)")}[kind]
    resp = raw_write(raw, [action])
    assert_raw_error(resp, VALIDATION,
                     "One or more parameter values are not valid. The AttributeValue for a key "
                     "attribute cannot contain an empty string value. Key: p")


def test_empty_binary_key_is_a_request_validation_error(raw, table_sb):
    # The binary twin of the test above (same source): "empty binary value".
    resp = raw_write(raw, [put(table_sb, {"p": S(random_string()), "c": {"B": ""}})])
    assert_raw_error(resp, VALIDATION,
                     "One or more parameter values are not valid. The AttributeValue for a key "
                     "attribute cannot contain an empty binary value. Key: c")


# --------------------------------------------------------------------------
# Request-level validation: ValidationException, ResourceNotFoundException
# --------------------------------------------------------------------------


def test_missing_transact_items(raw):
    # Source: dynalite-style recorded validation (the model's required member);
    # the same sentence form as every other required member.
    resp = raw("TransactWriteItems", {})
    assert_raw_error(resp, VALIDATION, "1 validation error detected: Value null at "
                                       "'transactItems' failed to satisfy constraint: Member "
                                       "must not be null")


def test_empty_transact_items(raw):
    # paritysuite transactWriteItems.test.ts "empty TransactItems" (the
    # us-east-1 wording, which echoes the list).
    resp = raw_write(raw, [])
    assert_raw_error(resp, VALIDATION, "1 validation error detected: Value '[]' at "
                                       "'transactItems' failed to satisfy constraint: Member "
                                       "must have length greater than or equal to 1")


def test_hundred_actions_are_allowed(dynamodb, table_s):
    # The limit is 100 actions (scylla test_transact_write_items_100; API
    # reference TransactWriteItems).
    p = random_string()
    dynamodb.transact_write_items(TransactItems=[
        put(table_s, {"p": S(f"{p}-{i}"), "x": N(i)}) for i in range(100)])
    assert get_item(dynamodb, table_s, {"p": S(f"{p}-99")}) == {"p": S(f"{p}-99"), "x": N(99)}


def test_hundred_and_one_actions_are_refused(raw, dynamodb, table_s):
    # AWS echoes the whole list in Java's toString form, then the constraint
    # (paritysuite transactWriteItems.test.ts "> 100 actions": anchored pattern).
    p = random_string()
    resp = raw_write(raw, [put(table_s, {"p": S(f"{p}-{i}")}) for i in range(101)])
    assert_raw_error(resp, VALIDATION, re.compile(
        r"1 validation error detected: Value '\[.+\]' at 'transactItems' failed to satisfy "
        r"constraint: Member must have length less than or equal to 100", re.S))
    assert get_item(dynamodb, table_s, {"p": S(f"{p}-0")}) is None


def test_element_without_an_action(raw, table_s):
    # paritysuite transactWriteItems.test.ts "action with no operation"
    # (us-east-1's sentence); an unknown member alone is no action either.
    for elem in ({}, {"NotARealAction": {"TableName": table_s, "Item": {"p": S("a")}}}):
        resp = raw_write(raw, [elem])
        assert_raw_error(resp, VALIDATION, NO_ACTION)


def test_element_with_two_actions(raw, dynamodb, table_s):
    # moto tests/test_dynamodb/exceptions (verified against AWS):
    # "TransactItems can only contain one of Check, Put, Update or Delete".
    p = S(random_string())
    elem = dict(put(table_s, {"p": p}), **delete(table_s, {"p": S(random_string())}))
    resp = raw_write(raw, [elem])
    assert_raw_error(resp, VALIDATION, ONE_OF)
    assert get_item(dynamodb, table_s, {"p": p}) is None


@pytest.mark.parametrize("second", ["Put", "ConditionCheck", "Delete", "Update"])
def test_two_actions_on_one_item(raw, dynamodb, table_s, second):
    # No two actions may target the same item, a ConditionCheck included
    # (scylla test_transact_write_items_multi_action_conflict; paritysuite
    # "duplicate target keys": the full text).
    p = S(random_string())
    other = {"Put": put(table_s, {"p": p, "x": S("2")}),
             "ConditionCheck": check(table_s, {"p": p}, "attribute_not_exists(p)"),
             "Delete": delete(table_s, {"p": p}),
             "Update": update(table_s, {"p": p}, "SET x = :v",
                              ExpressionAttributeValues={":v": S("v")})}[second]
    resp = raw_write(raw, [put(table_s, {"p": p}), other])
    assert_raw_error(resp, VALIDATION, SAME_ITEM)
    assert get_item(dynamodb, table_s, {"p": p}) is None


def test_two_condition_checks_on_one_item(raw, table_s):
    # scylla test_transact_write_items_multi_action_conflict, third case.
    p = S(random_string())
    c = check(table_s, {"p": p}, "attribute_not_exists(p)")
    resp = raw_write(raw, [put(table_s, {"p": S(random_string())}), c, c])
    assert_raw_error(resp, VALIDATION, SAME_ITEM)


def test_same_key_in_two_tables_is_not_the_same_item(dynamodb, table_s, make_table):
    # The rule is per item, and an item belongs to one table (scylla
    # test_transact_write_items_multi_table_true writes two tables at once).
    other = make_table(("p", "S"))
    p = S(random_string())
    dynamodb.transact_write_items(TransactItems=[put(table_s, {"p": p}), put(other, {"p": p})])
    assert get_item(dynamodb, table_s, {"p": p}) == {"p": p}
    assert get_item(dynamodb, other, {"p": p}) == {"p": p}


def test_missing_table(raw, dynamodb, table_s):
    # ResourceNotFoundException "Requested resource not found", and nothing of
    # the other actions is written (paritysuite "non-existent table").
    p = S(random_string())
    resp = raw_write(raw, [put(table_s, {"p": p}),
                           put("does_not_exist_" + random_string(), {"p": S("x")})])
    assert_raw_error(resp, DDB + "ResourceNotFoundException", NOT_FOUND)
    assert get_item(dynamodb, table_s, {"p": p}) is None


def test_missing_table_is_reported_before_a_duplicate_target(raw, table_s):
    # A missing table is found before two actions on one item are (dynalite's
    # transaction tests: "should check table exists first before checking for
    # duplicate keys").
    p = S(random_string())
    missing = "does_not_exist_" + random_string()
    resp = raw_write(raw, [put(table_s, {"p": p}), delete(table_s, {"p": p}),
                           put(missing, {"p": S("x")})])
    assert_raw_error(resp, DDB + "ResourceNotFoundException", NOT_FOUND)


@pytest.mark.parametrize("position,kind,path", [
    (1, "Put", "1.member.put"),
    (2, "Update", "2.member.update"),
    (1, "Delete", "1.member.delete"),
    (1, "ConditionCheck", "1.member.conditionCheck"),
])
def test_malformed_table_name_names_the_member(raw, table_s, position, kind, path):
    # The member path names the action's position and type (paritysuite
    # transactWriteItems.test.ts, captured in us-east-1 and eu-west-2).
    bad = {"Put": put("bad!name", {"p": S("a")}),
           "Update": update("bad!name", {"p": S("a")}, "SET a = :a",
                            ExpressionAttributeValues={":a": S("x")}),
           "Delete": delete("bad!name", {"p": S("a")}),
           "ConditionCheck": check("bad!name", {"p": S("a")}, "attribute_exists(p)")}[kind]
    items = [put(table_s, {"p": S(random_string())})] if position == 2 else []
    resp = raw_write(raw, items + [bad])
    assert_raw_error(resp, VALIDATION,
                     f"1 validation error detected: Value 'bad!name' at 'transactItems.{path}."
                     "tableName' failed to satisfy constraint: Member must satisfy regular "
                     "expression pattern: [a-zA-Z0-9_.-]+")


def test_condition_check_needs_a_condition(raw, table_s):
    # ConditionExpression is required on a ConditionCheck (API reference
    # ConditionCheck; scylla test_transact_write_items_single_conditioncheck_
    # unconditional: a ValidationException naming ConditionExpression).
    resp = raw_write(raw, [{"ConditionCheck": {"TableName": table_s, "Key": {"p": S("a")}}}])
    assert_raw_error(resp, VALIDATION,
                     "1 validation error detected: Value null at 'transactItems.1.member."
                     "conditionCheck.conditionExpression' failed to satisfy constraint: Member "
                     "must not be null")


def test_unknown_return_enums(raw, dynamodb, table_s):
    # Both unknown enums in one message, ReturnConsumedCapacity first, and
    # ahead of a missing table or a duplicate target (paritysuite
    # tests/tier3/validation-ordering/transactions.test.ts).
    p = S(random_string())
    resp = raw_write(raw, [put(table_s, {"p": p})], ReturnConsumedCapacity="BOGUS")
    assert_raw_error(resp, VALIDATION, "1 validation error detected: " + ENUM_RCC)
    resp = raw_write(raw, [put(table_s, {"p": p})], ReturnItemCollectionMetrics="BOGUS2")
    assert_raw_error(resp, VALIDATION, "1 validation error detected: " + ENUM_RICM)
    resp = raw_write(raw, [put(table_s, {"p": p})], ReturnConsumedCapacity="BOGUS",
                     ReturnItemCollectionMetrics="BOGUS2")
    assert_raw_error(resp, VALIDATION, f"2 validation errors detected: {ENUM_RCC}; {ENUM_RICM}")
    resp = raw_write(raw, [put("no_such_" + random_string(), {"p": S("a")})],
                     ReturnConsumedCapacity="BOGUS")
    assert_raw_error(resp, VALIDATION, "1 validation error detected: " + ENUM_RCC)
    resp = raw_write(raw, [put(table_s, {"p": p}), delete(table_s, {"p": p})],
                     ReturnConsumedCapacity="BOGUS")
    assert_raw_error(resp, VALIDATION, "1 validation error detected: " + ENUM_RCC)
    assert get_item(dynamodb, table_s, {"p": p}) is None


def test_unknown_return_values_on_condition_check_failure(raw, table_s):
    # A per-action member, but refused for the whole request (scylla
    # test_transact_write_items_returnvaluesonconditioncheckfailure).
    for value in ("none", "dog"):
        resp = raw_write(raw, [update(table_s, {"p": S("a")}, "SET x = :v",
                                      ExpressionAttributeValues={":v": N(1)},
                                      ReturnValuesOnConditionCheckFailure=value)])
        assert_raw_error(resp, VALIDATION,
                         f"1 validation error detected: Value '{value}' at 'transactItems.1."
                         "member.update.returnValuesOnConditionCheckFailure' failed to satisfy "
                         "constraint: Member must satisfy enum value set: [ALL_OLD, NONE]")


def test_client_request_token_length(raw, dynamodb, table_s):
    # 36 characters are accepted, 37 refused; us-east-1 echoes the token and
    # lists it before the other member errors (paritysuite validation-ordering
    # "refuses a ClientRequestToken over 36 characters").
    p = S(random_string())
    token = "x" * 37
    echoed = (f"Value '{token}' at 'clientRequestToken' failed to satisfy constraint: Member "
              "must have length less than or equal to 36")
    resp = raw_write(raw, [put(table_s, {"p": p})], ClientRequestToken=token)
    assert_raw_error(resp, VALIDATION, "1 validation error detected: " + echoed)
    resp = raw_write(raw, [put(table_s, {"p": p})], ClientRequestToken=token,
                     ReturnConsumedCapacity="BOGUS")
    assert_raw_error(resp, VALIDATION, f"2 validation errors detected: {echoed}; {ENUM_RCC}")
    assert get_item(dynamodb, table_s, {"p": p}) is None
    dynamodb.transact_write_items(ClientRequestToken=random_string(32) + "abcd",
                                  TransactItems=[put(table_s, {"p": p})])
    assert get_item(dynamodb, table_s, {"p": p}) == {"p": p}


def test_item_too_large(raw, table_s):
    # A Put item over 400 KB is refused like PutItem's (dynalite transaction
    # validations: "Item size has exceeded the maximum allowed size").
    resp = raw_write(raw, [put(table_s, {"p": S(random_string()), "x": S("x" * 410000)})])
    assert_raw_error(resp, VALIDATION, "Item size has exceeded the maximum allowed size")


def test_payload_over_4_mb(raw, dynamodb, table_s):
    # Items of a transaction may not add up to more than 4 MB (API reference;
    # scylla test_transact_write_items_put_5MB: "size cannot exceed"; the text
    # as a client's test suite recorded AWS sending it, number varying).
    p = random_string()
    resp = raw_write(raw, [put(table_s, {"p": S(f"{p}-{i}"), "x": S("x" * 100000)})
                           for i in range(50)])
    assert_raw_error(resp, VALIDATION, re.compile(
        r"Transaction payload size cannot exceed 4MB\. Payload Size: : Transaction payload size "
        r"cannot exceed 4MB\. Payload Size: \d+"))
    assert get_item(dynamodb, table_s, {"p": S(f"{p}-0")}) is None


def test_payload_of_3_mb_is_fine(dynamodb, table_s):
    # scylla test_transact_write_items_put_3MB.
    p = random_string()
    dynamodb.transact_write_items(TransactItems=[
        put(table_s, {"p": S(f"{p}-{i}"), "x": S("x" * 100000)}) for i in range(30)])
    assert get_item(dynamodb, table_s, {"p": S(f"{p}-29")})["x"] == S("x" * 100000)


def test_deleting_more_than_4_mb_is_fine(dynamodb, table_s):
    # The limit is on what the request carries, not on the items it deletes
    # (scylla test_transact_write_items_delete_5MB, run against AWS).
    p = random_string()
    for i in range(50):
        dynamodb.put_item(TableName=table_s, Item={"p": S(f"{p}-{i}"), "x": S("x" * 100000)})
    dynamodb.transact_write_items(TransactItems=[delete(table_s, {"p": S(f"{p}-{i}")})
                                                 for i in range(50)])
    assert get_item(dynamodb, table_s, {"p": S(f"{p}-7")}) is None


# --------------------------------------------------------------------------
# Expressions inside actions: refused for the whole request
# --------------------------------------------------------------------------


def test_empty_condition_expression(raw, table_s):
    # paritysuite transactWriteItems.test.ts "empty ConditionExpression".
    for action in (put(table_s, {"p": S("a")}, ConditionExpression=""),
                   delete(table_s, {"p": S("a")}, ConditionExpression=""),
                   check(table_s, {"p": S("a")}, "")):
        resp = raw_write(raw, [action])
        assert_raw_error(resp, VALIDATION,
                         "Invalid ConditionExpression: The expression can not be empty;")


def test_condition_syntax_error(raw, table_s):
    # paritysuite transactWriteItems.test.ts "malformed ConditionExpression".
    resp = raw_write(raw, [check(table_s, {"p": S("a")}, "attribute_not_exists(")])
    assert_raw_error(resp, VALIDATION,
                     'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("')


def test_syntax_error_on_a_later_action_wins_over_a_missing_table(raw, table_s):
    # Expressions are checked before any table is looked up (paritysuite
    # validation-ordering "reports a malformed condition on a later action
    # ahead of a missing table on an earlier one").
    resp = raw_write(raw, [put("no_such_" + random_string(), {"p": S("a")}),
                           check(table_s, {"p": S("a")}, "attribute_not_exists(")])
    assert_raw_error(resp, VALIDATION,
                     'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("')


def test_first_failing_action_wins(raw, table_s):
    # Between two failing actions the first in request order is reported
    # (paritysuite validation-ordering: a malformed condition and a too deep item).
    deep = S("leaf")
    for _ in range(32):
        deep = {"M": {"n": deep}}
    nested = ("Nesting Levels have exceeded supported limits: Attributes in the item have "
              "nested levels beyond supported limit")
    syntax = 'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("'
    bad_check = check(table_s, {"p": S("cc")}, "attribute_not_exists(")
    deep_put = put(table_s, {"p": S("deep"), "data": deep})
    assert_raw_error(raw_write(raw, [bad_check, deep_put]), VALIDATION, syntax)
    assert_raw_error(raw_write(raw, [deep_put, bad_check]), VALIDATION, nested)


@pytest.mark.parametrize("kind", ["Put", "Update", "Delete", "ConditionCheck"])
def test_unused_expression_attribute_value(raw, dynamodb, table_s, kind):
    # paritysuite transactWriteItems.test.ts "unused ExpressionAttributeValues"
    # on every action type; scylla test_transact_write_items_unused_value.
    p = S(random_string())
    extra = {"ExpressionAttributeValues": {":v": S("x")}}
    action = {
        "Put": put(table_s, {"p": p}, ConditionExpression="attribute_not_exists(p)", **extra),
        "Update": update(table_s, {"p": p}, "SET a = :a",
                         ExpressionAttributeValues={":a": S("x"), ":v": S("x")}),
        "Delete": delete(table_s, {"p": p}, ConditionExpression="attribute_exists(p)", **extra),
        "ConditionCheck": check(table_s, {"p": p}, "attribute_not_exists(p)", **extra),
    }[kind]
    resp = raw_write(raw, [put(table_s, {"p": S(random_string())}), action])
    assert_raw_error(resp, VALIDATION,
                     "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}")
    assert get_item(dynamodb, table_s, {"p": p}) is None


def test_unused_value_wins_over_missing_table_and_duplicates(raw, table_s):
    # paritysuite validation-ordering: "reports an unused value ahead of a
    # missing table" (earlier and later action) and "ahead of a duplicate target".
    unused = check(table_s, {"p": S("vo-tx-cc")}, "attribute_not_exists(p)",
                   ExpressionAttributeValues={":v": S("x")})
    msg = "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}"
    missing = put("no_such_" + random_string(), {"p": S("a")})
    assert_raw_error(raw_write(raw, [missing, unused]), VALIDATION, msg)
    assert_raw_error(raw_write(raw, [unused, missing]), VALIDATION, msg)
    assert_raw_error(raw_write(raw, [put(table_s, {"p": S("vo-tx-cc")}), unused]), VALIDATION, msg)


def test_unused_expression_attribute_name(raw, table_s):
    # scylla test_transact_write_items_unused_name.
    resp = raw_write(raw, [put(table_s, {"p": S("a")}, ConditionExpression="attribute_exists(p)",
                               ExpressionAttributeNames={"#xyz": "x"})])
    assert_raw_error(resp, VALIDATION,
                     "Value provided in ExpressionAttributeNames unused in expressions: keys: {#xyz}")


def test_undefined_name_and_value(raw, table_s):
    # scylla test_transact_write_items_missing_name / _missing_value; the texts
    # are ConditionExpression's (dynalite test/putItem.js, recorded).
    resp = raw_write(raw, [put(table_s, {"p": S("a")}, ConditionExpression="attribute_exists(#xyz)")])
    assert_raw_error(resp, VALIDATION,
                     "Invalid ConditionExpression: An expression attribute name used in the "
                     "document path is not defined; attribute name: #xyz")
    resp = raw_write(raw, [put(table_s, {"p": S("a")}, ConditionExpression="p = :xyz")])
    assert_raw_error(resp, VALIDATION,
                     "Invalid ConditionExpression: An expression attribute value used in "
                     "expression is not defined; attribute value: :xyz")


def test_names_and_values_need_an_expression(raw, table_s):
    # Put and Delete without a ConditionExpression may not carry names or
    # values (dynalite validations/index.js validateExpressionParams, recorded).
    resp = raw_write(raw, [put(table_s, {"p": S("a")}, ExpressionAttributeNames={"#a": "a"})])
    assert_raw_error(resp, VALIDATION,
                     "ExpressionAttributeNames can only be specified when using expressions")
    resp = raw_write(raw, [delete(table_s, {"p": S("a")},
                                  ExpressionAttributeValues={":a": S("a")})])
    assert_raw_error(resp, VALIDATION, "ExpressionAttributeValues can only be specified when "
                                       "using expressions: ConditionExpression is null")


def test_serialization_error_in_names(raw, table_s):
    # A non-string name is a SerializationException of the whole request
    # (scylla test_transact_write_items_serialization_exception).
    resp = raw_write(raw, [put(table_s, {"p": S("a")}, ConditionExpression="attribute_exists(p)",
                               ExpressionAttributeNames={"#xyz": 7})])
    assert resp.status == 400
    assert resp.data["__type"] == "com.amazon.coral.service#SerializationException"


# --------------------------------------------------------------------------
# ClientRequestToken
# --------------------------------------------------------------------------


def counter_increment(table, p):
    return [update(table, {"p": p}, "SET n = if_not_exists(n, :zero) + :one",
                   ExpressionAttributeValues={":zero": N(0), ":one": N(1)})]


def test_same_token_same_parameters_does_not_write_again(dynamodb, table_s):
    # Without a token every call applies; with the same token and the same
    # parameters the retry succeeds without writing (scylla
    # test_transact_write_items_clientrequesttoken, run against AWS).
    p = S(random_string())
    token = random_string(32)
    dynamodb.transact_write_items(TransactItems=counter_increment(table_s, p))
    dynamodb.transact_write_items(TransactItems=counter_increment(table_s, p))
    assert get_item(dynamodb, table_s, {"p": p})["n"] == N(2)
    for _ in range(3):
        dynamodb.transact_write_items(ClientRequestToken=token,
                                      TransactItems=counter_increment(table_s, p))
        assert get_item(dynamodb, table_s, {"p": p})["n"] == N(3)


def test_same_token_other_parameters_is_a_mismatch(dynamodb, table_s):
    # scylla test_transact_write_items_clientrequesttoken_mismatch; paritysuite
    # "rejects same ClientRequestToken with different payload". Nothing is
    # written by the refused call.
    p1, p2 = S(random_string()), S(random_string())
    token = random_string(32)
    dynamodb.transact_write_items(ClientRequestToken=token, TransactItems=[put(table_s, {"p": p1})])
    err = client_error(dynamodb.transact_write_items, ClientRequestToken=token,
                       TransactItems=[put(table_s, {"p": p2})])
    assert err.response["Error"]["Code"] == "IdempotentParameterMismatchException"
    assert get_item(dynamodb, table_s, {"p": p2}) is None


def test_member_order_does_not_make_another_request(raw, dynamodb, table_s):
    # AWS compares the parameters, not the bytes: the same request with its
    # members in another order is a retry (localstack/localstack#6529,
    # "I have verified against AWS, it doesn't care about parameter ordering").
    p = S(random_string())
    token = random_string(32)
    first = '{"ClientRequestToken": "%s", "TransactItems": [{"Update": {"TableName": "%s", ' \
            '"Key": {"p": {"S": "%s"}}, "UpdateExpression": "SET n = if_not_exists(n, :z) + :o",' \
            ' "ExpressionAttributeValues": {":z": {"N": "0"}, ":o": {"N": "1"}}}}]}' % (
                token, table_s, p["S"])
    again = '{"TransactItems": [{"Update": {"ExpressionAttributeValues": {":o": {"N": "1"}, ' \
            '":z": {"N": "0"}}, "UpdateExpression": "SET n = if_not_exists(n, :z) + :o", ' \
            '"Key": {"p": {"S": "%s"}}, "TableName": "%s"}}], "ClientRequestToken": "%s"}' % (
                p["S"], table_s, token)
    assert raw("TransactWriteItems", first).status == 200
    resp = raw("TransactWriteItems", again)
    assert resp.status == 200, resp.data
    assert get_item(dynamodb, table_s, {"p": p})["n"] == N(1)


def test_retry_may_ask_for_other_capacity_details(dynamodb, table_s):
    # ReturnConsumedCapacity only shapes the answer: a same-token retry that
    # asks for it is answered with its own mode (nubo-db/dynoxide#123,
    # "honouring the replay's own ReturnConsumedCapacity mode", verified
    # against paritysuite's AWS-characterised suite).
    p = S(random_string())
    token = random_string(32)
    dynamodb.transact_write_items(ClientRequestToken=token,
                                  TransactItems=counter_increment(table_s, p))
    resp = dynamodb.transact_write_items(ClientRequestToken=token, ReturnConsumedCapacity="TOTAL",
                                         TransactItems=counter_increment(table_s, p))
    assert resp["ConsumedCapacity"] == [
        {"TableName": table_s, "CapacityUnits": 2.0, "ReadCapacityUnits": 2.0}]
    assert get_item(dynamodb, table_s, {"p": p})["n"] == N(1)


# --------------------------------------------------------------------------
# Capacity and item collection metrics
# --------------------------------------------------------------------------


def test_transactional_writes_cost_twice(dynamodb, table_s):
    # 2 write units per item of up to 1 KB, summed per table, with the
    # read/write split that only transactional answers carry (paritysuite
    # transactWrite.test.ts "charges 2 write capacity units per item";
    # nubo-db/dynoxide#123 for the WriteCapacityUnits member).
    resp = dynamodb.transact_write_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
        put(table_s, {"p": S(random_string()), "v": N(1)}),
        put(table_s, {"p": S(random_string()), "v": N(1)}),
    ])
    assert resp["ConsumedCapacity"] == [
        {"TableName": table_s, "CapacityUnits": 4.0, "WriteCapacityUnits": 4.0}]
    single = dynamodb.put_item(TableName=table_s, Item={"p": S(random_string()), "v": N(1)},
                               ReturnConsumedCapacity="TOTAL")
    assert single["ConsumedCapacity"]["CapacityUnits"] == 1.0


def test_write_units_follow_item_size(dynamodb, table_s):
    # A 1.5 KB item is two write units, doubled: 4 (paritysuite replay test).
    resp = dynamodb.transact_write_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
        put(table_s, {"p": S(random_string()), "big": S("x" * 1536)})])
    assert resp["ConsumedCapacity"][0]["CapacityUnits"] == 4.0


def test_conditions_add_no_read_capacity(dynamodb, table_s):
    # paritysuite "a passing conditional write costs the same 2 WCU/item".
    resp = dynamodb.transact_write_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
        put(table_s, {"p": S(random_string())}, ConditionExpression="attribute_not_exists(p)")])
    assert resp["ConsumedCapacity"] == [
        {"TableName": table_s, "CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}]


def test_condition_check_costs_two_write_units(dynamodb, table_s, table_sc):
    # paritysuite "a standalone ConditionCheck action costs 2 write capacity
    # units", billed as write, on its own table line under INDEXES.
    present = {"p": S(random_string()), "c": S("x")}
    dynamodb.put_item(TableName=table_sc, Item=present)
    resp = dynamodb.transact_write_items(ReturnConsumedCapacity="INDEXES", TransactItems=[
        put(table_s, {"p": S(random_string()), "v": N(1)}),
        check(table_sc, present, "attribute_exists(p)"),
    ])
    entry = [c for c in resp["ConsumedCapacity"] if c["TableName"] == table_sc][0]
    assert entry["CapacityUnits"] == 2.0
    assert entry["WriteCapacityUnits"] == 2.0
    assert "ReadCapacityUnits" not in entry
    assert entry["Table"] == {"CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}


def test_replay_reports_a_transactional_read(dynamodb, table_s):
    # First call: 4 write units for a ~1.5 KB item; same-token replay: 2 read
    # units, a transactional read of the item (paritysuite "reports write
    # capacity on the first call and read capacity on a same-token replay").
    token = random_string(32)
    items = [put(table_s, {"p": S(random_string()), "big": S("x" * 1536)})]
    first = dynamodb.transact_write_items(ClientRequestToken=token,
                                          ReturnConsumedCapacity="INDEXES", TransactItems=items)
    replay = dynamodb.transact_write_items(ClientRequestToken=token,
                                           ReturnConsumedCapacity="INDEXES", TransactItems=items)
    assert first["ConsumedCapacity"][0]["WriteCapacityUnits"] == 4.0
    assert "ReadCapacityUnits" not in first["ConsumedCapacity"][0]
    assert replay["ConsumedCapacity"][0]["ReadCapacityUnits"] == 2.0
    assert "WriteCapacityUnits" not in replay["ConsumedCapacity"][0]


def test_cancelled_transaction_reports_no_capacity(raw, table_s):
    # paritysuite "a cancelled conditional transaction reports no consumed capacity".
    resp = raw_write(raw, [put(table_s, {"p": S(random_string())},
                               ConditionExpression="attribute_exists(p)")],
                     ReturnConsumedCapacity="TOTAL")
    assert resp.data["__type"] == CANCELED
    assert "ConsumedCapacity" not in resp.data


def test_index_writes_cost_twice(dynamodb, make_table):
    # Index writes are charged like the table's, doubled, and itemized under
    # INDEXES (developerguide transaction-apis "Capacity management for
    # transactions": each underlying write costs twice).
    table = make_table(("p", "S"), AttributeDefinitions=[
        {"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "gsi", "KeySchema": [
            {"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}])
    resp = dynamodb.transact_write_items(ReturnConsumedCapacity="INDEXES", TransactItems=[
        put(table, {"p": S(random_string()), "g": S("x")})])
    entry = resp["ConsumedCapacity"][0]
    assert entry["CapacityUnits"] == 4.0
    assert entry["Table"] == {"CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}
    assert entry["GlobalSecondaryIndexes"] == {
        "gsi": {"CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}}


def lsi_table(make_table):
    return make_table(("p", "S"), ("c", "S"), AttributeDefinitions=[
        {"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "c", "AttributeType": "S"},
        {"AttributeName": "l", "AttributeType": "S"}],
        LocalSecondaryIndexes=[{"IndexName": "lsi", "KeySchema": [
            {"AttributeName": "p", "KeyType": "HASH"}, {"AttributeName": "l", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}])


def test_item_collection_metrics_per_table_with_an_lsi(dynamodb, make_table, table_s):
    # ReturnItemCollectionMetrics SIZE: per table with an LSI, one entry per
    # item collection written, its size as the whole-GB range [0, 1]
    # (API reference TransactWriteItems ItemCollectionMetrics; paritysuite
    # putItem/itemCollectionMetrics.test.ts for the range); tables without an
    # LSI have none.
    table = lsi_table(make_table)
    p = S(random_string())
    resp = dynamodb.transact_write_items(ReturnItemCollectionMetrics="SIZE", TransactItems=[
        put(table, {"p": p, "c": S("1"), "l": S("a")}),
        put(table, {"p": p, "c": S("2")}),
        put(table_s, {"p": S(random_string())}),
    ])
    assert resp["ItemCollectionMetrics"] == {
        table: [{"ItemCollectionKey": {"p": p}, "SizeEstimateRangeGB": [0.0, 1.0]}]}
    resp = dynamodb.transact_write_items(TransactItems=[put(table, {"p": p, "c": S("3")})])
    assert "ItemCollectionMetrics" not in resp


# --------------------------------------------------------------------------
# TransactGetItems
# --------------------------------------------------------------------------


def test_get_returns_items_in_request_order(dynamodb, table_s, table_sc):
    # Responses follow the request; a missing item is {} (scylla
    # test_transact_get_items_one/_missing, run against AWS).
    a = {"p": S(random_string()), "x": S("a")}
    b = {"p": S(random_string()), "c": S("c"), "x": S("b")}
    dynamodb.put_item(TableName=table_s, Item=a)
    dynamodb.put_item(TableName=table_sc, Item=b)
    resp = dynamodb.transact_get_items(TransactItems=[
        get(table_sc, {"p": b["p"], "c": b["c"]}),
        get(table_s, {"p": S(random_string())}),
        get(table_s, {"p": a["p"]}),
    ])
    assert resp["Responses"] == [{"Item": b}, {}, {"Item": a}]
    assert "ConsumedCapacity" not in resp


def test_get_projection(dynamodb, table_s):
    # ProjectionExpression with and without names (scylla
    # test_transact_get_items_projection_expression[_attribute_names]).
    item = {"p": S(random_string()), "x": N(1), "y": N(2), "z": N(3)}
    twin = dict(item, p=S(random_string()))
    dynamodb.put_item(TableName=table_s, Item=item)
    dynamodb.put_item(TableName=table_s, Item=twin)
    resp = dynamodb.transact_get_items(TransactItems=[
        get(table_s, {"p": item["p"]}, ProjectionExpression="x,z"),
        get(table_s, {"p": twin["p"]}, ProjectionExpression="#xx,#zz",
            ExpressionAttributeNames={"#xx": "x", "#zz": "z"}),
    ])
    assert resp["Responses"] == [{"Item": {"x": N(1), "z": N(3)}},
                                 {"Item": {"x": N(1), "z": N(3)}}]


def test_get_expression_errors(raw, table_s):
    # A ValidationException of the whole request (scylla
    # test_transact_get_items_unused/_missing_expressionattributenames;
    # paritysuite transactGetItems.test.ts for the syntax text).
    key = {"p": S("a")}
    resp = raw("TransactGetItems", {"TransactItems": [get(
        table_s, key, ProjectionExpression="#xx,#zz",
        ExpressionAttributeNames={"#xx": "x", "#zz": "z", "#qq": "q"})]})
    assert_raw_error(resp, VALIDATION,
                     "Value provided in ExpressionAttributeNames unused in expressions: keys: {#qq}")
    resp = raw("TransactGetItems", {"TransactItems": [get(
        table_s, key, ProjectionExpression="#xx,#zz", ExpressionAttributeNames={"#xx": "x"})]})
    assert_raw_error(resp, VALIDATION,
                     "Invalid ProjectionExpression: An expression attribute name used in the "
                     "document path is not defined; attribute name: #zz")
    resp = raw("TransactGetItems", {"TransactItems": [get(table_s, key,
                                                          ProjectionExpression="!!!")]})
    assert_raw_error(resp, VALIDATION,
                     'Invalid ProjectionExpression: Syntax error; token: "!", near: "!!"')


def test_get_limits(raw, dynamodb, table_s):
    # 1..100 Gets (scylla test_transact_get_items_100/_101; paritysuite
    # transactGetItems.test.ts for the texts).
    p = random_string()
    resp = raw("TransactGetItems", {"TransactItems": []})
    assert_raw_error(resp, VALIDATION, "1 validation error detected: Value '[]' at "
                                       "'transactItems' failed to satisfy constraint: Member "
                                       "must have length greater than or equal to 1")
    resp = raw("TransactGetItems", {"TransactItems": [get(table_s, {"p": S(f"{p}-{i}")})
                                                      for i in range(101)]})
    assert_raw_error(resp, VALIDATION, re.compile(
        r"1 validation error detected: Value '\[.+\]' at 'transactItems' failed to satisfy "
        r"constraint: Member must have length less than or equal to 100", re.S))
    resp = dynamodb.transact_get_items(TransactItems=[get(table_s, {"p": S(f"{p}-{i}")})
                                                      for i in range(100)])
    assert resp["Responses"] == [{}] * 100


def test_get_missing_table(raw):
    # paritysuite transactGetItems.test.ts "non-existent table".
    resp = raw("TransactGetItems", {"TransactItems": [get("no_such_" + random_string(),
                                                          {"p": S("x")})]})
    assert_raw_error(resp, DDB + "ResourceNotFoundException", NOT_FOUND)


def test_get_key_not_matching_the_schema_cancels(dynamodb, table_s):
    # An empty Key is an action-level ValidationError (paritysuite
    # transactGetItems.test.ts "missing key attribute").
    err = client_error(dynamodb.transact_get_items, TransactItems=[
        get(table_s, {"p": S("a")}), get(table_s, {})])
    assert_cancelled(err, [("None", None), ("ValidationError", KEY_MISMATCH)])


def test_get_same_item_twice(raw, table_s):
    # A duplicate target is refused in TransactGetItems too (paritysuite
    # validation-ordering "TransactGetItems ... ahead of a duplicate target").
    key = {"p": S(random_string())}
    resp = raw("TransactGetItems", {"TransactItems": [get(table_s, key), get(table_s, key)]})
    assert_raw_error(resp, VALIDATION, SAME_ITEM)


def test_get_unknown_return_consumed_capacity(raw, table_s):
    # paritysuite validation-ordering "TransactGetItems refuses an unknown
    # ReturnConsumedCapacity", ahead of a missing table.
    resp = raw("TransactGetItems", {"TransactItems": [get("no_such_" + random_string(),
                                                          {"p": S("a")})],
                                    "ReturnConsumedCapacity": "BOGUS"})
    assert_raw_error(resp, VALIDATION, "1 validation error detected: " + ENUM_RCC)


def test_get_costs_two_read_units_per_item(dynamodb, table_s):
    # 2 read units per item of up to 4 KB, a missing item too (paritysuite
    # issue #27 baseline; nubo-db/dynoxide#57), reported as read units.
    item = {"p": S(random_string())}
    dynamodb.put_item(TableName=table_s, Item=item)
    resp = dynamodb.transact_get_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
        get(table_s, item), get(table_s, {"p": S(random_string())})])
    assert resp["ConsumedCapacity"] == [
        {"TableName": table_s, "CapacityUnits": 4.0, "ReadCapacityUnits": 4.0}]
    resp = dynamodb.transact_get_items(ReturnConsumedCapacity="INDEXES",
                                       TransactItems=[get(table_s, item)])
    assert resp["ConsumedCapacity"][0]["Table"] == {"CapacityUnits": 2.0,
                                                    "ReadCapacityUnits": 2.0}


def test_get_sees_a_whole_transaction(dynamodb, table_s):
    # TransactGetItems reads one consistent state: after a transaction that
    # moved a value between two items, both reads agree (developerguide
    # transaction-apis "Isolation levels": serializable between transactions).
    a, b = S(random_string()), S(random_string())
    dynamodb.transact_write_items(TransactItems=[put(table_s, {"p": a, "v": N(10)}),
                                                 put(table_s, {"p": b, "v": N(0)})])
    dynamodb.transact_write_items(TransactItems=[
        update(table_s, {"p": a}, "SET v = v - :x", ExpressionAttributeValues={":x": N(3)}),
        update(table_s, {"p": b}, "SET v = v + :x", ExpressionAttributeValues={":x": N(3)}),
    ])
    resp = dynamodb.transact_get_items(TransactItems=[get(table_s, {"p": a}),
                                                      get(table_s, {"p": b})])
    assert [r["Item"]["v"] for r in resp["Responses"]] == [N(7), N(3)]
