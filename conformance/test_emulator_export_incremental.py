# SPDX-License-Identifier: MIT
"""ExportTableToPointInTime with ExportType INCREMENTAL_EXPORT, with the
engine's clock moved through the control interface (POST /ddbemu/clock) so
that the 15-minute minimum span needs no waiting: emulator only.

What DynamoDB does, and how we know:
  - the request (API reference, ExportTableToPointInTime and
    IncrementalExportSpecification): ExportFromTime inclusive, ExportToTime
    exclusive (default: the latest time with data, observed to be the time of
    the request), ExportViewType NEW_AND_OLD_IMAGES (default) or NEW_IMAGE;
  - the errors, recorded from AWS: the ExportType/specification couplings and
    a missing ExportFromTime are ValidationExceptions ("Invalid Request: ...");
    every span violation is InvalidExportTimeException, the from time before
    the recovery window first ("... cannot be less than the table creation
    time : <from time>"), then the to time after now, then a span under 15
    minutes. The 24-hour limit is documented; its text is not recorded;
  - the output (developer guide, S3DataExport.Output "incremental export";
    observed summaries): manifest-summary.json version 2023-08-01 with
    exportFromTime, exportToTime, exportTime (= the to time), outputView and
    exportType; the data files under the shared AWSDynamoDB/data/ folder;
    one line per changed item, compacted to its final state:
    {"Metadata":{"WriteTimestampMicros":{"N":..}},"Keys":..,"NewImage":..,
    "OldImage":..}: NewImage absent for a deleted item, OldImage only in
    NEW_AND_OLD_IMAGES and only when the item existed before the span; an item
    inserted and deleted inside the span is not written;
  - ExportDescription: IncrementalExportSpecification with all three members
    and no ExportTime (observed), BilledSizeBytes at least 10,000,000
    (observed for an empty span); ListExports says INCREMENTAL_EXPORT;
  - ImportTable reads DYNAMODB_JSON lines of {"Item": ...} only, so an
    incremental export's data does not import (each file is an error).
Debian's boto3 drops ExportType and IncrementalExportSpecification: every
export here is sent raw.
"""

import glob
import gzip
import json
import os
import uuid

import pytest

from util import clock_advance, clock_now, raw_call

pytestmark = pytest.mark.usefixtures("emulator")

MINUTE_MS = 60 * 1000
HOUR_MS = 60 * MINUTE_MS


@pytest.fixture
def env(start_server, tmp_path):
    """A server of its own (its clock moves), with bucket 'bucket' under --s3-dir."""
    s3 = tmp_path / "s3"
    (s3 / "bucket").mkdir(parents=True)
    srv = start_server("--s3-dir", str(s3))
    return srv, srv.client(), s3 / "bucket"


def create(client, name, pitr=True):
    client.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "N"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}])
    if pitr:
        client.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
    return client.describe_table(TableName=name)["Table"]["TableArn"]


def key(pk):
    return {"pk": {"S": pk}, "sk": {"N": "1"}}


def put(client, table, pk, v):
    client.put_item(TableName=table, Item={**key(pk), "v": {"N": str(v)}})


def set_v(client, table, pk, v):
    client.update_item(TableName=table, Key=key(pk), UpdateExpression="SET v = :v",
                       ExpressionAttributeValues={":v": {"N": str(v)}})


def delete(client, table, pk):
    client.delete_item(TableName=table, Key=key(pk))


def export(client, arn, spec, **extra):
    body = {"TableArn": arn, "S3Bucket": "bucket", "ExportType": "INCREMENTAL_EXPORT",
            "IncrementalExportSpecification": spec, **extra}
    return raw_call(client, "ExportTableToPointInTime", body)


def export_ok(client, arn, spec, **extra):
    status, data = export(client, arn, spec, **extra)
    assert status == 200, data
    return data["ExportDescription"]


def read_export(bucket, desc):
    """(summary, [lines]) of a finished export, through its manifests."""
    summary = json.loads((bucket / desc["ExportManifest"]).read_bytes())
    lines = []
    for entry in (bucket / summary["manifestFilesS3Key"]).read_text().splitlines():
        entry = json.loads(entry)
        data = (bucket / entry["dataFileS3Key"]).read_bytes()
        file_lines = gzip.decompress(data).decode().splitlines()
        assert entry["itemCount"] == len(file_lines)
        lines += [json.loads(x) for x in file_lines]
    return summary, lines


