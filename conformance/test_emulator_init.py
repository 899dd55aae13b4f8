# SPDX-License-Identifier: MIT
"""Emulator only: tables from a design (--init FILE, POST /ddbemu/init).

A design document becomes the requests that would build it on AWS
(CreateTable, UpdateTimeToLive, UpdateContinuousBackups, BatchWriteItem),
replayed through the ordinary API, so each table is exactly what those calls
create: checked here through DescribeTable and friends. Formats: a NoSQL
Workbench model with its sample data, a CloudFormation template's
AWS::DynamoDB::Table resources (JSON or YAML; SAM's SimpleTable too), and a
CreateTable request as `aws dynamodb create-table --cli-input-json` takes it.
Errors name the file, the resource and the field.
"""

import json
import os
import subprocess
import urllib.error
import urllib.request

import pytest

from conftest import make_client

pytestmark = pytest.mark.usefixtures("emulator")

SHARED_MODELS = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "models")

WORKBENCH = {
    "ModelName": "Sessions",
    "ModelMetadata": {"AWSService": "Amazon DynamoDB", "Version": "3.0"},
    "DataModel": [{
        "TableName": "session_store",
        "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"},
                          "SortKey": {"AttributeName": "SK", "AttributeType": "S"}},
        "NonKeyAttributes": [{"AttributeName": "session_state", "AttributeType": "S"}],
        "GlobalSecondaryIndexes": [{
            "IndexName": "GSI1_inverse",
            "KeyAttributes": {"PartitionKey": {"AttributeName": "SK", "AttributeType": "S"},
                              "SortKey": {"AttributeName": "PK", "AttributeType": "S"}},
            "Projection": {"ProjectionType": "ALL"}}],
        "TableData": [{"PK": {"S": f"suuid#{n}"}, "SK": {"S": f"c#{n % 3}"},
                       "session_state": {"S": "active"}} for n in range(30)],
        "DataAccess": {"MySql": {}},
        "BillingMode": "PROVISIONED",
        "ProvisionedCapacitySettings": {
            "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 7},
            "AutoScalingRead": {"ScalableTargetRequest": {"MinCapacity": 1,
                                                          "MaxCapacity": 10}}}}]}

TEMPLATE_YAML = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Resources:
  OrdersTable:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: Orders
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - AttributeName: PK
          AttributeType: S
        - AttributeName: SK
          AttributeType: S
        - AttributeName: GSI1PK
          AttributeType: S
        - AttributeName: GSI1SK
          AttributeType: S
      KeySchema:
        - {AttributeName: PK, KeyType: HASH}
        - {AttributeName: SK, KeyType: RANGE}
      GlobalSecondaryIndexes:
        - IndexName: GSI1
          KeySchema:
            - {AttributeName: GSI1PK, KeyType: HASH}
            - {AttributeName: GSI1SK, KeyType: RANGE}
          Projection:
            ProjectionType: INCLUDE
            NonKeyAttributes: [total]
      StreamSpecification:
        StreamViewType: NEW_AND_OLD_IMAGES
      TimeToLiveSpecification:
        AttributeName: expiresAt
        Enabled: true
      PointInTimeRecoverySpecification:
        PointInTimeRecoveryEnabled: true
        RecoveryPeriodInDays: 7
      SSESpecification:
        SSEEnabled: true
      DeletionProtectionEnabled: true
      Tags:
        - Key: team
          Value: orders
  Uploads:
    Type: AWS::S3::Bucket
  Counters:
    Type: AWS::Serverless::SimpleTable
    Properties:
      PrimaryKey: {Name: counter, Type: Number}
      ProvisionedThroughput: {ReadCapacityUnits: 3, WriteCapacityUnits: 4}
