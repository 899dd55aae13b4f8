# SPDX-License-Identifier: MIT
"""ExportTableToPointInTime, DescribeExport, ListExports, ImportTable,
DescribeImport and ListImports.

What DynamoDB does, and how we know: the API reference and the developer guide
(S3DataExport.Output for the layout, S3DataImport.* for the formats), plus
behaviour observed on AWS and recorded by public AWS-verified suites:
  - an export's folder holds _started, data/*.json.gz, manifest-files.json,
    manifest-files.md5, manifest-summary.json, manifest-summary.md5; the .md5
    files and md5Checksum are base64 MD5s, etag the hex MD5;
  - ExportDescription always has a ClientToken, and no ExportType unless the
    request gave one; ListExports' summaries say FULL_EXPORT;
  - a reused ClientToken with other parameters is ExportConflictException /
    ImportConflictException "Duplicate request detected ..."; for an import
    only another table name conflicts, and a finished import's table makes a
    replay ResourceInUseException "Table already exists: ...";
  - a missing bucket: accepted, then FAILED with S3NoSuchBucket (an import
    then leaves no table); lines that are no items: FAILED with
    ItemValidationError, the good items kept, one error per object (the first
    bad line abandons the rest of its object);
  - ProcessedSizeBytes counts decompressed bytes and is absent until
    something was read; an empty prefix COMPLETES with an empty table.
Where AWS's message text is not recorded, tests check the exception and the
part of the text that is.

Against AWS these need DDBEMU_S3_BUCKET (a bucket in the tests' region);
against the emulator the bucket is a folder of the session's --s3-dir.
"""

import base64
import gzip
import hashlib
import json
import re
import time
import uuid

import pytest
from botocore.exceptions import ClientError

from paging import scan_all
from transfer_util import (aws_export_files, every_type_items, json_lines, make_bucket,
                           md5_base64, put_items, same_items)
from util import client_error, delete_table_quietly, raw_call, unique_table_name, wait_active

KEYS = {
    "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"},
                  {"AttributeName": "c", "KeyType": "RANGE"}],
    "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"},
                             {"AttributeName": "c", "AttributeType": "N"}],
}


@pytest.fixture
def bucket(server, s3_dir, region):
    return make_bucket(server, s3_dir, region)


@pytest.fixture
def cleanup(dynamodb):
    """cleanup(name): deletes the table at teardown (tables an import made)."""
    names = []
    yield names.append
    for name in names:
        delete_table_quietly(dynamodb, name)


