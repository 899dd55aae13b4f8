"""Hostile JSON bodies: deep nesting, huge arrays, NUL bytes, malformed numbers.

Every request gets DynamoDB's answer, and a refused request changes nothing.
What AWS answers for the shapes below is known (each test says how); the
shapes whose AWS answer is not recorded are pinned in
test_emulator_hostile_json.py and listed in docs/differences.md.
"""
import re

import pytest

from util import SERIALIZATION, VALIDATION, assert_raw_error, get_item, random_string

NESTING = re.compile(r"(?s).*Nesting Levels have exceeded supported limits.*")
TOO_BIG = "Item size has exceeded the maximum allowed size"
NOT_NUMERIC = re.compile(r"The parameter cannot be converted to a numeric value(: .*)?")
OVERFLOW = ("Number overflow. Attempting to store a number with magnitude larger than "
            "supported range")


def nested(kind, depth):
    value = {"S": "leaf"}
    for _ in range(depth):
        value = {"M": {"a": value}} if kind == "M" else {"L": [value]}
    return value


def put_raw(raw, table, key, attr_json):
    """PutItem with the attribute "v" written as the JSON text attr_json."""
    return raw("PutItem", '{"TableName": "%s", "Item": {"p": {"S": "%s"}, "v": %s}}'
               % (table, key, attr_json))


@pytest.mark.parametrize("kind", ["M", "L", "mixed"])
def test_one_level_beyond_32_is_refused_and_changes_nothing(dynamodb, raw, table_s, kind):
    # An item has at most 32 levels (service quotas, "Nested attribute depth:
    # 32"): the item, its attribute and 30 more documents inside it. Scylla's
    # test_almost_exceed_nested_level (run against AWS) stores exactly that;
    # one more level is ValidationException "Nesting Levels have exceeded
    # supported limits" (wording captured in eu-west-2, test_limits.py).
    key = random_string()
    old = {"p": {"S": key}, "v": {"S": "old"}}
    dynamodb.put_item(TableName=table_s, Item=old)
    if kind == "mixed":
        deepest = {"S": "leaf"}
        for i in range(32):
            deepest = {"M": {"a": deepest}} if i % 2 else {"L": [deepest]}
        fits = deepest["M"]["a"] if "M" in deepest else deepest["L"][0]
    else:
        fits, deepest = nested(kind, 31), nested(kind, 32)
    assert_raw_error(raw("PutItem", {"TableName": table_s,
                                     "Item": {"p": {"S": key}, "v": deepest}}),
                     VALIDATION, NESTING)
    assert get_item(dynamodb, table_s, {"p": {"S": key}}) == old
    # The same depth arriving through UpdateItem's values is refused too.
    resp = raw("UpdateItem", {"TableName": table_s, "Key": {"p": {"S": key}},
                              "UpdateExpression": "SET w = :w",
                              "ExpressionAttributeValues": {":w": deepest}})
    assert_raw_error(resp, VALIDATION, NESTING)
    assert get_item(dynamodb, table_s, {"p": {"S": key}}) == old
    dynamodb.put_item(TableName=table_s, Item={"p": {"S": key}, "v": fits})
    assert get_item(dynamodb, table_s, {"p": {"S": key}}) == {"p": {"S": key}, "v": fits}


@pytest.mark.parametrize("body", [
    "[" * 100000,                                # never closed
    "{" + '"a":{' * 50000,                       # objects, never closed
    '{"a": ' + "[" * 100000 + "]" * 100000 + "}",
])
def test_json_nested_far_too_deep_is_not_json(raw, body):
    # Text that is not a complete JSON document is SerializationException with
    # no message (dynalite test/connection.js; scylla test_incorrect_json, run
    # against AWS). The server must answer it without recursing 100,000 deep,
    # and keep answering.
    assert_raw_error(raw("PutItem", body), SERIALIZATION)
    assert raw("ListTables", {}).status == 200


@pytest.mark.parametrize("body", [
    "{\"TableName\": \"t\", \"Limit\": %s}" % n
    for n in ("01", ".5", "1.", "-", "1e", "+1", "NaN", "Infinity", "-Infinity", "0x10", "1_0")
])
def test_malformed_json_numbers_are_not_json(raw, body):
    # None of these is a JSON number (RFC 8259, section 6), so the body is not
    # JSON: SerializationException, as for any text that is not JSON
    # (scylla test_incorrect_json, run against AWS).
    assert_raw_error(raw("Scan", body), SERIALIZATION)


@pytest.mark.parametrize("value", ["0x10", "1,0", " 1", "1 ", "-", ".", "1_000", "\u0663",
                                   "1e1e1", "--1", "1..2", "e5", "\u00a01"])
