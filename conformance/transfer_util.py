# SPDX-License-Identifier: MIT
"""Helpers for the export and import tests: buckets, AWS's export layout, and
items of every type.

A bucket is a folder of the session server's --s3-dir against the emulator,
or a real S3 bucket (DDBEMU_S3_BUCKET, in the region of the tests) when the
suite runs against AWS; the tests read and write objects through the same
three calls either way.

aws_export_files() builds the files of a DYNAMODB_JSON export as the
developer guide (S3DataExport.Output) and real exports show them:
AWSDynamoDB/<export id>/ holding _started, data/<name>.json.gz of
{"Item": ...} lines, manifest-files.json (one JSON line per data file:
itemCount, md5Checksum = base64 MD5, etag = hex MD5, dataFileS3Key),
manifest-summary.json, and manifest-files.md5 / manifest-summary.md5 (each
manifest's MD5, base64).
"""

import base64
import gzip
import hashlib
import json
import os
import time
import uuid
from decimal import Decimal

import boto3
import pytest


class LocalBucket:
    """A bucket of the emulator: the folder <s3 dir>/<name>."""

    def __init__(self, s3_dir, name):
        self.name = name
        self.root = os.path.join(s3_dir, name)
        os.makedirs(self.root)

    def put(self, key, data):
        path = os.path.join(self.root, key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)

    def get(self, key):
        with open(os.path.join(self.root, key), "rb") as f:
            return f.read()

    def keys(self, prefix=""):
        found = []
        for folder, _, files in os.walk(self.root):
            for name in files:
                key = os.path.relpath(os.path.join(folder, name), self.root)
                if key.startswith(prefix):
                    found.append(key)
        return sorted(found)


class S3Bucket:
    """A real S3 bucket; every test works under its own random prefix."""

    def __init__(self, name, region):
        self.name = name
        self.s3 = boto3.client("s3", region_name=region)

    def put(self, key, data):
        self.s3.put_object(Bucket=self.name, Key=key, Body=data)

    def get(self, key):
        return self.s3.get_object(Bucket=self.name, Key=key)["Body"].read()

    def keys(self, prefix=""):
        found, token = [], None
        while True:
            args = {"Bucket": self.name, "Prefix": prefix}
            if token:
                args["ContinuationToken"] = token
            page = self.s3.list_objects_v2(**args)
            found += [o["Key"] for o in page.get("Contents", [])]
            token = page.get("NextContinuationToken")
            if not token:
                return sorted(found)


def make_bucket(server, s3_dir, region):
    """A fresh bucket for one test, or a skip when there is none to use."""
    if server is not None:
        return LocalBucket(s3_dir, f"bucket-{uuid.uuid4().hex[:12]}")
    if os.environ.get("DDBEMU_ENDPOINT") == "aws" and os.environ.get("DDBEMU_S3_BUCKET"):
        return S3Bucket(os.environ["DDBEMU_S3_BUCKET"], region)
    pytest.skip("needs a bucket: the emulator's --s3-dir, or DDBEMU_S3_BUCKET on AWS")


def md5_base64(data):
    return base64.b64encode(hashlib.md5(data).digest()).decode()


# ---------------------------------------------------------------------------
# Items
# ---------------------------------------------------------------------------


def every_type_items():
    """Items (low-level form, table keys p S / c N) holding every attribute
    type: binary, sets, nested maps and lists, 38-digit and extreme numbers."""
    items = [
        {
            "p": {"S": "all"}, "c": {"N": "1"},
            "s": {"S": 'zażółć 日本語 "q" \\ \n\t'},
            "empty": {"S": ""},
            "n": {"N": "-12.5"},
            "digits38": {"N": "12345678901234567890123456789012345678"},
            "tiny": {"N": "1E-130"},
            "huge": {"N": "9.9999999999999999999999999999999999999E+125"},
            "b": {"B": b"\x00\x01\xfe\xff"},
            "b_empty": {"B": b""},
            "yes": {"BOOL": True}, "no": {"BOOL": False}, "nothing": {"NULL": True},
            "ss": {"SS": ["a", "b", "c"]},
            "ns": {"NS": ["1", "-2.5", "12345678901234567890123456789012345678"]},
            "bs": {"BS": [b"\x00", b"\x01\x02"]},
            "l": {"L": [{"S": "x"}, {"N": "1"}, {"B": b"\xff"}, {"L": []}, {"M": {}},
                        {"SS": ["q"]}]},
            "m": {"M": {"k": {"M": {"deep": {"M": {"deeper": {"S": "v"}}}}},
                        "list": {"L": [{"NULL": True}, {"BOOL": False}]}}},
            "g": {"S": "group-a"},
        },
        {"p": {"S": "all"}, "c": {"N": "2"}, "g": {"S": "group-b"}, "Size": {"S": "reserved"}},
        {"p": {"S": "bare"}, "c": {"N": "-0.000001"}},
    ]
    for i in range(20):
        items.append({"p": {"S": f"bulk{i:02}"}, "c": {"N": str(i)},
                      "g": {"S": "group-a" if i % 2 else "group-b"}, "v": {"N": str(i * 1.5)}})
    return items


