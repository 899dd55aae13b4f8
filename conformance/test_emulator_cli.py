# SPDX-License-Identifier: MIT
"""Emulator only: the ddbemu command line (issue #2: "ddbemu --help
documents every flag. Defaults: --host 127.0.0.1 --port 8000, in memory")."""

import subprocess

import pytest

pytestmark = pytest.mark.usefixtures("emulator")


def run(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL)


def test_help_documents_the_flags_and_defaults(ddbemu_bin):
    result = run(ddbemu_bin, "--help")
    assert result.returncode == 0, result.stderr
    text = result.stdout
    for flag in ("--host", "--port", "--shared-db", "--help"):
        assert flag in text, f"--help does not mention {flag}:\n{text}"
    assert "127.0.0.1" in text and "8000" in text, text


def test_unknown_flag_is_refused(ddbemu_bin):
    result = run(ddbemu_bin, "--no-such-flag")
    assert result.returncode != 0
    assert result.stderr.strip(), "an unknown flag should be explained on stderr"


@pytest.mark.parametrize("port", ["abc", "-1", "70000", ""])
def test_bad_port_is_refused(ddbemu_bin, port):
    result = run(ddbemu_bin, "--port", port)
    assert result.returncode != 0
    assert result.stderr.strip()


def test_server_answers_on_the_port_it_was_given(start_server):
    server = start_server()
    client = server.client()
    assert isinstance(client.list_tables()["TableNames"], list)


# ---- DynamoDB Local's command line (issue #12) ----
#
# DynamoDB Local's flags are single-dash camelCase words (-port 8001 -sharedDb
# -inMemory -dbPath DIR -cors ORIGINS -delayTransientStatuses
# -optimizeDbBeforeStartup -disableTelemetry -help -version; "DynamoDB local
# usage notes" in the DynamoDB Developer Guide). Scripts and compose files
# written for it must run unchanged.

import os  # noqa: E402
import re  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402

from conftest import REGION, REPO_ROOT, SANITIZER_PATTERNS, _free_port, make_client  # noqa: E402


def start_local_style(binary, tmp_path, *args):
    """Starts ddbemu with DynamoDB Local's spelling of the port (-port), and
    args; returns (process, endpoint) once GET / answers."""
    port = _free_port()
    err = open(tmp_path / f"ddbemu-{port}.stderr", "wb")
    proc = subprocess.Popen([binary, "-port", str(port), *args], stdout=subprocess.DEVNULL,
                            stderr=err, stdin=subprocess.DEVNULL)
    err.close()
    endpoint = f"http://127.0.0.1:{port}"
    for _ in range(600):
        assert proc.poll() is None, (tmp_path / f"ddbemu-{port}.stderr").read_text()
        try:
            client = make_client(endpoint)
            client.list_tables()
            return proc, endpoint, tmp_path / f"ddbemu-{port}.stderr"
        except Exception:  # not listening yet
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("ddbemu started with -port never answered")


def stop_local_style(proc, stderr_path):
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) in (0, -signal.SIGTERM)
    text = stderr_path.read_text(errors="replace")
    assert not SANITIZER_PATTERNS.search(text), text


def test_dynamodb_local_flags_start_a_working_server(ddbemu_bin, tmp_path):
    proc, endpoint, log = start_local_style(ddbemu_bin, tmp_path, "-sharedDb", "-inMemory",
                                            "-cors", "*", "-disableTelemetry")
    try:
        # -sharedDb: two access keys see the same tables.
        one = make_client(endpoint, access_key="keyOne")
        two = make_client(endpoint, access_key="keyTwo", region="eu-west-1")
        one.create_table(TableName="shared_t", BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}])
        assert "shared_t" in two.list_tables()["TableNames"]
    finally:
        stop_local_style(proc, log)


def test_dynamodb_local_db_path_keeps_tables(ddbemu_bin, tmp_path):
    data = tmp_path / "data"
    proc, endpoint, log = start_local_style(ddbemu_bin, tmp_path, "-dbPath", str(data),
                                            "-optimizeDbBeforeStartup")
    try:
        make_client(endpoint).create_table(
            TableName="kept", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}])
    finally:
        stop_local_style(proc, log)
    proc, endpoint, log = start_local_style(ddbemu_bin, tmp_path, "-dbPath", str(data))
    try:
        assert make_client(endpoint).list_tables()["TableNames"] == ["kept"]
    finally:
        stop_local_style(proc, log)


@pytest.mark.parametrize("flag", ["-help", "--help"])
def test_help_lists_both_spellings(ddbemu_bin, flag):
    result = run(ddbemu_bin, flag)
    assert result.returncode == 0, result.stderr
    for spelling in ("-port", "-sharedDb", "-inMemory", "-dbPath", "-cors",
                     "-delayTransientStatuses", "-optimizeDbBeforeStartup",
                     "-disableTelemetry", "--delay-transient-statuses", "--cors"):
        assert spelling in result.stdout, spelling