def by_pk(lines):
    return {line["Keys"]["pk"]["S"]: line for line in lines}


def image(pk, v):
    return {**key(pk), "v": {"N": str(v)}}


def make_changes(srv, client, table):
    """Changes before, inside and after a span; returns (from, to, times) with
    times[pk] = (before, after) the last change of pk inside the span."""
    for pk in ("upd", "twice", "gone", "same", "later", "still"):
        put(client, table, pk, 1)
    clock_advance(srv, MINUTE_MS)
    start = clock_now(srv)
    clock_advance(srv, MINUTE_MS)
    times = {}

    def timed(pk, change):
        before = clock_now(srv)
        change()
        times[pk] = (before, clock_now(srv))
        clock_advance(srv, MINUTE_MS)

    timed("new", lambda: put(client, table, "new", 1))
    timed("upd", lambda: set_v(client, table, "upd", 2))
    timed("gone", lambda: delete(client, table, "gone"))
    timed("twice", lambda: set_v(client, table, "twice", 2))
    timed("twice", lambda: set_v(client, table, "twice", 3))
    timed("temp", lambda: put(client, table, "temp", 1))
    timed("temp", lambda: delete(client, table, "temp"))
    timed("same", lambda: set_v(client, table, "same", 5))
    timed("same", lambda: set_v(client, table, "same", 1))
    clock_advance(srv, 15 * MINUTE_MS)
    end = clock_now(srv)
    clock_advance(srv, MINUTE_MS)
    # After the span: absent from it, and "upd"'s new image stays v=2.
    set_v(client, table, "later", 9)
    set_v(client, table, "upd", 7)
    clock_advance(srv, MINUTE_MS)
    return start, end, times


def test_new_and_old_images_item_by_item(env):
    srv, client, bucket = env
    arn = create(client, "orders")
    start, end, times = make_changes(srv, client, "orders")
    first = export_ok(client, arn, {"ExportFromTime": start / 1000, "ExportToTime": end / 1000})
    assert first["ExportStatus"] == "IN_PROGRESS"
    assert first["ExportType"] == "INCREMENTAL_EXPORT"
    assert "ExportTime" not in first
    assert first["IncrementalExportSpecification"] == {
        "ExportFromTime": start / 1000, "ExportToTime": end / 1000,
        "ExportViewType": "NEW_AND_OLD_IMAGES"}
    status, data = raw_call(client, "DescribeExport", {"ExportArn": first["ExportArn"]})
    assert status == 200, data
    final = data["ExportDescription"]
    assert final["ExportStatus"] == "COMPLETED", final
    assert final["ItemCount"] == 4
    assert final["BilledSizeBytes"] == 10000000  # AWS's 10 MB minimum
    assert final["IncrementalExportSpecification"] == first["IncrementalExportSpecification"]
    assert "ExportTime" not in final

    summary, lines = read_export(bucket, final)
    assert all(list(line)[:2] == ["Metadata", "Keys"] for line in lines)
    got = by_pk(lines)
    # An item created and deleted inside the span, one put back as it was,
    # and items changed only outside it are not written.
    assert set(got) == {"new", "upd", "gone", "twice"}
    assert got["new"] == {**stamp(got["new"]), "Keys": key("new"), "NewImage": image("new", 1)}
    assert got["upd"] == {**stamp(got["upd"]), "Keys": key("upd"), "NewImage": image("upd", 2),
                          "OldImage": image("upd", 1)}
    assert got["gone"] == {**stamp(got["gone"]), "Keys": key("gone"),
                           "OldImage": image("gone", 1)}
    assert got["twice"] == {**stamp(got["twice"]), "Keys": key("twice"),
                            "NewImage": image("twice", 3), "OldImage": image("twice", 1)}
    # The write time of the item's last change in the span, in microseconds.
    for pk, line in got.items():
        micros = int(line["Metadata"]["WriteTimestampMicros"]["N"])
        before, after = times[pk]
        assert before * 1000 <= micros <= after * 1000, (pk, micros, times[pk])

    # The summary manifest of an incremental export.
    export_id = final["ExportArn"].rsplit("/", 1)[1]
    assert final["ExportManifest"] == f"AWSDynamoDB/{export_id}/manifest-summary.json"
    assert summary["version"] == "2023-08-01"
    assert summary["exportType"] == "INCREMENTAL_EXPORT"
    assert summary["outputView"] == "NEW_AND_OLD_IMAGES"
    assert summary["outputFormat"] == "DYNAMODB_JSON"
    assert summary["exportFromTime"] == iso(start) and summary["exportToTime"] == iso(end)
    assert summary["exportTime"] == iso(end)
    assert summary["itemCount"] == 4 and summary["billedSizeBytes"] == 10000000
    assert summary["manifestFilesS3Key"] == f"AWSDynamoDB/{export_id}/manifest-files.json"
    assert list(summary)[:6] == ["version", "exportArn", "startTime", "endTime", "tableArn",
                                 "tableId"]
    assert list(summary)[-3:] == ["outputFormat", "outputView", "exportType"]
    # The export's own folder holds its manifests; its data is in the shared data/.
    folder = bucket / "AWSDynamoDB" / export_id
    assert sorted(os.listdir(folder)) == ["_started", "manifest-files.json", "manifest-files.md5",
                                          "manifest-summary.json", "manifest-summary.md5"]
    data_files = glob.glob(str(bucket / "AWSDynamoDB" / "data" / "*.json.gz"))
    assert len(data_files) == 1


