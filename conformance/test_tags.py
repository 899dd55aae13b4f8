# SPDX-License-Identifier: MIT
"""TagResource, UntagResource, ListTagsOfResource and CreateTable's Tags.

What DynamoDB answers, as recorded against the live service by the
ack-api-quirks DynamoDB lab (DDB-TABLE-070/071/105/106/107/108/372, 2026-10),
dynalite's tests (test/listTagsOfResource.js, untagResource.js, tagResource.js)
and scylla's test_tag.py (run against AWS): TagResource upserts, UntagResource
of an absent key is a no-op, tags are validated all-or-nothing, the 50-tag
limit applies to the merged set and is a ValidationException, and a missing
table is "Requested resource not found: ResourceArn: <arn> not found".

On AWS a tag change shows in ListTagsOfResource after about two seconds and a
second change meanwhile is refused (LimitExceededException); these tests read
back with wait_tags, so that they hold on both.
"""

import time

import pytest

from util import assert_error, client_error, random_string, running_on_aws_sleep

ACCOUNT = "000000000000"


def tag_dict(tags):
    return {t["Key"]: t["Value"] for t in tags}


def wait_tags(dynamodb, arn, expected):
    """The table's tags once they equal expected (at once on the emulator)."""
    got = None
    for _ in range(30):
        got = tag_dict(dynamodb.list_tags_of_resource(ResourceArn=arn)["Tags"])
        if got == expected:
            return got
        running_on_aws_sleep(1)
    assert got == expected


@pytest.fixture
def tagged(dynamodb, make_table):
    name = make_table()
    return name, dynamodb.describe_table(TableName=name)["Table"]["TableArn"]


def test_tag_untag_list(dynamodb, tagged):
    _, arn = tagged
    assert dynamodb.list_tags_of_resource(ResourceArn=arn)["Tags"] == []
    dynamodb.tag_resource(ResourceArn=arn, Tags=[
        {"Key": "env", "Value": "prod"}, {"Key": "team", "Value": ""},
        {"Key": "sp ace+-=._:/@", "Value": "a b+c-d=e.f_g:h/i@j"},
        {"Key": "ключ", "Value": "café 表"}])
    wait_tags(dynamodb, arn, {"env": "prod", "team": "", "sp ace+-=._:/@": "a b+c-d=e.f_g:h/i@j",
                              "ключ": "café 表"})
    dynamodb.tag_resource(ResourceArn=arn, Tags=[{"Key": "env", "Value": "dev"}])
    wait_tags(dynamodb, arn, {"env": "dev", "team": "", "sp ace+-=._:/@": "a b+c-d=e.f_g:h/i@j",
                              "ключ": "café 表"})
    # Removing absent keys is no error; the present one goes.
    dynamodb.untag_resource(ResourceArn=arn, TagKeys=["team", "never-set", "ключ",
                                                      "sp ace+-=._:/@"])
    wait_tags(dynamodb, arn, {"env": "dev"})


def test_tags_at_creation(dynamodb, make_table):
    name = make_table(Tags=[{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}])
    arn = dynamodb.describe_table(TableName=name)["Table"]["TableArn"]
    wait_tags(dynamodb, arn, {"a": "1", "b": "2"})


def test_length_limits(dynamodb, tagged):
    _, arn = tagged
    key, value = "k" * 128, "v" * 256
    dynamodb.tag_resource(ResourceArn=arn, Tags=[{"Key": key, "Value": value}])
    wait_tags(dynamodb, arn, {key: value})
    err = client_error(dynamodb.tag_resource, ResourceArn=arn,
                       Tags=[{"Key": "k" * 129, "Value": "x"}])
    assert_error(err, "ValidationException", "The Tag Key provided is invalid, Key: " + "k" * 129)
    err = client_error(dynamodb.tag_resource, ResourceArn=arn,
                       Tags=[{"Key": "x", "Value": "v" * 257}])
    assert_error(err, "ValidationException", "The Tag Value provided is invalid, Value: " + "v" * 257)
    # Unicode characters count as one each.
    dynamodb.tag_resource(ResourceArn=arn, Tags=[{"Key": "א" * 128, "Value": "ב" * 256}])
    wait_tags(dynamodb, arn, {key: value, "א" * 128: "ב" * 256})


