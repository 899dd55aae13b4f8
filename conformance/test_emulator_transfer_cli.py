# SPDX-License-Identifier: MIT
"""`ddbemu export` and `ddbemu import`: a table from one running ddbemu into a
folder in AWS's export layout, and from such a folder (or from an export AWS
wrote) into a table of another running ddbemu, over HTTP.
"""

import gzip
import json
import os
import subprocess
import uuid

from conftest import ACCESS_KEY, REGION
from paging import scan_all
from transfer_util import (aws_export_files, every_type_items, json_lines, md5_base64,
                           put_items, same_items)

KEYS = {
    "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"},
                  {"AttributeName": "c", "KeyType": "RANGE"}],
    "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"},
                             {"AttributeName": "c", "AttributeType": "N"}],
}


def run(binary, *args, env_extra=None):
    env = dict(os.environ)
    env.pop("AWS_ACCESS_KEY_ID", None)
    env.pop("AWS_REGION", None)
    env.pop("AWS_DEFAULT_REGION", None)
    env.update(env_extra or {})
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=120, env=env)


def ns(*extra):
    """The namespace of the tests' clients."""
    return ["--access-key", ACCESS_KEY, "--region", REGION, *extra]


def definition_file(tmp_path, name, **extra):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"TableName": name, "BillingMode": "PAY_PER_REQUEST",
                                **KEYS, **extra}))
    return str(path)


