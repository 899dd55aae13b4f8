#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/snapshots_disk.py - what keeping named snapshots under --db-path
costs (docs/snapshots.md, "Persistence"), over real HTTP: the answer of a
save (written after it) against the same save in memory, a save with
"wait": true (answered once ddbemu.db holds it), the restart with a stored
snapshot against the restart without, and what ddbemu.db grows by. The
references are measured in the same run: GET /ddbemu/clock (the HTTP floor)
and an in-memory server loaded the same way.

    bench/snapshots_disk.py [--items 100000] [--rounds 5] [--bin build/emulator/ddbemu]

One table `full` (a GSI, an LSI, a NEW_AND_OLD_IMAGES stream, TTL on) of
--items items of ~120 bytes (bench/snapshots.py's). Nothing is asserted;
the figures go to bench/README.md.
"""
import argparse
import os
import shutil
import socket
import subprocess
import tempfile
import time

from snapshots import Conn, create, free_port, load, timed

NS = {"access_key": "seedfull", "region": "us-east-1"}


def start(binary, *args):
    port = free_port()
    proc = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", str(port), *args],
                            stderr=subprocess.DEVNULL)
    t0 = time.perf_counter()
    for _ in range(2000):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            break
        except OSError:
            time.sleep(0.01)
    return proc, port, (time.perf_counter() - t0) * 1000


def stop(proc):
    proc.terminate()
    proc.wait()


def seeded(binary, items, *args):
    proc, port, _ = start(binary, *args)
    c = Conn(port, NS["access_key"])
    create(c, "full", True)
    load(port, NS["access_key"], "full", items)
    return proc, port, c


def save_times(c, rounds, wait):
    def before():
        # The previous round's save and its deletion are written first, so
        # that no background write competes with the one measured.
        if any(s["name"] == "b" for s in c.control("GET", "snapshots")["snapshots"]):
            c.control("DELETE", "snapshots/b")
        c.control("POST", "snapshots", {"name": "fence", "wait": True, "access_key": "none",
                                        "region": "us-east-1"})
        c.control("DELETE", "snapshots/fence")

    return timed(lambda: c.control("POST", "snapshots", {"name": "b", "wait": wait, **NS}),
                 rounds, before=before)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=100000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bin", default=os.path.join(here, "..", "build", "emulator", "ddbemu"))
    a = ap.parse_args()
    data = tempfile.mkdtemp(prefix="ddbemu-bench-snapdisk-")
    meta = os.path.join(data, "ddbemu.db")
    try:
        print(f"ddbemu {a.bin}, {a.items} items, median of {a.rounds} rounds (ms)")
        proc, port, c = seeded(a.bin, a.items)
        clock = timed(lambda: c.control("GET", "clock"), 50)
        memory = timed(lambda: c.control("POST", "snapshots", {"name": "b", **NS}), a.rounds,
                       before=lambda: [c.control("DELETE", "snapshots/b") for s in
                                       c.control("GET", "snapshots")["snapshots"]])
        stop(proc)

        proc, port, c = seeded(a.bin, a.items, "--db-path", data)
        answer = save_times(c, a.rounds, False)
        waited = save_times(c, a.rounds, True)
        size_with = os.path.getsize(meta)
        stop(proc)
        starts_with = []
        for _ in range(a.rounds):
            proc, port, ms = start(a.bin, "--db-path", data)
            starts_with.append(ms)
            stop(proc)
        proc, port, _ = start(a.bin, "--db-path", data)
        Conn(port, "x").control("DELETE", "snapshots/b")
        stop(proc)
        size_without = os.path.getsize(meta)
        starts_without = []
        for _ in range(a.rounds):
            proc, port, ms = start(a.bin, "--db-path", data)
            starts_without.append(ms)
            stop(proc)

        def med(v):
            return sorted(v)[len(v) // 2]

        print(f"{'case':<44}{'ms':>10}")
        print(f"{'reference: GET /ddbemu/clock':<44}{clock:>10.2f}")
        print(f"{'reference: save in memory':<44}{memory:>10.2f}")
        print(f"{'--db-path: save, answer':<44}{answer:>10.2f}")
        print(f"{'--db-path: save with wait (on disk)':<44}{waited:>10.2f}")
        print(f"{'--db-path: start with the snapshot':<44}{med(starts_with):>10.0f}")
        print(f"{'--db-path: start without it':<44}{med(starts_without):>10.0f}")
        print(f"{'ddbemu.db with the snapshot (MiB)':<44}{size_with / 2**20:>10.1f}")
        print(f"{'ddbemu.db after deleting it (MiB)':<44}{size_without / 2**20:>10.1f}")
    finally:
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
