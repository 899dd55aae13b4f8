# SPDX-License-Identifier: MIT
"""The wheel's smoke test, run by packaging/python/verify with pytest in a
fresh virtual environment where only the wheel was installed: every server,
client and namespace here comes from the plugin's fixtures.

DDB_VERIFY_PHASE selects what the --ddbemu-db-path runs check: "write" (the
first run leaves a table behind), "read" (the second run finds it).
"""

import os
import re

import pytest


def make_table(client, name):
    client.create_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )


def test_endpoint_is_a_local_url(ddbemu_endpoint):
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", ddbemu_endpoint)


def test_client_create_put_get(ddbemu_client):
    make_table(ddbemu_client, "things")
    ddbemu_client.put_item(TableName="things", Item={"pk": {"S": "a"}, "n": {"N": "42"}})
    got = ddbemu_client.get_item(TableName="things", Key={"pk": {"S": "a"}})
    assert got["Item"] == {"pk": {"S": "a"}, "n": {"N": "42"}}


def test_resource_on_the_same_namespace(ddbemu_client, ddbemu_resource):
    make_table(ddbemu_client, "people")
    table = ddbemu_resource.Table("people")
    table.put_item(Item={"pk": "ada", "born": 1815})
    assert table.get_item(Key={"pk": "ada"})["Item"] == {"pk": "ada", "born": 1815}


@pytest.mark.parametrize("attempt", [1, 2, 3])
def test_each_test_starts_empty(request, ddbemu_client, attempt):
    """Per-test isolation: the same table name, created by three tests."""
    if request.config.getoption("ddbemu_isolation") != "test":
        pytest.skip("namespaces are per test only with --ddbemu-isolation=test")
    assert ddbemu_client.list_tables()["TableNames"] == []
    make_table(ddbemu_client, "same")


def test_worker_key(request, ddbemu_access_key):
    """Per-worker isolation: the key names the pytest-xdist worker."""
    if request.config.getoption("ddbemu_isolation") != "worker":
        pytest.skip("only with --ddbemu-isolation=worker")
    worker_id = request.getfixturevalue("worker_id")  # pytest-xdist's fixture
    assert ddbemu_access_key == f"ddbemu{worker_id}"


def test_db_path_session(ddbemu_client):
    phase = os.environ.get("DDB_VERIFY_PHASE")
    if phase == "write":
        make_table(ddbemu_client, "kept")
        ddbemu_client.put_item(TableName="kept", Item={"pk": {"S": "k"}})
    elif phase == "read":
        got = ddbemu_client.get_item(TableName="kept", Key={"pk": {"S": "k"}})
        assert got["Item"] == {"pk": {"S": "k"}}
    else:
        pytest.skip("only in the --ddbemu-db-path runs")

