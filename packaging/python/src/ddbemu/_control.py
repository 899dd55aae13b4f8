# SPDX-License-Identifier: MIT
"""The server's snapshot and fork routes, and a namespace forked per worker.

ddbemu keeps one set of tables per access key and region (a namespace).
``POST /ddbemu/snapshots`` saves a namespace's tables under a name and
``POST /ddbemu/snapshots/<name>/fork`` copies them into another access key
(docs/snapshots.md), so parallel test workers each start from one seed:

    seed = Namespace(endpoint, "seed")           # fill it once (CreateTable ...)
    Control(endpoint).save_snapshot("seed", seed.access_key)
    mine = fork_for_worker(endpoint, "seed", "gw0")   # key "ddbemugw0"
    client = boto3.client("dynamodb", **mine.boto3_kwargs())
    mine.restore()                               # back to the seed

Standard library only (urllib): boto3 is needed only by ``client()`` and
``resource()``. The routes are control routes: served when the server
listens on a loopback address (the default), or when started with --control.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Optional

from ddbemu._server import DEFAULT_REGION, endpoint_kwargs

# What an access key derived from a worker id may hold: it travels in the
# SigV4 Credential (KEY/date/region/...) and must not need quoting anywhere.
_KEY_CHARS = re.compile(r"[A-Za-z0-9._-]+")
_KEY_MAX = 128  # AWS's longest access key id


class ControlError(RuntimeError):
    """A control route answered an error: ``status`` (400, 404, 409) and the server's text."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"ddbemu control route: {status} {message}")
        self.status = status
        self.message = message


class Control:
    """The snapshot routes of the server at ``endpoint`` (docs/snapshots.md)."""

    def __init__(self, endpoint: str, timeout: float = 120.0) -> None:
        self.endpoint = endpoint.rstrip("/")
        self.timeout = timeout

    def _call(self, method: str, path: str, body: Optional[dict[str, Any]] = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.endpoint}/ddbemu/{path}",
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as err:
            text = err.read().decode("utf-8", "replace")
            try:
                text = json.loads(text).get("error", text)
            except (ValueError, AttributeError):
                pass
            raise ControlError(err.code, text) from None

    def save_snapshot(
        self, name: str, access_key: str, region: str = DEFAULT_REGION
    ) -> dict[str, Any]:
        """Saves the tables of ``access_key`` in ``region`` as ``name``; returns its info."""
        return self._call(
            "POST", "snapshots", {"name": name, "access_key": access_key, "region": region}
        )

    def snapshots(self) -> list[dict[str, Any]]:
        """Every saved snapshot's info, oldest first."""
        return self._call("GET", "snapshots")["snapshots"]

    def delete_snapshot(self, name: str) -> None:
        self._call("DELETE", f"snapshots/{urllib.parse.quote(name, safe='')}")

    def restore(self, name: str, capacity: str = "keep") -> int:
        """Puts the snapshot back into the namespace it was saved from; returns its table count."""
        path = f"snapshots/{urllib.parse.quote(name, safe='')}/restore"
        return self._call("POST", path, {"capacity": capacity})["tables"]

    def fork(self, snapshot: str, to_access_key: str, replace: bool = True) -> str:
        """Copies the snapshot into ``to_access_key`` (same region); returns "key/region".

        ``replace`` drops the tables the key has first; without it a key that
        has tables is refused (ControlError 409).
        """
        path = f"snapshots/{urllib.parse.quote(snapshot, safe='')}/fork"
        return self._call("POST", path, {"to_access_key": to_access_key, "replace": replace})[
            "namespace"
        ]

    def reset(self, access_key: str, region: str = DEFAULT_REGION) -> int:
        """Deletes every table of a namespace (protected ones too); returns how many."""
        return self._call("POST", "reset", {"access_key": access_key, "region": region})[
            "tables_deleted"
        ]


@dataclass(frozen=True)
class Namespace:
    """One access key and region on a server: the tables a client with that key sees."""

    endpoint: str
    access_key: str
    region: str = DEFAULT_REGION

    def boto3_kwargs(self) -> dict[str, str]:
        """endpoint_url, region_name and credentials for boto3.client/resource(...)."""
        return endpoint_kwargs(self.endpoint, self.access_key, self.region)

    def client(self, service: str = "dynamodb") -> Any:
        import boto3

        return boto3.client(service, **self.boto3_kwargs())

    def resource(self) -> Any:
        import boto3

        return boto3.resource("dynamodb", **self.boto3_kwargs())


@dataclass(frozen=True)
class Fork(Namespace):
    """A namespace made from a snapshot; ``restore()`` makes it that snapshot again."""

    snapshot: str = ""

    def restore(self) -> None:
        Control(self.endpoint).fork(self.snapshot, self.access_key, replace=True)


def worker_access_key(worker_id: object, prefix: str = "ddbemu") -> str:
    """The access key of a worker: ``prefix`` + the worker id ("gw0" -> "ddbemugw0").

    The same worker id gives the same key, in every language's helper (the
    npm package's workerAccessKey() too). Ids of letters, digits, '.', '_'
    and '-' only, so that the key needs no quoting in a request's signature.
    """
    key = f"{prefix}{worker_id}"
    if not _KEY_CHARS.fullmatch(key) or len(key) > _KEY_MAX or str(worker_id) == "":
        raise ValueError(
            f"worker id {worker_id!r} with prefix {prefix!r} does not make an access key of "
            f"1 to {_KEY_MAX} letters, digits, '.', '_' or '-'"
        )
    return key


def fork_for_worker(
    endpoint: str, snapshot: str, worker_id: object, prefix: str = "ddbemu"
) -> Fork:
    """Forks ``snapshot`` into the worker's own access key (replacing what it held).

    The fork keeps the region the snapshot was saved from. Returns the Fork,
    whose boto3_kwargs() give a client on it and whose restore() forks again.
    """
    key = worker_access_key(worker_id, prefix)
    namespace = Control(endpoint).fork(snapshot, key, replace=True)
    region = namespace.rsplit("/", 1)[1]
    return Fork(endpoint=endpoint, access_key=key, region=region, snapshot=snapshot)