def stamp(line):
    return {"Metadata": line["Metadata"]}


def iso(ms):
    import datetime
    t = datetime.datetime.fromtimestamp(ms // 1000, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (ms % 1000)


def test_new_image_view(env):
    srv, client, bucket = env
    arn = create(client, "orders")
    start, end, _ = make_changes(srv, client, "orders")
    desc = export_ok(client, arn, {"ExportFromTime": start / 1000, "ExportToTime": end / 1000,
                                   "ExportViewType": "NEW_IMAGE"}, S3Prefix="inc/")
    assert desc["IncrementalExportSpecification"]["ExportViewType"] == "NEW_IMAGE"
    _, data = raw_call(client, "DescribeExport", {"ExportArn": desc["ExportArn"]})
    summary, lines = read_export(bucket, data["ExportDescription"])
    assert summary["outputView"] == "NEW_IMAGE" and summary["s3Prefix"] == "inc/"
    assert data["ExportDescription"]["ExportManifest"].startswith("inc/AWSDynamoDB/")
    assert glob.glob(str(bucket / "inc" / "AWSDynamoDB" / "data" / "*.json.gz"))
    got = by_pk(lines)
    assert set(got) == {"new", "upd", "gone", "twice"}
    # No OldImage in this view; a deleted item is its keys only.
    assert got["gone"] == {**stamp(got["gone"]), "Keys": key("gone")}
    assert got["upd"] == {**stamp(got["upd"]), "Keys": key("upd"), "NewImage": image("upd", 2)}
    assert got["twice"]["NewImage"] == image("twice", 3)
    assert all("OldImage" not in line for line in lines)


def test_span_bounds_and_default_to_time(env):
    # ExportFromTime is inclusive and ExportToTime exclusive, to the
    # millisecond; without ExportToTime the span ends at the request.
    srv, client, bucket = env
    arn = create(client, "orders")
    clock_advance(srv, MINUTE_MS)
    start = clock_now(srv)
    clock_advance(srv, 20 * MINUTE_MS)
    put(client, "orders", "a", 1)
    clock_advance(srv, 21 * MINUTE_MS)
    desc = export_ok(client, arn, {"ExportFromTime": start / 1000})
    to = desc["IncrementalExportSpecification"]["ExportToTime"]
    assert abs(to * 1000 - clock_now(srv)) < 5000
    _, data = raw_call(client, "DescribeExport", {"ExportArn": desc["ExportArn"]})
    _, lines = read_export(bucket, data["ExportDescription"])
    assert len(lines) == 1
    written = int(lines[0]["Metadata"]["WriteTimestampMicros"]["N"]) // 1000
    for frm, to, count in ((written, written + 20 * MINUTE_MS, 1),
                           (written + 1, written + 20 * MINUTE_MS, 0),
                           (written - 20 * MINUTE_MS + 1, written, 0),
                           (written - 20 * MINUTE_MS + 2, written + 1, 1)):
        assert frm >= start  # the window's start is tested in test_span_errors
        desc = export_ok(client, arn, {"ExportFromTime": frm / 1000, "ExportToTime": to / 1000})
        _, data = raw_call(client, "DescribeExport", {"ExportArn": desc["ExportArn"]})
        assert data["ExportDescription"]["ItemCount"] == count, (frm, to)


def test_ion_lines(env):
    srv, client, bucket = env
    arn = create(client, "orders")
    start, end, _ = make_changes(srv, client, "orders")
    desc = export_ok(client, arn, {"ExportFromTime": start / 1000, "ExportToTime": end / 1000},
                     ExportFormat="ION")
    _, data = raw_call(client, "DescribeExport", {"ExportArn": desc["ExportArn"]})
    final = data["ExportDescription"]
    assert final["ExportStatus"] == "COMPLETED" and final["ItemCount"] == 4
    files = glob.glob(str(bucket / "AWSDynamoDB" / "data" / "*.ion.gz"))
    assert len(files) == 1
    text = gzip.decompress(open(files[0], "rb").read()).decode()
    lines = text.splitlines()
    assert len(lines) == 4
    gone = [x for x in lines if '"gone"' in x][0]
    assert gone.startswith("$ion_1_0 {Metadata:{WriteTimestampMicros:")
    assert "Keys:{" in gone and "OldImage:{" in gone and "NewImage" not in gone


def test_describe_and_list(env):
    srv, client, bucket = env
    arn = create(client, "orders")
    clock_advance(srv, MINUTE_MS)
    start = clock_now(srv)
    clock_advance(srv, 20 * MINUTE_MS)
    inc = export_ok(client, arn, {"ExportFromTime": start / 1000})["ExportArn"]
    status, data = raw_call(client, "ExportTableToPointInTime",
                            {"TableArn": arn, "S3Bucket": "bucket"})
    assert status == 200, data
    full = data["ExportDescription"]["ExportArn"]
    status, data = raw_call(client, "ListExports", {"TableArn": arn})
    assert status == 200
    assert [(s["ExportArn"], s["ExportType"]) for s in data["ExportSummaries"]] == [
        (full, "FULL_EXPORT"), (inc, "INCREMENTAL_EXPORT")]
    _, data = raw_call(client, "DescribeExport", {"ExportArn": inc})
    d = data["ExportDescription"]
    assert d["ExportType"] == "INCREMENTAL_EXPORT" and d["ItemCount"] == 0
    assert d["IncrementalExportSpecification"]["ExportFromTime"] == start / 1000
    _, data = raw_call(client, "DescribeExport", {"ExportArn": full})
    assert "IncrementalExportSpecification" not in data["ExportDescription"]


def test_client_token(env):
    # The same token and request answer the same export; another span or view
    # with the same token is ExportConflictException.
    srv, client, _ = env
    arn = create(client, "orders")
    clock_advance(srv, MINUTE_MS)
    start = clock_now(srv)
    clock_advance(srv, 20 * MINUTE_MS)
    spec = {"ExportFromTime": start / 1000, "ExportToTime": (start + 16 * MINUTE_MS) / 1000}
    token = uuid.uuid4().hex
    a = export_ok(client, arn, spec, ClientToken=token)
    b = export_ok(client, arn, spec, ClientToken=token)
    assert a["ExportArn"] == b["ExportArn"]
    for other in ({**spec, "ExportViewType": "NEW_IMAGE"},
                  {**spec, "ExportFromTime": (start + MINUTE_MS) / 1000}):
        status, data = export(client, arn, other, ClientToken=token)
        assert status == 400 and data["__type"].endswith("#ExportConflictException"), data


def test_import_refuses_an_incremental_export(env):
    # ImportTable reads {"Item": ...} lines: each data file of an incremental
    # export is an error and the import FAILS with ItemValidationError.
    srv, client, bucket = env
    arn = create(client, "orders")
    start, end, _ = make_changes(srv, client, "orders")
    export_ok(client, arn, {"ExportFromTime": start / 1000, "ExportToTime": end / 1000})
    status, data = raw_call(client, "ImportTable", {
        "ClientToken": uuid.uuid4().hex,
        "S3BucketSource": {"S3Bucket": "bucket", "S3KeyPrefix": "AWSDynamoDB/data/"},
        "InputFormat": "DYNAMODB_JSON", "InputCompressionType": "GZIP",
        "TableCreationParameters": {
            "TableName": "copy", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "N"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}]}})
    assert status == 200, data
    _, data = raw_call(client, "DescribeImport",
                       {"ImportArn": data["ImportTableDescription"]["ImportArn"]})
    d = data["ImportTableDescription"]
    assert d["ImportStatus"] == "FAILED" and d["FailureCode"] == "ItemValidationError"
    assert d["ErrorCount"] == 1 and d["ImportedItemCount"] == 0


