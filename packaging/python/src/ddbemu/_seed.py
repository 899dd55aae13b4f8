# SPDX-License-Identifier: MIT
"""Seeding once per test run, whatever the number of pytest-xdist workers.

The user's pytest_ddbemu_seed hook fills a seed namespace (an access key of
its own, ``ddbemuseed<run token>``); its tables are saved as the snapshot
``ddbemu-seed-<run token>`` and then dropped from the seed key (the snapshot
holds them, and a --db-path directory should not keep them). The fixtures
fork that snapshot into the namespaces they hand out.

Under xdist the workers are processes that share one server: the first to
need the seed takes a file lock in the run's state directory, seeds, and
writes ``seed.json``; the others wait on the lock and find the record. A
worker whose seed hook raised writes no record, so the next worker tries
again from an empty seed key and reports its own traceback. The controller
(pytest_plugin.pytest_unconfigure) deletes the snapshot at the end of the
run; without xdist the session fixture does.
"""

from __future__ import annotations

import fcntl
import json
import os
from typing import Callable, Optional

from ddbemu._control import Control, ControlError, Namespace

RECORD = "seed.json"


def seed_names(run_token: str) -> tuple[str, str]:
    """The snapshot name and the seed access key of a run."""
    return f"ddbemu-seed-{run_token}", f"ddbemuseed{run_token}"


def seed_once(
    endpoint: str,
    region: str,
    run_token: str,
    run_seed: Callable[[Namespace], None],
    state_dir: Optional[str],
    session_key: Optional[str] = None,
) -> str:
    """Seeds (unless another worker of the run has) and returns the snapshot's name.

    ``session_key``: also fork the snapshot into this key, once for the run
    (--ddbemu-isolation=session: every worker shares the key).
    """
    if state_dir is None:
        return _seed(endpoint, region, run_token, run_seed, session_key)
    with open(os.path.join(state_dir, "seed.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        record = os.path.join(state_dir, RECORD)
        if os.path.exists(record):
            with open(record) as f:
                return json.load(f)["snapshot"]
        snapshot = _seed(endpoint, region, run_token, run_seed, session_key)
        with open(record + ".tmp", "w") as f:
            json.dump({"endpoint": endpoint, "snapshot": snapshot}, f)
        os.replace(record + ".tmp", record)
        return snapshot


def _seed(
    endpoint: str,
    region: str,
    run_token: str,
    run_seed: Callable[[Namespace], None],
    session_key: Optional[str],
) -> str:
    control = Control(endpoint)
    snapshot, seed_key = seed_names(run_token)
    control.reset(seed_key, region)  # what an earlier, failed attempt left
    delete_quietly(control, snapshot)
    run_seed(Namespace(endpoint=endpoint, access_key=seed_key, region=region))
    control.save_snapshot(snapshot, seed_key, region)
    control.reset(seed_key, region)
    if session_key is not None:
        control.fork(snapshot, session_key, replace=True)
    return snapshot


def forget(state_dir: str) -> None:
    """Controller, at the end of an xdist run: deletes the run's seed snapshot."""
    try:
        with open(os.path.join(state_dir, RECORD)) as f:
            record = json.load(f)
    except (OSError, ValueError):
        return
    delete_quietly(Control(record["endpoint"]), record["snapshot"])


def delete_quietly(control: Control, snapshot: str) -> None:
    try:
        control.delete_snapshot(snapshot)
    except (ControlError, OSError):
        pass  # not there, or the server is gone already