"""

CREATE_TABLE = {
    "TableName": "Music",
    "AttributeDefinitions": [{"AttributeName": "Artist", "AttributeType": "S"},
                             {"AttributeName": "Song", "AttributeType": "S"},
                             {"AttributeName": "Year", "AttributeType": "N"}],
    "KeySchema": [{"AttributeName": "Artist", "KeyType": "HASH"},
                  {"AttributeName": "Song", "KeyType": "RANGE"}],
    "LocalSecondaryIndexes": [{
        "IndexName": "ByYear",
        "KeySchema": [{"AttributeName": "Artist", "KeyType": "HASH"},
                      {"AttributeName": "Year", "KeyType": "RANGE"}],
        "Projection": {"ProjectionType": "KEYS_ONLY"}}],
    "BillingMode": "PAY_PER_REQUEST",
}


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


def local_client(srv):
    return make_client(srv.endpoint_url, access_key="local", region="us-east-1")


def post_init(srv, text, query=""):
    req = urllib.request.Request(srv.endpoint_url + "/ddbemu/init" + query,
                                 data=text.encode(), method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def refused(ddbemu_bin, *args):
    """Runs ddbemu with args; it must refuse to start. Returns stderr."""
    out = subprocess.run([ddbemu_bin, "--host", "127.0.0.1", "--port", "0", *args],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1, out.stderr
    return out.stderr


def test_workbench_model_creates_tables_indexes_and_sample_data(start_server, tmp_path):
    srv = start_server("--init", write(tmp_path, "sessions.json", WORKBENCH))
    ddb = local_client(srv)
    t = ddb.describe_table(TableName="session_store")["Table"]
    assert t["ProvisionedThroughput"]["ReadCapacityUnits"] == 5
    assert t["ProvisionedThroughput"]["WriteCapacityUnits"] == 7
    gsi = t["GlobalSecondaryIndexes"][0]
    assert gsi["IndexName"] == "GSI1_inverse"
    assert gsi["KeySchema"] == [{"AttributeName": "SK", "KeyType": "HASH"},
                                {"AttributeName": "PK", "KeyType": "RANGE"}]
    assert gsi["ProvisionedThroughput"]["WriteCapacityUnits"] == 7
    assert sorted(d["AttributeName"] for d in t["AttributeDefinitions"]) == ["PK", "SK"]
    assert t["ItemCount"] == 30
    resp = ddb.query(TableName="session_store", IndexName="GSI1_inverse",
                     KeyConditionExpression="SK = :c",
                     ExpressionAttributeValues={":c": {"S": "c#1"}})
    assert resp["Count"] == 10
    # The sample data went through BatchWriteItem: the report counts it.
    with urllib.request.urlopen(srv.endpoint_url + "/ddbemu/insight/session_store") as r:
        report = json.loads(r.read())["tables"][0]
    assert report["requests"]["BatchWriteItem"] == 2
    assert report["items"]["written"] == 30


@pytest.mark.parametrize("model", ["ChatSystemSchema.json", "SessionManagementSchema.json",
                                   "SocialNetworkSchema.json"])
def test_the_seed_designs_workbench_models_load(start_server, model):
    path = os.path.join(SHARED_MODELS, model)
    if not os.path.exists(path):
        pytest.skip("the shared models are not next to this checkout")
    with open(path) as f:
        data = json.load(f)
    srv = start_server("--init", path)
    ddb = local_client(srv)
    for table in data["DataModel"]:
        t = ddb.describe_table(TableName=table["TableName"])["Table"]
        assert t["ItemCount"] == len(table.get("TableData", []))
        assert len(t.get("GlobalSecondaryIndexes", [])) == len(
            table.get("GlobalSecondaryIndexes", []))


def test_cloudformation_yaml_creates_what_its_properties_say(start_server, tmp_path):
    srv = start_server("--init", write(tmp_path, "template.yaml", TEMPLATE_YAML))
    ddb = local_client(srv)
    assert ddb.list_tables()["TableNames"] == ["Counters", "Orders"]
    t = ddb.describe_table(TableName="Orders")["Table"]
    assert t["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert t["StreamSpecification"] == {"StreamEnabled": True,
                                        "StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert t["SSEDescription"]["Status"] == "ENABLED"
    # DeletionProtectionEnabled (Debian's boto3 predates the member): DeleteTable is refused.
    with pytest.raises(ddb.exceptions.ClientError) as e:
        ddb.delete_table(TableName="Orders")
    assert e.value.response["Error"]["Code"] == "ValidationException"
    assert t["GlobalSecondaryIndexes"][0]["Projection"] == {
        "ProjectionType": "INCLUDE", "NonKeyAttributes": ["total"]}
    assert ddb.describe_time_to_live(TableName="Orders")["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "expiresAt"}
    pitr = ddb.describe_continuous_backups(TableName="Orders")[
        "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert pitr["PointInTimeRecoveryStatus"] == "ENABLED"
    if "RecoveryPeriodInDays" in pitr:  # newer than Debian's boto3
        assert pitr["RecoveryPeriodInDays"] == 7
    c = ddb.describe_table(TableName="Counters")["Table"]
    assert c["KeySchema"] == [{"AttributeName": "counter", "KeyType": "HASH"}]
    assert c["AttributeDefinitions"] == [{"AttributeName": "counter", "AttributeType": "N"}]
    assert c["ProvisionedThroughput"]["WriteCapacityUnits"] == 4


def test_cloudformation_json_and_a_create_table_request(start_server, tmp_path):
    template = {"Resources": {"MusicTable": {"Type": "AWS::DynamoDB::Table",
                                             "Properties": {k: v for k, v in CREATE_TABLE.items()
                                                            if k != "TableName"}}}}
    srv = start_server("--init", write(tmp_path, "t.json", template),
                       "--init", write(tmp_path, "music.json", CREATE_TABLE))
    ddb = local_client(srv)
    # No TableName in the template: the resource's logical id names the table.
    assert ddb.list_tables()["TableNames"] == ["Music", "MusicTable"]
    for name in ("Music", "MusicTable"):
        t = ddb.describe_table(TableName=name)["Table"]
        assert t["LocalSecondaryIndexes"][0]["IndexName"] == "ByYear"
        assert t["LocalSecondaryIndexes"][0]["Projection"] == {"ProjectionType": "KEYS_ONLY"}


def test_post_init_creates_tables_in_the_named_namespace(start_server):
    srv = start_server()
    status, body = post_init(srv, json.dumps(CREATE_TABLE),
                             "?access_key=someone&region=eu-west-1")
    assert (status, body) == (200, {"tables_created": 1, "items_written": 0})
    other = make_client(srv.endpoint_url, access_key="someone", region="eu-west-1")
    assert other.list_tables()["TableNames"] == ["Music"]
    assert local_client(srv).list_tables()["TableNames"] == []
    status, body = post_init(srv, json.dumps(WORKBENCH))
    assert (status, body) == (200, {"tables_created": 1, "items_written": 30})
    assert local_client(srv).list_tables()["TableNames"] == ["session_store"]
    # Again: the table exists, and CreateTable's own error says so.
    status, body = post_init(srv, json.dumps(WORKBENCH), "?name=sessions.json")
    assert status == 400
    assert body["error"] == ("sessions.json: table session_store: CreateTable: "
                             "ResourceInUseException: Table already exists: session_store")


def test_errors_name_the_file_the_resource_and_the_field(ddbemu_bin, tmp_path):
    intrinsic = TEMPLATE_YAML.replace("TableName: Orders", 'TableName: !Sub "${Env}-orders"')
    path = write(tmp_path, "intrinsic.yaml", intrinsic)
    err = refused(ddbemu_bin, "--init", path)
    assert (f"{path}: resource OrdersTable: Properties.TableName (Fn::Sub): intrinsic "
            "functions are not supported") in err

    kinesis = {"Resources": {"T": {"Type": "AWS::DynamoDB::Table", "Properties": {
        "KeySchema": [], "KinesisStreamSpecification": {"StreamArn": "x"}}}}}
    path = write(tmp_path, "kinesis.json", kinesis)
    assert (f"{path}: resource T: property KinesisStreamSpecification is not supported"
            in refused(ddbemu_bin, "--init", path))

    bad_key = {"Resources": {"T": {"Type": "AWS::DynamoDB::Table", "Properties": {
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "other", "KeyType": "HASH"}]}}}}
    path = write(tmp_path, "badkey.json", bad_key)
    err = refused(ddbemu_bin, "--init", path)
    assert f"{path}: resource T: CreateTable: ValidationException: " in err

    conflict = json.loads(json.dumps(WORKBENCH))
    conflict["DataModel"][0]["GlobalSecondaryIndexes"][0]["KeyAttributes"]["PartitionKey"][
        "AttributeType"] = "N"
    path = write(tmp_path, "conflict.json", conflict)
    assert (f"{path}: table session_store: GlobalSecondaryIndexes[0] (GSI1_inverse): "
            "KeyAttributes.PartitionKey: attribute SK is declared as S and as N"
            in refused(ddbemu_bin, "--init", path))

    path = write(tmp_path, "broken.json", '{"TableName": "x",\n  "KeySchema": [}')
    assert f"{path}: line 2: not valid JSON" in refused(ddbemu_bin, "--init", path)

    path = write(tmp_path, "other.json", {"hello": "world"})
    assert "not a NoSQL Workbench model" in refused(ddbemu_bin, "--init", path)

    missing = str(tmp_path / "missing.json")
    assert f"--init {missing}: No such file or directory" in refused(ddbemu_bin, "--init",
                                                                      missing)
