# SPDX-License-Identifier: MIT
"""The HTTP edge of a DynamoDB endpoint: CORS (preflight and the headers of
every answer), the GET health line and other methods, compressed request
bodies (Content-Encoding: gzip, deflate), compressed answers
(Accept-Encoding) with their x-amz-crc32, and oversized request lines,
headers and bodies.

Requests are built by hand (the ``raw`` fixture and http.client): browsers
and SDK compression features send them, boto3 1.26 does not.
"""

import gzip
import http.client
import json
import urllib.parse
import zlib

import botocore.exceptions
import pytest

from conftest import sign_headers
from util import random_string

CORS_HEADERS = ["Access-Control-Allow-Origin", "Access-Control-Allow-Headers",
                "Access-Control-Allow-Methods", "Access-Control-Max-Age",
                "Access-Control-Expose-Headers"]


def http_request(url, method, path="/", body=None, headers=None):
    """(status, headers, body bytes) of one request on a fresh connection."""
    parsed = urllib.parse.urlsplit(url)
    cls = http.client.HTTPSConnection if parsed.scheme == "https" else http.client.HTTPConnection
    conn = cls(parsed.hostname, parsed.port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.msg, resp.read()
    finally:
        conn.close()


# ---- CORS ----

def test_preflight_echoes_the_requested_method_and_headers(raw_url):
    # A preflight (OPTIONS with Origin) is answered 200 with an empty body;
    # DynamoDB echoes Access-Control-Request-Method/-Headers as
    # Access-Control-Allow-Methods/-Headers, and adds Allow-Origin "*",
    # Expose-Headers and Max-Age 172800. Sources: scylla
    # test/alternator/test_cors.py (run against AWS), dynalite
    # test/connection.js (recorded).
    status, headers, body = http_request(raw_url, "OPTIONS", headers={
        "Origin": "https://app.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-amz-target,authorization,x-amz-date"})
    assert status == 200
    assert body == b""
    assert headers["Access-Control-Allow-Origin"] == "*"
    assert headers["Access-Control-Allow-Methods"] == "POST"
    assert headers["Access-Control-Allow-Headers"] == \
        "content-type,x-amz-target,authorization,x-amz-date"
    assert headers["Access-Control-Max-Age"] == "172800"
    assert "Access-Control-Expose-Headers" in headers


def test_answers_with_origin_expose_the_sdk_headers(raw):
    # A browser page may only read the headers an answer exposes; the SDK
    # for JavaScript reads the request id and the error type. Only the
    # preflight carries Max-Age and the Allow-Methods/-Headers echo
    # (scylla test_cors.py::test_cors_allow_requested, against AWS).
    resp = raw("ListTables", {}, headers={"Origin": "https://app.example",
                                          "Access-Control-Request-Method": "dog"})
    assert resp.status == 200
    assert resp.headers["Access-Control-Allow-Origin"] == "*"
    exposed = [h.strip().lower() for h in resp.headers["Access-Control-Expose-Headers"].split(",")]
    assert "x-amzn-requestid" in exposed and "x-amzn-errortype" in exposed
    for name in ("Access-Control-Max-Age", "Access-Control-Allow-Methods",
                 "Access-Control-Allow-Headers"):
        assert name not in resp.headers
    # Errors too: a browser sees the error type of a failed call.
    resp = raw("DescribeTable", {"TableName": "missing_" + random_string()},
               headers={"Origin": "https://app.example"})
    assert resp.status == 400
    assert resp.headers["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize("method", ["GET", "POST", "OPTIONS"])
def test_no_cors_headers_without_origin(raw_url, method):
    # scylla test_cors.py::test_cors_not_used (against AWS).
    _, headers, _ = http_request(raw_url, method)
    for name in CORS_HEADERS:
        assert name not in headers


# ---- the Server header ----

def test_answers_carry_the_server_header(raw, raw_url, dynamodb):
    # Every DynamoDB answer, success or error, carries "Server: Server":
    # answers captured from AWS show boto3's ResponseMetadata.HTTPHeaders with
    # 'server': 'Server' beside x-amzn-requestid and x-amz-crc32, and scylla
    # test/alternator/test_http_headers.py::test_server_header checks that
    # AWS sends a Server header on a GetItem and on a DescribeTable error.
    resp = raw("ListTables", {"Limit": 1})
    assert resp.status == 200
    assert resp.headers["Server"] == "Server"
    resp = raw("DescribeTable", {"TableName": "missing_" + random_string()})
    assert resp.status == 400
    assert resp.headers["Server"] == "Server"
    assert dynamodb.list_tables(Limit=1)["ResponseMetadata"]["HTTPHeaders"]["server"] == "Server"
    with pytest.raises(botocore.exceptions.ClientError) as failure:
        dynamodb.describe_table(TableName="missing_" + random_string())
    assert failure.value.response["ResponseMetadata"]["HTTPHeaders"]["server"] == "Server"
    status, headers, _ = http_request(raw_url, "GET")
    assert status == 200
    assert headers["Server"] == "Server"


# ---- GET and other methods ----

def test_health_line_names_the_host_it_was_addressed_as(raw_url):
    # GET / answers 200 "healthy: <host>", the host (and port) the client
    # addressed the endpoint by: "healthy: dynamodb.us-east-1.amazonaws.com"
    # on AWS, "healthy: 127.0.0.1:8000" when reached so (scylla
    # test/alternator/test_health.py::test_health_works, against AWS; the line
    # ends in a blank, as dynalite test/connection.js recorded its length).
    netloc = urllib.parse.urlsplit(raw_url).netloc
    status, headers, body = http_request(raw_url, "GET")
    assert status == 200
    assert body.decode().strip() == f"healthy: {netloc}"
    assert headers["x-amz-crc32"] == str(zlib.crc32(body))


@pytest.mark.parametrize("path", ["/abc", "/-", "/index.htm", "/health"])
def test_get_of_another_path_is_refused(raw_url, path):
    # Only GET / is the health check: a GET of any other path is a 4xx
    # (scylla test_health.py::test_health_only_works_for_root_path, against
    # AWS, which allows 400-404).
    status, _, body = http_request(raw_url, "GET", path=path)
    assert 400 <= status <= 404, (status, body)
    assert b"healthy" not in body


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH"])
def test_other_methods_are_unknown_operations(raw_url, method):
    # Anything but GET, OPTIONS and POST is a 404 with the body
    # "<UnknownOperationException/>\n" (dynalite test/connection.js, recorded).
    status, _, body = http_request(raw_url, method, body=b"{}",
                                   headers={"Content-Type": "application/x-amz-json-1.0"})
    assert status == 404
    assert body == b"<UnknownOperationException/>\n"


def test_options_without_origin_is_an_unknown_operation(raw_url):
    status, _, body = http_request(raw_url, "OPTIONS")
    assert status == 404
    assert body == b"<UnknownOperationException/>\n"


# ---- compressed requests ----

def signed_gzip_request(raw_url, target, payload, encoding="gzip"):
    headers = {"Content-Type": "application/x-amz-json-1.0",
               "X-Amz-Target": f"DynamoDB_20120810.{target}"}
    headers = sign_headers(raw_url, payload, headers)
    headers["Content-Encoding"] = encoding
    return http_request(raw_url, "POST", body=payload, headers=headers)


def put_payload(table, p, v="x"):
    return json.dumps({"TableName": table, "Item": {"p": {"S": p}, "v": {"S": v}}}).encode()


def test_gzip_request_is_decoded(raw_url, dynamodb, table_s):
    # DynamoDB decodes a body sent with Content-Encoding: gzip, and also a
    # body of several concatenated gzip members (scylla
    # test_compressed_request.py::test_gzip_request_valid, ::two_gzips, AWS).
    p = random_string()
    status, _, body = signed_gzip_request(raw_url, "PutItem",
                                          gzip.compress(put_payload(table_s, p, "one")))
    assert status == 200, body
    item = dynamodb.get_item(TableName=table_s, Key={"p": {"S": p}}, ConsistentRead=True)["Item"]
    assert item == {"p": {"S": p}, "v": {"S": "one"}}
    raw_body = put_payload(table_s, p, "two")
    status, _, body = signed_gzip_request(
        raw_url, "PutItem", gzip.compress(raw_body[:10]) + gzip.compress(raw_body[10:]))
    assert status == 200, body
    item = dynamodb.get_item(TableName=table_s, Key={"p": {"S": p}}, ConsistentRead=True)["Item"]
    assert item["v"] == {"S": "two"}


def test_deflate_request_is_decoded(raw_url, dynamodb, table_s):
    # DynamoDB decodes a body sent with Content-Encoding: deflate in the
    # zlib format of RFC 9110 8.4.1.2, as Python's zlib.compress makes it
    # (scylla test_compressed_request.py::test_deflate_request_valid, which
    # passes against AWS: scylladb/scylladb#27917).
    p = random_string()
    status, _, body = signed_gzip_request(raw_url, "PutItem",
                                          zlib.compress(put_payload(table_s, p, "deflated")),
                                          "deflate")
    assert status == 200, body
    assert json.loads(body) == {}
    item = dynamodb.get_item(TableName=table_s, Key={"p": {"S": p}}, ConsistentRead=True)["Item"]
    assert item == {"p": {"S": p}, "v": {"S": "deflated"}}


@pytest.mark.parametrize("case", ["not_gzip", "truncated", "trailing_junk_member", "empty",
                                  "unknown_encoding", "not_deflated", "deflate_truncated",
                                  "deflate_empty", "two_deflates"])
def test_undecodable_request_body_is_a_500_and_changes_nothing(raw_url, dynamodb, table_s, case):
    # A body that is not a whole gzip stream, an empty one, or an encoding
    # other than gzip and deflate: DynamoDB answers 500 and runs nothing
    # (scylla test_compressed_request.py::test_broken_gzip_content,
    # ::test_gzip_request_with_missing_character, ::test_gzip_request_empty,
    # ::test_garbage_content_encoding, against AWS). The same for deflate:
    # ::test_deflate_request_not_deflated and ::test_deflate_request_empty
    # (500 on AWS), and two zlib streams one after the other, which AWS
    # refuses where it accepts two gzip members
    # (::test_deflate_request_two_deflates is scylla_only because "DynamoDB
    # doesn't" accept it).
    p = random_string()
    plain = put_payload(table_s, p)
    payload, encoding = {
        "not_gzip": (plain, "gzip"),
        "truncated": (gzip.compress(plain)[:-1], "gzip"),
        "trailing_junk_member": (gzip.compress(plain) + b"\x1f\x8bjunk", "gzip"),
        "empty": (b"", "gzip"),
        "unknown_encoding": (plain, "garbage"),
        "not_deflated": (plain, "deflate"),
        "deflate_truncated": (zlib.compress(plain)[:-1], "deflate"),
        "deflate_empty": (b"", "deflate"),
        "two_deflates": (zlib.compress(plain[:10]) + zlib.compress(plain[10:]), "deflate"),
    }[case]
    status, headers, body = signed_gzip_request(raw_url, "PutItem", payload, encoding)
    assert status == 500, body
    assert "Item" not in dynamodb.get_item(TableName=table_s, Key={"p": {"S": p}},
                                           ConsistentRead=True)


def test_gzip_bomb_is_refused_with_413(raw_url, dynamodb, table_s):
    # A small body that inflates past the 16 MB request limit is refused
    # like a plain oversized body (scylla
    # test_compressed_request.py::test_gzip_request_oversized, which passes on
    # AWS since DynamoDB fixed its decompression bomb).
    p = random_string()
    plain = put_payload(table_s, p)
    padded = plain[:-1] + b" " * (17 * 1024 * 1024) + plain[-1:]
    payload = gzip.compress(padded)
    assert len(payload) < 1024 * 1024
    status, _, _ = signed_gzip_request(raw_url, "PutItem", payload)
    assert status == 413
    assert "Item" not in dynamodb.get_item(TableName=table_s, Key={"p": {"S": p}},
                                           ConsistentRead=True)


# ---- compressed answers ----

def big_item_table(dynamodb, table_s):
    p = random_string()
    dynamodb.put_item(TableName=table_s, Item={"p": {"S": p}, "blob": {"S": "y" * 20000}})
    return p


@pytest.mark.parametrize("accept, encoding, decompress", [
    ("gzip", "gzip", gzip.decompress),
    ("deflate", "deflate", zlib.decompress),
    ("gzip, deflate, br", "gzip", gzip.decompress),
    ("deflate, gzip;q=0", "deflate", zlib.decompress),
])
def test_large_answer_is_compressed_and_crc32_covers_the_wire_bytes(raw, dynamodb, table_s,
                                                                     accept, encoding, decompress):
    # With Accept-Encoding, DynamoDB compresses large answers, and
    # x-amz-crc32 is the CRC32 of the compressed bytes as sent (aws-sdk-go-v2
    # service/dynamodb/internal/customizations: "If the response body is
    # content-encoding: gzip, the checksum is of the gzipped response").
    p = big_item_table(dynamodb, table_s)
    resp = raw("GetItem", {"TableName": table_s, "Key": {"p": {"S": p}}},
               headers={"Accept-Encoding": accept})
    assert resp.status == 200
    assert resp.headers["Content-Encoding"] == encoding
    assert resp.headers["x-amz-crc32"] == str(zlib.crc32(resp.body))
    assert resp.headers["Content-Length"] == str(len(resp.body))
    data = json.loads(decompress(resp.body))
    assert data["Item"]["blob"]["S"] == "y" * 20000


def test_answers_stay_plain_without_accept_encoding_or_when_small(raw, dynamodb, table_s):
    p = big_item_table(dynamodb, table_s)
    resp = raw("GetItem", {"TableName": table_s, "Key": {"p": {"S": p}}})
    assert "Content-Encoding" not in resp.headers
    assert resp.data["Item"]["blob"]["S"] == "y" * 20000
    resp = raw("GetItem", {"TableName": table_s, "Key": {"p": {"S": p}}},
               headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in resp.headers
    # A small answer is sent as it is even when compression is allowed.
    resp = raw("ListTables", {"Limit": 1}, headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in resp.headers
    assert resp.headers["x-amz-crc32"] == str(zlib.crc32(resp.body))



def test_answers_are_compressed_only_from_4_kb(raw, dynamodb, table_s):
    # DynamoDB compresses an answer only from 4 KB up, even when the request
    # accepts gzip: scylla test/alternator/test_compressed_response.py
    # ::test_compressed_response (run against AWS, "The threshold for response
    # compression in DynamoDB is 4KB", DDB_RESPONSE_COMPRESSION_THRESHOLD =
    # 4096) stores an attribute of 4096 - 25 characters: GetItem of it alone
    # (an answer just under 4 KB) comes back plain, of it and the key (just
    # over) compressed.
    p = random_string()
    dynamodb.put_item(TableName=table_s, Item={"p": {"S": p}, "small": {"S": "s" * 2000},
                                               "x": {"S": "x" * (4096 - 25)}})

    def get(projection):
        return raw("GetItem", {"TableName": table_s, "Key": {"p": {"S": p}},
                               "ProjectionExpression": projection},
                   headers={"Accept-Encoding": "gzip"})

    resp = get("small")  # about 2 KB
    assert resp.status == 200
    assert 2000 < len(resp.body) < 4096
    assert "Content-Encoding" not in resp.headers
    assert resp.data["Item"]["small"]["S"] == "s" * 2000
    resp = get("x")  # just under 4 KB
    assert 4000 < len(resp.body) < 4096
    assert "Content-Encoding" not in resp.headers
    resp = get("p, x")  # just over 4 KB
    assert resp.headers["Content-Encoding"] == "gzip"
    assert resp.headers["x-amz-crc32"] == str(zlib.crc32(resp.body))
    plain = gzip.decompress(resp.body)
    assert len(plain) > 4096
    assert json.loads(plain)["Item"] == {"p": {"S": p}, "x": {"S": "x" * (4096 - 25)}}

# ---- oversized request lines and headers, other paths ----

def signed_put(raw_url, table, p):
    """(payload, headers) of a PutItem of p signed for the path /."""
    payload = put_payload(table, p)
    headers = sign_headers(raw_url, payload, {"Content-Type": "application/x-amz-json-1.0",
                                              "X-Amz-Target": "DynamoDB_20120810.PutItem"})
    return payload, headers


def stored(dynamodb, table, p):
    return "Item" in dynamodb.get_item(TableName=table, Key={"p": {"S": p}}, ConsistentRead=True)


def test_headers_over_16_kb_are_refused_with_400(raw_url, dynamodb, table_s):
    # DynamoDB limits a request's headers to 16 KB all together: a valid
    # signed PutItem works with two short extra headers and is refused with a
    # 400 when the two are 8 KB each (scylla test_manual_requests.py
    # ::test_too_large_request_headers, against AWS). Nothing is written.
    p = random_string()
    payload, headers = signed_put(raw_url, table_s, p)
    status, _, body = http_request(raw_url, "POST", body=payload,
                                   headers=dict(headers, header1="dog", header2="cat"))
    assert status == 200, body
    assert stored(dynamodb, table_s, p)
    q = random_string()
    payload, headers = signed_put(raw_url, table_s, q)
    status, _, body = http_request(raw_url, "POST", body=payload,
                                   headers=dict(headers, header1="x" * 8192, header2="y" * 8192))
    assert status == 400, body
    assert not stored(dynamodb, table_s, q)


def test_request_line_over_16_kb_is_refused_with_400(raw_url, dynamodb, table_s):
    # A 17,000-character path makes the request line longer than DynamoDB's
    # 16 KB: a 400 that is not an InvalidSignatureException, the answer a
    # short wrong path gets (scylla test_manual_requests.py
    # ::test_too_large_request_line, against AWS). Nothing is written.
    p = random_string()
    payload, headers = signed_put(raw_url, table_s, p)
    status, _, body = http_request(raw_url, "POST", path="/" + "x" * 17000, body=payload,
                                   headers=headers)
    assert status == 400, body
    assert b"InvalidSignatureException" not in body
    assert not stored(dynamodb, table_s, p)


@pytest.mark.parametrize("path", ["/garbage", "/index.html"])
def test_post_to_another_path_is_not_served(raw_url, dynamodb, table_s, path):
    # DynamoDB's API is at /: a valid PutItem signed for / and sent to
    # <endpoint>/garbage is refused with InvalidSignatureException, because
    # the path is part of what is signed (scylla test_manual_requests.py
    # ::test_too_large_request_line: "this is what happens on AWS"), and
    # nothing is written.
    p = random_string()
    payload, headers = signed_put(raw_url, table_s, p)
    status, _, body = http_request(raw_url, "POST", path=path, body=payload, headers=headers)
    assert status == 400, body
    error = json.loads(body)
    assert error["__type"] == "com.amazon.coral.service#InvalidSignatureException"
    assert error["message"].startswith(
        "The request signature we calculated does not match the signature you provided.")
    assert not stored(dynamodb, table_s, p)
