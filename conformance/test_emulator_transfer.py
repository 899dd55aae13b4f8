# SPDX-License-Identifier: MIT
"""Exports and imports where only the emulator can be asked: without --s3-dir
every bucket is missing, and an ExportTime in the past needs the PITR window
to be older than the table, which the control clock gives at once.
"""

import json
import os
import time
import urllib.request
import uuid

from transfer_util import LocalBucket, json_lines, put_items


def test_without_s3_dir_every_bucket_is_missing(start_server, s3_dir):
    # Even a folder that exists is no bucket when the server has no --s3-dir.
    srv = start_server()
    client = srv.client()
    os.makedirs(os.path.join(s3_dir, "present"), exist_ok=True)
    client.create_table(TableName="tab1", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}])
    client.update_continuous_backups(
        TableName="tab1", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    arn = client.describe_table(TableName="tab1")["Table"]["TableArn"]
    d = client.export_table_to_point_in_time(TableArn=arn, S3Bucket="present")
    arn = d["ExportDescription"]["ExportArn"]
    d = client.describe_export(ExportArn=arn)["ExportDescription"]
    assert (d["ExportStatus"], d["FailureCode"]) == ("FAILED", "S3NoSuchBucket")
    d = client.import_table(
        S3BucketSource={"S3Bucket": "present"}, InputFormat="CSV",
        TableCreationParameters={
            "TableName": "tab2", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}]})
    d = client.describe_import(ImportArn=d["ImportTableDescription"]["ImportArn"])
    assert d["ImportTableDescription"]["FailureCode"] == "S3NoSuchBucket"
    assert client.list_tables()["TableNames"] == ["tab1"]


def control(srv, path, body):
    req = urllib.request.Request(f"{srv.endpoint_url}/ddbemu/{path}",
                                 data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(req) as resp:
        return json.loads(resp.read())


def test_export_time_inside_the_window(start_server, s3_dir):
    # Once PITR has been on for longer than the five-minute lag, an ExportTime
    # between EarliestRestorableDateTime and LatestRestorableDateTime is taken
    # and recorded in the description and the manifest.
    srv = start_server("--s3-dir", s3_dir)
    client = srv.client()
    bucket = LocalBucket(s3_dir, f"bucket-{uuid.uuid4().hex[:12]}")
    client.create_table(TableName="tab", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}])
    put_items(client, "tab", [{"p": {"S": "a"}}])
    client.update_continuous_backups(
        TableName="tab", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    arn = client.describe_table(TableName="tab")["Table"]["TableArn"]
    control(srv, "clock", {"advance_ms": 3600 * 1000})
    pitr = client.describe_continuous_backups(TableName="tab")["ContinuousBackupsDescription"][
        "PointInTimeRecoveryDescription"]
    earliest = pitr["EarliestRestorableDateTime"].timestamp()
    latest = pitr["LatestRestorableDateTime"].timestamp()
    assert latest - earliest > 3000
    when = int(earliest + 60)
    d = client.export_table_to_point_in_time(TableArn=arn, S3Bucket=bucket.name,
                                             ExportTime=when)["ExportDescription"]
    assert int(d["ExportTime"].timestamp()) == when
    d = client.describe_export(ExportArn=d["ExportArn"])["ExportDescription"]
    assert d["ExportStatus"] == "COMPLETED"
    summary = json.loads(bucket.get(d["ExportManifest"]))
    assert summary["exportTime"] == time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(when))
    # Just after the latest restorable time is outside the window.
    err = None
    try:
        client.export_table_to_point_in_time(TableArn=arn, S3Bucket=bucket.name,
                                             ExportTime=int(latest) + 60)
    except Exception as e:  # noqa: BLE001 - the ClientError is checked below
        err = e
    assert err is not None and err.response["Error"]["Code"] == "InvalidExportTimeException"
