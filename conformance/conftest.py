# SPDX-License-Identifier: MIT
"""Fixtures for the conformance suite: the real ddbemu binary behind real SDKs.

The suite drives the emulator only through the wire, the way applications do
(STYLE.md B11): this file finds the built binary, starts it on a free loopback
port for the whole session, waits until ``GET /`` answers, and hands tests a
boto3 client, a boto3 resource, a ``raw`` helper for requests boto3 would
refuse to send, and a ``make_table`` factory that cleans up after itself.

Environment:
  DDBEMU_BIN       path to the ddbemu binary (default: build/emulator/ddbemu)
  DDBEMU_ENDPOINT  run against an already running endpoint instead of starting
                   the binary; the value ``aws`` means real DynamoDB (region and
                   credentials from the usual AWS environment). Tests that only
                   make sense against the emulator (test_emulator_*.py) skip.

The session fails if the server exits before the end or prints a sanitizer
report (its stderr is captured to a file and scanned at every test teardown
and after the server has stopped, when LeakSanitizer runs).
"""

import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse

import boto3
import botocore.auth
import botocore.awsrequest
import botocore.config
import botocore.credentials
import pytest

from util import _key_args, delete_table_quietly, unique_table_name, wait_active

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BIN = os.path.join(REPO_ROOT, "build", "emulator", "ddbemu")

# Dummy credentials: the emulator never verifies signatures, and their access
# key id and region select the table namespace (as DynamoDB Local does).
ACCESS_KEY = "ddbemuTestKey"
SECRET_KEY = "ddbemuTestSecret"
REGION = "us-east-1"

# Patterns that mean a sanitizer (ASan, LSan, UBSan) found a bug.
SANITIZER_PATTERNS = re.compile(
    r"ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|WARNING: ThreadSanitizer|"
    r"SUMMARY: (Address|Leak|UndefinedBehavior|Thread)Sanitizer"
)

STARTUP_TIMEOUT_S = 30.0  # sanitizer builds start slowly on a loaded 2-core machine


def remote_endpoint():
    """The DDBEMU_ENDPOINT value, or None when the suite starts its own server."""
    value = os.environ.get("DDBEMU_ENDPOINT", "").strip()
    return value or None


def running_against_aws():
    return remote_endpoint() == "aws"


# --------------------------------------------------------------------------
# Starting and watching a server process
# --------------------------------------------------------------------------


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _binary_path():
    path = os.environ.get("DDBEMU_BIN") or DEFAULT_BIN
    if not os.access(path, os.X_OK):
        pytest.exit(
            f"ddbemu binary not found at {path}: build it first (scripts/test does), "
            "or set DDBEMU_BIN",
            returncode=4,
        )
    return path


