"""Hostile JSON whose answer from AWS is not recorded: ddbemu's answers, pinned.

docs/differences.md ("Hostile JSON") lists these. Each refusal changes
nothing, and the server keeps answering.
"""
import pytest

from util import SERIALIZATION, VALIDATION, assert_raw_error, get_item, random_string


def test_item_deeper_than_the_json_reader_goes_is_serialization_exception(dynamodb, raw,
                                                                           table_s):
    # 1,100 nested maps are 2,200 levels of JSON, past the JSON reader's 2,048
    # (jansson's JSON_PARSER_MAX_DEPTH, which json_in.c keeps): the body is
    # refused as JSON before any nesting rule runs. AWS presumably answers
    # "Nesting Levels have exceeded supported limits" (test_hostile_json.py).
    key = random_string()
    depth = 1100
    body = ('{"TableName": "%s", "Item": {"p": {"S": "%s"}, "v": ' % (table_s, key)
            + '{"M": {"a": ' * depth + '{"S": "x"}' + "}}" * depth + "}}")
    assert_raw_error(raw("PutItem", body), SERIALIZATION)
    assert get_item(dynamodb, table_s, {"p": {"S": key}}) is None


def test_duplicate_members_keep_the_last(dynamodb, raw, table_s):
    # A JSON object naming a member twice: the last one counts, at every level
    # (request members, item attributes, the type inside an AttributeValue).
    key = random_string()
    body = ('{"TableName": "nope", "TableName": "%s", "Item": {"p": {"S": "%s"}, '
            '"v": {"S": "first"}, "v": {"N": "1", "N": "2"}}}' % (table_s, key))
    assert raw("PutItem", body).status == 200
    assert get_item(dynamodb, table_s, {"p": {"S": key}}) == {"p": {"S": key}, "v": {"N": "2"}}


@pytest.mark.parametrize("text", [b"\xff", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"a\xf8\x88\x80\x80\x80"])
def test_invalid_utf8_is_serialization_exception(dynamodb, raw, table_s, text):
    # A body that is not UTF-8 (a stray byte, a truncated sequence, an overlong
    # form, an encoded surrogate, a 5-byte form) is not JSON.
    key = random_string()
    for body in (b'{"TableName": "%s", "Item": {"p": {"S": "%s"}, "v": {"S": "%s"}}}',
                 b'{"TableName": "%s", "Item": {"p": {"S": "%s"}, "%s": {"S": "v"}}}'):
        resp = raw("PutItem", body % (table_s.encode(), key.encode(), text))
        assert_raw_error(resp, SERIALIZATION)
    assert get_item(dynamodb, table_s, {"p": {"S": key}}) is None


@pytest.mark.parametrize("escape", ["\\ud800", "\\udc00", "\\ud800\\u0041", "\\udbff"])
def test_lone_surrogate_escapes_are_serialization_exception(dynamodb, raw, table_s, escape):
    # \\uD800-\\uDFFF not forming a pair is no Unicode character: refused as JSON.
    key = random_string()
    resp = raw("PutItem", '{"TableName": "%s", "Item": {"p": {"S": "%s"}, "v": {"S": "%s"}}}'
               % (table_s, key, escape))
    assert_raw_error(resp, SERIALIZATION)
    assert get_item(dynamodb, table_s, {"p": {"S": key}}) is None
    # A proper pair is one character.
    resp = raw("PutItem", '{"TableName": "%s", "Item": {"p": {"S": "%s"}, "v": {"S": "\\ud83d\\ude00"}}}'
               % (table_s, key))
    assert resp.status == 200
    assert get_item(dynamodb, table_s, {"p": {"S": key}})["v"] == {"S": "\U0001F600"}


def test_plus_sign_number_string_is_a_number(dynamodb, raw, table_s):
    # "+1" reads as 1 (Java's BigDecimal, which DynamoDB's numbers follow, takes
    # a leading sign of either kind).
    key = random_string()
    resp = raw("PutItem", {"TableName": table_s, "Item": {"p": {"S": key}, "v": {"N": "+1"}}})
    assert resp.status == 200
    assert get_item(dynamodb, table_s, {"p": {"S": key}})["v"] == {"N": "1"}


@pytest.mark.parametrize("limit", ["1e99999", "123456789012345678901234567890"])
def test_integer_members_out_of_json_range_are_serialization_exception(raw, table_s, limit):
    # JSON numbers that are no 32-bit integer where one is expected.
    resp = raw("Scan", '{"TableName": "%s", "Limit": %s}' % (table_s, limit))
    assert_raw_error(resp, SERIALIZATION)
    assert raw("ListTables", {}).status == 200


@pytest.mark.parametrize("units", ["5.1e127", "1e30"])
def test_capacity_past_64_bits_is_out_of_bounds(raw, units):
    # A number a double holds but a 64-bit integer does not is taken as the
    # largest one, so it is out of bounds as 1e18 is (a fuzzer found the
    # conversion undefined). Nothing is created.
    name = "hostile_" + random_string()
    resp = raw("CreateTable", '{"TableName": "%s", "AttributeDefinitions": [{"AttributeName": '
               '"p", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "p", "KeyType": '
               '"HASH"}], "ProvisionedThroughput": {"ReadCapacityUnits": %s, '
               '"WriteCapacityUnits": 5}}' % (name, units))
    assert_raw_error(resp, VALIDATION,
                     "Given value 9223372036854775807 for ReadCapacityUnits is out of bounds")
    assert_raw_error(raw("DescribeTable", {"TableName": name}),
                     "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException")


def test_limit_past_64_bits_bounds_nothing(dynamodb, raw, table_s):
    # Such a Limit leaves the page bounded by its 1 MB only: every item comes back.
    key = random_string()
    assert raw("PutItem", {"TableName": table_s, "Item": {"p": {"S": key}}}).status == 200
    resp = raw("Query", '{"TableName": "%s", "KeyConditionExpression": "p = :k", '
               '"ExpressionAttributeValues": {":k": {"S": "%s"}}, "Limit": 1e30}'
               % (table_s, key))
    assert resp.status == 200
    assert resp.data["Count"] == 1
