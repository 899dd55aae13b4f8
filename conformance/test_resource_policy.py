# SPDX-License-Identifier: MIT
"""PutResourcePolicy, GetResourcePolicy, DeleteResourcePolicy and CreateTable's
ResourcePolicy (March 2024, newer than Debian's boto3: sent as raw JSON).

What DynamoDB answers, as recorded by moto's AWS-verified
test_dynamodb_resource_policy.py and the ack-api-quirks lab (DDB-TABLE-070,
442, 446, 457, live service 2026-10): revision ids are timestamps; the same
document again keeps its revision; ExpectedRevisionId (or NO_POLICY) guards
changes with PolicyNotFoundException; a missing table is "Requested resource
not found: Table: <name> not found"; documents are checked as IAM policies.
AWS applies a policy change after a few seconds and refuses another within
15 s; these tests read back with polling and, on AWS, would need pauses.
"""

import json

import pytest

from util import random_string, running_on_aws_sleep

ACCOUNT = "000000000000"
PNF = "Resource-based policy not found for the provided ResourceArn: "


def policy(action="dynamodb:GetItem", sid=None):
    statement = {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
                 "Action": [action], "Resource": "*"}
    if sid:
        statement["Sid"] = sid
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


def ok(resp):
    status, _, data = resp
    assert status == 200, data
    return data


def error(resp, short_type, message=None):
    status, _, data = resp
    assert status == 400, data
    assert data["__type"].split("#")[-1] == short_type, data
    if message is not None:
        assert data["message"] == message, data
    return data


@pytest.fixture
def table(dynamodb, make_table):
    name = make_table()
    return name, dynamodb.describe_table(TableName=name)["Table"]["TableArn"]


def test_put_get_delete(raw, table):
    name, arn = table
    error(raw("GetResourcePolicy", {"ResourceArn": arn}), "PolicyNotFoundException", PNF + arn)
    rev1 = ok(raw("PutResourcePolicy", {"ResourceArn": arn, "Policy": policy()}))["RevisionId"]
    assert rev1.isdigit()
    got = ok(raw("GetResourcePolicy", {"ResourceArn": arn}))
    assert got == {"Policy": policy(), "RevisionId": rev1}
    # The same document again changes nothing.
    assert ok(raw("PutResourcePolicy", {"ResourceArn": arn, "Policy": policy()}))["RevisionId"] == rev1
    running_on_aws_sleep(16)
    rev2 = ok(raw("PutResourcePolicy", {"ResourceArn": arn, "Policy": policy("dynamodb:PutItem"),
                                        "ExpectedRevisionId": rev1}))["RevisionId"]
    assert int(rev2) > int(rev1)
    running_on_aws_sleep(16)
    error(raw("PutResourcePolicy", {"ResourceArn": arn, "Policy": policy("dynamodb:Query"),
                                    "ExpectedRevisionId": rev1}), "PolicyNotFoundException",
          PNF + f"Requested update for policy with revision id {rev1}, but the policy associated "
          f"to target table {name} has revision id {rev2}.")
    error(raw("PutResourcePolicy", {"ResourceArn": arn, "Policy": policy("dynamodb:Query"),
                                    "ExpectedRevisionId": "NO_POLICY"}), "PolicyNotFoundException",
          PNF + f"Requested policy update expecting none to be present for table {name}, but a "
          f"policy exists with revision id {rev2}.")
    error(raw("DeleteResourcePolicy", {"ResourceArn": arn, "ExpectedRevisionId": "unknown"}),
          "PolicyNotFoundException",
          PNF + f"Requested update for policy with revision id unknown, but the policy associated "
          f"to target table {name} has revision id {rev2}.")
    assert ok(raw("GetResourcePolicy", {"ResourceArn": arn}))["RevisionId"] == rev2
    assert ok(raw("DeleteResourcePolicy", {"ResourceArn": arn,
                                           "ExpectedRevisionId": rev2}))["RevisionId"] == rev2
    for _ in range(20):
        status, _, data = raw("GetResourcePolicy", {"ResourceArn": arn})
        if status == 400:
            break
        running_on_aws_sleep(1)
    error((status, None, data), "PolicyNotFoundException", PNF + arn)
    error(raw("DeleteResourcePolicy", {"ResourceArn": arn}), "PolicyNotFoundException", PNF + arn)
    running_on_aws_sleep(16)
    rev3 = ok(raw("PutResourcePolicy", {"ResourceArn": arn, "Policy": policy(),
                                        "ExpectedRevisionId": "NO_POLICY"}))["RevisionId"]
    assert int(rev3) > int(rev2)


