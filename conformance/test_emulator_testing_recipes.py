# SPDX-License-Identifier: MIT
"""Emulator only: the recipes of docs/testing.md, run as written.

Each recipe is a fenced code block after a `<!-- recipe: NAME -->` line. The
Python ones build on each other (the first defines the client and the control
helper), so they run in order in one namespace against one ddbemu, with the
page's endpoint (http://localhost:8000) replaced by the test server's. The
shell one (the CI gate) runs under bash with `ddbemu` on PATH, a free port in
$PORT, and a stand-in for the user's test suite and rules file.
"""

import os
import pathlib
import re
import socket
import stat
import subprocess
import sys

import pytest

pytestmark = pytest.mark.usefixtures("emulator")

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "testing.md"
RECIPE = re.compile(r"<!-- recipe: ([\w-]+) -->\n```(\w+)\n(.*?)\n```", re.S)


def recipes():
    found = RECIPE.findall(DOC.read_text())
    assert found, "docs/testing.md has no recipes"
    return found


def test_every_python_recipe_runs_as_written(start_server):
    srv = start_server()
    names = []
    namespace = {"__name__": "recipe"}
    for name, language, code in recipes():
        if language != "python":
            continue
        names.append(name)
        code = code.replace('"http://localhost:8000"', repr(srv.endpoint_url))
        exec(compile(code, f"docs/testing.md recipe {name}", "exec"), namespace)
    assert names == ["retry", "batch", "seeded", "idempotency", "snapshot", "workers"]


SUITE = """#!{python}
import sys, urllib.request, boto3
url = sys.argv[1]
ddb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                   aws_access_key_id="local", aws_secret_access_key="local")
ddb.create_table(TableName="Orders", BillingMode="PAY_PER_REQUEST",
                 AttributeDefinitions=[{{"AttributeName": "pk", "AttributeType": "S"}},
                                       {{"AttributeName": "sk", "AttributeType": "S"}}],
                 KeySchema=[{{"AttributeName": "pk", "KeyType": "HASH"}},
                            {{"AttributeName": "sk", "KeyType": "RANGE"}}])
for first in range(0, 1500, 25):
    ddb.batch_write_item(RequestItems={{"Orders": [
        {{"PutRequest": {{"Item": {{"pk": {{"S": f"c{{i % 30}}"}}, "sk": {{"S": f"o{{i}}"}}}}}}}}
        for i in range(first, first + 25)]}})
urllib.request.urlopen(urllib.request.Request(url + "/ddbemu/insight/reset", data=b"{{}}",
                                              method="POST")).read()
if "{style}" == "scan":
    ddb.scan(TableName="Orders", FilterExpression="pk = :c",
             ExpressionAttributeValues={{":c": {{"S": "c7"}}}})
else:
    ddb.query(TableName="Orders", KeyConditionExpression="pk = :c",
              ExpressionAttributeValues={{":c": {{"S": "c7"}}}})
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("style, gate_exit", [("scan", 1), ("query", 0)])
def test_the_ci_gate_recipe_runs_as_written(ddbemu_bin, tmp_path, style, gate_exit):
    (name, language, code), = [r for r in recipes() if r[1] == "sh"]
    assert name == "ci-gate"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ddbemu").symlink_to(os.path.abspath(ddbemu_bin))
    suite = tmp_path / "run-my-tests.sh"
    suite.write_text(SUITE.format(python=sys.executable, style=style))
    suite.chmod(suite.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "design-rules.yaml").write_text("defaults:\n  scan_max_items: 1000\n")
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", PORT=str(free_port()))
    proc = subprocess.run(["bash", "-c", code], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == gate_exit, proc.stderr
    report = (tmp_path / "gate.md").read_text()
    if gate_exit:
        assert "| Orders | scan_max_items |" in report
        assert "`Scan` on table `Orders` with a filter on `pk`" in report
    else:
        assert report.startswith("## ddbemu design gate: passed")