def test_export_from_one_server_import_into_another(start_server, ddbemu_bin, tmp_path):
    source, target = start_server(), start_server()
    src, dst = source.client(), target.client()
    src.create_table(TableName="music", BillingMode="PAY_PER_REQUEST", **KEYS)
    items = every_type_items()
    put_items(src, "music", items)
    out = tmp_path / "snapshot"

    done = run(ddbemu_bin, "export", "--endpoint", source.endpoint_url, "--table", "music",
               "--out", str(out), *ns())
    assert done.returncode == 0, done.stderr
    assert f"{len(items)} items of music written" in done.stdout
    (export_id,) = os.listdir(out / "AWSDynamoDB")
    folder = out / "AWSDynamoDB" / export_id
    assert sorted(os.listdir(folder)) == ["_started", "data", "manifest-files.json",
                                          "manifest-files.md5", "manifest-summary.json",
                                          "manifest-summary.md5"]
    summary = json.loads((folder / "manifest-summary.json").read_text())
    assert summary["itemCount"] == len(items)
    assert summary["tableArn"] == src.describe_table(TableName="music")["Table"]["TableArn"]
    assert summary["exportArn"] == summary["tableArn"] + "/export/" + export_id
    assert (folder / "manifest-summary.md5").read_text() == md5_base64(
        (folder / "manifest-summary.json").read_bytes())

    # A GSI in the definition is built from the imported items.
    definition = definition_file(tmp_path, "copy", AttributeDefinitions=KEYS[
        "AttributeDefinitions"] + [{"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g", "KeySchema": [
            {"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}])
    done = run(ddbemu_bin, "import", "--endpoint", target.endpoint_url, "--in", str(out),
               "--table-definition", definition, *ns())
    assert done.returncode == 0, done.stderr
    assert f"{len(items)} items written" in done.stdout
    assert same_items(scan_all(dst, "copy"), scan_all(src, "music"))
    got = dst.query(TableName="copy", IndexName="by_g", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": {"S": "group-b"}})["Items"]
    assert same_items(got, [i for i in items if i.get("g") == {"S": "group-b"}])


def test_import_an_aws_export_and_other_files(start_server, ddbemu_bin, tmp_path):
    # An export AWS wrote (gzip'd DynamoDB JSON with its manifests), read from the
    # folder it was downloaded into; --table renames the definition's table, and
    # the environment's credentials choose the namespace.
    srv = start_server()
    items = every_type_items()
    for key, data in aws_export_files(items, files=3).items():
        path = tmp_path / "download" / key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    definition = definition_file(tmp_path, "unused")
    done = run(ddbemu_bin, "import", "--endpoint", srv.endpoint_url + "/", "--in",
               str(tmp_path / "download"), "--table-definition", definition, "--table", "seeded",
               env_extra={"AWS_ACCESS_KEY_ID": "ci", "AWS_DEFAULT_REGION": "eu-west-1"})
    assert done.returncode == 0, done.stderr
    client = srv.client(access_key="ci", region="eu-west-1")
    assert client.list_tables()["TableNames"] == ["seeded"]
    assert same_items(scan_all(client, "seeded"), items)

    # Plain, gzip'd and duplicate-keyed JSON lines in one folder: later lines win.
    folder = tmp_path / "lines"
    folder.mkdir()
    (folder / "a.json").write_bytes(json_lines(items[:5]))
    (folder / "b.json.gz").write_bytes(gzip.compress(json_lines(items[5:])))
    again = [dict(items[0], extra={"S": "second"})]
    (folder / "c.json").write_bytes(json_lines(again))
    done = run(ddbemu_bin, "import", "--endpoint", srv.endpoint_url, "--in", str(folder),
               "--table-definition", definition_file(tmp_path, "lines"), *ns())
    assert done.returncode == 0, done.stderr
    assert same_items(scan_all(srv.client(), "lines"), again + items[1:])


def test_import_csv_and_ion(start_server, ddbemu_bin, tmp_path):
    srv = start_server()
    csv = tmp_path / "csv"
    csv.mkdir()
    (csv / "rows.csv").write_text("p,c,v\nk1,1,one\nk2,2,two\n")
    done = run(ddbemu_bin, "import", "--endpoint", srv.endpoint_url, "--in", str(csv),
               "--table-definition", definition_file(tmp_path, "fromcsv"), "--format", "CSV",
               *ns())
    assert done.returncode == 0, done.stderr
    assert same_items(scan_all(srv.client(), "fromcsv"), [
        {"p": {"S": "k1"}, "c": {"N": "1"}, "v": {"S": "one"}},
        {"p": {"S": "k2"}, "c": {"N": "2"}, "v": {"S": "two"}}])
    ion = tmp_path / "ion"
    ion.mkdir()
    (ion / "items.ion").write_text('$ion_1_0 {Item:{p:"a",c:1.,l:[1.,"x"]}}\n')
    done = run(ddbemu_bin, "import", "--endpoint", srv.endpoint_url, "--in", str(ion),
               "--table-definition", definition_file(tmp_path, "fromion"), "--format", "ION",
               *ns())
    assert done.returncode == 0, done.stderr
    assert scan_all(srv.client(), "fromion") == [
        {"p": {"S": "a"}, "c": {"N": "1"}, "l": {"L": [{"N": "1"}, {"S": "x"}]}}]


def test_errors_are_clear_and_fail(start_server, ddbemu_bin, tmp_path):
    srv = start_server()
    client = srv.client()
    # Usage errors: status 2.
    done = run(ddbemu_bin, "export", "--table", "t", "--out", str(tmp_path))
    assert done.returncode == 2 and "--endpoint URL is required" in done.stderr
    done = run(ddbemu_bin, "export", "--endpoint", "https://example.com", "--table", "t",
               "--out", str(tmp_path))
    assert done.returncode == 2 and "http://HOST[:PORT]" in done.stderr
    done = run(ddbemu_bin, "import", "--endpoint", srv.endpoint_url, "--in", str(tmp_path))
    assert done.returncode == 2 and "--table-definition FILE" in done.stderr
    # Failures: status 1 and AWS's error.
    done = run(ddbemu_bin, "export", "--endpoint", srv.endpoint_url, "--table", "missing",
               "--out", str(tmp_path / "x"), *ns())
    assert done.returncode == 1
    assert "DescribeTable: ResourceNotFoundException" in done.stderr
    client.create_table(TableName="exists", BillingMode="PAY_PER_REQUEST", **KEYS)
    done = run(ddbemu_bin, "import", "--endpoint", srv.endpoint_url, "--in", str(tmp_path),
               "--table-definition", definition_file(tmp_path, "exists"), *ns())
    assert done.returncode == 1
    assert "CreateTable: ResourceInUseException: Table already exists: exists" in done.stderr
    (tmp_path / "bad.json").write_text("{not json")
    done = run(ddbemu_bin, "import", "--endpoint", srv.endpoint_url, "--in", str(tmp_path),
               "--table-definition", str(tmp_path / "bad.json"), *ns())
    assert done.returncode == 1 and "bad.json: line 1" in done.stderr
    # A file with a line that is no item: the others are written, status 1.
    folder = tmp_path / "bad-lines"
    folder.mkdir()
    (folder / "a.json").write_bytes(json_lines([{"p": {"S": "ok"}, "c": {"N": "1"}}]))
    (folder / "b.json").write_bytes(b'{"Item": {"p": {"S": "no range key"}}}\n')
    done = run(ddbemu_bin, "import", "--endpoint", srv.endpoint_url, "--in", str(folder),
               "--table-definition", definition_file(tmp_path, "partial"), *ns())
    assert done.returncode == 1
    assert "1 file(s) held a line that is no item" in done.stderr
    assert "(1 items written)" in done.stderr
    assert scan_all(client, "partial") == [{"p": {"S": "ok"}, "c": {"N": "1"}}]
    # Nothing listens there.
    port = srv.port
    srv.stop()
    done = run(ddbemu_bin, "export", "--endpoint", f"http://127.0.0.1:{port}", "--table", "t",
               "--out", str(tmp_path / "y"), *ns())
    assert done.returncode == 1 and "no answer from 127.0.0.1 port" in done.stderr


def test_many_items_span_batches(start_server, ddbemu_bin, tmp_path):
    # More items than one Scan page (1 MB) and than one BatchWriteItem (25).
    source, target = start_server(), start_server()
    src = source.client()
    src.create_table(TableName="big", BillingMode="PAY_PER_REQUEST", **KEYS)
    filler = "x" * 3000
    for start in range(0, 600, 25):
        src.batch_write_item(RequestItems={"big": [
            {"PutRequest": {"Item": {"p": {"S": f"k{i % 7}"}, "c": {"N": str(i)},
                                     "f": {"S": filler}}}} for i in range(start, start + 25)]})
    out = tmp_path / uuid.uuid4().hex
    done = run(ddbemu_bin, "export", "--endpoint", source.endpoint_url, "--table", "big",
               "--out", str(out), "--format", "ION", *ns())
    assert done.returncode == 0, done.stderr
    done = run(ddbemu_bin, "import", "--endpoint", target.endpoint_url, "--in", str(out),
               "--table-definition", definition_file(tmp_path, "big"), *ns())
    assert done.returncode == 0, done.stderr
    assert "600 items written" in done.stdout
    assert same_items(scan_all(target.client(), "big"), scan_all(src, "big"))
