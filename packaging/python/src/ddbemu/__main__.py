# SPDX-License-Identifier: MIT
"""The ``ddbemu`` command: runs the packaged binary with the same arguments.

exec() replaces this Python process with the server, so signals, standard
streams and the exit status are the binary's own.
"""

import os
import sys

from ddbemu._server import binary_path


def main():
    binary = binary_path()
    try:
        os.execv(binary, [binary] + sys.argv[1:])
    except OSError as err:
        sys.stderr.write(f"ddbemu: cannot run {binary}: {err}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
