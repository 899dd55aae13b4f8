# SPDX-License-Identifier: MIT
"""libddbemu, the library (emulator/include/ddbemu.h), loaded through ctypes.

In-process calls go through the server's own front and handlers, so they give
DynamoDB's answers and errors (status and __type) exactly as HTTP does; a
server started with ddbemu_listen serves the same tables to boto3; calls from
many threads at once are safe; options are the command line's. The library is
built with the server (build/emulator/libddbemu.so; DDBEMU_LIB overrides it,
packaging/lib/verify points it at a release tarball's).
"""

import ctypes
import os
import subprocess
import threading

import pytest

from conftest import make_client
from libddbemu import Emulator, LibraryError, library_path, load


def _library_not_built():
    """Why there is no library to test, when the build says so (DDB_LIBRARY=OFF)."""
    if os.environ.get("DDBEMU_LIB"):
        return None
    cache = os.path.join(os.path.dirname(os.path.dirname(library_path())), "CMakeCache.txt")
    try:
        with open(cache, encoding="utf-8") as f:
            if any(line.startswith("DDB_LIBRARY:BOOL=OFF") for line in f):
                return "this build has no libddbemu (DDB_LIBRARY=OFF: sanitizer, fuzz or static build)"
    except OSError:
        pass
    return None


@pytest.fixture(scope="module")
def lib():
    reason = _library_not_built()
    if reason:
        pytest.skip(reason)
    return load()


TABLE = {
    "TableName": "Music", "BillingMode": "PAY_PER_REQUEST",
    "KeySchema": [{"AttributeName": "Artist", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "Artist", "AttributeType": "S"}],
}


def test_version_names_the_release(lib):
    assert lib.ddbemu_version().decode().count(".") == 2


def test_create_put_get_in_process(lib):
    with Emulator(lib) as emu:
        status, answer = emu.call("CreateTable", TABLE)
        assert status == 200, answer
        assert answer["TableDescription"]["TableName"] == "Music"
        status, answer = emu.call("PutItem", {"TableName": "Music", "Item": {
            "Artist": {"S": "No One You Know"}, "Plays": {"N": "42"}}})
        assert (status, answer) == (200, {})
        status, answer = emu.call("GetItem", {"TableName": "Music",
                                              "Key": {"Artist": {"S": "No One You Know"}}})
        assert status == 200
        assert answer == {"Item": {"Artist": {"S": "No One You Know"}, "Plays": {"N": "42"}}}


def test_errors_are_dynamodbs(lib):
    with Emulator(lib) as emu:
        status, answer = emu.call("GetItem", {"TableName": "Missing", "Key": {"k": {"S": "x"}}})
        assert status == 400
        assert answer["__type"] == "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException"
        assert answer["message"] == "Requested resource not found"
        # The request shape, checked before the handler as over HTTP.
        status, answer = emu.call("GetItem", {"TableName": "x", "Key": {}})
        assert status == 400
        assert answer["__type"] == "com.amazon.coral.validate#ValidationException"
        # A body that is not JSON, and an unknown target: the front's answers.
        status, text = emu.call_text("GetItem", "{not json")
        assert status == 400 and "SerializationException" in text
        status, text = emu.call_text("NoSuchOperation", "{}")
        assert status == 400 and "UnknownOperationException" in text


def test_a_failed_write_changes_nothing(lib):
    with Emulator(lib) as emu:
        emu.call("CreateTable", TABLE)
        emu.call("PutItem", {"TableName": "Music", "Item": {"Artist": {"S": "a"}, "v": {"N": "1"}}})
        status, answer = emu.call("PutItem", {
            "TableName": "Music", "Item": {"Artist": {"S": "a"}, "v": {"N": "2"}},
            "ConditionExpression": "attribute_not_exists(Artist)"})
        assert status == 400
        assert answer["__type"].endswith("#ConditionalCheckFailedException")
        _, answer = emu.call("GetItem", {"TableName": "Music", "Key": {"Artist": {"S": "a"}}})
        assert answer["Item"]["v"] == {"N": "1"}


def test_credentials_choose_the_tables_unless_shared(lib):
    with Emulator(lib) as emu:
        assert emu.call("CreateTable", TABLE)[0] == 200
        _, own = emu.call("ListTables", {})
        _, other = emu.call("ListTables", {}, access_key="someone-else")
        assert own["TableNames"] == ["Music"] and other["TableNames"] == []
    with Emulator(lib, "--shared-db") as emu:
        assert emu.call("CreateTable", TABLE)[0] == 200
        _, other = emu.call("ListTables", {}, access_key="someone-else", region="eu-west-1")
        assert other["TableNames"] == ["Music"]


