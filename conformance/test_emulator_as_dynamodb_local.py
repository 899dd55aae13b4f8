# SPDX-License-Identifier: MIT
"""--as-dynamodb-local and the `java` name: DynamoDB Local's signs of life (emulator only).

Tools written for amazon/dynamodb-local wait for DynamoDB Local's own answers
(docs/testcontainers.md): Testcontainers' .NET module for GET / answering 400,
recipes for its "Initializing DynamoDB Local ..." line; testcontainers-go runs
the image's `java` with DynamoDB Local's launcher arguments. DynamoDB itself
answers GET / with 200 "healthy: <host>" (test_http_edge.py), which stays the
default.
"""

import http.client
import os
import subprocess
import time

from conftest import make_client

LOCAL_UNSIGNED = ('{"__type":"com.amazonaws.dynamodb.v20120810#MissingAuthenticationToken",'
                  '"message":"Request must contain either a valid (registered) AWS access key ID '
                  'or X.509 certificate."}')


def _get_root(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", "/")
    answer = conn.getresponse()
    body = answer.read().decode()
    conn.close()
    return answer.status, body


def test_get_root_answers_as_dynamodb_local(start_server):
    srv = start_server("--as-dynamodb-local")
    assert _get_root(srv.port) == (400, LOCAL_UNSIGNED)
    # Only GET / changes: the API answers as before.
    ddb = make_client(srv.endpoint_url)
    assert "TableNames" in ddb.list_tables()


def test_banner_on_stdout_once_listening(start_server):
    srv = start_server("--as-dynamodb-local", "--shared-db")
    stdout = open(srv.stderr_path[: -len(".stderr")] + ".stdout").read()
    assert stdout.startswith("Initializing DynamoDB Local with the following configuration:\n")
    assert f"Port:\t{srv.port}\n" in stdout
    assert "InMemory:\ttrue\n" in stdout and "SharedDb:\ttrue\n" in stdout


def test_no_banner_and_aws_health_line_by_default(emulator):
    status, body = _get_root(emulator.port)
    assert status == 200 and body.startswith("healthy: ")


def test_health_check_accepts_dynamodb_locals_answer(start_server, emulator):
    srv = start_server("--as-dynamodb-local")
    done = subprocess.run([emulator.binary, "--health-check", "--port", str(srv.port)],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr


def test_run_as_java_takes_dynamodb_locals_defaults(emulator, tmp_path):
    """The image's `java` link: DynamoDB Local's launcher line, every interface."""
    java = tmp_path / "java"
    os.symlink(os.path.abspath(emulator.binary), java)
    proc = subprocess.Popen([str(java), "-Djava.library.path=./DynamoDBLocal_lib", "-jar",
                             "DynamoDBLocal.jar", "-sharedDb", "-port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert first == "Initializing DynamoDB Local with the following configuration:\n"
        port = int(proc.stdout.readline().split("\t")[1])
        deadline = time.monotonic() + 10
        while True:
            line = proc.stderr.readline()
            if "listening on" in line or time.monotonic() > deadline:
                break
        assert f"listening on http://0.0.0.0:{port}" in line
        assert _get_root(port) == (400, LOCAL_UNSIGNED)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
