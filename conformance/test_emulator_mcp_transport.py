"""The MCP endpoint's Streamable HTTP transport over raw HTTP (docs/mcp.md).

One test per rule of the transport (MCP specification revision 2025-11-25,
basic/transports): the session id issued at initialize and required after
it (400 without, 404 unknown or ended, so the client re-initializes), DELETE,
MCP-Protocol-Version, Accept negotiation (JSON or a one-event SSE stream),
202 for notifications and responses, GET 405, Content-Type, Origin, and
the bound on open sessions. The official SDK client's view is in
conformance/js/mcp.test.mjs.
"""

import http.client
import json
import urllib.parse

import pytest

PATH = "/ddbemu/mcp"
ACCEPT_BOTH = "application/json, text/event-stream"
SESSIONS_MAX = 256  # MCP_SESSIONS_MAX, docs/mcp.md


def request(endpoint, method, body=None, headers=None):
    """(status, headers as a lower-cased dict, body text)."""
    url = urllib.parse.urlsplit(endpoint)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    all_headers = {"Content-Type": "application/json", "Accept": ACCEPT_BOTH}
    all_headers.update(headers or {})
    all_headers = {k: v for k, v in all_headers.items() if v is not None}
    data = json.dumps(body) if isinstance(body, (dict, list)) else body
    conn.request(method, PATH, body=data, headers=all_headers)
    resp = conn.getresponse()
    text = resp.read().decode()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, text


def initialize(endpoint, version="2025-11-25", headers=None):
    status, hdrs, text = request(
        endpoint,
        "POST",
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "pytest", "version": "1"},
            },
        },
        headers,
    )
    assert status == 200, text
    return hdrs["mcp-session-id"], json.loads(text)