@pytest.mark.parametrize("document,message", [
    ("", "This policy contains invalid Json"),
    ("[]", "This policy contains invalid Json"),
    ("null", "This text appears not to be a policy"),
    ('{"Version": "2012-10-17", "Statement": []}', "Could not parse the policy: Statement is empty!"),
    ('{"Statement": [{}]}', "Missing required field Effect"),
    ('{"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "dynamodb:GetItem"}]}',
     "Missing required field Resource"),
])
def test_invalid_documents(raw, table, document, message):
    _, arn = table
    error(raw("PutResourcePolicy", {"ResourceArn": arn, "Policy": document}), "ValidationException",
          "One or more parameter values were invalid: Invalid policy document: " + message)
    error(raw("GetResourcePolicy", {"ResourceArn": arn}), "PolicyNotFoundException", PNF + arn)


def test_duplicate_sids(raw, table):
    _, arn = table
    doc = json.loads(policy(sid="one"))
    doc["Statement"].append(dict(doc["Statement"][0]))
    error(raw("PutResourcePolicy", {"ResourceArn": arn, "Policy": json.dumps(doc)}),
          "ValidationException", "One or more parameter values were invalid: Invalid policy "
          "document: The Statement Ids in the policy are not unique")


def test_size_limit(raw, table):
    _, arn = table
    doc = json.loads(policy())
    doc["Statement"][0]["Action"] = ["dynamodb:GetItem"] * 1200
    text = json.dumps(doc)
    assert len(text) > 20480
    error(raw("PutResourcePolicy", {"ResourceArn": arn, "Policy": text}), "ValidationException",
          "One or more parameter values were invalid: Maximum policy size of 20480 bytes exceeded")


def test_resource_arn_errors(raw, table, region):
    name, arn = table
    error(raw("GetResourcePolicy", {}), "ValidationException",
          "1 validation error detected: Value null at 'resourceArn' failed to satisfy constraint: "
          "Member must not be null")
    error(raw("GetResourcePolicy", {"ResourceArn": name}), "ValidationException",
          f"One or more parameter values were invalid: ARNs must start with 'arn:': {name}")
    missing = f"arn:aws:dynamodb:{region}:{ACCOUNT}:table/{name}_"
    error(raw("PutResourcePolicy", {"ResourceArn": missing, "Policy": policy()}),
          "ResourceNotFoundException", f"Requested resource not found: Table: {name}_ not found")
    error(raw("DeleteResourcePolicy", {"ResourceArn": missing}), "ResourceNotFoundException",
          f"Requested resource not found: Table: {name}_ not found")
    error(raw("GetResourcePolicy", {"ResourceArn": arn.replace(f":{ACCOUNT}:", ":111122223333:")}),
          "AccessDeniedException")


def test_stream_policy(raw, dynamodb, make_table):
    name = make_table(StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    desc = dynamodb.describe_table(TableName=name)["Table"]
    stream_arn = desc["LatestStreamArn"]
    rev = ok(raw("PutResourcePolicy", {"ResourceArn": stream_arn, "Policy": policy(
        "dynamodb:GetRecords")}))["RevisionId"]
    assert ok(raw("GetResourcePolicy", {"ResourceArn": stream_arn}))["RevisionId"] == rev
    # The table's own policy is separate.
    error(raw("GetResourcePolicy", {"ResourceArn": desc["TableArn"]}), "PolicyNotFoundException")
    label = "2000-01-01T00:00:00.000"
    other = desc["TableArn"] + "/stream/" + label
    error(raw("GetResourcePolicy", {"ResourceArn": other}), "ResourceNotFoundException",
          f"Requested resource not found: Stream: {label} not found for Table: {name}")


def test_create_table_with_policy(raw, dynamodb):
    name = f"ddbemu_policy_{random_string()}"
    body = {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}]}
    error(raw("CreateTable", {**body, "ResourcePolicy": "[]"}), "ValidationException",
          "One or more parameter values were invalid: Invalid policy document: This policy "
          "contains invalid Json")
    status, _, _ = raw("DescribeTable", {"TableName": name})
    assert status == 400
    arn = ok(raw("CreateTable", {**body, "ResourcePolicy": policy()}))["TableDescription"]["TableArn"]
    try:
        for _ in range(30):
            status, _, data = raw("GetResourcePolicy", {"ResourceArn": arn})
            if status == 200:
                break
            running_on_aws_sleep(1)
        assert data["Policy"] == policy()
    finally:
        dynamodb.delete_table(TableName=name)
