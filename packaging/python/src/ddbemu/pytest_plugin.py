# SPDX-License-Identifier: MIT
"""pytest plugin (entry point ``pytest11``): a ddbemu server for the test run.

Fixtures
  ddbemu_endpoint      (session)  the server's URL; the server starts on first use
  ddbemu_region        (session)  the region clients use (--ddbemu-region)
  ddbemu_control       (session)  ddbemu.Control: the snapshot and fork routes
  ddbemu_snapshot      (session)  the seed snapshot's name (None without a seed hook)
  ddbemu_access_key    (function) the access key of this test's namespace
  ddbemu_namespace     (function) that namespace: a ddbemu.Namespace, or with a
                                  seed a ddbemu.Fork (restore() puts the seed back)
  ddbemu_boto3_kwargs  (function) endpoint, region and credentials for boto3
  ddbemu_client        (function) boto3.client("dynamodb") on that namespace
  ddbemu_resource      (function) boto3.resource("dynamodb") on that namespace

ddbemu gives every access key (and region) its own set of tables, so tests
share one server and stay apart by access key (--ddbemu-isolation):
  test     (default) a new key for each test; its tables are deleted after it
  worker   one key per pytest-xdist worker ("ddbemu" + worker id: ddbemugw0)
  session  one key for the whole run ("ddbemu")
Under pytest-xdist the workers share one server: the first worker that needs
it starts it, the controller stops it when the run ends.

Seeding (hook pytest_ddbemu_seed(seed, config), in a conftest.py): the hook
fills a namespace once per run; its tables are saved as a snapshot and every
namespace above is forked from it, so each test, worker or session starts
from the seed and sees only its own writes. --ddbemu-restore-per-test forks
the seed into the namespace again before every test (worker and session
isolation; with "test" every namespace is new anyway).

Options: --ddbemu-restore-per-test, --ddbemu-db-path DIR (the server keeps
its tables in DIR, loaded again by the next run), --ddbemu-arg ARG
(repeatable, passed to the server), --ddbemu-bin PATH, --ddbemu-endpoint URL
(use a running server instead).
"""

import fcntl
import json
import os
import secrets
import shutil
import signal
import tempfile
import time

import pytest

from ddbemu import _hookspec, _seed
from ddbemu._control import Control, Fork, Namespace
from ddbemu._server import DEFAULT_REGION, Server, binary_path

_STATE_DIR_KEY = "ddbemu_state_dir"  # controller -> workers, in workerinput
_RUN_TOKEN_KEY = "ddbemu_run_token"  # controller -> workers: names the run's seed
_SESSION_KEY = "ddbemu"  # the access key of --ddbemu-isolation=session
_ISOLATION = ("test", "worker", "session")


def pytest_addhooks(pluginmanager):
    pluginmanager.add_hookspecs(_hookspec)


def pytest_addoption(parser):
    group = parser.getgroup("ddbemu", "ddbemu DynamoDB emulator")
    group.addoption(
        "--ddbemu-isolation",
        choices=_ISOLATION,
        default="test",
        help="namespace (access key) per test (default), per xdist worker, or one for the session",
    )
    group.addoption(
        "--ddbemu-restore-per-test",
        action="store_true",
        default=False,
        help="with a pytest_ddbemu_seed hook: fork the seed into the test's namespace "
        "again before every test",
    )
    group.addoption(
        "--ddbemu-db-path",
        metavar="DIR",
        default=None,
        help="the server keeps tables in SQLite files in DIR and loads them at start",
    )
    group.addoption(
        "--ddbemu-arg",
        metavar="ARG",
        action="append",
        default=[],
        help="an argument for the server (repeatable), e.g. --ddbemu-arg=--shared-db",
    )
    group.addoption(
        "--ddbemu-bin",
        metavar="PATH",
        default=None,
        help="the ddbemu binary (default: $DDBEMU_BIN, else the packaged one)",
    )
    group.addoption(
        "--ddbemu-endpoint",
        metavar="URL",
        default=None,
        help="use the ddbemu already running at URL instead of starting one",
    )
    group.addoption(
        "--ddbemu-region",
        default=DEFAULT_REGION,
        help=f"region of the fixtures' clients (default {DEFAULT_REGION})",
    )


def _server_options(config):
    # Paths as the user typed them, from where pytest was invoked (an xdist
    # worker may run elsewhere).
    where = str(config.invocation_params.dir)
    binary = config.getoption("ddbemu_bin")
    db_path = config.getoption("ddbemu_db_path")
    return {
        "binary": os.path.join(where, binary) if binary else binary_path(),
        "db_path": os.path.join(where, db_path) if db_path else None,
        "args": config.getoption("ddbemu_arg"),
    }


