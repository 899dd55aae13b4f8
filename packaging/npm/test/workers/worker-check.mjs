// SPDX-License-Identifier: MIT
//
// What a.test.mjs and b.test.mjs both run (see run.mjs): fork the seed into
// this process's own key, wait until the other file has forked too (so the
// two really run at the same time), then write and check that this key holds
// the seed and its own writes, never the other file's.

import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  DeleteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  ScanCommand,
} from "@aws-sdk/client-dynamodb";
import { forkForWorker } from "ddbemu";

const SEED_ITEMS = 10;
const seeds = Array.from({ length: SEED_ITEMS }, (_, i) => `seed#${i}`).sort();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function keys(client) {
  const page = await client.send(new ScanCommand({ TableName: "Orders", ConsistentRead: true }));
  return page.Items.map((item) => item.pk.S).sort();
}

async function meetTheOtherFile(accessKeyId) {
  const dir = process.env.DDB_WORKERS_MEETING;
  writeFileSync(join(dir, accessKeyId), "");
  for (let i = 0; readdirSync(dir).length < 2; i++) {
    assert.ok(i < 600, "the other test file did not start within 60 s: they do not run together");
    await sleep(100);
  }
}

export async function checkWorker(name) {
  const fork = await forkForWorker("seed"); // DDBEMU_ENDPOINT; worker id: this pid
  assert.equal(fork.accessKeyId, `ddbemu${process.pid}`);
  const client = new DynamoDBClient(fork.clientConfig);
  try {
    await meetTheOtherFile(fork.accessKeyId);
    assert.deepEqual(await keys(client), seeds);
    const mine = [];
    for (let i = 0; i < 5; i++) {
      mine.push(`${name}#${i}`);
      await client.send(new PutItemCommand({ TableName: "Orders", Item: { pk: { S: mine[i] } } }));
      await sleep(50); // the other file writes meanwhile
    }
    await client.send(new DeleteItemCommand({ TableName: "Orders", Key: { pk: { S: "seed#0" } } }));
    assert.deepEqual(await keys(client), [...seeds.slice(1), ...mine].sort());
    await fork.restore();
    assert.deepEqual(await keys(client), seeds);
  } finally {
    client.destroy();
  }
}
