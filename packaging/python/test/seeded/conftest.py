# SPDX-License-Identifier: MIT
"""The seed of test_seeded.py: the plugin calls this hook once per run.

It writes one line per call to $DDB_SEED_LOG (the run's seed key names the
run), so that the tests can check that the seed ran once, however many
xdist workers there are.
"""

import os

SEED_ITEMS = 20


def pytest_ddbemu_seed(seed):
    client = seed.client()
    client.create_table(
        TableName="Orders",
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "status", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by-status",
                "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    for i in range(SEED_ITEMS):
        client.put_item(
            TableName="Orders", Item={"pk": {"S": f"seed#{i}"}, "status": {"S": "seeded"}}
        )
    with open(os.environ["DDB_SEED_LOG"], "a") as log:
        log.write(f"seed {seed.access_key} {seed.region}\n")