def test_malformed_number_strings_are_refused(dynamodb, raw, table_s, value):
    # An N value that is no decimal number is ValidationException "The parameter
    # cannot be converted to a numeric value: <value>" (scylla
    # test_incorrect_numbers, run against AWS; dynalite's recorded wording), and
    # nothing is written.
    key = random_string()
    resp = raw("PutItem", {"TableName": table_s,
                           "Item": {"p": {"S": key}, "v": {"N": value}}})
    assert_raw_error(resp, VALIDATION, NOT_NUMERIC)
    assert get_item(dynamodb, table_s, {"p": {"S": key}}) is None


@pytest.mark.parametrize("value", ["1e9999999999999999999", "9" * 39 + "e200"])
def test_numbers_with_huge_exponents_overflow(raw, table_s, value):
    # A number whose magnitude passes 1E+126 is "Number overflow" whatever its
    # exponent's own size (developer guide, "Number": magnitude up to 9.99E+125;
    # wording in test_numbers.py).
    resp = raw("PutItem", {"TableName": table_s,
                           "Item": {"p": {"S": random_string()}, "v": {"N": value}}})
    assert_raw_error(resp, VALIDATION, re.compile(
        re.escape(OVERFLOW) + "|Attempting to store more than 38 significant digits in a Number"))


def test_raw_nul_byte_in_a_string_is_not_json(dynamodb, raw, table_s):
    # A control character must be escaped in a JSON string (RFC 8259, section
    # 7): a raw NUL byte makes the body invalid JSON, SerializationException.
    # The escaped form \u0000 is an ordinary character (test_nul.py).
    key = random_string()
    body = ('{"TableName": "%s", "Item": {"p": {"S": "%s"}, "v": {"S": "a\x00b"}}}'
            % (table_s, key)).encode()
    assert_raw_error(raw("PutItem", body), SERIALIZATION)
    assert get_item(dynamodb, table_s, {"p": {"S": key}}) is None
    ok = raw("PutItem", '{"TableName": "%s", "Item": {"p": {"S": "%s"}, "v": {"S": "a\\u0000b"}}}'
             % (table_s, key))
    assert ok.status == 200
    assert get_item(dynamodb, table_s, {"p": {"S": key}})["v"] == {"S": "a\x00b"}


def test_huge_list_over_400_kb_is_refused(dynamodb, raw, table_s):
    # 300,000 list elements of one byte each (and one byte of overhead each)
    # pass 400 KB: "Item size has exceeded the maximum allowed size" (developer
    # guide, item size rules; wording in test_limits.py). Nothing is written.
    key = random_string()
    body = ('{"TableName": "%s", "Item": {"p": {"S": "%s"}, "v": {"L": [%s]}}}'
            % (table_s, key, ",".join(['{"NULL": true}'] * 300000)))
    assert_raw_error(raw("PutItem", body), VALIDATION, TOO_BIG)
    assert get_item(dynamodb, table_s, {"p": {"S": key}}) is None


def test_huge_list_under_400_kb_round_trips(dynamodb, raw, table_s):
    # 100,000 elements are 200,000 bytes of item: stored and read back whole.
    key = random_string()
    body = ('{"TableName": "%s", "Item": {"p": {"S": "%s"}, "v": {"L": [%s]}}}'
            % (table_s, key, ",".join(['{"BOOL": true}'] * 100000)))
    assert raw("PutItem", body).status == 200
    got = get_item(dynamodb, table_s, {"p": {"S": key}})
    assert len(got["v"]["L"]) == 100000


@pytest.mark.parametrize("target,body,member", [
    ("BatchGetItem", lambda t: {"RequestItems": {t: {"Keys": [
        {"p": {"S": str(i)}} for i in range(20000)]}}}, "RequestItems.{t}.member.Keys"),
    ("TransactWriteItems", lambda t: {"TransactItems": [
        {"Put": {"TableName": t, "Item": {"p": {"S": str(i)}}}} for i in range(20000)]},
     "transactItems"),
])
def test_huge_request_arrays_are_refused_by_their_bounds(raw, dynamodb, table_s, target, body,
                                                          member):
    # Arrays far over their bound get the model's constraint (BatchGetItem: 100
    # keys; TransactWriteItems: 100 actions; API reference) - one validation
    # error, nothing written. BatchGetItem's prints no value and spells the
    # member as the request does (nubo-db/dynamodb-conformance, against AWS).
    resp = raw(target, body(table_s))
    assert_raw_error(resp, VALIDATION, re.compile(
        r"1 validation error detected: Value (?:'.*' )?at '" + re.escape(member.format(t=table_s))
        + r"' failed to satisfy constraint: Member must have length less than or equal to 100",
        re.S))
    assert get_item(dynamodb, table_s, {"p": {"S": "19999"}}) is None