def test_invalid_tags_change_nothing(dynamodb, tagged, raw):
    _, arn = tagged
    dynamodb.tag_resource(ResourceArn=arn, Tags=[{"Key": "keep", "Value": "1"}])
    wait_tags(dynamodb, arn, {"keep": "1"})
    cases = [
        ([{"Key": "good", "Value": "1"}, {"Key": "aws:zzz", "Value": "1"}],
         "Tag Key cannot be prefixed with aws:, Key: aws:zzz"),
        ([{"Key": "AWS:foo", "Value": "1"}], "Tag Key cannot be prefixed with aws:, Key: AWS:foo"),
        ([{"Key": "bad#char", "Value": "1"}], "The Tag Key provided is invalid, Key: bad#char"),
        ([{"Key": "ok", "Value": "bad#char"}], "The Tag Value provided is invalid, Value: bad#char"),
        ([{"Key": "ok", "Value": "100%"}], "The Tag Value provided is invalid, Value: 100%"),
        ([{"Key": "ok", "Value": "🔑"}], "The Tag Value provided is invalid, Value: 🔑"),
        ([{"Key": "", "Value": "dog"}], "The Tag Key provided is invalid, Key: "),
        ([{"Key": "dup", "Value": "1"}, {"Key": "dup", "Value": "2"}],
         "Duplicate Tag Keys provided as input: Duplicate Tag Key found dup"),
        ([], "Atleast one Tag needs to be provided as Input."),
        ([{"Value": "x"}], "The Tag Key provided is invalid, Key: null"),
        ([{"Key": "dog"}], "The Tag Value provided is invalid, Value: null"),
    ]
    for tags, message in cases:
        status, _, data = raw("TagResource", {"ResourceArn": arn, "Tags": tags})
        assert (status, data["__type"].split("#")[1], data["message"]) == \
            (400, "ValidationException", message), tags
    status, _, data = raw("UntagResource", {"ResourceArn": arn, "TagKeys": []})
    assert data["message"] == "Atleast one Tag Key needs to be provided as Input."
    status, _, data = raw("UntagResource", {"ResourceArn": arn, "TagKeys": ["aws:foo"]})
    assert data["message"] == "Tag Key cannot be prefixed with aws:, Key: aws:foo"
    status, _, data = raw("UntagResource", {"ResourceArn": arn, "TagKeys": [""]})
    assert data["message"] == "The Tag Key provided is invalid, Key: "
    assert tag_dict(dynamodb.list_tags_of_resource(ResourceArn=arn)["Tags"]) == {"keep": "1"}


def test_fifty_tags_after_the_merge(dynamodb, tagged):
    _, arn = tagged
    fifty = {f"k{i:02}": f"v{i}" for i in range(50)}
    dynamodb.tag_resource(ResourceArn=arn, Tags=[{"Key": k, "Value": v} for k, v in fifty.items()])
    wait_tags(dynamodb, arn, fifty)
    too_many = "Number of Tags exceed the current limit for the provided ResourceArn"
    err = client_error(dynamodb.tag_resource, ResourceArn=arn, Tags=[{"Key": "k50", "Value": "x"}])
    assert_error(err, "ValidationException", too_many)
    err = client_error(dynamodb.tag_resource, ResourceArn=arn,
                       Tags=[{"Key": "k00", "Value": "new"}, {"Key": "k50", "Value": "x"}])
    assert_error(err, "ValidationException", too_many)
    # Replacing values of existing keys keeps the count: allowed.
    dynamodb.tag_resource(ResourceArn=arn, Tags=[{"Key": "k01", "Value": "v01b"}])
    fifty["k01"] = "v01b"
    got = dynamodb.list_tags_of_resource(ResourceArn=arn)
    wait_tags(dynamodb, arn, fifty)
    assert "NextToken" not in got
    err = client_error(dynamodb.untag_resource, ResourceArn=arn,
                       TagKeys=[f"x{i}" for i in range(51)])
    assert_error(err, "ValidationException", too_many)


