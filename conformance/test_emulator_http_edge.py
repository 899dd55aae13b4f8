# SPDX-License-Identifier: MIT
"""ddbemu's own answers at the HTTP edge, where AWS's are not recorded and
docs/differences.md ("HTTP edge") says what ddbemu chose: raw deflate request
bodies, the health line of a request without a Host header, and request lines
and headers too large for libmicrohttpd's per-connection memory.

test_http_edge.py holds what DynamoDB itself is recorded to answer.
"""

import json
import socket
import threading
import urllib.parse
import zlib

from conftest import sign_headers
from test_http_edge import http_request, put_payload, signed_gzip_request
from util import random_string


def raw_exchange(raw_url, data):
    """Sends bytes, returns all the server answers until it closes."""
    parsed = urllib.parse.urlsplit(raw_url)
    with socket.create_connection((parsed.hostname, parsed.port), timeout=30) as s:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        chunks = []
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def raw_deflate(data):
    z = zlib.compressobj(wbits=-15)
    return z.compress(data) + z.flush()


def test_raw_deflate_request_is_decoded(emulator, raw_url, dynamodb, table_s):
    # RFC 9110's "deflate" is the zlib format, which DynamoDB decodes; some
    # clients send raw deflate under that name (RFC 9110 8.4.1.2, Note), and
    # ddbemu decodes that too. A raw stream cut short is still a 500.
    p = random_string()
    status, _, body = signed_gzip_request(raw_url, "PutItem",
                                          raw_deflate(put_payload(table_s, p, "raw")), "deflate")
    assert status == 200, body
    item = dynamodb.get_item(TableName=table_s, Key={"p": {"S": p}}, ConsistentRead=True)["Item"]
    assert item == {"p": {"S": p}, "v": {"S": "raw"}}

    q = random_string()
    status, _, body = signed_gzip_request(raw_url, "PutItem",
                                          raw_deflate(put_payload(table_s, q))[:-1], "deflate")
    assert status == 500, body
    assert json.loads(body)["__type"] == "com.amazonaws.dynamodb.v20120810#InternalServerError"
    assert "Item" not in dynamodb.get_item(TableName=table_s, Key={"p": {"S": q}},
                                           ConsistentRead=True)