def project_version():
    """The version's one source: the project() line of CMakeLists.txt."""
    with open(os.path.join(REPO_ROOT, "CMakeLists.txt")) as f:
        m = re.search(r"^project\(ddbemu VERSION (\S+) ", f.read(), re.M)
    assert m, "CMakeLists.txt's project() line names no VERSION"
    return m.group(1)


@pytest.mark.parametrize("flag", ["-version", "--version"])
def test_version_names_the_version_and_the_commit(ddbemu_bin, flag):
    result = run(ddbemu_bin, flag)
    assert result.returncode == 0, result.stderr
    m = re.fullmatch(r"ddbemu (\S+) \(commit (\S+)\)\n", result.stdout)
    assert m, f"--version printed {result.stdout!r}"
    assert m.group(1) == project_version()
    commit = m.group(2)
    # git's HEAD when the build was configured (or -DDDB_COMMIT): a commit
    # of this repository, abbreviated to 12 hex digits; "unknown" outside git.
    in_git = os.path.exists(os.path.join(REPO_ROOT, ".git"))  # a file in a worktree
    if commit != "unknown" and in_git:
        assert re.fullmatch(r"[0-9a-f]{12}", commit), commit
        known = subprocess.run(["git", "-C", REPO_ROOT, "cat-file", "-e", commit + "^{commit}"],
                               capture_output=True)
        assert known.returncode == 0, f"--version names {commit}, not a commit of this repository"


@pytest.mark.parametrize("args, mentions", [
    (["-p", "8001"], "'-p'"),
    (["-shareddb"], "'-shareddb'"),
    (["-host", "0.0.0.0"], "'-host'"),  # not a DynamoDB Local flag: --host only
    (["--sharedDb=1"], "takes no value"),
    (["-port"], "needs a value"),
    (["-cors", ""], "--cors"),
    (["-cors", "https://a.example,,https://b.example"], "--cors"),
    (["-optimizeDbBeforeStartup"], "--db-path"),
    (["-inMemory", "-dbPath", "/tmp/x"], "cannot be used together"),
    (["stray"], "'stray'"),
])
def test_bad_command_lines_exit_2_with_a_message(ddbemu_bin, args, mentions):
    result = run(ddbemu_bin, *args)
    assert result.returncode == 2, result
    assert mentions in result.stderr, result.stderr
    assert result.stdout == ""


def test_cors_list_answers_only_the_listed_origins(start_server):
    # DynamoDB Local's -cors "a,b": only those origins get CORS headers (the
    # origin echoed, with Vary: Origin); others get none, so a browser
    # refuses the call, and their preflight is not answered.
    server = start_server("--cors", "https://a.example, https://b.example")
    url = server.endpoint_url
    conn = http_conn(url)
    conn.request("OPTIONS", "/", headers={"Origin": "https://b.example",
                                          "Access-Control-Request-Method": "POST"})
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 200
    assert resp.getheader("Access-Control-Allow-Origin") == "https://b.example"
    assert resp.getheader("Vary") == "Origin"
    assert resp.getheader("Access-Control-Allow-Methods") == "POST"
    conn.request("OPTIONS", "/", headers={"Origin": "https://evil.example",
                                          "Access-Control-Request-Method": "POST"})
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 404
    assert resp.getheader("Access-Control-Allow-Origin") is None
    conn.request("GET", "/", headers={"Origin": "https://evil.example"})
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 200
    assert resp.getheader("Access-Control-Allow-Origin") is None
    assert resp.getheader("Access-Control-Expose-Headers") is None
    conn.close()


def http_conn(url):
    import http.client
    import urllib.parse
    parsed = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)


def test_dynamodb_local_image_command_line_is_understood(ddbemu_bin, tmp_path):
    # amazon/dynamodb-local's entrypoint is java, so compose files pass
    # "-jar DynamoDBLocal.jar [-Djava.library.path=...] -sharedDb ..." as the
    # command: ddbemu's image takes the same command line.
    proc, endpoint, log = start_local_style(
        ddbemu_bin, tmp_path, "-jar", "DynamoDBLocal.jar",
        "-Djava.library.path=./DynamoDBLocal_lib", "-sharedDb", "-inMemory")
    try:
        assert make_client(endpoint, access_key="anyKey").list_tables()["TableNames"] == []
    finally:
        stop_local_style(proc, log)


def test_health_check_mode(ddbemu_bin, start_server):
    # --health-check (the image's HEALTHCHECK): 0 when a ddbemu answers at
    # --host/--port, 1 when nothing does.
    server = start_server()
    result = run(ddbemu_bin, "--health-check", "--port", str(server.port))
    assert result.returncode == 0, result.stderr
    result = run(ddbemu_bin, "--health-check", "--host", "0.0.0.0", "--port", str(server.port))
    assert result.returncode == 0, result.stderr
    result = run(ddbemu_bin, "--health-check", "--port", str(_free_port()))
    assert result.returncode == 1
    assert "nothing answers" in result.stderr