def test_resource_arn_errors(dynamodb, tagged, raw, region):
    name, arn = tagged
    status, _, data = raw("ListTagsOfResource", {})
    assert (status, data["message"]) == (400, "Invalid TableArn")
    for op, extra in (("ListTagsOfResource", {}), ("TagResource", {"Tags": [{"Key": "a", "Value": "b"}]}),
                      ("UntagResource", {"TagKeys": ["a"]})):
        status, _, data = raw(op, {"ResourceArn": name, **extra})
        assert (status, data["message"]) == (
            400, f"One or more parameter values were invalid: ARNs must start with 'arn:': {name}")
    status, _, data = raw("UntagResource", {"ResourceArn": arn})
    assert data["message"] == ("1 validation error detected: Value null at 'tagKeys' failed to "
                               "satisfy constraint: Member must not be null")
    short = f"arn:aws:dynamodb:{region}:{ACCOUNT}:table/ab"
    err = client_error(dynamodb.list_tags_of_resource, ResourceArn=short)
    assert_error(err, "ValidationException",
                 f"Invalid TableArn: Invalid ResourceArn provided as input {short}")
    missing = f"arn:aws:dynamodb:{region}:{ACCOUNT}:table/{name}x"
    err = client_error(dynamodb.tag_resource, ResourceArn=missing, Tags=[{"Key": "x", "Value": "y"}])
    assert_error(err, "ResourceNotFoundException",
                 f"Requested resource not found: ResourceArn: {missing} not found")
    # Not AccessDeniedException: the table is the caller's own account's (docs/differences.md).
    err = client_error(dynamodb.untag_resource, ResourceArn=missing, TagKeys=["x"])
    assert_error(err, "ResourceNotFoundException",
                 f"Requested resource not found: ResourceArn: {missing} not found")
    err = client_error(dynamodb.list_tags_of_resource, ResourceArn=missing)
    assert_error(err, "ResourceNotFoundException",
                 f"Requested resource not found: ResourceArn: {missing} not found")
    other_account = arn.replace(f":{ACCOUNT}:", ":111122223333:")
    err = client_error(dynamodb.list_tags_of_resource, ResourceArn=other_account)
    assert_error(err, "AccessDeniedException", "Access is denied")


def test_index_arn_is_not_taggable(dynamodb, make_table):
    name = make_table(range_key=("c", "S"), AttributeDefinitions=[
        {"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "c", "AttributeType": "S"},
        {"AttributeName": "x", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "gsi", "Projection": {"ProjectionType": "KEYS_ONLY"},
                                 "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}]}])
    index_arn = dynamodb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]["IndexArn"]
    err = client_error(dynamodb.list_tags_of_resource, ResourceArn=index_arn)
    assert_error(err, "ValidationException",
                 "One or more parameter values were invalid: Invalid resource arn provided, only "
                 f"table or stream is accepted. Provided resource arn: {index_arn}")


def test_tags_of_a_deleted_table(dynamodb, make_table):
    name = make_table(Tags=[{"Key": "a", "Value": "1"}])
    arn = dynamodb.describe_table(TableName=name)["Table"]["TableArn"]
    dynamodb.delete_table(TableName=name)
    for _ in range(60):
        try:
            dynamodb.describe_table(TableName=name)
        except dynamodb.exceptions.ResourceNotFoundException:
            break
        running_on_aws_sleep(1)
    err = client_error(dynamodb.list_tags_of_resource, ResourceArn=arn)
    assert_error(err, "ResourceNotFoundException",
                 f"Requested resource not found: ResourceArn: {arn} not found")
    # A new table of the same name starts without the old tags.
    make_table(name=name)
    assert dynamodb.list_tags_of_resource(ResourceArn=arn)["Tags"] == []


def test_create_table_tag_rules(dynamodb, region):
    name = f"ddbemu_tags_{random_string()}"
    err = client_error(dynamodb.create_table, TableName=name, BillingMode="PAY_PER_REQUEST",
                       KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}],
                       Tags=[{"Key": "bad#char", "Value": "x"}])
    assert_error(err, "ValidationException", "The Tag Key provided is invalid, Key: bad#char")
    err = client_error(dynamodb.create_table, TableName=name, BillingMode="PAY_PER_REQUEST",
                       KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}],
                       Tags=[{"Key": str(i), "Value": "x"} for i in range(51)])
    assert_error(err, "ValidationException",
                 "Number of Tags exceed the current limit for the provided ResourceArn")
    err = client_error(dynamodb.describe_table, TableName=name)
    assert err.response["Error"]["Code"] == "ResourceNotFoundException"


def test_tag_and_untag_answer_an_empty_body(raw, tagged):
    # The API reference of TagResource and UntagResource: "If the action is
    # successful, the service sends back an HTTP 200 response with an empty
    # HTTP body" (no output shape), where other operations answer {} at least.
    _, arn = tagged
    resp = raw("TagResource", {"ResourceArn": arn, "Tags": [{"Key": "k", "Value": "v"}]})
    assert (resp.status, resp.body) == (200, b"")
    resp = raw("UntagResource", {"ResourceArn": arn, "TagKeys": ["k"]})
    assert (resp.status, resp.body) == (200, b"")
    resp = raw("ListTagsOfResource", {"ResourceArn": arn})
    assert resp.status == 200 and resp.data == {"Tags": []}
