# SPDX-License-Identifier: MIT
"""Emulator only: the Debian package's manual page (packaging/deb/ddbemu.1)
lists exactly the options `ddbemu --help` lists, with the same value names
and the same DynamoDB Local spellings (issue #25: "a man page, kept in step
with --help by a test")."""

import os
import re
import subprocess

import pytest

from conftest import REPO_ROOT

pytestmark = pytest.mark.usefixtures("emulator")

MAN_PAGE = os.path.join(REPO_ROOT, "packaging", "deb", "ddbemu.1")
SPELLING = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)(?: ([A-Z][A-Z0-9_]*))?")


def help_options(binary):
    """{spelling: value name or None} from --help's option list: the native
    name at the start of a row, DynamoDB Local's in "(DynamoDB Local: ...)"."""
    text = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL, check=True).stdout
    section = text.split("\nOptions:\n", 1)[1].split("\n\n", 1)[0]
    options = {}
    for line in section.splitlines():
        m = re.match(r"  (--[\w-]+)(?: ([A-Z][A-Z0-9_]*))?", line)
        if m:
            options[m.group(1)] = m.group(2)
        m = re.search(r"\(DynamoDB Local: (-\w+)(?: ([A-Z][A-Z0-9_]*))?\)", line)
        if m:
            options[m.group(1)] = m.group(2)
    return options


def roff_text(line):
    """A macro line's words as they print: .B/.BI/.BR arguments joined,
    font changes and escapes removed."""
    macro, _, rest = line.partition(" ")
    rest = rest.replace("\\-", "-")
    rest = re.sub(r"\\f[BIRP]", "", rest)
    if macro in (".BI", ".BR", ".IR", ".RB", ".RI", ".IB"):
        words = re.findall(r'"([^"]*)"|(\S+)', rest)
        return "".join(a or b for a, b in words)
    return rest.replace('"', "")


def man_options():
    """{spelling: value name or None} from the OPTIONS section: the line
    after each .TP names the option, its value and its other spellings."""
    with open(MAN_PAGE) as f:
        lines = f.read().splitlines()
    start = lines.index(".SH OPTIONS")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(".SH "))
    options = {}
    for i in range(start, end):
        if lines[i] == ".TP":
            for m in SPELLING.finditer(roff_text(lines[i + 1])):
                options[m.group(1)] = m.group(2)
    return options


def test_man_page_lists_the_options_of_help(ddbemu_bin):
    in_help, in_man = help_options(ddbemu_bin), man_options()
    assert "--port" in in_help and "-port" in in_help, in_help  # the parser reads --help
    missing = sorted(set(in_help) - set(in_man))
    extra = sorted(set(in_man) - set(in_help))
    assert not missing, f"in --help but not in {MAN_PAGE}: {missing}"
    assert not extra, f"in {MAN_PAGE} but not in --help: {extra}"
    differ = {o: (in_help[o], in_man[o]) for o in in_help if in_help[o] != in_man[o]}
    assert not differ, f"value names differ (--help, man page): {differ}"
