# SPDX-License-Identifier: MIT
"""PartiQL through the AWS CLI (Debian's awscli, v2), as the developer guide's
examples run it: `aws dynamodb execute-statement --statement ...`,
`batch-execute-statement` and `execute-transaction` (ql-reference.html,
"Using the AWS CLI"). The CLI prints the answer as JSON on success and
"An error occurred (<Code>) when calling the <Operation> operation[ (retries)]: <text>"
with exit status 254 on a service error.
"""

import json
import os
import shutil
import subprocess

import pytest

from conftest import ACCESS_KEY, REGION, SECRET_KEY


def aws_cli():
    for path in ("/usr/bin/aws", shutil.which("aws")):
        if path and os.access(path, os.X_OK):
            return path
    pytest.fail("the AWS CLI (Debian package awscli) is not installed")


def cli(endpoint_url, *args):
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY,
               AWS_DEFAULT_REGION=REGION, AWS_PAGER="", AWS_MAX_ATTEMPTS="1")
    env.pop("AWS_PROFILE", None)
    proc = subprocess.run([aws_cli(), "dynamodb", *args, "--endpoint-url", endpoint_url,
                           "--output", "json"],
                          capture_output=True, text=True, env=env, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def test_execute_statement_with_the_cli(endpoint_url, make_table):
    table = make_table(("Artist", "S"), ("SongTitle", "S"))
    rc, out, err = cli(endpoint_url, "execute-statement", "--statement",
                       f"INSERT INTO \"{table}\" VALUE {{'Artist': 'Acme Band', "
                       "'SongTitle': 'PartiQL Rocks', 'Awards': 3}")
    assert rc == 0, err
    assert json.loads(out).get("Items", []) == []
    rc, out, err = cli(endpoint_url, "execute-statement", "--statement",
                       f"SELECT * FROM \"{table}\" WHERE Artist = ?",
                       "--parameters", '[{"S": "Acme Band"}]')
    assert rc == 0, err
    assert json.loads(out)["Items"] == [{"Artist": {"S": "Acme Band"},
                                         "SongTitle": {"S": "PartiQL Rocks"},
                                         "Awards": {"N": "3"}}]
    rc, out, err = cli(endpoint_url, "execute-statement", "--statement",
                       f"INSERT INTO \"{table}\" VALUE {{'Artist': 'Acme Band', "
                       "'SongTitle': 'PartiQL Rocks'}")
    assert rc == 254
    assert "An error occurred (DuplicateItemException) when calling the ExecuteStatement" in err
    assert err.rstrip().endswith(": Duplicate primary key exists in table")


def test_batch_and_transaction_with_the_cli(endpoint_url, make_table):
    table = make_table(("pk", "S"))
    statements = [{"Statement": f"INSERT INTO \"{table}\" VALUE {{'pk': ?}}",
                   "Parameters": [{"S": f"k{i}"}]} for i in range(3)]
    rc, out, err = cli(endpoint_url, "batch-execute-statement", "--statements",
                       json.dumps(statements))
    assert rc == 0, err
    assert [r.get("Error") for r in json.loads(out)["Responses"]] == [None, None, None]
    rc, out, err = cli(endpoint_url, "execute-transaction", "--transact-statements", json.dumps([
        {"Statement": f"UPDATE \"{table}\" SET n = 1 WHERE pk = 'k0'"},
        {"Statement": f"DELETE FROM \"{table}\" WHERE pk = 'k1'"}]))
    assert rc == 0, err
    rc, out, err = cli(endpoint_url, "execute-statement", "--statement",
                       f"SELECT pk, n FROM \"{table}\"")
    assert rc == 0, err
    assert sorted(json.dumps(i, sort_keys=True) for i in json.loads(out)["Items"]) == sorted([
        json.dumps({"pk": {"S": "k0"}, "n": {"N": "1"}}, sort_keys=True),
        json.dumps({"pk": {"S": "k2"}}, sort_keys=True)])