# ---------------------------------------------------------------------------
# Errors, in AWS's words where recorded
# ---------------------------------------------------------------------------


def error(status_data):
    status, data = status_data
    assert status == 400, data
    return data["__type"].split("#")[1], data.get("message", data.get("Message"))


def test_coupling_errors(env):
    srv, client, _ = env
    arn = create(client, "orders")
    clock_advance(srv, 20 * MINUTE_MS)
    spec = {"ExportFromTime": (clock_now(srv) - 16 * MINUTE_MS) / 1000}

    def call(**body):
        return raw_call(client, "ExportTableToPointInTime",
                        {"TableArn": arn, "S3Bucket": "bucket", **body})

    assert error(call(IncrementalExportSpecification=spec)) == (
        "ValidationException", "Invalid Request: Export Type expected to be Incremental Export "
        "when incremental export specification is provided")
    assert error(call(ExportType="FULL_EXPORT", IncrementalExportSpecification=spec)) == (
        "ValidationException", "Invalid Request: When Export Type is Full Export , Incremental "
        "Export Specification should not be provided")
    assert error(call(ExportType="INCREMENTAL_EXPORT")) == (
        "ValidationException", "Invalid Request: Incremental Export Specification expected when "
        "export type is set as Incremental Export")
    for bad in ({}, {"ExportViewType": "NEW_IMAGE"},
                {"ExportToTime": (clock_now(srv) - MINUTE_MS) / 1000}):
        assert error(call(ExportType="INCREMENTAL_EXPORT",
                          IncrementalExportSpecification=bad)) == (
            "ValidationException",
            "Invalid Request: ExportFromTime must be provided in IncrementalExportSpecification")
    code, msg = error(call(ExportType="INCREMENTAL_EXPORT", IncrementalExportSpecification={
        **spec, "ExportViewType": "NEW_IMAGES"}))
    assert code == "ValidationException"
    assert msg.startswith("1 validation error detected: Value 'NEW_IMAGES' at "
                          "'incrementalExportSpecification.exportViewType' failed to satisfy "
                          "constraint: Member must")
    # ExportTime is no member of an incremental export (AWS's text not recorded).
    code, msg = error(call(ExportType="INCREMENTAL_EXPORT", IncrementalExportSpecification=spec,
                           ExportTime=(clock_now(srv) - 10 * MINUTE_MS) / 1000))
    assert code == "ValidationException" and "ExportTime" in msg
    # Nothing was started by a refused request.
    _, data = raw_call(client, "ListExports", {"TableArn": arn})
    assert data["ExportSummaries"] == []


