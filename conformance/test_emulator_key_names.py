# SPDX-License-Identifier: MIT
"""ddbemu's one limit on attribute names: no U+0000 in key attribute names.

Attribute names may hold any character (test_nul.py), but ddbemu keeps key
attribute names as C strings, so CreateTable and UpdateTable refuse a key
attribute name containing U+0000 rather than cut it short
(docs/differences.md). AWS's answer for such names is not recorded.
"""

import pytest

from util import VALIDATION, assert_raw_error, unique_table_name

Z = "\x00"
REFUSED = ("One or more parameter values were invalid: ddbemu does not support the character "
           "U+0000 in key attribute names")


@pytest.mark.parametrize("where", ["table", "gsi"])
def test_create_table_refuses_nul_in_key_names(raw, where):
    name = unique_table_name()
    defs = [{"AttributeName": "p", "AttributeType": "S"},
            {"AttributeName": "k" + Z, "AttributeType": "S"}]
    body = {"TableName": name, "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": defs}
    if where == "table":
        body["KeySchema"] = [{"AttributeName": "p", "KeyType": "HASH"},
                             {"AttributeName": "k" + Z, "KeyType": "RANGE"}]
    else:
        body["KeySchema"] = [{"AttributeName": "p", "KeyType": "HASH"}]
        body["GlobalSecondaryIndexes"] = [{
            "IndexName": "gsi", "KeySchema": [{"AttributeName": "k" + Z, "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}]
    assert_raw_error(raw("CreateTable", body), VALIDATION, REFUSED)
    assert raw("DescribeTable", {"TableName": name}).status == 400


def test_update_table_refuses_nul_in_a_new_index_key(raw, dynamodb, make_table):
    table = make_table()
    resp = raw("UpdateTable", {
        "TableName": table,
        "AttributeDefinitions": [{"AttributeName": "g" + Z, "AttributeType": "S"}],
        "GlobalSecondaryIndexUpdates": [{"Create": {
            "IndexName": "gsi", "KeySchema": [{"AttributeName": "g" + Z, "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}}]})
    assert_raw_error(resp, VALIDATION, REFUSED)
    assert "GlobalSecondaryIndexes" not in dynamodb.describe_table(TableName=table)["Table"]