def pytest_configure(config):
    numprocesses = getattr(config.option, "numprocesses", None)
    if (
        config.getoption("ddbemu_restore_per_test")
        and config.getoption("ddbemu_isolation") == "session"
        and (numprocesses or getattr(config, "workerinput", None))
    ):
        raise pytest.UsageError(
            "--ddbemu-restore-per-test with --ddbemu-isolation=session under pytest-xdist: "
            "the workers share the session's namespace, so one worker's restore would undo "
            "another's test; use --ddbemu-isolation=worker"
        )


# --------------------------------------------------------------------------
# pytest-xdist: one server shared by the workers of a run
# --------------------------------------------------------------------------


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """Controller: hand every worker the directory where the server is recorded."""
    config = node.config
    state_dir = getattr(config, "_ddbemu_state_dir", None)
    if state_dir is None:
        state_dir = tempfile.mkdtemp(prefix="ddbemu-xdist-")
        config._ddbemu_state_dir = state_dir
        config._ddbemu_run_token = secrets.token_hex(4)
    node.workerinput[_STATE_DIR_KEY] = state_dir
    node.workerinput[_RUN_TOKEN_KEY] = config._ddbemu_run_token


def pytest_unconfigure(config):
    """Controller: delete the run's seed snapshot, stop the server a worker
    started (workers own neither)."""
    state_dir = getattr(config, "_ddbemu_state_dir", None)
    if state_dir is None:
        return
    _seed.forget(state_dir)
    try:
        with open(os.path.join(state_dir, "server.json")) as f:
            pid = json.load(f)["pid"]
    except (OSError, ValueError, KeyError):
        pid = None
    if pid is not None:
        _terminate(pid)
    shutil.rmtree(state_dir, ignore_errors=True)


