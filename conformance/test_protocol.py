# SPDX-License-Identifier: MIT
"""The HTTP level of the DynamoDB JSON protocol: headers, checksums,
keep-alive, malformed bodies, unknown targets, authentication errors, body
size limits and JSON type errors (SerializationException).

Most requests here are built by hand with the ``raw`` fixture, because boto3
validates its input and would never send them.
"""

import http.client
import json
import re
import socket
import urllib.parse
import zlib

import pytest

from util import DDB, SERIALIZATION, VALIDATION, assert_raw_error, random_string

UNKNOWN_OPERATION = "com.amazon.coral.service#UnknownOperationException"
MISSING_TOKEN = "com.amazon.coral.service#MissingAuthenticationTokenException"
INCOMPLETE_SIGNATURE = "com.amazon.coral.service#IncompleteSignatureException"
REQUEST_ID = re.compile(r"[0-9A-Z]{52}")


def check_common_headers(resp, content_type="application/x-amz-json-1.0"):
    status, headers, _ = resp
    assert headers.get("Content-Type") == content_type
    assert REQUEST_ID.fullmatch(headers.get("x-amzn-RequestId") or ""), headers
    assert headers.get("x-amz-crc32") == str(zlib.crc32(resp.body)), (
        headers.get("x-amz-crc32"),
        zlib.crc32(resp.body),
    )
    assert headers.get("Content-Length") == str(len(resp.body))


def test_success_response_carries_crc32_request_id_and_content_type(raw):
    # DynamoDB answers every JSON request with Content-Type echoing the
    # request's (application/x-amz-json-1.0 here), an x-amzn-RequestId of 52
    # characters [0-9A-Z], an x-amz-crc32 header with the CRC32 of the body
    # (the SDKs verify it) and a Content-Length. Source: dynalite
    # test/listTables.js "should return 200 if no params and
    # application/x-amz-json-1.0" (recorded against AWS).
    resp = raw("ListTables", {})
    assert resp.status == 200, resp.data
    assert isinstance(resp.data.get("TableNames"), list)
    check_common_headers(resp)


def test_error_response_carries_correct_crc32(raw):
    # Error responses are checksummed like successes: dynalite
    # test/connection.js pins x-amz-crc32 on every recorded error body.
    resp = raw("DescribeTable", {"TableName": "no_such_table_" + random_string()})
    assert resp.status == 400
    check_common_headers(resp)


def test_application_json_content_type_is_accepted_and_echoed(raw):
    # AWS also accepts Content-Type application/json and answers with the
    # same type. Source: dynalite test/listTables.js "should return 200 if no
    # params and application/json".
    resp = raw("ListTables", {}, content_type="application/json")
    assert resp.status == 200, resp.data
    check_common_headers(resp, content_type="application/json")


def test_keep_alive_serves_two_requests_on_one_connection(raw, raw_url):
    # HTTP/1.1 keep-alive: SDKs pool connections, so DynamoDB keeps the
    # connection open between requests (RFC 9112 persistence; every AWS SDK
    # relies on it). Both requests must be answered on the same socket.
    parsed = urllib.parse.urlsplit(raw_url)
    cls = http.client.HTTPSConnection if parsed.scheme == "https" else http.client.HTTPConnection
    conn = cls(parsed.hostname, parsed.port, timeout=30)
    try:
        first = raw("ListTables", {}, connection=conn)
        assert first.status == 200
        assert (first.headers.get("Connection") or "").lower() != "close"
        sock = conn.sock
        assert sock is not None, "the server closed the connection after one request"
        second = raw("ListTables", {"Limit": 1}, connection=conn)
        assert second.status == 200
        assert conn.sock is sock, "the second request needed a new connection"
    finally:
        conn.close()


def test_health_check_get_answers_200(raw_url):
    # GET / on a DynamoDB endpoint answers 200 with a short health line
    # "healthy: <host> ", the host the client addressed (dynalite
    # test/connection.js "should return 200 if a GET", recorded; the host:
    # test_http_edge.py::test_health_line_names_the_host_it_was_addressed_as).
    parsed = urllib.parse.urlsplit(raw_url)
    cls = http.client.HTTPSConnection if parsed.scheme == "https" else http.client.HTTPConnection
    conn = cls(parsed.hostname, parsed.port, timeout=30)
    try:
        conn.request("GET", "/")
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    assert resp.status == 200
    assert body.startswith(b"healthy: "), body
    assert resp.getheader("x-amz-crc32") == str(zlib.crc32(body))