def test_health_line_echoes_any_host_and_names_aws_without_one(emulator, raw_url):
    # The Host header decides, not the address the connection went to
    # (DynamoDB's recorded line names the host the client used); a request
    # without one (HTTP/1.0) gets the name of DynamoDB's endpoint.
    answer = raw_exchange(raw_url, b"GET / HTTP/1.1\r\nHost: dynamodb.us-east-1.amazonaws.com\r\n"
                                   b"Connection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:80]
    assert answer.endswith(b"\r\n\r\nhealthy: dynamodb.us-east-1.amazonaws.com "), answer
    answer = raw_exchange(raw_url, b"GET / HTTP/1.0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 200 ") or answer.startswith(b"HTTP/1.1 200 "), answer[:80]
    assert answer.endswith(b"\r\n\r\nhealthy: dynamodb.us-east-1.amazonaws.com "), answer


def test_every_answer_carries_the_server_header(emulator, raw_url):
    # DynamoDB's own answers carry "Server: Server" (test_http_edge.py); ddbemu
    # adds it to every answer, also to the ones that are not an operation's:
    # the 404 page, the 500 of a broken body, the 413 of an oversized one.
    for method, body, extra in [
        ("DELETE", b"{}", {}),
        ("POST", b"not gzip", {"Content-Encoding": "gzip"}),
    ]:
        headers = {"Content-Type": "application/x-amz-json-1.0",
                   "X-Amz-Target": "DynamoDB_20120810.ListTables"}
        headers = sign_headers(raw_url, body, headers)
        headers.update(extra)
        status, got, _ = http_request(raw_url, method, body=body, headers=headers)
        assert status in (404, 500), (method, status)
        assert got["Server"] == "Server", (method, status)
    # Refused by its Content-Length, before a byte of the body is read.
    answer = raw_exchange(raw_url, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 17000000\r\n"
                                   b"Content-Type: application/x-amz-json-1.0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:80]
    assert b"\r\nServer: Server\r\n" in answer.split(b"\r\n\r\n")[0] + b"\r\n", answer


def test_head_too_large_for_the_connection_memory_is_refused_and_closed(emulator, raw_url):
    # Past 16 KB ddbemu answers DynamoDB's 400 (test_http_edge.py); past the
    # 32 KiB each connection has for its request line and headers,
    # libmicrohttpd answers first - 414 for the line, 431 for the headers -
    # without buffering them, and closes the connection.
    answer = raw_exchange(raw_url, b"POST / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200000 +
                          b"\r\nContent-Length: 2\r\n\r\n{}")
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:80]
    answer = raw_exchange(raw_url, b"GET /" + b"a" * 200000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 414 "), answer[:80]
    # Between the two, ddbemu's own 400, also with the query string counted.
    answer = raw_exchange(raw_url, b"GET /?q=" + b"a" * 20000 + b" HTTP/1.1\r\nHost: x\r\n"
                          b"Connection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:80]
    answer = raw_exchange(raw_url, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 17000 +
                          b"\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:80]
    # One 8 KB header is fine.
    answer = raw_exchange(raw_url, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 8192 +
                          b"\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:80]


def test_heads_up_to_30_kb_still_get_dynamodbs_400(emulator, raw_url):
    # The connection memory (32 KiB) holds a request line or headers nearly
    # twice DynamoDB's 16 KB bound, so that the heads just past the bound, the
    # ones a client is likely to send, get DynamoDB's 400 and not
    # libmicrohttpd's 414/431.
    for size in (16500, 24000, 30000):
        answer = raw_exchange(raw_url, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * size +
                              b"\r\nConnection: close\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 400 "), (size, answer[:80])
        answer = raw_exchange(raw_url, b"GET /?q=" + b"a" * size + b" HTTP/1.1\r\nHost: x\r\n"
                              b"Connection: close\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 400 "), (size, answer[:80])


def read_answers(sock, count):
    """Reads count HTTP/1.1 answers with Content-Length from sock: [(status, body)]."""
    buf = b""
    answers = []
    while len(answers) < count:
        while b"\r\n\r\n" not in buf:
            chunk = sock.recv(65536)
            assert chunk, f"closed after {len(answers)} answers"
            buf += chunk
        head, buf = buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        fields = {k.strip().lower(): v.strip() for k, v in
                  (line.split(":", 1) for line in lines[1:])}
        length = int(fields["content-length"])
        while len(buf) < length:
            chunk = sock.recv(65536)
            assert chunk, f"closed in answer {len(answers) + 1}"
            buf += chunk
        answers.append((int(lines[0].split()[1]), buf[:length]))
        buf = buf[length:]
    return answers


def test_pipelined_requests_of_every_size_on_one_connection(emulator, raw_url, dynamodb,
                                                            table_s):
    # One connection, every request written before any answer is read: small
    # bodies, a 350 KB item (far larger than the connection's memory), a
    # BatchWriteItem of about 9 MB, and small ones again. Each is answered, in
    # order, and the small requests after the large ones still work (the
    # server keeps a request's state and small body buffer for the next one).
    parsed = urllib.parse.urlsplit(raw_url)
    big = "b" * 350000
    small_p, big_p = random_string(), random_string()
    batch_ps = [random_string() for _ in range(25)]

    def request(target, payload):
        headers = sign_headers(raw_url, payload, {
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": f"DynamoDB_20120810.{target}"})
        head = "POST / HTTP/1.1\r\nHost: %s\r\n" % parsed.netloc
        head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()
                        if k.lower() not in ("host", "content-length"))
        head += f"Content-Length: {len(payload)}\r\n\r\n"
        return head.encode() + payload

    def get(p):
        return request("GetItem", json.dumps({"TableName": table_s, "Key": {"p": {"S": p}},
                                              "ConsistentRead": True}).encode())

    batch = json.dumps({"RequestItems": {table_s: [
        {"PutRequest": {"Item": {"p": {"S": p}, "v": {"S": big}}}} for p in batch_ps]}}).encode()
    stream = [request("PutItem", put_payload(table_s, small_p, "small")),
              request("PutItem", put_payload(table_s, big_p, big)), get(big_p),
              request("BatchWriteItem", batch), get(small_p), get(batch_ps[-1]), get(small_p)]
    data = b"".join(stream)
    assert len(batch) > 8_000_000

    with socket.create_connection((parsed.hostname, parsed.port), timeout=60) as s:
        sender = threading.Thread(target=s.sendall, args=(data,))
        sender.start()
        answers = read_answers(s, len(stream))
        sender.join()
    assert [status for status, _ in answers] == [200] * len(stream), answers[:1]
    assert json.loads(answers[2][1])["Item"] == {"p": {"S": big_p}, "v": {"S": big}}
    assert json.loads(answers[3][1]) == {"UnprocessedItems": {}}
    assert json.loads(answers[4][1])["Item"] == {"p": {"S": small_p}, "v": {"S": "small"}}
    assert json.loads(answers[5][1])["Item"]["v"] == {"S": big}
    assert answers[6] == answers[4]
    item = dynamodb.get_item(TableName=table_s, Key={"p": {"S": batch_ps[0]}},
                             ConsistentRead=True)["Item"]
    assert item["v"] == {"S": big}


def test_server_still_answers_after_oversized_requests(emulator, raw):
    resp = raw("ListTables", {})
    assert resp.status == 200
