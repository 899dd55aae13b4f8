# SPDX-License-Identifier: MIT
"""U+0000 in names and values survives ddbemu's own storage paths: the
--db-path files (items and the projected names of an index, kept across a
restart) and the --s3-dir files of ExportTableToPointInTime and ImportTable,
in both export formats. DynamoDB keeps every character of attribute names and
string values (developer guide, "Supported data types and naming rules");
its exports and imports carry them in DynamoDB JSON and Amazon Ion."""

import pytest

from util import raw_call

Z = "\x00"
ITEM = {"p": {"S": "k" + Z}, "n" + Z: {"S": Z + "v"}, "g": {"S": "G" + Z},
        "m": {"M": {Z: {"SS": ["a", "a" + Z]}}}, "l": {"L": [{"B": b"\x00\x00"}, {"S": Z}]}}
# (the set in set order, a prefix first: test_emulator_set_order.py)
KEY = [{"AttributeName": "p", "KeyType": "HASH"}]
DEFS = [{"AttributeName": "p", "AttributeType": "S"}]


def test_nul_survives_a_restart_with_db_path(start_server, tmp_path):
    data = str(tmp_path / "data")
    server = start_server("--db-path", data)
    client = server.client()
    client.create_table(
        TableName="nul", KeySchema=KEY, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=DEFS + [{"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["n" + Z]}}])
    client.put_item(TableName="nul", Item=ITEM)
    server.stop()

    server = start_server("--db-path", data)
    client = server.client()
    assert client.get_item(TableName="nul", Key={"p": ITEM["p"]})["Item"] == ITEM
    gsi = client.describe_table(TableName="nul")["Table"]["GlobalSecondaryIndexes"][0]
    assert gsi["Projection"]["NonKeyAttributes"] == ["n" + Z]
    got = client.query(TableName="nul", IndexName="by_g", KeyConditionExpression="g = :g",
                       ExpressionAttributeValues={":g": ITEM["g"]})["Items"]
    assert got == [{"p": ITEM["p"], "g": ITEM["g"], "n" + Z: ITEM["n" + Z]}]


@pytest.mark.parametrize("fmt", ["DYNAMODB_JSON", "ION"])
def test_nul_survives_export_and_import(start_server, tmp_path, fmt):
    (tmp_path / "bucket").mkdir()
    server = start_server("--s3-dir", str(tmp_path))
    client = server.client()
    client.create_table(TableName="src", KeySchema=KEY, AttributeDefinitions=DEFS,
                        BillingMode="PAY_PER_REQUEST")
    client.put_item(TableName="src", Item=ITEM)
    status, _ = raw_call(client, "UpdateContinuousBackups", {
        "TableName": "src", "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})
    assert status == 200
    arn = client.describe_table(TableName="src")["Table"]["TableArn"]
    status, data = raw_call(client, "ExportTableToPointInTime", {
        "TableArn": arn, "S3Bucket": "bucket", "S3Prefix": "exp", "ExportFormat": fmt})
    assert status == 200, data
    status, data = raw_call(client, "DescribeExport",
                            {"ExportArn": data["ExportDescription"]["ExportArn"]})
    export = data["ExportDescription"]
    assert export["ExportStatus"] == "COMPLETED", export
    prefix = export["ExportManifest"].rsplit("/", 1)[0] + "/data/"
    status, data = raw_call(client, "ImportTable", {
        "S3BucketSource": {"S3Bucket": "bucket", "S3KeyPrefix": prefix}, "InputFormat": fmt,
        "InputCompressionType": "GZIP", "ClientToken": "nul-import-" + fmt,
        "TableCreationParameters": {"TableName": "dst", "KeySchema": KEY,
                                    "AttributeDefinitions": DEFS,
                                    "BillingMode": "PAY_PER_REQUEST"}})
    assert status == 200, data
    status, data = raw_call(client, "DescribeImport",
                            {"ImportArn": data["ImportTableDescription"]["ImportArn"]})
    assert data["ImportTableDescription"]["ImportStatus"] == "COMPLETED", data
    assert client.scan(TableName="dst")["Items"] == [ITEM]
