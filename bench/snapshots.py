#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/snapshots.py - time of saving, restoring and forking a namespace
(docs/snapshots.md), over real HTTP, against two references measured in the
same run: the control interface's cheapest call (GET /ddbemu/clock: the HTTP
floor) and a 50-item Query. Beside each wall time, the CPU time the server
spent per call (from /proc: steadier than the wall time on a loaded machine).
A table shares its rows with its snapshots, restores and forks until its
first write (docs/snapshots.md, "Sharing"), so the first PutItem after a
restore, which copies them, is measured too, a second one, and a restore
that replaces a table that has written (and so frees its copy). Also the RSS
a snapshot adds, and a fork before and after its first write.

    bench/snapshots.py [--items 100000] [--rounds 5] [--bin build/emulator/ddbemu]

Two tables in one namespace are measured apart: `plain` (a key, no index,
no stream) and `full` (a GSI, an LSI, a NEW_AND_OLD_IMAGES stream, TTL on),
each with --items items of ~120 bytes. Nothing here is asserted; the figures
go to bench/README.md.
"""
import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import threading
import time

AUTH = ("AWS4-HMAC-SHA256 Credential={key}/20260101/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=0")


class Conn:
    def __init__(self, port, key):
        self.c = http.client.HTTPConnection("127.0.0.1", port)
        self.key = key

    def ddb(self, op, body):
        self.c.request("POST", "/", json.dumps(body), {
            "X-Amz-Target": "DynamoDB_20120810." + op,
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Date": "20260101T000000Z",
            "Authorization": AUTH.format(key=self.key)})
        r = self.c.getresponse()
        data = r.read()
        if r.status != 200:
            raise RuntimeError(f"{op}: {r.status} {data[:300]!r}")
        return json.loads(data)

    def control(self, method, path, body=None):
        self.c.request(method, "/ddbemu/" + path, json.dumps(body) if body is not None else None,
                       {"Content-Type": "application/json"})
        r = self.c.getresponse()
        data = r.read()
        if r.status != 200:
            raise RuntimeError(f"{path}: {r.status} {data[:300]!r}")
        return json.loads(data)


def create(conn, name, full):
    attrs = ["pk", "sk"] + (["g", "l"] if full else [])
    body = {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}],
            "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in attrs]}
    if full:
        body["GlobalSecondaryIndexes"] = [{
            "IndexName": "byG", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}]}]
        body["LocalSecondaryIndexes"] = [{
            "IndexName": "byL", "Projection": {"ProjectionType": "KEYS_ONLY"},
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "l", "KeyType": "RANGE"}]}]
        body["StreamSpecification"] = {"StreamEnabled": True,
                                       "StreamViewType": "NEW_AND_OLD_IMAGES"}
    conn.ddb("CreateTable", body)
    if full:
        conn.ddb("UpdateTimeToLive", {"TableName": name, "TimeToLiveSpecification": {
            "Enabled": True, "AttributeName": "exp"}})


def load(port, key, name, items, threads=4):
    def worker(start):
        c = Conn(port, key)
        for base in range(start * 25, items, 25 * threads):
            reqs = [{"PutRequest": {"Item": {
                "pk": {"S": f"room#{i // 50:07d}"}, "sk": {"S": f"msg#{i:09d}"},
                "g": {"S": f"g{i % 97}"}, "l": {"S": f"l{(i * 7919) % 100000:06d}"},
                "body": {"S": "x" * 60}, "n": {"N": str(i)}}}}
                for i in range(base, min(base + 25, items))]
            c.ddb("BatchWriteItem", {"RequestItems": {name: reqs}})
    ts = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


PID = None  # the server's, for cpu_ms


def cpu_ms():
    """The server's user + system CPU time so far, in ms."""
    with open(f"/proc/{PID}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def timed(fn, rounds, before=None, cpu=None):
    """Median wall ms of fn over rounds; with cpu (a list), appends the
    server's mean CPU ms per call to it."""
    out, spent = [], 0.0
    for _ in range(rounds):
        if before:
            before()
        c0 = cpu_ms()
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
        spent += cpu_ms() - c0
    if cpu is not None:
        cpu.append(spent / rounds)
    return statistics.median(out)


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=100000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bin", default=os.path.join(here, "..", "build", "emulator", "ddbemu"))
    a = ap.parse_args()
    global PID
    port = free_port()
    proc = subprocess.Popen([a.bin, "--host", "127.0.0.1", "--port", str(port)],
                            stderr=subprocess.DEVNULL)
    PID = proc.pid
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                time.sleep(0.05)
        print(f"ddbemu {a.bin}, {a.items} items per table, median of {a.rounds} rounds (ms);")
        print(f"server CPU: its mean CPU time per call (ms); load average {os.getloadavg()}")
        print(f"{'case':<40}{'ms':>10}{'CPU ms':>10}")

        def row(name, ms, cpu=None):
            print(f"{name:<40}{ms:>10.2f}" + (f"{cpu[-1]:>10.1f}" if cpu else ""))

        c = Conn(port, "seed")
        row("reference: GET /ddbemu/clock", timed(lambda: c.control("GET", "clock"), 50))
        for kind in ("plain", "full"):
            ns_key = "seed" + kind
            c = Conn(port, ns_key)
            create(c, kind, kind == "full")
            t0 = time.perf_counter()
            load(port, ns_key, kind, a.items)
            load_ms = (time.perf_counter() - t0) * 1000
            q = {"TableName": kind, "KeyConditionExpression": "pk = :p",
                 "ExpressionAttributeValues": {":p": {"S": "room#0000001"}}}
            query = timed(lambda: c.ddb("Query", q), 20)
            ns = {"access_key": ns_key, "region": "us-east-1"}
            put = {"TableName": kind, "Item": {"pk": {"S": "room#0000001"}, "sk": {"S": "new"},
                                               "g": {"S": "g1"}, "l": {"S": "l1"}}}
            cpu = {}
            rss0 = rss_kb(proc.pid)
            save = timed(lambda: c.control("POST", "snapshots", {"name": "b" + kind, **ns}),
                         a.rounds,
                         before=lambda: c.control("GET", "snapshots") and
                         [c.control("DELETE", "snapshots/b" + kind)
                          for s in c.control("GET", "snapshots")["snapshots"]
                          if s["name"] == "b" + kind], cpu=cpu.setdefault("save", []))
            rss1 = rss_kb(proc.pid)
            restore = timed(lambda: c.control("POST", f"snapshots/b{kind}/restore", {}), a.rounds,
                            cpu=cpu.setdefault("restore", []))
            first = timed(lambda: c.ddb("PutItem", put), a.rounds,
                          before=lambda: c.control("POST", f"snapshots/b{kind}/restore", {}),
                          cpu=cpu.setdefault("first", []))
            second = timed(lambda: c.ddb("PutItem", put), a.rounds,
                           cpu=cpu.setdefault("second", []))
            # The table being replaced has rows of its own now: the restore frees them.
            rewritten = timed(lambda: c.control("POST", f"snapshots/b{kind}/restore", {}),
                              a.rounds, before=lambda: c.ddb("PutItem", put),
                              cpu=cpu.setdefault("rewritten", []))
            n = iter(range(1000))
            fork = timed(lambda: c.control("POST", f"snapshots/b{kind}/fork",
                                           {"to_access_key": f"w{kind}{next(n)}"}), a.rounds,
                         cpu=cpu.setdefault("fork", []))
            live = timed(lambda: c.control("POST", "fork",
                                           {**ns, "to_access_key": f"l{kind}{next(n)}"}),
                         a.rounds, cpu=cpu.setdefault("live", []))
            rss2 = rss_kb(proc.pid)
            c.control("POST", f"snapshots/b{kind}/fork", {"to_access_key": f"m{kind}"})
            rss3 = rss_kb(proc.pid)
            Conn(port, f"m{kind}").ddb("PutItem", put)
            rss4 = rss_kb(proc.pid)
            row(kind + ": load (BatchWriteItem, once)", load_ms)
            row(kind + ": Query of 50 items", query)
            row(kind + ": save", save, cpu["save"])
            row(kind + ": restore", restore, cpu["restore"])
            row(kind + ": first PutItem after restore", first, cpu["first"])
            row(kind + ": second PutItem", second, cpu["second"])
            row(kind + ": restore after a write", rewritten, cpu["rewritten"])
            row(kind + ": fork a snapshot", fork, cpu["fork"])
            row(kind + ": fork the live namespace", live, cpu["live"])
            print(f"{kind + ': RSS a snapshot adds (KiB)':<40}{rss1 - rss0:>10}")
            print(f"{kind + ': RSS a fork adds (KiB)':<40}{rss3 - rss2:>10}")
            print(f"{kind + ': RSS its first write adds (KiB)':<40}{rss4 - rss3:>10}")
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