def test_span_errors(env):
    srv, client, _ = env
    arn = create(client, "fresh", pitr=False)
    clock_advance(srv, MINUTE_MS)
    t0 = clock_now(srv)

    def call(frm, to=None):
        spec = {"ExportFromTime": frm / 1000}
        if to is not None:
            spec["ExportToTime"] = to / 1000
        return export(client, arn, spec)

    def before_window(ms):
        return ("InvalidExportTimeException", "Incremental export period from time cannot be "
                f"less than the table creation time : {iso(ms)[:19]}Z")

    # Without point-in-time recovery there is no window (observed on AWS).
    clock_advance(srv, 30 * MINUTE_MS)
    assert error(call(t0, t0 + 20 * MINUTE_MS)) == before_window(t0)
    client.update_continuous_backups(TableName="fresh", PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    enabled = clock_now(srv)
    # Before recovery was turned on.
    assert error(call(enabled - MINUTE_MS, enabled + 20 * MINUTE_MS)) == before_window(
        enabled - MINUTE_MS)
    # A span shorter than 15 minutes, the default to time (now) included.
    clock_advance(srv, 2 * MINUTE_MS)
    short = ("InvalidExportTimeException",
             "Difference between export period from time and export period to time is less "
             "than 15 minutes")
    assert error(call(enabled + 1000)) == short
    clock_advance(srv, 30 * MINUTE_MS)
    assert error(call(enabled + 1000, enabled + 15 * MINUTE_MS)) == short
    # An inverted span.
    assert error(call(enabled + 20 * MINUTE_MS, enabled + 2 * MINUTE_MS)) == short
    # A to time in the future.
    future = clock_now(srv) + HOUR_MS
    assert error(call(enabled + 1000, future)) == (
        "InvalidExportTimeException", "Incremental export period to time cannot be greater "
        f"than the current time : {iso(future)[:19]}Z")
    # More than 24 hours (AWS's text not recorded).
    clock_advance(srv, 30 * HOUR_MS)
    code, msg = error(call(enabled + 1000, enabled + 1000 + 24 * HOUR_MS + 1))
    assert code == "InvalidExportTimeException" and "24 hours" in msg
    # 15 minutes and 24 hours exactly are accepted.
    export_ok(client, arn, {"ExportFromTime": (enabled + 1000) / 1000,
                            "ExportToTime": (enabled + 1000 + 15 * MINUTE_MS) / 1000})
    export_ok(client, arn, {"ExportFromTime": (enabled + 1000) / 1000,
                            "ExportToTime": (enabled + 1000 + 24 * HOUR_MS) / 1000})


def test_filtered_incremental_export(env):
    # "Filtered export works with both full exports and incremental exports.
    # For an incremental export, DynamoDB evaluates the filter against the
    # latest image of each changed item. For a deleted item, DynamoDB
    # evaluates the filter against the old image" (developer guide,
    # "Filtering a table export"). The projection applies to both images;
    # Keys stay whole.
    srv, client, bucket = env
    arn = create(client, "filtered")
    start, end, _ = make_changes(srv, client, "filtered")
    span = {"ExportFromTime": start / 1000, "ExportToTime": end / 1000}

    def lines_of(spec):
        desc = export_ok(client, arn, span, FilterSpecification=spec)
        assert desc["FilterSpecification"] == spec
        status, data = raw_call(client, "DescribeExport", {"ExportArn": desc["ExportArn"]})
        assert status == 200 and data["ExportDescription"]["ExportStatus"] == "COMPLETED", data
        final = data["ExportDescription"]
        assert final["FilterSpecification"] == spec
        _, lines = read_export(bucket, final)
        assert final["ItemCount"] == len(lines)
        return by_pk(lines)

    # "gone" is judged by its old image (v=1), "upd" and "twice" by their new ones.
    got = lines_of({"FilterExpression": "v = :one", "ExpressionAttributeValues": {
        ":one": {"N": "1"}}})
    assert set(got) == {"new", "gone"}
    assert got["gone"]["OldImage"] == image("gone", 1) and "NewImage" not in got["gone"]
    got = lines_of({"FilterExpression": "v >= :two", "ProjectionExpression": "v",
                    "ExpressionAttributeValues": {":two": {"N": "2"}}})
    assert set(got) == {"upd", "twice"}
    assert got["upd"] == {**stamp(got["upd"]), "Keys": key("upd"), "NewImage": {"v": {"N": "2"}},
                          "OldImage": {"v": {"N": "1"}}}
    got = lines_of({"KeyConditionExpression": "pk = :p AND sk = :one",
                    "ExpressionAttributeValues": {":p": {"S": "twice"}, ":one": {"N": "1"}}})
    assert set(got) == {"twice"}
    assert got["twice"]["NewImage"] == image("twice", 3)
