#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/snapshots.py - time of saving, restoring and forking a namespace
(docs/snapshots.md), over real HTTP, against two references measured in the
same run: the control interface's cheapest call (GET /ddbemu/clock: the HTTP
floor) and a 50-item Query. Also the RSS a snapshot adds.

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


def timed(fn, rounds, before=None):
    out = []
    for _ in range(rounds):
        if before:
            before()
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
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
    port = free_port()
    proc = subprocess.Popen([a.bin, "--host", "127.0.0.1", "--port", str(port)],
                            stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                time.sleep(0.05)
        print(f"ddbemu {a.bin}, {a.items} items per table, median of {a.rounds} rounds (ms)")
        print(f"{'case':<34}{'ms':>10}")
        c = Conn(port, "seed")
        clock = timed(lambda: c.control("GET", "clock"), 50)
        print(f"{'reference: GET /ddbemu/clock':<34}{clock:>10.2f}")
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
            rss0 = rss_kb(proc.pid)
            save = timed(lambda: c.control("POST", "snapshots", {"name": "b" + kind, **ns}),
                         a.rounds,
                         before=lambda: c.control("GET", "snapshots") and
                         [c.control("DELETE", "snapshots/b" + kind)
                          for s in c.control("GET", "snapshots")["snapshots"]
                          if s["name"] == "b" + kind])
            rss1 = rss_kb(proc.pid)
            restore = timed(lambda: c.control("POST", f"snapshots/b{kind}/restore", {}), a.rounds)
            n = iter(range(1000))
            fork = timed(lambda: c.control("POST", f"snapshots/b{kind}/fork",
                                           {"to_access_key": f"w{kind}{next(n)}"}), a.rounds)
            live = timed(lambda: c.control("POST", "fork",
                                           {**ns, "to_access_key": f"l{kind}{next(n)}"}),
                         a.rounds)
            print(f"{kind + ': load (BatchWriteItem, once)':<34}{load_ms:>10.0f}")
            print(f"{kind + ': Query of 50 items':<34}{query:>10.2f}")
            print(f"{kind + ': save':<34}{save:>10.2f}")
            print(f"{kind + ': restore':<34}{restore:>10.2f}")
            print(f"{kind + ': fork a snapshot':<34}{fork:>10.2f}")
            print(f"{kind + ': fork the live namespace':<34}{live:>10.2f}")
            print(f"{kind + ': RSS a snapshot adds (KiB)':<34}{rss1 - rss0:>10}")
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
