# SPDX-License-Identifier: MIT
"""Time to Live: UpdateTimeToLive and DescribeTimeToLive.

What DynamoDB does, and how we know:
- UpdateTimeToLive answers with the TimeToLiveSpecification it was given; a
  successful change is followed by a one-hour window in which any further
  change to the table's TTL is refused with ValidationException "Time to live
  has been modified multiple times within a fixed interval" (API reference,
  UpdateTimeToLive; the live service quoted by the ack-api-quirks lab,
  DDB-TABLE-143).
- The state checks come first: "TimeToLive is already enabled",
  "TimeToLive is already disabled", "TimeToLive is active on a different
  AttributeName: current AttributeName is <name>" (DDB-TABLE-143/147; texts
  quoted from the live service by applications that match on them).
- DescribeTimeToLive says {TimeToLiveStatus: DISABLED} with no AttributeName
  for a table that never had TTL and for a disabled one (DDB-TABLE-144);
  Alternator's AWS-run test_ttl.py checks ENABLED right after the update.

Expiry itself takes the control clock, so it is tested in
test_emulator_clock.py. Everything here runs against AWS too (the hour-long
window is only ever observed, never waited for).
"""

import pytest

from util import VALIDATION, assert_error, assert_raw_error, client_error, unique_table_name


def spec(name, enabled):
    return {"AttributeName": name, "Enabled": enabled}


def describe_ttl(dynamodb, table):
    return dynamodb.describe_time_to_live(TableName=table)["TimeToLiveDescription"]


def test_describe_ttl_of_a_new_table_is_disabled(dynamodb, make_table):
    table = make_table()
    assert describe_ttl(dynamodb, table) == {"TimeToLiveStatus": "DISABLED"}


def test_update_ttl_echoes_the_specification_and_enables(dynamodb, make_table):
    table = make_table()
    resp = dynamodb.update_time_to_live(TableName=table, TimeToLiveSpecification=spec("ttl", True))
    assert resp["TimeToLiveSpecification"] == {"AttributeName": "ttl", "Enabled": True}
    assert describe_ttl(dynamodb, table) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}


def test_disabling_ttl_that_is_off_is_refused(dynamodb, make_table):
    table = make_table()
    err = client_error(dynamodb.update_time_to_live, TableName=table,
                       TimeToLiveSpecification=spec("ttl", False))
    assert_error(err, "ValidationException", "TimeToLive is already disabled")
    assert describe_ttl(dynamodb, table) == {"TimeToLiveStatus": "DISABLED"}


def test_state_checks_come_before_the_hourly_limit(dynamodb, make_table):
    table = make_table()
    dynamodb.update_time_to_live(TableName=table, TimeToLiveSpecification=spec("ttl", True))
    err = client_error(dynamodb.update_time_to_live, TableName=table,
                       TimeToLiveSpecification=spec("ttl", True))
    assert_error(err, "ValidationException", "TimeToLive is already enabled")
    err = client_error(dynamodb.update_time_to_live, TableName=table,
                       TimeToLiveSpecification=spec("other", True))
    assert_error(err, "ValidationException",
                 "TimeToLive is active on a different AttributeName: current AttributeName is ttl")
    err = client_error(dynamodb.update_time_to_live, TableName=table,
                       TimeToLiveSpecification=spec("other", False))
    assert_error(err, "ValidationException",
                 "TimeToLive is active on a different AttributeName: current AttributeName is ttl")
    # A real change within the hour.
    err = client_error(dynamodb.update_time_to_live, TableName=table,
                       TimeToLiveSpecification=spec("ttl", False))
    assert_error(err, "ValidationException",
                 "Time to live has been modified multiple times within a fixed interval")
    assert describe_ttl(dynamodb, table) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}


def test_ttl_on_a_key_attribute_is_accepted(dynamodb, make_table):
    # "TTL on the partition key is accepted" (ack-api-quirks DDB-TABLE-146);
    # Alternator's test_ttl_expiration_hash enables it on AWS.
    table = make_table(hash_key=("p", "N"))
    dynamodb.update_time_to_live(TableName=table, TimeToLiveSpecification=spec("p", True))
    assert describe_ttl(dynamodb, table)["AttributeName"] == "p"


def test_ttl_of_a_missing_table_is_resource_not_found(dynamodb):
    name = unique_table_name()
    err = client_error(dynamodb.update_time_to_live, TableName=name,
                       TimeToLiveSpecification=spec("ttl", True))
    assert err.response["Error"]["Code"] == "ResourceNotFoundException"
    err = client_error(dynamodb.describe_time_to_live, TableName=name)
    assert err.response["Error"]["Code"] == "ResourceNotFoundException"


@pytest.mark.parametrize("ttl_spec, path, constraint", [
    ({"Enabled": True}, "timeToLiveSpecification.attributeName", "Member must not be null"),
    ({"AttributeName": "x"}, "timeToLiveSpecification.enabled", "Member must not be null"),
])
def test_specification_members_are_required(raw, make_table, ttl_spec, path, constraint):
    # The lab (DDB-TABLE-143 family) and Alternator's AWS-run tests name the
    # member paths; the sentence is Coral's model validation.
    table = make_table()
    resp = raw("UpdateTimeToLive", {"TableName": table, "TimeToLiveSpecification": ttl_spec})
    assert_raw_error(resp, VALIDATION,
                     f"1 validation error detected: Value null at '{path}' failed to satisfy "
                     f"constraint: {constraint}")


@pytest.mark.parametrize("name, constraint", [
    ("", "Member must have length greater than or equal to 1"),
    ("x" * 256, "Member must have length less than or equal to 255"),
])
def test_attribute_name_length(raw, make_table, name, constraint):
    table = make_table()
    resp = raw("UpdateTimeToLive", {"TableName": table,
                                    "TimeToLiveSpecification": {"AttributeName": name,
                                                                "Enabled": True}})
    assert_raw_error(resp, VALIDATION,
                     f"1 validation error detected: Value '{name}' at "
                     f"'timeToLiveSpecification.attributeName' failed to satisfy constraint: "
                     f"{constraint}")
