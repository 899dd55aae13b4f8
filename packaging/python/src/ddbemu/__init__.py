# SPDX-License-Identifier: MIT
"""ddbemu: a local, in-memory, DynamoDB-compatible emulator for tests.

    import boto3, ddbemu

    with ddbemu.Server() as server:                     # a free port, in memory
        client = boto3.client("dynamodb", **server.boto3_kwargs())
        client.list_tables()

The wheel carries the ddbemu binary (``ddbemu.binary_path()``; the ``ddbemu``
command runs it) and a pytest plugin, loaded automatically, whose fixtures
start one server per test session: see ``ddbemu.pytest_plugin``.

Parallel workers from one seed (snapshots and forks, docs/snapshots.md):
``Control`` calls the server's snapshot routes, ``fork_for_worker(endpoint,
snapshot, worker_id)`` copies a snapshot into the worker's own access key
(``worker_access_key``) and returns a ``Fork`` to build clients on.
"""

from ddbemu._control import (
    Control,
    ControlError,
    Fork,
    Namespace,
    fork_for_worker,
    worker_access_key,
)
from ddbemu._server import Server, ServerError, binary_path

__all__ = [
    "Control",
    "ControlError",
    "Fork",
    "Namespace",
    "Server",
    "ServerError",
    "binary_path",
    "fork_for_worker",
    "worker_access_key",
    "__version__",
]
__version__ = "@VERSION@"
