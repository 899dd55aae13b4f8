# SPDX-License-Identifier: MIT
"""ddbemu: a local, in-memory, DynamoDB-compatible emulator for tests.

    import boto3, ddbemu

    with ddbemu.Server() as server:                     # a free port, in memory
        client = boto3.client("dynamodb", **server.boto3_kwargs())
        client.list_tables()

The wheel carries the ddbemu binary (``ddbemu.binary_path()``; the ``ddbemu``
command runs it) and a pytest plugin, loaded automatically, whose fixtures
start one server per test session: see ``ddbemu.pytest_plugin``.
"""

from ddbemu._server import Server, ServerError, binary_path

__all__ = ["Server", "ServerError", "binary_path", "__version__"]
__version__ = "@VERSION@"