def put_items(client, table, items):
    for item in items:
        client.put_item(TableName=table, Item=item)


def canonical(value):
    """An attribute value (boto3 low-level form) as a hashable, order-free form:
    sets sorted, binary as bytes."""
    (kind, v), = value.items()
    if kind == "NS":  # numbers compare by value: "3.0" is "3"
        return (kind, tuple(sorted(Decimal(x) for x in v)))
    if kind == "N":
        return (kind, Decimal(v))
    if kind in ("SS", "BS"):
        return (kind, tuple(sorted(bytes(x) if kind == "BS" else x for x in v)))
    if kind == "L":
        return (kind, tuple(canonical(x) for x in v))
    if kind == "M":
        return (kind, tuple(sorted((k, canonical(x)) for k, x in v.items())))
    if kind == "B":
        return (kind, bytes(v))
    return (kind, v)


def canonical_item(item):
    return tuple(sorted((k, canonical(v)) for k, v in item.items()))


def same_items(a, b):
    return sorted(map(canonical_item, a)) == sorted(map(canonical_item, b))


def wire_json(value):
    """A boto3 low-level value as DynamoDB JSON (binary in base64)."""
    (kind, v), = value.items()
    if kind == "B":
        return {"B": base64.b64encode(bytes(v)).decode()}
    if kind == "BS":
        return {"BS": [base64.b64encode(bytes(x)).decode() for x in v]}
    if kind == "L":
        return {"L": [wire_json(x) for x in v]}
    if kind == "M":
        return {"M": {k: wire_json(x) for k, x in v.items()}}
    return {kind: v}


def json_lines(items):
    """DYNAMODB_JSON lines ({"Item": ...}) of items, as bytes."""
    return b"".join(json.dumps({"Item": {k: wire_json(v) for k, v in item.items()}},
                               separators=(",", ":")).encode() + b"\n" for item in items)


# ---------------------------------------------------------------------------
# AWS's export layout
# ---------------------------------------------------------------------------


def aws_export_files(items, export_id="01700000000000-1a2b3c4d", prefix="",
                     table_arn="arn:aws:dynamodb:us-east-1:123456789012:table/Source",
                     files=2):
    """{key: bytes} of a DYNAMODB_JSON export of items as AWS writes one: the
    items spread over `files` gzip'd data files (one of them may be empty, as
    in real exports), manifests and their .md5 files."""
    base = f"{prefix}AWSDynamoDB/{export_id}/"
    out = {base + "_started": b""}
    manifest_lines = []
    for f in range(files):
        chunk = items[f::files]
        name = f"{uuid.uuid4().hex[:26]}.json.gz"
        data = gzip.compress(json_lines(chunk))
        key = base + "data/" + name
        out[key] = data
        manifest_lines.append(json.dumps({
            "itemCount": len(chunk), "md5Checksum": md5_base64(data),
            "etag": hashlib.md5(data).hexdigest(), "dataFileS3Key": key}))
    manifest_files = ("\n".join(manifest_lines) + "\n").encode()
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    summary = json.dumps({
        "version": "2020-06-30", "exportArn": f"{table_arn}/export/{export_id}",
        "startTime": now, "endTime": now, "tableArn": table_arn,
        "tableId": "12345a12-abcd-123a-ab12-1234abc12345", "exportTime": now,
        "s3Bucket": "source-bucket", "s3Prefix": prefix or None, "s3SseAlgorithm": "AES256",
        "s3SseKmsKeyId": None, "manifestFilesS3Key": base + "manifest-files.json",
        "billedSizeBytes": 0, "itemCount": len(items), "outputFormat": "DYNAMODB_JSON"}).encode()
    out[base + "manifest-files.json"] = manifest_files
    out[base + "manifest-files.md5"] = md5_base64(manifest_files).encode()
    out[base + "manifest-summary.json"] = summary
    out[base + "manifest-summary.md5"] = md5_base64(summary).encode()
    return out