def test_calls_from_many_threads(lib):
    threads, per_thread = 4, 50
    with Emulator(lib) as emu:
        emu.call("CreateTable", TABLE)
        failures = []

        def writer(n):
            for i in range(per_thread):
                status, answer = emu.call("UpdateItem", {
                    "TableName": "Music", "Key": {"Artist": {"S": "counter"}},
                    "UpdateExpression": "ADD n :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}}})
                if status != 200:
                    failures.append(answer)
                emu.call("PutItem", {"TableName": "Music",
                                     "Item": {"Artist": {"S": f"t{n}-{i}"}}})

        workers = [threading.Thread(target=writer, args=(n,)) for n in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert failures == []
        _, answer = emu.call("GetItem", {"TableName": "Music",
                                         "Key": {"Artist": {"S": "counter"}}})
        assert answer["Item"]["n"] == {"N": str(threads * per_thread)}
        _, answer = emu.call("Scan", {"TableName": "Music", "Select": "COUNT"})
        assert answer["Count"] == threads * per_thread + 1


def test_listen_serves_the_same_tables_to_boto3(lib):
    with Emulator(lib, "--port", "0") as emu:
        assert emu.endpoint is None
        emu.call("CreateTable", TABLE)
        emu.call("PutItem", {"TableName": "Music", "Item": {"Artist": {"S": "in-process"}}})
        port = emu.listen()
        assert port > 0 and emu.endpoint == f"http://127.0.0.1:{port}"
        assert lib.ddbemu_port(emu.handle) == port
        # ddbemu_call's credential: access key "local" in us-east-1.
        ddb = make_client(emu.endpoint, access_key="local", region="us-east-1")
        item = ddb.get_item(TableName="Music", Key={"Artist": {"S": "in-process"}})["Item"]
        assert item == {"Artist": {"S": "in-process"}}
        ddb.put_item(TableName="Music", Item={"Artist": {"S": "over-http"}})
        _, answer = emu.call("GetItem", {"TableName": "Music",
                                         "Key": {"Artist": {"S": "over-http"}}})
        assert answer["Item"] == {"Artist": {"S": "over-http"}}
        with pytest.raises(LibraryError, match="already listening"):
            emu.listen()


def test_db_path_keeps_the_tables(lib, tmp_path):
    with Emulator(lib, "--db-path", str(tmp_path)) as emu:
        emu.call("CreateTable", TABLE)
        emu.call("PutItem", {"TableName": "Music", "Item": {"Artist": {"S": "kept"}}})
    with Emulator(lib, "--db-path", str(tmp_path)) as emu:
        _, answer = emu.call("GetItem", {"TableName": "Music", "Key": {"Artist": {"S": "kept"}}})
        assert answer["Item"] == {"Artist": {"S": "kept"}}


def test_init_file_is_replayed(lib, tmp_path):
    path = tmp_path / "table.json"
    path.write_text('{"TableName": "FromInit", "BillingMode": "PAY_PER_REQUEST",'
                    '"KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],'
                    '"AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}]}')
    with Emulator(lib, "--init", str(path)) as emu:
        _, answer = emu.call("ListTables", {})
        assert answer["TableNames"] == ["FromInit"]


def test_bad_options_are_refused_with_the_command_lines_message(lib):
    with pytest.raises(LibraryError, match="unknown option '--no-such-flag'"):
        Emulator(lib, "--no-such-flag")
    with pytest.raises(LibraryError, match="not a port number"):
        Emulator(lib, "--port", "99999")
    with pytest.raises(LibraryError, match="only on the command line"):
        Emulator(lib, "--help")
    with pytest.raises(LibraryError, match="cannot listen"):
        with Emulator(lib, "--host", "192.0.2.1", "--port", "0") as emu:
            emu.listen()


def test_null_arguments_are_refused(lib):
    answer = ctypes.c_void_p()
    assert lib.ddbemu_call(None, b"DynamoDB_20120810.ListTables", b"{}", ctypes.byref(answer)) == -1
    assert answer.value is None
    with Emulator(lib) as emu:
        assert lib.ddbemu_call(emu.handle, b"DynamoDB_20120810.ListTables", None,
                               ctypes.byref(answer)) == -1


def test_only_the_api_is_exported(lib):
    """-fvisibility=hidden: the engine's names stay inside the library."""
    out = subprocess.run(["nm", "-D", "--defined-only", library_path()], capture_output=True,
                         text=True, check=True).stdout
    names = sorted(line.split()[-1] for line in out.splitlines() if line.strip())
    assert names and all(n.startswith("ddbemu_") for n in names), names