def _terminate(pid, timeout=10.0):
    """SIGTERM a process that is not our child, and wait until it is gone."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            return
        time.sleep(0.05)


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")  # a zombie has exited already
    except (OSError, IndexError):
        return False


def _shared_endpoint(config, state_dir):
    """Worker: the run's server, started by whichever worker asks first."""
    with open(os.path.join(state_dir, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        record = os.path.join(state_dir, "server.json")
        if os.path.exists(record):
            with open(record) as f:
                return json.load(f)["endpoint"]
        server = Server(log_path=os.path.join(state_dir, "server.log"), **_server_options(config))
        server.start()
        # Kept referenced until the worker exits: the controller stops it.
        config._ddbemu_shared_server = server
        with open(record + ".tmp", "w") as f:
            json.dump({"endpoint": server.endpoint, "pid": server.pid}, f)
        os.replace(record + ".tmp", record)
        return server.endpoint


# --------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------


def _worker_id(config):
    workerinput = getattr(config, "workerinput", None)
    return workerinput["workerid"] if workerinput else "main"


@pytest.fixture(scope="session")
def ddbemu_endpoint(pytestconfig):
    """The URL of the run's ddbemu server (started on first use)."""
    given = pytestconfig.getoption("ddbemu_endpoint")
    if given:
        yield given
        return
    workerinput = getattr(pytestconfig, "workerinput", None)
    if workerinput and _STATE_DIR_KEY in workerinput:
        yield _shared_endpoint(pytestconfig, workerinput[_STATE_DIR_KEY])
        return
    with Server(**_server_options(pytestconfig)) as server:
        yield server.endpoint
        status = server.process.poll()
    if status is not None:
        pytest.fail(f"the ddbemu server exited during the tests with status {status}")


@pytest.fixture(scope="session")
def ddbemu_region(pytestconfig):
    return pytestconfig.getoption("ddbemu_region")


@pytest.fixture(scope="session")
def _ddbemu_run_token(pytestconfig):
    # Per-test keys differ from one run to the next, so that a --db-path
    # directory's leftovers of an interrupted run never reach a new test.
    # The workers of an xdist run share the controller's (it names the seed).
    workerinput = getattr(pytestconfig, "workerinput", None)
    if workerinput and _RUN_TOKEN_KEY in workerinput:
        return workerinput[_RUN_TOKEN_KEY]
    return secrets.token_hex(4)


@pytest.fixture(scope="session")
def ddbemu_control(ddbemu_endpoint):
    """ddbemu.Control on the run's server: save, restore, fork and delete snapshots."""
    return Control(ddbemu_endpoint)


@pytest.fixture(scope="session")
def ddbemu_snapshot(pytestconfig, ddbemu_endpoint, ddbemu_region, _ddbemu_run_token):
    """The name of the snapshot the pytest_ddbemu_seed hook filled (None without the hook).

    The hook runs once per run (under xdist, in the first worker that gets
    here); the snapshot is deleted when the run ends.
    """
    hook = pytestconfig.hook.pytest_ddbemu_seed
    if not hook.get_hookimpls():
        yield None
        return
    workerinput = getattr(pytestconfig, "workerinput", None)
    state_dir = workerinput.get(_STATE_DIR_KEY) if workerinput else None
    session_key = (
        _SESSION_KEY if pytestconfig.getoption("ddbemu_isolation") == "session" else None
    )
    snapshot = _seed.seed_once(
        ddbemu_endpoint,
        ddbemu_region,
        _ddbemu_run_token,
        lambda seed: hook(seed=seed, config=pytestconfig),
        state_dir,
        session_key,
    )
    yield snapshot
    if state_dir is None:  # under xdist the controller deletes it, after every worker
        _seed.delete_quietly(Control(ddbemu_endpoint), snapshot)


@pytest.fixture
def ddbemu_access_key(ddbemu_namespace):
    """The access key of this test's namespace (see --ddbemu-isolation)."""
    return ddbemu_namespace.access_key


@pytest.fixture
def ddbemu_namespace(
    pytestconfig, ddbemu_endpoint, ddbemu_region, ddbemu_snapshot, _ddbemu_run_token
):
    """This test's namespace (see --ddbemu-isolation): a ddbemu.Namespace, or,
    with a pytest_ddbemu_seed hook, a ddbemu.Fork of the seed."""
    isolation = pytestconfig.getoption("ddbemu_isolation")
    restore = pytestconfig.getoption("ddbemu_restore_per_test")
    worker = _worker_id(pytestconfig)
    if isolation == "session":
        key = _SESSION_KEY
    elif isolation == "worker":
        key = f"ddbemu{worker}"
    else:
        counter = getattr(pytestconfig, "_ddbemu_test_counter", 0) + 1
        pytestconfig._ddbemu_test_counter = counter
        key = f"ddbemu{_ddbemu_run_token}{worker}t{counter}"
    if ddbemu_snapshot is None:
        namespace = Namespace(endpoint=ddbemu_endpoint, access_key=key, region=ddbemu_region)
    else:
        namespace = Fork(
            endpoint=ddbemu_endpoint, access_key=key, region=ddbemu_region, snapshot=ddbemu_snapshot
        )
        # The session's key was forked when the seed was made; a worker's key
        # is forked by the worker's first test; a test's key is new.
        first_use = isolation == "test" or (
            isolation == "worker" and not getattr(pytestconfig, "_ddbemu_worker_forked", False)
        )
        if first_use or restore:
            namespace.restore()
            pytestconfig._ddbemu_worker_forked = True
    yield namespace
    if isolation != "test":
        return
    if ddbemu_snapshot is None:
        _delete_tables(namespace.boto3_kwargs())
    else:  # the seed's tables may be protected against deletion: reset drops them all
        Control(ddbemu_endpoint).reset(key, ddbemu_region)


def _delete_tables(kwargs):
    """Frees what a per-test namespace holds (its key is never used again).

    Best effort: a table the test protected (DeletionProtectionEnabled) stays,
    unseen by any later test, until the server stops.
    """
    try:
        import boto3
        from botocore.exceptions import ClientError
    except ImportError:
        return
    client = boto3.client("dynamodb", **kwargs)
    for page in client.get_paginator("list_tables").paginate():
        for name in page["TableNames"]:
            try:
                client.delete_table(TableName=name)
            except ClientError:
                pass


@pytest.fixture
def ddbemu_boto3_kwargs(ddbemu_namespace):
    """endpoint_url, region_name and credentials: boto3.client("dynamodb", **kwargs)."""
    return ddbemu_namespace.boto3_kwargs()


def _boto3():
    try:
        import boto3
    except ImportError as err:
        raise ImportError(
            "the ddbemu_client and ddbemu_resource fixtures need boto3 (pip install boto3)"
        ) from err
    return boto3


@pytest.fixture
def ddbemu_client(ddbemu_boto3_kwargs):
    """A boto3 DynamoDB client on this test's namespace."""
    return _boto3().client("dynamodb", **ddbemu_boto3_kwargs)


@pytest.fixture
def ddbemu_resource(ddbemu_boto3_kwargs):
    """A boto3 DynamoDB service resource on this test's namespace."""
    return _boto3().resource("dynamodb", **ddbemu_boto3_kwargs)