def test_malformed_json_without_target_is_serialization_exception(raw):
    # A body that is not JSON gives 400 and exactly
    # {"__type": "com.amazon.coral.service#SerializationException"} (no
    # message), before the target or the signature are looked at. Source:
    # dynalite test/connection.js "should return SerializationException if body
    # is application/x-amz-json-1.0 but not JSON" (unsigned, no target).
    resp = raw(None, "hi", sign=False)
    assert resp.status == 400
    assert resp.data == {"__type": SERIALIZATION}
    check_common_headers(resp)


@pytest.mark.parametrize("body", ["hi", "{", '{"TableName": "abc"', "}{", "{,}", "{{}}"])
def test_malformed_json_with_target_is_serialization_exception(raw, body):
    # Scylla test/alternator/test_manual_requests.py test_incorrect_json (run
    # against AWS): signed PutItem requests whose body is not a JSON object
    # are refused with SerializationException.
    resp = raw("PutItem", body)
    assert_raw_error(resp, SERIALIZATION)


def test_empty_body_is_serialization_exception(raw):
    # A signed ListTables with no body at all answers 400
    # {"__type": "...#SerializationException"}. Source: dynalite
    # test/listTables.js "should return 400 if no body" (recorded; that
    # request had no Content-Type).
    resp = raw("ListTables", b"", content_type=None)
    assert resp.status == 400
    assert resp.data == {"__type": SERIALIZATION}


def test_no_target_is_unknown_operation(raw):
    # No X-Amz-Target: 400 and exactly
    # {"__type": "com.amazon.coral.service#UnknownOperationException"}.
    # Source: dynalite test/connection.js "should return
    # UnknownOperationException if body is application/x-amz-json-1.0".
    resp = raw(None, "{}", sign=False)
    assert resp.status == 400
    assert resp.data == {"__type": UNKNOWN_OPERATION}
    check_common_headers(resp)


@pytest.mark.parametrize("target", ["whatever", "DynamoDB_20120810.ListTable",
                                    "DynamoDB_20120810.listTables", "DynamoDB_20111205.ListTables"])
def test_unknown_target_is_unknown_operation(raw, target):
    # An unknown target (or a misspelt operation) is UnknownOperationException
    # with no message, whether or not the request is signed. Source: dynalite
    # test/connection.js "should return UnknownOperationException if incorrect
    # target" / "... incorrect target operation" (recorded).
    for sign in (False, True):
        resp = raw(target, "{}", sign=sign)
        assert resp.status == 400
        assert resp.data == {"__type": UNKNOWN_OPERATION}


def test_missing_authorization_is_missing_authentication_token(raw):
    # A known target without Authorization: MissingAuthenticationToken with
    # the lower-case "message" key. Source: dynalite test/connection.js
    # "should return MissingAuthenticationTokenException if no Authorization
    # header" (recorded).
    resp = raw("ListTables", "{}", sign=False)
    assert resp.status == 400
    assert resp.data == {"__type": MISSING_TOKEN, "message": "Request is missing Authentication Token"}
    check_common_headers(resp)


def test_garbled_authorization_is_missing_authentication_token(raw):
    # Authorization "AWS4" (no algorithm) is treated as missing. Source:
    # dynalite test/connection.js "... if incomplete Authorization header".
    resp = raw("ListTables", "{}", sign=False, headers={"Authorization": "AWS4"})
    assert resp.status == 400
    assert resp.data == {"__type": MISSING_TOKEN, "message": "Request is missing Authentication Token"}


def test_incomplete_signature(raw):
    # Authorization "AWS4-" with nothing else (and no date header) lists every
    # missing part. Source: dynalite test/connection.js "should return
    # IncompleteSignatureException if Authorization header is "AWS4-"".
    resp = raw("ListTables", "{}", sign=False, headers={"Authorization": "AWS4-"})
    assert resp.status == 400
    assert resp.data == {
        "__type": INCOMPLETE_SIGNATURE,
        "message": "Authorization header requires 'Credential' parameter. "
        "Authorization header requires 'Signature' parameter. "
        "Authorization header requires 'SignedHeaders' parameter. "
        "Authorization header requires existence of either a 'X-Amz-Date' or "
        "a 'Date' header. Authorization=AWS4-",
    }


