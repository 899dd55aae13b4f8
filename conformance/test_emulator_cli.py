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
