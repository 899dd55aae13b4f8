# SPDX-License-Identifier: MIT
"""One ddbemu server process: started on a free port, stopped with SIGTERM.

The server is started with ``--port 0`` (the kernel picks a free port, so
parallel runs never collide) and its standard error goes to a log file. The
server writes ``ddbemu listening on http://HOST:PORT`` there once it listens;
``start()`` reads the endpoint from that line, then waits until ``GET /``
answers. A file and not a pipe: a server shared by pytest-xdist workers
outlives the worker that started it, and a pipe whose reader is gone would
kill it with SIGPIPE at its next log line.
"""

from __future__ import annotations

import http.client
import os
import re
import signal
import subprocess
import tempfile
import time
import urllib.parse
from typing import Iterable, Mapping, Optional

# The whole line, newline included: the file may be read mid-line.
_LISTENING = re.compile(r"^ddbemu listening on (http://\S+)\n", re.MULTILINE)
_PACKAGED_BINARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "ddbemu")

# Dummy credentials: ddbemu verifies no signature unless started with
# --credentials; the access key id (with the region) selects the set of
# tables a client sees, unless --shared-db.
DEFAULT_ACCESS_KEY = "ddbemu"
DEFAULT_SECRET_KEY = "ddbemu"
DEFAULT_REGION = "us-east-1"


class ServerError(RuntimeError):
    """The server could not be started (the message quotes its log)."""


def binary_path() -> str:
    """The ddbemu binary: $DDBEMU_BIN if set, else the one in this wheel."""
    return os.environ.get("DDBEMU_BIN") or _PACKAGED_BINARY


class Server:
    """A ddbemu server; a context manager that starts and stops it.

    Options map to ddbemu's command line (``ddbemu --help``): ``shared_db``
    to --shared-db, ``db_path`` to --db-path (tables kept in SQLite files in
    that directory and loaded at start), ``args`` are appended as given.
    ``port=0`` (the default) picks a free port. ``log_path`` keeps the
    server's log in that file (default: a temporary file removed by stop()).
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        shared_db: bool = False,
        db_path: Optional[str | os.PathLike[str]] = None,
        args: Iterable[str] = (),
        binary: Optional[str] = None,
        env: Optional[Mapping[str, str]] = None,
        log_path: Optional[str] = None,
        startup_timeout: float = 30.0,
    ) -> None:
        self.binary = binary or binary_path()
        self.command = [self.binary, "--host", host, "--port", str(port)]
        if shared_db:
            self.command.append("--shared-db")
        if db_path is not None:
            self.command += ["--db-path", os.fspath(db_path)]
        self.command += [str(a) for a in args]
        self.env = env
        self.startup_timeout = startup_timeout
        self.log_path = log_path
        self._own_log = log_path is None
        self.process: Optional[subprocess.Popen[bytes]] = None
        self.endpoint: Optional[str] = None  # "http://127.0.0.1:PORT" once started
        self.host: Optional[str] = None
        self.port: Optional[int] = None

    @property
    def pid(self) -> Optional[int]:
        return self.process.pid if self.process else None

    def boto3_kwargs(
        self, access_key: str = DEFAULT_ACCESS_KEY, region: str = DEFAULT_REGION
    ) -> dict[str, str]:
        """Keyword arguments for boto3.client/resource("dynamodb", ...)."""
        if self.endpoint is None:
            raise ServerError("the server is not started")
        return endpoint_kwargs(self.endpoint, access_key, region)

    def log_text(self) -> str:
        if self.log_path is None:
            return ""
        try:
            with open(self.log_path, "r", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def start(self) -> "Server":
        if self.process is not None:
            raise ServerError("this Server was already started")
        if self.log_path is None:
            fd, self.log_path = tempfile.mkstemp(prefix="ddbemu-", suffix=".log")
            os.close(fd)
        with open(self.log_path, "wb") as log:
            try:
                self.process = subprocess.Popen(
                    self.command,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    env=self.env,
                )
            except OSError as err:
                self._remove_own_log()
                raise ServerError(f"cannot run {self.binary}: {err}") from err
        try:
            self._wait_until_answering()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_until_answering(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + self.startup_timeout
        while True:
            if self.process.poll() is not None:
                raise ServerError(
                    f"{' '.join(self.command)} exited with status "
                    f"{self.process.returncode}:\n{self.log_text().rstrip()}"
                )
            if self.endpoint is None:
                match = _LISTENING.search(self.log_text())
                if match:
                    self.endpoint = match.group(1)
                    url = urllib.parse.urlsplit(self.endpoint)
                    self.host, self.port = url.hostname, url.port
            if self.host is not None and self.port is not None and _answers(self.host, self.port):
                return
            if time.monotonic() > deadline:
                raise ServerError(
                    f"ddbemu did not answer within {self.startup_timeout:.0f} s:\n"
                    f"{self.log_text().rstrip()}"
                )
            time.sleep(0.02)

    def stop(self, timeout: float = 10.0) -> Optional[int]:
        """SIGTERM, then SIGKILL after ``timeout`` seconds; returns the exit status."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._remove_own_log()
        return self.process.returncode

    def _remove_own_log(self) -> None:
        if self._own_log and self.log_path:
            try:
                os.unlink(self.log_path)
            except OSError:
                pass

    def __enter__(self) -> "Server":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<ddbemu.Server {self.endpoint or 'not started'} pid={self.pid}>"


def endpoint_kwargs(
    endpoint: str, access_key: str = DEFAULT_ACCESS_KEY, region: str = DEFAULT_REGION
) -> dict[str, str]:
    return {
        "endpoint_url": endpoint,
        "region_name": region,
        "aws_access_key_id": access_key,
        "aws_secret_access_key": DEFAULT_SECRET_KEY,
    }


def _answers(host: str, port: int) -> bool:
    try:
        conn = http.client.HTTPConnection(host, port, timeout=1)
        try:
            conn.request("GET", "/")
            conn.getresponse().read()
        finally:
            conn.close()
        return True
    except OSError:
        return False