def test_serialization_is_checked_before_target(raw):
    # The body is parsed before the target is looked up: bad JSON with an
    # unknown target is still SerializationException (dynalite
    # test/connection.js: "hi" with no target gives SerializationException,
    # "{}" with no target gives UnknownOperationException).
    resp = raw("NoSuchOperation", "hi", sign=False)
    assert resp.data == {"__type": SERIALIZATION}


def test_request_over_16_mb_is_refused_with_413(raw_url):
    # DynamoDB refuses bodies over 16 MB with HTTP 413 without reading them
    # as JSON. Source: dynalite test/connection.js "should return 413 if
    # request too large" (16 MiB + 1 bytes, recorded against AWS).
    parsed = urllib.parse.urlsplit(raw_url)
    body = b"a" * (16 * 1024 * 1024 + 1)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=120)
    try:
        conn.putrequest("POST", "/")
        conn.putheader("Content-Type", "application/x-amz-json-1.0")
        conn.putheader("X-Amz-Target", "DynamoDB_20120810.ListTables")
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders()
        try:
            view = memoryview(body)
            for offset in range(0, len(body), 1 << 20):
                conn.send(view[offset:offset + (1 << 20)])
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass  # the server may answer and close before reading it all
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 413
    finally:
        conn.close()


# SerializationException for JSON values of the wrong type: the message (with
# a capital-M "Message" key) names the JSON token that could not be converted.
# Source: dynalite test/helpers.js assertType (its newest version, recorded
# against AWS), applied to the fields of each operation.
SERIALIZATION_CASES = [
    ("DescribeTable", {"TableName": True}, "TRUE_VALUE cannot be converted to String"),
    ("DescribeTable", {"TableName": False}, "FALSE_VALUE cannot be converted to String"),
    ("DescribeTable", {"TableName": 23}, "NUMBER_VALUE cannot be converted to String"),
    ("DescribeTable", {"TableName": 34.56}, "DECIMAL_VALUE cannot be converted to String"),
    ("DescribeTable", {"TableName": []}, "Unrecognized collection type class java.lang.String"),
    ("DescribeTable", {"TableName": {}}, "Start of structure or map found where not expected"),
    ("ListTables", {"Limit": "23"}, "STRING_VALUE cannot be converted to Integer"),
    ("ListTables", {"Limit": True}, "TRUE_VALUE cannot be converted to Integer"),
    ("PutItem", {"TableName": "abc", "Item": "23"}, "Unexpected field type"),
    ("PutItem", {"TableName": "abc", "Item": []},
     "Unrecognized collection type java.util.Map<java.lang.String, "
     "com.amazonaws.dynamodb.v20120810.AttributeValue>"),
    ("PutItem", {"TableName": "abc", "Item": {"a": "23"}}, "Unexpected value type in payload"),
    ("PutItem", {"TableName": "abc", "Item": {"a": []}},
     "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue"),
    ("PutItem", {"TableName": "abc", "Item": {"a": {"S": 23}}},
     "NUMBER_VALUE cannot be converted to String"),
    ("PutItem", {"TableName": "abc", "Item": {"a": {"N": True}}},
     "TRUE_VALUE cannot be converted to String"),
    ("PutItem", {"TableName": "abc", "Item": {"a": {"BOOL": 23}}},
     "NUMBER_VALUE cannot be converted to Boolean"),
    ("PutItem", {"TableName": "abc", "Item": {"a": {"BOOL": {}}}},
     "Start of structure or map found where not expected"),
    ("PutItem", {"TableName": "abc", "Item": {"a": {"B": True}}},
     "only base-64-encoded strings are convertible to bytes"),
    ("PutItem", {"TableName": "abc", "Item": {"a": {"B": "23456"}}},
     "Base64 encoded length is expected a multiple of 4 bytes but found: 5"),
    ("PutItem", {"TableName": "abc", "Item": {"a": {"SS": "23"}}}, "Unexpected field type"),
    ("PutItem", {"TableName": "abc", "Item": {"a": {"SS": [23]}}},
     "NUMBER_VALUE cannot be converted to String"),
    ("PutItem", {"TableName": "abc", "Item": {"a": {"M": "23"}}}, "Unexpected field type"),
    ("PutItem", {"TableName": "abc", "Item": {"a": {"L": [True]}}},
     "Unexpected value type in payload"),
    ("PutItem", {"TableName": "abc", "Item": {"a": {"M": {"b": {"BS": [True]}}}}},
     "only base-64-encoded strings are convertible to bytes"),
    ("GetItem", {"TableName": "abc", "Key": {"a": {"S": 1}}},
     "NUMBER_VALUE cannot be converted to String"),
    ("GetItem", {"TableName": "abc", "Key": {}, "ConsistentRead": 23},
     "NUMBER_VALUE cannot be converted to Boolean"),
    ("DeleteItem", {"TableName": "abc", "Key": {}, "ReturnValues": 23},
     "NUMBER_VALUE cannot be converted to String"),
    ("CreateTable", {"TableName": "abc", "KeySchema": "23"}, "Unexpected field type"),
    ("CreateTable", {"TableName": "abc", "ProvisionedThroughput": {"ReadCapacityUnits": "1"}},
     "STRING_VALUE cannot be converted to Long"),
]


