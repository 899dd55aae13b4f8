# SPDX-License-Identifier: MIT
"""Every operation of the DynamoDB API is served: none answers
UnknownOperationException, as on DynamoDB.

The list is the API reference's "Actions" page for Amazon DynamoDB
(APIReference/API_Operations_Amazon_DynamoDB.html), all 57 of them. Each gets
an empty request: most answer a ValidationException for their missing
members, the List/Describe operations without required members answer 200.
The DynamoDB Streams operations have their own endpoint on AWS (served on the
same port here, test_streams.py).
"""

import pytest

DYNAMODB_OPERATIONS = [
    "BatchExecuteStatement", "BatchGetItem", "BatchWriteItem", "CreateBackup",
    "CreateGlobalTable", "CreateTable", "DeleteBackup", "DeleteItem", "DeleteResourcePolicy",
    "DeleteTable", "DescribeBackup", "DescribeContinuousBackups", "DescribeContributorInsights",
    "DescribeEndpoints", "DescribeExport", "DescribeGlobalTable", "DescribeGlobalTableSettings",
    "DescribeImport", "DescribeKinesisStreamingDestination", "DescribeLimits", "DescribeTable",
    "DescribeTableReplicaAutoScaling", "DescribeTimeToLive", "DisableKinesisStreamingDestination",
    "EnableKinesisStreamingDestination", "ExecuteStatement", "ExecuteTransaction",
    "ExportTableToPointInTime", "GetItem", "GetResourcePolicy", "ImportTable", "ListBackups",
    "ListContributorInsights", "ListExports", "ListGlobalTables", "ListImports", "ListTables",
    "ListTagsOfResource", "PutItem", "PutResourcePolicy", "Query", "RestoreTableFromBackup",
    "RestoreTableToPointInTime", "Scan", "TagResource", "TransactGetItems", "TransactWriteItems",
    "UntagResource", "UpdateContinuousBackups", "UpdateContributorInsights", "UpdateGlobalTable",
    "UpdateGlobalTableSettings", "UpdateItem", "UpdateKinesisStreamingDestination", "UpdateTable",
    "UpdateTableReplicaAutoScaling", "UpdateTimeToLive",
]

def test_the_list_is_the_api_reference():
    assert len(DYNAMODB_OPERATIONS) == 57 == len(set(DYNAMODB_OPERATIONS))


@pytest.mark.parametrize("operation", DYNAMODB_OPERATIONS)
def test_operation_is_served(raw, operation):
    status, _, data = raw(operation, {})
    assert status in (200, 400), (status, data)
    if status == 400:
        assert not data["__type"].endswith("#UnknownOperationException"), data


def test_unknown_target_still_answers_unknown_operation(raw):
    status, _, data = raw("DescribeEverything", {})
    assert status == 400
    assert data["__type"] == "com.amazon.coral.service#UnknownOperationException"


# Members of the wrong type, nulls inside lists and empty structures: each is
# an error of the request (HTTP 400), never a server error.
ODD_BODIES = [
    ("TagResource", {"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table/t01",
                     "Tags": [None, {"Key": None, "Value": None}]}),
    ("TagResource", {"ResourceArn": 5, "Tags": []}),
    ("UntagResource", {"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table/t01",
                       "TagKeys": [None, ""]}),
    ("ListTagsOfResource", {"ResourceArn": "arn:", "NextToken": "x"}),
    ("ListTagsOfResource", {"ResourceArn": "arn:aws:dynamodb:::table/"}),
    ("PutResourcePolicy", {"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table/t01",
                           "Policy": "\u0000{"}),
    ("PutResourcePolicy", {"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table",
                           "Policy": "{}"}),
    ("DeleteResourcePolicy", {"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table//"}),
    ("UpdateContributorInsights", {"TableName": "t01", "ContributorInsightsAction": None}),
    ("ListContributorInsights", {"MaxResults": -5, "NextToken": "-1"}),
    ("EnableKinesisStreamingDestination", {"TableName": "arn:aws:dynamodb",
                                           "StreamArn": "x" * 40}),
    ("UpdateKinesisStreamingDestination", {"TableName": "t01", "StreamArn": "x" * 40,
                                           "UpdateKinesisStreamingConfiguration": None}),
    ("UpdateTableReplicaAutoScaling", {"TableName": "t01", "ReplicaUpdates": [{}]}),
    ("UpdateGlobalTable", {"GlobalTableName": "t01", "ReplicaUpdates": [None]}),
    ("UpdateTable", {"TableName": "t01", "ReplicaUpdates": [{"Create": {}}]}),
    ("GetItem", {"TableName": "arn:aws:dynamodb:us-east-1:000000000000:table/" + "a" * 1100,
                 "Key": {}}),
    ("BatchGetItem", {"RequestItems": {"arn:aws:dynamodb:us-east-1:0:table/x": {"Keys": [{}]}}}),
]


@pytest.mark.parametrize("operation,body", ODD_BODIES)
def test_odd_requests_are_request_errors(raw, operation, body):
    status, _, data = raw(operation, body)
    assert status in (200, 400), (status, data)
