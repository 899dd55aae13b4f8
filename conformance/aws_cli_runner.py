# SPDX-License-Identifier: MIT
"""Runs AWS CLI commands for a test, one process for many commands.

Started with Debian's interpreter (/usr/bin/python3), it runs what
/usr/bin/aws runs - awscli.clidriver's main - once per line of stdin: each
line is a JSON list of arguments, each answer a JSON line
{"rc": exit status, "out": stdout, "err": stderr}. The test process cannot
import the CLI itself: Debian's awscli brings its own botocore, which clashes
with the python3-botocore that boto3 uses.
"""

import contextlib
import io
import json
import sys

import awscli.clidriver


def main():
    for line in sys.stdin:
        args = json.loads(line)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = awscli.clidriver.create_clidriver().main(args)
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else 1
        sys.__stdout__.write(json.dumps({"rc": rc, "out": out.getvalue(),
                                         "err": err.getvalue()}) + "\n")
        sys.__stdout__.flush()


if __name__ == "__main__":
    main()
