# SPDX-License-Identifier: MIT
"""DescribeContributorInsights, UpdateContributorInsights, ListContributorInsights.

What DynamoDB answers, as recorded by the ack-api-quirks lab (DDB-TABLE-092,
098, 115, 446, live service 2026-10) and the API reference: a table never
enabled describes as DISABLED with only TableName and the status; ENABLE
answers ENABLING (ENABLED when the mode is already the one asked), DISABLE
DISABLING; ENABLE without a mode means ACCESSED_AND_THROTTLED_KEYS; the rule
list names DynamoDBContributorInsights-PKC/PKT (and SKC/SKT with a sort key)
rules; THROTTLED_KEYS keeps only the throttled-key rules; a missing index is
"Requested resource not found: Index: <i> not found for table: <t>".
On AWS the ENABLING/DISABLING states last about a second: wait_status polls.
"""

import pytest

from util import assert_error, client_error, random_string, running_on_aws_sleep


def wait_status(dynamodb, table, status, index=None):
    args = {"TableName": table, **({"IndexName": index} if index else {})}
    for _ in range(60):
        desc = dynamodb.describe_contributor_insights(**args)
        if desc["ContributorInsightsStatus"] == status:
            return desc
        running_on_aws_sleep(1)
    assert desc["ContributorInsightsStatus"] == status


def rule_kinds(desc):
    return [rule.split("-")[1] for rule in desc["ContributorInsightsRuleList"]]


def test_never_enabled(dynamodb, make_table):
    table = make_table()
    desc = dynamodb.describe_contributor_insights(TableName=table)
    del desc["ResponseMetadata"]
    assert desc == {"TableName": table, "ContributorInsightsStatus": "DISABLED"}


def test_enable_disable_table(dynamodb, make_table, raw):
    table = make_table(range_key=("c", "S"))
    resp = dynamodb.update_contributor_insights(TableName=table, ContributorInsightsAction="ENABLE")
    assert (resp["TableName"], resp["ContributorInsightsStatus"]) == (table, "ENABLING")
    desc = wait_status(dynamodb, table, "ENABLED")
    assert rule_kinds(desc) == ["PKC", "SKC", "PKT", "SKT"]
    assert all(rule.startswith("DynamoDBContributorInsights-") and table in rule
               for rule in desc["ContributorInsightsRuleList"])
    assert "LastUpdateDateTime" in desc
    status, _, data = raw("DescribeContributorInsights", {"TableName": table})
    assert data["ContributorInsightsMode"] == "ACCESSED_AND_THROTTLED_KEYS"
    # The same mode again is a no-op; another mode re-enables.
    status, _, data = raw("UpdateContributorInsights", {
        "TableName": table, "ContributorInsightsAction": "ENABLE",
        "ContributorInsightsMode": "ACCESSED_AND_THROTTLED_KEYS"})
    assert data["ContributorInsightsStatus"] == "ENABLED"
    status, _, data = raw("UpdateContributorInsights", {
        "TableName": table, "ContributorInsightsAction": "ENABLE",
        "ContributorInsightsMode": "THROTTLED_KEYS"})
    assert (status, data["ContributorInsightsStatus"], data["ContributorInsightsMode"]) == \
        (200, "ENABLING", "THROTTLED_KEYS")
    assert rule_kinds(wait_status(dynamodb, table, "ENABLED")) == ["PKT", "SKT"]
    resp = dynamodb.update_contributor_insights(TableName=table, ContributorInsightsAction="DISABLE")
    assert resp["ContributorInsightsStatus"] == "DISABLING"
    desc = wait_status(dynamodb, table, "DISABLED")
    assert "ContributorInsightsRuleList" not in desc or desc["ContributorInsightsRuleList"] == []


def test_index_insights_and_list(dynamodb, make_table):
    table = make_table(AttributeDefinitions=[
        {"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "x", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_x", "Projection": {"ProjectionType": "ALL"},
                                 "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}]}])
    resp = dynamodb.update_contributor_insights(TableName=table, IndexName="by_x",
                                                ContributorInsightsAction="ENABLE")
    assert (resp["IndexName"], resp["ContributorInsightsStatus"]) == ("by_x", "ENABLING")
    desc = wait_status(dynamodb, table, "ENABLED", index="by_x")
    assert rule_kinds(desc) == ["PKC", "PKT"]
    assert dynamodb.describe_contributor_insights(TableName=table)["ContributorInsightsStatus"] \
        == "DISABLED"
    summaries = dynamodb.list_contributor_insights(TableName=table)["ContributorInsightsSummaries"]
    assert {"TableName": table, "IndexName": "by_x", "ContributorInsightsStatus": "ENABLED"} in [
        {k: s[k] for k in ("TableName", "IndexName", "ContributorInsightsStatus") if k in s}
        for s in summaries]


def test_missing_table_or_index(dynamodb, make_table):
    name = f"ddbemu_missing_{random_string()}"
    err = client_error(dynamodb.describe_contributor_insights, TableName=name)
    assert_error(err, "ResourceNotFoundException",
                 f"Requested resource not found: Table: {name} not found")
    err = client_error(dynamodb.update_contributor_insights, TableName=name,
                       ContributorInsightsAction="ENABLE")
    assert_error(err, "ResourceNotFoundException",
                 f"Requested resource not found: Table: {name} not found")
    table = make_table()
    err = client_error(dynamodb.describe_contributor_insights, TableName=table, IndexName="nope")
    assert_error(err, "ResourceNotFoundException",
                 f"Requested resource not found: Index: nope not found for table: {table}")


def test_request_validation(raw, make_table):
    table = make_table()
    status, _, data = raw("UpdateContributorInsights", {"TableName": table,
                                                        "ContributorInsightsAction": "ON"})
    assert (status, data["message"]) == (400, (
        "1 validation error detected: Value 'ON' at 'contributorInsightsAction' failed to satisfy "
        "constraint: Member must satisfy enum value set: [ENABLE, DISABLE]"))
    status, _, data = raw("DescribeContributorInsights", {"TableName": table, "IndexName": ""})
    assert (status, data["message"]) == (
        400, "IndexName must be at least 3 characters long and at most 255 characters long")
