# SPDX-License-Identifier: MIT
"""The plugin's seed and fork fixtures, run by packaging/python/verify (from
the installed wheel) and by conformance/test_emulator_worker_forks.py (from
the source tree): conftest.py seeds an Orders table once per run, and every
namespace the fixtures hand out is forked from it.

Every test writes items named after its access key, then checks that the
table holds the seed, its own writes, and nothing else: under xdist the
other worker writes at the same time into the same table name, on its own
key. What else a test may find depends on the run's options:
  --ddbemu-isolation=test            nothing: a new key per test
  --ddbemu-isolation=worker          the earlier writes of its own worker
  ... --ddbemu-restore-per-test      nothing: the seed is forked back first
  --ddbemu-isolation=session         its earlier writes (skipped under xdist,
                                     where the workers share the namespace)
Each test appends "test <worker id> <access key>" to $DDB_SEED_LOG, which
the caller reads to check that two workers ran.
"""

import os
import time

import pytest

SEED_ITEMS = 20
# The seed items this process (this worker) deleted since its namespace last
# was the seed: with --ddbemu-isolation=worker they stay deleted.
deleted_here = set()


def all_keys(client):
    keys, start = [], {}
    while True:
        page = client.scan(TableName="Orders", ConsistentRead=True, **start)
        keys += [item["pk"]["S"] for item in page["Items"]]
        if "LastEvaluatedKey" not in page:
            return sorted(keys)
        start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}


def seed_lines(snapshot):
    token = snapshot.rsplit("-", 1)[1]  # ddbemu-seed-<token>; the seed key ends with it
    with open(os.environ["DDB_SEED_LOG"]) as log:
        return [line for line in log if line.startswith("seed ") and token in line]


@pytest.mark.parametrize("n", range(6))
def test_seed_and_own_writes_only(request, ddbemu_client, ddbemu_access_key, ddbemu_snapshot, n):
    config = request.config
    isolation = config.getoption("ddbemu_isolation")
    fresh = isolation == "test" or config.getoption("ddbemu_restore_per_test")
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    if isolation == "session" and worker != "main":
        pytest.skip("the xdist workers share the session's namespace: their writes meet")

    assert len(seed_lines(ddbemu_snapshot)) == 1, "the seed hook ran more than once"
    seeds = [f"seed#{i}" for i in range(SEED_ITEMS)]
    mine = f"{ddbemu_access_key}#"
    if fresh:
        deleted_here.clear()
    before = all_keys(ddbemu_client)
    assert sorted(k for k in before if k.startswith("seed#")) == sorted(set(seeds) - deleted_here)
    others = [k for k in before if not k.startswith("seed#")]
    if fresh:
        assert others == []
    else:
        assert all(k.startswith(mine) for k in others), others

    for i in range(5):
        ddbemu_client.put_item(
            TableName="Orders", Item={"pk": {"S": f"{mine}{n}#{i}"}, "status": {"S": "new"}}
        )
        time.sleep(0.05)  # the other worker writes meanwhile
    ddbemu_client.delete_item(TableName="Orders", Key={"pk": {"S": f"seed#{n}"}})
    deleted_here.add(f"seed#{n}")
    after = all_keys(ddbemu_client)
    assert f"seed#{n}" not in after
    assert all(k.startswith("seed#") or k.startswith(mine) for k in after), after
    # The index was forked with its table, and follows this key's writes only.
    seeded = ddbemu_client.query(
        TableName="Orders",
        IndexName="by-status",
        KeyConditionExpression="#s = :s",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":s": {"S": "seeded"}},
    )["Items"]
    assert len(seeded) == len([k for k in after if k.startswith("seed#")])
    with open(os.environ["DDB_SEED_LOG"], "a") as log:
        log.write(f"test {worker} {ddbemu_access_key}\n")


def test_restore_puts_the_seed_back(ddbemu_namespace, ddbemu_snapshot):
    client = ddbemu_namespace.client()
    client.put_item(TableName="Orders", Item={"pk": {"S": "restore-me"}, "status": {"S": "x"}})
    client.delete_item(TableName="Orders", Key={"pk": {"S": "seed#0"}})
    ddbemu_namespace.restore()
    deleted_here.clear()
    keys = all_keys(client)
    assert keys == sorted(f"seed#{i}" for i in range(SEED_ITEMS))
    assert ddbemu_namespace.snapshot == ddbemu_snapshot


def test_seed_snapshot_is_listed(ddbemu_control, ddbemu_snapshot, ddbemu_region):
    info = {s["name"]: s for s in ddbemu_control.snapshots()}[ddbemu_snapshot]
    assert info["tables"] == 1 and info["items"] == SEED_ITEMS
    assert info["namespace"].endswith(f"/{ddbemu_region}")
