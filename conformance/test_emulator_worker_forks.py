# SPDX-License-Identifier: MIT
"""Emulator only: the Python package's fork helpers for parallel test workers,
from the source tree (packaging/python/src), against the built binary.

ddbemu.Control, fork_for_worker and worker_access_key directly; then the
pytest plugin itself (-p ddbemu.pytest_plugin) in a pytest-xdist run of
packaging/python/test/seeded: its pytest_ddbemu_seed hook seeds once, each
worker (or each test) gets a key forked from the seed, and the run leaves no
snapshot and no seed tables behind on a server it did not start.
packaging/python/verify runs the same test files from the installed wheel.
"""

import importlib
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import make_client

REPO = pathlib.Path(__file__).resolve().parent.parent
PACKAGE_SRC = REPO / "packaging" / "python" / "src"
SEEDED_TESTS = REPO / "packaging" / "python" / "test" / "seeded"

pytestmark = pytest.mark.usefixtures("emulator")


@pytest.fixture(scope="module")
def ddbemu_pkg():
    """The ddbemu module of the source tree (the wheel's code, not installed)."""
    sys.path.insert(0, str(PACKAGE_SRC))
    try:
        yield importlib.import_module("ddbemu")
    finally:
        sys.path.remove(str(PACKAGE_SRC))


def seed_orders(client, count):
    client.create_table(
        TableName="Orders",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    for i in range(count):
        client.put_item(TableName="Orders", Item={"pk": {"S": f"seed#{i}"}})


def keys(client):
    return sorted(i["pk"]["S"] for i in client.scan(TableName="Orders")["Items"])


def test_fork_for_worker_gives_each_worker_the_seed_and_its_own_writes(start_server, ddbemu_pkg):
    srv = start_server()
    seed = ddbemu_pkg.Namespace(srv.endpoint_url, "seedkey", "eu-west-1")
    seed_orders(seed.client(), 5)
    info = ddbemu_pkg.Control(srv.endpoint_url).save_snapshot("seed", "seedkey", "eu-west-1")
    assert (info["tables"], info["items"], info["namespace"]) == (1, 5, "seedkey/eu-west-1")

    gw0 = ddbemu_pkg.fork_for_worker(srv.endpoint_url, "seed", "gw0")
    gw1 = ddbemu_pkg.fork_for_worker(srv.endpoint_url, "seed", "gw1")
    assert (gw0.access_key, gw1.access_key) == ("ddbemugw0", "ddbemugw1")
    assert gw0.region == gw1.region == "eu-west-1"  # a fork keeps the snapshot's region
    c0, c1 = gw0.client(), gw1.client()
    c0.put_item(TableName="Orders", Item={"pk": {"S": "gw0-wrote"}})
    c1.delete_item(TableName="Orders", Key={"pk": {"S": "seed#0"}})
    seeds = [f"seed#{i}" for i in range(5)]
    assert keys(c0) == sorted(seeds + ["gw0-wrote"])
    assert keys(c1) == seeds[1:]
    assert keys(seed.client()) == seeds  # the forks' writes never reach the source


def test_restore_forks_the_seed_back_and_replaces_the_key(start_server, ddbemu_pkg):
    srv = start_server()
    seed_orders(make_client(srv.endpoint_url, access_key="seedkey"), 3)
    ddbemu_pkg.Control(srv.endpoint_url).save_snapshot("seed", "seedkey")
    fork = ddbemu_pkg.fork_for_worker(srv.endpoint_url, "seed", 7, prefix="w")
    assert fork.access_key == "w7" and fork.snapshot == "seed"
    client = fork.client()
    client.put_item(TableName="Orders", Item={"pk": {"S": "mine"}})
    client.create_table(
        TableName="Extra",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    fork.restore()
    assert keys(client) == ["seed#0", "seed#1", "seed#2"]
    assert client.list_tables()["TableNames"] == ["Orders"]  # what the key made is gone


def test_control_errors(start_server, ddbemu_pkg):
    srv = start_server()
    control = ddbemu_pkg.Control(srv.endpoint_url)
    with pytest.raises(ddbemu_pkg.ControlError) as err:
        ddbemu_pkg.fork_for_worker(srv.endpoint_url, "no-such-snapshot", "gw0")
    assert err.value.status == 404
    control.save_snapshot("taken", "somekey")
    with pytest.raises(ddbemu_pkg.ControlError) as err:
        control.save_snapshot("taken", "somekey")
    assert err.value.status == 409
    with pytest.raises(ddbemu_pkg.ControlError) as err:
        control.save_snapshot("bad name", "somekey")
    assert err.value.status == 400
    assert [s["name"] for s in control.snapshots()] == ["taken"]
    control.delete_snapshot("taken")
    assert control.snapshots() == []
    for bad in ["", "a/b", "with space", "x" * 200]:
        with pytest.raises(ValueError):
            ddbemu_pkg.worker_access_key(bad)
    assert ddbemu_pkg.worker_access_key("gw3") == "ddbemugw3"


def test_forks_are_refused_under_shared_db(start_server, ddbemu_pkg):
    srv = start_server("--shared-db")
    control = ddbemu_pkg.Control(srv.endpoint_url)
    control.save_snapshot("seed", "anykey")
    with pytest.raises(ddbemu_pkg.ControlError, match="--shared-db has one namespace") as err:
        ddbemu_pkg.fork_for_worker(srv.endpoint_url, "seed", "gw0")
    assert err.value.status == 400


def run_seeded_suite(tmp_path, ddbemu_bin, *args):
    """The seeded test files under the source tree's plugin; returns the seed log's lines."""
    tests = tmp_path / "tests"
    shutil.copytree(SEEDED_TESTS, tests)
    log = tmp_path / "seed.log"
    log.write_text("")
    env = dict(
        os.environ,
        PYTHONPATH=str(PACKAGE_SRC),
        DDBEMU_BIN=os.path.abspath(ddbemu_bin),
        DDB_SEED_LOG=str(log),
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
         "ddbemu.pytest_plugin", "--rootdir", str(tests), *args, str(tests)],
        cwd=tests, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    return log.read_text().splitlines()


def check_seeded_once_two_workers(lines):
    seeds = [line for line in lines if line.startswith("seed ")]
    workers = {line.split()[1] for line in lines if line.startswith("test ")}
    assert len(seeds) == 1, lines
    assert workers == {"gw0", "gw1"}, lines


def test_plugin_seed_per_worker_restored_per_test_on_a_server_it_did_not_start(
    start_server, ddbemu_bin, ddbemu_pkg, tmp_path
):
    srv = start_server()
    lines = run_seeded_suite(tmp_path, ddbemu_bin, "-n", "2", "--ddbemu-isolation=worker",
                             "--ddbemu-restore-per-test", f"--ddbemu-endpoint={srv.endpoint_url}")
    check_seeded_once_two_workers(lines)
    seed_key = lines[0].split()[1]
    assert make_client(srv.endpoint_url, access_key=seed_key).list_tables()["TableNames"] == []
    snapshots = ddbemu_pkg.Control(srv.endpoint_url).snapshots()
    assert snapshots == [], "the run's seed snapshot outlived the run"
    # The workers' keys keep what their last test left (a fork of the seed).
    for worker in ("gw0", "gw1"):
        worker_client = make_client(srv.endpoint_url, access_key=f"ddbemu{worker}")
        assert worker_client.list_tables()["TableNames"] == ["Orders"]


def test_plugin_seed_per_test_key_under_xdist(ddbemu_bin, tmp_path):
    check_seeded_once_two_workers(run_seeded_suite(tmp_path, ddbemu_bin, "-n", "2"))