@pytest.mark.parametrize("target,body,message", SERIALIZATION_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(SERIALIZATION_CASES)])
def test_wrong_json_type_is_serialization_exception(raw, target, body, message):
    resp = raw(target, body)
    assert resp.status == 400
    assert resp.data == {"__type": SERIALIZATION, "Message": message}


def test_serialization_error_comes_before_validation(raw):
    # Type errors are found while reading the body, before any constraint is
    # checked: TableName "a;" (invalid) with a non-string ReturnValues still
    # gives SerializationException (dynalite validations run only on a body
    # that deserialized; same recorded messages as above).
    resp = raw("DeleteItem", {"TableName": "a;", "Key": {}, "ReturnValues": 23})
    assert resp.data == {"__type": SERIALIZATION,
                         "Message": "NUMBER_VALUE cannot be converted to String"}


def test_null_and_unknown_fields_are_ignored(raw):
    # JSON null is treated as an absent field, and unknown fields are
    # ignored. Source: dynalite test/listTables.js "should return 200 if null
    # attributes are supplied" and "... if random attributes are supplied".
    resp = raw("ListTables", {"ExclusiveStartTableName": None, "Limit": None})
    assert resp.status == 200, resp.data
    resp = raw("ListTables", {"hi": "yo", "stuff": "things"})
    assert resp.status == 200, resp.data


def test_validation_exception_body_shape(raw):
    # ValidationException carries __type com.amazon.coral.validate#... and a
    # lower-case "message" key. Source: dynalite test/helpers.js
    # assertValidation; test/listTables.js "should return ValidationException
    # for high Limit" (recorded).
    resp = raw("ListTables", {"Limit": 101})
    assert resp.status == 400
    assert resp.data == {
        "__type": VALIDATION,
        "message": "1 validation error detected: Value '101' at 'limit' failed to satisfy "
        "constraint: Member must have value less than or equal to 100",
    }
    check_common_headers(resp)


def test_resource_not_found_body_shape(raw):
    # ResourceNotFoundException uses the dynamodb namespace and "message".
    # Source: scylla test_describe_table.py
    # test_describe_table_non_existent_table and dynalite
    # test/describeTable.js (recorded).
    name = "no_such_table_" + random_string()
    resp = raw("DescribeTable", {"TableName": name})
    assert resp.status == 400
    assert resp.data == {
        "__type": DDB + "ResourceNotFoundException",
        "message": f"Requested resource not found: Table: {name} not found",
    }


def test_response_body_is_json_object_on_success(raw, table_s):
    # PutItem without ReturnValues answers the empty JSON object {} (not an
    # empty body): dynalite test/putItem.js "should put basic item" and scylla
    # test_manual_requests.py test_put_item_return_type.
    resp = raw("PutItem", {"TableName": table_s, "Item": {"p": {"S": random_string()}}})
    assert resp.status == 200
    assert resp.data == {}
    assert json.loads(resp.body) == {}