def ping(endpoint, session, rid=1, **headers):
    h = {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    h.update(headers)
    return request(endpoint, "POST", {"jsonrpc": "2.0", "id": rid, "method": "ping"}, h)


def error_of(text):
    """The JSON-RPC error object of a refusal, which carries a null id."""
    body = json.loads(text)
    assert body["jsonrpc"] == "2.0" and body["id"] is None
    return body["error"]


@pytest.fixture
def endpoint(emulator):
    return emulator.endpoint_url


def test_initialize_issues_a_session_id_of_visible_ascii(endpoint):
    session, answer = initialize(endpoint)
    assert answer["result"]["protocolVersion"] == "2025-11-25"
    assert len(session) == 32 and all(0x21 <= ord(c) <= 0x7E for c in session)
    other, _ = initialize(endpoint)
    assert other != session
    status, hdrs, text = ping(endpoint, session)
    assert status == 200 and json.loads(text) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert hdrs["mcp-session-id"] == session


def test_older_revisions_are_negotiated_and_unknown_ones_get_the_newest(endpoint):
    for version in ("2025-06-18", "2025-03-26", "2024-11-05"):
        assert initialize(endpoint, version)[1]["result"]["protocolVersion"] == version
    assert initialize(endpoint, "2099-01-01")[1]["result"]["protocolVersion"] == "2025-11-25"


def test_a_request_without_the_session_id_is_400(endpoint):
    initialize(endpoint)
    status, hdrs, text = ping(endpoint, None)
    assert status == 400
    assert error_of(text)["code"] == -32000 and "Mcp-Session-Id" in error_of(text)["message"]
    # Notifications need the session too.
    status, _, _ = request(endpoint, "POST", {"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert status == 400


def test_an_unknown_session_is_404(endpoint):
    status, hdrs, text = ping(endpoint, "0" * 32)
    assert status == 404
    assert error_of(text) == {"code": -32001, "message": "Session not found"}
    assert "mcp-session-id" not in hdrs


def test_initialize_with_a_session_id_is_400(endpoint):
    session, _ = initialize(endpoint)
    status, _, text = request(
        endpoint,
        "POST",
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
        {"Mcp-Session-Id": session},
    )
    assert status == 400 and error_of(text)["code"] == -32600
    assert ping(endpoint, session)[0] == 200  # the session is untouched


def test_delete_ends_the_session(endpoint):
    session, _ = initialize(endpoint)
    other, _ = initialize(endpoint)
    status, _, text = request(endpoint, "DELETE", None, {"Mcp-Session-Id": session})
    assert status == 200 and text == ""
    assert ping(endpoint, session)[0] == 404
    assert request(endpoint, "DELETE", None, {"Mcp-Session-Id": session})[0] == 404
    assert request(endpoint, "DELETE", None, {})[0] == 400
    assert ping(endpoint, other)[0] == 200
    # A new initialize starts over.
    fresh, _ = initialize(endpoint)
    assert ping(endpoint, fresh)[0] == 200


def test_protocol_version_header_must_be_a_supported_revision(endpoint):
    session, _ = initialize(endpoint)
    for version in ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"):
        assert ping(endpoint, session, **{"MCP-Protocol-Version": version})[0] == 200
    status, _, text = ping(endpoint, session, **{"MCP-Protocol-Version": "2024-10-07"})
    assert status == 400 and "Unsupported protocol version" in error_of(text)["message"]
    status, _, _ = ping(endpoint, session, **{"MCP-Protocol-Version": "banana"})
    assert status == 400
    # Absent, the server assumes a revision it speaks (the spec's 2025-03-26 fallback).
    assert ping(endpoint, session, **{"MCP-Protocol-Version": None})[0] == 200
    status, _, _ = request(
        endpoint, "DELETE", None, {"Mcp-Session-Id": session, "MCP-Protocol-Version": "1.0"}
    )
    assert status == 400
    assert ping(endpoint, session)[0] == 200  # a refused DELETE ends nothing


@pytest.mark.parametrize(
    "accept, media_type",
    [
        (ACCEPT_BOTH, "application/json"),
        ("application/json", "application/json"),
        (None, "application/json"),  # no Accept header accepts everything
        ("*/*", "application/json"),
        ("text/event-stream", "text/event-stream"),
        ("application/json;q=0.5, text/event-stream", "text/event-stream"),
        ("text/*, application/json;q=0.9", "text/event-stream"),
        ("application/json, text/event-stream;q=0.2", "application/json"),
    ],
)
def test_accept_chooses_json_or_an_event_stream(endpoint, accept, media_type):
    session, _ = initialize(endpoint)
    status, hdrs, text = ping(endpoint, session, 5, Accept=accept)
    assert status == 200
    assert hdrs["content-type"].split(";")[0] == media_type
    if media_type == "application/json":
        message = json.loads(text)
    else:
        # One "message" event holding the response, then the stream ends.
        assert text.endswith("\n\n") and text.count("\n\n") == 1
        fields = dict(line.split(": ", 1) for line in text.strip().split("\n"))
        assert fields["event"] == "message"
        assert "id" not in fields  # no event ids: nothing is resumable
        message = json.loads(fields["data"])
    assert message == {"jsonrpc": "2.0", "id": 5, "result": {}}


@pytest.mark.parametrize("accept", ["text/html", "application/xml, text/plain", "application/json;q=0"])
def test_an_accept_without_json_or_event_stream_is_406(endpoint, accept):
    session, _ = initialize(endpoint)
    status, _, text = ping(endpoint, session, Accept=accept)
    assert status == 406 and error_of(text)["code"] == -32000


def test_the_initialize_answer_may_be_an_event_stream(endpoint):
    status, hdrs, text = request(
        endpoint,
        "POST",
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
        {"Accept": "text/event-stream"},
    )
    assert status == 200 and hdrs["content-type"] == "text/event-stream"
    data = [line for line in text.split("\n") if line.startswith("data: ")]
    assert json.loads(data[0][6:])["result"]["protocolVersion"] == "2025-11-25"
    assert ping(endpoint, hdrs["mcp-session-id"])[0] == 200


def test_notifications_and_responses_get_202_without_a_body(endpoint):
    session, _ = initialize(endpoint)
    h = {"Mcp-Session-Id": session}
    for message in (
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}},
        {"jsonrpc": "2.0", "id": 9, "result": {}},
        {"jsonrpc": "2.0", "id": 9, "error": {"code": -1, "message": "no"}},
    ):
        status, _, text = request(endpoint, "POST", message, h)
        assert (status, text) == (202, ""), message


@pytest.mark.parametrize(
    "body, code",
    [
        ("{not json", -32700),
        ([{"jsonrpc": "2.0", "id": 1, "method": "ping"}], -32600),  # batches ended in 2025-06-18
        ({"jsonrpc": "1.0", "id": 1, "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "id": 1}, -32600),
        ({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {}}, -32600),
        ({"jsonrpc": "2.0", "method": 7}, -32600),
    ],
)
def test_what_is_not_one_json_rpc_message_is_400(endpoint, body, code):
    session, _ = initialize(endpoint)
    status, _, text = request(endpoint, "POST", body, {"Mcp-Session-Id": session})
    assert status == 400 and error_of(text)["code"] == code


def test_an_unknown_method_is_a_json_rpc_error_in_a_200(endpoint):
    session, _ = initialize(endpoint)
    status, _, text = request(
        endpoint, "POST", {"jsonrpc": "2.0", "id": "r", "method": "resources/list"}, {"Mcp-Session-Id": session}
    )
    assert status == 200 and json.loads(text)["error"]["code"] == -32601


def test_get_is_405_the_server_opens_no_stream(endpoint):
    session, _ = initialize(endpoint)
    for headers in ({"Accept": "text/event-stream"}, {"Accept": "text/event-stream", "Mcp-Session-Id": session},
                    {"Accept": "text/event-stream", "Mcp-Session-Id": session, "Last-Event-ID": "1"}):
        status, hdrs, _ = request(endpoint, "GET", None, headers)
        assert status == 405 and hdrs["allow"] == "POST, DELETE"
    assert request(endpoint, "PUT", "{}", {"Mcp-Session-Id": session})[0] == 405


def test_content_type_must_be_json(endpoint):
    session, _ = initialize(endpoint)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    for ctype in ("text/plain", "application/x-www-form-urlencoded", None):
        status, _, text = request(endpoint, "POST", body, {"Mcp-Session-Id": session, "Content-Type": ctype})
        assert status == 415, ctype
    status, _, _ = request(
        endpoint, "POST", body, {"Mcp-Session-Id": session, "Content-Type": "application/json; charset=utf-8"}
    )
    assert status == 200


@pytest.mark.parametrize(
    "origin, allowed",
    [
        ("http://localhost:3000", True),
        ("http://127.0.0.1", True),
        ("http://[::1]:8080", True),
        ("https://LOCALHOST", True),
        ("http://evil.example", False),
        ("http://localhost.evil.example", False),
        ("http://127.0.0.1.evil.example", False),
        ("null", False),
    ],
)
def test_origin_must_be_loopback(endpoint, origin, allowed):
    status, _, text = request(
        endpoint,
        "POST",
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
        {"Origin": origin},
    )
    assert status == (200 if allowed else 403), origin
    if not allowed:
        assert error_of(text)["code"] == -32000


def test_origins_listed_in_cors_are_allowed(start_server):
    srv = start_server("--cors", "https://app.example, https://other.example")
    for origin, expected in (("https://app.example", 200), ("https://other.example", 200), ("https://else.example", 403)):
        status, _, _ = request(
            srv.endpoint_url,
            "POST",
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
            {"Origin": origin},
        )
        assert status == expected, origin


def test_sessions_are_bounded_the_least_recently_used_is_ended(start_server):
    srv = start_server()
    first, _ = initialize(srv.endpoint_url)
    second, _ = initialize(srv.endpoint_url)
    for _ in range(SESSIONS_MAX - 2):
        initialize(srv.endpoint_url)
    assert ping(srv.endpoint_url, first)[0] == 200  # used last: second is now the oldest
    newest, _ = initialize(srv.endpoint_url)
    assert ping(srv.endpoint_url, second)[0] == 404
    assert ping(srv.endpoint_url, first)[0] == 200
    assert ping(srv.endpoint_url, newest)[0] == 200