def enable_pitr(client, table):
    for _ in range(60):
        try:
            client.update_continuous_backups(
                TableName=table,
                PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
            return
        except ClientError as e:  # AWS: a new table needs a moment first
            if e.response["Error"]["Code"] != "ContinuousBackupsUnavailableException":
                raise
            time.sleep(2)


def table_arn(client, table):
    return client.describe_table(TableName=table)["Table"]["TableArn"]


def wait_export(client, arn):
    for _ in range(1200):
        d = client.describe_export(ExportArn=arn)["ExportDescription"]
        if d["ExportStatus"] != "IN_PROGRESS":
            return d
        time.sleep(2)
    raise AssertionError(f"export {arn} never finished")


def wait_import(client, arn):
    for _ in range(1200):
        d = client.describe_import(ImportArn=arn)["ImportTableDescription"]
        if d["ImportStatus"] != "IN_PROGRESS":
            return d
        time.sleep(2)
    raise AssertionError(f"import {arn} never finished")


def source_table(make_table, dynamodb, items=None):
    name = make_table(("p", "S"), ("c", "N"))
    put_items(dynamodb, name, every_type_items() if items is None else items)
    enable_pitr(dynamodb, name)
    return name


def export(dynamodb, bucket, table, **kwargs):
    d = dynamodb.export_table_to_point_in_time(
        TableArn=table_arn(dynamodb, table), S3Bucket=bucket.name,
        **kwargs)["ExportDescription"]
    return d, wait_export(dynamodb, d["ExportArn"])


def import_args(bucket, prefix, name, **kwargs):
    args = {
        "S3BucketSource": {"S3Bucket": bucket.name, "S3KeyPrefix": prefix},
        "InputFormat": "DYNAMODB_JSON",
        "TableCreationParameters": {"TableName": name, "BillingMode": "PAY_PER_REQUEST", **KEYS},
    }
    args.update(kwargs)
    return args


def run_import(dynamodb, cleanup, **args):
    cleanup(args["TableCreationParameters"]["TableName"])
    first = dynamodb.import_table(**args)["ImportTableDescription"]
    return first, wait_import(dynamodb, first["ImportArn"])


def export_folder(bucket, final, prefix=""):
    export_id = final["ExportArn"].rsplit("/", 1)[1]
    return f"{prefix}AWSDynamoDB/{export_id}/"


# ---------------------------------------------------------------------------
# Round trips and the layout
# ---------------------------------------------------------------------------


def test_export_layout_is_aws(dynamodb, make_table, bucket):
    # The folder and the manifests as AWS writes them (S3DataExport.Output and
    # observed exports): checksums, item counts, keys, the summary's members.
    table = source_table(make_table, dynamodb)
    arn = table_arn(dynamodb, table)
    first, final = export(dynamodb, bucket, table)
    assert first["ExportStatus"] == "IN_PROGRESS"
    assert first["ClientToken"]
    assert first["ExportFormat"] == "DYNAMODB_JSON"
    # ExportType is newer than Debian's boto3, which drops it: read it raw.
    status, raw = raw_call(dynamodb, "DescribeExport", {"ExportArn": first["ExportArn"]})
    assert status == 200 and "ExportType" not in raw["ExportDescription"]
    status, raw = raw_call(dynamodb, "ExportTableToPointInTime", {
        "TableArn": arn, "S3Bucket": bucket.name, "ExportType": "FULL_EXPORT"})
    assert status == 200 and raw["ExportDescription"]["ExportType"] == "FULL_EXPORT"
    assert re.fullmatch(re.escape(arn) + r"/export/\d{14}-[0-9a-f]{8}", first["ExportArn"])
    assert final["ExportStatus"] == "COMPLETED"
    assert final["ItemCount"] == len(every_type_items())
    assert final["BilledSizeBytes"] > 0
    assert final["EndTime"] >= final["StartTime"]
    assert final["TableArn"] == arn and final["S3Bucket"] == bucket.name

    base = export_folder(bucket, final)
    assert final["ExportManifest"] == base + "manifest-summary.json"
    keys = bucket.keys(base)
    top = {k[len(base):] for k in keys if "/" not in k[len(base):]}
    assert top == {"_started", "manifest-files.json", "manifest-files.md5",
                   "manifest-summary.json", "manifest-summary.md5"}
    data_keys = [k for k in keys if k.startswith(base + "data/")]
    assert data_keys and all(k.endswith(".json.gz") for k in data_keys)
    for name in ("manifest-files", "manifest-summary"):
        body = bucket.get(f"{base}{name}.json")
        assert bucket.get(f"{base}{name}.md5").strip() == md5_base64(body).encode()

    listed, lines = set(), []
    for line in bucket.get(base + "manifest-files.json").decode().splitlines():
        entry = json.loads(line)
        data = bucket.get(entry["dataFileS3Key"])
        assert entry["md5Checksum"] == md5_base64(data)
        assert entry["etag"] == hashlib.md5(data).hexdigest()
        file_lines = gzip.decompress(data).decode().splitlines()
        assert entry["itemCount"] == len(file_lines)
        listed.add(entry["dataFileS3Key"])
        lines += file_lines
    assert listed == set(data_keys)
    exported = [json.loads(line) for line in lines]
    assert all(list(e) == ["Item"] for e in exported)
    expected = sorted(json.dumps(json.loads(json_lines([i])), sort_keys=True)
                      for i in scan_all(dynamodb, table))
    # Sets come back in any order: compare after sorting them.
    def norm(e):
        for v in e["Item"].values():
            for kind in ("SS", "NS", "BS"):
                if kind in v:
                    v[kind].sort()
        return json.dumps(e, sort_keys=True)
    assert sorted(map(norm, exported)) == sorted(norm(json.loads(x)) for x in expected)

    summary = json.loads(bucket.get(base + "manifest-summary.json"))
    assert summary["version"] == "2020-06-30"
    assert summary["exportArn"] == final["ExportArn"]
    assert summary["tableArn"] == arn
    assert summary["s3Bucket"] == bucket.name
    assert summary["s3Prefix"] is None
    assert summary["manifestFilesS3Key"] == base + "manifest-files.json"
    assert summary["itemCount"] == len(every_type_items())
    assert summary["outputFormat"] == "DYNAMODB_JSON"
    for member in ("startTime", "endTime", "exportTime", "tableId", "s3SseAlgorithm",
                   "s3SseKmsKeyId", "billedSizeBytes"):
        assert member in summary


@pytest.mark.parametrize("fmt", ["DYNAMODB_JSON", "ION"])
def test_round_trip_into_a_table_with_a_gsi(dynamodb, make_table, bucket, cleanup, fmt):
    # Every value type survives export -> import (ImportTable reads what
    # ExportTableToPointInTime writes, in both of its formats), and a GSI given in
    # TableCreationParameters is built from the imported items.
    table = source_table(make_table, dynamodb)
    _, final = export(dynamodb, bucket, table, ExportFormat=fmt)
    assert final["ExportStatus"] == "COMPLETED" and final["ExportFormat"] == fmt
    base = export_folder(bucket, final)
    ext = ".json.gz" if fmt == "DYNAMODB_JSON" else ".ion.gz"
    assert all(k.endswith(ext) for k in bucket.keys(base + "data/"))

    name = unique_table_name()
    params = {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": KEYS["KeySchema"],
        "AttributeDefinitions": KEYS["AttributeDefinitions"] + [
            {"AttributeName": "g", "AttributeType": "S"}],
        "GlobalSecondaryIndexes": [{
            "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                                              {"AttributeName": "c", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}],
    }
    first, done = run_import(dynamodb, cleanup, S3BucketSource={
        "S3Bucket": bucket.name, "S3KeyPrefix": base + "data/"}, InputFormat=fmt,
        InputCompressionType="GZIP", TableCreationParameters=params)
    assert first["ImportStatus"] == "IN_PROGRESS"
    assert first["ProcessedItemCount"] == first["ImportedItemCount"] == first["ErrorCount"] == 0
    assert "EndTime" not in first
    assert done["ImportStatus"] == "COMPLETED", done
    count = len(every_type_items())
    assert done["ProcessedItemCount"] == done["ImportedItemCount"] == count
    assert done["ErrorCount"] == 0
    assert done["TableCreationParameters"]["GlobalSecondaryIndexes"][0]["IndexName"] == "by_g"
    assert same_items(scan_all(dynamodb, name), scan_all(dynamodb, table))
    desc = wait_active(dynamodb, name)
    assert desc["ItemCount"] == count
    assert desc["TableId"] == done["TableId"] and desc["TableArn"] == done["TableArn"]
    assert [g["IndexName"] for g in desc["GlobalSecondaryIndexes"]] == ["by_g"]
    got = dynamodb.query(TableName=name, IndexName="by_g",
                         KeyConditionExpression="g = :g",
                         ExpressionAttributeValues={":g": {"S": "group-a"}})["Items"]
    want = [i for i in scan_all(dynamodb, table) if i.get("g") == {"S": "group-a"}]
    assert same_items(got, want)


def test_export_with_prefix(dynamodb, make_table, bucket):
    # S3Prefix puts the export under <prefix>/AWSDynamoDB/...; every key of the
    # manifests is relative to the bucket.
    table = source_table(make_table, dynamodb, items=every_type_items()[:3])
    prefix = f"dir-{uuid.uuid4().hex[:8]}/sub"
    _, final = export(dynamodb, bucket, table, S3Prefix=prefix)
    assert final["S3Prefix"] == prefix
    base = export_folder(bucket, final, prefix + "/")
    assert final["ExportManifest"] == base + "manifest-summary.json"
    summary = json.loads(bucket.get(base + "manifest-summary.json"))
    assert summary["s3Prefix"] == prefix
    assert summary["manifestFilesS3Key"] == base + "manifest-files.json"
    for line in bucket.get(base + "manifest-files.json").decode().splitlines():
        assert json.loads(line)["dataFileS3Key"].startswith(base + "data/")


def test_import_an_export_written_by_aws(dynamodb, bucket, cleanup):
    # A hand-written copy of an AWS export (two data files, manifests, md5s)
    # imports through the export's data/ prefix.
    items = every_type_items()
    files = aws_export_files(items, prefix="exports/")
    for key, data in files.items():
        bucket.put(key, data)
    name = unique_table_name()
    _, done = run_import(dynamodb, cleanup, **import_args(
        bucket, "exports/AWSDynamoDB/01700000000000-1a2b3c4d/data/", name,
        InputCompressionType="GZIP"))
    assert done["ImportStatus"] == "COMPLETED", done
    assert done["ImportedItemCount"] == len(items) and done["ErrorCount"] == 0
    assert same_items(scan_all(dynamodb, name), items)


# ---------------------------------------------------------------------------
# CSV and ION
# ---------------------------------------------------------------------------


def test_import_csv_with_header_row(dynamodb, bucket, cleanup):
    # CSV: the first line names the columns; key attributes take the type the
    # table declares, every other value is a string; an empty field is no
    # attribute; quoted fields may hold the delimiter, quotes and newlines.
    prefix = f"csv-{uuid.uuid4().hex[:8]}/"
    bucket.put(prefix + "a.csv", b'p,c,name,note\r\nk1,1,Ann,"a, ""quoted""\nnote"\n'
                                 b'k2,2.50,Bob,\n')
    name = unique_table_name()
    first, done = run_import(dynamodb, cleanup, **import_args(bucket, prefix, name,
                                                              InputFormat="CSV"))
    assert done["ImportStatus"] == "COMPLETED", done
    assert done["ImportedItemCount"] == 2
    assert done["InputFormatOptions"] == {"Csv": {"Delimiter": ","}}
    assert same_items(scan_all(dynamodb, name), [
        {"p": {"S": "k1"}, "c": {"N": "1"}, "name": {"S": "Ann"},
         "note": {"S": 'a, "quoted"\nnote'}},
        {"p": {"S": "k2"}, "c": {"N": "2.5"}, "name": {"S": "Bob"}},
    ])


def test_import_csv_with_header_list_and_delimiter(dynamodb, bucket, cleanup):
    # HeaderList names the columns (no header line is read) and Delimiter
    # replaces the comma; the files may be gzip'd.
    prefix = f"csv-{uuid.uuid4().hex[:8]}/"
    bucket.put(prefix + "a.csv.gz", gzip.compress(b"k1;7;x\nk2;8;y\n"))
    bucket.put(prefix + "b.csv.gz", gzip.compress(b"k3;9;z\n"))
    name = unique_table_name()
    _, done = run_import(dynamodb, cleanup, **import_args(
        bucket, prefix, name, InputFormat="CSV", InputCompressionType="GZIP",
        InputFormatOptions={"Csv": {"Delimiter": ";", "HeaderList": ["p", "c", "v"]}}))
    assert done["ImportStatus"] == "COMPLETED", done
    assert done["InputFormatOptions"]["Csv"]["Delimiter"] == ";"
    assert same_items(scan_all(dynamodb, name), [
        {"p": {"S": f"k{i}"}, "c": {"N": str(6 + i)}, "v": {"S": v}}
        for i, v in ((1, "x"), (2, "y"), (3, "z"))])


def test_import_ion_written_by_hand(dynamodb, bucket, cleanup):
    # Amazon Ion text as the developer guide maps it: decimals for N, blobs for
    # B, annotated lists for sets, structs for M.
    prefix = f"ion-{uuid.uuid4().hex[:8]}/"
    blob = base64.b64encode(b"\x00\xff").decode()
    bucket.put(prefix + "items.ion", (
        '$ion_1_0 {Item:{p:"a",c:1.,s:"x",b:{{%s}},t:true,z:null,'
        'ss:$dynamodb_SS::["q","r"],ns:$dynamodb_NS::[1.,25d-1],l:[1.,"two"],'
        'm:{k:"v"}}}\n'
        '$ion_1_0 {Item:{p:"b",c:6d2}}\n' % blob).encode())
    name = unique_table_name()
    _, done = run_import(dynamodb, cleanup, **import_args(bucket, prefix, name,
                                                          InputFormat="ION"))
    assert done["ImportStatus"] == "COMPLETED", done
    assert same_items(scan_all(dynamodb, name), [
        {"p": {"S": "a"}, "c": {"N": "1"}, "s": {"S": "x"}, "b": {"B": b"\x00\xff"},
         "t": {"BOOL": True}, "z": {"NULL": True}, "ss": {"SS": ["q", "r"]},
         "ns": {"NS": ["1", "2.5"]}, "l": {"L": [{"N": "1"}, {"S": "two"}]},
         "m": {"M": {"k": {"S": "v"}}}},
        {"p": {"S": "b"}, "c": {"N": "600"}},
    ])


# ---------------------------------------------------------------------------
# Counters and failures
# ---------------------------------------------------------------------------


def test_import_bad_lines_fail_the_import_and_keep_the_rest(dynamodb, bucket, cleanup):
    # The first line of an object that is no item of the table ends that object
    # and counts one error; the import ends FAILED (ItemValidationError) with
    # the good items in its table. Blank lines are neither items nor errors.
    prefix = f"bad-{uuid.uuid4().hex[:8]}/"
    good = [{"p": {"S": "good"}, "c": {"N": str(i)}} for i in range(3)]
    bucket.put(prefix + "0-good.json", json_lines(good) + b"\n   \n")
    bad = ['{"Item": ', '{"NotAnItem": {"p": {"S": "x"}, "c": {"N": "1"}}}',
           '{"Item": {"c": {"N": "1"}}}', '{"Item": {"p": {"S": "x"}, "c": {"S": "1"}}}',
           '{"Item": {"p": {"S": "x"}, "c": {"N": "1"}, "": {"S": "v"}}}']
    for i, line in enumerate(bad):
        bucket.put(f"{prefix}{i + 1}-bad.json", line.encode() + b"\n")
    # Two bad lines in one object: one error, and the line after them unread.
    bucket.put(prefix + "9-mixed.json", json_lines(
        [{"p": {"S": "kept"}, "c": {"N": "1"}}]) + b"{oops\n{oops\n" + json_lines(
        [{"p": {"S": "never"}, "c": {"N": "1"}}]))
    name = unique_table_name()
    _, done = run_import(dynamodb, cleanup, **import_args(bucket, prefix, name))
    assert done["ImportStatus"] == "FAILED"
    assert done["FailureCode"] == "ItemValidationError"
    assert done["FailureMessage"]
    assert done["ErrorCount"] == len(bad) + 1
    assert done["ImportedItemCount"] == len(good) + 1
    assert done["ProcessedItemCount"] == done["ImportedItemCount"] + done["ErrorCount"]
    assert same_items(scan_all(dynamodb, name), good + [{"p": {"S": "kept"}, "c": {"N": "1"}}])


def test_import_counts_writes_and_uncompressed_bytes(dynamodb, bucket, cleanup):
    # Duplicate keys overwrite each other and still count as imported items;
    # ProcessedSizeBytes counts the bytes after decompression.
    items = [{"p": {"S": "dup"}, "c": {"N": "1"}, "v": {"S": str(i)}} for i in range(3)]
    body = json_lines(items)
    prefix = f"dup-{uuid.uuid4().hex[:8]}/"
    bucket.put(prefix + "plain/a.json", body)
    bucket.put(prefix + "gz/a.json.gz", gzip.compress(body))
    plain, gz = unique_table_name(), unique_table_name()
    _, a = run_import(dynamodb, cleanup, **import_args(bucket, prefix + "plain/", plain))
    _, b = run_import(dynamodb, cleanup, **import_args(bucket, prefix + "gz/", gz,
                                                       InputCompressionType="GZIP"))
    for done in (a, b):
        assert done["ImportStatus"] == "COMPLETED", done
        assert done["ProcessedItemCount"] == done["ImportedItemCount"] == 3
        assert done["ProcessedSizeBytes"] == len(body)
    assert a["InputCompressionType"] == "NONE"  # the default
    assert len(scan_all(dynamodb, plain)) == 1


def test_import_empty_prefix_completes_with_an_empty_table(dynamodb, bucket, cleanup):
    name = unique_table_name()
    _, done = run_import(dynamodb, cleanup, **import_args(
        bucket, f"nothing-{uuid.uuid4().hex}/", name))
    assert done["ImportStatus"] == "COMPLETED"
    assert done["ProcessedItemCount"] == done["ImportedItemCount"] == done["ErrorCount"] == 0
    assert "ProcessedSizeBytes" not in done and "FailureCode" not in done
    assert wait_active(dynamodb, name)["ItemCount"] == 0


def test_missing_bucket_fails_export_and_import(dynamodb, make_table, cleanup):
    # Both calls accept a bucket that does not exist, then FAILED with
    # S3NoSuchBucket; the import leaves no table.
    table = source_table(make_table, dynamodb, items=[])
    missing = f"no-such-bucket-{uuid.uuid4().hex}"
    _, final = export(dynamodb, type("B", (), {"name": missing}), table)
    assert final["ExportStatus"] == "FAILED"
    assert final["FailureCode"] == "S3NoSuchBucket"
    assert "bucket does not exist" in final["FailureMessage"]
    name = unique_table_name()
    _, done = run_import(dynamodb, cleanup, **import_args(
        type("B", (), {"name": missing}), "x/", name))
    assert done["ImportStatus"] == "FAILED" and done["FailureCode"] == "S3NoSuchBucket"
    assert done["ProcessedItemCount"] == done["ImportedItemCount"] == done["ErrorCount"] == 0
    assert "ProcessedSizeBytes" not in done
    err = client_error(dynamodb.describe_table, TableName=name)
    assert err.response["Error"]["Code"] == "ResourceNotFoundException"


# ---------------------------------------------------------------------------
# Validation and idempotency
# ---------------------------------------------------------------------------


def error_of(callable_, **kwargs):
    e = client_error(callable_, **kwargs).response["Error"]
    return e["Code"], e.get("Message", "")


def test_export_errors(dynamodb, make_table, bucket, region):
    table = make_table(("p", "S"), ("c", "N"))
    arn = table_arn(dynamodb, table)
    ex = dynamodb.export_table_to_point_in_time
    # PITR must be on first.
    code, _ = error_of(ex, TableArn=arn, S3Bucket=bucket.name)
    assert code == "PointInTimeRecoveryUnavailableException"
    enable_pitr(dynamodb, table)
    # An ARN of no table, and a string that is no ARN.
    code, msg = error_of(ex, TableArn=arn[:-4] + "gone", S3Bucket=bucket.name)
    assert code == "TableNotFoundException" and "not found" in msg
    code, msg = error_of(ex, TableArn="QWERTY", S3Bucket=bucket.name)
    assert code == "ValidationException" and re.search("[tT]ableArn", msg)
    # ExportTime outside the PITR window: before it was enabled, in the future.
    for when in (1, time.time() + 3600):
        code, _ = error_of(ex, TableArn=arn, S3Bucket=bucket.name, ExportTime=when)
        assert code == "InvalidExportTimeException"
    for when in (-1e300, 1e300):  # beyond what boto3 can send
        status, data = raw_call(dynamodb, "ExportTableToPointInTime", {
            "TableArn": arn, "S3Bucket": bucket.name, "ExportTime": when})
        assert status == 400 and data["__type"].endswith("InvalidExportTimeException")
    # Shape: the bucket name pattern, the enums, ClientToken's pattern.
    code, msg = error_of(ex, TableArn=arn, S3Bucket="-nope!")
    assert code == "ValidationException" and "s3Bucket" in msg
    code, msg = error_of(ex, TableArn=arn, S3Bucket=bucket.name, ExportFormat="CSV")
    assert code == "ValidationException"
    assert msg == ("1 validation error detected: Value 'CSV' at 'exportFormat' failed to satisfy "
                   "constraint: Member must satisfy enum value set: [DYNAMODB_JSON, ION]")
    code, msg = error_of(ex, TableArn=arn, S3Bucket=bucket.name, ClientToken="a$b")
    assert code == "ValidationException" and "clientToken" in msg
    code, msg = error_of(ex, TableArn=arn, S3Bucket=bucket.name, S3BucketOwner="12345")
    assert code == "ValidationException" and "s3BucketOwner" in msg
    status, data = raw_call(dynamodb, "ExportTableToPointInTime", {
        "TableArn": arn, "S3Bucket": bucket.name, "ExportType": "DELTA"})
    assert status == 400 and data["__type"].endswith("ValidationException")
    assert "exportType" in data["message"]


def test_export_client_token(dynamodb, make_table, bucket):
    # The same token and request answer the same export; the same token with
    # another parameter is ExportConflictException.
    table = source_table(make_table, dynamodb, items=[])
    arn = table_arn(dynamodb, table)
    token = uuid.uuid4().hex
    a = dynamodb.export_table_to_point_in_time(TableArn=arn, S3Bucket=bucket.name,
                                               ClientToken=token)["ExportDescription"]
    b = dynamodb.export_table_to_point_in_time(TableArn=arn, S3Bucket=bucket.name,
                                               ClientToken=token)["ExportDescription"]
    assert a["ExportArn"] == b["ExportArn"] and b["ClientToken"] == token
    for other in ({"ExportFormat": "ION"}, {"S3Prefix": "elsewhere"},
                  {"S3SseAlgorithm": "KMS"}):
        code, msg = error_of(dynamodb.export_table_to_point_in_time, TableArn=arn,
                             S3Bucket=bucket.name, ClientToken=token, **other)
        assert code == "ExportConflictException" and "Duplicate request detected" in msg
    # Without a token every call is a new export.
    c = dynamodb.export_table_to_point_in_time(TableArn=arn, S3Bucket=bucket.name)
    d = dynamodb.export_table_to_point_in_time(TableArn=arn, S3Bucket=bucket.name)
    assert c["ExportDescription"]["ExportArn"] != d["ExportDescription"]["ExportArn"]


def test_import_errors(dynamodb, make_table, bucket, cleanup):
    existing = make_table(("p", "S"), ("c", "N"))
    imp = dynamodb.import_table
    # The table must not exist.
    code, msg = error_of(imp, **import_args(bucket, "x/", existing))
    assert (code, msg) == ("ResourceInUseException", f"Table already exists: {existing}")
    name = unique_table_name()
    cleanup(name)
    code, msg = error_of(imp, **import_args(bucket, "x/", name, InputFormat="XML"))
    assert code == "ValidationException"
    assert msg == ("1 validation error detected: Value 'XML' at 'inputFormat' failed to satisfy "
                   "constraint: Member must satisfy enum value set: [DYNAMODB_JSON, ION, CSV]")
    code, msg = error_of(imp, **import_args(bucket, "x/", name, InputCompressionType="BZIP2"))
    assert code == "ValidationException" and "inputCompressionType" in msg
    code, msg = error_of(imp, **import_args(bucket, "x/", name, InputFormatOptions={
        "Csv": {"Delimiter": ","}}))
    assert code == "ValidationException" and re.search("[Ii]nputFormatOptions", msg)
    code, msg = error_of(imp, **import_args(type("B", (), {"name": "-nope!"}), "x/", name))
    assert code == "ValidationException" and re.search("[sS]3Bucket", msg)
    code, msg = error_of(imp, **import_args(bucket, "x/", name, ClientToken="$"))
    assert code == "ValidationException" and "clientToken" in msg
    # TableCreationParameters are checked as CreateTable checks a table.
    bad = import_args(bucket, "x/", name)
    bad["TableCreationParameters"]["AttributeDefinitions"] = [
        {"AttributeName": "other", "AttributeType": "S"}]
    code, _ = error_of(imp, **bad)
    assert code == "ValidationException"
    bad = import_args(bucket, "x/", "no spaces allowed")
    code, msg = error_of(imp, **bad)
    assert code == "ValidationException"
    assert msg == ("1 validation error detected: Value 'no spaces allowed' at "
                   "'tableCreationParameters.tableName' failed to satisfy constraint: Member "
                   "must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
    # The S3 bucket owner is an account id; a CSV delimiter one of , ; : | tab space.
    bad = import_args(bucket, "x/", name)
    bad["S3BucketSource"]["S3BucketOwner"] = "owner"
    code, msg = error_of(imp, **bad)
    assert code == "ValidationException" and "s3BucketOwner" in msg
    code, msg = error_of(imp, **import_args(bucket, "x/", name, InputFormat="CSV",
                                            InputFormatOptions={"Csv": {"Delimiter": "#"}}))
    assert code == "ValidationException" and "delimiter" in msg
    # boto3 checks a header's length itself: send it raw.
    status, data = raw_call(dynamodb, "ImportTable", import_args(
        bucket, "x/", name, InputFormat="CSV", ClientToken="t",
        InputFormatOptions={"Csv": {"HeaderList": ["p", ""]}}))
    assert status == 400 and data["__type"].endswith("ValidationException")
    assert "headerList" in data["message"]
    # Nothing was created by a refused request.
    assert client_error(dynamodb.describe_table, TableName=name).response[
        "Error"]["Code"] == "ResourceNotFoundException"


def test_import_client_token(dynamodb, bucket, cleanup):
    # A finished import's table exists, so a replay is ResourceInUseException;
    # the same token for another table is ImportConflictException.
    token = uuid.uuid4().hex
    name = unique_table_name()
    args = import_args(bucket, f"t-{uuid.uuid4().hex}/", name, ClientToken=token)
    first, done = run_import(dynamodb, cleanup, **args)
    assert first["ClientToken"] == token and done["ImportStatus"] == "COMPLETED"
    code, msg = error_of(dynamodb.import_table, **args)
    assert (code, msg) == ("ResourceInUseException", f"Table already exists: {name}")
    other = unique_table_name()
    cleanup(other)
    code, msg = error_of(dynamodb.import_table, **import_args(
        bucket, "t/", other, ClientToken=token))
    assert code == "ImportConflictException" and "Duplicate request detected" in msg


def test_client_token_is_required_by_import(dynamodb, bucket):
    # SDKs always fill ClientToken in; the service refuses a request without one.
    args = import_args(bucket, "x/", unique_table_name())
    status, data = raw_call(dynamodb, "ImportTable", args)
    assert status == 400 and data["__type"].endswith("ValidationException")
    assert "clientToken" in data["message"]


# ---------------------------------------------------------------------------
# Describe and list
# ---------------------------------------------------------------------------


def test_describe_unknown_and_malformed_arns(dynamodb, make_table):
    arn = table_arn(dynamodb, make_table())
    code, _ = error_of(dynamodb.describe_export,
                       ExportArn=f"{arn}/export/01700000000000-0badf00d")
    assert code == "ExportNotFoundException"
    code, _ = error_of(dynamodb.describe_import,
                       ImportArn=f"{arn}/import/01700000000000-0badf00d")
    assert code == "ImportNotFoundException"
    code, msg = error_of(dynamodb.describe_export, ExportArn=arn + "/not-an-export-arn")
    assert code == "ValidationException" and "Invalid Export ARN" in msg
    code, msg = error_of(dynamodb.describe_import, ImportArn=arn + "/not-an-import-arn")
    assert code == "ValidationException" and re.search("[Ii]mport.*ARN", msg)


def test_list_exports_pages(dynamodb, make_table, bucket):
    table = source_table(make_table, dynamodb, items=[])
    arn = table_arn(dynamodb, table)
    assert dynamodb.list_exports(TableArn=arn)["ExportSummaries"] == []
    started = [dynamodb.export_table_to_point_in_time(
        TableArn=arn, S3Bucket=bucket.name)["ExportDescription"]["ExportArn"] for _ in range(3)]
    seen, token = [], None
    while True:
        page = dynamodb.list_exports(TableArn=arn, MaxResults=2,
                                     **({"NextToken": token} if token else {}))
        assert len(page["ExportSummaries"]) <= 2
        for s in page["ExportSummaries"]:
            assert s["ExportStatus"] == "COMPLETED"
            seen.append(s["ExportArn"])
        token = page.get("NextToken")
        if not token:
            break
    assert seen == started[::-1]  # newest first, as AWS lists them
    # ExportType is newer than Debian's boto3, which drops it: read it raw.
    status, data = raw_call(dynamodb, "ListExports", {"TableArn": arn})
    assert status == 200
    for s in data["ExportSummaries"]:
        assert set(s) == {"ExportArn", "ExportStatus", "ExportType"}
        assert s["ExportType"] == "FULL_EXPORT"
    everything = dynamodb.list_exports()["ExportSummaries"]
    assert set(started) <= {s["ExportArn"] for s in everything}
    code, msg = error_of(dynamodb.list_exports, NextToken="0123456789abcdef" * 16)
    assert code == "ValidationException" and "ListExports" in msg
    code, _ = error_of(dynamodb.list_exports, MaxResults=26)
    assert code == "ValidationException"


def test_list_imports_pages(dynamodb, bucket, cleanup):
    prefix = f"few-{uuid.uuid4().hex}/"
    bucket.put(prefix + "a.json", json_lines([{"p": {"S": "a"}, "c": {"N": "1"}}]))
    arns = {}
    for _ in range(2):
        name = unique_table_name()
        first, _ = run_import(dynamodb, cleanup, **import_args(bucket, prefix, name))
        arns[first["ImportArn"]] = first["TableArn"]
    one = dynamodb.list_imports(PageSize=1)
    assert len(one["ImportSummaryList"]) == 1 and "NextToken" in one
    seen, token = [], None
    while True:
        page = dynamodb.list_imports(PageSize=1, **({"NextToken": token} if token else {}))
        seen += [s["ImportArn"] for s in page["ImportSummaryList"]]
        token = page.get("NextToken")
        if not token:
            break
    assert len(seen) == len(set(seen)) and set(arns) <= set(seen)
    for import_arn, arn in arns.items():
        summaries = dynamodb.list_imports(TableArn=arn)["ImportSummaryList"]
        assert [s["ImportArn"] for s in summaries] == [import_arn]
        allowed = {"ImportArn", "ImportStatus", "TableArn", "S3BucketSource", "InputFormat",
                   "StartTime", "EndTime", "CloudWatchLogGroupArn"}
        assert set(summaries[0]) <= allowed
        assert summaries[0]["ImportStatus"] == "COMPLETED"
    code, _ = error_of(dynamodb.list_imports, NextToken="0" * 112)
    assert code == "ValidationException"
    code, _ = error_of(dynamodb.list_imports, PageSize=26)
    assert code == "ValidationException"


def exported_items(bucket, final):
    """The Item of every line of a finished full export, through its manifests."""
    base = export_folder(bucket, final)
    items = []
    for entry in bucket.get(base + "manifest-files.json").decode().splitlines():
        entry = json.loads(entry)
        lines = gzip.decompress(bucket.get(entry["dataFileS3Key"])).decode().splitlines()
        assert entry["itemCount"] == len(lines)
        items += [json.loads(line)["Item"] for line in lines]
    return items


def filtered_export(dynamodb, bucket, table, spec):
    """Starts an export with FilterSpecification spec (raw: newer than Debian's
    boto3) and returns (the raw answer's description, the finished one)."""
    status, data = raw_call(dynamodb, "ExportTableToPointInTime", {
        "TableArn": table_arn(dynamodb, table), "S3Bucket": bucket.name,
        "FilterSpecification": spec})
    assert status == 200, data
    arn = data["ExportDescription"]["ExportArn"]
    wait_export(dynamodb, arn)
    status, final = raw_call(dynamodb, "DescribeExport", {"ExportArn": arn})
    assert status == 200, final
    return data["ExportDescription"], final["ExportDescription"]


FILTER_ITEMS = [{"p": {"S": p}, "c": {"N": str(c)}, "x": {"S": x}, "n": {"N": str(10 * c)}}
                for p, c, x in (("a", 1, "red"), ("a", 2, "blue"), ("a", 3, "red"),
                                ("a", 4, "red"), ("b", 1, "red"), ("b", 2, "blue"))]


def keys_of(items):
    return sorted((i["p"]["S"], int(i["c"]["N"])) for i in items)


def test_filtered_export_with_a_filter_expression(dynamodb, make_table, bucket):
    # "Filtering a table export" (developer guide): only the items that match
    # are exported; without a key condition the filter may name key
    # attributes. ExportDescription echoes the FilterSpecification.
    table = source_table(make_table, dynamodb, FILTER_ITEMS)
    spec = {"FilterExpression": "#x = :red AND c >= :two",
            "ExpressionAttributeNames": {"#x": "x"},
            "ExpressionAttributeValues": {":red": {"S": "red"}, ":two": {"N": "2"}}}
    first, final = filtered_export(dynamodb, bucket, table, spec)
    assert first["FilterSpecification"] == spec == final["FilterSpecification"]
    assert final["ExportStatus"] == "COMPLETED"
    items = exported_items(bucket, final)
    assert keys_of(items) == [("a", 3), ("a", 4)]
    assert final["ItemCount"] == 2
    assert all(set(i) == {"p", "c", "x", "n"} for i in items)
    # A ClientToken retry answers its export; with another filter it conflicts.
    body = {"TableArn": table_arn(dynamodb, table), "S3Bucket": bucket.name,
            "ClientToken": final["ClientToken"], "FilterSpecification": spec}
    status, data = raw_call(dynamodb, "ExportTableToPointInTime", body)
    assert status == 200 and data["ExportDescription"]["ExportArn"] == final["ExportArn"], data
    status, data = raw_call(dynamodb, "ExportTableToPointInTime", {
        **body, "FilterSpecification": {**spec, "FilterExpression": "#x = :red OR c < :two"}})
    assert status == 400 and data["__type"].endswith("ExportConflictException"), data


def test_filtered_export_with_a_key_condition_and_a_projection(dynamodb, make_table, bucket):
    # A key condition selects one partition (and a sort key range) with
    # Query's rules; the filter then sees non-key attributes only; the
    # projection names the attributes written.
    table = source_table(make_table, dynamodb, FILTER_ITEMS)
    spec = {"KeyConditionExpression": "p = :a AND c BETWEEN :lo AND :hi",
            "FilterExpression": "x = :red",
            "ProjectionExpression": "c, n",
            "ExpressionAttributeValues": {":a": {"S": "a"}, ":lo": {"N": "1"},
                                          ":hi": {"N": "3"}, ":red": {"S": "red"}}}
    _, final = filtered_export(dynamodb, bucket, table, spec)
    items = exported_items(bucket, final)
    assert sorted(items, key=lambda i: int(i["c"]["N"])) == [
        {"c": {"N": "1"}, "n": {"N": "10"}}, {"c": {"N": "3"}, "n": {"N": "30"}}]
    _, final = filtered_export(dynamodb, bucket, table, {
        "KeyConditionExpression": "p = :b", "ExpressionAttributeValues": {":b": {"S": "b"}}})
    assert keys_of(exported_items(bucket, final)) == [("b", 1), ("b", 2)]


def test_filtered_export_errors(dynamodb, make_table, bucket):
    # The expressions are checked as Query checks them, with its texts, and a
    # refused request starts no export. A wrong JSON type is the shape's
    # SerializationException, as for any member.
    table = source_table(make_table, dynamodb, FILTER_ITEMS)
    arn = table_arn(dynamodb, table)
    for spec, message in (
            ({"KeyConditionExpression": "x = :v", "ExpressionAttributeValues": {":v": {"S": "a"}}},
             "Query condition missed key schema element: p"),
            ({"KeyConditionExpression": "p > :v", "ExpressionAttributeValues": {":v": {"S": "a"}}},
             "Query key condition not supported"),
            ({"KeyConditionExpression": "p = :v", "FilterExpression": "c > :v",
              "ExpressionAttributeValues": {":v": {"S": "a"}}},
             "Filter Expression can only contain non-primary key attributes: Primary key "
             "attribute: c"),
            ({"KeyConditionExpression": "p = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}},
             "One or more parameter values were invalid: Condition parameter type does not "
             "match schema type"),
            ({"FilterExpression": "x = :v", "ExpressionAttributeValues": {
                ":v": {"S": "a"}, ":w": {"S": "b"}}},
             "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}"),
            ({"FilterExpression": "x = :v"},
             "Invalid FilterExpression: An expression attribute value used in expression is "
             "not defined; attribute value: :v"),
            ({"ProjectionExpression": "#nope"},
             "Invalid ProjectionExpression: An expression attribute name used in the document "
             "path is not defined; attribute name: #nope")):
        status, data = raw_call(dynamodb, "ExportTableToPointInTime", {
            "TableArn": arn, "S3Bucket": bucket.name, "FilterSpecification": spec})
        assert (status, data["__type"].split("#")[-1], data["message"]) == (
            400, "ValidationException", message), spec
    status, data = raw_call(dynamodb, "ExportTableToPointInTime", {
        "TableArn": arn, "S3Bucket": bucket.name, "FilterSpecification": {"FilterExpression": 5}})
    assert status == 400 and data["__type"].endswith("SerializationException"), data
    status, data = raw_call(dynamodb, "ListExports", {"TableArn": arn})
    assert status == 200 and data["ExportSummaries"] == []