def _child_env():
    env = dict(os.environ)
    # Harmless without a sanitizer build; with one, leaks and UB fail the run.
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
    env.setdefault("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
    return env


class Server:
    """One ddbemu process on a loopback port, its stderr captured to a file."""

    def __init__(self, binary, extra_args=(), log_dir=None):
        self.binary = binary
        self.extra_args = list(extra_args)
        self.log_dir = log_dir or tempfile.mkdtemp(prefix="ddbemu-conformance-")
        self.proc = None
        self.port = None
        self.stderr_path = None
        self.stopped = False

    @property
    def endpoint_url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        last_error = "no attempt"
        for attempt in range(3):  # the free port may be taken between probe and bind
            self.port = _free_port()
            tag = f"{os.getpid()}-{self.port}-{attempt}"
            self.stderr_path = os.path.join(self.log_dir, f"ddbemu-{tag}.stderr")
            stdout_path = os.path.join(self.log_dir, f"ddbemu-{tag}.stdout")
            args = [self.binary, "--host", "127.0.0.1", "--port", str(self.port)]
            args += self.extra_args
            with open(self.stderr_path, "wb") as err, open(stdout_path, "wb") as out:
                self.proc = subprocess.Popen(
                    args, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=_child_env()
                )
            deadline = time.monotonic() + STARTUP_TIMEOUT_S
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    last_error = (
                        f"exited with status {self.proc.returncode}: {self.stderr_tail()}"
                    )
                    break
                if self._answers_health_check():
                    return self
                time.sleep(0.05)
            else:
                self.proc.kill()
                self.proc.wait()
                raise RuntimeError(
                    f"ddbemu did not answer GET / within {STARTUP_TIMEOUT_S:.0f} s: "
                    f"{self.stderr_tail()}"
                )
        raise RuntimeError(f"could not start {' '.join(args)}: {last_error}")

    def _answers_health_check(self):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
            conn.request("GET", "/")
            conn.getresponse().read()
            conn.close()
            return True
        except OSError:
            return False

    def stderr_text(self):
        try:
            with open(self.stderr_path, "r", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def stderr_tail(self, lines=40):
        return "\n".join(self.stderr_text().splitlines()[-lines:])

    def problems(self):
        """A description of what went wrong with this server, or None."""
        if self.proc is None:
            return None
        if not self.stopped and self.proc.poll() is not None:
            return (
                f"ddbemu (port {self.port}) exited during the tests with status "
                f"{self.proc.returncode}:\n{self.stderr_tail()}"
            )
        if SANITIZER_PATTERNS.search(self.stderr_text()):
            return f"ddbemu (port {self.port}) printed a sanitizer report:\n{self.stderr_tail(80)}"
        if self.stopped and self.proc.returncode not in (0, -signal.SIGTERM):
            return (
                f"ddbemu (port {self.port}) exited with status {self.proc.returncode} "
                f"on SIGTERM:\n{self.stderr_tail()}"
            )
        return None

    def stop(self):
        """SIGTERM, wait (LeakSanitizer reports at exit), then check the output."""
        if self.proc is None or self.stopped:
            return self.problems()
        if self.proc.poll() is None:
            self.stopped = True
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return f"ddbemu (port {self.port}) did not stop within 30 s of SIGTERM"
            return self.problems()
        problem = self.problems()
        self.stopped = True
        return problem

    def client(self, access_key=ACCESS_KEY, region=REGION):
        return make_client(self.endpoint_url, access_key=access_key, region=region)


def make_client(endpoint_url, access_key=ACCESS_KEY, region=REGION, service="dynamodb"):
    """A low-level boto3 client with retries off, so errors surface at once."""
    config = botocore.config.Config(
        retries={"mode": "standard", "total_max_attempts": 1},
        connect_timeout=10,
        read_timeout=120,
    )
    if endpoint_url is None:  # real AWS: credentials and region from the environment
        return boto3.client(service, config=config, region_name=os.environ.get(
            "AWS_DEFAULT_REGION", os.environ.get("AWS_REGION", REGION)))
    return boto3.client(
        service,
        endpoint_url=endpoint_url,
        region_name=region,
        aws_access_key_id=access_key,
        aws_secret_access_key=SECRET_KEY,
        config=config,
    )


# --------------------------------------------------------------------------
# Session: the main server and its clients
# --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def log_dir():
    path = tempfile.mkdtemp(prefix="ddbemu-conformance-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def s3_dir(log_dir):
    """The directory the session's ddbemu serves as S3 (--s3-dir): each folder
    of it is a bucket (test_export_import.py)."""
    path = os.path.join(log_dir, "s3")
    os.makedirs(path, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def server(log_dir, s3_dir):
    """The session's ddbemu process, or None when DDBEMU_ENDPOINT is set."""
    if remote_endpoint():
        yield None
        return
    srv = Server(_binary_path(), ["--s3-dir", s3_dir], log_dir=log_dir).start()
    yield srv
    problem = srv.stop()
    if problem:
        pytest.fail(problem, pytrace=False)


@pytest.fixture(autouse=True)
def _server_still_healthy(request, server):
    """After every test: the server is alive and has printed no sanitizer report."""
    yield
    if server is not None:
        problem = server.problems()
        if problem:
            pytest.fail(problem, pytrace=False)


@pytest.fixture(scope="session")
def endpoint_url(server):
    """The URL every client talks to (None means real AWS)."""
    remote = remote_endpoint()
    if remote == "aws":
        return None
    if remote:
        return remote
    return server.endpoint_url


@pytest.fixture(scope="session")
def region():
    if running_against_aws():
        return os.environ.get("AWS_DEFAULT_REGION", os.environ.get("AWS_REGION", REGION))
    return REGION


@pytest.fixture(scope="session")
def dynamodb(endpoint_url):
    """boto3 low-level DynamoDB client (exact wire values, no client-side conversion)."""
    return make_client(endpoint_url)


@pytest.fixture(scope="session")
def dynamodbstreams(endpoint_url):
    """boto3 DynamoDB Streams client. The emulator serves the Streams API on the
    same endpoint as DynamoDB (on AWS it is streams.dynamodb.<region>...)."""
    return make_client(endpoint_url, service="dynamodbstreams")


@pytest.fixture(scope="session")
def dynamodb_resource(endpoint_url, region):
    if endpoint_url is None:
        return boto3.resource("dynamodb", region_name=region)
    return boto3.resource(
        "dynamodb",
        endpoint_url=endpoint_url,
        region_name=REGION,
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        config=botocore.config.Config(retries={"mode": "standard", "total_max_attempts": 1}),
    )


@pytest.fixture(scope="session")
def client_for(endpoint_url):
    """client_for(access_key=..., region=...) - a client in another namespace."""
    if endpoint_url is None:
        pytest.skip("needs the emulator: namespaces are per credential on DynamoDB Local only")

    def make(access_key=ACCESS_KEY, region=REGION):
        return make_client(endpoint_url, access_key=access_key, region=region)

    return make


@pytest.fixture
def emulator(server):
    """Skips the test unless the suite started ddbemu itself (emulator-only tests)."""
    if server is None:
        pytest.skip("emulator-only test (DDBEMU_ENDPOINT is set)")
    return server


@pytest.fixture
def start_server(log_dir, emulator):
    """start_server(*flags) - a second ddbemu with extra flags, stopped and checked
    at teardown (sanitizer reports and unexpected exits fail the test)."""
    started = []

    def start(*extra_args):
        srv = Server(emulator.binary, extra_args, log_dir=log_dir).start()
        started.append(srv)
        return srv

    yield start
    problems = [p for p in (srv.stop() for srv in started) if p]
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
def ddbemu_bin(emulator):
    """Path of the binary under test (emulator-only tests)."""
    return emulator.binary


# --------------------------------------------------------------------------
# Raw requests: what boto3 would refuse to send, and protocol tests
# --------------------------------------------------------------------------


class RawResponse(tuple):
    """(status, headers, data): data is the parsed JSON body, or the body text
    when it is not JSON. .body holds the raw bytes."""

    def __new__(cls, status, headers, data, body):
        self = super().__new__(cls, (status, headers, data))
        self.body = body
        return self

    @property
    def status(self):
        return self[0]

    @property
    def headers(self):
        return self[1]

    @property
    def data(self):
        return self[2]


def sign_headers(url, body, headers, access_key=ACCESS_KEY, region=REGION):
    """Adds a real SigV4 Authorization (and X-Amz-Date) to headers, as an SDK would."""
    if running_against_aws():
        creds = boto3.Session().get_credentials().get_frozen_credentials()
    else:
        creds = botocore.credentials.Credentials(access_key, SECRET_KEY)
    req = botocore.awsrequest.AWSRequest(method="POST", url=url, data=body, headers=headers)
    botocore.auth.SigV4Auth(creds, "dynamodb", region).add_auth(req)
    return dict(req.headers.items())


@pytest.fixture(scope="session")
def raw_url(endpoint_url, region):
    if endpoint_url is None:
        return f"https://dynamodb.{region}.amazonaws.com/"
    return endpoint_url.rstrip("/") + "/"


def send_raw(url, method="POST", body=b"", headers=None, connection=None):
    """One HTTP request; returns RawResponse. Reuses connection when given."""
    parsed = urllib.parse.urlsplit(url)
    own = connection is None
    if own:
        cls = http.client.HTTPSConnection if parsed.scheme == "https" else http.client.HTTPConnection
        connection = cls(parsed.hostname, parsed.port, timeout=120)
    try:
        connection.request(method, parsed.path or "/", body=body, headers=headers or {})
        resp = connection.getresponse()
        data = resp.read()
    finally:
        if own:
            connection.close()
    try:
        parsed_body = json.loads(data) if data else None
    except ValueError:
        parsed_body = data.decode("utf-8", errors="replace")
    return RawResponse(resp.status, resp.msg, parsed_body, data)


@pytest.fixture(scope="session")
def raw(raw_url, region):
    """raw(target, body, *, sign=True, headers=None, access_key=..., region=...,
    content_type=..., connection=None) -> (status, headers, parsed JSON).

    target is an operation name ("PutItem"), a full X-Amz-Target value, or None
    to send no X-Amz-Target. body is a dict (sent as JSON), str or bytes (sent
    as is). The request carries a real SigV4 Authorization header unless
    sign=False."""

    def call(target, body=None, *, sign=True, headers=None, access_key=ACCESS_KEY,
             region_name=None, content_type="application/x-amz-json-1.0", connection=None):
        if isinstance(body, (dict, list)):
            payload = json.dumps(body).encode()
        elif isinstance(body, str):
            payload = body.encode()
        elif body is None:
            payload = b"{}"
        else:
            payload = body
        hdrs = {}
        if content_type is not None:
            hdrs["Content-Type"] = content_type
        if target is not None:
            hdrs["X-Amz-Target"] = target if "." in target else f"DynamoDB_20120810.{target}"
        if sign:
            hdrs = sign_headers(raw_url, payload, hdrs, access_key=access_key,
                                region=region_name or region)
        if headers:
            hdrs.update(headers)
        return send_raw(raw_url, body=payload, headers=hdrs, connection=connection)

    return call


# --------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------


class TableMaker:
    """Creates uniquely named tables and deletes them all at teardown."""

    def __init__(self, client):
        self.client = client
        self.names = []

    def __call__(self, hash_key=("p", "S"), range_key=None, name=None, wait=True, **kwargs):
        name = name or unique_table_name()
        schema, defs = _key_args(hash_key, range_key)
        args = {"TableName": name, "KeySchema": schema, "AttributeDefinitions": defs}
        if "ProvisionedThroughput" not in kwargs and "BillingMode" not in kwargs:
            args["BillingMode"] = "PAY_PER_REQUEST"
        args.update(kwargs)
        self.client.create_table(**args)
        self.names.append(name)
        if wait:
            wait_active(self.client, name)
        return name

    def cleanup(self):
        for name in self.names:
            delete_table_quietly(self.client, name)
        self.names = []


@pytest.fixture
def make_table(dynamodb):
    """make_table(hash_key=('p','S'), range_key=None, **CreateTable args) -> name.
    PAY_PER_REQUEST unless ProvisionedThroughput/BillingMode is given; every
    table is deleted at teardown."""
    maker = TableMaker(dynamodb)
    yield maker
    maker.cleanup()


@pytest.fixture(scope="session")
def _session_tables(dynamodb):
    maker = TableMaker(dynamodb)
    yield maker
    maker.cleanup()


@pytest.fixture(scope="session")
def table_s(_session_tables):
    """Shared table: hash key p (S). Tests use random keys, never clear it."""
    return _session_tables(("p", "S"))


@pytest.fixture(scope="session")
def table_sc(_session_tables):
    """Shared table: hash key p (S), range key c (S)."""
    return _session_tables(("p", "S"), ("c", "S"))


@pytest.fixture(scope="session")
def table_n(_session_tables):
    """Shared table: hash key p (N)."""
    return _session_tables(("p", "N"))


@pytest.fixture(scope="session")
def table_sn(_session_tables):
    """Shared table: hash key p (S), range key c (N)."""
    return _session_tables(("p", "S"), ("c", "N"))


@pytest.fixture(scope="session")
def table_sb(_session_tables):
    """Shared table: hash key p (S), range key c (B)."""
    return _session_tables(("p", "S"), ("c", "B"))


@pytest.fixture(scope="session")
def table_provisioned(_session_tables):
    """Shared PROVISIONED table (hash key p S, 5/5 units) for capacity tests."""
    return _session_tables(
        ("p", "S"), ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
    )
