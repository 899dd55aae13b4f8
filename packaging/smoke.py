#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""packaging/smoke.py - the smoke test every release channel's verify runs
against the ddbemu it installed: create a table, put, get and query through
boto3, and (when it started the server) stop it.

    packaging/smoke.py [--version V] -- COMMAND [ARG...]
        starts COMMAND ARG... --port PORT (a free port on 127.0.0.1), waits
        until it answers, runs the test, stops it with SIGTERM and requires
        a clean exit (status 0). COMMAND can be a wrapper:
            -- qemu-aarch64-static dist/bin/ddbemu-0.1.0-linux-arm64
            -- chroot /var/cache/ddbemu-release/bookworm /usr/bin/ddbemu
        With --version V, `COMMAND ARG... --version` must name V first.
    packaging/smoke.py --endpoint http://127.0.0.1:PORT
        runs the test against a server that is already running (a channel's
        own API started it) and leaves it running.

Exit status 0 when every step passed; otherwise 1 with the step that failed
on stderr (and the server's own stderr, when this script started it). Uses
Debian's boto3 (/usr/bin/python3); the table's name and the access key are
fresh per run, so a shared server is not disturbed.
"""

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import boto3
from botocore.config import Config

START_SECONDS = 60  # an arm64 binary under qemu-user starts slowly


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def client(endpoint):
    return boto3.client(
        "dynamodb", endpoint_url=endpoint, region_name="us-east-1",
        aws_access_key_id="smoke" + uuid.uuid4().hex[:12], aws_secret_access_key="smoke",
        config=Config(retries={"max_attempts": 1}, connect_timeout=5, read_timeout=30))


def smoke(endpoint):
    """The test itself: raises AssertionError (or botocore's) on a failure."""
    ddb = client(endpoint)
    table = "smoke-" + uuid.uuid4().hex[:8]
    ddb.create_table(
        TableName=table, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "N"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}])
    ddb.get_waiter("table_exists").wait(TableName=table,
                                        WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    for sk in (1, 2, 3):
        ddb.put_item(TableName=table, Item={"pk": {"S": "user#1"}, "sk": {"N": str(sk)},
                                            "note": {"S": f"item {sk}"}})
    ddb.put_item(TableName=table, Item={"pk": {"S": "user#2"}, "sk": {"N": "1"}})
    got = ddb.get_item(TableName=table, Key={"pk": {"S": "user#1"}, "sk": {"N": "2"}},
                       ConsistentRead=True)
    assert got.get("Item", {}).get("note") == {"S": "item 2"}, f"GetItem: {got}"
    found = ddb.query(TableName=table, KeyConditionExpression="pk = :p AND sk >= :s",
                      ExpressionAttributeValues={":p": {"S": "user#1"}, ":s": {"N": "2"}},
                      ScanIndexForward=False)
    assert [i["sk"]["N"] for i in found["Items"]] == ["3", "2"], f"Query: {found}"
    assert table in ddb.list_tables()["TableNames"]
    ddb.delete_table(TableName=table)


def wait_until_answering(proc, endpoint, log):
    ddb = client(endpoint)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode} at start:\n"
                               + read(log))
        try:
            ddb.list_tables()
            return
        except Exception:  # not listening yet
            time.sleep(0.2)
    raise RuntimeError(f"the server did not answer within {START_SECONDS} s:\n" + read(log))


def read(path):
    with open(path, errors="replace") as f:
        return f.read()[-4000:]


def check_version(command, version):
    out = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    words = out.stdout.split()
    if out.returncode != 0 or words[:2] != ["ddbemu", version]:
        raise RuntimeError(f"--version: expected 'ddbemu {version} ...', got status "
                           f"{out.returncode}: {out.stdout!r} {out.stderr!r}")


def run_command(command):
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    with tempfile.NamedTemporaryFile(prefix="ddbemu-smoke-", suffix=".log",
                                     delete=False) as log_file:
        log = log_file.name
    with open(log, "w") as err:
        proc = subprocess.Popen([*command, "--port", str(port)], stdin=subprocess.DEVNULL,
                                stdout=err, stderr=err, start_new_session=True)
    try:
        wait_until_answering(proc, endpoint, log)
        smoke(endpoint)
    except BaseException:
        print(read(log), file=sys.stderr)
        raise
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise RuntimeError("the server did not stop within 30 s of SIGTERM")
    if proc.returncode != 0:
        raise RuntimeError(f"the server exited with status {proc.returncode} on SIGTERM:\n"
                           + read(log))
    os.unlink(log)
    return endpoint


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--endpoint", help="test a running server instead of starting one")
    ap.add_argument("--version", help="with a command: --version must name this version")
    ap.add_argument("command", nargs="*", help="the command that starts ddbemu (after --)")
    args = ap.parse_args()
    if bool(args.endpoint) == bool(args.command):
        ap.error("give either --endpoint URL or -- COMMAND")
    try:
        if args.endpoint:
            smoke(args.endpoint)
            where = args.endpoint
        else:
            if args.version:
                check_version(args.command, args.version)
            where = run_command(args.command)
    except Exception as e:  # the report is the point: say which step failed
        print(f"smoke: FAILED: {' '.join(args.command) or args.endpoint}: "
              f"{type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(f"smoke: passed ({' '.join(args.command) or where}: create table, put, get, query"
          f"{', stop' if args.command else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
