# SPDX-License-Identifier: MIT
"""Helpers shared by the conformance tests: assertions, request members
(attribute values, keys, key schemas, indexes), table life cycle, raw signed
requests and the emulator's control interface.

AWS errors are compared exactly: the short __type (boto3's Error.Code) and the
message text. Where AWS itself lists several violations in an order that is not
stable, assert_validation_errors compares them as a set, as dynalite's
helpers.js does with its recorded AWS answers.
"""

import http.client
import json
import os
import time
import urllib.parse
import urllib.request
import uuid

import botocore.auth
import botocore.awsrequest

import pytest
from botocore.exceptions import ClientError



def random_string(length=10):
    return uuid.uuid4().hex[:length]


# ---- request members ----

def S(v):
    return {"S": v}


def N(v):
    """A Number: v is a number or its text (sent as given)."""
    return {"N": str(v)}


def B(v):
    return {"B": v}


def L(*v):
    return {"L": list(v)}


def M(**v):
    return {"M": v}


def random_key():
    """{"p": a random String}: a fresh key of a table keyed on p (S)."""
    return {"p": S(random_string())}


def attr_defs(**types):
    """AttributeDefinitions from name=type pairs: attr_defs(p="S", n="N")."""
    return [{"AttributeName": n, "AttributeType": t} for n, t in types.items()]


def key_schema(hash_key, range_key=None):
    ks = [{"AttributeName": hash_key, "KeyType": "HASH"}]
    if range_key:
        ks.append({"AttributeName": range_key, "KeyType": "RANGE"})
    return ks


def index(name, hash_key, range_key=None, projection="ALL", non_key=None):
    """A GlobalSecondaryIndexes or LocalSecondaryIndexes member."""
    proj = {"ProjectionType": projection}
    if non_key:
        proj["NonKeyAttributes"] = non_key
    return {"IndexName": name, "KeySchema": key_schema(hash_key, range_key), "Projection": proj}


def client_error(callable_, *args, **kwargs):
    """Calls and returns the botocore ClientError it must raise."""
    with pytest.raises(ClientError) as info:
        callable_(*args, **kwargs)
    return info.value


def assert_error(err, code, message):
    """err is a ClientError; checks __type (short name) and the exact message.
    message may be a compiled regex when AWS's text varies by region."""
    got_code = err.response["Error"]["Code"]
    got_message = err.response["Error"].get("Message")
    assert got_code == code, f"expected {code}, got {got_code}: {got_message}"
    if hasattr(message, "fullmatch"):
        assert got_message is not None and message.fullmatch(got_message), got_message
    else:
        assert got_message == message


def assert_raw_error(resp, type_, message=None, message_key="message"):
    """resp is a RawResponse; checks the status 400 and the full JSON body."""
    status, _, data = resp
    assert status == 400, (status, data)
    assert isinstance(data, dict), data
    assert data.get("__type") == type_, data
    if message is None:
        return
    if hasattr(message, "fullmatch"):
        assert message.fullmatch(data.get(message_key) or ""), data
    else:
        assert data.get(message_key) == message, data


VALIDATION = "com.amazon.coral.validate#ValidationException"
SERIALIZATION = "com.amazon.coral.service#SerializationException"
DDB = "com.amazonaws.dynamodb.v20120810#"


def assert_validation_errors(message, pieces):
    """AWS's 'N validation errors detected: a; b' - pieces in any order, as
    dynalite's helpers.js assertValidation does with recorded AWS answers."""
    count = len(pieces)
    prefix = f"{count} validation error{'s' if count != 1 else ''} detected: "
    assert message.startswith(prefix), message
    got = message[len(prefix):].split("; ")
    assert sorted(got) == sorted(pieces), message


def describe(client, name):
    """DescribeTable's Table, or None when the table does not exist."""
    try:
        return client.describe_table(TableName=name)["Table"]
    except ClientError as e:
        if e.response["Error"]["Code"] == "ResourceNotFoundException":
            return None
        raise


def assert_table_absent(client, name):
    """Nothing was created by a refused CreateTable."""
    assert describe(client, name) is None, f"table {name} exists after a refused request"


def get_item(client, table, key):
    """The item at key (ConsistentRead), or None."""
    return client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")


def unique_table_name(prefix="ddbemu_test"):
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


def _key_args(hash_key, range_key):
    schema = [{"AttributeName": hash_key[0], "KeyType": "HASH"}]
    defs = [{"AttributeName": hash_key[0], "AttributeType": hash_key[1]}]
    if range_key:
        schema.append({"AttributeName": range_key[0], "KeyType": "RANGE"})
        defs.append({"AttributeName": range_key[0], "AttributeType": range_key[1]})
    return schema, defs


def delete_table_quietly(client, name):
    """Deletes a test table, turning deletion protection off first if needed."""
    for _ in range(2):
        try:
            client.delete_table(TableName=name)
            return
        except ClientError as e:
            code = e.response["Error"]["Code"]
            if code == "ResourceNotFoundException":
                return
            if code == "ValidationException" and "protected" in e.response["Error"]["Message"]:
                # boto3 1.26 predates DeletionProtectionEnabled: send it raw.
                status, data = raw_call(client, "UpdateTable",
                                        {"TableName": name, "DeletionProtectionEnabled": False})
                assert status == 200, data
                wait_active(client, name)
                continue
            if code == "ResourceInUseException" and os.environ.get("DDBEMU_ENDPOINT") == "aws":
                time.sleep(5)
                continue
            raise


def wait_active(client, name):
    """Waits for ACTIVE (immediate on the emulator; needed on real DynamoDB)."""
    for _ in range(600):
        desc = client.describe_table(TableName=name)["Table"]
        if desc["TableStatus"] == "ACTIVE":
            return desc
        time.sleep(1)
    raise AssertionError(f"table {name} never became ACTIVE")


def raw_call(client, operation, body):
    """Sends one signed request with client's endpoint, region and credentials,
    bypassing boto3's parameter validation (for members newer than Debian's
    boto3, such as DeletionProtectionEnabled). Returns (status, parsed JSON)."""
    url = client.meta.endpoint_url.rstrip("/") + "/"
    payload = json.dumps(body).encode()
    req = botocore.awsrequest.AWSRequest(method="POST", url=url, data=payload, headers={
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": f"DynamoDB_20120810.{operation}"})
    creds = client._request_signer._credentials
    botocore.auth.SigV4Auth(creds, "dynamodb", client.meta.region_name).add_auth(req)
    parsed = urllib.parse.urlsplit(url)
    cls = http.client.HTTPSConnection if parsed.scheme == "https" else http.client.HTTPConnection
    conn = cls(parsed.hostname, parsed.port, timeout=60)
    try:
        conn.request("POST", parsed.path or "/", body=payload, headers=dict(req.headers.items()))
        resp = conn.getresponse()
        data = resp.read()
    finally:
        conn.close()
    return resp.status, (json.loads(data) if data else None)


def running_on_aws_sleep(seconds):
    """Waits between polls when the suite runs against AWS, where control-plane
    changes take seconds to show; the emulator applies them at once."""
    if os.environ.get("DDBEMU_ENDPOINT") == "aws":
        time.sleep(seconds)


def poll_until(predicate, what):
    """The first true value of predicate(), polled once a second against AWS
    (at once on the emulator) for up to 15 minutes."""
    for _ in range(900):
        value = predicate()
        if value:
            return value
        running_on_aws_sleep(1)
    raise AssertionError(f"never {what}")


# ---- the emulator's control interface (/ddbemu/) ----

def control(endpoint_url, path, body=None):
    """The JSON answer of /ddbemu/<path>: a GET without body, a POST of body
    as JSON with one."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"{endpoint_url}/ddbemu/{path}", data=data,
                                 method="GET" if data is None else "POST")
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def clock_now(srv):
    """The engine's clock of server srv, in ms."""
    return control(srv.endpoint_url, "clock")["now_ms"]


def clock_advance(srv, ms):
    """Moves srv's engine clock by ms; returns the new time."""
    return control(srv.endpoint_url, "clock", {"advance_ms": ms})["now_ms"]
